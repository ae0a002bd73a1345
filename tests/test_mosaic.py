"""Mosaic (issue: detection recipes, item 3): albumentations 2.0.8's Mosaic in the one pass.

Fed the same random numbers (albumentations' ``py_random`` replaced by one that reads the
sample's stream as warpkit's draw reads it), albumentations' own Mosaic places the same cells
with the same images: the canvases agree within 1 level, the boxes within 1e-4 px, the labels
exactly. In batch calls each source is painted its own colour and read back under its boxes,
through the steps after Mosaic; samples that are no mosaic are the plain warp's, and
parameters replay."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import warpkit
from warpkit import augment as W

from conftest import reference_queue

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = [skimage.data.coffee(), skimage.data.astronaut(), skimage.data.chelsea(),
          skimage.data.rocket()]
BOXES = [np.array([[100.0, 60, 170, 130], [300, 80, 460, 390]]),
         np.array([[10.0, 20, 300, 400]]),
         np.array([[50.0, 50, 200, 250], [0, 0, 40, 40]]),
         np.array([[100.0, 100, 300, 400]])]
LABELS = [[0, 1], [2], [3, 4], [5]]
KW = dict(grid_yx=(2, 2), target_size=(300, 340), cell_shape=(260, 300),
          center_range=(0.2, 0.8), p=1)


class _Stream:
    """albumentations' py_random read from the sample's stream as Mosaic's draw reads it."""

    def __init__(self, seed: int, index: int = 0) -> None:
        self.g = W.stream(seed, 0, index)
        self.g.random()  # the pipeline's own p
        self.g.random()  # Mosaic's p (albumentations draws none for p=1)

    def uniform(self, a, b):
        return a + (b - a) * float(self.g.random())

    def sample(self, pop, k):
        return [pop[i] for i in self.g.permutation(len(pop))[:k].tolist()]

    def shuffle(self, x):
        x[:] = [x[i] for i in self.g.permutation(len(x)).tolist()]


def _theirs(seed, params, **data):
    t = A.Compose([A.Mosaic(**KW, fit_mode=data.pop("fit_mode"))], **params)
    t.transforms[0].py_random = _Stream(seed)
    return t(**data)


