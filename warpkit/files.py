"""File jobs: warp, crop and augment image files as ``warpkit warp/crop/augment`` do.

The command line parses its options into a job (:class:`WarpJob`, :class:`CropJob`,
:class:`AugmentJob`: frozen, picklable dataclasses) and runs it over (input, outputs) tasks,
here with :func:`run_local` or on a Dask cluster with :func:`warpkit.dist.run`; either way the
work on each file is the job's own ``__call__``. A failure a user can fix raises
:class:`~warpkit.fileio.UserError`, reported in one line per file.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from PIL import Image
    >>> from warpkit.files import WarpJob, run_local, tasks
    >>> d = Path(tempfile.mkdtemp())
    >>> Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(d / "a.png")
    >>> (d / "out").mkdir()
    >>> todo = tasks([d / "a.png"], lambda f: [d / "out" / f.name])
    >>> records = run_local(WarpJob(rotate=15), todo, "warping")            # doctest: +SKIP
    >>> [Path(r["output"]).name for r in records]                           # doctest: +SKIP
    ['a.png']
"""

from __future__ import annotations

import functools
import math
import os
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import geometry as g
from .runtime import set_device
from .augment import Compose, RandomAffine
from .augment._targets import EMPTY_AREA, from_xyxy, map_boxes, to_xyxy
from ._options import Sampling
from .engine import warp_by
from .warp import crop_rois
from .labelfiles import LabelFolder
from .fileio import (DEFAULT_MAX_PIXELS, CocoSet, DeepImage, UserError, check_dest, open_image,
                     remove_stale_temporaries, save_atomic, save_deep_atomic, save_json_atomic,
                     set_max_pixels)


def numbers(text: str, option: str, counts: tuple[int, ...] = (), forms: str = ""):
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


def parse_fill(text: str | None):
    """The fill an option's text gives: 0 when unset, a number, or one per channel."""
    if text is None:
        return 0
    return numbers(text, "--fill", forms="a number or comma-separated numbers")


def _filled(sampling: Sampling, img) -> Sampling:
    return sampling._replace(fill=fill_for(img, sampling.fill))


def fill_for(img, fill):
    bands = len(img.getbands())
    if isinstance(fill, tuple) and len(fill) != bands:
        if img.mode in ("LA", "RGBA", "RGBA;16") and len(fill) == bands - 1:  # colour: opaque
            return fill + (65535.0 if isinstance(img, DeepImage) else 255.0,)
        raise UserError(f"--fill has {len(fill)} values, the image has {bands} channels")
    return fill


def _perspective(text: str):
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
    vals = numbers(text, "--matrix", (6, 9), "6 (affine) or 9 (perspective) numbers")
    m = np.array(vals, np.float64).reshape(-1, 3)
    return np.vstack([m, [0, 0, 1]]) if m.shape[0] == 2 else m


def build_matrix(size, rotate, scale, translate, shear, flip, matrix, perspective):
    """The destination-from-source map the options describe, about the image centre:
    flip, then scale, shear and rotation about the centre, then translation."""
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


class NoProgress:
    """Stands in for the bar where there is none to show (rich.progress is slow to import, a
    visible share of a one-image warp)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def advance(self, task: int) -> None:
        return None


def progress(total: int):
    """A rich progress bar on a terminal for several files."""
    if total < 2 or not os.isatty(2):
        return NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    transient=True)


def use_device(spec: str | None) -> None:
    if spec is not None:
        try:
            set_device(spec)
        except (ValueError, RuntimeError) as e:
            raise UserError(str(e)) from None


def pixels(img):
    """What the warps take: the Pillow image, or a 16-bit colour image's array."""
    return img.array if isinstance(img, DeepImage) else img


def image_size(image) -> tuple[int, int]:
    """(width, height) of a Pillow image or an (H, W, ...) array."""
    return tuple(image.size) if not hasattr(image, "shape") else (image.shape[1], image.shape[0])


