"""Non-linear transforms: elastic deformation, grid and lens distortion, thin-plate splines.

Each gives a non-linear stage (:mod:`warpkit.augment._fields`: a coarse displacement field, a
displacement per axis or a lens) that the warp kernel evaluates while it samples, folded with the
pipeline's projective maps into the same launch. Parameters follow albumentations' transforms of the same names; where warpkit's
semantics differ, the class says so (docs/guide.md has the table). Parameters are plain data: a
field is regenerated from the integer ``seed`` it records, so replays and JSON need no arrays.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import numpy as np

from .. import geometry
from .._checks import number
from ..engine.stages import (AxisField, Blend, Field, NonLinear, Quads, gaussian_blur,
                             grid_points, grid_shape, lens, smooth_field)
from ._base import Resampled, value_range

__all__ = ["ElasticTransform", "GridDistortion", "GridElasticDeform", "OpticalDistortion",
           "PiecewiseAffine", "ThinPlateSpline"]


class FieldTransform(Resampled):
    """A transform whose map is a non-linear stage (the output keeps the input's size):
    subclasses give :meth:`field`; its matrix is the identity. They take albumentations'
    ``interpolation``, ``mask_interpolation``, ``border_mode``, ``fill`` and ``fill_mask``
    (OpenCV's codes or warpkit's names; None: the pipeline's), which become the pipeline's as
    the albumentations-named transforms' do, and its ``keypoint_remapping_method`` ("mask" or
    "direct": both approximate the field's exact inverse, which warpkit moves keypoints
    through)."""

    def _albumentations(self, keypoint_remapping_method: str, **resampling: Any) -> None:
        if keypoint_remapping_method not in ("mask", "direct"):
            raise ValueError(f"keypoint_remapping_method must be 'mask' or 'direct', got "
                             f"{keypoint_remapping_method!r}")
        self.given_resampling(**resampling)

    def map(self, params, size):
        return geometry.identity(), size

    def field(self, params: dict, size: tuple[int, int]) -> NonLinear:
        raise NotImplementedError

    def stages(self, params, size):
        if not params.get("applied", True):
            return [geometry.identity()], size
        return [self.field(params, size)], size


def _expected_max_abs(n: int) -> float:
    """The expected largest of n standard normal magnitudes (the max of 2n normals, Gumbel's
    limit): albumentations divides its per-pixel noise by its largest magnitude."""
    m = max(2 * n, 3)
    a = math.sqrt(2 * math.log(m))
    return a - (math.log(math.log(m)) + math.log(4 * math.pi)) / (2 * a) + 0.5772 / a


def _smooth_step(size: tuple[int, int]) -> float:
    """The grid spacing (pixels) of a smooth field over the whole frame: 8 px, finer on images
    smaller than 256 px (1/32 of the shorter side, at least 1 px)."""
    return min(8.0, max(1.0, min(size) / 32))


#: the largest values of the parameters that size a transform's work (its grids, its draws,
#: its linear system): past them a field costs gigabytes and seconds per image (sigma=1e9 on a
#: 40x32 image wanted 24 GB), far beyond what any augmentation uses
MAX_SIGMA = 10_000.0
MAX_NUM_STEPS = 1024
MAX_CONTROL_POINTS = 16
MAX_GRID_LINES = 128


def _bounded_int(value: Any, arg: str, lo: int, hi: int) -> int:
    """An int in [lo, hi], or an error naming the argument and the limit."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo:
        raise ValueError(f"{arg} must be an int >= {lo}, got {value!r}")
    if value > hi:
        raise ValueError(f"{arg} must be at most {hi} (it sizes the transform's work), got "
                         f"{value!r}")
    return int(value)


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**63 - 1))


