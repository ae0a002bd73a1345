"""Where a warp reads: the coordinate sources besides one matrix per item (:class:`Coords`), the
maps' local scale (supersampling), the canvas that ``expand`` makes, and how the 8-wide kernel
is scheduled for a map."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import geometry
from .._options import COORD_SOURCES, STAGE_KINDS

COORD_MATRIX, COORD_MAP, COORD_FIELD, COORD_AXES = (
    COORD_SOURCES[k] for k in ("matrix", "map", "field", "axes"))

#: the most samples per axis that antialiasing takes
MAX_SS = 8


class Coords(NamedTuple):
    """Source positions that are not one matrix per item (kernels_cl/warp.cl, COORD) (a named
    tuple: cheaper to make than a frozen dataclass, and every non-linear call makes one):

    - ``COORD_MAP``: absolute positions per output pixel, ``mx`` and ``my`` operands (float32,
      C-contiguous; ``map_xy``: ``mx`` is one (..., Ho, Wo, 2) array and ``my`` the same),
      ``map_item`` floats apart per item (0: one map for all).
    - ``COORD_FIELD``: per item (or one for all), ``chain`` (n, nf + 1, 3, 3) src_from_dst maps
      around nf non-linear stages, each stage's frame folded in; ``fields`` all stages' values
      in their frames, flat float32; ``fi`` (n, nf, 4) int32 per item and stage: the offset in
      floats, the stage's kind (``STAGE_KINDS``) and its two sizes (kernels_cl/warp.cl,
      COORD_FIELD).
    - ``COORD_AXES``: a map separable per axis, ``axes`` (n, Wo + Ho) float32 per item (or
      (1, Wo + Ho) for all): each output column's source x, then each row's source y, finite.
    """

    kind: int
    mx: Any = None
    my: Any = None
    map_item: int = 0
    map_xy: bool = False
    chain: Any = None
    fields: Any = None
    fi: Any = None
    axes: Any = None


def expand_canvas(mats: np.ndarray, W: int, H: int) -> tuple[int, int, np.ndarray]:
    """(width, height, shift) of the smallest canvas that holds every map's whole image."""
    corners = np.array([[-0.5, -0.5], [W - 0.5, -0.5], [-0.5, H - 0.5], [W - 0.5, H - 0.5]])
    # a homography sends the line where its denominator is 0 (its horizon) to infinity; if
    # that line crosses the image, no finite canvas holds the result
    den = np.concatenate([corners @ m[2, :2] + m[2, 2] for m in mats])
    if not ((den > 0).all() or (den < 0).all()):
        raise ValueError(
            "expand=True: the homography sends part of the image to infinity (its horizon "
            "crosses the image), so no finite canvas holds it; pass size= for a fixed output")
    pts = np.concatenate([geometry.transform_points(m, corners) for m in mats])
    if not np.isfinite(pts).all():
        raise ValueError("expand=True needs the image to map to a finite region")
    lo, hi = pts.min(0), pts.max(0)
    span = hi - lo
    if (span > 1 << 16).any():
        raise ValueError(f"expand=True: the warped image spans {span[0]:.0f}x{span[1]:.0f} "
                         "pixels, beyond the 65536 per axis an output may have")
    wo, ho = (int(math.ceil(v - 1e-6)) for v in span)
    return max(wo, 1), max(ho, 1), geometry.translation(-lo[0] - 0.5, -lo[1] - 0.5)


def supersampling(inv: np.ndarray, wo: int, ho: int) -> list[int]:
    """Samples per axis, per map, so that a shrinking warp averages about one source pixel per
    sample: the largest local scale (source pixels per output pixel) over the output's corners
    and centre. Each map has its own, so an image is warped the same alone or in any batch.
    The local scale is the Jacobian's largest singular value, in closed form (no LAPACK call per
    point: numpy's wake OpenBLAS threads, and a batch of 64 made 320 of them)."""
    points = ((0, 0), (wo - 1, 0), (0, ho - 1), (wo - 1, ho - 1), ((wo - 1) / 2, (ho - 1) / 2))
    counts = []
    for m in inv.tolist():
        worst = 1.0
        for x, y in points:
            j = geometry.jacobian(m, x, y)
            if j is None:
                continue
            a, b, c, e = j
            q = a * a + b * b + c * c + e * e
            det = a * e - b * c
            worst = max(worst, math.sqrt((q + math.sqrt(max(q * q - 4 * det * det, 0.0))) / 2))
        counts.append(int(min(MAX_SS, math.ceil(worst - 1e-9))))
    return counts


