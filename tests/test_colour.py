"""Colour transforms inside the warp (warpkit.augment._colour, kernels_cl/colour.h) against
albumentations 2.0.8 itself with fixed parameters, on scikit-image's photos, uint8 and float32;
fused with geometry and the model's input as applying them in sequence would give; per sample in
batches and lists; targets untouched; replay and serialisation; refusals."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.pixel import functional as AF
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449]]

#: ToGray of OpenCV's Lab (its table in the call's colour table)
LAB_GRAY = (W.ToGray(method="from_lab", p=1), A.ToGray(method="from_lab", p=1))
#: ToGray of the image's first principal component (a pass of its own after the warp)
PCA_GRAY = (W.ToGray(method="pca", p=1), A.ToGray(method="pca", p=1))
#: (warpkit transform, albumentations transform), fixed parameters, p = 1
FIXED = [
    (W.RandomBrightnessContrast((0.15, 0.15), (0.3, 0.3), p=1),
     A.RandomBrightnessContrast((0.15, 0.15), (0.3, 0.3), p=1)),
    (W.RandomBrightnessContrast((-0.2, -0.2), (-0.4, -0.4), p=1),
     A.RandomBrightnessContrast((-0.2, -0.2), (-0.4, -0.4), p=1)),
    (W.RandomGamma((70, 70), p=1), A.RandomGamma((70, 70), p=1)),
    (W.RandomGamma((150, 150), p=1), A.RandomGamma((150, 150), p=1)),
    (W.ToGray(p=1), A.ToGray(p=1)),
    (W.RGBShift((10, 10), (-15, -15), (30, 30), p=1), A.RGBShift((10, 10), (-15, -15), (30, 30), p=1)),
    (W.InvertImg(p=1), A.InvertImg(p=1)),
    (W.Solarize((0.4, 0.4), p=1), A.Solarize((0.4, 0.4), p=1)),
    (W.Posterize(3, p=1), A.Posterize(3, p=1)),
    (W.Posterize([(2, 2), (5, 5), (7, 7)], p=1), A.Posterize([(2, 2), (5, 5), (7, 7)], p=1)),
    (W.RandomBrightnessContrast((0.2, 0.2), (0.25, 0.25), brightness_by_max=False, p=1),
     A.RandomBrightnessContrast((0.2, 0.2), (0.25, 0.25), brightness_by_max=False, p=1)),
    (W.ToGray(method="average", p=1), A.ToGray(method="average", p=1)),
    (W.ToGray(method="max", p=1), A.ToGray(method="max", p=1)),
    (W.ToGray(method="desaturation", p=1), A.ToGray(method="desaturation", p=1)),
    (W.Posterize([(0, 0), (8, 8), (4, 4)], p=1), A.Posterize([(0, 0), (8, 8), (4, 4)], p=1)),
    LAB_GRAY,
    PCA_GRAY,
    # ensure_safe_range: alpha narrowed to 1 - beta; a negative beta dropped; from the image's
    # mean (in the kernel); a negative alpha
    (W.RandomBrightnessContrast((0.15, 0.15), (0.3, 0.3), ensure_safe_range=True, p=1),
     A.RandomBrightnessContrast((0.15, 0.15), (0.3, 0.3), ensure_safe_range=True, p=1)),
    (W.RandomBrightnessContrast((-0.2, -0.2), (-0.4, -0.4), ensure_safe_range=True, p=1),
     A.RandomBrightnessContrast((-0.2, -0.2), (-0.4, -0.4), ensure_safe_range=True, p=1)),
    (W.RandomBrightnessContrast((0.2, 0.2), (0.25, 0.25), brightness_by_max=False,
                                ensure_safe_range=True, p=1),
     A.RandomBrightnessContrast((0.2, 0.2), (0.25, 0.25), brightness_by_max=False,
                                ensure_safe_range=True, p=1)),
    (W.RandomBrightnessContrast((0.3, 0.3), (-1.2, -1.2), ensure_safe_range=True, p=1),
     A.RandomBrightnessContrast((0.3, 0.3), (-1.2, -1.2), ensure_safe_range=True, p=1)),
]

#: ColorJitter's factors alone, then together (each drawn order replayed in albumentations),
#: and HueSaturationValue: (warpkit, albumentations, whether hue moves: OpenCV's 8-bit HSV)
JITTER = [(dict(brightness=(1.3, 1.3), contrast=0, saturation=0, hue=0), False),
          (dict(brightness=0, contrast=(0.6, 0.6), saturation=0, hue=0), False),
          (dict(brightness=0, contrast=(1.45, 1.45), saturation=0, hue=0), False),
          (dict(brightness=0, contrast=0, saturation=(0.3, 0.3), hue=0), False),
          (dict(brightness=0, contrast=0, saturation=(1.6, 1.6), hue=0), False),
          (dict(brightness=0, contrast=0, saturation=0, hue=(0.1, 0.1)), True),
          (dict(brightness=0, contrast=0, saturation=0, hue=(-0.37, -0.37)), True),
          (dict(brightness=(0.7, 0.7), contrast=(1.4, 1.4), saturation=(0.5, 0.5),
                hue=(-0.2, -0.2)), True)]
HSV = [((15, 15), (-25, -25), (12, 12)), ((-7.5, -7.5), (25, 25), (-12, -12)),
       ((100, 100), (0, 0), (0, 0))]


def _levels(x: np.ndarray) -> np.ndarray:
    """An image in levels of 255 (float images are [0, 1])."""
    return x.astype(np.float64) * (255.0 if x.dtype == np.float32 else 1.0)


def _albu(t, image):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image)["image"]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("pair", FIXED, ids=[f"{type(w).__name__}{k}" for k, (w, _) in
                                             enumerate(FIXED)])
def test_fixed_parameters_are_albumentations(pair, dtype, queue):
    """Within 1 level of albumentations (uint8: its lookup tables, truncation included; float32:
    its arithmetic, in float32 both), on three photos."""
    ours, theirs = pair
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        got = W.Compose([ours])(image=img, seed=0, queue=queue)["image"]
        want = _albu(theirs, img)
        assert got.dtype == want.dtype and got.shape == want.shape
        diff = np.abs(_levels(got) - _levels(want))
        assert diff.max() <= 1.0 + 1e-3, (diff.max(), (diff > 1).mean())
        # almost everywhere the same level; but where ensure_safe_range narrows alpha by the
        # image's mean, alpha * peak + beta is the peak exactly, which albumentations' float32
        # table makes a hair less and truncates to peak - 1 (the photos' white pixels)
        safe = getattr(ours, "ensure_safe_range", False) and not ours.brightness_by_max
        top = (img == img.max()).mean() if safe and dtype == np.uint8 else 0.0
        assert (diff > 0.5 + 1e-3).mean() < 0.001 + top
        assert not np.array_equal(got, img)  # the transform did something


def _jitter_albu(params: dict):
    """albumentations' ColorJitter with warpkit's recorded factors and order."""
    t = A.ColorJitter(p=1)
    t.get_params = lambda: {k: params[k] for k in ("brightness", "contrast", "saturation",
                                                   "hue", "order")}
    return t


def _close(got, want, hue: bool) -> None:
    """Within 1 level, the same level almost everywhere; through OpenCV's 8-bit HSV within 2
    levels on 99% of pixels (its conversions round in fixed point; OpenCV 4 and 5 round its
    way back differently)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(_levels(got) - _levels(want))
    if hue:
        assert (diff > 2 + 1e-3).mean() < 0.01 and diff.max() <= 8, (diff.max(), (diff > 2).mean())
    else:
        assert diff.max() <= 1.0 + 1e-3, (diff.max(), (diff > 1).mean())
        assert (diff > 0.5 + 1e-3).mean() < 0.001


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("case", range(len(JITTER)))
def test_color_jitter_is_albumentations(case, dtype, queue):
    """Each factor alone, then all four in drawn orders: the contrast's mean is the gray mean
    of the image as that step finds it (after the steps the order puts before it)."""
    kw, hue = JITTER[case]
    pipe = W.Compose([W.ColorJitter(**kw, p=1)])
    orders = set()
    for k, photo in enumerate(PHOTOS):
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        for seed in range(3 if case == len(JITTER) - 1 else 1):
            out = pipe(image=img, seed=seed, index=k, queue=queue)
            params = out["params"]["steps"][0]
            orders.add(tuple(params["order"]))
            _close(out["image"], _albu(_jitter_albu(params), img), hue)
            assert not np.array_equal(out["image"], img)
    assert case < len(JITTER) - 1 or len(orders) >= 3


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("limits", HSV, ids=str)
def test_hue_saturation_value_is_albumentations(limits, dtype, queue):
    for photo in PHOTOS:
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        got = W.Compose([W.HueSaturationValue(*limits, p=1)])(image=img, seed=0,
                                                             queue=queue)["image"]
        _close(got, _albu(A.HueSaturationValue(*limits, p=1), img), True)
        assert not np.array_equal(got, img)


