"""Lambda (albumentations' name and call: Python functions of the image, the masks, the boxes
and the keypoints, called as ``fn(value, shape=...)``) against albumentations 2.0.8 itself: a
pipeline with geometry and colour on both sides of it, ported from a live albumentations
Compose and from its saved form with ``nonserializable``; the passes it splits a pipeline into
against the same steps called by hand; every form of input (single, batch, ragged list, Pillow,
torch, device arrays); draws, probabilities, replay; the targets' functions (rows kept with
their labels, angles, visibility); and the refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos

A, PHOTOS = albumentations_and_photos()
_ASTRO = np.ascontiguousarray(PHOTOS["astronaut"][:300, :280])
_COFFEE = PHOTOS["coffee"]
_MEAN, _STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def _blur(img, **kw):
    import cv2

    return cv2.GaussianBlur(img, (5, 5), 1.5)


def _posterise(img, **kw):  # (no OpenCV: a numpy function of the values)
    return (img // 32 * 32).astype(img.dtype)


def _mask_flip(m, **kw):
    return np.ascontiguousarray(m[::-1])


def _wide_boxes(b, **kw):  # drops rows: their labels must follow the rows kept
    return b[(b[:, 2] - b[:, 0]) > 0.2]


def _half_x(k, **kw):
    k = k.copy()
    k[:, 0] *= 0.5
    return k


_BOXES = np.array([[30, 40, 200, 200], [50, 60, 90, 120], [100, 30, 230, 250]], float)
_POINTS = np.array([[60, 70], [100, 150], [200, 220]], float)


def _quiet(f, *args, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kw)


@pytest.mark.parametrize("where", ["middle", "first", "last"])
def test_matches_albumentations(queue, where):
    """Crop + flip, the Lambda (OpenCV's blur of the image, a flip of the mask, boxes dropped by
    width, keypoints moved), transpose + brightness/contrast + Normalize: albumentations' own
    result from the port of its live Compose, the Lambda first, between the steps and last."""
    pytest.importorskip("cv2")
    lam = A.Lambda(image=_blur, mask=_mask_flip, bboxes=_wide_boxes, keypoints=_half_x)
    steps = [A.Crop(10, 20, 250, 280), A.HorizontalFlip(p=1), A.Transpose(p=1),
             A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)]
    at = {"first": 0, "middle": 2, "last": 4}[where]
    pipe = _quiet(A.Compose, [*steps[:at], lam, *steps[at:], A.Normalize()],
                  bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]),
                  keypoint_params=A.KeypointParams("xy", label_fields=["kl"]), seed=0)
    mask = (_ASTRO[..., 0] > 120).astype(np.uint8)
    call = dict(image=_ASTRO, mask=mask, bboxes=_BOXES, labels=["a", "b", "c"],
                keypoints=_POINTS, kl=[1, 2, 3])
    theirs = pipe(**call)
    ours = W.from_albumentations(pipe)(**call, seed=0, queue=queue)
    # (the brightness on 8-bit levels: within a level of albumentations', divided by std)
    assert np.abs(ours["image"] - theirs["image"]).max() <= 1.001 / (255 * min(_STD))
    assert np.mean(np.abs(ours["image"] - theirs["image"]) > 1e-4) < 1e-3
    np.testing.assert_array_equal(ours["mask"], theirs["mask"])
    np.testing.assert_allclose(ours["bboxes"], np.asarray(theirs["bboxes"]), atol=1e-3)
    assert list(ours["labels"]) == list(theirs["labels"])
    assert len(ours["labels"]) == (3 if where == "last" else 2)  # (a row dropped)
    np.testing.assert_allclose(ours["keypoints"], np.asarray(theirs["keypoints"]), atol=1e-3)
    assert [int(v) for v in ours["kl"]] == [int(v) for v in theirs["kl"]]


def test_saved_lambda_by_name():
    """albumentations saves a Lambda by its name alone: the port takes its functions from
    nonserializable (albumentations' Lambda or warpkit's), as A.load does, and refuses without
    them; warpkit's to_dict writes the name, and from_dict reads it back the same way."""
    named = A.Lambda(image=_posterise, name="poster")
    pipe = _quiet(A.Compose, [A.HorizontalFlip(p=1), named], seed=0)
    spec = A.to_dict(pipe)
    assert spec["transform"]["transforms"][1] == {"__class_fullname__": "Lambda",
                                                   "__name__": "poster"}
    theirs = pipe(image=_ASTRO)["image"]
    for held in (named, W.Lambda(image=_posterise, name="poster")):
        ours = W.from_albumentations(json.loads(json.dumps(spec)),
                                     nonserializable={"poster": held})
        np.testing.assert_array_equal(ours(image=_ASTRO, seed=0)["image"], theirs)
    with pytest.raises(ValueError, match=r"Lambda 'poster' is saved without its functions: "
                                         r"pass nonserializable=\{'poster'"):
        W.from_albumentations(spec)
    with pytest.raises(TypeError, match="nonserializable must hold Lambda transforms"):
        W.from_albumentations(spec, nonserializable={"poster": _posterise})

    mine = W.Compose([W.HorizontalFlip(p=1), W.Lambda(image=_posterise, name="poster", p=0.5)])
    d = json.loads(json.dumps(mine.to_dict()))
    assert d["transforms"][1] == {"type": "Lambda", "p": 0.5, "name": "poster", "threads": True}
    back = W.Compose.from_dict(d, nonserializable={"poster": mine.transforms[1]})
    for i in range(4):
        a = mine(image=_ASTRO, seed=3, index=i)
        b = back(image=_ASTRO, seed=3, index=i)
        assert a["params"] == b["params"]
        np.testing.assert_array_equal(a["image"], b["image"])
    with pytest.raises(ValueError, match=r"Lambda 'poster' is written without its functions"):
        W.Compose.from_dict(d)
    with pytest.raises(ValueError, match="a Lambda is written without its functions, by its "
                                         "name: give it one"):
        W.Compose([W.Lambda(image=_posterise)]).to_dict()
    assert "Lambda(image=_posterise, name=None" in repr(W.Lambda(image=_posterise))


