"""More of albumentations' pixel transforms inside the warp's pass (kernels_cl/colour.h), under
albumentations 2.0.8's names and parameters: ``ChannelDropout``, ``MultiplicativeNoise``,
``PlanckianJitter``, ``ToSepia``, ``RandomToneCurve``, ``ImageCompression`` (a JPEG round
trip on the device), ``Equalize`` and ``AutoContrast`` (tables of the image's histograms, on
the device), ``FancyPCA`` (the channels' principal components, on the device), ``ISONoise`` (a
camera sensor's noise), ``SaltAndPepper`` and ``ShotNoise``, all three drawn in the kernel,
``RandomSnow`` (its bleach in OpenCV's HLS; its texture, a blurred noise with sparkles, made on
the device before the warp) and ``ChromaticAberration`` (red and blue through a lens, on the
device). Like every colour transform they draw from the sample's stream (recorded in
``out["params"]``, replayable), contribute the identity map, and leave masks, boxes and
keypoints as they are.

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, RandomResizedCrop, ToSepia
    >>> aug = Compose([RandomResizedCrop(64), ToSepia(p=1)])
    >>> out = aug(image=np.full((80, 90, 3), 100, np.uint8), seed=0)     # doctest: +SKIP
    >>> out["image"][0, 0].tolist()                                     # doctest: +SKIP
    [135, 120, 94]
"""

from __future__ import annotations

import base64
import math
import numbers
from typing import Any

import numpy as np

from .._checks import flag, number
from ..engine.core import (COL_CHROMA as CHROMA, COL_CURVE as CURVE, COL_EQUALIZE as EQUALIZE,
                           COL_ISO as ISO, COL_JPEG as JPEG, COL_MATRIX as MATRIX,
                           COL_NOISE as NOISE, COL_PCA as PCA, COL_SALT as SALT,
                           COL_SHOT as SHOT, COL_SNOW as SNOW,
                           COL_SNOW_TEX as SNOW_TEX, MAX_CHROMA_COEFF, MAX_ISO_INTENSITY,
                           MIN_SHOT_SCALE, ac_words, mask_data, with_data_ops)
from ._base import normals, value_range
from ._domain import _opencv
from ._host import SAMPLE
from ._colour import (ColourTransform, _affine, _eight_bit, _one_or_three, draw_key, draw_keys,
                      eight_bit_io, key_order)
from ._philox import kernel_key, philox4x32

__all__ = ["AutoContrast", "ChannelDropout", "ChromaticAberration", "Equalize", "FancyPCA",
           "ImageCompression", "ISONoise", "MultiplicativeNoise", "PlanckianJitter", "RandomSnow",
           "RandomToneCurve", "SaltAndPepper", "ShotNoise", "ToSepia", "snow_numbers"]


