"""A one-line port from albumentations: :func:`from_albumentations` turns an albumentations 2.0.8
pipeline (a ``Compose``, the dict of ``A.to_dict``, or the JSON or YAML file of ``A.save``) into a
warpkit :class:`Compose` of the same transforms.

Every transform and parameter is taken as albumentations gives it or refused by name: a
transform warpkit does not have raises a ``ValueError`` that names it and lists what is
supported; a parameter warpkit cannot honour (a value other than the one warpkit implements)
raises one that names the transform, the parameter and the value. Nothing is dropped silently.

Pipeline-wide settings in warpkit are per transform in albumentations: the interpolation, the
border mode and fill of the geometric transforms (one resampling: they must agree), and
``Normalize`` (the model's input, made in the same store: the last transform, or before
``ToTensorV2``, which makes the results torch tensors, channels first, as its own).

Example:
    >>> import albumentations as A                                       # doctest: +SKIP
    >>> from warpkit.augment import from_albumentations
    >>> aug = from_albumentations(A.Compose([A.HorizontalFlip(), A.ColorJitter(p=0.8)]))  # doctest: +SKIP
    >>> [type(t).__name__ for t in aug.transforms]                           # doctest: +SKIP
    ['HorizontalFlip', 'ColorJitter']
"""

from __future__ import annotations

import copy
import os
from typing import Any, Callable

import numpy as np

from ..engine import check_max_pixel_value
from ..engine.output import peak_of
from . import _colour as C
from . import _dropout as D
from . import _filters as F
from . import _geometric as G
from . import _morph as MO
from . import _mosaic as M
from . import _nonlinear as N
from . import _objects as O
from . import _pixel as P
from . import _plasma as PL
from . import _volume3d as V
from . import _scene as S
from . import _transforms as T
from ._additive import AdditiveNoise
from ._convert import FromFloat, NoOp, ToRGB
from ._weather import RandomFog, RandomRain, RandomSunFlare
from ._grid_shuffle import RandomGridShuffle
from ._pixel_dropout import PixelDropout
from ._mask_dropout import MaskDropout
from ._stain import HEStain
from ._domain import FDA, HistogramMatching
from ._overlay import OverlayElements
from ._frames import edges_needed
from ._spatter import Spatter
from ._host import Lambda, SelectiveChannelTransform
from ._superpixels import Superpixels
from ._text import TextImage
from ._base import (BORDER_CODES, INTERPOLATION_CODES, OneOf, OneOrOther, RandomOrder, SomeOf,
                    Transform, interpolation_code, merge_setting, same_value)
from ._compose import Compose, pass_plan

__all__ = ["from_albumentations", "SUPPORTED"]

class _Args:
    """One albumentations transform's parameters, taken one by one; what is left at the end is
    refused by name."""

    def __init__(self, name: str, d: dict) -> None:
        self.name = name
        self.d = {k: v for k, v in d.items() if k not in ("__class_fullname__", "strict")}

    def take(self, key: str, default: Any = None) -> Any:
        return self.d.pop(key, default)

    def only(self, key: str, *allowed: Any, why: str = "") -> Any:
        """The parameter, refused unless it is one of ``allowed`` (absent: the first)."""
        value = self.d.pop(key, allowed[0])
        if not any(same_value(value, a) for a in allowed):
            want = " or ".join(repr(a) for a in allowed)
            raise ValueError(f"{self.name}({key}={value!r}) is not supported: warpkit takes "
                             f"{key}={want}{why}")
        return value

    def done(self) -> None:
        if self.d:
            raise ValueError(f"{self.name}: parameters warpkit does not know: "
                             f"{', '.join(sorted(self.d))}")


class _Pipeline:
    """The pipeline-wide settings gathered from the transforms (they must agree)."""

    def __init__(self, mask_code: int | None = None) -> None:
        self.settings: dict[str, tuple[Any, str]] = {}
        self.model: dict[str, Any] = {}
        self.mask_code = mask_code  # Compose(mask_interpolation=...): every transform's
        self.nonserializable: dict = {}  # saved Lambdas' functions, by name
        self.clash = False  # two transforms' resampling settings disagree

    def setting(self, key: str, value: Any, who: str) -> None:
        """Record a transform's setting; where two disagree the pipeline resamples in passes
        (``Compose(passes="as_needed")``: each transform's own settings hold in its pass)."""
        try:
            merge_setting(self.settings, key, value, who)
        except ValueError:
            self.clash = True

    def resampling(self, a: _Args, border: bool = True, interpolations: bool = True,
                   cls: type | None = None) -> None:
        """A geometric transform's interpolation, mask interpolation, border mode and fills
        (those it has: a resize has no border, a pad no interpolation), as warpkit's ``cls``
        reads them: whether it resizes with cv2.resize, where INTER_AREA is the area filter
        (else linear), and whether its ``area_for_downscale="image_mask"`` filters the masks
        by area on every sample (its ``mask_area_always``: albumentations' crops that
        resize)."""
        if interpolations:
            self._interpolations(a, cls)
        if border:
            mode = a.take("border_mode", 0)
            if mode not in BORDER_CODES:
                raise ValueError(f"{a.name}(border_mode={mode!r}) is not supported: warpkit "
                                 f"takes 0 (constant), 1 (replicate), 2 (reflect) or 4 "
                                 f"(reflect_101)")
            self.setting("padding", BORDER_CODES[mode], a.name)
            fill = a.take("fill", 0.0)
            fill_mask = a.take("fill_mask", 0.0)
            if mode == 0:
                self.setting("fill", fill, a.name)
                self.setting("mask_fill", fill_mask, a.name)

    def _interpolations(self, a: _Args, cls: type | None) -> None:
        resizes = getattr(cls, "resizes", False)
        code = a.take("interpolation", 1)
        if code not in INTERPOLATION_CODES:
            raise ValueError(f"{a.name}(interpolation={code!r}) is not supported: warpkit "
                             f"takes {_CODES_TAKEN}")
        self.setting("interpolation", interpolation_code(code, "interpolation", resizes), a.name)
        mcode = a.take("mask_interpolation", 0)
        if self.mask_code is not None:  # Compose's overrides each transform's
            mcode = self.mask_code
        if a.d.get("area_for_downscale") == "image_mask" and \
                getattr(cls, "mask_area_always", False):  # (albumentations' crops' masks)
            mcode = 3
        if mcode not in INTERPOLATION_CODES:
            raise ValueError(f"{a.name}(mask_interpolation={mcode!r}) is not supported: "
                             f"warpkit takes {_CODES_TAKEN}")
        self.setting("mask_interpolation",
                     interpolation_code(mcode, "mask_interpolation", resizes), a.name)


