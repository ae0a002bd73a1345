"""RandomSnow's "texture" method (warpkit.augment._pixel; kernels_cl/snow.cl makes the texture
and sparkles, colour.h's WK_COL_SNOW_TEX applies them) against albumentations 2.0.8: its
generate_snow_textures fed the device's numbers (snow_numbers) through a stand-in generator,
then its apply of the recorded snow point, on photos in uint8 and float32, at sizes whose
blurs reach past both edges, after a resize and beside a plasma in one list; the draws,
batches, replay, the port, the refusals and the engine's checks; on every device and
Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._pixel import snow_numbers
from warpkit.engine.core import COL_SNOW_TEX

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()

#: (snow point, brightness coefficient): albumentations' default range's ends, a coefficient
#: of 1, the heaviest snow (the most values past 255: wrapped), no snow at all
PARAMS = [(0.1, 2.5), (0.3, 2.5), (0.7, 1.0), (1.0, 3.0), (0.0, 2.0)]


class _Numbers:
    """A stand-in for albumentations' random generator: ``normal`` and ``random`` hand out the
    device's numbers, in albumentations' order and shapes (each checked)."""

    def __init__(self, z: np.ndarray, u: np.ndarray) -> None:
        self.z, self.u, self.calls = z, u, []

    def normal(self, size, loc, scale):
        assert tuple(size) == self.z.shape and not self.calls
        self.calls.append("normal")
        return loc + scale * self.z

    def random(self, size):
        assert tuple(size) == self.u.shape and self.calls == ["normal"]
        self.calls.append("random")
        return self.u


def _snow(point: float, coeff: float, p: float = 1) -> W.RandomSnow:
    return W.RandomSnow(snow_point_range=(point, point), brightness_coeff=coeff,
                        method="texture", p=p)


def _albumentations(t: W.RandomSnow, img: np.ndarray, params: dict) -> np.ndarray:
    """albumentations' apply of warpkit's recorded parameters, the texture and sparkles from
    the device's numbers."""
    from albumentations.augmentations.pixel.functional import generate_snow_textures

    h, w = img.shape[:2]
    numbers = _Numbers(*snow_numbers(params["key"], (w, h)))
    texture, sparkles = generate_snow_textures((h, w), numbers)
    assert numbers.calls == ["normal", "random"]
    theirs = A.RandomSnow(brightness_coeff=t.brightness_coeff, method="texture", p=1)
    return theirs.apply(img, snow_point=params["snow_point"], snow_texture=texture,
                        sparkle_mask=sparkles)


def _run(t, img: np.ndarray, seed: int, queue=None) -> tuple[np.ndarray, dict]:
    out = W.Compose([t])(image=img, seed=seed, queue=queue)
    return out["image"], out["params"]["steps"][0]


def _assert_levels(got: np.ndarray, want: np.ndarray, what, steps: int = 1) -> None:
    """Within a level, but for at most 1 pixel in 10^4 further off (a chain of ``steps``
    snows: each its own, and the next one's HSV of a level's difference besides). The level apart is
    OpenCV's: its 8-bit HSV -> RGB truncates in its vector loop and rounds in its scalar tail
    (each row's last pixels, as many as the CPU's vectors leave over); a value further off is
    one whose float32 lies within a few units in the last place of a level's edge (the
    texture is float64 there, float32 here), whose level then differs (a hue's level moves
    RGB by up to 8 levels; a value at 256 wraps to 0)."""
    d = np.abs(got.astype(np.int64) - want.astype(np.int64)).max(-1)
    off = float((d > 1).mean())
    assert off <= 1e-4 * (2 * steps - 1), (what, int(d.max()), off)


@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo, queue):
    """uint8 photos: albumentations' add_snow_texture on its generate_snow_textures of the
    device's numbers, within a level (see _assert_levels); a pixel in a hundred sparkles
    (white), and the snow changes the image; no snow at all still brightens nothing but
    passes through the HSV round trip and the tint (as albumentations')."""
    img = PHOTOS[photo]
    for k, (point, coeff) in enumerate(PARAMS):
        got, params = _run(_snow(point, coeff), img, seed=k, queue=queue)
        assert params["snow_point"] == point and len(params["key"]) == 3
        want = _albumentations(_snow(point, coeff), img, params)
        _assert_levels(got, want, (photo, point, coeff))
        white = (got == 255).all(-1).mean()
        assert 0.009 < white < 0.012 + (img == 255).all(-1).mean(), white
        assert (got != img).mean() > 0.5


