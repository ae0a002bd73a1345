"""The transform base classes and the argument rules every transform shares.

A transform draws its parameters as plain data from a sample's stream (:meth:`Transform.draw`)
and turns them into geometry (:meth:`Transform.map`: a 3x3 destination-from-source matrix, or
:meth:`Transform.stages` for a non-linear stage); :class:`~warpkit.augment.Compose` strings them
together and runs them (:mod:`._executor`).

Conventions are :mod:`warpkit.geometry`'s: pixel centres at integers, x right, y down, maps go
from source to destination. Sizes a user passes (a transform's output size, ``Compose.sample``'s
input size) are (height, width), as ``image.shape[:2]``; the maps and the methods a transform
writes (:meth:`Transform.draw`, :meth:`Transform.map`, ...) work in (width, height), the order of
x and y in the matrices."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._checks import number, width_height
from .._options import INTERPOLATION_ALIASES, PADDING_ALIASES, Sampling

#: transform classes by name, for Compose.from_dict (every subclass registers itself)
_REGISTRY: dict[str, type] = {}


def plain(value: Any) -> Any:
    """A number, a sequence of numbers or a dict of them as JSON's plain data (lists)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        return float(value) if isinstance(value, np.generic) else value
    return [plain(v) for v in value]


def same_value(a: Any, b: Any) -> bool:
    """Whether two settings or parameter values are the same: sequences item by item, numbers
    to 1e-12 (JSON round trips), an option's alias as its name (``"mirror"`` is
    ``"reflect_101"``)."""
    if isinstance(a, (list, tuple, np.ndarray)) and isinstance(b, (list, tuple, np.ndarray)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, str) and isinstance(b, str):
        return _canonical(a) == _canonical(b)
    return a == b


def _canonical(name: str) -> str:
    return INTERPOLATION_ALIASES.get(name, PADDING_ALIASES.get(name, name))


class SettingsDisagree(ValueError):
    """Steps of a pipeline in one pass set a resampling setting two ways (another pass would
    take them: ``passes="as_needed"``)."""


def merge_setting(found: dict, key: str, value: Any, who: str, why: str | None = None
                  ) -> None:
    """Record that ``who`` sets the pipeline-wide ``key`` to ``value`` in ``found`` (key ->
    (value, who)); a different value already there is a ValueError naming both, and ``why``
    they must agree (by default: a pipeline resamples once, :class:`SettingsDisagree`)."""
    if key in found and not same_value(found[key][0], value):
        old, by = found[key]
        if why is None:
            raise SettingsDisagree(
                f"{who} sets {key}={value!r} but {by} sets {key}={old!r}: a warpkit pipeline "
                f"of passes='one' resamples once, with one {key} (passes='as_needed', the "
                f"default's choice where settings differ, resamples again where they change)")
        raise ValueError(f"{who} sets {key}={value!r} but {by} sets {key}={old!r}: {why}")
    found.setdefault(key, (value, who))


#: OpenCV's codes for the interpolations and borders warpkit has (albumentations takes these).
#: INTER_AREA (3) is warpkit's ``area``: cv2.resize's area filter where a map keeps the axes; a
#: transform that albumentations warps with cv2.warpAffine, warpPerspective or remap (which
#: read INTER_AREA as INTER_LINEAR) reads code 3 as ``linear`` (:func:`interpolation_code`)
INTERPOLATION_CODES = {0: "nearest", 1: "linear", 2: "cubic", 3: "area"}
#: what ``area_for_downscale`` may be (albumentations' resizes and crops that resize)
AREA_FOR_DOWNSCALE = (None, "image", "image_mask")
BORDER_CODES = {0: "constant", 1: "border", 2: "reflection", 4: "reflect_101"}


