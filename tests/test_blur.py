"""GaussianBlur (warpkit.augment, kernels_cl/colour_pass.cl's colour_blur_rows and the column
filter in colour_apply) against albumentations 2.0.8 itself and OpenCV's sepFilter2D (what
albumentations calls): on real photos, every dtype and channel count, kernels larger than the
image (reflected more than once), between other colour steps (a pass of its own, the mean of
the blurred image after it), with geometry and the model's input, in batches where some samples
blur and some do not, replayed and serialised, and on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._colour import gaussian_kernel

from helpers import check_small_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.blur import functional as AB
    import skimage.data

ASTRONAUT = skimage.data.astronaut()[:200, 100:330].copy()
CAMERA = skimage.data.camera()[200:330, :150].copy()  # one channel
CHELSEA = skimage.data.chelsea()[50:170, 100:260].copy()


def _albu(ts, **data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose(ts)(**data)


def _blur(sigma, ksize=0):
    return dict(sigma_limit=(sigma, sigma), blur_limit=(ksize, ksize), p=1)


def _levels(ours, theirs, peak=255.0):
    """The largest difference and the share of pixels that differ, in levels of ``peak``."""
    d = np.abs(ours.astype(np.float64) - theirs.astype(np.float64)) * (255.0 / peak)
    return d.max(), (d > 1e-3).mean()


#: (sigma, blur_limit): a size from sigma (0) as Pillow, given odd sizes, an even one (one more)
SETTINGS = [(0.5, 0), (1.0, 0), (1.7, 5), (2.0, 9), (3.0, 0), (0.8, 4), (6.0, 0)]


def test_kernel_is_albumentations():
    for sigma, ksize in SETTINGS + [(36.0, 0), (0.3, 3)]:
        np.testing.assert_allclose(gaussian_kernel(sigma, ksize),
                                   AB.create_gaussian_kernel_1d(sigma, ksize), rtol=1e-12)


@pytest.mark.parametrize("sigma,ksize", SETTINGS)
@pytest.mark.parametrize("photo", ["astronaut", "camera", "chelsea"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_gaussian_blur_is_albumentations(sigma, ksize, photo, dtype, queue):
    """Fixed sigma and size: albumentations' result within 1 level, the same level on nearly
    every pixel (uint8: both filter in float and round; float32: within float rounding)."""
    img = {"astronaut": ASTRONAUT, "camera": CAMERA, "chelsea": CHELSEA}[photo]
    img = img if dtype == np.uint8 else img.astype(np.float32) / 255
    ours = W.Compose([W.GaussianBlur(**_blur(sigma, ksize))])(image=img, seed=0,
                                                               queue=queue)["image"]
    theirs = _albu([A.GaussianBlur(**_blur(sigma, ksize))], image=img)["image"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if dtype == np.uint8:
        worst, share = _levels(ours, theirs)
        assert worst <= 1 and share < 1e-3
    else:
        np.testing.assert_allclose(ours, theirs, atol=2e-6)
    assert not np.array_equal(ours, img)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (37, 45, 3), (37, 45, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_channels_and_dtypes_are_opencvs_filter(shape, dtype, queue):
    """1-4 channels, uint8, uint16 and float32, against the filter albumentations calls
    (cv2.sepFilter2D with its kernel): within 1 level of the dtype."""
    rs = np.random.default_rng(3)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    base = cv2.resize(rs.random((9, 11, shape[2] if len(shape) == 3 else 1)), (45, 37))
    img = (base.reshape(shape) * peak).astype(dtype)
    k = AB.create_gaussian_kernel_1d(1.3, 0)
    theirs = cv2.sepFilter2D(img, -1, kernelX=k, kernelY=k).reshape(shape)
    ours = W.Compose([W.GaussianBlur(**_blur(1.3))])(image=img, seed=0, queue=queue)["image"]
    assert ours.dtype == img.dtype and ours.shape == shape
    if dtype == np.float32:
        np.testing.assert_allclose(ours, theirs, atol=2e-6)
    else:
        assert np.abs(ours.astype(np.int64) - theirs).max() <= 1


@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 7, 3), (6, 1, 3), (2, 3, 3), (5, 9, 1)],
                         ids=str)
def test_kernels_larger_than_the_image(shape, queue):
    """A radius past the image's size reflects again and again (OpenCV's BORDER_REFLECT_101
    at any distance), down to a single pixel."""
    rs = np.random.default_rng(len(shape) + shape[0])
    img = rs.integers(0, 256, shape, np.uint8)
    for sigma in (1.0, 4.0, 36.0):  # 36: the largest radius, 126
        k = AB.create_gaussian_kernel_1d(sigma, 0)
        theirs = cv2.sepFilter2D(img, -1, kernelX=k, kernelY=k).reshape(shape)
        ours = W.Compose([W.GaussianBlur(**_blur(sigma))])(image=img, seed=0,
                                                           queue=queue)["image"]
        assert np.abs(ours.astype(int) - theirs).max() <= 1, sigma


def test_between_other_colour_steps_as_albumentations(queue):
    """Brightness/contrast, then the blur, then a shift by the mean of the blurred image (a
    second pass after the blur's) and the gray conversion: albumentations' result in turn,
    within a level on nearly every pixel."""
    steps = [("RandomBrightnessContrast", dict(brightness_limit=(0.1, 0.1),
                                               contrast_limit=(0.3, 0.3), p=1)),
             ("GaussianBlur", _blur(1.5)),
             ("RandomBrightnessContrast", dict(brightness_limit=(-0.2, -0.2),
                                               contrast_limit=(0.1, 0.1),
                                               brightness_by_max=False, p=1)),
             ("ToGray", dict(p=1))]
    ours = W.Compose([getattr(W, n)(**kw) for n, kw in steps])(image=ASTRONAUT, seed=0,
                                                                queue=queue)["image"]
    theirs = _albu([getattr(A, n)(**kw) for n, kw in steps], image=ASTRONAUT)["image"]
    worst, share = _levels(ours, theirs)
    assert worst <= 2 and share < 0.02


def test_with_geometry_and_the_model_input_in_a_batch(queue):
    """Crops and flips, then the blur on the output (half the samples), a contrast on the image
    as it is then (some samples), normalised to float32 CHW: each sample of a batch and of a
    ragged list is the sample alone, and the model's input is the uint8 result normalised."""
    pipe = W.Compose([W.RandomResizedCrop(48), W.RandomHorizontalFlip(),
                      W.GaussianBlur(sigma_limit=(0.5, 2.5), p=0.5),
                      W.ColorJitter(0, 0.4, 0, 0, p=0.5)])
    photos = [ASTRONAUT, CHELSEA, ASTRONAUT[::2, ::3].copy(), CHELSEA[:60].copy()]
    listed = pipe(image=photos, seed=5, queue=queue)
    blurred = [p["steps"][2]["applied"] for p in listed["params"]]
    assert any(blurred) and not all(blurred)
    for k, photo in enumerate(photos):
        alone = pipe(image=photo, seed=5, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], listed["image"][k])
    batch = np.stack([cv2.resize(p, (64, 56)) for p in photos])
    together = pipe(image=batch, seed=5, queue=queue)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    model = W.Compose(pipe.transforms, output_dtype="float32", mean=mean, std=std,
                      layout="CHW")(image=batch, seed=5, queue=queue)["image"]
    expect = (together["image"] / 255.0 - mean) / std
    np.testing.assert_allclose(model, expect.transpose(0, 3, 1, 2), atol=1e-5)
    for k in range(len(batch)):
        alone = pipe(image=batch[k], seed=5, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], together["image"][k])


