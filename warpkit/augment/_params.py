"""What a pipeline does with its boxes and keypoints, under albumentations' names:
:class:`BboxParams` and :class:`KeypointParams` (given to :class:`~warpkit.augment.Compose` as
``bbox_params=`` / ``keypoint_params=``, as albumentations' ``Compose`` takes them), and the
names a call's targets go by (:class:`Targets`: ``bboxes=`` or ``boxes=``, label fields by their
own names, ``additional_targets``)."""

from __future__ import annotations

import inspect
import keyword
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .._checks import flag, number

__all__ = ["BboxParams", "KeypointParams", "Targets"]

#: box formats a pipeline takes: warpkit's "xyxy" and albumentations' four
BOX_FORMATS = ("xyxy", "pascal_voc", "coco", "yolo", "albumentations")
#: albumentations' keypoint formats warpkit has: the letters name the columns (x, y; a: an
#: angle in degrees; s: a scale; z: a depth that passes through unchanged)
KEYPOINT_FORMATS = ("xy", "yx", "xya", "xys", "xyas", "xysa", "xyz")
#: albumentations' volume kinds (one sample's slices, (D, H, W[, C]); several samples', (N, D,
#: ...)) and the group of a call's targets each goes with (its slices are moved as images or
#: masks)
VOLUME_KINDS = {"volume": "image", "volumes": "image", "mask3d": "masks", "masks3d": "masks"}
#: what an additional target may be (albumentations' kinds)
TARGET_KINDS = ("image", "mask", "masks", "bboxes", "keypoints", *VOLUME_KINDS)
#: the keywords a call takes besides its targets
CALL_OPTIONS = ("seed", "index", "epoch", "params", "queue", "out")
#: the targets every pipeline knows, by their own names
BUILT_IN = ("image", "images", "mask", "masks", "boxes", "bboxes", "keypoints", "volume",
            "volumes", "mask3d", "masks3d")
#: the image targets a call's ``images=`` (one sample's frames) becomes, one a frame (see
#: :mod:`._executor`): ``images[0]``, ``images[1]``, ... (no keyword a call can pass; the
#: names its messages give)
FRAME = "images["


def _names(value: Any, arg: str) -> tuple[str, ...]:
    """A list of keyword names (label fields), checked: each an identifier a call can pass, not
    one of a call's own keywords, none twice."""
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"{arg} must be a list of names, got {value!r}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"{arg} must hold names a call passes as keywords, got {name!r}")
        if name in CALL_OPTIONS or name in BUILT_IN:
            raise ValueError(f"{arg}: {name!r} is a call's own keyword, not a label field")
    if len(set(names)) != len(names):
        raise ValueError(f"{arg} names a field twice: {list(names)}")
    return names


class BboxParams:
    """How a pipeline reads, checks and filters boxes: albumentations 2.0.8's ``BboxParams``,
    same names and meanings, given to :class:`~warpkit.augment.Compose` as ``bbox_params=``.

    Args:
        format: ``"pascal_voc"`` (pixel-edge corners x1, y1, x2, y2; warpkit's ``"xyxy"`` is
            the same), ``"coco"`` (x, y, width, height), ``"yolo"`` (centre and size as
            fractions of the image) or ``"albumentations"`` (corners as fractions).
        label_fields: the names of the fields that hold one label per box (``["class_labels",
            "ids"]``): a call passes each by its name (``class_labels=...``) and gets each back
            filtered in step with the boxes.
        min_area, min_visibility: a box keeping less than this many square pixels, or less than
            this fraction of its mapped area, inside the output is dropped with its labels.
        min_width, min_height: likewise for the kept box's width and height, in output pixels.
        max_accept_ratio: a box whose aspect ratio (max(w / h, h / w)) exceeds this is dropped;
            None keeps every ratio.
        clip: clip the boxes to their image before anything else (else a box that reaches
            outside is refused).
        filter_invalid_bboxes: drop boxes without a width or height (after clipping) instead of
            refusing them.
        check_each_transform: taken for albumentations' sake; warpkit's pipeline makes one
            resampling, so the boxes are checked once, against the output (albumentations'
            default checks after each transform: a box that leaves an intermediate image and
            comes back is kept here, dropped there).

    Rows with more than 4 columns (``[x1, y1, x2, y2, class_id]``) carry their extra columns
    along as albumentations does: they come back after the 4 numbers, in step with the boxes.

    Example:
        >>> from warpkit.augment import BboxParams, Compose, HorizontalFlip
        >>> aug = Compose([HorizontalFlip(p=1)],
        ...               bbox_params=BboxParams(format="coco", label_fields=["class_labels"]))
        >>> aug.box_format, aug.label_fields
        ('coco', ('class_labels',))
    """

    def __init__(self, format: str, label_fields: Sequence[str] | None = None,
                 min_area: float = 0.0, min_visibility: float = 0.0, min_width: float = 0.0,
                 min_height: float = 0.0, check_each_transform: bool = True, clip: bool = False,
                 filter_invalid_bboxes: bool = False,
                 max_accept_ratio: float | None = None) -> None:
        self.format = _format(format, BOX_FORMATS, "box")
        self.label_fields = _names(label_fields, "label_fields")
        self.min_area = _at_least(min_area, "min_area", 0)
        self.min_visibility = _at_least(min_visibility, "min_visibility", 0, 1)
        self.min_width = _at_least(min_width, "min_width", 0)
        self.min_height = _at_least(min_height, "min_height", 0)
        self.max_accept_ratio = None if max_accept_ratio is None else \
            _at_least(max_accept_ratio, "max_accept_ratio", 1)
        self.check_each_transform = flag(check_each_transform, "check_each_transform")
        self.clip = flag(clip, "clip")
        self.filter_invalid_bboxes = flag(filter_invalid_bboxes, "filter_invalid_bboxes")

    @classmethod
    def of(cls, value: Any) -> BboxParams:
        """A BboxParams from one of warpkit's or albumentations' (its attributes), or from a
        dict of its arguments (albumentations' to_dict); unknown keys are refused by name."""
        return _params_of(cls, value, "bbox_params")

    def __repr__(self) -> str:
        return _repr(self)


