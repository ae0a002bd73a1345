"""YOLO and Pascal VOC label files, as ``warpkit augment --annotations DIR --annotation-format
yolo|voc`` reads and writes them: one file per image in ``DIR`` (``<image stem>.txt`` or
``.xml``), and one beside each augmented copy (``<copy stem>.txt`` / ``.xml``).

Conventions:

- **YOLO** (Ultralytics' detection labels): a line per object, ``class cx cy w h``, the box's
  centre and size as fractions of the image's width and height. An image without a label
  file is a background image (no objects), as Ultralytics reads it; its copies get empty
  files. Lines with more numbers (segmentation polygons, pose keypoints) are refused.
- **Pascal VOC**: an ``<annotation>`` with ``<size>`` and an ``<object>`` per box, whose
  ``<bndbox>`` holds 1-based pixel indices, both ends included (the VOC devkit's): a box from
  ``xmin`` to ``xmax`` covers pixel edges ``xmin - 1`` to ``xmax``. Copies keep every other
  element of the file (``name``, ``pose``, ``truncated``, ``difficult``, custom tags), with
  ``filename`` and ``size`` set to the copy's and coordinates rounded to whole pixels.

Inside, boxes are pixel-edge corners (x1, y1, x2, y2), warpkit's ``xyxy``. A file that cannot
be read fails its image alone, with a message that names the file and the line or object.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("3 0.5 0.5 0.25 0.5\\n")
    >>> labels = LabelFolder(d, "yolo")
    >>> objects, boxes = labels.read(d / "a.jpg", (640, 480))
    >>> objects.boxes.tolist(), objects.items
    ([[240.0, 120.0, 400.0, 360.0]], ['3'])
"""

from __future__ import annotations

import copy
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .fileio import UserError, check_dest, save_text_atomic

__all__ = ["FORMATS", "LabelFolder", "Objects"]

#: the label formats of ``--annotation-format`` with a folder of files, and their suffixes
FORMATS = {"yolo": ".txt", "voc": ".xml"}
#: how far past the image (a fraction of its side) a YOLO box may reach: rounding in the file
EDGE = 1e-4


@dataclass
class Objects:
    """One image's objects: ``boxes`` (K, 4) pixel-edge corners, ``items`` what each writes
    back (YOLO: its class; VOC: its ``<object>`` element), ``tree`` a VOC file's document."""

    boxes: np.ndarray
    items: list = field(default_factory=list)
    tree: Any = None


class LabelFolder:
    """The label files of ``--annotations folder`` in ``fmt`` (``"yolo"`` or ``"voc"``)."""

    def __init__(self, folder: Path, fmt: str) -> None:
        if fmt not in FORMATS:
            raise UserError(f"--annotation-format must be coco, yolo or voc, got {fmt!r}")
        if not folder.is_dir():
            raise UserError(f"--annotations {folder}: with --annotation-format {fmt}, a folder "
                            f"of {FORMATS[fmt]} files (one per image), got "
                            f"{'a file' if folder.exists() else 'nothing there'}")
        self.folder, self.format, self.suffix = folder, fmt, FORMATS[fmt]

    def source(self, image: Path) -> Path:
        """The label file of an input image."""
        return self.folder / (image.stem + self.suffix)

    def dest(self, copy_path: Path) -> Path:
        """The label file written beside an augmented copy."""
        return copy_path.with_suffix(self.suffix)

    def check_some(self, images: list[Path]) -> None:
        """Refuse a folder that holds no label file for any input (a wrong folder, which would
        otherwise read as a set of background images)."""
        if images and not any(self.source(f).is_file() for f in images):
            raise UserError(f"--annotations {self.folder} holds no label file for any of the "
                            f"{len(images)} inputs (it should hold <image name>{self.suffix}, "
                            f"e.g. {self.source(images[0]).name})")

    # -- what an augment run asks of its annotations (as of a COCO dataset's) ---------------
    def inputs(self, files: list[Path]) -> set[Path]:
        """The input files a run must never write over besides the images: their labels."""
        return {self.source(f).resolve() for f in files}

    def beside(self, copy_path: Path) -> list[Path]:
        """The files written beside each copy: its label file."""
        return [self.dest(copy_path)]

    def read(self, image: Path, size: tuple[int, int]) -> tuple[Objects, np.ndarray]:
        """(the objects of an input of ``size`` = (width, height), after its EXIF orientation;
        their boxes)."""
        path = self.source(image)
        if self.format == "yolo":
            objects = _read_yolo(path, size) if path.exists() else Objects(np.zeros((0, 4)))
        elif not path.exists():
            raise ValueError(f"no label file {path}")
        else:
            objects = _read_voc(path, size)
        return objects, objects.boxes

    def copy(self, objects: Objects, kept: np.ndarray, boxes: np.ndarray, matrix: Any,
             out_size: tuple[int, int], chain: Any, pipe: Any) -> tuple:
        """A copy's labels: the objects ``kept`` (their indices) at ``boxes`` (pixel edges in
        the copy, of ``out_size``); the pipeline already moved them."""
        return objects, kept, boxes, out_size

    def write(self, made: tuple, copy_path: Path, overwrite: bool,
              protected: set[Path]) -> None:
        """The label file beside ``copy_path``, written atomically."""
        objects, kept, boxes, out_size = made
        dest = self.dest(copy_path)
        check_dest(dest, overwrite, protected)
        if self.format == "yolo":
            text = "".join(_yolo_line(objects.items[k], b, out_size) for k, b in zip(kept, boxes))
        else:
            text = _voc_text(objects, kept, boxes, out_size, copy_path.name)
        save_text_atomic(text, dest)

    def finish(self) -> None:
        """Nothing is left to write at the end: every copy's labels are beside it."""


