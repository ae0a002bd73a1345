"""GaussNoise, CoarseDropout and Erasing (warpkit.augment, kernels_cl/colour.h's WK_COL_NOISE and
WK_COL_HOLE) against albumentations 2.0.8 itself: the noise in distribution (OpenCV's generator
cannot be replayed) and exactly where its parameters fix it, the holes pixel for pixel with the
recorded rectangles, in images, masks, boxes and keypoints; the noise's generator against the
documented Philox-4x32-10 and Box-Muller; alone, in batches, on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._philox import kernel_key, philox4x32

from helpers import assert_sample_5_replays, check_small_cases, dropout_runs

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.dropout import functional as AD
    import skimage.data

PHOTO = skimage.data.astronaut()


def _albu(t, **data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([t])(**data)


def _image(dtype) -> np.ndarray:
    return PHOTO if dtype == np.uint8 else PHOTO.astype(np.float32) / 255


def _added(out: np.ndarray, img: np.ndarray) -> np.ndarray:
    """What a transform added, in levels of 255, on pixels no clipping reached."""
    scale = 255.0 if img.dtype == np.float32 else 1.0
    d = (out.astype(np.float64) - img.astype(np.float64)) * scale
    mid = (img * scale > 80) & (img * scale < 175)
    return d[mid]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("per_channel", [True, False])
def test_gauss_noise_has_albumentations_distribution(dtype, per_channel, queue):
    """The added noise's mean, deviation and quantiles as albumentations' (uint8: truncated
    toward zero in both), and one number per pixel for all channels without per_channel."""
    img = _image(dtype)
    kw = dict(std_range=(0.1, 0.1), mean_range=(0.05, 0.05), per_channel=per_channel, p=1)
    ours = W.Compose([W.GaussNoise(**kw)])(image=img, seed=4, queue=queue)["image"]
    theirs = _albu(A.GaussNoise(**kw), image=img)["image"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    a, b = _added(ours, img), _added(theirs, img)
    # the law both follow: N(12.75, 25.5) levels, truncated toward zero for uint8
    law = np.random.default_rng(0).normal(12.75, 25.5, 4_000_000)
    law = np.trunc(law) if dtype == np.uint8 else law
    assert abs(a.mean() - law.mean()) < 0.2 and abs(a.std() - law.std()) < 0.2
    # albumentations' OpenCV generator wanders more from call to call than an independent one
    assert abs(a.mean() - b.mean()) < 0.5 and abs(a.std() - b.std()) < 0.5
    q = [0.01, 0.1, 0.5, 0.9, 0.99]
    np.testing.assert_allclose(np.quantile(a, q), np.quantile(law, q), atol=1.0)
    np.testing.assert_allclose(np.quantile(a, q), np.quantile(b, q), atol=1.5)
    same = lambda x: (x[..., 0] == x[..., 1]).mean()  # noqa: E731
    if per_channel:
        assert same(ours) < 0.1 and same(theirs) < 0.1
    else:  # the same noise in every channel: equal where the channels were equal and unclipped
        flat = (img[..., 0] == img[..., 1]) & (img[..., 0] * (255 if dtype == np.float32 else 1) > 80) \
            & (img[..., 0] * (255 if dtype == np.float32 else 1) < 175)
        assert (ours[..., 0] == ours[..., 1])[flat].mean() > 0.99


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_gauss_noise_without_deviation_is_albumentations_exactly(dtype, queue):
    """std 0: the mean alone, added as albumentations adds it (uint8: 0.1 * 255 = 25.5
    truncated to 25, negative means truncated toward zero; uint16: the sum rounded to nearest
    even, as OpenCV's add: 0.1 * 65535 = 6553.5 on an odd level rounds up), clipped."""
    img = _image(np.uint8).astype(np.uint16) * 257 if dtype == np.uint16 else _image(dtype)
    for mean in (0.1, -0.137):
        kw = dict(std_range=(0, 0), mean_range=(mean, mean), p=1)
        ours = W.Compose([W.GaussNoise(**kw)])(image=img, seed=0, queue=queue)["image"]
        theirs = _albu(A.GaussNoise(**kw), image=img)["image"]
        np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64),
                                   atol=1e-6 if dtype == np.float32 else 0)


