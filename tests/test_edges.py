"""Compose(edges="each_step"): what a step cuts away or fills stays so for the steps after it,
in one pass, held against albumentations applying the steps one after the other."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment import from_albumentations

from helpers import albumentations_and_photos, check_small_cases, warp_with_rows

A, PHOTOS = albumentations_and_photos()

#: recipes whose one map differs from albumentations' steps at the edges: a colour step before
#: a turn (the turn's border stays black there), a crop or a turn before a turn (the second
#: shows the first's border, not the photo beyond it), a normalised tensor at the end
RECIPES = {
    "invert, turn": lambda: [A.InvertImg(p=1), A.Rotate(limit=(30, 30), p=1, fill_mask=7)],
    "brightness, shift-scale-turn": lambda: [
        A.RandomBrightnessContrast((0.3, 0.3), (0.1, 0.1), p=1),
        A.Affine(translate_percent=(0.05, 0.05), scale=(1.1, 1.1), rotate=(20, 20), p=1,
                 fill=40, fill_mask=7)],
    "crop, turn": lambda: [A.Crop(60, 40, 320, 260), A.Rotate(limit=(25, 25), p=1, fill_mask=7)],
    "centre crop, affine": lambda: [A.CenterCrop(200, 240),
                                    A.Affine(rotate=(20, 20), scale=(0.8, 0.8), p=1,
                                             fill_mask=7)],
    "turn, turn, normalise": lambda: [
        A.Affine(rotate=(-20, -20), translate_px={"x": (7, 7), "y": (-5, -5)}, p=1, fill_mask=7),
        A.Rotate(limit=(17, 17), p=1, fill_mask=7), A.Normalize()],
}


def _targets(img: np.ndarray) -> dict:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    mask = (1 + (xx > w // 2) + 2 * (yy > h // 2)).astype(np.uint8)  # four quarters
    points = np.array([[60, 60], [w / 2, h / 2], [w - 10, 10], [10, h - 10], [w * 0.7, 60]])
    boxes = np.array([[40, 40, 120, 120], [100, 90, w - 40, h - 30], [0, 0, w, h]], float)
    return {"mask": mask, "keypoints": points, "bboxes": boxes, "labels": [0, 1, 2]}


def _compose(steps) -> object:
    return A.Compose(steps, keypoint_params=A.KeypointParams(format="xy"),
                     bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]))


def _levels(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in 8-bit levels (a normalised float image's through its std)."""
    d = np.abs(got.astype(np.float64) - want)
    return d * 255 * 0.224 if got.dtype == np.float32 else d


def _label_edges(m: np.ndarray) -> np.ndarray:
    """The pixels next to another label (where one nearest resampling and two differ)."""
    e = np.zeros(m.shape, bool)
    for ax in (0, 1):
        d = np.diff(m, axis=ax) != 0
        lo = [slice(None)] * 2
        hi = [slice(None)] * 2
        lo[ax], hi[ax] = slice(None, -1), slice(1, None)
        e[tuple(lo)] |= d
        e[tuple(hi)] |= d
    return e


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipes_are_albumentations_steps(name, queue):
    # (smoothed: two resamplings blur a detailed photo where one does not, a difference of
    # one pass that is not this setting's)
    img = cv2.GaussianBlur(PHOTOS["astronaut"][60:360, 40:400], (0, 0), 2)
    t = _targets(img)
    recipe = _compose(RECIPES[name]())
    want = recipe(image=img, **t)
    port = from_albumentations(recipe)
    assert port.edges == "each_step"
    got = port(image=img, seed=0, queue=queue, **t)
    d = _levels(got["image"], want["image"])
    # within a level but along the frames' edges, where albumentations' intermediate image
    # was interpolated twice (a pixel band: under 1% of the pixels more than 2 levels off)
    assert d.mean() < 0.35 and (d > 2).mean() < 0.01, (d.mean(), (d > 2).mean())
    off = got["mask"] != want["mask"]
    assert not (off & ~_label_edges(want["mask"])).any()
    np.testing.assert_allclose(got["keypoints"], np.asarray(want["keypoints"]), atol=0.05)
    # (albumentations turns a box's edges as if they were pixel centres: within a pixel)
    np.testing.assert_allclose(got["bboxes"], np.asarray(want["bboxes"]), atol=1)
    assert list(got["labels"]) == [int(v) for v in want["labels"]]
    # one map over the whole output (edges="output") is not albumentations there: these
    # recipes are the cases that tell the two apart
    one = W.Compose(port.transforms, **{**port._settings(), "edges": "output",
                                          "bbox_params": None})
    moved = one(image=img, seed=0, queue=queue, mask=t["mask"])
    assert (_levels(moved["image"], want["image"]) > 30).mean() > 0.005


