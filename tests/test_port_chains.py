"""Ported recipes against albumentations itself, transform by transform in chains: the boxes a
port gives where the output's border cuts them (``box_border="clip"``, albumentations' rule),
the boxes each step of a chain drops (its ``check_each_transform``), and random chains of
geometry and colour with fixed parameters, each ported and run beside albumentations."""

from __future__ import annotations

import os
import random
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

PHOTO = np.ascontiguousarray(skimage.data.coffee()[::2, ::2])  # 200 x 300
H, WD = PHOTO.shape[:2]
#: boxes at the borders: a turn or a shear moves a corner of each out of the image
EDGE_BOXES = [[5, 100, 60, 150], [2, 5, 50, 40], [250, 150, 298, 198], [80, 50, 220, 150]]


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _boxes(out) -> np.ndarray:
    return np.asarray(out["bboxes"], np.float64).reshape(-1, 4)


def _recipe(steps, **bbox):
    return _quiet(A.Compose, steps, bbox_params=A.BboxParams(
        format="pascal_voc", label_fields=["labels"], **bbox), seed=0)


@pytest.mark.parametrize("make, tighter", [
    (lambda: A.Affine(rotate=(30, 30), p=1), True),
    (lambda: A.Affine(rotate=(-30, -30), p=1), True),
    (lambda: A.Affine(shear=(10, 10), p=1), True), (lambda: A.Affine(shear=(20, 20), p=1), True),
    (lambda: A.Rotate(limit=(25, 25), p=1), True),
    # (a corner past the border here, but not past the box's other corners' extent)
    (lambda: A.ShiftScaleRotate(shift_limit=(0.1, 0.1), scale_limit=(0.2, 0.2),
                                rotate_limit=(-40, -40), p=1), False)],
    ids=["turn 30", "turn -30", "shear 10", "shear 20", "Rotate", "ShiftScaleRotate"])
@pytest.mark.parametrize("min_visibility", [0.0, 0.6])
def test_boxes_the_border_cuts_are_albumentations_in_a_port(make, tighter, min_visibility,
                                                            queue):
    """A port's boxes that a turn or a shear takes past the border are albumentations' (the
    box around the moved box, clipped) within 1e-3 px, and min_visibility keeps the same ones;
    a warpkit pipeline's default is the box around the outline's part inside, which lies within
    albumentations' box and is smaller than it where a corner is cut off."""
    recipe = _recipe([_quiet(make)], min_visibility=min_visibility)
    call = dict(image=PHOTO, bboxes=EDGE_BOXES, labels=[0, 1, 2, 3])
    want = _quiet(recipe, **call)
    port = W.from_albumentations(recipe)
    assert port.box_border == "clip"
    got = port(**call, seed=0, queue=queue)
    assert got["labels"] == [int(v) for v in want["labels"]]
    np.testing.assert_allclose(_boxes(got), _boxes(want), atol=1e-3)
    # more boxes than a sample's few (numpy's path), the same rule
    many = port(image=PHOTO, bboxes=EDGE_BOXES * 5, labels=list(range(20)), seed=0, queue=queue)
    np.testing.assert_allclose(_boxes(many), np.tile(_boxes(got), (5, 1)), atol=1e-9)
    # the default rule: the tight box, inside albumentations' and smaller where a corner is cut
    own = W.Compose(port.transforms, box_format="pascal_voc", min_visibility=min_visibility)
    tight = own(**call, seed=0, queue=queue)
    loose = dict(zip(got["labels"], _boxes(got)))
    inner = dict(zip(tight["labels"], _boxes(tight)))
    assert inner and set(inner) <= set(loose) | set(range(4))
    for label in set(inner) & set(loose):
        box, around = inner[label], loose[label]
        assert (box[:2] >= around[:2] - 1e-9).all() and (box[2:] <= around[2:] + 1e-9).all()
    if min_visibility == 0:  # (every box kept by both; where a corner is cut, tighter)
        assert set(inner) == set(loose)
        assert any((np.abs(inner[k] - loose[k]) > 0.5).any() for k in inner) == tighter


