"""ConstrainedCoarseDropout by bbox_labels and by mask_indices (warpkit.augment._dropout)
against albumentations 2.0.8: its own hole functions fed the same numbers, its whole pipeline
where the holes do not depend on its random numbers (holes the size of their boxes) or fed the
same generator (about the mask's objects), its apply on the holes warpkit drew, the boxes past
the holes and min_visibility, masks and keypoints, batches and replay, the port and the
refusals."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from helpers import batch_is_single_calls, objects_mask
from warpkit import augment as W
from warpkit.augment._targets import Seen

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.dropout import functional as fdropout
    import skimage.data

PHOTO = skimage.data.chelsea()  # 300 x 451


def _boxes(rng: np.random.Generator, w: int, h: int, n: int) -> np.ndarray:
    x0, y0 = rng.uniform(0, w * 0.7, n), rng.uniform(0, h * 0.7, n)
    return np.stack([x0, y0, np.minimum(x0 + rng.uniform(5, w * 0.3, n), w),
                     np.minimum(y0 + rng.uniform(5, h * 0.3, n), h)], 1)


def test_holes_are_albumentations_own():
    """albumentations' get_holes_from_boxes fed the same generator after the count: the same
    holes, on the boxes of the chosen labels, numbers and strings."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        boxes = _boxes(rng, 451, 300, int(rng.integers(1, 8)))
        labels = rng.choice(["cat", "dog", 3], len(boxes)).tolist()
        wanted = [["cat"], ["3", "dog"], ["cat", "dog"]][seed % 3]
        t = W.ConstrainedCoarseDropout(num_holes_range=(1, 4), hole_height_range=(0.2, 0.6),
                                       hole_width_range=(0.1, 0.9), bbox_labels=wanted, p=1)
        got = t.draw_seen(np.random.default_rng(seed), (451, 300),
                          Seen((451, 300), boxes, labels=labels))["holes"]
        theirs_rng = np.random.default_rng(seed)
        k = int(theirs_rng.integers(1, 5))
        keep = np.isin(np.array(labels, object), np.array(wanted, object))
        want = fdropout.get_holes_from_boxes(boxes[keep], k, (0.2, 0.6), (0.1, 0.9),
                                             theirs_rng) if keep.any() else np.zeros((0, 4))
        assert np.array_equal(np.asarray(got, np.int64).reshape(-1, 4), want.astype(np.int64))
        assert len(got) == k * int(keep.sum())


