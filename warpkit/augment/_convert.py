"""ToRGB, FromFloat and NoOp (albumentations 2.0.8's names and parameters): a grayscale
image's channels made before the pass, a float result made an integer image after it, and a
step that does nothing (a OneOf's choice of nothing).

Neither is a pixel operation of the kernel. ``ToRGB`` repeats a grayscale input's one channel
on the host before the warp reads it: the warp, every map and every step after it see an image
of ``num_output_channels`` channels, as albumentations' steps after ToRGB do. A geometric step
moves each channel alike, so ToRGB may stand after them; a step that changes values (colour,
noise, blur, dropout) may not stand before it, where albumentations would have applied it to
the one channel. ``FromFloat`` is the pipeline's last step: the float result, rounded and
saturated on the host as albumentations' ``from_float`` does.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from .._checks import count
from ._base import Transform, contains
from ._colour import ColourTransform, IdentityStep

__all__ = ["FromFloat", "NoOp", "ToRGB", "check_conversions", "convert_results",
           "expand_inputs"]

#: FromFloat's integer types and the peak each takes when ``max_value`` is None
_PEAKS = {"uint8": 255, "uint16": 65535, "uint32": 4294967295}


class NoOp(IdentityStep):
    """albumentations' NoOp: a step that changes nothing. It matters inside a ``OneOf``, where
    it is a choice with its own ``p`` (``OneOf([Blur(p=1), NoOp(p=1)])`` blurs half the
    samples), as in albumentations; recorded like any step (whether it applied).

    Example:
        >>> from warpkit.augment import HorizontalFlip, NoOp, OneOf
        >>> pick = OneOf([HorizontalFlip(p=1), NoOp(p=1)])
        >>> [type(t).__name__ for t in pick.transforms], pick._weights.tolist()
        (['HorizontalFlip', 'NoOp'], [0.5, 0.5])
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def config(self):
        return {}


