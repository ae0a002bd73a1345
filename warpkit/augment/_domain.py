"""albumentations' domain adaptation that reads reference images per call:
:class:`HistogramMatching`. The call passes its reference images as albumentations' data does
(``hm_metadata=[ref, ...]``, one list for the whole call, every sample of a batch choosing
from it); each sample draws which one and how much to blend, from its own stream (recorded,
replayable with the same list).

The matching runs on the device in a pass after the warp, in Equalize's kernels: the image's
histograms as the warp leaves it, a table per channel matched to the reference's running
counts (which the host counts once per reference and size in a call, from the reference
resized as ``cv2.resize`` resizes it), each pixel looked up.

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
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.core import COL_EQUALIZE, match_data, with_data_ops
from ..engine.resize8 import INTER_LINEAR, apply_stage, stage_axis, stage_modes, stage_rounding
from ._base import value_range
from ._colour import ColourTransform, _eight_bit

__all__ = ["HistogramMatching"]


class HistogramMatching(ColourTransform):
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

    reads = frozenset({"passed"})
    #: the call's keyword is one value for every sample (the reference list), not one each
    shares_passed = True

    def __init__(self, reference_images: Any = None, blend_ratio: Any = (0.5, 1.0),
                 read_fn: Any = None, metadata_key: str = "hm_metadata",
                 p: float = 0.5) -> None:
        super().__init__(p)
        if reference_images is not None:
            raise ValueError("HistogramMatching(reference_images=...) is not supported (it is "
                             "deprecated in albumentations): pass the reference images per "
                             f"call, as {metadata_key}=[image, ...]")
        if read_fn is not None and not _albumentations_reader(read_fn):
            raise ValueError("HistogramMatching(read_fn=...) is not supported: it reads "
                             "reference_images, which warpkit takes per call as arrays")
        self.blend_ratio = value_range(blend_ratio, "blend_ratio", False, 0.0, 1.0)[0]
        if not isinstance(metadata_key, str) or not metadata_key.isidentifier():
            raise ValueError(f"metadata_key must be a keyword's name, got {metadata_key!r}")
        self.metadata_key = metadata_key

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        refs = None if seen is None or seen.given is None else seen.given(self.metadata_key)
        n = len(_references(refs, self.metadata_key))
        index = int(rng.integers(n))
        return {"reference": index, "blend_ratio": float(rng.uniform(*self.blend_ratio))}

    def colour_ops(self, params, channels, peak):
        raise ValueError(f"HistogramMatching's operations need the call's reference images "
                         f"({self.metadata_key}=): a pipeline call makes them")

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> np.ndarray:
        """The operations for a sample whose output is ``size`` = (width, height), the call's
        passed keywords ``passed`` (its reference list), ``memo`` the call's counts by
        reference and size (each counted once a call)."""
        _eight_bit("HistogramMatching", peak)
        if not 1 <= channels <= 4:
            raise TypeError(f"HistogramMatching takes images of 1 to 4 channels, got {channels}")
        refs = _references(passed.get(self.metadata_key), self.metadata_key)
        k = params["reference"]
        if not (isinstance(k, int) and 0 <= k < len(refs)):
            raise ValueError(f"HistogramMatching's recorded reference {k!r} is not an index of "
                             f"the {len(refs)} images of {self.metadata_key}=")
        key = (k, tuple(size), channels)
        if key not in memo:  # (the reference's operations, the blend's words left to fill)
            counts = reference_counts(refs[k], size, channels, f"{self.metadata_key}[{k}]")
            memo[key] = with_data_ops({0: COL_EQUALIZE, 1: 4.0, 2: 1.0}, match_data(counts))
        r = float(params["blend_ratio"])
        ops = memo[key].copy()
        ops[0, 3:5] = [np.float32(r), np.float32(1.0 - r)]
        return ops

    def config(self):
        return {"blend_ratio": list(self.blend_ratio), "metadata_key": self.metadata_key}


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


def _references(refs: Any, key: str) -> Sequence:
    """The call's reference images, checked: a non-empty sequence of numpy arrays."""
    if refs is None:
        raise ValueError(f"HistogramMatching needs reference images: pass them to the call as "
                         f"{key}=[image, ...] (numpy arrays)")
    if isinstance(refs, np.ndarray) or not isinstance(refs, Sequence) or not refs:
        raise ValueError(f"{key} must be a non-empty list of numpy arrays (the reference "
                         f"images), got {type(refs).__name__}")
    for i, r in enumerate(refs):
        if not isinstance(r, np.ndarray):
            raise ValueError(f"{key}[{i}] must be a numpy array, got {type(r).__name__}")
    return refs


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
        img = np.clip(np.rint(img * np.float32(255)), 0, 255).astype(np.uint8)
    flat = img.reshape(-1, channels)
    counts = np.stack([np.bincount(flat[:, c], minlength=256) for c in range(channels)])
    return np.cumsum(counts, axis=1)


def _resized(img: np.ndarray, w: int, h: int) -> np.ndarray:
    """``cv2.resize(img, (w, h))`` (bilinear) of an (H, W, C) image: OpenCV's own where it is
    installed (albumentations requires it), else 8-bit as OpenCV's fixed point
    (engine.resize8's tables, within a level of OpenCV's vector code on a few pixels in 100),
    float32 in float32."""
    cv2 = _opencv()
    if cv2 is not None:
        return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR).reshape(h, w, -1)
    n, m = (img.shape[1], img.shape[0]), (w, h)
    inv = (w / n[0], h / n[1])
    if img.dtype == np.uint8:
        mode = stage_modes(n, m, inv, INTER_LINEAR)
        stage = (stage_axis(n[0], w, inv[0], INTER_LINEAR, mode),
                 stage_axis(n[1], h, inv[1], INTER_LINEAR, mode),
                 stage_rounding(mode, INTER_LINEAR, img.shape[2]))
        return apply_stage(img, stage)
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
