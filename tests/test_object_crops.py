"""Crops that respect objects (issue: detection recipes, item 2): albumentations'
BBoxSafeRandomCrop, RandomSizedBBoxSafeCrop, AtLeastOneBBoxRandomCrop and
CropNonEmptyMaskIfExists, torchvision's RandomIoUCrop and RandomZoomOut.

Their draws are albumentations' own algorithms: fed the same random numbers (albumentations'
``py_random`` replaced by one that reads the same stream), albumentations' own
``get_params_dependent_on_data`` chooses the same crop. With that crop fixed, the outputs are
albumentations' (image, mask, boxes). Their promises hold over many seeds, through steps before
them, in batches, and replay exactly."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._lanes import draw_samples
from warpkit.augment._targets import Seen

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.coffee()  # 400 x 600 RGB
H, W_ = PHOTO.shape[:2]
BOXES = np.array([[100.0, 60.0, 170.0, 130.0], [300.5, 80.25, 460.0, 390.0],
                  [420.0, 10.0, 590.5, 70.0]])
LABELS = [0, 1, 2]


def _mask(spots=((250, 60, 20, 30),), value=3, shape=(H, W_)):
    m = np.zeros(shape, np.uint8)
    for y, x, h, w in spots:
        m[y:y + h, x:x + w] = value
    return m


class _Stream:
    """albumentations' py_random (Python's random.Random) read from a numpy stream as
    warpkit's draws read it: random(), randint (both ends), uniform, choice."""

    def __init__(self, seed: int) -> None:
        self.g = np.random.default_rng(seed)

    def random(self):
        return float(self.g.random())

    def randint(self, a, b):
        return int(self.g.integers(a, b + 1))

    def uniform(self, a, b):
        return a + (b - a) * float(self.g.random())

    def choice(self, seq):
        return seq[int(self.g.integers(len(seq)))]


def _their_crop(t, seed, boxes=None, mask=None, masks=None):
    t.py_random = _Stream(seed)
    data = {}
    if boxes is not None:
        data["bboxes"] = np.asarray(boxes, np.float64).reshape(-1, 4) / [W_, H, W_, H]
    if mask is not None:
        data["mask"] = mask
    if masks is not None:
        data["masks"] = masks
    return [int(v) for v in t.get_params_dependent_on_data({"shape": (H, W_, 3)},
                                                           data)["crop_coords"]]


def _our_crop(t, seed, boxes=None, mask=None, masks=None):
    ms = [mask] if mask is not None else masks
    seen = Seen((W_, H), None if boxes is None else np.asarray(boxes, np.float64).reshape(-1, 4),
                ms)
    return t.draw_seen(np.random.default_rng(seed), (W_, H), seen)["crop"]


BOX_SETS = [BOXES, BOXES[1:2], np.zeros((0, 4)), BOXES + [0.3, 0.7, 0.1, 0.9]]


@pytest.mark.parametrize("ours, theirs", [
    (W.BBoxSafeRandomCrop(), A.BBoxSafeRandomCrop()),
    (W.BBoxSafeRandomCrop(erosion_rate=0.3), A.BBoxSafeRandomCrop(erosion_rate=0.3)),
    (W.RandomSizedBBoxSafeCrop(256, 320, erosion_rate=0.2),
     A.RandomSizedBBoxSafeCrop(256, 320, erosion_rate=0.2)),
    (W.AtLeastOneBBoxRandomCrop(200, 250), A.AtLeastOneBBoxRandomCrop(200, 250)),
    (W.AtLeastOneBBoxRandomCrop(120, 90, erosion_factor=0.5),
     A.AtLeastOneBBoxRandomCrop(120, 90, erosion_factor=0.5)),
    (W.AtLeastOneBBoxRandomCrop(120, 90, erosion_factor=1.0),
     A.AtLeastOneBBoxRandomCrop(120, 90, erosion_factor=1.0)),
])
def test_box_draws_are_albumentations_own(ours, theirs):
    for boxes in BOX_SETS:
        for seed in range(25):
            assert _our_crop(ours, seed, boxes) == _their_crop(theirs, seed, boxes), \
                (seed, boxes)


