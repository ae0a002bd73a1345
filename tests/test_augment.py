"""RandomAffine and geometry.transform_boxes: the maps against geometry's builders, the draws
against their ranges, the warps against OpenCV, and boxes against warped masks."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pyopencl.array as cla
import pytest
from PIL import Image

import warpkit
from warpkit import geometry as g
from warpkit.augment import RandomAffine


def _centre(w, h):
    return ((w - 1) / 2, (h - 1) / 2)


@pytest.mark.parametrize("deg,scale,shear,hf,vf", [
    (30.0, 1.2, (10.0, -5.0), 1.0, 0.0),
    (-45.0, 0.7, (0.0, 20.0), 0.0, 1.0),
    (90.0, 1.0, (0.0, 0.0), 1.0, 1.0),
    (0.0, 2.5, (-30.0, 0.0), 0.0, 0.0),
])
def test_maps_are_geometry_compositions(deg, scale, shear, hf, vf):
    """Fixed ranges give one map: flips, scale, shear, rotation about the centre, as composed
    from warpkit.geometry's builders (each checked against OpenCV, Pillow and scipy)."""
    w, h = 100, 60
    aug = RandomAffine(degrees=(deg, deg), scale=scale, shear=(shear[0], shear[0], shear[1], shear[1]),
                       hflip=hf, vflip=vf)
    m = aug.sample(3, (h, w), rng=0)
    c = _centre(w, h)
    parts = [g.flip("h", (w, h))] * int(hf) + [g.flip("v", (w, h))] * int(vf)
    ref = g.compose(*parts, g.scale(scale, center=c), g.shear(*shear, center=c), g.rotation(deg, c))
    for k in range(3):
        np.testing.assert_allclose(m[k], ref, atol=1e-12)


def test_output_size_puts_the_centre_at_the_output_centre():
    aug = RandomAffine(degrees=40, scale=(0.5, 2), shear=10, hflip=0.5, vflip=0.5, size=(32, 64))
    m = aug.sample(50, (200, 300), rng=1)
    for k in range(50):
        np.testing.assert_allclose(g.transform_points(m[k], _centre(300, 200)), _centre(64, 32),
                                   atol=1e-9)


def test_draws_stay_in_their_ranges_and_cover_them():
    n, w, h = 4000, 200, 100
    ang = RandomAffine(degrees=(-10, 25)).sample(n, (h, w), rng=2)
    a = np.degrees(np.arctan2(ang[:, 0, 1], ang[:, 0, 0]))  # rotation(d) = [[c, s], [-s, c]]
    assert a.min() >= -10 and a.max() <= 25 and a.min() < -9.9 and a.max() > 24.9
    sc = RandomAffine(scale=(0.8, 1.25)).sample(n, (h, w), rng=3)
    s = np.sqrt(np.linalg.det(sc[:, :2, :2]))
    assert s.min() >= 0.8 and s.max() <= 1.25 and s.min() < 0.801 and s.max() > 1.249
    tr = RandomAffine(translate=(0.1, 0.3)).sample(n, (h, w), rng=4)
    np.testing.assert_array_equal(tr[:, :2, :2], np.broadcast_to(np.eye(2), (n, 2, 2)))
    dx, dy = tr[:, 0, 2], tr[:, 1, 2]
    assert np.abs(dx).max() <= 20 and np.abs(dy).max() <= 30
    assert np.abs(dx).max() > 19.9 and np.abs(dy).max() > 29.9 and dx.min() < 0 < dx.max()
    sh = RandomAffine(shear=15).sample(n, (h, w), rng=5)
    xs = np.degrees(np.arctan(sh[:, 0, 1]))
    assert np.abs(xs).max() <= 15 and np.abs(xs).max() > 14.9
    np.testing.assert_array_equal(sh[:, 1, 0], 0)  # the y shear stays 0
    fl = RandomAffine(hflip=0.3).sample(n, (h, w), rng=6)
    flipped = fl[:, 0, 0] < 0
    # binomial(4000, 0.3): mean 1200, sd 29; the seed makes this deterministic
    assert 1100 < flipped.sum() < 1300
    np.testing.assert_array_equal(fl[flipped], np.broadcast_to(g.flip("h", (w, h)), (flipped.sum(), 3, 3)))


def test_a_seed_replays_and_a_generator_moves_on():
    aug = RandomAffine(degrees=20, translate=0.1, scale=(0.9, 1.1), shear=5, hflip=0.5)
    np.testing.assert_array_equal(aug.sample(8, (40, 50), rng=11), aug.sample(8, (40, 50), rng=11))
    assert not np.array_equal(aug.sample(8, (40, 50), rng=11), aug.sample(8, (40, 50), rng=12))
    gen = np.random.default_rng(11)
    first, second = aug.sample(8, (40, 50), rng=gen), aug.sample(8, (40, 50), rng=gen)
    np.testing.assert_array_equal(first, aug.sample(8, (40, 50), rng=11))
    assert not np.array_equal(first, second)
    assert aug.sample(0, (40, 50), rng=0).shape == (0, 3, 3)


