"""Non-linear transforms: fields evaluated in the warp kernel against a float64 host oracle,
against albumentations' maps, folded with projective maps in one resampling, and the targets
they move (blobs' centroids and bounding boxes)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import warpkit
from warpkit import _op
from warpkit.augment import (Compose, ElasticTransform, GridDistortion, GridElasticDeform, OneOf,
                             OpticalDistortion, PiecewiseAffine, RandomAffine,
                             RandomHorizontalFlip, RandomResizedCrop, RandomVerticalFlip,
                             Resize, ThinPlateSpline)
from warpkit.augment import _executor
from warpkit._options import STAGE_KINDS
from warpkit.engine import COORD_AXES, COORD_FIELD
from warpkit.engine.chain import fields_of, forward_points, inverse_points
from warpkit.augment._nonlinear import _tps_eval, _tps_fit

NONLINEAR = [ElasticTransform(alpha=250, sigma=9, p=1), GridDistortion(p=1),
             OpticalDistortion(distort_limit=0.3, p=1), ThinPlateSpline(p=1),
             PiecewiseAffine(scale=0.08, nb_rows=(3, 5), p=1),
             PiecewiseAffine(scale=0.08, nb_rows=(3, 5), p=1, method="triangles"),
             GridElasticDeform((3, 4), magnitude=6)]
IDS = [type(t).__name__ + ("-triangles" if getattr(t, "method", "") == "triangles" else "")
       for t in NONLINEAR]


def _photo(h=90, w=120, c=3, seed=0):
    yy, xx = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(seed)
    base = np.sin(xx / 5.0) * np.cos(yy / 7.0)
    return np.clip(128 + 100 * base[..., None] * rng.uniform(0.4, 1, c), 0, 255).astype(np.uint8)


def _oracle(img, chain, out_size, **kw):
    """The float64 chain evaluated per pixel on the host, sampled by remap."""
    wo, ho = out_size
    ys, xs = np.mgrid[0:ho, 0:wo].astype(np.float64)
    src = inverse_points(chain, np.stack([xs, ys], -1))
    return warpkit.remap(img, src[..., 0].astype(np.float32), src[..., 1].astype(np.float32),
                         **kw)


@pytest.mark.parametrize("t", NONLINEAR, ids=IDS)
@pytest.mark.parametrize("interp", ["nearest", "linear", "cubic"])
def test_kernel_fields_match_the_host_chain(t, interp, small_queue, monkeypatch):
    """A field between projective maps (crop and rotation before, flip after) in one launch:
    within 1 level of the float64 chain evaluated per pixel (the kernel works in float32); on
    Oclgrind too."""
    img = _photo(40, 52)
    pipe = Compose([RandomAffine(degrees=12, scale=(0.9, 1.1)), t, RandomHorizontalFlip(p=1)],
                   interpolation=interp, padding="reflect_101")
    launches = []
    real = _op.launch
    monkeypatch.setattr(_op, "launch", lambda *a: launches.append(1) or real(*a))
    out = pipe(image=img, seed=4, queue=small_queue)
    assert len(launches) == 1
    chain, size = pipe.stages(out["params"], (52, 40))
    assert len(chain) == 3 and size == (52, 40)
    ref = _oracle(img, chain, size, interpolation=interp, padding="reflect_101",
                  queue=small_queue)
    diff = np.abs(out["image"].astype(int) - ref)
    assert diff.max() <= (255 if interp == "nearest" else 1)
    # nearest: a position on a pixel boundary may round either way in float32
    assert (diff > 1).mean() <= (0.01 if interp == "nearest" else 0)


def _kinds_used(monkeypatch) -> list:
    """The coordinate kinds the pipeline's warps take (recorded as they are made)."""
    kinds = []
    real = _executor.chain_coords

    def spy(*a, **k):
        c = real(*a, **k)
        kinds.append(c.kind)
        return c

    monkeypatch.setattr(_executor, "chain_coords", spy)
    return kinds


@pytest.mark.parametrize("interp", ["nearest", "linear", "cubic"])
def test_separable_chains_read_per_axis_tables(interp, small_queue, monkeypatch):
    """A chain of axis-aligned maps and GridDistortion (crop, flips) is sampled from a source x
    per output column and a y per row, computed on the host in float64: within 1 level of the
    float64 chain per pixel, a batch in one launch with an image's mask; a rotation in the
    batch, or supersampling, takes the stages' path."""
    img = np.stack([_photo(40, 52, seed=s) for s in range(3)])
    mask = (img[..., 0] > 128).astype(np.uint8)
    pipe = Compose([RandomResizedCrop((36, 48), scale=(0.5, 1)), GridDistortion(p=1),
                    RandomHorizontalFlip(), RandomVerticalFlip()], interpolation=interp,
                   padding="reflect_101")
    kinds = _kinds_used(monkeypatch)
    out = pipe(image=img, mask=mask, seed=5, queue=small_queue)
    assert kinds == [COORD_AXES, COORD_AXES]  # the image and the mask
    for k in range(3):
        chain, size = pipe.stages(out["params"][k], (52, 40))
        ref = _oracle(img[k], chain, size, interpolation=interp, padding="reflect_101",
                      queue=small_queue)
        diff = np.abs(out["image"][k].astype(int) - ref)
        assert diff.max() <= (255 if interp == "nearest" else 1)
        assert (diff > 1).mean() <= (0.01 if interp == "nearest" else 0)
        mref = _oracle(mask[k], chain, size, interpolation="nearest", padding="reflect_101",
                       queue=small_queue)
        assert (out["mask"][k] != mref).mean() <= 0.01
    kinds.clear()
    Compose([GridDistortion(p=1), RandomAffine(degrees=10, p=1)])(image=img, seed=1,
                                                                 queue=small_queue)
    Compose([GridDistortion(p=1)], antialias=True)(image=img, seed=1, queue=small_queue)
    assert kinds == [COORD_FIELD, COORD_FIELD]


