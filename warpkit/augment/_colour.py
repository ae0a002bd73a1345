"""Pointwise colour transforms, under albumentations 2.0.8's names and parameters, evaluated
inside the warp's kernel on each resampled pixel (``kernels_cl/colour.h``): no pass over memory
of their own, no intermediate uint8 image, and the model's normalisation and layout after them
in the same store.

A colour transform draws its parameters from the sample's stream like any transform (recorded in
``out["params"]``, replayable), contributes the identity map, and gives the kernel its colour
operations (:meth:`ColourTransform.colour_ops`). Masks, boxes and keypoints are untouched.

Units and rounding (as albumentations): uint8 images work in levels 0-255 (the resampled value
rounded once, each operation's result truncated to a level, as albumentations' uint8 lookup
tables do), uint16 in levels 0-65535, float32 images in [0, 1] (the resampled value enters clipped there,
and each result is clipped there).
Colour applies to the whole resampled image, the constant fill included (albumentations leaves
a border that a later geometric transform adds as it is), unless the pipeline takes
``edges="each_step"`` (:mod:`warpkit.augment._frames`: each step's border in its place among
the colour operations).

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, RandomBrightnessContrast, RandomResizedCrop
    >>> aug = Compose([RandomResizedCrop(64), RandomBrightnessContrast(p=1)])
    >>> out = aug(image=np.full((80, 90, 3), 100, np.uint8), seed=0)     # doctest: +SKIP
    >>> out["image"].shape, round(out["params"]["steps"][1]["alpha"], 3)  # doctest: +SKIP
    ((64, 64, 3), 1.174)
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._checks import flag
from ..engine.core import (COL_AFFINE as AFFINE, COL_AFFINE_MEAN as AFFINE_MEAN,
                           COL_BLUR as BLUR, COL_CLAHE as CLAHE_OP, COL_CONTRAST as CONTRAST,
                           COL_CONV as CONV, COL_DATA as DATA, COL_DOWNSCALE as DOWNSCALE,
                           COL_GAMMA as GAMMA, COL_GRAY as GRAY, COL_HSV as HSV, COL_HUE as HUE,
                           COL_MEDIAN as MEDIAN,
                           COL_MOTION as MOTION, COL_NOISE as NOISE, COL_PCA as PCA,
                           COL_POSTERIZE as POSTERIZE,
                           COL_SATURATE as SATURATE, COL_SHUFFLE as SHUFFLE,
                           COL_SOLARIZE as SOLARIZE, COLOUR_WORDS as WORDS, GRAY_FROM_LAB,
                           colour_peak, split, with_table)
from ..engine import lab
from ..engine.plan import MAX_BLUR_RADIUS, MAX_CLAHE_TILES, MAX_MEDIAN_SIZE
from ._base import IDENTITY_ROW, Transform, contains, row_maps, value_range

__all__ = ["Blur", "ChannelShuffle", "CLAHE", "ColorJitter", "colour_program", "ColourTransform",
           "Downscale", "Emboss", "GaussianBlur", "GaussNoise", "HueSaturationValue", "InvertImg",
           "MedianBlur", "MotionBlur", "Posterize", "RandomBrightnessContrast", "RandomGamma",
           "RGBShift", "Sharpen", "Solarize", "ToGray"]


def _signed(value: Any, arg: str) -> tuple[float, float]:
    """albumentations' limit: ``x`` means (-x, x); a pair is (low, high)."""
    return value_range(value, arg, True, -math.inf, math.inf)[0]


def _factor(value: Any, arg: str) -> tuple[float, float]:
    """ColorJitter's multiplicative factor: ``x`` means (max(0, 1 - x), 1 + x); a pair is
    (low, high), both >= 0."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{arg} must be >= 0 as a single number, got {value!r}")
        return max(0.0, 1.0 - float(value)), 1.0 + float(value)
    return value_range(value, arg, False, 0.0, math.inf)[0]


def _one_or_three(name: str, channels: int) -> None:
    if channels not in (1, 3):
        raise TypeError(f"{name} takes images of 1 or 3 channels (as albumentations), got "
                        f"{channels} channels")


def _eight_bit(name: str, peak: float) -> None:
    if peak not in (255.0, 1.0):
        raise TypeError(f"{name} takes uint8 or float32 images (as albumentations), got an "
                        f"image whose values reach {peak:g}")


def _rgb_eight_bit(name: str, channels: int, peak: float) -> None:
    """Refuse what albumentations refuses of an RGB-only 8-bit transform: other than 3
    channels, other than uint8 or float32."""
    if channels != 3:
        raise TypeError(f"{name} takes RGB images of 3 channels (as albumentations), got "
                        f"{channels} channel{'s' * (channels != 1)}")
    _eight_bit(name, peak)


def eight_bit_io(img: np.ndarray, who: str, f) -> np.ndarray:
    """``f`` of ``img`` on 8-bit levels, as albumentations' ``uint8_io``: uint8 as it is, float32
    through ``rint(255 v)`` (clipped) and back as ``level / 255``; other dtypes refused."""
    if img.dtype == np.uint8:
        return f(img)
    if img.dtype != np.float32:
        raise ValueError(f"{who} takes uint8 or float32 images (albumentations' 8-bit round "
                         f"trip), got {img.dtype}")
    return f(levels8(img)).astype(np.float32) / np.float32(255)


def levels8(img: np.ndarray) -> np.ndarray:
    """A float image's 8-bit levels as albumentations makes them: ``rint(255 v)``, clipped."""
    return np.clip(np.rint(img * np.float32(255)), 0, 255).astype(np.uint8)


class IdentityStep(Transform):
    """A step that moves nothing: the identity map, the same size."""

    keeps_axes = True

    def map(self, params, size):
        return geometry.identity(), size

    def out_size(self, params, size):
        return size

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, lambda p, s: (IDENTITY_ROW, s))


class ColourTransform(IdentityStep):
    """A pointwise colour transform: no geometry (:class:`IdentityStep`), and the kernel
    operations for its recorded parameters (:meth:`colour_ops`)."""

    def colour_ops(self, params: dict, channels: int,
                   peak: float) -> list[list[float]] | np.ndarray:
        """The operations (code, values...) for these parameters on an image of ``channels``
        channels whose values reach ``peak`` (``engine.core.colour_peak``): a list of them, or
        an (operations, WORDS) array (many operations, copied in one piece)."""
        raise NotImplementedError


def _affine(a: Sequence[float], b: Sequence[float]) -> list[float]:
    a, b = list(a) + [1.0] * (4 - len(a)), list(b) + [0.0] * (4 - len(b))
    return [AFFINE, *a[:4], *b[:4]]


