"""RandomSunFlare (albumentations 2.0.8's name, parameters and "overlay" method): flare
circles along a line through the sun, then the sun as concentric circles, each blended into
the image as albumentations blends it, decided per pixel in the warp's store.

Conventions: the sun and its circles lie on the **output** (put RandomSunFlare after the
geometry, as recipes do); recorded in pixels of the size they were drawn on (``size``), and
scaled to the output where it differs. Positions are (x, y): x along a row, y down the image.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.core import COL_DATA as DATA, COL_FLARE as FLARE
from ._base import value_range
from ._colour import ColourTransform, _rgb_eight_bit
from ._scene import _roi_fractions

__all__ = ["RandomSunFlare"]

#: the most sun circles (``src_radius // 10``) a sample's operation holds: the kernel blends
#: each one into every pixel inside it
MAX_SUN_CIRCLES = 256


def _circles(u: np.ndarray, centre: np.ndarray, angle: np.ndarray, size: tuple[int, int],
             colour: Sequence[int]) -> np.ndarray:
    """Flare circles from 6 uniform numbers each (``u``: (n, 6)) about the sun at ``centre``
    ((n, 2) pixels) on the line of ``angle`` (n,) radians, as albumentations draws them: the
    alpha in [0.05, 0.2), a point of the line (steps of 1% of the diagonal from the left edge's
    x), a radius cubed of 1 .. 1% of the height, each colour channel in [c - 20% of the
    brightest, c]. Rows of (alpha, x, y, radius, r, g, b)."""
    w, h = size
    step = max(1, int(math.sqrt(h * h + w * w) * 0.01))
    points = len(range(0, w, step))
    top = max(2, int(h * 0.01))
    spread = int(max(colour) * 0.2)
    t = -centre[:, 0] + np.floor(u[:, 1] * points) * step
    out = np.empty((len(u), 7))
    out[:, 0] = 0.05 + 0.15 * u[:, 0]
    out[:, 1] = np.trunc(centre[:, 0] + t * np.cos(angle))
    out[:, 2] = np.trunc(centre[:, 1] + t * np.sin(angle))
    out[:, 3] = (1 + np.floor(u[:, 2] * top)) ** 3
    for c, level in enumerate(colour[:3]):
        lo = max(level - spread, 0)
        out[:, 4 + c] = lo + np.floor(u[:, 3 + c] * (level - lo + 1))
    return out


class RandomSunFlare(ColourTransform):
    """albumentations' RandomSunFlare (``method="overlay"``): a sun at a point drawn inside
    ``flare_roi`` (fractions x_min, y_min, x_max, y_max), a line through it at an angle of
    ``angle_range`` (fractions of a full turn), and a count from ``num_flare_circles_range``
    (both ends included) of flare circles on that line, each with its alpha, radius and a
    colour near ``src_color``; albumentations' laws from the sample's stream. Recorded as
    ``center`` and ``circles`` (each ``[alpha, x, y, radius, r, g, b]``) in pixels of ``size``.

    Applied as albumentations applies it, per pixel: each flare circle in turn paints its
    colour into an overlay (``cv2.circle``'s filled disc: the pixels within its radius) and
    blends the overlay into the image with its alpha, rounded to a level; then the sun's
    ``src_radius // 10`` concentric circles (radii from 1 to ``src_radius``) paint
    ``src_color`` and blend with alphas rising to 5 times the flare circles' radius-weighted
    mean alpha (at most 1), cubed. RGB images only (as albumentations), uint8 and float32
    (through levels of 255, as albumentations' uint8 round trip); ``method="physics_based"``
    is refused.

    Example:
        >>> t = RandomSunFlare(num_flare_circles_range=(3, 3), p=1)
        >>> params = t.draw(np.random.default_rng(0), (64, 48))
        >>> len(params["circles"]), params["size"]
        (3, [64, 48])
    """

    def __init__(self, flare_roi: Sequence[float] = (0, 0, 1, 0.5), src_radius: int = 400,
                 src_color: Sequence[int] = (255, 255, 255), angle_range: Any = (0, 1),
                 num_flare_circles_range: Sequence[int] = (6, 10), method: str = "overlay",
                 p: float = 0.5) -> None:
        super().__init__(p)
        if method != "overlay":
            raise ValueError(f"RandomSunFlare(method={method!r}) is not supported: use "
                             f"method='overlay' (albumentations' default)")
        self.flare_roi = _roi_fractions(flare_roi, "flare_roi", False)
        if isinstance(src_radius, bool) or not isinstance(src_radius, (int, np.integer)) or \
                not 1 <= src_radius < 10 * (MAX_SUN_CIRCLES + 1):
            raise ValueError(f"src_radius must be a whole number in [1, "
                             f"{10 * (MAX_SUN_CIRCLES + 1) - 1}], got {src_radius!r}")
        self.src_radius = int(src_radius)
        if not (isinstance(src_color, Sequence) and len(src_color) == 3 and all(
                isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c <= 255
                for c in src_color)):
            raise ValueError(f"src_color must be 3 whole levels in [0, 255] (R, G, B), got "
                             f"{src_color!r}")
        self.src_color = tuple(int(c) for c in src_color)
        self.angle_range = value_range(angle_range, "angle_range", False, 0.0, 1.0)[0]
        lo, hi = value_range(num_flare_circles_range, "num_flare_circles_range", False, 1,
                             math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"num_flare_circles_range must be whole numbers >= 1 (albumentations "
                             f"divides by the circles' radii), got {num_flare_circles_range!r}")
        self.num_flare_circles_range = (int(lo), int(hi))
        self.method = method

    def _sun(self, u: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(angle, centre (x, y), count) from 4 uniform numbers a sample (``u``: (n, 4))."""
        w, h = size
        x0, y0, x1, y1 = self.flare_roi
        a0, a1 = self.angle_range
        lo, hi = self.num_flare_circles_range
        angle = 2 * math.pi * (a0 + (a1 - a0) * u[:, 0])
        centre = np.stack([np.trunc(w * (x0 + (x1 - x0) * u[:, 1])),
                           np.trunc(h * (y0 + (y1 - y0) * u[:, 2]))], 1)
        return angle, centre, lo + np.floor(u[:, 3] * (hi - lo + 1)).astype(np.int64)

    def _params(self, angle, centre, circles, size) -> dict:
        return {"center": [int(centre[0]), int(centre[1])],
                "circles": [[float(c[0]), *(int(v) for v in c[1:])] for c in circles],
                "size": [int(size[0]), int(size[1])]}

    def draw(self, rng, size):
        angle, centre, count = self._sun(rng.random(4)[None], size)
        u = np.stack([rng.random(6) for _ in range(int(count[0]))]) if count[0] else \
            np.zeros((0, 6))
        circles = _circles(u, np.repeat(centre, len(u), 0), np.repeat(angle, len(u)), size,
                           self.src_color)
        return self._params(angle[0], centre[0], circles, size)

    def draw_lanes(self, lanes, sizes):
        out = []
        first = lanes.random(None, k=4)
        suns = [self._sun(first[i:i + 1], s) for i, s in enumerate(sizes)]
        count = np.array([int(c[0]) for _, _, c in suns])
        u = np.zeros((len(sizes), int(count.max(initial=0)), 6))
        for k in range(u.shape[1]):
            where = count > k
            u[:, k] = lanes.random(where, k=6)
        for i, (angle, centre, n) in enumerate(suns):
            circles = _circles(u[i, :int(n[0])], np.repeat(centre, int(n[0]), 0),
                               np.repeat(angle, int(n[0])), sizes[i], self.src_color)
            out.append(self._params(angle[0], centre[0], circles, sizes[i]))
        return out

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("RandomSunFlare", channels, peak)
        w, h = params["size"]
        circles = params["circles"]
        # the sun: src_radius // 10 circles of radii linspace(1, src_radius) truncated, blended
        # with the alphas rising to 5 x the flare circles' radius-weighted mean alpha, cubed
        times = self.src_radius // 10
        weight = sum(c[0] * c[3] for c in circles) / max(sum(c[3] for c in circles), 1e-300)
        alpha = np.linspace(0.0, min(weight * 5, 1.0), num=times)
        radii = np.linspace(1, self.src_radius, num=times).astype(np.int64)
        cube = alpha[::-1] * alpha[::-1] * alpha[::-1]  # (albumentations' product, in order)
        sun = [(radii[i] / w, float(cube[i])) for i in range(times)]
        cx, cy = params["center"]
        data = len(circles) + -(-times // 5)
        ops: list = [[FLARE, len(circles), times, data, cx / w, cy / h, *self.src_color]]
        ops.extend([DATA, c[1] / w, c[2] / h, c[3] / w, c[0], *c[4:7]] for c in circles)
        flat = [v for pair in sun for v in pair]
        ops.extend([DATA, *flat[k:k + 10]] for k in range(0, len(flat), 10))
        return ops

    def config(self):
        return {"flare_roi": list(self.flare_roi), "src_radius": self.src_radius,
                "src_color": list(self.src_color), "angle_range": list(self.angle_range),
                "num_flare_circles_range": list(self.num_flare_circles_range),
                "method": self.method}
