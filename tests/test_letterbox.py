"""Sizing and letterbox under albumentations' names (issue: detection recipes, item 1):
LongestMaxSize, SmallestMaxSize, PadIfNeeded, RandomScale. Each is a map like the others, so
LongestMaxSize + PadIfNeeded (the YOLO letterbox) is one resampling; with fixed parameters
each gives albumentations 2.0.8's output size, image (within 1 level) and boxes (within
0.5 px)."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.coffee()  # 400 x 600 RGB
BOXES = [[100.0, 60.0, 170.0, 130.0], [300.5, 80.25, 460.0, 390.0], [0.0, 0.0, 600.0, 400.0]]
LABELS = [0, 1, 2]


def _theirs(transforms, image=PHOTO):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose(transforms, bbox_params=A.BboxParams(format="pascal_voc",
                                                                label_fields=["labels"]))
        return recipe(image=image, bboxes=BOXES, labels=LABELS)


def _ours(transforms, queue, image=PHOTO, **kw):
    return W.Compose(transforms, **kw)(image=image, bboxes=BOXES, labels=LABELS, seed=0,
                                       queue=queue)


def _same(ours, theirs):
    assert ours["image"].shape == theirs["image"].shape
    # every pixel: the rim too (constant padding in a pipeline that keeps the axes repeats the
    # image's edge pixels inside it, as cv2.resize does before albumentations pads)
    diff = np.abs(ours["image"].astype(int) - theirs["image"])
    assert diff.max() <= 1, np.argwhere(diff > 1)[:5]
    assert list(ours["labels"]) == list(theirs["labels"])
    np.testing.assert_allclose(ours["bboxes"], np.asarray(theirs["bboxes"]).reshape(-1, 4),
                               atol=0.5)


CASES = [
    ("longest side", lambda L: [L.LongestMaxSize(max_size=300)]),
    ("longest side up", lambda L: [L.LongestMaxSize(max_size=700)]),
    ("longest within (height, width)", lambda L: [L.LongestMaxSize(max_size_hw=(250, 500))]),
    ("longest, height alone", lambda L: [L.LongestMaxSize(max_size_hw=(250, None))]),
    ("smallest side", lambda L: [L.SmallestMaxSize(max_size=256)]),
    ("smallest covering (height, width)", lambda L: [L.SmallestMaxSize(max_size_hw=(300, 500))]),
    ("random scale, fixed", lambda L: [L.RandomScale(scale_limit=(0.37, 0.37), p=1)]),
    ("random scale, down", lambda L: [L.RandomScale(scale_limit=(-0.45, -0.45), p=1)]),
    ("YOLO letterbox", lambda L: [L.LongestMaxSize(max_size=640),
                                  L.PadIfNeeded(640, 640, border_mode=0, fill=114)]),
    ("letterbox, top left", lambda L: [L.LongestMaxSize(max_size=320),
                                       L.PadIfNeeded(320, 320, position="top_left",
                                                     border_mode=0, fill=(114, 50, 9))]),
    ("bottom right", lambda L: [L.PadIfNeeded(500, 700, position="bottom_right",
                                              border_mode=0)]),
    ("top right", lambda L: [L.PadIfNeeded(450, 650, position="top_right", border_mode=0)]),
    ("bottom left", lambda L: [L.PadIfNeeded(450, 650, position="bottom_left",
                                             border_mode=0)]),
    ("to multiples of 32", lambda L: [L.LongestMaxSize(max_size=500),
                                      L.PadIfNeeded(None, None, pad_height_divisor=32,
                                                    pad_width_divisor=32, border_mode=0)]),
    ("replicated border", lambda L: [L.PadIfNeeded(450, 610, border_mode=cv2.BORDER_REPLICATE)]),
    ("already big enough", lambda L: [L.PadIfNeeded(300, 300, border_mode=0)]),
]


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_as_albumentations(name, make, queue):
    _same(_ours(make(W), queue), _theirs(make(A)))


def test_the_letterbox_is_one_resampling(queue):
    """LongestMaxSize + PadIfNeeded make one map: the image is resampled once (against the
    two steps applied one after the other, the result is the same image)."""
    aug = W.Compose([W.LongestMaxSize(max_size=480), W.PadIfNeeded(480, 480, border_mode=0,
                                                                    fill=114)])
    out = aug(image=PHOTO, seed=0, queue=queue)
    m, size = out["matrix"], out["size"]
    assert size == (480, 480)
    np.testing.assert_allclose(m, [[0.8, 0, -0.1], [0, 0.8, 79.9], [0, 0, 1]])  # centres
    assert (out["image"][:80] == 114).all() and (out["image"][-80:] == 114).all()


def test_random_position_and_max_size_choice_replay(queue):
    """position="random" and a list of max sizes draw from the sample's stream: recorded,
    replayed, different across samples."""
    aug = W.Compose([W.LongestMaxSize(max_size=[256, 320, 384]),
                     W.PadIfNeeded(400, 400, position="random", border_mode=0)])
    outs = [aug(image=PHOTO, bboxes=BOXES, seed=5, index=k, queue=queue) for k in range(8)]
    assert len({o["params"]["steps"][0]["max_size"] for o in outs}) > 1
    assert len({o["params"]["steps"][1]["top"] for o in outs}) > 1
    again = aug.replay(outs[3]["params"], image=PHOTO, bboxes=BOXES, queue=queue)
    np.testing.assert_array_equal(again["image"], outs[3]["image"])
    np.testing.assert_array_equal(again["bboxes"], outs[3]["bboxes"])
    p = outs[3]["params"]["steps"]
    side = p[0]["max_size"]
    h = round(400 * side / 600)
    assert outs[3]["image"].shape == (400, 400, 3)
    assert 0 <= p[1]["top"] <= 400 - h and 0 <= p[1]["left"] <= 400 - side


def test_one_padding_per_pipeline():
    with pytest.raises(ValueError, match=r"Affine sets padding='constant' but PadIfNeeded sets "
                                         r"padding='reflect_101'"):
        W.Compose([W.PadIfNeeded(640, 640, border_mode=cv2.BORDER_REFLECT_101), W.Affine()],
                  passes="one")
    with pytest.raises(ValueError, match=r"fill=0 but PadIfNeeded sets fill=114"):
        W.Compose([W.PadIfNeeded(640, 640, fill=114), W.Affine(rotate=10)], passes="one")


@pytest.mark.parametrize("call,pattern", [
    (lambda: W.LongestMaxSize(), r"LongestMaxSize takes max_size or max_size_hw"),
    (lambda: W.LongestMaxSize(max_size=0), r"LongestMaxSize max_size must be an integer >= 1"),
    (lambda: W.SmallestMaxSize(max_size_hw=(0, 9)), r"max_size_hw must be an integer >= 1"),
    (lambda: W.SmallestMaxSize(max_size_hw=(None, None)), r"max_size_hw must be \(height, width\)"),
    (lambda: W.LongestMaxSize(max_size=9, area_for_downscale="mask"),
     r"LongestMaxSize area_for_downscale must be None or 'image' or 'image_mask', got 'mask'"),
    (lambda: W.PadIfNeeded(32, 32, pad_height_divisor=8), r"min_height or pad_height_divisor"),
    (lambda: W.PadIfNeeded(32, 32, position="middle"), r"position must be one of"),
    (lambda: W.RandomScale(scale_limit=(-1.5, 0)), r"scale_limit must lie in"),
])
def test_bad_arguments(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_from_albumentations_letterbox(queue):
    """A letterbox recipe ported with from_albumentations: its padding and fill are the
    pipeline's, and the result is albumentations'."""
    make = CASES[8][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose(make(A), bbox_params=A.BboxParams(format="pascal_voc",
                                                             label_fields=["labels"]))
    aug = W.from_albumentations(recipe)
    assert (aug.padding, aug.fill) == ("constant", 114.0)
    ours = aug(image=PHOTO, bboxes=BOXES, labels=LABELS, seed=0, queue=queue)
    _same(ours, _theirs(make(A)))
    back = W.Compose.from_dict(aug.to_dict())
    np.testing.assert_array_equal(back(image=PHOTO, seed=0, queue=queue)["image"],
                                  ours["image"])
