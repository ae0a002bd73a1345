"""albumentations' 3-D transforms: crops, pads, holes and the cube's 48 symmetries of a whole
volume (``volume=``, ``volumes=``, ``mask3d=``, ``masks3d=``, and additional targets of those
kinds) and its keypoints' (x, y, z).

They move whole voxels (no resampling), so they run on the host, as numpy indexing, around the
pipeline's 2-D pass: those listed before every 2-D step (the leading ones) cut, pad or turn the
volumes first, and the 2-D steps then move each of the result's slices alike; those listed after
every 2-D step (the trailing ones) take the pass's volumes. A 3-D step between 2-D steps, inside
a OneOf / SomeOf / Sequential, or in a nested Compose is refused (:func:`split_volume_steps`).

Conventions, albumentations' own:

- a volume is (D, H, W) or (D, H, W, C), depth first; ``volumes=`` and ``masks3d=`` are
  (N, D, H, W[, C]), every one moved by the same parameters;
- sizes, paddings and holes are in (depth, height, width) order: ``size=(d, h, w)``,
  ``padding=(front, back, top, bottom, left, right)``, a hole ``[z1, y1, x1, z2, y2, x2]``
  (ends exclusive);
- keypoints are (x, y, z) with voxel centres at integers (a keypoint format without ``z`` has
  z = 0 within the steps); a step moves x, y and z, never an angle or a scale; where
  ``remove_invisible`` (the default), a keypoint outside [0, W) x [0, H) x [0, D) after a step,
  or inside a hole of ``CoarseDropout3D``, is dropped with its labels, as albumentations checks
  after each of its steps;
- 3-D steps do not touch ``image=`` or ``mask=`` (albumentations' targets of its 3-D
  transforms are the volumes and keypoints alone).

Each sample's draws come from its own stream ``(seed, epoch, index)``, keyed apart from the 2-D
steps' (numpy's ``Philox(SeedSequence([seed, epoch, index, 3]))``), so adding a 3-D step leaves
the 2-D steps' draws as they were; the parameters are recorded in ``out["params"]
["volume_steps"]``, one dict a 3-D step, and a call with ``params=`` replays them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._checks import count, flag, number, one_of
from ..engine.output import model_output
from ._base import Transform, all_steps
from ._params import volume_targets
from ._streams import stream
from ._targets import keypoint_rows

__all__ = ["CenterCrop3D", "CoarseDropout3D", "CubicSymmetry", "Pad3D", "PadIfNeeded3D",
           "RandomCrop3D", "ToTensor3D", "Transform3D"]

#: albumentations' volume kinds and the dimensions before a volume's own (D, H, W[, C])
LEADS = {"volume": 0, "volumes": 1, "mask3d": 0, "masks3d": 1}
#: the key of a call's 3-D parameters in ``out["params"]``
PARAMS_KEY = "volume_steps"
#: the word that keys the 3-D steps' streams apart from the 2-D steps'
STREAM_WORD = 3


class Transform3D(Transform):
    """A step on whole volumes (see :mod:`warpkit.augment._volume3d`): it draws from the
    volume's (depth, height, width) and moves voxels by indexing, on the host."""

    def draw3d(self, rng: np.random.Generator, shape: tuple[int, int, int]) -> dict:
        """The parameters for a volume of ``shape`` = (depth, height, width)."""
        return {}

    def out_shape(self, params: dict, shape: tuple[int, int, int]) -> tuple[int, int, int]:
        """The (depth, height, width) these parameters make of ``shape``."""
        return shape

    def volume(self, v: np.ndarray, lead: int, params: dict, mask: bool,
               convert: Callable | None = None) -> np.ndarray:
        """``v`` (``lead`` dimensions, then D, H, W[, C]) moved by ``params``; ``mask``: a mask3d
        (its fills are ``fill_mask``); ``convert``: an image fill's value in ``v``'s units (the
        model's input, where the pass made it: :func:`finish_volume_steps`)."""
        raise NotImplementedError

    def _fill_of(self, mask: bool, convert: Callable | None) -> tuple[Any, str]:
        """(the fill of a mask or an image, as ``convert`` makes it; its argument's name)."""
        if mask:
            return self.fill_mask, "fill_mask"
        return (self.fill if convert is None or self.fill is None else convert(self.fill)), \
            "fill"

    def points(self, zyx: np.ndarray, params: dict, shape: tuple[int, int, int]) -> np.ndarray:
        """Keypoints' (z, y, x) columns (float64, one row each) in a volume of ``shape`` moved by
        ``params``."""
        return zyx

    def kept(self, zyx: np.ndarray, params: dict) -> np.ndarray | None:
        """Which keypoints (z, y, x after :meth:`points`) the step keeps beside the volume's
        bounds (a hole's): None for all."""
        return None

    def map(self, params, size):  # (never part of a 2-D pass)
        raise TypeError(f"{type(self).__name__} moves volumes, not 2-D images")


def _triple(v: Any, arg: str, minimum: int) -> tuple[int, int, int]:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) != 3:
        raise ValueError(f"{arg} must be (depth, height, width), three integers >= {minimum}, "
                         f"got {v!r}")
    return tuple(count(x, arg, minimum) for x in v)  # type: ignore[return-value]


