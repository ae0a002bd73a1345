"""GridSample against the ONNX backend cases, the ONNX reference, ONNX Runtime and docs/semantics.md."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pyopencl.array as cla
import pytest

import warpkit
from helpers import assert_close, device_fp64, foreign_byte_order, refused_without_fp64
from oracles import backend_cases, BF16, onnx_cast, ort_grid_sample, reference_grid_sample

MODES = ["nearest", "linear", "cubic"]
PADS = ["zeros", "border", "reflection"]


def _backend_cases():
    return backend_cases('test_gridsample')


BACKEND = _backend_cases()


def _attrs(node):
    out = {"mode": "linear", "padding_mode": "zeros", "align_corners": 0}
    for a in node.attribute:
        out[a.name] = a.s.decode() if a.s else a.i
    return out


def test_backend_case_count():
    assert len(BACKEND) == 18


@pytest.mark.parametrize("case", BACKEND, ids=[c.name for c in BACKEND])
def test_onnx_backend_cases(case, small_queue):
    attrs = _attrs(case.model.graph.node[0])
    for inputs, outputs in case.data_sets:
        y = warpkit.grid_sample(*inputs, **attrs, queue=small_queue)
        np.testing.assert_allclose(y, outputs[0], rtol=case.rtol, atol=case.atol)
        assert_close(y, reference_grid_sample(*inputs, **attrs), attrs["mode"], case.name)


def _random_case(rng, r, n=2, c=3, lo=-1.6, hi=1.6, in_max=6, out_max=5):
    X = rng.standard_normal((n, c, *rng.integers(1, in_max, r))).astype(np.float32)
    grid = rng.uniform(lo, hi, (n, *rng.integers(1, out_max, r), r)).astype(np.float32)
    return X, grid


@pytest.mark.parametrize("r", [1, 2, 3, 4])
@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_against_reference(r, mode, pad, align, queue):
    rng = np.random.default_rng([r, MODES.index(mode), PADS.index(pad), align])
    small = {1: {}, 2: {}, 3: dict(in_max=5, out_max=4), 4: dict(in_max=4, out_max=3, c=2)}[r]
    X, grid = _random_case(rng, r, **small)
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
    assert_close(y, reference_grid_sample(X, grid, mode, pad, align), mode, f"r={r}")


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_small_conformance_oclgrind(mode, pad, align, small_queue):
    """The small randomized cases of ranks 1-3 on every device, Oclgrind included."""
    for r in (1, 2, 3):
        rng = np.random.default_rng([r, 7, MODES.index(mode), PADS.index(pad), align])
        X, grid = _random_case(rng, r, n=1, c=2, lo=-2.5, hi=2.5, in_max=4, out_max=3)
        y = warpkit.grid_sample(X, grid, mode, pad, align, queue=small_queue)
        assert_close(y, reference_grid_sample(X, grid, mode, pad, align), mode, f"r={r}")


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_gpu_kernel_choice_on_every_device(mode, pad, align, small_queue, monkeypatch, fresh_plans):
    """GPUs run the general kernel, one output position per work-item, for ranks 1-3 too (CPUs
    the 8-wide vector kernel). The same choice forced on every device: launch plans name the
    general kernel, and results match the reference, for float32 and float16."""
    mod = sys.modules["warpkit.grid_sample"]
    monkeypatch.setattr(warpkit.runtime_for_queue(small_queue), "cpu_like", False)
    fresh_plans()
    for r in (1, 2, 3):
        rng = np.random.default_rng([r, 8, MODES.index(mode), PADS.index(pad), align])
        X, grid = _random_case(rng, r, c=3, lo=-2.5, hi=2.5, in_max=5, out_max=4)
        y = warpkit.grid_sample(X, grid, mode, pad, align, queue=small_queue)
        assert_close(y, reference_grid_sample(X, grid, mode, pad, align), mode, f"r={r}")
    names = {ln.variant.entry for plan in mod._PLANS._plans.values() for ln in plan.launches}
    assert names == {"grid_sample"}
    Xh = X.astype(np.float16)
    y = warpkit.grid_sample(Xh, grid.astype(np.float16), mode, pad, align, queue=small_queue)
    ref = reference_grid_sample(Xh.astype(np.float32), grid.astype(np.float16).astype(np.float32),
                                mode, pad, align)
    assert_close(y, ref.astype(np.float16), mode, "float16")


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_against_onnxruntime_2d(mode, pad, align, queue):
    rng = np.random.default_rng([2, MODES.index(mode), PADS.index(pad), align, 99])
    X = rng.standard_normal((2, 3, 17, 23)).astype(np.float32)
    grid = rng.uniform(-1.3, 1.3, (2, 9, 11, 2)).astype(np.float32)
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
    assert_close(y, ort_grid_sample(X, grid, mode, pad, align), mode, "ORT")


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(["nearest", "linear"], PADS, [0, 1])))
def test_against_onnxruntime_3d(mode, pad, align, queue):
    rng = np.random.default_rng([3, MODES.index(mode), PADS.index(pad), align, 99])
    X = rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    grid = rng.uniform(-1.3, 1.3, (1, 3, 4, 5, 3)).astype(np.float32)
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
    assert_close(y, ort_grid_sample(X, grid, mode, pad, align), mode, "ORT 3-D")


def test_onnxruntime_opset16_bilinear_bicubic_names(queue):
    rng = np.random.default_rng(16)
    X = rng.standard_normal((1, 2, 6, 7)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (1, 4, 5, 2)).astype(np.float32)
    for old, new in (("bilinear", "linear"), ("bicubic", "cubic")):
        y_old = warpkit.grid_sample(X, grid, old, queue=queue)
        y_new = warpkit.grid_sample(X, grid, new, queue=queue)
        np.testing.assert_array_equal(y_old, y_new)
        assert_close(y_old, ort_grid_sample(X, grid, old, opset=16), new, old)


# ---- dtypes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_float64(mode, pad, align, queue):
    rng = np.random.default_rng([64, MODES.index(mode), PADS.index(pad), align])
    X = rng.standard_normal((2, 2, 5, 6))
    grid = rng.uniform(-1.4, 1.4, (2, 4, 3, 2))
    if refused_without_fp64(queue, [X.dtype], lambda: warpkit.grid_sample(X, grid, mode, pad,
                                                                         align, queue=queue)):
        return
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
    assert y.dtype == np.float64
    assert_close(y, reference_grid_sample(X, grid, mode, pad, align), mode, "float64")


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("mode,pad", list(itertools.product(MODES, PADS)))
def test_half_types(dtype, mode, pad, queue):
    """Storage types: float32 math on the rounded inputs, rounded back; within 1 ulp."""
    rng = np.random.default_rng([16, MODES.index(mode), PADS.index(pad)])
    X = (rng.standard_normal((2, 3, 7, 6)) * 50).astype(dtype)
    grid = rng.uniform(-1.3, 1.3, (2, 5, 4, 2)).astype(dtype)
    for align in (0, 1):
        y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
        ref = reference_grid_sample(X.astype(np.float32), grid.astype(np.float32), mode, pad, align)
        assert_close(y, ref.astype(dtype), mode, f"{np.dtype(dtype)} align={align}")


@pytest.mark.parametrize("gdtype", [np.float16, BF16, np.float32, np.float64],
                         ids=["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("mode", MODES)
def test_grid_dtypes(gdtype, mode, queue):
    rng = np.random.default_rng([5, MODES.index(mode)])
    X = rng.standard_normal((1, 2, 6, 5)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (1, 4, 4, 2)).astype(gdtype)
    if refused_without_fp64(queue, [gdtype], lambda: warpkit.grid_sample(X, grid, mode, "border",
                                                                        0, queue=queue)):
        return
    y = warpkit.grid_sample(X, grid, mode, "border", 0, queue=queue)
    assert y.dtype == np.float32
    gref = grid.astype(np.float64 if gdtype == np.float64 else np.float32)
    assert_close(y, reference_grid_sample(X, gref, mode, "border", 0), mode, str(gdtype))


INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _int_data(rng, dtype, shape, full: bool):
    info = np.iinfo(dtype)
    # 64-bit values beyond 2**53 are not exact in a float64 oracle: keep them for nearest only
    lo, hi = (info.min, info.max) if full or info.bits <= 32 else (max(info.min, -(2**40)), 2**40)
    return rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode,pad", list(itertools.product(MODES, PADS)))
def test_integer_types(dtype, mode, pad, queue):
    rng = np.random.default_rng([np.dtype(dtype).num, MODES.index(mode), PADS.index(pad)])
    shape = (2, 2, 5, 6)
    X = _int_data(rng, dtype, shape, full=mode == "nearest")
    grid = rng.uniform(-1.3, 1.3, (2, 4, 5, 2)).astype(np.float32)
    y = warpkit.grid_sample(X, grid, mode, pad, 0, queue=queue)
    assert y.dtype == dtype
    int_tol = 1
    if mode == "nearest":
        # exact: which element each output copies, from the reference run on an index image
        idx = np.arange(1, X.size + 1, dtype=np.float64).reshape(shape)
        picked = reference_grid_sample(idx, grid.astype(np.float64), mode, pad, 0).astype(np.int64)
        ref = np.where(picked > 0, X.reshape(-1)[np.maximum(picked - 1, 0)], 0).astype(dtype)
    else:
        wide = np.dtype(dtype).itemsize >= 4  # accumulated in double on an fp64 device
        ref = onnx_cast(reference_grid_sample(X.astype(np.float64), grid, mode, pad, 0,
                                              wide_weights=wide), dtype)
        if wide and not device_fp64(queue):  # in float: within 2^-22 of the values (semantics)
            int_tol = max(1.0, 2.0 ** -22 * float(np.abs(X.astype(np.float64)).max()) * 4)
    assert_close(y, ref, mode, np.dtype(dtype).name, int_tol)


def test_integer_cubic_saturates(queue):
    """Cubic overshoot past the type's range saturates instead of wrapping."""
    X = np.array([[[0, 0, 255, 255, 0, 0]]], dtype=np.uint8)
    Xi = np.array([[[127, 127, -128, -128, 127, 127]]], dtype=np.int8)
    grid = np.linspace(-1, 1, 41, dtype=np.float32).reshape(1, 41, 1)
    for arr in (X, Xi):
        y = warpkit.grid_sample(arr, grid, "cubic", "border", 1, queue=queue)
        ref = onnx_cast(reference_grid_sample(arr.astype(np.float64), grid, "cubic", "border", 1),
                        arr.dtype)
        f = reference_grid_sample(arr.astype(np.float64), grid, "cubic", "border", 1)
        assert (f > np.iinfo(arr.dtype).max).any() or (f < np.iinfo(arr.dtype).min).any()
        assert_close(y, ref, "cubic", str(arr.dtype))