class ChannelDropout(ColourTransform):
    """albumentations' ChannelDropout: ``count`` channels, drawn from ``channel_drop_range``
    (whole numbers, both ends included), take the value ``fill`` (in the image's units: levels
    for integer images, [0, 1] for float ones). Which channels: the ``count`` smallest of four
    uniform ``keys`` drawn per sample, among the image's first C (a uniform choice, as
    albumentations' ``sample``). Images of 2 to 4 channels; at most C - 1 dropped, as
    albumentations requires.

    Example:
        >>> t = ChannelDropout((1, 1), fill=0, p=1)
        >>> t.colour_ops({"count": 1, "keys": [0.7, 0.2, 0.9, 0.5]}, 3, 255.0)[0][1:4]
        [1.0, 0.0, 1.0]
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, channel_drop_range: tuple[int, int] = (1, 1), fill: float = 0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        lo, hi = value_range(channel_drop_range, "channel_drop_range", False, 1, math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"channel_drop_range must be whole numbers of channels, got "
                             f"{channel_drop_range!r}")
        self.channel_drop_range = (int(lo), int(hi))
        self.fill = number(fill, "fill")

    def draw(self, rng, size):
        lo, hi = self.channel_drop_range
        return {"count": int(rng.integers(lo, hi + 1)), "keys": rng.random(4).tolist()}

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.channel_drop_range
        counts = lanes.integers(lo, hi + 1).tolist()
        return [{"count": c, "keys": k} for c, k in zip(counts, lanes.random(k=4).tolist())]

    def colour_ops(self, params, channels, peak):
        if channels < 2:
            raise TypeError("ChannelDropout takes images of 2 or more channels (as "
                            "albumentations), got 1 channel")
        if self.channel_drop_range[1] >= channels:
            raise ValueError(f"ChannelDropout(channel_drop_range={list(self.channel_drop_range)})"
                             f" could drop all {channels} channels of the image: the range's "
                             f"high end must be below the channel count")
        if not 0 <= self.fill <= peak:
            raise ValueError(f"ChannelDropout's fill must be a value of the image (0 to "
                             f"{peak:g}), got {self.fill:g}")
        drop = key_order(params["keys"], channels)[:params["count"]]
        a = [0.0 if c in drop else 1.0 for c in range(4)]
        b = [self.fill if c in drop else 0.0 for c in range(4)]
        return [_affine(a, b)]

    def config(self):
        return {"channel_drop_range": list(self.channel_drop_range), "fill": self.fill}


class MultiplicativeNoise(ColourTransform):
    """albumentations' MultiplicativeNoise: the image times factors drawn from ``multiplier``,
    in float32 as albumentations multiplies; uint8 images truncated to a level, as its lookup
    tables and its clip do (uint8 and float32, as albumentations).

    - ``elementwise=False``: a factor per sample (one for every channel, or one per channel
      with ``per_channel``: four drawn, the image's first C used), recorded.
    - ``elementwise=True``: a factor per pixel (the same for the pixel's channels, or one per
      channel with ``per_channel``), uniform in the range, from the counter-based generator in
      the kernel that GaussNoise uses, keyed on the sample's stream (``key``, recorded) and the
      pixel's place in the output: the same alone, in any batch, on any device, never stored
      (albumentations draws them with numpy's generator: the same law, not the same numbers).
      Images of up to 4 channels.

    Example:
        >>> MultiplicativeNoise((1.1, 1.1), p=1).colour_ops({"multiplier": [1.1]}, 3, 255.0)[0][:4]
        [1, 1.100000023841858, 1.100000023841858, 1.100000023841858]
        >>> MultiplicativeNoise((0.5, 1.5), elementwise=True, p=1).colour_ops(
        ...     {"key": [1, 2, 3]}, 3, 255.0)[0][4:7]      # the range's width, its low end
        [1.0, 0.5, 0.0]
    """

    @property
    def commutes(self) -> bool:  # type: ignore[override]
        """Pointwise unless a factor per pixel (of its place in the output)."""
        return not self.elementwise

    def __init__(self, multiplier: Any = (0.9, 1.1), per_channel: bool = False,
                 elementwise: bool = False, p: float = 0.5) -> None:
        super().__init__(p)
        if isinstance(multiplier, numbers.Real) and not isinstance(multiplier, bool):
            multiplier = (multiplier, multiplier)
        self.multiplier = value_range(multiplier, "multiplier", False, 0.0, math.inf)[0]
        self.per_channel = flag(per_channel, "per_channel")
        self.elementwise = flag(elementwise, "elementwise")

    def _k(self) -> int:
        return 4 if self.per_channel else 1

    def draw(self, rng, size):
        if self.elementwise:
            return {"key": draw_key(rng)}
        return {"multiplier": [float(rng.uniform(*self.multiplier)) for _ in range(self._k())]}

    def draw_lanes(self, lanes, sizes):
        if self.elementwise:
            return [{"key": k} for k in draw_keys(lanes)]
        m = np.stack([lanes.uniform(*self.multiplier) for _ in range(self._k())], 1)
        return [{"multiplier": row} for row in m.tolist()]

    def colour_ops(self, params, channels, peak):
        _eight_bit("MultiplicativeNoise", peak)  # (OpenCV rounds uint16 products)
        if self.elementwise:
            if channels > 4:
                raise TypeError(f"MultiplicativeNoise(elementwise=True) takes images of at most "
                                f"4 channels, got {channels}")
            lo, hi = self.multiplier
            return [[NOISE, *map(float, params["key"]), hi - lo, lo, float(self.per_channel),
                     0.0, 0.0, 5.0]]
        m = np.float32(params["multiplier"]).tolist()  # albumentations' float32 factors
        return [_affine(m * 4 if len(m) == 1 else m, [0.0] * 4)]

    def config(self):
        return {"multiplier": list(self.multiplier), "per_channel": self.per_channel,
                "elementwise": self.elementwise}


#: the Planckian locus' RGB coefficients every 500 K (Zini et al., "Planckian Jitter",
#: ICLR 2023, as albumentations 2.0.8 tabulates them)
PLANCKIAN_COEFFS: dict[str, dict[int, tuple[float, float, float]]] = {
    "blackbody": {
        3000: (0.6743, 0.4029, 0.0013), 3500: (0.6281, 0.4241, 0.1665),
        4000: (0.5919, 0.4372, 0.2513), 4500: (0.5623, 0.4457, 0.3154),
        5000: (0.5376, 0.4515, 0.3672), 5500: (0.5163, 0.4555, 0.4103),
        6000: (0.4979, 0.4584, 0.4468), 6500: (0.4816, 0.4604, 0.4782),
        7000: (0.4672, 0.4619, 0.5053), 7500: (0.4542, 0.4630, 0.5289),
        8000: (0.4426, 0.4638, 0.5497), 8500: (0.4320, 0.4644, 0.5681),
        9000: (0.4223, 0.4648, 0.5844), 9500: (0.4135, 0.4651, 0.5990),
        10000: (0.4054, 0.4653, 0.6121), 10500: (0.3980, 0.4654, 0.6239),
        11000: (0.3911, 0.4655, 0.6346), 11500: (0.3847, 0.4656, 0.6444),
        12000: (0.3787, 0.4656, 0.6532), 12500: (0.3732, 0.4656, 0.6613),
        13000: (0.3680, 0.4655, 0.6688), 13500: (0.3632, 0.4655, 0.6756),
        14000: (0.3586, 0.4655, 0.6820), 14500: (0.3544, 0.4654, 0.6878),
        15000: (0.3503, 0.4653, 0.6933),
    },
    "cied": {
        4000: (0.5829, 0.4421, 0.2288), 4500: (0.5510, 0.4514, 0.2948),
        5000: (0.5246, 0.4576, 0.3488), 5500: (0.5021, 0.4618, 0.3941),
        6000: (0.4826, 0.4646, 0.4325), 6500: (0.4654, 0.4667, 0.4654),
        7000: (0.4502, 0.4681, 0.4938), 7500: (0.4364, 0.4692, 0.5186),
        8000: (0.4240, 0.4700, 0.5403), 8500: (0.4127, 0.4705, 0.5594),
        9000: (0.4023, 0.4709, 0.5763), 9500: (0.3928, 0.4713, 0.5914),
        10000: (0.3839, 0.4715, 0.6049), 10500: (0.3757, 0.4716, 0.6171),
        11000: (0.3681, 0.4717, 0.6281), 11500: (0.3609, 0.4718, 0.6380),
        12000: (0.3543, 0.4719, 0.6472), 12500: (0.3480, 0.4719, 0.6555),
        13000: (0.3421, 0.4719, 0.6631), 13500: (0.3365, 0.4719, 0.6702),
        14000: (0.3313, 0.4719, 0.6766), 14500: (0.3263, 0.4719, 0.6826),
        15000: (0.3217, 0.4719, 0.6882),
    },
}
#: the white point (K) that splits the draws, and the share of draws below it
_WHITE, _BELOW = 6000, 0.4


def planckian_factors(temperature: int, mode: str) -> tuple[float, float]:
    """The red and blue factors (relative to green) of ``temperature`` kelvin: the table's
    coefficients interpolated linearly between its neighbours 500 K apart, in double as
    albumentations computes them.

    Example:
        >>> [round(f, 4) for f in planckian_factors(6000, "blackbody")]
        [1.0862, 0.9747]
    """
    table = PLANCKIAN_COEFFS[mode]
    lo_t, hi_t = min(table), max(table)
    t = min(max(int(temperature), lo_t), hi_t)
    left = max((t // 500) * 500, lo_t)
    right = min((t // 500 + 1) * 500, hi_t)
    if left == right:
        c = table[left]
    else:
        w_right = (t - left) / (right - left)
        w_left = 1 - w_right
        c = [w_left * a + w_right * b for a, b in zip(table[left], table[right])]
    return c[0] / c[1], c[2] / c[1]


class PlanckianJitter(ColourTransform):
    """albumentations' PlanckianJitter: red and blue scaled as a light of ``temperature``
    kelvin would (:func:`planckian_factors`), the temperature drawn per sample in
    ``temperature_limit`` (default: the mode's table, 3000 or 4000 to 15000 K) as
    albumentations draws it: below 6000 K with probability 0.4, uniformly
    (``sampling_method="uniform"``) or as a half-normal from 6000 K (``"gaussian"``, its
    deviation a third of the way to the limit), truncated to whole kelvin. The products in
    float32, uint8 images truncated to a level (albumentations' tables). 3-channel uint8 and
    float32 images, as albumentations.

    Example:
        >>> PlanckianJitter(p=1).config()["temperature_limit"]
        [3000, 15000]
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, mode: str = "blackbody", temperature_limit: Any = None,
                 sampling_method: str = "uniform", p: float = 0.5) -> None:
        super().__init__(p)
        if mode not in PLANCKIAN_COEFFS:
            raise ValueError(f"mode must be 'blackbody' or 'cied', got {mode!r}")
        if sampling_method not in ("uniform", "gaussian"):
            raise ValueError(f"sampling_method must be 'uniform' or 'gaussian', got "
                             f"{sampling_method!r}")
        low = min(PLANCKIAN_COEFFS[mode])
        if temperature_limit is None:
            temperature_limit = (low, 15000)
        lo, hi = value_range(temperature_limit, "temperature_limit", False, low, 15000)[0]
        if lo != int(lo) or hi != int(hi) or not lo <= _WHITE <= hi:
            raise ValueError(f"temperature_limit must be whole kelvin around the white point "
                             f"{_WHITE} K, got {temperature_limit!r}")
        self.mode, self.sampling_method = mode, sampling_method
        self.temperature_limit = (int(lo), int(hi))

    def _temperature(self, below: float, u: list[float]) -> int:
        lo, hi = self.temperature_limit
        if self.sampling_method == "uniform":
            a, b = (lo, _WHITE) if below < _BELOW else (_WHITE, hi)
            t = a + (b - a) * u[0]
        else:
            z = abs(float(normals(np.array(u[:2]))[0]))
            t = _WHITE - z * abs(_WHITE - lo) / 3 if below < _BELOW \
                else _WHITE + z * abs(hi - _WHITE) / 3
        return int(min(max(t, lo), hi))

    def _draws(self) -> int:
        return 1 if self.sampling_method == "uniform" else 2

    def draw(self, rng, size):
        below = float(rng.random())
        return {"temperature": self._temperature(below, rng.random(self._draws()).tolist())}

    def draw_lanes(self, lanes, sizes):
        below = lanes.random().tolist()
        u = lanes.random(k=self._draws()).reshape(lanes.n, -1).tolist()
        return [{"temperature": self._temperature(b, row)} for b, row in zip(below, u)]

    def colour_ops(self, params, channels, peak):
        if channels != 3:
            raise TypeError(f"PlanckianJitter takes images of 3 channels (as albumentations), "
                            f"got {channels}")
        _eight_bit("PlanckianJitter", peak)
        r, b = planckian_factors(params["temperature"], self.mode)
        return [_affine(np.float32([r, 1.0, b]).tolist(), [0.0] * 3)]

    def config(self):
        return {"mode": self.mode, "temperature_limit": list(self.temperature_limit),
                "sampling_method": self.sampling_method}


#: albumentations' sepia matrix (rows: the output's R, G, B)
SEPIA = ((0.393, 0.769, 0.189), (0.349, 0.686, 0.168), (0.272, 0.534, 0.131))


class ToSepia(ColourTransform):
    """albumentations' ToSepia: the 3x3 sepia matrix on R, G, B (OpenCV's ``transform``: uint8
    in its 10-bit fixed point, the same levels; float images in float32, clipped to [0, 1]).
    One-channel images stay as they are; uint8 and float32 images of 1 or 3 channels.

    Example:
        >>> ToSepia(p=1).colour_ops({}, 3, 255.0)[0][1:4]
        [402.0, 787.0, 194.0]
    """

    commutes = True  # (a function of each pixel's value)

    def colour_ops(self, params, channels, peak):
        _one_or_three("ToSepia", channels)
        _eight_bit("ToSepia", peak)
        if channels == 1:
            return []
        m = np.array(SEPIA, np.float64).ravel()
        if peak == 255.0:  # OpenCV's fixed point: weights of 2^-10, rounded; the sum rounded
            return [[MATRIX, *np.rint(m * 1024).tolist(), 1.0 / 1024, 0.5]]
        return [[MATRIX, *m.tolist(), 1.0, 0.0]]


class RandomToneCurve(ColourTransform):
    """albumentations' RandomToneCurve: each 8-bit level through a cubic Bezier tone curve
    from (0, 0) to (1, 1) whose inner control points' heights ``low_y`` and ``high_y`` are
    drawn per sample from normals about 0.25 and 0.75 of deviation ``scale``, clipped to
    [0, 1] (``per_channel``: four of each drawn, the image's first C used); float images
    through levels of 255 and back, as albumentations. The curve is evaluated per pixel in
    float32 where albumentations tabulates it in double: a level can differ by one where
    the curve's value lies within about 1e-4 of a half.

    Example:
        >>> t = RandomToneCurve(scale=0.1, p=1)
        >>> t.colour_ops({"low_y": [0.25], "high_y": [0.75]}, 3, 255.0)[0][:3]
        [22, 0.25, 0.25]
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, scale: float = 0.1, per_channel: bool = False, p: float = 0.5) -> None:
        super().__init__(p)
        self.scale = number(scale, "scale")
        if not 0 <= self.scale <= 1:
            raise ValueError(f"scale must be in [0, 1], got {scale!r}")
        self.per_channel = flag(per_channel, "per_channel")

    def _heights(self, u: np.ndarray) -> list[dict]:
        """Each row of 2k uniforms -> k low and k high heights."""
        z = normals(u)
        k = u.shape[1] // 2
        low = np.clip(0.25 + self.scale * z[:, :k], 0, 1).tolist()
        high = np.clip(0.75 + self.scale * z[:, k:], 0, 1).tolist()
        return [{"low_y": a, "high_y": b} for a, b in zip(low, high)]

    def _k(self) -> int:
        return 8 if self.per_channel else 2

    def draw(self, rng, size):
        return self._heights(rng.random(self._k())[None])[0]

    def draw_lanes(self, lanes, sizes):
        return self._heights(lanes.random(k=self._k()).reshape(lanes.n, -1))

    def colour_ops(self, params, channels, peak):
        _eight_bit("RandomToneCurve", peak)
        low, high = list(params["low_y"]), list(params["high_y"])
        if len(low) == 1:
            low, high = low * 4, high * 4
        return [[CURVE, *low[:4], *high[:4]]]

    def config(self):
        return {"scale": self.scale, "per_channel": self.per_channel}


class ImageCompression(ColourTransform):
    """albumentations' ImageCompression. ``compression_type="jpeg"``: the image through
    OpenCV's JPEG encoder and decoder at a quality drawn per sample from ``quality_range``
    (whole numbers, both ends included), computed on the device as libjpeg-turbo computes it
    with OpenCV's settings (4:2:0 chroma, the integer DCTs, the standard tables scaled to the
    quality, its fancy chroma upsampling): the same levels. The channels go to the codec as
    OpenCV takes an array, channel 0 as blue; one channel is a grayscale JPEG, two take a third
    of zeros, four add a grayscale JPEG of the fourth (as albumentations). uint8 and float32
    images (float through ``rint(255 v)`` and back, as albumentations). A pass on the device
    after the warp: the blocks first, then each pixel's colour.

    ``compression_type="webp"``: OpenCV's libwebp round trip, on the host between two passes
    (:mod:`warpkit.augment._host`; it needs OpenCV), the channels as for JPEG: the same
    pixels as albumentations.

    Example:
        >>> ImageCompression(quality_range=(75, 75), p=1).colour_ops({"quality": 75}, 3, 255.0)
        [[23, 75.0]]
    """

    #: the targets a WebP round trip changes, on the host (:mod:`._host`)
    changes = frozenset({"image"})
    threads = True

    def __init__(self, compression_type: str = "jpeg", quality_range: Any = (99, 100),
                 p: float = 0.5) -> None:
        super().__init__(p)
        if compression_type not in ("jpeg", "webp"):
            raise ValueError(f"ImageCompression's compression_type must be 'jpeg' or 'webp', got "
                             f"{compression_type!r}")
        lo, hi = value_range(quality_range, "quality_range", False, 1, 100)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"quality_range must be whole numbers, got {quality_range!r}")
        self.compression_type = compression_type
        self.quality_range = (int(lo), int(hi))

    @property
    def runs_on_host(self) -> bool:
        """WebP is OpenCV's libwebp round trip on the host, between two passes."""
        return self.compression_type == "webp"

    def run(self, target, value, params, shape):
        quality = int(params["quality"])
        if not 1 <= quality <= 100:
            raise ValueError(f"ImageCompression's quality must be 1-100, got {quality}")
        return eight_bit_io(value, "ImageCompression", lambda img: webp_round_trip(img, quality))

    def draw(self, rng, size):
        lo, hi = self.quality_range
        return {"quality": int(rng.integers(lo, hi + 1))}

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.quality_range
        return [{"quality": q} for q in lanes.integers(lo, hi + 1).tolist()]

    def colour_ops(self, params, channels, peak):
        if self.runs_on_host:  # (the host runs it between passes: never in a pass)
            raise ValueError("ImageCompression to WebP runs on the host, not in a pass")
        _eight_bit("ImageCompression", peak)
        return [[JPEG, float(params["quality"])]]

    def config(self):
        return {"compression_type": self.compression_type,
                "quality_range": list(self.quality_range)}


def webp_round_trip(img: np.ndarray, quality: int) -> np.ndarray:
    """An 8-bit (H, W) or (H, W, C) image through OpenCV's WebP encoder at ``quality`` and back,
    as albumentations 2.0.8 does it: one channel as a grayscale picture, two with a third of
    zeros, three as they are (channel 0 as blue), more as the first three and each further one
    a grayscale picture."""
    cv2 = _opencv()
    if cv2 is None:
        raise ValueError("ImageCompression(compression_type='webp') encodes with OpenCV's "
                         "libwebp, which is not installed: pip install opencv-python-headless "
                         "(or take 'jpeg', made on the device)")
    flags = (int(cv2.IMWRITE_WEBP_QUALITY), int(quality))

    def round_trip(x: np.ndarray, mode: int) -> np.ndarray:
        ok, data = cv2.imencode(".webp", np.ascontiguousarray(x), flags)
        if not ok:
            raise ValueError("OpenCV could not encode the image as WebP")
        return cv2.imdecode(data, mode)

    if img.ndim == 2 or img.shape[2] == 1:
        return round_trip(img.reshape(img.shape[:2]), cv2.IMREAD_GRAYSCALE).reshape(img.shape)
    c = img.shape[2]
    if c <= 3:
        padded = img if c == 3 else np.concatenate([img, np.zeros_like(img[..., :1])], 2)
        return round_trip(padded, cv2.IMREAD_UNCHANGED)[..., :c]
    extra = [round_trip(img[..., k], cv2.IMREAD_GRAYSCALE)[..., None] for k in range(3, c)]
    return np.concatenate([round_trip(img[..., :3], cv2.IMREAD_UNCHANGED), *extra], 2)


class Equalize(ColourTransform):
    """albumentations' Equalize: histogram equalisation of the whole image on 8-bit levels.
    ``mode="cv"`` is OpenCV's ``equalizeHist`` (the running count of the levels past the
    first one present, times 255 / the pixels not at it, rounded); ``mode="pil"`` is
    albumentations' Pillow-like table (each level ``(running count + step // 2) // step``,
    ``step`` the pixels not at the last level present over 255, floored; no change when the
    image has one level). ``by_channels=True`` equalises R, G and B each on its own histogram;
    ``False`` equalises Y of OpenCV's 8-bit YCrCb and converts back (its Cr and Cb kept), as
    albumentations; an image of one channel is equalised on its levels. Float32 images go
    through ``rint(255 v)`` and back as ``level / 255``, as albumentations' uint8 round trip.

    ``mask``: an array of the image's height and width (the output's, as the warp leaves the
    image: the histogram is of that image), 2-D or with 1 channel, or 3 (one per channel, with
    ``by_channels``): only the pixels where it is not 0 as uint8 (albumentations' cast) count
    in the histograms, and the tables then apply to every pixel. albumentations' tables of a
    masked histogram: "cv" the running count past the first level present times 255 / the
    selected pixels not at it (float32, rounded half to even), every level 0 where the
    selection holds one level or none (its 255 / 0); "pil" as without a mask. A mask made by a
    function (``mask`` callable: ``mask(image=..., **those the call names in mask_params)``, as
    albumentations calls it) is made on the host between two passes (:mod:`._host`), and the
    image equalised there with OpenCV, as albumentations: the same levels.

    It runs on the device in a pass after the warp, on the image as the steps before it left
    it (kernels_cl/colour_pass.cl: CLAHE's ``colour_clahe_hist`` counts the histograms,
    ``colour_clahe_lut`` makes the tables, ``colour_apply`` looks each pixel up), with
    OpenCV's integer conversions and arithmetic: the same levels as albumentations ("pil"
    while albumentations' float32 counts are exact, under 2^24 pixels). uint8 and float32
    images of 1 or 3 channels, as albumentations.

    Example:
        >>> Equalize(mode="cv", by_channels=True, p=1).colour_ops({}, 3, 255.0)
        [[24, 0.0, 1.0]]
    """

    #: a mask made by a function: the host step's (:mod:`._host`)
    changes = frozenset({"image"})
    threads = True

    def __init__(self, mode: str = "cv", by_channels: bool = True, mask: Any = None,
                 mask_params: Any = (), p: float = 0.5) -> None:
        super().__init__(p)
        if mode not in ("cv", "pil"):
            raise ValueError(f"mode must be 'cv' or 'pil', got {mode!r}")
        self.mode = mode
        self.by_channels = flag(by_channels, "by_channels")
        self.mask_fn = mask if callable(mask) else None
        if isinstance(mask_params, str) or not all(isinstance(k, str)
                                                   for k in (mask_params or ())):
            raise ValueError(f"mask_params must be a list of the call's names, got "
                             f"{mask_params!r}")
        self.mask_params = tuple(mask_params or ())
        if self.mask_params and self.mask_fn is None:
            raise ValueError("Equalize's mask_params name what a mask function reads: give "
                             "mask= a function")
        self.mask = None if self.mask_fn is not None else \
            _equalize_mask(mask, self.by_channels)

    @property
    def runs_on_host(self) -> bool:
        """A mask made by a function of the image: the equalisation on the host, between two
        passes, with OpenCV (as albumentations)."""
        return self.mask_fn is not None

    @property
    def sample_keys(self) -> tuple[str, ...]:
        """The sample's targets and keywords the mask function reads: the call's ``image``
        (albumentations' ``data["image"]``, whichever image target is equalised) and those
        ``mask_params`` names."""
        return ("image", *(k for k in self.mask_params if k != "image"))

    @property
    def unwritable(self) -> str | None:
        if self.mask_fn is None:
            return None
        return ("Equalize's mask is a function, which to_dict cannot write: give the mask as an "
                "array, or keep the pipeline in Python")

    def run(self, target, value, params, shape):
        mask = self.mask_fn(**params[SAMPLE])
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape[:2] != value.shape[:2]:
                raise ValueError(f"Equalize's mask function gave a mask of shape {mask.shape} "
                                 f"for an image of {value.shape}")
        return eight_bit_io(value, "Equalize",
                            lambda img: equalize_levels(img, mask, self.mode, self.by_channels))

    def colour_ops(self, params, channels, peak):
        _one_or_three("Equalize", channels)
        _eight_bit("Equalize", peak)
        if self.mask is not None:
            raise ValueError("Equalize's mask needs the output's size: a pipeline call makes "
                             "its operations")
        return [[EQUALIZE, float(self.mode == "pil"), float(self.by_channels)]]

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> Any:
        """:meth:`colour_ops` for an output of ``size`` = (width, height): the mask's bits in
        the data operations after the operation (made once a call and size)."""
        if self.mask is None:
            return self.colour_ops(params, channels, peak)
        _one_or_three("Equalize", channels)
        _eight_bit("Equalize", peak)
        (h, w, c), (wo, ho) = self.mask.shape, size
        if (h, w) != (ho, wo):
            raise ValueError(f"Equalize's mask is {h} x {w} (height x width); the image it "
                             f"equalizes (as the warp leaves it) is {ho} x {wo}")
        if c == 3 and channels == 1:
            raise ValueError("Equalize's mask has 3 channels; the image has 1")
        key = (id(self), tuple(size))
        if key not in memo:
            memo[key] = with_data_ops({0: EQUALIZE, 1: float(self.mode == "pil"),
                                       2: float(self.by_channels), 11: c},
                                      mask_data(self.mask))
        return memo[key]

    def config(self):
        mask = None if self.mask is None else {
            "shape": list(self.mask.shape),
            "bits": base64.b64encode(np.packbits(self.mask.reshape(-1)).tobytes()).decode()}
        if self.mask_fn is not None:  # (for repr: to_dict refuses it, unwritable)
            mask = f"<function {getattr(self.mask_fn, '__name__', '?')}>"
        return {"mode": self.mode, "by_channels": self.by_channels,
                **({"mask": mask} if mask is not None else {}),
                **({"mask_params": list(self.mask_params)} if self.mask_params else {})}


def equalize_levels(img: np.ndarray, mask: np.ndarray | None, mode: str,
                    by_channels: bool) -> np.ndarray:
    """albumentations 2.0.8's ``equalize`` of an 8-bit (H, W), (H, W, 1) or RGB image with OpenCV
    (its histograms, ``equalizeHist`` and YCrCb conversions; its tables in float32): a mask's
    pixels that are not 0 (as uint8) make the histograms."""
    cv2 = _opencv()
    if cv2 is None:
        raise ValueError("Equalize with a mask function equalises with OpenCV on the host, "
                         "which is not installed: pip install opencv-python-headless")
    if img.ndim == 3 and img.shape[2] not in (1, 3):
        raise TypeError(f"Equalize takes images of 1 or 3 channels, got {img.shape[2]}")
    grey = img.ndim == 2 or img.shape[2] == 1
    if mask is not None:
        one = mask.ndim == 2 or mask.shape[-1] == 1
        if grey and not one:
            raise ValueError(f"Equalize's mask has {mask.shape[-1]} channels; the image has 1")
        if not by_channels and not one:
            raise ValueError(f"Equalize(by_channels=False) takes a mask of 1 channel, got shape "
                             f"{mask.shape}")
    table = _pil_table if mode == "pil" else _cv_table

    def masked(i: int | None) -> np.ndarray | None:
        if mask is None:
            return None
        m = mask.astype(np.uint8, copy=False)
        m = m if i is None or m.ndim == 2 or m.shape[-1] == 1 else m[..., i]
        return np.ascontiguousarray(m.reshape(m.shape[:2]))

    def equalized(plane: np.ndarray, m: np.ndarray | None) -> np.ndarray:
        if mode == "cv" and m is None:
            return cv2.equalizeHist(plane)
        lut = table(cv2.calcHist([plane], [0], m, [256], (0, 256)).ravel())
        return plane.copy() if lut is None else lut[plane]

    if grey:
        return equalized(np.ascontiguousarray(img.reshape(img.shape[:2])),
                         masked(None)).reshape(img.shape)
    if not by_channels:
        ycc = cv2.cvtColor(img, cv2.COLOR_RGB2YCrCb)
        ycc[..., 0] = equalized(np.ascontiguousarray(ycc[..., 0]), masked(None))
        return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
    out = np.empty_like(img)
    for i in range(3):
        out[..., i] = equalized(np.ascontiguousarray(img[..., i]), masked(i))
    return out


def _cv_table(hist: np.ndarray) -> np.ndarray:
    """albumentations' masked "cv" table (float32 counts): the running count past the first
    level present, times 255 / the pixels not at it, rounded."""
    i = np.flatnonzero(hist)[0] if np.any(hist) else 255
    scale = 255.0 / (np.sum(hist) - hist[i])
    run = np.cumsum(hist)
    return np.clip(((run - run[i]) * scale).round(), 0, 255).astype(np.uint8)


def _pil_table(hist: np.ndarray) -> np.ndarray | None:
    """albumentations' "pil" table; None where it leaves the image as it is."""
    present = hist[hist != 0]
    if len(present) <= 1:
        return None
    step = np.sum(present[:-1]) // 255
    if not step:
        return None
    return np.minimum((np.cumsum(hist) + step // 2) // step, 255).astype(np.uint8)


def _equalize_mask(mask: Any, by_channels: bool) -> np.ndarray | None:
    """Equalize's mask as an (H, W, 1 or 3) bool array (albumentations' ``astype(uint8)``, then
    not 0), from an array or :meth:`Equalize.config`'s encoding; None for none."""
    if mask is None:
        return None
    if isinstance(mask, dict) and set(mask) == {"shape", "bits"}:
        shape = tuple(int(v) for v in mask["shape"])
        bits = np.unpackbits(np.frombuffer(base64.b64decode(mask["bits"]), np.uint8))
        if len(shape) != 3 or bits.size < math.prod(shape):
            raise ValueError(f"Equalize's encoded mask does not hold its shape {shape}")
        m = bits[:math.prod(shape)].reshape(shape).astype(bool)
    else:
        a = np.asarray(mask)
        if a.dtype.kind not in "biuf" or a.ndim not in (2, 3) or min(a.shape[:2]) < 1:
            raise ValueError(f"Equalize's mask must be an (H, W) or (H, W, C) array of numbers, "
                             f"got {a.dtype} of shape {a.shape}")
        with np.errstate(invalid="ignore"):
            m = (a.astype(np.uint8) != 0) if a.dtype != bool else a
        m = m[:, :, None] if m.ndim == 2 else m
    if m.shape[2] not in (1, 3):
        raise ValueError(f"Equalize's mask must have 1 or 3 channels, got {m.shape[2]}")
    if m.shape[2] == 3 and not by_channels:
        raise ValueError("Equalize's mask has 3 channels: with by_channels=False (Y of YCrCb) "
                         "it must have one, as albumentations")
    return np.ascontiguousarray(m)


class AutoContrast(ColourTransform):
    """albumentations' AutoContrast: each channel's levels stretched over 0-255 by a table made
    from its own histogram of the whole image, on 8-bit levels.

    The histogram is OpenCV's ``calcHist`` over ``[0, 255)`` as albumentations calls it, which
    never counts level 255, and leaves out the level ``ignore``. Its bounds lo and hi are the
    first and last levels present, or with a ``cutoff`` (percent) the levels where the running
    count from below and from above first reaches ``total * cutoff / 100`` (lo is the level
    after the one found from below; computed in double, as albumentations, with the device's
    integers). ``method="cdf"`` maps level i of [lo, hi] to ``(count up to i - count at lo) *
    255 / (count up to hi - count at lo)`` (float32, rounded), ``"pil"`` to ``(i - lo) *
    (255 / (hi - lo))`` (double, rounded); below lo 0, above hi 255. A channel with hi <= lo is
    left as it is, the level ``ignore`` keeps its value, and, as albumentations reads the same
    number, the channel numbered ``ignore`` is left as it is. Float32 images go through
    ``rint(255 v)`` and back as ``level / 255``, as albumentations' uint8 round trip.

    It runs on the device in a pass after the warp, in Equalize's kernels (its histograms, its
    tables, each pixel looked up): the same levels as albumentations, on uint8 and float32
    images of 1 to 4 channels ("cdf" while albumentations' float32 counts are exact, under
    2^24 pixels).

    Example:
        >>> AutoContrast(cutoff=2, method="pil", p=1).colour_ops({}, 3, 255.0)
        [[24, 3.0, 1.0, -1.0, 131072.0, 0.0, 0.0, -51.0]]
    """

    def __init__(self, cutoff: float = 0, ignore: int | None = None, method: str = "cdf",
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.cutoff = number(cutoff, "cutoff")
        if not 0 <= self.cutoff <= 100:
            raise ValueError(f"cutoff must be a percentage in [0, 100], got {cutoff!r}")
        whole = isinstance(ignore, numbers.Integral) and not isinstance(ignore, bool)
        if ignore is not None and not (whole and 0 <= ignore <= 255):
            raise ValueError(f"ignore must be None or a whole number in [0, 255], got {ignore!r}")
        self.ignore = None if ignore is None else int(ignore)
        if method not in ("cdf", "pil"):
            raise ValueError(f"method must be 'cdf' or 'pil', got {method!r}")
        self.method = method

    def colour_ops(self, params, channels, peak):
        if not 1 <= channels <= 4:
            raise TypeError(f"AutoContrast takes images of 1 to 4 channels, got {channels}")
        _eight_bit("AutoContrast", peak)
        ignore = -1.0 if self.ignore is None else float(self.ignore)
        return [[EQUALIZE, 2.0 + (self.method == "pil"), 1.0, ignore, *ac_words(self.cutoff)]]

    def config(self):
        return {"cutoff": self.cutoff, "ignore": self.ignore, "method": self.method}


class FancyPCA(ColourTransform):
    """albumentations' FancyPCA (after Krizhevsky et al.'s colour augmentation): each pixel x
    moves by albumentations' ``V diag(alpha * lambda) (x - mean)``, lambda and V the eigenvalues
    (descending) and eigenvectors of the covariance of the image's channels (values in [0, 1],
    numpy's ``cov``: over N - 1); note that ``x - mean`` is taken channel by channel, not along
    the eigenvectors. alpha: a normal of deviation ``alpha`` per component, drawn per sample (four,
    recorded as ``alpha_vector``; the image's first C used, the largest eigenvalue's first). An
    image of one channel moves by ``alpha * std * (x - mean)`` (numpy's ``std``: over N), as
    albumentations. Clipped; integer images rounded to the nearest level (albumentations'
    float round trip).

    The mean and covariance are the image's as the steps before it left it: a pass on the
    device sums the channels and their products, a work-item per sample then solves the 2-4
    channels' eigenproblem, and the last pass moves the pixels. The noise takes each eigenvector
    with the sign LAPACK gives it (numpy's ``eigh``), so the device takes LAPACK's own steps
    (in double where it has fp64; in float, 1 or 2 images in 100 get an eigenvector of the other
    sign: the same law, as the weights are symmetric about 0).
    albumentations' mean is a float32 sum over the pixels in order, a few thousandths of a level
    off, so a uint8 sum that lands on a half level may round the other way: within 1 level, and
    the same level on 98% of the pixels and more. Every dtype, 1 to 4 channels.

    Example:
        >>> FancyPCA(alpha=0.1, p=1).colour_ops({"alpha_vector": [0.1, -0.05, 0.02, 0.0]}, 3,
        ...                                      255.0)[0]
        [31, 0.1, -0.05, 0.02, 0.0]
    """

    def __init__(self, alpha: float = 0.1, p: float = 0.5) -> None:
        super().__init__(p)
        self.alpha = number(alpha, "alpha")
        if not 0 <= self.alpha < math.inf:
            raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")

    def _alphas(self, u: np.ndarray) -> list[list[float]]:
        """Each row of 4 uniforms -> 4 weights (float32, as albumentations casts them)."""
        return (normals(u) * self.alpha).astype(np.float32).astype(float).tolist()

    def draw(self, rng, size):
        return {"alpha_vector": self._alphas(rng.random(4)[None])[0]}

    def draw_lanes(self, lanes, sizes):
        return [{"alpha_vector": a} for a in self._alphas(lanes.random(k=4).reshape(lanes.n, 4))]

    def colour_ops(self, params, channels, peak):
        if not 1 <= channels <= 4:
            raise TypeError(f"FancyPCA takes images of 1 to 4 channels, got {channels}")
        a = [float(x) for x in params["alpha_vector"]][:channels]
        return [[PCA, *a, *[0.0] * (4 - len(a))]]

    def config(self):
        return {"alpha": self.alpha}


class _KeyedNoise(ColourTransform):
    """A noise drawn in the kernel: per sample, a number from each of the two ranges
    :attr:`_ranges` names (recorded under those names, in that order), then the kernel
    generator's key."""

    _ranges: tuple[str, str] = ("", "")

    def draw(self, rng, size):
        a, b = (float(rng.uniform(*getattr(self, n))) for n in self._ranges)
        return {self._ranges[0]: a, self._ranges[1]: b, "key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        a, b = (lanes.uniform(*getattr(self, n)).tolist() for n in self._ranges)
        return [{self._ranges[0]: x, self._ranges[1]: y, "key": k}
                for x, y, k in zip(a, b, draw_keys(lanes))]

    def config(self):
        return {n: list(getattr(self, n)) for n in self._ranges}


class ISONoise(_KeyedNoise):
    """albumentations' ISONoise: a camera sensor's noise, in OpenCV's float HLS. Per sample a
    ``color_shift`` and an ``intensity`` are drawn from their ranges; each pixel's hue moves by
    a normal of deviation ``color_shift * intensity`` (degrees, as albumentations adds it),
    and its lightness by ``k * intensity * (1 - L)`` (clipped to 1), ``k`` a Poisson count of
    mean ``intensity`` times the image's standard deviation of L; back to RGB, clipped.

    The numbers come from a counter-based generator in the kernel (Philox-4x32-10) keyed on the
    sample's stream (``key``, recorded) and the pixel's position in the output, as GaussNoise's:
    the same alone, in any batch, on any device. albumentations draws them with numpy's
    generator, so the two agree in distribution, not pixel for pixel; with no noise drawn the
    HLS round trip gives the same levels. The lightness's deviation is the image's as the steps
    before it left it (a pass on the device sums L and L^2, like the contrast's mean). Images of
    3 channels (RGB, as albumentations requires); uint8 rounds to the nearest level.

    Example:
        >>> t = ISONoise(color_shift=(0.05, 0.05), intensity=(0.5, 0.5), p=1)
        >>> t.colour_ops({"color_shift": 0.05, "intensity": 0.5, "key": [1, 2, 3]}, 3, 255.0)
        [[25, 1.0, 2.0, 3.0, 0.025, 0.5]]
    """

    _ranges = ("color_shift", "intensity")

    def __init__(self, color_shift: Any = (0.01, 0.05), intensity: Any = (0.1, 0.5),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.color_shift = value_range(color_shift, "color_shift", False, 0.0, 1.0)[0]
        self.intensity = value_range(intensity, "intensity", False, 0.0, MAX_ISO_INTENSITY)[0]

    def colour_ops(self, params, channels, peak):
        if channels != 3:
            raise TypeError(f"ISONoise takes RGB images of 3 channels (as albumentations), got "
                            f"{channels} channel{'s' * (channels != 1)}")
        it = float(params["intensity"])
        return [[ISO, *map(float, params["key"]), float(params["color_shift"]) * it, it]]


class SaltAndPepper(_KeyedNoise):
    """albumentations' SaltAndPepper: a share ``amount`` of the pixels, drawn per sample from its
    range, set to the peak in every channel (salt: a share ``salt_vs_pepper`` of them, drawn
    from its range) or to 0 (pepper).

    Each pixel is chosen by its own uniform number from the kernel's generator (Philox-4x32-10)
    keyed on the sample's stream (``key``, recorded) and the pixel's position in the output, as
    GaussNoise's: the same alone, in any batch, on any device. albumentations chooses exactly
    ``int(area * amount)`` pixels (``int`` of that times the ratio salted) with numpy's
    generator; here each pixel is salt with probability ``amount * salt_vs_pepper`` and pepper
    with ``amount * (1 - salt_vs_pepper)``, so the counts vary by their binomial spread (about
    3% for 1500 pixels of 224 x 224 at the default amounts). Every dtype and channel count.

    Example:
        >>> t = SaltAndPepper(amount=(0.05, 0.05), salt_vs_pepper=(0.5, 0.5), p=1)
        >>> t.colour_ops({"amount": 0.05, "salt_vs_pepper": 0.5, "key": [1, 2, 3]}, 3, 255.0)
        [[26, 1.0, 2.0, 3.0, 0.025, 0.05]]
    """

    _ranges = ("amount", "salt_vs_pepper")

    def __init__(self, amount: Any = (0.01, 0.06), salt_vs_pepper: Any = (0.4, 0.6),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.amount = value_range(amount, "amount", False, 0.0, 1.0)[0]
        self.salt_vs_pepper = value_range(salt_vs_pepper, "salt_vs_pepper", False, 0.0, 1.0)[0]

    def colour_ops(self, params, channels, peak):
        a = float(params["amount"])
        return [[SALT, *map(float, params["key"]), a * float(params["salt_vs_pepper"]), a]]


class ShotNoise(ColourTransform):
    """albumentations' ShotNoise: photon noise in linear light. Per sample a ``scale`` is drawn
    from ``scale_range``; each channel's value x (in [0, 1]) becomes ``clip(k * scale, 0,
    1) ** (1 / 2.2)``, k a Poisson count of mean ``(x ** 2.2 + scale * 1e-6) / scale``.

    The counts come from the kernel's generator (Philox-4x32-10) keyed on the sample's stream
    (``key``, recorded) and the pixel's position in the output, as GaussNoise's: the same alone
    and in any batch; on another device the same but where its ``exp`` rounds a sum of chances
    across the number (a few in 10^5). Each is drawn by its distribution function from a uniform
    number, so means up to 50 (scales from 0.02; smaller ones are refused) are exact in law;
    albumentations draws with numpy's generator, so the two agree in distribution, not pixel
    for pixel. uint8 rounds to the nearest level (albumentations' float round trip); every
    dtype, 1 to 4 channels.

    Example:
        >>> t = ShotNoise(scale_range=(0.2, 0.2), p=1)
        >>> t.colour_ops({"scale": 0.2, "key": [1, 2, 3]}, 3, 255.0)
        [[30, 1.0, 2.0, 3.0, 0.2]]
    """

    def __init__(self, scale_range: Any = (0.1, 0.3), p: float = 0.5) -> None:
        super().__init__(p)
        self.scale_range = value_range(scale_range, "scale_range", False, MIN_SHOT_SCALE,
                                       math.inf)[0]

    def draw(self, rng, size):
        return {"scale": float(rng.uniform(*self.scale_range)), "key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        return [{"scale": s, "key": k}
                for s, k in zip(lanes.uniform(*self.scale_range).tolist(), draw_keys(lanes))]

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"ShotNoise takes images of at most 4 channels, got {channels}")
        return [[SHOT, *map(float, params["key"]), float(params["scale"])]]

    def config(self):
        return {"scale_range": list(self.scale_range)}


def snow_numbers(key: Any, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The numbers the device draws for RandomSnow's texture of an output of ``size`` (width,
    height) under the sample's ``key`` (the recorded three words): standard normal numbers and
    uniform numbers in [0, 1), float64 arrays of the output's shape (rows, columns), as
    albumentations' ``generate_snow_textures`` asks its generator for them (its ``normal`` is
    ``0.5 + 0.3`` times these; its sparkles are the uniform numbers above 0.99).

    Pixel (x, y) takes Philox-4x32-10's block of counter ``(x // 4, y, 0, 0)``: Box-Muller on
    its words 0 and 1 gives columns ``4 (x // 4)`` and ``+ 1``, on words 2 and 3 the next two
    (each word w as the number ``((w >> 8) + 1) 2^-24`` in (0, 1]: the radius's logarithm of
    the first, the angle's turns of the second: kernels_cl/colour.h's wk_normal4); its uniform
    number is word ``x % 4`` of the block of counter ``(x // 4, y, 1, 0)`` as ``(w >> 8) 2^-24``.
    The device's normals are float32 and within a few units in their last place of these.

    Example:
        >>> z, u = snow_numbers([1, 2, 3], (6, 2))
        >>> z.shape, u.shape, bool((u >= 0).all() and (u < 1).all())
        ((2, 6), (2, 6), True)
    """
    w, h = int(size[0]), int(size[1])
    n = -(-w // 4)
    b, y = np.meshgrid(np.arange(n), np.arange(h))
    k = kernel_key(key)
    def unit(word):  # the kernel's wk_unit8: (0, 1]
        return ((word >> np.uint64(8)) + np.uint64(1)).astype(np.float64) / 2 ** 24
    o = philox4x32(b, y, 0, k)
    # normals() takes pairs (u1, u2) as sqrt(-2 ln(1 - u1)) (cos 2 pi u2, sin 2 pi u2)
    u = np.stack([1 - unit(o[0]), unit(o[1]), 1 - unit(o[2]), unit(o[3])], -1)
    z = normals(u).reshape(h, 4 * n)[:, :w]
    s = philox4x32(b, y, 1, k)
    sparkle = np.stack(s, -1).reshape(h, 4 * n)[:, :w]
    return z, (sparkle >> np.uint64(8)).astype(np.float64) / 2 ** 24


class RandomSnow(ColourTransform):
    """albumentations' RandomSnow: a ``snow_point`` is drawn per sample from
    ``snow_point_range`` (in [0, 1]), then, for ``method="texture"``, the texture's key.

    ``method="bleach"``: pixels whose lightness (OpenCV's HLS) is below
    ``snow_point * 255 / 2 + 255 / 3`` levels have it multiplied by ``brightness_coeff``.
    On uint8 it is OpenCV's 8-bit HLS round trip as albumentations does it: the image to HLS
    levels (hue of 180), the lightness level times the coefficient where below the threshold,
    clipped to [0, 255] and truncated to a level (numpy's store into uint8), back to RGB; the
    same levels. albumentations' float32 path compares a lightness in [0, 1] with that threshold
    in levels, so it bleaches every pixel and leaves values past 1; warpkit's float32 (and
    uint16) images take the threshold in the image's units instead (``255 L`` against it, L in
    [0, 1]) in float HLS, clipped to [0, 1].

    ``method="texture"``: albumentations' ``add_snow_texture`` in its float32 arithmetic, on
    the image's levels in OpenCV's 8-bit HSV (float32 images through levels of 255 and back,
    as albumentations' ``uint8_io``): the value V times ``1 + brightness_coeff * snow_point``
    up to 255; every channel plus ``255 * snow_point * T`` (T the texture: a normal number per
    pixel, mean 0.5 and deviation 0.3, blurred twice by a Gaussian of sigma 1, times a depth
    falling linearly from 1 on the top row to 0.2 on the bottom one); then ``0.85 x + 0.15 *
    snow_point * tint`` (tint 0.6, 0.75, 1 for H, S, V); each stored into a byte as numpy
    does on x86-64 (truncated, values past 255 wrapped: bright pixels under heavy snow turn
    dark, hues past 180 wrap around, as in albumentations); back to RGB (the layer shifts the
    hue too: colours turn towards yellow and green, albumentations' look); and one pixel in a
    hundred, at random, white (a sparkle). The texture and sparkles are made on the device
    before the warp (kernels_cl/snow.cl), from numbers keyed on the sample (``key``,
    recorded): :func:`snow_numbers` draws them on the host. uint8 and float32 images.

    Images of 3 channels (RGB, as albumentations requires). The texture lies on the output:
    put RandomSnow after the geometry, as recipes do.

    Example:
        >>> t = RandomSnow(snow_point_range=(0.2, 0.2), brightness_coeff=2.0, p=1)
        >>> t.colour_ops({"snow_point": 0.2}, 3, 255.0)
        [[34, 110.5, 2.0]]
        >>> t = RandomSnow(snow_point_range=(0.5, 0.5), brightness_coeff=2.0, method="texture")
        >>> [round(w, 4) for w in t.colour_ops({"snow_point": 0.5, "key": [1, 2, 3]}, 3, 255.0)[0]]
        [46, 1.0, 2.0, 3.0, 2.0, 127.5, 0.075]
    """

    def __init__(self, brightness_coeff: float = 2.5, snow_point_range: Any = (0.1, 0.3),
                 method: str = "bleach", p: float = 0.5) -> None:
        super().__init__(p)
        if method not in ("bleach", "texture"):
            raise ValueError(f"RandomSnow's method must be 'bleach' or 'texture', got {method!r}")
        self.method = method
        self.brightness_coeff = number(brightness_coeff, "brightness_coeff")
        if not self.brightness_coeff > 0:
            raise ValueError(f"brightness_coeff must be > 0, got {brightness_coeff!r}")
        self.snow_point_range = value_range(snow_point_range, "snow_point_range", False,
                                            0.0, 1.0)[0]

    def draw(self, rng, size):
        point = float(rng.uniform(*self.snow_point_range))
        if self.method == "texture":
            return {"snow_point": point, "key": draw_key(rng)}
        return {"snow_point": point}

    def draw_lanes(self, lanes, sizes):
        points = lanes.uniform(*self.snow_point_range).tolist()
        if self.method == "texture":
            return [{"snow_point": t, "key": k} for t, k in zip(points, draw_keys(lanes))]
        return [{"snow_point": t} for t in points]

    def colour_ops(self, params, channels, peak):
        if channels != 3:
            raise TypeError(f"RandomSnow takes RGB images of 3 channels (as albumentations), got "
                            f"{channels} channel{'s' * (channels != 1)}")
        point = float(params["snow_point"])
        if self.method == "texture":
            return [[SNOW_TEX, *map(float, params["key"]), 1 + self.brightness_coeff * point,
                     255 * point, 0.15 * point]]
        return [[SNOW, point * 255 / 2 + 255 / 3, self.brightness_coeff]]

    def config(self):
        return {"brightness_coeff": self.brightness_coeff,
                "snow_point_range": list(self.snow_point_range), "method": self.method}


def _match_sign(a: float, b: float) -> float:
    """``b`` with ``a``'s sign where their signs differ (albumentations' rule)."""
    return -b if (a < 0 < b) or (a > 0 > b) else b


def _unmatch_sign(a: float, b: float) -> float:
    """``b`` with the sign opposite to ``a``'s where they share one (albumentations' rule)."""
    return -b if (a < 0 and b < 0) or (a > 0 and b > 0) else b


#: the interpolations ChromaticAberration takes: cv2.remap's nearest, linear, cubic, area (its
#: linear) and Lanczos
REMAP_INTERPOLATIONS = (0, 1, 2, 3, 4)


class ChromaticAberration(ColourTransform):
    """albumentations' ChromaticAberration: the red and the blue channel each resampled through
    a lens (OpenCV's radial distortion, coefficients k1 and k2) whose camera is the image
    (focal lengths its width and height, centre its middle), the green channel as it is.

    Per sample a primary (k1) and a secondary (k2) coefficient are drawn from their ranges for
    red, then for blue, in albumentations' order; each secondary takes its primary's sign, and
    ``mode="green_purple"`` gives blue red's signs, ``"red_blue"`` the opposite ones
    (``"random"``: no rule between them). On the device, in the pass after the warp: each
    pixel's position through the lens (``cv2.initUndistortRectifyMap``'s formula), read with
    the edges repeated (``cv2.remap``'s ``BORDER_REPLICATE``) from the image as the steps
    before left it, by ``cv2.remap``'s ``interpolation``: ``cv2.INTER_LINEAR`` (1,
    albumentations' default; ``INTER_AREA``, 3, is the same in ``cv2.remap``), ``INTER_NEAREST``
    (0: the position rounded as ``cv2.remap`` rounds a float map, half to even),
    ``INTER_CUBIC`` (2: OpenCV's 4 taps, A = -0.75) or ``INTER_LANCZOS4`` (4: its 8 taps).
    ``cv2.remap`` rounds positions to 1/32 pixel for the filters; warpkit does not, so the two
    differ by up to a level where the image changes fast (cubic and Lanczos, whose weights
    OpenCV also keeps in 15-bit fixed point, by up to a few). ``INTER_LINEAR_EXACT`` and
    ``INTER_NEAREST_EXACT`` (5, 6), which ``cv2.remap`` refuses, are refused. Images of 3
    channels (RGB, as albumentations requires), uint8, uint16 and float32.

    Example:
        >>> t = ChromaticAberration(primary_distortion_limit=(0.02, 0.02),
        ...                         secondary_distortion_limit=(-0.05, -0.05), p=1)
        >>> params = t.draw(np.random.default_rng(0), (64, 64))
        >>> params["secondary_distortion_red"], params["primary_distortion_blue"]
        (0.05, 0.02)
    """

    def __init__(self, primary_distortion_limit: Any = (-0.02, 0.02),
                 secondary_distortion_limit: Any = (-0.05, 0.05), mode: str = "green_purple",
                 interpolation: int = 1, p: float = 0.5) -> None:
        super().__init__(p)
        lim = MAX_CHROMA_COEFF
        self.primary_distortion_limit = value_range(primary_distortion_limit,
                                                    "primary_distortion_limit", True, -lim, lim)[0]
        self.secondary_distortion_limit = value_range(secondary_distortion_limit,
                                                      "secondary_distortion_limit", True,
                                                      -lim, lim)[0]
        if mode not in ("green_purple", "red_blue", "random"):
            raise ValueError(f"mode must be 'green_purple', 'red_blue' or 'random', got {mode!r}")
        self.mode = mode
        if isinstance(interpolation, bool) or interpolation not in REMAP_INTERPOLATIONS:
            raise ValueError(f"ChromaticAberration's interpolation must be one of cv2.remap's: "
                             f"0 (nearest), 1 (linear), 2 (cubic), 3 (area: linear in "
                             f"cv2.remap) or 4 (Lanczos), got {interpolation!r}")
        self.interpolation = int(interpolation)

    def _params(self, pr: float, sr: float, pb: float, sb: float) -> dict:
        sr, sb = _match_sign(pr, sr), _match_sign(pb, sb)
        if self.mode == "green_purple":
            pb, sb = _match_sign(pr, pb), _match_sign(sr, sb)
        elif self.mode == "red_blue":
            pb, sb = _unmatch_sign(pr, pb), _unmatch_sign(sr, sb)
        return {"primary_distortion_red": pr, "secondary_distortion_red": sr,
                "primary_distortion_blue": pb, "secondary_distortion_blue": sb}

    def draw(self, rng, size):
        p, s = self.primary_distortion_limit, self.secondary_distortion_limit
        return self._params(*(float(rng.uniform(*r)) for r in (p, s, p, s)))

    def draw_lanes(self, lanes, sizes):
        p, s = self.primary_distortion_limit, self.secondary_distortion_limit
        cols = [lanes.uniform(*r).tolist() for r in (p, s, p, s)]
        return [self._params(*row) for row in zip(*cols)]

    def colour_ops(self, params, channels, peak):
        if channels != 3:
            raise TypeError(f"ChromaticAberration takes RGB images of 3 channels (as "
                            f"albumentations), got {channels} channel{'s' * (channels != 1)}")
        mode = 1 if self.interpolation == 3 else self.interpolation  # (area: linear)
        return [[CHROMA, *(float(params[f"{a}_distortion_{c}"]) for c in ("red", "blue")
                           for a in ("primary", "secondary")), float(mode)]]

    def config(self):
        return {"primary_distortion_limit": list(self.primary_distortion_limit),
                "secondary_distortion_limit": list(self.secondary_distortion_limit),
                "mode": self.mode, "interpolation": self.interpolation}
