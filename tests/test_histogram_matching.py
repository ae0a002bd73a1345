"""HistogramMatching (a table per channel matched to a reference image's histogram, on the
device in Equalize's kernels: kernels_cl/colour_pass.cl's cl_hm_lut) against albumentations
2.0.8's, given the same reference and blend: photos and references of other sizes, uint8 and
float32 both ways, 1 to 4 channels, images and references of few levels, after geometry and
before other colour, batches of ragged crops choosing among the call's references, replay,
the port from albumentations, refusals, and small cases on each device CI runs and Oclgrind.

albumentations' blend is SimSIMD's weighted sum, whose rounding is the CPU's vector code (a
fused multiply-add on this machine's, which warpkit takes): within a level, and the same
level on all but a few pixels in 100 on any x86-64 CPU."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_reference_batch, ragged_crops, small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449]]
REFS = [skimage.data.rocket(), skimage.data.coffee()[::3, ::2].copy(), skimage.data.hubble_deep_field()]


def _albu(image: np.ndarray, ref: np.ndarray, ratio: float) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = A.Compose([A.HistogramMatching(blend_ratio=(ratio, ratio), p=1)])
        return t(image=image, hm_metadata=[ref])["image"]


def _close(got: np.ndarray, want: np.ndarray) -> None:
    """Within a level (1 / 255 for floats), the same on all but 2 values in 100 (of images of
    1000 values and more)."""
    want = want.reshape(got.shape)
    assert got.dtype == want.dtype
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    level = 1.0 if got.dtype == np.uint8 else 1 / 255 + 1e-6
    assert d.max() <= level, d.max()
    if d.size >= 1000:
        assert (d > (0 if got.dtype == np.uint8 else 1e-6)).mean() <= 0.02


def _ours(image, ref, ratio, queue=None):
    pipe = W.Compose([W.HistogramMatching(blend_ratio=(ratio, ratio), p=1)])
    return pipe(image=image, hm_metadata=[ref], seed=0, queue=queue)["image"]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("ratio", [1.0, 0.6, 0.0])
def test_photos_are_albumentations(dtype, ratio, queue):
    for k, photo in enumerate(PHOTOS):
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        ref = REFS[k]
        if k == 1:  # (a reference of the other dtype)
            ref = ref.astype(np.float32) / 255 if dtype == np.uint8 else ref
        _close(_ours(img, ref, ratio, queue), _albu(img, ref, ratio))


def test_channels_and_few_levels(queue):
    """1 to 4 channels and (H, W) images; images and references of one, few and all levels
    (the interpolation's ends and its steps over gaps of many levels), 2 x 2 to 40 x 40 and
    1 x 1 (albumentations squeezes an image one pixel high or wide into fewer dimensions,
    which pools its channels into one histogram: warpkit matches each channel, always)."""
    rng = np.random.default_rng(4)
    photo, ref = PHOTOS[1], REFS[0]
    for c in (1, 2, 3, 4):
        img = np.dstack([photo] * 2)[:200, :300, :c].copy()
        r = np.dstack([ref] * 2)[:, :, :c].copy()
        _close(_ours(img, r, 0.7, queue), _albu(img, r, 0.7))
    _close(_ours(photo[..., 0].copy(), ref[..., 1].copy(), 1.0, queue),
           _albu(photo[..., 0].copy(), ref[..., 1].copy(), 1.0))
    for k in range(24):
        h, w, rh, rw = (int(v) for v in rng.integers(2, 41, 4))
        h, w = (1, 1) if k == 5 else (h, w)
        c = (1, 3)[k % 2]
        step = (1, 60, 255)[k % 3]
        img = (rng.integers(0, 256 // step + 1, (h, w, c)) * step).clip(0, 255).astype(np.uint8)
        r = (rng.integers(0, 256 // step + 1, (rh, rw, c)) * (60, 1, 85)[k % 3]).clip(0, 255)
        r = r.astype(np.uint8)
        ratio = float(rng.uniform(0, 1))
        _close(_ours(img, r, ratio, queue), _albu(img, r, ratio))


def test_after_geometry_and_before_other_colour(queue):
    """The matching of the warped image (albumentations given warpkit's geometric output,
    its reference resized to that size), with colour steps after it in the same pass."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.HistogramMatching(blend_ratio=(0.8, 0.8), p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])(
            image=photo, hm_metadata=[REFS[k]], seed=k, queue=queue)["image"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = A.Compose([A.HistogramMatching(blend_ratio=(0.8, 0.8), p=1),
                              A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])(
                image=base, hm_metadata=[REFS[k]])["image"]
        _close(out, want)


def test_a_batch_chooses_among_the_calls_references(queue):
    """One list of references for the whole call: each sample draws one (recorded) and its
    blend; the batch = each sample alone with the same list = its replay; the model's input
    made after it; the list comes back in the result, as albumentations returns its data."""
    imgs = ragged_crops(PHOTOS, 10)
    pipe = W.Compose([W.RandomResizedCrop(48), W.HistogramMatching(p=0.8)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    got = assert_reference_batch(pipe, imgs, "hm_metadata", REFS, "blend_ratio", (0.5, 1.0), 3,
                                 queue)
    steps = [p["steps"][1] for p in got["params"]]
    with pytest.raises(ValueError, match="hm_metadata="):
        pipe.sample((40, 50), 3, index=1)
    with pytest.raises(TypeError, match="no transform of this pipeline reads: refs"):
        pipe.sample((40, 50), 3, refs=REFS)
    # the same sample with another reference list gives another image, the same draw
    other = pipe(image=imgs[0], hm_metadata=REFS[::-1], seed=3, index=0, queue=queue)
    assert other["params"]["steps"][1] == steps[0]
    # a training loop's batches (columns, and dicts), the references given once for all calls
    cols = [(imgs[:5], [0] * 5), (imgs[5:], [1] * 5)]
    streamed = list(W.batches(cols, lambda **kw: pipe(**kw, queue=queue), seed=3,
                              call={"hm_metadata": REFS}))
    np.testing.assert_array_equal(np.concatenate([b[0] for b in streamed]), got["image"])
    dicts = list(W.batches([{"image": imgs, "k": 1}], lambda **kw: pipe(**kw, queue=queue),
                           seed=3, call={"hm_metadata": REFS}))
    assert "hm_metadata" not in dicts[0] and dicts[0]["k"] == 1
    np.testing.assert_array_equal(dicts[0]["image"], got["image"])
    with pytest.raises(ValueError, match="may not set index"):
        W.batches(cols, pipe, seed=3, call={"index": 0})


def test_refusals():
    """HistogramMatching's own refusals (the port from albumentations and what both
    adaptations refuse alike: tests/test_fda.py's test_the_port_from_albumentations and
    test_the_calls_reference_list_is_checked)."""
    with pytest.raises(ValueError, match="blend_ratio"):
        W.HistogramMatching(blend_ratio=(0.5, 1.5))
    with pytest.raises(ValueError, match="metadata_key"):
        W.HistogramMatching(metadata_key="")
    pipe = W.Compose([W.HistogramMatching(p=1)])
    img = PHOTOS[0][:32, :32].copy()
    with pytest.raises(TypeError, match="uint8 or float32"):
        pipe(image=img, hm_metadata=[REFS[0].astype(np.uint16)], seed=0)
    with pytest.raises(TypeError, match="uint8 or float32"):
        pipe(image=img.astype(np.uint16), hm_metadata=[REFS[0]], seed=0)


def test_the_engine_checks_the_operation():
    """The kernel's words checked on the host before any launch: weights, the data count the
    channels need, running counts (16-bit halves, not decreasing)."""
    from warpkit.engine.core import COL_DATA, COL_EQUALIZE, COLOUR_WORDS, _check_matching, \
        match_data, match_ops
    counts = np.cumsum(np.ones((3, 256), np.int64) * 100000, axis=1)
    need = match_ops(3)
    ops = np.zeros((1, 1 + need, COLOUR_WORDS), np.float32)
    ops[0, 0, :5] = [COL_EQUALIZE, 4, 1, 0.5, 0.5]
    ops[0, 0, 10] = need
    ops[0, 1:, 0] = COL_DATA
    data = np.zeros(need * (COLOUR_WORDS - 1))
    data[:2 * 768] = match_data(counts)
    ops[0, 1:, 1:] = data.reshape(need, -1)
    _check_matching(ops, 3)
    with pytest.raises(ValueError, match="needs 187 COL_DATA"):
        _check_matching(ops, 4)
    # (a weight past 1; the first count's high half past 16 bits; the first count past the
    # next; a data operation that is not one)
    for at, value, why in (((0, 3), 2, "weights"), ((1, 3), 70000, "16 whole bits"),
                           ((1, 3), np.nan, "16 whole bits"), ((1, 1), 9, "running counts"),
                           ((5, 0), 0, "COL_DATA")):
        bad = ops.copy()
        bad[(0, *at)] = value
        with pytest.raises(ValueError, match=why):
            _check_matching(bad, 3)
    # (the other modes' data operations, which colour.h skips as well: Equalize's only for a
    # mask, AutoContrast's none)
    from warpkit.engine.core import _check_equalize_masks, _check_filters
    other = np.zeros((1, 1, COLOUR_WORDS), np.float32)
    other[0, 0, :3] = [COL_EQUALIZE, 0, 1]
    _check_filters(other)
    _check_equalize_masks(other, 8, 8)
    other[0, 0, 10] = -3
    with pytest.raises(ValueError, match="needs 0 COL_DATA"):
        _check_equalize_masks(other, 8, 8)
    other[0, 0, 1] = 2
    with pytest.raises(ValueError, match="words 10 and 11"):
        _check_filters(other)
    bad = ops.copy()
    bad[0, 0, 11] = 1
    with pytest.raises(ValueError, match="words 10 and 11"):
        _check_filters(bad)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32:
    albumentations' on the same device's geometric result (in float where the device has no
    fp64: within a level)."""
    for geo, k, im, base in small_rotated_cases(PHOTOS[1][100:121, 200:223], small_queue):
        ref = REFS[k % 3][..., :im.shape[-1]].copy()
        for ratio in (1.0, 0.45):
            out = W.Compose([geo, W.HistogramMatching(blend_ratio=(ratio, ratio), p=1)])(
                image=im, hm_metadata=[ref], seed=k, queue=small_queue)["image"]
            _close(out, _albu(base, ref, ratio))


def test_the_float_path_of_devices_without_fp64(queue, monkeypatch):
    """The tables in float (HM_DOUBLE 0: rusticl's build), forced on this device: photos and
    references of few levels (where an interpolated value lands on a whole level most often)
    within a level of albumentations, the same on all but 2 values in 100."""
    import warpkit
    from warpkit.engine import core

    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "fp64", False)
    monkeypatch.setattr(core, "PLANS", type(core.PLANS)())  # (no plan built with fp64)
    rng = np.random.default_rng(8)
    for k, photo in enumerate(PHOTOS):
        few = (rng.integers(0, 5, (30, 40, 3)) * 60).astype(np.uint8)
        for ref in (REFS[k], few):
            _close(_ours(photo, ref, 0.8, queue), _albu(photo, ref, 0.8))
    tables = [dict(launch.variant.defines) for plan in core.PLANS._plans.values()
              for launch in plan.launches if launch.variant.entry == "colour_clahe_lut"]
    assert tables and all(d["HM_DOUBLE"] == 0 for d in tables)


def test_the_resize_without_opencv(monkeypatch):
    """Where OpenCV is not installed the references are resized by warpkit's own tables of
    cv2.resize: 8-bit within a level on a few pixels in 100, float32 within float rounding."""
    import cv2

    from warpkit.augment import _domain

    monkeypatch.setattr(_domain, "_opencv", lambda: None)
    rng = np.random.default_rng(3)
    for k in range(12):
        h, w, H, W = (int(v) for v in rng.integers(1, 90, 4))
        img = REFS[k % 3][:h, :w, :3].copy()
        got = _domain._resized(img, W, H).astype(int)
        want = cv2.resize(img, (W, H)).reshape(H, W, 3).astype(int)
        assert np.abs(got - want).max() <= 1 and (got != want).mean() <= 0.05
        f = img.astype(np.float32) / 255
        np.testing.assert_allclose(_domain._resized(f, W, H),
                                   cv2.resize(f, (W, H)).reshape(H, W, 3), rtol=0, atol=1e-5)
