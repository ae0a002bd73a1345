"""UnsharpMask (warpkit.augment._filters, kernels_cl/colour.h's WK_COL_UNSHARP) against
albumentations 2.0.8 itself on photos, against the formula in double (OpenCV's separable
filter for both blurs) for 1-4 channels, three dtypes and kernels wider than the image, mixed
with GaussianBlur in one pass, in batches, replayed, ported, refused where warpkit cannot
follow, the engine's checks, and on every device and Oclgrind.

albumentations computes in float32 after dividing by the peak; its mask ``|v - blur| 255 >
threshold`` is a hard decision. Where the difference equals the threshold exactly (common with
OpenCV's 3-tap kernel on 8-bit images, whose blur is a multiple of 1/16 of a level), its float
rounding decides either way, and the mask's blur spreads that pixel's decision over its
neighbours: a few pixels in 10^4 differ by more than a level there. warpkit decides those ties
exactly (its 8-bit blurs with OpenCV's small kernels are exact in float), as the double
formula does."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._filters import _gaussian_1d

from helpers import assert_alone_and_replayed, check_small_cases, warp_with_rows

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee(),
          "chelsea": skimage.data.chelsea()}
PEAK = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0, np.dtype(np.float32): 1.0}

#: (ksize, sigma, alpha, threshold): OpenCV's small kernels (sigma 0: 3, 5, 7 taps), sigmas of
#: their own, albumentations' defaults' ends, a threshold of 0 (every changed pixel)
PARAMS = [(3, 0.0, 0.5, 10), (5, 0.0, 0.3, 10), (7, 0.0, 1.0, 5), (9, 1.5, 0.4, 0),
          (15, 0.0, 0.8, 20)]


def _step(ksize: int, sigma: float, alpha: float, threshold: int) -> W.UnsharpMask:
    return W.UnsharpMask(blur_limit=(ksize, ksize), sigma_limit=(sigma, sigma),
                         alpha=(alpha, alpha), threshold=threshold, p=1)


def _formula(img: np.ndarray, ksize: int, sigma: float, alpha: float,
             threshold: int) -> np.ndarray:
    """The unsharp mask in double: OpenCV's Gaussian kernel for (ksize, sigma) (float32
    weights, as the device takes them), both blurs by OpenCV's sepFilter2D with its default
    edges, the mask ``|v - blur| 255 / peak > threshold`` exact, integer images rounded."""
    peak = PEAK[img.dtype]
    v = img.astype(np.float64)
    if img.dtype == np.float32:
        v = np.clip(v, 0, 1)
    k = _gaussian_1d(ksize, sigma).astype(np.float64)

    def blur(x):
        return cv2.sepFilter2D(x, cv2.CV_64F, k, k, borderType=cv2.BORDER_REFLECT_101) \
            .reshape(x.shape)

    b = blur(v)
    soft = blur((np.abs(v - b) * (255.0 / peak) > threshold).astype(np.float64))
    out = np.clip(v + alpha * (v - b), 0, peak) * soft + v * (1 - soft)
    return np.rint(out) if img.dtype != np.float32 else out


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo, dtype, queue):
    """albumentations' apply with the same parameters: within a level but for the ties of its
    float mask (fewer than 5 pixels in 10^4, never more than 8 levels), float32 in levels of
    255; the image changed."""
    img = PHOTOS[photo] if dtype == np.uint8 else PHOTOS[photo].astype(np.float32) / 255
    scale = 1.0 if dtype == np.uint8 else 255.0
    for ksize, sigma, alpha, threshold in PARAMS:
        out = W.Compose([_step(ksize, sigma, alpha, threshold)])(image=img, seed=0,
                                                                  queue=queue)["image"]
        want = A.UnsharpMask(threshold=threshold, p=1).apply(img, ksize=ksize, sigma=sigma,
                                                             alpha=alpha)
        d = np.abs(out.astype(np.float64) - want) * scale
        assert out.dtype == img.dtype and out.shape == img.shape
        assert (d > 1).mean() < 5e-4 and d.max() <= 8, (ksize, sigma, alpha, threshold)
        assert (out != img).mean() > 0.05


def _near_formula(out: np.ndarray, img: np.ndarray, params: tuple) -> None:
    """``out`` is the formula's within a level on integer images (their mask is decided
    exactly); float32 within 1e-5 but for the values whose difference lands within float32's
    rounding of the threshold (at most 5 in 10^3: photos in levels of 255 are full of such
    ties with 3 taps; within 0.02)."""
    d = np.abs(out.astype(np.float64) - _formula(img, *params))
    if img.dtype == np.float32:
        assert (d > 1e-5).mean() <= 5e-3 and d.max() < 0.02, params
    else:
        assert d.max() <= 1, params


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_the_formula(dtype, queue):
    """The formula in double, on the three photos and every parameter set (_near_formula)."""
    for photo in PHOTOS.values():
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        for params in PARAMS:
            _near_formula(W.Compose([_step(*params)])(image=img, seed=0, queue=queue)["image"],
                          img, params)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_channels_dtypes_and_kernels_past_the_image(shape, dtype, queue):
    """1-4 channels, three dtypes, kernels wider than a small image (reflected as OpenCV
    reflects them): the formula (_near_formula)."""
    rs = np.random.default_rng(5)
    peak = PEAK[np.dtype(dtype)]
    smooth = cv2.resize(rs.random((6, 7, shape[2] if len(shape) == 3 else 1)),
                        shape[1::-1], interpolation=cv2.INTER_CUBIC).reshape(shape)
    img = np.clip((0.7 * smooth + 0.3 * rs.random(shape)) * peak, 0, peak).astype(dtype)
    for params in [(3, 0.0, 1.0, 10), (7, 0.0, 0.6, 4), (11, 2.0, 0.9, 0), (31, 0.0, 0.5, 8)]:
        out = W.Compose([_step(*params)])(image=img, seed=0, queue=queue)["image"]
        _near_formula(out, img, params)
        assert (out != img).any(), params


def test_draws_follow_albumentations_laws():
    """Odd sizes each as likely, sigma and alpha uniform in their ranges; albumentations'
    readings of a number for each argument."""
    t = W.UnsharpMask(blur_limit=(3, 9), sigma_limit=(0.5, 2.0), alpha=(0.1, 0.7), p=1)
    ps = [t.draw(np.random.default_rng(s), (32, 32)) for s in range(800)]
    sizes = np.bincount([p["ksize"] for p in ps], minlength=10)
    assert set(np.flatnonzero(sizes)) == {3, 5, 7, 9} and min(sizes[[3, 5, 7, 9]]) > 150
    sig, alpha = np.array([p["sigma"] for p in ps]), np.array([p["alpha"] for p in ps])
    assert 0.5 <= sig.min() and sig.max() <= 2.0 and abs(sig.mean() - 1.25) < 0.05
    assert 0.1 <= alpha.min() and alpha.max() <= 0.7 and abs(alpha.mean() - 0.4) < 0.02
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.UnsharpMask(blur_limit=9, sigma_limit=0.5, alpha=0.3)
        ours = W.UnsharpMask(blur_limit=9, sigma_limit=0.5, alpha=0.3)
        assert ours.blur_limit == theirs.blur_limit == (3, 9)
        assert ours.sigma_limit == tuple(theirs.sigma_limit) == (0.0, 0.5)
        assert ours.alpha == tuple(theirs.alpha) == (0.0, 0.3)
        assert W.UnsharpMask(blur_limit=(4, 8)).blur_limit == \
            A.UnsharpMask(blur_limit=(4, 8)).blur_limit == (5, 9)


def test_with_gaussian_blur_in_one_pass_batches_replay_and_port(queue):
    """Items of one launch starting their pass with an unsharp mask or a Gaussian blur (the
    same rows' launch, each its own columns) in a ragged batch after geometry, normalised to
    float CHW: each sample as alone, replayed from its params; to_dict / from_dict and
    from_albumentations keep the parameters."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    pipe = W.Compose([W.RandomResizedCrop(48), W.OneOf([W.GaussianBlur(p=1),
                                                        W.UnsharpMask(alpha=(0.5, 1), p=1)],
                                                       p=1),
                      W.RandomBrightnessContrast(p=1)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=4, queue=queue)
    assert {p["steps"][1]["choice"] for p in got["params"]} == {0, 1}  # both in the batch
    assert_alone_and_replayed(pipe, photos, got, 4, queue)
    t = W.UnsharpMask(blur_limit=(5, 11), sigma_limit=(0.2, 1.0), alpha=(0.3, 0.9),
                      threshold=25, p=0.4)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == t.p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.UnsharpMask(blur_limit=(5, 11), sigma_limit=(0.2, 1.0),
                                          alpha=(0.3, 0.9), threshold=25, p=0.4)])
    ported = W.from_albumentations(theirs).transforms[0]
    assert ported.config() == t.config() and ported.p == 0.4


