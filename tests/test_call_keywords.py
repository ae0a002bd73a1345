"""albumentations' way of calling a pipeline (issue: porting without traps): ``bboxes=``, label
fields by their own names (several, filtered in step), ``BboxParams`` / ``KeypointParams``,
``additional_targets``, label columns inside box rows, unknown keys passed through (or refused
with ``strict``); float masks resampled with ``mask_interpolation``. Each is checked against
albumentations 2.0.8 itself with fixed parameters."""

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

PHOTO = skimage.data.astronaut()[::2, ::2].copy()  # 256 x 256 RGB
# the third box leaves the image under the rotation below (dropped at min_visibility 0.5)
BOXES = [[60.0, 40.0, 150.0, 120.0], [100.5, 130.25, 140.0, 200.0], [0.0, 0.0, 30.0, 24.0],
         [200.0, 60.0, 230.0, 180.0]]
POINTS = [[128.0, 100.0], [3.0, 4.0], [70.5, 200.25]]


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def _geometry(lib):
    return [lib.Affine(rotate=(25, 25), scale=(1.3, 1.3), p=1), lib.HorizontalFlip(p=1)]


def _heatmap(h, w):
    y, x = np.mgrid[:h, :w].astype(np.float32)
    return np.exp(-((x - 0.6 * w) ** 2 + (y - 0.4 * h) ** 2) / (2 * (0.15 * w) ** 2))


def _call():
    return dict(image=PHOTO, image2=PHOTO[..., ::-1].copy(), depth=_heatmap(256, 256),
                instances=[(PHOTO[..., 0] > 128).astype(np.uint8), (PHOTO[..., 1] > 60)
                           .astype(np.uint8) * 3],
                bboxes=BOXES, class_labels=["a", "b", "c", "d"], ids=np.array([10, 11, 12, 13]),
                keypoints=POINTS, joint=["head", "corner", "foot"], frame_id=17)


def _compose(lib, **kw):
    return _quiet(lib.Compose, _geometry(lib),
                  bbox_params=lib.BboxParams(format="pascal_voc",
                                             label_fields=["class_labels", "ids"],
                                             min_visibility=0.5),
                  keypoint_params=lib.KeypointParams(format="xy", label_fields=["joint"]),
                  additional_targets={"image2": "image", "depth": "mask",
                                      "instances": "masks"}, **kw)


def _same(ours, theirs):
    for key in ("image", "image2"):
        assert ours[key].shape == theirs[key].shape
        assert np.abs(ours[key].astype(int) - theirs[key]).max() <= 1, key
    np.testing.assert_allclose(ours["bboxes"], np.asarray(theirs["bboxes"]), atol=0.5)
    assert ours["class_labels"] == theirs["class_labels"]
    assert isinstance(ours["ids"], np.ndarray) and ours["ids"].tolist() == list(theirs["ids"])
    np.testing.assert_allclose(ours["keypoints"], np.asarray(theirs["keypoints"]), atol=2e-3)
    assert ours["joint"] == list(theirs["joint"])
    assert ours["frame_id"] == theirs["frame_id"] == 17  # passed through untouched
    for a, b in zip(ours["instances"], theirs["instances"]):  # nearest: the same labels
        assert a.dtype == b.dtype and (a != b).mean() < 2e-3


def test_albumentations_call_gives_albumentations_results(queue):
    """The same Compose arguments and the same call, warpkit's and albumentations' classes:
    every key comes back, the boxes filtered with both label fields, the keypoints with theirs."""
    theirs = _compose(A)(**_call())
    ours = _compose(W)(**_call(), seed=0, queue=queue)
    assert set(theirs) <= set(ours)
    assert len(ours["bboxes"]) == 3 and "c" not in ours["class_labels"]  # one dropped
    assert len(ours["keypoints"]) == 2 and ours["joint"] == ["head", "foot"]
    _same(ours, theirs)
    # the float mask: linear resampling asked for, as albumentations' transforms ask
    # (mask_interpolation is OpenCV's linear, whose weights are fixed point: within 1e-2)
    assert ours["depth"].dtype == np.float32
    assert np.abs(ours["depth"] - theirs["depth"]).max() < 2e-2


def test_from_albumentations_carries_the_targets(queue):
    """from_albumentations keeps label fields, keypoint label fields and additional targets:
    the port takes the albumentations call as it is."""
    aug = W.from_albumentations(_compose(A))
    assert aug.label_fields == ("class_labels", "ids")
    assert aug.additional_targets == {"image2": "image", "depth": "mask", "instances": "masks"}
    _same(aug(**_call(), seed=0, queue=queue), _compose(A)(**_call()))