@pytest.mark.parametrize("limits", HSV + [((0, 0), (40, 40), (-30, -30))], ids=str)
def test_every_8bit_colour_through_hsv_is_albumentations(limits, queue):
    """All 2^24 RGB colours through OpenCV's 8-bit HSV round trip: within 1 level of
    albumentations everywhere, and with OpenCV 5 (whose truncation back to levels the kernel
    follows; OpenCV 4 rounds) equal on 99.9% (5.0 puts 0.005-0.02% of them a level apart). The
    photos above leave most (value, chroma) pairs of the conversion's tables unvisited: this
    reaches every entry, and every hue sector at every saturation."""
    v = np.arange(256, dtype=np.uint8)
    img = np.stack(np.meshgrid(v, v, v, indexing="ij"), -1).reshape(4096, 4096, 3)
    got = W.Compose([W.HueSaturationValue(*limits, p=1)])(image=img, seed=0, queue=queue)["image"]
    d = np.abs(got.astype(np.int16) - _albu(A.HueSaturationValue(*limits, p=1), img))
    assert d.max() <= 1
    if int(cv2.__version__.split(".")[0]) >= 5:
        assert (d > 0).mean() < 1e-3


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_jitter_and_hsv_on_one_channel(dtype, queue):
    """A 1-channel image: ColorJitter's brightness and contrast (its mean: the image's own),
    HueSaturationValue's value shift; saturation and hue leave it."""
    gray = np.ascontiguousarray(PHOTOS[1][..., 1])
    img = gray if dtype == np.uint8 else gray.astype(np.float32) / 255
    pipe = W.Compose([W.ColorJitter((0.8, 0.8), (1.3, 1.3), (0.2, 0.2), (0.3, 0.3), p=1)])
    out = pipe(image=img, seed=1, queue=queue)
    _close(out["image"], _albu(_jitter_albu(out["params"]["steps"][0]), img), False)
    got = W.Compose([W.HueSaturationValue(0, 0, (-20, -20), p=1)])(image=img, seed=0,
                                                                  queue=queue)["image"]
    _close(got, _albu(A.HueSaturationValue(0, 0, (-20, -20), p=1), img), False)


