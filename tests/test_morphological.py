"""Morphological (albumentations' dilation and erosion with OpenCV's elliptic element): the
image on the device against albumentations' own apply and OpenCV, masks on the host, boxes
against OpenCV's filter of a mask of each box alone."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from helpers import albumentations_and_photos, assert_ports, check_small_cases
from warpkit import augment as W
from warpkit.augment._morph import MAX_SIDE, ellipse

A, PHOTOS = albumentations_and_photos()
PHOTO = PHOTOS["astronaut"]
OPS = {"dilation": cv2.dilate, "erosion": cv2.erode}


def opencv(img: np.ndarray, scale, operation: str) -> np.ndarray:
    """OpenCV's filter with the element albumentations makes of ``scale``, shaped as
    ``img``."""
    el = A.Morphological(scale=scale).get_params()["kernel"]
    return OPS[operation](img, el).reshape(img.shape)


def test_scale_is_albumentations_pair():
    """A pair sorted, a number s as (1, s) (albumentations' validation, whatever its
    documentation says): the same element."""
    for scale in [(9, 4), (4, 9), 3, 1, (2, 3), (6, 6)]:
        theirs = A.Morphological(scale=scale)
        assert W.Morphological(scale=scale).scale == tuple(theirs.scale)
        np.testing.assert_array_equal(ellipse(W.Morphological(scale=scale).scale),
                                      theirs.get_params()["kernel"].astype(bool))


def test_the_element_is_opencvs():
    """Every size up to the largest taken: OpenCV's getStructuringElement(MORPH_ELLIPSE)."""
    for w in range(1, MAX_SIDE + 1):
        for h in range(1, MAX_SIDE + 1):
            want = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (w, h)).astype(bool)
            np.testing.assert_array_equal(ellipse((w, h)), want, err_msg=f"{(w, h)}")


@pytest.mark.parametrize("operation", ["dilation", "erosion"])
def test_photos_are_albumentations(queue, operation):
    """On three photos and on a corner of one (a 1-pixel strip too), uint8 and float32 as
    albumentations takes them, elements odd, even, wide, tall and albumentations' default:
    its own apply, value for value (a filter that picks values: exact on any machine)."""
    for k, (name, img) in enumerate(PHOTOS.items()):
        scale = [(2, 3), (5, 5), (9, 4)][k]
        theirs = A.Morphological(scale=scale, operation=operation, p=1)
        mine = W.Compose([W.Morphological(scale=scale, operation=operation, p=1)])
        for im in (img, img.astype(np.float32) / 255):
            want = theirs.apply(im, kernel=theirs.get_params()["kernel"])
            np.testing.assert_array_equal(mine(image=im, seed=0, queue=queue)["image"], want,
                                          err_msg=f"{name} {scale} {im.dtype}")
    for im in (PHOTO[:1, :40], PHOTO[100:140, 7:8], PHOTO[:3, :2]):
        got = W.Compose([W.Morphological(scale=(7, 6), operation=operation, p=1)])(
            image=im.copy(), seed=0, queue=queue)["image"]
        np.testing.assert_array_equal(got, opencv(im, (7, 6), operation))


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_channels_dtypes_and_the_widest_element(queue, channels):
    """1, 2 and 4 channels (albumentations takes 1 and 3; OpenCV the rest), uint16 as well,
    the widest element and a thin one: OpenCV's values."""
    crop = PHOTO[50:121, 60:157]
    img = np.concatenate([crop, crop[..., :1]], 2)[..., :channels]
    for im in (img, img.astype(np.uint16) * 257 + 3, img.astype(np.float32) / 255):
        for scale, operation in (((MAX_SIDE, MAX_SIDE), "dilation"), ((1, 12), "erosion"),
                                 ((4, 2), "dilation")):
            got = W.Compose([W.Morphological(scale, operation, p=1)])(
                image=im.copy(), seed=0, queue=queue)["image"]
            np.testing.assert_array_equal(got.reshape(im.shape), opencv(im, scale, operation),
                                          err_msg=f"{im.dtype} {scale} {operation}")


