"""Augmentation pipelines: geometric transforms that draw their parameters as plain data and
contribute 3x3 maps; :class:`Compose` multiplies the maps and resamples each image once, and
moves masks, boxes and keypoints with the same map.

Conventions are :mod:`warpkit.geometry`'s: pixel centres at integers, x right, y down, maps go
from source to destination. Boxes are pixel-edge corners by default (``box_format``), keypoints
are (x, y) positions with pixel centres at integers, optionally followed by an angle (degrees,
counter-clockwise on screen as :func:`warpkit.geometry.rotation`) and a scale.

Randomness: every sample draws from its own counter-based stream (Philox) keyed on
``(seed, epoch, index)``, so a sample's augmentation is the same alone or inside any batch, with
any number of DataLoader workers, under fork, spawn or forkserver.
"""

from __future__ import annotations

import numbers
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._checks import choice, number, width_height
from .._options import INTERPOLATION_ALIASES, INTERPOLATIONS, PADDING_ALIASES, PADDINGS
from ..warp import check_model_input
from ._fields import merge

__all__ = ["Compose", "OneOf", "Transform", "collate", "stream"]

#: transform classes by name, for Compose.from_dict (every subclass registers itself)
_REGISTRY: dict[str, type] = {}


def stream(seed: int, epoch: int = 0, index: int = 0) -> np.random.Generator:
    """The random stream of one sample: a Philox generator keyed on ``(seed, epoch, index)``,
    the numbers of numpy's ``Philox(SeedSequence([seed, epoch, index]))``.

    Example:
        >>> a = stream(7, epoch=2, index=5).random(3)
        >>> bool((a == stream(7, epoch=2, index=5).random(3)).all())
        True
    """
    bits = np.random.Philox(0)
    _rekey(bits, seed, epoch, index)
    return np.random.Generator(bits)


def _key_entropy(seed: Any, epoch: Any, index: Any) -> list[int]:
    """``[seed, epoch, index]`` checked: integers >= 0."""
    key = []
    for name, v in (("seed", seed), ("epoch", epoch), ("index", index)):
        # a plain int skips the abstract-class checks; numpy integers pass them, bools do not
        integral = type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool))
        if not integral or v < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
        key.append(int(v))
    return key


# numpy's SeedSequence (O'Neill's seed_seq hashing, pool of 4 uint32 words), for _philox_key
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _hash_constants(n: int, init: int, mult: int) -> tuple[int, ...]:
    """The first n + 1 values of SeedSequence's hash constant: init, then times mult each step
    (the same whatever is hashed, so each step's pair is known in advance)."""
    out = [init]
    for _ in range(n):
        out.append((out[-1] * mult) & _M32)
    return tuple(out)


#: the constants of the hashes of up to 12 entropy words, and of generate_state's 4 outputs
_HA = _hash_constants(4 + 12 + 4 * 8, _INIT_A, _MULT_A)
_HB = _hash_constants(4, _INIT_B, _MULT_B)


def _philox_key(entropy: list[int]) -> tuple[int, int]:
    """``numpy.random.SeedSequence(entropy).generate_state(2, numpy.uint64)`` (the key
    ``Philox(SeedSequence(entropy))`` takes) for integers >= 0, in Python ints: numpy's object,
    its arrays and its Philox cost ~75 us a sample right after a kernel (10% of a 32-image
    OpticalDistortion batch), this ~9 (tests/test_pipeline.py checks it against numpy).
    Hash k XORs constant k and multiplies by constant k + 1 (_HA, _HB)."""
    words = []  # each integer as little-endian uint32 words, 0 as one
    for n in entropy:
        words.append(n & _M32)
        n >>= 32
        while n:
            words.append(n & _M32)
            n >>= 32
    words += [0] * (4 - len(words))
    a = _HA if len(words) <= 12 else _hash_constants(4 + 12 + 4 * (len(words) - 4), _INIT_A,
                                                       _MULT_A)
    pool = []
    for i in range(4):  # the pool, then every word mixed into every other
        v = ((words[i] ^ a[i]) * a[i + 1]) & _M32
        pool.append(v ^ (v >> 16))
    k = 4
    for i in range(len(words)):
        src = pool[i] if i < 4 else words[i]
        for j in range(4):
            if i == j:
                continue
            v = ((src ^ a[k]) * a[k + 1]) & _M32
            k += 1
            r = (_MIX_L * pool[j] - _MIX_R * (v ^ (v >> 16))) & _M32
            pool[j] = r ^ (r >> 16)
    out = []
    for i, v in enumerate(pool):  # generate_state: 4 uint32 words, read as 2 uint64
        v = ((v ^ _HB[i]) * _HB[i + 1]) & _M32
        out.append(v ^ (v >> 16))
    return out[0] | out[1] << 32, out[2] | out[3] << 32