def _fill(v: Any, arg: str, none: bool = False) -> Any:
    """A fill: a number or one per channel (a list of numbers); None where ``none``."""
    if v is None and none:
        return None
    if isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)):
        vals = [number(x, arg) for x in v]
        if not vals:
            raise ValueError(f"{arg} must be a number or one per channel, got {v!r}")
        return vals
    return number(v, arg)


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _fill_value(fill: Any, v: np.ndarray, lead: int, arg: str) -> np.ndarray:
    """``fill`` as ``v``'s dtype (integers saturated, as OpenCV casts), broadcast over its
    channels: one value, or one per channel of a volume with channels."""
    f = np.asarray(fill, dtype=np.float64)
    if f.ndim:
        channels = v.shape[lead + 3] if v.ndim == lead + 4 else 1
        if f.size != channels and f.size != 1:
            raise ValueError(f"{arg} has {f.size} values and the volume {channels} channel"
                             f"{'s' if channels != 1 else ''}")
        f = f if v.ndim == lead + 4 else f.reshape(())
    if np.issubdtype(v.dtype, np.integer):
        info = np.iinfo(v.dtype)
        f = np.clip(np.rint(f), info.min, info.max)
    return f.astype(v.dtype)


def _pad(v: np.ndarray, lead: int, padding: Sequence[int], fill: Any, arg: str) -> np.ndarray:
    """``v`` padded by (front, back, top, bottom, left, right) voxels of ``fill``."""
    if not any(padding):
        return v
    shape = list(v.shape)
    for k in range(3):
        shape[lead + k] += padding[2 * k] + padding[2 * k + 1]
    out = np.empty(shape, v.dtype)
    out[...] = _fill_value(fill, v, lead, arg)
    inner = tuple(slice(padding[2 * k], padding[2 * k] + v.shape[lead + k]) for k in range(3))
    out[(slice(None),) * lead + inner] = v
    return out


def _shift(zyx: np.ndarray, by: Sequence[float]) -> np.ndarray:
    return zyx + np.asarray(by, dtype=np.float64)


class Pad3D(Transform3D):
    """albumentations' ``Pad3D``: pads the volume by fixed numbers of voxels of ``fill``
    (``fill_mask`` for mask3d): ``padding`` one number for all six sides, (depth, height, width)
    for both sides of each, or (front, back, top, bottom, left, right). Keypoints shift with
    the volume.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Pad3D
        >>> out = Pad3D(padding=(1, 2, 3))(volume=np.ones((4, 5, 6), np.uint8))
        >>> out["volume"].shape
        (6, 9, 12)
    """

    def __init__(self, padding: int | Sequence[int], fill: Any = 0, fill_mask: Any = 0,
                 p: float = 1.0) -> None:
        super().__init__(p)
        if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
            sides = (count(padding, "padding", 0),) * 6
        elif hasattr(padding, "__len__") and len(padding) in (3, 6):
            vals = [count(x, "padding", 0) for x in padding]
            sides = tuple(vals if len(vals) == 6 else [x for x in vals for _ in (0, 1)])
        else:
            raise ValueError(f"padding must be an integer >= 0, (depth, height, width) or "
                             f"(front, back, top, bottom, left, right), got {padding!r}")
        self.padding = padding if isinstance(padding, (int, np.integer)) else tuple(padding)
        self.sides = sides
        self.fill, self.fill_mask = _fill(fill, "fill"), _fill(fill_mask, "fill_mask")

    def draw3d(self, rng, shape):
        return {"padding": list(self.sides)}

    def out_shape(self, params, shape):
        q = params["padding"]
        return tuple(s + q[2 * k] + q[2 * k + 1] for k, s in enumerate(shape))

    def volume(self, v, lead, params, mask, convert=None):
        fill, arg = self._fill_of(mask, convert)
        return _pad(v, lead, params["padding"], fill, arg)

    def points(self, zyx, params, shape):
        q = params["padding"]
        return _shift(zyx, (q[0], q[2], q[4]))

    def config(self):
        return {"padding": _plain(self.padding), "fill": self.fill, "fill_mask": self.fill_mask}