def _colour(cls: type, *keys: str, p: float = 0.5) -> Callable[[_Args, _Pipeline], Transform]:
    """A colour transform (or a 3-D one) whose parameters are albumentations' own; ``p`` its
    default probability."""
    def build(a: _Args, pipe: _Pipeline) -> Transform:
        return cls(**{k: a.take(k) for k in keys if k in a.d}, p=a.take("p", p))
    return build


def _crop3d(cls: type, position: str) -> Callable[[_Args, _Pipeline], Transform]:
    """A 3-D crop: its parameters, and the padding position its class fixes (albumentations'
    to_dict writes it)."""
    own = _colour(cls, "size", "pad_if_needed", "fill", "fill_mask", p=1.0)

    def build(a: _Args, pipe: _Pipeline) -> Transform:
        got = a.take("pad_position", position)
        if got != position:
            raise ValueError(f"{cls.__name__}(pad_position={got!r}) is not supported: its "
                             f"padding is {position!r}")
        return own(a, pipe)
    return build


def _equalize(a: _Args, pipe: _Pipeline) -> Transform:
    mask = a.d.pop("mask", None)
    params = a.take("mask_params", ())
    return P.Equalize(mask=mask, mask_params=params,
                      **{k: a.take(k) for k in ("mode", "by_channels") if k in a.d},
                      p=a.take("p", 0.5))


def _domain(cls: type, amount: str) -> Callable[[_Args, _Pipeline], Transform]:
    """The port of a domain adaptation that reads the call's reference images (``amount``: its
    parameter besides ``metadata_key``)."""
    def port(a: _Args, pipe: _Pipeline) -> Transform:
        a.only("reference_images", None, why=" (deprecated in albumentations: warpkit takes "
               "the reference images per call, as albumentations' metadata_key)")
        a.d.pop("read_fn", None)  # (it reads reference_images only)
        return _colour(cls, amount, "metadata_key")(a, pipe)
    return port


def _lambda(a: _Args, pipe: _Pipeline) -> Transform:
    """A Lambda: its functions read off the live transform (:func:`_serialisable`), or, from
    saved data (its ``__name__`` alone), the one ``nonserializable`` holds under that name."""
    name = a.take("__name__", a.take("name"))
    fns = {k: a.take(k) for k in ("image", "mask", "keypoints", "bboxes")}
    p = a.take("p", 1.0)
    if all(f is None for f in fns.values()):  # (saved: by its name)
        held = pipe.nonserializable.get(name)
        if held is None:
            raise ValueError(f"albumentations' Lambda {name!r} is saved without its functions: "
                             f"pass nonserializable={{{name!r}: the Lambda}} (albumentations' "
                             f"or warpkit's), as A.load takes it")
        if isinstance(held, Lambda):
            return held
        fns = _lambda_functions(held)
        p = getattr(held, "p", p)
    return Lambda(**fns, name=name, p=p)


def _lambda_functions(t: Any) -> dict:
    """An albumentations Lambda's functions by target (its no-op defaults left out)."""
    got = getattr(t, "custom_apply_fns", None)
    if not isinstance(got, dict):
        raise TypeError(f"nonserializable must hold Lambda transforms (albumentations' or "
                        f"warpkit's), got {type(t).__name__}")
    return {k: f for k, f in got.items() if getattr(f, "__name__", "") != "noop"}


def _rgb_shift(a: _Args, pipe: _Pipeline) -> Transform:
    # albumentations 2 makes RGBShift an additive noise, constant over the image, uniform
    a.only("noise_type", "uniform")
    a.only("spatial_mode", "constant", why=" (one shift per channel)")
    a.take("noise_params")  # made from the limits
    a.take("approximation")  # no effect on a constant shift
    return _colour(C.RGBShift, "r_shift_limit", "g_shift_limit", "b_shift_limit")(a, pipe)


def _flip(cls: type) -> Callable[[_Args, _Pipeline], Transform]:
    return lambda a, pipe: cls(p=a.take("p", 0.5))


def _spec_mask(cls: type, param: str) -> Callable[[_Args, _Pipeline], Transform]:
    """TimeMasking or FrequencyMasking: its one parameter; the XYMasking settings
    albumentations' dict carries beside it must be those it implies (a changed one is
    refused)."""
    def build(a: _Args, pipe: _Pipeline) -> Transform:
        t = cls(**({param: a.take(param)} if param in a.d else {}), p=a.take("p", 0.5))
        for key in ("num_masks_x", "num_masks_y", "mask_x_length", "mask_y_length", "fill",
                    "fill_mask"):
            a.only(key, getattr(t, key), why=f" (as {type(t).__name__} sets it)")
        return t
    return build


def _rotate90(a: _Args, pipe: _Pipeline) -> Transform:
    return T.RandomRotate90(p=a.take("p", 0.5))


def normalize_settings(mean: Any, std: Any, max_pixel_value: Any, normalization: str,
                       p: float) -> dict[str, Any]:
    """Normalize's model input (a pipeline's settings): float32, ``(v / max_pixel_value -
    mean) / std`` for every dtype, as albumentations computes it (255 by default: a float
    image's values too are divided by it there); a mean or std of more values than the image's
    channels gives the first ones (the engine's rule, albumentations' for a gray image)."""
    if not same_value(p, 1.0):
        raise ValueError("Normalize(p < 1) is not supported: the model's input is made for "
                         "every sample")
    mpv = check_max_pixel_value(max_pixel_value, "Normalize's max_pixel_value")
    if normalization != "standard":  # (each image's statistics: no mean, std, peak)
        return {"output_dtype": "float32", "normalization": normalization}
    # (a number, as albumentations takes it too, serves every channel)
    return {"output_dtype": "float32", "mean": np.ravel(mean).tolist(),
            "std": np.ravel(std).tolist(), "max_pixel_value": mpv}


