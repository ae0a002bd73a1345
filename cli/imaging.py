"""``warpkit warp``, ``warpkit crop`` and ``warpkit augment``: warps, ROI crops and random
augmentation of image files."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from PIL import Image

from warpkit._options import INTERPOLATIONS, PADDINGS, Sampling
from warpkit.augment import Compose, Mosaic, RandomAffine, TextImage, from_albumentations
from warpkit.augment._albumentations import is_albumentations_data
from warpkit.augment._base import all_steps, contains, shared_keys
from warpkit.augment._mask_dropout import mask_reader
from warpkit.augment._overlay import overlay_keys
from warpkit.fileio import (DEFAULT_MAX_PIXELS, CocoSet, UserError, check_side_outputs,
                            expand_inputs, parse_size, read_json, save_json_atomic,
                            set_max_pixels)
from warpkit.files import (AugmentJob, CropJob, WarpJob, augment_annotated, message, numbers,
                           overlay_element, parse_fill, reference_array, run_local, tasks)
from warpkit.labelfiles import LabelFolder


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


class AnnotationFormat(str, Enum):
    coco = "coco"
    yolo = "yolo"
    voc = "voc"


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



def _run_tasks(job, todo, label: str, device: str | None, engine: Engine,
               scheduler: str | None, workers: int | None, manifest: Path | None,
               output: Path, records: list | None = None) -> list[dict]:
    """Run a job over its tasks here (:func:`warpkit.files.run_local`) or on a Dask cluster
    (:func:`warpkit.dist.run`); either way a failing file is reported on its own line and the
    rest go on. The records of the outputs written go into ``records`` (also when some files
    fail) and are returned."""
    records = [] if records is None else records
    if engine == Engine.dask:
        from warpkit import dist

        try:
            summary = dist.run(job, todo, output, scheduler=scheduler, n_workers=workers,
                               device=device, manifest=manifest, progress=label)
        except (ValueError, OSError, ImportError, TimeoutError) as e:
            raise UserError(message(e)) from None
        records.extend(summary.records)
        for f in summary.failures:
            typer.echo(f"warpkit: {f}", err=True)
        typer.echo(summary.describe(), err=True)
        if summary.failures:
            raise UserError(f"{len(summary.failures)} of {len(todo)} files failed")
        return records
    if scheduler is not None or workers is not None:
        raise UserError("--scheduler and --workers need --engine dask")
    return run_local(job, todo, label, device, records, _echo)


def _echo(line: str) -> None:
    typer.echo(line, err=True)


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
                  sampling=Sampling.of(interpolation.value, padding.value, parse_fill(fill),
                                       antialias),
                  overwrite=overwrite, max_pixels=max_pixels)
    job.check()
    set_max_pixels(max_pixels)
    as_dir = output.endswith(("/", os.sep))
    output = Path(output)
    many = len(files) > 1 or output.is_dir() or as_dir or engine == Engine.dask
    if many and output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; several inputs need an output directory")
    todo = tasks(files, lambda f: [output / f.name if many else output])
    _run_tasks(job, todo, "warping", device, engine, scheduler, workers, manifest,
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
    rects = [list(numbers(b, "--box", (4,), "x1,y1,x2,y2")) for b in box or []]
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
                  sampling=Sampling.of(interpolation.value, padding.value, parse_fill(fill),
                                       antialias),
                  overwrite=overwrite, max_pixels=max_pixels)
    set_max_pixels(max_pixels)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; crops go into a directory")
    todo = tasks(files, lambda f: job.dests(f, output))
    records = _run_tasks(job, todo, "cropping", device, engine, scheduler, workers, manifest,
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
    ctx: typer.Context,
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
        None, help="A JSON pipeline (warpkit.augment's Compose.to_dict, or albumentations' "
                   "A.save / A.to_dict, converted by from_albumentations; YAML where named "
                   ".yaml or .yml, as A.save(..., data_format='yaml') writes) to run instead of "
                   "the random affine options; its own interpolation, padding, fill and "
                   "antialias apply (those options are refused beside it)."),
    reference: Optional[list[Path]] = typer.Option(
        None, help="A reference image for the pipeline's HistogramMatching or FDA (give it "
                   "once per image: each copy chooses one of them, as its hm_metadata or "
                   "fda_metadata list)."),
    overlay: Optional[list[Path]] = typer.Option(
        None, help="An element for the pipeline's OverlayElements (give it once per element): "
                   "every copy pastes each of them at a place it draws, converted to the "
                   "input's mode; a transparent image's alpha selects the pixels pasted."),
    annotations: Optional[Path] = typer.Option(
        None, help="The inputs' annotations, moved with each copy: a COCO dataset (JSON; its "
                   "boxes, polygon and RLE masks and keypoints go into --annotations-output), "
                   "or with --annotation-format yolo/voc a folder of label files, one per "
                   "image (<image name>.txt / .xml), whose boxes go into a file beside each "
                   "copy."),
    annotation_format: AnnotationFormat = typer.Option(
        AnnotationFormat.coco, help="coco: a COCO JSON dataset; yolo: Ultralytics' 'class cx "
                                    "cy w h' .txt files; voc: Pascal VOC .xml files."),
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
    runs the --pipeline file. Without --seed the pipeline file's own seed is taken (one
    warpkit.augment.save wrote with the Compose's seed), or else a seed is drawn and printed, so
    that the run can be replayed. With --annotations the COCO objects of each input move with
    its copies (or its YOLO / Pascal VOC boxes, with --annotation-format, into a label file
    beside each copy).
    """
    files = expand_inputs(inputs)
    if output.exists() and not output.is_dir():
        raise UserError(f"{output} is a file; augmented copies go into a directory")
    ranges = {"degrees": degrees, "translate": translate, "scale": scale, "shear": shear}
    affine = None
    if pipeline is not None:
        if any(v is not None for v in ranges.values()) or hflip or vflip or size:
            raise UserError("--pipeline replaces --degrees, --translate, --scale, --shear, "
                            "--hflip, --vflip and --size")
        _refuse_given(ctx, ("interpolation", "padding", "fill", "antialias"),
                      f"the pipeline file {pipeline} sets its own {{}}: edit it there (it would "
                      f"be ignored here)")
        aug = _load_pipeline(pipeline)
        keys = shared_keys(aug)
        _check_references(pipeline, keys, reference or [])
        okeys = overlay_keys(aug)
        _check_overlays(pipeline, okeys, overlay or [])
    else:
        if reference:
            raise UserError("--reference is for a --pipeline with HistogramMatching or FDA")
        if overlay:
            raise UserError("--overlay is for a --pipeline with OverlayElements")
        keys = okeys = ()
        try:
            given = {k: numbers(v, f"--{k}", (1, 2)) for k, v in ranges.items() if v is not None}
            wh = parse_size(size)  # WxH on the command line; warpkit.augment takes (h, w)
            affine = dict(**given, hflip=hflip, vflip=vflip, size=wh and wh[::-1],
                          interpolation=interpolation.value, padding=padding.value,
                          antialias=antialias)
            aug = RandomAffine(**affine)
        except ValueError as e:  # RandomAffine's messages start with the argument's name
            raise UserError(f"--{e}") from None
    if seed is None:  # (a pipeline file's own seed, as warpkit.augment.save writes it)
        seed = getattr(aug, "seed", None)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] & 0x7FFFFFFF)
    job = AugmentJob(copies=copies, seed=seed,
                     pipeline=aug.to_dict() if pipeline is not None else None, affine=affine,
                     fill=parse_fill(fill), overwrite=overwrite, max_pixels=max_pixels,
                     references=tuple(str(p.resolve()) for p in reference or ()),
                     reference_keys=keys,
                     overlays=tuple(str(p.resolve()) for p in overlay or ()), overlay_keys=okeys)
    set_max_pixels(max_pixels)
    todo = tasks(files, lambda f: job.dests(f, output))
    coco = labels = None
    if annotations is not None:
        if engine == Engine.dask:
            raise UserError("--annotations runs with --engine local (the dataset is built in "
                            "one process)")
        if annotation_format == AnnotationFormat.coco:
            annotations_output = annotations_output or output / f"{annotations.stem}_aug.json"
            coco = CocoSet(annotations, annotations_output)
        else:
            if annotations_output is not None:
                raise UserError(f"--annotations-output is for COCO datasets: with "
                                f"--annotation-format {annotation_format.value} each copy's "
                                f"labels are written beside it")
            labels = LabelFolder(annotations, annotation_format.value)
            labels.check_some(files)
        if not Sampling.of(padding=getattr(aug, "padding", padding.value)).constant:
            typer.echo("warpkit: note: with padding other than constant, objects mirrored or "
                       "repeated into the border are not annotated (pass --padding constant "
                       "for detection and segmentation sets)", err=True)
    _check_augment_outputs(files, todo, output, pipeline, annotations, matrices,
                           annotations_output, manifest if engine == Engine.dask else False,
                           overwrite, [*(reference or []), *(overlay or [])])
    if coco is not None or labels is not None:
        written = len(augment_annotated(job, todo, coco or labels, matrices, device, _echo))
    else:
        done: list[dict] = []
        try:
            _run_tasks(job, todo, "augmenting", device, engine, scheduler, workers, manifest,
                       output, done)
        finally:
            record = {Path(r["output"]).name: {k: v for k, v in r.items() if k != "output"}
                      for r in done}
            if matrices is not None and record:
                save_json_atomic(record, matrices)
        written = len(record)
    typer.echo(f"{written} images written to {output} (seed {seed})"
               + (f", annotations to {annotations_output}" if coco is not None else "")
               + (f", {labels.format} labels beside them" if labels is not None else ""))


