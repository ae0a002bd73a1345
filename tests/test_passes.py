"""Pipelines in passes (``Compose(passes="as_needed")``): where a step's resampling settings
(interpolation, padding, fill, the masks' own) differ from those of the steps before it, or
where geometry follows a step that does not commute with it (a blur, noise, CLAHE), the image
is resampled again, as albumentations resamples after every transform. from_albumentations
ports such recipes this way (it refused the first kind, and applied the second kind's pixel
steps after all the geometry); the results are albumentations' own, and a pipeline in passes
draws, replays, batches and saves as one in a single pass."""

from __future__ import annotations

import json
import os
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

PHOTO = np.ascontiguousarray(skimage.data.astronaut()[:300, :400])
BOXES = [[40.0, 50.0, 200.0, 180.0], [250.0, 20.0, 390.0, 290.0]]
POINTS = [[60.0, 70.0], [300.0, 150.0], [390.0, 10.0]]


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


with warnings.catch_warnings():  # (albumentations' deprecation notes)
    warnings.simplefilter("ignore")
    RECIPES = {  # name -> (steps, where passes start, the keypoints' tolerance in px)
        # a segmentation recipe: a letterbox in constant padding, then turns that reflect it
        # (albumentations scales keypoints about the corner, warpkit about pixel centres:
        # half a pixel times the stretch less one, the guide says)
        "pad constant, turn reflect_101": ([
            A.LongestMaxSize(256), A.PadIfNeeded(300, 300, border_mode=cv2.BORDER_CONSTANT),
            A.ShiftScaleRotate(shift_limit=0, scale_limit=0, rotate_limit=(20, 20),
                               border_mode=cv2.BORDER_REFLECT_101, p=1)], (2,), 0.3),
        "INTER_AREA resize, linear turn": ([
            A.LongestMaxSize(200, interpolation=cv2.INTER_AREA), A.HorizontalFlip(p=1),
            A.Affine(rotate=(10, 10), p=1)], (2,), 0.6),
        # YOLO's letterbox grey, then an Affine that fills black
        "fill 114, then fill 0": ([
            A.PadIfNeeded(512, 512, fill=114), A.Affine(scale=(0.7, 0.7), rotate=(5, 5), p=1)],
            (1,), 0.01),
        "reflect, flip, constant": ([
            A.Rotate(limit=(15, 15), border_mode=cv2.BORDER_REFLECT, p=1), A.HorizontalFlip(p=1),
            A.Affine(scale=(0.8, 0.8), p=1)], (2,), 0.01),
    }


@pytest.mark.parametrize("name", list(RECIPES))
def test_recipes_whose_settings_change_are_albumentations(name, queue):
    """Each recipe ports in the passes its settings make (a step without settings of its own,
    a flip, stays in the pass before it), and gives albumentations' image within a level,
    its boxes within 0.05 px and its keypoints within the recipe's tolerance (where a
    reflection shows them again, albumentations adds mirrored copies, which warpkit does not:
    each of warpkit's is among albumentations')."""
    steps, starts, tol = RECIPES[name]
    recipe = _quiet(A.Compose, steps,
                    bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]),
                    keypoint_params=A.KeypointParams("xy", remove_invisible=False))
    got = W.from_albumentations(recipe)
    assert got.passes == "as_needed" and got.pass_starts == starts
    theirs = _quiet(recipe, image=PHOTO, bboxes=BOXES, labels=[1, 2], keypoints=POINTS)
    ours = got(image=PHOTO, bboxes=BOXES, labels=[1, 2], keypoints=POINTS, seed=0, queue=queue)
    assert ours["image"].shape == theirs["image"].shape
    assert np.abs(ours["image"].astype(int) - theirs["image"]).max() <= 1
    for mine, all_theirs, atol in ((ours["bboxes"], theirs["bboxes"], 0.05),
                                   (np.asarray(ours["keypoints"])[:, :2],
                                    np.asarray(theirs["keypoints"])[:, :2], tol)):
        assert len(mine) and len(all_theirs) >= len(mine)
        for row in np.asarray(mine):
            assert np.abs(np.asarray(all_theirs) - row).max(1).min() <= atol, row
    assert len(ours["labels"]) == len(ours["bboxes"])