def test_a_batch_gets_one_map_each_and_matches_opencv(queue):
    rng = np.random.default_rng(7)
    batch = rng.integers(0, 256, (6, 41, 57, 3), dtype=np.uint8)
    aug = RandomAffine(degrees=25, translate=0.1, scale=(0.8, 1.2), shear=8, hflip=0.5,
                       padding="reflection")
    out, mats = aug(batch, rng=3, return_matrices=True, queue=queue)
    assert out.shape == batch.shape and out.dtype == np.uint8 and mats.shape == (6, 3, 3)
    np.testing.assert_array_equal(mats, aug.sample(6, (41, 57), rng=3))
    np.testing.assert_array_equal(out, aug(batch, rng=3, queue=queue))
    for i in range(6):
        np.testing.assert_array_equal(
            out[i], warpkit.warp_affine(batch[i], mats[i], padding="reflection", queue=queue))
        ref = cv2.warpAffine(batch[i], g.to_cv2(mats[i]), (57, 41), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REFLECT)
        assert np.abs(out[i].astype(int) - ref).max() <= 1


def test_pillow_images_lists_and_device_arrays(queue):
    rng = np.random.default_rng(8)
    rgb = Image.fromarray(rng.integers(0, 256, (30, 40, 3), dtype=np.uint8))
    gray = Image.fromarray(rng.integers(0, 256, (25, 20), dtype=np.uint8))
    aug = RandomAffine(degrees=30, size=(24, 32), fill=200)
    out, m = aug(rgb, rng=1, return_matrices=True, queue=queue)
    assert isinstance(out, Image.Image) and out.mode == "RGB" and out.size == (32, 24)
    assert m.shape == (3, 3)
    np.testing.assert_array_equal(
        np.asarray(out), np.asarray(warpkit.warp_affine(rgb, m, (32, 24), fill=200, queue=queue)))
    arr = rng.integers(0, 256, (16, 12), dtype=np.uint8)
    outs, mats = aug([rgb, gray, arr], rng=2, return_matrices=True, queue=queue)
    assert [type(o) for o in outs] == [Image.Image, Image.Image, np.ndarray]
    assert outs[1].mode == "L" and outs[2].shape == (24, 32)
    # the maps are built for each item's own size: its centre goes to the output's centre
    for m_, size in zip(mats, [(40, 30), (20, 25), (12, 16)]):
        np.testing.assert_allclose(g.transform_points(m_, _centre(*size)), _centre(32, 24), atol=1e-9)
    dev = cla.to_device(queue, rng.random((3, 20, 20, 1), dtype=np.float32))
    res, dm = aug(dev, rng=4, return_matrices=True, queue=queue)
    assert isinstance(res, cla.Array) and res.shape == (3, 24, 32, 1) and dm.shape == (3, 3, 3)
    np.testing.assert_allclose(
        res.get(), warpkit.warp_affine(dev.get(), dm, (32, 24), fill=200, queue=queue))


def test_boxes_follow_the_warped_image(queue):
    """A box's transform encloses its warped pixels: the bounding box of a warped mask."""
    h, w = 80, 120
    boxes = np.array([[10, 20, 40, 50], [60, 5, 110, 30], [30, 55, 95, 78]], np.float64)
    masks = np.zeros((3, h, w, 1), np.uint8)
    for k, (x1, y1, x2, y2) in enumerate(boxes.astype(int)):
        masks[k, y1:y2, x1:x2] = 255
    aug = RandomAffine(degrees=35, translate=0.05, scale=(0.8, 1.2), shear=10, hflip=0.5)
    warped, mats = aug(masks, rng=5, return_matrices=True, queue=queue)
    new = g.transform_boxes(mats, boxes, batch_indices=[0, 1, 2])
    for k in range(3):
        ys, xs = np.nonzero(warped[k, ..., 0] >= 128)
        got = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]  # pixel edges
        np.testing.assert_allclose(got, new[k], atol=1.0)
        ref = cv2.warpAffine(masks[k, ..., 0], g.to_cv2(mats[k]), (w, h), flags=cv2.INTER_LINEAR)
        ys, xs = np.nonzero(ref >= 128)
        np.testing.assert_allclose([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], new[k], atol=1.0)


