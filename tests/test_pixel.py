"""albumentations' other pixel transforms in the warp's pass (warpkit.augment._pixel:
ChannelDropout, MultiplicativeNoise, PlanckianJitter, ToSepia, RandomToneCurve) against
albumentations 2.0.8 itself, given warpkit's recorded parameters, on scikit-image's photos in
uint8 and float32; their draws; the port of them, SquareSymmetry and ToFloat; refusals."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._philox import kernel_key, philox4x32, unit
from warpkit.augment._pixel import PLANCKIAN_COEFFS, planckian_factors

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.pixel import functional as AF
    import skimage.data

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()[:, :449]]
DTYPES = [np.uint8, np.float32]


def _image(photo: np.ndarray, dtype) -> np.ndarray:
    return photo if dtype == np.uint8 else photo.astype(np.float32) / 255


def _albu(t, image: np.ndarray, **fixed) -> np.ndarray:
    """albumentations' transform ``t`` on ``image`` with these parameters (warpkit's record)."""
    if fixed:
        t.get_params = lambda: {}
        t.get_params_dependent_on_data = lambda params, data: dict(fixed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t(image=image)["image"]


def _levels(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) * (255.0 if x.dtype == np.float32 else 1.0)


def _same(got: np.ndarray, want: np.ndarray, most: float = 1.0) -> None:
    """The same levels (float images within float32's rounding of them); ``most`` < 1: within
    one level, the same level on that share of the pixels."""
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(_levels(got) - _levels(want))
    if most == 1.0:
        assert diff.max() <= 1e-3, (diff.max(), (diff > 1e-3).mean())
    else:
        assert diff.max() <= 1.0 + 1e-3
        assert (diff > 1e-3).mean() <= 1 - most, (diff > 1e-3).mean()


def _run(t, img, seed=0, queue=None, **kw):
    out = W.Compose([t], **kw)(image=img, seed=seed, queue=queue)
    return out["image"], out["params"]["steps"][0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_sepia_is_albumentations(dtype, queue):
    """uint8 in OpenCV's 10-bit fixed point: every level the same; a gray image stays."""
    for photo in PHOTOS:
        img = _image(photo, dtype)
        got, _ = _run(W.ToSepia(p=1), img, queue=queue)
        _same(got, _albu(A.ToSepia(p=1), img))
    gray = _image(PHOTOS[0][..., :1], dtype)
    got, _ = _run(W.ToSepia(p=1), gray, queue=queue)
    np.testing.assert_array_equal(got, gray)


def test_to_sepia_fixed_point_is_opencvs_on_every_colour(queue):
    """All 2^24 colours through the kernel against cv2.transform (which albumentations calls)."""
    import cv2

    v = np.arange(1 << 24, dtype=np.uint32)
    img = np.stack([v >> 16, (v >> 8) & 255, v & 255], -1).astype(np.uint8).reshape(4096, 4096, 3)
    got, _ = _run(W.ToSepia(p=1), img, queue=queue)
    np.testing.assert_array_equal(got, cv2.transform(img, np.array(W._pixel.SEPIA)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("per_channel", [False, True])
def test_multiplicative_noise_is_albumentations(per_channel, dtype, queue):
    for k, photo in enumerate(PHOTOS):
        img = _image(photo, dtype)
        got, q = _run(W.MultiplicativeNoise((0.5, 1.6), per_channel=per_channel, p=1), img,
                      seed=k, queue=queue)
        m = np.float32(q["multiplier"][:3] if per_channel else q["multiplier"][0])
        assert len(q["multiplier"]) == (4 if per_channel else 1)
        _same(got, _albu(A.MultiplicativeNoise(per_channel=per_channel, p=1), img,
                         multiplier=m))


def _factors(q: dict, shape: tuple, lo: float, hi: float, per_channel: bool) -> np.ndarray:
    """MultiplicativeNoise(elementwise=True)'s factors at each pixel of an output of ``shape``
    (H, W, C), from the kernel's generator on the host (warpkit.augment._philox): the uniform
    numbers of the pixel's Philox block (channel c's word, or word 0 for every channel), as
    albumentations' float32 multiplier array."""
    h, w, c = shape
    yy, xx = np.mgrid[0:h, 0:w]
    words = philox4x32(xx.ravel(), yy.ravel(), 0, kernel_key(q["key"]))
    u = [unit(words[k if per_channel else 0]) for k in range(c)]
    return (lo + (hi - lo) * np.stack(u, -1).reshape(h, w, c)).astype(np.float32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("per_channel", [False, True])
def test_multiplicative_noise_elementwise_is_albumentations(per_channel, dtype, queue):
    """A factor per pixel: albumentations given the factors the kernel drew (computed again
    on the host from the recorded key), on photos of 3 channels, gray and 4 channels: uint8
    within one level (a product at a level's edge may fall either side by the float32
    rounding of the factor), the same level on 99.9% of pixels; float32 within float32's
    rounding. albumentations' own draws give the same law: the mean and spread of the change."""
    lo, hi = 0.5, 1.6
    t = W.MultiplicativeNoise((lo, hi), per_channel=per_channel, elementwise=True, p=1)
    assert not t.commutes and W.MultiplicativeNoise().commutes
    images = [_image(p, dtype) for p in PHOTOS]
    images += [images[0][..., 0], np.dstack([images[1], images[1][..., :1]])]
    for k, img in enumerate(images):
        got, q = _run(t, img, seed=k, queue=queue)
        assert set(q) == {"applied", "key"}
        shape = img.shape if img.ndim == 3 else (*img.shape, 1)
        m = _factors(q, shape, lo, hi, per_channel)
        if img.ndim == 2:
            m = m[..., 0]
        _same(got, _albu(A.MultiplicativeNoise((lo, hi), per_channel, True, p=1), img,
                         multiplier=m), most=0.999 if dtype == np.uint8 else 1.0)
        assert m.min() >= lo and m.max() < hi and abs(m.mean() - (lo + hi) / 2) < 0.01
        theirs = _albu(A.MultiplicativeNoise((lo, hi), per_channel, True, p=1), img)
        ours_d, theirs_d = _levels(got) - _levels(img), _levels(theirs) - _levels(img)
        assert abs(ours_d.mean() - theirs_d.mean()) < 1.0, (ours_d.mean(), theirs_d.mean())
        assert abs(ours_d.std() / theirs_d.std() - 1) < 0.02
        if per_channel and img.ndim == 3:  # the channels' factors differ, else they agree
            assert np.corrcoef(m[..., 0].ravel(), m[..., 1].ravel())[0, 1] < 0.05
        elif img.ndim == 3:
            assert (m == m[..., :1]).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["blackbody", "cied"])
def test_planckian_jitter_is_albumentations(mode, dtype, queue):
    """Drawn temperatures, and the table's ends and a point between its entries."""
    img = _image(PHOTOS[1], dtype)
    t = W.PlanckianJitter(mode, p=1)
    temps = [_run(t, img, seed=s, queue=queue)[1]["temperature"] for s in range(4)]
    for temperature in temps + [min(PLANCKIAN_COEFFS[mode]), 15000, 6250, 7777]:
        got = W.Compose([t])(image=img, queue=queue,
                             params=_replay(t, img, {"temperature": temperature}))["image"]
        _same(got, _albu(A.PlanckianJitter(mode=mode, p=1), img, temperature=temperature))


def _replay(t, img, q: dict) -> dict:
    """A pipeline of ``t`` alone's recorded parameters, with ``t``'s own replaced by ``q``."""
    params = W.Compose([t]).sample(img.shape[:2], seed=0)
    params["steps"][0] = {**params["steps"][0], **q}
    return params


@pytest.mark.parametrize("dtype", DTYPES)
def test_channel_dropout_is_albumentations(dtype, queue):
    """The recorded count and keys choose the channels; 3 and 4 channels; a fill."""
    for k, photo in enumerate(PHOTOS):
        for channels, drop in ((3, (1, 2)), (4, (1, 3))):
            img = _image(np.dstack([photo, photo[..., :1]])[..., :channels], dtype)
            fill = 0.3 if dtype == np.float32 else 77
            got, q = _run(W.ChannelDropout(drop, fill=fill, p=1), img, seed=k, queue=queue)
            chosen = np.argsort(q["keys"][:channels], kind="stable")[:q["count"]].tolist()
            assert drop[0] <= len(chosen) <= drop[1]
            _same(got, _albu(A.ChannelDropout(drop, fill=fill, p=1), img,
                             channels_to_drop=chosen))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("per_channel", [False, True])
def test_random_tone_curve_is_albumentations(per_channel, dtype, queue):
    """The curve per pixel in float32 against albumentations' table in double: within one
    level, the same level almost everywhere (here: everywhere, for these draws)."""
    for k, photo in enumerate(PHOTOS):
        img = _image(photo, dtype)
        got, q = _run(W.RandomToneCurve(0.3, per_channel=per_channel, p=1), img, seed=k,
                      queue=queue)
        if per_channel:
            lo, hi = np.array(q["low_y"][:3]), np.array(q["high_y"][:3])
        else:
            lo, hi = q["low_y"][0], q["high_y"][0]
        _same(got, _albu(A.RandomToneCurve(per_channel=per_channel, p=1), img, low_y=lo,
                         high_y=hi), most=0.999)


def test_tone_curve_levels_match_albumentations_tables(queue):
    """Every level through 200 drawn curves: albumentations' tables (rint in double) and the
    kernel's float32 curve agree on all but levels within a hair of a half."""
    ramp = np.arange(256, dtype=np.uint8).reshape(16, 16, 1)
    t = W.RandomToneCurve(0.4, p=1)
    off = 0
    for s in range(200):
        got, q = _run(t, ramp, seed=s, queue=queue)
        want = AF.move_tone_curve(ramp, q["low_y"][0], q["high_y"][0])
        diff = np.abs(got.astype(int) - want.reshape(got.shape).astype(int))
        assert diff.max() <= 1
        off += int((diff > 0).sum())
    assert off <= 10, off  # of 51200 levels


def test_draws_follow_albumentations_distributions():
    n = 4000
    pipe = W.Compose([W.PlanckianJitter(p=1)])
    temps = np.array([pipe.sample((8, 8), seed=1, index=i)["steps"][0]["temperature"]
                      for i in range(n)])
    assert temps.min() >= 3000 and temps.max() <= 15000
    assert abs((temps < 6000).mean() - 0.4) < 0.03  # albumentations' split at the white point
    gauss = W.Compose([W.PlanckianJitter("cied", (4000, 12000), "gaussian", p=1)])
    temps = np.array([gauss.sample((8, 8), seed=2, index=i)["steps"][0]["temperature"]
                      for i in range(n)])
    below = temps[temps < 6000]
    assert temps.min() >= 4000 and temps.max() <= 12000
    # a half-normal of deviation (6000 - 4000) / 3 below the white point
    assert abs(np.sqrt(np.mean((6000.0 - below) ** 2)) - 2000 / 3) < 40
    curve = W.Compose([W.RandomToneCurve(0.1, p=1)])
    lows = np.array([curve.sample((8, 8), seed=3, index=i)["steps"][0]["low_y"][0]
                     for i in range(n)])
    assert abs(lows.mean() - 0.25) < 0.01 and abs(lows.std() - 0.1) < 0.01
    drop = W.Compose([W.ChannelDropout((1, 2), p=1)])
    counts, first = [], []
    for i in range(n):
        q = drop.sample((8, 8), seed=4, index=i)["steps"][0]
        counts.append(q["count"])
        first.append(int(np.argmin(q["keys"][:3])))
    assert set(counts) == {1, 2} and abs(np.mean(counts) - 1.5) < 0.05
    assert np.allclose(np.bincount(first) / n, 1 / 3, atol=0.03)  # each channel as likely


def test_planckian_factors_are_albumentations():
    """The interpolated factors against albumentations' own function on a unit image."""
    one = np.ones((1, 1, 3), np.float32) / 4
    for mode in PLANCKIAN_COEFFS:
        for t in (3000, 4000, 4321, 6000, 9999, 14999, 15000):
            if t < min(PLANCKIAN_COEFFS[mode]):
                continue
            r, b = planckian_factors(t, mode)
            got = AF.planckian_jitter(one, t, mode)[0, 0]
            np.testing.assert_allclose(got, [min(r / 4, 1), 0.25, min(b / 4, 1)], rtol=1e-6)


def test_targets_untouched_and_batches_are_samples(queue):
    """In a batch with geometry, each sample as alone; masks and boxes as without colour."""
    rs = np.random.default_rng(0)
    imgs = [rs.integers(0, 256, (int(rs.integers(30, 60)), int(rs.integers(30, 60)), 3),
                        dtype=np.uint8) for _ in range(6)]
    masks = [(im[..., 0] > 128).astype(np.uint8) for im in imgs]
    colour = [W.ChannelDropout(p=0.5), W.MultiplicativeNoise((0.7, 1.3), True, p=0.5),
              W.MultiplicativeNoise((0.8, 1.2), True, True, p=0.5),
              W.PlanckianJitter(p=0.5), W.ToSepia(p=0.5), W.RandomToneCurve(0.2, p=0.5)]
    geo = [W.RandomResizedCrop(24), W.SquareSymmetry()]
    pipe = W.Compose(geo + colour)
    batch = pipe(image=imgs, mask=masks, seed=3, queue=queue)
    plain = W.Compose(geo)(image=imgs, mask=masks, seed=3, queue=queue)
    for i, im in enumerate(imgs):
        alone = pipe(image=im, mask=masks[i], seed=3, index=i, queue=queue)
        np.testing.assert_array_equal(batch["image"][i], alone["image"])
        np.testing.assert_array_equal(batch["mask"][i], plain["mask"][i])
    # replayed from the record, and through to_dict / from_dict
    again = W.Compose.from_dict(pipe.to_dict())(image=imgs, params=batch["params"],
                                                queue=queue)
    np.testing.assert_array_equal(again["image"], batch["image"])


def test_from_albumentations_ports_them(queue, tmp_path):
    """A recipe of them with SquareSymmetry and ToFloat: albumentations' result, given the same
    symmetry and parameters."""
    img = PHOTOS[0]
    recipe = A.Compose([A.SquareSymmetry(p=1), A.ToSepia(p=1),
                        A.MultiplicativeNoise((1.2, 1.2), p=1),
                        A.PlanckianJitter(temperature_limit=(5000, 9000), p=1),
                        A.RandomToneCurve(0.0, p=1), A.ChannelDropout(fill=12, p=0),
                        A.ToFloat()])
    ours = W.from_albumentations(recipe)
    assert [type(t).__name__ for t in ours.transforms] == [
        "SquareSymmetry", "ToSepia", "MultiplicativeNoise", "PlanckianJitter", "RandomToneCurve",
        "ChannelDropout"]
    assert ours.output_dtype == "float32"
    out = ours(image=img, seed=0, queue=queue)
    steps = out["params"]["steps"]
    element, temperature = steps[0]["element"], steps[3]["temperature"]
    theirs = A.Compose([A.SquareSymmetry(p=1), A.ToSepia(p=1),
                        A.MultiplicativeNoise((1.2, 1.2), p=1), A.PlanckianJitter(p=1),
                        A.RandomToneCurve(0.0, p=1), A.ToFloat()])
    d4, pj = theirs.transforms[0], theirs.transforms[3]
    d4.get_params = lambda: {"group_element": element}
    pj.get_params = lambda: {"temperature": temperature}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = theirs(image=img)["image"]
    assert out["image"].dtype == want.dtype == np.float32
    np.testing.assert_allclose(out["image"], want, atol=1e-6)
    # a factor per pixel ports as it is
    each = W.from_albumentations(A.Compose([A.MultiplicativeNoise((0.7, 1.4), True, True,
                                                                  p=0.3)]))
    assert each.transforms[0].config() == {"multiplier": [0.7, 1.4], "per_channel": True,
                                           "elementwise": True}
    assert each.transforms[0].p == 0.3
    # the JSON file albumentations saves
    path = tmp_path / "recipe.json"
    A.save(recipe, str(path))
    assert W.from_albumentations(str(path)).to_dict() == ours.to_dict()


def test_to_float_ports_as_the_models_input():
    assert W.from_albumentations(A.Compose([A.ToFloat(max_value=255)])).std == [1.0]
    assert W.from_albumentations(A.Compose([A.ToFloat(max_value=1000)])).max_pixel_value == \
        {"uint8": 1000, "uint16": 1000, "int32": 1000}
    for bad, why in ((A.Compose([A.ToFloat(max_value=-1)]), "max_value"),
                     (A.Compose([A.ToFloat(p=0.5)]), "p < 1"),
                     (A.Compose([A.ToFloat(), A.Normalize()]), "after ToFloat"),
                     (A.Compose([A.ToFloat(), A.ToSepia()]), "ToSepia after ToFloat")):
        with pytest.raises(ValueError, match=why):
            W.from_albumentations(bad)


def test_refusals_name_the_argument(queue):
    rgb = np.zeros((8, 8, 3), np.uint8)
    cases = [
        (lambda: W.MultiplicativeNoise(elementwise=2), ValueError, "elementwise"),
        (lambda: _run(W.MultiplicativeNoise(elementwise=True, p=1),
                      np.zeros((8, 8, 5), np.uint8), queue=queue), TypeError,
         "at most 4 channels"),
        (lambda: _run(W.MultiplicativeNoise(elementwise=True, p=1), rgb.astype(np.uint16),
                      queue=queue), TypeError, "uint8 or float32"),
        (lambda: W.ChannelDropout((0, 1)), ValueError, "channel_drop_range"),
        (lambda: W.ChannelDropout((1.5, 2)), ValueError, "whole numbers"),
        (lambda: W.PlanckianJitter("sunset"), ValueError, "mode"),
        (lambda: W.PlanckianJitter(sampling_method="beta"), ValueError, "sampling_method"),
        (lambda: W.PlanckianJitter(temperature_limit=(7000, 9000)), ValueError, "white point"),
        (lambda: W.PlanckianJitter("cied", (3000, 9000)), ValueError, "temperature_limit"),
        (lambda: W.RandomToneCurve(scale=2), ValueError, "scale"),
        (lambda: _run(W.ChannelDropout(p=1), rgb[..., :1], queue=queue), TypeError,
         "2 or more channels"),
        (lambda: _run(W.ChannelDropout((1, 3), p=1), rgb, queue=queue), ValueError,
         "all 3 channels"),
        (lambda: _run(W.ChannelDropout(fill=300, p=1), rgb, queue=queue), ValueError, "fill"),
        (lambda: _run(W.ToSepia(p=1), np.zeros((8, 8, 4), np.uint8), queue=queue), TypeError,
         "1 or 3 channels"),
        (lambda: _run(W.ToSepia(p=1), rgb.astype(np.uint16), queue=queue), TypeError,
         "uint8 or float32"),
        (lambda: _run(W.RandomToneCurve(p=1), rgb.astype(np.uint16), queue=queue), TypeError,
         "uint8 or float32"),
        (lambda: _run(W.PlanckianJitter(p=1), rgb[..., :2], queue=queue), TypeError,
         "3 channels"),
        (lambda: _run(W.PlanckianJitter(p=1), rgb.astype(np.uint16), queue=queue), TypeError,
         "uint8 or float32"),
        (lambda: _run(W.MultiplicativeNoise(p=1), rgb.astype(np.uint16), queue=queue),
         TypeError, "uint8 or float32"),
    ]
    for call, err, match in cases:
        with pytest.raises(err, match=match):
            call()


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Each transform through both kernels (8-wide, uint8 and float32; the one-pixel kernel
    under cubic) after a rotation, on each device CI runs and on Oclgrind (every access
    checked): albumentations on the same device's geometric result, with the recorded
    parameters."""
    img = PHOTOS[1][100:117, 200:219].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))

    def theirs(t, q):
        if isinstance(t, W.ToSepia):
            return A.ToSepia(p=1), {}
        if isinstance(t, W.MultiplicativeNoise) and t.elementwise:
            return A.MultiplicativeNoise(per_channel=True, elementwise=True, p=1), {
                "multiplier": _factors(q, (13, 21, 3), *t.multiplier, True)}
        if isinstance(t, W.MultiplicativeNoise):
            return A.MultiplicativeNoise(per_channel=True, p=1), {
                "multiplier": np.float32(q["multiplier"][:3])}
        if isinstance(t, W.PlanckianJitter):
            return A.PlanckianJitter(p=1), {"temperature": q["temperature"]}
        if isinstance(t, W.ChannelDropout):
            return A.ChannelDropout((1, 2), fill=t.fill, p=1), {
                "channels_to_drop": np.argsort(q["keys"][:3], kind="stable")[:q["count"]]
                .tolist()}
        return A.RandomToneCurve(per_channel=True, p=1), {
            "low_y": np.array(q["low_y"][:3]), "high_y": np.array(q["high_y"][:3])}

    for interpolation in ("linear", "cubic"):
        for im in (img, img.astype(np.float32) / 255):
            base = W.Compose([geo], interpolation=interpolation)(
                image=im, seed=3, queue=small_queue)["image"]
            base = np.clip(base, 0, 1) if base.dtype == np.float32 else base
            fill = 0.4 if im.dtype == np.float32 else 99
            for ours in (W.ToSepia(p=1), W.MultiplicativeNoise((0.6, 1.5), True, p=1),
                         W.MultiplicativeNoise((0.6, 1.5), True, True, p=1),
                         W.PlanckianJitter(p=1), W.ChannelDropout((1, 2), fill, p=1),
                         W.RandomToneCurve(0.3, True, p=1)):
                out = W.Compose([geo, ours], interpolation=interpolation)(
                    image=im, seed=3, queue=small_queue)
                t, fixed = theirs(ours, out["params"]["steps"][1])
                want = _albu(t, base, **fixed)
                assert out["image"].shape == (13, 21, 3)
                assert np.abs(_levels(out["image"]) - _levels(want)).max() <= 1 + 1e-3, ours
