"""A warp's plan: the kernel variant, its arguments and its launch for one kind of call
(:class:`WarpSpec` and the image's layout), cached; and the values that follow from the options,
made once."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl

from .._dtypes import VALUE_TYPES
from .._images import shape_hwc
from .._memory import (Operand, _c_strides, check_allocation, device_layout, round_up,
                       wants_device_result)
from .._op import Arg, Launch, Plan, Scratch, Variant
from ..runtime import PlanCache, Runtime, vec4
from .coords import COORD_AXES, COORD_FIELD, COORD_MAP, COORD_MATRIX
from .lab import DEFINES as LAB_DEFINES
from .output import FLOAT_OUT

#: what a colour pass does besides its pointwise operations (WarpSpec.colour_passes): some item
#: starts it with an operation on the mean (the mean's launch), with a Gaussian blur (the rows'
#: launch), with a motion blur or a 3x3 filter (taps in colour_apply), with a median (in
#: colour_apply), with CLAHE (its tiles' tables first: colour_clahe_lut), with a downscale (a
#: gather in colour_apply from the host's table of source pixels, IDX<pass>), with a JPEG round
#: trip (its blocks first: colour_jpeg_blocks, the decoded planes in JPG), with FancyPCA (the
#: mean's launch sums the channels' products, colour_pca makes each item's matrix into PM)
PASS_MEAN, PASS_BLUR, PASS_MOTION, PASS_MEDIAN, PASS_CLAHE, PASS_GATHER, PASS_JPEG, PASS_PCA = \
    1, 2, 4, 8, 16, 32, 64, 128
#: ... and with an unsharp mask (the rows' launch as a blur's, then colour_unsharp_rows: the
#: threshold's mask of the blurred image into U, its rows filtered into UM); with a zoom blur
#: (in colour_apply, from the host's table of each zoom's source rows and columns, ZT<pass>);
#: with a chromatic aberration (in colour_apply: channels 0 and 2 read at a lens's positions);
#: with one of GlassBlur's swaps (each pixel's last swap partner into WIN first, by
#: colour_glass_scatter after colour_glass_clear; colour_apply reads each pixel from there)
PASS_UNSHARP, PASS_ZOOM, PASS_CHROMA, PASS_MORPH, PASS_GLASS = 256, 512, 1024, 2048, 4096
#: ... and with GlassBlur's exact mode among its swaps (colour_glass_exact follows each pixel's
#: source through the pairs, a work-item per item; only passes that have it launch it)
PASS_GLASS_EXACT = 8192
#: ... and with a downscale by another interpolation pair than nearest both ways (two real
#: resamplings: colour_rescale, a work-group per item, makes the small image into SM and its
#: rows brought to the output's width into SR, colour_apply their columns; the host's taps in
#: RT<pass>)
PASS_RESCALE = 16384
#: ... and with FDA (albumentations' Fourier domain adaptation: colour_fda_rows takes each
#: row's DFT at the window's column frequencies into FA, colour_fda_coef the window's
#: coefficients and their changes into FC from the reference's amplitudes in the call's
#: colour table FR (a work-item per two row frequencies and 8 column frequencies, four
#: points of the window each), colour_fda_cols each row's sums of those changes back into
#: FA (8 rows a work-item, each with Ho - y), and colour_apply adds each pixel's; the
#: twiddles in FT)
PASS_FDA = 32768

#: the most zooms a ZoomBlur averages (engine.core refuses more before any launch: each is 4
#: reads a value, and a table of 3 (Wo + Ho) floats an item)
MAX_ZOOMS = 1000

#: COL_RAIN's group in a build's WK_COL_HEAVY mask (kernels_cl/colour.h's WK_COLG_RAIN): a
#: colour list whose builds have it gets its drops drawn first (kernels_cl/rain.cl)
COLG_RAIN = 8192
#: ... and COL_PLASMA's (WK_COLG_PLASMA): a colour list whose builds have it gets its plasma
#: patterns made first (kernels_cl/plasma.cl)
COLG_PLASMA = 16384
#: ... and COL_SNOW_TEX's (WK_COLG_SNOW): its snow textures made first (kernels_cl/snow.cl)
COLG_SNOW = 32768
#: ... and COL_FLARE_PB's (WK_COLG_FLARE_PB): RandomSunFlare's physics-based layers made first
#: (kernels_cl/flare.cl)
COLG_FLARE_PB = 65536

#: colour_mean's floats per item and work-group in P (kernels_cl/colour_pass.cl's CP_PW), and
#: colour_pca's per item in PM (CP_PM: FancyPCA's 4 x 4 matrix and 4 means)
MEAN_WORDS, PCA_WORDS = 16, 20

#: the most CLAHE tiles per axis (their tables: 256 bytes each, per item; engine.core refuses
#: more before any launch)
MAX_CLAHE_TILES = 64

#: a CLAHE tile's pixels per work-item of its histogram, about: the rows of a band are this
#: over the tile's width, at least one (kernels_cl/colour_pass.cl's CLAHE_PIXELS)
CLAHE_PIXELS = 4096

#: the largest radius of a blur operation (kernels_cl/colour_pass.cl's CP_RMAX: its work-group
#: tables are this size; engine.core refuses larger radii before any launch)
MAX_BLUR_RADIUS = 127

#: the largest size of a median operation (k x k values a pixel: past 7, each read once per bit
#: of a level, the work growing as k squared; engine.core refuses larger sizes before any
#: launch)
MAX_MEDIAN_SIZE = 31

#: the widest reach of a filter with a kernel of weights, columns either side (colour_pass.cl's
#: CP_TAP_R: each kernel row's source pixels are read once into a private row of this reach),
#: and so its most taps, a 65 x 65 kernel; engine.core refuses more before any launch
MAX_TAP_RADIUS = 32
MAX_TAPS = (2 * MAX_TAP_RADIUS + 1) ** 2


@dataclass(frozen=True)
class WarpSpec:
    """What a warp's plan depends on besides the image's layout (its H, W, C) and the runtime."""

    out_shape: tuple[int, ...]
    items: int  # output images (the batch, or one per crop box)
    wo: int
    ho: int
    per_image: bool  # a matrix per item (else one for all)
    indexed: bool  # item k reads image index[k] (crops)
    mode: int
    pad: int
    supersample: bool  # antialiasing: some map has more than one sample per axis
    # float32 / float16: the model's input (normalised), else None (a dtype: its str costs a
    # single-image call ~20 us)
    y_dtype: np.dtype | None = None
    y_chw: bool = False  # that input's channels first
    ragged: bool = False  # items are images of their own sizes packed in one buffer (warp_batch)
    coord: int = COORD_MATRIX  # where source positions come from (Coords)
    blocks: int = 1  # warp_v's blocks of 8 pixels per work-item (blocks)
    colour: bool = False  # colour operations per item (kernels_cl/colour.h)
    # the colour passes after the warp (kernels_cl/colour_pass.cl): each one's kind
    # (PASS_MEAN | PASS_BLUR | PASS_MOTION | PASS_MEDIAN)
    colour_passes: tuple[int, ...] = ()
    # each colour launch's groups of larger operations (the warp's, then each pass's): the
    # WK_COL_HEAVY of its build (kernels_cl/colour.h; engine.core.colour_groups)
    colour_groups: tuple[int, ...] = ()
    # the most CLAHE tiles of an item (their tables' room per item), 0 without CLAHE, and the
    # most bands a tile has (colour_clahe_hist's work-items per tile: CLAHE_PIXELS)
    clahe_tiles: int = 0
    clahe_bands: int = 0
    # the FDA passes' room (engine.core.fda_sizes: the most column pairs, window rows and
    # window columns of an item), () without FDA
    fda: tuple[int, ...] = ()
    # some item's map is filtered by area (its samples per axis 0: kernels_cl/warp.cl's
    # WK_AREA: wv_area in the 8-wide kernel, wk_area_add in the general one)
    area: bool = False


#: a plan per output shape among the rest: a list whose outputs differ in size (a pass of a
#: pipeline in passes, photos of every size) takes one each, so 64 made a batch of 64 miss every
#: plan, call after call; a plan is a few small objects
PLANS = PlanCache(maxsize=1024)


#: a warp's values that follow from its options (fill, normalisation, samples per map): made
#: once, the same objects every call, so that a cached call sets only its buffers and matrix
#: (Plan._run_on_device); the buffers are read-only in the kernel, shared by every call
FIXED = PlanCache(maxsize=256)


#: the matrix of positions from per-pixel maps or per-axis tables: the identity (read-only)
NO_MAP = np.eye(3)[None]
NO_MAP.flags.writeable = False


def int32(v: int) -> np.int32:
    """One np.int32 object per value (the short path compares the values it set by identity:
    _op._bind)."""
    return _scalar(np.int32, int(v))


def int64(v: int) -> np.int64:
    """One np.int64 object per value, as :func:`int32`."""
    return _scalar(np.int64, int(v))


@functools.lru_cache(maxsize=4096)
def _scalar(t: type, v: int) -> Any:
    return t(v)


def fixed_values(rt: Runtime, fills: tuple, int_image: bool, yscale: tuple, ybias: tuple,
                  ss: tuple) -> dict[str, Any]:
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    ints = [int(v) if int_image else 0 for v in fills]
    wide = {}
    if len(fills) > 4:  # kernels_cl/warp.cl's WK_WIDE: every channel's values in buffers
        C = len(fills)
        per = np.zeros((3, C), np.float32)  # fill, yscale, ybias (the last two: the model's)
        per[0] = fills
        per[1, :len(yscale)] = yscale
        per[2, :len(ybias)] = ybias
        wide = {"WIDE": cl.Buffer(rt.context, ro, hostbuf=per),
                "IWIDE": cl.Buffer(rt.context, ro, hostbuf=np.asarray(ints, np.int32))}
    # the vector arguments take the first 4 (all of them, or unused beside WIDE)
    return {**wide, "index": cl.Buffer(rt.context, ro, hostbuf=np.zeros(1, np.int32)),
            "M": cl.Buffer(rt.context, ro, hostbuf=NO_MAP.reshape(9).astype(np.float32)),
            "fill": vec4(fills[:4], np.float32), "ifill": vec4(ints[:4], np.int32),
            "ss": cl.Buffer(rt.context, ro, hostbuf=np.asarray(ss, np.int32)),
            "yscale": vec4(yscale[:4], np.float32), "ybias": vec4(ybias[:4], np.float32)}


#: the arguments of a host image's layout in a warp's plan, after X: its offset, strides (batch,
#: row, pixel, channel; elements), height and width, the values of each call (image_values)
SIZED = tuple(Arg(n) for n in ("x_off", "sxb", "sxy", "sxx", "sxc", "H", "W"))


def image_strides(st: tuple[int, ...]) -> tuple[int, ...]:
    """The kernels' (batch, row, pixel, channel) element strides of an (H, W), (H, W, C) or
    (B, H, W, C) array's strides ``st``."""
    return {2: lambda: (0, st[0], st[1], 0), 3: lambda: (0, *st)}.get(len(st), lambda: st)()