def test_recorded_replayed_serialised_and_ported(queue):
    pipe = W.Compose([W.RandomResizedCrop(40), W.GaussianBlur(blur_limit=(3, 9),
                                                              sigma_limit=(0.2, 3.0), p=0.9)])
    out = pipe(image=CHELSEA, seed=7, queue=queue)
    p = out["params"]["steps"][1]
    assert set(p) == {"applied", "sigma", "ksize"} and p["applied"] and 3 <= p["ksize"] <= 9
    again = pipe.replay(out["params"], image=CHELSEA, queue=queue)
    np.testing.assert_array_equal(again["image"], out["image"])
    back = W.Compose.from_dict(pipe.to_dict())
    np.testing.assert_array_equal(back(image=CHELSEA, seed=7, queue=queue)["image"],
                                  out["image"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.GaussianBlur(blur_limit=(3, 9),
                                                                 sigma_limit=(0.2, 3.0),
                                                                 p=0.9)]))
    t = ported.transforms[0]
    assert isinstance(t, W.GaussianBlur) and t.p == 0.9
    assert t.config() == pipe.transforms[1].config()
    # albumentations' one-number forms: (0, x)
    assert W.GaussianBlur(blur_limit=7, sigma_limit=2.0).config() == \
        {"blur_limit": [0, 7], "sigma_limit": [0.0, 2.0]}


