"""``warpkit warp``, ``warpkit crop`` and ``warpkit augment``: warps, ROI crops and random
augmentation of image files."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer

from warpkit.warp import INTERPOLATIONS, PADDINGS

from .coco import CocoSet
from ._io import DEFAULT_MAX_PIXELS, DeepImage, UserError, expand_inputs, open_image, parse_size
from ._io import (check_dest, check_side_outputs, read_json, remove_stale_temporaries,
                  save_atomic, save_deep_atomic, save_json_atomic, set_max_pixels)


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


class Engine(str, Enum):
    local = "local"
    dask = "dask"


EngineOption = Annotated[Engine, typer.Option(
    help="local: this process; dask: a Dask cluster (pip install 'warpkit[dask]'), one OpenCL "
         "device per worker, outputs already written are skipped (restartable).")]
SchedulerOption = Annotated[Optional[str], typer.Option(
    help="--engine dask: the scheduler's address (tcp://host:8786); default: a local cluster.")]
WorkersOption = Annotated[Optional[int], typer.Option(
    min=1, help="--engine dask: worker processes of the local cluster (default: 2).")]
ManifestOption = Annotated[Optional[Path], typer.Option(
    help="--engine dask: the JSON-lines record of every file (default: "
         "OUTPUT/warpkit-manifest.jsonl).")]


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
        steps.append(g.flip(getattr(flip, "value", flip), (w, h)))
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


def file_message(f: Path | str, e: Exception) -> str:
    """One line for one file's failure, naming the file (both engines report these)."""
    msg = _message(e)
    return msg if msg.startswith(str(f)) else f"{f}: {msg}"


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
                msg = file_message(f, e)
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


# ---- the per-file work: picklable jobs, so that Dask workers (warpkit.dist) run this code ----

@dataclass(frozen=True)
class _SamplingJob:
    """The options every resampling command shares."""

    interpolation: str = "linear"
    padding: str = "constant"
    fill: Any = 0
    antialias: bool = False
    overwrite: bool = False
    max_pixels: int = DEFAULT_MAX_PIXELS


@dataclass(frozen=True)
class WarpJob(_SamplingJob):
    """One file's warp as ``warpkit warp`` does it (options already checked by the command)."""

    rotate: float | None = None
    scale: float | None = None
    translate: tuple[float, float] | None = None
    shear: float | None = None
    flip: str | None = None
    matrix: str | None = None
    perspective: str | None = None
    size: tuple[int, int] | None = None
    expand: bool = False

    def check(self) -> None:
        if self.expand and self.size is not None:
            raise UserError("pass either --size or --expand")
        build_matrix((2, 2), self.rotate, self.scale, self.translate, self.shear, self.flip,
                     self.matrix, self.perspective)

    def __call__(self, src: Path, dests: list[Path], protected: set[Path]) -> list[dict]:
        import warpkit

        set_max_pixels(self.max_pixels)
        img = open_image(src)
        m = build_matrix(img.size, self.rotate, self.scale, self.translate, self.shear,
                         self.flip, self.matrix, self.perspective)
        fn = warpkit.warp_affine if warpkit.geometry.is_affine(m) else warpkit.warp_perspective
        res = fn(_pixels(img), m, size=self.size, interpolation=self.interpolation,
                 padding=self.padding, fill=_fill_for(img, self.fill), expand=self.expand,
                 antialias=self.antialias)
        _save(res, img, dests[0], self.overwrite, protected)
        return [{"source": str(src), "output": str(dests[0]), "matrix": _rounded(m)}]


