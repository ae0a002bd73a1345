"""GridElasticDeform: its cells painted as OpenCV's fillConvexPoly paints them (the raster
port against cv2 itself), and the transform against albumentations 2.0.8's own, fed the cell
sizes and moves warpkit drew: image, mask, boxes and keypoints; batches, replay, JSON, the
port and the refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers import albumentations_and_photos, assert_alone_and_replayed, assert_ports
from warpkit import augment as W
from warpkit.engine.raster import _walk_mask, quad_spans
from warpkit.engine.stages import Quads

cv2 = pytest.importorskip("cv2")
A, PHOTOS = albumentations_and_photos()
PHOTO = PHOTOS["astronaut"][::2, ::3].copy()  # 256 x 171
H, WD = PHOTO.shape[:2]
MASK = (np.add.outer(np.arange(H) // 20, np.arange(WD) // 25) % 5).astype(np.uint8)
BOXES = [[30.0, 40.0, 90.0, 120.0], [100.5, 10.25, 160.0, 60.0], [5.0, 200.0, 60.0, 250.0]]
POINTS = [[50.0, 60.0], [120.5, 30.25], [10.0, 240.0], [170.0, 255.0], [0.0, 0.0]]


def _painted(entries, n, size):
    W_, H_ = size
    out = np.zeros((n, H_, W_), bool)
    for k, r0, lo, hi in zip(*(a.tolist() for a in entries)):
        for r, (a, b) in enumerate(zip(lo, hi)):
            if a <= b:
                out[k, r0 + r, a:b + 1] = True
    return out


def _random_quads(rng, W_, H_, kind, n=20):
    if kind == "grid":  # cells of a grid with moved corners: convex or nearly
        s = int(rng.integers(2, 24))
        base = np.array([[0, 0], [s, 0], [s, s], [0, s]]) + rng.integers(0, [W_, H_]) - s // 2
        return base[None] + rng.integers(-(s // 2), s // 2 + 1, (n, 4, 2))
    if kind == "anywhere":  # any four points, off the image too: folded, crossed, clipped
        return rng.integers(-12, max(W_, H_) + 12, (n, 4, 2))
    return rng.integers(-3, 8, (n, 4, 2)) + rng.integers(0, max(W_, H_), (n, 1, 2))  # tiny


@pytest.mark.parametrize("kind", ["grid", "anywhere", "tiny"])
def test_quads_are_painted_as_opencv_fills_them(kind):
    """Every pixel cv2.fillConvexPoly sets for a quadrilateral, and no other, on 4000 random
    quads of each kind: convex and not, crossed, degenerate, partly or wholly off the image
    (its lines clipped by clipLine's integer arithmetic); the array path and the one-by-one
    scan alike."""
    rng = np.random.default_rng({"grid": 0, "anywhere": 1, "tiny": 2}[kind])
    folded = 0
    for _ in range(200):
        W_, H_ = (int(v) for v in rng.integers(3, 70, 2))
        quads = _random_quads(rng, W_, H_, kind)
        entries = quad_spans(quads, (W_, H_))
        got = _painted(entries, len(quads), (W_, H_))
        folded += len(entries[0]) - len(set(entries[0].tolist()))
        for k, q in enumerate(quads):
            want = np.zeros((H_, W_), np.uint8)
            cv2.fillConvexPoly(want, q.astype(np.int32), 1)
            np.testing.assert_array_equal(got[k], want.astype(bool), err_msg=str(q.tolist()))
            m, y0, x0 = _walk_mask(q, (W_, H_))
            alone = np.zeros((H_, W_), bool)
            if m is not None:
                alone[y0:y0 + m.shape[0], x0:x0 + m.shape[1]] = m
            np.testing.assert_array_equal(alone, want.astype(bool))
    if kind == "anywhere":
        assert folded > 0  # rows of several runs happened, and were entries of their own


class _Replay:
    """albumentations' random generator replaced by warpkit's recorded draw: its two shuffles
    give the recorded cell sizes, its integers the recorded moves."""

    def __init__(self, params):
        self.orders = [list(params["heights"]), list(params["widths"])]
        self.moves = params["moves"]

    def shuffle(self, a):
        a[:] = self.orders.pop(0)

    def integers(self, lo, hi, size):
        return np.array(self.moves, np.int64).reshape(size)


def _theirs(grid, magnitude, params, image, mask):
    t = A.GridElasticDeform(grid, magnitude, p=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([t], bbox_params=A.BboxParams(format="pascal_voc",
                                                         label_fields=["labels"]),
                           keypoint_params=A.KeypointParams(format="xy",
                                                            remove_invisible=False))
        t.random_generator = _Replay(params)
        return recipe(image=image, mask=mask, bboxes=BOXES, labels=[0, 1, 2], keypoints=POINTS)


CASES = [((4, 4), 10), ((3, 5), 8), ((2, 2), 30), ((5, 3), 12), ((1, 6), 5)]


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("channels", [3, 1])
@pytest.mark.parametrize("grid, magnitude", CASES, ids=[f"{g[0]}x{g[1]}-{m}" for g, m in CASES])
def test_equals_albumentations(grid, magnitude, dtype, channels, queue):
    """albumentations' GridElasticDeform fed warpkit's recorded cell sizes and moves: the same
    image (uint8 within 1 level, at most 1 pixel value in 1000 off; float32 within 1e-4: its
    warpPerspective quantises positions to 1/32 px), the same mask pixel for pixel (nearest),
    the same keypoints (moved by their cell's homography, clipped to the image), boxes within
    1.5 px (albumentations finds them from each box's pixel mask warped by nearest neighbour,
    warpkit moves the outline). Non-square grids keep albumentations' reading of num_grid_xy
    (rows first) and its cells' overlaps and gaps; magnitude 30 on 2 x 2 folds cells."""
    img = PHOTO if channels == 3 else np.ascontiguousarray(PHOTO[..., 1])
    if dtype == "float32":
        img = img.astype(np.float32) / 255
    ours = W.Compose([W.GridElasticDeform(grid, magnitude)], padding="constant",
                     remove_invisible=False)(image=img, mask=MASK, boxes=BOXES, labels=[0, 1, 2],
                                             keypoints=POINTS, seed=3, queue=queue)
    params = ours["params"]["steps"][0]
    theirs = _theirs(grid, magnitude, params, img, MASK)
    assert ours["image"].shape == theirs["image"].shape and ours["image"].dtype == img.dtype
    diff = np.abs(ours["image"].astype(np.float64) - theirs["image"])
    if dtype == "uint8":
        assert diff.max() <= 1 and (diff > 0).mean() <= 1e-3
    else:
        assert diff.max() <= 1e-4
    np.testing.assert_array_equal(ours["mask"], theirs["mask"])
    np.testing.assert_allclose(ours["keypoints"], theirs["keypoints"], atol=1e-3)
    assert list(ours["labels"]) == list(theirs["labels"])
    np.testing.assert_allclose(ours["boxes"], np.asarray(theirs["bboxes"]).reshape(-1, 4), atol=1.5)


def test_mesh_is_albumentations_own():
    """The cells' rectangles and moved corners from the recorded sizes and moves are those
    albumentations' own draw makes from the same numbers, square grids and not."""
    for grid, magnitude in CASES:
        t = W.GridElasticDeform(grid, magnitude)
        p = W.Compose([t]).sample((H, WD), seed=5)["steps"][0]
        rects, quads = t.mesh(p, (WD, H))
        theirs = A.GridElasticDeform(grid, magnitude, p=1)
        theirs.random_generator = _Replay(p)
        mesh = theirs.get_params_dependent_on_data({"shape": (H, WD)}, {})["generated_mesh"]
        np.testing.assert_array_equal(mesh[:, :4], rects)
        np.testing.assert_array_equal(mesh[:, 4:], quads.reshape(-1, 8))
        assert all(-magnitude <= v <= magnitude for m in p["moves"] for v in m)


def test_pixels_no_cell_paints_take_the_fill(queue):
    """A non-square grid's cells (as albumentations lays them out) leave pixels that no cell
    paints: albumentations leaves them 0, warpkit gives them the pipeline's fill."""
    t = W.GridElasticDeform((2, 5), magnitude=6)
    out = W.Compose([t], padding="constant", fill=7)(image=PHOTO, seed=1, queue=queue)
    rects, quads = t.mesh(out["params"]["steps"][0], (WD, H))
    owners = Quads(rects, quads, (WD, H)).owners
    assert (owners < 0).any()
    assert (out["image"][owners < 0] == 7).all()
    assert (out["image"][owners >= 0] != 7).any(-1).mean() > 0.9


def test_batches_replay_json_and_port(queue):
    """A ragged batch is each sample alone and replays from its params; the transform
    round-trips through to_dict/JSON and comes from albumentations' pipeline (to_dict too)
    with its own parameters."""
    photos = [PHOTO, PHOTOS["coffee"][::3, ::3].copy(), PHOTOS["chelsea"][:90, :120].copy()]
    pipe = W.Compose([W.RandomResizedCrop((96, 80)), W.GridElasticDeform((3, 3), 7),
                      W.HorizontalFlip()], padding="reflect_101")
    got = pipe(image=photos, seed=2, queue=queue)
    assert_alone_and_replayed(pipe, photos, got, 2, queue)
    again = W.Compose.from_dict(pipe.to_dict())(image=photos, seed=2, queue=queue)
    np.testing.assert_array_equal(again["image"], got["image"])
    assert_ports(W.GridElasticDeform((4, 3), 9, interpolation=1, mask_interpolation=0),
                 A.GridElasticDeform((4, 3), 9, p=1.0))
    ported = W.from_albumentations(A.to_dict(A.Compose([A.GridElasticDeform(
        (5, 5), 3, interpolation=cv2.INTER_CUBIC, p=0.4)])))
    assert ported.interpolation == "cubic" and ported.transforms[0].p == 0.4


@pytest.mark.parametrize("kw, match", [
    (dict(num_grid_xy=(0, 4), magnitude=3), "num_grid_xy must be an int >= 1"),
    (dict(num_grid_xy=(4,), magnitude=3), "num_grid_xy must be two ints"),
    (dict(num_grid_xy=(4, 2.5), magnitude=3), "num_grid_xy must be two ints"),
    (dict(num_grid_xy=(4, 129), magnitude=3), "num_grid_xy must be at most 128"),
    (dict(num_grid_xy=(4, 4), magnitude=0), "magnitude must be an int > 0"),
    (dict(num_grid_xy=(4, 4), magnitude=2.5), "magnitude must be an int > 0"),
    (dict(num_grid_xy=(4, 4), magnitude=True), "magnitude must be an int > 0"),
    (dict(num_grid_xy=(4, 4), magnitude=3, interpolation=99), "interpolation"),
])
def test_bad_arguments_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        W.GridElasticDeform(**kw)


def test_bad_replayed_params_are_refused(queue):
    """Recorded sizes that do not sum to the input's side, or moves of the wrong count or not
    whole, are refused by name before any launch."""
    pipe = W.Compose([W.GridElasticDeform((3, 3), 5)])
    p = pipe.sample((H, WD), seed=1)
    bad_h = {**p, "steps": [{**p["steps"][0], "heights": [10, 10, 10]}]}
    with pytest.raises(ValueError, match="heights must be 3 whole sizes summing to the input's"):
        pipe(image=PHOTO, params=bad_h, queue=queue)
    for moves in ([[1, 2]], [[0.5, 0]] * 4):
        bad = {**p, "steps": [{**p["steps"][0], "moves": moves}]}
        with pytest.raises(ValueError, match="moves must be 4 pairs of whole pixels"):
            pipe(image=PHOTO, params=bad, queue=queue)


@pytest.mark.parametrize("shape, grid, magnitude", [((5, 6), (8, 8), 3), ((40, 30), (3, 3), 60),
                                                    ((1, 1), (2, 2), 2)],
                         ids=["grid finer than the image", "folded cells", "one pixel"])
def test_degenerate_grids_read_where_the_host_says(shape, grid, magnitude, small_queue):
    """Cells of no width (a grid finer than the image), cells folded over each other and off
    the image, a one-pixel image: the kernel reads where the float64 host stage says (an image
    of its own coordinates; pixels no cell paints, or whose cell has no inverse map, the fill),
    on Oclgrind too."""
    import warpkit
    from warpkit.engine.chain import inverse_points

    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = np.stack([xs, ys], -1)
    pipe = W.Compose([W.GridElasticDeform(grid, magnitude)], padding="constant", fill=-7.0)
    out = pipe(image=ramp, seed=4, queue=small_queue)
    chain, _ = pipe.stages(out["params"], (w, h))
    src = inverse_points(chain, np.stack([xs, ys], -1).astype(np.float64))
    want = warpkit.remap(ramp, src[..., 0].astype(np.float32), src[..., 1].astype(np.float32),
                         padding="constant", fill=-7.0, queue=small_queue)
    np.testing.assert_allclose(out["image"], want, atol=2e-3)