class PadIfNeeded3D(Pad3D):
    """albumentations' ``PadIfNeeded3D``: pads each axis up to ``min_zyx`` (depth, height,
    width) and/or up to the next multiple of ``pad_divisor_zyx``; ``position="center"`` splits
    an axis's padding as albumentations does (the smaller half first), ``"random"`` puts a
    uniform share of it first and the rest last (albumentations 2.0.8 draws the two sides of a
    random position apart, so its volume's size then varies from call to call: warpkit's is
    the size asked for).

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import PadIfNeeded3D
        >>> pad = PadIfNeeded3D(min_zyx=(8, 8, 8), pad_divisor_zyx=(1, 1, 16))
        >>> pad(volume=np.zeros((5, 10, 20), np.float32))["volume"].shape
        (8, 10, 32)
    """

    def __init__(self, min_zyx: Sequence[int] | None = None,
                 pad_divisor_zyx: Sequence[int] | None = None, position: str = "center",
                 fill: Any = 0, fill_mask: Any = 0, p: float = 1.0) -> None:
        Transform.__init__(self, p)
        if min_zyx is None and pad_divisor_zyx is None:
            raise ValueError("PadIfNeeded3D needs min_zyx or pad_divisor_zyx (or both)")
        self.min_zyx = None if min_zyx is None else _triple(min_zyx, "min_zyx", 0)
        self.pad_divisor_zyx = (None if pad_divisor_zyx is None
                                else _triple(pad_divisor_zyx, "pad_divisor_zyx", 1))
        self.position = one_of(position, "position", {
            "center": "each axis's padding split in two, the smaller half first",
            "random": "a uniform share of it first, the rest last"})
        self.fill, self.fill_mask = _fill(fill, "fill"), _fill(fill_mask, "fill_mask")

    def draw3d(self, rng, shape):
        sides = []
        for k, s in enumerate(shape):
            target = s if self.min_zyx is None else max(s, self.min_zyx[k])
            if self.pad_divisor_zyx is not None:
                d = self.pad_divisor_zyx[k]
                target = -(-target // d) * d
            pad = target - s
            first = int(rng.integers(0, pad + 1)) if self.position == "random" else pad // 2
            sides += [first, pad - first]
        return {"padding": sides}

    def config(self):
        return {"min_zyx": _plain(self.min_zyx), "pad_divisor_zyx": _plain(self.pad_divisor_zyx),
                "position": self.position, "fill": self.fill, "fill_mask": self.fill_mask}


class _CropAndPad3D(Transform3D):
    """A (depth, height, width) window of the volume, padded first where ``pad_if_needed`` and
    the volume is smaller than the window along an axis (else such a volume is refused)."""

    position = "center"

    def __init__(self, size: Sequence[int], pad_if_needed: bool = False, fill: Any = 0,
                 fill_mask: Any = 0, p: float = 1.0) -> None:
        super().__init__(p)
        self.size = _triple(size, "size", 1)
        self.pad_if_needed = flag(pad_if_needed, "pad_if_needed")
        self.fill, self.fill_mask = _fill(fill, "fill"), _fill(fill_mask, "fill_mask")

    def _start(self, rng: np.random.Generator, room: int) -> int:
        return room // 2

    def draw3d(self, rng, shape):
        small = [k for k in range(3) if shape[k] < self.size[k]]
        if small and not self.pad_if_needed:
            raise ValueError(f"{type(self).__name__}(size={list(self.size)}) is larger than the "
                             f"volume (depth, height, width) {list(shape)}: pass "
                             f"pad_if_needed=True, or a smaller size")
        padding = []
        for k in range(3):
            pad = max(0, self.size[k] - shape[k])
            first = self._start(rng, pad) if self.position == "random" else pad // 2
            padding += [first, pad - first]
        padded = [shape[k] + padding[2 * k] + padding[2 * k + 1] for k in range(3)]
        starts = [self._start(rng, padded[k] - self.size[k]) for k in range(3)]
        return {"padding": padding, "crop": [*starts, *(s + n for s, n in zip(starts,
                                                                            self.size))]}

    def out_shape(self, params, shape):
        return self.size

    def volume(self, v, lead, params, mask, convert=None):
        fill, arg = self._fill_of(mask, convert)
        v = _pad(v, lead, params["padding"], fill, arg)
        c = params["crop"]
        return v[(slice(None),) * lead + tuple(slice(c[k], c[k + 3]) for k in range(3))]

    def points(self, zyx, params, shape):
        q, c = params["padding"], params["crop"]
        return _shift(zyx, (q[0] - c[0], q[2] - c[1], q[4] - c[2]))

    def config(self):
        return {"size": list(self.size), "pad_if_needed": self.pad_if_needed, "fill": self.fill,
                "fill_mask": self.fill_mask}


class CenterCrop3D(_CropAndPad3D):
    """albumentations' ``CenterCrop3D``: the (depth, height, width) window ``size`` at the
    volume's centre (its start ``(n - size) // 2`` along each axis); ``pad_if_needed`` pads a
    smaller volume first, evenly (the smaller half first), with ``fill`` / ``fill_mask``.
    Recorded: ``padding`` (front, back, top, bottom, left, right) and ``crop``
    [z1, y1, x1, z2, y2, x2] in the padded volume.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import CenterCrop3D
        >>> out = CenterCrop3D(size=(2, 4, 4))(volume=np.zeros((6, 8, 8), np.uint8))
        >>> out["volume"].shape, out["params"]["volume_steps"][0]["crop"]
        ((2, 4, 4), [2, 2, 2, 4, 6, 6])
    """


class RandomCrop3D(_CropAndPad3D):
    """albumentations' ``RandomCrop3D``: a (depth, height, width) window ``size`` at a uniform
    place (each axis's start an integer in [0, n - size]); ``pad_if_needed`` pads a smaller
    volume first, a uniform share of each axis's padding in front (albumentations' random
    position). Recorded as :class:`CenterCrop3D`.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import RandomCrop3D
        >>> crop = RandomCrop3D(size=(4, 32, 32), pad_if_needed=True)
        >>> crop(volume=np.zeros((3, 64, 64), np.uint8), seed=0)["volume"].shape
        (4, 32, 32)
    """

    position = "random"

    def _start(self, rng, room):
        return int(rng.integers(0, room + 1))


class CoarseDropout3D(Transform3D):
    """albumentations' ``CoarseDropout3D``: ``num_holes_range`` (an integer count drawn
    uniformly, ends included) cuboid holes filled with ``fill``; each hole's depth, height and
    width ``max(1, ceil(n * u))`` voxels for ``u`` uniform in ``hole_depth_range``,
    ``hole_height_range``, ``hole_width_range`` (fractions of the volume's, in [0, 1]), placed
    uniformly inside the volume. ``fill_mask`` fills the holes of mask3d; None leaves the masks
    (albumentations 2.0.8 fills mask3d's holes with ``fill`` whatever ``fill_mask`` says: its
    mask3d goes through its volume's function). Keypoints inside a hole are dropped where
    ``remove_invisible``. Recorded: ``holes`` as [z1, y1, x1, z2, y2, x2] rows.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import CoarseDropout3D
        >>> drop = CoarseDropout3D(num_holes_range=(2, 2), fill=9, p=1)
        >>> out = drop(volume=np.zeros((10, 10, 10), np.uint8), seed=1)
        >>> len(out["params"]["volume_steps"][0]["holes"]), int(out["volume"].max())
        (2, 9)
    """

    def __init__(self, num_holes_range: Sequence[int] = (1, 1),
                 hole_depth_range: Sequence[float] = (0.1, 0.2),
                 hole_height_range: Sequence[float] = (0.1, 0.2),
                 hole_width_range: Sequence[float] = (0.1, 0.2), fill: Any = 0,
                 fill_mask: Any = None, p: float = 0.5) -> None:
        super().__init__(p)
        self.num_holes_range = _range(num_holes_range, "num_holes_range", True)
        self.hole_depth_range = _range(hole_depth_range, "hole_depth_range", False)
        self.hole_height_range = _range(hole_height_range, "hole_height_range", False)
        self.hole_width_range = _range(hole_width_range, "hole_width_range", False)
        self.fill = _fill(fill, "fill")
        self.fill_mask = _fill(fill_mask, "fill_mask", none=True)

    def draw3d(self, rng, shape):
        n = int(rng.integers(self.num_holes_range[0], self.num_holes_range[1] + 1))
        ranges = (self.hole_depth_range, self.hole_height_range, self.hole_width_range)
        dims = [np.maximum(1, np.ceil(s * rng.uniform(*r, size=n))).astype(np.int64)
                for s, r in zip(shape, ranges)]
        starts = [rng.integers(0, s - d + 1) for s, d in zip(shape, dims)]
        holes = np.stack([*starts, *(a + d for a, d in zip(starts, dims))], axis=-1)
        return {"holes": holes.reshape(n, 6).tolist()}

    def volume(self, v, lead, params, mask, convert=None):
        fill, arg = self._fill_of(mask, convert)
        if fill is None or not params["holes"]:
            return v
        out = v.copy()
        value = _fill_value(fill, v, lead, arg)
        for z1, y1, x1, z2, y2, x2 in params["holes"]:
            out[(slice(None),) * lead + (slice(z1, z2), slice(y1, y2), slice(x1, x2))] = value
        return out

    def kept(self, zyx, params):
        holes = np.asarray(params["holes"], dtype=np.float64).reshape(-1, 6)
        inside = np.ones((len(zyx), len(holes)), bool)
        for k in range(3):
            c = zyx[:, k:k + 1]
            inside &= (c >= holes[:, k]) & (c < holes[:, k + 3])
        return ~inside.any(axis=1)

    def config(self):
        return {"num_holes_range": list(self.num_holes_range),
                "hole_depth_range": list(self.hole_depth_range),
                "hole_height_range": list(self.hole_height_range),
                "hole_width_range": list(self.hole_width_range), "fill": self.fill,
                "fill_mask": self.fill_mask}


def _range(v: Any, arg: str, whole: bool) -> tuple:
    ok = hasattr(v, "__len__") and not isinstance(v, (str, bytes)) and len(v) == 2
    if ok:
        if whole:
            lo, hi = (count(x, arg, 0) for x in v)
        else:
            lo, hi = (number(x, arg) for x in v)
            ok = 0 <= lo <= hi <= 1
    if not ok or lo > hi:
        what = "two integers >= 0" if whole else "two fractions in [0, 1]"
        raise ValueError(f"{arg} must be (low, high), {what}, low <= high, got {v!r}")
    return (lo, hi)


#: the cube's 48 symmetries in albumentations 2.0.8's order (its ``CubicSymmetry`` index): the
#: input axis each output axis (depth, height, width) takes, and whether it is reversed. Indices
#: 0-23 turn the volume (no reflection), 24-47 turn and reflect it.
CUBE = (((0, 1, 2), (0, 0, 0)), ((0, 2, 1), (0, 1, 0)), ((0, 1, 2), (0, 1, 1)),
        ((0, 2, 1), (0, 0, 1)), ((0, 1, 2), (1, 0, 1)), ((0, 2, 1), (1, 0, 0)),
        ((0, 1, 2), (1, 1, 0)), ((0, 2, 1), (1, 1, 1)), ((2, 1, 0), (1, 0, 0)),
        ((1, 2, 0), (1, 1, 0)), ((2, 1, 0), (0, 1, 0)), ((1, 2, 0), (0, 0, 0)),
        ((2, 1, 0), (0, 0, 1)), ((1, 2, 0), (1, 0, 1)), ((2, 1, 0), (1, 1, 1)),
        ((1, 2, 0), (0, 1, 1)), ((1, 0, 2), (1, 0, 0)), ((2, 0, 1), (1, 0, 1)),
        ((1, 0, 2), (0, 0, 1)), ((2, 0, 1), (0, 0, 0)), ((1, 0, 2), (0, 1, 0)),
        ((2, 0, 1), (1, 1, 0)), ((1, 0, 2), (1, 1, 1)), ((2, 0, 1), (0, 1, 1)),
        ((0, 1, 2), (0, 0, 1)), ((0, 2, 1), (0, 0, 0)), ((0, 1, 2), (0, 1, 0)),
        ((0, 2, 1), (0, 1, 1)), ((0, 1, 2), (1, 0, 0)), ((0, 2, 1), (1, 1, 0)),
        ((0, 1, 2), (1, 1, 1)), ((0, 2, 1), (1, 0, 1)), ((2, 1, 0), (0, 0, 0)),
        ((1, 2, 0), (1, 0, 0)), ((2, 1, 0), (1, 1, 0)), ((1, 2, 0), (0, 1, 0)),
        ((2, 1, 0), (1, 0, 1)), ((1, 2, 0), (1, 1, 1)), ((2, 1, 0), (0, 1, 1)),
        ((1, 2, 0), (0, 0, 1)), ((1, 0, 2), (1, 0, 1)), ((2, 0, 1), (0, 0, 1)),
        ((1, 0, 2), (0, 0, 0)), ((2, 0, 1), (1, 0, 0)), ((1, 0, 2), (0, 1, 1)),
        ((2, 0, 1), (0, 1, 0)), ((1, 0, 2), (1, 1, 0)), ((2, 0, 1), (1, 1, 1)))


class CubicSymmetry(Transform3D):
    """albumentations' ``CubicSymmetry``: one of the cube's 48 symmetries (24 turns, 24 turns
    with a reflection), drawn uniformly; the axes of a volume that is not a cube trade their
    sizes. Recorded: ``index``, albumentations' numbering (index ``i`` moves voxels as its
    ``transform_cube(volume, i)``). Keypoints move with their voxel (index coordinates: a
    reversed axis sends ``c`` to ``n - 1 - c``), as albumentations' own.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import CubicSymmetry
        >>> out = CubicSymmetry()(volume=np.zeros((2, 3, 4), np.uint8), seed=3)
        >>> sorted(out["volume"].shape)
        [2, 3, 4]
    """

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p)

    def draw3d(self, rng, shape):
        return {"index": int(rng.integers(0, 48))}

    def out_shape(self, params, shape):
        perm, _ = CUBE[_index(params)]
        return tuple(shape[a] for a in perm)

    def volume(self, v, lead, params, mask, convert=None):
        perm, flips = CUBE[_index(params)]
        axes = [*range(lead), *(lead + a for a in perm), *range(lead + 3, v.ndim)]
        out = v.transpose(axes)
        rev = tuple(lead + k for k in range(3) if flips[k])
        return np.flip(out, rev) if rev else out

    def points(self, zyx, params, shape):
        perm, flips = CUBE[_index(params)]
        cols = []
        for k in range(3):
            c = zyx[:, perm[k]]
            cols.append(shape[perm[k]] - 1 - c if flips[k] else c)
        return np.stack(cols, axis=1) if len(zyx) else zyx


