"""PiecewiseAffine's inverse-distance map (its default, albumentations 2.0.8's): evaluated per
pixel in the kernel, it reads where albumentations' ``create_piecewise_affine_maps`` says for
the same moved grid (within 2e-3 px), so images, masks and boxes equal what albumentations'
own PiecewiseAffine makes of the recorded draws; keypoints go to a pixel that reads them; the
triangles of the name stay available (``method="triangles"``), and pipelines saved before the
default changed keep them."""

from __future__ import annotations

import json
import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine.chain import inverse_points

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data
    from albumentations.augmentations.geometric import functional as AF

PHOTO = skimage.data.astronaut()[::4, ::3].copy()  # 128 x 171 RGB


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


class _Moves:
    """A random generator whose normal() gives the recorded moves, in albumentations' layout
    (rows, cols, (dy, dx)), as create_piecewise_affine_maps draws its jitter."""

    def __init__(self, params):
        rows, cols = params["rows"], params["cols"]
        moves = np.asarray(params["moves"], np.float32).reshape(rows, cols, 2)
        self.jitter = moves[..., ::-1].copy()

    def normal(self, loc, scale, size):
        assert size == self.jitter.shape
        return self.jitter


def _their_maps(params, h, w):
    """albumentations' maps for warpkit's recorded draw (its scale only sizes the jitter,
    which the recorded moves replace)."""
    return AF.create_piecewise_affine_maps((h, w), (params["rows"], params["cols"]), 0.05,
                                           False, _Moves(params))


def _step(out):
    return out["params"]["steps"][0]


@pytest.mark.parametrize("h, w, rows, cols", [(120, 160, (3, 5), (3, 6)), (97, 203, 4, (2, 7))])
def test_the_kernel_reads_where_albumentations_map_says(h, w, rows, cols, queue):
    """A float32 image of each pixel's own (x, y) warps to the positions the kernel read
    (bilinear interpolation of a ramp is exact): albumentations' map, within 2e-3 px; the host's
    evaluation (what targets move through) agrees as well."""
    ramp = np.dstack(np.meshgrid(np.arange(w, dtype=np.float32),
                                 np.arange(h, dtype=np.float32)))
    pipe = W.Compose([W.PiecewiseAffine(scale=(0.03, 0.1), nb_rows=rows, nb_cols=cols, p=1)])
    for seed in range(3):
        out = pipe(image=ramp, seed=seed, queue=queue)
        mx, my = _their_maps(_step(out), h, w)
        got = out["image"]
        np.testing.assert_allclose(got[..., 0], mx, atol=2e-3)
        np.testing.assert_allclose(got[..., 1], my, atol=2e-3)
        chain, _ = pipe.stages(out["params"], (w, h))
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        host = inverse_points(chain, np.stack([xs, ys], -1))
        np.testing.assert_allclose(host, got, atol=2e-3)


def test_small_case_on_every_implementation(small_queue):
    """The kernel's blend on a small image, on each device and under Oclgrind (every access
    checked): the same positions as albumentations' map."""
    h, w = 24, 30
    ramp = np.dstack(np.meshgrid(np.arange(w, dtype=np.float32),
                                 np.arange(h, dtype=np.float32)))
    pipe = W.Compose([W.PiecewiseAffine(scale=0.1, nb_rows=3, nb_cols=4, p=1)])
    out = pipe(image=ramp, seed=1, queue=small_queue)
    mx, my = _their_maps(_step(out), h, w)
    np.testing.assert_allclose(out["image"][..., 0], mx, atol=2e-3)
    np.testing.assert_allclose(out["image"][..., 1], my, atol=2e-3)