_LOCAL = threading.local()
_ZEROS4 = (0, 0, 0, 0)


def _rekey(bits: np.random.Philox, seed: Any, epoch: Any, index: Any) -> None:
    """Set ``bits`` to the start of the stream of ``(seed, epoch, index)``: Philox keyed as
    ``Philox(SeedSequence([seed, epoch, index]))`` keys it, counter and buffers at zero."""
    # Python ints, which Philox's state setter takes as numpy's own arrays (it reads them by
    # index): 4.5 -> 1.8 us
    bits.state = {"bit_generator": "Philox",
                  "state": {"counter": _ZEROS4, "key": _philox_key(_key_entropy(seed, epoch,
                                                                                index))},
                  "buffer": _ZEROS4, "buffer_pos": 4, "has_uint32": 0, "uinteger": 0}


def sample_streams(seed: int, epoch: int, indices: Sequence[int]):
    """The streams of samples ``indices``, one after another (each is :func:`stream`'s, the
    same numbers): one generator of this thread re-keyed per sample, so each is valid until
    the next is taken (a transform's ``draw`` uses it and lets it go)."""
    gen = getattr(_LOCAL, "gen", None)
    if gen is None:
        gen = _LOCAL.gen = np.random.Generator(np.random.Philox(0))
    for index in indices:
        _rekey(gen.bit_generator, seed, epoch, index)
        yield gen


def plain(value: Any) -> Any:
    """A number or a sequence of numbers as JSON's plain data (a list)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        return float(value) if isinstance(value, np.generic) else value
    return [plain(v) for v in value]


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


def size_arg(value: Any, arg: str) -> tuple[int, int]:
    """warpkit's one size convention: an int for a square, else (width, height) as
    :func:`warpkit._checks.width_height` reads it; both at least 1."""
    pair = (value, value) if isinstance(value, numbers.Integral) and \
        not isinstance(value, bool) else value
    try:
        w, h = width_height(pair, arg)
    except ValueError:
        w = h = 0
    if w < 1 or h < 1:
        raise ValueError(f"{arg} must be an int (a square) or (width, height) of whole numbers "
                         f">= 1, got {value!r}")
    return w, h


class Transform:
    """A geometric transform: :meth:`draw` draws its parameters (plain data: numbers, lists,
    dicts) from a sample's stream and :meth:`map` turns them into a 3x3 destination-from-source
    matrix and the output size (width, height). ``p`` is the probability that it applies.

    A new transform is a subclass with those two methods and :meth:`config` (its constructor's
    arguments, for :meth:`to_dict`); it registers itself for :meth:`Compose.from_dict`.
    """

    def __init__(self, p: float = 1.0) -> None:
        self.p = probability(p)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.__name__] = cls

    # -- to override -------------------------------------------------------------------------
    def draw(self, rng: np.random.Generator, size: tuple[int, int]) -> dict:
        """The random parameters for an input of ``size`` = (width, height), drawn from ``rng``
        (valid during this call only: keep the numbers, not the generator)."""
        return {}

    def map(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        """(3x3 destination-from-source matrix, output (width, height)) for these parameters."""
        raise NotImplementedError

    def config(self) -> dict:
        """The constructor's arguments as plain data (``p`` is added by :meth:`to_dict`)."""
        return {}

    # -- shared --------------------------------------------------------------------------------
    def params(self, rng: np.random.Generator, size: tuple[int, int]) -> dict:
        """Whether it applies (drawn first, always) and its parameters (drawn always, so that
        the transforms after it draw the same numbers either way)."""
        applied = bool(rng.random() < self.p)
        return {"applied": applied, **self.draw(rng, size)}

    def transform(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        if not params.get("applied", True):
            return geometry.identity(), size
        return self.map(params, size)

    def stages(self, params: dict, size: tuple[int, int]) -> tuple[list, tuple[int, int]]:
        """(the maps and non-linear stages this applies, in order; output size): one 3x3
        matrix for a projective transform, a stage (``_fields.NonLinear``) for a non-linear
        one."""
        m, out = self.transform(params, size)
        return [m], out

    def to_dict(self) -> dict:
        return {"type": type(self).__name__, "p": self.p, **self.config()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in {**self.config(), "p": self.p}.items())
        return f"{type(self).__name__}({args})"


def _from_dict(d: dict) -> Transform:
    if not isinstance(d, dict) or d.get("type") not in _REGISTRY:
        raise ValueError(f"a transform must be a dict with a 'type' among "
                         f"{', '.join(sorted(_REGISTRY))}; got {d!r}")
    kwargs = {k: v for k, v in d.items() if k != "type"}
    cls = _REGISTRY[d["type"]]
    if "transforms" in kwargs:
        kwargs["transforms"] = [_from_dict(t) for t in kwargs["transforms"]]
    return cls(**kwargs)


class OneOf(Transform):
    """Apply one of ``transforms``, chosen with probabilities proportional to their ``p``
    (as albumentations' OneOf); the whole applies with probability ``p``."""

    def __init__(self, transforms: Sequence[Transform], p: float = 1.0) -> None:
        super().__init__(p)
        self.transforms = _transform_list(transforms)
        w = np.array([t.p for t in self.transforms], np.float64)
        if w.sum() <= 0:
            raise ValueError("OneOf needs a transform with p > 0")
        self._weights = w / w.sum()

    def draw(self, rng, size):
        k = int(rng.choice(len(self.transforms), p=self._weights))
        return {"choice": k, "params": self.transforms[k].draw(rng, size)}

    def map(self, params, size):
        return self.transforms[params["choice"]].map(params["params"], size)

    def stages(self, params, size):
        if not params.get("applied", True):
            return [geometry.identity()], size
        t = self.transforms[params["choice"]]
        return t.stages({"applied": True, **params["params"]}, size)

    def config(self):
        return {"transforms": [t.to_dict() for t in self.transforms]}


def _transform_list(transforms: Any) -> list[Transform]:
    if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform)
                                                        for t in transforms):
        raise TypeError(f"transforms must be a list of warpkit.augment transforms, got "
                        f"{transforms!r}")
    return list(transforms)


