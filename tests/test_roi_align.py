"""RoiAlign against the ONNX backend cases, the ONNX reference and ONNX Runtime."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import warpkit
from helpers import assert_close, foreign_byte_order, refused_without_fp64
from oracles import backend_cases, BF16, ort_roi_align, reference_roi_align


def _cases():
    return backend_cases('test_roialign')


CASES = _cases()


def _attrs(node):
    out = {}
    for a in node.attribute:
        out[a.name] = a.s.decode() if a.type == 3 else (a.f if a.type == 1 else a.i)
    return out


def test_backend_case_count():
    assert len(CASES) == 3


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_onnx_backend_cases(case, small_queue):
    attrs = _attrs(case.model.graph.node[0])
    for inputs, outputs in case.data_sets:
        y = warpkit.roi_align(*inputs, **attrs, queue=small_queue)
        np.testing.assert_allclose(y, outputs[0], rtol=case.rtol, atol=case.atol)


def _rois(rng, n, H, W, scale):
    """Boxes inside, partly outside, fully outside, zero-size and reversed (in ROI units)."""
    boxes = []
    for _ in range(n):
        kind = rng.integers(0, 5)
        x1, y1 = rng.uniform(-0.3 * W, 1.1 * W), rng.uniform(-0.3 * H, 1.1 * H)
        w, h = rng.uniform(0.5, 0.8 * W), rng.uniform(0.5, 0.8 * H)
        if kind == 0:
            x1, y1 = rng.uniform(0, W / 2), rng.uniform(0, H / 2)
        elif kind == 2:
            x1, y1 = W + 3 + rng.uniform(0, 4), -h - 3
        elif kind == 3:
            w = h = 0.0
        elif kind == 4:
            w, h = -w, -h
        boxes.append([x1, y1, x1 + w, y1 + h])
    return (np.array(boxes) / scale).astype(np.float32)


GRID = list(itertools.product(["avg", "max"], ["half_pixel", "output_half_pixel"], [0, 1, 2],
                              [1.0, 0.5, 0.25]))


@pytest.mark.parametrize("mode,ctm,sr,scale", GRID)
def test_against_reference_and_ort(mode, ctm, sr, scale, queue):
    rng = np.random.default_rng([["avg", "max"].index(mode), len(ctm), sr, int(scale * 4)])
    N, C, H, W = 3, 13, 9, 11  # 13 channels: the channels-last path with a partial block
    X = rng.standard_normal((N, C, H, W)).astype(np.float32)
    rois = _rois(rng, 12, H, W, scale)
    bidx = rng.integers(0, N, 12)
    attrs = dict(mode=mode, output_height=3, output_width=4, sampling_ratio=sr,
                 spatial_scale=scale, coordinate_transformation_mode=ctm)
    y = warpkit.roi_align(X, rois, bidx, **attrs, queue=queue)
    assert_close(y, reference_roi_align(X, rois, bidx, **attrs), "linear", "reference")
    assert_close(y, ort_roi_align(X, rois, bidx, **attrs), "linear", "ORT")


@pytest.mark.parametrize("mode,ctm", list(itertools.product(["avg", "max"], ["half_pixel", "output_half_pixel"])))
def test_small_cases_on_every_device(mode, ctm, small_queue):
    rng = np.random.default_rng([len(mode), len(ctm)])
    X = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    rois = _rois(rng, 6, 5, 6, 1.0)
    bidx = rng.integers(0, 2, 6)
    attrs = dict(mode=mode, output_height=2, output_width=3, sampling_ratio=0,
                 coordinate_transformation_mode=ctm)
    y = warpkit.roi_align(X, rois, bidx, **attrs, queue=small_queue)
    assert_close(y, reference_roi_align(X, rois, bidx, **attrs), "linear", "reference")


@pytest.mark.parametrize("cg", [1, 2, 8])
def test_channel_vectors_per_work_item(cg, small_queue, monkeypatch):
    """The channels-last kernel with 1 channel vector per work-item (what GPUs run), 2, and 8
    (CPUs); 37 channels: several work-items per ROI bin and a partial last vector."""
    monkeypatch.setattr(sys.modules["warpkit.roi_align"], "_channel_vectors", lambda rt: cg)
    rng = np.random.default_rng(cg)
    X = rng.standard_normal((2, 37, 7, 9)).astype(np.float32)
    rois = _rois(rng, 5, 7, 9, 1.0)
    bidx = rng.integers(0, 2, 5)
    for mode in ("avg", "max"):
        attrs = dict(mode=mode, output_height=2, output_width=3, sampling_ratio=2)
        y = warpkit.roi_align(X, rois, bidx, **attrs, queue=small_queue)
        assert_close(y, reference_roi_align(X, rois, bidx, **attrs), "linear", f"CG={cg}")


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64], ids=["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("mode", ["avg", "max"])
def test_dtypes(dtype, mode, queue):
    rng = np.random.default_rng([np.dtype(dtype).itemsize, len(mode)])
    X = (rng.standard_normal((2, 10, 8, 8)) * 10).astype(dtype)
    rois = _rois(rng, 8, 8, 8, 1.0).astype(dtype)
    bidx = rng.integers(0, 2, 8)
    attrs = dict(mode=mode, output_height=2, output_width=2, sampling_ratio=2)
    if refused_without_fp64(queue, [dtype], lambda: warpkit.roi_align(X, rois, bidx, **attrs,
                                                                      queue=queue)):
        return
    y = warpkit.roi_align(X, rois, bidx, **attrs, queue=queue)
    assert y.dtype == dtype
    if dtype == np.float64:
        ref = reference_roi_align(X, rois, bidx, **attrs)  # the reference computes in float64 here
    else:
        ref = reference_roi_align(X.astype(np.float32), rois.astype(np.float32), bidx,
                                  **attrs).astype(dtype)
    assert_close(y, ref, "linear", str(np.dtype(dtype)))


def test_max_interpolate_with_one_sample_is_avg(queue):
    """With one sample per bin the interpolated max is that sample's bilinear value."""
    rng = np.random.default_rng(9)
    X = rng.standard_normal((1, 3, 10, 10)).astype(np.float32)
    rois = _rois(rng, 10, 10, 10, 1.0)
    bidx = np.zeros(10, np.int64)
    kw = dict(output_height=3, output_width=3, sampling_ratio=1, queue=queue)
    interp = warpkit.roi_align(X, rois, bidx, mode="max", max_method="interpolate", **kw)
    np.testing.assert_allclose(interp, warpkit.roi_align(X, rois, bidx, mode="avg", **kw), rtol=1e-6,
                               atol=1e-6)
    onnx_max = warpkit.roi_align(X, rois, bidx, mode="max", **kw)
    assert not np.allclose(interp, onnx_max)  # the ONNX variant takes the weighted corner


