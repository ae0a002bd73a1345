"""A training loop's augmentation: a ragged batch of photos (each its own size) with boxes,
keypoints and a mask, through RandomResizedCrop + flip + RandomAffine into the float32 CHW tensor
a model eats, one pipeline call per batch, reproducible per (seed, epoch, index).

With torch installed, pass the tensors straight in (``torch.from_numpy(...)``) and get tensors
back; with a DataLoader, collate with ``warpkit.augment.collate`` in the workers and call the
pipeline per batch in the main process (docs/guide.md).

    python examples/augment_pipeline.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

from warpkit import warp_perspective
from warpkit.augment import Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def dataset(n: int = 12):
    """n 'photos' of different sizes cut from the sample, each with one box (a bright square we
    paint), its centre as a keypoint, and its mask."""
    with Image.open(SAMPLE) as f:
        photo = np.asarray(f.convert("RGB"))
    rng = np.random.default_rng(0)
    items = []
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(140, min(photo.shape[:2]), 2))
        y, x = (int(rng.integers(0, photo.shape[0] - h)), int(rng.integers(0, photo.shape[1] - w)))
        img = photo[y:y + h, x:x + w].copy()
        x1, y1 = int(rng.integers(10, w // 2)), int(rng.integers(10, h // 2))
        img[y1:y1 + 40, x1:x1 + 40] = 255
        mask = np.zeros((h, w), np.uint8)
        mask[y1:y1 + 40, x1:x1 + 40] = 1
        items.append((img, mask, [[x1, y1, x1 + 40, y1 + 40]], [[x1 + 19.5, y1 + 19.5]]))
    return items


def main() -> None:
    data = dataset()
    pipe = Compose([RandomResizedCrop(160, scale=(0.6, 1.0)), RandomHorizontalFlip(),
                    RandomAffine(degrees=15, scale=(0.9, 1.1))],
                   padding="constant", min_visibility=0.3, output_dtype="float32",
                   mean=MEAN, std=STD, layout="CHW")
    batch_size = 4
    for epoch in range(2):
        for start in range(0, len(data), batch_size):
            items = data[start:start + batch_size]
            out = pipe(image=[d[0] for d in items], mask=[d[1] for d in items],
                       boxes=[d[2] for d in items], keypoints=[d[3] for d in items],
                       seed=7, epoch=epoch, index=start)
            x = out["image"]  # the model's input: one (B, 3, 160, 160) float32 array
            assert x.shape == (len(items), 3, 160, 160) and x.dtype == np.float32
            assert out["mask"].shape == (len(items), 160, 160)
            for k in range(len(items)):
                # each sample is what the composed map gives in one resampling
                again = warp_perspective(items[k][0], out["matrix"][k], size=(160, 160),
                                         output_dtype="float32", mean=MEAN, std=STD,
                                         layout="CHW")
                assert np.array_equal(again, x[k])
                # a kept box encloses its mask's pixels (a rotated square's tips are thinner
                # than a pixel, which nearest sampling may miss: 1.5 px)
                if len(out["boxes"][k]):
                    ys, xs = np.nonzero(out["mask"][k])
                    ref = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
                    assert np.abs(np.asarray(out["boxes"][k][0]) - ref).max() <= 1.5
            # the same (seed, epoch, index) gives the same batch, alone or not
            one = pipe(image=items[1][0], seed=7, epoch=epoch, index=start + 1)
            assert np.array_equal(one["image"], x[1])
    print(f"{len(data)} photos x 2 epochs augmented; last batch {x.shape} {x.dtype}, "
          f"boxes kept {[len(b) for b in out['boxes']]}")


if __name__ == "__main__":
    main()