def test_whole_image_passes_in_a_batch_fused_with_the_model_input(queue):
    """Two contrasts in one pipeline (two passes after the warp), in a batch and a ragged list
    of samples whose steps differ (some apply nothing): each sample as the geometric result,
    then albumentations' steps with the recorded parameters, then the normalisation; and each
    sample the same alone."""
    geo = [W.RandomResizedCrop(72), W.RandomHorizontalFlip()]
    colour = [W.ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.7), W.ToGray(p=0.3),
              W.RandomBrightnessContrast(0.2, 0.2, brightness_by_max=False, p=0.7)]
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    fused = W.Compose(geo + colour, output_dtype="float32", mean=mean, std=std, layout="CHW")
    plain = W.Compose(geo)
    photos = [p[:300, :400] for p in PHOTOS] * 3
    for images in (np.stack(photos), photos):
        out = fused(image=images, seed=7, queue=queue)
        base = plain(image=images, seed=7, queue=queue)["image"]
        for k, p in enumerate(out["params"]):
            jit, gray, bc = p["steps"][2:]
            x = base[k]
            if jit["applied"]:
                x = _albu(_jitter_albu(jit), x)
            if gray["applied"]:
                x = _albu(A.ToGray(p=1), x)
            if bc["applied"]:
                t = A.RandomBrightnessContrast(brightness_by_max=False, p=1)
                x = t.apply(x, alpha=bc["alpha"], beta=bc["beta"] * x.mean())
            want = ((x / 255 - mean) / std).transpose(2, 0, 1)
            diff = np.abs(out["image"][k] - want) * np.array(std)[:, None, None] * 255
            hue = jit["applied"] and jit["hue"] != 0
            assert diff.max() <= (8 if hue else 1) + 1e-3
            assert (diff > 2 + 1e-3).mean() < 0.01
            alone = fused(image=photos[k], seed=7, index=k, queue=queue)["image"]
            np.testing.assert_array_equal(alone, out["image"][k])
        assert {len([s for s in p["steps"][2:] if s["applied"]]) for p in out["params"]} \
            >= {1, 2}


def test_passes_on_device_arrays(queue):
    """A batch already on the device goes through the passes after the warp (the plan's device
    path binds its scratch buffers by name) and gives the host batch's result."""
    import pyopencl.array as cla

    batch = np.stack([p[:200, :300] for p in PHOTOS])
    pipe = W.Compose([W.RandomResizedCrop(48), W.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1)],
                     output_dtype="float32", mean=(0.5,) * 3, std=(0.25,) * 3, layout="CHW")
    host = pipe(image=batch, seed=3, queue=queue)
    dev = pipe(image=cla.to_device(queue, batch), seed=3, queue=queue)
    assert isinstance(dev["image"], cla.Array)
    np.testing.assert_array_equal(dev["image"].get(), host["image"])
    assert all(p["steps"][1]["contrast"] != 1 for p in host["params"])  # a pass each


def test_colour_passes_split_at_whole_image_operations():
    from warpkit.engine.core import COLOUR_WORDS, colour_passes
    ops = np.zeros((3, 4, COLOUR_WORDS), np.float32)
    ops[0, :3, 0] = [1, 7, 2]      # affine | contrast, gamma
    ops[1, :4, 0] = [7, 11, 3, 1]  # (nothing) | contrast | mean shift, gray, affine
    ops[2, :1, 0] = [5]            # solarize
    ops[..., 1] = np.arange(12).reshape(3, 4)
    parts = colour_passes(ops.reshape(3, -1))
    codes = [p.reshape(3, -1, COLOUR_WORDS)[..., 0].tolist() for p in parts]
    assert codes == [[[1], [0], [5]], [[7, 2], [7, 0], [0, 0]], [[0, 0, 0], [11, 3, 1], [0, 0, 0]]]
    assert parts[1].reshape(3, -1, COLOUR_WORDS)[0, 1, 1] == 2  # values travel with their code
    # no whole-image operation: one part, each list to its code 0, words after it cleared
    ops[0, :3, 0], ops[1, :4, 0], ops[2, :4, 0] = [1, 2, 0], [3, 1, 0, 5], [5, 5, 5, 5]
    (only,) = colour_passes(ops.reshape(3, -1))
    got = only.reshape(3, -1, COLOUR_WORDS)
    assert got[..., 0].tolist() == [[1, 2, 0, 0], [3, 1, 0, 0], [5, 5, 5, 5]]
    assert got[0, 2:].max() == 0 and got[1, 2:].max() == 0
    np.testing.assert_array_equal(got[2], ops[2])
    assert colour_passes(np.zeros((2, COLOUR_WORDS), np.float32))[0].shape == (2, COLOUR_WORDS)


