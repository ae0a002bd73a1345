"""The augmentation pipeline: each transform's map against geometry's builders, numpy and OpenCV;
one resampling per pipeline (and its sharpness against resampling step by step); masks, boxes and
keypoints against warped masks and blobs; reproducibility across batches and processes;
serialisation; bad arguments."""

from __future__ import annotations

import json
import math
import multiprocessing as mp

import cv2
import numpy as np
import pytest

import warpkit
from warpkit import geometry as g
from warpkit.augment import (CenterCrop, Compose, OneOf, Pad, RandomAffine, RandomCrop,
                             RandomHorizontalFlip, RandomPerspective, RandomResizedCrop,
                             RandomRotate90, RandomRotation, RandomVerticalFlip, Resize, stream)

RNG = np.random.default_rng(0)
IMG = RNG.integers(0, 256, (48, 64, 3), dtype=np.uint8)


def _one(t, img=IMG, queue=None, **kw):
    """The transform applied alone (p forced to 1), nearest sampling: pixels move exactly."""
    t.p = 1.0
    return Compose([t], interpolation="nearest", **kw)(image=img, seed=1, queue=queue)


def test_flips_and_quarter_turns_are_exact(queue):
    np.testing.assert_array_equal(_one(RandomHorizontalFlip(), queue=queue)["image"],
                                  IMG[:, ::-1])
    np.testing.assert_array_equal(_one(RandomVerticalFlip(), queue=queue)["image"], IMG[::-1])
    for k in range(4):
        out = _one(RandomRotate90(turns=[k]), queue=queue)
        np.testing.assert_array_equal(out["image"], np.rot90(IMG, k))  # counter-clockwise
        assert out["size"] == (np.rot90(IMG, k).shape[1], np.rot90(IMG, k).shape[0])


def test_crops_and_pad_are_exact_slices(queue):
    out = _one(CenterCrop((20, 30)), queue=queue)["image"]
    np.testing.assert_array_equal(out, IMG[14:34, 17:47])
    out = _one(RandomCrop(16), queue=queue)
    x, y = out["params"]["steps"][0]["x"], out["params"]["steps"][0]["y"]
    np.testing.assert_array_equal(out["image"], IMG[y:y + 16, x:x + 16])
    padded = _one(Pad((2, 3, 4, 5)), queue=queue, fill=9)["image"]
    assert padded.shape == (48 + 8, 64 + 6, 3)
    np.testing.assert_array_equal(padded[3:51, 2:66], IMG)
    assert (padded[:3] == 9).all() and (padded[:, :2] == 9).all()
    big = _one(RandomCrop((60, 80)), queue=queue, fill=7)  # larger than the image: padded
    bx, by = big["params"]["steps"][0]["x"], big["params"]["steps"][0]["y"]
    assert -16 <= bx <= 0 and -12 <= by <= 0
    np.testing.assert_array_equal(big["image"][-by:-by + 48, -bx:-bx + 64], IMG)


@pytest.mark.parametrize("kw,out", [({"size": (40, 96)}, (96, 40)), ({"size": 32}, (32, 32)),
                                    ({"shorter": 24}, (32, 24)), ({"longer": 128}, (128, 96))])
def test_resize_matches_opencv(kw, out, queue):
    res = Compose([Resize(**kw)], padding="border")(image=IMG, seed=0, queue=queue)
    assert res["size"] == out
    ref = cv2.resize(IMG, out, interpolation=cv2.INTER_LINEAR)
    assert np.abs(res["image"].astype(int) - ref).max() <= 1


def test_rotation_matches_opencv(queue):
    t = RandomRotation(30)
    res = Compose([t])(image=IMG, seed=4, queue=queue)
    angle = res["params"]["steps"][0]["angle"]
    assert -30 <= angle <= 30
    M = cv2.getRotationMatrix2D((31.5, 23.5), angle, 1.0)
    np.testing.assert_allclose(res["matrix"][:2], M, atol=1e-12)
    ref = cv2.warpAffine(IMG, M, (64, 48), flags=cv2.INTER_LINEAR)
    assert np.abs(res["image"].astype(int) - ref).max() <= 1
    grown = Compose([RandomRotation((90, 90), expand=True)])(image=IMG, seed=0, queue=queue)
    assert grown["size"] == (48, 64)


def test_resized_crop_is_the_crop_resized(queue):
    t = RandomResizedCrop(40, scale=(0.2, 0.6))
    res = Compose([t], padding="border")(image=IMG, seed=3, queue=queue)
    x, y, w, h = res["params"]["steps"][0]["box"]
    assert 0 <= x <= 64 - w and 0 <= y <= 48 - h
    assert 0.2 * 64 * 48 * 0.8 <= w * h <= 0.6 * 64 * 48 * 1.2
    ref = cv2.resize(IMG[y:y + h, x:x + w], (40, 40), interpolation=cv2.INTER_LINEAR)
    # away from the crop's edges (where warpkit reads the real pixels beyond it, OpenCV
    # replicates the crop's border)
    assert np.abs(res["image"][3:-3, 3:-3].astype(int) - ref[3:-3, 3:-3]).max() <= 1


def test_resized_crop_falls_back_to_the_centre():
    t = RandomResizedCrop(32, scale=(1.0, 1.0), ratio=(4.0, 5.0))  # impossible: 10 tries fail
    assert t.draw(stream(0), (64, 48))["box"] == [0, 16, 64, 16]


def test_perspective_moves_the_corners_it_drew():
    t = RandomPerspective(0.4, p=1)
    p = t.draw(stream(5), (64, 48))
    m, out = t.map(p, (64, 48))
    src = np.array([[-0.5, -0.5], [63.5, -0.5], [63.5, 47.5], [-0.5, 47.5]])
    np.testing.assert_allclose(g.transform_points(m, src), src + np.array(p["shifts"]), atol=1e-9)
    assert out == (64, 48)
    assert (np.abs(p["shifts"]) <= np.array([0.4 * 32, 0.4 * 24])).all()


