"""Affine and perspective warps of Pillow images and arrays, as fused OpenCL kernels.

Matrices follow :mod:`warpkit.geometry`: 3x3 (or 2x3) **destination-from-source** maps in pixel
coordinates with pixel centres at integers, x right, y down — the convention of
``cv2.warpAffine`` / ``cv2.warpPerspective`` without ``WARP_INVERSE_MAP``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
import pyopencl as cl

from . import geometry
from ._checks import batch_index_array, boxes_array, choice, matrix3, width_height
from ._images import as_image, shape_hwc
from ._options import INTERPOLATION_ALIASES, INTERPOLATIONS, PADDING_ALIASES, PADDINGS
from ._dtypes import VALUE_TYPES
from ._memory import Operand, check_allocation, device_layout, operand, pick_runtime, round_up
from ._memory import HOST_POOL, wants_device_result
from ._op import Arg, Launch, Plan, Variant
from .runtime import PlanCache, Runtime, vec4

__all__ = ["crop_rois", "warp_affine", "warp_perspective", "INTERPOLATIONS", "PADDINGS"]

Interpolation = Literal["nearest", "linear", "cubic"]
Padding = Literal["constant", "border", "reflection", "reflect_101"]

#: the dtypes warps take (their storage types: _dtypes.VALUE_TYPES)
WARP_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.int32), np.dtype(np.float32))
_MAX_SS = 8
_MAX_COORD = 1 << 24  # box coordinates: float32 positions are whole pixels up to here





def _fills(fill: Any, channels: int, dt: np.dtype) -> list[float]:
    """One fill value per channel. For integer images the fill is rounded (halves up) and
    saturated into the dtype first, as OpenCV does, so that it interpolates like a pixel."""
    if type(fill) in (int, float):  # the common cases without numpy (16 us of a small warp)
        vals: list | None = [float(fill)]
    elif type(fill) in (tuple, list) and all(type(v) in (int, float) for v in fill):
        vals = [float(v) for v in fill]
    elif fill is None or isinstance(fill, (str, bytes)):
        vals = None
    else:
        try:
            f = np.asarray(fill, dtype=np.float64)
            vals = f.reshape(-1).tolist() if f.ndim <= 1 else None
        except (TypeError, ValueError):
            vals = None
    if vals is None or len(vals) not in (1, channels):
        raise ValueError(f"fill must be a number or one per channel ({channels}), got {fill!r}")
    vals = vals * (channels // len(vals))
    if dt.kind not in "iu":
        return vals
    if any(math.isnan(v) for v in vals):
        raise ValueError(f"fill must be a number for a {dt} image, got NaN")
    lo, hi = _int_range(dt)
    return [min(max(float(math.floor(v + 0.5)) if math.isfinite(v) else v, lo), hi)
            for v in vals]


@functools.lru_cache(maxsize=256)
def _values_of_options(okey: tuple, channels: int, dt: np.dtype) -> tuple:
    """(_fills, _output) of hashable options ``okey`` = (fill, output_dtype, mean, std,
    layout): ~8 us of every call, the same for every image of a kind. Errors are not cached:
    each call with bad options raises again."""
    fill, output_dtype, mean, std, layout = okey
    return _fills(fill, channels, dt), _output(dt, channels, output_dtype, mean, std, layout)


@functools.lru_cache(maxsize=None)
def _int_range(dt: np.dtype) -> tuple[float, float]:
    info = np.iinfo(dt)
    return float(info.min), float(info.max)


def _expand_canvas(mats: np.ndarray, W: int, H: int) -> tuple[int, int, np.ndarray]:
    """(width, height, shift) of the smallest canvas that holds every map's whole image."""
    corners = np.array([[-0.5, -0.5], [W - 0.5, -0.5], [-0.5, H - 0.5], [W - 0.5, H - 0.5]])
    # a homography sends the line where its denominator is 0 (its horizon) to infinity; if
    # that line crosses the image, no finite canvas holds the result
    den = np.concatenate([corners @ m[2, :2] + m[2, 2] for m in mats])
    if not ((den > 0).all() or (den < 0).all()):
        raise ValueError(
            "expand=True: the homography sends part of the image to infinity (its horizon "
            "crosses the image), so no finite canvas holds it; pass size= for a fixed output")
    pts = np.concatenate([geometry.transform_points(m, corners) for m in mats])
    if not np.isfinite(pts).all():
        raise ValueError("expand=True needs the image to map to a finite region")
    lo, hi = pts.min(0), pts.max(0)
    span = hi - lo
    if (span > 1 << 16).any():
        raise ValueError(f"expand=True: the warped image spans {span[0]:.0f}x{span[1]:.0f} "
                         "pixels, beyond the 65536 per axis an output may have")
    wo, ho = (int(math.ceil(v - 1e-6)) for v in span)
    return max(wo, 1), max(ho, 1), geometry.translation(-lo[0] - 0.5, -lo[1] - 0.5)


def _matrices(matrix: Any, batch: int, batched: bool, arg: str) -> np.ndarray:
    try:
        m = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(
            f"{arg} must be a matrix of numbers, got {type(matrix).__name__} ({e})") from None
    if m.ndim == 2:
        return matrix3(m)[None]
    if m.ndim == 3 and batched and m.shape[0] == batch and m.shape[1:] in ((2, 3), (3, 3)):
        return matrix3(m, stack=True)
    want = "(3, 3) or (2, 3)" + (f", or ({batch}, 3, 3) / ({batch}, 2, 3) for this batch" if batched else "")
    raise ValueError(f"{arg} must have shape {want}, got {m.shape}")