def test_batch_axes_tables_equal_each_items():
    """Per-axis tables made for a batch at once (a stage at a time over the items, one
    interpolation for all) equal the tables made item by item; fields of other lengths, and
    chains of other structures, in one batch too."""
    from warpkit.engine.chain import axes_coords

    size = (120, 90)
    pipes = [Compose([RandomResizedCrop((48, 64), scale=(0.5, 1)), GridDistortion(p=1),
                      RandomHorizontalFlip(), RandomVerticalFlip()]),
             Compose([RandomResizedCrop((48, 64), scale=(0.5, 1)),
                      GridDistortion(num_steps=9, distort_limit=0.5, p=1),
                      RandomHorizontalFlip(), RandomVerticalFlip()]),
             Compose([GridDistortion(p=1), RandomResizedCrop((48, 64), scale=(0.5, 1))])]
    batches = [[0] * 8, [0, 1] * 4, [0, 2] * 4]  # one pipeline; two field lengths; two shapes
    for picks in batches:
        chains = [pipes[p].stages(pipes[p].sample(size[::-1], 3, i), size)[0]
                  for i, p in enumerate(picks)]
        together = axes_coords(chains, (64, 48)).axes
        alone = np.concatenate([axes_coords([c], (64, 48)).axes for c in chains])
        assert together.shape == (8, 64 + 48)
        np.testing.assert_allclose(together, alone, rtol=0, atol=1e-5)
        assert np.ptp(together[:, :64], axis=0).max() > 1  # the items differ


def test_batch_stage_maps_equal_each_items():
    """The kernel's maps and stage tables made for a batch at once (stacked inversions and
    products over the items) equal those made chain by chain, to float64 rounding; in a batch
    of chains of other structures, a chain with fewer stages gets identity maps and zero
    fields after its own."""
    from warpkit.engine.chain import chain_coords

    size = (200, 150)
    pipes = [Compose([RandomAffine(degrees=10, p=1), OpticalDistortion(distort_limit=0.3, p=1),
                      RandomHorizontalFlip()]),
             Compose([ElasticTransform(p=1), RandomAffine(degrees=5, p=1),
                      ThinPlateSpline(p=1), OpticalDistortion(p=1)]),
             # one structure, stages of two classes at one position (each class's own
             # stacked frames where they are alone; NonLinear's, stage by stage, here)
             Compose([RandomAffine(degrees=5, p=1),
                      OneOf([ElasticTransform(p=1), OpticalDistortion(distort_limit=0.3, p=1)])])]
    for picks in ([0] * 8, [1] * 8, [0, 1] * 4, [2] * 8):
        chains = [pipes[p].stages(pipes[p].sample(size[::-1], 1, i), size)[0]
                  for i, p in enumerate(picks)]
        if picks[0] == 2:
            assert len({type(f) for c in chains for f in fields_of(c)}) == 2
        together = chain_coords(chains)
        nf = together.fi.shape[1]
        for k, c in enumerate(chains):
            alone = chain_coords([c])
            n = alone.fi.shape[1]
            np.testing.assert_allclose(together.chain[k, :n + 1], alone.chain[0], rtol=1e-12,
                                       atol=1e-12)
            assert (together.chain[k, n + 1:] == np.eye(3)).all()
            assert (together.fi[k, :n, 1:] == alone.fi[0, :, 1:]).all()
            # a 2x2 grid of zero displacements
            assert (together.fi[k, n:, 1:] == [STAGE_KINDS["field"], 2, 2]).all()
            sizes = [f.kernel_data()[0].size for f in reversed(fields_of(c))] + [8] * (nf - n)
            got = [together.fields[o:o + z] for (o, *_), z in zip(together.fi[k], sizes)]
            want = [alone.fields[o:o + z] for (o, *_), z in zip(alone.fi[0], sizes)]
            for g, w in zip(got, want):
                assert (g == w).all()
            assert all((g == 0).all() for g in got[n:])
        assert nf == max(len(fields_of(c)) for c in chains)


@pytest.mark.parametrize("wo", [1, 5, 8, 9, 17, 31, 33, 47])
@pytest.mark.parametrize("t", [OpticalDistortion(distort_limit=0.3, p=1), GridDistortion(p=1)],
                         ids=["stages", "axes"])
