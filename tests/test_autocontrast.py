"""AutoContrast (each channel stretched by a table of its own histogram, on the device in
Equalize's kernels: kernels_cl/colour_pass.cl's colour_clahe_hist, colour_clahe_lut with
cl_ac_lut, and cp_equalize8) against albumentations 2.0.8's: the same levels on photos, on
images of few levels, for every span of the "pil" table, for cutoffs whose bounds only
albumentations' double arithmetic decides, uint8 and float32, 1 to 4 channels, the ignored
level, after geometry, in batches, and on Oclgrind."""

from __future__ import annotations

import math
import os
import warnings
from fractions import Fraction

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_batch_is_alone, ragged_crops, same_levels as _same, \
    small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import skimage.data
    import albumentations as A

# the moon's low contrast (90% of its levels within 96-123) is what the transform
# is for; the rocket's sky and the others span most levels already
PHOTOS = [skimage.data.astronaut(), skimage.data.rocket(), skimage.data.chelsea()[:, :449],
          skimage.data.moon()[..., None], skimage.data.coffee()]
SETTINGS = [dict(), dict(method="pil"), dict(cutoff=2), dict(cutoff=10, method="pil"),
            dict(ignore=1), dict(ignore=200, cutoff=0.1), dict(ignore=0, cutoff=33.3),
            dict(cutoff=100), dict(cutoff=49.9, method="pil")]


def _albu(t, image: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image.copy())["image"]  # (its 2-D path changes the image in place)


def _both(image: np.ndarray, queue=None, **kw) -> None:
    got = W.Compose([W.AutoContrast(p=1, **kw)])(image=image, seed=0, queue=queue)["image"]
    _same(got, _albu(A.AutoContrast(p=1, **kw), image))


@pytest.mark.parametrize("kw", SETTINGS,
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "defaults")
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(kw, dtype, queue):
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        _both(img, queue, **kw)


def test_few_levels_every_channel_count(queue):
    """Images of one level, two, a narrow range and all of them (with and without 255, which
    albumentations' histogram never counts), 1 x 1 to 40 x 40 pixels, 1 to 4 channels, every
    setting."""
    rng = np.random.default_rng(5)
    for k in range(72):
        h, w = (int(x) for x in rng.integers(1, 41, 2))
        c = 1 + k % 4
        lo = int(rng.integers(0, 256))
        hi = min(255, lo + (0, 1, 5, 255)[k % 4 if k % 8 < 4 else 3 - k % 4])
        img = rng.integers(lo, hi + 1, (h, w, c)).astype(np.uint8)
        _both(img if c > 1 else img[..., 0], queue, **SETTINGS[k % len(SETTINGS)])


def test_every_span_of_the_tables(queue):
    """Every span hi - lo from 1 to 254 with every level between present, through both tables:
    the "pil" table's rounding in double at its ties (39 of these entries round otherwise with
    exact fractions) and the "cdf" table's in float32."""
    rng = np.random.default_rng(7)
    spans = np.arange(1, 255)
    rows = []
    for d in spans:
        lo = int(rng.integers(0, 255 - d))
        levels = np.arange(lo, lo + d + 1)
        rows.append(np.resize(rng.permutation(np.repeat(levels, 1 + rng.integers(0, 3, d + 1))),
                              600))
    # four spans per image, one per channel
    stack = np.array(rows[:252], np.uint8).reshape(63, 4, 600).transpose(0, 2, 1)
    last = np.array(rows[252:] + rows[:2], np.uint8).T
    for method in ("pil", "cdf"):
        for img in [*stack, last]:
            _both(img.reshape(20, 30, 4), queue, method=method)


def _bound_need(total: int, cutoff: float) -> int:
    """albumentations' threshold: total * cutoff / 100.0 in double, which numpy compares with
    its float32 running sum as a float32."""
    return math.ceil(np.float32(float(total) * cutoff / 100.0))


