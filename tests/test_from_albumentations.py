"""from_albumentations (warpkit.augment._albumentations): albumentations 2.0.8 pipelines, their
to_dict() and their saved JSON become warpkit pipelines of the same transforms and parameters
(checked against albumentations itself on the same photos), or are refused by name; the CLI's
--pipeline takes such a file."""

from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

import warpkit
from warpkit import augment as W
from warpkit.cli.app import app

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.coffee()


class Vignette(A.ImageOnlyTransform):
    """A transform of a user's own code: no port can carry it over."""

    def apply(self, img, **params):
        return img


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_a_classification_recipe_ports_with_its_parameters(queue, tmp_path):
    recipe = _quiet(A.Compose, [
        A.RandomResizedCrop(size=(224, 160), scale=(0.3, 1.0)), A.HorizontalFlip(p=0.5),
        A.OneOf([A.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1), A.ToGray(p=0.5)], p=0.8),
        A.HueSaturationValue(10, 15, 10, p=0.3), A.RGBShift(p=0.2),
        A.Normalize(mean=(0.5, 0.4, 0.3), std=(0.2, 0.25, 0.3))],
        bbox_params=A.BboxParams(format="coco", label_fields=["labels"], min_visibility=0.2,
                                 min_area=4), seed=1)
    # ToTensorV2 as A.to_dict writes it (albumentations.pytorch needs torch, optional here)
    spec = _quiet(A.to_dict, recipe)
    spec["transform"]["transforms"].append({"__class_fullname__": "ToTensorV2", "p": 1.0,
                                            "transpose_mask": False})
    got = W.from_albumentations(spec)
    names = [type(t).__name__ for t in got.transforms]
    assert names == ["RandomResizedCrop", "HorizontalFlip", "OneOf",
                     "HueSaturationValue", "RGBShift"]
    crop, flip, one, hsv, _ = got.transforms
    assert crop.size == (160, 224) and crop.scale == (0.3, 1.0)  # (height, width) -> (w, h)
    assert flip.p == 0.5 and one.p == 0.8
    jitter, gray = one.transforms
    assert (jitter.brightness, jitter.hue, jitter.p) == ((0.6, 1.4), (-0.1, 0.1), 1)
    assert gray.p == 0.5 and hsv.hue_shift_limit == (-10, 10) and hsv.p == 0.3
    assert (got.output_dtype, got.mean, got.std, got.layout) == \
        ("float32", [0.5, 0.4, 0.3], [0.2, 0.25, 0.3], "CHW")
    assert (got.box_format, got.min_visibility, got.min_area) == ("coco", 0.2, 4)
    # the same from the Compose, its to_dict() and the JSON and YAML albumentations saves
    _quiet(A.save, recipe, str(tmp_path / "a.json"))
    for name in ("a.yaml", "a.YML"):
        _quiet(A.save, recipe, str(tmp_path / name), data_format="yaml")
    want = {**got.to_dict(), "layout": "HWC"}
    assert want.pop("tensors") is True  # (the recipe saved has no ToTensorV2)
    for form in (_quiet(A.to_dict, recipe), str(tmp_path / "a.json"),
                 tmp_path / "a.json", tmp_path / "a.yaml", str(tmp_path / "a.YML")):
        assert W.from_albumentations(form).to_dict() == want
    # (albumentations writes no seed: the live pipeline's is read off it)
    assert W.from_albumentations(recipe).to_dict() == {**want, "seed": 1}
    # a file that is not a pipeline says so, naming it
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    (tmp_path / "bad.yml").write_text("a: [1, 2\n")
    (tmp_path / "yaml.json").write_text((tmp_path / "a.yaml").read_text())
    for name, why in [("list.yaml", "it holds a list, where A.save writes a mapping"),
                      ("bad.yml", r"not valid YAML \(expected ',' or '\]', but got '<stream "
                                  r"end>' at line 2, column 1\)"),
                      ("yaml.json", r"not valid JSON \(.*\); YAML files are read as YAML "
                                    r"where named .yaml or .yml")]:
        with pytest.raises(ValueError, match=rf"{name}: not an albumentations pipeline file: "
                                             rf"{why}"):
            W.from_albumentations(tmp_path / name)
    got.tensors = False  # (numpy arrays: torch is optional here)
    out = got(image=PHOTO, boxes=[[10, 20, 200, 150]], labels=[3], seed=0, queue=queue)
    assert out["image"].shape == (3, 224, 160) and out["image"].dtype == np.float32


PORTED = [A.ColorJitter((1.2, 1.2), (0.7, 0.7), (1.3, 1.3), (0.05, 0.05), p=1),
          A.HueSaturationValue((12, 12), (-20, -20), (8, 8), p=1),
          A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
          A.RandomGamma((120, 120), p=1), A.ToGray(p=1), A.RGBShift((9, 9), (-4, -4), (0, 0), p=1),
          A.InvertImg(p=1), A.Solarize((0.6, 0.6), p=1), A.Posterize(5, p=1),
          A.HorizontalFlip(p=1), A.VerticalFlip(p=1), A.Resize(150, 210),
          A.CenterCrop(100, 200), A.Blur((7, 7), p=1), A.MedianBlur((5, 5), p=1),
          A.Sharpen((0.4, 0.4), (0.8, 0.8), p=1), A.Emboss((0.5, 0.5), (0.6, 0.6), p=1)]


@pytest.mark.parametrize("theirs", PORTED, ids=lambda t: type(t).__name__)
def test_each_ported_transform_gives_albumentations_result(theirs, queue):
    """Deterministic parameters: the port's output is albumentations' within 1 level (2 on 1%
    through OpenCV's 8-bit HSV), ColorJitter's order replayed."""
    ours = W.from_albumentations(_quiet(A.Compose, [theirs]))
    out = ours(image=PHOTO, seed=0, queue=queue)
    if isinstance(theirs, A.ColorJitter):
        p = out["params"]["steps"][0]
        theirs = A.ColorJitter(p=1)
        theirs.get_params = lambda: {k: p[k] for k in ("brightness", "contrast", "saturation",
                                                      "hue", "order")}
    want = _quiet(A.Compose([theirs]), image=PHOTO)["image"]
    assert out["image"].shape == want.shape
    diff = np.abs(out["image"].astype(int) - want)
    assert (diff > 2).mean() < 0.01 and diff.max() <= 8
    if not isinstance(theirs, (A.ColorJitter, A.HueSaturationValue, A.Resize)):
        assert diff.max() <= 1


