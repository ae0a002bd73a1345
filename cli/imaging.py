"""``warpkit warp``, ``warpkit crop`` and ``warpkit augment``: warps, ROI crops and random
augmentation of image files."""

from __future__ import annotations

import json
import math
import os
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from warpkit.warp import INTERPOLATIONS, PADDINGS

from .coco import CocoSet
from ._io import DEFAULT_MAX_PIXELS, DeepImage, UserError, expand_inputs, open_image, parse_size
from ._io import check_dest, save_atomic, save_deep_atomic, save_json_atomic, set_max_pixels


# the choices come from warpkit's one table of options (canonical names; the API also takes
# the aliases)
Interp = Enum("Interp", {k: k for k in INTERPOLATIONS}, type=str)
Pad = Enum("Pad", {k: k for k in PADDINGS}, type=str)


class Flip(str, Enum):
    h = "h"
    v = "v"


# options both commands take, declared once
InterpOption = Annotated[Interp, typer.Option(help="Sampling.")]
PadOption = Annotated[Pad, typer.Option(help="Outside the image.")]
AntialiasOption = Annotated[bool, typer.Option(help="Average several samples when shrinking.")]
DeviceOption = Annotated[Optional[str], typer.Option(help="OpenCL device (as WARPKIT_DEVICE).")]
MaxPixelsOption = Annotated[int, typer.Option(
    help="Refuse images of more pixels than this (a small file can declare a huge image); "
         "0: no limit.")]