@pytest.mark.parametrize("kw", [
    {},
    {"interpolation": cv2.INTER_CUBIC},
    {"border_mode": cv2.BORDER_REFLECT_101},
], ids=["linear", "cubic", "reflect_101"])
@pytest.mark.parametrize("form", ["rgb", "gray", "float32"])
def test_images_and_masks_equal_albumentations(kw, form, queue):
    """albumentations' PiecewiseAffine applied with warpkit's recorded draw: the same image
    (within 1 level: OpenCV's remap weighs taps in fixed point; float32 within 4e-3 of 1), and
    the same mask (nearest: all but the pixels whose position lies within float rounding of a
    rounding boundary)."""
    img = PHOTO if form == "rgb" else cv2.cvtColor(PHOTO, cv2.COLOR_RGB2GRAY) \
        if form == "gray" else PHOTO.astype(np.float32) / 255
    h, w = img.shape[:2]
    mask = (np.arange(h * w).reshape(h, w) * 7 % 5).astype(np.uint8)
    theirs_t = _quiet(A.PiecewiseAffine, scale=(0.03, 0.06), nb_rows=(3, 5), nb_cols=4, p=1,
                      **kw)
    ours_t = W.PiecewiseAffine(scale=(0.03, 0.06), nb_rows=(3, 5), nb_cols=4, p=1, **kw)
    out = W.Compose([ours_t])(image=img, mask=mask, seed=4, queue=queue)
    mx, my = _their_maps(_step(out), h, w)
    ref = theirs_t.apply(img, map_x=mx, map_y=my)
    diff = np.abs(out["image"].astype(np.float64) - ref)
    assert diff.max() <= (1 if img.dtype == np.uint8 else 4e-3), diff.max()
    ref_mask = theirs_t.apply_to_mask(mask, map_x=mx, map_y=my)
    assert (out["mask"] != ref_mask).mean() < 2e-3


def test_boxes_and_keypoints_follow_albumentations():
    """Boxes: albumentations' (each box's mask remapped), within 1 px, including boxes the map
    folds (it reads some sources on a ring around each grid point); keypoints: each lies on
    the pixels that read it (albumentations' keypoint mask remapped) and reads it exactly."""
    h, w = PHOTO.shape[:2]
    boxes = [[20.0, 15.0, 70.0, 60.0], [90.0, 40.0, 150.0, 110.0], [5.0, 80.0, 40.0, 120.0]]
    points = [[60.0, 30.0], [100.5, 70.25], [150.0, 100.0], [30.0, 95.0]]
    t = _quiet(A.PiecewiseAffine, scale=(0.04, 0.06), nb_rows=4, nb_cols=4, p=1)
    pipe = W.Compose([W.PiecewiseAffine(scale=(0.04, 0.06), nb_rows=4, nb_cols=4, p=1)],
                     min_visibility=0.0, remove_invisible=False)
    for seed in range(3):
        out = pipe(image=PHOTO, boxes=boxes, labels=[0, 1, 2], keypoints=points, seed=seed)
        mx, my = _their_maps(_step(out), h, w)
        norm = np.asarray(boxes) / [w, h, w, h]
        theirs = t.apply_to_bboxes(norm, map_x=mx, map_y=my, shape=(h, w)) * [w, h, w, h]
        np.testing.assert_allclose(out["boxes"], theirs, atol=1.0)
        chain, _ = pipe.stages(out["params"], (w, h))
        kp, seen = out["keypoints"], out["keypoints_visible"]
        for k, (x, y) in enumerate(points):
            kp_mask = np.zeros((h, w), np.int16)
            cv2.circle(kp_mask, (round(x), round(y)), 1, 1, -1)
            marked = cv2.remap(kp_mask, mx, my, cv2.INTER_NEAREST)
            ys, xs = np.nonzero(marked)
            assert seen[k] or not len(xs), k  # (a keypoint albumentations keeps, warpkit too)
            if seen[k]:
                np.testing.assert_allclose(inverse_points(chain, kp[k:k + 1]), [[x, y]],
                                           atol=1e-3)
                if len(xs):
                    assert np.hypot(xs - kp[k, 0], ys - kp[k, 1]).min() <= 1.5