def _jacobian(m: list[list[float]], x: float, y: float) -> tuple[float, float, float, float] | None:
    """The Jacobian (a, b; c, e) of the map ``m`` (nested lists: numpy's per-call costs on tiny
    arrays were 0.1 ms of a warp) at output point (x, y): source pixels moved per output pixel;
    None where the point maps to infinity."""
    (m0, m1, m2), (m3, m4, m5), (m6, m7, m8) = m
    d = m6 * x + m7 * y + m8
    if abs(d) < 1e-12:
        return None
    u, v = (m0 * x + m1 * y + m2) / d, (m3 * x + m4 * y + m5) / d
    return (m0 - u * m6) / d, (m1 - u * m7) / d, (m3 - v * m6) / d, (m4 - v * m7) / d


def _supersampling(inv: np.ndarray, wo: int, ho: int) -> list[int]:
    """Samples per axis, per map, so that a shrinking warp averages about one source pixel per
    sample: the largest local scale (source pixels per output pixel) over the output's corners
    and centre. Each map has its own, so an image is warped the same alone or in any batch.
    The local scale is the Jacobian's largest singular value, in closed form (no LAPACK call per
    point: numpy's wake OpenBLAS threads, and a batch of 64 made 320 of them)."""
    points = ((0, 0), (wo - 1, 0), (0, ho - 1), (wo - 1, ho - 1), ((wo - 1) / 2, (ho - 1) / 2))
    counts = []
    for m in inv.tolist():
        worst = 1.0
        for x, y in points:
            j = _jacobian(m, x, y)
            if j is None:
                continue
            a, b, c, e = j
            q = a * a + b * b + c * c + e * e
            det = a * e - b * c
            worst = max(worst, math.sqrt((q + math.sqrt(max(q * q - 4 * det * det, 0.0))) / 2))
        counts.append(int(min(_MAX_SS, math.ceil(worst - 1e-9))))
    return counts


def _schedule(inv: np.ndarray, wo: int, ho: int, blocks: int, affine: bool) -> tuple[int, int]:
    """How the 8-wide kernel runs: (t, pf). Its work-groups of 64 work-items (blocks of 8 pixels)
    are 2^t blocks x 2^(6 - t) rows; pf > 0 prefetches the source rows pf blocks ahead. Where the
    source reads go depends on the map, and so does which shape the caches like (uint8 RGB,
    kernel ms, this repository's CPU, 1920x1080 at scale 1.1):

        rotation       0     3     5     10    15    20    30    45
        row of 512    2.8   8.4   4.6   4.8   4.3   4.1   6.5   6.7
        64 x 8 tile   3.0   4.7   4.2   5.6   6.0   6.0   6.6   6.3

    A row is fast where its source stays on one row (axis-aligned maps) or crosses source rows
    every few pixels; where it drifts slowly across them (small rotations) every source row
    it enters costs misses, up to twice the tile's time. Narrow outputs take 32 x 16 tiles
    (64 x 224^2 batch 7.5 vs 8.0 ms with 64 x 8 tiles).

    Prefetching (uint8 RGB, kernel ms at 1080p, scale 1.1 unless noted, off -> on):

        rotation    0     1     3     5     10    15    30    60    90    15 x2  0 x0.5
                   2.8   3.4   4.1   4.9   5.0   4.6   5.8   5.2   3.7   3.7   2.2
                   3.4   3.5   3.3   4.9   3.9   3.4   5.5   4.9   3.7   4.3   2.6

    It pays where rows drift across source rows, 16 to 256 of them per 512 pixels (a block's
    8 pixels then span at most 4 rows, which the two points at its ends cover), and costs where
    the hardware prefetcher already follows (axis-aligned maps) or the source is read slower than
    a pixel per pixel (magnification, x2). Affine maps only. For a batch, the medians over every
    (K // 16)-th matrix.
    """
    # at the output's centre: source rows crossed along 512 output pixels, and source pixels
    # moved per output pixel (Python floats: numpy's per-call costs on tiny arrays were 0.1 ms)
    drifts, steps = [], []
    for m in inv[:: max(1, len(inv) // 16)].tolist():
        j = _jacobian(m, (wo - 1) / 2, (ho - 1) / 2)
        if j is None:  # a perspective centre at infinity: tiles, no prefetch
            return (2 if blocks < 64 else 3), 0
        dx, dy = j[0], j[2]  # source x and y moved per output pixel along a row
        drifts.append(abs(dy) * 512)
        steps.append(math.hypot(dx, dy))
    drift, step = _median(drifts), _median(steps)
    pf = 4 if affine and 16 <= drift <= 256 and step >= 0.75 else 0
    if blocks < 64:
        return 2, pf
    return (6 if drift < 2 or drift > 64 else 3), pf


def _median(values: list[float]) -> float:
    """statistics.median without importing statistics (6.5 ms of ``import warpkit``)."""
    values = sorted(values)
    k = len(values) // 2
    return values[k] if len(values) % 2 else (values[k - 1] + values[k]) / 2


#: output_dtype values that make the model's input (normalised floats) in the warp's pass
_FLOAT_OUT = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}
#: the value of a full-scale pixel of each dtype, which normalisation divides by
_PEAK = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0, np.dtype(np.int32): 1.0,
         np.dtype(np.float32): 1.0}


def check_model_input(output_dtype: Any, layout: Any) -> np.dtype | None:
    """The checks of ``output_dtype`` and ``layout`` that need no image (a pipeline makes them
    when it is built): the dtype (None: the image's) or a ValueError naming the argument."""
    if layout not in ("HWC", "CHW"):
        raise ValueError(f"layout must be 'HWC' or 'CHW', got {layout!r}")
    try:
        return None if output_dtype is None else np.dtype(output_dtype)
    except TypeError:
        raise ValueError(f"output_dtype must be None or the image's dtype, float32 or float16, "
                         f"got {output_dtype!r}") from None


