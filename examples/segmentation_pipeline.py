"""A segmentation recipe in one pass per image: RandomResizedCrop + flip + GridElasticDeform +
ColorJitter + MaskDropout to the normalised float32 CHW input, over a ragged batch of photos
with their semantic masks (a class per pixel). Every name and parameter is albumentations'.
MaskDropout removes whole objects (each class's connected regions) of the mask as the crop
and the grid's cells (each warped by its own homography, in the same resampling) left it: the
call warps the masks first, finds their objects, and then resamples each image once with the
removed pixels filled on the way.

The script checks its own outputs: where a sample's recorded objects were removed the mask
holds 0 and the image the fill (0, normalised); everywhere else the mask is the one the same
geometry gives without MaskDropout; and the same (seed, epoch, index) replays the batch.

    python examples/segmentation_pipeline.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

from warpkit.augment import (ColorJitter, Compose, GridElasticDeform, HorizontalFlip,
                             MaskDropout, RandomResizedCrop)

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def dataset(n: int = 8):
    """n photos of different sizes cut from the sample, each with a semantic mask of three
    classes painted as discs (some touching, so that a class has several objects)."""
    with Image.open(SAMPLE) as f:
        photo = np.asarray(f.convert("RGB"))
    rng = np.random.default_rng(1)
    return [cut(photo, rng) for _ in range(n)]


def cut(photo: np.ndarray, rng: np.random.Generator):
    """A piece of the photo of a random size and its mask of discs."""
    h, w = (int(v) for v in rng.integers(200, min(photo.shape[:2]), 2))
    top = (int(rng.integers(0, photo.shape[0] - h)), int(rng.integers(0, photo.shape[1] - w)))
    mask = np.zeros((h, w), np.uint8)
    yy, xx = np.ogrid[:h, :w]
    for k in range(9):
        cy, cx, r = int(rng.integers(0, h)), int(rng.integers(0, w)), int(rng.integers(10, 50))
        mask[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = 1 + k % 3
    return photo[top[0]:top[0] + h, top[1]:top[1] + w], mask


def steps(drop: bool):
    return [RandomResizedCrop(size=(192, 192), scale=(0.4, 1.0)), HorizontalFlip(),
            GridElasticDeform(num_grid_xy=(4, 4), magnitude=8, p=0.5),
            ColorJitter(0.3, 0.3, 0.3, 0.05, p=0.8),
            *([MaskDropout(max_objects=(1, 3), fill=0, fill_mask=0, p=0.7)] if drop else [])]


def main() -> None:
    items = dataset()
    images, masks = [i for i, _ in items], [m for _, m in items]
    model = dict(output_dtype="float32", mean=MEAN, std=STD, layout="CHW")
    pipe = Compose(steps(True), **model)
    out = pipe(image=images, mask=masks, seed=7, epoch=2)
    # the same draws without MaskDropout: the same crops, flips, cells and colours (its draw
    # comes last)
    plain = Compose(steps(False), **model)(image=images, mask=masks, seed=7, epoch=2)
    fill = (0 - np.array(MEAN, np.float32)) / np.array(STD, np.float32)
    removed = 0
    for k, params in enumerate(out["params"]):
        p = params["steps"][4]
        hit = np.zeros((192, 192), bool)
        if p["applied"]:
            for x1, y, x2, _ in p["holes"]:
                hit[y, x1:x2] = True
        removed += int(hit.any())
        assert (out["mask"][k][hit] == 0).all()
        np.testing.assert_allclose(out["image"][k][:, hit], np.repeat(fill[:, None], hit.sum(), 1),
                                   atol=1e-5)
        assert np.array_equal(out["mask"][k][~hit], plain["mask"][k][~hit])
        assert (plain["mask"][k][hit] != 0).all()  # only objects were removed
    again = pipe(image=images, mask=masks, seed=7, epoch=2)
    assert np.array_equal(again["image"], out["image"]) and \
        np.array_equal(again["mask"], out["mask"])
    print(f"{len(images)} photos -> {out['image'].shape} float32 CHW and "
          f"{out['mask'].shape} masks; objects removed in {removed} of them; checks passed")


if __name__ == "__main__":
    main()