def test_builds_hold_the_operation_groups_their_lists_use(queue, monkeypatch):
    """The larger operations (gamma, HSV, noise, holes, posterize, the median's 5x5 and 7x7
    networks) are compiled only into builds whose lists have them, or had them before in the
    process (so a pipeline settles on one build): the same results from a build with only the
    groups used and from one with all."""
    from warpkit.engine import core
    ops = np.zeros((2, 3, core.COLOUR_WORDS), np.float32)
    ops[0, :2, 0] = [core.COL_AFFINE, core.COL_HUE]
    ops[1, :1, 0] = [core.COL_NOISE]
    monkeypatch.setattr(core, "_GROUPS_SEEN", {})
    assert core.colour_groups([ops.reshape(2, -1)]) == (2 | 4,)
    ops[..., 0] = 0
    ops[:, 0, 0] = core.COL_POSTERIZE
    assert core.colour_groups([ops.reshape(2, -1)]) == (2 | 4 | 16,)  # what it had stays
    assert core.colour_groups([np.zeros((1, 12), np.float32)] * 2) == (2 | 4 | 16, 0)
    img = PHOTOS[0][:300, :300]
    batch = np.stack([img, PHOTOS[1][:300, :300], PHOTOS[2][:300, :300]] * 2)
    geo = [W.RandomResizedCrop(48), W.RandomAffine(degrees=20)]
    cases = {0: [W.RandomBrightnessContrast(p=1), W.ToGray(p=0.5)],
             1 | 16: [W.RandomGamma(p=1), W.Posterize(3, p=0.5)],
             2: [W.ColorJitter(0.3, 0.3, 0.3, 0.2, p=0.7)],
             4 | 8: [W.GaussNoise(p=0.6), W.CoarseDropout(num_holes_range=(1, 3), fill="random",
                                                          p=0.7)]}
    for want, steps in cases.items():
        for dtype in (np.uint8, np.float32):
            x = batch if dtype == np.uint8 else batch.astype(np.float32) / 255
            pipe = W.Compose(geo + steps)
            monkeypatch.setattr(core, "_GROUPS_SEEN", {})
            own = pipe(image=x, seed=2, queue=queue)["image"]
            assert core._GROUPS_SEEN[0] == want, steps
            if dtype == np.uint8:  # (a build with every group: one dtype is enough)
                monkeypatch.setattr(core, "_GROUPS_SEEN", {0: 127, 1: 127})
                np.testing.assert_array_equal(pipe(image=x, seed=2, queue=queue)["image"], own)
            for k in range(0, 6, 2):  # a sample alone: its own groups only
                monkeypatch.setattr(core, "_GROUPS_SEEN", {})
                np.testing.assert_array_equal(
                    pipe(image=x[k], seed=2, index=k, queue=queue)["image"], own[k])
    # the median's 5x5 and 7x7 networks are groups of the median's pass, by the sizes drawn;
    # a build without them takes the search for those sizes: the same medians
    med = np.zeros((3, 1, core.COLOUR_WORDS), np.float32)
    med[:, 0, :2] = [[core.COL_MEDIAN, 3], [core.COL_MEDIAN, 7], [core.COL_MEDIAN, 9]]
    monkeypatch.setattr(core, "_GROUPS_SEEN", {})
    assert core.colour_groups([np.zeros((3, 12), np.float32), med.reshape(3, -1)]) == (0, 64)
    pipe = W.Compose(geo + [W.MedianBlur(blur_limit=(5, 7), p=1)])
    for dtype in (np.uint8, np.float32):
        x = batch if dtype == np.uint8 else batch.astype(np.float32) / 255
        monkeypatch.setattr(core, "_GROUPS_SEEN", {})
        own = pipe(image=x, seed=2, queue=queue)
        assert {p["steps"][2]["ksize"] for p in own["params"]} == {5, 7}
        assert core._GROUPS_SEEN[1] == 32 | 64
        monkeypatch.setattr(core, "_GROUPS_SEEN", {})
        monkeypatch.setattr(core, "_MEDIAN_NET5", 0)
        monkeypatch.setattr(core, "_MEDIAN_NET7", 0)
        np.testing.assert_array_equal(pipe(image=x, seed=2, queue=queue)["image"], own["image"])
        assert core._GROUPS_SEEN[1] == 0
        monkeypatch.undo()


def test_channel_shuffle_is_albumentations_with_the_recorded_order(queue):
    photo = PHOTOS[1]
    pipe = W.Compose([W.ChannelShuffle(p=1)])
    seen = set()
    for seed in range(12):
        out = pipe(image=photo, seed=seed, queue=queue)
        order = np.argsort(out["params"]["steps"][0]["keys"][:3], kind="stable").tolist()
        seen.add(tuple(order))
        np.testing.assert_array_equal(out["image"], AF.channel_shuffle(photo, order))
    assert len(seen) >= 4  # the order is drawn


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_other_channel_counts(channels, queue):
    img = PHOTOS[0][..., :channels] if channels < 4 else \
        np.dstack([PHOTOS[0], PHOTOS[0][::-1, :, :1]])
    img = np.ascontiguousarray(img)
    for ours, theirs in FIXED[:2] + FIXED[6:8]:
        got = W.Compose([ours])(image=img, seed=0, queue=queue)["image"]
        want = _albu(theirs, img).reshape(got.shape)
        assert np.abs(_levels(got) - _levels(want)).max() <= 1
    gray = W.Compose([W.ToGray(p=1)])(image=img, seed=0, queue=queue)["image"]
    if channels < 3:  # nothing to mix
        np.testing.assert_array_equal(gray, img.reshape(gray.shape))
    else:  # RGB mixed, alpha kept
        np.testing.assert_array_equal(gray[..., 3], img[..., 3])
        assert (gray[..., 0] == gray[..., 2]).all()