def _output(dt: np.dtype, channels: int, output_dtype: Any, mean: Any, std: Any,
            layout: Any) -> tuple[np.dtype | None, bool, list[float], list[float]]:
    """(float output dtype or None for a plain warp, channels first, scale, bias per channel)."""
    odt = check_model_input(output_dtype, layout) or dt
    if odt != dt and odt not in _FLOAT_OUT:
        raise ValueError(f"output_dtype must be the image's dtype ({dt}), float32 or float16, "
                         f"got {output_dtype!r}")
    plain = odt == dt and mean is None and std is None and layout == "HWC"
    if plain:
        return None, False, [], []
    if odt not in _FLOAT_OUT:
        raise ValueError("mean, std and layout='CHW' make the model's input: pass "
                         "output_dtype='float32' or 'float16'")

    def per_channel(v, default, arg):
        v = default if v is None else v
        try:
            a = np.broadcast_to(np.asarray(v, np.float64).reshape(-1), (channels,))
        except (TypeError, ValueError):
            a = None
        if a is None or not np.isfinite(a).all():
            raise ValueError(f"{arg} must be a finite number or one per channel ({channels}), "
                             f"got {v!r}")
        return a

    m = per_channel(mean, 0.0, "mean")
    sd = per_channel(std, 1.0, "std")
    if (sd <= 0).any():
        raise ValueError(f"std must be > 0, got {std!r}")
    peak = _PEAK[dt]
    return odt, layout == "CHW", (1 / (peak * sd)).tolist(), (-m / sd).tolist()


COORD_MATRIX, COORD_MAP, COORD_FIELD, COORD_AXES = 0, 1, 2, 3  # kernels_cl/warp.cl's COORD


class Coords(NamedTuple):
    """Source positions that are not one matrix per item (kernels_cl/warp.cl, COORD) (a named
    tuple: a frozen dataclass took 3 us of every non-linear pipeline call to make):

    - ``COORD_MAP``: absolute positions per output pixel, ``mx`` and ``my`` operands (float32,
      C-contiguous; ``map_xy``: ``mx`` is one (..., Ho, Wo, 2) array and ``my`` the same),
      ``map_item`` floats apart per item (0: one map for all).
    - ``COORD_FIELD``: per item (or one for all), ``chain`` (n, nf + 1, 3, 3) src_from_dst maps
      around nf non-linear stages, each stage's frame folded in; ``fields`` all stages' values
      in their frames, flat float32; ``fi`` (n, nf, 3) int32 (offset in floats, and the pair
      that gives the stage's kind and size: kernels_cl/warp.cl, COORD_FIELD) per item and
      stage.
    - ``COORD_AXES``: a map separable per axis, ``axes`` (n, Wo + Ho) float32 per item (or
      (1, Wo + Ho) for all): each output column's source x, then each row's source y, finite.
    """

    kind: int
    mx: Any = None
    my: Any = None
    map_item: int = 0
    map_xy: bool = False
    chain: Any = None
    fields: Any = None
    fi: Any = None
    axes: Any = None


