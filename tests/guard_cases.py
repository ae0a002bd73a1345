"""Every operator and fast path on inputs and results that touch unreadable pages (guardpage.py).

Run as ``python tests/guard_cases.py FAMILY`` (test_guard_pages.py does, in a subprocess, so a
fault fails that test instead of killing the test run). Each case is computed once on ordinary
memory, then with every array input and the result placed against a guard page (after the last
byte, before the first byte, and as a strided view with gaps between rows), and the results must
be identical. Before each case its name is printed, so a crash names the case that faulted.

``WARPKIT_GUARD_EVERY=N`` runs one case in N only: each family's first case and those whose
name's CRC-32 is a multiple of N (a fixed sample spread over every loop of a family, where a
stride would fall in step with one; the inputs drawn are the same either way). The default, 1,
runs them all: CI runs every case on PoCL. Intel's runtime ran an eighth of them until
2026-12-03 (160 s of CPU, which CI's 2 cores no longer had), Mesa's rusticl a sixth until
2026-12-02: its launches cost ~2 ms each, and each family's process compiles its kernels anew
on llvmpipe, which set that job's length whatever the sample.
"""

from __future__ import annotations

import itertools
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guardpage  # noqa: E402

import warpkit  # noqa: E402
from warpkit import _memory  # noqa: E402
from warpkit import geometry as g  # noqa: E402
from warpkit.warp import warp_batch  # noqa: E402

from warpkit._dtypes import BFLOAT16 as BF16  # noqa: E402

PLACEMENTS = ("end", "start", "view")
_pool_empty = _memory.HOST_POOL.empty
failures: list[str] = []
EVERY = int(os.environ.get("WARPKIT_GUARD_EVERY", "1"))
counts = [0, 0]  # cases run, cases met


def place(a, where):
    if not isinstance(a, np.ndarray):
        return a
    if where == "view":
        return guardpage.guarded_view(a, True)
    return guardpage.guarded(a, where == "end")


def results_at(where):
    """Results of every operator placed against a guard page too (they come from HOST_POOL)."""
    if where is None:
        _memory.HOST_POOL.empty = _pool_empty
    else:
        _memory.HOST_POOL.empty = lambda shape, dtype: guardpage.guarded_empty(
            shape, dtype, at_end=where != "start")


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


def run(name, fn, *arrays, **kw):
    counts[1] += 1
    if EVERY > 1 and counts[0] and zlib.crc32(name.encode()) % EVERY:
        return  # (a family's first case always runs)
    counts[0] += 1
    print("CASE", name, flush=True)
    results_at(None)
    ref = fn(*arrays, **kw)
    for where in PLACEMENTS:
        results_at(where)
        got = fn(*(place(a, where) for a in arrays), **kw)
        results_at(None)
        if not same(got, ref):
            failures.append(f"{name} [{where}]")
            print("MISMATCH", name, where, flush=True)
        del got
        guardpage.release()


def usable(dtypes):
    """The dtypes the device runs: float64 only where it has fp64 (elsewhere it is refused, as
    tests elsewhere check)."""
    fp64 = warpkit.get_runtime().fp64
    return [d for d in dtypes if fp64 or np.dtype(d) != np.float64]


def image(shape, dtype, rng):
    if np.dtype(dtype).kind not in "iu":
        return rng.standard_normal(shape).astype(dtype) * 100
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, shape, dtype=dtype)


