"""ONNX GridSample (opsets 16, 20, 22 and com.microsoft GridSample 1) for any spatial rank."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pyopencl as cl

from . import _dtypes
from ._checks import check_align, choice
from ._onnx_ops import OnnxNode, onnx_op
from ._options import GRID_PADDINGS, INTERPOLATION_ALIASES, INTERPOLATIONS
from ._memory import Operand, check_allocation, device_layout, meta_buffer, operand
from ._memory import pick_runtime, round_up, row_group, streaming_output, wants_device_result
from ._op import Arg, Launch, Plan, Variant
from .runtime import PlanCache, Runtime, vec4

__all__ = ["grid_sample", "MODES", "PADDINGS"]

#: mode names (ONNX opset 20 spelling; opset 16's bilinear and bicubic are aliases) and paddings:
#: ONNX's three (the warps' area filter is not a GridSample mode)
MODES = {k: v for k, v in INTERPOLATIONS.items() if k != "area"}
PADDINGS = GRID_PADDINGS

Mode = Literal["linear", "bilinear", "nearest", "cubic", "bicubic"]
Padding = Literal["zeros", "border", "reflection"]

_LOCAL = 64  # work-group size (docs/performance.md, "Work sizes")
_PIX = {0: 8, 1: 4, 2: 2}  # output positions per work-item of the general kernel on CPUs, by mode



def grid_sample(
    X: Any,
    grid: Any,
    mode: Mode = "linear",
    padding_mode: Padding = "zeros",
    align_corners: bool | int = False,
    queue: cl.CommandQueue | None = None,
) -> Any:
    """Sample ``X`` at the normalized positions in ``grid`` (ONNX GridSample, any spatial rank).

    Args:
        X: ``(N, C, D1, ..., Dr)`` array, ``r >= 1``; every numeric dtype (float16, bfloat16,
            float32, float64, int8-64, uint8-64, bool).
        grid: ``(N, D1_out, ..., Dr_out, r)`` normalized coordinates, float16, bfloat16, float32
            or float64; ``grid[..., 0]`` indexes the last axis of X (W), ``grid[..., 1]`` the one
            before it (H), and so on.
        mode: ``"linear"`` (N-linear; ``"bilinear"`` is accepted), ``"nearest"`` (ties round to
            even), ``"cubic"`` (N-cubic, Keys A=-0.75; ``"bicubic"`` is accepted).
        padding_mode: ``"zeros"``, ``"border"`` or ``"reflection"``.
        align_corners: True: -1 and 1 are the centres of the corner pixels; False: their outer
            edges.
        queue: the ``pyopencl.CommandQueue`` to run on; default: the queue of a pyopencl array
            input, else warpkit's default device.

    Returns:
        ``Y`` of shape ``(N, C, D1_out, ..., Dr_out)`` and X's dtype: numpy when X and grid are on
        the host, else a ``pyopencl.array.Array`` on the device.

    Conventions:
        Pixel centres sit at integer indices. With ``align_corners=False`` a normalized ``n``
        maps to ``x = ((n + 1) * d - 1) / 2``, with True to ``x = (n + 1) / 2 * (d - 1)``.
        Integer and bool outputs are computed in floating point and cast as ONNX Cast does
        (truncate toward zero, saturate, NaN -> 0; bool: nonzero -> True). A NaN coordinate gives
        NaN (0 for integers); infinities act as far-away points under zeros/border padding and
        as NaN under reflection. The full rules are in docs/semantics.md.

    Example:
        >>> import numpy as np, warpkit
        >>> X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> grid = np.zeros((1, 1, 1, 2), np.float32)          # the image centre
        >>> warpkit.grid_sample(X, grid, align_corners=True)   # doctest: +SKIP
        array([[[[7.5]]]], dtype=float32)
    """
    xo, go = operand(X, "X"), operand(grid, "grid")
    mode_id = choice(mode, MODES, "mode", INTERPOLATION_ALIASES)
    pad_id = choice(padding_mode, PADDINGS, "padding_mode")
    align = check_align(align_corners)
    rt = pick_runtime(queue, xo, go)
    plan = _PLANS.get((rt, xo.layout, go.layout, mode_id, pad_id, align),
                      lambda: _plan(rt, xo, go, mode_id, pad_id, align))
    return plan.run({"X": xo, "grid": go})


_PLANS = PlanCache()


@onnx_op("GridSample", (16, 20, 22), defaults="mode: `bilinear` (16), `linear` (20+)")
@onnx_op("GridSample", (1,), domain="com.microsoft", defaults="mode: `bilinear`")
def _onnx(node: OnnxNode, inputs: list, version: int, domain: str) -> list:
    node.only({"mode", "padding_mode", "align_corners"})
    default_mode = "linear" if domain == "" and version >= 20 else "bilinear"
    X, grid = inputs
    return [grid_sample(X, grid, mode=node.text("mode", default_mode),
                        padding_mode=node.text("padding_mode", "zeros"),
                        align_corners=int(node.attrs.get("align_corners", 0)))]


def _plan(rt: Runtime, xo: Operand, go: Operand, mode_id: int, pad_id: int, align: int) -> Plan:
    """Check a call's layouts and options (before anything is launched) and plan its launches."""
    xt = _dtypes.value_type(xo.dtype, "X")
    gt = _dtypes.coord_type(go.dtype, "grid")

    if xo.ndim < 3:
        raise ValueError(f"X must have rank >= 3 (N, C, D1, ...), got shape {xo.shape}")
    r = xo.ndim - 2
    if go.ndim != xo.ndim or go.shape[-1] != r:
        want = "(N, " + ", ".join(f"D{i + 1}_out" for i in range(r)) + f", {r})"
        raise ValueError(
            f"grid must have shape {want} for a {xo.ndim}-D X of shape {xo.shape}, got {go.shape}"
        )
    if go.shape[0] != xo.shape[0]:
        raise ValueError(
            f"grid's batch size must equal X's: X has N={xo.shape[0]}, grid has {go.shape[0]}"
        )
    N, C = xo.shape[:2]
    in_dims = xo.shape[2:]
    out_dims = go.shape[1:-1]
    out_shape = (N, C, *out_dims)

    coord_double = xt.kind == "WK_F64" or gt.kind == "WK_F64"
    if coord_double:
        rt.require_fp64(f"GridSample with {_dtypes.dtype_name(xo.dtype)} X and "
                        f"{_dtypes.dtype_name(go.dtype)} grid")
    acc_double = coord_double or (xt.wide and rt.fp64)

    on_device = wants_device_result(xo, go)
    out_sp = math.prod(out_dims)
    if out_sp == 0 or N == 0 or C == 0:
        return Plan(rt, out_shape, xo.dtype, on_device)
    if min(in_dims) == 0:
        raise ValueError(f"X's spatial dimensions must be >= 1 to sample from, got {in_dims}")
    if max(in_dims) >= 2**31 - 8:
        raise ValueError(f"X's spatial dimensions must be < 2**31, got {in_dims}")

    defines = {"R": r, "MODE": mode_id, "COORD_DOUBLE": int(coord_double),
               "ACC_DOUBLE": int(acc_double), **xt.defines("X"), "G_KIND": gt.kind}
    out_item = C * out_sp * xo.dtype.itemsize  # bytes of Y per batch item
    launches = []
    for n0, n1 in _batches(rt, xo, go, out_item, on_device, N):
        # device arrays are not split: they are indexed from n0
        x_off, xs = device_layout(xo, n1 - n0)
        g_off, gs = device_layout(go, n1 - n0)
        if xo.dev is not None:
            x_off += n0 * xs[0]
        if go.dev is not None:
            g_off += n0 * gs[0]
        y_off = n0 * C * out_sp if on_device else 0
        y_bytes = out_item * (N if on_device else n1 - n0)
        x_args = (Arg("X"), np.int64(x_off), np.int64(xs[0]), np.int64(xs[1]))
        plane_span = sum((d - 1) * abs(s) for d, s in zip(in_dims, xs[2:]))
        if _vector_kernel(rt, r, acc_double, plane_span, out_dims):
            launches.append(_vector_launch(rt, defines, x_args, in_dims, xs[2:], gs, g_off, y_off,
                                           y_bytes, C, out_dims, pad_id, align, n0, n1))
        else:
            pix = _PIX[mode_id] if rt.cpu_like else 1  # GPUs: see _vector_kernel
            meta = meta_buffer(rt, [*in_dims, *xs[2:], *out_dims, *gs[1:-1]])
            args = (*x_args, Arg("grid"), np.int64(g_off), np.int64(gs[0]), np.int64(gs[-1]),
                    Arg("Y"), np.int64(y_off), meta, np.int32(C), np.int64(out_sp),
                    np.int32(pad_id), np.int32(align))
            variant = Variant.of("grid_sample.cl", "grid_sample", **defines, PIX=pix)
            launches.append(Launch(variant, args, (round_up(-(-out_sp // pix), _LOCAL), n1 - n0),
                                   (_LOCAL, 1), (n0, n1)))
    return Plan(rt, out_shape, xo.dtype, on_device, tuple(launches))


def _vector_kernel(rt: Runtime, r: int, acc_double: bool, plane_span: int, out_dims) -> bool:
    """Whether grid_sample_v (8 outputs per work-item, float math, int offsets) takes a launch.

    Its explicit vectors are for CPU devices (Runtime.cpu_like), where PoCL does not vectorize
    across work-items.
    A GPU vectorizes across work-items itself: there the general kernel with one output per
    work-item ran faster in every case measured on an H100 (NVIDIA OpenCL; the figures are in
    docs/performance.md)."""
    return (rt.cpu_like and r <= 3 and not acc_double and plane_span < 2**31
            and max(out_dims) < 2**31 - 8)


def _vector_launch(rt, defines, x_args, in_dims, x_strides, g_strides, g_off, y_off, y_bytes, C,
                   out_dims, pad_id, align, n0, n1) -> Launch:
    """The 8-wide kernel for ranks 1-3 (kernels_cl/grid_sample.cl, grid_sample_v)."""
    r = len(in_dims)
    packed = int(g_strides[-1] == 1 and g_strides[-2] == r)
    variant = Variant.of("grid_sample.cl", "grid_sample_v", **defines,
                         WK_CPU=int(rt.kind == "CPU"), WK_SIM=int(rt.kind == "SIMULATOR"),
                         GRID_PACKED=packed)
    args = (
        *x_args, vec4(in_dims, np.int32), vec4(x_strides, np.int32),
        Arg("grid"), np.int64(g_off), np.int64(g_strides[0]),
        vec4(g_strides[1:-1], np.int64), np.int64(g_strides[-1]),
        Arg("Y"), np.int64(y_off), np.int32(C), vec4(out_dims, np.int32),
        np.int32(pad_id), np.int32(align), np.int32(streaming_output(y_bytes)),
    )
    blocks = -(-out_dims[-1] // 8)
    lx = row_group(blocks)
    rows = math.prod(out_dims[:-1])
    return Launch(variant, args, (round_up(blocks, lx), rows, n1 - n0), (lx, 1, 1), (n0, n1))


def _batches(rt: Runtime, xo: Operand, go: Operand, out_item: int, out_on_device: bool,
             N: int) -> list[tuple[int, int]]:
    """Split N so that every buffer created for a chunk fits the device's allocation limit
    (``out_item``: the result's bytes per batch item)."""
    per = []
    for o in (xo, go):
        if o.dev is None:
            per.append(o.nbytes // max(N, 1))
        else:  # cannot be too large for a real allocation, but be exact
            check_allocation(rt, o.dev.nbytes, o.name)
    if out_on_device:
        check_allocation(rt, out_item * N, "the output", "pass host arrays to split it")
    else:
        per.append(out_item)
    biggest = max(per) if per else 0
    if biggest > rt.max_alloc:
        raise ValueError(
            f"one batch item needs a {biggest}-byte buffer, more than the device's maximum "
            f"allocation of {rt.max_alloc} bytes ({rt.name}); use smaller tensors or another device"
        )
    step = N if biggest == 0 else max(1, min(N, rt.max_alloc // biggest))
    return [(i, min(N, i + step)) for i in range(0, N, step)]