@pytest.mark.parametrize("transforms,kw,pattern", [
    ([Vignette(p=1)], {}, r"Vignette \(.*Vignette\) is a transform "
                          r"of your own code, not albumentations': a port cannot carry its "
                          r"code over; call its function through warpkit's Lambda .*; "
                          r"supported: "
                            r"AdditiveNoise, AdvancedBlur, Affine, .*Blur, .*CenterCrop, "
                            r"CenterCrop3D, ChannelDropout, ChannelShuffle, .*CoarseDropout, "
                            r".*GaussNoise, "
                            r".*VerticalFlip"),
    ([A.OneOf([A.HorizontalFlip(), Vignette()])], {}, r"Vignette .* is a transform of your "),
    # (albumentations cannot serialise its domain adaptations: its to_dict refuses them)
    ([A.PixelDistributionAdaptation(p=1)], {},
     r"PixelDistributionAdaptation has no warpkit equivalent yet \(albumentations 2.0.8 blends "
     r"its result, on \[0, 1\], into the image on 0-255"),
    # (HistogramMatching and FDA are read off the live transform: tests/test_histogram_matching.py,
    # tests/test_fda.py; the one past them that cannot be ported is named)
    ([A.HorizontalFlip(), A.OneOf([A.Blur(), A.HistogramMatching(p=1), A.FDA(p=1),
                                   A.PixelDistributionAdaptation(p=1)])], {},
     r"albumentations' PixelDistributionAdaptation has no warpkit equivalent yet \(albumentations "
     r"2.0.8 blends .*\(nor a serialised form in albumentations: .*metadata\); supported: "
     r"AdditiveNoise"),
    ([A.RandomResizedCrop(size=(32, 32), interpolation=4)], {},
     r"RandomResizedCrop\(interpolation=4\) is not supported: warpkit takes 0 \(nearest\)"),
    ([A.OneOf([A.Resize(40, 40, interpolation=2), A.RandomResizedCrop(size=(32, 32))])], {},
     r"RandomResizedCrop sets interpolation='linear' but Resize sets interpolation='cubic': "
     r"the steps of one OneOf resample in one pass, with one interpolation"),
    ([A.RandomResizedCrop(size=(32, 32), mask_interpolation=4)], {},
     r"mask_interpolation=4\) is not supported"),
    ([A.ElasticTransform(border_mode=3)], {}, r"border_mode=3\) is not supported"),
    ([A.Perspective(border_mode=3)], {}, r"Perspective\(border_mode=3\) is not supported"),
    ([A.Normalize(max_pixel_value=-1.0)], {}, r"Normalize's max_pixel_value must be None "
                                            r"\(the dtype's peak\) or a finite number > 0"),
    ([A.ToFloat(max_value=-1)], {}, r"ToFloat's max_value must be None"),
    ([A.Normalize(), A.ColorJitter()], {}, r"ColorJitter after Normalize is not supported"),
    ([A.HorizontalFlip()], {"bbox_params": A.BboxParams(format="pascal_voc",
                                                        label_fields=["image"])},
     r"label_fields: 'image' is a call's own keyword"),
    ([A.HorizontalFlip()], {"additional_targets": {"clip": "images"}},
     r"additional_targets\['clip'\] must be one of 'image', 'mask', 'masks', 'bboxes', "
     r"'keypoints', 'volume', 'volumes', 'mask3d', 'masks3d', got 'images'"),
    ([A.Affine(mask_interpolation=2)], {"mask_interpolation": 4},  # overrides each transform's
     r"Compose\(mask_interpolation=4\) is not supported"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 3 else None)
def test_refused_by_name(transforms, kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        W.from_albumentations(_quiet(A.Compose, transforms, **kw))


def test_a_transform_never_applied_needs_no_equivalent(queue):
    """A transform warpkit lacks, listed with p=0 (as Ultralytics' recipe lists some): it never
    applies, so the port leaves it out (the result is the same); one warpkit has is kept
    (ImageCompression); with p > 0 a missing one is refused by name."""
    recipe = _quiet(A.Compose, [A.Blur(p=0.01), A.MedianBlur(p=0.01), A.ToGray(p=0.01),
                                A.RandomBrightnessContrast(p=0.0), A.RandomGamma(p=0.0),
                                A.ImageCompression(quality_range=(75, 100), p=0.0),
                                Vignette(p=0.0),
                                A.OneOf([A.HorizontalFlip(), Vignette(p=0)])])
    got = W.from_albumentations(recipe)
    assert [type(t).__name__ for t in got.transforms] == \
        ["Blur", "MedianBlur", "ToGray", "RandomBrightnessContrast", "RandomGamma",
         "ImageCompression", "OneOf"]
    assert [type(t).__name__ for t in got.transforms[-1].transforms] == \
        ["HorizontalFlip"]
    assert got(image=PHOTO, seed=0, queue=queue)["image"].shape == PHOTO.shape
    with pytest.raises(ValueError, match=r"Vignette .* is a transform of your own code.*; "
                                         r"supported: AdditiveNoise, AdvancedBlur, Affine"):
        W.from_albumentations(_quiet(A.Compose, [Vignette(p=0.1)]))


def test_sequential_and_noop_port(queue):
    """A.Sequential is a pipeline inside the pipeline (its transforms in order, all of them with
    its probability): a nested Compose; A.NoOp changes nothing. Their result is
    albumentations'."""
    recipe = _quiet(A.Compose, [
        A.Sequential([A.Affine(rotate=(10, 10), p=1), A.HorizontalFlip(p=1)], p=1), A.NoOp(),
        A.OneOf([A.Sequential([A.ToGray(p=1)], p=1), A.Blur(p=1)], p=0.5)])
    got = W.from_albumentations(recipe)
    seq, noop, one = got.transforms
    assert type(noop).__name__ == "NoOp"
    assert type(seq).__name__ == "Compose" and seq.p == 1
    assert [type(t).__name__ for t in seq.transforms] == ["Affine", "HorizontalFlip"]
    assert [type(t).__name__ for t in one.transforms] == ["Compose", "Blur"]
    first = W.from_albumentations(_quiet(A.Compose, recipe.transforms[:2]))
    want = _quiet(A.Compose(recipe.transforms[:2]), image=PHOTO)["image"]
    assert np.abs(first(image=PHOTO, seed=0, queue=queue)["image"].astype(int) - want).max() <= 1
    with pytest.raises(ValueError, match="Normalize inside OneOf, Sequential or a nested "
                                         "Compose is not supported"):
        W.from_albumentations(_quiet(A.Compose, [A.Sequential([A.Normalize()])]))


def test_nested_and_replay_compose_port(queue, tmp_path):
    """A Compose inside a Compose runs as albumentations runs it: its transforms in order, all
    with its p (1 by default), under the outer pipeline's box settings (albumentations gives
    its transforms the outer processors); a ReplayCompose ports as a Compose (warpkit's record
    of a call is out["params"], replayed by Compose.replay). Pixels, boxes and the share of
    samples a nested Compose(p=0.3) changes are albumentations' (3000 samples, within 5 sigma),
    from the live pipelines and from the JSON A.save writes."""
    def inner():
        return [A.Affine(rotate=(10, 10), p=1), A.HorizontalFlip(p=1)]

    recipe = _quiet(A.Compose, [_quiet(A.Compose, inner(), bbox_params=A.BboxParams("coco")),
                                A.NoOp()],
                    bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]))
    replay = _quiet(A.ReplayCompose, [_quiet(A.Compose, inner())], save_key="r",
                    bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]))
    box = [[40.0, 50.0, 200.0, 180.0]]
    path = tmp_path / "replay.json"
    _quiet(A.save, replay, str(path))
    for pipeline in (recipe, replay, str(path)):
        got = W.from_albumentations(pipeline)
        nested = got.transforms[0]
        assert type(nested).__name__ == "Compose" and nested.p == 1
        assert [type(t).__name__ for t in nested.transforms] == ["Affine",
                                                                 "HorizontalFlip"]
        assert got.box_format == "pascal_voc"
        ours = got(image=PHOTO, bboxes=box, labels=[1], seed=0, queue=queue)
        theirs = _quiet(recipe, image=PHOTO, bboxes=box, labels=[1])
        assert np.abs(ours["image"].astype(int) - theirs["image"]).max() <= 1
        np.testing.assert_allclose(ours["bboxes"], theirs["bboxes"], atol=0.05)
        again = got.replay(ours["params"], image=PHOTO)["image"]
        np.testing.assert_array_equal(again, ours["image"])
    sometimes = _quiet(A.Compose, [_quiet(A.Compose, [A.HorizontalFlip(p=1)], p=0.3)])
    got = W.from_albumentations(sometimes)
    img = PHOTO[:6, :6]
    ours = sum(not np.array_equal(got(image=img, seed=s, queue=queue)["image"], img)
               for s in range(3000))
    sometimes.set_random_seed(0)  # (albumentations' draws fixed: the count is the same each run)
    theirs = sum(not np.array_equal(_quiet(sometimes, image=img)["image"], img)
                 for _ in range(3000))
    assert abs(ours - theirs) < 5 * np.sqrt(ours + theirs + 1), (ours, theirs)
    assert 700 < ours < 1100
    d = _quiet(A.to_dict, sometimes)
    d["transform"]["transforms"][0]["additional_targets"] = {"image2": "image"}
    with pytest.raises(ValueError, match=r"Compose\(additional_targets=.*inside a pipeline is "
                                         r"not supported: give it to the outer Compose"):
        W.from_albumentations(d)
    with pytest.raises(ValueError, match="takes a Compose \\(or a ReplayCompose\\), got "
                                         "'OneOf'"):
        W.from_albumentations({"transform": {"__class_fullname__": "OneOf", "transforms": []}})