@pytest.mark.parametrize("fit_mode", ["cover", "contain"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_against_albumentations_with_boxes(fit_mode, seed):
    meta = [{"image": PHOTOS[j], "bboxes": BOXES[j], "labels": LABELS[j]} for j in (1, 2, 3)]
    ours = W.Compose([W.Mosaic(**KW, fit_mode=fit_mode)], box_format="pascal_voc")
    o = ours(image=PHOTOS[0], bboxes=BOXES[0], labels=LABELS[0], mosaic_metadata=meta,
             seed=seed)
    r = _theirs(seed, {"bbox_params": A.BboxParams(format="pascal_voc",
                                                   label_fields=["labels"])},
                image=PHOTOS[0], bboxes=BOXES[0], labels=LABELS[0], mosaic_metadata=meta,
                fit_mode=fit_mode)
    assert o["image"].shape == r["image"].shape == (300, 340, 3)
    assert np.abs(o["image"].astype(int) - r["image"].astype(int)).max() <= 1
    assert [int(v) for v in o["labels"]] == [int(v) for v in r["labels"]]
    np.testing.assert_allclose(o["bboxes"], np.asarray(r["bboxes"]).reshape(-1, 4), atol=1e-4)
    cells = o["params"]["steps"][0]["cells"]
    assert sorted(c[4] for c in cells) == [-1, 0, 1, 2]  # every image once


@pytest.mark.parametrize("fit_mode", ["cover", "contain"])
def test_against_albumentations_with_mask_and_keypoints(fit_mode):
    kps = [np.array([[120.0, 90], [350, 200], [500, 300]]), np.array([[100.0, 100], [300, 300]]),
           np.array([[60.0, 70]]), np.array([[200.0, 350]])]
    masks = [np.full(p.shape[:2], 1 + j, np.uint8) for j, p in enumerate(PHOTOS)]
    for j, m in enumerate(masks):
        m[40:120, 60:200] = 10 + j
    meta = [{"image": PHOTOS[j], "mask": masks[j], "keypoints": kps[j]} for j in (1, 2, 3)]
    for seed in range(3):
        o = W.Compose([W.Mosaic(**KW, fit_mode=fit_mode)])(
            image=PHOTOS[0], mask=masks[0], keypoints=kps[0], mosaic_metadata=meta, seed=seed)
        r = _theirs(seed, {"keypoint_params": A.KeypointParams(format="xy")}, image=PHOTOS[0],
                    mask=masks[0], keypoints=kps[0], mosaic_metadata=meta, fit_mode=fit_mode)
        assert np.abs(o["image"].astype(int) - r["image"].astype(int)).max() <= 1
        # OpenCV's nearest resize reads floor(x * scale), warpkit the nearest centre: labels
        # agree but for a pixel at some edges
        assert (o["mask"] == r["mask"]).mean() > 0.99
        assert set(np.unique(o["mask"])) <= set(np.unique(r["mask"])) | {0}
        # albumentations scales keypoints about the corner (x s), warpkit about pixel
        # centres ((x + 0.5) s - 0.5): at most half a pixel apart
        got, want = np.asarray(o["keypoints"]), np.asarray(r["keypoints"]).reshape(-1, 2)
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 0.5


def _painted(n=6, seed=0):
    """n photos-sized images, each a flat colour of its own (R = 40 k + 20), with one box
    around the whole image labelled k."""
    rng = np.random.default_rng(seed)
    imgs, boxes, labels = [], [], []
    for k in range(n):
        h, w = (int(v) for v in rng.integers(200, 400, 2))
        img = np.zeros((h, w, 3), np.uint8)
        img[..., 0] = 40 * k + 20
        img[..., 1] = 200 - 30 * k
        imgs.append(img)
        boxes.append(np.array([[0.0, 0.0, w, h]]))
        labels.append(np.array([k]))
    return imgs, boxes, labels


def test_batch_cells_read_their_images_under_their_boxes():
    """A list call: every cell of every canvas holds its source's colour, and each box (the
    whole of a source image, labelled with it) covers that colour, through Affine + flip +
    a letterbox after Mosaic."""
    imgs, boxes, labels = _painted()
    aug = W.Compose([W.Mosaic(target_size=(256, 256), cell_shape=(200, 200), fill=114, p=1),
                     W.Affine(rotate=(-8, 8), scale=(0.9, 1.1), border_mode=0, fill=114,
                              p=1),
                     W.HorizontalFlip(p=0.5),
                     W.LongestMaxSize(max_size=320), W.PadIfNeeded(320, 320, border_mode=0,
                                                                    fill=114)])
    out = aug(image=imgs, boxes=boxes, labels=labels, seed=5)
    assert out["image"].shape == (6, 320, 320, 3)
    read = 0
    for k in range(6):
        img, bx, lab = out["image"][k], out["boxes"][k], out["labels"][k]
        used = {c[4] for c in out["params"][k]["steps"][0]["cells"]}
        assert k not in used and len(used) == 4  # itself (-1) and three others
        assert len(bx) >= 2
        for (x1, y1, x2, y2), src in zip(bx, lab):
            inner = img[int(y1) + 3:int(y2) - 3, int(x1) + 3:int(x2) - 3]
            if inner.size < 300:
                continue
            red = inner[..., 0].astype(int)
            assert (np.abs(red - (40 * int(src) + 20)) <= 1).mean() > 0.8, (k, src)
            read += 1
        # every pixel is a source's colour or the fill
        allowed = {40 * j + 20 for j in range(6)} | {114}
        assert (np.isin(img[..., 0], sorted(allowed))).mean() > 0.9
    assert read >= 12  # most boxes were large enough to read under


def test_samples_without_mosaic_are_the_plain_warp():
    """With p < 1, a sample that is no mosaic reads its own image in the atlas exactly as the
    plain warp reads it (constant padding at its edges), and replay gives the same call."""
    imgs = [p for p in PHOTOS]
    aug = W.Compose([W.Mosaic(target_size=(200, 200), cell_shape=(200, 200), fill=7, p=0.5),
                     W.Affine(rotate=(-20, 20), border_mode=0, fill=7, p=1),
                     W.Resize((160, 160))])
    out = aug(image=imgs, seed=3)
    plain = [k for k, p in enumerate(out["params"]) if not p["steps"][0]["applied"]]
    mixed = [k for k, p in enumerate(out["params"]) if p["steps"][0]["applied"]]
    assert plain and mixed
    for k in plain:
        want = warpkit.warp_perspective(imgs[k], out["matrix"][k], (160, 160), fill=7)
        assert np.abs(want.astype(int) - out["image"][k].astype(int)).max() <= 1
    again = aug.replay(out["params"], image=imgs)
    np.testing.assert_array_equal(again["image"], out["image"])


def test_batch_array_model_input_and_masks():
    """A (B, H, W, C) batch with masks to normalised CHW float32, one launch: the masks'
    labels follow the images' cells."""
    rng = np.random.default_rng(1)
    batch = np.zeros((4, 120, 160, 3), np.uint8)
    masks = np.zeros((4, 120, 160), np.uint8)
    for k in range(4):
        batch[k] = 50 * k + 10
        masks[k] = k + 1
    aug = W.Compose([W.Mosaic(target_size=(96, 96), cell_shape=(96, 96), p=1)],
                    output_dtype="float32", mean=(0, 0, 0), std=(1, 1, 1), layout="CHW")
    out = aug(image=batch, mask=masks, seed=int(rng.integers(1000)))
    assert out["image"].shape == (4, 3, 96, 96) and out["image"].dtype == np.float32
    assert out["mask"].shape == (4, 96, 96)
    for k in range(4):
        for x1, y1, x2, y2, src in out["params"][k]["steps"][0]["cells"]:
            j = k if src < 0 else src
            m = out["mask"][k, y1:y2, x1:x2]
            v = out["image"][k, 0, y1:y2, x1:x2]
            assert (m == j + 1).all()
            np.testing.assert_allclose(v, (50 * j + 10) / 255, atol=1e-6)


def test_partner_targets_and_label_fields_stay_in_step():
    imgs, boxes, labels = _painted(4, seed=2)
    ids = [np.array([100 + k]) for k in range(4)]
    aug = W.Compose([W.Mosaic(target_size=(200, 200), cell_shape=(150, 150), p=1)],
                    label_fields=["labels", "ids"])
    out = aug(image=imgs, boxes=boxes, labels=labels, ids=ids, seed=0)
    for k in range(4):
        assert list(np.asarray(out["ids"][k]) - 100) == list(out["labels"][k])


def test_refusals():
    photo = PHOTOS[0]
    with pytest.raises(ValueError, match="first step"):
        W.Compose([W.HorizontalFlip(), W.Mosaic()])(image=photo)
    with pytest.raises(ValueError, match="Affine sets padding"):
        W.Compose([W.Mosaic(), W.Affine(border_mode=2)], passes="one")
    with pytest.raises(ValueError, match="single image's call"):
        W.Compose([W.Mosaic(p=1)])(image=[photo, photo], mosaic_metadata=[{"image": photo}])
    with pytest.raises(ValueError, match="has no 'mask'"):
        W.Compose([W.Mosaic(p=1)])(image=photo, mask=photo[..., 0],
                                    mosaic_metadata=[{"image": photo}])
    with pytest.raises(ValueError, match="masks="):
        W.Compose([W.Mosaic(p=1)])(image=photo, masks=[photo[..., 0]])
    with pytest.raises(ValueError, match="antialias"):
        W.Compose([W.Mosaic(p=1)], antialias=True)(image=photo)
    with pytest.raises(ValueError, match="target_size"):
        W.Mosaic(target_size=(600, 600), cell_shape=(200, 200))
    with pytest.raises(ValueError, match="first step"):  # when the pipeline is made
        W.Compose([W.Compose([W.Mosaic()])])
    aug = W.Compose([W.Mosaic(target_size=32, cell_shape=32, p=1)])
    four = [PHOTOS[0][:40, :50]] * 4
    drawn = aug(image=four, seed=0)["params"]
    with pytest.raises(ValueError, match="none of its 1 partners"):
        aug.replay(drawn[:2], image=four[:2])


def test_dict_round_trip_and_from_albumentations():
    a = A.Compose([A.Mosaic(target_size=(320, 320), cell_shape=(320, 320), fill=114, p=0.7),
                   A.HorizontalFlip()], bbox_params=A.BboxParams(format="yolo",
                                                                  label_fields=["cls"]))
    w = W.from_albumentations(a)
    assert isinstance(w.transforms[0], W.Mosaic) and w.fill == 114
    assert W.Compose.from_dict(w.to_dict()).to_dict() == w.to_dict()
    imgs, boxes, labels = _painted(3)
    yolo = [np.array([[0.5, 0.5, 1.0, 1.0]]) for _ in imgs]
    out = w(image=imgs, bboxes=yolo, cls=labels, seed=1)
    assert all(len(b) == len(c) for b, c in zip(out["bboxes"], out["cls"]))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_small_on_every_device(small_queue, dtype):
    """The Cells stage on each device CI runs and on Oclgrind (every access checked): small
    images against albumentations (linear), and the other interpolations against the default
    device."""
    imgs = [p[::9, ::9][:40, :52].astype(dtype) for p in PHOTOS]
    meta = [{"image": imgs[j]} for j in (1, 2, 3)]
    kw = dict(grid_yx=(2, 2), target_size=(30, 34), cell_shape=(26, 30),
              center_range=(0.2, 0.8), p=1)
    for seed in (0, 1):
        ours = W.Compose([W.Mosaic(**kw)])(image=imgs[0], mosaic_metadata=meta, seed=seed,
                                           queue=small_queue)
        t = A.Compose([A.Mosaic(**kw)])
        t.transforms[0].py_random = _Stream(seed)
        theirs = t(image=imgs[0], mosaic_metadata=meta)["image"]
        assert np.abs(ours["image"].astype(float) - theirs.astype(float)).max() <= 1
    for interp in ("nearest", "cubic"):
        aug = W.Compose([W.Mosaic(**kw, interpolation=interp),
                         W.Affine(rotate=(-10, 10), interpolation=interp, p=1)])
        got = aug(image=imgs, seed=2, queue=small_queue)["image"]
        want = aug(image=imgs, seed=2, queue=reference_queue())["image"]
        diff = np.abs(got.astype(float) - want.astype(float))
        assert diff.max() <= (1e-3 if dtype == np.float32 else 1) or \
            (interp == "nearest" and (diff > 1).mean() < 0.01)


def test_grids_kinds_and_layouts():
    """A 3 x 3 grid with fewer images than cells repeats the sample's own (as albumentations
    does); keypoints with angle and scale columns keep their label fields in step; float32 with
    metadata replays exactly; (H, W) images, Pillow images and outputs of several sizes come
    back as they came."""
    from PIL import Image

    rng = np.random.default_rng(0)
    imgs = [rng.integers(0, 255, (int(rng.integers(50, 90)), int(rng.integers(50, 90)), 3),
                         np.uint8) for _ in range(3)]
    kps = [np.array([[5.0, 5, 30, 1], [20, 25, 90, 2]]) for _ in imgs]
    aug = W.Compose([W.Mosaic(grid_yx=(3, 3), target_size=(90, 90), cell_shape=(40, 40), p=1)],
                    keypoint_format="xyas", keypoint_label_fields=["kl"])
    masks = [rng.integers(0, 2, i.shape[:2]).astype(bool) for i in imgs]
    out = aug(image=imgs, mask=masks, keypoints=kps, kl=[["a", "b"]] * 3, seed=0)
    assert out["mask"].dtype == np.bool_ and out["mask"].shape == (3, 90, 90)
    for k in range(3):
        sources = [c[4] for c in out["params"][k]["steps"][0]["cells"]]
        others = sorted(set(sources) - {-1})
        assert len(sources) == 9 and others == [j for j in range(3) if j != k]
        assert len(out["kl"][k]) == len(out["keypoints"][k])
        assert set(out["kl"][k]) <= {"a", "b"}
    f = [i.astype(np.float32) / 255 for i in imgs]
    aug2 = W.Compose([W.Mosaic(target_size=(64, 64), cell_shape=(50, 50), p=1),
                      W.Resize((32, 48))])
    meta = [{"image": i} for i in f[1:]]
    o = aug2(image=f[0], mosaic_metadata=meta, seed=2)
    assert o["image"].shape == (32, 48, 3) and o["image"].dtype == np.float32
    again = aug2.replay(o["params"], image=f[0], mosaic_metadata=meta)
    np.testing.assert_array_equal(again["image"], o["image"])
    mosaic = W.Compose([W.Mosaic(target_size=(64, 64), cell_shape=(50, 50), p=1)])
    assert mosaic(image=[i[..., 0] for i in imgs], seed=1)["image"].shape == (3, 64, 64)
    pil = mosaic(image=Image.fromarray(imgs[0]), seed=1)["image"]
    assert isinstance(pil, Image.Image) and pil.size == (64, 64)
    half = W.Compose([W.Mosaic(target_size=(64, 64), cell_shape=(50, 50), p=0.5)])
    got = half(image=imgs, seed=3)
    assert len({p["steps"][0]["applied"] for p in got["params"]}) == 2  # a mix of both
    for k, (x, p) in enumerate(zip(got["image"], got["params"])):
        want = (64, 64) if p["steps"][0]["applied"] else imgs[k].shape[:2]
        assert x.shape[:2] == want