@dataclass(frozen=True)
class CropJob(_SamplingJob):
    """One file's crops as ``warpkit crop`` does them: ``boxes`` for every file, or
    ``boxes_by_name`` (file name -> boxes) where each file has its own; each patch resized to
    ``size`` (w, h)."""

    size: tuple[int, int] | None = None
    boxes: tuple = ()
    boxes_by_name: dict | None = None

    def rects(self, src: Path) -> list:
        if self.boxes_by_name is None:
            return list(self.boxes)
        if src.name not in self.boxes_by_name:
            raise UserError(f"{src}: no boxes for {src.name} in --boxes")
        return self.boxes_by_name[src.name]

    def dests(self, src: Path, output: Path) -> list[Path]:
        """The outputs; none for a file without boxes (which then fails alone, when run)."""
        if self.boxes_by_name is not None and src.name not in self.boxes_by_name:
            return []
        n = len(self.rects(src))
        digits = len(str(max(n - 1, 0)))
        return [output / f"{src.stem}_{k:0{digits}d}{src.suffix}" for k in range(n)]

    def __call__(self, src: Path, dests: list[Path], protected: set[Path]) -> list[dict]:
        import warpkit

        set_max_pixels(self.max_pixels)
        rects = self.rects(src)
        for dest in dests:  # every output is checked before any is written
            check_dest(dest, self.overwrite, protected)
        img = open_image(src)
        try:
            patches = warpkit.crop_rois(_pixels(img), rects, self.size,
                                        interpolation=self.interpolation, padding=self.padding,
                                        fill=_fill_for(img, self.fill), antialias=self.antialias)
        except (ValueError, TypeError) as e:
            raise UserError(f"{src}: {e}") from None
        out = []
        for p, dest, box in zip(patches, dests, rects):
            try:
                _save(p, img, dest, self.overwrite, protected)
            except OSError as e:  # unwritable directory, full disk: one line
                raise UserError(f"{dest}: {_message(e)}") from None
            out.append({"source": str(src), "output": str(dest), "box": list(box)})
        return out


@dataclass(frozen=True)
class AugmentJob:
    """One file's augmented copies as ``warpkit augment`` makes them: copy k follows from
    (seed, the file name's CRC, k) alone, whichever process makes it and whatever else runs."""

    copies: int
    seed: int
    pipeline: dict | None = None  #: a Compose.to_dict(), or None: RandomAffine(**affine)
    affine: dict | None = None
    fill: Any = 0
    overwrite: bool = False
    max_pixels: int = DEFAULT_MAX_PIXELS

    def transform(self):
        import warpkit
        from warpkit.augment import Compose

        if self.pipeline is not None:
            return Compose.from_dict(self.pipeline)
        return warpkit.RandomAffine(**self.affine)

    def dests(self, src: Path, output: Path) -> list[Path]:
        digits = len(str(self.copies - 1))
        return [output / f"{src.stem}_aug{k:0{digits}d}{src.suffix}" for k in range(self.copies)]

    def make(self, img, name: str, aug=None):
        """The copies of an opened image, one at a time as they are made (a file's copies are
        never all held: 64 copies of a 2000x1500 photo are 550 MiB): (result, matrix, size,
        extra record fields)."""
        import zlib

        aug = aug if aug is not None else self.transform()
        pixels = _pixels(img)
        name_key = zlib.crc32(name.encode())
        if self.pipeline is not None:
            # copy k of a file: the pipeline's stream (seed, epoch k, index: the file name's
            # CRC), so a file's copies do not depend on the other inputs
            for k in range(self.copies):
                res = aug(image=pixels, seed=self.seed, epoch=k, index=name_key)
                yield res["image"], res["matrix"], res["size"], {"params": res["params"]}
            return
        aug.fill = _fill_for(img, self.fill)
        # the input's own stream: its warps do not depend on the other inputs
        rng = np.random.default_rng([self.seed, name_key])
        for m in aug.matrices(self.copies, _wh(pixels), rng):
            res = aug.warp(pixels, m)
            yield res, m, _wh(res), {}

    def __call__(self, src: Path, dests: list[Path], protected: set[Path]) -> list[dict]:
        set_max_pixels(self.max_pixels)
        for dest in dests:  # every output is checked before any is written
            check_dest(dest, self.overwrite, protected)
        img = open_image(src)
        out = []
        for (res, m, _, extra), dest in zip(self.make(img, src.name), dests):
            _save(res, img, dest, self.overwrite, protected)
            out.append({"source": str(src), "output": str(dest), "matrix": _rounded(m), **extra})
        return out


def _rounded(m) -> list:
    return np.round(np.asarray(m, np.float64), 12).tolist()


