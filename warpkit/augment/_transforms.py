"""The geometric transforms of a pipeline. Each draws plain-data parameters and contributes one
3x3 map (destination from source) and an output size; :class:`~warpkit.augment.Compose` multiplies
the maps and resamples once."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._checks import flag, number
from ._base import (Resampled, Transform, about_centres, crop_map, crop_row, row_maps,
                    size_arg, size_hw, size_or_hw, value_range)

__all__ = ["CenterCrop", "Crop", "Pad", "RandomCrop", "RandomCropFromBorders",
           "RandomHorizontalFlip", "RandomPerspective", "RandomResizedCrop", "RandomRotate90",
           "RandomRotation", "RandomSizedCrop", "RandomVerticalFlip", "Resize"]


class RandomHorizontalFlip(Transform):
    """Mirror left-right with probability ``p`` (pixel x goes to W - 1 - x)."""

    keeps_frame = True

    keeps_axes = True

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def map(self, params, size):
        return geometry.flip("h", size), size

    def out_size(self, params, size):
        return size

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, lambda p, s: ([-1.0, 0.0, s[0] - 1.0, 0.0, 1.0, 0.0,
                                                     0.0, 0.0, 1.0], s))


class RandomVerticalFlip(Transform):
    """Mirror top-bottom with probability ``p``."""

    keeps_frame = True

    keeps_axes = True

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def map(self, params, size):
        return geometry.flip("v", size), size

    def out_size(self, params, size):
        return size

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, lambda p, s: ([1.0, 0.0, 0.0, 0.0, -1.0, s[1] - 1.0,
                                                     0.0, 0.0, 1.0], s))


class RandomRotate90(Transform):
    """Turn by k quarter turns counter-clockwise, k drawn from {0, 1, 2, 3} (or ``turns``);
    odd k swap the width and height."""

    keeps_frame = True

    keeps_axes = True

    def __init__(self, p: float = 0.5, turns: Sequence[int] = (0, 1, 2, 3)) -> None:
        super().__init__(p)
        self.turns = [int(k) % 4 for k in turns]
        if not self.turns:
            raise ValueError("turns must hold at least one number of quarter turns")

    def draw(self, rng, size):
        return {"k": self.turns[int(rng.integers(len(self.turns)))]}

    def draw_lanes(self, lanes, sizes):
        return [{"k": self.turns[k]} for k in lanes.integers(0, len(self.turns)).tolist()]

    def map(self, params, size):
        k = params["k"] % 4
        out = size if k % 2 == 0 else (size[1], size[0])
        return about_centres(geometry.rotation(90 * k), size, out), out

    def config(self):
        return {"turns": self.turns}


class RandomRotation(Transform):
    """Rotate by an angle drawn from ``degrees`` (d: (-d, d); or (low, high)), counter-clockwise,
    about the image centre. ``expand``: the output grows to hold the whole turned image."""

    def __init__(self, degrees: float | Sequence[float], p: float = 1.0,
                 expand: bool = False) -> None:
        super().__init__(p)
        self.degrees = value_range(degrees, "degrees", True, -math.inf, math.inf)[0]
        self.expand = bool(expand)

    def draw(self, rng, size):
        return {"angle": float(rng.uniform(*self.degrees))}

    def draw_lanes(self, lanes, sizes):
        return [{"angle": a} for a in lanes.uniform(*self.degrees).tolist()]

    def map(self, params, size):
        r = geometry.rotation(params["angle"])
        out = size
        if self.expand:
            a = math.radians(params["angle"])
            c, s = abs(math.cos(a)), abs(math.sin(a))
            out = (max(1, math.ceil(size[0] * c + size[1] * s - 1e-6)),
                   max(1, math.ceil(size[0] * s + size[1] * c - 1e-6)))
        return about_centres(r, size, out), out

    def config(self):
        return {"degrees": list(self.degrees), "expand": self.expand}


class RandomPerspective(Transform):
    """Move each corner inwards by up to ``distortion_scale`` of half the width and height (as
    torchvision's RandomPerspective) and map the image by the homography between them."""

    def __init__(self, distortion_scale: float = 0.5, p: float = 0.5) -> None:
        super().__init__(p)
        self.distortion_scale = number(distortion_scale, "distortion_scale")
        if not 0 <= self.distortion_scale <= 1:
            raise ValueError(f"distortion_scale must be in [0, 1], got {distortion_scale!r}")

    def draw(self, rng, size):
        w, h = size
        dx, dy = self.distortion_scale * w / 2, self.distortion_scale * h / 2
        u = rng.uniform(0, 1, (4, 2)) * [dx, dy]
        # corners (edge coordinates) top-left, top-right, bottom-right, bottom-left, inwards
        sign = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]])
        return {"shifts": (u * sign).tolist()}

    def map(self, params, size):
        w, h = size
        src = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
        dst = src + np.array(params["shifts"])
        return geometry.perspective_from_points(src, dst), size

    def config(self):
        return {"distortion_scale": self.distortion_scale}


