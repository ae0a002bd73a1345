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
from ..engine.core import COL_DATA as DATA, COL_HESTAIN as HESTAIN, colour_peak
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


#: the methods that fit the stain matrix to each image
FITTED = ("vahadane", "macenko")


@functools.lru_cache(maxsize=None)
def _stain_rows(preset: str) -> tuple[list[float], list[float]]:
    """A preset's words for the kernel, once per process (:func:`_matrix_rows`)."""
    return _matrix_rows(STAIN_MATRICES[preset])


def _matrix_rows(matrix: tuple) -> tuple[list[float], list[float]]:
    """A stain matrix's words for the kernel: A = (S S^T + 1e-6 I)^-1 S and S, row by row
    (albumentations' stain matrix as float32, its normal equations in double)."""
    s = np.asarray(matrix, np.float32).astype(np.float64)
    if not np.all(np.isfinite(s)) or s.shape != (2, 3):
        raise ValueError(f"HEStain's stain matrix must be 2 x 3 finite numbers, got {matrix!r}")
    a = np.linalg.solve(s @ s.T + 1e-6 * np.eye(2), s)
    return a.ravel().tolist(), s.ravel().tolist()


def _optical_density(img: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """albumentations' optical densities: (pixels, 3) float32, ``-log(max(v / peak, eps))``."""
    peak = 255 if img.dtype == np.uint8 else 1.0
    return -np.log(np.maximum(img.reshape(-1, 3).astype(np.float32) / peak, eps))


def _unit_rows(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt(np.sum(v ** 2, axis=1, keepdims=True))


#: albumentations' start for the factorisation: Ruifrok's hematoxylin and eosin
_RUIFROK = np.array(STAIN_MATRICES["ruifrok"], np.float32)


def _vahadane(img: np.ndarray) -> np.ndarray:
    """albumentations 2.0.8's Vahadane fit: its non-negative factorisation of the optical
    densities (100 multiplicative rounds from Ruifrok's colours, float32), the two colours
    ordered hematoxylin first by its combined angle and spectral score."""
    od = _optical_density(img)
    colours = _RUIFROK.copy()
    conc = np.maximum(od @ _unit_rows(colours).T, 0)
    eps = 1e-6
    for _ in range(100):
        conc *= (od @ colours.T) / (conc @ (colours @ colours.T) + eps)
        conc = np.maximum(conc, 0)
        colours *= (conc.T @ od) / ((conc.T @ conc) @ colours + eps)
        colours = _unit_rows(np.maximum(colours, 0))
    unit = _unit_rows(colours)
    angles = np.mod(np.arctan2(unit[:, 1], unit[:, 0]), np.pi)
    total = np.sum(unit, axis=1) + 1e-6
    h = int(np.argmax(angles * (unit[:, 2] / total) - unit[:, 0] / total))
    return np.array([colours[h], colours[1 - h]])


def _macenko(img: np.ndarray, percentile: float = 99) -> np.ndarray:
    """albumentations 2.0.8's Macenko fit with OpenCV's covariance, eigenvectors and product:
    the tissue's optical densities (any channel over 0.05) projected on their two principal
    directions, the angles' 1st and 99th percentiles turned back into colours, made
    non-negative and unit, hematoxylin (the larger red) first."""
    from ._domain import _opencv

    cv2 = _opencv()
    if cv2 is None:
        raise ValueError("HEStain(method='macenko') fits with OpenCV (albumentations' "
                         "arithmetic), which is not installed: pip install "
                         "opencv-python-headless")
    od = _optical_density(img)
    tissue = np.ascontiguousarray(od[(od > 0.05).any(axis=1)], dtype=np.float32)
    if len(tissue) < 1:
        raise ValueError("HEStain(method='macenko') found no tissue in the image (no pixel with "
                         "an optical density over 0.05): albumentations fails here too")
    cov = cv2.calcCovarMatrix(tissue, None, cv2.COVAR_NORMAL | cv2.COVAR_ROWS |
                              cv2.COVAR_SCALE)[0]
    values, vectors = cv2.eigen(cov)[1:]
    eps = 1e-8
    main = np.ascontiguousarray(vectors[:, np.argsort(values.ravel())[-2:]], dtype=np.float32)
    if np.any(np.abs(main) < eps):  # (then float64, as albumentations' np.where makes it)
        main = np.where(np.abs(main) < eps, np.where(main < 0, -eps, eps), main)
    plane = (tissue + eps) @ main
    angles = np.arctan2(plane[:, 1], plane[:, 0])
    lo, hi = np.percentile(angles, 100 - percentile), np.percentile(angles, percentile)
    turn = np.array([[np.cos(lo), np.sin(lo)], [np.cos(hi), np.sin(hi)]], dtype=np.float32)
    stains = np.abs(cv2.gemm(turn, np.ascontiguousarray(main.T, dtype=np.float32), 1, None, 0))
    stains = stains / np.sqrt(np.sum(stains ** 2, axis=1, keepdims=True) + eps)
    return stains if stains[0, 0] > stains[1, 0] else stains[::-1]


class HEStain(ColourTransform):
    """albumentations' HEStain with a reference stain matrix: ``method="preset"`` takes
    ``preset`` (default "standard"), ``"random_preset"`` draws one of the eight presets per
    sample; each stain's concentration is scaled by a factor from ``intensity_scale_range`` and
    shifted by a value from ``intensity_shift_range`` (two of each, drawn per sample, hematoxylin
    first), where the pixel is tissue or everywhere with ``augment_background``. RGB images of
    uint8 or float32, as albumentations. Its ``"vahadane"`` and ``"macenko"`` methods fit the
    stain matrix to each image as the steps before leave it (a factorisation of its optical
    densities; the principal directions of its tissue's), on the host between two passes in
    albumentations' arithmetic (:mod:`._host`), recorded as ``matrix``; the stain change is
    then the pass's, as with a preset.

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

    #: a fitted method's host step (:mod:`._host`): it reads the image and records the matrix
    #: it fits in the sample's parameters, then stays in the next pass, which stains with it
    changes = frozenset({"image"})
    threads = True
    stays_in_pass = True

    def __init__(self, method: str = "random_preset", preset: str | None = None,
                 intensity_scale_range: Any = (0.7, 1.3),
                 intensity_shift_range: Any = (-0.2, 0.2), augment_background: bool = False,
                 p: float = 0.5) -> None:
        super().__init__(p)
        if method not in ("preset", "random_preset") + FITTED:
            raise ValueError(f"HEStain's method must be 'preset', 'random_preset', 'vahadane' "
                             f"or 'macenko', got {method!r}")
        if method in FITTED and preset is not None:
            raise ValueError(f"HEStain: preset is for method='preset'; {method!r} fits the "
                             f"matrix to each image")
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

    @property
    def runs_on_host(self) -> bool:
        """Whether the stain matrix is fitted to each image (on the host, between two passes)."""
        return self.method in FITTED

    def run(self, target, value, params, shape):
        """Fit the sample's stain matrix to its image as the steps before left it (albumentations
        fits ``data["image"]``), recorded in ``params["matrix"]`` for the next pass (a replay's
        recorded matrix is kept); the image is unchanged."""
        if target == "image" and params.get("matrix") is None:
            _rgb_eight_bit("HEStain", 1 if value.ndim == 2 else value.shape[2],
                           colour_peak(value.dtype))
            fit = _vahadane if self.method == "vahadane" else _macenko
            params["matrix"] = np.asarray(fit(value), np.float64).tolist()
        return value

    def colour_ops(self, params, channels, peak):
        _rgb_eight_bit("HEStain", channels, peak)
        if self.method in FITTED:
            matrix = params.get("matrix")
            if matrix is None:
                raise ValueError(f"HEStain(method={self.method!r}) needs its fitted matrix in "
                                 f"the parameters (params['matrix'], 2 x 3)")
            a, s = _matrix_rows(tuple(map(tuple, np.asarray(matrix, np.float64).reshape(2, 3)
                                          .tolist())))
        else:
            a, s = _stain_rows(params["preset"])
        return [[HESTAIN, *a, *map(float, params["scale"]), *map(float, params["shift"]),
                 float(self.augment_background)], [DATA, *s]]

    def config(self):
        return {"method": self.method, "preset": self.preset,
                "intensity_scale_range": list(self.intensity_scale_range),
                "intensity_shift_range": list(self.intensity_shift_range),
                "augment_background": self.augment_background}