def test_device_arrays_and_many_batches(queue):
    rng = np.random.default_rng(10)
    X = rng.standard_normal((4, 20, 12, 12)).astype(np.float32)  # C not a multiple of 8
    rois = _rois(rng, 30, 12, 12, 1.0)
    bidx = rng.integers(0, 4, 30)
    ref = warpkit.roi_align(X, rois, bidx, output_height=4, output_width=4, queue=queue)
    Xd = cla.to_device(queue, np.concatenate([X[:1], X]))[1:]  # with an offset
    y = warpkit.roi_align(Xd, cla.to_device(queue, rois), cla.to_device(queue, bidx),
                          output_height=4, output_width=4)
    assert isinstance(y, cla.Array)
    np.testing.assert_array_equal(y.get(), ref)
    assert_close(ref, reference_roi_align(X, rois, bidx, output_height=4, output_width=4), "linear")


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.uint8, np.uint64])
def test_device_boxes_are_not_read_back(index_dtype, small_queue):
    """Boxes and batch indices on the device (any integer dtype, strided, at an offset) are used
    where they are: the call takes the short path, waits for nothing, and equals the host call."""
    from warpkit import _op

    queue = small_queue
    rng = np.random.default_rng(13)
    X = rng.standard_normal((3, 10, 9, 11)).astype(np.float32)
    rois = _rois(rng, 5, 9, 11, 1.0)
    bidx = rng.integers(0, 3, 5)
    want = warpkit.roi_align(X, rois, bidx, output_height=3, output_width=2, queue=queue)
    bpad = np.zeros(12, index_dtype)
    bpad[2::2] = bidx  # indices every other element, after an offset
    xd, rd = cla.to_device(queue, X), cla.to_device(queue, rois)
    bd = cla.to_device(queue, bpad)[2::2]
    assert bd.offset and bd.strides[0] == 2 * bd.dtype.itemsize
    queue.finish()
    gate = cl.UserEvent(queue.context)
    cl.enqueue_marker(queue, wait_for=[gate])  # the in-order queue waits here
    run = _op.Plan.run
    generic = []

    def watch(plan, operands, values=None, pending=None):
        generic.append(not all(op.dev is not None for op in operands.values()))
        return run(plan, operands, values, pending)

    _op.Plan.run = watch
    try:
        y = warpkit.roi_align(xd, rd, bd, output_height=3, output_width=2)
        assert y.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        _op.Plan.run = run
        gate.set_status(cl.command_execution_status.COMPLETE)
    assert generic == [False]
    np.testing.assert_array_equal(y.get(), want)


