"""albumentations' domain adaptations that read reference images per call:
:class:`HistogramMatching` and :class:`FDA`. The call passes its reference images as
albumentations' data does (``hm_metadata=[ref, ...]``, ``fda_metadata=[...]``: one list for
the whole call, every sample of a batch choosing from it); each sample draws which one and how
much, from its own stream (recorded, replayable with the same list).

The matching runs on the device in a pass after the warp, in Equalize's kernels: the image's
histograms as the warp leaves it, a table per channel matched to the reference's running
counts (which the host counts once per reference and size in a call, from the reference
resized as ``cv2.resize`` resizes it), each pixel looked up. FDA's pass takes the image's
DFT in the window of low frequencies only (the host takes the reference's amplitudes once per
reference and size in a call) and adds each pixel's change.

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, HistogramMatching, RandomResizedCrop
    >>> aug = Compose([RandomResizedCrop(64), HistogramMatching(p=1)])
    >>> dark = np.full((80, 90, 3), 40, np.uint8)
    >>> bright = np.full((50, 50, 3), 200, np.uint8)
    >>> out = aug(image=dark, hm_metadata=[bright], seed=0)            # doctest: +SKIP
    >>> out["params"]["steps"][1]["reference"]                           # doctest: +SKIP
    0
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.core import COL_EQUALIZE, fda_ops, match_data, with_data_ops
from ..engine.resize8 import INTER_LINEAR, apply_stage, stage_axis, stage_modes, stage_rounding
from ._base import value_range
from ._colour import ColourTransform, _eight_bit, levels8, table_offset

__all__ = ["FDA", "HistogramMatching"]


class _Adaptation(ColourTransform):
    """A domain adaptation that reads the call's reference images (``metadata_key``, one list
    for every sample of the call): each sample draws one (``reference``, its index) and its
    amount (``_amount``, uniform in the range attribute ``_range``), in that order. Its
    operations are made from the reference's data (``_reference_data``, once a call per
    reference, output size and channels) and the sample's draw (``_operations``)."""

    reads = frozenset({"passed"})
    #: the call's keyword is one value for every sample (the reference list), not one each
    shares_passed = True
    _amount = _range = ""

    def __init__(self, reference_images: Any, read_fn: Any, metadata_key: str,
                 p: float) -> None:
        super().__init__(p)
        _deprecated(type(self).__name__, reference_images, read_fn, metadata_key)
        self.metadata_key = _metadata_key(metadata_key)

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        refs = None if seen is None or seen.given is None else seen.given(self.metadata_key)
        n = len(_references(refs, self.metadata_key, type(self).__name__))
        index = int(rng.integers(n))
        return {"reference": index,
                self._amount: float(rng.uniform(*getattr(self, self._range)))}

    def colour_ops(self, params, channels, peak):
        raise ValueError(f"{type(self).__name__}'s operations need the call's reference images "
                         f"({self.metadata_key}=): a pipeline call makes them")

    def _check_image(self, peak: float) -> None:
        """Refuse an image dtype (by its peak) the transform does not take."""

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> np.ndarray:
        """The operations for a sample whose output is ``size`` = (width, height), the call's
        passed keywords ``passed`` (its reference list), ``memo`` the call's reference data by
        transform, reference, size and channels (each made once a call)."""
        name = type(self).__name__
        self._check_image(peak)
        if not 1 <= channels <= 4:
            raise TypeError(f"{name} takes images of 1 to 4 channels, got {channels}")
        refs = _references(passed.get(self.metadata_key), self.metadata_key, name)
        k = _recorded(params, refs, name, self.metadata_key)
        key = (name, self.metadata_key, k, tuple(size), channels)
        if key not in memo:
            memo[key] = self._reference_data(refs[k], size, channels, peak,
                                             f"{self.metadata_key}[{k}]", memo, key)
        return self._operations(memo[key], params, size)