@pytest.mark.parametrize("kw", [{}, {"ignore_values": [3]}, {"ignore_channels": [0]}])
def test_mask_draws_are_albumentations_own(kw):
    ours, theirs = W.CropNonEmptyMaskIfExists(64, 80, **kw), \
        A.CropNonEmptyMaskIfExists(64, 80, **kw)
    one = _mask(((250, 60, 20, 30), (10, 500, 5, 5)))
    two = np.maximum(one, _mask(((100, 300, 40, 40),), value=7))
    stacked = np.stack([one, _mask(((380, 580, 20, 20),), value=1)], -1)
    for seed in range(20):
        for mask in (one, two, np.zeros_like(one), stacked):
            assert _our_crop(ours, seed, mask=mask) == _their_crop(theirs, seed, mask=mask)
        masks = [one, _mask(((0, 0, 8, 8),), value=1)]
        assert _our_crop(ours, seed, masks=masks) == _their_crop(theirs, seed, masks=masks)


def _fixed(t, crop):
    t.get_params_dependent_on_data = lambda params, data: {"crop_coords": tuple(crop)}
    return t


def _albumentations(t, mask):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([t], bbox_params=A.BboxParams(format="pascal_voc",
                                                         label_fields=["labels"]))
        return recipe(image=PHOTO, mask=mask, bboxes=BOXES, labels=LABELS)


@pytest.mark.parametrize("ours, theirs", [
    (W.BBoxSafeRandomCrop(), A.BBoxSafeRandomCrop()),
    (W.AtLeastOneBBoxRandomCrop(200, 250), A.AtLeastOneBBoxRandomCrop(200, 250)),
    (W.CropNonEmptyMaskIfExists(64, 80), A.CropNonEmptyMaskIfExists(64, 80)),
    (W.RandomSizedBBoxSafeCrop(256, 320), A.RandomSizedBBoxSafeCrop(256, 320)),
])
def test_fixed_crops_equal_albumentations(ours, theirs, queue):
    mask = _mask(((250, 60, 20, 30), (100, 300, 60, 90)))
    aug = W.Compose([ours], box_format="pascal_voc")
    for seed in range(4):
        got = aug(image=PHOTO, mask=mask, bboxes=BOXES, labels=LABELS, seed=seed, queue=queue)
        want = _albumentations(_fixed(theirs, got["params"]["steps"][0]["crop"]), mask)
        assert got["image"].shape == want["image"].shape
        assert got["labels"] == list(want["labels"])
        np.testing.assert_allclose(got["bboxes"], np.asarray(want["bboxes"]).reshape(-1, 4),
                                   atol=0.5)
        if isinstance(ours, W.RandomSizedBBoxSafeCrop):
            # cv2.resize repeats the crop's edge pixels; warpkit reads the image beyond them:
            # the outermost output rows and columns differ, the rest within 1 level
            inner = (slice(1, -1), slice(1, -1))
            diff = np.abs(got["image"][inner].astype(int) - want["image"][inner])
            assert diff.max() <= 1
            # nearest masks: OpenCV's nearest floors, warpkit's takes the nearest centre
            assert (got["mask"] == want["mask"]).mean() > 0.97
        else:
            assert np.array_equal(got["image"], want["image"])
            assert np.array_equal(got["mask"], want["mask"])


def test_bbox_safe_crops_keep_every_box_after_other_steps(queue):
    """Through a flip and an affine before it, the crop still holds every box as those steps
    left it (the draw reads the boxes where they are, not where they were)."""
    steps = [W.HorizontalFlip(p=1), W.Affine(rotate=(-10, 10), scale=(0.8, 0.9), p=1)]
    before = W.Compose(steps, min_visibility=0.999)
    for crop in (W.BBoxSafeRandomCrop(), W.RandomSizedBBoxSafeCrop(300, 300)):
        aug = W.Compose([*steps, crop], min_visibility=0.999)
        shrunk = 0
        for seed in range(30):
            want = before(image=PHOTO, boxes=BOXES, labels=LABELS, seed=seed, queue=queue)
            got = aug(image=PHOTO, boxes=BOXES, labels=LABELS, seed=seed, queue=queue)
            assert got["labels"] == want["labels"], seed
            shrunk += got["image"].shape[:2] != want["image"].shape[:2]
        assert shrunk > 20  # and it did crop