def _pipelines(lib, labels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = [lib.HorizontalFlip(p=1),
                 lib.ConstrainedCoarseDropout(num_holes_range=(1, 1), hole_height_range=(1.0, 1.0),
                                              hole_width_range=(1.0, 1.0), fill=0, fill_mask=9,
                                              bbox_labels=labels, p=1)]
        if lib is A:
            return A.Compose(steps, bbox_params=A.BboxParams(format="pascal_voc",
                                                             label_fields=["labels"], **kw))
        return W.Compose(steps, box_format="xyxy", label_fields=["labels"], **kw)


@pytest.mark.parametrize("min_visibility", [0.0, 0.5])
def test_whole_box_holes_are_albumentations_pipeline(min_visibility, queue):
    """Holes the size of their boxes (the draws move them by less than a pixel's truncation)
    after a flip: the image, the mask and the boxes kept (min_visibility: a box under its own
    hole goes; another box's hole counts too) are albumentations' own pipeline's."""
    rng = np.random.default_rng(7)
    # corners off the pixel grid by 0.3 / 0.6 (widths by 0.3): albumentations' normalised round
    # trip leaves whole numbers a hair below them, which its truncations then move a pixel
    boxes = np.minimum(np.floor(_boxes(rng, 451, 300, 6)), [450, 299, 450, 299]) \
        + [0.3, 0.3, 0.6, 0.6]
    labels = ["cat", "dog", "cat", "bird", "dog", "cat"]
    mask = (rng.random((300, 451)) < 0.5).astype(np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _pipelines(A, ["cat", "bird"], min_visibility=min_visibility)(
            image=PHOTO, mask=mask, bboxes=boxes, labels=labels)
    ours = _pipelines(W, ["cat", "bird"], min_visibility=min_visibility)(
        image=PHOTO, mask=mask, boxes=boxes, labels=labels, seed=0, queue=queue)
    assert len(ours["params"]["steps"][1]["holes"]) == 4
    np.testing.assert_array_equal(ours["image"], theirs["image"])
    np.testing.assert_array_equal(ours["mask"], theirs["mask"])
    assert list(ours["labels"]) == list(theirs["labels"])
    # (albumentations truncates every box's corners to whole pixels once holes exist; warpkit
    # moves a side only where holes cover it: the same boxes, within that truncation)
    ours_b = np.asarray(ours["boxes"]).reshape(-1, 4)
    np.testing.assert_array_equal(np.floor(ours_b), np.asarray(theirs["bboxes"]).reshape(-1, 4))


def test_apply_keypoints_batches_and_replay(queue):
    """On a ragged batch: each sample's image is albumentations' apply of the holes warpkit drew
    (on the flipped photo), each as alone and replayed; keypoints in a hole become invisible."""
    photos = [PHOTO, skimage.data.astronaut()[:300, :400], skimage.data.coffee()[:280]]
    rng = np.random.default_rng(3)
    boxes = [_boxes(rng, p.shape[1], p.shape[0], 4) for p in photos]
    labels = [["a", "b", "a", "a"]] * 3
    kps = [np.c_[b[:, 0] + 2, b[:, 1] + 2] for b in boxes]  # inside each box's corner
    pipe = W.Compose([W.HorizontalFlip(p=1),
                      W.ConstrainedCoarseDropout(num_holes_range=(1, 2),
                                                 hole_height_range=(0.3, 1.0),
                                                 hole_width_range=(0.3, 1.0), fill=(10, 20, 30),
                                                 bbox_labels=["a"], p=1)],
                     box_format="xyxy", label_fields=["labels"], remove_invisible=False)
    got = pipe(image=photos, boxes=boxes, labels=labels, keypoints=kps, seed=5, queue=queue)
    for i, photo in enumerate(photos):
        holes = np.asarray(got["params"][i]["steps"][1]["holes"]).reshape(-1, 4)
        assert 3 <= len(holes) <= 6
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = A.ConstrainedCoarseDropout(fill=(10, 20, 30), p=1).apply(
                photo[:, ::-1].copy(), holes=holes, seed=0)
        np.testing.assert_array_equal(got["image"][i], want)
        alone = pipe(image=photo, boxes=boxes[i], labels=labels[i], keypoints=kps[i], seed=5,
                     index=i, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][i])
        again = pipe(image=photo, boxes=boxes[i], labels=labels[i], keypoints=kps[i],
                     params=got["params"][i], queue=queue)
        np.testing.assert_array_equal(again["image"], got["image"][i])
        w = photo.shape[1]
        flipped = np.c_[w - kps[i][:, 0], kps[i][:, 1]]
        inside = ((flipped[:, None, 0] >= holes[None, :, 0]) & (flipped[:, None, 0] < holes[None, :, 2])
                  & (flipped[:, None, 1] >= holes[None, :, 1])
                  & (flipped[:, None, 1] < holes[None, :, 3])).any(1)
        assert list(got["keypoints_visible"][i]) == list(~inside)


def test_no_matching_box_no_labels_port_and_refusals(queue):
    t = W.ConstrainedCoarseDropout(bbox_labels=["zebra"], p=1)
    out = W.Compose([t], label_fields=["labels"])(image=PHOTO, boxes=[[10, 10, 50, 50]],
                                                  labels=["cat"], seed=0, queue=queue)
    assert out["params"]["steps"][0]["holes"] == []
    np.testing.assert_array_equal(out["image"], PHOTO)
    assert W.Compose([t])(image=PHOTO, seed=0)["params"]["steps"][0]["holes"] == []
    assert W.ConstrainedCoarseDropout(p=1).draw_seen(
        np.random.default_rng(0), (64, 64), Seen((64, 64), np.array([[1., 1., 9., 9.]]),
                                                 labels=[1]))["holes"] == []  # no bbox_labels
    with pytest.raises(ValueError, match="give them"):
        W.ConstrainedCoarseDropout(bbox_labels=[1], p=1).draw_seen(
            np.random.default_rng(0), (64, 64), Seen((64, 64), np.array([[1., 1., 9., 9.]])))
    for bad in ([], [0], "1", [1.5], [True], 2):
        with pytest.raises(ValueError, match="mask_indices must be a list"):
            W.ConstrainedCoarseDropout(mask_indices=bad)
    with pytest.raises(ValueError, match="hole_height_range"):
        W.ConstrainedCoarseDropout(hole_height_range=(0.2, 1.5))
    with pytest.raises(ValueError, match="bbox_labels must be a list"):
        W.ConstrainedCoarseDropout(bbox_labels="cat")
    with pytest.raises(ValueError, match="num_holes_range"):
        W.ConstrainedCoarseDropout(num_holes_range=(0, 2))
    ours = W.ConstrainedCoarseDropout((2, 3), (0.2, 0.4), (0.3, 0.5), fill="random",
                                      fill_mask=1, bbox_labels=["a", 2], p=0.7)
    back = W.Compose.from_dict(W.Compose([ours]).to_dict()).transforms[0]
    assert back.config() == ours.config() and back.p == 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.ConstrainedCoarseDropout((2, 3), (0.2, 0.4), (0.3, 0.5),
                                                       fill="random", fill_mask=1,
                                                       bbox_labels=["a", 2], p=0.7)],
                           bbox_params=A.BboxParams(format="pascal_voc",
                                                    label_fields=["labels"]))
        ported = W.from_albumentations(theirs).transforms[0]
        assert ported.config() == ours.config() and ported.p == 0.7
        by_mask = W.from_albumentations(A.Compose([A.ConstrainedCoarseDropout(
            mask_indices=[1, 3], hole_height_range=(0.2, 0.4), p=1)])).transforms[0]
        assert by_mask.mask_indices == [1, 3] and by_mask.hole_height_range == (0.2, 0.4)


