"""ChromaticAberration (warpkit.augment._pixel, kernels_cl/colour_pass.cl's cp_chroma8) against
albumentations 2.0.8's apply of the recorded coefficients: photos in uint8 and float32, the
three dtypes on small images; its draws and sign rules; batches, replay, the port, the refusals
and the engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from conftest import reference_queue
from helpers import assert_alone_and_replayed, check_small_cases, warp_with_rows

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee(),
          "chelsea": skimage.data.chelsea()}
#: (primary, secondary) ranges: albumentations' defaults' ends, both signs, a strong lens whose
#: corners read far outside the image (the edges repeated)
PARAMS = [((0.02, 0.02), (0.05, 0.05)), ((-0.02, -0.02), (-0.05, -0.05)),
          ((0.01, 0.01), (-0.03, -0.03)), ((0.8, 0.8), (0.5, 0.5))]
KEYS = ("primary_distortion_red", "secondary_distortion_red", "primary_distortion_blue",
        "secondary_distortion_blue")


def _theirs(img: np.ndarray, params: dict, interpolation: int = 1) -> np.ndarray:
    return A.ChromaticAberration(interpolation=interpolation, p=1).apply(
        img, **{k: params[k] for k in KEYS})


@pytest.mark.parametrize("interpolation", [0, 2, 3, 4])
def test_every_remap_interpolation(interpolation, queue):
    """cv2.remap's other interpolations through albumentations' apply, on a photo, uint8 and
    float32 (albumentations' through uint8 levels), the default lens and a strong one: nearest
    the same pixels but where the two maps' float rounding puts a position on the other side
    of a half (at most 1 in 10^3); area as linear (cv2.remap's); cubic and Lanczos apart by
    OpenCV's 1/32-pixel positions and fixed-point weights: cubic within a level, Lanczos
    within 3 (1 value in 10^3 off by more than one)."""
    img = PHOTOS["chelsea"][::2, ::2].copy()
    for im in (img, img.astype(np.float32) / 255):
        for pl, sl in (PARAMS[0], PARAMS[3]):
            t = W.ChromaticAberration(primary_distortion_limit=pl, secondary_distortion_limit=sl,
                                      interpolation=interpolation, p=1)
            out = W.Compose([t])(image=im, seed=0, queue=queue)
            want = _theirs(im, out["params"]["steps"][0], interpolation)
            levels = np.abs(out["image"].astype(np.float64) - want) * \
                (255 if im.dtype == np.float32 else 1)
            # (float32: albumentations goes through uint8 levels, half a level from the value)
            if interpolation == 0:
                assert (levels > 0.5 + 1e-3).mean() < 1e-3, (pl, sl)
            elif interpolation == 3:
                assert levels.max() <= 1 + 1e-3, (pl, sl)
                assert im.dtype == np.float32 or (levels > 0).mean() < 1e-4, (pl, sl)
            elif interpolation == 2:
                assert levels.max() <= 1.5 + 1e-3, (pl, sl)
            else:
                assert levels.max() <= 3.5 and (levels > 1.5).mean() < 1e-3, (pl, sl)
            np.testing.assert_array_equal(out["image"][..., 1], im[..., 1])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo, dtype, queue):
    """albumentations' apply of the recorded coefficients, in each mode: uint8 within a level
    (at most 1 value in 10^4 off at all), float32 within 1 / 255 (cv2.remap rounds positions
    to 1/32 pixel, warpkit does not); green untouched, red and blue changed."""
    img = PHOTOS[photo] if dtype == np.uint8 else PHOTOS[photo].astype(np.float32) / 255
    for (pl, sl), mode in zip(PARAMS, ("green_purple", "red_blue", "random", "green_purple")):
        t = W.ChromaticAberration(primary_distortion_limit=pl, secondary_distortion_limit=sl,
                                  mode=mode, p=1)
        out = W.Compose([t])(image=img, seed=0, queue=queue)
        want = _theirs(img, out["params"]["steps"][0])
        d = np.abs(out["image"].astype(np.float64) - want)
        if dtype == np.uint8:
            assert d.max() <= 1 and (d > 0).mean() < 1e-4, (pl, sl, mode)
        else:
            assert d.max() <= 1 / 255, (pl, sl, mode)
        np.testing.assert_array_equal(out["image"][..., 1], img[..., 1])
        assert (out["image"][..., 0] != img[..., 0]).mean() > 0.2
        assert (out["image"][..., 2] != img[..., 2]).mean() > 0.2


@pytest.mark.parametrize("shape", [(37, 45, 3), (4, 45, 3), (37, 3, 3), (1, 9, 3), (1, 1, 3)],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_dtypes_and_small_images(shape, dtype, queue):
    """Three dtypes, sides of 1 to 45 pixels (crops of a photo): albumentations' apply within a
    level (float32 within 1 / 255). albumentations takes no uint16 (it returns levels of 1):
    uint16 is its float32 result in levels of 65535, within 1 / 255 of the peak."""
    crop = PHOTOS["coffee"][100:100 + shape[0], 200:200 + shape[1]].astype(np.float32) / 255
    for pl, sl in PARAMS:
        t = W.ChromaticAberration(primary_distortion_limit=pl, secondary_distortion_limit=sl,
                                  p=1)
        img = {np.uint8: np.rint(crop * 255).astype(np.uint8), np.float32: crop,
               np.uint16: np.rint(crop * 65535).astype(np.uint16)}[dtype]
        out = W.Compose([t])(image=img, seed=0, queue=queue)
        if dtype == np.uint16:
            want = _theirs(img.astype(np.float32) / 65535, out["params"]["steps"][0]) * 65535
            tol = 65535 / 255
        else:
            want = _theirs(img, out["params"]["steps"][0])
            tol = 1 / 255 if dtype == np.float32 else 1
        assert np.abs(out["image"].astype(np.float64) - want).max() <= tol, (pl, sl)


def test_draws_follow_albumentations_rules():
    """Four uniforms in albumentations' order; each secondary takes its primary's sign; blue
    takes red's signs (green_purple), the opposite ones (red_blue), or either (random)."""
    for mode in ("green_purple", "red_blue", "random"):
        t = W.ChromaticAberration(mode=mode, p=1)
        ps = [t.draw(np.random.default_rng(s), (8, 8)) for s in range(600)]
        v = np.array([[p[k] for k in KEYS] for p in ps])
        assert np.abs(v[:, [0, 2]]).max() <= 0.02 and np.abs(v[:, [1, 3]]).max() <= 0.05
        assert (np.sign(v[:, 0]) == np.sign(v[:, 1])).all()
        assert (np.sign(v[:, 2]) == np.sign(v[:, 3])).all()
        same = np.sign(v[:, 0]) == np.sign(v[:, 2])
        assert {"green_purple": same.all(), "red_blue": (~same).all(),
                "random": 0.4 < same.mean() < 0.6}[mode], mode
        assert abs(np.abs(v[:, 0]).mean() - 0.01) < 0.001
    t = W.ChromaticAberration(p=1)
    batch = W.Compose([t])(image=[np.zeros((4, 4, 3), np.uint8)] * 64, seed=0)
    lv = np.array([[p["steps"][0][k] for k in KEYS] for p in batch["params"]])
    assert (np.sign(lv[:, 0]) == np.sign(lv[:, 3])).all() and len(set(lv[:, 0])) == 64
    # a number x is (-x, x), as albumentations reads it
    assert W.ChromaticAberration(primary_distortion_limit=0.1).primary_distortion_limit == \
        (-0.1, 0.1)


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, with a ZoomBlur on other items
    of the same passes: each sample as alone and replayed; to_dict / from_dict and
    from_albumentations; the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    pipe = W.Compose([W.RandomResizedCrop(48),
                      W.OneOf([W.ChromaticAberration(p=1), W.ZoomBlur(p=1)]),
                      W.RandomBrightnessContrast(p=1)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=1, queue=queue)
    assert {p["steps"][1]["choice"] for p in got["params"]} == {0, 1}
    assert_alone_and_replayed(pipe, photos, got, 1, queue)
    t = W.ChromaticAberration((-0.1, 0.05), (0.0, 0.2), mode="red_blue", p=0.3)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.ChromaticAberration(
            (-0.1, 0.05), (0.0, 0.2), mode="red_blue", p=0.3)]))
        cubic = W.from_albumentations(A.Compose([A.ChromaticAberration(interpolation=2)]))
        assert cubic.transforms[0].interpolation == 2
    with pytest.raises(ValueError, match="interpolation must be one of cv2.remap's.*got 5"):
        W.ChromaticAberration(interpolation=5)
    assert ported.transforms[0].config() == t.config() and ported.transforms[0].p == 0.3
    with pytest.raises(ValueError, match="mode must be"):
        W.ChromaticAberration(mode="blue")
    with pytest.raises(TypeError, match="RGB images of 3 channels"):
        W.Compose([W.ChromaticAberration(p=1)])(image=PHOTOS["coffee"][..., :2].copy(), seed=0)
    from warpkit.engine.core import COL_CHROMA

    img = PHOTOS["coffee"][:20, :30].copy()
    for row in ([COL_CHROMA, np.nan, 0, 0, 0, 1], [COL_CHROMA, 0, 0, 0, np.inf, 1],
                [COL_CHROMA, 0, 2e6, 0, 0, 1]):
        with pytest.raises(ValueError, match="COL_CHROMA's distortion"):
            warp_with_rows(img, [row], queue)
    with pytest.raises(ValueError, match="COL_CHROMA's interpolation must be 0, 1, 2 or 4.*3"):
        warp_with_rows(img, [[COL_CHROMA, 0.1, 0, 0, 0, 3]], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """ChromaticAberration after a rotation (a 21 x 13 output), alone and before a colour step,
    and by each of its interpolations: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    lens = dict(primary_distortion_limit=(0.3, 0.3), secondary_distortion_limit=(0.2, 0.2))
    cases = [[W.ChromaticAberration(**lens, p=1)],
             [W.ChromaticAberration(**lens, mode="red_blue", p=1), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
    # every interpolation, a batch whose samples each draw one: one launch, one build (each
    # step of a pipeline would be a pass and a build of its own, and each a compile on every
    # device CI runs)
    every = W.OneOf([W.ChromaticAberration(**lens, interpolation=k, p=1) for k in (0, 1, 2, 4)])
    pipe = W.Compose([geo, every])
    batch = np.stack([img] * 8)
    out = pipe(image=batch, seed=3, queue=small_queue)
    assert {p["steps"][1]["choice"] for p in out["params"]} == {0, 1, 2, 3}
    ref = pipe(image=batch, seed=3, queue=reference_queue())["image"]
    assert np.abs(out["image"].astype(np.float64) - ref).max() <= 1
