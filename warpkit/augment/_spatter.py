"""albumentations' Spatter: rain drops or mud spattered over the lens.

albumentations makes a layer per sample from a "liquid layer" of normal numbers, blurred and
cut at a threshold: for rain, the drops' edges (OpenCV's Canny), their distance transform, an
equalisation and two filters give each drop a shaded rim, and the layer is added to the image;
for mud, the liquid's blobs blurred again give a mask that blends the image towards the mud's
colour. warpkit makes the same layer on the host with the same OpenCV calls in the same
arithmetic (its one plane, float32, at the output's size, needs OpenCV: albumentations'
own dependency), puts it once in the call's colour table, and blends it in the warp's store
(kernels_cl/colour.h's ``wk_spatter8``). The layer's normal numbers come from numpy's
generator keyed on the sample's recorded ``key`` (the same call as albumentations':
``normal(size=(H, W), loc=mean, scale=std)``), so a replay makes the same layer.

It lies on the output: the layer is made at the output's size wherever the step stands
(albumentations makes it at the size the step finds: put Spatter after the geometry for the
same result).

Example:
    >>> from warpkit.augment import Spatter
    >>> p = Spatter(mode="mud", p=1).draw(np.random.default_rng(0), (64, 48))
    >>> sorted(p)
    ['cutout_threshold', 'intensity', 'key', 'mean', 'sigma', 'std']
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._threads import cores, pool
from ..engine.core import COL_SPATTER
from ._base import value_range
from ._colour import ColourTransform, _rgb_eight_bit, draw_key, table_offset
from ._domain import _opencv

__all__ = ["Spatter", "spatter_plane"]

#: albumentations' colours of each mode, RGB levels
_COLOURS = {"rain": (238, 238, 175), "mud": (20, 42, 63)}

#: albumentations' rim filter of the drops (its ``get_rain_params``)
_RIM = np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]], np.float32)


class Spatter(ColourTransform):
    """albumentations' Spatter: per sample ``mean``, ``std``, ``cutout_threshold``,
    ``gauss_sigma`` (as ``sigma``) and ``intensity`` drawn uniformly in their ranges (a number
    ``x`` is (0, x), as albumentations reads it), in albumentations' order, then the key of the
    liquid layer's numbers (recorded). ``mode`` "rain" adds drops of ``color`` (RGB levels;
    albumentations' (238, 238, 175) by default), "mud" blends towards it ((20, 42, 63)).
    RGB images, uint8 or float32 (as albumentations).

    Example:
        >>> t = Spatter(mode="rain", p=1)
        >>> t.config()["color"]
        [238, 238, 175]
    """

    def __init__(self, mean: Any = (0.65, 0.65), std: Any = (0.3, 0.3),
                 gauss_sigma: Any = (2, 2), cutout_threshold: Any = (0.68, 0.68),
                 intensity: Any = (0.6, 0.6), mode: str = "rain", color: Any = None,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.mean = _range(mean, "mean", 1.0)
        self.std = _range(std, "std", 1.0)
        self.gauss_sigma = _range(gauss_sigma, "gauss_sigma", np.inf)
        self.cutout_threshold = _range(cutout_threshold, "cutout_threshold", 1.0)
        self.intensity = _range(intensity, "intensity", 1.0)
        if mode not in _COLOURS:
            raise ValueError(f"mode must be 'rain' or 'mud' (albumentations' modes), got "
                             f"{mode!r}")
        self.mode = mode
        if color is None:
            color = _COLOURS[mode]
        if not (isinstance(color, (list, tuple)) and len(color) == 3 and
                all(isinstance(c, numbers.Real) and not isinstance(c, bool) and 0 <= c <= 255
                    for c in color)):
            raise ValueError(f"color must be three RGB levels in [0, 255], got {color!r}")
        self.color = [int(c) if float(c).is_integer() else float(c) for c in color]

    def draw(self, rng, size):
        # albumentations' order: mean, std, cutout_threshold, sigma, intensity; then the layer
        out = {}
        for name, rg in (("mean", self.mean), ("std", self.std),
                         ("cutout_threshold", self.cutout_threshold),
                         ("sigma", self.gauss_sigma), ("intensity", self.intensity)):
            out[name] = float(rng.uniform(*rg))
        out["key"] = draw_key(rng)
        return out

    def colour_ops(self, params, channels, peak):
        raise ValueError("Spatter's layer is made for the output's size: a pipeline call makes "
                         "its operations")

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> list[list[float]]:
        """The COL_SPATTER operation of a sample whose output is ``size`` = (width, height),
        its layer (:func:`spatter_plane`) in the call's colour table."""
        _rgb_eight_bit("Spatter", channels, peak)
        key = self._key(params, size)
        offset = table_offset(memo, key, lambda: memo.pop(("layer", key), None)
                              if ("layer", key) in memo else
                              spatter_plane(params, size, self.mode))
        colour = np.array(self.color, np.float64) / 255.0
        factors = colour * (params["intensity"] * 0.9) if self.mode == "rain" else colour
        return [[COL_SPATTER, 0.0 if self.mode == "rain" else 1.0,
                 *np.float32(factors).tolist(), 0.0, float(offset >> 16),
                 float(offset & 0xFFFF)]]

    def prepare_call(self, items: list[tuple[dict, tuple[int, int]]], memo: dict) -> None:
        """The layers of a call's samples (``items``: (params, output size)) made together on
        the helper threads (OpenCV's and numpy's generator's work releases the interpreter),
        kept in the call's ``memo`` for :meth:`call_colour_ops`."""
        todo = {self._key(q, s): (q, s) for q, s in items}
        todo = {k: v for k, v in todo.items() if k not in memo and ("layer", k) not in memo}
        if len(todo) < 2:
            return
        made = pool("spatter", cores()).map(lambda qs: spatter_plane(*qs, self.mode),
                                            todo.values())
        for k, plane in zip(todo, made):
            memo[("layer", k)] = plane

    def _key(self, params: dict, size: tuple[int, int]) -> tuple:
        """A sample's layer's key in a call's memo: the transform's settings, the output's size
        and the sample's numbers."""
        return ("Spatter", self.mode, tuple(self.color), tuple(size),
                *(params[k] if k != "key" else tuple(params[k]) for k in sorted(params)
                  if k != "applied"))

    def config(self):
        return {"mean": list(self.mean), "std": list(self.std),
                "gauss_sigma": list(self.gauss_sigma),
                "cutout_threshold": list(self.cutout_threshold),
                "intensity": list(self.intensity), "mode": self.mode, "color": list(self.color)}


