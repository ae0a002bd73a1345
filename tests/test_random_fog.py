"""RandomFog (warpkit.augment._weather, kernels_cl/colour.h's WK_COL_FOG: each pixel counts the
particles that hold it and takes albumentations' blend that many times; then a Gaussian blur
pass) against albumentations 2.0.8's add_fog of the recorded particles on uint8 and float32
photos, and its blending before the blur level for level; its draws, batches, replay, the port,
the refusals and the engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine.core import COL_BLUR, COL_DATA, COL_FOG, COLOUR_WORDS, warp_by

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _theirs(img: np.ndarray, step: dict, t: W.RandomFog) -> np.ndarray:
    import albumentations.augmentations.pixel.functional as F

    parts = step["particles"]
    return F.add_fog(img, step["intensity"], t.alpha_coef, [(x, y) for x, y, _ in parts],
                     [r for *_, r in parts])


def _blended(img: np.ndarray, step: dict, t: W.RandomFog) -> np.ndarray:
    """add_fog's particles without its blur (its loop as albumentations writes it)."""
    out, a = img.copy(), t.alpha_coef * step["intensity"]
    for x, y, r in step["particles"]:
        overlay = out.copy()
        cv2.circle(overlay, (x, y), r, (255, 255, 255), -1)
        cv2.addWeighted(overlay, a, out, 1 - a, 0, dst=out)
    return out


