"""2-D geometry on the host: 3x3 pixel-space matrices, their builders, and converters to the
conventions of OpenCV, Pillow, scipy and torch-style normalized ``theta`` (to and from each).

Conventions (every function of warpkit that takes a matrix follows them)
------------------------------------------------------------------------
- **Pixel centres are at integer coordinates.** The top-left pixel's centre is ``(0, 0)``; the
  image covers ``[-0.5, W - 0.5] x [-0.5, H - 0.5]``.
- **x points right, y points down**, and points are ``(x, y)`` (column, row).
- A matrix maps **source to destination** (``dst_from_src``), as OpenCV's ``warpAffine`` matrix
  does: ``(x_dst, y_dst, w) = M @ (x_src, y_src, 1)``, then divide by ``w`` (``w == 1`` for affine
  maps). Warps sample the source at ``inverse(M) @ (x_dst, y_dst, 1)``.
- **Positive angles turn the picture counter-clockwise** on screen (as in OpenCV's
  ``getRotationMatrix2D`` and Pillow's ``Image.rotate``).
- ``compose(a, b, c)`` applies ``a`` first, then ``b``, then ``c`` (it returns ``c @ b @ a``).

All matrices are float64 ``numpy`` arrays of shape (3, 3).

Example:
    >>> from warpkit import geometry as g
    >>> m = g.compose(g.rotation(30, center=(320, 240)), g.translation(10, 0))
    >>> g.to_cv2(m).shape
    (2, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import batch_index_array, boxes_array, matrix3, number

__all__ = [
    "affine_from_points",
    "box_corners",
    "clipped_bounds",
    "compose",
    "flip",
    "from_cv2",
    "from_pillow",
    "from_scipy",
    "from_theta",
    "identity",
    "invert",
    "is_affine",
    "perspective_from_points",
    "perspectives_from_points",
    "rotation",
    "scale",
    "shear",
    "to_cv2",
    "to_pillow",
    "to_scipy",
    "to_theta",
    "transform_boxes",
    "transform_points",
    "translation",
    "distort_points",
    "undistort_maps",
]


def _about(m: np.ndarray, center: Sequence[float] | None) -> np.ndarray:
    if center is None:
        return m
    try:
        cx, cy = center
    except (TypeError, ValueError):
        raise ValueError(f"center must be (x, y), got {center!r}") from None
    cx, cy = number(cx, "center x"), number(cy, "center y")
    return translation(cx, cy) @ m @ translation(-cx, -cy)


def identity() -> np.ndarray:
    """The identity map (a new array each call)."""
    return IDENTITY.copy()  # cheaper than np.eye(3); pipelines make several per sample


IDENTITY = np.eye(3)
# shared (pipelines' chains hold it where no map was multiplied in, and skip its arithmetic by
# identity: `m is IDENTITY`): read-only, so that no caller can change it for everyone
IDENTITY.flags.writeable = False


def translation(dx: float, dy: float) -> np.ndarray:
    """Move the picture by ``(dx, dy)`` pixels (right and down)."""
    m = IDENTITY.copy()
    m[0, 2], m[1, 2] = number(dx, "dx"), number(dy, "dy")
    return m


def rotation(degrees: float, center: Sequence[float] | None = (0.0, 0.0)) -> np.ndarray:
    """Turn the picture by ``degrees`` counter-clockwise on screen about ``center`` (x, y).

    Equal to OpenCV's ``getRotationMatrix2D(center, degrees, 1)`` (as a 3x3 matrix).
    """
    deg = number(degrees, "degrees")
    if deg % 90 == 0:  # quarter turns exactly: cos(90 deg) is 6e-17 in floating point
        c, s = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][int(deg // 90) % 4]
    else:
        a = math.radians(deg)
        c, s = math.cos(a), math.sin(a)
    # y points down: a counter-clockwise turn on screen is x' = c x + s y, y' = -s x + c y
    return _about(np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]), center)


def scale(sx: float, sy: float | None = None, center: Sequence[float] | None = None) -> np.ndarray:
    """Scale by ``sx`` horizontally and ``sy`` (default ``sx``) vertically about ``center``."""
    sx = number(sx, "sx")
    sy = sx if sy is None else number(sy, "sy")
    return _about(np.diag([sx, sy, 1.0]), center)


def shear(x_degrees: float, y_degrees: float = 0.0,
          center: Sequence[float] | None = None) -> np.ndarray:
    """Shear: x moves by ``tan(x_degrees) * y``, y by ``tan(y_degrees) * x``, about ``center``."""
    m = IDENTITY.copy()
    m[0, 1] = math.tan(math.radians(number(x_degrees, "x_degrees")))
    m[1, 0] = math.tan(math.radians(number(y_degrees, "y_degrees")))
    return _about(m, center)


def flip(direction: str, size: Sequence[int]) -> np.ndarray:
    """Mirror an image of ``size = (W, H)``: ``"h"`` left-right, ``"v"`` top-bottom.

    The flipped image covers the same pixels: pixel ``x`` moves to ``W - 1 - x``.
    """
    w, h = (int(v) for v in size)
    if direction in ("h", "horizontal"):
        return np.array([[-1.0, 0.0, w - 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    if direction in ("v", "vertical"):
        return np.array([[1.0, 0.0, 0.0], [0.0, -1.0, h - 1.0], [0.0, 0.0, 1.0]])
    raise ValueError(f"direction must be 'h' or 'v', got {direction!r}")


def compose(*matrices) -> np.ndarray:
    """The map that applies ``matrices[0]`` first, then ``matrices[1]``, and so on."""
    out = IDENTITY.copy()
    for m in matrices:
        out = matrix3(m) @ out
    return out


def _adjugate(a, b, c, d, e, f, g, h, i):
    """The adjugate's nine entries (row-major) and the determinant of ((a, b, c), (d, e, f),
    (g, h, i)); the entries are floats or arrays of a stack's entries alike."""
    ca, cb, cc = e * i - f * h, f * g - d * i, d * h - e * g
    adj = (ca, c * h - b * i, b * f - c * e,
           cb, a * i - c * g, c * d - a * f,
           cc, b * g - a * h, a * e - b * d)
    return adj, a * ca + b * cb + c * cc