@pytest.mark.parametrize("mode", MODES)
def test_bool(mode, queue):
    rng = np.random.default_rng([1, MODES.index(mode)])
    X = rng.random((1, 2, 6, 6)) > 0.5
    grid = rng.uniform(-1.2, 1.2, (1, 5, 5, 2)).astype(np.float32)
    y = warpkit.grid_sample(X, grid, mode, "zeros", 0, queue=queue)
    assert y.dtype == np.bool_
    f = reference_grid_sample(X.astype(np.float64), grid, mode, "zeros", 0)
    sure = np.abs(f) > 1e-6  # cubic weights can sum to ~0 where rounding decides
    np.testing.assert_array_equal(y[sure | (mode != "cubic")], onnx_cast(f, bool)[sure | (mode != "cubic")])


@pytest.mark.parametrize("dtype", ["<U3", np.complex64, object])
def test_unsupported_x_dtypes(dtype):
    X = np.zeros((1, 1, 2, 2), dtype=dtype)
    with pytest.raises(TypeError, match=r"X has dtype .* which warpkit cannot sample; expected one of"):
        warpkit.grid_sample(X, np.zeros((1, 1, 1, 2), np.float32))


def test_integer_grid_rejected():
    with pytest.raises(TypeError, match=r"grid must have a floating dtype .* got int32"):
        warpkit.grid_sample(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 1, 2), np.int32))