def test_every_column_of_a_work_item_blocks(t, wo, small_queue, monkeypatch):
    """The 8-wide kernel takes 2 (stages) or 4 (per-axis tables) blocks of 8 pixels per work-item:
    at widths that end inside a work-item's first, second or last block, every column is written
    and reads where the host chain says (an image of its own coordinates, constant fill), and
    the remap of the same positions (maps: 2 blocks per item) gives the same image."""
    W, H = 40, 30
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    ramp = np.stack([xs, ys], -1)
    kinds = _kinds_used(monkeypatch)
    pipe = Compose([Resize((11, wo)), t], padding="constant", fill=-7.0)
    out = pipe(image=ramp, seed=2, queue=small_queue)
    assert kinds == [COORD_FIELD if isinstance(t, OpticalDistortion) else COORD_AXES]
    chain, size = pipe.stages(out["params"], (W, H))
    assert size == (wo, 11) and out["image"].shape == (11, wo, 2)
    oy, ox = np.mgrid[0:11, 0:wo].astype(np.float64)
    src = inverse_points(chain, np.stack([ox, oy], -1))
    inside = (src[..., 0] >= 0) & (src[..., 0] <= W - 1) & (src[..., 1] >= 0) & \
        (src[..., 1] <= H - 1)
    far = (src[..., 0] < -1.01) | (src[..., 0] > W + 0.01) | (src[..., 1] < -1.01) | \
        (src[..., 1] > H + 0.01)
    assert np.abs(out["image"][inside] - src[inside]).max(initial=0) < 2e-3
    assert (out["image"][far] == -7.0).all()
    again = warpkit.remap(ramp, src[..., 0].astype(np.float32), src[..., 1].astype(np.float32),
                          padding="constant", fill=-7.0, queue=small_queue)
    assert np.abs(again[inside] - src[inside]).max(initial=0) < 2e-3
    assert (again[far] == -7.0).all()
    assert np.abs(again - out["image"]).max() < 1e-2  # everywhere, the border's mixes too


@pytest.mark.parametrize("t", NONLINEAR, ids=IDS)
@pytest.mark.parametrize("rotated", [False, True], ids=["alone", "rotated"])
@pytest.mark.parametrize("scale", [1, 1024], ids=["float32", "int32"])
def test_kernel_positions_match_the_host_stages(t, rotated, scale, queue):
    """Where the kernel reads, to a thousandth of a pixel: an image of its own (x, y)
    coordinates, warped linearly, gives back the positions the float64 host chain computes
    (inside the image, where linear interpolation of a ramp is exact). Alone, GridDistortion
    reads per-axis tables; after a rotation, its stage; float32 takes the 8-wide kernel, int32
    (coordinates in 1/1024 px, rounded) the one with a pixel per item."""
    W, H = 96, 72
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    ramp = (np.stack([xs, ys], -1) * scale).astype(np.float32 if scale == 1 else np.int32)
    pipe = Compose([RandomAffine(degrees=(7, 7), p=1), t] if rotated else [t])
    out = pipe(image=ramp, seed=3, queue=queue)
    chain, _ = pipe.stages(out["params"], (W, H))
    src = inverse_points(chain, np.stack([xs, ys], -1).astype(np.float64))
    inside = (src[..., 0] >= 0) & (src[..., 0] <= W - 1) & (src[..., 1] >= 0) & \
        (src[..., 1] <= H - 1)
    assert inside.mean() > 0.5
    assert np.abs(out["image"][inside] / scale - src[inside]).max() < 2e-3


@pytest.mark.parametrize("scale", [1, 1024], ids=["float32", "int32"])  # the 8-wide kernel, and
# the one with a pixel per item (int32 coordinates in 1/1024 px, rounded)
@pytest.mark.parametrize("coeffs", [[-0.2, 0.05, 0, 0], [-0.2, 0.05, 0.01, -0.02, 0.01],
                                    [0.1, -0.05, 0.003, -0.002, 0.01, 0.05, -0.02, 0.01,
                                     0.002, -0.001, 0.003, 0.001]],
                         ids=["radial", "tangential", "rational-prism"])
def test_lens_stage_reads_where_opencv_model_says(coeffs, scale, small_queue):
    """A lens between maps, every part of OpenCV's model (radial, tangential, rational, thin
    prism): a float32 image of its own coordinates gives back geometry.distort_points'
    positions to 2e-3 px, on Oclgrind too."""
    from warpkit.engine import Sampling, warp_by
    from warpkit.engine.chain import chain_coords
    from warpkit.engine.stages import lens

    W, H = 64, 48
    K = [[70.0, 0, 31.0], [0, 66.0, 24.5], [0, 0, 1]]
    Kn = [[60.0, 0, 32.0], [0, 58.0, 23.0], [0, 0, 1]]
    chain = [np.eye(3), lens(K, coeffs, Kn), np.eye(3)]
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    ramp = np.stack([xs, ys], -1) * scale
    out = warp_by(ramp.astype(np.float32 if scale == 1 else np.int32), None, (W, H),
                  Sampling.of(padding="border"), affine=False, coords=chain_coords([chain]),
                  queue=small_queue)
    src = warpkit.geometry.distort_points(K, coeffs, np.stack([xs, ys], -1), Kn)
    inside = (src >= 0).all(-1) & (src[..., 0] <= W - 1) & (src[..., 1] <= H - 1)
    assert inside.mean() > 0.5
    assert np.abs(out[inside] / scale - src[inside]).max() < 2e-3