def test_random_affine_map_is_geometry_builders():
    t = RandomAffine(degrees=20, translate=0.1, scale=(0.8, 1.2), shear=(-5, 5), hflip=1.0)
    p = t.draw(stream(2), (64, 48))
    c = (31.5, 23.5)
    ref = g.compose(g.flip("h", (64, 48)), g.scale(p["scale"], center=c),
                    g.shear(p["shear_x"], p["shear_y"], center=c), g.rotation(p["angle"], c),
                    g.translation(p["translate_x"] * 64, p["translate_y"] * 48))
    np.testing.assert_allclose(t.map(p, (64, 48))[0], ref, atol=1e-9)


def test_a_pipeline_resamples_once(queue):
    aug = Compose([Resize((60, 80)), RandomRotation(20), RandomAffine(scale=(0.9, 1.1)),
                   RandomPerspective(0.2, p=1), RandomHorizontalFlip()], padding="reflect_101")
    out = aug(image=IMG, seed=11, queue=queue)
    again = warpkit.warp_perspective(IMG, out["matrix"], size=out["size"], padding="reflect_101",
                                     queue=queue)
    np.testing.assert_array_equal(out["image"], again)


def _psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / np.mean((a.astype(np.float64) - b) ** 2))


def test_resampling_once_is_sharper_than_step_by_step(queue):
    """PSNR against a float64 single-map oracle (SciPy, cubic): the pipeline's one resampling
    against the same maps applied one warp at a time."""
    from scipy import ndimage

    yy, xx = np.mgrid[0:96, 0:128]
    img = (127.5 + 60 * np.sin(xx / 3.1) * np.cos(yy / 4.3) + 60 * np.sin((xx + yy) / 5.7))
    img = np.clip(img, 0, 255).astype(np.uint8)
    steps = [Resize((84, 112)), RandomRotation(25), RandomAffine(scale=(0.85, 1.15), shear=8),
             RandomRotation(25), Resize((72, 96))]
    aug = Compose(steps, interpolation="linear", padding="border")
    out = aug(image=img, seed=21, queue=queue)
    oracle = ndimage.affine_transform(img.astype(np.float64), g.to_scipy(out["matrix"]),
                                      output_shape=out["image"].shape, order=3, mode="nearest")
    chained, size = img, (128, 96)
    for t, p in zip(steps, out["params"]["steps"]):
        (m,), size = t.stages(p, size)
        chained = warpkit.warp_perspective(chained, m, size=size, padding="border", queue=queue)
    inner = (slice(8, -8), slice(8, -8))
    once, step = _psnr(out["image"][inner], oracle[inner]), _psnr(chained[inner], oracle[inner])
    assert once > step + 3, (once, step)


def _blob_image(points, size=(64, 48)):
    img = np.zeros((size[1], size[0]), np.float32)
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    for x, y in points:
        img += np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * 1.5 ** 2))
    return img


def test_boxes_follow_the_warped_mask(queue):
    aug = Compose([RandomRotation(25), RandomAffine(scale=(0.8, 1.1), translate=0.05)],
                  interpolation="nearest")
    boxes = np.array([[10, 8, 30, 20], [35, 25, 55, 44]], np.float64)
    for seed in range(6):
        mask = np.zeros((48, 64), np.uint8)
        for k, (x1, y1, x2, y2) in enumerate(boxes.astype(int)):
            mask[y1:y2, x1:x2] = k + 1
        out = aug(image=IMG, mask=mask, boxes=boxes, labels=[1, 2], seed=seed, queue=queue)
        for b, lab in zip(out["boxes"], out["labels"]):
            ys, xs = np.nonzero(out["mask"] == lab)
            ref = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]  # pixel edges
            assert np.abs(np.array(b) - ref).max() <= 1.0 + 1e-9, (seed, b, ref)


def test_keypoints_follow_warped_blobs(queue):
    pts = np.array([[20.0, 15.0], [40.0, 30.0]])
    aug = Compose([RandomRotation(30), RandomAffine(scale=(0.9, 1.1), translate=0.05)])
    for seed in range(4):
        blobs = _blob_image(pts)
        out = aug(image=blobs, keypoints=pts, seed=seed, queue=queue)
        img = out["image"]
        for x, y in out["keypoints"]:
            xi, yi = int(round(x)), int(round(y))
            win = img[yi - 5:yi + 6, xi - 5:xi + 6].astype(np.float64)
            yy, xx = np.mgrid[yi - 5:yi + 6, xi - 5:xi + 6]
            cx, cy = (win * xx).sum() / win.sum(), (win * yy).sum() / win.sum()
            assert abs(cx - x) <= 0.5 and abs(cy - y) <= 0.5, (seed, (x, y), (cx, cy))


def test_keypoint_angles_and_scales_turn_with_the_map():
    aug = Compose([RandomRotation((90, 90)), Resize((96, 128))], keypoint_format="xyas")
    out = aug(mask=np.zeros((48, 64), np.uint8), keypoints=[[32, 24, 0.0, 1.0]], seed=0)
    (x, y, a, s), = out["keypoints"]
    assert abs(a - 90) < 1e-9 and abs(s - 2.0) < 1e-9  # 90 degrees ccw, then twice as large


@pytest.mark.parametrize("fmt,row", [
    ("xy", [32, 24]), ("yx", [24, 32]), ("xya", [32, 24, 10.0]), ("xys", [32, 24, 3.0]),
    ("xyas", [32, 24, 10.0, 3.0]), ("xysa", [32, 24, 3.0, 10.0]), ("xyz", [32, 24, 7.0])])
