"""OpenCV's ``cv2.resize`` of 8-bit images as tables of taps, one per axis: each output index's
first source index and its weights, the taps past the edges folded onto the edge pixels (OpenCV
repeats them). Downscale's interpolation pairs other than nearest-nearest resample twice by two
such stages (``kernels_cl/colour_pass.cl``'s ``colour_rescale``, then ``colour_apply``).

OpenCV's choices, as ``cv::resize`` makes them (imgproc/src/resize.cpp):

- a size equal to the source's is a copy;
- ``INTER_NEAREST``: source ``floor(x / inv_scale)`` (in double), at most the last;
- ``INTER_LINEAR``, ``INTER_CUBIC``, ``INTER_LANCZOS4``: the position ``(x + 0.5) / inv_scale -
  0.5`` in float32, its floor the first tap's place, the fraction's weights (1 - f, f; Keys'
  cubic with A = -0.75; Lanczos's 8, normalised) in float32, then for 8-bit images rounded to
  shorts of 2048 (``INTER_RESIZE_COEF_SCALE``): the sum of the products over the rows and the
  columns is a fixed-point number of 22 fraction bits, rounded half up. Linear moves a
  position before the first pixel or past the last onto it (weight 0 for the other);
- ``INTER_LINEAR`` down by exactly 2 both ways is ``INTER_AREA``'s;
- ``INTER_AREA`` down (both scales at least 1): each output pixel the mean of its cell of
  source pixels, the cut pixels at its ends weighted by the part inside (``computeResizeAreaTab``:
  float32 weights, the sum in float, rounded half to even); a whole scale is the plain mean of
  each block (``resizeAreaFast``; blocks cut by the edge take the mean of the pixels inside);
- ``INTER_AREA`` up: linear weights from the cells' overlap (``area_mode``), in fixed point;
- ``INTER_NEAREST_EXACT``: source ``floor(f)``, ``f`` from half a step adding steps of ``n / m``
  in double (``resizeNN_bitexact``), at most the last;
- ``INTER_LINEAR_EXACT``: the position ``(x + 0.5) / inv_scale - 0.5`` in double, its fraction
  in shorts of 256, positions before the first pixel or past the last moved onto it; the
  rows' sum of the columns' sums in units of 2^-16, rounded half up (``resize_bitExact``).

Example:
    >>> small, down, up = downscale_stages(4, 4, 0.5, INTER_AREA, INTER_LINEAR, 3)
    >>> small, down[0][0].tolist(), down[0][1].tolist()  # 2 x 2 means
    ((2, 2), [0, 2], [[0.5, 0.5], [0.5, 0.5]])
    >>> up[0][0].tolist(), up[0][1].tolist(), up[2] == ROUND_LINEAR  # shorts of 2048
    ([0, 0, 0, 1], [[2048.0, 0.0], [1536.0, 512.0], [512.0, 1536.0], [2048.0, 0.0]], True)
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

#: OpenCV's interpolation codes that Downscale's pairs take here
INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, INTER_AREA, INTER_LANCZOS4 = 0, 1, 2, 3, 4
INTER_LINEAR_EXACT, INTER_NEAREST_EXACT = 5, 6
RESIZE_INTERPOLATIONS = (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, INTER_AREA, INTER_LANCZOS4,
                         INTER_LINEAR_EXACT, INTER_NEAREST_EXACT)
#: OpenCV's INTER_RESIZE_COEF_SCALE: 8-bit weights in shorts of 2048
COEF_SCALE = 2048
_S45 = 0.70710678118654752440084436210485
_CS = ((1, 0), (-_S45, -_S45), (0, 1), (_S45, -_S45), (-1, 0), (_S45, _S45), (0, -1),
       (-_S45, _S45))


def _cubic(f: np.ndarray) -> np.ndarray:
    """OpenCV's interpolateCubic (A = -0.75) in float32: (n, 4)."""
    A = np.float32(-0.75)
    x = f.astype(np.float32)
    one = np.float32(1)
    x1 = x + one
    c0 = ((A * x1 - np.float32(5) * A) * x1 + np.float32(8) * A) * x1 - np.float32(4) * A
    c1 = ((A + np.float32(2)) * x - (A + np.float32(3))) * x * x + one
    y = one - x
    c2 = ((A + np.float32(2)) * y - (A + np.float32(3))) * y * y + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], 1).astype(np.float32)