def test_uint16_and_the_general_kernel(queue):
    """uint16 levels (peak 65535) and cubic sampling go through the one-pixel kernel."""
    img16 = (PHOTOS[1].astype(np.uint16) * 257)
    inv = W.Compose([W.InvertImg(p=1)])(image=img16, seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(inv, 65535 - img16)
    pipe = W.Compose([W.RandomGamma((80, 80), p=1)], interpolation="cubic")
    got = pipe(image=PHOTOS[1], seed=0, queue=queue)["image"]
    want = _albu(A.RandomGamma((80, 80), p=1), PHOTOS[1])
    assert np.abs(got.astype(int) - want).max() <= 1


def test_fused_with_geometry_and_the_model_input_is_the_sequence(queue):
    """Colour in the warp gives what the geometric result, then the colour, then the
    normalisation give one after another (the resampled value is rounded to a level first, as
    a uint8 intermediate would be)."""
    photos = [PHOTOS[0], PHOTOS[1], PHOTOS[2]]
    geo = [W.RandomResizedCrop(96), W.RandomHorizontalFlip(), W.RandomAffine(degrees=10)]
    colour = [W.RandomBrightnessContrast(p=1), W.RandomGamma(p=1), W.ToGray(p=0.5)]
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    fused = W.Compose(geo + colour, output_dtype="float32", mean=mean, std=std, layout="CHW")
    plain = W.Compose(geo)  # the colour steps draw after the geometric ones: the same maps
    out = fused(image=photos, seed=4, index=0, queue=queue)
    base = plain(image=photos, seed=4, index=0, queue=queue)
    assert out["image"].shape == (3, 3, 96, 96)
    for k, p in enumerate(out["params"]):
        step = {s: p["steps"][3 + i] for i, s in enumerate(("bc", "gamma", "gray"))}
        x = base["image"][k].astype(np.float32)
        x = np.floor(np.clip(x * step["bc"]["alpha"] + step["bc"]["beta"] * 255, 0, 255))
        x = np.floor((x / 255) ** step["gamma"]["gamma"] * 255)
        if step["gray"]["applied"]:
            x = np.repeat(np.floor(x @ np.array([0.299, 0.587, 0.114]) + 0.5)[..., None], 3, -1)
        want = ((x / 255 - mean) / std).transpose(2, 0, 1)
        # a level's worth of the model's input, where float32 rounding put a value on the
        # other side of a level
        diff = np.abs(out["image"][k] - want) * np.array(std)[:, None, None] * 255
        assert diff.max() <= 1.0 + 1e-3 and (diff > 1e-3).mean() < 0.001


def test_each_sample_alone_in_a_batch_and_in_a_list(queue):
    pipe = W.Compose([W.RandomResizedCrop(40), W.RandomBrightnessContrast(p=0.7),
                      W.RGBShift(p=0.7), W.Solarize((0.3, 0.9), p=0.5)])
    batch = np.stack([p[:300, :400] for p in PHOTOS])
    together = pipe(image=batch, seed=2, index=5, queue=queue)
    listed = pipe(image=list(PHOTOS), seed=2, index=5, queue=queue)
    for k in range(3):
        alone = pipe(image=batch[k], seed=2, index=5 + k, queue=queue)
        np.testing.assert_array_equal(alone["image"], together["image"][k])
        alone = pipe(image=PHOTOS[k], seed=2, index=5 + k, queue=queue)
        np.testing.assert_array_equal(alone["image"], listed["image"][k])
    assert len({repr(p["steps"][1]) for p in together["params"]}) == 3  # drawn per sample


def test_targets_are_untouched_and_params_replay(queue):
    mask = (PHOTOS[0][..., 0] > 128).astype(np.uint8)
    boxes, kps = [[10, 20, 200, 300]], [[50.0, 60.0]]
    geo = [W.RandomResizedCrop(64), W.RandomAffine(degrees=20)]
    colour = W.Compose(geo + [W.InvertImg(p=1), W.Posterize(2, p=1)])
    plain = W.Compose(geo)
    a = colour(image=PHOTOS[0], mask=mask, boxes=boxes, keypoints=kps, seed=1, queue=queue)
    b = plain(image=PHOTOS[0], mask=mask, boxes=boxes, keypoints=kps, seed=1, queue=queue)
    for key in ("mask", "boxes", "keypoints", "matrix"):
        np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a["image"], b["image"])
    again = colour.replay(a["params"], image=PHOTOS[0], queue=queue)
    np.testing.assert_array_equal(again["image"], a["image"])
    back = W.Compose.from_dict(colour.to_dict())
    np.testing.assert_array_equal(back(image=PHOTOS[0], seed=1, queue=queue)["image"], a["image"])


