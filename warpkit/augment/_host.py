"""Steps that run on the host between passes: albumentations' ``Lambda`` (a Python function of
the image, the masks, the boxes or the keypoints), and the steps that no kernel runs
(``Superpixels``, ``TextImage``; and, by their options, ImageCompression to WebP, the
dropouts' inpainting, HEStain's fitted matrices, Equalize's mask function), which say so
(:func:`is_host`).

A pipeline is otherwise one pass on the device. A host step splits it: the steps before it run
as one pass whose result stays in the image's own type and layout (no model input), the step
runs on those arrays on the host, and the steps after it run as a second pass, from its results,
to the pipeline's output. Every sample's parameters are still drawn once, for the whole
pipeline, from its ``(seed, epoch, index)`` stream, so the call replays from ``out["params"]``
as any other.

Conventions (as albumentations calls its ``Lambda``'s functions, ``fn(value, shape=...)``):

- an image is an (H, W) or (H, W, C) numpy array of the image's dtype, as the steps before
  left it; a mask likewise; a Lambda may give them back at another (height, width), the same
  for a sample's images and masks (the steps after it are then drawn again for that size);
- boxes are an (N, 4 + L) float array: albumentations' normalised corners (x_min, y_min,
  x_max, y_max as fractions of the image's width and height), then one column per label field
  (each row's index, where albumentations puts its encoded labels: keep them with their row,
  so that the labels follow the rows a function keeps);
- keypoints are an (N, 5 + L) float array: x, y, z (0), the angle in radians, the scale (0
  where the format has none), then the label columns as the boxes';
- ``shape`` is the image's shape as the step finds it.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import geometry
from .._checks import flag
from .._images import as_image
from .._memory import is_device_array
from .._threads import cores, pool
from ._base import (IDENTITY_ROW, OneOf, Transform, all_steps, contains, leaves, row_maps,
                    transform_list)
from ._colour import IdentityStep
from ._targets import from_xyxy, select, to_xyxy

#: the targets a Lambda has a function for, by albumentations' names
LAMBDA_TARGETS = ("image", "mask", "keypoints", "bboxes")


class HostStep(IdentityStep):
    """A step the host runs between two passes (see the module's notes): it moves nothing (the
    identity, the same size) and changes the arrays it is given."""

    #: the targets (:data:`LAMBDA_TARGETS`' names) this step changes
    changes: frozenset = frozenset()
    #: whether a call's samples may run on the helper threads, several at once
    threads: bool = True

    def run(self, target: str, value: Any, params: dict, shape: tuple) -> Any:
        """The new value of one sample's ``target`` (an array as the module's notes say)."""
        raise NotImplementedError


class Lambda(HostStep):
    """albumentations' ``Lambda``: a function of each target, called on the host between two
    passes as ``fn(value, shape=...)`` (see :mod:`warpkit.augment._host` for what each gets).
    An image or mask function must give back the dtype and channels it was given, and may
    change the (height, width) (a crop, a pad, a resize: the steps after it are drawn for the
    new size, and the image's masks must get the same); a boxes or keypoints function may keep
    fewer rows (their labels follow them). Where the size changes, boxes stay where they are in
    the image's fractions (albumentations holds them normalised: they scale with it) and
    keypoints in pixels, unless a function moves them.

    A call's images and masks go through the functions on warpkit's helper threads, several
    samples at once (OpenCV and most of numpy let them run side by side; albumentations'
    DataLoader workers run them in processes): a function that shares state between calls
    without a lock takes ``threads=False``, one sample after another (warpkit's own keyword).

    ``name`` is what :meth:`to_dict` writes in the function's place (albumentations' rule: a
    Lambda without a name is not written), and what ``Compose.from_dict(d,
    nonserializable={name: Lambda(...)})`` and ``from_albumentations(..., nonserializable=...)``
    read back.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, HorizontalFlip, Lambda
        >>> def threshold(img, **kw):
        ...     return np.where(img > 127, 255, 0).astype(img.dtype)
        >>> aug = Compose([HorizontalFlip(p=1), Lambda(image=threshold)])
        >>> img = np.array([[0, 200], [100, 255]], np.uint8)
        >>> aug(image=img, seed=0)["image"].tolist()              # doctest: +SKIP
        [[255, 0], [255, 0]]
    """

    def __init__(self, image: Callable[..., Any] | None = None,
                 mask: Callable[..., Any] | None = None,
                 keypoints: Callable[..., Any] | None = None,
                 bboxes: Callable[..., Any] | None = None, name: str | None = None,
                 p: float = 1.0, threads: bool = True) -> None:
        super().__init__(p)
        self.threads = flag(threads, "threads")
        self.functions = {}
        for target, fn in zip(LAMBDA_TARGETS, (image, mask, keypoints, bboxes)):
            if fn is not None and not callable(fn):
                raise TypeError(f"Lambda({target}=...) must be a function, got "
                                f"{type(fn).__name__}")
            if fn is not None:
                self.functions[target] = fn
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Lambda(name=...) must be a string, got {type(name).__name__}")
        self.name = name
        self.changes = frozenset(self.functions)

    def config(self) -> dict:
        return {"name": self.name, "threads": self.threads}

    @property
    def unwritable(self) -> str | None:
        return UNNAMED if self.name is None else None

    def __repr__(self) -> str:
        fns = ", ".join(f"{k}={getattr(f, '__name__', f)!s}" for k, f in self.functions.items())
        return f"Lambda({fns}{', ' if fns else ''}name={self.name!r}, p={self.p})"

    #: its functions may give back another (height, width): the samples they changed are drawn
    #: again for it (``_executor._resized``), the shape recorded in the parameters
    reshapes = True

    def run(self, target, value, params, shape):
        fn = self.functions.get(target)
        return value if fn is None else fn(value, shape=shape)

    def out_size(self, params, size):
        shape = params.get("shape")
        return size if shape is None else (int(shape[1]), int(shape[0]))

    def map(self, params, size):
        return geometry.identity(), self.out_size(params, size)

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, lambda p, s: (IDENTITY_ROW, self.out_size(p, s)))


class SelectiveChannelTransform(HostStep):
    """albumentations' SelectiveChannelTransform: ``transforms`` applied to the image's
    ``channels`` alone, the other channels as they are. On the host between two passes (see
    :mod:`warpkit.augment._host`): the channels taken out (a copy), a warpkit pipeline of the
    transforms run on them with the parameters drawn for this step (recorded as
    ``pipeline``), and put back; masks, boxes and keypoints are not touched, as in
    albumentations (its transforms see the image alone). Every image target of the call goes
    through it (albumentations': ``image``). The transforms may not change the size, read the
    targets (the box-safe crops), make the model's input or run on the host themselves.
    ``passes``, ``edges``: the pipeline's (:class:`~warpkit.augment.Compose`), warpkit's own
    keywords.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, InvertImg, SelectiveChannelTransform
        >>> aug = Compose([SelectiveChannelTransform([InvertImg(p=1)], channels=[1])])
        >>> img = np.zeros((2, 2, 4), np.uint8)
        >>> aug(image=img, seed=0)["image"][0, 0].tolist()          # doctest: +SKIP
        [0, 255, 0, 0]
    """

    changes = frozenset({"image"})
    threads = False  # (each sample's channels go through a warpkit call of their own)

    def __init__(self, transforms: Any, channels: Any = (0, 1, 2), p: float = 1.0,
                 passes: str = "one", edges: str = "output") -> None:
        super().__init__(p)
        from ._compose import Compose

        steps = transform_list(transforms)
        if isinstance(channels, (str, bytes)) or not hasattr(channels, "__iter__"):
            raise ValueError(f"SelectiveChannelTransform channels must be a list of channel "
                             f"indices, got {channels!r}")
        channels = list(channels)
        if not channels or any(isinstance(c, bool) or not isinstance(c, numbers.Integral)
                               or c < 0 for c in channels) or len(set(channels)) != len(channels):
            raise ValueError(f"SelectiveChannelTransform channels must be distinct indices "
                             f">= 0, at least one, got {channels!r}")
        self.channels = tuple(int(c) for c in channels)
        inner = Compose(steps, passes=passes, edges=edges)
        held = next((t for t in all_steps(inner) if t is not inner and (
            is_host(t) or t.reads or type(t).__name__ == "Mosaic")), None)
        if held is not None:
            raise ValueError(f"SelectiveChannelTransform holds {type(held).__name__}, which "
                             f"{'runs on the host' if is_host(held) else 'reads the targets'}"
                             f": its transforms see the image's channels alone")
        self.pipeline = inner

    def draw(self, rng, size):
        return {"pipeline": self.pipeline.draw(rng, size)}

    def run(self, target, value, params, shape):
        if value.ndim != 3 or max(self.channels) >= value.shape[2]:
            raise ValueError(f"SelectiveChannelTransform(channels={list(self.channels)}) needs "
                             f"an image with those channels, got shape {value.shape}")
        picked = list(self.channels)
        sub = np.ascontiguousarray(value[..., picked])
        out = np.asarray(self.pipeline(image=sub, params=params["pipeline"])["image"])
        if out.shape != sub.shape or out.dtype != sub.dtype:
            raise ValueError(f"SelectiveChannelTransform's transforms must keep the channels' "
                             f"shape and dtype ({sub.shape} {sub.dtype}), gave {out.shape} "
                             f"{out.dtype}")
        value[..., picked] = out
        return value

    def config(self) -> dict:
        return {"transforms": [t.data() for t in self.pipeline.transforms],
                "channels": list(self.channels),
                **({"passes": self.pipeline.passes} if self.pipeline.passes != "one" else {}),
                **({"edges": self.pipeline.edges} if self.pipeline.edges != "output" else {})}


#: why a pipeline with a Lambda that has no name is not written
UNNAMED = ("a Lambda is written without its functions, by its name: give it one "
           "(Lambda(name='my_step', image=...)) and pass nonserializable={'my_step': the Lambda} "
           "to Compose.from_dict")


def lambda_from_data(kwargs: dict, nonserializable: dict | None) -> Transform:
    """A Lambda from :meth:`Lambda.to_dict`'s data (``{"name": ..., "p": ...}``): the one
    ``nonserializable`` holds under its name."""
    name = kwargs.get("name")
    if name is None:
        raise ValueError(UNNAMED)
    held = (nonserializable or {}).get(name)
    if held is None:
        raise ValueError(f"Lambda {name!r} is written without its functions: pass "
                         f"nonserializable={{{name!r}: Lambda(...)}}"
                         + (f" (given: {sorted(nonserializable)})" if nonserializable else ""))
    if not isinstance(held, Lambda):
        raise TypeError(f"nonserializable[{name!r}] must be a warpkit.augment.Lambda, got "
                        f"{type(held).__name__}")
    return held


def is_host(t: Transform) -> bool:
    """Whether ``t`` runs on the host between two passes: a :class:`HostStep`, or a transform
    whose instance says so (``runs_on_host``: ImageCompression to WebP)."""
    return isinstance(t, HostStep) or bool(getattr(t, "runs_on_host", False))


def host_children(t: Transform) -> list[int]:
    """The positions of a OneOf's host steps among its transforms (none for other steps)."""
    return [i for i, c in enumerate(t.transforms) if is_host(c)] \
        if isinstance(t, OneOf) else []


def host_positions(pipe: Any) -> list[int]:
    """The top-level positions where a pipeline (or a list of steps) runs on the host between
    two passes: its host steps, and its OneOfs that hold one (none: one pass)."""
    steps = pipe if isinstance(pipe, list) else pipe.transforms
    return [j for j, t in enumerate(steps) if is_host(t) or host_children(t)]


def _changes(t: Transform) -> frozenset:
    """The targets a split point changes (a OneOf's: its host steps')."""
    if is_host(t):
        return t.changes
    return frozenset().union(*(t.transforms[i].changes for i in host_children(t)))


def _host_within(t: Transform) -> Transform | None:
    """The first host step ``t`` holds at any depth (itself included)."""
    return next((s for s in all_steps(t) if is_host(s)), None)


def check_host_steps(transforms: list) -> None:
    """Refuse a host step deeper than a pipeline's own steps or the transforms of its OneOfs,
    ToRGB after one (the function would see the channels ToRGB makes before the first pass),
    and a step whose draw reads the targets after one that changes them."""
    from ._convert import ToRGB

    for t in transforms:
        inner = [t] if is_host(t) else [c for i, c in enumerate(t.transforms)
                                        if i not in host_children(t)] \
            if host_children(t) else [t]
        for c in inner:
            h = None if is_host(c) else _host_within(c)
            if h is not None:
                where = type(c).__name__ if c is t else f"{type(c).__name__} in OneOf"
                raise ValueError(f"{_name(h)} inside {where} is not supported: it runs on the "
                                 f"host between two passes, as a step of the pipeline or of a "
                                 f"OneOf of the pipeline")
    points = [t for t in transforms if is_host(t) or host_children(t)]
    if not points:
        return
    for j, t in enumerate(transforms):
        held = [t] if is_host(t) else [t.transforms[i] for i in host_children(t)]
        placed = [h for h in held if getattr(h, "after_geometry", False)]
        moving = [type(a).__name__ for a in transforms[j + 1:] if moves_pixels(a)]
        if placed and moving:
            raise ValueError(f"{type(placed[0]).__name__}(fill={placed[0].fill!r}) with "
                             f"geometric steps after it ({', '.join(moving)}) is not supported: "
                             f"its holes are the output's (the image's inpainted on the host, "
                             f"the targets' in the last pass); put it after the geometry")
    first = transforms.index(points[0])
    if any(contains(t, ToRGB) for t in transforms[first:]):
        raise ValueError(f"ToRGB after {_name(points[0])} is not supported: warpkit repeats the "
                         f"channel before the first pass, so the host step would see three "
                         f"channels; put ToRGB before it")
    changed: set = set()
    for t in transforms:
        if is_host(t) or host_children(t):
            changed |= _changes(t) & {"mask", "bboxes"}
        elif changed and t.reads:
            raise ValueError(f"{type(t).__name__} after a Lambda that changes the "
                             f"{' and '.join(sorted(changed))} is not supported: its draw reads "
                             f"the targets, which warpkit draws from before the first pass")


def moves_pixels(t: Transform) -> bool:
    """Whether ``t`` (or a transform it holds) moves pixels: a geometric step."""
    return any(not isinstance(u, IdentityStep) for u in leaves(t))


def _name(t: Transform) -> str:
    """A host step as a message names it (ImageCompression with its compression type)."""
    kind = getattr(t, "compression_type", None)
    return f"{type(t).__name__}(compression_type={kind!r})" if kind else type(t).__name__


#: the key of a sample's values of a step's ``sample_keys`` in the parameters its ``run`` gets
SAMPLE = "\0sample"


def _sample_values(step, keys, res, names, passed, kind, k, n) -> dict:
    """Sample k's values of ``keys``: its images and masks as the pass left them (numpy), the
    keywords the call passed (a batch or list call's: one per sample)."""
    out = {}
    for key in keys:
        if key in names["images"] or key in names["masks"]:
            v = res[key]
            out[key] = _read(v if kind == "single" else v[k])[0]
        elif key in passed:
            v = passed[key]
            if kind != "single" and (not hasattr(v, "__len__") or len(v) != n):
                raise ValueError(f"{key} for {n} samples must be a sequence of {n}, one per "
                                 f"sample ({type(step).__name__} reads it)")
            out[key] = v if kind == "single" else v[k]
        else:
            known = [*names["images"], *names["masks"], *passed]
            raise ValueError(f"{type(step).__name__} reads {key!r}, which the call does not "
                             f"give (it gives {', '.join(known) or 'none'}): pass it, or an "
                             f"image or mask target of that name")
    return out


def run_host_step(step: HostStep, params: list[dict], res: dict, names: dict, shapes: list,
                  kind: str, pipe: Any, own: bool, passed: dict | None = None) -> None:
    """``step`` on a call's arrays in ``res`` (name -> value as a pass gives them back, changed
    in place), each sample where it applied with its own parameters (``params``: each sample's
    step parameters, None where the pipeline did not apply). ``names``: the targets' names by
    kind (``images``, ``masks``, ``mask_lists``, ``boxes``, ``keypoints``); ``shapes`` each
    sample's image shape ((H, W) or (H, W, C)), which every function is given as ``shape`` (as
    albumentations gives it). ``own``: the images and masks are a pass's results (not the
    call's), which the functions may change in place. ``passed``: the call's keywords that are
    not targets (what a step's ``sample_keys`` may name besides images and masks)."""
    on = [p is not None and p.get("applied", True) for p in params]
    if not any(on):
        return
    single = kind == "single"
    keys = getattr(step, "sample_keys", ())
    if keys:  # (each sample's values of them, in a copy of its parameters)
        params = [{**p, SAMPLE: _sample_values(step, keys, res, names, passed, kind, k,
                                                len(params))} if o else p
                  for k, (p, o) in enumerate(zip(params, on))]
    for target, group in (("image", names["images"]), ("mask", names["masks"])):
        if target not in step.changes:
            continue
        for name in group:
            res[name] = _each_array(step, target, name, res[name], params, on, single, own,
                                    shapes)
    if "mask" in step.changes:
        for name in names["mask_lists"]:
            value = res[name]
            per = [value] if single else list(value)
            got = _each(step, lambda k: [_one(step, "mask", f"{name}[{k}][{i}]", m, params[k],
                                              own, shapes[k])
                                         for i, m in enumerate(per[k])] if on[k] else per[k],
                        len(per))
            res[name] = got[0] if single else got
    after = _shapes_after(step, res, names, kind, shapes)
    if "bboxes" in step.changes or after != shapes:
        for name in names["boxes"]:
            _boxes(step, res, name, params, on, shapes, after, single, pipe,
                   pipe.label_fields if name in ("boxes", "bboxes") else ())
    if "keypoints" in step.changes:
        for name in names["keypoints"]:
            _keypoints(step, res, name, params, on, shapes, single, pipe,
                       pipe.keypoint_label_fields if name == "keypoints" else ())


def _shapes_after(step, res: dict, names: dict, kind: str, shapes: list) -> list[tuple]:
    """Each sample's image shape after ``step`` (``shapes`` before it): a step that may change
    sizes (a Lambda) must give every image and mask of a sample the same (height, width)."""
    if not getattr(step, "reshapes", False):
        return shapes
    seen: list = [None] * len(shapes)

    def note(k: int, name: str, hw: tuple) -> None:
        if seen[k] is None:
            seen[k] = (name, hw)
        elif seen[k][1] != hw:
            where = "" if kind == "single" else f"[{k}]"
            raise ValueError(f"{type(step).__name__} gave {seen[k][0]}{where} "
                             f"{seen[k][1][0]}x{seen[k][1][1]} (height x width) and {name}{where} "
                             f"{hw[0]}x{hw[1]}: a sample's images and masks move through one "
                             f"map, so give each the same size")
    for name in (*names["images"], *names["masks"]):
        for k, shape in enumerate(image_shapes(res[name], kind)):
            note(k, name, shape[:2])
    for name in names["mask_lists"]:
        for k, group in enumerate([res[name]] if kind == "single" else list(res[name])):
            for m in group:
                note(k, name, image_shapes(m, "single")[0][:2])
    return [s if v is None else (*v[1], *s[2:]) for s, v in zip(shapes, seen)]


def image_shapes(value: Any, kind: str) -> list[tuple]:
    """Each sample's image shape ((H, W) or (H, W, C)) of an image target as a pass gives it
    back (an array, a batch, a list; Pillow; a device array)."""
    items = [value] if kind == "single" else \
        list(value) if isinstance(value, (list, tuple)) else [value[0]] * len(value)
    Image = sys.modules.get("PIL.Image")
    out = []
    for x in items:
        if Image is not None and isinstance(x, Image.Image):
            bands = len(x.getbands())
            out.append((x.size[1], x.size[0]) + ((bands,) if bands > 1 else ()))
        else:
            out.append(tuple(int(n) for n in x.shape))
    return out


def _each_array(step, target, name, value, params, on, single, own, shapes):
    """An image or mask target (a single array, a batch, a list; Pillow; a device array)
    through ``step``, sample by sample, given back in the form it came. ``own``: the arrays
    are a pass's results, which the functions may change in place (the call's own are
    copied first). ``shapes``: each sample's image shape, what every function is given as
    ``shape`` (a mask's function too, as albumentations gives it)."""
    if single:
        return _one(step, target, name, value, params[0], own, shapes[0]) if on[0] else value
    if isinstance(value, (list, tuple)):
        return _each(step, lambda k: _one(step, target, f"{name}[{k}]", value[k], params[k],
                                          own, shapes[k]) if on[k] else value[k], len(value))
    host, back = _read(value)
    if not (own and isinstance(value, np.ndarray) and host.flags.writeable):
        host = host.copy()

    def one(k: int) -> np.ndarray:
        x = host[k]
        return _checked(step, target, f"{name}[{k}]", x,
                        step.run(target, x, params[k], shapes[k])) if on[k] else x
    got = _each(step, one, len(host))
    if any(g.shape != host.shape[1:] for g in got):  # (a Lambda changed sizes: a list now)
        return [back(g) for g in got]
    for k, g in enumerate(got):
        if on[k]:
            host[k] = g
    return back(host)


def _each(step: HostStep, f: Callable[[int], Any], n: int) -> list:
    """``f`` of each sample 0..n-1: on the helper threads, several samples at once, where the
    step allows it (``threads``) and there are several."""
    if n < 2 or not step.threads:
        return [f(k) for k in range(n)]
    return list(pool("host", cores()).map(f, range(n)))


def _one(step, target, name, x, params, own, shape):
    a, back = _read(x)
    if not (own and a is x and a.flags.writeable):
        a = a.copy()
    return back(_checked(step, target, name, a, step.run(target, a, params, shape)))


def _checked(step, target, name, before: np.ndarray, after: Any) -> np.ndarray:
    got = np.asarray(after)
    if getattr(step, "reshapes", False):  # (the size may change: channels and dtype not)
        if got.ndim != before.ndim or got.shape[2:] != before.shape[2:] \
                or got.dtype != before.dtype or 0 in got.shape[:2]:
            raise ValueError(f"{type(step).__name__}'s {target} function must give back the "
                             f"{target}'s dtype and channels ({name}: {before.shape} "
                             f"{before.dtype}; its height and width may change), got "
                             f"{got.shape} {got.dtype}")
    elif got.shape != before.shape or got.dtype != before.dtype:
        raise ValueError(f"{type(step).__name__}'s {target} function must give back the "
                         f"{target}'s shape and dtype ({name}: {before.shape} {before.dtype}), "
                         f"got {got.shape} {got.dtype}: warpkit keeps the sizes it drew the "
                         f"steps after it for")
    return got


def _read(x: Any) -> tuple[np.ndarray, Callable[[np.ndarray], Any]]:
    """A pass's result (or a call's input) as the numpy array a pass reads (a Pillow image's
    pixels, converted as the warp converts them; a device array read back), and the function
    that gives a new array back in ``x``'s form (a Pillow image of the mode the warp gives
    back, a device array on ``x``'s queue)."""
    a, restore = as_image(x)
    if restore is not None:
        return a, restore
    if is_device_array(a):
        import pyopencl.array as cla

        return a.get(), lambda new: cla.to_device(x.queue, np.ascontiguousarray(new))
    return a, lambda new: new


def _boxes(step, res, name, params, on, shapes, after, single, pipe, label_fields) -> None:
    """A boxes target through ``step``'s function (as albumentations' normalised rows, with
    index columns that the labels follow), or, without one, as they are; ``after``: each
    sample's image shape after the step (the normalised rows scale with a new size)."""
    rows = [res[name]] if single else list(res[name])
    given = [f for f in label_fields if f in res]
    fields = [{f: (res[f] if single else res[f][k]) for f in given} for k in range(len(rows))]
    for k, (r, o) in enumerate(zip(rows, on)):
        r = np.asarray(r, np.float64).reshape(len(r), -1) if len(r) else np.zeros((0, 4))
        if not o:
            continue
        h, w = shapes[k][:2]
        h2, w2 = after[k][:2]
        norm = from_xyxy(to_xyxy(r[:, :4], pipe.box_format, (w, h)), "albumentations", (w, h))
        cols = len(given) + (1 if r.shape[1] > 4 else 0)
        a = np.concatenate([norm, np.repeat(np.arange(len(r), dtype=np.float64)[:, None],
                                            cols, 1)], 1)
        got = _rows(step, "bboxes", name, a, params[k], shapes[k], cols, 4, len(r)) \
            if "bboxes" in step.changes else a
        keep = got[:, 4].astype(np.int64) if cols else np.arange(len(got))
        moved = from_xyxy(to_xyxy(got[:, :4], "albumentations", (w2, h2)), pipe.box_format,
                          (w2, h2))
        rows[k] = np.concatenate([moved, r[keep, 4:]], 1)
        for f in given:
            fields[k][f] = select(fields[k][f], keep)
    res[name] = rows[0] if single else rows
    for f in given:
        res[f] = fields[0][f] if single else [x[f] for x in fields]


def _keypoints(step, res, name, params, on, shapes, single, pipe, label_fields) -> None:
    fmt = pipe.keypoint_format
    points = [res[name]] if single else list(res[name])
    vis_key = "keypoints_visible" if name == "keypoints" else f"{name}_visible"
    vis = None if vis_key not in res else ([res[vis_key]] if single else list(res[vis_key]))
    given = [f for f in label_fields if f in res]
    fields = [{f: (res[f] if single else res[f][k]) for f in given} for k in range(len(points))]
    for k, (pts, o) in enumerate(zip(points, on)):
        if not o:
            continue
        pts = np.asarray(pts, np.float64).reshape(-1, len(fmt))
        a = np.zeros((len(pts), 5 + len(given)))
        a[:, 0], a[:, 1] = pts[:, fmt.index("x")], pts[:, fmt.index("y")]
        if "z" in fmt:
            a[:, 2] = pts[:, fmt.index("z")]
        if "a" in fmt:
            a[:, 3] = np.deg2rad(pts[:, fmt.index("a")])
        if "s" in fmt:
            a[:, 4] = pts[:, fmt.index("s")]
        a[:, 5:] = np.arange(len(pts), dtype=np.float64)[:, None]
        got = _rows(step, "keypoints", name, a, params[k], shapes[k], len(given), 5, len(pts))
        keep = got[:, 5].astype(np.int64) if given else np.arange(len(got))
        new = np.empty((len(got), len(fmt)))
        new[:, fmt.index("x")], new[:, fmt.index("y")] = got[:, 0], got[:, 1]
        if "z" in fmt:
            new[:, fmt.index("z")] = got[:, 2]
        if "a" in fmt:  # (degrees in (-180, 180], as warpkit gives them)
            deg = np.rad2deg(got[:, 3])
            new[:, fmt.index("a")] = deg - 360.0 * np.ceil((deg - 180.0) / 360.0)
        if "s" in fmt:
            new[:, fmt.index("s")] = got[:, 4]
        points[k] = new
        if vis is not None:
            vis[k] = np.asarray(vis[k])[keep]
        for f in given:
            fields[k][f] = select(fields[k][f], keep)
    res[name] = points[0] if single else points
    if vis is not None:
        res[vis_key] = vis[0] if single else vis
    for f in given:
        res[f] = fields[0][f] if single else [x[f] for x in fields]


def _rows(step, target, name, a, params, shape, cols, first, n) -> np.ndarray:
    """A boxes or keypoints function's result: rows of the columns it was given, the label
    columns naming rows it was given."""
    got = np.asarray(step.run(target, a, params, shape), np.float64)
    if got.size == 0:
        return np.zeros((0, a.shape[1]))
    if got.ndim != 2 or got.shape[1] != a.shape[1]:
        raise ValueError(f"{type(step).__name__}'s {target} function must give back rows of "
                         f"{a.shape[1]} columns as it was given ({name}: {first} numbers"
                         f"{f', then {cols} label columns' if cols else ''}), got shape "
                         f"{got.shape}")
    if cols:
        idx = got[:, first]
        if not np.all((idx == np.floor(idx)) & (idx >= 0) & (idx < n)) or \
                len(set(idx.tolist())) != len(idx):
            raise ValueError(f"{type(step).__name__}'s {target} function changed the label "
                             f"columns ({name}: column {first} on, each row's index among the "
                             f"{n} it was given): keep them with their rows")
    if not np.all(np.isfinite(got[:, :first])):
        raise ValueError(f"{type(step).__name__}'s {target} function gave non-finite numbers "
                         f"({name})")
    return got


__all__ = ["HostStep", "Lambda", "SelectiveChannelTransform", "check_host_steps",
           "host_positions", "lambda_from_data", "moves_pixels", "run_host_step"]
