"""ISONoise (a camera sensor's noise in OpenCV's float HLS, drawn in the kernel: colour.h's
wk_iso8, the lightness's deviation from colour_pass.cl's colour_mean), ShotNoise (wk_shot8) and
SaltAndPepper against
albumentations 2.0.8's: the same levels when no noise is drawn (ISONoise's HLS round trip), the
same distribution of changes when it is (the generators differ), keyed on the sample and the
pixel (alone = in a batch), on each device CI runs and on Oclgrind."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._philox import kernel_key, philox4x32

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()]


def _ours(image, color_shift, intensity, queue=None, seed=0, **kw):
    t = W.ISONoise(color_shift=(color_shift, color_shift), intensity=(intensity, intensity), p=1)
    return W.Compose([t], **kw)(image=image, seed=seed, queue=queue)["image"]


def _theirs(image, color_shift, intensity, seed=0):
    t = A.ISONoise(color_shift=(color_shift, color_shift), intensity=(intensity, intensity), p=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([t], seed=seed)(image=image)["image"]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_without_noise_the_round_trip_is_albumentations(dtype, queue):
    """intensity 0: no count, no hue shift; RGB -> HLS -> RGB in float gives every level back,
    on both sides (uint16 through [0, 1] as albumentations' float32_io takes it)."""
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else (photo.astype(np.float32) / 255).astype(dtype) \
            if dtype == np.float32 else photo.astype(np.uint16) * 257
        got = _ours(img, 0.05, 0.0, queue)
        want = _theirs(img, 0.05, 0.0)
        assert got.dtype == want.dtype == img.dtype
        if dtype == np.float32:
            np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
        else:
            np.testing.assert_array_equal(got, want)


def _stats(out: np.ndarray, base: np.ndarray) -> tuple[float, np.ndarray, float]:
    d = out.astype(np.float64) - base.astype(np.float64)
    return (np.abs(d).max(-1) > 0).mean(), d.mean((0, 1)), np.abs(d).mean()


@pytest.mark.parametrize("color_shift, intensity", [(0.05, 0.5), (0.01, 0.1), (0.03, 1.0)])
def test_the_noise_is_distributed_as_albumentations(color_shift, intensity, queue):
    """The share of pixels changed (a Poisson count of mean intensity x the lightness's
    deviation), the mean change per channel and its mean size: within a few percent of
    albumentations' on three photos (each side's own random numbers: 2 seeds each)."""
    for photo in PHOTOS:
        ours = [_stats(_ours(photo, color_shift, intensity, queue, seed=s), photo) for s in (0, 1)]
        theirs = [_stats(_theirs(photo, color_shift, intensity, seed=s), photo) for s in (0, 1)]
        for k in range(3):
            a = np.mean([o[k] for o in ours], axis=0)
            b = np.mean([t[k] for t in theirs], axis=0)
            np.testing.assert_allclose(a, b, rtol=0.06, atol=0.05 if k else 0.002)
        assert ours[0][0] > 0.01  # the noise is there


def test_keyed_on_the_sample_and_the_pixel(queue):
    """The same noise alone and in a ragged batch (the sample's key, the output pixel); another
    seed another noise; the recorded key replays it."""
    rs = np.random.default_rng(3)
    imgs = [PHOTOS[k % 3][:int(rs.integers(40, 120)), :int(rs.integers(40, 120))].copy()
            for k in range(6)]
    pipe = W.Compose([W.RandomResizedCrop(48), W.ISONoise(intensity=(0.3, 0.8), p=0.7)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    batch = pipe(image=imgs, seed=5, queue=queue)
    applied = [p["steps"][1]["applied"] for p in batch["params"]]
    assert any(applied) and not all(applied)
    for i, img in enumerate(imgs):
        alone = pipe(image=img, seed=5, index=i, queue=queue)
        np.testing.assert_array_equal(batch["image"][i], alone["image"])
        again = pipe.replay(alone["params"], image=img, queue=queue)
        np.testing.assert_array_equal(again["image"], alone["image"])
    a = _ours(PHOTOS[0], 0.05, 0.5, queue, seed=1)
    b = _ours(PHOTOS[0], 0.05, 0.5, queue, seed=2)
    assert (a != b).any()


def test_draws_from_albumentations_and_refusals():
    t = W.ISONoise(color_shift=(0.02, 0.04), intensity=(0.2, 0.6), p=1)
    pipe = W.Compose([t])
    draws = [pipe.sample((8, 8), seed=0, index=i)["steps"][0] for i in range(500)]
    cs = np.array([d["color_shift"] for d in draws])
    it = np.array([d["intensity"] for d in draws])
    assert 0.02 <= cs.min() and cs.max() <= 0.04 and 0.2 <= it.min() and it.max() <= 0.6
    assert abs(cs.mean() - 0.03) < 0.002 and abs(it.mean() - 0.4) < 0.02
    ours = W.from_albumentations(A.Compose([A.ISONoise(color_shift=(0.01, 0.02),
                                                       intensity=(0.3, 0.4), p=0.4)]))
    t = ours.transforms[0]
    assert type(t).__name__ == "ISONoise" and (t.color_shift, t.intensity, t.p) == \
        ((0.01, 0.02), (0.3, 0.4), 0.4)
    assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="intensity"):
        W.ISONoise(intensity=(0.1, 20))
    with pytest.raises(ValueError, match="color_shift"):
        W.ISONoise(color_shift=(0.1, 2))
    for c in (1, 4):
        with pytest.raises(TypeError, match="3 channels"):
            W.Compose([W.ISONoise(p=1)])(image=np.zeros((8, 8, c), np.uint8), seed=0)


def test_small_cases_on_every_device_and_oclgrind(small_queue, queue):
    """Outputs 1 to 19 pixels on a side after a rotation, uint8 and float32: ISONoise without
    noise gives albumentations' round trip on the same device's geometric result; with noise,
    the default device's levels (within one, where a device's exp or sqrt rounds apart);
    SaltAndPepper the default device's levels exactly (integer numbers, exact thresholds)."""
    photo = PHOTOS[1][100:121, 200:223]
    for k, (w, h, dt) in enumerate([(19, 13, np.uint8), (1, 1, np.uint8), (17, 5, np.float32)]):
        geo = W.RandomAffine(degrees=30, size=(h, w))
        im = photo.copy() if dt == np.uint8 else photo.astype(np.float32) / 255
        base = W.Compose([geo])(image=im, seed=k, queue=small_queue)["image"]
        base = np.clip(base, 0, 1) if base.dtype == np.float32 else base
        none = W.Compose([geo, W.ISONoise(intensity=(0, 0), p=1)])(
            image=im, seed=k, queue=small_queue)["image"]
        want = _theirs(base, 0.05, 0.0)
        np.testing.assert_allclose(none.astype(np.float64), want.astype(np.float64), rtol=0,
                                   atol=2e-6 if dt == np.float32 else 0)
        noisy = W.Compose([geo, W.ISONoise(intensity=(2, 2), p=1)])
        here = noisy(image=im, seed=k, queue=small_queue)["image"].astype(np.float64)
        there = noisy(image=im, seed=k, queue=queue)["image"].astype(np.float64)
        scale = 255 if dt == np.float32 else 1
        assert np.abs(here - there).max() * scale <= 1.0 + 1e-3
        salted = W.Compose([geo, W.SaltAndPepper(amount=(0.3, 0.3), p=1)])
        np.testing.assert_array_equal(salted(image=im, seed=k, queue=small_queue)["image"],
                                      salted(image=im, seed=k, queue=queue)["image"])


def _salt_pepper(out: np.ndarray, img: np.ndarray, peak: float) -> tuple[float, float]:
    """The shares of pixels made salt (every channel at the peak) and pepper (every one 0)
    that were not so before."""
    salt = (out == peak).all(-1) & ~(img == peak).all(-1)
    pepper = (out == 0).all(-1) & ~(img == 0).all(-1)
    untouched = ~(salt | pepper)
    assert (out[untouched] == img[untouched]).all()  # every other pixel as it was
    return salt.mean(), pepper.mean()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_salt_and_pepper_shares_are_albumentations(dtype, queue):
    """albumentations chooses exactly int(area x amount) pixels, int(that x ratio) of them salt;
    warpkit draws each pixel: the shares agree within their binomial spread (a few percent of
    262144 pixels), every other pixel untouched, on 1 and 3 channels."""
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    for amount, ratio in ((0.05, 0.3), (0.2, 0.8), (0.01, 0.5)):
        for photo in (PHOTOS[0], PHOTOS[0][..., :1]):
            img = (photo.astype(np.float64) / 255 * peak).astype(dtype)
            t = W.SaltAndPepper(amount=(amount, amount), salt_vs_pepper=(ratio, ratio), p=1)
            ours = _salt_pepper(W.Compose([t])(image=img, seed=0, queue=queue)["image"], img,
                                peak)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = A.SaltAndPepper(amount=(amount, amount), salt_vs_pepper=(ratio, ratio), p=1)
                theirs = _salt_pepper(A.Compose([a], seed=0)(image=img)["image"], img, peak)
            for o, w in zip(ours, theirs):
                assert abs(o - w) <= 4 * np.sqrt(w / img[..., 0].size) + 1e-3, (ours, theirs)


def test_salt_and_pepper_keyed_ported_and_drawn(queue):
    rs = np.random.default_rng(4)
    imgs = [PHOTOS[k % 3][:int(rs.integers(30, 90)), :int(rs.integers(30, 90))].copy()
            for k in range(5)]
    pipe = W.Compose([W.RandomResizedCrop(40), W.SaltAndPepper(amount=(0.1, 0.3), p=1)])
    batch = pipe(image=imgs, seed=2, queue=queue)
    for i, img in enumerate(imgs):
        np.testing.assert_array_equal(batch["image"][i],
                                      pipe(image=img, seed=2, index=i, queue=queue)["image"])
    steps = [pipe.sample((8, 8), seed=0, index=i)["steps"][1] for i in range(300)]
    amounts = np.array([s["amount"] for s in steps])
    assert 0.1 <= amounts.min() and amounts.max() <= 0.3 and abs(amounts.mean() - 0.2) < 0.01
    ours = W.from_albumentations(A.Compose([A.SaltAndPepper(amount=(0.02, 0.03), p=0.2)]))
    t = ours.transforms[0]
    assert type(t).__name__ == "SaltAndPepper" and (t.amount, t.salt_vs_pepper, t.p) == \
        ((0.02, 0.03), (0.4, 0.6), 0.2)
    assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="amount"):
        W.SaltAndPepper(amount=(0.1, 1.5))


def _shot_law(x: float, scale: float, peak: float) -> dict:
    """ShotNoise's outputs for a value x (in [0, 1]) and their chances: clip(k s, 0, 1)^(1/2.2)
    (as levels of ``peak``, rounded for integer images), k Poisson of mean (x^2.2 + s 1e-6) / s."""
    lam = (x ** 2.2 + scale * 1e-6) / scale
    law: dict = {}
    p = math.exp(-lam)
    for k in range(400):
        y = min(k * scale, 1.0) ** (1 / 2.2) * peak
        y = float(np.rint(y)) if peak > 1 else float(np.float32(y))
        law[y] = law.get(y, 0.0) + p
        p *= lam / (k + 1)
    return law


def _frequencies(values: np.ndarray) -> dict:
    v, n = np.unique(values, return_counts=True)
    return {float(a): b / values.size for a, b in zip(v, n)}


def _distance(a: dict, b: dict, tol: float = 0.0) -> float:
    """Total variation between two laws on values (values within ``tol`` taken as one)."""
    keys = sorted(set(a) | set(b))
    merged, groups = [], []
    for k in keys:
        if groups and k - groups[-1][-1] <= tol:
            groups[-1].append(k)
        else:
            groups.append([k])
    for g in groups:
        merged.append(abs(sum(a.get(k, 0) for k in g) - sum(b.get(k, 0) for k in g)))
    return sum(merged) / 2


def test_shot_noise_is_the_documented_generator(queue):
    """Channel c of pixel (x, y): the count whose distribution function first passes uniform
    number c of Philox's block of (x, y, "SHT") under the recorded key; the host's count in
    double agrees but where the two sums round either side of the number (a few in 10^5)."""
    img = PHOTOS[0][::2, ::2].astype(np.float32) / 255
    pipe = W.Compose([W.ShotNoise(scale_range=(0.05, 0.3), p=1)])
    out = pipe(image=img, seed=3, queue=queue)
    step = out["params"]["steps"][0]
    s = step["scale"]
    key = kernel_key(step["key"])
    y, x = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    words = philox4x32(x, y, 0x534854, key)
    want = np.empty_like(img, dtype=np.float64)
    for c in range(3):
        u = (16777215 - (words[c] >> np.uint64(8)).astype(np.float64)) / 16777216
        lam = (img[..., c].astype(np.float64) ** 2.2 + s * 1e-6) / s
        p = np.exp(-lam)
        F, k = p.copy(), np.zeros_like(lam)
        for i in range(1, 150):
            k += u >= F
            p *= lam / i
            F += p
        want[..., c] = np.clip(k * s, 0, 1) ** (1 / 2.2)
    close = np.abs(out["image"] - want) < 1e-5
    assert close.mean() > 0.9999, close.mean()
    batch = pipe(image=np.stack([img] * 3), seed=3, queue=queue)["image"]
    alone = pipe(image=img, seed=3, index=2, queue=queue)
    np.testing.assert_array_equal(batch[2], alone["image"])
    np.testing.assert_array_equal(pipe(image=img, params=alone["params"], queue=queue)["image"],
                                  alone["image"])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_shot_noise_law(dtype, channels, queue):
    """On flat images the outputs take ShotNoise's law (the Poisson count's chances carried to
    its values) within 0.02 in total variation, on every channel."""
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    for x, scale in ((0.5, 0.2), (0.1, 0.05), (0.9, 0.3)):
        level = np.rint(x * peak) if peak > 1 else x
        img = np.full((128, 128, channels), level, dtype)
        t = W.ShotNoise(scale_range=(scale, scale), p=1)
        out = W.Compose([t])(image=img, seed=1, queue=queue)["image"].reshape(img.shape)
        law = _shot_law(float(level) / peak, scale, peak)
        for c in range(channels):
            got = _frequencies(out[..., c].astype(np.float64))
            assert _distance(got, law, 0 if peak > 1 else 1e-5) < 0.02, (x, scale, c)


def test_shot_noise_is_albumentations_in_law(queue):
    """On three photos (uint8) the change of every level has albumentations' law: the share of
    pixels changed, the mean and the mean size of the change per channel agree."""
    for photo in PHOTOS:
        t = dict(scale_range=(0.1, 0.1), p=1)
        ours = W.Compose([W.ShotNoise(**t)])(image=photo, seed=0, queue=queue)["image"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = A.Compose([A.ShotNoise(**t)], seed=0)(image=photo)["image"]
        d_ours, d_theirs = (o.astype(np.float64) - photo for o in (ours, theirs))
        assert abs((d_ours != 0).mean() - (d_theirs != 0).mean()) < 0.01
        n = photo[..., 0].size
        for c in range(3):
            a, b = d_ours[..., c], d_theirs[..., c]
            spread = 5 * np.sqrt((a.var() + b.var()) / n)  # the means' spread: 5 deviations
            assert abs(a.mean() - b.mean()) < spread, (a.mean(), b.mean())
            assert abs(np.abs(a).mean() - np.abs(b).mean()) < spread


def test_shot_noise_ported_and_refused(small_queue, queue):
    ours = W.from_albumentations(A.Compose([A.ShotNoise(scale_range=(0.05, 0.2), p=0.3)]))
    t = ours.transforms[0]
    assert type(t).__name__ == "ShotNoise" and (t.scale_range, t.p) == ((0.05, 0.2), 0.3)
    assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="scale_range"):
        W.ShotNoise(scale_range=(0.01, 0.2))
    # small outputs on Oclgrind: the default device's levels but where exp and pow round apart
    # at a count's edge
    photo = PHOTOS[2][100:121, 200:223]
    for k, (w, h) in enumerate([(19, 13), (1, 1), (17, 5)]):
        pipe = W.Compose([W.RandomAffine(degrees=30, size=(h, w)), W.ShotNoise(p=1)])
        here = pipe(image=photo, seed=k, queue=small_queue)["image"]
        there = pipe(image=photo, seed=k, queue=queue)["image"]
        assert (here == there).mean() >= 0.98


def test_engine_refuses_counts_it_cannot_draw(queue):
    """The engine's colour operations come from any caller: a ShotNoise scale whose Poisson
    means pass what the kernel's count covers, and a PixelDropout probability outside [0, 1],
    are refused before any launch; in range they are taken."""
    from warpkit.engine.core import COL_PIXDROP, COL_SHOT, COLOUR_WORDS, warp_by

    img = PHOTOS[1][:20, :30].copy()

    def warp(row):
        ops = np.zeros((1, COLOUR_WORDS), np.float32)
        ops[0, :len(row)] = row
        return warp_by(img, np.eye(3), (30, 20), queue=queue, colour=ops)

    for row, match in [([COL_SHOT, 1, 2, 3, 0.01], r"COL_SHOT's scale must be a finite number "
                                                  r">= 0.02, got 0.01"),
                       ([COL_SHOT, 1, 2, 3, np.nan], r"COL_SHOT's scale.*got nan"),
                       ([COL_PIXDROP, 1, 2, 3, 1.5], r"COL_PIXDROP's probability must be in "
                                                     r"\[0, 1\], got 1.5")]:
        with pytest.raises(ValueError, match=match):
            warp(row)
    assert warp([COL_SHOT, 1, 2, 3, 0.02]).shape == img.shape
    dropped = warp([COL_PIXDROP, 1, 2, 3, 1.0, 0, 7, 7, 7])
    assert (dropped == 7).all()