def src_words(shape: tuple[int, ...]) -> bool:
    """Whether the 8-wide kernel can take a C-contiguous host image of ``shape``: a 32-bit word
    read fits in it, and an image's span (its elements, one image of a batch) is below 2^31 - 4."""
    _, H, W, C, _, _ = shape_hwc(shape)
    return math.prod(shape) >= 4 and H * W * C - 1 < 2**31 - 4


def image_key(src: Operand) -> tuple:
    """A warp plan's key for ``src``'s layout: a host image's dtype, axes, channels and whether
    the 8-wide kernel takes it (its sizes are values of each call: image_values); a device
    array's whole layout (Operand.layout)."""
    if src.dev is not None:
        return src.layout
    return _host_key(src.host.dtype, src.host.shape)


@functools.lru_cache(maxsize=1024)
def _host_key(dt: np.dtype, shape: tuple[int, ...]) -> tuple:
    return ("host", dt, len(shape), shape[-1] if len(shape) > 2 else 1, src_words(shape))


@functools.lru_cache(maxsize=1024)
def image_values(shape: tuple[int, ...]) -> dict[str, Any]:
    """The per-call values of a C-contiguous host image of ``shape`` (SIZED, the 8-wide kernel's
    last_word and interior): the same objects for the same shape, so that a kernel that last
    ran this shape keeps its arguments (_op.bind's short path). Read-only."""
    _, H, W, C, _, _ = shape_hwc(shape)
    strides = image_strides(tuple(_c_strides(shape)))
    # the interior path reads 4 bytes from each tap's start (see warp_plan): in C order the
    # pixels are packed and rows go down, so what decides is the last row's length
    interior = W * C + C >= 4 and max(H, W) < 1 << 24
    return {"x_off": int64(0),
            **{n: int64(v) for n, v in zip(("sxb", "sxy", "sxx", "sxc"), strides)},
            "H": int32(H), "W": int32(W), "last_word": int64(max(math.prod(shape), 4) - 4),
            "interior": int32(interior)}