def test_keypoint_formats_name_their_columns(fmt, row):
    """albumentations' keypoint formats: each column moves as its letter says through a 90
    degree turn and a 2x resize (x, y by the matrix; a + 90; s x 2; z unchanged)."""
    aug = Compose([RandomRotation((90, 90), expand=True), Resize((128, 96))],
                  keypoint_format=fmt)
    out = aug(mask=np.zeros((48, 64), np.uint8), keypoints=[row], seed=0)
    (x, y), = g.transform_points(out["matrix"], [[32, 24]])
    want = {"x": x, "y": y, "a": 100.0, "s": 6.0, "z": 7.0}
    np.testing.assert_allclose(out["keypoints"], [[want[c] for c in fmt]], atol=1e-9)
    assert Compose.from_dict(aug.to_dict()).keypoint_format == fmt


def test_a_visibility_column_is_not_read_as_an_angle():
    """COCO keypoints (x, y, v): in the default "xy" format a third column is refused, with
    how to pass an angle and what to do with v, instead of being turned as an angle."""
    aug = Compose([RandomRotation((90, 90))])
    with pytest.raises(ValueError, match=r"keypoint_format='xy' must be rows of 2 columns.*"
                                         r"got shape \(2, 3\).*'xya'.*COCO's v"):
        aug(mask=np.zeros((48, 64), np.uint8), keypoints=[[32, 24, 2], [3, 4, 1]], seed=0)
    with pytest.raises(ValueError, match=r"keypoints\[1\] in keypoint_format='xya' must be rows "
                                         r"of 3 columns"):
        Compose([RandomRotation(5)], keypoint_format="xya")(
            mask=[np.zeros((48, 64), np.uint8)] * 2, keypoints=[[[1, 2, 0]], [[1, 2]]], seed=0)
    with pytest.raises(ValueError, match=r"keypoints in keypoint_format='xy' must be rows of 2 "
                                         r"numbers"):
        aug(mask=np.zeros((48, 64), np.uint8), keypoints=[[1, 2], [3]], seed=0)
    with pytest.raises(ValueError, match="keypoint_format must be one of 'xy', 'yx'"):
        Compose([], keypoint_format="xyv")


def test_a_batchs_keypoints_move_as_each_samples_would():
    """The whole batch's keypoints go through one elementwise pass (each point its sample's
    matrix): the same bits as moving each sample's keypoints through its own matrix."""
    from warpkit.augment._targets import move_keypoint_lists, move_keypoints

    rng = np.random.default_rng(3)
    mats = np.stack([g.perspective_from_points(
        [[0, 0], [99, 0], [99, 79], [0, 79]],
        np.array([[0, 0], [99, 0], [99, 79], [0, 79]]) + rng.normal(0, 6, (4, 2)))
        for _ in range(6)])
    outs = [(100, 80), (64, 64), (100, 80), (32, 48), (100, 80), (1, 1)]
    klist = [rng.uniform(-20, 120, (n, 3)) for n in (5, 0, 17, 1, 9, 3)]
    together = move_keypoint_lists(klist, mats, None, outs, "xyz")
    for (k, v), kp, m, o in zip(together, klist, mats, outs):
        k1, v1 = move_keypoints(kp, m, o, "xyz")
        assert k.tobytes() == k1.tobytes() and np.array_equal(v, v1)
    assert sum(v.sum() for _, v in together) not in (0, sum(len(k) for k in klist))


def test_boxes_leaving_the_image_are_dropped_with_their_labels():
    aug = Compose([Pad((0, 0, 64, 0)), CenterCrop((48, 64))], min_visibility=0.5)
    # the crop keeps the right half of the padded canvas: x in [32, 96)
    out = aug(mask=np.zeros((48, 64), np.uint8),
              boxes=[[0, 0, 10, 10], [20, 0, 40, 10], [50, 5, 60, 15]], labels=["a", "b", "c"],
              seed=0)
    assert out["labels"] == ["c"]
    np.testing.assert_allclose(out["boxes"], [[18, 5, 28, 15]])
    keep_any = Compose([Pad((0, 0, 64, 0)), CenterCrop((48, 64))])(
        mask=np.zeros((48, 64), np.uint8), boxes=[[20, 0, 40, 10]], labels=[1], seed=0)
    np.testing.assert_allclose(keep_any["boxes"], [[0, 0, 8, 10]])


@pytest.mark.parametrize("fmt,box", [("coco", [10, 8, 20, 12]), ("pascal_voc", [10, 8, 30, 20]),
                                     ("yolo", [20 / 64, 14 / 48, 20 / 64, 12 / 48])])
def test_box_formats(fmt, box):
    aug = Compose([RandomHorizontalFlip(p=1)], box_format=fmt)
    out = aug(mask=np.zeros((48, 64), np.uint8), boxes=[box], seed=0)
    ref = {"coco": [34, 8, 20, 12], "pascal_voc": [34, 8, 54, 20],
           "yolo": [44 / 64, 14 / 48, 20 / 64, 12 / 48]}[fmt]
    np.testing.assert_allclose(out["boxes"], [ref], atol=1e-12)


def test_invisible_keypoints_are_dropped_or_flagged():
    kp = [[5, 5], [60, 40]]
    crop = [CenterCrop((24, 32))]
    assert len(Compose(crop)(mask=np.zeros((48, 64), np.uint8), keypoints=kp,
                             seed=0)["keypoints"]) == 0
    out = Compose(crop, remove_invisible=False)(mask=np.zeros((48, 64), np.uint8), keypoints=kp,
                                                seed=0)
    assert out["keypoints"].shape == (2, 2) and not out["keypoints_visible"].any()


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int64, np.uint16, np.int32])
def test_masks_keep_their_dtype_and_pad_like_the_image(dtype, queue):
    mask = (np.arange(48 * 64).reshape(48, 64) % 5).astype(dtype)
    shift = [Pad((4, 0, 0, 0)), CenterCrop((48, 64))]  # moves the image 2 px right
    const = Compose(shift, mask_fill=3)(image=IMG, mask=mask, seed=0, queue=queue)
    assert const["mask"].dtype == mask.dtype
    assert (const["mask"][:, :2] == mask.dtype.type(3)).all()
    np.testing.assert_array_equal(const["mask"][:, 2:], mask[:, :62])
    refl = Compose(shift, padding="reflection")(image=IMG, mask=mask, seed=0, queue=queue)
    np.testing.assert_array_equal(refl["mask"][:, :2], mask[:, 1::-1])
    multi = Compose(shift)(mask=np.stack([mask, mask], -1), seed=0, queue=queue)
    assert multi["mask"].shape == (48, 64, 2)
    six = np.stack([mask, ~mask if dtype == np.bool_ else mask + 1] * 3, -1)  # > 4 channels
    many = Compose([RandomRotation(20)])(mask=six, seed=3, queue=queue)["mask"]
    assert many.shape == (48, 64, 6) and many.dtype == mask.dtype
    for k in range(6):
        one = Compose([RandomRotation(20)])(mask=six[..., k], seed=3, queue=queue)["mask"]
        np.testing.assert_array_equal(many[..., k], one)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.uint16, np.int32])
