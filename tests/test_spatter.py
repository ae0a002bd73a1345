"""Spatter (albumentations' rain drops and mud on the lens: a layer per sample made on the host
with OpenCV as albumentations makes it, in the call's colour table, blended in the warp's store
by kernels_cl/colour.h's wk_spatter8) against albumentations 2.0.8 itself, its generator given
the sample's recorded key: photos, both modes, uint8 and float32, settings that make no drops
or an empty mud mask (its tenth of the pixels drawn), sizes from a pixel up, after geometry;
batches, replay, the port, refusals, the engine's checks, and small cases on each device CI
runs and Oclgrind."""

from __future__ import annotations

import random

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos, ragged_crops

A, PHOTOS = albumentations_and_photos()


def _theirs(image: np.ndarray, step: dict, t: W.Spatter) -> np.ndarray:
    """albumentations' Spatter with the sample's drawn numbers as degenerate ranges and its
    generator keyed as warpkit keys the sample's liquid layer."""
    def fixed(v):
        return (v, v)

    theirs = A.Spatter(mean=fixed(step["mean"]), std=fixed(step["std"]),
                       gauss_sigma=fixed(step["sigma"]),
                       cutout_threshold=fixed(step["cutout_threshold"]),
                       intensity=fixed(step["intensity"]), mode=t.mode, color=t.color, p=1)
    theirs.set_random_state(np.random.default_rng(list(step["key"])), random.Random(0))
    return theirs(image=image)["image"]


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """uint8: within a level, the same but for at most 2 values in 10^4 (albumentations
    multiplies the layer by the colour in double, the device in float: a sum at a level's
    half can round either way; measured: 1 in 196608); float32: within 1e-6."""
    assert got.dtype == want.dtype and got.shape == want.shape
    d = np.abs(got.astype(np.float64) - want)
    if got.dtype == np.uint8:
        assert d.max() <= 1 and (d > 0).sum() <= max(2, 2e-4 * d.size), (d > 0).sum()
    else:
        assert d.max() <= 1e-6


SETTINGS = [dict(mode="rain"), dict(mode="mud"),
            dict(mode="rain", color=(40, 90, 250), intensity=(0.9, 1.0), gauss_sigma=(1, 3)),
            dict(mode="mud", gauss_sigma=0, cutout_threshold=(0.3, 0.5), mean=(0.2, 0.5)),
            dict(mode="mud", mean=(0.0, 0.1), std=(0.0, 0.01)),  # (no liquid: a tenth drawn)
            dict(mode="rain", mean=(0.0, 0.1), std=(0.0, 0.01))]  # (no drops: unchanged)