def _by_hand(pipe, at, img, params):
    """The pipeline's two passes called by hand: the steps before the Lambda (the image's own
    type), the function, then the steps after it with the pipeline's output, each replaying
    its share of ``params``."""
    before = W.Compose(pipe.transforms[:at])
    after = W.Compose(pipe.transforms[at + 1:], output_dtype=pipe.output_dtype,
                      mean=pipe.mean, std=pipe.std, layout=pipe.layout)
    steps = params["steps"]
    x = before(image=img, params={"applied": True, "steps": steps[:at]})["image"]
    if steps[at]["applied"]:
        x = pipe.transforms[at].functions["image"](np.asarray(x).copy(), shape=x.shape)
    return after(image=x, params={"applied": True, "steps": steps[at + 1:]})["image"]


def _pipe(p=1.0):
    return W.Compose([W.RandomResizedCrop((48, 40)), W.Lambda(image=_posterise, p=p),
                      W.Rotate(limit=20, p=1), W.ColorJitter(0.3, 0.3, 0.3, 0.05, p=1)],
                     output_dtype="float32", mean=_MEAN, std=_STD, layout="CHW")


def test_passes_are_the_steps_called_by_hand(queue):
    """Each sample of a batch, a ragged list and a single call: the same numbers as the steps
    before the Lambda, the function and the steps after it called by hand; the batch equal to
    each sample alone, and replayed from out["params"]; the recorded draws those of
    Compose.sample; the matrix the product of the two passes'."""
    pipe = _pipe(p=0.6)
    imgs = [_ASTRO[:200 + 7 * k, :150 + 11 * k] for k in range(5)]
    got = pipe(image=imgs, seed=4, queue=queue)
    assert [p["steps"][1]["applied"] for p in got["params"]].count(False) >= 1
    for k, img in enumerate(imgs):
        p = got["params"][k]
        assert p == pipe.sample(img.shape[:2], seed=4, index=k)
        np.testing.assert_array_equal(got["image"][k], _by_hand(pipe, 1, img, p))
        alone = pipe(image=img, seed=4, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        np.testing.assert_allclose(alone["matrix"], got["matrix"][k])
        one = W.Compose(pipe.transforms[:1] + pipe.transforms[2:])(image=img, params={
            "applied": True, "steps": p["steps"][:1] + p["steps"][2:]})
        np.testing.assert_allclose(alone["matrix"], one["matrix"], atol=1e-9)
    again = pipe(image=imgs, params=got["params"], queue=queue)
    np.testing.assert_array_equal(again["image"], got["image"])
    assert "seed" not in again and got["seed"] == 4
    batch = np.stack([_ASTRO[:200, :150]] * 3)
    b = pipe(image=batch, seed=9, queue=queue)
    for k in range(3):
        np.testing.assert_array_equal(
            b["image"][k], pipe(image=batch[k], seed=9, index=k, queue=queue)["image"])


def test_forms_come_back_as_given(queue):
    """Pillow in, Pillow out (a palette image keeps its palette); torch tensors in and out;
    device arrays in and out; masks= lists and additional targets through the functions."""
    from PIL import Image

    pipe = W.Compose([W.HorizontalFlip(p=1), W.Lambda(image=_posterise, mask=_mask_flip),
                      W.CenterCrop((100, 90))], additional_targets={"other": "image"})
    img = _ASTRO[:150, :120]
    want = pipe(image=img, seed=0, queue=queue)["image"]
    pil = pipe(image=Image.fromarray(img), seed=0, queue=queue)["image"]
    assert isinstance(pil, Image.Image) and pil.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(pil), want)
    pal = Image.fromarray(img).quantize(16)  # (read as RGB, as the warp reads it)
    got = pipe(image=pal, seed=0, queue=queue)["image"]
    assert got.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(got), pipe(image=np.asarray(pal.convert("RGB")),
                                                        seed=0, queue=queue)["image"])
    first = W.Compose([W.Lambda(image=_posterise), W.HorizontalFlip(p=1)])
    got = first(image=pal, seed=0, queue=queue)["image"]
    assert got.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(got),
                                  _posterise(np.asarray(pal.convert("RGB")))[:, ::-1])

    import pyopencl.array as cla

    dev = pipe(image=cla.to_device(queue, np.stack([img, img])), seed=0, queue=queue)["image"]
    assert isinstance(dev, cla.Array)
    np.testing.assert_array_equal(dev.get()[1], pipe(image=img, seed=0, index=1,
                                                     queue=queue)["image"])

    m = (img[..., 1] > 100).astype(np.uint8)
    out = pipe(image=img, other=img[::-1].copy(), masks=[m, 1 - m], mask=m, seed=0, queue=queue)
    flipped = np.ascontiguousarray(m[:, ::-1][::-1])[25:125, 15:105]
    np.testing.assert_array_equal(out["mask"], flipped)
    np.testing.assert_array_equal(out["masks"][0], flipped)
    np.testing.assert_array_equal(out["masks"][1], 1 - flipped)
    np.testing.assert_array_equal(
        out["other"], _posterise(np.ascontiguousarray(img[::-1, ::-1]))[25:125, 15:105])

    torch = pytest.importorskip("torch")
    t = pipe(image=torch.from_numpy(img).permute(2, 0, 1), seed=0, queue=queue)["image"]
    assert isinstance(t, torch.Tensor) and tuple(t.shape) == (3, 100, 90)
    np.testing.assert_array_equal(t.permute(1, 2, 0).numpy(), want)