# ---- edge rules -------------------------------------------------------------------------------

def test_nearest_tie_in_float32(queue):
    """W=10, n=-0.2f: x = 3.5 in float32 (3.4999998 in float64), which rounds half to even: 4."""
    X = np.arange(10, dtype=np.float32).reshape(1, 1, 10)
    grid = np.array([-0.2, -0.3, 0.1], dtype=np.float32).reshape(1, 3, 1)
    y = warpkit.grid_sample(X, grid, "nearest", "zeros", 0, queue=queue)
    x32 = ((grid.astype(np.float32) + np.float32(1)) * np.float32(10) - np.float32(1)) / np.float32(2)
    np.testing.assert_array_equal(y.ravel(), np.rint(x32).ravel())
    assert y.ravel()[0] == 4.0
    assert_close(y, reference_grid_sample(X, grid, "nearest", "zeros", 0), "nearest")


@pytest.mark.parametrize("pad,align", list(itertools.product(PADS, [0, 1])))
def test_nearest_ties_everywhere(pad, align, small_queue):
    """Grids that land exactly on half-integers, inside and outside: rint first, then padding."""
    d = 8 if align == 0 else 5
    j = np.arange(-14, 22)
    n = ((2 * j + 2) / d - 1) if align == 0 else ((2 * j + 1) / (d - 1) - 1)
    grid = n.astype(np.float32).reshape(1, -1, 1)
    X = (np.arange(d, dtype=np.float32) * 10 + 1).reshape(1, 1, d)
    y = warpkit.grid_sample(X, grid, "nearest", pad, align, queue=small_queue)
    assert_close(y, reference_grid_sample(X, grid, "nearest", pad, align), "nearest", pad)


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_size_one_axes(mode, pad, align, small_queue):
    rng = np.random.default_rng([11, MODES.index(mode), PADS.index(pad), align])
    for shape in [(1, 2, 1, 1), (1, 2, 1, 5), (1, 2, 4, 1), (1, 1, 1)]:
        X = rng.standard_normal(shape).astype(np.float32)
        r = len(shape) - 2
        grid = rng.uniform(-2.5, 2.5, (1, 3, 4, r)[: 2 + r - 1] + (r,)).astype(np.float32)
        grid = grid.reshape((1,) + grid.shape[1:-1] + (r,))
        y = warpkit.grid_sample(X, grid, mode, pad, align, queue=small_queue)
        assert_close(y, reference_grid_sample(X, grid, mode, pad, align), mode, str(shape))


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_huge_coordinates(mode, pad, align, small_queue):
    """1e30 and 3e9 never overflow an int conversion into a wild read."""
    X = np.arange(1, 21, dtype=np.float32).reshape(1, 1, 4, 5)
    big = [1e30, -1e30, 3e9, -3e9]
    pts = [(b, 0.0) for b in big] + [(0.0, b) for b in big] + [(b, b) for b in big]
    grid = np.array(pts, dtype=np.float32).reshape(1, 1, -1, 2)
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=small_queue).ravel()
    assert np.isfinite(y).all()
    if pad == "zeros":
        np.testing.assert_array_equal(y, 0)
    elif pad == "border":
        edge = np.sign(grid).clip(-1, 1)  # the edge pixel centre (align_corners=1 coordinates)
        exp = warpkit.grid_sample(X, edge.astype(np.float32), mode, pad, 1, queue=small_queue)
        expected_vals = exp.ravel()
        # a 0 coordinate lands at the centre; with align_corners=0 the centre is the same point
        zero_axis = (grid.reshape(-1, 2) == 0).any(axis=1)
        np.testing.assert_allclose(y[~zero_axis], expected_vals[~zero_axis], rtol=1e-6)
        assert_close(y.reshape(1, 1, 1, -1),
                     reference_grid_sample(X, grid, mode, pad, align), mode, "border")
    else:
        assert (y >= X.min() - 10).all() and (y <= X.max() + 10).all()
        if mode == "nearest":
            assert np.isin(y, X).all()


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
def test_slanted_rows_with_extremes_below(mode, pad, align, queue):
    """Rows that cross source rows, with NaN and huge coordinates where the CPU kernel looks ahead
    (a row's two ends, and the first position of blocks several rows further down): the results
    stay the reference's (the look-ahead only prefetches)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((2, 3, 24, 40)).astype(np.float32)
    theta = np.array([[[np.cos(a), -np.sin(a), 0.05], [np.sin(a), np.cos(a), -0.1]]
                      for a in np.deg2rad([20, -35])], np.float32)
    grid = np.array(warpkit.affine_grid(theta, (2, 3, 16, 41), align_corners=bool(align),
                                        queue=queue))
    for (n, r, c), v in zip(itertools.product([0, 1], [7, 8, 10, 15], [0, 8, 16, 40]),
                            itertools.cycle([np.nan, 1e30, -1e30, 3e9, -3e9])):
        grid[n, r, c, (r + c) % 2] = v
    y = warpkit.grid_sample(X, grid, mode, pad, align, queue=queue)
    nan = np.isnan(grid).any(-1)  # NaN gives NaN (docs/semantics.md); the reference cannot take it
    expected = reference_grid_sample(X, np.where(nan[..., None], 0, grid), mode, pad, align)
    expected[np.broadcast_to(nan[:, None], expected.shape)] = np.nan
    if pad == "reflection":  # reflecting 1e30 in float32 says only that the result is in range
        huge = np.broadcast_to((np.abs(grid) > 1e9).any(-1)[:, None], y.shape)
        assert (np.abs(y[huge]) <= np.abs(X).max() * (1 if mode != "cubic" else 2)).all()
        y, expected = np.where(huge, 0, y), np.where(huge, 0, expected)
    assert_close(y, expected, mode, "slanted")


@pytest.mark.parametrize("mode,pad", list(itertools.product(MODES, PADS)))
def test_non_finite_coordinates(mode, pad, small_queue):
    X = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    nan, inf = np.nan, np.inf
    pts = [(nan, 0), (0, nan), (nan, nan), (inf, 0), (-inf, 0), (0, inf), (0, -inf), (0.2, 0.1)]
    grid = np.array(pts, np.float32).reshape(1, 1, -1, 2)
    y = warpkit.grid_sample(X, grid, mode, pad, 0, queue=small_queue).ravel()
    assert np.isnan(y[:3]).all()
    if pad == "reflection":
        assert np.isnan(y[3:7]).all()
    else:
        far = grid.copy()
        far[np.isinf(far)] = np.sign(far[np.isinf(far)]) * 1e30
        y_far = warpkit.grid_sample(X, far, mode, pad, 0, queue=small_queue).ravel()
        np.testing.assert_array_equal(y[3:], y_far[3:])
    assert np.isfinite(y[7])
    # integers: NaN gives 0
    yi = warpkit.grid_sample(X.astype(np.int16) + 5, grid, mode, pad, 0, queue=small_queue).ravel()
    np.testing.assert_array_equal(yi[:3], 0)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64], ids=["float16", "bfloat16", "float64"])
def test_nan_in_other_float_types(dtype, queue):
    X = np.ones((1, 1, 2, 2), dtype)
    grid = np.array([[[[np.nan, 0.0]]]], dtype=np.float32)
    if refused_without_fp64(queue, [dtype], lambda: warpkit.grid_sample(X, grid, queue=queue)):
        return
    for mode in MODES:
        y = warpkit.grid_sample(X, grid, mode, queue=queue)
        assert y.dtype == dtype and np.isnan(y.astype(np.float32)).all()


@pytest.mark.parametrize("xshape,gshape", [
    ((0, 2, 3, 3), (0, 4, 4, 2)),
    ((2, 0, 3, 3), (2, 4, 4, 2)),
    ((2, 3, 3, 3), (2, 0, 4, 2)),
    ((1, 1, 5), (1, 0, 1)),
    ((1, 2, 0, 3), (1, 0, 2, 2)),
])
def test_empty_outputs(xshape, gshape, queue):
    X = np.zeros(xshape, np.float32)
    grid = np.zeros(gshape, np.float32)
    y = warpkit.grid_sample(X, grid, queue=queue)
    assert y.shape == (xshape[0], xshape[1], *gshape[1:-1]) and y.dtype == np.float32
    yd = warpkit.grid_sample(cla.to_device(queue, X), cla.to_device(queue, grid))
    assert isinstance(yd, cla.Array) and yd.shape == y.shape


def test_empty_spatial_axis_with_nonempty_output_rejected(queue):
    with pytest.raises(ValueError, match=r"spatial dimensions must be >= 1 to sample from"):
        warpkit.grid_sample(np.zeros((1, 1, 0, 3), np.float32), np.zeros((1, 2, 2, 2), np.float32),
                            queue=queue)


# ---- memory layouts and array kinds ---------------------------------------------------------

def test_non_contiguous_numpy(queue):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((2, 6, 9, 8)).astype(np.float32)
    X = base[:, ::2, 1:8, ::-1]
    gbase = rng.uniform(-1, 1, (2, 2, 5, 4)).astype(np.float32)
    grid = np.moveaxis(gbase, 1, -1)  # (2, 5, 4, 2), last axis strided
    assert not X.flags.c_contiguous and not grid.flags.c_contiguous
    for mode in MODES:
        y = warpkit.grid_sample(X, grid, mode, "reflection", queue=queue)
        y_ref = warpkit.grid_sample(np.ascontiguousarray(X), np.ascontiguousarray(grid), mode,
                                    "reflection", queue=queue)
        np.testing.assert_array_equal(y, y_ref)
        assert_close(y, reference_grid_sample(np.ascontiguousarray(X), np.ascontiguousarray(grid),
                                              mode, "reflection", 0), mode)


@pytest.mark.parametrize("dtype", ["f4", "f8", "i2", "u2"])
def test_non_native_byte_order(dtype, queue):
    """Big-endian arrays (on x86) are read as their values; the result is X's dtype in native order."""
    rng = np.random.default_rng(31)
    X = (rng.standard_normal((2, 3, 7, 9)) * 50).astype(dtype)
    grid = rng.uniform(-1.1, 1.1, (2, 4, 5, 2)).astype(np.float32)
    Xf, gf = foreign_byte_order(X), foreign_byte_order(grid)
    assert not Xf.dtype.isnative and not gf.dtype.isnative
    if refused_without_fp64(queue, [X.dtype], lambda: warpkit.grid_sample(Xf, gf, queue=queue)):
        return
    for mode in MODES:
        y = warpkit.grid_sample(Xf, gf, mode, "border", queue=queue)
        assert y.dtype == X.dtype and y.dtype.isnative
        np.testing.assert_array_equal(y, warpkit.grid_sample(X, grid, mode, "border", queue=queue))