def to_float_settings(max_value: Any, p: float) -> dict[str, Any]:
    """ToFloat's model input: integer images divided by ``max_value`` (None: their type's
    peak, 255 for uint8, 65535 for uint16), float images as they are (albumentations leaves
    them so, whatever ``max_value``): float32 with mean 0 and std 1, the integer dtypes'
    ``max_pixel_value``."""
    mpv = check_max_pixel_value(max_value, "ToFloat's max_value")
    if not same_value(p, 1.0):
        raise ValueError("ToFloat(p < 1) is not supported: the model's input is made for "
                         "every sample")
    return {"output_dtype": "float32", "mean": [0.0], "std": [1.0], "max_pixel_value": None
            if mpv is None else {"uint8": mpv, "uint16": mpv, "int32": mpv}}


def to_tensor_settings(p: float, transpose_mask: bool) -> dict[str, Any]:
    """ToTensorV2's: torch tensors out (``tensors=True``), channels first (``layout="CHW"``,
    which a pipeline without a float model input drops: a view of the result as ToTensorV2
    takes it); nothing where ``p`` is 0 (never applied)."""
    if same_value(p, 0):
        return {}  # never applied: numpy arrays, as they are
    if not same_value(p, 1):
        raise ValueError(f"ToTensorV2(p={p!r}) is not supported: the tensors are the "
                         f"pipeline's output for every sample (p=1)")
    return {"tensors": True, "layout": "CHW", **({"mask_layout": "CHW"} if transpose_mask
                                                  else {})}  # ((H, W, C) masks as (C, H, W))


def _normalize(a: _Args, pipe: _Pipeline) -> None:
    mean, std = a.take("mean", (0.485, 0.456, 0.406)), a.take("std", (0.229, 0.224, 0.225))
    pipe.model.update(normalize_settings(mean, std, a.take("max_pixel_value", 255.0),
                                         a.take("normalization", "standard"),
                                         a.take("p", 1.0)))


def _to_float(a: _Args, pipe: _Pipeline) -> None:
    pipe.model.update(to_float_settings(a.take("max_value", None), a.take("p", 1.0)))


def _to_tensor(a: _Args, pipe: _Pipeline) -> None:
    pipe.model.update(to_tensor_settings(a.take("p", 1.0), a.take("transpose_mask", False)))


#: albumentations' name -> how to make warpkit's transform (None: a pipeline setting)
_INTERPOLATION_KEYS = ("interpolation", "mask_interpolation")
#: the interpolation codes warpkit takes, as its refusals list them
_CODES_TAKEN = ("0 (nearest), 1 (linear), 2 (cubic) or 3 (area: the area filter in the "
                "resizes, linear in the warps, as OpenCV applies it)")
_BORDER_KEYS = ("border_mode", "fill", "fill_mask")


def _resampled(cls: type, *keys: str, p: float = 0.5, internal: tuple = (),
               border: bool = True, interpolations: bool = True
               ) -> Callable[[_Args, _Pipeline], Transform]:
    """An albumentations-named geometric transform: its own parameters ``keys``, and the
    resampling it sets (``border``: a border mode and fills; ``interpolations``: the image's
    and the masks'), which the pipeline takes (checked there against the others'); the
    ``internal`` keys albumentations' to_dict writes from its base class are dropped."""
    def build(a: _Args, pipe: _Pipeline) -> Transform:
        wanted = (_INTERPOLATION_KEYS if interpolations else ()) + (_BORDER_KEYS if border else ())
        given = {k: a.d[k] for k in wanted if k in a.d}
        if pipe.mask_code is not None and interpolations:
            given["mask_interpolation"] = pipe.mask_code
        pipe.resampling(a, border, interpolations, cls)
        for k in internal:
            a.take(k)
        return cls(**{k: a.take(k) for k in keys if k in a.d}, **given, p=a.take("p", p))
    build.fills = ("fill",) if border else ()  # type: ignore[attr-defined]
    return build


#: albumentations' crops' padding arguments, for pad_if_needed alone (the crops take them)
_CROP_PADDING = ("pad_if_needed", "pad_position", *_BORDER_KEYS)


