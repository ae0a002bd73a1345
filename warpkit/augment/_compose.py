"""Pipelines: :class:`Compose` multiplies its transforms' maps (and strings their non-linear
stages into one chain), resamples each image once and moves masks, boxes and keypoints with the
same map (:mod:`._executor`); :func:`collate` batches a DataLoader's samples for it.

Boxes are pixel-edge corners by default (``box_format``), keypoints are (x, y) positions with
pixel centres at integers, optionally followed by an angle (degrees, counter-clockwise on
screen as :func:`warpkit.geometry.rotation`) and a scale.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import geometry
from .._checks import flag, number
from .._options import Sampling
from .._threads import pool
from ..engine import check_model_input
from ..engine.chain import merge
from ._base import (Resampling, Transform, draw_step, draw_step_lanes, from_dict, map_step,
                    merge_setting, plain, probability, size_arg, step_size, transform_list)
from ._executor import apply
from ._targets import KEYPOINT_FORMATS
from ._streams import stream

if TYPE_CHECKING:  # not at import: concurrent.futures costs the command's start
    from concurrent.futures import Future

__all__ = ["BOX_FORMATS", "Compose", "collate"]

BOX_FORMATS = ("xyxy", "pascal_voc", "coco", "yolo", "albumentations")


def pipeline_settings(transforms: list, given: dict) -> dict:
    """The pipeline's resampling settings: those ``given`` to the Compose, and those its
    transforms set (:meth:`Transform.settings`, at any depth); two that disagree are a
    ValueError naming both."""
    found = {k: (v, "Compose") for k, v in given.items()}

    def walk(ts):
        for t in ts:
            for k, v in t.settings().items():
                merge_setting(found, k, v, type(t).__name__)
            walk(getattr(t, "transforms", ()))

    walk(transforms)
    return {k: v for k, (v, _) in found.items()}


class Compose(Resampling, Transform):
    """A pipeline: the transforms' maps multiplied into one, and each image resampled once.

    Args:
        transforms: the transforms, applied in order.
        interpolation, padding, fill, antialias: of the one resampling (as
            :func:`warpkit.warp_perspective`); default ``"linear"``, ``"constant"``, 0, no
            antialiasing, or what the transforms set (albumentations-named ones take
            ``interpolation``, ``border_mode``, ``fill``; RandomAffine the options given to
            it): a pipeline resamples once, so two that disagree, or one that disagrees with
            a value given here, are refused naming both.
        mask_fill: what masks read outside the image under constant padding (other paddings
            apply to masks as to the image); default 0 or a transform's ``fill_mask``.
        box_format: ``"xyxy"`` (pixel-edge corners, warpkit's), ``"pascal_voc"`` (the same),
            ``"coco"`` (x, y, width, height), ``"yolo"`` (centre x, centre y, width, height,
            as fractions of the image) or ``"albumentations"`` (the corners as fractions of
            the image). Boxes are checked before any launch, as albumentations checks them: a
            box without a width or height (``x2 <= x1``: often a COCO box given as xyxy), or
            reaching outside its image (a normalised box with values outside [0, 1]: often
            pixel boxes given as yolo), is refused with a message that says so.
        clip_boxes: clip the boxes to their image first (albumentations' ``BboxParams(clip=
            True)``) instead of refusing those that reach outside.
        filter_invalid_boxes: drop boxes without a width or height (after clipping) with their
            labels (albumentations' ``filter_invalid_bboxes``) instead of refusing them.
        min_visibility, min_area: boxes keeping less than this fraction of their mapped area
            inside the output, or less than this many square pixels, are dropped with their
            labels.
        remove_invisible: drop keypoints that leave the output (else keep them and report
            ``"keypoints_visible"``).
        keypoint_format: the keypoints' columns, as albumentations names them: ``"xy"``,
            ``"yx"``, ``"xya"`` / ``"xys"`` / ``"xyas"`` / ``"xysa"`` (``a`` an angle in degrees,
            counter-clockwise, that turns with the map; ``s`` a scale that scales with it) or
            ``"xyz"`` (``z`` passes through). Rows of another length are refused.
        output_dtype, mean, std, layout: the tensor a model eats, made by the warp itself
            (see :func:`warpkit.warp_affine`): e.g. ``output_dtype="float32", mean=(0.485,
            0.456, 0.406), std=(0.229, 0.224, 0.225), layout="CHW"``. Masks keep their dtype.

    Calling it: ``out = pipeline(image=..., mask=..., masks=..., boxes=..., labels=...,
    keypoints=..., seed=..., index=..., epoch=...)`` returns a dict with the keys given plus
    ``"matrix"``
    (the 3x3 map of each sample, destination from source), ``"size"`` (its output's (width,
    height): with the matrix, :func:`warpkit.warp_perspective`'s arguments) and ``"params"``
    (plain data: :meth:`replay` applies them again). ``image`` is a Pillow image, an array
    (H, W) / (H, W, C), a batch (B, H, W, C) or a list of images; a batch or list gets a
    sample each (indices ``index``, ``index + 1``, ... or a sequence), and its targets are
    lists, one per sample. A list of images whose outputs all have one size comes back as one
    (B, ...) array. ``mask`` is one mask per image; ``masks`` a list of masks per image
    (instance masks, several label maps), each moved as ``mask`` is. Labels come back as they
    came: an array or a tensor indexed by the boxes kept, a sequence as a list. ``out``: an
    array (or a CPU torch tensor) the image's result is written into and returned as
    ``out["image"]``, in place of a new one:
    exactly the result's shape and dtype, C-contiguous ((B, C, H, W) float32 for a batch to
    ``layout="CHW"``); a pinned tensor takes the batch with no copy on its way to a GPU.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, RandomHorizontalFlip, RandomResizedCrop
        >>> aug = Compose([RandomResizedCrop(224), RandomHorizontalFlip()], padding="reflect_101")
        >>> img = np.zeros((480, 640, 3), np.uint8)
        >>> out = aug(image=img, boxes=[[10, 20, 200, 300]], labels=[3], seed=0, index=7)  # doctest: +SKIP
        >>> out["image"].shape, out["matrix"].shape                                     # doctest: +SKIP
        ((224, 224, 3), (3, 3))
    """

    def __init__(self, transforms: Sequence[Transform], p: float = 1.0,
                 interpolation: str | None = None, padding: str | None = None,
                 fill: float | Sequence[float] | None = None, mask_fill: float | None = None,
                 antialias: bool | None = None, box_format: str = "xyxy", min_visibility: float = 0.0,
                 min_area: float = 0.0, remove_invisible: bool = True,
                 keypoint_format: str = "xy", output_dtype: str | None = None, mean: Any = None, std: Any = None,
                 layout: str = "HWC", clip_boxes: bool = False,
                 filter_invalid_boxes: bool = False) -> None:
        super().__init__(p)
        self.transforms = transform_list(transforms)
        given = {"interpolation": interpolation, "padding": padding, "fill": fill,
                 "antialias": antialias, "mask_fill": mask_fill}
        chosen = pipeline_settings(self.transforms, {k: v for k, v in given.items()
                                                     if v is not None})
        interpolation, padding, fill, antialias, mask_fill = (chosen.get(k, d) for k, d in (
            ("interpolation", "linear"), ("padding", "constant"), ("fill", 0),
            ("antialias", False), ("mask_fill", 0)))
        self.sampling = Sampling.of(interpolation, padding, fill, antialias)
        if box_format not in BOX_FORMATS:
            raise ValueError(f"box_format must be one of {', '.join(map(repr, BOX_FORMATS))}; "
                             f"got {box_format!r}")
        self.mask_fill = number(mask_fill, "mask_fill")
        self.box_format = box_format
        self.min_visibility = probability(min_visibility, "min_visibility")
        self.min_area = number(min_area, "min_area")
        self.clip_boxes = flag(clip_boxes, "clip_boxes")
        self.filter_invalid_boxes = flag(filter_invalid_boxes, "filter_invalid_boxes")
        self.remove_invisible = bool(remove_invisible)
        if keypoint_format not in KEYPOINT_FORMATS:
            raise ValueError(f"keypoint_format must be one of "
                             f"{', '.join(map(repr, KEYPOINT_FORMATS))}; got {keypoint_format!r}")
        self.keypoint_format = keypoint_format
        check_model_input(output_dtype, layout)  # the rest needs the image: the warp checks it
        self.output_dtype, self.mean, self.std, self.layout = output_dtype, mean, std, layout

    def config(self) -> dict:
        return {"transforms": [t.data() for t in self.transforms],
                "interpolation": self.interpolation, "padding": self.padding,
                "fill": plain(self.fill), "mask_fill": self.mask_fill,
                "antialias": self.antialias,
                "box_format": self.box_format, "min_visibility": self.min_visibility,
                "min_area": self.min_area, "clip_boxes": self.clip_boxes,
                "filter_invalid_boxes": self.filter_invalid_boxes,
                "remove_invisible": self.remove_invisible,
                "keypoint_format": self.keypoint_format,
                "output_dtype": self.output_dtype, "mean": plain(self.mean),
                "std": plain(self.std), "layout": self.layout}

    @classmethod
    def from_dict(cls, d: dict) -> Transform:
        """A pipeline (or any transform) from :meth:`to_dict`'s plain data (JSON)."""
        return from_dict(d)

    def draw(self, rng, size):
        steps = []
        for t in self.transforms:
            p = draw_step(t, rng, size)
            steps.append(p)
            size = step_size(t, p, size)
        return {"steps": steps}

    def draw_lanes(self, lanes, sizes):
        steps: list[list] = [[] for _ in sizes]
        for t in self.transforms:
            drawn = draw_step_lanes(t, lanes, sizes)
            for row, p in zip(steps, drawn):
                row.append(p)
            sizes = [step_size(t, p, s) for p, s in zip(drawn, sizes)]
        return [{"steps": row} for row in steps]

    def map(self, params, size):
        """The product of the transforms' maps (a non-linear transform's field counts as the
        identity: :meth:`stages` has it) and the output size."""
        m = geometry.identity()
        for t, p in zip(self.transforms, params["steps"]):
            mt, size = map_step(t, p, size)
            m = mt @ m
        return m, size

    def applied_steps(self, params):
        if params.get("applied", True):
            for t, p in zip(self.transforms, params["steps"]):
                yield from t.applied_steps(p)

    def maps(self, plist, sizes):
        """The batch's maps: each transform's for the samples where the pipeline applied,
        multiplied in order (one (n, 3, 3) product a transform, as :meth:`stages` multiplies
        each sample's: the same numbers); None if a transform has a non-linear stage."""
        on = [k for k, p in enumerate(plist) if p.get("applied", True)]
        mats = np.tile(geometry.IDENTITY, (len(plist), 1, 1))
        outs = list(sizes)
        cur = [sizes[k] for k in on]
        acc = None
        for j, t in enumerate(self.transforms):
            got = t.maps([plist[k]["steps"][j] for k in on], cur)
            if got is None:
                return None
            m, cur = got
            acc = m if acc is None else m @ acc
        if acc is not None:
            mats[on] = acc
        for k, o in zip(on, cur):
            outs[k] = o
        return mats, outs

    def stages(self, params, size):
        """The chain ``[M_0, F_1, M_1, ..., F_n, M_n]``: matrices between non-linear fields
        multiplied together (``[M]`` for a projective pipeline), and the output size."""
        if not params.get("applied", True):
            return [geometry.identity()], size
        found: list = []
        for t, p in zip(self.transforms, params["steps"]):
            st, size = t.stages(p, size)
            found += st
        return merge(found), size

    def sample(self, size: tuple[int, int], seed: int, index: int = 0,
               epoch: int = 0) -> dict:
        """The parameters of one sample of an input of ``size`` = (height, width)
        (``image.shape[:2]``), as a call draws them from its ``(seed, epoch, index)`` stream,
        without touching any image."""
        return draw_step(self, stream(seed, epoch, index), size_arg(size, "size"))

    def replay(self, params: Any, **targets: Any) -> dict:
        """Apply parameters from an earlier call's ``out["params"]`` to these targets."""
        return self(params=params, **targets)

    def __call__(self, image: Any = None, mask: Any = None, boxes: Any = None,
                 labels: Any = None, keypoints: Any = None, seed: int | None = None,
                 index: int | Sequence[int] = 0, epoch: int = 0, params: Any = None,
                 queue: Any = None, masks: Any = None, out: Any = None) -> dict:
        return apply(self, image=image, mask=mask, masks=masks, boxes=boxes, labels=labels,
                     keypoints=keypoints, seed=seed, index=index, epoch=epoch, params=params,
                     queue=queue, out=out)

    def submit(self, **call: Any) -> Future:
        """Start a call (:meth:`__call__`'s keywords) on warpkit's augmentation thread and
        return at once: a ``concurrent.futures.Future`` whose ``result()`` is the call's dict
        (or raises its error). Calls submitted from one thread run in order, one at a time; the
        host prepares the next batch while this one's kernels run, and a training step runs
        beside both. The arrays given must not change until the result is taken.

        Example:
            >>> import numpy as np
            >>> from warpkit.augment import Compose, RandomResizedCrop
            >>> aug = Compose([RandomResizedCrop(32)])
            >>> batch = np.zeros((8, 48, 64, 3), np.uint8)
            >>> pending = aug.submit(image=batch, seed=0, index=0)    # doctest: +SKIP
            >>> pending.result()["image"].shape                       # doctest: +SKIP
            (8, 32, 32, 3)
        """
        return pool("augment", 1).submit(self.__call__, **call)


def collate(samples: Sequence[Any]) -> Any:
    """A DataLoader ``collate_fn`` for images of different sizes and their targets: samples
    (dicts, tuples or single values) become one dict / tuple of lists, where arrays (numpy or
    torch) of one shape are stacked into a batch and the rest (ragged images, boxes, labels)
    stay lists, one entry per sample. The result goes to a pipeline in one call:
    ``pipeline(image=batch["image"], boxes=batch["boxes"], index=batch["index"], ...)``."""
    if not samples:
        return samples
    first = samples[0]
    if isinstance(first, dict):
        return {k: _batched([s[k] for s in samples]) for k in first}
    if isinstance(first, tuple):
        return tuple(_batched(list(col)) for col in zip(*samples))
    return _batched(list(samples))


def _batched(items: list) -> Any:
    shapes = {getattr(x, "shape", None) for x in items}
    if len(shapes) != 1 or None in shapes:
        return items
    if all(isinstance(x, np.ndarray) for x in items):
        return np.stack(items)
    torch = sys.modules.get("torch")
    if torch is not None and all(isinstance(x, torch.Tensor) for x in items):
        return torch.stack(items)
    return items