class HistogramMatching(_Adaptation):
    """albumentations' HistogramMatching: each channel's levels mapped so that its histogram
    matches a reference image's, then blended with the image.

    ``metadata_key`` names the call's keyword that holds the reference images, a non-empty
    list of numpy arrays (uint8 or float32, (H, W) or (H, W, C) with the image's channels),
    shared by every sample of the call. Each sample draws one of them (``reference``: its
    index in the list) and ``blend_ratio`` (uniform in the range), both recorded.

    albumentations' arithmetic (``apply_histogram``): the reference is resized to the image's
    size as ``cv2.resize`` resizes it (bilinear; 8-bit references exactly, in OpenCV's fixed
    point: OpenCV's own resize where it is installed, else warpkit's tables of it, within a
    level on a few pixels in 100), floats made 8-bit levels (``rint(255 v)``); per channel, each level's running count
    over the pixels (its quantile) is interpolated by numpy's ``interp`` among the reference's
    quantiles onto the reference's levels present, truncated to a level; then
    ``blend_ratio * matched + (1 - blend_ratio) * image`` in float32 (albucore's
    ``add_weighted``: SimSIMD's fused sum), rounded for uint8 images, clipped to [0, 1] for
    float32 ones (which are matched on ``rint(255 v)`` levels, as albumentations' uint8 round
    trip). The histogram is of the image as the warp leaves it (the output's size), as every
    whole-image operation in warpkit's pass.

    uint8 and float32 images of 1 to 4 channels. The deprecated ``reference_images`` and
    ``read_fn`` of albumentations are refused: pass the images per call.

    Conventions: sizes are (height, width) as numpy's shapes give them; the reference list is
    the call's, not the sample's (a batch call passes one list for all its samples).

    Example:
        >>> t = HistogramMatching(blend_ratio=(1.0, 1.0), p=1)
        >>> t.metadata_key, t.blend_ratio
        ('hm_metadata', (1.0, 1.0))
    """

    _amount, _range = "blend_ratio", "blend_ratio"

    def __init__(self, reference_images: Any = None, blend_ratio: Any = (0.5, 1.0),
                 read_fn: Any = None, metadata_key: str = "hm_metadata",
                 p: float = 0.5) -> None:
        super().__init__(reference_images, read_fn, metadata_key, p)
        self.blend_ratio = value_range(blend_ratio, "blend_ratio", False, 0.0, 1.0)[0]

    def _check_image(self, peak: float) -> None:
        _eight_bit("HistogramMatching", peak)

    def _reference_data(self, ref, size, channels, peak, what, memo, key):
        return with_data_ops({0: COL_EQUALIZE, 1: 4.0, 2: 1.0},
                             match_data(reference_counts(ref, size, channels, what)))

    def _operations(self, data, params, size):
        r = float(params["blend_ratio"])
        ops = data.copy()
        ops[0, 3:5] = [np.float32(r), np.float32(1.0 - r)]
        return ops

    def config(self):
        return {"blend_ratio": list(self.blend_ratio), "metadata_key": self.metadata_key}