def _warp(image, matrix, size=None, interpolation="linear", padding="constant", fill=0,
          expand=False, antialias=False, queue=None, affine=True, src_index=None,
          output_dtype=None, mean=None, std=None, layout="HWC", pending=None, ragged=False,
          coords=None):
    """warp_affine (affine) and warp_perspective, with their arguments and defaults; crops
    (src_index: the image of each output item), ragged batches (image: a list of host arrays of
    one dtype and channel count, packed into one buffer, matrix (B, 3, 3)), source positions
    from maps or displacement fields instead of ``matrix`` (coords: :class:`Coords`; remap and
    the non-linear transforms) and pending waits (warp_each) besides."""
    arg = "matrix" if affine else "homography"
    mode_id = choice(interpolation, INTERPOLATIONS, "interpolation", INTERPOLATION_ALIASES)
    pad_id = choice(padding, PADDINGS, "padding", PADDING_ALIASES)
    if ragged:
        shapes = [shape_hwc(a) for a in image]
        arr, restore = image[0], None
    else:
        arr, restore = as_image(image)
        shapes = [shape_hwc(arr)]
    dt = np.dtype(arr.dtype)
    if dt not in WARP_DTYPES:
        raise TypeError(f"image has dtype {dt}; warps take uint8, uint16, int32 or float32 images "
                        "(convert other dtypes first)")
    B, H, W, C, batched, out_shape = shapes[0]
    for k, (_, h, w, _, _, _) in enumerate(shapes):
        if h == 0 or w == 0:
            what = f"image {k}" if ragged else "image"
            raise ValueError(f"{what} has no pixels to sample: shape "
                             f"{tuple((image[k] if ragged else arr).shape)}")
    if ragged:  # one output item per image, a matrix each
        B = len(image)
        mats = matrix3(np.asarray(matrix, np.float64), stack=True)
        out_shape = lambda ho, wo: (B, ho, wo, C)  # noqa: E731  ((H, W) images: see the end)
    elif coords is not None:  # the positions come from maps or fields, checked by the caller
        mats = _NO_MAP
    elif src_index is not None:  # crops: one output item per matrix, each from image src_index[k]
        K = len(src_index)
        mats = matrix3(np.asarray(matrix, np.float64).reshape(K, 3, 3), stack=True)
        out_shape = lambda ho, wo: (K, ho, wo, C)  # noqa: E731  (crop_rois passes BHWC)
        restore = None
    else:
        mats = _matrices(matrix, B, batched, arg)
    # mats are checked (matrix3): is_affine and invert without checking them again
    if affine and not geometry._is_affine_checked(mats):
        raise ValueError(f"{arg} is a perspective map (last row != (0, 0, 1)); use warp_perspective")
    if expand:
        if size is not None:
            raise ValueError("pass either size or expand=True, not both")
        if ragged or coords is not None:
            raise ValueError("expand=True is not for ragged batches: pass size=")
        wo, ho, shift = _expand_canvas(mats, W, H)
        mats = shift @ mats
    elif size is None:
        if ragged:
            raise ValueError("a ragged batch needs size= (its images differ in size)")
        wo, ho = W, H
    else:
        wo, ho = width_height(size, "size")
    if wo < 1 or ho < 1 or wo > 1 << 16 or ho > 1 << 16:
        raise ValueError(f"the output size must be between 1 and 65536 per axis, got {wo}x{ho}")
    inv = mats if coords is not None else geometry._invert_checked(mats)
    kind = COORD_MATRIX if coords is None else coords.kind
    if kind in (COORD_FIELD, COORD_AXES):  # per item or one for all: what the kernel indexes
        n = len(coords.chain if kind == COORD_FIELD else coords.axes)
        if n not in (1, B) or (kind == COORD_FIELD and coords.fi.shape[0] != n):
            raise ValueError(f"the coordinates must be given for each of the {B} items or one "
                             f"for all, got {n}")
    if kind == COORD_FIELD:  # the chain's maps; supersampling from their product
        chain = np.asarray(coords.chain, np.float64)
        inv = chain.reshape(-1, 3, 3)
        if antialias:
            outer = [np.linalg.multi_dot(c[::-1]) if len(c) > 1 else c[0] for c in chain]
            ss = _supersampling(np.stack(outer), wo, ho)
        else:
            ss = [1] * len(chain)
    elif kind in (COORD_MAP, COORD_AXES):
        if kind == COORD_AXES and coords.axes.shape[-1] != wo + ho:  # what the kernel reads
            raise ValueError(f"the axes' tables must hold {wo} + {ho} positions, got "
                             f"{coords.axes.shape[-1]}")
        if antialias:
            raise ValueError("antialias needs positions between pixels, which a per-pixel map "
                             "does not give (shrink with a matrix or a field instead)")
        ss = [1]
    else:
        ss = _supersampling(inv, wo, ho) if antialias else [1] * len(inv)
    try:  # made once per set of options and image kind (a pipeline passes the same each call)
        fills, out = _values_of_options((fill, output_dtype, mean, std, layout), C, dt)
    except TypeError:  # unhashable options (lists, arrays): made each call
        fills, out = _fills(fill, C, dt), _output(dt, C, output_dtype, mean, std, layout)
    y_dtype, y_chw, yscale, ybias = out
    shape = out_shape(ho, wo)
    if y_dtype is not None:
        restore = None  # the model's input: an array, not a picture
        if y_chw:  # channels first: (C, H, W) or (B, C, H, W); an (H, W) image has one channel
            shape = (*(shape[:1] if len(shape) == 4 else ()), C, ho, wo)
    extra: dict[str, Any] = {}
    if ragged:
        packed, rag = _pack(image, C)
        src = operand(packed, "image")
        n = len(packed) * C
        # the 32-bit word reads of uint8 pixels: the last start inside the buffer, and whether
        # the interior path's reads (4 bytes from a tap) stay inside each image (_warp_plan)
        fits = all(h < 1 << 24 and w < 1 << 24 and h * w * C < 2**31 - 4 and w * C + C >= 4
                   for _, h, w, _, _, _ in shapes)
        extra = {"last_word": np.int64(n - 4), "interior": np.int32(fits and n >= 4)}
        layout_key: Any = ("ragged", dt, C)
    else:
        src = operand(arr, "image")
        layout_key = src.layout
    rt = pick_runtime(queue, src)
    spec = _WarpSpec(shape, B if src_index is None else len(src_index), wo, ho, len(ss) > 1,
                     src_index is not None, mode_id, pad_id, max(ss) > 1,
                     None if y_dtype is None else str(y_dtype), y_chw, ragged, kind,
                     _blocks(coords))
    if kind == COORD_MATRIX:
        # what the kernel takes from the maps' values: whether they are affine with entries
        # small enough (in float32) that every source coordinate is finite, so the kernel skips
        # its NaN checks, and the work split and prefetch distance (_schedule)
        finite_affine = all(m[2] == [0.0, 0.0, 1.0] and max(map(abs, m[0] + m[1])) <= 1e30
                            for m in inv.tolist())
        tw_log2, pf = _schedule(inv, wo, ho, -(-wo // 8), finite_affine)
    else:  # positions per pixel: tiles of 4 x 16 (narrow) or 16 x 4 work-items (1080p remap,
        # a block each: linear 3.9 ms against 5.3 with 8 x 8 and 4.1 with rows of 64), each
        # work-item spec.blocks blocks of 8 pixels wide; no prefetch
        finite_affine, pf = False, 0
        tw_log2 = 2 if -(-wo // 8) < 64 else 4
    plan = _PLANS.get((rt, layout_key, wants_device_result(src), spec, tw_log2),
                      lambda: _warp_plan(rt, src, spec, tw_log2))
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    fixed = (rt, tuple(fills), dt.kind in "iu", tuple(yscale), tuple(ybias), tuple(ss))
    values = {**_FIXED.get(fixed, lambda: _fixed_values(*fixed)),
              "affine": _int32(finite_affine), "pf": _int32(pf), **extra}
    if kind in (COORD_MATRIX, COORD_FIELD):  # else (maps, tables) _fixed_values' identity
        values["M"] = cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
            inv.reshape(-1, 9), dtype=np.float32))
    if src_index is not None:
        values["index"] = cl.Buffer(rt.context, ro,
                                    hostbuf=np.ascontiguousarray(src_index, np.int32))
    if ragged:
        check_allocation(rt, src.nbytes, "the packed images")
        values["rag"] = cl.Buffer(rt.context, ro, hostbuf=rag)
    operands = {"X": src}
    if kind == COORD_MAP:
        operands.update(MX=coords.mx, MY=coords.my)
        values.update(mx_off=_int64(device_layout(coords.mx)[0]),
                      my_off=_int64(device_layout(coords.my)[0]),
                      map_item=_int64(coords.map_item), map_xy=_int32(coords.map_xy))
    elif kind == COORD_AXES:
        values.update(AX=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.axes, np.float32)),
                      ax_item=_int64(wo + ho if len(coords.axes) > 1 else 0))
    elif kind == COORD_FIELD:
        values.update(FLD=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.fields, np.float32)),
                      FI=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.fi, np.int32)),
                      nf=_int32(coords.fi.shape[1]))
    res = plan.run(operands, values, pending)
    if ragged and arr.ndim == 2 and not y_chw:  # (H, W) images give (B, ho, wo), as stacked
        res = res.reshape(res.shape[:3])
    if pending is not None:  # the result once the pending waits are done
        return lambda: res if restore is None else restore(res)
    return res if restore is None else restore(res)


