"""Mosaic (albumentations 2.0.8's name, parameters and algorithm): each sample becomes a canvas
of ``grid_yx`` cells, each cell a piece of another image of the same call (or of the images a
single call passes in ``mosaic_metadata``), and the rest of the pipeline runs on that canvas.

It still resamples once. The call's images are packed into one atlas (:mod:`._mosaic_call`); a
sample's chain reads its output back to the canvas through the steps after Mosaic, and then,
through a :class:`~warpkit.engine.stages.Cells` stage, each canvas point into its cell's image
in the atlas. Every cell of every sample is sampled in the same launch. Boxes and keypoints of
every cell's image are moved onto the canvas on the host (a resize and a shift), clipped to
their cell, carried with their label fields, and then moved with the canvas like any other.

Conventions: cells are recorded as albumentations places them, ``[x_min, y_min, x_max, y_max,
source]`` in canvas pixels (pixel-edge corners); ``source`` is -1 for the sample's own image,
else the position in the call of the image that fills the cell (a batch's or list's sample, or
the entry of ``mosaic_metadata`` in a single image's call). A cell's image is resized to cover
``cell_shape`` (``fit_mode="cover"``: albumentations' SmallestMaxSize) or to fit in it
(``"contain"``: LongestMaxSize, the rest the fill) and cropped on the side away from the
canvas's centre, as albumentations does."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import geometry
from .._checks import count, number
from ..engine.stages import Cells
from ._base import (INTERPOLATION_CODES, Transform, contains, opencv_code, size_arg, size_hw,
                    value_range)
from ._geometric import LongestMaxSize, SmallestMaxSize
from ._objects import _uniform

__all__ = ["Mosaic"]

#: pixels of guard around each image of the atlas: the taps of a cubic kernel at a clamped
#: position (2 past it) and of a constant-padded warp up to 2 px outside the image
GUARD = 3
#: a bound that means "none" in a cell's clamp (float32 holds it)
_FAR = 1e30


class Mosaic(Transform):
    """albumentations' Mosaic: the sample and ``grid_yx[0] * grid_yx[1] - 1`` other images of
    the call in a grid of cells of ``cell_shape``, seen through a window of ``target_size``
    whose centre is drawn within ``center_range`` of where it can lie.

    Args (albumentations 2.0.8's):
        grid_yx: (rows, columns) of the grid.
        target_size: the canvas, (height, width): the output of this step.
        cell_shape: each cell's (height, width); ``cell_shape * grid_yx`` must cover
            ``target_size``.
        center_range: where the window's centre lies, as fractions of the region it can lie in.
        fit_mode: ``"cover"`` (each image resized to cover its cell, then cropped) or
            ``"contain"`` (resized to fit inside it; the rest is ``fill``).
        interpolation, mask_interpolation: the pipeline's (OpenCV's codes or warpkit's names).
        fill, fill_mask: the value of canvas pixels no image covers; the pipeline's constant
            padding (its ``fill`` and ``mask_fill``: a Mosaic pipeline pads with a constant).
        metadata_key: the keyword of a single image's call that holds the other images, a list
            of dicts with ``"image"`` and, as the call has them, ``"mask"``, ``"bboxes"``
            (or ``"boxes"``), ``"keypoints"`` and the label fields by name.
        p: the probability that a sample becomes a mosaic.

    Where it runs: first in its pipeline. In a batch or a list call each sample draws its
    partners among the call's other samples; a single image's call draws them from
    ``mosaic_metadata`` (with fewer than it needs, the sample's own image fills the rest, as
    albumentations does). Boxes of a cell are clipped to it; keypoints outside it are dropped.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, Mosaic
        >>> aug = Compose([Mosaic(target_size=(64, 64), cell_shape=(64, 64), p=1)])
        >>> batch = np.zeros((4, 48, 80, 3), np.uint8)
        >>> out = aug(image=batch, seed=0)                      # doctest: +SKIP
        >>> out["image"].shape, len(out["params"][0]["steps"][0]["cells"])  # doctest: +SKIP
        ((4, 64, 64, 3), 4)
    """

    reads = frozenset({"call"})

    def __init__(self, grid_yx: tuple[int, int] = (2, 2),
                 target_size: tuple[int, int] = (512, 512),
                 cell_shape: tuple[int, int] = (512, 512),
                 center_range: tuple[float, float] = (0.3, 0.7), fit_mode: str = "cover",
                 interpolation: Any = 1, mask_interpolation: Any = 0, fill: Any = 0,
                 fill_mask: Any = 0, metadata_key: str = "mosaic_metadata",
                 p: float = 0.5) -> None:
        super().__init__(p)
        if not isinstance(grid_yx, (list, tuple)) or len(grid_yx) != 2:
            raise ValueError(f"Mosaic grid_yx must be (rows, columns), got {grid_yx!r}")
        self.grid_yx = tuple(count(v, "Mosaic grid_yx", 1) for v in grid_yx)
        self.target_wh = size_arg(target_size, "Mosaic target_size")
        self.cell_wh = size_arg(cell_shape, "Mosaic cell_shape")
        (lo, hi), = value_range(center_range, "Mosaic center_range", False, 0.0, 1.0)
        self.center_range = (lo, hi)
        if fit_mode not in ("cover", "contain"):
            raise ValueError(f"Mosaic fit_mode must be 'cover' or 'contain', got {fit_mode!r}")
        self.fit_mode = fit_mode
        rows, cols = self.grid_yx
        if self.cell_wh[1] * rows < self.target_wh[1] or \
                self.cell_wh[0] * cols < self.target_wh[0]:
            raise ValueError(f"Mosaic target_size {size_hw(self.target_wh)} must fit in the "
                             f"grid: cell_shape {size_hw(self.cell_wh)} times grid_yx "
                             f"{list(self.grid_yx)}")
        self.interpolation = opencv_code(interpolation, INTERPOLATION_CODES, "interpolation")
        self.mask_interpolation = opencv_code(mask_interpolation, INTERPOLATION_CODES,
                                              "mask_interpolation")
        if "area" in (self.interpolation, self.mask_interpolation):  # (its cells are a chain)
            raise ValueError("Mosaic resamples its cells by stages, which the area filter does "
                             "not take: pass interpolation 0 (nearest), 1 (linear) or 2 (cubic)")
        self.fill = fill
        self.fill_mask = number(fill_mask, "Mosaic fill_mask")
        if not isinstance(metadata_key, str) or not metadata_key:
            raise ValueError(f"Mosaic metadata_key must be a keyword name, got "
                             f"{metadata_key!r}")
        self.metadata_key = metadata_key
        fit = SmallestMaxSize if fit_mode == "cover" else LongestMaxSize
        self._fit = fit(max_size_hw=size_hw(self.cell_wh))

    def settings(self) -> dict:
        return {"interpolation": self.interpolation,
                "mask_interpolation": self.mask_interpolation, "padding": "constant",
                "fill": self.fill, "mask_fill": self.fill_mask}

    def config(self) -> dict:
        return {"grid_yx": list(self.grid_yx), "target_size": size_hw(self.target_wh),
                "cell_shape": size_hw(self.cell_wh), "center_range": list(self.center_range),
                "fit_mode": self.fit_mode, "interpolation": self.interpolation,
                "mask_interpolation": self.mask_interpolation, "fill": self.fill,
                "fill_mask": self.fill_mask, "metadata_key": self.metadata_key}

    # -- the draw: albumentations' calls in its order, each from the sample's stream ----------
    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        partners = list(getattr(seen, "partners", None) or ())
        center = self._center(rng)
        placements = self.placements(center)
        needed = len(placements) - 1
        if len(partners) > needed:  # random.sample(partners, needed)
            chosen = [partners[i] for i in rng.permutation(len(partners))[:needed].tolist()]
        else:
            chosen = partners
        items = [-1, *chosen] + [-1] * (needed - len(chosen))
        order = [1 + i for i in rng.permutation(len(items) - 1).tolist()]  # random.shuffle
        # the sample's own image in the largest cell (the first of them), the others in turn
        primary = max(placements, key=lambda c: (c[2] - c[0]) * (c[3] - c[1]))
        rest = [c for c in placements if c != primary]
        cells = [[*primary, -1]] + [[*c, items[i]] for c, i in zip(rest, order)]
        return {"center": list(center), "cells": cells}

    def _center(self, rng) -> tuple[int, int]:
        """albumentations' calculate_mosaic_center_point."""
        rows, cols = self.grid_yx
        cw, ch = self.cell_wh
        tw, th = self.target_wh
        lo_x, hi_x = tw // 2, cols * cw - (tw + 1) // 2
        lo_y, hi_y = th // 2, rows * ch - (th + 1) // 2
        a, b = self.center_range
        rel_x, rel_y = _uniform(rng, a, b), _uniform(rng, a, b)
        cx = min(max(lo_x + int((hi_x - lo_x + 1) * rel_x), lo_x), hi_x)
        cy = min(max(lo_y + int((hi_y - lo_y + 1) * rel_y), lo_y), hi_y)
        return cx, cy

    def placements(self, center: tuple[int, int]) -> list[tuple[int, int, int, int]]:
        """albumentations' calculate_cell_placements: the grid's lines clipped to the window
        about ``center``, as (x_min, y_min, x_max, y_max) cells of the canvas, row by row."""
        rows, cols = self.grid_yx
        cw, ch = self.cell_wh
        tw, th = self.target_wh
        x0, y0 = center[0] - tw // 2, center[1] - th // 2

        def lines(n: int, step: int, lo: int, extent: int) -> list[int]:
            return sorted({min(max(i * step, lo), lo + extent) - lo for i in range(n + 1)})

        ys, xs = lines(rows, ch, y0, th), lines(cols, cw, x0, tw)
        return [(xs[i], ys[j], xs[i + 1], ys[j + 1])
                for j in range(len(ys) - 1) for i in range(len(xs) - 1)]

    # -- the geometry of the recorded cells -------------------------------------------------
    def map(self, params, size):
        """The identity onto the canvas: the cells' own maps are :meth:`cells`'s."""
        return geometry.identity(), self.target_wh

    def out_size(self, params, size):
        return self.target_wh

    def cells(self, params: dict, size_of: Any) -> list[Cell]:
        """The recorded cells as :class:`Cell` s: each one's image (``size_of(source)`` its
        (width, height)), the part of the canvas it covers, and the map from its image onto
        the canvas (a resize and a shift, pixel centres at integers)."""
        out = []
        tw, th = self.target_wh
        for x1, y1, x2, y2, src in params["cells"]:
            w, h = size_of(src)
            cw, ch = x2 - x1, y2 - y1
            cx0, cy0 = _opposite_crop(self.cell_wh, (cw, ch), _position((x1, y1, x2, y2),
                                                                        (tw, th)))
            m, (rw, rh) = self._fit.map({}, (w, h))
            left = top = 0
            if self.fit_mode == "contain":  # Crop(pad_if_needed=True): half of it before
                left, top = max(0, cx0 + cw - rw) // 2, max(0, cy0 + ch - rh) // 2
            ox, oy = x1 - cx0 + left, y1 - cy0 + top
            m = geometry.translation(ox, oy) @ m
            rect = (max(x1, ox), max(y1, oy), min(x2, ox + rw), min(y2, oy + rh))
            out.append(Cell(int(src), rect, m))
        return out


class Cell(NamedTuple):
    """One cell of a mosaic: its image (-1: the sample's own), the canvas pixels it covers
    (pixel-edge corners x_min, y_min, x_max, y_max; empty where its image does not reach) and
    the 3x3 map from its image onto the canvas."""

    source: int
    rect: tuple[int, int, int, int]
    matrix: np.ndarray


def _position(cell: tuple, size: tuple[int, int]) -> str:
    """albumentations' get_cell_relative_position: where a cell lies from the canvas's centre."""
    x1, y1, x2, y2 = cell
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    v = "top" if cy < size[1] / 2.0 else "bottom" if cy > size[1] / 2.0 else "center"
    h = "left" if cx < size[0] / 2.0 else "right" if cx > size[0] / 2.0 else "center"
    return f"{v}_{h}" if "center" not in (v, h) else "center"


def _opposite_crop(cell: tuple[int, int], crop: tuple[int, int], position: str
                   ) -> tuple[int, int]:
    """albumentations' get_opposite_crop_coords: the top-left corner of a ``crop`` (width,
    height) of a ``cell`` (width, height) on the side away from ``position``."""
    (cw, ch), (w, h) = cell, crop
    return {"top_left": (cw - w, ch - h), "top_right": (0, ch - h),
            "bottom_left": (cw - w, 0), "bottom_right": (0, 0),
            "center": ((cw - w) // 2, (ch - h) // 2)}[position]


def check_placement(transforms: list) -> None:
    """Refuse a Mosaic anywhere but as the first step of a pipeline: it replaces the sample's
    image with the canvas the steps after it transform."""
    if any(contains(t, Mosaic) for t in transforms[1:]) or \
            (transforms and not isinstance(transforms[0], Mosaic)
             and contains(transforms[0], Mosaic)):
        raise ValueError("Mosaic must be the first step of the pipeline called (not inside "
                         "another step): it replaces the sample's image with the canvas the "
                         "steps after it transform")


def cell_stages(samples: list[list[Cell]], images: list[list[int]], offsets: np.ndarray,
                sizes: list[tuple[int, int]]) -> list[Cells]:
    """Each mosaic sample's :class:`~warpkit.engine.stages.Cells` (``samples``: each one's
    cells): each cell's canvas pixels read from its image in the atlas (``images``: each
    cell's image's index in the atlas, at ``offsets``; ``sizes`` each image's (width,
    height)), clamped to that image's pixels. The call's cells are inverted and moved into
    the atlas as one stack (the same arithmetic per matrix as one by one)."""
    live = [[(c, k) for c, k in zip(cells, ks)  # (cells the window leaves empty: none)
             if c.rect[2] > c.rect[0] and c.rect[3] > c.rect[1]]
            for cells, ks in zip(samples, images)]
    flat = [ck for row in live for ck in row]
    table = np.empty((len(flat), 14))
    if flat:
        at = np.asarray([offsets[k] for _, k in flat], np.float64)
        moves = np.repeat(geometry.IDENTITY[None], len(flat), 0)
        moves[:, 0, 2], moves[:, 1, 2] = at[:, 0], at[:, 1]
        m = moves @ geometry.invert(np.stack([c.matrix for c, _ in flat]))
        wh = np.asarray([sizes[k] for _, k in flat], np.float64)
        table[:, :4] = np.asarray([c.rect for c, _ in flat], np.float64) - 0.5
        table[:, 4:7], table[:, 7:10] = m[:, 0], m[:, 1]
        table[:, 10:12], table[:, 12:14] = at, at + wh - 1
    ends = np.cumsum([len(row) for row in live])
    return [Cells(t) for t in np.split(table, ends[:-1])]


def plain_stage(offset: np.ndarray, size: tuple[int, int]) -> Cells:
    """The :class:`~warpkit.engine.stages.Cells` of a sample that is not a mosaic: its own
    image in the atlas, read as a constant-padded warp reads it (the guard holds the fill;
    beyond the reach of its taps, no source: the fill)."""
    (ax, ay), (w, h) = offset, size
    r = GUARD - 1
    return Cells(np.array([[-r, -r, w - 1 + r, h - 1 + r, 1, 0, ax, 0, 1, ay,
                            -_FAR, -_FAR, _FAR, _FAR]], np.float64))
