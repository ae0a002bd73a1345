"""crop_rois: exact crops, against ONNX Runtime's RoiAlign and OpenCV, batches and Pillow."""

from __future__ import annotations

import numpy as np
import pyopencl.array as cla
import pytest
from PIL import Image

import warpkit
from oracles import ort_roi_align


def test_a_box_the_size_of_its_output_is_exact(queue):
    img = np.random.default_rng(0).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    boxes = [[0, 0, 30, 20], [5, 3, 13, 11], [22, 12, 30, 20]]
    out = warpkit.crop_rois(img, boxes, (8, 8), queue=queue)
    np.testing.assert_array_equal(out[1], img[3:11, 5:13])
    np.testing.assert_array_equal(out[2], img[12:20, 22:30])
    whole = warpkit.crop_rois(img, [[0, 0, 30, 20]], (30, 20), queue=queue)[0]
    np.testing.assert_array_equal(whole, img)


def test_matches_onnxruntime_roi_align_inside_the_image(queue):
    """Inside the image, a bilinear crop is RoiAlign avg with one sample per bin (half_pixel)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2, 3, 24, 32)).astype(np.float32)
    xy = rng.uniform(1, 12, (10, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(3, 11, (10, 2))], 1).astype(np.float32)
    bidx = rng.integers(0, 2, 10)
    patches = warpkit.crop_rois(np.ascontiguousarray(X.transpose(0, 2, 3, 1)), boxes, (5, 4),
                                batch_indices=bidx, padding="border", queue=queue)
    ref = ort_roi_align(X, boxes, bidx, output_height=4, output_width=5, sampling_ratio=1,
                        coordinate_transformation_mode="half_pixel")
    np.testing.assert_allclose(patches.transpose(0, 3, 1, 2), ref, rtol=1e-5, atol=1e-5)


def test_boxes_outside_follow_padding(queue):
    img = np.full((10, 10), 100, np.uint8)
    out = warpkit.crop_rois(img, [[-10, -10, 0, 0], [5, 5, 15, 15]], (10, 10), fill=7, queue=queue)
    assert (out[0] == 7).all()
    assert (out[1][:5, :5] == 100).all() and (out[1][5:, 5:] == 7).all()
    out = warpkit.crop_rois(img, [[-10, -10, 0, 0]], (4, 4), padding="border", queue=queue)
    assert (out == 100).all()


def test_pillow_in_list_out(queue):
    img = Image.fromarray(np.random.default_rng(2).integers(0, 256, (16, 16, 3), dtype=np.uint8))
    out = warpkit.crop_rois(img, [[0, 0, 8, 8], [8, 8, 16, 16]], (8, 8), queue=queue)
    assert isinstance(out, list) and all(isinstance(p, Image.Image) and p.mode == "RGB" for p in out)
    np.testing.assert_array_equal(np.asarray(out[1]), np.asarray(img)[8:, 8:])


def test_device_batch(queue):
    imgs = np.random.default_rng(3).random((3, 12, 12, 2)).astype(np.float32)
    boxes = [[0, 0, 6, 6], [6, 6, 12, 12], [2, 2, 8, 10]]
    out = warpkit.crop_rois(cla.to_device(queue, imgs), boxes, (6, 6), batch_indices=[2, 0, 1])
    assert isinstance(out, cla.Array) and out.shape == (3, 6, 6, 2)
    np.testing.assert_array_equal(out.get()[0], imgs[2, :6, :6])


@pytest.mark.parametrize("kw,match", [
    (dict(boxes=[[0, 0, 5]], output_size=(4, 4)), r"boxes must have shape \(K, 4\)"),
    (dict(boxes=[[0, 0, 0, 5]], output_size=(4, 4)), r"box 0 \[0.0, 0.0, 0.0, 5.0\] has no width or height"),
    (dict(boxes=[[0, 0, np.inf, 5]], output_size=(4, 4)), r"boxes must be finite"),
    (dict(boxes=[[0, 0, 4, 4], [5, 5, 2, 3]], output_size=(4, 4)),
     r"box 1 \[5.0, 5.0, 2.0, 3.0\] has x2 < x1 or y2 < y1; boxes are corners \[x1, y1, x2, y2\] "
     r"\(for \[x, y, width, height\] boxes add x and y"),
    (dict(boxes=[[0, 4, 4, 1]], output_size=(4, 4)), r"box 0 .* has x2 < x1 or y2 < y1"),
    (dict(boxes=[[0, 0, 4, 4]], output_size=(4,)), r"output_size must be \(width, height\)"),
])
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        warpkit.crop_rois(np.zeros((8, 8), np.uint8), **kw)


def test_batch_needs_indices():
    with pytest.raises(ValueError, match=r"a batch \(B, H, W, C\) needs batch_indices"):
        warpkit.crop_rois(np.zeros((2, 8, 8, 3), np.uint8), [[0, 0, 4, 4]], (4, 4))
    with pytest.raises(ValueError, match=r"batch_indices must be in \[0, 2\)"):
        warpkit.crop_rois(np.zeros((2, 8, 8, 3), np.uint8), [[0, 0, 4, 4]], (4, 4), batch_indices=[2])


def test_single_channel_shapes(queue):
    img = np.arange(64, dtype=np.uint8).reshape(8, 8)
    out = warpkit.crop_rois(img, [[0, 0, 4, 4]], (4, 4), queue=queue)
    assert out.shape == (1, 4, 4)
    np.testing.assert_array_equal(out[0], img[:4, :4])
    outd = warpkit.crop_rois(cla.to_device(queue, img), [[0, 0, 4, 4]], (4, 4))
    assert isinstance(outd, cla.Array) and outd.shape == (1, 4, 4)
    np.testing.assert_array_equal(outd.get(), out)