def test_device_arrays_stay_on_device(small_queue):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((2, 3, 8, 10)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (2, 4, 6, 2)).astype(np.float32)
    Xd = cla.to_device(small_queue, X)
    gd = cla.to_device(small_queue, grid)
    y = warpkit.grid_sample(Xd, gd, "cubic", "border")
    assert isinstance(y, cla.Array) and y.queue == small_queue
    np.testing.assert_allclose(y.get(), warpkit.grid_sample(X, grid, "cubic", "border",
                                                            queue=small_queue), rtol=1e-6)
    # mixed: a host grid with a device X gives a device result
    y2 = warpkit.grid_sample(Xd, grid, "cubic", "border")
    assert isinstance(y2, cla.Array)
    np.testing.assert_array_equal(y2.get(), y.get())


def test_strided_device_arrays(queue):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((3, 4, 9, 12)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (3, 5, 7, 2)).astype(np.float32)
    Xd = cla.to_device(queue, X)[1:3, 1:3]
    gd = cla.to_device(queue, grid)[1:3]
    assert not Xd.flags.c_contiguous
    y = warpkit.grid_sample(Xd, gd, "linear", "zeros")
    ref = warpkit.grid_sample(np.ascontiguousarray(X[1:3, 1:3]), grid[1:3], "linear", "zeros",
                              queue=queue)
    np.testing.assert_array_equal(y.get(), ref)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("r", [2, 3])