def test_sizes_and_sigmas_drawn_as_albumentations():
    """sigma uniform in sigma_limit, the size a whole number of blur_limit (0: from sigma,
    even: one more): radius 0 (a size of 1) and a sigma of 0 leave the image alone."""
    t = W.GaussianBlur(blur_limit=(0, 8), sigma_limit=(0.0, 2.0), p=1)
    draws = [t.draw(np.random.default_rng(s), (10, 10)) for s in range(400)]
    assert {d["ksize"] for d in draws} == set(range(9))
    assert 0 <= min(d["sigma"] for d in draws) and max(d["sigma"] for d in draws) <= 2
    assert t.colour_ops({"sigma": 1.0, "ksize": 1}, 3, 255.0) == []
    assert t.colour_ops({"sigma": 0.0, "ksize": 5}, 3, 255.0) == []
    ops = t.colour_ops({"sigma": 9.0, "ksize": 0}, 3, 255.0)  # 63 taps: 32 weights
    assert ops[0][:2] == [14, 31.0] and [o[0] for o in ops[1:]] == [15, 15]
    weights = np.concatenate([ops[0][2:], ops[1][1:], ops[2][1:]])
    np.testing.assert_allclose(weights, gaussian_kernel(9.0, 0)[31:], rtol=1e-6)


def test_refused_arguments():
    with pytest.raises(ValueError, match="blur_limit must be whole numbers"):
        W.GaussianBlur(blur_limit=(3.5, 5))
    with pytest.raises(ValueError, match="sigma_limit must lie in"):
        W.GaussianBlur(sigma_limit=(-1, 2))
    with pytest.raises(ValueError, match="sigma_limit must have low <= high"):
        W.GaussianBlur(sigma_limit=(2, 1))
    with pytest.raises(ValueError, match="can reach 257 taps.*up to 255 taps"):
        W.GaussianBlur(blur_limit=(3, 256))
    with pytest.raises(ValueError, match="can reach 267 taps"):
        W.GaussianBlur(sigma_limit=(1, 38.0))
    W.GaussianBlur(sigma_limit=(1, 36.0), blur_limit=0)  # 253 taps: taken
    W.GaussianBlur(sigma_limit=(1, 80.0), blur_limit=(3, 255))  # the size never from sigma


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """After a rotation, both kernels' paths (8-wide and the one-pixel kernel under cubic),
    uint8 and float32, a radius past the 21 x 13 output and a small one, before and after a
    mean's pass: the default device's numbers, and the blur did something on this device."""
    img = ASTRONAUT[100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(21, 13))
    cases = [[W.GaussianBlur(**_blur(0.8))], [W.GaussianBlur(**_blur(5.0))],
             [W.RandomBrightnessContrast(brightness_by_max=False, p=1),
              W.GaussianBlur(**_blur(1.2, 5)), W.ColorJitter(0.2, 0.3, 0.2, 0, p=1)]]
    check_small_cases(img, geo, cases, small_queue)
