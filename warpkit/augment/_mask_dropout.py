"""MaskDropout under albumentations 2.0.8's name and parameters: whole objects of the call's
``mask`` removed from the image and the masks, the keypoints on them hidden, the boxes they
cover filtered.

An object is a connected region of one value of the mask (8-connected, value 0 the
background), numbered as albumentations numbers them (its ``label``: value by value upwards,
each value's regions in the order OpenCV's ``connectedComponents`` gives them, by the first
2 x 2 block of pixels they reach, blocks row by row). The objects are found on the host in the
mask **as the warp left it** (the mask's warp runs first, then the image's), after the
changes of the steps before this one (dropout's ``fill_mask``, PixelDropout, Morphological):
like every dropout in warpkit they are made in the output, so put MaskDropout after the
geometry, as recipes do. The removed pixels go to the image's kernel as rows of runs (the
banded holes of GridDropout), so the image keeps its one pass.

Conventions: a run is ``[x1, y, x2, y + 1]`` in output pixels, x2 excluded. Recorded: the
number of objects drawn (``objects``), the generator key that picks which (``key``), and once
the mask is seen, the picked objects' numbers (``dropped``, from 1 as albumentations'), their
runs (``holes``) and the output's size (``size``).

Example:
    >>> import numpy as np
    >>> m = np.zeros((6, 8), np.uint8); m[1:3, 1:3] = 1; m[4:6, 5:8] = 2
    >>> runs, objects, n = mask_objects(m)
    >>> n, runs.tolist()[:2], objects.tolist()
    (2, [[1, 1, 3, 2], [1, 2, 3, 3]], [0, 0, 1, 1])
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._checks import number
from ._colour import ColourTransform, draw_key, draw_keys
from ._dropout import _bands
from ._philox import kernel_key, philox4x32

__all__ = ["MaskDropout", "batch_objects", "drop_map", "holes_from_mask", "mask_generator",
           "mask_objects", "mask_reader", "mask_readers", "on_pixels", "pick_objects",
           "run_pixels"]

#: the generator's third counter word for MaskDropout's choice of objects (Philox keyed on the
#: sample's ``key``, one block per object: its first word ranks the object)
_PICK_TAG = 0x4D44


def _one_channel(mask: Any) -> np.ndarray:
    m = np.asarray(mask)
    if m.ndim == 3 and m.shape[2] == 1:
        m = m[..., 0]
    if m.ndim != 2:
        raise ValueError(f"MaskDropout finds objects in a mask of one channel, (H, W) or "
                         f"(H, W, 1), got {m.shape}")
    if m.dtype.kind == "f" and np.isnan(m).any():  # (NaN equals no value: never an object)
        m = np.where(np.isnan(m), 0, m)
    return m


def mask_objects(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The objects of a mask ((H, W) or (H, W, 1)) as albumentations' MaskDropout labels
    them: (the runs of equal non-zero values, (n, 4) int64 ``[x1, y, x2, y + 1]`` in raster
    order; each run's object, numbered from 0 in albumentations' label order; the number of
    objects). Runs in neighbouring rows with columns within one of each other (8-connected)
    and the same value are one object.

    Example:
        >>> mask_objects(np.array([[1, 0, 1], [0, 1, 0]]))[1:]
        (array([0, 0, 0]), 1)
    """
    return batch_objects([mask])[0]