def _refuse_given(ctx: typer.Context, names: tuple[str, ...], why: str) -> None:
    """A UserError naming the options among ``names`` given on the command line (or from the
    environment), which something else overrides: an option that is silently ignored reads as
    applied."""
    given = [n for n in names
             if getattr(ctx.get_parameter_source(n), "name", "DEFAULT")
             not in ("DEFAULT", "DEFAULT_MAP")]
    if given:
        opts = ", ".join(f"--{n.replace('_', '-')}" for n in given)
        raise UserError(f"{opts}: " + why.format(" and ".join(given)))


def _check_references(pipeline: Path, keys: tuple, references: list[Path]) -> None:
    """--reference given where the pipeline reads reference images (HistogramMatching, FDA),
    and each one an image the command can open, or a one-line error."""
    _check_pipeline_files(
        "--reference", references, keys, reference_array,
        f"--pipeline {pipeline}: its HistogramMatching or FDA adapts each copy to a reference "
        f"image: give one or more with --reference FILE",
        f"--reference is for a pipeline with HistogramMatching or FDA; {pipeline} has neither")


def _check_overlays(pipeline: Path, keys: tuple, overlays: list[Path]) -> None:
    """--overlay given where the pipeline pastes elements (OverlayElements), and each one an
    8-bit image the command can open, or a one-line error."""
    _check_pipeline_files(
        "--overlay", overlays, keys, lambda p: overlay_element(p, Image.new("RGB", (1, 1))),
        f"--pipeline {pipeline}: its OverlayElements pastes elements on each copy: give one "
        f"or more with --overlay FILE",
        f"--overlay is for a pipeline with OverlayElements; {pipeline} has none")


