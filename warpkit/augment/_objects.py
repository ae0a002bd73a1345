"""Crops that respect objects, for detection and segmentation recipes: albumentations'
``BBoxSafeRandomCrop``, ``RandomSizedBBoxSafeCrop``, ``AtLeastOneBBoxRandomCrop`` and
``CropNonEmptyMaskIfExists``, and torchvision's ``RandomIoUCrop`` and ``RandomZoomOut`` (the
SSD recipe), under their own names and parameters.

Their draws read the sample's targets (:attr:`Transform.reads`): the boxes, or the mask, as
they are where the transform stands in the pipeline (carried through the steps before it:
:class:`~warpkit.augment._targets.Seen`). The numbers still come from the sample's stream and
are recorded as plain data, so a call replays exactly from ``(seed, epoch, index)`` or from
``out["params"]``; and each is a map (a crop, a resize, a shift), so a pipeline still resamples
once. albumentations' algorithms are followed step for step (the same random calls in the same
order, each from the sample's stream in place of Python's ``random``); torchvision's too.

Conventions: boxes are pixel-edge corners in the draws; a crop is recorded as its pixel-edge
corners ``[x_min, y_min, x_max, y_max]`` (albumentations' ``crop_coords``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import geometry
from .._checks import count, number
from ._base import (Resampled, Transform, crop_map, plain, probability, size_arg, size_hw,
                    value_range)
from ._targets import Seen

__all__ = ["AtLeastOneBBoxRandomCrop", "BBoxSafeRandomCrop", "CropNonEmptyMaskIfExists",
           "RandomCropNearBBox", "RandomIoUCrop", "RandomSizedBBoxSafeCrop", "RandomZoomOut"]


def _uniform(rng: np.random.Generator, a: float, b: float) -> float:
    """Python's ``random.uniform(a, b)``: ``a + (b - a) * random()``."""
    return a + (b - a) * float(rng.random())


def _randint(rng: np.random.Generator, a: int, b: int) -> int:
    """Python's ``random.randint(a, b)``: both ends included."""
    return int(rng.integers(a, b + 1))


def _crop_out(params: dict, size: tuple[int, int]) -> tuple[int, int]:
    x0, y0, x1, y1 = params["crop"]
    return x1 - x0, y1 - y0


class _CropFromTargets(Transform):
    """A crop whose corners the draw chooses from the targets; ``draw`` without them (no
    targets given) is the draw that finds none."""

    keeps_axes = True

    reads = frozenset({"boxes"})

    def draw(self, rng, size):
        return self.draw_seen(rng, size, Seen(size))

    def out_size(self, params, size):
        return _crop_out(params, size)

    def map(self, params, size):
        x0, y0, x1, y1 = params["crop"]
        out = self.out_size(params, size)
        return crop_map(x0, y0, x1 - x0, y1 - y0, out), out


def _union(boxes: np.ndarray, erosion_rate: float) -> np.ndarray | None:
    """albumentations' ``union_of_bboxes`` of normalised corners: the box around them all,
    shrunk by ``erosion_rate`` of its size (half each side); None where none are given, the
    rate is 1 or nothing is left. One box is returned as it is (albumentations' shortcut: its
    erosion is not applied)."""
    if not len(boxes) or erosion_rate == 1:
        return None
    if len(boxes) == 1:
        return boxes[0, :4]
    x_min, y_min = np.min(boxes[:, :2], axis=0)
    x_max, y_max = np.max(boxes[:, 2:4], axis=0)
    ex, ey = (x_max - x_min) * erosion_rate * 0.5, (y_max - y_min) * erosion_rate * 0.5
    x_min, y_min, x_max, y_max = x_min + ex, y_min + ey, x_max - ex, y_max - ey
    if abs(x_max - x_min) < 1e-6 or abs(y_max - y_min) < 1e-6:
        return None
    return np.array([x_min, y_min, x_max, y_max])


def _clip_corners(box: Any, size: tuple[int, int]) -> list[int]:
    """albumentations' ``_clip_bbox``: x_min, y_min within the image, x_max, y_max between them
    and its far edges."""
    w, h = size
    x0, y0 = min(max(box[0], 0), w), min(max(box[1], 0), h)
    return [x0, y0, min(max(box[2], x0), w), min(max(box[3], y0), h)]