def test_float32_is_albumentations(queue):
    """float32 through levels of 255 and back (albumentations' uint8_io: rint, then the level
    over 255 as its table has it): albumentations' float32 result within a level's worth."""
    img = PHOTOS["coffee"][::2, ::2].astype(np.float32) / 255
    for k, (point, coeff) in enumerate(PARAMS[:4]):
        got, params = _run(_snow(point, coeff), img, seed=k, queue=queue)
        want = _albumentations(_snow(point, coeff), img, params)
        assert want.dtype == np.float32 and got.dtype == np.float32
        _assert_levels(np.rint(got * 255), np.rint(want * 255), (point, coeff))
        same = np.rint(got * 255) == np.rint(want * 255)
        assert (got[same] == want[same]).all()  # the same level gives the same float


@pytest.mark.parametrize("size", [(1, 1), (1, 7), (2, 3), (5, 4), (9, 17), (13, 40), (33, 8)])
def test_blurs_reflect_past_both_edges(size, queue):
    """Outputs smaller than the blurs' 17-tap reach (one blur of the kernel convolved with
    itself: reflected edges as OpenCV's two): albumentations' within a level."""
    h, w = size
    img = np.ascontiguousarray(PHOTOS["astronaut"][200:200 + h, 150:150 + w])
    for k, (point, coeff) in enumerate(((0.5, 2.0), (0.9, 1.5))):
        got, params = _run(_snow(point, coeff), img, seed=10 + k, queue=queue)
        want = _albumentations(_snow(point, coeff), img, params)
        assert got.shape == img.shape
        d = np.abs(got.astype(np.int64) - want)
        assert d.max() <= 1, (size, point, int(d.max()))


def test_on_the_output_and_beside_a_plasma(queue):
    """The texture on the output after a resize (its size) and in a blur's pass; a plasma and
    the snow in one list
    (two kinds of areas after the list, one after the other), and two snows: each as
    albumentations' steps in turn; a ragged batch where some samples have none, each sample
    as alone."""
    img = PHOTOS["chelsea"]
    snow = _snow(0.4, 2.0)
    out = W.Compose([W.Resize((150, 200)), snow])(image=img, seed=0, queue=queue)
    small = W.Compose([W.Resize((150, 200))])(image=img, seed=0, queue=queue)["image"]
    assert out["image"].shape[:2] == (150, 200)
    _assert_levels(out["image"], _albumentations(snow, small, out["params"]["steps"][1]), "resize")
    # in a pass after a blur (its list's own area), on warpkit's blur
    blur = W.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1)
    out = W.Compose([blur, snow])(image=img, seed=4, queue=queue)
    blurred = W.Compose([blur])(image=img, seed=4, queue=queue)["image"]
    _assert_levels(out["image"], _albumentations(snow, blurred, out["params"]["steps"][1]),
                   "after a blur")
    shadow = W.PlasmaShadow(shadow_intensity_range=(0.5, 0.5), p=1)
    from test_plasma import _albumentations as plasma
    # (512 columns: no scalar tail in OpenCV's HSV -> RGB, whose rounding a level apart the
    # second step would carry on)
    wide = PHOTOS["astronaut"][:300]
    for steps in ([shadow, snow], [snow, _snow(0.2, 1.5)]):
        out = W.Compose(steps)(image=wide, seed=3, queue=queue)
        want = wide
        for t, params in zip(steps, out["params"]["steps"]):
            want = plasma(t, want, params) if t is shadow else _albumentations(t, want, params)
        _assert_levels(out["image"], want, steps, len(steps))
    pipe = W.Compose([W.OneOf([W.InvertImg(p=1), snow]), shadow])
    photos = [p[:180, :200] for p in PHOTOS.values()] * 2
    got = pipe(image=photos, seed=2, queue=queue)
    assert {p["steps"][0]["choice"] for p in got["params"]} == {0, 1}
    for k in range(len(photos)):
        alone = pipe(image=photos[k], seed=2, index=k, queue=queue)
        np.testing.assert_array_equal(got["image"][k], alone["image"])