def _check_pipeline_files(option: str, paths: list[Path], keys: tuple, read, missing: str,
                          unused: str) -> None:
    """Files for the pipeline's call keywords ``keys`` (given as ``option``): given where it
    reads some (else ``missing``), not where it reads none (else ``unused``), each one read by
    ``read``, or a one-line error."""
    if keys and not paths:
        raise UserError(missing)
    if paths and not keys:
        raise UserError(unused)
    for path in paths:
        try:
            read(path)
        except UserError as e:  # (its message starts with the path)
            raise UserError(f"{option} {message(e)}") from None
        except OSError as e:
            raise UserError(f"{option} {path}: {e.strerror or e}") from None


def _check_augment_outputs(files, todo, output, pipeline, annotations, matrices,
                           annotations_output, manifest, overwrite, references=()) -> None:
    """The side outputs (--matrices, --annotations-output, a Dask run's manifest; ``manifest``
    False without Dask) checked against every input and output before anything is written."""
    inputs = {f.resolve(): "the input" for f in files}
    for path in references:
        inputs[path.resolve()] = "the input --reference or --overlay file"
    for option, path in (("--pipeline", pipeline), ("--annotations", annotations)):
        if path is not None:
            inputs[path.resolve()] = f"the input {option} file"
    sides = [("--matrices", matrices, True), ("--annotations-output", annotations_output, True)]
    if manifest is not False:
        from warpkit.dist import MANIFEST

        sides.append(("--manifest", manifest or output / MANIFEST, False))
    check_side_outputs([(o, p, r) for o, p, r in sides if p is not None], inputs,
                       {d.resolve() for _, ds in todo for d in ds}, overwrite)

