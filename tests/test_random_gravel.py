"""RandomGravel (warpkit.augment._scene, kernels_cl/colour.h's WK_COL_GRAVEL) against
albumentations 2.0.8's apply of the recorded particles on uint8 and float32 photos, particles
that overlap (the last one's level) included; its draws, batches, replay, the port, the
refusals and the engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _albumentations(img: np.ndarray, gravels: list) -> np.ndarray:
    """albumentations' apply of warpkit's recorded particles (its rows: y1, y2, x1, x2,
    level)."""
    rows = np.array([[y1, y2, x1, x2, v] for x1, y1, x2, y2, v in gravels], np.int64)
    return A.RandomGravel(p=1).apply(img, gravels_infos=rows.reshape(-1, 5))


def _levels(img: np.ndarray) -> np.ndarray:
    return img.astype(np.float64) * (255 if img.dtype == np.float32 else 1)


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo):
    """uint8 and float32 (levels of 255): albumentations' apply within a level, at most 1
    value in 10^4 off at all; the particles changed the image where they lie."""
    img = PHOTOS[photo]
    for k, (roi, patches) in enumerate([((0.1, 0.4, 0.9, 0.9), 2), ((0.0, 0.0, 1.0, 1.0), 6),
                                        ((0.4, 0.1, 0.8, 0.5), 1)]):
        for im in (img, img.astype(np.float32) / 255):
            out = W.Compose([W.RandomGravel(roi, patches, p=1)])(image=im, seed=k)
            gravels = out["params"]["steps"][0]["gravels"]
            assert len(gravels) >= patches
            want = _albumentations(im, gravels)
            d = np.abs(_levels(out["image"]) - _levels(want))
            assert d.max() <= 1 + 1e-4 and (d > 1e-3).mean() < 1e-4, (roi, im.dtype)
            x1, y1, x2, y2, level = max(gravels, key=lambda g: (g[2] - g[0]) * (g[3] - g[1]))
            assert (out["image"][y1:y2, x1:x2] != im[y1:y2, x1:x2]).any()


def test_overlaps_take_the_last_particle(small_queue):
    """Replayed particles that overlap, touch the edges and are empty: the last one that holds
    a pixel sets its lightness, as albumentations' slices in order; a geometric step before
    (the particles on the output) and a colour step after. On every device and Oclgrind (the
    small cases' seeded draws make no particle on outputs so small)."""
    queue = small_queue
    img = PHOTOS["coffee"][100:130, 200:245].copy()
    gravels = [[0, 0, 15, 10, 250], [5, 3, 20, 12, 10], [10, 5, 12, 20, 128],
               [40, 25, 44, 29, 0], [20, 20, 20, 22, 255], [6, 3, 7, 4, 60]] * 3
    pipe = W.Compose([W.RandomGravel(p=1)])
    params = {"applied": True, "steps": [{"applied": True, "gravels": gravels,
                                          "size": [45, 30]}]}
    got = pipe(image=img, params=params, queue=queue)["image"]
    np.testing.assert_allclose(got, _albumentations(img, gravels), atol=1)
    flip = W.Compose([W.HorizontalFlip(p=1), W.RandomGravel(p=1), W.RandomGamma(p=1)])
    steps = [{"applied": True}, params["steps"][0], {"applied": True, "gamma": 1.2}]
    got = flip(image=img, params={"applied": True, "steps": steps}, queue=queue)["image"]
    want = A.RandomGamma(p=1).apply(_albumentations(img[:, ::-1].copy(), gravels), gamma=1.2)
    assert np.abs(got.astype(np.int64) - want).max() <= 1


def test_draws_follow_albumentations_laws():
    """Each patch inside the ROI with its width and height in [roi // 10, roi // 5]; a particle
    count of width * height // 100; radii 1-3, levels 0-255; rectangles clipped as
    albumentations' (the last row and column never reached); alone and in a batch's draws
    (the same numbers, sample by sample)."""
    t = W.RandomGravel((0.0, 0.5, 1.0, 1.0), 3, p=1)
    sizes = [(200, 120), (640, 480), (31, 17)]
    for s, size in enumerate(sizes * 30):
        g = np.array(t.draw(np.random.default_rng(s), size)["gravels"]).reshape(-1, 5)
        w, h = size
        if len(g):
            assert g[:, 0].min() >= 0 and g[:, 2].max() <= w - 1 and g[:, 3].max() <= h - 1
            assert g[:, 1].min() >= int(0.5 * h) - 3
            assert g[:, 4].min() >= 0 and g[:, 4].max() <= 255
            sides = np.concatenate([g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]])
            assert sides.max() <= 6
    big = [t.draw(np.random.default_rng(s), (1000, 800))["gravels"] for s in range(200)]
    counts = np.array([len(b) for b in big])
    # per patch, width ~ U{100..200}, height ~ U{40..80}: E[w h // 100] ~ 90
    assert 3 * 80 < counts.mean() < 3 * 100
    levels = np.concatenate([np.array(b)[:, 4] for b in big])
    assert abs(levels.mean() - 127.5) < 2 and levels.min() == 0 and levels.max() == 255
    assert_drawn_alone(t, [np.zeros((h, w, 3), np.uint8) for w, h in sizes] * 12, 4,
                       (0, 1, 2, 35))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside another colour
    step: each sample as alone and replayed; to_dict / from_dict and from_albumentations; the
    refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomGravel(p=1), W.RandomSnow(p=1)], photos, queue)
    assert_ports(W.RandomGravel((0.2, 0.3, 0.8, 0.7), 4, p=0.3),
                 A.RandomGravel(gravel_roi=(0.2, 0.3, 0.8, 0.7), number_of_patches=4, p=0.3))
    for kw, match in (({"gravel_roi": (0.5, 0.1, 0.4, 0.9)}, "gravel_roi must have"),
                      ({"gravel_roi": (0.1, 0.2)}, "gravel_roi must be"),
                      ({"number_of_patches": 0}, "number_of_patches")):
        with pytest.raises(ValueError, match=match):
            W.RandomGravel(**kw)
    with pytest.raises(TypeError, match="RGB images of 3 channels"):
        W.Compose([W.RandomGravel(p=1)])(image=PHOTOS["coffee"][..., 0].copy(), seed=0)
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.RandomGravel(p=1)])(image=PHOTOS["coffee"].astype(np.uint16), seed=0)
    from warpkit.engine.core import COL_DATA, COL_GRAVEL

    img = PHOTOS["coffee"][:20, :30].copy()
    patch = [COL_DATA, 0.1, 0.1, 0.5, 0.5, 0, 1]
    rect = [COL_DATA, 0.1, 0.1, 0.2, 0.2, 100]
    for rows in ([[COL_GRAVEL, 1, 1, 3], patch, rect],  # a count past the list
                 [[COL_GRAVEL, 1, 1, 2], patch],
                 [[COL_GRAVEL, 1, 1, 2], [COL_DATA, 0.1, 0.1, 0.5, 0.5, 0, 2], rect],
                 [[COL_GRAVEL, 1, 1, 2], patch, [COL_DATA, 0.1, 0.1, 1.5, 0.2, 100]],
                 [[COL_GRAVEL, 1.5, 1, 2], patch, rect]):
        with pytest.raises(ValueError, match="COL_GRAVEL"):
            warp_with_rows(img, rows, queue)
    with pytest.raises(ValueError, match="COL_GRAVEL takes uint8 or float32"):
        warp_with_rows(img.astype(np.uint16), [[COL_GRAVEL, 1, 1, 2], patch, rect], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """RandomGravel over the whole of a rotated output (a 21 x 13 output: its HLS round trip,
    no particle), alone and before a colour step: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomGravel((0.0, 0.0, 1.0, 1.0), 30, p=1)],
             [W.RandomGravel((0.3, 0.3, 1.0, 1.0), 20, p=1), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