_IDENTITY_ROWS = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_IDENTITY_LISTS = [list(r) for r in _IDENTITY_ROWS]


def singular_error(det: float) -> ValueError:
    return ValueError(f"the matrix is singular (determinant {det:.3g}) and has no inverse")


def invert(m) -> np.ndarray:
    """The inverse map (``dst_from_src`` becomes ``src_from_dst``); a singular matrix raises.

    Also takes a stack (K, 3, 3) / (K, 2, 3) and inverts every matrix at once (the adjugate over
    the determinant, without LAPACK: numpy's LAPACK calls wake OpenBLAS threads that then spin
    beside the OpenCL device's). A single matrix is inverted in Python floats, the same
    arithmetic: numpy's per-call costs on 3x3 arrays outweigh the work.
    """
    return invert_checked(matrix3(m, stack=True))


def invert_checked(m: np.ndarray) -> np.ndarray:
    """:func:`invert` of what :func:`matrix3` returned (float64, finite, (3, 3) or (K, 3, 3))."""
    # translations of any size are fine; what matters is whether m @ inv gives back the identity
    if m.ndim == 2 or len(m) == 1:  # one matrix (or a batch of one): in Python floats
        rows = m.tolist()
        if m.ndim == 3:
            rows = rows[0]
        if rows == _IDENTITY_LISTS:  # a pipeline's maps around a stage alone: its own inverse
            return m.copy()
        adj, det = _adjugate(*rows[0], *rows[1], *rows[2])
        if det == 0 or not math.isfinite(det):
            raise singular_error(det)
        i0, i1, i2, i3, i4, i5, i6, i7, i8 = inv = [v / det for v in adj]
        if not all(map(math.isfinite, inv)):
            raise singular_error(det)
        for (a, b, c), (e0, e1, e2) in zip(rows, _IDENTITY_ROWS):
            if not (abs(a * i0 + b * i3 + c * i6 - e0) <= 1e-6 + 1e-5 * e0
                    and abs(a * i1 + b * i4 + c * i7 - e1) <= 1e-6 + 1e-5 * e1
                    and abs(a * i2 + b * i5 + c * i8 - e2) <= 1e-6 + 1e-5 * e2):
                raise singular_error(det)
        out = np.array(inv).reshape(3, 3)
        return out if m.ndim == 2 else out[None]
    if (m == m[:1]).all():  # one matrix repeated (a pipeline's identities, one camera): once
        return np.repeat(invert_checked(m[:1]), len(m), axis=0)
    inv, det, good = _stack_inverse(m)
    if not good.all():
        raise singular_error(det[np.argwhere(~good)[0, 0]])
    return inv