class FDA(_Adaptation):
    """albumentations' FDA (Fourier domain adaptation, Yang and Soatto 2020): each channel's
    low frequencies take a reference image's amplitudes, keeping the image's phases: the
    reference's overall colour and light, the image's content.

    ``metadata_key`` names the call's keyword that holds the reference images, a non-empty
    list of numpy arrays of the image's dtype, (H, W) or (H, W, C) with the image's channels,
    shared by every sample of the call. Each sample draws one of them (``reference``: its
    index in the list) and ``beta`` (uniform in ``beta_limit``, within [0, 0.5]; one number b
    is (0, b), as albumentations reads it), both recorded.

    albumentations' arithmetic (``fourier_domain_adaptation``): the reference resized to the
    image's size by ``cv2.resize`` (bilinear); numpy's ``fft2`` of each channel of both, their
    zero frequency centred (``fftshift``); the source's amplitudes replaced by the
    reference's in the window ``[int(c - b), int(c + b))`` of each axis, ``c = n / 2 - 0.5``,
    ``b = floor(min(H, W) beta)``; the inverse's real part, clipped to the dtype's range (an
    integer image's truncated to a level, as numpy's cast). warpkit computes only what the
    window changes: the image's DFT at the window's frequencies (a few rows and columns of
    it, in float32 on the device), each change's inverse added to every pixel; the
    reference's amplitudes in double on the host, once a call per reference and size. A beta
    whose window is empty (small images, beta near 0) changes nothing. The image is the
    one the warp leaves (the output's size), as every whole-image operation in warpkit's pass.

    uint8, uint16 and float32 images of 1 to 4 channels (albumentations' values, unscaled: a
    reference of another dtype is refused, since its levels would not be the image's). The
    deprecated ``reference_images`` and ``read_fn`` of albumentations are refused: pass the
    images per call.

    Conventions: sizes are (height, width) as numpy's shapes give them; the window's rows are
    the row frequencies (numpy's axis 0); the reference list is the call's, not the sample's.

    Example:
        >>> t = FDA(beta_limit=(0.05, 0.05), p=1)
        >>> t.metadata_key, t.beta_limit
        ('fda_metadata', (0.05, 0.05))
    """

    _amount, _range = "beta", "beta_limit"

    def __init__(self, reference_images: Any = None, beta_limit: Any = (0, 0.1),
                 read_fn: Any = None, metadata_key: str = "fda_metadata",
                 p: float = 0.5) -> None:
        super().__init__(reference_images, read_fn, metadata_key, p)
        if isinstance(beta_limit, numbers.Real) and not isinstance(beta_limit, bool):
            beta_limit = (0.0, beta_limit)  # (albumentations' one number: (0, b))
        self.beta_limit = value_range(beta_limit, "beta_limit", False, 0.0, 0.5)[0]

    def _reference_data(self, ref, size, channels, peak, what, memo, key):
        # (the amplitudes in the call's colour table: each sample's operation holds their
        # place)
        return table_offset(memo, key, lambda: reference_amplitudes(ref, size, channels,
                                                                     peak, what))

    def _operations(self, data, params, size):
        w, h = size
        border = int(np.floor(min(h, w) * float(params["beta"])))
        return fda_ops((*fda_window(h, border), *fda_window(w, border)), data)

    def config(self):
        return {"beta_limit": list(self.beta_limit), "metadata_key": self.metadata_key}


def fda_window(n: int, border: int) -> tuple[int, int]:
    """albumentations' FDA window along an axis of ``n`` (``low_freq_mutate``: rows
    ``[int(c - border), int(c + border))`` of the centred spectrum, ``c = n / 2 - 0.5``, within
    the axis) as (its first frequency, signed, and its count).

    Example:
        >>> fda_window(224, 22), fda_window(225, 22), fda_window(224, 0)
        ((-23, 44), (-22, 44), (-1, 0))
    """
    c = n / 2 - 0.5
    lo, hi = max(0, int(c - border)), min(int(c + border), n)
    return lo - n // 2, max(hi - lo, 0)


_DTYPE_OF_PEAK = {255.0: np.dtype(np.uint8), 65535.0: np.dtype(np.uint16),
                  1.0: np.dtype(np.float32)}


