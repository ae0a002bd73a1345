"""Plasma fractals over the image, under albumentations 2.0.8's names and parameters:
``PlasmaBrightnessContrast`` (brightness and contrast that vary over the image with a plasma
pattern) and ``PlasmaShadow`` (the image darkened by one). Like every colour transform they
draw from the sample's stream (recorded in ``out["params"]``, replayable), contribute the
identity map, and leave masks, boxes and keypoints as they are.

The pattern is albumentations' ``generate_plasma_pattern``: the diamond-square algorithm on a
grid of ``2^k + 1`` points a side (the least such side at least the image's longer one),
starting from 3 x 3 uniform numbers in [-1, 1); each step doubles the grid, adds a uniform
number of ``[-roughness^s, roughness^s)`` to every old point, fills the points between them
from their neighbours' means (only where that mean is above 0: the others stay 0, as
albumentations has it) plus their own numbers, and scales the grid to [0, 1]; the image's
top-left part, scaled to [0, 1] again, is the pattern. The device makes it once per sample
and step (kernels_cl/plasma.cl), in albumentations' float32 arithmetic step for step; its
numbers come from the kernel's counter-based generator keyed on the sample (``key``,
recorded), so the pattern is the same alone, in any batch, on any device.
:func:`plasma_numbers` draws the same numbers on the host: fed to albumentations' generator
in place of its own, they give the device's pattern (the tests do so).

Conventions: the pattern lies on the **output** (put these after the geometry, as recipes
do: a resize after one in albumentations scales the pattern with the image, here the pattern
is drawn at the output's size). Row y, column x of the pattern is the output's pixel (x, y).

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, PlasmaShadow
    >>> aug = Compose([PlasmaShadow(shadow_intensity_range=(0.5, 0.5), p=1)])
    >>> out = aug(image=np.full((40, 50, 3), 200, np.uint8), seed=0)      # doctest: +SKIP
    >>> 100 <= int(out["image"].min()) and int(out["image"].max()) == 200  # doctest: +SKIP
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import number
from ..engine.core import (COL_PLASMA as PLASMA, COL_PLASMA_MEAN as PLASMA_MEAN,
                           MAX_PLASMA_ROUGHNESS, plasma_side)
from ._base import value_range
from ._colour import ColourTransform, draw_key, draw_keys
from ._philox import kernel_key, philox4x32

__all__ = ["PlasmaBrightnessContrast", "PlasmaShadow", "plasma_numbers"]

#: the third word of the generator's counter for step s: this plus s (kernels_cl/plasma.cl's
#: PL_TAG)
_TAG = 0x504C4100


def plasma_numbers(key: Any, roughness: float, size: tuple[int, int]) -> list[np.ndarray]:
    """The uniform numbers the device draws for a plasma pattern of an output of ``size``
    (width, height) under the sample's ``key`` (the recorded three words): float32 arrays, the
    first 3 x 3 (in [-1, 1)), then each step's ``(2^(s + 1) + 1)`` square (in
    ``[-roughness^(s - 1), roughness^(s - 1))``, the power as repeated float32 products), in the
    order and shapes albumentations' ``generate_plasma_pattern`` asks its generator's
    ``uniform`` for them.

    Point (i, j) of step s takes word ``j % 4`` of Philox-4x32-10's block of counter
    ``(j // 4, i, 0x504C4100 + s, 0)``, w, as ``scale * ((w >> 8) * 2^-23 - 1)``.

    Example:
        >>> [a.shape for a in plasma_numbers([1, 2, 3], 3.0, (9, 6))]
        [(3, 3), (5, 5), (9, 9)]
    """
    rough = np.float32(roughness)
    side = plasma_side(int(size[0]), int(size[1]))
    steps = (side - 1).bit_length() - 2
    k = kernel_key(key)
    out, scale = [], np.float32(1.0)
    for s in range(steps + 1):
        n = 3 if s == 0 else (2 << s) + 1
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        words = np.choose(j & 3, philox4x32(j >> 2, i, _TAG + s, k))
        u = (words >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -23) - np.float32(1)
        out.append((scale * u).astype(np.float32))
        if s >= 1:
            scale = np.float32(scale * rough)
    return out


def _roughness(value: Any) -> float:
    r = number(value, "roughness")
    if not 0 < r <= MAX_PLASMA_ROUGHNESS:
        raise ValueError(f"roughness must be in (0, {MAX_PLASMA_ROUGHNESS:g}] (albumentations: "
                         f"> 0; past {MAX_PLASMA_ROUGHNESS:g} the last steps' numbers overflow "
                         f"float32 on large outputs), got {value!r}")
    return r


def _plasma_size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"plasma_size must be a whole number >= 1, got {value!r}")
    return int(value)


class PlasmaBrightnessContrast(ColourTransform):
    """albumentations' PlasmaBrightnessContrast: per sample a brightness factor ``b`` from
    ``brightness_range`` and a contrast factor ``c`` from ``contrast_range`` (uniform, in that
    order), then the pattern's key; on the image's values ``x`` in [0, 1] (integer images
    through their float32 conversion, rounded back to the nearest level):
    ``x = clip(x + clip(b P))``, then where ``c`` is not 0
    ``x = clip(clip(x w) + m (1 - w))`` with ``w = clip(c P) + 1`` and ``m`` the mean of ``x``
    over the image and its channels after the brightness (computed on the device, in a pass
    after the warp), every clip to [0, 1]. ``P`` is the plasma pattern (see the module).

    As albumentations 2.0.8 computes it, ``b P`` and ``c P`` are clipped to [0, 1]: a negative
    factor changes nothing (its documented darkening does not happen there either).

    ``plasma_size`` is taken as albumentations takes it (a whole number >= 1) and, as there,
    changes nothing: the pattern has the image's size. ``roughness`` in (0, 100].
    uint8, uint16 and float32 images, 1-4 channels (each takes the same pattern).

    Example:
        >>> t = PlasmaBrightnessContrast(brightness_range=(0.2, 0.2), contrast_range=(0, 0), p=1)
        >>> t.colour_ops({"brightness": 0.2, "contrast": 0.0, "key": [1, 2, 3]}, 3, 255.0)
        [[44, 1.0, 2.0, 3.0, 3.0, 0.0, 0.2, 0.0]]
    """

    def __init__(self, brightness_range: Any = (-0.3, 0.3), contrast_range: Any = (-0.3, 0.3),
                 plasma_size: int = 256, roughness: float = 3.0, p: float = 0.5) -> None:
        super().__init__(p)
        self.brightness_range = value_range(brightness_range, "brightness_range", False,
                                            -1.0, 1.0)[0]
        self.contrast_range = value_range(contrast_range, "contrast_range", False, -1.0, 1.0)[0]
        self.plasma_size = _plasma_size(plasma_size)
        self.roughness = _roughness(roughness)

    def draw(self, rng, size):
        # albumentations' order: the brightness, the contrast, then the pattern's numbers
        b, c = float(rng.uniform(*self.brightness_range)), float(rng.uniform(*self.contrast_range))
        return {"brightness": b, "contrast": c, "key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        b = lanes.uniform(*self.brightness_range).tolist()
        c = lanes.uniform(*self.contrast_range).tolist()
        return [{"brightness": x, "contrast": y, "key": k}
                for x, y, k in zip(b, c, draw_keys(lanes))]

    def colour_ops(self, params, channels, peak):
        # a factor at or below 0 changes nothing (albumentations clips its products with the
        # pattern to [0, 1]): no pattern for neither, no mean's pass for the contrast
        b, c = max(float(params["brightness"]), 0.0), max(float(params["contrast"]), 0.0)
        if b == 0 and c == 0:
            return []
        return [[PLASMA_MEAN if c > 0 else PLASMA, *map(float, params["key"]), self.roughness,
                 0.0, b, c]]

    def config(self):
        return {"brightness_range": list(self.brightness_range),
                "contrast_range": list(self.contrast_range), "plasma_size": self.plasma_size,
                "roughness": self.roughness}


class PlasmaShadow(ColourTransform):
    """albumentations' PlasmaShadow: per sample an intensity ``i`` from
    ``shadow_intensity_range`` (uniform), then the pattern's key; every channel times
    ``1 - i P`` (``P`` the plasma pattern: see the module), clipped, integer images truncated
    to a level (numpy's store, as albumentations').

    ``plasma_size`` is taken as albumentations takes it (a whole number >= 1) and, as there,
    changes nothing. ``roughness`` in (0, 100]. uint8, uint16 and float32 images, 1-4
    channels.

    Example:
        >>> t = PlasmaShadow(shadow_intensity_range=(0.5, 0.5), p=1)
        >>> t.colour_ops({"intensity": 0.5, "key": [1, 2, 3]}, 3, 255.0)
        [[44, 1.0, 2.0, 3.0, 3.0, 1.0, 0.5]]
    """

    def __init__(self, shadow_intensity_range: Any = (0.3, 0.7), plasma_size: int = 256,
                 roughness: float = 3.0, p: float = 0.5) -> None:
        super().__init__(p)
        self.shadow_intensity_range = value_range(shadow_intensity_range,
                                                  "shadow_intensity_range", False, 0.0, 1.0)[0]
        self.plasma_size = _plasma_size(plasma_size)
        self.roughness = _roughness(roughness)

    def draw(self, rng, size):
        return {"intensity": float(rng.uniform(*self.shadow_intensity_range)),
                "key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        i = lanes.uniform(*self.shadow_intensity_range).tolist()
        return [{"intensity": x, "key": k} for x, k in zip(i, draw_keys(lanes))]

    def colour_ops(self, params, channels, peak):
        i = float(params["intensity"])
        if i == 0:
            return []
        return [[PLASMA, *map(float, params["key"]), self.roughness, 1.0, i]]

    def config(self):
        return {"shadow_intensity_range": list(self.shadow_intensity_range),
                "plasma_size": self.plasma_size, "roughness": self.roughness}