def _index(params: dict) -> int:
    i = params["index"]
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < 48:
        raise ValueError(f"CubicSymmetry's index must be an integer in [0, 48), got {i!r}")
    return int(i)


class ToTensor3D(Transform):
    """albumentations' ``ToTensor3D``, the last step of a pipeline (or the last but a
    ``ToTensorV2``): the call's ``volume`` and ``mask3d`` come back as torch tensors, channels
    first, (C, D, H, W) (a volume without channels as (1, D, H, W)), views of the results as
    albumentations' are. ``volumes`` and ``masks3d`` stay arrays, as albumentations leaves
    them. Requires torch.

    Example (``aug(volume=np.zeros((4, 8, 8, 3), np.uint8))["volume"]`` is then a tensor of
    torch.Size([3, 4, 8, 8])):
        >>> from warpkit.augment import Compose, HorizontalFlip, ToTensor3D
        >>> aug = Compose([HorizontalFlip(), ToTensor3D()])
        >>> aug.volume_tensors, [t["type"] for t in aug.to_dict()["transforms"]]
        (True, ['HorizontalFlip', 'ToTensor3D'])
    """

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p)
        if self.p != 1:
            raise ValueError(f"ToTensor3D(p={p!r}) is not supported: a model's input is tensors "
                             f"on every call (p=1)")

    def map(self, params, size):  # (never part of a 2-D pass)
        raise TypeError("ToTensor3D makes tensors of the results, it moves nothing")