def test_transform_boxes_exact_cases():
    w, h = 100, 50
    box = [10, 5, 30, 20]
    np.testing.assert_array_equal(g.transform_boxes(g.identity(), box), box)
    np.testing.assert_array_equal(g.transform_boxes(g.flip("h", (w, h)), box), [70, 5, 90, 20])
    np.testing.assert_array_equal(g.transform_boxes(g.flip("v", (w, h)), [box]), [[10, 30, 30, 45]])
    # a quarter turn of the whole image about its centre, as numpy's rot90 moves the pixels
    img = np.zeros((h, w), np.uint8)
    img[5:20, 10:30] = 1
    m = g.compose(g.rotation(90, _centre(w, h)), g.translation((h - w) / 2, (w - h) / 2))
    turned = np.rot90(img)  # counter-clockwise, (w, h) output
    ys, xs = np.nonzero(turned)
    np.testing.assert_allclose(g.transform_boxes(m, box),
                               [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], atol=1e-9)
    # a rotated box grows to enclose its corners; clip keeps it inside the output
    r = g.transform_boxes(g.rotation(45, (0.0, 0.0)), [0.5, 0.5, 2.5, 2.5])
    np.testing.assert_allclose(r, [0.5, 0.5 - math.sqrt(2), 0.5 + 2 * math.sqrt(2), 0.5 + math.sqrt(2)])
    np.testing.assert_allclose(g.transform_boxes(g.translation(-20, 40), box, clip=(w, h)),
                               [0, 45, 10, 50])
    assert g.transform_boxes(g.identity(), np.zeros((0, 4))).shape == (0, 4)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: RandomAffine(degrees="10"), ValueError, "degrees must be a number or"),
    (lambda: RandomAffine(degrees=(20, 10)), ValueError, "degrees must have low <= high"),
    (lambda: RandomAffine(degrees=-5), ValueError, "degrees as one number.*>= 0"),
    (lambda: RandomAffine(degrees=math.nan), ValueError, "degrees must be a finite number"),
    (lambda: RandomAffine(scale=0), ValueError, "scale must be > 0"),
    (lambda: RandomAffine(scale=(-1, 2)), ValueError, r"scale must lie in \[0, inf\]"),
    (lambda: RandomAffine(shear=90), ValueError, r"shear must lie in \[-89, 89\]"),
    (lambda: RandomAffine(shear=(1, 2, 3)), ValueError, r"shear must be a number or \(low, high\) or"),
    (lambda: RandomAffine(translate=-0.1), ValueError, "translate must be >= 0"),
    (lambda: RandomAffine(translate=(0.1, 0.2, 0.3)), ValueError, r"translate must be a fraction f or \(fx, fy\)"),
    (lambda: RandomAffine(hflip=1.5), ValueError, r"hflip is a probability: it must be in \[0, 1\]"),
    (lambda: RandomAffine(vflip=True), ValueError, "vflip must be a finite number"),
    (lambda: RandomAffine(size=(0, 5)), ValueError, r"size must be an int \(a square\) or \(height, width\) of whole numbers >= 1, got \(0, 5\)"),
    (lambda: RandomAffine(size="big"), ValueError, r"size must be an int \(a square\) or \(height, width\) of whole numbers >= 1, got .big."),
    (lambda: RandomAffine(interpolation="lanczos"), ValueError, "interpolation must be one of 'nearest'"),
    (lambda: RandomAffine(padding="wrap"), ValueError, "padding must be one of 'constant'"),
    (lambda: RandomAffine().sample(2, (10, 10), rng="seed"), TypeError, "rng must be None, an int seed"),
    (lambda: RandomAffine().sample(-1, (10, 10)), ValueError, "n must be a count >= 0"),
    (lambda: RandomAffine().sample(2, (10,)), ValueError, r"size must be an int \(a square\) or \(height, width\)"),
    (lambda: RandomAffine()(object()), TypeError, "images must be a Pillow image, an array"),
    (lambda: RandomAffine()([np.zeros((2, 4, 4, 3), np.uint8)]), ValueError, r"images\[0\] is a batch"),
    (lambda: g.transform_boxes(g.identity(), [1, 2, 3]), ValueError, r"boxes must have shape \(K, 4\)"),
    (lambda: g.transform_boxes(g.identity(), [0, 0, math.inf, 1]), ValueError, "boxes must be finite"),
    (lambda: g.transform_boxes(np.stack([g.identity()] * 2), [[0, 0, 1, 1]]), ValueError,
     "a stack of 2 matrices needs batch_indices"),
    (lambda: g.transform_boxes(np.stack([g.identity()] * 2), [[0, 0, 1, 1]], [0.5]), ValueError,
     r"batch_indices must be 1 integers, one per box, got \(1,\) float64"),
    (lambda: g.transform_boxes(np.stack([g.identity()] * 2), [[0, 0, 1, 1]], [2]), ValueError,
     r"batch_indices must be in \[0, 2\), got 2..2"),
    (lambda: g.transform_boxes(g.identity(), [["a", 0, 1, 1]]), ValueError,
     "boxes must be numbers"),
    (lambda: g.transform_boxes(g.identity(), [[0, 0, 1, 1]], [0]), ValueError,
     "batch_indices only apply to a stack"),
    (lambda: g.transform_boxes([[1, 0, 0], [0, 1, 0], [-1, 0, 5]], [[0, 0, 10, 10]]), ValueError,
     "box 0 .* behind the camera"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