@pytest.mark.parametrize("case", [
    dict(num_holes_range=(1, 3), mask_indices=[1, 2], fill=0, fill_mask=9),
    dict(num_holes_range=(2, 2), mask_indices=[3], fill=(10, 200, 30), fill_mask=None,
         min_visibility=0.5),
    dict(num_holes_range=(1, 4), mask_indices=[1, 2, 3, 4], fill=255, fill_mask=0,
         min_area=900),
])
def test_mask_indices_are_albumentations_pipeline(case, queue):
    """By mask_indices after a flip: albumentations' own get_holes_from_mask on the flipped
    mask, fed the generator of the recorded mask_key, gives the recorded holes; its whole
    pipeline fed the same count and generator gives the same image, mask, boxes (their part
    past the holes, min_visibility, min_area) and keypoints."""
    case = dict(case)
    keep = {k: case.pop(k) for k in ("min_visibility", "min_area") if k in case}
    mask = objects_mask(300, 451, len(case["mask_indices"]))
    rng = np.random.default_rng(5)
    boxes = np.minimum(np.floor(_boxes(rng, 451, 300, 8)), [450, 299, 450, 299]) + 0.5
    labels = list(range(len(boxes)))
    keypoints = np.stack([rng.integers(0, 451, 60), rng.integers(0, 300, 60)], 1).astype(float)

    def pipelines(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            steps = [lib.HorizontalFlip(p=1),
                     lib.ConstrainedCoarseDropout(hole_height_range=(0.3, 0.9),
                                                  hole_width_range=(0.2, 0.6), p=1,
                                                  **{**case, "fill_mask": case["fill_mask"]
                                                     or 0})]
            steps[1].fill_mask = case["fill_mask"]  # (albumentations' apply reads None)
            if lib is A:
                return A.Compose(steps, bbox_params=A.BboxParams(
                    format="pascal_voc", label_fields=["labels"], **keep),
                    keypoint_params=A.KeypointParams(format="xy"))
            return W.Compose(steps, box_format="xyxy", label_fields=["labels"], **keep)

    from warpkit.augment._mask_dropout import mask_generator

    ours = pipelines(W)
    held = 0
    for seed in range(4):
        out = ours(image=PHOTO, mask=mask, boxes=boxes, labels=labels, keypoints=keypoints,
                   seed=seed, queue=queue)
        p = out["params"]["steps"][1]
        want_holes = fdropout.get_holes_from_mask(mask[:, ::-1], p["count"],
                                                  case["mask_indices"], (0.3, 0.9), (0.2, 0.6),
                                                  mask_generator(p["mask_key"]))
        np.testing.assert_array_equal(np.asarray(p["holes"]).reshape(-1, 4), want_holes)
        assert len(p["holes"]) >= p["count"]
        theirs = pipelines(A)

        class Count:
            def randint(self, a, b, k=p["count"]):
                return k

        theirs.transforms[1].py_random = Count()
        theirs.transforms[1].random_generator = mask_generator(p["mask_key"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = theirs(image=PHOTO, mask=mask, bboxes=boxes, labels=labels,
                          keypoints=keypoints)
        np.testing.assert_array_equal(out["image"], want["image"])
        np.testing.assert_array_equal(out["mask"], want["mask"])
        assert out["labels"] == list(want["labels"])
        # (within albumentations' truncation of every box once holes exist: see above)
        np.testing.assert_allclose(np.floor(out["boxes"]),
                                   np.asarray(want["bboxes"]).reshape(-1, 4), atol=1e-4)
        np.testing.assert_allclose(out["keypoints"],
                                   np.asarray(want["keypoints"])[:, :2].reshape(-1, 2))
        held += len(out["boxes"]) < len(boxes) or len(out["keypoints"]) < len(keypoints)
    assert held  # the holes took boxes or keypoints: the rules were tested


def test_mask_indices_batches_replay_fills_and_refusals(queue):
    """By mask_indices: a batch's samples are the single calls' (each from its own mask),
    replay gives the same, a "random_uniform" fill's colours are drawn per hole after the
    holes; a call without a mask is refused by name before any launch; a sample whose mask
    holds none of the values gets no holes."""
    imgs = np.stack([PHOTO[:256, :384]] * 3)
    masks = np.stack([objects_mask(256, 384, s) for s in range(3)])
    pipe = W.Compose([W.RandomResizedCrop((128, 160), scale=(0.5, 1.0)),
                      W.ConstrainedCoarseDropout(num_holes_range=(1, 2), mask_indices=[2],
                                                 hole_height_range=(0.3, 0.6),
                                                 fill="random_uniform", fill_mask=0, p=1)])
    batch, ones = batch_is_single_calls(pipe, imgs, masks, 4, queue)
    for one in ones:
        p = one["params"]["steps"][1]
        assert len(p["colours"]) == len(p["holes"])
    assert any(p["steps"][1]["holes"] for p in batch["params"])
    none = pipe(image=imgs[0], mask=np.where(masks[0] == 2, 1, masks[0]), seed=4, queue=queue)
    assert none["params"]["steps"][1]["holes"] == []
    with pytest.raises(ValueError, match="ConstrainedCoarseDropout finds its objects.*mask="):
        pipe(image=imgs, seed=4, queue=queue)


def test_mask_indices_fall_back_on_bbox_labels(queue, tmp_path):
    """With both: a call with ``mask=`` makes its holes about the mask's objects; one without
    makes them in the boxes of those labels, as albumentations falls back (the same holes as
    by bbox_labels alone); the command takes such a pipeline (no mask needed)."""
    import json

    from PIL import Image
    from typer.testing import CliRunner

    from warpkit.cli.app import app

    boxes = np.array([[20.0, 30.0, 200.0, 150.0], [250.0, 60.0, 400.0, 280.0]])
    kw = dict(num_holes_range=(2, 2), hole_height_range=(0.3, 0.5),
              hole_width_range=(0.3, 0.5), fill=0, p=1)
    both = W.Compose([W.ConstrainedCoarseDropout(mask_indices=[1], bbox_labels=["cat"], **kw)],
                     box_format="xyxy", label_fields=["labels"])
    alone = W.Compose([W.ConstrainedCoarseDropout(bbox_labels=["cat"], **kw)],
                      box_format="xyxy", label_fields=["labels"])
    call = dict(image=PHOTO, boxes=boxes, labels=["cat", "dog"], seed=6, queue=queue)
    by_boxes = both(**call)["params"]["steps"][0]
    assert by_boxes["holes"] == alone(**call)["params"]["steps"][0]["holes"]
    assert "mask_key" not in by_boxes and len(by_boxes["holes"]) == 2
    mask = objects_mask(300, 451, 1)
    by_mask = both(mask=mask, **call)["params"]["steps"][0]
    assert "mask_key" in by_mask and by_mask["holes"] != by_boxes["holes"]
    spec = tmp_path / "p.json"
    spec.write_text(json.dumps(both.to_dict()))
    Image.fromarray(PHOTO).save(tmp_path / "a.png")
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "out"),
                                 "--pipeline", str(spec), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out" / "a_aug0.png").exists()