@pytest.mark.parametrize("photo", ["astronaut", "coffee"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(photo, dtype, queue):
    img = PHOTOS[photo][::2, ::2].copy()
    img = img if dtype == np.uint8 else img.astype(np.float32) / 255
    for k, setting in enumerate(SETTINGS):
        t = W.Spatter(**setting, p=1)
        out = W.Compose([t])(image=img, seed=k, queue=queue)
        step = out["params"]["steps"][0]
        want = _theirs(img, step, t)
        _same(out["image"], want)
        changed = (want != img).any()
        assert changed == (k != 5), setting  # (the last makes no drops)


def test_sizes_and_after_geometry(queue):
    """Outputs from 1 x 1 to 200 x 33 after a crop and a rotation: albumentations' Spatter of
    warpkit's own geometric result (the layer lies on the output)."""
    img = PHOTOS["chelsea"]
    for k, (h, w) in enumerate([(1, 1), (2, 7), (9, 1), (31, 45), (33, 200)]):
        for mode in ("rain", "mud"):
            t = W.Spatter(mode=mode, p=1)
            geo = W.RandomAffine(degrees=20, size=(h, w))
            out = W.Compose([geo, t])(image=img, seed=k, queue=queue)
            base = W.Compose([geo])(image=img, params={
                "applied": True, "steps": out["params"]["steps"][:1]}, queue=queue)["image"]
            _same(out["image"], _theirs(base, out["params"]["steps"][1], t))


def test_batches_replay_port_and_refusals(queue):
    imgs = ragged_crops([PHOTOS["astronaut"], PHOTOS["coffee"]], 6)
    pipe = W.Compose([W.RandomResizedCrop((40, 48)), W.Spatter(mode="mud", p=0.7),
                      W.Spatter(p=0.7)], output_dtype="float32", layout="CHW")
    got = pipe(image=imgs, seed=5, queue=queue)
    for k, img in enumerate(imgs):
        np.testing.assert_array_equal(pipe(image=img, seed=5, index=k, queue=queue)["image"],
                                      got["image"][k])
        np.testing.assert_array_equal(
            pipe(image=img, params=got["params"][k], queue=queue)["image"], got["image"][k])
    same = W.Compose.from_dict(pipe.to_dict())
    assert same.to_dict() == pipe.to_dict()
    np.testing.assert_array_equal(same(image=imgs, seed=5, queue=queue)["image"], got["image"])
    theirs = A.Compose([A.Spatter(mean=(0.5, 0.7), std=0.2, gauss_sigma=(1.5, 2.5),
                                  cutout_threshold=0.6, intensity=(0.4, 0.8), mode="mud",
                                  color=(10, 200, 30), p=0.3)])
    ported = W.from_albumentations(theirs).transforms[0]
    assert ported.config() == {"mean": [0.5, 0.7], "std": [0.0, 0.2],
                               "gauss_sigma": [1.5, 2.5], "cutout_threshold": [0.0, 0.6],
                               "intensity": [0.4, 0.8], "mode": "mud", "color": [10, 200, 30]}
    assert ported.p == 0.3
    for kw, match in ((dict(mode="snow"), "mode"), (dict(color=(1, 2)), "color"),
                      (dict(color=(1, 2, 300)), "color"), (dict(mean=(0.2, 1.5)), "mean")):
        with pytest.raises(ValueError, match=match):
            W.Spatter(**kw)
    one = W.Compose([W.Spatter(p=1)])
    for img, match in ((PHOTOS["coffee"][:20, :20, 0].copy(), "RGB"),
                       (PHOTOS["coffee"][:20, :20].astype(np.uint16), "uint8 or float32")):
        with pytest.raises(TypeError, match=match):
            one(image=img, seed=0, queue=queue)


def test_without_opencv_it_says_so(monkeypatch, queue):
    from warpkit.augment import _spatter

    monkeypatch.setattr(_spatter, "_opencv", lambda: None)
    with pytest.raises(ValueError, match="opencv-python-headless"):
        W.Compose([W.Spatter(p=1)])(image=PHOTOS["coffee"][:20, :20].copy(), seed=0,
                                    queue=queue)


def test_malformed_operations_are_refused(queue):
    from warpkit.engine.core import COL_SPATTER, COLOUR_WORDS, warp_by, with_table

    img = np.full((4, 6, 3), 100, np.uint8)
    layer = np.full(24, 0.5, np.float32)

    def run(op, table=layer, image=img):
        colour = np.zeros((1, 2 * COLOUR_WORDS), np.float32)
        colour[0, :len(op)] = op
        return warp_by(image, np.eye(3), (6, 4), queue=queue, colour=with_table(colour, table))

    got = run([COL_SPATTER, 0, 0.2, 0.2, 0.2, 0, 0, 0])
    assert (got == round((100 / 255 + 0.1) * 255)).all()
    bad_layer = layer.copy()
    bad_layer[3] = np.inf
    for op, table, image in (([COL_SPATTER, 2, 0.2, 0.2, 0.2, 0, 0, 0], layer, img),
                             ([COL_SPATTER, 0, 1.5, 0.2, 0.2, 0, 0, 0], layer, img),
                             ([COL_SPATTER, 0, 0.2, 0.2, 0.2, 0, 0, 1], layer, img),
                             ([COL_SPATTER, 0, 0.2, 0.2, 0.2, 0, np.inf, 0], layer, img),
                             ([COL_SPATTER, 0, np.nan, 0.2, 0.2, 0, 0, 0], layer, img),
                             ([COL_SPATTER, 0, 0.2, 0.2, 0.2, 0, 0, 0], bad_layer, img),
                             ([COL_SPATTER, 0, 0.2, 0.2, 0.2, 0, 0, 0], layer, img[..., :2])):
        with pytest.raises(ValueError, match="COL_SPATTER"):
            run(op, table, np.ascontiguousarray(image))


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Both modes on a rotated 21 x 13 output, uint8 and float32, both kernels: the layer's
    blend the reference device's (within a level), and albumentations' on the geometric
    result."""
    from conftest import reference_queue

    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    for mode, dt, interpolation in (("rain", np.uint8, "linear"), ("mud", np.float32, "cubic"),
                                    ("mud", np.uint8, "cubic"), ("rain", np.float32, "linear")):
        im = img if dt == np.uint8 else img.astype(np.float32) / 255
        t = W.Spatter(mode=mode, mean=(0.7, 0.7), p=1)
        pipe = W.Compose([geo, t], interpolation=interpolation)
        out = pipe(image=im, seed=3, queue=small_queue)
        ref = pipe(image=im, seed=3, queue=reference_queue())["image"]
        tol = 1 if dt == np.uint8 else 1e-5
        assert np.abs(out["image"].astype(np.float64) - ref).max() <= tol
        base = W.Compose([geo], interpolation=interpolation)(image=im, params={
            "applied": True, "steps": out["params"]["steps"][:1]}, queue=small_queue)["image"]
        base = np.clip(base, 0, 1) if dt == np.float32 else base  # (cubic's overshoot: the
        # colour steps take values in [0, 1])
        want = _theirs(base, out["params"]["steps"][1], t)
        assert np.abs(out["image"].astype(np.float64) - want).max() <= tol
        assert (want != base).any()