def _tasks(files: list[Path], dests_of) -> list[tuple[Path, list[Path]]]:
    """(input, its outputs) for every file; two inputs writing one output are refused before
    anything is written."""
    tasks = [(f, dests_of(f)) for f in files]
    _unique_outputs((f, d) for f, ds in tasks for d in ds)
    return tasks


def _run_tasks(job, tasks, label: str, device: str | None, engine: "Engine",
               scheduler: str | None, workers: int | None, manifest: Path | None,
               output: Path, records: list | None = None) -> list[dict]:
    """Run a job over its tasks here (one file after another) or on a Dask cluster; either
    way a failing file is reported on its own line and the rest go on. The records of the
    outputs written go into ``records`` (also when some files fail) and are returned."""
    records = [] if records is None else records
    if engine == Engine.dask:
        from warpkit import dist

        try:
            summary = dist.run(job, tasks, output, scheduler=scheduler, n_workers=workers,
                               device=device, manifest=manifest, progress=label)
        except (ValueError, OSError, ImportError, TimeoutError) as e:
            raise UserError(_message(e)) from None
        records.extend(summary.records)
        for f in summary.failures:
            typer.echo(f"warpkit: {f}", err=True)
        typer.echo(summary.describe(), err=True)
        if summary.failures:
            raise UserError(f"{len(summary.failures)} of {len(tasks)} files failed")
        return records
    if scheduler is not None or workers is not None:
        raise UserError("--scheduler and --workers need --engine dask")
    _device(device)
    protected = {f.resolve() for f, _ in tasks}
    outputs = dict(tasks)
    # what an interrupted earlier run left half-written for these outputs
    remove_stale_temporaries([d for _, ds in tasks for d in ds])
    _each_file([f for f, _ in tasks], label,
               lambda f: records.extend(job(f, outputs[f], protected)))
    return records



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
    engine: EngineOption = Engine.local,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    manifest: ManifestOption = None,
) -> None:
    """Warp images: rotate, scale, shear, flip, translate, any affine or perspective matrix.

    Positive --rotate turns the picture counter-clockwise about its centre (as Pillow and OpenCV);
    without --size the output keeps the input's size.
    """
    files = expand_inputs(inputs)
    job = WarpJob(rotate=rotate, scale=scale, translate=translate, shear=shear,
                  flip=flip.value if flip is not None else None, matrix=matrix,
                  perspective=perspective, size=parse_size(size), expand=expand,
                  interpolation=interpolation.value, padding=padding.value, fill=_fill(fill),
                  antialias=antialias, overwrite=overwrite, max_pixels=max_pixels)
    job.check()
    set_max_pixels(max_pixels)
    as_dir = output.endswith(("/", os.sep))
    output = Path(output)
    many = len(files) > 1 or output.is_dir() or as_dir or engine == Engine.dask
    if many and output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; several inputs need an output directory")
    tasks = _tasks(files, lambda f: [output / f.name if many else output])
    _run_tasks(job, tasks, "warping", device, engine, scheduler, workers, manifest,
               output if many else output.parent)