def test_a_turned_corner_past_the_border_is_loose_in_albumentations_only(queue):
    """The two rules side by side on one box: turned -30 degrees, the box at the bottom right
    loses a corner; albumentations' box keeps its width, the outline's does not."""
    call = dict(image=PHOTO, bboxes=[[250, 150, 298, 198]], labels=[7])
    steps = [W.Affine(rotate=(-30, -30), p=1)]
    clip = W.Compose(steps, box_format="pascal_voc", box_border="clip")
    outline = W.Compose(steps, box_format="pascal_voc")
    want = _quiet(_recipe([A.Affine(rotate=(-30, -30), p=1)]), **call)
    a, b = (_boxes(p(**call, seed=0, queue=queue))[0] for p in (clip, outline))
    np.testing.assert_allclose(a, _boxes(want)[0], atol=1e-3)
    assert a[2] - a[0] > b[2] - b[0] + 20  # (65.6 px against 15.5)
    assert a[3] == b[3] == H
    data = clip.to_dict()
    assert W.Compose.from_dict(data).box_border == "clip"
    assert "box_border" not in str(outline.to_dict())
    with pytest.raises(ValueError, match="box_border.*'outline'.*'clip'"):
        W.Compose(steps, box_border="loose")


def test_each_step_drops_the_boxes_it_empties(queue):
    """With edges="each_step" a box that a crop leaves with no area is gone for the steps after
    it: a turn does not bring it back as a sliver along the edge. albumentations drops it
    where any step follows the crop before a turn (its check after each step); where the turn
    follows the crop at once, it turns the empty box into a box of an object not in the image
    (documented): with a NoOp between them, albumentations gives warpkit's boxes."""
    call = dict(image=PHOTO, bboxes=[[80, 50, 220, 150], [10, 100, 60, 120]], labels=[0, 1])
    crop = A.CenterCrop(100, 140)  # (x 80..220: the second box lies left of it)
    for steps in ([crop, A.Transpose(p=1), A.Rotate(limit=(15, 15), p=1)],
                  [crop, A.NoOp(p=1), A.Rotate(limit=(15, 15), p=1)],
                  [A.Transpose(p=1), A.Crop(x_min=20, y_min=10, x_max=180, y_max=150),
                   A.NoOp(p=1), A.SafeRotate(limit=(20, 20), p=1)]):
        recipe = _recipe(steps)
        port = W.from_albumentations(recipe)
        assert port.edges == "each_step"
        want, got = _quiet(recipe, **call), port(**call, seed=0, queue=queue)
        assert got["labels"] == [int(v) for v in want["labels"]], steps
        np.testing.assert_allclose(_boxes(got), _boxes(want), atol=0.6)  # (SafeRotate's 0.5)
    # the turn straight after the crop: albumentations keeps the emptied box, warpkit does not
    recipe = _recipe([crop, A.Rotate(limit=(15, 15), p=1)])
    want = _quiet(recipe, **call)
    got = W.from_albumentations(recipe)(**call, seed=0, queue=queue)
    assert [int(v) for v in want["labels"]] == [0, 1] and got["labels"] == [0]


def test_each_step_checks_visibility_step_by_step(queue):
    """albumentations checks min_visibility after each step against the box that step moved:
    a box half cut by a crop, then half of what is left cut by a shift, stays with
    min_visibility=0.4 (a half each time), as in the port; a quarter of it is left."""
    box = [[20, 50, 80, 150]]
    steps = [A.Crop(x_min=50, y_min=0, x_max=300, y_max=200),  # x 20..80 -> 0..30 of 60
             A.Affine(translate_px={"x": (-15, -15), "y": (0, 0)}, p=1)]  # 0..15 of 30
    for vis, kept in ((0.4, [0]), (0.6, [])):
        recipe = _recipe(steps, min_visibility=vis)
        port = W.from_albumentations(recipe)
        assert port.edges == "each_step"
        want = _quiet(recipe, image=PHOTO, bboxes=box, labels=[0])
        got = port(image=PHOTO, bboxes=box, labels=[0], seed=0, queue=queue)
        assert [int(v) for v in want["labels"]] == got["labels"] == kept
        np.testing.assert_allclose(_boxes(got), _boxes(want), atol=1e-3)
    # min_width at each step: the crop leaves 30 px, the shift 15
    recipe = _recipe(steps, min_width=20)
    assert _quiet(recipe, image=PHOTO, bboxes=box, labels=[0])["labels"] == []
    assert W.from_albumentations(recipe)(image=PHOTO, bboxes=box, labels=[0], seed=0,
                                         queue=queue)["labels"] == []


