"""Non-linear stages: where the output pixel at p reads its input, evaluated inside the warp
kernel (the direction a kernel evaluates):

- :class:`Field`: p + D(p), displacements (dx, dy) in pixels on a coarse grid spread evenly
  over its frame (corners on the corner pixels' centres), interpolated bilinearly (smooth fields
  are first resampled by Catmull-Rom onto a grid fine enough for that: :func:`smooth_field`);
- :class:`AxisField`: a displacement per axis, x's depending on x only and y's on y only,
  linear between points (GridDistortion);
- :class:`Lens`: OpenCV's camera model, evaluated per pixel;
- :class:`Cells`: rectangles, each read through its own affine map (Mosaic: every cell of the
  canvas from its own image, the images packed in one atlas);
- :class:`Quads`: regions painted as OpenCV paints quadrilaterals, each read through its own
  projective map (GridElasticDeform);
- :class:`Blend`: moved points blended by inverse squared distance, evaluated per pixel
  (albumentations' PiecewiseAffine).

Each stage says its kind to the kernel (``STAGE_KINDS`` of the option table) with its values
(:meth:`NonLinear.kernel_data`); :mod:`.chain` strings stages and maps together."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import geometry
from .._options import STAGE_KINDS
from .inputs import stack
from .raster import quad_spans

STAGE_FIELD, STAGE_AXES, STAGE_LENS, STAGE_CELLS, STAGE_QUADS, STAGE_BLEND = (
    STAGE_KINDS[k] for k in ("field", "axes", "lens", "cells", "quads", "blend"))


class NonLinear:
    """A non-linear stage of a chain: how a source position follows from an output position,
    in a frame of its own that the maps around it are folded with (:func:`chain_coords`)."""

    def frame(self) -> np.ndarray:
        """The 3x3 map from pixel positions into the stage's frame."""
        raise NotImplementedError

    def unframe(self) -> np.ndarray:
        """The 3x3 map from the stage's frame back to pixel positions."""
        return geometry.invert(self.frame())

    @classmethod
    def frames(cls, stages: tuple) -> np.ndarray:
        """:meth:`frame` of several stages (of this class, or of any on NonLinear itself), as a
        (B, 3, 3) stack."""
        return stack([s.frame() for s in stages])

    @classmethod
    def unframes(cls, stages: tuple) -> np.ndarray:
        """:meth:`unframe` of several stages (of this class, or of any on NonLinear itself), as
        a (B, 3, 3) stack: where every stage's class keeps the inverse of its frame, one
        stacked inversion."""
        if all(type(s).unframe is NonLinear.unframe for s in stages):
            return geometry.invert_checked(cls.frames(stages))
        return stack([s.unframe() for s in stages])

    def apply(self, pts: np.ndarray) -> np.ndarray:
        """The stage at pixel positions ``pts`` (..., 2), in float64, as the kernel evaluates
        it: the positions it reads from."""
        raise NotImplementedError

    def kernel_data(self) -> tuple[np.ndarray, int, int, int]:
        """(values in the stage's frame as float32, kind, a, b): the kernel's FLD block, and the
        stage's kind (``STAGE_KINDS``) and sizes in FI (kernels_cl/warp.cl, COORD_FIELD)."""
        raise NotImplementedError


def _grid_scale(size: tuple[int, int], wf: int, hf: int) -> tuple[float, float]:
    """Grid units per pixel along x and y of a grid of wf x hf points over a frame of ``size``
    (corners on the corner pixels' centres)."""
    W, H = size
    return (wf - 1) / max(W - 1, 1), (hf - 1) / max(H - 1, 1)