def crop(
    inputs: list[str] = typer.Argument(..., help="Image files, directories or glob patterns."),
    output: Path = typer.Option(..., "-o", "--output", help="Output directory."),
    box: Optional[list[str]] = typer.Option(None, help="x1,y1,x2,y2 in pixel-edge coordinates (repeatable)."),
    boxes: Optional[Path] = typer.Option(
        None, help="A JSON file: a list of [x1, y1, x2, y2] (for every input), or an object "
                   "mapping file names to such lists."),
    size: str = typer.Option(..., help="Patch size WxH."),
    interpolation: InterpOption = Interp.linear,
    padding: PadOption = Pad.constant,
    fill: Optional[str] = typer.Option(None, help="Constant for padding."),
    antialias: AntialiasOption = False,
    device: DeviceOption = None,
    overwrite: bool = typer.Option(False, help="Replace existing outputs."),
    max_pixels: MaxPixelsOption = DEFAULT_MAX_PIXELS,
    engine: EngineOption = Engine.local,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    manifest: ManifestOption = None,
) -> None:
    """Crop boxes out of images and resize each to --size: writes OUTPUT/<name>_<k>.<ext>.

    Boxes are in pixel-edge coordinates: 0,0,W,H is the whole image, and a box the size of its
    output reproduces the pixels exactly.
    """
    files = expand_inputs(inputs)
    rects = [list(_numbers(b, "--box", (4,), "x1,y1,x2,y2")) for b in box or []]
    by_name = None
    if boxes is not None:
        given = _boxes_file(boxes)
        if isinstance(given, dict):
            if rects:
                raise UserError("--box and a --boxes object (boxes per file) do not mix")
            by_name = given
        else:
            rects.extend(given)
    if not rects and by_name is None:
        raise UserError("give at least one --box or --boxes")
    job = CropJob(size=parse_size(size), boxes=tuple(map(tuple, rects)), boxes_by_name=by_name,
                  interpolation=interpolation.value, padding=padding.value, fill=_fill(fill),
                  antialias=antialias, overwrite=overwrite, max_pixels=max_pixels)
    set_max_pixels(max_pixels)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; crops go into a directory")
    tasks = _tasks(files, lambda f: job.dests(f, output))
    records = _run_tasks(job, tasks, "cropping", device, engine, scheduler, workers, manifest,
                         output)
    typer.echo(f"{len(records)} crops written to {output}")


