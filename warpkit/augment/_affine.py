"""Random geometric augmentation for training loops: one random affine map per image, drawn on the
host from a seeded generator, and a whole batch warped in one launch.

Conventions are :mod:`warpkit.geometry`'s: pixel centres at integers, x right, y down, matrices map
source to destination, positive angles turn the picture counter-clockwise. Every random map is
built about the image centre ``c = ((W - 1) / 2, (H - 1) / 2)`` and applies, in this order:

1. the flips (left-right with probability ``hflip``, top-bottom with ``vflip``), about ``c``;
2. the scale, then the shear, then the rotation, about ``c``;
3. the translation, then the move of ``c`` to the output's centre (when ``size`` differs).

So a map without translation keeps the image centre where it was (or puts it at the output's
centre), and the matrices it returns give the boxes and keypoints of the warped images through
:func:`warpkit.geometry.transform_boxes` and :func:`warpkit.geometry.transform_points`.

Example:
    >>> import numpy as np
    >>> from warpkit.augment import RandomAffine
    >>> aug = RandomAffine(degrees=15, translate=0.1, scale=(0.9, 1.1), hflip=0.5,
    ...                    padding="reflection")
    >>> batch = np.zeros((32, 224, 224, 3), np.uint8)
    >>> out, mats = aug(batch, rng=0, return_matrices=True)     # doctest: +SKIP
    >>> out.shape, mats.shape                                   # doctest: +SKIP
    ((32, 224, 224, 3), (32, 3, 3))
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyopencl as cl

from .._checks import number
from .._options import Sampling
from ..engine import warp_by
from ..warp import Interpolation, Padding
from ._base import Resampling, Transform, probability, row_maps, size_arg, size_hw, value_range
from ._compose import COMPOSE_OPTIONS, Compose
from ._executor import layout

#: Compose's options for the targets and the model's input, which a pipeline call of a lone
#: RandomAffine passes on (its own sampling options are the resampling's)
_TARGET_OPTIONS = COMPOSE_OPTIONS - set(Sampling._fields)

__all__ = ["RandomAffine"]

Range = float | tuple[float, float]


def _generator(rng: Any) -> np.random.Generator:
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, got "
                    f"{type(rng).__name__}")


class RandomAffine(Resampling, Transform):
    """Warp each image with its own random affine map (rotation, scale, shear, translation, flips).

    The maps are drawn on the host (numpy, float64) and a batch (B, H, W, C) is warped in one
    launch with :func:`warpkit.warp_affine`; the same ``rng`` seed gives the same maps, so a batch
    can be replayed. See the module docstring for the order the parts apply in.

    Args:
        degrees: rotation in degrees, counter-clockwise: ``d`` draws from (-d, d), or (low, high).
        translate: the largest shift as a fraction of the image's width and height: ``f`` or
            (fx, fy); the shift is drawn from (-fx * W, fx * W) x (-fy * H, fy * H) pixels.
        scale: the zoom factor, (low, high) > 0, or one number for a fixed zoom.
        shear: shear angles in degrees (see :func:`warpkit.geometry.shear`): ``s`` draws the x
            shear from (-s, s); (low, high) the x shear; (x_low, x_high, y_low, y_high) both.
            Each within (-89, 89).
        hflip, vflip: the probabilities of a left-right and a top-bottom flip.
        size: the output (height, width) (an int: a square); default: each input's size. The
            input's centre lands on the output's centre.
        interpolation, padding, fill, antialias: as :func:`warpkit.warp_affine` (default
            linear, constant, 0, no antialiasing). In a pipeline, those given here become the
            pipeline's one resampling (one that disagrees with another step's or the
            Compose's is refused, naming both).

    Example:
        >>> aug = RandomAffine(degrees=10, scale=(0.8, 1.2), padding="border")
        >>> mats = aug.sample(4, (480, 640), rng=7)       # (4, 3, 3), no device needed
        >>> images = [np.zeros((480, 640, 3), np.uint8)] * 4
        >>> out = aug(images, rng=7)                       # doctest: +SKIP
        >>> [o.shape for o in out] == [(480, 640, 3)] * 4  # doctest: +SKIP
        True
    """

    def __init__(
        self,
        degrees: Range = 0.0,
        translate: float | tuple[float, float] = 0.0,
        scale: Range = 1.0,
        shear: float | Sequence[float] = 0.0,
        hflip: float = 0.0,
        vflip: float = 0.0,
        size: tuple[int, int] | None = None,
        interpolation: Interpolation | None = None,
        padding: Padding | None = None,
        fill: float | tuple[float, ...] | None = None,
        antialias: bool | None = None,
        p: float = 1.0,
    ) -> None:
        super().__init__(p)
        self.degrees = value_range(degrees, "degrees", True, -math.inf, math.inf)[0]
        if isinstance(translate, numbers.Real) and not isinstance(translate, bool):
            translate = (translate, translate)
        if not (isinstance(translate, Sequence) and len(translate) == 2):
            raise ValueError(f"translate must be a fraction f or (fx, fy), got {translate!r}")
        self.translate = tuple(number(v, "translate") for v in translate)
        if min(self.translate) < 0:
            raise ValueError(f"translate must be >= 0 (fractions of the size), got {translate!r}")
        self.scale = value_range(scale, "scale", False, 0.0, math.inf)[0]
        if self.scale[0] <= 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        self.shear = value_range(shear, "shear", True, -89.0, 89.0, 4)
        self.hflip = probability(hflip, "hflip")
        self.vflip = probability(vflip, "vflip")
        self.size = None if size is None else size_arg(size, "size")
        self.set_sampling(interpolation=interpolation, padding=padding, fill=fill,
                          antialias=antialias)

    def config(self) -> dict:
        return {"degrees": list(self.degrees), "translate": list(self.translate),
                "scale": list(self.scale), "shear": [v for pair in self.shear for v in pair],
                "hflip": self.hflip, "vflip": self.vflip,
                "size": None if self.size is None else size_hw(self.size),
                **self.sampling_config(given_only=True)}

    def settings(self) -> dict:
        """The options given to it: in a pipeline they are the pipeline's one resampling."""
        return {k: getattr(self.sampling, k) for k in self.given_options}

    # as a pipeline transform (warpkit.augment.Compose): one parameter row per sample
    _KEYS = ("angle", "scale", "shear_x", "shear_y", "translate_x", "translate_y", "hflip",
             "vflip")

    def draw(self, rng: np.random.Generator, size: tuple[int, int]) -> dict:
        # :meth:`_params`' arithmetic for one sample in Python floats (the same IEEE operations
        # in the same order: lo + (hi - lo) * u), without numpy's per-call cost on 8 numbers
        u = rng.random(8).tolist()
        (d0, d1), (s0, s1), ((x0, x1), (y0, y1)) = self.degrees, self.scale, self.shear
        tx, ty = self.translate
        row = [lo + (hi - lo) * v for lo, hi, v in
               zip((d0, s0, x0, y0, -tx, -ty), (d1, s1, x1, y1, tx, ty), u)]
        return self._record(row + [u[6] < self.hflip, u[7] < self.vflip])

    def _record(self, row: list[float]) -> dict:
        """A parameter row as the recorded dict: the flips as bools, the rest floats."""
        return {k: (bool(v) if k in ("hflip", "vflip") else v) for k, v in zip(self._KEYS, row)}

    def draw_lanes(self, lanes, sizes):
        # a row of 8 doubles per sample, in draw's order
        return [self._record(row) for row in self._params(lanes.random(k=8).T).tolist()]

    def out_size(self, params, size):
        return self.size or size

    def map(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
        """One sample's map in Python floats (``_build``'s numpy calls are made for many rows
        and cost more than the arithmetic for one): the same matrix as ``_build``."""
        row, out = self._row(params, size)
        return np.array(row).reshape(3, 3), out

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, self._row)

    def _row(self, params: dict, size: tuple[int, int]) -> tuple[list[float], tuple[int, int]]:
        """:meth:`map`'s nine entries (row-major) and output size."""
        w, h = size
        wo, ho = self.size or size
        a = math.radians(params["angle"])
        c, s = math.cos(a), math.sin(a)
        tx, ty = math.tan(math.radians(params["shear_x"])), math.tan(math.radians(params["shear_y"]))
        k = params["scale"]
        fx = -k if params["hflip"] else k
        fy = -k if params["vflip"] else k
        # rotation @ shear @ diag(fx, fy), as _build
        l00, l01 = (c + s * ty) * fx, (c * tx + s) * fy
        l10, l11 = (-s + c * ty) * fx, (-s * tx + c) * fy
        cx, cy = (w - 1) / 2, (h - 1) / 2
        ox = (wo - 1) / 2 + params["translate_x"] * w - (l00 * cx + l01 * cy)
        oy = (ho - 1) / 2 + params["translate_y"] * h - (l10 * cx + l11 * cy)
        return [l00, l01, ox, l10, l11, oy, 0.0, 0.0, 1.0], (wo, ho)

    def _draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n parameter rows (angle, scale, shear x, shear y, tx, ty as fractions, hflip, vflip),
        drawn in a fixed order so that a seed replays them."""
        # one call for the 8 columns: the doubles that 8 calls (6 uniform, 2 random) took, in
        # the same order, and uniform(lo, hi) is lo + (hi - lo) * u in numpy too (one generator
        # call instead of 8: each has a fixed cost)
        return self._params(rng.random(8 * n).reshape(8, n))

    def _params(self, u: np.ndarray) -> np.ndarray:
        """(n, 8) parameter rows from (8, n) uniform doubles (a column per sample)."""
        n = u.shape[1]
        lo = np.array([self.degrees[0], self.scale[0], self.shear[0][0], self.shear[1][0],
                       -self.translate[0], -self.translate[1]])
        hi = np.array([self.degrees[1], self.scale[1], self.shear[0][1], self.shear[1][1],
                       self.translate[0], self.translate[1]])
        p = np.empty((n, 8))
        p[:, :6] = (lo[:, None] + (hi - lo)[:, None] * u[:6]).T
        p[:, 6] = u[6] < self.hflip
        p[:, 7] = u[7] < self.vflip
        return p

    def _build(self, p: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """(n, 3, 3) destination-from-source maps for images of ``size`` = (W, H)."""
        w, h = size
        wo, ho = self.size or size
        a = np.radians(p[:, 0])
        c, s = np.cos(a), np.sin(a)
        tx, ty = np.tan(np.radians(p[:, 2])), np.tan(np.radians(p[:, 3]))
        k = p[:, 1]
        fx, fy = np.where(p[:, 6] > 0, -1.0, 1.0), np.where(p[:, 7] > 0, -1.0, 1.0)
        # linear part: rotation @ shear @ scale @ flip (geometry.rotation, .shear, .scale, .flip)
        rot = np.stack([np.stack([c, s], -1), np.stack([-s, c], -1)], -2)
        one = np.ones_like(tx)
        she = np.stack([np.stack([one, tx], -1), np.stack([ty, one], -1)], -2)
        lin = rot @ she * (k[:, None] * np.stack([fx, fy], -1))[:, None, :]
        m = np.zeros((len(p), 3, 3))
        m[:, :2, :2] = lin
        m[:, 2, 2] = 1.0
        # about the centre: x -> lin (x - c_in) + c_out + shift
        cin = np.array([(w - 1) / 2, (h - 1) / 2])
        cout = np.array([(wo - 1) / 2, (ho - 1) / 2])
        shift = p[:, 4:6] * np.array([w, h])
        m[:, :2, 2] = cout + shift - lin @ cin
        return m

    def sample(self, n: int, size: tuple[int, int], rng: Any = None) -> np.ndarray:
        """n random maps (n, 3, 3) for images of ``size`` = (height, width) (``image.shape[:2]``),
        without warping.

        ``rng``: None (fresh entropy), an int seed, or a ``numpy.random.Generator`` (advanced)."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"n must be a count >= 0, got {n!r}")
        return self._build(self._draw(int(n), _generator(rng)), size_arg(size, "size"))

    def __call__(self, images: Any = None, rng: Any = None, return_matrices: bool = False,
                 queue: cl.CommandQueue | None = None, **targets: Any) -> Any:
        """Warp ``images`` with fresh random maps; or, called with the keywords of a pipeline
        (``image=``, ``mask=``, ``boxes=``, ..., ``seed=``), as ``Compose([self])`` with this
        transform's interpolation, padding, fill and antialiasing; Compose's target options
        (``keypoint_format=``, ``box_format=``, ``min_visibility=``, ...) go to that pipeline.

        Args:
            images: a Pillow image or an array (H, W) / (H, W, C): one map; a batch (B, H, W, C)
                (numpy or device array): one map per image, one launch; or a list of any of
                these (sizes may differ): one map per item.
            rng: None, an int seed or a ``numpy.random.Generator``.
            return_matrices: also return the maps: (3, 3) for one image, (B, 3, 3) for a batch, a
                list for a list.
            queue: the ``pyopencl.CommandQueue`` to run on.

        Returns:
            The warped images, of the kind, dtype and mode given (a list for a list), or
            ``(images, matrices)`` with ``return_matrices``.
        """
        if targets or images is None:
            options = {k: targets.pop(k) for k in list(targets) if k in _TARGET_OPTIONS}
            pipe = Compose([self], **self.sampling._asdict(), **options)
            return pipe(**targets, queue=queue)
        gen = _generator(rng)
        kind, sizes = layout(images, "images")
        if kind == "list":
            params = self._draw(len(images), gen)
            outs, mats = [], []
            for i, (img, size) in enumerate(zip(images, sizes)):
                m = self._build(params[i:i + 1], size)[0]
                outs.append(self.warp(img, m, queue))
                mats.append(m)
            return (outs, mats) if return_matrices else outs
        m = self._build(self._draw(len(sizes), gen), sizes[0])
        if kind == "single":
            m = m[0]
        out = self.warp(images, m, queue)
        return (out, m) if return_matrices else out

    def matrices(self, n: int, size: tuple[int, int], rng: Any = None) -> np.ndarray:
        """(n, 3, 3): the maps that a call on a list of n images of ``size`` = (height, width)
        (``image.shape[:2]``) draws from ``rng`` (an int seed or a Generator), to warp one at a
        time with :meth:`warp` (n copies of a large image need not be held at once).

        Example:
            >>> t = RandomAffine(degrees=10)
            >>> t.matrices(4, (480, 640), rng=0).shape
            (4, 3, 3)
        """
        return self._build(self._draw(int(n), _generator(rng)), size_arg(size, "size"))

    def warp(self, image: Any, matrix: np.ndarray, queue: cl.CommandQueue | None = None) -> Any:
        """``image`` warped by one of :meth:`matrices` with this transform's output size,
        interpolation, padding, fill and antialiasing."""
        return warp_by(image, matrix, self.size, self.sampling, queue=queue)

