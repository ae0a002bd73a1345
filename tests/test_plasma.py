"""PlasmaBrightnessContrast and PlasmaShadow (warpkit.augment._plasma; kernels_cl/plasma.cl
makes the pattern, colour.h's WK_COL_PLASMA and WK_COL_PLASMA_MEAN apply it) against
albumentations 2.0.8: its generate_plasma_pattern fed the device's numbers
(plasma_numbers) through a stand-in generator, its apply of the recorded parameters on photos
in uint8, uint16 and float32 and 1-4 channels; the draws, batches, replay, the port, the
refusals and the engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._plasma import plasma_numbers
from warpkit.engine.core import COL_PLASMA, COL_PLASMA_MEAN, plasma_side

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


class _Numbers:
    """A stand-in for albumentations' random generator: ``uniform`` hands out the device's
    numbers, in albumentations' order and shapes (each checked)."""

    def __init__(self, arrays: list) -> None:
        self.arrays = list(arrays)

    def uniform(self, low, high, size):
        x = self.arrays.pop(0)
        # (the bounds: float32(roughness ** s) there, repeated float32 products here, ulps
        # apart; both round onto the bound at times)
        bound = float(high) * (1 + 1e-6)
        assert x.shape == tuple(size) and -bound <= x.min() and x.max() <= bound, (x.shape, size)
        return x.astype(np.float64)


def _pattern(key, roughness: float, h: int, w: int) -> np.ndarray:
    """albumentations' pattern of an h x w image from the device's numbers (all used)."""
    from albumentations.augmentations.pixel.functional import generate_plasma_pattern

    numbers = _Numbers(plasma_numbers(key, roughness, (w, h)))
    out = generate_plasma_pattern((h, w), roughness, numbers)
    assert not numbers.arrays
    return out


def _albumentations(t, img: np.ndarray, params: dict) -> np.ndarray:
    """albumentations' apply of warpkit's recorded parameters, the pattern from its numbers."""
    h, w = img.shape[:2]
    pattern = _pattern(params["key"], t.roughness, h, w)
    if isinstance(t, W.PlasmaShadow):
        return A.PlasmaShadow(p=1).apply(img, intensity=params["intensity"],
                                         plasma_pattern=pattern)
    return A.PlasmaBrightnessContrast(p=1).apply(
        img, brightness_factor=params["brightness"], contrast_factor=params["contrast"],
        plasma_pattern=pattern)


def _run(t, img: np.ndarray, seed: int, queue=None) -> tuple[np.ndarray, dict]:
    out = W.Compose([t])(image=img, seed=seed, queue=queue)
    return out["image"], out["params"]["steps"][0]


#: (brightness, contrast) cases: both, brightness alone (no mean: in the warp's store), contrast
#: alone, large factors (clipping), negative ones (clipped to nothing, as albumentations')
BC_CASES = [(0.3, 0.5), (0.2, 0.0), (0.0, 0.7), (0.9, 0.9), (-0.5, 0.4), (-0.4, -0.6)]


