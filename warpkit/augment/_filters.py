"""Filters with a kernel of weights under albumentations 2.0.8's names and parameters:
``AdvancedBlur`` (an anisotropic generalised Gaussian with multiplicative noise), ``Defocus``
(an anti-aliased disc) and ``RingingOvershoot`` (a circular low-pass sinc filter); and
``GlassBlur`` (a Gaussian blur, pixels swapped with random neighbours, blurred again). The host
makes albumentations' kernel from the recorded parameters, with its arithmetic; the device
applies it in the pass after the warp that ``MotionBlur`` takes (kernels_cl/colour.h's
WK_COL_TAPS: the nonzero weights as taps, summed row by row as OpenCV's ``filter2D`` sums
them, edges reflected without repeating the edge pixel), then the colour steps after it in
the same launch.

Example:
    >>> import numpy as np
    >>> k = defocus_kernel(3, 0.3)
    >>> k.shape, round(float(k.sum()), 5)
    ((17, 17), 1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.core import COL_BLUR as BLUR, COL_DATA as DATA, COL_GLASS as GLASS, \
    COL_TAPS as TAPS, COL_UNSHARP as UNSHARP, COL_ZOOM as ZOOM, MAX_GLASS_DELTA, split
from ..engine.plan import MAX_BLUR_RADIUS, MAX_TAPS, MAX_ZOOMS
from ._base import value_range
from ._philox import kernel_key, philox4x32
from ._transforms import _OneLane
from ._colour import ColourTransform, _kernel_sizes, _non_negative, _odd_size, _odd_sizes, \
    _signed, _with_data, draw_key, draw_keys

__all__ = ["AdvancedBlur", "Defocus", "GlassBlur", "RingingOvershoot", "UnsharpMask", "ZoomBlur",
           "advanced_blur_kernel", "bessel_j1", "defocus_kernel", "glass_displacements",
           "opencv_sigma_kernel",
           "ringing_kernel", "taps", "zoom_factors"]


def taps(kernel: np.ndarray) -> list[list[float]]:
    """A 2-D kernel (odd sides, its anchor the centre) as one WK_COL_TAPS operation and its
    WK_COL_DATA operations: each row with a nonzero weight as (dy, its first dx, the count of
    weights to its last nonzero one), then those float32 weights, 8 an operation."""
    k = np.asarray(kernel, np.float32)
    cy, cx = k.shape[0] // 2, k.shape[1] // 2
    data: list[list[float]] = []
    rows = reach = 0
    for y in range(k.shape[0]):
        xs = np.flatnonzero(k[y])
        if not len(xs):
            continue
        weights = k[y, xs[0]:xs[-1] + 1].astype(np.float64).tolist()
        reach = max(reach, cx - int(xs[0]), int(xs[-1]) - cx)
        rows += 1
        data.append([DATA, float(y - cy), float(xs[0] - cx), float(len(weights))])
        data += [[DATA, *weights[i:i + 8]] for i in range(0, len(weights), 8)]
    return [[TAPS, float(rows), float(reach), float(len(data))], *data]


def advanced_blur_kernel(ksize: int, sigma_x: float, sigma_y: float, angle: float, beta: float,
                         noise: Any) -> np.ndarray:
    """albumentations' AdvancedBlur kernel ((ksize, ksize), normalised): a generalised Gaussian
    of shape ``beta`` with deviations ``sigma_x``, ``sigma_y`` turned by ``angle`` degrees, times
    ``noise`` (ksize x ksize values), its own arithmetic."""
    ax = np.arange(-ksize // 2 + 1.0, ksize // 2 + 1.0)
    grid = np.stack(np.meshgrid(ax, ax), axis=-1)
    rad = np.deg2rad(angle)
    d = np.array([[sigma_x ** 2, 0], [0, sigma_y ** 2]])
    u = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    inverse = np.linalg.inv(np.dot(u, np.dot(d, u.T)))
    kernel = np.exp(-0.5 * np.power(np.sum(np.dot(grid, inverse) * grid, 2), beta))
    kernel *= np.asarray(noise, np.float64).reshape(ksize, ksize)
    return kernel.astype(np.float32) / np.sum(kernel)


#: OpenCV's Gaussian kernels of 3, 5 and 7 taps for sigma 0 (its small_gaussian_tab)
_SMALL_GAUSSIAN = {3: [0.25, 0.5, 0.25], 5: [0.0625, 0.25, 0.375, 0.25, 0.0625],
                   7: [0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125]}


def _gaussian_1d(ksize: int, sigma: float) -> np.ndarray:
    """OpenCV's getGaussianKernel(ksize, sigma) for float images (float32 weights)."""
    if sigma <= 0 and ksize in _SMALL_GAUSSIAN:
        return np.array(_SMALL_GAUSSIAN[ksize], np.float32)
    s = sigma if sigma > 0 else ((ksize - 1) * 0.5 - 1) * 0.3 + 0.8
    x = np.arange(ksize) - (ksize - 1) * 0.5
    g = np.exp(-0.5 / (s * s) * x * x)
    return (g / g.sum()).astype(np.float32)