#: where albumentations' padding puts the image (PadIfNeeded's ``position``, the crops'
#: ``pad_position``)
PAD_POSITIONS = ("center", "top_left", "top_right", "bottom_left", "bottom_right", "random")


def _pad_to(side: int, minimum: int | None, divisor: int | None) -> tuple[int, int]:
    """albumentations' padding of one side: (before, after) to reach ``minimum``, or the next
    multiple of ``divisor``."""
    if minimum is not None:
        if side < minimum:
            before = int((minimum - side) / 2.0)
            return before, minimum - side - before
        return 0, 0
    rest = side % divisor
    if rest:
        return (divisor - rest) // 2, divisor - rest - (divisor - rest) // 2
    return 0, 0


def pad_origin(position: str, pads: tuple, params: dict) -> tuple[int, int]:
    """Where albumentations' padding puts the image's corner, (x, y) in the padded image, for
    ``pads`` = ((left, right), (top, bottom)) centred as it computes them: by ``position``, or,
    for ``"random"``, the recorded ``left`` and ``top``."""
    (left, right), (top, bottom) = pads
    tw, th = left + right, top + bottom
    return {"center": (left, top), "top_left": (0, 0), "top_right": (tw, 0),
            "bottom_left": (0, th), "bottom_right": (tw, th),
            "random": (params.get("left", 0), params.get("top", 0))}[position]


def draw_pad(rng: np.random.Generator, pads: tuple) -> dict:
    """A random position's draw for ``pads`` = ((left, right), (top, bottom)): where the image's
    corner goes, ``top`` then ``left`` (each end of the padding included)."""
    (left, right), (top, bottom) = pads
    return {"top": int(rng.integers(0, top + bottom + 1)),
            "left": int(rng.integers(0, left + right + 1))}


def draw_pad_lanes(lanes: Any, pads: list) -> list[dict]:
    """:func:`draw_pad` for a batch's samples at once (``pads``: each one's)."""
    total = np.array([[sum(p) for p in q] for q in pads]).reshape(-1, 2)  # (w, h) per sample
    top = lanes.integers(0, total[:, 1] + 1).tolist()
    left = lanes.integers(0, total[:, 0] + 1).tolist()
    return [{"top": t, "left": x} for t, x in zip(top, left)]


class _PaddedCrop(Resampled):
    """albumentations' crops' ``pad_if_needed``: an image smaller than the crop along an axis
    is first padded to the crop's size there (``pad_position``; ``border_mode``, ``fill`` and
    ``fill_mask`` become the pipeline's padding), as its PadIfNeeded pads (:class:`Crop`: to
    its rectangle's far corner, as its Crop pads); without it those four are unused, as in
    albumentations, and a crop larger than the image reads the pipeline's padding, placed as
    the crop's own position says. Subclasses give :meth:`_pads` (from ``size``) and draw
    through :meth:`_draw_pad`."""

    def _pad_args(self, pad_if_needed: bool, pad_position: str, border_mode: Any, fill: Any,
                  fill_mask: Any) -> None:
        self.pad_if_needed = flag(pad_if_needed, "pad_if_needed")
        if pad_position not in PAD_POSITIONS:
            raise ValueError(f"{type(self).__name__} pad_position must be one of "
                             f"{', '.join(map(repr, PAD_POSITIONS))}; got {pad_position!r}")
        self.pad_position = pad_position
        if self.pad_if_needed:
            self.given_resampling(border_mode=0 if border_mode is None else border_mode,
                                  fill=0 if fill is None else fill,
                                  fill_mask=0 if fill_mask is None else fill_mask)

    def _pads(self, size: tuple[int, int]) -> tuple:
        """((left, right), (top, bottom)): the padding of an image of ``size`` to the crop."""
        w, h = self.size
        return _pad_to(size[0], w, None), _pad_to(size[1], h, None)

    def _draw_pad(self, rng, size) -> dict:
        """The random position's draw (none otherwise)."""
        if not self.pad_if_needed or self.pad_position != "random":
            return {}
        return draw_pad(rng, self._pads(size))

    def _draw_pad_lanes(self, lanes, sizes) -> list[dict]:
        if not self.pad_if_needed or self.pad_position != "random":
            return [{} for _ in sizes]
        return draw_pad_lanes(lanes, [self._pads(s) for s in sizes])

    def _padded(self, params: dict, size: tuple[int, int]) -> tuple[tuple[int, int], tuple]:
        """(the padded image's size, the image's corner in it)."""
        pads = self._pads(size)
        return (size[0] + sum(pads[0]), size[1] + sum(pads[1])), \
            pad_origin(self.pad_position, pads, params)

    def _pad_config(self) -> dict:
        """The padding's arguments as config writes them (none without pad_if_needed)."""
        return {"pad_if_needed": True, "pad_position": self.pad_position,
                **self.resampling_config()} if self.pad_if_needed else {}

    def config(self):
        return {"size": size_hw(self.size), **self._pad_config()}


