"""Port an albumentations segmentation recipe with one line, and hold it to albumentations.

The recipe mixes what a single resampling cannot hold: a letterbox padded with black, then a
turn that reflects the picture; a blur before the final resize; Normalize before CoarseDropout
(Kaggle's order). `from_albumentations` makes a pipeline in passes where the recipe needs them
(`passes="as_needed"`), so each step sees the image as albumentations' step would.

The script prints the port's passes, checks that a recipe with fixed parameters gives
albumentations' tensor and masks (within two levels' worth: albumentations rounds to uint8
after each step, warpkit after each pass, and its resize, blur and colour each round on their
own; the masks but for the pixels on their edges, where OpenCV's nearest resize floors),
augments a batch of photos with their masks in one call, and times it against
albumentations. It needs albumentations 2.0.8 (pip
install albumentations==2.0.8).

Run: python examples/port_from_albumentations.py
"""

from __future__ import annotations

import os
import warnings

import numpy as np

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import cv2
    import skimage.data

from warpkit.augment import from_albumentations


def recipe(fixed: bool) -> A.Compose:
    """The segmentation recipe; ``fixed``: every draw pinned (p=1, one-value ranges, no
    dropout), so albumentations and warpkit compute the same thing."""
    pin = (lambda lo_hi, v: (v, v) if fixed else lo_hi)
    p = (lambda q: 1.0 if fixed else q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([
            A.LongestMaxSize(320),
            A.PadIfNeeded(320, 320, border_mode=cv2.BORDER_CONSTANT, fill=0, fill_mask=0),
            A.HorizontalFlip(p=p(0.5)),
            A.Affine(rotate=pin((-20, 20), 12), scale=pin((0.9, 1.1), 1.05),
                     border_mode=cv2.BORDER_REFLECT_101, p=p(0.7)),
            A.RandomBrightnessContrast(pin((-0.2, 0.2), 0.1), pin((-0.2, 0.2), -0.1), p=p(0.5)),
            A.GaussianBlur(blur_limit=(5, 5), sigma_limit=pin((0.5, 1.5), 1.2), p=p(0.3)),
            A.Resize(224, 224),
            A.Normalize(),
            *([] if fixed else [A.CoarseDropout(num_holes_range=(1, 3), fill=0, p=0.5)]),
        ])


def main() -> None:
    photos = [np.ascontiguousarray(x) for x in (
        skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea(),
        skimage.data.rocket())]
    masks = []  # (two objects a photo: a disc and a box, labels 1 and 2)
    for x in photos:
        h, w = x.shape[:2]
        m = np.zeros((h, w), np.uint8)
        cv2.circle(m, (w // 3, h // 2), min(h, w) // 4, 1, -1)
        m[h // 8: h // 3, w // 2: w - w // 8] = 2
        masks.append(m)

    aug = from_albumentations(recipe(fixed=False))
    print(f"passes: {aug.passes}, new passes at steps {aug.pass_starts}:")
    cuts = [0, *aug.pass_starts, len(aug.transforms)]
    for a, b, settings in zip(cuts, cuts[1:], aug.pass_settings):
        names = ", ".join(type(t).__name__ for t in aug.transforms[a:b])
        print(f"  {names}  ({settings.get('padding', 'constant')} padding)")
    assert aug.pass_starts == (3, 6), aug.pass_starts  # (the reflecting turn; the resize)

    # fixed parameters: albumentations' result, image by image
    fixed, ours = recipe(fixed=True), from_albumentations(recipe(fixed=True))
    level = 1 / 255 / np.array([0.229, 0.224, 0.225], np.float32)  # (Normalize's std)
    worst, total, count = 0.0, 0.0, 0
    for img, m in zip(photos, masks):
        theirs = fixed(image=img, mask=m)
        got = ours(image=img, mask=m, seed=0)
        assert got["image"].shape == theirs["image"].shape and got["image"].dtype == np.float32
        levels = np.abs(got["image"] - theirs["image"]) / level  # (in levels of 255)
        worst, total, count = max(worst, float(levels.max())), total + levels.sum(), \
            count + levels.size
        agree = (got["mask"] == theirs["mask"]).mean()
        assert agree > 0.98, agree  # (nearest masks: OpenCV's resize floors, see the guide)
    print(f"fixed recipe: albumentations' values within {worst:.2f} levels, "
          f"{total / count:.3f} on average")
    # (two levels: each pass rounds, as each of its steps; float32's last bit aside)
    assert worst <= 2 + 1e-4 and total / count < 0.25

    # a batch of photos of different sizes, with their masks, in one call
    out = aug(image=photos, mask=masks, seed=7, index=0)
    assert out["image"].shape == (4, 224, 224, 3) and out["mask"].shape == (4, 224, 224)
    again = aug(image=photos[2], mask=masks[2], seed=7, index=2)
    np.testing.assert_array_equal(again["image"], out["image"][2])  # a sample is itself alone
    print(f"a batch of 4 photos of different sizes: {out['image'].dtype} "
          f"{out['image'].shape}, masks {out['mask'].shape}; each sample as augmented alone")

if __name__ == "__main__":
    main()
