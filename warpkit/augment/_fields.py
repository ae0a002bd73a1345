"""Non-linear transforms as coarse displacement fields, evaluated inside the warp kernel.

A non-linear transform gives a :class:`Field`: displacements (dx, dy) in pixels on a coarse
grid spread evenly over its frame (corners on the corner pixels' centres), meaning "the output
pixel at p reads its input at p + D(p)" (the direction a kernel evaluates), with D interpolated
bilinearly between grid points (smooth fields are first resampled by Catmull-Rom onto a grid fine
enough for that: :func:`smooth_field`). A pipeline's stages are then a
chain ``[M_0, F_1, M_1, ..., F_n, M_n]`` of projective maps (destination from source, as
everywhere in warpkit) around fields; :func:`chain_coords` turns a batch of chains into the
kernel's arguments (grid scales folded into the maps), so an image is still resampled once, in
one launch, and the full-resolution map is never made. Points move forward through a chain by
Newton's method on the inverse map (:func:`forward_points`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .. import geometry
from ..warp import COORD_FIELD, Coords

#: Newton iterations for moving points forward through a chain, and the residual (pixels) below
#: which a point counts as found
NEWTON_STEPS = 30
NEWTON_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Field:
    """Displacements ``disp`` (Hf, Wf, 2), in pixels, on a grid over a frame of ``size`` =
    (width, height), interpolated bilinearly (piecewise linear: exact for GridDistortion; smooth
    fields come from :func:`smooth_field`); grid point (i, j) sits at pixel position
    (j * (W - 1) / (Wf - 1), i * (H - 1) / (Hf - 1))."""

    disp: np.ndarray
    size: tuple[int, int]

    def scale(self) -> tuple[float, float]:
        """Grid units per pixel along x and y."""
        hf, wf = self.disp.shape[:2]
        W, H = self.size
        return (wf - 1) / max(W - 1, 1), (hf - 1) / max(H - 1, 1)

    def grid(self) -> np.ndarray:
        """The 3x3 map from pixel positions to grid coordinates."""
        sx, sy = self.scale()
        return np.diag([sx, sy, 1.0])


def smooth_field(coarse: np.ndarray, size: tuple[int, int], step: float,
                 margin: int = 1) -> Field:
    """A smooth field given on a coarse grid (``coarse`` (Hc, Wc, 2), ``margin`` points beyond
    each edge of the frame, as :func:`grid_points` places them) as the kernel's bilinear
    :class:`Field`: sampled by Catmull-Rom (Keys, A = -0.5, exact for quadratics; the margin
    gives the edge cells their outer taps) on a grid about ``step`` pixels apart. Bilinear
    interpolation there is within h^2 / 8 of the field's second derivative (hundredths of a pixel
    at 2-4 px for the smooth transforms) and costs the kernel 4 grid taps per pixel instead of
    16 (512x384 RGB: 1.4 against 3.8 ms). Separable, in float32 as the kernel reads it."""
    hc, wc = coarse.shape[:2]
    rows, cols = _resampling_taps(hc, wc, tuple(size), float(step), margin)
    # both passes gather whole rows (along axis 1): the columns' pass on the transposed planes
    # (a gather along the last axis took 1.6x as long); the last transpose interleaves (dx, dy)
    disp = _apply_taps(_planes(coarse, np.float32), *rows, axis=1)
    disp = _apply_taps(np.ascontiguousarray(disp.transpose(0, 2, 1)), *cols, axis=1)
    return Field(np.ascontiguousarray(disp.transpose(2, 1, 0)), size)


@functools.lru_cache(maxsize=64)
def _resampling_taps(hc: int, wc: int, size: tuple[int, int], step: float, margin: int):
    """:func:`smooth_field`'s Catmull-Rom taps (rows, columns): the same for every field of a
    transform on images of one size (0.1 ms per field to make)."""
    fine = grid_shape(size, step)
    at = [_axis_positions(n, k) for n, k in zip((size[1], size[0]), fine)]
    # coarse grid coordinate of a pixel position: pixel * (points - 1 - 2 margin) / extent + margin
    gy = at[0] * (hc - 1 - 2 * margin) / max(size[1] - 1, 1) + margin
    gx = at[1] * (wc - 1 - 2 * margin) / max(size[0] - 1, 1) + margin
    return _catmull_rom_taps(hc, gy), _catmull_rom_taps(wc, gx)


def _planes(a: np.ndarray, dtype) -> np.ndarray:
    """(H, W, k) as (k, H, W): numpy's elementwise loops over a last axis of 2 are ~15x slower
    than over a row."""
    return np.moveaxis(np.asarray(a, dtype), -1, 0)


def _interleaved(planes: np.ndarray) -> np.ndarray:
    """(k, H, W) back to a contiguous (H, W, k)."""
    return np.stack(list(planes), -1)


def _axis_positions(extent: int, n: int, margin: int = 0) -> np.ndarray:
    """Pixel positions of n grid points over [0, extent - 1], ``margin`` of them beyond each
    end."""
    return (np.arange(n) - margin) * (max(extent - 1, 1) / (n - 1 - 2 * margin))


def _catmull_rom_taps(n: int, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices, weights), each (len(g), 4), of Catmull-Rom interpolation at grid coordinates
    ``g`` (coordinates clamped to [0, n - 1], taps to the grid)."""
    g = np.clip(g, 0, n - 1)
    x0 = np.minimum(np.floor(g).astype(np.int64), max(n - 2, 0))
    idx = np.clip(x0[:, None] + np.arange(-1, 3), 0, n - 1)
    return idx, np.stack(_keys(g - x0), 1)