def test_flipped_device_arrays(mode, r, queue):
    """Negative strides on X's outer spatial axes (a flipped device view, used in place)."""
    rng = np.random.default_rng([r, len(mode)])
    X = rng.standard_normal((2, 3, *([6] * (r - 1)), 17)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (2, *([5] * (r - 1)), 11, r)).astype(np.float32)
    flip = (slice(None), slice(None), *([slice(None, None, -1)] * (r - 1)))
    Xd = cla.to_device(queue, X)[flip]
    assert min(Xd.strides) < 0
    for pad in ("zeros", "border", "reflection"):
        y = warpkit.grid_sample(Xd, cla.to_device(queue, grid), mode, pad)
        ref = warpkit.grid_sample(np.ascontiguousarray(X[flip]), grid, mode, pad, queue=queue)
        np.testing.assert_allclose(y.get(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,pad,align", list(itertools.product(MODES, PADS, [0, 1])))
@pytest.mark.parametrize("r", [2, 3])
def test_block_shortcuts_match_general_path(mode, pad, align, r, queue):
    """Whole blocks of 8 positions take shortcuts (all taps inside X; clamped border blocks; zeros
    blocks with no tap inside): they must give the general path's results bit for bit. A NaN
    coordinate in the last lane of a block sends that block down the general path: the other
    seven lanes must not change. Blocks: inside, mixed (edges and beyond), far outside."""
    rng = np.random.default_rng([r, len(mode), len(pad), align])
    X = rng.standard_normal((2, 3, *([9] * (r - 1)), 20)).astype(np.float32)
    lead = (2, *([3] * (r - 1)))
    grid = np.concatenate([
        rng.uniform(-0.6, 0.6, (*lead, 8, r)),
        rng.uniform(-1.6, 1.6, (*lead, 8, r)),
        rng.uniform(1.5, 3, (*lead, 8, r)) * rng.choice([-1, 1], (*lead, 8, r)),
    ], axis=-2).astype(np.float32)
    grid[..., 8, :] = 1.0  # on the edge (align_corners) or half a pixel beyond it
    general = grid.copy()
    general[..., 7::8, 0] = np.nan
    kept = np.setdiff1d(np.arange(24), [7, 15, 23])
    for dtype in ([np.float32, np.uint8] if mode == "nearest" else [np.float32]):
        Xt = (X * 40 + 100).astype(dtype) if dtype == np.uint8 else X
        fast = warpkit.grid_sample(Xt, grid, mode, pad, bool(align), queue=queue)
        slow = warpkit.grid_sample(Xt, general, mode, pad, bool(align), queue=queue)
        np.testing.assert_array_equal(fast[..., kept], slow[..., kept])
        if dtype == np.float32:  # a NaN coordinate gives NaN, even where another axis is far out
            assert np.isnan(slow[..., 7::8]).all()
        assert_close(fast, reference_grid_sample(Xt, grid, mode, pad, align), mode)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_large_results_streamed_past_the_caches(mode, queue, monkeypatch, fresh_plans):
    """Linear and cubic results of STREAM_BYTES or more are written with non-temporal stores on
    CPU devices (and with ordinary stores where a row is not 32-byte aligned): the same values
    either way, on the host and on the device. (Nearest always writes plain stores.)"""
    from warpkit import _memory

    rng = np.random.default_rng(len(mode))
    X = rng.standard_normal((1, 2, 64, 64)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (1, 1024, 1027, 2)).astype(np.float32)  # rows of 1027: unaligned
    assert 2 * 1024 * 1027 * 4 >= _memory.STREAM_BYTES
    streamed = warpkit.grid_sample(X, grid, mode, queue=queue)
    on_device = warpkit.grid_sample(cla.to_device(queue, X), cla.to_device(queue, grid), mode).get()
    aligned = warpkit.grid_sample(X, np.ascontiguousarray(grid[:, :, :1024]), mode, queue=queue)
    monkeypatch.setattr(_memory, "STREAM_BYTES", 1 << 62)
    fresh_plans()
    plain = warpkit.grid_sample(X, grid, mode, queue=queue)
    np.testing.assert_array_equal(streamed, plain)
    np.testing.assert_array_equal(on_device, plain)
    np.testing.assert_array_equal(aligned, plain[..., :1024])


def test_inputs_not_mutated(queue):
    rng = np.random.default_rng(6)
    X = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    grid = rng.uniform(-2, 2, (1, 3, 3, 2)).astype(np.float32)
    X0, g0 = X.copy(), grid.copy()
    warpkit.grid_sample(X, grid, "cubic", "reflection", queue=queue)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(grid, g0)


def test_split_to_fit_max_allocation(queue, monkeypatch, fresh_plans):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((5, 2, 8, 8)).astype(np.float32)
    grid = rng.uniform(-1, 1, (5, 6, 6, 2)).astype(np.float32)
    full = warpkit.grid_sample(X, grid, queue=queue)
    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "max_alloc", X[0].nbytes * 2)  # two batch items per buffer
    fresh_plans()
    np.testing.assert_array_equal(warpkit.grid_sample(X, grid, queue=queue), full)
    monkeypatch.setattr(rt, "max_alloc", X[0].nbytes // 2)
    fresh_plans()
    with pytest.raises(ValueError, match=r"one batch item needs a \d+-byte buffer, more than the "
                                         r"device's maximum allocation"):
        warpkit.grid_sample(X, grid, queue=queue)


def test_float64_without_fp64_names_device(queue, monkeypatch, fresh_plans):
    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "fp64", False)
    with pytest.raises(TypeError, match=r"needs double precision, but device .* has no cl_khr_fp64"):
        warpkit.grid_sample(np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 1, 2), np.float32), queue=queue)
    with pytest.raises(TypeError, match=r"float32 X and float64 grid"):
        warpkit.grid_sample(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 1, 2)), queue=queue)
    # 32/64-bit integers fall back to float32 accumulation: still exact for small values
    Xi = np.arange(4, dtype=np.int32).reshape(1, 1, 2, 2)
    y = warpkit.grid_sample(Xi, np.zeros((1, 1, 1, 2), np.float32), align_corners=True, queue=queue)
    assert y.dtype == np.int32 and y.item() == 1