def test_in_a_oneof(queue):
    """OneOf(Lambda, a flip, another Lambda) after a crop: each sample as its choice made by
    hand, the batch equal to each sample alone; OneOf's choices drawn as without Lambdas."""
    img = _ASTRO[:120, :100]
    choices = [W.Lambda(image=_posterise), W.HorizontalFlip(p=1),
               W.Lambda(image=lambda x, **kw: (255 - x).astype(x.dtype))]
    pipe = W.Compose([W.CenterCrop((80, 90)), W.OneOf(choices), W.Rotate(limit=10, p=1)])
    got = pipe(image=[img] * 9, seed=5, queue=queue)
    picked = [p["steps"][1]["choice"] for p in got["params"]]
    assert set(picked) == {0, 1, 2}
    crop = img[20:100, 5:95]
    for k, p in enumerate(got["params"]):
        x = _posterise(crop) if picked[k] == 0 else crop[:, ::-1] if picked[k] == 1 else \
            255 - crop
        want = W.Compose([W.Rotate(limit=10, p=1)])(
            image=np.ascontiguousarray(x), params={"applied": True, "steps": [p["steps"][2]]},
            queue=queue)["image"]
        np.testing.assert_array_equal(got["image"][k], want)
        np.testing.assert_array_equal(pipe(image=img, seed=5, index=k, queue=queue)["image"],
                                      got["image"][k])


