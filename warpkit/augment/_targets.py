"""The target rules every augmentation path shares (pipelines and COCO datasets alike): box
formats, which boxes are kept, which keypoints stay visible, and how boxes and keypoints move
through a map or a chain with non-linear stages."""

from __future__ import annotations

import bisect
import itertools
import math
import sys
from typing import Any

import numpy as np

from .. import geometry
from ._dropout import boxes_past_holes
from ._morph import morph_boxes
from ._pixel_dropout import box_pixels_left, dropped_box_pixels
from ..engine.chain import (fields_of, forward_jacobians, forward_points, inverse_points, merge,
                            projective_part)


#: box formats whose numbers are fractions of the image's width and height
NORMALISED_FORMATS = ("yolo", "albumentations")
#: how far past the image (a fraction of its side) a box may reach and still count as inside:
#: albumentations' closeness to 0 and 1 (numpy's isclose)
EDGE_TOLERANCE = 1e-5


def to_xyxy(b: np.ndarray, fmt: str, size) -> np.ndarray:
    """(N, 4) boxes of ``box_format`` ``fmt`` as pixel-edge corners (x1, y1, x2, y2); ``size``
    the image's (width, height), or one per box as an (N, 2) array."""
    if fmt in ("xyxy", "pascal_voc"):
        return b.copy()
    x, y, w, h = b.T
    if fmt == "coco":
        return np.stack([x, y, x + w, y + h], 1)
    W, H = np.asarray(size, dtype=np.float64).T
    if fmt == "albumentations":  # corners as fractions of the image
        return np.stack([x * W, y * H, w * W, h * H], 1)
    # yolo: centre and size as fractions of the image
    return np.stack([(x - w / 2) * W, (y - h / 2) * H, (x + w / 2) * W, (y + h / 2) * H], 1)


def from_xyxy(b: np.ndarray, fmt: str, size) -> np.ndarray:
    """(N, 4) pixel-edge corners as boxes of ``box_format`` ``fmt`` (``size`` as
    :func:`to_xyxy`'s)."""
    if fmt in ("xyxy", "pascal_voc"):
        return b
    x1, y1, x2, y2 = b.T
    if fmt == "coco":
        return np.stack([x1, y1, x2 - x1, y2 - y1], 1)
    W, H = np.asarray(size, dtype=np.float64).T
    if fmt == "albumentations":
        return np.stack([x1 / W, y1 / H, x2 / W, y2 / H], 1)
    return np.stack([(x1 + x2) / 2 / W, (y1 + y2) / 2 / H, (x2 - x1) / W, (y2 - y1) / H], 1)


_CORNERS = ("x1", "y1", "x2", "y2")