def save(res, img, dest: Path, overwrite: bool, protected: set[Path]) -> None:
    """Write a result with its input's metadata, in the input's format unless dest names one."""
    fmt = None if dest.suffix else img.format
    if isinstance(img, DeepImage):
        save_deep_atomic(DeepImage(res, img.format, img.info), dest, fmt, overwrite, protected)
        return
    res.info.update({k: v for k, v in img.info.items() if k in ("icc_profile", "exif", "dpi")})
    save_atomic(res, dest, fmt, overwrite, protected)


def message(e: Exception) -> str:
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
    msg = message(e)
    return msg if msg.startswith(str(f)) else f"{f}: {msg}"


def each_file(files: list[Path], label: str, one: Callable[[Path], Any],
              report: Callable[[str], None] | None = None) -> None:
    """Run one(file) for every file under a progress bar. With several files a failure is
    reported on its own line (``report``, default: standard error) and the rest go on; then a
    :class:`UserError` gives the count."""
    report = report or _report
    failures = 0
    with progress(len(files)) as bar:
        task = bar.add_task(label, total=len(files))
        for f in files:
            try:
                one(f)
            except Exception as e:  # any one file's failure: one line, and the batch goes on
                msg = file_message(f, e)
                if len(files) == 1:
                    raise UserError(msg) from None
                failures += 1
                report(f"warpkit: {msg}")
            bar.advance(task)
    if failures:
        raise UserError(f"{failures} of {len(files)} files failed")


