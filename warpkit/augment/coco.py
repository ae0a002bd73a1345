"""COCO annotations through a warp: boxes, polygon and RLE masks, and keypoints.

When an image is warped with a 3x3 map (the ``"matrix"`` a pipeline returns, or any
destination-from-source map of :mod:`warpkit.geometry`), :func:`transform_annotations` gives its
COCO object annotations for the warped image: polygons mapped vertex by vertex and clipped to
the output; RLE masks (compressed or not) decoded, warped with nearest sampling and encoded
again; keypoints mapped, and those that leave the output unlabelled; every ``bbox`` and ``area``
recomputed from what is left, and objects that are left with nothing dropped.

Conventions (those of the COCO format):

- ``bbox`` ``[x, y, width, height]`` and polygon vertices are in **pixel-edge** coordinates:
  ``(0, 0)`` is the top-left corner of the first pixel and ``(W, H)`` the bottom-right corner of
  the last. warpkit's maps have pixel centres at integers, so a vertex ``e`` is mapped as
  ``m(e - 0.5) + 0.5``.
- ``keypoints`` ``[x, y, v, ...]`` are **pixel indices** (centres at integers; ``v`` 0 = not
  labelled, 1 = labelled but hidden, 2 = visible), mapped as they are; a labelled keypoint that
  leaves the output becomes ``0, 0, 0``, as COCO writes unlabelled ones.
- RLE ``counts`` run down the columns (column-major), starting with a run of zeros.

Example:
    >>> from warpkit import geometry as g
    >>> from warpkit.augment.coco import transform_annotations
    >>> ann = {"id": 1, "image_id": 1, "category_id": 3, "bbox": [10, 10, 20, 10],
    ...        "segmentation": [[10, 10, 30, 10, 30, 20, 10, 20]], "area": 200.0, "iscrowd": 0}
    >>> out = transform_annotations([ann], g.flip("h", (100, 50)), (100, 50), (100, 50))
    >>> out[0]["bbox"], out[0]["area"]
    ([70.0, 10.0, 20.0, 10.0], 200.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._checks import matrix3
from .._options import Sampling
from ..engine import warp_by, warp_by_coords
from ..engine.chain import chain_coords, fields_of, forward_jacobians, forward_points
from ._targets import from_xyxy, in_output, jacobian, kept

__all__ = ["rle_decode", "rle_encode", "transform_annotations"]


# -- RLE ---------------------------------------------------------------------------------------

def _counts_from_string(s: str) -> list[int]:
    """COCO's compressed counts (maskApi's rleFrString): 5 bits per character, offset 48, runs
    after the second stored as differences from the run two before."""
    counts: list[int] = []
    p = 0
    while p < len(s):
        x = k = 0
        more = True
        while more:
            if p >= len(s):
                raise ValueError("RLE counts string ends inside a number")
            c = ord(s[p]) - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and c & 0x10:
                x |= -1 << (5 * k)
        if len(counts) > 2:
            x += counts[-2]
        counts.append(x)
    return counts


def _counts_to_string(counts: Sequence[int]) -> str:
    """The inverse of :func:`_counts_from_string` (maskApi's rleToString)."""
    out = []
    for i, x in enumerate(counts):
        x = int(x)
        if i > 2:
            x -= int(counts[i - 2])
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = x != -1 if c & 0x10 else x != 0
            if more:
                c |= 0x20
            out.append(chr(c + 48))
    return "".join(out)


def rle_decode(rle: dict) -> np.ndarray:
    """A COCO RLE (``{"size": [h, w], "counts": str | list}``) as an (h, w) bool mask.

    Example:
        >>> rle_decode({"size": [2, 3], "counts": [1, 2, 3]}).astype(int).tolist()
        [[0, 1, 0], [1, 0, 0]]
    """
    try:
        h, w = (int(v) for v in rle["size"])
        counts = rle["counts"]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"an RLE mask is {{'size': [h, w], 'counts': ...}}, got {rle!r:.80}") \
            from None
    if isinstance(counts, (bytes, str)):
        counts = _counts_from_string(counts.decode() if isinstance(counts, bytes) else counts)
    runs = np.asarray(counts, dtype=np.int64)
    if h < 0 or w < 0 or runs.ndim != 1 or (runs < 0).any() or runs.sum() != h * w:
        raise ValueError(f"RLE counts must be runs that add up to h * w = {h * w}, got "
                         f"{int(runs.sum()) if runs.ndim == 1 else runs.shape} for size "
                         f"[{h}, {w}]")
    values = np.arange(len(runs)) % 2 == 1  # runs alternate 0, 1, 0, ...
    flat = np.repeat(values, runs)
    return flat.reshape(w, h).T