class RandomCropNearBBox(_CropFromTargets):
    """albumentations' RandomCropNearBBox: a crop about the box the call passes as
    ``cropping_bbox=`` (or the key ``cropping_bbox_key``; pixel corners ``[x_min, y_min, x_max,
    y_max]`` of the image as this step finds it, whole numbers; one per sample in a batch),
    each side moved by a whole number of pixels drawn in [-s, s] (Python's ``randint``, both
    ends), s the box's side times ``max_part_shift`` (``(height part, width part)``; ``x``
    means (0, x), as albumentations reads it, so a number shifts the sides along x only),
    rounded half to even; clipped to the image. A crop left without width or height is the
    box's size about the image's centre. The box is used as given: steps before it do not
    move it (albumentations reads it so).

    Example:
        >>> from warpkit.augment import stream
        >>> from warpkit.augment._targets import Seen
        >>> t = RandomCropNearBBox(max_part_shift=(0.0, 0.0))
        >>> seen = Seen((640, 480), given={"cropping_bbox": [100, 50, 300, 200]}.get)
        >>> t.draw_seen(stream(0), (640, 480), seen)["crop"]
        [100, 50, 300, 200]
    """

    reads = frozenset({"passed"})

    def __init__(self, max_part_shift: Any = (0.0, 0.3), cropping_bbox_key: str = "cropping_bbox",
                 p: float = 1.0) -> None:
        super().__init__(p)
        if isinstance(max_part_shift, (int, float)) and not isinstance(max_part_shift, bool):
            max_part_shift = (0.0, max_part_shift)
        self.max_part_shift = value_range(max_part_shift, "max_part_shift", False, 0.0, 1.0)[0]
        if not isinstance(cropping_bbox_key, str) or not cropping_bbox_key:
            raise ValueError(f"cropping_bbox_key must be a keyword's name, got "
                             f"{cropping_bbox_key!r}")
        self.cropping_bbox_key = cropping_bbox_key

    def draw_seen(self, rng, size, seen):
        key = self.cropping_bbox_key
        box = None if seen is None or seen.given is None else seen.given(key)
        if box is None:
            raise ValueError(f"RandomCropNearBBox crops about the box the call passes as "
                             f"{key}= (pixel corners [x_min, y_min, x_max, y_max], one per "
                             f"sample in a batch): the call has none")
        b = np.asarray(box, np.float64).reshape(-1)
        if b.shape != (4,) or not np.isfinite(b).all() or not (b == np.round(b)).all():
            raise ValueError(f"{key} must be 4 whole numbers [x_min, y_min, x_max, y_max], got "
                             f"{box!r}")
        x0, y0, x1, y1 = _clip_corners([int(v) for v in b], size)
        # albumentations' order: x_min's shift, x_max's, y_min's, y_max's (Python's round)
        sh = round((y1 - y0) * self.max_part_shift[0])
        sw = round((x1 - x0) * self.max_part_shift[1])
        xa = x0 - _randint(rng, -sw, sw)
        xb = x1 + _randint(rng, -sw, sw)
        ya = y0 - _randint(rng, -sh, sh)
        yb = y1 + _randint(rng, -sh, sh)
        crop = _clip_corners([xa, ya, xb, yb], size)
        if crop[0] == crop[2] or crop[1] == crop[3]:  # the box's size about the centre
            (w, h), cw, ch = size, x1 - x0, y1 - y0
            cx, cy = (w - cw) // 2, (h - ch) // 2
            crop = [cx, cy, cx + cw, cy + ch]
        if crop[2] <= crop[0] or crop[3] <= crop[1]:
            raise ValueError(f"{key} {list(box)} leaves no area in the image of {size[0]} x "
                             f"{size[1]}: nothing to crop")
        return {"crop": [int(v) for v in crop]}

    def config(self):
        return {"max_part_shift": list(self.max_part_shift),
                "cropping_bbox_key": self.cropping_bbox_key}