@pytest.mark.parametrize("name", ["GridDistortion", "PiecewiseAffine", "ThinPlateSpline",
                                  "ElasticTransform", "OpticalDistortion"])
def test_bbox_safe_crops_read_the_boxes_through_a_non_linear_step(name, queue):
    """A non-linear step before the crop (whose map is a field, a chain of one stage): the
    crop's draw reads the boxes as the field left them and holds all of them (a field alone
    in its chain was taken for a matrix, and the call failed with a TypeError)."""
    nl = getattr(W, name)(p=1)
    before = W.Compose([nl])
    aug = W.Compose([nl, W.BBoxSafeRandomCrop()])
    for seed in range(4):
        want = before(image=PHOTO, boxes=BOXES, labels=LABELS, seed=seed, queue=queue)
        got = aug(image=PHOTO, boxes=BOXES, labels=LABELS, seed=seed, queue=queue)
        x1, y1, x2, y2 = got["params"]["steps"][1]["crop"]
        b = np.asarray(want["boxes"])
        assert len(b) and (b[:, :2] >= [x1 - 1, y1 - 1]).all() and \
            (b[:, 2:] <= [x2 + 1, y2 + 1]).all(), (seed, b, (x1, y1, x2, y2))
        assert got["labels"] == want["labels"]


def test_at_least_one_box_is_kept(queue):
    """A box that fits the crop is held whole; one larger than the crop is still cut into."""
    whole = W.Compose([W.AtLeastOneBBoxRandomCrop(150, 150)], min_visibility=0.999)
    touched = W.Compose([W.AtLeastOneBBoxRandomCrop(150, 150)])
    kept = set()
    for seed in range(40):
        assert whole(image=PHOTO, boxes=BOXES[:1], labels=LABELS[:1], seed=seed,
                     queue=queue)["labels"] == [0]
        got = touched(image=PHOTO, boxes=BOXES[:2], labels=LABELS[:2], seed=seed, queue=queue)
        assert got["labels"], seed
        kept.update(got["labels"])
    assert kept == {0, 1}  # the box is chosen at random


def test_crop_non_empty_mask_centres_the_mask(queue):
    mask = _mask(((250, 60, 20, 30),), value=3)
    mask[0:40, 0:40] = 5  # a class to ignore
    aug = W.Compose([W.CropNonEmptyMaskIfExists(64, 64, ignore_values=[5])])
    for seed in range(30):
        got = aug(image=PHOTO, mask=mask, seed=seed, queue=queue)
        assert (got["mask"] == 3).any() and not (got["mask"] == 5).any(), seed
    # masks= (instance masks) when there is no mask=, after a flip that moved them
    aug = W.Compose([W.VerticalFlip(p=1), W.CropNonEmptyMaskIfExists(48, 48)])
    for seed in range(10):
        got = aug(image=PHOTO, masks=[_mask(((300, 500, 10, 10),), value=1)], seed=seed,
                  queue=queue)
        assert got["masks"][0].any()
    with pytest.raises(ValueError, match="give mask="):
        aug(image=PHOTO, seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"larger than the image"):
        W.Compose([W.CropNonEmptyMaskIfExists(500, 64)])(image=PHOTO, mask=mask, seed=0)
    with pytest.raises(ValueError, match=r"larger than the image"):
        W.Compose([W.AtLeastOneBBoxRandomCrop(64, 700)])(image=PHOTO, boxes=BOXES, seed=0)


def _ious(boxes, crop):
    lt = np.maximum(boxes[:, :2], crop[:2])
    rb = np.minimum(boxes[:, 2:], crop[2:])
    inter = np.prod(np.clip(rb - lt, 0, None), 1)
    area = np.prod(boxes[:, 2:] - boxes[:, :2], 1)
    return inter / (area + np.prod(crop[2:] - crop[:2]) - inter)