def opencv_code(value: Any, table: dict[int, str], arg: str) -> str:
    """An OpenCV code (albumentations' way: ``cv2.INTER_LINEAR``) or warpkit's name for it."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value in table:
        return table[int(value)]
    if isinstance(value, str) and value in table.values():
        return value
    raise ValueError(f"{arg} must be one of "
                     f"{', '.join(f'{k} ({v!r})' for k, v in table.items())}, got {value!r}")


def interpolation_code(value: Any, arg: str, resizes: bool) -> str:
    """An interpolation as :func:`opencv_code` reads it, OpenCV's INTER_AREA (3) as OpenCV
    applies it: ``area`` for a transform albumentations applies with ``cv2.resize``
    (``resizes``), ``linear`` for one it warps (``cv2.warpAffine`` and ``cv2.remap`` read
    INTER_AREA as INTER_LINEAR). warpkit's name ``"area"`` is warpkit's area everywhere."""
    name = opencv_code(value, INTERPOLATION_CODES, arg)
    if name == "area" and not resizes and not isinstance(value, str):
        return "linear"
    return name


def probability(p: Any, arg: str = "p") -> float:
    v = number(p, arg)
    if not 0 <= v <= 1:
        raise ValueError(f"{arg} is a probability: it must be in [0, 1], got {p!r}")
    return v


def value_range(value: Any, arg: str, symmetric: bool, lo: float, hi: float, n: int = 2) -> tuple:
    """``value`` as ``n // 2`` (low, high) pairs inside [lo, hi]; with ``symmetric``, a number ``v``
    means (-v, v), otherwise (v, v). The one parser of every transform's ranges."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = number(value, arg)
        if symmetric and v < 0:
            raise ValueError(f"{arg} as one number is a bound of (-{arg}, {arg}): it must be >= 0, "
                             f"got {v}")
        vals = [-v, v] if symmetric else [v, v]
        vals += [0.0, 0.0] * (n // 2 - 1)
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) in (2, n):
        vals = [number(v, arg) for v in value] + [0.0, 0.0] * ((n - len(value)) // 2)
    else:
        forms = "a number or (low, high)" + (" or (x_low, x_high, y_low, y_high)" if n == 4 else "")
        raise ValueError(f"{arg} must be {forms}, got {value!r}")
    pairs = tuple((vals[k], vals[k + 1]) for k in range(0, n, 2))
    for a, b in pairs:
        if a > b:
            raise ValueError(f"{arg} must have low <= high, got {value!r}")
        if a < lo or b > hi:
            raise ValueError(f"{arg} must lie in [{lo:g}, {hi:g}], got {value!r}")
    return pairs


def normals(u: np.ndarray) -> np.ndarray:
    """Standard normal numbers from uniform ones in [0, 1) (the last axis, even length), by
    Box-Muller: pairs (u1, u2) give sqrt(-2 ln(1 - u1)) (cos 2 pi u2, sin 2 pi u2). Python's
    own functions, value by value, for one sample and for a batch's lanes alike: numpy's vector
    loops for log, cos and sin differ by CPU and by array length (numpy's own ``normal`` is a
    rejection loop that a batch cannot draw side by side)."""
    flat = u.reshape(-1, 2).tolist()
    out = []
    for u1, u2 in flat:
        r, t = math.sqrt(-2.0 * math.log1p(-u1)), 2.0 * math.pi * u2
        out += [r * math.cos(t), r * math.sin(t)]
    return np.array(out, np.float64).reshape(u.shape)


def size_arg(value: Any, arg: str) -> tuple[int, int]:
    """A size as warpkit.augment takes it, (height, width) as ``image.shape[:2]`` and as
    albumentations, torchvision and kornia take it (an int: a square), returned as the (width,
    height) that the transforms' maps work in (:mod:`warpkit.geometry`'s order); both >= 1."""
    pair = (value, value) if isinstance(value, numbers.Integral) and \
        not isinstance(value, bool) else value
    try:
        h, w = width_height(pair, arg)  # two whole numbers, here (height, width)
    except ValueError:
        h = w = 0
    if w < 1 or h < 1:
        raise ValueError(f"{arg} must be an int (a square) or (height, width) of whole numbers "
                         f">= 1, got {value!r}")
    return w, h


def size_hw(size: tuple[int, int]) -> list[int]:
    """A (width, height) size as a transform's :meth:`Transform.config` writes it: [height,
    width], the order its constructor takes."""
    return [size[1], size[0]]


def size_given(size: Any, height: Any, width: Any) -> Any:
    """``size`` (height, width), or albumentations' ``height=`` and ``width=`` keywords: exactly
    one of the two forms."""
    if height is None and width is None:
        if size is None:
            raise ValueError("give the size as size=(height, width) (an int: a square) or as "
                             "height= and width=")
        return size
    if size is not None or height is None or width is None:
        raise ValueError(f"give the size as size=(height, width) or as both height= and width=, "
                         f"not both forms; got size={size!r}, height={height!r}, "
                         f"width={width!r}")
    return (height, width)


def size_or_hw(size: Any, width: Any, height: Any) -> Any:
    """A size as albumentations orders it, height and width as two numbers
    (``CenterCrop(224, 160)``), as warpkit's one ``size`` (an int: a square; (height, width)),
    or as albumentations' ``height=`` and ``width=`` keywords: exactly one form."""
    if width is not None and not isinstance(width, bool) and isinstance(width, numbers.Real) \
            and not float(width).is_integer():
        raise ValueError(f"width must be a whole number of pixels, got {width!r} (the "
                         f"probability p comes after height and width, as in albumentations)")
    if (width is not None and height is None and isinstance(size, numbers.Integral)
            and not isinstance(size, bool)):
        return (size, width)
    return size_given(size, height, width)


class Transform:
    """A geometric transform: two verbs a subclass writes, one a caller uses.

    A subclass writes :meth:`draw` (its random parameters as plain data: numbers, lists, dicts,
    drawn from a sample's stream) and :meth:`map` (those parameters as a 3x3
    destination-from-source matrix and the output size (width, height)); a non-linear one
    returns its stage from :meth:`stages` instead (see ``FieldTransform``). :meth:`config` gives
    its constructor's arguments, for :meth:`to_dict`; it registers itself for
    :meth:`Compose.from_dict`.

    A caller uses :meth:`stages`: parameters as the chain of maps and non-linear stages the warp
    runs, and the output size. (:meth:`Compose.sample` draws a pipeline's parameters from a
    sample's seeded stream, with whether each step applied, drawn with its probability ``p``.)

    Example:
        >>> from warpkit.augment import RandomHorizontalFlip, stream
        >>> t = RandomHorizontalFlip()
        >>> params = t.draw(stream(seed=0), (64, 48))
        >>> chain, size = t.stages(params, (64, 48))
        >>> chain[0][0].tolist(), size
        ([-1.0, 0.0, 63.0], (64, 48))
    """

    #: whether each map this transform makes only scales, shifts, flips or transposes the axes
    #: (a resize, crop, pad or flip; a colour transform makes none; a container: all it holds,
    #: see :func:`keeps_axes`). Under constant padding a pipeline of such transforms fills only
    #: outside the image and repeats its edge pixels inside (padding ``constant_edge``), as a
    #: resize then a pad does; a rotation's border blends into the fill instead.
    keeps_axes: bool = False
    #: a pixel step whose result at a pixel depends on that pixel's value and the sample's
    #: draws alone (no neighbours, no place, no statistics of the image), and continuously
    #: (not Solarize's threshold, not Posterize's steps: a resampled value between two levels
    #: falls on either side of them): geometry after it gives what geometry before it gives
    #: within the interpolation's rounding, so a pipeline of ``passes="as_needed"`` keeps the
    #: two in one pass (see :func:`~warpkit.augment._compose.pass_plan`)
    commutes: bool = False

    def __init__(self, p: float = 1.0) -> None:
        self.p = probability(p)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.__name__] = cls

    # -- what a subclass writes ------------------------------------------------------------
    def draw(self, rng: np.random.Generator, size: tuple[int, int]) -> dict:
        """The random parameters for an input of ``size`` = (width, height), drawn from ``rng``
        (valid during this call only: keep the numbers, not the generator)."""
        return {}

    def map(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        """(3x3 destination-from-source matrix, output (width, height)) for these parameters
        (those of :meth:`draw`; whether the transform applied is not its concern)."""
        raise NotImplementedError

    def config(self) -> dict:
        """The constructor's arguments as plain data (``p`` is added by :meth:`to_dict`)."""
        return {}

    def settings(self) -> dict:
        """The pipeline-wide resampling settings this transform sets (albumentations' per-
        transform ``interpolation``, ``border_mode``, ``fill``, ``fill_mask``), as
        :class:`~warpkit.augment.Compose`'s keywords (``interpolation``, ``padding``, ``fill``,
        ``mask_fill``): none for warpkit's own transforms, whose pipeline sets them."""
        return {}

    def out_size(self, params: dict, size: tuple[int, int]) -> tuple[int, int]:
        """The output (width, height) for these parameters: :meth:`map`'s, which a transform
        whose size is known without building the matrix answers more cheaply."""
        return self.map(params, size)[1]

    def maps(self, plist: list[dict], sizes: list[tuple[int, int]]
             ) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
        """A batch's maps at once: (n, 3, 3) and the output sizes for the recorded parameters
        ``plist`` of inputs of ``sizes`` (each sample's :func:`map_step`); None for a
        transform with stages of its own (non-linear, or choosing among others), which only
        :meth:`stages` describes: nothing is built for it here."""
        if type(self).stages is not Transform.stages:
            return None
        steps = [map_step(self, p, s) for p, s in zip(plist, sizes)]
        return (np.stack([m for m, _ in steps]) if steps else np.zeros((0, 3, 3))), \
            [o for _, o in steps]

    #: whether the map sends the input's frame exactly onto the output's (a flip, a transpose,
    #: a turn by quarters): it never reads outside (Compose's edges="each_step")
    keeps_frame = False
    #: whether the map sends the whole input onto the whole output, scaled (a resize, and the
    #: steps that keep the frame): a reflecting border after it reflects the same picture as
    #: before it (pass_plan's rule for edges="each_step")
    whole_frame = False

    def colour_ops(self, params: dict, channels: int, peak: float) -> list[list[float]]:
        """The colour operations these parameters apply in the warp's kernel (see
        :mod:`warpkit.augment._colour`): none for a geometric transform. Called on each step
        :meth:`applied_steps` gives."""
        return []

    def applied_steps(self, params: dict) -> Iterator[tuple[Transform, dict]]:
        """The single transforms that applied, in order, each with its own parameters (a
        pipeline or a OneOf gives those inside it): what colour and dropout read."""
        if params.get("applied", True):
            yield self, params

    #: the targets :meth:`draw_seen` reads (``"boxes"``, ``"masks"``): none for a transform
    #: whose draw needs the input's size alone; a pipeline's, its transforms' at any depth
    reads: frozenset = frozenset()

    def draw_seen(self, rng: np.random.Generator, size: tuple[int, int], seen: Any) -> dict:
        """:meth:`draw` for a transform whose parameters depend on the sample's targets
        (:attr:`reads`): ``seen`` (:class:`~warpkit.augment._targets.Seen`) holds them as this
        step's input has them. A pipeline passes them on to its transforms."""
        return self.draw(rng, size)

    def draw_lanes(self, lanes: Any, sizes: list[tuple[int, int]]) -> list[dict]:
        """:meth:`draw` for a whole batch at once: the same parameters, sample by sample, as
        :meth:`draw` on each sample's stream, drawn from the batch's streams side by side
        (:class:`~warpkit.augment._lanes.Lanes`). A transform that draws nothing needs none; one
        that draws without writing this is drawn sample by sample (see :func:`lanes_ok`)."""
        return [{} for _ in sizes]

    # -- what a caller uses ----------------------------------------------------------------
    def stages(self, params: dict, size: tuple[int, int]) -> tuple[list, tuple[int, int]]:
        """(the maps and non-linear stages these parameters apply, in order; output size): one
        3x3 matrix for a projective transform, a stage (:class:`~warpkit.engine.stages.NonLinear`)
        for a non-linear one; the identity where the transform did not apply."""
        m, out = map_step(self, params, size)
        return [m], out

    def __call__(self, image: Any = None, **call: Any) -> dict:
        """This transform alone, called as albumentations' transforms are
        (``HorizontalFlip(p=1)(image=img, mask=m)``): ``Compose([self])`` with the call's
        keywords (``image=``, ``mask=``, ``masks=``, ``bboxes=``, ``keypoints=``, label fields,
        ``seed=``, ``index=``, ``epoch=``, ...); Compose's own options given here
        (``bbox_params=``, ``label_fields=``, ``output_dtype=``, ...) go to that pipeline. The
        result is the pipeline's dict; the transform's probability ``p`` applies, drawn from
        the call's stream (fresh entropy without ``seed=``).

        Example:
            >>> import numpy as np
            >>> from warpkit.augment import HorizontalFlip
            >>> img = np.arange(6, dtype=np.uint8).reshape(2, 3)
            >>> HorizontalFlip(p=1)(image=img)["image"].tolist()       # doctest: +SKIP
            [[2, 1, 0], [5, 4, 3]]
        """
        from ._compose import call_alone  # (Compose is built on Transform)

        return call_alone(self, {"image": image, **call})

    # -- deprecated names (gone in 0.3) ----------------------------------------------------
    def params(self, rng: np.random.Generator, size: tuple[int, int]) -> dict:
        """Deprecated: :meth:`draw` (the parameters) or :meth:`Compose.sample` (a pipeline's,
        seeded, with whether each step applied)."""
        _renamed("Transform.params(rng, size)",
                 "Transform.draw(rng, size) or Compose.sample(size, seed, index, epoch)")
        return draw_step(self, rng, size)

    def transform(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        """Deprecated: :meth:`stages` (its chain is ``[matrix]`` for a projective transform)."""
        _renamed("Transform.transform(params, size)", "Transform.stages(params, size)")
        return map_step(self, params, size)

    def to_dict(self) -> dict:
        """The transform as plain data (JSON) for :meth:`Compose.from_dict`, with the format
        it is written in (``"format"``: :data:`DICT_FORMAT`).

        Example:
            >>> from warpkit.augment import CenterCrop
            >>> CenterCrop((224, 160)).to_dict()
            {'type': 'CenterCrop', 'format': 4, 'p': 1.0, 'size': [224, 160], 'rounding': 'torchvision'}
        """
        why = next((w for s in all_steps(self) for w in [getattr(s, "unwritable", None)]
                    if w), None)
        if why:  # (a step that cannot be written: a Lambda without a name, a mask function)
            raise ValueError(why)
        return {"type": type(self).__name__, "format": DICT_FORMAT, **self.data()}

    def data(self) -> dict:
        """:meth:`to_dict` without its format (a pipeline's steps inherit their pipeline's)."""
        return {"type": type(self).__name__, "p": self.p, **self.config()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in {**self.config(), "p": self.p}.items())
        return f"{type(self).__name__}({args})"


#: albumentations' ways to move a box through a turn: the box around its mapped corners, or
#: around its inscribed ellipse (360 points, one a degree)
ROTATE_METHODS = ("largest_box", "ellipse")


def check_box_method(pipe: Transform | list) -> str:
    """The pipeline's way of moving boxes: ``"ellipse"`` where a step says so (albumentations'
    ``rotate_method``), else ``"largest_box"``. warpkit moves boxes through the one map of all
    the steps (of a pass: ``pipe`` may be a list of steps), so an ellipse must be the only
    step that turns or shears (the rest crops, resizes, pads, flips: they take an ellipse's box
    to the box of its image); albumentations takes each step's box in turn, which a pipeline
    of ``passes="as_needed"`` repeats by passes."""
    turning = [s for t in (pipe if isinstance(pipe, list) else [pipe]) for s in leaves(t)
               if not s.keeps_axes]
    ellipses = [s for s in turning if getattr(s, "rotate_method", None) == "ellipse"]
    if ellipses and len(turning) > 1:
        others = ", ".join(sorted({type(s).__name__ for s in turning}))
        raise ValueError(f"rotate_method='ellipse' is supported where its step is the "
                         f"pipeline's only one that turns, shears or bends ({others} here): "
                         f"warpkit moves boxes once, through the map of all the steps "
                         f"(Compose(passes='as_needed') moves them pass by pass)")
    return "ellipse" if ellipses else "largest_box"


class Resampled(Transform):
    """A transform with albumentations' per-transform resampling arguments, which become the
    pipeline's (:meth:`settings`)."""

    #: the resampling arguments as given (replaced, never changed in place): which the
    #: transform has (a resize no border, a pad no interpolation) and what config writes
    _given: dict = {}
    #: albumentations applies this transform with cv2.resize (its INTER_AREA is the area filter)
    resizes = False
    #: ``area_for_downscale`` as given (``"image"``: the pipeline's antialias ``"area"``;
    #: ``"image_mask"``: the masks' too, or, :attr:`mask_area_always`, their interpolation)
    area_for_downscale = None
    #: with ``area_for_downscale="image_mask"`` albumentations resizes masks by INTER_AREA on
    #: every sample, shrinking or not (its crops that resize), not only where the map shrinks
    mask_area_always = False

    def _resampling(self, interpolation: Any, mask_interpolation: Any, border_mode: Any,
                    fill: Any, fill_mask: Any, rotate_method: str = "largest_box") -> None:
        """The resampling arguments, and albumentations' ``rotate_method`` for the boxes."""
        if rotate_method not in ROTATE_METHODS:
            raise ValueError(f"rotate_method must be one of "
                             f"{', '.join(map(repr, ROTATE_METHODS))}, got {rotate_method!r}")
        self.rotate_method = rotate_method
        self.given_resampling(interpolation, mask_interpolation, border_mode, fill, fill_mask)

    def given_resampling(self, interpolation: Any = None, mask_interpolation: Any = None,
                         border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                         area_for_downscale: Any = None) -> None:
        """albumentations' resampling arguments (OpenCV's codes or warpkit's names), those
        given becoming the pipeline's (:meth:`settings`); None: not given, the pipeline's.
        The albumentations-named transforms pass albumentations' defaults, so theirs are
        always given; the transforms warpkit shares with torchvision default to None."""
        name = type(self).__name__
        given = {}
        if area_for_downscale is not None:
            if area_for_downscale not in AREA_FOR_DOWNSCALE or not self.resizes:
                raise ValueError(f"{name} area_for_downscale must be "
                                 f"{' or '.join(map(repr, AREA_FOR_DOWNSCALE))}, got "
                                 f"{area_for_downscale!r}" if self.resizes else
                                 f"{name} takes no area_for_downscale (it does not resize)")
            self.area_for_downscale = area_for_downscale
            given["area_for_downscale"] = area_for_downscale
        if interpolation is not None:
            self.interpolation = interpolation_code(interpolation, "interpolation", self.resizes)
            given["interpolation"] = interpolation
        if mask_interpolation is not None:
            self.mask_interpolation = interpolation_code(mask_interpolation,
                                                         "mask_interpolation", self.resizes)
            given["mask_interpolation"] = mask_interpolation
        if border_mode is not None:
            self.border_mode = opencv_code(border_mode, BORDER_CODES, "border_mode")
            given["border_mode"] = border_mode
        if fill is not None:
            self.fill = fill
            given["fill"] = fill
        if fill_mask is not None:
            self.fill_mask = number(fill_mask, "fill_mask")
            given["fill_mask"] = fill_mask
        self._given = {**self._given, **given}

    def settings(self) -> dict:
        g, s = self._given, {}
        for key in ("interpolation", "mask_interpolation"):
            if key in g:
                s[key] = getattr(self, key)
        if self.area_for_downscale is not None:  # (albumentations' area where it shrinks)
            s["antialias"] = "area"
        if self.area_for_downscale == "image_mask":
            if self.mask_area_always:
                s["mask_interpolation"] = "area"
            else:
                s["mask_antialias"] = "area"
        if "border_mode" in g:
            s["padding"] = self.border_mode
        if "border_mode" not in g or self.border_mode == "constant":  # (fills: constant only)
            if "fill" in g:
                s["fill"] = self.fill
            if "fill_mask" in g:
                s["mask_fill"] = self.fill_mask
        return s

    def resampling_config(self) -> dict:
        return {k: plain(v) for k, v in self._given.items()}


def draw_step(t: Transform, rng: np.random.Generator, size: tuple[int, int],
              seen: Any = None) -> dict:
    """One step's recorded parameters: whether ``t`` applies (drawn first, always) and its
    parameters (drawn always, so that the transforms after it draw the same numbers either
    way). ``seen``: the sample's targets (:class:`~warpkit.augment._targets.Seen`), for a
    transform whose draw reads them (:attr:`Transform.reads`)."""
    applied = bool(rng.random() < t.p)
    return {"applied": applied, **draw_params(t, rng, size, seen)}


def draw_params(t: Transform, rng: np.random.Generator, size: tuple[int, int],
                seen: Any = None) -> dict:
    """``t``'s parameters: :meth:`~Transform.draw_seen` with the targets where it reads them
    (and was given them), else :meth:`~Transform.draw`."""
    if seen is not None and t.reads:
        return t.draw_seen(rng, size, seen)
    return t.draw(rng, size)


def reads_any(transforms: Sequence[Transform]) -> frozenset:
    """What a pipeline's (or a OneOf's) transforms read, together: its :attr:`reads`."""
    return frozenset().union(*(t.reads for t in transforms))


def _owner(cls: type, name: str) -> type:
    return next(c for c in cls.__mro__ if name in vars(c))


def lanes_ok(t: Transform) -> bool:
    """Whether ``t`` draws a batch at once with the numbers of its per-sample :meth:`draw`:
    it draws nothing, or the class that wrote its ``draw`` wrote its ``draw_lanes`` too (a
    subclass that changes ``draw`` alone is drawn sample by sample); a pipeline's transforms
    all do."""
    cls = type(t)
    if _owner(cls, "draw") not in (Transform, _owner(cls, "draw_lanes")) or t.reads:
        return False
    # a draw made of parts (a method and its batch form, as _LANE_PARTS names them): each pair
    # from one class too
    if any(_owner(cls, one) is not _owner(cls, many) for one, many in
           getattr(cls, "_LANE_PARTS", ())):
        return False
    return all(lanes_ok(c) for c in getattr(t, "transforms", ()))


def draw_step_lanes(t: Transform, lanes: Any, sizes: list[tuple[int, int]]) -> list[dict]:
    """:func:`draw_step` for a batch's samples at once (``t`` passes :func:`lanes_ok`)."""
    applied = (lanes.random() < t.p).tolist()
    return [{"applied": a, **p} for a, p in zip(applied, t.draw_lanes(lanes, sizes))]


def step_size(t: Transform, params: dict, size: tuple[int, int]) -> tuple[int, int]:
    """The output size of one step's recorded parameters (``size`` where it did not apply)."""
    return t.out_size(params, size) if params.get("applied", True) else size


def map_step(t: Transform, params: dict, size: tuple[int, int]) -> tuple[np.ndarray,
                                                                          tuple[int, int]]:
    """``t``'s matrix and output size for one step's recorded parameters: the identity and the
    same size where it did not apply."""
    if not params.get("applied", True):
        return geometry.identity(), size
    return t.map(params, size)


def _renamed(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated and goes in warpkit 0.3: use {new}",
                  DeprecationWarning, stacklevel=3)


#: the format :meth:`Transform.to_dict` writes: 4 since GridDistortion lays its cells as
#: albumentations 2 does (before, in equal cells: format 3 and older read back so), 3 since
#: PiecewiseAffine's default map is albumentations 2's (format 2 wrote its triangles without
#: naming them: read back so), 2 since warpkit.augment's sizes are (height, width); a dict
#: without ``"format"`` is of format 1, written when they were (width, height)
DICT_FORMAT = 4


def from_dict(d: dict, fmt: int | None = None, nested: bool = False,
              nonserializable: dict | None = None) -> Transform:
    """A transform from :meth:`Transform.to_dict`'s data (``fmt``, ``nested``: a pipeline's
    step, of its pipeline's format). A dict of format 1 (no ``"format"`` key: written when sizes
    were (width, height)) whose sizes are not square is refused, naming them, rather than read
    with width and height swapped; its steps' own resampling options, which pipelines ignored
    then, are left out. A PiecewiseAffine of format 1 or 2 keeps the triangles it was written
    with (``method="triangles"``: its default then), a GridDistortion of format 1 to 3 its
    equal cells (``cells="even"``). A ``Lambda`` is written by its name: ``nonserializable`` (name ->
    Lambda) gives it back."""
    if not isinstance(d, dict) or d.get("type") not in _REGISTRY:
        raise ValueError(f"a transform must be a dict with a 'type' among "
                         f"{', '.join(sorted(_REGISTRY))}; got {d!r}")
    kwargs = {k: v for k, v in d.items() if k not in ("type", "format")}
    fmt = d.get("format", fmt if fmt is not None else 1)
    if fmt not in (1, 2, 3, DICT_FORMAT):
        raise ValueError(f"{d['type']}: format must be 1, 2, 3 or {DICT_FORMAT}, got {fmt!r}")
    cls = _REGISTRY[d["type"]]
    if fmt == 1 and "size" in kwargs and kwargs["size"] is not None \
            and not isinstance(kwargs["size"], numbers.Integral) and len(set(kwargs["size"])) > 1:
        raise ValueError(
            f"{d['type']} size={kwargs['size']!r}: this pipeline data has no \"format\", so "
            f"it was written when warpkit.augment's sizes were (width, height); sizes are "
            f"(height, width) now. Swap each non-square size and add \"format\": {DICT_FORMAT} "
            f"at the top (or save the pipeline again)")
    if fmt == 1 and nested and issubclass(cls, Resampling):
        # written when a pipeline ignored its steps' own resampling options: still ignored
        kwargs = {k: v for k, v in kwargs.items() if k not in Sampling._fields}
    if fmt < 3 and d["type"] == "PiecewiseAffine":  # (written before it had a method)
        kwargs.setdefault("method", "triangles")
    if fmt < 4 and d["type"] == "GridDistortion":  # (written when its cells were equal)
        kwargs.setdefault("cells", "even")
    if d["type"] == "Lambda":
        from ._host import lambda_from_data

        return lambda_from_data(kwargs, nonserializable)
    if "transforms" in kwargs:
        kwargs["transforms"] = [from_dict(t, fmt, True, nonserializable)
                                for t in kwargs["transforms"]]
    return cls(**kwargs)


class OneOf(Transform):
    """Apply one of ``transforms``, chosen with probabilities proportional to their ``p``
    (as albumentations' OneOf); the whole applies with probability ``p``."""

    keeps_axes = True
    #: a batch's draw is :meth:`draw_seen`'s (lanes_ok: written by one class)
    _LANE_PARTS = (("draw_seen", "draw_lanes"),)

    def __init__(self, transforms: Sequence[Transform], p: float = 1.0) -> None:
        super().__init__(p)
        self.transforms = transform_list(transforms)
        w = self._choice_weights()
        if w.sum() <= 0:
            raise ValueError("OneOf needs a transform with p > 0")
        self._weights = w / w.sum()

    def _choice_weights(self) -> np.ndarray:
        """How much each transform weighs in the choice: its ``p``, as albumentations'."""
        return np.array([t.p for t in self.transforms], np.float64)

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        k = int(rng.choice(len(self.transforms), p=self._weights))
        return {"choice": k, "params": draw_params(self.transforms[k], rng, size, seen)}

    def draw_lanes(self, lanes, sizes):
        """:meth:`draw` for a batch: each lane's choice as numpy's ``choice`` makes it (one
        double, placed in the weights' normalised cumulative sum), then each transform draws
        for the lanes that chose it (:class:`~warpkit.augment._lanes.SubLanes`)."""
        from ._lanes import SubLanes

        cdf = self._weights.cumsum()
        cdf /= cdf[-1]
        choice = cdf.searchsorted(lanes.random(), side="right")
        out: list = [None] * len(sizes)
        for k, t in enumerate(self.transforms):
            rows = np.flatnonzero(choice == k)
            if len(rows):
                drawn = t.draw_lanes(SubLanes(lanes, rows), [sizes[i] for i in rows.tolist()])
                for i, p in zip(rows.tolist(), drawn):
                    out[i] = {"choice": k, "params": p}
        return out

    def maps(self, plist, sizes):
        """The batch's maps: the identity where it did not apply, else the chosen transform's
        (each transform's :meth:`~Transform.maps` for the samples that chose it); None if one
        of those has stages of its own."""
        chosen = np.array([p["choice"] if p.get("applied", True) else -1 for p in plist])
        groups = [(t, idx, [plist[i]["params"] for i in idx])
                  for k, t in enumerate(self.transforms)
                  for idx in [np.flatnonzero(chosen == k).tolist()] if idx]
        return grouped_maps(sizes, groups)

    @property
    def reads(self) -> frozenset:  # type: ignore[override]
        return reads_any(self.transforms)

    def map(self, params, size):
        return self.transforms[params["choice"]].map(params["params"], size)

    def applied_steps(self, params):
        if params.get("applied", True):
            yield from self.transforms[params["choice"]].applied_steps(params["params"])

    def stages(self, params, size):
        if not params.get("applied", True):
            return [geometry.identity()], size
        t = self.transforms[params["choice"]]
        return t.stages({"applied": True, **params["params"]}, size)

    def config(self):
        return {"transforms": [t.data() for t in self.transforms]}


def grouped_maps(sizes: list[tuple[int, int]], groups: list) -> tuple | None:
    """A batch's maps made group by group, as a step that chooses among transforms makes them:
    ``groups`` holds (a transform, the positions of the samples it applies to, their
    parameters for it); the identity and the input's size elsewhere; None if a group's
    transform has stages of its own."""
    mats = np.tile(geometry.IDENTITY, (len(sizes), 1, 1))
    outs = list(sizes)
    for t, idx, params in groups:
        got = t.maps(params, [sizes[i] for i in idx])
        if got is None:
            return None
        mats[idx] = got[0]
        for i, o in zip(idx, got[1]):
            outs[i] = o
    return mats, outs


class SomeOf(Transform):
    """Apply ``n`` of ``transforms``, as albumentations 2.0.8's SomeOf: with probability ``p``,
    ``n`` of them chosen uniformly (their ``p`` does not weigh the choice; without
    ``replace`` each at most once, ``n`` capped at their count), applied in their list's
    order, each with its own probability. Recorded: ``chosen`` (the positions, sorted) and
    each chosen step's parameters (``steps``), as a pipeline of those steps records them.
    Steps that run on the host (Lambda, WebP, inpainting, ...) are refused inside it.

    Example:
        >>> from warpkit.augment import HorizontalFlip, SomeOf, VerticalFlip, stream
        >>> t = SomeOf([HorizontalFlip(p=1), VerticalFlip(p=1), HorizontalFlip(p=0)], n=2)
        >>> p = t.draw(stream(seed=0), (64, 48))
        >>> len(p["chosen"]), p["chosen"] == sorted(p["chosen"]), len(p["steps"])
        (2, True, 2)
    """

    keeps_axes = True

    def __init__(self, transforms: Sequence[Transform], n: int = 1, replace: bool = False,
                 p: float = 1.0) -> None:
        super().__init__(p)
        self.transforms = transform_list(transforms)
        if not self.transforms:
            raise ValueError("SomeOf needs at least one transform")
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"SomeOf n must be a whole number >= 1, got {n!r}")
        if not isinstance(replace, bool):
            raise ValueError(f"SomeOf replace must be True or False, got {replace!r}")
        self.replace = replace
        # (albumentations caps n at the count without replacement, with a warning)
        self.n = int(n) if replace else min(int(n), len(self.transforms))
        from ._host import is_host

        held = next((c for t in self.transforms for c in all_steps(t) if is_host(c)), None)
        if held is not None:
            raise ValueError(f"SomeOf holds {type(held).__name__}, which runs on the host "
                             f"between two passes: put it in the pipeline or a OneOf")
        self._subs: dict = {}

    def _sub(self, chosen: Sequence[int]) -> Transform:
        """The pipeline of the steps at positions ``chosen`` (made once per choice)."""
        key = tuple(chosen)
        if key not in self._subs:
            from ._compose import Compose

            if len(self._subs) >= 256:  # (RandomOrder's orders of many steps: kept bounded)
                self._subs.clear()
            self._subs[key] = Compose([self.transforms[i] for i in key])
        return self._subs[key]

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def _order(self, chosen: list[int]) -> list[int]:
        """The chosen steps in the order they apply: their list's (RandomOrder: as drawn)."""
        return sorted(chosen)

    def draw_seen(self, rng, size, seen):
        chosen = self._order(rng.choice(len(self.transforms), size=self.n,
                                        replace=self.replace).tolist())
        return {"chosen": chosen, **self._sub(chosen).draw_seen(rng, size, seen)}

    def maps(self, plist, sizes):
        """The batch's maps, each choice's pipeline for the samples that made it; None if one
        of those has stages of its own."""
        by_choice: dict = {}
        for i, p in enumerate(plist):
            if p.get("applied", True):
                by_choice.setdefault(tuple(p["chosen"]), []).append(i)
        return grouped_maps(sizes, [(self._sub(c), idx, [plist[i] for i in idx])
                                    for c, idx in by_choice.items()])

    @property
    def reads(self) -> frozenset:  # type: ignore[override]
        return reads_any(self.transforms)

    def map(self, params, size):
        return self._sub(params["chosen"]).map(params, size)

    def applied_steps(self, params):
        if params.get("applied", True):
            yield from self._sub(params["chosen"]).applied_steps(params)

    def stages(self, params, size):
        if not params.get("applied", True):
            return [geometry.identity()], size
        return self._sub(params["chosen"]).stages(params, size)

    def config(self):
        return {"transforms": [t.data() for t in self.transforms], "n": self.n,
                "replace": self.replace}


class RandomOrder(SomeOf):
    """albumentations' RandomOrder: :class:`SomeOf`'s choice (``n`` of ``transforms``,
    uniformly), the chosen steps applied in the order they were drawn, each with its own
    probability; ``chosen`` records that order.

    Example:
        >>> from warpkit.augment import HorizontalFlip, RandomOrder, VerticalFlip, stream
        >>> t = RandomOrder([HorizontalFlip(p=1), VerticalFlip(p=1)], n=2)
        >>> sorted(t.draw(stream(seed=0), (64, 48))["chosen"])
        [0, 1]
    """

    def _order(self, chosen: list[int]) -> list[int]:
        return list(chosen)


class OneOrOther(OneOf):
    """albumentations' OneOrOther: ``first`` with probability ``p``, else ``second`` (or
    ``transforms``' first and last), applied whatever their own ``p`` (albumentations forces
    the one it picks): a :class:`OneOf` of the two, weighted ``p`` and ``1 - p``, which
    always applies.

    Example:
        >>> from warpkit.augment import Blur, HorizontalFlip, OneOrOther
        >>> t = OneOrOther(HorizontalFlip(p=0.1), Blur(p=0.1), p=0.7)
        >>> t.p, t._weights.tolist()
        (1.0, [0.7, 0.30000000000000004])
    """

    def __init__(self, first: Transform | None = None, second: Transform | None = None,
                 transforms: Sequence[Transform] | None = None, p: float = 0.5) -> None:
        if transforms is None:
            if first is None or second is None:
                raise ValueError("OneOrOther takes first and second, or transforms")
            transforms = [first, second]
        chosen = transform_list(transforms)
        if len(chosen) < 2:
            raise ValueError(f"OneOrOther needs two transforms, got {len(chosen)}")
        self.first_p = probability(p)
        super().__init__(chosen, p=1.0)

    def _choice_weights(self) -> np.ndarray:
        """The first with probability ``p``, the last with the rest, the others never."""
        w = np.zeros(len(self.transforms))
        w[0], w[-1] = self.first_p, 1.0 - self.first_p
        return w

    def config(self):
        return {"transforms": [t.data() for t in self.transforms], "p": self.first_p}

    def __repr__(self) -> str:
        return f"OneOrOther(transforms={self.config()['transforms']!r}, p={self.first_p!r})"


def keeps_axes(t: Transform) -> bool:
    """Whether ``t`` and everything it holds keep the axes (:attr:`Transform.keeps_axes`)."""
    return t.keeps_axes and all(keeps_axes(c) for c in getattr(t, "transforms", ()))


def all_steps(t: Transform):
    """``t`` and the transforms it holds, at any depth."""
    yield t
    for c in getattr(t, "transforms", ()):
        yield from all_steps(c)


def leaves(t: Transform) -> list[Transform]:
    """The steps ``t`` is made of: a container's (OneOf, a nested Compose, ...) at any depth,
    else ``t`` itself."""
    return [s for s in all_steps(t) if not getattr(s, "transforms", None)]


def contains(t: Transform, cls: type) -> bool:
    """Whether ``t`` is, or holds at any depth, a transform of class ``cls``."""
    return isinstance(t, cls) or any(contains(c, cls) for c in getattr(t, "transforms", ()))


def passed_keys(t: Transform) -> tuple[str, ...]:
    """The call keywords the draws of ``t`` (or of the transforms it holds, at any depth) read
    as they are given (:attr:`Transform.reads` "passed": RandomCropNearBBox's box,
    HistogramMatching's references, OverlayElements' elements)."""
    key = getattr(t, "metadata_key", None)  # (a pipeline's is its Mosaic's: a target of its own)
    own = (t.cropping_bbox_key,) if "passed" in t.reads and hasattr(t, "cropping_bbox_key") \
        else (key,) if "passed" in t.reads and isinstance(key, str) \
        and not hasattr(t, "transforms") else ()
    return tuple(dict.fromkeys(own + sum((passed_keys(c) for c in getattr(t, "transforms", ())),
                                         ())))


def shared_keys(t: Transform) -> tuple[str, ...]:
    """The call keywords that the transforms of ``t`` (at any depth) read whole, one value for
    every sample of a call (HistogramMatching's reference list), not one per sample."""
    own = (t.metadata_key,) if getattr(t, "shares_passed", False) else ()
    return tuple(dict.fromkeys(own + sum((shared_keys(c) for c in getattr(t, "transforms", ())),
                                         ())))


def transform_list(transforms: Any) -> list[Transform]:
    if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform)
                                                        for t in transforms):
        raise TypeError(f"transforms must be a list of warpkit.augment transforms, got "
                        f"{transforms!r}")
    return list(transforms)


