"""RandomShadow (warpkit.augment._scene, kernels_cl/colour.h's WK_COL_POLY: OpenCV's polygon
fill decided per pixel) against cv2.fillPoly on random polygons, crossing themselves or not
(an output past 2^15 pixels wide too), and albumentations 2.0.8's apply of the recorded
polygons on uint8 and float32 photos; its draws, batches, replay, the port, the refusals and
the engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from warpkit import augment as W

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _replayed(polygons: list, size: tuple[int, int], intensities=None) -> dict:
    """A one-step pipeline's params that replay these polygons (vertices in pixels of size)."""
    ints = [1.0] * len(polygons) if intensities is None else intensities
    step = {"applied": True, "vertices": [np.asarray(p).tolist() for p in polygons],
            "intensities": ints, "size": list(size)}
    return {"applied": True, "steps": [step]}


def _cv2_union(polygons: list, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    m = np.zeros((h, w), np.uint8)
    for p in polygons:
        cv2.fillPoly(m, [np.asarray(p, np.int32)], 1)
    return m.astype(bool)


def _random_polygons(rng, size, count, most=12):
    w, h = size
    return [np.stack([rng.integers(0, w, n), rng.integers(0, h, n)], 1)
            for n in rng.integers(3, most + 1, count)]


def _check_fill(size, polygons, queue) -> None:
    """Polygons of intensity 1 on a white image: the black pixels are cv2.fillPoly's."""
    w, h = size
    white = np.full((h, w, 1), 255, np.uint8)
    pipe = W.Compose([W.RandomShadow(p=1)])
    got = pipe(image=white, params=_replayed(polygons, size), queue=queue)["image"][..., 0]
    np.testing.assert_array_equal(got == 0, _cv2_union(polygons, size))


def test_the_fill_is_opencvs():
    """Random polygons of 3-12 vertices (most of them crossing themselves), each alone and
    forty at once, on images from 1 x 1 to 97 x 61; lines, points and flat polygons; an
    output 33000 pixels wide (products past 2^31: the kernel's 64-bit arithmetic)."""
    rng = np.random.default_rng(0)
    for size in [(1, 1), (1, 9), (9, 1), (2, 3), (31, 17), (64, 48), (97, 61)]:
        for _ in range(8):
            _check_fill(size, _random_polygons(rng, size, 1), None)
        _check_fill(size, _random_polygons(rng, size, 40), None)
    w, h = 64, 48
    special = [[[3, 3], [60, 3], [30, 3]], [[5, 40], [5, 40], [5, 40]], [[0, 0], [63, 47], [0, 47]],
               [[10, 10], [50, 12], [11, 40], [52, 38]], [[0, 20], [63, 21], [62, 22]]]
    for p in special:
        _check_fill((w, h), [p], None)
    wide = (33000, 5)
    _check_fill(wide, [[[0, 0], [32999, 4], [100, 4]], [[20000, 0], [32000, 0], [25000, 4]]],
                None)


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo):
    """uint8 and float32 (levels of 255, every pixel rounded as albumentations' uint8 round
    trip): albumentations' apply of the recorded polygons within a level, at most 1 value in
    10^4 off (the same levels in these cases); several ROIs,
    vertex counts and intensities, up to 4 shadows over each other."""
    img = PHOTOS[photo]
    for k, (roi, count, dim, intensity) in enumerate([
            ((0, 0.5, 1, 1), (1, 2), 5, (0.5, 0.5)), ((0, 0, 1, 1), (3, 4), 9, (0.1, 0.9)),
            ((0.2, 0.1, 0.6, 0.4), (1, 1), 3, (0.0, 1.0))]):
        t = W.RandomShadow(roi, count, dim, intensity, p=1)
        for im in (img, img.astype(np.float32) / 255):
            out = W.Compose([t])(image=im, seed=k)
            params = out["params"]["steps"][0]
            want = A.RandomShadow(p=1).apply(
                im, vertices_list=[np.array(v) for v in params["vertices"]],
                intensities=np.array(params["intensities"]))
            # the factor is a float32 here, numpy's product a double: a level apart at most
            # where a product falls on a whole level (none did in these cases)
            scale = 1 if im.dtype == np.uint8 else 255
            d = np.abs(out["image"].astype(np.float64) - want) * scale
            assert d.max() <= 1 + 1e-3 and (d > 1e-3).mean() < 1e-4
            assert (out["image"] != im).any()


def test_polygons_scale_to_the_output(queue):
    """A shadow before a resize: its vertices scaled to the output, rounded (halves up), then
    filled as OpenCV fills them."""
    img = np.full((60, 80, 3), 200, np.uint8)
    polys = [[[5, 30], [70, 35], [40, 59], [10, 58]]]
    pipe = W.Compose([W.RandomShadow(p=1), W.Resize((45, 100))], interpolation="nearest")
    steps = [_replayed(polys, (80, 60), [0.5])["steps"][0], {"applied": True}]
    got = pipe(image=img, params={"applied": True, "steps": steps}, queue=queue)["image"]
    scaled = [[[int(np.floor(np.float32(x / 80) * 100 + 0.5)),
                int(np.floor(np.float32(y / 60) * 45 + 0.5))] for x, y in p] for p in polys]
    np.testing.assert_array_equal(got[..., 0] == 100, _cv2_union(scaled, (100, 45)))


