"""Porting a recipe from albumentations or torchvision without traps (warpkit.augment): sizes are
(height, width) in every transform, as there, while the warps keep (width, height); pipeline data
saved when the sizes were (width, height) is refused rather than read swapped."""

from __future__ import annotations

import json
import os
import re
import warnings

import cv2
import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from warpkit import augment as W
from warpkit.cli.app import app

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.coffee()  # 400 x 600 RGB


def _alb(t, **call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([t])(**call)


@pytest.mark.parametrize("hw", [(224, 160), (100, 301), 96])
def test_output_sizes_are_height_width_as_albumentations(hw, queue):
    """The same size argument gives the same output shape as albumentations' transform."""
    h, w = (hw, hw) if isinstance(hw, int) else hw
    cases = [(W.RandomResizedCrop(hw), A.RandomResizedCrop(size=(h, w))),
             (W.Resize(hw), A.Resize(h, w)),
             (W.Resize(height=h, width=w), A.Resize(height=h, width=w)),
             (W.CenterCrop(hw), A.CenterCrop(h, w)),
             (W.CenterCrop(height=h, width=w), A.CenterCrop(height=h, width=w)),
             (W.RandomCrop(hw), A.RandomCrop(h, w)),
             (W.RandomCrop(height=h, width=w), A.RandomCrop(height=h, width=w))]
    for ours, theirs in cases:
        got = W.Compose([ours])(image=PHOTO, seed=1, queue=queue)
        want = _alb(theirs, image=PHOTO)["image"]
        assert got["image"].shape == want.shape == (h, w, 3), (ours, theirs)
        assert got["size"] == (w, h)  # the warp's (width, height), with out["matrix"]


def test_resize_and_even_centre_crop_match_albumentations(queue):
    """Non-square sizes give albumentations' pixels, not only its shape: a resize within 1 level
    and a centre crop whose margins are even (where both place the corner alike) exactly."""
    got = W.Compose([W.Resize((150, 250))], padding="border")(image=PHOTO, seed=0, queue=queue)
    want = _alb(A.Resize(150, 250), image=PHOTO)["image"]
    assert np.abs(got["image"].astype(int) - want).max() <= 1
    got = W.Compose([W.CenterCrop((100, 300))])(image=PHOTO, seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(got, _alb(A.CenterCrop(100, 300), image=PHOTO)["image"])
    np.testing.assert_array_equal(got, PHOTO[150:250, 150:450])


def test_input_sizes_are_height_width_too():
    """Compose.sample and RandomAffine.sample / matrices take an input's (height, width), as
    image.shape[:2]: the parameters a call on such an image draws."""
    img = np.zeros((48, 80, 3), np.uint8)
    pipe = W.Compose([W.RandomResizedCrop((20, 30), scale=(0.2, 0.5)), W.RandomRotation(20)])
    assert pipe.sample(img.shape[:2], seed=3, index=5) == \
        pipe(image=img, seed=3, index=5)["params"]
    aff = W.RandomAffine(degrees=20, scale=(0.8, 1.2), size=(20, 30))
    _, mats = aff([img, img], rng=4, return_matrices=True)
    np.testing.assert_array_equal(aff.sample(2, img.shape[:2], rng=4), mats)
    np.testing.assert_array_equal(aff.matrices(2, img.shape[:2], rng=4), mats)
    # the output is 20 high and 30 wide; its centre is the input's
    c = np.array([[39.5, 23.5, 1.0]]) @ mats[0].T
    np.testing.assert_allclose(c[0, :2] / c[0, 2], [14.5, 9.5], atol=1e-9)


def test_saved_pipelines_carry_their_format():
    pipe = W.Compose([W.RandomResizedCrop((224, 160)),
                      W.OneOf([W.CenterCrop((30, 40)), W.Resize(height=5, width=7)])])
    d = pipe.to_dict()
    assert d["format"] == 4 and d["transforms"][0]["size"] == [224, 160]
    assert "format" not in d["transforms"][0]  # the steps inherit their pipeline's
    again = W.Compose.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    out = again(image=np.zeros((60, 90, 3), np.uint8), seed=0)
    assert out["image"].shape in ((30, 40, 3), (5, 7, 3))


@pytest.mark.parametrize("data,match", [
    # format 1 (no "format"): written when sizes were (width, height)
    ({"type": "Compose", "transforms": [{"type": "RandomResizedCrop", "size": [224, 160]}]},
     r"RandomResizedCrop size=\[224, 160\]: this pipeline data has no \"format\", so it was "
     r"written when warpkit.augment's sizes were \(width, height\)"),
    ({"type": "Compose", "transforms": [
        {"type": "OneOf", "transforms": [{"type": "Resize", "size": [20, 10]}]}]},
     r"Resize size=\[20, 10\]"),
    ({"type": "RandomAffine", "size": [20, 10]}, r"RandomAffine size=\[20, 10\]"),
    ({"type": "Compose", "format": 5, "transforms": []},
     r"Compose: format must be 1, 2, 3 or 4, got 5"),
])
def test_data_of_the_old_size_order_is_refused(data, match):
    with pytest.raises(ValueError, match=match):
        W.Compose.from_dict(data)


def test_data_of_the_old_order_with_square_sizes_still_loads():
    old = {"type": "Compose", "transforms": [{"type": "RandomResizedCrop", "size": [32, 32]},
                                             {"type": "CenterCrop", "size": 16},
                                             {"type": "RandomAffine", "size": None}]}
    pipe = W.Compose.from_dict(old)
    assert pipe(image=np.zeros((40, 50, 3), np.uint8), seed=0)["image"].shape == (16, 16, 3)


def test_sizes_as_albumentations_orders_them():
    """albumentations' positional (height, width) for the crops and Resize: the same output
    sizes as albumentations' own; warpkit's one size argument still works."""
    import albumentations as A

    img = np.zeros((300, 400, 3), np.uint8)
    for name in ("CenterCrop", "RandomCrop", "Resize"):
        ours = getattr(W, name)(120, 200, p=1)(image=img, seed=0)["image"]
        theirs = getattr(A, name)(120, 200, p=1)(image=img)["image"]
        assert ours.shape == theirs.shape == (120, 200, 3), name
        assert getattr(W, name)((120, 200)).size == getattr(W, name)(120, 200).size
        assert getattr(W, name)(height=120, width=200).size == (200, 120)


@pytest.mark.parametrize("call,match", [
    (lambda: W.CenterCrop(), r"give the size as size=\(height, width\) \(an int: a square\) or "
                             r"as height= and width="),
    (lambda: W.CenterCrop((2, 3), height=4, width=5), r"not both forms; got size=\(2, 3\), "
                                                      r"height=4, width=5"),
    (lambda: W.RandomCrop(height=4), r"as both height= and width=.*width=None"),
    (lambda: W.Resize(height=4, width=5, shorter=3), r"Resize takes one of size= \(or height= "
                                                     r"and width=\), shorter= or longer="),
    (lambda: W.RandomResizedCrop((224, 0)), r"size must be an int \(a square\) or \(height, "
                                            r"width\) of whole numbers >= 1, got \(224, 0\)"),
    (lambda: W.CenterCrop((2, 3), 0.5), r"width must be a whole number of pixels, got 0.5 "
                                         r"\(the probability p comes after height and width"),
    (lambda: W.RandomCrop((2, 3), 5), r"not both forms; got size=\(2, 3\), height=None"),
    (lambda: W.Compose([W.RandomCrop(5)]).sample((10, 0), seed=0),
     r"size must be an int \(a square\) or \(height, width\)"),
])
def test_size_arguments_are_checked(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_cli_sizes_stay_width_x_height(tmp_path):
    """The command line's --size is WxH (it says so): the affine path turns it into the
    transform's (height, width), and the output is W wide and H high."""
    src = tmp_path / "in.png"
    Image.fromarray(PHOTO[:60, :90]).save(src)
    r = CliRunner().invoke(app, ["augment", str(src), "-o", str(tmp_path / "out"), "--copies",
                                 "1", "--degrees", "5", "--size", "40x30", "--seed", "1"])
    assert r.exit_code == 0, r.output
    (out,) = (tmp_path / "out").glob("in_aug*.png")
    with Image.open(out) as im:
        assert im.size == (40, 30)


# -- boxes: checked as albumentations checks them, before any launch ---------------------------

BOX_IMG = np.zeros((100, 200, 3), np.uint8)


def _both(boxes, fmt, clip=False, filter_invalid=False, queue=None):
    """albumentations' boxes and labels through a flip, and warpkit's (or the ValueError of
    each)."""
    labels = list(range(len(boxes)))
    try:
        recipe = A.Compose([A.HorizontalFlip(p=1)], bbox_params=A.BboxParams(
            format=fmt, label_fields=["labels"], clip=clip, filter_invalid_bboxes=filter_invalid))
        a = _quiet_alb(recipe, image=BOX_IMG, bboxes=boxes, labels=labels)
        theirs = (np.asarray(a["bboxes"], np.float64).reshape(-1, 4), list(a["labels"]))
    except ValueError as e:
        theirs = e
    try:
        w = W.Compose([W.RandomHorizontalFlip(p=1)], box_format=fmt, clip_boxes=clip,
                      filter_invalid_boxes=filter_invalid)(image=BOX_IMG, boxes=boxes,
                                                           labels=labels, seed=0, queue=queue)
        ours = (np.asarray(w["boxes"], np.float64).reshape(-1, 4), list(w["labels"]))
    except ValueError as e:
        ours = e
    return theirs, ours


@pytest.mark.parametrize("boxes,fmt,match", [
    ([[10, 10, 5, 20]], "pascal_voc", r"boxes\[0\] \[10.0, 10.0, 5.0, 20.0\] has x2 <= x1: "
                                      r"box_format='pascal_voc' boxes are corners .*a COCO box "
                                      r"\[x, y, width, height\] needs box_format='coco'"),
    ([[10, 30, 50, 20]], "pascal_voc", r"has y2 <= y1"),
    ([[1, 1, 5, 5], [10, 10, 10, 20]], "pascal_voc", r"boxes\[1\] .* has x2 <= x1"),
    ([[10, 10, 0, 20]], "coco", r"has no width: box_format='coco' boxes need a positive width"),
    ([[-5, 10, 50, 20]], "pascal_voc", r"reaches outside the 200x100 image \(x1 = -5, the image "
                                       r"spans \[0, 200\]\): pass clip_boxes=True"),
    ([[0, 0, 200.01, 100]], "pascal_voc", r"\(x2 = 200.01, the image spans \[0, 200\]\)"),
    ([[50, 50, 20, 20]], "yolo", r"box_format='yolo' boxes are fractions of the image, its "
                                 r"corners in \[0, 1\]; this one's x1 is 40 of the 200x100 "
                                 r"image \(pixel boxes given as yolo\?"),
    ([[0.5, 0.5, 1.2, 0.2]], "yolo", r"this one's x1 is -0.1 of the 200x100 image"),
    ([[0.2, 0.1, 1.5, 0.5]], "albumentations", r"box_format='albumentations' .* x2 is 1.5"),
])
def test_bad_boxes_are_refused_where_albumentations_refuses_them(boxes, fmt, match):
    theirs, ours = _both(boxes, fmt)
    assert isinstance(theirs, ValueError), theirs
    assert isinstance(ours, ValueError)
    assert re.search(match, str(ours)), str(ours)


@pytest.mark.parametrize("boxes,fmt,clip,filter_invalid", [
    ([[-5, 10, 50, 20], [190, 50, 230, 99]], "pascal_voc", True, False),
    ([[0.5, 0.5, 1.2, 0.2], [0.1, 0.2, 0.1, 0.1]], "yolo", True, False),
    ([[-20, 10, 30, 20]], "coco", True, False),
    ([[0.1, -0.2, 0.5, 0.5]], "albumentations", True, False),
    ([[0, 0, 200.0001, 100]], "pascal_voc", False, False),  # within albumentations' closeness
    ([[10, 10, 5, 20], [1, 1, 4, 4]], "pascal_voc", False, True),
    ([[210, 10, 250, 20], [1, 1, 5, 5], [-9, 0, 0, 9]], "pascal_voc", True, True),
    ([[10, 10, 0, 20], [3, 4, 5, 6]], "coco", False, True),
])
def test_clipped_and_filtered_boxes_equal_albumentations(boxes, fmt, clip, filter_invalid, queue):
    (tb, tl), (ob, ol) = _both(boxes, fmt, clip, filter_invalid, queue)
    assert ol == tl
    np.testing.assert_allclose(ob, tb, atol=1e-4)  # albumentations computes in float32


def test_boxes_as_given_are_not_changed_and_errors_come_before_any_launch(monkeypatch):
    boxes = np.array([[-5.0, 10, 50, 20]])
    before = boxes.copy()
    out = W.Compose([W.RandomHorizontalFlip(p=0)], clip_boxes=True)(image=BOX_IMG, boxes=boxes,
                                                                      seed=0)
    np.testing.assert_array_equal(boxes, before)  # clipped in a copy
    np.testing.assert_array_equal(out["boxes"], [[0, 10, 50, 20]])
    from warpkit.augment import _executor
    monkeypatch.setattr(_executor, "_warp", lambda *a, **k: pytest.fail("launched"))
    with pytest.raises(ValueError, match=r"boxes\[1\]\[0\] \[0.0, 0.0, 3.0, 400.0\] reaches outside "
                                         r"the 200x100 image"):
        W.Compose([W.RandomHorizontalFlip()])(image=[BOX_IMG, BOX_IMG],
                                              boxes=[[[1, 1, 4, 4]], [[0, 0, 3, 400]]], seed=0)
    with pytest.raises(ValueError, match=r"boxes\[0\] \[0.0, 0.0, nan, 4.0\]: boxes must be "
                                         r"finite numbers"):
        W.Compose([W.RandomHorizontalFlip()], clip_boxes=True)(
            image=BOX_IMG, boxes=[[0, 0, np.nan, 4]], seed=0)
    with pytest.raises(ValueError, match=r"clip_boxes must be True or False, got 'yes'"):
        W.Compose([], clip_boxes="yes")


def test_from_albumentations_takes_clip_filter_and_the_albumentations_format(queue):
    recipe = A.Compose([A.HorizontalFlip(p=1)], bbox_params=A.BboxParams(
        format="albumentations", label_fields=["labels"], clip=True, filter_invalid_bboxes=True))
    ours = W.from_albumentations(recipe)
    assert (ours.box_format, ours.clip_boxes, ours.filter_invalid_boxes) == \
        ("albumentations", True, True)
    boxes = [[0.1, -0.2, 0.5, 0.5], [1.1, 0.1, 1.3, 0.2], [0.2, 0.2, 0.4, 0.9]]
    want = _quiet_alb(recipe, image=BOX_IMG, bboxes=boxes, labels=[0, 1, 2])
    got = ours(image=BOX_IMG, boxes=boxes, labels=[0, 1, 2], seed=0, queue=queue)
    assert got["labels"] == list(want["labels"]) == [0, 2]
    np.testing.assert_allclose(got["boxes"], want["bboxes"], atol=1e-6)


def _quiet_alb(recipe, **call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return recipe(**call)


def test_boxes_needing_nothing_are_passed_on_as_given():
    """Checking costs no copies: boxes inside their images go on as the caller's arrays (with
    clip_boxes too), and filtering alone keeps the rows it keeps as given (no round trip
    through corners: yolo numbers stay bit for bit)."""
    from warpkit.augment._targets import check_boxes
    inside = [np.array([[0.5, 0.5, 0.2, 0.3]]), np.array([[0.1, 0.9, 0.2, 0.2]])]
    labels = [[1], [2]]
    for clip in (False, True):
        got, lab = check_boxes(inside, labels, "yolo", [(300, 200), (77, 51)], clip, False,
                               False)
        assert got is inside and lab is labels
    rows = np.array([[0.3, 0.7, 0.1, 0.3], [0.5, 0.5, 0.0, 0.2]])
    (kept,), (lab,) = check_boxes([rows], [["a", "b"]], "yolo", [(77, 51)], False, True, True)
    assert kept.tolist() == [[0.3, 0.7, 0.1, 0.3]] and lab == ["a"]


def test_a_steps_own_resampling_options_are_the_pipelines(queue):
    """RandomAffine(padding=...) inside a Compose used to be ignored (the pipeline padded with
    zeros): the options given to it are now the pipeline's, defaults are not, and a
    disagreement is refused."""
    img = np.full((40, 60, 3), 200, np.uint8)
    pipe = W.Compose([W.RandomAffine(degrees=(30, 30), padding="border", antialias=True)])
    assert (pipe.padding, pipe.antialias, pipe.interpolation) == ("border", True, "linear")
    assert pipe(image=img, seed=0, queue=queue)["image"].min() == 200  # no zeros at the corners
    assert W.Compose([W.RandomAffine(degrees=5)], padding="reflect_101").padding == "reflect_101"
    with pytest.raises(ValueError, match=r"RandomAffine sets padding='border' but Compose sets "
                                         r"padding='constant'"):
        W.Compose([W.RandomAffine(padding="border")], padding="constant")
    d = pipe.to_dict()
    assert d["transforms"][0]["padding"] == "border" and "fill" not in d["transforms"][0]
    assert W.Compose.from_dict(d).to_dict() == d


def test_format_1_steps_keep_the_resampling_they_had():
    """Format-1 data wrote a nested RandomAffine's options, which its pipeline ignored: they
    stay ignored (the pipeline's own apply); a RandomAffine alone keeps its own."""
    old = {"type": "Compose", "padding": "reflect_101", "transforms": [
        {"type": "RandomAffine", "degrees": [-5, 5], "padding": "constant",
         "interpolation": "linear", "fill": 0, "antialias": False}]}
    assert W.Compose.from_dict(old).padding == "reflect_101"
    alone = W.Compose.from_dict({"type": "RandomAffine", "padding": "border"})
    assert alone.padding == "border"


# ---- albumentations' resampling keywords on the transforms that share its names ------------

def _ported(*steps, **kw):
    import albumentations as A  # noqa: F401

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return W.from_albumentations(A.Compose(list(steps), **kw))


SETTINGS = ("interpolation", "padding", "fill", "mask_fill", "mask_interpolation")


@pytest.mark.parametrize("name,kw", [
    ("RandomResizedCrop", dict(size=(64, 48), interpolation=cv2.INTER_CUBIC,
                               mask_interpolation=cv2.INTER_LINEAR)),
    ("Resize", dict(height=64, width=48, interpolation=cv2.INTER_NEAREST)),
    ("Pad", dict(padding=5, fill=9, fill_mask=3, border_mode=cv2.BORDER_CONSTANT)),
    ("Pad", dict(padding=5, border_mode=cv2.BORDER_REFLECT_101)),
    ("ElasticTransform", dict(alpha=30, sigma=5, interpolation=cv2.INTER_CUBIC,
                              border_mode=cv2.BORDER_REFLECT_101, approximate=True)),
    ("GridDistortion", dict(num_steps=4, border_mode=cv2.BORDER_CONSTANT, fill=17,
                            fill_mask=2, keypoint_remapping_method="direct")),
    ("OpticalDistortion", dict(distort_limit=0.1, interpolation=cv2.INTER_NEAREST,
                               mode="camera", border_mode=cv2.BORDER_REPLICATE)),
    ("ThinPlateSpline", dict(mask_interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_REFLECT)),
])
def test_albumentations_keywords_in_a_hand_port(name, kw):
    """A recipe ported by changing its import keeps each transform's albumentations keywords:
    warpkit's transform of that name takes them, and its pipeline's resampling is what
    from_albumentations makes of albumentations' own transform; to_dict keeps them."""
    import albumentations as A

    ours = W.Compose([getattr(W, name)(**kw, p=1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _ported(getattr(A, name)(**kw, p=1))
    for k in SETTINGS:
        if k in ("fill", "mask_fill") and ours.padding != "constant":
            continue  # unused
        assert np.all(np.equal(getattr(ours, k), getattr(theirs, k))), (k, getattr(ours, k),
                                                                          getattr(theirs, k))
    again = W.Compose.from_dict(ours.to_dict())
    assert all(np.all(np.equal(getattr(again, k), getattr(ours, k))) for k in SETTINGS)


def test_albumentations_keywords_that_cannot_be_honoured_are_refused():
    for call, match in [
        (lambda: W.RandomResizedCrop(32, area_for_downscale="mask"),
         "RandomResizedCrop area_for_downscale must be None or 'image' or 'image_mask'"),
        (lambda: W.Resize(32, 32, interpolation=cv2.INTER_LANCZOS4), "interpolation must be one of"),
        (lambda: W.OpticalDistortion(mode="fisheye"), "mode='fisheye'"),
        (lambda: W.ElasticTransform(keypoint_remapping_method="x"), "keypoint_remapping_method"),
        (lambda: W.Compose([], seed=-3), r"seed must be an integer >= 0, got -3"),
    ]:
        with pytest.raises(ValueError, match=match):
            call()


def test_a_pad_ported_by_hand_equals_albumentations():
    import albumentations as A

    img = (np.arange(20 * 30 * 3) % 251).astype(np.uint8).reshape(20, 30, 3)
    mask = (np.arange(20 * 30) % 5).astype(np.uint8).reshape(20, 30)
    for kw in (dict(padding=(3, 4, 5, 6), fill=9, fill_mask=2),
               dict(padding=4, border_mode=cv2.BORDER_REFLECT_101)):
        ours = W.Pad(**kw, p=1)(image=img, mask=mask, seed=0)
        theirs = A.Pad(**kw, p=1)(image=img, mask=mask)
        np.testing.assert_array_equal(ours["image"], theirs["image"])
        np.testing.assert_array_equal(ours["mask"], theirs["mask"])


def test_add_targets_as_albumentations(queue):
    """Compose.add_targets(additional_targets), albumentations' method: the names move as
    their kinds from then on; a name kept must keep its kind, and a clash is refused."""
    aug = W.Compose([W.HorizontalFlip(p=1)], additional_targets={"image2": "image"})
    aug.add_targets({"depth": "mask", "image2": "image"})
    aug.add_targets(None)
    assert aug.additional_targets == {"image2": "image", "depth": "mask"}
    depth = PHOTO[..., 0].copy()
    out = aug(image=PHOTO, image2=PHOTO, depth=depth, seed=0, queue=queue)
    assert np.array_equal(out["image2"], PHOTO[:, ::-1]) and np.array_equal(out["depth"],
                                                                          depth[:, ::-1])
    alb = A.Compose([A.HorizontalFlip(p=1)], additional_targets={"image2": "image"})
    alb.add_targets({"depth": "mask"})  # (albumentations' own, the same targets)
    want = alb(image=PHOTO, image2=PHOTO, depth=depth)
    assert np.array_equal(out["depth"], want["depth"])
    assert np.array_equal(out["image2"], want["image2"])
    for bad, why in [({"image2": "mask"}, "'image2' moves as 'image' already, not 'mask'"),
                     ({"labels": "image"}, "'labels' is a call's own keyword"),
                     ({"depth2": "video"}, r"additional_targets\['depth2'\] must be one of")]:
        with pytest.raises(ValueError, match=why):
            aug.add_targets(bad)
    with pytest.raises(ValueError, match="save_key='replay' names one of the call's results"):
        W.ReplayCompose([W.HorizontalFlip()]).add_targets({"replay": "image"})
    with pytest.raises(ValueError, match="'cls' names two targets"):
        W.Compose([W.HorizontalFlip()], label_fields=["cls"]).add_targets({"cls": "mask"})
    assert aug.additional_targets == {"image2": "image", "depth": "mask"}  # (refusals keep it)


def test_save_applied_params_lists_the_steps_applied(queue):
    """Compose(save_applied_params=True) adds albumentations' out["applied_transforms"]: the
    steps each sample applied, in order, by class name (not the containers, not the steps not
    applied), with warpkit's parameters; the port keeps the switch."""
    def recipe(L):
        return L.Compose([L.RandomCrop(40, 40), L.HorizontalFlip(p=1),
                          L.OneOf([L.Blur(p=1), L.Blur(blur_limit=(5, 5), p=1)], p=1),
                          L.ColorJitter(p=0)], save_applied_params=True)

    img = PHOTO[:60, :80]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = recipe(A)(image=img)["applied_transforms"]
    ours = recipe(W)
    out = ours(image=img, seed=0, queue=queue)
    assert [n for n, _ in out["applied_transforms"]] == [n for n, _ in theirs] == \
        ["RandomCrop", "HorizontalFlip", "Blur"]
    assert [p for _, p in out["applied_transforms"]] == \
        [p for s, p in ours.applied_steps(out["params"])]
    assert sorted(out) == ["applied_transforms", "image"]  # (a key, as albumentations')
    batch = ours(image=np.stack([img, img]), seed=0, queue=queue)["applied_transforms"]
    assert len(batch) == 2 and batch[0] == out["applied_transforms"]
    assert W.Compose.from_dict(ours.to_dict()).save_applied_params
    assert "applied_transforms" not in W.Compose(ours.transforms)(image=img, seed=0)
    ported = W.from_albumentations(recipe(A))
    assert ported.save_applied_params and len(ported(image=img, seed=0)["applied_transforms"]) == 3