def crop_map(x0: float, y0: float, w: float, h: float, out: tuple[int, int]) -> np.ndarray:
    """The map that takes the pixel-edge box (x0, y0, w, h) of the source onto an output of
    ``out`` = (width, height): edge coordinate e goes to (e - x0) * scale."""
    return np.array(crop_row(x0, y0, w, h, out)).reshape(3, 3)


def crop_row(x0: float, y0: float, w: float, h: float, out: tuple[int, int]) -> list[float]:
    """:func:`crop_map`'s nine entries (row-major) in Python floats."""
    sx, sy = out[0] / w, out[1] / h
    # pixel centres: x' = (x + 0.5 - x0) * sx - 0.5
    return [sx, 0.0, (0.5 - x0) * sx - 0.5, 0.0, sy, (0.5 - y0) * sy - 0.5, 0.0, 0.0, 1.0]


#: the identity's nine entries, for :func:`row_maps`
IDENTITY_ROW = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]


def row_maps(plist: list[dict], sizes: list[tuple[int, int]], row: Any
             ) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """:meth:`Transform.maps` from ``row(params, size)``: one applied sample's nine entries
    (Python floats, the same arithmetic as its :meth:`~Transform.map`) and output size; the
    identity and the input's size where a step did not apply. One array for the batch instead
    of a small one per sample."""
    rows, outs = [], []
    for p, s in zip(plist, sizes):
        r, o = row(p, s) if p.get("applied", True) else (IDENTITY_ROW, s)
        rows.append(r)
        outs.append(o)
    return np.array(rows, np.float64).reshape(-1, 3, 3), outs