def test_pixel_steps_before_geometry_keep_their_place(queue):
    """A blur, CLAHE or noise before a resize (augment at the photo's size, then resize to the
    model's: a common recipe) is applied where it stands, at the photo's size, in a pass of its
    own: the blur and CLAHE give albumentations' pixels within a level (in one pass they were
    applied after the resize: a 4 times wider blur, 18 levels apart on average), the noise its
    strength after the resize averages it (within 5%); steps that commute with geometry
    (ToGray, a ColorJitter without contrast) stay in the pass, and a recipe whose geometry
    comes first ports in one pass."""
    photo = np.ascontiguousarray(skimage.data.astronaut()[::2, ::2])  # (256 x 256)

    def roughness(x):
        return np.abs(np.diff(np.asarray(x, float), 2, axis=1)).mean()

    for steps, starts in (
            ([A.GaussianBlur(blur_limit=(0, 0), sigma_limit=(3, 3), p=1), A.Resize(64, 64)],
             (1,)),
            ([A.CLAHE(clip_limit=(4, 4), p=1), A.ToGray(p=1), A.Resize(64, 80)], (2,)),
            ([A.HorizontalFlip(p=1), A.Affine(rotate=(10, 10), p=1),
              A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1),
              A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(2, 2), p=1),
              A.ColorJitter(brightness=0.2, contrast=0, saturation=0.2, hue=0, p=1),
              A.Resize(112, 112)], (5,))):
        recipe = _quiet(A.Compose, steps)
        got = W.from_albumentations(recipe)
        assert got.pass_starts == starts, [type(t).__name__ for t in steps]
        if any(isinstance(t, A.ColorJitter) for t in steps):
            continue  # (its draws are warpkit's: the pass plan is what this case checks)
        theirs = _quiet(recipe, image=photo)["image"]
        ours = got(image=photo, seed=0, queue=queue)["image"]
        assert np.abs(ours.astype(int) - theirs).max() <= 1
    noisy = _quiet(A.Compose, [A.GaussNoise(std_range=(0.2, 0.2), p=1), A.Resize(64, 64)])
    got = W.from_albumentations(noisy)
    assert got.pass_starts == (1,)
    theirs = roughness(_quiet(noisy, image=photo)["image"])
    ours = roughness(got(image=photo, seed=0, queue=queue)["image"])
    one_pass = roughness(W.Compose(got.transforms)(image=photo, seed=0, queue=queue)["image"])
    assert abs(ours - theirs) < 0.05 * theirs and one_pass > 1.2 * theirs  # (noise at 64 px)
    first = W.from_albumentations(_quiet(A.Compose, [
        A.RandomResizedCrop((64, 64)), A.HorizontalFlip(), A.ColorJitter(p=1),
        A.GaussianBlur(p=1), A.GaussNoise(p=1)]))
    assert first.passes == "one"
    native = W.Compose([W.HorizontalFlip(), W.ColorJitter(0.2, 0, 0.2, 0.1), W.GaussianBlur(),
                        W.ToGray(), W.Resize(128, 128), W.GaussNoise()], passes="as_needed")
    assert native.pass_starts == (4,)
    assert W.Compose([W.ColorJitter(0.2, 0.2), W.Resize(8, 8)],
                     passes="as_needed").pass_starts == (1,)  # (contrast reads the mean)
    assert W.Compose([W.ColorJitter(0.2, 0), W.Resize(8, 8)], passes="as_needed").pass_starts == ()


@pytest.mark.parametrize("steps", [
    lambda: [A.Affine(scale=(0.8, 0.8), shear=(10, 10), p=1),
             A.Rotate(limit=(20, 20), rotate_method="ellipse", p=1)],
    lambda: [A.Rotate(limit=(20, 20), rotate_method="ellipse", p=1),
             A.Affine(rotate=(-10, -10), p=1)],
], ids=["shear, then an ellipse's turn", "an ellipse's turn, then a turn"])
def test_an_ellipse_turns_in_a_pass_of_its_own(steps, queue):
    """rotate_method="ellipse" with another step that turns (refused in one pass: the boxes
    move once, through the map of all the steps): a pass each, and albumentations' boxes
    (within 0.05 px) and image (within a level)."""
    recipe = _quiet(A.Compose, steps(),
                    bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]))
    got = W.from_albumentations(recipe)
    assert got.pass_starts == (1,)
    theirs = _quiet(recipe, image=PHOTO, bboxes=BOXES, labels=[1, 2])
    ours = got(image=PHOTO, bboxes=BOXES, labels=[1, 2], seed=0, queue=queue)
    np.testing.assert_allclose(ours["bboxes"], theirs["bboxes"], atol=0.05)
    assert np.abs(ours["image"].astype(int) - theirs["image"]).max() <= 1