class KeypointParams:
    """How a pipeline reads and filters keypoints: albumentations 2.0.8's ``KeypointParams``,
    given to :class:`~warpkit.augment.Compose` as ``keypoint_params=``.

    Args:
        format: the columns: ``"xy"``, ``"yx"``, ``"xya"``, ``"xys"``, ``"xyas"``, ``"xysa"``
            (``a`` an angle, ``s`` a scale) or ``"xyz"`` (albumentations' ``"xysa"`` family;
            ``"xyz"``'s depth passes through).
        label_fields: the names of the fields with one label per keypoint, filtered in step
            with the keypoints.
        remove_invisible: drop keypoints that leave the output (else keep them all, in order,
            with ``out["keypoints_visible"]``).
        angle_in_degrees: whether the angle column is in degrees (default) or in radians, in
            and out.
        check_each_transform: taken for albumentations' sake; checked once, on the output.

    Example:
        >>> from warpkit.augment import Compose, KeypointParams, VerticalFlip
        >>> aug = Compose([VerticalFlip(p=1)],
        ...               keypoint_params=KeypointParams(format="xy", label_fields=["joint"]))
        >>> aug.keypoint_format, aug.keypoint_label_fields
        ('xy', ('joint',))
    """

    def __init__(self, format: str = "xy", label_fields: Sequence[str] | None = None,
                 remove_invisible: bool = True, angle_in_degrees: bool = True,
                 check_each_transform: bool = True) -> None:
        self.format = _format(format, KEYPOINT_FORMATS, "keypoint")
        self.label_fields = _names(label_fields, "label_fields")
        self.remove_invisible = flag(remove_invisible, "remove_invisible")
        self.angle_in_degrees = flag(angle_in_degrees, "angle_in_degrees")
        self.check_each_transform = flag(check_each_transform, "check_each_transform")

    @classmethod
    def of(cls, value: Any) -> KeypointParams:
        """As :meth:`BboxParams.of`."""
        return _params_of(cls, value, "keypoint_params")

    def __repr__(self) -> str:
        return _repr(self)


def _format(value: Any, formats: tuple, what: str) -> str:
    if value not in formats:
        raise ValueError(f"{what}_format must be one of {', '.join(map(repr, formats))}; got "
                         f"{value!r}")
    return value


def _at_least(value: Any, arg: str, lo: float, hi: float = math.inf) -> float:
    v = number(value, arg)
    if not lo <= v <= hi:
        span = f">= {lo:g}" if hi == math.inf else f"in [{lo:g}, {hi:g}]"
        raise ValueError(f"{arg} must be {span}, got {value!r}")
    return v


def _params_of(cls: type, value: Any, arg: str) -> Any:
    if isinstance(value, cls):
        return value
    keys = [k for k in inspect.signature(cls.__init__).parameters if k != "self"]
    if isinstance(value, Mapping):
        given = {k: v for k, v in value.items() if k != "__class_fullname__"}
        unknown = sorted(set(given) - set(keys))
        if unknown:
            raise ValueError(f"{arg}: parameters warpkit does not know: {', '.join(unknown)} "
                             f"(it takes {', '.join(keys)})")
        return cls(**given)
    if all(hasattr(value, k) for k in ("format", "label_fields")):  # albumentations' own
        return cls(**{k: getattr(value, k) for k in keys if hasattr(value, k)})
    raise TypeError(f"{arg} must be a {cls.__name__} (warpkit's or albumentations') or a dict "
                    f"of its arguments, got {type(value).__name__}")