class BBoxSafeRandomCrop(_CropFromTargets):
    """albumentations' BBoxSafeRandomCrop: a crop that holds every box (their union, shrunk by
    ``erosion_rate``), its corners drawn between the union and the image's edges; without
    boxes, a crop of a height drawn in [(1 - erosion_rate) H, H] and the image's aspect.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import BBoxSafeRandomCrop, stream
        >>> from warpkit.augment._targets import Seen
        >>> boxes = np.array([[100., 80., 180., 160.], [300., 200., 360., 300.]])
        >>> x0, y0, x1, y1 = BBoxSafeRandomCrop().draw_seen(stream(0), (640, 480),
        ...                                                 Seen((640, 480), boxes))["crop"]
        >>> bool(x0 <= 100 and y0 <= 80 and x1 >= 360 and y1 >= 300)
        True
    """

    def __init__(self, erosion_rate: float = 0.0, p: float = 1.0) -> None:
        super().__init__(p)
        self.erosion_rate = probability(erosion_rate, "erosion_rate")

    def _no_boxes(self, rng, size) -> list[int]:
        w, h = size
        erosive_h = int(h * (1.0 - self.erosion_rate))
        ch = h if erosive_h >= h else _randint(rng, erosive_h, h)
        cw = int(ch * w / h)
        h_start, w_start = float(rng.random()), float(rng.random())
        ch, cw = min(ch, h), max(1, min(cw, w))  # albumentations' get_crop_coords
        y0, x0 = int((h - ch + 1) * h_start), int((w - cw + 1) * w_start)
        return [x0, y0, x0 + cw, y0 + ch]

    def draw_seen(self, rng, size, seen):
        w, h = size
        boxes = seen.boxes
        union = None if boxes is None else \
            _union(boxes / np.array([w, h, w, h], np.float64), self.erosion_rate)
        if union is None:
            return {"crop": self._no_boxes(rng, size)}
        u = union.tolist()  # (np.clip on single values cost a sample ~20 us)
        x_min, y_min = min(max(u[0], 0.0), 1.0), min(max(u[1], 0.0), 1.0)
        x_max, y_max = min(max(u[2], x_min), 1.0), min(max(u[3], y_min), 1.0)
        x0 = int(x_min * float(rng.random()) * w)
        y0 = int(y_min * float(rng.random()) * h)
        x1 = int((x_max + (1 - x_max) * float(rng.random())) * w)
        y1 = int((y_max + (1 - y_max) * float(rng.random())) * h)
        # a union thinner than a pixel may round to nothing: a crop keeps one pixel
        return {"crop": [x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)]}

    def config(self):
        return {"erosion_rate": self.erosion_rate}


class RandomSizedBBoxSafeCrop(BBoxSafeRandomCrop, Resampled):
    """albumentations' RandomSizedBBoxSafeCrop: :class:`BBoxSafeRandomCrop`'s crop resized to
    (``height``, ``width``), in the same resampling.

    Example:
        >>> t = RandomSizedBBoxSafeCrop(height=320, width=320)
        >>> t.map({"crop": [40, 0, 600, 480]}, (640, 480))[1]  # (w, h)
        (320, 320)
    """

    resizes = True  # (albumentations applies it with cv2.resize)

    def __init__(self, height: int, width: int, erosion_rate: float = 0.0,
                 interpolation: Any = 1, mask_interpolation: Any = 0, p: float = 1.0) -> None:
        super().__init__(erosion_rate, p)
        self.size = size_arg((height, width), "RandomSizedBBoxSafeCrop (height, width)")
        self.given_resampling(interpolation, mask_interpolation)

    def out_size(self, params, size):
        return self.size

    def config(self):
        h, w = size_hw(self.size)
        return {"height": h, "width": w, "erosion_rate": self.erosion_rate,
                **self.resampling_config()}


def _fits(name: str, crop: tuple[int, int], size: tuple[int, int]) -> None:
    if crop[0] > size[0] or crop[1] > size[1]:
        raise ValueError(f"{name}: the crop (height, width) = {size_hw(crop)} is larger than "
                         f"the image it crops, {size_hw(size)} (height, width)")