def test_probabilities_and_calls(queue):
    """The function runs only where its step applied (its p, and the pipeline's); a Lambda
    alone is called as albumentations' transforms are."""
    seen = []

    def count(img, **kw):
        seen.append(kw["shape"])
        return img

    img = _ASTRO[:64, :80]
    pipe = W.Compose([W.Lambda(image=count, p=0.5), W.Resize((32, 40))])
    got = pipe(image=[img] * 12, seed=1, queue=queue)
    applied = sum(p["steps"][0]["applied"] for p in got["params"])
    assert 0 < applied < 12 and len(seen) == applied and seen[0] == (64, 80, 3)
    seen.clear()
    off = W.Compose([W.Lambda(image=count), W.HorizontalFlip(p=1)], p=0)
    np.testing.assert_array_equal(off(image=img, seed=0, queue=queue)["image"], img)
    assert not seen
    alone = W.Lambda(image=_posterise)(image=img, seed=0, queue=queue)
    np.testing.assert_array_equal(alone["image"], _posterise(img))


def test_every_function_is_given_the_image_s_shape(queue):
    """``shape`` is the image's, for the mask's function too (as albumentations gives it)."""
    seen = {}

    def record(what):
        def fn(x, shape):
            seen[what] = (shape, x.shape)
            return x
        return fn

    W.Compose([W.CenterCrop((30, 40)), W.Lambda(image=record("image"), mask=record("mask"))])(
        image=_ASTRO[:50, :60], mask=np.zeros((50, 60, 1), np.uint8), seed=0, queue=queue)
    assert seen == {"image": ((30, 40, 3), (30, 40, 3)), "mask": ((30, 40, 3), (30, 40, 1))}


