"""Dropout under albumentations 2.0.8's names and parameters: rectangles of the output filled
in the warp's kernel (a colour operation of ``kernels_cl/colour.h``: no pass of their own), the
same rectangles in the masks (``fill_mask``), keypoints inside them invisible, boxes measured
by what the holes leave of them. ``GridDropout``'s many holes go to the kernel as one operation
with tables (bands of rows, holes by their left edge) that each block of pixels searches.

Conventions: a hole is ``[x1, y1, x2, y2]`` in pixels of the image as the transform finds it
(x2 and y2 excluded), drawn as albumentations draws it. Holes are made in the **output**: a
geometric transform after the dropout does not move them (put dropout after the geometry, as
recipes do); where the output's size differs from the size they were drawn on, they are scaled
to it (each edge rounded to the nearest pixel). An inpainting fill (OpenCV's ``cv2.inpaint``)
is made on the host between two passes (:mod:`._host`).

Example:
    >>> import numpy as np
    >>> from warpkit.augment import CoarseDropout, Compose
    >>> aug = Compose([CoarseDropout(num_holes_range=(2, 2), fill=0, p=1)])
    >>> out = aug(image=np.full((40, 50, 3), 200, np.uint8), seed=0)           # doctest: +SKIP
    >>> len(out["params"]["steps"][0]["holes"]), bool((out["image"] == 0).all(2).any())  # doctest: +SKIP
    (2, True)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._checks import number
from ..engine.core import COL_DATA as DATA, COL_HOLE as HOLE, COL_HOLES as HOLES
from ..engine.core import COLOUR_WORDS as WORDS
from ._base import Transform, contains, value_range
from ._colour import ColourTransform, draw_key, draw_keys, eight_bit_io
from ._domain import _opencv

__all__ = ["CoarseDropout", "ConstrainedCoarseDropout", "Erasing", "FrequencyMasking",
           "GridDropout", "TimeMasking",
           "XYMasking", "boxes_past_holes",
           "has_dropout", "hole_mask", "in_holes", "output_holes"]

#: fills of albumentations' dropout that warpkit makes in the pass
RANDOM_FILLS = ("random", "random_uniform")
#: its inpainting fills (OpenCV's cv2.inpaint), made on the host between two passes
INPAINT_FILLS = ("inpaint_telea", "inpaint_ns")


def _fill(fill: Any, arg: str, inpaint: bool = False) -> Any:
    """A dropout fill: a number, one number per channel, "random" / "random_uniform", or
    (``inpaint``: an image's fill) "inpaint_telea" / "inpaint_ns"."""
    if isinstance(fill, str):
        if fill not in RANDOM_FILLS + (INPAINT_FILLS if inpaint else ()):
            raise ValueError(f"{arg} must be a number, a sequence of numbers per channel, "
                             f"'random' or 'random_uniform'"
                             f"{', inpaint_telea or inpaint_ns' if inpaint else ''}, got {fill!r}")
        return fill
    if isinstance(fill, numbers.Real) and not isinstance(fill, bool):
        return number(fill, arg)
    if isinstance(fill, Sequence) and 1 <= len(fill) <= 4:
        return [number(v, arg) for v in fill]
    raise ValueError(f"{arg} must be a number or 1-4 numbers (one per channel), got {fill!r}")


def _mask_fill(fill: Any, arg: str) -> Any:
    if fill is None:
        return None
    if isinstance(fill, str):
        raise ValueError(f"{arg} must be None, a number or one number per channel, got "
                         f"{fill!r}")
    return _fill(fill, arg)


class _Dropout(ColourTransform):
    """Rectangles of the output filled with ``fill`` (and ``fill_mask`` in the masks).

    An inpainting fill (``"inpaint_telea"``, ``"inpaint_ns"``) is OpenCV's ``cv2.inpaint``
    (radius 3) of the holes, on the host between two passes (:mod:`._host`), as albumentations
    makes it: 1 or 3 channels, float images through their 8-bit levels. The step then stays in
    the next pass, where its holes act on the masks, keypoints and boxes (its colour operations
    are none). No geometric step may follow it (the image's holes would move, the targets'
    not)."""

    #: a subclass's holes, one sample's and a batch's (lanes_ok: written by one class)
    _LANE_PARTS = (("_holes", "_holes_lanes"),)
    #: an inpainting fill changes the image on the host; its holes stay in the next pass
    changes = frozenset({"image"})
    threads = True
    stays_in_pass = True
    #: its holes are the output's: no geometric step may follow an inpainting one
    after_geometry = True

    def __init__(self, fill: Any, fill_mask: Any, p: float) -> None:
        super().__init__(p)
        name = type(self).__name__
        self.fill = _fill(fill, f"{name}'s fill", inpaint=True)
        self.fill_mask = _mask_fill(fill_mask, f"{name}'s fill_mask")

    @property
    def runs_on_host(self) -> bool:
        """Whether the image's holes are inpainted, on the host between two passes."""
        return self.fill in INPAINT_FILLS

    def run(self, target, value, params, shape):
        if params["holes"] is None:
            raise ValueError(f"{type(self).__name__} finds its holes in the call's mask: give "
                             f"the pipeline mask=")
        channels = 1 if value.ndim == 2 else value.shape[2]
        if channels not in (1, 3):
            raise ValueError(f"{type(self).__name__}(fill={self.fill!r}) inpaints 1 or 3 "
                             f"channels (OpenCV's cv2.inpaint), got {channels}")
        h, w = value.shape[:2]
        holes = np.concatenate([r for r, _ in output_holes(self, params, (w, h))] or
                               [np.zeros((0, 4), np.int64)])
        return eight_bit_io(value, type(self).__name__,
                            lambda img: inpaint(img, holes, self.fill))

    def _holes(self, rng, size) -> list[list[int]]:
        raise NotImplementedError

    def draw(self, rng, size):
        return self._params(rng, self._holes(rng, size), size)

    def _params(self, rng, holes: list[list[int]], size) -> dict:
        """A draw's parameters: its holes, the size they were drawn on, then the fill's key
        or the holes' colours drawn after them."""
        params: dict[str, Any] = {"holes": holes, "size": [int(size[0]), int(size[1])]}
        if self.fill == "random":
            params["key"] = draw_key(rng)[:2]
        elif self.fill == "random_uniform":  # a colour per hole: levels picked per channel
            params["colours"] = rng.random((len(holes), 4)).tolist()
        return params

    def _holes_lanes(self, lanes, sizes) -> list[list[list[int]]]:
        raise NotImplementedError

    def draw_lanes(self, lanes, sizes):
        """:meth:`draw` for a batch: each lane's holes, then its key or its holes' colours
        (:class:`~warpkit.augment._lanes.Lanes`: the same numbers, call for call)."""
        holes = self._holes_lanes(lanes, sizes)
        extra: list[dict] = [{} for _ in sizes]
        if self.fill == "random":
            extra = [{"key": k[:2]} for k in draw_keys(lanes)]
        elif self.fill == "random_uniform":  # rng.random((holes, 4)): hole after hole
            counts = np.array([len(h) for h in holes])
            colours: list[list] = [[] for _ in sizes]
            for k in range(int(counts.max(initial=0))):
                where = counts > k
                for i, row in zip(np.flatnonzero(where).tolist(),
                                  lanes.random(where, k=4)[where].tolist()):
                    colours[i].append(row)
            extra = [{"colours": c} for c in colours]
        return [{"holes": h, "size": [int(s[0]), int(s[1])], **e}
                for h, s, e in zip(holes, sizes, extra)]

    #: whether the kernel gets the holes as bands of rows (kernels_cl/colour.h's WK_COL_HOLES:
    #: a pixel looks at the holes of its band only, scanned by column) instead of an operation
    #: each (WK_COL_HOLE: every pixel tests every hole)
    _BANDED = False

    def colour_ops(self, params, channels, peak):
        if self.runs_on_host:  # (the host inpainted the holes before this pass)
            return []
        if params["holes"] is None:
            raise ValueError(f"{type(self).__name__} finds its holes in the call's mask: give "
                             f"the pipeline mask=")
        if channels > 4:
            raise TypeError(f"{type(self).__name__} takes images of at most 4 channels, got "
                            f"{channels}")
        w, h = params["size"]
        holes = params["holes"]
        mode, key = 0.0, [0.0, 0.0]
        fills: list[list[float]]
        if self.fill == "random":
            mode, key = 1.0, list(map(float, params["key"]))
            fills = [[0.0] * 4] * len(holes)
        elif self.fill == "random_uniform":
            fills = [[math.floor(c * (peak + 1)) if peak > 1 else c * peak for c in u]
                     for u in params["colours"][:len(holes)]]
        else:
            fills = [_per_channel(self.fill, channels, "fill")] * len(holes)
        if self._BANDED and holes:
            return _bands(np.asarray(holes, np.int64), (w, h), fills, mode, key,
                          self.fill == "random_uniform")
        return [[HOLE, x1 / w, y1 / h, x2 / w, y2 / h, *f, mode, *key]
                for (x1, y1, x2, y2), f in zip(holes, fills)]

    def config(self):
        return {"fill": self.fill, "fill_mask": self.fill_mask}


class GridDropout(_Dropout):
    """albumentations' GridDropout: the image cut into a grid of cells, a hole in each (its
    sides ``ratio`` of the cell's, at least one pixel and at least one short of the cell), at
    a random place inside its cell (``random_offset``) or shifted by ``shift_xy`` from the
    cell's corner, filled as :class:`CoarseDropout` fills.

    The grid: ``holes_number_xy`` fixes it, taken as albumentations takes it (its first number
    counts the rows, its second the columns); else cells of a side drawn from
    ``unit_size_range`` (pixels, the high end excluded as albumentations' draw excludes it;
    ``(k, k)``: k), else of a tenth of each side (at least 2 pixels). The rows' and the
    columns' sizes differ by at most one pixel, in a random order. Holes are made in the output
    by the kernel from tables of bands of rows and holes by their left edge, which each block
    of pixels bisects, so a grid of hundreds of holes costs a few steps a block.

    Example:
        >>> t = GridDropout(ratio=0.5, holes_number_xy=(2, 3), random_offset=False, p=1)
        >>> t.draw(np.random.default_rng(0), (90, 60))["holes"][:2]
        [[0, 0, 15, 15], [30, 0, 45, 15]]
    """

    _BANDED = True

    def __init__(self, ratio: float = 0.5, random_offset: bool = True,
                 unit_size_range: Any = None, holes_number_xy: Any = None,
                 shift_xy: Any = (0, 0), fill: Any = 0, fill_mask: Any = None,
                 p: float = 0.5) -> None:
        super().__init__(fill, fill_mask, p)
        self.ratio = number(ratio, "ratio")
        if not 0 < self.ratio <= 1:
            raise ValueError(f"ratio must be in (0, 1], got {ratio!r}")
        if not isinstance(random_offset, bool):
            raise ValueError(f"random_offset must be True or False, got {random_offset!r}")
        self.random_offset = random_offset
        self.unit_size_range = None if unit_size_range is None else \
            _whole_pair(unit_size_range, "unit_size_range", 2)
        if self.unit_size_range and self.unit_size_range[0] > self.unit_size_range[1]:
            raise ValueError(f"unit_size_range must be (low, high) with low <= high, got "
                             f"{unit_size_range!r}")
        self.holes_number_xy = None if holes_number_xy is None else \
            _whole_pair(holes_number_xy, "holes_number_xy", 1)
        self.shift_xy = _whole_pair(shift_xy, "shift_xy", 0)

    def _grids(self, W: np.ndarray, H: np.ndarray, unit: Any) -> tuple[np.ndarray, np.ndarray]:
        """Each image's grid (rows, columns) for sides ``W``, ``H``: ``holes_number_xy`` as
        albumentations reads it (rows first), cells of the drawn side ``unit``, or cells of a
        tenth of each side (at least 2 pixels)."""
        if self.holes_number_xy:
            rows, cols = self.holes_number_xy
            return np.full_like(W, rows), np.full_like(W, cols)
        if self.unit_size_range:
            return H // unit, W // unit
        return H // np.maximum(2, H // 10), W // np.maximum(2, W // 10)

    def _unit_range(self, w: int, h: int) -> tuple[int, int]:
        lo, hi = self.unit_size_range
        if hi > min(w, h):
            raise ValueError(f"GridDropout's unit_size_range {self.unit_size_range} must be "
                             f"within the shortest side of the image it drops from, got "
                             f"{w} x {h}")
        return lo, max(hi, lo + 1)

    def _holes(self, rng, size):
        w, h = int(size[0]), int(size[1])
        unit = int(rng.integers(*self._unit_range(w, h))) if self.unit_size_range else None
        rows, cols = (int(v[0]) for v in self._grids(np.array([w]), np.array([h]), unit))
        if not rows or not cols:
            return []
        order = rng.random((1, rows)), rng.random((1, cols))
        place = (rng.random((1, rows * cols)), rng.random((1, rows * cols))) \
            if self.random_offset else None
        return self._cut(w, h, rows, cols, order, place)[0]

    def _holes_lanes(self, lanes, sizes):
        """:meth:`_holes` for every lane: each lane's draws in its order (the lanes of one grid
        size draw together, every lane once per step), then the holes of the lanes of one
        image size and grid at once."""
        n = len(sizes)
        W = np.array([s[0] for s in sizes], np.int64)
        H = np.array([s[1] for s in sizes], np.int64)
        unit = None
        if self.unit_size_range:
            for w, h in set(zip(W.tolist(), H.tolist())):
                self._unit_range(w, h)
            lo, hi = self.unit_size_range
            unit = lanes.integers(lo, max(hi, lo + 1))
        rows, cols = self._grids(W, H, unit)
        live = (rows > 0) & (cols > 0)

        def draw(counts):  # each lane's random(count)
            got = [np.empty(0)] * n
            for k in np.unique(counts[live]).tolist():
                where = live & (counts == k)
                u = lanes.random(where, k=k).reshape(n, k)
                for i in np.flatnonzero(where).tolist():
                    got[i] = u[i]
            return got

        order = draw(rows), draw(cols)
        place = (draw(rows * cols), draw(rows * cols)) if self.random_offset else None
        out: list[list[list[int]]] = [[] for _ in range(n)]
        shapes = np.stack([W, H, rows, cols], 1)
        for shape in np.unique(shapes[live], axis=0).tolist():
            idx = np.flatnonzero(live & (shapes == shape).all(1)).tolist()
            stack = lambda got: np.stack([got[i] for i in idx])  # noqa: E731
            holes = self._cut(*shape, (stack(order[0]), stack(order[1])),
                              (stack(place[0]), stack(place[1])) if place else None)
            for i, hs in zip(idx, holes):
                out[i] = hs
        return out

    def _cut(self, w: int, h: int, rows: int, cols: int, order, place) -> list[list[list[int]]]:
        """The holes of m grids of one image size from their draws: ``order``, a uniform
        number per row and per column ((m, rows), (m, cols): their ranks shuffle the sizes);
        ``place``, two per cell ((m, rows x cols) each, row after row: the offsets down, then
        across), or None for ``shift_xy``. albumentations' arithmetic, with the holes that
        cover no pixel left out."""
        sides = []
        for n, parts, u in ((h, rows, order[0]), (w, cols, order[1])):
            base, extra = divmod(n, parts)
            sizes = np.where(np.arange(parts) < extra, base + 1, base)[np.argsort(u, axis=1)]
            sides.append((np.cumsum(sizes, axis=1) - sizes, sizes))
        (y0, ch), (x0, cw) = sides
        # per cell, (m, rows, cols)
        hh = np.minimum(np.maximum(ch * self.ratio, 1), ch - 1).astype(np.int64)[:, :, None]
        hw = np.minimum(np.maximum(cw * self.ratio, 1), cw - 1).astype(np.int64)[:, None, :]
        y0, x0 = y0[:, :, None], x0[:, None, :]
        if place is None:
            dy, dx = self.shift_xy[1], self.shift_xy[0]
        else:  # uniform in [0, free]: free + 1 places
            free_y, free_x = ch[:, :, None] - hh, cw[:, None, :] - hw
            shape = (len(ch), rows, cols)
            dy = np.minimum(np.floor(place[0].reshape(shape) * (free_y + 1)).astype(np.int64),
                            free_y)
            dx = np.minimum(np.floor(place[1].reshape(shape) * (free_x + 1)).astype(np.int64),
                            free_x)
        x1 = np.clip(x0 + dx, 0, w - hw)
        y1 = np.clip(y0 + dy, 0, h - hh)
        x2, y2 = np.minimum(x1 + hw, w), np.minimum(y1 + hh, h)
        holes = np.stack(np.broadcast_arrays(x1, y1, x2, y2), -1).reshape(len(ch), -1, 4)
        keep = ((holes[..., 2] > holes[..., 0]) & (holes[..., 3] > holes[..., 1]))
        if keep.all():
            return holes.tolist()
        return [hs[k].tolist() for hs, k in zip(holes, keep)]

    def config(self):
        return {"ratio": self.ratio, "random_offset": self.random_offset,
                "unit_size_range": None if self.unit_size_range is None
                else list(self.unit_size_range),
                "holes_number_xy": None if self.holes_number_xy is None
                else list(self.holes_number_xy),
                "shift_xy": list(self.shift_xy), **super().config()}


class XYMasking(_Dropout):
    """albumentations' XYMasking (SpecAugment's masks): ``num_masks_x`` vertical stripes of a
    width from ``mask_x_length``, each the image's height, and ``num_masks_y`` horizontal ones
    of a height from ``mask_y_length``, each at a random place, filled as
    :class:`CoarseDropout` fills. Counts and lengths are whole numbers, both ends included
    (``x`` means (0, x)); a length past the image's side is refused when drawn, as
    albumentations refuses it. Stripes of length 0 are recorded and cover nothing; an axis
    whose lengths reach no further than 0 (both, with albumentations' defaults) draws none.

    Example:
        >>> t = XYMasking(num_masks_x=(2, 2), mask_x_length=(5, 5), p=1)
        >>> [(x2 - x1, y2 - y1) for x1, y1, x2, y2 in t.draw(np.random.default_rng(0),
        ...                                                   (40, 30))["holes"]]
        [(5, 30), (5, 30)]
    """

    def __init__(self, num_masks_x: Any = 0, num_masks_y: Any = 0, mask_x_length: Any = 0,
                 mask_y_length: Any = 0, fill: Any = 0, fill_mask: Any = None,
                 p: float = 0.5) -> None:
        super().__init__(fill, fill_mask, p)
        self.num_masks_x = _counts(num_masks_x, "num_masks_x")
        self.num_masks_y = _counts(num_masks_y, "num_masks_y")
        self.mask_x_length = _counts(mask_x_length, "mask_x_length")
        self.mask_y_length = _counts(mask_y_length, "mask_y_length")

    def _check(self, w: int, h: int) -> None:
        for (lo, hi), side, name in ((self.mask_x_length, w, "mask_x_length"),
                                     (self.mask_y_length, h, "mask_y_length")):
            if hi > side:
                raise ValueError(f"{type(self).__name__}'s {name} ({lo}, {hi}) reaches past "
                                 f"the image's side of {side} pixels")

    def _axes(self):
        """(count range, length range, vertical) of each kind of stripe with a length, in
        albumentations' order: the vertical stripes (along x) first."""
        return [(n, ln, vertical) for n, ln, vertical in
                ((self.num_masks_x, self.mask_x_length, True),
                 (self.num_masks_y, self.mask_y_length, False)) if ln[1] > 0]

    def _holes(self, rng, size):
        w, h = int(size[0]), int(size[1])
        self._check(w, h)
        holes = []
        for (lo, hi), (llo, lhi), vertical in self._axes():
            side = w if vertical else h
            for _ in range(int(rng.integers(lo, hi + 1))):  # per stripe: its length, its place
                length = int(rng.integers(llo, lhi + 1))
                at = int(rng.integers(0, side - length + 1))
                holes.append([at, 0, at + length, h] if vertical else [0, at, w, at + length])
        return holes

    def _holes_lanes(self, lanes, sizes):
        """:meth:`_holes` for every lane: the counts, then stripe k's length and place for the
        lanes with more than k stripes, k = 0, 1, ..., one kind of stripe after the other."""
        W = np.array([s[0] for s in sizes], np.int64)
        H = np.array([s[1] for s in sizes], np.int64)
        for w, h in set(zip(W.tolist(), H.tolist())):
            self._check(w, h)
        holes: list[list[list[int]]] = [[] for _ in sizes]
        for (lo, hi), (llo, lhi), vertical in self._axes():
            side = W if vertical else H
            count = lanes.integers(lo, hi + 1)
            for k in range(int(count.max(initial=0))):
                where = count > k
                length = lanes.integers(llo, lhi + 1, where)
                at = lanes.integers(0, np.where(where, side - length + 1, 1), where)
                for i in np.flatnonzero(where).tolist():
                    a, n = int(at[i]), int(length[i])
                    holes[i].append([a, 0, a + n, int(H[i])] if vertical else
                                    [0, a, int(W[i]), a + n])
        return holes

    def config(self):
        return {"num_masks_x": list(self.num_masks_x), "num_masks_y": list(self.num_masks_y),
                "mask_x_length": list(self.mask_x_length),
                "mask_y_length": list(self.mask_y_length), **super().config()}


def _mask_param(value: Any, arg: str) -> int:
    """A SpecAugment mask's largest length: a whole number above 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{arg} must be a whole number above 0, got {value!r}")
    return int(value)


class TimeMasking(XYMasking):
    """albumentations' TimeMasking (SpecAugment's time mask): none or one vertical stripe (a
    spectrogram's span of time), of a width drawn in [0, ``time_mask_param``], filled with 0 in
    the image and the masks: :class:`XYMasking` with ``num_masks_x=1``, ``mask_x_length=(0,
    time_mask_param)``, ``fill=0`` and ``fill_mask=0``, as albumentations makes it.

    Example:
        >>> t = TimeMasking(time_mask_param=10, p=1)
        >>> t.num_masks_x, t.mask_x_length, t.fill_mask
        ((0, 1), (0, 10), 0.0)
    """

    def __init__(self, time_mask_param: int = 40, p: float = 0.5) -> None:
        n = _mask_param(time_mask_param, "time_mask_param")
        super().__init__(num_masks_x=1, mask_x_length=(0, n), fill=0, fill_mask=0, p=p)
        self.time_mask_param = n

    def config(self):
        return {"time_mask_param": self.time_mask_param}


class FrequencyMasking(XYMasking):
    """albumentations' FrequencyMasking (SpecAugment's frequency mask): none or one horizontal
    stripe (a band of frequencies), of a height drawn in [0, ``freq_mask_param``], filled with
    0 in the image and the masks: :class:`XYMasking` with ``num_masks_y=1``,
    ``mask_y_length=(0, freq_mask_param)``, ``fill=0`` and ``fill_mask=0``.

    Example:
        >>> FrequencyMasking(freq_mask_param=8, p=1).mask_y_length
        (0, 8)
    """

    def __init__(self, freq_mask_param: int = 30, p: float = 0.5) -> None:
        n = _mask_param(freq_mask_param, "freq_mask_param")
        super().__init__(num_masks_y=1, mask_y_length=(0, n), fill=0, fill_mask=0, p=p)
        self.freq_mask_param = n

    def config(self):
        return {"freq_mask_param": self.freq_mask_param}


def _counts(value: Any, arg: str) -> tuple[int, int]:
    """albumentations' non-negative whole range: ``x`` means (0, x), a pair (low, high)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (0, int(value))
    lo, hi = _whole_pair(value, arg, 0)
    if lo > hi:
        raise ValueError(f"{arg} must be (low, high) with low <= high, got {value!r}")
    return lo, hi