def test_optical_distortion_is_albumentations_camera_model():
    """OpticalDistortion's lens reproduces albumentations' per-pixel camera map to its float32
    rounding: albumentations' get_camera_matrix_distortion_maps is OpenCV's
    initUndistortRectifyMap of the camera (focal (W, H), principal point (W / 2, H / 2)) with
    k1 = k2 = k and OpenCV's centred new camera, which is the oracle here (opencv is a test
    dependency; albumentations is not)."""
    cv2 = pytest.importorskip("cv2")
    for W, H in ((224, 224), (640, 480), (100, 60)):
        ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
        for k in (-0.3, 0.05, 0.3, -2.0, 2.0):  # (2: albumentations 0.x recipes' limit)
            K = np.array([[W, 0, W / 2], [0, H, H / 2], [0, 0, 1]], np.float32)
            mx, my = cv2.initUndistortRectifyMap(K, np.array([k, k, 0, 0, 0], np.float32), None,
                                                 None, (W, H), cv2.CV_32FC1)
            f = OpticalDistortion().field({"k": k}, (W, H))
            src = inverse_points([np.eye(3), f, np.eye(3)], np.stack([xs, ys], -1))
            assert np.abs(src[..., 0] - mx).max() < 1e-4
            assert np.abs(src[..., 1] - my).max() < 1e-4
    assert OpticalDistortion(distort_limit=2).distort_limit == (-2.0, 2.0)  # (any finite k)


def test_optical_distortion_refuses_a_replayed_k_that_is_not_a_number():
    """A replayed (or edited) k is checked by name, not as the lens's dist_coeffs."""
    for bad in (float("nan"), "0.1", None):
        with pytest.raises(ValueError, match="k must be a finite number"):
            OpticalDistortion().field({"k": bad}, (64, 48))
        with pytest.raises(ValueError, match="k must be a finite number"):
            Compose([OpticalDistortion(p=1)])(image=np.zeros((48, 64, 3), np.uint8),
                                              params={"applied": True,
                                                      "steps": [{"applied": True, "k": bad}]})


def test_thin_plate_spline_passes_its_control_points():
    """The spline takes each control point (output) to its moved position (source), and the
    field is within 0.1 px of the exact spline everywhere."""
    t = ThinPlateSpline(scale_range=(0.3, 0.3), num_control_points=3)
    W, H = 256, 192
    params = t.draw(np.random.default_rng(1), (W, H))
    f = t.field(params, (W, H))
    g = np.linspace(0, 1, 3)
    ctrl = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    moved = ctrl + np.asarray(params["moves"])
    w = _tps_fit(ctrl, moved)
    np.testing.assert_allclose(_tps_eval(ctrl, w, ctrl), moved, atol=1e-9)
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    src = inverse_points([np.eye(3), f, np.eye(3)], np.stack([xs, ys], -1))
    exact = _tps_eval(ctrl, w, np.stack([xs / W, ys / H], -1)) * [W, H]
    assert np.abs(src - exact).max() < 0.1


def test_grid_distortion_is_piecewise_linear_per_axis():
    """The even cells (warpkit's before format 4): each output column reads one source column
    (x depends on x only), cell edges move by the drawn steps, the image's ends stay
    (normalized) and the map is linear inside cells."""
    t = GridDistortion(num_steps=4, distort_limit=0.4, cells="even")
    W, H = 101, 61
    p = t.draw(np.random.default_rng(2), (W, H))
    f = t.field(p, (W, H))
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    src = inverse_points([np.eye(3), f, np.eye(3)], np.stack([xs, ys], -1))
    assert np.ptp(src[..., 0], axis=0).max() < 1e-9 and np.ptp(src[..., 1], axis=1).max() < 1e-9
    sx = src[0, :, 0]
    assert abs(sx[0]) < 1e-9 and abs(sx[-1] - (W - 1)) < 1e-9
    widths = (1 + np.asarray(p["steps_x"])) / (1 + np.asarray(p["steps_x"])).sum() * (W - 1)
    edges = np.concatenate([[0], np.cumsum(widths)])
    np.testing.assert_allclose(sx[::25], edges, atol=1e-9)
    assert np.abs(np.diff(sx[:26], 2)).max() < 1e-9  # straight inside the first cell