def warp_by_coords(image: Any, coords: Coords, size: tuple[int, int], **options: Any) -> Any:
    """Warp by source positions that are not one matrix per item (:class:`Coords`: maps,
    non-linear chains, per-axis tables), with :func:`warp_perspective`'s options: the engine
    behind pipelines with non-linear stages and ``remap``."""
    return _warp(image, None, size, affine=False, coords=coords, **options)


def warp_each(images: Sequence[Any], homographies: Sequence[Any],
              sizes: Sequence[tuple[int, int]], **options: Any) -> list:
    """Warp each image of a list (sizes may differ) with its own map and output size, as
    :func:`warp_perspective` would one by one, but launched back to back with one wait at the
    end (a ragged batch of 64 224x224 crops: one wait instead of 64)."""
    pending: list = []
    results = [_warp(img, m, size, affine=False, pending=pending, **options)
               for img, m, size in zip(images, homographies, sizes)]
    for wait in pending:
        wait()
    return [r() for r in results]


def warp_batch(images: Sequence[Any], homographies: Any, size: tuple[int, int],
               **options: Any) -> Any:
    """Warp a ragged batch (a list of images of different sizes, one channel count and dtype)
    to one output size, each image with its own homography, in **one launch**: the images are
    packed into one buffer and each output item reads its own. The result is one array
    (B, ho, wo, C) (or what ``output_dtype``/``layout`` make), as :func:`warp_perspective` of
    each image stacked. Lists of device arrays, or of images that differ in dtype or channels,
    are warped one by one (back to back, one wait) and stacked; lists of Pillow images give a
    list of Pillow images.

    Example:
        >>> import numpy as np
        >>> from warpkit.warp import warp_batch
        >>> photos = [np.zeros((480, 640, 3), np.uint8), np.zeros((500, 400, 3), np.uint8)]
        >>> warp_batch(photos, [np.eye(3)] * 2, (224, 224)).shape  # doctest: +SKIP
        (2, 224, 224, 3)
    """
    images = list(images)
    if not images:
        raise ValueError("images is an empty list")
    mats = _matrices(homographies, len(images), True, "homographies")
    if len(mats) != len(images):
        raise ValueError(f"homographies has {len(mats)} maps for {len(images)} images")
    first = [as_image(img) for img in images]
    arrays = [a for a, _ in first]
    restores = [r for _, r in first]
    kinds = {(str(a.dtype), a.ndim, tuple(a.shape[2:])) for a in arrays}
    if len(kinds) > 1:
        raise ValueError("images of a batch must share their dtype and channels, got "
                         + ", ".join(f"{d} {s or '(H, W)'}" for d, _, s in sorted(kinds)))
    if arrays[0].ndim not in (2, 3):
        raise ValueError(f"images must be (H, W) or (H, W, C) each, got {arrays[0].shape}")
    packable = all(isinstance(a, np.ndarray) for a in arrays)
    if not packable or any(r is not None for r in restores):
        res = warp_each(images, mats, [size] * len(images), **options)
        return res if any(r is not None for r in restores) else _stack(res)
    return _warp(arrays, mats, size, affine=False, ragged=True, **options)


def _stack(results: list) -> Any:
    """One (B, ...) array of same-shaped results (numpy or device arrays)."""
    if all(isinstance(r, np.ndarray) for r in results):
        return np.stack(results)
    import pyopencl.array as cla

    return cla.stack(results, queue=results[0].queue)


def _pack(arrays: list[np.ndarray], C: int) -> tuple[np.ndarray, np.ndarray]:
    """The images of a ragged batch in one (pixels, C) buffer (recycled memory for large ones),
    and per image the (offset, H, W, row stride) the kernels read, in elements."""
    sizes = [a.shape[0] * a.shape[1] for a in arrays]
    packed = HOST_POOL.empty((sum(sizes), C), arrays[0].dtype)
    rag = np.empty((len(arrays), 4), np.int64)
    start = 0
    for k, (a, n) in enumerate(zip(arrays, sizes)):
        packed[start:start + n] = a.reshape(n, C)
        rag[k] = (start * C, a.shape[0], a.shape[1], a.shape[1] * C)
        start += n
    return packed, rag