def rle_encode(mask: np.ndarray, compressed: bool = True) -> dict:
    """An (h, w) mask (nonzero = inside) as a COCO RLE; ``compressed``: counts as COCO's string
    (as pycocotools writes them), else as a list of ints.

    Example:
        >>> import numpy as np
        >>> rle_encode(np.array([[0, 1, 0], [1, 0, 0]]), compressed=False)
        {'size': [2, 3], 'counts': [1, 2, 3]}
    """
    m = np.asarray(mask)
    if m.ndim != 2:
        raise ValueError(f"mask must be (h, w), got shape {m.shape}")
    flat = (m != 0).T.reshape(-1)
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    edges = np.concatenate([[0], change, [flat.size]])
    runs = np.diff(edges).tolist()
    if flat.size and flat[0]:
        runs = [0] + runs
    counts: Any = _counts_to_string(runs) if compressed else runs
    return {"size": [int(m.shape[0]), int(m.shape[1])], "counts": counts}


# -- geometry ----------------------------------------------------------------------------------

def _clip_polygon(pts: np.ndarray, W: float, H: float) -> np.ndarray:
    """The part of a polygon inside [0, W] x [0, H] (Sutherland-Hodgman; a convex window keeps
    every polygon's inside exactly, concave ones included)."""
    for axis, limit, keep_below in ((0, 0.0, False), (0, W, True), (1, 0.0, False),
                                    (1, H, True)):
        if not len(pts):
            break
        res = []
        prev = pts[-1]
        for cur in pts:
            cin = cur[axis] <= limit if keep_below else cur[axis] >= limit
            pin = prev[axis] <= limit if keep_below else prev[axis] >= limit
            if cin != pin:  # the edge crosses the line: its crossing point
                t = (limit - prev[axis]) / (cur[axis] - prev[axis])
                res.append(prev + t * (cur - prev))
            if cin:
                res.append(cur)
            prev = cur
        pts = np.array(res, dtype=np.float64).reshape(-1, 2)
    return pts