def warp_plan(rt: Runtime, src: Operand, w: WarpSpec, tw_log2: int, rows: int = 1) -> Plan:
    """The plan of a warp: ``tw_log2`` and ``rows`` split its output among the 8-wide kernel's
    work-groups (engine.coords.schedule, rows_per_item)."""
    dt = np.dtype(src.dtype)
    ydt = dt if w.y_dtype is None else np.dtype(w.y_dtype)
    on_device = wants_device_result(src)
    if w.ragged:  # packed (total,) or (total, C): sizes, offsets, extent and interior per call
        C = src.shape[1] if src.ndim == 2 else 1
        H = W = 0
    else:
        _, H, W, C, _, _ = shape_hwc(src)
    check_allocation(rt, math.prod(w.out_shape) * ydt.itemsize,
                     f"the {'x'.join(map(str, w.out_shape))} {ydt} output",
                     "ask for a smaller output or split the call")
    if w.items == 0 or C == 0:
        return Plan(rt, w.out_shape, ydt, on_device)
    # a host image's sizes, strides and ends are values of each call (image_values): one plan
    # serves photos of every size (a plan made per size cost a call of one photo ~110 us, and
    # a dataset's photos rarely share one); a device array's are the plan's (its key holds them)
    sized = not w.ragged and src.dev is None
    if not sized:
        check_allocation(rt, src.nbytes, "the image")
    x_off, st = device_layout(src)
    if w.ragged:
        strides = (0, 0, C, 1)
        extent = None  # the packed buffer's length differs per call: last_word is an Arg
    elif sized:
        strides = ()
        extent = None  # last_word and interior are Args (image_values)
    else:
        strides = image_strides(st)
        # the array's last element + 1: word reads (uint8) are clamped to end inside it
        extent = x_off + sum((d - 1) * v for d, v in zip(src.shape, st) if v > 0) + 1
    defines = {"MODE": w.mode, **VALUE_TYPES[dt].defines("X"), "RAGGED": int(w.ragged),
               "COORD": w.coord, **({"WK_AREA": 1} if w.area else {})}
    store = {} if w.y_dtype is None else \
        {"Y_NORM": 1, "Y_CHW": int(w.y_chw), "Y_HALF": FLOAT_OUT[ydt]}
    if not w.colour_passes:  # else the warp stores the image as it is, the last pass the result
        defines.update(store)
    if w.colour:
        defines.update(COLOUR=1, WK_COL_HEAVY=w.colour_groups[0])
    common = (Arg("X"), *SIZED) if sized else \
        (Arg("X"), np.int64(x_off), *(np.int64(v) for v in strides), np.int32(H), np.int32(W))
    indexing = (Arg("M"), np.int32(w.per_image), Arg("index"), np.int32(w.indexed))
    ragged = (Arg("rag"),) if w.ragged else ()
    ragged += {COORD_MATRIX: (),
               COORD_MAP: (Arg("MX"), Arg("MY"), Arg("mx_off"), Arg("my_off"), Arg("map_item"),
                           Arg("map_xy")),
               COORD_FIELD: (Arg("FLD"), Arg("FI"), Arg("nf")),
               COORD_AXES: (Arg("AX"), Arg("ax_item"))}[w.coord]
    if w.colour:  # each item's colour operations and their count (kernels_cl/colour.h)
        ragged += (Arg("COL"), Arg("ncol"))
    if C > 4:  # every channel in the one launch, their values from buffers (WK_WIDE)
        defines["WK_WIDE"] = C
        ragged += (Arg("WIDE"), Arg("IWIDE"))
    y_arg = "S0" if w.colour_passes else "Y"
    # packed images: warp_batch checks each one's span, and that the buffer holds a word; a
    # host image's are in its key (image_key)
    words = w.ragged or (src_words(src.shape) if sized else
                         extent >= 4 and sum((d - 1) * abs(v) for d, v in
                                             zip((H, W, C), strides[1:])) < 2**31 - 4)
    if not w.supersample and dt in (np.dtype(np.uint8), np.dtype(np.float32)) and words:
        # the 8-wide kernel (kernels_cl/warp.cl, warp_v); channels are a build-time constant
        variant = Variant.of("warp.cl", "warp_v", **defines, CH=C, WK_U8=int(dt == np.uint8),
                             WK_CPU=int(rt.kind == "CPU"), WV_BLOCKS=w.blocks,
                             **({"WV_ROWS": rows} if rows > 1 else {}))
        # the interior path reads 4 bytes from each tap's start: pixels are packed, rows go down;
        # its bounds test compares float coordinates with W - 1 and H - 2, exact below 2^24.
        # Its last read starts at pixel (W - 1) of row H - 2 and ends 4 - C bytes past that
        # pixel: inside the image only if the last row holds that many (row stride + C >= 4;
        # a 1-channel image 2 pixels wide read past its end)
        interior = Arg("interior") if w.ragged or sized else np.int32(
            strides[2] == C and strides[1] >= W * C and strides[1] + C >= 4
            and max(H, W) < 1 << 24)
        blocks = -(-w.wo // (8 * w.blocks))  # work-items along a row
        tiles_x, th = -(-blocks >> tw_log2), 64 >> tw_log2
        last_word = Arg("last_word") if w.ragged or sized else np.int64(extent - 4)
        args = (*common, *indexing, last_word, Arg(y_arg), np.int32(w.ho),
                np.int32(w.wo), np.int32(w.pad), Arg("fill"), Arg("affine"), interior,
                np.int32(tw_log2), Arg("pf"), Arg("yscale"), Arg("ybias"), *ragged,
                *((Arg("ss"),) if w.area else ()))
        gsize = (tiles_x * 64, -(-w.ho // (th * rows)), w.items)
    else:  # any dtype, cubic, supersampling: one output pixel per work-item
        # int32 values need more than a float's 24 bits: accumulate in double where the device
        # has it (nearest without supersampling copies pixels, exact everywhere)
        acc_double = int(dt == np.dtype(np.int32) and rt.fp64)
        variant = Variant.of("warp.cl", "warp", **defines, ACC_DOUBLE=acc_double)
        args = (*common, np.int32(C), *indexing, Arg(y_arg), np.int32(w.ho), np.int32(w.wo),
                np.int32(w.pad), Arg("fill"), Arg("ifill"), Arg("ss"), Arg("yscale"),
                Arg("ybias"), *ragged)
        gsize = (round_up(w.wo, 64), w.ho, w.items)
    warp = Launch(variant, args, gsize, (64, 1, 1), per_item=w.ragged)
    first = (*_rain_masks(w), *_plasma_patterns(w), *_snow_textures(w), *_flare_layers(w))
    if not w.colour_passes:
        return Plan(rt, w.out_shape, ydt, on_device, (*first, warp))
    launches, scratch = _colour_passes(w, dt, C, store, rt.kind == "CPU", rt.fp64)
    return Plan(rt, w.out_shape, ydt, on_device, (*first, warp, *launches), scratch)


def _rain_masks(w: WarpSpec) -> tuple[Launch, ...]:
    """The launches that draw RandomRain's drops into their lists' bit masks
    (kernels_cl/rain.cl), one per colour list whose builds have COL_RAIN (engine.core's
    rain_masks puts the masks there), before any launch runs a list."""
    return _area_launches(w, "rain.cl", "rain_mask", COLG_RAIN, "RI", "nr")


def _plasma_patterns(w: WarpSpec) -> tuple[Launch, ...]:
    """The launches that make PlasmaBrightnessContrast's and PlasmaShadow's patterns in their
    lists' areas (kernels_cl/plasma.cl), one per colour list whose builds have COL_PLASMA
    (engine.core's plasma_areas places them; a work-group per item), before any
    launch runs a list."""
    return _area_launches(w, "plasma.cl", "plasma_pattern", COLG_PLASMA, "PI", "np")


def _snow_textures(w: WarpSpec) -> tuple[Launch, ...]:
    """The launches that make RandomSnow's textures and sparkles in their lists' areas
    (kernels_cl/snow.cl), one per colour list whose builds have COL_SNOW_TEX (engine.core's
    snow_areas places them; a work-group per item), before any launch runs a list."""
    return _area_launches(w, "snow.cl", "snow_texture", COLG_SNOW, "SI", "ns")


def _flare_layers(w: WarpSpec) -> tuple[Launch, ...]:
    """The launches that make RandomSunFlare's physics-based flare layers in their lists' areas
    (kernels_cl/flare.cl), one per colour list whose builds have COL_FLARE_PB (engine.core's
    flare_areas places them; a work-group per item), before any launch runs a list."""
    return _area_launches(w, "flare.cl", "flare_layer", COLG_FLARE_PB, "FI", "nf")


def _area_launches(w: WarpSpec, source: str, kernel: str, group: int, places: str,
                   count: str) -> tuple[Launch, ...]:
    """``kernel`` of ``source`` once per colour list whose builds have ``group``: (the list,
    its operations, the places of its operations of that group and their count per item, Ho,
    Wo), a work-group of 64 per item."""
    if not w.colour:
        return ()
    variant = Variant.of(source, kernel, **VALUE_TYPES[np.dtype(np.uint8)].defines("X"),
                         WK_COL_HEAVY=group)
    return tuple(Launch(variant, (Arg(f"COL{k or ''}"), Arg(f"ncol{k or ''}"),
                                  Arg(f"{places}{k or ''}"), Arg(f"{count}{k or ''}"),
                                  np.int32(w.ho), np.int32(w.wo)), (64, 1, w.items), (64, 1, 1))
                 for k, groups in enumerate(w.colour_groups) if groups & group)


#: colour_mean's work-groups per item: row bands summed side by side (a single image's pass
#: spreads over the cores)
MEAN_BANDS = 16


#: colour_blur_rows' and colour_apply's rows per work-group on CPU devices
#: (kernels_cl/colour_pass.cl: a work-group costs a pass of PoCL's work-item loop and a barrier;
#: GPUs take one row each, for parallelism)
PASS_ROWS = 16


def _colour_passes(w: WarpSpec, dt: np.dtype, C: int, store: dict,
                   cpu: bool, fp64: bool) -> tuple[tuple, tuple]:
    """The launches and scratch buffers of the colour passes after a warp (colour_pass.cl):
    the warp's image in S0, each pass reading the last one's image (S0, S1, S0, ...) and
    writing the next, the last one the result; a pass with a mean's operation sums the means
    first (P), one with a Gaussian blur filters the rows first (T)."""
    bands = min(MEAN_BANDS, w.ho)
    tile = PASS_ROWS if cpu else 1  # rows per work-group
    image = w.items * w.ho * w.wo * C * dt.itemsize
    wp = round_up(w.wo, 8)  # T's rows: whole vectors of 8
    scratch = (Scratch("S0", image), Scratch("P", w.items * bands * MEAN_WORDS * 4))
    if len(w.colour_passes) > 1:
        scratch += (Scratch("S1", image),)
    if any(kind & (PASS_BLUR | PASS_UNSHARP) for kind in w.colour_passes):
        scratch += (Scratch("T", w.items * C * w.ho * wp * 4),)
    if any(kind & PASS_UNSHARP for kind in w.colour_passes):
        scratch += (Scratch("U", w.items * C * w.ho * wp),  # the mask (uchar)
                    Scratch("UM", w.items * C * w.ho * wp * 4))
    if any(kind & PASS_PCA for kind in w.colour_passes):
        scratch += (Scratch("PM", w.items * PCA_WORDS * 4),)
    if any(kind & PASS_JPEG for kind in w.colour_passes):  # the decoded planes (uchar)
        scratch += (Scratch("JPG", w.items * (2 * w.ho * w.wo
                                              + 2 * ((w.ho + 1) // 2) * ((w.wo + 1) // 2))),)
    if any(kind & PASS_GLASS for kind in w.colour_passes):  # each pixel's last partner
        scratch += (Scratch("WIN", w.items * w.ho * w.wo * 4),)
    if any(kind & PASS_RESCALE for kind in w.colour_passes):  # the small image, its rows
        scratch += tuple(Scratch(name, w.items * w.ho * w.wo * C * 4) for name in ("SM", "SR"))
    if w.fda:  # each row's sums at the column frequencies (then their changes), the window's
        gmax, nymax, nxmax = w.fda
        scratch += (Scratch("FA", w.items * w.ho * C * gmax * 8),
                    Scratch("FC", w.items * C * nymax * nxmax * 8))
    if w.clahe_tiles:
        scratch += (Scratch("LUT", w.items * w.clahe_tiles * 256),
                    Scratch("HIST", w.items * w.clahe_tiles * w.clahe_bands * 256 * 4))
    dims = (np.int32(w.ho), np.int32(w.wo))
    groups = (64, -(-w.ho // tile), w.items)  # colour_blur_rows' and colour_apply's
    launches = []
    for k, kind in enumerate(w.colour_passes, 1):
        src, col = f"S{(k - 1) % 2}", (Arg(f"COL{k}"), Arg(f"ncol{k}"))
        last = k == len(w.colour_passes)
        unsharp = bool(kind & PASS_UNSHARP)
        blur, clahe = bool(kind & PASS_BLUR) or unsharp, bool(kind & PASS_CLAHE)
        defines = {**VALUE_TYPES[dt].defines("X"), **(store if last else {}), "CH": C,
                   "BLUR": int(blur), "MOTION": int(bool(kind & PASS_MOTION)),
                   "MEDIAN": int(bool(kind & PASS_MEDIAN)), "CLAHE": int(clahe),
                   "GATHER": int(bool(kind & PASS_GATHER)),
                   "JPEG": int(bool(kind & PASS_JPEG)), "PCA": int(bool(kind & PASS_PCA)),
                   "UNSHARP": int(unsharp), "ZOOM": int(bool(kind & PASS_ZOOM)),
                   "CHROMA": int(bool(kind & PASS_CHROMA)),
                   "MORPH": int(bool(kind & PASS_MORPH)),
                   "GLASS": int(bool(kind & PASS_GLASS)),
                   "RESCALE": int(bool(kind & PASS_RESCALE)),
                   "FDA": int(bool(kind & PASS_FDA)),
                   "CP_PW": MEAN_WORDS,
                   **({"PCA_DOUBLE": int(fp64), "CP_PM": PCA_WORDS} if kind & PASS_PCA else {}),
                   "WK_COL_HEAVY": w.colour_groups[k],
                   **({"CP_RMAX": MAX_BLUR_RADIUS} if blur else {}),
                   **({**LAB_DEFINES, "CLAHE_PIXELS": CLAHE_PIXELS, "HM_DOUBLE": int(fp64)}
                      if clahe else {})}
        tables = (Arg("LUT"), np.int32(w.clahe_tiles), Arg("LABT")) if clahe else ()
        if kind & PASS_GATHER:
            tables += (Arg(f"IDX{k}"),)
        if kind & PASS_ZOOM:
            tables += (Arg(f"ZT{k}"), Arg(f"ZF{k}"))
        if kind & PASS_RESCALE:  # (the small image, then its rows at the output's width)
            rescale = (Arg(f"RT{k}"), Arg(f"RF{k}"), Arg("SM"), Arg("SR"))
            launches.append(Launch(Variant.of("colour_pass.cl", "colour_rescale", **defines),
                                   (Arg(src), *dims, *col, *rescale), (64, 1, w.items),
                                   (64, 1, 1)))
        if kind & PASS_JPEG:
            tables += (Arg("JPG"),)
            blocks = Variant.of("colour_pass.cl", "colour_jpeg_blocks", **defines)
            launches.append(Launch(blocks, (Arg(src), *dims, Arg("JPG"), *col, Arg("JQT")),
                                   (round_up(-(-w.wo // 16), 64), -(-w.ho // 16), w.items),
                                   (64, 1, 1)))
        if kind & PASS_MEAN:
            mean = Variant.of("colour_pass.cl", "colour_mean", **defines)
            launches.append(Launch(mean, (Arg(src), *dims, Arg("P"), *col), (64, bands, w.items),
                                   (64, 1, 1)))
        if kind & PASS_PCA:  # each item's matrix once, for every work-group of colour_apply
            pca = Variant.of("colour_pass.cl", "colour_pca", **defines)
            launches.append(Launch(pca, (Arg(src), *dims, Arg("P"), np.int32(bands), *col,
                                         np.int32(w.items), Arg("PM")),
                                   (round_up(w.items, 64), 1, 1), (64, 1, 1)))
            tables += (Arg("PM"),)
        if clahe:
            sizes = (np.int32(w.clahe_tiles), np.int32(w.clahe_bands))
            hist = Variant.of("colour_pass.cl", "colour_clahe_hist", **defines)
            launches.append(Launch(hist, (Arg(src), *dims, Arg("HIST"), *sizes, *col,
                                          Arg("LABT")),
                                   (round_up(w.clahe_tiles * w.clahe_bands, 64), 1, w.items),
                                   (64, 1, 1)))
            lut = Variant.of("colour_pass.cl", "colour_clahe_lut", **defines)
            launches.append(Launch(lut, (Arg("HIST"), Arg("LUT"), *sizes, *col),
                                   (64, w.clahe_tiles, w.items), (64, 1, 1)))
        if blur:
            filt = Variant.of("colour_pass.cl", "colour_blur_rows", **defines)
            launches.append(Launch(filt, (Arg(src), *dims, Arg("T"), np.int32(wp), *col,
                                          np.int32(tile)), groups, (64, 1, 1)))
        if unsharp:
            rows = Variant.of("colour_pass.cl", "colour_unsharp_rows", **defines)
            launches.append(Launch(rows, (Arg(src), *dims, Arg("T"), np.int32(wp), *col,
                                          np.int32(tile), Arg("U"), Arg("UM")), groups,
                                   (64, 1, 1)))
        if kind & PASS_GLASS:
            whole = (round_up(-(-w.wo // 8), 64), w.ho, w.items)  # blocks of 8 pixels
            for entry in ("colour_glass_clear", "colour_glass_scatter"):
                launches.append(Launch(Variant.of("colour_pass.cl", entry, **defines),
                                       (*dims, *col, Arg("WIN")), whole, (64, 1, 1)))
            if kind & PASS_GLASS_EXACT:  # a work-item per item takes the pairs in turn
                launches.append(Launch(Variant.of("colour_pass.cl", "colour_glass_exact",
                                                  **defines),
                                       (*dims, *col, Arg("WIN"), np.int32(w.items)),
                                       (round_up(w.items, 64), 1, 1), (64, 1, 1)))
            tables += (Arg("WIN"),)
        if kind & PASS_RESCALE:
            tables += rescale
        if kind & PASS_FDA:
            fs = tuple(np.int32(v) for v in w.fda)
            # rows a work-group: a work-item per row and 8 column frequencies, so on GPUs
            # (a row each elsewhere) as many rows as fill the group's 64
            frows = tile if cpu else max(1, 64 // (int(fs[0]) // 8))
            launches.append(Launch(Variant.of("colour_pass.cl", "colour_fda_rows", **defines),
                                   (Arg(src), *dims, *col, np.int32(frows), Arg("FT"),
                                    Arg("FA"), fs[0]),
                                   (64, -(-w.ho // frows), w.items), (64, 1, 1)))
            launches.append(Launch(Variant.of("colour_pass.cl", "colour_fda_coef", **defines),
                                   (*dims, *col, Arg("FT"), Arg("FA"), Arg("FC"), *fs,
                                    Arg("FR")),
                                   # (row frequencies a >= 0: at most the rows + 1; column
                                   # frequencies in blocks of 8)
                                   (round_up((int(fs[1]) + 1) * (int(fs[0]) // 8), 64), C,
                                    w.items),
                                   (64, 1, 1)))
            launches.append(Launch(Variant.of("colour_pass.cl", "colour_fda_cols", **defines),
                                   (*dims, *col, Arg("FT"), Arg("FC"), Arg("FA"), *fs),
                                   # (blocks of 8 rows y <= Ho / 2, times the column pairs)
                                   (round_up(-(-(w.ho // 2 + 1) // 8) * int(fs[0]), 64), C,
                                    w.items), (64, 1, 1)))
            tables += (Arg("FT"), Arg("FA"), fs[0])
        apply = Variant.of("colour_pass.cl", "colour_apply", **defines)
        launches.append(Launch(apply, (Arg(src), *dims, Arg("P"), np.int32(bands),
                                       Arg("Y" if last else f"S{k % 2}"), Arg("yscale"),
                                       Arg("ybias"), *col, np.int32(tile),
                                       *((Arg("T"), np.int32(wp)) if blur else ()),
                                       *((Arg("UM"),) if unsharp else ()), *tables),
                               groups, (64, 1, 1)))
    return tuple(launches), scratch
