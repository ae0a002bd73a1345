"""GaussianBlur, MotionBlur, Blur, MedianBlur, Sharpen and Emboss (warpkit.augment,
kernels_cl/colour_pass.cl's colour_blur_rows and the column filter in colour_apply, the taps,
the 3x3 filter and the median in colour_apply) against albumentations 2.0.8 itself and OpenCV's
sepFilter2D, filter2D, blur and medianBlur (what albumentations calls): on real photos, every
dtype and channel count, kernels larger than the image (reflected more than once), between
other colour steps (a pass of its own, the mean of the blurred image after it), with geometry
and the model's input, in batches where some samples blur and some do not, replayed and
serialised, and on every device and Oclgrind."""

from __future__ import annotations

import itertools
import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._colour import gaussian_kernel, motion_taps

from helpers import check_small_cases
from median_networks import BEGIN, END, SIZES, block, median_net, run

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
    _as_albumentations("GaussianBlur", _blur(sigma, ksize), img, queue, 1e-3)


def _as_albumentations(name: str, kw: dict, img: np.ndarray, queue, share_at_most: float):
    """warpkit's transform ``name`` and albumentations' with ``kw`` on ``img``: uint8 within a
    level, apart on at most ``share_at_most`` of the values; float32 within 2e-6; it blurred."""
    ours = W.Compose([getattr(W, name)(**kw)])(image=img, seed=0, queue=queue)["image"]
    theirs = _albu([getattr(A, name)(**kw)], image=img)["image"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if img.dtype == np.uint8:
        worst, share = _levels(ours, theirs)
        assert worst <= 1 and share <= share_at_most
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


def _replayed_and_serialised(pipe, queue) -> dict:
    """``pipe`` on CHELSEA (seed 7): replayed from its params and rebuilt from its to_dict, the
    same image; its second step's recorded parameters."""
    out = pipe(image=CHELSEA, seed=7, queue=queue)
    again = pipe.replay(out["params"], image=CHELSEA, queue=queue)
    np.testing.assert_array_equal(again["image"], out["image"])
    back = W.Compose.from_dict(pipe.to_dict())
    np.testing.assert_array_equal(back(image=CHELSEA, seed=7, queue=queue)["image"],
                                  out["image"])
    return out["params"]["steps"][1]


def test_recorded_replayed_serialised_and_ported(queue):
    pipe = W.Compose([W.RandomResizedCrop(40), W.GaussianBlur(blur_limit=(3, 9),
                                                              sigma_limit=(0.2, 3.0), p=0.9)])
    p = _replayed_and_serialised(pipe, queue)
    assert set(p) == {"applied", "sigma", "ksize"} and p["applied"] and 3 <= p["ksize"] <= 9
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


def _albu_motion_kernel(ksize, angle, direction, shift):
    """albumentations' own motion kernel for these numbers (its shift comes from its generator:
    handed over here), normalised as MotionBlur does."""
    import random

    class Given(random.Random):
        def uniform(self, a, b):
            return shift.pop(0)

    k = AB.create_motion_kernel(ksize, angle, direction, bool(shift), Given())
    return k.astype(np.float32) / np.sum(k)


def _motion(ksize, angle, direction):
    return dict(blur_limit=(ksize, ksize), angle_range=(angle, angle),
                direction_range=(direction, direction), allow_shifted=False, p=1)


def test_motion_taps_are_albumentations_kernel():
    rs = np.random.default_rng(0)
    for _ in range(300):
        ksize = int(rs.choice([3, 5, 7, 9, 15, 31]))
        angle, direction = float(rs.uniform(0, 360)), float(rs.uniform(-1, 1))
        shift = rs.uniform(-1, 1, 2).tolist() if rs.random() < 0.7 else None
        k = _albu_motion_kernel(ksize, angle, direction, list(shift) if shift else [])
        taps = motion_taps(ksize, angle, direction, shift)
        ours = np.zeros_like(k)
        ours[taps[:, 1] + ksize // 2, taps[:, 0] + ksize // 2] = np.float32(1) / len(taps)
        np.testing.assert_array_equal(ours, k)


MOTIONS = [(3, 0.0, 0.0), (5, 90.0, 0.0), (7, 33.0, -0.5), (9, 200.0, 0.8), (15, 291.0, -1.0)]


@pytest.mark.parametrize("ksize,angle,direction", MOTIONS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_motion_blur_is_albumentations(ksize, angle, direction, dtype, queue):
    """Fixed size, angle and direction (no shift): albumentations' result within 1 level (its
    uint8 filter2D sums in another order: a level apart on up to 4% of pixels)."""
    for img in (ASTRONAUT, CAMERA):
        img = img if dtype == np.uint8 else img.astype(np.float32) / 255
        _as_albumentations("MotionBlur", _motion(ksize, angle, direction), img, queue, 0.06)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_motion_blur_channels_dtypes_and_shifts(shape, dtype, queue):
    """1-4 channels, three dtypes, drawn shifts (recorded), kernels past a small image: OpenCV's
    filter2D with albumentations' kernel of the recorded numbers, within 1 level."""
    rs = np.random.default_rng(5)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (rs.random(shape) * peak).astype(dtype)
    pipe = W.Compose([W.MotionBlur(blur_limit=(5, 9), p=1)])
    for seed in range(4):
        out = pipe(image=img, seed=seed, queue=queue)
        p = out["params"]["steps"][0]
        k = _albu_motion_kernel(p["ksize"], p["angle"], p["direction"], list(p["shift"]))
        theirs = cv2.filter2D(img, -1, k).reshape(shape)
        tol = 2e-6 if dtype == np.float32 else 1
        assert np.abs(out["image"].astype(np.float64) - theirs).max() <= tol


def test_motion_blur_arguments_as_albumentations():
    with pytest.warns(UserWarning, match="adjusted to \\(3, 9\\)"):
        t = W.MotionBlur(blur_limit=(2, 8))
    assert t.blur_limit == (3, 9)
    assert W.MotionBlur(blur_limit=9).blur_limit == (3, 9)
    t = W.MotionBlur(blur_limit=(3, 9), allow_shifted=False, p=1)
    draws = [t.draw(np.random.default_rng(s), (10, 10)) for s in range(200)]
    assert {d["ksize"] for d in draws} == {3, 5, 7, 9} and "shift" not in draws[0]
    with pytest.raises(ValueError, match="angle_range must lie in"):
        W.MotionBlur(angle_range=(-10, 10))
    with pytest.raises(ValueError, match="direction_range must lie in"):
        W.MotionBlur(direction_range=(0, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.MotionBlur(blur_limit=(3, 11),
                                                               angle_range=(10, 80),
                                                               direction_range=(-0.5, 0.5),
                                                               allow_shifted=False, p=0.4)]))
    t = ported.transforms[0]
    assert isinstance(t, W.MotionBlur) and t.p == 0.4 and t.config() == {
        "blur_limit": [3, 11], "allow_shifted": False, "angle_range": [10.0, 80.0],
        "direction_range": [-0.5, 0.5]}
    back = W.Compose.from_dict(ported.to_dict()).transforms[0]
    assert back.config() == t.config()


@pytest.mark.parametrize("ksize", [3, 5, 9, 31])
@pytest.mark.parametrize("photo", ["astronaut", "camera", "chelsea"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_box_blur_is_albumentations(ksize, photo, dtype, queue):
    """Fixed size: albumentations' Blur (cv2.blur) within 1 level, the same level on nearly
    every pixel (on PoCL every pixel: an odd size's mean is never halfway between two levels,
    and the float sums land within 1e-4 of it); float32 within 2e-6."""
    img = {"astronaut": ASTRONAUT, "camera": CAMERA, "chelsea": CHELSEA}[photo]
    img = img if dtype == np.uint8 else img.astype(np.float32) / 255
    _as_albumentations("Blur", dict(blur_limit=(ksize, ksize), p=1), img, queue, 1e-3)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_box_blur_channels_dtypes_and_drawn_sizes(shape, dtype, queue):
    """1-4 channels, three dtypes, sizes drawn per seed (recorded), sizes past a small image
    (reflected again and again): cv2.blur of the recorded size, within 1 level."""
    rs = np.random.default_rng(7)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (rs.random(shape) * peak).astype(dtype)
    pipe = W.Compose([W.Blur(blur_limit=(3, 11), p=1)])
    sizes = set()
    for seed in range(6):
        out = pipe(image=img, seed=seed, queue=queue)
        k = out["params"]["steps"][0]["ksize"]
        sizes.add(k)
        theirs = cv2.blur(img, (k, k)).reshape(shape)
        tol = 2e-6 if dtype == np.float32 else 1
        assert out["image"].dtype == img.dtype and out["image"].shape == shape
        assert np.abs(out["image"].astype(np.float64) - theirs).max() <= tol, k
    assert len(sizes) > 1


def test_box_blur_arguments_replay_and_port(queue):
    """albumentations' blur_limit (``x``: (3, x); below 3 or even adjusted with its warning),
    each odd size as likely, sizes past 255 refused; recorded, replayed, serialised, ported."""
    with pytest.warns(UserWarning, match="adjusted to \\(3, 9\\)"):
        t = W.Blur(blur_limit=(2, 8))
    assert t.blur_limit == (3, 9) and W.Blur(blur_limit=9).blur_limit == (3, 9)
    draws = [W.Blur(p=1).draw(np.random.default_rng(s), (10, 10))["ksize"] for s in range(300)]
    assert set(draws) == {3, 5, 7} and min(draws.count(k) for k in (3, 5, 7)) > 70
    with pytest.raises(ValueError, match="can reach 257 taps.*up to 255 taps"):
        W.Blur(blur_limit=(3, 257))
    W.Blur(blur_limit=(3, 255))
    pipe = W.Compose([W.RandomResizedCrop(40), W.Blur(blur_limit=(3, 9), p=0.9)])
    p = _replayed_and_serialised(pipe, queue)
    assert set(p) == {"applied", "ksize"} and p["applied"] and p["ksize"] in (3, 5, 7, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.Blur(blur_limit=(3, 11), p=0.3)]))
    t = ported.transforms[0]
    assert isinstance(t, W.Blur) and t.p == 0.3 and t.config() == {"blur_limit": [3, 11]}


def test_median_networks_select_the_median():
    """The kernel holds tests/median_networks.py's networks as they are made, and they select
    the median: every 0/1 input of 9 values (the 0-1 principle: a comparator network that
    selects the median of every 0/1 input selects it of any input), and random levels with
    many ties for 9, 25 and 49."""
    from importlib import resources

    src = resources.files("warpkit.kernels_cl").joinpath("colour_pass.cl").read_text("utf-8")
    assert src[src.index(BEGIN):src.index(END) + len(END)] + "\n" == block()
    net, at = median_net(9)
    bits = (np.arange(512)[None, :] >> np.arange(9)[:, None]) & 1
    np.testing.assert_array_equal(run(net, list(bits))[at], (bits.sum(0) > 4).astype(int))
    rs = np.random.default_rng(0)
    for k in SIZES:
        net, at = median_net(k * k)
        for top in (3, 256):
            x = rs.integers(0, top, (k * k, 20000))
            np.testing.assert_array_equal(run(net, list(x))[at], np.median(x, 0))


def _median_reference(img: np.ndarray, k: int) -> np.ndarray:
    """Each channel's median of the k x k square around each pixel, the edge pixels repeated
    (cv2.medianBlur's rule, for any channel count and dtype)."""
    from numpy.lib.stride_tricks import sliding_window_view

    a = img.reshape(*img.shape[:2], -1)
    padded = np.pad(a, ((k // 2, k // 2), (k // 2, k // 2), (0, 0)), mode="edge")
    win = sliding_window_view(padded, (k, k), axis=(0, 1))
    return np.median(win.reshape(*win.shape[:3], -1), -1).astype(img.dtype).reshape(img.shape)


@pytest.mark.parametrize("ksize", [3, 5, 7, 9])
@pytest.mark.parametrize("photo", ["astronaut", "camera", "chelsea"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_median_blur_is_albumentations(ksize, photo, dtype, queue):
    """Fixed size: albumentations' MedianBlur (cv2.medianBlur on 8-bit levels) exactly for
    uint8 (the median is a selection), float32 within float division's rounding; sizes 3-7 by
    the networks, 9 by the search."""
    img = {"astronaut": ASTRONAUT, "camera": CAMERA, "chelsea": CHELSEA}[photo]
    img = img if dtype == np.uint8 else img.astype(np.float32) / 255
    kw = dict(blur_limit=(ksize, ksize), p=1)
    ours = W.Compose([W.MedianBlur(**kw)])(image=img, seed=0, queue=queue)["image"]
    theirs = _albu([A.MedianBlur(**kw)], image=img)["image"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if dtype == np.uint8:
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, atol=1e-7, rtol=0)
    assert not np.array_equal(ours, img)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3), (1, 1, 3),
                                   (2, 3, 1)], ids=str)
def test_median_blur_channels_sizes_and_edges(shape, queue):
    """1-4 channels, images smaller than the square (edges repeated past the whole image),
    every size of both ways (networks 3-7, the search 9-31): the median of each channel's
    square with the edge pixels repeated; uint8 exactly on every shape, float32 as levels of
    255 on those of 1 and 3 channels, uint16 (the engine's operation: MedianBlur refuses it, as
    albumentations) on its own levels on those of 2 and 4 (each dtype and channel count is a
    build of its own: every pairing took 12 builds and 47 s of a CI run, these 8)."""
    from warpkit.engine.core import COL_MEDIAN, COLOUR_WORDS, warp_by

    rs = np.random.default_rng(len(shape) + shape[0])
    img = rs.integers(0, 256, shape).astype(np.uint8)
    h, w = shape[:2]
    channels = shape[2] if len(shape) == 3 else 1
    for k in (7, 5, 3, 9, 13, 31):  # (7 first: its build serves 5 as well, and the rest)
        pipe = W.Compose([W.MedianBlur(blur_limit=(k, k), p=1)])
        want = _median_reference(img, k)
        np.testing.assert_array_equal(pipe(image=img, seed=0, queue=queue)["image"], want)
        if channels in (1, 3):
            got = pipe(image=img.astype(np.float32) / 255, seed=0, queue=queue)["image"]
            np.testing.assert_allclose(got, want / np.float32(255), atol=1e-7, rtol=0)
        else:
            wide = (img.astype(np.uint16) * 257 + rs.integers(0, 257, shape)).astype(np.uint16)
            ops = np.zeros((1, COLOUR_WORDS), np.float32)
            ops[0, :2] = COL_MEDIAN, k
            out = warp_by(wide, np.eye(3), (w, h), queue=queue, colour=ops)
            np.testing.assert_array_equal(out, _median_reference(wide, k))


def test_median_blur_arguments_port_and_batches(queue):
    """blur_limit as albumentations' (odd sizes from 3, adjusted with its warning), sizes past
    31 refused, uint16 refused (albumentations takes uint8 and float32); recorded, replayed,
    serialised, ported; in a ragged batch with geometry and the model's input each sample is
    the sample alone, and the median went before the operations after it."""
    with pytest.warns(UserWarning, match="adjusted to \\(3, 5\\)"):
        assert W.MedianBlur(blur_limit=(2, 4)).blur_limit == (3, 5)
    draws = {W.MedianBlur(p=1).draw(np.random.default_rng(s), (9, 9))["ksize"]
             for s in range(60)}
    assert draws == {3, 5, 7}
    with pytest.raises(ValueError, match="size can reach 33.*up to 31 x 31"):
        W.MedianBlur(blur_limit=(3, 33))
    with pytest.raises(TypeError, match="MedianBlur takes uint8 or float32 images"):
        W.Compose([W.MedianBlur(p=1)])(image=CHELSEA.astype(np.uint16), seed=0, queue=queue)
    pipe = W.Compose([W.RandomResizedCrop(40), W.MedianBlur(blur_limit=(3, 9), p=0.9)])
    p = _replayed_and_serialised(pipe, queue)
    assert set(p) == {"applied", "ksize"} and p["applied"] and p["ksize"] in (3, 5, 7, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.MedianBlur(blur_limit=5, p=0.2)]))
    t = ported.transforms[0]
    assert isinstance(t, W.MedianBlur) and t.p == 0.2 and t.config() == {"blur_limit": [3, 5]}
    pipe = W.Compose([W.RandomResizedCrop((29, 37)), W.RandomHorizontalFlip(),
                      W.MedianBlur(p=0.6), W.RandomBrightnessContrast(p=0.8)],
                     output_dtype="float32", mean=0.5, std=0.25, layout="CHW")
    photos = [ASTRONAUT, CHELSEA, CAMERA[..., None].repeat(3, 2), ASTRONAUT[::3, ::2].copy()]
    listed = pipe(image=photos, seed=4, queue=queue)
    assert any(p["steps"][2]["applied"] for p in listed["params"])
    for k, photo in enumerate(photos):
        alone = pipe(image=photo, seed=4, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], listed["image"][k])


FILTERS = [("Sharpen", dict(alpha=(0.3, 0.3), lightness=(0.7, 0.7), p=1)),
           ("Sharpen", dict(alpha=(1.0, 1.0), lightness=(0.0, 0.0), p=1)),
           ("Emboss", dict(alpha=(0.4, 0.4), strength=(0.5, 0.5), p=1)),
           ("Emboss", dict(alpha=(1.0, 1.0), strength=(1.0, 1.0), p=1))]


@pytest.mark.parametrize("name,kw", FILTERS, ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("photo", ["astronaut", "camera", "chelsea"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_sharpen_and_emboss_are_albumentations(name, kw, photo, dtype, queue):
    """Fixed parameters: albumentations' Sharpen and Emboss (cv2.filter2D with their kernel,
    clipped) within 1 level, apart on under 1% of uint8 pixels (OpenCV's float sums round
    otherwise at a few halves); float32 within 1e-6."""
    img = {"astronaut": ASTRONAUT, "camera": CAMERA, "chelsea": CHELSEA}[photo]
    img = img if dtype == np.uint8 else img.astype(np.float32) / 255
    ours = W.Compose([getattr(W, name)(**kw)])(image=img, seed=0, queue=queue)["image"]
    theirs = _albu([getattr(A, name)(**kw)], image=img)["image"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if dtype == np.uint8:
        worst, share = _levels(ours, theirs)
        assert worst <= 1 and share < 0.01
    else:
        np.testing.assert_allclose(ours, theirs, atol=1e-6, rtol=0)
    assert not np.array_equal(ours, img)


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3), (1, 1, 3)],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_sharpen_and_emboss_channels_dtypes_and_draws(shape, dtype, queue):
    """1-4 channels, three dtypes, drawn parameters (recorded), images smaller than the
    kernel: cv2.filter2D with the kernel of the recorded numbers, clipped, within 1 level."""
    rs = np.random.default_rng(9)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (rs.random(shape) * peak).astype(dtype)
    for t in (W.Sharpen(p=1), W.Emboss(p=1)):
        pipe = W.Compose([t])
        for seed in range(3):
            out = pipe(image=img, seed=seed, queue=queue)
            k = t.kernel(out["params"]["steps"][0])
            theirs = np.clip(cv2.filter2D(img, -1, k).reshape(shape), 0, peak)
            tol = 2e-6 if dtype == np.float32 else 1
            assert out["image"].dtype == img.dtype and out["image"].shape == shape
            assert np.abs(out["image"].astype(np.float64) - theirs).max() <= tol


def test_sharpen_and_emboss_arguments_and_port(queue):
    """alpha within [0, 1], lightness and strength >= 0, Sharpen's gaussian method refused
    (and its own arguments); drawn alpha first, recorded, replayed, serialised, ported."""
    with pytest.raises(ValueError, match=r"Sharpen\(method='gaussian'\) is not supported"):
        W.Sharpen(method="gaussian")
    with pytest.raises(ValueError, match="kernel_size and sigma serve method='gaussian'"):
        W.Sharpen(kernel_size=7)
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\]"):
        W.Emboss(alpha=(0.2, 1.5))
    with pytest.raises(ValueError, match=r"strength must lie in \[0, inf\]"):
        W.Emboss(strength=(-1, 1))
    d = W.Sharpen(alpha=(0.2, 0.4), lightness=(1, 2), p=1).draw(np.random.default_rng(3), (9, 9))
    u = np.random.default_rng(3).random(2)
    assert d == {"alpha": 0.2 + 0.2 * u[0], "lightness": 1 + u[1]}
    for t, theirs in ((W.Sharpen(alpha=(0.1, 0.6), lightness=(0.2, 1.5), p=0.9),
                       A.Sharpen(alpha=(0.1, 0.6), lightness=(0.2, 1.5), p=0.3)),
                      (W.Emboss(alpha=(0.1, 0.6), strength=(0.3, 0.9), p=0.9),
                       A.Emboss(alpha=(0.1, 0.6), strength=(0.3, 0.9), p=0.3))):
        pipe = W.Compose([W.RandomResizedCrop(40), t])
        p = _replayed_and_serialised(pipe, queue)
        assert p["applied"] and 0.1 <= p["alpha"] <= 0.6
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ported = W.from_albumentations(A.Compose([theirs])).transforms[0]
        assert type(ported) is type(t) and ported.p == 0.3 and ported.config() == t.config()


def test_engine_refuses_filters_it_cannot_read(queue):
    """The engine's colour operations come from any caller: a blur's radius past its tables, a
    tap count or radius that is not whole, and values that run past the operations that hold
    them are refused before any launch (the kernel would read or write past its arrays)."""
    from warpkit.engine.core import (COL_BLUR, COL_DATA, COL_MEDIAN, COL_MOTION, COLOUR_WORDS,
                                     warp_by)
    from warpkit.engine.plan import MAX_BLUR_RADIUS

    img = CHELSEA[:20, :30].copy()

    def ops(*rows):
        out = np.zeros((1, COLOUR_WORDS * len(rows)), np.float32)
        for j, row in enumerate(rows):
            out[0, j * COLOUR_WORDS:j * COLOUR_WORDS + len(row)] = row
        return out

    def warp(colour):
        return warp_by(img, np.eye(3), (30, 20), queue=queue, colour=colour)

    data = [COL_DATA] + [0.01] * 11
    for colour, match in [
            (ops([COL_BLUR, MAX_BLUR_RADIUS + 1]), r"COL_BLUR's radius must be a whole number in "
                                                   r"\[0, 127\], got 128"),
            (ops([COL_BLUR, 2.5, 0.4, 0.2, 0.1]), r"radius must be a whole number.*got 2.5"),
            (ops([COL_BLUR, 10, 0.2]), r"COL_BLUR's radius 10 needs 11 values, its own words "
                                       r"and 1 COL_DATA operations after it"),
            (ops([COL_BLUR, 30, 0.2], data, [1, 1, 1, 1, 1]), r"radius 30 needs 31 values"),
            (ops([COL_MOTION, 5, 0.2, 0, 0]), r"COL_MOTION's tap count 5 needs 10 values"),
            (ops([COL_MOTION, -1, 0.2]), r"tap count must be a whole number.*got -1"),
            (ops([COL_MEDIAN, 4]), r"COL_MEDIAN's size must be an odd whole number in \[1, "
                                   r"31\], got 4"),
            (ops([COL_MEDIAN, 33]), r"COL_MEDIAN's size.*got 33"),
            (ops([COL_MEDIAN, 2.5]), r"COL_MEDIAN's size.*got 2.5")]:
        with pytest.raises(ValueError, match=match):
            warp(colour)
    # the same operations with their values in place are taken
    half = gaussian_kernel(3.0, 0)[10:].astype(np.float32).tolist()
    out = warp(ops([COL_BLUR, 10, *half[:10]], [COL_DATA, half[10]]))
    k = AB.create_gaussian_kernel_1d(3.0, 0)
    assert np.abs(out.astype(int) - cv2.sepFilter2D(img, -1, kernelX=k, kernelY=k)).max() <= 1


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """After a rotation, both kernels' paths (8-wide and the one-pixel kernel under cubic),
    uint8 and float32, a radius past the 21 x 13 output and a small one, before and after a
    mean's pass, motion blurs (one past the output) and one followed by a Gaussian one, a box
    blur past the output, medians by the 3x3 network and by the search (whose builds leave the
    larger networks out), Sharpen and Emboss: the default device's numbers, and the filter did
    something on this device."""
    img = ASTRONAUT[100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.GaussianBlur(**_blur(0.8))], [W.GaussianBlur(**_blur(5.0))],
             [W.RandomBrightnessContrast(brightness_by_max=False, p=1),
              W.GaussianBlur(**_blur(1.2, 5)), W.ColorJitter(0.2, 0.3, 0.2, 0, p=1)],
             [W.MotionBlur(blur_limit=(7, 7), p=1)], [W.MotionBlur(blur_limit=(31, 31), p=1)],
             [W.MotionBlur(p=1), W.RandomGamma(p=1), W.GaussianBlur(**_blur(0.7))],
             [W.Blur(blur_limit=(41, 41), p=1)],
             [W.MedianBlur(blur_limit=(3, 3), p=1), W.Sharpen(p=1)],
             [W.Emboss(p=1), W.MedianBlur(blur_limit=(9, 9), p=1)]]
    check_small_cases(img, geo, cases, small_queue)


def test_the_passes_tiling_does_not_change_a_pixel(queue, monkeypatch, fresh_plans):
    """colour_blur_rows and colour_apply take engine.plan.PASS_ROWS rows per work-group on CPU
    devices, each work-item a run of the tile's blocks, and a row each with neighbours on
    neighbouring blocks elsewhere (rows = 1): every tiling, those of GPUs and tiles that do not
    divide the height included, gives the same pixels (a blur's rows and columns, a motion
    blur, a contrast's mean and the model's input; widths that leave a partial block)."""
    from warpkit.engine import plan

    colour = [W.GaussianBlur(sigma_limit=(0.5, 2.5), p=0.6), W.MotionBlur(blur_limit=(3, 7), p=0.6),
              W.ColorJitter(0.2, 0.4, 0.3, 0, p=0.8)]
    photos = [ASTRONAUT, CHELSEA, ASTRONAUT[::2, ::3].copy()]
    cases = [(photos * 2, (45, 37)), ([p.astype(np.float32) / 255 for p in photos] * 2, (45, 37)),
             ([CAMERA] * 6, (45, 37)), (photos * 2, (9, 530))]  # rows of more than 64 blocks
    for (image, size), model in itertools.product(
            cases, ({}, dict(output_dtype="float32", mean=0.5, std=0.25, layout="CHW"))):
        pipe = W.Compose([W.RandomResizedCrop(size), *colour], **model)
        results = []
        for rows in (1, 16, 3, 5):  # a GPU's first: scratch kept from another would hide a hole
            monkeypatch.setattr(plan, "PASS_ROWS", rows)
            fresh_plans()
            out = pipe(image=image, seed=7, queue=queue)
            results.append(out["image"])
        applied = [[p["steps"][i]["applied"] for p in out["params"]] for i in (1, 2, 3)]
        assert all(any(a) for a in applied), applied  # each pass ran somewhere
        for other in results[1:]:
            np.testing.assert_array_equal(other, results[0])
