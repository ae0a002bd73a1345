"""Lighting and weather over the scene, under albumentations 2.0.8's names and parameters:
``Illumination`` (a directional, corner or gaussian light: each pixel times a pattern of its
place, evaluated in the warp's store), ``RandomGravel`` (patches of gravel: OpenCV's 8-bit
HLS lightness set in small rectangles) and ``RandomShadow`` (polygons darkened, filled as
OpenCV fills them). Like every colour transform they draw from the sample's
stream (recorded in ``out["params"]``, replayable), contribute the identity map, and leave
masks, boxes and keypoints as they are.

Conventions: the patterns and rectangles are placed in the **output** (as dropout's holes: put
these after the geometry, as recipes do); where the output's size differs from the size they
were drawn on, they are scaled to it. Positions are pixel indices, x along a row, y down the
image.

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, Illumination
    >>> aug = Compose([Illumination(mode="gaussian", intensity_range=(0.2, 0.2),
    ...                             effect_type="brighten", center_range=(0.5, 0.5),
    ...                             sigma_range=(0.2, 0.2), p=1)])
    >>> out = aug(image=np.full((40, 50, 3), 200, np.uint8), seed=0)     # doctest: +SKIP
    >>> int(out["image"][20, 25, 0]), int(out["image"][0, 0, 0])          # doctest: +SKIP
    (240, 200)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._checks import number
from ..engine.core import (COL_DATA as DATA, COL_GRAVEL as GRAVEL, COL_LIGHT as LIGHT,
                           COL_POLY as POLY, COL_POSTERIZE as POSTERIZE, MAX_POLY_VERTICES)
from ._base import value_range
from ._colour import ColourTransform, _eight_bit, _rgb_eight_bit

__all__ = ["Illumination", "light_gradient", "RandomGravel", "RandomShadow"]

#: Illumination's modes, in the order of colour.h's WK_COL_LIGHT mode word
LIGHT_MODES = ("linear", "corner", "gaussian")
#: light_gradient's special angles: the ramps along an axis, the diagonals' sums (scaled)
_AXES = {0.0: (0.0, 1.0, 0.0), 180.0: (1.0, -1.0, 0.0), 90.0: (0.0, 0.0, 1.0),
         270.0: (1.0, 0.0, -1.0)}
_DIAGONALS = {45.0: (0.0, 1.0, 1.0), 135.0: (1.0, -1.0, 1.0), 225.0: (2.0, -1.0, -1.0),
              315.0: (1.0, 1.0, -1.0)}


def light_gradient(angle: float) -> tuple[float, float, float, bool]:
    """albumentations' directional gradient of ``angle`` degrees as ``(a, b, c, scaled)``: at
    pixel (x, y) of a W x H image it is ``a + b x / (W - 1) + c y / (H - 1)`` (x / (W - 1) read
    as 0 where W is 1, as numpy's ``linspace(0, 1, 1)``), and where ``scaled`` that sum is
    scaled to [0, 1] over the image (OpenCV's min-max normalisation; 0 where it is constant).
    Its special angles as albumentations has them: 0, 90, 180 and 270 a ramp from 0 to 1
    along an axis, 45, 135, 225 and 315 the sum of two ramps, scaled; any other angle
    ``cos(angle) x + sin(angle) y`` as it is (not scaled: it may leave [0, 1]).

    Example:
        >>> light_gradient(180.0)
        (1.0, -1.0, 0.0, False)
        >>> light_gradient(135.0)
        (1.0, -1.0, 1.0, True)
    """
    angle = float(angle)
    if angle in _AXES:
        return (*_AXES[angle], False)
    if angle in _DIAGONALS:
        return (*_DIAGONALS[angle], True)
    rad = math.radians(angle)
    return 0.0, math.cos(rad), math.sin(rad), False


class Illumination(ColourTransform):
    """albumentations' Illumination: the image times a light pattern. Per sample an intensity
    is drawn from ``intensity_range``, made negative for ``effect_type="darken"`` (and for
    ``"both"`` when a uniform number is 0.5 or less), then the mode's own numbers, all in
    albumentations' order:

    - ``"linear"``: an angle from ``angle_range`` (degrees); the pattern is
      ``1 - |i| + 2 |i| g`` with ``g`` the directional gradient (:func:`light_gradient`), or
      ``1 - g`` in its place when darkening. Computed as albumentations does it, in floats of
      [0, 1]: integer images are rounded to the nearest level.
    - ``"corner"``: a corner (0 top left, 1 top right, 2 bottom right, 3 bottom left); the
      pattern is ``1 - i d / D``, d the distance from that corner's pixel, D the diagonal
      ``sqrt(W^2 + H^2)`` (as albumentations has it: "brighten" leaves the corner as it is and
      darkens away from it, "darken" brightens away from it). uint8 images are truncated to a
      level (albumentations' clipped store), uint16 rounded to the nearest (OpenCV's
      multiply).
    - ``"gaussian"``: a centre (x then y, fractions of the width and height, from
      ``center_range``) and a sigma from ``sigma_range``; the pattern is ``1 + i exp(-d^2 /
      (2 (sigma max(W, H))^2))``, d the distance from the centre. Stored as ``"corner"``.

    Every result is clipped to the image's range; every channel (1-4) takes the same pattern.
    uint8, uint16 and float32 images.

    Example:
        >>> t = Illumination(mode="gaussian", intensity_range=(0.1, 0.1), effect_type="brighten",
        ...                  center_range=(0.5, 0.5), sigma_range=(0.4, 0.4), p=1)
        >>> t.colour_ops({"intensity": 0.1, "center": [0.5, 0.5], "sigma": 0.4}, 3, 255.0)
        [[36, 2, 0.5, 0.5, 0.1, 0.4]]
    """

    def __init__(self, mode: str = "linear", intensity_range: Any = (0.01, 0.2),
                 effect_type: str = "both", angle_range: Any = (0, 360),
                 center_range: Any = (0.1, 0.9), sigma_range: Any = (0.2, 1.0),
                 p: float = 0.5) -> None:
        super().__init__(p)
        if mode not in LIGHT_MODES:
            raise ValueError(f"mode must be 'linear', 'corner' or 'gaussian', got {mode!r}")
        if effect_type not in ("brighten", "darken", "both"):
            raise ValueError(f"effect_type must be 'brighten', 'darken' or 'both', got "
                             f"{effect_type!r}")
        self.mode, self.effect_type = mode, effect_type
        # albumentations' bounds for each range
        self.intensity_range = value_range(intensity_range, "intensity_range", False,
                                           0.01, 0.2)[0]
        self.angle_range = value_range(angle_range, "angle_range", False, 0.0, 360.0)[0]
        self.center_range = value_range(center_range, "center_range", False, 0.0, 1.0)[0]
        self.sigma_range = value_range(sigma_range, "sigma_range", False, 0.2, 1.0)[0]

    def _params(self, intensity: float, u: float | None, rest: list) -> dict:
        sign = 1.0 if self.effect_type == "brighten" else -1.0
        if self.effect_type == "both":
            sign = 1.0 if u > 0.5 else -1.0
        out: dict[str, Any] = {"intensity": intensity * sign}
        if self.mode == "linear":
            out["angle"] = rest[0]
        elif self.mode == "corner":
            out["corner"] = int(rest[0])
        else:
            out.update(center=[rest[0], rest[1]], sigma=rest[2])
        return out

    def draw(self, rng, size):
        intensity = float(rng.uniform(*self.intensity_range))
        u = float(rng.random()) if self.effect_type == "both" else None
        if self.mode == "linear":
            rest = [float(rng.uniform(*self.angle_range))]
        elif self.mode == "corner":
            rest = [int(rng.integers(0, 4))]
        else:
            rest = [float(rng.uniform(*self.center_range)) for _ in range(2)]
            rest.append(float(rng.uniform(*self.sigma_range)))
        return self._params(intensity, u, rest)

    def draw_lanes(self, lanes, sizes):
        intensity = lanes.uniform(*self.intensity_range).tolist()
        u = lanes.random().tolist() if self.effect_type == "both" else [None] * len(intensity)
        if self.mode == "linear":
            cols = [lanes.uniform(*self.angle_range).tolist()]
        elif self.mode == "corner":
            cols = [lanes.integers(0, 4).tolist()]
        else:
            cols = [lanes.uniform(*self.center_range).tolist() for _ in range(2)]
            cols.append(lanes.uniform(*self.sigma_range).tolist())
        return [self._params(i, v, list(rest)) for i, v, *rest in zip(intensity, u, *cols)]

    def colour_ops(self, params, channels, peak):
        i = float(params["intensity"])
        if self.mode == "linear":
            a, b, c, scaled = light_gradient(params["angle"])
            return [[LIGHT, 0, a, b, c, i, float(scaled)]]
        if self.mode == "corner":
            corner = int(params["corner"])
            return [[LIGHT, 1, float(corner in (1, 2)), float(corner in (2, 3)), i]]
        cx, cy = (float(v) for v in params["center"])
        return [[LIGHT, 2, cx, cy, i, float(params["sigma"])]]

    def config(self):
        return {"mode": self.mode, "intensity_range": list(self.intensity_range),
                "effect_type": self.effect_type, "angle_range": list(self.angle_range),
                "center_range": list(self.center_range), "sigma_range": list(self.sigma_range)}


def _roi_fractions(roi: Any, arg: str, strict: bool) -> tuple[float, ...]:
    """A ROI (x_min, y_min, x_max, y_max as fractions of the sides) checked as albumentations
    checks it: each minimum below (``strict``) or at most its maximum, all in [0, 1]."""
    if not (isinstance(roi, Sequence) and not isinstance(roi, str) and len(roi) == 4):
        raise ValueError(f"{arg} must be (x_min, y_min, x_max, y_max), got {roi!r}")
    r = tuple(number(v, arg) for v in roi)
    below = (lambda a, b: a < b) if strict else (lambda a, b: a <= b)
    if not (0 <= r[0] and below(r[0], r[2]) and r[2] <= 1 and 0 <= r[1] and below(r[1], r[3])
            and r[3] <= 1):
        op = "<" if strict else "<="
        raise ValueError(f"{arg} must have 0 <= x_min {op} x_max <= 1 and 0 <= y_min {op} y_max "
                         f"<= 1, got {roi!r}")
    return r


def _roi_pixels(roi: tuple[float, ...], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """A ROI's fractions (x_min, y_min, x_max, y_max) in whole pixels of ``size``, as
    albumentations truncates them."""
    w, h = size
    return int(roi[0] * w), int(roi[1] * h), int(roi[2] * w), int(roi[3] * h)


class RandomGravel(ColourTransform):
    """albumentations' RandomGravel: ``number_of_patches`` patches inside ``gravel_roi`` (x_min,
    y_min, x_max, y_max as fractions of the width and height), each strewn with particles:
    small rectangles whose lightness is set to a random level in OpenCV's 8-bit HLS.

    Per sample and patch, with albumentations' laws (integers with both ends included): the
    patch's width in ``[roi_w // 10, roi_w // 5]`` and height likewise, its corner inside the
    ROI; then ``width * height // 100`` particles, each a centre (x, y) in the patch, a
    radius r in [1, 3] and a level in [0, 255], each uniform (from four uniform numbers a
    particle, drawn for the patch at once): the rectangle ``[max(x - r, 0), min(x + r,
    W - 1))`` by ``[max(y - r, 0), min(y + r, H - 1))`` (the ends excluded, as albumentations'
    slices). Recorded as ``gravels``, ``[x1, y1, x2, y2, level]`` in pixels of ``size``.

    On the device, in the warp's store: every pixel goes through OpenCV's 8-bit HLS and back
    (as albumentations converts the whole image), the lightness of the last particle that
    covers it replaced by that particle's level. float32 images through levels of 255 (as
    albumentations' uint8 round trip), uint16 refused (as albumentations, which takes uint8
    and float32); RGB images of 3 channels.

    Example:
        >>> t = RandomGravel(number_of_patches=1, p=1)
        >>> g = t.draw(np.random.default_rng(0), (200, 100))["gravels"]
        >>> all(0 <= x1 and x2 <= 199 and 0 <= level <= 255 for x1, y1, x2, y2, level in g)
        True
    """

    def __init__(self, gravel_roi: Sequence[float] = (0.1, 0.4, 0.9, 0.9),
                 number_of_patches: int = 2, p: float = 0.5) -> None:
        super().__init__(p)
        roi = _roi_fractions(gravel_roi, "gravel_roi", True)
        if isinstance(number_of_patches, bool) or not isinstance(number_of_patches, int) or \
                number_of_patches < 1:
            raise ValueError(f"number_of_patches must be a whole number >= 1, got "
                             f"{number_of_patches!r}")
        self.gravel_roi, self.number_of_patches = roi, number_of_patches

    def _roi(self, size: tuple[int, int]) -> tuple[int, int, int, int]:
        return _roi_pixels(self.gravel_roi, size)

    @staticmethod
    def _rects(xs, ys, rs, levels, size) -> list[list[int]]:
        w, h = size
        return [[max(x - r, 0), max(y - r, 0), min(x + r, w - 1), min(y + r, h - 1), v]
                for x, y, r, v in zip(xs, ys, rs, levels)]

    @staticmethod
    def _particles(u: np.ndarray, px, py, pw, ph) -> list[np.ndarray]:
        """A patch's particles from 4 uniform numbers each (``u``: (n, 4)): the centre's x and
        y, the radius, the level, each uniform over its whole numbers (both ends included)."""
        return [px + np.floor(u[:, 0] * (pw + 1)).astype(np.int64),
                py + np.floor(u[:, 1] * (ph + 1)).astype(np.int64),
                1 + np.floor(u[:, 2] * 3).astype(np.int64),
                np.floor(u[:, 3] * 256).astype(np.int64)]

    def draw(self, rng, size):
        x0, y0, x1, y1 = self._roi(size)
        rw, rh = x1 - x0, y1 - y0
        parts = []
        for _ in range(self.number_of_patches):
            pw = int(rng.integers(rw // 10, rw // 5 + 1))
            ph = int(rng.integers(rh // 10, rh // 5 + 1))
            px = int(rng.integers(x0, x1 - pw + 1))
            py = int(rng.integers(y0, y1 - ph + 1))
            n = pw * ph // 100
            parts.append(self._particles(rng.random(4 * n).reshape(n, 4), px, py, pw, ph))
        cols = [np.concatenate(c).tolist() for c in zip(*parts)]
        return {"gravels": self._rects(*cols, size), "size": [int(size[0]), int(size[1])]}

    def draw_lanes(self, lanes, sizes):
        roi = np.array([self._roi(s) for s in sizes], np.int64).reshape(-1, 4)
        x0, y0, x1, y1 = roi.T
        rw, rh = x1 - x0, y1 - y0
        parts = []
        for _ in range(self.number_of_patches):
            pw = lanes.integers(rw // 10, rw // 5 + 1)
            ph = lanes.integers(rh // 10, rh // 5 + 1)
            px = lanes.integers(x0, x1 - pw + 1)
            py = lanes.integers(y0, y1 - ph + 1)
            count = pw * ph // 100
            most = int(count.max(initial=0))
            u = lanes.ahead(4 * most).reshape(len(sizes), most, 4)
            lanes.skip(4 * count)  # each lane's random(4 n), as its own stream draws it
            drawn = self._particles(u.reshape(-1, 4), *(np.repeat(a, most) for a in
                                                         (px, py, pw, ph)))
            parts.append([d.reshape(len(sizes), most) for d in drawn] + [count])
        out = []
        for i, s in enumerate(sizes):
            cols = [np.concatenate([p[c][i, :p[4][i]] for p in parts]).tolist()
                    for c in range(4)]
            out.append({"gravels": self._rects(*cols, s), "size": [int(s[0]), int(s[1])]})
        return out

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("RandomGravel", channels, peak)
        w, h = params["size"]
        g = params["gravels"]
        # the patches: runs of PATCH_RUN particles in drawing order, a box around each (most
        # rows of the output then test no particle)
        runs = [g[k:k + PATCH_RUN] for k in range(0, len(g), PATCH_RUN)]
        pairs = -(-len(g) // 2)
        out = [[GRAVEL, len(runs), len(g), len(runs) + pairs]]
        for k, run in enumerate(runs):
            out.append([DATA, min(r[0] for r in run) / w, min(r[1] for r in run) / h,
                        max(r[2] for r in run) / w, max(r[3] for r in run) / h,
                        k * PATCH_RUN, len(run)])
        for k in range(0, len(g), 2):
            row = [DATA]
            for x1, y1, x2, y2, level in g[k:k + 2]:
                row += [x1 / w, y1 / h, x2 / w, y2 / h, level]
            out.append(row)
        return out

    def config(self):
        return {"gravel_roi": list(self.gravel_roi), "number_of_patches": self.number_of_patches}


#: particles per box of RandomGravel's operation (kernels_cl/colour.h's WK_COL_GRAVEL)
PATCH_RUN = 16


class RandomShadow(ColourTransform):
    """albumentations' RandomShadow: a count of shadows from ``num_shadows_limit`` (both ends
    included), each a polygon of ``shadow_dimension`` vertices drawn inside ``shadow_roi``
    (fractions x_min, y_min, x_max, y_max; each vertex's x, then each one's y, uniform over the
    ROI's whole pixels, its far ends excluded: albumentations' law, from 2 uniform numbers a
    vertex; it may cross itself), and an intensity from ``shadow_intensity_range``, drawn
    after the polygons.
    Recorded as ``vertices`` (per shadow, ``[x, y]`` pixels of ``size``) and ``intensities``.

    Each shadow multiplies the pixels its polygon covers by ``1 - intensity``, truncated to a
    level (albumentations' uint8 store), one shadow after the other. The polygon is filled as
    ``cv2.fillPoly`` fills it (its outline's 8-connected lines, then on each row its edges'
    crossings in OpenCV's fixed point, paired in order: the same pixels), decided for each
    pixel in the warp's store from the vertices (no image of the polygon is made). float32
    images go through levels of 255 as albumentations' uint8 round trip (every pixel rounded
    to a level); uint16 refused (as albumentations); 1-4 channels. The polygons lie on the
    output (put it after the geometry); where the output's size differs from the size they
    were drawn on, their vertices are scaled to it (rounded to whole pixels).

    Example:
        >>> t = RandomShadow(num_shadows_limit=(2, 2), shadow_dimension=4, p=1)
        >>> params = t.draw(np.random.default_rng(0), (64, 48))
        >>> len(params["vertices"]), len(params["vertices"][0]), params["intensities"]
        (2, 4, [0.5, 0.5])
    """

    def __init__(self, shadow_roi: Sequence[float] = (0, 0.5, 1, 1),
                 num_shadows_limit: Sequence[int] = (1, 2), shadow_dimension: int = 5,
                 shadow_intensity_range: Any = (0.5, 0.5), p: float = 0.5) -> None:
        super().__init__(p)
        roi = _roi_fractions(shadow_roi, "shadow_roi", False)
        lo, hi = value_range(num_shadows_limit, "num_shadows_limit", False, 1, math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"num_shadows_limit must be whole numbers, got "
                             f"{num_shadows_limit!r}")
        if isinstance(shadow_dimension, bool) or not isinstance(shadow_dimension, int) or \
                not 3 <= shadow_dimension <= MAX_POLY_VERTICES:
            raise ValueError(f"shadow_dimension must be a whole number in [3, "
                             f"{MAX_POLY_VERTICES}], got {shadow_dimension!r}")
        self.shadow_roi, self.num_shadows_limit = roi, (int(lo), int(hi))
        self.shadow_dimension = shadow_dimension
        self.shadow_intensity_range = value_range(shadow_intensity_range,
                                                  "shadow_intensity_range", False, 0.0, 1.0)[0]

    def _roi(self, size) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = _roi_pixels(self.shadow_roi, size)
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"RandomShadow's shadow_roi {list(self.shadow_roi)} holds no whole "
                             f"pixel of an image of {size[0]} x {size[1]} (albumentations fails "
                             f"there too)")
        return x0, y0, x1, y1

    def _polygon(self, u: np.ndarray, roi) -> list[list[int]]:
        """A polygon from 2 d uniform numbers: the vertices' x, then their y, each uniform
        over the ROI's whole pixels (its far ends excluded)."""
        x0, y0, x1, y1 = roi
        d = self.shadow_dimension
        xs = x0 + np.floor(u[:d] * (x1 - x0)).astype(np.int64)
        ys = y0 + np.floor(u[d:] * (y1 - y0)).astype(np.int64)
        return np.stack([xs, ys], 1).tolist()

    def draw(self, rng, size):
        roi = self._roi(size)
        n = int(rng.integers(self.num_shadows_limit[0], self.num_shadows_limit[1] + 1))
        vertices = [self._polygon(rng.random(2 * self.shadow_dimension), roi) for _ in range(n)]
        intensities = [float(rng.uniform(*self.shadow_intensity_range)) for _ in range(n)]
        return {"vertices": vertices, "intensities": intensities,
                "size": [int(size[0]), int(size[1])]}

    def draw_lanes(self, lanes, sizes):
        rois = [self._roi(s) for s in sizes]
        lo, hi = self.num_shadows_limit
        count = lanes.integers(lo, hi + 1)
        vertices: list[list] = [[] for _ in sizes]
        intensities: list[list] = [[] for _ in sizes]
        for k in range(int(count.max(initial=0))):
            where = count > k
            u = lanes.random(where, k=2 * self.shadow_dimension)
            for i in np.flatnonzero(where).tolist():
                vertices[i].append(self._polygon(u[i], rois[i]))
        for k in range(int(count.max(initial=0))):
            where = count > k
            u = lanes.uniform(*self.shadow_intensity_range, where)
            for i in np.flatnonzero(where).tolist():
                intensities[i].append(float(u[i]))
        return [{"vertices": v, "intensities": t, "size": [int(s[0]), int(s[1])]}
                for v, t, s in zip(vertices, intensities, sizes)]

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"RandomShadow takes images of at most 4 channels, got {channels}")
        _eight_bit("RandomShadow", peak)
        w, h = params["size"]
        # float images through levels of 255 (albumentations' uint8 round trip)
        ops: list = [] if peak > 1 else [[POSTERIZE, 8.0, 8.0, 8.0, 8.0]]
        for poly, intensity in zip(params["vertices"], params["intensities"]):
            xy = [c for x, y in poly for c in (x / w, y / h)]
            box = [min(xy[0::2]), min(xy[1::2]), max(xy[0::2]), max(xy[1::2])]
            ops.append([POLY, len(poly), 1.0 - float(intensity), -(-len(poly) // 5), *box])
            ops.extend([DATA, *xy[k:k + 10]] for k in range(0, len(xy), 10))
        return ops

    def config(self):
        return {"shadow_roi": list(self.shadow_roi),
                "num_shadows_limit": list(self.num_shadows_limit),
                "shadow_dimension": self.shadow_dimension,
                "shadow_intensity_range": list(self.shadow_intensity_range)}