def _lambda_named(data) -> str | None:
    """The name of the first Lambda in a serialised pipeline (either format), or None."""
    if isinstance(data, dict):
        kind = str(data.get("type", data.get("__class_fullname__", "")))
        if kind.rsplit(".", 1)[-1] == "Lambda":
            return str(data.get("name", data.get("__name__")))
        data = list(data.values())
    if isinstance(data, list):
        return next((n for n in map(_lambda_named, data) if n is not None), None)
    return None


def _load_pipeline(path: Path):
    """A serialised pipeline (JSON of Compose.to_dict, or of albumentations' A.save, JSON or
    YAML) that writes image files, or a one-line error."""
    data = read_json(path, "--pipeline", yaml=True)
    albumentations = is_albumentations_data(data)
    named = _lambda_named(data)
    if named is not None:
        raise UserError(f"--pipeline {path}: Lambda {named!r} is a Python function, which a "
                        f"file holds by its name alone: the command runs pipelines without it "
                        f"(from Python, from_dict and from_albumentations take its functions "
                        f"as nonserializable=)")
    try:
        aug = from_albumentations(data) if albumentations else Compose.from_dict(data)
    except (ValueError, TypeError) as e:
        raise UserError(f"--pipeline {path}: {message(e)}") from None
    except RecursionError:
        raise UserError(f"--pipeline {path}: transforms nested too deeply") from None
    if not isinstance(aug, Compose):
        raise UserError(f"--pipeline {path}: the top level must be a Compose (it sets the "
                        f"pipeline's interpolation, padding and fill), got {type(aug).__name__}: "
                        f"save Compose([...]).to_dict()")
    if contains(aug, Mosaic):
        raise UserError(f"--pipeline {path}: Mosaic combines several images of one call, and "
                        f"the command makes each file's copies alone (each copy would be a "
                        f"mosaic of the file with itself): run Mosaic from Python, on batches")
    text = next((t for t in all_steps(aug) if isinstance(t, TextImage)), None)
    if text is not None:
        raise UserError(f"--pipeline {path}: TextImage draws the texts each call passes (its "
                        f"{text.metadata_key}), and the command passes none: run it from "
                        f"Python, with the texts")
    reader = mask_reader(aug)
    if reader is not None:
        raise UserError(f"--pipeline {path}: {type(reader).__name__} finds objects in a "
                        f"semantic mask (albumentations' mask), which the command does not "
                        f"take (--annotations moves COCO instances and box files): run it from "
                        f"Python with mask=")
    tensor = {k: v for k, v in (("output_dtype", aug.output_dtype), ("mean", aug.mean),
                                ("std", aug.std), ("max_pixel_value", aug.max_pixel_value))
              if v is not None}
    if aug.layout != "HWC":
        tensor["layout"] = aug.layout
    if aug.tensors:
        tensor["tensors"] = True
    if tensor:
        given = ", ".join(f"{k}={v!r}" for k, v in tensor.items())
        what = "Normalize and ToTensorV2" if albumentations else \
            "output_dtype, mean, std, layout and tensors"
        raise UserError(f"--pipeline {path}: {given} make a model's tensor; the command writes "
                        f"image files: leave {what} out")
    aug.target_types = "arrays"  # (the command writes the boxes and keypoints it reads back)
    return aug
