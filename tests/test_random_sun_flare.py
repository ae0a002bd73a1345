"""RandomSunFlare (warpkit.augment._weather, kernels_cl/colour.h's WK_COL_FLARE: albumentations'
overlay of circles decided per pixel) against albumentations 2.0.8's add_sun_flare_overlay of
the recorded circles on uint8 and float32 photos, circles past the image's edges and radii past
65535 included; its draws, batches, replay, the port, the refusals and the engine's checks; on
every device and Oclgrind."""

from __future__ import annotations


import numpy as np
import pytest

from warpkit import augment as W

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _theirs(img: np.ndarray, step: dict, t: W.RandomSunFlare) -> np.ndarray:
    """albumentations' overlay of the circles a sample recorded (in pixels of ``img``)."""
    import albumentations.augmentations.pixel.functional as F

    circles = [(c[0], (c[1], c[2]), c[3], tuple(c[4:7])) for c in step["circles"]]
    return F.add_sun_flare_overlay(img, tuple(step["center"]), t.src_radius, t.src_color,
                                   circles)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """The same levels but for blends that land on a half, which albumentations' SIMD sum
    (simsimd's, chosen per CPU) may round the other way: within a level, and the same on all
    but 1 value in 1000 (every value on this project's CPUs); float32 as levels / 255,
    correctly rounded as albumentations' table has them."""
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = 255.0 if got.dtype == np.float32 else 1.0
    diff = np.abs(got.astype(np.float64) - want) * scale
    assert diff.max() <= 1 + 1e-3 and (diff > 1e-3).mean() <= 1e-3, \
        (diff.max(), (diff > 1e-3).mean())
    if got.dtype == np.float32:
        # levels of 255 both, each the correctly rounded float32(level) / 255 of
        # albumentations' table (IEEE division: the same on every CPU)
        np.testing.assert_array_equal(
            got, np.rint(got.astype(np.float64) * 255).astype(np.float32) / np.float32(255))


@pytest.mark.parametrize("photo", list(PHOTOS))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(photo, dtype):
    """Default parameters and a small sun in another colour, several seeds: albumentations'
    apply of the same circles, level for level."""
    img = PHOTOS[photo][::2, ::2].copy()
    if dtype == np.float32:
        img = img.astype(np.float32) / 255
    for t in (W.RandomSunFlare(p=1),
              W.RandomSunFlare((0.2, 0.1, 0.9, 0.9), 60, (250, 200, 30), (0.1, 0.4), (1, 3),
                               p=1)):
        for seed in range(3):
            out = W.Compose([t])(image=img, seed=seed)
            step = out["params"]["steps"][0]
            want = _theirs(img, step, t)
            _same(out["image"], want)
            assert (want != img).mean() > 0.005  # (the flare is there)


def test_circles_past_the_edges_and_huge_radii(queue):
    """Recorded circles replayed: centres outside the image on every side, radii 0, 1, cubes
    past 65535 (a circle that holds the whole image), alphas 0 and 1, a sun centred outside
    the image: albumentations' pixels."""
    img = PHOTOS["coffee"][:70, :90].copy()
    t = W.RandomSunFlare(src_radius=95, src_color=(240, 255, 10), p=1)
    circles = [[0.2, -30, 10, 40, 255, 0, 0], [0.15, 100, 80, 0, 0, 255, 0],
               [0.1, 45, -200, 201, 0, 0, 255], [1.0, 20, 30, 1, 9, 9, 9],
               [0.0, 60, 20, 15, 200, 200, 200], [0.05, 10, 10, 70 ** 3, 128, 64, 32],
               [0.18, 89, 69, 8, 1, 2, 3]]
    for centre in ([45, 35], [-20, 80], [200, -50]):
        step = {"applied": True, "center": centre, "circles": circles, "size": [90, 70]}
        got = W.Compose([t])(image=img, params={"applied": True, "steps": [step]},
                             queue=queue)["image"]
        _same(got, _theirs(img, step, t))


