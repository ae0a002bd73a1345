"""Illumination (warpkit.augment._scene, kernels_cl/colour.h's WK_COL_LIGHT) against
albumentations 2.0.8's apply of the recorded parameters on photos in uint8, uint16 and float32
and 1-4 channels; its draws, batches, replay, the port, the refusals and the engine's checks;
on every device and Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()
#: (mode, fixed ranges): the linear gradient's special angles (an axis, a diagonal scaled to
#: [0, 1]) and general ones (not scaled); each corner; gaussian lights in and out of the image
CASES = [("linear", {"angle_range": (a, a)}) for a in (0, 90, 135, 180, 315, 30.5, 200, 333)]
CASES += [("corner", {})] * 4  # (each corner: the seeds below draw 0, 1, 2, 3)
CASES += [("gaussian", {"center_range": (c, c), "sigma_range": (s, s)})
          for c, s in ((0.5, 0.2), (0.1, 1.0), (0.9, 0.5))]


#: a seed for each corner case that draws its corner (0 .. 3), brightening and darkening alike
CORNER_SEEDS = {8: 2, 9: 3, 10: 0, 11: 7}


def _albumentations(img: np.ndarray, mode: str, params: dict, **ranges) -> np.ndarray:
    p = {k: v for k, v in params.items() if k != "applied"}
    if "center" in p:
        p["center"] = tuple(p["center"])
    return A.Illumination(mode=mode, p=1, **ranges).apply(img, **p)


def _run(img: np.ndarray, mode: str, ranges: dict, effect: str, seed: int,
         intensity=(0.2, 0.2)) -> tuple[np.ndarray, dict]:
    t = W.Illumination(mode=mode, intensity_range=intensity, effect_type=effect, p=1, **ranges)
    out = W.Compose([t])(image=img, seed=seed)
    return out["image"], out["params"]["steps"][0]


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo):
    """uint8: albumentations' apply within a level, at most 1 value in 10^4 off at all (its
    float32 gradient against the kernel's); the corners drawn are all four; the light
    changes the image."""
    img = PHOTOS[photo]
    corners = set()
    for k, (mode, ranges) in enumerate(CASES):
        for effect in ("brighten", "darken"):
            got, params = _run(img, mode, ranges, effect, seed=CORNER_SEEDS.get(k, k))
            assert (params["intensity"] > 0) == (effect == "brighten")
            corners.add(params.get("corner"))
            want = _albumentations(img, mode, params, **ranges)
            d = np.abs(got.astype(np.int64) - want)
            assert d.max() <= 1 and (d > 0).mean() < 1e-4, (mode, ranges, effect)
            assert (got != img).mean() > 0.05, (mode, ranges, effect)
    assert corners >= {0, 1, 2, 3}


@pytest.mark.parametrize("dtype", [np.float32, np.uint16])
def test_float_and_uint16_are_albumentations(dtype):
    """float32 within 2.5e-7 (float32's rounding); uint16 within a level: albumentations rounds
    uint16 (OpenCV's multiply) where it truncates uint8."""
    img8 = PHOTOS["coffee"][::2, ::2]
    img = img8.astype(np.float32) / 255 if dtype == np.float32 else img8.astype(np.uint16) * 257
    for k, (mode, ranges) in enumerate(CASES[::2]):
        got, params = _run(img, mode, ranges, ("brighten", "darken")[k % 2], seed=k)
        want = _albumentations(img, mode, params, **ranges)
        assert want.dtype == dtype
        tol = 2.5e-7 if dtype == np.float32 else 1
        assert np.abs(got.astype(np.float64) - want).max() <= tol, (mode, ranges)


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_channels(channels):
    """Every channel takes the same pattern: albumentations' on 2 and 4 channels within a level;
    one channel as albumentations' gray (H, W) image (its (H, W, 1) corner and gaussian modes
    fail to broadcast)."""
    img8 = PHOTOS["astronaut"][::3, ::3]
    img = np.ascontiguousarray(np.dstack([img8, img8])[..., :channels])
    for mode, ranges in (CASES[5], CASES[9], CASES[13]):
        got, params = _run(img, mode, ranges, "both", seed=4, intensity=(0.15, 0.15))
        ref = img[..., 0] if channels == 1 else img
        want = _albumentations(ref, mode, params, **ranges).reshape(got.shape)
        assert np.abs(got.astype(np.int64) - want).max() <= 1, (channels, mode)


def test_gradient_and_pattern_on_the_output():
    """The gradient's special angles (a diagonal scaled to [0, 1], 0 where a side of 1 pixel
    leaves it constant), and the light placed on the output after a resize (its size, not the
    photo's), as albumentations' on the resized photo."""
    assert W.Illumination.__module__ == "warpkit.augment._scene"
    from warpkit.augment._scene import light_gradient

    assert light_gradient(90.0) == (0.0, 0.0, 1.0, False)
    assert light_gradient(225.0) == (2.0, -1.0, -1.0, True)
    a, b, c, scaled = light_gradient(60.0)
    assert (a, scaled) == (0.0, False) and abs(b - 0.5) < 1e-12 and abs(c - 0.75 ** 0.5) < 1e-12
    img = PHOTOS["chelsea"]
    for mode, ranges in (CASES[2], CASES[12]):
        t = W.Illumination(mode=mode, intensity_range=(0.2, 0.2), p=1, **ranges)
        out = W.Compose([W.Resize((150, 200)), t])(image=img, seed=0)
        small = W.Compose([W.Resize((150, 200))])(image=img, seed=0)["image"]
        want = _albumentations(small, mode, out["params"]["steps"][1], **ranges)
        assert np.abs(out["image"].astype(np.int64) - want).max() <= 1
    # after a blur's pass (the light in colour_pass.cl's store), as albumentations' two steps
    fixed = dict(mode="linear", angle_range=(30, 30), intensity_range=(0.2, 0.2),
                 effect_type="brighten", p=1)
    blur = dict(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1)
    got = W.Compose([W.GaussianBlur(**blur), W.Illumination(**fixed)])(image=img, seed=0)
    want = A.Compose([A.GaussianBlur(**blur), A.Illumination(**fixed)])(image=img)["image"]
    assert np.abs(got["image"].astype(np.int64) - want).max() <= 1
    # a column: the 135-degree diagonal is the vertical ramp (1 - x is constant)
    col = np.full((9, 1, 3), 200, np.uint8)
    got, params = _run(col, "linear", {"angle_range": (135, 135)}, "brighten", seed=0)
    want = _albumentations(col, "linear", params, angle_range=(135, 135))
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 0] < got[-1, 0, 0]


def test_draws_follow_albumentations_laws():
    """The intensity uniform in its range, its sign a fair coin for "both"; the corner one of
    four; the centre and sigma uniform: alone and in a batch's draws (the same numbers)."""
    t = W.Illumination(mode="gaussian", intensity_range=(0.05, 0.15), p=1)
    draws = [t.draw(np.random.default_rng(s), (8, 8)) for s in range(1000)]
    i = np.array([d["intensity"] for d in draws])
    assert 0.05 <= np.abs(i).min() and np.abs(i).max() <= 0.15
    assert abs(np.abs(i).mean() - 0.1) < 0.005 and 0.45 < (i > 0).mean() < 0.55
    cx = np.array([d["center"][0] for d in draws])
    sg = np.array([d["sigma"] for d in draws])
    assert 0.1 <= cx.min() and cx.max() <= 0.9 and abs(cx.mean() - 0.5) < 0.02
    assert 0.2 <= sg.min() and sg.max() <= 1.0 and abs(sg.mean() - 0.6) < 0.02
    corner = W.Illumination(mode="corner", effect_type="darken", p=1)
    cs = [corner.draw(np.random.default_rng(s), (8, 8)) for s in range(400)]
    assert {d["corner"] for d in cs} == {0, 1, 2, 3}
    assert all(d["intensity"] < 0 for d in cs)
    for tr in (t, corner, W.Illumination(angle_range=(10, 80), p=1)):
        assert_drawn_alone(tr, [np.zeros((4, 4, 3), np.uint8)] * 40, 2, range(40))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, each mode in a OneOf beside
    another colour step: each sample as alone and replayed; to_dict / from_dict and
    from_albumentations; the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 3
    modes = [W.Illumination(mode=m, p=1) for m in ("linear", "corner", "gaussian")]
    assert_oneof_batch(modes, photos, queue, (W.RandomGamma(p=1),))
    ranges = dict(mode="corner", intensity_range=(0.05, 0.1), effect_type="darken",
                  angle_range=(10, 20), center_range=(0.3, 0.6), sigma_range=(0.3, 0.4), p=0.3)
    assert_ports(W.Illumination(**ranges), A.Illumination(**ranges))
    for kw, match in (({"mode": "radial"}, "mode must be"), ({"effect_type": "dim"}, "effect_type"),
                      ({"intensity_range": (0.1, 0.3)}, "intensity_range"),
                      ({"sigma_range": (0.1, 0.5)}, "sigma_range"),
                      ({"angle_range": (-10, 10)}, "angle_range")):
        with pytest.raises(ValueError, match=match):
            W.Illumination(**kw)
    from warpkit.engine.core import COL_LIGHT

    img = PHOTOS["coffee"][:20, :30].copy()
    for row in ([COL_LIGHT, 3, 0, 0, 0.1], [COL_LIGHT, 0, np.nan, 1, 0, 0.1, 0],
                [COL_LIGHT, 2, 0.5, 0.5, 0.1, 0.0], [COL_LIGHT, 1, 0, 0, np.inf]):
        with pytest.raises(ValueError, match="COL_LIGHT's mode must be"):
            warp_with_rows(img, [row], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Each mode after a rotation (a 21 x 13 output), the linear light scaled on a diagonal and
    before a colour step: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    light = lambda mode, **kw: W.Illumination(mode=mode, intensity_range=(0.2, 0.2), p=1, **kw)
    cases = [[light("linear", angle_range=(45, 45)), W.RandomGamma(p=1)],
             [light("gaussian", effect_type="darken")], [light("corner")],
             [light("linear", angle_range=(100, 100), effect_type="darken")]]
    check_small_cases(img, geo, cases, small_queue)
