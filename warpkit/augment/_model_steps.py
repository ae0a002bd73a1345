"""albumentations' steps that make the model's input, under their names and parameters:
``Normalize``, ``ToFloat`` and ``ToTensorV2`` (albumentations.pytorch's). warpkit makes the
model's input in the warp's store (a :class:`~warpkit.augment.Compose`'s ``output_dtype``,
``mean``, ``std``, ``max_pixel_value``, ``layout`` and ``tensors``), so a Compose whose last
steps are these takes them as those settings: a recipe that ends in ``A.Normalize(),
ToTensorV2()`` ports by changing its imports.

Conventions: they are a Compose's last steps, in albumentations' order (``Normalize`` or
``ToFloat``, then ``ToTensorV2``), at its top level; or ``Normalize`` (``ToFloat``) before
geometry and dropouts that fill with a number (Kaggle's order), which albumentations applies
to the model's float image: their fills, in the model's units, become the image's levels
(``(fill * std + mean) * max_pixel_value``), as :func:`~warpkit.augment.from_albumentations`
makes them.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._albumentations import (after_model_fills, normalize_settings, to_float_settings,
                              to_tensor_settings)
from ._base import Transform, all_steps, contains, from_dict


class ModelStep(Transform):
    """A step that makes the model's input: a Compose's settings (:meth:`settings`), taken
    where it is the Compose's last step (:func:`fold_model_steps`)."""

    def settings(self) -> dict[str, Any]:
        raise NotImplementedError


class Normalize(ModelStep):
    """albumentations' Normalize: the model's input in float32, ``(v / max_pixel_value - mean)
    / std`` a channel (``normalization="standard"``), or from each image's own statistics
    (``"image"``, ``"image_per_channel"``, ``"min_max"``, ``"min_max_per_channel"``); ``p``
    must be 1 (the model's input is made for every sample).

    Example:
        >>> from warpkit.augment import Compose, HorizontalFlip, Normalize
        >>> aug = Compose([HorizontalFlip(), Normalize(mean=0.5, std=0.25)])
        >>> aug.output_dtype, aug.mean, aug.std, len(aug.transforms)
        ('float32', [0.5], [0.25], 1)
    """

    def __init__(self, mean: Any = (0.485, 0.456, 0.406), std: Any = (0.229, 0.224, 0.225),
                 max_pixel_value: float | None = 255.0, normalization: str = "standard",
                 p: float = 1.0) -> None:
        super().__init__(p)
        self.mean, self.std, self.max_pixel_value = mean, std, max_pixel_value
        self.normalization = normalization
        self.settings()  # (checked here, as the port checks it)

    def settings(self) -> dict[str, Any]:
        return normalize_settings(self.mean, self.std, self.max_pixel_value,
                                  self.normalization, self.p)

    def config(self) -> dict:
        return {"mean": self.mean, "std": self.std, "max_pixel_value": self.max_pixel_value,
                "normalization": self.normalization}


class ToFloat(ModelStep):
    """albumentations' ToFloat: the model's input in float32, integer images divided by
    ``max_value`` (None: their type's peak), float images as they are; ``p`` must be 1.

    Example:
        >>> from warpkit.augment import Compose, HorizontalFlip, ToFloat
        >>> Compose([HorizontalFlip(), ToFloat()]).output_dtype
        'float32'
    """

    def __init__(self, max_value: float | None = None, p: float = 1.0) -> None:
        super().__init__(p)
        self.max_value = max_value
        self.settings()

    def settings(self) -> dict[str, Any]:
        return to_float_settings(self.max_value, self.p)

    def config(self) -> dict:
        return {"max_value": self.max_value}


class ToTensorV2(ModelStep):
    """albumentations.pytorch's ToTensorV2: the results as torch tensors, images channels first
    (after ``Normalize`` or ``ToFloat`` the kernel stores the float input so; without them, a
    channels-first view of the uint8 result), masks too with ``transpose_mask``; ``p`` 1 (or 0:
    nothing). torch is needed at the call, not at import.

    Example:
        >>> from warpkit.augment import Compose, HorizontalFlip, Normalize, ToTensorV2
        >>> aug = Compose([HorizontalFlip(), Normalize(), ToTensorV2()])
        >>> aug.tensors, aug.layout
        (True, 'CHW')
    """

    def __init__(self, transpose_mask: bool = False, p: float = 1.0) -> None:
        super().__init__(p)
        self.transpose_mask = bool(transpose_mask)
        self.settings()

    def settings(self) -> dict[str, Any]:
        return to_tensor_settings(self.p, self.transpose_mask)

    def config(self) -> dict:
        return {"transpose_mask": self.transpose_mask}


