"""What a warp reads: the dtypes it takes, its matrices, and ragged batches packed into one
buffer."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import matrix3
from .._memory import HOST_POOL
from .._threads import cores, pool

#: the dtypes warps take (their storage types: _dtypes.VALUE_TYPES)
WARP_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.int32), np.dtype(np.float32))


def matrices(matrix: Any, batch: int, batched: bool, arg: str) -> np.ndarray:
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


def stack(arrays: list) -> Any:
    """One (B, ...) array of same-shaped arrays: numpy's (a single one as a view with a new
    first axis, without np.stack's per-call checks: a chain alone makes several), or device
    arrays' (``pyopencl.array.stack``)."""
    if all(isinstance(a, np.ndarray) for a in arrays) or not hasattr(arrays[0], "queue"):
        return np.asarray(arrays[0])[None] if len(arrays) == 1 else np.stack(arrays)
    import pyopencl.array as cla

    return cla.stack(arrays, queue=arrays[0].queue)


#: how far a position's taps reach past its floor, either way (cubic reads floor - 1 ..
#: floor + 2), with room for the float32 rounding of the positions the kernel computes
_REACH = 3
#: output columns past the right edge whose positions the 8-wide kernel computes and samples
#: (its last block's lanes), though it stores none of them
_LANES = 7


def read_regions(inv: np.ndarray, wo: int, ho: int, hw: list[tuple[int, int]],
                 clamped: bool) -> np.ndarray:
    """(B, 4) inclusive (x0, y0, x1, y1) per image: the pixels a warp by ``inv`` (B, 3, 3)
    source-from-destination maps onto ``wo`` x ``ho`` can read, of images (H, W) ``hw``.

    The output rectangle's corners mapped back bound the positions (a projective map whose
    denominator is positive at the corners maps the rectangle onto their convex hull), widened
    by the taps' reach. With ``clamped`` paddings (constant, border, constant_edge) a tap
    outside the image reads the nearest edge pixel, which the region clipped to the image
    holds (constant_edge's positions inside the image lie inside the region: it holds the
    hull, widened); the mirrored and wrapped paddings fold taps anywhere into the image, so an
    image they would fold keeps all its pixels, as does one whose map is not finite or bends through infinity."""
    B = len(hw)
    H = np.array([h for h, _ in hw], np.int64)
    W = np.array([w for _, w in hw], np.int64)
    full = np.stack([np.zeros(B, np.int64), np.zeros(B, np.int64), W - 1, H - 1], 1)
    cx, cy = [-0.5, wo - 0.5 + _LANES], [-0.5, ho - 0.5]
    corners = np.array([[x, y, 1.0] for x in cx for y in cy]).T  # (3, 4)
    q = np.broadcast_to(inv, (B, 3, 3)) @ corners
    with np.errstate(all="ignore"):
        den_ok = np.all(q[:, 2] > 0, axis=1) & np.all(np.isfinite(q), axis=(1, 2))
        x, y = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
        lo_x, hi_x = np.nan_to_num(x.min(1)), np.nan_to_num(x.max(1))
        lo_y, hi_y = np.nan_to_num(y.min(1)), np.nan_to_num(y.max(1))
    # far outside: any value past the image's edges clips the same (and fits int64)
    lim = float(1 << 40)
    box = np.stack([np.floor(np.clip(lo_x, -lim, lim)) - _REACH,
                    np.floor(np.clip(lo_y, -lim, lim)) - _REACH,
                    np.ceil(np.clip(hi_x, -lim, lim)) + _REACH,
                    np.ceil(np.clip(hi_y, -lim, lim)) + _REACH], 1).astype(np.int64)
    inside = (box[:, 0] >= 0) & (box[:, 1] >= 0) & (box[:, 2] <= W - 1) & (box[:, 3] <= H - 1)
    keep = den_ok & (inside | clamped)
    clip = np.stack([np.clip(box[:, 0], 0, W - 1), np.clip(box[:, 1], 0, H - 1),
                     np.clip(box[:, 2], 0, W - 1), np.clip(box[:, 3], 0, H - 1)], 1)
    return np.where(keep[:, None], clip, full)


def pack(arrays: list[np.ndarray], C: int,
         regions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The images of a ragged batch in one (pixels, C) buffer (recycled memory for large ones),
    and per image the (offset, H, W, row stride) the kernels read, in elements. With
    ``regions`` (:func:`read_regions`) only those pixels of each image are copied: the offset
    then points where the whole image would start (it may be negative), so the kernels address
    pixel (x, y) of the image as before, and H, W stay the image's own (its padding)."""
    if regions is None:
        regions = np.array([[0, 0, a.shape[1] - 1, a.shape[0] - 1] for a in arrays], np.int64)
    rw = regions[:, 2] - regions[:, 0] + 1
    rh = regions[:, 3] - regions[:, 1] + 1
    sizes = (rw * rh).tolist()
    total = sum(sizes)
    packed = recycled_rows(total, C, arrays[0].dtype)
    rag = np.empty((len(arrays), 4), np.int64)
    starts = [0]
    for n in sizes[:-1]:
        starts.append(starts[-1] + n)

    def copy(ks: range) -> None:
        for k in ks:
            a, n, start = arrays[k], sizes[k], starts[k]
            x0, y0, x1, y1 = regions[k].tolist()
            w = x1 - x0 + 1
            if w == a.shape[1]:  # whole rows: one contiguous block
                packed[start:start + n] = a[y0:y1 + 1].reshape(n, C)
            else:
                packed[start:start + n].reshape(y1 - y0 + 1, w, C)[...] = \
                    a[y0:y1 + 1, x0:x1 + 1].reshape(y1 - y0 + 1, w, C)
            rag[k] = ((start - y0 * w - x0) * C, a.shape[0], a.shape[1], w * C)

    copy_each(copy, len(arrays), packed.nbytes)
    return packed, rag


def recycled_rows(n: int, C: int, dtype: Any) -> np.ndarray:
    """An uninitialized (n, C) array of recycled host memory: the block is of n's size class
    (1/16 - 1/8 of n above it), so that buffers whose size changes every batch (a ragged
    batch's pixels, a mosaic's atlas) reuse the pool's memory instead of fresh pages, which
    the first write faults in and the kernel zeroes (about as long as the copy itself)."""
    step = 1 << max(n.bit_length() - 4, 0)
    return HOST_POOL.empty((-(-n // step) * step, C), dtype)[:n]


def copy_each(copy: Any, items: int, nbytes: int) -> None:
    """``copy(ks)`` over ``range(items)``: split between up to _MAX_COPIERS threads (numpy
    copies without the GIL: the cores share them) when the copy is ``nbytes`` >=
    _THREADED_BYTES, else in this thread."""
    threads = min(_MAX_COPIERS, cores()) if nbytes >= _THREADED_BYTES else 1
    if threads > 1 and items > 1:
        copiers = pool("pack", threads)
        list(copiers.map(copy, [range(t, items, threads) for t in range(threads)]))
    else:
        copy(range(items))


#: a batch this large is copied by several threads (a row-by-row copy of regions runs at
#: about half a contiguous copy's speed on one core)
_THREADED_BYTES = 4 << 20
#: threads that pack a large batch: up to 4, one per core this process may use
_MAX_COPIERS = 4