def test_piecewise_affine_maps_each_triangle_affinely():
    """Every pixel reads from the affine map of its triangle (cells cut top-left to
    bottom-right), solved here from the triangle's three moved corners: exactly (in float32)
    away from the diagonals, within 0.25 px in the field's grid cells that a diagonal crosses (where the
    kernel's bilinear interpolation rounds the crease); the control points land on their moved
    (clipped) positions."""
    t = PiecewiseAffine(scale=0.1, nb_rows=(3, 5), nb_cols=(3, 5), method="triangles")
    for W, H, seed in ((120, 80, 0), (97, 131, 1), (40, 30, 2)):
        p = t.draw(np.random.default_rng(seed), (W, H))
        rows, cols = p["rows"], p["cols"]
        cx, cy = np.linspace(0, W - 1, cols), np.linspace(0, H - 1, rows)
        ctrl = np.stack(np.meshgrid(cx, cy), -1)
        moved = np.clip(ctrl + np.reshape(p["moves"], (rows, cols, 2)), 0, [W - 1, H - 1])
        f = t.field(p, (W, H))
        chain = [np.eye(3), f, np.eye(3)]
        np.testing.assert_allclose(inverse_points(chain, ctrl), moved, atol=1e-4)
        ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
        src = inverse_points(chain, np.stack([xs, ys], -1))
        i = np.minimum(np.searchsorted(cy, ys, "right") - 1, rows - 2)
        j = np.minimum(np.searchsorted(cx, xs, "right") - 1, cols - 2)
        u, v = (ys - cy[i]) / (cy[i + 1] - cy[i]), (xs - cx[j]) / (cx[j + 1] - cx[j])
        below = u > v
        # the third corner: (i+1, j) below the diagonal, (i, j+1) above it
        ti, tj = np.where(below, i + 1, i), np.where(below, j, j + 1)
        corners = [(i, j), (ti, tj), (i + 1, j + 1)]
        A = np.stack([np.stack([cx[b], cy[a], np.ones_like(xs)], -1) for a, b in corners], -2)
        B = np.stack([moved[a, b] for a, b in corners], -2)
        affine = np.linalg.solve(A, B)  # (H, W, 3, 2): [x y 1] @ affine = source
        exact = np.einsum("hwk,hwkc->hwc", np.stack([xs, ys, np.ones_like(xs)], -1), affine)
        err = np.abs(src - exact).max(-1)
        ry, rx = (np.array(f.disp.shape[:2]) - 1) / [rows - 1, cols - 1]  # grid cells per cell
        crossed = np.abs(u - v) <= 1 / rx + 1 / ry
        assert err[~crossed].max() < 1e-4 and err.max() < 0.25, (err[~crossed].max(), err.max())


def test_elastic_statistics_match_albumentations_away_from_the_borders():
    """Displacement magnitude (std) within 15% of albumentations' for the same alpha and sigma
    (away from its replicate-padded borders); the same seed gives the same field."""
    F = pytest.importorskip("albumentations.augmentations.geometric.functional")
    W, H = 320, 240
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    pts = np.stack([xs, ys], -1)
    for alpha, sigma in ((120, 6), (300, 10), (50, 20)):
        m = int(3 * sigma)
        theirs = np.mean([np.std(F.generate_displacement_fields(
            (H, W), alpha, sigma, False, (0, 0), np.random.default_rng(s), "gaussian")[0]
            [m:-m, m:-m]) for s in range(6)])
        t = ElasticTransform(alpha=alpha, sigma=sigma)
        ours = np.mean([np.std((inverse_points([np.eye(3), t.field({"seed": s}, (W, H)),
                                                 np.eye(3)], pts) - pts)[m:-m, m:-m, 0])
                        for s in range(6)])
        assert abs(ours / theirs - 1) < 0.15, (alpha, sigma, ours, theirs)
    f1, f2 = (ElasticTransform(alpha=50, sigma=5).field({"seed": 9}, (W, H)) for _ in range(2))
    np.testing.assert_array_equal(f1.disp, f2.disp)


def _blobs(h, w):
    """5 discs: their label mask, centres and bounding boxes; masks of those boxes and of small
    discs at the centres."""
    centres = [(0.25 * w, 0.3 * h), (0.7 * w, 0.25 * h), (0.5 * w, 0.55 * h),
               (0.2 * w, 0.75 * h), (0.8 * w, 0.75 * h)]
    yy, xx = np.mgrid[0:h, 0:w]
    mask = np.zeros((h, w), np.uint8)
    for k, (cx, cy) in enumerate(centres, 1):
        mask[(xx - cx) ** 2 + (yy - cy) ** 2 <= (0.07 * min(h, w)) ** 2] = k
    dots = np.zeros_like(mask)  # small discs (radius 3): their centroids follow the map
    for k, (cx, cy) in enumerate(centres, 1):
        dots[(xx - cx) ** 2 + (yy - cy) ** 2 <= 9] = k
    boxes = []
    rects = np.zeros_like(mask)
    for k in range(1, 6):
        ys, xs = np.nonzero(mask == k)
        boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
        rects[ys.min():ys.max() + 1, xs.min():xs.max() + 1] = k
    return np.dstack([mask, rects, dots]), np.array(centres), np.array(boxes, float)


@pytest.mark.parametrize("t", NONLINEAR, ids=IDS)
def test_targets_follow_the_warped_blobs(t, queue):
    """Masks warp with the same map; keypoints (found by Newton's method on the inverse map)
    land within 0.5 px of the warped discs' centroids, and boxes (from their mapped outlines)
    within 1 px of the bounding boxes of the warped box-shaped masks. Through a map that folds
    (PiecewiseAffine's inverse-distance blend reads some sources on a ring), a disc warps to a
    crescent whose centroid need not read the centre: there the keypoint lies on the warped
    disc and reads the centre exactly."""
    h, w = 160, 200
    masks, centres, boxes = _blobs(h, w)
    pipe = Compose([RandomAffine(degrees=10), t], padding="constant", min_visibility=0.0)
    out = pipe(image=np.dstack([masks[..., 0] * 40] * 3), mask=masks, keypoints=centres,
               boxes=boxes, labels=list(range(1, 6)), seed=3, queue=queue)
    rects, dots = out["mask"][..., 1], out["mask"][..., 2]
    chain, _ = pipe.stages(out["params"], (w, h))
    for k, label in enumerate(out["labels"]):
        ys, xs = np.nonzero(rects == label)
        assert len(xs) > 20
        ref_box = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
        assert np.abs(out["boxes"][k] - ref_box).max() <= 1.0, (label, out["boxes"][k], ref_box)
    kp = out["keypoints"]
    assert len(kp) >= 3
    for label in range(1, 6):
        ys, xs = np.nonzero(dots == label)
        centre, found = forward_points(chain, centres[label - 1:label])
        if not len(xs):
            continue
        if any(getattr(f, "folds", False) for f in fields_of(chain)):
            assert found.all() and np.hypot(xs - centre[0, 0], ys - centre[0, 1]).min() <= 1
            np.testing.assert_allclose(inverse_points(chain, centre), centres[label - 1:label],
                                       atol=1e-3)
        else:
            assert found.all() and np.hypot(*(centre[0] - [xs.mean(), ys.mean()])) <= 0.5
        assert np.min(np.hypot(*(kp - centre[0]).T)) < 1e-3  # the keypoint is there


