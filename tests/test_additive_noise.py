"""AdditiveNoise (kernels_cl/colour.h's WK_COL_NOISE with its kinds: uniform, Laplace and Beta
numbers beside GaussNoise's normals, and a constant per channel) against albumentations 2.0.8:
its levels exactly in the constant mode with fixed parameters; the pixel modes' numbers equal
to the documented generator (Philox on the host) for the uniform and Laplace laws, Beta
numbers of the Beta law, and the output's law within 0.02 total variation of albumentations'
for every law, mode and approximation; uint8, uint16 and float32, 1-4 channels; alone = in a
batch = replayed; ports and refusals; the small cases on Oclgrind."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._philox import kernel_key, philox4x32

from conftest import reference_queue
from helpers import assert_batch_is_alone, assert_sample_5_replays

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import cv2
    from scipy import stats

LAWS = {"uniform": {"ranges": [(-0.1, 0.15)]},
        "gaussian": {"mean_range": (0.05, 0.05), "std_range": (0.1, 0.1)},
        "laplace": {"mean_range": (-0.02, -0.02), "scale_range": (0.08, 0.08)},
        "beta": {"alpha_range": (0.6, 0.6), "beta_range": (2.5, 2.5), "scale_range": (0.3, 0.3)}}
PEAK = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}


def _albu(t, **data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(**data)


def _ours(kind, mode, params, approximation=1.0, **call):
    pipe = W.Compose([W.AdditiveNoise(kind, mode, params, approximation, p=1)])
    return pipe(**call)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_constant_fixed_values_are_albumentations(dtype, queue):
    """Fixed ranges (one per channel, or one for all; values whose product with the peak a
    float32 rounds onto a whole number, 0.6 * 255 among them) and degenerate laws: every level
    as albumentations', 1 to 4 channels on uint8, 1 and 3 on uint16, 2 and 4 on float32 (each
    dtype and channel count is a build of its own), a photo and a flat image near both ends."""
    import skimage.data

    photo = skimage.data.astronaut()[100:160, 200:290]
    per = [(0.1, 0.1), (-0.6, -0.6), (0.6, 0.6), (0.05, 0.05)]
    cases = [("uniform", {"ranges": per}), ("uniform", {"ranges": [(-0.2, -0.2)]}),
             ("gaussian", {"mean_range": (0.3, 0.3), "std_range": (0.0, 0.0)}),
             ("laplace", {"mean_range": (-0.37, -0.37), "scale_range": (0.0, 0.0)})]
    counts = {np.uint8: (1, 2, 3, 4), np.uint16: (1, 3), np.float32: (2, 4)}[dtype]
    for (kind, params), c in itertools.product(cases, counts):
        if kind == "uniform" and len(params["ranges"]) > 1:
            params = {"ranges": per[:c]}
        for base in (photo, np.full((7, 9, 3), 250, np.uint8), np.full((7, 9, 3), 3, np.uint8)):
            img = np.dstack([base] * 2)[..., :c]
            img = img.astype(np.float32) / 255 if dtype == np.float32 else \
                img.astype(dtype) * (257 if dtype == np.uint16 else 1)
            img = img[..., 0] if c == 1 else img
            ours = _ours(kind, "constant", params, image=img, seed=c, queue=queue)["image"]
            theirs = _albu(A.AdditiveNoise(kind, "constant", params, p=1), image=img)["image"]
            if dtype == np.float32:
                np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
            else:
                np.testing.assert_array_equal(ours, theirs)


def test_constant_draws_follow_each_law():
    """The constant mode's numbers (drawn on the host, recorded) follow the law: a
    Kolmogorov-Smirnov distance within what 4000 draws allow at a chance of 10^-6.
    albumentations' own constant Gaussian numbers for channel 0 are nearly 0 (OpenCV's
    generator reseeded from 16 bits gives a first normal within 1e-4 of 0); its channels 1
    and 2 are normal, as all of warpkit's are."""
    n = 4000
    crit = np.sqrt(-np.log(0.5e-6) / 2) / np.sqrt(n)
    laws = {"uniform": stats.uniform(-0.1, 0.25), "gaussian": stats.norm(0.05, 0.1),
            "laplace": stats.laplace(-0.02, 0.08),
            "beta": stats.beta(0.6, 2.5, loc=-0.3, scale=0.6)}
    for kind, law in laws.items():
        t = W.AdditiveNoise(kind, "constant", LAWS[kind], p=1)
        vals = np.array([t.draw(np.random.default_rng(s), (8, 8))["values"] for s in range(n)])
        for c in range(4):
            assert stats.kstest(vals[:, c], law.cdf).statistic < crit, (kind, c)
    t = A.AdditiveNoise("gaussian", "constant", LAWS["gaussian"], p=1)
    img = np.full((2, 2, 3), 0.5, np.float32)
    theirs = np.array([_albu(t, image=img)["image"][0, 0] - 0.5 for _ in range(1000)])
    assert theirs[:, 0].std() < 1e-3 and abs(theirs[:, 1].std() - 0.1) < 0.01