@pytest.mark.parametrize("fmt", ["yolo", "albumentations"])
def test_a_box_left_on_a_crop_edge_is_dropped(fmt, queue):
    """A normalised box whose far side lands on a crop's edge keeps a sliver of rounding error
    (2e-16 of the image's height): dropped, as albumentations drops boxes under 1e-7 square
    pixels, where it used to come back with no height."""
    box = np.array([[220 / 300, 105 / 200, 140 / 300, 170 / 200]])  # yolo: x 150..290, y 20..190
    if fmt == "albumentations":
        box = np.array([[150 / 300, 20 / 200, 290 / 300, 190 / 200]])
    steps = [A.Transpose(p=1), A.Crop(x_min=20, y_min=10, x_max=180, y_max=150)]
    recipe = _quiet(A.Compose, steps, bbox_params=A.BboxParams(format=fmt,
                                                               label_fields=["labels"]))
    want = _quiet(recipe, image=PHOTO, bboxes=box, labels=[2])
    got = W.from_albumentations(recipe)(image=PHOTO, bboxes=box, labels=[2], seed=0,
                                        queue=queue)
    assert len(want["bboxes"]) == len(got["bboxes"]) == 0 and got["labels"] == []


# ---- random chains ----------------------------------------------------------------------------

MASK = np.zeros((H, WD), np.uint8)
MASK[50:150, 80:220] = 1
MASK[100:120, 10:60] = 2
BOXES = [[80, 50, 220, 150], [10, 100, 60, 120], [150, 20, 290, 190]]
POINTS = [[100.5, 60.25], [200.0, 140.0], [30.0, 110.0], [150.0, 100.0]]
#: steps that resize: albumentations scales keypoints about the corner, warpkit about pixel
#: centres (half a pixel times the stretch less one apart)
RESIZES = {"Resize", "LongestMaxSize", "SmallestMaxSize", "RandomScale", "CropAndPad"}
#: steps whose levels jump where a level moves (single against repeated resampling)
AMPLIFIERS = {"Sharpen", "Posterize", "Solarize"}


def _geometry(r: random.Random):
    c = r.randrange(18)
    return [lambda: A.Affine(rotate=(r.choice([-30, -10, 7, 25]),) * 2, p=1),
            lambda: A.Affine(scale=(r.choice([0.8, 1.2]),) * 2, p=1),
            lambda: A.Affine(translate_px={"x": (12, 12), "y": (-7, -7)}, p=1),
            lambda: A.HorizontalFlip(p=1), lambda: A.VerticalFlip(p=1),
            lambda: A.Transpose(p=1), lambda: A.Rotate(limit=(r.choice([-20, 15]),) * 2, p=1),
            lambda: A.Resize(r.choice([120, 160]), r.choice([180, 240])),
            lambda: A.CenterCrop(100, 140),
            lambda: A.Crop(x_min=20, y_min=10, x_max=180, y_max=150),
            lambda: A.PadIfNeeded(min_height=260, min_width=360,
                                  border_mode=cv2.BORDER_CONSTANT),
            lambda: A.Affine(shear=(10, 10), p=1), lambda: A.SafeRotate(limit=(20, 20), p=1),
            lambda: A.ShiftScaleRotate(shift_limit=(0.05, 0.05), scale_limit=(0.1, 0.1),
                                       rotate_limit=(12, 12), p=1),
            lambda: A.LongestMaxSize(max_size=r.choice([150, 400])),
            lambda: A.SmallestMaxSize(max_size=r.choice([100, 256])),
            lambda: A.Pad(padding=(10, 20, 30, 5)),
            lambda: A.CropAndPad(px=(-10, 20, 15, -5), keep_size=r.random() < 0.5)][c]()


def _colour(r: random.Random):
    c = r.randrange(12)
    return [lambda: A.RandomBrightnessContrast(brightness_limit=(0.1, 0.1),
                                               contrast_limit=(0.2, 0.2), p=1),
            lambda: A.HueSaturationValue((10, 10), (15, 15), (-10, -10), p=1),
            lambda: A.RandomGamma(gamma_limit=(120, 120), p=1), lambda: A.ToGray(p=1),
            lambda: A.InvertImg(p=1), lambda: A.Solarize(threshold_range=(0.6, 0.6), p=1),
            lambda: A.Posterize(num_bits=(4, 4), p=1),
            lambda: A.RGBShift((10, 10), (-5, -5), (20, 20), p=1),
            lambda: A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.2, 1.2), p=1),
            lambda: A.Blur(blur_limit=(3, 3), p=1),
            lambda: A.Sharpen(alpha=(0.3, 0.3), lightness=(1.0, 1.0), p=1),
            lambda: A.MedianBlur(blur_limit=(3, 3), p=1)][c]()