def _whole_pair(value: Any, arg: str, least: int) -> tuple[int, int]:
    """Two whole numbers >= ``least``."""
    if not (isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                    and float(v).is_integer() and v >= least for v in value)):
        raise ValueError(f"{arg} must be two whole numbers >= {least}, got {value!r}")
    return int(value[0]), int(value[1])


def _bands(holes: np.ndarray, size: tuple[int, int], fills: list[list[float]], mode: float,
           key: list[float], per_hole: bool) -> np.ndarray:
    """Holes ((n, 4) pixels of an image of ``size``) as one WK_COL_HOLES operation and its
    tables, (operations, WORDS): the holes grouped into bands of rows (holes whose rows
    overlap, directly or through others, share one), the bands from the top, each band's holes
    in order of x1 (ties in the holes' order) with the running maximum of their x2; each hole's
    fill where ``per_hole``."""
    w, h = size
    n = len(holes)
    x1, y1, x2, y2 = holes.T
    by_top = np.argsort(y1, kind="stable")
    # a band starts at a hole below every hole above it
    starts = np.ones(n, np.int64)
    starts[1:] = y1[by_top][1:] >= np.maximum.accumulate(y2[by_top])[:-1]
    band = np.empty(n, np.int64)
    band[by_top] = np.cumsum(starts) - 1
    order = np.argsort(band * (int(x1.max()) + 1) + x1, kind="stable")
    counts = np.bincount(band)
    firsts = np.cumsum(counts) - counts
    frac = holes[order] / np.array([w, h, w, h], np.float64)
    # the running maximum of x2 within each band (in pixels, exact: later bands lifted above
    # every earlier value), as the fraction of the hole that holds it
    lift = band[order] * (int(x2.max()) + 1)
    reach_x = (np.maximum.accumulate(x2[order] + lift) - lift) / w
    bands = len(firsts)
    table = np.column_stack([np.minimum.reduceat(frac[:, 1], firsts),
                             np.maximum.reduceat(frac[:, 3], firsts), firsts, counts])
    pairs = -(-bands // 2)
    out = np.zeros((1 + pairs + n, WORDS))
    out[0, :5] = [HOLES, bands, n, pairs + n, 0.0]
    out[0, 9:] = [2.0 if per_hole else mode, *key]
    if not per_hole:
        out[0, 5:9] = fills[0]
    out[1:1 + pairs, 0] = DATA
    two = np.zeros((2 * pairs, 4))
    two[:bands] = table
    out[1:1 + pairs, 1:9] = two.reshape(pairs, 8)
    rows = out[1 + pairs:]
    rows[:, 0] = DATA
    rows[:, 1:5] = frac
    rows[:, 5] = reach_x
    if per_hole:
        rows[:, 6:10] = np.asarray(fills, np.float64)[order]
    return out


def _per_channel(fill: Any, channels: int, arg: str) -> list[float]:
    """A fill as four values: a number for every channel, or one per channel (as many as the
    image has, as albumentations requires)."""
    if isinstance(fill, list):
        if len(fill) != channels:
            raise ValueError(f"{arg} has {len(fill)} values for an image of {channels} channels")
        return fill + [0.0] * (4 - len(fill))
    return [float(fill)] * 4


class CoarseDropout(_Dropout):
    """albumentations' CoarseDropout: ``num_holes_range`` holes, each of a height and width
    from ``hole_height_range`` / ``hole_width_range`` (fractions of the image's side when the
    range's high end is below 1, else pixels, drawn as albumentations draws them: whole
    numbers from ``int(low)`` to ``int(high)``, so (0.01, 1.0) gives holes of 0 or 1 pixel, and
    a hole of 0 is none), anywhere inside the image, filled with ``fill``
    (a number, one per channel, ``"random"``: a random level per pixel, ``"random_uniform"``:
    a random colour per hole); masks get ``fill_mask`` (None: untouched).

    Example:
        >>> t = CoarseDropout(num_holes_range=(1, 3), hole_height_range=(8, 16),
        ...                   hole_width_range=(8, 16), fill=0, fill_mask=255, p=1)
        >>> len(t.draw(np.random.default_rng(0), (64, 64))["holes"]) in (1, 2, 3)
        True
    """

    def __init__(self, num_holes_range: Any = (1, 2), hole_height_range: Any = (0.1, 0.2),
                 hole_width_range: Any = (0.1, 0.2), fill: Any = 0, fill_mask: Any = None,
                 p: float = 0.5) -> None:
        super().__init__(fill, fill_mask, p)
        lo, hi = value_range(num_holes_range, "num_holes_range", False, 1, math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"num_holes_range must be whole numbers, got {num_holes_range!r}")
        self.num_holes_range = (int(lo), int(hi))
        self.hole_height_range = self._side(hole_height_range, "hole_height_range")
        self.hole_width_range = self._side(hole_width_range, "hole_width_range")
        if (self.hole_height_range[1] >= 1) != (self.hole_width_range[1] >= 1):
            raise ValueError("hole_height_range and hole_width_range must both be fractions "
                             "(below 1) or both pixels")

    @staticmethod
    def _side(r: Any, arg: str) -> tuple[float, float]:
        lo, hi = value_range(r, arg, False, 0.0, math.inf)[0]
        # (pixels where the top is 1 or more, truncated as albumentations draws them:
        # (0.01, 1.0) makes holes of 0 or 1 pixel; a hole of 0 is none)
        if hi < 1 and lo <= 0:
            raise ValueError(f"{arg} as fractions must be in (0, 1), got {r!r}")
        return lo, hi

    def _holes(self, rng, size):
        w, h = size
        # albumentations' draws, in its order: the count, the heights, the widths, the corners
        n = int(rng.integers(self.num_holes_range[0], self.num_holes_range[1] + 1))
        (hl, hh), (wl, wh) = self.hole_height_range, self.hole_width_range
        if hh >= 1:
            hs = rng.integers(int(hl), int(min(hh, h)) + 1, size=n)
            ws = rng.integers(int(wl), int(min(wh, w)) + 1, size=n)
        else:
            hs = (h * rng.uniform(hl, hh, size=n)).astype(int)
            ws = (w * rng.uniform(wl, wh, size=n)).astype(int)
        y0 = rng.integers(0, h - hs + 1, size=n)
        x0 = rng.integers(0, w - ws + 1, size=n)
        return np.stack([x0, y0, x0 + ws, y0 + hs], -1).tolist()

    def _holes_lanes(self, lanes, sizes):
        """:meth:`_holes` for every lane: the counts, then hole k's height of the lanes with
        more than k holes, k = 0, 1, ...; the widths, the rows, the columns likewise (each
        lane's stream draws in :meth:`_holes`' order; numpy draws ``size=n`` values one after
        another, as n calls would)."""
        W = np.array([s[0] for s in sizes], np.int64)
        H = np.array([s[1] for s in sizes], np.int64)
        n = lanes.integers(self.num_holes_range[0], self.num_holes_range[1] + 1)
        m = int(n.max(initial=0))
        (hl, hh), (wl, wh) = self.hole_height_range, self.hole_width_range
        hs, ws = np.zeros((len(sizes), m), np.int64), np.zeros((len(sizes), m), np.int64)
        if hh >= 1:
            for side, lo, hi, dim in ((hs, hl, hh, H), (ws, wl, wh, W)):
                top = np.minimum(hi, dim).astype(np.int64) + 1
                for k in range(m):
                    side[:, k] = lanes.integers(int(lo), top, n > k)
        else:
            for side, lo, hi, dim in ((hs, hl, hh, H), (ws, wl, wh, W)):
                for k in range(m):
                    side[:, k] = (dim * lanes.uniform(lo, hi, n > k)).astype(np.int64)
        y0, x0 = np.zeros_like(hs), np.zeros_like(ws)
        for corner, dim, side in ((y0, H, hs), (x0, W, ws)):
            for k in range(m):
                corner[:, k] = lanes.integers(0, dim - side[:, k] + 1, n > k)
        rects = np.stack([x0, y0, x0 + ws, y0 + hs], -1).tolist()
        return [r[:c] for r, c in zip(rects, n.tolist())]

    def config(self):
        return {"num_holes_range": list(self.num_holes_range),
                "hole_height_range": list(self.hole_height_range),
                "hole_width_range": list(self.hole_width_range), **super().config()}


class ConstrainedCoarseDropout(_Dropout):
    """albumentations' ConstrainedCoarseDropout by ``bbox_labels``: holes inside the boxes whose
    label (the first label field, albumentations' fifth column) is one of ``bbox_labels``, the
    boxes as the transform finds them (carried through the steps before it); ``num_holes_range``
    holes per box (one count drawn for all), each of a height and width from
    ``hole_height_range`` / ``hole_width_range`` (fractions of the box's side, truncated to
    whole pixels), placed uniformly inside the box, filled as :class:`CoarseDropout` fills.
    albumentations' draws in its order: the count, then every box's hole heights, widths, left
    and top offsets (numpy's ``uniform`` over (boxes, holes) arrays), corners truncated to whole
    pixels. No matching box, no holes.

    By ``mask_indices`` (values of the call's ``mask``, from 1): holes about points of the
    objects of those values (the pixels of any of them as one binary mask, its 8-connected
    regions), found in the mask **as the warp leaves it** after the steps before (as
    MaskDropout finds its objects: warpkit.augment._mask_dropout), with albumentations' own
    draws in its order: per region ``num_holes_range``'s count of its pixels picked (with
    repeats), each hole's height and width the ranges times the square root of its region's
    pixels, centred on its pixel, clipped. Those draws come from numpy's generator seeded with
    the recorded ``mask_key`` (the sample's stream cannot wait for the mask), and a
    ``"random_uniform"`` fill's colours from it after them. A call without ``mask=`` takes
    ``bbox_labels`` instead, as albumentations does; without those either it is refused
    (albumentations makes no holes then, with a warning).

    Example:
        >>> from warpkit.augment._targets import Seen
        >>> t = ConstrainedCoarseDropout(hole_height_range=(0.5, 0.5),
        ...                              hole_width_range=(0.5, 0.5), bbox_labels=["cat"], p=1)
        >>> seen = Seen((64, 64), np.array([[8., 8., 40., 24.], [0., 0., 4., 4.]]),
        ...             labels=["cat", "dog"])
        >>> holes = t.draw_seen(np.random.default_rng(0), (64, 64), seen)["holes"]
        >>> len(holes), holes[0][2] - holes[0][0], holes[0][3] - holes[0][1]
        (1, 16, 8)
    """

    reads = frozenset({"boxes"})

    def __init__(self, num_holes_range: Any = (1, 1), hole_height_range: Any = (0.1, 0.1),
                 hole_width_range: Any = (0.1, 0.1), fill: Any = 0, fill_mask: Any = None,
                 p: float = 0.5, mask_indices: Any = None, bbox_labels: Any = None) -> None:
        super().__init__(fill, fill_mask, p)
        if mask_indices is not None and (
                isinstance(mask_indices, (str, bytes)) or not isinstance(mask_indices, Sequence)
                or not mask_indices or not all(
                    isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1
                    for v in mask_indices)):
            raise ValueError(f"mask_indices must be a list of whole numbers >= 1 (values of "
                             f"the mask), got {mask_indices!r}")
        self.mask_indices = None if mask_indices is None else [int(v) for v in mask_indices]
        if self.mask_indices is not None and self.runs_on_host:
            raise ValueError(f"ConstrainedCoarseDropout(fill={fill!r}) with mask_indices is not "
                             f"supported: its holes are found in the warped mask, in the pass "
                             f"after the host inpaints them; take bbox_labels, or a fill")
        lo, hi = value_range(num_holes_range, "num_holes_range", False, 1, math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"num_holes_range must be whole numbers, got {num_holes_range!r}")
        self.num_holes_range = (int(lo), int(hi))
        self.hole_height_range = value_range(hole_height_range, "hole_height_range", False,
                                             0.0, 1.0)[0]
        self.hole_width_range = value_range(hole_width_range, "hole_width_range", False,
                                            0.0, 1.0)[0]
        if bbox_labels is not None and (isinstance(bbox_labels, (str, bytes)) or not all(
                isinstance(v, (str, numbers.Real)) for v in bbox_labels)):
            raise ValueError(f"bbox_labels must be a list of labels (strings or numbers), got "
                             f"{bbox_labels!r}")
        self.bbox_labels = None if bbox_labels is None else list(bbox_labels)

    def draw(self, rng, size):
        from ._targets import Seen

        return self.draw_seen(rng, size, Seen(size))

    @property
    def reads_mask(self) -> bool:
        """Whether its holes may come from the warped mask (:meth:`see_masks`): by
        ``mask_indices``, where the call gives a mask (:meth:`sees_mask`)."""
        return self.mask_indices is not None

    def sees_mask(self, params: dict) -> bool:
        """Whether these parameters are completed from the warped mask: drawn for it."""
        return "mask_key" in params

    def draw_seen(self, rng, size, seen):
        # albumentations' order: the count (its Python random), then numpy's for the holes
        k = int(rng.integers(self.num_holes_range[0], self.num_holes_range[1] + 1))
        # by the mask where the call has one; else by the boxes (albumentations' fallback),
        # else by the mask all the same (the call is refused: no mask)
        if self.mask_indices is not None and (
                seen is None or seen.has_mask or self.bbox_labels is None):
            params: dict[str, Any] = {"holes": None, "size": [int(size[0]), int(size[1])],
                                      "count": k, "mask_key": draw_key(rng)}
            if self.fill == "random":
                params["key"] = draw_key(rng)[:2]
            return params
        boxes = self._targets(seen)
        holes: list[list[int]] = []
        if boxes is not None:
            bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
            n = (len(boxes), k)
            hh = (rng.uniform(*self.hole_height_range, size=n) * bh[:, None]).astype(np.int32)
            hw = (rng.uniform(*self.hole_width_range, size=n) * bw[:, None]).astype(np.int32)
            x0 = boxes[:, 0, None] + rng.uniform(0, 1, size=n) * (bw[:, None] - hw)
            y0 = boxes[:, 1, None] + rng.uniform(0, 1, size=n) * (bh[:, None] - hh)
            holes = np.stack([x0, y0, x0 + hw, y0 + hh], -1).astype(np.int32) \
                .reshape(-1, 4).tolist()
        return self._params(rng, holes, size)

    def see_masks(self, plist: list[dict], masks: list[np.ndarray]) -> None:
        """Completes samples' parameters from their masks as this step finds them (in the
        output): the holes about the objects of ``mask_indices`` (``holes``), the size
        (``size``), a ``"random_uniform"`` fill's colours."""
        from ._mask_dropout import holes_from_mask, mask_generator

        for params, mask in zip(plist, masks):
            rng = mask_generator(params["mask_key"])
            holes = holes_from_mask(mask, params["count"], self.mask_indices,
                                    self.hole_height_range, self.hole_width_range, rng)
            params["holes"] = holes.tolist()
            params["size"] = [int(mask.shape[1]), int(mask.shape[0])]
            if self.fill == "random_uniform":
                params["colours"] = rng.random((len(holes), 4)).tolist()

    def _targets(self, seen) -> np.ndarray | None:
        """The boxes (pixel-edge corners) whose label is one of ``bbox_labels``; None where
        there are none (or no boxes, or no bbox_labels)."""
        boxes = None if seen is None else seen.boxes
        if boxes is None or not len(boxes) or self.bbox_labels is None:
            return None
        if seen.labels is None:
            raise ValueError("ConstrainedCoarseDropout's bbox_labels match the boxes' labels: "
                             "give them (the pipeline's label_fields, the first one)")
        labels = [seen.labels[i] for i in np.asarray(seen.index).tolist()]
        keep = np.array([lab in self.bbox_labels for lab in labels], bool)
        return np.asarray(boxes, np.float64)[keep] if keep.any() else None

    def config(self):
        return {"num_holes_range": list(self.num_holes_range),
                "hole_height_range": list(self.hole_height_range),
                "hole_width_range": list(self.hole_width_range),
                "mask_indices": self.mask_indices, "bbox_labels": self.bbox_labels,
                **super().config()}


class Erasing(_Dropout):
    """albumentations' Erasing (torchvision's RandomErasing): one rectangle of an area drawn
    from ``scale`` (fractions of the image's area) and an aspect ratio (width / height) from
    ``ratio``, both limited to what fits the image, filled as :class:`CoarseDropout` fills.

    Example:
        >>> t = Erasing(scale=(0.1, 0.1), ratio=(1, 1), p=1)
        >>> x1, y1, x2, y2 = t.draw(np.random.default_rng(0), (100, 100))["holes"][0]
        >>> (x2 - x1, y2 - y1)
        (32, 32)
    """

    def __init__(self, scale: Any = (0.02, 0.33), ratio: Any = (0.3, 3.3), fill: Any = 0,
                 fill_mask: Any = None, p: float = 0.5) -> None:
        super().__init__(fill, fill_mask, p)
        self.scale = value_range(scale, "scale", False, 0.0, math.inf)[0]
        self.ratio = value_range(ratio, "ratio", False, 0.0, math.inf)[0]
        if self.ratio[0] <= 0:
            raise ValueError(f"ratio must be > 0, got {ratio!r}")

    def _holes(self, rng, size):
        w, h = size
        area = w * h
        lo, hi = area * self.scale[0], area * self.scale[1]
        r_lo, r_hi = self.ratio
        # the largest area whose rectangle fits for some ratio (albumentations' derivation)
        top = min(hi, min(r_lo * h * h, r_hi * h * h), min(w * w / r_lo, w * w / r_hi))
        if top < lo:
            return []
        a = float(rng.uniform(lo, top))
        r_max, r_min = min(r_hi, w * w / a), max(r_lo, a / (h * h))
        if r_min > r_max:
            return []
        r = float(rng.uniform(r_min, r_max))
        eh, ew = round(math.sqrt(a / r)), round(math.sqrt(a * r))
        y0 = int(rng.integers(0, h - eh + 1))
        x0 = int(rng.integers(0, w - ew + 1))
        return [[x0, y0, x0 + ew, y0 + eh]]

    def _holes_lanes(self, lanes, sizes):
        """:meth:`_holes` for every lane, the same operations on arrays (the lanes whose
        rectangle cannot fit draw no more, as a sample's stream stops there)."""
        w = np.array([s[0] for s in sizes], np.int64)
        h = np.array([s[1] for s in sizes], np.int64)
        area = w * h
        lo, hi = area * self.scale[0], area * self.scale[1]
        r_lo, r_hi = self.ratio
        with np.errstate(divide="ignore", invalid="ignore"):
            top = np.minimum(hi, np.minimum(np.minimum(r_lo * h * h, r_hi * h * h),
                                            np.minimum(w * w / r_lo, w * w / r_hi)))
            fits = ~(top < lo)
            a = lanes.uniform(lo, top, fits)
            r_max, r_min = np.minimum(r_hi, w * w / a), np.maximum(r_lo, a / (h * h))
            fits &= ~(r_min > r_max)
            r = lanes.uniform(r_min, r_max, fits)
            eh = np.rint(np.sqrt(a / r)).astype(np.int64, copy=False)
            ew = np.rint(np.sqrt(a * r)).astype(np.int64, copy=False)
        y0 = lanes.integers(0, np.where(fits, h - eh + 1, 1), fits)
        x0 = lanes.integers(0, np.where(fits, w - ew + 1, 1), fits)
        rects = np.stack([x0, y0, x0 + ew, y0 + eh], -1).tolist()
        return [[r] if f else [] for r, f in zip(rects, fits.tolist())]

    def config(self):
        return {"scale": list(self.scale), "ratio": list(self.ratio), **super().config()}


def hole_mask(rects: np.ndarray, out: tuple[int, int]) -> np.ndarray:
    """(H, W) bool: the output pixels that ``rects`` (output pixels, x2/y2 excluded) cover."""
    m = np.zeros((out[1], out[0]), bool)
    for x1, y1, x2, y2 in rects.tolist():
        m[max(y1, 0):max(y2, 0), max(x1, 0):max(x2, 0)] = True
    return m


def in_holes(x: np.ndarray, y: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Which points (pixel centres at integers) lie in a filled pixel of ``rects``: pixel i
    spans [i - 0.5, i + 0.5)."""
    x, y = x[:, None] + 0.5, y[:, None] + 0.5
    r = rects[None].astype(np.float64)
    return ((x >= r[..., 0]) & (x < r[..., 2]) & (y >= r[..., 1]) & (y < r[..., 3])).any(1)


def boxes_past_holes(xyxy: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the fraction of each box (K, 4 pixel edges, inside the output) that the holes of
    ``mask`` leave, the boxes shrunk to the part they leave), as albumentations measures them:
    over the whole pixels of each box's truncated edges; a side moves in only where the holes
    cover whole rows or columns of the box there."""
    frac = np.ones(len(xyxy))
    out = xyxy.copy()
    for i, (x1, y1, x2, y2) in enumerate(xyxy.astype(np.int64).tolist()):
        region = mask[max(y1, 0):max(y2, 0), max(x1, 0):max(x2, 0)]
        if not region.size or not region.any():
            continue
        visible = ~region
        frac[i] = visible.sum() / region.size
        if not visible.any():
            continue
        cols, rows = np.flatnonzero(visible.any(0)), np.flatnonzero(visible.any(1))
        if cols[0] > 0:
            out[i, 0] = x1 + cols[0]
        if rows[0] > 0:
            out[i, 1] = y1 + rows[0]
        if cols[-1] < region.shape[1] - 1:
            out[i, 2] = x1 + cols[-1] + 1
        if rows[-1] < region.shape[0] - 1:
            out[i, 3] = y1 + rows[-1] + 1
    return frac, out


def has_dropout(t: Transform) -> bool:
    """Whether a pipeline holds a dropout step (else a call skips reading holes)."""
    return contains(t, _Dropout)


def inpaint(img: np.ndarray, holes: np.ndarray, method: str) -> np.ndarray:
    """An 8-bit image of 1 or 3 channels with its ``holes`` (x1, y1, x2, y2; x2, y2 excluded)
    filled by OpenCV's inpainting (radius 3, Telea's method or Navier-Stokes), as
    albumentations 2.0.8 fills them: one channel through a 3-channel copy and back."""
    cv2 = _opencv()
    if cv2 is None:
        raise ValueError(f"fill={method!r} inpaints with OpenCV, which is not installed: pip "
                         f"install opencv-python-headless")
    mask = np.zeros(img.shape[:2], np.uint8)
    for x1, y1, x2, y2 in holes.tolist():
        mask[max(y1, 0):max(y2, 0), max(x1, 0):max(x2, 0)] = 255
    flag = cv2.INPAINT_TELEA if method == "inpaint_telea" else cv2.INPAINT_NS
    if img.ndim == 3 and img.shape[2] == 3:
        return cv2.inpaint(img, mask, 3, flag)
    grey = cv2.cvtColor(img.reshape(img.shape[:2]), cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(cv2.inpaint(grey, mask, 3, flag), cv2.COLOR_BGR2GRAY).reshape(img.shape)


def output_holes(t: Transform, params: dict, out: tuple[int, int]) -> list[tuple[np.ndarray, Any]]:
    """The holes a sample's recorded parameters make, as the kernel makes them: [(rectangles
    (n, 4) int64 in output pixels, x2/y2 excluded, the transform's fill_mask)] for each applied
    dropout step of ``t`` (a pipeline, a OneOf or one transform) that drew any."""
    res = []
    for step, p in t.applied_steps(params):
        if isinstance(step, _Dropout) and p["holes"]:
            w, h = p["size"]
            f = np.asarray(p["holes"], np.float64) / np.array([w, h, w, h])
            # the kernel's rounding: float32 fractions times the output's side, halves up
            scaled = f.astype(np.float32) * np.array([out[0], out[1]] * 2, np.float32)
            res.append((np.floor(scaled + np.float32(0.5)).astype(np.int64), step.fill_mask))
    return res