def peel_to_tensor3d(transforms: list) -> tuple[list, bool]:
    """A pipeline's list without its ToTensor3D (the last step, or the last but a
    ToTensorV2), and whether it had one; one anywhere else is refused."""
    at = [i for i, t in enumerate(transforms) if isinstance(t, ToTensor3D)]
    n = len(transforms)
    if not at:
        inner = next((s for t in transforms for s in all_steps(t) if isinstance(s, ToTensor3D)),
                     None)
        if inner is not None:
            raise ValueError("ToTensor3D inside OneOf, Sequential or a nested Compose is not "
                             "supported: the volumes' tensors are the pipeline's output")
        return transforms, False
    last_ok = at[-1] == n - 1 or (at[-1] == n - 2
                                  and type(transforms[-1]).__name__ == "ToTensorV2")
    if len(at) > 1 or not last_ok:
        raise ValueError("ToTensor3D must be the pipeline's last step (or the last but "
                         "ToTensorV2): it makes the volumes' tensors of its output")
    return [t for i, t in enumerate(transforms) if i != at[0]], True


def volume_tensors(res: dict, kinds: dict[str, str]) -> None:
    """ToTensor3D: ``res``'s volume and mask3d (and targets of their kinds: ``kinds``, name ->
    kind) as torch tensors (C, D, H, W), in place."""
    import torch

    for name, kind in kinds.items():
        if name in res and kind in ("volume", "mask3d"):
            a = np.asarray(res[name])
            a = a.transpose(3, 0, 1, 2) if a.ndim == 4 else a[None]
            # (a read-only result, an input passed through, is copied: torch's view writes)
            res[name] = torch.from_numpy(a if a.flags.writeable else a.copy())