def _read_yolo(path: Path, size: tuple[int, int]) -> Objects:
    w, h = size
    boxes, classes = [], []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file") from None
    for n, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        where = f"{path}:{n}"
        if len(fields) != 5:
            extra = " (a segmentation polygon or keypoints? only box labels are read)" \
                if len(fields) > 5 else ""
            raise ValueError(f"{where}: a YOLO box is 'class cx cy w h', 5 fields; this line "
                             f"has {len(fields)}{extra}")
        if not fields[0].isdigit():
            raise ValueError(f"{where}: the class must be a whole number >= 0, got "
                             f"{fields[0]!r:.40}")
        try:
            cx, cy, bw, bh = (float(v) for v in fields[1:])
        except ValueError:
            raise ValueError(f"{where}: cx cy w h must be numbers, got "
                             f"{' '.join(fields[1:])!r:.80}") from None
        if not all(math.isfinite(v) for v in (cx, cy, bw, bh)) or bw <= 0 or bh <= 0:
            raise ValueError(f"{where}: a box needs finite numbers and a width and height > 0, "
                             f"got {' '.join(fields[1:])}")
        corners = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
        if min(corners) < -EDGE or max(corners) > 1 + EDGE:
            raise ValueError(f"{where}: the box reaches outside the image (its corners "
                             f"{', '.join(f'{c:.4g}' for c in corners)} are not fractions in "
                             f"[0, 1]: pixel coordinates?)")
        boxes.append(np.clip(corners, 0, 1) * [w, h, w, h])
        classes.append(fields[0])
    return Objects(np.array(boxes, np.float64).reshape(-1, 4), classes)


def _yolo_line(cls: str, box: np.ndarray, size: tuple[int, int]) -> str:
    x1, y1, x2, y2 = box
    w, h = size
    return (f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
            f"{(y2 - y1) / h:.6f}\n")


def _number(el: Any, tag: str, where: str) -> float:
    text = el.findtext(tag) if el is not None else None
    try:
        v = float(text)
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v):
        raise ValueError(f"{where}: <{tag}> must be a number, got {text!r:.40}")
    return v


def _read_voc(path: Path, size: tuple[int, int]) -> Objects:
    try:
        tree = ET.parse(path)
    except ET.ParseError as e:
        raise ValueError(f"{path}: not valid XML ({e})") from None
    root = tree.getroot()
    if root.tag != "annotation":
        raise ValueError(f"{path}: a Pascal VOC file's root is <annotation>, got <{root.tag}>")
    w, h = size
    sz = root.find("size")
    if sz is not None and sz.find("width") is not None:
        fw, fh = (_number(sz, t, f"{path}: <size>") for t in ("width", "height"))
        if (fw, fh) != (w, h):
            raise ValueError(f"{path} says {fw:g}x{fh:g}, the image is {w}x{h} (after its EXIF "
                             f"orientation)")
    boxes, items = [], []
    for k, obj in enumerate(root.findall("object")):
        where = f"{path}: object {k} ({obj.findtext('name', '?')!s:.40})"
        box = obj.find("bndbox")
        if box is None:
            raise ValueError(f"{where} has no <bndbox>")
        xmin, ymin, xmax, ymax = (_number(box, t, where) for t in ("xmin", "ymin", "xmax", "ymax"))
        x1, y1, x2, y2 = xmin - 1, ymin - 1, xmax, ymax  # 1-based, ends included -> edges
        if x2 <= x1 or y2 <= y1:
            raise ValueError(f"{where}: xmax must be >= xmin and ymax >= ymin, got {xmin:g}, "
                             f"{ymin:g}, {xmax:g}, {ymax:g}")
        if x1 < -1 or y1 < -1 or x2 > w + 1 or y2 > h + 1:
            raise ValueError(f"{where}: the box {xmin:g}, {ymin:g}, {xmax:g}, {ymax:g} reaches "
                             f"outside the {w}x{h} image (VOC's pixels are 1 to {w} across)")
        boxes.append(np.clip([x1, y1, x2, y2], 0, [w, h, w, h]))
        items.append(obj)
    return Objects(np.array(boxes, np.float64).reshape(-1, 4), items, tree)


def _voc_text(objects: Objects, kept: np.ndarray, boxes: np.ndarray,
              out_size: tuple[int, int], name: str) -> str:
    root = copy.deepcopy(objects.tree.getroot())
    _set(root, "filename", name)
    sz = root.find("size")
    if sz is None:
        sz = ET.SubElement(root, "size")
    _set(sz, "width", str(out_size[0]))
    _set(sz, "height", str(out_size[1]))
    for obj in root.findall("object"):
        root.remove(obj)
    for k, (x1, y1, x2, y2) in zip(kept, boxes):
        obj = copy.deepcopy(objects.items[int(k)])
        box = obj.find("bndbox")
        xmin, ymin = int(round(x1)) + 1, int(round(y1)) + 1
        for tag, v in (("xmin", xmin), ("ymin", ymin), ("xmax", max(int(round(x2)), xmin)),
                       ("ymax", max(int(round(y2)), ymin))):
            _set(box, tag, str(v))
        root.append(obj)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def _set(parent: Any, tag: str, text: str) -> None:
    el = parent.find(tag)
    if el is None:
        el = ET.SubElement(parent, tag)
    el.text = text
