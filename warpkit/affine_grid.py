"""ONNX AffineGrid (opset 20): sampling grids for grid_sample from batches of affine matrices."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyopencl as cl

from . import _dtypes
from ._checks import check_align
from ._onnx_ops import OnnxNode, onnx_op
from ._memory import check_allocation, device_layout, operand, pick_runtime, round_up, row_group
from ._memory import wants_device_result
from ._op import Arg, Launch, Plan, Variant
from .runtime import PlanCache, Runtime

__all__ = ["affine_grid"]


def _check_size(size: Any) -> tuple[int, ...]:
    if type(size) in (tuple, list) and len(size) in (4, 5) and \
            all(type(v) is int and v >= 0 for v in size):
        return tuple(size)  # the common case, without numpy's per-call overhead
    try:
        arr = np.asarray(size)
    except Exception:
        arr = None
    if arr is None or arr.ndim != 1 or arr.dtype.kind not in "iu" or len(arr) not in (4, 5):
        raise ValueError(
            "size must be 4 integers (N, C, H, W) or 5 (N, C, D, H, W), got "
            f"{size!r}"
        )
    if (arr < 0).any():
        raise ValueError(f"size must be >= 0 everywhere, got {tuple(int(v) for v in arr)}")
    return tuple(int(v) for v in arr)


def affine_grid(
    theta: Any,
    size: Any,
    align_corners: bool | int = False,
    queue: cl.CommandQueue | None = None,
) -> Any:
    """The normalized sampling grid of affine maps ``theta`` (ONNX AffineGrid, opset 20).

    Args:
        theta: ``(N, 2, 3)`` for 2-D or ``(N, 3, 4)`` for 3-D, float16, bfloat16, float32 or
            float64. Each matrix maps an *output* position to the *input* position to sample
            (both normalized to [-1, 1]): ``grid = theta @ (x, y, [z,] 1)``.
        size: ``(N, C, H, W)`` or ``(N, C, D, H, W)``, the size of the output image(s).
        align_corners: True: -1 and 1 are the centres of the corner pixels; False: their edges.
        queue: the ``pyopencl.CommandQueue`` to run on (default: theta's, else the default).

    Returns:
        ``(N, H, W, 2)`` or ``(N, D, H, W, 3)`` of theta's dtype, coordinates innermost first
        (x, y, [z]) as :func:`warpkit.grid_sample` takes them; numpy for a numpy theta, else a
        ``pyopencl.array.Array``.

    Conventions:
        The base coordinate of index ``i`` on an axis of size ``d`` is ``-1 + (2i + 1) / d``
        (align_corners=False) or ``-1 + 2i / (d - 1)`` (True; ``-1`` when ``d == 1``), computed in
        float32 (float64 for float64 theta).

    Example:
        >>> theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)      # identity
        >>> warpkit.affine_grid(theta, (1, 3, 2, 2))[0, :, :, 0]         # doctest: +SKIP
        array([[-0.5,  0.5],
               [-0.5,  0.5]], dtype=float32)
    """
    to = operand(theta, "theta")
    _dtypes.coord_type(to.dtype, "theta")
    dims = _check_size(size)
    align = check_align(align_corners)
    r = len(dims) - 2
    if to.shape != (dims[0], r, r + 1):
        want = "(N, 2, 3)" if r == 2 else "(N, 3, 4)"
        raise ValueError(
            f"theta must have shape {want} = {(dims[0], r, r + 1)} for a size of length "
            f"{len(dims)} ({dims}), got {to.shape}"
        )
    rt = pick_runtime(queue, to)
    plan = _PLANS.get((rt, to.layout, dims, align), lambda: _plan(rt, to, dims, align))
    return plan.run({"theta": to})


_PLANS = PlanCache()


def _plan(rt: Runtime, to, dims: tuple[int, ...], align: int) -> Plan:
    st = _dtypes.coord_type(to.dtype, "theta")
    f64 = st.kind == "WK_F64"
    if f64:
        rt.require_fp64("AffineGrid with float64 theta")
    r = len(dims) - 2
    spatial = dims[2:]
    out_shape = (dims[0], *spatial, r)
    nbytes = math.prod(out_shape) * to.dtype.itemsize
    check_allocation(rt, nbytes, "the grid")
    on_device = wants_device_result(to)
    if nbytes == 0:
        return Plan(rt, out_shape, to.dtype, on_device)
    t_off, t_strides = device_layout(to)
    D, H, W = (1, *spatial) if r == 2 else spatial
    variant = Variant.of("affine_grid.cl", "affine_grid", R=r, G_KIND=st.kind,
                         COORD_DOUBLE=int(f64), WK_CPU=int(rt.kind == "CPU"))
    blocks = -(-W // 8)
    lx = row_group(blocks)
    args = (Arg("theta"), np.int64(t_off), *(np.int64(s) for s in t_strides), Arg("Y"),
            np.int32(D), np.int32(H), np.int32(W), np.int32(align))
    return Plan(rt, out_shape, to.dtype, on_device,
                (Launch(variant, args, (round_up(blocks, lx), D * H, dims[0]), (lx, 1, 1)),))



@onnx_op("AffineGrid", (20,))
def _onnx(node: OnnxNode, inputs: list, version: int, domain: str) -> list:
    node.only({"align_corners"})
    theta, size = inputs
    size = size.get() if hasattr(size, "get") else np.asarray(size)
    return [affine_grid(theta, size.astype(np.int64),
                        align_corners=int(node.attrs.get("align_corners", 0)))]
