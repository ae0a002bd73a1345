"""What a warp reads: the dtypes it takes, its matrices, and ragged batches packed into one
buffer."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import matrix3
from .._memory import HOST_POOL

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


def pack(arrays: list[np.ndarray], C: int) -> tuple[np.ndarray, np.ndarray]:
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
