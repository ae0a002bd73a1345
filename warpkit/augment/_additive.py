"""albumentations' AdditiveNoise inside the warp's pass (kernels_cl/colour.h's WK_COL_NOISE):
a noise of one of four laws (uniform, Gaussian, Laplace, Beta) added to the image, the same
number for every pixel (``"constant"``: one per channel), a number per pixel and channel
(``"per_pixel"``) or one per pixel for all channels (``"shared"``), optionally drawn on a
coarser grid and resized (``approximation``).

The laws' parameters are drawn per sample from the sample's stream and recorded; the
per-pixel numbers come from the kernel's counter-based generator keyed on the sample and the
pixel, as GaussNoise's do (the same alone, in any batch, on any device).

Example:
    >>> t = AdditiveNoise("uniform", "constant", {"ranges": [(0.1, 0.1), (-0.2, -0.2)]}, p=1)
    >>> import numpy as np
    >>> params = t.draw(np.random.default_rng(0), (8, 8))
    >>> [round(v, 3) for v in params["values"][:2]]
    [0.1, -0.2]
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._checks import number
from ..engine.core import COL_NOISE as NOISE
from ._base import normals, value_range
from ._colour import ColourTransform, draw_key, draw_keys

__all__ = ["AdditiveNoise"]

#: albumentations' default parameters of each law
DEFAULTS: dict[str, dict[str, Any]] = {
    "uniform": {"ranges": [(-0.1, 0.1)]},
    "gaussian": {"mean_range": (0.0, 0.0), "std_range": (0.05, 0.15)},
    "laplace": {"mean_range": (0.0, 0.0), "scale_range": (0.05, 0.15)},
    "beta": {"alpha_range": (0.5, 1.5), "beta_range": (0.5, 1.5), "scale_range": (0.1, 0.3)},
}
#: each law's kind in WK_COL_NOISE's w[9]; 4 is the constant mode's
_KIND = {"gaussian": 0, "uniform": 1, "laplace": 2, "beta": 3}
#: the ranges each law takes: (its name, low bound, high bound); the Beta's shapes must be > 0
_BOUNDS = {"mean_range": (-1.0, 1.0), "std_range": (0.0, 1.0), "scale_range": (0.0, 1.0),
           "alpha_range": (0.0, math.inf), "beta_range": (0.0, math.inf)}


class _Short(Exception):
    """A lane's draws ran past the numbers looked at ahead (:meth:`AdditiveNoise.draw_lanes`)."""


def _gamma(take: Callable[[int], list], s: float) -> float:
    """A standard gamma variate of shape ``s`` > 0 from uniform numbers in [0, 1) (``take(k)``:
    the next k of the sample's stream), by Marsaglia and Tsang's method (below shape 1, of s + 1
    times u^(1/s)), in Python's own arithmetic (the same on every machine, unlike numpy's
    vector loops)."""
    sp = s + 1.0 if s < 1.0 else s
    d = sp - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = float(normals(np.array(take(2)))[0])
        v = (1.0 + c * x) ** 3
        if v > 0 and math.log(1.0 - take(1)[0]) < 0.5 * x * x + d - d * v + d * math.log(v):
            break
    g = d * v
    return g * (1.0 - take(1)[0]) ** (1.0 / s) if s < 1.0 else g


def _betas(take: Callable[[int], list], a: float, b: float, scale: float) -> list[float]:
    """Four numbers (2 B - 1) scale, B = X / (X + Y) of standard gammas of shapes a and b."""
    out = []
    for _ in range(4):
        x = _gamma(take, a)
        out.append((2.0 * (x / (x + _gamma(take, b))) - 1.0) * scale)
    return out


def _laplaces(u: list, mean: float, scale: float) -> list[float]:
    """Four Laplace numbers from eight uniform ones: a sign, then an exponential, each."""
    return [mean + scale * (1.0 if a < 0.5 else -1.0) * -math.log(1.0 - b)
            for a, b in zip(u[::2], u[1::2])]