def test_random_iou_crop_follows_torchvision(queue):
    """torchvision does not load beside this torch; its rules are checked one by one: the
    crop's scale and aspect, a box centre inside, the drawn minimum IoU, and the boxes whose
    centres left the crop removed with every label field."""
    t = W.RandomIoUCrop()
    aug = W.Compose([t], label_fields=["labels", "ids"])
    ids = np.array([10, 11, 12])
    options = set()
    for seed in range(60):
        got = aug(image=PHOTO, boxes=BOXES, labels=LABELS, ids=ids, seed=seed, queue=queue)
        p = got["params"]["steps"][0]
        if p["crop"] is None:
            assert got["image"].shape == PHOTO.shape
            assert got["labels"] == LABELS
            continue
        x0, y0, x1, y1 = p["crop"]
        w, h = x1 - x0, y1 - y0
        assert 0.3 * W_ - 1 <= w <= W_ and 0.3 * H - 1 <= h <= H
        assert 0.5 <= w / h <= 2.0
        cx, cy = BOXES[:, [0, 2]].mean(1), BOXES[:, [1, 3]].mean(1)
        inside = (x0 < cx) & (cx < x1) & (y0 < cy) & (cy < y1)
        assert inside.any() and sorted(p["drop"]) == np.flatnonzero(~inside).tolist()
        assert _ious(BOXES[inside], np.array(p["crop"], float)).max() >= p["min_iou"]
        options.add(p["min_iou"])
        assert got["labels"] == [LABELS[k] for k in np.flatnonzero(inside)]
        assert got["ids"].tolist() == ids[inside].tolist()
        assert got["image"].shape[:2] == (h, w)
        again = aug.replay(got["params"], image=PHOTO, boxes=BOXES, labels=LABELS, ids=ids)
        assert np.array_equal(again["image"], got["image"]) and again["labels"] == got["labels"]
    assert options <= {0.0, 0.1, 0.3, 0.5, 0.7, 0.9} and len(options) > 3
    with pytest.raises(ValueError, match="give boxes="):
        aug(image=PHOTO, seed=0, queue=queue)
    same = aug(image=PHOTO, boxes=np.zeros((0, 4)), labels=[], ids=[], seed=0, queue=queue)
    assert same["image"].shape == PHOTO.shape
    with pytest.raises(ValueError, match="replay the parameters on the boxes"):
        aug.replay({"applied": True, "steps": [{"applied": True, "crop": [0, 0, 10, 10],
                                                "drop": [5]}]}, image=PHOTO, boxes=BOXES)


def test_random_zoom_out_places_the_image(queue):
    aug = W.Compose([W.RandomZoomOut(fill=(114, 0, 7), side_range=(1.5, 3.0), p=1)])
    for seed in range(5):
        got = aug(image=PHOTO, boxes=BOXES, labels=LABELS, seed=seed, queue=queue)
        p = got["params"]["steps"][0]
        cw, ch = p["canvas"]
        assert 1.5 * W_ - 1 <= cw <= 3 * W_ and got["image"].shape == (ch, cw, 3)
        x, y = p["left"], p["top"]
        assert np.array_equal(got["image"][y:y + H, x:x + W_], PHOTO)
        assert (got["image"][:y] == [114, 0, 7]).all() and (got["image"][y + H:] ==
                                                             [114, 0, 7]).all()
        np.testing.assert_allclose(got["boxes"], BOXES + [x, y, x, y], atol=1e-9)
    # the batch draw (side by side) gives each sample's own numbers
    t = W.Compose([W.RandomZoomOut(p=0.7)])
    sizes = [(640, 480), (33, 91), (600, 400)] * 4
    assert draw_samples(t, 3, 0, range(12), sizes, lanes=True) == \
        draw_samples(t, 3, 0, range(12), sizes, lanes=False)
    # one padding: its fill is the pipeline's
    with pytest.raises(ValueError, match="RandomZoomOut sets fill"):
        W.Compose([W.PadIfNeeded(600, 800, border_mode=0, fill=0), W.RandomZoomOut(fill=5)],
                  passes="one")


