"""PixelDropout (kernels_cl/colour.h's WK_COL_PIXDROP, the host's copy of its generator in
warpkit/augment/_philox.py) against albumentations 2.0.8's: the documented generator pixel for
pixel, albumentations' shares of dropped pixels, its box rule (its own mask_dropout_bboxes fed
warpkit's dropped pixels), masks dropped in a pattern of their own, every dtype and 1-4
channels, alone = in a batch, on each device CI runs and on Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._philox import below, kernel_key, philox4x32

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import albumentations.augmentations.dropout.functional as fdropout
    import skimage.data

PHOTO = skimage.data.astronaut()
PEAKS = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}


def _albu(t, **data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([t], seed=0, **({"bbox_params": data.pop("bbox_params")}
                                         if "bbox_params" in data else {}))(**data)


def test_host_generator_is_random123s_philox():
    """The host's Philox-4x32-10 gives Random123's known answers (its kat_vectors), so the
    reference the kernel is held to is the published generator."""
    cases = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
             ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2,
              (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
             ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
              (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for (c0, c1, c2, c3), key, want in cases:
        got = philox4x32(np.array([c0]), np.array([c1]), c2, key, c3)
        assert [int(w[0]) for w in got] == list(want)


def _image(dtype, channels=3, photo=PHOTO[100:160, 200:270]):
    img = np.concatenate([photo] * 2, -1)[..., :channels].astype(np.float64)
    return (img / 255 * PEAKS[dtype]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_pixels_are_the_documented_generator(dtype, channels, queue):
    """Pixel (x, y) of the output is dropped where Philox's block of (x, y, "PXD") under the
    recorded key gives a number below dropout_prob (its first word for every channel, or word c
    for channel c with per_channel), to drop_value; every other pixel as it was."""
    _check_generator(dtype, channels, queue)


def test_the_generator_on_this_device(queue):
    """The same for RGB uint8 alone (CI's other devices run this one: each dtype and channel
    count is a build of its own, a minute each on rusticl)."""
    _check_generator(np.uint8, 3, queue)


def _check_generator(dtype, channels, queue) -> None:
    img = _image(dtype, channels)
    values = [3, 9, 27, 81][:channels] if dtype != np.float32 else [0.1, 0.2, 0.3, 0.4][:channels]
    for per_channel in (False, True):
        pipe = W.Compose([W.PixelDropout(0.3, per_channel, values, p=1)])
        out = pipe(image=img, seed=5, queue=queue)
        key = kernel_key(out["params"]["steps"][0]["key"])
        y, x = np.mgrid[0:img.shape[0], 0:img.shape[1]]
        words = philox4x32(x, y, 0x505844, key)
        want = img.reshape(*img.shape[:2], channels).copy()
        for c in range(channels):
            drop = below(words[c if per_channel else 0], 0.3)
            want[..., c][drop] = np.asarray(values[c], dtype)
        np.testing.assert_array_equal(out["image"].reshape(want.shape), want)
        share = (out["image"].reshape(want.shape) != img.reshape(want.shape)).mean()
        assert abs(share - 0.3) < 0.03


def test_alone_in_a_batch_and_replayed(queue):
    rs = np.random.default_rng(4)
    imgs = [PHOTO[:int(rs.integers(30, 90)), :int(rs.integers(30, 90))].copy() for _ in range(5)]
    pipe = W.Compose([W.RandomResizedCrop(40), W.PixelDropout(0.2, drop_value=None, p=1)])
    batch = pipe(image=imgs, seed=2, queue=queue)
    for i, img in enumerate(imgs):
        alone = pipe(image=img, seed=2, index=i, queue=queue)
        np.testing.assert_array_equal(batch["image"][i], alone["image"])
        np.testing.assert_array_equal(pipe(image=img, params=alone["params"], queue=queue)["image"],
                                      alone["image"])
    assert not np.array_equal(batch["image"][0], batch["image"][1])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_shares_and_values_are_albumentations(dtype, queue):
    """The shares of dropped pixels (any channel) agree with albumentations' within their
    binomial spread, alone and per channel, with a fixed value and with its random one."""
    img = (PHOTO.astype(np.float64) / 255 * PEAKS[dtype]).astype(dtype)
    n = img.shape[0] * img.shape[1]
    for prob in (0.01, 0.2, 0.6):
        for per_channel in (False, True):
            for value in (0, None):
                kw = dict(dropout_prob=prob, per_channel=per_channel, drop_value=value, p=1)
                ours = W.Compose([W.PixelDropout(**kw)])(image=img, seed=1, queue=queue)["image"]
                theirs = _albu(A.PixelDropout(**kw), image=img)["image"]
                # a drop to the level a pixel had is no change: both undercount alike
                shares = [(got != img).mean() if per_channel else (got != img).any(-1).mean()
                          for got in (ours, theirs)]
                assert abs(shares[0] - shares[1]) <= 5 * np.sqrt(2 * prob / n) + 1e-3, \
                    (prob, per_channel, value, shares)
    # a random value: one per channel for the sample, over albumentations' range
    peak = PEAKS[dtype]
    seen = []
    for seed in range(20):
        out = W.Compose([W.PixelDropout(0.5, drop_value=None, p=1)])(
            image=np.full((20, 30, 3), peak, dtype), seed=seed, queue=queue)["image"]
        vals = np.unique(out[(out != peak).any(-1)], axis=0)
        assert len(vals) == 1
        seen += vals[0].tolist()
    if dtype == np.uint8:  # integers(0, 255): 0 .. 254
        assert 0 <= min(seen) < 40 and 215 < max(seen) <= 254
    else:
        assert 0 <= min(seen) < 0.15 and 0.85 < max(seen) < 1


def _dropped(out: np.ndarray, img: np.ndarray, value: float) -> np.ndarray:
    """The pixels PixelDropout set (to a value no pixel of ``img`` has)."""
    assert not (img == value).all(-1).any()
    return (out == value).all(-1)


@pytest.mark.parametrize("min_visibility,min_area", [(0.5, 0.0), (0.0, 300.0), (0.3, 50.0)])
def test_boxes_are_albumentations_rule_on_the_same_pixels(min_visibility, min_area, queue):
    """A box goes where the pixels left of it fail min_visibility or min_area: albumentations'
    mask_dropout_bboxes on warpkit's own dropped pixels keeps the same boxes, through a crop
    (its boxes then clipped to the crop, as albumentations holds them; Compose's rule on the
    part left inside before it)."""
    img = PHOTO[50:350, 60:420].copy()
    img[img == 1] = 2
    rs = np.random.default_rng(0)
    x1, y1 = rs.uniform(-20, 300, 60), rs.uniform(-20, 240, 60)
    boxes = np.stack([x1, y1, x1 + rs.uniform(1, 60, 60), y1 + rs.uniform(1, 60, 60)], 1)
    boxes = np.clip(boxes, 0, [360, 300, 360, 300])
    boxes = boxes[(boxes[:, 2] - boxes[:, 0] > 1) & (boxes[:, 3] - boxes[:, 1] > 1)]
    bp = W.BboxParams(format="pascal_voc", min_visibility=min_visibility, min_area=min_area,
                      label_fields=["ids"])
    for crop in (None, W.Crop(30, 20, 330, 260)):
        steps = [s for s in (crop, W.PixelDropout(0.5, drop_value=1, p=1)) if s is not None]
        pipe = W.Compose(steps, bbox_params=bp)
        out = pipe(image=img, bboxes=boxes, ids=np.arange(len(boxes)), seed=3, queue=queue)
        moved = boxes - ([30, 20, 30, 20] if crop is not None else 0)
        h, w = out["image"].shape[:2]
        moved = np.clip(moved, 0, [w, h, w, h])
        # Compose's own rule first: the part inside the output, of the box's whole area
        inside = np.prod(np.maximum(moved[:, 2:] - moved[:, :2], 0), 1)
        live = (inside > 0) & (inside >= min_visibility * np.prod(boxes[:, 2:] - boxes[:, :2], 1))
        live &= inside >= min_area
        dropped = _dropped(out["image"], img, 1)
        kept = fdropout.mask_dropout_bboxes(np.concatenate([moved, np.arange(len(boxes))[:, None]],
                                                           1)[live], dropped, (h, w),
                                            min_area, min_visibility)
        assert 0 < len(kept) < live.sum() or min_area == 0 and min_visibility == 0
        np.testing.assert_array_equal(np.sort(out["ids"]), np.sort(kept[:, 4].astype(int)))
        np.testing.assert_allclose(out["bboxes"], moved[out["ids"]], atol=1e-4)
    # per channel: boxes stay, as albumentations leaves them
    pipe = W.Compose([W.PixelDropout(0.9, per_channel=True, p=1)], bbox_params=bp)
    out = pipe(image=img, bboxes=boxes, ids=np.arange(len(boxes)), seed=3, queue=queue)
    np.testing.assert_array_equal(out["ids"], np.flatnonzero(
        np.prod(boxes[:, 2:] - boxes[:, :2], 1) >= min_area))


def test_a_pipeline_whose_draws_skip_it(queue):
    """A PixelDropout some samples do not apply (its p, a OneOf), with boxes measured and
    masks: those samples keep their boxes and masks as the pipeline without it leaves them."""
    img = _image(np.uint8, 3)
    boxes = np.array([[5.0, 5.0, 40.0, 50.0], [20.0, 10.0, 60.0, 30.0]])
    mask = np.ones(img.shape[:2], np.uint8)
    bp = W.BboxParams(format="pascal_voc", min_visibility=0.3, label_fields=["ids"])
    for step in (W.PixelDropout(0.9, mask_drop_value=0, p=0.5),
                 W.OneOf([W.ShotNoise(p=1), W.PixelDropout(0.9, mask_drop_value=0, p=1)])):
        pipe = W.Compose([step], bbox_params=bp)
        seen = set()
        for seed in range(8):
            out = pipe(image=[img] * 3, mask=[mask] * 3, bboxes=[boxes] * 3,
                       ids=[np.arange(2)] * 3, seed=seed, queue=queue)
            for p, ids, m in zip(out["params"], out["ids"], out["mask"]):
                applied = any(isinstance(s, W.PixelDropout) for s, _ in pipe.applied_steps(p))
                seen.add(applied)
                # 90% dropped: every box goes (min_visibility 0.3) and most of the mask
                assert (len(ids) == 0 and m.mean() < 0.2) if applied else \
                    (list(ids) == [0, 1] and m.all())
        assert seen == {True, False}


def test_masks_take_their_own_pattern(queue):
    """mask_drop_value: the masks' pixels dropped with the same probability as
    albumentations' second pattern (not the image's pixels), per channel with per_channel; a
    value per channel; no mask_drop_value leaves the masks; keypoints stay."""
    img = _image(np.uint8, 3)
    mask = np.zeros(img.shape[:2], np.uint8)
    mask2 = np.zeros((*img.shape[:2], 2), np.float32)
    for per_channel in (False, True):
        t = W.PixelDropout(0.4, per_channel, drop_value=1, mask_drop_value=7, p=1)
        out = W.Compose([t])(image=img, mask=mask, seed=2, queue=queue)
        theirs = _albu(A.PixelDropout(0.4, per_channel, drop_value=1, mask_drop_value=7, p=1),
                       image=img, mask=mask)
        for got in (out["mask"], theirs["mask"]):
            assert set(np.unique(got)) == {0, 7} and abs((got == 7).mean() - 0.4) < 0.05
        if not per_channel:  # another pattern than the image's, as albumentations'
            dropped = _dropped(out["image"], img, 1)
            assert 0.3 < (dropped != (out["mask"] == 7)).mean() < 0.6
        two = W.Compose([W.PixelDropout(0.4, per_channel, mask_drop_value=[5, 6], p=1)])(
            image=img, masks=[mask2, mask2], seed=2, queue=queue)["masks"]
        np.testing.assert_array_equal(two[0], two[1])
        assert set(np.unique(two[0][..., 0])) == {0, 5} and set(np.unique(two[0][..., 1])) == {0, 6}
        same = (two[0][..., 0] == 5) == (two[0][..., 1] == 6)
        assert same.all() != per_channel
    kp = np.array([[3.0, 4.0], [20.0, 30.0]])
    out = W.Compose([W.PixelDropout(0.9, p=1)], keypoint_params=W.KeypointParams(format="xy"))(
        image=img, mask=mask, keypoints=kp, seed=0, queue=queue)
    assert not out["mask"].any() and np.array_equal(out["keypoints"], kp)


def test_ported_configured_and_refused(queue):
    ours = W.from_albumentations(A.Compose([A.PixelDropout(0.05, True, None, 3, p=0.4)]))
    t = ours.transforms[0]
    assert type(t).__name__ == "PixelDropout"
    assert (t.dropout_prob, t.per_channel, t.drop_value, t.mask_drop_value, t.p) == \
        (0.05, True, None, 3.0, 0.4)
    assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    with pytest.raises(ValueError, match="dropout_prob"):
        W.PixelDropout(1.5)
    with pytest.raises(ValueError, match="drop_value"):
        W.PixelDropout(drop_value="random")
    img = _image(np.uint8, 3)
    with pytest.raises(ValueError, match="drop_value has 2 values for an image of 3"):
        W.Compose([W.PixelDropout(drop_value=[1, 2], p=1)])(image=img, seed=0, queue=queue)
    with pytest.raises(ValueError, match="mask_drop_value has 3 values for a mask of 2"):
        W.Compose([W.PixelDropout(mask_drop_value=[1, 2, 3], p=1)])(
            image=img, mask=np.zeros((*img.shape[:2], 2), np.uint8), seed=0, queue=queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue, queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1-4 channels, per channel or not:
    the default device's pixels exactly (integer counters, exact thresholds)."""
    photo = PHOTO[100:121, 200:223]
    for k, (w, h, c) in enumerate([(19, 13, 3), (1, 1, 1), (17, 5, 4), (9, 11, 2)]):
        im = np.concatenate([photo, photo], -1)[..., :c].copy()
        pipe = W.Compose([W.RandomAffine(degrees=30, size=(h, w)),
                          W.PixelDropout(0.4, per_channel=k % 2 == 1, drop_value=None, p=1)])
        np.testing.assert_array_equal(pipe(image=im, seed=k, queue=small_queue)["image"],
                                      pipe(image=im, seed=k, queue=queue)["image"])
