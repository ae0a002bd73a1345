"""``warpkit augment --annotations coco.json``: the COCO dataset of the augmented copies.

Each input file is matched to its entry in the dataset's ``images`` (by file name, or by the
end of its path where several entries share a name); each copy gets a new image entry and its
objects moved by the copy's map (:func:`warpkit.augment.coco.transform_annotations`). The new
dataset keeps ``info``, ``licenses`` and ``categories`` and numbers images and annotations from 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._io import UserError, read_json


def _check_id(v: Any, where: str) -> None:
    """COCO's ids are integers (strings are taken too)."""
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise UserError(f"{where} must be an integer or a string, got {v!r:.60}")


class CocoSet:
    """The input dataset, indexed, and the output dataset as it grows."""

    def __init__(self, path: Path) -> None:
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

    def move(self, entry: dict, matrix: np.ndarray, out_size: tuple[int, int],
             min_visibility: float = 0.0, min_area: float = 0.0,
             chain: list | None = None) -> list[dict]:
        """``entry``'s objects for its image warped with ``matrix`` (or through ``chain``, a
        pipeline's with non-linear stages) to ``out_size`` (made before the copy is written, so
        that a bad annotation fails the file, not the dataset)."""
        from warpkit.augment.coco import transform_annotations

        src_size = (int(entry["width"]), int(entry["height"]))
        return transform_annotations(self.objects.get(entry["id"], []), matrix, src_size,
                                     out_size, min_visibility=min_visibility, min_area=min_area,
                                     chain=chain)

    def add(self, entry: dict, dest: Path, matrix: np.ndarray, out_size: tuple[int, int],
            moved: list[dict]) -> None:
        """The written copy ``dest`` of ``entry``'s image and its moved objects."""
        image_id = len(self.out["images"]) + 1
        new = {**entry, "id": image_id, "file_name": dest.name, "width": out_size[0],
               "height": out_size[1], "source_id": entry["id"],
               "matrix": np.round(matrix, 12).tolist()}
        self.out["images"].append(new)
        first = len(self.out["annotations"]) + 1
        for k, ann in enumerate(moved):
            ann.update(id=first + k, image_id=image_id)
        self.out["annotations"].extend(moved)
