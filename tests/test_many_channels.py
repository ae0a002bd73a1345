"""Images of more than 4 channels (multispectral bands, RGB + depth stacks): every warp and
pipeline takes them, up to 16 channels in one launch (every channel at the same positions and
weights; more from the host in launches of 16), and each channel comes out as it does in an
image of 4 or fewer (bit for bit), as OpenCV's per-channel warp (within 1 level) and as
albumentations' (within 1 level)."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

import warpkit
from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import skimage.data

RGB = skimage.data.astronaut()[::4, ::4]  # 128 x 128
# 7 bands: the photo, its negative, and a gradient (a stand-in for near infrared)
BANDS = np.concatenate([RGB, 255 - RGB, np.linspace(0, 255, 128 * 128, dtype=np.float64)
                        .reshape(128, 128, 1).astype(np.uint8)], -1)
M = np.array([[0.9, 0.2, 3.0], [-0.1, 1.1, -2.0]])


def _groups(x):
    return [np.ascontiguousarray(x[..., k:k + 4]) for k in range(0, x.shape[-1], 4)]


@pytest.mark.parametrize("interpolation", ["nearest", "linear", "cubic"])
def test_each_channel_as_in_a_narrow_image(interpolation, queue):
    got = warpkit.warp_affine(BANDS, M, size=(110, 90), interpolation=interpolation,
                              padding="reflect_101", queue=queue)
    assert got.shape == (90, 110, 7) and got.dtype == np.uint8
    parts = [warpkit.warp_affine(g, M, size=(110, 90), interpolation=interpolation,
                                 padding="reflect_101", queue=queue) for g in _groups(BANDS)]
    np.testing.assert_array_equal(got, np.concatenate(parts, -1))
    flags = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR,
             "cubic": cv2.INTER_CUBIC}[interpolation]
    ref = np.stack([cv2.warpAffine(np.ascontiguousarray(BANDS[..., c]), M, (110, 90),
                                   flags=flags, borderMode=cv2.BORDER_REFLECT_101)
                    for c in range(7)], -1)
    diff = np.abs(got.astype(int) - ref)
    if interpolation == "nearest":  # ties at half pixels may round the other way
        assert (diff > 0).mean() < 1e-3
    else:
        assert diff.max() <= 1


def test_batch_to_the_model_input_with_a_value_per_channel(queue):
    """A (B, H, W, 6) float batch to float32 CHW, with 6 means and stds and a fill per channel:
    each group of channels takes its own; a pipeline's out= takes the joined result."""
    batch = np.stack([BANDS[..., :6], BANDS[::-1, :, 1:7]]).astype(np.float32) / 255
    mats = np.stack([np.vstack([M, [0, 0, 1]]), np.eye(3)])
    mean, std = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    fill = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    got = warpkit.warp_perspective(batch, mats, size=(80, 64), fill=fill, output_dtype="float32",
                                   mean=mean, std=std, layout="CHW", queue=queue)
    assert got.shape == (2, 6, 64, 80)
    for lo, hi in ((0, 4), (4, 6)):
        part = warpkit.warp_perspective(np.ascontiguousarray(batch[..., lo:hi]), mats,
                                        size=(80, 64), fill=fill[lo:hi], output_dtype="float32",
                                        mean=mean[lo:hi], std=std[lo:hi], layout="CHW",
                                        queue=queue)
        np.testing.assert_array_equal(got[:, lo:hi], part)
    aug = W.Compose([W.Resize((64, 80))], output_dtype="float32", mean=mean, std=std,
                    layout="CHW")
    buf = np.empty((2, 6, 64, 80), np.float32)
    res = aug(image=batch, out=buf, seed=0, queue=queue)
    assert res["image"] is buf
    np.testing.assert_array_equal(buf, aug(image=batch, seed=0, queue=queue)["image"])


def test_a_fill_must_have_one_value_per_channel():
    with pytest.raises(ValueError, match=r"fill must be a number or one per channel \(7\)"):
        warpkit.warp_affine(BANDS, M, fill=(1, 2, 3))
    with pytest.raises(ValueError, match=r"mean must be a finite number or one per channel "
                                         r"\(7\)"):
        warpkit.warp_affine(BANDS, M, output_dtype="float32", mean=[0.5] * 3)