def test_serialised_transforms_keep_their_parameters():
    for t in [W.RandomBrightnessContrast(0.1, (-0.3, 0.2), p=0.4), W.RandomGamma((60, 90)),
              W.RandomBrightnessContrast(brightness_by_max=False),
              W.ColorJitter(0.4, (0.5, 1.5), 0, (-0.1, 0.2), p=0.8),
              W.HueSaturationValue(10, (-5, 20), 3, p=0.3),
              W.ToGray(p=0.2), W.RGBShift(5, (0, 30), 0.1), W.ChannelShuffle(p=0.3),
              W.InvertImg(p=0.1), W.Solarize((0.2, 0.6)), W.Posterize((3, 5)),
              W.Posterize([(1, 2), (3, 4), (5, 6)])]:
        back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
        assert repr(back) == repr(t)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Every operation through both kernels (8-wide, uint8 and float32; the one-pixel kernel
    under cubic) after a rotation, on each device CI runs and on Oclgrind (every access
    checked): the geometric result of the same device, then albumentations with the recorded
    parameters, within 1 level."""
    img = PHOTOS[1][100:117, 200:219].copy()
    # (every other one: RandomBrightnessContrast both ways, a gamma, two grays, an inversion;
    # and the gray of OpenCV's Lab, which reads the call's colour table, and the principal
    # component's, whose eigenvector's sign a device without doubles finds in float)
    pairs = [(w, a) for w, a in FIXED if not isinstance(w, W.Posterize)][::2] + \
        [LAB_GRAY, PCA_GRAY]
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    for interpolation in ("linear", "cubic"):
        for im in (img, img.astype(np.float32) / 255):
            base = W.Compose([geo], interpolation=interpolation)(
                image=im, seed=3, queue=small_queue)["image"]
            # colour reads float values clipped to [0, 1] (cubic overshoots at the border)
            base = np.clip(base, 0, 1) if base.dtype == np.float32 else base
            for ours, theirs in pairs:
                out = W.Compose([geo, ours], interpolation=interpolation)(
                    image=im, seed=3, queue=small_queue)["image"]
                want = _albu(theirs, base)
                assert out.shape == (13, 21, 3)
                assert np.abs(_levels(out) - _levels(want)).max() <= 1 + 1e-3, ours
            # the passes after the warp (the contrast's mean) and OpenCV's HSV
            jitter = W.ColorJitter(**JITTER[-1][0], p=1)
            out = W.Compose([geo, jitter], interpolation=interpolation)(
                image=im, seed=3, queue=small_queue)
            want = _albu(_jitter_albu(out["params"]["steps"][1]), base)
            assert np.abs(_levels(out["image"]) - _levels(want)).max() <= 8
            out = W.Compose([geo, W.HueSaturationValue(*HSV[0], p=1)],
                            interpolation=interpolation)(image=im, seed=3,
                                                         queue=small_queue)["image"]
            want = _albu(A.HueSaturationValue(*HSV[0], p=1), base)
            assert np.abs(_levels(out) - _levels(want)).max() <= 8


@pytest.mark.parametrize("method", ["average", "max", "desaturation"])
def test_to_gray_methods_are_albumentations_level_for_level(method, queue):
    """ToGray's average, max and desaturation give albumentations' gray level for level on
    uint8 (every sum of three levels, and every max + min, truncated as albumentations'
    uint8 results are), float32 images within its float32 rounding; a 4-channel image is
    refused by name (albumentations makes 3 channels of any count, warpkit keeps an image's),
    a gray one is left as it is."""
    s = np.arange(766)
    sums = np.stack([(s + 2) // 3, (s + 1) // 3, s // 3], -1)  # (R + G + B) = 0 .. 765
    t = np.arange(766) % 511  # max + min = 0 .. 510 (max = min(t, 255), min = t - max)
    spans = np.stack([t - np.minimum(t, 255), np.minimum(t, 255), t - np.minimum(t, 255)], -1)
    rng = np.random.default_rng(5)
    img = np.concatenate([sums, spans, rng.integers(0, 256, (766 * 2, 3))]).astype(np.uint8)
    img = img.reshape(8, 383, 3)
    pipe = W.Compose([W.ToGray(method=method, p=1)])
    got = pipe(image=img, seed=0, queue=queue)["image"]
    want = _albu(A.ToGray(method=method, p=1), img)
    np.testing.assert_array_equal(got, want)
    assert (got[..., 0] == got[..., 2]).all() and len(np.unique(got)) > 200
    f = img.astype(np.float32) / 255
    got = pipe(image=f, seed=0, queue=queue)["image"]
    assert np.abs(got - _albu(A.ToGray(method=method, p=1), f)).max() <= 1e-6
    with pytest.raises(ValueError, match=rf"ToGray\(method='{method}'\) takes images of 3 "
                                         rf"channels .* got 4"):
        pipe(image=np.zeros((8, 8, 4), np.uint8), seed=0, queue=queue)
    gray = img[..., 1].copy()
    np.testing.assert_array_equal(pipe(image=gray, seed=0, queue=queue)["image"], gray)


def _each_as_alone(step, queue) -> None:
    """A ragged batch through ``step`` (p = 1/2: applied to some samples, not all) and a
    resize: each sample as alone."""
    batch = [PHOTOS[0][:60, :70], PHOTOS[1][:50, :90], PHOTOS[2][:64, :64]]
    half = W.Compose([step, W.Resize(48, 40)])
    outs = half(image=batch, seed=4, index=[0, 1, 2], queue=queue)
    assert {s["steps"][0]["applied"] for s in outs["params"]} == {True, False}
    for k, im in enumerate(batch):
        alone = half(image=im, seed=4, index=k, queue=queue)["image"]
        np.testing.assert_array_equal(outs["image"][k], alone)


def test_to_gray_from_lab_is_opencvs_lightness(queue):
    """ToGray(method="from_lab") gives L of OpenCV's 8-bit Lab level for level on all 2^24
    colours (into the 3 channels; alpha kept), and albumentations' result on float32 (its
    levels rint(255 v), back over 255) exactly; in a pass after the warp (after a contrast,
    which reads the image's mean, and a blur) as after the steps in albumentations; a batch's
    samples each as alone, the table once a call; a gray image left as it is; uint16 refused
    by name; the port takes it."""
    import cv2

    rgb = np.arange(1 << 24, dtype=np.uint32)
    img = np.stack([rgb >> 16, (rgb >> 8) & 255, rgb & 255], -1).astype(np.uint8)
    img = img.reshape(4096, 4096, 3)
    pipe = W.Compose([W.ToGray(method="from_lab", p=1)])
    got = pipe(image=img, seed=0, queue=queue)["image"]
    want = cv2.cvtColor(img, cv2.COLOR_RGB2LAB)[..., 0]
    for c in range(3):
        np.testing.assert_array_equal(got[..., c], want)
    del got, want, img, rgb
    four = np.dstack([PHOTOS[0][:40, :50], np.arange(2000, dtype=np.uint8).reshape(40, 50)])
    out = pipe(image=four, seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(out[..., 3], four[..., 3])
    np.testing.assert_array_equal(out[..., 1], cv2.cvtColor(four[..., :3],
                                                            cv2.COLOR_RGB2LAB)[..., 0])
    for photo in PHOTOS:
        f = photo.astype(np.float32) / 255
        f[:3, :3] = [[-0.2, 0.5, 1.3]]  # (clipped on the way in, as albumentations clips)
        got = pipe(image=f, seed=0, queue=queue)["image"]
        theirs = _albu(A.ToGray(method="from_lab", p=1), f)
        np.testing.assert_array_equal(got, theirs)
    # in a pass after the warp: after a contrast (on the image's mean) and after a blur
    for steps in ([(W.ColorJitter(0, (1.4, 1.4), 0, 0, p=1),
                    A.ColorJitter((1, 1), (1.4, 1.4), (1, 1), (0, 0), p=1))],
                  [(W.GaussianBlur((5, 5), (1.2, 1.2), p=1),
                    A.GaussianBlur((5, 5), (1.2, 1.2), p=1))]):
        steps = steps + [LAB_GRAY]
        for photo in PHOTOS[:2]:
            got = W.Compose([w for w, _ in steps])(image=photo, seed=0, queue=queue)["image"]
            want = photo
            for _, a in steps:
                want = _albu(a, want)
            diff = np.abs(got.astype(int) - want)
            assert diff.max() <= 1 and (diff > 0).mean() < 0.001, type(steps[0][0]).__name__
    # a batch, ragged and 1/2 applied: each sample as alone; the table once a call
    _each_as_alone(W.ToGray(method="from_lab", p=0.5), queue)
    from warpkit.augment._colour import colour_program
    from warpkit.engine import lab
    prog = colour_program(pipe, [pipe.sample((9, 9), seed=0)] * 3, 3, np.uint8,
                          [(9, 9)] * 3, {})
    np.testing.assert_array_equal(prog.table, lab.gray_table())
    gray = PHOTOS[0][..., 1].copy()
    np.testing.assert_array_equal(pipe(image=gray, seed=0, queue=queue)["image"], gray)
    with pytest.raises(ValueError, match=r"ToGray\(method='from_lab'\) takes uint8 or float32 "
                                         r"images .* got uint16"):
        pipe(image=np.zeros((8, 8, 3), np.uint16), seed=0, queue=queue)
    ported = W.from_albumentations(A.Compose([A.ToGray(method="from_lab", p=0.3)]))
    assert ported.transforms[0].config()["method"] == "from_lab"
    assert repr(W.Compose.from_dict(ported.to_dict())) == repr(ported)


def test_to_gray_pca_is_albumentations(queue):
    """ToGray(method="pca"): the projection on the first principal component that OpenCV's
    PCA finds (its Jacobi rotations give the eigenvector's sign), min-max scaled, within 1
    level of albumentations (the same level on 99% of each crop's pixels; on the photos of the
    fixed-parameter table all but 1 in 10^3) on 300 random crops
    whose channels are mixed, copied, inverted (every sign albumentations gives), float32
    within 1e-5; a flat image 0; after a contrast and before one (passes of their own), and
    before a turn with passes="as_needed" (the turn then reads the gray image, as in two
    calls); uint16 scaled to its peak; a batch's samples each as alone; 1 channel left as it
    is, 2 and 4 refused by name; the port takes it and splits geometry after it."""
    rng = np.random.default_rng(1)
    pipe = W.Compose([PCA_GRAY[0]])
    for k in range(300):
        photo = PHOTOS[k % 3]
        h, w = rng.integers(8, 120, 2)
        y, x = rng.integers(0, photo.shape[0] - h), rng.integers(0, photo.shape[1] - w)
        mix = np.eye(3) + rng.normal(0, 0.3, (3, 3)) * (k % 2)
        img = np.clip(photo[y:y + h, x:x + w] @ mix.T, 0, 255).astype(np.uint8)
        if k % 7 == 0:
            img[..., 2] = img[..., 0]
        if k % 11 == 0:
            img[..., 1] = 255 - img[..., 1]
        got = pipe(image=img, seed=0, queue=queue)["image"]
        diff = np.abs(got.astype(int) - _albu(PCA_GRAY[1], img))
        assert diff.max() <= 1 and (diff > 0).mean() < 0.01, k
    for photo in PHOTOS:
        f = photo.astype(np.float32) / 255
        got = pipe(image=f, seed=0, queue=queue)["image"]
        want = _albu(PCA_GRAY[1], f)
        assert got.dtype == want.dtype and np.abs(got - want).max() <= 1e-5
        wide = photo.astype(np.uint16) * 257
        got = pipe(image=wide, seed=0, queue=queue)["image"]
        assert got.dtype == np.uint16 and np.abs(got / 65535.0 - want).max() <= 2e-5
    flat = np.full((9, 13, 3), 77, np.uint8)
    np.testing.assert_array_equal(pipe(image=flat, seed=0, queue=queue)["image"], 0)
    np.testing.assert_array_equal(_albu(PCA_GRAY[1], flat), 0)
    contrast = (W.ColorJitter(0, (1.4, 1.4), 0, 0, p=1),
                A.ColorJitter((1, 1), (1.4, 1.4), (1, 1), (0, 0), p=1))
    for steps in ([contrast, PCA_GRAY], [PCA_GRAY, contrast]):
        for photo in PHOTOS[:2]:
            got = W.Compose([w for w, _ in steps])(image=photo, seed=0, queue=queue)["image"]
            want = photo
            for _, a in steps:
                want = _albu(a, want)
            diff = np.abs(got.astype(int) - want)  # (a level's difference times 1.4: 2)
            assert diff.max() <= 2 and (diff > 0).mean() < 0.001
    turn = W.Affine(rotate=20, p=1)
    gray = pipe(image=PHOTOS[1], seed=0, queue=queue)["image"]
    chained = W.Compose([turn])(image=gray, seed=0, queue=queue)["image"]
    both = W.Compose([PCA_GRAY[0], turn], passes="as_needed")
    np.testing.assert_array_equal(both(image=PHOTOS[1], seed=0, queue=queue)["image"], chained)
    _each_as_alone(W.ToGray(method="pca", p=0.5), queue)
    one = PHOTOS[0][..., 0].copy()
    np.testing.assert_array_equal(pipe(image=one, seed=0, queue=queue)["image"], one)
    for c in (2, 4):
        with pytest.raises(ValueError, match=rf"ToGray\(method='pca'\) takes images of 3 "
                                             rf"channels .* got {c}"):
            pipe(image=np.zeros((8, 8, c), np.uint8), seed=0, queue=queue)
    ported = W.from_albumentations(A.Compose([A.ToGray(method="pca", p=1), A.Rotate(p=1)]))
    assert ported.transforms[0].config()["method"] == "pca" and ported.passes == "as_needed"


def test_lab_gray_operations_are_checked(queue):
    """A COL_GRAY of method 4 (from_lab) through warp_by: L of OpenCV's Lab with its table in
    the call's colour table at any offset; refused by name without a table, past its end, with
    a table that is not finite, on uint16; a list of it is never a kept call's (whose lists
    read no table and are not checked)."""
    import cv2
    from warpkit.engine import core, lab

    img = PHOTOS[1][:6, :8].copy()
    table = np.concatenate([np.zeros(5, np.float32), lab.gray_table()])

    def op(offset=5, how=4.0):
        colour = np.zeros((1, 2 * core.COLOUR_WORDS), np.float32)
        colour[0, :8] = [core.COL_GRAY, 0, 0, 0, how, 0, offset >> 16, offset & 0xFFFF]
        return colour

    def run(colour, image=img, tab=table):
        if tab is not None:
            colour = core.with_table(colour, tab)
        return core.warp_by(image, np.eye(3), (8, 6), queue=queue, colour=colour)

    got = run(op())
    np.testing.assert_array_equal(got[..., 2], cv2.cvtColor(img, cv2.COLOR_RGB2LAB)[..., 0])
    bad = table.copy()
    bad[5 + 3 + 17] = np.nan
    for colour, image, tab, why in ((op(), img, None, "runs past the call's colour table"),
                                    (op(6), img, table, "runs past"),
                                    (op(how=4.5), img, table[:-1], "runs past"),
                                    (op(), img, bad, "must be finite"),
                                    (op(), img.astype(np.uint16), table, "uint16")):
        with pytest.raises(ValueError, match=f"COL_GRAY.*{why}"):
            run(colour, image, tab)
    # (how 3.9 and 5 are other methods: no table read)
    run(op(how=3.9), tab=None)
    run(op(how=5.0), tab=None)
    assert core._again_codes(op()) is None and core._again_codes(op(how=0.0)) is not None


def test_safe_range_is_albumentations_own_rule():
    """ensure_safe_range's narrowing against albumentations' get_safe_brightness_contrast_params
    (beta in the peak's units there, a fraction here), numbers and arrays alike; recorded so;
    the port takes it."""
    from albumentations.augmentations.pixel import functional as AF
    from warpkit.augment._colour import safe_alpha_beta

    rs = np.random.default_rng(0)
    alpha, beta = rs.uniform(-1.5, 2.5, 400), rs.uniform(-1.5, 1.5, 400)
    arrays = safe_alpha_beta(alpha, beta)
    for k, (a, b) in enumerate(zip(alpha.tolist(), beta.tolist())):
        for peak in (255.0, 1.0):
            sa, sb = AF.get_safe_brightness_contrast_params(a, b * peak, peak)
            got = safe_alpha_beta(a, b)
            assert got[0] == pytest.approx(sa, abs=1e-12) and got[1] * peak == pytest.approx(sb)
        assert (arrays[0][k], arrays[1][k]) == safe_alpha_beta(a, b)
    t = W.RandomBrightnessContrast(0.5, 0.5, ensure_safe_range=True, p=1)
    for seed in range(5):
        q = W.Compose([t]).sample((50, 40), seed=seed)["steps"][0]
        assert (q["alpha"], q["beta"]) == safe_alpha_beta(q["alpha"], q["beta"])
        assert q["beta"] >= 0 and q["alpha"] <= 1 - q["beta"]
    ported = W.from_albumentations(A.Compose([A.RandomBrightnessContrast(
        ensure_safe_range=True, brightness_by_max=False)]))
    assert ported.transforms[0].config()["ensure_safe_range"] is True


def test_refused_arguments():
    with pytest.raises(ValueError, match="weighted_average.*'from_lab' or 'pca', got 'lab'"):
        W.ToGray(method="lab")
    with pytest.raises(ValueError, match="num_output_channels=3.*1"):
        W.ToGray(num_output_channels=1)
    with pytest.raises(ValueError, match="num_bits.*\\[0, 8\\].*9"):
        W.Posterize((2, 9))
    with pytest.raises(ValueError, match="gamma_limit must be > 0"):
        W.RandomGamma((0, 10))
    with pytest.raises(ValueError, match="hue must be in \\[0, 0.5\\].*0.7"):
        W.ColorJitter(hue=0.7)
    with pytest.raises(ValueError, match="contrast must be >= 0.*-0.1"):
        W.ColorJitter(contrast=-0.1)
    rgba = np.zeros((8, 8, 4), np.uint8)
    for t in (W.ColorJitter(p=1), W.HueSaturationValue(p=1)):
        with pytest.raises(TypeError, match=f"{type(t).__name__} takes images of 1 or 3 "
                                            "channels.*got 4"):
            W.Compose([t])(image=rgba, seed=0)
        with pytest.raises(TypeError, match="uint8 or float32"):
            W.Compose([t])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    with pytest.raises(TypeError, match="colour transforms take uint8, uint16 or float32 "
                                        "images, got int32"):
        W.Compose([W.InvertImg(p=1)])(image=np.zeros((4, 4, 3), np.int32), seed=0)