def test_device_masks_stay_on_the_device(dtype, queue):
    """Masks given as pyopencl arrays (single, batch, list; with or without a channel axis) come
    back as device arrays of their dtype, equal to the host result; other dtypes and more than 16
    channels are refused clearly (a device mask's values are not read back)."""
    import pyopencl.array as cla

    rng = np.random.default_rng(21)
    masks = rng.integers(0, 5, (3, 30, 40)).astype(dtype)
    pipe = Compose([RandomAffine(degrees=25, scale=(0.7, 1.3), p=1.0)], mask_fill=2)
    imgs = rng.integers(0, 256, (3, 30, 40, 3), dtype=np.uint8)  # the layout: (B, H, W) masks
    for m, im in ((masks, imgs), (masks[0], imgs[0]), (masks[..., None], None),
                  (list(masks[:2]), list(imgs[:2]))):
        dev = [cla.to_device(queue, x) for x in m] if isinstance(m, list) else \
            cla.to_device(queue, m)
        got = pipe(image=im, mask=dev, seed=4, queue=queue)["mask"]
        want = pipe(image=im, mask=m, seed=4, queue=queue)["mask"]
        for gi, wi in (zip(got, want) if isinstance(m, list) else [(got, want)]):
            assert isinstance(gi, cla.Array) and gi.dtype == dtype and gi.shape == wi.shape
            np.testing.assert_array_equal(gi.get(), wi)
    with pytest.raises(TypeError, match="a mask on the device must be bool, uint8, uint16 or "
                                        "int32.*got int64"):
        pipe(mask=cla.to_device(queue, masks[0].astype(np.int64)), seed=0, queue=queue)
    wide = rng.integers(0, 5, (30, 40, 5)).astype(dtype)  # 5 channels: one launch as well
    got = pipe(mask=cla.to_device(queue, wide), seed=0, queue=queue)["mask"]
    np.testing.assert_array_equal(got.get(), pipe(mask=wide, seed=0, queue=queue)["mask"])
    with pytest.raises(ValueError, match="a mask on the device may have at most 16 channels, "
                                         "got 17"):
        pipe(mask=cla.to_device(queue, np.zeros((30, 40, 17), dtype)), seed=0, queue=queue)


def test_a_sample_is_the_same_alone_in_a_batch_and_in_a_list(queue):
    aug = Compose([RandomResizedCrop(32), RandomHorizontalFlip(), RandomAffine(degrees=10)])
    batch = np.stack([IMG, IMG[::-1], IMG[:, ::-1]])
    together = aug(image=batch, seed=5, index=10, epoch=2, queue=queue)
    assert together["image"].shape == (3, 32, 32, 3)
    for i in range(3):
        alone = aug(image=batch[i], seed=5, index=10 + i, epoch=2, queue=queue)
        np.testing.assert_array_equal(alone["image"], together["image"][i])
    listed = aug(image=[batch[2], batch[0]], seed=5, index=[12, 10], epoch=2, queue=queue)
    np.testing.assert_array_equal(listed["image"][0], together["image"][2])
    other_epoch = aug(image=batch[0], seed=5, index=10, epoch=3, queue=queue)
    assert not np.array_equal(other_epoch["image"], together["image"][0])


def _params_in_child(args):
    from warpkit.augment import Compose as C

    d, indices = args
    aug = C.from_dict(d)
    return [aug.sample((48, 64), seed=9, index=i, epoch=1) for i in indices]


def test_draws_are_numpys_calls_one_by_one():
    """Parameters drawn in one generator call equal what numpy's uniform / random calls, one
    per value, give from the same stream: a seed replays the same augmentation as when each
    value was its own call (RandomAffine's 8 columns, RandomResizedCrop's scale and ratio)."""
    from warpkit.augment import stream

    aff = RandomAffine(degrees=(-30, 10), translate=(0.1, 0.2), scale=(0.8, 1.2),
                       shear=(5, 10), hflip=0.3, vflip=0.6)
    for n in (1, 5):
        rng, ref = stream(4, 2, n), stream(4, 2, n)
        got = aff._draw(n, rng)
        want = np.empty((n, 8))
        for k, (lo, hi) in enumerate([aff.degrees, aff.scale, *aff.shear,
                                      (-aff.translate[0], aff.translate[0]),
                                      (-aff.translate[1], aff.translate[1])]):
            want[:, k] = ref.uniform(lo, hi, n)
        want[:, 6] = ref.random(n) < 0.3
        want[:, 7] = ref.random(n) < 0.6
        np.testing.assert_array_equal(got, want)
        assert rng.random() == ref.random()  # the same amount of the stream used
    crop = RandomResizedCrop(32, scale=(0.01, 1.0), ratio=(0.1, 10.0))
    for i in range(50):
        rng, ref = stream(5, 0, i), stream(5, 0, i)
        box = crop.draw(rng, (64, 48))["box"]
        for _ in range(10):  # torchvision's algorithm with numpy's calls
            target = 64 * 48 * ref.uniform(0.01, 1.0)
            aspect = math.exp(ref.uniform(math.log(0.1), math.log(10.0)))
            w, h = round(math.sqrt(target * aspect)), round(math.sqrt(target / aspect))
            if 0 < w <= 64 and 0 < h <= 48:
                assert box == [int(ref.integers(0, 64 - w + 1)), int(ref.integers(0, 48 - h + 1)),
                               w, h]
                break
        else:
            assert box[2:] != [0, 0]


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_parameters_do_not_depend_on_workers(method):
    aug = Compose([RandomResizedCrop(32), RandomRotation(20), OneOf([RandomHorizontalFlip(),
                                                                      RandomRotate90()])])
    here = [aug.sample((48, 64), seed=9, index=i, epoch=1) for i in range(8)]
    with mp.get_context(method).Pool(2) as pool:
        split = pool.map(_params_in_child, [(aug.to_dict(), [0, 2, 4, 6]),
                                            (aug.to_dict(), [1, 3, 5, 7])])
    there = [None] * 8
    there[0::2], there[1::2] = split
    assert json.dumps(here) == json.dumps(there)