class ToRGB(IdentityStep):
    """albumentations' ToRGB: a grayscale image ((H, W) or (H, W, 1); a batch (B, H, W, 1))
    becomes ``num_output_channels`` copies of its channel. An image of 3 channels is left as it
    is, with albumentations' warning; other channel counts are refused, as albumentations
    refuses them.

    A pipeline takes at most one, always applied (``p=1``, albumentations' default: a batch's
    images share their channels), as a step of its own (not inside OneOf or another Compose),
    with only geometric steps before it. The channels are repeated on the host before the warp
    reads them (numpy, Pillow or CPU torch images; an image held on a device is refused).

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, Resize, ToRGB
        >>> aug = Compose([Resize((32, 48)), ToRGB()])
        >>> aug(image=np.zeros((64, 96), np.uint8), seed=0)["image"].shape  # doctest: +SKIP
        (32, 48, 3)
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, num_output_channels: int = 3, p: float = 1.0) -> None:
        super().__init__(p)
        self.num_output_channels = count(num_output_channels, "num_output_channels", 1)
        if self.num_output_channels > 16:
            raise ValueError(f"num_output_channels must be at most 16 (warpkit's images have "
                             f"up to 16 channels), got {num_output_channels!r}")
        if self.p != 1:
            raise ValueError(f"ToRGB takes p=1 (the steps after it see its channels in every "
                             f"sample), got {p!r}")

    def config(self):
        return {"num_output_channels": self.num_output_channels}

    def expand(self, x: Any, what: str) -> Any:
        """``x`` (a call's image: an array, a batch, a Pillow image or a list of them) with
        its one channel repeated ``num_output_channels`` times."""
        if isinstance(x, (list, tuple)):
            return [self.expand(item, f"{what}[{k}]") for k, item in enumerate(x)]
        Image = sys.modules.get("PIL.Image")
        if Image is not None and isinstance(x, Image.Image):
            if x.mode == "RGB":
                return self._not_gray(x, 3, what)
            if x.mode not in ("L", "I", "I;16", "F"):
                raise TypeError(f"ToRGB expects a grayscale image: {what} is a Pillow image "
                                f"of mode {x.mode!r}")
            if x.mode == "L" and self.num_output_channels == 3:
                return x.convert("RGB")
            x = np.asarray(x)
        if not isinstance(x, np.ndarray):
            raise TypeError(f"ToRGB repeats channels on the host: {what} must be a numpy array, "
                            f"a Pillow image or a CPU torch tensor, got {type(x).__name__}")
        batch = x.ndim == 4
        c = x.shape[-1] if x.ndim == 3 + batch else 1
        if c != 1:
            return self._not_gray(x, c, what)
        if self.num_output_channels == 1:
            return x
        one = x if x.ndim == 3 + batch else x[..., None]
        return np.repeat(one, self.num_output_channels, axis=-1)

    def _not_gray(self, x: Any, channels: int, what: str) -> Any:
        if channels == 3:
            warnings.warn(f"ToRGB: {what} is already an RGB image (3 channels): left as it is, "
                          f"as albumentations leaves it", UserWarning, stacklevel=5)
            return x
        raise TypeError(f"ToRGB expects a grayscale image, (H, W) or (H, W, 1) (a batch "
                        f"(B, H, W, 1)): {what} has {channels} channels")


class FromFloat(IdentityStep):
    """albumentations' FromFloat: a float image in [0, 1] becomes ``dtype`` (uint8, uint16 or
    uint32): ``clip(rint(v * max_value))`` with ``max_value`` the type's peak when None, as
    albumentations' ``from_float`` computes it (in float32 for float32 images; uint32 in
    float64, where float32 would lose the last digits).

    The pipeline's last step, always applied (``p=1``: a batch's images share their type),
    not inside OneOf or another Compose, and not with the model's input (``output_dtype``,
    ``mean``, ``std``, ``layout``: that is a float tensor). It takes float images: an integer
    image is refused (albumentations would multiply its levels, wrapping uint8). Made on the
    host from the pass's float result.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, FromFloat, HorizontalFlip
        >>> aug = Compose([HorizontalFlip(p=1), FromFloat()])
        >>> img = np.array([[0.0, 0.5, 1.0]], np.float32)
        >>> aug(image=img, seed=0)["image"].tolist()                          # doctest: +SKIP
        [[255, 128, 0]]
    """

    commutes = True  # (a function of each pixel's value)

    def __init__(self, dtype: str = "uint8", max_value: float | None = None,
                 p: float = 1.0) -> None:
        super().__init__(p)
        name = str(np.dtype(dtype)) if isinstance(dtype, (type, np.dtype)) else dtype
        if name not in _PEAKS:
            raise ValueError(f"dtype must be one of {', '.join(_PEAKS)}, got {dtype!r}")
        self.dtype = name
        if max_value is not None:
            if isinstance(max_value, bool) or not isinstance(max_value, (int, float, np.number)) \
                    or not np.isfinite(max_value) or max_value <= 0:
                raise ValueError(f"max_value must be None or a finite number > 0, got "
                                 f"{max_value!r}")
            max_value = float(max_value)
        self.max_value = max_value
        if self.p != 1:
            raise ValueError(f"FromFloat takes p=1 (a batch's images share one type), got {p!r}")

    def config(self):
        return {"dtype": self.dtype, "max_value": self.max_value}

    def check_input(self, dtype: np.dtype | None, what: str) -> None:
        """Refuse an image that is not float, or not on the host, before the pass."""
        if dtype is None:
            raise TypeError(f"FromFloat makes its result on the host: {what} must be a numpy "
                            f"array, a Pillow image or a CPU torch tensor")
        if np.dtype(dtype).kind != "f" and np.dtype(dtype).name != "bfloat16":
            raise TypeError(f"FromFloat takes float images (values in [0, 1]), {what} is "
                            f"{np.dtype(dtype)}")

    def convert(self, x: Any) -> Any:
        """The pass's float result ``x`` (an array or a list of them) as ``dtype``."""
        if isinstance(x, list):
            return [self.convert(item) for item in x]
        peak = _PEAKS[self.dtype] if self.max_value is None else self.max_value
        a = np.asarray(x)
        if self.dtype == "uint32":
            a = a.astype(np.float64)
        elif a.dtype not in (np.float32, np.float64):
            a = a.astype(np.float32)
        v = np.rint(a * a.dtype.type(peak))
        return np.clip(v, 0, _PEAKS[self.dtype]).astype(self.dtype)


