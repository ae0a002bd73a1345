"""Downscale (warpkit.augment.Downscale: nearest down and up, albumentations' default pair): the
host's table of source pixels (engine/core.downscale_tables) read in a pass after the warp;
checked against albumentations itself on real photos, uint8 and float32, 1-4 channels, scales
whose products land on whole numbers, on every device CI runs (Oclgrind for the small cases)."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine.core import downscale_tables, joined, split

from helpers import check_small_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

COFFEE = skimage.data.coffee()[::2, ::2].copy()  # 200 x 300 RGB
CAMERA = skimage.data.camera()[100:323, 50:311].copy()  # 223 x 261, one channel


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_split_carries_a_double_exactly():
    """The scale (and CLAHE's clip limit) travel as three float32 words whose sum is the double
    (two lost the last bits: floor(37 * (1 / 0.37)) came out 99, not 100)."""
    rng = np.random.default_rng(0)
    for x in [0.37, 0.9, 1 / 3, 2.56, *rng.uniform(0, 5, 2000)]:
        words = split(x)
        assert all(float(np.float32(w)) == w for w in words) and joined(words) == x


@pytest.mark.parametrize("photo", [COFFEE, CAMERA], ids=["rgb", "gray"])
@pytest.mark.parametrize("scale", [0.25, 0.37, 0.5, 0.9, 0.05, 0.333])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_downscale_equals_albumentations(photo, scale, dtype, queue):
    """A fixed scale: albumentations' image, every pixel (a nearest resize picks pixels)."""
    img = photo if dtype == "uint8" else photo.astype(np.float32) / 255
    t = dict(scale_range=(scale, scale), p=1)
    ours = W.Compose([W.Downscale(**t)])(image=img, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Downscale(**t), image=img)["image"]
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_tables_are_opencvs_nearest_resizes():
    """The host's source pixels are cv2.resize's, down by the scale and back, for sizes and
    scales drawn at random (2 and 4 channels too: the gather takes any channel count)."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        h, w = (int(v) for v in rng.integers(1, 400, 2))
        c = int(rng.integers(1, 5))
        scale = float(rng.uniform(0.02, 1.0))
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        ops = np.zeros((1, 12), np.float32)
        ops[0, :4] = W.Downscale().colour_ops({"scale": scale}, c, 255.0)[0]
        idx = downscale_tables([None, ops], w, h)[1][0]
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        if small.ndim == 2:
            small = small[..., None]
        want = cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST).reshape(h, w, c)
        np.testing.assert_array_equal(img[idx[w:]][:, idx[:w]], want)


def test_in_a_pipeline_and_alone_in_a_batch(queue):
    """After a resize and a brightness, before a blur: albumentations' steps on warpkit's
    resized image give the same levels (the blur within one); and a sample's result is the one
    it gets alone, beside samples that drew no downscale."""
    resized = W.Compose([W.Resize((150, 210))])(image=COFFEE, seed=0, queue=queue)["image"]
    steps = [W.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
             W.Downscale(scale_range=(0.4, 0.4), p=1), W.InvertImg(p=1)]
    ours = W.Compose([W.Resize((150, 210)), *steps])(image=COFFEE, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Compose([A.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
                               A.Downscale(scale_range=(0.4, 0.4), p=1), A.InvertImg(p=1)]),
                    image=resized)["image"]
    assert np.abs(ours.astype(int) - theirs).max() <= 1
    photos = [COFFEE, skimage.data.astronaut(), skimage.data.chelsea()]
    pipe = W.Compose([W.RandomResizedCrop(80), W.Downscale(scale_range=(0.2, 0.6), p=0.5),
                      W.GaussianBlur(p=0.3)], output_dtype="float32", mean=0.5, std=0.25,
                     layout="CHW")
    for seed in range(3):
        out = pipe(image=photos, seed=seed, queue=queue)
        for k, photo in enumerate(photos):
            np.testing.assert_array_equal(
                out["image"][k], pipe(image=photo, seed=seed, index=k, queue=queue)["image"])


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """A rotated 21 x 13 output through Downscale (scales that keep one pixel, and most of
    them), alone, after a brightness and before a blur's pass: the default device's numbers on
    each device, Oclgrind included."""
    img = skimage.data.astronaut()[100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.Downscale(scale_range=(0.3, 0.3), p=1)],
             [W.Downscale(scale_range=(0.01, 0.01), p=1)],
             [W.RandomBrightnessContrast(p=1), W.Downscale(scale_range=(0.7, 0.7), p=1),
              W.GaussianBlur(sigma_limit=(0.8, 0.8), p=1)]]
    check_small_cases(img, geo, cases, small_queue)


def test_refusals_and_the_port():
    """Other interpolation pairs resample twice: refused by name, as are uint16 images and
    scales outside (0, 1]; albumentations' Downscale ports with its parameters."""
    with pytest.raises(ValueError, match=r"Downscale\(interpolation_pair=.*\) is not supported"):
        W.Downscale(interpolation_pair={"downscale": cv2.INTER_AREA, "upscale": 1})
    with pytest.raises(ValueError, match="scale_range must lie in"):
        W.Downscale(scale_range=(0.0, 0.5))
    with pytest.raises(ValueError, match="scale_range"):
        W.Downscale(scale_range=(0.5, 1.5))
    with pytest.raises(TypeError, match="Downscale takes uint8 or float32 images"):
        W.Compose([W.Downscale(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    got = W.from_albumentations(_quiet(A.Compose, [A.Downscale(scale_range=(0.3, 0.6), p=0.2)]))
    (t,) = got.transforms
    assert (type(t).__name__, t.scale_range, t.p) == ("Downscale", (0.3, 0.6), 0.2)
    again = W.Compose.from_dict(got.to_dict())
    assert again.to_dict() == got.to_dict()
    with pytest.raises(ValueError, match="interpolation_pair"):
        W.from_albumentations(_quiet(A.Compose, [A.Downscale(
            interpolation_pair={"downscale": cv2.INTER_NEAREST, "upscale": cv2.INTER_LINEAR})]))