def test_draws_follow_albumentations_laws():
    """The count in its range (both ends), vertices uniform over the ROI's whole pixels (far
    ends excluded), intensities uniform; alone and in a batch's draws (the same numbers)."""
    t = W.RandomShadow((0.25, 0.5, 0.75, 1.0), (1, 3), 4, (0.2, 0.6), p=1)
    draws = [t.draw(np.random.default_rng(s), (200, 100)) for s in range(600)]
    counts = np.array([len(d["vertices"]) for d in draws])
    assert set(counts.tolist()) == {1, 2, 3} and abs(counts.mean() - 2) < 0.1
    xy = np.concatenate([np.array(d["vertices"]).reshape(-1, 2) for d in draws])
    assert xy[:, 0].min() == 50 and xy[:, 0].max() == 149
    assert xy[:, 1].min() == 50 and xy[:, 1].max() == 99
    assert abs(xy[:, 0].mean() - 99.5) < 1.5
    ints = np.concatenate([d["intensities"] for d in draws])
    assert 0.2 <= ints.min() and ints.max() <= 0.6 and abs(ints.mean() - 0.4) < 0.01
    imgs = [np.zeros((h, w, 3), np.uint8) for w, h in [(200, 100), (64, 64), (33, 80)]] * 12
    assert_drawn_alone(t, imgs, 4, (0, 1, 2, 35))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside another colour
    step: each sample as alone and replayed; to_dict / from_dict and from_albumentations; the
    refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomShadow(p=1), W.RandomGravel(p=1)], photos, queue)
    assert_ports(W.RandomShadow((0.1, 0.2, 0.9, 0.8), (2, 4), 6, (0.3, 0.7), p=0.3),
                 A.RandomShadow(shadow_roi=(0.1, 0.2, 0.9, 0.8), num_shadows_limit=(2, 4),
                                shadow_dimension=6, shadow_intensity_range=(0.3, 0.7), p=0.3))
    for kw, match in (({"shadow_roi": (0.5, 0.1, 0.4, 0.9)}, "shadow_roi must have"),
                      ({"shadow_roi": (0.1, 0.2)}, "shadow_roi must be"),
                      ({"num_shadows_limit": (0, 2)}, "num_shadows_limit"),
                      ({"shadow_dimension": 2}, "shadow_dimension"),
                      ({"shadow_dimension": 65}, "shadow_dimension"),
                      ({"shadow_intensity_range": (0.5, 1.5)}, "shadow_intensity_range")):
        with pytest.raises(ValueError, match=match):
            W.RandomShadow(**kw)
    with pytest.raises(ValueError, match="holds no whole pixel"):
        W.Compose([W.RandomShadow((0.5, 0.5, 0.5, 1.0), p=1)])(
            image=np.zeros((10, 10, 3), np.uint8), seed=0)
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.RandomShadow(p=1)])(image=PHOTOS["coffee"].astype(np.uint16), seed=0)
    from warpkit.engine.core import COL_DATA, COL_POLY

    img = PHOTOS["coffee"][:20, :30].copy()
    head = [COL_POLY, 3, 0.5, 1, 0.1, 0.1, 0.5, 0.5]
    tri = [COL_DATA, 0.1, 0.1, 0.5, 0.1, 0.3, 0.5]
    warp_with_rows(img, [head, tri], queue)  # well formed
    for rows in ([head, tri[:3]] * 1 + [], [[COL_POLY, 3, 0.5, 2, 0.1, 0.1, 0.5, 0.5], tri],
                 [[COL_POLY, 0, 0.5, 0, 0, 0, 1, 1]], [[COL_POLY, 3, -1, 1, 0, 0, 1, 1], tri],
                 [[COL_POLY, 3, 0.5, 1, 0.2, 0.2, 0.5, 0.5], tri],
                 [head, [COL_DATA, 0.1, 0.1, 1.5, 0.1, 0.3, 0.5]], [head, [1, 0.1]]):
        with pytest.raises(ValueError, match="COL_POLY"):
            warp_with_rows(img, rows, queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Shadows over a rotated output (a 21 x 13 output), alone and before a colour step, and
    replayed polygons against cv2.fillPoly: the default device's numbers, OpenCV's pixels."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomShadow((0, 0, 1, 1), (2, 3), 7, (0.3, 0.8), p=1)],
             [W.RandomShadow((0, 0.3, 1, 1), p=1), W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)
    rng = np.random.default_rng(5)
    _check_fill((23, 11), _random_polygons(rng, (23, 11), 6, 9), small_queue)