def test_the_pattern_is_albumentations():
    """The device's pattern (1 - PlasmaShadow of intensity 1 on a float image of ones: exact)
    is albumentations' generate_plasma_pattern fed the same numbers: sizes below, at and past
    a power of two plus one (grids of 3 to 513), odd shapes, roughness below and above 1. Step
    for step in its float32 arithmetic: equal but for the last bit where OpenCV's normalize
    rounds without a fused multiply-add (CPUs without FMA)."""
    assert [plasma_side(w, h) for w, h in ((1, 1), (2, 2), (3, 1), (4, 4), (5, 2), (224, 100),
                                           (257, 3), (258, 9))] == [3, 3, 3, 5, 5, 257, 257, 513]
    for k, (w, h, rough) in enumerate(((224, 224, 3.0), (61, 37, 0.7), (3, 5, 2.0), (2, 2, 1.0),
                                       (1, 1, 3.0), (40, 130, 1.5), (258, 20, 0.5),
                                       (17, 17, 8.0))):
        t = W.PlasmaShadow(shadow_intensity_range=(1, 1), roughness=rough, p=1)
        got, params = _run(t, np.ones((h, w, 1), np.float32), seed=k)
        if (w, h) == (1, 1):  # (albumentations' log2(0) fails: one pixel's pattern is 0)
            assert got.ravel().tolist() == [1.0]
            continue
        want = 1 - _pattern(params["key"], rough, h, w)
        d = np.abs(got[..., 0] - want)
        assert (d > 1e-6).mean() < 1e-3 and d.mean() < 1e-6, (w, h, rough)
        assert got.min() == 0 and got.max() == 1  # (the pattern spans [0, 1])


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo):
    """uint8: albumentations' apply within a level, at most 1 value in 10^4 off at all (the
    contrast's mean: the device's sum against numpy's); the shadow exact but for that."""
    img = PHOTOS[photo]
    for k, (b, c) in enumerate(BC_CASES):
        t = W.PlasmaBrightnessContrast(brightness_range=(b, b), contrast_range=(c, c),
                                       roughness=(3.0, 1.2)[k % 2], p=1)
        got, params = _run(t, img, seed=k)
        d = np.abs(got.astype(np.int64) - _albumentations(t, img, params))
        assert d.max() <= 1 and (d > 0).mean() < 1e-4, (b, c)
        assert ((got != img).mean() > 0.3) == (max(b, c) > 0), (b, c)
    for k, (i, rough) in enumerate(((0.3, 3.0), (0.7, 0.6), (1.0, 2.0))):
        t = W.PlasmaShadow(shadow_intensity_range=(i, i), roughness=rough, p=1)
        got, params = _run(t, img, seed=10 + k)
        d = np.abs(got.astype(np.int64) - _albumentations(t, img, params))
        assert d.max() <= 1 and (d > 0).mean() < 1e-4, i
        assert (got <= img).all() and (got < img).mean() > 0.3


@pytest.mark.parametrize("dtype", [np.float32, np.uint16])
def test_float_and_uint16_are_albumentations(dtype):
    """float32 within 2.5e-7 (float32's rounding; the contrast's mean); uint16 within a level
    (the shadow truncated as albumentations' store, the rest rounded from floats)."""
    img8 = PHOTOS["coffee"][::2, ::2]
    img = img8.astype(np.float32) / 255 if dtype == np.float32 else img8.astype(np.uint16) * 257
    tol = 2.5e-7 if dtype == np.float32 else 1
    steps = [W.PlasmaBrightnessContrast(brightness_range=(b, b), contrast_range=(c, c), p=1)
             for b, c in BC_CASES[:4]] + [W.PlasmaShadow(p=1)]
    for k, t in enumerate(steps):
        got, params = _run(t, img, seed=k)
        want = _albumentations(t, img, params)
        assert want.dtype == dtype
        assert np.abs(got.astype(np.float64) - want).max() <= tol, k


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_channels(channels):
    """Every channel takes the same pattern, the contrast's mean over all of them:
    albumentations' on 1, 2 and 4 channels within a level."""
    img8 = PHOTOS["astronaut"][::3, ::3]
    img = np.ascontiguousarray(np.dstack([img8, img8[..., ::-1]])[..., :channels])
    for t in (W.PlasmaBrightnessContrast(brightness_range=(0.2, 0.2),
                                         contrast_range=(0.5, 0.5), p=1),
              W.PlasmaShadow(p=1)):
        got, params = _run(t, img, seed=channels)
        want = _albumentations(t, img, params).reshape(got.shape)
        assert np.abs(got.astype(np.int64) - want).max() <= 1, (channels, t)


