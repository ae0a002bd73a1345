"""RandomSnow ("bleach": warpkit.augment._pixel, kernels_cl/colour.h's WK_COL_SNOW) against
albumentations 2.0.8's apply of the recorded snow point on uint8 photos; float32 and uint16
against OpenCV's float HLS with the threshold in the image's units (the documented departure);
its draws, batches, replay, the port, the refusals and the engine's checks; on every device
and Oclgrind."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_alone_and_replayed, check_small_cases, warp_with_rows

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee(),
          "chelsea": skimage.data.chelsea()}
#: (snow point, brightness coefficient): albumentations' defaults' ends, a darkening
#: coefficient, a threshold past every lightness, none reached
PARAMS = [(0.1, 2.5), (0.3, 2.5), (0.2, 1.5), (0.5, 0.6), (1.0, 3.0), (0.0, 1.0)]


def _snow(point: float, coeff: float, p: float = 1) -> W.RandomSnow:
    return W.RandomSnow(snow_point_range=(point, point), brightness_coeff=coeff, p=p)


def _float_reference(img: np.ndarray, point: float, coeff: float) -> np.ndarray:
    """The documented float rule: OpenCV's float HLS, 255 L against the threshold, L times the
    coefficient below it, clipped to [0, 1], back to RGB, clipped."""
    hls = cv2.cvtColor(img.astype(np.float32), cv2.COLOR_RGB2HLS)
    thr = point * 255 / 2 + 255 / 3
    low = hls[..., 1] * 255 < np.float32(thr)
    hls[..., 1] = np.clip(np.where(low, hls[..., 1] * np.float32(coeff), hls[..., 1]), 0, 1)
    return np.clip(cv2.cvtColor(hls, cv2.COLOR_HLS2RGB), 0, 1)


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo, queue):
    """uint8: albumentations' apply (OpenCV's 8-bit HLS round trip) within a level, at most 1
    value in 10^4 off at all; the snow point changes the image where it should."""
    img = PHOTOS[photo]
    for point, coeff in PARAMS:
        out = W.Compose([_snow(point, coeff)])(image=img, seed=0, queue=queue)
        assert out["params"]["steps"][0]["snow_point"] == point
        want = A.RandomSnow(snow_point_range=(point, point), brightness_coeff=coeff,
                            p=1).apply(img, snow_point=point, snow_texture=None,
                                       sparkle_mask=None)
        d = np.abs(out["image"].astype(np.int64) - want)
        assert d.max() <= 1 and (d > 0).mean() < 1e-4, (point, coeff)
        if coeff != 1.0:
            assert (out["image"] != img).mean() > 0.3, (point, coeff)


@pytest.mark.parametrize("dtype", [np.float32, np.uint16])
def test_float_and_uint16_take_the_threshold_in_their_units(dtype, queue):
    """float32 within 2e-5 of the documented rule (albumentations' own float path compares a
    lightness in [0, 1] with a threshold in levels: every pixel bleached, values past 1);
    uint16 the same rule in levels of 65535, within a level."""
    peak = 1.0 if dtype == np.float32 else 65535.0
    img = PHOTOS["coffee"][::3, ::3].astype(np.float32) / 255
    if dtype == np.uint16:
        img = np.rint(img * peak).astype(np.uint16)
    for point, coeff in PARAMS:
        got = W.Compose([_snow(point, coeff)])(image=img, seed=0, queue=queue)["image"]
        want = _float_reference(img.astype(np.float32) / peak, point, coeff) * peak
        tol = 2e-5 if dtype == np.float32 else 1
        assert np.abs(got.astype(np.float64) - want).max() <= tol, (point, coeff)


def test_draws_follow_albumentations_laws():
    """The snow point uniform in its range, alone and in a batch's draws; the threshold as
    albumentations makes it."""
    t = W.RandomSnow(snow_point_range=(0.1, 0.5), p=1)
    pts = np.array([t.draw(np.random.default_rng(s), (8, 8))["snow_point"] for s in range(800)])
    assert 0.1 <= pts.min() and pts.max() <= 0.5 and abs(pts.mean() - 0.3) < 0.01
    assert abs(pts.std() - 0.4 / 12 ** 0.5) < 0.01
    batch = W.Compose([t])(image=[np.zeros((4, 4, 3), np.uint8)] * 64, seed=0)
    lp = np.array([p["steps"][0]["snow_point"] for p in batch["params"]])
    assert 0.1 <= lp.min() and lp.max() <= 0.5 and len(set(lp.tolist())) == 64
    assert t.colour_ops({"snow_point": 0.4}, 3, 255.0) == [[34, 0.4 * 255 / 2 + 255 / 3, 2.5]]


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, beside other colour steps: each
    sample as alone and replayed; to_dict / from_dict and from_albumentations; the refusals and
    the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    pipe = W.Compose([W.RandomResizedCrop(48), W.OneOf([W.RandomSnow(p=1), W.ISONoise(p=1)]),
                      W.RandomBrightnessContrast(p=1)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=1, queue=queue)
    assert {p["steps"][1]["choice"] for p in got["params"]} == {0, 1}
    assert_alone_and_replayed(pipe, photos, got, 1, queue)
    t = W.RandomSnow(snow_point_range=(0.2, 0.4), brightness_coeff=1.8, p=0.3)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.RandomSnow(
            snow_point_range=(0.2, 0.4), brightness_coeff=1.8, p=0.3)]))
        # (method="texture": tests/test_snow_texture.py)
        assert W.from_albumentations(A.Compose([A.RandomSnow(method="texture")])) \
            .transforms[0].method == "texture"
    assert ported.transforms[0].config() == t.config() and ported.transforms[0].p == 0.3
    with pytest.raises(ValueError, match="brightness_coeff must be > 0"):
        W.RandomSnow(brightness_coeff=0)
    with pytest.raises(ValueError, match="snow_point_range"):
        W.RandomSnow(snow_point_range=(0.5, 1.5))
    with pytest.raises(TypeError, match="RGB images of 3 channels"):
        W.Compose([W.RandomSnow(p=1)])(image=PHOTOS["coffee"][..., 0].copy(), seed=0)
    from warpkit.engine.core import COL_SNOW

    img = PHOTOS["coffee"][:20, :30].copy()
    for row in ([COL_SNOW, np.nan, 2.0], [COL_SNOW, 100.0, np.inf], [COL_SNOW, 100.0, -1.0]):
        with pytest.raises(ValueError, match="COL_SNOW's threshold and brightness"):
            warp_with_rows(img, [row], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """RandomSnow after a rotation (a 21 x 13 output), alone and before a colour step: the
    default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[_snow(0.6, 2.0)], [_snow(0.3, 0.7), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
