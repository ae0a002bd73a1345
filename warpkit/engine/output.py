"""What a warp writes: the fill per channel, and the model's input (normalised floats, channels
first) made in the same pass."""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np


class ModelInput(NamedTuple):
    """``output_dtype``, ``mean``, ``std`` and ``layout`` as the public calls take them; the
    default (:data:`PLAIN`) is a plain warp in the image's dtype."""

    output_dtype: Any = None
    mean: Any = None
    std: Any = None
    layout: str = "HWC"


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
    """(fill, output_dtype, mean, std, layout) for :func:`values_of_options`: a value per
    channel given as a list or a 1-D array (as JSON and numpy give a mean and std) as a tuple
    of its numbers, so that a pipeline's lists hit the cache too (their values made again
    cost a single-image call ~60 us)."""
    return tuple(_frozen(v) for v in (fill, *model))


def _frozen(v: Any) -> Any:
    if isinstance(v, np.ndarray) and v.ndim == 1:
        v = v.tolist()
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return tuple(v)
    return v


@functools.lru_cache(maxsize=256)
def values_of_options(okey: tuple, channels: int, dt: np.dtype) -> tuple:
    """(fills, model_output) of hashable options ``okey`` = (fill, output_dtype, mean, std,
    layout): made once, the same for every image of a kind. Errors are not cached:
    each call with bad options raises again."""
    fill, output_dtype, mean, std, layout = okey
    return fills(fill, channels, dt), model_output(dt, channels, output_dtype, mean, std, layout)


@functools.lru_cache(maxsize=None)
def _int_range(dt: np.dtype) -> tuple[float, float]:
    info = np.iinfo(dt)
    return float(info.min), float(info.max)


#: output_dtype values that make the model's input (normalised floats) in the warp's pass
FLOAT_OUT = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}


#: the value of a full-scale pixel of each dtype, which normalisation divides by
PEAK = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0, np.dtype(np.int32): 1.0,
         np.dtype(np.float32): 1.0}


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


def model_output(dt: np.dtype, channels: int, output_dtype: Any, mean: Any, std: Any,
            layout: Any) -> tuple[np.dtype | None, bool, list[float], list[float]]:
    """(float output dtype or None for a plain warp, channels first, scale, bias per channel)."""
    odt = check_model_input(output_dtype, layout) or dt
    if odt != dt and odt not in FLOAT_OUT:
        raise ValueError(f"output_dtype must be the image's dtype ({dt}), float32 or float16, "
                         f"got {output_dtype!r}")
    plain = odt == dt and mean is None and std is None and layout == "HWC"
    if plain:
        return None, False, [], []
    if odt not in FLOAT_OUT:
        raise ValueError("mean, std and layout='CHW' make the model's input: pass "
                         "output_dtype='float32' or 'float16'")

    def per_channel(v, default, arg):
        v = default if v is None else v
        try:
            a = np.broadcast_to(np.asarray(v, np.float64).reshape(-1), (channels,))
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
    peak = PEAK[dt]
    return odt, layout == "CHW", (1 / (peak * sd)).tolist(), (-m / sd).tolist()