def unique_outputs(pairs) -> None:
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
    """The options every resampling command shares: how to sample (one checked
    :class:`~warpkit._options.Sampling`; its fill gets an alpha value for images with one,
    :func:`fill_for`), whether to replace outputs, the largest image read."""

    sampling: Sampling = Sampling()
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
        set_max_pixels(self.max_pixels)
        img = open_image(src)
        m = build_matrix(img.size, self.rotate, self.scale, self.translate, self.shear,
                         self.flip, self.matrix, self.perspective)
        res = warp_by(pixels(img), m, self.size, _filled(self.sampling, img), expand=self.expand,
                      affine=g.is_affine(m))
        save(res, img, dests[0], self.overwrite, protected)
        return [{"source": str(src), "output": str(dests[0]), "matrix": rounded(m)}]


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
        set_max_pixels(self.max_pixels)
        rects = self.rects(src)
        for dest in dests:  # every output is checked before any is written
            check_dest(dest, self.overwrite, protected)
        img = open_image(src)
        try:
            patches = crop_rois(pixels(img), rects, self.size, None,
                                *_filled(self.sampling, img))
        except (ValueError, TypeError) as e:
            raise UserError(f"{src}: {e}") from None
        out = []
        for p, dest, box in zip(patches, dests, rects):
            try:
                save(p, img, dest, self.overwrite, protected)
            except OSError as e:  # unwritable directory, full disk: one line
                raise UserError(f"{dest}: {message(e)}") from None
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
    #: reference image files every pipeline call passes under each of ``reference_keys``
    #: (HistogramMatching's ``hm_metadata``, FDA's ``fda_metadata``)
    references: tuple[str, ...] = ()
    reference_keys: tuple[str, ...] = ()
    #: element image files every pipeline call passes under each of ``overlay_keys``
    #: (OverlayElements' ``overlay_metadata``), each as :func:`overlay_element` makes it
    overlays: tuple[str, ...] = ()
    overlay_keys: tuple[str, ...] = ()

    def transform(self):
        if self.pipeline is not None:
            return Compose.from_dict(self.pipeline)
        return RandomAffine(**self.affine)

    def dests(self, src: Path, output: Path) -> list[Path]:
        digits = len(str(self.copies - 1))
        return [output / f"{src.stem}_aug{k:0{digits}d}{src.suffix}" for k in range(self.copies)]

    def make(self, img, name: str, aug=None):
        """The copies of an opened image, one at a time as they are made (a file's copies are
        never all held: 64 copies of a 2000x1500 photo are 550 MiB): (result, matrix, size,
        extra record fields)."""
        for res, m, size, extra, _ in self.make_boxed(img, name, aug):
            yield res, m, size, extra

    def make_boxed(self, img, name: str, aug=None, boxes: np.ndarray | None = None):
        """:meth:`make` with the image's boxes (K, 4 pixel-edge corners, or None) moved with
        each copy: (result, matrix, size, extra, (indices of the boxes kept, their corners in
        the copy)). A pipeline reads the boxes as a call does (its box-safe crops choose by
        them, its box rules keep them); a random affine keeps those left in the copy."""
        aug = aug if aug is not None else self.transform()
        px = pixels(img)
        name_key = zlib.crc32(name.encode())
        if self.pipeline is not None:
            # copy k of a file: the pipeline's stream (seed, epoch k, index: the file name's
            # CRC), so a file's copies do not depend on the other inputs
            size = image_size(px)
            rows = None if boxes is None else np.concatenate(
                [from_xyxy(boxes, aug.box_format, size), np.arange(len(boxes))[:, None]], 1)
            refs = [reference_array(Path(r)) for r in self.references]
            passed = {key: refs for key in self.reference_keys}
            if self.overlay_keys:
                elements = [overlay_element(Path(o), px) for o in self.overlays]
                passed.update({key: elements for key in self.overlay_keys})
            for k in range(self.copies):
                res = aug(image=px, boxes=rows, seed=self.seed, epoch=k, index=name_key,
                          **passed)
                moved = None
                if boxes is not None:
                    got = np.asarray(res["boxes"], np.float64).reshape(-1, 5)
                    moved = (got[:, 4].astype(np.int64),
                             to_xyxy(got[:, :4], aug.box_format, res["size"]))
                yield res["image"], res["matrix"], res["size"], {"params": res["params"]}, moved
            return
        aug.fill = fill_for(img, self.fill)
        # the input's own stream: its warps do not depend on the other inputs
        rng = np.random.default_rng([self.seed, name_key])
        w, h = image_size(px)
        for m in aug.matrices(self.copies, (h, w), rng):
            res = aug.warp(px, m)
            out = image_size(res)
            moved = None
            if boxes is not None and len(boxes):
                _, clipped, _, inside = map_boxes(m[None], boxes, np.zeros(len(boxes), int),
                                                  [out])
                keep = np.flatnonzero(inside >= EMPTY_AREA)
                moved = keep, clipped[keep]
            elif boxes is not None:
                moved = np.zeros(0, np.int64), np.zeros((0, 4))
            yield res, m, out, {}, moved

    def __call__(self, src: Path, dests: list[Path], protected: set[Path]) -> list[dict]:
        set_max_pixels(self.max_pixels)
        for dest in dests:  # every output is checked before any is written
            check_dest(dest, self.overwrite, protected)
        img = open_image(src)
        out = []
        for (res, m, _, extra), dest in zip(self.make(img, src.name), dests):
            save(res, img, dest, self.overwrite, protected)
            out.append({"source": str(src), "output": str(dest), "matrix": rounded(m), **extra})
        return out