# -- a pipeline's 3-D steps --------------------------------------------------------------------

def split_volume_steps(transforms: list) -> tuple[list, list, list]:
    """(the leading 3-D steps, the 2-D steps, the trailing 3-D steps) of a pipeline's list;
    a 3-D step elsewhere is refused by name."""
    flat = [isinstance(t, Transform3D) for t in transforms]
    first = next((i for i, f in enumerate(flat) if not f), len(flat))
    last = len(flat) - next((i for i, f in enumerate(reversed(flat)) if not f), 0)
    for i, t in enumerate(transforms):
        if first <= i < last and flat[i]:
            raise ValueError(f"{type(t).__name__} is a 3-D step between 2-D steps: warpkit runs "
                             f"3-D steps on the host before or after the 2-D pass, so list them "
                             f"before every 2-D step or after every one (or use two pipelines)")
        if not flat[i]:
            inner = next((s for s in all_steps(t) if isinstance(s, Transform3D)
                          or getattr(s, "volume_first", None) or getattr(s, "volume_last", None)),
                         None)
            if inner is not None:
                what = type(inner).__name__ if isinstance(inner, Transform3D) else "a 3-D step"
                raise ValueError(f"{what} inside {type(t).__name__} is not supported: 3-D steps "
                                 f"run on the host around the 2-D pass, as steps of the "
                                 f"outermost pipeline")
    return transforms[:first], transforms[first:last], transforms[last:]


def check_volume(name: str, v: Any, kind: str) -> int:
    """A volume target's array checked against its kind (a ValueError naming ``name``
    otherwise): the count of dimensions before a volume's own (D, H, W[, C])."""
    lead = LEADS[kind]
    if not isinstance(v, np.ndarray) or v.ndim not in (lead + 3, lead + 4):
        dims = "(D, H, W) or (D, H, W, C)" if lead == 0 else "(N, D, H, W) or (N, D, H, W, C)"
        got = f"shape {v.shape}" if isinstance(v, np.ndarray) else \
            f"a {type(v).__name__} (albumentations' volumes are numpy arrays: pass .numpy())"
        raise ValueError(f"{name} must be a numpy array {dims}, got {got}")
    return lead


def volume_shape(values: dict, kinds: dict[str, str]) -> tuple[int, int, int]:
    """The (depth, height, width) of a call's volumes (``values``: target -> array; ``kinds``:
    name -> its volume kind), which must agree."""
    shapes = {}
    for name, v in values.items():
        lead = check_volume(name, v, kinds[name])
        shapes[name] = tuple(v.shape[lead:lead + 3])
    if not shapes:
        raise ValueError("a 3-D step (RandomCrop3D, Pad3D, CubicSymmetry, ...) moves volumes: "
                         "give volume=, volumes=, mask3d= or masks3d= (depth, height, width "
                         "first)")
    first = next(iter(shapes.items()))
    for name, s in shapes.items():
        if s != first[1]:
            raise ValueError(f"{name} has (depth, height, width) {list(s)} and {first[0]} "
                             f"{list(first[1])}: a 3-D step moves them alike")
    return first[1]


def draw_volume_steps(steps: Sequence[Transform3D], rng: np.random.Generator,
                      shape: tuple[int, int, int]) -> tuple[list[dict], tuple[int, int, int]]:
    """Each step's parameters (``applied``, then its own) for a volume of ``shape``, in order,
    and the shape after them."""
    out = []
    for step in steps:
        applied = bool(rng.random() < step.p) if step.p < 1 else True
        params = step.draw3d(rng, shape) if applied else {}
        out.append({"applied": applied, **params})
        if applied:
            shape = step.out_shape(params, shape)
    return out, shape


def stream3d(seed: int, epoch: int, index: int) -> np.random.Generator:
    """A sample's stream for its 3-D steps: numpy's ``Philox(SeedSequence([seed, epoch, index,
    3]))``."""
    seq = np.random.SeedSequence([int(seed), int(epoch), int(index), STREAM_WORD])
    return np.random.Generator(np.random.Philox(seq))