@pytest.mark.parametrize("steps", [
    lambda: [A.PadIfNeeded(420, 420, border_mode=cv2.BORDER_REFLECT_101),
             A.Affine(rotate=(30, 30), border_mode=cv2.BORDER_REFLECT_101, p=1)],
    lambda: [A.Crop(20, 30, 260, 250), A.Rotate(limit=(25, 25), border_mode=cv2.BORDER_REFLECT,
                                                p=1)]], ids=["pad then turn", "crop then turn"])
def test_a_reflection_after_a_crop_or_a_pad_reflects_what_it_left(steps, queue):
    """A reflecting border reflects the image as the steps before it left it (a pass of its
    own after a crop, a pad or a turn: one map would reflect the source beyond the crop, or the
    padded image's source instead of its reflection); after a flip or a resize of the whole
    image it stays in the pass."""
    img = cv2.GaussianBlur(PHOTOS["coffee"][:300, :330], (0, 0), 2)
    t = _targets(img)
    recipe = _compose(steps())
    want = recipe(image=img, **t)
    port = from_albumentations(recipe)
    assert port.pass_starts == (1,)
    got = port(image=img, seed=0, queue=queue, **t)
    d = _levels(got["image"], want["image"])
    assert d.mean() < 0.1 and (d > 2).mean() < 0.001
    assert not ((got["mask"] != want["mask"]) & ~_label_edges(want["mask"])).any()
    for keep in ([A.HorizontalFlip(p=1)], [A.Resize(280, 310)]):
        turn = A.Rotate(limit=(25, 25), border_mode=cv2.BORDER_REFLECT, p=1)
        assert from_albumentations(A.Compose([*keep, turn])).pass_starts == ()


def test_a_perspective_frame_is_the_steps_one_after_the_other(queue):
    """A frame through a perspective map (a crop, a Perspective, then a turn) in one pass is
    the steps applied one after the other: the first two as one pipeline, the turn replayed on
    their image."""
    img = cv2.GaussianBlur(PHOTOS["chelsea"][:280, :320], (0, 0), 2)
    steps = [W.Crop(30, 20, 290, 250), W.Perspective(scale=(0.08, 0.12), p=1),
             W.Rotate(limit=(-25, 25), p=1)]
    one = W.Compose(steps, edges="each_step")
    for seed in range(3):
        got = one(image=img, seed=seed, queue=queue)
        first = W.Compose(steps[:2])(image=img, params={"applied": True,
                                                       "steps": got["params"]["steps"][:2]},
                                     queue=queue)["image"]
        want = W.Compose(steps[2:])(image=first, params={
            "applied": True, "steps": got["params"]["steps"][2:]}, queue=queue)["image"]
        d = _levels(got["image"], want)
        assert d.mean() < 0.35 and (d > 2).mean() < 0.01, (seed, d.mean(), (d > 2).mean())
        moved = W.Compose(steps)(image=img, seed=seed, queue=queue)["image"]
        assert (_levels(moved, want) > 30).mean() > 0.005  # (one map: the crop's outside)