def test_pipelines_serialise_to_json_and_back(queue):
    aug = Compose([RandomResizedCrop((30, 40), scale=(0.3, 1)), OneOf([RandomRotate90(p=2 / 3),
                                                                       RandomVerticalFlip()]),
                   RandomPerspective(0.3), Pad(2), RandomAffine(degrees=5, shear=3, p=0.7)],
                  padding="mirror", fill=(1, 2, 3), box_format="coco", min_area=4)
    back = Compose.from_dict(json.loads(json.dumps(aug.to_dict())))
    assert back.to_dict() == aug.to_dict()
    a = aug(image=IMG, seed=3, queue=queue)
    b = back(image=IMG, seed=3, queue=queue)
    np.testing.assert_array_equal(a["image"], b["image"])
    c = back.replay(json.loads(json.dumps(a["params"])), image=IMG, queue=queue)
    np.testing.assert_array_equal(a["image"], c["image"])


def test_p_zero_and_one():
    never = Compose([RandomHorizontalFlip(p=0.0)])
    always = Compose([RandomHorizontalFlip(p=1.0)])
    for i in range(10):
        np.testing.assert_array_equal(never.map(never.sample((48, 64), 0, i), (64, 48))[0],
                                      np.eye(3))
        np.testing.assert_array_equal(always.map(always.sample((48, 64), 0, i), (64, 48))[0],
                                      g.flip("h", (64, 48)))


@pytest.mark.parametrize("call,exc,match", [
    (lambda: Compose([1]), TypeError, r"transforms must be a list of warpkit.augment transforms"),
    (lambda: Compose([], box_format="xywh"), ValueError, r"box_format must be one of 'xyxy'"),
    (lambda: Compose([], padding="wrap"), ValueError, r"padding must be one of 'constant'"),
    (lambda: RandomHorizontalFlip(p=1.5), ValueError, r"p is a probability: .* got 1.5"),
    (lambda: Resize(), ValueError, r"Resize takes one of size= \(or height= and width=\), shorter= or longer="),
    (lambda: Resize(size=(0, 10)), ValueError, r"size must be an int \(a square\) or \(height"),
    (lambda: CenterCrop(10.5), ValueError, r"size must be an int \(a square\)"),
    (lambda: RandomResizedCrop(8, scale=(0.5, 0.1)), ValueError, r"scale must have low <= high"),
    (lambda: RandomResizedCrop(8, scale=(0.5, 1.5)), ValueError, r"scale must lie in \[0, 1\]"),
    (lambda: RandomRotation("x"), ValueError, r"degrees must be a number or \(low, high\)"),
    (lambda: RandomPerspective(1.5), ValueError, r"distortion_scale must be in \[0, 1\]"),
    (lambda: Pad(-1), ValueError, r"padding must be whole pixels >= 0"),
    (lambda: OneOf([RandomHorizontalFlip(p=0)]), ValueError, r"OneOf needs a transform with p > 0"),
    (lambda: stream(-1), ValueError, r"seed must be an integer >= 0, got -1"),
    (lambda: Compose([])(), ValueError, r"give image= or mask="),
    (lambda: Compose([])(image=np.zeros((2, 4, 4, 3), np.uint8), boxes=[[0, 0, 1, 1]]),
     ValueError, r"boxes for 2 samples must be a sequence of 2"),
    (lambda: Compose([])(mask=np.zeros((4, 4), np.complex64)), TypeError,
     r"mask must hold integers, bools \(labels\) or floats"),
    (lambda: Compose([])(mask=np.zeros((4, 4), np.uint8), boxes=[[0, 0, 1, 1]], labels=[1, 2]),
     ValueError, r"labels must have one entry per box: 1 boxes, 2 labels"),
    (lambda: Compose.from_dict({"type": "Nope"}), ValueError, r"a transform must be a dict"),
])
def test_bad_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_cli_runs_a_serialised_pipeline(tmp_path):
    """`warpkit augment --pipeline` writes what the pipeline gives in Python for the stream
    (seed, epoch = copy, index = CRC of the file name), with the parameters in --matrices."""
    import zlib

    from PIL import Image
    from typer.testing import CliRunner

    from warpkit.cli.app import app

    aug = Compose([RandomResizedCrop((30, 40)), RandomHorizontalFlip(), RandomAffine(degrees=9)],
                  padding="reflect_101")
    (tmp_path / "aug.json").write_text(json.dumps(aug.to_dict()))
    Image.fromarray(IMG).save(tmp_path / "a.png")
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "out"),
                                 "--copies", "2", "--seed", "5", "--pipeline",
                                 str(tmp_path / "aug.json"), "--matrices",
                                 str(tmp_path / "maps.json")])
    assert r.exit_code == 0, r.output
    maps = json.loads((tmp_path / "maps.json").read_text())
    for k in range(2):
        ref = aug(image=IMG, seed=5, epoch=k, index=zlib.crc32(b"a.png"))
        with Image.open(tmp_path / "out" / f"a_aug{k}.png") as im:
            np.testing.assert_array_equal(np.asarray(im), ref["image"])
        assert maps[f"a_aug{k}.png"]["params"] == json.loads(json.dumps(ref["params"]))
    (tmp_path / "bad.json").write_text('{"type": "Compose", "transforms": [{"type": "Nope"}]}')
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "o2"),
                                 "--pipeline", str(tmp_path / "bad.json")])
    assert r.exit_code == 1 and "--pipeline" in r.output and "'type'" in r.output
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "o3"),
                                 "--pipeline", str(tmp_path / "aug.json"), "--degrees", "5"])
    assert r.exit_code == 1 and "--pipeline replaces" in r.output
    # the pipeline's own sampling options: the command line's are refused, not ignored
    for extra, named in ((["--padding", "reflection"], "--padding"),
                         (["--fill", "3", "--interpolation", "cubic"], "--interpolation, --fill"),
                         (["--no-antialias"], "--antialias")):
        r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o",
                                     str(tmp_path / "o4"), "--pipeline",
                                     str(tmp_path / "aug.json"), *extra])
        assert r.exit_code == 1 and r.output.startswith(f"warpkit: error: {named}: the pipeline "
                                                        "file"), r.output
        assert "sets its own" in r.output and len(r.output.strip().splitlines()) == 1
        assert not (tmp_path / "o4").exists()


