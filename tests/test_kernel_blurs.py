"""AdvancedBlur, Defocus and RingingOvershoot (warpkit.augment._filters, kernels_cl/colour.h's
WK_COL_TAPS)
against albumentations 2.0.8 itself: the kernels its own code makes from the same numbers,
images within 1 level of its apply (float32 within 2e-6), 1-4 channels and three dtypes
against OpenCV's filter2D, draws by its laws, alone and in batches, ported, refused where
warpkit cannot follow, the engine's checks of the taps, and on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._filters import (advanced_blur_kernel, bessel_j1, defocus_kernel,
                                      ringing_kernel)

from helpers import assert_alone_and_replayed, check_small_cases, warp_with_rows

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee()}


class _Fed:
    """Stands in for albumentations' generators: gives back the numbers warpkit drew, in
    albumentations' order (Python's random for the scalars, numpy's for the noise)."""

    def __init__(self, scalars, noise=None):
        self.scalars, self.noise = list(scalars), noise

    def uniform(self, a, b, size=None):
        return self.noise.reshape(size) if size is not None else self.scalars.pop(0)

    def random(self):
        return self.scalars.pop(0)

    def choice(self, seq):
        return self.scalars.pop(0)


def _their_advanced_kernel(p: dict) -> np.ndarray:
    """albumentations' own get_params fed warpkit's drawn numbers."""
    t = A.AdvancedBlur(blur_limit=(p["ksize"], p["ksize"]), p=1)
    below = p["beta"] < 1
    t.py_random = _Fed([p["sigma_x"], p["sigma_y"], p["angle"], 0.25 if below else 0.75,
                        p["beta"]])
    t.random_generator = _Fed([], np.asarray(p["noise"]))
    return t.get_params()["kernel"]


def test_kernels_are_albumentations_own():
    """The kernel from the recorded numbers is the one albumentations' own code makes from
    them (AdvancedBlur's get_params fed the same numbers); Defocus's disc blurred by OpenCV."""
    t = W.AdvancedBlur(p=1)
    for seed in range(20):
        p = t.draw(np.random.default_rng(seed), (64, 64))
        ours = advanced_blur_kernel(p["ksize"], p["sigma_x"], p["sigma_y"], p["angle"],
                                    p["beta"], p["noise"])
        np.testing.assert_allclose(ours, _their_advanced_kernel(p), rtol=1e-6, atol=1e-9)
    for radius in (1, 3, 8, 9, 12, 32):
        for alias in (0.0, 0.1, 0.5, 2.0):
            length = np.arange(-max(8, radius), max(8, radius) + 1)
            x, y = np.meshgrid(length, length)
            disc = np.array((x ** 2 + y ** 2) <= radius ** 2, dtype=np.float32)
            disc /= np.sum(disc)
            k = 3 if radius <= 8 else 5
            theirs = cv2.GaussianBlur(disc, (k, k), sigmaX=alias)
            np.testing.assert_allclose(defocus_kernel(radius, alias), theirs, rtol=2e-6,
                                       atol=1e-9)


def test_ringing_kernel_is_albumentations_own():
    """RingingOvershoot's kernel from the recorded numbers is albumentations' own (its
    get_params with a range of one size and one cutoff), its Bessel function scipy's."""
    from scipy import special

    x = np.linspace(-40, 40, 200001)
    assert np.abs(bessel_j1(x) - special.j1(x)).max() < 1e-8
    for ksize in (3, 7, 15, 31):
        for cutoff in (0.1, np.pi / 4, 1.3, np.pi):
            theirs = A.RingingOvershoot(blur_limit=(ksize, ksize), cutoff=(cutoff, cutoff),
                                        p=1).get_params()["kernel"]
            np.testing.assert_allclose(ringing_kernel(ksize, cutoff), theirs, rtol=1e-6,
                                       atol=1e-9)