def test_images_and_stacked_masks_are_albumentations(queue):
    """albumentations 2's ``images=`` (one sample's frames, one set of parameters) and
    ``masks=`` as one (N, H, W) array: a port called the same way gives albumentations'
    frames (within a level: its Affine rounds where warpkit's one pass does not) and masks,
    laid out as albumentations returns them."""
    frames = np.stack([PHOTO[:200, :240], PHOTO[100:300, 50:290] // 3, 255 - PHOTO[:200, :240]])
    masks = (np.arange(3 * 200 * 240).reshape(3, 200, 240) % 7).astype(np.uint8)
    for recipe in ([A.Affine(rotate=(20, 20), scale=(0.8, 0.8), p=1), A.HorizontalFlip(p=1)],
                   [A.ColorJitter(brightness=0, contrast=(1.5, 1.5), saturation=0, hue=0,
                                  p=1)]):
        recipe = _quiet(A.Compose, recipe)
        got = W.from_albumentations(recipe)
        theirs = _quiet(recipe, images=frames, masks=masks)
        ours = got(images=frames, masks=masks, seed=0, queue=queue)
        assert ours["images"].shape == theirs["images"].shape
        assert np.abs(ours["images"].astype(int) - theirs["images"]).max() <= 1
        assert isinstance(ours["masks"], np.ndarray)
        np.testing.assert_array_equal(ours["masks"], theirs["masks"])


def test_geometry_and_dropouts_after_normalize(queue):
    """Kaggle's order, Normalize then CoarseDropout (and geometry) then ToTensorV2: albumentations
    applies them to the model's float image, so their fills are in the model's units; the port
    makes them uint8 levels ((fill * std + mean) * 255) that the store turns back into the fill.
    Fixed maps give albumentations' tensor within half a level; holes hold the fill exactly, as
    many pixels as albumentations'; fills outside the image's range, random fills and
    transforms that do not commute with the normalisation are refused by name."""
    photo = np.ascontiguousarray(PHOTO[:300, :400])
    turn = A.Affine(translate_px={"x": (40, 40), "y": (-30, -30)}, rotate=(10, 10), p=1)
    hole = A.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(0.5, 0.5),
                           hole_width_range=(0.5, 0.5), fill=(0.5, -1, 1), p=1)
    cases = [([A.Normalize(), turn], 0.5 / 255 / 0.224),
             ([A.Normalize(), A.PixelDropout(dropout_prob=1.0, p=1)], 0.0),
             ([A.Normalize(), A.HorizontalFlip(p=1), hole], None),
             # inside containers after Normalize too (until 2026-12-06 their fills were taken
             # as levels: the hole held -2.1, -2.0, -1.8, not the fill)
             ([A.Normalize(), A.OneOf([hole], p=1)], None),
             ([A.Normalize(), A.Sequential([A.HorizontalFlip(p=1), hole], p=1)], None),
             ([A.Normalize(), A.SomeOf([A.OneOf([hole], p=1)], n=1, p=1)], None)]
    for steps, tol in cases:
        recipe = _quiet(A.Compose, steps)
        got = W.from_albumentations(recipe)
        theirs = _quiet(recipe, image=photo)["image"]
        ours = got(image=photo, seed=0, queue=queue)["image"]
        assert ours.dtype == np.float32 and ours.shape == theirs.shape
        if tol is not None:
            assert np.abs(ours - theirs).max() <= tol + 1e-6, [type(t).__name__ for t in steps]
        else:  # (the hole lies where each draws it)
            fill = np.array([0.5, -1, 1], np.float32)
            held = [np.all(np.abs(r - fill) < 1e-5, axis=2).sum() for r in (ours, theirs)]
            assert held[0] == held[1] == 150 * 200
    spec = _quiet(A.to_dict, _quiet(A.Compose, [
        A.RandomResizedCrop((64, 64)), A.Normalize(), _quiet(A.ShiftScaleRotate, p=1),
        A.CoarseDropout(p=0.5)]))
    spec["transform"]["transforms"].append({"__class_fullname__": "ToTensorV2", "p": 1.0,
                                            "transpose_mask": False})
    kaggle = W.from_albumentations(spec)  # (its fills: the mean's levels, ToFloat's 0.3 * 255)
    mean = tuple(255 * np.array([0.485, 0.456, 0.406]))
    assert kaggle.layout == "CHW" and kaggle.transforms[-1].fill == pytest.approx(mean)
    assert kaggle.transforms[-2].fill == pytest.approx(mean)
    assert W.from_albumentations(_quiet(A.Compose, [A.ToFloat(), A.Affine(fill=0.3)])) \
        .transforms[0].fill == pytest.approx(0.3 * 255)
    for steps, match in [
            ([A.Normalize(), A.CoarseDropout(fill="random", p=1)],
             r"CoarseDropout\(fill='random'\) after Normalize is not supported: warpkit takes a "
             r"number .* put CoarseDropout before Normalize"),
            ([A.Normalize(), A.CoarseDropout(fill=5, p=1)],
             r"CoarseDropout\(fill=5.0\) after Normalize is \[415.65, 401.88, 390.4\] in the "
             r"image's values, outside 0-255 \(max_pixel_value\)"),
            ([A.Normalize(max_pixel_value=1.0), A.CoarseDropout(fill=5, p=1)],
             r"is \[1.63, 1.58, 1.53\] in the image's values, outside 0-1 \(max_pixel_value\)"),
            ([A.Normalize(), A.Blur(p=1)],
             r"Blur after Normalize is not supported: warpkit makes the model's input last.*"
             r"geometry and the dropouts that fill with a number may follow it"),
            ([A.Normalize(), A.Mosaic()], r"Mosaic after Normalize is not supported"),
            # (inside containers: until 2026-12-06 taken before the normalisation, silently)
            ([A.Normalize(), A.OneOf([A.HorizontalFlip(), A.ColorJitter()])],
             r"ColorJitter after Normalize is not supported"),
            ([A.Normalize(), A.Sequential([A.Compose([A.Blur(p=1)])])],
             r"Blur after Normalize is not supported"),
            ([A.Normalize(), A.SelectiveChannelTransform([A.HorizontalFlip(p=1)])],
             r"SelectiveChannelTransform after Normalize is not supported")]:
        with pytest.raises(ValueError, match=match):
            W.from_albumentations(_quiet(A.Compose, steps))


def _gray12() -> np.ndarray:
    """A 12-bit gray image in uint16 (a CT or X-ray scan's values): coffee's levels x 16."""
    return (PHOTO[..., 1].astype(np.uint16) * 16 + 7)


def test_normalize_and_to_float_scale_as_albumentations(queue):
    """Normalize's max_pixel_value and ToFloat's max_value become the Compose's
    max_pixel_value: the model's input is albumentations' for every dtype (float images with
    Normalize's default 255 divided by it, as albumentations does; 12-bit scans in uint16);
    ImageNet's three means on a gray or 2-channel image take the first ones, as albumentations
    does; on 4 channels (albumentations takes the first mean for all) a call is refused by
    name. The setting travels through to_dict and from_dict."""
    rgb, f32 = PHOTO, PHOTO.astype(np.float32) / 255
    cases = [([A.Normalize()], rgb), ([A.Normalize()], rgb[..., 0]),
             ([A.Normalize()], rgb[..., :2]), ([A.Normalize()], f32),
             ([A.Normalize(mean=(0.4, 0.5, 0.6), std=(0.2, 0.3, 0.25), max_pixel_value=1.0)],
              f32),
             ([A.Normalize(mean=0.2, std=0.1, max_pixel_value=4095)], _gray12()),
             ([A.ToFloat(max_value=4095)], _gray12()), ([A.ToFloat()], _gray12()),
             ([A.ToFloat(max_value=255)], f32), ([A.ToFloat()], rgb)]
    for steps, img in cases:
        ours = W.from_albumentations(_quiet(A.Compose, steps))
        again = W.Compose.from_dict(ours.to_dict())
        assert again.max_pixel_value == ours.max_pixel_value
        want = _quiet(A.Compose(steps), image=img)["image"]
        for pipe in (ours, again):
            got = pipe(image=img, seed=0, queue=queue)["image"]
            assert got.dtype == want.dtype == np.float32 and got.shape == want.shape, steps
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str(steps))
    assert W.from_albumentations(_quiet(A.Compose, [A.Normalize()])).max_pixel_value == 255
    assert W.from_albumentations(_quiet(A.Compose, [A.ToFloat()])).max_pixel_value is None
    rgba = np.dstack([rgb, rgb[..., :1]])
    with pytest.raises(ValueError, match=r"mean must be a finite number or one per channel "
                                         r"\(4\), got \[0.485, 0.456, 0.406\]"):
        W.from_albumentations(_quiet(A.Compose, [A.Normalize()]))(image=rgba, queue=queue)