BOX_FORMATS = ("xyxy", "pascal_voc", "coco", "yolo")


class Compose(Transform):
    """A pipeline: the transforms' maps multiplied into one, and each image resampled once.

    Args:
        transforms: the transforms, applied in order.
        interpolation, padding, fill, antialias: of the one resampling (as
            :func:`warpkit.warp_perspective`).
        mask_fill: what masks read outside the image under constant padding (other paddings
            apply to masks as to the image).
        box_format: ``"xyxy"`` (pixel-edge corners, warpkit's), ``"pascal_voc"`` (the same),
            ``"coco"`` (x, y, width, height) or ``"yolo"`` (centre x, centre y, width, height,
            as fractions of the image).
        min_visibility, min_area: boxes keeping less than this fraction of their mapped area
            inside the output, or less than this many square pixels, are dropped with their
            labels.
        remove_invisible: drop keypoints that leave the output (else keep them and report
            ``"keypoints_visible"``).
        output_dtype, mean, std, layout: the tensor a model eats, made by the warp itself
            (see :func:`warpkit.warp_affine`): e.g. ``output_dtype="float32", mean=(0.485,
            0.456, 0.406), std=(0.229, 0.224, 0.225), layout="CHW"``. Masks keep their dtype.

    Calling it: ``out = pipeline(image=..., mask=..., boxes=..., labels=..., keypoints=...,
    seed=..., index=..., epoch=...)`` returns a dict with the keys given plus ``"matrix"``
    (the 3x3 map of each sample, destination from source), ``"size"`` and ``"params"``
    (plain data: :meth:`replay` applies them again). ``image`` is a Pillow image, an array
    (H, W) / (H, W, C), a batch (B, H, W, C) or a list of images; a batch or list gets a
    sample each (indices ``index``, ``index + 1``, ... or a sequence), and its targets are
    lists, one per sample. A list of images whose outputs all have one size comes back as one
    (B, ...) array.

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
                 interpolation: str = "linear", padding: str = "constant",
                 fill: float | Sequence[float] = 0, mask_fill: float = 0,
                 antialias: bool = False, box_format: str = "xyxy", min_visibility: float = 0.0,
                 min_area: float = 0.0, remove_invisible: bool = True,
                 output_dtype: str | None = None, mean: Any = None, std: Any = None,
                 layout: str = "HWC") -> None:
        super().__init__(p)
        self.transforms = _transform_list(transforms)
        choice(interpolation, INTERPOLATIONS, "interpolation", INTERPOLATION_ALIASES)
        choice(padding, PADDINGS, "padding", PADDING_ALIASES)
        if box_format not in BOX_FORMATS:
            raise ValueError(f"box_format must be one of {', '.join(map(repr, BOX_FORMATS))}; "
                             f"got {box_format!r}")
        self.interpolation, self.padding, self.fill = interpolation, padding, fill
        self.mask_fill = number(mask_fill, "mask_fill")
        self.antialias = bool(antialias)
        self.box_format = box_format
        self.min_visibility = probability(min_visibility, "min_visibility")
        self.min_area = number(min_area, "min_area")
        self.remove_invisible = bool(remove_invisible)
        check_model_input(output_dtype, layout)  # the rest needs the image: warp_perspective
        self.output_dtype, self.mean, self.std, self.layout = output_dtype, mean, std, layout

    def config(self) -> dict:
        return {"transforms": [t.to_dict() for t in self.transforms],
                "interpolation": self.interpolation, "padding": self.padding,
                "fill": plain(self.fill), "mask_fill": self.mask_fill,
                "antialias": self.antialias,
                "box_format": self.box_format, "min_visibility": self.min_visibility,
                "min_area": self.min_area, "remove_invisible": self.remove_invisible,
                "output_dtype": self.output_dtype, "mean": plain(self.mean),
                "std": plain(self.std), "layout": self.layout}

    @classmethod
    def from_dict(cls, d: dict) -> Transform:
        """A pipeline (or any transform) from :meth:`to_dict`'s plain data (JSON)."""
        return _from_dict(d)

    def draw(self, rng, size):
        steps = []
        for t in self.transforms:
            p = t.params(rng, size)
            steps.append(p)
            size = t.transform(p, size)[1]
        return {"steps": steps}

    def map(self, params, size):
        """The product of the transforms' maps (a non-linear transform's field counts as the
        identity: :meth:`stages` has it) and the output size."""
        m = geometry.identity()
        for t, p in zip(self.transforms, params["steps"]):
            mt, size = t.transform(p, size)
            m = mt @ m
        return m, size

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
        """The parameters of one sample, without touching any image."""
        return self.params(stream(seed, epoch, index), size_arg(size, "size"))

    def replay(self, params: Any, **targets: Any) -> dict:
        """Apply parameters from an earlier call's ``out["params"]`` to these targets."""
        return self(params=params, **targets)

    def __call__(self, image: Any = None, mask: Any = None, boxes: Any = None,
                 labels: Any = None, keypoints: Any = None, seed: int | None = None,
                 index: int | Sequence[int] = 0, epoch: int = 0, params: Any = None,
                 queue: Any = None) -> dict:
        from ._targets import apply

        return apply(self, image=image, mask=mask, boxes=boxes, labels=labels,
                     keypoints=keypoints, seed=seed, index=index, epoch=epoch, params=params,
                     queue=queue)