SUPPORTED: dict[str, Callable[[_Args, _Pipeline], Transform | None]] = {
    "Affine": _resampled(G.Affine, "scale", "translate_percent", "translate_px", "rotate",
                         "shear", "fit_output", "keep_ratio", "rotate_method",
                         "balanced_scale"),
    "ShiftScaleRotate": _resampled(G.ShiftScaleRotate, "shift_limit_x", "shift_limit_y",
                                   "scale_limit", "rotate_limit", "rotate_method"),
    "Rotate": _resampled(G.Rotate, "limit", "crop_border", "rotate_method"),
    "SafeRotate": _resampled(G.SafeRotate, "limit", "rotate_method", internal=(
        "balanced_scale", "fit_output", "keep_ratio", "rotate", "scale", "shear",
        "translate_percent", "translate_px")),
    "LongestMaxSize": _resampled(G.LongestMaxSize, "max_size", "max_size_hw",
                                 "area_for_downscale", p=1.0, border=False),
    "SmallestMaxSize": _resampled(G.SmallestMaxSize, "max_size", "max_size_hw",
                                  "area_for_downscale", p=1.0, border=False),
    "RandomScale": _resampled(G.RandomScale, "scale_limit", "area_for_downscale", border=False),
    "CropAndPad": _resampled(G.CropAndPad, "px", "percent", "keep_size",
                             "sample_independently", p=1.0),
    "PadIfNeeded": _resampled(G.PadIfNeeded, "min_height", "min_width", "pad_height_divisor",
                              "pad_width_divisor", "position", p=1.0, interpolations=False,
                              internal=("padding",)),
    "BBoxSafeRandomCrop": _resampled(O.BBoxSafeRandomCrop, "erosion_rate", p=1.0,
                                     border=False, interpolations=False),
    "RandomSizedBBoxSafeCrop": _resampled(O.RandomSizedBBoxSafeCrop, "height", "width",
                                          "erosion_rate", p=1.0, border=False),
    "AtLeastOneBBoxRandomCrop": _resampled(O.AtLeastOneBBoxRandomCrop, "height", "width",
                                           "erosion_factor", p=1.0, border=False,
                                           interpolations=False),
    "RandomCropNearBBox": _resampled(O.RandomCropNearBBox, "max_part_shift", "cropping_bbox_key",
                                     p=1.0, border=False, interpolations=False),
    "CropNonEmptyMaskIfExists": _resampled(O.CropNonEmptyMaskIfExists, "height", "width",
                                           "ignore_values", "ignore_channels", p=1.0,
                                           border=False, interpolations=False),
    "Mosaic": _resampled(M.Mosaic, "grid_yx", "target_size", "cell_shape", "center_range",
                         "fit_mode", "metadata_key"),
    "Perspective": _resampled(G.Perspective, "scale", "keep_size", "fit_output"),
    "Transpose": lambda a, pipe: G.Transpose(p=a.take("p", 0.5)),
    "Pad3D": _colour(V.Pad3D, "padding", "fill", "fill_mask", p=1.0),
    "PadIfNeeded3D": _colour(V.PadIfNeeded3D, "min_zyx", "pad_divisor_zyx", "position", "fill",
                             "fill_mask", p=1.0),
    "CenterCrop3D": _crop3d(V.CenterCrop3D, "center"),
    "RandomCrop3D": _crop3d(V.RandomCrop3D, "random"),
    "CoarseDropout3D": _colour(V.CoarseDropout3D, "num_holes_range", "hole_depth_range",
                               "hole_height_range", "hole_width_range", "fill", "fill_mask"),
    "CubicSymmetry": _colour(V.CubicSymmetry, p=1.0),
    "ToTensor3D": _colour(V.ToTensor3D, p=1.0),
    "D4": lambda a, pipe: G.D4(p=a.take("p", 1.0)),
    "SquareSymmetry": lambda a, pipe: G.SquareSymmetry(p=a.take("p", 1.0)),
    "ColorJitter": _colour(C.ColorJitter, "brightness", "contrast", "saturation", "hue"),
    "HueSaturationValue": _colour(C.HueSaturationValue, "hue_shift_limit", "sat_shift_limit",
                                  "val_shift_limit"),
    "RandomBrightnessContrast": _colour(C.RandomBrightnessContrast, "brightness_limit",
                                        "contrast_limit", "brightness_by_max",
                                        "ensure_safe_range"),
    "RandomGamma": _colour(C.RandomGamma, "gamma_limit"),
    "ToGray": _colour(C.ToGray, "num_output_channels", "method"),
    "RGBShift": _rgb_shift,
    "ChannelShuffle": _colour(C.ChannelShuffle),
    "CLAHE": _colour(C.CLAHE, "clip_limit", "tile_grid_size"),
    "Downscale": _colour(C.Downscale, "scale_range", "interpolation_pair"),
    "InvertImg": _colour(C.InvertImg),
    "Solarize": _colour(C.Solarize, "threshold_range"),
    "Posterize": _colour(C.Posterize, "num_bits"),
    "ToSepia": _colour(P.ToSepia),
    "Equalize": _equalize,
    "Lambda": _lambda,
    "Superpixels": _colour(Superpixels, "p_replace", "n_segments", "max_size", "interpolation"),
    "TextImage": _colour(TextImage, "font_path", "stopwords", "augmentations", "fraction_range",
                         "font_size_fraction_range", "font_color", "clear_bg", "metadata_key"),
    "HistogramMatching": _domain(HistogramMatching, "blend_ratio"),
    "FDA": _domain(FDA, "beta_limit"),
    "OverlayElements": _colour(OverlayElements, "metadata_key"),
    "Spatter": _colour(Spatter, "mean", "std", "gauss_sigma", "cutout_threshold", "intensity",
                       "mode", "color"),
    "AutoContrast": _colour(P.AutoContrast, "cutoff", "ignore", "method"),
    "FancyPCA": _colour(P.FancyPCA, "alpha"),
    "AdditiveNoise": _colour(AdditiveNoise, "noise_type", "spatial_mode", "noise_params",
                             "approximation"),
    "ISONoise": _colour(P.ISONoise, "color_shift", "intensity"),
    "RandomSnow": _colour(P.RandomSnow, "brightness_coeff", "snow_point_range", "method"),
    "Illumination": _colour(S.Illumination, "mode", "intensity_range", "effect_type",
                            "angle_range", "center_range", "sigma_range"),
    "RandomGravel": _colour(S.RandomGravel, "gravel_roi", "number_of_patches"),
    "PlasmaBrightnessContrast": _colour(PL.PlasmaBrightnessContrast, "brightness_range",
                                        "contrast_range", "plasma_size", "roughness"),
    "PlasmaShadow": _colour(PL.PlasmaShadow, "shadow_intensity_range", "plasma_size",
                            "roughness"),
    "Morphological": _colour(MO.Morphological, "scale", "operation"),
    "RandomFog": _colour(RandomFog, "alpha_coef", "fog_coef_range"),
    "RandomRain": _colour(RandomRain, "slant_range", "drop_length", "drop_width", "drop_color",
                          "blur_value", "brightness_coefficient", "rain_type"),
    "RandomSunFlare": _colour(RandomSunFlare, "flare_roi", "src_radius", "src_color",
                              "angle_range", "num_flare_circles_range", "method"),
    "RandomShadow": _colour(S.RandomShadow, "shadow_roi", "num_shadows_limit",
                            "shadow_dimension", "shadow_intensity_range"),
    "ChromaticAberration": _colour(P.ChromaticAberration, "primary_distortion_limit",
                                   "secondary_distortion_limit", "mode", "interpolation"),
    "SaltAndPepper": _colour(P.SaltAndPepper, "amount", "salt_vs_pepper"),
    "ShotNoise": _colour(P.ShotNoise, "scale_range"),
    "PixelDropout": _colour(PixelDropout, "dropout_prob", "per_channel", "drop_value",
                            "mask_drop_value"),
    "PlanckianJitter": _colour(P.PlanckianJitter, "mode", "temperature_limit",
                               "sampling_method"),
    "RandomToneCurve": _colour(P.RandomToneCurve, "scale", "per_channel"),
    "MultiplicativeNoise": _colour(P.MultiplicativeNoise, "multiplier", "per_channel",
                                   "elementwise"),
    "ChannelDropout": _colour(P.ChannelDropout, "channel_drop_range", "fill"),
    "ImageCompression": _colour(P.ImageCompression, "compression_type", "quality_range"),
    "GaussNoise": _colour(C.GaussNoise, "std_range", "mean_range", "per_channel",
                          "noise_scale_factor"),
    "Blur": _colour(C.Blur, "blur_limit"),
    "MedianBlur": _colour(C.MedianBlur, "blur_limit"),
    "Sharpen": _colour(C.Sharpen, "alpha", "lightness", "method", "kernel_size", "sigma"),
    "Emboss": _colour(C.Emboss, "alpha", "strength"),
    "GaussianBlur": _colour(C.GaussianBlur, "blur_limit", "sigma_limit"),
    "AdvancedBlur": _colour(F.AdvancedBlur, "blur_limit", "sigma_x_limit", "sigma_y_limit",
                            "rotate_limit", "beta_limit", "noise_limit"),
    "Defocus": _colour(F.Defocus, "radius", "alias_blur"),
    "GlassBlur": _colour(F.GlassBlur, "sigma", "max_delta", "iterations", "mode"),
    "RingingOvershoot": _colour(F.RingingOvershoot, "blur_limit", "cutoff"),
    "UnsharpMask": _colour(F.UnsharpMask, "blur_limit", "sigma_limit", "alpha", "threshold"),
    "ZoomBlur": _colour(F.ZoomBlur, "max_factor", "step_factor"),
    "MotionBlur": _colour(C.MotionBlur, "blur_limit", "allow_shifted", "angle_range",
                          "direction_range"),
    "CoarseDropout": _colour(D.CoarseDropout, "num_holes_range", "hole_height_range",
                             "hole_width_range", "fill", "fill_mask"),
    "Erasing": _colour(D.Erasing, "scale", "ratio", "fill", "fill_mask"),
    "ConstrainedCoarseDropout": _colour(D.ConstrainedCoarseDropout, "num_holes_range",
                                        "hole_height_range", "hole_width_range", "fill",
                                        "fill_mask", "mask_indices", "bbox_labels"),
    "MaskDropout": _colour(MaskDropout, "max_objects", "fill", "fill_mask"),
    "HEStain": _colour(HEStain, "method", "preset", "intensity_scale_range",
                       "intensity_shift_range", "augment_background"),
    "XYMasking": _colour(D.XYMasking, "num_masks_x", "num_masks_y", "mask_x_length",
                         "mask_y_length", "fill", "fill_mask"),
    "GridDropout": _colour(D.GridDropout, "ratio", "random_offset", "unit_size_range",
                           "holes_number_xy", "shift_xy", "fill", "fill_mask"),
    "HorizontalFlip": _flip(G.HorizontalFlip),
    "TimeReverse": _flip(G.TimeReverse),
    "RandomGridShuffle": lambda a, pipe: RandomGridShuffle(a.take("grid", (3, 3)),
                                                           p=a.take("p", 0.5)),
    "TimeMasking": _spec_mask(D.TimeMasking, "time_mask_param"),
    "FrequencyMasking": _spec_mask(D.FrequencyMasking, "freq_mask_param"),
    "VerticalFlip": _flip(G.VerticalFlip),
    "RandomRotate90": _rotate90,
    "RandomResizedCrop": _resampled(T.RandomResizedCrop, "size", "scale", "ratio",
                                    "area_for_downscale", p=1.0, border=False),
    "RandomSizedCrop": _resampled(T.RandomSizedCrop, "min_max_height", "size", "w2h_ratio",
                                  "area_for_downscale", p=1.0, border=False),
    "Resize": _resampled(T.Resize, "height", "width", "area_for_downscale", p=1.0, border=False),
    # (their border_mode, fill and fill_mask serve only pad_if_needed)
    "CenterCrop": _resampled(T.CenterCrop, "height", "width", *_CROP_PADDING, p=1.0,
                             border=False, interpolations=False),
    "RandomCrop": _resampled(T.RandomCrop, "height", "width", *_CROP_PADDING, p=1.0,
                             border=False, interpolations=False),
    "Pad": _resampled(T.Pad, "padding", p=1.0, interpolations=False),
    "Crop": _resampled(T.Crop, "x_min", "y_min", "x_max", "y_max", *_CROP_PADDING, p=1.0,
                       border=False, interpolations=False),
    "RandomCropFromBorders": lambda a, pipe: T.RandomCropFromBorders(
        **{k: a.take(k) for k in ("crop_left", "crop_right", "crop_top", "crop_bottom")
           if k in a.d}, p=a.take("p", 1.0)),
    "ElasticTransform": _resampled(N.ElasticTransform, "alpha", "sigma", "approximate",
                                   "same_dxdy", "noise_distribution",
                                   "keypoint_remapping_method"),
    "GridDistortion": _resampled(N.GridDistortion, "num_steps", "distort_limit", "normalized",
                                 "keypoint_remapping_method"),
    "GridElasticDeform": _resampled(N.GridElasticDeform, "num_grid_xy", "magnitude", p=1.0,
                                    border=False),
    "OpticalDistortion": _resampled(N.OpticalDistortion, "distort_limit", "mode",
                                    "keypoint_remapping_method"),
    "ThinPlateSpline": _resampled(N.ThinPlateSpline, "scale_range", "num_control_points",
                                  "keypoint_remapping_method"),
    "PiecewiseAffine": _resampled(N.PiecewiseAffine, "scale", "nb_rows", "nb_cols",
                                  "absolute_scale", "keypoint_remapping_method"),
    "Normalize": _normalize,
    "ToFloat": _to_float,
    "ToTensorV2": _to_tensor,
    "NoOp": lambda a, pipe: NoOp(p=a.take("p", 0.5)),
    "ToRGB": lambda a, pipe: ToRGB(num_output_channels=a.take("num_output_channels", 3),
                                   p=a.take("p", 1.0)),
    "FromFloat": lambda a, pipe: FromFloat(dtype=a.take("dtype", "uint8"),
                                           max_value=a.take("max_value", None),
                                           p=a.take("p", 1.0)),
}