def _xyz_columns(fmt: str) -> tuple[int, int, int | None]:
    """The (x, y, z) columns of a keypoint format (z None: the format has no depth)."""
    return fmt.index("x"), fmt.index("y"), fmt.index("z") if "z" in fmt else None


def move_volume_steps(steps: Sequence[Transform3D], plist: list[dict], values: dict,
                      kinds: dict[str, str], keypoints: dict, fmt: str, drop: bool,
                      labels: dict, converts: dict | None = None
                      ) -> tuple[dict, dict, dict, dict]:
    """The steps applied, with their parameters ``plist``: the volumes of ``values`` (target
    -> array; ``kinds``: name -> its volume kind), the keypoint targets of ``keypoints`` (name
    -> rows of ``fmt``'s columns) and, where rows are dropped (``drop``: remove_invisible), the
    main keypoints' label fields ``labels`` (name -> a list or array, row for row); ``converts``:
    name -> the function giving a fill in that volume's units (the model's input). Returns the
    three, new, and each keypoint target's rows still visible (inside the volume and out of
    the holes after every step: all of them where ``drop``)."""
    if len(plist) != len(steps):
        raise ValueError(f"params['{PARAMS_KEY}'] has {len(plist)} entries for {len(steps)} "
                         f"3-D steps")
    values, labels = dict(values), dict(labels)
    shape = volume_shape(values, kinds)
    xc, yc, zc = _xyz_columns(fmt)
    rows, visible = {}, {}
    for name, k in keypoints.items():
        k = keypoint_rows(k, fmt, name).copy()
        z = k[:, zc] if zc is not None else np.zeros(len(k))
        rows[name] = (k, np.stack([z, k[:, yc], k[:, xc]], axis=1) if len(k) else
                      np.zeros((0, 3)))
        visible[name] = np.ones(len(k), bool)
    for step, params in zip(steps, plist):
        if not params.get("applied", True):
            continue
        for name, v in values.items():
            values[name] = step.volume(v, LEADS[kinds[name]], params,
                                       kinds[name].startswith("mask"),
                                       (converts or {}).get(name))
        after = step.out_shape(params, shape)
        for name, (k, zyx) in rows.items():
            zyx = step.points(zyx, params, shape)
            keep = np.all((zyx >= 0) & (zyx < np.asarray(after)), axis=1)
            holes = step.kept(zyx, params) if len(zyx) else None
            if holes is not None:
                keep &= holes
            if not drop:
                visible[name] &= keep
            elif not keep.all():
                k, zyx, visible[name] = k[keep], zyx[keep], visible[name][keep]
                if name == "keypoints":
                    labels = {f: _rows_of(v, keep) for f, v in labels.items()}
            rows[name] = (k, zyx)
        shape = after
    moved = {}
    for name, (k, zyx) in rows.items():
        if len(k):
            k[:, xc], k[:, yc] = zyx[:, 2], zyx[:, 1]
            if zc is not None:
                k[:, zc] = zyx[:, 0]
        moved[name] = k
    return values, moved, labels, visible


def _rows_of(v: Any, keep: np.ndarray) -> Any:
    """A label field's rows where ``keep``, as the type it came in (a list stays a list)."""
    if isinstance(v, np.ndarray):
        return v[keep]
    if hasattr(v, "numpy") and hasattr(v, "shape"):  # (a torch tensor)
        import torch

        return v[torch.from_numpy(keep)]
    return [x for x, k in zip(v, keep) if k]


def all_volume_steps(pipe: Any) -> list:
    """A pipeline's 3-D steps in order: the leading ones, then the trailing ones."""
    return [*pipe.volume_first, *pipe.volume_last]