def reference_array(path: Path) -> np.ndarray:
    """A reference image file's pixels as an array (its EXIF orientation applied, as every
    input's), read once per process while the file is unchanged."""
    st = path.stat()
    return _reference(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _reference(path: str, mtime_ns: int, size: int) -> np.ndarray:
    return np.asarray(pixels(open_image(Path(path))))


def overlay_element(path: Path, like) -> dict:
    """An element file as an OverlayElements element for the image ``like`` (a Pillow image,
    or a 16-bit colour image's array): its pixels converted to ``like``'s mode by Pillow (to
    RGB or RGBA levels times 257 for a 16-bit array), and its alpha, where it has one, as the
    element's mask (the pixels pasted: those not fully transparent)."""
    st = path.stat()
    el = _element_file(str(path), st.st_mtime_ns, st.st_size)
    alpha = el.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in el.info
    out: dict = {}
    if alpha:
        out["mask"] = np.asarray(el.convert("RGBA"))[:, :, 3]
    if isinstance(like, np.ndarray):
        mode = "RGBA" if like.ndim == 3 and like.shape[2] == 4 else "RGB"
        out["image"] = np.asarray(el.convert(mode)).astype(np.uint16) * np.uint16(257)
    else:
        out["image"] = np.asarray(el.convert(like.mode))
    return out


@functools.lru_cache(maxsize=16)
def _element_file(path: str, mtime_ns: int, size: int):
    img = open_image(Path(path))
    if isinstance(img, DeepImage):
        raise UserError(f"{path}: an --overlay element is an 8-bit image (its pixels are "
                        f"converted to each input's mode)")
    img.load()
    return img


def rounded(m) -> list:
    return np.round(np.asarray(m, np.float64), 12).tolist()


def tasks(files: list[Path], dests_of) -> list[tuple[Path, list[Path]]]:
    """(input, its outputs) for every file; two inputs writing one output are refused before
    anything is written."""
    tasks = [(f, dests_of(f)) for f in files]
    unique_outputs((f, d) for f, ds in tasks for d in ds)
    return tasks


def run_local(job, tasks: list[tuple[Path, list[Path]]], label: str,
              device: str | None = None, records: list | None = None,
              report: Callable[[str], None] | None = None) -> list[dict]:
    """Run a job over its tasks in this process, one file after another, under a progress bar:
    a failing file is reported on its own line (``report``, default: standard error) and the
    rest go on. The records of the outputs written go into ``records`` (also when some files
    fail) and are returned; the run then raises a :class:`UserError` with the count."""
    records = [] if records is None else records
    use_device(device)
    protected = {f.resolve() for f, _ in tasks}
    outputs = dict(tasks)
    # what an interrupted earlier run left half-written for these outputs
    remove_stale_temporaries([d for _, ds in tasks for d in ds])
    each_file([f for f, _ in tasks], label,
              lambda f: records.extend(job(f, outputs[f], protected)), report)
    return records


def augment_annotated(job: AugmentJob, tasks: list[tuple[Path, list[Path]]],
                      annotations: CocoSet | LabelFolder, matrices: Path | None = None,
                      device: str | None = None,
                      report: Callable[[str], None] | None = None) -> dict[str, dict]:
    """:func:`run_local` for an augment job whose inputs have annotations: a COCO dataset
    (:class:`~warpkit.fileio.CocoSet`: each copy's objects, through a pipeline's non-linear
    stages too, into the output dataset, written at the end with whatever was made, also when
    some files fail) or a folder of YOLO or VOC label files
    (:class:`~warpkit.labelfiles.LabelFolder`: a label file beside each copy). The objects'
    boxes go into the pipeline's call: its box-safe crops choose by them, its box rules decide
    which objects stay. A file whose annotations cannot be read or moved fails alone, before
    its copies are written. Returns each output's record (source, matrix, params), by output
    name."""
    use_device(device)
    aug = job.transform()
    protected = {f.resolve() for f, _ in tasks} | annotations.inputs([f for f, _ in tasks])
    dests = dict(tasks)
    record: dict[str, dict] = {}

    def one(f: Path) -> None:
        img = open_image(f)
        size = image_size(pixels(img))
        state, boxes = annotations.read(f, size)
        for dest in dests[f]:  # what goes beside the copies too, before anything is written
            for side in annotations.beside(dest):
                check_dest(side, job.overwrite, protected)
        for (res, m, out_size, extra, (kept, moved)), dest in zip(
                job.make_boxed(img, f.name, aug, boxes), dests[f]):
            # a pipeline's non-linear stages move the objects as they move the pixels
            chain = aug.stages(extra["params"], size)[0] if "params" in extra else None
            made = annotations.copy(state, kept, moved, m, out_size, chain, aug)
            save(res, img, dest, job.overwrite, protected)
            annotations.write(made, dest, job.overwrite, protected)
            record[dest.name] = {"source": str(f), "matrix": rounded(m), **extra}

    remove_stale_temporaries([x for _, ds in tasks for d in ds
                              for x in (d, *annotations.beside(d))])
    try:
        each_file([f for f, _ in tasks], "augmenting", one, report)
    finally:
        if matrices is not None and record:
            save_json_atomic(record, matrices)
        if record:
            annotations.finish()
    return record


def _report(line: str) -> None:
    print(line, file=sys.stderr)