def _unit(words):
    """The kernel's uniform numbers in (0, 1] of Philox words (wk_unit8)."""
    return ((words >> np.uint64(8)) + np.uint64(1)).astype(np.float64) / 2 ** 24


@pytest.mark.parametrize("kind", ["uniform", "laplace"])
def test_pixel_numbers_are_the_documented_generator(kind, queue):
    """Per pixel and channel (and shared): the numbers are Philox's block of (x, y, 0) under the
    recorded key, word c for channel c (word 0 for all when shared): uniform 1 - u, Laplace a
    sign from the word's low bit and -ln u; the same alone, in a batch, replayed."""
    h, w = 37, 45
    img = np.full((h, w, 3), 0.5, np.float32)
    for mode in ("per_pixel", "shared"):
        out = _ours(kind, mode, LAWS[kind], image=img, seed=11, index=5, queue=queue)
        step = out["params"]["steps"][0]
        y, x = np.mgrid[0:h, 0:w]
        words = philox4x32(x.ravel(), y.ravel(), 0, kernel_key(step["key"]))
        if kind == "uniform":
            z = [1 - _unit(v) for v in words]
            lo, hi = LAWS[kind]["ranges"][0]
            n = [lo + (hi - lo) * v for v in z]
        else:
            z = [np.where(v & np.uint64(1), 1.0, -1.0) * np.log(_unit(v)) for v in words]
            n = [step["mean"] + step["scale"] * v for v in z]
        want = np.stack([n[c if mode == "per_pixel" else 0] for c in range(3)], -1)
        np.testing.assert_allclose(out["image"], np.clip(0.5 + want.reshape(h, w, 3), 0, 1),
                                   atol=2e-6)
        pipe = W.Compose([W.AdditiveNoise(kind, mode, LAWS[kind], p=1)])
        assert_sample_5_replays(pipe, img, out, queue)


def test_beta_numbers_follow_the_beta_law(queue):
    """Beta numbers per pixel (shapes below and above 1, the gamma's boost and its plain
    tries): a Kolmogorov-Smirnov distance within what the pixels allow at a chance of 10^-6,
    channels uncorrelated, shared ones the same in every channel."""
    img = np.full((200, 150, 3), 0.5, np.float32)
    for a, b in ((0.6, 2.5), (3.0, 1.2), (0.3, 0.4), (8.0, 8.0)):
        params = {"alpha_range": (a, a), "beta_range": (b, b), "scale_range": (0.5, 0.5)}
        out = _ours("beta", "per_pixel", params, image=img, seed=3, queue=queue)["image"]
        beta = (out.astype(np.float64) - 0.5 + 0.5) / 1.0  # (2 B - 1) 0.5 + 0.5 = B
        crit = np.sqrt(-np.log(0.5e-6) / 2) / np.sqrt(beta[..., 0].size)
        for c in range(3):
            assert stats.kstest(beta[..., c].ravel(), stats.beta(a, b).cdf).statistic < crit
        assert abs(np.corrcoef(beta[..., 0].ravel(), beta[..., 1].ravel())[0, 1]) < 0.02
    shared = _ours("beta", "shared", LAWS["beta"], image=img, seed=4, queue=queue)["image"]
    np.testing.assert_array_equal(shared[..., 0], shared[..., 2])