@pytest.mark.parametrize("photo", list(PHOTOS))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(photo, dtype, queue):
    """Default parameters and a thin fog, several seeds: albumentations' apply of the same
    particles within a level (its cv2.GaussianBlur works in 8-bit fixed point; warpkit's blur
    in float, rounded once), the same level on most pixels; the particles' blends alone level
    for level."""
    img = PHOTOS[photo][::2, ::2].copy()
    x = img.astype(np.float32) / 255 if dtype == np.float32 else img
    for t in (W.RandomFog(p=1), W.RandomFog(0.2, (0.2, 0.4), p=1)):
        for seed in range(2):
            out = W.Compose([t])(image=x, seed=seed, queue=queue)
            step = out["params"]["steps"][0]
            want = _theirs(x, step, t)
            got = out["image"]
            assert got.dtype == want.dtype and got.shape == want.shape
            scale = 255 if dtype == np.float32 else 1
            diff = np.abs(got.astype(np.float64) - want) * scale
            assert diff.max() <= 1 + 1e-3 and (diff > 0.5).mean() < 0.1, (diff.max(),
                                                                         (diff > 0.5).mean())
            if dtype == np.float32:  # levels of 255, as albumentations' uint8 round trip
                np.testing.assert_allclose(got * 255, np.rint(got * 255), atol=2e-4)
    # the blends before the blur: the same levels
    t = W.RandomFog(p=1)
    step = t.draw(np.random.default_rng(1), img.shape[1::-1])
    ops = t.colour_ops(step, 3, 255.0)
    fog = [o for o in ops if o[0] != COL_BLUR][:1 + -(-len(step["particles"]) // 3)]
    rows = np.zeros((1, len(fog) * COLOUR_WORDS), np.float32)
    for j, o in enumerate(fog):
        rows[0, j * COLOUR_WORDS:j * COLOUR_WORDS + len(o)] = o
    h, w = img.shape[:2]
    # (OpenCV's addWeighted picks its SIMD per CPU: a blend on a half may round either way)
    diff = np.abs(warp_by(img, np.eye(3), (w, h), queue=queue, colour=rows).astype(int)
                  - _blended(img, step, t))
    assert diff.max() <= 1 and (diff > 0).mean() <= 1e-3, (diff.max(), (diff > 0).mean())


def test_draws_follow_albumentations_laws():
    """The particles' regions and counts as albumentations' loop makes them, their centres
    inside each region (both ends), radii in [r // 2, r); a batch draws what each sample draws
    alone; a draw of too many particles refused by name."""
    t = W.RandomFog(fog_coef_range=(0.6, 0.6), p=1)
    size = (300, 200)
    p = t.draw(np.random.default_rng(0), size)
    regions = t._regions(0.6, size)
    for shape in ((200, 300), (33, 47), (480, 640)):  # albumentations' own draw: its count
        theirs = A.RandomFog(fog_coef_range=(0.6, 0.6), p=1).get_params_dependent_on_data(
            {"shape": shape}, {})
        assert sum(r[4] for r in t._regions(0.6, shape[::-1])) == \
            len(theirs["particle_positions"]), shape
    assert regions[0][4] == int(300 * 200 / 3600 * 6) and len(regions) == 10
    parts = np.asarray(p["particles"])
    start = 0
    for x0, x1, y0, y1, n in regions:
        chunk = parts[start:start + n]
        assert (chunk[:, 0] >= x0).all() and (chunk[:, 0] <= x1).all()
        assert (chunk[:, 1] >= y0).all() and (chunk[:, 1] <= y1).all()
        start += n
    assert start == len(parts) and set(parts[:, 2]) == {6, 7, 8, 9, 10, 11}
    photos = [np.zeros((h, w, 3), np.uint8) for h, w in ((40, 60), (90, 50), (33, 33))] * 2
    assert_drawn_alone(W.RandomFog(p=1), photos, 4, range(len(photos)))
    with pytest.raises(ValueError, match="RandomFog drew .* particles"):
        W.RandomFog(fog_coef_range=(0.003, 0.003), p=1).draw(np.random.default_rng(0),
                                                           (3000, 3000))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside another colour
    step: each sample as alone and replayed; to_dict / from_dict and from_albumentations; the
    refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomFog(p=1), W.RandomSunFlare(src_radius=50, p=1)], photos, queue)
    assert_ports(W.RandomFog(0.1, (0.4, 0.7), p=0.3),
                 A.RandomFog(alpha_coef=0.1, fog_coef_range=(0.4, 0.7), p=0.3))
    for kw, match in (({"alpha_coef": 1.5}, "alpha_coef"),
                      ({"fog_coef_range": (0.5, 1.5)}, "fog_coef_range"),
                      ({"fog_coef_range": (0.7, 0.3)}, "fog_coef_range")):
        with pytest.raises(ValueError, match=match):
            W.RandomFog(**kw)
    img = PHOTOS["coffee"][:20, :30].copy()
    # drawn on 15 x 10, applied to 30 x 20: centres and radii doubled (the same blur)
    t = W.RandomFog(0.5, p=1)
    small = {"applied": True, "intensity": 0.5, "size": [15, 10],
             "particles": [[3, 1, 2], [7, 5, 3], [14, 9, 1], [-1, 4, 2]]}
    doubled = {**small, "size": [30, 20], "particles": [[2 * v for v in q]
                                                        for q in small["particles"]]}
    got = [W.Compose([t])(image=img, params={"applied": True, "steps": [step]}, queue=queue)
           for step in (small, doubled)]
    np.testing.assert_array_equal(got[0]["image"], got[1]["image"])
    assert (got[0]["image"] != img).any()
    with pytest.raises(TypeError, match="RGB images"):
        W.Compose([W.RandomFog(p=1)])(image=img[..., :2], seed=0, queue=queue)
    head = [COL_FOG, 4, 0.05, 2, 3, 30, 20]  # particles in whole pixels of 30 x 20
    parts = [COL_DATA, 3, 2, 3, 15, 4, 1, 9, 8, 3]
    last = [COL_DATA, 27, 18, 2]
    warp_with_rows(img, [head, parts, last], queue)  # well formed
    for rows in ([head, parts], [[COL_FOG, 4, 0.05, 1, 3, 30, 20], parts, last],
                 [[COL_FOG, 4, 1.5, 2, 3, 30, 20], parts, last],
                 [[COL_FOG, 4, 0.05, 2, 2, 30, 20], parts, last],  # a radius past the largest
                 [[COL_FOG, 4, 0.05, 2, 3, 0, 20], parts, last],  # no size
                 [[COL_FOG, 4, 0.05, 2, 3, 30.5, 20], parts, last],
                 [head, [COL_DATA, 3, 9, 3, 15, 4, 1, 9, 8, 3], last],  # rows out of order
                 [head, [COL_DATA, 3, 2, 3, 15, 4.5, 1, 9, 8, 3], last],  # not a whole pixel
                 [head, parts, [COL_DATA, np.nan, 18, 2]],
                 [head, parts, [1, 27, 18, 2]]):
        with pytest.raises(ValueError, match="COL_FOG"):
            warp_with_rows(img, rows, queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Fog over a rotated output (a 21 x 13 output), alone and before a colour step: the
    default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomFog(0.3, (0.5, 0.9), p=1)],
             [W.RandomFog(p=1), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