def test_pipelines_take_many_channels(queue):
    """A pipeline over a ragged list of 7-band images, with a 6-channel float mask: one array
    out, each channel as the same pipeline gives it for its group of channels alone."""
    aug = W.Compose([W.RandomResizedCrop(64), W.Affine(rotate=(-20, 20), p=1)],
                    mask_interpolation="linear")
    photos = [BANDS, BANDS[:100, :120].copy(), BANDS[10:, 5:].copy()]
    heat = [p[..., :6].astype(np.float32) / 255 for p in photos]
    out = aug(image=photos, mask=heat, seed=4, index=0, queue=queue)
    assert out["image"].shape == (3, 64, 64, 7) and out["mask"].shape == (3, 64, 64, 6)
    for lo, hi in ((0, 4), (4, 7)):
        alone = aug(image=[np.ascontiguousarray(p[..., lo:hi]) for p in photos], seed=4,
                    index=0, queue=queue)["image"]
        np.testing.assert_array_equal(out["image"][..., lo:hi], alone)
    alone = aug(image=photos, mask=[np.ascontiguousarray(h[..., 4:]) for h in heat], seed=4,
                index=0, queue=queue)["mask"]
    np.testing.assert_array_equal(out["mask"][..., 4:], alone)


def test_as_albumentations_does(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import albumentations as A
        t = dict(rotate=(15, 15), scale=(1.1, 1.1), translate_px={"x": 4, "y": -6}, p=1)
        theirs = A.Compose([A.Affine(**t)])(image=BANDS)["image"]
    ours = W.Compose([W.Affine(**t)])(image=BANDS, seed=0, queue=queue)["image"]
    assert ours.shape == theirs.shape and np.abs(ours.astype(int) - theirs).max() <= 1


def test_colour_is_refused():
    with pytest.raises(ValueError, match=r"colour transforms take images of 1 to 4 channels, "
                                         r"got 7"):
        W.Compose([W.RandomBrightnessContrast(p=1)])(image=BANDS, seed=0)
    with pytest.raises(ValueError, match=r"colour transforms take images of 1 to 4 channels, "
                                         r"got 20"):
        W.Compose([W.RandomBrightnessContrast(p=1)])(image=np.tile(BANDS, 3)[..., :20], seed=0)


def _launches(monkeypatch):
    """Count the warp launches of the calls that follow (Plan.run's launches)."""
    from warpkit import _op

    seen = []
    run = _op.Plan.run

    def counted(self, *a, **kw):
        seen.append(sum(1 for ln in self.launches if ln.variant.entry.startswith("warp")))
        return run(self, *a, **kw)

    monkeypatch.setattr(_op.Plan, "run", counted)
    return seen


@pytest.mark.parametrize("channels", [5, 8, 16])
def test_up_to_16_channels_in_one_launch(channels, queue, monkeypatch):
    img = np.concatenate([BANDS] * 3, -1)[..., :channels]
    seen = _launches(monkeypatch)
    got = warpkit.warp_affine(img, M, size=(100, 80), fill=list(range(channels)), queue=queue)
    assert seen == [1]
    parts = [warpkit.warp_affine(g, M, size=(100, 80), fill=list(range(k, k + g.shape[-1])),
                                 queue=queue) for k, g in zip(range(0, channels, 4), _groups(img))]
    np.testing.assert_array_equal(got, np.concatenate(parts, -1))


def test_more_than_16_channels_in_launches_of_16(queue, monkeypatch):
    """A hyperspectral cube of 40 bands from the host: launches of 16, 16 and 8 channels, joined
    into one result; on the device such a cube is refused with the fix."""
    cube = np.concatenate([BANDS] * 6, -1)[..., :40]
    seen = _launches(monkeypatch)
    got = warpkit.warp_affine(cube, M, size=(60, 50), queue=queue)
    assert seen == [1, 1, 1] and got.shape == (50, 60, 40)
    for lo in range(0, 40, 8):
        np.testing.assert_array_equal(got[..., lo:lo + 8], warpkit.warp_affine(
            np.ascontiguousarray(cube[..., lo:lo + 8]), M, size=(60, 50), queue=queue))
    import pyopencl.array as cla

    dev = cla.to_device(queue, np.ascontiguousarray(cube))
    with pytest.raises(ValueError, match=r"an image on the device may have at most 16 "
                                         r"channels, got \(128, 128, 40\): warp it 16 channels "
                                         r"at a time, or from the host"):
        warpkit.warp_affine(dev, M, queue=queue)


def test_device_images_of_many_channels(queue):
    """A 7-band image on the device: one launch, the result on the device, as from the host."""
    import pyopencl.array as cla

    dev = cla.to_device(queue, np.ascontiguousarray(BANDS))
    got = warpkit.warp_affine(dev, M, size=(90, 70), queue=queue)
    assert isinstance(got, cla.Array) and got.shape == (70, 90, 7)
    np.testing.assert_array_equal(got.get(), warpkit.warp_affine(BANDS, M, size=(90, 70),
                                                                 queue=queue))


@pytest.mark.parametrize("dtype", [np.uint16, np.int32, np.float32])
def test_every_dtype_and_antialias(dtype, queue):
    """The general kernel (other dtypes, supersampling) takes every channel as well."""
    img = (BANDS.astype(np.int64) * 200).astype(dtype)
    for aa in (False, True):
        got = warpkit.warp_affine(img, np.array([[2.5, 0.3, 1], [-0.2, 2.2, 3]]), size=(40, 30),
                                  antialias=aa, fill=[9] * 7, padding="constant", queue=queue)
        parts = [warpkit.warp_affine(g, np.array([[2.5, 0.3, 1], [-0.2, 2.2, 3]]), size=(40, 30),
                                     antialias=aa, fill=9, padding="constant", queue=queue)
                 for g in _groups(img)]
        np.testing.assert_array_equal(got, np.concatenate(parts, -1))


def test_small_wide_cases_on_oclgrind(small_queue):
    """Oclgrind checks every access of the wide kernels (uint8 words, float taps, the model's
    input with a value per channel)."""
    img = BANDS[:9, :11]
    for mode in ("nearest", "linear", "cubic"):
        got = warpkit.warp_affine(img, M, size=(13, 7), interpolation=mode, padding="reflect_101",
                                  queue=small_queue)
        parts = [warpkit.warp_affine(g, M, size=(13, 7), interpolation=mode,
                                     padding="reflect_101", queue=small_queue)
                 for g in _groups(img)]
        np.testing.assert_array_equal(got, np.concatenate(parts, -1))
        mean, std = [0.1 * c for c in range(7)], [0.5 + 0.1 * c for c in range(7)]
        f = warpkit.warp_affine(img.astype(np.float32), M, size=(13, 7), interpolation=mode,
                                output_dtype="float32", mean=mean, std=std, layout="CHW",
                                queue=small_queue)
        assert f.shape == (7, 7, 13)
        for k, g in zip((0, 4), _groups(img.astype(np.float32))):
            n = g.shape[-1]
            np.testing.assert_array_equal(f[k:k + n], warpkit.warp_affine(
                g, M, size=(13, 7), interpolation=mode, output_dtype="float32",
                mean=mean[k:k + n], std=std[k:k + n], layout="CHW", queue=small_queue))


def test_remap_and_crops_take_many_channels(queue):
    """remap (per-pixel maps) and crop_rois (crops of one image, indexed items) split the
    channels the same way."""
    mx, my = np.meshgrid(np.arange(30, dtype=np.float32) * 1.3 + 2,
                         np.arange(20, dtype=np.float32) * 1.1 + 1)
    got = warpkit.remap(BANDS, mx, my, queue=queue)
    assert got.shape == (20, 30, 7)
    np.testing.assert_array_equal(
        got, np.concatenate([warpkit.remap(g, mx, my, queue=queue) for g in _groups(BANDS)], -1))
    rois = [[2, 3, 30, 25], [5, 5, 100, 90]]
    got = warpkit.crop_rois(BANDS, rois, output_size=(16, 12), queue=queue)
    assert got.shape == (2, 12, 16, 7)
    np.testing.assert_array_equal(got, np.concatenate(
        [warpkit.crop_rois(g, rois, output_size=(16, 12), queue=queue) for g in _groups(BANDS)],
        -1))