def test_device_boxes_the_host_refuses_give_nan_bins(small_queue):
    """What the host refuses with a ValueError (a non-finite box, a batch index outside [0, N),
    adaptive sampling past the limit) gives NaN bins when the boxes are on the device, which are
    not read back; the other boxes are unaffected, and nothing is read outside X."""
    queue = small_queue
    rng = np.random.default_rng(14)
    X = rng.standard_normal((2, 9, 8, 8)).astype(np.float32)
    good = np.array([[0, 0, 5, 5], [1, 2, 7, 6]], np.float32)
    bad = np.array([[0, np.nan, 3, 3], [0, 0, 3, np.inf], [1, 1, 4, 4], [1, 1, 4, 4],
                    [0, 0, 3e9, 4], [0, 0, 4, 3e9]], np.float32)
    bad_idx = [0, 1, 2, -1, 0, 1]
    for i in range(len(bad)):
        with pytest.raises(ValueError, match="rois must be finite|batch_indices must be in|"
                                             "samples per bin"):
            warpkit.roi_align(X, bad[i:i + 1], bad_idx[i:i + 1], queue=queue)
    rois = np.concatenate([good[:1], bad, good[1:]])
    bidx = np.array([1, *bad_idx, 0], np.int64)
    for oh, ow in ((2, 3), (1, 1)):
        y = warpkit.roi_align(cla.to_device(queue, X), cla.to_device(queue, rois),
                              cla.to_device(queue, bidx), output_height=oh,
                              output_width=ow).get()
        assert np.isnan(y[1:-1]).all()
        np.testing.assert_array_equal(
            y[[0, -1]], warpkit.roi_align(X, good, [1, 0], output_height=oh, output_width=ow,
                                          queue=queue))


def test_non_native_byte_order(queue):
    rng = np.random.default_rng(12)
    X = rng.standard_normal((2, 5, 12, 12)).astype(np.float32)
    rois = _rois(rng, 6, 12, 12, 1.0)
    bidx = rng.integers(0, 2, 6)
    f = foreign_byte_order
    y = warpkit.roi_align(f(X), f(rois), f(bidx), output_height=3, output_width=3, queue=queue)
    assert y.dtype == np.float32 and y.dtype.isnative
    np.testing.assert_array_equal(
        y, warpkit.roi_align(X, rois, bidx, output_height=3, output_width=3, queue=queue))


def test_empty(queue):
    X = np.zeros((1, 3, 4, 4), np.float32)
    y = warpkit.roi_align(X, np.zeros((0, 4), np.float32), np.zeros(0, np.int64), queue=queue)
    assert y.shape == (0, 3, 1, 1)


X4 = np.zeros((2, 1, 4, 4), np.float32)
R1 = np.array([[0, 0, 2, 2]], np.float32)


@pytest.mark.parametrize("args,kw,exc,match", [
    ((X4, R1, np.array([2])), {}, ValueError, r"batch_indices must be in \[0, N\) = \[0, 2\); index 0 is 2"),
    ((X4, R1, np.array([-1])), {}, ValueError, r"batch_indices must be in \[0, N\)"),
    ((X4, np.array([[0, np.nan, 2, 2]], np.float32), np.array([0])), {}, ValueError,
     r"rois must be finite; roi 0 is"),
    ((X4, R1, np.array([0, 1])), {}, ValueError, r"batch_indices must have shape \(R,\) = \(1,\) to match rois"),
    ((X4, np.zeros((1, 5), np.float32), np.array([0])), {}, ValueError, r"rois must have shape \(R, 4\)"),
    ((X4[0], R1, np.array([0])), {}, ValueError, r"X must have shape \(N, C, H, W\)"),
    ((X4, R1, np.array([0])), {"output_height": 0}, ValueError, r"output_height must be an integer >= 1, got 0"),
    ((X4, R1, np.array([0])), {"output_width": 2.5}, ValueError, r"output_width must be an integer >= 1"),
    ((X4, R1, np.array([0])), {"sampling_ratio": -1}, ValueError, r"sampling_ratio must be an integer >= 0"),
    ((X4, R1, np.array([0])), {"mode": "mean"}, ValueError, r"mode must be one of 'avg', 'max'; got 'mean'"),
    ((X4, R1, np.array([0])), {"coordinate_transformation_mode": "asymmetric"}, ValueError,
     r"coordinate_transformation_mode must be one of 'half_pixel', 'output_half_pixel'"),
    ((X4, R1, np.array([0])), {"spatial_scale": float("inf")}, ValueError, r"spatial_scale must be finite"),
    ((X4, R1, np.array([0.0])), {}, TypeError, r"batch_indices must be integers, got float64"),
    ((X4.astype(np.int32), R1, np.array([0])), {}, TypeError, r"X must have a floating dtype"),
    ((X4, np.array([[0, 0, 1e9, 1e9]], np.float32), np.array([0])), {}, ValueError,
     r"roi 0 .* needs \d+ samples per bin with adaptive sampling"),
])
def test_bad_input(args, kw, exc, match):
    with pytest.raises(exc, match=match):
        warpkit.roi_align(*args, **kw)