PER_IMAGE = ["image", "image_per_channel", "min_max", "min_max_per_channel"]


@pytest.mark.parametrize("how", PER_IMAGE)
def test_normalize_per_image_is_albumentations(how, queue):
    """Normalize(normalization=...) ports as the Compose's normalization: albumentations'
    tensor on uint8 (its tables), gray, float32 and uint16 (its OpenCV way) images, within
    float32's rounding; a flat image too (0 where albumentations' OpenCV way gives NaN); a
    batch's samples each by its own statistics, as alone; CHW and float16; to_dict."""
    rgb = PHOTO
    images = [rgb, rgb[..., 1], rgb.astype(np.float32) / 255, rgb.astype(np.uint16) * 200,
              np.full((9, 8, 3), 7, np.uint8), np.dstack([rgb, rgb[..., :1]])]
    steps = [A.HorizontalFlip(p=1), A.Normalize(normalization=how)]
    ours = W.from_albumentations(_quiet(A.Compose, steps))
    assert ours.normalization == how and ours.mean is None and ours.max_pixel_value is None
    assert W.Compose.from_dict(ours.to_dict()).normalization == how
    for img in images:
        want = _quiet(A.Compose(steps), image=img)["image"]
        got = ours(image=img, seed=0, queue=queue)["image"]
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str(img.dtype))
    flat = np.full((9, 8, 3), 0.5, np.float32)
    np.testing.assert_array_equal(ours(image=flat, seed=0, queue=queue)["image"], 0.0)
    # a batch: each sample by its own statistics, as alone; channels first; float16
    photos = [PHOTO[:300, :400], PHOTO[100:, 50:] // 2, PHOTO[::2, ::3] + 40]
    pipe = W.Compose([W.RandomResizedCrop(64), W.HorizontalFlip()], output_dtype="float32",
                     layout="CHW", normalization=how)
    batch = pipe(image=photos, seed=3, queue=queue)["image"]
    assert batch.shape == (3, 3, 64, 64)
    for i, photo in enumerate(photos):
        alone = pipe(image=photo, seed=3, index=i, queue=queue)["image"]
        np.testing.assert_allclose(batch[i], alone, rtol=1e-6, atol=1e-6)
        per = (1, 2) if how.endswith("per_channel") else (0, 1, 2)
        if how.startswith("image"):
            np.testing.assert_allclose(alone.mean(per), 0, atol=1e-5)
            np.testing.assert_allclose(alone.std(per), 1, atol=1e-3)
        else:
            np.testing.assert_allclose(alone.min(per), 0, atol=1e-6)
            np.testing.assert_allclose(alone.max(per), 1, atol=1e-5)
    half = W.Compose(pipe.transforms, output_dtype="float16", layout="CHW", normalization=how)
    h = half(image=photos, seed=3, queue=queue)["image"]
    assert h.dtype == np.float16
    np.testing.assert_allclose(h.astype(np.float32), batch, atol=2e-2)


def test_normalize_per_image_refusals(queue):
    for kw, match in ((dict(), "pass output_dtype"),
                      (dict(output_dtype="float32", mean=0.5), "no mean, std"),
                      (dict(output_dtype="float32", max_pixel_value=255), "no mean, std")):
        with pytest.raises(ValueError, match=r"normalization='image' makes the model's input "
                                             r"from each image's own statistics: .*" + match):
            W.Compose([], normalization="image", **kw)
    with pytest.raises(ValueError, match="normalization must be"):
        W.Compose([], output_dtype="float32", normalization="per_image")
    pipe = W.Compose([W.HorizontalFlip()], output_dtype="float32", normalization="image")
    with pytest.raises(ValueError, match="images= holds a sample's frames"):
        pipe(images=np.zeros((2, 8, 8, 3), np.uint8), seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"HorizontalFlip after Normalize\(normalization="
                                         r"'min_max'\) is not supported: albumentations takes "
                                         r"the image's statistics before HorizontalFlip"):
        W.from_albumentations(_quiet(A.Compose, [A.Normalize(normalization="min_max"),
                                                  A.HorizontalFlip()]))


def test_max_pixel_value_is_the_models_peak(queue):
    """Compose(max_pixel_value=...) and the warps' keyword: (v / max_pixel_value - mean) /
    std, for uint8, uint16 and float32, float16 too; the first means of a longer list; bad
    values refused by name, and without a model's input."""
    scan = _gray12()
    for img, mpv in ((scan, 4095.0), (PHOTO, 100.0), (PHOTO.astype(np.float32), 255.0)):
        for dtype, tol in ((np.float32, 1e-6), (np.float16, 2e-3)):
            out = W.Compose([W.HorizontalFlip(p=0)], output_dtype=np.dtype(dtype).name,
                            mean=[0.1, 0.2, 0.3], std=[0.5, 0.25, 0.2], max_pixel_value=mpv)(
                image=img, seed=0, queue=queue)["image"]
            c = 1 if img.ndim == 2 else 3
            want = (img.astype(np.float64) / mpv - np.float64([0.1, 0.2, 0.3][:c])) / \
                np.float64([0.5, 0.25, 0.2][:c])
            assert out.dtype == dtype
            np.testing.assert_allclose(out.astype(np.float64), want.reshape(out.shape),
                                       rtol=tol, atol=tol)
            warped = warpkit.warp_affine(img, np.eye(3), output_dtype=np.dtype(dtype).name,
                                   mean=[0.1, 0.2, 0.3], std=[0.5, 0.25, 0.2],
                                   max_pixel_value=mpv, queue=queue)
            np.testing.assert_array_equal(warped, out)
    # by dtype: a 12-bit scan's 4095, the photo's uint8 its 255
    by_dtype = W.Compose([W.HorizontalFlip(p=0)], output_dtype="float32",
                         max_pixel_value={"uint16": 4095})
    assert W.Compose.from_dict(by_dtype.to_dict()).max_pixel_value == {"uint16": 4095.0}
    for img, peak in ((scan, 4095.0), (PHOTO, 255.0)):
        got = by_dtype(image=img, seed=0, queue=queue)["image"]
        np.testing.assert_allclose(got, img / peak, rtol=1e-6, atol=1e-7)
    for bad in (0, -1.0, float("inf"), float("nan"), "255", True, [255], {"uint16": 0}):
        with pytest.raises(ValueError, match=r"max_pixel_value(\['uint16'\])? must be None"):
            W.Compose([], output_dtype="float32", max_pixel_value=bad)
    with pytest.raises(ValueError, match="max_pixel_value takes dtype names uint8, uint16, "
                                         "int32, float32 as its keys, got 'uint12'"):
        W.Compose([], output_dtype="float32", max_pixel_value={"uint12": 4095})
    with pytest.raises(ValueError, match="max_pixel_value=4095 scales the model's input: pass "
                                         "output_dtype"):
        W.Compose([], max_pixel_value=4095)
    with pytest.raises(ValueError, match="mean, std, max_pixel_value and layout='CHW' make the "
                                         "model's input"):
        warpkit.warp_affine(scan, np.eye(3), max_pixel_value=4095, queue=queue)


def test_boxes_and_keypoints_come_back_as_albumentations_types(queue):
    """A port with BboxParams or KeypointParams returns boxes and keypoints as albumentations
    2 does: a list of lists of floats for a list or tuple, an array for an array (keypoints
    float32), empty ones too; a batch's sample by sample. The values are warpkit's (float64
    arithmetic, within float32's rounding of albumentations'). A plain Compose keeps float64
    arrays; the setting travels through to_dict and from_dict."""
    img = PHOTO[:100, :120]
    recipe = _quiet(A.Compose, [A.HorizontalFlip(p=1)],
                    bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]),
                    keypoint_params=A.KeypointParams(format="xy", label_fields=["kl"]))
    ours = W.from_albumentations(recipe)
    assert ours.target_types == "albumentations"
    assert W.Compose.from_dict(ours.to_dict()).target_types == "albumentations"
    as_given = [([[10, 20, 50, 60], (1, 2, 30, 40)], [[5, 6], [7, 8]]),
                (((10, 20, 50, 60),), ((5, 6),)),
                (np.array([[10, 20, 50, 60]], np.float32), np.array([[5, 6]], np.float32)),
                (np.array([[10, 20, 50, 60]]), np.array([[5, 6]])), ([], [])]
    for boxes, points in as_given:
        call = dict(image=img, bboxes=boxes, labels=[1] * len(boxes), keypoints=points,
                    kl=[0] * len(points))
        want = _quiet(recipe, **call)
        got = ours(**call, seed=0, queue=queue)
        for key in ("bboxes", "keypoints"):
            assert type(got[key]) is type(want[key]), (key, type(boxes))
            if isinstance(want[key], list):
                assert all(type(row) is list and all(type(v) is float for v in row)
                           for row in got[key])
            else:
                assert got[key].dtype == want[key].dtype, (key, got[key].dtype)
            np.testing.assert_allclose(np.asarray(got[key], np.float64).reshape(-1),
                                       np.asarray(want[key], np.float64).reshape(-1),
                                       atol=1e-4)
    batch = ours(image=[img, img], bboxes=[[[10, 20, 50, 60]], np.array([[1.0, 2, 3, 4]])],
                 labels=[[1], [2]], keypoints=[[(5, 6)], np.zeros((0, 2))], kl=[[0], []],
                 seed=0, queue=queue)
    assert batch["bboxes"][0] == [[70.0, 20.0, 110.0, 60.0]]
    assert batch["bboxes"][1].dtype == np.float64 and batch["bboxes"][1].shape == (1, 4)
    assert batch["keypoints"][0] == [[114.0, 6.0]]
    assert batch["keypoints"][1].dtype == np.float32 and batch["keypoints"][1].shape == (0, 2)
    plain = W.Compose([W.HorizontalFlip(p=1)], box_format="pascal_voc")
    out = plain(image=img, bboxes=[[10, 20, 50, 60]], keypoints=[[5, 6]], seed=0, queue=queue)
    assert out["bboxes"].dtype == out["keypoints"].dtype == np.float64
    assert "target_types" not in plain.to_dict()
    with pytest.raises(ValueError, match="target_types must be"):
        W.Compose([], target_types="lists")