def test_threads(queue):
    """A batch's samples through the function on the helper threads give what one after
    another gives; threads=False calls it in the samples' order."""
    order = []

    def tagged(img, **kw):
        order.append(int(img[0, 0, 0]))
        return _posterise(img)

    imgs = [np.full((30, 40, 3), k, np.uint8) + _ASTRO[:30, :40] // 2 for k in range(9)]
    firsts = [int(x[0, 0, 0]) for x in imgs]
    pipe = W.Compose([W.Lambda(image=tagged), W.Rotate(limit=30, p=1)])
    alone = W.Compose([W.Lambda(image=tagged, threads=False), W.Rotate(limit=30, p=1)])
    a = pipe(image=imgs, seed=2, queue=queue)
    order.clear()
    b = alone(image=imgs, seed=2, queue=queue)
    assert order == firsts
    for x, y in zip(a["image"], b["image"]):
        np.testing.assert_array_equal(x, y)
    assert alone.transforms[0].config() == {"name": None, "threads": False}
    with pytest.raises(ValueError, match="threads must be True or False"):
        W.Lambda(image=_posterise, threads=1)


def test_the_call_s_arrays_are_never_changed(queue):
    """A function that changes its image in place changes the pass's result, never the call's
    array (a Lambda first is given a copy), alone, in a list and in a batch."""
    img = np.full((10, 12, 3), 7, np.uint8)

    def inplace(x, **kw):
        x += 1
        return x

    for steps in ([W.Lambda(image=inplace), W.HorizontalFlip(p=1)],
                  [W.HorizontalFlip(p=1), W.Lambda(image=inplace)]):
        for given in (img, [img, img], np.stack([img, img])):
            before = np.array(given, copy=True)
            out = W.Compose(steps)(image=given, seed=0, queue=queue)["image"]
            assert np.all(np.asarray(out) == 8)
            np.testing.assert_array_equal(np.asarray(given), before)


def test_targets_functions(queue):
    """Boxes as albumentations' normalised corners with a label column per field (each row's
    index), keypoints as (x, y, z, angle in radians, scale, labels): the rows a function keeps,
    in its order, keep their labels and visibility; angles come back in degrees."""
    got_boxes, got_points = [], []

    def boxes(b, shape):
        got_boxes.append((b.copy(), shape))
        return b[::-1]

    def points(k, shape):
        got_points.append(k.copy())
        k = k[[2, 0]].copy()
        k[:, 3] += np.pi / 2
        return k

    pipe = W.Compose([W.Crop(0, 0, 100, 80), W.Lambda(bboxes=boxes, keypoints=points),
                      W.HorizontalFlip(p=1)], box_format="coco", label_fields=["labels", "ids"],
                     keypoint_format="xyas", keypoint_label_fields=["names"],
                     remove_invisible=False)
    img = np.zeros((90, 120, 3), np.uint8)
    out = pipe(image=img, boxes=[[10, 10, 20, 30], [50, 5, 40, 40]], labels=["a", "b"],
               ids=np.array([7, 8]), keypoints=[[10, 20, 30, 2], [110, 5, 0, 1], [50, 60, -170, 3]],
               names=["p", "q", "r"], seed=0, queue=queue)
    b, shape = got_boxes[0]
    assert shape == (80, 100, 3)
    np.testing.assert_allclose(b, [[0.1, 0.125, 0.3, 0.5, 0, 0], [0.5, 0.0625, 0.9, 0.5625, 1, 1]])
    np.testing.assert_allclose(out["boxes"], [[10, 5, 40, 40], [70, 10, 20, 30]])
    assert out["labels"] == ["b", "a"] and out["ids"].tolist() == [8, 7]
    k = got_points[0]
    np.testing.assert_allclose(k[:, :5], [[10, 20, 0, np.deg2rad(30), 2],
                                          [110, 5, 0, 0, 1],
                                          [50, 60, 0, np.deg2rad(-170), 3]])
    np.testing.assert_array_equal(k[:, 5], [0, 1, 2])
    # flipped after the function (albumentations' rule for points: x -> W - 1 - x, angle ->
    # 180 - angle, in (-180, 180])
    np.testing.assert_allclose(out["keypoints"], [[49, 60, 180 - (-170 + 90) - 360, 3],
                                                  [89, 20, 180 - 120, 2]], atol=1e-9)
    assert out["names"] == ["r", "p"]
    assert out["keypoints_visible"].tolist() == [True, True]
    # the point outside the crop stays invisible where a function keeps it
    out = pipe(image=img, keypoints=[[10, 20, 0, 1], [110, 5, 0, 1], [50, 60, 0, 1]],
               names=["p", "q", "r"], seed=0, queue=queue)
    assert out["keypoints_visible"].tolist() == [True, True]
    keep_all = W.Compose([W.Crop(0, 0, 100, 80), W.Lambda(keypoints=lambda k, shape: k),
                          W.HorizontalFlip(p=1)], remove_invisible=False)
    out = keep_all(image=img, keypoints=[[10, 20], [110, 5]], seed=0, queue=queue)
    assert out["keypoints_visible"].tolist() == [True, False]


def test_refusals():
    img = _ASTRO[:40, :50]
    with pytest.raises(ValueError, match="Lambda inside Compose is not supported"):
        W.Compose([W.Compose([W.Lambda(image=_posterise)])])
    with pytest.raises(ValueError, match="Lambda inside Compose in OneOf is not supported"):
        W.Compose([W.OneOf([W.Lambda(image=_posterise), W.Compose([W.Lambda(image=_posterise)])])])
    with pytest.raises(ValueError, match="ToRGB after Lambda is not supported"):
        W.Compose([W.Lambda(image=_posterise), W.ToRGB()])
    with pytest.raises(ValueError, match="BBoxSafeRandomCrop after a Lambda that changes the "
                                         "bboxes is not supported"):
        W.Compose([W.Lambda(bboxes=_wide_boxes), W.BBoxSafeRandomCrop()])
    with pytest.raises(TypeError, match=r"Lambda\(image=...\) must be a function, got int"):
        W.Lambda(image=3)
    with pytest.raises(ValueError, match=r"Lambda's image function must give back the image's "
                                         r"dtype and channels \(image: \(40, 50, 3\) uint8; its "
                                         r"height and width may change\), got \(20, 25, 2\) "
                                         r"uint8"):
        W.Lambda(image=lambda x, **kw: x[::2, ::2, :2])(image=img, seed=0)
    with pytest.raises(ValueError, match=r"got \(40, 50, 3\) float64"):
        W.Lambda(image=lambda x, **kw: x / 255.0)(image=img, seed=0)
    with pytest.raises(ValueError, match=r"image\[1\]: \(40, 50, 3\) uint8"):
        W.Lambda(image=lambda x, **kw: x if x.any() else x[..., :1])(
            image=[img, np.zeros_like(img)], seed=0)
    boxes = dict(boxes=[[1, 2, 10, 20]], labels=[1])
    with pytest.raises(ValueError, match=r"bboxes function must give back rows of 5 columns as "
                                         r"it was given \(boxes: 4 numbers, then 1 label "
                                         r"columns\), got shape \(1, 4\)"):
        W.Lambda(bboxes=lambda b, **kw: b[:, :4])(image=img, **boxes, seed=0)
    with pytest.raises(ValueError, match="changed the label columns"):
        W.Lambda(bboxes=lambda b, **kw: b + 1)(image=img, **boxes, seed=0)
    with pytest.raises(ValueError, match="gave non-finite numbers"):
        W.Lambda(bboxes=lambda b, **kw: np.concatenate([b[:, :4] * np.nan, b[:, 4:]], 1))(
            image=img, **boxes, seed=0)


def _crop(x, **kw):  # (a size change: rows 10-209, columns 20-219)
    return np.ascontiguousarray(x[10:210, 20:220])


def _pad(x, **kw):  # (another: 40 rows below, 24 columns right, of zeros)
    return np.pad(x, ((0, 40), (0, 24)) + ((0, 0),) * (x.ndim - 2))


@pytest.mark.parametrize("fn", [_crop, _pad], ids=["crop", "pad"])
def test_a_lambda_that_changes_the_size_is_albumentations(fn, queue):
    """An image and mask function that crops or pads, between geometry and a flip: the image,
    mask, boxes (albumentations holds them normalised: they scale with the image) and keypoints
    (pixels: they stay) of albumentations 2.0.8's own pipeline, the steps after drawn for the
    new size, the Lambda's new shape recorded; a replay gives the same."""
    img = _ASTRO[:240, :250]
    mask = (np.arange(240 * 250).reshape(240, 250) % 5).astype(np.uint8)
    boxes, points = [[30, 40, 120, 150], [60, 20, 200, 100]], [[60, 70], [150, 90]]
    theirs = _quiet(A.Compose, [A.HorizontalFlip(p=1), A.Lambda(image=fn, mask=fn, p=1),
                                A.VerticalFlip(p=1)],
                    bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]),
                    keypoint_params=A.KeypointParams(format="xy", remove_invisible=False))
    t = theirs(image=img, mask=mask, bboxes=boxes, labels=[1, 2], keypoints=points)
    pipe = W.Compose([W.HorizontalFlip(p=1), W.Lambda(image=fn, mask=fn), W.VerticalFlip(p=1)],
                     box_format="pascal_voc", remove_invisible=False)
    out = pipe(image=img, mask=mask, boxes=boxes, labels=[1, 2], keypoints=points, seed=0,
               queue=queue)
    np.testing.assert_array_equal(out["image"], t["image"])
    np.testing.assert_array_equal(out["mask"], t["mask"])
    np.testing.assert_allclose(out["boxes"], t["bboxes"], atol=1e-4)
    assert list(out["labels"]) == list(t["labels"])
    np.testing.assert_allclose(out["keypoints"], t["keypoints"], atol=1e-4)
    h, w = t["image"].shape[:2]
    assert out["params"]["steps"][1]["shape"] == [h, w]
    again = pipe(image=img, mask=mask, boxes=boxes, labels=[1, 2], keypoints=points,
                 params=out["params"], queue=queue)
    np.testing.assert_array_equal(again["image"], out["image"])