def check_boxes(blist: list, llist: list, fmt: str, sizes: list, clip: bool,
                filter_invalid: bool, single: bool, name: str = "boxes") -> tuple[list, list]:
    """Each sample's boxes (:func:`box_rows`) checked against its input's (width, height),
    before any launch, as albumentations' ``BboxParams`` checks them: finite; a positive width
    and height (``x2 > x1``, ``y2 > y1``); inside the image (to :data:`EDGE_TOLERANCE`). With
    ``clip``, boxes are clipped to the image first; with ``filter_invalid``, a box without a
    width or height (after clipping) is dropped with its label instead of refused. Returns the
    boxes and labels to move: new arrays where any changed, the caller's untouched. ``single``:
    the call's boxes are one image's (the messages say ``boxes[j]``, else ``boxes[k][j]``, with
    ``name`` for ``boxes``)."""
    counts = [len(a) for a in blist]
    if not sum(counts):
        return blist, llist
    first = [0, *itertools.accumulate(counts)]  # each sample's first row
    raw = blist[0] if len(blist) == 1 else np.concatenate(blist)
    wh = np.repeat(np.asarray(sizes, dtype=np.float64), counts, axis=0)  # (W, H) per box

    def where(j: int) -> str:
        k = bisect.bisect_right(first, j) - 1
        return f"{name}{'' if single else f'[{k}]'}[{j - first[k]}] {raw[j].tolist()}"

    if not np.isfinite(raw).all():
        raise ValueError(f"{where(int(np.flatnonzero(~np.isfinite(raw).all(1))[0]))}: boxes "
                         "must be finite numbers")
    xyxy = to_xyxy(raw, fmt, wh)
    lim = np.concatenate([wh, wh], 1)
    frac = xyxy / lim
    outside = (frac < -EDGE_TOLERANCE) | (frac > 1 + EDGE_TOLERANCE)
    given_empty = empty = (xyxy[:, 2] <= xyxy[:, 0]) | (xyxy[:, 3] <= xyxy[:, 1])
    clipped = clip and bool(outside.any())
    if clipped:
        xyxy = np.clip(xyxy, 0, lim)
        empty = (xyxy[:, 2] <= xyxy[:, 0]) | (xyxy[:, 3] <= xyxy[:, 1])
    elif outside.any():
        j, c = (int(v[0]) for v in np.nonzero(outside))
        W, H = (int(v) for v in wh[j])
        if fmt in NORMALISED_FORMATS:
            raise ValueError(
                f"{where(j)}: box_format={fmt!r} boxes are fractions of the image, its "
                f"corners in [0, 1]; this one's {_CORNERS[c]} is {frac[j, c]:.6g} of the "
                f"{W}x{H} image (pixel boxes given as {fmt}? or pass clip_boxes=True to clip "
                f"boxes to the image, as albumentations' BboxParams(clip=True))")
        raise ValueError(
            f"{where(j)} reaches outside the {W}x{H} image ({_CORNERS[c]} = "
            f"{xyxy[j, c]:.6g}, the image spans [0, {W if c % 2 == 0 else H}]): pass "
            f"clip_boxes=True to clip boxes to the image, as albumentations' "
            f"BboxParams(clip=True)")
    if empty.any() and not filter_invalid:
        j = int(np.flatnonzero(empty)[0])
        c = 0 if xyxy[j, 2] <= xyxy[j, 0] else 1
        if not given_empty[j]:  # emptied by the clipping
            raise ValueError(f"{where(j)} lies outside the image: clipped to it, it has no "
                             f"{'width' if c == 0 else 'height'} (filter_invalid_boxes=True "
                             f"drops such boxes)")
        if fmt in ("xyxy", "pascal_voc"):
            raise ValueError(
                f"{where(j)} has {_CORNERS[c + 2]} <= {_CORNERS[c]}: box_format={fmt!r} boxes "
                f"are corners [x1, y1, x2, y2] with x2 > x1 and y2 > y1 (a COCO box [x, y, "
                f"width, height] needs box_format='coco'; filter_invalid_boxes=True drops "
                f"such boxes)")
        raise ValueError(f"{where(j)} has no {'width' if c == 0 else 'height'}: "
                         f"box_format={fmt!r} boxes need a positive width and height "
                         f"(filter_invalid_boxes=True drops such boxes)")
    if not clipped and not empty.any():
        return blist, llist
    keep = ~empty
    fixed = from_xyxy(xyxy, fmt, wh) if clipped else raw  # rows only dropped: as given
    boxes, labels = [], []
    for k, lo, hi in zip(range(len(blist)), first[:-1], first[1:]):
        kp = keep[lo:hi]
        boxes.append(fixed[lo:hi][kp])
        labels.append(llist[k] if llist[k] is None or kp.all() else select(llist[k], kp))
    return boxes, labels


#: the least area (square pixels) of a box that is not empty: albumentations' epsilon, which
#: drops a box left with a sliver of rounding error (a yolo box ending on a crop's edge)
EMPTY_AREA = 1e-7


def kept(inside, full, min_visibility: float, min_area: float):
    """The box rule: an object stays where the part of it inside the output (``inside``, in
    square pixels) is not empty (:data:`EMPTY_AREA` or more), covers ``min_area`` and at least
    ``min_visibility`` of its mapped area ``full``; numbers or arrays."""
    return (inside >= EMPTY_AREA) & (inside >= min_area) & (inside >= min_visibility * full)


def in_output(x, y, size):
    """The keypoint rule: positions (pixel centres at integers) inside an output of ``size`` =
    (width, height), whose pixels span [-0.5, W - 0.5) x [-0.5, H - 0.5)."""
    return (x >= -0.5) & (x < size[0] - 0.5) & (y >= -0.5) & (y < size[1] - 0.5)


def jacobian(m: np.ndarray, x: float, y: float) -> np.ndarray:
    """The derivative (2, 2) of the map ``m`` at source point (x, y) (NaN at infinity)."""
    j = geometry.jacobian(m, x, y)
    return np.full((2, 2), np.nan) if j is None else np.array(j).reshape(2, 2)


