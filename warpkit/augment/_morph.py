"""albumentations 2.0.8's ``Morphological`` under its name and parameters: a dilation or an
erosion of the output with an elliptic structuring element, as OpenCV's ``dilate`` and
``erode`` make it. The image's runs on the device in the pass after the warp that the
filters take (kernels_cl/colour.h's WK_COL_MORPH); masks are filtered the same way on the
host once they are read back, and boxes move their sides by the element's reach.

Conventions: ``scale``, as albumentations' validation leaves it (a pair sorted, a number s
as (1, s)), is the element's (width, height) in pixels of the output, as OpenCV's
``getStructuringElement(MORPH_ELLIPSE, scale)`` takes it; its anchor is its centre
``(width // 2, height // 2)``. Dilation takes each pixel's largest value under the element
placed at its anchor, erosion its smallest; taps outside the output are left out (OpenCV's
default border for both).

Example:
    >>> ellipse((5, 3)).astype(int).tolist()
    [[0, 0, 1, 0, 0], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0]]
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..engine.core import COL_DATA as DATA, COL_MORPH as MORPH
from ..engine.plan import MAX_TAP_RADIUS
from ._colour import ColourTransform

__all__ = ["Morphological", "ellipse", "morph_boxes", "morph_mask", "morph_steps"]

#: the longest side of an element warpkit filters with (its reach either side of the anchor
#: is at most MAX_TAP_RADIUS)
MAX_SIDE = 2 * MAX_TAP_RADIUS + 1

OPERATIONS = ("dilation", "erosion")


def ellipse(size: tuple[int, int]) -> np.ndarray:
    """OpenCV's elliptic structuring element of ``size`` = (width, height): (height, width)
    bool, each row one run of columns about the centre column (``getStructuringElement``'s
    arithmetic: a row dy from the centre row r keeps ``round(c sqrt(r^2 - dy^2) / r)``
    columns either side of the centre column c, none for a one-row element)."""
    w, h = int(size[0]), int(size[1])
    out = np.zeros((h, w), bool)
    r, c = h // 2, w // 2
    inv_r2 = 1.0 / (r * r) if r else 0.0
    for i in range(h):
        dy = i - r
        dx = int(np.rint(c * np.sqrt((r * r - dy * dy) * inv_r2)))
        out[i, max(c - dx, 0):min(c + dx + 1, w)] = True
    return out


def _runs(size: tuple[int, int]) -> list[tuple[int, int, int]]:
    """The element's rows as (dy, first dx, count of columns) from its anchor."""
    el = ellipse(size)
    r, c = el.shape[0] // 2, el.shape[1] // 2
    out = []
    for i, row in enumerate(el):
        xs = np.flatnonzero(row)
        out.append((i - r, int(xs[0]) - c, len(xs)))
    return out


def _scale(scale: Any) -> tuple[int, int]:
    """albumentations' ``scale`` as its validation leaves it: a whole number s >= 1 is
    (1, s), two of them are sorted; the element is then (width, height) = that pair. Each at
    most MAX_SIDE."""
    pair = (1, scale) if isinstance(scale, numbers.Integral) and \
        not isinstance(scale, bool) else scale
    try:
        w, h = pair
        ok = all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1
                 for v in (w, h))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"Morphological's scale must be a whole number >= 1 or two of them "
                         f"(the element's width and height), got {scale!r}")
    if max(w, h) > MAX_SIDE:
        raise ValueError(f"Morphological's scale must be at most {MAX_SIDE} a side (warpkit's "
                         f"widest element), got {scale!r}")
    return min(int(w), int(h)), max(int(w), int(h))