def test_the_steps_after_a_size_change_draw_for_the_new_size(queue):
    """A RandomResizedCrop after a Lambda that pads: its window is drawn inside the padded
    image (a sample's stream drawn again, the same numbers before the Lambda); a ragged batch,
    and a (B, H, W, C) batch whose samples the Lambda gives different sizes, equal their
    samples alone; a replay gives the same; the parameters before the Lambda are the ones the
    pipeline drew without it changing anything."""
    def grow(x, **kw):  # (each sample its own size: the astronaut's is brighter)
        extra = 60 if x.mean() > 70 else 20
        return np.pad(x, ((0, extra), (0, 2 * extra), (0, 0)))

    pipe = W.Compose([W.RandomAffine(degrees=10), W.Lambda(image=grow),
                      W.RandomResizedCrop((48, 64), scale=(0.5, 1.0))])
    same = W.Compose([W.RandomAffine(degrees=10), W.Lambda(image=lambda x, **kw: x),
                      W.RandomResizedCrop((48, 64), scale=(0.5, 1.0))])
    imgs = [_ASTRO[:100, :120], _COFFEE[:90, :110]]
    out = pipe(image=imgs, seed=5, queue=queue)
    plain = same(image=imgs, seed=5, queue=queue)
    for k, img in enumerate(imgs):
        h, w = grow(img).shape[:2]  # (a small turn keeps the brighter one brighter)
        steps = out["params"][k]["steps"]
        assert steps[0] == plain["params"][k]["steps"][0]
        assert steps[1]["shape"] == [h, w]
        x, y, bw, bh = steps[2]["box"]
        assert 0 <= x and x + bw <= w and 0 <= y and y + bh <= h
        one = pipe(image=img, seed=5, index=k, queue=queue)
        np.testing.assert_array_equal(one["image"], out["image"][k])
        assert one["params"] == out["params"][k]
    again = pipe(image=imgs, params=out["params"], queue=queue)
    np.testing.assert_array_equal(again["image"], out["image"])
    batch = np.stack([imgs[0][:90, :110], imgs[1]])  # (the Lambda makes it ragged)
    got = pipe(image=batch, seed=6, queue=queue)
    assert got["image"].shape == (2, 48, 64, 3)
    for k in range(2):
        np.testing.assert_array_equal(pipe(image=batch[k], seed=6, index=k,
                                           queue=queue)["image"], got["image"][k])