def from_albumentations(pipeline: Any, nonserializable: dict | None = None) -> Compose:
    """A warpkit :class:`Compose` from an albumentations 2.0.8 pipeline: an ``A.Compose``, the
    dict of ``A.to_dict`` (or its ``"transform"``), or the path of a file ``A.save`` wrote
    (JSON, or YAML where its name ends ``.yaml`` or ``.yml``: ``data_format="yaml"``, read
    with PyYAML's ``safe_load``). Refuses, by name, transforms and parameters warpkit cannot
    honour; a transform warpkit does not have is left out only where its ``p`` is 0 (never
    applied, as in
    Ultralytics' recipe: the same result without it). A ``Lambda`` keeps its functions from a
    live pipeline; saved, albumentations writes its name alone, and ``nonserializable`` (name
    -> albumentations' or warpkit's Lambda, as ``A.load`` takes it) gives them back.

    Example:
        >>> spec = {"transform": {"__class_fullname__": "Compose", "transforms": [
        ...     {"__class_fullname__": "HorizontalFlip", "p": 0.5},
        ...     {"__class_fullname__": "ColorJitter", "brightness": [0.6, 1.4], "p": 0.8}]}}
        >>> aug = from_albumentations(spec)
        >>> [type(t).__name__ for t in aug.transforms], aug.transforms[1].brightness
        (['HorizontalFlip', 'ColorJitter'], (0.6, 1.4))
    """
    d = _as_dict(pipeline)
    d = d.get("transform", d)
    name = str(d.get("__class_fullname__", type(pipeline).__name__)).rsplit(".", 1)[-1]
    if name not in ("Compose", "ReplayCompose"):
        raise ValueError(f"from_albumentations takes a Compose (or a ReplayCompose), got "
                         f"{name!r}")
    strict = d.get("strict", False)  # (_Args drops the transforms' own strict)
    a = _Args(name, d)
    save_key = a.take("save_key", "replay")  # (ReplayCompose's: the record's key)
    mask_code = a.take("mask_interpolation")
    if mask_code is not None and mask_code not in INTERPOLATION_CODES:
        raise ValueError(f"Compose(mask_interpolation={mask_code!r}) is not supported: warpkit "
                         f"takes {_CODES_TAKEN}")
    pipe = _Pipeline(mask_code)
    pipe.nonserializable = dict(nonserializable or {})
    if mask_code is not None:
        pipe.setting("mask_interpolation", INTERPOLATION_CODES[mask_code], "Compose")
    transforms = _transforms(a.take("transforms", []), pipe, top=True)
    kw: dict[str, Any] = {"p": a.take("p", 1.0)}
    for key in ("bbox_params", "keypoint_params"):
        value = a.take(key)
        if value:
            kw[key] = value  # checked by BboxParams / KeypointParams, by name
            kw["target_types"] = "albumentations"  # (lists for lists, float32 keypoints)
            if key == "bbox_params":
                kw["box_border"] = "clip"  # (its boxes cut by the border: clipped, as there)
    targets = a.take("additional_targets") or {}
    if targets:
        kw["additional_targets"] = targets
    kw["strict"] = bool(strict)
    kw["seed"] = a.take("seed")
    kw["save_applied_params"] = bool(a.take("save_applied_params", False))
    for k in ("is_check_shapes", "return_params"):  # checks, reports
        a.take(k)
    a.done()
    kw.update(pipe.model)
    if kw.get("output_dtype") is None:  # ToTensorV2 of the image's own type: a view
        kw.pop("layout", None)
    kw["edges"] = edges_needed(transforms)  # (each step's frame, where it matters)
    if name == "ReplayCompose":  # (its record under save_key, for ReplayCompose.replay)
        from ._sequences import ReplayCompose

        kind, kw = ReplayCompose, {**kw, "save_key": save_key}
    else:
        kind = Compose
    if _passes_needed(transforms, pipe, kw["edges"]) == "as_needed":
        return kind(transforms, **kw, passes="as_needed", **(
            {} if mask_code is None else {"mask_interpolation": INTERPOLATION_CODES[mask_code]}))
    return kind(transforms, **kw, **{k: v for k, (v, _) in pipe.settings.items()})


