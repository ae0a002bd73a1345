"""ONNX RoiAlign (opsets 10, 16, 22): average or max pooling of bilinear samples in boxes."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pyopencl as cl

from . import _dtypes
from ._checks import choice, count
from ._onnx_ops import OnnxNode, onnx_op
from ._memory import Operand, check_allocation, device_layout, operand, pick_runtime, round_up
from ._memory import wants_device_result
from ._op import Arg, Launch, Plan, Scratch, Variant
from .runtime import PlanCache, Runtime

__all__ = ["roi_align"]

_MODES = {"avg": 0, "max": 1}
_CTM = {"half_pixel": 1, "output_half_pixel": 0}
_MAX_METHODS = {"onnx": 1, "interpolate": 2}
_CB = 8  # channels per work-item (per vector in the channels-last path)
_MAX_SAMPLES = 1 << 20  # per bin, adaptive or explicit (2^16 per axis ran for minutes)
_MAX_BINS = (1 << 31) - 1  # per box: bin indices are ints in the kernel


def _channel_vectors(rt) -> int:
    """Channel vectors (of _CB) per work-item in the channels-last path. On a CPU one sample's
    geometry then serves 64 channels; a GPU does better with more, lighter work-items (measured
    on an H100: docs/performance.md)."""
    return 8 if rt.cpu_like else 1



def roi_align(
    X: Any,
    rois: Any,
    batch_indices: Any,
    mode: Literal["avg", "max"] = "avg",
    output_height: int = 1,
    output_width: int = 1,
    sampling_ratio: int = 0,
    spatial_scale: float = 1.0,
    coordinate_transformation_mode: Literal["half_pixel", "output_half_pixel"] = "half_pixel",
    max_method: Literal["onnx", "interpolate"] = "onnx",
    queue: cl.CommandQueue | None = None,
) -> Any:
    """Pool each ROI of ``X`` into ``output_height x output_width`` bins (ONNX RoiAlign).

    Args:
        X: ``(N, C, H, W)``, float16, bfloat16, float32 or float64.
        rois: ``(R, 4)`` boxes ``[x1, y1, x2, y2]`` in X's pixel coordinates times
            ``1 / spatial_scale``, X's dtype (other float dtypes are converted).
        batch_indices: ``(R,)`` integers in ``[0, N)``: the image of each box.
        mode: ``"avg"`` or ``"max"``.
        output_height, output_width: the bins per box (>= 1).
        sampling_ratio: samples per bin and axis; 0: ``ceil(box size / bins)`` (adaptive).
        spatial_scale: factor from ROI coordinates to X's pixels.
        coordinate_transformation_mode: ``"half_pixel"`` (opset 16+ default: shift by -0.5) or
            ``"output_half_pixel"`` (opset 10: no shift; boxes at least 1 pixel).
        max_method: for ``mode="max"``: ``"onnx"`` takes per sample the largest *weighted corner*
            (what the ONNX reference, ONNX Runtime and the ONNX backend test do);
            ``"interpolate"`` takes per sample the bilinear value, as torchvision-style max pooling
            would.
        queue: the ``pyopencl.CommandQueue`` to run on.

    Returns:
        ``(R, C, output_height, output_width)`` of X's dtype (numpy, or a device array when an
        input was one).

    Conventions:
        Pixel centres sit at integer coordinates after the half-pixel shift; a sample at
        ``y < -1``, ``y > H``, ``x < -1`` or ``x > W`` contributes 0 and still counts. A reversed
        box (x2 < x1) with half_pixel samples mirrored. All geometry is float32 (float64 for
        float64 X) in the order docs/semantics.md gives.

    Example:
        >>> X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> warpkit.roi_align(X, np.array([[0, 0, 4, 4]], np.float32), np.array([0]),
        ...                   output_height=2, output_width=2)           # doctest: +SKIP
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    xo, ro, bo = operand(X, "X"), operand(rois, "rois"), operand(batch_indices, "batch_indices")
    mode_id = choice(mode, _MODES, "mode")
    half = choice(coordinate_transformation_mode, _CTM, "coordinate_transformation_mode")
    if mode_id == 1:
        mode_id = choice(max_method, _MAX_METHODS, "max_method")
    oh = count(output_height, "output_height", 1)
    ow = count(output_width, "output_width", 1)
    sr = count(sampling_ratio, "sampling_ratio", 0)
    if sr * sr > _MAX_SAMPLES:  # the adaptive count has the same limit (_check_sample_counts)
        raise ValueError(f"sampling_ratio must be at most {math.isqrt(_MAX_SAMPLES)} "
                         f"({_MAX_SAMPLES} samples per bin), got {sr}")
    if oh * ow > _MAX_BINS:
        raise ValueError(f"output_height * output_width must be at most {_MAX_BINS} bins per "
                         f"box, got {oh} * {ow}")
    try:
        scale = float(spatial_scale)
    except (TypeError, ValueError):
        raise ValueError(f"spatial_scale must be a number, got {spatial_scale!r}") from None
    if not math.isfinite(scale):
        raise ValueError(f"spatial_scale must be finite, got {spatial_scale!r}")

    x_dtype, r_dtype, b_dtype = xo.dtype, ro.dtype, bo.dtype
    x_shape, r_shape, b_shape = xo.shape, ro.shape, bo.shape
    st = _dtypes.coord_type(x_dtype, "X")
    if len(x_shape) != 4:
        raise ValueError(f"X must have shape (N, C, H, W), got {x_shape}")
    if len(r_shape) != 2 or r_shape[1] != 4:
        raise ValueError(f"rois must have shape (R, 4), got {r_shape}")
    if len(b_shape) != 1 or b_shape[0] != r_shape[0]:
        raise ValueError(
            f"batch_indices must have shape (R,) = ({r_shape[0]},) to match rois, got {b_shape}"
        )
    if b_dtype.kind not in "iu":
        raise TypeError(f"batch_indices must be integers, got {b_dtype}")
    if r_dtype != x_dtype:
        _dtypes.coord_type(r_dtype, "rois")
    N, C, H, W = x_shape
    R = r_shape[0]

    rt = pick_runtime(queue, xo, ro, bo)
    f64 = st.kind == "WK_F64"
    if f64:
        rt.require_fp64("RoiAlign with float64 X")

    if ro.dev is not None and bo.dev is not None and r_dtype == x_dtype:
        # boxes and indices on the device are not read back (the call would wait for them):
        # the kernel refuses what the host would, as NaN bins (docs/guide.md, RoiAlign)
        return _run(rt, xo, ro, bo, mode_id, half, oh, ow, sr, scale, True)
    # rois and batch indices are small: check them on the host (a device copy is read back)
    rh = ro.host if ro.host is not None else ro.dev.get()
    bh = bo.host if bo.host is not None else bo.dev.get()
    rh = np.asarray(rh, dtype=xo.dtype)
    if R and not np.isfinite(rh.astype(np.float64)).all():
        bad = int(np.argwhere(~np.isfinite(rh.astype(np.float64)).all(axis=1))[0, 0])
        raise ValueError(f"rois must be finite; roi {bad} is {rh[bad].tolist()}")
    if R and (bh.min() < 0 or bh.max() >= N):
        bad = int(np.argwhere((bh < 0) | (bh >= N))[0, 0])
        raise ValueError(f"batch_indices must be in [0, N) = [0, {N}); index {bad} is {int(bh[bad])}")
    if R and sr == 0:
        _check_sample_counts(rh, scale, half, oh, ow, np.float64 if f64 else np.float32)

    # the boxes and indices as checked on the host (device rois of X's dtype stay there)
    rop = ro if ro.dev is not None and ro.dtype == xo.dtype else operand(rh, "rois")
    bop = operand(np.ascontiguousarray(bh, dtype=np.int64), "batch_indices")
    return _run(rt, xo, rop, bop, mode_id, half, oh, ow, sr, scale,
                wants_device_result(xo, ro, bo))