def reference_amplitudes(ref: np.ndarray, size: tuple[int, int], channels: int, peak: float,
                         what: str = "reference") -> np.ndarray:
    """A reference image's DFT amplitudes per channel ((channels, height, width // 2 + 1)
    float64, not centred: numpy's ``abs(rfft2)``, the columns of frequencies 0 .. width // 2;
    a real image's amplitude at (-fy, -fx) is that at (fy, fx)) once resized to ``size`` =
    (width, height) as albumentations resizes it (``cv2.resize``, bilinear: :func:`_resized`),
    for an image whose values reach ``peak`` (the reference must have that image's dtype).

    Example:
        >>> ref = np.full((4, 4), 10, np.uint8)
        >>> reference_amplitudes(ref, (4, 4), 1, 255.0)[0, 0, :2].tolist()
        [160.0, 0.0]
    """
    dt = _DTYPE_OF_PEAK.get(float(peak))
    if ref.dtype != dt:
        raise TypeError(f"{what} must have the image's dtype ({dt}: albumentations takes its "
                        f"values as they are), got {ref.dtype}")
    img = ref[:, :, None] if ref.ndim == 2 else ref
    if img.ndim != 3 or img.shape[0] < 1 or img.shape[1] < 1 or img.shape[2] != channels:
        raise ValueError(f"{what} must be (H, W) or (H, W, C) with the image's {channels} "
                         f"channel{'s' * (channels != 1)}, got shape {ref.shape}")
    w, h = size
    if (img.shape[1], img.shape[0]) != (w, h):
        img = _resized(img, w, h)
        if img.dtype != dt:  # (a uint16 image without OpenCV: its float resize, rounded)
            img = np.clip(np.rint(img), 0, peak).astype(dt)
    f = np.moveaxis(np.asarray(img, np.float32), -1, 0)
    return np.abs(np.fft.rfft2(f))


@functools.lru_cache(maxsize=1)
def _opencv() -> Any:
    """OpenCV's module, or None where it is not installed (warpkit does not require it)."""
    try:
        import cv2
    except ImportError:
        return None
    return cv2


def _albumentations_reader(fn: Any) -> bool:
    """Whether ``fn`` is albumentations' default ``read_fn`` (``read_rgb_image``), which its
    pipelines carry whatever they read (nothing, without ``reference_images``)."""
    return getattr(fn, "__name__", "") == "read_rgb_image" and \
        getattr(fn, "__module__", "").startswith("albumentations")


def _references(refs: Any, key: str, name: str) -> Sequence:
    """The call's reference images for the transform ``name``, checked: a non-empty sequence of
    numpy arrays."""
    if refs is None:
        raise ValueError(f"{name} needs reference images: pass them to the call as "
                         f"{key}=[image, ...] (numpy arrays)")
    if isinstance(refs, np.ndarray) or not isinstance(refs, Sequence) or not refs:
        raise ValueError(f"{key} must be a non-empty list of numpy arrays (the reference "
                         f"images), got {type(refs).__name__}")
    for i, r in enumerate(refs):
        if not isinstance(r, np.ndarray):
            raise ValueError(f"{key}[{i}] must be a numpy array, got {type(r).__name__}")
    return refs


def _recorded(params: dict, refs: Sequence, name: str, key: str) -> int:
    """A sample's recorded reference index, checked against the call's list."""
    k = params["reference"]
    if not (isinstance(k, int) and 0 <= k < len(refs)):
        raise ValueError(f"{name}'s recorded reference {k!r} is not an index of the "
                         f"{len(refs)} images of {key}=")
    return k


def _deprecated(name: str, reference_images: Any, read_fn: Any, key: str) -> None:
    """Refuse albumentations' deprecated ``reference_images`` and ``read_fn`` (its default
    reader passes: albumentations' pipelines carry it whatever they read)."""
    if reference_images is not None:
        raise ValueError(f"{name}(reference_images=...) is not supported (it is deprecated in "
                         f"albumentations): pass the reference images per call, as "
                         f"{key}=[image, ...]")
    if read_fn is not None and not _albumentations_reader(read_fn):
        raise ValueError(f"{name}(read_fn=...) is not supported: it reads reference_images, "
                         f"which warpkit takes per call as arrays")


def _metadata_key(key: Any) -> str:
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"metadata_key must be a keyword's name, got {key!r}")
    return key