def test_pipeline_gives_the_tensor_a_model_eats(queue):
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    plain = Compose([RandomResizedCrop(32), RandomHorizontalFlip()])
    fused = Compose([RandomResizedCrop(32), RandomHorizontalFlip()], output_dtype="float32",
                    mean=mean, std=std, layout="CHW")
    batch = np.stack([IMG, IMG[::-1]])
    a = plain(image=batch, seed=2, queue=queue)["image"]
    b = fused(image=batch, seed=2, queue=queue)["image"]
    assert b.shape == (2, 3, 32, 32) and b.dtype == np.float32
    ref = ((a / 255.0 - mean) / std).transpose(0, 3, 1, 2)
    assert np.abs(b - ref).max() <= 0.5 / 255 / min(std) + 1e-6
    torch = pytest.importorskip("torch")
    t = fused(image=torch.from_numpy(batch).permute(0, 3, 1, 2), seed=2, queue=queue)["image"]
    assert isinstance(t, torch.Tensor) and t.shape == (2, 3, 32, 32)
    np.testing.assert_array_equal(t.numpy(), b)


def test_a_ragged_list_is_warped_as_each_alone(queue):
    """Lists of images and masks of different sizes run back to back with one wait: the same
    pixels as one call per sample."""
    rng = np.random.default_rng(8)
    imgs = [rng.integers(0, 255, (40 + i, 50 + 2 * i, 3), dtype=np.uint8) for i in range(5)]
    masks = [rng.random((40 + i, 50 + 2 * i)) > 0.5 for i in range(5)]
    aug = Compose([RandomResizedCrop(32), RandomHorizontalFlip(), RandomAffine(degrees=9)],
                  output_dtype="float16", layout="CHW")
    out = aug(image=imgs, mask=masks, seed=1, queue=queue)
    assert isinstance(out["image"], np.ndarray) and out["image"].shape == (5, 3, 32, 32)
    for i in range(5):
        one = aug(image=imgs[i], mask=masks[i], seed=1, index=i, queue=queue)
        np.testing.assert_array_equal(one["image"], out["image"][i])
        np.testing.assert_array_equal(one["mask"], out["mask"][i])
        assert out["mask"][i].dtype == np.bool_ and out["image"][i].shape == (3, 32, 32)


def test_a_samples_boxes_and_keypoints_alone_are_those_of_its_batch(queue):
    """One sample a call moves its boxes and keypoints in Python floats and its own matrix's
    scalars, a batch in numpy arrays over all its samples: the same bytes, through affine and
    perspective maps, with boxes cut by the output's border and wholly outside it (kept by
    min_visibility 0, dropped by 0.3), in pixel and normalised formats."""
    rng = np.random.default_rng(12)
    imgs = [rng.integers(0, 255, (60 + 7 * i, 80 - 5 * i, 3), dtype=np.uint8) for i in range(6)]
    boxes, kps = [], []
    for img in imgs:
        h, w = img.shape[:2]
        x1, y1 = rng.uniform(0, w - 12, 12), rng.uniform(0, h - 12, 12)
        boxes.append(np.stack([x1, y1, np.minimum(x1 + rng.uniform(2, 40, 12), w),
                               np.minimum(y1 + rng.uniform(2, 40, 12), h)], 1))
        kps.append(np.stack([rng.uniform(0, w - 1, 9), rng.uniform(0, h - 1, 9)], 1))
    labels = [list(range(12)) for _ in imgs]
    cut = 0
    for fmt, vis in (("pascal_voc", 0.0), ("albumentations", 0.3)):
        aug = Compose([RandomAffine(degrees=30, scale=(0.7, 1.4), translate=(0.2, 0.2)),
                       RandomPerspective(0.3, p=0.7), RandomResizedCrop(40)],
                      box_format=fmt, min_visibility=vis)
        given = [b / ([img.shape[1], img.shape[0]] * 2) if fmt == "albumentations" else b
                 for b, img in zip(boxes, imgs)]
        out = aug(image=imgs, boxes=given, labels=labels, keypoints=kps, seed=4, queue=queue)
        for i in range(len(imgs)):
            one = aug(image=imgs[i], boxes=given[i], labels=labels[i], keypoints=kps[i], seed=4,
                      index=i, queue=queue)
            assert one["boxes"].tobytes() == out["boxes"][i].tobytes()
            assert one["labels"] == out["labels"][i]
            assert one["keypoints"].tobytes() == out["keypoints"][i].tobytes()
            cut += len(labels[i]) - len(one["labels"]) if vis else \
                int(((one["boxes"][:, :2] == 0) | (one["boxes"][:, 2:] == 40)).any(1).sum())
    assert cut > 20