class Resize(Resampled):
    """Resize to (height, width): albumentations' ``Resize(224, 160)`` (or ``height=``,
    ``width=``), or one ``size`` (an int: a square; ``Resize((224, 160))``, ``size=``); or so
    that the ``shorter`` or the ``longer`` side has that many pixels, keeping the aspect ratio.

    Example:
        >>> Resize(224, 160).out_size({}, (640, 480))   # (height, width) in; maps: (w, h)
        (160, 224)
        >>> Resize((224, 160)).out_size({}, (640, 480)), Resize(shorter=256).out_size({}, (640, 480))
        ((160, 224), (341, 256))
    """

    whole_frame = True

    resizes = True  # (albumentations applies it with cv2.resize)

    keeps_axes = True

    def __init__(self, size: Any = None, width: int | None = None, p: float = 1.0, *,
                 height: int | None = None, shorter: int | None = None,
                 longer: int | None = None, interpolation: Any = None,
                 mask_interpolation: Any = None, area_for_downscale: Any = None) -> None:
        super().__init__(p)
        self.given_resampling(interpolation, mask_interpolation,
                              area_for_downscale=area_for_downscale)
        if height is not None or width is not None:
            size = size_or_hw(size, width, height)
        given = [v is not None for v in (size, shorter, longer)]
        if sum(given) != 1:
            raise ValueError("Resize takes one of size= (or height= and width=), shorter= or "
                             "longer=")
        self.size = None if size is None else size_arg(size, "size")
        self.shorter = None if shorter is None else size_arg(shorter, "shorter")[0]
        self.longer = None if longer is None else size_arg(longer, "longer")[0]

    def _out(self, size):
        if self.size is not None:
            return self.size
        w, h = size
        side = self.shorter if self.shorter is not None else self.longer
        ref = min(w, h) if self.shorter is not None else max(w, h)
        return max(1, round(w * side / ref)), max(1, round(h * side / ref))

    def map(self, params, size):
        out = self._out(size)
        return crop_map(0, 0, size[0], size[1], out), out

    def out_size(self, params, size):
        return self._out(size)

    def config(self):
        return {**{k: v for k, v in (("size", self.size and size_hw(self.size)),
                                     ("shorter", self.shorter), ("longer", self.longer))
                   if v is not None}, **self.resampling_config()}


#: how CenterCrop places its corner on an odd margin: albumentations floors half the margin,
#: torchvision rounds it (half to even)
CENTER_ROUNDINGS = ("albumentations", "torchvision")