def _passes_needed(transforms: list, pipe: _Pipeline, edges: str = "output") -> str:
    """``"as_needed"`` where albumentations' order needs passes (its settings change, geometry
    follows a blur, noise, ..., a reflecting step follows a crop or a turn: each step holds its
    own settings and sees the image as the steps before it left it), else ``"one"``."""
    if pipe.clash:
        return "as_needed"
    given = {} if pipe.mask_code is None else \
        {"mask_interpolation": INTERPOLATION_CODES[pipe.mask_code]}
    starts, _ = pass_plan(transforms, given, overrides=("mask_interpolation",), edges=edges)
    return "as_needed" if starts else "one"


def _selective_channels(a: _Args, pipe: _Pipeline) -> Transform:
    """SelectiveChannelTransform: its transforms a pipeline of their own (their settings
    theirs, in the passes albumentations' order needs), run on the channels alone."""
    own = _Pipeline(pipe.mask_code)
    own.nonserializable = pipe.nonserializable
    inner = _transforms(a.take("transforms", []), own, top=False)
    edges = edges_needed(inner)
    return SelectiveChannelTransform(inner, channels=a.take("channels", (0, 1, 2)),
                                     p=a.take("p", 1.0), passes=_passes_needed(inner, own, edges),
                                     edges=edges)


#: the transforms a port takes after Normalize (or ToFloat), and their fills: geometry (it
#: moves pixels, and its interpolations commute with the model's per-channel (v - mean) / std)
#: and the dropouts that fill holes with a number; albumentations reads their fills in the
#: model's units
_AFTER_MODEL = {"Transpose": (), "D4": (), "SquareSymmetry": (), "HorizontalFlip": (),
                "VerticalFlip": (), "TimeReverse": (), "RandomRotate90": (),
                "RandomGridShuffle": (), "RandomCropFromBorders": (),
                "CoarseDropout": ("fill",), "Erasing": ("fill",), "GridDropout": ("fill",),
                "XYMasking": ("fill",), "ConstrainedCoarseDropout": ("fill",),
                "PixelDropout": ("drop_value",)}


def _after_model(a: _Args, name: str, model_at: str, model: dict) -> None:
    """A transform after Normalize (or ToFloat) in a port: :func:`after_model_fills` of its
    data."""
    a.d.update(after_model_fills(name, a.d, model_at, model))


