"""Oracles nobody here wrote: the ONNX reference implementation and ONNX Runtime.

The reference is used through ``onnx.reference.ReferenceEvaluator`` with the documented
deviations of docs/semantics.md applied by a subclass (each marked **[decision]** there):

- float64 X or grid: coordinates kept in float64 (the reference stores them in float32);
- cubic + border: no clamp of the coordinate before the taps (ORT and PyTorch; each tap is clamped);
- reflection on a size-1 axis with align_corners (range 0): the pixel (the reference divides by 0).

Everything else runs the reference's own code.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.ops.op_grid_sample import GridSample as _RefGridSample

BF16 = np.dtype(ml_dtypes.bfloat16)

_ONNX_TYPES = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    BF16: TensorProto.BFLOAT16,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.uint16): TensorProto.UINT16,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.uint32): TensorProto.UINT32,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.uint64): TensorProto.UINT64,
    np.dtype(np.bool_): TensorProto.BOOL,
}


class GridSample(_RefGridSample):
    """The ONNX reference GridSample with docs/semantics.md's documented deviations."""

    _wide_weights = False  # float32 coordinates, float64 weights (32/64-bit integer X)

    def _gs_denormalize_coordinates(self, n, dims, align_corners):
        if self._wide_weights:
            return super()._gs_denormalize_coordinates(n, dims, align_corners).astype(np.float64)
        if self._f64:
            return np.array(
                [self._gs_denormalize(n=np.float64(v), length=d, align_corners=align_corners)
                 for v, d in zip(n, dims)],
                dtype=np.float64,
            )
        return super()._gs_denormalize_coordinates(n, dims, align_corners)

    def _clamp(self, val, lo, hi):
        # the coordinate pre-pass passes floats; the tap padding passes ints
        if self._cubic and isinstance(val, (float, np.floating)):
            return val
        return super()._clamp(val, lo, hi)

    def _gs_reflect(self, x, x_min, x_max):
        if x_max - x_min == 0:
            return x_min
        return super()._gs_reflect(x, x_min, x_max)

    def _run(self, X, grid, mode=None, padding_mode=None, align_corners=None):
        m = mode or self.mode
        self._cubic = m in ("cubic", "bicubic")
        self._f64 = X.dtype == np.float64 or grid.dtype == np.float64
        return super()._run(X, grid, mode=mode, padding_mode=padding_mode,
                            align_corners=align_corners)


