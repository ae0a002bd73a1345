"""A YOLO-style detection recipe in one pass: Mosaic + Affine + HueSaturationValue + flip +
the letterbox to 640 x 640, over a ragged batch of photos with their boxes, labels and instance
masks. Every name and parameter is albumentations' (the port of such a recipe changes its
import), and each image is still resampled once: every cell of every mosaic, the rotation and
the letterbox are one map per pixel, with the colour applied on the way.

The script checks its own outputs: each kept box is the box of its object's mask pixels; every
box's label names an object of one of the images its mosaic drew; and the same (seed, epoch,
index) replays the batch exactly.

    python examples/detection_pipeline.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

from warpkit.augment import (Affine, Compose, HorizontalFlip, HueSaturationValue,
                             LongestMaxSize, Mosaic, PadIfNeeded)

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"
FILL = 114  # YOLO's grey


def dataset(n: int = 8, objects: int = 10):
    """n photos of different sizes cut from the sample, each with ``objects`` painted squares:
    their boxes, their ids (labels, unique over the set) and an instance mask of the ids."""
    with Image.open(SAMPLE) as f:
        photo = np.asarray(f.convert("RGB"))
    rng = np.random.default_rng(0)
    items, next_id = [], 1
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(240, min(photo.shape[:2]), 2))
        y, x = int(rng.integers(0, photo.shape[0] - h)), int(rng.integers(0, photo.shape[1] - w))
        img = photo[y:y + h, x:x + w].copy()
        mask = np.zeros((h, w), np.uint8)
        boxes, ids = [], []
        for _ in range(objects):
            s = int(rng.integers(16, 48))
            x1, y1 = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
            if mask[y1:y1 + s, x1:x1 + s].any():  # objects do not overlap here
                continue
            img[y1:y1 + s, x1:x1 + s] = rng.integers(0, 256, 3)
            mask[y1:y1 + s, x1:x1 + s] = next_id
            boxes.append([x1, y1, x1 + s, y1 + s])
            ids.append(next_id)
            next_id += 1
        items.append((img, mask, np.array(boxes, float), np.array(ids)))
    return items


def recipe() -> Compose:
    return Compose([
        Mosaic(grid_yx=(2, 2), target_size=(640, 640), cell_shape=(640, 640),
               center_range=(0.3, 0.7), fill=FILL, p=1.0),
        Affine(rotate=(-10, 10), scale=(0.8, 1.2), translate_percent=(-0.1, 0.1),
               border_mode=0, fill=FILL, p=1.0),
        HueSaturationValue(hue_shift_limit=10, sat_shift_limit=40, val_shift_limit=30, p=1.0),
        HorizontalFlip(p=0.5),
        LongestMaxSize(max_size=640),
        PadIfNeeded(min_height=640, min_width=640, border_mode=0, fill=FILL),
    ], bbox_params={"format": "pascal_voc", "label_fields": ["class_labels"],
                    "min_visibility": 0.2},
        # (albumentations' bbox_params clip the box around a turned box's whole outline, by
        # default; warpkit's "outline" keeps the part inside the picture: each box its
        # object's, which check() holds it to)
        box_border="outline")


def check(out: dict, items: list) -> int:
    """Each kept box against its object's mask pixels; labels from the images drawn."""
    checked = 0
    for k in range(len(items)):
        drawn = {k if src < 0 else src for *_, src in out["params"][k]["steps"][0]["cells"]}
        allowed = {int(i) for j in drawn for i in items[j][3]}
        mask = out["mask"][k]
        for box, label in zip(out["bboxes"][k], out["class_labels"][k]):
            assert int(label) in allowed, (k, label, drawn)
            ys, xs = np.nonzero(mask == label)
            if len(xs) < 16:  # a sliver nearest sampling may lose
                continue
            ref = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
            assert np.abs(np.asarray(box) - ref).max() <= 1.5, (k, label, box, ref)
            checked += 1
    return checked


def main() -> None:
    items = dataset()
    aug = recipe()
    batch = dict(image=[i for i, *_ in items], mask=[m for _, m, *_ in items],
                 bboxes=[b for *_, b, _ in items], class_labels=[c for *_, c in items])
    out = aug(**batch, seed=11, epoch=0, index=0)
    x = out["image"]
    assert x.shape == (len(items), 640, 640, 3) and x.dtype == np.uint8
    assert out["mask"].shape == (len(items), 640, 640)
    checked = check(out, items)
    assert checked >= 2 * len(items)
    again = aug(**batch, seed=11, epoch=0, index=0)  # the same keys: the same batch
    assert np.array_equal(again["image"], x)
    replay = aug.replay(out["params"], **batch)
    assert np.array_equal(replay["image"], x)
    print(f"{len(items)} photos -> {x.shape} {x.dtype}; boxes kept "
          f"{[len(b) for b in out['bboxes']]}, {checked} checked against their masks")


if __name__ == "__main__":
    main()