def test_to_tensor_transpose_mask(queue):
    """ToTensorV2(transpose_mask=True) ports as mask_layout="CHW": a mask with channels comes
    back (C, H, W), a stacked batch's (B, C, H, W), ragged lists and lists of masks item by
    item, (H, W) masks as they are; views of the result, which equals the channels-last one.
    (Against albumentations' own ToTensorV2 in test_to_tensor_transpose_mask_is_albumentations,
    which needs torch.)"""
    spec = _quiet(A.to_dict, _quiet(A.Compose, [A.HorizontalFlip(p=1), A.Normalize()]))
    spec["transform"]["transforms"].append({"__class_fullname__": "ToTensorV2", "p": 1.0,
                                            "transpose_mask": True})
    got = W.from_albumentations(spec)
    assert (got.layout, got.mask_layout) == ("CHW", "CHW")
    assert got.to_dict()["mask_layout"] == "CHW"
    assert W.Compose.from_dict(got.to_dict()).mask_layout == "CHW"
    spec["transform"]["transforms"][-1]["transpose_mask"] = False
    plain = W.from_albumentations(spec)
    assert plain.mask_layout == "HWC" and "mask_layout" not in plain.to_dict()
    got.tensors = plain.tensors = False  # (numpy arrays: torch is optional here)
    rng = np.random.default_rng(0)
    img = PHOTO[:40, :50]
    m = rng.integers(0, 5, (40, 50, 4), np.uint8)
    flat = m[..., 0]
    cases = [dict(image=img, mask=m, masks=[m, flat]),
             dict(image=np.stack([img] * 3), mask=np.stack([m] * 3), masks=[[m]] * 3),
             dict(image=[img, img[:30]], mask=[m, m[:30]], masks=[[flat], [m[:30], m[:30]]]),
             dict(image=np.stack([img] * 2), mask=np.stack([flat] * 2))]
    for call in cases:
        ours = got(**call, seed=0, queue=queue)
        want = plain(**call, seed=0, queue=queue)

        def same(a, b):
            if isinstance(b, list):
                assert isinstance(a, list) and len(a) == len(b)
                for x, y in zip(a, b):
                    same(x, y)
                return
            stacked = isinstance(call["image"], np.ndarray) and call["image"].ndim == 4
            if b.ndim == 3 + (stacked and b is want.get("mask")):
                b = np.moveaxis(b, -1, -3)
            np.testing.assert_array_equal(a, b)
            assert a.shape == b.shape

        for name in ("mask", "masks"):
            if name in call:
                same(ours[name], want[name])
    single = got(image=img, mask=m, seed=0, queue=queue)["mask"]
    assert single.shape == (4, 40, 50) and single.base is not None  # (a view)
    with pytest.raises(ValueError, match="mask_layout must be 'HWC'.*or 'CHW'.*got 'NCHW'"):
        W.Compose([], mask_layout="NCHW")