def test_batches_and_replay_draw_from_each_samples_targets(queue):
    aug = W.Compose([W.RandomZoomOut(p=0.5), W.BBoxSafeRandomCrop(0.2),
                     W.AtLeastOneBBoxRandomCrop(60, 60, p=0.5)])
    images = [PHOTO, PHOTO[:300, :350], PHOTO[50:]]
    boxes = [BOXES, BOXES[:1], np.zeros((0, 4))]
    labels = [LABELS, LABELS[:1], []]
    got = aug(image=images, boxes=boxes, labels=labels, seed=4, index=[7, 8, 9], queue=queue)
    for k in range(3):
        one = aug(image=images[k], boxes=boxes[k], labels=labels[k], seed=4, index=7 + k,
                  queue=queue)
        assert one["params"] == got["params"][k]
        assert np.array_equal(one["image"], got["image"][k])
        np.testing.assert_array_equal(one["boxes"], got["boxes"][k])
        assert aug.sample(images[k].shape[:2], 4, 7 + k, boxes=boxes[k]) == one["params"]
    again = aug.replay(got["params"], image=images, boxes=boxes, labels=labels)
    assert all(np.array_equal(a, b) for a, b in zip(again["image"], got["image"]))


def test_from_albumentations_and_dicts():
    theirs = A.Compose([A.BBoxSafeRandomCrop(erosion_rate=0.1),
                        A.RandomSizedBBoxSafeCrop(320, 256, interpolation=2),
                        A.AtLeastOneBBoxRandomCrop(200, 200, erosion_factor=0.3, p=0.5),
                        A.CropNonEmptyMaskIfExists(64, 64, ignore_values=[255])],
                       bbox_params=A.BboxParams(format="coco", label_fields=["labels"]))
    aug = W.from_albumentations(theirs)
    assert [type(t).__name__ for t in aug.transforms] == [
        "BBoxSafeRandomCrop", "RandomSizedBBoxSafeCrop", "AtLeastOneBBoxRandomCrop",
        "CropNonEmptyMaskIfExists"]
    assert aug.interpolation == "cubic" and aug.transforms[1].size == (256, 320)
    assert aug.transforms[2].p == 0.5 and aug.transforms[3].ignore_values == [255]
    for t in [*aug.transforms, W.RandomIoUCrop(sampler_options=[0.5, 2.0]),
              W.RandomZoomOut(fill={"image": 3, "mask": 255})]:
        d = t.to_dict()
        assert W.Compose.from_dict(d).to_dict() == d


@pytest.mark.parametrize("make, match", [
    (lambda: W.BBoxSafeRandomCrop(erosion_rate=1.5), "erosion_rate"),
    (lambda: W.AtLeastOneBBoxRandomCrop(0, 10), r"\(height, width\)"),
    (lambda: W.AtLeastOneBBoxRandomCrop(10, 10, erosion_factor=-1), "erosion_factor"),
    (lambda: W.CropNonEmptyMaskIfExists(10, 10, ignore_channels=[-1]), "ignore_channels"),
    (lambda: W.RandomIoUCrop(min_scale=0.8, max_scale=0.5), "min_scale"),
    (lambda: W.RandomIoUCrop(sampler_options=[]), "sampler_options"),
    (lambda: W.RandomIoUCrop(trials=0), "trials"),
    (lambda: W.RandomZoomOut(side_range=(0.5, 2)), "side_range"),
    (lambda: W.RandomZoomOut(fill={"img": 1}), "fill"),
])
def test_bad_arguments_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_device_targets_where_no_draw_reads_them(queue):
    """A box-safe crop reads the boxes, not the masks: device images and masks go through (a
    mask-reading crop says it needs them on the host)."""
    cla = pytest.importorskip("pyopencl.array")
    batch = np.stack([PHOTO[:, :, 0], PHOTO[:, :, 1]])[..., None]
    masks = np.stack([_mask(), _mask(((10, 10, 30, 30),), value=1)])
    aug = W.Compose([W.BBoxSafeRandomCrop()])
    got = aug(image=cla.to_device(queue, batch), mask=cla.to_device(queue, masks),
              boxes=[BOXES, BOXES[:1]], seed=2, queue=queue)
    host = aug(image=batch, mask=masks, boxes=[BOXES, BOXES[:1]], seed=2, queue=queue)
    for dev, h in zip(got["mask"], host["mask"]):
        np.testing.assert_array_equal(dev.get() if hasattr(dev, "get") else dev, h)
    with pytest.raises(ValueError, match="reads on the host"):
        W.Compose([W.CropNonEmptyMaskIfExists(32, 32)])(
            image=cla.to_device(queue, batch), mask=cla.to_device(queue, masks), seed=2,
            queue=queue)