def after_model_fills(name: str, data: dict, model_at: str, model: dict) -> dict[str, Any]:
    """A transform after Normalize (or ToFloat), as albumentations applies it to the model's
    float image: geometry and the dropouts of :data:`_AFTER_MODEL` (and the geometric ports
    of :func:`_resampled`, but Mosaic, whose other images come raw), their fills (``data``'s,
    given in the model's units, 0 where absent) as uint8 levels (``(fill * std + mean) *
    255``, which the store makes the fill again); others refused by name. ``model``: the
    model-input settings (``mean``, ``std``, ``max_pixel_value``, ``normalization``)."""
    how = model.get("normalization", "standard")
    if how != "standard":
        raise ValueError(f"{name} after Normalize(normalization={how!r}) is not supported: "
                         f"albumentations takes the image's statistics before {name}, warpkit "
                         f"on the output; put {name} before Normalize")
    fills = _AFTER_MODEL.get(_FLIP_NAMES.get(name, name),
                             getattr(SUPPORTED.get(name), "fills", None))
    if fills is None or name == "Mosaic":
        raise ValueError(f"{name} after {model_at} is not supported: warpkit makes the "
                         f"model's input last, in the same store (geometry and the dropouts "
                         f"that fill with a number may follow it: "
                         f"{', '.join(sorted(k for k in _AFTER_MODEL if _AFTER_MODEL[k]))} "
                         f"and the geometric transforms)")
    mean = np.asarray(model["mean"], np.float64)
    std = np.asarray(model["std"], np.float64)
    # (uint8 images' peak, the number ToFloat or Normalize divides them by)
    peak = peak_of(model.get("max_pixel_value"), np.dtype(np.uint8))
    out: dict[str, Any] = {}
    for key in fills:
        value = data.get(key, 0.0)
        if isinstance(value, str) or value is None or np.ndim(value) > 1 or (
                np.ndim(value) == 1 and len(value) not in {1, len(mean)}):
            raise ValueError(f"{name}({key}={value!r}) after {model_at} is not supported: "
                             f"warpkit takes a number (or one a channel) there, read in the "
                             f"model's units; put {name} before {model_at}")
        levels = (np.asarray(value, np.float64) * std + mean) * peak
        if levels.min() < 0 or levels.max() > peak:
            raise ValueError(f"{name}({key}={value!r}) after {model_at} is "
                             f"{np.round(levels, 2).tolist()} in the image's values, outside "
                             f"0-{peak:g} (max_pixel_value): the model's input is made from "
                             f"values in the image's range")
        out[key] = float(levels.ravel()[0]) if levels.size == 1 else \
            tuple(float(v) for v in levels.ravel())
    return out


#: torchvision's names of the flips (warpkit's classes) for :func:`after_model_fills`
_FLIP_NAMES = {"RandomHorizontalFlip": "HorizontalFlip", "RandomVerticalFlip": "VerticalFlip"}


def _nested_compose(a: _Args, pipe: _Pipeline, model_at: str | None) -> Compose:
    """A Compose (or ReplayCompose) inside the pipeline, as albumentations 2.0.8 runs one: its
    transforms in order, all of them with its ``p``, the outer pipeline's box and keypoint
    settings in place of its own (albumentations gives its transforms the outer processors);
    ``model_at``: the model step before it (:func:`_transforms`)."""
    inner = _transforms(a.take("transforms", []), pipe, top=False, model_at=model_at)
    for key in ("bbox_params", "keypoint_params", "is_check_shapes", "save_key",
                "save_applied_params", "return_params"):  # (the outer pipeline's hold)
        a.take(key)
    for key, none in (("additional_targets", {}), ("mask_interpolation", None), ("seed", None)):
        value = a.take(key)
        if value not in (None, none):
            raise ValueError(f"{a.name}({key}={value!r}) inside a pipeline is not supported: "
                             f"give it to the outer Compose")
    return Compose(inner, p=a.take("p", 1.0))


def _unserialisable(t: Any, A: Any) -> str:
    """The class name of the first transform of an albumentations pipeline (at any depth) that
    albumentations cannot serialise."""
    for c in getattr(t, "transforms", None) or ():
        if isinstance(c, _Stand):  # (ported, read off the live transform)
            continue
        try:
            A.to_dict(c)
        except NotImplementedError:
            return _unserialisable(c, A)
    return type(t).__name__


#: albumentations' transforms not ported for a reason of their own: refused with why
_NOT_PORTED = {
    "PixelDistributionAdaptation": " (albumentations 2.0.8 blends its result, on [0, 1], into "
                                   "the image on 0-255: a uint8 output is the image times "
                                   "1 - blend_ratio whatever the reference, a float32 one mostly "
                                   "1; neither its results nor its intent would be a port)",
}


#: albumentations' transforms that its to_dict refuses (they read metadata) and warpkit ports:
#: the parameters a port reads off the live transform
_READ_LIVE = {"HistogramMatching": ("blend_ratio", "metadata_key", "p"),
              "FDA": ("beta_limit", "metadata_key", "p")}


class _Stand(dict):
    """A transform albumentations cannot serialise, standing in its pipeline's to_dict as the
    dict of its parameters (:data:`_READ_LIVE`)."""

    def to_dict_private(self) -> dict:
        return dict(self)


def _serialisable(t: Any, A: Any) -> Any:
    """``t`` (an albumentations pipeline or transform) with each transform of :data:`_READ_LIVE`
    at any depth replaced by the dict of its parameters (copies of the pipelines that hold one;
    ``t`` itself untouched)."""
    name = type(t).__name__
    if name == "Lambda":  # (its functions: albumentations writes its name alone)
        return _Stand({"__class_fullname__": name, "__name__": t.name, "p": t.p,
                       **_lambda_functions(t)})
    if name in _READ_LIVE:
        refs = getattr(t, "reference_images", None)  # (deprecated there: refused by name)
        return _Stand({"__class_fullname__": name,
                       **{k: getattr(t, k) for k in _READ_LIVE[name]},
                       **({"reference_images": "(given)"} if refs is not None else {})})
    inner = getattr(t, "transforms", None)
    if name == "SelectiveChannelTransform":  # (albumentations 2.0.8 writes no channels)
        return _Stand({"__class_fullname__": name, "p": t.p, "channels": list(t.channels),
                       "transforms": [_serialisable(c, A).to_dict_private() for c in inner]})
    if not inner:
        return t
    swapped = [_serialisable(c, A) for c in inner]
    if all(a is b for a, b in zip(swapped, inner)):
        return t
    c = copy.copy(t)
    c.transforms = swapped
    return c