def test_draws_follow_albumentations_laws():
    """The centre inside flare_roi (truncated to pixels), the count in its range (both ends),
    alphas in [0.05, 0.2), radii the cubes of 1 .. 1% of the height, colours within 20% of the
    brightest of src_color below it, points on the line through the centre at steps of 1% of
    the diagonal; a batch draws what each sample draws alone."""
    t = W.RandomSunFlare((0.1, 0.2, 0.6, 0.4), src_color=(255, 100, 0),
                         num_flare_circles_range=(2, 5), p=1)
    size = (640, 480)
    counts, radii = set(), set()
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = t.draw(rng, size)
        x, y = p["center"]
        assert 64 <= x < 384 and 96 <= y < 192
        counts.add(len(p["circles"]))
        for alpha, cx, cy, r, *rgb in p["circles"]:
            assert 0.05 <= alpha < 0.2
            radii.add(r)
            assert 204 <= rgb[0] <= 255 and 49 <= rgb[1] <= 100 and rgb[2] == 0
        # every circle's point on one line through the centre (each truncated to a pixel)
        pts = np.array([[cx - x, cy - y] for _, cx, cy, *_ in p["circles"]], np.float64)
        far = pts[np.argmax(np.hypot(*pts.T))]
        if np.hypot(*far) > 20:
            off = np.abs(pts[:, 0] * far[1] - pts[:, 1] * far[0]) / np.hypot(*far)
            assert off.max() <= 2.0, (p, off)
    assert counts == {2, 3, 4, 5} and radii == {1, 8, 27, 64}
    photos = [np.zeros((h, w, 3), np.uint8) for h, w in ((40, 60), (90, 50), (33, 33))] * 2
    assert_drawn_alone(t, photos, 4, range(len(photos)))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside another colour
    step: each sample as alone and replayed; circles drawn on another size scale to the output;
    to_dict / from_dict and from_albumentations; the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomSunFlare(src_radius=50, p=1), W.RandomShadow(p=1)], photos,
                       queue)
    # drawn on 40 x 30, applied to 80 x 60: centres and radii doubled (a sun of no circles:
    # src_radius // 10 is 0)
    t = W.RandomSunFlare(src_radius=9, p=1)
    img = PHOTOS["astronaut"][:60, :80].copy()
    step = {"applied": True, "center": [20, 15], "size": [40, 30],
            "circles": [[0.2, 10, 5, 8, 250, 240, 230], [0.1, 35, 25, 1, 200, 210, 220]]}
    got = W.Compose([t])(image=img, params={"applied": True, "steps": [step]}, queue=queue)
    doubled = {**step, "center": [40, 30], "size": [80, 60],
               "circles": [[0.2, 20, 10, 16, 250, 240, 230], [0.1, 70, 50, 2, 200, 210, 220]]}
    _same(got["image"], _theirs(img, doubled, t))
    assert_ports(W.RandomSunFlare((0.1, 0.2, 0.9, 0.6), 300, (255, 250, 200), (0.2, 0.5),
                                  (3, 7), p=0.3),
                 A.RandomSunFlare(flare_roi=(0.1, 0.2, 0.9, 0.6), src_radius=300,
                                  src_color=(255, 250, 200), angle_range=(0.2, 0.5),
                                  num_flare_circles_range=(3, 7), p=0.3))
    for kw, match in (({"flare_roi": (0.5, 0.1, 0.4, 0.9)}, "flare_roi must have"),
                      ({"method": "physical"}, "method must be"),
                      ({"src_radius": 0}, "src_radius"), ({"src_radius": 2570}, "src_radius"),
                      ({"src_color": (255, 255)}, "src_color"),
                      ({"src_color": (255, 256, 0)}, "src_color"),
                      ({"angle_range": (0.5, 1.5)}, "angle_range"),
                      ({"num_flare_circles_range": (0, 3)}, "num_flare_circles_range"),
                      ({"num_flare_circles_range": (1, 1025)}, "num_flare_circles_range")):
        with pytest.raises(ValueError, match=match):
            W.RandomSunFlare(**kw)
    with pytest.raises(TypeError, match="RGB images"):
        W.Compose([W.RandomSunFlare(p=1)])(image=img[..., 0], seed=0, queue=queue)
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.RandomSunFlare(p=1)])(image=img.astype(np.uint16), seed=0, queue=queue)
    from warpkit.engine.core import COL_DATA, COL_FLARE

    head = [COL_FLARE, 1, 6, 3, 0.5, 0.5, 255, 255, 255]
    circle = [COL_DATA, 0.2, 0.3, 0.1, 0.2, 250, 200, 100]
    sun = [COL_DATA, 0.1, 0.0, 0.2, 0.01, 0.3, 0.1, 0.4, 0.2, 0.5, 0.3]
    warp_with_rows(img, [head, circle, sun, [COL_DATA, 0.6, 0.4]], queue)  # well formed
    for rows in ([head, circle, sun], [[COL_FLARE, 1, 6, 2, 0.5, 0.5, 1, 1, 1], circle, sun],
                 [[COL_FLARE, 1.5, 0, 1, 0, 0, 1, 1, 1], circle],
                 [[COL_FLARE, 1, 0, 1, 0.5, 0.5, 300, 1, 1], circle],
                 [[COL_FLARE, 1, 0, 1, np.nan, 0.5, 1, 1, 1], circle],
                 [head, [COL_DATA, 0.2, 0.3, 0.1, 1.2, 250, 200, 100], sun, [COL_DATA, 0.6]],
                 [head, [COL_DATA, 0.2, 0.3, -1, 0.2, 250, 200, 100], sun, [COL_DATA, 0.6]],
                 [head, circle, [COL_DATA, 0.1, 2.0], [COL_DATA, 0.6, 0.4]],
                 [head, circle, sun, [1, 0.6, 0.4]]):
        with pytest.raises(ValueError, match="COL_FLARE"):
            warp_with_rows(img, rows, queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Flares over a rotated output (a 21 x 13 output), alone and before a colour step: the
    default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomSunFlare((0, 0, 1, 1), 30, (255, 240, 200), (0, 1), (2, 4), p=1)],
             [W.RandomSunFlare(src_radius=20, p=1), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
