"""Steps on the host in a training pipeline: a synthetic text-recognition set made from one
photo. Each sample gets a caption drawn into a box (TextImage, its words shuffled or dropped at
random), a Python function of your own (Lambda: here a sharpening with numpy), OneOf a WebP or
a JPEG round trip, and an inpainted hole (CoarseDropout with OpenCV's inpainting), around the
geometry and colour that run on the device. The pipeline runs as passes around the host steps,
its parameters drawn once per sample, so a batch replays exactly from ``out["params"]`` and
equals its samples called alone; ``out["overlay_data"]`` holds each sample's drawn captions
(the labels of a text-recognition model).

Needs OpenCV for WebP and the inpainting (``pip install opencv-python-headless``); the font is
Pillow's own TrueType face, written to a file.

    python examples/host_steps.py
"""

import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageFont

from warpkit.augment import (CoarseDropout, ColorJitter, Compose, HorizontalFlip,
                             ImageCompression, Lambda, OneOf, RandomResizedCrop, TextImage)

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"
CAPTIONS = ["a red fox at dawn", "the quick brown dog", "seven small stones in a row",
            "warm light over the hills"]


def sharpen(img, **kw):
    """A function of your own: an unsharp mask in numpy, in the image's dtype."""
    f = img.astype(np.float32)
    blur = (f + np.roll(f, 1, 0) + np.roll(f, -1, 0) + np.roll(f, 1, 1) + np.roll(f, -1, 1)) / 5
    return np.clip(f + 0.8 * (f - blur), 0, 255).astype(img.dtype)


def main() -> None:
    face = ImageFont.load_default(size=20)
    font = Path(tempfile.mkdtemp()) / "face.ttf"
    font.write_bytes(face.font_bytes)
    with Image.open(SAMPLE) as f:
        photo = np.asarray(f.convert("RGB"))
    rng = np.random.default_rng(0)
    photos = [photo[:int(rng.integers(200, photo.shape[0])), :int(rng.integers(200,
                                                                             photo.shape[1]))]
              for _ in range(8)]
    texts = [[{"bbox": [0.08, 0.1, 0.92, 0.35], "text": CAPTIONS[k % 4]},
              {"bbox": [0.1, 0.6, 0.7, 0.8], "text": CAPTIONS[(k + 1) % 4]}] for k in range(8)]

    pipe = Compose([RandomResizedCrop((160, 224), scale=(0.5, 1.0)), HorizontalFlip(),
                    TextImage(font_path=str(font), augmentations=("swap", "deletion", None),
                              font_color=(250, 250, 40), p=1),
                    Lambda(image=sharpen, name="sharpen", p=0.5),
                    OneOf([ImageCompression("webp", (30, 70), p=1),
                           ImageCompression("jpeg", (30, 70), p=1)], p=0.7),
                    ColorJitter(0.2, 0.2, 0.2, 0.02, p=0.8),
                    CoarseDropout(num_holes_range=(1, 2), hole_height_range=(0.1, 0.2),
                                  hole_width_range=(0.1, 0.2), fill="inpaint_telea", p=0.5)],
                   output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")

    out = pipe(image=photos, textimage_metadata=texts, seed=7, epoch=0, index=0)
    batch = np.asarray(out["image"])
    assert batch.shape == (8, 3, 160, 224) and batch.dtype == np.float32
    for k, labels in enumerate(out["overlay_data"]):
        given = {t["text"] for t in texts[k]}
        assert labels and all(d["original_text"] in given for d in labels)
        print(f"sample {k}: " + "; ".join(repr(d["text"]) for d in labels))

    again = pipe(image=photos, params=out["params"])  # (no metadata: the texts are recorded)
    assert np.array_equal(np.asarray(again["image"]), batch)
    alone = pipe(image=photos[3], textimage_metadata=texts[3], seed=7, epoch=0, index=3)
    assert np.array_equal(alone["image"], batch[3])

    sheet = np.concatenate([np.concatenate(list(batch[r * 4:(r + 1) * 4]), axis=2)
                            for r in range(2)], axis=1)
    picture = np.clip(sheet.transpose(1, 2, 0) * 0.25 + 0.5, 0, 1)
    Image.fromarray((picture * 255).astype(np.uint8)).save("host_steps.png")
    print(f"8 samples: replayed and alone equal; sheet written to host_steps.png "
          f"({sheet.shape[2]}x{sheet.shape[1]})")


if __name__ == "__main__":
    main()