# ---- bad input ------------------------------------------------------------------------------

F32 = np.float32


@pytest.mark.parametrize("X,grid,kw,exc,match", [
    (np.zeros((2, 2), F32), np.zeros((2, 1, 2), F32), {}, ValueError, r"X must have rank >= 3"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 3), F32), {}, ValueError,
     r"grid must have shape \(N, D1_out, D2_out, 2\) for a 4-D X of shape \(1, 1, 4, 4\), got \(1, 3, 3, 3\)"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 2), F32), {}, ValueError, r"grid must have shape"),
    (np.zeros((2, 1, 4, 4), F32), np.zeros((3, 3, 3, 2), F32), {}, ValueError,
     r"grid's batch size must equal X's: X has N=2, grid has 3"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 2), F32), {"mode": "bilinearr"}, ValueError,
     r"mode must be one of 'nearest', 'linear', 'cubic' \(or 'bilinear', 'bicubic'\); got 'bilinearr'"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 2), F32), {"mode": "area"}, ValueError,
     r"mode must be one of 'nearest', 'linear', 'cubic' \(or 'bilinear', 'bicubic'\); got 'area'"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 2), F32), {"padding_mode": "mirror"}, ValueError,
     r"padding_mode must be one of 'zeros', 'border', 'reflection'; got 'mirror'"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 2), F32), {"align_corners": 2}, ValueError,
     r"align_corners must be a bool or 0/1, got 2"),
    (np.zeros((1, 1, 4, 4), F32), np.zeros((1, 3, 3, 2), F32), {"queue": "gpu"}, TypeError,
     r"queue must be a pyopencl.CommandQueue or None, got str"),
])
def test_bad_input(X, grid, kw, exc, match):
    with pytest.raises(exc, match=match):
        warpkit.grid_sample(X, grid, **kw)