def about_centres(m2: np.ndarray, size: tuple[int, int], out: tuple[int, int]) -> np.ndarray:
    """The 3x3 map applying the linear part ``m2`` about the input's centre, which lands on the
    output's centre."""
    cin = ((size[0] - 1) / 2, (size[1] - 1) / 2)
    cout = ((out[0] - 1) / 2, (out[1] - 1) / 2)
    return geometry.translation(*cout) @ m2 @ geometry.translation(-cin[0], -cin[1])


def _sampling_option(name: str) -> property:
    def get(self) -> Any:
        return getattr(self.sampling, name)

    def put(self, value: Any) -> None:
        self.sampling = Sampling.of(**{**self.sampling._asdict(), name: value})
        self.given_options = self.given_options | {name}

    return property(get, put, doc=f"The resampling's {name} (of :attr:`sampling`).")


class Resampling:
    """A transform that resamples images itself (:class:`~warpkit.augment.Compose`,
    :class:`~warpkit.augment.RandomAffine`): its ``interpolation``, ``padding``, ``fill`` and
    ``antialias`` are one :class:`~warpkit._options.Sampling` value, :attr:`sampling`, checked
    when set and passed to the warps as it is."""

    sampling: Sampling = Sampling()
    #: the options set explicitly (given to the constructor, or set as attributes); the others
    #: are :class:`~warpkit._options.Sampling`'s defaults
    given_options: frozenset = frozenset()
    interpolation = _sampling_option("interpolation")
    padding = _sampling_option("padding")
    fill = _sampling_option("fill")
    antialias = _sampling_option("antialias")

    def set_sampling(self, **options: Any) -> None:
        """:attr:`sampling` from the options given (None: not given, the default)."""
        given = {k: v for k, v in options.items() if v is not None}
        self.sampling = Sampling.of(**given)
        self.given_options = frozenset(given)

    def sampling_config(self, given_only: bool = False) -> dict:
        """The four options as plain data, for :meth:`Transform.config` (``given_only``: those
        set explicitly)."""
        s = self.sampling._asdict()
        return {k: plain(v) for k, v in s.items() if not given_only or k in self.given_options}
