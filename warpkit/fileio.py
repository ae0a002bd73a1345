"""Image files for the file jobs (:mod:`warpkit.files`) and the command line: input expansion,
reading (EXIF orientation, 16-bit colour, decompression bombs), atomic writes that keep
metadata and never replace an input, the checks of side outputs, and the COCO dataset that
``warpkit augment --annotations`` reads and writes. A failure a user can fix raises
:class:`UserError`: one line, no traceback."""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".gif", ".ppm",
                  ".pgm", ".pbm", ".tga"}


class UserError(Exception):
    """A mistake in the command line: reported in one line, exit code 1."""


def expand_inputs(inputs: list[str]) -> list[Path]:
    """Files as given, images inside directories (sorted), and glob patterns."""
    out: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.is_file() and q.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise UserError(f"no images in directory {item}")
            out.extend(found)
        elif p.exists():
            out.append(p)
        elif any(ch in item for ch in "*?["):
            found = sorted(Path(q) for q in glob.glob(item) if Path(q).is_file())
            if not found:
                raise UserError(f"no files match {item}")
            out.extend(found)
        else:
            raise UserError(f"input not found: {item}")
    seen, unique = set(), []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


#: Pillow's own default: it warns above 89,478,485 pixels and refuses above twice that
DEFAULT_MAX_PIXELS = 2 * 89_478_485
_notes: set[str] = set()


def note_once(text: str) -> None:
    """A remark on stderr, once per run however many files it concerns."""
    if text not in _notes:
        _notes.add(text)
        print(f"warpkit: note: {text}", file=sys.stderr)


def set_max_pixels(limit: int) -> None:
    """Refuse images of more than ``limit`` pixels (0: no limit): a small file can declare a
    huge image (a decompression bomb)."""
    if limit < 0:
        raise UserError(f"--max-pixels must be >= 0 (0: no limit), got {limit}")
    Image.MAX_IMAGE_PIXELS = limit or None


class DeepImage:
    """A 16-bit colour image (RGB or RGBA), which Pillow would read as 8 bits per channel:
    kept as a (H, W, C) uint16 array, read and written through OpenCV."""

    def __init__(self, array: np.ndarray, fmt: str | None, info: dict | None = None):
        self.array = array
        self.format = fmt
        self.info = dict(info or {})

    @property
    def size(self) -> tuple[int, int]:
        return self.array.shape[1], self.array.shape[0]

    @property
    def mode(self) -> str:
        return "RGBA;16" if self.array.shape[2] == 4 else "RGB;16"

    def getbands(self) -> tuple[str, ...]:
        return tuple("RGBA"[: self.array.shape[2]])


def _rawmode(img: Image.Image) -> str:
    """The raw mode of a file's first tile (``'RGB;16B'`` for a 16-bit RGB PNG)."""
    try:
        args = img.tile[0].args if hasattr(img.tile[0], "args") else img.tile[0][3]
    except (IndexError, AttributeError):
        return ""
    if isinstance(args, tuple):
        args = args[0] if args else ""
    return args if isinstance(args, str) else ""


#: Pillow's ImageOps.exif_transpose, as numpy operations on (H, W, C) arrays
_ORIENT = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
           5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1),
           7: lambda a: a[::-1, ::-1].transpose(1, 0, 2), 8: lambda a: np.rot90(a, 1)}


def _open_deep(path: Path, src: Image.Image) -> DeepImage:
    try:
        import cv2
    except ImportError:
        raise UserError(
            f"{path}: a 16-bit {src.mode} image, which Pillow reads as 8 bits per channel; "
            "install opencv-python-headless (pip install 'warpkit[formats]') to keep its depth"
        ) from None
    data = np.fromfile(path, np.uint8)
    arr = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if arr is None or arr.dtype != np.uint16 or arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise UserError(f"{path}: cannot read this 16-bit {src.mode} image")
    arr = arr[..., [2, 1, 0, 3][: arr.shape[2]]]  # OpenCV's BGR(A) to RGB(A)
    orient = src.getexif().get(0x0112)
    if orient in _ORIENT:
        arr = _ORIENT[orient](arr)
    info = {k: src.info[k] for k in ("dpi",) if k in src.info}
    return DeepImage(np.ascontiguousarray(arr), src.format, info)