def test_the_model_input_is_made_by_the_last_pass(queue):
    """Resize(cubic) then Affine(linear), then Normalize and ToTensorV2 (as A.to_dict writes
    it): the first pass stays uint8, as albumentations' image between its steps, and the last
    makes the float32 CHW tensor, within albumentations' by a level and a half's worth (a
    level as the uint8 images, and the half a level albumentations rounds to before it
    normalises and the fused store does not)."""
    steps = [A.Resize(224, 224, interpolation=cv2.INTER_CUBIC), A.Affine(rotate=(10, 10), p=1),
             A.Normalize()]
    spec = _quiet(A.to_dict, _quiet(A.Compose, steps))
    spec["transform"]["transforms"].append({"__class_fullname__": "ToTensorV2", "p": 1.0,
                                            "transpose_mask": False})
    got = W.from_albumentations(spec)
    assert got.pass_starts == (1,) and got.layout == "CHW" and got.tensors
    got.tensors = False  # (numpy arrays: torch is optional here)
    theirs = _quiet(_quiet(A.Compose, steps), image=PHOTO)["image"].transpose(2, 0, 1)
    ours = got(image=PHOTO, seed=0, queue=queue)["image"]
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() <= 1.5 / 255 / 0.224


def test_passes_are_the_steps_one_after_the_other(queue):
    """A pipeline in passes is its passes run one after the other, each a pipeline of its
    own settings (fixed parameters: no draws to share), with a host step between two of them
    as well; a step without settings stays in the pass before it."""
    pad = W.PadIfNeeded(360, 460, border_mode=cv2.BORDER_CONSTANT, fill=(9, 90, 200))
    turn = W.Affine(rotate=(12, 12), border_mode=cv2.BORDER_REFLECT_101, p=1)
    flip = W.HorizontalFlip(p=1)
    shrink = W.Affine(scale=(0.75, 0.75), interpolation=cv2.INTER_CUBIC, p=1)
    halve = W.Lambda(image=lambda x, **k: x // 2, name="halve")
    pipe = W.Compose([pad, flip, turn, halve, shrink], passes="as_needed")
    assert pipe.pass_starts == (2, 4)
    first = W.Compose([pad, flip])(image=PHOTO, seed=0, queue=queue)["image"]
    second = W.Compose([turn])(image=first, seed=0, queue=queue)["image"] // 2
    want = W.Compose([shrink])(image=second, seed=0, queue=queue)["image"]
    out = pipe(image=PHOTO, seed=0, queue=queue)
    np.testing.assert_array_equal(out["image"], want)
    same_maps = W.Compose([W.PadIfNeeded(360, 460), flip, W.Affine(rotate=(12, 12), p=1),
                           W.Affine(scale=(0.75, 0.75), p=1)])  # (one pass: the same maps)
    np.testing.assert_allclose(out["matrix"],
                               same_maps(image=PHOTO, seed=0, queue=queue)["matrix"], atol=1e-9)
    boxes = pipe(image=PHOTO, boxes=BOXES, labels=[1, 2], seed=0, queue=queue)["boxes"]
    one = W.Compose([pad, flip, turn, shrink], passes="as_needed")(
        image=PHOTO, boxes=BOXES, labels=[1, 2], seed=0, queue=queue)["boxes"]
    np.testing.assert_allclose(boxes, one, atol=1e-6)  # (the Lambda moves nothing)


def test_draws_batches_replays_and_saves_as_one_pass(queue):
    """Drawn steps (a RandomResizedCrop, an Affine with ranges): a ragged batch of 6 equals
    each sample alone, a replay of recorded parameters equals the call, and to_dict /
    from_dict keeps the passes (each step's own settings, none for the Compose)."""
    pipe = W.Compose([W.PadIfNeeded(320, 420, border_mode=cv2.BORDER_CONSTANT, fill=114),
                      W.RandomResizedCrop((160, 200), scale=(0.3, 1.0)),
                      W.Affine(rotate=(-20, 20), scale=(0.8, 1.2),
                               border_mode=cv2.BORDER_REFLECT_101, p=1),
                      W.ColorJitter(0.3, 0.3, 0.3, 0.05, p=1)],
                     passes="as_needed", min_visibility=0.1)
    assert pipe.pass_starts == (2,)
    imgs = [PHOTO[: 200 + 20 * k, : 250 + 25 * k] for k in range(6)]
    boxes = [[[10.0, 10.0, 120.0, 150.0 + 5 * k]] for k in range(6)]
    labels = [[k] for k in range(6)]
    out = pipe(image=imgs, boxes=boxes, labels=labels, seed=4, queue=queue)
    for k in (0, 3, 5):
        alone = pipe(image=imgs[k], boxes=boxes[k], labels=labels[k], seed=4, index=k,
                     queue=queue)
        np.testing.assert_array_equal(alone["image"], out["image"][k])
        np.testing.assert_allclose(alone["boxes"], out["boxes"][k])
        again = pipe.replay(out["params"][k], image=imgs[k], boxes=boxes[k], labels=labels[k],
                            queue=queue)
        np.testing.assert_array_equal(again["image"], out["image"][k])
    d = pipe.to_dict()
    assert d["passes"] == "as_needed" and d["padding"] is None
    back = W.Compose.from_dict(json.loads(json.dumps(d)))
    assert back.pass_starts == (2,) and back.to_dict() == d
    np.testing.assert_array_equal(back(image=imgs[1], seed=4, index=1, queue=queue)["image"],
                                  out["image"][1])


def test_one_pass_refuses_and_says_where_passes_help():
    with pytest.raises(ValueError, match=r"Affine sets padding='reflect_101' but PadIfNeeded "
                                         r"sets padding='constant': a warpkit pipeline of "
                                         r"passes='one' resamples once, with one padding "
                                         r"\(passes='as_needed', the default's choice where "
                                         r"settings differ, resamples again"):
        W.Compose([W.PadIfNeeded(64, 64), W.Affine(border_mode=cv2.BORDER_REFLECT_101)],
                  passes="one")
    # the default: one pass where the settings agree, else passes where they change (as
    # albumentations' recipes set them per transform); the data says which
    auto = W.Compose([W.PadIfNeeded(64, 64), W.Affine(border_mode=cv2.BORDER_REFLECT_101)])
    assert auto.passes == "as_needed" and auto.pass_starts == (1,)
    assert W.Compose.from_dict(auto.to_dict()).pass_starts == (1,)
    agree = W.Compose([W.PadIfNeeded(64, 64), W.Affine(rotate=5)])
    assert agree.passes == "one" and "passes" not in agree.to_dict()
    with pytest.raises(ValueError, match=r"the steps of one OneOf resample in one pass, with "
                                         r"one padding"):
        W.Compose([W.OneOf([W.PadIfNeeded(64, 64), W.Affine(border_mode=4)])],
                  passes="as_needed")
    with pytest.raises(ValueError, match=r"Affine sets padding='reflect_101' but Compose sets "
                                         r"padding='constant': the Compose's padding holds for "
                                         r"every pass"):
        W.Compose([W.PadIfNeeded(64, 64), W.Affine(border_mode=4)], padding="constant",
                  passes="as_needed")
    with pytest.raises(ValueError, match=r"passes must be 'one' \(the pipeline resamples once\) "
                                         r"or 'as_needed'.*got 'two'"):
        W.Compose([], passes="two")
    # settings that agree: one pass, as without passes
    same = W.Compose([W.PadIfNeeded(64, 64), W.Affine(rotate=5)], passes="as_needed")
    assert same.pass_starts == () and same.padding == "constant"


def test_mosaic_then_an_affine_that_fills_otherwise(queue):
    """A detection recipe: Mosaic (grey 114) and an Affine that fills black, in a batch of 4
    (each mosaic from the batch's samples): two passes, boxes inside the output."""
    recipe = _quiet(A.Compose, [A.Mosaic(target_size=(256, 256), fill=114, p=1),
                                A.Affine(rotate=(10, 10), scale=(0.8, 0.8), fill=0, p=1)],
                    bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]))
    got = W.from_albumentations(recipe)
    assert got.pass_starts == (1,)
    out = got(image=np.stack([PHOTO] * 4), bboxes=[BOXES] * 4, labels=[[1, 2]] * 4, seed=0,
              queue=queue)
    assert out["image"].shape == (4, 256, 256, 3)
    rows = np.concatenate([b for b in out["bboxes"] if len(b)])
    assert len(rows) and rows.min() >= 0 and rows.max() <= 256
    # the Affine's black corners, and the Mosaic's grey inside them
    assert (out["image"][:, 0, 0] == 0).all()


def test_the_cli_takes_a_recipe_in_passes(tmp_path):
    Image.fromarray(PHOTO[:200, :300]).save(tmp_path / "a.png")
    _quiet(A.save, _quiet(A.Compose, RECIPES["pad constant, turn reflect_101"][0]),
           str(tmp_path / "aug.json"))
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "o"),
                                 "--seed", "3", "--pipeline", str(tmp_path / "aug.json")])
    assert r.exit_code == 0, r.output
    (out,) = (tmp_path / "o").iterdir()
    with Image.open(out) as im:
        assert im.size == (300, 300)
