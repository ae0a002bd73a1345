"""RandomRain (warpkit.augment._weather; kernels_cl/rain.cl draws each drop as OpenCV's
4-connected line, or its thick line, into a bit mask after the item's list, then colour.h's WK_COL_RAIN counts each
pixel's box in it) against albumentations 2.0.8's add_rain of the recorded drops on uint8 and
float32 photos and on small images whose box reflects more than once; the line rule against
cv2.polylines with clipping; its draws, batches, replay, the port, the refusals and the
engine's checks; on every device and Oclgrind."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine.core import COL_DATA, COL_RAIN, COLOUR_WORDS, warp_by

from helpers import (albumentations_and_photos, assert_drawn_alone, assert_oneof_batch,
                     assert_ports, check_small_cases, warp_with_rows)

A, PHOTOS = albumentations_and_photos()


def _theirs(img: np.ndarray, step: dict, t: W.RandomRain,
            brightness: float | None = None) -> np.ndarray:
    import albumentations.augmentations.pixel.functional as F

    drops = np.asarray(step["drops"], np.int32).reshape(-1, 2)
    return F.add_rain(img, step["slant"], step["drop_length"], t.drop_width, t.drop_color,
                      t.blur_value, t.brightness_coefficient if brightness is None
                      else brightness, drops)


def _same(got: np.ndarray, img: np.ndarray, step: dict, t: W.RandomRain) -> None:
    """``got`` is albumentations' add_rain of ``img``: the same levels. Where the darkening's
    product v c lies within a float's rounding of a half, a level either way: cv2.multiply
    takes it in double here (the same levels as warpkit's table), and OpenCV may take float32
    on another CPU (0.7: levels 45, 85 and 165)."""
    want = _theirs(img, step, t)
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = 255 if got.dtype == np.float32 else 1
    diff = np.abs(got.astype(np.float64) - want) * scale
    if got.dtype == np.float32:
        # levels of 255 both, each the correctly rounded float32(level) / 255 of
        # albumentations' table (IEEE division: the same on every CPU)
        np.testing.assert_array_equal(
            got, np.rint(got.astype(np.float64) * 255).astype(np.float32) / np.float32(255))
    tie = np.zeros(got.shape, bool)
    if t.brightness_coefficient != 1.0:
        pre = np.rint(_theirs(img, step, t, 1.0).astype(np.float64) * scale)
        v = pre * t.brightness_coefficient
        tie = np.abs(v - np.floor(v) - 0.5) < 1e-5
    assert (diff[~tie] <= 2e-3).all(), diff[~tie].max()
    assert (diff[tie] <= 1 + 2e-3).all()


KINDS = [{}, {"slant_range": (-30, 30), "blur_value": 4, "rain_type": "torrential"},
         {"blur_value": 1, "brightness_coefficient": 1.0, "drop_length": 3,
          "slant_range": (40, 45)},
         {"blur_value": 16, "rain_type": "heavy", "brightness_coefficient": 0.5,
          "slant_range": (-45, -40)},
         {"blur_value": 21, "drop_length": 40, "drop_color": (10, 200, 255),
          "rain_type": "drizzle"}]


@pytest.mark.parametrize("photo", list(PHOTOS))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_photos_are_albumentations(photo, dtype, queue):
    """Five parameter sets (box sides 1, 4, 7, 16 and 21: each of OpenCV's roundings; slants to
    both sides, past the image's edges; every rain type), two seeds: albumentations' apply of
    the same drops, the same levels."""
    img = PHOTOS[photo][::2, ::2].copy()
    x = img.astype(np.float32) / 255 if dtype == np.float32 else img
    for kw in KINDS:
        t = W.RandomRain(p=1, **kw)
        for seed in range(2):
            out = W.Compose([t])(image=x, seed=seed, queue=queue)
            _same(out["image"], x, out["params"]["steps"][0], t)


def test_small_images_and_every_box(queue):
    """Images 1 to 40 pixels a side, boxes of every rounding (odd, even, powers of 2 up to 16
    and past it) and reach (a box wider than the image reflects its edges more than once), slants of 45 degrees and none: the same levels
    as albumentations."""
    rng = np.random.default_rng(5)
    for h, w in ((9, 3), (10, 1), (17, 5), (2, 30), (40, 7), (30, 33)):
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        for k in (2, 3, 6, 8, 13, 20, 25):
            for slant in ((-45, 45), (0, 0)):
                t = W.RandomRain(slant_range=slant, blur_value=k, rain_type="torrential",
                                 drop_length=1 if h < 9 else None, p=1)
                out = W.Compose([t])(image=img, seed=k, queue=queue)
                _same(out["image"], img, out["params"]["steps"][0], t)
    # an image 2 high has no drops (2 // 3): albumentations returns it, not darkened (wide
    # drops or not)
    img = rng.integers(0, 256, (2, 9, 3), dtype=np.uint8)
    for width in (1, 3):
        out = W.Compose([W.RandomRain(drop_width=width, p=1)])(image=img, seed=0, queue=queue)
        assert out["params"]["steps"][0]["drops"] == []
        np.testing.assert_array_equal(out["image"], img)


def _white_drop(x: int, y: int, x2: int, y2: int, width: int, size: tuple, queue,
                slant: float | None = None) -> np.ndarray:
    """The lit pixels of one drop from (x, y) to (x2, y2) on a black image of ``size`` (w, h):
    white, no blur, no darkening; its slant ``slant`` (x2 - x where None: RandomRain truncates
    x + slant to x2)."""
    w, h = size
    t = W.RandomRain(drop_color=(255, 255, 255), blur_value=1, brightness_coefficient=1.0,
                     drop_width=width, p=1)
    step = {"applied": True, "slant": float(x2 - x if slant is None else slant),
            "drop_length": y2 - y, "drops": [[x, y]], "size": [w, h]}
    img = np.zeros((h, w, 3), np.uint8)
    return W.Compose([t])(image=img, params={"applied": True, "steps": [step]},
                          queue=queue)["image"][..., 0] > 0


def test_the_line_rule_is_opencvs(queue):
    """One drop at a time, each of many slopes and lengths, ends inside and past every edge
    (OpenCV clips them first, which moves their steps): the lit pixels are those
    cv2.polylines (LINE_4) draws, as a layer of white with no blur and no darkening."""
    h, w = 23, 17
    rng = np.random.default_rng(2)
    for _ in range(60):
        x = int(rng.integers(-3, w + 3))
        y = int(rng.integers(0, h - 2))
        length = int(rng.integers(1, h - y))
        slant = float(rng.uniform(-45, 45))
        end = (int(np.trunc(x + slant)), y + length)
        got = _white_drop(x, y, *end, 1, (w, h), queue, slant)
        want = np.zeros((h, w), np.uint8)
        cv2.polylines(want, np.array([[[x, y], end]], np.int32), False, 255, 1,
                      lineType=cv2.LINE_4)
        np.testing.assert_array_equal(got, want > 0, err_msg=str((x, y, end)))


def test_wide_drops_are_opencvs_thick_lines(queue):
    """Drops 2 to 13 pixels wide, as OpenCV 5's cv2.polylines draws a thick line: the line
    clipped to the image grown by its width (clipLine), then ThickLine's quadrilateral about it
    in 16.16 fixed point (its half-width vector in double, rounded to even) filled by
    FillConvexPoly with its fixed-point outline, and a filled circle at each end. Drops clear of
    the sides and drops crossing them (the clip moves their ends, which turns their
    quadrilateral): the pixels the installed cv2.polylines lights, every one."""
    h, w = 40, 36
    rng = np.random.default_rng(3)
    crossing = 0
    for width in (2, 3, 4, 5, 8, 13):
        for k in range(50):
            while True:
                x, y = int(rng.integers(0, w)), int(rng.integers(0, h - 2))
                length, slant = int(rng.integers(1, h - y)), float(rng.uniform(-40, 40))
                end = (int(np.trunc(x + slant)), y + length)
                m = width + 1
                clear = m <= x < w - m and m <= end[0] < w - m and m <= y and end[1] < h - m
                if clear == (k % 2 == 0):
                    break
            crossing += not clear
            want = np.zeros((h, w), np.uint8)
            cv2.polylines(want, np.array([[[x, y], end]], np.int32), False, 1, width,
                          lineType=cv2.LINE_4)
            got = _white_drop(x, y, *end, width, (w, h), queue)
            np.testing.assert_array_equal(got, want > 0, err_msg=str((x, y, end, width)))
    assert crossing == 150


@pytest.mark.parametrize("photo", ["astronaut", "coffee"])
def test_wide_drops_on_photos_are_albumentations(photo, queue):
    """Wide drops on photos, blurred and darkened, crossing the sides too: albumentations'
    add_rain of the same drops, level for level."""
    img = PHOTOS[photo][::2, ::2].copy()
    for kw in ({"drop_width": 2}, {"drop_width": 3, "slant_range": (-30, 30), "blur_value": 4,
                                   "rain_type": "torrential"},
               {"drop_width": 8, "blur_value": 16, "brightness_coefficient": 0.5}):
        t = W.RandomRain(p=1, **kw)
        for seed in range(2):
            out = W.Compose([t])(image=img, seed=seed, queue=queue)
            _same(out["image"], img, out["params"]["steps"][0], t)


def test_draws_follow_albumentations_laws():
    """albumentations' counts and lengths per rain type and height (its own draw), the drops
    inside [0, W) x [0, H - length), the slant inside its range; a batch draws what each sample
    draws alone; a drop as long as the image refused by name."""
    for kind in ("drizzle", "heavy", "torrential", "default"):
        for length in (None, 5):
            for shape in ((200, 300), (33, 47), (9, 640)):
                theirs = A.RandomRain(rain_type=kind, drop_length=length, p=1)
                want = theirs.get_params_dependent_on_data({"shape": shape}, {})
                ours = W.RandomRain(rain_type=kind, drop_length=length, slant_range=(-7, 3),
                                    p=1).draw(np.random.default_rng(0), shape[::-1])
                assert ours["drop_length"] == want["drop_length"]
                assert len(ours["drops"]) == len(want["rain_drops"]), (kind, shape)
                drops = np.asarray(ours["drops"]).reshape(-1, 2)
                assert (drops >= 0).all() and (drops[:, 0] < shape[1]).all()
                assert (drops[:, 1] < shape[0] - ours["drop_length"]).all()
                assert -7 <= ours["slant"] <= 3
    many = W.RandomRain(rain_type="heavy", p=1).draw(np.random.default_rng(1), (50, 4000))
    drops = np.asarray(many["drops"])
    assert set(drops[:, 0]) == set(range(50)) and 3000 < drops[:, 1].max() < 4000 - 500
    photos = [np.zeros((h, w, 3), np.uint8) for h, w in ((40, 60), (90, 50), (33, 33))] * 2
    assert_drawn_alone(W.RandomRain(p=1), photos, 4, range(len(photos)))
    with pytest.raises(ValueError, match="drops of 20 pixels need an image higher"):
        W.RandomRain(drop_length=20, p=1).draw(np.random.default_rng(0), (30, 20))


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, in a OneOf beside another colour
    step: each sample as alone and replayed; drops drawn on another size scaled; to_dict /
    from_dict and from_albumentations; the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    assert_oneof_batch([W.RandomRain(p=1), W.RandomFog(p=1)], photos, queue)
    assert_ports(W.RandomRain((-5, 20), 12, 1, (90, 100, 110), 3, 0.8, "heavy", p=0.3),
                 A.RandomRain(slant_range=(-5, 20), drop_length=12, drop_width=1,
                              drop_color=(90, 100, 110), blur_value=3,
                              brightness_coefficient=0.8, rain_type="heavy", p=0.3))
    assert_ports(W.RandomRain((-5, 20), 12, 4, (90, 100, 110), 3, 0.8, "heavy", p=0.3),
                 A.RandomRain(slant_range=(-5, 20), drop_length=12, drop_width=4,
                              drop_color=(90, 100, 110), blur_value=3,
                              brightness_coefficient=0.8, rain_type="heavy", p=0.3))
    with pytest.raises(ValueError, match=r"drop_width must be a whole number in \[1, 64\]"):
        W.from_albumentations(A.Compose([A.RandomRain(drop_width=65, p=1)]))
    for kw, match in (({"slant_range": (-50, 0)}, "slant_range"),
                      ({"slant_range": (5, -5)}, "slant_range"),
                      ({"drop_length": 0}, "drop_length"), ({"drop_width": 0}, "drop_width"),
                      ({"drop_color": (1, 2)}, "drop_color"),
                      ({"drop_color": (1, 2, 256)}, "drop_color"),
                      ({"blur_value": 26}, "blur_value"), ({"blur_value": 0}, "blur_value"),
                      ({"brightness_coefficient": 0}, "brightness_coefficient"),
                      ({"brightness_coefficient": 1.5}, "brightness_coefficient"),
                      ({"rain_type": "hail"}, "rain_type")):
        with pytest.raises(ValueError, match=match):
            W.RandomRain(**kw)
    img = PHOTOS["coffee"][:40, :60].copy()
    # drawn on 30 x 20, applied to 60 x 40: the ends doubled (then rasterised on the output)
    t = W.RandomRain(blur_value=3, p=1)
    small = {"applied": True, "slant": 4.0, "drop_length": 5, "size": [30, 20],
             "drops": [[3, 1], [7, 5], [29, 9], [0, 14]]}
    doubled = {**small, "slant": 8.0, "drop_length": 10, "size": [60, 40],
               "drops": [[2 * x, 2 * y] for x, y in small["drops"]]}
    got = [W.Compose([t])(image=img, params={"applied": True, "steps": [step]}, queue=queue)
           for step in (small, doubled)]
    np.testing.assert_array_equal(got[0]["image"], got[1]["image"])
    _same(got[1]["image"], img, doubled, t)
    with pytest.raises(TypeError, match="RGB images"):
        W.Compose([W.RandomRain(p=1)])(image=img[..., :2], seed=0, queue=queue)
    with pytest.raises(TypeError, match="RandomRain"):
        W.Compose([W.RandomRain(p=1)])(image=img.astype(np.uint16), seed=0, queue=queue)
    head = [COL_RAIN, 3, 3, 2, 30, 20, 5, 200, 200, 200, np.float32(1) / 9, 0]
    drops = [COL_DATA, 3, 1, 7, 6, 7, 5, 11, 10]
    last = [COL_DATA, 20, 9, 24, 14]
    sorted_ = warp_with_rows(img, [head, drops, last], queue)  # well formed
    # the drops in any order (each is drawn once, into the mask): the same image
    np.testing.assert_array_equal(
        warp_with_rows(img, [head, [COL_DATA, 20, 9, 24, 14, 7, 5, 11, 10],
                             [COL_DATA, 3, 1, 7, 6]], queue), sorted_)
    assert (sorted_ != img).any()
    darker = head[:11] + [1]
    table = [[COL_DATA, *range(11 * r, 11 * r + 11)] for r in range(24)]
    for rows in ([head, drops], [head[:3] + [1] + head[4:], drops, last],
                 [head[:2] + [26] + head[3:], drops, last],  # a box past the masks
                 [head[:10] + [0.1, 0], drops, last],  # not 1 / side^2
                 [head[:4] + [0] + head[5:], drops, last],  # no size
                 [head[:6] + [2] + head[7:], drops, last],  # a drop longer than the span
                 [head, [COL_DATA, 3, 1, 7, 0, 7, 5, 11, 10], last],  # a drop going up
                 [head, [COL_DATA, 3.5, 1, 7, 6, 7, 5, 11, 10], last],  # not a whole pixel
                 [head, drops, [COL_DATA, np.nan, 9, 24, 14]],
                 [head, drops, [1, 20, 9, 24, 14]],
                 [darker, drops, last],  # no table
                 [darker[:3] + [26] + darker[4:], drops, last, *table[:-1],
                  [COL_DATA, 300]]):  # a level past 255
        with pytest.raises(ValueError, match="COL_RAIN"):
            warp_with_rows(img, rows, queue)
    warp_with_rows(img, [darker[:3] + [26] + darker[4:], drops, last,
                         *[[COL_DATA, *np.minimum(r[1:], 255)] for r in table]], queue)
    # wide drops: a drop an operation, its half-width vector, the width in word 10 of the first
    wide = [COL_DATA, 3, 1, 7, 6, 32768 * 5, -32768, 0, 0, 0, 3]
    warp_with_rows(img, [head[:3] + [3] + head[4:], wide, [COL_DATA, 7, 5, 11, 10],
                         [COL_DATA, 20, 9, 24, 14, 65536, 0]], queue)
    for rows in ([head, wide, last],  # two operations for three wide drops
                 [head[:3] + [3] + head[4:], wide[:10] + [65], [COL_DATA, 7, 5, 11, 10],
                  [COL_DATA, 20, 9, 24, 14]],  # past the widest
                 [head[:3] + [3] + head[4:], wide, [COL_DATA, 7, 5, 11, 10, 0.5, 0],
                  [COL_DATA, 20, 9, 24, 14]],  # not a whole vector
                 [head[:3] + [3] + head[4:], wide, [COL_DATA, 7, 5, 11, 10, 2 ** 22, 0],
                  [COL_DATA, 20, 9, 24, 14]]):  # a vector far wider than the drop
        with pytest.raises(ValueError, match="COL_RAIN"):
            warp_with_rows(img, rows, queue)
    with pytest.raises(ValueError, match="COL_RAIN takes uint8 or float32"):
        rows = np.zeros((1, 3 * COLOUR_WORDS), np.float32)
        for j, o in enumerate([head, drops, last]):
            rows[0, j * COLOUR_WORDS:j * COLOUR_WORDS + len(o)] = o
        warp_by(img.astype(np.uint16), np.eye(3), (60, 40), queue=queue, colour=rows)


def test_two_rains_in_a_list_and_rain_after_a_pass(queue):
    """Each list's drops are drawn into masks after it (engine.core's rain_masks, rain.cl) before
    the launch that runs it: two RandomRain steps in one list (a mask each), a batch where some
    items have none, and RandomRain after a blur (in the colour pass's list, not the warp's):
    albumentations' add_rain of each in turn."""
    img = PHOTOS["chelsea"][::2, ::2].copy()
    first = W.RandomRain(slant_range=(-20, -10), blur_value=5, rain_type="heavy", p=1)
    second = W.RandomRain(slant_range=(10, 20), blur_value=3, drop_color=(40, 90, 200), p=1)
    out = W.Compose([first, second])(image=img, seed=3, queue=queue)
    steps = out["params"]["steps"]
    _same(out["image"], _theirs(img, steps[0], first), steps[1], second)
    batch = [img, img[:200, :150].copy(), img[10:, 20:].copy(), img[:120].copy()]
    pipe = W.Compose([W.RandomRain(p=0.5), second])
    outs = pipe(image=batch, seed=1, queue=queue)
    assert {s["steps"][0]["applied"] for s in outs["params"]} == {True, False}
    for i, x in enumerate(batch):
        alone = pipe(image=x, seed=1, index=i, queue=queue)
        np.testing.assert_array_equal(outs["image"][i], alone["image"])
    blur = W.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.5, 1.5), p=1)
    after = W.Compose([blur, second])(image=img, seed=4, queue=queue)
    blurred = W.Compose([blur])(image=img, seed=4, queue=queue)["image"]
    _same(after["image"], blurred, after["params"]["steps"][1], second)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Rain over a rotated output (a 21 x 13 output), alone and before a colour step, a box
    that reflects twice: the default device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.RandomRain(slant_range=(-20, 20), rain_type="heavy", p=1)],
             [W.RandomRain(blur_value=25, drop_length=3, p=1), W.RandomGamma(p=1)],
             [W.RandomRain(slant_range=(-20, 20), drop_width=3, rain_type="heavy", p=1)]]
    check_small_cases(img, geo, cases, small_queue)
