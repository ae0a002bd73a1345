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

__all__ = ["MaskDropout", "drop_map", "holes_from_mask", "mask_generator", "mask_objects",
           "mask_readers", "on_pixels"]

#: the generator's third counter word for MaskDropout's choice of objects (Philox keyed on the
#: sample's ``key``, one block per object: its first word ranks the object)
_PICK_TAG = 0x4D44


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
    m = np.asarray(mask)
    if m.ndim == 3 and m.shape[2] == 1:
        m = m[..., 0]
    if m.ndim != 2:
        raise ValueError(f"MaskDropout finds objects in a mask of one channel, (H, W) or "
                         f"(H, W, 1), got {m.shape}")
    h, w = m.shape
    nz = m != 0
    opens = nz.copy()
    opens[:, 1:] &= m[:, 1:] != m[:, :-1]
    closes = nz.copy()
    closes[:, :-1] &= m[:, :-1] != m[:, 1:]
    ys, xs = np.nonzero(opens)
    xe = np.nonzero(closes)[1]  # each run's last column (the same rows, the same order)
    n = len(ys)
    if not n:
        return np.zeros((0, 4), np.int64), np.zeros(0, np.int64), 0
    values = m[ys, xs]
    # the runs of the row above touching each run: their columns reach within one of its own
    # (keys row * (W + 2) + column: raster order, rows never overlapping)
    row = ys * (w + 2)
    above = row - (w + 2)
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
    roots, obj = np.unique(root, return_inverse=True)
    # OpenCV's order: the first 2 x 2 block an object reaches, blocks row by row
    block = (ys // 2) * ((w + 1) // 2) + xs // 2
    first = np.full(len(roots), np.iinfo(np.int64).max)
    np.minimum.at(first, obj, block)
    rank = np.empty(len(roots), np.int64)
    rank[np.lexsort((first, values[roots]))] = np.arange(len(roots))
    runs = np.stack([xs, ys, xe + 1, ys + 1], 1).astype(np.int64)
    return runs, rank[obj], len(roots)


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
    runs = np.asarray(holes, np.int64).reshape(-1, 4)
    edges = np.zeros((h, w + 1), np.int32)
    np.add.at(edges, (runs[:, 1], runs[:, 0]), 1)
    np.add.at(edges, (runs[:, 1], runs[:, 2]), -1)
    return np.cumsum(edges, 1)[:, :w] > 0


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
    albumentations' inpainting fills are refused.

    Example:
        >>> t = MaskDropout(max_objects=(1, 3), p=1)
        >>> sorted(t.draw(np.random.default_rng(0), (64, 48)))
        ['key', 'objects']
    """

    #: its parameters are completed from the warped mask (:meth:`see_mask`)
    reads_mask = True

    def __init__(self, max_objects: Any = (1, 1), fill: float = 0, fill_mask: Any = 0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.max_objects = _max_objects(max_objects)
        if isinstance(fill, str) or not isinstance(fill, numbers.Real) or \
                isinstance(fill, bool):
            raise ValueError(f"MaskDropout's fill must be a number (albumentations' "
                             f"inpainting is not supported), got {fill!r}")
        self.fill = number(fill, "MaskDropout's fill")
        self.fill_mask = None if fill_mask is None else number(fill_mask,
                                                               "MaskDropout's fill_mask")

    def draw(self, rng, size):
        lo, hi = self.max_objects
        return {"objects": int(rng.integers(lo, hi + 1)), "key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.max_objects
        counts = lanes.integers(lo, hi + 1).tolist()
        return [{"objects": c, "key": k} for c, k in zip(counts, draw_keys(lanes))]

    def see_mask(self, params: dict, mask: np.ndarray) -> None:
        """Completes a sample's parameters from its mask as this step finds it (in the output):
        the objects picked (``dropped``), their runs (``holes``) and the size (``size``)."""
        runs, obj, n = mask_objects(mask)
        k = min(int(params["objects"]), n)
        if k == n:
            picked = np.arange(n)
        else:  # the k objects whose generator words are smallest (ties: the first)
            words = philox4x32(np.arange(n), np.zeros(n, np.int64), _PICK_TAG,
                               kernel_key(params["key"]))[0]
            picked = np.sort(np.argsort(words, kind="stable")[:k])
        params["dropped"] = (picked + 1).tolist()
        params["holes"] = runs[np.isin(obj, picked)].tolist()
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


def mask_readers(t: Any, plist: list[dict]) -> list[list[tuple[Any, dict]]]:
    """Each sample's applied steps that read the warped mask (``reads_mask``: MaskDropout,
    ConstrainedCoarseDropout by ``mask_indices``) with their parameters, in order (empty
    lists where none applied)."""
    return [[(s, p) for s, p in t.applied_steps(params) if getattr(s, "reads_mask", False)]
            for params in plist]