class CenterCrop(_PaddedCrop):
    """The centre (height, width) of the image: albumentations' ``CenterCrop(224, 160)`` (or
    ``height=``, ``width=``), or torchvision's one ``size`` (an int: a square;
    ``CenterCrop((224, 160))``, ``size=``); a crop larger than the image pads it (the
    pipeline's padding), or, with ``pad_if_needed=True``, pads it as albumentations does (see
    :class:`_PaddedCrop`).

    Where the margin is odd the two libraries place the corner a pixel apart: albumentations
    floors half the margin, torchvision rounds it (half to even). ``rounding`` says whose
    rule; None takes it from the form of the call: albumentations' with ``height`` and
    ``width``, torchvision's with ``size``, so a port of either keeps its pixels.

    Example:
        >>> CenterCrop((4, 6), pad_if_needed=True, pad_position="top_left").map({}, (3, 10))
        (array([[ 1.,  0.,  0.],
               [ 0.,  1., -3.],
               [ 0.,  0.,  1.]]), (6, 4))
        >>> CenterCrop(2, 2).map({}, (5, 5))[0][:2, 2].tolist()     # floor(3 / 2)
        [-1.0, -1.0]
        >>> CenterCrop(2).map({}, (5, 5))[0][:2, 2].tolist()        # round(3 / 2)
        [-2.0, -2.0]
    """

    keeps_axes = True

    def __init__(self, size: Any = None, width: int | None = None, p: float = 1.0, *,
                 height: int | None = None, pad_if_needed: bool = False,
                 pad_position: str = "center", border_mode: Any = None, fill: Any = None,
                 fill_mask: Any = None, rounding: str | None = None) -> None:
        super().__init__(p)
        if rounding is None:
            rounding = "albumentations" if width is not None or height is not None \
                else "torchvision"
        if rounding not in CENTER_ROUNDINGS:
            raise ValueError(f"CenterCrop rounding must be one of "
                             f"{', '.join(map(repr, CENTER_ROUNDINGS))} or None, got "
                             f"{rounding!r}")
        self.rounding = rounding
        self.size = size_arg(size_or_hw(size, width, height), "size")
        self._pad_args(pad_if_needed, pad_position, border_mode, fill, fill_mask)

    def _corner(self, margin: int) -> int:
        """Half the margin, floored or rounded as :attr:`rounding` says."""
        return margin // 2 if self.rounding == "albumentations" else round(margin / 2)

    def draw(self, rng, size):
        return self._draw_pad(rng, size)

    def draw_lanes(self, lanes, sizes):
        return self._draw_pad_lanes(lanes, sizes)

    def map(self, params, size):
        w, h = self.size
        if self.pad_if_needed:  # (the centre of the padded image, less the image's corner)
            (pw, ph), (ox, oy) = self._padded(params, size)
            x0, y0 = self._corner(pw - w) - ox, self._corner(ph - h) - oy
        else:
            x0, y0 = self._corner(size[0] - w), self._corner(size[1] - h)
        return crop_map(x0, y0, w, h, self.size), self.size

    def config(self):
        return {**super().config(), "rounding": self.rounding}

    def out_size(self, params, size):
        return self.size


class Crop(_PaddedCrop):
    """albumentations' Crop: the fixed rectangle [x_min, x_max) x [y_min, y_max) of the image
    (whole pixels). As albumentations, a rectangle past the image is refused, unless
    ``pad_if_needed=True``: then the image is padded as albumentations' Crop pads it and the
    rectangle is cut from the padded image. Along an axis the rectangle passes by ``d``
    pixels, the padding's far side is ``d``, and its near side ``d // 2`` (``center``), 0 or
    ``d`` (the corners' positions), or a number drawn in [0, d] (``random``, recorded as
    ``left`` / ``top``), so the rectangle moves by that much over the image, as in
    albumentations. ``border_mode``, ``fill`` and ``fill_mask`` become the pipeline's.

    Example:
        >>> t = Crop(x_min=10, y_min=20, x_max=110, y_max=70)
        >>> m, size = t.map({}, (200, 100))
        >>> size, m[:2, 2].tolist()
        ((100, 50), [-10.0, -20.0])
        >>> Crop(0, 0, 50, 30, pad_if_needed=True).map({}, (40, 30))[0][:2, 2].tolist()
        [5.0, 0.0]
    """

    keeps_axes = True

    def __init__(self, x_min: int = 0, y_min: int = 0, x_max: int = 1024, y_max: int = 1024,
                 pad_if_needed: bool = False, pad_position: str = "center",
                 border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                 p: float = 1.0) -> None:
        super().__init__(p)
        box = {"x_min": x_min, "y_min": y_min, "x_max": x_max, "y_max": y_max}
        for k, v in box.items():
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
                raise ValueError(f"{k} must be a whole number of pixels >= 0, got {v!r}")
        if not (x_min < x_max and y_min < y_max):
            raise ValueError(f"Crop needs x_min < x_max and y_min < y_max, got {box}")
        self.box = tuple(int(v) for v in box.values())
        self.size = (self.box[2] - self.box[0], self.box[3] - self.box[1])
        self._pad_args(pad_if_needed, pad_position, border_mode, fill, fill_mask)

    def _pads(self, size: tuple[int, int]) -> tuple:
        """((left, right), (top, bottom)) centred as albumentations' Crop splits the amount its
        rectangle passes the image by (its far side then grows to that amount)."""
        return _pad_to(size[0], self.box[2], None), _pad_to(size[1], self.box[3], None)

    def draw(self, rng, size):
        return self._draw_pad(rng, size)

    def draw_lanes(self, lanes, sizes):
        return self._draw_pad_lanes(lanes, sizes)

    def map(self, params, size):
        x0, y0, x1, y1 = self.box
        if self.pad_if_needed:  # (the rectangle of the padded image, less the image's corner)
            ox, oy = self._padded(params, size)[1]
            x0, y0 = x0 - ox, y0 - oy
        elif x1 > size[0] or y1 > size[1]:
            raise ValueError(f"Crop({x0}, {y0}, {x1}, {y1}) reaches past the {size[0]}x{size[1]} "
                             f"image (albumentations refuses it too, unless pad_if_needed=True)")
        return crop_map(x0, y0, *self.size, self.size), self.size

    def out_size(self, params, size):
        return self.size

    def config(self):
        return {**dict(zip(("x_min", "y_min", "x_max", "y_max"), self.box)), **self._pad_config()}