class AtLeastOneBBoxRandomCrop(_CropFromTargets):
    """albumentations' AtLeastOneBBoxRandomCrop: a (``height``, ``width``) crop that holds one
    box chosen at random, shrunk by ``erosion_factor`` (1: the crop need only touch it); without
    boxes, anywhere in the image.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import AtLeastOneBBoxRandomCrop, stream
        >>> from warpkit.augment._targets import Seen
        >>> seen = Seen((640, 480), np.array([[500., 400., 560., 460.]]))
        >>> x0, y0, x1, y1 = AtLeastOneBBoxRandomCrop(200, 200).draw_seen(
        ...     stream(0), (640, 480), seen)["crop"]
        >>> bool(x0 <= 500 and y0 <= 400 and x1 >= 560 and y1 >= 460)
        True
    """

    def __init__(self, height: int, width: int, erosion_factor: float = 0.0,
                 p: float = 1.0) -> None:
        super().__init__(p)
        self.size = size_arg((height, width), "AtLeastOneBBoxRandomCrop (height, width)")
        self.erosion_factor = probability(erosion_factor, "erosion_factor")

    def draw_seen(self, rng, size, seen):
        (cw, ch), (w, h) = self.size, size
        _fits("AtLeastOneBBoxRandomCrop", self.size, size)
        boxes = seen.boxes
        if boxes is not None and len(boxes):
            x1, y1, x2, y2 = boxes[int(rng.integers(len(boxes)))]
            if self.erosion_factor < 1.0:
                ew, eh = (x2 - x1) * (1.0 - self.erosion_factor), \
                    (y2 - y1) * (1.0 - self.erosion_factor)
                lo_x, hi_x, lo_y, hi_y = x1 + ew - cw, x2 - ew, y1 + eh - ch, y2 - eh
            else:
                lo_x, hi_x, lo_y, hi_y = x1 - cw, x2, y1 - ch, y2
            lo_x, hi_x = (float(np.clip(v, 0.0, w - cw)) for v in (lo_x, hi_x))
            lo_y, hi_y = (float(np.clip(v, 0.0, h - ch)) for v in (lo_y, hi_y))
        else:
            lo_x, hi_x, lo_y, hi_y = 0.0, w - cw, 0.0, h - ch
        x0 = int(_uniform(rng, lo_x, hi_x))
        y0 = int(_uniform(rng, lo_y, hi_y))
        return {"crop": [x0, y0, x0 + cw, y0 + ch]}

    def config(self):
        h, w = size_hw(self.size)
        return {"height": h, "width": w, "erosion_factor": self.erosion_factor}


class CropNonEmptyMaskIfExists(_CropFromTargets):
    """albumentations' CropNonEmptyMaskIfExists: a (``height``, ``width``) crop around a pixel
    of the mask chosen at random among those not 0 (nor in ``ignore_values``; channels in
    ``ignore_channels`` of an (H, W, C) mask left out); a crop anywhere where the mask is
    empty. It reads ``mask=``, else the union of ``masks=``; a call without either is refused.
    After a step that moved the mask, its pixels are found where that step took them.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import CropNonEmptyMaskIfExists, stream
        >>> from warpkit.augment._targets import Seen
        >>> mask = np.zeros((480, 640), np.uint8); mask[400:410, 600:610] = 1
        >>> x0, y0, x1, y1 = CropNonEmptyMaskIfExists(64, 64).draw_seen(
        ...     stream(0), (640, 480), Seen((640, 480), masks=[mask]))["crop"]
        >>> bool(x0 <= 609 and x1 > 600 and y0 <= 409 and y1 > 400)
        True
    """

    reads = frozenset({"masks"})

    def __init__(self, height: int, width: int, ignore_values: list[int] | None = None,
                 ignore_channels: list[int] | None = None, p: float = 1.0) -> None:
        super().__init__(p)
        self.size = size_arg((height, width), "CropNonEmptyMaskIfExists (height, width)")
        self.ignore_values = None if ignore_values is None else \
            [number(v, "ignore_values") for v in ignore_values]
        self.ignore_channels = None if ignore_channels is None else \
            [count(v, "ignore_channels", 0) for v in ignore_channels]

    def _nonzero(self, mask: np.ndarray) -> np.ndarray:
        if self.ignore_values is not None:
            mask = np.where(np.isin(mask, np.array(self.ignore_values)), 0, mask)
        if mask.ndim == 3:
            if self.ignore_channels is not None:
                mask = np.take(mask, [c for c in range(mask.shape[-1])
                                      if c not in self.ignore_channels], axis=-1)
            return (mask != 0).any(-1)
        return mask != 0

    def draw_seen(self, rng, size, seen):
        if seen.masks is None:
            raise ValueError("CropNonEmptyMaskIfExists crops around the mask: give mask= (or "
                             "masks=) with the image")
        (cw, ch), (w, h) = self.size, size
        _fits("CropNonEmptyMaskIfExists", self.size, size)
        yx = seen.mask_pixels(self._nonzero)
        if len(yx):
            y, x = (int(v) for v in yx[int(rng.integers(len(yx)))])
            x0 = min(max(x - _randint(rng, 0, cw - 1), 0), w - cw)
            y0 = min(max(y - _randint(rng, 0, ch - 1), 0), h - ch)
        else:
            x0, y0 = _randint(rng, 0, w - cw), _randint(rng, 0, h - ch)
        return {"crop": [x0, y0, x0 + cw, y0 + ch]}

    def config(self):
        h, w = size_hw(self.size)
        return {"height": h, "width": w, "ignore_values": self.ignore_values,
                "ignore_channels": self.ignore_channels}


