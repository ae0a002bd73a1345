"""Augment a batch: 32 random affine warps of one image, one map each, in one launch, as a
training loop would, with a seeded generator so the batch can be replayed, and its box moved
along with each warp.

    python examples/batched_warp.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

import warpkit
from warpkit import geometry as g

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"


def main() -> None:
    with Image.open(SAMPLE) as f:
        img = np.asarray(f.convert("RGB").resize((224, 224)))
    batch = np.broadcast_to(img, (32, *img.shape)).copy()
    aug = warpkit.RandomAffine(degrees=20, translate=0.05, scale=(0.8, 1.2), hflip=0.5,
                               padding="reflection")
    out, mats = aug(batch, rng=42, return_matrices=True)
    assert out.shape == batch.shape and out.dtype == np.uint8 and mats.shape == (32, 3, 3)
    # each item equals warping that image alone with its map, and the seed replays the batch
    for i in (0, 17, 31):
        assert np.array_equal(out[i], warpkit.warp_affine(batch[i], mats[i], padding="reflection"))
    assert np.array_equal(out, aug(batch, rng=42))
    # a box annotation (the same box on every image) follows each image's map
    box = np.array([[56, 56, 168, 168]])
    moved = g.transform_boxes(mats, np.repeat(box, 32, 0), batch_indices=np.arange(32),
                              clip=(224, 224))
    assert moved.shape == (32, 4) and (moved[:, 2:] > moved[:, :2]).all()
    print(f"warped a batch of {out.shape[0]} images of {out.shape[1:]} in one launch; "
          f"box 0 {box[0].tolist()} -> {np.round(moved[0], 1).tolist()}")


if __name__ == "__main__":
    main()