def test_size_changes_refused():
    img = _ASTRO[:40, :50]
    with pytest.raises(ValueError, match=r"Lambda gave image 20x25 \(height x width\) and mask "
                                         r"40x50: a sample's images and masks move through one "
                                         r"map"):
        W.Lambda(image=lambda x, **kw: x[::2, ::2])(image=img, mask=img[..., 0], seed=0)
    with pytest.raises(ValueError, match=r"a Lambda in a OneOf gave another image size"):
        W.Compose([W.OneOf([W.Lambda(image=lambda x, **kw: x[::2])])])(image=img, seed=0)
    with pytest.raises(ValueError, match=r"whose draws read the targets or take other images "
                                         r"\(boxes\)"):
        W.Compose([W.Lambda(image=lambda x, **kw: x[::2]), W.BBoxSafeRandomCrop()])(
            image=img, boxes=[[1, 2, 10, 20]], labels=[1], seed=0)
    pipe = W.Compose([W.Lambda(image=lambda x, **kw: x[::2]), W.HorizontalFlip()])
    params = pipe(image=img, seed=0)["params"]
    with pytest.raises(ValueError, match=r"gave a 10x50 image \(height x width\) where the "
                                         r"replayed parameters recorded \[20, 50\]"):
        pipe(image=img[:20], params=params)