def _iou(boxes: np.ndarray, crops: np.ndarray) -> np.ndarray:
    """torchvision's ``box_iou``: (crops, boxes) of crops (T, 4) with boxes (K, 4), corners."""
    lt = np.maximum(boxes[None, :, :2], crops[:, None, :2])
    rb = np.minimum(boxes[None, :, 2:], crops[:, None, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area = np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)
    return inter / (area[None] + np.prod(crops[:, 2:] - crops[:, :2], axis=1)[:, None] - inter)


class RandomIoUCrop(_CropFromTargets):
    """torchvision v2's RandomIoUCrop (SSD's "sample a patch"): draw a minimum overlap from
    ``sampler_options`` (an option >= 1 leaves the image as it is), then up to ``trials``
    crops of ``[min_scale, max_scale]`` of each side with an aspect in ``[min_aspect_ratio,
    max_aspect_ratio]`` until one holds a box's centre and overlaps such a box by the minimum
    (IoU); else draw again. The boxes whose centres fall outside the crop are removed with
    their labels (torchvision marks them for ``SanitizeBoundingBoxes``). A call without boxes
    is refused; an image with none is left as it is.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import RandomIoUCrop, stream
        >>> from warpkit.augment._targets import Seen
        >>> seen = Seen((640, 480), np.array([[100., 100., 300., 300.]]))
        >>> p = RandomIoUCrop().draw_seen(stream(1), (640, 480), seen)
        >>> sorted(p)
        ['crop', 'drop', 'min_iou']
    """

    #: its parameters name boxes to remove (``"drop"``), which the call removes
    removes_boxes = True
    #: rounds of drawing an option before the image is left as it is (torchvision draws
    #: forever: options without one >= 1 and boxes no crop can satisfy would never end)
    ROUNDS = 1000

    def __init__(self, min_scale: float = 0.3, max_scale: float = 1.0,
                 min_aspect_ratio: float = 0.5, max_aspect_ratio: float = 2.0,
                 sampler_options: list[float] | None = None, trials: int = 40,
                 p: float = 1.0) -> None:
        super().__init__(p)
        (self.min_scale, self.max_scale), = value_range((min_scale, max_scale),
                                                        "(min_scale, max_scale)", False, 0, 1)
        (self.min_aspect_ratio, self.max_aspect_ratio), = value_range(
            (min_aspect_ratio, max_aspect_ratio), "(min_aspect_ratio, max_aspect_ratio)", False,
            0, math.inf)
        options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 2.0] if sampler_options is None else \
            [number(v, "sampler_options") for v in sampler_options]
        if not options:
            raise ValueError("sampler_options must hold at least one minimum IoU, got []")
        self.sampler_options = options
        self.trials = count(trials, "trials", 1)

    def draw_seen(self, rng, size, seen):
        if seen.boxes is None:
            raise ValueError("RandomIoUCrop keeps the boxes whose centres its crop holds: give "
                             "boxes= (or bboxes=) with the image")
        boxes, (w, h) = seen.boxes, size
        if not len(boxes):
            return {"crop": None}
        cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
        lo, span = self.min_scale, self.max_scale - self.min_scale
        for _ in range(self.ROUNDS):
            least = self.sampler_options[int(rng.integers(len(self.sampler_options)))]
            if least >= 1.0:
                return {"crop": None}
            # a round's trials side by side (4 numbers each: the scales, then the place); the
            # first that passes every check is taken, as torchvision's loop takes it
            u = rng.random((self.trials, 4))
            r = lo + span * u[:, :2]
            nw, nh = (w * r[:, 0]).astype(np.int64), (h * r[:, 1]).astype(np.int64)
            with np.errstate(divide="ignore", invalid="ignore"):
                ok = (nh > 0) & (self.min_aspect_ratio <= nw / nh) & \
                    (nw / nh <= self.max_aspect_ratio) & (nw > 0)
            left = ((w - nw) * u[:, 2]).astype(np.int64)
            top = ((h - nh) * u[:, 3]).astype(np.int64)
            right, bottom = left + nw, top + nh
            within = (left[:, None] < cx) & (cx < right[:, None]) & \
                (top[:, None] < cy) & (cy < bottom[:, None])  # (trials, boxes)
            crops = np.stack([left, top, right, bottom], 1).astype(np.float64)
            ok &= (np.where(within, _iou(boxes, crops), -1.0).max(1) >= least) & within.any(1)
            if ok.any():
                k = int(np.argmax(ok))
                return {"crop": [int(v) for v in crops[k]], "min_iou": least,
                        "drop": seen.index[~within[k]].tolist()}
        return {"crop": None}

    def out_size(self, params, size):
        return size if params["crop"] is None else _crop_out(params, size)

    def map(self, params, size):
        if params["crop"] is None:
            return geometry.identity(), size
        return super().map(params, size)

    def config(self):
        return {"min_scale": self.min_scale, "max_scale": self.max_scale,
                "min_aspect_ratio": self.min_aspect_ratio,
                "max_aspect_ratio": self.max_aspect_ratio,
                "sampler_options": list(self.sampler_options), "trials": self.trials}