def _apply_taps(a: np.ndarray, idx: np.ndarray, w: np.ndarray, axis: int) -> np.ndarray:
    """out[i] = sum_t w[i, t] * a[idx[i, t]] along ``axis``: a banded linear map as tap sums
    (no BLAS call: numpy's would wake OpenBLAS threads, 20x slower here beside PoCL's)."""
    shape = [1] * a.ndim
    shape[axis] = len(idx)
    w = w.astype(a.dtype)
    out = w[:, 0].reshape(shape) * np.take(a, idx[:, 0], axis=axis)
    for t in range(1, idx.shape[1]):
        tap = np.take(a, idx[:, t], axis=axis)
        tap *= w[:, t].reshape(shape)
        out += tap
    return out


def grid_points(size: tuple[int, int], shape: tuple[int, int],
                margin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The pixel positions (xs, ys), each (Hf, Wf), of a grid of ``shape`` = (Hf, Wf)
    (``margin`` points beyond each edge included) over a frame of ``size`` = (width, height)."""
    return np.meshgrid(_axis_positions(size[0], shape[1], margin),
                       _axis_positions(size[1], shape[0], margin))


def grid_shape(size: tuple[int, int], step: float, most: int = 512,
               margin: int = 0) -> tuple[int, int]:
    """(Hf, Wf) of a grid with points about ``step`` pixels apart over the frame (at least 2
    at least one interval, at most ``most`` of them per axis), plus ``margin`` points
    beyond each edge."""
    W, H = size
    return tuple(min(most, max(1, math.ceil((n - 1) / step))) + 1 + 2 * margin for n in (H, W))


def _keys(t: np.ndarray) -> list[np.ndarray]:
    """Catmull-Rom weights (Keys, A = -0.5: exact for quadratics) of taps -1..2."""
    A = -0.5
    t1, s, s1 = t + 1, 1 - t, 2 - t
    return [((A * t1 - 5 * A) * t1 + 8 * A) * t1 - 4 * A, ((A + 2) * t - (A + 3)) * t * t + 1,
            ((A + 2) * s - (A + 3)) * s * s + 1, ((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A]


def field_at(f: Field, pts: np.ndarray) -> np.ndarray:
    """D at pixel positions ``pts`` (..., 2), in float64, as the kernel evaluates it (grid
    coordinates clamped to the grid, bilinear)."""
    bad = ~np.isfinite(pts).all(-1)  # diverged points stay NaN
    if bad.any():
        res = field_at(f, np.where(bad[..., None], 0.0, pts))
        res[bad] = np.nan
        return res
    sx, sy = f.scale()
    d = f.disp
    hf, wf = d.shape[:2]
    gx = np.clip(pts[..., 0] * sx, 0, wf - 1)
    gy = np.clip(pts[..., 1] * sy, 0, hf - 1)
    x0 = np.minimum(np.floor(gx).astype(np.int64), wf - 2)
    y0 = np.minimum(np.floor(gy).astype(np.int64), hf - 2)
    tx, ty = (gx - x0)[..., None], (gy - y0)[..., None]
    a, b = d[y0, x0], d[y0, x0 + 1]
    c, e = d[y0 + 1, x0], d[y0 + 1, x0 + 1]
    top = a + (b - a) * tx
    return top + ((c + (e - c) * tx) - top) * ty


def merge(stages: list) -> list:
    """A chain with adjacent matrices multiplied, and starting and ending with a matrix."""
    out: list = [geometry.identity()]
    for s in stages:
        if isinstance(s, Field):
            out += [s, geometry.identity()]
        else:
            out[-1] = np.asarray(s, np.float64) @ out[-1]
    return out


def fields_of(chain: list) -> list[Field]:
    return [s for s in chain if isinstance(s, Field)]


def projective_part(chain: list) -> np.ndarray:
    """The product of a chain's matrices (its map with the fields left out)."""
    m = geometry.identity()
    for s in chain:
        if not isinstance(s, Field):
            m = s @ m
    return m


def inverse_points(chain: list, pts: np.ndarray) -> np.ndarray:
    """Output positions to source positions through a chain (what the kernel samples)."""
    q = np.asarray(pts, np.float64)
    for s in reversed(chain):
        if isinstance(s, Field):
            q = q + field_at(s, q)
        else:
            q = geometry.transform_points(geometry.invert(s), q)
    return q


def forward_points(chain: list, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Source positions to output positions: (positions, found) where ``found`` marks the points
    for which Newton's method on :func:`inverse_points` converged (within
    ``NEWTON_TOLERANCE`` px); the others are NaN. Starts from the chain's projective part."""
    src = np.asarray(pts, np.float64).reshape(-1, 2)
    if not fields_of(chain):
        return geometry.transform_points(projective_part(chain), src), np.ones(len(src), bool)
    p = geometry.transform_points(projective_part(chain), src)
    h = 1e-3
    done = np.zeros(len(src), bool)
    for _ in range(NEWTON_STEPS):
        with np.errstate(all="ignore"):
            f = inverse_points(chain, p) - src
        err = np.hypot(f[:, 0], f[:, 1])
        done = np.isfinite(err) & (err < NEWTON_TOLERANCE)
        if done.all():
            break
        jx = (inverse_points(chain, p + [h, 0]) - inverse_points(chain, p - [h, 0])) / (2 * h)
        jy = (inverse_points(chain, p + [0, h]) - inverse_points(chain, p - [0, h])) / (2 * h)
        det = jx[:, 0] * jy[:, 1] - jy[:, 0] * jx[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            dx = (f[:, 0] * jy[:, 1] - jy[:, 0] * f[:, 1]) / det
            dy = (jx[:, 0] * f[:, 1] - f[:, 0] * jx[:, 1]) / det
        step = np.stack([dx, dy], 1)
        step[done] = 0
        p = p - step
    p[~done] = np.nan
    return p, done


def chain_coords(chains: list[list]) -> Coords:
    """The kernel's arguments (kernels_cl/warp.cl, COORD_FIELD) for one chain per item (or one
    for all): src_from_dst maps in grid units around the fields, last field first; items with
    fewer fields get zero fields, so every item has the batch's largest count."""
    nf = max(len(fields_of(c)) for c in chains)
    blocks, fi, mats = [], [], []
    offset = 0
    for chain in chains:
        fields = fields_of(chain)
        inv = [geometry.invert(s) for s in chain if not isinstance(s, Field)]  # n + 1 maps
        grid = [f.grid() for f in fields]
        # the kernel's A_0 = G_n M_n^-1, A_k = G_{n-k} M_{n-k}^-1 G_{n-k+1}^-1, last M_0^-1 G_1^-1
        n = len(fields)
        a = []
        for k in range(n + 1):
            m = inv[n - k]
            if k > 0:
                m = m @ np.linalg.inv(grid[n - k])
            if k < n:
                m = grid[n - k - 1] @ m
            a.append(m)
        for f in reversed(fields):
            hf, wf = f.disp.shape[:2]
            disp = f.disp.astype(np.float32).reshape(-1)
            disp *= np.tile(np.asarray(f.scale(), np.float32), hf * wf)  # a flat loop: fast
            blocks.append(disp)
            fi.append((offset, wf, hf))
            offset += disp.size
        for _ in range(nf - n):  # no displacement: a 2x2 grid of zeros, identity maps
            blocks.append(np.zeros(8, np.float32))
            fi.append((offset, 2, 2))
            offset += 8
            a.append(geometry.identity())
        mats.append(np.stack(a))
    return Coords(COORD_FIELD, chain=np.stack(mats),
                  fields=np.concatenate(blocks) if blocks else np.zeros(1, np.float32),
                  fi=np.asarray(fi, np.int32).reshape(len(chains), nf, 3))


def gaussian_blur(a: np.ndarray, sigma: tuple[float, float]) -> np.ndarray:
    """Gaussian smoothing of the first two axes by (sigma along axis 0, along axis 1), edges
    mirrored about the outer samples (scipy's "mirror", OpenCV's REFLECT_101, numpy.pad's
    "reflect"), kernels of OpenCV's size for floats (8 sigma + 1 taps, rounded to odd: about 4
    sigma each side); in float64. Each axis is padded once and its taps summed over shifted views
    (a gather per tap took 4x longer: 0.8 ms of an elastic field)."""
    out = _planes(a, np.float64)
    for axis, sg in enumerate(sigma, 1):
        n = out.shape[axis]
        if sg <= 0 or n < 2:
            continue
        r = max(1, (int(round(8 * sg + 1)) | 1) // 2)  # OpenCV's getGaussianKernel size
        t = np.arange(-r, r + 1)
        k = np.exp(-0.5 * (t / sg) ** 2)
        k /= k.sum()
        pad = [(0, 0)] * out.ndim
        pad[axis] = (r, r)
        padded = np.pad(out, pad, mode="reflect")
        window = [slice(None)] * out.ndim
        acc = None
        for j, w in enumerate(k.tolist()):
            window[axis] = slice(j, j + n)
            term = padded[tuple(window)] * w
            if acc is None:
                acc = term
            else:
                acc += term
        out = acc
    return _interleaved(out)