def _model(op: str, inputs, attrs: dict, opset: int, domain: str = "") -> onnx.ModelProto:
    node = helper.make_node(op, [n for n, _ in inputs], ["Y"], domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, _ONNX_TYPES[np.dtype(a.dtype)], a.shape) for n, a in inputs],
        [helper.make_tensor_value_info("Y", _ONNX_TYPES[np.dtype(inputs[0][1].dtype)], None)],
    )
    imports = [helper.make_opsetid("", opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


GridSampleWide = type("GridSample", (GridSample,), {"_wide_weights": True})


def reference_grid_sample(X, grid, mode="linear", padding_mode="zeros", align_corners=0,
                          wide_weights=False):
    """ONNX reference GridSample (opset 22 semantics) with the documented deviations.

    ``wide_weights``: coordinates denormalized in float32 as the rule says, then weights and sums in
    float64 (what warpkit does for 32/64-bit integer X on an fp64 device).
    """
    m = _model("GridSample", [("X", X), ("grid", grid)],
               dict(mode=mode, padding_mode=padding_mode, align_corners=int(align_corners)), 22)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(m, new_ops=[GridSampleWide if wide_weights else GridSample]).run(None, {"X": X, "grid": grid})[0]


@lru_cache(maxsize=None)
def _ort_session(blob: bytes):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.log_severity_level = 3
    return ort.InferenceSession(blob, so, providers=["CPUExecutionProvider"])


def ort_run(op: str, inputs: list, attrs: dict, opset: int, domain: str = ""):
    """Run one node on ONNX Runtime's CPU provider."""
    m = _model(op, inputs, attrs, opset, domain)
    sess = _ort_session(m.SerializeToString())
    return sess.run(None, {n: a for n, a in inputs})[0]


def ort_grid_sample(X, grid, mode="linear", padding_mode="zeros", align_corners=0, opset=20):
    return ort_run("GridSample", [("X", X), ("grid", grid)],
                   dict(mode=mode, padding_mode=padding_mode, align_corners=int(align_corners)),
                   opset)


def onnx_cast(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """docs/semantics.md's float -> integer/bool cast: truncate, saturate, NaN -> 0; bool: nonzero."""
    dtype = np.dtype(dtype)
    y = np.asarray(y, np.float64)
    if dtype == np.bool_:
        return (y != 0) & ~np.isnan(y)
    info = np.iinfo(dtype)
    t = np.trunc(np.nan_to_num(y, nan=0.0))
    # the limits as scalars of the dtype: numpy >= 2.5 refuses a Python int past int64 in np.where
    lo, hi, zero = dtype.type(info.min), dtype.type(info.max), dtype.type(0)
    res = np.where(t <= info.min, lo, np.where(t >= float(info.max), hi, zero))
    inside = (t > info.min) & (t < float(info.max))
    res[inside] = t[inside].astype(dtype)
    return res


def _run_reference(model, feeds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, feeds)[0]


def reference_affine_grid(theta, size, align_corners=0):
    """ONNX reference AffineGrid (it computes in float64 and returns float32)."""
    size = np.asarray(size, np.int64)
    node = helper.make_node("AffineGrid", ["theta", "size"], ["Y"], align_corners=int(align_corners))
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("theta", _ONNX_TYPES[np.dtype(theta.dtype)], theta.shape),
         helper.make_tensor_value_info("size", TensorProto.INT64, size.shape)],
        [helper.make_tensor_value_info("Y", _ONNX_TYPES[np.dtype(theta.dtype)], None)],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10)
    return _run_reference(m, {"theta": theta, "size": size})


def ort_affine_grid(theta, size, align_corners=0):
    size = np.asarray(size, np.int64)
    return ort_run("AffineGrid", [("theta", theta), ("size", size)],
                   dict(align_corners=int(align_corners)), 20)


def _roi_model(X, rois, bidx, attrs, opset):
    node = helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], **attrs)
    t = _ONNX_TYPES[np.dtype(X.dtype)]
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("X", t, X.shape),
         helper.make_tensor_value_info("rois", t, rois.shape),
         helper.make_tensor_value_info("batch_indices", TensorProto.INT64, bidx.shape)],
        [helper.make_tensor_value_info("Y", t, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def reference_roi_align(X, rois, bidx, **attrs):
    """ONNX reference RoiAlign at opset 16 (attributes passed explicitly)."""
    m = _roi_model(X, rois, np.asarray(bidx, np.int64), attrs, 16)
    return _run_reference(m, {"X": X, "rois": rois, "batch_indices": np.asarray(bidx, np.int64)})


def ort_roi_align(X, rois, bidx, opset=16, **attrs):
    m = _roi_model(X, rois, np.asarray(bidx, np.int64), attrs, opset)
    sess = _ort_session(m.SerializeToString())
    return sess.run(None, {"X": X, "rois": rois, "batch_indices": np.asarray(bidx, np.int64)})[0]


@lru_cache(maxsize=None)
def _all_backend_cases():
    # collect_testcases() keeps the first list it builds, whatever op_type that call asked for:
    # build the whole list once and filter by name
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(collect_testcases())


def backend_cases(prefix: str, expanded: bool = False):
    """The ONNX backend node cases whose name starts with ``prefix``."""
    return [c for c in _all_backend_cases()
            if c.name.startswith(prefix) and (expanded or "_expanded" not in c.name)]