class RandomBrightnessContrast(ColourTransform):
    """albumentations' RandomBrightnessContrast: ``v * alpha + beta * peak`` with
    ``alpha = 1 + uniform(contrast_limit)`` and ``beta = uniform(brightness_limit)``;
    ``brightness_by_max=False``: ``beta`` times the mean of the image's values as this step
    finds it instead of the peak (computed on the device, in a pass after the warp).

    ``ensure_safe_range=True``: alpha and beta narrowed as albumentations narrows them, so
    that values in [0, peak] stay there without clipping (beta clipped to [0, 1] of the peak,
    then alpha to at most 1 - beta; for alpha <= 0, beta at most 1 and alpha at least -beta);
    recorded so with ``brightness_by_max``, else made in the kernel from the image's mean.

    Example:
        >>> t = RandomBrightnessContrast(brightness_limit=(0.1, 0.1), contrast_limit=0, p=1)
        >>> t.colour_ops({"alpha": 1.0, "beta": 0.1}, 3, 255.0)[0][:2]
        [1, 1.0]
    """

    @property
    def commutes(self) -> bool:  # type: ignore[override]
        """Pointwise unless ``brightness_by_max=False`` reads the image's mean."""
        return self.brightness_by_max

    def __init__(self, brightness_limit: Any = (-0.2, 0.2), contrast_limit: Any = (-0.2, 0.2),
                 brightness_by_max: bool = True, ensure_safe_range: bool = False,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.brightness_limit = _signed(brightness_limit, "brightness_limit")
        self.contrast_limit = _signed(contrast_limit, "contrast_limit")
        self.brightness_by_max = bool(brightness_by_max)
        self.ensure_safe_range = flag(ensure_safe_range, "ensure_safe_range")

    def draw(self, rng, size):
        # albumentations' order: alpha, then beta
        alpha = 1.0 + float(rng.uniform(*self.contrast_limit))
        beta = float(rng.uniform(*self.brightness_limit))
        if self.ensure_safe_range and self.brightness_by_max:
            alpha, beta = safe_alpha_beta(alpha, beta)
        return {"alpha": alpha, "beta": beta}

    def draw_lanes(self, lanes, sizes):
        alpha = 1.0 + lanes.uniform(*self.contrast_limit)
        beta = lanes.uniform(*self.brightness_limit)
        if self.ensure_safe_range and self.brightness_by_max:
            alpha, beta = safe_alpha_beta(alpha, beta)
        return [{"alpha": a, "beta": b} for a, b in zip(alpha.tolist(), beta.tolist())]

    def colour_ops(self, params, channels, peak):
        a, b = params["alpha"], params["beta"]
        if self.brightness_by_max:
            return [_affine([a] * 4, [b * peak] * 4)]
        return [[AFFINE_MEAN, *[a] * 4, *[b] * 4, float(self.ensure_safe_range)]]

    def config(self):
        return {"brightness_limit": list(self.brightness_limit),
                "contrast_limit": list(self.contrast_limit),
                "brightness_by_max": self.brightness_by_max,
                "ensure_safe_range": self.ensure_safe_range}


def safe_alpha_beta(alpha: Any, beta: Any) -> tuple[Any, Any]:
    """albumentations' get_safe_brightness_contrast_params for ``beta`` as a fraction of the
    peak (numbers, or arrays element by element): for alpha > 0, beta clipped to [0, 1] and
    alpha to at most 1 - beta; else beta at most 1 and alpha at least -beta.

    Example:
        >>> safe_alpha_beta(1.2, 0.1), safe_alpha_beta(-0.5, 0.2)
        ((0.9, 0.1), (-0.2, 0.2))
    """
    if np.ndim(alpha):
        pos = alpha > 0
        b = np.where(pos, np.clip(beta, 0.0, 1.0), np.minimum(beta, 1.0))
        return np.where(pos, np.minimum(alpha, 1.0 - b), np.maximum(alpha, -b)), b
    if alpha > 0:
        b = min(max(beta, 0.0), 1.0)
        return min(alpha, 1.0 - b), b
    b = min(beta, 1.0)
    return max(alpha, -b), b


class RandomGamma(ColourTransform):
    """albumentations' RandomGamma: ``peak * (v / peak) ** (g / 100)``, g from ``gamma_limit``
    (a number ``x`` means (-x, x) as albumentations reads it)."""

    commutes = True  # (a function of each pixel's value)

    def __init__(self, gamma_limit: Any = (80, 120), p: float = 0.5) -> None:
        super().__init__(p)
        self.gamma_limit = _signed(gamma_limit, "gamma_limit")
        if self.gamma_limit[0] <= 0:
            raise ValueError(f"gamma_limit must be > 0 (percent), got {gamma_limit!r}")

    def draw(self, rng, size):
        return {"gamma": float(rng.uniform(*self.gamma_limit)) / 100.0}

    def draw_lanes(self, lanes, sizes):
        return [{"gamma": g} for g in (lanes.uniform(*self.gamma_limit) / 100.0).tolist()]

    def colour_ops(self, params, channels, peak):
        return [[GAMMA, params["gamma"]]]

    def config(self):
        return {"gamma_limit": list(self.gamma_limit)}


class ToGray(ColourTransform):
    """albumentations' ToGray into each of the 3 channels (``num_output_channels=3``), by its
    ``method``: ``"weighted_average"`` (OpenCV's 0.299 R + 0.587 G + 0.114 B, rounded to a
    level; other channels, alpha, stay), ``"from_lab"`` (L of OpenCV's 8-bit Lab, 0-255, the
    same level as ``cv2.cvtColor(img, cv2.COLOR_RGB2LAB)[..., 0]``; a float image through its
    levels ``rint(255 v)`` and back as L / 255, as albumentations converts it; alpha stays;
    uint16 refused), ``"average"`` ((R + G + B) / 3), ``"max"`` (max(R, G, B)) or
    ``"desaturation"`` ((max + min) / 2), the last three truncated to a level as
    albumentations' uint8 results are, on 3-channel images (albumentations takes every channel
    into those and returns 3: a 2- or 4-channel image is refused). Images of one channel, and
    of two for the weighted average and from_lab, are left as they are.

    Example:
        >>> import numpy as np, warpkit.augment as A
        >>> img = np.array([[[255, 0, 0], [40, 200, 90]]], np.uint8)
        >>> out = A.Compose([A.ToGray(method="from_lab", p=1)])(image=img, seed=0)
        >>> out["image"][0].tolist()            # L * 255 / 100 of each pixel, in 3 channels
        [[136, 136, 136], [182, 182, 182]]
    """

    @property
    def commutes(self) -> bool:  # type: ignore[override]
        """A function of each pixel's value, but for pca's statistics of the image."""
        return self.method != "pca"

    #: the methods taken, as the kernel's operation numbers them (kernels_cl/colour.h; pca:
    #: a COL_PCA of mode 1, kernels_cl/colour_pass.cl)
    METHODS = {"weighted_average": 0, "average": 1, "max": 2, "desaturation": 3,
               "from_lab": GRAY_FROM_LAB, "pca": -1}

    def __init__(self, num_output_channels: int = 3, method: str = "weighted_average",
                 p: float = 0.5) -> None:
        super().__init__(p)
        if method not in self.METHODS:
            raise ValueError(f"ToGray supports method={' or '.join(map(repr, self.METHODS))}, "
                             f"got {method!r}")
        if num_output_channels != 3:
            raise ValueError(f"ToGray supports num_output_channels=3 (the image keeps its "
                             f"channels), got {num_output_channels!r}")
        self.num_output_channels, self.method = 3, method

    def colour_ops(self, params, channels, peak):
        how = self.METHODS[self.method]
        if how == GRAY_FROM_LAB:
            raise ValueError("ToGray(method='from_lab') reads its table from the call's colour "
                             "table: a pipeline call makes its operations")
        if how and channels not in (1, 3):
            raise ValueError(f"ToGray(method={self.method!r}) takes images of 3 channels "
                             f"(albumentations makes 3 of all {channels}; warpkit keeps an "
                             f"image's channels), got {channels}")
        if channels < 3:
            return []
        if how < 0:  # (pca: FancyPCA's pass in its gray mode)
            return [[PCA, 0.0, 0.0, 0.0, 0.0, 1.0]]
        return [[GRAY, 0.299, 0.587, 0.114, float(how)]]

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> list[list[float]]:
        """:meth:`colour_ops`; from_lab's operation with its table (engine.lab.gray_table)
        in the call's colour table, once a call."""
        if self.METHODS[self.method] != GRAY_FROM_LAB:
            return self.colour_ops(params, channels, peak)
        if peak > 255:
            raise ValueError("ToGray(method='from_lab') takes uint8 or float32 images "
                             "(OpenCV's 8-bit Lab, as albumentations converts them), got uint16")
        if channels < 3:
            return []
        at = table_offset(memo, "ToGray from_lab", lab.gray_table)
        return [[GRAY, 0.0, 0.0, 0.0, float(GRAY_FROM_LAB), 0.0, float(at >> 16),
                 float(at & 0xFFFF)]]

    def config(self):
        return {"num_output_channels": 3, "method": self.method}


class RGBShift(ColourTransform):
    """albumentations' RGBShift: a shift per channel drawn from each limit (limits above 1 are
    levels of 255, as albumentations reads them; else fractions of the peak)."""

    commutes = True  # (a function of each pixel's value)

    def __init__(self, r_shift_limit: Any = (-20, 20), g_shift_limit: Any = (-20, 20),
                 b_shift_limit: Any = (-20, 20), p: float = 0.5) -> None:
        super().__init__(p)
        self.r_shift_limit = _signed(r_shift_limit, "r_shift_limit")
        self.g_shift_limit = _signed(g_shift_limit, "g_shift_limit")
        self.b_shift_limit = _signed(b_shift_limit, "b_shift_limit")

    def _fractions(self) -> list[tuple[float, float]]:
        return [(lo / 255.0, hi / 255.0) if abs(lo) > 1 or abs(hi) > 1 else (lo, hi)
                for lo, hi in (self.r_shift_limit, self.g_shift_limit, self.b_shift_limit)]

    def draw(self, rng, size):
        return {"shift": [float(rng.uniform(lo, hi)) for lo, hi in self._fractions()]}

    def draw_lanes(self, lanes, sizes):
        shifts = np.stack([lanes.uniform(lo, hi) for lo, hi in self._fractions()], 1)
        return [{"shift": row} for row in shifts.tolist()]

    def colour_ops(self, params, channels, peak):
        return [_affine([1.0] * 4, [s * peak for s in params["shift"][:channels]])]

    def config(self):
        return {"r_shift_limit": list(self.r_shift_limit),
                "g_shift_limit": list(self.g_shift_limit),
                "b_shift_limit": list(self.b_shift_limit)}


def key_order(keys: list[float], channels: int) -> list[int]:
    """The first ``channels`` of ``keys`` in increasing order, as channel indices (a uniform
    random order of the channels: ChannelShuffle's permutation, ChannelDropout's choice)."""
    return np.argsort(keys[:channels], kind="stable").tolist()


class ChannelShuffle(ColourTransform):
    """albumentations' ChannelShuffle: the channels in a random order (``keys``: four uniform
    numbers drawn; the order of the first C of them is the permutation of C channels)."""

    commutes = True  # (a function of each pixel's value)

    def draw(self, rng, size):
        return {"keys": rng.random(4).tolist()}

    def draw_lanes(self, lanes, sizes):
        return [{"keys": row} for row in lanes.random(k=4).tolist()]

    def colour_ops(self, params, channels, peak):
        order = key_order(params["keys"], channels)
        return [[SHUFFLE, *order]] if channels > 1 else []


class InvertImg(ColourTransform):
    """albumentations' InvertImg: ``peak - v``."""

    commutes = True  # (a function of each pixel's value)

    def colour_ops(self, params, channels, peak):
        return [_affine([-1.0] * 4, [peak] * 4)]


class Solarize(ColourTransform):
    """albumentations' Solarize: values at or above ``threshold * peak`` become ``peak - v``,
    the threshold drawn from ``threshold_range`` (in [0, 1])."""

    commutes = False  # (a step function of each value: a resampling between levels
    # lands on either side of a threshold)

    def __init__(self, threshold_range: Sequence[float] = (0.5, 0.5), p: float = 0.5) -> None:
        super().__init__(p)
        self.threshold_range = value_range(threshold_range, "threshold_range", False, 0.0, 1.0)[0]

    def draw(self, rng, size):
        return {"threshold": float(rng.uniform(*self.threshold_range))}

    def draw_lanes(self, lanes, sizes):
        return [{"threshold": t} for t in lanes.uniform(*self.threshold_range).tolist()]

    def colour_ops(self, params, channels, peak):
        return [[SOLARIZE, params["threshold"] * peak]]

    def config(self):
        return {"threshold_range": list(self.threshold_range)}


class Posterize(ColourTransform):
    """albumentations' Posterize: keep the ``num_bits`` high bits of each 8-bit level (float
    images as levels of 255); ``num_bits`` a number, (low, high) drawn per sample, or one such
    range per channel, in [0, 8] (0: black, 8: the levels as they are)."""

    commutes = False  # (a step function of each value: a resampling between levels
    # lands on either side of a threshold)

    def __init__(self, num_bits: Any = 4, p: float = 0.5) -> None:
        super().__init__(p)
        # a list of ranges is one per channel; a number or one (low, high) is for all
        self.per_channel = isinstance(num_bits, list) and bool(num_bits) and \
            not isinstance(num_bits[0], numbers.Real)
        self.num_bits = [self._range(r) for r in (num_bits if self.per_channel else [num_bits])]

    @staticmethod
    def _range(r: Any) -> tuple[int, int]:
        lo, hi = (r, r) if isinstance(r, numbers.Integral) else tuple(r)
        # (albumentations refuses a number past [1, 7] but draws any range: 0 bits give
        # black, 8 the image as it is; past 8 its mask overflows)
        if not (isinstance(lo, numbers.Integral) and isinstance(hi, numbers.Integral)
                and 0 <= lo <= hi <= 8):
            raise ValueError(f"num_bits must be whole numbers of bits in [0, 8], got {r!r}")
        return int(lo), int(hi)

    def draw(self, rng, size):
        return {"num_bits": [int(rng.integers(lo, hi + 1)) for lo, hi in self.num_bits]}

    def draw_lanes(self, lanes, sizes):
        bits = np.stack([lanes.integers(lo, hi + 1) for lo, hi in self.num_bits], 1)
        return [{"num_bits": row} for row in bits.tolist()]

    def colour_ops(self, params, channels, peak):
        bits = params["num_bits"]
        bits = bits * 4 if len(bits) == 1 else bits + [8] * (4 - len(bits))
        return [[POSTERIZE, *map(float, bits[:4])]]

    def config(self):
        nb = [list(r) for r in self.num_bits]
        return {"num_bits": nb if self.per_channel else nb[0]}


class ColorJitter(ColourTransform):
    """albumentations' ColorJitter: brightness, contrast, saturation and hue factors drawn per
    sample, applied in an order drawn per sample (recorded as ``order``: 0 brightness,
    1 contrast, 2 saturation, 3 hue), with torchvision's formulas on OpenCV's conversions as
    albumentations applies them:

    - brightness: ``v * b``;
    - contrast: ``v * c + mean * (1 - c)``, ``mean`` the gray mean of the image as this step
      finds it (computed on the device, in a pass after the warp: the mean needs the whole
      image);
    - saturation: ``v * s + gray * (1 - s)`` (OpenCV's addWeighted, rounded);
    - hue: the hue turned by ``h`` turns in OpenCV's HSV (uint8: its 8-bit HSV, hue in
      [0, 180)).

    ``brightness``, ``contrast``, ``saturation``: ``x`` means (max(0, 1 - x), 1 + x), or a pair;
    ``hue``: ``x`` means (-x, x), or a pair in [-0.5, 0.5]. Images of 1 or 3 channels, uint8 or
    float32 (saturation and hue leave a 1-channel image as it is).

    Example:
        >>> t = ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1, p=0.8)
        >>> t.brightness, t.hue
        ((0.6, 1.4), (-0.1, 0.1))
    """

    @property
    def commutes(self) -> bool:  # type: ignore[override]
        """Pointwise unless its contrast, which reads the image's gray mean, may change it."""
        return tuple(self.contrast) == (1.0, 1.0)

    def __init__(self, brightness: Any = (0.8, 1.2), contrast: Any = (0.8, 1.2),
                 saturation: Any = (0.8, 1.2), hue: Any = (-0.5, 0.5), p: float = 0.5) -> None:
        super().__init__(p)
        self.brightness = _factor(brightness, "brightness")
        self.contrast = _factor(contrast, "contrast")
        self.saturation = _factor(saturation, "saturation")
        if isinstance(hue, numbers.Real) and not isinstance(hue, bool):
            if not 0 <= hue <= 0.5:
                raise ValueError(f"hue must be in [0, 0.5] as a single number, got {hue!r}")
            hue = (-float(hue), float(hue))
        self.hue = value_range(hue, "hue", False, -0.5, 0.5)[0]

    def _ranges(self) -> list[tuple[float, float]]:
        return [self.brightness, self.contrast, self.saturation, self.hue]

    def draw(self, rng, size):
        # uniform(lo, hi) is lo + (hi - lo) * random() in numpy: the four doubles in one call
        f = [lo + (hi - lo) * u for (lo, hi), u in zip(self._ranges(), rng.random(4).tolist())]
        order = np.argsort(rng.random(4), kind="stable").tolist()
        return {"brightness": f[0], "contrast": f[1], "saturation": f[2], "hue": f[3],
                "order": order}

    def draw_lanes(self, lanes, sizes):
        f = np.stack([lanes.uniform(lo, hi) for lo, hi in self._ranges()], 1).tolist()
        orders = np.argsort(lanes.random(k=4), axis=1, kind="stable").tolist()
        return [{"brightness": b, "contrast": c, "saturation": s, "hue": h, "order": o}
                for (b, c, s, h), o in zip(f, orders)]

    def colour_ops(self, params, channels, peak):
        _one_or_three("ColorJitter", channels)
        _eight_bit("ColorJitter", peak)
        ops = []
        for i in params["order"]:
            if i == 0 and params["brightness"] != 1:
                ops.append(_affine([params["brightness"]] * 4, [0.0] * 4))
            elif i == 1 and params["contrast"] != 1:
                ops.append([CONTRAST, params["contrast"]])
            elif i == 2 and params["saturation"] != 1 and channels == 3:
                ops.append([SATURATE, params["saturation"], 1.0 - params["saturation"]])
            elif i == 3 and params["hue"] != 0 and channels == 3:
                ops.append([HUE, params["hue"]])
        return ops

    def config(self):
        return {"brightness": list(self.brightness), "contrast": list(self.contrast),
                "saturation": list(self.saturation), "hue": list(self.hue)}


class HueSaturationValue(ColourTransform):
    """albumentations' HueSaturationValue: shifts drawn from each limit (``x`` means (-x, x)),
    added in OpenCV's 8-bit HSV: the hue in its units (180 a turn, modulo 180, truncated as
    albumentations' table), the saturation and value in levels (each shift truncated to a whole
    level; a gray pixel's saturation stays 0). Float images go through levels of 255 (rounded
    in and out), as albumentations does; a 1-channel image gets the value shift only.

    Example:
        >>> t = HueSaturationValue(hue_shift_limit=10, sat_shift_limit=(-20, 20), p=1)
        >>> t.colour_ops({"hue_shift": 4.5, "sat_shift": -7.8, "val_shift": 2.2}, 3, 255.0)
        [[10, 4.5, -7.0, 2.0]]
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, hue_shift_limit: Any = (-20, 20), sat_shift_limit: Any = (-30, 30),
                 val_shift_limit: Any = (-20, 20), p: float = 0.5) -> None:
        super().__init__(p)
        self.hue_shift_limit = _signed(hue_shift_limit, "hue_shift_limit")
        self.sat_shift_limit = _signed(sat_shift_limit, "sat_shift_limit")
        self.val_shift_limit = _signed(val_shift_limit, "val_shift_limit")

    def _ranges(self) -> list[tuple[float, float]]:
        return [self.hue_shift_limit, self.sat_shift_limit, self.val_shift_limit]

    def draw(self, rng, size):
        h, s, v = (float(rng.uniform(lo, hi)) for lo, hi in self._ranges())
        return {"hue_shift": h, "sat_shift": s, "val_shift": v}

    def draw_lanes(self, lanes, sizes):
        f = np.stack([lanes.uniform(lo, hi) for lo, hi in self._ranges()], 1).tolist()
        return [{"hue_shift": h, "sat_shift": s, "val_shift": v} for h, s, v in f]

    def colour_ops(self, params, channels, peak):
        _one_or_three("HueSaturationValue", channels)
        _eight_bit("HueSaturationValue", peak)
        h, s, v = params["hue_shift"], params["sat_shift"], params["val_shift"]
        if channels == 1:
            h = s = 0.0
        if h == 0 and s == 0 and v == 0:
            return []
        return [[HSV, h, float(math.trunc(s)), float(math.trunc(v))]]

    def config(self):
        return {"hue_shift_limit": list(self.hue_shift_limit),
                "sat_shift_limit": list(self.sat_shift_limit),
                "val_shift_limit": list(self.val_shift_limit)}


#: a sample's key for the kernel's counter-based generator: three words drawn from its stream
#: (24, 24 and 16 bits: exact in the float32 operation words; 64 bits of Philox key)
KEY_WORDS = (1 << 24, 1 << 24, 1 << 16)


def draw_key(rng) -> list[int]:
    """A sample's generator key (:data:`KEY_WORDS`) from its stream."""
    return [int(rng.integers(0, n)) for n in KEY_WORDS]


def draw_keys(lanes) -> list[list[int]]:
    """:func:`draw_key` for every lane: the same words, call for call."""
    return np.stack([lanes.integers(0, n) for n in KEY_WORDS], 1).tolist()


class GaussNoise(ColourTransform):
    """albumentations' GaussNoise: a normal noise of standard deviation ``std`` and mean
    ``mean`` (fractions of the peak: 255 for uint8, 1 for float images), each drawn per sample
    from ``std_range`` and ``mean_range``, added to every pixel (``per_channel``: a number per
    channel, else one per pixel for all channels), clipped; uint8 adds it truncated toward zero
    as albumentations does. ``noise_scale_factor`` < 1 draws the noise on a grid that much
    smaller and resizes it linearly (coarser grain).

    The noise comes from a counter-based generator in the kernel (Philox-4x32-10), keyed on the
    sample's stream (``key``, recorded) and the pixel's position in the output: the same alone,
    in any batch, on any device, and never stored. It is drawn on the output's pixels (a warp
    after it does not move it); albumentations draws it with OpenCV's generator, so the two
    agree in distribution, not pixel for pixel.

    Example:
        >>> t = GaussNoise(std_range=(0.1, 0.1), p=1)
        >>> t.colour_ops({"std": 0.1, "mean": 0.0, "key": [1, 2, 3]}, 3, 255.0)[0][4]
        25.5
    """

    def __init__(self, std_range: Any = (0.2, 0.44), mean_range: Any = (0.0, 0.0),
                 per_channel: bool = True, noise_scale_factor: float = 1.0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.std_range = value_range(std_range, "std_range", False, 0.0, 1.0)[0]
        self.mean_range = value_range(mean_range, "mean_range", False, -1.0, 1.0)[0]
        self.per_channel = bool(per_channel)
        f = float(noise_scale_factor)
        if not 0 < f <= 1:
            raise ValueError(f"noise_scale_factor must be in (0, 1], got {noise_scale_factor!r}")
        self.noise_scale_factor = f

    def draw(self, rng, size):
        # albumentations' order: the deviation, the mean, then the generator's seed
        std, mean = float(rng.uniform(*self.std_range)), float(rng.uniform(*self.mean_range))
        return {"std": std, "mean": mean, "key": draw_key(rng), **self._grid(size)}

    def draw_lanes(self, lanes, sizes):
        std, mean = lanes.uniform(*self.std_range).tolist(), lanes.uniform(*self.mean_range).tolist()
        return [{"std": s, "mean": m, "key": k, **self._grid(z)}
                for s, m, k, z in zip(std, mean, draw_keys(lanes), sizes)]

    def _grid(self, size) -> dict:
        """The coarse grid's size (albumentations': int(side * factor), at least 1)."""
        if self.noise_scale_factor == 1:
            return {}
        return {"grid": [max(1, int(size[0] * self.noise_scale_factor)),
                         max(1, int(size[1] * self.noise_scale_factor))]}

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"GaussNoise takes images of at most 4 channels, got {channels}")
        grid = params.get("grid", [0, 0])
        return [[NOISE, *map(float, params["key"]), params["std"] * peak,
                 params["mean"] * peak, float(self.per_channel), *map(float, grid)]]

    def config(self):
        return {"std_range": list(self.std_range), "mean_range": list(self.mean_range),
                "per_channel": self.per_channel, "noise_scale_factor": self.noise_scale_factor}


def gaussian_kernel(sigma: float, ksize: int) -> np.ndarray:
    """albumentations' 1-D Gaussian kernel (float64, normalised): ``ksize`` taps (0: from sigma,
    ``int(sigma * 3.5) * 2 + 1``, as Pillow; even sizes one more), ``exp(-x^2 / (2 sigma^2))``
    at the whole offsets from the centre; sigma 0: the identity (one tap)."""
    size = int(sigma * 3.5) * 2 + 1 if ksize == 0 else int(ksize)
    size += size % 2 == 0
    if sigma <= 0:
        return np.ones(1)
    x = np.arange(-(size // 2), size // 2 + 1, dtype=np.float64)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


def _non_negative(value: Any, arg: str, integer: bool = False) -> tuple[float, float]:
    """albumentations' non-negative range: ``x`` means (0, x); a pair is (low, high)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = (0, value)
    pair = value_range(value, arg, False, 0.0, math.inf)[0]
    if integer and not all(float(v).is_integer() for v in pair):
        raise ValueError(f"{arg} must be whole numbers, got {value!r}")
    return (int(pair[0]), int(pair[1])) if integer else pair


def _with_data(head: list[float], values: list[float]) -> list[list[float]]:
    """An operation (``head``: its code and first words) whose ``values`` follow its own words
    and continue in WK_COL_DATA operations after it (kernels_cl/colour_pass.cl reads them in
    order)."""
    first = WORDS - len(head)
    rest = values[first:]
    return [head + values[:first]] + [[DATA, *rest[i:i + WORDS - 1]]
                                      for i in range(0, len(rest), WORDS - 1)]


class GaussianBlur(ColourTransform):
    """albumentations' GaussianBlur: a separable Gaussian filter on the resampled image, sigma
    drawn from ``sigma_limit`` and the kernel's size from ``blur_limit`` (0: from sigma,
    ``int(sigma * 3.5) * 2 + 1`` as Pillow; an even size is one more; a number ``x`` means
    (0, x) for either), edges reflected without repeating the edge pixel (OpenCV's default).

    It runs on the device in a pass after the warp (kernels_cl/colour_pass.cl: the rows, then
    the columns with the operations after it), on the image as the steps before it left it:
    integer images are rounded to the nearest level as OpenCV stores them; float images are
    clipped to [0, 1] on the way in, as every colour operation does. A sigma drawn as 0 leaves
    the image as it is. Kernels of up to 255 taps (a radius of 127: sigma up to 36 when the
    size comes from sigma) are taken; ranges that can reach more are refused.

    Example:
        >>> t = GaussianBlur(sigma_limit=(1.0, 1.0), p=1)
        >>> ops = t.colour_ops({"sigma": 1.0, "ksize": 0}, 3, 255.0)
        >>> ops[0][:2], round(ops[0][2], 4)   # the code, the radius, the centre's weight
        ([14, 3.0], 0.3991)
    """

    def __init__(self, blur_limit: Any = 0, sigma_limit: Any = (0.5, 3.0),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _non_negative(blur_limit, "blur_limit", integer=True)
        self.sigma_limit = _non_negative(sigma_limit, "sigma_limit")
        lo, hi = self.blur_limit
        largest = max(hi + (hi % 2 == 0), int(self.sigma_limit[1] * 3.5) * 2 + 1 if lo == 0 else 0)
        if largest // 2 > MAX_BLUR_RADIUS:
            raise ValueError(f"GaussianBlur's kernel can reach {largest} taps (blur_limit="
                             f"{list(self.blur_limit)}, sigma_limit={list(self.sigma_limit)}); "
                             f"warpkit filters up to {2 * MAX_BLUR_RADIUS + 1} taps (a radius "
                             f"of {MAX_BLUR_RADIUS}, sigma up to 36 from blur_limit 0)")

    def draw(self, rng, size):
        # albumentations' order: sigma, then the size
        sigma = float(rng.uniform(*self.sigma_limit))
        return {"sigma": sigma, "ksize": int(rng.integers(self.blur_limit[0],
                                                          self.blur_limit[1] + 1))}

    def draw_lanes(self, lanes, sizes):
        sigma = lanes.uniform(*self.sigma_limit).tolist()
        ksize = lanes.integers(self.blur_limit[0], self.blur_limit[1] + 1).tolist()
        return [{"sigma": s, "ksize": k} for s, k in zip(sigma, ksize)]

    def colour_ops(self, params, channels, peak):
        k = gaussian_kernel(params["sigma"], params["ksize"])
        r = len(k) // 2
        if r == 0:
            return []
        # the weights of offsets 0 .. r (the kernel is symmetric)
        return _with_data([BLUR, float(r)], k[r:].astype(np.float32).tolist())

    def config(self):
        return {"blur_limit": list(self.blur_limit), "sigma_limit": list(self.sigma_limit)}


def _kernel_sizes(value: Any, arg: str) -> tuple[int, int]:
    """albumentations' blur_limit for the box-like blurs: ``x`` means (3, x); sizes below 3 are
    raised to 3 and even ones to the next odd size, with albumentations' warning."""
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    lo, hi = _non_negative((3, value) if number else value, arg, integer=True)
    fixed = max(3, lo), max(3, hi)
    fixed = tuple(v if v % 2 else v + 1 for v in fixed)
    if fixed != (lo, hi):
        warnings.warn(f"{arg}: kernel sizes must be odd and at least 3; range {(lo, hi)} "
                      f"adjusted to {fixed} (as albumentations does)", UserWarning, stacklevel=3)
    return fixed


def _odd_size(rng, limit: tuple[int, int]) -> int:
    """An odd kernel size drawn from ``limit`` (odd bounds, :func:`_kernel_sizes`) as
    albumentations' ``sample_odd_from_range``: one of the odd sizes, each as likely, nothing
    drawn when there is one."""
    lo, hi = limit
    return lo if lo == hi else lo + 2 * int(rng.integers(0, (hi - lo) // 2 + 1))


def _odd_sizes(lanes, limit: tuple[int, int], n: int) -> list[int]:
    """:func:`_odd_size` for each of ``n`` lanes (the same numbers)."""
    lo, hi = limit
    return [lo] * n if lo == hi else (lo + 2 * lanes.integers(0, (hi - lo) // 2 + 1)).tolist()


class _SizedBlur(ColourTransform):
    """A blur whose one parameter is an odd size drawn from ``blur_limit`` (albumentations'
    ``x`` means (3, x); sizes below 3 or even are adjusted as albumentations adjusts them, with
    its warning), up to :attr:`largest`: :class:`Blur` and :class:`MedianBlur`."""

    largest = 1

    def __init__(self, blur_limit: Any = (3, 7), p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _kernel_sizes(blur_limit, "blur_limit")
        if self.blur_limit[1] > self.largest:
            raise ValueError(self._too_large())

    def _too_large(self) -> str:
        raise NotImplementedError

    def draw(self, rng, size):
        return {"ksize": _odd_size(rng, self.blur_limit)}

    def draw_lanes(self, lanes, sizes):
        return [{"ksize": k} for k in _odd_sizes(lanes, self.blur_limit, len(sizes))]

    def config(self):
        return {"blur_limit": list(self.blur_limit)}


class Blur(_SizedBlur):
    """albumentations' Blur: the mean of the ``ksize`` x ``ksize`` square around each pixel (a
    box filter, OpenCV's ``cv2.blur``), the size an odd number drawn from ``blur_limit`` (``x``
    means (3, x); sizes below 3 or even are adjusted as albumentations adjusts them, with its
    warning), edges reflected without repeating the edge pixel (OpenCV's default).

    It runs on the device in the pass after the warp that :class:`GaussianBlur` takes (the rows,
    then the columns with the operations after it, each weighing ``1 / ksize``), on the image as
    the steps before it left it: integer images are rounded to the nearest level, as OpenCV
    stores them. Sizes up to 255 are taken; ranges that can reach more are refused.

    Example:
        >>> t = Blur(blur_limit=(5, 5), p=1)
        >>> ops = t.colour_ops({"ksize": 5}, 3, 255.0)
        >>> ops[0][:2], [round(w, 4) for w in ops[0][2:5]]   # the code, the radius, 1 / 5 each
        ([14, 2.0], [0.2, 0.2, 0.2])
    """

    largest = 2 * MAX_BLUR_RADIUS + 1

    def _too_large(self) -> str:
        return (f"Blur's kernel can reach {self.blur_limit[1]} taps (blur_limit="
                f"{list(self.blur_limit)}); warpkit filters up to {self.largest} taps")

    def colour_ops(self, params, channels, peak):
        ksize = int(params["ksize"])
        # the weights of offsets 0 .. r: rows and then columns, 1 / ksize each
        return _with_data([BLUR, float(ksize // 2)],
                          [float(np.float32(1) / np.float32(ksize))] * (ksize // 2 + 1))


class MedianBlur(_SizedBlur):
    """albumentations' MedianBlur: each channel's median of the ``ksize`` x ``ksize`` square
    around each pixel (OpenCV's ``cv2.medianBlur``), the size an odd number drawn from
    ``blur_limit`` as :class:`Blur` draws it, the edge pixels repeated (OpenCV's median repeats
    them, where the other blurs reflect).

    It runs on the device in a pass after the warp, on the image as the steps before it left it
    (``colour_apply`` in kernels_cl/colour_pass.cl: the median of every pixel's square, then the
    operations after it in the same launch). The median is exact: it is taken on 8-bit levels,
    as albumentations filters (a float32 image as ``rint(255 v)``, the result back as
    ``level / 255``); uint16 images are refused (albumentations takes uint8 and float32). Sizes
    3, 5 and 7 run selection networks; larger ones, up to 31, a slower search.

    Example:
        >>> MedianBlur(blur_limit=(5, 5), p=1).colour_ops({"ksize": 5}, 3, 255.0)
        [[17, 5.0]]
    """

    largest = MAX_MEDIAN_SIZE

    def _too_large(self) -> str:
        return (f"MedianBlur's size can reach {self.blur_limit[1]} (blur_limit="
                f"{list(self.blur_limit)}); warpkit takes medians of up to {self.largest} x "
                f"{self.largest} pixels")

    def colour_ops(self, params, channels, peak):
        _eight_bit("MedianBlur", peak)
        return [[MEDIAN, float(params["ksize"])]]


class _OneUniform(ColourTransform):
    """A colour transform whose one parameter (:attr:`_param`) is drawn uniformly from the
    range in the attribute :attr:`_range`."""

    _param = ""
    _range = ""

    def draw(self, rng, size):
        return {self._param: float(rng.uniform(*getattr(self, self._range)))}

    def draw_lanes(self, lanes, sizes):
        return [{self._param: v} for v in lanes.uniform(*getattr(self, self._range)).tolist()]


class CLAHE(_OneUniform):
    """albumentations' CLAHE: contrast-limited adaptive histogram equalisation (OpenCV's
    ``cv2.createCLAHE(clip_limit, tile_grid_size).apply``): each tile of a ``tile_grid_size``
    grid (tiles along x, along y, as OpenCV takes it) equalises its histogram, clipped at
    ``clip_limit`` times the mean bin and the excess spread over every level, and each pixel
    takes its level from its 4 nearest tiles' tables, bilinearly. An image of 3 channels is
    equalised on the L of OpenCV's 8-bit Lab and converted back (its a and b kept), one of 1
    channel on its levels; the clip limit is drawn from ``clip_limit`` per sample (a number
    ``x`` means (1, x), as albumentations).

    It runs on the device in a pass after the warp, on the image as the steps before it left it
    (kernels_cl/colour_pass.cl: ``colour_clahe_hist`` counts the tiles' levels,
    ``colour_clahe_lut`` makes their tables, ``colour_apply`` interpolates them, then runs the
    operations after it). It works on 8-bit levels as
    albumentations does (a float32 image as ``rint(255 v)``, the result back as
    ``level / 255``), with OpenCV's own fixed-point Lab conversions and arithmetic
    (warpkit/engine/lab.py), so a fixed clip limit gives albumentations' image within a level.
    uint16 images and images of 2 or 4 channels are refused (albumentations takes 1 and 3
    channels, uint8 and float32); at most 64 tiles per axis.

    Example:
        >>> t = CLAHE(clip_limit=(2.0, 2.0), tile_grid_size=(8, 8), p=1)
        >>> t.colour_ops({"clip_limit": 2.0}, 3, 255.0)
        [[19, 2.0, 0.0, 0.0, 8.0, 8.0]]
    """

    def __init__(self, clip_limit: Any = 4.0, tile_grid_size: Sequence[int] = (8, 8),
                 p: float = 0.5) -> None:
        super().__init__(p)
        if isinstance(clip_limit, numbers.Real) and not isinstance(clip_limit, bool):
            clip_limit = (1.0, clip_limit)
        self.clip_limit = value_range(clip_limit, "clip_limit", False, 1.0, math.inf)[0]
        grid = tuple(tile_grid_size) if isinstance(tile_grid_size, (list, tuple)) else ()
        if len(grid) != 2 or not all(isinstance(g, numbers.Integral) and not isinstance(g, bool)
                                     and 1 <= g <= MAX_CLAHE_TILES for g in grid):
            raise ValueError(f"tile_grid_size must be two whole numbers of tiles in [1, "
                             f"{MAX_CLAHE_TILES}] (along x, along y), got {tile_grid_size!r}")
        self.tile_grid_size = (int(grid[0]), int(grid[1]))

    _param = _range = "clip_limit"

    def colour_ops(self, params, channels, peak):
        _eight_bit("CLAHE", peak)
        _one_or_three("CLAHE", channels)
        # the limit exactly, in three float32 words (the host floors a product of it)
        return [[CLAHE_OP, *split(float(params["clip_limit"])),
                 *map(float, self.tile_grid_size)]]

    def config(self):
        return {"clip_limit": list(self.clip_limit), "tile_grid_size": list(self.tile_grid_size)}


class Downscale(_OneUniform):
    """albumentations' Downscale: the image shrunk by a scale drawn from ``scale_range`` and
    brought back to its size by OpenCV's ``cv2.resize``, down and up by the interpolations of
    ``interpolation_pair`` (``{"downscale": ..., "upscale": ...}``, OpenCV's codes:
    ``cv2.INTER_NEAREST`` 0, ``INTER_LINEAR`` 1, ``INTER_CUBIC`` 2, ``INTER_AREA`` 3,
    ``INTER_LANCZOS4`` 4, ``INTER_LINEAR_EXACT`` 5, ``INTER_NEAREST_EXACT`` 6: every code
    albumentations takes; its default nearest both ways): as a low resolution
    source looks. On the image as the steps before it left it, in a pass after the warp, on
    8-bit levels as albumentations (a float32 image as ``rint(255 v) / 255``):

    - nearest both ways: the two resizes compose to one source pixel per output column and
      row, tabulated on the host in double as OpenCV computes them, and gathered
      (kernels_cl/colour_pass.cl's ``cp_gather8``): exact;
    - any other pair: two real resamplings, each with OpenCV's taps (``engine/resize8.py``:
      its positions, weights and edge rules, its area cells, its fixed point) and rounded to
      levels as OpenCV rounds them (``colour_rescale_small``, ``colour_rescale_rows``, then
      ``colour_apply``).

    uint16 is refused (albumentations takes uint8 and float32).

    Example:
        >>> Downscale(scale_range=(0.5, 0.5), p=1).colour_ops({"scale": 0.5}, 3, 255.0)
        [[20, 0.5, 0.0, 0.0, 0, 0]]
        >>> Downscale((0.5, 0.5), {"downscale": 3, "upscale": 1}, p=1).colour_ops(
        ...     {"scale": 0.5}, 3, 255.0)
        [[20, 0.5, 0.0, 0.0, 3, 1]]
    """

    def __init__(self, scale_range: Sequence[float] = (0.25, 0.25),
                 interpolation_pair: dict | None = None, p: float = 0.5) -> None:
        super().__init__(p)
        self.scale_range = value_range(scale_range, "scale_range", False, 0.0, 1.0)[0]
        if self.scale_range[0] <= 0:
            raise ValueError(f"scale_range must lie in (0, 1], got {scale_range!r}")
        pair = {"downscale": 0, "upscale": 0} if interpolation_pair is None \
            else dict(interpolation_pair)
        known = {0: "cv2.INTER_NEAREST", 1: "cv2.INTER_LINEAR", 2: "cv2.INTER_CUBIC",
                 3: "cv2.INTER_AREA", 4: "cv2.INTER_LANCZOS4", 5: "cv2.INTER_LINEAR_EXACT",
                 6: "cv2.INTER_NEAREST_EXACT"}
        if set(pair) != {"downscale", "upscale"} or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool) and int(v) in known
                for v in pair.values()):
            raise ValueError(f"Downscale(interpolation_pair={interpolation_pair!r}) is not "
                             f"supported: warpkit takes {{'downscale': d, 'upscale': u}} with "
                             f"d and u among " + ", ".join(f"{k} ({v})" for k, v in
                                                          known.items()))
        self.interpolation_pair = {"downscale": int(pair["downscale"]),
                                   "upscale": int(pair["upscale"])}

    _param, _range = "scale", "scale_range"

    def colour_ops(self, params, channels, peak):
        _eight_bit("Downscale", peak)
        # the scale exactly, in three float32 words (the host's tables floor with it)
        return [[DOWNSCALE, *split(float(params["scale"])),
                 self.interpolation_pair["downscale"], self.interpolation_pair["upscale"]]]

    def config(self):
        return {"scale_range": list(self.scale_range),
                "interpolation_pair": dict(self.interpolation_pair)}


class _Filter3(ColourTransform):
    """A 3x3 filter blended with the image by ``alpha`` (albumentations' Sharpen and Emboss:
    ``(1 - alpha) * identity + alpha * effect``, OpenCV's filter2D with it, clipped): alpha
    drawn from ``alpha`` (within [0, 1]), then the effect's number from :attr:`_second`'s
    range; the kernel made in float32 as albumentations makes it. It runs on the device in a
    pass after the warp (``colour_apply``: 9 taps, edges reflected as OpenCV reflects them, the
    weights summed in OpenCV's order), then the operations after it."""

    _second = ""

    def __init__(self, alpha: Any, second: Any, p: float) -> None:
        super().__init__(p)
        self.alpha = value_range(alpha, "alpha", False, 0.0, 1.0)[0]
        setattr(self, self._second, value_range(second, self._second, False, 0.0, math.inf)[0])

    def draw(self, rng, size):
        # albumentations' order: alpha, then the effect's number
        alpha = float(rng.uniform(*self.alpha))
        return {"alpha": alpha, self._second: float(rng.uniform(*getattr(self, self._second)))}

    def draw_lanes(self, lanes, sizes):
        alpha = lanes.uniform(*self.alpha).tolist()
        other = lanes.uniform(*getattr(self, self._second)).tolist()
        return [{"alpha": a, self._second: o} for a, o in zip(alpha, other)]

    def _effect(self, value: float) -> np.ndarray:
        raise NotImplementedError

    def kernel(self, params: dict) -> np.ndarray:
        """The 3x3 float32 kernel of these parameters, albumentations' arithmetic."""
        alpha = params["alpha"]
        nochange = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=np.float32)
        return (1 - alpha) * nochange + alpha * self._effect(params[self._second])

    def colour_ops(self, params, channels, peak):
        return [[CONV, *self.kernel(params).astype(np.float32).ravel().tolist()]]

    def config(self):
        return {"alpha": list(self.alpha), self._second: list(getattr(self, self._second))}


class Sharpen(_Filter3):
    """albumentations' Sharpen (its ``method="kernel"``): the Laplacian-like kernel
    ``[[-1, -1, -1], [-1, 8 + lightness, -1], [-1, -1, -1]]`` blended with the identity by
    ``alpha``, filtered as OpenCV's filter2D (edges reflected) and clipped, on the image as the
    steps before it left it (a pass after the warp). ``method="gaussian"`` (an unsharp mask)
    is refused, and so are ``kernel_size`` and ``sigma`` other than their defaults (they serve
    only that method).

    Example:
        >>> t = Sharpen(alpha=(0.5, 0.5), lightness=(1.0, 1.0), p=1)
        >>> t.kernel({"alpha": 0.5, "lightness": 1.0})[1].tolist()
        [-0.5, 5.0, -0.5]
    """

    _second = "lightness"

    def __init__(self, alpha: Any = (0.2, 0.5), lightness: Any = (0.5, 1.0),
                 method: str = "kernel", kernel_size: int = 5, sigma: float = 1.0,
                 p: float = 0.5) -> None:
        if method != "kernel":
            raise ValueError(f"Sharpen(method={method!r}) is not supported: warpkit takes "
                             f"method='kernel'")
        if kernel_size != 5 or sigma != 1.0:
            raise ValueError(f"Sharpen's kernel_size and sigma serve method='gaussian', which "
                             f"warpkit does not take; got kernel_size={kernel_size!r}, "
                             f"sigma={sigma!r}")
        super().__init__(alpha, lightness, p)

    def _effect(self, value):
        return np.array([[-1, -1, -1], [-1, 8 + value, -1], [-1, -1, -1]], dtype=np.float32)


class Emboss(_Filter3):
    """albumentations' Emboss: the kernel ``[[-1 - s, -s, 0], [-s, 1, s], [0, s, 1 + s]]``
    (``s`` the strength) blended with the identity by ``alpha``, filtered as OpenCV's filter2D
    (edges reflected) and clipped, on the image as the steps before it left it (a pass after
    the warp).

    Example:
        >>> t = Emboss(alpha=(1.0, 1.0), strength=(0.5, 0.5), p=1)
        >>> t.kernel({"alpha": 1.0, "strength": 0.5})[0].tolist()
        [-1.5, -0.5, 0.0]
    """

    _second = "strength"

    def __init__(self, alpha: Any = (0.2, 0.5), strength: Any = (0.2, 0.7),
                 p: float = 0.5) -> None:
        super().__init__(alpha, strength, p)

    def _effect(self, value):
        return np.array([[-1 - value, 0 - value, 0], [0 - value, 1, 0 + value],
                         [0, 0 + value, 1 + value]], dtype=np.float32)


def motion_taps(ksize: int, angle: float, direction: float,
                shift: Sequence[float] | None) -> np.ndarray:
    """albumentations' motion kernel as taps: the (dx, dy) offsets from the centre of the
    points of a line of ``ksize`` samples at ``angle`` degrees, its extent biased by
    ``direction`` in [-1, 1] and moved by ``shift`` (two numbers in [-1, 1], times a quarter of
    the size) where drawn, each point rounded to the grid (OpenCV's filter2D then averages them:
    every tap weighs the same)."""
    direction = min(max(float(direction), -1.0), 1.0)
    half = ksize // 2  # also the centre
    t0, t1 = float(-half), float(half)
    if direction < 0:
        t1 = half * (1 - abs(direction))
    elif direction > 0:
        t0 = -half * (1 - direction)
    # numpy.linspace(t0, t1, ksize) and the line's points in Python floats, the same operations
    # (numpy's calls on a few values cost a MotionBlur sample ~80 us): i * step + t0, the last
    # point t1 itself; the angle's cosine and sine from numpy, as before
    div = ksize - 1
    delta = t1 - t0
    if div <= 0:  # one point (numpy: its step undefined, the point 0 * delta + t0)
        t = [0.0 * delta + t0]
    else:
        step = delta / div
        t = [(i / div) * delta + t0 if step == 0 else i * step + t0 for i in range(ksize)]
        t[-1] = t1
    rad = np.deg2rad(angle)
    cos, sin = float(np.cos(rad)), float(np.sin(rad))
    dx, dy = (shift[0] * half / 2, shift[1] * half / 2) if shift is not None else (0.0, 0.0)
    top = ksize - 1
    cells = set()
    for v in t:
        x, y = half + cos * v, half + sin * v
        if shift is not None:
            x, y = x + dx, y + dy
        cells.add(min(max(round(y), 0), top) * ksize + min(max(round(x), 0), top))
    # each point once, row by row as the kernel's order
    return np.array([(c % ksize - half, c // ksize - half) for c in sorted(cells)],
                    np.int64).reshape(-1, 2)


class MotionBlur(ColourTransform):
    """albumentations' MotionBlur: the mean along a line through each pixel. The kernel's size
    is an odd number drawn from ``blur_limit`` (``x`` means (3, x); sizes below 3 or even are
    adjusted as albumentations adjusts them, with its warning), the line's angle from
    ``angle_range`` (degrees), its bias forward or backward from ``direction_range`` (-1 .. 1),
    and with ``allow_shifted`` a shift of the line off the centre; the line's points rounded to
    the kernel's grid weigh the same (:func:`motion_taps`). Edges are reflected as OpenCV's
    filter2D reflects them.

    It runs on the device in a pass after the warp, on the image as the steps before it left it
    (as :class:`GaussianBlur`: the taps in colour_pass.cl's colour_apply, the operations after
    it in the same launch).

    Example:
        >>> t = MotionBlur(blur_limit=(5, 5), angle_range=(0, 0), direction_range=(0, 0),
        ...                allow_shifted=False, p=1)
        >>> motion_taps(5, 0.0, 0.0, None)[:, 0].tolist()   # a horizontal line of 5
        [-2, -1, 0, 1, 2]
    """

    def __init__(self, blur_limit: Any = (3, 7), allow_shifted: bool = True,
                 angle_range: Any = (0, 360), direction_range: Any = (-1.0, 1.0),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _kernel_sizes(blur_limit, "blur_limit")
        self.allow_shifted = bool(allow_shifted)
        self.angle_range = value_range(angle_range, "angle_range", False, 0.0, 360.0)[0]
        self.direction_range = value_range(direction_range, "direction_range", False,
                                           -1.0, 1.0)[0]

    def draw(self, rng, size):
        # albumentations' order: the size, the angle, the direction, then the shift
        p = {"ksize": _odd_size(rng, self.blur_limit),
             "angle": float(rng.uniform(*self.angle_range)),
             "direction": float(rng.uniform(*self.direction_range))}
        if self.allow_shifted:
            p["shift"] = [float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))]
        return p

    def draw_lanes(self, lanes, sizes):
        n = len(sizes)
        ksize = _odd_sizes(lanes, self.blur_limit, n)
        angle = lanes.uniform(*self.angle_range).tolist()
        direction = lanes.uniform(*self.direction_range).tolist()
        shift = np.stack([lanes.uniform(-1, 1), lanes.uniform(-1, 1)], 1).tolist() \
            if self.allow_shifted else [None] * n
        return [{"ksize": k, "angle": a, "direction": d, **({"shift": s} if s else {})}
                for k, a, d, s in zip(ksize, angle, direction, shift)]

    def colour_ops(self, params, channels, peak):
        taps = motion_taps(params["ksize"], params["angle"], params["direction"],
                           params.get("shift"))
        weight = float(np.float32(1) / np.float32(len(taps)))  # albumentations' float32 kernel
        return _with_data([MOTION, float(len(taps)), weight], taps.ravel().astype(float).tolist())

    def config(self):
        return {"blur_limit": list(self.blur_limit), "allow_shifted": self.allow_shifted,
                "angle_range": list(self.angle_range),
                "direction_range": list(self.direction_range)}


def colour_program(pipe: Transform, plist: list[dict], channels: int, dtype: Any,
                   sizes: Sequence | None = None, passed: dict | list | None = None,
                   skip: frozenset = frozenset(),
                   frames: list[dict] | None = None,
                   always: bool | None = None) -> np.ndarray | None:
    """Each sample's colour operations as the kernel reads them, (n, k * WORDS) float32 (k
    the most a sample has, at least 1; a shorter list ends with code 0), or None for a pipeline
    without colour transforms. A pipeline with them gives every call a program, even one
    where no sample drew any: the kernel then takes the resampled values as the operations
    take them (integer images rounded to a level), so that a sample's result is the same alone
    and in any batch, whatever the other samples drew. ``sizes`` (each sample's output, (width,
    height)) and ``passed`` (the call's passed keywords, or each sample's: a list) are for the
    transforms whose operations read the call (HistogramMatching's references,
    OverlayElements' elements); the steps ``skip`` names (by id) give none. A transform may put values
    in the call's colour table (:func:`table_offset`: FDA's reference spectra): the program
    then carries it (engine.core.ColourProgram). ``frames``: per sample, the frame operations
    of its applied steps by position (:meth:`~warpkit.augment._frames.Frames.image_ops`), in
    their steps' places. ``always``: whether every call gets a program, where the caller
    knows (its pipeline facts: it holds a colour transform; or ``edges="each_step"`` on images
    of up to 4 channels, so that a sample without frame operations is rounded as it is in a
    batch where another sample has some), else whether ``pipe`` holds a colour transform."""
    if always is None:
        always = contains(pipe, ColourTransform)
    if not always and not (frames and any(frames)):
        return None
    peak = colour_peak(dtype)
    memo: dict = {}

    def ops(t: Transform, q: dict, k: int) -> Any:
        if id(t) in skip:  # (applied before the warp: OverlayElements on the source)
            return np.zeros((0, WORDS), np.float32)
        if sizes is None or not hasattr(t, "call_colour_ops"):  # (without: it says what it needs)
            return t.colour_ops(q, channels, peak)
        given = passed[k] if isinstance(passed, list) else passed
        return t.call_colour_ops(q, channels, peak, sizes[k], given or {}, memo)

    steps = [list(pipe.applied_steps(p)) for p in plist]
    if sizes is not None:  # the call's work a transform does for its samples together
        together: dict[int, tuple[Any, list]] = {}
        for k, sample in enumerate(steps):
            for t, q in sample:
                if hasattr(t, "prepare_call") and id(t) not in skip:
                    together.setdefault(id(t), (t, []))[1].append((q, sizes[k]))
        for t, items in together.values():
            t.prepare_call(items, memo)
    blocks = [[frames[k][i] if frames and i in frames[k] else ops(t, q, k)
               for i, (t, q) in enumerate(sample)] for k, sample in enumerate(steps)]
    k = max(1, max(sum(len(b) for b in sample) for sample in blocks))
    out = np.zeros((len(plist), k * WORDS), np.float32)
    for i, sample in enumerate(blocks):
        j = 0
        for block in sample:
            if isinstance(block, np.ndarray):
                out[i, j * WORDS:(j + len(block)) * WORDS] = block.ravel()
                j += len(block)
                continue
            for op in block:
                out[i, j * WORDS:j * WORDS + len(op)] = op
                j += 1
    table = memo.get(_TABLE)
    return out if table is None else with_table(out, np.concatenate(table))


#: the memo's entry of a call's colour table (its parts in order: table_offset)
_TABLE = "colour table"


def table_offset(memo: dict, key: Any, make: Any) -> int:
    """The place (floats from the start) of ``make()``'s values in the call's colour table
    (engine.core.ColourProgram), made and appended once per ``key`` in the call's ``memo``
    (:func:`colour_program`'s, which hands the table to the engine with the program)."""
    if key not in memo:
        parts = memo.setdefault(_TABLE, [])
        memo[key] = sum(len(v) for v in parts)
        parts.append(np.ascontiguousarray(make(), np.float32).ravel())
    return memo[key]

