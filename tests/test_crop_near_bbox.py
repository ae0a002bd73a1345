"""RandomCropNearBBox (warpkit.augment._objects) against albumentations 2.0.8: its own draw fed
the same numbers, its whole pipeline where nothing is random (image, mask, boxes, keypoints),
the centre crop it falls back to, batches (a box per sample), replay, the port and the
refusals."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.chelsea()  # 300 x 451


class _Fed:
    """albumentations' Python random, giving the numbers warpkit's stream gives (randint(a, b)
    is the stream's integers(a, b + 1))."""

    def __init__(self, seed: int) -> None:
        self.rng = W.stream(seed)
        self.rng.random(), self.rng.random()  # (the pipeline's p and the step's, drawn first)

    def randint(self, a: int, b: int) -> int:
        return int(self.rng.integers(a, b + 1))


def test_crops_are_albumentations_draws(queue):
    """albumentations' get_params_dependent_on_data fed the same numbers gives the recorded
    crop, for boxes inside, across and outside the image's edges, and its crop of the image is
    the output, pixel for pixel."""
    rng = np.random.default_rng(1)
    hits = 0
    for seed in range(60):
        x0, y0 = int(rng.integers(-40, 430)), int(rng.integers(-40, 280))
        box = [x0, y0, x0 + int(rng.integers(2, 200)), y0 + int(rng.integers(2, 150))]
        shift = [(0.0, 0.3), (0.2, 0.5), (0.5, 0.5), (0.0, 0.0)][seed % 4]
        t = W.RandomCropNearBBox(max_part_shift=shift)
        try:
            out = W.Compose([t])(image=PHOTO, cropping_bbox=box, seed=seed, queue=queue)
        except ValueError as e:  # a box that leaves no area (albumentations: an empty image)
            assert "leaves no area" in str(e)
            continue
        crop = out["params"]["steps"][0]["crop"]
        theirs = A.RandomCropNearBBox(max_part_shift=shift)
        theirs.py_random = _Fed(seed)
        want = theirs.get_params_dependent_on_data({"shape": PHOTO.shape}, {"cropping_bbox": box})
        assert crop == [int(v) for v in want["crop_coords"]], (seed, box)
        np.testing.assert_array_equal(out["image"], theirs.apply(PHOTO, **want))
        hits += 1
    assert hits > 40


def test_without_shifts_the_pipeline_is_albumentations(queue):
    """max_part_shift 0 (nothing drawn): albumentations' own pipeline gives the same image,
    mask, boxes (clipped, labels kept) and keypoints."""
    rng = np.random.default_rng(2)
    mask = (rng.random(PHOTO.shape[:2]) < 0.3).astype(np.uint8)
    boxes = [[10.0, 20.0, 200.0, 150.0], [250.0, 100.0, 440.0, 290.0], [60.0, 60.0, 90.0, 80.0]]
    kps = [[100.0, 100.0], [300.0, 200.0], [70.0, 70.0]]
    box = [50, 40, 350, 250]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.RandomCropNearBBox(max_part_shift=(0, 0))],
                           bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]),
                           keypoint_params=A.KeypointParams(format="xy", remove_invisible=False))(
            image=PHOTO, mask=mask, bboxes=boxes, labels=[1, 2, 3], keypoints=kps,
            cropping_bbox=box)
    ours = W.Compose([W.RandomCropNearBBox(max_part_shift=(0, 0))], label_fields=["labels"],
                     remove_invisible=False)(
        image=PHOTO, mask=mask, boxes=boxes, labels=[1, 2, 3], keypoints=kps,
        cropping_bbox=box, seed=0, queue=queue)
    np.testing.assert_array_equal(ours["image"], theirs["image"])
    np.testing.assert_array_equal(ours["mask"], theirs["mask"])
    assert list(ours["labels"]) == list(theirs["labels"])
    np.testing.assert_allclose(np.asarray(ours["boxes"]), np.asarray(theirs["bboxes"]),
                               atol=1e-4)
    np.testing.assert_allclose(np.asarray(ours["keypoints"])[:, :2],
                               np.asarray(theirs["keypoints"])[:, :2], atol=1e-4)