def test_box_rows_with_label_columns(queue):
    """albumentations' boxes may carry their labels as columns after the 4 numbers: they come
    back after them, in step with the boxes."""
    rows = [[*b, k, 100 + k] for k, b in enumerate(BOXES)]
    coco = [[x1, y1, x2 - x1, y2 - y1, *rest] for x1, y1, x2, y2, *rest in rows]
    theirs = _quiet(A.Compose, _geometry(A), bbox_params=A.BboxParams(
        format="coco", min_visibility=0.5))(image=PHOTO, bboxes=coco)
    ours = W.Compose(_geometry(W), bbox_params=W.BboxParams(format="coco", min_visibility=0.5),
                     target_types="arrays")(image=PHOTO, bboxes=coco, seed=0, queue=queue)
    assert ours["bboxes"].shape == (3, 6)
    np.testing.assert_allclose(ours["bboxes"][:, :4], np.asarray(theirs["bboxes"])[:, :4],
                               atol=0.5)
    assert ours["bboxes"][:, 4:].tolist() == [[0, 100], [1, 101], [3, 103]]
    # a batch where one image has no boxes: its empty rows take the others' columns
    batch = W.Compose(_geometry(W), bbox_params=W.BboxParams(format="coco",
                                                             min_visibility=0.5),
                      target_types="arrays")(
        image=np.stack([PHOTO, PHOTO]), bboxes=[coco, []], seed=0, queue=queue)
    np.testing.assert_array_equal(batch["bboxes"][0], ours["bboxes"])
    assert batch["bboxes"][1].shape == (0, 6)
    with pytest.raises(ValueError, match=r"every sample's rows must have the same columns"):
        W.Compose([])(image=np.stack([PHOTO, PHOTO]), bboxes=[coco, BOXES], seed=0)
    # albumentations' keyword (bbox_params) gives its result types by default: rows of floats
    # for rows given as lists, as the port does
    alb = W.Compose(_geometry(W), bbox_params=W.BboxParams(format="coco", min_visibility=0.5))(
        image=PHOTO, bboxes=coco, seed=0, queue=queue)["bboxes"]
    assert isinstance(alb, list) and all(type(v) is float for r in alb for v in r)
    np.testing.assert_array_equal(np.asarray(alb), ours["bboxes"])


@pytest.mark.parametrize("params", [dict(min_width=82), dict(min_height=120),
                                    dict(max_accept_ratio=1.6), dict(min_area=10000)])
def test_box_filters_as_albumentations(params, queue):
    """BboxParams' min_width, min_height and max_accept_ratio drop the same boxes."""
    call = dict(bboxes=BOXES, class_labels=["a", "b", "c", "d"])
    theirs = _quiet(A.Compose, _geometry(A), bbox_params=A.BboxParams(
        format="pascal_voc", label_fields=["class_labels"], **params))(image=PHOTO, **call)
    ours = W.Compose(_geometry(W), bbox_params=W.BboxParams(
        format="pascal_voc", label_fields=["class_labels"], **params))(
        image=PHOTO, **call, seed=0, queue=queue)
    assert ours["class_labels"] == theirs["class_labels"]
    assert 0 < len(ours["class_labels"]) < 3  # the filter dropped a visible box, not all


def test_a_batch_keeps_label_fields_in_step(queue):
    """In a batch call each label field is one list per sample, filtered with that sample's
    boxes; a keypoint field with its keypoints."""
    aug = W.Compose([W.Affine(translate_px={"x": (-60, 60), "y": (-60, 60)}, p=1)],
                    label_fields=["cls", "track"], keypoint_label_fields=["part"],
                    min_visibility=0.9)
    batch = np.stack([PHOTO] * 6)
    out = aug(image=batch, bboxes=[BOXES] * 6, cls=[["a", "b", "c", "d"]] * 6,
              track=[np.arange(4) * 10] * 6, keypoints=[POINTS] * 6,
              part=[[7, 8, 9]] * 6, seed=3, queue=queue)
    single = [aug(image=PHOTO, bboxes=BOXES, cls=["a", "b", "c", "d"], track=np.arange(4) * 10,
                  keypoints=POINTS, part=[7, 8, 9], seed=3, index=k, queue=queue)
              for k in range(6)]
    assert len({len(c) for c in out["cls"]}) > 1  # samples dropped different boxes
    for k, one in enumerate(single):
        assert out["cls"][k] == one["cls"]
        assert out["track"][k].tolist() == one["track"].tolist()
        assert [{"a": 0, "b": 10, "c": 20, "d": 30}[c] for c in out["cls"][k]] == \
            out["track"][k].tolist()  # still in step with each other
        np.testing.assert_array_equal(out["bboxes"][k], one["bboxes"])
        assert out["part"][k] == one["part"] and len(out["part"][k]) == len(out["keypoints"][k])


