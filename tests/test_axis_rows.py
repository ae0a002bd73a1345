"""Axis-aligned maps take several rows per work-item (engine.coords.rows_per_item, warp.cl's
WV_ROWS): the columns worked out once, each source row mixed once for the rows that share it,
whole blocks of fill stored directly. Every result is the one a row per work-item gives, bit for
bit: every channel count, padding, magnification and shrink, flip, fill around the image, odd
output sizes, strided sources, batches, ragged batches, the model's input and colour steps."""

from __future__ import annotations

import numpy as np
import pytest

import warpkit
from warpkit import geometry as g
from warpkit.engine import coords, core

H, W = 23, 29
SIZE = (37, 45)  # neither a multiple of 8 wide nor of 16 tall
MAPS = {
    "magnify": g.compose(g.scale(1.7, 2.3), g.translation(0.3, -0.7)),
    "shrink": g.scale(0.45, 0.6),
    "flip": g.scale(-1.3, 1.4, ((W - 1) / 2, (H - 1) / 2)),
    "letterbox": g.compose(g.scale(1.2), g.translation(5, 9)),  # fill on every side
    "shift": g.translation(-0.5, 0.25),
    "crop": g.translation(-6, -4),
    # a block whose last lane's taps reach the image's last column (x 20.5 .. 27.5), on rows
    # in the interior and past it (tests/guard_cases.py's "edge" map holds the same reads
    # against an unreadable page)
    "edge": g.translation(-4.5, -0.5),
}
PADS = ("constant", "constant_edge", "border", "reflection", "reflect_101")
# the nearest path's own edges: positions at -0.5 and at W - 0.5 on every row (-0.5 rounds to
# pixel 0; an even side's W - 0.5 rounds to the tap W: constant's fill, constant_edge's edge
# pixel), and blocks whose every lane rounds to column 0
NEAREST_MAPS = {**MAPS, "half": g.translation(0.5, 0.5),
                "magnify 8": g.compose(g.scale(8, 8), g.translation(3, 3))}


def _pair(call):
    """call() with several rows per work-item (no floor on the work-groups a launch makes, so
    that small outputs take them), checked to have taken them, then with one: both results."""
    seen: list[int] = []
    real = coords.rows_per_item

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "rows_per_item", spy)
        mp.setattr(coords, "MIN_GROUPS", 0)
        many = call()
        assert seen and all(r == coords.AXIS_ROWS > 1 for r in seen), seen
        mp.setattr(coords, "AXIS_ROWS", 1)
        one = call()
    return many, one


def _image(channels: int, seed: int = 0) -> np.ndarray:
    shape = (H, W) if channels == 1 else (H, W, channels)
    return np.random.default_rng(seed).integers(0, 256, shape, np.uint8)


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("pad", PADS)
def test_rows_per_item_give_the_row_at_a_time_result(small_queue, channels, pad):
    img = _image(channels)
    for name, m in MAPS.items():
        def call():
            return warpkit.warp_affine(img, m, size=SIZE, padding=pad,
                                       fill=(7, 200, 13, 99)[:channels], queue=small_queue)
        many, one = _pair(call)
        assert many.tobytes() == one.tobytes(), f"{name} {pad} {channels} channels"
        if name == "letterbox" and pad in ("constant", "constant_edge"):  # the fill is there
            assert (many[0] == (7, 200, 13, 99)[:channels]).all()


def test_strided_sources_batches_and_ragged_batches(small_queue):
    """A source whose rows are wider than its pixels, one whose pixels are not packed (no
    interior path: every row by wv_sample), a stacked batch with a map per image and one for
    all, and a ragged batch (a launch per image on CPU devices)."""
    wide = np.random.default_rng(1).integers(0, 256, (H, 2 * W + 3, 3), np.uint8)
    sources = {"rows wider": wide[:, 3:W + 3], "pixels apart": wide[:, ::2]}
    for what, src in sources.items():
        for name, m in MAPS.items():
            many, one = _pair(lambda: warpkit.warp_affine(
                src, m, size=SIZE, fill=50, queue=small_queue))
            assert many.tobytes() == one.tobytes(), f"{what} {name}"
    batch = np.stack([_image(3, k) for k in range(3)])
    mats = np.stack([MAPS["magnify"], MAPS["flip"], MAPS["letterbox"]])
    ragged = [_image(3, 5)[: H - k, : W - 2 * k] for k in range(3)]
    calls = {"batch, a map each": lambda: warpkit.warp.warp_batch(
                 list(batch), mats, size=SIZE, fill=9, queue=small_queue),
             "batch, one map": lambda: warpkit.warp_affine(
                 batch, MAPS["shrink"], size=SIZE, padding="reflect_101", queue=small_queue),
             "ragged": lambda: warpkit.warp.warp_batch(
                 ragged, mats, size=SIZE, padding="constant_edge", fill=9, queue=small_queue)}
    for what, call in calls.items():
        many, one = _pair(call)
        assert np.asarray(many).tobytes() == np.asarray(one).tobytes(), what