def _chain(seed: int):
    r = random.Random(seed)
    steps = [_geometry(r) if r.random() < 0.6 else _colour(r) for _ in range(r.randint(2, 5))]
    fmt = r.choice(["pascal_voc", "coco", "yolo", "albumentations"])
    bbox = dict(format=fmt, label_fields=["labels"], clip=True,
                min_visibility=r.choice([0, 0, 0.3, 0.6]), min_area=r.choice([0, 0, 50]))
    return steps, fmt, bbox


def _in_format(fmt: str) -> list:
    b = np.asarray(BOXES, np.float64)
    if fmt == "coco":
        b[:, 2:] -= b[:, :2]
    elif fmt == "albumentations":
        b /= [WD, H, WD, H]
    elif fmt == "yolo":
        b = np.stack([(b[:, 0] + b[:, 2]) / 2 / WD, (b[:, 1] + b[:, 3]) / 2 / H,
                      (b[:, 2] - b[:, 0]) / WD, (b[:, 3] - b[:, 1]) / H], 1)
    return b.tolist()


@pytest.mark.parametrize("seed", range(0, 48))
def test_random_chains_port_to_albumentations_results(seed, queue):
    """A chain of 2-5 steps (geometry 60%, colour and blurs 40%; fixed parameters, p=1), its
    boxes in one of four formats with min_visibility and min_area drawn, ported and run beside
    albumentations on a photo with a mask, 3 boxes and 4 keypoints: the image within 4 levels
    on average with under 1% of the pixels 40 levels off (one resampling against one a step;
    chains with a sharpening or a threshold after the geometry, which magnify the difference,
    are held by their shape only), the mask equal on 97% of its pixels (OpenCV's nearest
    resize reads other pixels at some edges), the boxes and labels albumentations' (with a
    NoOp between the steps: see test_each_step_drops_the_boxes_it_empties) within 1.5 px
    (5e-3 of the side in normalised formats), keypoints within 0.02 px (where a step resizes,
    half a pixel times the stretch less one: albumentations scales them about the corner,
    1.25 px for the chains' largest, 3.5x)."""
    steps, fmt, bbox = _quiet(_chain, seed)
    names = {type(s).__name__ for s in steps}
    call = dict(image=PHOTO, mask=MASK, bboxes=_in_format(fmt), labels=[0, 1, 2],
                keypoints=POINTS)
    points = A.KeypointParams(format="xy", remove_invisible=False)
    recipe = _quiet(A.Compose, steps, bbox_params=A.BboxParams(**bbox), keypoint_params=points,
                    seed=0)
    try:
        want = _quiet(recipe, **call)
    except ValueError:  # (a crop larger than what the steps before it left: refused there)
        with pytest.raises(ValueError):
            W.from_albumentations(recipe)(**call, seed=0, queue=queue)
        return
    spaced = _quiet(A.Compose, [u for s in steps for u in (s, A.NoOp(p=1))],
                    bbox_params=A.BboxParams(**bbox), keypoint_params=points, seed=0)
    boxes_want = _quiet(spaced, **call)
    got = W.from_albumentations(recipe)(**call, seed=0, queue=queue)
    assert got["image"].shape == want["image"].shape
    if not names & AMPLIFIERS:
        d = np.abs(got["image"].astype(int) - want["image"])
        assert d.mean() < 4 and (d > 40).mean() < 0.01, (names, d.mean())
    assert (got["mask"] == want["mask"]).mean() > 0.97
    assert got["labels"] == [int(v) for v in boxes_want["labels"]]
    tol = 1.5 if fmt in ("pascal_voc", "coco") else 5e-3
    np.testing.assert_allclose(_boxes(got), _boxes(boxes_want), atol=tol)
    tol = 1.25 if names & RESIZES else 0.02
    np.testing.assert_allclose(np.asarray(got["keypoints"], np.float64)[:, :2],
                               np.asarray(want["keypoints"], np.float64)[:, :2], atol=tol)