def test_refused_arguments_and_the_engines_checks(queue):
    with pytest.raises(ValueError, match="reaches past warpkit's largest blur"):
        W.UnsharpMask(blur_limit=(3, 257))
    with pytest.raises(ValueError, match="threshold must be a whole number in \\[0, 255\\]"):
        W.UnsharpMask(threshold=300)
    with pytest.raises(ValueError, match="threshold"):
        W.UnsharpMask(threshold=2.5)
    with pytest.raises(ValueError, match="alpha"):
        W.UnsharpMask(alpha=(0.2, 1.5))
    with pytest.raises(ValueError, match="sigma_limit"):
        W.UnsharpMask(sigma_limit=(-1, 1))
    from warpkit.engine.core import COL_DATA, COL_UNSHARP

    img = PHOTOS["coffee"][:20, :30].copy()

    def warp(*rows):
        return warp_with_rows(img, list(rows), queue)

    for rows, match in [([[COL_UNSHARP, 128, 0.5, 10]], r"COL_UNSHARP's radius must be a whole "
                                                         r"number in \[0, 127\], got 128"),
                        ([[COL_UNSHARP, 1.5, 0.5, 10]], r"COL_UNSHARP's radius"),
                        ([[COL_UNSHARP, 9, 0.5, 10]], r"needs 10 values, its own words and 1 "
                                                      r"COL_DATA"),
                        ([[COL_UNSHARP, 1, np.nan, 10, 0.5, 0.25]],
                         r"COL_UNSHARP's amount and threshold must be finite")]:
        with pytest.raises(ValueError, match=match):
            warp(*rows)
    # 9 weights: 8 in the operation's own words, the last in a data operation
    k = _gaussian_1d(17, 0.0)
    ops = W.UnsharpMask(blur_limit=(17, 17), alpha=(1, 1), threshold=0, p=1).colour_ops(
        {"ksize": 17, "sigma": 0.0, "alpha": 1.0}, 3, 255.0)
    assert len(ops) == 2 and ops[1][0] == COL_DATA
    out = warp(*ops)
    np.testing.assert_allclose(ops[0][4:] + ops[1][1:2], k[8:], rtol=0, atol=0)
    assert np.abs(out.astype(np.float64) - _formula(img, 17, 0.0, 1.0, 0)).max() <= 1


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """An unsharp mask after a rotation (a kernel past the 21 x 13 output, weights continued in
    a data operation), one after a blur and before a colour step: the default device's
    numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.UnsharpMask(blur_limit=(5, 5), alpha=(1, 1), threshold=3, p=1)],
             [W.UnsharpMask(blur_limit=(23, 23), alpha=(0.8, 0.8), threshold=0, p=1)],
             [W.GaussianBlur(sigma_limit=(0.7, 0.7), p=1),
              W.UnsharpMask(blur_limit=(3, 3), alpha=(1, 1), threshold=0, p=1),
              W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