def _their_image(p: dict, img: np.ndarray) -> np.ndarray:
    """albumentations' apply of one of the three filters with the recorded parameters."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "radius" in p:
            return A.Defocus(p=1).apply(img, radius=p["radius"], alias_blur=p["alias_blur"])
        if "cutoff" in p:
            t = A.RingingOvershoot(blur_limit=(p["ksize"], p["ksize"]),
                                   cutoff=(p["cutoff"], p["cutoff"]), p=1)
            return t.apply(img, kernel=t.get_params()["kernel"])
        return A.AdvancedBlur(p=1).apply(img, kernel=_their_advanced_kernel(p))


def _our_kernel(p: dict) -> np.ndarray:
    if "radius" in p:
        return defocus_kernel(p["radius"], p["alias_blur"])
    if "cutoff" in p:
        return ringing_kernel(p["ksize"], p["cutoff"])
    return advanced_blur_kernel(p["ksize"], p["sigma_x"], p["sigma_y"], p["angle"], p["beta"],
                                p["noise"])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("photo", list(PHOTOS))
def test_images_are_albumentations(photo, dtype, queue):
    """The three filters on photos, uint8 and float32: albumentations' apply of the recorded
    parameters (its kernel) within 1 level, float32 within 2e-6; some pixels changed."""
    img = PHOTOS[photo] if dtype == np.uint8 else PHOTOS[photo].astype(np.float32) / 255
    tol = 1 if dtype == np.uint8 else 2e-6
    for t in (W.AdvancedBlur(p=1), W.Defocus(p=1), W.RingingOvershoot(p=1)):
        for seed in range(3):
            out = W.Compose([t])(image=img, seed=seed, queue=queue)
            want = _their_image(out["params"]["steps"][0], img)
            assert np.abs(out["image"].astype(np.float64) - want).max() <= tol
            assert (out["image"] != img).mean() > 0.2


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_channels_dtypes_and_kernels_past_the_image(shape, dtype, queue):
    """1-4 channels, three dtypes, kernels wider than a small image (reflected as OpenCV's
    filter2D reflects them): OpenCV's filter2D with the recorded kernel, within 1 level."""
    rs = np.random.default_rng(5)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (rs.random(shape) * peak).astype(dtype)
    tol = 2e-6 if dtype == np.float32 else 1
    for t in (W.AdvancedBlur(blur_limit=(5, 9), p=1), W.Defocus(radius=(2, 12), p=1),
              W.RingingOvershoot(blur_limit=(11, 21), p=1)):
        for seed in range(3):
            out = W.Compose([t])(image=img, seed=seed, queue=queue)
            theirs = cv2.filter2D(img, -1, _our_kernel(out["params"]["steps"][0])).reshape(shape)
            assert np.abs(out["image"].astype(np.float64) - theirs).max() <= tol


def test_draws_follow_albumentations_laws():
    """Odd sizes each as likely; deviations, angles and noise in their ranges; the shape below
    1 half the time (each side uniform); Defocus's radius over both ends, alias in range."""
    t = W.AdvancedBlur(blur_limit=(3, 7), sigma_x_limit=(0.3, 0.9), rotate_limit=45,
                       beta_limit=(0.5, 4), noise_limit=(0.8, 1.2), p=1)
    ps = [t.draw(np.random.default_rng(s), (32, 32)) for s in range(600)]
    sizes = np.bincount([p["ksize"] for p in ps], minlength=8)
    assert set(np.flatnonzero(sizes)) == {3, 5, 7} and sizes.min(initial=999) >= 0
    assert min(sizes[[3, 5, 7]]) > 150
    beta = np.array([p["beta"] for p in ps])
    assert 0.4 < (beta < 1).mean() < 0.6 and beta.min() >= 0.5 and beta.max() <= 4
    assert all(0.3 <= p["sigma_x"] <= 0.9 and -45 <= p["angle"] <= 45 for p in ps)
    noise = np.concatenate([p["noise"] for p in ps])
    assert noise.min() >= 0.8 and noise.max() <= 1.2 and abs(noise.mean() - 1) < 0.01
    d = W.Defocus(radius=(2, 5), alias_blur=(0.2, 0.4), p=1)
    qs = [d.draw(np.random.default_rng(s), (32, 32)) for s in range(300)]
    assert {q["radius"] for q in qs} == {2, 3, 4, 5}
    assert all(0.2 <= q["alias_blur"] <= 0.4 for q in qs)
    assert W.Defocus(radius=4).radius == A.Defocus(radius=4).radius == (1, 4)
    r = W.RingingOvershoot(blur_limit=(5, 9), cutoff=(0.5, 1.5), p=1)
    rs = [r.draw(np.random.default_rng(s), (32, 32)) for s in range(300)]
    assert {q["ksize"] for q in rs} == {5, 7, 9}
    assert all(0.5 <= q["cutoff"] <= 1.5 for q in rs)


def test_batches_replay_and_port(queue):
    """A ragged batch after geometry, normalised to float CHW: each sample as alone; replayed
    from the params; to_dict / from_dict and from_albumentations keep the parameters."""
    photos = list(PHOTOS.values()) + [skimage.data.chelsea()]
    pipe = W.Compose([W.RandomResizedCrop(64), W.AdvancedBlur(p=0.7), W.Defocus(p=0.7),
                      W.RandomBrightnessContrast(p=1), W.RingingOvershoot(p=0.6)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=2, queue=queue)
    assert_alone_and_replayed(pipe, photos, got, 2, queue)
    ts = [W.AdvancedBlur(blur_limit=(5, 9), sigma_x_limit=(0.1, 2), sigma_y_limit=0.7,
                         rotate_limit=20, beta_limit=(0.3, 2), noise_limit=(0.95, 1.05), p=0.3),
          W.Defocus(radius=(4, 6), alias_blur=(0.2, 0.3), p=0.6),
          W.RingingOvershoot(blur_limit=(5, 11), cutoff=(0.3, 0.9), p=0.4)]
    for t in ts:
        back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
        assert back.config() == t.config() and back.p == t.p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.AdvancedBlur(blur_limit=(5, 9), sigma_x_limit=(0.1, 2),
                                           sigma_y_limit=0.7, rotate_limit=20,
                                           beta_limit=(0.3, 2), noise_limit=(0.95, 1.05), p=0.3),
                            A.Defocus(radius=(4, 6), alias_blur=(0.2, 0.3), p=0.6),
                            A.RingingOvershoot(blur_limit=(5, 11), cutoff=(0.3, 0.9), p=0.4)])
    ported = W.from_albumentations(theirs)
    assert [t.config() for t in ported.transforms] == [t.config() for t in ts]
    assert [t.p for t in ported.transforms] == [0.3, 0.6, 0.4]