class Morphological(ColourTransform):
    """albumentations' Morphological: the output dilated (``operation="dilation"``: each
    pixel's largest value under the element) or eroded (``"erosion"``: its smallest) with
    OpenCV's elliptic structuring element of ``scale`` = (width, height) pixels, its anchor at
    its centre, taps outside the image left out (OpenCV's ``dilate`` and ``erode`` with their
    default border).

    ``scale`` is taken as albumentations 2.0.8 takes it, which is not as its documentation
    says ("a square kernel", "the minimum and maximum sizes"): nothing is drawn, a pair is
    sorted and is the element's (width, height), so the element is never wider than it is
    high, and a number ``s`` is the pair (1, s), an element 1 wide and ``s`` high. (2, 3),
    the default, is 2 wide and 3 high. ``config()`` holds the pair so made.

    Targets:

    - the image, on the device in the pass after the warp that the filters take (the values
      as the steps before it left them, then the steps after it in the same launch). Exact:
      the results are the image's own values. Every dtype, 1-4 channels;
    - masks the same way, on the host once they are read back (masks held on a device are
      refused), in the pipeline's order with dropout's fills;
    - boxes move each side by the element's reach, as the operation moves the box's pixels
      in a mask of it alone: dilation grows a box by ``width - 1 - width // 2`` on the left,
      ``width // 2`` on the right (rows likewise), clipped to the output; erosion shrinks it
      by the same amounts, except where it meets the output's edge (the taps past the edge
      are left out), and removes a box it empties. min_visibility then compares the box with
      the whole box moved the same way. (albumentations 2.0.8 filters all its boxes' masks as
      one image whose channels are their columns, which mixes the boxes: its results are not
      followed.) Dropout's holes are measured on boxes so moved;
    - keypoints stay.

    The element is in pixels of the output, as warpkit's blurs: after a resize, its size is
    the resized image's. At most 65 pixels a side.

    Example:
        >>> t = Morphological(scale=(5, 3), operation="erosion", p=1)
        >>> t.scale                  # albumentations' pair, sorted: 3 wide, 5 high
        (3, 5)
        >>> ops = t.colour_ops({}, 3, 255.0)
        >>> ops[0][:5], ops[1][:4]   # code, rows, reach, rows again, 0: erosion; the first row
        ([39, 5.0, 1.0, 5.0, 0.0], [15, -2.0, 0.0, 1.0])
    """

    def __init__(self, scale: Any = (2, 3), operation: str = "dilation", p: float = 0.5) -> None:
        super().__init__(p)
        self.scale = _scale(scale)
        if operation not in OPERATIONS:
            raise ValueError(f"Morphological's operation must be 'dilation' or 'erosion', got "
                             f"{operation!r}")
        self.operation = operation
        self._rows = _runs(self.scale)

    @property
    def dilate(self) -> bool:
        return self.operation == "dilation"

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"Morphological takes images of at most 4 channels, got {channels}")
        w = self.scale[0]
        reach = max(w - 1 - w // 2, w // 2)
        head = [MORPH, float(len(self._rows)), float(reach), float(len(self._rows)),
                float(self.dilate)]
        return [head, *([DATA, float(dy), float(dx0), float(n)] for dy, dx0, n in self._rows)]

    def mask(self, m: np.ndarray) -> np.ndarray:
        """A mask ((H, W) or (H, W, C), any dtype) filtered as the image: a new array."""
        return morph_mask(m, self._rows, self.dilate)

    def config(self):
        return {"scale": list(self.scale), "operation": self.operation}


def morph_mask(m: np.ndarray, rows: list[tuple[int, int, int]], dilate: bool) -> np.ndarray:
    """``m`` ((H, W) or (H, W, C)) dilated (``dilate``) or eroded with the element of ``rows``
    ((dy, first dx, count) from the anchor, each run holding the anchor's column and no wider
    than a row nearer the anchor's): the edge pixels repeated, which gives OpenCV's values
    with taps past the edges left out. Each row's run of columns is filtered once, the wider
    runs from the narrower ones."""
    f = np.maximum if dilate else np.minimum
    h, w = m.shape[:2]
    ry = max(abs(dy) for dy, _, _ in rows)
    rx = max(max(-dx0, dx0 + n - 1) for _, dx0, n in rows)
    pad = np.pad(m, ((ry, ry), (rx, rx)) + ((0, 0),) * (m.ndim - 2), mode="edge")
    runs: dict[tuple[int, int], np.ndarray] = {}
    cur, lo, hi = None, 0, -1
    for dx0, n in sorted({(dx0, n) for _, dx0, n in rows}, key=lambda r: r[1]):
        if cur is None or not (dx0 <= lo and hi <= dx0 + n - 1):
            cur, lo, hi = pad[:, rx + dx0:rx + dx0 + w], dx0, dx0
        for dx in [*range(dx0, lo), *range(hi + 1, dx0 + n)]:
            cur = f(cur, pad[:, rx + dx:rx + dx + w])
        lo, hi = dx0, dx0 + n - 1
        runs[dx0, n] = cur
    out = None
    for dy, dx0, n in rows:
        part = runs[dx0, n][ry + dy:ry + dy + h]
        out = part.copy() if out is None else f(out, part, out=out)
    return out


def morph_steps(t: Any, params: dict) -> list[Morphological]:
    """The Morphological steps a sample's recorded parameters apply, in order."""
    return [step for step, _ in t.applied_steps(params) if isinstance(step, Morphological)]


def morph_boxes(mapped: np.ndarray, clipped: np.ndarray, out: tuple[int, int],
                steps: list[Morphological]) -> None:
    """Boxes (K, 4 pixel edges) of an output of ``out`` = (width, height) through ``steps``,
    in place: ``clipped`` (inside the output) as each operation moves a mask of the box alone
    (an eroded box emptied keeps sides that meet: its area is 0), ``mapped`` (the whole box)
    moved by the same amounts."""
    lim = np.array([out[0], out[1]], np.float64)
    for step in steps:
        w, h = step.scale
        before = np.array([w - 1 - w // 2, h - 1 - h // 2], np.float64)  # reach left / up
        after = np.array([w // 2, h // 2], np.float64)  # reach right / down
        old = clipped.copy()
        if step.dilate:
            clipped[:, :2] = np.maximum(clipped[:, :2] - before, 0)
            clipped[:, 2:] = np.minimum(clipped[:, 2:] + after, lim)
        else:  # sides at the output's edge stay: the taps past it are left out
            clipped[:, :2] = np.where(clipped[:, :2] <= 0, clipped[:, :2],
                                      clipped[:, :2] + after)
            clipped[:, 2:] = np.where(clipped[:, 2:] >= lim, clipped[:, 2:],
                                      clipped[:, 2:] - before)
            empty = (clipped[:, 2:] <= clipped[:, :2]).any(1)
            clipped[empty, 2:] = clipped[empty, :2]
        mapped += clipped - old