def test_to_tensor_ports_as_tensors_and_refuses_what_it_cannot_honour(queue, monkeypatch):
    """ToTensorV2 ports as tensors=True: channels first in the kernel where Normalize made a
    float model input, else kept channels last (a view does it: uint8 CHW is no model input);
    p=0 is nothing to port, another p is refused by name; a call without torch is refused
    before any work, with what to do; a Normalize of one number serves every channel."""
    def spec(*steps, p=1.0):
        d = _quiet(A.to_dict, _quiet(A.Compose, list(steps)))
        d["transform"]["transforms"].append({"__class_fullname__": "ToTensorV2", "p": p,
                                             "transpose_mask": False})
        return d

    flip = A.HorizontalFlip(p=1)
    model = W.from_albumentations(spec(flip, A.Normalize()))
    assert (model.tensors, model.layout, model.output_dtype) == (True, "CHW", "float32")
    levels = W.from_albumentations(spec(flip))
    assert (levels.tensors, levels.layout, levels.output_dtype) == (True, "HWC", None)
    assert W.Compose.from_dict(levels.to_dict()).tensors is True
    never = W.from_albumentations(spec(flip, p=0.0))
    assert not never.tensors and "tensors" not in never.to_dict() and never.layout == "HWC"
    with pytest.raises(ValueError, match=r"ToTensorV2\(p=0.5\) is not supported: the tensors "
                                         r"are the pipeline's output for every sample \(p=1\)"):
        W.from_albumentations(spec(flip, p=0.5))
    with pytest.raises(ValueError, match="tensors must be True or False, got 1"):
        W.Compose([], tensors=1)
    monkeypatch.setitem(sys.modules, "torch", None)  # (import torch fails: as not installed)
    with pytest.raises(ValueError, match=r"tensors=True \(albumentations' ToTensorV2\) returns "
                                         r"torch tensors, and torch is not installed"):
        levels(image=PHOTO[:40, :50], seed=0, queue=queue)
    levels.tensors = False  # numpy arrays: the image as albumentations' HWC before its tensor
    np.testing.assert_array_equal(levels(image=PHOTO[:40, :50], seed=0, queue=queue)["image"],
                                  PHOTO[:40, 49::-1])
    one = W.from_albumentations(_quiet(A.Compose, [A.Normalize(mean=0.5, std=0.25)]))
    assert (one.mean, one.std) == ([0.5], [0.25])
    img = PHOTO[:40, :50]
    theirs = _quiet(A.Compose([A.Normalize(mean=0.5, std=0.25)]), image=img)["image"]
    ours = one(image=img, seed=0, queue=queue)["image"]
    assert ours.shape == theirs.shape and np.abs(ours - theirs).max() < 1e-5


def test_to_tensor_gives_albumentations_tensors(queue):
    """The port of ToTensorV2 returns what albumentations' does: torch tensors, images
    channels first (gray ones (1, H, W), a batch's and a sample's frames (N, C, H, W)),
    uint8 levels without Normalize, the model's float32 with it; masks as they are, lists
    of masks as lists; the same values (a flip moves whole pixels)."""
    torch = pytest.importorskip("torch")
    from albumentations.pytorch import ToTensorV2

    rng = np.random.default_rng(2)
    img = PHOTO[:40, :50]
    gray = np.ascontiguousarray(img[..., 1])
    m3 = rng.integers(0, 5, (40, 50, 2), np.uint8)
    flip = A.HorizontalFlip(p=1)
    for steps in ([flip], [flip, A.Normalize()], [flip, A.Normalize(mean=0.5, std=0.25)],
                  [flip, A.Normalize(normalization="image_per_channel")]):
        for transpose in (False, True):
            recipe = _quiet(A.Compose, [*steps, ToTensorV2(transpose_mask=transpose)])
            got = W.from_albumentations(recipe)
            for image in (img, gray):  # (gray: the first of 3 means, as albumentations)
                call = dict(image=image, mask=m3, masks=[m3, m3])
                theirs, ours = _quiet(recipe, **call), got(**call, seed=0, queue=queue)
                for name in ("image", "mask", "masks"):
                    a, b = ours[name], theirs[name]
                    for x, y in (zip(a, b) if name == "masks" else [(a, b)]):
                        assert isinstance(x, torch.Tensor) and x.shape == y.shape, name
                        # (albumentations' uint8 tables per channel are float64: float32 here)
                        assert x.dtype == y.dtype or x.dtype == torch.float32 and \
                            name == "image" and len(steps) == 2 and \
                            steps[1].normalization == "image_per_channel", name
                        assert (x.double() - y.double()).abs().max() <= 1e-5, name
    recipe = _quiet(A.Compose, [flip, ToTensorV2()])
    got = W.from_albumentations(recipe)
    frames = rng.integers(0, 255, (3, 40, 50, 3), np.uint8)
    theirs = _quiet(recipe, images=frames)["images"]
    ours = got(images=frames, seed=0, queue=queue)["images"]
    assert ours.shape == (3, 3, 40, 50) and torch.equal(ours, theirs)
    batch = got(image=frames, seed=0, queue=queue)["image"]  # (a batch: a sample each)
    assert batch.shape == (3, 3, 40, 50) and torch.equal(batch, theirs)
    ragged = got(image=[img, gray[:30]], seed=0, queue=queue)["image"]
    assert [tuple(t.shape) for t in ragged] == [(3, 40, 50), (1, 30, 50)]
    assert torch.equal(ragged[1][0], torch.from_numpy(np.ascontiguousarray(gray[:30, ::-1])))


def test_to_tensor_transpose_mask_is_albumentations(queue):
    """The port of ToTensorV2(transpose_mask=True) gives albumentations' masks: (C, H, W)
    tensors from (H, W, C) masks, (H, W) ones as they are."""
    torch = pytest.importorskip("torch")
    from albumentations.pytorch import ToTensorV2

    recipe = _quiet(A.Compose, [A.HorizontalFlip(p=1), A.Normalize(),
                                ToTensorV2(transpose_mask=True)])
    got = W.from_albumentations(recipe)
    m = np.random.default_rng(1).integers(0, 5, (40, 50, 4), np.uint8)
    img = PHOTO[:40, :50]
    theirs = _quiet(recipe, image=img, mask=m, masks=[m, m])
    ours = got(image=img, mask=m, masks=[m, m], seed=0, queue=queue)
    assert torch.equal(ours["mask"], theirs["mask"])
    for a, b in zip(ours["masks"], theirs["masks"]):
        assert torch.equal(a, b)
    ours = got(image=torch.from_numpy(img).permute(2, 0, 1), mask=torch.from_numpy(m[..., 1]),
               seed=0, queue=queue)
    theirs = _quiet(recipe, image=img, mask=m[..., 1])
    assert torch.equal(ours["mask"], theirs["mask"])
    assert np.abs(ours["image"].numpy() - theirs["image"].numpy()).max() < 2e-2