def defocus_kernel(radius: int, alias_blur: float) -> np.ndarray:
    """albumentations' Defocus kernel: the disc of ``radius`` on a grid of 2 max(8, radius) + 1,
    normalised, blurred by OpenCV's GaussianBlur of 3 taps (5 past a radius of 8) and sigma
    ``alias_blur`` (its edges reflected without repeating the edge)."""
    length = np.arange(-max(8, radius), max(8, radius) + 1)
    x, y = np.meshgrid(length, length)
    disc = np.array((x ** 2 + y ** 2) <= radius ** 2, dtype=np.float32)
    disc /= np.sum(disc)
    k = 3 if radius <= 8 else 5
    g = _gaussian_1d(k, alias_blur).astype(np.float64)
    out = np.pad(disc.astype(np.float64), k // 2, mode="reflect")
    out = sum(g[i] * out[:, i:i + disc.shape[1]] for i in range(k))
    out = sum(g[i] * out[i:i + disc.shape[0]] for i in range(k))
    return out.astype(np.float32)


class AdvancedBlur(ColourTransform):
    """albumentations' AdvancedBlur: OpenCV's filter2D with a generalised Gaussian kernel (an
    odd size from ``blur_limit``, deviations from ``sigma_x_limit`` and ``sigma_y_limit``, turned
    by ``rotate_limit`` degrees, of shape ``beta`` drawn below 1 or above it with even odds from
    ``beta_limit``), each weight times a uniform number from ``noise_limit``, normalised; drawn
    in albumentations' order, the noise recorded with the rest.

    Example:
        >>> t = AdvancedBlur(blur_limit=(5, 5), p=1)
        >>> p = t.draw(np.random.default_rng(0), (64, 64))
        >>> p["ksize"], len(p["noise"])
        (5, 25)
    """

    def __init__(self, blur_limit: Any = (3, 7), sigma_x_limit: Any = (0.2, 1.0),
                 sigma_y_limit: Any = (0.2, 1.0), rotate_limit: Any = (-90, 90),
                 beta_limit: Any = (0.5, 8.0), noise_limit: Any = (0.9, 1.1),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _kernel_sizes(blur_limit, "blur_limit")
        if self.blur_limit[1] ** 2 > MAX_TAPS:
            raise ValueError(f"AdvancedBlur's blur_limit {list(self.blur_limit)} reaches past "
                             f"warpkit's largest kernel ({MAX_TAPS} taps)")
        self.sigma_x_limit = _non_negative(sigma_x_limit, "sigma_x_limit")
        self.sigma_y_limit = _non_negative(sigma_y_limit, "sigma_y_limit")
        if self.sigma_x_limit[0] == 0 and self.sigma_y_limit[0] == 0:
            raise ValueError("sigma_x_limit and sigma_y_limit cannot both start at 0")
        self.rotate_limit = _signed(rotate_limit, "rotate_limit")
        self.beta_limit = _non_negative(beta_limit, "beta_limit")
        if not self.beta_limit[0] < 1 < self.beta_limit[1]:
            raise ValueError(f"beta_limit must hold 1 inside it, got {beta_limit!r}")
        self.noise_limit = _non_negative(noise_limit, "noise_limit")
        if self.noise_limit[1] <= 0:  # (every weight times 0: no kernel to normalise)
            raise ValueError(f"noise_limit must reach above 0, got {noise_limit!r}")

    def draw(self, rng, size):
        # albumentations' order: the size, the deviations, the angle, the shape's side of 1,
        # the shape, then the noise
        k = _odd_size(rng, self.blur_limit)
        sx, sy = float(rng.uniform(*self.sigma_x_limit)), float(rng.uniform(*self.sigma_y_limit))
        angle = float(rng.uniform(*self.rotate_limit))
        (lo, hi), below = self.beta_limit, rng.random() < 0.5
        beta = float(rng.uniform(lo, 1) if below else rng.uniform(1, hi))
        noise = rng.uniform(*self.noise_limit, size=k * k)
        return {"ksize": k, "sigma_x": sx, "sigma_y": sy, "angle": angle, "beta": beta,
                "noise": noise.tolist()}

    def draw_lanes(self, lanes, sizes):
        n = len(sizes)
        k = np.array(_odd_sizes(lanes, self.blur_limit, n))
        sx, sy = lanes.uniform(*self.sigma_x_limit), lanes.uniform(*self.sigma_y_limit)
        angle = lanes.uniform(*self.rotate_limit)
        (lo, hi), below = self.beta_limit, lanes.random() < 0.5
        u = lanes.random()  # (numpy's uniform: low + (high - low) * random())
        beta = np.where(below, lo + (1 - lo) * u, 1 + (hi - 1) * u)
        noise: list = [None] * n
        a, b = self.noise_limit
        for size in np.unique(k).tolist():
            where = k == size
            got = a + (b - a) * lanes.random(where, k=size * size).reshape(n, -1)
            for i in np.flatnonzero(where).tolist():
                noise[i] = got[i].tolist()
        return [{"ksize": int(k[i]), "sigma_x": float(sx[i]), "sigma_y": float(sy[i]),
                 "angle": float(angle[i]), "beta": float(beta[i]), "noise": noise[i]}
                for i in range(n)]

    def colour_ops(self, params, channels, peak):
        return taps(advanced_blur_kernel(params["ksize"], params["sigma_x"], params["sigma_y"],
                                         params["angle"], params["beta"], params["noise"]))

    def config(self):
        return {"blur_limit": list(self.blur_limit), "sigma_x_limit": list(self.sigma_x_limit),
                "sigma_y_limit": list(self.sigma_y_limit),
                "rotate_limit": list(self.rotate_limit), "beta_limit": list(self.beta_limit),
                "noise_limit": list(self.noise_limit)}


class Defocus(ColourTransform):
    """albumentations' Defocus: OpenCV's filter2D with a disc of a radius drawn from ``radius``
    (whole pixels, both ends included; ``x`` means (1, x)), anti-aliased by a Gaussian of sigma
    drawn from ``alias_blur`` (:func:`defocus_kernel`). Radii up to 32 (a 65 x 65 kernel).

    Example:
        >>> Defocus(radius=(4, 4), alias_blur=(0.2, 0.2), p=1).draw(np.random.default_rng(0),
        ...                                                          (64, 64))
        {'radius': 4, 'alias_blur': 0.2}
    """

    def __init__(self, radius: Any = (3, 10), alias_blur: Any = (0.1, 0.5),
                 p: float = 0.5) -> None:
        super().__init__(p)
        if isinstance(radius, (int, np.integer)) and not isinstance(radius, bool):
            radius = (1, radius)
        lo, hi = value_range(radius, "radius", False, 1, math.inf)[0]
        if not (float(lo).is_integer() and float(hi).is_integer()):
            raise ValueError(f"radius must be whole pixels >= 1, got {radius!r}")
        if (2 * max(8, hi) + 1) ** 2 > MAX_TAPS:
            raise ValueError(f"Defocus's radius can reach {int(hi)}; warpkit's largest kernel "
                             f"is {MAX_TAPS} taps (radius 32)")
        self.radius = (int(lo), int(hi))
        self.alias_blur = _non_negative(alias_blur, "alias_blur")

    def draw(self, rng, size):
        return self.draw_lanes(_OneLane(rng), [size])[0]

    def draw_lanes(self, lanes, sizes):
        r = lanes.integers(self.radius[0], self.radius[1] + 1).tolist()
        a = lanes.uniform(*self.alias_blur).tolist()
        return [{"radius": int(x), "alias_blur": float(y)} for x, y in zip(r, a)]

    def colour_ops(self, params, channels, peak):
        return taps(defocus_kernel(params["radius"], params["alias_blur"]))

    def config(self):
        return {"radius": list(self.radius), "alias_blur": list(self.alias_blur)}


def opencv_sigma_kernel(sigma: float, peak: float) -> np.ndarray:
    """The 1-D kernel of ``cv2.GaussianBlur(img, ksize=(0, 0), sigmaX=sigma)``: OpenCV's size
    from sigma (``cvRound(sigma * 3 * 2 + 1) | 1`` for uint8 images, ``peak`` 255, 4 for the
    others) and ``getGaussianKernel``'s weights, ``exp(-x^2 / (2 sigma^2))`` normalised
    (:func:`_gaussian_1d`, float32).

    Example:
        >>> [round(float(v), 4) for v in opencv_sigma_kernel(0.7, 255.0)]
        [0.0096, 0.2054, 0.5699, 0.2054, 0.0096]
    """
    size = int(np.rint(sigma * (3 if peak == 255.0 else 4) * 2 + 1)) | 1
    return _gaussian_1d(size, sigma)


#: the third counter word of GlassBlur's displacements (kernels_cl/colour_pass.cl's cp_glass_d8)
GLASS_TAG = 0x474C53


def glass_displacements(key: Any, iterations: int, max_delta: int, height: int,
                        width: int) -> np.ndarray:
    """The displacements GlassBlur's kernel draws for an output of ``height`` x ``width`` under
    a recorded ``key``, laid out as albumentations' ``dxy`` ((pixels, iterations, 2) int64: dy
    then dx of each pixel of its grid, in numpy's order): what ``glass_blur(img, sigma,
    max_delta, iterations, dxy, mode)`` takes to give the same image, in either mode. Swap n
    of iteration i (n in the mode's own order: "fast" numpy's, h fastest; "exact" its loop's,
    w fastest) takes Philox-4x32-10's block of counter (n, i, GLASS_TAG): dy = floor(word 0 *
    2 max_delta / 2^32) - max_delta, dx likewise from word 1.

    Example:
        >>> d = glass_displacements([1, 2, 3], 2, 4, 20, 30)
        >>> d.shape, int(d.min()) >= -4, int(d.max()) <= 3
        ((264, 2, 2), True, True)
    """
    n = max(height - 2 * max_delta, 0) * max(width - 2 * max_delta, 0)
    out = np.empty((n, iterations, 2), np.int64)
    order = np.arange(n)
    span = np.uint64(2 * max_delta)
    for i in range(iterations):
        words = philox4x32(order, np.full(n, i), GLASS_TAG, kernel_key(key))
        for axis in range(2):
            out[:, i, axis] = ((words[axis] * span) >> np.uint64(32)).astype(np.int64) - max_delta
    return out


class GlassBlur(ColourTransform):
    """albumentations' GlassBlur: ``cv2.GaussianBlur`` of
    ``sigma`` (its size from sigma: :func:`opencv_sigma_kernel`), then ``iterations`` rounds of
    numpy's swaps over the pixels (h, w) with ``max_delta < h <= H - max_delta`` and
    ``max_delta < w <= W - max_delta``, each with the pixel ``(dy, dx)`` away,
    ``dy, dx`` uniform whole numbers in ``[-max_delta, max_delta)`` (albumentations' law), then
    the blur again. Each round is a pass on the device (kernels_cl/colour_pass.cl's
    WK_COL_GLASS). ``mode="fast"`` (albumentations' default) swaps them all at once as numpy's
    fancy assignment does: every such pixel takes its partner's value, then each partner
    takes the value of the last pixel (numpy's order) that chose it. ``mode="exact"`` takes
    one pair after another, rows from the bottom up and each row from the right, as
    albumentations' loop does (a pair moves what earlier pairs moved there); its tuple swap of
    two pixels whose channels are numpy views copies the partner's value into the pixel and
    leaves the partner as it was, and only one-channel images (scalar pixels) are swapped: so
    here too. A work-item per image follows each pixel's source through the pairs, then the
    pass reads each pixel from its source.

    The displacements come from the kernel's counter-based generator keyed on the sample's
    stream (``key``, recorded) and each pixel's place in numpy's order: the same alone, in any
    batch and on any device (albumentations draws them from its own generator: the same law,
    other numbers; :func:`glass_displacements` draws them on the host: swap k of either mode,
    in its own order, takes row k). ``sigma`` 0 leaves out the blurs (OpenCV refuses a size of
    0 from sigma 0).

    Example:
        >>> t = GlassBlur(sigma=0.7, max_delta=2, iterations=1, p=1)
        >>> ops = t.colour_ops({"key": [1, 2, 3]}, 3, 255.0)
        >>> [int(o[0]) for o in ops]  # the blur, one round of swaps, the blur
        [14, 43, 14]
    """

    def __init__(self, sigma: float = 0.7, max_delta: int = 4, iterations: int = 2,
                 mode: str = "fast", p: float = 0.5) -> None:
        super().__init__(p)
        if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.number)) or \
                not 0 <= float(sigma) <= MAX_BLUR_RADIUS / 4:
            raise ValueError(f"sigma must be a number in [0, {MAX_BLUR_RADIUS / 4:g}] (its "
                             f"kernel's radius up to {MAX_BLUR_RADIUS}), got {sigma!r}")
        for name, v, hi in (("max_delta", max_delta, MAX_GLASS_DELTA),
                            ("iterations", iterations, 1000)):
            if isinstance(v, bool) or not float(v).is_integer() or not 1 <= v <= hi:
                raise ValueError(f"{name} must be a whole number in [1, {hi}], got {v!r}")
        if mode not in ("fast", "exact"):
            raise ValueError(f"GlassBlur's mode must be 'fast' or 'exact', got {mode!r}")
        self.sigma = float(sigma)
        self.max_delta = int(max_delta)
        self.iterations = int(iterations)
        self.mode = mode

    def draw(self, rng, size):
        return {"key": draw_key(rng)}

    def draw_lanes(self, lanes, sizes):
        return [{"key": k} for k in draw_keys(lanes)]

    def colour_ops(self, params, channels, peak):
        blur = []
        if self.sigma > 0:
            k = opencv_sigma_kernel(self.sigma, peak)
            r = len(k) // 2
            blur = _with_data([BLUR, float(r)], k[r:].astype(np.float32).tolist())
        key = [float(v) for v in params["key"]]
        exact = [1.0] if self.mode == "exact" else []
        swaps = [[GLASS, float(self.max_delta), float(i), *key, *exact]
                 for i in range(self.iterations)]
        return [*blur, *swaps, *blur]

    def config(self):
        return {"sigma": self.sigma, "max_delta": self.max_delta,
                "iterations": self.iterations, "mode": self.mode}


