"""MaskDropout (warpkit.augment._mask_dropout) against albumentations 2.0.8: its objects as
albumentations' label numbers them (OpenCV's connected components, value by value), its whole
pipeline fed the same count and objects (image, mask, boxes under min_visibility / min_area,
keypoints) on photos of every dtype it takes and 1-4 channels, the steps before it changing the
mask it reads, batches = single calls, replay, torch masks, the small cases on each device and
Oclgrind, the port and the refusals."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from helpers import batch_is_single_calls, objects_mask
from warpkit import augment as W
from warpkit.augment._mask_dropout import batch_objects, drop_map, mask_objects, pick_objects
from warpkit.augment._philox import kernel_key, philox4x32

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.dropout import functional as fdropout
    import skimage.data

PHOTO = skimage.data.chelsea()  # 300 x 451


def _labels(m: np.ndarray) -> np.ndarray:
    runs, obj, _ = mask_objects(m)
    got = np.zeros(m.shape[:2], np.int32)
    for (x1, y, x2, _), o in zip(runs.tolist(), obj.tolist()):
        got[y, x1:x2] = o + 1
    return got


def test_objects_are_albumentations_labels():
    """mask_objects' objects and their numbers are albumentations' label's (each value's
    8-connected regions, numbered as OpenCV's connectedComponents numbers them), on noise of
    several values, bool and (H, W, 1) masks, blobs, and a large mask (OpenCV's parallel
    labelling)."""
    for seed in range(300):
        rng = np.random.default_rng(seed)
        h, w = (int(v) for v in rng.integers(1, 60, 2))
        m = (rng.random((h, w)) < rng.uniform(0.1, 0.7)) * rng.integers(1, 4, (h, w))
        m = m.astype([np.uint8, np.int32, np.float32][seed % 3])
        want, n = fdropout.label(m, return_num=True)
        assert mask_objects(m)[2] == n
        np.testing.assert_array_equal(_labels(m), want)
    b = np.random.default_rng(1).random((40, 50)) < 0.4
    np.testing.assert_array_equal(_labels(b), fdropout.label(b.astype(np.uint8)))
    np.testing.assert_array_equal(_labels(b[..., None].astype(np.uint8)),
                                  fdropout.label(b.astype(np.uint8)))
    for m in (objects_mask(300, 451, 2), objects_mask(1200, 1500, 3),
              (np.random.default_rng(4).random((900, 1100)) < 0.45).astype(np.uint8)):
        np.testing.assert_array_equal(_labels(m), fdropout.label(m))
    assert mask_objects(np.zeros((5, 7), np.uint8))[2] == 0
    nan = np.where(b, np.nan, 2.0).astype(np.float32)  # (NaN is no value's: no object)
    np.testing.assert_array_equal(_labels(nan), fdropout.label(nan))


def test_a_batch_of_masks_is_each_mask():
    """batch_objects (one pass over masks stacked) gives each mask's own objects: ragged
    sizes, odd heights, one row or column, empty masks, objects touching the edges; the
    picks are each sample's k smallest Philox words."""
    rng = np.random.default_rng(3)
    masks = [objects_mask(int(h), int(w), s) for s, (h, w) in
             enumerate(rng.integers(1, 90, (12, 2)))]
    masks += [np.zeros((5, 4), np.uint8), np.ones((1, 7), np.uint8), np.ones((9, 1), np.uint8),
              (rng.random((33, 47)) < 0.5).astype(np.uint8)]
    for (runs, obj, n), m in zip(batch_objects(masks), masks):
        want, wn = fdropout.label(m, return_num=True)
        assert n == wn
        np.testing.assert_array_equal(_labels(m), want)
        assert (runs[:, 1] < m.shape[0]).all() and (runs[:, 2] <= m.shape[1]).all()
    counts = [n for _, _, n in batch_objects(masks)]
    keys = [[int(v) for v in rng.integers(0, 1 << 16, 3)] for _ in masks]
    wanted = rng.integers(1, 6, len(masks))
    for got, n, k, key in zip(pick_objects(counts, wanted, keys), counts, wanted, keys):
        words = philox4x32(np.arange(n), np.zeros(n, np.int64), 0x4D44, kernel_key(key))[0]
        want = np.sort(np.argsort(words, kind="stable")[:k])
        np.testing.assert_array_equal(got, want)


def test_drop_map_covers_the_runs():
    m = objects_mask(80, 120, 5)
    runs, _, _ = mask_objects(m)
    np.testing.assert_array_equal(drop_map(runs, (120, 80)), m != 0)
    assert not drop_map([], (4, 3)).any()