def is_albumentations_data(data: Any) -> bool:
    """Whether ``data`` is what albumentations' ``A.to_dict`` / ``A.save`` write (a dict with
    its ``__version__``, or a ``__class_fullname__`` at the top or under ``"transform"``),
    rather than warpkit's own pipeline data (``"type"`` keys)."""
    if not isinstance(data, dict):
        return False
    top = data.get("transform", data)
    return "__version__" in data or (isinstance(top, dict) and "__class_fullname__" in top)


def _as_dict(pipeline: Any) -> dict:
    if isinstance(pipeline, dict):
        return pipeline
    if isinstance(pipeline, (str, os.PathLike)):
        from ..fileio import parse_data_file

        with open(pipeline, encoding="utf-8") as f:
            text = f.read()
        try:
            data = parse_data_file(text, pipeline)
        except ValueError as e:
            raise ValueError(f"{pipeline}: not an albumentations pipeline file: {e}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{pipeline}: not an albumentations pipeline file: it holds a "
                             f"{type(data).__name__}, where A.save writes a mapping")
        return data
    if type(pipeline).__module__.startswith("albumentations"):
        import albumentations as A
        try:
            d = A.to_dict(_serialisable(pipeline, A))
        except NotImplementedError as e:  # (its domain adaptations, which read metadata)
            name = _unserialisable(_serialisable(pipeline, A), A)
            raise ValueError(f"albumentations' {name} has no warpkit equivalent yet"
                             f"{_NOT_PORTED.get(name, '')} (nor a serialised form in albumentations: {str(e).rstrip('.')}); "
                             f"supported: {_supported()}") from None
        # albumentations 2.0.8's to_dict leaves BboxParams' filter_invalid_bboxes out: read it
        # off the live pipeline
        bp = d.get("transform", {}).get("bbox_params")
        proc = getattr(pipeline, "processors", {}).get("bboxes")
        if isinstance(bp, dict) and proc is not None:
            bp.setdefault("filter_invalid_bboxes",
                          bool(getattr(proc.params, "filter_invalid_bboxes", False)))
        # and Compose's strict, mask_interpolation, seed and save_applied_params too
        for key in ("strict", "mask_interpolation", "seed", "save_applied_params"):
            if getattr(pipeline, key, None) is not None:
                d.get("transform", {}).setdefault(key, getattr(pipeline, key))
        return d
    raise TypeError(f"from_albumentations takes an albumentations Compose, its to_dict() or the "
                    f"path of a file A.save wrote, got {type(pipeline).__name__}")


def _supported() -> str:
    """The albumentations names a port takes, as its refusals list them."""
    return ", ".join(sorted([*SUPPORTED, "Compose", "OneOf", "OneOrOther", "RandomOrder",
                             "ReplayCompose", "SelectiveChannelTransform", "Sequential",
                             "SomeOf"]))


def _transforms(items: list, pipe: _Pipeline, top: bool, slots: bool = False,
                model_at: str | None = None) -> list[Transform]:
    """The warpkit transforms of albumentations' ``items``; ``slots``: each item keeps its
    place (a SomeOf chooses among them uniformly: one never applied stays, as a NoOp(p=0));
    ``model_at``: the name of the model step (Normalize, ToFloat) an enclosing list had before
    these items, whose transforms then see the model's float image (:func:`_after_model`)."""
    out: list[Transform] = []
    for item in items:
        name = item.get("__class_fullname__", "?").rsplit(".", 1)[-1]
        a = _Args(name, item)
        if name == "OneOf":
            inner = _transforms(a.take("transforms", []), pipe, top=False, model_at=model_at)
            t = OneOf(inner, p=a.take("p", 0.5))
        elif name in ("SomeOf", "RandomOrder"):  # n chosen uniformly, each with its own p
            inner = _transforms(a.take("transforms", []), pipe, top=False, slots=True,
                                model_at=model_at)
            t = (SomeOf if name == "SomeOf" else RandomOrder)(
                inner, n=a.take("n", 1), replace=a.take("replace", False), p=a.take("p", 1.0))
        elif name == "OneOrOther":  # the first with probability p, else the last, forced
            inner = _transforms(a.take("transforms", []), pipe, top=False, slots=True,
                                model_at=model_at)
            t = OneOrOther(transforms=inner, p=a.take("p", 0.5))
        elif name == "Sequential":  # its transforms in order, all of them with probability p
            inner = _transforms(a.take("transforms", []), pipe, top=False, model_at=model_at)
            t = Compose(inner, p=a.take("p", 0.5))
        elif name in ("Compose", "ReplayCompose"):  # nested: a Sequential with p 1 by default
            t = _nested_compose(a, pipe, model_at)
        elif name == "SelectiveChannelTransform":
            if not top:
                raise ValueError("SelectiveChannelTransform inside OneOf, Sequential or a "
                                 "nested Compose is not supported: it runs on the host between "
                                 "two passes, as a step of the pipeline")
            if model_at is not None:  # (its steps would see the model's float image)
                _after_model(a, name, model_at, pipe.model)
            t = _selective_channels(a, pipe)
        elif name in SUPPORTED:
            if name in ("Normalize", "ToFloat", "ToTensorV2", "ToTensor3D"):
                if not top:
                    raise ValueError(f"{name} inside OneOf, Sequential or a nested Compose is "
                                     f"not supported: the "
                                     f"model's input is one for the pipeline")
                if name not in ("ToTensorV2", "ToTensor3D"):
                    if model_at is not None:
                        raise ValueError(f"{name} after {model_at} is not supported: the "
                                         f"model's input is made once")
                    model_at = name
            elif model_at is not None:
                _after_model(a, name, model_at, pipe.model)
            t = SUPPORTED[name](a, pipe)
        elif same_value(a.d.get("p", 0.5), 0):
            if slots:
                out.append(NoOp(p=0.0))
            continue  # never applied (Ultralytics' recipe lists some so): nothing to port
        else:
            full = str(item.get("__class_fullname__", "?"))
            if "." in full and not full.startswith("albumentations."):  # (a user's own class)
                raise ValueError(f"{name} ({full}) is a transform of your own code, not "
                                 f"albumentations': a port cannot carry its code over; call its "
                                 f"function through warpkit's Lambda (on the host, between two "
                                 f"passes); supported: {_supported()}")
            why = _NOT_PORTED.get(name, "")
            raise ValueError(f"albumentations' {name} has no warpkit equivalent yet{why}; "
                             f"supported: {_supported()}")
        a.done()
        if t is not None:
            out.append(t)
    return out