def test_after_a_warp_and_before_other_steps(queue):
    """In a pipeline: the warped image filtered, then a brightness step and the model input
    (float32 CHW, normalised) in the same launch; the mask filtered as the image."""
    geo = W.RandomAffine(degrees=20, scale=(0.8, 1.2), size=(96, 112))
    img = PHOTO[100:300, 50:260].copy()
    mask = (img[..., 0] > 128).astype(np.uint8) * 3
    base = W.Compose([geo])(image=img, mask=mask, seed=4, queue=queue)
    morph = W.Morphological(scale=(3, 5), operation="erosion", p=1)
    got = W.Compose([geo, morph])(image=img, mask=mask, seed=4, queue=queue)
    np.testing.assert_array_equal(got["image"], opencv(base["image"], (3, 5), "erosion"))
    np.testing.assert_array_equal(got["mask"], opencv(base["mask"], (3, 5), "erosion"))
    bright = W.RandomBrightnessContrast(brightness_limit=(0.1, 0.1), contrast_limit=0, p=1)
    model = W.Compose([geo, morph, bright], output_dtype="float32", mean=[0.5] * 3,
                      std=[0.25] * 3, layout="CHW")(image=img, seed=4, queue=queue)["image"]
    alone = W.Compose([bright])(image=got["image"], seed=4, queue=queue)["image"]
    want = (alone.astype(np.float32) / 255 - 0.5) / 0.25
    np.testing.assert_allclose(model, want.transpose(2, 0, 1), atol=1e-5)


def test_masks_any_dtype_and_in_order_with_dropout(queue):
    """Masks of every kind a pipeline takes (uint8, bool, float32 with channels, a list of
    masks), each as OpenCV filters it; a dropout's fill_mask before the
    dilation is dilated with the mask, after it is not."""
    img = PHOTO[:64, :80].copy()
    rs = np.random.default_rng(3)
    m8 = (rs.random((64, 80)) > 0.9).astype(np.uint8) * 7
    mf = rs.random((64, 80, 2)).astype(np.float32)
    mb = rs.random((64, 80)) > 0.95
    pipe = W.Compose([W.Morphological(scale=(4, 3), operation="dilation", p=1)])
    out = pipe(image=img, mask=m8, seed=0, queue=queue)
    np.testing.assert_array_equal(out["mask"], opencv(m8, (4, 3), "dilation"))
    out = pipe(image=img, masks=[mf, mb], seed=0, queue=queue)
    np.testing.assert_array_equal(out["masks"][0], opencv(mf, (4, 3), "dilation"))
    np.testing.assert_array_equal(out["masks"][1],
                                  opencv(mb.astype(np.uint8), (4, 3), "dilation") > 0)
    hole = W.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(10, 10),
                           hole_width_range=(10, 10), fill=0, fill_mask=9, p=1)
    morph = W.Morphological(scale=(5, 5), operation="dilation", p=1)
    zero = np.zeros((64, 80), np.uint8)
    first = W.Compose([hole, morph])(image=img, mask=zero, seed=5, queue=queue)
    then = W.Compose([morph, hole])(image=img, mask=zero, seed=5, queue=queue)
    filled = []
    for out, k in ((first, 0), (then, 1)):
        x1, y1, x2, y2 = out["params"]["steps"][k]["holes"][0]
        filled.append(zero.copy())
        filled[-1][y1:y2, x1:x2] = 9
    np.testing.assert_array_equal(first["mask"], opencv(filled[0], (5, 5), "dilation"))
    np.testing.assert_array_equal(then["mask"], filled[1])


def _per_box(boxes: np.ndarray, shape, scale, operation) -> list:
    """albumentations' box rule applied to each box alone (its 2.0.8 filters all the boxes'
    masks at once, as one image whose channels are their columns): the box around OpenCV's
    filter of a mask of the box; None where it empties."""
    from albumentations.augmentations.geometric.functional import (bboxes_from_masks,
                                                                   masks_from_bboxes)
    out = []
    for b in boxes:
        m = masks_from_bboxes(b[None], shape)[0]
        got = bboxes_from_masks(opencv(m, scale, operation))[0]
        out.append(None if got[0] < 0 else got.tolist())
    return out