class RandomCropFromBorders(Transform):
    """albumentations' RandomCropFromBorders: up to ``crop_left`` of the width off the left
    (``x_min`` drawn in [0, int(crop_left W)]), then the right end drawn in
    [max(x_min + 1, int((1 - crop_right) W)), W], the same for the top and bottom, in
    albumentations' order (left, right, top, bottom), both ends included. (A left or top
    fraction of 1 leaves at least one pixel, where albumentations' draw would fail.)

    Example:
        >>> t = RandomCropFromBorders(0.2, 0.2, 0.1, 0.3)
        >>> x0, y0, x1, y1 = t.draw(np.random.default_rng(0), (100, 50))["crop"]
        >>> 0 <= x0 <= 20 and 80 <= x1 <= 100 and 0 <= y0 <= 5 and 35 <= y1 <= 50
        True
    """

    keeps_axes = True

    def __init__(self, crop_left: float = 0.1, crop_right: float = 0.1, crop_top: float = 0.1,
                 crop_bottom: float = 0.1, p: float = 1.0) -> None:
        super().__init__(p)
        fr = {k: number(v, k) for k, v in (("crop_left", crop_left), ("crop_right", crop_right),
                                           ("crop_top", crop_top), ("crop_bottom", crop_bottom))}
        for k, v in fr.items():
            if not 0 <= v <= 1:
                raise ValueError(f"{k} must be in [0, 1], got {v!r}")
        for a, b in (("crop_left", "crop_right"), ("crop_top", "crop_bottom")):
            if fr[a] + fr[b] > 1:
                raise ValueError(f"{a} + {b} must be <= 1, got {fr[a]} + {fr[b]}")
        self.fractions = tuple(fr.values())

    def _bounds(self, side, lo_frac: float, hi_frac: float):
        """(the first end's range's top, the second end's bottom for a first end) per side."""
        return (np.minimum((lo_frac * side).astype(np.int64), side - 1),
                lambda first: np.maximum(first + 1, ((1 - hi_frac) * side).astype(np.int64)))

    def draw(self, rng, size):
        return self.draw_lanes(_OneLane(rng), [size])[0]

    def draw_lanes(self, lanes, sizes):
        left, right, top, bottom = self.fractions
        out = []
        for axis, (a, b) in enumerate(((left, right), (top, bottom))):
            side = np.array([s[axis] for s in sizes], np.float64)
            top_first, second_from = self._bounds(side, a, b)
            first = lanes.integers(0, top_first + 1)
            second = lanes.integers(second_from(first), side.astype(np.int64) + 1)
            out.append((first.tolist(), second.tolist()))
        (x0, x1), (y0, y1) = out
        return [{"crop": [int(v) for v in c]} for c in zip(x0, y0, x1, y1)]

    def map(self, params, size):
        x0, y0, x1, y1 = params["crop"]
        return crop_map(x0, y0, x1 - x0, y1 - y0, (x1 - x0, y1 - y0)), (x1 - x0, y1 - y0)

    def config(self):
        return dict(zip(("crop_left", "crop_right", "crop_top", "crop_bottom"), self.fractions))


