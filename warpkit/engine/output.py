"""What a warp writes: the fill per channel, and the model's input (normalised floats, channels
first) made in the same pass."""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np


class ModelInput(NamedTuple):
    """``output_dtype``, ``mean``, ``std``, ``layout`` and ``max_pixel_value`` as the public
    calls take them; the default (:data:`PLAIN`) is a plain warp in the image's dtype."""

    output_dtype: Any = None
    mean: Any = None
    std: Any = None
    layout: str = "HWC"
    max_pixel_value: Any = None


PLAIN = ModelInput()


def fills(fill: Any, channels: int, dt: np.dtype) -> list[float]:
    """One fill value per channel. For integer images the fill is rounded (halves up) and
    saturated into the dtype first, as OpenCV does, so that it interpolates like a pixel."""
    if type(fill) in (int, float):  # the common cases without numpy's per-call overhead
        vals: list | None = [float(fill)]
    elif type(fill) in (tuple, list) and all(type(v) in (int, float) for v in fill):
        vals = [float(v) for v in fill]
    elif fill is None or isinstance(fill, (str, bytes)):
        vals = None
    else:
        try:
            f = np.asarray(fill, dtype=np.float64)
            vals = f.reshape(-1).tolist() if f.ndim <= 1 else None
        except (TypeError, ValueError):
            vals = None
    if vals is None or len(vals) not in (1, channels):
        raise ValueError(f"fill must be a number or one per channel ({channels}), got {fill!r}")
    vals = vals * (channels // len(vals))
    if dt.kind not in "iu":
        return vals
    if any(math.isnan(v) for v in vals):
        raise ValueError(f"fill must be a number for a {dt} image, got NaN")
    lo, hi = _int_range(dt)
    return [min(max(float(math.floor(v + 0.5)) if math.isfinite(v) else v, lo), hi)
            for v in vals]


def options_key(fill: Any, model: ModelInput) -> tuple:
    """(fill, output_dtype, mean, std, layout, max_pixel_value) for :func:`values_of_options`:
    a value per channel given as a list or a 1-D array (as JSON and numpy give a mean and std)
    as a tuple of its numbers, a dict (a max_pixel_value by dtype) as its sorted pairs, so that
    a pipeline's lists hit the cache too (their values made again cost a single-image call ~60
    us)."""
    return tuple(_frozen(v) for v in (fill, *model))


def _frozen(v: Any) -> Any:
    if isinstance(v, np.ndarray) and v.ndim == 1:
        v = v.tolist()
    if isinstance(v, dict):  # (max_pixel_value by dtype)
        return tuple(sorted(v.items()))
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return tuple(v)
    return v


@functools.lru_cache(maxsize=256)
def values_of_options(okey: tuple, channels: int, dt: np.dtype) -> tuple:
    """(fills, model_output) of hashable options ``okey`` = (fill, output_dtype, mean, std,
    layout, max_pixel_value): made once, the same for every image of a kind. Errors are not
    cached: each call with bad options raises again."""
    fill, *model = okey
    return fills(fill, channels, dt), model_output(dt, channels, *model)


@functools.lru_cache(maxsize=None)
def _int_range(dt: np.dtype) -> tuple[float, float]:
    info = np.iinfo(dt)
    return float(info.min), float(info.max)


#: output_dtype values that make the model's input (normalised floats) in the warp's pass
FLOAT_OUT = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}


#: the value of a full-scale pixel of each dtype, which normalisation divides by
PEAK = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0, np.dtype(np.int32): 1.0,
         np.dtype(np.float32): 1.0}
#: their names, as a ``max_pixel_value`` by dtype takes them
PEAK_NAMES = tuple(d.name for d in PEAK)


