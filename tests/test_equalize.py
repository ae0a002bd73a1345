"""Equalize (histogram equalisation on the device, in CLAHE's kernels: kernels_cl/colour_pass.cl's
colour_clahe_hist, colour_clahe_lut with cl_eq_lut, and cp_equalize8) against albumentations
2.0.8's, which calls OpenCV's equalizeHist ("cv") or makes a Pillow-like table ("pil"), per
channel or on Y of OpenCV's 8-bit YCrCb: the same levels on photos, on every one of the 2^24
colours, on small images of few levels, uint8 and float32, 1 and 3 channels, after geometry,
in batches, on each device CI runs and on Oclgrind. A mask made by a function (on the host,
between two passes, with OpenCV): albumentations' result, ported from a live pipeline."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_batch_is_alone, ragged_crops, same_levels as _same, \
    small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449],
          skimage.data.camera()[..., None]]
MODES = list(itertools.product(("cv", "pil"), (True, False)))


def _albu(t, image: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image)["image"]


def _both(image: np.ndarray, mode: str, by_channels: bool, queue=None) -> None:
    ours = W.Compose([W.Equalize(mode=mode, by_channels=by_channels, p=1)])
    got = ours(image=image, seed=0, queue=queue)["image"]
    _same(got, _albu(A.Equalize(mode=mode, by_channels=by_channels, p=1), image))


@pytest.mark.parametrize("mode, by_channels", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(mode, by_channels, dtype, queue):
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        _both(img, mode, by_channels, queue)


def test_every_colour_through_ycrcb(queue):
    """All 2^24 colours in one image (its Y histogram every Y's count): OpenCV's RGB2YCrCb, the
    table and YCrCb2RGB, every pixel the same level, for both tables."""
    v = np.arange(1 << 24, dtype=np.uint32)
    img = np.stack([(v >> 16) & 255, (v >> 8) & 255, v & 255], -1).astype(np.uint8)
    img = img.reshape(4096, 4096, 3)
    for mode in ("cv", "pil"):
        _both(img, mode, False, queue)


def test_few_levels_and_every_size(queue):
    """Images of one level, two, a narrow range and all of them, 1 x 1 to 40 x 40 pixels, 1
    and 3 channels: OpenCV's special case (one level) and the "pil" table's (a step of 0)."""
    rng = np.random.default_rng(5)
    for k in range(48):
        h, w = (int(x) for x in rng.integers(1, 41, 2))
        c = (1, 3)[k % 2]
        lo = int(rng.integers(0, 256))
        hi = min(255, lo + (0, 1, 5, 255)[k % 4])
        img = rng.integers(lo, hi + 1, (h, w, c)).astype(np.uint8)
        mode, by_channels = MODES[k % 4]
        _both(img, mode, by_channels, queue)


def test_after_geometry_and_before_other_colour(queue):
    """The equalisation of the warped image (albumentations given warpkit's geometric output),
    with colour steps after it in the same pass and CLAHE in the next."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS[:3]):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.Equalize(by_channels=k != 1, p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                         W.CLAHE(clip_limit=(2, 2), p=1), W.Equalize(mode="pil", p=1)])(
            image=photo, seed=k, queue=queue)["image"]
        want = A.Compose([A.Equalize(by_channels=k != 1, p=1),
                          A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
                          A.CLAHE(clip_limit=(2, 2), p=1), A.Equalize(mode="pil", p=1)])
        _same(out, _albu(want, base))


def test_a_batch_is_each_sample_alone(queue):
    """Ragged photos, the step applied to some samples (recorded), CLAHE on others in the same
    pass; the model's input made after it."""
    imgs = ragged_crops(PHOTOS[:3], 8)
    pipe = W.Compose([W.RandomResizedCrop(48),
                      W.OneOf([W.Equalize(p=1), W.Equalize(mode="pil", by_channels=False, p=1),
                               W.CLAHE(p=1)], p=0.8)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    assert_batch_is_alone(pipe, imgs, 3, queue)


def test_from_albumentations_and_refusals(tmp_path):
    recipe = A.Compose([A.Equalize(mode="pil", by_channels=False, p=0.3)])
    saved = tmp_path / "recipe.json"
    A.save(recipe, str(saved))
    for given in (recipe, A.to_dict(recipe), saved):
        ours = W.from_albumentations(given)
        t = ours.transforms[0]
        assert type(t).__name__ == "Equalize" and (t.mode, t.by_channels, t.p) == \
            ("pil", False, 0.3)
        assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="mask_params name what a mask function reads"):
        W.Equalize(mask_params=["mask"])
    with pytest.raises(ValueError, match="mask_params must be a list of the call's names"):
        W.Equalize(mask=lambda image: image, mask_params="mask")
    with pytest.raises(ValueError, match="Equalize's mask is a function, which to_dict cannot"):
        W.Compose([W.Equalize(mask=lambda image: image)]).to_dict()
    with pytest.raises(ValueError, match="Equalize reads 'depth', which the call does not give"):
        W.Compose([W.Equalize(mask=lambda image, depth: depth, mask_params=["depth"], p=1)])(
            image=PHOTOS[0], seed=0)
    with pytest.raises(ValueError, match=r"gave a mask of shape \(3, 3\)"):
        W.Equalize(mask=lambda image: np.ones((3, 3)), p=1)(image=PHOTOS[0], seed=0)
    with pytest.raises(ValueError, match="mode must be 'cv' or 'pil'"):
        W.Equalize(mode="skimage")
    with pytest.raises(TypeError, match="uint8 or float32"):
        W.Compose([W.Equalize(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    for c in (2, 4):
        with pytest.raises(TypeError, match="1 or 3 channels"):
            W.Compose([W.Equalize(p=1)])(image=np.zeros((8, 8, c), np.uint8), seed=0)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32,
    each table and both ways of colour: albumentations' on the same device's geometric result.
    (Each channel count and dtype is a build of its own: rusticl compiles them slowly.)"""
    rng = np.random.default_rng(13)
    for geo, k, im, base in small_rotated_cases(PHOTOS[1][100:121, 200:223], small_queue):
        for mode, by_channels in MODES:
            out = W.Compose([geo, W.Equalize(mode=mode, by_channels=by_channels, p=1)])(
                image=im, seed=k, queue=small_queue)["image"]
            _same(out, _albu(A.Equalize(mode=mode, by_channels=by_channels, p=1), base))
        # (a mask of the output's size: its bits read across the data operations)
        mask = rng.integers(0, 2, base.shape[:2]).astype(np.uint8)
        out = W.Compose([geo, W.Equalize(mask=mask, p=1)])(image=im, seed=k,
                                                           queue=small_queue)["image"]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            _same(out, A.Equalize(mask=mask, p=1)(image=base)["image"])


def _masks(h: int, w: int, three: bool, rng) -> list:
    """A disc (uint8 0/1), its bool, a random float mask (values 0.5 and 3.7: 0 and 3 as
    albumentations' uint8 cast), a mask of one pixel, an empty one, and with ``three`` one of 3
    channels."""
    yy, xx = np.mgrid[:h, :w]
    disc = ((yy - h / 2) ** 2 + (xx - w / 2) ** 2 < (min(h, w) / 3) ** 2).astype(np.uint8)
    one = np.zeros((h, w), np.uint8)
    one[h // 2, w // 2] = 1
    out = [disc, disc.astype(bool), rng.choice([0.0, 0.5, 3.7], (h, w)).astype(np.float32),
           one, np.zeros((h, w), np.uint8)]
    if three:
        out.append(np.dstack([disc, 1 - disc, rng.integers(0, 2, (h, w))]).astype(np.uint8))
    return out


def _both_masked(image, mask, mode, by_channels, queue=None, pre=()):
    got = W.Compose([*pre, W.Equalize(mode=mode, by_channels=by_channels, mask=mask, p=1)])(
        image=image, seed=0, queue=queue)["image"]
    want_on = image if not pre else W.Compose(list(pre))(image=image, seed=0, queue=queue)["image"]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = A.Equalize(mode=mode, by_channels=by_channels, mask=mask, p=1)(image=want_on)
    _same(got, want["image"])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_masks_are_albumentations(dtype, queue):
    """A mask selecting the histograms' pixels (albumentations' calcHist with the mask): both
    tables, per channel (a mask of 1 or 3 channels) and on Y; a selection of one level, or of
    no pixel ("cv": every level 0, as albumentations' 255 / 0); 1- and 3-channel photos."""
    rng = np.random.default_rng(11)
    for photo in (PHOTOS[0][::2, ::2], PHOTOS[3][::3, ::2]):
        img = photo.copy() if dtype == np.uint8 else photo.astype(np.float32) / 255
        c = img.shape[-1]
        for mode, by_channels in MODES:
            for mask in _masks(*img.shape[:2], c == 3 and by_channels, rng):
                _both_masked(img, mask, mode, by_channels, queue)


def test_a_mask_after_geometry_and_its_serialisation(queue, tmp_path):
    """The mask is the output's size (the image the warp leaves); to_dict / from_dict keep it
    (packed bits); from_albumentations takes an array mask; the refusals."""
    geo = W.RandomResizedCrop((123, 157))
    rng = np.random.default_rng(12)
    mask = rng.integers(0, 2, (123, 157, 3)).astype(np.uint8)
    _both_masked(PHOTOS[1], mask, "cv", True, queue, pre=(geo,))
    pipe = W.Compose([geo, W.Equalize(mask=mask[..., 0], p=1)])
    again = W.Compose.from_dict(pipe.to_dict())
    np.testing.assert_array_equal(again.transforms[1].mask, pipe.transforms[1].mask)
    np.testing.assert_array_equal(again(image=PHOTOS[1], seed=3, queue=queue)["image"],
                                  pipe(image=PHOTOS[1], seed=3, queue=queue)["image"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.Equalize(mask=mask[..., 0], p=0.4)]))
    assert ported.transforms[0].p == 0.4 and ported.transforms[0].mask.sum() == mask[..., 0].sum()
    with pytest.raises(ValueError, match="is 123 x 157 .* is 100 x 90"):
        W.Compose([W.Equalize(mask=mask, p=1)])(image=PHOTOS[1][:100, :90], seed=0)
    with pytest.raises(ValueError, match="3 channels; the image has 1"):
        W.Compose([W.Equalize(mask=mask, p=1)])(image=PHOTOS[3][:123, :157], seed=0)
    with pytest.raises(ValueError, match="by_channels=False"):
        W.Equalize(mask=mask, by_channels=False)
    with pytest.raises(ValueError, match="1 or 3 channels"):
        W.Equalize(mask=mask[..., :2])
    with pytest.raises(ValueError, match=r"\(H, W\) or \(H, W, C\)"):
        W.Equalize(mask=np.zeros(5))


def test_the_engine_checks_the_mask():
    from warpkit.engine.core import COL_DATA, COL_EQUALIZE, COLOUR_WORDS, \
        _check_equalize_masks, mask_data, mask_ops
    need = mask_ops(1, 20, 10)
    assert need == -(-(200 // 16 + 1) // 11)
    ops = np.zeros((1, 1 + need, COLOUR_WORDS), np.float32)
    ops[0, 0, [0, 10, 11]] = [COL_EQUALIZE, need, 1]
    ops[0, 1:, 0] = COL_DATA
    values = mask_data(np.ones((10, 20, 1), bool))
    ops[0, 1:, 1:].reshape(-1)[:len(values)] = values
    _check_equalize_masks(ops, 20, 10)
    for at, value, why in (((0, 11), 2, "0, 1 or 3 channels"), ((0, 10), need - 1, "needs"),
                           ((1, 0), 0, "needs"), ((1, 2), 65536, "16 whole bits"),
                           ((1, 2), np.nan, "16 whole bits")):
        bad = ops.copy()
        bad[(0, *at)] = value
        with pytest.raises(ValueError, match=why):
            _check_equalize_masks(bad, 20, 10)
    with pytest.raises(ValueError, match="needs"):
        _check_equalize_masks(ops, 40, 10)  # (400 bits: 3 operations)


def _bright(image, **kw):
    grey = image.mean(axis=-1) if image.ndim == 3 else image
    return (grey > (100 if image.dtype == np.uint8 else 100 / 255)).astype(np.uint8)


def _given_mask(image, mask):
    return mask


@pytest.mark.parametrize("mode,by_channels", MODES)
def test_mask_functions_are_albumentations(queue, mode, by_channels):
    """A flip, then Equalize with a mask function of the image, and one of the call's mask (as
    the flip left it, mask_params=["mask"]), and one of a keyword the call passes: the same
    levels as albumentations' pipeline, ported from it live (uint8 1 and 3 channels, float32);
    a batch equal to its samples alone."""
    rows = np.zeros((300, 260), np.uint8)
    rows[:170] = 1
    for img in (PHOTOS[0][:300, :260], PHOTOS[3][:300, :260, 0],
                PHOTOS[1][:300, :260].astype(np.float32) / 255):
        for fn, keys, call in ((_bright, (), {}), (_given_mask, ("mask",), {"mask": rows})):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = A.Compose([A.HorizontalFlip(p=1), A.Equalize(
                    mode=mode, by_channels=by_channels, mask=fn, mask_params=keys, p=1)])
                want = theirs(image=img, **call)["image"]
            ours = W.from_albumentations(theirs)
            got = ours(image=img, seed=0, queue=queue, **call)
            np.testing.assert_array_equal(got["image"], want)
    with warnings.catch_warnings():  # (an additional image: the mask of the call's image)
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.Equalize(mode=mode, by_channels=by_channels, mask=_bright, p=1)],
                           additional_targets={"other": "image"})
        want = theirs(image=PHOTOS[0][:300, :260], other=PHOTOS[1][:300, :260])
    got = W.from_albumentations(theirs)(image=PHOTOS[0][:300, :260],
                                        other=PHOTOS[1][:300, :260], seed=0, queue=queue)
    np.testing.assert_array_equal(got["other"], want["other"])
    pipe = W.Compose([W.HorizontalFlip(p=1), W.Equalize(
        mode=mode, by_channels=by_channels, mask=lambda image, region: region,
        mask_params=["region"], p=1)])
    imgs = ragged_crops(PHOTOS[:3], 3)
    regions = [(np.indices(i.shape[:2]).sum(0) % 3 == 0).astype(np.uint8) for i in imgs]
    batch = pipe(image=imgs, region=[r[:, ::-1] for r in regions], seed=0, queue=queue)
    for k, img in enumerate(imgs):
        alone = pipe(image=img, region=regions[k][:, ::-1], seed=0, queue=queue)["image"]
        np.testing.assert_array_equal(batch["image"][k], alone)
