"""HEStain (warpkit.augment._stain, kernels_cl/colour.h's WK_COL_HESTAIN) against albumentations
2.0.8: every preset, tissue only and with the background, on a histology photo and another,
uint8 and float32, with fixed scales and shifts; its draws; a batch = single calls; on each
device and Oclgrind; the port and the refusals. The image-fitted methods (vahadane, macenko:
the matrix fitted on the host between two passes) against albumentations' own normalisers."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from helpers import check_small_cases
from warpkit import augment as W
from warpkit.augment._stain import PRESETS

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

HISTOLOGY = skimage.data.immunohistochemistry()  # 512 x 512 RGB
PHOTO = skimage.data.astronaut()[::2, ::2]


def _albu(image, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([A.HEStain(p=1, **kw)])(image=image)["image"]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_is_albumentations(preset, queue):
    """Each preset with fixed scales and shifts (darker and lighter), tissue only and
    everywhere: uint8 the same levels but at most 1 value in 10^3 a level apart (float32
    against albumentations' double), float32 within 1e-5."""
    for k, (img, scale, shift, bg) in enumerate([(HISTOLOGY, 1.25, -0.1, False),
                                                 (HISTOLOGY, 0.7, 0.15, True),
                                                 (PHOTO, 1.1, 0.05, False)]):
        kw = dict(method="preset", preset=preset, intensity_scale_range=(scale, scale),
                  intensity_shift_range=(shift, shift), augment_background=bg)
        for im in (img, img.astype(np.float32) / 255):
            want = _albu(im, **kw)
            got = W.Compose([W.HEStain(p=1, **kw)])(image=im, seed=k, queue=queue)["image"]
            assert got.dtype == want.dtype and got.shape == want.shape
            d = np.abs(got.astype(np.float64) - want)
            if im.dtype == np.uint8:
                assert d.max() <= 1 and (d > 0).mean() <= 1e-3, (preset, k, d.max())
            else:
                assert d.max() <= 1e-5, (preset, k, d.max())
            assert (got != im).mean() > 0.5  # (it changed the colours)


def test_draws_batches_and_replay(queue):
    """random_preset draws a preset, then two scales and two shifts per sample (recorded);
    the same parameters as method="preset" give the same image; a batch's samples are the
    single calls' (drawn side by side) and replay."""
    t = W.HEStain(intensity_scale_range=(0.6, 1.4), intensity_shift_range=(-0.3, 0.3), p=1)
    imgs = np.stack([HISTOLOGY[:128, :160], HISTOLOGY[200:328, 100:260],
                     HISTOLOGY[300:428, 300:460]])
    pipe = W.Compose([t])
    batch = pipe(image=imgs, seed=5, queue=queue)
    presets = set()
    for k in range(3):
        one = pipe(image=imgs[k], seed=5, index=k, queue=queue)
        np.testing.assert_array_equal(batch["image"][k], one["image"])
        p = one["params"]["steps"][0]
        assert batch["params"][k] == one["params"]
        assert p["preset"] in PRESETS and len(p["scale"]) == len(p["shift"]) == 2
        assert all(0.6 <= s <= 1.4 for s in p["scale"]) and all(-0.3 <= s <= 0.3
                                                                 for s in p["shift"])
        presets.add(p["preset"])
        fixed = W.HEStain(method="preset", preset=p["preset"], p=1)
        again = W.Compose([fixed])(image=imgs[k], params={"applied": True, "steps": [p]},
                                   queue=queue)
        np.testing.assert_array_equal(again["image"], one["image"])
    draws = [W.HEStain(p=1).draw(np.random.default_rng(s), (8, 8))["preset"] for s in range(40)]
    assert set(draws) == set(PRESETS)  # every preset can be drawn


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """After a rotation to 21 x 13, both kernels, uint8 and float32, on each device and on
    Oclgrind (no invalid access): the reference device's values."""
    img = HISTOLOGY[100:160, 200:280].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    check_small_cases(img, geo, [[W.HEStain(method="preset", preset="h_heavy", p=1)],
                                 [W.HEStain(augment_background=True, p=1)]], small_queue)


def test_port_and_refusals(queue):
    """from_albumentations takes HEStain with its parameters; the image-fitted methods, an
    unknown preset, a preset with random_preset, bad ranges, other than RGB and uint16 are
    refused by name."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.HEStain(method="preset", preset="e_heavy",
                                      intensity_scale_range=(0.8, 1.1),
                                      intensity_shift_range=(-0.1, 0.2), augment_background=True,
                                      p=0.6)])
        t = W.from_albumentations(theirs).transforms[0]
        assert (t.method, t.preset, t.intensity_scale_range, t.intensity_shift_range,
                t.augment_background, t.p) == ("preset", "e_heavy", (0.8, 1.1), (-0.1, 0.2),
                                               True, 0.6)
        for method in ("vahadane", "macenko"):
            fitted = W.from_albumentations(A.Compose([A.HEStain(method=method, p=0.3)]))
            assert (fitted.transforms[0].method, fitted.transforms[0].p) == (method, 0.3)
    assert W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0].config() == t.config()
    assert W.HEStain(method="preset").preset == "standard"  # albumentations' default
    for kw, pattern in ((dict(method="preset", preset="violet"), "preset must be one of"),
                        (dict(preset="dark"), "preset is for method='preset'"),
                        (dict(method="svd"), "method must be"),
                        (dict(method="macenko", preset="dark"), "macenko' fits the matrix"),
                        (dict(intensity_scale_range=(-1, 1)), "intensity_scale_range"),
                        (dict(intensity_shift_range=(0, 2)), "intensity_shift_range"),
                        (dict(augment_background=1), "augment_background")):
        with pytest.raises(ValueError, match=pattern):
            W.HEStain(**kw)
    for method in ("random_preset", "vahadane", "macenko"):
        pipe = W.Compose([W.HEStain(method=method, p=1)])
        with pytest.raises(TypeError, match="RGB images of 3 channels"):
            pipe(image=HISTOLOGY[..., :1], seed=0, queue=queue)
        with pytest.raises(TypeError, match="uint8 or float32"):
            pipe(image=HISTOLOGY.astype(np.uint16), seed=0, queue=queue)
    with pytest.raises(ValueError, match="macenko'\\) found no tissue"):
        W.HEStain(method="macenko", p=1)(image=np.full((8, 8, 3), 255, np.uint8), seed=0)


@pytest.mark.parametrize("method", ["vahadane", "macenko"])
def test_fitted_methods_are_albumentations(method, queue):
    """The matrix fitted to each sample's image as the steps before leave it (a flip and a
    crop): albumentations' own normaliser's on the same pixels; the stained image within a level
    of albumentations' apply with that matrix and the drawn scales and shifts (uint8 and
    float32, the histology photo and another); the matrix recorded and replayed; a batch equal
    to its samples alone."""
    from albumentations.augmentations.pixel import functional as F

    for img in (HISTOLOGY, PHOTO, HISTOLOGY.astype(np.float32) / 255):
        pipe = W.Compose([W.HorizontalFlip(p=1), W.Crop(10, 20, 250, 230),
                          W.HEStain(method=method, p=1)])
        for index in range(2):
            out = pipe(image=img, seed=7, index=index, queue=queue)
            step = out["params"]["steps"][2]
            moved = np.ascontiguousarray(img[:, ::-1][20:230, 10:250])
            fit = F.get_normalizer(method)
            fit.fit(moved)
            np.testing.assert_allclose(step["matrix"], fit.stain_matrix_target, atol=2e-5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = A.HEStain(method=method, p=1).apply(
                    moved, stain_matrix=np.asarray(step["matrix"], np.float32),
                    scale_factors=np.array(step["scale"]), shift_values=np.array(step["shift"]))
            tol = 1.001 if img.dtype == np.uint8 else 1.001 / 255
            assert np.abs(out["image"].astype(np.float64) - want).max() <= tol
            again = pipe(image=img, params=out["params"], queue=queue)
            np.testing.assert_array_equal(again["image"], out["image"])
    batch = pipe(image=[HISTOLOGY, PHOTO, HISTOLOGY[100:400]], seed=1, queue=queue)
    for k, img in enumerate([HISTOLOGY, PHOTO, HISTOLOGY[100:400]]):
        alone = pipe(image=img, seed=1, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], batch["image"][k])
        assert alone["params"] == batch["params"][k]