def _run(rt: Runtime, xo: Operand, rop: Operand, bop: Operand, mode_id: int, half: int, oh: int,
         ow: int, sr: int, scale: float, on_device: bool) -> Any:
    key = (rt, xo.layout, rop.layout, bop.layout, on_device, mode_id, half, oh, ow, sr, scale)
    plan = _PLANS.get(key, lambda: _plan(rt, xo, rop, bop, on_device, mode_id, half, oh, ow, sr,
                                         scale))
    return plan.run({"X": xo, "rois": rop, "batch_indices": bop})


_PLANS = PlanCache()

#: OpenCL C types of batch indices, by numpy dtype
_INDEX_TYPES = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
                "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong"}


def _plan(rt: Runtime, xo: Operand, rop: Operand, bop: Operand, on_device: bool, mode_id: int,
          half: int, oh: int, ow: int, sr: int, scale: float) -> Plan:
    N, C, H, W = xo.shape
    R = rop.shape[0]
    st = _dtypes.coord_type(xo.dtype, "X")
    f64 = st.kind == "WK_F64"
    # every size is checked before anything is allocated
    out_shape = (R, C, oh, ow)
    check_allocation(rt, math.prod(out_shape) * xo.dtype.itemsize,
                     f"the {'x'.join(map(str, out_shape))} {xo.dtype} output",
                     "pool fewer boxes or bins per call")
    if R and C and (N == 0 or H == 0 or W == 0):
        raise ValueError(f"X must have N, H and W >= 1 to pool from, got shape {xo.shape}")
    if R == 0 or C == 0:
        return Plan(rt, out_shape, xo.dtype, on_device)
    check_allocation(rt, xo.nbytes, "X")
    x_off, xs = device_layout(xo)
    r_off, rs = device_layout(rop)
    b_off, bs = device_layout(bop)
    cg = _channel_vectors(rt)
    defines = {**st.defines("X"), "COORD_DOUBLE": int(f64), "ACC_DOUBLE": int(f64), "CB": _CB,
               "CG": cg, "WK_CPU": int(rt.kind == "CPU"), "RA_MAX_SAMPLES": _MAX_SAMPLES,
               "BI_T": _INDEX_TYPES[np.dtype(bop.dtype).name]}
    ct = np.float64 if f64 else np.float32
    geometry = (Arg("rois"), np.int64(r_off), np.int64(rs[0]), np.int64(rs[1]),
                Arg("batch_indices"), np.int64(b_off), np.int64(bs[0]), Arg("Y"), np.int64(0),
                np.int32(oh), np.int32(ow), np.int32(sr), ct(scale), np.int32(half),
                np.int32(mode_id))
    x_args = (Arg("X"), np.int64(x_off), *(np.int64(v) for v in xs))
    bins = oh * ow
    lx = bins if bins <= 256 else 64
    c8 = -(-C // _CB) * _CB
    t_bytes = N * H * W * c8 * xo.dtype.itemsize  # X transposed to channels last, padded to c8
    # (not for float64: PoCL 3.0 cannot reload double8 programs from its cache)
    if C >= _CB and not f64 and t_bytes <= rt.max_alloc:
        # channels last: one pass over X makes every corner read CB consecutive channels; the
        # padding channels are read (and ignored): zeros, not garbage
        tmp = Scratch("channels_last", t_bytes, zero=c8 != C)
        transpose = Launch(Variant.of("roi_align.cl", "to_channels_last", **defines),
                           (*x_args, np.int32(C), np.int32(c8), Arg(tmp.name)), (W, H, N * C),
                           None)
        pool = Launch(Variant.of("roi_align.cl", "roi_align_cl", **defines),
                      (Arg(tmp.name), np.int32(N), np.int32(C), np.int32(c8), np.int32(H),
                       np.int32(W), *geometry),
                      (round_up(bins, lx), -(-C // (_CB * cg)), R), (lx, 1, 1))
        return Plan(rt, out_shape, xo.dtype, on_device, (transpose, pool), (tmp,))
    pool = Launch(Variant.of("roi_align.cl", "roi_align", **defines),
                  (*x_args, np.int32(N), np.int32(C), np.int32(H), np.int32(W), *geometry),
                  (round_up(bins, lx), -(-C // _CB), R), (lx, 1, 1))
    return Plan(rt, out_shape, xo.dtype, on_device, (pool,))


@onnx_op("RoiAlign", (10, 16, 22),
         defaults="opset 10 has no coordinate_transformation_mode and behaves as "
                  "`output_half_pixel`; 16+: `half_pixel`")
def _onnx(node: OnnxNode, inputs: list, version: int, domain: str) -> list:
    allowed = {"mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"}
    if version >= 16:
        allowed.add("coordinate_transformation_mode")
    node.only(allowed)
    a = node.attrs
    X, rois, batch_indices = inputs
    return [roi_align(X, rois, batch_indices, mode=node.text("mode", "avg"),
                      output_height=int(a.get("output_height", 1)),
                      output_width=int(a.get("output_width", 1)),
                      sampling_ratio=int(a.get("sampling_ratio", 0)),
                      spatial_scale=float(a.get("spatial_scale", 1.0)),
                      coordinate_transformation_mode=node.text(
                          "coordinate_transformation_mode",
                          "half_pixel" if version >= 16 else "output_half_pixel"))]


def _check_sample_counts(rois: np.ndarray, scale: float, half: int, oh: int, ow: int, ct) -> None:
    """Adaptive sampling takes ceil(box / bins) samples per axis: refuse absurd counts clearly."""
    r = rois.astype(ct)
    off = ct(0.5) if half else ct(0)
    w = (r[:, 2] * ct(scale) - off) - (r[:, 0] * ct(scale) - off)
    h = (r[:, 3] * ct(scale) - off) - (r[:, 1] * ct(scale) - off)
    gh = np.ceil(np.maximum(h, 1) / ct(oh)) if not half else np.ceil(h / ct(oh))
    gw = np.ceil(np.maximum(w, 1) / ct(ow)) if not half else np.ceil(w / ct(ow))
    n = np.where((gh > 0) & (gw > 0), gh.astype(np.float64) * gw, 0)
    if (n > _MAX_SAMPLES).any():
        bad = int(np.argmax(n))
        raise ValueError(
            f"roi {bad} ({rois[bad].tolist()}) needs {int(n[bad])} samples per bin with adaptive "
            f"sampling (sampling_ratio=0); pass a sampling_ratio >= 1 or a smaller box"
        )
