"""Pipelines: :class:`Compose` multiplies its transforms' maps (and strings their non-linear
stages into one chain), resamples each image once and moves masks, boxes and keypoints with the
same map (:mod:`._executor`); :func:`collate` batches a DataLoader's samples for it.

Boxes are pixel-edge corners by default (``box_format``), keypoints are (x, y) positions with
pixel centres at integers, optionally followed by an angle (degrees, counter-clockwise on
screen as :func:`warpkit.geometry.rotation`) and a scale.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import geometry
from .._checks import count, flag, number, one_of
from .._options import Sampling
from .._threads import pool
from ..engine import check_max_pixel_value, check_model_input
from ..engine.chain import merge
from ._base import (INTERPOLATION_CODES, Resampling, SettingsDisagree, Transform, all_steps,
                    check_box_method, draw_step, draw_step_lanes, from_dict, leaves, map_step,
                    merge_setting, opencv_code, passed_keys, plain, reads_any, same_value,
                    size_arg, step_size, transform_list)
from ._colour import IdentityStep
from ._convert import check_conversions
from ._frames import check_each_step_edges, fills_outside
from ._overlay import check_overlays
from ._executor import apply
from ._host import check_host_steps, host_positions, is_host, moves_pixels
from ._mosaic import Mosaic, check_placement
from ._params import BOX_FORMATS, BUILT_IN, BboxParams, KeypointParams, additional
from ._streams import stream
from ._targets import Seen, box_rows, to_xyxy
from ._volume3d import ToTensor3D, peel_to_tensor3d, split_volume_steps

#: guards every pipeline's count of calls (:meth:`Compose.next_streams`; one lock for all, so
#: a pipeline stays picklable)
_COUNTING = threading.Lock()

if TYPE_CHECKING:  # not at import: concurrent.futures costs the command's start
    from concurrent.futures import Future

__all__ = ["BOX_FORMATS", "Compose", "collate"]

#: a Compose's box and keypoint arguments -> BboxParams' / KeypointParams' names for them
_BOX_ARGS = {"box_format": "format", "label_fields": "label_fields",
             "min_visibility": "min_visibility", "min_area": "min_area",
             "min_width": "min_width", "min_height": "min_height",
             "max_accept_ratio": "max_accept_ratio", "clip_boxes": "clip",
             "filter_invalid_boxes": "filter_invalid_bboxes"}
_KEYPOINT_ARGS = {"keypoint_format": "format", "keypoint_label_fields": "label_fields",
                  "remove_invisible": "remove_invisible", "angle_in_degrees": "angle_in_degrees"}


def _target_params(given: dict, params: Any, cls: type, names: dict, defaults: dict) -> Any:
    """A Compose's box (or keypoint) settings as one BboxParams (KeypointParams), which
    checks them: ``params`` (warpkit's, albumentations' or its dict), or the arguments given
    one by one (None: not given; ``defaults`` the Compose's own defaults), never both."""
    named = {k: v for k, v in given.items() if v is not None}
    if params is None:
        try:
            return cls(**{names[k]: v for k, v in {**defaults, **named}.items()})
        except ValueError as e:  # the message names the argument as the Compose took it
            msg = str(e)
            for ours, theirs in names.items():
                if msg.startswith((theirs + " ", theirs + ":")):
                    raise ValueError(ours + msg[len(theirs):]) from None
            raise
    if named:
        arg = "bbox_params" if cls is BboxParams else "keypoint_params"
        raise ValueError(f"give {arg}= or {', '.join(f'{k}=' for k in named)}, not both: "
                         f"{arg} sets them")
    return cls.of(params)


#: the Compose keywords of the resampling, and their defaults
RESAMPLING_DEFAULTS = {"interpolation": "linear", "padding": "constant", "fill": 0,
                       "antialias": False, "mask_fill": 0, "mask_interpolation": "nearest"}


def pass_plan(transforms: list, given: dict, overrides: tuple = (), edges: str = "output"
              ) -> tuple[list[int], list[dict]]:
    """Where a pipeline of ``passes="as_needed"`` starts a new pass, and each pass's
    resampling settings. A step starts one where its settings (:meth:`Transform.settings`,
    its nested steps' included) differ from those of the steps since the last start, or where
    it moves pixels (any map but the identity) after a step of the pass that does not commute
    with geometry (:attr:`Transform.commutes`: a blur, noise, a step that reads the image's
    statistics or places): each step then sees the image as the steps before it left it; and
    where a step that turns meets one whose boxes move by an ellipse (``rotate_method``: the
    only turning step of its pass, so its boxes move as albumentations moves them); and, with
    ``edges="each_step"``, where a step that reads outside its input with a border other than
    a constant one (a reflection) follows a step of the pass that moved the frame (a crop, a
    turn, a pad; not a flip or a resize of the whole image): it reflects the image as that step
    left it, not the source beyond it (a constant border is each step's in one pass:
    :mod:`._frames`). The
    settings ``given`` to the Compose hold for every pass (a step that disagrees with one is a
    ValueError naming both, as in one pass); so do two of one step's nested steps that
    disagree. Passes are cut at the host steps anyway (:func:`host_positions`). Returns (the
    starts after the first, each pass's settings)."""
    skip = {k for k in overrides if k in given}
    base = {k: (v, "Compose") for k, v in given.items()}
    found = dict(base)
    hosts = set(host_positions(list(transforms)))
    starts: list[int] = []
    passes: list[dict] = []
    stirred = False  # (a step since the last start that geometry after it would not commute with)
    turned = ellipse = False  # (a step of the pass turns; one moves its boxes by an ellipse)
    framed = False  # (a step of the pass moved the frame: edges="each_step")
    for j, t in enumerate(transforms):
        mine: dict = {}

        def walk(ts):
            for u in ts:
                for k, v in u.settings().items():
                    if k not in skip:
                        merge_setting(mine, k, v, type(u).__name__,
                                      f"the steps of one {type(t).__name__} resample in one "
                                      f"pass, with one {k}")
                walk(getattr(u, "transforms", ()))

        walk([t])
        for k, (v, who) in mine.items():  # (the Compose's own hold everywhere)
            merge_setting(dict(base), k, v, who, f"the Compose's {k} holds for every pass")
        parts = leaves(t)
        if j in hosts:
            stirred = False
        moves = moves_pixels(t)
        turns = [u for u in parts if not u.keeps_axes]
        ellipses = any(getattr(u, "rotate_method", None) == "ellipse" for u in turns)
        padding = mine.get("padding", found.get("padding", ("constant", None)))[0]
        reflects = edges == "each_step" and padding != "constant" and any(
            fills_outside(u) for u in parts)
        if stirred and moves or ellipses and turned or turns and ellipse or framed and reflects \
                or any(k in found and not same_value(found[k][0], v)
                       for k, (v, _) in mine.items()):
            starts.append(j)
            passes.append(found)
            found = dict(base)
            stirred = turned = ellipse = framed = False
        for k, value in mine.items():
            found.setdefault(k, value)
        stirred = stirred or any(isinstance(u, IdentityStep) and not u.commutes
                                 and not is_host(u) for u in parts)
        turned, ellipse = turned or bool(turns), ellipse or ellipses
        framed = framed or any(not isinstance(u, IdentityStep) and not u.whole_frame
                               and not u.keeps_frame for u in parts)
    passes.append(found)
    return starts, [{k: v for k, (v, _) in f.items()} for f in passes]


def pipeline_settings(transforms: list, given: dict, overrides: tuple = ()) -> dict:
    """The pipeline's resampling settings: those ``given`` to the Compose, and those its
    transforms set (:meth:`Transform.settings`, at any depth); two that disagree are a
    ValueError naming both. The keys in ``overrides``, given, replace the transforms' (as
    albumentations' Compose(mask_interpolation=...) does)."""
    found = {k: (v, "Compose") for k, v in given.items()}
    skip = {k for k in overrides if k in given}

    def walk(ts):
        for t in ts:
            for k, v in t.settings().items():
                if k not in skip:
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
            ``interpolation``, ``border_mode``, ``fill``, and the resizes' ``interpolation=
            cv2.INTER_AREA`` the area filter, their ``area_for_downscale`` antialias
            ``"area"``; RandomAffine the options given to it): a pipeline resamples once, so
            two that disagree, or one that disagrees with a value given here, are refused
            naming both. Constant padding in a pipeline that
            only resizes, crops, pads and flips is warped as ``"constant_edge"``: the fill
            outside the image, its edge pixels repeated inside (a resize, then a pad, as
            albumentations applies them).
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
        min_width, min_height, max_accept_ratio: albumentations' further box filters: a box
            narrower or lower than this in output pixels, or with an aspect ratio (max(w / h,
            h / w)) above this, is dropped with its labels.
        label_fields: the names of the fields that hold one label per box (default
            ``["labels"]``): a call passes each by its name and gets each back filtered in step
            with the boxes.
        remove_invisible: drop keypoints that leave the output (else keep them and report
            ``"keypoints_visible"``).
        keypoint_format: the keypoints' columns, as albumentations names them: ``"xy"``,
            ``"yx"``, ``"xya"`` / ``"xys"`` / ``"xyas"`` / ``"xysa"`` (``a`` an angle in degrees,
            counter-clockwise, that turns with the map; ``s`` a scale that scales with it) or
            ``"xyz"`` (``z`` passes through). Rows of another length are refused.
        keypoint_label_fields: the names of the fields with one label per keypoint, filtered in
            step with them (with ``remove_invisible``).
        angle_in_degrees: whether a keypoint's angle column (``"a"``) is in degrees (default)
            or, False, in radians, in and out (albumentations' ``KeypointParams`` of the same
            name; results wrapped into (-pi, pi] as degrees into (-180, 180]), Mosaic's
            metadata items' keypoints too.
        bbox_params, keypoint_params: the box and keypoint arguments above as albumentations
            gives them: a :class:`BboxParams` / :class:`KeypointParams` (warpkit's or
            albumentations' own) or a dict of its arguments; not together with those
            arguments.
        additional_targets: albumentations' further targets, name -> kind (``{"image2":
            "image", "depth": "mask", "instances": "masks", "boxes2": "bboxes",
            "points2": "keypoints"}``; albumentations' volume kinds ``"volume"``,
            ``"volumes"``, ``"mask3d"``, ``"masks3d"`` too): a call passes each by its name,
            and each is moved by the same map as its kind (of the same size as the image).
            Extra boxes and keypoints carry no label fields.
        mask_interpolation: how masks are resampled: ``"nearest"`` (default: labels stay
            labels), ``"linear"`` or ``"cubic"`` (float masks: heatmaps, soft labels, depth;
            integer masks round). albumentations-named transforms set it too (they must
            agree); given here, it overrides theirs, as albumentations' Compose does. OpenCV's
            codes work as in albumentations (``cv2.INTER_NEAREST``, ``cv2.INTER_LINEAR``,
            ``cv2.INTER_CUBIC``).
        strict: refuse a call's keywords that are none of its targets (else they come back
            untouched, as albumentations' ``strict=False`` passes them).
        is_check_shapes: albumentations' switch, taken as it is: warpkit always checks that
            the targets fit the image (it moves them by its map).
        save_applied_params: albumentations' ``out["applied_transforms"]`` too: the
            transforms each sample applied, in order, as (class name, parameters) pairs (the
            steps of a OneOf or a nested pipeline that applied, not the containers), the
            parameters warpkit's (those of ``out["params"]``, which every call returns); a
            batch's, a list a sample.
        seed: the pipeline's seed (albumentations' ``Compose(seed=...)``): a call without
            ``seed=`` draws from it, each sample from the stream ``(seed, epoch, index)``. A call
            without ``index=`` either takes the pipeline's next indices (its calls counted in
            samples: 0, 1, ... for its first call's samples, then on), so its calls differ from
            one another and two pipelines of one seed make the same sequence
            (:meth:`set_random_seed` starts it again); in a DataLoader worker that count is
            keyed on the worker's torch seed as well (:meth:`next_streams`). With ``index=``
            a sample's draw is its own whatever the call's order. None (default): a call
            without ``seed=`` draws fresh entropy (returned in ``out["seed"]``).
        output_dtype, mean, std, layout, max_pixel_value: the tensor a model eats, made by the
            warp itself (see :func:`warpkit.warp_affine`): e.g. ``output_dtype="float32",
            mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), layout="CHW"``: each value
            ``(v / max_pixel_value - mean) / std`` (``max_pixel_value`` None: the dtype's peak,
            255 for uint8, 65535 for uint16, 1 for float32; 4095 for 12-bit data in uint16;
            albumentations' Normalize sets 255 for every dtype). Masks keep their dtype.
        passes: ``"one"``: the pipeline resamples once (steps whose resampling settings
            disagree are refused) and its pixel steps apply to the output, after all the
            geometry; ``"as_needed"``: a new pass (the image resampled again, in its own
            type, as albumentations resamples after every transform) at a step whose settings
            differ from those of the steps before it, and at geometry after a pixel step that
            does not commute with it (a blur, noise, CLAHE: :attr:`Transform.commutes`), so
            each step sees the image as the steps before it left it: ``pass_starts`` lists
            where. None (default): ``"one"`` where the steps' settings agree, else
            ``"as_needed"`` (an ``INTER_AREA`` resize, then a linear one: albumentations'
            recipes set them per transform). ``from_albumentations`` sets it where a recipe
            needs it.
        edges: ``"output"`` (default): the steps' maps make one map, which reads the source
            wherever the output lands in it (a crop then a turn shows what the crop cut away),
            and a constant border goes through every colour step; ``"each_step"``: with a
            constant border, what a step cuts away or fills stays so for the steps after it,
            as applying them one after the other does (albumentations, torchvision): the
            border a step adds goes through the colour steps after it only, masks take their
            fill there, keypoints there become invisible and boxes keep their part inside.
            Still one resampling (:mod:`warpkit.augment._frames`); pipelines whose maps are
            matrices (no ElasticTransform, no Mosaic). ``from_albumentations`` sets it.
        mask_layout: ``"HWC"`` (default) or ``"CHW"``: a mask with channels, (H, W, C), comes
            back as (C, H, W) (a batch's (B, H, W, C) as (B, C, H, W)), a view of the result
            with no copy; (H, W) masks stay (H, W). albumentations'
            ``ToTensorV2(transpose_mask=True)``.
        normalization: ``"standard"`` (default): the model's input from ``mean``, ``std`` and
            ``max_pixel_value``; albumentations' ``Normalize(normalization=...)`` by each
            image's own statistics, of its values as the pipeline leaves them (levels for
            integer images): ``"image"`` ``(v - mean) / (std + 1e-4)`` over all its pixels and
            channels, ``"image_per_channel"`` per channel, ``"min_max"`` ``(v - min) / (max -
            min + 1e-4)``, ``"min_max_per_channel"`` per channel; clipped to [-20, 20] as
            albumentations clips them. Computed on the host after the pass (numpy, sample by
            sample, the sums in float64; image targets, not ``images=``' frames), with
            ``output_dtype`` and no mean, std or max_pixel_value.
        target_types: ``"arrays"``: boxes and keypoints come back as float64 arrays (a
            batch's as a list of them); ``"albumentations"``: as albumentations 2 returns
            them, boxes or keypoints given as a list (or tuple) as a list of lists of floats,
            given as an array as an array, keypoints in float32 (a batch's, sample by sample),
            so that code written for albumentations' results (``if not out["bboxes"]:``,
            ``json.dumps``, a float32 keypoint tensor) runs as it did. None (default):
            ``"albumentations"`` for a pipeline given albumentations' ``bbox_params`` or
            ``keypoint_params`` (its code, ported by the import; ``from_albumentations`` sets
            it too), else ``"arrays"``.
        box_border: what a box becomes where the output's border cuts its mapped outline:
            ``"outline"`` the box around the part of the outline inside the output (a turned
            box's cut-off corner takes nothing with it); ``"clip"`` the box around the whole
            outline, clipped to the output, as albumentations computes it (looser by the
            cut-off corner; min_visibility then counts that box). None (default): ``"clip"``
            for a pipeline given albumentations' ``bbox_params`` (``from_albumentations`` sets
            it too), else ``"outline"``. With ``edges="each_step"`` either rule applies at every step,
            and each step drops the boxes it leaves empty or below the box settings, as
            albumentations' ``check_each_transform`` does.
        tensors: ``True`` returns the images and masks as CPU torch tensors viewing the
            results (``torch.from_numpy``: no copy), as albumentations' ``ToTensorV2`` gives
            them: each image channels first ((H, W, C) as (C, H, W), a gray (H, W) as
            (1, H, W), a batch's (B, H, W, C) as (B, C, H, W)), a model input of
            ``layout="CHW"`` as made, an integer image as a channels-first view of its
            (H, W, C) result (not contiguous, as ``ToTensorV2``'s); masks as they are (with
            ``mask_layout``). Boxes, keypoints and labels stay arrays and lists. A call needs
            torch installed (it refuses before any work without). ``False`` (default): numpy
            arrays (torch tensors given come back as tensors either way).

    Calling it: ``out = pipeline(image=..., mask=..., masks=..., boxes=..., labels=...,
    keypoints=..., seed=..., index=..., epoch=...)`` returns a dict of the targets given (its
    keys, as albumentations' result: :class:`~warpkit.augment.Result`) with the call's
    records beside them, read as items or attributes: ``"matrix"``
    (the 3x3 map of each sample, destination from source), ``"size"`` (its output's (width,
    height): with the matrix, :func:`warpkit.warp_perspective`'s arguments), ``"params"``
    (plain data: :meth:`replay` applies them again) and ``"seed"``. albumentations' names
    work as they are:
    ``bboxes=`` for ``boxes=`` (the result says ``"bboxes"``), each label field by its name
    (``class_labels=``), the additional targets by theirs, and other keywords come back as
    given. Box rows may carry label columns after their 4 numbers, as albumentations'
    (``[x1, y1, x2, y2, class_id]``). ``image`` is a Pillow image, an array
    (H, W) / (H, W, C), a batch (B, H, W, C) or a list of images; a batch or list gets a
    sample each (indices ``index``, ``index + 1``, ... or a sequence), and its targets are
    lists, one per sample. A list of images whose outputs all have one size comes back as one
    (B, ...) array. ``mask`` is one mask per image; ``masks`` a list of masks per image
    (instance masks, several label maps), each moved as ``mask`` is (or, as albumentations 2
    takes them, one (N, H, W[, C]) array, returned as one). ``images`` is albumentations 2's
    frames of one sample ((N, H, W, C) or a list; in a batch one such a sample), every frame
    moved and coloured by the sample's parameters, returned as ``out["images"]``;
    ``volume`` (D, H, W[, C]) and ``mask3d``, ``volumes`` and ``masks3d`` (N, D, ...) are
    albumentations' volumes of one sample, every slice moved so, returned under their names.
    Labels come back as they came: an array or a tensor indexed by the boxes kept, a
    sequence as a list.
    ``out``: an
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

    keeps_axes = True

    def __init__(self, transforms: Sequence[Transform], p: float = 1.0,
                 interpolation: str | None = None, padding: str | None = None,
                 fill: float | Sequence[float] | None = None, mask_fill: float | None = None,
                 antialias: bool | str | None = None, box_format: str | None = None,
                 min_visibility: float | None = None, min_area: float | None = None,
                 remove_invisible: bool | None = None, keypoint_format: str | None = None,
                 output_dtype: str | None = None, mean: Any = None, std: Any = None,
                 layout: str = "HWC", clip_boxes: bool | None = None,
                 filter_invalid_boxes: bool | None = None, *,
                 label_fields: Sequence[str] | None = None,
                 min_width: float | None = None, min_height: float | None = None,
                 max_accept_ratio: float | None = None,
                 keypoint_label_fields: Sequence[str] | None = None,
                 bbox_params: Any = None, keypoint_params: Any = None,
                 additional_targets: dict[str, str] | None = None,
                 mask_interpolation: str | int | None = None, strict: bool = False,
                 is_check_shapes: bool = True, seed: int | None = None,
                 save_applied_params: bool = False, mask_layout: str = "HWC",
                 passes: str | None = None, edges: str = "output", tensors: bool = False,
                 max_pixel_value: float | None = None, target_types: str | None = None,
                 normalization: str = "standard", angle_in_degrees: bool | None = None,
                 box_border: str | None = None) -> None:
        super().__init__(p)
        self.set_random_seed(seed)
        if mask_interpolation is not None:
            mask_interpolation = opencv_code(mask_interpolation, INTERPOLATION_CODES,
                                             "mask_interpolation")
        # albumentations' Normalize, ToFloat and ToTensorV2 as the last steps: the model's
        # input, made in the warp's store
        from ._model_steps import fold_model_steps

        steps, self.volume_tensors = peel_to_tensor3d(transform_list(transforms))
        self.transforms, model = fold_model_steps(steps, {
            "output_dtype": output_dtype, "mean": mean, "std": std,
            "max_pixel_value": max_pixel_value, "normalization": normalization,
            "tensors": tensors, "layout": layout, "mask_layout": mask_layout})
        output_dtype, mean, std = model["output_dtype"], model["mean"], model["std"]
        max_pixel_value, normalization = model["max_pixel_value"], model["normalization"]
        tensors, layout, mask_layout = model["tensors"], model["layout"], model["mask_layout"]
        # albumentations' 3-D steps: on the host, before and after the 2-D pass (_volume3d)
        first, self.transforms, last = split_volume_steps(self.transforms)
        self.volume_first, self.volume_last = tuple(first), tuple(last)
        if last and normalization != "standard":
            raise ValueError(f"{type(last[0]).__name__} after the 2-D steps of a pipeline whose "
                             f"Normalize(normalization={normalization!r}) takes each volume's "
                             f"statistics is not supported (albumentations takes them after the "
                             f"step); list the 3-D steps before the 2-D ones")
        check_placement(self.transforms)
        seeded = next((s for t in self.transforms for s in all_steps(t)
                       if isinstance(s, Compose) and s.seed is not None), None)
        if seeded is not None:  # (albumentations' outer seed overwrites an inner one)
            raise ValueError(f"a {type(seeded).__name__} inside a pipeline draws from the outer "
                             f"pipeline's streams: give seed={seeded.seed} to the outermost "
                             f"Compose")
        given = {"interpolation": interpolation, "padding": padding, "fill": fill,
                 "antialias": antialias, "mask_fill": mask_fill,
                 "mask_interpolation": mask_interpolation}
        self.explicit_settings = {k: v for k, v in given.items() if v is not None}
        one = None  # (the one pass's settings, where they agree)
        if passes in (None, "one"):
            try:
                one = pipeline_settings(self.transforms, self.explicit_settings,
                                        overrides=("mask_interpolation",))
            except SettingsDisagree:
                if passes == "one":
                    raise
            passes = "one" if one is not None else "as_needed"
        self.passes = one_of(passes, "passes", {
            "one": "the pipeline resamples once",
            "as_needed": "a new pass where a step's resampling settings change, or geometry "
                         "follows a blur, noise, ..."})
        self.edges = one_of(edges, "edges", {
            "output": "one map reads the source wherever the output lands in it",
            "each_step": "what a step cuts away or fills stays so for the steps after it, as "
                         "applying them one after the other does"})
        if one is not None:
            chosen = one
            self.pass_starts: tuple[int, ...] = ()
            self.pass_settings = [chosen]
        else:
            starts, self.pass_settings = pass_plan(
                self.transforms, self.explicit_settings, overrides=("mask_interpolation",),
                edges=edges)
            self.pass_starts = tuple(starts)
            chosen = self.pass_settings[0]  # (what the first pass resamples with)
        interpolation, padding, fill, antialias, mask_fill, mask_interpolation = (
            chosen.get(k, d) for k, d in RESAMPLING_DEFAULTS.items())
        self.sampling = Sampling.of(interpolation, padding, fill, antialias)
        # masks filtered by area where their map shrinks (a resize's area_for_downscale=
        # "image_mask"): derived from the steps, which to_dict writes
        self.mask_antialias = chosen.get("mask_antialias", False)
        # masks: the image's padding, their own interpolation (checked as the image's is)
        self.mask_interpolation = Sampling.of(mask_interpolation, "constant", 0,
                                              False).interpolation
        box = _target_params({"box_format": box_format, "label_fields": label_fields,
                              "min_visibility": min_visibility, "min_area": min_area,
                              "min_width": min_width, "min_height": min_height,
                              "max_accept_ratio": max_accept_ratio, "clip_boxes": clip_boxes,
                              "filter_invalid_boxes": filter_invalid_boxes},
                             bbox_params, BboxParams, _BOX_ARGS,
                             {"box_format": "xyxy", "label_fields": ("labels",)})
        point = _target_params({"keypoint_format": keypoint_format,
                                "keypoint_label_fields": keypoint_label_fields,
                                "remove_invisible": remove_invisible,
                                "angle_in_degrees": angle_in_degrees},
                               keypoint_params, KeypointParams, _KEYPOINT_ARGS, {})
        self.mask_fill = number(mask_fill, "mask_fill")
        (self.box_format, self.label_fields, self.min_visibility, self.min_area,
         self.min_width, self.min_height, self.max_accept_ratio, self.clip_boxes,
         self.filter_invalid_boxes) = (getattr(box, k) for k in _BOX_ARGS.values())
        (self.keypoint_format, self.keypoint_label_fields, self.remove_invisible,
         self.angle_in_degrees) = (getattr(point, k) for k in _KEYPOINT_ARGS.values())
        self.additional_targets = self._checked_targets(additional(additional_targets))
        self.strict = flag(strict, "strict")
        self.save_applied_params = flag(save_applied_params, "save_applied_params")
        check_model_input(output_dtype, layout)  # the rest needs the image: the warp checks it
        self.output_dtype, self.mean, self.std, self.layout = output_dtype, mean, std, layout
        self.max_pixel_value = check_max_pixel_value(max_pixel_value)
        if self.max_pixel_value is not None and output_dtype is None:
            raise ValueError(f"max_pixel_value={max_pixel_value!r} scales the model's input: "
                             f"pass output_dtype='float32' or 'float16'")
        self.mask_layout = one_of(mask_layout, "mask_layout", {
            "HWC": "a mask's channels last",
            "CHW": "first, as albumentations' ToTensorV2(transpose_mask=True) gives them"})
        self.tensors = flag(tensors, "tensors")  # (a call without torch refuses: apply)
        self.normalization = one_of(normalization, "normalization", {
            "standard": "(v / max_pixel_value - mean) / std",
            "image": "(v - the image's mean) / (its standard deviation + 1e-4)",
            "image_per_channel": "the same per channel",
            "min_max": "(v - the image's min) / (max - min + 1e-4)",
            "min_max_per_channel": "the same per channel"})
        if self.normalization != "standard" and (
                output_dtype is None or mean is not None or std is not None
                or self.max_pixel_value is not None):
            raise ValueError(f"normalization={normalization!r} makes the model's input from "
                             f"each image's own statistics: pass output_dtype='float32' or "
                             f"'float16' and no mean, std or max_pixel_value")
        # albumentations' keywords: its result types and its boxes, unless given
        ported = bbox_params is not None or keypoint_params is not None
        if target_types is None:
            target_types = "albumentations" if ported else "arrays"
        if box_border is None:
            box_border = "clip" if bbox_params is not None else "outline"
        self.target_types = one_of(target_types, "target_types", {
            "arrays": "boxes and keypoints as float64 arrays",
            "albumentations": "as albumentations 2 returns them: a list of lists for a list, "
                              "an array for an array (keypoints float32)"})
        self.box_border = one_of(box_border, "box_border", {
            "outline": "a box the border cuts becomes the box around its outline's part inside",
            "clip": "the box around its whole outline, clipped to the output (albumentations')"})
        check_conversions(self)
        check_overlays(self)
        check_host_steps(self.transforms)
        if edges == "each_step":
            check_each_step_edges(self)
        cuts = [0, *self.pass_starts, len(self.transforms)]  # (each pass moves its boxes)
        methods = [check_box_method(self.transforms[a:b]) for a, b in zip(cuts, cuts[1:])]
        self.box_method = methods[0]

    def config(self) -> dict:
        return {"transforms": [t.data() for t in self._steps_given()], **self._settings(),
                **({"seed": self.seed} if self.seed is not None else {}),
                **({"save_applied_params": True} if self.save_applied_params else {})}

    def _steps_given(self) -> list:
        """The steps as the pipeline was given them, but its model steps (which its settings
        hold): the 3-D ones in their places and a ToTensor3D last."""
        return [*self.volume_first, *self.transforms, *self.volume_last,
                *([ToTensor3D()] if self.volume_tensors else [])]

    def _checked_targets(self, targets: dict[str, str]) -> dict[str, str]:
        """``additional_targets`` whose names are not the label fields' too."""
        names = [*self.label_fields, *self.keypoint_label_fields, *targets]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{', '.join(map(repr, twice))} names two targets (label_fields, "
                             f"keypoint_label_fields and additional_targets name one each)")
        return targets

    def add_targets(self, additional_targets: dict[str, str] | None) -> None:
        """Take further targets, name -> kind, beside ``additional_targets`` (albumentations'
        ``Compose.add_targets``): a name the pipeline has already must keep its kind.

        Example:
            >>> from warpkit.augment import Compose, HorizontalFlip
            >>> aug = Compose([HorizontalFlip()], additional_targets={"image2": "image"})
            >>> aug.add_targets({"depth": "mask"})
            >>> aug.additional_targets
            {'image2': 'image', 'depth': 'mask'}
        """
        new = additional(additional_targets)
        for name, kind in new.items():
            if self.additional_targets.get(name, kind) != kind:
                raise ValueError(f"additional_targets: {name!r} moves as "
                                 f"{self.additional_targets[name]!r} already, not {kind!r}")
        self.additional_targets = self._checked_targets({**self.additional_targets, **new})

    def set_mask_interpolation(self, mask_interpolation: str | int | None) -> None:
        """Resample the masks of every step with ``mask_interpolation`` from now on, as
        ``Compose(mask_interpolation=...)`` does (albumentations' ``Compose.
        set_mask_interpolation``): a name (``"nearest"``, ``"linear"``, ...) or OpenCV's code
        (``cv2.INTER_NEAREST``, ...). None changes nothing, as albumentations' steps keep the
        last interpolation set on them. A nested Compose is set too; the pipeline's seed and
        its count of calls are kept.

        Example:
            >>> from warpkit.augment import Compose, Rotate
            >>> aug = Compose([Rotate(limit=30)])
            >>> aug.set_mask_interpolation(1)    # cv2.INTER_LINEAR
            >>> aug.mask_interpolation
            'linear'
        """
        if mask_interpolation is None:
            return
        opencv_code(mask_interpolation, INTERPOLATION_CODES, "mask_interpolation")  # (checked)
        for step in self.transforms:
            for inner in all_steps(step):
                if isinstance(inner, Compose):
                    inner.set_mask_interpolation(mask_interpolation)
        settings = {**self._settings(), "mask_interpolation": mask_interpolation}
        for key in RESAMPLING_DEFAULTS:  # (the given ones: the steps' own stay theirs)
            if key != "mask_interpolation":
                settings[key] = self.explicit_settings.get(key)
        counted = self._counted
        Compose.__init__(self, self._steps_given(), p=self.p, **settings)
        self._counted = counted

    def set_random_seed(self, seed: int | None) -> None:
        """Set the pipeline's seed (``Compose(seed=...)``) and start its count of calls again
        (albumentations' ``Compose.set_random_seed``): the calls after it without ``seed=`` or
        ``index=`` repeat those after the pipeline was made with that seed. None: calls
        without ``seed=`` draw fresh entropy.

        Example:
            >>> from warpkit.augment import Compose, HorizontalFlip
            >>> aug = Compose([HorizontalFlip()], seed=137)
            >>> aug.next_streams(4), aug.next_streams(4)
            ((137, 0), (137, 4))
            >>> aug.set_random_seed(137)
            >>> aug.next_streams(1)
            (137, 0)
        """
        self.seed = None if seed is None else count(seed, "seed", 0)
        self._counted = 0

    def next_streams(self, n: int) -> tuple[int, int]:
        """The stream seed and the first index of the next ``n`` samples of a pipeline with a
        seed (a call without ``seed=`` or ``index=`` takes them): the pipeline's seed and its
        count of samples so far, which this advances by ``n``. In a PyTorch DataLoader worker
        (``torch.utils.data.get_worker_info()``) the seed is instead numpy's ``SeedSequence(
        [seed, worker seed])`` hashed to 64 bits, the worker's torch seed being the loader's
        base seed (new each epoch, from torch's generator) plus the worker's id: each worker
        starts from a copy of the pipeline, and of its count, so without it the workers would
        repeat one another's draws, and with ``persistent_workers=False`` every epoch the
        first's (seed the loader's generator, or torch, for a run that repeats)."""
        if self.seed is None:
            raise ValueError("this pipeline has no seed: pass seed= to its calls, or give it one "
                             "(Compose(seed=...), set_random_seed)")
        with _COUNTING:
            first = self._counted
            self._counted += n
        data = sys.modules.get("torch.utils.data")
        info = None if data is None else data.get_worker_info()
        if info is None:
            return self.seed, first
        mixed = np.random.SeedSequence([self.seed, int(info.seed)])
        return int(mixed.generate_state(1, np.uint64)[0]), first

    def host_parts(self) -> tuple[list[tuple[int, int, Compose]], list[int | None]]:
        """A pipeline in several passes, split at its host steps (:mod:`._host`) and, with
        ``passes="as_needed"``, where :func:`pass_plan` starts a pass: (start, stop, a
        pipeline of steps ``start``:``stop`` with its pass's settings) for each pass, and what
        lies between each two: a host step's position (a OneOf holding some is a pass's first
        step too, for the samples that chose another), or None where the plan starts one. The
        passes before the last keep the image's type and layout (no model input); the last
        makes the output. Made once."""
        key = tuple(map(id, self.transforms))
        got = getattr(self, "_parts", None)
        if got is not None and got[0] == key:
            return got[1]
        hosts = host_positions(self)
        cuts = sorted({*hosts, *self.pass_starts})
        n = len(self.transforms)
        # a pass starts after a host step, or at a OneOf holding some (its other choices) or
        # a host step that stays in the pass (a dropout's inpainting: its holes in the targets)
        starts = [0, *(j + 1 if j in hosts and is_host(self.transforms[j]) and
                       not getattr(self.transforms[j], "stays_in_pass", False) else j
                       for j in cuts)]
        base = {**self._settings(), "strict": False, "tensors": False}  # (apply converts)

        def settings(a: int, b: int) -> dict:
            own = self.pass_settings[sum(j <= a for j in self.pass_starts)]
            out = {**base, **{k: plain(own.get(k, d)) for k, d in RESAMPLING_DEFAULTS.items()},
                   "passes": "one"}
            if b < n:
                out.update(output_dtype=None, mean=None, std=None, layout="HWC",
                           mask_layout="HWC", max_pixel_value=None, normalization="standard")
            return out

        parts = [(a, b, Compose(self.transforms[a:b], **settings(a, b)))
                 for a, b in zip(starts, [*cuts, n])]
        between = [j if j in hosts else None for j in cuts]
        self._parts = (key, (parts, between))
        return parts, between

    def _settings(self) -> dict:
        own = {"interpolation": self.interpolation, "padding": self.padding,
               "fill": plain(self.fill), "mask_fill": self.mask_fill,
               "antialias": self.antialias, "mask_interpolation": self.mask_interpolation}
        if self.passes != "one":  # (each pass's own come from its steps: only the given)
            own = {k: plain(self.explicit_settings.get(k)) for k in own}
        return {**own,
                "box_format": self.box_format, "label_fields": list(self.label_fields),
                "min_visibility": self.min_visibility, "min_area": self.min_area,
                "min_width": self.min_width, "min_height": self.min_height,
                "max_accept_ratio": self.max_accept_ratio, "clip_boxes": self.clip_boxes,
                "filter_invalid_boxes": self.filter_invalid_boxes,
                "remove_invisible": self.remove_invisible,
                "keypoint_format": self.keypoint_format,
                "keypoint_label_fields": list(self.keypoint_label_fields),
                "additional_targets": dict(self.additional_targets), "strict": self.strict,
                "output_dtype": self.output_dtype, "mean": plain(self.mean),
                "std": plain(self.std), "layout": self.layout,
                **({"max_pixel_value": self.max_pixel_value}
                   if self.max_pixel_value is not None else {}),
                **({"mask_layout": "CHW"} if self.mask_layout == "CHW" else {}),
                **({"tensors": True} if self.tensors else {}),
                **({"target_types": self.target_types} if self.target_types != "arrays"
                   else {}),
                **({"normalization": self.normalization} if self.normalization != "standard"
                   else {}),
                **({"passes": self.passes} if self.passes != "one" else {}),
                **({"edges": self.edges} if self.edges != "output" else {}),
                **({"box_border": self.box_border} if self.box_border != "outline" else {}),
                **({"angle_in_degrees": False} if not self.angle_in_degrees else {})}

    def call_keys(self) -> tuple[str, ...]:
        """The names a call takes as targets: the built-in ones, the label fields and the
        additional targets (what :func:`batches` hands over from a loader's batch), a
        Mosaic's ``metadata_key`` and the keywords its draws read as given (RandomCropNearBBox's
        box)."""
        meta = self.metadata_key
        return (*BUILT_IN, *self.label_fields, *self.keypoint_label_fields,
                *self.additional_targets, *([meta] if meta else []), *passed_keys(self))

    @property
    def mosaic(self) -> Mosaic | None:
        """The pipeline's Mosaic (its first step; one anywhere else is refused when the
        pipeline is made), or None."""
        first = self.transforms[0] if self.transforms else None
        return first if isinstance(first, Mosaic) else None

    @property
    def metadata_key(self) -> str | None:
        """The keyword of a single call's other images for its Mosaic (None without one)."""
        return None if self.mosaic is None else self.mosaic.metadata_key

    @classmethod
    def from_dict(cls, d: dict, nonserializable: dict | None = None) -> Transform:
        """A pipeline (or any transform) from :meth:`to_dict`'s plain data (JSON);
        ``nonserializable``: the Lambdas it names (name -> :class:`Lambda`), written without
        their functions."""
        return from_dict(d, nonserializable=nonserializable)

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen, resized: dict | None = None):
        """Each step drawn in turn; ``seen`` (the sample's targets, or None) carried past each
        step while a later one reads it. ``resized``: step position -> the image shape
        (height, width) a Lambda there gave, recorded in its parameters (its ``shape``) before
        the steps after it draw for that size (:func:`~warpkit.augment._host.redraw`)."""
        steps = []
        last = max((j for j, t in enumerate(self.transforms) if t.reads), default=-1) \
            if seen is not None else -1
        for j, t in enumerate(self.transforms):
            p = draw_step(t, rng, size, seen if j <= last else None)
            if resized and j in resized and p["applied"]:
                p["shape"] = list(resized[j])
            steps.append(p)
            if j < last:
                seen = seen.after(t, p, size)
            size = step_size(t, p, size)
        return {"steps": steps}

    @property
    def reads(self) -> frozenset:  # type: ignore[override]
        return reads_any(self.transforms)

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
        cur = [sizes[k] for k in on]
        acc = None
        for j, t in enumerate(self.transforms):
            if type(t).maps is IdentityStep.maps:  # (a colour step: the product as it is)
                continue
            got = t.maps([plist[k]["steps"][j] for k in on], cur)
            if got is None:
                return None
            m, cur = got
            acc = m if acc is None else m @ acc
        if acc is not None and len(on) == len(plist):  # every sample (one sample per call)
            return acc, cur
        mats = np.tile(geometry.IDENTITY, (len(plist), 1, 1))
        outs = list(sizes)
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
               epoch: int = 0, *, boxes: Any = None, mask: Any = None,
               labels: Any = None, **passed: Any) -> dict:
        """The parameters of one sample of an input of ``size`` = (height, width)
        (``image.shape[:2]``), as a call draws them from its ``(seed, epoch, index)`` stream,
        without touching any image. A pipeline whose crops choose from the targets
        (BBoxSafeRandomCrop, CropNonEmptyMaskIfExists, ...) reads ``boxes`` (the pipeline's
        ``box_format``), ``labels`` (one per box: ConstrainedCoarseDropout's ``bbox_labels``
        match them) and ``mask`` as a call with them would, and the keywords a call passes
        through (``passed``: RandomCropNearBBox's ``cropping_bbox``, HistogramMatching's
        ``hm_metadata``) as that call's. A Mosaic draws here as a single image's call without
        ``mosaic_metadata`` does: every cell takes the sample's own image."""
        wh = size_arg(size, "size")
        known = set(passed_keys(self))
        unknown = sorted(set(passed) - known)
        if unknown:
            raise TypeError(f"sample() got keywords no transform of this pipeline reads: "
                            f"{', '.join(unknown)} (it reads {sorted(known) or 'none'})")
        seen = None
        if self.reads:
            xyxy = None if boxes is None else \
                to_xyxy(box_rows(boxes)[:, :4], self.box_format, wh)
            seen = Seen(wh, xyxy, None if mask is None else [mask],
                        labels=None if labels is None else list(labels), given=passed.get)
        return draw_step(self, stream(seed, epoch, index), wh, seen)

    def replay(self, params: Any, **targets: Any) -> dict:
        """Apply parameters from an earlier call's ``out["params"]`` to these targets."""
        return self(params=params, **targets)

    def __call__(self, image: Any = None, mask: Any = None, boxes: Any = None,
                 labels: Any = None, keypoints: Any = None, seed: int | None = None,
                 index: int | Sequence[int] | None = None, epoch: int = 0, params: Any = None,
                 queue: Any = None, masks: Any = None, out: Any = None, bboxes: Any = None,
                 **targets: Any) -> dict:
        given = {"image": image, "mask": mask, "masks": masks, "boxes": boxes,
                 "bboxes": bboxes, "labels": labels, "keypoints": keypoints, **targets}
        return apply(self, given, seed=seed, index=index, epoch=epoch, params=params,
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


def call_alone(t: Transform, call: dict, **settings: Any) -> dict:
    """A call of the transform ``t`` alone (:meth:`Transform.__call__`): ``Compose([t])`` with
    ``settings`` and the Compose options among ``call``'s keywords, called with the rest."""
    options = {k: call.pop(k) for k in list(call) if k in COMPOSE_OPTIONS}
    if call.get("image") is None:
        call.pop("image", None)  # (a call of masks alone)
    return Compose([t], **settings, **options)(**call)


#: the keywords of Compose's constructor that a lone transform's call passes on to it
#: (not ``seed``: a call's)
COMPOSE_OPTIONS = frozenset(inspect.signature(Compose).parameters) - {"transforms", "p", "seed"}


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