def warp_family():
    rng = np.random.default_rng(0)
    forms = [lambda h, w: (h, w), lambda h, w: (h, w, 1), lambda h, w: (h, w, 2),
             lambda h, w: (h, w, 3), lambda h, w: (h, w, 4), lambda h, w: (2, h, w, 3)]
    heights = (1, 2, 3, 4, 5, 9)

    def maps(w, h):
        c = ((w - 1) / 2, (h - 1) / 2)
        return {"identity": g.identity(), "magnify-x": g.scale(8, 1),
                "rot30": g.rotation(30, c), "shrink": g.scale(0.4, center=c),
                "shift": g.translation(-0.5, -0.25),
                "persp": np.array([[1, 0.1, 0], [0.05, 1, 0], [0.01, 0.02, 1]])}

    dtypes = (np.uint8, np.uint16, np.int32, np.float32)
    modes = ("nearest", "linear", "cubic")
    pads = ("constant", "border", "reflection", "reflect_101")
    for k, (dt, form, mode, pad) in enumerate(itertools.product(dtypes, forms, modes, pads)):
        # uint8 and float32 have the 8-wide kernel and its fast paths: every map at every width
        every_map = dt in (np.uint8, np.float32)
        for w in range(1, 18):
            h = heights[(w + k) % len(heights)]
            shape = form(h, w)
            img = image(shape, dt, rng)
            all_maps = list(maps(w, h).items())
            for j, (name_m, m) in enumerate(all_maps if every_map else [all_maps[(w + k) % 6]]):
                fn = warpkit.warp_perspective if name_m == "persp" else warpkit.warp_affine
                size = [None, (8, h), (3 * w + 1, h + 2), (17, 3)][(w + 2 * k + j) % 4]
                aa = (w + k + j) % 3 == 0
                run(f"warp {np.dtype(dt)} {shape} {mode} {pad} {name_m} size={size} aa={aa}",
                    fn, img, m, size=size, interpolation=mode, padding=pad, fill=7,
                    antialias=aa)
    # the area filter (OpenCV's INTER_AREA): footprints that reach every edge and past it,
    # shrinking, enlarging, flipped, turned a quarter (and a turn, which samples linearly)
    area_maps = [("shrink", lambda w, h: g.scale(0.4, center=((w - 1) / 2, (h - 1) / 2))),
                 ("shrink-x", lambda w, h: g.scale(0.3, 1.7)),
                 ("flip", lambda w, h: g.scale(-0.6, 0.45, (w, 0))),
                 ("quarter", lambda w, h: np.array([[0, 0.7, 0], [-1.3, 0, w], [0, 0, 1.0]])),
                 ("rot30", lambda w, h: maps(w, h)["rot30"])]
    for k, (dt, form, pad) in enumerate(itertools.product(dtypes, forms,
                                                          (*pads, "constant_edge"))):
        for w in range(1, 18, 4):
            h = heights[(w + k) % len(heights)]
            img = image(form(h, w), dt, rng)
            name_m, m = area_maps[(w + k) % len(area_maps)]
            size = [None, (3 * w + 1, h + 2), (17, 3), (2, 1)][(w + 2 * k) % 4]
            run(f"warp area {np.dtype(dt)} {form(h, w)} {pad} {name_m} size={size}",
                warpkit.warp_affine, img, m(w, h), size=size, interpolation="area", padding=pad,
                fill=7)
    # constant_edge: the edge repeated from inside (taps past it), the fill outside; odd widths
    for k, (dt, form, mode) in enumerate(itertools.product(dtypes, forms, modes)):
        for w in range(1, 18, 2):
            h = heights[(w + k) % len(heights)]
            img = image(form(h, w), dt, rng)
            for j, (name_m, m) in enumerate((("magnify", g.scale(3, 2.5, (0.4, 0.2))),
                                             ("rot30", maps(w, h)["rot30"]))):
                size = [None, (3 * w + 1, h + 2), (17, 3)][(w + k + j) % 3]
                aa = (w + k + j) % 3 == 0
                run(f"warp {np.dtype(dt)} {img.shape} {mode} constant_edge {name_m} size={size} "
                    f"aa={aa}", warpkit.warp_affine, img, m, size=size, interpolation=mode,
                    padding="constant_edge", fill=7, antialias=aa)
    # ragged batches: on CPU devices each image is read where it is (placed against a guard
    # page: its own end is the buffer's), packed where it is a strided view ("view") or too
    # small to hold a 32-bit word (the 1 x 1 images)
    for k, (dt, form, mode) in enumerate(itertools.product(
            (np.uint8, np.float32, np.uint16), forms[:5], modes)):
        pad = (*pads, "constant_edge")[k % 5]
        batch = [image(form(h, w), dt, rng) for h, w in ((1, 1), (2, 5), (7, 3), (5, 17))]
        mats = np.stack([g.compose(g.rotation(25.0 * j, (2, 2)), g.scale(0.5 + 0.4 * j))
                         for j in range(len(batch))])
        run(f"warp ragged {np.dtype(dt)} {batch[-1].shape} {mode} {pad}",
            lambda *imgs, **kw: warp_batch(list(imgs), mats, **kw), *batch,
            size=(11, 6), interpolation=mode, padding=pad, fill=7,
            antialias=k % 3 == 0)
    # axis-aligned maps of uint8, linear and nearest: several rows per work-item (engine.coords.
    # rows_per_item; no floor on a launch's work-groups here, so that these small outputs take
    # them), a map whose first block's last lane reads the last column on every row among them
    from warpkit.engine import coords
    floor, coords.MIN_GROUPS = coords.MIN_GROUPS, 0
    try:
        for k, (form, pad) in enumerate(itertools.product(forms, (*pads, "constant_edge"))):
            for w in range(1, 18, 4):  # (9, 13 and 17 wide: a whole block in the interior)
                h = heights[(w + k) % len(heights)]
                img = image(form(h, w), np.uint8, rng)
                rows_maps = {"edge": g.translation(8.5 - w, -0.5), "magnify": g.scale(2.5, 1.7),
                             "flip": g.scale(-1.3, 0.6, (w / 2, 0)),
                             "fill": g.compose(g.scale(1.2), g.translation(3, 2))}
                for j, (name_m, m) in enumerate(rows_maps.items()):
                    size = [None, (3 * w + 1, h + 2), (17, 3), (9, 2 * h + 5)][(w + k + j) % 4]
                    run(f"warp rows {form(h, w)} {pad} {name_m} size={size}",
                        warpkit.warp_affine, img, m, size=size, padding=pad, fill=7)
                    if j < 2:  # nearest's rows path (masks): its words at the last columns
                        run(f"warp rows nearest {form(h, w)} {pad} {name_m} size={size}",
                            warpkit.warp_affine, img, m, size=size, interpolation="nearest",
                            padding=pad, fill=7)
    finally:
        coords.MIN_GROUPS = floor