def open_image(path: Path) -> Image.Image | DeepImage:
    """Open an image with its EXIF orientation applied (the picture as viewers show it).

    Refused, each with one line: a file Pillow cannot read, one over the pixel limit
    (:func:`set_max_pixels`), and animations or multi-page files (several frames). 16-bit
    colour comes back as a :class:`DeepImage`; CMYK and other colour spaces are converted to
    RGB, with a note."""
    try:
        with warnings.catch_warnings():
            # over the limit is an error, never a warning that leaks to the terminal
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as src:
                frames = getattr(src, "n_frames", 1)
                if frames > 1:
                    raise UserError(
                        f"{path}: has {frames} frames (an animation or a multi-page file); "
                        "warpkit warps single images: extract the frames first")
                if src.mode in ("RGB", "RGBA") and ";16" in _rawmode(src):
                    return _open_deep(path, src)
                src.load()
                fmt = src.format
                info = dict(src.info)
                img = ImageOps.exif_transpose(src)
                if img is src:
                    img = src.copy()
    except UserError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
        found = re.search(r"\((\d+) pixels\)", str(e))
        size = f"{int(found[1])} pixels" if found else "its size"
        raise UserError(f"{path}: refused as a possible decompression bomb: {size}, over the "
                        f"limit of {Image.MAX_IMAGE_PIXELS} (--max-pixels; 0: no limit, for "
                        "trusted files)") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read the image ({e.strerror or e})") from None
    except Exception as e:  # Pillow's plugins raise SyntaxError, struct.error, ... on bad files
        raise UserError(f"{path}: cannot read the image ({type(e).__name__}: {e})") from None
    if img.mode in ("CMYK", "YCbCr", "LAB", "HSV"):
        note_once(f"{img.mode} images are converted to RGB")
        img = img.convert("RGB")
        info.pop("icc_profile", None)  # it describes the old colour space
    img.format = fmt
    for k in ("icc_profile", "dpi"):
        if k in info:
            img.info[k] = info[k]
    if "exif" in img.info or "exif" in info:
        exif = img.getexif()  # exif_transpose reset the orientation tag in it
        img.info["exif"] = exif.tobytes()
    return img


def save_deep_atomic(img: DeepImage, dest: Path, fmt: str | None, overwrite: bool,
                     protected: set[Path]) -> None:
    """Write a 16-bit colour image (PNG or TIFF) as :func:`save_atomic` writes others."""
    check_dest(dest, overwrite, protected)
    ext = dest.suffix.lower() or {"PNG": ".png", "TIFF": ".tif"}.get((fmt or "").upper(), "")
    if ext not in (".png", ".tif", ".tiff"):
        raise UserError(f"{dest}: {ext or 'this format'} cannot hold 16-bit colour; write "
                        ".png or .tif")
    import cv2

    arr = img.array[..., [2, 1, 0, 3][: img.array.shape[2]]]
    ok, data = cv2.imencode(ext, np.ascontiguousarray(arr))
    if not ok:
        raise UserError(f"{dest}: OpenCV could not encode the image")

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data.tobytes())

    _replace_atomically(dest, write)


def check_dest(dest: Path, overwrite: bool, protected: set[Path]) -> None:
    """Refuse to write over an input, or over an existing file without overwrite."""
    if dest.resolve() in protected:
        raise UserError(f"refusing to overwrite the input {dest}")
    if dest.is_dir():
        raise UserError(f"{dest} is a directory")
    if dest.exists() and not overwrite:
        raise UserError(f"{dest} exists (pass --overwrite to replace it)")


def check_side_outputs(sides: list[tuple[str, Path, bool]], inputs: dict[Path, str],
                       outputs: set[Path], overwrite: bool) -> None:
    """Refuse, before anything is written, a side output (``(option, path, replaces)``: the
    matrices, the dataset, the manifest) that names an input (``inputs``: resolved path -> what
    it is, the pipeline and annotation files too), one of the run's images (``outputs``,
    resolved), another side output, a directory or a path under a file; one that ``replaces``
    its file must not exist unless ``overwrite`` (the manifest is appended to)."""
    seen: dict[Path, str] = {}
    for option, path, replaces in sides:
        where = path.resolve()
        if where in inputs:
            raise UserError(f"{option} {path}: refusing to overwrite {inputs[where]}")
        if where in outputs:
            raise UserError(f"{option} {path} is also one of the images this run writes")
        if where in seen:
            raise UserError(f"{seen[where]} and {option} name the same file {path}")
        seen[where] = option
        if path.is_dir():
            raise UserError(f"{option} {path} is a directory")
        for parent in path.parents:  # the first that exists must be a directory
            if parent.exists():
                if not parent.is_dir():
                    raise UserError(f"{option} {path}: {parent} is a file, not a directory")
                break
        if replaces and path.exists() and not overwrite:
            raise UserError(f"{option} {path} exists (pass --overwrite to replace it)")