def test_gauss_noise_is_the_documented_generator(queue):
    """Each pixel's normals are Box-Muller on the Philox block of (x, y) under the recorded
    key, the same for a sample alone and in any batch, and the recorded params replay it."""
    img = np.full((37, 45, 3), 0.5, np.float32)
    pipe = W.Compose([W.GaussNoise(std_range=(0.1, 0.1), p=1)])
    out = pipe(image=img, seed=11, index=5, queue=queue)
    k = out["params"]["steps"][0]["key"]
    key = kernel_key(k)
    y, x = np.mgrid[0:37, 0:45]
    w = philox4x32(x.ravel(), y.ravel(), 0, key)  # (Random123's: test_pixel_dropout.py)
    u = [((v >> np.uint64(8)) + np.uint64(1)).astype(np.float64) / 2**24 for v in w]
    r0, r1 = np.sqrt(-2 * np.log(u[0])), np.sqrt(-2 * np.log(u[2]))
    z = np.stack([r0 * np.cos(2 * np.pi * u[1]), r0 * np.sin(2 * np.pi * u[1]),
                  r1 * np.cos(2 * np.pi * u[3])], -1).reshape(37, 45, 3)
    want = np.clip(0.5 + 0.1 * z, 0, 1)
    np.testing.assert_allclose(out["image"], want, atol=2e-5)
    assert_sample_5_replays(pipe, img, out, queue)


def test_gauss_noise_scale_factor_coarsens_the_grain_as_albumentations(queue):
    """noise_scale_factor 0.25: neighbours correlated as in albumentations' resized noise,
    with the same deviation as its linear resize leaves."""
    img = np.full((256, 256, 3), 0.5, np.float32)
    kw = dict(std_range=(0.1, 0.1), noise_scale_factor=0.25, p=1)
    ours = W.Compose([W.GaussNoise(**kw)])(image=img, seed=2, queue=queue)["image"] - 0.5
    theirs = _albu(A.GaussNoise(**kw), image=img)["image"] - 0.5

    def corr(d):
        return np.corrcoef(d[:, :-1, 0].ravel(), d[:, 1:, 0].ravel())[0, 1]

    assert abs(corr(ours) - corr(theirs)) < 0.05 and corr(ours) > 0.8
    assert abs(ours.std() - theirs.std()) < 0.1 * theirs.std()


def _holes(out) -> np.ndarray:
    return np.asarray(out["params"]["steps"][0]["holes"]).reshape(-1, 4)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_coarse_dropout_is_albumentations_with_the_recorded_holes(dtype, queue):
    """Image and mask pixel for pixel as albumentations' own dropout of the same holes; boxes
    kept, dropped and shrunk as its filter; keypoints in a hole gone (or invisible)."""
    def make(fill):
        return (W.CoarseDropout(num_holes_range=(4, 8), hole_height_range=(0.05, 0.25),
                                hole_width_range=(0.05, 0.25), fill=fill, fill_mask=7, p=1),
                A.CoarseDropout(fill=fill, fill_mask=7, p=1))

    boxes = np.array([[10, 10, 200, 200], [300, 300, 400, 480], [50, 250, 120, 300],
                      [220, 40, 260, 90]], np.float32)
    outs, moved = dropout_runs(make, dtype, queue, range(6), 0.3, boxes)
    assert all(4 <= len(_holes(out)) <= 8 for out in outs)
    assert moved  # some seed cut a box
    kps = np.random.default_rng(0).uniform(0, 511, (300, 2))
    vis = W.Compose([make(0)[0]], remove_invisible=False)(image=_image(dtype), keypoints=kps,
                                                          seed=1, queue=queue)
    holes = _holes(vis)
    inside = ((kps[:, None, 0] + 0.5 >= holes[:, 0]) & (kps[:, None, 0] + 0.5 < holes[:, 2])
              & (kps[:, None, 1] + 0.5 >= holes[:, 1]) & (kps[:, None, 1] + 0.5 < holes[:, 3]))
    np.testing.assert_array_equal(vis["keypoints_visible"], ~inside.any(1))