def test_launch_plans_follow_layouts_not_data(queue, fresh_plans):
    """A call reuses the launch plan of an earlier call with the same layouts and options: new
    data gives new results, and any change of shape, strides, dtype, offset or option gets a plan
    of its own."""
    plans = sys.modules["warpkit.grid_sample"]._PLANS
    rng = np.random.default_rng(11)
    X = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    X2 = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (2, 5, 7, 2)).astype(np.float32)
    for data in (X, X2):  # one plan for both
        assert_close(warpkit.grid_sample(data, grid, queue=queue),
                     reference_grid_sample(data, grid, "linear", "zeros", 0), "linear")
    assert len(plans) == 1
    variants = [
        (np.asfortranarray(X2), grid, "linear", False),  # strides
        # dtype (float64 where the device has it)
        (X2.astype(np.float64 if device_fp64(queue) else np.float16), grid, "linear", False),
        (X2[:, :, :8], grid, "linear", False),  # shape
        (X2, grid, "nearest", False),  # mode
        (X2, grid, "linear", True),  # align_corners
    ]
    for i, (data, g, mode, align) in enumerate(variants):
        y = warpkit.grid_sample(data, g, mode, align_corners=align, queue=queue)
        assert y.dtype == data.dtype
        math_in = data.astype(np.float32) if data.dtype == np.float16 else data  # float32 math
        ref = reference_grid_sample(math_in, g, mode, "zeros", int(align)).astype(data.dtype)
        assert_close(y, ref, mode)
        assert len(plans) == 2 + i
    # device arrays: the offset into the buffer is part of the layout
    both = cla.to_device(queue, np.concatenate([X, X2]))
    for part, data in ((both[:2], X), (both[2:], X2)):
        assert_close(warpkit.grid_sample(part, cla.to_device(queue, grid)).get(),
                     reference_grid_sample(data, grid, "linear", "zeros", 0), "linear")


def test_bad_input_refused_on_every_call(queue, fresh_plans):
    """A refused call leaves no plan behind that a repeat could slip through."""
    plans = sys.modules["warpkit.grid_sample"]._PLANS
    X = np.zeros((2, 1, 4, 4), np.float32)
    grid = np.zeros((3, 2, 2, 2), np.float32)
    for _ in range(2):
        with pytest.raises(ValueError, match="grid's batch size must equal X's"):
            warpkit.grid_sample(X, grid, queue=queue)
    assert len(plans) == 0