def test_from_albumentations_ports_it():
    """A.PiecewiseAffine ports with its parameters and gives warpkit's own (the same map);
    the port's JSON names the method."""
    recipe = _quiet(A.Compose, [_quiet(A.PiecewiseAffine, scale=(0.02, 0.04), nb_rows=(3, 5),
                                       nb_cols=4, absolute_scale=False, p=0.7,
                                       interpolation=cv2.INTER_CUBIC,
                                       keypoint_remapping_method="direct")])
    got = W.from_albumentations(recipe)
    (t,) = got.transforms
    assert isinstance(t, W.PiecewiseAffine) and t.method == "inverse_distance"
    assert (t.scale, t.nb_rows, t.nb_cols, t.p) == ((0.02, 0.04), (3, 5), (4, 4), 0.7)
    assert got.interpolation == "cubic"
    mine = W.Compose([W.PiecewiseAffine(scale=(0.02, 0.04), nb_rows=(3, 5), nb_cols=4, p=0.7,
                                        interpolation=cv2.INTER_CUBIC)])
    a, b = (p(image=PHOTO, seed=2)["image"] for p in (got, mine))
    np.testing.assert_array_equal(a, b)
    d = json.loads(json.dumps(got.to_dict()))
    assert d["transforms"][0]["method"] == "inverse_distance"


def test_saved_pipelines_keep_their_map():
    """to_dict writes the method; data of format 2 (written when the triangles were the
    default, without a method) reads back as triangles, so a saved pipeline replays as saved;
    format 3 without a method is the default."""
    tri = W.Compose([W.PiecewiseAffine(scale=0.05, method="triangles", p=1)])
    d = tri.to_dict()
    assert d["format"] == 4 and d["transforms"][0]["method"] == "triangles"
    old = json.loads(json.dumps(d))
    old["format"] = 2
    del old["transforms"][0]["method"]
    assert W.Compose.from_dict(old).transforms[0].method == "triangles"
    new = dict(old, format=3)
    assert W.Compose.from_dict(new).transforms[0].method == "inverse_distance"
    a = tri(image=PHOTO, seed=5)
    b = W.Compose.from_dict(old)(image=PHOTO, seed=5)
    np.testing.assert_array_equal(a["image"], b["image"])
    assert a["params"] == b["params"]


def test_the_two_methods_differ_and_the_default_pinches():
    """The inverse-distance map distorts even a grid that does not move (it reads each grid
    point's own position around it, flat there), the triangles' does not."""
    h, w = 60, 80
    ramp = np.dstack(np.meshgrid(np.arange(w, dtype=np.float32),
                                 np.arange(h, dtype=np.float32)))
    still = {"rows": 3, "cols": 3, "moves": [[0.0, 0.0]] * 9}
    for method, moved in (("triangles", False), ("inverse_distance", True)):
        t = W.PiecewiseAffine(method=method, nb_rows=3, nb_cols=3, p=1)
        f = t.field(still, (w, h))
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        src = inverse_points([np.eye(3), f, np.eye(3)], np.stack([xs, ys], -1))
        assert (np.abs(src - ramp).max() > 1) == moved
    mx, my = AF.create_piecewise_affine_maps((h, w), (3, 3), 0.05, False,
                                             _Moves(still))
    f = W.PiecewiseAffine(nb_rows=3, nb_cols=3, p=1).field(still, (w, h))
    src = inverse_points([np.eye(3), f, np.eye(3)], np.stack([xs, ys], -1))
    np.testing.assert_allclose(src, np.dstack([mx, my]), atol=2e-3)


@pytest.mark.parametrize("make, match", [
    (lambda: W.PiecewiseAffine(method="delaunay"),
     r"method must be one of 'inverse_distance', 'triangles', got 'delaunay'"),
    (lambda: W.PiecewiseAffine(nb_rows=(4, 40), nb_cols=40),
     r"nb_rows x nb_cols must be at most 1024 with method='inverse_distance'"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()
    W.PiecewiseAffine(nb_rows=40, nb_cols=40, method="triangles")  # (its grid is cheap)