def _clamped_cells(g: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid coordinates ``g`` clamped to [0, n - 1]: (each one's cell, its offset in the cell),
    as the kernel takes them."""
    g = np.clip(g, 0, n - 1)
    i = np.minimum(np.floor(g).astype(np.int64), n - 2)
    return i, g - i


class _OnGrid(NonLinear):
    """A stage given on points spread evenly over its frame (corners on the corner pixels'
    centres): its frame is the grid's coordinates."""

    def scale(self) -> tuple[float, float]:
        """Grid units per pixel along x and y."""
        raise NotImplementedError

    def frame(self) -> np.ndarray:
        sx, sy = self.scale()
        return np.diag([sx, sy, 1.0])


@dataclass(frozen=True)
class Field(_OnGrid):
    """Displacements ``disp`` (Hf, Wf, 2), in pixels, on a grid over a frame of ``size`` =
    (width, height), interpolated bilinearly (smooth fields come from :func:`smooth_field`);
    grid point (i, j) sits at pixel position (j * (W - 1) / (Wf - 1), i * (H - 1) / (Hf - 1)).
    A position p reads from p + D(p)."""

    disp: np.ndarray
    size: tuple[int, int]

    def scale(self) -> tuple[float, float]:
        hf, wf = self.disp.shape[:2]
        return _grid_scale(self.size, wf, hf)

    def apply(self, pts):
        sx, sy = self.scale()
        d = self.disp
        hf, wf = d.shape[:2]
        x0, tx = _clamped_cells(pts[..., 0] * sx, wf)
        y0, ty = _clamped_cells(pts[..., 1] * sy, hf)
        tx, ty = tx[..., None], ty[..., None]
        a, b = d[y0, x0], d[y0, x0 + 1]
        c, e = d[y0 + 1, x0], d[y0 + 1, x0 + 1]
        top = a + (b - a) * tx
        return pts + (top + ((c + (e - c) * tx) - top) * ty)

    def kernel_data(self):
        hf, wf = self.disp.shape[:2]
        disp = self.disp.astype(np.float32).reshape(-1)
        disp *= np.tile(np.asarray(self.scale(), np.float32), hf * wf)  # a flat loop: fast
        return disp, STAGE_FIELD, wf, hf


@dataclass(frozen=True)
class AxisField(_OnGrid):
    """A displacement per axis: ``dx`` (Wf,) pixels along x on points evenly over the frame's
    width, depending on x only, and ``dy`` (Hf,) along y on points over its height, each linear
    between points (GridDistortion's map, exactly): p reads from (x + Dx(x), y + Dy(y))."""

    dx: np.ndarray
    dy: np.ndarray
    size: tuple[int, int]

    def scale(self) -> tuple[float, float]:
        return _grid_scale(self.size, len(self.dx), len(self.dy))

    def apply(self, pts):
        out = np.array(pts, np.float64)
        for axis in (0, 1):
            out[..., axis] = self.along(axis, out[..., axis])
        return out

    def along(self, axis: int, v: np.ndarray) -> np.ndarray:
        """Positions ``v`` along x (axis 0) or y (1) moved by that axis's displacement."""
        t = np.asarray(self.dy if axis else self.dx, np.float64)
        # clamped to the ends and linear between points, as the kernel (one C loop)
        return v + np.interp(v * self.scale()[axis], np.arange(len(t)), t)

    def forward(self, pts):
        """Source positions to frame positions, per axis: the map's inverse where it is
        monotone (GridDistortion's never falls: a step of albumentations' cells that holds its
        edge reads one place from two pixels, which takes the first), exactly; past the ends
        the displacement is the end's, as the kernel clamps it. NaN along an axis that falls."""
        q = np.array(pts, np.float64)
        for axis, d in enumerate((self.dx, self.dy)):
            d = np.asarray(d, np.float64)
            s = self.scale()[axis]
            p = np.arange(len(d)) / s if s > 0 else np.zeros(len(d))
            g = p + d  # where the grid points read
            v = q[..., axis]
            if len(d) < 2 or np.any(np.diff(g) < 0):
                q[..., axis] = v - d[0] if len(d) == 1 else np.nan
                continue
            inner = np.interp(v, g, p)
            q[..., axis] = np.where(v < g[0], v - d[0], np.where(v > g[-1], v - d[-1], inner))
        return q

    def kernel_data(self):
        sx, sy = self.scale()
        data = np.concatenate([np.asarray(self.dx, np.float64) * sx,
                               np.asarray(self.dy, np.float64) * sy]).astype(np.float32)
        return data, STAGE_AXES, len(self.dx), len(self.dy)


_FOCAL_CENTRE = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
_LAST_ROW = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class Lens(NonLinear):
    """A lens, OpenCV's camera model: the output is the view of ``new_camera`` (3x3) without
    distortion, read from the distorted image of ``camera`` with ``coeffs`` (k1, k2, p1, p2,
    k3, k4, k5, k6, s1, s2, s3, s4; :func:`warpkit.geometry.distort_points`), evaluated per
    pixel in the kernel."""

    camera: np.ndarray
    coeffs: np.ndarray
    new_camera: np.ndarray

    def frame(self) -> np.ndarray:
        return geometry.invert(self.new_camera)

    @classmethod
    def frames(cls, stages: tuple) -> np.ndarray:
        return _of_cameras([s.new_camera for s in stages], cls._frames)

    @staticmethod
    def _frames(new_cameras: np.ndarray) -> np.ndarray:
        return geometry.invert_checked(new_cameras)

    def unframe(self) -> np.ndarray:
        return type(self).unframes((self,))[0]

    @classmethod
    def unframes(cls, stages: tuple) -> np.ndarray:
        return _of_cameras([s.camera for s in stages], cls._unframes)

    @staticmethod
    def _unframes(cameras: np.ndarray) -> np.ndarray:
        # OpenCV's model ignores the distorted camera's skew: (fx, 0, cx; 0, fy, cy; 0, 0, 1)
        return cameras * _FOCAL_CENTRE + _LAST_ROW

    def apply(self, pts):
        return geometry.distort_points(self.camera, self.coeffs, pts, self.new_camera)

    def kernel_data(self):
        c = np.asarray(self.coeffs, np.float32)
        v = c.tolist()  # 12 numbers: Python's any() beats numpy's on so few
        # which parts the kernel evaluates: 1 the rational (k4..k6), 2 tangential and prism
        parts = int(any(v[5:8])) | 2 * int(any(v[2:4] + v[8:]))
        return c, STAGE_LENS, 0, parts


@dataclass(frozen=True, eq=False)
class Cells(NonLinear):
    """Rectangles of the frame, each read through its own affine map: ``table`` (n, 14), a row
    per cell, ``(x0, y0, x1, y1, a, b, c, d, e, f, lx, ly, hx, hy)``. A position q inside
    [x0, x1) x [y0, y1) (pixel positions, centres at integers) reads from (a qx + b qy + c,
    d qx + e qy + f), clamped to [lx, hx] x [ly, hy]; the first cell that holds q decides, and
    a position in none has no source (the fill). Its frame is pixel positions. Mosaic's stage:
    the canvas's cells read their images in an atlas (the clamp: each image's own edge pixels
    repeat beyond it, as OpenCV's resize reads them)."""

    table: np.ndarray

    def frame(self) -> np.ndarray:
        return geometry.identity()

    def apply(self, pts):
        q = np.asarray(pts, np.float64)
        out = np.full(q.shape, np.nan)
        free = np.ones(q.shape[:-1], bool)
        x, y = q[..., 0], q[..., 1]
        for x0, y0, x1, y1, a, b, c, d, e, f, lx, ly, hx, hy in self.table.tolist():
            hit = free & (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
            out[..., 0] = np.where(hit, np.clip(a * x + b * y + c, lx, hx), out[..., 0])
            out[..., 1] = np.where(hit, np.clip(d * x + e * y + f, ly, hy), out[..., 1])
            free &= ~hit
        return out

    def kernel_data(self):
        t = np.asarray(self.table, np.float64)
        return np.clip(t, -1e30, 1e30).astype(np.float32).reshape(-1), STAGE_CELLS, len(t), 0


@dataclass(frozen=True, eq=False)
class Tiles(Cells):
    """:class:`Cells` that move whole tiles of the frame onto one another (each row a
    translation, ``a = e = 1``, ``b = d = 0``, clamped to the tile it reads: a permutation of
    tiles, RandomGridShuffle's): a point moves forward exactly, by the tile it lies in
    (:meth:`forward`), where Newton's method on a map with jumps would not find it."""

    def forward(self, pts):
        """Source positions to frame positions: a point inside the tile a row reads, moved by
        that row's translation back; NaN in none."""
        q = np.asarray(pts, np.float64)
        out = np.full(q.shape, np.nan)
        x, y = q[..., 0], q[..., 1]
        for x0, y0, x1, y1, _, _, c, _, _, f, *_ in self.table.tolist():
            hit = (x >= x0 + c) & (x < x1 + c) & (y >= y0 + f) & (y < y1 + f)
            out[..., 0] = np.where(hit, x - c, out[..., 0])
            out[..., 1] = np.where(hit, y - f, out[..., 1])
        return out


@dataclass(frozen=True, eq=False)
class Blend(NonLinear):
    """Points blended by inverse squared distance, evaluated per pixel: ``points`` (n, 4), rows
    ``(cx, cy, mx, my)`` in pixel positions, on a frame of ``size`` = (width, height). A position
    q reads from sum_k w_k m_k / sum_k w_k with w_k = 1 / (|q - c_k|^2 + 1e-8), clamped to
    [0, W - 1] x [0, H - 1]: each c pulls toward its m, and the map is flat at every c (m is
    read around it). Its frame is pixel positions. albumentations 2's PiecewiseAffine: its c
    are a regular grid and its m the grid moved (``create_piecewise_affine_maps``, which loops
    over the pixels in Python; here the kernel evaluates the same sums, in float32)."""

    points: np.ndarray
    size: tuple[int, int]

    #: it reads some sources from several places (around each c): boxes move by the pixels
    #: that read inside them (:func:`~warpkit.augment._targets.read_boxes`), not by outlines
    folds = True
    #: points evaluated at once on the host (their weights for every c in the caches)
    _CHUNK = 1 << 12

    def frame(self) -> np.ndarray:
        return geometry.identity()

    def apply(self, pts):
        q = np.asarray(pts, np.float64)
        flat = q.reshape(-1, 2)
        out = np.empty_like(flat)
        c = np.asarray(self.points, np.float64)
        W, H = self.size
        for a in range(0, len(flat), self._CHUNK):
            p = flat[a:a + self._CHUNK]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                w = np.subtract.outer(p[:, 0], c[:, 0])
                w *= w
                dy = np.subtract.outer(p[:, 1], c[:, 1])
                dy *= dy
                w += dy
                w += 1e-8
                np.reciprocal(w, out=w)
                out[a:a + self._CHUNK] = (w @ c[:, 2:]) / w.sum(1)[:, None]
        np.clip(out, 0, [W - 1, H - 1], out=out)  # into the frame (NaN stays: no source)
        return out.reshape(q.shape)

    #: about how many frame positions :meth:`forward` compares each point with
    _SEARCH = 1 << 14

    @cached_property
    def _search(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(positions, where they read, their spacing): a grid over the frame, row by row
        (:meth:`forward`)."""
        W, H = self.size
        step = max(1.0, math.sqrt(W * H / self._SEARCH))
        xs = np.linspace(0, W - 1, max(2, round((W - 1) / step) + 1))
        ys = np.linspace(0, H - 1, max(2, round((H - 1) / step) + 1))
        pos = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
        return pos, self.apply(pos), max(xs[1] - xs[0], ys[1] - ys[0])

    def forward(self, pts):
        """Source positions to frame positions. The map is not one to one (it folds around
        each grid point c, whose ring reads the sources along a line from its m, and reads no
        other source near m), so a point goes to the frame position, among a grid's (row by row,
        the first of equals), that reads nearest it, then by Newton's method to where the map
        reads it exactly, within the frame; NaN where that fails and no grid position reads
        within its spacing of it (a source the map does not read: an invisible keypoint).
        albumentations takes the first output pixel of a keypoint's remapped mask: a pixel or
        two from this."""
        from .chain import NEWTON_TOLERANCE, _newton_forward

        q = np.asarray(pts, np.float64)
        src = q.reshape(-1, 2)
        out = np.full(src.shape, np.nan)
        ok = np.isfinite(src).all(1)
        s = src[ok]
        pos, read, spacing = self._search
        best = np.empty(len(s), np.int64)
        r2 = (read ** 2).sum(1)
        for a in range(0, len(s), 1024):  # |s - r|^2 less |s|^2, 1024 points at a time
            best[a:a + 1024] = (r2 - 2 * (s[a:a + 1024] @ read.T)).argmin(1)
        miss = np.hypot(*(read[best] - s).T)
        p, found = _newton_forward([geometry.IDENTITY, self, geometry.IDENTITY], s,
                                   start=pos[best])
        W, H = self.size
        with np.errstate(invalid="ignore"):
            inside = found & (p >= -NEWTON_TOLERANCE).all(1) \
                & (p <= np.array([W - 1, H - 1]) + NEWTON_TOLERANCE).all(1)
        near = ~inside & (miss <= spacing)
        p = np.where(inside[:, None], p, np.where(near[:, None], pos[best], np.nan))
        out[ok] = p
        return out.reshape(q.shape)

    def kernel_data(self):
        W, H = self.size
        data = np.concatenate([[W - 1, H - 1], np.asarray(self.points, np.float64).reshape(-1)])
        return data.astype(np.float32), STAGE_BLEND, len(self.points), 0


@dataclass(frozen=True, eq=False)
class Quads(NonLinear):
    """Quadrilaterals, each the image of a source rectangle under its own homography, painted
    in order as ``cv2.fillConvexPoly`` paints them (:func:`~.raster.quad_spans`: the last that
    sets a pixel owns it): a position reads through the map of the quad that owns the pixel
    nearest it (clamped to the frame: beyond it the edge pixels' maps go on); a pixel no quad
    sets has no source (the fill). ``rects`` (m, 4) are the source rectangles ``(x0, y0, x1,
    y1)``, ``quads`` (m, 4, 2) the integer corners they go to (top-left, top-right,
    bottom-right, bottom-left), on a frame of ``size`` = (width, height). GridElasticDeform's
    stage: albumentations warps the whole image once per cell and copies each cell's pixels;
    here each pixel is resampled once, through its cell's map. Points move forward exactly
    (:meth:`forward`): a point in a source rectangle goes through its homography."""

    rects: np.ndarray
    quads: np.ndarray
    size: tuple[int, int]

    def frame(self) -> np.ndarray:
        return geometry.identity()

    @classmethod
    def prepare(cls, stages: list) -> None:
        """Work out the spans and maps of many stages at once (a batch's: one raster pass and
        one solve for all their cells, not one per stage); each stage keeps its share."""
        todo = [s for s in stages if "spans" not in s.__dict__]
        if not todo:
            return
        counts = [len(s.quads) for s in todo]
        quads = np.concatenate([np.asarray(s.quads, np.int64).reshape(-1, 4, 2) for s in todo])
        rects = np.concatenate([np.asarray(s.rects, np.float64).reshape(-1, 4) for s in todo])
        sizes = np.repeat(np.array([s.size for s in todo], np.int64), counts, axis=0)
        owner, r0, lo, hi = quad_spans(quads, sizes)
        fwd = _rect_maps(rects, quads)
        inv = _inverses(fwd)
        starts = np.concatenate([[0], np.cumsum(counts)])
        cut = np.searchsorted(owner, starts)
        for k, s in enumerate(todo):
            a, b = cut[k], cut[k + 1]
            s.__dict__["spans"] = (owner[a:b] - starts[k], r0[a:b], lo[a:b], hi[a:b])
            s.__dict__["forward_maps"] = fwd[starts[k]:starts[k + 1]]
            s.__dict__["inverse_maps"] = inv[starts[k]:starts[k + 1]]

    @cached_property
    def forward_maps(self) -> np.ndarray:
        """(m, 3, 3): each rectangle's homography onto its quad (NaN for an empty one)."""
        return _rect_maps(np.asarray(self.rects, np.float64), self.quads)

    @cached_property
    def inverse_maps(self) -> np.ndarray:
        """(m, 3, 3): where each quad's pixels read (NaN where its map has no inverse)."""
        return _inverses(self.forward_maps)

    @cached_property
    def spans(self) -> tuple:
        """The painted rows: :func:`~.raster.quad_spans`' entries (owner, r0, lo, hi)."""
        return quad_spans(self.quads, self.size)

    @cached_property
    def owners(self) -> np.ndarray:
        """(H, W): the quad that owns each pixel, -1 for none (the host's :meth:`apply`)."""
        W, H = self.size
        lab = np.full((H, W), -1, np.int64)
        for k, r0, lo, hi in zip(*(a.tolist() for a in self.spans)):
            for r, (a, b) in enumerate(zip(lo, hi)):
                if a <= b:
                    lab[r0 + r, a:b + 1] = k
        return lab

    def apply(self, pts):
        q = np.asarray(pts, np.float64)
        W, H = self.size
        with np.errstate(invalid="ignore"):
            xi = (np.clip(q[..., 0], 0, W - 1) + 0.5).astype(np.int64)
            yi = (np.clip(q[..., 1], 0, H - 1) + 0.5).astype(np.int64)
        k = self.owners[np.clip(yi, 0, H - 1), np.clip(xi, 0, W - 1)]
        m = self.inverse_maps[np.maximum(k, 0)]
        out = _project(m, q)
        out[k < 0] = np.nan
        return out

    def forward(self, pts):
        """Source positions to frame positions: a point in a source rectangle through its
        homography (outside them all: the nearest rectangle's), then clipped to the frame's
        pixel centres [0, W - 1] x [0, H - 1], as albumentations moves keypoints."""
        q = np.asarray(pts, np.float64)
        x0, y0, x1, y1 = np.asarray(self.rects, np.float64).T
        x = np.clip(q[..., 0:1], x0.min(), np.nextafter(x1.max(), -np.inf))
        y = np.clip(q[..., 1:2], y0.min(), np.nextafter(y1.max(), -np.inf))
        inside = (x >= x0) & (x < x1) & (y >= y0) & (y < y1)  # (..., m)
        # the last rectangle that holds it, as albumentations' loop leaves it
        k = inside.shape[-1] - 1 - np.argmax(inside[..., ::-1], -1)
        out = _project(self.forward_maps[k], q)
        W, H = self.size
        np.clip(out[..., 0], 0, W - 1, out=out[..., 0])
        np.clip(out[..., 1], 0, H - 1, out=out[..., 1])
        return out

    def kernel_data(self):
        W, H = self.size
        owner, r0, lo, hi = self.spans
        E, R = lo.shape
        # each row's candidates: the entries with pixels on it, last painted first
        rows = r0[:, None] + np.arange(R)
        on = (lo <= hi) & (rows < H)
        has = np.zeros((H, max(E, 1)), bool)
        e_idx = np.broadcast_to(np.arange(E)[:, None], rows.shape)
        has[rows[on], e_idx[on]] = True
        K = max(int(has.sum(1).max(initial=0)), 1)
        desc = np.where(has, np.arange(has.shape[1]), -1)[:, ::-1]  # -1 where none
        cand = -np.sort(-desc, axis=1)[:, :K]  # the entries, largest first, then -1s
        table = np.empty((E, 10 + 2 * R), np.float64)
        table[:, :9] = np.clip(self.inverse_maps[owner].reshape(E, 9), -1e30, 1e30)  # NaN: none
        table[:, 9] = r0
        table[:, 10::2], table[:, 11::2] = lo, hi
        data = np.concatenate([[W - 1, H - 1, R, K], cand.reshape(-1), table.reshape(-1)])
        return data.astype(np.float32), STAGE_QUADS, E, 0


def _rect_maps(rects: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(m, 3, 3): each rectangle (x0, y0, x1, y1)'s homography onto its quad's corners."""
    x0, y0, x1, y1 = np.asarray(rects, np.float64).reshape(-1, 4).T
    src = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                    np.stack([x0, y1], 1)], 1)
    return geometry.perspectives_from_points(src, np.asarray(quads, np.float64).reshape(-1, 4, 2))


def _inverses(fwd: np.ndarray) -> np.ndarray:
    """The inverses of the maps ``fwd`` (m, 3, 3), NaN for those that have none."""
    return geometry.inverses_or_nan(fwd)


def _project(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Points q (..., 2) through maps m (..., 3, 3), one each, with the perspective divide."""
    x, y = q[..., 0], q[..., 1]
    with np.errstate(all="ignore"):
        d = m[..., 2, 0] * x + m[..., 2, 1] * y + m[..., 2, 2]
        return np.stack([(m[..., 0, 0] * x + m[..., 0, 1] * y + m[..., 0, 2]) / d,
                         (m[..., 1, 0] * x + m[..., 1, 1] * y + m[..., 1, 2]) / d], -1)


def _of_cameras(cameras: list[np.ndarray], make) -> np.ndarray:
    """``make`` (Lens._frames or Lens._unframes) of the stacked camera matrices; one image's
    call (one camera) takes it from :func:`_per_camera`."""
    if len(cameras) == 1:
        return _per_camera(cameras[0].tobytes(), make)
    return make(stack(cameras))


@functools.lru_cache(maxsize=128)
def _per_camera(camera: bytes, make) -> np.ndarray:
    """``make`` of one camera matrix, given as its float64 bytes (lens() makes them float64), as
    a read-only (1, 3, 3) stack: a transform's cameras are the same for every image of
    a size, so each OpticalDistortion call need not invert and stack them again."""
    out = make(np.frombuffer(camera).reshape(1, 3, 3))
    out.flags.writeable = False
    return out


def lens(camera_matrix, dist_coeffs, new_camera_matrix=None) -> Lens:
    """A :class:`Lens` from a camera matrix and 4 to 12 coefficients (checked by
    :func:`warpkit.geometry.distort_points`'s rules)."""
    return Lens(*geometry.lens_parts(camera_matrix, dist_coeffs, new_camera_matrix))


def smooth_field(coarse: np.ndarray, size: tuple[int, int], step: float,
                 margin: int = 1) -> Field:
    """A smooth field given on a coarse grid (``coarse`` (Hc, Wc, 2), ``margin`` points beyond
    each edge of the frame, as :func:`grid_points` places them) as the kernel's bilinear
    :class:`Field`: sampled by Catmull-Rom (Keys, A = -0.5, exact for quadratics; the margin
    gives the edge cells their outer taps) on a grid about ``step`` pixels apart. Bilinear
    interpolation there is within h^2 / 8 of the field's second derivative (hundredths of a pixel
    at 2-4 px for the smooth transforms) and costs the kernel 4 grid taps per pixel instead of
    16. Separable, in float32 as the kernel reads it."""
    hc, wc = coarse.shape[:2]
    rows, cols = _resampling_taps(hc, wc, tuple(size), float(step), margin)
    # both passes gather whole rows (along axis 1): the columns' pass on the transposed planes
    # (a gather along the last axis is slower); the last transpose interleaves (dx, dy)
    disp = _apply_taps(_planes(coarse, np.float32), *rows, axis=1)
    disp = _apply_taps(np.ascontiguousarray(disp.transpose(0, 2, 1)), *cols, axis=1)
    return Field(np.ascontiguousarray(disp.transpose(2, 1, 0)), size)


@functools.lru_cache(maxsize=64)
def _resampling_taps(hc: int, wc: int, size: tuple[int, int], step: float, margin: int):
    """:func:`smooth_field`'s Catmull-Rom taps (rows, columns): the same for every field of a
    transform on images of one size (made once, not per field)."""
    fine = grid_shape(size, step)
    at = [_axis_positions(n, k) for n, k in zip((size[1], size[0]), fine)]
    # coarse grid coordinate of a pixel position: pixel * (points - 1 - 2 margin) / extent + margin
    gy = at[0] * (hc - 1 - 2 * margin) / max(size[1] - 1, 1) + margin
    gx = at[1] * (wc - 1 - 2 * margin) / max(size[0] - 1, 1) + margin
    return _catmull_rom_taps(hc, gy), _catmull_rom_taps(wc, gx)


def _planes(a: np.ndarray, dtype) -> np.ndarray:
    """(H, W, k) as (k, H, W): numpy's elementwise loops over a last axis of 2 are far slower
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
    (no BLAS call: numpy's would wake OpenBLAS threads, which fight PoCL's for the cores)."""
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


def stage_at(f: NonLinear, pts: np.ndarray) -> np.ndarray:
    """Where stage ``f`` reads for pixel positions ``pts`` (..., 2), in float64, as the kernel
    evaluates it; points that are not finite stay NaN."""
    pts = np.asarray(pts, np.float64)
    bad = ~np.isfinite(pts).all(-1)  # diverged points stay NaN
    if bad.any():
        res = f.apply(np.where(bad[..., None], 0.0, pts))
        res[bad] = np.nan
        return res
    return f.apply(pts)


def gaussian_blur(a: np.ndarray, sigma: tuple[float, float]) -> np.ndarray:
    """Gaussian smoothing of the first two axes by (sigma along axis 0, along axis 1), edges
    mirrored about the outer samples (scipy's "mirror", OpenCV's REFLECT_101, numpy.pad's
    "reflect"), kernels of OpenCV's size for floats (8 sigma + 1 taps, rounded to odd: about 4
    sigma each side); in float64. Each axis is padded once and its taps summed over shifted views
    (a gather per tap took several times as long)."""
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