def _area(pts: np.ndarray) -> float:
    """A simple polygon's area (the shoelace formula)."""
    if len(pts) < 3:
        return 0.0
    x, y = pts[:, 0], pts[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def _map_edges(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Pixel-edge points through a pixel-centre map."""
    return geometry.transform_points(m, pts - 0.5) + 0.5


def _box_of(pts: np.ndarray) -> list[float]:
    lo, hi = pts.min(0), pts.max(0)
    return [float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1])]


def _mask_box(mask: np.ndarray) -> list[float]:
    ys, xs = np.nonzero(mask.any(1))[0], np.nonzero(mask.any(0))[0]
    return [float(xs[0]), float(ys[0]), float(xs[-1] + 1 - xs[0]), float(ys[-1] + 1 - ys[0])]


#: how masks are warped: nearest, zeros outside
_NEAREST = Sampling("nearest", "constant", 0)


def _default_warp_mask(mask: np.ndarray, m: Any, size: tuple[int, int]) -> np.ndarray:
    """A mask warped with nearest sampling and zeros outside, by a matrix or a chain."""
    if isinstance(m, list):  # a chain with non-linear stages
        return warp_by_coords(mask.astype(np.uint8), chain_coords([m], size), size, _NEAREST) != 0
    return warp_by(mask.astype(np.uint8), m, size, _NEAREST, affine=False) != 0


class _Map:
    """How annotations move: by a 3x3 matrix, or by a chain with non-linear stages (points by
    Newton's method, :func:`warpkit.engine.chain.forward_points`). Points are pixel-edge
    coordinates (COCO's)."""

    def __init__(self, matrix: np.ndarray, chain: list | None) -> None:
        self.m = matrix
        self.chain = chain if chain is not None and fields_of(chain) else None

    def points(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(moved pixel-edge points, found)."""
        if self.chain is None:
            return _map_edges(self.m, pts), np.ones(len(pts), bool)
        moved, found = forward_points(self.chain, pts - 0.5)
        return moved + 0.5, found

    def outline(self, pts: np.ndarray) -> np.ndarray:
        """A closed polygon's vertices moved, its edges first cut every ~2 px where the map
        bends them (a chain); the points not found are left out."""
        if self.chain is None:
            return _map_edges(self.m, pts)
        nxt = np.roll(pts, -1, 0)
        steps = np.maximum(1, np.ceil(np.hypot(*(nxt - pts).T) / 2)).astype(np.int64)
        edge = np.repeat(np.arange(len(pts)), steps)
        t = (np.arange(steps.sum()) - np.repeat(np.cumsum(steps) - steps, steps)) / \
            np.repeat(steps, steps)
        dense = pts[edge] + t[:, None] * (nxt - pts)[edge]
        moved, found = self.points(dense)
        return moved[found]

    def det(self, x: float, y: float) -> float:
        """The map's area scale at pixel-centre position (x, y) (1 where it is not found)."""
        if self.chain is None:
            return float(np.linalg.det(jacobian(self.m, x, y)))
        jx, jy = forward_jacobians(self.chain, np.array([[x, y]]))
        d = float(jx[0, 0] * jy[0, 1] - jx[0, 1] * jy[0, 0])
        return d if np.isfinite(d) else 1.0

    def warp(self, warp_mask, src: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        return np.asarray(warp_mask(src, self.m if self.chain is None else self.chain, size),
                          dtype=bool)


def _rle_size(rle: Any, k: Any) -> tuple[int, int]:
    """An RLE's declared (h, w), read before anything is decoded."""
    try:
        h, w = (int(v) for v in rle["size"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"annotation {k}: an RLE mask is {{'size': [h, w], 'counts': ...}}, "
                         f"got {rle!r:.80}") from None
    return h, w


def transform_annotations(
    annotations: Sequence[dict],
    matrix: Any,
    size: tuple[int, int],
    out_size: tuple[int, int],
    *,
    min_visibility: float = 0.0,
    min_area: float = 0.0,
    warp_mask: Callable[[np.ndarray, Any, tuple[int, int]], np.ndarray] | None = None,
    chain: list | None = None,
) -> list[dict]:
    """COCO object annotations of a (width, height) ``size`` image, for that image warped with
    ``matrix`` (3x3 destination-from-source, pixel centres at integers) to ``out_size``.

    Every other key of an annotation is kept (``id`` and ``image_id`` too: renumber them as the
    new dataset needs). An object is dropped when what is left inside the output covers less
    than ``min_visibility`` of its mapped area or less than ``min_area`` pixels, or nothing.

    Args:
        annotations: COCO annotation dicts (``bbox``, optional ``segmentation`` as polygons,
            an RLE or a list of RLEs, ``keypoints``, ``num_keypoints``, ``area``).
        matrix: the warp's map.
        size, out_size: the source image's and the output's (width, height).
        min_visibility, min_area: as :class:`warpkit.augment.Compose`'s.
        warp_mask: ``f(mask, map, out_size) -> mask`` for RLE masks (``map`` is ``matrix``, or
            ``chain`` where one is given); default :func:`warpkit.warp_perspective` (or the
            chain's warp) with nearest sampling and zeros outside.
        chain: for a pipeline with non-linear transforms, its chain
            (``pipeline.stages(out["params"], size)[0]``, whose projective part is ``matrix``):
            objects then move through the same fields as the image (polygon edges cut every
            ~2 px so that they bend with it; points the map does not find are left out).

    Returns:
        The moved annotations, in order, without the dropped ones: ``bbox`` the box around the
        mask or polygons left (for an object without ``segmentation``, around the part of its
        moved box outline inside the output), ``area`` the mask's pixels or the polygons' area
        (for an object without ``segmentation``, its area times the map's local area change
        and the visible fraction of its box), polygons in the same nesting, RLE masks in the
        same form (compressed or not; a list of RLEs each moved).
    """
    m = matrix3(np.asarray(matrix, dtype=np.float64))
    mp = _Map(m, chain)
    W, H = (int(v) for v in size)
    Wo, Ho = (int(v) for v in out_size)
    warp_mask = warp_mask or _default_warp_mask
    out = []
    for k, ann in enumerate(annotations):
        if not isinstance(ann, dict):
            raise ValueError(f"annotations[{k}] must be a dict, got {type(ann).__name__}")
        new = dict(ann)
        name = ann.get("id", k)
        seg = ann.get("segmentation")
        if isinstance(seg, dict) or (isinstance(seg, list) and seg and isinstance(seg[0], dict)):
            rles = [seg] if isinstance(seg, dict) else seg
            for rle in rles:  # the declared size first: a few bytes can declare 60000 x 60000
                if not isinstance(rle, dict):
                    raise ValueError(f"annotation {name}: its segmentation mixes RLE masks and "
                                     f"polygons")
                if _rle_size(rle, name) != (H, W):
                    h, w = _rle_size(rle, name)
                    raise ValueError(f"annotation {name}: its RLE mask is {w}x{h}, the image "
                                     f"{W}x{H}")
            srcs = [rle_decode(rle) for rle in rles]
            union = np.logical_or.reduce(srcs)
            ys, xs = np.nonzero(union)
            full = float(len(xs)) * abs(mp.det(xs.mean(), ys.mean()) if len(xs) else 1.0)
            moved = [mp.warp(warp_mask, src, (Wo, Ho)) for src in srcs]
            covered = np.logical_or.reduce(moved)
            area = float(covered.sum())
            if not kept(area, full, min_visibility, min_area):
                continue
            enc = [rle_encode(mv, compressed=isinstance(rle["counts"], (str, bytes)))
                   for mv, rle in zip(moved, rles)]
            new["segmentation"] = enc[0] if isinstance(seg, dict) else enc
            new["bbox"], new["area"] = _mask_box(covered), area
        elif isinstance(seg, list) and seg:
            polys, area, full = [], 0.0, 0.0
            for p in seg:
                pts = np.asarray(p, dtype=np.float64).reshape(-1, 2)
                mapped = mp.outline(pts)
                full += _area(mapped)
                clipped = _clip_polygon(mapped, Wo, Ho)
                a = _area(clipped)
                if a > 0:
                    polys.append(clipped)
                    area += a
            if not polys or not kept(area, full, min_visibility, min_area):
                continue
            new["segmentation"] = [[round(float(v), 3) for v in p.reshape(-1)] for p in polys]
            new["bbox"], new["area"] = _box_of(np.concatenate(polys)), area
        elif "bbox" in ann:
            x, y, w, h = (float(v) for v in ann["bbox"])
            corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
            outline = mp.outline(corners)
            if not len(outline):
                continue
            lo, hi = outline.min(0), outline.max(0)
            box = geometry.clipped_bounds(outline[None], (Wo, Ho),
                                          fallback=[[*lo, *hi]])[0]
            full = float(np.prod(hi - lo))
            inside = max(box[2] - box[0], 0) * max(box[3] - box[1], 0)
            if not kept(inside, full, min_visibility, min_area):
                continue
            new["bbox"] = [float(v) for v in from_xyxy(box[None], "coco", (Wo, Ho))[0]]
            if "area" in ann and full > 0:
                # the object's own area, scaled as the map scales areas there, times the
                # fraction of its box left inside (not the box's growth: a box turned 45
                # degrees encloses twice its area)
                scale = abs(mp.det(x + w / 2 - 0.5, y + h / 2 - 0.5))
                new["area"] = float(ann["area"]) * scale * inside / full
        else:
            raise ValueError(f"annotation {name} has neither bbox nor segmentation")
        if "bbox" in new:
            new["bbox"] = [round(v, 3) for v in new["bbox"]]
        if ann.get("keypoints"):
            new["keypoints"], new["num_keypoints"] = _keypoints(ann["keypoints"], mp, Wo, Ho)
        out.append(new)
    return out


def _keypoints(kps: Sequence[float], mp: _Map, Wo: int, Ho: int) -> tuple[list, int]:
    k = np.asarray(kps, dtype=np.float64).reshape(-1, 3)
    labelled = k[:, 2] > 0
    xy, found = mp.points(k[:, :2] + 0.5)  # pixel indices: centres at integers
    xy -= 0.5
    with np.errstate(invalid="ignore"):
        inside = found & in_output(xy[:, 0], xy[:, 1], (Wo, Ho))
    keep = labelled & inside
    res = np.where(keep[:, None], np.column_stack([xy, k[:, 2]]), 0.0)
    flat = [round(float(v), 3) if i % 3 < 2 else int(v) for i, v in enumerate(res.reshape(-1))]
    return flat, int(keep.sum())