def check_model_input(output_dtype: Any, layout: Any) -> np.dtype | None:
    """The checks of ``output_dtype`` and ``layout`` that need no image (a pipeline makes them
    when it is built): the dtype (None: the image's) or a ValueError naming the argument."""
    if layout not in ("HWC", "CHW"):
        raise ValueError(f"layout must be 'HWC' or 'CHW', got {layout!r}")
    try:
        return None if output_dtype is None else np.dtype(output_dtype)
    except TypeError:
        raise ValueError(f"output_dtype must be None or the image's dtype, float32 or float16, "
                         f"got {output_dtype!r}") from None


def check_max_pixel_value(value: Any, arg: str = "max_pixel_value"
                          ) -> float | dict[str, float] | None:
    """``max_pixel_value``: None (each dtype's :data:`PEAK`), the finite number > 0 that
    becomes 1 before the mean and std, or a dict of such numbers by dtype name (``{"uint16":
    4095}``: the dtypes it leaves out keep their peak); a ValueError naming it (``arg``)
    otherwise. Returns None, a float or a dict of floats."""
    if value is None:
        return None
    if isinstance(value, dict):
        bad = sorted(str(k) for k in value if k not in PEAK_NAMES)
        if bad:
            raise ValueError(f"{arg} takes dtype names {', '.join(PEAK_NAMES)} as its keys, got "
                             f"{', '.join(map(repr, bad))}")
        return {k: check_max_pixel_value(v, f"{arg}[{k!r}]") for k, v in value.items()}
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{arg} must be None (the dtype's peak) or a finite number > 0, the "
                         f"value that becomes 1 before mean and std (or a dict of them by "
                         f"dtype), got {value!r}")
    return float(value)


def peak_of(max_pixel_value: Any, dt: np.dtype) -> float:
    """The value that becomes 1 in a model's input from a ``dt`` image: ``max_pixel_value``
    (checked: None, a number, or a dict by dtype name), else the dtype's :data:`PEAK`."""
    if isinstance(max_pixel_value, dict):
        got = max_pixel_value.get(dt.name)
        return PEAK[dt] if got is None else float(got)
    return PEAK[dt] if max_pixel_value is None else float(max_pixel_value)


def model_output(dt: np.dtype, channels: int, output_dtype: Any, mean: Any, std: Any,
                 layout: Any, max_pixel_value: Any = None
                 ) -> tuple[np.dtype | None, bool, list[float], list[float]]:
    """(float output dtype or None for a plain warp, channels first, scale, bias per channel).
    A mean or std of more values than the image has channels gives each channel its own, the
    first ones (as albumentations' Normalize takes ImageNet's three for a gray image)."""
    odt = check_model_input(output_dtype, layout) or dt
    if odt != dt and odt not in FLOAT_OUT:
        raise ValueError(f"output_dtype must be the image's dtype ({dt}), float32 or float16, "
                         f"got {output_dtype!r}")
    given = check_max_pixel_value(dict(max_pixel_value) if isinstance(max_pixel_value, tuple)
                                  else max_pixel_value)
    plain = odt == dt and mean is None and std is None and layout == "HWC" and given is None
    if plain:
        return None, False, [], []
    if odt not in FLOAT_OUT:
        raise ValueError("mean, std, max_pixel_value and layout='CHW' make the model's input: "
                         "pass output_dtype='float32' or 'float16'")

    def per_channel(v, default, arg):
        v = default if v is None else v
        try:
            a = np.asarray(v, np.float64).reshape(-1)
            a = np.broadcast_to(a[:channels] if a.size > channels else a, (channels,))
        except (TypeError, ValueError):
            a = None
        if a is None or not np.isfinite(a).all():
            raise ValueError(f"{arg} must be a finite number or one per channel ({channels}), "
                             f"got {v!r}")
        return a

    m = per_channel(mean, 0.0, "mean")
    sd = per_channel(std, 1.0, "std")
    if (sd <= 0).any():
        raise ValueError(f"std must be > 0, got {std!r}")
    peak = peak_of(given, dt)
    return odt, layout == "CHW", (1 / (peak * sd)).tolist(), (-m / sd).tolist()
