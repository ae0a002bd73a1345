"""RandomSunFlare (warpkit.augment._weather) against albumentations 2.0.8 on uint8 and float32
photos: the overlay method (kernels_cl/colour.h's WK_COL_FLARE: the circles decided per pixel)
against add_sun_flare_overlay of the recorded circles, circles past the image's edges and radii
past 65535 included; the physics-based method (kernels_cl/flare.cl's layer, colour.h's
WK_COL_FLARE_PB screen blend) against add_sun_flare_physics_based, outputs from 2 to 300 pixels
a side, suns and circles past the edges, OpenCV 5's clip of a thick line and the layer's taps
against OpenCV's; the draws, batches, replay, the port, the refusals and the engine's checks; on
every device and Oclgrind."""

from __future__ import annotations

import re

import numpy as np
import pytest

from warpkit import augment as W

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _theirs(img: np.ndarray, step: dict, t: W.RandomSunFlare) -> np.ndarray:
    """albumentations' flare (t's method) of the sun and circles a sample recorded (in pixels
    of ``img``)."""
    import albumentations.augmentations.pixel.functional as F

    circles = [(c[0], (c[1], c[2]), c[3], tuple(c[4:7])) for c in step["circles"]]
    apply = F.add_sun_flare_overlay if t.method == "overlay" else F.add_sun_flare_physics_based
    return apply(img, tuple(step["center"]), t.src_radius, t.src_color, circles)


def _same(got: np.ndarray, want: np.ndarray, share: float = 1e-3) -> None:
    """The same levels but for values within rounding of a level's edge: within a level, and
    the same on all but ``share`` of the values. The overlay's blends that land on a half may
    round either way in albumentations' SIMD sum (simsimd's, chosen per CPU): every value on
    this project's CPUs. The physics-based layer is blurred in float32 on both sides, its sums
    in another order, and the blend's float32 result truncated: a value within a few units in
    the last place of a level may land either side of it (measured on the photos: at most 3 in
    10000; outputs a few pixels across, whose blurs sum a tap table many times over, more).
    float32 as levels / 255, correctly rounded as albumentations' table has them."""
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = 255.0 if got.dtype == np.float32 else 1.0
    diff = np.abs(got.astype(np.float64) - want) * scale
    assert diff.max() <= 1 + 1e-3 and (diff > 1e-3).mean() <= share, \
        (diff.max(), (diff > 1e-3).mean())
    if got.dtype == np.float32:
        # levels of 255 both, each the correctly rounded float32(level) / 255 of
        # albumentations' table (IEEE division: the same on every CPU)
        np.testing.assert_array_equal(
            got, np.rint(got.astype(np.float64) * 255).astype(np.float32) / np.float32(255))


@pytest.mark.parametrize("photo", list(PHOTOS))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("method", ["overlay", "physics_based"])
def test_photos_are_albumentations(photo, dtype, method):
    """Default parameters (a physics-based sun of radius 400 covers the whole image) and a small
    sun in another colour, several seeds: albumentations' apply of the same draws, level for
    level."""
    img = PHOTOS[photo][::2, ::2].copy()
    if dtype == np.float32:
        img = img.astype(np.float32) / 255
    for t in (W.RandomSunFlare(method=method, p=1),
              W.RandomSunFlare((0.2, 0.1, 0.9, 0.9), 60, (250, 200, 30), (0.1, 0.4), (1, 3),
                               method=method, p=1)):
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


def _replayed(img: np.ndarray, t: W.RandomSunFlare, centre, circles, queue) -> np.ndarray:
    h, w = img.shape[:2]
    step = {"applied": True, "center": list(centre), "circles": circles, "size": [w, h]}
    got = W.Compose([t])(image=img, params={"applied": True, "steps": [step]},
                         queue=queue)["image"]
    _same(got, _theirs(img, step, t), 1e-3 if min(h, w) > 10 else 1.0)
    return got