def save_atomic(img: Image.Image, dest: Path, fmt: str | None, overwrite: bool,
                protected: set[Path]) -> None:
    """Write via a temporary file in the destination's directory, then rename: a crash never
    leaves a half-written file. Never writes over an input; an existing file only with overwrite."""
    check_dest(dest, overwrite, protected)
    kwargs = {}
    for k in ("icc_profile", "exif", "dpi"):
        if k in img.info:
            kwargs[k] = img.info[k]
    if fmt is None:
        # the common formats' plugins first: loading every plugin (registered_extensions) is a
        # visible share of a one-image command
        ext = dest.suffix.lower()
        Image.preinit()
        fmt = Image.EXTENSION.get(ext) or Image.registered_extensions().get(ext)
    if fmt is None:
        raise UserError(f"cannot tell the image format of {dest} from its extension")
    if fmt.upper() in ("JPEG",) and img.mode not in ("L", "RGB", "CMYK"):
        img = img.convert("RGB")
        kwargs["quality"] = 95
    elif fmt.upper() == "JPEG":
        kwargs["quality"] = 95

    def write(tmp: str) -> None:
        try:
            img.save(tmp, format=fmt, **kwargs)
        except (OSError, ValueError, TypeError):
            kwargs.pop("exif", None)  # a format that cannot carry these: keep the pixels
            kwargs.pop("icc_profile", None)
            img.save(tmp, format=fmt, **kwargs)

    _replace_atomically(dest, write)


def _temporary_prefix(dest: Path) -> str:
    return f".{dest.name}."


def remove_stale_temporaries(dests: list[Path]) -> int:
    """Remove the temporary files an interrupted write of ``dests`` left (a killed process or
    Dask worker: ``.<name>.<random>.tmp`` beside each, :func:`save_atomic`'s naming); returns
    how many. Call it before the outputs are written again."""
    removed = 0
    for dest in dests:
        prefix = _temporary_prefix(dest)
        try:
            names = [e.name for e in os.scandir(dest.parent)
                     if e.name.startswith(prefix) and e.name.endswith(".tmp") and e.is_file()]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            # the random part mkstemp adds: 8 characters of letters, digits and "_"
            middle = name[len(prefix):-len(".tmp")]
            if re.fullmatch(r"[A-Za-z0-9_]{8}", middle):
                try:
                    os.unlink(dest.parent / name)
                    removed += 1
                except FileNotFoundError:
                    pass
    return removed