class ElasticTransform(FieldTransform):
    """Elastic deformation (Simard et al.): random displacements smoothed by a Gaussian of
    ``sigma`` pixels and scaled by ``alpha``, as albumentations' ElasticTransform.

    The noise is drawn on a grid ``sigma`` pixels apart (at least 1 px) and smoothed there (a
    Gaussian of ``sigma`` leaves almost nothing of the noise finer than that grid: 0.7% at its
    Nyquist frequency), then resampled by Catmull-Rom to a grid 2-4 px apart that the kernel
    interpolates bilinearly. The field has the scale and the amplitude statistics of
    albumentations' per-pixel one (its noise normalised by its largest magnitude, as theirs)
    away from the borders, where albumentations' replicate-padded blur inflates it, for a small
    fraction of the work. ``same_dxdy`` uses one field for both axes; ``noise_distribution`` is
    ``"gaussian"`` or ``"uniform"``.
    """

    def __init__(self, alpha: float = 1.0, sigma: float = 50.0, same_dxdy: bool = False,
                 noise_distribution: str = "gaussian", p: float = 0.5, *,
                 approximate: bool = False, interpolation: Any = None, mask_interpolation: Any = None,
                 border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                 keypoint_remapping_method: str = "mask") -> None:
        super().__init__(p)
        self.approximate = bool(approximate)  # albumentations' speed switch: one field either way
        self._albumentations(keypoint_remapping_method, interpolation=interpolation,
                             mask_interpolation=mask_interpolation, border_mode=border_mode,
                             fill=fill, fill_mask=fill_mask)
        self.alpha = number(alpha, "alpha")
        self.sigma = number(sigma, "sigma")
        if self.alpha < 0 or self.sigma <= 0:
            raise ValueError(f"alpha must be >= 0 and sigma > 0, got alpha={alpha!r}, "
                             f"sigma={sigma!r}")
        if self.sigma > MAX_SIGMA:
            raise ValueError(f"sigma must be at most {MAX_SIGMA:g} pixels (it sizes the "
                             f"smoothing's work), got {sigma!r}")
        if noise_distribution not in ("gaussian", "uniform"):
            raise ValueError(f"noise_distribution must be 'gaussian' or 'uniform', got "
                             f"{noise_distribution!r}")
        self.same_dxdy = bool(same_dxdy)
        self.noise_distribution = noise_distribution

    def draw(self, rng, size):
        return {"seed": _seed(rng)}

    def field(self, params, size):
        W, H = size
        step = max(1.0, self.sigma)
        shape = grid_shape(size, step, most=2048, margin=1)
        # the grid's actual spacing, and the smoothing in grid units
        sx = max(W - 1, 1) / (shape[1] - 3)
        sy = max(H - 1, 1) / (shape[0] - 3)
        rng = np.random.default_rng(params["seed"])
        k = 1 if self.same_dxdy else 2
        if self.noise_distribution == "gaussian":
            noise = rng.standard_normal((*shape, k))
            noise /= _expected_max_abs(k * W * H)
        else:
            noise = rng.uniform(-1, 1, (*shape, k))
        smooth = gaussian_blur(noise, (self.sigma / sy, self.sigma / sx))
        # white noise smoothed on a grid of spacing s has sqrt(sx * sy) times the amplitude of
        # the same noise smoothed per pixel: scale back to the per-pixel field's
        disp = self.alpha * smooth / math.sqrt(sx * sy)
        if k == 1:
            disp = np.concatenate([disp, disp], -1)
        return smooth_field(disp, size, max(2.0, min(4.0, self.sigma / 2)))

    def config(self):
        return {"alpha": self.alpha, "sigma": self.sigma, "same_dxdy": self.same_dxdy,
                "noise_distribution": self.noise_distribution, **self.resampling_config()}


#: GridDistortion's cell layouts: albumentations 2.0.8's (its default), and the equal cells
#: warpkit laid before pipeline data format 4
GRID_CELLS = ("albumentations", "even")


