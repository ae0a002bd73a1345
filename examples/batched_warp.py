"""Augment a batch: 32 random affine warps of one image, one matrix each, in one launch, as a
training loop would, with a seeded generator so the batch can be replayed.

    python examples/batched_warp.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

import warpkit
from warpkit import geometry as g

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"


def random_matrices(rng: np.random.Generator, n: int, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    c = ((w - 1) / 2, (h - 1) / 2)
    return np.stack([
        g.compose(g.rotation(rng.uniform(-20, 20), c), g.scale(rng.uniform(0.8, 1.2), center=c),
                  g.translation(*rng.uniform(-10, 10, 2)))
        for _ in range(n)
    ])


def main() -> None:
    with Image.open(SAMPLE) as f:
        img = np.asarray(f.convert("RGB").resize((224, 224)))
    batch = np.broadcast_to(img, (32, *img.shape)).copy()
    mats = random_matrices(np.random.default_rng(42), 32, (224, 224))
    out = warpkit.warp_affine(batch, mats, padding="reflection")
    assert out.shape == batch.shape and out.dtype == np.uint8
    # each item equals warping that image alone, and the seed replays the batch
    for i in (0, 17, 31):
        assert np.array_equal(out[i], warpkit.warp_affine(batch[i], mats[i], padding="reflection"))
    again = warpkit.warp_affine(batch, random_matrices(np.random.default_rng(42), 32, (224, 224)),
                                padding="reflection")
    assert np.array_equal(out, again)
    print(f"warped a batch of {out.shape[0]} images of {out.shape[1:]} in one launch")


if __name__ == "__main__":
    main()