class RandomZoomOut(Transform):
    """torchvision v2's RandomZoomOut: the image placed at a random spot of a canvas
    ``side_range`` times its size (one factor for both sides), the rest ``fill`` (the
    pipeline's constant padding: a number, one per channel, or ``{"image": ..., "mask":
    ...}``; a number fills masks too, as torchvision's does).

    Example:
        >>> RandomZoomOut(side_range=(2.0, 2.0)).map({"canvas": [1280, 960], "left": 100,
        ...                                             "top": 50}, (640, 480))[1]
        (1280, 960)
    """

    keeps_axes = True

    def __init__(self, fill: Any = 0, side_range: Any = (1.0, 4.0), p: float = 0.5) -> None:
        super().__init__(p)
        (lo, hi), = value_range(side_range, "side_range", False, 1.0, math.inf)
        self.side_range = (lo, hi)
        if isinstance(fill, dict):
            if set(fill) - {"image", "mask"}:
                raise ValueError(f"RandomZoomOut fill as a dict takes 'image' and 'mask', got "
                                 f"{sorted(fill)}")
            self.fill, self.fill_mask = fill.get("image", 0), number(fill.get("mask", 0),
                                                                     "fill['mask']")
        else:
            self.fill = fill
            self.fill_mask = number(fill, "fill") if np.ndim(fill) == 0 else 0.0
        self._fill_arg = fill

    def draw(self, rng, size):
        lo, hi = self.side_range
        r = lo + float(rng.random()) * (hi - lo)
        cw, ch = int(size[0] * r), int(size[1] * r)
        q = rng.random(2)
        return {"canvas": [cw, ch], "left": int((cw - size[0]) * q[0]),
                "top": int((ch - size[1]) * q[1])}

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.side_range
        r = lo + lanes.random() * (hi - lo)
        q = lanes.random(k=2)
        wh = np.asarray(sizes, np.float64)
        cw, ch = (wh[:, 0] * r).astype(np.int64), (wh[:, 1] * r).astype(np.int64)
        left = ((cw - wh[:, 0]) * q[:, 0]).astype(np.int64)
        top = ((ch - wh[:, 1]) * q[:, 1]).astype(np.int64)
        return [{"canvas": [int(a), int(b)], "left": int(x), "top": int(y)}
                for a, b, x, y in zip(cw, ch, left, top)]

    def out_size(self, params, size):
        return tuple(params["canvas"])

    def map(self, params, size):
        return geometry.translation(params["left"], params["top"]), tuple(params["canvas"])

    def settings(self):
        return {"padding": "constant", "fill": self.fill, "mask_fill": self.fill_mask}

    def config(self):
        return {"fill": plain(self._fill_arg), "side_range": list(self.side_range)}