def test_coarse_dropout_pixel_ranges_as_albumentations_reads_them(queue):
    """A range whose top is 1 or more is pixels even where its ends are not whole
    (albumentations' (0.01, 1.0): holes of 0 or 1 pixel; (0.5, 2.7): 0, 1 or 2), drawn from
    int(low) to int(high); a hole of 0 pixels leaves the image as it was; the port takes it."""
    img = _image(np.uint8)
    t = W.CoarseDropout(num_holes_range=(6, 6), hole_height_range=(0.01, 1.0),
                        hole_width_range=(0.5, 2.7), fill=0, p=1)
    heights, widths = set(), set()
    for seed in range(8):
        out = W.Compose([t])(image=img, seed=seed, queue=queue)
        holes = _holes(out)
        heights |= set((holes[:, 3] - holes[:, 1]).tolist())
        widths |= set((holes[:, 2] - holes[:, 0]).tolist())
        want = img.copy()
        for x1, y1, x2, y2 in holes:
            want[y1:y2, x1:x2] = 0
        np.testing.assert_array_equal(out["image"], want)
    assert heights == {0, 1} and widths == {0, 1, 2}
    ported = W.from_albumentations(A.Compose([A.CoarseDropout(
        hole_height_range=(0.01, 1.0), hole_width_range=(0.01, 1.0), p=1)]))
    assert ported.transforms[0].hole_height_range == (0.01, 1.0)


def test_dropout_random_fills(queue):
    """'random': a level per pixel and channel inside the hole (the rest untouched);
    'random_uniform': one colour per hole; both replay from the recorded params."""
    for dtype in (np.uint8, np.float32):
        img = _image(dtype)
        for fill in ("random", "random_uniform"):
            pipe = W.Compose([W.Erasing(scale=(0.1, 0.1), ratio=(1, 1), fill=fill, p=1)])
            out = pipe(image=img, seed=3, queue=queue)
            (x1, y1, x2, y2), = _holes(out)
            hole = out["image"][y1:y2, x1:x2].astype(np.float64)
            rest = out["image"].copy()
            rest[y1:y2, x1:x2] = img[y1:y2, x1:x2]
            np.testing.assert_array_equal(rest, img)
            peak = 255 if dtype == np.uint8 else 1
            assert hole.min() >= 0 and hole.max() <= peak
            if fill == "random":
                assert hole.std() > 0.25 * peak  # uniform: 0.29 of the range
                assert abs(hole.mean() - peak / 2) < 0.05 * peak
            else:
                assert (hole == hole[0, 0]).all() and hole[0, 0].std() > 0
            again = pipe(image=img, params=out["params"], queue=queue)["image"]
            np.testing.assert_array_equal(again, out["image"])


def test_erasing_draws_as_albumentations():
    """Erasing's rectangle: an area in scale's range and a ratio in ratio's, fitting the
    image (albumentations' derivation), or none where no rectangle can."""
    t = W.Erasing(scale=(0.02, 0.33), ratio=(0.3, 3.3), p=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        (x1, y1, x2, y2), = t.draw(rng, (160, 90))["holes"]
        w, h = x2 - x1, y2 - y1
        assert 0 <= x1 and x2 <= 160 and 0 <= y1 and y2 <= 90
        assert 0.02 * 0.9 <= w * h / (160 * 90) <= 0.33 * 1.1
        assert 0.3 * 0.8 <= w / h <= 3.3 * 1.25
    assert W.Erasing(scale=(0.9, 1.0), ratio=(3, 4), p=1).draw(rng, (50, 50))["holes"] == []


def test_dropout_with_geometry_and_the_model_input_in_a_batch(queue):
    """Holes made on the output of a crop in a ragged batch, then normalised into float CHW in
    the same pass: the normalised uint8 result with the holes; each sample as alone."""
    photos = [PHOTO, skimage.data.coffee(), skimage.data.chelsea()]
    geo = [W.RandomResizedCrop(96), W.RandomHorizontalFlip()]
    drop = W.CoarseDropout(num_holes_range=(2, 3), fill=(255, 0, 0), p=1)
    mean, std = [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]
    model = dict(output_dtype="float32", mean=mean, std=std, layout="CHW")
    got = W.Compose(geo + [drop], **model)(image=photos, seed=9, queue=queue)
    plain = W.Compose(geo)(image=photos, seed=9, queue=queue)["image"]
    for k in range(3):
        holed = AD.cutout(plain[k], np.asarray(got["params"][k]["steps"][2]["holes"]),
                                   (255, 0, 0), np.random.default_rng(0))
        want = ((holed / 255.0 - mean) / std).transpose(2, 0, 1)
        np.testing.assert_allclose(got["image"][k], want, atol=1e-5)
        alone = W.Compose(geo + [drop], **model)(image=photos[k], seed=9, index=k,
                                                  queue=queue)["image"]
        np.testing.assert_array_equal(alone, got["image"][k])


def test_holes_scale_to_an_output_of_another_size(queue):
    """A dropout before a resize: its holes, drawn on the input, land on the output scaled
    (edges rounded), in the image and the mask alike."""
    img = np.full((100, 200, 3), 9, np.uint8)
    mask = np.zeros((100, 200), np.uint8)
    pipe = W.Compose([W.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(20, 20),
                                      hole_width_range=(30, 30), fill=200, fill_mask=1, p=1),
                      W.Resize((25, 50))])
    out = pipe(image=img, mask=mask, seed=0, queue=queue)
    x1, y1, x2, y2 = _holes(out)[0]
    want = np.zeros((25, 50), bool)
    want[int(np.floor(y1 / 4 + 0.5)):int(np.floor(y2 / 4 + 0.5)),
         int(np.floor(x1 / 4 + 0.5)):int(np.floor(x2 / 4 + 0.5))] = True
    np.testing.assert_array_equal(out["image"][..., 0] == 200, want)
    np.testing.assert_array_equal(out["mask"] == 1, want)