def test_a_sample_is_the_same_alone_and_in_a_batch(queue):
    """The frames' operations are each sample's own: a ragged batch of different draws (a
    turn, or a crop then a turn, in a OneOf) gives each sample as it is alone, bit for bit,
    and its params replay it."""
    fills = {"fill": (10, 200, 30), "fill_mask": 9}
    pipe = W.Compose([W.RandomBrightnessContrast(p=0.7),
                      W.OneOf([W.RandomCrop(150, 170), W.Affine(rotate=(-30, 30), p=1, **fills)]),
                      W.Rotate(limit=20, p=0.8, **fills), W.HorizontalFlip()],
                     edges="each_step")
    photos = [PHOTOS[k][::2, ::2] for k in ("astronaut", "coffee", "chelsea")] * 2
    targets = [_targets(p) for p in photos]
    batch = pipe(image=photos, mask=[t["mask"] for t in targets],
                 boxes=[t["bboxes"] for t in targets], labels=[t["labels"] for t in targets],
                 seed=4, queue=queue)
    assert {p["steps"][1]["choice"] for p in batch["params"]} == {0, 1}
    for k, (p, t) in enumerate(zip(photos, targets)):
        alone = pipe(image=p, mask=t["mask"], boxes=t["bboxes"], labels=t["labels"], seed=4,
                     index=k, queue=queue)
        np.testing.assert_array_equal(batch["image"][k], alone["image"])
        np.testing.assert_array_equal(batch["mask"][k], alone["mask"])
        np.testing.assert_array_equal(batch["boxes"][k], alone["boxes"])
        again = pipe(image=p, params=alone["params"], queue=queue)
        np.testing.assert_array_equal(again["image"], alone["image"])


def test_a_sample_without_frames_is_the_same_alone_and_in_a_batch(queue):
    """A pipeline with no colour step, whose model input is float: a sample whose steps cut no
    frame (its turn not drawn) is the same alone as in a batch beside samples whose turn puts
    a frame among the warp's operations (the batch's colour program rounded its levels, the
    lone call's warp did not: half a level apart in 97% of the pixels)."""
    pipe = W.Compose([W.RandomCrop(150, 170), W.Rotate(limit=20, p=0.5), W.Resize((100, 120))],
                     edges="each_step", output_dtype="float32", mean=(0.485, 0.456, 0.406),
                     std=(0.229, 0.224, 0.225))
    photos = [PHOTOS[k][::2, ::2] for k in ("astronaut", "coffee", "chelsea")] * 2
    batch = pipe(image=photos, seed=1, queue=queue)
    turned = [p["steps"][1]["applied"] for p in batch["params"]]
    assert any(turned) and not all(turned), turned
    for k, p in enumerate(photos):
        alone = pipe(image=p, seed=1, index=k, queue=queue)
        np.testing.assert_array_equal(batch["image"][k], alone["image"])


def test_the_border_comes_before_the_colour_steps_after_it(queue):
    """A turn's border is its fill through the colour steps after the turn, and not through
    those before it: a corner of InvertImg, turn, ToGray is the fill's gray, not its
    inversion's."""
    img = np.full((64, 80, 3), 90, np.uint8)
    fill = (250, 20, 120)
    pipe = W.Compose([W.InvertImg(p=1), W.Rotate(limit=(30, 30), p=1, fill=fill),
                      W.ToGray(p=1)], edges="each_step")
    got = pipe(image=img, seed=0, queue=queue)["image"]
    gray = round(0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2])
    assert abs(int(got[0, 0, 0]) - gray) <= 1 and abs(int(got[32, 40, 0]) - 165) <= 1
    before = W.Compose(pipe.transforms, fill=fill)(image=img, seed=0, queue=queue)["image"]
    assert abs(int(before[0, 0, 0]) - (255 - gray)) <= 1  # edges="output": through both


def test_a_choice_of_colour_before_a_turn_keeps_the_turn_border(queue):
    """A OneOf whose choices are a turn and a colour step, then a turn: the samples that chose
    the colour step keep the second turn's black border (the colour step comes before it), as
    those that chose the turn do."""
    img = np.full((64, 80, 3), 90, np.uint8)
    pipe = W.Compose([W.OneOf([W.Rotate(limit=(10, 10), p=1), W.InvertImg(p=1)]),
                      W.Rotate(limit=(30, 30), p=1)], edges="each_step")
    batch = pipe(image=np.stack([img] * 8), seed=2, queue=queue)
    assert {p["steps"][0]["choice"] for p in batch["params"]} == {0, 1}
    for k, params in enumerate(batch["params"]):
        assert (batch["image"][k][0, 0] == 0).all(), params["steps"][0]["choice"]
        inside = 165 if params["steps"][0]["choice"] else 90
        assert abs(int(batch["image"][k][32, 40, 0]) - inside) <= 1