def box_rows(boxes: Any, what: str = "boxes") -> np.ndarray:
    """Boxes as float64 rows of 4 (their format's numbers), checked before any launch; rows of
    more columns (albumentations' ``[x1, y1, x2, y2, class_id, ...]``) keep the rest after the
    4."""
    try:
        a = np.asarray(boxes, dtype=np.float64)
    except (TypeError, ValueError):
        a = None
    if a is not None and a.ndim == 2 and a.shape[1] > 4:
        return a
    if a is None or a.size % 4 or (a.ndim > 1 and a.shape[-1] != 4):
        raise ValueError(f"{what} must be rows of 4 numbers (box_format's; label columns after "
                         f"them are numbers too), got {boxes!r:.200}")
    return a.reshape(-1, 4)


def move_boxes(pipe, blist, llist, mats, sizes, outs, chains=None, holes=None,
               drops=None, morphs=None, objects=None, steps=None) -> list:
    """[(kept boxes, kept labels)] per sample, of :func:`box_rows` (``blist``) and their labels,
    one per box (both checked by the caller): every sample's boxes mapped in one call (its own
    matrix each), clipped to its output, and dropped below min_visibility / min_area. Through
    non-linear fields (``chains``), a box becomes the box around its mapped outline (points
    along its edges, :func:`_outline`). ``holes``: per sample, None or the (H, W) bool mask of
    the output's dropout holes: a box keeps the fraction they leave of it, shrunk to that part
    (:func:`~warpkit.augment._dropout.boxes_past_holes`). ``drops``: per sample, its
    PixelDropout steps and keys (:func:`~warpkit.augment._pixel_dropout.pixel_drops`): a box
    goes where too few of its pixels are left (min_area, min_visibility of its area), as
    albumentations counts them; steps with per_channel leave boxes as they are. ``morphs``:
    per sample, its Morphological steps (:func:`~warpkit.augment._morph.morph_boxes`: before
    the holes are measured). ``objects``: per sample, its MaskDropout steps' maps of removed
    pixels ((H, W) bool): after each, a box goes where too few of its pixels are left, as
    ``drops`` count them. ``steps``: per sample, its steps' (map, output size) in order
    (Compose's edges="each_step"): a box moves one step at a time, the box around it clipped
    to each step's output, as albumentations moves boxes (its visibility against the box
    moved by the whole map)."""
    arrays = blist
    counts = [len(a) for a in arrays]
    if not sum(counts):
        return list(zip(arrays, llist))
    which, xyxy = _rows_of(arrays, counts, pipe.box_format, sizes)
    method = getattr(pipe, "box_method", "largest_box")
    border = getattr(pipe, "box_border", "outline")
    if steps is None:
        mapped, clipped, area, inside = map_boxes(mats, xyxy, which, outs, chains, method,
                                                  border)
        alive = None
    else:
        mapped, clipped, area, inside, alive = _box_steps(pipe, xyxy, which, sizes, steps,
                                                          method, border)
    for k, steps in enumerate(morphs or ()):
        rows = np.flatnonzero(which == k)
        if steps and len(rows):
            m, c = mapped[rows], clipped[rows]
            morph_boxes(m, c, outs[k], steps)
            mapped[rows], clipped[rows] = m, c
            area[rows] = np.prod(m[:, 2:] - m[:, :2], axis=1)
            inside[rows] = np.prod(np.maximum(c[:, 2:] - c[:, :2], 0), axis=1)
    for k, m in enumerate(holes or ()):
        rows = np.flatnonzero(which == k)
        if m is not None and len(rows):
            frac, clipped[rows] = boxes_past_holes(clipped[rows], m)
            inside[rows] *= frac
    keep = kept(inside, area, pipe.min_visibility, pipe.min_area)
    if alive is not None:
        keep &= alive
    # (nothing to count where no threshold could remove a box)
    for k, d in enumerate(drops or () if pipe.min_area > 0 or pipe.min_visibility > 0 else ()):
        d = [(step, key) for step, key in d or () if not step.per_channel]
        rows = np.flatnonzero(which == k)
        if d and len(rows):
            keep[rows] &= _enough(pipe, dropped_box_pixels(clipped[rows], outs[k], d),
                                  clipped[rows])
    for k, maps in enumerate(objects or () if pipe.min_area > 0 or pipe.min_visibility > 0
                             else ()):
        rows = np.flatnonzero(which == k)
        for m in maps if len(rows) else ():
            left = box_pixels_left(clipped[rows], outs[k],
                                   lambda shape, at, m=m: ~m[at[0]:at[0] + shape[0],
                                                             at[1]:at[1] + shape[1]])
            keep[rows] &= _enough(pipe, left, clipped[rows])
    keep &= _shaped(pipe, clipped)
    res = []
    hi = 0
    for k, n in enumerate(counts):
        lo, hi = hi, hi + n
        kp = keep[lo:hi]
        boxes = from_xyxy(clipped[lo:hi][kp], pipe.box_format, outs[k])
        res.append((boxes, None if llist[k] is None else select(llist[k], kp)))
    return res