def _lanczos(f: np.ndarray) -> np.ndarray:
    """OpenCV's interpolateLanczos4 in float32 (its double steps in double): (n, 8)."""
    x = f.astype(np.float32)
    y0 = -(x.astype(np.float64) + 3) * np.pi * 0.25
    s0, c0 = np.sin(y0), np.cos(y0)
    out = np.empty((len(x), 8), np.float32)
    for i in range(8):
        yi = (x + np.float32(3 - i)).astype(np.float32)
        y = -yi.astype(np.float64) * np.pi * 0.25
        with np.errstate(divide="ignore", invalid="ignore"):
            c = ((_CS[i][0] * s0 + _CS[i][1] * c0) / (y * y)).astype(np.float32)
        out[:, i] = np.where(np.abs(yi) >= np.float32(1e-6), c, np.float32(1e30))
    total = np.zeros(len(x), np.float32)
    for i in range(8):  # (a float32 running sum, as OpenCV adds them)
        total = (total + out[:, i]).astype(np.float32)
    return (out * (np.float32(1) / total)[:, None]).astype(np.float32)


def _area_axis(n: int, m: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's computeResizeAreaTab for ``m`` outputs of ``n`` sources, ``scale`` source
    pixels a cell: (first index, float32 weights (m, taps)): a cell's first pixel cut by its
    start (weighted by the part inside, when over 1e-3), its whole pixels (1 / the cell's
    width), its last pixel cut by its end (likewise); the last cell's width cut by the edge."""
    fsx1 = np.arange(m, dtype=np.float64) * scale
    fsx2 = fsx1 + scale
    cell = np.minimum(scale, n - fsx1)
    sx2 = np.minimum(np.floor(fsx2), n - 1)
    sx1 = np.minimum(np.ceil(fsx1), sx2)
    left, right = sx1 - fsx1 > 1e-3, fsx2 - sx2 > 1e-3
    start = np.where(left, sx1 - 1, sx1).astype(np.int64)
    taps = int((left + (sx2 - sx1) + right).max())
    idx = start[:, None] + np.arange(taps)[None, :]
    w = np.where(left[:, None] & (idx == (sx1 - 1)[:, None]),
                 ((sx1 - fsx1) / cell).astype(np.float32)[:, None], np.float32(0))
    w = w + np.where((idx >= sx1[:, None]) & (idx < sx2[:, None]),
                     (1.0 / cell).astype(np.float32)[:, None], np.float32(0))
    last = (np.minimum(np.minimum(fsx2 - sx2, 1.0), cell) / cell).astype(np.float32)
    w = w + np.where(right[:, None] & (idx == sx2[:, None]), last[:, None], np.float32(0))
    return start, w.astype(np.float32)


def _area_fast_axis(n: int, m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """resizeAreaFast's blocks of ``k`` along one axis, cut by the edge: weights 1 / the
    pixels inside (the product of the axes' is the block's mean)."""
    start = np.arange(m, dtype=np.int64) * k
    inside = np.minimum(k, n - start)
    w = np.where(np.arange(k)[None, :] < inside[:, None],
                 (1.0 / inside).astype(np.float32)[:, None], np.float32(0))
    return start, w.astype(np.float32)


def stage_axis(n: int, m: int, inv_scale: float, interpolation: int, mode: int,
               float_cubic: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """One axis of one ``cv2.resize`` stage of an 8-bit image: ``n`` sources to ``m`` outputs at
    ``inv_scale`` (outputs a source pixel, as OpenCV holds it), by ``mode`` (what
    :func:`stage_modes` chose for the stage; ``float_cubic``: :func:`float_cubic`'s). Returns
    (each output's first tap's source index, which may lie before the first pixel: taps are
    read clamped to [0, n), as OpenCV reads them; weights (m, taps) in float32, the
    fixed-point ones as whole shorts: of 2048, of 256 for ``INTER_LINEAR_EXACT``)."""
    x = np.arange(m, dtype=np.float64)
    scale = 1.0 / inv_scale
    if mode == _COPY:
        return np.arange(m, dtype=np.int64), np.ones((m, 1), np.float32)
    if mode == _NEAREST:
        s = np.minimum(np.floor(x * scale), n - 1).astype(np.int64)
        return s, np.ones((m, 1), np.float32)
    if mode == _NEAREST_EXACT:  # (resizeNN_bitexact: n / m in double, added up from half of it)
        step = n / m
        f = np.fromiter(itertools.accumulate(itertools.repeat(step, m - 1), initial=step * 0.5),
                        np.float64, m)
        return np.minimum(np.floor(f), n - 1).astype(np.int64), np.ones((m, 1), np.float32)
    if mode == _LINEAR_EXACT:  # (resize_bitExact: the fraction in shorts of 256, edges moved)
        f = scale * (x + 0.5) - 0.5
        iv = np.floor(f).astype(np.int64)
        c1 = np.rint((f - iv) * 256)
        lo = (iv < 0) | (n <= 1)
        hi = ~lo & (iv >= n - 1)
        c1 = np.where(lo | hi, 0, c1)
        start = np.where(lo, 0, np.where(hi, n - 1, iv))
        return start, np.stack([256 - c1, c1], 1).astype(np.float32)
    if mode in (_AREA_FAST, _AREA_FAST2):
        return _area_fast_axis(n, m, int(round(scale)))
    if mode == _AREA:
        return _area_axis(n, m, scale)
    if mode == _AREA_LINEAR:
        sx = np.floor(x * scale)
        f = ((x + 1) - (sx + 1) * inv_scale).astype(np.float32)
        f = np.where(f <= 0, np.float32(0), f - np.floor(f)).astype(np.float32)
        sx = sx.astype(np.int64)
    else:
        f = ((x + 0.5) * scale - 0.5).astype(np.float32)
        sx = np.floor(f).astype(np.int64)
        f = (f - sx.astype(np.float32)).astype(np.float32)
    ksize = {INTER_CUBIC: 4, INTER_LANCZOS4: 8}.get(interpolation, 2)
    if ksize == 2:  # (linear and area's emulation: columns past the edges moved onto them)
        lo, hi = sx < 0, sx >= n - 1
        f = np.where(lo | hi, np.float32(0), f).astype(np.float32)
        sx = np.where(lo, 0, np.where(hi, n - 1, sx))
        w = np.stack([np.float32(1) - f, f], 1).astype(np.float32)
    else:
        w = _cubic(f) if ksize == 4 else _lanczos(f)
    if ksize == 4 and float_cubic:
        return sx - 1, w
    # saturate_cast<short>: rounded half to even, as the CPU rounds (cvRound)
    iw = np.clip(np.rint(w.astype(np.float32) * np.float32(COEF_SCALE)), -32768, 32767)
    return sx - ksize // 2 + 1, iw.astype(np.float32)


#: how a stage adds its rows' sums and rounds them into a level (the vertical step of OpenCV's
#: 8-bit resize, as its SSE code computes it on x86-64; kernels_cl/colour_pass.cl's CP_RS_*):
#:   ROUND_FIXED   fixed point, (sum + 2^21) >> 22 in 64 bits (Lanczos)
#:   ROUND_LINEAR  VResizeLinearVec_32s8u: each row's sum shifted right by 4, times its weight's
#:                 high 16 bits (v_mul_hi), the two added, (t + 2) >> 2
#:   ROUND_CUBIC   VResizeCubicVec_32s8u (OpenCV 5's cubic of 2 channels or sides under 4):
#:                 in float32, the weights times 2^-22, the rows' products added from the
#:                 last, rounded half to even
#:   ROUND_FLOAT   a float sum rounded half to even (area, nearest, a copy; cubic of 1, 3 and
#:                 4 channels, which OpenCV 5 computes in float: float weights, float sums)
#:   ROUND_HALF    resizeAreaFast's 2 x 2 means, (sum + 2) >> 2: weights of 1/2, the float sum
#:                 plus 1/2 floored; its cells cut by the image's edge (a tap on that side)
#:                 take the mean of their pixels rounded half to even
#:   ROUND_EXACT8  INTER_LINEAR_EXACT's bit-exact fixed point: weights in shorts of 256, the
#:                 rows' sum in units of 2^-16, (sum + 2^15) >> 16
(ROUND_FIXED, ROUND_LINEAR, ROUND_CUBIC, ROUND_FLOAT, ROUND_HALF,
 ROUND_EXACT8) = range(6)
#: the roundings whose weights are OpenCV's fixed-point shorts (whole numbers; at most 8 taps)
FIXED_ROUNDINGS = (ROUND_FIXED, ROUND_LINEAR, ROUND_CUBIC, ROUND_EXACT8)


def float_cubic(size: tuple[int, int], channels: int) -> bool:
    """Whether OpenCV 5 resizes an 8-bit image of ``size`` (w, h) and ``channels`` by cubic
    weights in float (1, 3 or 4 channels, both sides at least 4 pixels: float weights, float
    sums), not by its fixed-point path (found by comparing with ``cv2.resize``)."""
    return channels != 2 and min(size) >= 4


def stage_rounding(mode: int, interpolation: int, channels: int, floats: bool = True) -> int:
    """The rounding (ROUND_*) of a stage of ``mode`` by ``interpolation`` on an image of
    ``channels`` (OpenCV's 2 x 2 area mean has vector code for 1, 3 and 4 channels only)."""
    if mode == _AREA_FAST2:
        return ROUND_HALF if channels in (1, 3, 4) else ROUND_FLOAT
    if mode == _LINEAR_EXACT:
        return ROUND_EXACT8
    if mode in (_COPY, _NEAREST, _NEAREST_EXACT, _AREA_FAST, _AREA):
        return ROUND_FLOAT
    if mode == _AREA_LINEAR or interpolation == INTER_LINEAR:
        return ROUND_LINEAR
    if interpolation == INTER_CUBIC:
        return ROUND_FLOAT if floats else ROUND_CUBIC
    return ROUND_FIXED


(_COPY, _NEAREST, _AREA_FAST, _AREA_FAST2, _AREA, _AREA_LINEAR, _KERNEL, _NEAREST_EXACT,
 _LINEAR_EXACT) = range(9)


def stage_modes(size: tuple[int, int], dsize: tuple[int, int], inv: tuple[float, float],
                interpolation: int) -> int:
    """What ``cv::resize`` does for an 8-bit image of ``size`` (w, h) to ``dsize`` at ``inv``
    (its inv_scale_x, inv_scale_y), one mode for both axes."""
    if tuple(size) == tuple(dsize):
        return _COPY
    if interpolation == INTER_NEAREST:
        return _NEAREST
    if interpolation == INTER_NEAREST_EXACT:
        return _NEAREST_EXACT
    if interpolation == INTER_LINEAR_EXACT:
        return _LINEAR_EXACT
    sx, sy = 1.0 / inv[0], 1.0 / inv[1]
    ix, iy = int(np.rint(sx)), int(np.rint(sy))
    fast = abs(sx - ix) < np.finfo(float).eps and abs(sy - iy) < np.finfo(float).eps
    if interpolation == INTER_LINEAR and fast and ix == 2 and iy == 2:
        interpolation = INTER_AREA
    if interpolation == INTER_AREA:
        if sx >= 1 and sy >= 1:
            return (_AREA_FAST2 if ix == 2 and iy == 2 else _AREA_FAST) if fast else _AREA
        return _AREA_LINEAR
    return _KERNEL


@functools.lru_cache(maxsize=256)
def downscale_stages(w: int, h: int, scale: float, down: int, up: int, channels: int
                     ) -> list:
    """albumentations' Downscale of a ``w`` x ``h`` image of ``channels`` by ``scale``:
    ``cv2.resize(img, None, fx=scale, fy=scale, interpolation=down)`` then back to (w, h) by
    ``up``. Returns the small size and the two stages, each (x axis, y axis, rounding), each
    axis as :func:`stage_axis` gives it: [(ws, hs), first, second] (cached: read, never
    write, its arrays)."""
    ws, hs = max(int(np.rint(w * scale)), 1), max(int(np.rint(h * scale)), 1)
    out: list = [(ws, hs)]
    for (n, m), inv, how in ((((w, h), (ws, hs)), (scale, scale), down),
                             (((ws, hs), (w, h)), (w / ws, h / hs), up)):
        mode, floats = stage_modes(n, m, inv, how), float_cubic(n, channels)
        out.append((stage_axis(n[0], m[0], inv[0], how, mode, floats),
                    stage_axis(n[1], m[1], inv[1], how, mode, floats),
                    stage_rounding(mode, how, channels, floats)))
    return out


def apply_stage(img: np.ndarray, stage: tuple) -> np.ndarray:
    """A stage on an (h, w, c) 8-bit image in numpy, as the device computes it (the reference
    the tests hold the tables to): each output the sum over its rows' taps of the weighted
    sums over its columns' taps (whole numbers for fixed-point weights), rounded by the
    stage's rule, saturated."""
    (sx, wx), (sy, wy), rounding = stage
    src = img.astype(np.float64)
    n, m = src.shape[1], src.shape[0]
    rows = np.zeros((m, len(sx), src.shape[2]))
    for j in range(wx.shape[1]):
        rows += wx[:, j][None, :, None] * src[:, np.clip(sx + j, 0, n - 1), :]
    taps = [rows[np.clip(sy + i, 0, m - 1)] for i in range(wy.shape[1])]
    b = [wy[:, i][:, None, None].astype(np.float64) for i in range(wy.shape[1])]
    if rounding == ROUND_LINEAR:
        t = sum(np.floor(bi * (ti.astype(np.int64) >> 4) / 65536) for bi, ti in zip(b, taps))
        out = np.floor((t + 2) / 4)
    elif rounding == ROUND_EXACT8:
        out = np.floor((sum(bi * ti for bi, ti in zip(b, taps)) + 32768) / 65536)
    elif rounding == ROUND_CUBIC:
        f = [np.float32(bi) * np.float32(2.0 ** -22) for bi in b]
        acc = (taps[3].astype(np.float32) * f[3]).astype(np.float32)
        for i in (2, 1, 0):
            acc = (acc + (taps[i].astype(np.float32) * f[i]).astype(np.float32)).astype(np.float32)
        out = np.rint(acc)
    else:
        total = sum(bi * ti for bi, ti in zip(b, taps))
        if rounding == ROUND_FIXED:
            out = np.floor(total / 2.0 ** 22 + 0.5)
        elif rounding == ROUND_HALF:  # (cells cut by the edge: rint)
            whole = (wy[:, 1] != 0)[:, None, None] & (wx[:, 1] != 0)[None, :, None]
            out = np.where(whole, np.floor(total + 0.5), np.rint(total))
        else:
            out = np.rint(total)
    return np.clip(out, 0, 255).astype(np.uint8)


#: the words before an item's taps in its table (kernels_cl/colour_pass.cl's RT)
TABLE_HEAD = 8


def table_size(wo: int, ho: int, down_taps: int, up_taps: int) -> int:
    """The floats of one item's table (:func:`downscale_table`) for an output of ``wo`` x ``ho``
    whose stages have at most ``down_taps`` and ``up_taps`` taps a side."""
    return TABLE_HEAD + (wo + ho) * (1 + down_taps) + (wo + ho) * (1 + up_taps)


def downscale_table(stages: list, wo: int, ho: int, down_taps: int, up_taps: int
                    ) -> np.ndarray:
    """One item's taps (:func:`downscale_stages`' result) as colour_pass.cl's RT reads them:
    the head (ws, hs, the taps a side of each stage, their roundings, two spare), then the
    small image's columns and rows (``wo`` and ``ho`` entries of ``1 + down_taps`` floats:
    the first tap's index, the weights), the output's columns and rows (entries of ``1 +
    up_taps``)."""
    (ws, hs), first, second = stages
    out = np.zeros(table_size(wo, ho, down_taps, up_taps), np.float32)
    out[:TABLE_HEAD] = [ws, hs, down_taps, up_taps, first[2], second[2], 0, 0]
    at = TABLE_HEAD
    for stage, taps in ((first, down_taps), (second, up_taps)):
        for (start, w), n in zip(stage[:2], (wo, ho)):
            block = out[at:at + n * (1 + taps)].reshape(n, 1 + taps)
            block[:len(start), 0] = start
            block[:len(start), 1:1 + w.shape[1]] = w
            at += n * (1 + taps)
    return out