#: the farthest an area-filtered footprint may reach from the origin (pixels): the kernel
#: takes its taps as ints, and float32 places it within a thousandth of a pixel there
AREA_REACH = float(1 << 22)


def area_items(inv: np.ndarray, wo: int, ho: int, rule: str) -> np.ndarray:
    """Which maps (B, 3, 3 src_from_dst) the kernel filters by area (OpenCV's INTER_AREA,
    kernels_cl/warp.cl's wk_area): those affine maps that keep or swap the axes (resizes,
    crops, flips, pads, quarter turns: each output pixel's square maps onto a source box), and
    with ``rule`` ``"shrink"`` only those that shrink along either axis (more than one source
    pixel per output pixel: albumentations' ``area_for_downscale``). The others keep the
    interpolation (``cv2.warpAffine`` reads INTER_AREA as linear). A filtered map's footprints
    must stay within :data:`AREA_REACH` of the origin, and read at most 64 taps per output pixel
    or 2^26 in all (a ValueError otherwise: a map that reads far past its image)."""
    m = np.asarray(inv, np.float64).reshape(-1, 3, 3)
    with np.errstate(all="ignore"):
        affine = np.all(m[:, 2] == [0.0, 0.0, 1.0], axis=1) & np.isfinite(m).all(axis=(1, 2))
        keeps = (m[:, 0, 1] == 0) & (m[:, 1, 0] == 0)
        swaps = (m[:, 0, 0] == 0) & (m[:, 1, 1] == 0)
        ok = affine & (keeps | swaps)
        scale = np.abs(m[:, :2, :2])
        if rule == "shrink":
            ok &= scale.max(axis=(1, 2)) > 1 + 1e-9
        sw, sh = scale[:, 0].sum(1), scale[:, 1].sum(1)  # a footprint's sides (source pixels)
        corners = np.array([[x, y, 1.0] for x in (-0.5, wo - 0.5) for y in (-0.5, ho - 0.5)]).T
        q = m @ corners
        reach = np.abs(q[:, :2]).max(axis=(1, 2))
    for k in np.flatnonzero(ok):
        taps = (math.ceil(sw[k]) + 1) * (math.ceil(sh[k]) + 1)
        if reach[k] > AREA_REACH or taps * wo * ho > max(64 * wo * ho, 1 << 26):
            raise ValueError(
                f"the area filter averages each output pixel's whole footprint: map {k}'s "
                f"footprints are {sw[k]:.4g} x {sh[k]:.4g} source pixels, reaching "
                f"{reach[k]:.4g} pixels from the origin (at most {AREA_REACH:.0f}, and "
                f"{max(64 * wo * ho, 1 << 26)} reads); shrink in steps, or use "
                f"antialias=True")
    return ok


