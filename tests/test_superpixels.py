"""Superpixels (albumentations' name and parameters: SLIC superpixels filled with their mean, a
drawn share of them) against albumentations 2.0.8 itself: its own ``apply`` on warpkit's drawn
parameters, photos, uint8 and float32, 1, 3 and 4 channels, each interpolation, segmented at
max_size and at full size; in a pipeline after a crop and a flip, ported from albumentations;
draws, replay, the dict round trip and the refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos

A, PHOTOS = albumentations_and_photos()


def _theirs(t: "A.Superpixels", img: np.ndarray, params: dict) -> np.ndarray:
    return t.apply(img, replace_samples=np.asarray(params["replace_samples"], bool),
                   n_segments=params["n_segments"])


@pytest.mark.parametrize("name,channels,dtype,settings", [
    ("astronaut", 3, np.uint8, {}),
    ("coffee", 3, np.uint8, {"max_size": None, "n_segments": (30, 60)}),
    ("chelsea", 1, np.uint8, {"interpolation": 2, "max_size": 96}),
    ("astronaut", 4, np.uint8, {"interpolation": 3, "p_replace": (0.4, 0.9)}),
    ("coffee", 3, np.float32, {"interpolation": 0, "n_segments": (150, 250)}),
    ("chelsea", 3, np.uint8, {"interpolation": 4, "max_size": 200}),
])
def test_matches_albumentations_apply(queue, name, channels, dtype, settings):
    """Each sample's drawn segments and fills, through albumentations' own apply: the same
    pixels (float32: the same levels / 255)."""
    img = PHOTOS[name][:300, :260]
    img = img[..., 0] if channels == 1 else \
        np.concatenate([img, img[..., :1]], 2) if channels == 4 else img
    img = np.ascontiguousarray(img)
    if dtype == np.float32:
        img = img.astype(np.float32) / 255
    kw = {"p_replace": (0.3, 0.7), **settings}
    ours = W.Superpixels(**kw, p=1)
    theirs = A.Superpixels(**kw, p=1)
    for index in range(2):
        out = ours(image=img, seed=1, index=index, queue=queue)
        p = out["params"]["steps"][0]
        assert p["n_segments"] == len(p["replace_samples"]) and any(p["replace_samples"])
        want = _theirs(theirs, img, p)
        assert out["image"].dtype == want.dtype and out["image"].shape == want.shape
        np.testing.assert_array_equal(out["image"], want)


def test_in_a_pipeline_ported_from_albumentations(queue):
    """Crop + flip, every segment filled (p_replace 1: no draw to match), then a brightness and
    Normalize: albumentations' result, the port of its live Compose and of its saved dict."""
    img = PHOTOS["astronaut"]
    steps = [A.Crop(40, 30, 330, 290), A.HorizontalFlip(p=1),
             A.Superpixels(p_replace=(1, 1), n_segments=(80, 80), max_size=100, p=1),
             A.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1)]
    pipe = A.Compose([*steps, A.Normalize()], seed=0)
    want = pipe(image=img)["image"]
    for port in (W.from_albumentations(pipe),
                 W.from_albumentations(json.loads(json.dumps(A.to_dict(pipe))))):
        got = port(image=img, seed=5, queue=queue)["image"]
        assert np.abs(got - want).max() <= 1.001 / (255 * 0.225)
    plain = A.Compose(steps[:3], seed=0)(image=img)["image"]
    np.testing.assert_array_equal(W.from_albumentations(A.Compose(steps[:3]))(
        image=img, seed=0, queue=queue)["image"], plain)


def test_draws_replay_and_round_trip(queue):
    """The draws in albumentations' order from the sample's stream, recorded; a batch equal to
    its samples alone and replayed; to_dict and back; a Superpixels with nothing to fill is the
    image itself; more segments than pixels (albumentations fails) gives a segment a pixel."""
    t = W.Superpixels(p_replace=0.5, n_segments=40, p=0.7)
    assert t.p_replace == (0.0, 0.5) and t.n_segments == (1, 40)
    pipe = W.Compose([W.RandomResizedCrop((64, 64)), t, W.HorizontalFlip()])
    imgs = [PHOTOS["coffee"][:200, :300], PHOTOS["chelsea"][:250, :200]] * 3
    got = pipe(image=imgs, seed=3, queue=queue)
    for k, img in enumerate(imgs):
        assert got["params"][k] == pipe.sample(img.shape[:2], seed=3, index=k)
        np.testing.assert_array_equal(
            pipe(image=img, seed=3, index=k, queue=queue)["image"], got["image"][k])
    again = pipe(image=imgs, params=got["params"], queue=queue)
    np.testing.assert_array_equal(again["image"], got["image"])
    back = W.Compose.from_dict(json.loads(json.dumps(pipe.to_dict())))
    np.testing.assert_array_equal(back(image=imgs, seed=3, queue=queue)["image"], got["image"])
    none = W.Superpixels(p_replace=(0, 0), p=1)
    img = PHOTOS["astronaut"][:50, :60]
    np.testing.assert_array_equal(none(image=img, seed=0, queue=queue)["image"], img)
    tiny = W.Superpixels(p_replace=(1, 1), n_segments=(500, 500), p=1)(
        image=img[:10, :12], seed=0, queue=queue)["image"]
    assert tiny.shape == (10, 12, 3)


@pytest.mark.parametrize("pairs", [1 << 20, 1 << 11])
def test_slic_labels_are_albumentations(monkeypatch, pairs):
    """The segmentation itself, against albumentations' own slic: photos of 1 and 3 channels, a
    flat image, 10 to 1000 segments; every centre's window at once, and a few centres at a
    time (the pairs' bound made small)."""
    from albumentations.augmentations.pixel import functional as F

    from warpkit.augment import _superpixels as S

    monkeypatch.setattr(S, "_CANDIDATES", pairs)
    for img in (PHOTOS["astronaut"][::4, ::4], PHOTOS["coffee"][::4, ::5],
                PHOTOS["chelsea"][::3, ::3, :1], np.full((50, 60, 3), 7, np.uint8)):
        img = np.ascontiguousarray(img)
        for n in (10, 100, 1000):
            np.testing.assert_array_equal(S.slic(img, n), F.slic(img, n))


def test_refusals():
    with pytest.raises(ValueError, match="n_segments must lie in"):
        W.Superpixels(n_segments=(0, 10))
    with pytest.raises(ValueError, match="n_segments must be whole numbers"):
        W.Superpixels(n_segments=(2.5, 10))
    with pytest.raises(ValueError, match=r"p_replace must lie in \[0, 1\]"):
        W.Superpixels(p_replace=(0.2, 1.5))
    with pytest.raises(ValueError, match="max_size must be a whole number >= 1 or None"):
        W.Superpixels(max_size=0)
    with pytest.raises(ValueError, match="interpolation must be one of OpenCV's codes"):
        W.Superpixels(interpolation=7)
    with pytest.raises(ValueError, match="Superpixels takes uint8 or float32 images"):
        W.Superpixels(p=1)(image=np.zeros((20, 20, 3), np.uint16), seed=0)
    with pytest.raises(ValueError, match="Superpixels inside Compose is not supported"):
        W.Compose([W.Compose([W.Superpixels()])])