def _numbers(text: str, option: str, counts: tuple[int, ...] = (), forms: str = ""):
    """The numbers of an option's text ('0.8,1.2' or '0.8 1.2'): one number, or a tuple of
    several; ``counts``: how many may come (default: one or more)."""
    try:
        vals = [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        vals = []
    if not vals or (counts and len(vals) not in counts) or not all(map(math.isfinite, vals)):
        forms = (forms or " or ".join(",".join(["N"] * n) for n in counts)
                 or "comma-separated numbers")
        raise UserError(f"{option} must be {forms}, got {text!r}")
    return vals[0] if len(vals) == 1 else tuple(vals)


def _fill(text: str | None):
    if text is None:
        return 0
    return _numbers(text, "--fill", forms="a number or comma-separated numbers")


def _fill_for(img, fill):
    bands = len(img.getbands())
    if isinstance(fill, tuple) and len(fill) != bands:
        if img.mode in ("LA", "RGBA", "RGBA;16") and len(fill) == bands - 1:  # colour: opaque
            return fill + (65535.0 if isinstance(img, DeepImage) else 255.0,)
        raise UserError(f"--fill has {len(fill)} values, the image has {bands} channels")
    return fill


def _perspective(text: str):
    from warpkit import geometry as g

    points = text.split()
    if len(points) != 4:
        raise UserError("--perspective takes four point pairs x,y:u,v (source:destination)")
    src, dst = [], []
    for p in points:
        try:
            a, b = p.split(":")
            src.append([float(v) for v in a.split(",")])
            dst.append([float(v) for v in b.split(",")])
        except ValueError:
            raise UserError(f"--perspective pairs look like 10,20:12,18, got {p!r}") from None
    try:
        return g.perspective_from_points(src, dst)
    except ValueError as e:
        raise UserError(f"--perspective: {e}") from None


def _matrix(text: str):
    numbers = _numbers(text, "--matrix", (6, 9), "6 (affine) or 9 (perspective) numbers")
    m = np.array(numbers, np.float64).reshape(-1, 3)
    return np.vstack([m, [0, 0, 1]]) if m.shape[0] == 2 else m


def build_matrix(size, rotate, scale, translate, shear, flip, matrix, perspective):
    """The destination-from-source map the options describe, about the image centre:
    flip, then scale, shear and rotation about the centre, then translation."""
    from warpkit import geometry as g

    for name, v in (("--rotate", rotate), ("--scale", scale), ("--shear", shear),
                    ("--translate", translate)):
        if v is not None and not all(map(math.isfinite, v if isinstance(v, tuple) else [v])):
            raise UserError(f"{name} must be finite, got {v}")
    w, h = size
    simple = any(v is not None for v in (rotate, scale, translate, shear, flip))
    if matrix is not None or perspective is not None:
        if simple or (matrix is not None and perspective is not None):
            raise UserError("--matrix and --perspective replace the other transform options")
        return _matrix(matrix) if matrix is not None else _perspective(perspective)
    c = ((w - 1) / 2, (h - 1) / 2)
    steps = []
    if flip is not None:
        steps.append(g.flip(flip.value, (w, h)))
    if scale is not None:
        if scale <= 0:
            raise UserError(f"--scale must be > 0, got {scale}")
        steps.append(g.scale(scale, center=c))
    if shear is not None:
        steps.append(g.shear(shear, center=c))
    if rotate is not None:
        steps.append(g.rotation(rotate, center=c))
    if translate is not None:
        steps.append(g.translation(*translate))
    return g.compose(*steps) if steps else g.identity()


class _NoProgress:
    """Stands in for the bar where there is none to show (rich.progress takes ~25 ms to import:
    5% of a one-image warp)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def advance(self, task: int) -> None:
        return None


def _progress(total: int):
    """A rich progress bar on a terminal for several files."""
    if total < 2 or not os.isatty(2):
        return _NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    transient=True)


def _device(spec: str | None) -> None:
    if spec is not None:
        import warpkit

        try:
            warpkit.set_device(spec)
        except (ValueError, RuntimeError) as e:
            raise UserError(str(e)) from None


def _pixels(img):
    """What the warps take: the Pillow image, or a 16-bit colour image's array."""
    return img.array if isinstance(img, DeepImage) else img


def _wh(image) -> tuple[int, int]:
    """(width, height) of a Pillow image or an (H, W, ...) array."""
    return tuple(image.size) if not hasattr(image, "shape") else (image.shape[1], image.shape[0])


def _save(res, img, dest: Path, overwrite: bool, protected: set[Path]) -> None:
    """Write a result with its input's metadata, in the input's format unless dest names one."""
    fmt = None if dest.suffix else img.format
    if isinstance(img, DeepImage):
        save_deep_atomic(DeepImage(res, img.format, img.info), dest, fmt, overwrite, protected)
        return
    res.info.update({k: v for k, v in img.info.items() if k in ("icc_profile", "exif", "dpi")})
    save_atomic(res, dest, fmt, overwrite, protected)


def _message(e: Exception) -> str:
    """One line for a failure: the text of a user error or an OS error, else its type too."""
    if isinstance(e, UserError):
        return str(e)
    if isinstance(e, OSError) and e.strerror:
        return f"{e.strerror}" + (f": {e.filename}" if e.filename else "")
    if isinstance(e, (ValueError, TypeError)):
        return str(e)
    return f"{type(e).__name__}: {e}"


def _each_file(files: list[Path], label: str, one) -> None:
    """Run one(file) for every file under a progress bar. With several files a failure is
    reported on its own line and the rest go on; the command then fails with the count."""
    failures = 0
    with _progress(len(files)) as progress:
        task = progress.add_task(label, total=len(files))
        for f in files:
            try:
                one(f)
            except Exception as e:  # any one file's failure: one line, and the batch goes on
                msg = _message(e)
                if not msg.startswith(str(f)):
                    msg = f"{f}: {msg}"
                if len(files) == 1:
                    raise UserError(msg) from None
                failures += 1
                typer.echo(f"warpkit: {msg}", err=True)
            progress.advance(task)
    if failures:
        raise UserError(f"{failures} of {len(files)} files failed")


def _unique_outputs(pairs) -> None:
    """Refuse, before anything is written, two inputs that would write the same output."""
    seen: dict[Path, Path] = {}
    for src, dest in pairs:
        other = seen.setdefault(dest, src)
        if other != src:
            raise UserError(f"{other} and {src} would both be written to {dest}; rename one "
                            "or process them in separate runs")


def warp(
    inputs: list[str] = typer.Argument(..., help="Image files, directories or glob patterns."),
    output: str = typer.Option(..., "-o", "--output",
                               help="Output file (one input) or directory (several, or a path "
                                    "ending in /)."),
    rotate: Optional[float] = typer.Option(None, help="Degrees, counter-clockwise, about the centre."),
    scale: Optional[float] = typer.Option(None, help="Scale factor about the centre."),
    translate: Optional[tuple[float, float]] = typer.Option(
        None, metavar="DX DY", help="Shift in pixels, two numbers: --translate 12 -4."),
    shear: Optional[float] = typer.Option(None, help="Horizontal shear in degrees."),
    flip: Optional[Flip] = typer.Option(None, help="Mirror: h (left-right) or v (top-bottom)."),
    matrix: Optional[str] = typer.Option(
        None, help="6 or 9 numbers, row by row ('1,0,5,0,1,0'): a destination-from-source matrix "
                   "(OpenCV's convention)."),
    perspective: Optional[str] = typer.Option(
        None, help="Four point pairs 'x,y:u,v ...' mapping source points to destination points."),
    size: Optional[str] = typer.Option(None, help="Output WxH (default: the input's size)."),
    expand: bool = typer.Option(False, help="Grow the output to hold the whole warped image."),
    interpolation: InterpOption = Interp.linear,
    padding: PadOption = Pad.constant,
    fill: Optional[str] = typer.Option(None, help="Constant for padding: 0, or 255,255,255."),
    antialias: AntialiasOption = False,
    device: DeviceOption = None,
    overwrite: bool = typer.Option(False, help="Replace existing outputs (never an input)."),
    max_pixels: MaxPixelsOption = DEFAULT_MAX_PIXELS,
) -> None:
    """Warp images: rotate, scale, shear, flip, translate, any affine or perspective matrix.

    Positive --rotate turns the picture counter-clockwise about its centre (as Pillow and OpenCV);
    without --size the output keeps the input's size.
    """
    import warpkit

    files = expand_inputs(inputs)
    out_size = parse_size(size)
    if expand and out_size is not None:
        raise UserError("pass either --size or --expand")
    fill_v = _fill(fill)
    set_max_pixels(max_pixels)
    build_matrix((2, 2), rotate, scale, translate, shear, flip, matrix, perspective)  # checks
    as_dir = output.endswith(("/", os.sep))
    output = Path(output)
    many = len(files) > 1 or output.is_dir() or as_dir
    if many and output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; several inputs need an output directory")
    dests = {f: output / f.name if many else output for f in files}
    _unique_outputs(dests.items())
    _device(device)
    protected = {f.resolve() for f in files}

    def one(f: Path) -> None:
        img = open_image(f)
        m = build_matrix(img.size, rotate, scale, translate, shear, flip, matrix, perspective)
        fn = warpkit.warp_affine if warpkit.geometry.is_affine(m) else warpkit.warp_perspective
        res = fn(_pixels(img), m, size=out_size, interpolation=interpolation.value,
                 padding=padding.value, fill=_fill_for(img, fill_v), expand=expand,
                 antialias=antialias)
        _save(res, img, dests[f], overwrite, protected)

    _each_file(files, "warping", one)


def crop(
    input: Path = typer.Argument(..., help="The image file."),
    output: Path = typer.Option(..., "-o", "--output", help="Output directory."),
    box: Optional[list[str]] = typer.Option(None, help="x1,y1,x2,y2 in pixel-edge coordinates (repeatable)."),
    boxes: Optional[Path] = typer.Option(None, help="A JSON file: a list of [x1, y1, x2, y2]."),
    size: str = typer.Option(..., help="Patch size WxH."),
    interpolation: InterpOption = Interp.linear,
    padding: PadOption = Pad.constant,
    fill: Optional[str] = typer.Option(None, help="Constant for padding."),
    antialias: AntialiasOption = False,
    device: DeviceOption = None,
    overwrite: bool = typer.Option(False, help="Replace existing outputs."),
    max_pixels: MaxPixelsOption = DEFAULT_MAX_PIXELS,
) -> None:
    """Crop boxes out of an image and resize each to --size: writes OUTPUT/<name>_<k>.<ext>.

    Boxes are in pixel-edge coordinates: 0,0,W,H is the whole image, and a box the size of its
    output reproduces the pixels exactly.
    """
    import warpkit

    if not input.is_file():
        raise UserError(f"input not found: {input}")
    rects = [list(_numbers(b, "--box", (4,), "x1,y1,x2,y2")) for b in box or []]
    if boxes is not None:
        rects.extend(_boxes_file(boxes))
    if not rects:
        raise UserError("give at least one --box or --boxes")
    out_size = parse_size(size)
    fill_v = _fill(fill)
    set_max_pixels(max_pixels)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; crops go into a directory")
    protected = {input.resolve()}
    digits = len(str(len(rects) - 1))
    dests = [output / f"{input.stem}_{k:0{digits}d}{input.suffix}" for k in range(len(rects))]
    for dest in dests:  # every output is checked before any is written
        check_dest(dest, overwrite, protected)
    _device(device)
    img = open_image(input)
    try:
        patches = warpkit.crop_rois(_pixels(img), rects, out_size,
                                    interpolation=interpolation.value, padding=padding.value,
                                    fill=_fill_for(img, fill_v), antialias=antialias)
    except (ValueError, TypeError) as e:
        raise UserError(f"{input}: {e}") from None
    for p, dest in zip(patches, dests):
        try:
            _save(p, img, dest, overwrite, protected)
        except OSError as e:  # unwritable directory, full disk: one line
            raise UserError(f"{dest}: {_message(e)}") from None
    typer.echo(f"{len(patches)} crops written to {output}")


def _boxes_file(path: Path) -> list[list[float]]:
    """The boxes of a --boxes JSON file: a list of [x1, y1, x2, y2] lists of numbers."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise UserError(f"--boxes {path}: {_message(e)}") from None
    ok = isinstance(data, list) and all(
        isinstance(r, list) and len(r) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r)
        for r in data)
    if not ok:
        raise UserError(f"--boxes {path}: expected a JSON list of [x1, y1, x2, y2] lists of "
                        "numbers")
    return [[float(v) for v in r] for r in data]


def augment(
    inputs: list[str] = typer.Argument(..., help="Image files, directories or glob patterns."),
    output: Path = typer.Option(..., "-o", "--output", help="Output directory."),
    copies: int = typer.Option(1, min=1, help="Random warps per input."),
    seed: Optional[int] = typer.Option(
        None, help="Replay a run: each input's warps follow from the seed and its file name."),
    degrees: Optional[str] = typer.Option(None, metavar="D|LO,HI",
                                          help="Rotation: D for (-D, D), or LO,HI degrees."),
    translate: Optional[str] = typer.Option(
        None, metavar="F|FX,FY", help="Largest shift, a fraction of the size: F or FX,FY."),
    scale: Optional[str] = typer.Option(None, metavar="LO,HI|S",
                                        help="Zoom: LO,HI, or one fixed factor."),
    shear: Optional[str] = typer.Option(
        None, metavar="S|LO,HI", help="Horizontal shear: S for (-S, S), or LO,HI degrees."),
    hflip: float = typer.Option(0.0, help="Probability of a left-right flip."),
    vflip: float = typer.Option(0.0, help="Probability of a top-bottom flip."),
    size: Optional[str] = typer.Option(None, help="Output WxH (default: the input's size)."),
    interpolation: InterpOption = Interp.linear,
    padding: PadOption = Pad.reflection,
    fill: Optional[str] = typer.Option(None, help="Constant for --padding constant."),
    antialias: AntialiasOption = False,
    matrices: Optional[Path] = typer.Option(
        None, help="Also write a JSON file: each output's source file and 3x3 "
                   "destination-from-source matrix (to move annotations with it)."),
    pipeline: Optional[Path] = typer.Option(
        None, help="A JSON pipeline (warpkit.augment's Compose.to_dict) to run instead of the "
                   "random affine options; its own interpolation, padding and fill apply."),
    annotations: Optional[Path] = typer.Option(
        None, help="A COCO dataset (JSON) of the inputs: its boxes, polygon and RLE masks and "
                   "keypoints are moved with each copy into --annotations-output."),
    annotations_output: Optional[Path] = typer.Option(
        None, help="Where the augmented COCO dataset goes (default: "
                   "OUTPUT/<annotations name>_aug.json)."),
    device: DeviceOption = None,
    overwrite: bool = typer.Option(False, help="Replace existing outputs (never an input)."),
    max_pixels: MaxPixelsOption = DEFAULT_MAX_PIXELS,
) -> None:
    """Random affine warps of images for a training set: writes OUTPUT/<name>_aug<k>.<ext>.

    Each copy gets its own rotation, shift, zoom, shear and flips, about the image centre, or
    runs the --pipeline file. Without --seed a seed is drawn and printed, so that the run can be
    replayed. With --annotations the COCO objects of each input move with its copies.
    """
    import zlib

    import warpkit

    files = expand_inputs(inputs)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; augmented copies go into a directory")
    ranges = {"degrees": degrees, "translate": translate, "scale": scale, "shear": shear}
    if pipeline is not None:
        if any(v is not None for v in ranges.values()) or hflip or vflip or size:
            raise UserError("--pipeline replaces --degrees, --translate, --scale, --shear, "
                            "--hflip, --vflip and --size")
        aug = _load_pipeline(pipeline)
    else:
        try:
            given = {k: _numbers(v, f"--{k}", (1, 2)) for k, v in ranges.items() if v is not None}
            aug = warpkit.RandomAffine(
                **given, hflip=hflip, vflip=vflip, size=parse_size(size),
                interpolation=interpolation.value, padding=padding.value, antialias=antialias)
        except ValueError as e:  # RandomAffine's messages start with the argument's name
            raise UserError(f"--{e}") from None
    fill_v = _fill(fill)
    set_max_pixels(max_pixels)
    protected = {f.resolve() for f in files}
    digits = len(str(copies - 1))
    dests = {f: [output / f"{f.stem}_aug{k:0{digits}d}{f.suffix}" for k in range(copies)]
             for f in files}
    _unique_outputs((f, d) for f, ds in dests.items() for d in ds)
    coco = None
    if annotations is not None:
        coco = CocoSet(annotations)
        protected.add(annotations.resolve())
        annotations_output = annotations_output or output / f"{annotations.stem}_aug.json"
        if getattr(aug, "padding", padding.value) not in ("constant", "zeros"):
            typer.echo("warpkit: note: with padding other than constant, objects mirrored or "
                       "repeated into the border are not annotated (pass --padding constant "
                       "for detection and segmentation sets)", err=True)
    for extra in (matrices, annotations_output):
        if extra is None:
            continue
        if extra.resolve() in protected:
            raise UserError(f"refusing to overwrite the input {extra}")
        if extra.exists() and not overwrite:
            raise UserError(f"{extra} exists (pass --overwrite to replace it)")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] & 0x7FFFFFFF)
    _device(device)
    record: dict[str, dict] = {}

    def one(f: Path) -> None:
        img = open_image(f)
        pixels = _pixels(img)
        entry = None if coco is None else coco.entry(f, _wh(pixels))
        name_key = zlib.crc32(f.name.encode())
        if pipeline is not None:
            # copy k of a file: the pipeline's stream (seed, epoch k, index: the file name's
            # CRC), so a file's copies do not depend on the other inputs
            copies_made = []
            for k in range(copies):
                res = aug(image=pixels, seed=seed, epoch=k, index=name_key)
                copies_made.append((res["image"], res["matrix"], res["size"],
                                    {"params": res["params"]}))
        else:
            aug.fill = _fill_for(img, fill_v)
            # the input's own stream: its warps do not depend on the other inputs
            rng = np.random.default_rng([seed, name_key])
            outs, mats = aug([pixels] * copies, rng=rng, return_matrices=True)
            copies_made = [(r, m, _wh(r), {}) for r, m in zip(outs, mats)]
        for (res, m, out_size, extra), dest in zip(copies_made, dests[f]):
            moved = None if entry is None else coco.move(
                entry, m, out_size, getattr(aug, "min_visibility", 0.0),
                getattr(aug, "min_area", 0.0))
            _save(res, img, dest, overwrite, protected)
            record[dest.name] = {"source": str(f), "matrix": np.round(m, 12).tolist(), **extra}
            if entry is not None:
                coco.add(entry, dest, m, out_size, moved)

    try:
        _each_file(files, "augmenting", one)
    finally:
        if matrices is not None and record:
            save_json_atomic(record, matrices)
        if coco is not None and record:
            save_json_atomic(coco.out, annotations_output)
    typer.echo(f"{len(record)} images written to {output} (seed {seed})"
               + (f", annotations to {annotations_output}" if coco is not None else ""))


def _load_pipeline(path: Path):
    """A serialised pipeline (JSON of Compose.to_dict), or a one-line error."""
    from warpkit.augment import Compose

    try:
        return Compose.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError) as e:
        raise UserError(f"--pipeline {path}: {_message(e)}") from None