def _values_changed(t: Transform) -> bool:
    """Whether ``t`` (or a step it holds) changes values as well as moving them."""
    from ._mosaic import Mosaic

    return contains(t, ColourTransform) or contains(t, Mosaic)


def check_conversions(pipe: Any) -> None:
    """Refuse ToRGB and FromFloat where their place in the pipeline ``pipe`` (a Compose)
    would not give albumentations' result (see each class)."""
    steps = pipe.transforms
    for k, t in enumerate(steps):
        for cls in (ToRGB, FromFloat):
            if contains(t, cls) and not isinstance(t, cls):
                raise ValueError(f"{cls.__name__} must be a step of the pipeline called, not "
                                 f"inside {type(t).__name__}")
    rgb = [k for k, t in enumerate(steps) if isinstance(t, ToRGB)]
    if len(rgb) > 1:
        raise ValueError("a pipeline takes one ToRGB")
    if rgb:
        before = [type(t).__name__ for t in steps[:rgb[0]] if _values_changed(t)]
        if before:
            raise ValueError(f"ToRGB must come before the steps that change values "
                             f"({', '.join(before)}): albumentations applies those to the one "
                             f"channel, warpkit to the channels ToRGB makes")
    back = [k for k, t in enumerate(steps) if isinstance(t, FromFloat)]
    if back and (len(back) > 1 or back[0] != len(steps) - 1):
        raise ValueError("FromFloat must be the pipeline's last step (and its only FromFloat): "
                         "the steps after it would see integer levels")
    if back and (pipe.output_dtype is not None or pipe.mean is not None
                 or pipe.std is not None or pipe.layout != "HWC"
                 or pipe.max_pixel_value is not None):
        raise ValueError("FromFloat makes an integer image: not with the model's input "
                         "(output_dtype, mean, std, max_pixel_value, layout='CHW')")


def expand_inputs(pipe: Any, images: dict, out: Any = None) -> None:
    """The call's images (``images``, name -> value, replaced in place) through the pipeline's
    ToRGB, if it has one; a FromFloat's checks of their types and of ``out=``."""
    for t in pipe.transforms:
        if isinstance(t, FromFloat) and out is not None:
            raise ValueError("out= takes the pass's result in the image's own type: not with "
                             "FromFloat, whose result is a new integer array")
        if isinstance(t, ToRGB):
            for name, x in images.items():
                images[name] = t.expand(x, name)
        elif isinstance(t, FromFloat):
            for name, x in images.items():
                first = x[0] if isinstance(x, (list, tuple)) and x else x
                t.check_input(_dtype(first), name)


def convert_results(pipe: Any, res: dict, names: Any) -> None:
    """The results ``res[name]`` of the images ``names`` through the pipeline's FromFloat."""
    last = pipe.transforms[-1] if pipe.transforms else None
    if isinstance(last, FromFloat):
        for name in names:
            if name in res:
                res[name] = last.convert(res[name])


def _dtype(x: Any) -> np.dtype | None:
    """A host image's dtype (a Pillow image's as numpy reads it); None for one on a device."""
    if isinstance(x, np.ndarray):
        return x.dtype
    Image = sys.modules.get("PIL.Image")
    if Image is not None and isinstance(x, Image.Image):
        return np.asarray(x).dtype
    return None