@pytest.mark.parametrize("operation", ["dilation", "erosion"])
def test_boxes_as_a_mask_of_each(queue, operation):
    """Whole-pixel boxes, inside, at the edges and small enough for erosion to empty: each as
    OpenCV's filter moves a mask of it; emptied ones removed with their labels; keypoints
    stay. (albumentations' own result mixes the boxes: shown, not followed.)"""
    shape = (60, 90)
    img = np.zeros((*shape, 3), np.uint8)
    boxes = np.array([[10, 20, 30, 41], [0, 0, 5, 7], [50, 33, 90, 60], [40, 10, 43, 12],
                      [0, 30, 90, 40], [70, 0, 71, 60]], np.float64)
    labels = list(range(len(boxes)))
    kps = np.array([[5.0, 5.0], [44.5, 30.25]])
    for scale in [(2, 3), (5, 5), (4, 7), (1, 1)]:
        pipe = W.Compose([W.Morphological(scale=scale, operation=operation, p=1)],
                         box_format="pascal_voc", label_fields=["labels"])
        out = pipe(image=img, boxes=boxes, labels=labels, keypoints=kps, seed=0, queue=queue)
        want = _per_box(boxes, shape, scale, operation)
        kept = [k for k, w in enumerate(want) if w is not None]
        assert list(out["labels"]) == kept, scale
        np.testing.assert_array_equal(out["boxes"], [want[k] for k in kept], err_msg=f"{scale}")
        np.testing.assert_array_equal(out["keypoints"], kps)
    if operation == "dilation":  # albumentations' own: every box grows to most of the image
        theirs = A.Compose([A.Morphological(scale=(5, 5), operation=operation, p=1)],
                           bbox_params=A.BboxParams(format="pascal_voc", label_fields=[]))
        assert theirs(image=img, bboxes=boxes)["bboxes"][0].tolist() == [0, 0, 90, 60]


def test_min_visibility_compares_the_whole_box_moved_alike(queue):
    """A box half outside the output keeps its visible share under dilation (the whole box
    grows as its visible part does), so min_visibility keeps or drops it as without the step;
    a fully visible box eroded stays fully visible."""
    img = np.zeros((50, 50, 3), np.uint8)
    geo = W.Affine(translate_px={"x": 20, "y": 0}, p=1)
    boxes = np.array([[20.0, 10.0, 50.0, 30.0], [5.0, 5.0, 15.0, 15.0]])
    for operation in ("dilation", "erosion"):
        pipe = W.Compose([geo, W.Morphological(scale=(3, 3), operation=operation, p=1)],
                         box_format="pascal_voc", min_visibility=0.9)
        out = pipe(image=img, boxes=boxes, seed=0, queue=queue)
        grow = 1 if operation == "dilation" else -1
        # the first box is a third outside: dropped; the second, moved by 20, kept whole
        np.testing.assert_array_equal(out["boxes"],
                                      [[25 - grow, 5 - grow, 35 + grow, 15 + grow]])


def test_batches_draw_nothing_and_replay(queue):
    """A ragged batch through one call: each sample as alone (nothing drawn: albumentations
    draws nothing either), params replayed, p honoured per sample."""
    crops = [PHOTO[:40, :50].copy(), PHOTO[100:170, 30:90].copy(), PHOTO[5:26, 9:40].copy()]
    pipe = W.Compose([W.Morphological(scale=(3, 2), operation="dilation", p=0.5),
                      W.Resize(32, 32)])
    got = pipe(image=crops, seed=1, queue=queue)
    applied = [p["steps"][0]["applied"] for p in got["params"]]
    assert len(set(applied)) == 2, applied  # (seed 1: both outcomes)
    for k, im in enumerate(crops):
        alone = pipe(image=im, seed=1, index=k, queue=queue)
        np.testing.assert_array_equal(got["image"][k], alone["image"])
        again = pipe(image=im, params=got["params"][k], queue=queue)
        np.testing.assert_array_equal(got["image"][k], again["image"])


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Dilation and erosion after a rotation, on each device CI runs and on Oclgrind: the
    default device's values."""
    img = PHOTO[100:117, 200:219].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    check_small_cases(img, geo, [[W.Morphological(scale=(3, 3), p=1)],
                                 [W.Morphological(scale=(2, 5), operation="erosion", p=1)]],
                      small_queue)