@dataclass(frozen=True)
class _WarpSpec:
    """What a warp's plan depends on besides the image's layout (its H, W, C) and the runtime."""

    out_shape: tuple[int, ...]
    items: int  # output images (the batch, or one per crop box)
    wo: int
    ho: int
    per_image: bool  # a matrix per item (else one for all)
    indexed: bool  # item k reads image index[k] (crops)
    mode: int
    pad: int
    supersample: bool  # antialiasing: some map has more than one sample per axis
    y_dtype: str | None = None  # float32 / float16: the model's input (normalised), else None
    y_chw: bool = False  # that input's channels first
    ragged: bool = False  # items are images of their own sizes packed in one buffer (warp_batch)
    coord: int = COORD_MATRIX  # where source positions come from (Coords)
    blocks: int = 1  # warp_v's blocks of 8 pixels per work-item (_blocks)


_PLANS = PlanCache()

#: a warp's values that follow from its options (fill, normalisation, samples per map): made
#: once, the same objects every call, so that a cached call sets only its buffers and matrix
#: (Plan._run_on_device); the buffers are read-only in the kernel, shared by every call
_FIXED = PlanCache(maxsize=256)
#: the matrix of positions from per-pixel maps or per-axis tables: the identity (read-only)
_NO_MAP = np.eye(3)[None]
_NO_MAP.flags.writeable = False


def _int32(v: int) -> np.int32:
    """One np.int32 object per value (the short path compares the values it set by identity:
    _op._bind)."""
    return _scalar(np.int32, int(v))


def _int64(v: int) -> np.int64:
    """One np.int64 object per value, as :func:`_int32`."""
    return _scalar(np.int64, int(v))


@functools.lru_cache(maxsize=4096)
def _scalar(t: type, v: int) -> Any:
    return t(v)


def _fixed_values(rt: Runtime, fills: tuple, int_image: bool, yscale: tuple, ybias: tuple,
                  ss: tuple) -> dict[str, Any]:
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    return {"index": cl.Buffer(rt.context, ro, hostbuf=np.zeros(1, np.int32)),
            "M": cl.Buffer(rt.context, ro, hostbuf=_NO_MAP.reshape(9).astype(np.float32)),
            "fill": vec4(fills, np.float32),
            "ifill": vec4([int(v) if int_image else 0 for v in fills], np.int32),
            "ss": cl.Buffer(rt.context, ro, hostbuf=np.asarray(ss, np.int32)),
            "yscale": vec4(yscale, np.float32), "ybias": vec4(ybias, np.float32)}


def _blocks(coords: Coords | None) -> int:
    """warp_v's blocks of 8 output pixels per work-item, by where positions come from. A block's
    positions are a chain of dependent arithmetic (a lens: ~15 operations in a row) that the
    core cannot overlap with the next work-item's, which comes after the block's hundreds of
    sampling instructions; blocks side by side in one work-item overlap their chains (512x384
    RGB, kernel ms with 1 / 2 / 4 blocks: lens 0.53 / 0.43 / 0.39, a bilinear field 0.91 / 0.75
    / 0.78, per-axis tables 0.31 / 0.29 / 0.26, a remap 1080p 4.45 / 4.21). Matrices keep 1:
    their positions are 2 operations, and the prefetch distance is tuned in blocks of one."""
    if coords is None:
        return 1
    if coords.kind == COORD_FIELD:  # lenses only (FI's a == 0): 4; a grid's taps fill 2
        return 4 if not np.count_nonzero(coords.fi[..., 1]) else 2
    return 4 if coords.kind == COORD_AXES else 2