def _law(values: np.ndarray, bins: np.ndarray) -> np.ndarray:
    return np.histogram(values, bins)[0] / values.size


@pytest.mark.parametrize("kind", sorted(LAWS))
@pytest.mark.parametrize("mode, approximation", [("per_pixel", 1.0), ("shared", 1.0),
                                                 ("per_pixel", 0.25), ("shared", 0.5)])
def test_pixel_modes_agree_with_albumentations_in_law(kind, mode, approximation, queue):
    """A flat uint8 image's levels after the noise (in bins of 5): within 0.02 total variation
    of albumentations' (three calls each), channels equal where shared, and the same
    correlation between neighbours (the approximation's linear resize). The image grows as the
    approximation shrinks, so that both draw as many numbers: at 160 x 240 an approximation of
    0.25 draws a 16th of them, and two samples of the same law were 0.02 apart by chance (a CI
    run failed so, 2026-12-02)."""
    img = np.full((round(160 / approximation), round(240 / approximation), 3), 120, np.uint8)
    t = A.AdditiveNoise(kind, mode, LAWS[kind], approximation, p=1)
    ours = np.stack([_ours(kind, mode, LAWS[kind], approximation, image=img, seed=s,
                           queue=queue)["image"] for s in range(3)]).astype(np.float64)
    theirs = np.stack([_albu(t, image=img)["image"] for _ in range(3)]).astype(np.float64)
    bins = np.arange(-0.5, 261.5, 5)  # (5 levels a bin: the sampling's own distance is ~0.006)
    assert 0.5 * np.abs(_law(ours, bins) - _law(theirs, bins)).sum() < 0.02
    if mode == "shared":
        np.testing.assert_array_equal(ours[..., 0], ours[..., 1])

    def corr(d):
        return np.corrcoef(d[:, :, :-1, 0].ravel(), d[:, :, 1:, 0].ravel())[0, 1]

    assert abs(corr(ours) - corr(theirs)) < 0.05


def test_the_approximation_is_opencvs_linear_resize(queue):
    """approximation < 1: the uniform numbers of a grid of int(side * approximation) points,
    resized by OpenCV's INTER_LINEAR onto the image (float32 images, no truncation)."""
    h, w = 50, 70
    img = np.full((h, w, 1), 0.5, np.float32)
    for approx in (0.25, 0.1, 0.0):
        out = _ours("uniform", "per_pixel", LAWS["uniform"], approx, image=img, seed=1,
                    queue=queue)
        step = out["params"]["steps"][0]
        gw, gh = step["grid"]
        assert (gw, gh) == (max(1, int(w * approx)), max(1, int(h * approx)))
        y, x = np.mgrid[0:gh, 0:gw]
        u = 1 - _unit(philox4x32(x.ravel(), y.ravel(), 0, kernel_key(step["key"]))[0])
        lo, hi = LAWS["uniform"]["ranges"][0]
        coarse = (lo + (hi - lo) * u).reshape(gh, gw)
        want = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR)
        np.testing.assert_allclose(out["image"][..., 0], np.clip(0.5 + want, 0, 1), atol=1e-5)


def test_a_batch_after_geometry_is_each_sample_alone(queue):
    """Ragged photos, every law and mode in a OneOf with other noise, to float32 CHW."""
    import skimage.data

    photos = [skimage.data.astronaut(), skimage.data.coffee()]
    imgs = [photos[k % 2][:40 + 7 * k, :50 + 5 * k].copy() for k in range(8)]
    pipe = W.Compose([W.RandomResizedCrop(32), W.OneOf(
        [W.AdditiveNoise(k, m, LAWS[k], a, p=1) for k in sorted(LAWS)
         for m, a in (("constant", 1.0), ("per_pixel", 0.5), ("shared", 1.0))]
        + [W.GaussNoise(p=1)], p=0.9)], output_dtype="float32", layout="CHW")
    assert_batch_is_alone(pipe, imgs, 3, queue)


