"""Argument checks shared by every operator and transform: each refuses bad input with a
ValueError that names the argument, says what it takes and shows what came."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._options import choice

__all__ = ["batch_index_array", "boxes_array", "check_align", "choice", "count", "matrix3",
           "flag", "number", "width_height"]


def number(value: Any, arg: str) -> float:
    """A finite number (not a bool or a string), or a ValueError naming the argument."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if isinstance(value, (str, bytes, bool, np.bool_)) or not math.isfinite(v):
        raise ValueError(f"{arg} must be a finite number, got {value!r}")
    return v


def width_height(value: Any, arg: str) -> tuple[int, int]:
    """A (width, height) argument as two whole numbers, or a ValueError naming it."""
    if type(value) is tuple and len(value) == 2 and type(value[0]) is int \
            and type(value[1]) is int:  # what pipelines pass every call
        return value
    try:
        vals = [float(v) for v in value]
    except (TypeError, ValueError):
        vals = []
    if len(vals) != 2 or not all(math.isfinite(v) and v == int(v) for v in vals):
        raise ValueError(f"{arg} must be (width, height), two whole numbers, got {value!r}")
    return int(vals[0]), int(vals[1])


def flag(v: Any, arg: str) -> bool:
    """A True/False argument (a bool or numpy bool), or a ValueError naming it."""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{arg} must be True or False, got {v!r}")
    return bool(v)


def one_of(value: Any, arg: str, meanings: dict[str, str]) -> str:
    """``value`` if it is one of the names of ``meanings`` (name -> what it means), else a
    ValueError that names ``arg`` and says what each name means.

    Example:
        >>> one_of("CHW", "layout", {"HWC": "channels last", "CHW": "channels first"})
        'CHW'
    """
    if not isinstance(value, str) or value not in meanings:
        said = [f"{name!r} ({what})" for name, what in meanings.items()]
        raise ValueError(f"{arg} must be {', '.join(said[:-1])} or {said[-1]}, got {value!r}")
    return value


def count(v: Any, arg: str, minimum: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{arg} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def check_align(align_corners: Any) -> int:
    if type(align_corners) in (int, bool) and align_corners in (0, 1):  # the common case, fast
        return int(align_corners)
    if isinstance(align_corners, (bool, np.bool_)):
        return int(align_corners)
    if isinstance(align_corners, (int, np.integer)) and int(align_corners) in (0, 1):
        return int(align_corners)
    raise ValueError(f"align_corners must be a bool or 0/1, got {align_corners!r}")


def matrix3(a, stack: bool = False) -> np.ndarray:
    """A (3, 3) float64 matrix from (3, 3) or (2, 3); with ``stack``, (K, 3, 3) from (K, 3, 3) or
    (K, 2, 3) as well. Non-finite entries raise, naming the matrix."""
    m = np.asarray(a, dtype=np.float64)
    ok = m.shape[-2:] in ((2, 3), (3, 3)) and (m.ndim == 2 or (stack and m.ndim == 3))
    if not ok:
        want = "(3, 3) or (2, 3)" + (", or a stack (K, 3, 3) / (K, 2, 3)" if stack else "")
        raise ValueError(f"a matrix must have shape {want}, got {m.shape}")
    if m.ndim == 2:  # one matrix, in Python floats (numpy's per-call costs outweigh the work)
        rows = m.tolist()
        if len(rows) == 2:
            rows.append([0.0, 0.0, 1.0])
        if not all(map(math.isfinite, rows[0] + rows[1] + rows[2])):
            raise ValueError(f"a matrix must be finite, got {rows}")
        return np.array(rows)
    if m.shape[-2] == 2:
        m = np.concatenate([m, np.broadcast_to([0.0, 0.0, 1.0], (*m.shape[:-2], 1, 3))], axis=-2)
    if not np.isfinite(m).all():
        bad = m if m.ndim == 2 else m[np.argwhere(~np.isfinite(m).all(axis=(1, 2)))[0, 0]]
        raise ValueError(f"a matrix must be finite, got {bad.tolist()}")
    return m


def boxes_array(boxes, single: bool = False) -> np.ndarray:
    """``boxes`` as float64 [x1, y1, x2, y2] rows, (K, 4) (or (4,) with ``single``), all finite;
    the one check of box arguments (``transform_boxes``, ``warpkit.crop_rois``)."""
    try:
        raw = np.asarray(boxes)
        if raw.dtype.kind not in "iuf":  # strings ("0088" would read as 0, 0, 8, 8), objects
            raise TypeError
        b = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"boxes must be numbers [x1, y1, x2, y2], got {boxes!r}") from None
    if b.shape[-1:] != (4,) or b.ndim not in ((1, 2) if single else (2,)):
        raise ValueError(f"boxes must have shape (K, 4){' or (4,)' if single else ''} as "
                         f"[x1, y1, x2, y2], got {b.shape}")
    if not np.isfinite(b).all():
        raise ValueError("boxes must be finite")
    return b


def batch_index_array(batch_indices, k: int, b: int) -> np.ndarray:
    """``batch_indices`` checked as k integers in [0, b), one per box."""
    bi = np.asarray(batch_indices)
    if bi.shape != (k,) or bi.dtype.kind not in "iu":
        raise ValueError(f"batch_indices must be {k} integers, one per box, got {bi.shape} "
                         f"{bi.dtype}")
    if k and (bi.min() < 0 or bi.max() >= b):
        raise ValueError(f"batch_indices must be in [0, {b}), got {bi.min()}..{bi.max()}")
    return bi
