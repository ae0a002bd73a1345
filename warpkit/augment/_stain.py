"""HEStain under albumentations 2.0.8's name and parameters: H&E (hematoxylin and eosin)
stain augmentation of histology images, in the warp's store (one pass): each pixel's optical
densities split into the two stains' concentrations by a reference stain matrix, each stain's
concentration scaled and shifted (in tissue only, unless ``augment_background``), and the
colour rebuilt from them.

Conventions: the stain matrix is albumentations' (two rows, hematoxylin then eosin, over R, G,
B); colours are fractions of the image's peak (uint8 levels / 255, as albumentations' float
round trip); a pixel is tissue where its luminosity 0.299 R + 0.587 G + 0.114 B is below 0.85.

Example:
    >>> t = HEStain(method="preset", preset="standard", p=1)
    >>> p = t.draw(np.random.default_rng(0), (64, 64))
    >>> p["preset"], len(p["scale"]), len(p["shift"])
    ('standard', 2, 2)
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._checks import flag
from ..engine.core import COL_DATA as DATA, COL_HESTAIN as HESTAIN
from ._base import value_range
from ._colour import ColourTransform, _rgb_eight_bit

__all__ = ["HEStain", "STAIN_MATRICES"]

#: albumentations' reference stain matrices (hematoxylin, eosin) x (R, G, B), by preset name
STAIN_MATRICES = {
    "ruifrok": ((0.644211, 0.716556, 0.266844), (0.092789, 0.954111, 0.283111)),
    "macenko": ((0.5626, 0.7201, 0.4062), (0.2159, 0.8012, 0.5581)),
    "standard": ((0.65, 0.70, 0.29), (0.07, 0.99, 0.11)),
    "high_contrast": ((0.55, 0.88, 0.11), (0.12, 0.86, 0.49)),
    "h_heavy": ((0.75, 0.61, 0.32), (0.04, 0.93, 0.36)),
    "e_heavy": ((0.60, 0.75, 0.28), (0.17, 0.95, 0.25)),
    "dark": ((0.78, 0.55, 0.28), (0.09, 0.97, 0.21)),
    "light": ((0.57, 0.71, 0.38), (0.15, 0.89, 0.42)),
}
PRESETS = tuple(STAIN_MATRICES)


@functools.lru_cache(maxsize=None)
def _stain_rows(preset: str) -> tuple[list[float], list[float]]:
    """A preset's words for the kernel, once per process: A = (S S^T + 1e-6 I)^-1 S and S, row
    by row (albumentations' stain matrix as float32, its normal equations in double)."""
    s = np.asarray(STAIN_MATRICES[preset], np.float32).astype(np.float64)
    a = np.linalg.solve(s @ s.T + 1e-6 * np.eye(2), s)
    return a.ravel().tolist(), s.ravel().tolist()


class HEStain(ColourTransform):
    """albumentations' HEStain with a reference stain matrix: ``method="preset"`` takes
    ``preset`` (default "standard"), ``"random_preset"`` draws one of the eight presets per
    sample; each stain's concentration is scaled by a factor from ``intensity_scale_range`` and
    shifted by a value from ``intensity_shift_range`` (two of each, drawn per sample, hematoxylin
    first), where the pixel is tissue or everywhere with ``augment_background``. RGB images of
    uint8 or float32, as albumentations. Its ``"vahadane"`` and ``"macenko"`` methods estimate
    the stain matrix from each image (a factorisation of its optical densities): refused.

    Recorded: ``preset``, ``scale`` and ``shift``. The concentrations come from the regularised
    normal equations, (S S^T + 1e-6 I) k = S d, solved once per sample on the host (in double,
    as albumentations solves them per pixel); the kernel computes in float32 (within a level of
    albumentations on uint8).

    Example:
        >>> ops = HEStain(method="preset", preset="dark", p=1).colour_ops(
        ...     {"preset": "dark", "scale": [1.0, 1.0], "shift": [0.0, 0.0]}, 3, 255.0)
        >>> [len(op) for op in ops], ops[1][1:4]
        ([12, 7], [0.7799999713897705, 0.550000011920929, 0.2800000011920929])
    """

    def __init__(self, method: str = "random_preset", preset: str | None = None,
                 intensity_scale_range: Any = (0.7, 1.3),
                 intensity_shift_range: Any = (-0.2, 0.2), augment_background: bool = False,
                 p: float = 0.5) -> None:
        super().__init__(p)
        if method in ("vahadane", "macenko"):
            raise ValueError(f"HEStain(method={method!r}) is not supported: it estimates each "
                             f"image's stain matrix (a factorisation of its optical densities); "
                             f"warpkit takes method='preset' or 'random_preset'")
        if method not in ("preset", "random_preset"):
            raise ValueError(f"HEStain's method must be 'preset' or 'random_preset' (or "
                             f"albumentations' 'vahadane' / 'macenko', not supported), got "
                             f"{method!r}")
        if method == "random_preset" and preset is not None:
            raise ValueError("HEStain: preset is for method='preset'; 'random_preset' draws one")
        if method == "preset":
            preset = "standard" if preset is None else preset
            if preset not in STAIN_MATRICES:
                raise ValueError(f"HEStain's preset must be one of {', '.join(PRESETS)}, got "
                                 f"{preset!r}")
        self.method, self.preset = method, preset
        self.intensity_scale_range = value_range(intensity_scale_range, "intensity_scale_range",
                                                 False, 0.0, float("inf"))[0]
        self.intensity_shift_range = value_range(intensity_shift_range, "intensity_shift_range",
                                                 False, -1.0, 1.0)[0]
        self.augment_background = flag(augment_background, "augment_background")

    def draw(self, rng, size):
        # albumentations' order: the preset, the two scales, the two shifts
        preset = PRESETS[int(rng.integers(0, len(PRESETS)))] \
            if self.method == "random_preset" else self.preset
        scale = [float(rng.uniform(*self.intensity_scale_range)) for _ in range(2)]
        shift = [float(rng.uniform(*self.intensity_shift_range)) for _ in range(2)]
        return {"preset": preset, "scale": scale, "shift": shift}

    def draw_lanes(self, lanes, sizes):
        presets = lanes.integers(0, len(PRESETS)).tolist() if self.method == "random_preset" \
            else [None] * len(sizes)
        scale = [lanes.uniform(*self.intensity_scale_range).tolist() for _ in range(2)]
        shift = [lanes.uniform(*self.intensity_shift_range).tolist() for _ in range(2)]
        return [{"preset": self.preset if k is None else PRESETS[k], "scale": [a, b],
                 "shift": [c, d]} for k, a, b, c, d in zip(presets, *scale, *shift)]

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("HEStain", channels, peak)
        a, s = _stain_rows(params["preset"])
        return [[HESTAIN, *a, *map(float, params["scale"]), *map(float, params["shift"]),
                 float(self.augment_background)], [DATA, *s]]

    def config(self):
        return {"method": self.method, "preset": self.preset,
                "intensity_scale_range": list(self.intensity_scale_range),
                "intensity_shift_range": list(self.intensity_shift_range),
                "augment_background": self.augment_background}
