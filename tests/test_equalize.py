"""Equalize (histogram equalisation on the device, in CLAHE's kernels: kernels_cl/colour_pass.cl's
colour_clahe_hist, colour_clahe_lut with cl_eq_lut, and cp_equalize8) against albumentations
2.0.8's, which calls OpenCV's equalizeHist ("cv") or makes a Pillow-like table ("pil"), per
channel or on Y of OpenCV's 8-bit YCrCb: the same levels on photos, on every one of the 2^24
colours, on small images of few levels, uint8 and float32, 1 and 3 channels, after geometry,
in batches, on each device CI runs and on Oclgrind."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_batch_is_alone, ragged_crops, same_levels as _same, \
    small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449],
          skimage.data.camera()[..., None]]
MODES = list(itertools.product(("cv", "pil"), (True, False)))


def _albu(t, image: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image)["image"]


def _both(image: np.ndarray, mode: str, by_channels: bool, queue=None) -> None:
    ours = W.Compose([W.Equalize(mode=mode, by_channels=by_channels, p=1)])
    got = ours(image=image, seed=0, queue=queue)["image"]
    _same(got, _albu(A.Equalize(mode=mode, by_channels=by_channels, p=1), image))


@pytest.mark.parametrize("mode, by_channels", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(mode, by_channels, dtype, queue):
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        _both(img, mode, by_channels, queue)


def test_every_colour_through_ycrcb(queue):
    """All 2^24 colours in one image (its Y histogram every Y's count): OpenCV's RGB2YCrCb, the
    table and YCrCb2RGB, every pixel the same level, for both tables."""
    v = np.arange(1 << 24, dtype=np.uint32)
    img = np.stack([(v >> 16) & 255, (v >> 8) & 255, v & 255], -1).astype(np.uint8)
    img = img.reshape(4096, 4096, 3)
    for mode in ("cv", "pil"):
        _both(img, mode, False, queue)


def test_few_levels_and_every_size(queue):
    """Images of one level, two, a narrow range and all of them, 1 x 1 to 40 x 40 pixels, 1
    and 3 channels: OpenCV's special case (one level) and the "pil" table's (a step of 0)."""
    rng = np.random.default_rng(5)
    for k in range(48):
        h, w = (int(x) for x in rng.integers(1, 41, 2))
        c = (1, 3)[k % 2]
        lo = int(rng.integers(0, 256))
        hi = min(255, lo + (0, 1, 5, 255)[k % 4])
        img = rng.integers(lo, hi + 1, (h, w, c)).astype(np.uint8)
        mode, by_channels = MODES[k % 4]
        _both(img, mode, by_channels, queue)


def test_after_geometry_and_before_other_colour(queue):
    """The equalisation of the warped image (albumentations given warpkit's geometric output),
    with colour steps after it in the same pass and CLAHE in the next."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS[:3]):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.Equalize(by_channels=k != 1, p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                         W.CLAHE(clip_limit=(2, 2), p=1), W.Equalize(mode="pil", p=1)])(
            image=photo, seed=k, queue=queue)["image"]
        want = A.Compose([A.Equalize(by_channels=k != 1, p=1),
                          A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                          A.CLAHE(clip_limit=(2, 2), p=1), A.Equalize(mode="pil", p=1)])
        _same(out, _albu(want, base))


def test_a_batch_is_each_sample_alone(queue):
    """Ragged photos, the step applied to some samples (recorded), CLAHE on others in the same
    pass; the model's input made after it."""
    imgs = ragged_crops(PHOTOS[:3], 8)
    pipe = W.Compose([W.RandomResizedCrop(48),
                      W.OneOf([W.Equalize(p=1), W.Equalize(mode="pil", by_channels=False, p=1),
                               W.CLAHE(p=1)], p=0.8)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    assert_batch_is_alone(pipe, imgs, 3, queue)


def test_from_albumentations_and_refusals(tmp_path):
    recipe = A.Compose([A.Equalize(mode="pil", by_channels=False, p=0.3)])
    saved = tmp_path / "recipe.json"
    A.save(recipe, str(saved))
    for given in (recipe, A.to_dict(recipe), saved):
        ours = W.from_albumentations(given)
        t = ours.transforms[0]
        assert type(t).__name__ == "Equalize" and (t.mode, t.by_channels, t.p) == \
            ("pil", False, 0.3)
        assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="mask"):
        W.from_albumentations(A.Compose([A.Equalize(mask=np.ones((4, 4), np.uint8))]))
    with pytest.raises(ValueError, match="mask"):
        W.Equalize(mask_params=["mask"])
    with pytest.raises(ValueError, match="mode must be 'cv' or 'pil'"):
        W.Equalize(mode="skimage")
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.Equalize(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    for c in (2, 4):
        with pytest.raises(TypeError, match="1 or 3 channels"):
            W.Compose([W.Equalize(p=1)])(image=np.zeros((8, 8, c), np.uint8), seed=0)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32,
    each table and both ways of colour: albumentations' on the same device's geometric result.
    (Each channel count and dtype is a build of its own: rusticl compiles them slowly.)"""
    for geo, k, im, base in small_rotated_cases(PHOTOS[1][100:121, 200:223], small_queue):
        for mode, by_channels in MODES:
            out = W.Compose([geo, W.Equalize(mode=mode, by_channels=by_channels, p=1)])(
                image=im, seed=k, queue=small_queue)["image"]
            _same(out, _albu(A.Equalize(mode=mode, by_channels=by_channels, p=1), base))