def test_sample_streams_are_numpys_seed_sequence_streams():
    """stream() and a pipeline call's per-sample streams (warpkit's port of numpy's SeedSequence
    hashing; one re-keyed generator per call) give exactly the numbers of numpy's
    Philox(SeedSequence([seed, epoch, index])): small and large keys (integers of several 32-bit
    words), numpy integers, a call's params."""
    from warpkit.augment import stream
    from warpkit.augment._streams import philox_key as _philox_key, philox_keys, sample_streams

    rng = np.random.default_rng(11)
    # 3 words (zero-padded to 4), 4, 5, 7 and 23 (past the precomputed hash constants)
    keys = [[0, 0, 0], [0, 3, 7], [2**32 + 7, 5, 9], [2**32 - 1, 2**32, 2**32 + 1],
            [2**64 - 1, 1, 2**40 + 3], [2**200 + 5, 2**33, 7], [2**640 + 1, 2**40, 3]]
    keys += [list(map(int, rng.integers(0, 2**62, 3))) for _ in range(100)]
    keys += [list(map(int, rng.integers(0, 2**20, 3))) for _ in range(100)]
    # one-word [seed, epoch, index] keys share their (seed, epoch) part of the hash: many
    # indices of a few pairs, interleaved, past the 64 pairs kept, and the words' extremes
    pairs = [(0, 0), (7, 3), (2**32 - 1, 2**32 - 1)] + \
        [tuple(map(int, rng.integers(0, 2**32, 2))) for _ in range(80)]
    keys += [[*pairs[int(j)], int(i)] for j, i in zip(rng.integers(0, len(pairs), 600),
                                                      rng.integers(0, 2**32, 600))]
    keys += [[s, e, i] for s, e in pairs[:3] for i in (0, 1, 2**32 - 1)]
    for key in keys:
        want = np.random.SeedSequence(key).generate_state(2, np.uint64).tolist()
        assert list(_philox_key(key)) == want, key
    # a batch's keys hashed together (indices below 2**32 as numpy lanes, the rest alone)
    for seed, epoch in [(0, 0), (5, 2**32 + 1), (2**63, 7)]:
        idx = [0, 1, 2**32 - 1, 2**32, 2**70, *map(int, rng.integers(0, 2**32, 50))]
        assert philox_keys(seed, epoch, idx) == [
            tuple(np.random.SeedSequence([seed, epoch, i]).generate_state(2, np.uint64).tolist())
            for i in idx]
    seed, epoch = 2**40 + 9, np.int64(3)
    got = [g.random(4).tolist() + g.normal(size=2).tolist() + [int(g.integers(0, 9))]
           for g in sample_streams(seed, epoch, [0, 1, 2**33, 5])]
    numpys = [np.random.Generator(np.random.Philox(np.random.SeedSequence([seed, 3, i])))
              for i in [0, 1, 2**33, 5]]
    want = [[*r.random(4).tolist(), *r.normal(size=2).tolist(), int(r.integers(0, 9))]
            for r in numpys]
    assert got == want
    alone = [stream(seed, epoch, i) for i in [0, 1, 2**33, 5]]
    assert [[*r.random(4).tolist(), *r.normal(size=2).tolist(), int(r.integers(0, 9))]
            for r in alone] == want
    pipe = Compose([RandomAffine(degrees=30, scale=(0.8, 1.2)), RandomResizedCrop(16)])
    img = np.zeros((24, 32, 3), np.uint8)
    batch = pipe(image=np.stack([img] * 3), seed=seed, index=[4, 9, 2**35])["params"]
    assert batch == [pipe.sample((24, 32), seed, index=i) for i in [4, 9, 2**35]]
    with pytest.raises(ValueError, match=r"index must be an integer >= 0, got -1"):
        list(sample_streams(1, 0, [0, -1]))