def reference_counts(ref: np.ndarray, size: tuple[int, int], channels: int,
                     what: str = "reference") -> np.ndarray:
    """A reference image's running counts of its 8-bit levels per channel ((channels, 256)
    int64) once resized to ``size`` = (width, height) as albumentations resizes it
    (``cv2.resize``, bilinear: :func:`_resized`) and made levels (floats as ``rint(255 v)``,
    clipped).

    Example:
        >>> ref = np.array([[0, 10], [10, 255]], np.uint8)
        >>> reference_counts(ref, (2, 2), 1)[0, [0, 9, 10, 255]].tolist()
        [1, 1, 3, 4]
    """
    if ref.dtype not in (np.uint8, np.float32):
        raise TypeError(f"{what} must be uint8 or float32 (as the images HistogramMatching "
                        f"takes), got {ref.dtype}")
    img = ref[:, :, None] if ref.ndim == 2 else ref
    if img.ndim != 3 or img.shape[0] < 1 or img.shape[1] < 1 or img.shape[2] != channels:
        raise ValueError(f"{what} must be (H, W) or (H, W, C) with the image's {channels} "
                         f"channel{'s' * (channels != 1)}, got shape {ref.shape}")
    w, h = size
    if (img.shape[1], img.shape[0]) != (w, h):
        img = _resized(img, w, h)
    if img.dtype != np.uint8:
        img = levels8(img)
    flat = img.reshape(-1, channels)
    counts = np.stack([np.bincount(flat[:, c], minlength=256) for c in range(channels)])
    return np.cumsum(counts, axis=1)


def _resized(img: np.ndarray, w: int, h: int, interpolation: int = INTER_LINEAR) -> np.ndarray:
    """``cv2.resize(img, (w, h), interpolation=interpolation)`` (bilinear, or INTER_AREA) of an
    (H, W, C) image: OpenCV's own where it is installed (albumentations requires it), else
    8-bit as OpenCV's fixed point (engine.resize8's tables, within a level of OpenCV's vector
    code on a few pixels in 100), bilinear float32 in float32, the area's other images by the
    same tables' weights in double (rounded for uint16)."""
    cv2 = _opencv()
    if cv2 is not None:
        return cv2.resize(img, (w, h), interpolation=interpolation).reshape(h, w, -1)
    n, m = (img.shape[1], img.shape[0]), (w, h)
    inv = (w / n[0], h / n[1])
    mode = stage_modes(n, m, inv, interpolation)
    stage = (stage_axis(n[0], w, inv[0], interpolation, mode),
             stage_axis(n[1], h, inv[1], interpolation, mode),
             stage_rounding(mode, interpolation, img.shape[2]))
    if img.dtype == np.uint8:
        return apply_stage(img, stage)
    if interpolation != INTER_LINEAR:
        (sx, wx), (sy, wy), _ = stage
        unit = float(wx[0].sum()) * float(wy[0].sum())  # (fixed-point weights: their unit)
        src = img.astype(np.float64)
        rows = sum(wx[:, j][None, :, None] * src[:, np.clip(sx + j, 0, n[0] - 1)]
                   for j in range(wx.shape[1]))
        out = sum(wy[:, i][:, None, None] * rows[np.clip(sy + i, 0, n[1] - 1)]
                  for i in range(wy.shape[1])) / unit
        if img.dtype == np.uint16:
            return np.clip(np.rint(out), 0, 65535).astype(np.uint16)
        return out.astype(np.float32)
    # OpenCV's float bilinear: the position (x + 0.5) / scale - 0.5 in float32, the edges
    # moved onto the first and last pixel, the columns' weighted sum then the rows', in float32
    out = img
    for axis, k, count in ((1, w, n[0]), (0, h, n[1])):
        f = ((np.arange(k) + 0.5) * (count / k) - 0.5).astype(np.float32)
        s = np.floor(f).astype(np.int64)
        f = (f - s.astype(np.float32)).astype(np.float32)
        lo, hi = s < 0, s >= count - 1
        f = np.where(lo | hi, np.float32(0), f).astype(np.float32)
        s = np.where(lo, 0, np.where(hi, count - 1, s))
        a = np.take(out, s, axis=axis)
        b = np.take(out, np.minimum(s + 1, count - 1), axis=axis)
        shape = [1, 1, 1]
        shape[axis] = k
        fw = f.reshape(shape)
        out = (a * (np.float32(1) - fw) + b * fw).astype(np.float32)
    return out
