"""albumentations' ``PixelDropout`` inside the warp's pass: single pixels of the output set to a
value, each chosen by the kernel's counter-based generator (kernels_cl/colour.h's
WK_COL_PIXDROP) keyed on the sample's stream and the pixel. The host draws the same numbers
(:mod:`._philox`) where a target needs them: a box keeps the pixels of it left undropped, and
masks get their own pattern of dropped pixels, as albumentations draws them.

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, PixelDropout
    >>> aug = Compose([PixelDropout(dropout_prob=0.5, drop_value=7, p=1)])
    >>> out = aug(image=np.full((40, 50, 3), 100, np.uint8), seed=0)    # doctest: +SKIP
    >>> sorted(np.unique(out["image"]).tolist())                        # doctest: +SKIP
    [7, 100]
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._checks import flag
from ..engine.core import COL_PIXDROP as PIXDROP
from ._base import value_range
from ._colour import ColourTransform, draw_key, draw_keys
from ._dropout import _mask_fill, _per_channel
from ._philox import below, kernel_key, philox4x32

__all__ = ["PixelDropout", "dropped_box_pixels", "fill_mask_drops", "pixel_drops"]

#: the third counter word of the image's numbers ("PXD") and of the masks' ("PXM": another
#: pattern, as albumentations draws the mask's apart from the image's)
IMAGE_TAG, MASK_TAG = 0x505844, 0x50584D


class PixelDropout(ColourTransform):
    """albumentations' PixelDropout: each pixel of the output dropped with probability
    ``dropout_prob`` (``per_channel``: each channel on its own), set to ``drop_value`` (a
    number, one per channel, or None: a random level per channel, drawn per sample: uint8
    0-254 as albumentations' ``integers(0, 255)``, uint16 0-65534, float [0, 1)).

    Which pixels: each by its own uniform number from the kernel's generator (Philox-4x32-10)
    keyed on the sample's stream (``key``, recorded) and the pixel's position in the output,
    as GaussNoise's: the same alone, in any batch, on any device. albumentations draws them
    with numpy's generator, so the two agree in distribution, not pixel for pixel.

    Targets, as albumentations treats them:

    - masks change only with ``mask_drop_value`` (a number, or one per channel of the masks):
      their pixels are dropped with the same probability in a pattern of their own (drawn on
      the host with the same generator; albumentations draws a second pattern too), each
      channel on its own with ``per_channel``;
    - without ``per_channel``, a box is removed when the pixels of it left undropped are fewer
      than ``min_area`` or a share of its area below ``min_visibility`` (albumentations'
      count: the whole pixels x1 <= x <= x2, y1 <= y <= y2 inside the output, over the area
      of the box clipped to the output); with ``per_channel`` boxes stay;
    - keypoints stay.

    Images of 1 to 4 channels, every dtype.

    Example:
        >>> t = PixelDropout(dropout_prob=0.1, drop_value=(1, 2, 3), p=1)
        >>> t.colour_ops({"key": [4, 5, 6]}, 3, 255.0)
        [[29, 4.0, 5.0, 6.0, 0.1, 0.0, 1.0, 2.0, 3.0, 0.0]]
    """

    def __init__(self, dropout_prob: float = 0.01, per_channel: bool = False,
                 drop_value: Any = 0, mask_drop_value: Any = None, p: float = 0.5) -> None:
        super().__init__(p)
        self.dropout_prob = value_range((dropout_prob, dropout_prob), "dropout_prob", False,
                                        0.0, 1.0)[0][0]
        self.per_channel = flag(per_channel, "per_channel")
        # (the dropout fills' rules: None, a number, or 1-4 numbers, one per channel)
        self.drop_value = _mask_fill(drop_value, "drop_value")
        self.mask_drop_value = _mask_fill(mask_drop_value, "mask_drop_value")

    def draw(self, rng, size):
        out: dict[str, Any] = {"key": draw_key(rng)}
        if self.drop_value is None:
            out["values"] = rng.random(4).tolist()
        return out

    def draw_lanes(self, lanes, sizes):
        keys = draw_keys(lanes)
        if self.drop_value is None:
            return [{"key": k, "values": v} for k, v in zip(keys, lanes.random(k=4).tolist())]
        return [{"key": k} for k in keys]

    def colour_ops(self, params, channels, peak):
        if channels > 4:
            raise TypeError(f"PixelDropout takes images of at most 4 channels, got {channels}")
        if self.drop_value is None:
            # albumentations' integers(0, 255) for uint8: the peak itself never drawn
            values = [math.floor(u * peak) if peak > 1 else u * peak for u in params["values"]]
        else:
            values = _per_channel(self.drop_value, channels, "drop_value")
        return [[PIXDROP, *map(float, params["key"]), self.dropout_prob,
                 float(self.per_channel), *values]]

    def config(self):
        return {"dropout_prob": self.dropout_prob, "per_channel": self.per_channel,
                "drop_value": self.drop_value, "mask_drop_value": self.mask_drop_value}


def pixel_drops(t: Any, params: dict) -> list[tuple[PixelDropout, tuple[int, int]]]:
    """The PixelDropout steps a sample's recorded parameters apply, with their keys."""
    return [(step, kernel_key(p["key"])) for step, p in t.applied_steps(params)
            if isinstance(step, PixelDropout)]


def _dropped(shape: tuple[int, int], origin: tuple[int, int], key: tuple[int, int],
             prob: float, tag: int, channels: int | None) -> np.ndarray:
    """Which pixels of rows/columns ``origin`` + ``shape`` of an output the generator drops:
    (H, W) bool from each pixel's first number, or (H, W, channels) one number per channel
    (four per block of the generator; the third counter word steps by 2^24 per block)."""
    y, x = np.mgrid[origin[0]:origin[0] + shape[0], origin[1]:origin[1] + shape[1]]
    if channels is None:
        return below(philox4x32(x, y, tag, key)[0], prob)
    out = np.empty((*shape, channels), bool)
    for block in range(0, channels, 4):
        words = philox4x32(x, y, tag + (block // 4 << 24), key)
        for c in range(block, min(block + 4, channels)):
            out[..., c] = below(words[c - block], prob)
    return out


def dropped_box_pixels(xyxy: np.ndarray, out: tuple[int, int],
                       drops: list[tuple[PixelDropout, tuple[int, int]]]) -> np.ndarray:
    """For each box (K, 4 pixel edges in an output of ``out`` = (width, height)), the whole
    pixels x1 <= x <= x2, y1 <= y <= y2 of the output that none of ``drops`` (the steps
    without per_channel) drops, as albumentations counts them."""
    def kept(shape: tuple[int, int], origin: tuple[int, int]) -> np.ndarray:
        k = np.ones(shape, bool)
        for step, key in drops:
            k &= ~_dropped(shape, origin, key, step.dropout_prob, IMAGE_TAG, None)
        return k
    return box_pixels_left(xyxy, out, kept)


def box_pixels_left(xyxy: np.ndarray, out: tuple[int, int],
                    kept: Callable[[tuple[int, int], tuple[int, int]], np.ndarray]
                    ) -> np.ndarray:
    """For each box (K, 4 pixel edges in an output of ``out`` = (width, height)), how many of
    its whole pixels x1 <= x <= x2, y1 <= y <= y2 (albumentations' count) are kept:
    ``kept(shape, (row, column))`` says which of that window of the output are, (H, W) bool."""
    counts = np.zeros(len(xyxy), np.int64)
    if not len(xyxy):
        return counts
    w, h = out
    x0 = np.clip(np.ceil(xyxy[:, 0]), 0, w).astype(np.int64)
    y0 = np.clip(np.ceil(xyxy[:, 1]), 0, h).astype(np.int64)
    x1 = np.clip(np.floor(xyxy[:, 2]) + 1, 0, w).astype(np.int64)
    y1 = np.clip(np.floor(xyxy[:, 3]) + 1, 0, h).astype(np.int64)
    live = (x1 > x0) & (y1 > y0)
    if not live.any():
        return counts
    ox, oy = int(x0[live].min()), int(y0[live].min())
    shape = (int(y1[live].max()) - oy, int(x1[live].max()) - ox)
    table = np.zeros((shape[0] + 1, shape[1] + 1), np.int64)  # the summed-area table
    table[1:, 1:] = kept(shape, (oy, ox)).cumsum(0).cumsum(1)
    a, b, c, d = y0 - oy, y1 - oy, x0 - ox, x1 - ox
    sums = table[b, d] - table[a, d] - table[b, c] + table[a, c]
    counts[live] = sums[live]
    return counts


def fill_mask_drops(mask: np.ndarray, drops: list[tuple[PixelDropout, tuple[int, int]]]
                    ) -> None:
    """Each step's ``mask_drop_value`` into its pattern of a warped mask ((H, W) or (H, W, C),
    on the host; in place): a pixel dropped with the step's probability, per channel with
    ``per_channel``; a value per channel takes channel c's (a one-channel mask the first)."""
    for step, key in drops:
        value = step.mask_drop_value
        if value is None:
            continue
        h, w = mask.shape[:2]
        channels = mask.shape[2] if mask.ndim == 3 else 1
        if isinstance(value, list) and len(value) != channels and mask.ndim == 3:
            raise ValueError(f"mask_drop_value has {len(value)} values for a mask of "
                             f"{channels} channels")
        values = value if isinstance(value, list) else [value] * channels
        dtype = mask.dtype if mask.dtype != np.bool_ else np.float64
        per = step.per_channel and mask.ndim == 3
        drop = _dropped((h, w), (0, 0), key, step.dropout_prob, MASK_TAG,
                        channels if per else None)
        if mask.ndim == 2:
            mask[drop] = np.asarray(values[0], dtype)
            continue
        for c in range(channels):
            mask[..., c][drop[..., c] if per else drop] = np.asarray(values[c], dtype)