def start_volume_steps(pipe: Any, t: Any, kind: str, seed: Any, index: Any, epoch: int,
                       params: Any) -> tuple[dict, Any, Any, Any]:
    """A call's leading 3-D steps, on its targets ``t`` (changed in place), before the 2-D
    pass: their parameters drawn (from the sample's 3-D stream; the seed chosen here where the
    call and the pipeline have none, so that the 2-D pass draws from it too) or taken from
    ``params``. Returns (what :func:`finish_volume_steps` needs, the seed, the index, the 2-D
    pass's params)."""
    if kind != "single":
        raise ValueError(f"a 3-D step moves one sample's volumes (albumentations' targets of a "
                         f"call of one sample), and this call is a {kind} of samples: call the "
                         f"pipeline per sample")
    kinds = volume_targets(pipe)
    values = {n: (t.mask_lists if k.startswith("mask") else t.images).get(n)
              for n, k in kinds.items()}
    values = {n: v for n, v in values.items() if v is not None}
    shape = volume_shape(values, kinds)
    rng, last = None, None
    if params is None:
        if seed is None:
            if pipe.seed is None:
                seed = int(np.random.SeedSequence().generate_state(1)[0])
            elif index is None:
                seed, index = pipe.next_streams(1)
            else:
                seed = pipe.seed
        at = 0 if index is None else index
        rng = stream3d(seed, epoch, at)
        # (the pipeline's own p: its first number of the sample's stream, as the pass draws it)
        if pipe.p < 1 and not stream(seed, epoch, at).random() < pipe.p:
            first, last = _not_applied(pipe.volume_first), _not_applied(pipe.volume_last)
        else:
            first, _ = draw_volume_steps(pipe.volume_first, rng, shape)
    else:
        given = params.get(PARAMS_KEY) if isinstance(params, dict) else None
        if not isinstance(given, (list, tuple)):
            raise ValueError(f"params has no '{PARAMS_KEY}' list: replay a call of this "
                             f"pipeline with its out['params'] (it holds the 3-D steps' draws)")
        n = len(pipe.volume_first)
        first, last = [dict(p) for p in given[:n]], [dict(p) for p in given[n:]]
        params = {k: v for k, v in params.items() if k != PARAMS_KEY}
    values, moved, labels, visible = move_volume_steps(
        pipe.volume_first, first, values, kinds, t.keypoints, pipe.keypoint_format,
        pipe.remove_invisible, t.keypoint_fields)
    after = volume_shape(values, kinds)[1:]
    for group in (t.images, t.masks):
        for n, v in group.items():
            hw = tuple(getattr(v, "shape", (None, None))[:2])
            if n not in kinds and n != "images" and hw != after and after != shape[1:]:
                raise ValueError(f"the 3-D steps make the volumes' slices {after[0]}x{after[1]} "
                                 f"(height x width) and {n}= stays {hw[0]}x{hw[1]}: the 2-D "
                                 f"steps move a sample's images, masks and slices by one map, "
                                 f"so call the pipeline with the volumes alone")
    for n, v in values.items():
        (t.mask_lists if kinds[n].startswith("mask") else t.images)[n] = v
    t.keypoints.update(moved)
    t.keypoint_fields.update(labels)
    # (the volumes' dtypes and channels as given: a trailing step's fills in the model's units)
    given = {n: (v.dtype, v.shape[LEADS[kinds[n]] + 3] if v.ndim == LEADS[kinds[n]] + 4 else 1)
             for n, v in values.items() if not kinds[n].startswith("mask")}
    return {"rng": rng, "first": first, "last": last, "visible": visible,
            "given": given}, seed, index, params


def _not_applied(steps: Sequence[Transform3D]) -> list[dict]:
    """The records of steps a call did not apply (its pipeline's p drew against it)."""
    return [{"applied": False} for _ in steps]


def finish_volume_steps(pipe: Any, state: dict, res: dict) -> None:
    """A call's trailing 3-D steps on the 2-D pass's results ``res`` (volumes, keypoints and
    their labels, changed in place), and every 3-D step's parameters recorded in
    ``res["params"]``."""
    last = state["last"]
    if pipe.volume_last:
        kinds = volume_targets(pipe)
        values = {n: res[n] for n in kinds if n in res}
        if last is None:
            last, _ = draw_volume_steps(pipe.volume_last, state["rng"],
                                        volume_shape(values, kinds))
        names = [n for n in res if n == "keypoints" or n in pipe.additional_targets
                 and pipe.additional_targets[n] == "keypoints"]
        fields = {f: res[f] for f in pipe.keypoint_label_fields if f in res}
        converts = None
        if pipe.output_dtype is not None:  # (the pass made the model's input: fills so too)
            converts = {n: _model_fill(pipe, dt, c) for n, (dt, c) in state["given"].items()}
        values, moved, labels, visible = move_volume_steps(
            pipe.volume_last, last, values, kinds, {n: res[n] for n in names},
            pipe.keypoint_format, pipe.remove_invisible, fields, converts)
        res.update(values)
        res.update(moved)
        res.update(labels)
        if not pipe.remove_invisible:  # (every row kept: the rows' flags)
            for name, v in visible.items():
                state["visible"][name] = state["visible"].get(name, True) & v
    for name, v in state["visible"].items() if not pipe.remove_invisible else ():
        key = "keypoints_visible" if name == "keypoints" else f"{name}_visible"
        if key in res:  # (remove_invisible=False: the 2-D pass's flags and the 3-D steps')
            res[key] = np.asarray(res[key], bool) & v
    res["params"] = {**res["params"], PARAMS_KEY: [*state["first"], *(last or [])]}


def _model_fill(pipe: Any, dtype: np.dtype, channels: int) -> Callable:
    """The function giving a fill (a level of the volume's ``dtype``: a number or one a
    channel) as the model's input the pass made of that volume: ``fill * scale + bias`` per
    channel, the pass's own (``engine.output.model_output``), so a hole a trailing step cuts
    holds what the pass makes of that level, as applying the step before Normalize gives."""
    _, _, scale, bias = model_output(dtype, channels, pipe.output_dtype, pipe.mean, pipe.std,
                                     "HWC", pipe.max_pixel_value)

    def convert(fill: Any) -> np.ndarray:
        return np.asarray(fill, np.float64) * np.asarray(scale) + np.asarray(bias)
    return convert


def volume_steps_applied(pipe: Any, params: dict) -> tuple[list, list]:
    """(the leading, the trailing) 3-D steps a call applied, as albumentations' applied
    transforms: (class name, parameters) pairs."""
    got = params.get(PARAMS_KEY, [])
    pairs = [(type(s).__name__, {k: v for k, v in p.items() if k != "applied"})
             for s, p in zip(all_volume_steps(pipe), got) if p.get("applied", True)]
    n = sum(1 for p in got[:len(pipe.volume_first)] if p.get("applied", True))
    return pairs[:n], pairs[n:]