class _Fixed:
    """albumentations' py_random for MaskDropout: the count and the objects warpkit drew."""

    def __init__(self, count: int, picked: list[int]) -> None:
        self.count, self.picked = count, picked

    def randint(self, a: int, b: int) -> int:
        assert a <= self.count <= b
        return self.count

    def sample(self, population, k: int) -> list[int]:
        assert k == len(self.picked) and set(self.picked) <= set(population)
        return list(self.picked)


def _pipelines(lib, max_objects, fill, fill_mask, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = [lib.HorizontalFlip(p=1),
                 lib.MaskDropout(max_objects=max_objects, fill=fill,
                                 fill_mask=0 if fill_mask is None else fill_mask, p=1)]
        # (albumentations' schema takes no None, which its apply reads as: masks kept)
        steps[1].fill_mask = fill_mask
        if lib is A:
            return A.Compose(steps, bbox_params=A.BboxParams(format="pascal_voc",
                                                             label_fields=["labels"], **kw),
                             keypoint_params=A.KeypointParams(format="xy"))
        return W.Compose(steps, box_format="xyxy", label_fields=["labels"], **kw)


def _boxes(m: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Boxes at half pixels (albumentations' normalised round trip moves whole numbers by a
    hair, which its count of whole pixels inside would see)."""
    rng = np.random.default_rng(seed)
    h, w = m.shape
    x0, y0 = rng.integers(0, w - 40, n), rng.integers(0, h - 40, n)
    return np.stack([x0, y0, x0 + rng.integers(5, 120, n), y0 + rng.integers(5, 120, n)],
                    1).clip(0, [w - 1, h - 1, w - 1, h - 1]) + 0.5


@pytest.mark.parametrize("case", [
    dict(dtype=np.uint8, channels=3, max_objects=(1, 3), fill=0, fill_mask=0),
    dict(dtype=np.uint8, channels=1, max_objects=(2, 6), fill=255, fill_mask=9,
         min_visibility=0.6),
    dict(dtype=np.float32, channels=3, max_objects=4, fill=0.25, fill_mask=None,
         min_area=400),
    dict(dtype=np.float32, channels=4, max_objects=(50, 60), fill=1.0, fill_mask=0,
         min_visibility=0.3),
    dict(dtype=np.uint8, channels=2, max_objects=(1, 1), fill=17, fill_mask=3,
         min_visibility=0.9, min_area=100),
])
def test_pipeline_is_albumentations(case, queue):
    """A flip then MaskDropout on a photo with a mask of objects: fed the count and the
    objects warpkit drew, albumentations' own pipeline gives the same image and mask, the same
    boxes kept (its count of their pixels against min_visibility and min_area) and the same
    keypoints (those on removed pixels gone); (50, 60) objects of fewer removes them all."""
    case = dict(case)
    dtype, channels = case.pop("dtype"), case.pop("channels")
    img = PHOTO if channels == 3 else np.dstack([PHOTO, PHOTO[..., :1]])[..., :channels]
    if dtype == np.float32:
        img = img.astype(np.float32) / 255
    mask = objects_mask(300, 451, channels)
    boxes = _boxes(mask, 12, channels)
    labels = list(range(len(boxes)))
    rng = np.random.default_rng(channels)
    keypoints = np.stack([rng.integers(0, 451, 40), rng.integers(0, 300, 40)], 1).astype(float)
    ours = _pipelines(W, **case)
    outs = [ours(image=img, mask=mask, boxes=boxes, labels=labels, keypoints=keypoints,
                 seed=seed, queue=queue) for seed in range(4)]
    for seed, out in enumerate(outs):
        p = out["params"]["steps"][1]
        theirs = _pipelines(A, **case)
        n = mask_objects(mask[:, ::-1])[2]
        picked = [] if p["objects"] >= n else p["dropped"]
        theirs.transforms[1].py_random = _Fixed(p["objects"], picked)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = theirs(image=img, mask=mask, bboxes=boxes, labels=labels,
                          keypoints=keypoints)
        assert p["dropped"], p
        assert len(p["dropped"]) == min(p["objects"], n)
        np.testing.assert_array_equal(out["image"], want["image"].reshape(out["image"].shape))
        np.testing.assert_array_equal(out["mask"], want["mask"])
        assert out["labels"] == list(want["labels"]), seed
        np.testing.assert_allclose(out["boxes"], np.asarray(want["bboxes"]).reshape(-1, 4),
                                   atol=1e-4)
        np.testing.assert_allclose(out["keypoints"],
                                   np.asarray(want["keypoints"])[:, :2].reshape(-1, 2))
    # the draws pick different objects: the test saw more than one choice
    assert len({tuple(o["params"]["steps"][1]["dropped"]) for o in outs}) > 1 or \
        case["max_objects"] == (50, 60)


def test_steps_before_change_the_mask_it_reads(queue):
    """Its objects are those the steps before it leave in the mask: a hole over the whole
    output (fill_mask 0) before it leaves none to remove; after it, the objects are removed
    first; a value filled in by a dropout before it is an object."""
    img, mask = PHOTO, objects_mask(300, 451, 7)
    whole = W.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(300, 300),
                            hole_width_range=(451, 451), fill=0, fill_mask=0, p=1)
    drop = W.MaskDropout(max_objects=(100, 100), fill=5, fill_mask=0, p=1)
    first = W.Compose([whole, drop])(image=img, mask=mask, seed=1, queue=queue)
    assert first["params"]["steps"][1]["dropped"] == []
    assert (first["image"] == 0).all() and (first["mask"] == 0).all()
    second = W.Compose([drop, whole])(image=img, mask=mask, seed=1, queue=queue)
    assert len(second["params"]["steps"][0]["dropped"]) == mask_objects(mask)[2]
    filled = W.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(300, 300),
                             hole_width_range=(451, 451), fill=0, fill_mask=4, p=1)
    third = W.Compose([filled, drop])(image=img, mask=mask, seed=1, queue=queue)
    assert third["params"]["steps"][1]["dropped"] == [1]
    assert (third["image"] == 5).all() and (third["mask"] == 0).all()
    assert (mask != 0).any()  # (the input is untouched)


def test_batches_replay_and_torch(queue):
    """A batch's samples are the single calls' of their indices (drawn side by side, the
    objects picked from each sample's own mask); replaying the parameters gives the same
    result; torch masks in give the same."""
    imgs = np.stack([PHOTO[:256, :384]] * 3)
    masks = np.stack([objects_mask(256, 384, s) for s in range(3)])
    pipe = W.Compose([W.RandomResizedCrop((128, 160), scale=(0.5, 1.0)),
                      W.MaskDropout(max_objects=(1, 4), fill=(0), fill_mask=0, p=0.8)],
                     output_dtype="float32", mean=(0.5,) * 3, std=(0.25,) * 3)
    batch, ones = batch_is_single_calls(pipe, imgs, masks, 11, queue)
    for one in ones:
        p = one["params"]["steps"][1]
        if p["applied"] and p["dropped"]:  # the fill, normalised, where the objects were
            hit = drop_map(p["holes"], (160, 128))
            np.testing.assert_allclose(one["image"][hit], -2.0)
            assert (one["mask"][hit] == 0).all()
    torch = pytest.importorskip("torch")
    tm = pipe(image=imgs, mask=torch.from_numpy(masks), seed=11, queue=queue)
    np.testing.assert_array_equal(tm["mask"].numpy(), batch["mask"])
    np.testing.assert_array_equal(tm["image"], batch["image"])


def test_every_mask_target_is_filled(queue):
    """The objects come from ``mask`` and are filled in every mask target: ``mask`` itself,
    another named mask, instance masks (``masks=``) and masks of (B, H, W, 1); keypoints
    without remove_invisible come back with their visibility."""
    imgs = np.stack([PHOTO[:120, :160]] * 2)
    masks = np.stack([objects_mask(120, 160, s) for s in range(2)])
    instances = [[(masks[k] == v).astype(np.uint8) for v in (1, 2)] for k in range(2)]
    pipe = W.Compose([W.HorizontalFlip(p=1), W.MaskDropout(max_objects=(2, 2), fill_mask=7,
                                                           p=1)],
                     additional_targets={"depth": "mask"}, remove_invisible=False)
    grid = np.stack(np.meshgrid(np.arange(0, 160, 7.0), np.arange(0, 120, 7.0)), -1)
    kp = [grid.reshape(-1, 2) + 0.3] * 2  # (a point per 7 x 7 pixels: some on the objects)
    out = pipe(image=imgs, mask=masks[..., None], depth=masks * 10, masks=instances,
               keypoints=kp, seed=2, queue=queue)
    for k in range(2):
        p = out["params"][k]["steps"][1]
        hit = drop_map(p["holes"], (160, 120))
        assert hit.any()
        assert (out["mask"][k][..., 0][hit] == 7).all() and (out["depth"][k][hit] == 7).all()
        for m in out["masks"][k]:
            assert (m[hit] == 7).all()
        np.testing.assert_array_equal(out["depth"][k][~hit], masks[k][:, ::-1][~hit] * 10)
        pts = np.floor(out["keypoints"][k] + 0.5).astype(int)
        np.testing.assert_array_equal(out["keypoints_visible"][k], ~hit[pts[:, 1], pts[:, 0]])
        assert not out["keypoints_visible"][k].all()


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """A 21 x 13 output after a rotation, uint8 and float32, cubic and linear: the image is the
    pipeline's without MaskDropout but for the removed objects, which hold the fill (no
    invalid access on Oclgrind)."""
    img = PHOTO[:60, :80]
    mask = objects_mask(60, 80, 9)
    for dt, code in (("uint8", 2), ("float32", 1)):  # cv2's cubic, linear
        im = img if dt == "uint8" else img.astype(np.float32) / 255
        geo = [W.Affine(rotate=(17, 17), interpolation=code, p=1),
               W.Resize((13, 21), interpolation=code)]
        base = W.Compose(geo)
        pipe = W.Compose([*geo, W.MaskDropout(max_objects=(2, 2),
                                              fill=0.5 if dt == "float32" else 99,
                                              fill_mask=0, p=1)])
        want = base(image=im, mask=mask, seed=3, queue=small_queue)
        got = pipe(image=im, mask=mask, seed=3, queue=small_queue)
        hit = drop_map(got["params"]["steps"][2]["holes"], (21, 13))
        assert hit.any() and not hit.all()
        np.testing.assert_array_equal(got["image"][~hit], want["image"][~hit])
        assert (got["image"][hit] == (0.5 if dt == "float32" else 99)).all()
        np.testing.assert_array_equal(got["mask"][~hit], want["mask"][~hit])
        assert (got["mask"][hit] == 0).all() and (want["mask"][hit] != 0).all()


def test_port_and_refusals(queue, tmp_path):
    """from_albumentations takes albumentations' MaskDropout (its Compose, its dict, its saved
    JSON) with its parameters; inpainting fills, bad ranges, a call without a mask, masks of
    several channels or on a device are refused by name, before any launch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.MaskDropout(max_objects=(2, 5), fill=3, fill_mask=1, p=0.7)])
    A.save(theirs, str(tmp_path / "recipe.json"))
    for src in (theirs, A.to_dict(theirs), tmp_path / "recipe.json"):
        t = W.from_albumentations(src).transforms[0]
        assert isinstance(t, W.MaskDropout)
        assert (t.max_objects, t.fill, t.fill_mask, t.p) == ((2, 5), 3.0, 1.0, 0.7)
    assert W.MaskDropout(max_objects=4).max_objects == (1, 4)
    assert W.MaskDropout(max_objects=(5, 2)).max_objects == (2, 5)  # as albumentations sorts
    assert W.Compose.from_dict(W.Compose([W.MaskDropout((2, 3), 1, None)]).to_dict()
                               ).transforms[0].config() == \
        {"max_objects": [2, 3], "fill": 1.0, "fill_mask": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inpaint = A.Compose([A.MaskDropout(fill="inpaint_telea")])
    with pytest.raises(ValueError, match="albumentations 2.0.8 fails with it"):
        W.from_albumentations(inpaint)
    for bad in (0, (0, 2), 2.5, "3", (1, 2, 3), True):
        with pytest.raises(ValueError, match="max_objects"):
            W.MaskDropout(max_objects=bad)
    for bad in ("random", (1, 2), None):
        with pytest.raises(ValueError, match="fill"):
            W.MaskDropout(fill=bad)
    pipe = W.Compose([W.MaskDropout(p=1)])
    with pytest.raises(ValueError, match="give mask="):
        pipe(image=PHOTO, seed=0, queue=queue)
    with pytest.raises(ValueError, match="give mask="):
        pipe(image=PHOTO, masks=[np.zeros((300, 451), np.uint8)], seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"one channel.*\(300, 451, 3\)"):
        pipe(image=PHOTO, mask=np.zeros((300, 451, 3), np.uint8), seed=0, queue=queue)
    import pyopencl.array as cla
    dev = cla.to_device(queue, np.zeros((300, 451), np.uint8))
    with pytest.raises(ValueError, match="MaskDropout's mask.*host"):
        pipe(image=PHOTO, mask=dev, seed=0, queue=queue)
    # not applied (p=0): no mask needed
    assert W.Compose([W.MaskDropout(p=0)])(image=PHOTO, seed=0, queue=queue)["image"].shape \
        == PHOTO.shape