def test_the_model_input_and_colour_steps(small_queue):
    """The normalised float32 input in both layouts, and a pipeline's resized crops with flips
    and colour steps in the store (GaussNoise's numbers are keyed on each pixel's place: a row
    given the wrong place gets other noise), over a ragged batch."""
    from warpkit.augment import (Compose, GaussNoise, HorizontalFlip, RandomBrightnessContrast,
                                 RandomResizedCrop, ToGray)

    img = _image(3, 2)
    for layout in ("HWC", "CHW"):
        many, one = _pair(lambda: warpkit.warp_affine(
            img, MAPS["letterbox"], size=SIZE, fill=114, output_dtype="float32",
            mean=(0.4, 0.5, 0.6), std=(0.2, 0.25, 0.3), layout=layout, queue=small_queue))
        assert many.tobytes() == one.tobytes(), layout
    pipe = Compose([RandomResizedCrop((40, 48), scale=(0.2, 0.5)), HorizontalFlip(p=0.5),
                    RandomBrightnessContrast(p=1), GaussNoise(p=1), ToGray(p=0.3)],
                   output_dtype="float32", mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                   layout="CHW")
    photos = [_image(3, 10 + k) for k in range(4)]
    many, one = _pair(lambda: pipe(image=photos, seed=3, queue=small_queue))
    assert np.asarray(many["image"]).tobytes() == np.asarray(one["image"]).tobytes()


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
def test_nearest_rows_give_the_row_at_a_time_result(small_queue, channels):
    """Nearest (masks): the rounded columns once, a source row read once for the rows that
    round to it, whole blocks of constant fill stored directly; the rest by wv_sample. 5
    channels: every channel in one launch (WK_WIDE)."""
    odd = _image(channels, 7)
    even = np.random.default_rng(8).integers(0, 256, (H + 1, W + 1, channels), np.uint8)
    for img in (odd, even):
        for pad in PADS:
            for name, m in NEAREST_MAPS.items():
                def call():
                    return warpkit.warp_affine(img, m, size=SIZE, interpolation="nearest",
                                               padding=pad,
                                               fill=(7.6, 300, -4, 99, 50)[:channels],
                                               queue=small_queue)
                many, one = _pair(call)
                assert many.tobytes() == one.tobytes(), \
                    f"{name} {pad} {channels} channels, {img.shape[:2]}"


def test_masks_in_a_pipeline(small_queue):
    """A segmentation pipeline's masks (nearest, stored as they are) and images over a ragged
    batch, with MaskDropout (which reads the warped masks): the same with either."""
    from warpkit.augment import Compose, HorizontalFlip, MaskDropout, RandomResizedCrop

    pipe = Compose([RandomResizedCrop((40, 48), scale=(0.2, 1.0)), HorizontalFlip(p=0.5),
                    MaskDropout(max_objects=(1, 2), p=0.7)])
    photos = [_image(3, 20 + k)[: H - k, : W - 3 * k] for k in range(4)]
    masks = [(p[..., 0] // 64).astype(np.uint8) for p in photos]
    many, one = _pair(lambda: pipe(image=photos, mask=masks, seed=5, queue=small_queue))
    for k in ("image", "mask"):
        assert np.asarray(many[k]).tobytes() == np.asarray(one[k]).tobytes(), k


def test_nearest_with_colour_or_a_model_input_takes_one_row(small_queue):
    """The nearest rows path stores pixels as they are: a nearest warp to the model's input, or
    with colour operations, takes one row per work-item (and builds: a kernel asked for rows it
    has no path for fails to build)."""
    from warpkit.augment import Compose, RandomBrightnessContrast, RandomResizedCrop

    seen: list[int] = []
    real = coords.rows_per_item

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]

    img = _image(3, 8)
    pipe = Compose([RandomResizedCrop((40, 48)), RandomBrightnessContrast(p=1)],
                   interpolation="nearest")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "rows_per_item", spy)
        mp.setattr(coords, "MIN_GROUPS", 0)
        warpkit.warp_affine(img, MAPS["magnify"], size=SIZE, interpolation="nearest",
                            output_dtype="float32", queue=small_queue)
        pipe(image=img, seed=1, queue=small_queue)
    assert seen == [1, 1]


def test_the_rule():
    """Several rows where a CPU-like device resamples uint8 (linear, or nearest as it is) by
    affine maps whose float32 entries m[0][1] and m[1][0] are 0 and a launch makes MIN_GROUPS
    work-groups with them; else one."""
    rows = coords.rows_per_item
    inv = np.stack([g.invert(MAPS[k]) for k in ("magnify", "flip", "letterbox")])
    assert rows(True, True, inv, True, 640, 640, 6, 1) == coords.AXIS_ROWS
    assert rows(False, True, inv, True, 640, 640, 6, 1) == 1  # a GPU
    # no rows path: float32, supersampled, nearest to a model input or with colour operations
    assert rows(True, False, inv, True, 640, 640, 6, 1) == 1
    assert rows(True, True, inv, False, 640, 640, 6, 1) == 1  # a perspective
    turned = inv.copy()
    turned[1, 0, 1] = 1e-6  # a turn of a ten-thousandth of a degree
    assert rows(True, True, turned, True, 640, 640, 6, 1) == 1
    turned[1, 0, 1] = 1e-50  # 0 in float32, as the kernel sees it: still axis-aligned
    assert rows(True, True, turned, True, 640, 640, 6, 1) == coords.AXIS_ROWS
    turned[2, 1, 0] = -1e-6  # a shear of y along x
    assert rows(True, True, turned, True, 640, 640, 6, 1) == 1
    # a 224 x 224 output alone: 7 work-groups of 32 blocks x 2 x 16 rows: one row; 64 of them
    # in one launch, or a 640 x 640 alone (80), take several
    assert rows(True, True, inv, True, 224, 224, 5, 1) == 1
    assert rows(True, True, inv, True, 224, 224, 5, 64) == coords.AXIS_ROWS