def test_noop_is_a_choice_of_a_oneof(queue):
    """A.NoOp inside a OneOf is a choice with its own p, as albumentations draws it:
    OneOf([HorizontalFlip(p=1), NoOp(p=1)]) flips half the samples (it was dropped, which
    flipped them all); alone and in a batch of 40 (drawn side by side) the same."""
    recipe = _quiet(A.Compose, [A.OneOf([A.HorizontalFlip(p=1), A.NoOp(p=1)], p=1)])
    got = W.from_albumentations(recipe)
    assert [type(t).__name__ for t in got.transforms[0].transforms] == \
        ["HorizontalFlip", "NoOp"]
    imgs = np.stack([PHOTO[:8, :9]] * 400)
    out = got(image=imgs, seed=1, queue=queue)
    flipped = sum(not np.array_equal(o, imgs[0]) for o in out["image"])
    assert 160 < flipped < 240  # 200 +- 4 sigma
    for k in (0, 1, 2, 3):
        np.testing.assert_array_equal(got(image=imgs[k], seed=1, index=k, queue=queue)["image"],
                                      out["image"][k])
    recipe.set_random_seed(0)  # (albumentations' draws fixed: the count is the same each run)
    theirs = sum(not np.array_equal(recipe(image=imgs[0])["image"], imgs[0]) for _ in range(400))
    assert 160 < theirs < 240


def test_someof_chooses_as_albumentations(queue):
    """A.SomeOf(n=2): two of its transforms chosen uniformly (their p does not weigh the
    choice), applied in order, each with its own p: the five outcomes of two flips and a
    Transpose(p=0.5) come as often as albumentations' own (3000 samples each, within 5 sigma),
    alone and in a batch of 40, replayed and through to_dict; a transform never applied keeps
    its place among the choices; SomeOf holding a host step, or a bad n, is refused."""
    recipe = _quiet(A.Compose, [A.SomeOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=1),
                                          A.Transpose(p=0.5)], n=2, p=1)])
    got = W.from_albumentations(recipe)
    (some,) = got.transforms
    assert type(some).__name__ == "SomeOf" and (some.n, some.replace) == (2, False)
    img = PHOTO[:6, :6]
    ours = [got(image=img, seed=s, queue=queue)["image"].tobytes() for s in range(3000)]
    recipe.set_random_seed(0)  # (albumentations' draws fixed: the counts are the same each run)
    theirs = [_quiet(recipe, image=img)["image"].tobytes() for _ in range(3000)]
    for k in set(ours) | set(theirs):
        a, b = ours.count(k), theirs.count(k)
        assert abs(a - b) < 5 * np.sqrt(a + b + 1), (a, b)
    batch = np.stack([img] * 40)
    out = got(image=batch, seed=2, queue=queue)
    for k in range(40):
        np.testing.assert_array_equal(got(image=img, seed=2, index=k, queue=queue)["image"],
                                      out["image"][k])
    p = out["params"][5]
    assert len(p["steps"][0]["chosen"]) == 2
    np.testing.assert_array_equal(got(image=img, params=p, queue=queue)["image"],
                                  out["image"][5])
    again = W.Compose.from_dict(got.to_dict())
    np.testing.assert_array_equal(again(image=img, seed=7, queue=queue)["image"],
                                  got(image=img, seed=7, queue=queue)["image"])
    kept = W.from_albumentations({"__version__": "2.0.8", "transform": {
        "__class_fullname__": "Compose", "p": 1.0, "transforms": [{
            "__class_fullname__": "SomeOf", "n": 1, "replace": False, "p": 1.0,
            "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 1.0},
                           {"__class_fullname__": "PixelDistributionAdaptation",
                            "p": 0.0}]}]}})
    assert [type(t).__name__ for t in kept.transforms[0].transforms] == \
        ["HorizontalFlip", "NoOp"]
    with pytest.raises(ValueError, match="SomeOf n must be a whole number >= 1"):
        W.SomeOf([W.HorizontalFlip()], n=0)
    with pytest.raises(ValueError, match="SomeOf holds ImageCompression, which runs on the host"):
        W.SomeOf([W.ImageCompression(compression_type="webp")])
    assert W.SomeOf([W.HorizontalFlip()], n=3).n == 1  # (capped, as albumentations caps it)


@pytest.mark.parametrize("make", [
    lambda: A.RandomOrder([A.Transpose(p=1), A.HorizontalFlip(p=1), A.VerticalFlip(p=0.5)],
                          n=2, p=1),
    lambda: A.OneOrOther(A.HorizontalFlip(p=0.2), A.Transpose(p=0.2), p=0.7),
], ids=["RandomOrder", "OneOrOther"])
def test_random_order_and_one_or_other_as_albumentations(make, queue):
    """A.RandomOrder: SomeOf's choice applied in the drawn order (a transpose then a flip is
    not a flip then a transpose); A.OneOrOther: the first with probability p, else the other,
    forced. Their outcomes come as often as albumentations' own (3000 samples each, within 5
    sigma), alone and in a batch of 40, and through to_dict."""
    recipe = _quiet(A.Compose, [make()])
    got = W.from_albumentations(recipe)
    assert type(got.transforms[0]).__name__ == type(recipe.transforms[0]).__name__
    img = PHOTO[:6, :6]
    ours = [got(image=img, seed=s, queue=queue)["image"].tobytes() for s in range(3000)]
    recipe.set_random_seed(0)  # (albumentations' draws fixed: the counts are the same each run)
    theirs = [_quiet(recipe, image=img)["image"].tobytes() for _ in range(3000)]
    assert len(set(theirs)) >= 2
    for k in set(ours) | set(theirs):
        a, b = ours.count(k), theirs.count(k)
        assert abs(a - b) < 5 * np.sqrt(a + b + 1), (a, b)
    out = got(image=np.stack([img] * 40), seed=2, queue=queue)
    for k in range(40):
        np.testing.assert_array_equal(got(image=img, seed=2, index=k, queue=queue)["image"],
                                      out["image"][k])
    again = W.Compose.from_dict(got.to_dict())
    assert repr(again.transforms[0]) == repr(got.transforms[0])
    np.testing.assert_array_equal(again(image=img, seed=7, queue=queue)["image"],
                                  got(image=img, seed=7, queue=queue)["image"])


def test_unknown_parameters_and_inputs_are_refused():
    d = _quiet(A.to_dict, _quiet(A.Compose, [A.HorizontalFlip()]))
    d["transform"]["transforms"][0]["flavour"] = 1
    with pytest.raises(ValueError, match="HorizontalFlip: parameters warpkit does not know: "
                                         "flavour"):
        W.from_albumentations(d)
    with pytest.raises(TypeError, match="takes an albumentations Compose.*got int"):
        W.from_albumentations(3)
    d = _quiet(A.to_dict, _quiet(A.Compose, [A.HorizontalFlip()]))
    d["transform"]["mask_interpolation"] = 4  # a hand-written dict may carry Compose's own
    with pytest.raises(ValueError, match="Compose\\(mask_interpolation=4\\) is not supported"):
        W.from_albumentations(d)
    d["transform"]["mask_interpolation"] = None
    d["transform"]["seed"] = -1
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        W.from_albumentations(d)
    with pytest.raises(ValueError, match=r"takes a Compose \(or a ReplayCompose\), got "
                                         r"'HorizontalFlip'"):
        W.from_albumentations({"__class_fullname__": "HorizontalFlip", "p": 1})