class AdditiveNoise(ColourTransform):
    """albumentations' AdditiveNoise: ``noise_type`` ``"uniform"`` (``ranges``: a (low, high) per
    channel, or one for all; the pixel modes take the first), ``"gaussian"`` (``mean_range``,
    ``std_range``), ``"laplace"`` (``mean_range``, ``scale_range``) or ``"beta"``
    (``alpha_range``, ``beta_range``, ``scale_range``: ``(2 B - 1) * scale``, B of Beta(alpha,
    beta)), in fractions of the peak (255 for uint8, 65535 for uint16, 1 for float images), the
    law's parameters drawn per sample (recorded), added and clipped; integer images add it
    truncated toward zero, as albumentations does.

    ``spatial_mode="constant"`` adds one number per channel, drawn on the host (recorded:
    ``values``); ``"per_pixel"`` a number per pixel and channel, ``"shared"`` one per pixel for
    every channel, both drawn in the kernel (Philox keyed on the sample, ``key``, and the pixel:
    the uniform numbers from 24 bits, Gaussian ones by Box-Muller, Laplace ones as a sign and an
    exponential, Beta ones from two gamma variates by Marsaglia and Tsang's method).
    ``approximation`` < 1 draws them on a grid of ``max(1, int(side * approximation))`` points
    and resizes it linearly onto the image (OpenCV's INTER_LINEAR), as albumentations does.
    albumentations draws with numpy's and OpenCV's generators, so the two agree in law, not
    pixel for pixel; the constant mode with fixed parameters gives its levels exactly.

    Example:
        >>> t = AdditiveNoise("gaussian", "shared", {"mean_range": (0.1, 0.1),
        ...                                        "std_range": (0.0, 0.0)}, p=1)
        >>> t.colour_ops({"mean": 0.1, "std": 0.0, "key": [1, 2, 3]}, 3, 255.0)[0][4:10]
        [0.0, 25.5, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, noise_type: str = "uniform", spatial_mode: str = "constant",
                 noise_params: dict[str, Any] | None = None, approximation: float = 1.0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        if noise_type not in _KIND:
            raise ValueError(f"noise_type must be one of {sorted(_KIND)}, got {noise_type!r}")
        if spatial_mode not in ("constant", "per_pixel", "shared"):
            raise ValueError("spatial_mode must be 'constant', 'per_pixel' or 'shared', got "
                             f"{spatial_mode!r}")
        self.noise_type, self.spatial_mode = noise_type, spatial_mode
        self.noise_params = self._params(noise_params)
        a = number(approximation, "approximation")
        if not 0 <= a <= 1:
            raise ValueError(f"approximation must be in [0, 1], got {approximation!r}")
        self.approximation = a

    def _params(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """The law's parameters checked, as albumentations' schema checks them."""
        params = dict(DEFAULTS[self.noise_type] if given is None else given)
        if not isinstance(given, (dict, type(None))):
            raise ValueError(f"noise_params must be a dict or None, got {given!r}")
        if params.pop("noise_type", self.noise_type) != self.noise_type:
            raise ValueError(f"noise_params' noise_type must be {self.noise_type!r} as the "
                             f"transform's, got {given['noise_type']!r}")
        want = set(DEFAULTS[self.noise_type])
        if set(params) != want:
            raise ValueError(f"noise_params for {self.noise_type!r} noise take exactly "
                             f"{sorted(want)}, got {sorted(params)}")
        out: dict[str, Any] = {}
        if self.noise_type == "uniform":
            ranges = params["ranges"]
            if isinstance(ranges, (str, bytes)) or not hasattr(ranges, "__len__") or not ranges:
                raise ValueError(f"noise_params' ranges must be a list of (low, high) pairs, got "
                                 f"{ranges!r}")
            out["ranges"] = [list(value_range(r, "noise_params' ranges", False, -1.0, 1.0)[0])
                             for r in ranges]
            return out
        for name in sorted(want):
            lo, hi = _BOUNDS[name]
            out[name] = list(value_range(params[name], f"noise_params' {name}", False, lo, hi)[0])
            if name in ("alpha_range", "beta_range") and out[name][0] <= 0:
                raise ValueError(f"noise_params' {name} must be above 0 (a Beta's shapes are), "
                                 f"got {params[name]!r}")
        return out

    def draw(self, rng, size):
        return self._draw(lambda k: rng.random(k).tolist(),
                          lambda lo, hi: float(rng.uniform(lo, hi)), lambda: draw_key(rng), size)

    def _draw(self, take, uniform, key, size) -> dict:
        """One sample's parameters: ``take(k)`` its next k uniform numbers in [0, 1),
        ``uniform(lo, hi)`` one in [lo, hi), ``key()`` the kernel generator's key."""
        q = self.noise_params
        constant = self.spatial_mode == "constant"
        if self.noise_type == "uniform":
            out: dict[str, Any] = {}
            if constant:  # a number per channel (four: the image's channels take theirs)
                r = q["ranges"]
                out["values"] = [uniform(*r[min(k, len(r) - 1)]) for k in range(4)]
        elif self.noise_type == "beta":
            out = {n: uniform(*q[f"{n}_range"]) for n in ("alpha", "beta", "scale")}
            if constant:
                out["values"] = _betas(take, out["alpha"], out["beta"], out["scale"])
        else:
            spread = "std" if self.noise_type == "gaussian" else "scale"
            out = {"mean": uniform(*q["mean_range"]), spread: uniform(*q[f"{spread}_range"])}
            if constant and self.noise_type == "gaussian":
                out["values"] = [out["mean"] + out["std"] * float(z)
                                 for z in normals(np.array(take(4)))]
            elif constant:
                out["values"] = _laplaces(take(8), out["mean"], out["scale"])
        if not constant:
            out["key"] = key()
            if self.approximation < 1:
                out["grid"] = [max(1, int(size[0] * self.approximation)),
                               max(1, int(size[1] * self.approximation))]
        return out

    def draw_lanes(self, lanes, sizes):
        """:meth:`draw` for a batch: the ranges' numbers side by side; the constant mode's per
        lane from numbers looked at ahead (a Beta's gamma tries take as many as they need),
        then drawn."""
        n = len(sizes)
        uni = [lanes.uniform(*r) for r in self._lane_ranges()]
        keys = draw_keys(lanes) if self.spatial_mode != "constant" else [None] * n
        ahead, need = None, self._lane_numbers()
        if need:
            width = need
            while True:
                ahead = lanes.ahead(width).tolist()
                used = np.zeros(n, np.intp)
                try:
                    out = [self._lane(k, uni, ahead, used, keys, sizes) for k in range(n)]
                    break
                except _Short:  # a lane's tries ran past what was looked at
                    width *= 4
            lanes.skip(used)
            return out
        return [self._lane(k, uni, None, None, keys, sizes) for k in range(n)]

    def _lane_ranges(self) -> list:
        """The (low, high) ranges :meth:`_draw` draws from, in order, before its other numbers."""
        q = self.noise_params
        if self.noise_type == "uniform":
            r = q["ranges"]
            return [r[min(k, len(r) - 1)] for k in range(4)] if \
                self.spatial_mode == "constant" else []
        if self.noise_type == "beta":
            return [q[f"{n}_range"] for n in ("alpha", "beta", "scale")]
        spread = "std" if self.noise_type == "gaussian" else "scale"
        return [q["mean_range"], q[f"{spread}_range"]]

    def _lane_numbers(self) -> int:
        """How many uniform numbers past the ranges' :meth:`_draw` takes (the Beta's: a first
        look, as many as four pairs of gammas usually need)."""
        if self.spatial_mode != "constant" or self.noise_type == "uniform":
            return 0
        return {"gaussian": 4, "laplace": 8, "beta": 64}[self.noise_type]

    def _lane(self, k, uni, ahead, used, keys, sizes) -> dict:
        """Lane k's :meth:`_draw`, from the batch's numbers: ``uni`` the ranges' (in order),
        ``ahead`` the numbers looked at ahead (``used[k]`` counts those taken)."""
        vals = iter([float(u[k]) for u in uni])

        def take(m: int) -> list:
            if used[k] + m > len(ahead[k]):
                raise _Short(k)
            used[k] += m
            return ahead[k][used[k] - m:used[k]]

        return self._draw(take, lambda lo, hi: next(vals), lambda: keys[k], sizes[k])

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"AdditiveNoise takes images of at most 4 channels, got {channels}")
        if self.spatial_mode == "constant":
            r = self.noise_params.get("ranges", [0])
            if 1 < len(r) < channels:
                raise ValueError(f"AdditiveNoise's uniform ranges: {len(r)} for an image of "
                                 f"{channels} channels (give one for all, or one per channel)")
            return [[NOISE, *(v * peak for v in params["values"]), 0.0, 0.0, 0.0, 0.0, 4.0]]
        kind = _KIND[self.noise_type]
        if self.noise_type == "uniform":
            lo, hi = self.noise_params["ranges"][0]
            scale, offset = (hi - lo) * peak, lo * peak
        elif self.noise_type == "beta":
            scale, offset = 2.0 * params["scale"] * peak, -params["scale"] * peak
        else:
            scale = params["std" if self.noise_type == "gaussian" else "scale"] * peak
            offset = params["mean"] * peak
        grid = params.get("grid", [0, 0])
        shapes = [params["alpha"], params["beta"]] if self.noise_type == "beta" else [0.0, 0.0]
        return [[NOISE, *map(float, params["key"]), scale, offset,
                 float(self.spatial_mode == "per_pixel"), *map(float, grid), float(kind),
                 *map(float, shapes)]]

    def config(self):
        return {"noise_type": self.noise_type, "spatial_mode": self.spatial_mode,
                "noise_params": self.noise_params, "approximation": self.approximation}