def _replace_atomically(dest: Path, write) -> None:
    """write(path) into a temporary file beside dest, then rename it over dest: a crash never
    leaves a half-written file."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(dest), suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        write(tmp)
        # mkstemp makes the file 0600: give it the mode a plain open() would (or the old file's)
        if dest.exists():
            mode = dest.stat().st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_json(path: Path, option: str, yaml: bool = False) -> Any:
    """A JSON file an option names, or a one-line error naming the option (unreadable, not
    JSON, or nested too deeply for Python's parser). With ``yaml``, a file named ``.yaml`` or
    ``.yml`` is read as YAML (:func:`parse_data_file`)."""
    try:
        return parse_data_file(path.read_text(encoding="utf-8"), path if yaml else None)
    except UnicodeDecodeError as e:
        raise UserError(f"{option} {path}: not UTF-8 text ({e.reason} at byte {e.start})"
                        ) from None
    except OSError as e:
        raise UserError(f"{option} {path}: {e.strerror or e}") from None
    except RecursionError:
        raise UserError(f"{option} {path}: nested too deeply to be read") from None
    except ValueError as e:
        raise UserError(f"{option} {path}: {e}") from None


#: the names of files read as YAML (albumentations' ``A.save(..., data_format="yaml")``)
YAML_SUFFIXES = (".yaml", ".yml")


def parse_data_file(text: str, name: Any = None, data_format: str | None = None) -> Any:
    """The data of a file's ``text``: YAML where ``data_format`` is ``"yaml"`` or, without one,
    where the file's ``name`` ends ``.yaml`` or ``.yml`` (the form albumentations'
    ``A.save(..., data_format="yaml")`` writes, read as its ``A.load`` reads it:
    ``yaml.safe_load``), else JSON. A ValueError says what is wrong (RecursionError where the
    data is nested too deeply).

    Example:
        >>> parse_data_file('{"p": 0.5}'), parse_data_file("p: 0.5", "aug.yaml")
        ({'p': 0.5}, {'p': 0.5})
    """
    if data_format is None:
        data_format = "yaml" if name is not None and str(name).lower().endswith(
            YAML_SUFFIXES) else "json"
    if data_format == "yaml":
        yaml = yaml_module()
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark, problem = getattr(e, "problem_mark", None), getattr(e, "problem", None)
            where = "" if mark is None else f" at line {mark.line + 1}, column {mark.column + 1}"
            raise ValueError(f"not valid YAML ({problem or ' '.join(str(e).split())}{where})"
                             ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e})"
                         + ("" if name is None else
                            "; YAML files are read as YAML where named .yaml or .yml")) from None


def yaml_module() -> Any:
    """PyYAML (albumentations' own dependency), or a ValueError that says to install it."""
    try:
        import yaml
    except ImportError:
        raise ValueError("YAML needs PyYAML (pip install pyyaml; albumentations installs it), "
                         "or use JSON") from None
    return yaml


def save_text_atomic(text: str, dest: Path) -> None:
    """Write a text file (UTF-8) atomically, as save_atomic writes images."""
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    _replace_atomically(dest, write)


def save_json_atomic(data, dest: Path) -> None:
    """Write JSON atomically, as save_atomic writes images."""
    save_text_atomic(json.dumps(data, indent=1), dest)


def parse_size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
        if max(size) > 1 << 16:
            raise ValueError
    except ValueError:
        raise UserError(f"--size must look like 640x480 (at most 65536 per side), got {text!r}") from None
    if min(size) < 1:
        raise UserError(f"--size must be at least 1x1, got {text!r}")
    return size


# ---- `warpkit augment --annotations coco.json`: the COCO dataset of the augmented copies ----
# ``warpkit augment --annotations coco.json``: the COCO dataset of the augmented copies.
#
# Each input file is matched to its entry in the dataset's ``images`` (by file name, or by the
# end of its path where several entries share a name); each copy gets a new image entry and its
# objects moved by the copy's map (:func:`warpkit.augment.coco.transform_annotations`). The new
# dataset keeps ``info``, ``licenses`` and ``categories`` and numbers images and annotations from 1.

def _check_id(v: Any, where: str) -> None:
    """COCO's ids are integers (strings are taken too)."""
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise UserError(f"{where} must be an integer or a string, got {v!r:.60}")


class CocoSet:
    """The input dataset, indexed, and the output dataset as it grows, written to ``output``
    at the end. As :class:`~warpkit.labelfiles.LabelFolder`, the annotations an augment run
    moves with each copy (:func:`warpkit.files.augment_annotated`): :meth:`read` an input's
    objects and their boxes, :meth:`copy` a copy's moved objects, :meth:`write` them,
    :meth:`finish` the run."""

    def __init__(self, path: Path, output: Path | None = None) -> None:
        self.output = output
        data = read_json(path, "--annotations")
        if not isinstance(data, dict) or not isinstance(data.get("images"), list) \
                or not isinstance(data.get("annotations", []), list):
            raise UserError(f"--annotations {path}: not a COCO dataset (a JSON object with an "
                            "'images' list and an 'annotations' list)")
        self.path = path
        self.by_name: dict[str, list[dict]] = {}
        for k, entry in enumerate(data["images"]):
            if not isinstance(entry, dict) or not {"id", "file_name", "width", "height"} <= set(entry):
                raise UserError(f"--annotations {path}: images[{k}] needs id, file_name, width "
                                "and height")
            _check_id(entry["id"], f"--annotations {path}: images[{k}].id")
            for key in ("width", "height"):
                v = entry[key]
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    raise UserError(f"--annotations {path}: images[{k}].{key} must be a whole "
                                    f"number >= 1, got {v!r}")
            if not isinstance(entry["file_name"], str):
                raise UserError(f"--annotations {path}: images[{k}].file_name must be a string, "
                                f"got {entry['file_name']!r}")
            self.by_name.setdefault(Path(entry["file_name"]).name, []).append(entry)
        self.objects: dict[Any, list[dict]] = {}
        for k, ann in enumerate(data.get("annotations", [])):
            if not isinstance(ann, dict) or "image_id" not in ann:
                raise UserError(f"--annotations {path}: annotations[{k}] needs an image_id")
            _check_id(ann["image_id"], f"--annotations {path}: annotations[{k}].image_id")
            self.objects.setdefault(ann["image_id"], []).append(ann)
        self.out: dict[str, Any] = {k: v for k, v in data.items()
                                    if k not in ("images", "annotations")}
        self.out["images"], self.out["annotations"] = [], []

    def entry(self, f: Path, size: tuple[int, int]) -> dict:
        """The dataset's entry for input ``f`` (checked against the image's (width, height))."""
        found = self.by_name.get(f.name, [])
        if len(found) > 1:  # several folders hold this name: the one whose path ends like f's
            found = [e for e in found if f.as_posix().endswith(str(e["file_name"]))]
        if len(found) != 1:
            why = "is not among" if not found else "matches several of"
            raise ValueError(f"{why} the images of {self.path.name}")
        e = found[0]
        if (int(e["width"]), int(e["height"])) != tuple(size):
            raise ValueError(f"{self.path.name} says {e['width']}x{e['height']}, the image is "
                             f"{size[0]}x{size[1]} (after its EXIF orientation)")
        return e

    def inputs(self, files: list[Path]) -> set[Path]:
        """The input files a run must never write over besides the images: the dataset."""
        return {self.path.resolve()}

    def beside(self, copy_path: Path) -> list[Path]:
        """The files written beside each copy: none (the dataset is one file)."""
        return []

    def read(self, f: Path, size: tuple[int, int]) -> tuple[Any, np.ndarray]:
        """(input ``f``'s entry and objects, the boxes of those with a usable ``bbox`` inside
        the image of ``size``, clipped to it as pixel-edge corners); objects without one move
        by the map alone."""
        entry = self.entry(f, size)
        objects = self.objects.get(entry["id"], [])
        boxed, boxes = [], []
        for k, ann in enumerate(objects):
            try:
                x, y, w, h = (float(v) for v in ann.get("bbox"))
            except (TypeError, ValueError):
                continue
            box = np.clip([x, y, x + w, y + h], 0, [*size, *size])
            if np.isfinite(box).all() and box[2] > box[0] and box[3] > box[1]:
                boxed.append(k)
                boxes.append(box)
        return (entry, objects, boxed), np.array(boxes, np.float64).reshape(-1, 4)

    def copy(self, state: Any, kept: np.ndarray, boxes: np.ndarray, matrix: np.ndarray,
             out_size: tuple[int, int], chain: list | None, pipe: Any) -> Any:
        """A copy's objects: those whose boxes the pipeline kept (``kept``, indices into the
        boxes of :meth:`read`) and those without boxes, moved by ``matrix`` (or through
        ``chain``, a pipeline's with non-linear stages) to ``out_size`` under the pipeline's
        ``min_visibility`` and ``min_area``. Made before the copy is written, so that a bad
        annotation fails the file, not the dataset."""
        from .augment.coco import transform_annotations

        entry, objects, boxed = state
        gone = set(boxed) - {boxed[k] for k in kept}
        moved = transform_annotations([a for k, a in enumerate(objects) if k not in gone],
                                      matrix, (int(entry["width"]), int(entry["height"])),
                                      out_size, min_visibility=getattr(pipe, "min_visibility", 0.0),
                                      min_area=getattr(pipe, "min_area", 0.0), chain=chain)
        return entry, matrix, out_size, moved

    def write(self, made: Any, copy_path: Path, overwrite: bool, protected: set[Path]) -> None:
        """The written copy ``copy_path`` of an entry's image and its moved objects, added to
        the output dataset."""
        entry, matrix, out_size, moved = made
        image_id = len(self.out["images"]) + 1
        new = {**entry, "id": image_id, "file_name": copy_path.name, "width": out_size[0],
               "height": out_size[1], "source_id": entry["id"],
               "matrix": np.round(matrix, 12).tolist()}
        self.out["images"].append(new)
        first = len(self.out["annotations"]) + 1
        for k, ann in enumerate(moved):
            ann.update(id=first + k, image_id=image_id)
        self.out["annotations"].extend(moved)

    def finish(self) -> None:
        """The output dataset, with whatever was made (also when some files failed)."""
        save_json_atomic(self.out, self.output)