class _OneLane:
    """One sample's generator as :class:`~warpkit.augment._lanes.Lanes` of one lane (the calls
    ``integers`` with per-lane bounds, as numpy's ``integers`` draws them, and ``uniform``)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def integers(self, low, high) -> np.ndarray:
        return np.array([int(self.rng.integers(int(lo), int(hi)))
                         for lo, hi in zip(np.atleast_1d(low), np.atleast_1d(high))])

    def uniform(self, low: float, high: float) -> np.ndarray:
        return np.array([self.rng.uniform(low, high)])


class RandomCrop(_PaddedCrop):
    """A (height, width) crop at a random whole-pixel position: albumentations'
    ``RandomCrop(224, 160)`` (or ``height=``, ``width=``), or one ``size`` (an int: a square;
    ``RandomCrop((224, 160))``, ``size=``); a crop larger than the image places the image at a
    random position inside it, the rest padded (the pipeline's padding), or, with
    ``pad_if_needed=True``, pads it first as albumentations does (at ``pad_position``, see
    :class:`_PaddedCrop`) and crops the padded image.

    Example:
        >>> t = RandomCrop((64, 64), pad_if_needed=True)  # a 40 x 100 image: padded to 64 high
        >>> p = t.draw(np.random.default_rng(0), (100, 40))
        >>> float(t.map(p, (100, 40))[0][1, 2])  # 12 rows down, as albumentations centres it
        12.0
    """

    keeps_axes = True

    def __init__(self, size: Any = None, width: int | None = None, p: float = 1.0, *,
                 height: int | None = None, pad_if_needed: bool = False,
                 pad_position: str = "center", border_mode: Any = None, fill: Any = None,
                 fill_mask: Any = None) -> None:
        super().__init__(p)
        self.size = size_arg(size_or_hw(size, width, height), "size")
        self._pad_args(pad_if_needed, pad_position, border_mode, fill, fill_mask)

    def draw(self, rng, size):
        w, h = self.size
        pad = self._draw_pad(rng, size)
        if self.pad_if_needed:  # (a window of the padded image, then the image's corner off)
            (pw, ph), (ox, oy) = self._padded(pad, size)
            return {**pad, "x": int(rng.integers(0, pw - w + 1)) - ox,
                    "y": int(rng.integers(0, ph - h + 1)) - oy}
        lo_x, hi_x = sorted((0, size[0] - w))
        lo_y, hi_y = sorted((0, size[1] - h))
        return {"x": int(rng.integers(lo_x, hi_x + 1)), "y": int(rng.integers(lo_y, hi_y + 1))}

    def draw_lanes(self, lanes, sizes):
        w, h = self.size
        pads = self._draw_pad_lanes(lanes, sizes)
        if self.pad_if_needed:
            padded = [self._padded(p, s) for p, s in zip(pads, sizes)]
            x = lanes.integers(0, np.array([pw - w for (pw, _), _ in padded]) + 1)
            y = lanes.integers(0, np.array([ph - h for (_, ph), _ in padded]) + 1)
            return [{**p, "x": a - ox, "y": b - oy} for p, a, b, (_, (ox, oy))
                    in zip(pads, x.tolist(), y.tolist(), padded)]
        dx = np.array([s[0] for s in sizes]) - w
        dy = np.array([s[1] for s in sizes]) - h
        x = lanes.integers(np.minimum(dx, 0), np.maximum(dx, 0) + 1)
        y = lanes.integers(np.minimum(dy, 0), np.maximum(dy, 0) + 1)
        return [{"x": a, "y": b} for a, b in zip(x.tolist(), y.tolist())]

    def out_size(self, params, size):
        return self.size

    def map(self, params, size):
        return crop_map(params["x"], params["y"], *self.size, self.size), self.size


class RandomResizedCrop(Resampled):
    """torchvision's and albumentations' RandomResizedCrop: a box of a random ``scale`` of the
    area and aspect ``ratio`` = width / height (ten tries, then the centre crop the ratio
    allows), resized to ``size`` = (height, width) (an int: a square).

    Example:
        >>> from warpkit.augment import Compose
        >>> aug = Compose([RandomResizedCrop((224, 160))])
        >>> out = aug(image=np.zeros((480, 640, 3), np.uint8), seed=0)  # doctest: +SKIP
        >>> out["image"].shape                                          # doctest: +SKIP
        (224, 160, 3)
    """

    resizes = True  # (albumentations applies it with cv2.resize)
    # its masks: INTER_AREA on every sample with area_for_downscale="image_mask"
    mask_area_always = True

    keeps_axes = True

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3 / 4, 4 / 3), p: float = 1.0, *,
                 interpolation: Any = None, mask_interpolation: Any = None,
                 area_for_downscale: Any = None) -> None:
        super().__init__(p)
        self.given_resampling(interpolation, mask_interpolation,
                              area_for_downscale=area_for_downscale)
        self.size = size_arg(size, "size")
        self.scale = value_range(scale, "scale", False, 0, 1)[0]
        self.ratio = value_range(ratio, "ratio", False, 1e-6, math.inf)[0]
        if self.scale[1] <= 0:
            raise ValueError(f"scale must reach above 0, got {scale!r}")

    def draw(self, rng, size):
        W, H = size
        area = W * H
        log_r = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        (s0, s1), (r0, r1) = self.scale, log_r
        for _ in range(10):  # uniform(a, b) as numpy computes it, without its per-call cost
            target = area * (s0 + (s1 - s0) * rng.random())
            aspect = math.exp(r0 + (r1 - r0) * rng.random())
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= W and 0 < h <= H:
                return {"box": [int(rng.integers(0, W - w + 1)), int(rng.integers(0, H - h + 1)),
                                w, h]}
        return self._fallback(W, H)

    def draw_lanes(self, lanes, sizes):
        """:meth:`draw` for a batch: each sample's tries' doubles read ahead (two a try), its
        first fitting try found (the same operations on the same doubles: sqrt and rounding
        are exact in numpy as in Python, exp is Python's own), then the doubles of the tries
        made drawn and the box's position drawn."""
        n = len(sizes)
        W = np.array([s[0] for s in sizes], np.int64)
        H = np.array([s[1] for s in sizes], np.int64)
        (s0, s1) = self.scale
        r0, r1 = math.log(self.ratio[0]), math.log(self.ratio[1])
        u = lanes.ahead(20)
        tries = np.full(n, 10)  # the try that fitted, 10 for none
        w, h = np.ones(n, np.int64), np.ones(n, np.int64)
        todo = np.arange(n)
        for k in range(10):
            target = (W[todo] * H[todo]) * (s0 + (s1 - s0) * u[todo, 2 * k])
            aspect = np.array([math.exp(v) for v in (r0 + (r1 - r0) * u[todo, 2 * k + 1]).tolist()])
            tw, th = np.rint(np.sqrt(target * aspect)), np.rint(np.sqrt(target / aspect))
            fit = (tw > 0) & (tw <= W[todo]) & (th > 0) & (th <= H[todo])
            done = todo[fit]
            tries[done] = k
            w[done], h[done] = tw[fit], th[fit]
            todo = todo[~fit]
            if not len(todo):
                break
        lanes.skip(np.minimum(2 * tries + 2, 20))
        fitted = tries < 10
        x = lanes.integers(0, W - w + 1, fitted).tolist()
        y = lanes.integers(0, H - h + 1, fitted).tolist()
        w, h = w.tolist(), h.tolist()
        return [{"box": [x[i], y[i], w[i], h[i]]} if fitted[i] else self._fallback(*sizes[i])
                for i in range(n)]

    def _fallback(self, W: int, H: int) -> dict:
        """The centre crop the ratio allows, where ten tries found no box."""
        in_ratio = W / H
        if in_ratio < self.ratio[0]:
            w, h = W, int(round(W / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            w, h = int(round(H * self.ratio[1])), H
        else:
            w, h = W, H
        # an extreme ratio rounds a side to 0 (or past the image): at least one pixel, at most
        # the image
        w, h = min(max(w, 1), W), min(max(h, 1), H)
        return {"box": [(W - w) // 2, (H - h) // 2, w, h]}

    def map(self, params, size):
        x0, y0, w, h = params["box"]
        return crop_map(x0, y0, w, h, self.size), self.size

    def out_size(self, params, size):
        return self.size

    def maps(self, plist, sizes):
        return row_maps(plist, sizes, lambda p, s: (crop_row(*p["box"], self.size), self.size))

    def config(self):
        return {"size": size_hw(self.size), "scale": list(self.scale), "ratio": list(self.ratio),
                **self.resampling_config()}


class RandomSizedCrop(RandomResizedCrop):
    """albumentations' RandomSizedCrop: a crop ``crop_h`` rows tall (a whole number drawn from
    ``min_max_height``, both ends included) and ``int(crop_h * w2h_ratio)`` wide (each cut to
    the image), placed at a random start (``int((H - crop_h + 1) * u)`` for a uniform ``u``, the
    same for x), resized to ``size`` = (height, width). The draws, in albumentations' order
    (the height, then the row's start, then the column's), come from the sample's stream.

    Example:
        >>> t = RandomSizedCrop(min_max_height=(50, 50), size=(32, 32), w2h_ratio=2.0)
        >>> t.draw(np.random.default_rng(0), (200, 100))["box"][2:]    # width 100, height 50
        [100, 50]
    """

    def __init__(self, min_max_height: Sequence[int], size: Any, w2h_ratio: float = 1.0,
                 interpolation: Any = 1, mask_interpolation: Any = 0,
                 area_for_downscale: Any = None, p: float = 1.0) -> None:
        super().__init__(size, p=p, interpolation=interpolation,
                         mask_interpolation=mask_interpolation,
                         area_for_downscale=area_for_downscale)
        lo, hi = value_range(min_max_height, "min_max_height", False, 1, math.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"min_max_height must be whole rows, got {min_max_height!r}")
        self.min_max_height = (int(lo), int(hi))
        self.w2h_ratio = number(w2h_ratio, "w2h_ratio")
        if not self.w2h_ratio > 0:
            raise ValueError(f"w2h_ratio must be > 0, got {w2h_ratio!r}")

    def _box(self, h: int, u_y: float, u_x: float, size: tuple[int, int]) -> dict:
        """albumentations' get_crop_coords: the crop cut to the image, then placed."""
        W, H = size
        ch, cw = min(h, H), min(int(h * self.w2h_ratio), W)
        y, x = int((H - ch + 1) * u_y), int((W - cw + 1) * u_x)
        return {"box": [x, y, cw, ch]}

    def draw(self, rng, size):
        h = int(rng.integers(self.min_max_height[0], self.min_max_height[1] + 1))
        return self._box(h, rng.random(), rng.random(), size)

    def draw_lanes(self, lanes, sizes):
        h = lanes.integers(self.min_max_height[0], self.min_max_height[1] + 1).tolist()
        u_y, u_x = lanes.random().tolist(), lanes.random().tolist()
        return [self._box(*v, s) for *v, s in zip(h, u_y, u_x, sizes)]

    def config(self):
        return {"min_max_height": list(self.min_max_height), "size": size_hw(self.size),
                "w2h_ratio": self.w2h_ratio, **self.resampling_config()}


class Pad(Resampled):
    """Add ``padding`` pixels around the image: one number for every side, (x, y), or (left,
    top, right, bottom); the border follows the pipeline's padding."""

    keeps_axes = True

    def __init__(self, padding: Any, p: float = 1.0, *, fill: Any = None, fill_mask: Any = None,
                 border_mode: Any = None) -> None:
        super().__init__(p)
        self.given_resampling(border_mode=border_mode, fill=fill, fill_mask=fill_mask)
        v = [padding] if isinstance(padding, numbers.Integral) else list(padding)
        if len(v) not in (1, 2, 4) or any(isinstance(x, bool) or not isinstance(x, numbers.Integral)
                                           or x < 0 for x in v):
            raise ValueError(f"padding must be whole pixels >= 0: n, (x, y) or (left, top, "
                             f"right, bottom), got {padding!r}")
        v = [int(x) for x in v]
        self.padding = v * 4 if len(v) == 1 else (v * 2 if len(v) == 2 else v)

    def map(self, params, size):
        left, top, right, bottom = self.padding
        out = (size[0] + left + right, size[1] + top + bottom)
        return geometry.translation(left, top), out

    def config(self):
        return {"padding": self.padding, **self.resampling_config()}