def _range(value: Any, arg: str, top: float) -> tuple[float, float]:
    """A range in [0, top]: a number ``x`` is (0, x), as albumentations reads it."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = (0.0, float(value))
    return value_range(value, arg, False, 0.0, top)[0]


def spatter_plane(params: dict, size: tuple[int, int], mode: str) -> np.ndarray:
    """A sample's Spatter layer for an output of ``size`` = (width, height), (height, width)
    float32, as albumentations' ``get_params_dependent_on_data`` makes it with OpenCV: rain's
    ``m`` (the drops' shade, 0 to 1, which the colour times ``0.9 intensity`` multiplies),
    mud's mask (0 to ``intensity``, which blends the image towards the colour)."""
    cv2 = _opencv()
    if cv2 is None:
        raise ValueError("Spatter makes its layer with OpenCV (albumentations' arithmetic): "
                         "pip install opencv-python-headless")
    w, h = int(size[0]), int(size[1])
    rng = np.random.default_rng(list(params["key"]))
    liquid = rng.normal(size=(h, w), loc=params["mean"], scale=params["std"])
    sigma = float(params["sigma"])
    ksize = int(2 * round(3 * sigma) + 1)
    cv2.GaussianBlur(src=liquid, dst=liquid, ksize=(ksize, ksize), sigmaX=sigma, sigmaY=sigma,
                     borderType=cv2.BORDER_REPLICATE)
    cutout = float(params["cutout_threshold"])
    liquid[liquid < cutout] = 0
    if mode == "rain":
        return _rain(cv2, liquid)
    return _mud(cv2, rng, liquid, cutout, sigma, float(params["intensity"]))


def _rain(cv2: Any, liquid: np.ndarray) -> np.ndarray:
    """albumentations' ``get_rain_params`` up to its ``m``: the liquid as 8-bit levels
    (truncated), 255 less its Canny edges, their distance transform cut at 20 and blurred,
    as levels of 255 (albumentations' equalisation takes the float distances as fractions of
    the peak), equalised, the rim filter (clipped to [0, 1]) and a blur, times the levels,
    over their largest."""
    levels = np.clip(liquid * 255, 0, 255).astype(np.uint8)
    dist = cv2.distanceTransform(255 - cv2.Canny(levels, 50, 150), cv2.DIST_L2, 5)
    _, dist = cv2.threshold(dist, 20, 20, cv2.THRESH_TRUNC)
    dist = cv2.GaussianBlur(dist, ksize=(3, 3), sigmaX=1, sigmaY=1,
                            borderType=cv2.BORDER_REPLICATE)
    eq = cv2.equalizeHist(np.clip(np.rint(dist * 255), 0, 255).astype(np.uint8))
    dist = cv2.LUT(eq, np.arange(256, dtype=np.float32) / 255)
    dist = np.clip(cv2.filter2D(dist, -1, _RIM), 0, 1).astype(np.float32)
    dist = cv2.GaussianBlur(dist, ksize=(5, 5), sigmaX=1.5, sigmaY=1.5,
                            borderType=cv2.BORDER_REPLICATE).astype(np.float32)
    m = levels.astype(np.float32) * dist
    top = np.max(m)
    if top > 0:
        m *= 1 / top
        return m
    return np.zeros_like(m)


def _mud(cv2: Any, rng: np.random.Generator, liquid: np.ndarray, cutout: float, sigma: float,
         intensity: float) -> np.ndarray:
    """albumentations' ``get_mud_params``' mask: the liquid above the threshold (a tenth of the
    pixels drawn by the same generator where none is), blurred by ``sigma``, over its
    largest, times ``intensity``."""
    h, w = liquid.shape
    mask = (liquid > cutout).astype(np.float32)
    if np.sum(mask) == 0:
        flat = rng.choice(h * w, max(1, int(0.1 * h * w)), replace=False)
        mask = np.zeros_like(liquid, dtype=np.float32)
        mask.flat[flat] = 1.0
    if sigma > 0:
        mask = cv2.GaussianBlur(mask, ksize=(0, 0), sigmaX=sigma, sigmaY=sigma,
                                borderType=cv2.BORDER_REPLICATE)
    top = np.max(mask)
    if top > 0:
        mask = mask / top
    else:
        mask[0, 0] = 1.0
    return (mask * intensity).astype(np.float32)