def test_the_setting_is_data_and_refused_where_it_cannot_hold():
    pipe = W.Compose([W.CenterCrop(100, 100), W.Rotate(limit=10)], edges="each_step")
    d = pipe.to_dict()
    assert d["edges"] == "each_step"
    assert W.Compose.from_dict(json.loads(json.dumps(d))).edges == "each_step"
    assert "edges" not in W.Compose([W.Rotate(limit=10)]).to_dict()
    with pytest.raises(ValueError, match="edges must be"):
        W.Compose([W.Rotate(limit=10)], edges="each")
    for step in (W.ElasticTransform(), W.GridDistortion()):
        with pytest.raises(ValueError, match="ElasticTransform|GridDistortion"):
            W.Compose([W.Rotate(limit=10), step], edges="each_step")
    # the frames are colour operations: images of 1 to 4 channels where one cuts
    wide = np.zeros((50, 50, 6), np.uint8)
    turn = W.Compose([W.Crop(5, 5, 40, 40), W.Rotate(limit=(30, 30), p=1)], edges="each_step")
    with pytest.raises(ValueError, match="each_step.*1 to 4 channels"):
        turn(image=wide, seed=0)
    assert W.Compose([W.Crop(5, 5, 40, 40), W.HorizontalFlip(p=1)], edges="each_step")(
        image=wide, seed=0)["image"].shape == (35, 35, 6)


def test_the_port_sets_it_where_the_order_needs_it():
    """Only where a step that fills outside its input follows a colour step or geometry that
    moves the frame (a flip, a quarter turn do not): elsewhere one map is the same result."""
    need = {
        (A.HorizontalFlip(), A.Affine(rotate=(10, 10), p=1)): "output",
        (A.Affine(rotate=(10, 10), p=1), A.HorizontalFlip()): "output",
        (A.Rotate(p=1), A.RandomBrightnessContrast()): "output",
        (A.Resize(100, 100), A.HorizontalFlip()): "output",
        (A.RandomBrightnessContrast(), A.Rotate(p=1)): "each_step",
        (A.RandomCrop(100, 100), A.Rotate(p=1)): "each_step",
        (A.Resize(100, 100), A.Rotate(p=1)): "each_step",
        (A.Rotate(p=1), A.ElasticTransform()): "output",
    }
    for steps, edges in need.items():
        assert from_albumentations(A.Compose(list(steps))).edges == edges, steps


def test_device_masks_are_refused_where_a_frame_cuts(queue):
    cla = pytest.importorskip("pyopencl.array")
    img = PHOTOS["coffee"][:120, :160]
    pipe = W.Compose([W.Crop(20, 20, 120, 100), W.Rotate(limit=(30, 30), p=1)],
                     edges="each_step")
    mask = cla.to_device(queue, np.ones(img.shape[:2], np.uint8))
    with pytest.raises(ValueError, match="each_step"):
        pipe(image=img, mask=mask, seed=0, queue=queue)


def test_the_engine_checks_a_frame_before_any_launch(queue):
    """COL_FRAME as the engine takes it: a frame shifted by 3 px keeps 3 columns' fill on the
    left (nearest rule), and a frame without its fill's data operation, of no pixels, or with a
    map that is not finite is refused."""
    from warpkit.engine.core import COL_DATA, COL_FRAME

    img = np.full((6, 10, 3), 100, np.uint8)
    frame = [COL_FRAME, 1, 0, -3, 0, 1, 0, 0, 0, 10, 6, 1]
    got = warp_with_rows(img, [frame, [COL_DATA, 7, 8, 9]], queue)
    assert (got[:, :3] == [7, 8, 9]).all() and (got[:, 3:] == 100).all()
    for rows in ([frame], [frame, [0]], [[*frame[:9], 0, 6, 1], [COL_DATA]],
                 [[COL_FRAME, np.nan, *frame[2:]], [COL_DATA]]):
        with pytest.raises(ValueError, match="COL_FRAME"):
            warp_with_rows(img, rows, queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """The frames' operation on a 21 x 13 output (a turn after a crop, a colour step before a
    turn): the reference device's numbers on every device CI runs, and on Oclgrind."""
    img = PHOTOS["astronaut"][100:127, 150:181].copy()
    geo = W.Crop(3, 2, 24, 15)
    cases = [[W.RandomAffine(degrees=(35, 35))],
             [W.InvertImg(p=1), W.RandomAffine(degrees=(-25, -25), scale=(0.8, 0.8))]]
    check_small_cases(img, geo, cases, small_queue, edges="each_step")
