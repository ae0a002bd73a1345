"""Weather over the scene under albumentations 2.0.8's names, parameters and methods, decided
per pixel in the warp's store: ``RandomSunFlare`` ("overlay": flare circles along a line
through the sun, then the sun as concentric circles, each blended as albumentations blends
it), ``RandomFog`` (fog particles, each a disc that brightens what it covers, then
albumentations' Gaussian blur in a pass after the warp) and ``RandomRain`` (streaks drawn as
OpenCV draws lines, box-blurred, added, then darkened).

Conventions: the circles lie on the **output** (put these after the geometry, as recipes do);
recorded in pixels of the size they were drawn on (``size``), and scaled to the output where
it differs. Positions are (x, y): x along a row, y down the image. A circle of radius r holds
the pixels within r of its centre, ``dx^2 + dy^2 <= r^2``: the pixels ``cv2.circle`` fills.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.core import (COL_BLUR as BLUR, COL_DATA as DATA, COL_FLARE as FLARE,
                           COL_FLARE_PB as FLARE_PB,
                           COL_FOG as FOG, COL_POSTERIZE as POSTERIZE, COL_RAIN as RAIN,
                           COLOUR_WORDS as WORDS, MAX_FLARE_CIRCLES, MAX_FOG_PARTICLES,
                           MAX_RAIN_BOX, MAX_RAIN_DROPS, MAX_RAIN_WIDTH)
from ..engine.raster import clip_lines
from ._base import value_range
from ._colour import ColourTransform, _rgb_eight_bit, _with_data
from ._scene import _roi_fractions

__all__ = ["RandomFog", "RandomRain", "RandomSunFlare"]

#: the most sun circles (``src_radius // 10``) a sample's operation holds: the kernel blends
#: each one into every pixel inside it
MAX_SUN_CIRCLES = 256


def _rgb_levels(colour: Any, name: str) -> tuple[int, int, int]:
    """``colour`` checked: 3 whole levels in [0, 255] (R, G, B)."""
    if not (isinstance(colour, Sequence) and len(colour) == 3 and all(
            isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c <= 255
            for c in colour)):
        raise ValueError(f"{name} must be 3 whole levels in [0, 255] (R, G, B), got {colour!r}")
    return tuple(int(c) for c in colour)


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
    mean alpha (at most 1), cubed.

    ``method="physics_based"`` is albumentations' other method, from the same draws: a layer of
    zeros gets the sun (a filled disc of ``src_radius`` in ``src_color``), four spikes from its
    centre (lines 2 pixels wide at 0, 45, 90 and 135 degrees, ``max(W, H)`` long) in
    ``src_color`` and each flare circle (a filled disc of radius ``int(radius ** 0.33)``: the
    recorded radius is albumentations' cube) in its colour, each as OpenCV draws it; then a
    Gaussian blur of sigma 15, a radial fade to 0 at 0.7 ``max(W, H)`` from the sun, channel 0
    blurred with sigma 3 and channel 2 with sigma 5 (OpenCV's blurs, edges reflected), and the
    image screen-blended with it, ``255 - (255 - v) (255 - F) / 255``, truncated to a level.
    The layer is made on the device once per sample before the warp's pass reads it
    (kernels_cl/flare.cl), the blend in the pass. Outputs up to 16383 pixels a side.

    RGB images only (as albumentations), uint8 and float32 (through levels of 255, as
    albumentations' uint8 round trip).

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
        if method not in ("overlay", "physics_based"):
            raise ValueError(f"RandomSunFlare's method must be 'overlay' or 'physics_based' "
                             f"(albumentations' methods), got {method!r}")
        self.flare_roi = _roi_fractions(flare_roi, "flare_roi", False)
        if isinstance(src_radius, bool) or not isinstance(src_radius, (int, np.integer)) or \
                not 1 <= src_radius < 10 * (MAX_SUN_CIRCLES + 1):
            raise ValueError(f"src_radius must be a whole number in [1, "
                             f"{10 * (MAX_SUN_CIRCLES + 1) - 1}], got {src_radius!r}")
        self.src_radius = int(src_radius)
        self.src_color = _rgb_levels(src_color, "src_color")
        self.angle_range = value_range(angle_range, "angle_range", False, 0.0, 1.0)[0]
        lo, hi = value_range(num_flare_circles_range, "num_flare_circles_range", False, 1,
                             math.inf)[0]
        if lo != int(lo) or hi != int(hi) or hi > MAX_FLARE_CIRCLES:
            raise ValueError(f"num_flare_circles_range must be whole numbers in [1, "
                             f"{MAX_FLARE_CIRCLES}] (albumentations divides by the circles' "
                             f"radii), got {num_flare_circles_range!r}")
        self.num_flare_circles_range = (int(lo), int(hi))
        self.method = method

    def _sun(self, u: np.ndarray, size: tuple[int, int]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(angle, centre (x, y), count) from 4 uniform numbers a sample (``u``: (n, 4))."""
        w, h = size
        x0, y0, x1, y1 = self.flare_roi
        a0, a1 = self.angle_range
        lo, hi = self.num_flare_circles_range
        angle = 2 * math.pi * (a0 + (a1 - a0) * u[:, 0])
        centre = np.stack([np.trunc(w * (x0 + (x1 - x0) * u[:, 1])),
                           np.trunc(h * (y0 + (y1 - y0) * u[:, 2]))], 1)
        return angle, centre, lo + np.floor(u[:, 3] * (hi - lo + 1)).astype(np.int64)

    def _params(self, centre, circles, size) -> dict:
        return {"center": [int(centre[0]), int(centre[1])],
                "circles": [[float(c[0]), *(int(v) for v in c[1:])] for c in circles],
                "size": [int(size[0]), int(size[1])]}

    def draw(self, rng, size):
        angle, centre, count = self._sun(rng.random(4)[None], size)
        u = np.stack([rng.random(6) for _ in range(int(count[0]))]) if count[0] else \
            np.zeros((0, 6))
        circles = _circles(u, np.repeat(centre, len(u), 0), np.repeat(angle, len(u)), size,
                           self.src_color)
        return self._params(centre[0], circles, size)

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
            out.append(self._params(centre[0], circles, sizes[i]))
        return out

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("RandomSunFlare", channels, peak)
        if self.method == "physics_based":
            return self._physics_ops(params)
        w, h = params["size"]
        circles = params["circles"]
        # the sun: src_radius // 10 circles of radii linspace(1, src_radius) truncated, blended
        # with the alphas rising to 5 x the flare circles' radius-weighted mean alpha, cubed
        times = self.src_radius // 10
        weight = sum(c[0] * c[3] for c in circles) / max(sum(c[3] for c in circles), 1e-300)
        alpha = np.linspace(0.0, min(weight * 5, 1.0), num=times)
        radii = np.linspace(1, self.src_radius, num=times).astype(np.int64)
        cube = alpha[::-1] * alpha[::-1] * alpha[::-1]  # (albumentations' product, in order)
        # a circle whose alpha moves no level (255 a < 1/2: rint(v + a (o - v)) is v) changes
        # nothing, and the circles after it paint its pixels too: left out (the outer ones,
        # which hold most of the image, have the least alphas)
        sun = [(radii[i] / w, float(cube[i])) for i in range(times) if cube[i] * 255 >= 0.49]
        cx, cy = params["center"]
        data = len(circles) + -(-len(sun) // 5)
        ops: list = [[FLARE, len(circles), len(sun), data, cx / w, cy / h, *self.src_color]]
        ops.extend([DATA, c[1] / w, c[2] / h, c[3] / w, c[0], *c[4:7]] for c in circles)
        flat = [v for pair in sun for v in pair]
        ops.extend([DATA, *flat[k:k + 10]] for k in range(0, len(flat), 10))
        return ops

    def _physics_ops(self, params: dict) -> np.ndarray:
        """The COL_FLARE_PB operation and its data (engine.core's _check_flare_pb): the sun,
        its spikes' ends as albumentations computes them (numpy's cos and sin of the angle in
        radians, times ``max(W, H)``, added to the centre and truncated by ``int``) with
        ThickLine's half-width vectors, then the circles, in pixels of ``size``."""
        w, h = params["size"]
        cx, cy = params["center"]
        circles = params["circles"]
        if not all(isinstance(v, (int, np.integer)) or (isinstance(v, float) and v.is_integer())
                   for v in (cx, cy)):
            raise ValueError(f"RandomSunFlare's center must be whole pixels, got "
                             f"{params['center']!r}")
        n = len(circles)
        reach = max(w, h)
        lines = np.array([[cx, cy, int(cx + np.cos(np.radians(a)) * reach),
                           int(cy + np.sin(np.radians(a)) * reach)] for a in (0, 45, 90, 135)],
                         np.int64)
        ops = np.zeros((6 + n, WORDS), np.float32)
        ops[0, :4] = FLARE_PB, n, 0, 5 + n
        ops[1:, 0] = DATA
        ops[1, 1:9] = w, h, cx, cy, self.src_radius, *self.src_color
        ops[2:6, 1:7] = _thick_lines(lines, 2, (w, h))
        for k, c in enumerate(circles):  # (albumentations' radius: the cube's 0.33th power;
            # a negative or NaN cube -1, which the engine refuses by name)
            radius = int(c[3] ** 0.33) if c[3] >= 0 else -1
            ops[6 + k, 1:7] = c[1], c[2], radius, *c[4:7]
        return ops

    def config(self):
        return {"flare_roi": list(self.flare_roi), "src_radius": self.src_radius,
                "src_color": list(self.src_color), "angle_range": list(self.angle_range),
                "num_flare_circles_range": list(self.num_flare_circles_range),
                "method": self.method}


def opencv_gaussian(ksize: int) -> np.ndarray:
    """``cv2.getGaussianKernel(ksize, 0)`` (an odd size): OpenCV's fixed tables up to 7 taps,
    beyond them sigma ``0.3 ((ksize - 1) / 2 - 1) + 0.8``."""
    tables = {1: [1.0], 3: [0.25, 0.5, 0.25], 5: [0.0625, 0.25, 0.375, 0.25, 0.0625],
              7: [0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125]}
    if ksize in tables:
        return np.array(tables[ksize])
    sigma = 0.3 * ((ksize - 1) * 0.5 - 1) + 0.8
    x = np.arange(ksize, dtype=np.float64) - (ksize - 1) * 0.5
    k = np.exp(-(x * x) / (2 * sigma * sigma))
    return k / k.sum()


class RandomFog(ColourTransform):
    """albumentations' RandomFog: an intensity drawn from ``fog_coef_range``, fog particles in
    shrinking regions about the image's centre (10 at most, each 10% smaller a side, while
    wider and higher than the particles' region, ``int(W // 3 * intensity)``; in each
    ``int(area / region^2 * intensity * 10)`` particles, their centres uniform over the
    region's whole pixels, both ends included), then each particle's radius in
    [r // 2, r), r = ``max(2, int(min(H, W) * 0.1 * intensity))``; albumentations' laws from the
    sample's stream. Recorded as ``intensity``, ``particles`` (each ``[x, y, radius]``) and
    ``size``.

    Applied as albumentations applies it: each particle in turn blends white into the pixels
    it covers with alpha ``alpha_coef * intensity``, rounded to a level (its cv2.addWeighted
    of the image and a copy with the disc drawn); a pixel covered k times so takes that blend
    k times, which the warp's store counts per pixel from the particles near its row. Then
    OpenCV's Gaussian blur of ``max(3, min(H, W) // 30)`` taps (one more when even; sigma
    from the size, as ``cv2.GaussianBlur(..., 0)``) in a pass after the warp. RGB images
    (as albumentations), uint8 and float32 (through levels of 255, as albumentations' uint8
    round trip); a sample of more than 65536 particles (an intensity near 0 on a large
    image: ``region`` of a pixel or two) is refused.

    Example:
        >>> t = RandomFog(fog_coef_range=(0.5, 0.5), p=1)
        >>> params = t.draw(np.random.default_rng(0), (90, 60))
        >>> params["intensity"], len(params["particles"]) > 100
        (0.5, True)
    """

    def __init__(self, alpha_coef: float = 0.08, fog_coef_range: Any = (0.3, 1),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.fog_coef_range = value_range(fog_coef_range, "fog_coef_range", False, 0.0, 1.0)[0]
        if isinstance(alpha_coef, bool) or not isinstance(alpha_coef, (int, float, np.number)) \
                or not 0 <= alpha_coef <= 1:
            raise ValueError(f"alpha_coef must be a number in [0, 1], got {alpha_coef!r}")
        self.alpha_coef = float(alpha_coef)

    @staticmethod
    def _regions(intensity: float, size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
        """The particles' regions, (x low, x high, y low, y high, count) each, both ends
        included, as albumentations' loop makes them."""
        w, h = size
        region = max(1, int(w // 3 * intensity))
        cx, cy = int(w / 2 - 0.5), int(h / 2 - 0.5)
        cw, ch, out = w, h, []
        for _ in range(10):
            if not (cw > region and ch > region):
                break
            count = int(cw * ch / (region * region) * intensity * 10)
            out.append((cx - cw // 2, cx + cw // 2, cy - ch // 2, cy + ch // 2, count))
            cw, ch = int(cw * 0.9), int(ch * 0.9)
        return out

    def _particles(self, intensity: float, u: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """(n, 3) particles (x, y, radius) from 3 uniform numbers each (``u``: (n, 3))."""
        regions = self._regions(intensity, size)
        counts = [r[4] for r in regions]
        lo = np.repeat([[r[0], r[2]] for r in regions], counts, 0).reshape(-1, 2)
        hi = np.repeat([[r[1], r[3]] for r in regions], counts, 0).reshape(-1, 2)
        out = np.empty((len(u), 3), np.int64)
        out[:, :2] = lo + np.floor(u[:, :2] * (hi - lo + 1))
        top = max(2, int(min(size) * 0.1 * intensity))
        least = max(1, top // 2)
        out[:, 2] = least + np.floor(u[:, 2] * (top - least))
        return out

    def _count(self, intensity: float, size: tuple[int, int]) -> int:
        n = sum(r[4] for r in self._regions(intensity, size))
        if n > MAX_FOG_PARTICLES:
            raise ValueError(f"RandomFog drew {n} particles for an intensity of {intensity:g} on "
                             f"an image of {size[0]} x {size[1]} (at most {MAX_FOG_PARTICLES}: "
                             f"raise fog_coef_range's low end)")
        return n

    def _params(self, intensity, particles, size) -> dict:
        return {"intensity": float(intensity), "particles": particles.tolist(),
                "size": [int(size[0]), int(size[1])]}

    def draw(self, rng, size):
        intensity = float(rng.uniform(*self.fog_coef_range))
        n = self._count(intensity, size)
        u = rng.random(3 * n).reshape(n, 3)
        return self._params(intensity, self._particles(intensity, u, size), size)

    def draw_lanes(self, lanes, sizes):
        intensity = lanes.uniform(*self.fog_coef_range).tolist()
        counts = np.array([self._count(i, s) for i, s in zip(intensity, sizes)])
        u = lanes.ahead(3 * int(counts.max(initial=0)))
        lanes.skip(3 * counts)
        return [self._params(i, self._particles(i, u[k, :3 * n].reshape(n, 3), s), s)
                for k, (i, n, s) in enumerate(zip(intensity, counts.tolist(), sizes))]

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("RandomFog", channels, peak)
        w, h = params["size"]
        parts = np.asarray(params["particles"], np.float64).reshape(-1, 3)
        parts = parts[np.argsort(parts[:, 1], kind="stable")]  # by row: the kernel bisects
        n, data = len(parts), -(-len(parts) // 3)
        size = max(3, min(w, h) // 30)
        size += size % 2 == 0
        taps = opencv_gaussian(size)
        blur = _with_data([BLUR, float(size // 2)], taps[size // 2:].astype(np.float32).tolist())
        # the blur's result as albumentations' uint8 has it
        tail = blur + ([[POSTERIZE, 8.0, 8.0, 8.0, 8.0]] if peak == 1.0 else [])
        # (many operations: one array, not a list a particle)
        ops = np.zeros((1 + data + len(tail), WORDS), np.float32)
        ops[0, :7] = FOG, n, self.alpha_coef * float(params["intensity"]), data, \
            float(parts[:, 2].max(initial=0)), w, h
        table = np.zeros((data * 3, 3))
        table[:n] = parts
        ops[1:1 + data, 0] = DATA
        ops[1:1 + data, 1:10] = table.reshape(data, 9)
        for k, op in enumerate(tail):
            ops[1 + data + k, :len(op)] = op
        return ops

    def config(self):
        return {"alpha_coef": self.alpha_coef, "fog_coef_range": list(self.fog_coef_range)}


#: RandomRain's drops a sample per rain type: a fraction of the image's height
_RAIN_DROPS = {"drizzle": (1, 4), "heavy": (1, 1), "torrential": (2, 1), "default": (1, 3)}
#: albumentations' bound on RandomRain's slant (its MAX_RAIN_ANGLE)
MAX_RAIN_SLANT = 45


def _thick_lines(lines: np.ndarray, width: int, size: tuple[int, int]) -> np.ndarray:
    """(n, 6): lines (x1, y1, x2, y2, whole pixels) ``width`` > 1 pixels wide as OpenCV 5's
    cv2.line and cv2.polylines draw them on an image of ``size`` (w, h), for raster.h's
    wk_rain_thick: each line first clipped to the image grown by ``width`` on every side
    (engine.raster.clip_lines, clipLine's arithmetic; its double quotient truncates as C's
    integer division does for ends this near), which moves the ends of lines crossing the
    sides; then its ThickLine half-width vector, in 16.16 fixed point, computed in double and
    rounded to even as OpenCV computes it: the normal scaled to (width / 2, plus half a pixel
    for an odd width) pixels, 0 for a line of no length (then only its round ends are drawn).
    A line wholly outside (which OpenCV does not draw) becomes a point ``width + 2`` pixels
    above and left of the image, where neither it nor its round ends reach the image."""
    w, h = size
    grown = lines.astype(np.int64) + width
    a, b, inside = clip_lines(grown[:, :2], grown[:, 2:], (w + 2 * width, h + 2 * width))
    ends = (np.concatenate([a, b], 1) - width).astype(np.float64)
    ends[~inside] = -width - 2
    dx = ends[:, 0] - ends[:, 2]
    dy = ends[:, 3] - ends[:, 1]
    r = dx * dx + dy * dy
    half = float((width << 15) + (width & 1) * 32768)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(r > np.finfo(np.float64).eps, half / np.sqrt(r), 0.0)
    return np.concatenate([ends, np.rint(dy * scale)[:, None], np.rint(dx * scale)[:, None]], 1)


class RandomRain(ColourTransform):
    """albumentations' RandomRain: a slant drawn from ``slant_range`` and drops at whole pixels
    drawn over the image (x in [0, W), y in [0, H - drop_length)), ``H // 3`` of them
    (``rain_type`` "drizzle" ``H // 4``, "heavy" ``H``, "torrential" ``2 H``); albumentations'
    laws from the sample's stream. ``drop_length`` None is ``max(1, H // 8)``. Recorded as
    ``slant``, ``drop_length``, ``drops`` (each ``[x, y]``) and ``size``.

    Applied as albumentations applies it, per pixel in the warp's store: each drop a line from
    (x, y) to (``int(x + slant)``, y + drop_length) (albumentations adds the slant, in degrees,
    to x as pixels) as ``cv2.polylines`` draws it (4-connected, clipped as OpenCV clips; a drop
    ``drop_width`` > 1 wide as OpenCV 5's thick line: clipped to the image grown by its width,
    then its quadrilateral filled in 16.16 fixed point, outlined by its fixed-point lines, and
    a filled circle of radius ``(drop_width + 1) // 2`` at each end) in ``drop_color`` on a
    layer of zeros; the layer
    blurred by ``cv2.blur`` of ``blur_value`` x ``blur_value`` (its rounding, edges reflected)
    where ``blur_value`` > 1;
    added to the image, saturated; then every level times ``brightness_coefficient``,
    rounded (``cv2.multiply``). RGB images (as albumentations), uint8 and float32 (through
    levels of 255, as albumentations' uint8 round trip). Taken: ``drop_width`` up to 64 and
    ``blur_value`` up to 25. A wide drop's half-width vector is computed on the host in
    double, as OpenCV computes it; drops drawn on another size than the output's are scaled
    (their ends and that vector), which OpenCV never does.

    Conventions: the drops lie on the **output** (put this after the geometry), positions
    (x, y) with y down, in pixels of ``size``, scaled to the output where it differs.

    Example:
        >>> t = RandomRain(slant_range=(5, 5), p=1)
        >>> params = t.draw(np.random.default_rng(0), (64, 48))
        >>> params["slant"], params["drop_length"], len(params["drops"])
        (5.0, 6, 16)
    """

    def __init__(self, slant_range: Any = (-10, 10), drop_length: int | None = None,
                 drop_width: int = 1, drop_color: Sequence[int] = (200, 200, 200),
                 blur_value: int = 7, brightness_coefficient: float = 0.7,
                 rain_type: str = "default", p: float = 0.5) -> None:
        super().__init__(p)
        self.slant_range = value_range(slant_range, "slant_range", False, -MAX_RAIN_SLANT,
                                       MAX_RAIN_SLANT)[0]
        if drop_length is not None and (isinstance(drop_length, bool) or not isinstance(
                drop_length, (int, np.integer)) or not 1 <= drop_length <= 65535):
            raise ValueError(f"drop_length must be None or a whole number in [1, 65535], got "
                             f"{drop_length!r}")
        self.drop_length = None if drop_length is None else int(drop_length)
        if isinstance(drop_width, bool) or not isinstance(drop_width, (int, np.integer)) or \
                not 1 <= drop_width <= MAX_RAIN_WIDTH:
            raise ValueError(f"drop_width must be a whole number in [1, {MAX_RAIN_WIDTH}], got "
                             f"{drop_width!r}")
        self.drop_width = int(drop_width)
        self.drop_color = _rgb_levels(drop_color, "drop_color")
        if isinstance(blur_value, bool) or not isinstance(blur_value, (int, np.integer)) or \
                not 1 <= blur_value <= MAX_RAIN_BOX:
            raise ValueError(f"blur_value must be a whole number in [1, {MAX_RAIN_BOX}], got "
                             f"{blur_value!r}")
        self.blur_value = int(blur_value)
        if isinstance(brightness_coefficient, bool) or not isinstance(
                brightness_coefficient, (int, float, np.number)) or \
                not 0 < brightness_coefficient <= 1:
            raise ValueError(f"brightness_coefficient must be a number in (0, 1], got "
                             f"{brightness_coefficient!r}")
        self.brightness_coefficient = float(brightness_coefficient)
        if rain_type not in _RAIN_DROPS:
            raise ValueError(f"rain_type must be one of {sorted(_RAIN_DROPS)}, got "
                             f"{rain_type!r}")
        self.rain_type = rain_type

    def _shape(self, size: tuple[int, int]) -> tuple[int, int]:
        """(drops, drop length) on an image of ``size`` (w, h), or a ValueError where the
        drops have no rows to start on (albumentations' integers(0, H - length) fails)."""
        w, h = size
        times, part = _RAIN_DROPS[self.rain_type]
        count = h * times // part
        length = max(1, h // 8) if self.drop_length is None else self.drop_length
        if count > MAX_RAIN_DROPS:
            raise ValueError(f"RandomRain would draw {count} drops on an image {h} high (at "
                             f"most {MAX_RAIN_DROPS})")
        if count and h - length < 1:
            raise ValueError(f"RandomRain's drops of {length} pixels need an image higher than "
                             f"that, got {w} x {h}")
        return count, length

    @staticmethod
    def _params(slant, length, u, size) -> dict:
        w, h = size
        drops = np.empty((len(u), 2), np.int64)
        drops[:, 0] = np.floor(u[:, 0] * w)
        drops[:, 1] = np.floor(u[:, 1] * (h - length))
        return {"slant": float(slant), "drop_length": int(length), "drops": drops.tolist(),
                "size": [int(w), int(h)]}

    def draw(self, rng, size):
        count, length = self._shape(size)
        slant = float(rng.uniform(*self.slant_range))
        u = rng.random(2 * count).reshape(count, 2)
        return self._params(slant, length, u, size)

    def draw_lanes(self, lanes, sizes):
        shapes = [self._shape(s) for s in sizes]
        slant = lanes.uniform(*self.slant_range).tolist()
        counts = np.array([c for c, _ in shapes])
        u = lanes.ahead(2 * int(counts.max(initial=0)))
        lanes.skip(2 * counts)
        return [self._params(a, length, u[k, :2 * n].reshape(n, 2), s)
                for k, (a, (n, length), s) in enumerate(zip(slant, shapes, sizes))]

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("RandomRain", channels, peak)
        w, h = params["size"]
        length = int(params["drop_length"])
        drops = np.asarray(params["drops"], np.float64).reshape(-1, 2)
        # each drop's ends as albumentations computes them: (x, y) + (slant, length) in
        # float64, truncated to int32
        ends = np.trunc(drops + np.array([float(params["slant"]), length]))
        lines = np.concatenate([drops, ends], axis=1)
        t = self.drop_width
        per = 2 if t == 1 else 1  # drops an operation
        n, rows = len(lines), -(-len(lines) // per)
        k = self.blur_value
        # (no drops: albumentations returns the image, not darkened)
        darken = self.brightness_coefficient != 1.0 and n > 0
        ops = np.zeros((1 + rows + 24 * darken, WORDS), np.float32)
        ops[0] = RAIN, n, k, rows + 24 * darken, w, h, length, *self.drop_color, \
            np.float32(1.0) / np.float32(k * k), float(darken)
        ops[1:1 + rows, 0] = DATA
        if per == 2:  # two drops an operation
            padded = np.zeros((rows * 2, 4))
            padded[:n] = lines
            ops[1:1 + rows, 1:9] = padded.reshape(rows, 8)
        else:  # a drop an operation: its ends, its polygon's half-width vector; the width
            ops[1:1 + rows, 1:7] = _thick_lines(lines, t, (w, h))
            if rows:  # (no drops: no width to read)
                ops[1, 10] = t
        if darken:  # cv2.multiply's levels: the product in double, rounded to even
            levels = np.zeros(24 * 11)
            levels[:256] = np.clip(np.rint(np.arange(256) * self.brightness_coefficient), 0, 255)
            ops[1 + rows:, 0] = DATA
            ops[1 + rows:, 1:12] = levels.reshape(24, 11)
        return ops

    def config(self):
        return {"slant_range": list(self.slant_range), "drop_length": self.drop_length,
                "drop_width": self.drop_width, "drop_color": list(self.drop_color),
                "blur_value": self.blur_value,
                "brightness_coefficient": self.brightness_coefficient,
                "rain_type": self.rain_type}