@pytest.mark.parametrize("shape", [(60, 70), (60, 70, 2), (60, 70, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_other_channel_counts_and_dtypes(shape, dtype, queue):
    """Gray, two-channel and RGBA images, uint8, uint16 and float32: dropout pixel for pixel
    as albumentations' own (a fill per channel), the noise's law in the image's units (uint16:
    levels of 65535, truncated toward zero as uint8)."""
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    rng = np.random.default_rng(0)
    img = (rng.uniform(0.3, 0.7, shape) * peak).astype(dtype)
    channels = shape[2] if len(shape) == 3 else 1
    fill = [peak * (k + 1) / 8 for k in range(channels)]
    fill = [dtype(v) for v in fill] if dtype != np.float32 else fill
    fill = [float(v) for v in fill]
    out = W.Compose([W.CoarseDropout(num_holes_range=(3, 3), fill=fill if channels > 1 else fill[0],
                                     p=1)])(image=img, seed=1, queue=queue)
    holes = _holes(out)
    want = AD.cutout(img, holes, tuple(fill) if channels > 1 else fill[0], np.random.default_rng(0))
    np.testing.assert_array_equal(out["image"], want)
    noisy = W.Compose([W.GaussNoise(std_range=(0.05, 0.05), p=1)])(image=img, seed=2,
                                                                    queue=queue)["image"]
    assert noisy.shape == img.shape and noisy.dtype == img.dtype
    added = noisy.astype(np.float64) - img
    # 0.05 of the peak, truncated for integers (which loses ~0.3 of a level in deviation only
    # at uint8 scale: within 2%)
    assert abs(added.std() / (0.05 * peak) - 1) < 0.03 and abs(added.mean()) < 0.01 * peak
    if channels > 1:  # per channel: the channels' noise differs
        assert not np.array_equal(added[..., 0], added[..., 1])


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Noise (fine and coarse grids, per channel or not) and holes (constant and random fills)
    after a rotation, on each device CI runs and on Oclgrind: the same numbers as the default
    device (the generator is integer arithmetic; Box-Muller within float rounding). Noise and
    holes share builds (each case a build of its own per dtype: Intel's runtime compiles
    these for 15 s each)."""
    img = PHOTO[100:117, 200:219].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.GaussNoise(p=1), W.CoarseDropout(num_holes_range=(2, 2), hole_height_range=(3, 6),
                                                 hole_width_range=(3, 6), fill=(5, 6, 7), p=1)],
             [W.GaussNoise(per_channel=False, noise_scale_factor=0.3, p=1),
              W.Erasing(scale=(0.1, 0.2), fill="random", p=1)]]
    check_small_cases(img, geo, cases, small_queue)


def test_serialised_and_ported():
    """to_dict / from_dict keep the parameters; from_albumentations maps albumentations' own."""
    ts = [W.GaussNoise(std_range=(0.1, 0.3), mean_range=(-0.1, 0.1), per_channel=False,
                       noise_scale_factor=0.5, p=0.3),
          W.CoarseDropout(num_holes_range=(2, 5), hole_height_range=(8, 16),
                          hole_width_range=(4, 32), fill="random_uniform", fill_mask=3),
          W.Erasing(scale=(0.1, 0.2), ratio=(0.5, 2), fill=[1, 2, 3], p=0.7)]
    for t in ts:
        back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
        assert repr(back) == repr(t) and back.config() == t.config()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.GaussNoise(std_range=(0.1, 0.3), mean_range=(-0.1, 0.1),
                                         per_channel=False, noise_scale_factor=0.5, p=0.3),
                            A.CoarseDropout(num_holes_range=(2, 5), hole_height_range=(8, 16),
                                            hole_width_range=(4, 32), fill="random_uniform",
                                            fill_mask=3, p=0.5),
                            A.Erasing(scale=(0.1, 0.2), ratio=(0.5, 2), fill=(1, 2, 3), p=0.7)])
    ported = W.from_albumentations(theirs)
    assert [t.config() for t in ported.transforms] == [t.config() for t in ts]
    assert [t.p for t in ported.transforms] == [t.p for t in ts]


def test_refused_arguments(queue):
    with pytest.raises(ValueError, match="CoarseDropout's fill must be.*inpaint_telea or "
                                         "inpaint_ns, got 'inpaint'"):
        W.CoarseDropout(fill="inpaint")
    with pytest.raises(ValueError, match="Erasing's fill_mask must be None.*'random'"):
        W.Erasing(fill_mask="random")
    with pytest.raises(ValueError, match="noise_scale_factor must be in \\(0, 1\\], got 0"):
        W.GaussNoise(noise_scale_factor=0)
    with pytest.raises(ValueError, match="std_range"):
        W.GaussNoise(std_range=(0.1, 2))
    with pytest.raises(ValueError, match="both be fractions"):
        W.CoarseDropout(hole_height_range=(0.1, 0.2), hole_width_range=(4, 8))
    with pytest.raises(ValueError, match="num_holes_range must be whole"):
        W.CoarseDropout(num_holes_range=(1.5, 2))
    with pytest.raises(ValueError, match="fill has 2 values for an image of 3 channels"):
        W.Compose([W.Erasing(fill=[1, 2], p=1)])(image=PHOTO, seed=0, queue=queue)
    drop = W.Compose([W.CoarseDropout(num_holes_range=(1, 1), fill_mask=(1, 2), p=1)])
    with pytest.raises(ValueError, match="fill_mask has 2 values for a mask of 1 channels"):
        drop(image=PHOTO, mask=np.zeros(PHOTO.shape[:2], np.uint8), seed=0, queue=queue)
    import pyopencl.array as cla
    device_mask = cla.to_device(queue, np.zeros(PHOTO.shape[:2], np.uint8))
    with pytest.raises(ValueError, match="fill_mask fills masks held on the host.*got Array"):
        W.Compose([W.CoarseDropout(fill_mask=1, p=1)])(image=PHOTO, mask=device_mask, seed=0,
                                                       queue=queue)
    with pytest.raises(TypeError, match="GaussNoise takes images of at most 4 channels"):
        W.GaussNoise(p=1).colour_ops({"std": 0.1, "mean": 0, "key": [0, 0, 0]}, 5, 255.0)
    with pytest.raises(ValueError, match="MaskDropout.*albumentations 2.0.8 fails with it"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            W.from_albumentations(A.Compose([A.MaskDropout(fill="inpaint_telea")]))


def test_holes_inside_oneof_and_nested_pipelines(queue):
    """A dropout chosen by a OneOf inside a nested Compose fills the mask and hides keypoints
    as at the top level (the holes come from each applied step, at any depth)."""
    img = np.full((40, 50, 3), 9, np.uint8)
    drop = W.CoarseDropout(num_holes_range=(2, 2), hole_height_range=(10, 10),
                           hole_width_range=(10, 10), fill=200, fill_mask=5, p=1)
    pipe = W.Compose([W.Compose([W.OneOf([drop], p=1)])], remove_invisible=False)
    kps = np.stack(np.meshgrid(np.arange(50.0), np.arange(40.0)), -1).reshape(-1, 2)
    out = pipe(image=img, mask=np.zeros((40, 50), np.uint8), keypoints=kps, seed=0, queue=queue)
    holes = out["params"]["steps"][0]["steps"][0]["params"]["holes"]
    assert len(holes) == 2
    filled = out["image"][..., 0] == 200
    np.testing.assert_array_equal(out["mask"] == 5, filled)
    # a keypoint at a pixel centre is hidden exactly where that pixel was filled
    np.testing.assert_array_equal(~out["keypoints_visible"], filled.ravel())