def wide_family():
    """Images of 5 to 16 channels in one launch: uint8's word reads take a pixel's channels 4
    at a time (the last group's word runs past the pixel: clamped at the buffer's end), every
    dtype, mode and padding, the model's input with a value per channel, ragged batches."""
    rng = np.random.default_rng(9)
    # each (dtype, channels, mode) is a build of its own (27 of them took 107 s of a cold run):
    # every dtype with every mode, the channel counts in a Latin square over them, so each
    # pair of the three meets; a sampled run (the other platforms, whose builds are slow and
    # single-threaded) takes uint8 and float32 with 5 channels
    dtypes, counts = ((np.uint8, np.float32, np.uint16), (5, 8, 13)) if EVERY == 1 else \
        ((np.uint8, np.float32), (5,))
    modes = ("nearest", "linear", "cubic")
    for k, (i, j) in enumerate(itertools.product(range(len(dtypes)), range(3))):
        dt, c, mode = dtypes[i], counts[(i + j) % len(counts)], modes[j]
        pad = ("constant", "border", "reflection", "reflect_101")[k % 4]
        for w in (1, 2, 3, 9, 17):
            h = 1 + (w + k) % 5
            img = image((h, w, c), dt, rng)
            m = [g.scale(8, 1), g.rotation(20, ((w - 1) / 2, (h - 1) / 2)),
                 g.translation(-0.5, -0.25)][(w + k) % 3]
            size = [(8, h), (3 * w + 1, h + 2), (17, 3)][(w + k) % 3]
            aa = (w + k) % 4 == 0
            run(f"wide {np.dtype(dt)} {img.shape} {mode} {pad} size={size} aa={aa}",
                warpkit.warp_affine, img, m, size=size, interpolation=mode, padding=pad,
                fill=list(range(c)), antialias=aa)
            if w in (2, 17):
                run(f"wide model input {np.dtype(dt)} {img.shape} {mode} {pad} size={size}",
                    warpkit.warp_affine, img, m, size=size, interpolation=mode, padding=pad,
                    output_dtype="float32", mean=[0.1 * j for j in range(c)], std=0.5,
                    layout=("HWC", "CHW")[k % 2])
        batch = [image((1 + j, 3 + 2 * j, c), dt, rng) for j in range(3)]
        mats = np.stack([g.rotation(10 * j) for j in range(3)])
        run(f"wide ragged {np.dtype(dt)} c={c} {mode}",
            lambda *imgs, **kw: warp_batch(list(imgs), mats, **kw), *batch, size=(9, 4),
            interpolation=mode, padding=pad)


