"""Hostile input to the public API: each case gets the exact error type with a message that names
the argument, or the exact result. These come from an adversarial run against every operator
(the CLI's table is in test_cli_hostile.py)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import warpkit
from warpkit import geometry as g

IMG = np.zeros((10, 12, 3), np.uint8)
PHOTO = np.zeros((100, 120, 3), np.uint8)
X1 = np.ones((1, 1, 8, 8), np.float32)
BOX = np.array([[0, 0, 8, 8]], np.float32)
inf = math.inf


def _roi(**kw):
    return warpkit.roi_align(X1, BOX, np.array([0]), **kw)


ERRORS = [
    # sizes
    (lambda: warpkit.warp_affine(IMG, g.identity(), size=(inf, 10)), ValueError,
     r"size must be \(width, height\), two whole numbers, got \(inf, 10\)"),
    (lambda: warpkit.warp_affine(IMG, g.identity(), size=(10.5, 10)), ValueError,
     r"size must be \(width, height\), two whole numbers"),
    (lambda: warpkit.warp_affine(IMG, g.identity(), size=(0, 10)), ValueError,
     r"output size must be between 1 and 65536 per axis, got 0x10"),
    (lambda: warpkit.crop_rois(IMG, [[0, 0, 4, 4]], (inf, 4)), ValueError,
     r"output_size must be \(width, height\), two whole numbers, got \(inf, 4\)"),
    (lambda: warpkit.warp_affine(np.zeros((0, 0, 3), np.uint8), g.identity()), ValueError,
     r"image has no pixels to sample: shape \(0, 0, 3\)"),
    (lambda: warpkit.warp_affine(np.zeros((5, 0), np.float32), g.identity()), ValueError,
     r"image has no pixels to sample: shape \(5, 0\)"),
    # fills
    (lambda: warpkit.warp_affine(IMG, g.identity(), fill=None), ValueError,
     r"fill must be a number or one per channel \(3\), got None"),
    (lambda: warpkit.warp_affine(IMG, g.identity(), fill="7"), ValueError,
     r"fill must be a number or one per channel \(3\), got '7'"),
    (lambda: warpkit.warp_affine(IMG, g.identity(), fill=(1, 2)), ValueError,
     r"fill must be a number or one per channel \(3\), got \(1, 2\)"),
    (lambda: warpkit.warp_affine(IMG, g.identity(), fill=math.nan), ValueError,
     r"fill must be a number for a uint8 image, got NaN"),
    # boxes
    (lambda: warpkit.crop_rois(IMG, [[0, 0, 1e300, 4]], (4, 4)), ValueError,
     r"box 0 \[0.0, 0.0, 1e\+300, 4.0\] reaches beyond 16777216 pixels"),
    (lambda: warpkit.crop_rois(IMG, ["0088"], (4, 4)), ValueError,
     r"boxes must be numbers \[x1, y1, x2, y2\], got \['0088'\]"),
    (lambda: warpkit.crop_rois(IMG, [["0", "0", "8", "8"]], (4, 4)), ValueError,
     r"boxes must be numbers"),
    (lambda: warpkit.crop_rois(IMG, [[0, 0, 8, 8], [0, 0, 4]], (4, 4)), ValueError,
     r"boxes must be numbers"),
    (lambda: warpkit.crop_rois(IMG, [[8, 0, 0, 8]], (4, 4)), ValueError,
     r"box 0 \[8.0, 0.0, 0.0, 8.0\] has x2 < x1 or y2 < y1"),
    # maps and their builders
    (lambda: warpkit.warp_perspective(PHOTO, [[1, 0, 0], [0, 1, 0], [0, -0.1, 1]], expand=True),
     ValueError, r"expand=True: the homography sends part of the image to infinity"),
    (lambda: warpkit.warp_affine(IMG, g.scale(1e6), expand=True), ValueError,
     r"expand=True: the warped image spans 12000000x10000000 pixels, beyond the 65536"),
    (lambda: g.rotation(inf), ValueError, r"degrees must be a finite number, got inf"),
    (lambda: g.scale(inf), ValueError, r"sx must be a finite number, got inf"),
    (lambda: g.scale(1, math.nan), ValueError, r"sy must be a finite number, got nan"),
    (lambda: g.translation("a", 0), ValueError, r"dx must be a finite number, got 'a'"),
    (lambda: g.shear(inf), ValueError, r"x_degrees must be a finite number, got inf"),
    (lambda: g.rotation(10, center=(inf, 0)), ValueError, r"center x must be a finite number"),
    (lambda: g.rotation(10, center=5), ValueError, r"center must be \(x, y\), got 5"),
    (lambda: warpkit.warp_affine(IMG, [[1, 0, inf], [0, 1, 0]]), ValueError,
     r"a matrix must be finite"),
    # RoiAlign limits, refused before any allocation or launch
    (lambda: _roi(sampling_ratio=2 ** 16), ValueError,
     r"sampling_ratio must be at most 1024 \(1048576 samples per bin\), got 65536"),
    (lambda: _roi(sampling_ratio=2 ** 31), ValueError,
     r"sampling_ratio must be at most 1024 .*got 2147483648"),
    (lambda: _roi(output_height=2 ** 31), ValueError,
     r"output_height \* output_width must be at most 2147483647 bins per box"),
    (lambda: warpkit.roi_align(X1, np.repeat(BOX, 1000, 0), np.zeros(1000, np.int64),
                               output_height=2 ** 20, output_width=2 ** 10), ValueError,
     r"the 1000x1x1048576x1024 float32 output \(4294967296000 bytes\) exceeds the device's "
     r"maximum allocation"),
    (lambda: _roi(sampling_ratio=-1), ValueError, r"sampling_ratio must be an integer >= 0"),
    (lambda: _roi(output_width=1.5), ValueError, r"output_width must be an integer >= 1"),
]


@pytest.mark.parametrize("call, exc, match", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_refused_clearly(call, exc, match):
    t = time.perf_counter()
    with pytest.raises(exc, match=match):
        call()
    assert time.perf_counter() - t < 5  # refused before any large allocation or launch


def test_roi_align_huge_output_on_device_arrays_refused_first(queue):
    import pyopencl.array as cla

    X = cla.to_device(queue, X1)
    boxes = np.repeat(BOX, 1000, 0)
    with pytest.raises(ValueError, match=r"exceeds the device's maximum allocation"):
        warpkit.roi_align(X, cla.to_device(queue, boxes),
                          cla.to_device(queue, np.zeros(1000, np.int64)),
                          output_height=2 ** 20, output_width=2 ** 10)


def test_int32_nearest_is_exact(small_queue):
    queue = small_queue
    a = np.array([[16777217, -2147483648, 2147483647, 5, -16777219]], np.int32)
    fp64 = "cl_khr_fp64" in queue.device.extensions
    for mode in ("nearest", "linear", "cubic"):
        out = warpkit.warp_affine(a, g.identity(), interpolation=mode, queue=queue)
        if mode == "nearest" or fp64:
            np.testing.assert_array_equal(out, a, err_msg=mode)
        else:  # accumulated in float: within 2^-22 of the value (docs/semantics.md)
            err = np.abs(out.astype(np.int64) - a)
            assert (err <= np.abs(a.astype(np.int64)) * 2.0 ** -22).all(), (mode, out)
    shifted = warpkit.warp_affine(a, g.translation(2, 0), interpolation="nearest",
                                  fill=16777219, queue=queue)
    np.testing.assert_array_equal(shifted, [[16777219, 16777219, 16777217, -2147483648,
                                             2147483647]])


def _keys(s):
    s = np.abs(s)
    a = -0.75
    return np.where(s <= 1, ((a + 2) * s - (a + 3)) * s * s + 1,
                    np.where(s < 2, ((a * s - 5 * a) * s + 8 * a) * s - 4 * a, 0.0))


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_int32_interpolation_within_one(queue, mode):
    """A shift whose coordinates and weights are exact in float32, against a float64 oracle:
    int32 values above 2^24 keep their low bits (within 1 where the device has fp64)."""
    rng = np.random.default_rng(0)
    a = rng.integers(-2 ** 31, 2 ** 31, (6, 9), dtype=np.int64).astype(np.int32)
    out = warpkit.warp_affine(a, g.translation(0.25, 0.5), interpolation=mode,
                              padding="border", queue=queue).astype(np.float64)
    A = a.astype(np.float64)

    def taps(c, n):
        c0 = np.floor(c).astype(int)
        t = c - c0
        if mode == "linear":
            return [(np.clip(c0, 0, n - 1), 1 - t), (np.clip(c0 + 1, 0, n - 1), t)]
        return [(np.clip(c0 + j, 0, n - 1), _keys(t - j)) for j in (-1, 0, 1, 2)]

    ref = np.zeros(a.shape)
    for iy, wy in taps(np.arange(6) - 0.5, 6):
        for ix, wx in taps(np.arange(9) - 0.25, 9):
            ref += wy[:, None] * wx[None, :] * A[iy][:, ix]
    ref = np.clip(np.floor(ref + 0.5), -2 ** 31, 2 ** 31 - 1)
    fp64 = "cl_khr_fp64" in queue.device.extensions
    tol = 1 if fp64 else 2.0 ** -22 * 2 ** 31  # float accumulation without fp64
    assert np.abs(out - ref).max() <= tol


def test_pillow_mode_i_is_exact(queue):
    from PIL import Image

    a = np.array([[16777217, 2147483647], [-2147483648, 3]], np.int32)
    img = Image.fromarray(a)
    assert img.mode == "I"
    out = warpkit.warp_affine(img, g.identity(), interpolation="nearest", queue=queue)
    assert out.mode == "I"
    np.testing.assert_array_equal(np.asarray(out), a)


def test_infinite_fill_saturates_first(queue):
    """fill=inf on uint8 is 255 (saturated first, as OpenCV), not zeros along the last row."""
    u = np.full((4, 4), 100, np.uint8)
    out = warpkit.warp_affine(u, g.translation(0.5, 0.5), fill=math.inf, queue=queue)
    ref = warpkit.warp_affine(u, g.translation(0.5, 0.5), fill=255, queue=queue)
    np.testing.assert_array_equal(out, ref)
    assert out[0, 0] == 216  # (3 * 255 + 100) / 4, halves up
    neg = warpkit.warp_affine(u, g.translation(0.5, 0.5), fill=-math.inf, queue=queue)
    np.testing.assert_array_equal(neg, warpkit.warp_affine(u, g.translation(0.5, 0.5), fill=0,
                                                           queue=queue))


def test_float_images_keep_a_nan_fill(queue):
    f = np.ones((3, 3), np.float32)
    out = warpkit.warp_affine(f, g.translation(5, 0), fill=math.nan, interpolation="nearest",
                              queue=queue)
    assert np.isnan(out).all()


def test_expand_with_the_horizon_outside_the_image(queue):
    """A perspective whose horizon lies beyond the image still expands."""
    out = warpkit.warp_perspective(IMG, [[1, 0, 0], [0, 1, 0], [0, -0.05, 1]], expand=True,
                                   queue=queue)
    assert out.shape[2] == 3 and out.shape[0] > 10
