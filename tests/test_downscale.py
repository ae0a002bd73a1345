"""Downscale (warpkit.augment.Downscale: nearest down and up, albumentations' default pair): the
host's table of source pixels (engine/core.downscale_tables) read in a pass after the warp;
checked against albumentations itself on real photos, uint8 and float32, 1-4 channels, scales
whose products land on whole numbers, on every device CI runs (Oclgrind for the small cases)."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine import resize8
from warpkit.engine.core import downscale_tables, joined, rescale_tables, split

from helpers import check_small_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

COFFEE = skimage.data.coffee()[::2, ::2].copy()  # 200 x 300 RGB
CAMERA = skimage.data.camera()[100:323, 50:311].copy()  # 223 x 261, one channel


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_split_carries_a_double_exactly():
    """The scale (and CLAHE's clip limit) travel as three float32 words whose sum is the double
    (two lost the last bits: floor(37 * (1 / 0.37)) came out 99, not 100)."""
    rng = np.random.default_rng(0)
    for x in [0.37, 0.9, 1 / 3, 2.56, *rng.uniform(0, 5, 2000)]:
        words = split(x)
        assert all(float(np.float32(w)) == w for w in words) and joined(words) == x


@pytest.mark.parametrize("photo", [COFFEE, CAMERA], ids=["rgb", "gray"])
@pytest.mark.parametrize("scale", [0.25, 0.37, 0.5, 0.9, 0.05, 0.333])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_downscale_equals_albumentations(photo, scale, dtype, queue):
    """A fixed scale: albumentations' image, every pixel (a nearest resize picks pixels)."""
    img = photo if dtype == "uint8" else photo.astype(np.float32) / 255
    t = dict(scale_range=(scale, scale), p=1)
    ours = W.Compose([W.Downscale(**t)])(image=img, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Downscale(**t), image=img)["image"]
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_tables_are_opencvs_nearest_resizes():
    """The host's source pixels are cv2.resize's, down by the scale and back, for sizes and
    scales drawn at random (2 and 4 channels too: the gather takes any channel count)."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        h, w = (int(v) for v in rng.integers(1, 400, 2))
        c = int(rng.integers(1, 5))
        scale = float(rng.uniform(0.02, 1.0))
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        ops = np.zeros((1, 12), np.float32)
        ops[0, :6] = W.Downscale().colour_ops({"scale": scale}, c, 255.0)[0]
        idx = downscale_tables([None, ops], w, h)[1][0]
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        if small.ndim == 2:
            small = small[..., None]
        want = cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST).reshape(h, w, c)
        np.testing.assert_array_equal(img[idx[w:]][:, idx[:w]], want)


def test_in_a_pipeline_and_alone_in_a_batch(queue):
    """After a resize and a brightness, before a blur: albumentations' steps on warpkit's
    resized image give the same levels (the blur within one); and a sample's result is the one
    it gets alone, beside samples that drew no downscale."""
    resized = W.Compose([W.Resize((150, 210))])(image=COFFEE, seed=0, queue=queue)["image"]
    steps = [W.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
             W.Downscale(scale_range=(0.4, 0.4), p=1), W.InvertImg(p=1)]
    ours = W.Compose([W.Resize((150, 210)), *steps])(image=COFFEE, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Compose([A.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
                               A.Downscale(scale_range=(0.4, 0.4), p=1), A.InvertImg(p=1)]),
                    image=resized)["image"]
    assert np.abs(ours.astype(int) - theirs).max() <= 1
    photos = [COFFEE, skimage.data.astronaut(), skimage.data.chelsea()]
    pipe = W.Compose([W.RandomResizedCrop(80), W.Downscale(scale_range=(0.2, 0.6), p=0.5),
                      W.GaussianBlur(p=0.3)], output_dtype="float32", mean=0.5, std=0.25,
                     layout="CHW")
    for seed in range(3):
        out = pipe(image=photos, seed=seed, queue=queue)
        for k, photo in enumerate(photos):
            np.testing.assert_array_equal(
                out["image"][k], pipe(image=photo, seed=seed, index=k, queue=queue)["image"])


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """A rotated 21 x 13 output through Downscale (scales that keep one pixel, and most of
    them), alone, after a brightness and before a blur's pass: the default device's numbers on
    each device, Oclgrind included."""
    img = skimage.data.astronaut()[100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.Downscale(scale_range=(0.3, 0.3), p=1)],
             [W.Downscale(scale_range=(0.01, 0.01), p=1)],
             [W.RandomBrightnessContrast(p=1), W.Downscale(scale_range=(0.7, 0.7), p=1),
              W.GaussianBlur(sigma_limit=(0.8, 0.8), p=1)],
             [W.Downscale(scale_range=(0.3, 0.3), p=1,
                          interpolation_pair={"downscale": 3, "upscale": 1})],
             [W.Downscale(scale_range=(0.6, 0.6), p=1,
                          interpolation_pair={"downscale": 4, "upscale": 2}),
              W.Downscale(scale_range=(0.05, 0.05), p=1,
                          interpolation_pair={"downscale": 3, "upscale": 4}),
              W.Downscale(scale_range=(0.5, 0.5), p=1,
                          interpolation_pair={"downscale": 6, "upscale": 5})]]
    check_small_cases(img, geo, cases, small_queue)


#: resize8 follows OpenCV 5 (its cubic of 1, 3 and 4 channels in float): OpenCV 4's fixed point
#: puts a few percent of cubic values a level apart (within the level every test allows)
OPENCV5 = int(cv2.__version__.split(".")[0]) >= 5

#: OpenCV's codes (nearest, linear, cubic, area, Lanczos, linear exact, nearest exact) and every
#: pair but nearest-nearest
CODES = (0, 1, 2, 3, 4, 5, 6)
PAIRS = [(d, u) for d in CODES for u in CODES if (d, u) != (0, 0)]
ASTRO = skimage.data.astronaut()[::3, ::3].copy()  # 171 x 171 RGB


def _within_a_level(ours: np.ndarray, theirs: np.ndarray, most: float, what) -> None:
    """uint8 levels (or float32 ones times 255) within a level of albumentations', but for at
    most ``most`` of the values, those within 2 (OpenCV's vector code and its scalar tails
    round its two stages differently: a level in the small image moves the output by up to
    one more)."""
    d = np.abs(np.rint(np.float64(ours) * (255 if ours.dtype == np.float32 else 1))
               - np.rint(np.float64(theirs) * (255 if theirs.dtype == np.float32 else 1)))
    assert d.max() <= 2 and (d > 1).mean() <= most, (what, d.max(), (d > 1).mean())


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{d}-{u}" for d, u in PAIRS])
def test_pairs_equal_albumentations(pair, queue):
    """Every pair of interpolations but nearest-nearest, at scales whose cells are whole
    (OpenCV's 2 x 2 and 4 x 4 area means, its linear halving, which is the area's) and
    fractional: albumentations' image within a level (1 value in 10^3 within 2) on photos of
    1 and 3 channels, uint8 and float32, and 2 and 4 channels of uint8."""
    d, u = pair
    t = dict(scale_range=None, interpolation_pair={"downscale": d, "upscale": u}, p=1)
    images = [COFFEE, CAMERA, ASTRO.astype(np.float32) / 255, ASTRO[..., :2].copy(),
              np.dstack([ASTRO, ASTRO[..., :1]])]
    for scale in (0.25, 0.5, 0.37, 0.81):
        t["scale_range"] = (scale, scale)
        for img in images:
            ours = W.Compose([W.Downscale(**t)])(image=img, seed=0, queue=queue)["image"]
            theirs = _quiet(A.Downscale(**t), image=img)["image"].reshape(ours.shape)
            assert ours.dtype == theirs.dtype
            _within_a_level(ours, theirs, 1e-3, (pair, scale, img.shape, img.dtype))


def test_stages_are_opencvs_resizes():
    """engine/resize8's taps and roundings are cv2.resize's, stage by stage (its fx/fy scale
    down, its size up), for sizes, channel counts, scales and interpolations drawn at random:
    nearest and nearest exact pick the same pixels; every other within a level, and Lanczos
    (OpenCV's exact fixed point) and cubic within a level on at most 1 value in 10^3 (area,
    linear and linear exact, whose vector code OpenCV runs on each row but its tail, and whose
    edge pixels' ties it rounds either way: at most 5% on these small images, 10% where a side
    is under 8 pixels)."""
    rng = np.random.default_rng(2)
    for _ in range(120):
        h, w = (int(v) for v in rng.integers(1, 130, 2))
        c = int(rng.integers(1, 5))
        scale = float(rng.choice([0.5, 0.25, rng.uniform(0.05, 1.0)]))
        d, u = (int(v) for v in rng.integers(0, 7, 2))
        if min(np.rint(w * scale), np.rint(h * scale)) < 1:
            continue  # (cv2.resize refuses an empty size; warpkit keeps a pixel)
        img = skimage.data.chelsea()[:h, :w, :c].copy() if rng.random() < 0.5 else \
            rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        if img.shape[2] < c:
            img = np.dstack([img] * c)[..., :c].copy()
        (ws, hs), first, second = resize8.downscale_stages(w, h, scale, d, u, c)
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=d).reshape(hs, ws, c)
        back = cv2.resize(small, (w, h), interpolation=u).reshape(h, w, c)
        for stage, src, want, how in ((first, img, small, d), (second, small, back, u)):
            diff = np.abs(resize8.apply_stage(src, stage).astype(int) - want)
            what = (h, w, c, scale, d, u, how)
            if how in (0, 6):
                assert diff.max() == 0, what
            else:
                assert diff.max() <= 1, what
                most = 1e-3 if how == 4 or (how == 2 and OPENCV5) else \
                    (0.05 if min(h, w, *small.shape[:2]) >= 8 else 0.1)
                assert (diff > 0).mean() <= most, what


def test_device_is_the_stages(queue):
    """The device's two resamplings are resize8's stages computed in numpy, within a level on
    5 values in 10^3 (float sums in float32 there, float64 here: a level apart in the small
    image moves a few of the output's): a ragged batch of photos, each sample's pair drawn
    from all 49 (nearest-nearest's gather and two resamplings in one pass), each sample as
    alone. (test_pairs_equal_albumentations meets every pair.)"""
    photos = [COFFEE, ASTRO, skimage.data.chelsea()[::2, ::2].copy()]
    pipe = W.Compose([W.Resize((97, 131)), W.OneOf([
        W.Downscale(scale_range=(0.2, 0.9), interpolation_pair={"downscale": d, "upscale": u},
                    p=1) for d, u in [(0, 0), *PAIRS]])])
    for seed in range(4):
        out = pipe(image=photos, seed=seed, queue=queue)
        for k, photo in enumerate(photos):
            alone = pipe(image=photo, seed=seed, index=k, queue=queue)
            np.testing.assert_array_equal(out["image"][k], alone["image"])
            step = alone["params"]["steps"][1]
            base = W.Compose([W.Resize((97, 131))])(image=photo, seed=0, queue=queue)["image"]
            pair = pipe.transforms[1].transforms[step["choice"]].interpolation_pair
            (ws, hs), first, second = resize8.downscale_stages(
                131, 97, step["params"]["scale"], pair["downscale"], pair["upscale"], 3)
            want = resize8.apply_stage(resize8.apply_stage(base, first), second)
            diff = np.abs(alone["image"].astype(int) - want)
            assert diff.max() <= 1 and (diff > 0).mean() <= 5e-3, (seed, k, pair)


def test_tables_refuse_what_they_cannot_hold():
    """An area cell so large that the taps would pass MAX_RESCALE_TABLE is refused before any
    launch; the tables' heads say each stage's size, taps and rounding."""
    ops = np.zeros((2, 12), np.float32)
    ops[0, :6] = W.Downscale(interpolation_pair={"downscale": 3, "upscale": 1}).colour_ops(
        {"scale": 0.3}, 3, 255.0)[0]
    table = rescale_tables([None, ops], 40, 20, 3)[1]
    assert table.shape[0] == 2 and not table[1].any()
    assert table[0, :8].tolist() == [12, 6, 4, 2, resize8.ROUND_FLOAT, resize8.ROUND_LINEAR, 0,
                                     0]
    ops[0, 1:4] = split(1e-5)
    with pytest.raises(ValueError, match="a downscale's taps for an output of 3000 x 3000"):
        rescale_tables([None, ops], 3000, 3000, 3)


def test_refusals_and_the_port():
    """Codes OpenCV's resize has not and malformed pairs are refused by name, as are uint16
    images and scales outside (0, 1]; albumentations' Downscale ports with its parameters, its
    interpolation pair too (its exact interpolations among them)."""
    for pair in ({"downscale": 7, "upscale": 1}, {"downscale": 0, "upscale": 8},
                 {"downscale": -1, "upscale": 1}, {"downscale": 1},
                 {"downscale": 1, "upscale": 1, "other": 1}, {"downscale": 1.5, "upscale": 1},
                 {"downscale": True, "upscale": 1}):
        with pytest.raises(ValueError,
                           match=r"Downscale\(interpolation_pair=.*\) is not supported"):
            W.Downscale(interpolation_pair=pair)
    with pytest.raises(ValueError, match="scale_range must lie in"):
        W.Downscale(scale_range=(0.0, 0.5))
    with pytest.raises(ValueError, match="scale_range"):
        W.Downscale(scale_range=(0.5, 1.5))
    with pytest.raises(TypeError, match="Downscale takes uint8 or float32 images"):
        W.Compose([W.Downscale(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    got = W.from_albumentations(_quiet(A.Compose, [A.Downscale(scale_range=(0.3, 0.6), p=0.2)]))
    (t,) = got.transforms
    assert (type(t).__name__, t.scale_range, t.p) == ("Downscale", (0.3, 0.6), 0.2)
    again = W.Compose.from_dict(got.to_dict())
    assert again.to_dict() == got.to_dict()
    for pair in ({"downscale": cv2.INTER_AREA, "upscale": cv2.INTER_LANCZOS4},
                 {"downscale": cv2.INTER_LINEAR_EXACT, "upscale": cv2.INTER_NEAREST_EXACT}):
        got = W.from_albumentations(_quiet(A.Compose, [A.Downscale(interpolation_pair=pair)]))
        assert got.transforms[0].interpolation_pair == pair
        assert W.Compose.from_dict(got.to_dict()).transforms[0].interpolation_pair == pair
    data = _quiet(A.to_dict, _quiet(A.Compose, [A.Downscale()]))
    data["transform"]["transforms"][0]["interpolation_pair"] = {"downscale": 9, "upscale": 1}
    with pytest.raises(ValueError, match="interpolation_pair"):
        W.from_albumentations(data)
