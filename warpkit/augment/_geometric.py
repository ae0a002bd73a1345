"""albumentations' geometric transforms under their own names and parameters: ``Affine``,
``ShiftScaleRotate``, ``Rotate``, ``SafeRotate``, ``Perspective``, ``HorizontalFlip``,
``VerticalFlip``, ``Transpose``, ``D4``, ``CropAndPad`` and the letterbox's sizes, so that a
recipe ports by changing its import.

Each builds albumentations 2.0.8's matrix from the same parameters (:func:`affine_matrix` is its
``create_affine_transformation_matrix``: scale, rotation, shear and translation about the
image's centre, pixel centres at integers, source to destination), and its output size
(``fit_output``, ``crop_border``, SafeRotate's shrink back to the input size). Their draws come
from the sample's stream, as every warpkit transform's, so they replay from (seed, epoch,
index); with fixed parameters (a range of one value) the result is albumentations' own.

albumentations sets the resampling per transform (``interpolation``, ``border_mode``, ``fill``,
``fill_mask``); a warpkit pipeline resamples once, so these become the pipeline's
(:meth:`Transform.settings`): two transforms that set them differently are refused, naming
both (see :class:`~warpkit.augment.Compose`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import geometry
from .._checks import count, flag, number
from ._base import (Resampled, Transform, about_centres, crop_map, normals, plain,
                    value_range)
from ._transforms import (PAD_POSITIONS, RandomHorizontalFlip, RandomVerticalFlip, _OneLane,
                          _pad_to, draw_pad, draw_pad_lanes, pad_origin)

__all__ = ["Affine", "CropAndPad", "D4", "HorizontalFlip", "LongestMaxSize", "PadIfNeeded",
           "Perspective", "RandomScale", "Rotate", "SafeRotate", "ShiftScaleRotate",
           "SmallestMaxSize", "SquareSymmetry", "TimeReverse", "Transpose", "VerticalFlip"]

def affine_matrix(translate: tuple[float, float], shear: tuple[float, float],
                  scale: tuple[float, float], rotate: float,
                  centre: tuple[float, float]) -> np.ndarray:
    """albumentations' ``create_affine_transformation_matrix``: about ``centre``, scale, then
    rotate ``rotate`` degrees (counter-clockwise on the screen), then shear (x and y angles in
    degrees, as albumentations applies them: ``tan`` of each off the diagonal), then translate
    by ``translate`` pixels. The same float64 operations in the same order."""
    r = np.deg2rad(rotate % 360)
    sx, sy = np.deg2rad(shear[0]), np.deg2rad(shear[1])
    shift_tl = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])
    m_scale = np.array([[scale[0], 0, 0], [0, scale[1], 0], [0, 0, 1]])
    m_rot = np.array([[np.cos(r), np.sin(r), 0], [-np.sin(r), np.cos(r), 0], [0, 0, 1]])
    m_shear = np.array([[1, np.tan(sx), 0], [np.tan(sy), 1, 0], [0, 0, 1]])
    m_move = np.array([[1, 0, translate[0]], [0, 1, translate[1]], [0, 0, 1]])
    shift_c = np.array([[1, 0, centre[0]], [0, 1, centre[1]], [0, 0, 1]])
    m = shift_c @ m_move @ m_shear @ m_rot @ m_scale @ shift_tl
    m[2] = [0, 0, 1]
    return m


def _centre(size: tuple[int, int]) -> tuple[float, float]:
    return size[0] / 2 - 0.5, size[1] / 2 - 0.5


def _fit(m: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
    """albumentations' ``fit_output``: the output that holds the image's corners (its
    ``compute_affine_warp_output_shape``, which maps the corner points (0, 0) ... (W, H))."""
    w, h = size
    c = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]]) @ m.T
    c = c[:, :2] / c[:, 2:]
    lo, hi = np.floor(c.min(0)).astype(int), np.ceil(c.max(0)).astype(int)
    out = (int(hi[0] - lo[0] + 1), int(hi[1] - lo[1] + 1))
    return np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]]) @ m, out


def _axes(value: Any, arg: str, default: float, symmetric: bool = False
          ) -> tuple[tuple[float, float], tuple[float, float]]:
    """albumentations' per-axis argument: a number (one value: both axes, fixed; with
    ``symmetric``, the range (-v, v)), (low, high) (both axes, drawn each) or a dict with "x"
    and/or "y" (each a number or a range; a missing axis is ``default``)."""
    if isinstance(value, dict):
        if not set(value) & {"x", "y"} or set(value) - {"x", "y"}:
            raise ValueError(f"{arg} as a dict takes the keys 'x' and/or 'y', got {value!r}")
        return tuple(value_range(value.get(k, default), f"{arg}[{k!r}]", symmetric,
                                 -math.inf, math.inf)[0] for k in ("x", "y"))
    r = value_range(value, arg, symmetric, -math.inf, math.inf)[0]
    return r, r


def _balanced(lo: float, hi: float) -> list[tuple[float, float]]:
    """albumentations' balanced_scale: the parts of a zoom range below 1 and above 1, one
    drawn first with equal odds (none: the zoom is 1)."""
    return [r for r in ((lo, 1.0) if lo < 1 else None, (1.0, hi) if hi > 1 else None)
            if r is not None]


class Affine(Resampled):
    """albumentations' Affine: scale, rotate, shear and translate about the image's centre.

    Args (albumentations 2.0.8's):
        scale: the zoom: a number (fixed), (low, high) (x and y drawn each, unless
            ``keep_ratio``), or {"x": ..., "y": ...}.
        translate_percent: the shift as a fraction of the width / height (a number is a fixed
            shift; (low, high) draws; a dict per axis), truncated to whole pixels as
            albumentations does; or ``translate_px``: whole pixels, drawn inclusive. Not both.
        rotate: degrees counter-clockwise: a number (fixed) or (low, high).
        shear: degrees: a number (fixed, x and y), (low, high) (x **and** y drawn each), or a
            dict per axis. As albumentations, the drawn angle is negated.
        fit_output: grow the output to hold the whole warped image.
        keep_ratio: one scale for both axes (x's).
        rotate_method: ``"largest_box"`` (boxes become the box around their mapped corners)
            or ``"ellipse"`` (around their inscribed ellipse, 360 points, as albumentations;
            where this step is the pipeline's only one that turns or shears).
        balanced_scale: draw the zoom from below 1 or above 1 with equal odds.
        interpolation, mask_interpolation, border_mode, fill, fill_mask: OpenCV's codes (or
            warpkit's names); they become the pipeline's one resampling.
        p: the probability (0.5, as albumentations).

    Example:
        >>> import cv2, numpy as np
        >>> from warpkit.augment import Affine, Compose
        >>> aug = Compose([Affine(rotate=(-15, 15), shear=(-5, 5), scale=(0.9, 1.1),
        ...                       border_mode=cv2.BORDER_REFLECT_101, p=1)])
        >>> aug.padding
        'reflect_101'
    """

    def __init__(self, scale: Any = (1.0, 1.0), translate_percent: Any = None,
                 translate_px: Any = None, rotate: Any = 0.0, shear: Any = (0.0, 0.0),
                 interpolation: Any = 1, mask_interpolation: Any = 0, fit_output: bool = False,
                 keep_ratio: bool = False, rotate_method: str = "largest_box",
                 balanced_scale: bool = False, border_mode: Any = 0, fill: Any = 0,
                 fill_mask: Any = 0, p: float = 0.5) -> None:
        super().__init__(p)
        self._scale = _axes(scale, "scale", 1.0)
        if translate_percent is not None and translate_px is not None:
            raise ValueError("give translate_percent or translate_px, not both")
        self.translate_percent, self.translate_px = translate_percent, translate_px
        if translate_px is not None:
            self._move = _axes(translate_px, "translate_px", 0)
            if any(v != int(v) for r in self._move for v in r):
                raise ValueError(f"translate_px is whole pixels, got {translate_px!r}")
        else:
            self._move = _axes(0.0 if translate_percent is None else translate_percent,
                               "translate_percent", 0.0)
        self._rotate = value_range(rotate, "rotate", False, -math.inf, math.inf)[0]
        self._shear = _axes(shear, "shear", 0.0)
        self.fit_output = flag(fit_output, "fit_output")
        self.keep_ratio = flag(keep_ratio, "keep_ratio")
        self.balanced_scale = flag(balanced_scale, "balanced_scale")
        if self.keep_ratio and self._scale[0] != self._scale[1]:
            raise ValueError(f"keep_ratio=True needs one scale range for x and y, got {scale!r}")
        self._args = {"scale": scale, "translate_percent": translate_percent,
                      "translate_px": translate_px, "rotate": rotate, "shear": shear}
        self._resampling(interpolation, mask_interpolation, border_mode, fill, fill_mask,
                         rotate_method)

    def _draw_scale(self, rng) -> list[float]:
        out = []
        for lo, hi in self._scale:
            if self.balanced_scale:
                parts = _balanced(lo, hi)
                if not parts:
                    out.append(1.0)
                    continue
                lo, hi = parts[int(rng.integers(len(parts)))]
            out.append(lo + (hi - lo) * rng.random())
        if self.keep_ratio:
            out[1] = out[0]
        return out

    def draw(self, rng, size):
        w, h = size
        if self.translate_px is not None:
            move = [int(rng.integers(int(lo), int(hi) + 1)) for lo, hi in self._move]
        else:  # a fraction of the side, truncated to whole pixels (albumentations' int())
            move = [int((lo + (hi - lo) * rng.random()) * side)
                    for (lo, hi), side in zip(self._move, (w, h))]
        shear = [-(lo + (hi - lo) * rng.random()) for lo, hi in self._shear]
        scale = self._draw_scale(rng)
        lo, hi = self._rotate
        return {"translate": move, "shear": shear, "scale": scale,
                "rotate": lo + (hi - lo) * rng.random()}

    def draw_lanes(self, lanes, sizes):
        """:meth:`draw` for a batch: each number drawn for every sample in the same order."""
        if self.translate_px is not None:
            move = [lanes.integers(int(lo), int(hi) + 1) for lo, hi in self._move]
        else:
            side = np.array(sizes, np.float64).T
            move = [((lo + (hi - lo) * lanes.random()) * s).astype(np.int64)
                    for (lo, hi), s in zip(self._move, side)]
        shear = [-(lo + (hi - lo) * lanes.random()) for lo, hi in self._shear]
        scale = []
        for lo, hi in self._scale:
            if self.balanced_scale:
                parts = _balanced(lo, hi)
                if not parts:
                    scale.append(np.ones(len(sizes)))
                    continue
                pick = np.asarray(parts)[lanes.integers(0, len(parts))]
                lo, hi = pick[:, 0], pick[:, 1]
            scale.append(lo + (hi - lo) * lanes.random())
        if self.keep_ratio:
            scale[1] = scale[0]
        lo, hi = self._rotate
        rotate = (lo + (hi - lo) * lanes.random()).tolist()
        move, shear, scale = (np.stack(v, 1).tolist() for v in (move, shear, scale))
        return [{"translate": m, "shear": sh, "scale": sc, "rotate": r}
                for m, sh, sc, r in zip(move, shear, scale, rotate)]

    def map(self, params, size):
        m = affine_matrix(params["translate"], params["shear"], params["scale"],
                          params["rotate"], _centre(size))
        return _fit(m, size) if self.fit_output else (m, size)

    def config(self):
        return {**{k: plain(v) for k, v in self._args.items()}, "fit_output": self.fit_output,
                "keep_ratio": self.keep_ratio, "rotate_method": self.rotate_method,
                "balanced_scale": self.balanced_scale, **self.resampling_config()}


class ShiftScaleRotate(Affine):
    """albumentations' ShiftScaleRotate, its Affine with ``translate_percent`` from
    ``shift_limit`` (per axis: ``shift_limit_x``, ``shift_limit_y``), ``scale`` 1 +
    ``scale_limit`` (x and y drawn each, as albumentations 2.0.8 does) and ``rotate`` from
    ``rotate_limit``; a number ``v`` is the range (-v, v)."""

    def __init__(self, shift_limit: Any = (-0.0625, 0.0625), scale_limit: Any = (-0.1, 0.1),
                 rotate_limit: Any = (-45, 45), interpolation: Any = 1, border_mode: Any = 0,
                 shift_limit_x: Any = None, shift_limit_y: Any = None,
                 rotate_method: str = "largest_box", mask_interpolation: Any = 0,
                 fill: Any = 0, fill_mask: Any = 0, p: float = 0.5) -> None:
        sym = {k: value_range(v, k, True, -math.inf, math.inf)[0] for k, v in
               (("shift_limit_x", shift_limit if shift_limit_x is None else shift_limit_x),
                ("shift_limit_y", shift_limit if shift_limit_y is None else shift_limit_y),
                ("scale_limit", scale_limit), ("rotate_limit", rotate_limit))}
        for k in ("shift_limit_x", "shift_limit_y"):
            if min(sym[k]) < -1 or max(sym[k]) > 1:
                raise ValueError(f"{k} must lie in [-1, 1], got {sym[k]}")
        sc = tuple(1.0 + v for v in sym["scale_limit"])
        if sc[0] < 0:
            raise ValueError(f"scale_limit must keep 1 + scale_limit >= 0, got {scale_limit!r}")
        super().__init__(scale=sc, translate_percent={"x": sym["shift_limit_x"],
                                                      "y": sym["shift_limit_y"]},
                         rotate=sym["rotate_limit"], interpolation=interpolation,
                         mask_interpolation=mask_interpolation, rotate_method=rotate_method,
                         border_mode=border_mode, fill=fill, fill_mask=fill_mask, p=p)
        self._own = {"shift_limit_x": list(sym["shift_limit_x"]),
                     "shift_limit_y": list(sym["shift_limit_y"]),
                     "scale_limit": list(sym["scale_limit"]),
                     "rotate_limit": list(sym["rotate_limit"]), "rotate_method": rotate_method}

    def config(self):
        return {**self._own, **self.resampling_config()}


class Rotate(Resampled):
    """albumentations' Rotate: an angle from ``limit`` (a number ``v``: (-v, v)) about the
    centre, the output the input's size; ``crop_border`` crops it to the largest upright
    rectangle inside the rotated image (albumentations' rule, which rounds its corners
    inwards)."""

    def __init__(self, limit: Any = (-90, 90), interpolation: Any = 1, border_mode: Any = 0,
                 rotate_method: str = "largest_box", crop_border: bool = False,
                 mask_interpolation: Any = 0, fill: Any = 0, fill_mask: Any = 0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.limit = value_range(limit, "limit", True, -math.inf, math.inf)[0]
        self.crop_border = flag(crop_border, "crop_border")
        self._resampling(interpolation, mask_interpolation, border_mode, fill, fill_mask,
                         rotate_method)

    def draw(self, rng, size):
        lo, hi = self.limit
        return {"angle": lo + (hi - lo) * rng.random()}

    def draw_lanes(self, lanes, sizes):
        return [{"angle": a} for a in lanes.uniform(*self.limit).tolist()]

    def map(self, params, size):
        m = affine_matrix((0, 0), (0, 0), (1, 1), params["angle"], _centre(size))
        if not self.crop_border:
            return m, size
        x0, x1, y0, y1 = _largest_rect(size, params["angle"])
        return geometry.translation(-x0, -y0) @ m, (x1 - x0, y1 - y0)

    def config(self):
        return {"limit": list(self.limit), "crop_border": self.crop_border,
                "rotate_method": self.rotate_method, **self.resampling_config()}


#: albumentations' Perspective folds each corner's normal draw into [0, 0.32) of the side
_JITTER_PERIOD = 0.32


def _corner_points(jitter: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """albumentations' ``generate_perspective_points`` after its draw: |normal| folded into
    [0, 0.32), each corner moved inwards by that fraction of the side, in pixels (top-left,
    top-right, bottom-right, bottom-left; x, y)."""
    w, h = size
    p = np.mod(np.abs(jitter), _JITTER_PERIOD).reshape(-1, 4, 2)
    p[:, 1, 0] = 1.0 - p[:, 1, 0]
    p[:, 2] = 1.0 - p[:, 2]
    p[:, 3, 1] = 1.0 - p[:, 3, 1]
    p[..., 0] *= w
    p[..., 1] *= h
    return p


def _order_points(pts: np.ndarray) -> np.ndarray:
    """albumentations' ``order_points``: the two leftmost points (a stable sort on x) are the
    left side, each side's upper point (smaller y; ties: the later one) its top; returned as
    float32 (top-left, top-right, bottom-right, bottom-left)."""
    pts = pts[np.argsort(pts[:, 0], kind="stable")]
    (a, b), (c, d) = pts[:2], pts[2:]
    tl, bl = (a, b) if a[1] < b[1] else (b, a)
    tr, br = (c, d) if c[1] < d[1] else (d, c)
    return np.array([tl, tr, br, bl], dtype=np.float32)


def _side(p: np.ndarray, q: np.ndarray, min_size: int = 2) -> np.floating:
    """albumentations' ``adjust_dimension``: the length from q to p (float32), and where it is
    under ``min_size`` the two points pushed apart in place, coordinate by coordinate, exactly
    as albumentations' masks (each recomputed after the step before) do."""
    size = np.sqrt(np.sum((p - q) ** 2))
    if size < min_size:
        step = (min_size - size) / 2
        p[p > q] += step
        q[p > q] -= step
        p[p <= q] -= step
        q[p <= q] += step
        size = min_size
    return size


def _to_corners(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """``cv2.getPerspectiveTransform(src, dst)`` for float32 corners: the homography, solved
    in float64."""
    return geometry.perspective_from_points(src.astype(np.float64), dst.astype(np.float64))


class Perspective(Resampled):
    """albumentations' Perspective: the four corners moved inwards at random and the quad they
    make stretched back over the image.

    Each corner moves inwards by |N(0, s)| of the width and of the height (folded into
    [0, 0.32) as albumentations does), ``s`` drawn from ``scale`` per sample; the moved
    corners, ordered as albumentations orders them, go to the image's corners (0, 0), (W, 0),
    (W, H), (0, H), pixel centres at integers (OpenCV's convention, which albumentations
    keeps). The output is the quad's size, the longer of each pair of opposite sides (cut to
    whole pixels), or with ``keep_size`` the input's size, the map scaled by input / that size
    (albumentations' arithmetic, which stretches the quad's frame, not the image's: kept so
    that a port gives the same pixels). ``fit_output`` first moves and grows the frame to hold
    the whole warped image.

    Args (albumentations 2.0.8's):
        scale: the corners' standard deviation as a fraction of the side: (low, high), drawn
            per sample; a number ``s`` is (0, s).
        keep_size: resize the result back to the input's size.
        fit_output: the output frame holds the whole warped image.
        interpolation, mask_interpolation, border_mode, fill, fill_mask: OpenCV's codes (or
            warpkit's names); they become the pipeline's one resampling.
        p: the probability (0.5, as albumentations).

    The corners' normal numbers are drawn from the sample's stream (by Box-Muller from its
    uniform numbers, so that a batch draws them side by side) and recorded as ``points``, the
    corners in pixels before ordering: a replay, or albumentations given the same points,
    makes the same map. Keypoint angles turn with the map's local rotation at each point and
    scales with its local scale (albumentations adds the angle of the matrix's first column
    and scales by its larger row norm, whatever the point).

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, Perspective
        >>> aug = Compose([Perspective(scale=(0.05, 0.1), p=1)])
        >>> m, size = aug.transforms[0].map({"points": [[10, 5], [90, 8], [95, 70], [4, 78]]},
        ...                                 (100, 80))
        >>> size
        (100, 80)
    """

    def __init__(self, scale: Any = (0.05, 0.1), keep_size: bool = True,
                 fit_output: bool = False, interpolation: Any = 1, mask_interpolation: Any = 0,
                 border_mode: Any = 0, fill: Any = 0, fill_mask: Any = 0,
                 p: float = 0.5) -> None:
        super().__init__(p)
        if not isinstance(scale, (list, tuple)):
            scale = (0.0, number(scale, "scale"))
        self.scale = value_range(scale, "scale", False, 0.0, math.inf)[0]
        self.keep_size = flag(keep_size, "keep_size")
        self.fit_output = flag(fit_output, "fit_output")
        self._resampling(interpolation, mask_interpolation, border_mode, fill, fill_mask)

    def _points(self, s: np.ndarray, u: np.ndarray, sizes: list[tuple[int, int]]) -> list[dict]:
        jitter = s[:, None] * normals(u)
        return [{"points": _corner_points(j, size)[0].tolist()}
                for j, size in zip(jitter, sizes)]

    def draw(self, rng, size):
        lo, hi = self.scale
        s = lo + (hi - lo) * rng.random()
        return self._points(np.array([s]), rng.random(8)[None], [size])[0]

    def draw_lanes(self, lanes, sizes):
        s = lanes.uniform(*self.scale)
        return self._points(s, lanes.random(k=8).reshape(-1, 8), sizes)

    def map(self, params, size):
        w, h = size
        pts = np.asarray(params["points"], np.float64)
        if pts.shape != (4, 2) or not np.isfinite(pts).all():
            raise ValueError(f"Perspective: points must be 4 finite (x, y) corners, got "
                             f"{params['points']!r}")
        pts = _order_points(pts)
        tl, tr, br, bl = pts  # (views: _side moves the points as albumentations does)
        out_w = int(max(_side(tr, tl), _side(br, bl)))
        out_h = int(max(_side(br, tr), _side(bl, tl)))
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
        try:
            m = _to_corners(pts, frame)
        except ValueError:
            raise ValueError(f"Perspective: the corners {pts.tolist()} have three on one "
                             f"line") from None
        if self.fit_output:  # albumentations' expand_transform
            c = np.c_[frame, np.ones(4)] @ m.T
            dst = (c[:, :2] / c[:, 2:]).astype(np.float32)
            dst -= dst.min(axis=0, keepdims=True)
            dst = np.around(dst, decimals=0)
            m = _to_corners(frame, dst)
            out_w, out_h = (int(v) for v in dst.max(axis=0))
        out_w, out_h = max(out_w, 1), max(out_h, 1)
        if not self.keep_size:
            return m, (out_w, out_h)
        return np.diag([w / out_w, h / out_h, 1.0]) @ m, size

    def config(self):
        return {"scale": list(self.scale), "keep_size": self.keep_size,
                "fit_output": self.fit_output, **self.resampling_config()}


def _largest_rect(size: tuple[int, int], angle: float) -> tuple[int, int, int, int]:
    """albumentations' ``_rotated_rect_with_max_area``: (x_min, x_max, y_min, y_max) of the
    largest upright rectangle inside the image rotated by ``angle`` degrees."""
    width, height = size
    a = math.radians(angle)
    wide = width >= height
    long_side, short_side = (width, height) if wide else (height, width)
    sin_a, cos_a = abs(math.sin(a)), abs(math.cos(a))
    if short_side <= 2.0 * sin_a * cos_a * long_side or abs(sin_a - cos_a) < 1e-10:
        x = 0.5 * short_side
        wr, hr = (x / sin_a, x / cos_a) if wide else (x / cos_a, x / sin_a)
    else:
        cos_2a = cos_a * cos_a - sin_a * sin_a
        wr, hr = (width * cos_a - height * sin_a) / cos_2a, \
            (height * cos_a - width * sin_a) / cos_2a
    x0, x1 = max(0, int(width / 2 - wr / 2)), min(width, int(width / 2 + wr / 2))
    y0, y1 = max(0, int(height / 2 - hr / 2)), min(height, int(height / 2 + hr / 2))
    if x1 <= x0 or y1 <= y0:  # an angle whose rectangle rounds to nothing
        raise ValueError(f"Rotate(crop_border=True): at {angle:.6g} degrees a {width}x{height} "
                         f"image leaves no upright rectangle")
    return x0, x1, y0, y1


class SafeRotate(Rotate):
    """albumentations' SafeRotate: an angle from ``limit`` about the centre, the whole rotated
    image shrunk back into the input's size (each axis on its own: the aspect changes)."""

    def __init__(self, limit: Any = (-90, 90), interpolation: Any = 1, border_mode: Any = 0,
                 rotate_method: str = "largest_box", mask_interpolation: Any = 0,
                 fill: Any = 0, fill_mask: Any = 0, p: float = 0.5) -> None:
        super().__init__(limit, interpolation, border_mode, rotate_method, False,
                         mask_interpolation, fill, fill_mask, p)

    def map(self, params, size):
        w, h = size
        cx, cy = _centre(size)
        a = math.radians(params["angle"])
        # cv2.getRotationMatrix2D(centre, angle, 1), its canvas, then the scale back
        c, s = math.cos(a), math.sin(a)
        r = np.array([[c, s, (1 - c) * cx - s * cy], [-s, c, s * cx + (1 - c) * cy], [0, 0, 1]])
        new_w, new_h = int(h * abs(s) + w * abs(c)), int(h * abs(c) + w * abs(s))
        r[0, 2] += new_w / 2 - cx
        r[1, 2] += new_h / 2 - cy
        return np.diag([w / new_w, h / new_h, 1.0]) @ r, size

    def config(self):
        return {"limit": list(self.limit), "rotate_method": self.rotate_method,
                **self.resampling_config()}


class HorizontalFlip(RandomHorizontalFlip):
    """albumentations' HorizontalFlip (``p=0.5``): :class:`RandomHorizontalFlip`."""


class TimeReverse(RandomHorizontalFlip):
    """albumentations' TimeReverse (``p=0.5``): a spectrogram's time reversed, albumentations'
    alias of HorizontalFlip: :class:`RandomHorizontalFlip`."""


class VerticalFlip(RandomVerticalFlip):
    """albumentations' VerticalFlip (``p=0.5``): :class:`RandomVerticalFlip`."""


#: D4's elements as albumentations names them, with their 2x2 linear parts (x' = a x + b y,
#: y' = c x + d y about the centres) and whether they swap width and height
D4_ELEMENTS = {"e": ((1, 0, 0, 1), False), "r90": ((0, 1, -1, 0), True),
               "r180": ((-1, 0, 0, -1), False), "r270": ((0, -1, 1, 0), True),
               "v": ((1, 0, 0, -1), False), "hvt": ((0, -1, -1, 0), True),
               "h": ((-1, 0, 0, 1), False), "t": ((0, 1, 1, 0), True)}


def _symmetry(name: str, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
    (a, b, c, d), swap = D4_ELEMENTS[name]
    out = (size[1], size[0]) if swap else size
    lin = np.array([[a, b, 0], [c, d, 0], [0, 0, 1]], np.float64)
    return about_centres(lin, size, out), out


class Transpose(Transform):
    """albumentations' Transpose (``p=0.5``): rows become columns (pixel (x, y) goes to
    (y, x)); the output is H wide and W high."""

    keeps_frame = True

    keeps_axes = True

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def map(self, params, size):
        return _symmetry("t", size)


class D4(Transform):
    """albumentations' D4 (``p=1``): one of the square's 8 symmetries, each as likely:
    ``e`` (none), ``r90``, ``r180``, ``r270`` (turns counter-clockwise, as ``np.rot90``),
    ``v``, ``h`` (flips), ``t`` (transpose), ``hvt`` (the transpose about the other
    diagonal)."""

    keeps_frame = True

    keeps_axes = True

    def __init__(self, p: float = 1.0) -> None:
        super().__init__(p)

    def draw(self, rng, size):
        return {"element": list(D4_ELEMENTS)[int(rng.integers(len(D4_ELEMENTS)))]}

    def draw_lanes(self, lanes, sizes):
        names = list(D4_ELEMENTS)
        return [{"element": names[k]} for k in lanes.integers(0, len(names)).tolist()]

    def map(self, params, size):
        return _symmetry(params["element"], size)


class SquareSymmetry(D4):
    """albumentations' SquareSymmetry, its later name for :class:`D4` (the same draws, the
    same 8 symmetries).

    Example:
        >>> SquareSymmetry().map({"element": "r90"}, (4, 3))[1]
        (3, 4)
    """


# ---- sizing and letterbox (detection recipes) ----------------------------------------------

def _resized(size: tuple[int, int], scale: float, rounding: Any = round
             ) -> tuple[np.ndarray, tuple[int, int]]:
    """The map and output of a resize by ``scale`` (each side ``rounding(side * scale)``, at
    least 1, as albumentations sizes it), pixel edges onto pixel edges."""
    w, h = size
    out = (max(1, int(rounding(w * scale))), max(1, int(rounding(h * scale))))
    return crop_map(0, 0, w, h, out), out


class _MaxSize(Resampled):
    """albumentations' MaxSizeTransform: a resize keeping the aspect, its scale from
    ``max_size`` (an int, or a list to choose from per sample) against one side, or from
    ``max_size_hw`` = (height, width), either None."""

    whole_frame = True

    resizes = True  # (albumentations applies it with cv2.resize)

    keeps_axes = True

    _side = staticmethod(max)  # which side max_size sets
    _both = staticmethod(min)  # how max_size_hw's two scales combine

    def __init__(self, max_size: int | list[int] | None = None,
                 max_size_hw: tuple[int | None, int | None] | None = None,
                 interpolation: Any = 1, mask_interpolation: Any = 0,
                 area_for_downscale: str | None = None, p: float = 1.0) -> None:
        super().__init__(p)
        name = type(self).__name__
        if (max_size is None) == (max_size_hw is None):
            raise ValueError(f"{name} takes max_size or max_size_hw, one of the two; got "
                             f"max_size={max_size!r}, max_size_hw={max_size_hw!r}")
        if isinstance(max_size, (list, tuple)):
            if not max_size:
                raise ValueError(f"{name} max_size must be an int or a list of them, got []")
            self.max_size = [count(v, f"{name} max_size", 1) for v in max_size]
        else:
            self.max_size = None if max_size is None else count(max_size, f"{name} max_size", 1)
        if max_size_hw is not None and (not isinstance(max_size_hw, (list, tuple))
                                        or len(max_size_hw) != 2
                                        or all(v is None for v in max_size_hw)):
            raise ValueError(f"{name} max_size_hw must be (height, width), each an int or None "
                             f"(not both), got {max_size_hw!r}")
        self.max_size_hw = None if max_size_hw is None else \
            tuple(None if v is None else count(v, f"{name} max_size_hw", 1) for v in max_size_hw)
        self.given_resampling(interpolation, mask_interpolation,
                              area_for_downscale=area_for_downscale)

    def draw(self, rng, size):
        if isinstance(self.max_size, list):  # albumentations' choice, from the stream
            return {"max_size": self.max_size[int(rng.integers(len(self.max_size)))]}
        return {}

    def draw_lanes(self, lanes, sizes):
        if isinstance(self.max_size, list):
            return [{"max_size": self.max_size[k]}
                    for k in lanes.integers(0, len(self.max_size)).tolist()]
        return [{} for _ in sizes]

    def _scale(self, params: dict, size: tuple[int, int]) -> float:
        w, h = size
        if self.max_size is not None:
            return params.get("max_size", self.max_size) / self._side(h, w)
        mh, mw = self.max_size_hw
        if mh is not None and mw is not None:
            return self._both(mh / h, mw / w)
        return mh / h if mh is not None else mw / w

    def map(self, params, size):
        return _resized(size, self._scale(params, size))

    def config(self):
        return {"max_size": self.max_size,
                "max_size_hw": None if self.max_size_hw is None else list(self.max_size_hw),
                **self.resampling_config()}


class LongestMaxSize(_MaxSize):
    """albumentations' LongestMaxSize: the longest side becomes ``max_size`` (an int, or a
    list: one chosen per sample), or the image fits inside ``max_size_hw`` = (height, width)
    (either None: that side alone), the aspect kept; sides round as albumentations rounds them.
    With :class:`PadIfNeeded`, the YOLO letterbox in one resampling.

    Example:
        >>> from warpkit.augment import Compose, LongestMaxSize, PadIfNeeded
        >>> letterbox = Compose([LongestMaxSize(max_size=640),
        ...                      PadIfNeeded(640, 640, border_mode=0, fill=114)])
        >>> letterbox.map(letterbox.sample((480, 800), seed=0), (800, 480))[1]  # (w, h)
        (640, 640)
    """


class SmallestMaxSize(_MaxSize):
    """albumentations' SmallestMaxSize: the shortest side becomes ``max_size`` (or the image
    covers ``max_size_hw`` = (height, width)), the aspect kept.

    Example:
        >>> SmallestMaxSize(max_size=256).map({}, (640, 480))[1]  # (w, h) in and out
        (341, 256)
    """

    _side = staticmethod(min)
    _both = staticmethod(max)


class RandomScale(Resampled):
    """albumentations' RandomScale: both sides scaled by one factor drawn from
    ``1 + scale_limit`` (a number v: (1 - v, 1 + v)); each side ``int(side * factor)``, as
    albumentations truncates it.

    Example:
        >>> t = RandomScale(scale_limit=(0.5, 0.5), p=1)
        >>> t.map({"scale": 1.5}, (640, 480))[1]
        (960, 720)
    """

    whole_frame = True

    resizes = True  # (albumentations applies it with cv2.resize)

    keeps_axes = True

    def __init__(self, scale_limit: Any = (-0.1, 0.1), interpolation: Any = 1,
                 mask_interpolation: Any = 0, area_for_downscale: str | None = None,
                 p: float = 0.5) -> None:
        super().__init__(p)
        self.scale_limit = value_range(scale_limit, "scale_limit", True, -1, math.inf)[0]
        if self.scale_limit[0] <= -1:
            raise ValueError(f"scale_limit must keep 1 + scale_limit above 0, got "
                             f"{scale_limit!r}")
        self.given_resampling(interpolation, mask_interpolation,
                              area_for_downscale=area_for_downscale)

    def draw(self, rng, size):
        lo, hi = self.scale_limit
        return {"scale": float(rng.uniform(1 + lo, 1 + hi))}

    def draw_lanes(self, lanes, sizes):
        lo, hi = self.scale_limit
        return [{"scale": s} for s in lanes.uniform(1 + lo, 1 + hi).tolist()]

    def map(self, params, size):
        return _resized(size, params["scale"], int)

    def config(self):
        return {"scale_limit": list(self.scale_limit), **self.resampling_config()}


#: PadIfNeeded's positions: where the image sits in the padded output


def _one_fill(fill: Any, arg: str) -> Any:
    """CropAndPad's fill: a number, or albumentations' sequence it draws one value from per
    call (two numbers: a range, more: a choice) when all its values are one (the pipeline's
    fill is fixed; a sequence of several values is refused)."""
    if isinstance(fill, (list, tuple)) and len(fill) >= 1:
        values = {number(v, arg) for v in fill}
        if len(values) != 1:
            raise ValueError(f"CropAndPad's {arg}={fill!r} is not supported: albumentations "
                             f"draws one value of it per call (a range or a choice), warpkit's "
                             f"fill is the pipeline's: give one number")
        return fill[0]
    number(fill, arg)
    return fill


class CropAndPad(Resampled):
    """albumentations' CropAndPad: each side of the image cropped (a negative amount) or padded
    (a positive one) by ``px`` pixels or ``percent`` of its side (truncated to pixels), then,
    with ``keep_size``, resized back to the image's size; one resampling in warpkit. The
    amounts (top, right, bottom, left), as albumentations reads them: a number for every side;
    a pair, a range (pixels: the high end excluded, ``(k, k)`` meaning k; drawn per side with
    ``sample_independently``, else once); four numbers, one per side; four pairs, a range per
    side; four lists, a choice per side. Crops that would leave no pixel are shrunk as
    albumentations shrinks them. The padding is the pipeline's (``border_mode``, ``fill``,
    ``fill_mask``); recorded: ``sides``, the amounts in pixels (+ pads, - crops).

    A reflected padding reads the image beyond a crop on the other side where the padding is
    wider than what the crop leaves (albumentations reflects the cropped image); a resize back
    reads the image beyond a cropped edge, where cv2.resize repeats the edge's pixels (the
    outermost output pixels can differ).

    Example:
        >>> t = CropAndPad(px=(-10, 20, 0, -5), keep_size=False)
        >>> t.map(t.draw(np.random.default_rng(0), (100, 80)), (100, 80))[1]
        (115, 70)
    """

    pads_first = True  # (its border fills before its resize: edges="each_step")

    resizes = True  # (albumentations applies it with cv2.resize)

    keeps_axes = True

    def __init__(self, px: Any = None, percent: Any = None, keep_size: bool = True,
                 sample_independently: bool = True, interpolation: Any = 1,
                 mask_interpolation: Any = 0, border_mode: Any = 0, fill: Any = 0,
                 fill_mask: Any = 0, p: float = 1.0) -> None:
        super().__init__(p)
        if (px is None) == (percent is None):
            raise ValueError(f"CropAndPad takes px or percent, one of the two; got px={px!r}, "
                             f"percent={percent!r}")
        self.px, self.percent = px, percent
        self.keep_size = flag(keep_size, "keep_size")
        # resized back, the padded image's border blends into the image as a pad then a resize
        # blends it (albumentations' order), so constant padding stays constant (not the
        # letterbox's constant_edge: a resize, then a pad)
        self.keeps_axes = not self.keep_size
        self.sample_independently = flag(sample_independently, "sample_independently")
        self._sides = self._parse(px if px is not None else percent, px is not None)
        self.given_resampling(interpolation, mask_interpolation, border_mode,
                              _one_fill(fill, "fill"), _one_fill(fill_mask, "fill_mask"))

    def _parse(self, v: Any, pixels: bool) -> tuple[str, list]:
        """("fixed", four amounts) | ("once", a range) | ("each", four (kind, values)): kind
        "range" (lo, hi) or "choice" (values)."""
        arg = "px" if pixels else "percent"

        def amount(x: Any) -> float:
            if pixels:
                if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
                    raise ValueError(f"CropAndPad's px must be whole pixels, got {x!r} in {v!r}")
                return int(x)
            return number(x, "CropAndPad's percent")

        def span(pair: Any) -> tuple:
            lo, hi = amount(pair[0]), amount(pair[1])
            if lo > hi:
                raise ValueError(f"CropAndPad's {arg} range must be (low, high) with low <= "
                                 f"high, got {pair!r}")
            return ("range", (lo, hi))

        if not isinstance(v, (list, tuple)):
            return ("fixed", [amount(v)] * 4)
        if len(v) == 2:
            kind, pair = span(v)
            return ("each", [(kind, pair)] * 4) if self.sample_independently else ("once", pair)
        if len(v) != 4:
            raise ValueError(f"CropAndPad's {arg} must be a number, a pair (a range) or four "
                             f"values (top, right, bottom, left), got {v!r}")
        if not isinstance(v[0], (list, tuple)):
            return ("fixed", [amount(x) for x in v])
        sides = []
        for side in v:
            if not isinstance(side, (list, tuple)) or not side:
                raise ValueError(f"CropAndPad's {arg} of four sides takes a pair or a list of "
                                 f"choices per side, got {side!r} in {v!r}")
            sides.append(span(side) if len(side) == 2 else
                         ("choice", [amount(x) for x in side]))
        return ("each", sides)

    def _draw(self, lanes: Any, n: int) -> np.ndarray:
        """(n, 4) amounts (top, right, bottom, left), each lane's drawn in albumentations'
        order (the sides from the top, clockwise)."""
        kind, spec = self._sides
        pixels = self.px is not None

        def one(k: str, values: Any) -> np.ndarray:
            if k == "choice":
                return np.asarray(values)[lanes.integers(0, len(values))]
            lo, hi = values
            if pixels:  # Python's randrange: the high end excluded ((k, k): k)
                return lanes.integers(lo, max(hi, lo + 1))
            return lanes.uniform(lo, hi)

        if kind == "fixed":
            return np.tile(np.asarray(spec, np.float64), (n, 1))
        if kind == "once":
            return np.repeat(np.asarray(one("range", spec), np.float64)[:, None], 4, 1)
        return np.stack([np.asarray(one(k, values), np.float64) for k, values in spec], 1)

    def _record(self, amounts: np.ndarray, sizes: list[tuple[int, int]]) -> list[dict]:
        if self.px is None:  # fractions of the side, truncated to pixels
            wh = np.array(sizes, np.float64)
            amounts = np.trunc(amounts * wh[:, [1, 0, 1, 0]])
        return [{"sides": [int(v) for v in row]} for row in amounts.tolist()]

    def draw(self, rng, size):
        return self._record(self._draw(_OneLane(rng), 1), [size])[0]

    def draw_lanes(self, lanes, sizes):
        return self._record(self._draw(lanes, len(sizes)), sizes)

    @staticmethod
    def _box(sides: list[int], size: tuple[int, int]) -> tuple[int, int, int, int]:
        """The source box (x0, y0, width, height) that becomes the output, padding included."""
        w, h = size
        pad = [max(v, 0) for v in sides]  # top, right, bottom, left
        crop = [-min(v, 0) for v in sides]
        if h - (crop[0] + crop[2]) < 1:
            crop[0], crop[2] = _keep_one(crop[0], crop[2], h)
        if w - (crop[3] + crop[1]) < 1:
            crop[3], crop[1] = _keep_one(crop[3], crop[1], w)
        crop = [max(v, 0) for v in crop]
        return (crop[3] - pad[3], crop[0] - pad[0], w - crop[3] - crop[1] + pad[3] + pad[1],
                h - crop[0] - crop[2] + pad[0] + pad[2])

    def map(self, params, size):
        x0, y0, bw, bh = self._box(params["sides"], size)
        out = (int(size[0]), int(size[1])) if self.keep_size else (bw, bh)
        return crop_map(x0, y0, bw, bh, out), out

    def out_size(self, params, size):
        return (int(size[0]), int(size[1])) if self.keep_size else \
            self._box(params["sides"], size)[2:]

    def config(self):
        return {"px": plain(self.px), "percent": plain(self.percent),
                "keep_size": self.keep_size, "sample_independently": self.sample_independently,
                **self.resampling_config()}


def _keep_one(first: int, second: int, side: int) -> tuple[int, int]:
    """albumentations' shrink of two opposite crops that leave no pixel of ``side``: together
    they give back side + 1 pixels, half each (the first the odd one), one taking over what the
    other cannot give."""
    regain = abs(side) + 1
    one, two = regain // 2, regain // 2
    if one + two < regain:
        one += 1
    if one > first:
        two += one - first
        one = first
    elif two > second:
        one += two - second
        two = second
    return first - one, second - two


class PadIfNeeded(Resampled):
    """albumentations' PadIfNeeded: pad to at least ``min_height`` x ``min_width``, or to the
    next multiples of ``pad_height_divisor`` / ``pad_width_divisor`` (one of the two per axis),
    the image at ``position`` (``"center"``, a corner, or ``"random"``: drawn per sample). The
    padding is the pipeline's (``border_mode``, ``fill``, ``fill_mask``); a pad is a shift, so
    after a resize it is still one resampling.

    Example:
        >>> PadIfNeeded(min_height=64, min_width=64, border_mode=0).map({}, (50, 30))
        (array([[ 1.,  0.,  7.],
               [ 0.,  1., 17.],
               [ 0.,  0.,  1.]]), (64, 64))
    """

    keeps_axes = True

    def __init__(self, min_height: int | None = 1024, min_width: int | None = 1024,
                 pad_height_divisor: int | None = None, pad_width_divisor: int | None = None,
                 position: str = "center", border_mode: Any = 0, fill: Any = 0,
                 fill_mask: Any = 0, p: float = 1.0) -> None:
        super().__init__(p)
        for a, b, an, bn in ((min_height, pad_height_divisor, "min_height", "pad_height_divisor"),
                             (min_width, pad_width_divisor, "min_width", "pad_width_divisor")):
            if (a is None) == (b is None):
                raise ValueError(f"PadIfNeeded takes {an} or {bn}, one of the two; got "
                                 f"{an}={a!r}, {bn}={b!r}")
            for v, n in ((a, an), (b, bn)):
                if v is not None:
                    count(v, f"PadIfNeeded {n}", 1)
        if position not in PAD_POSITIONS:
            raise ValueError(f"PadIfNeeded position must be one of "
                             f"{', '.join(map(repr, PAD_POSITIONS))}; got {position!r}")
        self.min_height, self.min_width = min_height, min_width
        self.pad_height_divisor, self.pad_width_divisor = pad_height_divisor, pad_width_divisor
        self.position = position
        self.given_resampling(border_mode=border_mode, fill=fill, fill_mask=fill_mask)

    def _pads(self, size: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
        """((left, right), (top, bottom)) centred, as albumentations computes them."""
        return (_pad_to(size[0], self.min_width, self.pad_width_divisor),
                _pad_to(size[1], self.min_height, self.pad_height_divisor))

    def draw(self, rng, size):
        return draw_pad(rng, self._pads(size)) if self.position == "random" else {}

    def draw_lanes(self, lanes, sizes):
        if self.position != "random":
            return [{} for _ in sizes]
        return draw_pad_lanes(lanes, [self._pads(s) for s in sizes])

    def map(self, params, size):
        pads = self._pads(size)
        x, y = pad_origin(self.position, pads, params)
        return geometry.translation(x, y), (size[0] + sum(pads[0]), size[1] + sum(pads[1]))

    def config(self):
        return {"min_height": self.min_height, "min_width": self.min_width,
                "pad_height_divisor": self.pad_height_divisor,
                "pad_width_divisor": self.pad_width_divisor, "position": self.position,
                **self.resampling_config()}