def _boxes_file(path: Path) -> list[list[float]] | dict[str, list[list[float]]]:
    """The boxes of a --boxes JSON file: a list of [x1, y1, x2, y2] lists of numbers, or an
    object mapping file names to such lists."""
    data = read_json(path, "--boxes")

    def rects(v) -> list[list[float]] | None:
        ok = isinstance(v, list) and all(
            isinstance(r, list) and len(r) == 4
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r)
            for r in v)
        return [[float(x) for x in r] for r in v] if ok else None

    if isinstance(data, dict):  # a file listed with no boxes is a mistake, not a no-op
        out = {str(k): rects(v) for k, v in data.items()}
        if out and all(v for v in out.values()):
            return out
    elif rects(data) is not None:
        return rects(data)
    raise UserError(f"--boxes {path}: expected a JSON list of [x1, y1, x2, y2] lists of "
                    "numbers, or an object mapping file names to non-empty such lists")


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
    engine: EngineOption = Engine.local,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    manifest: ManifestOption = None,
) -> None:
    """Random affine warps of images for a training set: writes OUTPUT/<name>_aug<k>.<ext>.

    Each copy gets its own rotation, shift, zoom, shear and flips, about the image centre, or
    runs the --pipeline file. Without --seed a seed is drawn and printed, so that the run can be
    replayed. With --annotations the COCO objects of each input move with its copies.
    """
    import warpkit

    files = expand_inputs(inputs)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; augmented copies go into a directory")
    ranges = {"degrees": degrees, "translate": translate, "scale": scale, "shear": shear}
    affine = None
    if pipeline is not None:
        if any(v is not None for v in ranges.values()) or hflip or vflip or size:
            raise UserError("--pipeline replaces --degrees, --translate, --scale, --shear, "
                            "--hflip, --vflip and --size")
        aug = _load_pipeline(pipeline)
    else:
        try:
            given = {k: _numbers(v, f"--{k}", (1, 2)) for k, v in ranges.items() if v is not None}
            affine = dict(**given, hflip=hflip, vflip=vflip, size=parse_size(size),
                          interpolation=interpolation.value, padding=padding.value,
                          antialias=antialias)
            aug = warpkit.RandomAffine(**affine)
        except ValueError as e:  # RandomAffine's messages start with the argument's name
            raise UserError(f"--{e}") from None
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] & 0x7FFFFFFF)
    job = AugmentJob(copies=copies, seed=seed,
                     pipeline=aug.to_dict() if pipeline is not None else None, affine=affine,
                     fill=_fill(fill), overwrite=overwrite, max_pixels=max_pixels)
    set_max_pixels(max_pixels)
    protected = {f.resolve() for f in files}
    tasks = _tasks(files, lambda f: job.dests(f, output))
    dests = dict(tasks)
    coco = None
    if annotations is not None:
        if engine == Engine.dask:
            raise UserError("--annotations runs with --engine local (the dataset is built in "
                            "one process)")
        coco = CocoSet(annotations)
        protected.add(annotations.resolve())
        annotations_output = annotations_output or output / f"{annotations.stem}_aug.json"
        if getattr(aug, "padding", padding.value) not in ("constant", "zeros"):
            typer.echo("warpkit: note: with padding other than constant, objects mirrored or "
                       "repeated into the border are not annotated (pass --padding constant "
                       "for detection and segmentation sets)", err=True)
    inputs = {f.resolve(): "the input" for f in files}
    for option, path in (("--pipeline", pipeline), ("--annotations", annotations)):
        if path is not None:
            inputs[path.resolve()] = f"the input {option} file"
    sides = [("--matrices", matrices, True), ("--annotations-output", annotations_output, True)]
    if engine == Engine.dask:
        from warpkit.dist import MANIFEST

        sides.append(("--manifest", manifest or output / MANIFEST, False))
    check_side_outputs([(o, p, r) for o, p, r in sides if p is not None], inputs,
                       {d.resolve() for _, ds in tasks for d in ds}, overwrite)
    record: dict[str, dict] = {}
    if coco is None:
        done: list[dict] = []
        try:
            _run_tasks(job, tasks, "augmenting", device, engine, scheduler, workers, manifest,
                       output, done)
        finally:
            for r in done:
                record[Path(r["output"]).name] = {k: v for k, v in r.items() if k != "output"}
            if matrices is not None and record:
                save_json_atomic(record, matrices)
    else:
        _device(device)

        def one(f: Path) -> None:
            img = open_image(f)
            entry = coco.entry(f, _wh(_pixels(img)))
            for (res, m, out_size, extra), dest in zip(job.make(img, f.name, aug), dests[f]):
                # a pipeline's non-linear stages move the objects as they move the pixels
                chain = aug.stages(extra["params"], _wh(_pixels(img)))[0] \
                    if "params" in extra else None
                moved = coco.move(entry, m, out_size, getattr(aug, "min_visibility", 0.0),
                                  getattr(aug, "min_area", 0.0), chain)
                _save(res, img, dest, overwrite, protected)
                record[dest.name] = {"source": str(f), "matrix": _rounded(m), **extra}
                coco.add(entry, dest, m, out_size, moved)

        remove_stale_temporaries([d for _, ds in tasks for d in ds])
        try:
            _each_file(files, "augmenting", one)
        finally:
            if matrices is not None and record:
                save_json_atomic(record, matrices)
            if record:
                save_json_atomic(coco.out, annotations_output)
    typer.echo(f"{len(record)} images written to {output} (seed {seed})"
               + (f", annotations to {annotations_output}" if coco is not None else ""))


def _load_pipeline(path: Path):
    """A serialised pipeline (JSON of Compose.to_dict) that writes image files, or a one-line
    error."""
    from warpkit.augment import Compose

    data = read_json(path, "--pipeline")
    try:
        aug = Compose.from_dict(data)
    except (ValueError, TypeError) as e:
        raise UserError(f"--pipeline {path}: {_message(e)}") from None
    except RecursionError:
        raise UserError(f"--pipeline {path}: transforms nested too deeply") from None
    if not isinstance(aug, Compose):
        raise UserError(f"--pipeline {path}: the top level must be a Compose (it sets the "
                        f"pipeline's interpolation, padding and fill), got {type(aug).__name__}: "
                        f"save Compose([...]).to_dict()")
    tensor = {k: v for k, v in (("output_dtype", aug.output_dtype), ("mean", aug.mean),
                                ("std", aug.std)) if v is not None}
    if aug.layout != "HWC":
        tensor["layout"] = aug.layout
    if tensor:
        given = ", ".join(f"{k}={v!r}" for k, v in tensor.items())
        raise UserError(f"--pipeline {path}: {given} make a model's tensor; the command writes "
                        "image files: leave output_dtype, mean, std and layout unset")
    return aug