def test_the_centre_crop_it_falls_back_to(queue):
    """Sides drawn past each other leave no width: the box's size about the image's centre, as
    albumentations' get_center_crop_coords places it."""
    box, found = [200, 100, 204, 140], 0
    for seed in range(200):
        out = W.Compose([W.RandomCropNearBBox(max_part_shift=(0.5, 0.5))])(
            image=PHOTO, cropping_bbox=box, seed=seed, queue=queue)
        crop = out["params"]["steps"][0]["crop"]
        theirs = A.RandomCropNearBBox(max_part_shift=(0.5, 0.5))
        theirs.py_random = _Fed(seed)
        want = theirs.get_params_dependent_on_data({"shape": PHOTO.shape}, {"cropping_bbox": box})
        assert crop == [int(v) for v in want["crop_coords"]]
        if crop == [(451 - 4) // 2, (300 - 40) // 2, (451 - 4) // 2 + 4, (300 - 40) // 2 + 40]:
            found += 1
    assert found >= 1


def test_batches_replay_port_and_refusals(queue):
    """A box per sample of a ragged batch: each sample as alone and replayed from its params
    (without the box); to_dict / from_dict and from_albumentations; the refusals."""
    photos = [PHOTO, skimage.data.astronaut(), skimage.data.coffee()]
    boxes = np.array([[100, 50, 300, 200], [0, 0, 120, 90], [300, 300, 600, 400]])
    pipe = W.Compose([W.RandomCropNearBBox(max_part_shift=(0.2, 0.4)), W.HorizontalFlip()])
    got = pipe(image=photos, cropping_bbox=boxes, seed=3, queue=queue)
    for k, photo in enumerate(photos):
        alone = pipe(image=photo, cropping_bbox=boxes[k], seed=3, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        again = pipe(image=photo, params=got["params"][k], queue=queue)
        np.testing.assert_array_equal(again["image"], got["image"][k])
        # (Compose.sample draws them from the same keyword, without the image)
        assert pipe.sample(photo.shape[:2], 3, index=k, cropping_bbox=boxes[k]) == \
            got["params"][k]
    t = W.RandomCropNearBBox(max_part_shift=0.25, cropping_bbox_key="roi", p=0.8)
    assert t.max_part_shift == (0.0, 0.25) == tuple(A.RandomCropNearBBox(0.25).max_part_shift)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.8
    out = W.Compose([t])(image=PHOTO, roi=[10, 10, 100, 100], seed=0, queue=queue)
    assert out["image"].shape[2] == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.RandomCropNearBBox(
            max_part_shift=(0.0, 0.25), cropping_bbox_key="roi", p=0.8)]))
    assert ported.transforms[0].config() == t.config()
    strict = W.Compose([W.OneOf([t])], strict=True)  # (its key is one the call takes)
    assert "roi" in strict.call_keys()
    assert strict(image=PHOTO, roi=[10, 10, 100, 100], seed=0, queue=queue)["image"].ndim == 3
    with pytest.raises(TypeError, match="does not know"):
        strict(image=PHOTO, cropping_bbox=[10, 10, 100, 100], seed=0, queue=queue)
    with pytest.raises(ValueError, match="the call has none"):
        W.Compose([W.RandomCropNearBBox()])(image=PHOTO, seed=0)
    with pytest.raises(ValueError, match="must be 4 whole numbers"):
        W.Compose([W.RandomCropNearBBox()])(image=PHOTO, cropping_bbox=[1.5, 2, 30, 40], seed=0)
    with pytest.raises(ValueError, match="leaves no area"):
        W.Compose([W.RandomCropNearBBox()])(image=PHOTO, cropping_bbox=[500, 10, 600, 60],
                                            seed=0)
    with pytest.raises(ValueError, match="max_part_shift"):
        W.RandomCropNearBBox(max_part_shift=(0.2, 1.5))
    with pytest.raises(ValueError, match="for 3 samples"):
        pipe(image=photos, cropping_bbox=boxes[:2], seed=0)