def _stack_inverse(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stack's inverses by the adjugate, their determinants, and which are good (finite, and
    m @ inv within 1e-5 of the identity)."""
    with np.errstate(all="ignore"):
        adj, det = _adjugate(*(m[..., r, c] for r in range(3) for c in range(3)))
        inv = np.stack(adj, axis=-1).reshape(m.shape) / det[..., None, None]
        err = np.abs(np.einsum("...ij,...jl->...il", m, inv) - np.eye(3))
        good = (np.isfinite(inv).all(axis=(-2, -1))
                & (err <= 1e-6 + 1e-5 * np.eye(3)).all(axis=(-2, -1)))
    return inv, det, good


def inverses_or_nan(m: np.ndarray) -> np.ndarray:
    """The inverses of a (K, 3, 3) stack (float64) as :func:`invert_checked` makes them, NaN
    where a matrix has none (instead of an error)."""
    inv, _, good = _stack_inverse(np.asarray(m, np.float64).reshape(-1, 3, 3))
    inv[~good] = np.nan
    return inv


def is_affine(m) -> bool:
    """Whether the last row is (0, 0, 1) (each entry within 1e-12); for a stack, of every matrix."""
    return is_affine_checked(matrix3(m, stack=True))


def is_affine_checked(m: np.ndarray) -> bool:
    """:func:`is_affine` of what :func:`matrix3` returned."""
    last = m[..., 2, :].reshape(-1, 3).tolist()
    return all(abs(x) < 1e-12 and abs(y) < 1e-12 and abs(w - 1) < 1e-12 for x, y, w in last)


def _each(mm: np.ndarray, batch_indices: Any, k: int, item: str) -> np.ndarray:
    """(k, 3, 3): the map of each of k items, from one map (checked by matrix3) or a stack
    indexed by ``batch_indices``."""
    if mm.ndim == 3:
        if batch_indices is None:
            raise ValueError(f"a stack of {len(mm)} matrices needs batch_indices: the matrix of "
                             f"each {item}")
        return mm[batch_index_array(batch_indices, k, len(mm))]
    if batch_indices is not None:
        raise ValueError("batch_indices only apply to a stack of matrices (B, 3, 3)")
    return np.broadcast_to(mm, (k, 3, 3))


def transform_points(m, points, batch_indices=None) -> np.ndarray:
    """Apply ``m`` to ``(..., 2)`` points (x, y), with the perspective divide (points on the
    map's horizon come out infinite or NaN). Elementwise: a matrix product would wake
    OpenBLAS's threads, which fight PoCL's for the cores.

    ``m`` is a (3, 3) / (2, 3) map, or a stack (B, 3, 3) / (B, 2, 3) with ``batch_indices``:
    then ``points`` is (K, 2) and point k goes through matrix ``batch_indices[k]`` (the points
    of a whole batch in one call, each exactly as it would be through its own matrix).

    Example:
        >>> from warpkit import geometry as g
        >>> g.transform_points(g.translation(5, 1), [[0, 0], [2, 3]]).tolist()
        [[5.0, 1.0], [7.0, 4.0]]
        >>> stack = np.stack([g.translation(5, 0), g.scale(2)])
        >>> g.transform_points(stack, [[1, 1], [1, 1]], batch_indices=[0, 1]).tolist()
        [[6.0, 1.0], [2.0, 2.0]]
    """
    p = np.asarray(points, dtype=np.float64)
    if batch_indices is None:
        e = matrix3(m).tolist()  # (Python floats: numpy's scalars cost more per operation)
    else:
        if p.ndim != 2 or p.shape[1] != 2:
            raise ValueError(f"points with batch_indices must be (K, 2), got {p.shape}")
        # entry (i, j) of each point's matrix: the same operations, element by element, as
        # one matrix's scalars would take
        e = _each(matrix3(m, stack=True), batch_indices, len(p), "point").transpose(1, 2, 0)
    x, y = p[..., 0], p[..., 1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = e[2][0] * x + e[2][1] * y + e[2][2]
        return np.stack([(e[0][0] * x + e[0][1] * y + e[0][2]) / w,
                         (e[1][0] * x + e[1][1] * y + e[1][2]) / w], -1)


def jacobian(m: Any, x: float, y: float) -> tuple[float, float, float, float] | None:
    """The Jacobian (a, b; c, e) of the 3x3 map ``m`` (array or nested lists) at point (x, y);
    None where the point maps to infinity. (Not in ``__all__``: warpkit's own helper.)"""
    (m0, m1, m2), (m3, m4, m5), (m6, m7, m8) = m
    d = m6 * x + m7 * y + m8
    if abs(d) < 1e-12:
        return None
    u, v = (m0 * x + m1 * y + m2) / d, (m3 * x + m4 * y + m5) / d
    return (m0 - u * m6) / d, (m1 - u * m7) / d, (m3 - v * m6) / d, (m4 - v * m7) / d


def box_corners(m, boxes, batch_indices=None) -> np.ndarray:
    """The four corners of each pixel-edge box ``[x1, y1, x2, y2]`` through the map ``m``, in
    order around the box ((x1, y1), (x2, y1), (x2, y2), (x1, y2)): (K, 4, 2), pixel-edge
    coordinates. ``m`` and ``batch_indices`` as :func:`transform_boxes` takes them.

    Example:
        >>> from warpkit import geometry as g
        >>> g.box_corners(g.translation(5, 0), [[0, 0, 2, 1]]).tolist()
        [[[5.0, 0.0], [7.0, 0.0], [7.0, 1.0], [5.0, 1.0]]]
    """
    bb = boxes_array(boxes, single=True).reshape(-1, 4)
    return corners_of(_each(matrix3(m, stack=True), batch_indices, len(bb), "box"), bb)


def corners_of(per: np.ndarray, bb: np.ndarray) -> np.ndarray:
    """:func:`box_corners` of (K, 4) float64 boxes ``bb``, each through its own (K, 3, 3) map
    ``per``, both checked already (finite; warpkit's own targets, moved after the warp that
    checked their maps). (Not in ``__all__``: warpkit's own helper.)"""
    return outline_of(per, bb, np.stack([bb[:, [0, 2, 2, 0]], bb[:, [1, 1, 3, 3]]], -1))


def outline_of(per: np.ndarray, bb: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Pixel-edge points ``pts`` (K, P, 2) on each box of ``bb`` (K, 4) (its corners, or
    albumentations' ellipse in it), each box's through its own (K, 3, 3) map ``per``; a box
    with a point the map sends to infinity or behind the camera is refused, naming it. (Not in
    ``__all__``: warpkit's own helper, as :func:`corners_of`.)"""
    x, y = pts[..., 0] - 0.5, pts[..., 1] - 0.5  # (pixel-centre coordinates)
    e = per[..., None]  # (K, 3, 3, 1): each row's coefficient for the K boxes' P points
    # each row (m0 x + m2) + m1 y: the order of :func:`few_box_bounds`'s Python floats, and
    # the one numpy's einsum (which this replaced) took on the build it was measured on
    h = [(e[:, i, 0] * x + e[:, i, 2]) + e[:, i, 1] * y for i in range(3)]
    behind = ~(h[2] > 0).all(axis=1)
    if behind.any():
        _behind(int(np.flatnonzero(behind)[0]), bb)
    return np.stack([h[0] / h[2] + 0.5, h[1] / h[2] + 0.5], -1)


def _behind(k: int, bb) -> None:
    """Refuse box ``k`` of ``bb``, a corner of which its map sends past the horizon."""
    raise ValueError(f"box {k} {np.asarray(bb[k]).tolist()} has a corner the perspective map "
                     "sends to infinity or behind the camera")


def few_box_bounds(mats: np.ndarray, which: np.ndarray, bb: np.ndarray,
                   sizes: list, cut: bool = True) -> tuple[np.ndarray, ...] | None:
    """For a few boxes (a sample's, up to :data:`FEW_POLYGONS`): (the box around each of the
    (K, 4) float64 boxes ``bb`` through its sample's map ``mats[which[k]]``, that box cut by
    its output of ``sizes[which[k]]`` = (W, H) as ``clipped_bounds(corners, sizes,
    fallback=mapped)`` cuts it, the first's area, the second's), or None where a corner is not
    finite, in Python floats: the values of :func:`corners_of` and :func:`clipped_bounds` (the
    same operations in the same order; ``tests/test_geometry.py`` holds them equal) without
    numpy's cost per call on arrays of a few rows (~55 us instead of ~120 for 10 boxes). Maps
    and boxes checked already, as :func:`corners_of` takes them. ``cut=False``: the box
    around each whole outline clipped to its output instead (albumentations' rule). (Not in
    ``__all__``: warpkit's own helper.)"""
    M, lims = mats.tolist(), [(float(w), float(h)) for w, h in sizes]
    mapped, clipped, area, inside = [], [], [], []
    for k, (j, (x1, y1, x2, y2)) in enumerate(zip(which.tolist(), bb.tolist())):
        (m0, m1, m2), (m3, m4, m5), (m6, m7, m8) = M[j]
        W, H = lims[j]
        P = []
        for x, y in ((x1, y1), (x2, y1), (x2, y2), (x1, y2)):  # (corners_of's order)
            x, y = x - 0.5, y - 0.5
            w = (m6 * x + m8) + m7 * y
            if not w > 0:
                _behind(k, bb)
            P.append([((m0 * x + m2) + m1 * y) / w + 0.5, ((m3 * x + m5) + m4 * y) / w + 0.5])
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = P
        # (comparisons for min and max, as _cut_one: the same values, zero signs too)
        lx = ax if ax <= bx else bx
        lx = lx if lx <= cx else cx
        lx = lx if lx <= dx else dx
        ly = ay if ay <= by else by
        ly = ly if ly <= cy else cy
        ly = ly if ly <= dy else dy
        hx = ax if ax >= bx else bx
        hx = hx if hx >= cx else cx
        hx = hx if hx >= dx else dx
        hy = ay if ay >= by else by
        hy = hy if hy >= cy else cy
        hy = hy if hy >= dy else dy
        box = [lx, ly, hx, hy]
        if not (-math.inf < lx <= hx < math.inf and -math.inf < ly <= hy < math.inf):
            return None  # (a corner past float64's range, or NaN: numpy's path has the rules)
        mapped.append(box)
        if not (lx >= 0 and ly >= 0 and hx <= W and hy <= H):
            part = _cut_one(P, W, H) if cut else [math.nan]
            if part[0] != part[0]:  # nothing inside, or cut=False: the box clipped
                part = [0.0 if lx < 0.0 else W if lx > W else lx,
                        0.0 if ly < 0.0 else H if ly > H else ly,
                        0.0 if hx < 0.0 else W if hx > W else hx,
                        0.0 if hy < 0.0 else H if hy > H else hy]
            box = part
        clipped.append(box)
        area.append((hx - lx) * (hy - ly))
        # (its sides are never negative: a cut box's ends are in order, a clipped one's too)
        inside.append((box[2] - box[0]) * (box[3] - box[1]))
    return (np.array(mapped).reshape(-1, 4), np.array(clipped).reshape(-1, 4), np.array(area),
            np.array(inside))


def transform_boxes(m, boxes, batch_indices=None, clip: Sequence[int] | None = None) -> np.ndarray:
    """The boxes that enclose ``boxes`` after the map ``m``: what a box annotation becomes when its
    image is warped with ``m`` (e.g. by :class:`warpkit.augment.RandomAffine`).

    Boxes are ``[x1, y1, x2, y2]`` in **pixel-edge** coordinates, as :func:`warpkit.crop_rois`
    takes them: ``(0, 0, W, H)`` is a whole W x H image. Their four corners are mapped (edge
    coordinate ``e`` is pixel-centre coordinate ``e - 0.5``) and enclosed again, so a rotated box
    grows to the axis-aligned box around it.

    Args:
        m: a (3, 3) / (2, 3) map, or a stack (B, 3, 3) / (B, 2, 3) with ``batch_indices``.
        boxes: (K, 4) or (4,) boxes.
        batch_indices: for a stack, the matrix of each box (K integers in [0, B)).
        clip: ``(W, H)`` (or (K, 2), one per box): the box around the part of the mapped
            outline inside that output image (:func:`clipped_bounds`); a box that leaves it
            entirely is clipped to zero width or height: drop those yourself.

    Returns:
        float64 boxes of the shape given.

    Example:
        >>> from warpkit import geometry as g
        >>> g.transform_boxes(g.flip("h", (100, 50)), [10, 0, 30, 20]).tolist()
        [70.0, 0.0, 90.0, 20.0]
    """
    b = boxes_array(boxes, single=True)
    p = box_corners(m, b, batch_indices)
    if clip is not None:
        # the box around the part of the mapped quadrilateral inside the image: a rotated box
        # cut by the border is not the clipped box around it (that is loose by the corner cut
        # off)
        out = clipped_bounds(p, np.asarray(clip, np.float64), fallback=_bounds(p))
    else:
        out = _bounds(p)
    return out.reshape(b.shape)


def _bounds(p: np.ndarray) -> np.ndarray:
    """(K, 4) boxes around (K, P, 2) points."""
    return np.concatenate([p.min(axis=1), p.max(axis=1)], axis=1)


def clipped_bounds(polygons, size, fallback=None) -> np.ndarray:
    """The box ``[x1, y1, x2, y2]`` around the part of each polygon inside its image
    ``[0, W] x [0, H]`` (pixel-edge coordinates): what a box annotation becomes when its
    outline, mapped, is cut by the image border.

    Exact for convex polygons (a box through a projective map); for others (a box's outline
    through a non-linear map) a box around the part inside, which may be a little loose.

    Args:
        polygons: (K, P, 2) vertices in order around each polygon (NaN vertices are skipped).
        size: ``(W, H)`` for all, or (K, 2) one per polygon.
        fallback: (K, 4) boxes clipped to the image where a polygon has nothing inside it
            (default: NaN).

    Example:
        >>> import numpy as np
        >>> diamond = np.array([[[5.0, -5.0], [15.0, 5.0], [5.0, 15.0], [-5.0, 5.0]]])
        >>> clipped_bounds(diamond, (10, 10)).tolist()   # the clipped box around it: 0..10
        [[0.0, 0.0, 10.0, 10.0]]
        >>> clipped_bounds(diamond, (4, 4)).tolist()     # only its middle is inside
        [[0.0, 0.0, 4.0, 4.0]]
    """
    p = np.asarray(polygons, np.float64)
    K = len(p)
    lim = np.broadcast_to(np.asarray(size, np.float64), (K, 2))
    finite = np.isfinite(p).all()
    if not finite:
        p = _filled(p)
    out = np.concatenate([p.min(1), p.max(1)], 1)
    inside = (out[:, :2] >= 0).all(1) & (out[:, 2:] <= lim).all(1)  # NaN: not inside
    if inside.all():
        return out
    # the polygons the border cuts (or that lie outside it): all of them, or some
    cut = np.flatnonzero(~inside)
    if finite and len(cut) <= FEW_POLYGONS:  # (a sample's boxes, one sample per call)
        for k in cut.tolist():
            out[k] = _cut_one(p[k].tolist(), *lim[k].tolist())
    elif inside.any():
        out[cut] = _cut_bounds(p[cut], lim[cut])
    else:
        out = _cut_bounds(p, lim)
    missed = np.isnan(out[:, 0])
    if fallback is not None and missed.any():
        fb = np.asarray(fallback, np.float64).reshape(K, 4)[missed]
        out[missed] = np.clip(fb, 0.0, np.tile(lim[missed], 2))
    return out


def _cut_bounds(p: np.ndarray, size: np.ndarray) -> np.ndarray:
    """clipped_bounds of (K, P, 2) polygons that the border of their images ((K, 2) sizes)
    cuts; NaN where nothing is inside. Each axis's extent is that of the polygon's part between the
    other axis's two border lines (its vertices there and its edges' crossings of the lines),
    cut to [0, W] or [0, H]: exact for convex polygons, where projecting commutes with
    cutting by a slab; a box around the part inside, perhaps a little loose, for others."""
    Q = p.transpose(0, 2, 1)  # (K, 2, P): the x row, the y row
    D = np.roll(Q, -1, 2) - Q  # each edge
    lim = np.asarray(size)[..., None]  # (K, 2, 1)
    O, DO, limO = Q[:, ::-1], D[:, ::-1], lim[:, ::-1]  # the other axis's
    between = (O >= 0) & (O <= limO)
    lines = np.stack([np.zeros_like(limO), limO], 2)  # (K, 2, 2, 1): its two border lines
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (lines - O[:, :, None]) / DO[:, :, None]
        at = Q[:, :, None] + t * D[:, :, None]  # where each edge crosses each line
        crosses = (t >= 0) & (t <= 1)
    lo = np.minimum(np.where(between, Q, np.inf).min(2),
                    np.where(crosses, at, np.inf).min((2, 3)))
    hi = np.maximum(np.where(between, Q, -np.inf).max(2),
                    np.where(crosses, at, -np.inf).max((2, 3)))
    lo = np.maximum(lo, 0.0)
    hi = np.minimum(hi, lim[..., 0])
    out = np.concatenate([lo, hi], 1)
    out[~(lo <= hi).all(1)] = np.nan
    return out


#: up to this many polygons cut by the border are cut in Python floats (:func:`_cut_one`):
#: numpy's calls on arrays of a few rows cost ~130 us whatever their length, a polygon in
#: Python ~3 us
FEW_POLYGONS = 16


def _cut_one(P: list, W: float, H: float) -> list[float]:
    """:func:`_cut_bounds` of one polygon of finite vertices ``P`` (a list of [x, y]) in a
    W x H image, in Python floats: the same operations on each value (numpy's elementwise
    arithmetic is IEEE's, as Python's), the minima and maxima taken over the same candidates
    (tests/test_geometry.py holds the two equal). Comparisons stand for min and max, which
    are calls (a polygon in ~3 us instead of ~6): ``if q < lo: lo = q`` keeps what
    ``min(lo, q)`` keeps, a zero's sign too."""
    n = len(P)
    xs, ys = [v[0] for v in P], [v[1] for v in P]
    res = []
    for Qa, Qo, lim_a, lim_o in ((xs, ys, W, H), (ys, xs, H, W)):
        lo, hi = math.inf, -math.inf
        for q, o in zip(Qa, Qo):  # the vertices between the other axis's border lines
            if 0.0 <= o <= lim_o:
                if q < lo:
                    lo = q
                if q > hi:
                    hi = q
        for v in range(n):  # where each edge crosses those lines
            w = v + 1 if v + 1 < n else 0
            q, o = Qa[v], Qo[v]
            dq, do = Qa[w] - q, Qo[w] - o
            if do == 0.0:  # t infinite or NaN: never in [0, 1]
                continue
            for line in (0.0, lim_o):
                t = (line - o) / do
                if 0.0 <= t <= 1.0:
                    at = q + t * dq
                    if at < lo:
                        lo = at
                    if at > hi:
                        hi = at
        res.append((0.0 if lo < 0.0 else lo, lim_a if lim_a < hi else hi))  # (max, min)
    (lx, hx), (ly, hy) = res
    if not (lx <= hx and ly <= hy):
        return [math.nan] * 4
    return [lx, ly, hx, hy]


def _filled(p: np.ndarray) -> np.ndarray:
    """(K, P, 2) polygon vertices with the NaN ones (points a non-linear map did not find)
    replaced by the vertex before them, around the polygon: the polygon of the vertices found
    (one with none found stays NaN)."""
    bad = ~np.isfinite(p).all(2)
    idx = np.where(bad, -1, np.arange(p.shape[1]))
    last = np.maximum.accumulate(idx, axis=1)
    # before the first vertex found: the last one found (around the polygon)
    last = np.where(last < 0, last[:, -1:], last)
    out = p[np.arange(len(p))[:, None], np.maximum(last, 0)]
    out[last < 0] = np.nan
    return out


def affine_from_points(src, dst) -> np.ndarray:
    """The affine map taking three source points (x, y) to three destination points."""
    src, dst = np.asarray(src, np.float64), np.asarray(dst, np.float64)
    if src.shape != (3, 2) or dst.shape != (3, 2):
        raise ValueError(f"affine_from_points needs 3 points each, got {src.shape} and {dst.shape}")
    a = np.hstack([src, np.ones((3, 1))])
    try:
        sol = np.linalg.solve(a, dst)  # (3, 2)
    except np.linalg.LinAlgError:
        raise ValueError("the three source points are collinear") from None
    return np.vstack([sol.T, [0.0, 0.0, 1.0]])


def perspective_from_points(src, dst) -> np.ndarray:
    """The homography taking four source points (x, y) to four destination points."""
    src, dst = np.asarray(src, np.float64), np.asarray(dst, np.float64)
    if src.shape != (4, 2) or dst.shape != (4, 2):
        raise ValueError(f"perspective_from_points needs 4 points each, got {src.shape} and {dst.shape}")
    h = perspectives_from_points(src[None], dst[None])[0]
    if not np.isfinite(h).all():
        raise ValueError("three of the four source points are collinear")
    return h


def perspectives_from_points(src, dst) -> np.ndarray:
    """:func:`perspective_from_points` of many quadrilaterals at once: ``src`` and ``dst``
    (N, 4, 2) -> (N, 3, 3), NaN where three source points are collinear (OpenCV's
    getPerspectiveTransform's linear system, solved in float64)."""
    src, dst = np.asarray(src, np.float64), np.asarray(dst, np.float64)
    n = len(src)
    x, y, u, v = src[..., 0], src[..., 1], dst[..., 0], dst[..., 1]
    a = np.zeros((n, 8, 8))
    one, zero = np.ones_like(x), np.zeros_like(x)
    a[:, 0::2] = np.stack([x, y, one, zero, zero, zero, -u * x, -u * y], -1)
    a[:, 1::2] = np.stack([zero, zero, zero, x, y, one, -v * x, -v * y], -1)
    rhs = np.stack([u, v], -1).reshape(n, 8)
    try:
        h = np.linalg.solve(a, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:  # one at least singular: those found by their determinant
        flat = np.linalg.det(a) == 0
        a[flat] = np.eye(8)
        try:
            h = np.linalg.solve(a, rhs[..., None])[..., 0]
        except np.linalg.LinAlgError:  # singular in LU, not in det: each alone
            h = np.full((n, 8), np.nan)
            for i in range(n):
                try:
                    h[i] = np.linalg.solve(a[i], rhs[i])
                except np.linalg.LinAlgError:
                    pass
        h[flat] = np.nan
    out = np.concatenate([h, np.ones((n, 1))], 1)
    out[~np.isfinite(h).all(1)] = np.nan
    return out.reshape(n, 3, 3)


# ---- converters ----------------------------------------------------------------------------

def to_cv2(m) -> np.ndarray:
    """OpenCV's matrix: the 2x3 ``M`` of ``cv2.warpAffine(img, M, ...)`` (affine maps), or the
    3x3 of ``cv2.warpPerspective``. Same direction and pixel centres as warpkit."""
    m = matrix3(m)
    return m[:2].copy() if is_affine(m) else m.copy()


def from_cv2(M) -> np.ndarray:
    """warpkit's matrix from OpenCV's 2x3 (warpAffine) or 3x3 (warpPerspective) matrix, as used
    without ``cv2.WARP_INVERSE_MAP``."""
    return matrix3(M)


# Pillow measures positions from the image's corner: its pixel centres are at k + 0.5.
_TO_CORNER = translation(0.5, 0.5)


def to_pillow(m) -> tuple[float, ...]:
    """The ``data`` of Pillow's ``Image.transform(size, Image.AFFINE, data)`` (6 numbers) or
    ``Image.PERSPECTIVE`` (8 numbers): the *inverse* map (output to input) in Pillow's
    corner-based coordinates."""
    m = matrix3(m)
    inv = _TO_CORNER @ invert(m) @ invert(_TO_CORNER)
    inv = inv / inv[2, 2]
    if is_affine(m):
        return tuple(float(v) for v in inv[:2].ravel())
    return tuple(float(v) for v in inv.ravel()[:8])


def from_pillow(data: Sequence[float]) -> np.ndarray:
    """warpkit's matrix from Pillow's AFFINE (6 numbers) or PERSPECTIVE (8 numbers) data."""
    d = [float(v) for v in data]
    if len(d) == 6:
        inv = np.array([d[0:3], d[3:6], [0.0, 0.0, 1.0]])
    elif len(d) == 8:
        inv = np.array([d[0:3], d[3:6], [d[6], d[7], 1.0]])
    else:
        raise ValueError(f"Pillow transform data has 6 (affine) or 8 (perspective) numbers, got {len(d)}")
    return invert(invert(_TO_CORNER) @ inv @ _TO_CORNER)


# scipy orders axes (row, col): (y, x)
_SWAP_XY = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def to_scipy(m) -> np.ndarray:
    """The homogeneous 3x3 ``matrix`` of ``scipy.ndimage.affine_transform(image, matrix)`` for an
    HxW image: it maps output (row, col) to input (row, col), so the inverse map, axes swapped."""
    return _SWAP_XY @ invert(m) @ _SWAP_XY


def from_scipy(matrix) -> np.ndarray:
    """warpkit's matrix from scipy's ``affine_transform`` matrix (3x3, or its 2x3 top rows): the
    inverse of :func:`to_scipy`."""
    return invert(_SWAP_XY @ matrix3(matrix) @ _SWAP_XY)


def _normalizer(size: Sequence[int], align_corners: bool) -> np.ndarray:
    """pixel (x, y) -> normalized [-1, 1] coordinates, as GridSample reads them."""
    w, h = (int(v) for v in size)
    if align_corners:
        sx = 2.0 / (w - 1) if w > 1 else 0.0
        sy = 2.0 / (h - 1) if h > 1 else 0.0
        return np.array([[sx, 0.0, -1.0], [0.0, sy, -1.0], [0.0, 0.0, 1.0]])
    return np.array([[2.0 / w, 0.0, 1.0 / w - 1.0], [0.0, 2.0 / h, 1.0 / h - 1.0], [0.0, 0.0, 1.0]])


def to_theta(m, src_size: Sequence[int], dst_size: Sequence[int] | None = None,
             align_corners: bool = False) -> np.ndarray:
    """torch-style normalized ``theta`` (2x3) for :func:`warpkit.affine_grid` / ``F.affine_grid``:
    it maps normalized output coordinates to normalized input coordinates (the inverse map).

    Sizes are ``(W, H)``; ``dst_size`` defaults to ``src_size``.
    """
    m = matrix3(m)
    if not is_affine(m):
        raise ValueError("theta describes affine maps only; this matrix is a perspective map")
    dst_size = src_size if dst_size is None else dst_size
    t = _normalizer(src_size, align_corners) @ invert(m) @ invert(_normalizer(dst_size, align_corners))
    return t[:2].copy()


def from_theta(theta, src_size: Sequence[int], dst_size: Sequence[int] | None = None,
               align_corners: bool = False) -> np.ndarray:
    """warpkit's matrix from a normalized 2x3 ``theta`` (the inverse of :func:`to_theta`)."""
    dst_size = src_size if dst_size is None else dst_size
    t = matrix3(theta)
    return invert(invert(_normalizer(src_size, align_corners)) @ t @ _normalizer(dst_size, align_corners))


# -- camera lens models ------------------------------------------------------------------------

def _camera(camera_matrix, arg: str = "camera_matrix") -> np.ndarray:
    """A camera matrix as float64 (3, 3), checked; ``arg`` names it in the error."""
    # checked in Python floats (numpy's per-call costs on 9 numbers were most of a lens's
    # making, which every OpticalDistortion sample pays)
    K = np.asarray(camera_matrix, dtype=np.float64)
    k = K.tolist() if K.shape == (3, 3) else None
    if k is None or not all(map(math.isfinite, k[0] + k[1] + k[2])) or k[0][0] == 0 \
            or k[1][1] == 0:
        raise ValueError(f"{arg} must be a finite 3x3 [[fx, 0, cx], [0, fy, cy], "
                         f"[0, 0, 1]] with fx, fy != 0, got {np.asarray(camera_matrix).tolist()}")
    return K


def lens_parts(camera_matrix, dist_coeffs, new_camera_matrix) -> tuple[np.ndarray, ...]:
    """(K, the 12 coefficients k1 k2 p1 p2 k3 k4 k5 k6 s1 s2 s3 s4, zero-padded, the output's
    camera: K where not given), checked."""
    K = _camera(camera_matrix)
    d = [] if dist_coeffs is None else \
        np.asarray(dist_coeffs, dtype=np.float64).reshape(-1).tolist()
    if len(d) not in (0, 4, 5, 8, 12) or not all(map(math.isfinite, d)):
        raise ValueError("dist_coeffs must be 4, 5, 8 or 12 finite numbers (k1, k2, p1, p2[, k3"
                         f"[, k4, k5, k6[, s1, s2, s3, s4]]]), got {len(d)}"
                         + (" (14: the tilted-sensor model is not supported)" if len(d) == 14
                            else ""))
    Kn = K if new_camera_matrix is None else _camera(new_camera_matrix, "new_camera_matrix")
    return K, np.array(d + [0.0] * (12 - len(d))), Kn


def distort_points(camera_matrix, dist_coeffs, points, new_camera_matrix=None) -> np.ndarray:
    """Where the lens puts ``points`` of the ideal (undistorted) image: (..., 2) pixel positions
    of the image ``new_camera_matrix`` (default ``camera_matrix``) sees to those of the distorted
    image, OpenCV's model (radial k1..k6, tangential p1 p2, thin prism s1..s4), in float64.

    Example:
        >>> from warpkit import geometry as g
        >>> K = [[500, 0, 320], [0, 500, 240], [0, 0, 1]]
        >>> g.distort_points(K, [-0.2, 0, 0, 0], [[320, 240], [570, 240]]).round(3).tolist()
        [[320.0, 240.0], [557.5, 240.0]]
    """
    K, d, Kn = lens_parts(camera_matrix, dist_coeffs, new_camera_matrix)
    k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4 = d
    ideal = transform_points(invert(Kn), points)  # normalised camera coordinates
    x, y = ideal[..., 0], ideal[..., 1]
    r2 = x * x + y * y
    kr = (1 + ((k3 * r2 + k2) * r2 + k1) * r2) / (1 + ((k6 * r2 + k5) * r2 + k4) * r2)
    xd = x * kr + 2 * p1 * x * y + p2 * (r2 + 2 * x * x) + s1 * r2 + s2 * r2 * r2
    yd = y * kr + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y + s3 * r2 + s4 * r2 * r2
    return np.stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]], axis=-1)


def undistort_maps(camera_matrix, dist_coeffs, size: Sequence[int],
                   new_camera_matrix=None) -> tuple[np.ndarray, np.ndarray]:
    """The maps that undo lens distortion, as ``cv2.initUndistortRectifyMap(K, dist, None,
    new_K, size, cv2.CV_32FC1)``: for each pixel of the (width, height) undistorted output, its
    position in the distorted image (:func:`distort_points`), as float32 (Ho, Wo) ``map_x`` and
    ``map_y`` for :func:`warpkit.remap`. ``new_camera_matrix`` (default ``camera_matrix``) is the
    output's camera (``cv2.getOptimalNewCameraMatrix`` makes one that keeps every pixel).

    Example:
        >>> from warpkit import geometry as g
        >>> K = [[500, 0, 319.5], [0, 500, 239.5], [0, 0, 1]]
        >>> mx, my = g.undistort_maps(K, [-0.2, 0.05, 0, 0], (640, 480))
        >>> mx.shape, mx.dtype.name
        ((480, 640), 'float32')
    """
    w, h = (int(v) for v in size)
    if w < 1 or h < 1:
        raise ValueError(f"size must be a positive (width, height), got {tuple(size)}")
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    src = distort_points(camera_matrix, dist_coeffs, np.stack([xs, ys], -1), new_camera_matrix)
    return src[..., 0].astype(np.float32), src[..., 1].astype(np.float32)