def test_points_that_do_not_converge_are_invisible(queue):
    """A field that folds every column onto source column 0: source points at x = 0 are found,
    points at x = 10 have no output position (not found: NaN, and invisible as keypoints)."""
    from warpkit.engine.stages import Field

    disp = np.zeros((2, 2, 2))
    disp[:, 1, 0] = -49.0  # source x = x - x = 0 everywhere
    chain = [np.eye(3), Field(disp, (50, 40)), np.diag([0.5, 0.5, 1.0])]
    pts, found = forward_points(chain, np.array([[0.0, 10.0], [10.0, 10.0]]))
    assert found.tolist() == [True, False] and np.isnan(pts[1]).all()
    assert np.isfinite(pts[0]).all()


def test_batches_lists_replay_and_json(queue):
    """Per-sample fields in a (B, H, W, C) batch (one launch, samples without the field get a
    zero one), ragged lists, replay of the params and JSON round trips; each sample equals
    itself alone."""
    rng = np.random.default_rng(5)
    batch = np.stack([_photo(48, 64, seed=s) for s in range(4)])
    pipe = Compose([OneOf([ElasticTransform(alpha=100, sigma=6), GridDistortion()]),
                    ElasticTransform(alpha=60, sigma=8, p=0.5), RandomResizedCrop(32)],
                   padding="border")
    out = pipe(image=batch, seed=2, index=10, queue=queue)
    assert out["image"].shape == (4, 32, 32, 3)
    # the samples differ in their number of fields: the batch pads some with zero fields
    counts = [len(fields_of(pipe.stages(p, (64, 48))[0])) for p in out["params"]]
    assert sorted(set(counts)) == [1, 2], counts
    for k in range(4):
        one = pipe(image=batch[k], seed=2, index=10 + k, queue=queue)
        np.testing.assert_array_equal(one["image"], out["image"][k])
    again = pipe.replay(out["params"], image=batch, queue=queue)
    np.testing.assert_array_equal(again["image"], out["image"])
    clone = Compose.from_dict(json.loads(json.dumps(pipe.to_dict())))
    np.testing.assert_array_equal(clone(image=batch, seed=2, index=10, queue=queue)["image"],
                                  out["image"])
    json.dumps(out["params"])  # plain data
    ragged = [rng.integers(0, 255, (30 + 5 * k, 40, 3), dtype=np.uint8) for k in range(3)]
    lst = pipe(image=ragged, mask=[r[..., 0] > 128 for r in ragged], seed=1, queue=queue)
    assert lst["image"].shape == (3, 32, 32, 3) and lst["mask"].shape == (3, 32, 32)
    for k in range(3):
        one = pipe(image=ragged[k], mask=ragged[k][..., 0] > 128, seed=1, index=k, queue=queue)
        np.testing.assert_array_equal(one["image"], lst["image"][k])
        np.testing.assert_array_equal(one["mask"], lst["mask"][k])