def test_refused_arguments_and_the_engines_checks(queue):
    with pytest.raises(ValueError, match="beta_limit must hold 1 inside it"):
        W.AdvancedBlur(beta_limit=(1.5, 3))
    with pytest.raises(ValueError, match="noise_limit must reach above 0"):
        W.AdvancedBlur(noise_limit=(0, 0))
    with pytest.raises(ValueError, match="sigma_x_limit and sigma_y_limit cannot both start"):
        W.AdvancedBlur(sigma_x_limit=(0, 1), sigma_y_limit=(0, 1))
    with pytest.raises(ValueError, match="blur_limit \\[3, 67\\] reaches past"):
        W.AdvancedBlur(blur_limit=(3, 67))
    with pytest.raises(ValueError, match="radius can reach 40"):
        W.Defocus(radius=(3, 40))
    with pytest.raises(ValueError, match="radius must be whole pixels"):
        W.Defocus(radius=(2.5, 4))
    with pytest.raises(ValueError, match="cutoff must be a range \\(low, high\\) within"):
        W.RingingOvershoot(cutoff=1.0)
    with pytest.raises(ValueError, match="cutoff"):
        W.RingingOvershoot(cutoff=(0.5, 4.0))
    from warpkit.engine.core import COL_DATA, COL_TAPS

    img = PHOTOS["coffee"][:20, :30].copy()

    def warp(*rows):
        return warp_with_rows(img, list(rows), queue)

    row = [COL_DATA, 0, -1, 3]  # dy 0, dx -1 .. 1
    for rows, match in [([[COL_TAPS, 0, 1, 0]], r"whole counts of rows \(>= 1, got 0\)"),
                        ([[COL_TAPS, 1, 33, 2], row, [COL_DATA, 1, 1, 1]],
                         r"reach in \[0, 32\] \(got 33\)"),
                        ([[COL_TAPS, 1, 1, 2], row], r"data operations \(2: that many COL_DATA"),
                        ([[COL_TAPS, 2, 1, 2], row, [COL_DATA, 1, 1, 1]],
                         r"rows run past its 2 data operations"),
                        ([[COL_TAPS, 1, 1, 3], row, [COL_DATA, 1, 1, 1], [COL_DATA, 1]],
                         r"rows take 2 data operations, not its 3"),
                        ([[COL_TAPS, 1, 0, 2], row, [COL_DATA, 1, 1, 1]],
                         r"weights from dx -1 to dx 1 within its reach 0"),
                        ([[COL_TAPS, 1, 1, 2], [COL_DATA, 200, -1, 3], [COL_DATA, 1, 1, 1]],
                         r"dy within 127 \(got 200\)"),
                        ([[COL_TAPS, 1, 1, 2], [COL_DATA, 0, -1, 2.5], [COL_DATA, 1, 1, 1]],
                         r"must hold whole numbers")]:
        with pytest.raises(ValueError, match=match):
            warp(*rows)
    # a kernel of two rows, one of 9 weights (two data operations) with zeros inside: OpenCV's
    # filter2D
    k = np.zeros((3, 9), np.float32)
    k[0, 3], k[0, 5], k[2, :] = 0.2, 0.1, [0.05, 0, 0.1, 0.05, 0.05, 0.1, 0.05, 0, 0.3]
    out = warp([COL_TAPS, 2, 4, 5], [COL_DATA, -1, -1, 3], [COL_DATA, 0.2, 0, 0.1],
               [COL_DATA, 1, -4, 9], [COL_DATA, *k[2, :8]], [COL_DATA, k[2, 8]])
    assert np.abs(out.astype(int) - cv2.filter2D(img, -1, k)).max() <= 1


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """The three filters after a rotation (kernels past the 21 x 13 output, taps continued in
    data operations), one before a colour step: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.AdvancedBlur(blur_limit=(7, 7), p=1)], [W.Defocus(radius=(9, 9), p=1)],
             [W.Defocus(radius=(2, 2), p=1), W.RandomGamma(p=1)],
             [W.RingingOvershoot(blur_limit=(15, 15), p=1)]]
    check_small_cases(img, geo, cases, small_queue)