@pytest.mark.parametrize("nonlinear", [False, True], ids=["projective", "with a field"])
def test_boxes_cut_by_the_border_are_tight(nonlinear, queue):
    """A box the output's border cuts is the box around the part of its moved outline inside
    the output, not the box around the whole outline clipped afterwards (loose by a rotated
    box's cut-off corner: 8-10 px p95 against the warped object, up to 22 px). Against the
    warped object mask, boxes at the border are as tight as boxes inside (<= 1.5 px p95)."""
    from warpkit.augment import GridDistortion

    stages = [RandomAffine(degrees=40, scale=(0.8, 1.3), translate=(0.2, 0.2))]
    pipe = Compose(stages + ([GridDistortion(p=1)] if nonlinear else []))
    rng = np.random.default_rng(0)
    H, W = 64, 80
    err = {True: [], False: []}
    for i in range(200):
        x1, y1 = rng.uniform(-5, W - 20), rng.uniform(-5, H - 20)
        w, h = rng.uniform(10, 40), rng.uniform(10, 40)
        x1, y1, x2, y2 = (int(round(v)) for v in (max(x1, 0), max(y1, 0), min(x1 + w, W),
                                                  min(y1 + h, H)))
        mask = np.zeros((H, W), np.uint8)
        mask[y1:y2, x1:x2] = 1
        out = pipe(image=np.zeros((H, W, 3), np.uint8), mask=mask, boxes=[[x1, y1, x2, y2]],
                   labels=[0], seed=0, index=i, queue=queue)
        if not out["mask"].any() or not len(out["boxes"]):
            continue
        ys, xs = np.nonzero(out["mask"])
        ref = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], float)
        Wo, Ho = out["size"]
        border = ref[0] <= 0 or ref[1] <= 0 or ref[2] >= Wo or ref[3] >= Ho
        err[border].append(np.abs(out["boxes"][0] - ref).max())
    at_border, inside = np.array(err[True]), np.array(err[False])
    assert len(at_border) > 60 and len(inside) > 60
    assert np.percentile(inside, 95) <= 1.0
    assert np.median(at_border) <= 0.75 and np.percentile(at_border, 95) <= 1.5, \
        (np.median(at_border), np.percentile(at_border, 95))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_tiny_images_alone_and_in_a_batch(dtype, queue):
    """What the guide says of tiny images: without antialias an integer image is bit-identical
    alone and in a batch; a float image of 1 or 2 pixels under linear or cubic sampling is
    within a few float32 ulps (the kernel is built for the call's shape, and the compiler folds
    such an image's arithmetic its own way: here only 1x1 images differed, but that is the
    compiler's choice on this CPU, so the test allows 1x2 and 2x1 the same)."""
    rng = np.random.default_rng(2)
    for trial in range(36):
        hw = [(1, 1), (1, 2), (2, 1), (2, 2)][trial % 4]
        interp = ["nearest", "linear", "cubic"][(trial // 4) % 3]
        pad = ["constant", "reflect_101", "replicate"][trial // 12]
        x = rng.integers(0, 255, (4, *hw, 3)).astype(dtype)
        pipe = Compose([RandomAffine(degrees=180, scale=(0.2, 3), translate=(0.3, 0.3)),
                        Resize((int(rng.integers(1, 9)), int(rng.integers(1, 9))))],
                       interpolation=interp, padding=pad)
        out = pipe(image=x, seed=trial, queue=queue)["image"]
        for k in range(4):
            one = pipe(image=x[k], seed=trial, index=k, queue=queue)["image"]
            if min(hw) == 1 and dtype == np.float32 and interp != "nearest":
                np.testing.assert_allclose(one, out[k], rtol=1e-5, atol=1e-5)
            else:
                np.testing.assert_array_equal(one, out[k], err_msg=f"{hw} {interp} {pad}")


def test_old_verbs_warn_and_agree():
    """``params``/``transform`` (before the verbs were named once) still work for a release,
    with a DeprecationWarning naming the replacement, and give what ``draw``/``stages`` give."""
    t = RandomAffine(degrees=20, p=0.5)
    with pytest.warns(DeprecationWarning, match=r"Transform\.draw\(rng, size\) or Compose"):
        p = t.params(stream(3, 0, 1), (64, 48))
    rng = stream(3, 0, 1)
    assert p == {"applied": bool(rng.random() < 0.5), **t.draw(rng, (64, 48))}
    with pytest.warns(DeprecationWarning, match=r"Transform\.stages"):
        m, size = t.transform(p, (64, 48))
    (ref,), ref_size = t.stages(p, (64, 48))
    np.testing.assert_array_equal(m, ref)
    assert size == ref_size


def test_a_lone_random_affine_takes_composes_target_options():
    """RandomAffine called with pipeline keywords runs as Compose([it]); the target options a
    port needs (keypoint_format, box_format, ...) reach that pipeline instead of being refused
    as unknown targets."""
    t = RandomAffine(degrees=(90, 90))
    kw = dict(mask=np.zeros((48, 64), np.uint8), keypoints=[[10, 20, 30.0]],
              boxes=[[1, 2, 10, 12]], seed=0)
    out = t(keypoint_format="xya", box_format="coco", **kw)
    ref = Compose([t], keypoint_format="xya", box_format="coco")(**kw)
    np.testing.assert_array_equal(out["keypoints"], ref["keypoints"])
    np.testing.assert_array_equal(out["boxes"], ref["boxes"])
    assert abs(out["keypoints"][0][2] - 120) < 1e-9


def test_settings_set_after_a_call_reach_the_next(queue):
    """A pipeline keeps what its calls read of its steps and settings (_executor._facts) and the
    warp keeps what a call made of them (engine.core._Again); an option or model setting set
    as an attribute after a call reaches the next call all the same, as a new pipeline with
    it would have it."""
    img = np.random.default_rng(3).integers(0, 256, (40, 50, 3), np.uint8)
    steps = lambda: [RandomRotation((30, 30))]  # noqa: E731  (the corners filled)
    aug = Compose(steps())
    first = aug(image=img, seed=0, queue=queue)["image"]
    assert (first[0, 0] == 0).all()
    aug.fill = (9, 99, 199)
    np.testing.assert_array_equal(aug(image=img, seed=0, queue=queue)["image"],
                                  Compose(steps(), fill=(9, 99, 199))(image=img, seed=0,
                                                                      queue=queue)["image"])
    assert (aug(image=img, seed=0, queue=queue)["image"][0, 0] == (9, 99, 199)).all()
    aug.output_dtype, aug.mean, aug.std = "float32", [0.5, 0.5, 0.5], [0.25, 0.25, 0.25]
    want = Compose(steps(), fill=(9, 99, 199), output_dtype="float32", mean=[0.5] * 3,
                   std=[0.25] * 3)(image=img, seed=0, queue=queue)["image"]
    got = aug(image=img, seed=0, queue=queue)["image"]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_per_channel_lists_reuse_the_model_input_values(queue):
    """A pipeline's mean and std as lists (as JSON gives them) hit the cache of the model
    input's values like tuples (each single-image call made them again: ~60 us of ~600) where
    the warp makes a call anew (its kept calls, engine.core._Again, emptied: they would skip
    the cache altogether); bad values are still refused, named as they were given."""
    from warpkit.engine import core, output

    img = np.zeros((40, 50, 3), np.uint8)
    aug = Compose([CenterCrop((20, 30))], output_dtype="float32", mean=[0.5, 0.4, 0.3],
                  std=np.array([0.2, 0.25, 0.3]), layout="CHW")
    first = aug(image=img, seed=0, queue=queue)["image"]
    core._AGAIN.clear()
    before = output.values_of_options.cache_info()
    again = aug(image=img, seed=1, queue=queue)["image"]
    after = output.values_of_options.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first[:, 0, 0], [-2.5, -1.6, -1.0], rtol=1e-6)
    bad = Compose([CenterCrop((20, 30))], output_dtype="float32", mean=[0.5, float("inf"), 0])
    with pytest.raises(ValueError, match=r"mean must be a finite number .* got \[0.5, inf, 0\]"):
        bad(image=img, seed=0, queue=queue)
