"""The warp engine's entry points: :func:`warp_by` (one call: the input, the maps, the output,
the plan), and the batch forms built on it."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Callable, NamedTuple

import numpy as np
import pyopencl as cl

from .. import geometry
from ..runtime import PlanCache
from .._checks import matrix3, width_height
from .._images import MAX_CHANNELS, as_image, shape_hwc
from .._memory import (Operand, check_allocation, device_layout, operand, pick_runtime,
                       wants_device_result)
from .._options import INTERPOLATIONS, PADDINGS, Sampling
from .coords import (COORD_AXES, COORD_FIELD, COORD_MAP, COORD_MATRIX, Coords, blocks,
                     area_items, expand_canvas, rows_per_item, schedule, supersampling)
from .inputs import WARP_DTYPES, matrices, pack, read_regions, stack
from .output import (PLAIN, ModelInput, fills as fills_of, model_output, options_key,
                     values_of_options)
from . import jpeg, lab, resize8
from .plan import (CLAHE_PIXELS, COLG_FLARE_PB, COLG_PLASMA, COLG_RAIN, COLG_SNOW, FIXED, MAX_BLUR_RADIUS,
                   MAX_CLAHE_TILES, MAX_MEDIAN_SIZE, MAX_TAP_RADIUS, MAX_ZOOMS, NO_MAP, PASS_BLUR, PASS_CLAHE,
                   PASS_GATHER, PASS_GLASS, PASS_GLASS_EXACT, PASS_CHROMA, PASS_JPEG, PASS_MEAN, PASS_MEDIAN, PASS_MORPH, PASS_MOTION,
                   PASS_FDA, PASS_PCA, PASS_RESCALE, PASS_UNSHARP, PASS_ZOOM, PLANS,
                   WarpSpec, fixed_values, image_key, image_values, int32, int64,
                   warp_plan)

#: the default options: linear, constant 0, no antialiasing
LINEAR = Sampling()


#: paddings under which a tap outside the image reads its nearest edge pixel (the constant one
#: reads it too, then weighs it out): a region clipped to the image holds every such read
CLAMPED_PADS = (PADDINGS["constant"], PADDINGS["border"], PADDINGS["constant_edge"])


def warp_by(image: Any, matrix: Any, size: Any = None, sampling: Sampling = LINEAR, *,
            expand: bool = False, queue: Any = None, affine: bool = True,
            model: ModelInput = PLAIN, src_index: Any = None, ragged: bool = False,
            coords: Coords | None = None, pending: list | None = None,
            into: np.ndarray | None = None, colour: np.ndarray | None = None,
            colour_checked: bool = False, again: bool = False) -> Any:
    """warp_affine (``affine``) and warp_perspective with ``sampling`` (checked by
    :meth:`Sampling.of`) and ``model`` (the model's input); besides: crops (``src_index``: the
    image of each output item), ragged batches (``image``: a list of host arrays of one dtype
    and channel count, read in place or packed into one buffer (:meth:`_Input.operand`),
    ``matrix`` (B, 3, 3)), source positions from
    maps or displacement fields instead of ``matrix`` (``coords``: remap and the non-linear
    transforms), and ``pending`` waits (:func:`warp_each`: the result comes as a function to
    call once they are done); ``into``: a host array the result is written into (the kernel
    writes it in place on CPU devices), of exactly the result's shape and dtype; ``colour``:
    each output item's colour operations, (items, k * COLOUR_WORDS) float32 (kernels_cl/colour.h,
    made by :mod:`warpkit.augment._colour`), applied to the resampled pixels before the store
    (``colour_checked``: their checks but the output size's made already, :func:`warp_each`);
    ``again``: calls like this one follow (a pipeline's, sample after sample): what it makes
    of its options and layout is kept for them, and what one before it made is taken
    (:class:`_Again`).
    Images of up to MAX_CHANNELS channels are warped in one launch (every channel at the same
    positions and weights); host images of more, MAX_CHANNELS channels at a time
    (:func:`_warp_wide`)."""
    channels = _array_channels(image, ragged)
    if colour is not None and channels > 4:
        raise ValueError(f"colour transforms take images of 1 to 4 channels, got {channels}")
    if channels > MAX_CHANNELS:
        return _warp_wide(image, matrix, size, sampling, channels, expand=expand, queue=queue,
                          affine=affine, model=model, src_index=src_index, ragged=ragged,
                          coords=coords, pending=pending, into=into, colour=colour)
    # a single host image's call like one before it (a pipeline's sample after sample): the
    # checks and plan that follow from its options and layout alone are kept (_Again)
    again_key, x = _again_key(image, size, sampling, model, queue, affine, expand, ragged,
                              coords, src_index, colour) if again else (None, None)
    if again_key is not None:
        again = _AGAIN.find(again_key)
        if again is not None and again.sampling is sampling and again.model is model:
            return again.warp(again_key[-1], x, matrix, affine, pending, into, colour)
    src = _Input(image, matrix, affine, src_index, ragged, coords)
    wo, ho, mats = _output_size(src, size, expand, ragged or coords is not None)
    inv, ss, kind = _positions(src.mats if mats is None else mats, coords, wo, ho, src.B,
                               sampling)
    try:  # made once per set of options and image kind (a pipeline passes the same each call)
        fills, out = values_of_options(options_key(sampling.fill, model), src.C, src.dt)
    except (TypeError, ValueError):  # unhashable options (arrays of arrays): made each call;
        # bad ones raise here, naming the values as they were given
        fills, out = fills_of(sampling.fill, src.C, src.dt), model_output(src.dt, src.C, *model)
    y_dtype, y_chw, yscale, ybias = out
    shape = src.out_shape(ho, wo)
    restore = src.restore
    if y_dtype is not None:
        restore = None  # the model's input: an array, not a picture
        if y_chw:  # channels first: (C, H, W) or (B, C, H, W); an (H, W) image has one channel
            shape = (*(shape[:1] if len(shape) == 4 else ()), src.C, ho, wo)
    # a ragged batch is read where its images are on CPU devices (each image's own buffer,
    # a launch each); elsewhere it is packed into one buffer, on matrices only the pixels each
    # output can read (a crop's region)
    in_place = src.in_place(pick_runtime(queue)) if ragged else None
    regions = read_regions(inv, wo, ho, [(h, w) for _, h, w, _, _, _ in src.shapes],
                           sampling.pad in CLAMPED_PADS) \
        if ragged and kind == COORD_MATRIX and in_place is None else None
    x, layout_key, extra = src.operand(regions, in_place)
    rt = pick_runtime(queue, x)
    items = src.B if src_index is None else len(src_index)
    passes = [] if colour is None else \
        colour_passes(_colour_ops(colour, items, src.dt, src.C, wo, ho, colour_checked))
    kinds = pass_kinds(passes)
    tiles, bands = clahe_tiles(passes, wo, ho) if any(k & PASS_CLAHE for k in kinds) \
        else (0, 0)
    spec = WarpSpec(shape, items, wo, ho, len(ss) > 1,
                    src_index is not None, sampling.mode, sampling.pad, max(ss) > 1,
                    y_dtype, y_chw, ragged, kind,
                    blocks(coords), bool(passes), kinds, colour_groups(passes), tiles, bands,
                    fda_sizes(passes) if any(k & PASS_FDA for k in kinds) else (),
                    min(ss) == 0)
    fixed = (rt, tuple(fills), src.dt.kind in "iu", tuple(yscale), tuple(ybias), tuple(ss))
    fixed = FIXED.get(fixed, lambda: fixed_values(*fixed))
    again = None
    if again_key is not None and restore is None:  # (kept once this call's checks passed)
        codes = again_key[-2]
        again = _Again(sampling, model, wo, ho, shape, y_dtype or src.dt, spec, layout_key,
                       fixed, {}, [] if codes is None else _item_rows(codes))
    plan, values, operands = _matrix_values(rt, x, layout_key, spec, kind, inv, coords, fixed,
                                            extra, None if again is None else again.plans)
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    if src_index is not None:
        values["index"] = cl.Buffer(rt.context, ro,
                                    hostbuf=np.ascontiguousarray(src_index, np.int32))
    if tiles:
        values["LABT"] = _lab_tables(rt)
    if any(k & PASS_JPEG for k in kinds):
        values["JQT"] = _jpeg_tables(rt)
    if any(k & PASS_GATHER for k in kinds):
        for k, idx in downscale_tables(passes, wo, ho).items():
            values[f"IDX{k}"] = cl.Buffer(rt.context, ro, hostbuf=idx)
    if any(k & PASS_RESCALE for k in kinds):
        for k, table in rescale_tables(passes, wo, ho, src.C).items():
            values[f"RT{k}"] = cl.Buffer(rt.context, ro, hostbuf=table)
            values[f"RF{k}"] = int32(table.shape[1])
    if any(k & PASS_ZOOM for k in kinds):
        for k, table in zoom_tables(passes, wo, ho).items():
            values[f"ZT{k}"] = cl.Buffer(rt.context, ro, hostbuf=table)
            values[f"ZF{k}"] = int32(table.shape[1])
    if spec.fda:  # (the twiddles; the call's colour table: _check_fda found it)
        values["FT"] = cl.Buffer(rt.context, ro, hostbuf=fda_twiddles(wo, ho))
        values["FR"] = cl.Buffer(rt.context, ro, hostbuf=colour.table)
    _bind_passes(rt, values, passes, spec.colour_groups, wo, ho,
                 None if colour is None else getattr(colour, "table", None))
    if ragged:
        check_allocation(rt, x.nbytes, "the packed images")
        values["rag"] = cl.Buffer(rt.context, ro, hostbuf=src.rag)
    squeeze = ragged and src.arr.ndim == 2 and not y_chw  # (H, W) images: (B, ho, wo), stacked
    if into is not None:
        if restore is not None or wants_device_result(x):
            _not_into()
        into = _result_array(into, shape[:3] if squeeze else shape,
                             y_dtype or src.dt).reshape(shape)
    if again is not None:
        _AGAIN.put(again_key, again)
    res = plan.run(operands, values, pending, into)
    if squeeze:
        res = res.reshape(res.shape[:3])
    if pending is not None:  # the result once the pending waits are done
        return lambda: res if restore is None else restore(res)
    return res if restore is None else restore(res)


def _bind_passes(rt, values: dict, passes: list[np.ndarray], groups: tuple[int, ...], wo: int,
                 ho: int, colour_table: np.ndarray | None, tables: bool = True) -> None:
    """Each colour launch's values (``passes``: :func:`colour_passes`' lists, the warp's own
    first; ``groups``: each launch's build groups, :func:`colour_groups`): its list, its length
    and what its build's groups read besides (rain's drops, the plasma patterns', snow
    textures' and flare layers' places, the call's ``colour_table``), for an output of ``wo``
    x ``ho``. ``tables=False``: the lists hold no operation on a colour table (a kept call's,
    of :data:`_AGAIN_CODES`), which is then not looked for."""
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    for k, prog in enumerate(passes):  # the warp's operations, then each colour pass's
        name, flags, extra = f"{k or ''}", ro, 0
        if groups[k] & COLG_RAIN:  # (rain.cl draws the drops into the list first)
            prog, places = rain_masks(prog, wo, ho)
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
            values[f"RI{name}"] = cl.Buffer(rt.context, ro, hostbuf=places)
            values[f"nr{name}"] = int32(places.shape[1])
        if groups[k] & COLG_PLASMA:  # (plasma.cl makes the patterns after it)
            prog, places, extra = plasma_areas(prog, wo, ho)
            values[f"PI{name}"] = cl.Buffer(rt.context, ro, hostbuf=places)
            values[f"np{name}"] = int32(places.shape[1])
        if groups[k] & COLG_SNOW:  # (snow.cl makes the textures after those)
            prog, places, more = snow_areas(prog, wo, ho, extra // COLOUR_WORDS)
            values[f"SI{name}"] = cl.Buffer(rt.context, ro, hostbuf=places)
            values[f"ns{name}"] = int32(places.shape[1])
            extra += more
        if groups[k] & COLG_FLARE_PB:  # (flare.cl makes the layers after those)
            prog, places, more = flare_areas(prog, wo, ho, extra // COLOUR_WORDS)
            values[f"FI{name}"] = cl.Buffer(rt.context, ro, hostbuf=places)
            values[f"nf{name}"] = int32(places.shape[1])
            extra += more
        table = None  # (OverlayElements' elements, Spatter's layers: the call's colour table
        # after the areas)
        if tables and table_readers(prog.reshape(len(prog), -1, COLOUR_WORDS)).any():
            prog = table_places(prog, extra // COLOUR_WORDS)
            table = colour_table
        if extra:  # the list, then the patterns' areas, which the device fills: pooled (fresh
            # memory costs PoCL a page fault a page at the first write), the list uploaded
            held = [what for group, what in ((COLG_PLASMA, "the plasma patterns"),
                                             (COLG_SNOW, "the snow textures"),
                                             (COLG_FLARE_PB, "the flare layers"))
                    if groups[k] & group]
            tail = 0 if table is None else table.nbytes
            check_allocation(rt, prog.nbytes + 4 * extra + tail, " and ".join(held))
            buf = rt.allocate(prog.nbytes + 4 * extra + tail)
            cl.enqueue_copy(rt.queue, buf, prog, is_blocking=False)
            if table is not None:
                cl.enqueue_copy(rt.queue, buf, table, dst_offset=prog.nbytes + 4 * extra,
                                is_blocking=False)
        else:
            buf = cl.Buffer(rt.context, flags, hostbuf=prog if table is None else
                            np.concatenate([prog.ravel(), table]))
        values[f"COL{name}"] = buf
        values[f"ncol{name}"] = int32(prog.shape[1] // COLOUR_WORDS)


#: OpenCV's Lab tables (engine/lab.py) on each context, made once (read-only in the kernels)
_LAB_TABLES: dict = {}


def _lab_tables(rt) -> cl.Buffer:
    buf = _LAB_TABLES.get(rt.context)
    if buf is None:
        buf = _LAB_TABLES[rt.context] = cl.Buffer(
            rt.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=lab.tables())
    return buf


#: OpenCV's JPEG quantisation tables (engine/jpeg.py) on each context, made once
_JPEG_TABLES: dict = {}


def _jpeg_tables(rt) -> cl.Buffer:
    buf = _JPEG_TABLES.get(rt.context)
    if buf is None:
        buf = _JPEG_TABLES[rt.context] = cl.Buffer(
            rt.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
            hostbuf=np.ascontiguousarray(jpeg.tables()))
    return buf


def _array_channels(image: Any, ragged: bool) -> int:
    """The last axis of an array image of 3 or more axes (or of a ragged list's first), else 0
    (an (H, W) array, a Pillow image: at most 4 channels either way)."""
    first = image[0] if ragged and isinstance(image, (list, tuple)) and image else image
    shape = getattr(first, "shape", None)
    return 0 if shape is None or len(shape) < 3 else int(shape[-1])


def _warp_wide(image: Any, matrix: Any, size: Any, sampling: Sampling, channels: int, *,
               model: ModelInput, pending: list | None, into: Any, colour: Any,
               ragged: bool, **options: Any) -> Any:
    """:func:`warp_by` of a host image of more than MAX_CHANNELS channels (hyperspectral
    cubes): each group of MAX_CHANNELS channels (the last of what is left) is warped from a
    view of the
    image (gathered into a contiguous buffer as any strided host array is: together, one copy
    of the image), the groups launched back to back with the same maps and one wait, and their
    results joined into one result of all the channels (channels last, or first for the
    model's input: a second copy, of the output). The fill, mean and std are checked against
    every channel, and each group takes its own."""
    first = image[0] if ragged else image
    if not isinstance(first, np.ndarray):  # (a device array's channels are not split)
        raise ValueError(f"an image on the device may have at most {MAX_CHANNELS} channels, "
                         f"got {tuple(first.shape)}: warp it {MAX_CHANNELS} channels at a "
                         f"time, or from the host")
    dt = np.dtype(first.dtype)
    fill = fills_of(sampling.fill, channels, dt)  # checked for every channel, then split
    y_dtype, y_chw, _, _ = model_output(dt, channels, *model)

    def part(v: Any, lo: int, hi: int) -> Any:
        """A per-channel value's share of channels [lo, hi): a number stays a number."""
        a = None if v is None or isinstance(v, str) else np.asarray(v, np.float64).reshape(-1)
        return v if a is None or a.size == 1 else a[lo:hi].tolist()

    waits: list = [] if pending is None else pending
    parts = []
    for lo in range(0, channels, MAX_CHANNELS):
        hi = min(lo + MAX_CHANNELS, channels)
        sub = [a[..., lo:hi] for a in image] if ragged else image[..., lo:hi]
        parts.append(warp_by(sub, matrix, size, sampling._replace(fill=fill[lo:hi]),
                             model=model._replace(mean=part(model.mean, lo, hi),
                                                  std=part(model.std, lo, hi)),
                             pending=waits, ragged=ragged, **options))

    def joined() -> np.ndarray:
        res = [r() for r in parts]
        axis = -3 if y_dtype is not None and y_chw else -1
        if into is None:
            return np.concatenate(res, axis)
        shape = list(res[0].shape)
        shape[axis] = channels
        return np.concatenate(res, axis, out=_result_array(into, tuple(shape), res[0].dtype))

    if pending is not None:
        return joined
    for wait in waits:
        wait()
    return joined()


#: floats per colour operation (kernels_cl/colour.h, WK_COL_WORDS)
COLOUR_WORDS = 12

#: the image dtypes colour operations take, and the value each reaches (kernels_cl/colour.h:
#: levels of uint8 and uint16, float images in [0, 1] as albumentations has them)
COLOUR_PEAKS = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0,
                np.dtype(np.float32): 1.0}


def colour_peak(dtype: Any) -> float:
    """The largest value colour operations give an image of ``dtype`` (refused: other dtypes)."""
    dt = np.dtype(dtype)
    if dt not in COLOUR_PEAKS:
        raise TypeError(f"colour transforms take uint8, uint16 or float32 images, got {dt}")
    return COLOUR_PEAKS[dt]


#: the colour operations' codes (kernels_cl/colour.h's WK_COL_*)
(COL_AFFINE, COL_GAMMA, COL_GRAY, COL_SHUFFLE, COL_SOLARIZE, COL_POSTERIZE, COL_CONTRAST,
 COL_SATURATE, COL_HUE, COL_HSV, COL_AFFINE_MEAN, COL_NOISE, COL_HOLE, COL_BLUR,
 COL_DATA, COL_MOTION, COL_MEDIAN, COL_CONV, COL_CLAHE, COL_DOWNSCALE, COL_MATRIX,
 COL_CURVE, COL_JPEG, COL_EQUALIZE, COL_ISO, COL_SALT, COL_HOLES, COL_TAPS,
 COL_PIXDROP, COL_SHOT, COL_PCA, COL_UNSHARP, COL_ZOOM, COL_SNOW, COL_CHROMA,
 COL_LIGHT, COL_GRAVEL, COL_POLY, COL_MORPH, COL_FLARE, COL_FOG, COL_RAIN, COL_GLASS,
 COL_PLASMA, COL_PLASMA_MEAN, COL_SNOW_TEX, COL_HESTAIN, COL_FDA, COL_FLARE_PB,
 COL_PASTE, COL_SPATTER, COL_FRAME) = range(1, 53)

#: the colour operations of the warp's and the passes' lists that read the call's colour table
#: (engine puts it in the list's buffer: :func:`table_places`); a COL_GRAY of method
#: :data:`GRAY_FROM_LAB` reads it too (:func:`table_readers`)
COLOUR_TABLE_OPS = (COL_PASTE, COL_SPATTER)
#: COL_GRAY's method word (4) of L of OpenCV's 8-bit Lab, whose table (engine.lab.gray_table)
#: lies in the call's colour table (words 4 <= w < 5: the kernel's (int) of it)
GRAY_FROM_LAB = 4

#: colour operations on the image's mean as they find it (the contrast on the gray mean, the
#: shift by the mean, ISONoise on the lightness's standard deviation, FancyPCA on the channels'
#: covariance, PlasmaBrightnessContrast's contrast on the mean after its brightness)
COLOUR_MEAN = (COL_CONTRAST, COL_AFFINE_MEAN, COL_ISO, COL_PCA, COL_PLASMA_MEAN)

#: the largest intensity of a COL_ISO operation: its Poisson mean (the intensity times the
#: lightness's standard deviation, at most 1/2) stays within what the kernel's count covers
#: (kernels_cl/colour.h's WK_ISO_MAX_COUNT)
MAX_ISO_INTENSITY = 10.0

#: the largest distortion coefficient of a COL_CHROMA operation (in magnitude): the lens's
#: positions stay finite in float over the image (its corners are at a radius of 0.71)
MAX_CHROMA_COEFF = 1e6

#: the most vertices of a COL_POLY operation (its per-pixel work is a few steps a vertex)
MAX_POLY_VERTICES = 64

#: the most flare circles and sun circles of a COL_FLARE operation (each is a few steps a pixel)
MAX_FLARE_CIRCLES = 1024

#: the most particles of a COL_FOG operation (a pixel visits those near its row, found by
#: bisection: the bound is the list's memory, 4 bytes a word)
MAX_FOG_PARTICLES = 65536

#: the most drops of a COL_RAIN operation (a pixel visits those whose rows reach its window's,
#: found by bisection: the bound is the list's memory) and the largest side of its box (each
#: row of a pixel's window is a mask of 32 columns: kernels_cl/colour.h's WK_RAIN_KMAX)
MAX_RAIN_DROPS = 65536
MAX_RAIN_BOX = 25
#: the widest RandomRain drop (pixels): a drop's work grows with its width times its length
MAX_RAIN_WIDTH = 64

#: the most floats of a downscale's taps an item (engine/resize8's table: an area cell's pixels
#: a side for each of the output's columns and rows; 64 MB)
MAX_RESCALE_TABLE = 1 << 24

#: the smallest scale of a COL_SHOT operation: its Poisson means stay at most 50, within what
#: the kernel's count covers (kernels_cl/colour.h's WK_SHOT_MAX_COUNT)
MIN_SHOT_SCALE = 0.02

#: colour operations that need the whole image as they find it (its mean; the blurs and the
#: median: each pixel's neighbours): each starts a pass of kernels_cl/colour_pass.cl after the
#: warp
COLOUR_WHOLE = (*COLOUR_MEAN, COL_BLUR, COL_UNSHARP, COL_MOTION, COL_MEDIAN, COL_CONV, COL_TAPS,
                COL_CLAHE, COL_DOWNSCALE, COL_JPEG, COL_EQUALIZE, COL_ZOOM, COL_CHROMA, COL_MORPH,
                COL_GLASS, COL_FDA)


#: which codes (0 .. COL_FRAME, and one past them for any other value) start a pass: a table
#: (numpy's isin costs a small list as much as the rest of its split)
_WHOLE_CODE = np.zeros(COL_FRAME + 2, bool)
_WHOLE_CODE[list(COLOUR_WHOLE)] = True


#: the pass kind each code starting a colour pass gives (pass_kinds; COL_DOWNSCALE's gather is
#: a gather or a rescale by its words)
_PASS_KIND = np.zeros(COL_FRAME + 2, np.int64)
for _codes, _kind in ((COLOUR_MEAN, PASS_MEAN), ((COL_BLUR,), PASS_BLUR),
                      ((COL_MOTION, COL_CONV, COL_TAPS), PASS_MOTION), ((COL_MEDIAN,), PASS_MEDIAN),
                      ((COL_CLAHE, COL_EQUALIZE), PASS_CLAHE), ((COL_DOWNSCALE,), PASS_GATHER),
                      ((COL_JPEG,), PASS_JPEG), ((COL_PCA,), PASS_PCA),
                      ((COL_UNSHARP,), PASS_UNSHARP), ((COL_ZOOM,), PASS_ZOOM),
                      ((COL_CHROMA,), PASS_CHROMA), ((COL_MORPH,), PASS_MORPH),
                      ((COL_GLASS,), PASS_GLASS), ((COL_FDA,), PASS_FDA)):
    _PASS_KIND[list(_codes)] |= _kind
del _codes, _kind


def _code_index(codes: np.ndarray) -> np.ndarray:
    """Operation codes as indices of tables of COL_FRAME + 2 entries: a whole code as it is,
    COL_FRAME + 1 for any other value (a fraction, NaN, past the last code: no code of the
    tables, as numpy's isin finds none; negative ones are 0)."""
    c = np.clip(codes, 0, COL_FRAME + 1)
    return np.where(c == np.trunc(c), c, COL_FRAME + 1).astype(np.int64)


def present_codes(ops: np.ndarray) -> frozenset[int]:
    """The codes 0 .. COL_FRAME that the lists ``ops`` ((items, k, COLOUR_WORDS)) may hold: the
    whole part of each finite code (a fraction counts its whole part: a superset), for the
    checks to skip the codes no list holds (a list of an element's pixels is long, and a
    one-sample call's checks are most of its colour work) with a set's test each."""
    codes = ops[:, :, 0]
    whole = np.where(np.isfinite(codes), codes, -1).clip(-1, COL_FRAME + 1).astype(np.int64)
    return frozenset(np.flatnonzero(np.bincount(whole.ravel() + 1,
                                                minlength=COL_FRAME + 3)[1:]).tolist())


#: the group of each colour operation's code in a build (kernels_cl/colour.h's WK_COLG_*: the
#: larger operations, each compiled only into the builds whose group mask has it); 0: always there
_COLOUR_GROUP = np.zeros(COL_FRAME + 1, np.int64)
_COLOUR_GROUP[[COL_GAMMA, COL_HUE, COL_HSV, COL_NOISE, COL_SALT, COL_PIXDROP, COL_SHOT, COL_HOLE,
               COL_HOLES, COL_POSTERIZE, COL_MATRIX, COL_CURVE, COL_ISO, COL_SNOW, COL_LIGHT,
               COL_GRAVEL, COL_POLY, COL_FLARE, COL_FOG, COL_RAIN]] = [1, 2, 2, 4, 4, 4, 4, 8, 8,
                                                                       16, 128, 128, 256, 256,
                                                                       512, 256, 1024, 2048,
                                                                       4096, COLG_RAIN]
_COLOUR_GROUP[[COL_PLASMA, COL_PLASMA_MEAN]] = COLG_PLASMA
_COLOUR_GROUP[COL_SNOW_TEX] = COLG_SNOW
_COLOUR_GROUP[COL_FLARE_PB] = COLG_FLARE_PB
_COLOUR_GROUP[COL_PASTE] = 131072  # (WK_COLG_PASTE)
_COLOUR_GROUP[COL_SPATTER] = 262144  # (WK_COLG_SPATTER)
#: COL_GRAY of method GRAY_FROM_LAB's group (WK_COLG_LAB): COL_GRAY's others are in every build
_COLG_LAB = 524288
_COLOUR_GROUP[COL_FRAME] = _COLOUR_GROUP[COL_HOLE]  # (WK_COLG_HOLE)
_COLOUR_GROUP[COL_HESTAIN] = _COLOUR_GROUP[COL_MATRIX]  # (the tone group: ToSepia's matrix)
#: the median's 5x5 and 7x7 networks (WK_COLG_MED5, WK_COLG_MED7): in the builds whose items
#: draw those sizes (without them, the same medians by the search)
_MEDIAN_NET5, _MEDIAN_NET7 = 32, 64
#: every group the colour lists of this process have had, per launch (the warp's, then each
#: pass's): a build holds them all, so a pipeline whose draws leave a group out now and then
#: settles on one build instead of one per combination
_GROUPS_SEEN: dict[int, int] = {}


def split(x: float) -> list[float]:
    """A double as three float32 words whose sum (in double) is that double exactly: the
    operations that need more than a float's precision (a CLAHE clip limit, a downscale's
    factor, whose products are floored on the host as OpenCV floors them) carry it so."""
    out = []
    for _ in range(3):
        w = float(np.float32(x))
        out.append(w)
        x -= w
    return out


def ac_words(cutoff: float) -> list[float]:
    """An AutoContrast's cutoff (percent, in [0, 100]) as the four words colour.h's
    WK_COL_EQUALIZE reads it: its 53-bit mantissa m in parts of 18, 18 and 17 bits (high
    first), then e, the cutoff being m 2^e exactly (the kernel computes its bounds with it in
    double, as albumentations, with integers)."""
    frac, exp = math.frexp(float(cutoff))
    m = int(frac * 2.0 ** 53)
    return [float(m >> 35), float((m >> 17) & (2 ** 18 - 1)), float(m & (2 ** 17 - 1)),
            float(exp - 53 if m else 0)]


def ac_cutoff(op: Any) -> float:
    """The cutoff of :func:`ac_words`'s words in an operation's ``op[4:8]``."""
    m = (int(op[4]) << 35) | (int(op[5]) << 17) | int(op[6])
    return math.ldexp(float(m), int(op[7]))


def joined(words: Any) -> float:
    """The double of :func:`split`'s three words."""
    return float(words[0]) + float(words[1]) + float(words[2])


def colour_groups(passes: list[np.ndarray]) -> tuple[int, ...]:
    """The WK_COL_HEAVY mask of each colour launch (``passes``: :func:`colour_passes`'s list):
    the groups its items' operations have, and every group that launch has had in this process
    (one build serves them: an operation compiled in and unused changes no result)."""
    out = []
    for k, p in enumerate(passes):
        ops = p.reshape(p.shape[0], -1, COLOUR_WORDS)
        codes = ops[:, :, 0].astype(np.int64)
        groups = _COLOUR_GROUP[np.clip(codes, 0, COL_FRAME)]
        lab = table_readers(ops) & (codes == COL_GRAY)  # (OpenCV's Lab: a group of its own)
        if lab.any():
            groups[lab] |= _COLG_LAB
        median = codes == COL_MEDIAN  # its 5x5 and 7x7 networks: groups of their own
        if median.any():
            groups[median] |= np.select([ops[:, :, 1][median] == 5, ops[:, :, 1][median] == 7],
                                        [_MEDIAN_NET5, _MEDIAN_NET7], 0)
        g = int(np.bitwise_or.reduce(groups, axis=None)) | _GROUPS_SEEN.get(k, 0)
        _GROUPS_SEEN[k] = g
        out.append(g)
    return tuple(out)


def pass_kinds(passes: list[np.ndarray]) -> tuple[int, ...]:
    """The kind (:data:`PASS_MEAN` | :data:`PASS_BLUR` | :data:`PASS_MOTION` |
    :data:`PASS_MEDIAN` | :data:`PASS_CLAHE` | :data:`PASS_GATHER` | :data:`PASS_JPEG` |
    :data:`PASS_PCA` | :data:`PASS_UNSHARP` | :data:`PASS_ZOOM` | :data:`PASS_CHROMA` |
    :data:`PASS_MORPH` | :data:`PASS_GLASS` | :data:`PASS_GLASS_EXACT` |
    :data:`PASS_RESCALE` | :data:`PASS_FDA`) of each colour pass after the warp (``passes``:
    :func:`colour_passes`'s list, the warp's own operations first): the kinds of the codes its
    items start with (:data:`_PASS_KIND`). A downscale is a gather with nearest neighbours both
    ways (words 4 and 5 zero), else a rescale; a glass blur with word 6 set is exact too."""
    out = []
    for p in passes[1:]:
        heads = p[:, 0]
        kind = int(np.bitwise_or.reduce(_PASS_KIND[_code_index(heads)]))
        if kind & PASS_GATHER:  # (COL_DOWNSCALE's table entry: which of the two it is)
            resamples = _resamples(p[heads == COL_DOWNSCALE])
            kind = kind & ~PASS_GATHER | PASS_GATHER * bool((~resamples).any()) \
                | PASS_RESCALE * bool(resamples.any())
        if kind & PASS_GLASS and ((heads == COL_GLASS) & (p[:, 6] != 0)).any():
            kind |= PASS_GLASS_EXACT
        out.append(kind)
    return tuple(out)


def _resamples(words: np.ndarray) -> np.ndarray:
    """Of COL_DOWNSCALE operations' words (..., 6 or more): which resample twice (words 4 and
    5, the interpolation pair, not nearest both ways: colour_pass.cl's CP_RESCALES), the others
    being a gather."""
    return (words[..., 4] != 0) | (words[..., 5] != 0)


def _passes_starting(passes: list[np.ndarray], code: int):
    """The colour passes after the warp (``passes``: :func:`colour_passes`'s list) some item
    starts with the operation ``code``: (the pass's number, its array, its operations (items,
    k, COLOUR_WORDS), those items)."""
    for k, p in enumerate(passes[1:], 1):
        ops = p.reshape(p.shape[0], -1, COLOUR_WORDS)
        rows = np.flatnonzero(ops[:, 0, 0] == code)
        if len(rows):
            yield k, p, ops, rows


def downscale_tables(passes: list[np.ndarray], wo: int, ho: int) -> dict[int, np.ndarray]:
    """The source pixels of each downscale operation (they start a pass) for an output of
    ``wo`` x ``ho``, by pass: (items, wo + ho) int32, each output column's source column, then
    each row's source row: OpenCV's nearest resize by the scale (its size rounded, at least one
    pixel; source ``floor(x / scale)``), then back to ``wo`` x ``ho`` (source
    ``floor(x / (wo / small))``), composed, in double as OpenCV computes them. Items without
    the operation (or another pair: :func:`rescale_tables`) get the identity."""
    out = {}
    for k, p, ops, rows in _passes_starting(passes, COL_DOWNSCALE):
        rows = rows[~_resamples(ops[rows, 0])]
        if not len(rows):
            continue
        idx = np.tile(np.r_[np.arange(wo), np.arange(ho)].astype(np.int32), (p.shape[0], 1))
        for i in rows:
            scale = joined(ops[i, 0, 1:4])
            cols = []
            for n in (wo, ho):
                small = max(int(np.rint(n * scale)), 1)
                down = np.minimum(np.floor(np.arange(small) * (1.0 / scale)), n - 1)
                up = np.minimum(np.floor(np.arange(n) * (1.0 / (n / small))), small - 1)
                cols.append(down[up.astype(np.int64)])
            idx[i] = np.concatenate(cols)
        out[k] = idx
    return out


def rescale_tables(passes: list[np.ndarray], wo: int, ho: int, channels: int
                   ) -> dict[int, np.ndarray]:
    """The taps of each downscale operation with another interpolation pair than nearest both
    ways (they start a pass; words 4 and 5 the pair's OpenCV codes) for an output of ``wo`` x
    ``ho`` of ``channels``, by pass: (items, floats) float32, each item's table as
    ``engine/resize8.downscale_table`` lays it out (the taps a side the pass's largest), zeros
    for items without the operation."""
    out = {}
    for k, p, ops, rows in _passes_starting(passes, COL_DOWNSCALE):
        rows = rows[_resamples(ops[rows, 0])]
        if not len(rows):
            continue
        stages = {int(i): resize8.downscale_stages(wo, ho, joined(ops[i, 0, 1:4]),
                                                   int(ops[i, 0, 4]), int(ops[i, 0, 5]),
                                                   channels) for i in rows}
        down = max(max(st[1][0][1].shape[1], st[1][1][1].shape[1]) for st in stages.values())
        up = max(max(st[2][0][1].shape[1], st[2][1][1].shape[1]) for st in stages.values())
        size = resize8.table_size(wo, ho, down, up)
        if size > MAX_RESCALE_TABLE:
            raise ValueError(f"a downscale's taps for an output of {wo} x {ho} would take "
                             f"{size} floats an item (its area cells of {down} pixels a side; "
                             f"at most {MAX_RESCALE_TABLE}): use a larger scale")
        table = np.zeros((p.shape[0], size), np.float32)
        for i, st in stages.items():
            table[i] = resize8.downscale_table(st, wo, ho, down, up)
        out[k] = table
    return out


def zoom_axes(n: int, zooms: np.ndarray, columns: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One axis of albumentations' ``central_zoom`` by each of ``zooms`` of a side of ``n``
    pixels, as the output's index i reads the image: the crop of ``ceil(n / zoom)`` about the
    centre, OpenCV's linear resize of it to ``int(crop zoom)`` (in double, as OpenCV computes
    its source positions; float32 weights), trimmed about the centre back to ``n``: (first
    source index, second, the second's weight), each (zooms, n). Columns take OpenCV's edge
    rule (a position past the crop's first or last column takes that column alone), rows keep
    their weights over rows clamped to the crop, as OpenCV's row fetch does. A crop resized to
    its own size is read as it is (albumentations does not resize it).

    Example:
        >>> i0, i1, w = zoom_axes(10, np.array([1.0, 2.0]), True)
        >>> i0[1].tolist(), w[1].tolist()[:3]
        ([2, 2, 2, 3, 3, 4, 4, 5, 5, 6], [0.0, 0.25, 0.75])
    """
    z = np.asarray(zooms, np.float64)[:, None]
    c = np.ceil(n / z)
    new = np.floor(c * z)
    top = (n - c) // 2
    d = np.arange(n, dtype=np.float64)[None, :] + (new - n) // 2
    same = new == c  # (albumentations' resize returns such a crop as it is)
    f = ((d + 0.5) * (1.0 / np.where(same, 1.0, new / c)) - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    w = np.where(same, np.float32(0), f - s.astype(np.float32)).astype(np.float32)
    s = np.where(same, d, s).astype(np.int64)
    c, top = c.astype(np.int64), top.astype(np.int64)
    if columns:
        lo, hi = s < 0, s >= c - 1
        w[lo | hi] = 0
        s = np.where(lo, 0, np.where(hi, c - 1, s))
        second = np.minimum(s + 1, c - 1)
    else:
        s, second = np.clip(s, 0, c - 1), np.clip(s + 1, 0, c - 1)
    s = np.clip(s, 0, c - 1)
    return top + s, top + np.where(same, s, second), w


def zoom_tables(passes: list[np.ndarray], wo: int, ho: int) -> dict[int, np.ndarray]:
    """The source rows and columns of each zoom blur's zooms (they start a pass) for an output
    of ``wo`` x ``ho``, by pass: (items, most zooms, 3 (wo + ho)) float32, each zoom's first
    source column, second and its weight per output column (:func:`zoom_axes`), then the
    same per output row. Zoom k is numpy's ``arange(1, m, step)``'s: ``1 + k d``, d = ``(1 +
    step) - 1`` (numpy fills an arange from its first two values), the step a double in the
    operation's words 2-4; items without the operation get zeros."""
    out = {}
    for k, p, ops, rows in _passes_starting(passes, COL_ZOOM):
        counts = ops[rows, 0, 1].astype(np.int64)
        table = np.zeros((p.shape[0], int(counts.max()), 3 * (wo + ho)), np.float32)
        item = np.repeat(rows, counts)
        j = np.concatenate([np.arange(m) for m in counts.tolist()])
        words = ops[item, 0, 2:5].astype(np.float64)
        delta = (1.0 + (words[:, 0] + words[:, 1] + words[:, 2])) - 1.0  # (joined's sum)
        zooms = 1.0 + j * delta
        table[item, j] = np.concatenate([*zoom_axes(wo, zooms, True),
                                         *zoom_axes(ho, zooms, False)], axis=1)
        out[k] = table
    return out


def clahe_tiles(passes: list[np.ndarray], wo: int, ho: int) -> tuple[int, int]:
    """Fill in each CLAHE operation's words 6-11 for an output of ``wo`` x ``ho`` (they start a
    pass, so they are its first operation), as OpenCV's createCLAHE(clip, (gx, gy)).apply
    computes them for that size: the histogram's integer limit (``int(clip * pixels / 256)`` in
    double, at least 1; 0: no limit), ``255 / pixels`` (float32), the tile's width and height
    (the image grown to a multiple of the grid where it is not one: OpenCV then adds gx columns
    and gy rows past the next multiple's remainder) and their float32 reciprocals. Returns the
    most tiles an item has and the most bands a tile has (of ``CLAHE_PIXELS // width`` rows, at
    least one: colour_clahe_hist's work-items); (0, 0): no CLAHE. An Equalize operation (in the
    same kernels) gets the output's width and height in words 8 and 9: its up to 3 histograms
    are of the whole image."""
    most, bands = 0, 0
    for p in passes[1:]:
        ops = p.reshape(p.shape[0], -1, COLOUR_WORDS)
        eq = ops[:, 0, 0] == COL_EQUALIZE  # (every such item the same words: one assignment)
        if eq.any():
            ops[eq, 0, 8:10] = [wo, ho]
            # (Equalize's up to 3 tables; AutoContrast's one per channel)
            most = max(most, 4 if (ops[eq, 0, 1] >= 2).any() else 3)
            bands = max(bands, -(-ho // max(CLAHE_PIXELS // wo, 1)))
        for i in np.flatnonzero(ops[:, 0, 0] == COL_CLAHE):
            w = ops[i, 0]
            gx, gy = int(w[4]), int(w[5])
            we, he = (wo, ho) if wo % gx == 0 and ho % gy == 0 else \
                (wo + gx - wo % gx, ho + gy - ho % gy)
            tw, th = we // gx, he // gy
            clip = joined(w[1:4])
            limit = max(int(clip * (tw * th) / 256), 1) if clip > 0 else 0
            w[6:12] = [limit, np.float32(255) / np.float32(tw * th), tw, th,
                       np.float32(1) / np.float32(tw), np.float32(1) / np.float32(th)]
            most = max(most, gx * gy)
            bands = max(bands, -(-th // max(CLAHE_PIXELS // tw, 1)))
    return most, bands


def colour_passes(colour: np.ndarray) -> list[np.ndarray]:
    """Each item's operations (``colour``, (items, k * COLOUR_WORDS)) split into the warp's own
    and those of each colour pass after it (one pass per operation of COLOUR_WHOLE, which starts
    it): a list of (items, k_i * COLOUR_WORDS) float32 arrays, each item's list ending early
    with code 0."""
    n, k = colour.shape[0], colour.shape[1] // COLOUR_WORDS
    ops = colour.reshape(n, k, COLOUR_WORDS)
    if n == 1:  # (one sample a call: its list walked once)
        return _item_passes(ops[0])
    codes = ops[:, :, 0]
    live = np.cumprod(codes != 0, axis=1).astype(bool)  # code 0 ends a list
    whole = _WHOLE_CODE[_code_index(codes)] & live
    if not whole.any():  # the warp's own alone: each list is its live prefix
        m = max(int(live.sum(1).max()), 1)
        part = ops[:, :m].copy()
        part[~live[:, :m]] = 0
        return [np.ascontiguousarray(part.reshape(n, m * COLOUR_WORDS), np.float32)]
    seg = np.cumsum(whole, axis=1)
    out = []
    for s in range(int(seg.max()) + 1):
        take = live & (seg == s)
        m = max(int(take.sum(1).max()), 1)
        order = np.argsort(~take, axis=1, kind="stable")[:, :m]  # each item's, to the front
        part = np.take_along_axis(ops, order[:, :, None], 1)
        part[~np.take_along_axis(take, order, 1)] = 0
        out.append(np.ascontiguousarray(part.reshape(n, m * COLOUR_WORDS), np.float32))
    return out


def _item_passes(ops: np.ndarray) -> list[np.ndarray]:
    """:func:`colour_passes` of one item's operations ``ops`` ((k, COLOUR_WORDS)): its live
    operations (up to a code 0) in order, a pass started at each of COLOUR_WHOLE; a pass
    without operations is one of code 0."""
    return _pass_lists(ops, _item_rows(ops[:, 0]))


def _item_rows(codes: Any) -> list[list[int]]:
    """The operations (their rows) of each pass of one item's list of ``codes`` (an array or
    a sequence): the live ones (up to a code 0) in order, a pass started at each of
    COLOUR_WHOLE."""
    codes = np.asarray(codes, np.float64)
    whole = _WHOLE_CODE[_code_index(codes)].tolist()
    passes: list[list[int]] = [[]]
    for j, code in enumerate(codes.tolist()):
        if code == 0:
            break
        if whole[j]:
            passes.append([])
        passes[-1].append(j)
    return passes


def _pass_lists(ops: np.ndarray, rows: list[list[int]]) -> list[np.ndarray]:
    """One item's passes (``ops``: its (k, COLOUR_WORDS) operations; ``rows``: each pass's, as
    :func:`_item_rows` gives them), each a (1, k_i * COLOUR_WORDS) list, code 0 where empty."""
    return [np.ascontiguousarray(ops[r].reshape(1, -1), np.float32) if r else
            np.zeros((1, COLOUR_WORDS), np.float32) for r in rows]


def _colour_ops(colour: np.ndarray, items: int, dt: np.dtype, channels: int, wo: int,
                ho: int, checked: bool = False) -> np.ndarray:
    """``colour`` checked: a C-contiguous float32 (items, k * COLOUR_WORDS) array, k >= 1,
    for an image dtype of COLOUR_PEAKS and of ``channels``, and an output of ``wo`` x ``ho``
    (``checked``: all but the output's size were, for a list of which these rows are part:
    :func:`warp_each`)."""
    if checked:
        ops = colour.reshape(items, -1, COLOUR_WORDS)
        _colour_sized(ops, channels, wo, ho, getattr(colour, "table", None), present_codes(ops))
        return colour
    colour_peak(dt)
    if not (isinstance(colour, np.ndarray) and colour.dtype == np.float32 and colour.ndim == 2
            and colour.flags.c_contiguous and colour.shape[0] == items
            and colour.shape[1] >= COLOUR_WORDS and colour.shape[1] % COLOUR_WORDS == 0):
        raise ValueError(f"colour must be a C-contiguous float32 array ({items}, k * "
                         f"{COLOUR_WORDS}), got {getattr(colour, 'dtype', type(colour))} "
                         f"{getattr(colour, 'shape', '')}")
    ops = colour.reshape(items, -1, COLOUR_WORDS)
    present = present_codes(ops)
    _check_filters(ops, present)
    _check_matching(ops, channels, present)
    if COL_PCA in present and channels != 3 and \
            ((ops[:, :, 0] == COL_PCA) & (ops[:, :, 5] == 1)).any():
        raise ValueError(f"COL_PCA's mode 1 (ToGray's) takes images of 3 channels, got "
                         f"{channels}")
    if wo:
        _colour_sized(ops, channels, wo, ho, getattr(colour, "table", None), present)
    if dt == np.uint16:  # the operations on 8-bit levels
        for code, name, why in ((COL_GRAVEL, "COL_GRAVEL", "OpenCV's 8-bit HLS"),
                                (COL_FLARE, "COL_FLARE", "8-bit levels"),
                                (COL_FLARE_PB, "COL_FLARE_PB", "8-bit levels"),
                                (COL_FOG, "COL_FOG", "8-bit levels"),
                                (COL_RAIN, "COL_RAIN", "8-bit levels"),
                                (COL_SNOW_TEX, "COL_SNOW_TEX", "OpenCV's 8-bit HSV")):
            if code in present and (ops[:, :, 0] == code).any():
                raise ValueError(f"{name} takes uint8 or float32 images ({why}), got uint16")
        if COL_GRAY in present and table_readers(ops).any():
            raise ValueError("COL_GRAY's method 4 takes uint8 or float32 images (OpenCV's 8-bit "
                             "Lab), got uint16")
    return colour


def _colour_sized(ops: np.ndarray, channels: int, wo: int, ho: int,
                  table: np.ndarray | None, present: frozenset[int]) -> None:
    """The checks of colour operations ``ops`` ((items, k, COLOUR_WORDS)) that read the
    output's size, ``wo`` x ``ho`` (``present``: :func:`present_codes`)."""
    if COL_EQUALIZE in present:
        _check_equalize_masks(ops, wo, ho)
    if COL_PASTE in present:
        _check_paste(ops, channels, wo, ho, table)
    if COL_SPATTER in present:
        _check_spatter(ops, channels, wo, ho, table)
    if COL_FDA in present:
        _check_fda(ops, channels, wo, ho, table)
    if COL_GRAY in present:
        _check_lab_gray(ops, table)


def _data_after(ops: np.ndarray, I: np.ndarray, J: np.ndarray,
                need: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For operations (I, J) of ``ops`` ((items, k, COLOUR_WORDS)) each followed by ``need``
    COL_DATA operations: the positions (1, k), the mask of each one's data operations (n, k),
    and whether they pass the list's end or are not all COL_DATA (n,)."""
    k = ops.shape[1]
    pos = np.arange(k)[None, :]
    held = (pos > J[:, None]) & (pos <= (J + need)[:, None])
    return pos, held, (J + need >= k) | (held & (ops[I, :, 0] != COL_DATA)).any(axis=1)


def _first_bad(bad: np.ndarray, I: np.ndarray, J: np.ndarray, why) -> None:
    """A ValueError for the first of operations (I, J) that ``bad`` marks: ``why(n)`` says
    what it needs."""
    if bad.any():
        n = int(np.flatnonzero(bad)[0])
        raise ValueError(f"colour[{I[n]}]'s operation {J[n]}: {why(n)}")


def _check_gravel(ops: np.ndarray) -> None:
    """Every COL_GRAVEL of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_gravel8 reads
    it, or a ValueError: whole counts, the COL_DATA operations that hold its patches and
    rectangles after it and inside the list, each patch's rectangles among them, the boxes'
    fractions in [0, 1], finite levels. One numpy pass over every such operation (a batch has
    one an item)."""
    I, J = np.nonzero(ops[:, :, 0] == COL_GRAVEL)
    if not len(I):
        return
    k = ops.shape[1]
    P, R, D = (ops[I, J, w].astype(np.float64) for w in (1, 2, 3))
    whole = (P >= 0) & (R >= 0) & (P % 1 == 0) & (R % 1 == 0)
    need = np.where(whole, P + np.ceil(R / 2), -1.0)
    pos, data, misplaced = _data_after(ops, I, J, need)
    bad = ~whole | (D != need) | misplaced
    patch = (pos > J[:, None]) & (pos <= (J + P)[:, None])
    words = ops[I]  # (pairs, k, COLOUR_WORDS)
    first, count = words[:, :, 5], words[:, :, 6]
    bad_patch = (first < 0) | (count < 0) | (first + count > R[:, None]) | (first % 1 != 0) | \
        (count % 1 != 0) | ~((words[:, :, 1:5] >= 0) & (words[:, :, 1:5] <= 1)).all(axis=2)
    boxes = words[:, :, 1:11].reshape(len(I), k, 2, 5)
    bad_box = ~((boxes[..., :4] >= 0) & (boxes[..., :4] <= 1)).all(axis=3) | \
        ~np.isfinite(boxes[..., 4])
    bad |= (patch & bad_patch).any(axis=1)
    bad |= ((data & ~patch)[:, :, None] & bad_box).any(axis=(1, 2))
    _first_bad(bad, I, J, lambda n: (
        f"COL_GRAVEL of {P[n]:g} patches and {R[n]:g} rectangles needs whole counts, "
        f"{max(need[n], 0):g} COL_DATA operations after it, counted in its word 3 (got "
        f"{D[n]:g}), patches that hold rectangles of its own, boxes in [0, 1] and finite "
        f"levels"))


def _check_polygons(ops: np.ndarray) -> None:
    """Every COL_POLY of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_poly8 reads it,
    or a ValueError: a whole count of vertices up to MAX_POLY_VERTICES, a finite factor >= 0,
    the COL_DATA operations that hold the vertices after it and inside the list, the
    vertices' fractions in [0, 1] and inside the operation's box. One numpy pass."""
    I, J = np.nonzero(ops[:, :, 0] == COL_POLY)
    if not len(I):
        return
    k = ops.shape[1]
    n, factor, data = (ops[I, J, w].astype(np.float64) for w in (1, 2, 3))
    whole = (n % 1 == 0) & (n >= 1) & (n <= MAX_POLY_VERTICES)
    need = np.where(whole, np.ceil(n / 5), -1.0)
    pos, held, misplaced = _data_after(ops, I, J, need)
    words = ops[I]
    bad = ~whole | ~np.isfinite(factor) | (factor < 0) | (data != need) | misplaced
    # each vertex m of a polygon: data operation m // 5 after it, words 1 + 2 (m % 5)
    xy = words[:, :, 1:11].reshape(len(I), k, 5, 2)
    vertex = ((pos - J[:, None] - 1)[:, :, None] * 5 + np.arange(5)) < n[:, None, None]
    vertex &= held[:, :, None]
    box = ops[I, J, 4:8]
    out = ~((xy >= 0) & (xy <= 1)).all(axis=3) | (xy < box[:, None, None, :2]).any(axis=3) | \
        (xy > box[:, None, None, 2:]).any(axis=3)
    bad |= (vertex & out).any(axis=(1, 2))
    _first_bad(bad, I, J, lambda m: (
        f"COL_POLY needs a whole count of vertices in [1, {MAX_POLY_VERTICES}] (got {n[m]:g}), "
        f"a finite factor >= 0 (got {factor[m]:g}), {max(need[m], 0):g} COL_DATA operations "
        f"after it, counted in its word 3 (got {data[m]:g}), and its vertices in [0, 1] "
        f"(fractions of the image's sides) inside its box"))


def _check_flares(ops: np.ndarray) -> None:
    """Every COL_FLARE of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_flare8 reads it,
    or a ValueError: whole counts of flare and sun circles up to MAX_FLARE_CIRCLES, the
    COL_DATA operations that hold them after it and inside the list, finite positions and
    radii in [0, 1e4] of the output's sides (radii >= 0), alphas in [0, 1] and levels in
    [0, 255]. One numpy pass."""
    I, J = np.nonzero(ops[:, :, 0] == COL_FLARE)
    if not len(I):
        return
    n, m, data = (ops[I, J, w].astype(np.float64) for w in (1, 2, 3))
    whole = (n % 1 == 0) & (m % 1 == 0) & (n >= 0) & (m >= 0) & (n <= MAX_FLARE_CIRCLES) & \
        (m <= MAX_FLARE_CIRCLES)
    need = np.where(whole, n + np.ceil(m / 5), -1.0)
    pos, held, misplaced = _data_after(ops, I, J, need)
    words = ops[I].astype(np.float64)  # (pairs, k, COLOUR_WORDS)
    circle = held & (pos <= (J + n)[:, None])
    sun = held & ~circle

    def far(x: np.ndarray) -> np.ndarray:  # (NaN too)
        return ~(np.abs(x) <= 1e4)

    bad_circle = far(words[:, :, 1:3]).any(axis=2) | far(words[:, :, 3]) | \
        (words[:, :, 3] < 0) | ~((words[:, :, 4] >= 0) & (words[:, :, 4] <= 1)) | \
        ~((words[:, :, 5:8] >= 0) & (words[:, :, 5:8] <= 255)).all(axis=2)
    # a sun operation's pairs past the count are unused (0 there)
    pairs = words[:, :, 1:11].reshape(len(I), -1, 5, 2)
    used = (pos - (J + n)[:, None] - 1)[:, :, None] * 5 + np.arange(5) < m[:, None, None]
    bad_sun = (used & (far(pairs[..., 0]) | (pairs[..., 0] < 0)
                       | ~((pairs[..., 1] >= 0) & (pairs[..., 1] <= 1)))).any(axis=2)
    head = ops[I, J].astype(np.float64)
    bad = ~whole | (data != need) | misplaced | (circle & bad_circle).any(axis=1) | \
        (sun & bad_sun).any(axis=1) | far(head[:, 4]) | far(head[:, 5]) | \
        ~((head[:, 6:9] >= 0) & (head[:, 6:9] <= 255)).all(axis=1)
    _first_bad(bad, I, J, lambda k: (
        f"COL_FLARE of {n[k]:g} flare and {m[k]:g} sun circles needs whole counts up to "
        f"{MAX_FLARE_CIRCLES}, {max(need[k], 0):g} COL_DATA operations after it, counted in "
        f"its word 3 (got {data[k]:g}), finite positions and radii >= 0 (fractions of the "
        f"output's sides), alphas in [0, 1] and levels in [0, 255]"))


#: the farthest a COL_FLARE_PB operation's sun centre and spike ends lie from 0 (pixels): the
#: raster's 16.16 products of differences stay inside 64 bits (kernels_cl/raster.h)
MAX_FLARE_REACH = 16383


def _check_flare_pb(ops: np.ndarray) -> None:
    """Every COL_FLARE_PB of ``ops`` ((items, k, COLOUR_WORDS)) as kernels_cl/flare.cl reads
    it, or a ValueError: a whole count of flare circles up to MAX_FLARE_CIRCLES and the
    COL_DATA operations after it inside the list (the sun, four spikes, the circles); the size
    they were drawn on (whole, 1 to MAX_FLARE_REACH a side); the sun's centre and the spikes'
    ends whole pixels within MAX_FLARE_REACH of 0, its radius and the circles' whole in [0,
    65535], the circles' centres within 65535 of 0, the spikes' half-width vectors whole and
    at most 1.5 x 2^16 (2 pixels wide), levels in [0, 255]. One numpy pass."""
    I, J = np.nonzero(ops[:, :, 0] == COL_FLARE_PB)
    if not len(I):
        return
    n, data = (ops[I, J, w].astype(np.float64) for w in (1, 3))
    whole = (n % 1 == 0) & (n >= 0) & (n <= MAX_FLARE_CIRCLES)
    need = np.where(whole, 5 + n, -1.0)
    pos, held, misplaced = _data_after(ops, I, J, need)
    words = ops[I].astype(np.float64)  # (items, k, COLOUR_WORDS)

    def at(d: int) -> np.ndarray:  # the words of data operation d (inside the list)
        return words[np.arange(len(I)), np.minimum(J + d, ops.shape[1] - 1)]

    def levels(x: np.ndarray) -> np.ndarray:
        return ((x >= 0) & (x <= 255)).all(axis=-1)

    def pixels(x: np.ndarray, reach: float) -> np.ndarray:
        return ((np.abs(x) <= reach) & (x % 1 == 0)).all(axis=-1)

    sun = at(1)
    spikes = np.stack([at(2 + s) for s in range(4)], 1)  # (items, 4, COLOUR_WORDS)
    ok = whole & (data == need) & ~misplaced & pixels(sun[:, 1:3], MAX_FLARE_REACH) & \
        (sun[:, 1:3] >= 1).all(axis=1) & pixels(sun[:, 3:5], MAX_FLARE_REACH) & \
        pixels(sun[:, 5:6], 65535) & (sun[:, 5] >= 0) & levels(sun[:, 6:9]) & \
        pixels(spikes[:, :, 1:5], MAX_FLARE_REACH).all(axis=1) & \
        pixels(spikes[:, :, 5:7], 1.5 * 65536).all(axis=1)
    circle = held & (pos > (J + 5)[:, None])
    bad_circle = ~pixels(words[:, :, 1:4], 65535) | (words[:, :, 3] < 0) | \
        ~levels(words[:, :, 4:7])
    bad = ~ok | (circle & bad_circle).any(axis=1)
    _first_bad(bad, I, J, lambda k: (
        f"COL_FLARE_PB of {n[k]:g} flare circles needs a whole count up to "
        f"{MAX_FLARE_CIRCLES}, {max(need[k], 0):g} COL_DATA operations after it, counted in "
        f"its word 3 (got {data[k]:g}): the sun (the size it was drawn on, whole, 1 to "
        f"{MAX_FLARE_REACH} a side; its centre, radius and colour), four spikes (ends and "
        f"half-width vectors) and the circles, in whole pixels (centres and ends within "
        f"{MAX_FLARE_REACH} of 0, circles within 65535, radii >= 0), levels in [0, 255]"))


def _check_fog(ops: np.ndarray) -> None:
    """Every COL_FOG of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_fog8 reads it, or a
    ValueError: a whole count of particles up to MAX_FOG_PARTICLES, an alpha in [0, 1], the
    size they were drawn on (whole, 1 to 65535 a side), the COL_DATA operations that hold them
    after it (three an operation) and inside the list, each particle's centre and radius whole
    pixels within 65535 of 0, its radius in [0, its word 4], the centres' rows in order (the
    kernel bisects them). One numpy pass."""
    I, J = np.nonzero(ops[:, :, 0] == COL_FOG)
    if not len(I):
        return
    n, alpha, data, top, w0, h0 = (ops[I, J, w].astype(np.float64) for w in (1, 2, 3, 4, 5, 6))
    whole = (n % 1 == 0) & (n >= 0) & (n <= MAX_FOG_PARTICLES) & (w0 % 1 == 0) & \
        (h0 % 1 == 0) & (w0 >= 1) & (h0 >= 1) & (w0 <= 65535) & (h0 <= 65535)
    need = np.where(whole, np.ceil(n / 3), -1.0)
    pos, held, misplaced = _data_after(ops, I, J, need)
    parts = ops[I, :, 1:10].astype(np.float64).reshape(len(I), -1, 3)  # (pairs, k * 3, 3)
    index = ((pos - J[:, None] - 1)[:, :, None] * 3 + np.arange(3)).reshape(len(I), -1)
    used = np.repeat(held, 3, axis=1) & (index < n[:, None])
    bad_part = ~(np.abs(parts) <= 65535).all(axis=2) | (parts % 1 != 0).any(axis=2) | \
        ~(parts[:, :, 2] >= 0) | ~(parts[:, :, 2] <= top[:, None])
    # the used particles are consecutive in this order: each pair of neighbours in rows' order
    order = ~((np.diff(parts[:, :, 1], axis=1) < 0) & used[:, 1:] & used[:, :-1]).any(axis=1)
    bad = ~whole | (data != need) | misplaced | (used & bad_part).any(axis=1) | ~order | \
        ~((alpha >= 0) & (alpha <= 1)) | ~((top >= 0) & (top <= 65535))
    _first_bad(bad, I, J, lambda k: (
        f"COL_FOG of {n[k]:g} particles on {w0[k]:g} x {h0[k]:g} needs a whole count up to "
        f"{MAX_FOG_PARTICLES} and whole sides in [1, 65535], {max(need[k], 0):g} COL_DATA "
        f"operations after it, counted in its word 3 (got {data[k]:g}), an alpha in [0, 1], "
        f"whole pixels within 65535 of 0, centres in rows' order and radii in [0, its word 4]"))


def _check_rain(ops: np.ndarray) -> None:
    """Every COL_RAIN of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_rain8 reads it, or
    a ValueError: a whole count of drops up to MAX_RAIN_DROPS, a whole box side in [1,
    MAX_RAIN_BOX] and the float of 1 / side^2, the size they were drawn on (whole, 1 to 65535
    a side), the COL_DATA operations that hold them after it (two an operation, then 24 of
    levels where its word 11 is 1) and inside the list, each drop's ends whole pixels within
    65535 of 0, each drop going down (y2 - y1 in [0, its word 6]), levels in [0, 255]; drops
    wider than a pixel (word 10 of the first COL_DATA operation) one an operation, each with
    its polygon's whole half-width vector (words 5, 6). One numpy pass."""
    I, J = np.nonzero(ops[:, :, 0] == COL_RAIN)
    if not len(I):
        return
    n, k, data, w0, h0, span, inv, table = (ops[I, J, w].astype(np.float64)
                                            for w in (1, 2, 3, 4, 5, 6, 10, 11))
    # the drops' width: word 10 of the first COL_DATA operation (0 or 1: one pixel, two drops
    # an operation; wider: a drop an operation, its polygon's half-width vector after its ends)
    nxt = np.minimum(J + 1, ops.shape[1] - 1)
    width = np.where((J + 1 < ops.shape[1]) & (ops[I, nxt, 0] == COL_DATA),
                     ops[I, nxt, 10].astype(np.float64), 0.0)
    thick = width > 1
    per = np.where(thick, 1, 2)
    whole = (n % 1 == 0) & (n >= 0) & (n <= MAX_RAIN_DROPS) & (w0 % 1 == 0) & \
        (h0 % 1 == 0) & (w0 >= 1) & (h0 >= 1) & (w0 <= 65535) & (h0 <= 65535) & \
        ((table == 0) | (table == 1)) & (width % 1 == 0) & (width >= 0) & \
        (width <= MAX_RAIN_WIDTH)
    need = np.where(whole, np.ceil(n / per) + 24 * table, -1.0)
    pos, held, misplaced = _data_after(ops, I, J, need)
    rows = pos - J[:, None] - 1  # each data operation's place after the header
    words = ops[I, :, 1:9].astype(np.float64)  # (drops, k, 8)
    thin_drops = words.reshape(len(I), -1, 4)
    index = (rows[:, :, None] * 2 + np.arange(2)).reshape(len(I), -1)
    used = np.repeat(held, 2, axis=1) & (index < n[:, None])
    # a wide drop's ends where a thin pair's first drop is, its vector where the second's ends
    thick_drops = np.repeat(words[:, :, :4], 2, axis=1)
    thick_used = np.repeat(held & (rows < n[:, None]), 2, axis=1)
    thick_used[:, 1::2] = False
    drops = np.where(thick[:, None, None], thick_drops, thin_drops)
    used = np.where(thick[:, None], thick_used, used)
    fall = drops[:, :, 3] - drops[:, :, 1]
    half = (width * 32768 + 32768)[:, None] * 1.5  # a vector's length at most
    vec = np.repeat(words[:, :, 4:6], 2, axis=1)
    bad_vec = thick[:, None] & ~((np.abs(vec) <= half[:, :, None]).all(axis=2) &
                                 (vec % 1 == 0).all(axis=2))
    bad_drop = ~(np.abs(drops) <= 65535).all(axis=2) | (drops % 1 != 0).any(axis=2) | \
        ~(fall >= 0) | ~(fall <= span[:, None]) | bad_vec
    levels = ops[I, :, 1:12].astype(np.float64)
    in_table = held & (rows >= np.ceil(n / per)[:, None])
    bad_level = ~((levels >= 0) & (levels <= 255) & (levels % 1 == 0)).all(axis=2)
    head = ops[I, J].astype(np.float64)
    bad = ~whole | (data != need) | misplaced | (used & bad_drop).any(axis=1) | \
        (in_table & bad_level).any(axis=1) | (k % 1 != 0) | ~((k >= 1) & (k <= MAX_RAIN_BOX)) | \
        (inv != np.float32(1.0) / np.float32(np.where(k >= 1, k * k, 1))) | \
        ~((span >= 0) & (span <= 65535) & (span % 1 == 0)) | \
        ~((head[:, 7:10] >= 0) & (head[:, 7:10] <= 255)).all(axis=1)
    _first_bad(bad, I, J, lambda m: (
        f"COL_RAIN of {n[m]:g} drops on {w0[m]:g} x {h0[m]:g} needs a whole count up to "
        f"{MAX_RAIN_DROPS} and whole sides in [1, 65535], a drop width in [0, "
        f"{MAX_RAIN_WIDTH}] (got {width[m]:g}), a box of a whole side in [1, "
        f"{MAX_RAIN_BOX}] with its word 10 the float of 1 / side^2, a word 11 of 0 or 1, "
        f"{max(need[m], 0):g} COL_DATA operations after it, counted in its word 3 (got "
        f"{data[m]:g}), whole pixels within 65535 of 0, each drop going down at most its word "
        f"6, levels in [0, 255]"))


#: the largest displacement of a COL_GLASS operation (a pixel's swap partner is at most this
#: many rows and columns away)
MAX_GLASS_DELTA = 4096


def _bad_keys(ops: np.ndarray, I: np.ndarray, J: np.ndarray, first: int) -> np.ndarray:
    """Which of the operations ``(I, J)`` of ``ops`` hold no generator key in words ``first``
    .. ``first + 2`` (colour.h's wk_key takes three whole words below 2^24, 2^24 and 2^16)."""
    keys = ops[I, J, first:first + 3].astype(np.float64)
    return ~((keys % 1 == 0).all(axis=1) & (keys >= 0).all(axis=1)
             & (keys < np.array([2.0 ** 24, 2.0 ** 24, 2.0 ** 16])).all(axis=1))


def _check_glass(ops: np.ndarray) -> None:
    """Every COL_GLASS of ``ops`` ((items, k, COLOUR_WORDS)) as colour_pass.cl's cp_glass8
    reads it, or a ValueError: a whole displacement in [1, MAX_GLASS_DELTA], a whole
    iteration in [0, 2^24), a generator key (three whole words below 2^24, 2^24 and 2^16) and
    a mode of 0 (fast) or 1 (exact)."""
    I, J = np.nonzero(ops[:, :, 0] == COL_GLASS)
    if not len(I):
        return
    md, it, mode = (ops[I, J, w].astype(np.float64) for w in (1, 2, 6))
    bad = ~(np.stack([md, it]) % 1 == 0).all(axis=0) | ~((md >= 1) & (md <= MAX_GLASS_DELTA)) | \
        ~((it >= 0) & (it < 2 ** 24)) | _bad_keys(ops, I, J, 3) | ~np.isin(mode, (0, 1))
    _first_bad(bad, I, J, lambda m: (
        f"COL_GLASS needs a whole displacement in [1, {MAX_GLASS_DELTA}] (got {md[m]:g}), a "
        f"whole iteration in [0, 2^24) (got {it[m]:g}), a key of three whole words below "
        f"2^24, 2^24 and 2^16 and a mode of 0 or 1 (got {mode[m]:g})"))


def rain_mask_words(wo: int) -> int:
    """The words of a row of a COL_RAIN operation's bit mask on an output ``wo`` wide
    (kernels_cl/colour.h's WK_RAIN_MW): a bit a column and a word past the image."""
    return (wo + 31) // 32 + 1


def rain_masks(prog: np.ndarray, wo: int, ho: int) -> tuple[np.ndarray, np.ndarray]:
    """``prog`` ((items, k * COLOUR_WORDS), checked) with a bit mask of the output after each
    item's list for each of its COL_RAIN operations (zeros, a row of zeros before them ending
    the list; the place of its mask, in operations from it, in word 9 of its first COL_DATA
    operation where it has drops), and each item's COL_RAIN operations' places in its list
    ((items, most a list has) int32, -1 past its own): what kernels_cl/rain.cl's rain_mask
    draws the drops from and into, before the launch that runs the list."""
    items = prog.shape[0]
    ops = prog.reshape(items, -1, COLOUR_WORDS)
    I, J = np.nonzero(ops[:, :, 0] == COL_RAIN)
    if not len(I):
        return prog, np.full((items, 1), -1, np.int32)
    first = np.searchsorted(I, I)  # (np.nonzero's order: by item, then place)
    rank = np.arange(len(I)) - first
    k = ops.shape[1]
    rows = -(-ho * rain_mask_words(wo) // COLOUR_WORDS)
    out = np.zeros((items, k + 1 + int(rank.max() + 1) * rows, COLOUR_WORDS), np.float32)
    out[:, :k] = ops
    drops = ops[I, J, 1] > 0
    out[I[drops], J[drops] + 1, 9] = (k + 1 + rank * rows - J)[drops]
    places = np.full((items, int(rank.max() + 1)), -1, np.int32)
    places[I, rank] = J
    return out.reshape(items, -1), places


#: the largest roughness of a COL_PLASMA operation: its last step's numbers (roughness^(S - 1),
#: S up to 15 steps on outputs of up to 65536 pixels a side: at most 1e28) stay finite in
#: float32
MAX_PLASMA_ROUGHNESS = 100.0


def _check_plasma(ops: np.ndarray) -> None:
    """Every COL_PLASMA and COL_PLASMA_MEAN of ``ops`` ((items, k, COLOUR_WORDS)) as
    kernels_cl/plasma.cl reads it, or a ValueError before any launch: a key of three whole
    words below 2^24, 2^24 and 2^16, a roughness in (0, MAX_PLASMA_ROUGHNESS], a mode of 0
    or 1 (the area's words are the host's: plasma_areas writes them)."""
    I, J = np.nonzero(np.isin(ops[:, :, 0], (COL_PLASMA, COL_PLASMA_MEAN)))
    if not len(I):
        return
    rough, mode = (ops[I, J, w].astype(np.float64) for w in (4, 5))
    bad = _bad_keys(ops, I, J, 1) | \
        ~((rough > 0) & (rough <= MAX_PLASMA_ROUGHNESS)) | ~np.isin(mode, (0, 1)) | \
        ((ops[I, J, 0] == COL_PLASMA_MEAN) & (mode != 0))
    _first_bad(bad, I, J, lambda m: (
        f"COL_PLASMA needs a key of three whole words below 2^24, 2^24 and 2^16, a roughness "
        f"in (0, {MAX_PLASMA_ROUGHNESS:g}] (got {rough[m]:g}) and a mode of 0 or 1 (0 with "
        f"COL_PLASMA_MEAN; got {mode[m]:g})"))


def plasma_side(wo: int, ho: int) -> int:
    """The side G of the plasma grid of an output ``wo`` x ``ho`` (albumentations'
    generate_plasma_pattern: 2^ceil(log2(max - 1)) + 1, with at least its 3 x 3 start)."""
    steps = max((max(wo, ho) - 2).bit_length() - 1, 0)
    return (2 << steps) + 1


def plasma_areas(prog: np.ndarray, wo: int, ho: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``prog`` ((items, k * COLOUR_WORDS), checked) with each COL_PLASMA and COL_PLASMA_MEAN
    operation's area after every item's list (whole operations: the last step's G x P(G)
    grid, the one before's, 32 floats spare after each; G = :func:`plasma_side`, P(n) = n in
    whole blocks of 32: kernels_cl/plasma.cl's layout): its place in operations from the
    operation in words 9 and 10 (w[9] 2^20 + w[10]) and the pattern's row, P(G) floats, in
    word 11; each item's such operations' places in its list ((items,
    most a list has) int32, -1 past its own); and the floats the areas take. What
    kernels_cl/plasma.cl's plasma_pattern makes the patterns in, before the launch that runs
    the list; nothing there needs uploading."""
    side = plasma_side(wo, ho)
    half = (side + 1) // 2  # the step before the last one's grid
    floats = side * _pitch32(side) + half * _pitch32(half) + 64
    return _areas(prog, (COL_PLASMA, COL_PLASMA_MEAN), floats, {11: _pitch32(side)}, 0)


def snow_areas(prog: np.ndarray, wo: int, ho: int,
               start: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """``prog`` ((items, k * COLOUR_WORDS), checked) with each COL_SNOW_TEX operation's area
    after every item's list and ``start`` operations more (kernels_cl/snow.cl's layout: the
    sparkles' bits, ``ho`` rows of P / 32 words, P = ``wo`` in whole blocks of 32 plus 32, and
    a word spare, rounded up to 32 floats; the texture, ``ho`` rows of P floats, each from its
    float 8 (its edges reflected around it while the kernel blurs); a grid as large): its
    place in words 9 and 10 (w[9] 2^20 + w[10] operations from the operation), the texture's
    start in floats from the area in word 8, P in word 11; each item's such
    operations' places in its list ((items, most a list has) int32, -1 past its own); and the
    floats the areas take (what kernels_cl/snow.cl's snow_texture fills, before the launch
    that runs the list)."""
    P = _pitch32(wo) + 32
    bits = _pitch32(ho * P // 32 + 1)
    if bits + 8 >= 1 << 24:  # (word 8 holds it as a float: exact below 2^24)
        raise ValueError(f"RandomSnow's texture takes outputs of fewer than 2^29 pixels with "
                         f"their rows in whole blocks of 32 plus 32 (a {wo} x {ho} output has "
                         f"{ho * P})")
    return _areas(prog, (COL_SNOW_TEX,), bits + 2 * ho * P, {8: bits + 8, 11: P}, start)


def flare_areas(prog: np.ndarray, wo: int, ho: int,
                start: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """``prog`` ((items, k * COLOUR_WORDS), checked) with each COL_FLARE_PB operation's area
    after every item's list and ``start`` operations more (kernels_cl/flare.cl's layout: the
    sun's bit mask, ``ho`` rows of ``wo // 32 + 2`` words rounded up to 32 floats, a flag a
    row rounded likewise, then two grids of four planes of ``ho`` rows of P floats, P = ``wo +
    136`` in whole blocks of 32, a row's pixels from its float 64): the grids' start in word 8, P
    in word 11, its place in words 9 and 10; each item's such operations' places in its list
    ((items, most a list has) int32, -1 past its own); and the floats the areas take (what
    kernels_cl/flare.cl's flare_layer fills, before the launch that runs the list)."""
    P = _pitch32(wo + 136)
    bits = _pitch32(ho * ((wo + 31) // 32 + 1)) + _pitch32(ho)
    if bits >= 1 << 24 or 8 * ho * P >= 1 << 31:
        raise ValueError(f"RandomSunFlare's physics-based layer takes outputs of fewer than "
                         f"2^28 pixels with their rows padded by 136 (its 8 planes of floats "
                         f"below 2^31; a {wo} x {ho} output has {ho * P})")
    return _areas(prog, (COL_FLARE_PB,), bits + 8 * ho * P, {8: bits, 11: P}, start)


def _pitch32(n: int) -> int:
    """``n`` in whole blocks of 32."""
    return -(-n // 32) * 32


def _areas(prog: np.ndarray, codes: tuple[int, ...], floats: int, words: dict[int, float],
           start: int) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`plasma_areas` and :func:`snow_areas`: an area of ``floats`` (in whole operations)
    for each operation of ``codes``, after every item's list and ``start`` operations, its
    place in words 9 and 10 and ``words`` ({word: value}) written into it."""
    items = prog.shape[0]
    ops = prog.reshape(items, -1, COLOUR_WORDS)
    I, J = np.nonzero(np.isin(ops[:, :, 0], codes))
    if not len(I):
        return prog, np.full((items, 1), -1, np.int32), 0
    area = -(-floats // COLOUR_WORDS)  # in operations
    first = np.searchsorted(I, I)  # (np.nonzero's order: by item, then place)
    rank = np.arange(len(I)) - first
    most = int(rank.max() + 1)
    out = ops.copy()
    _place_words(out, I, J, start + (I * most + rank) * area)
    for w, value in words.items():
        out[I, J, w] = value
    places = np.full((items, most), -1, np.int32)
    places[I, rank] = J
    return out.reshape(items, -1), places, items * most * area * COLOUR_WORDS


def _check_snow(ops: np.ndarray) -> None:
    """Every COL_SNOW_TEX of ``ops`` ((items, k, COLOUR_WORDS)) as colour.h's wk_snow_tex8
    reads it, or a ValueError before any launch: a key of three whole words below 2^24, 2^24
    and 2^16, a finite brightness factor w[4] >= 0, a layer's scale w[5] in [0, 255] and a
    tint's weight w[6] in [0, 1] (so that every value stays far inside an int before its byte
    is taken; the area's words are the host's: snow_areas writes them)."""
    I, J = np.nonzero(ops[:, :, 0] == COL_SNOW_TEX)
    if not len(I):
        return
    f, layer, tint = (ops[I, J, w].astype(np.float64) for w in (4, 5, 6))
    bad = _bad_keys(ops, I, J, 1) | \
        ~((f >= 0) & (f <= 1e30)) | ~((layer >= 0) & (layer <= 255)) | \
        ~((tint >= 0) & (tint <= 1))
    _first_bad(bad, I, J, lambda m: (
        f"COL_SNOW_TEX needs a key of three whole words below 2^24, 2^24 and 2^16, a finite "
        f"factor >= 0 (got {f[m]:g}), a layer's scale in [0, 255] (got {layer[m]:g}) and a "
        f"tint's weight in [0, 1] (got {tint[m]:g})"))


def _check_filters(ops: np.ndarray, present: frozenset[int] | None = None) -> None:
    """The blurs' operations (``ops``: (items, k, COLOUR_WORDS)) as colour_pass.cl reads them, or
    a ValueError before any launch: a whole radius up to MAX_BLUR_RADIUS (its tables' size), a
    whole tap count, and their values inside the COL_DATA operations that follow (the kernel
    reads that many words past the operation); a median's odd size up to MAX_MEDIAN_SIZE."""
    codes = np.ascontiguousarray(ops[:, :, 0])  # (compared with many codes: one copy)
    # a code no list holds (``present``: present_codes) is not looked for
    present = present_codes(ops) if present is None else present

    def at(code: int) -> tuple:
        return np.nonzero(codes == code) if code in present else ()  # (zip(*()): no pairs)
    k = codes.shape[1]
    for i, j in zip(*at(COL_MEDIAN)):
        size = float(ops[i, j, 1])
        if not (size.is_integer() and size % 2 == 1 and 1 <= size <= MAX_MEDIAN_SIZE):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_MEDIAN's size must be an odd "
                             f"whole number in [1, {MAX_MEDIAN_SIZE}], got {size:g}")
    if COL_FRAME in present:  # (a frame a step: checked together)
        I, J = np.nonzero(codes == COL_FRAME)
        w = ops[I, J]
        bad = (J + 1 >= k) | (codes[I, np.minimum(J + 1, k - 1)] != COL_DATA) \
            | ~((w[:, 9] >= 1) & (w[:, 10] >= 1) & np.isfinite(w[:, 1:9]).all(1))
        _first_bad(bad, I, J, lambda n: f"COL_FRAME needs a finite map, a frame of at least "
                                        f"1 x 1 pixels and its fill in a COL_DATA operation "
                                        f"after it, got {w[n, 1:12].tolist()}")
    for i, j in zip(*at(COL_DOWNSCALE)):
        scale = joined(ops[i, j, 1:4])
        if not 0 < scale <= 1:
            raise ValueError(f"colour[{i}]'s operation {j}: COL_DOWNSCALE's scale must be in "
                             f"(0, 1], got {scale:g}")
        pair = (float(ops[i, j, 4]), float(ops[i, j, 5]))
        if not all(v.is_integer() and int(v) in resize8.RESIZE_INTERPOLATIONS for v in pair):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_DOWNSCALE's interpolation pair "
                             f"must be OpenCV's codes {resize8.RESIZE_INTERPOLATIONS}, got "
                             f"{pair[0]:g} and {pair[1]:g}")
    for i, j in zip(*at(COL_JPEG)):
        quality = float(ops[i, j, 1])
        if not (quality.is_integer() and 1 <= quality <= 100):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_JPEG's quality must be a whole "
                             f"number in [1, 100], got {quality:g}")
    for i, j in zip(*at(COL_ISO)):
        sigma, intensity = float(ops[i, j, 4]), float(ops[i, j, 5])
        if not (0 <= sigma <= MAX_ISO_INTENSITY and 0 <= intensity <= MAX_ISO_INTENSITY):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_ISO's hue deviation and "
                             f"intensity must be in [0, {MAX_ISO_INTENSITY:g}], got {sigma:g} and "
                             f"{intensity:g}")
    for i, j in zip(*at(COL_CHROMA)):
        k = ops[i, j, 1:5]
        if not (np.isfinite(k).all() and np.abs(k).max() <= MAX_CHROMA_COEFF):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_CHROMA's distortion "
                             f"coefficients must be finite, within +-{MAX_CHROMA_COEFF:g}, got "
                             f"{k.tolist()}")
        if ops[i, j, 5] not in (0, 1, 2, 4):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_CHROMA's interpolation must be "
                             f"0, 1, 2 or 4 (nearest, linear, cubic, Lanczos), got "
                             f"{float(ops[i, j, 5]):g}")
    for i, j in zip(*at(COL_SNOW)):
        point, coeff = float(ops[i, j, 1]), float(ops[i, j, 2])
        if not (math.isfinite(point) and math.isfinite(coeff) and coeff >= 0):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_SNOW's threshold and brightness "
                             f"coefficient must be finite, the coefficient >= 0, got {point:g} "
                             f"and {coeff:g}")
    for i, j in zip(*at(COL_LIGHT)):
        mode, words = float(ops[i, j, 1]), ops[i, j, 2:7]
        if not (mode in (0, 1, 2) and np.isfinite(words).all()
                and (mode != 2 or words[3] > 0)):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_LIGHT's mode must be 0, 1 or 2 "
                             f"and its values finite (mode 2's sigma > 0), got {mode:g} and "
                             f"{words.tolist()}")
    for i, j in zip(*at(COL_SHOT)):
        scale = float(ops[i, j, 4])
        if not (math.isfinite(scale) and scale >= float(np.float32(MIN_SHOT_SCALE))):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_SHOT's scale must be a finite "
                             f"number >= {MIN_SHOT_SCALE:g}, got {scale:g}")
    for i, j in zip(*at(COL_PCA)):
        alphas, mode = ops[i, j, 1:5], float(ops[i, j, 5])
        if not np.isfinite(alphas).all() or mode not in (0, 1):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_PCA's weights must be finite "
                             f"and its mode (word 5) 0 or 1, got {alphas.tolist()} and "
                             f"{mode:g}")
    for i, j in zip(*at(COL_PIXDROP)):
        prob = float(ops[i, j, 4])
        if not 0 <= prob <= 1:
            raise ValueError(f"colour[{i}]'s operation {j}: COL_PIXDROP's probability must be "
                             f"in [0, 1], got {prob:g}")
    for i, j in zip(*at(COL_EQUALIZE)):
        if ops[i, j, 1] not in (0, 1, 2, 3, 4) or ops[i, j, 2] not in (0, 1):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_EQUALIZE's mode must be 0-4 and "
                             f"its by-channels flag 0 or 1, got {float(ops[i, j, 1]):g} and "
                             f"{float(ops[i, j, 2]):g}")
        # (colour.h skips word 10's data operations: HistogramMatching's reference, checked by
        # _check_matching, Equalize's mask, by _check_equalize_masks; AutoContrast has none)
        if (ops[i, j, 1] >= 2 and ops[i, j, 11] != 0) or \
                (2 <= ops[i, j, 1] <= 3 and ops[i, j, 10] != 0):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_EQUALIZE's words 10 and 11 (a "
                             f"mask's data operations and channels: Equalize's alone) must be "
                             f"0 in mode {float(ops[i, j, 1]):g}, got {float(ops[i, j, 10]):g} "
                             f"and {float(ops[i, j, 11]):g}")
        if 2 <= ops[i, j, 1] <= 3:  # AutoContrast: its ignored level and cutoff (colour.h)
            w = [float(v) for v in ops[i, j, 3:8]]
            parts = all(v.is_integer() and 0 <= v < 2 ** b for v, b in zip(w[1:4], (18, 18, 17)))
            if not (w[0].is_integer() and -1 <= w[0] <= 255):
                raise ValueError(f"colour[{i}]'s operation {j}: AutoContrast's ignored level must "
                                 f"be a whole number in [-1, 255], got {w[0]:g}")
            if not (parts and w[4].is_integer() and abs(w[4]) <= 2000 and
                    0 <= ac_cutoff(ops[i, j]) <= 100):
                raise ValueError(f"colour[{i}]'s operation {j}: AutoContrast's cutoff words must "
                                 f"be a mantissa of 18, 18 and 17 whole bits and an exponent of a "
                                 f"number in [0, 100], got {w[1:]}")
    for i, j in zip(*at(COL_CLAHE)):
        clip, gx, gy = joined(ops[i, j, 1:4]), float(ops[i, j, 4]), float(ops[i, j, 5])
        if not (math.isfinite(clip) and clip >= 0):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_CLAHE's clip limit must be a "
                             f"finite number >= 0, got {clip:g}")
        if not all(g.is_integer() and 1 <= g <= MAX_CLAHE_TILES for g in (gx, gy)):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_CLAHE's tiles must be whole "
                             f"numbers in [1, {MAX_CLAHE_TILES}] per axis, got {gx:g} x {gy:g}")
    for i, j in zip(*at(COL_HOLES)):
        bands, holes, data = (float(v) for v in ops[i, j, 1:4])
        mode = float(ops[i, j, 9])
        need = -(-int(bands) // 2) + int(holes)
        if mode not in (0, 1, 2) or not (bands.is_integer() and holes.is_integer()) or \
                min(bands, holes) < 0 or data != need or j + need >= k or \
                not (codes[i, j + 1:j + 1 + need] == COL_DATA).all():
            raise ValueError(f"colour[{i}]'s operation {j}: COL_HOLES of {bands:g} bands and "
                             f"{holes:g} holes needs a mode of 0, 1 or 2 (got {mode:g}) and "
                             f"{need} COL_DATA operations after it, counted in its word 3 "
                             f"(got {data:g})")
        table = ops[i, j + 1:j + 1 + need - int(holes), 1:9].reshape(-1, 4)[:int(bands)]
        if len(table) and not ((table[:, 2] >= 0) & (table[:, 3] >= 0)
                               & (table[:, 2] + table[:, 3] <= holes)).all():
            raise ValueError(f"colour[{i}]'s operation {j}: COL_HOLES' bands must hold holes "
                             f"of its {holes:g}")
    # (each looks for its own codes: only where some list holds them)
    for codes_of, check in (((COL_GRAVEL,), _check_gravel), ((COL_POLY,), _check_polygons),
                            ((COL_FLARE,), _check_flares), ((COL_FLARE_PB,), _check_flare_pb),
                            ((COL_FOG,), _check_fog), ((COL_RAIN,), _check_rain),
                            ((COL_GLASS,), _check_glass),
                            ((COL_PLASMA, COL_PLASMA_MEAN), _check_plasma),
                            ((COL_SNOW_TEX,), _check_snow)):
        if not present.isdisjoint(codes_of):
            check(ops)
    for i, j in zip(*at(COL_TAPS)):
        _check_taps(ops[i], i, j)
    if COL_MORPH in present:
        _check_morph(ops)
    for i, j in zip(*at(COL_ZOOM)):
        count, step = float(ops[i, j, 1]), joined(ops[i, j, 2:5])
        if not (count.is_integer() and 1 <= count <= MAX_ZOOMS and math.isfinite(step)
                and step > 0 and 1.0 + (count - 1) * step < 1e3):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_ZOOM needs a whole count of "
                             f"zooms in [1, {MAX_ZOOMS}] and a finite step > 0 (zooms below "
                             f"1000), got {count:g} and {step:g}")
    for i, j in zip(*at(COL_UNSHARP)):
        amount, threshold = float(ops[i, j, 2]), float(ops[i, j, 3])
        if not (math.isfinite(amount) and math.isfinite(threshold)):
            raise ValueError(f"colour[{i}]'s operation {j}: COL_UNSHARP's amount and threshold "
                             f"must be finite, got {amount:g} and {threshold:g}")
    for i, j in zip(*(np.nonzero(np.isin(codes, (COL_BLUR, COL_UNSHARP, COL_MOTION)))
                      if not present.isdisjoint((COL_BLUR, COL_UNSHARP, COL_MOTION)) else ())):
        blur = codes[i, j] != COL_MOTION
        count = float(ops[i, j, 1])
        name = ("COL_BLUR's radius" if codes[i, j] == COL_BLUR else "COL_UNSHARP's radius") \
            if blur else "COL_MOTION's tap count"
        if not (count.is_integer() and 0 <= count <= (MAX_BLUR_RADIUS if blur else 2**24)):
            raise ValueError(f"colour[{i}]'s operation {j}: {name} must be a whole number in "
                             f"[0, {MAX_BLUR_RADIUS if blur else 2**24}], got {count:g}")
        own = COLOUR_WORDS - (4 if codes[i, j] == COL_UNSHARP else 2)
        values, own = (int(count) + 1, own) if blur else (2 * int(count), COLOUR_WORDS - 3)
        data = -(-max(values - own, 0) // (COLOUR_WORDS - 1))
        if j + data >= k or not (codes[i, j + 1:j + 1 + data] == COL_DATA).all():
            raise ValueError(f"colour[{i}]'s operation {j}: {name} {count:g} needs {values} "
                             f"values, its own words and {data} COL_DATA operations after it")


def data_ops(values: int) -> int:
    """The COL_DATA operations that hold ``values`` values after an operation whose data starts
    at its first data operation (11 values an operation; colour_pass.cl's cl_hm_ref and
    cl_eq_in read value v at word 1 + v % 11 of data operation v / 11)."""
    return -(-values // (COLOUR_WORDS - 1))


def with_data_ops(head: dict[int, float], values: np.ndarray) -> np.ndarray:
    """An operation (its words by place in ``head``) with ``values`` in the COL_DATA operations
    after it, their count in its word 10: a (1 + data_ops, COLOUR_WORDS) float32 array."""
    need = data_ops(len(values))
    ops = np.zeros((1 + need, COLOUR_WORDS), np.float32)
    ops[0, list(head)] = list(head.values())
    ops[0, 10] = need
    ops[1:, 0] = COL_DATA
    flat = np.zeros(need * (COLOUR_WORDS - 1), np.float32)
    flat[:len(values)] = values
    ops[1:, 1:] = flat.reshape(need, COLOUR_WORDS - 1)
    return ops


def mask_ops(channels: int, wo: int, ho: int) -> int:
    """The COL_DATA operations after an Equalize's (COL_EQUALIZE mode 0 or 1) whose mask has
    ``channels`` (1 or 3) of ``wo`` x ``ho`` bits, 16 a value."""
    return data_ops(-(-channels * wo * ho // 16))


def mask_data(mask: np.ndarray) -> np.ndarray:
    """An Equalize's mask ((H, W, channels) bool) as the values of its COL_DATA operations
    (colour_pass.cl's cl_eq_in): each channel's bits row-major, channel after channel, 16 to a
    value, the first bit the lowest."""
    bits = np.moveaxis(np.asarray(mask, bool), -1, 0).reshape(-1)
    bits = np.concatenate([bits, np.zeros(-len(bits) % 16, bool)]).reshape(-1, 16)
    return (bits.astype(np.int64) << np.arange(16)).sum(1).astype(np.float32)


def _data_values(ops: np.ndarray, I: np.ndarray, J: np.ndarray, need: int, values: int,
                 what: str) -> np.ndarray:
    """The first ``values`` values of the ``need`` COL_DATA operations after each operation
    (I, J) ((n, values) float64), or a ValueError naming ``what``: word 10 counts them, they
    lie inside the list, they are COL_DATA, their values whole 16-bit numbers."""
    at = J[:, None] + 1 + np.arange(need)
    inside = (at < ops.shape[1]).all(1)
    data = ops[I[:, None], np.minimum(at, ops.shape[1] - 1)]
    v = data[:, :, 1:].reshape(len(I), -1)[:, :values].astype(np.float64)
    for bad, why in ((ops[I, J, 10] != need) | ~inside | (data[:, :, 0] != COL_DATA).any(1),
                     f"needs {need} COL_DATA operations after it, counted in word 10"), \
                    (~((v == np.floor(v)) & (v >= 0) & (v < 65536)).all(1),
                     "values must hold 16 whole bits"):
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"colour[{I[k]}]'s operation {J[k]}: {what} {why} (word 10: "
                             f"{float(ops[I[k], J[k], 10]):g})")
    return v


def _check_equalize_masks(ops: np.ndarray, wo: int, ho: int) -> None:
    """Equalize's masks (COL_EQUALIZE modes 0 and 1, word 11 the mask's channels, word 10 its
    data operations) as colour_pass.cl's cl_eq_in reads them for a ``wo`` x ``ho`` output, or
    a ValueError: 0, 1 or 3 channels, the data operations their bits need (:func:`_data_values`)."""
    I, J = np.nonzero((ops[:, :, 0] == COL_EQUALIZE) & (ops[:, :, 1] <= 1))
    if not len(I):
        return
    c = ops[I, J, 11]
    if not np.isin(c, (0, 1, 3)).all():
        k = int(np.argmax(~np.isin(c, (0, 1, 3))))
        raise ValueError(f"colour[{I[k]}]'s operation {J[k]}: Equalize's mask must have 0, 1 "
                         f"or 3 channels (word 11), got {float(c[k]):g}")
    for channels in (0, 1, 3):
        on = c == channels
        if on.any():
            _data_values(ops, I[on], J[on], mask_ops(channels, wo, ho) if channels else 0,
                         -(-channels * wo * ho // 16),
                         f"Equalize's mask of {channels} channels of {wo} x {ho} bits")


def paste_data(selected: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """An OverlayElements element's values in the call's colour table (kernels_cl/colour.h's
    wk_paste8): the bits of ``selected`` ((h, w) bool: the pixels pasted) 16 a value
    (:func:`mask_data`), then ``pixels`` ((h, w, C) in the image's units) row-major, channels
    interleaved."""
    return np.concatenate([mask_data(np.asarray(selected, bool)[:, :, None]),
                           np.asarray(pixels, np.float32).reshape(-1)])


def paste_ops(x: int, y: int, w: int, h: int, offset: int) -> np.ndarray:
    """A COL_PASTE operation ((1, COLOUR_WORDS)): an element of ``w`` x ``h`` pixels put at
    column ``x``, row ``y`` of the output, its values (:func:`paste_data`) at ``offset`` in
    the call's colour table (words 6 and 7, 16-bit halves; words 9 and 10 are the engine's:
    :func:`table_places`)."""
    op = np.zeros((1, COLOUR_WORDS), np.float32)
    op[0, :8] = [COL_PASTE, x, y, w, h, 0, offset >> 16, offset & 0xFFFF]
    return op


def table_readers(ops: np.ndarray) -> np.ndarray:
    """Which operations of ``ops`` ((items, k, COLOUR_WORDS)) read the call's colour table:
    those of :data:`COLOUR_TABLE_OPS`, and COL_GRAY of method :data:`GRAY_FROM_LAB`."""
    code, how = ops[:, :, 0], ops[:, :, 4]
    return (code == COLOUR_TABLE_OPS[0]) | (code == COLOUR_TABLE_OPS[1]) | \
        ((code == COL_GRAY) & (how >= GRAY_FROM_LAB) & (how < GRAY_FROM_LAB + 1))


def table_places(prog: np.ndarray, start: int) -> np.ndarray:
    """``prog`` ((items, k * COLOUR_WORDS), checked) with the distance to the call's colour
    table of each operation that reads it (:data:`COLOUR_TABLE_OPS`) in words 9 and 10
    (operations, 2^20 and the rest): the table lies after every item's list and ``start``
    operations more (the device's areas)."""
    items = prog.shape[0]
    ops = prog.reshape(items, -1, COLOUR_WORDS)
    I, J = np.nonzero(table_readers(ops))
    out = ops.copy()
    _place_words(out, I, J, start)
    return out.reshape(items, -1)


def _place_words(ops: np.ndarray, I: np.ndarray, J: np.ndarray, past: Any) -> None:
    """Words 9 and 10 (2^20 and the rest) of operations (I, J) of ``ops`` ((items, k,
    COLOUR_WORDS), in place): the distance in operations from each to what lies ``past``
    operations after every item's list (colour.h's WK_COL_AREA)."""
    items, k = ops.shape[:2]
    place = (items - I) * k - J + past
    ops[I, J, 9] = place // (1 << 20)
    ops[I, J, 10] = place % (1 << 20)


def _whole(v: float) -> bool:
    """Whether a word is a whole number (NaN and the infinities are not)."""
    return math.isfinite(v) and v == int(v)


def _check_paste(ops: np.ndarray, channels: int, wo: int, ho: int,
                 table: np.ndarray | None) -> None:
    """Every COL_PASTE of ``ops`` ((items, k, COLOUR_WORDS)) as wk_paste8 reads it for an
    output of ``wo`` x ``ho`` of ``channels``, or a ValueError: the element's place and size
    whole numbers inside the output, its values inside the call's colour table ``table``
    from the offset in words 6 and 7 (16-bit halves), the bits there whole 16-bit numbers,
    the pixels finite."""
    I, J = np.nonzero(ops[:, :, 0] == COL_PASTE)
    size = 0 if table is None else len(table)
    checked = set()
    for i, j in zip(I.tolist(), J.tolist()):
        x, y, w, h, _, hi, lo = (float(v) for v in ops[i, j, 1:8])
        where = f"colour[{i}]'s operation {j}: COL_PASTE"
        if not all(_whole(v) for v in (x, y, w, h)) or x < 0 or y < 0 or w < 1 or h < 1 \
                or x + w > wo or y + h > ho:
            raise ValueError(f"{where} needs an element of whole pixels inside the {wo} x {ho} "
                             f"output (words 1-4: x, y, width, height), got {x:g}, {y:g}, "
                             f"{w:g}, {h:g}")
        n = int(w) * int(h)
        bits = -(-n // 16)
        ok = all(_whole(v) and 0 <= v < 65536 for v in (hi, lo))
        first = int(hi) * 65536 + int(lo) if ok else 0
        if not ok or first + bits + n * channels > size:
            raise ValueError(f"{where}'s {int(w)} x {int(h)} pixels of {channels} channels "
                             f"need {bits + n * channels} values of the call's colour table "
                             f"from the offset in words 6 and 7 (16-bit halves, got {hi:g} "
                             f"and {lo:g}), which holds {size}")
        if (first, n) in checked:
            continue
        checked.add((first, n))
        b = table[first:first + bits]
        if not ((b == np.floor(b)) & (b >= 0) & (b < 65536)).all():
            raise ValueError(f"{where}'s bits must be whole 16-bit values")
        if not np.isfinite(table[first + bits:first + bits + n * channels]).all():
            raise ValueError(f"{where}'s pixels must be finite")


def _check_spatter(ops: np.ndarray, channels: int, wo: int, ho: int,
                   table: np.ndarray | None) -> None:
    """Every COL_SPATTER of ``ops`` ((items, k, COLOUR_WORDS)) as wk_spatter8 reads it for an
    output of ``wo`` x ``ho``, or a ValueError: 3 channels, mode 0 (rain) or 1 (mud), finite
    factors in [0, 1] (words 2-4), its layer of wo x ho values inside the call's colour table
    ``table`` from the offset in words 6 and 7 (16-bit halves), finite."""
    I, J = np.nonzero(ops[:, :, 0] == COL_SPATTER)
    size = 0 if table is None else len(table)
    checked = set()
    for i, j in zip(I.tolist(), J.tolist()):
        mode, *factors = (float(v) for v in ops[i, j, 1:5])
        hi, lo = float(ops[i, j, 6]), float(ops[i, j, 7])
        where = f"colour[{i}]'s operation {j}: COL_SPATTER"
        if channels != 3 or mode not in (0, 1) or not all(0 <= f <= 1 for f in factors):
            raise ValueError(f"{where} needs an RGB image, mode 0 or 1 (word 1) and factors in "
                             f"[0, 1] (words 2-4), got {channels} channels, {mode:g}, "
                             f"{factors}")
        ok = all(_whole(v) and 0 <= v < 65536 for v in (hi, lo))
        first = int(hi) * 65536 + int(lo) if ok else 0
        if not ok or first + wo * ho > size:
            raise ValueError(f"{where}'s layer of {wo} x {ho} values runs past the call's "
                             f"colour table from the offset in words 6 and 7 (16-bit halves, "
                             f"got {hi:g} and {lo:g}), which holds {size}")
        if first not in checked:
            checked.add(first)
            if not np.isfinite(table[first:first + wo * ho]).all():
                raise ValueError(f"{where}'s layer must be finite")


def _check_lab_gray(ops: np.ndarray, table: np.ndarray | None) -> None:
    """Every COL_GRAY of method :data:`GRAY_FROM_LAB` of ``ops`` ((items, k, COLOUR_WORDS))
    as colour.h's wk_lab_gray8 reads it, or a ValueError: its table (engine.lab.gray_table's
    layout, GRAY_TABLE_SIZE values) inside the call's colour table ``table`` from the offset in
    words 6 and 7 (16-bit halves), finite."""
    I, J = np.nonzero(table_readers(ops) & (ops[:, :, 0] == COL_GRAY))
    size = 0 if table is None else len(table)
    places = {}  # (a batch's samples share one table: each place checked once)
    for i, j in zip(I.tolist(), J.tolist()):
        places.setdefault((float(ops[i, j, 6]), float(ops[i, j, 7])), (i, j))
    for (hi, lo), (i, j) in places.items():
        ok = all(_whole(v) and 0 <= v < 65536 for v in (hi, lo))
        at = int(hi) * 65536 + int(lo) if ok else 0
        if not ok or at + lab.GRAY_TABLE_SIZE > size:
            raise ValueError(f"colour[{i}]'s operation {j}: COL_GRAY's L table (method 4) of "
                             f"{lab.GRAY_TABLE_SIZE} values runs past the call's colour table from "
                             f"the offset in words 6 and 7 (16-bit halves, got {hi:g} and "
                             f"{lo:g}), which holds {size}")
        if not np.isfinite(table[at:at + lab.GRAY_TABLE_SIZE]).all():
            raise ValueError(f"colour[{i}]'s operation {j}: COL_GRAY's L table (method 4) must "
                             f"be finite")


def match_data(counts: np.ndarray) -> np.ndarray:
    """A HistogramMatching's reference counts (``counts``: (channels, 256) running counts, whole
    numbers below 2^31) as the values of its COL_DATA operations (colour_pass.cl's
    cl_hm_ref): each count as its high 16 bits, then its low 16."""
    c = np.asarray(counts, np.int64).reshape(-1)
    return np.stack([c >> 16, c & 0xFFFF], 1).astype(np.float32).ravel()


def match_ops(channels: int) -> int:
    """The COL_DATA operations after a HistogramMatching's (COL_EQUALIZE mode 4) for an image
    of ``channels``: two values a level and channel."""
    return data_ops(2 * 256 * channels)


def _check_matching(ops: np.ndarray, channels: int,
                    present: frozenset[int] | None = None) -> None:
    """HistogramMatching's operations (COL_EQUALIZE mode 4) as colour_pass.cl's cl_hm_lut reads
    them, or a ValueError: weights in [0, 1], the data operations the image's channels need
    (:func:`_data_values`), each channel's running counts not decreasing, below 2^31."""
    if present is not None and COL_EQUALIZE not in present:
        return
    I, J = np.nonzero((ops[:, :, 0] == COL_EQUALIZE) & (ops[:, :, 1] == 4))
    if not len(I):
        return
    w = ops[I, J]
    weights = ((w[:, 3:5] >= 0) & (w[:, 3:5] <= 1)).all(1)
    if not weights.all():
        k = int(np.argmax(~weights))
        raise ValueError(f"colour[{I[k]}]'s operation {J[k]}: HistogramMatching's weights must "
                         f"be in [0, 1], got {float(w[k, 3]):g} and {float(w[k, 4]):g}")
    v = _data_values(ops, I, J, match_ops(channels), 2 * 256 * channels,
                     f"HistogramMatching's reference counts for {channels} channels")
    t = (v[:, 0::2].astype(np.int64) << 16 | v[:, 1::2].astype(np.int64)).reshape(
        len(I), channels, 256)
    runs = ~((np.diff(t, axis=2) < 0).any((1, 2)) | (t >= 2 ** 31).any((1, 2)))
    if not runs.all():
        k = int(np.argmax(~runs))
        raise ValueError(f"colour[{I[k]}]'s operation {J[k]}: HistogramMatching's reference "
                         f"counts must be running counts (not decreasing, below 2^31)")


def fda_folds(xlo: int, nx: int) -> int:
    """The column frequencies 0 .. G - 1 whose pairs (g, -g) a COL_FDA operation's window of
    ``nx`` column frequencies from ``xlo`` touches: its word 5 (0 for an empty window)."""
    return max(-xlo, xlo + nx - 1) + 1 if nx > 0 else 0


def fda_sizes(passes: list[np.ndarray]) -> tuple[int, ...]:
    """The scratch room of the FDA passes (``passes``: :func:`colour_passes`'s list): the most
    column pairs, window rows and window columns of any COL_FDA operation, each rounded up to
    8 (a plan serves nearby windows), () where no pass has one."""
    words = [p.reshape(p.shape[0], -1, COLOUR_WORDS)[:, 0] for p in passes[1:]]
    words = [w[w[:, 0] == COL_FDA] for w in words]
    words = np.concatenate(words) if words else np.zeros((0, COLOUR_WORDS), np.float32)
    if not len(words):
        return ()
    return tuple(-(-max(int(words[:, i].max()), 1) // 8) * 8 for i in (5, 2, 4))


@functools.lru_cache(maxsize=16)
def fda_twiddles(wo: int, ho: int) -> np.ndarray:
    """The FDA kernels' twiddles for an output of ``wo`` x ``ho``: (cos, sin) of 2 pi m / wo
    for m < wo, then of 2 pi m / ho for m < ho, float32 pairs made in double (read-only)."""
    t = np.concatenate([2 * np.pi * np.arange(n) / n for n in (wo, ho)])
    out = np.stack([np.cos(t), np.sin(t)], 1).astype(np.float32).ravel()
    out.flags.writeable = False
    return out


class ColourProgram(np.ndarray):
    """A colour program ((n, k * COLOUR_WORDS) float32) with the call's colour table: float32
    values its operations index (FDA's reference spectra), one array for the whole call,
    uploaded once (an operation's own data would copy them into every sample's list). Slices
    and index selections of the program keep the table."""

    table: np.ndarray | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self.table = getattr(obj, "table", None)


def with_table(program: np.ndarray, table: np.ndarray) -> ColourProgram:
    """``program`` (a colour program) carrying ``table`` (float32 values, one dimension)."""
    out = program.view(ColourProgram)
    out.table = np.ascontiguousarray(table, np.float32).ravel()
    return out


def fda_ops(window: tuple[int, int, int, int], offset: int) -> np.ndarray:
    """A COL_FDA operation (colour_pass.cl's FDA pass, (1, COLOUR_WORDS)) with its window
    ``(ylo, ny, xlo, nx)`` of row and column frequencies (each the first, signed, and the
    count) and the place of the reference's amplitudes in the call's colour table
    (``offset``: floats from its start, in words 6 and 7 as 16-bit halves; the amplitudes
    (channels, Ho, Wo // 2 + 1): :func:`warpkit.augment._domain.reference_amplitudes`)."""
    ylo, ny, xlo, nx = window
    op = np.zeros((1, COLOUR_WORDS), np.float32)
    op[0, :8] = [COL_FDA, ylo, ny, xlo, nx, fda_folds(xlo, nx), offset >> 16, offset & 0xFFFF]
    return op


def _check_fda(ops: np.ndarray, channels: int, wo: int, ho: int,
               table: np.ndarray | None) -> None:
    """FDA's operations (COL_FDA) as colour_pass.cl's FDA pass reads them for an output of
    ``wo`` x ``ho``, or a ValueError: whole numbers; a window of frequencies inside
    numpy's ``fftshift`` range of each axis (-n // 2 .. n - n // 2 - 1), word 5 its column
    pairs (:func:`fda_folds`); the amplitudes of ``channels`` (channels x ho x (wo // 2 + 1))
    inside the call's colour table ``table`` from the offset in words 6 and 7 (16-bit
    halves), the table's values finite and not negative; no data operations (word 10)."""
    I, J = np.nonzero(ops[:, :, 0] == COL_FDA)
    if not len(I):
        return
    size = 0 if table is None else len(table)
    w = ops[I, J].astype(np.float64)  # (every operation at once; the first bad one named)
    whole = np.isfinite(w) & (w == np.floor(w))
    ylo, ny, xlo, nx, g, hi, lo = (np.where(whole[:, k], w[:, k], 0).astype(np.int64)
                                   for k in range(1, 8))
    pairs = np.where(nx > 0, np.maximum(-xlo, xlo + nx - 1) + 1, 0)  # (fda_folds)
    window = whole[:, 1:6].all(1) & (ny >= 0) & (nx >= 0) & (-(ho // 2) <= ylo) & (ylo + ny <= ho - ho // 2) \
        & (-(wo // 2) <= xlo) & (xlo + nx <= wo - wo // 2) & (g == pairs)
    place = whole[:, 6:8].all(1) & (hi >= 0) & (hi < 65536) & (lo >= 0) & (lo < 65536) & (w[:, 10] == 0)
    end = hi * 65536 + lo + channels * ho * (wo // 2 + 1)
    for bad, why in ((~window, lambda k: f"COL_FDA's window (words 1-5: first row frequency, "
                                         f"rows, first column frequency, columns, column "
                                         f"pairs) must lie in the frequencies of a {wo} x {ho} "
                                         f"output, got {w[k, 1:6].tolist()}"),
                     (~place, lambda k: f"COL_FDA's table offset (words 6 and 7) must be 16-bit "
                                        f"halves and word 10 (data operations) 0, got "
                                        f"{w[k, 6:8].tolist()} and {w[k, 10]:g}"),
                     (end > size, lambda k: f"COL_FDA's amplitudes of {channels} channels x "
                                            f"{ho} x {wo // 2 + 1} run to value {end[k]} of the "
                                            f"call's colour table, which holds {size}")):
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"colour[{I[k]}]'s operation {J[k]}: {why(k)}")
    for first in np.unique(hi * 65536 + lo).tolist():  # (each reference's amplitudes once)
        part = table[first:first + channels * ho * (wo // 2 + 1)]
        if not (np.isfinite(part).all() and (part >= 0).all()):
            raise ValueError("the colour table's values (FDA's amplitudes) must be finite and "
                             "not negative")


def _check_taps(ops: np.ndarray, i: int, j: int) -> None:
    """A COL_TAPS operation (item ``i``'s operation ``j``) as colour_pass.cl's cp_taps8 reads it,
    or a ValueError: whole counts; its rows in the COL_DATA operations it counts, each a whole
    dy within MAX_BLUR_RADIUS, a first dx and a count of weights within its reach of at most
    MAX_TAP_RADIUS columns, and its weights' operations."""
    codes = ops[:, 0]
    rows, reach, data = (float(v) for v in ops[j, 1:4])
    where = f"colour[{i}]'s operation {j}: COL_TAPS"
    if not (rows.is_integer() and reach.is_integer() and data.is_integer()
            and 1 <= rows and 0 <= reach <= MAX_TAP_RADIUS and 0 <= data
            and j + data < len(ops) and (codes[j + 1:j + 1 + int(data)] == COL_DATA).all()):
        raise ValueError(f"{where} needs whole counts of rows (>= 1, got {rows:g}) and data "
                         f"operations ({data:g}: that many COL_DATA operations after it) and a "
                         f"reach in [0, {MAX_TAP_RADIUS}] (got {reach:g})")
    at, end = j + 1, j + 1 + int(data)
    for _ in range(int(rows)):
        if at >= end:
            raise ValueError(f"{where}'s rows run past its {data:g} data operations")
        dy, dx0, n = (float(v) for v in ops[at, 1:4])
        if not (dy.is_integer() and dx0.is_integer() and n.is_integer() and n >= 1
                and abs(dy) <= MAX_BLUR_RADIUS and -reach <= dx0 and dx0 + n - 1 <= reach):
            raise ValueError(f"{where}'s row at operation {at} must hold whole numbers: dy "
                             f"within {MAX_BLUR_RADIUS} (got {dy:g}) and weights from dx {dx0:g} "
                             f"to dx {dx0 + n - 1:g} within its reach {reach:g}")
        at += 1 + -(-int(n) // 8)
    if at != end:
        raise ValueError(f"{where}'s rows take {at - j - 1} data operations, not its {data:g}")


def _check_morph(ops: np.ndarray) -> None:
    """Every COL_MORPH of ``ops`` ((items, k, COLOUR_WORDS)) as colour_pass.cl's cp_morph8
    reads it, or a ValueError: whole counts of rows (each a COL_DATA operation after it,
    counted again in word 3) and reach (at most MAX_TAP_RADIUS), 1 (dilation) or 0 (erosion),
    and each row a whole dy within MAX_TAP_RADIUS and a run of columns within the reach. One
    numpy pass (a batch has one an item)."""
    I, J = np.nonzero(ops[:, :, 0] == COL_MORPH)
    if not len(I):
        return
    rows, reach, data, dilate = (ops[I, J, w].astype(np.float64) for w in (1, 2, 3, 4))
    head = (rows % 1 == 0) & (rows >= 1) & (rows <= 2 * MAX_TAP_RADIUS + 1) & (data == rows) \
        & (reach % 1 == 0) & (reach >= 0) & (reach <= MAX_TAP_RADIUS) & np.isin(dilate, (0, 1))
    _, held, misplaced = _data_after(ops, I, J, np.where(head, rows, -1.0))
    _first_bad(~head | misplaced, I, J, lambda m: (
        f"COL_MORPH needs a whole count of rows in [1, {2 * MAX_TAP_RADIUS + 1}] (got "
        f"{rows[m]:g}: that many COL_DATA operations after it, counted again in word 3, got "
        f"{data[m]:g}), a reach in [0, {MAX_TAP_RADIUS}] (got {reach[m]:g}) and 1 or 0 "
        f"(dilation or erosion, got {dilate[m]:g})"))
    words = ops[I].astype(np.float64)
    dy, dx0, n = words[:, :, 1], words[:, :, 2], words[:, :, 3]
    wrong = (dy % 1 != 0) | (dx0 % 1 != 0) | (n % 1 != 0) | (n < 1) | \
        (np.abs(dy) > MAX_TAP_RADIUS) | (dx0 < -reach[:, None]) | \
        (dx0 + n - 1 > reach[:, None])
    wrong &= held
    _first_bad(wrong.any(axis=1), I, J, lambda m: (
        f"COL_MORPH's row {int(np.flatnonzero(wrong[m])[0] - J[m] - 1)} must hold whole "
        f"numbers: dy within {MAX_TAP_RADIUS} and columns from its first dx to its last within "
        f"its reach {reach[m]:g}"))


def _not_into() -> None:
    """Refuse ``out=`` for a result that is not a host array."""
    raise ValueError("out= takes host arrays: this result is a Pillow image or a device "
                     "array (pass numpy input, or no out=)")


def _result_array(out: Any, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """``out`` checked as the array a result is written into: a writable C-contiguous numpy
    array of the result's ``shape`` and ``dtype``."""
    dtype = np.dtype(dtype)
    if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype or \
            not out.flags.c_contiguous or not out.flags.writeable:
        got = f"{type(out).__name__}" if not isinstance(out, np.ndarray) else \
            f"{out.dtype} {out.shape}" + ("" if out.flags.c_contiguous else ", not contiguous") + \
            ("" if out.flags.writeable else ", read-only")
        raise ValueError(f"out must be a writable C-contiguous {dtype} array of shape {shape} "
                         f"(the result's), got {got}")
    return out


def _matrix_values(rt, x, layout_key: tuple, spec: WarpSpec, kind: int, inv: np.ndarray,
                   coords: Coords | None, fixed: dict, extra: dict, plans: dict | None = None
                   ) -> tuple[Any, dict, dict]:
    """A warp's plan, values and operands for its positions' source: the work split that the
    maps ``inv`` give, the plan of that split (from ``plans``, the split's log2 -> its plan,
    where given: :class:`_Again`'s), the image's allocation checked, the fixed values, the
    call's ``extra`` ones and the positions' (:func:`_bind_positions`)."""
    finite_affine, tw_log2, pf = _work_split(kind, inv, spec.wo, spec.ho)
    # (a ragged batch's items are launched one by one on CPU devices: a launch has one)
    # (warp.cl's rows paths: uint8 by matrices, linear, or nearest stored as it is: masks)
    rows_path = x.dtype == np.uint8 and not spec.supersample and not spec.area and \
        spec.coord == COORD_MATRIX and (
            spec.mode == INTERPOLATIONS["linear"] or
            (spec.mode == INTERPOLATIONS["nearest"] and spec.y_dtype is None and not spec.colour))
    split = tw_log2, rows_per_item(rt.cpu_like, rows_path, inv, finite_affine, spec.wo, spec.ho,
                                   tw_log2, 1 if spec.ragged else spec.items)
    plan = None if plans is None else plans.get(split)
    if plan is None:
        plan = PLANS.get((rt, layout_key, wants_device_result(x), spec, split),
                         lambda: warp_plan(rt, x, spec, *split))
        if plans is not None:
            plans[split] = plan
    if not spec.ragged and x.dev is None:  # (the plan checked the rest: it serves every size)
        check_allocation(rt, x.nbytes, "the image")
    values = {**fixed, "affine": int32(finite_affine), "pf": int32(pf), **extra}
    operands = {"X": x}
    _bind_positions(rt, values, operands, kind, inv, coords, spec.wo, spec.ho)
    return plan, values, operands


#: the colour operations a kept call (_Again) takes: those whose words no check reads (the
#: kernels' arithmetic alone) and whose passes need nothing but their lists (ColorJitter's,
#: RandomBrightnessContrast's, HueSaturationValue's, ToGray's, GaussNoise's, ...); a list of
#: other codes takes warp_by's whole path every call
_AGAIN_CODES = frozenset(float(c) for c in (
    COL_AFFINE, COL_GAMMA, COL_GRAY, COL_SHUFFLE, COL_SOLARIZE, COL_POSTERIZE, COL_CONTRAST,
    COL_SATURATE, COL_HUE, COL_HSV, COL_AFFINE_MEAN, COL_NOISE, COL_HOLE, COL_SALT))


def _again_codes(colour: np.ndarray) -> tuple[float, ...] | None:
    """The live codes of a colour list for a kept call: the codes up to the first 0 (only 0s
    after it) of a one-item list (a plain C-contiguous float32 (1, k * COLOUR_WORDS) array, no
    table) whose codes are all of :data:`_AGAIN_CODES`; None for any other list."""
    if type(colour) is not np.ndarray or colour.dtype != np.float32 or colour.ndim != 2 \
            or colour.shape[0] != 1 or not colour.flags.c_contiguous \
            or colour.shape[1] < COLOUR_WORDS or colour.shape[1] % COLOUR_WORDS:
        return None
    codes = colour[0, ::COLOUR_WORDS].tolist()
    n = codes.index(0) if 0 in codes else len(codes)
    # (past the first 0, only 0s: the whole path checks the operations there too)
    if not _AGAIN_CODES.issuperset(codes[:n]) or any(codes[n:]):
        return None
    if COL_GRAY in codes[:n] and table_readers(colour.reshape(1, -1, COLOUR_WORDS)).any():
        return None  # (its table: the whole path checks it)
    return tuple(codes[:n])


def _again_key(image: Any, size: Any, sampling: Sampling, model: ModelInput, queue: Any,
               affine: bool, expand: bool, ragged: bool, coords: Coords | None,
               src_index: Any, colour: Any) -> tuple[tuple | None, Operand | None]:
    """(the key of :data:`_AGAIN`, the image's operand) for a call of one (H, W) or (H, W, C)
    host image in native byte order by one map to a ``size`` given as a tuple, without
    antialiasing and with no colour operations or only those of :data:`_AGAIN_CODES` (the
    checks and plan of others depend on their values); (None, None) for other calls. The key
    holds the runtime (last), the colour list's live codes (before it: they give its passes;
    None without colour), the image's layout (its dtype, axes and channels, not its sizes: a
    plan serves every size), the size, the map's kind and the identities of ``sampling`` and
    ``model`` (what a pipeline passes each call; the entry holds them, so their ids stay
    theirs)."""
    if type(image) is not np.ndarray or not 2 <= image.ndim <= 3 or not image.dtype.isnative \
            or type(size) is not tuple or ragged or expand or coords is not None \
            or src_index is not None or sampling.supersample or sampling.area:
        return None, None
    codes = None  # (no colour: not (), a list without live operations, whose kernel takes
    if colour is not None:  # the resampled values as colour operations take them)
        codes = _again_codes(colour)
        if codes is None:
            return None, None
    x = operand(image, "image")
    return (image_key(x), size, id(sampling), id(model), affine, codes,
            pick_runtime(queue, x)), x


class _Again(NamedTuple):
    """What :func:`warp_by` made of a call that another like it (:func:`_again_key`) takes
    as it is: its options (held), output, plan key's spec and layout, fixed values, plans (by
    work split) and its colour list's passes (each one's operations by row)."""

    sampling: Sampling
    model: ModelInput
    wo: int
    ho: int
    shape: tuple[int, ...]
    dtype: np.dtype  # the result's
    spec: WarpSpec
    layout_key: tuple
    fixed: dict
    plans: dict
    rows: list[list[int]]

    def warp(self, rt, x: Operand, matrix: Any, affine: bool, pending: list | None,
             into: np.ndarray | None, colour: np.ndarray | None) -> Any:
        """:func:`warp_by` of this call (``x``: its image's operand): the image's and the
        map's own checks, then the launch."""
        shape = x.host.shape
        if 0 in shape[:2]:
            raise ValueError(f"image has no pixels to sample: shape {shape}")
        mats = matrices(matrix, 1, False, "matrix" if affine else "homography")
        if affine:
            _check_affine(mats)
        plan, values, operands = _matrix_values(
            rt, x, self.layout_key, self.spec, COORD_MATRIX, geometry.invert_checked(mats),
            None, self.fixed, image_values(shape), self.plans)
        if colour is not None:  # (as the whole path binds them: a build may hold groups
            # whose launches read more than their list, a process's builds holding every group
            # it has had)
            _bind_passes(rt, values, _pass_lists(colour.reshape(-1, COLOUR_WORDS), self.rows),
                         self.spec.colour_groups, self.wo, self.ho, None, tables=False)
        if into is not None:
            into = _result_array(into, self.shape, self.dtype)
        res = plan.run(operands, values, pending, into)
        return (lambda: res) if pending is not None else res


#: warp_by's calls kept for the calls like them (_Again), by _again_key
_AGAIN = PlanCache(maxsize=256)


def _check_affine(mats: np.ndarray) -> None:
    """Refuse a perspective map where an affine one was asked for (``mats`` checked by
    matrix3)."""
    if not geometry.is_affine_checked(mats):
        raise ValueError("matrix is a perspective map (last row != (0, 0, 1)); use "
                         "warp_perspective")


class _Input:
    """A warp's input, checked: the image (or a ragged batch's list of them) and its layout,
    and the matrices of its output items (none where ``coords`` gives the positions)."""

    def __init__(self, image: Any, matrix: Any, affine: bool, src_index: Any, ragged: bool,
                 coords: Coords | None) -> None:
        arg = "matrix" if affine else "homography"
        self.image, self.ragged = image, ragged
        if ragged:
            shapes = [shape_hwc(a) for a in image]
            self.arr, self.restore = image[0], None
        else:
            self.arr, self.restore = as_image(image)
            shapes = [shape_hwc(self.arr)]
        self.shapes = shapes
        self.dt = dt = np.dtype(self.arr.dtype)
        if dt not in WARP_DTYPES:
            raise TypeError(f"image has dtype {dt}; warps take uint8, uint16, int32 or float32 "
                            "images (convert other dtypes first)")
        B, self.H, self.W, C, batched, out_shape = shapes[0]
        self.C = C
        for k, (_, h, w, _, _, _) in enumerate(shapes):
            if h == 0 or w == 0:
                what = f"image {k}" if ragged else "image"
                raise ValueError(f"{what} has no pixels to sample: shape "
                                 f"{tuple((image[k] if ragged else self.arr).shape)}")
        if ragged:  # one output item per image, a matrix each
            B = len(image)
            mats = matrix3(np.asarray(matrix, np.float64), stack=True)
            out_shape = lambda ho, wo: (B, ho, wo, C)  # noqa: E731  ((H, W) images: see warp_by)
        elif coords is not None:  # the positions come from maps or fields, checked by the caller
            mats = NO_MAP
            if src_index is not None:  # outputs of one image (Mosaic's atlas): one per index
                B = len(src_index)
                out_shape = lambda ho, wo: (B, ho, wo, C)  # noqa: E731
                self.restore = None
        elif src_index is not None:  # crops: one output item per matrix, from image src_index[k]
            K = len(src_index)
            mats = matrix3(np.asarray(matrix, np.float64).reshape(K, 3, 3), stack=True)
            out_shape = lambda ho, wo: (K, ho, wo, C)  # noqa: E731  (crop_rois passes BHWC)
            self.restore = None
        else:
            mats = matrices(matrix, B, batched, arg)
        # mats are checked (matrix3): is_affine and invert without checking them again
        if affine:
            _check_affine(mats)
        self.B, self.mats, self.out_shape = B, mats, out_shape

    def in_place(self, rt: Any) -> list | None:
        """A ragged batch's images as buffers of their own (``CL_MEM_USE_HOST_PTR``: read where
        they are), where ``rt``'s device reads host memory (a CPU) and every image is a
        C-contiguous host array of at least 4 elements (a uint8 image's 32-bit word reads end
        inside it); else None (they are packed)."""
        if not rt.zero_copy or not all(
                isinstance(a, np.ndarray) and a.flags.c_contiguous and a.size >= 4
                for a in self.image):
            return None
        flags = cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR
        for a in self.image:
            check_allocation(rt, a.nbytes, "an image of the batch")
        return [cl.Buffer(rt.context, flags, hostbuf=a) for a in self.image]

    def operand(self, regions: np.ndarray | None = None,
                in_place: list | None = None) -> tuple[Any, Any, dict]:
        """(the image operand, its layout's key for the plan cache, the ragged batch's extra
        values); a ragged batch's images packed whole, or only their ``regions``, or read where
        they are (``in_place``: their buffers, :meth:`in_place`): one launch per image, each
        with its own buffer and its own end (the per-item values of
        :meth:`~warpkit._op.Plan.run`), copying nothing."""
        if not self.ragged:
            src = operand(self.arr, "image")
            # a host image's sizes are values of each call (plan.image_values)
            return src, image_key(src), {} if src.dev is not None else \
                image_values(src.host.shape)
        key = ("ragged", self.dt, self.C)
        # the 32-bit word reads of uint8 pixels: the last start inside the buffer, and whether
        # the interior path's reads (4 bytes from a tap) stay inside each image's rows as the
        # kernel reads them (warp_plan)
        widths = [w for _, _, w, _, _, _ in self.shapes] if regions is None else \
            (regions[:, 2] - regions[:, 0] + 1).tolist()
        fits = all(h < 1 << 24 and w < 1 << 24 and h * w * c < 2**31 - 4 and rw * c + c >= 4
                   for (_, h, w, c, _, _), rw in zip(self.shapes, widths))
        if in_place is not None:
            self.rag = np.array([(0, h, w, w * c) for _, h, w, c, _, _ in self.shapes], np.int64)
            # (each item's dict keeps its image alive while its launch may run)
            items = [{"X": buf, "last_word": np.int64(a.size - 4), "image": a}
                     for buf, a in zip(in_place, self.image)]
            # (the call's own values are the first item's; each launch puts its item's)
            extra = {"X": in_place[0], "last_word": items[0]["last_word"],
                     "interior": np.int32(fits), "per_item": items}
            return operand(self.image[0].reshape(-1, self.C), "image"), key, extra
        packed, self.rag = pack(self.image, self.C, regions)
        n = len(packed) * self.C
        extra = {"last_word": np.int64(n - 4), "interior": np.int32(fits and n >= 4)}
        return operand(packed, "image"), key, extra


def _output_size(src: _Input, size: Any, expand: bool,
                 no_expand: bool) -> tuple[int, int, np.ndarray | None]:
    """(width, height) of the output, and the matrices shifted onto an ``expand`` canvas (None:
    as they are)."""
    mats = None
    if expand:
        if size is not None:
            raise ValueError("pass either size or expand=True, not both")
        if no_expand:
            raise ValueError("expand=True is not for ragged batches: pass size=")
        wo, ho, shift = expand_canvas(src.mats, src.W, src.H)
        mats = shift @ src.mats
    elif size is None:
        if src.ragged:
            raise ValueError("a ragged batch needs size= (its images differ in size)")
        wo, ho = src.W, src.H
    else:
        wo, ho = width_height(size, "size")
    if wo < 1 or ho < 1 or wo > 1 << 16 or ho > 1 << 16:
        raise ValueError(f"the output size must be between 1 and 65536 per axis, got {wo}x{ho}")
    return wo, ho, mats


def _positions(mats: np.ndarray, coords: Coords | None, wo: int, ho: int, B: int,
               sampling: Sampling) -> tuple[np.ndarray, list[int], int]:
    """(the src_from_dst maps the kernel takes, samples per axis per map (0: the map's
    footprints filtered by area, :func:`area_items`), the coordinate source)."""
    antialias = sampling.supersample
    inv = mats if coords is not None else geometry.invert_checked(mats)
    kind = COORD_MATRIX if coords is None else coords.kind
    if kind in (COORD_FIELD, COORD_AXES):  # per item or one for all: what the kernel indexes
        n = len(coords.chain if kind == COORD_FIELD else coords.axes)
        if n not in (1, B) or (kind == COORD_FIELD and coords.fi.shape[0] != n):
            raise ValueError(f"the coordinates must be given for each of the {B} items or one "
                             f"for all, got {n}")
    if kind == COORD_FIELD:  # the chain's maps; supersampling from their product
        chain = np.asarray(coords.chain, np.float64)
        inv = chain.reshape(-1, 3, 3)
        if antialias:
            outer = [np.linalg.multi_dot(c[::-1]) if len(c) > 1 else c[0] for c in chain]
            ss = supersampling(np.stack(outer), wo, ho)
        else:
            ss = [1] * len(chain)
    elif kind in (COORD_MAP, COORD_AXES):
        if kind == COORD_AXES and coords.axes.shape[-1] != wo + ho:  # what the kernel reads
            raise ValueError(f"the axes' tables must hold {wo} + {ho} positions, got "
                             f"{coords.axes.shape[-1]}")
        if antialias:
            raise ValueError("antialias needs positions between pixels, which a per-pixel map "
                             "does not give (shrink with a matrix or a field instead)")
        ss = [1]
    else:
        ss = supersampling(inv, wo, ho) if antialias else [1] * len(inv)
        if sampling.area:  # (matrices only: a per-pixel map or a chain bends the footprints)
            ss = [0 if a else n for a, n in zip(area_items(inv, wo, ho, sampling.area), ss)]
    return inv, ss, kind


def _work_split(kind: int, inv: np.ndarray, wo: int, ho: int) -> tuple[bool, int, int]:
    """(whether every map is affine with every source coordinate finite in float32, so that
    the kernel skips its NaN checks; the work-groups' shape, log2 of their width in blocks;
    the prefetch distance)."""
    if kind == COORD_MATRIX:
        finite_affine = all(m[2] == [0.0, 0.0, 1.0] and max(map(abs, m[0] + m[1])) <= 1e30
                            for m in inv.tolist())
        return (finite_affine, *schedule(inv, wo, ho, -(-wo // 8), finite_affine))
    # positions per pixel: tiles of 4 x 16 (narrow) or 16 x 4 work-items, each work-item
    # WarpSpec.blocks blocks of 8 pixels wide (docs/performance.md); no prefetch
    return False, 2 if -(-wo // 8) < 64 else 4, 0


def _bind_positions(rt, values: dict, operands: dict, kind: int, inv: np.ndarray,
                    coords: Coords | None, wo: int, ho: int) -> None:
    """The kernel's values and operands for where positions come from: the maps (matrices and
    chains; else fixed_values' identity), per-pixel maps, per-axis tables, the stages."""
    ro = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    if kind in (COORD_MATRIX, COORD_FIELD):
        values["M"] = cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
            inv.reshape(-1, 9), dtype=np.float32))
    if kind == COORD_MAP:
        operands.update(MX=coords.mx, MY=coords.my)
        values.update(mx_off=int64(device_layout(coords.mx)[0]),
                      my_off=int64(device_layout(coords.my)[0]),
                      map_item=int64(coords.map_item), map_xy=int32(coords.map_xy))
    elif kind == COORD_AXES:
        values.update(AX=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.axes, np.float32)),
                      ax_item=int64(wo + ho if len(coords.axes) > 1 else 0))
    elif kind == COORD_FIELD:
        values.update(FLD=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.fields, np.float32)),
                      FI=cl.Buffer(rt.context, ro, hostbuf=np.ascontiguousarray(
                          coords.fi, np.int32)),
                      nf=int32(coords.fi.shape[1]))


def warp_by_coords(image: Any, coords: Coords, size: tuple[int, int],
                   sampling: Sampling = LINEAR, **options: Any) -> Any:
    """Warp by source positions that are not one matrix per item (:class:`Coords`: maps,
    non-linear chains, per-axis tables), with :func:`warp_by`'s options (``queue``,
    ``model``): the engine behind pipelines with non-linear stages and ``remap``."""
    return warp_by(image, None, size, sampling, affine=False, coords=coords, **options)


def warp_each(images: Sequence[Any], homographies: Sequence[Any],
              sizes: Sequence[tuple[int, int]], sampling: Sampling = LINEAR,
              **options: Any) -> list:
    """Warp each image of a list (sizes may differ) with its own map and output size, as
    :func:`warp_by` would one by one (perspective maps allowed), but launched back to back with
    one wait at the end (a ragged batch of crops: one wait instead of one per image)."""
    pending: list[Callable] = []
    colour = options.pop("colour", None)  # a row per image
    kinds = {}  # (the images' dtypes and channels: each checks the colour rows once)
    if colour is not None:
        for img in images:
            a = img if hasattr(img, "dtype") else np.asarray(img)
            kinds.setdefault((np.dtype(a.dtype), int(a.shape[2]) if a.ndim == 3 else 1), None)
        for dt, channels in kinds:
            _colour_ops(colour, len(images), dt, channels, 0, 0)
    results = [warp_by(img, m, size, sampling, affine=False, pending=pending, **options,
                       **({} if colour is None else {"colour": colour[k:k + 1],
                                                      "colour_checked": True}))
               for k, (img, m, size) in enumerate(zip(images, homographies, sizes))]
    for wait in pending:
        wait()
    return [r() for r in results]


def warp_batch(images: Sequence[Any], homographies: Any, size: tuple[int, int],
               sampling: Sampling = LINEAR, **options: Any) -> Any:
    """:func:`warpkit.warp.warp_batch` with a checked ``sampling`` (its example and rules): a
    ragged batch warped in one call (read in place, a launch per image, on CPU devices; packed
    into one buffer and warped in one launch elsewhere), or warped one by one and stacked
    where it cannot be (device arrays, mixed kinds, Pillow images)."""
    images = list(images)
    if not images:
        raise ValueError("images is an empty list")
    mats = matrices(homographies, len(images), True, "homographies")
    if len(mats) != len(images):
        raise ValueError(f"homographies has {len(mats)} maps for {len(images)} images")
    first = [as_image(img) for img in images]
    arrays = [a for a, _ in first]
    restores = [r for _, r in first]
    kinds = {(a.dtype, a.ndim, a.shape[2:]) for a in arrays}  # (a dtype hashes faster than
    if len(kinds) > 1:  # its name)
        raise ValueError("images of a batch must share their dtype and channels, got "
                         + ", ".join(sorted(f"{d} {s or '(H, W)'}" for d, _, s in kinds)))
    if arrays[0].ndim not in (2, 3):
        raise ValueError(f"images must be (H, W) or (H, W, C) each, got {arrays[0].shape}")
    packable = all(isinstance(a, np.ndarray) for a in arrays)
    if not packable or any(r is not None for r in restores):
        if options.pop("into", None) is not None:  # Pillow images or device arrays
            _not_into()
        options.pop("pending", None)  # (warp_each waits for its own: a result, not pending)
        res = warp_each(images, mats, [size] * len(images), sampling, **options)
        return res if any(r is not None for r in restores) else stack(res)
    return warp_by(arrays, mats, size, sampling, affine=False, ragged=True, **options)