class GridDistortion(FieldTransform):
    """Grid distortion, as albumentations' GridDistortion: each axis cut into cells, each
    cell's width (height) scaled by 1 + U(``distort_limit``), the cells rescaled to span the
    image again (``normalized``), and each output column (row) read from its place in the
    stretched cells: a map per axis, which the kernel evaluates exactly (a displacement per
    axis, linear between its points).

    ``cells``:

    - ``"albumentations"`` (the default): albumentations 2.0.8's table, value for value. Each
      axis has ``num_steps + 1`` cells of ``side // num_steps`` pixels, the last one the
      remainder, each drawn a scale (recorded as ``steps_x`` / ``steps_y``, ``num_steps + 1``
      each). Output pixel ``k`` of a cell reads the cell's ``k``-th point of
      ``linspace(start, end)``, so a cell's last pixel and the next one's first read the same
      place. ``normalized`` scales the remainder's step by its share of a cell, then all of
      them to span ``side / (side // num_steps)`` cells; where ``num_steps`` divides the side,
      its last pixel reads ``side``, past the image (the padding). Where a side is shorter
      than ``num_steps`` every pixel is a cell (albumentations divides by zero there, or,
      not normalized, reads pixel 0 from every pixel).
    - ``"even"``: ``num_steps`` equal cells over the pixel centres' span [0, side - 1] (steps
      ``num_steps`` each): warpkit's layout before format 4, which pipeline data written
      then keeps.

    Example:
        >>> import numpy as np
        >>> t = GridDistortion(num_steps=2, distort_limit=0.0, p=1)
        >>> t.table([0.0, 0.0, 0.0], 7).tolist()   # 3-px cells, a 1-px remainder
        [0.0, 1.5, 3.0, 3.0, 4.5, 6.0, 6.0]
    """

    def __init__(self, num_steps: int = 5, distort_limit: Any = (-0.3, 0.3),
                 normalized: bool = True, p: float = 0.5, *, interpolation: Any = None, mask_interpolation: Any = None,
                 border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                 keypoint_remapping_method: str = "mask", cells: str = "albumentations") -> None:
        super().__init__(p)
        self._albumentations(keypoint_remapping_method, interpolation=interpolation,
                             mask_interpolation=mask_interpolation, border_mode=border_mode,
                             fill=fill, fill_mask=fill_mask)
        self.num_steps = _bounded_int(num_steps, "num_steps", 1, MAX_NUM_STEPS)
        self.distort_limit = value_range(distort_limit, "distort_limit", True, -1, 1)[0]
        self.normalized = bool(normalized)
        if cells not in GRID_CELLS:
            raise ValueError(f"cells must be one of {', '.join(map(repr, GRID_CELLS))}, got "
                             f"{cells!r}")
        self.cells = cells

    def draw(self, rng, size):
        lo, hi = self.distort_limit
        n = self.num_steps + (self.cells == "albumentations")  # steps per axis
        steps = rng.uniform(lo, hi, 2 * n).tolist()  # the numbers of two draws of n, in one
        return {"steps_x": steps[:n], "steps_y": steps[n:]}

    def table(self, steps: list[float], side: int) -> np.ndarray:
        """albumentations' ``generate_grid`` along one axis of ``side`` pixels: the source
        position each output pixel reads (float32, as albumentations keeps it), from the
        recorded ``steps`` (``num_steps + 1`` draws of ``distort_limit``)."""
        n = self.num_steps
        cell = max(side // n, 1)  # (albumentations: side // n, and a division by it)
        scales = [1.0 + s for s in steps]
        if self.normalized:
            last = min(side, (n + 1) * cell) - n * cell
            scales[-1] *= last / cell
            scales = (np.array(scales) * ((side / cell) / np.sum(scales))).tolist()
        # each cell's ends, added up in order as albumentations adds them
        ends = np.empty(len(scales) + 1)
        ends[0] = 0.0
        for k, scale in enumerate(scales):
            ends[k + 1] = ends[k] + cell * scale
        # np.linspace(ends[k], ends[k + 1], count) of every cell at once, as numpy makes it:
        # j * (delta / (count - 1)) + start, the last point the end itself; a cell of one
        # pixel its start. Pixels past the last cell stay 0 (a side under num_steps + 1 cells)
        i = np.arange(min(side, len(scales) * cell))
        k, j = i // cell, i % cell
        count = np.minimum(cell, side - k * cell)
        start, stop = ends[k], ends[k + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(count > 1, j * ((stop - start) / (count - 1)) + start, start)
        v = np.where((j == count - 1) & (count > 1), stop, v)
        out = np.zeros(side, np.float32)
        out[:len(i)] = v
        return out

    def _displacements(self, steps: list[float], extent: float) -> np.ndarray:
        """The even layout: how far the n + 1 cell edges of the output read from their own
        positions, over [0, extent]."""
        n = self.num_steps
        widths = [extent / n * (1 + s) for s in steps]
        edges = [0.0]
        for w in widths:
            edges.append(edges[-1] + w)
        k = extent / edges[-1] if self.normalized and edges[-1] > 0 else 1.0
        return np.array([e * k - extent * i / n for i, e in enumerate(edges)])

    def field(self, params, size):
        W, H = size
        sx, sy = params["steps_x"], params["steps_y"]
        if len(sx) == self.num_steps:  # (the even layout's draws)
            return AxisField(self._displacements(sx, max(W - 1, 1)),
                             self._displacements(sy, max(H - 1, 1)), size)
        # a point per pixel (the kernel's grid of W points over [0, W - 1]: point k on pixel k)
        return AxisField(self.table(sx, W).astype(np.float64) - np.arange(W),
                         self.table(sy, H).astype(np.float64) - np.arange(H), size)

    def config(self):
        return {"num_steps": self.num_steps, "distort_limit": list(self.distort_limit),
                "normalized": self.normalized, "cells": self.cells, **self.resampling_config()}


def _grid_counts(value: Any) -> tuple[int, int]:
    """GridElasticDeform's ``num_grid_xy``: two ints, each in [1, MAX_GRID_LINES]."""
    if not isinstance(value, (tuple, list)) or len(value) != 2 or \
            any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in value):
        raise ValueError(f"num_grid_xy must be two ints, got {value!r}")
    for v in value:
        _bounded_int(v, "num_grid_xy", 1, MAX_GRID_LINES)
    return int(value[0]), int(value[1])


def almost_equal_sizes(n: int, parts: int) -> list[int]:
    """``n`` split into ``parts`` whole sizes differing by at most one, the larger first
    (albumentations' almost_equal_intervals: GridElasticDeform's cells, RandomGridShuffle's
    tiles)."""
    q, r = divmod(n, parts)
    return [q + 1 if i < r else q for i in range(parts)]


class GridElasticDeform(FieldTransform):
    """Grid-based elastic deformation, as albumentations' GridElasticDeform: the image is cut
    into a grid of cells of near-equal whole sizes (shuffled per sample), every inner grid point
    moved by whole pixels drawn from [-``magnitude``, ``magnitude``] (the border points stay),
    and each cell warped by the homography from its rectangle onto its moved quadrilateral.
    The cells are painted in order as OpenCV paints them (``cv2.fillConvexPoly``, exactly:
    where two overlap the later one wins, and a pixel none covers is the fill), and every
    output pixel is resampled once, through its own cell's map, in the warp's kernel
    (albumentations warps the whole image once per cell). Keypoints go through their cell's
    homography, as albumentations moves them.

    Conventions: ``num_grid_xy`` is read as albumentations 2.0.8 reads it, not as its docstring
    says: the height is cut into ``num_grid_xy[0]`` rows and the width into ``num_grid_xy[1]``
    columns, and the cells are then laid out ``num_grid_xy[1]`` to a row of its mesh; for a
    square grid the two readings agree, for another one warpkit keeps albumentations' cells
    (and their gaps and overlaps) so that a ported recipe keeps its results. The recorded
    parameters are the cells' sizes (``heights``, ``widths``, in order) and the inner points'
    moves (``moves``, (dx, dy) pairs row by row of the mesh). ``interpolation`` and
    ``mask_interpolation`` (OpenCV's codes or warpkit's names) become the pipeline's; None
    leaves the pipeline's (linear and nearest by default, albumentations' defaults here). The
    border is the pipeline's too: albumentations' cells read a constant 0 beyond the image,
    which only pixels within a pixel of its edge see.

    Example::

        >>> import numpy as np
        >>> from warpkit import augment as W
        >>> out = W.Compose([W.GridElasticDeform((4, 4), magnitude=10)])(
        ...     image=np.zeros((64, 96, 3), np.uint8), seed=0)
        >>> out["image"].shape, len(out["params"]["steps"][0]["moves"])
        ((64, 96, 3), 9)
    """

    def __init__(self, num_grid_xy: Any, magnitude: int, interpolation: Any = None,
                 mask_interpolation: Any = None, p: float = 1.0) -> None:
        super().__init__(p)
        self.num_grid_xy = _grid_counts(num_grid_xy)
        if isinstance(magnitude, bool) or not isinstance(magnitude, numbers.Integral) or \
                magnitude <= 0:
            raise ValueError(f"magnitude must be an int > 0, got {magnitude!r}")
        self.magnitude = int(magnitude)
        self.given_resampling(interpolation=interpolation, mask_interpolation=mask_interpolation)

    def _mesh_shape(self) -> tuple[int, int]:
        """(rows, columns) of albumentations' mesh: num_grid_xy reversed."""
        return self.num_grid_xy[1], self.num_grid_xy[0]

    def draw(self, rng, size):
        W, H = size
        gh, gw = self._mesh_shape()
        heights = rng.permutation(almost_equal_sizes(H, self.num_grid_xy[0])).tolist()
        widths = rng.permutation(almost_equal_sizes(W, self.num_grid_xy[1])).tolist()
        m = self.magnitude
        moves = rng.integers(-m, m + 1, ((gh - 1) * (gw - 1), 2)).tolist()
        return {"heights": heights, "widths": widths, "moves": moves}

    def mesh(self, params: dict, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """(source rectangles (n, 4) as (x0, y0, x1, y1), their moved corners (n, 4, 2):
        top-left, top-right, bottom-right, bottom-left), in albumentations' order, for these
        parameters on an input of ``size``."""
        W, H = size
        rows, cols = self.num_grid_xy  # as albumentations' split_uniform_grid reads them
        heights = _whole_sizes(params["heights"], rows, H, "heights")
        widths = _whole_sizes(params["widths"], cols, W, "widths")
        ys = np.concatenate([[0], np.cumsum(heights)])
        xs = np.concatenate([[0], np.cumsum(widths)])
        i, j = np.divmod(np.arange(rows * cols), cols)
        rects = np.stack([xs[j], ys[i], xs[j + 1], ys[i + 1]], 1)  # the tiles, row by row
        quads = rects[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2).copy()
        gh, gw = self._mesh_shape()
        moves = np.asarray(params["moves"], np.float64).reshape(-1, 2)
        if moves.shape != ((gh - 1) * (gw - 1), 2) or not np.isfinite(moves).all() or \
                (moves != np.round(moves)).any():
            raise ValueError(f"moves must be {(gh - 1) * (gw - 1)} pairs of whole pixels, got "
                             f"{params['moves']!r}")
        moves = moves.astype(np.int64).reshape(gh - 1, gw - 1, 2)
        # each inner point of the mesh (its tiles laid out gw to a row) moves four corners
        a, b = np.meshgrid(np.arange(1, gh), np.arange(1, gw), indexing="ij")
        for cell, corner in (((a - 1) * gw + b - 1, 2), ((a - 1) * gw + b, 3),
                             (a * gw + b - 1, 1), (a * gw + b, 0)):
            quads[cell.reshape(-1), corner] += moves.reshape(-1, 2)
        return rects, quads

    def field(self, params, size):
        rects, quads = self.mesh(params, size)
        return Quads(rects, quads, tuple(size))

    def config(self):
        return {"num_grid_xy": list(self.num_grid_xy), "magnitude": self.magnitude,
                **self.resampling_config()}


def _whole_sizes(value: Any, n: int, total: int, arg: str) -> np.ndarray:
    """n whole sizes >= 0 summing to ``total`` (a recorded GridElasticDeform's cells)."""
    v = np.asarray(value, np.float64).reshape(-1)
    if len(v) != n or not np.isfinite(v).all() or (v < 0).any() or (v != np.round(v)).any() \
            or v.sum() != total:
        raise ValueError(f"{arg} must be {n} whole sizes summing to the input's {total} px, got "
                         f"{value!r}")
    return v.astype(np.int64)


class OpticalDistortion(FieldTransform):
    """Lens distortion, as albumentations' OpticalDistortion (mode ``"camera"``): a camera with
    focal lengths (W, H) and principal point (W / 2, H / 2), radial coefficients k1 = k2 = k,
    k drawn from ``distort_limit``; the output is the undistorted view (negative k: barrel
    distortion removed, the middle magnified). The camera model is evaluated per pixel in the
    kernel (in float32: within 1e-4 px of OpenCV's float32 map for ``|k|`` up to 2 and more).
    Any finite ``distort_limit``, as albumentations takes it.
    ``geometry.undistort_maps`` and ``warpkit.undistort`` do the same for a real camera."""

    def __init__(self, distort_limit: Any = (-0.05, 0.05), p: float = 0.5, *,
                 mode: str = "camera", interpolation: Any = None, mask_interpolation: Any = None,
                 border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                 keypoint_remapping_method: str = "mask") -> None:
        super().__init__(p)
        if mode != "camera":
            raise ValueError(f"OpticalDistortion(mode={mode!r}) is not supported: warpkit takes "
                             f"mode='camera' (OpenCV's camera model)")
        self._albumentations(keypoint_remapping_method, interpolation=interpolation,
                             mask_interpolation=mask_interpolation, border_mode=border_mode,
                             fill=fill, fill_mask=fill_mask)
        # (any finite k, as albumentations takes it: the camera model is a polynomial,
        # evaluated per pixel; the recipes of albumentations 0.x used 2)
        self.distort_limit = value_range(distort_limit, "distort_limit", True, -math.inf,
                                         math.inf)[0]

    def draw(self, rng, size):
        return {"k": float(rng.uniform(*self.distort_limit))}

    def field(self, params, size):
        k = number(params["k"], "k")  # a replayed k may have been edited
        camera, new_camera = _optical_cameras(*size)
        return lens(camera, [k, k, 0, 0, 0], new_camera)

    def config(self):
        return {"distort_limit": list(self.distort_limit), **self.resampling_config()}


@functools.lru_cache(maxsize=64)
def _optical_cameras(W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    """OpticalDistortion's camera of a W x H image and OpenCV's default new camera for
    initUndistortRectifyMap (the principal point centred), made once per size (read-only)."""
    K = np.array([[W, 0, W / 2], [0, H, H / 2], [0, 0, 1]], np.float64)
    Kn = np.array([[W, 0, (W - 1) / 2], [0, H, (H - 1) / 2], [0, 0, 1]], np.float64)
    K.flags.writeable = Kn.flags.writeable = False
    return K, Kn


class ThinPlateSpline(FieldTransform):
    """A thin-plate spline through a ``num_control_points`` x ``num_control_points`` grid of
    control points (corners included), each moved by N(0, s / 10) of the image size with s
    drawn from ``scale_range``, as albumentations' ThinPlateSpline: the spline (kernel
    r^2 log r) maps each output position to where it reads. Evaluated on a grid every 8 px
    (finer under 256 px), resampled by Catmull-Rom to 2 px for the kernel's bilinear
    interpolation: within 0.2 px of the exact spline (0.06 px from 512 px up) for control
    point moves up to 0.4 / 10 of the image."""

    def __init__(self, scale_range: Any = (0.2, 0.4), num_control_points: int = 4,
                 p: float = 0.5, *, interpolation: Any = None, mask_interpolation: Any = None,
                 border_mode: Any = None, fill: Any = None, fill_mask: Any = None,
                 keypoint_remapping_method: str = "mask") -> None:
        super().__init__(p)
        self._albumentations(keypoint_remapping_method, interpolation=interpolation,
                             mask_interpolation=mask_interpolation, border_mode=border_mode,
                             fill=fill, fill_mask=fill_mask)
        self.scale_range = value_range(scale_range, "scale_range", False, 0, 1)[0]
        self.num_control_points = _bounded_int(num_control_points, "num_control_points", 2,
                                               MAX_CONTROL_POINTS)

    def draw(self, rng, size):
        s = float(rng.uniform(*self.scale_range)) / 10
        n = self.num_control_points
        return {"moves": (rng.normal(0, s, (n * n, 2)) if s > 0 else
                          np.zeros((n * n, 2))).round(6).tolist()}

    def field(self, params, size):
        W, H = size
        n = self.num_control_points
        t = np.linspace(0, 1, n)
        ctrl = np.stack(np.meshgrid(t, t), -1).reshape(-1, 2)  # normalised output positions
        moved = ctrl + np.asarray(params["moves"], np.float64)
        weights = _tps_fit(ctrl, moved)
        xs, ys = grid_points(size, grid_shape(size, _smooth_step(size), most=1024, margin=1),
                             margin=1)
        pts = np.stack([xs / max(W, 1), ys / max(H, 1)], -1)
        src = _tps_eval(ctrl, weights, pts) * [W, H]
        # r^2 log r bends sharply at the control points: a finer grid for the kernel
        return smooth_field(src - np.stack([xs, ys], -1), size, 2.0)

    def config(self):
        return {"scale_range": list(self.scale_range),
                "num_control_points": self.num_control_points, **self.resampling_config()}


def _count_range(value: Any, arg: str) -> tuple[int, int]:
    """An int, or (low, high) ints, each in [2, MAX_GRID_LINES]."""
    pair = (value, value) if isinstance(value, numbers.Integral) else value
    if isinstance(value, bool) or not isinstance(pair, (tuple, list)) or len(pair) != 2 or \
            any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in pair) or \
            not 2 <= pair[0] <= pair[1]:
        raise ValueError(f"{arg} must be an int >= 2 or (low, high) ints with 2 <= low <= high, "
                         f"got {value!r}")
    if pair[1] > MAX_GRID_LINES:
        raise ValueError(f"{arg} must be at most {MAX_GRID_LINES} (it sizes the transform's "
                         f"work), got {value!r}")
    return int(pair[0]), int(pair[1])


class PiecewiseAffine(FieldTransform):
    """albumentations' PiecewiseAffine: a ``nb_rows`` x ``nb_cols`` grid of control points over
    the image (corners on the corner pixels), each moved by N(0, s / 3) pixels, s drawn from
    ``scale`` and multiplied by the shorter side unless ``absolute_scale``, the moved points
    kept inside the image. ``nb_rows`` and ``nb_cols`` are ints or (low, high) ranges drawn per
    sample. ``method`` says how the moved grid becomes a map (output position -> where it
    reads):

    - ``"inverse_distance"`` (the default: albumentations 2.0.8's map): every output position
      reads from the moved points blended by the inverse of their grid points' squared distance
      to it, ``sum w_k m_k / sum w_k`` with ``w_k = 1 / (|p - c_k|^2 + 1e-8)``. A smooth map, flat
      at each grid point (it reads the moved point around it) and pulled toward the nearest
      points between them, so it distorts the image even where the points do not move.
      albumentations loops over the pixels in Python (seconds an image); the kernel evaluates
      the same sums per pixel, in float32 (within 2e-3 px of albumentations' map), for at most
      ``MAX_BLEND_POINTS`` grid points (``nb_rows`` x ``nb_cols``, their highs).
    - ``"triangles"``: the piecewise-affine map of the name (imgaug's, scikit-image's and
      albumentations 1's): every grid cell is cut into two triangles by its diagonal from
      top-left to bottom-right, and each triangle maps affinely onto its moved triangle.
      Evaluated exactly on a grid about 2 px apart whose lines include the cells' edges; the
      kernel's bilinear interpolation is exact except in the grid's small cells that a diagonal
      crosses, where it rounds the crease between two triangles: within 0.1 px of the exact map
      for ``scale`` up to 0.05, 0.2 px at 0.1.

    A drawn scale of 0 moves no point (albumentations 2.0.8 fails there); the inverse-distance
    map of the unmoved grid still pulls toward its points, as at any small scale.

    Example:
        >>> from warpkit.augment import Compose, PiecewiseAffine
        >>> pipe = Compose([PiecewiseAffine(scale=(0.03, 0.05), nb_rows=4, nb_cols=4, p=1)])
        >>> pipe.transforms[0].method
        'inverse_distance'
    """

    def __init__(self, scale: Any = (0.03, 0.05), nb_rows: Any = 4, nb_cols: Any = 4,
                 absolute_scale: bool = False, p: float = 0.5, *,
                 method: str = "inverse_distance", interpolation: Any = None,
                 mask_interpolation: Any = None, border_mode: Any = None, fill: Any = None,
                 fill_mask: Any = None, keypoint_remapping_method: str = "mask") -> None:
        super().__init__(p)
        self._albumentations(keypoint_remapping_method, interpolation=interpolation,
                             mask_interpolation=mask_interpolation, border_mode=border_mode,
                             fill=fill, fill_mask=fill_mask)
        if method not in PIECEWISE_METHODS:
            raise ValueError(f"method must be one of {', '.join(map(repr, PIECEWISE_METHODS))}, "
                             f"got {method!r}")
        self.method = method
        self.scale = value_range(scale, "scale", False, 0, math.inf)[0]
        self.nb_rows = _count_range(nb_rows, "nb_rows")
        self.nb_cols = _count_range(nb_cols, "nb_cols")
        if method == "inverse_distance" and self.nb_rows[1] * self.nb_cols[1] > MAX_BLEND_POINTS:
            raise ValueError(f"nb_rows x nb_cols must be at most {MAX_BLEND_POINTS} with method="
                             f"'inverse_distance' (every pixel blends every point), got up to "
                             f"{self.nb_rows[1]} x {self.nb_cols[1]}")
        self.absolute_scale = bool(absolute_scale)

    def draw(self, rng, size):
        rows = int(rng.integers(self.nb_rows[0], self.nb_rows[1] + 1))
        cols = int(rng.integers(self.nb_cols[0], self.nb_cols[1] + 1))
        s = float(rng.uniform(*self.scale))
        s = s / 3 if self.absolute_scale else s * min(size) / 3
        moves = rng.normal(0, s, (rows * cols, 2)) if s > 0 else np.zeros((rows * cols, 2))
        return {"rows": rows, "cols": cols, "moves": moves.round(4).tolist()}

    def field(self, params, size):
        if self.method == "inverse_distance":
            return _blend(params, size)
        W, H = size
        rows, cols = params["rows"], params["cols"]
        cx, cy = np.linspace(0, W - 1, cols), np.linspace(0, H - 1, rows)
        ctrl = np.stack(np.meshgrid(cx, cy), -1)
        moved = ctrl + np.asarray(params["moves"], np.float64).reshape(rows, cols, 2)
        np.clip(moved[..., 0], 0, W - 1, out=moved[..., 0])
        np.clip(moved[..., 1], 0, H - 1, out=moved[..., 1])
        d = np.moveaxis(moved - ctrl, -1, 0).astype(np.float32)  # (2, rows, cols): long inner
        # fine points per cell, about 2 px apart: cell edges fall on grid lines
        ry = max(1, math.ceil((H - 1) / (rows - 1) / 2))
        rx = max(1, math.ceil((W - 1) / (cols - 1) / 2))
        # every cell's (ry + 1) x (rx + 1) points, edges included: (2, rows-1, ry+1, cols-1, rx+1),
        # by broadcasting (gathering each fine point's corners took several times as long)
        u = (np.arange(ry + 1, dtype=np.float32) / ry)[:, None, None]  # y in the cell
        v = np.arange(rx + 1, dtype=np.float32) / rx  # x in the cell
        d00, d01 = d[:, :-1, None, :-1, None], d[:, :-1, None, 1:, None]
        d10, d11 = d[:, 1:, None, :-1, None], d[:, 1:, None, 1:, None]
        upper = v >= u  # x-local >= y-local: triangle (00, 01, 11), else (00, 10, 11)
        cells = d00 + np.where(upper, v * (d01 - d00) + u * (d11 - d01),
                               u * (d10 - d00) + v * (d11 - d10))
        out = np.empty(((rows - 1) * ry + 1, (cols - 1) * rx + 1, 2), np.float32)
        for c in range(2):
            o, k = out[..., c], cells[c]
            o[:-1, :-1] = k[:, :ry, :, :rx].reshape(o.shape[0] - 1, o.shape[1] - 1)
            o[-1, :-1] = k[-1, ry, :, :rx].reshape(-1)
            o[:-1, -1] = k[:, :ry, -1, rx].reshape(-1)
            o[-1, -1] = k[-1, ry, -1, rx]
        return Field(out, size)

    def config(self):
        return {"scale": list(self.scale), "nb_rows": list(self.nb_rows),
                "nb_cols": list(self.nb_cols), "absolute_scale": self.absolute_scale,
                "method": self.method, **self.resampling_config()}


#: PiecewiseAffine's maps of its moved grid (the first: albumentations 2.0.8's)
PIECEWISE_METHODS = ("inverse_distance", "triangles")
#: the most grid points PiecewiseAffine's inverse-distance map blends (each pixel reads them all)
MAX_BLEND_POINTS = 1024


def _blend(params: dict, size: tuple[int, int]) -> Blend:
    """PiecewiseAffine's inverse-distance stage for its recorded moves, its grid and moved
    points made as albumentations makes them (float32: ``create_piecewise_affine_maps``)."""
    W, H = size
    rows, cols = params["rows"], params["cols"]
    xs, ys = np.meshgrid(np.linspace(0, W - 1, cols, dtype=np.float32),
                         np.linspace(0, H - 1, rows, dtype=np.float32))
    moves = np.asarray(params["moves"], np.float64).astype(np.float32).reshape(rows, cols, 2)
    mx = np.clip(xs + moves[..., 0], 0, W - 1)
    my = np.clip(ys + moves[..., 1], 0, H - 1)
    return Blend(np.stack([xs, ys, mx, my], -1).reshape(-1, 4).astype(np.float64), size)


def _tps_kernel(r2: np.ndarray) -> np.ndarray:
    """U(r) = r^2 log r, from r^2 (0 at r = 0)."""
    return 0.5 * r2 * np.log(np.maximum(r2, 1e-300))  # r2 = 0: 0 * (-690) = 0


def _tps_fit(ctrl: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The spline's (n + 3, 2) weights taking ``ctrl`` to ``target`` exactly."""
    n = len(ctrl)
    r2 = ((ctrl[:, None] - ctrl[None]) ** 2).sum(-1)
    P = np.column_stack([np.ones(n), ctrl])
    A = np.zeros((n + 3, n + 3))
    A[:n, :n] = _tps_kernel(r2)
    A[:n, n:] = P
    A[n:, :n] = P.T
    b = np.zeros((n + 3, 2))
    b[:n] = target
    return np.linalg.solve(A, b)


def _tps_eval(ctrl: np.ndarray, w: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The spline at ``pts`` (..., 2), in runs of points whose (points, controls) distances
    take at most 16 MiB (a grid over a large image times 256 controls would take gigabytes)."""
    n = len(ctrl)
    flat = pts.reshape(-1, 2)
    out = np.empty_like(flat)
    run = max(1, (2 << 20) // n)
    for a in range(0, len(flat), run):
        f = flat[a:a + run]
        dx, dy = f[:, :1] - ctrl[:, 0], f[:, 1:] - ctrl[:, 1]
        r2 = dx * dx + dy * dy
        # einsum, not @: a matmul would wake OpenBLAS's threads, which fight PoCL's for the cores
        out[a:a + run] = (np.einsum("pk,kc->pc", _tps_kernel(r2), w[:n]) + w[n]
                          + f[:, :1] * w[n + 1] + f[:, 1:] * w[n + 2])
    return out.reshape(pts.shape)