def test_serialised_and_ported():
    """to_dict / from_dict keep the parameters; from_albumentations maps albumentations' own
    from a Compose, its dict and its JSON; a number s is (1, s)."""
    t = W.Morphological(scale=(4, 6), operation="erosion", p=0.3)
    assert_ports(t, A.Morphological(scale=(4, 6), operation="erosion", p=0.3))
    assert W.Morphological(scale=3).config()["scale"] == [1, 3]
    theirs = A.Compose([A.Morphological(scale=3, p=0.7)])
    for given in (A.to_dict(theirs), json.loads(json.dumps(A.to_dict(theirs)))):
        back = W.from_albumentations(given).transforms[0]
        assert back.config() == {"scale": [1, 3], "operation": "dilation"} and back.p == 0.7


def test_refused_arguments(queue):
    with pytest.raises(ValueError, match="scale must be a whole number >= 1.*got 0"):
        W.Morphological(scale=0)
    with pytest.raises(ValueError, match="scale must be a whole number.*got \\(2.5, 3\\)"):
        W.Morphological(scale=(2.5, 3))
    with pytest.raises(ValueError, match=f"at most {MAX_SIDE} a side"):
        W.Morphological(scale=(3, MAX_SIDE + 1))
    with pytest.raises(ValueError, match="operation must be 'dilation' or 'erosion', got 'open'"):
        W.Morphological(operation="open")
    with pytest.raises(TypeError, match="at most 4 channels, got 5"):
        W.Morphological(p=1).colour_ops({}, 5, 255.0)
    import pyopencl.array as cla
    device_mask = cla.to_device(queue, np.zeros(PHOTO.shape[:2], np.uint8))
    with pytest.raises(ValueError, match="Morphological filters masks on the host.*got Array"):
        W.Compose([W.Morphological(p=1)])(image=PHOTO, mask=device_mask, seed=0, queue=queue)


def test_the_engine_refuses_operations_the_kernel_cannot_read(queue):
    """A COL_MORPH operation whose reach, rows or flag the kernel would read past its private
    limits or its list: refused on the host before any launch, naming it."""
    from warpkit.engine.core import COL_DATA, COL_MORPH, COLOUR_WORDS, warp_by

    img = PHOTO[:8, :8].copy()
    ops = np.zeros((3, COLOUR_WORDS), np.float32)
    ops[0, :5] = [COL_MORPH, 2, 1, 2, 1]
    ops[1, :4] = [COL_DATA, -1, 0, 1]  # OpenCV's 3 x 2 ellipse, by hand
    ops[2, :4] = [COL_DATA, 0, -1, 3]
    got = warp_by(img, np.eye(3), (8, 8), queue=queue, colour=ops.reshape(1, -1))
    el = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 2))
    np.testing.assert_array_equal(got, cv2.dilate(img, el))
    for at, value, why in [((0, 2), 40, "reach in \\[0, 32\\] \\(got 40\\)"),
                           ((0, 4), 2, "1 or 0 \\(dilation or erosion, got 2\\)"),
                           ((0, 3), 1, "counted again in word 3, got 1"),
                           ((2, 0), 0, "COL_MORPH needs"),
                           ((1, 3), 3, "row 0 must hold whole numbers"),
                           ((2, 1), 0.5, "row 1 must hold whole numbers")]:
        bad = ops.copy()
        bad[at] = value
        with pytest.raises(ValueError, match=f"colour\\[0\\]'s operation 0: .*{why}"):
            warp_by(img, np.eye(3), (8, 8), queue=queue, colour=bad.reshape(1, -1))
