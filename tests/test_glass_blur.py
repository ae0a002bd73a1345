"""GlassBlur (warpkit.augment._filters; kernels_cl/colour_pass.cl's WK_COL_GLASS: each round of
swaps a pass; "fast": every grid pixel taking its partner's value, then each partner the value
of the last pixel that chose it; "exact": one swap after another, each pixel's source followed
through them) against albumentations 2.0.8's glass_blur (numpy's swaps; its loop) with the
displacements warpkit's generator drew, on uint8 and float32 photos and small images; its
draws, batches, replay, the port and the refusals; on every device and Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._filters import glass_displacements
from warpkit.engine.core import COL_GLASS

from helpers import (albumentations_and_photos, assert_batch_is_alone, assert_drawn_alone,
                     assert_ports, check_small_cases, ragged_crops, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _theirs(img: np.ndarray, t: W.GlassBlur, key) -> np.ndarray:
    import albumentations.augmentations.blur.functional as F

    h, w = img.shape[:2]
    dxy = glass_displacements(key, t.iterations, t.max_delta, h, w)
    return F.glass_blur(img, t.sigma, t.max_delta, t.iterations, dxy, t.mode)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(dtype, queue):
    """The swaps alone (sigma 0.1: OpenCV's 3 taps, the outer ones ~2e-22) are the same pixels
    as albumentations' glass_blur of the same displacements; with its blurs, within a level
    (OpenCV's 8-bit Gaussian is fixed point, warpkit's float: each blur rounds a level either
    way, and where both do, 2 on ~1 pixel in 15,000 here) or 1e-6 for floats."""
    for name, photo in PHOTOS.items():
        img = photo[::3, ::3].copy()
        x = img.astype(np.float32) / 255 if dtype == np.float32 else img
        for t in (W.GlassBlur(sigma=0.1, max_delta=3, iterations=3, p=1), W.GlassBlur(p=1),
                  W.GlassBlur(sigma=1.6, max_delta=9, iterations=1, p=1),
                  W.GlassBlur(sigma=3.0, max_delta=2, iterations=2, p=1),
                  W.GlassBlur(sigma=0.1, max_delta=3, iterations=2, mode="exact", p=1),
                  W.GlassBlur(mode="exact", p=1)):
            out = W.Compose([t])(image=x, seed=7, queue=queue)
            want = _theirs(x, t, out["params"]["steps"][0]["key"])
            diff = np.abs(out["image"].astype(np.float64) - want)
            if t.sigma == 0.1:  # (floats: the outer taps' 2e-22 of a neighbour)
                assert diff.max() <= (0 if dtype == np.uint8 else 1e-12), (name, diff.max())
                # it swapped: most pixels moved
                assert (out["image"] != x).any(axis=-1).mean() > 0.5
            elif dtype == np.uint8:
                assert diff.max() <= 2 and (diff > 1).mean() < 1e-3, (name, t.config())
            else:
                assert diff.max() <= 1e-6, (name, t.config(), diff.max())


def test_small_images_and_the_grid_edges(small_queue):
    """Images whose grid is a row, a column, empty (the image is left as blurred), 1 to 3
    channels, and uint16, in both modes: the same pixels as albumentations (and on Oclgrind,
    no access outside the image and the scratch buffers)."""
    queue = small_queue
    rng = np.random.default_rng(2)
    for k, (h, w, c, md) in enumerate(((9, 40, 3, 4), (40, 9, 3, 4), (8, 30, 3, 4),
                                       (13, 17, 1, 2), (6, 6, 2, 1), (31, 24, 3, 7))):
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        for mode in ("fast", "exact"):
            t = W.GlassBlur(sigma=0.1, max_delta=md, iterations=2 + k % 2, mode=mode, p=1)
            out = W.Compose([t])(image=img if c > 1 else img[..., 0], seed=h, queue=queue)
            want = _theirs(img, t, out["params"]["steps"][0]["key"])
            np.testing.assert_array_equal(out["image"].reshape(want.shape), want)
    # uint16 (albumentations takes uint8 and float32; its functions take it as well)
    img = rng.integers(0, 65536, (23, 19, 3)).astype(np.uint16)
    out = W.Compose([t])(image=img, seed=1, queue=queue)
    np.testing.assert_array_equal(out["image"], _theirs(img, t, out["params"]["steps"][0]["key"]))


def test_draws_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW: each sample as alone and
    replayed; the draws alone and side by side; to_dict / from_dict and from_albumentations;
    the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    pipe = W.Compose([W.RandomResizedCrop(48), W.GlassBlur(p=0.7), W.RandomGamma(p=1)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    assert_batch_is_alone(pipe, ragged_crops(photos, 6), 3, queue)
    assert_drawn_alone(W.GlassBlur(p=1), [p[:40, :50] for p in photos] * 6, 1, (0, 7, 35))
    assert_ports(W.GlassBlur(1.2, 3, 4, p=0.3),
                 A.GlassBlur(sigma=1.2, max_delta=3, iterations=4, mode="fast", p=0.3))
    assert_ports(W.GlassBlur(0.9, 2, 1, mode="exact", p=0.6),
                 A.GlassBlur(sigma=0.9, max_delta=2, iterations=1, mode="exact", p=0.6))
    # the exact mode in a batch whose other samples take the fast one or none
    pipe = W.Compose([W.RandomResizedCrop(40), W.OneOf([W.GlassBlur(mode="exact", p=1),
                                                        W.GlassBlur(p=1), W.InvertImg(p=1)])])
    assert_batch_is_alone(pipe, ragged_crops(photos, 9), 5, queue)
    for kw, match in (({"sigma": -1}, "sigma"), ({"sigma": 40}, "sigma"),
                      ({"max_delta": 0}, "max_delta"), ({"max_delta": 2.5}, "max_delta"),
                      ({"iterations": 0}, "iterations"), ({"mode": "slow"}, "mode")):
        with pytest.raises(ValueError, match=match):
            W.GlassBlur(**kw)
    img = PHOTOS["coffee"][:40, :60].copy()
    warp_with_rows(img, [[COL_GLASS, 3, 0, 1, 2, 3]], queue)  # well formed
    for row in ([COL_GLASS, 0, 0, 1, 2, 3], [COL_GLASS, 2.5, 0, 1, 2, 3],
                [COL_GLASS, 3, -1, 1, 2, 3], [COL_GLASS, 3, 0, 1, 2, 70000],
                [COL_GLASS, 3, 0, 1, 2, 3, 2], [COL_GLASS, 3, 0, 1, 2, 3, 0.5]):
        with pytest.raises(ValueError, match="COL_GLASS"):
            warp_with_rows(img, [row], queue)
    # sigma 0: the swaps alone (albumentations' OpenCV call refuses a size from sigma 0)
    t = W.GlassBlur(sigma=0, max_delta=2, iterations=1, p=1)
    out = W.Compose([t])(image=img, seed=0, queue=queue)
    key = out["params"]["steps"][0]["key"]
    np.testing.assert_array_equal(out["image"],
                                  _theirs(img, W.GlassBlur(sigma=0.1, max_delta=2,
                                                           iterations=1, p=1), key))


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Swaps over a rotated output (a 21 x 13 output), with and without the blurs, before a
    colour step, and one after another (the exact mode): the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.GlassBlur(sigma=0, max_delta=2, iterations=2, p=1)],
             [W.GlassBlur(sigma=0.8, max_delta=3, iterations=1, p=1), W.RandomGamma(p=1)],
             [W.GlassBlur(sigma=0, max_delta=2, iterations=2, mode="exact", p=1)]]
    check_small_cases(img, geo, cases, small_queue)