def test_physics_sizes_and_edges(queue):
    """Outputs 2 to 300 pixels a side (blurs whose 121 taps reflect many times over), suns
    centred outside the image on every side (spikes clipped as OpenCV 5 clips them), circles
    past the edges and of radii from 1 to past the image (their cubes recorded), no circles."""
    t = W.RandomSunFlare(src_radius=35, src_color=(240, 255, 10), method="physics_based", p=1)
    circles = [[0.2, -3, 10, 40, 255, 0, 0], [0.15, 50, 30, 1, 0, 255, 0],
               [0.1, 45, -20, 27, 0, 0, 255], [0.1, 20, 30, 70 ** 3, 9, 9, 9],
               [0.18, 89, 69, 8, 1, 2, 3]]
    photo = PHOTOS["coffee"]
    for h, w in ((70, 90), (2, 130), (7, 300), (300, 3), (61, 61), (120, 17)):
        img = photo[:h, :w].copy()
        for centre in ([w // 2, h // 3], [-20, h + 30], [w + 50, -40], [3, 1]):
            _replayed(img, t, centre, circles, queue)
        _replayed(img, t, [w // 3, h // 2], [], queue)


def test_spikes_are_opencv_thick_lines():
    """The ends of a thick line (augment._weather._thick_lines, the flare's spikes and the
    rain's wide drops) are cv2.clipLine's to the image grown by the line's thickness, which
    OpenCV 5's cv2.line applies before drawing a thick line: the same ends for lines from every
    side, through corners and wholly outside (those a point off the image, no vector)."""
    import cv2

    from warpkit.augment._weather import _thick_lines

    rng = np.random.default_rng(0)
    w, h = 300, 200
    lines = rng.integers(-3000, 3000, (2000, 4))
    lines[:50, 2:] = lines[:50, :2] + 1  # (short ones)
    got = _thick_lines(lines, 2, (w, h))
    outside = 0
    for line, ends in zip(lines, got):
        ok, a, b = cv2.clipLine((-2, -2, w + 4, h + 4), tuple(int(v) for v in line[:2]),
                                tuple(int(v) for v in line[2:]))
        outside += not ok
        assert list(ends[:4]) == ([*a, *b] if ok else [-4] * 4), (line, ends, a, b)
        if not ok:
            assert not ends[4:].any()
    assert 100 < outside < 1900


def test_the_layers_taps_are_opencv():
    """flare.cl's tap tables are cv2.getGaussianKernel's float32 taps of sigma 15, 3 and 5
    (121, 25 and 41 taps: GaussianBlur's sizes for float images), from the middle out, zeros
    after them."""
    import cv2

    from warpkit.programs import load_source

    src = load_source("flare.cl")
    for name, size, sigma in (("FL_K15", 121, 15), ("FL_K3", 25, 3), ("FL_K5", 41, 5)):
        body = re.search(rf"__constant float {name}\[\d+\] = \{{(.*?)\}};", src, re.S).group(1)
        taps = np.array([float(v.strip().rstrip("f")) for v in body.split(",")], np.float32)
        want = cv2.getGaussianKernel(size, sigma, cv2.CV_32F).ravel()[size // 2:]
        # (OpenCV computes them in its bit-exact soft double, the same on every CPU; a unit in
        # the last place allowed all the same)
        np.testing.assert_array_max_ulp(taps[:len(want)], want, maxulp=1)
        assert not taps[len(want):].any()


def test_physics_twice_in_one_list(queue):
    """Two physics-based flares with InvertImg between (two layers an item, one list): each
    albumentations' flare of the image as the one before left it; a ragged batch = alone."""
    img = PHOTOS["coffee"][::2, ::2].copy()
    t1 = W.RandomSunFlare(src_radius=50, method="physics_based", p=1)
    t2 = W.RandomSunFlare((0.1, 0.5, 0.9, 1.0), 30, (200, 100, 255), method="physics_based",
                          p=1)
    out = W.Compose([t1, W.InvertImg(p=1), t2])(image=img, seed=3, queue=queue)
    steps = out["params"]["steps"]
    _same(out["image"], _theirs(255 - _theirs(img, steps[0], t1), steps[2], t2))
    photos = [p[::3, ::3] for p in PHOTOS.values()]
    pipe = W.Compose([t1, t2])
    got = pipe(image=photos, seed=5, queue=queue)
    for i, photo in enumerate(photos):
        alone = pipe(image=photo, seed=5, index=i, queue=queue)["image"]
        np.testing.assert_array_equal(alone, got["image"][i])


def test_physics_batches_replay_port_and_checks(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside the overlay
    method: each sample as alone and replayed; to_dict / from_dict and from_albumentations;
    a sun drawn on another size scales to the output; the engine's checks."""
    photos = [p[::3, ::3] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomSunFlare(src_radius=30, method="physics_based", p=1),
                        W.RandomSunFlare(src_radius=30, p=1)], photos, queue)
    assert_ports(W.RandomSunFlare((0.1, 0.2, 0.9, 0.6), 300, (255, 250, 200), (0.2, 0.5),
                                  (3, 7), method="physics_based", p=0.3),
                 A.RandomSunFlare(flare_roi=(0.1, 0.2, 0.9, 0.6), src_radius=300,
                                  src_color=(255, 250, 200), angle_range=(0.2, 0.5),
                                  num_flare_circles_range=(3, 7), method="physics_based",
                                  p=0.3))
    # drawn on 45 x 35, applied to 90 x 70: the sun, its spikes and circles doubled
    t = W.RandomSunFlare(src_radius=9, method="physics_based", p=1)
    img = PHOTOS["astronaut"][:70, :90].copy()
    small = {"applied": True, "center": [20, 15], "size": [45, 35],
             "circles": [[0.2, 10, 5, 27, 250, 240, 230]]}
    got = W.Compose([t])(image=img, params={"applied": True, "steps": [small]},
                         queue=queue)["image"]
    assert (np.abs(got.astype(int) - img) > 2).mean() > 0.05
    with pytest.raises(TypeError, match="RGB images"):
        W.Compose([t])(image=img[..., 0], seed=0, queue=queue)
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([t])(image=img.astype(np.uint16), seed=0, queue=queue)
    for bad, match in (({"center": [np.nan, 3]}, "center must be whole pixels"),
                       ({"center": [2.5, 3]}, "center must be whole pixels"),
                       ({"circles": [[0.2, 10, 5, -8, 250, 240, 230]]}, "COL_FLARE_PB"),
                       ({"circles": [[0.2, 10, 5, np.nan, 250, 240, 230]]}, "COL_FLARE_PB")):
        with pytest.raises(ValueError, match=match):
            W.Compose([t])(image=img, params={"applied": True, "steps": [{**small, **bad}]},
                           queue=queue)
    from warpkit.engine.core import COL_DATA, COL_FLARE_PB

    head = [COL_FLARE_PB, 1, 0, 6]
    sun = [COL_DATA, 90, 70, 40, 30, 20, 255, 250, 200]
    spikes = [[COL_DATA, 40, 30, 130, 30, 0, -65536], [COL_DATA, 40, 30, 103, 93, 46341, 46341],
              [COL_DATA, 40, 30, 40, 120, 65536, 0], [COL_DATA, 40, 30, -23, 93, 46341, -46341]]
    circle = [COL_DATA, 60, 20, 2, 250, 240, 230]
    warp_with_rows(img, [head, sun, *spikes, circle], queue)  # well formed
    for rows in ([head, sun, *spikes], [[COL_FLARE_PB, 1, 0, 5], sun, *spikes, circle],
                 [[COL_FLARE_PB, 1.5, 0, 6], sun, *spikes, circle],
                 [head, [COL_DATA, 0, 70, 40, 30, 20, 255, 250, 200], *spikes, circle],
                 [head, [COL_DATA, 90, 70, 40, 30, 20, 256, 250, 200], *spikes, circle],
                 [head, [COL_DATA, 90, 70, 40.5, 30, 20, 255, 250, 200], *spikes, circle],
                 [head, [COL_DATA, 90, 70, 40, 30, -1, 255, 250, 200], *spikes, circle],
                 [head, sun, [COL_DATA, 40, 30, 99999, 30, 0, -65536], *spikes[1:], circle],
                 [head, sun, [COL_DATA, 40, 30, 130, 30, 0, -3e5], *spikes[1:], circle],
                 [head, sun, *spikes, [COL_DATA, 60, 20, -2, 250, 240, 230]],
                 [head, sun, *spikes, [COL_DATA, 60, np.nan, 2, 250, 240, 230]],
                 [head, sun, *spikes, [1, 60, 20, 2, 250, 240, 230]]):
        with pytest.raises(ValueError, match="COL_FLARE_PB"):
            warp_with_rows(img, rows, queue)


def test_physics_small_cases_on_every_device_and_oclgrind(small_queue):
    """Physics-based flares over a rotated output (a 21 x 13 output: its blurs reflect many
    times), alone and before a colour step: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomSunFlare((0, 0, 1, 1), 6, (255, 240, 200), (0, 1), (2, 4),
                               method="physics_based", p=1)],
             [W.RandomSunFlare(src_radius=20, method="physics_based", p=1),
              W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