def test_remove_invisible_false_keeps_every_keypoint_label():
    aug = W.Compose([W.HorizontalFlip(p=1)], keypoint_params=W.KeypointParams(
        format="xy", label_fields=["part"], remove_invisible=False))
    out = aug(image=PHOTO, keypoints=[[10, 10], [300, 5]], part=np.array([1, 2]), seed=0)
    assert out["part"].tolist() == [1, 2] and out["keypoints_visible"].tolist() == [True, False]


def test_strict_and_passing_through():
    aug = W.Compose([W.HorizontalFlip(p=1)])
    out = aug(image=PHOTO, note="kept", seed=0)
    assert out["note"] == "kept"
    strict = W.Compose([W.HorizontalFlip(p=1)], strict=True)
    with pytest.raises(TypeError, match=r"the call got keypoint=, which this pipeline does not "
                                        r"know \(strict=True; it takes image, images, mask, masks"):
        strict(image=PHOTO, keypoint=[[1, 2]], seed=0)


def test_extra_boxes_and_keypoints_targets(queue):
    """Additional 'bboxes' and 'keypoints' targets are moved and filtered by the same map as
    the call's own (without label fields)."""
    aug = W.Compose(_geometry(W), min_visibility=0.5,
                    additional_targets={"boxes2": "bboxes", "points2": "keypoints"})
    out = aug(image=PHOTO, bboxes=BOXES, boxes2=BOXES[::-1], keypoints=POINTS,
              points2=POINTS[::-1], seed=0, queue=queue)
    np.testing.assert_array_equal(out["boxes2"], out["bboxes"][::-1])
    np.testing.assert_array_equal(out["points2"], out["keypoints"][::-1])