def model_input_family():
    """The warps' normalised float32 / float16 outputs, channels last and first: every store path
    of the fused normalisation (8-wide interior, 8-wide general, partial blocks, general kernel)."""
    rng = np.random.default_rng(5)
    # every (dtype, output dtype, layout): the kernel (dtype) and its store (the other two);
    # the channel counts and modes spread over them so that each dtype meets every count and
    # mode and each store three counts and every mode (the whole product, 144 builds, took
    # 75 s of a cold run)
    for k, (dt, odt, layout) in enumerate(itertools.product(
            (np.uint8, np.float32, np.uint16), ("float32", "float16"), ("HWC", "CHW"))):
        c, mode = (None, 1, 3, 4)[(k + k // 4) % 4], ("nearest", "linear", "cubic")[k % 3]
        pad = ("constant", "reflect_101")[k % 2]
        for w in (1, 2, 9, 17):
            h = 1 + (w * 3) % 7
            shape = (h, w) if c is None else (h, w, c)
            img = image(shape, dt, rng)
            for j, m in enumerate((g.scale(8, 1), g.rotation(20, ((w - 1) / 2, (h - 1) / 2)))):
                size = [(8, h), (3 * w + 1, h + 2)][(w + j) % 2]
                run(f"model input {np.dtype(dt)} {shape} {mode} {pad} {odt} {layout} map{j} "
                    f"size={size}", warpkit.warp_affine, img, m, size=size, interpolation=mode,
                    padding=pad, output_dtype=odt, mean=0.5, std=0.25, layout=layout,
                    antialias=(w + j) % 3 == 0)


def crop_family():
    rng = np.random.default_rng(1)
    for dt, c, mode, pad in itertools.product((np.uint8, np.float32), (None, 1, 3, 4),
                                              ("nearest", "linear", "cubic"),
                                              ("constant", "border", "reflection")):
        for w in (1, 2, 3, 7, 9, 17):
            h = 1 + w % 5
            shape = (h, w) if c is None else (h, w, c)
            img = image(shape, dt, rng)
            boxes = np.array([[0, 0, w, h], [-2, -1, w / 2, h + 3], [w + 1, h + 1, w + 5, h + 4],
                              [0.3, 0.2, 0.9, 0.8]], np.float64)
            for size in ((1, 1), (8, 3), (9, 5)):
                run(f"crop {np.dtype(dt)} {shape} {mode} {pad} size={size}", warpkit.crop_rois,
                    img, boxes, size, interpolation=mode, padding=pad, fill=3)
    batch = image((3, 4, 5, 3), np.uint8, rng)
    run("crop batch", warpkit.crop_rois, batch, np.array([[0, 0, 5, 4], [1, 1, 3, 3]]), (8, 8),
        batch_indices=np.array([2, 0]))


def grid_sample_family():
    rng = np.random.default_rng(2)
    dtypes = usable([np.float32, np.float16, np.float64, np.uint8, np.int32, np.int64, np.bool_,
                     BF16])
    for k, (dt, mode, pad, align) in enumerate(itertools.product(
            dtypes, ("nearest", "linear", "cubic"), ("zeros", "border", "reflection"), (0, 1))):
        for rank, sizes in ((1, [(w,) for w in (1, 2, 3, 9, 17)]),
                            (2, [(h, w) for w in range(1, 18) for h in (1 + (w % 4),)]),
                            (3, [(1, 1, 1), (2, 3, 5), (3, 2, 9)])):
            if rank != 2 and dt not in (np.float32, np.int32):
                continue
            if rank == 2 and dt not in (np.float32,) and sizes and len(sizes) > 6:
                sizes = sizes[::4]
            for s in sizes:
                c = 1 + (sum(s) + k) % 4
                n = 1 + (sum(s) % 2)
                X = image((n, c, *s), dt, rng) if dt != np.bool_ else rng.random((n, c, *s)) > 0.5
                out = tuple(1 + (v * 3 + k) % 11 for v in s)
                for gdt in usable((np.float32, np.float64)) if rank == 2 else (np.float32,):
                    grid = rng.uniform(-1.3, 1.3, (n, *out, rank)).astype(gdt)
                    grid.reshape(-1, rank)[::5] = 1.0  # exact edges
                    run(f"grid_sample {np.dtype(dt)} X{X.shape} grid{grid.shape} {np.dtype(gdt)} "
                        f"{mode} {pad} align={align}", warpkit.grid_sample, X, grid, mode=mode,
                        padding_mode=pad, align_corners=align)
    # the CPU fast paths: 2-D float32, packed float32 grid, wide rows (prefetch, whole blocks)
    for mode, pad in itertools.product(("nearest", "linear", "cubic"),
                                       ("zeros", "border", "reflection")):
        X = image((2, 3, 13, 40), np.float32, rng)
        theta = np.array([[[0.9, -0.3, 0.05], [0.3, 0.9, 0.0]]] * 2, np.float32)
        grid = warpkit.affine_grid(theta, (2, 3, 24, 70))
        run(f"grid_sample fast {mode} {pad}", warpkit.grid_sample, X, grid, mode=mode,
            padding_mode=pad)


def affine_grid_family():
    rng = np.random.default_rng(3)
    for dt in usable((np.float32, np.float16, np.float64, BF16)):
        for align in (0, 1):
            for size in ((1, 1, 1, 1), (2, 3, 5, 7), (1, 1, 3, 17), (2, 1, 2, 3, 9)):
                r = len(size) - 2
                theta = rng.standard_normal((size[0], r, r + 1)).astype(dt)
                run(f"affine_grid {np.dtype(dt)} {size} align={align}",
                    lambda t, **kw: warpkit.affine_grid(t, size, **kw), theta,
                    align_corners=align)


def roi_align_family():
    rng = np.random.default_rng(4)
    dtypes = usable([np.float32, np.float16, np.float64, BF16])
    for dt, mode, sr, half in itertools.product(dtypes, ("avg", "max"), (0, 2),
                                                ("half_pixel", "output_half_pixel")):
        for c in (1, 2, 3, 7, 8, 9, 16):
            h, w = 1 + c % 5, 1 + (3 * c) % 9
            X = rng.standard_normal((2, c, h, w)).astype(dt)
            rois = np.array([[0, 0, w, h], [-2, -1, w / 2, h + 2], [w - 1, h - 1, w + 3, h + 1],
                             [0.5, 0.5, 0.7, 0.9]], dt)
            bi = np.array([0, 1, 1, 0], np.int64)
            run(f"roi_align {np.dtype(dt)} C={c} {h}x{w} {mode} sr={sr} {half}",
                warpkit.roi_align, X, rois, bi, mode=mode, output_height=1 + c % 3,
                output_width=2 + c % 4, sampling_ratio=sr, coordinate_transformation_mode=half)


def remap_family():
    """remap: the image and both maps against guard pages (planes and one (Ho, Wo, 2) array,
    one map for a batch and one per image), every width of output up to 17 (full and partial
    8-pixel blocks), positions inside, outside, NaN and at the last pixel."""
    rng = np.random.default_rng(11)
    dtypes = (np.uint8, np.uint16, np.float32)
    for k, (dt, c, mode, pad) in enumerate(itertools.product(
            dtypes, (None, 1, 3, 4), ("nearest", "linear", "cubic"),
            ("constant", "border", "reflection", "reflect_101"))):
        for wo in (1, 7, 8, 9, 17):
            h, w = 1 + (wo + k) % 5, 1 + (wo * 3 + k) % 9
            shape = (h, w) if c is None else (h, w, c)
            ho = 1 + (wo + k) % 4
            mx = rng.uniform(-2, w + 1, (ho, wo)).astype(np.float32)
            my = rng.uniform(-2, h + 1, (ho, wo)).astype(np.float32)
            mx[0, -1], my[0, -1] = w - 1, h - 1  # the last pixel, whose word read is clamped
            if wo > 2:
                mx[-1, 1] = np.nan
            img = image(shape, dt, rng)
            name = f"remap {np.dtype(dt)} {shape} {mode} {pad} out {wo}x{ho}"
            kw = dict(interpolation=mode, padding=pad, fill=5)
            if k % 2:
                run(name + " xy", lambda i, m: warpkit.remap(i, m, **kw), img,
                    np.stack([mx, my], -1))
            else:
                run(name, lambda i, a, b: warpkit.remap(i, a, b, **kw), img, mx, my)
            if k % 5 == 0 and c is not None:
                batch = np.stack([img, img[::-1]])
                per = np.stack([mx, mx[::-1]]), np.stack([my, my])
                run(name + " batch", lambda i, a, b: warpkit.remap(i, a, b, **kw), batch, *per)


def fields_family():
    """The non-linear transforms' displacement fields in the warp kernels (both kernels: uint8
    and float32 8-wide, uint16 and antialiasing general), every width of output up to 17."""
    from warpkit.augment import (Compose, ElasticTransform, GridDistortion, GridElasticDeform,
                                 PiecewiseAffine, ThinPlateSpline)

    rng = np.random.default_rng(13)
    steps = [ElasticTransform(alpha=80, sigma=3, p=1), GridDistortion(p=1),
             ThinPlateSpline(p=1), PiecewiseAffine(scale=0.1, p=1),
             PiecewiseAffine(scale=0.1, p=1, method="triangles"),
             GridElasticDeform((3, 3), magnitude=4)]
    dtypes, channels = (np.uint8, np.uint16, np.float32), (None, 3, 4)
    modes = ("nearest", "linear", "cubic")
    # each (dtype, channels, interpolation) is a build of its own for each field's kind: a
    # covering set in which every pair of the three meets (i, j, i + j modulo 3), each with both
    # paddings, the fields in turn (every field meets every dtype), not all 54 (52 s of compiles
    # no other test shared, in a cold run on 2026-12-03)
    cases = [(dtypes[i], channels[j], modes[(i + j) % 3], pad)
             for i in range(3) for j in range(3) for pad in ("constant", "reflect_101")]
    for k, (dt, c, mode, pad) in enumerate(cases):
        t = steps[k % len(steps)]
        for w in (1, 8, 9, 17):
            h = 1 + (w + k) % 6
            shape = (h, w) if c is None else (h, w, c)
            img = image(shape, dt, rng)
            pipe = Compose([t], interpolation=mode, padding=pad, fill=3, antialias=k % 4 == 0)
            run(f"fields {type(t).__name__} {np.dtype(dt)} {shape} {mode} {pad}",
                lambda i: pipe(image=i, seed=k)["image"], img)


def colour_family():
    """Colour passes after the warp (CLAHE's three launches, an Equalize's in the same
    kernels, a grid of holes, a MaskDropout's runs and a blur's two, an unsharp mask's three, a zoom blur's table,
    a mean's and an ISONoise's lightness sums (a snow's HLS after it), a morphological
    erosion's neighbours, a chromatic aberration's lens, a plasma's brightened sums,
    FancyPCA's channel sums, a downscale's gather and another's two resamplings, a
    JPEG round trip's blocks and planes) storing the result, uint8 and
    float32, 1 and 3 channels, outputs 1 to 17 pixels wide."""
    from warpkit.augment import (CLAHE, ChromaticAberration, Compose, Downscale, Equalize,
                                 FancyPCA, GaussianBlur, GridDropout, ImageCompression, ISONoise,
                                 MaskDropout, Morphological, PlasmaBrightnessContrast,
                                 RandomAffine,
                                 RandomBrightnessContrast,
                                 RandomSnow, UnsharpMask, ZoomBlur)

    rng = np.random.default_rng(17)
    steps = [[RandomBrightnessContrast(p=1), CLAHE(clip_limit=(2, 2), tile_grid_size=(3, 2), p=1)],
             [GaussianBlur(sigma_limit=(0.8, 0.8), p=1), CLAHE(tile_grid_size=(1, 5), p=1)],
             [CLAHE(clip_limit=(1, 1), p=1), RandomBrightnessContrast(brightness_by_max=False,
                                                                      p=1)],
             [Downscale(scale_range=(0.3, 0.3), p=1),
              Downscale((0.4, 0.4), {"downscale": 3, "upscale": 2}, p=1), GaussianBlur(p=1)],
             [ImageCompression(quality_range=(30, 30), p=1), RandomBrightnessContrast(p=1)],
             [Equalize(p=1), Equalize(mode="pil", by_channels=False, p=1)],
             [GridDropout(holes_number_xy=(2, 3), fill="random", p=1),
              MaskDropout(max_objects=(1, 2), fill=9, p=1), GaussianBlur(p=1)],
             [FancyPCA(alpha=1.0, p=1), RandomBrightnessContrast(p=1)],
             [UnsharpMask(blur_limit=(7, 7), alpha=(1, 1), threshold=2, p=1),
              RandomBrightnessContrast(p=1)],
             [ZoomBlur(max_factor=(1.6, 1.6), step_factor=(0.2, 0.2), p=1)],
             [Morphological(scale=(4, 7), operation="erosion", p=1)],
             [PlasmaBrightnessContrast(brightness_range=(0.3, 0.3), contrast_range=(0.5, 0.5),
                                       p=1)],
             [ISONoise(intensity=(1, 1), p=1), RandomSnow(snow_point_range=(0.8, 0.8), p=1)],
             [ChromaticAberration(primary_distortion_limit=(0.9, 0.9), p=1)]]
    # (the last two: RGB only). Each dtype and channel count is a build of its own for each
    # step: each step meets one of the four pairings, in turn from step to step (uint8 and
    # float32, 1 and 3 channels, each met by half the steps and each pairing by a quarter), at
    # every width. Two pairings a step took 85 s of compiles in a cold run on 2026-12-03 that
    # no other test shared (all four, 77 s of an earlier CI run's on a faster host)
    pairings = [(np.uint8, 3), (np.float32, None), (np.uint8, None), (np.float32, 3)]
    for k, (dt, c, w) in enumerate(itertools.product((np.uint8, np.float32), (None, 3),
                                                     (1, 9, 17))):
        h = 1 + (w + k) % 6
        shape = (h, w) if c is None else (h, w, c)
        img = image(shape, dt, rng) if dt == np.uint8 else rng.random(shape, np.float32)
        for j, t in enumerate(steps if c else steps[:-2]):
            if j < len(steps) - 2 and pairings[j % 4] != (dt, c):
                continue
            if j >= len(steps) - 2 and dt != (np.uint8, np.float32)[j % 2]:
                continue
            pipe = Compose([RandomAffine(degrees=20, size=(w + 2, h + 3)), *t])
            if any(isinstance(s, MaskDropout) for s in t):  # (the mask at a page's end too)
                # (its objects: the brighter half of the first channel's pixels)
                mask = ((img if c is None else img[..., 0]) > np.median(img)).astype(np.uint8)
                run(f"colour {j} {np.dtype(dt)} {shape}",
                    lambda i, m: pipe(image=i, mask=m, seed=k)["image"], img, mask)
                continue
            run(f"colour {j} {np.dtype(dt)} {shape}", lambda i: pipe(image=i, seed=k)["image"],
                img)


FAMILIES = {"colour": colour_family, "fields": fields_family, "remap": remap_family,
            "warp": warp_family, "wide": wide_family, "model_input": model_input_family,
            "crop": crop_family, "grid_sample": grid_sample_family,
            "affine_grid": affine_grid_family, "roi_align": roi_align_family}

if __name__ == "__main__":
    if len(sys.argv) > 2:
        warpkit.set_device(sys.argv[2])
    FAMILIES[sys.argv[1]]()
    if failures:
        print(f"{len(failures)} cases differ on guarded memory:", *failures[:50], sep="\n")
        sys.exit(1)
    print(f"RAN {counts[0]} OF {counts[1]} CASES", flush=True)
    print("ALL OK", flush=True)