def test_from_albumentations_and_refusals(tmp_path):
    recipe = A.Compose([A.AdditiveNoise("beta", "shared", LAWS["beta"], 0.5, p=0.3),
                        A.AdditiveNoise(p=0.2)])
    saved = tmp_path / "recipe.json"
    A.save(recipe, str(saved))
    for given in (recipe, A.to_dict(recipe), saved):
        ours = W.from_albumentations(given)
        t, d = ours.transforms
        assert (t.noise_type, t.spatial_mode, t.approximation, t.p) == \
            ("beta", "shared", 0.5, 0.3)
        assert t.noise_params == {k: list(v) for k, v in LAWS["beta"].items()}
        assert (d.noise_type, d.spatial_mode, d.noise_params) == \
            ("uniform", "constant", {"ranges": [[-0.1, 0.1]]})
        assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    bad = [(dict(noise_type="pink"), "noise_type must be one of"),
           (dict(spatial_mode="tiled"), "spatial_mode must be"),
           (dict(approximation=1.5), r"approximation must be in \[0, 1\]"),
           (dict(noise_params={"ranges": [(0.5, 0.1)]}), "low <= high"),
           (dict(noise_params={"ranges": [(-2, 0.1)]}), r"lie in \[-1, 1\]"),
           (dict(noise_params={"mean_range": (0, 0)}), "take exactly"),
           (dict(noise_type="gaussian", noise_params={"mean_range": (0, 0),
                                                      "std_range": (0, 2)}), r"\[0, 1\]"),
           (dict(noise_type="beta", noise_params={**LAWS["beta"], "alpha_range": (0, 1)}),
            "above 0"),
           (dict(noise_type="laplace", noise_params={"noise_type": "gaussian",
                                                     **LAWS["laplace"]}), "noise_type must be")]
    for kw, match in bad:
        with pytest.raises(ValueError, match=match):
            W.AdditiveNoise(**kw)
    two = W.Compose([W.AdditiveNoise(noise_params={"ranges": [(0, 0.1), (0, 0.2)]}, p=1)])
    with pytest.raises(ValueError, match="2 for an image of 3 channels"):
        two(image=np.zeros((8, 8, 3), np.uint8), seed=0)
    with pytest.raises(TypeError, match="at most 4 channels"):
        two(image=np.zeros((8, 8, 5), np.uint8), seed=0)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs of 1 to 19 pixels on a side after a rotation, every law in the pixel modes and
    a coarse grid, uint8 and float32: the same as the default device gives (the uniform and
    Laplace numbers are exact integers' functions; the Beta's tries too)."""
    import skimage.data

    photo = skimage.data.coffee()[100:121, 200:223]
    for k, (w, h, c, dt) in enumerate([(19, 13, 3, np.uint8), (1, 1, 3, np.uint8),
                                       (17, 5, 3, np.float32)]):
        im = photo[..., :c].copy() if dt == np.uint8 else photo[..., :c].astype(np.float32) / 255
        for kind, (mode, a) in itertools.product(sorted(LAWS), (("per_pixel", 1.0),
                                                                 ("shared", 0.3))):
            pipe = W.Compose([W.RandomAffine(degrees=30, size=(h, w)),
                              W.AdditiveNoise(kind, mode, LAWS[kind], a, p=1)])
            got = pipe(image=im, seed=k, queue=small_queue)["image"]
            want = pipe(image=im, seed=k, queue=reference_queue())["image"]
            tol = 1 if dt == np.uint8 else 2e-5  # (a device's exp in the Beta's last step)
            assert np.abs(got.astype(np.float64) - want).max() <= tol, (kind, mode, dt)