def _repr(obj: Any) -> str:
    return f"{type(obj).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(obj).items())})"


def additional(value: Any) -> dict[str, str]:
    """``additional_targets`` checked: names a call passes as keywords -> the kind of target
    each is moved as (``"image"``, ``"mask"``, ``"masks"``, ``"bboxes"``, ``"keypoints"``)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"additional_targets must be a dict of name -> kind (one of "
                         f"{', '.join(map(repr, TARGET_KINDS))}), got {value!r}")
    out = {}
    for name, kind in value.items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"additional_targets: {name!r} is not a name a call can pass")
        if name in BUILT_IN or name in CALL_OPTIONS or name == "labels":
            raise ValueError(f"additional_targets: {name!r} is a call's own keyword")
        if kind not in TARGET_KINDS:
            raise ValueError(f"additional_targets[{name!r}] must be one of "
                             f"{', '.join(map(repr, TARGET_KINDS))}, got {kind!r}")
        out[name] = kind
    return out


def volume_targets(pipe: Any) -> dict[str, str]:
    """The names a call's volumes come under -> their kind (:data:`VOLUME_KINDS`):
    albumentations' own, and the additional targets of those kinds."""
    return {**{k: k for k in VOLUME_KINDS},
            **{n: k for n, k in pipe.additional_targets.items() if k in VOLUME_KINDS}}


class Targets:
    """A call's targets sorted by what moves them: ``images``, ``masks``, ``mask_lists``,
    ``boxes`` and ``keypoints`` (name -> value, the call's own first, then its additional
    targets), the main boxes' and keypoints' label fields (name -> value), and the keys passed
    through untouched."""

    def __init__(self, pipe: Any, given: dict) -> None:
        kinds = {"image": "image", "images": "image", "mask": "mask", "masks": "masks",
                 **VOLUME_KINDS, "boxes": "bboxes", "bboxes": "bboxes", "keypoints": "keypoints",
                 **{n: VOLUME_KINDS.get(k, k) for n, k in pipe.additional_targets.items()}}
        if given.get("boxes") is not None and given.get("bboxes") is not None:
            raise ValueError("give the boxes as boxes= or as bboxes= (albumentations' name), "
                             "not both")
        self.images: dict[str, Any] = {}
        self.masks: dict[str, Any] = {}
        self.mask_lists: dict[str, Any] = {}
        self.boxes: dict[str, Any] = {}
        self.keypoints: dict[str, Any] = {}
        self.box_fields: dict[str, Any] = {}
        self.keypoint_fields: dict[str, Any] = {}
        self.passed: dict[str, Any] = {}
        box_fields, kp_fields = pipe.label_fields, pipe.keypoint_label_fields
        meta = getattr(pipe, "metadata_key", None)  # a Mosaic's other images
        by_kind = {"image": self.images, "mask": self.masks, "masks": self.mask_lists,
                   "bboxes": self.boxes, "keypoints": self.keypoints}
        for name, value in given.items():
            if value is None:
                continue
            if name in kinds:
                by_kind[kinds[name]][name] = value
            elif name.startswith(FRAME):  # (a frame of images=, split by the call)
                self.images[name] = value
            elif name in box_fields:
                self.box_fields[name] = value
            elif name in kp_fields:
                self.keypoint_fields[name] = value
            elif name == "labels":
                fields = ", ".join(box_fields + kp_fields) or "none"
                raise ValueError(f"labels= is not a label field of this pipeline (its label "
                                 f"fields: {fields}): pass each field by its own name, or add "
                                 f"'labels' to label_fields")
            elif pipe.strict and name != meta and name not in pipe.call_keys():
                known = pipe.call_keys()
                raise TypeError(f"the call got {name}=, which this pipeline does not know "
                                f"(strict=True; it takes {', '.join(known)})")
            else:
                self.passed[name] = value
        if self.box_fields and not self.boxes.keys() & {"boxes", "bboxes"}:
            self.passed.update(self.box_fields)  # labels without boxes pass as given
            self.box_fields = {}
        if self.keypoint_fields and "keypoints" not in self.keypoints:
            self.passed.update(self.keypoint_fields)
            self.keypoint_fields = {}

    def main_boxes(self) -> str | None:
        """The key of the call's own boxes (``boxes`` or ``bboxes``), which carry the label
        fields; None without them."""
        return next((k for k in ("boxes", "bboxes") if k in self.boxes), None)