def test_draws_and_the_bleach_unchanged():
    """The snow point uniform in its range, then the texture's key (albumentations' order); a
    batch's side-by-side draws the same numbers as each sample's; the bleach method draws as
    before (no key: its samples' streams unchanged)."""
    t = W.RandomSnow(snow_point_range=(0.2, 0.6), method="texture", p=1)
    draws = [t.draw(np.random.default_rng(s), (8, 8)) for s in range(1000)]
    points = np.array([d["snow_point"] for d in draws])
    assert 0.2 <= points.min() and points.max() <= 0.6 and abs(points.mean() - 0.4) < 0.01
    assert len({tuple(d["key"]) for d in draws}) == 1000
    bleach = W.RandomSnow(snow_point_range=(0.2, 0.6), p=1)
    assert [bleach.draw(np.random.default_rng(s), (8, 8)) for s in range(5)] == \
        [{"snow_point": d["snow_point"]} for d in draws[:5]]
    for tr in (t, bleach):
        assert_drawn_alone(tr, [np.zeros((4, 4, 3), np.uint8)] * 40, 2, range(40))


def test_numbers_are_the_documented_ones():
    """snow_numbers: standard normals (mean 0, deviation 1) and uniform numbers in [0, 1), a
    hundredth of them above 0.99; column x from block x // 4, so a wider output keeps the
    narrower one's numbers."""
    z, u = snow_numbers([5, 6, 7], (301, 200))
    assert z.shape == u.shape == (200, 301)
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    assert 0 <= u.min() and u.max() < 1 and abs((u > 0.99).mean() - 0.01) < 0.001
    z2, u2 = snow_numbers([5, 6, 7], (303, 200))
    np.testing.assert_array_equal(z2[:, :301], z)
    np.testing.assert_array_equal(u2[:, :301], u)


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf: each sample as
    alone and replayed; to_dict / from_dict and from_albumentations; uint16, other channel
    counts and a bad method refused; the engine's checks, before any launch."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 3
    assert_oneof_batch([_snow(0.3, 2.5), W.RandomSnow(snow_point_range=(0.5, 0.9),
                                                      method="texture", p=1)], photos, queue)
    kw = dict(snow_point_range=(0.2, 0.5), brightness_coeff=1.7, method="texture", p=0.4)
    assert_ports(W.RandomSnow(**kw), A.RandomSnow(**kw))
    with pytest.raises(ValueError, match="method"):
        W.RandomSnow(method="flakes")
    with pytest.raises(ValueError, match="COL_SNOW_TEX takes uint8 or float32"):
        W.Compose([_snow(0.3, 2)])(image=PHOTOS["coffee"][:20, :20].astype(np.uint16),
                                   seed=0, queue=queue)
    with pytest.raises(TypeError, match="3 channels"):
        W.Compose([_snow(0.3, 2)])(image=np.zeros((8, 8, 4), np.uint8), seed=0, queue=queue)
    img = PHOTOS["coffee"][:20, :30].copy()
    warp_with_rows(img, [[COL_SNOW_TEX, 1, 2, 3, 1.5, 76.5, 0.045]], queue)  # well formed
    for row in ([COL_SNOW_TEX, 1.5, 2, 3, 1.5, 76.5, 0.045],
                [COL_SNOW_TEX, 1, 2, 70000, 1.5, 76.5, 0.045],
                [COL_SNOW_TEX, 1, 2, 3, np.inf, 76.5, 0.045],
                [COL_SNOW_TEX, 1, 2, 3, -1, 76.5, 0.045],
                [COL_SNOW_TEX, 1, 2, 3, 1.5, 300, 0.045],
                [COL_SNOW_TEX, 1, 2, 3, 1.5, 76.5, np.nan]):
        with pytest.raises(ValueError, match="COL_SNOW_TEX needs"):
            warp_with_rows(img, [row], queue)
    from warpkit.engine.core import snow_areas
    with pytest.raises(ValueError, match="fewer than 2"):  # before any allocation
        snow_areas(np.array([[COL_SNOW_TEX, 1, 2, 3, 1.5, 76.5, 0.045] + [0] * 5], np.float32),
                   30000, 20000)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """The snow after a rotation (a 21 x 13 output), alone, after a gamma, beside a plasma in
    one list: the reference device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[_snow(0.5, 2.0)], [W.RandomGamma(p=1), _snow(0.9, 1.2)],
             [W.PlasmaShadow(p=1), _snow(0.3, 2.5)]]
    check_small_cases(img, geo, cases, small_queue)
