"""ImageCompression (a JPEG round trip on the device: kernels_cl/colour_pass.cl's
colour_jpeg_blocks and cp_jpeg8) against albumentations 2.0.8's, which calls OpenCV's
cv2.imencode(".jpg") and cv2.imdecode (libjpeg-turbo): the same levels, on photos and on every
size from 1 pixel, 1 to 4 channels, uint8 and float32, after geometry, in batches, on each
device CI runs and on Oclgrind. WebP (OpenCV's libwebp on the host, between two passes): the
same pixels as albumentations, 1 to 5 channels, uint8 and float32, ported, and in a OneOf
beside JPEG and the device's other steps."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import same_levels as _same

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449]]


def _albu(image: np.ndarray, quality: int) -> np.ndarray:
    t = A.ImageCompression(quality_range=(quality, quality), p=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image)["image"]


def _jpeg(image, quality: int, queue=None, seed: int = 0, **kw):
    pipe = W.Compose([W.ImageCompression(quality_range=(quality, quality), p=1)], **kw)
    return pipe(image=image, seed=seed, queue=queue)["image"]


@pytest.mark.parametrize("quality", [1, 7, 33, 50, 75, 90, 99, 100])
def test_photos_are_opencvs_jpeg(quality, queue):
    for photo in PHOTOS:
        _same(_jpeg(photo, quality, queue), _albu(photo, quality))
    gray = PHOTOS[1][..., 1].copy()
    _same(_jpeg(gray, quality, queue), _albu(gray, quality))


def test_float32_images_go_through_levels(queue):
    for photo in PHOTOS[:2]:
        img = photo.astype(np.float32) / 255
        img[:8, :8] += 0.3  # values past 1 are clipped on the way in
        _same(_jpeg(img, 60, queue), _albu(np.clip(img, 0, 1), 60))


def test_every_size_and_channel_count(queue):
    """Sizes 1 to 40 (MCUs cut anywhere, chroma planes 1 and 2 samples wide, which libjpeg
    upsamples without its filter), 1-4 channels, random qualities: exact."""
    rs = np.random.default_rng(0)
    photo = PHOTOS[0]
    for k in range(60):
        h, w = int(rs.integers(1, 41)), int(rs.integers(1, 41))
        c = [1, 2, 3, 4][k % 4]
        y, x = int(rs.integers(0, 400)), int(rs.integers(0, 400))
        img = np.dstack([photo, photo[..., :1]])[y:y + h, x:x + w, :c].copy()
        if c == 1 and k % 8 == 0:
            img = img[..., 0].copy()
        q = int(rs.integers(1, 101))
        _same(_jpeg(img, q, queue), _albu(img, q))


def test_noise_at_low_quality(queue):
    """Random pixels at quality 1: the largest coefficients and overshoots the codec sees."""
    img = np.random.default_rng(1).integers(0, 256, (45, 67, 3), dtype=np.uint8)
    for q in (1, 3, 100):
        _same(_jpeg(img, q, queue), _albu(img, q))


def test_after_geometry_and_before_other_colour(queue):
    """The codec on the warped image (albumentations given warpkit's geometric output), and
    the colour steps after it in the same pass."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.ImageCompression(quality_range=(40, 40), p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])(
            image=photo, seed=k, queue=queue)["image"]
        want = A.Compose([A.ImageCompression(quality_range=(40, 40), p=1),
                          A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(out, want(image=base)["image"])


def test_a_batch_is_each_sample_alone(queue):
    """Ragged photos, the quality drawn per sample (recorded), some samples without the step;
    the model's input made after it."""
    rs = np.random.default_rng(2)
    imgs = [PHOTOS[k % 3][:int(rs.integers(20, 90)), :int(rs.integers(20, 90))].copy()
            for k in range(7)]
    pipe = W.Compose([W.RandomResizedCrop(48), W.ImageCompression(quality_range=(5, 95), p=0.7)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    batch = pipe(image=imgs, seed=4, queue=queue)
    applied = [p["steps"][1]["applied"] for p in batch["params"]]
    assert any(applied) and not all(applied)  # samples with and without the codec
    for i, img in enumerate(imgs):
        alone = pipe(image=img, seed=4, index=i, queue=queue)["image"]
        np.testing.assert_array_equal(batch["image"][i], alone)


def test_quality_draws():
    pipe = W.Compose([W.ImageCompression(quality_range=(20, 24), p=1)])
    qs = [pipe.sample((8, 8), seed=0, index=i)["steps"][0]["quality"] for i in range(2000)]
    assert set(qs) == {20, 21, 22, 23, 24}
    assert np.allclose(np.bincount(qs)[20:] / 2000, 0.2, atol=0.03)


def test_from_albumentations_and_refusals():
    ours = W.from_albumentations(A.Compose([A.ImageCompression(quality_range=(50, 80), p=0.3)]))
    t = ours.transforms[0]
    assert type(t).__name__ == "ImageCompression" and t.quality_range == (50, 80) and t.p == 0.3
    assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="compression_type must be 'jpeg' or 'webp'"):
        W.ImageCompression(compression_type="png")
    with pytest.raises(ValueError, match=r"ImageCompression\(compression_type='webp'\) inside "
                                         r"OneOf is not supported"):
        W.Compose([W.OneOf([W.Compose([W.ImageCompression("webp")]), W.HorizontalFlip()])])
    with pytest.raises(ValueError, match="quality_range"):
        W.ImageCompression(quality_range=(0, 50))
    with pytest.raises(ValueError, match="whole numbers"):
        W.ImageCompression(quality_range=(50.5, 60))
    with pytest.raises(TypeError, match="uint8 or float32"):
        _jpeg(np.zeros((8, 8, 3), np.uint16), 50)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation (the MCU's edges, the chroma's),
    1-4 channels, uint8 (and float32 once), linear (and cubic, whose warp is the one-pixel
    kernel, once): albumentations' codec on the same device's geometric result. (Each channel
    count and dtype is a build of its own: rusticl compiles them slowly, so few.)"""
    photo = np.dstack([PHOTOS[1], PHOTOS[1][..., :1]])[100:121, 200:223]
    cases = [(19, 13, 3, np.uint8, "cubic"), (1, 1, 3, np.uint8, "linear"),
             (2, 9, 1, np.uint8, "linear"), (9, 2, 4, np.uint8, "linear"),
             (17, 17, 2, np.uint8, "linear"), (5, 3, 3, np.float32, "linear"),
             (16, 18, 3, np.float32, "linear")]
    for k, (w, h, c, dt, interpolation) in enumerate(cases):
        geo = W.RandomAffine(degrees=30, size=(h, w))
        im = photo[..., :c].copy() if dt == np.uint8 else photo[..., :c].astype(np.float32) / 255
        base = W.Compose([geo], interpolation=interpolation)(
            image=im, seed=k, queue=small_queue)["image"]
        base = np.clip(base, 0, 1) if base.dtype == np.float32 else base
        out = W.Compose([geo, W.ImageCompression(quality_range=(30, 30), p=1)],
                        interpolation=interpolation)(image=im, seed=k, queue=small_queue)["image"]
        _same(out, _albu(base, 30))


def test_passes_in_a_row(queue):
    """Two JPEG round trips with a blur, CLAHE and a pointwise step between and after them
    (each whole-image step a pass of its own, the scratch planes reused): albumentations' own
    sequence on warpkit's geometric output, every level."""
    img = PHOTOS[1]
    geo = W.RandomResizedCrop((150, 170))
    base = W.Compose([geo])(image=img, seed=1, queue=queue)["image"]
    ours = W.Compose([geo, W.ImageCompression(quality_range=(60, 60), p=1), W.ToSepia(p=1),
                      W.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1),
                      W.ImageCompression(quality_range=(20, 20), p=1),
                      W.CLAHE(clip_limit=(2, 2), p=1)])
    theirs = A.Compose([A.ImageCompression(quality_range=(60, 60), p=1), A.ToSepia(p=1),
                        A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1),
                        A.ImageCompression(quality_range=(20, 20), p=1),
                        A.CLAHE(clip_limit=(2, 2), p=1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(ours(image=img, seed=1, queue=queue)["image"], theirs(image=base)["image"])


def test_device_arrays_stay_on_the_device(queue):
    import pyopencl.array as cla

    img = np.stack([PHOTOS[1][:200, :300]] * 3)
    pipe = W.Compose([W.RandomResizedCrop(64), W.ImageCompression(quality_range=(30, 30), p=1)])
    out = pipe(image=cla.to_device(queue, img), seed=0, queue=queue)["image"]
    assert isinstance(out, cla.Array)
    np.testing.assert_array_equal(out.get(), pipe(image=img, seed=0, queue=queue)["image"])


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
def test_webp_matches_albumentations(queue, channels):
    """The round trip at each sample's drawn quality, after a flip and a crop: albumentations'
    own ImageCompression at that quality on the same pixels (uint8, and float32 through its
    8-bit levels); the port of albumentations' WebP pipeline."""
    img = np.dstack([PHOTOS[0][:400], PHOTOS[1][:, :512, :2]])[:, :, :channels][40:260, 30:230]
    img = np.ascontiguousarray(img[..., 0] if channels == 1 else img)
    for dtype in (np.uint8, np.float32):
        x = img if dtype == np.uint8 else img.astype(np.float32) / 255
        pipe = W.Compose([W.HorizontalFlip(p=1), W.ImageCompression("webp", (5, 95), p=1)])
        for index in range(2):
            out = pipe(image=x, seed=1, index=index, queue=queue)
            q = out["params"]["steps"][1]["quality"]
            want = _quiet_call(A.ImageCompression(compression_type="webp",
                                                  quality_range=(q, q), p=1),
                               np.ascontiguousarray(x[:, ::-1]))
            assert out["image"].dtype == x.dtype
            np.testing.assert_array_equal(out["image"], want.reshape(out["image"].shape))
    port = W.from_albumentations(A.Compose([A.ImageCompression(compression_type="webp",
                                                               quality_range=(40, 40), p=1)]))
    want = _quiet_call(A.ImageCompression(compression_type="webp", quality_range=(40, 40), p=1),
                       img)
    np.testing.assert_array_equal(port(image=img, seed=0, queue=queue)["image"],
                                  want.reshape(img.shape))


def test_webp_in_a_oneof_beside_the_device_steps(queue):
    """OneOf(WebP, JPEG, a brightness) between a flip and a rotation: each sample as its choice
    made by hand (WebP on the first pass's result, the others in the second pass), the batch
    equal to each sample alone."""
    img = np.ascontiguousarray(PHOTOS[1][:160, :200])
    choices = [W.ImageCompression("webp", (30, 30), p=1),
               W.ImageCompression("jpeg", (30, 30), p=1),
               W.RandomBrightnessContrast((0.2, 0.2), (0, 0), p=1)]
    pipe = W.Compose([W.HorizontalFlip(p=1), W.OneOf(choices), W.Rotate(limit=10, p=1)])
    got = pipe(image=[img] * 8, seed=2, queue=queue)
    picked = [p["steps"][1]["choice"] for p in got["params"]]
    assert set(picked) == {0, 1, 2}
    for k, p in enumerate(got["params"]):
        flipped = np.ascontiguousarray(img[:, ::-1])
        turn = {"applied": True, "steps": [p["steps"][2]]}
        if picked[k] == 0:
            x = _quiet_call(A.ImageCompression(compression_type="webp", quality_range=(30, 30),
                                               p=1), flipped)
            want = W.Compose([W.Rotate(limit=10, p=1)])(image=x, params=turn, queue=queue)
        else:
            want = W.Compose([choices[picked[k]], W.Rotate(limit=10, p=1)])(
                image=flipped, params={"applied": True, "steps": [
                    {"applied": True, **p["steps"][1]["params"]}, p["steps"][2]]}, queue=queue)
        np.testing.assert_array_equal(got["image"][k], want["image"])
        np.testing.assert_array_equal(
            pipe(image=img, seed=2, index=k, queue=queue)["image"], got["image"][k])


def _quiet_call(t, img):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=img)["image"]