def test_on_the_output_after_passes_and_beside_others(queue):
    """The pattern on the output after a resize (its size); a brightness-contrast after a
    blur's pass (its mean of that pass's image) and a shadow in a pass's store; two plasmas in
    one list (an area each) beside RandomRain's mask; a batch where some samples have none:
    each as albumentations' steps in turn."""
    img = PHOTOS["chelsea"]
    bc = W.PlasmaBrightnessContrast(brightness_range=(0.25, 0.25), contrast_range=(0.4, 0.4), p=1)
    shadow = W.PlasmaShadow(shadow_intensity_range=(0.6, 0.6), roughness=1.5, p=1)
    out = W.Compose([W.Resize((150, 200)), bc])(image=img, seed=0, queue=queue)
    small = W.Compose([W.Resize((150, 200))])(image=img, seed=0, queue=queue)["image"]
    want = _albumentations(bc, small, out["params"]["steps"][1])
    assert out["image"].shape[:2] == (150, 200)
    assert np.abs(out["image"].astype(np.int64) - want).max() <= 1
    blur = dict(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1)
    for steps in ([bc], [shadow], [bc, shadow], [shadow, bc, shadow]):
        out = W.Compose([W.GaussianBlur(**blur), *steps])(image=img, seed=4, queue=queue)
        # (on warpkit's blur: albumentations' is within a level of it, which a contrast
        # would stretch)
        want = W.Compose([W.GaussianBlur(**blur)])(image=img, seed=4, queue=queue)["image"]
        for t, params in zip(steps, out["params"]["steps"][1:]):
            want = _albumentations(t, want, params)
        d = np.abs(out["image"].astype(np.int64) - want)
        assert d.max() <= 1 and (d > 0).mean() < 1e-3, steps
    rain = W.RandomRain(drop_length=8, blur_value=3, p=1)
    pipe = W.Compose([W.OneOf([W.InvertImg(p=1), shadow]), rain, bc])
    photos = [p[:180, :200] for p in PHOTOS.values()] * 2
    got = pipe(image=photos, seed=2, queue=queue)
    chosen = [p["steps"][0]["choice"] for p in got["params"]]
    assert set(chosen) == {0, 1}
    for k in range(len(photos)):
        alone = pipe(image=photos[k], seed=2, index=k, queue=queue)
        np.testing.assert_array_equal(got["image"][k], alone["image"])


def test_factors_below_zero_cost_nothing():
    """A factor at or below 0 is no operation (albumentations' clipped products): a negative
    contrast takes no mean's pass, two negative factors no pattern at all."""
    t = W.PlasmaBrightnessContrast(p=1)
    ops = lambda b, c: t.colour_ops({"brightness": b, "contrast": c, "key": [1, 2, 3]}, 3, 255.0)
    assert ops(-0.2, -0.1) == [] and ops(0.0, -0.3) == []
    assert ops(0.2, -0.1)[0][0] == COL_PLASMA and ops(0.2, -0.1)[0][6:8] == [0.2, 0.0]
    assert ops(-0.2, 0.1)[0][0] == COL_PLASMA_MEAN and ops(-0.2, 0.1)[0][6:8] == [0.0, 0.1]