@pytest.mark.parametrize("make,match", [
    (lambda: ElasticTransform(alpha=-1), r"alpha must be >= 0 and sigma > 0"),
    (lambda: ElasticTransform(sigma=0), r"alpha must be >= 0 and sigma > 0"),
    (lambda: ElasticTransform(noise_distribution="poisson"), r"noise_distribution must be"),
    (lambda: GridDistortion(num_steps=0), r"num_steps must be an int >= 1"),
    (lambda: GridDistortion(distort_limit=2), r"distort_limit must lie in \[-1, 1\]"),
    (lambda: OpticalDistortion(distort_limit=(0.2, 0.1)), r"distort_limit must have low <= high"),
    (lambda: ThinPlateSpline(num_control_points=1), r"num_control_points must be an int >= 2"),
    (lambda: ThinPlateSpline(scale_range=(0.5, 2)), r"scale_range must lie in \[0, 1\]"),
    (lambda: PiecewiseAffine(nb_rows=1), r"nb_rows must be an int >= 2 or \(low, high\)"),
    (lambda: PiecewiseAffine(nb_cols=(5, 3)), r"nb_cols must be an int >= 2"),
    (lambda: PiecewiseAffine(scale=-0.1), r"scale must lie in \[0, inf\]"),
    (lambda: ElasticTransform(sigma=1e9), r"sigma must be at most 10000 pixels"),
    (lambda: GridDistortion(num_steps=10**7), r"num_steps must be at most 1024"),
    (lambda: ThinPlateSpline(num_control_points=100),
     r"num_control_points must be at most 16"),
    (lambda: PiecewiseAffine(nb_rows=20000, nb_cols=20000), r"nb_rows must be at most 128"),
    (lambda: PiecewiseAffine(nb_cols=(4, 129)), r"nb_cols must be at most 128"),
    (lambda: Compose.from_dict({"type": "Compose", "transforms": [
        {"type": "ElasticTransform", "sigma": 1e9}]}), r"sigma must be at most 10000"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("t", NONLINEAR, ids=IDS)
@pytest.mark.parametrize("form", ["ragged list", "same-size list", "batch"])
def test_calls_mixing_samples_with_and_without_a_field(t, form, queue):
    """A common recipe: a crop, a rotation and a non-linear stage that applies to some samples
    only (p=0.5), over a ragged list, a list of one size and a (B, H, W, C) batch, with every
    target: no sample's missing field breaks the call (a list item without one was launched
    with an empty field table: INVALID_BUFFER_SIZE), and each sample equals itself alone."""
    half = Compose.from_dict({**t.to_dict(), "p": 0.5})
    pipe = Compose([RandomResizedCrop(24, scale=(0.5, 1)), RandomAffine(degrees=15), half])
    sizes = [(40 + 6 * k, 52 - 4 * k) for k in range(6)] if form == "ragged list" \
        else [(44, 48)] * 6
    imgs = [_photo(h, w, seed=k) for k, (h, w) in enumerate(sizes)]
    x = np.stack(imgs) if form == "batch" else imgs
    masks = [(im[..., 0] > 128).astype(np.uint8) for im in imgs]
    boxes = [[[4.0, 5.0, 30.0, 33.0]] for _ in imgs]
    kps = [[[10.0, 12.0], [20.0, 25.0]] for _ in imgs]
    out = pipe(image=x, mask=np.stack(masks) if form == "batch" else masks, boxes=boxes,
               labels=[[1]] * 6, keypoints=kps, seed=0, queue=queue)
    applied = [p["steps"][2]["applied"] for p in out["params"]]
    assert any(applied) and not all(applied), applied  # the call mixes both kinds of sample
    for k in range(6):
        one = pipe(image=imgs[k], mask=masks[k], boxes=boxes[k], labels=[1],
                   keypoints=kps[k], seed=0, index=k, queue=queue)
        np.testing.assert_array_equal(out["image"][k], one["image"])
        np.testing.assert_array_equal(out["mask"][k], one["mask"])
        np.testing.assert_allclose(out["boxes"][k], one["boxes"], atol=1e-9)
        np.testing.assert_allclose(out["keypoints"][k], one["keypoints"], atol=1e-9)


def test_work_bounds_hold_under_an_address_space_limit():
    """Every parameter that sizes a non-linear transform's work is bounded, in the constructor
    and in from_dict (sigma=1e9 on a 40x32 image wanted 24 GB, nb_rows=nb_cols=20000 22 GB,
    num_control_points=100 3.1 GB and 27 s, num_steps=1e7 2.1 GB): the bombs are refused
    and the largest allowed values run, within 512 MiB of address space beyond warpkit's own
    (the spline's distances are taken in runs). warpkit's own is measured on this machine:
    each transform once on a small image (a fixed 1 GiB held PoCL's process, but not NVIDIA's
    driver, which reserves far more address space at start)."""
    from helpers import peak_address_space, run_limited

    started = peak_address_space("""
import numpy as np
from warpkit.augment import (Compose, ElasticTransform, GridDistortion, PiecewiseAffine,
                             ThinPlateSpline)
for t in (ElasticTransform(p=1), PiecewiseAffine(p=1), ThinPlateSpline(p=1),
          GridDistortion(p=1)):
    Compose([t])(image=np.zeros((24, 24, 3), np.uint8), seed=0)
""")
    code = """
import numpy as np
from warpkit.augment import (Compose, ElasticTransform, GridDistortion, PiecewiseAffine,
                             ThinPlateSpline)
bombs = [("ElasticTransform", {"sigma": 1e9}), ("PiecewiseAffine", {"nb_rows": 20000,
         "nb_cols": 20000}), ("ThinPlateSpline", {"num_control_points": 100}),
         ("GridDistortion", {"num_steps": 10**7})]
for name, kw in bombs:
    try:
        Compose.from_dict({"type": "Compose", "transforms": [{"type": name, **kw}]})
        raise SystemExit(f"{name} {kw} was taken")
    except ValueError as e:
        assert "at most" in str(e), e
for t, hw in ((ElasticTransform(sigma=10000, p=1), (32, 40)),
              (PiecewiseAffine(nb_rows=128, nb_cols=128, p=1, method="triangles"), (512, 512)),
              (PiecewiseAffine(nb_rows=32, nb_cols=32, p=1), (512, 512)),
              (ThinPlateSpline(num_control_points=16, p=1), (1536, 1536)),
              (GridDistortion(num_steps=1024, p=1), (512, 512))):
    out = Compose([t])(image=np.zeros((*hw, 3), np.uint8), seed=0)["image"]
    assert out.shape == (*hw, 3)
print("ok")
"""
    r = run_limited(code, extra=512 << 20, base=started, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr[-3000:]


def test_a_ragged_list_through_fields_is_one_array_and_fills_out(queue):
    """A ragged list through non-linear maps to the model's float32 CHW input, with a blur pass
    and a colour step: one array (the first sample's result gives its shape, the others are
    written into it with the call's one wait), into the caller's ``out=`` as well; each sample
    as it is alone."""
    from warpkit.augment import ColorJitter, GaussianBlur

    imgs = [_photo(40 + 7 * k, 60 - 3 * k, seed=k) for k in range(5)]
    pipe = Compose([RandomResizedCrop(24), GridDistortion(p=0.7), ColorJitter(0.3, 0.3, p=1),
                    GaussianBlur(p=0.5)], output_dtype="float32", layout="CHW")
    out = pipe(image=imgs, seed=4, queue=queue)["image"]
    assert out.shape == (5, 3, 24, 24) and out.dtype == np.float32
    buf = np.full((5, 3, 24, 24), np.nan, np.float32)
    got = pipe(image=imgs, seed=4, queue=queue, out=buf)["image"]
    assert got is buf
    for bad, match in ((np.zeros((6, 3, 24, 24), np.float32), "one result per sample, 5"),
                       (np.zeros((5, 24, 24, 3), np.float32), r"shape \(5, 3, 24, 24\)"),
                       (np.zeros((5, 3, 24, 24)), "float32")):
        with pytest.raises(ValueError, match=match):
            pipe(image=imgs, seed=4, queue=queue, out=bad)
    for k in range(5):
        one = pipe(image=imgs[k], seed=4, index=k, queue=queue)["image"]
        np.testing.assert_array_equal(out[k], one)
        np.testing.assert_array_equal(buf[k], one)


@pytest.mark.parametrize("num_steps, normalized", [(5, True), (5, False), (7, True), (3, True)])
@pytest.mark.parametrize("hw", [(300, 451), (64, 97), (23, 9)], ids=lambda v: f"{v[0]}x{v[1]}")
def test_grid_distortion_is_albumentations_table(num_steps, normalized, hw, queue):
    """GridDistortion's cells are albumentations 2.0.8's: its generate_grid (and
    normalize_grid_distortion_steps) fed the recorded steps gives the same tables, value for
    value, and cv2.remap of albumentations' maps the same image (within 1 level, and 2e-3 of
    a float32 ramp: the positions the kernel read)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from albumentations.augmentations.geometric import functional as AF
    H, W = hw
    t = GridDistortion(num_steps=num_steps, distort_limit=0.4, normalized=normalized, p=1,
                       border_mode=cv2.BORDER_REFLECT_101)
    pipe = Compose([t])
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    ramp = np.stack([xs, ys], -1)
    for seed in range(2):
        out = pipe(image=ramp, seed=seed, queue=queue)
        p = out["params"]["steps"][0]
        assert len(p["steps_x"]) == num_steps + 1 == len(p["steps_y"])
        sx, sy = [1 + v for v in p["steps_x"]], [1 + v for v in p["steps_y"]]
        if normalized:
            d = AF.normalize_grid_distortion_steps((H, W), num_steps, sx, sy)
            sx, sy = d["steps_x"], d["steps_y"]
        mx, my = AF.generate_grid((H, W), sx, sy, num_steps)
        np.testing.assert_array_equal(t.table(p["steps_x"], W), mx[0])
        np.testing.assert_array_equal(t.table(p["steps_y"], H), my[:, 0])
        inside = (mx <= W - 1) & (my <= H - 1)
        np.testing.assert_allclose(out["image"][..., 0][inside], mx[inside], atol=2e-3)
        np.testing.assert_allclose(out["image"][..., 1][inside], my[inside], atol=2e-3)
        img = (np.random.default_rng(seed).random((H, W, 3)) * 255).astype(np.uint8)
        want = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        got = pipe(image=img, seed=seed, queue=queue)["image"]
        assert np.abs(got.astype(int) - want).max() <= 1


def test_grid_distortion_of_older_data_keeps_its_even_cells():
    """Pipeline data of format 3 (and older) wrote GridDistortion without ``cells``: it meant
    the even cells, and loads so; a replay of its draws (num_steps each) gives the same."""
    even = Compose([GridDistortion(num_steps=4, cells="even", p=1)])
    d = even.to_dict()
    assert d["format"] == 4 and d["transforms"][0]["cells"] == "even"
    old = json.loads(json.dumps(d))
    old["format"] = 3
    del old["transforms"][0]["cells"]
    assert Compose.from_dict(old).transforms[0].cells == "even"
    assert Compose.from_dict(dict(old, format=4)).transforms[0].cells == "albumentations"
    img = (np.random.default_rng(0).random((40, 50, 3)) * 255).astype(np.uint8)
    a = even(image=img, seed=5)
    np.testing.assert_array_equal(Compose.from_dict(old)(image=img, seed=5)["image"], a["image"])
    assert len(a["params"]["steps"][0]["steps_x"]) == 4
    with pytest.raises(ValueError, match="cells must be one of 'albumentations', 'even'"):
        GridDistortion(cells="uneven")