def _rows_of(arrays: list, counts: list, fmt: str, sizes: list) -> tuple:
    """(each box's sample, the boxes (K, 4) as pixel-edge corners) of each sample's rows
    (one sample's without numpy's concatenation: a call of one sample)."""
    if len(arrays) == 1:
        return np.zeros(counts[0], np.intp), to_xyxy(arrays[0], fmt, sizes[0])
    return (np.repeat(np.arange(len(arrays)), counts),
            np.concatenate([to_xyxy(a, fmt, s) for a, s in zip(arrays, sizes)]))


def _enough(pipe, left: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
    """Which boxes keep enough pixels (``left``: albumentations' count) for the pipeline's
    min_area and min_visibility, of the box as albumentations holds it then: clipped to the
    output (``xyxy``)."""
    sides = np.maximum(xyxy[:, 2:] - xyxy[:, :2], 0)
    return (left >= pipe.min_area) & (left >= pipe.min_visibility * sides.prod(1))


def _box_steps(pipe, xyxy: np.ndarray, which: np.ndarray, sizes: list, steps: list,
               method: str, border: str) -> tuple:
    """Boxes (K, 4) of the samples ``which`` (inputs of ``sizes``) moved through each sample's
    ``steps`` ((map, output size) in order) one at a time, as albumentations moves them (its
    BboxParams' ``check_each_transform``): after each step, the box around the moved box cut
    to that step's output (``border``), and the boxes that step leaves empty, below
    ``min_area``, ``min_visibility`` of the moved box, ``min_width``, ``min_height`` or past
    ``max_accept_ratio`` dropped for good. Returns map_boxes' four of the last step (a box's
    visibility is its last step's; the steps before it have had theirs) and which boxes are
    still there."""
    cur = np.asarray(xyxy, np.float64)
    out = [tuple(s) for s in sizes]
    alive = np.ones(len(cur), bool)
    mapped = cur.copy()
    area = inside = np.prod(cur[:, 2:] - cur[:, :2], axis=1)
    for j in range(max((len(s) for s in steps), default=0)):
        mats = np.stack([s[j][0] if j < len(s) else np.eye(3) for s in steps])
        out = [s[j][1] if j < len(s) else o for s, o in zip(steps, out)]
        mapped, cur, area, inside = map_boxes(mats, cur, which, out, None, method, border)
        alive &= kept(inside, area, pipe.min_visibility, pipe.min_area) & _shaped(pipe, cur)
    return mapped, cur, area, inside, alive


def _shaped(pipe, clipped: np.ndarray) -> np.ndarray:
    """Which boxes (K, 4), as cut to the output, meet albumentations' ``min_width``,
    ``min_height`` and ``max_accept_ratio`` (all true where none is set)."""
    keep = np.ones(len(clipped), bool)
    if pipe.min_width or pipe.min_height or pipe.max_accept_ratio is not None:
        # albumentations' BboxParams: the kept box's sides in output pixels, and its shape
        bw, bh = (np.maximum(clipped[:, 2 + i] - clipped[:, i], 0) for i in (0, 1))
        keep &= (bw >= pipe.min_width) & (bh >= pipe.min_height)
        if pipe.max_accept_ratio is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                keep &= np.maximum(bw / bh, bh / bw) <= pipe.max_accept_ratio
    return keep


def map_boxes(mats: np.ndarray, xyxy: np.ndarray, which: np.ndarray, outs: list,
              chains: list | None = None, method: str = "largest_box",
              border: str = "outline") -> tuple:
    """Pixel-edge boxes (K, 4) of the samples ``which`` through their maps ``mats`` (or their
    ``chains`` with fields) into outputs of ``outs`` = (width, height) each: (the box around
    each mapped outline, that box cut to the output, the first's area, the second's).
    ``method="ellipse"``: the outline is the box's inscribed ellipse (albumentations'
    ``rotate_method``: :func:`ellipse_points`), not its corners. ``border``: where the border
    cuts a box, ``"outline"`` takes the box around the part of its mapped outline inside the
    output, ``"clip"`` the box around the whole outline clipped to the output
    (albumentations': looser by a turned box's cut-off corner; Compose's ``box_border``)."""
    # (the maps were checked by the warp, the boxes by check_boxes)
    cut = border != "clip"
    if chains is None and method != "ellipse" and len(xyxy) <= geometry.FEW_POLYGONS:
        few = geometry.few_box_bounds(mats, which, xyxy, outs, cut)
        if few is not None:  # (a sample's boxes: in Python floats, the same values)
            return few
    lim = np.asarray(outs, dtype=np.float64)[which]  # (W, H) per box
    corners = geometry.corners_of(mats[which], xyxy) if method != "ellipse" else \
        geometry.outline_of(mats[which], xyxy, ellipse_points(xyxy))
    mapped = np.concatenate([corners.min(1), corners.max(1)], 1)
    clipped = geometry.clipped_bounds(corners, lim, fallback=mapped) if cut else \
        _clipped(mapped, lim)
    if chains is not None:
        for k, c in enumerate(chains):
            rows = np.flatnonzero(which == k)
            if not len(rows) or not fields_of(c):
                continue
            if any(getattr(f, "folds", False) for f in fields_of(c)):
                # (inside the output by making: a box counts as wholly visible, as
                # albumentations' boxes through their masks)
                mapped[rows] = clipped[rows] = read_boxes(c, xyxy[rows], outs[k])
                continue
            outline = _outline(c, xyxy[rows])
            with np.errstate(invalid="ignore"):  # all-NaN outlines stay NaN
                mapped[rows] = np.concatenate([np.nanmin(outline, 1),
                                               np.nanmax(outline, 1)], 1)
            clipped[rows] = geometry.clipped_bounds(outline, lim[rows], fallback=mapped[rows]) \
                if cut else _clipped(mapped[rows], lim[rows])
    area = np.prod(mapped[:, 2:] - mapped[:, :2], axis=1)
    inside = np.prod(np.maximum(clipped[:, 2:] - clipped[:, :2], 0), axis=1)
    inside[~np.isfinite(inside)] = 0  # a box none of whose outline was found
    return mapped, clipped, area, inside


def _clipped(boxes: np.ndarray, lim: np.ndarray) -> np.ndarray:
    """Boxes (K, 4) clipped to their outputs ((K, 2) sizes): albumentations' rule."""
    return np.minimum(np.maximum(boxes, 0.0), np.tile(lim, 2))


#: the angles of albumentations' ellipse points, one a degree, its float32 sines and cosines
_ELLIPSE = np.radians(np.arange(0, 360, dtype=np.float32))
_ELLIPSE_SIN = np.sin(_ELLIPSE).astype(np.float64)
_ELLIPSE_COS = np.cos(_ELLIPSE).astype(np.float64)


def ellipse_points(xyxy: np.ndarray) -> np.ndarray:
    """(K, 360, 2) pixel-edge points on each box's inscribed ellipse, as albumentations'
    ``bboxes_affine_ellipse`` places them (x from the sines, y from the cosines)."""
    half_w, half_h = (xyxy[:, 2:3] - xyxy[:, 0:1]) / 2, (xyxy[:, 3:4] - xyxy[:, 1:2]) / 2
    return np.stack([half_w * _ELLIPSE_SIN + (xyxy[:, 0:1] + half_w),
                     half_h * _ELLIPSE_COS + (xyxy[:, 1:2] + half_h)], -1)


def select(labels: Any, keep: np.ndarray) -> Any:
    """The labels of the kept targets, of the kind they came as: a numpy array or a torch
    tensor (on its device) indexed by ``keep``, any other sequence as a list; a dict of label
    fields each so (None stays None). ``keep``: a flag per target, or the indices of those
    kept, in their new order."""
    if isinstance(labels, dict):
        return {k: None if v is None else select(v, keep) for k, v in labels.items()}
    keep = np.asarray(keep)
    if keep.dtype.kind not in "ib":  # (an empty list: no target kept)
        keep = keep.astype(bool)
    if isinstance(labels, np.ndarray):
        return labels[keep]
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(labels, torch.Tensor):
        flags = keep if keep.dtype.kind == "i" else np.asarray(keep, bool)
        return labels[torch.from_numpy(flags).to(labels.device)]
    if keep.dtype.kind == "i":
        return [labels[int(i)] for i in keep]
    return [lab for lab, c in zip(labels, keep) if c]


#: points per box edge that a non-linear map moves to find the box around the mapped outline
OUTLINE_POINTS = 16


def read_boxes(chain: list, xyxy: np.ndarray, out: tuple[int, int]) -> np.ndarray:
    """Pixel-edge boxes (K, 4) through a chain whose map folds (a stage with ``folds``: it reads
    some sources from several places, so a box's outline does not bound the pixels that read
    inside it): the box around the output pixels (of ``out`` = (width, height)) whose centres
    read inside each box, NaN where none does. As albumentations moves boxes through its
    distortions: each box's mask remapped, then the box around what is left."""
    W, H = out
    res = np.full((len(xyxy), 4), np.nan)
    lo, hi = [np.full((len(xyxy), 2), v) for v in (np.inf, -np.inf)]
    rows_at = max(1, (1 << 16) // max(W, 1))  # output rows read at a time
    xs = np.arange(W, dtype=np.float64)
    for y0 in range(0, H, rows_at):
        ys = np.arange(y0, min(H, y0 + rows_at), dtype=np.float64)
        grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
        src = inverse_points(chain, grid) + 0.5  # (read at the centres, in edge coordinates)
        for k, (x1, y1, x2, y2) in enumerate(xyxy.tolist()):
            with np.errstate(invalid="ignore"):
                hit = (src[:, 0] >= x1) & (src[:, 0] < x2) & (src[:, 1] >= y1) & (src[:, 1] < y2)
            if hit.any():
                at = grid[hit]
                lo[k] = np.minimum(lo[k], at.min(0))
                hi[k] = np.maximum(hi[k], at.max(0) + 1)
    found = np.isfinite(lo).all(1)
    res[found] = np.concatenate([lo, hi], 1)[found]
    return res


def _outline(chain: list, xyxy: np.ndarray) -> np.ndarray:
    """Pixel-edge boxes (K, 4) -> their outlines mapped forward through a chain with fields,
    (K, 4 * OUTLINE_POINTS, 2) pixel-edge points in order around each box (corners included);
    NaN where a point was not found."""
    t = np.linspace(0, 1, OUTLINE_POINTS + 1)[:-1]
    x1, y1, x2, y2 = (xyxy[:, i:i + 1] - 0.5 for i in range(4))  # edges -> centre coordinates
    xs = np.concatenate([x1 + (x2 - x1) * t, np.broadcast_to(x2, (len(xyxy), len(t))),
                         x2 + (x1 - x2) * t, np.broadcast_to(x1, (len(xyxy), len(t)))], 1)
    ys = np.concatenate([np.broadcast_to(y1, (len(xyxy), len(t))), y1 + (y2 - y1) * t,
                         np.broadcast_to(y2, (len(xyxy), len(t))), y2 + (y1 - y2) * t], 1)
    pts, _ = forward_points(chain, np.stack([xs, ys], -1).reshape(-1, 2))
    return pts.reshape(len(xyxy), -1, 2) + 0.5




def keypoint_rows(kp: Any, fmt: str, what: str = "keypoints") -> np.ndarray:
    """``kp`` as float64 rows of ``fmt``'s columns; a row of another length is refused (a third
    column is not taken for an angle unless the format says so)."""
    n = len(fmt)
    try:
        k = np.array(kp, dtype=np.float64) if len(kp) else np.zeros((0, n))
    except (TypeError, ValueError):  # rows of different lengths, or not numbers
        raise ValueError(f"{what} in keypoint_format={fmt!r} must be rows of {n} numbers "
                         f"({', '.join(fmt)}), got {kp!r:.200}") from None
    if k.ndim != 2 or k.shape[1] != n:
        cols = k.shape[1] if k.ndim == 2 else None
        hint = ""
        if cols == 3 and fmt == "xy":
            hint = (": for an angle column pass keypoint_format='xya', a scale 'xys', a depth "
                    "'xyz'; a visibility flag (COCO's v) is not a coordinate: pass "
                    "keypoints[:, :2] (remove_invisible=False keeps the rows in order, with "
                    "out['keypoints_visible'])")
        raise ValueError(f"{what} in keypoint_format={fmt!r} must be rows of {n} columns "
                         f"({', '.join(fmt)}), got shape {k.shape}{hint}")
    return k


def move_keypoint_lists(klist: list, mats: np.ndarray, chains: list | None, outs: list,
                        fmt: str = "xy") -> list:
    """[(moved keypoints, visible)] per sample of a batch, of :func:`keypoint_rows` (``klist``):
    positions through each sample's matrix in one elementwise pass over the whole batch (each
    value the same operations as :func:`move_keypoints` makes, so the same bits; a call of one
    sample through its matrix's scalars, the same operations); samples with non-linear fields
    (``chains``) or formats with an angle or a scale column one by one."""
    if chains is not None or "a" in fmt or "s" in fmt:
        return [move_keypoints(k, m if chains is None else c, o, fmt)
                for k, m, c, o in zip(klist, mats, chains or mats, outs)]
    ix, iy = fmt.find("x"), fmt.find("y")
    if len(klist) == 1:  # (one sample a call: its matrix's scalars, the same operations)
        allk = klist[0]
        moved = geometry.transform_points(mats[0], allk[:, [ix, iy]])
        lim = outs[0]
    else:
        counts = [len(k) for k in klist]
        allk = np.concatenate(klist)
        which = np.repeat(np.arange(len(klist)), counts)
        moved = geometry.transform_points(mats, allk[:, [ix, iy]], batch_indices=which)
        wh = np.asarray(outs, dtype=np.float64)[which]  # (W, H) per keypoint
        lim = (wh[:, 0], wh[:, 1])
    res = allk.copy()
    res[:, ix], res[:, iy] = moved[:, 0], moved[:, 1]
    with np.errstate(invalid="ignore"):
        visible = in_output(moved[:, 0], moved[:, 1], lim)
    if len(klist) == 1:
        return [(res, visible)]
    hi = 0
    parts = []
    for n in counts:
        hi += n
        parts.append((res[hi - n:hi], visible[hi - n:hi]))
    return parts


def move_keypoints(k: np.ndarray, m, out, fmt: str = "xy"):
    """(moved keypoints, visible) of :func:`keypoint_rows` in ``fmt``: x, y through
    the map; an angle column (degrees, counter-clockwise) turns with the map's local rotation,
    a scale column scales with its local scale (the square root of the Jacobian's determinant).
    ``m`` is a matrix, or a chain with non-linear fields (points found by Newton's method; the
    ones not found are invisible)."""
    ix, iy, ia, isc = (fmt.find(c) for c in "xyas")
    res = k.copy()
    xy = k[:, [ix, iy]]
    turns = ia >= 0 or isc >= 0
    if isinstance(m, list):
        moved, visible = forward_points(m, xy)
        if turns and len(k):
            jx, jy = forward_jacobians(m, xy)
            if ia >= 0:
                a = np.radians(k[:, ia])
                d = jx * np.cos(a)[:, None] - jy * np.sin(a)[:, None]  # screen angles: y down
                res[:, ia] = np.degrees(np.arctan2(-d[:, 1], d[:, 0]))
            if isc >= 0:
                res[:, isc] = k[:, isc] * np.sqrt(np.abs(jx[:, 0] * jy[:, 1] -
                                                         jx[:, 1] * jy[:, 0]))
    else:
        moved, visible = geometry.transform_points(m, xy), True
        for r in range(len(k)) if turns else ():
            j = jacobian(m, xy[r, 0], xy[r, 1])
            if ia >= 0:
                a = math.radians(k[r, ia])
                d = j @ np.array([math.cos(a), -math.sin(a)])  # screen angles: y points down
                res[r, ia] = math.degrees(math.atan2(-d[1], d[0]))
            if isc >= 0:
                res[r, isc] = k[r, isc] * math.sqrt(abs(np.linalg.det(j)))
    res[:, ix], res[:, iy] = moved[:, 0], moved[:, 1]
    with np.errstate(invalid="ignore"):
        return res, visible & in_output(moved[:, 0], moved[:, 1], out)


class Seen:
    """A sample's targets as a transform's draw reads them (the crops that keep objects,
    :mod:`._objects`): its boxes and masks carried through the steps drawn before it, in the
    coordinates of the step's input of ``size`` = (width, height).

    ``boxes``: pixel-edge corners (K, 4), each clipped to the current image (boxes that left
    it are gone), with ``index`` their rows in the call's boxes; None where the call gave no
    boxes. ``labels``: the call's labels of its boxes (the first label field), all of them
    (``labels[index]`` are the current boxes'); None where it gave none. ``given``: the
    sample's value of a keyword the call passed through (a function of its name, None where it
    has none), for the draws that read one (``reads`` "passed"). ``masks``: the call's masks
    of the sample (``mask=``, else those of ``masks=``) as given, None where it gave none;
    :meth:`mask_pixels` finds their pixels where the current image is. ``chain``: the maps and fields from the sample's input to the current image.
    ``partners``: the other images of the call that a Mosaic may take (their positions).
    ``has_mask``: whether the call gave ``mask=`` (albumentations' ``"mask" in data``).
    ``border``: the pipeline's ``box_border`` (how a step's border cuts the boxes)."""

    def __init__(self, size: tuple[int, int], boxes: np.ndarray | None = None,
                 masks: list | None = None, index: np.ndarray | None = None,
                 chain: list | None = None, partners: list | None = None,
                 labels: Any = None, given: Any = None, has_mask: bool = False,
                 border: str = "outline") -> None:
        self.size = size
        self.border = border
        self.has_mask = has_mask
        self.labels = labels
        self.given = given
        self.partners = partners
        self.boxes = boxes
        self.index = np.arange(len(boxes)) if index is None and boxes is not None else index
        self.masks = masks
        self.chain = chain if chain is not None else [geometry.identity()]

    def after(self, t: Any, params: dict, size: tuple[int, int]) -> Seen:
        """The targets past one drawn step (``t`` with ``params`` on an input of ``size``)."""
        if not params.get("applied", True):
            return self
        chain, out = t.stages(params, size)
        boxes, index = self.boxes, self.index
        if boxes is not None and len(boxes):
            # (a step's stages: matrices, one product; with a field (a non-linear step, whose
            # chain may be that field alone), the chain itself)
            fielded = bool(fields_of(chain))
            mats = np.stack([geometry.identity() if fielded else projective_part(chain)])
            _, clipped, _, inside = map_boxes(mats, boxes, np.zeros(len(boxes), int), [out],
                                              [chain] if fielded else None,
                                              border=self.border)
            keep = inside >= EMPTY_AREA
            boxes, index = clipped[keep], index[keep]
        return Seen(out, boxes, self.masks, index, merge(self.chain + chain), self.partners,
                    self.labels, self.given, self.has_mask, self.border)

    def mask_pixels(self, nonzero: Any) -> np.ndarray:
        """The (y, x) pixels of the current image where ``nonzero(mask)`` (an (H, W) bool of
        one of :attr:`masks`) holds for any mask, in row-major order (numpy's ``argwhere``):
        the masks' own pixels where no step has moved them yet, else their centres mapped
        through :attr:`chain`, rounded, those inside the image, each once."""
        hits = None
        for m in self.masks or ():
            nz = nonzero(np.asarray(m))
            hits = nz if hits is None else hits | nz
        if hits is None:
            return np.zeros((0, 2), np.int64)
        yx = np.argwhere(hits)
        if len(self.chain) == 1 and np.array_equal(self.chain[0], geometry.IDENTITY):
            return yx
        xy = yx[:, ::-1].astype(np.float64)
        if fields_of(self.chain):
            xy, found = forward_points(self.chain, xy)
            xy = xy[found]
        else:
            xy = geometry.transform_points(self.chain[0], xy)
        w, h = self.size
        with np.errstate(invalid="ignore"):
            p = np.rint(xy)
            ok = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
        p = p[ok].astype(np.int64)
        flat = np.unique(p[:, 1] * w + p[:, 0])
        return np.stack([flat // w, flat % w], 1)