@pytest.mark.parametrize("kw,exc,pattern", [
    (dict(bbox_params=W.BboxParams(format="coco"), box_format="coco"), ValueError,
     r"give bbox_params= or box_format=, not both"),
    (dict(keypoint_params={"format": "xy", "flavour": 1}), ValueError,
     r"keypoint_params: parameters warpkit does not know: flavour"),
    (dict(bbox_params="coco"), TypeError, r"bbox_params must be a BboxParams"),
    (dict(label_fields=["ids"], keypoint_label_fields=["ids"]), ValueError,
     r"'ids' names two targets"),
    (dict(label_fields="ids"), ValueError, r"label_fields must be a list of names"),
    (dict(label_fields=["seed"]), ValueError, r"'seed' is a call's own keyword"),
    (dict(additional_targets={"image2": "video"}), ValueError,
     r"additional_targets\['image2'\] must be one of"),
    (dict(additional_targets={"mask": "image"}), ValueError, r"'mask' is a call's own keyword"),
    (dict(bbox_params=dict(format="coco", max_accept_ratio=0.5)), ValueError,
     r"max_accept_ratio must be >= 1"),
    (dict(mask_interpolation="lanczos"), ValueError, r"interpolation must be one of"),
])
def test_bad_target_arguments(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        W.Compose([W.HorizontalFlip()], **kw)


@pytest.mark.parametrize("call,pattern", [
    (dict(boxes=BOXES, bboxes=BOXES), r"give the boxes as boxes= or as bboxes="),
    (dict(bboxes=BOXES, labels=[1, 2, 3, 4]), r"labels= is not a label field of this pipeline "
                                              r"\(its label fields: cls\)"),
    (dict(bboxes=BOXES, cls=[1, 2]), r"cls must have one entry per box: 4 boxes, 2 cls"),
    (dict(image2=PHOTO[:100]), r"image2 must be laid out as image is"),
    (dict(depth=np.zeros((10, 10), np.float32)), r"depth must have its image's height and width"),
])
def test_bad_calls_are_refused_before_any_launch(call, pattern, monkeypatch):
    from warpkit import _op

    monkeypatch.setattr(_op, "launch", lambda *a: pytest.fail("a kernel ran"))
    aug = W.Compose([W.HorizontalFlip()], label_fields=["cls"],
                    additional_targets={"image2": "image", "depth": "mask"})
    with pytest.raises(ValueError, match=pattern):
        aug(image=PHOTO, seed=0, **call)


def test_to_dict_keeps_the_target_settings():
    aug = _compose(W, mask_interpolation="linear", strict=True)
    back = W.Compose.from_dict(aug.to_dict())
    for key in ("label_fields", "keypoint_label_fields", "additional_targets", "strict",
                "min_visibility", "mask_interpolation", "box_format"):
        assert getattr(back, key) == getattr(aug, key), key


def test_batches_hand_over_label_fields_and_extra_targets():
    aug = W.Compose([W.HorizontalFlip(p=1)], label_fields=["cls"],
                    additional_targets={"depth": "mask"})
    loader = [{"image": np.stack([PHOTO] * 2), "depth": np.zeros((2, 256, 256), np.float32),
               "bboxes": [BOXES[:2], BOXES[:1]], "cls": [[1, 2], [3]], "path": ["a", "b"],
               "index": [0, 1]}]
    (got,) = list(W.batches(loader, aug, seed=0))
    assert got["cls"] == [[1, 2], [3]] and got["path"] == ["a", "b"]
    assert got["depth"].shape == (2, 256, 256) and got["bboxes"][1][0, 0] == 256 - BOXES[0][2]


# ---- float masks (heatmaps, soft labels, depth) ------------------------------------------

@pytest.mark.parametrize("code,dtype", [(cv2.INTER_LINEAR, np.float32),
                                        (cv2.INTER_CUBIC, np.float32),
                                        (cv2.INTER_LINEAR, np.float64),
                                        (cv2.INTER_NEAREST, np.float32)])
def test_float_masks_follow_mask_interpolation(code, dtype, queue):
    """A float mask is resampled with albumentations' mask_interpolation, in its own dtype,
    channels and all (6 channels: more than one warp's 4)."""
    heat = np.stack([_heatmap(256, 256) * (k + 1) for k in range(6)], -1).astype(dtype)
    t = dict(rotate=(20, 20), scale=(0.9, 0.9), translate_px={"x": 5, "y": -3},
             mask_interpolation=code, p=1)
    theirs = _quiet(A.Compose, [A.Affine(**t)])(image=PHOTO, mask=heat)["mask"]
    ours = W.Compose([W.Affine(**t)])(image=PHOTO, mask=heat, seed=0, queue=queue)["mask"]
    assert ours.dtype == dtype and ours.shape == theirs.shape
    err = np.abs(ours.astype(np.float64) - theirs)
    if code == cv2.INTER_NEAREST:  # a tie at half pixels may pick the other neighbour
        assert (err > 1e-6).mean() < 1e-3
    else:  # OpenCV's weights are fixed point (1/32 of a pixel)
        assert err.max() < 0.02 * 6


def test_integer_masks_stay_nearest_and_may_be_linear(queue):
    """Integer masks are labels: nearest by default; asked for linear, they are rounded as
    OpenCV rounds them."""
    labels = (PHOTO[..., 0] // 64).astype(np.uint8) * 60
    out = W.Compose([W.Affine(rotate=(10, 10), p=1)])(image=PHOTO, mask=labels, seed=0)["mask"]
    assert set(np.unique(out)) <= {0, 60, 120, 180}
    t = dict(rotate=(10, 10), mask_interpolation=cv2.INTER_LINEAR, p=1)
    ours = W.Compose([W.Affine(**t)])(image=PHOTO, mask=labels, seed=0, queue=queue)["mask"]
    theirs = _quiet(A.Compose, [A.Affine(**t)])(image=PHOTO, mask=labels)["mask"]
    assert len(np.unique(ours)) > 4 and np.abs(ours.astype(int) - theirs).max() <= 1


def test_albumentations_keywords_bring_its_result_types_and_boxes():
    """bbox_params= / keypoint_params= (albumentations' keywords) default the pipeline to
    albumentations' result types and its clipped boxes, as the port sets them; warpkit's own
    box settings keep arrays and outlines; given settings win; the data keeps them."""
    alb = W.Compose([], bbox_params=W.BboxParams(format="coco"))
    points = W.Compose([], keypoint_params=W.KeypointParams(format="xy"))
    own = W.Compose([], box_format="coco")
    assert (alb.target_types, alb.box_border) == ("albumentations", "clip")
    assert (points.target_types, points.box_border) == ("albumentations", "outline")
    assert (own.target_types, own.box_border) == ("arrays", "outline")
    given = W.Compose([], bbox_params=W.BboxParams(format="coco"), target_types="arrays",
                      box_border="outline")
    assert (given.target_types, given.box_border) == ("arrays", "outline")
    for c in (alb, points, own, given):
        back = W.Compose.from_dict(c.to_dict())
        assert (back.target_types, back.box_border) == (c.target_types, c.box_border)