def _read(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im)


def test_the_cli_takes_an_albumentations_file(tmp_path):
    Image.fromarray(PHOTO[:200, :300]).save(tmp_path / "a.png")
    _quiet(A.save, _quiet(A.Compose, [A.HorizontalFlip(p=1), A.ColorJitter(p=1),
                                      A.CenterCrop(100, 120)]), str(tmp_path / "aug.json"))
    runner = CliRunner()
    r = runner.invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "out"),
                            "--copies", "2", "--seed", "3", "--pipeline",
                            str(tmp_path / "aug.json")])
    assert r.exit_code == 0, r.output
    outs = sorted((tmp_path / "out").iterdir())
    a, b = (_read(p) for p in outs)
    assert len(outs) == 2 and a.shape == (100, 120, 3)
    assert not np.array_equal(a, b)  # each copy its own jitter
    spec = json.loads((tmp_path / "aug.json").read_text())
    spec["transform"]["transforms"].append({"__class_fullname__": "Normalize"})
    (tmp_path / "n.json").write_text(json.dumps(spec))
    r = runner.invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "o2"),
                            "--pipeline", str(tmp_path / "n.json")])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "leave Normalize and ToTensorV2 out" in r.output and len(r.output.strip().splitlines()) == 1
    spec["transform"]["transforms"][-1] = {"__class_fullname__": "my_project.Vignette"}
    (tmp_path / "m.json").write_text(json.dumps(spec))
    r = runner.invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "o3"),
                            "--pipeline", str(tmp_path / "m.json")])
    assert r.exit_code == 1 and "Vignette (my_project.Vignette) is a transform of your own " \
        "code" in r.output


def test_why_pixel_distribution_adaptation_is_not_ported():
    """The refusal's reason, held to albumentations 2.0.8 itself: its uint8 result is the
    image times 1 - blend_ratio (within a level) whatever the reference, its float32 one
    brighter than the image and the reference (if this fails, albumentations changed: port
    it)."""
    import skimage.data

    img, ref = skimage.data.astronaut(), skimage.data.coffee()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in ("standard", "minmax", "pca"):
            t = A.Compose([A.PixelDistributionAdaptation(blend_ratio=(0.5, 0.5),
                                                         transform_type=kind, p=1)])
            out = t(image=img, pda_metadata=[ref])["image"]
            assert np.abs(out.astype(float) - img * 0.5).max() <= 1.0
            f = t(image=img.astype(np.float32) / 255,
                  pda_metadata=[ref.astype(np.float32) / 255])["image"]
            assert f.mean() > max(img.mean(), ref.mean()) / 255 + 0.3


def test_keypoint_angles_in_radians_are_albumentations():
    """KeypointParams(angle_in_degrees=False): a port gives albumentations' radians (modulo a
    turn: warpkit wraps angles into (-pi, pi], albumentations into [0, 2 pi)) and positions
    through flips and turns; a warpkit Compose(angle_in_degrees=False) gives its
    degrees' results in radians, for rows as lists, tuples and float32 arrays, batches, a
    pipeline in two passes and Mosaic's metadata items, without touching the caller's arrays;
    kept by to_dict."""
    img = np.zeros((100, 120, 3), np.uint8)
    kp = np.array([[10, 20, 0.5, 2.0], [50, 60, 3.0, 1.0], [30, 40, 6.1, 1.5]])
    for steps in ([A.Affine(rotate=(30, 30), p=1)], [A.HorizontalFlip(p=1)],
                  [A.Rotate(limit=(-20, -20), p=1)],
                  [A.VerticalFlip(p=1), A.Rotate(limit=(90, 90), p=1)]):
        theirs = A.Compose(steps, keypoint_params=A.KeypointParams(
            "xyas", angle_in_degrees=False, remove_invisible=False))
        want = theirs(image=img, keypoints=kp)["keypoints"]
        ours = W.from_albumentations(theirs)
        assert ours.angle_in_degrees is False
        got = np.asarray(ours(image=img, keypoints=kp, seed=0)["keypoints"])
        turn = np.angle(np.exp(1j * (got[:, 2] - want[:, 2])))
        assert np.abs(turn).max() < 1e-5 and np.abs(got[:, [0, 1, 3]] - want[:, [0, 1, 3]]).max() < 1e-3
        assert -np.pi < got[:, 2].min() and got[:, 2].max() <= np.pi
    steps = [W.Affine(rotate=(25, 25), p=1), W.GaussianBlur(p=1), W.HorizontalFlip(p=1)]
    rad = W.Compose(steps, keypoint_format="xysa", angle_in_degrees=False, passes="as_needed")
    deg = W.Compose(steps, keypoint_format="xysa", passes="as_needed")
    assert rad.pass_starts == (2,)  # (two passes: the blur before the flip)
    assert W.Compose.from_dict(rad.to_dict()).angle_in_degrees is False
    assert W.Compose(steps, keypoint_params=W.KeypointParams("xya", angle_in_degrees=False)) \
        .angle_in_degrees is False
    rows = kp[:, [0, 1, 3, 2]]  # (x, y, scale, angle)
    in_degrees = rows.copy()
    in_degrees[:, 3] = np.degrees(rows[:, 3])
    want = deg(image=img, keypoints=in_degrees, seed=3)["keypoints"]
    want[:, 3] = np.radians(want[:, 3])
    for given in (rows, rows.astype(np.float32), rows.tolist(), [tuple(r) for r in rows]):
        kept = np.array(given, dtype=object)
        got = rad(image=img, keypoints=given, seed=3)["keypoints"]
        tol = 1e-5 if np.asarray(given).dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, atol=tol)
        np.testing.assert_array_equal(np.array(given, dtype=object), kept)  # untouched
    batch = rad(image=np.stack([img, img]), keypoints=[rows, rows[:2]], seed=3, index=[0, 0])
    np.testing.assert_allclose(batch["keypoints"][0], want, atol=1e-12)
    np.testing.assert_allclose(batch["keypoints"][1], want[:2], atol=1e-12)
    # Mosaic's other images' keypoints are in radians too
    mosaic = [W.Mosaic(target_size=(64, 64), cell_shape=(50, 50), p=1)]
    meta = [{"image": img[:70, :80], "keypoints": rows[:2]}, {"image": img[:60, :90],
                                                               "keypoints": rows[1:]}]
    meta_deg = [{**m, "keypoints": np.c_[m["keypoints"][:, :3], np.degrees(m["keypoints"][:, 3])]}
                for m in meta]
    got = W.Compose(mosaic, keypoint_format="xysa", angle_in_degrees=False)(
        image=img, keypoints=rows, mosaic_metadata=meta, seed=1)["keypoints"]
    ref = W.Compose(mosaic, keypoint_format="xysa")(
        image=img, keypoints=in_degrees, mosaic_metadata=meta_deg, seed=1)["keypoints"]
    assert len(ref) > 2
    np.testing.assert_allclose(got, np.c_[ref[:, :3], np.radians(ref[:, 3])], atol=1e-12)