def crop_map(x0: float, y0: float, w: float, h: float, out: tuple[int, int]) -> np.ndarray:
    """The map that takes the pixel-edge box (x0, y0, w, h) of the source onto an output of
    ``out`` = (width, height): edge coordinate e goes to (e - x0) * scale."""
    sx, sy = out[0] / w, out[1] / h
    m = geometry.identity()
    m[0, 0], m[1, 1] = sx, sy
    m[0, 2] = (0.5 - x0) * sx - 0.5  # pixel centres: x' = (x + 0.5 - x0) * sx - 0.5
    m[1, 2] = (0.5 - y0) * sy - 0.5
    return m


def about_centres(m2: np.ndarray, size: tuple[int, int], out: tuple[int, int]) -> np.ndarray:
    """The 3x3 map applying the linear part ``m2`` about the input's centre, which lands on the
    output's centre."""
    cin = ((size[0] - 1) / 2, (size[1] - 1) / 2)
    cout = ((out[0] - 1) / 2, (out[1] - 1) / 2)
    return geometry.translation(*cout) @ m2 @ geometry.translation(-cin[0], -cin[1])


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
        return {k: _stack([s[k] for s in samples]) for k in first}
    if isinstance(first, tuple):
        return tuple(_stack(list(col)) for col in zip(*samples))
    return _stack(list(samples))


def _stack(items: list) -> Any:
    shapes = {getattr(x, "shape", None) for x in items}
    if len(shapes) != 1 or None in shapes:
        return items
    if all(isinstance(x, np.ndarray) for x in items):
        return np.stack(items)
    torch = sys.modules.get("torch")
    if torch is not None and all(isinstance(x, torch.Tensor) for x in items):
        return torch.stack(items)
    return items