def _stacked(masks: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The objects of masks found in one pass over them all: the masks stacked one under
    another (each from an even row, so that OpenCV's 2 x 2 blocks keep their order, with a row
    of zeros after it, so that no object reaches the next). (every mask's runs, in its own
    rows; each run's object, numbered by mask first; each mask's count of objects; where each
    mask's runs start, and their end)."""
    ms = [_one_channel(m) for m in masks]
    w = max(m.shape[1] for m in ms)
    tops = np.cumsum([0] + [m.shape[0] + 1 + (m.shape[0] + 1) % 2 for m in ms])
    big = np.zeros((int(tops[-1]), w + 1), np.result_type(*ms))  # (a 0 ends every row)
    for m, top in zip(ms, tops.tolist()):
        big[top:top + m.shape[0], :m.shape[1]] = m
    runs, obj, counts = _objects(big.ravel(), w + 1, tops)
    # runs are in raster order: each mask's are together, as its objects are
    bounds = np.searchsorted(runs[:, 1], tops, "left")
    mask_of = np.repeat(np.arange(len(ms)), np.diff(bounds))
    runs[:, 1::2] -= tops[mask_of, None]
    return runs, obj, counts, bounds


def batch_objects(masks: list) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """:func:`mask_objects` of each mask, found in one pass over them all (:func:`_stacked`)."""
    runs, obj, counts, bounds = _stacked(masks)
    firsts = np.cumsum(counts) - counts
    return [(runs[lo:hi], obj[lo:hi] - f, int(n)) for lo, hi, f, n in
            zip(bounds[:-1].tolist(), bounds[1:].tolist(), firsts.tolist(), counts.tolist())]


def _objects(flat: np.ndarray, w: int, tops: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs and objects of rows of ``w`` values (``flat``, each row ending with a 0), the
    masks starting at rows ``tops``: (runs (n, 4) ``[x1, y, x2, y + 1]``; each run's object,
    numbered by mask, then value, then OpenCV's order; each mask's count of objects)."""
    # a run starts where the value changes to one not 0 and ends where it changes from one
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    starts = change[flat[change] != 0]
    if flat[0] != 0:
        starts = np.concatenate([[0], starts])
    if not len(starts):
        return np.zeros((0, 4), np.int64), np.zeros(0, np.int64), np.zeros(len(tops) - 1,
                                                                              np.int64)
    stops = change[flat[change - 1] != 0]  # (each run's end, excluded: the same order)
    n = len(starts)
    ys, xs = np.divmod(starts, w)
    xe = stops - ys * w - 1  # each run's last column
    values = flat[starts]
    # the runs of the row above touching each run: their columns reach within one of its own
    # (keys row * (w + 1) + column: raster order, rows never overlapping)
    row = ys * (w + 1)
    above = row - (w + 1)
    lo = np.searchsorted(row + xe, above + xs - 1, "left")
    hi = np.searchsorted(row + xs, above + xe + 1, "right")
    counts = np.maximum(hi - lo, 0)
    b = np.repeat(np.arange(n), counts)
    a = lo[b] + np.arange(len(b)) - np.repeat(np.cumsum(counts) - counts, counts)
    same = values[a] == values[b]
    a, b = a[same], b[same]
    # each run's root: the first run of its object (the smallest index), by hooking roots on
    # the smaller one and halving paths until nothing changes
    root = np.arange(n)
    while len(a):
        ra, rb = root[a], root[b]
        apart = ra != rb
        if not apart.any():
            break
        ra, rb = ra[apart], rb[apart]
        low = np.minimum(ra, rb)
        np.minimum.at(root, ra, low)
        np.minimum.at(root, rb, low)
        while True:
            up = root[root]
            if np.array_equal(up, root):
                break
            root = up
        a, b = a[apart], b[apart]
    is_root = root == np.arange(n)
    roots = np.flatnonzero(is_root)
    obj = (np.cumsum(is_root) - 1)[root]  # (the roots numbered in order)
    # OpenCV's order: the first 2 x 2 block an object reaches, blocks row by row
    block = (ys // 2) * ((w + 1) // 2) + xs // 2
    first = np.full(len(roots), np.iinfo(np.int64).max)
    np.minimum.at(first, obj, block)
    mask_of = np.searchsorted(tops, ys[roots], "right") - 1
    rank = np.empty(len(roots), np.int64)
    rank[np.lexsort((first, values[roots], mask_of))] = np.arange(len(roots))
    runs = np.stack([xs, ys, xe + 1, ys + 1], 1)
    return runs, rank[obj], np.bincount(mask_of, minlength=len(tops) - 1)


def pick_objects(counts: np.ndarray, wanted: np.ndarray, keys: list) -> list[np.ndarray]:
    """Which objects each sample removes: of its ``counts[i]`` objects, all where
    ``wanted[i]`` reaches them, else the ``wanted[i]`` whose first words of Philox keyed on
    ``keys[i]`` (a recorded ``key``) and counted by the object are smallest (ties: the first),
    in order."""
    counts, wanted = np.asarray(counts, np.int64), np.asarray(wanted, np.int64)
    firsts = np.cumsum(counts) - counts
    sample = np.repeat(np.arange(len(counts)), counts)
    local = np.arange(int(counts.sum())) - firsts[sample]
    k0, k1 = (np.array([kernel_key(k)[j] for k in keys], np.uint64)[sample] for j in (0, 1))
    words = philox4x32(local, np.zeros_like(local), _PICK_TAG, (k0, k1))[0]
    order = np.lexsort((local, words, sample))  # each sample's objects by their words
    place = np.empty_like(local)
    place[order] = np.arange(len(order)) - firsts[sample[order]]
    chosen = place < wanted[sample]
    return [local[lo:lo + c][chosen[lo:lo + c]] for lo, c in zip(firsts.tolist(),
                                                                  counts.tolist())]


def run_pixels(holes: Any, w: int) -> np.ndarray:
    """The flat indices (rows of ``w``) of the pixels of runs ``[x1, y, x2, y + 1]``."""
    runs = np.asarray(holes, np.int64).reshape(-1, 4)
    lengths = runs[:, 2] - runs[:, 0]
    starts = runs[:, 1] * w + runs[:, 0]
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + \
        np.arange(int(lengths.sum()))


def mask_generator(key: Any) -> np.random.Generator:
    """numpy's generator for draws made once a sample's mask is seen (ConstrainedCoarseDropout's
    ``mask_indices``): seeded with the recorded key's words."""
    return np.random.default_rng([int(w) for w in key])


def holes_from_mask(mask: np.ndarray, count: int, indices: list[int],
                    height_range: tuple[float, float], width_range: tuple[float, float],
                    rng: np.random.Generator) -> np.ndarray:
    """albumentations' holes about the objects of ``mask`` whose values are among ``indices``
    (its ``get_holes_from_mask``, draw for draw): the pixels of those values taken as one
    binary mask, its 8-connected regions in OpenCV's order; per region ``count`` of its pixels
    picked (``rng.choice``, with repeats, the pixels in raster order), then every hole's height
    and width (``rng.uniform`` over all holes, times the square root of its region's pixels);
    each hole ``[cx - w // 2, cy - h // 2, cx + w // 2, cy + h // 2]`` truncated to whole pixels,
    clipped to the mask, those left empty dropped. (n, 4) int64, x2 and y2 excluded."""
    m = np.asarray(mask)
    binary = np.isin(m[..., 0] if m.ndim == 3 else m, np.asarray(indices))
    h, w = binary.shape
    runs, obj, n = mask_objects(binary)
    if not n:
        return np.zeros((0, 4), np.int64)
    order = np.argsort(obj, kind="stable")  # each region's runs, in raster order
    lengths = runs[:, 2] - runs[:, 0]
    sizes = np.bincount(obj, lengths, n).astype(np.int64)
    starts = np.cumsum(sizes) - sizes
    # each region's picks (its pixels counted from the regions' before it), region by region
    flat = np.concatenate([rng.choice(int(sizes[r]), size=count, replace=True) + starts[r]
                           for r in range(n)])
    size = np.repeat(np.sqrt(sizes), count)
    # a picked pixel: the run holding it (the runs region by region, each in raster order)
    ends = np.cumsum(lengths[order])
    at = np.searchsorted(ends, flat, "right")
    run = order[at]
    cx = runs[run, 0] + flat - (ends[at] - lengths[run])
    cy = runs[run, 1]
    hh = rng.uniform(height_range[0], height_range[1], size=len(flat)) * size
    hw = rng.uniform(width_range[0], width_range[1], size=len(flat)) * size
    hh, hw = hh // 2, hw // 2
    holes = np.column_stack([cx - hw, cy - hh, cx + hw, cy + hh]).astype(np.int32)
    holes = holes.astype(np.int64)
    holes[:, 0] = np.clip(holes[:, 0], 0, w - 1)
    holes[:, 1] = np.clip(holes[:, 1], 0, h - 1)
    holes[:, 2] = np.clip(holes[:, 2], 0, w)
    holes[:, 3] = np.clip(holes[:, 3], 0, h)
    return holes[(holes[:, 2] > holes[:, 0]) & (holes[:, 3] > holes[:, 1])]


def drop_map(holes: Any, out: tuple[int, int]) -> np.ndarray:
    """(H, W) bool: the output pixels (``out`` = (width, height)) that runs ``[x1, y, x2,
    y + 1]`` cover."""
    w, h = out
    m = np.zeros(h * w, bool)
    m[run_pixels(holes, w)] = True
    return m.reshape(h, w)


def on_pixels(x: np.ndarray, y: np.ndarray, maps: list[np.ndarray]) -> np.ndarray:
    """Which points (pixel centres at integers) lie on a pixel set in any of ``maps`` ((H, W)
    bool, in the output): the pixel whose centre is nearest."""
    h, w = maps[0].shape
    ix, iy = np.floor(x + 0.5), np.floor(y + 0.5)
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    hit = np.zeros(len(x), bool)
    cols, rows = ix[inside].astype(np.int64), iy[inside].astype(np.int64)
    hit[inside] = np.logical_or.reduce([m[rows, cols] for m in maps])
    return hit


def _max_objects(value: Any) -> tuple[int, int]:
    """albumentations' range of objects: ``k`` means (1, k), a pair sorted; whole numbers
    from 1."""
    pair = (1, value) if isinstance(value, numbers.Real) else value
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and
            all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1
                for v in pair)):
        raise ValueError(f"max_objects must be a whole number >= 1 or two of them, got "
                         f"{value!r}")
    lo, hi = sorted(int(v) for v in pair)
    return lo, hi


class MaskDropout(ColourTransform):
    """albumentations' MaskDropout: between ``max_objects[0]`` and ``max_objects[1]`` objects
    (a number ``k``: 1 to k) of the call's ``mask`` removed: their pixels set to ``fill`` in
    the image (a number, in the image's units) and to ``fill_mask`` in every mask (None: the
    masks keep them); all of them where fewer exist. Keypoints on a removed pixel become
    invisible (the pixel whose centre is nearest); boxes whose pixels left (albumentations'
    count: x1 <= x <= x2, y1 <= y <= y2) are fewer than the pipeline's ``min_area`` or
    ``min_visibility`` of their area go. See the module's conventions: the objects are those
    of the warped mask, in the output.

    The count is drawn from the sample's stream (``objects``), which objects from a generator
    keyed on it (``key``): replaying the parameters on the same mask removes the same ones.
    albumentations' inpainting fills are refused: albumentations 2.0.8 itself fails with them.

    Example:
        >>> t = MaskDropout(max_objects=(1, 3), p=1)
        >>> sorted(t.draw(np.random.default_rng(0), (64, 48)))
        ['key', 'objects']
    """

    #: its parameters are completed from the warped mask (:meth:`see_masks`)
    reads_mask = True

    def __init__(self, max_objects: Any = (1, 1), fill: float = 0, fill_mask: Any = 0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.max_objects = _max_objects(max_objects)
        if fill in ("inpaint_telea", "inpaint_ns"):
            raise ValueError(f"MaskDropout(fill={fill!r}) is not supported: albumentations "
                             f"2.0.8 fails with it (cv2.inpaint is given the fill's name as its "
                             f"flags), so no recipe runs it; give a number (the dropouts' "
                             f"inpainting, CoarseDropout's and the others', is supported)")
        if isinstance(fill, str) or not isinstance(fill, numbers.Real) or \
                isinstance(fill, bool):
            raise ValueError(f"MaskDropout's fill must be a number, got {fill!r}")
        self.fill = number(fill, "MaskDropout's fill")
        self.fill_mask = None if fill_mask is None else number(fill_mask,
                                                               "MaskDropout's fill_mask")

    def draw(self, rng, size):
        lo, hi = self.max_objects
        return {"objects": int(rng.integers(lo, hi + 1)), "key": draw_key(rng)}

    def sees_mask(self, params: dict) -> bool:
        """Whether these parameters are completed from the warped mask: always."""
        return True

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.max_objects
        counts = lanes.integers(lo, hi + 1).tolist()
        return [{"objects": c, "key": k} for c, k in zip(counts, draw_keys(lanes))]

    def see_masks(self, plist: list[dict], masks: list[np.ndarray]) -> None:
        """Completes samples' parameters from their masks as this step finds them (in the
        output), all at once: the objects picked (``dropped``), their runs (``holes``) and the
        size (``size``)."""
        runs, obj, counts, bounds = _stacked(masks)
        picked = pick_objects(counts, [p["objects"] for p in plist], [p["key"] for p in plist])
        removed = np.zeros(int(counts.sum()), bool)
        firsts = np.cumsum(counts) - counts
        removed[np.concatenate([c + f for c, f in zip(picked, firsts.tolist())])] = True
        kept = removed[obj]
        for params, mask, chosen, lo, hi in zip(plist, masks, picked, bounds[:-1].tolist(),
                                                bounds[1:].tolist()):
            params["dropped"] = (chosen + 1).tolist()
            params["holes"] = runs[lo:hi][kept[lo:hi]].tolist()
            params["size"] = [int(mask.shape[1]), int(mask.shape[0])]

    def colour_ops(self, params, channels, peak):
        if "holes" not in params:
            raise ValueError("MaskDropout finds its objects in the call's mask: give the "
                             "pipeline mask=")
        if channels > 4:
            raise TypeError(f"MaskDropout takes images of at most 4 channels, got {channels}")
        if not params["holes"]:
            return []
        return _bands(np.asarray(params["holes"], np.int64), tuple(params["size"]),
                      [[self.fill] * 4], 0.0, [0.0, 0.0], False)

    def config(self):
        return {"max_objects": list(self.max_objects), "fill": self.fill,
                "fill_mask": self.fill_mask}


def mask_reader(t: Any) -> Any:
    """The first transform of ``t`` (a pipeline, a OneOf or one transform, at any depth) that
    needs the call's mask (it reads the warped mask, with nothing to fall back on) and may
    apply (``p`` above 0), or None."""
    if getattr(t, "reads_mask", False) and getattr(t, "p", 1) > 0 and \
            getattr(t, "bbox_labels", None) is None:
        return t
    return next((r for c in getattr(t, "transforms", ()) if (r := mask_reader(c)) is not None),
                None)


def mask_readers(t: Any, plist: list[dict]) -> list[list[tuple[Any, dict]]]:
    """Each sample's applied steps that read the warped mask (``reads_mask``: MaskDropout,
    ConstrainedCoarseDropout by ``mask_indices``) with their parameters, in order (empty
    lists where none applied)."""
    return [[(s, p) for s, p in t.applied_steps(params)
             if getattr(s, "reads_mask", False) and s.sees_mask(p)] for params in plist]