def bessel_j1(x: Any) -> np.ndarray:
    """The Bessel function of the first kind of order 1 (Numerical Recipes' rational and
    asymptotic approximations: within 1e-8 of scipy.special.j1, which warpkit does not need)."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    y = x * x
    small = x * (72362614232.0 + y * (-7895059235.0 + y * (242396853.1 + y * (
        -2972611.439 + y * (15704.48260 + y * -30.16036606))))) / (
        144725228442.0 + y * (2300535178.0 + y * (18583304.74 + y * (
            99447.43394 + y * (376.9991397 + y)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = 8.0 / ax
        zz = z * z
        xx = ax - 2.356194491
        p = 1.0 + zz * (0.183105e-2 + zz * (-0.3516396496e-4 + zz * (
            0.2457520174e-5 + zz * -0.240337019e-6)))
        q = 0.04687499995 + zz * (-0.2002690873e-3 + zz * (0.8449199096e-5 + zz * (
            -0.88228987e-6 + zz * 0.105787412e-6)))
        large = np.sqrt(0.636619772 / ax) * (np.cos(xx) * p - z * np.sin(xx) * q) * np.sign(x)
    return np.where(ax < 8.0, small, large)


def ringing_kernel(ksize: int, cutoff: float) -> np.ndarray:
    """albumentations' RingingOvershoot kernel ((ksize, ksize), normalised): the circularly
    symmetric low-pass filter of ``cutoff`` radians a pixel, ``cutoff J1(cutoff r) / (2 pi r)``
    at distance r from the centre, ``cutoff^2 / (4 pi)`` at it."""
    y, x = np.mgrid[0:ksize, 0:ksize].astype(np.float64)
    r = np.sqrt((x - (ksize - 1) / 2) ** 2 + (y - (ksize - 1) / 2) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        kernel = cutoff * bessel_j1(cutoff * r) / (2 * np.pi * r)
    kernel[(ksize - 1) // 2, (ksize - 1) // 2] = cutoff ** 2 / (4 * np.pi)
    return kernel.astype(np.float32) / np.sum(kernel)


class RingingOvershoot(ColourTransform):
    """albumentations' RingingOvershoot: OpenCV's filter2D with a circular sinc low-pass kernel
    (:func:`ringing_kernel`) of an odd size from ``blur_limit`` (as :class:`AdvancedBlur`'s) and
    a cutoff from ``cutoff`` (radians a pixel, within [0, pi]): the ringing and overshoot
    artefacts of sharp band limits. Sizes up to 65.

    Example:
        >>> t = RingingOvershoot(blur_limit=(9, 9), cutoff=(1.0, 1.0), p=1)
        >>> t.draw(np.random.default_rng(0), (64, 64))
        {'ksize': 9, 'cutoff': 1.0}
    """

    def __init__(self, blur_limit: Any = (7, 15), cutoff: Any = (np.pi / 4, np.pi / 2),
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _kernel_sizes(blur_limit, "blur_limit")
        if self.blur_limit[1] ** 2 > MAX_TAPS:
            raise ValueError(f"RingingOvershoot's blur_limit {list(self.blur_limit)} reaches "
                             f"past warpkit's largest kernel ({MAX_TAPS} taps)")
        if isinstance(cutoff, (int, float, np.number)):
            raise ValueError(f"cutoff must be a range (low, high) within [0, pi], as "
                             f"albumentations takes it, got {cutoff!r}")
        self.cutoff = value_range(cutoff, "cutoff", False, 0.0, math.pi)[0]

    def draw(self, rng, size):
        return self.draw_lanes(_OneLane(rng), [size])[0]

    def draw_lanes(self, lanes, sizes):
        k = _odd_sizes(lanes, self.blur_limit, len(sizes))
        c = lanes.uniform(*self.cutoff).tolist()
        return [{"ksize": int(a), "cutoff": float(b)} for a, b in zip(k, c)]

    def colour_ops(self, params, channels, peak):
        return taps(ringing_kernel(params["ksize"], params["cutoff"]))

    def config(self):
        return {"blur_limit": list(self.blur_limit), "cutoff": list(self.cutoff)}


class UnsharpMask(ColourTransform):
    """albumentations' UnsharpMask: the image sharpened by its difference from a Gaussian blur
    (OpenCV's GaussianBlur of an odd size from ``blur_limit``, as :class:`AdvancedBlur`'s, and
    a sigma from ``sigma_limit``: 0 takes OpenCV's sigma for the size), by an amount drawn from
    ``alpha``, where that difference passes ``threshold`` (levels of 255), the mask of those
    pixels blurred the same way to soften its edges: ``sharp s + v (1 - s)``, ``sharp =
    clip(v + alpha (v - blur))``, ``s`` the blurred mask, channel by channel, as albumentations
    computes them in float (integer images rounded back to the nearest level).

    It runs on the device in a pass after the warp (kernels_cl/colour_pass.cl: the image's rows
    filtered as GaussianBlur's, then colour_unsharp_rows makes the blurred image's mask and
    filters its rows, then colour_apply filters the mask's columns and mixes), on the image as
    the steps before it left it (float images clipped to [0, 1] on the way in, as every colour
    operation takes them). Sizes up to 255 taps.

    Example:
        >>> t = UnsharpMask(blur_limit=(5, 5), alpha=(0.5, 0.5), p=1)
        >>> t.draw(np.random.default_rng(0), (64, 64))
        {'ksize': 5, 'sigma': 0.0, 'alpha': 0.5}
        >>> ops = t.colour_ops({"ksize": 5, "sigma": 0.0, "alpha": 0.5}, 3, 255.0)
        >>> ops[0][:7]   # the code, the radius, alpha, the threshold, the weights of 0 .. 2
        [32, 2.0, 0.5, 10.0, 0.375, 0.25, 0.0625]
    """

    def __init__(self, blur_limit: Any = (3, 7), sigma_limit: Any = 0.0,
                 alpha: Any = (0.2, 0.5), threshold: int = 10, p: float = 0.5) -> None:
        super().__init__(p)
        self.blur_limit = _kernel_sizes(blur_limit, "blur_limit")
        if self.blur_limit[1] // 2 > MAX_BLUR_RADIUS:
            raise ValueError(f"UnsharpMask's blur_limit {list(self.blur_limit)} reaches past "
                             f"warpkit's largest blur ({2 * MAX_BLUR_RADIUS + 1} taps)")
        self.sigma_limit = _non_negative(sigma_limit, "sigma_limit")
        if isinstance(alpha, (int, float, np.number)) and not isinstance(alpha, bool):
            alpha = (0.0, float(alpha))
        self.alpha = value_range(alpha, "alpha", False, 0.0, 1.0)[0]
        if isinstance(threshold, bool) or not float(threshold).is_integer() or \
                not 0 <= threshold <= 255:
            raise ValueError(f"threshold must be a whole number in [0, 255], got {threshold!r}")
        self.threshold = int(threshold)

    def draw(self, rng, size):
        return self.draw_lanes(_OneLane(rng), [size])[0]

    def draw_lanes(self, lanes, sizes):
        # albumentations' order: the size, sigma, then alpha
        k = _odd_sizes(lanes, self.blur_limit, len(sizes))
        sigma = lanes.uniform(*self.sigma_limit).tolist()
        alpha = lanes.uniform(*self.alpha).tolist()
        return [{"ksize": int(a), "sigma": float(b), "alpha": float(c)}
                for a, b, c in zip(k, sigma, alpha)]

    def colour_ops(self, params, channels, peak):
        k = _gaussian_1d(params["ksize"], params["sigma"])
        r = len(k) // 2
        # the weights of offsets 0 .. r (symmetric), after the amount and the threshold
        return _with_data([UNSHARP, float(r), float(np.float32(params["alpha"])),
                           float(self.threshold)], k[r:].astype(np.float32).tolist())

    def config(self):
        return {"blur_limit": list(self.blur_limit), "sigma_limit": list(self.sigma_limit),
                "alpha": list(self.alpha), "threshold": self.threshold}


def zoom_factors(params: dict) -> np.ndarray:
    """A ZoomBlur's zooms from its recorded parameters: albumentations' ``np.arange(1.0,
    max, step)``."""
    return np.arange(1.0, params["max"], params["step"])


class ZoomBlur(ColourTransform):
    """albumentations' ZoomBlur: the mean of the image and its central zooms by 1, 1 + s,
    1 + 2 s, ... below m (numpy's ``arange(1, m, s)``), s drawn from ``step_factor``, then m
    from ``max_factor`` (at least 1 + s), each zoom albumentations' ``central_zoom``: the crop
    of ``ceil(side / zoom)`` about the centre, OpenCV's linear resize of it to ``int(crop
    zoom)``, trimmed about the centre back to the image's size.

    It runs on the device in a pass after the warp: ``colour_apply`` reads each zoom from the
    host's table of source rows and columns for the output's size (in double, as OpenCV
    computes them), in float, on the image as the steps before it left it (float images
    clipped to [0, 1] on the way in). ``max_factor``'s ``x`` means (1, x), ``step_factor``'s
    (0, x), as albumentations reads them; a step range reaching 0, or one that could make
    more than 1000 zooms, is refused.

    Example:
        >>> t = ZoomBlur(max_factor=(1.1, 1.1), step_factor=(0.03, 0.03), p=1)
        >>> p = t.draw(np.random.default_rng(0), (64, 64))
        >>> p, zoom_factors(p).round(2).tolist()
        ({'step': 0.03, 'max': 1.1}, [1.0, 1.03, 1.06, 1.09])
    """

    def __init__(self, max_factor: Any = (1, 1.31), step_factor: Any = (0.01, 0.03),
                 p: float = 0.5) -> None:
        super().__init__(p)
        if isinstance(max_factor, (int, float, np.number)) and not isinstance(max_factor, bool):
            max_factor = (1.0, float(max_factor))
        self.max_factor = value_range(max_factor, "max_factor", False, 1.0, math.inf)[0]
        self.step_factor = _non_negative(step_factor, "step_factor")
        lo = self.step_factor[0]
        if lo <= 0 or (max(self.max_factor[1], 1 + self.step_factor[1]) - 1) / lo > MAX_ZOOMS:
            raise ValueError(f"step_factor {list(self.step_factor)} with max_factor "
                             f"{list(self.max_factor)} can make more than {MAX_ZOOMS} zooms "
                             f"(a step of 0: without end); warpkit takes steps above 0 that "
                             f"make at most {MAX_ZOOMS}")

    def draw(self, rng, size):
        return self.draw_lanes(_OneLane(rng), [size])[0]

    def draw_lanes(self, lanes, sizes):
        # albumentations' order: the step, then the largest zoom
        step = lanes.uniform(*self.step_factor)
        top = np.maximum(1 + step, lanes.uniform(*self.max_factor))
        return [{"step": float(a), "max": float(b)} for a, b in zip(step, top)]

    def colour_ops(self, params, channels, peak):
        return [[ZOOM, float(len(zoom_factors(params))), *split(params["step"])]]

    def config(self):
        return {"max_factor": list(self.max_factor), "step_factor": list(self.step_factor)}