def test_draws_follow_albumentations_laws():
    """The factors and the intensity uniform in their ranges (in albumentations' order, then
    the pattern's key); a batch's side-by-side draws the same numbers as each sample's."""
    t = W.PlasmaBrightnessContrast(p=1)
    draws = [t.draw(np.random.default_rng(s), (8, 8)) for s in range(1000)]
    b = np.array([d["brightness"] for d in draws])
    c = np.array([d["contrast"] for d in draws])
    assert -0.3 <= b.min() and b.max() <= 0.3 and abs(b.mean()) < 0.02
    assert -0.3 <= c.min() and c.max() <= 0.3 and abs(c.mean()) < 0.02
    assert len({tuple(d["key"]) for d in draws}) == 1000
    s = W.PlasmaShadow(shadow_intensity_range=(0.2, 0.4), p=1)
    i = np.array([s.draw(np.random.default_rng(k), (8, 8))["intensity"] for k in range(1000)])
    assert 0.2 <= i.min() and i.max() <= 0.4 and abs(i.mean() - 0.3) < 0.01
    for tr in (t, s):
        assert_drawn_alone(tr, [np.zeros((4, 4, 3), np.uint8)] * 40, 2, range(40))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, each transform in a OneOf:
    each sample as alone and replayed; to_dict / from_dict and from_albumentations; the
    refusals and the engine's checks, before any launch."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 3
    steps = [W.PlasmaBrightnessContrast(p=1), W.PlasmaShadow(p=1),
             W.PlasmaBrightnessContrast(brightness_range=(0.1, 0.3), contrast_range=(0, 0), p=1)]
    assert_oneof_batch(steps, photos, queue, (W.RandomGamma(p=1),))
    ranges = dict(brightness_range=(-0.2, 0.4), contrast_range=(0.1, 0.2), plasma_size=128,
                  roughness=0.8, p=0.3)
    assert_ports(W.PlasmaBrightnessContrast(**ranges), A.PlasmaBrightnessContrast(**ranges))
    # (albumentations' PlasmaShadow records plasma_size as 256 whatever it was given: it
    # changes nothing there either)
    ranges = dict(shadow_intensity_range=(0.1, 0.9), roughness=2.5, p=0.6)
    assert_ports(W.PlasmaShadow(**ranges), A.PlasmaShadow(**ranges))
    for make, kw, match in ((W.PlasmaBrightnessContrast, {"brightness_range": (-2, 0)},
                             "brightness_range"),
                            (W.PlasmaBrightnessContrast, {"contrast_range": (0.5, 0.1)},
                             "contrast_range"),
                            (W.PlasmaBrightnessContrast, {"roughness": 0}, "roughness"),
                            (W.PlasmaShadow, {"roughness": 1000}, "roughness"),
                            (W.PlasmaShadow, {"plasma_size": 0}, "plasma_size"),
                            (W.PlasmaShadow, {"plasma_size": 2.5}, "plasma_size"),
                            (W.PlasmaShadow, {"shadow_intensity_range": (0.5, 1.5)},
                             "shadow_intensity_range")):
        with pytest.raises(ValueError, match=match):
            make(**kw)
    img = PHOTOS["coffee"][:20, :30].copy()
    warp_with_rows(img, [[COL_PLASMA, 1, 2, 3, 3.0, 1, 0.5]], queue)  # well formed
    for row in ([COL_PLASMA, 1.5, 2, 3, 3.0, 1, 0.5], [COL_PLASMA, 1, 2, 70000, 3.0, 1, 0.5],
                [COL_PLASMA, 1, 2, 3, 0.0, 1, 0.5], [COL_PLASMA, 1, 2, 3, np.nan, 0, 0.5],
                [COL_PLASMA, 1, 2, 3, 3.0, 2, 0.5], [COL_PLASMA_MEAN, 1, 2, 3, 3.0, 1, 0.5, 0.5]):
        with pytest.raises(ValueError, match="COL_PLASMA needs"):
            warp_with_rows(img, [row], queue)
    # a row of 65536 pixels: a grid of 65537^2 floats, refused before any allocation
    big = np.zeros((1, 65536, 1), np.uint8)
    with pytest.raises(ValueError, match="the plasma patterns .* exceeds the device's maximum"):
        warp_with_rows(big, [[COL_PLASMA, 1, 2, 3, 2.0, 1, 0.5]], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Each transform after a rotation (a 21 x 13 output), the contrast in its pass, the
    brightness alone and the shadow in the warp's store, two in one list: the reference
    device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    bc = lambda b, c: W.PlasmaBrightnessContrast(brightness_range=(b, b), contrast_range=(c, c),
                                                 p=1)
    cases = [[bc(0.3, 0.5)], [bc(0.4, 0.0), W.RandomGamma(p=1)],
             [W.PlasmaShadow(roughness=0.7, p=1)],
             [W.PlasmaShadow(p=1), bc(0.2, 0.3)]]
    check_small_cases(img, geo, cases, small_queue)