def schedule(inv: np.ndarray, wo: int, ho: int, blocks: int, affine: bool) -> tuple[int, int]:
    """How the 8-wide kernel runs: (t, pf). Its work-groups of 64 work-items (blocks of 8 pixels)
    are 2^t blocks x 2^(6 - t) rows; pf > 0 prefetches the source rows pf blocks ahead. Where the
    source reads go depends on the map, and so does which shape the caches like (the
    measurements behind these rules are in docs/performance.md, "Why the warp kernel is
    scheduled so"):

    - a row of 512 pixels is fast where its source stays on one row (axis-aligned maps) or
      crosses source rows every few pixels; where it drifts slowly across them (small rotations)
      every source row it enters costs misses, and 64 x 8 tiles do better. Narrow outputs take
      32 x 16 tiles, but whole rows (2^t blocks, the output's width rounded up) where the map
      is axis-aligned: each work-group then reads its source rows from left to right (64 crops
      of photos to 224x224: 30.0 -> 17.7-20.6 ms; rotated 15 degrees, tiles stay better,
      24.7 against 33.5 ms).
    - prefetching pays where rows drift across source rows, 16 to 256 of them per 512 pixels (a
      block's 8 pixels then span at most 4 rows, which the two points at its ends cover), and
      costs where the hardware prefetcher already follows (axis-aligned maps) or the source is
      read slower than a pixel per pixel (magnification). Affine maps only. Narrow outputs
      (tiles) prefetch drifts up to 1024 too: a crop shrunk 1.7x and turned 20 degrees drifts
      past 256, and its kernel took 1.6-1.8x as long without (32 crops to 224^2 of 1000 px
      photos at scale 0.6: 14-15 -> 9-10 ms); rows of 512 did not gain (1080p at 30-90
      degrees, 4.6-6.2 -> 6.1-7.2 ms), nor tiles past 1024 (90 degrees at scale 0.45: masks
      10.2 -> 11.5 ms).

    For a batch, the medians over every (K // 16)-th matrix.
    """
    # at the output's centre: source rows crossed along 512 output pixels, and source pixels
    # moved per output pixel (Python floats: numpy's per-call costs on tiny arrays dominate)
    drifts, steps = [], []
    for m in inv[:: max(1, len(inv) // 16)].tolist():
        j = geometry.jacobian(m, (wo - 1) / 2, (ho - 1) / 2)
        if j is None:  # a perspective centre at infinity: tiles, no prefetch
            return (2 if blocks < 64 else 3), 0
        dx, dy = j[0], j[2]  # source x and y moved per output pixel along a row
        drifts.append(abs(dy) * 512)
        steps.append(math.hypot(dx, dy))
    drift, step = _median(drifts), _median(steps)
    pf = 4 if affine and 16 <= drift <= (1024 if blocks < 64 else 256) and step >= 0.75 else 0
    if blocks < 64:  # a whole output row per work-group row where the map is axis-aligned
        return ((blocks - 1).bit_length() if drift < 2 else 2), pf
    return (6 if drift < 2 or drift > 64 else 3), pf


#: warp_v's rows per work-item on axis-aligned maps (rows_per_item; kernels_cl/warp.cl's WV_ROWS),
#: where a launch makes at least MIN_GROUPS work-groups with them
AXIS_ROWS = 16
MIN_GROUPS = 8


def rows_per_item(cpu_like: bool, rows_path: bool, inv: np.ndarray, finite_affine: bool,
                  wo: int, ho: int, tw_log2: int, items: int) -> int:
    """warp_v's rows per work-item: AXIS_ROWS where a CPU-like device (``cpu_like``) resamples
    by matrices through one of the kernel's rows paths (``rows_path``: uint8, one block per
    work-item, no supersampling; linear, or nearest stored as it is, without colour operations
    or a model's input: masks) and the maps are all affine with finite entries and
    axis-aligned as the kernel sees them (their float32 ``m[0][1]`` and ``m[1][0]`` are 0:
    resizes, crops, flips, letterboxes), else 1. Such a map's rows of one block read the same
    columns with the same weights, and a magnification's consecutive rows share source rows:
    the kernel works out the columns once and mixes (linear) or reads (nearest) each source row
    once for all of its rows, the same values from the same operations as a row at a time.
    1 too where a launch's ``items`` outputs of ``wo`` x ``ho`` in work-groups of 2^tw_log2
    blocks would make fewer than MIN_GROUPS of them: a small output alone keeps every core busy
    (and 2 or 4 rows, which would, were slower than 1: docs/performance.md, "Axis-aligned maps:
    rows that share their columns")."""
    if not (cpu_like and rows_path and finite_affine):
        return 1
    blocks = -(-wo // 8)  # (the count first: Python ints, where a small output ends it)
    columns, th = -(-blocks >> tw_log2), 64 >> tw_log2  # work-groups across, their rows
    if items * columns * -(-ho // (th * AXIS_ROWS)) < MIN_GROUPS:
        return 1
    return 1 if inv.reshape(-1, 9)[:, 1:4:2].astype(np.float32).any() else AXIS_ROWS


def _median(values: list[float]) -> float:
    """statistics.median without importing statistics (slow to import)."""
    values = sorted(values)
    k = len(values) // 2
    return values[k] if len(values) % 2 else (values[k - 1] + values[k]) / 2


def blocks(coords: Coords | None) -> int:
    """warp_v's blocks of 8 output pixels per work-item, by where positions come from. A block's
    positions are a chain of dependent arithmetic (a lens: ~15 operations in a row) that the
    core cannot overlap with the next work-item's, which comes after the block's hundreds of
    sampling instructions; blocks side by side in one work-item overlap their chains
    (docs/performance.md). Matrices keep 1: their positions are 2 operations, and the prefetch
    distance is tuned in blocks of one."""
    if coords is None:
        return 1
    if coords.kind == COORD_FIELD:  # lenses only: 4; a grid's taps fill 2
        return 4 if (coords.fi[..., 1] == STAGE_KINDS["lens"]).all() else 2
    return 4 if coords.kind == COORD_AXES else 2