def _warp_plan(rt: Runtime, src: Operand, w: _WarpSpec, tw_log2: int) -> Plan:
    dt = np.dtype(src.dtype)
    ydt = dt if w.y_dtype is None else np.dtype(w.y_dtype)
    on_device = wants_device_result(src)
    if w.ragged:  # packed (total,) or (total, C): sizes, offsets, extent and interior per call
        C = src.shape[1] if src.ndim == 2 else 1
        H = W = 0
    else:
        _, H, W, C, _, _ = shape_hwc(src)
    check_allocation(rt, math.prod(w.out_shape) * ydt.itemsize,
                     f"the {'x'.join(map(str, w.out_shape))} {ydt} output",
                     "ask for a smaller output or split the call")
    if w.items == 0 or C == 0:
        return Plan(rt, w.out_shape, ydt, on_device)
    check_allocation(rt, src.nbytes, "the image")
    x_off, st = device_layout(src)
    if w.ragged:
        strides = (0, 0, C, 1)
        extent = None  # the packed buffer's length differs per call: last_word is an Arg
    else:
        strides = {2: lambda: (0, st[0], st[1], 0), 3: lambda: (0, *st)}.get(len(st), lambda: st)()
        # the array's last element + 1: word reads (uint8) are clamped to end inside it
        extent = x_off + sum((d - 1) * v for d, v in zip(src.shape, st) if v > 0) + 1
    defines = {"MODE": w.mode, **VALUE_TYPES[dt].defines("X"), "RAGGED": int(w.ragged),
               "COORD": w.coord}
    if w.y_dtype is not None:
        defines.update(Y_NORM=1, Y_CHW=int(w.y_chw), Y_HALF=_FLOAT_OUT[ydt])
    common = (Arg("X"), np.int64(x_off), *(np.int64(v) for v in strides), np.int32(H),
              np.int32(W))
    indexing = (Arg("M"), np.int32(w.per_image), Arg("index"), np.int32(w.indexed))
    ragged = (Arg("rag"),) if w.ragged else ()
    ragged += {COORD_MATRIX: (),
               COORD_MAP: (Arg("MX"), Arg("MY"), Arg("mx_off"), Arg("my_off"), Arg("map_item"),
                           Arg("map_xy")),
               COORD_FIELD: (Arg("FLD"), Arg("FI"), Arg("nf")),
               COORD_AXES: (Arg("AX"), Arg("ax_item"))}[w.coord]
    span = sum((d - 1) * abs(v) for d, v in zip((H, W, C), strides[1:]))  # one image
    # (packed images: warp_batch checks each one's span, and that the buffer holds a word)
    if (not w.supersample and dt in (np.dtype(np.uint8), np.dtype(np.float32))
            and (w.ragged or extent >= 4) and span < 2**31 - 4):
        # the 8-wide kernel (kernels_cl/warp.cl, warp_v); channels are a build-time constant
        variant = Variant.of("warp.cl", "warp_v", **defines, CH=C, WK_U8=int(dt == np.uint8),
                             WK_CPU=int(rt.kind == "CPU"), WV_BLOCKS=w.blocks)
        # the interior path reads 4 bytes from each tap's start: pixels are packed, rows go down;
        # its bounds test compares float coordinates with W - 1 and H - 2, exact below 2^24.
        # Its last read starts at pixel (W - 1) of row H - 2 and ends 4 - C bytes past that
        # pixel: inside the image only if the last row holds that many (row stride + C >= 4;
        # a 1-channel image 2 pixels wide read past its end)
        interior = Arg("interior") if w.ragged else np.int32(
            strides[2] == C and strides[1] >= W * C and strides[1] + C >= 4 and C <= 4
            and max(H, W) < 1 << 24)
        blocks = -(-w.wo // (8 * w.blocks))  # work-items along a row
        tiles_x, th = -(-blocks >> tw_log2), 64 >> tw_log2
        last_word = Arg("last_word") if w.ragged else np.int64(extent - 4)
        args = (*common, *indexing, last_word, Arg("Y"), np.int32(w.ho),
                np.int32(w.wo), np.int32(w.pad), Arg("fill"), Arg("affine"), interior,
                np.int32(tw_log2), Arg("pf"), Arg("yscale"), Arg("ybias"), *ragged)
        gsize = (tiles_x * 64, -(-w.ho // th), w.items)
    else:  # any dtype, cubic, supersampling: one output pixel per work-item
        # int32 values need more than a float's 24 bits: accumulate in double where the device
        # has it (nearest without supersampling copies pixels, exact everywhere)
        acc_double = int(dt == np.dtype(np.int32) and rt.fp64)
        variant = Variant.of("warp.cl", "warp", **defines, ACC_DOUBLE=acc_double)
        args = (*common, np.int32(C), *indexing, Arg("Y"), np.int32(w.ho), np.int32(w.wo),
                np.int32(w.pad), Arg("fill"), Arg("ifill"), Arg("ss"), Arg("yscale"),
                Arg("ybias"), *ragged)
        gsize = (round_up(w.wo, 64), w.ho, w.items)
    return Plan(rt, w.out_shape, ydt, on_device, (Launch(variant, args, gsize, (64, 1, 1)),))


def warp_affine(
    image: Any,
    matrix: Any,
    size: tuple[int, int] | None = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    expand: bool = False,
    antialias: bool = False,
    queue: cl.CommandQueue | None = None,
    output_dtype: Any = None,
    mean: float | Sequence[float] | None = None,
    std: float | Sequence[float] | None = None,
    layout: Literal["HWC", "CHW"] = "HWC",
) -> Any:
    """Warp an image with an affine map.

    Args:
        image: a Pillow image (modes L, LA, RGB, RGBA, I;16, I, F; 1, P and PA are converted to L,
            RGB(A)), or an array (H, W), (H, W, C) or a batch (B, H, W, C) with C <= 4, of uint8,
            uint16, int32 or float32; numpy or ``pyopencl.array.Array``.
        matrix: (3, 3) or (2, 3) destination-from-source map (see :mod:`warpkit.geometry`), or one
            per image of a batch: (B, 3, 3) / (B, 2, 3).
        size: output (width, height); default: the input's size.
        interpolation: ``"nearest"``, ``"linear"`` or ``"cubic"`` (Keys, A = -0.75, as OpenCV).
        padding: where the source is outside the image: ``"constant"`` (``fill``), ``"border"``
            (the edge pixel, OpenCV's BORDER_REPLICATE), ``"reflection"`` (mirrored about the
            outer pixel edges, OpenCV's BORDER_REFLECT) or ``"reflect_101"`` (mirrored about
            the edge pixels' centres, OpenCV's BORDER_REFLECT_101). Aliases such as ``"zeros"``,
            ``"reflect"`` and ``"mirror"`` are accepted (docs/guide.md lists them).
        fill: the constant, a number or one per channel.
        expand: make the output just large enough for the whole transformed image (and move it
            there); not with ``size``.
        antialias: for maps that shrink, average several samples per output pixel (as many per
            axis as source pixels fall on one output pixel, at most 8), so that detail does not
            alias.
        queue: the ``pyopencl.CommandQueue`` to run on.
        output_dtype, mean, std, layout: make the model's input in the same pass: with
            ``output_dtype`` float32 or float16 each sample becomes ``(v / peak - mean) / std``
            (peak: 255 for uint8, 65535 for uint16, 1 otherwise; integer images clamped to their
            range but not rounded), per channel; ``layout="CHW"`` writes channels first,
            (C, H, W) or (B, C, H, W). The result is then an array, also for a Pillow input.

    Returns:
        The warped image: the same kind (Pillow image of the same mode, numpy or device array),
        dtype and channel count. Integer results round to nearest (halves up, as OpenCV and
        Pillow) and saturate.

    Example:
        >>> import numpy as np, warpkit
        >>> from warpkit import geometry as g
        >>> img = np.zeros((480, 640, 3), np.uint8)
        >>> h, w = img.shape[:2]
        >>> m = g.rotation(15, center=((w - 1) / 2, (h - 1) / 2))   # pixel centres at integers
        >>> warpkit.warp_affine(img, m, interpolation="cubic").shape   # doctest: +SKIP
        (480, 640, 3)
        >>> warpkit.warp_affine(img, m, expand=True).shape             # doctest: +SKIP
        (630, 743, 3)
    """
    return _warp(image, matrix, size, interpolation, padding, fill, expand, antialias, queue, True,
                 output_dtype=output_dtype, mean=mean, std=std, layout=layout)


def warp_perspective(
    image: Any,
    homography: Any,
    size: tuple[int, int] | None = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    expand: bool = False,
    antialias: bool = False,
    queue: cl.CommandQueue | None = None,
    output_dtype: Any = None,
    mean: float | Sequence[float] | None = None,
    std: float | Sequence[float] | None = None,
    layout: Literal["HWC", "CHW"] = "HWC",
) -> Any:
    """Warp an image with a perspective map (a 3x3 homography, destination from source).

    Arguments and result as :func:`warp_affine`; ``homography`` may be any invertible 3x3 matrix,
    e.g. from :func:`warpkit.geometry.perspective_from_points`. Output pixels whose source lies
    behind the camera (no finite source point) take the fill value.
    """
    return _warp(image, homography, size, interpolation, padding, fill, expand, antialias, queue,
                 False, output_dtype=output_dtype, mean=mean, std=std, layout=layout)


def crop_rois(
    image: Any,
    boxes: Any,
    output_size: tuple[int, int],
    batch_indices: Any = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    antialias: bool = False,
    queue: cl.CommandQueue | None = None,
) -> Any:
    """Crop and resize many boxes into fixed-size patches, in one launch.

    Args:
        image: a Pillow image, an array (H, W) / (H, W, C), or a batch (B, H, W, C) with
            ``batch_indices``; numpy or device array.
        boxes: (K, 4) boxes ``[x1, y1, x2, y2]`` in **pixel-edge** coordinates: ``(0, 0, W, H)``
            is the whole image, and a box the size of its output reproduces its pixels exactly.
            Parts outside the image follow ``padding``. ``x2 > x1`` and ``y2 > y1``.
        output_size: (width, height) of every patch.
        batch_indices: for a batch, the image of each box (K integers in [0, B)).
        interpolation, padding, fill, antialias: as :func:`warp_affine`.

    Returns:
        (K, h, w[, C]) patches of the image's dtype (numpy or device array), or a list of K Pillow
        images for a Pillow input.

    Example:
        >>> import numpy as np, warpkit
        >>> img = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
        >>> patches = warpkit.crop_rois(img, [[0, 0, 64, 64], [10, 20, 50, 40]], (32, 32))  # doctest: +SKIP
        >>> patches.shape                                              # doctest: +SKIP
        (2, 32, 32)
        >>> warpkit.crop_rois(img, [[0, 0, 2, 1]], (2, 1))             # doctest: +SKIP
        array([[[0., 1.]]], dtype=float32)
    """
    wo, ho = width_height(output_size, "output_size")
    b = boxes_array(boxes)
    far = np.flatnonzero(np.abs(b).max(axis=1, initial=0) > _MAX_COORD)
    if len(far):
        k = int(far[0])
        raise ValueError(f"box {k} {b[k].tolist()} reaches beyond {_MAX_COORD} pixels, where "
                         "float32 positions no longer tell pixels apart")
    extent = np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    bad = np.flatnonzero(extent <= 0)
    if len(bad):
        k = int(bad[0])
        if extent[k] == 0:
            raise ValueError(f"box {k} {b[k].tolist()} has no width or height")
        # it would crop mirrored: most often an [x, y, width, height] box (COCO's)
        raise ValueError(
            f"box {k} {b[k].tolist()} has x2 < x1 or y2 < y1; boxes are corners [x1, y1, x2, y2] "
            "(for [x, y, width, height] boxes add x and y to width and height; to mirror, use "
            "warp_affine with geometry.flip)")
    image, pil = as_image(image)  # pil: turns a patch back into a Pillow image, or None
    shape = tuple(image.shape)
    K = b.shape[0]
    if len(shape) == 4:
        if batch_indices is None:
            raise ValueError("a batch (B, H, W, C) needs batch_indices: the image of each box")
        bi = batch_index_array(batch_indices, K, shape[0])
    else:
        if batch_indices is not None and np.any(np.asarray(batch_indices) != 0):
            raise ValueError("batch_indices only apply to a batch (B, H, W, C)")
        bi = np.zeros(K, np.int64)
        image = image[None] if len(shape) == 3 else image[None, :, :, None]
    # dst_from_src per box: edge coordinate e is pixel-centre coordinate e - 0.5
    sx = wo / (b[:, 2] - b[:, 0])
    sy = ho / (b[:, 3] - b[:, 1])
    mats = np.zeros((K, 3, 3))
    mats[:, 0, 0], mats[:, 1, 1], mats[:, 2, 2] = sx, sy, 1.0
    mats[:, 0, 2] = (0.5 - b[:, 0]) * sx - 0.5
    mats[:, 1, 2] = (0.5 - b[:, 1]) * sy - 0.5
    out = _warp(image, mats, (wo, ho), interpolation, padding, fill, False, antialias, queue, True,
                src_index=bi)
    if len(shape) == 2:  # a single-channel (H, W) image gives (K, h, w) patches
        out = out.reshape(K, ho, wo)
    if pil is not None:
        return [pil(np.ascontiguousarray(p)) for p in out]
    return out