def test_cutoffs_that_only_double_arithmetic_decides(queue):
    """Pixel counts and cutoffs whose threshold total * cutoff / 100 is, in exact arithmetic,
    just past or short of a whole number, and albumentations' doubles round it onto it (0.1 %
    of 1000 pixels needs 1 in double, 2 exactly), or just past one by less than a float32
    can hold: the bounds of the device's integer arithmetic are albumentations'. The test
    first checks that its cases hold both kinds."""
    cuts = [0.1, 0.2, 0.3, 0.7, 1.1, 2.5, 3.3, 12.5, 33.3, 49.9, 99.9, 100.0]
    totals = [100, 300, 600, 700, 1000, 1100, 1200, 3000]
    differ = [(t, c) for t in totals for c in cuts
              if _bound_need(t, c) != math.ceil(t * Fraction(c) / 100)]
    assert len(differ) >= 5, differ
    # and cutoffs whose threshold float32 arithmetic would round otherwise (its float32 is
    # of the double's quotient, not of a float32 product and quotient)
    near = []
    t = np.arange(1, 60000)
    for c in (0.3, 33.3):
        f32 = np.ceil(t.astype(np.float32) * np.float32(c) / np.float32(100))
        f64 = np.ceil((t * c / 100.0).astype(np.float32))
        near += [(int(n), c) for n in t[f32 != f64][:3]]
    assert len(near) == 6 and all(_bound_need(n, c) != math.ceil(
        np.float32(n) * np.float32(c) / np.float32(100)) for n, c in near), near
    rng = np.random.default_rng(11)
    for total, cut in [*differ, *near, (1000, 2.0), (1200, 12.5)]:
        # total pixels counted (no 255) over 6 levels, the lowest and the highest a count of
        # the smaller of the two thresholds (a running sum that meets one and not the other),
        # then the 255s the histogram never counts
        a = min(_bound_need(total, cut), math.ceil(total * Fraction(cut) / 100),
                math.ceil(np.float32(total) * np.float32(cut) / np.float32(100)))
        w = 50
        h = -(-total // w)
        levels = np.sort(rng.choice(np.arange(10, 250), 6, replace=False))
        counts = [a, 1, 1, total - 2 * a - 2, 0, a] if 2 * a + 3 <= total else \
            [a, total - a, 0, 0, 0, 0]
        px = np.repeat(levels, counts)
        img = np.full(h * w, 255, np.uint8)
        img[:total] = rng.permutation(px)
        for method in ("cdf", "pil"):
            _both(img.reshape(h, w), queue, cutoff=cut, method=method)


def test_after_geometry_and_before_other_colour(queue):
    """The table of the warped image (albumentations given warpkit's geometric output), with
    colour steps after it in the same pass and an Equalize in the next."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS[1:4]):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.AutoContrast(cutoff=k, p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                         W.Equalize(p=1), W.AutoContrast(method="pil", p=1)])(
            image=photo, seed=k, queue=queue)["image"]
        want = A.Compose([A.AutoContrast(cutoff=k, p=1),
                          A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                          A.Equalize(p=1), A.AutoContrast(method="pil", p=1)])
        _same(out, _albu(want, base))


def test_a_batch_is_each_sample_alone(queue):
    """Ragged photos, the step applied to some samples (recorded), Equalize on others in the
    same pass, RGBA among them; the model's input made after it."""
    imgs = ragged_crops(PHOTOS[:3] + PHOTOS[4:], 8)
    pipe = W.Compose([W.RandomResizedCrop(48),
                      W.OneOf([W.AutoContrast(p=1), W.AutoContrast(cutoff=5, method="pil", p=1),
                               W.Equalize(p=1)], p=0.8)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    assert_batch_is_alone(pipe, imgs, 3, queue)
    rgba = [np.dstack([im, im[..., :1]]) for im in imgs[:3]]
    pipe4 = W.Compose([W.RandomResizedCrop(40), W.AutoContrast(cutoff=1, p=1)])
    batch = pipe4(image=rgba, seed=4, queue=queue)["image"]
    for i, img in enumerate(rgba):
        base = W.Compose([W.RandomResizedCrop(40)])(image=img, seed=4, index=i, queue=queue)
        _same(batch[i], _albu(A.AutoContrast(cutoff=1, p=1), base["image"]))


def test_from_albumentations_and_refusals(tmp_path):
    recipe = A.Compose([A.AutoContrast(cutoff=3.5, ignore=7, method="pil", p=0.3)])
    saved = tmp_path / "recipe.json"
    A.save(recipe, str(saved))
    for given in (recipe, A.to_dict(recipe), saved):
        ours = W.from_albumentations(given)
        t = ours.transforms[0]
        assert type(t).__name__ == "AutoContrast" and (t.cutoff, t.ignore, t.method, t.p) == \
            (3.5, 7, "pil", 0.3)
        assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match=r"cutoff must be a percentage in \[0, 100\], got 101"):
        W.AutoContrast(cutoff=101)
    with pytest.raises(ValueError, match="ignore must be None or a whole number"):
        W.AutoContrast(ignore=256)
    with pytest.raises(ValueError, match="ignore must be None or a whole number"):
        W.AutoContrast(ignore=1.5)
    with pytest.raises(ValueError, match="method must be 'cdf' or 'pil'"):
        W.AutoContrast(method="linear")
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.AutoContrast(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    from warpkit.engine.core import COL_EQUALIZE, COLOUR_WORDS, _check_filters, ac_cutoff, ac_words
    for cut in (0.0, 0.1, 2.5, 33.3, 100.0, 5e-324):
        assert ac_cutoff([0, 0, 0, 0, *ac_words(cut)]) == cut
    op = np.zeros((1, 1, COLOUR_WORDS), np.float32)
    op[0, 0, :8] = [COL_EQUALIZE, 2, 1, -1, *ac_words(101)]
    with pytest.raises(ValueError, match="cutoff words"):
        _check_filters(op)
    op[0, 0, 4:8] = [*ac_words(1)[:3], 1e6]  # (an exponent past any double's)
    with pytest.raises(ValueError, match="cutoff words"):
        _check_filters(op)
    op[0, 0, 3:8] = [300, *ac_words(1)]
    with pytest.raises(ValueError, match="ignored level"):
        _check_filters(op)
    with pytest.raises(TypeError, match="1 to 4 channels, got 5"):
        W.Compose([W.AutoContrast(p=1)])(image=np.zeros((8, 8, 5), np.uint8), seed=0)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32,
    both tables with and without a cutoff: albumentations' on the same device's geometric
    result."""
    for geo, k, im, base in small_rotated_cases(PHOTOS[4][100:121, 200:223], small_queue):
        for kw in (dict(), dict(cutoff=20, method="pil"), dict(cutoff=0.1, ignore=0)):
            out = W.Compose([geo, W.AutoContrast(p=1, **kw)])(
                image=im, seed=k, queue=small_queue)["image"]
            _same(out, _albu(A.AutoContrast(p=1, **kw), base))
