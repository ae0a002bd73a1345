"""What a pipeline call takes as it comes from a data loader, and what it refuses before any
launch: collate's own output, index arrays and tensors, lists of channels-first tensors,
masks that do not fit their images, fills a mask cannot hold, images without pixels and
extreme crop ratios."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit.augment import Compose, RandomAffine, RandomResizedCrop, collate

RNG = np.random.default_rng(3)


def _photos(n=4, c=3):
    return [RNG.integers(0, 256, (30 + 3 * k, 40 + 2 * k, c), dtype=np.uint8) for k in range(n)]


PIPE = Compose([RandomResizedCrop(24, scale=(0.6, 1)), RandomAffine(degrees=10)],
               min_visibility=0.0)


def test_collate_output_goes_to_the_pipeline_whatever_the_counts(queue):
    """Equal box counts: collate stacks them into (B, N, 4) and the labels into (B, N); the
    pipeline takes that as one entry per sample (it refused its own collate's output), the same
    as the lists it gives for unequal counts."""
    photos = _photos()
    boxes = [np.array([[2.0, 3.0, 20.0, 25.0], [5.0, 5.0, 30.0, 28.0]]) for _ in photos]
    labels = [np.array([1, 2]) for _ in photos]
    batch = collate([{"image": p, "boxes": b, "labels": lab, "index": k}
                     for k, (p, b, lab) in enumerate(zip(photos, boxes, labels))])
    assert isinstance(batch["boxes"], np.ndarray) and batch["boxes"].shape == (4, 2, 4)
    out = PIPE(image=batch["image"], boxes=batch["boxes"], labels=batch["labels"],
               index=batch["index"], seed=5, queue=queue)
    ref = PIPE(image=photos, boxes=boxes, labels=labels, seed=5, queue=queue)
    for k in range(4):
        np.testing.assert_array_equal(out["boxes"][k], ref["boxes"][k])
        np.testing.assert_array_equal(out["labels"][k], ref["labels"][k])
    np.testing.assert_array_equal(out["image"], ref["image"])


@pytest.mark.parametrize("make", [np.array, lambda v: np.array(v, np.int32), list, tuple])
def test_index_as_any_1d_integer_sequence(make, queue):
    photos = _photos()
    ref = PIPE(image=photos, index=[7, 3, 9, 1], seed=2, queue=queue)
    out = PIPE(image=photos, index=make([7, 3, 9, 1]), seed=2, queue=queue)
    np.testing.assert_array_equal(out["image"], ref["image"])
    assert out["params"] == ref["params"]
    one = PIPE(image=photos[0], index=np.int64(7), seed=2, queue=queue)
    assert one["params"] == ref["params"][0]
    start = PIPE(image=photos, index=np.array(7), seed=2, queue=queue)  # a 0-d array: a start
    assert start["params"][1] == PIPE(image=photos[1], index=8, seed=2, queue=queue)["params"]


@pytest.mark.parametrize("index,match", [
    (np.array([[1, 2], [3, 4]]), r"a 1-D sequence of integers.*shape \(2, 2\)"),
    ([1.5, 2, 3, 4], r"a 1-D sequence of integers.*float64"),
    (np.array([1, 2, 3]), r"index has 3 entries for 4 samples"),
    ("0123", r"index must be an integer >= 0 or one per sample"),
    ([0, -1, 2, 3], r"index must be an integer >= 0, got -1"),
])
def test_index_refused(index, match):
    with pytest.raises(ValueError, match=match):
        PIPE(image=_photos(), index=index, seed=2)


def test_torch_index_and_lists_of_channels_first_tensors(queue):
    """What a DataLoader's collate gives: the index as a tensor, ragged images as a list of
    (C, H, W) tensors; each tensor in the list is taken as a tensor alone is (it was read as
    (H, W, C)), and the results come back as tensors."""
    torch = pytest.importorskip("torch")
    photos = _photos()
    chw = [torch.from_numpy(p).permute(2, 0, 1) for p in photos]
    masks = [torch.from_numpy((p[..., 0] > 128).astype(np.uint8)) for p in photos]
    out = PIPE(image=chw, mask=masks, index=torch.arange(4), seed=4, queue=queue)
    ref = PIPE(image=photos, mask=[m.numpy() for m in masks], seed=4, queue=queue)
    assert isinstance(out["image"], torch.Tensor) and tuple(out["image"].shape) == (4, 3, 24, 24)
    np.testing.assert_array_equal(out["image"].permute(0, 2, 3, 1).numpy(), ref["image"])
    assert isinstance(out["mask"], torch.Tensor)
    np.testing.assert_array_equal(out["mask"].numpy(), ref["mask"])
    batch = collate([{"image": t, "index": k} for k, t in enumerate(chw)])
    again = PIPE(image=batch["image"], index=torch.tensor(batch["index"]), seed=4, queue=queue)
    np.testing.assert_array_equal(again["image"].numpy(), out["image"].numpy())


def test_channels_last_torch_tensors_are_refused_with_the_fix(queue):
    """torch.from_numpy(photo) without a permute is (H, W, C): refused before any launch with
    what to do, for one image, a batch and a list; the permuted tensor then works."""
    torch = pytest.importorskip("torch")
    photo = _photos()[0]
    hwc = torch.from_numpy(photo)
    with pytest.raises(ValueError, match=r"image as a torch tensor is taken channels first.*"
                                         r"\(30, 40, 3\), looks channels last \(3 channels after "
                                         r"30 rows\): pass tensor.permute\(2, 0, 1\)"):
        PIPE(image=hwc, seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"\(2, 30, 40, 3\), looks channels last.*"
                                         r"permute\(0, 3, 1, 2\)"):
        PIPE(image=torch.stack([hwc, hwc]), seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"image\[1\] as a torch tensor.*looks channels last"):
        PIPE(image=[hwc.permute(2, 0, 1), hwc], seed=0, queue=queue)
    out = PIPE(image=hwc.permute(2, 0, 1), seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(out.permute(1, 2, 0).numpy(),
                                  PIPE(image=photo, seed=0, queue=queue)["image"])


@pytest.mark.parametrize("image,mask,match", [
    (np.zeros((20, 30, 3), np.uint8), np.zeros((20, 31), np.uint8),
     r"mask must have its image's height and width \(20, 30\), got shape \(20, 31\)"),
    (np.zeros((20, 30, 3), np.uint8), np.zeros((30, 20, 1), np.uint8),
     r"mask must have its image's height and width"),
    ([np.zeros((20, 30, 3), np.uint8)] * 3, [np.zeros((20, 30), np.uint8)] * 2,
     r"mask for a list of 3 images must be a list of 3 masks, one per image, got 2"),
    ([np.zeros((20, 30, 3), np.uint8)] * 2, [np.zeros((20, 30), np.uint8)] * 3,
     r"mask for a list of 2 images must be a list of 2 masks, one per image, got 3"),
    ([np.zeros((20, 30, 3), np.uint8), np.zeros((22, 30, 3), np.uint8)],
     [np.zeros((20, 30), np.uint8), np.zeros((20, 30), np.uint8)],
     r"mask\[1\] must have its image's height and width \(22, 30\), got shape \(20, 30\)"),
    (np.zeros((2, 20, 30, 3), np.uint8), np.zeros((3, 20, 30), np.uint8),
     r"mask for a batch of 2 20x30 images must be \(B, H, W\).*got shape \(3, 20, 30\)"),
    (np.zeros((2, 20, 30, 3), np.uint8), np.zeros((20, 30), np.uint8),
     r"mask for a batch of 2"),
])
def test_masks_that_do_not_fit_their_images_are_refused(image, mask, match):
    """albumentations refuses these too; warpkit warped them with another size's map or
    truncated the list."""
    with pytest.raises(ValueError, match=match):
        PIPE(image=image, mask=mask, seed=0)


@pytest.mark.parametrize("dtype,fill,ok", [
    (np.int8, 200, False), (np.int8, -128, True), (np.uint32, 3e9, False),
    (np.uint32, 2**31 - 1, True), (np.bool_, 255, True),
    (np.uint8, 0.5, False), (np.uint8, 255, True), (np.int16, -1, True), (np.uint16, -1, False),
])
def test_mask_fill_must_fit_the_mask(dtype, fill, ok, queue):
    """A mask_fill the mask cannot hold wrapped (200 in int8 gave -56) or saturated onto
    another label (3e9 in uint32 gave 2^31 - 1): refused, naming the range; one that fits
    reaches the pixels outside the image exactly (bool masks: nonzero is True)."""
    pipe = Compose([RandomAffine(degrees=0, translate=(0.4, 0.4))], mask_fill=fill)
    img, mask = np.zeros((20, 30, 3), np.uint8), np.zeros((20, 30), dtype)
    if not ok:
        with pytest.raises(ValueError, match=rf"mask_fill must be .*{dtype.__name__}"):
            pipe(image=img, mask=mask, seed=0, queue=queue)
        return
    out = pipe(image=img, mask=mask, seed=0, queue=queue)["mask"]
    assert out.dtype == dtype and set(np.unique(out).tolist()) == {0, dtype(fill).item()}


@pytest.mark.parametrize("shape", [(0, 0, 3), (0, 5, 3), (5, 0)])
def test_images_without_pixels_are_refused(shape):
    with pytest.raises(ValueError, match=r"image has no pixels to sample"):
        Compose([RandomResizedCrop(16)])(image=np.zeros(shape, np.uint8), seed=0)
    with pytest.raises(ValueError, match=r"image\[1\] has no pixels to sample: 5x0"):
        Compose([RandomResizedCrop(16)])(image=[np.zeros((4, 4), np.uint8),
                                                np.zeros((0, 5), np.uint8)], seed=0)


@pytest.mark.parametrize("ratio", [(1e-6, 1e-6), (1e6, 1e6)])
def test_extreme_crop_ratios_keep_at_least_one_pixel(ratio, queue):
    """No try fits such a ratio, and the fallback's side rounded to 0 (ZeroDivisionError):
    the fallback box keeps at least one pixel and stays inside the image."""
    t = RandomResizedCrop(16, ratio=ratio)
    for size in ((30, 20), (1, 1), (7, 300)):
        x0, y0, w, h = t.draw(np.random.default_rng(0), size)["box"]
        assert 1 <= w <= size[0] and 1 <= h <= size[1] and x0 >= 0 and y0 >= 0
        assert x0 + w <= size[0] and y0 + h <= size[1]
    out = Compose([t])(image=np.zeros((20, 30, 3), np.uint8), seed=0, queue=queue)
    assert out["image"].shape == (16, 16, 3)


def test_a_batch_takes_its_masks_as_a_list_too(queue):
    imgs = np.stack(_photos(3, 3)[:1] * 3)
    masks = [(im[..., 0] > 100).astype(np.uint8) for im in imgs]
    ref = PIPE(image=imgs, mask=np.stack(masks), seed=1, queue=queue)["mask"]
    np.testing.assert_array_equal(PIPE(image=imgs, mask=masks, seed=1, queue=queue)["mask"], ref)
    with pytest.raises(ValueError, match=r"mask for a batch of 3 images must be a list of 3"):
        PIPE(image=imgs, mask=masks[:2], seed=1)


def test_several_masks_of_one_image_move_as_one_mask_each(queue):
    """``masks=[...]``: every mask of an image (any integer or bool dtype, with or without
    channels, a torch tensor too) comes back in its own kind, dtype and shape, equal to the
    same mask given alone as ``mask=``; a batch takes one list per image (lengths may differ)."""
    img = _photos(1)[0]
    h, w = img.shape[:2]
    masks = [RNG.integers(0, 2, (h, w), dtype=np.uint8), RNG.integers(-5, 9, (h, w, 3)).astype(np.int16),
             RNG.random((h, w)) > 0.3, RNG.integers(0, 7, (h, w, 6)).astype(np.int32)]
    pipe = Compose([RandomAffine(degrees=30, scale=(0.7, 1.3))], mask_fill=1)
    out = pipe(image=img, masks=masks, seed=3, queue=queue)
    assert len(out["masks"]) == 4
    for got, m in zip(out["masks"], masks):
        alone = pipe(image=img, mask=m, seed=3, queue=queue)["mask"]
        assert got.dtype == m.dtype and got.shape == alone.shape
        np.testing.assert_array_equal(got, alone)
    batch = np.stack([img, img])
    res = pipe(image=batch, masks=[masks[:1], masks[1:3]], seed=4, queue=queue)["masks"]
    assert [len(g) for g in res] == [1, 2]
    np.testing.assert_array_equal(
        res[1][1], pipe(image=img, mask=masks[2], seed=4, index=1, queue=queue)["mask"])
    torch = pytest.importorskip("torch")
    t = pipe(image=img, masks=[torch.from_numpy(masks[0])], seed=3, queue=queue)["masks"][0]
    assert isinstance(t, torch.Tensor)
    np.testing.assert_array_equal(t.numpy(), out["masks"][0])


def test_masks_as_one_array_come_back_as_one(queue):
    """``masks=`` as albumentations 2 takes it, one (N, H, W) or (N, H, W, C) array: each mask
    moved as ``mask=`` moves it, the result one array again; in a batch one such array a
    sample (or one (B, N, ...) array), each sample's as the sample alone; an empty stack comes
    back as it came."""
    img = _photos(1)[0]
    h, w = img.shape[:2]
    stack = RNG.integers(0, 9, (3, h, w), dtype=np.uint8)
    pipe = Compose([RandomAffine(degrees=30, scale=(0.7, 1.3))])
    out = pipe(image=img, masks=stack, seed=3, queue=queue)["masks"]
    assert isinstance(out, np.ndarray) and out.shape == stack.shape
    for got, m in zip(out, stack):
        np.testing.assert_array_equal(got, pipe(image=img, mask=m, seed=3, queue=queue)["mask"])
    coloured = RNG.integers(0, 9, (2, h, w, 4)).astype(np.int16)
    out = pipe(image=img, masks=coloured, seed=3, queue=queue)["masks"]
    assert out.shape == coloured.shape and out.dtype == np.int16
    np.testing.assert_array_equal(
        out[1], pipe(image=img, mask=coloured[1], seed=3, queue=queue)["mask"])
    both = pipe(image=np.stack([img, img]), masks=np.stack([stack, stack]), seed=4,
                queue=queue)["masks"]
    assert both.shape == (2, *stack.shape)
    np.testing.assert_array_equal(
        both[1], pipe(image=img, masks=stack, seed=4, index=1, queue=queue)["masks"])
    ragged = pipe(image=[img, img[:20]], masks=[stack, stack[:2, :20]], seed=4,
                  queue=queue)["masks"]
    assert [g.shape for g in ragged] == [stack.shape, (2, 20, w)]
    empty = np.zeros((0, h, w), np.uint8)
    assert pipe(image=img, masks=empty, seed=3, queue=queue)["masks"] is empty


def test_images_are_one_samples_frames(queue):
    """``images=`` (albumentations 2's frames of one sample, (N, H, W, C) or a list): every
    frame moved and changed by the sample's one set of parameters, each equal to that frame
    given alone as the image with the same seed (noise, holes and maps alike), beside
    ``image=`` or alone, in a batch (one stack of frames a sample) and as torch tensors; the
    result laid out as it came; the frames of a batch's samples must be as many."""
    from warpkit.augment import CoarseDropout, GaussNoise

    img = _photos(1)[0]
    frames = np.stack([img, img[::-1] // 3, 255 - img])
    pipe = Compose([RandomAffine(degrees=30, scale=(0.7, 1.3)), GaussNoise(p=1),
                    CoarseDropout(p=1)], strict=True)
    out = pipe(images=frames, seed=3, queue=queue)
    assert set(out) == {"images"} and "params" in out and "image" not in out
    assert isinstance(out["images"], np.ndarray) and out["images"].shape == frames.shape
    for got, f in zip(out["images"], frames):
        np.testing.assert_array_equal(got, pipe(image=f, seed=3, queue=queue)["image"])
    beside = pipe(image=img, images=list(frames), seed=3, queue=queue)
    assert isinstance(beside["images"], list)
    np.testing.assert_array_equal(beside["image"], out["images"][0])
    np.testing.assert_array_equal(np.stack(beside["images"]), out["images"])
    batch = pipe(image=np.stack([img, img]), images=np.stack([frames, frames]), seed=4,
                 queue=queue)
    assert batch["images"].shape == (2, *frames.shape)
    np.testing.assert_array_equal(
        batch["images"][1], pipe(images=frames, seed=4, index=1, queue=queue)["images"])
    with pytest.raises(ValueError, match=r"images= must hold as many frames for each sample"):
        pipe(image=[img, img[:20]], images=[frames, frames[:2, :20]], seed=4)
    same = pipe(image=[img, img[:20]], images=[frames[:2], frames[:2, :20]], seed=4,
                queue=queue)["images"]
    assert [f.shape for f in same] == [(2, *img.shape), (2, 20, *img.shape[1:])]
    with pytest.raises(ValueError, match=r"images\[1\] must be laid out as image is"):
        pipe(image=img, images=[img, img[:20]], seed=0)  # (each frame named as the call gave it)
    with pytest.raises(ValueError, match=r"images must be one sample's frames: a stack "
                                         r"\(N, H, W\) or \(N, H, W, C\), or a list"):
        pipe(images=img[..., 0], seed=0)
    assert pipe(image=img, images=frames[:0], seed=3, queue=queue)["images"].shape[0] == 0
    torch = pytest.importorskip("torch")
    t = pipe(images=torch.from_numpy(frames).permute(0, 3, 1, 2), seed=3, queue=queue)["images"]
    assert isinstance(t, torch.Tensor) and tuple(t.shape) == (3, 3, *img.shape[:2])
    np.testing.assert_array_equal(t.permute(0, 2, 3, 1).numpy(), out["images"])


@pytest.mark.parametrize("call,err,match", [
    (lambda m: PIPE(image=_photos(1)[0], mask=[m, m], seed=0), ValueError,
     r"mask for a single image is one array .* got a list of 2: pass several masks of one "
     r"image as masks=\[\.\.\.\]"),
    (lambda m: PIPE(image=_photos(1)[0], masks=m, seed=0), ValueError,
     r"masks must be a list of masks of its image"),
    (lambda m: PIPE(image=_photos(1)[0], masks=m[..., None], seed=0), ValueError,
     r"masks\[0\] must have its image's height and width \(30, 40\), got shape \(40, 1\)"),
    (lambda m: PIPE(image=_photos(1)[0], masks=[m[:5]], seed=0), ValueError,
     r"masks\[0\] must have its image's height and width \(30, 40\), got shape \(5, 40\)"),
    (lambda m: PIPE(image=_photos(2), masks=[[m]], seed=0), ValueError,
     r"masks for 2 samples must be a sequence of 2, one per sample"),
    (lambda m: PIPE(image=_photos(1)[0], masks=[m, 3], seed=0), TypeError,
     r"masks\[1\] must be an array"),
])
def test_mask_lists_are_refused_where_they_do_not_fit(call, err, match):
    with pytest.raises(err, match=match):
        call(np.zeros((30, 40), np.uint8))


def test_labels_come_back_as_they_came():
    """Labels as a torch tensor come back as one tensor of the kept boxes' labels (not a list
    of 0-d tensors), a numpy array as an array, a list as a list."""
    torch = pytest.importorskip("torch")
    pipe = Compose([RandomAffine(translate=(0.5, 0.5))], min_visibility=0.9)
    boxes = [[1, 2, 12, 12], [3, 4, 30, 25], [20, 10, 39, 29]]
    ref = pipe(image=_photos(1)[0], boxes=boxes, labels=[7, 8, 9], seed=2)["labels"]
    assert 0 < len(ref) < 3  # some dropped
    for labels, kind in ((torch.tensor([7, 8, 9]), torch.Tensor), (np.array([7, 8, 9]), np.ndarray)):
        got = pipe(image=_photos(1)[0], boxes=boxes, labels=labels, seed=2)["labels"]
        assert isinstance(got, kind) and got.tolist() == ref
    batch = pipe(image=np.stack([_photos(1)[0]] * 2), boxes=[boxes, boxes],
                 labels=torch.tensor([[7, 8, 9], [7, 8, 9]]), seed=2)["labels"]
    assert all(isinstance(t, torch.Tensor) and t.ndim == 1 for t in batch)


@pytest.mark.parametrize("targets,match", [
    (dict(boxes=[[0, 0, 5, 5]], labels=[1, 2]), r"labels must have one entry per box: 1 boxes, 2"),
    (dict(boxes=[[0, 0, 5]]), r"boxes must be rows of 4 numbers"),
    (dict(boxes=[[[0, 0, 5, 5]], [[0, 0, 5]]]), r"boxes\[1\] must be rows of 4 numbers"),
    (dict(keypoints=[[1, 2, 3]]), r"keypoints in keypoint_format='xy' must be rows of 2"),
    (dict(masks=[np.zeros((3, 3), np.uint8)]), r"masks\[0\] must have its image's height"),
])
def test_bad_targets_are_refused_before_any_launch(targets, match, monkeypatch):
    """Targets are checked on the host before the image is warped (no kernel runs for a call
    that fails)."""
    from warpkit import _op

    monkeypatch.setattr(_op, "launch", lambda *a: pytest.fail("a kernel ran"))
    batch = "boxes" in targets and isinstance(targets["boxes"][0][0], list)
    image = np.zeros((2, 30, 40, 3), np.uint8) if batch else np.zeros((30, 40, 3), np.uint8)
    with pytest.raises(ValueError, match=match):
        PIPE(image=image, seed=0, **targets)