#: the Compose arguments the model steps set, and their defaults
MODEL_ARGS = {"output_dtype": None, "mean": None, "std": None, "max_pixel_value": None,
              "normalization": "standard", "tensors": False, "layout": "HWC",
              "mask_layout": "HWC"}


def fold_model_steps(transforms: Sequence[Transform], given: dict[str, Any]
                     ) -> tuple[list[Transform], dict[str, Any]]:
    """A Compose's steps without its trailing model steps, and its model-input arguments with
    theirs (``given``: the Compose's own, :data:`MODEL_ARGS`' keys). A model step elsewhere, or
    model arguments given beside one, is refused, naming it."""
    steps = list(transforms)
    from ._compose import Compose

    inner = next((s for t in steps for s in all_steps(t) if isinstance(s, Compose) and (
        s.output_dtype is not None or s.tensors or s.mask_layout != "HWC")), None)
    if inner is not None:  # (its own Normalize or ToTensorV2 became its settings)
        raise ValueError("a Compose inside a pipeline makes no model input of its own (its "
                         "output_dtype, tensors or mask_layout, or its Normalize, ToFloat or "
                         "ToTensorV2): give them to the outermost Compose, as its settings or "
                         "its last steps")
    if not any(contains(t, ModelStep) for t in steps):
        return steps, given
    tail: list[ModelStep] = []
    if steps and isinstance(steps[-1], ToTensorV2):
        tail.insert(0, steps.pop())
    # Normalize or ToFloat at the top level: the steps after it (geometry, dropouts that fill
    # with a number) see the model's float image in albumentations
    at = next((i for i in range(len(steps) - 1, -1, -1)
               if isinstance(steps[i], (Normalize, ToFloat))), None)
    after: list[Transform] = []
    if at is not None:
        after = steps[at + 1:]
        tail.insert(0, steps[at])
        del steps[at:]
    stray = next((t for t in (*steps, *after) if contains(t, ModelStep)), None)
    if stray is not None:
        inner = next(t for t in all_steps(stray) if isinstance(t, ModelStep))
        raise ValueError(
            f"{type(inner).__name__} makes the model's input, which warpkit makes in the "
            f"warp's store: a Compose takes one, at its top level (Normalize or ToFloat, then "
            f"the geometry and dropouts that albumentations applies to the model's float "
            f"image, then ToTensorV2 last), not twice nor inside OneOf or a nested pipeline")
    clash = [k for k, d in MODEL_ARGS.items() if given.get(k, d) != d]
    if clash:
        raise ValueError(f"{' and '.join(type(t).__name__ for t in tail)} "
                         f"{'make' if len(tail) > 1 else 'makes'} the model's input, and so "
                         f"do Compose's {', '.join(clash)}: give one or the other")
    model = dict(MODEL_ARGS)
    for t in tail:
        model.update(t.settings())
    if model["output_dtype"] is None:  # ToTensorV2 of the image's own type: a view
        model["layout"] = "HWC"
    if after:
        name = type(tail[0]).__name__
        steps += [_after_model_step(t, name, model) for t in after]
    return steps, model


def _after_model_step(t: Transform, model_at: str, model: dict[str, Any]) -> Transform:
    """A step after Normalize (or ToFloat), ``t`` with the fills of its steps (read in the
    model's units, as albumentations applies them to the model's float image) as the image's
    levels, which the store makes the fills again (the port's rule,
    :func:`~warpkit.augment._albumentations.after_model_fills`); a step that is neither
    geometry nor a dropout filling with a number refused by name."""
    converted = False
    for s in all_steps(t):  # (by name first: a step refused before its arguments are read)
        if type(s).__name__ not in CONTAINERS:
            converted |= bool(after_model_fills(type(s).__name__, _Arguments(s), model_at,
                                                model))
    if not converted:  # (flips, crops, a turn without a fill of its own)
        return t

    def walk(node: dict) -> None:
        if node["type"] in CONTAINERS:
            for child in node["transforms"]:
                walk(child)
        else:
            node.update(after_model_fills(node["type"], node, model_at, model))

    data = t.data()
    walk(data)
    return from_dict(data, nested=True)


class _Arguments:
    """A step's constructor arguments, read when asked for (``get``)."""

    def __init__(self, step: Transform) -> None:
        self.step = step

    def get(self, key: str, default: Any = None) -> Any:
        return self.step.config().get(key, default)


#: the pipelines inside a pipeline whose steps a step after Normalize may be
CONTAINERS = frozenset({"OneOf", "SomeOf", "RandomOrder", "OneOrOther", "Sequential", "Compose"})
