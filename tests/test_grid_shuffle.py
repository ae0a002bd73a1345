"""RandomGridShuffle (warpkit.augment._grid_shuffle: a Tiles stage in the one resampling)
against albumentations 2.0.8 itself: images and masks pixel for pixel as its swap_tiles_on_image
of the recorded tiles and mapping, keypoints as its swap_tiles_on_keypoints (half a pixel
apart: warpkit's pixel centres are at integers), the tiles and mapping drawn by its rules;
exact integer geometry around it; alone = in a batch = replayed; ported, serialised and
refused; the small cases on every device and Oclgrind."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data
    from albumentations.augmentations.geometric import functional as AG

PHOTO = skimage.data.astronaut()[:301, :407]


def _yxyx(tiles) -> np.ndarray:
    """The recorded [x1, y1, x2, y2] tiles as albumentations' (start_y, start_x, end_y, end_x)."""
    return np.array([[y1, x1, y2, x2] for x1, y1, x2, y2 in tiles], np.int64)


def _theirs(img: np.ndarray, step: dict) -> np.ndarray:
    return AG.swap_tiles_on_image(img, _yxyx(step["tiles"]), step["mapping"])


def _their_keypoints(kps: np.ndarray, step: dict) -> np.ndarray:
    """albumentations' keypoints of warpkit's (pixel edges: + 0.5, and back)."""
    moved = AG.swap_tiles_on_keypoints(kps + 0.5, _yxyx(step["tiles"]),
                                       np.array(step["mapping"]))
    return moved - 0.5


@pytest.mark.parametrize("dtype, channels", [(np.uint8, 3), (np.uint8, 1), (np.float32, 4),
                                             (np.uint16, 2)])
def test_alone_is_albumentations_swap(dtype, channels, queue):
    """Grids of 1 x 2 to 7 x 3 tiles on sizes that do and do not divide: every pixel of the
    image and the mask where albumentations' swap puts it, keypoints with their tiles."""
    img = np.dstack([PHOTO, PHOTO])[..., :channels]
    img = img.astype(np.float32) / 255 if dtype == np.float32 else \
        img.astype(dtype) * (257 if dtype == np.uint16 else 1)
    img = img[..., 0] if channels == 1 else img
    kps = np.random.default_rng(0).uniform(-0.5, [406.5, 300.5], (200, 2))
    for k, grid in enumerate([(3, 3), (2, 5), (1, 2), (7, 3), (4, 4)]):
        for crop in ((301, 407), (300, 400)):
            im, mask = img[:crop[0], :crop[1]], PHOTO[:crop[0], :crop[1], 1]
            inside = (kps < [crop[1] - 0.5, crop[0] - 0.5]).all(1)
            out = W.Compose([W.RandomGridShuffle(grid, p=1)])(
                image=im, mask=mask, keypoints=kps[inside], seed=k, queue=queue)
            step = out["params"]["steps"][0]
            np.testing.assert_array_equal(out["image"], _theirs(im, step))
            np.testing.assert_array_equal(out["mask"], _theirs(mask, step))
            np.testing.assert_allclose(out["keypoints"], _their_keypoints(kps[inside], step),
                                       atol=1e-9)


def test_drawn_by_albumentations_rules():
    """Row heights and column widths albumentations' near-equal sizes in a random order; a tile
    only trades places with tiles of its shape; over many seeds the same mappings appear as
    albumentations draws (every permutation where all tiles share a shape, none where no two
    do; every layout of a 3 x 3 grid's sizes)."""
    for size, grid in (((10, 4), (1, 2)), ((4, 4), (2, 2)), ((5, 5), (2, 2)), ((11, 7), (3, 3))):
        ours, theirs = W.RandomGridShuffle(grid, p=1), A.RandomGridShuffle(grid, p=1)
        got, want = set(), set()
        for seed in range(400):
            step = ours.draw(np.random.default_rng(seed), size)
            t = _yxyx(step["tiles"])
            shapes = [tuple(r) for r in (t[:, 2:] - t[:, :2]).tolist()]
            assert all(shapes[m] == shapes[k] for k, m in enumerate(step["mapping"]))
            assert sorted(step["mapping"]) == list(range(len(t)))
            rows = sorted(int(t[i * grid[1], 2] - t[i * grid[1], 0]) for i in range(grid[0]))
            q, r = divmod(size[1], grid[0])
            assert rows == sorted([q + 1] * r + [q] * (grid[0] - r))
            got.add((tuple(map(tuple, t.tolist())), tuple(step["mapping"])))
            theirs.set_random_seed(seed)
            p = theirs.get_params_dependent_on_data({"shape": (size[1], size[0])}, {})
            want.add((tuple(map(tuple, p["tiles"].tolist())), tuple(p["mapping"])))
        if grid == (3, 3):  # (too many mappings for 400 draws to show all: the layouts)
            got, want = {g[0] for g in got}, {w[0] for w in want}
            assert len(got) == 9  # three orders of the rows' heights, three of the columns'
        assert got == want, (size, grid)


def test_exact_geometry_around_it(queue):
    """A flip before and a transpose after (whole pixels): albumentations' three steps, pixel
    for pixel, keypoints through all three; a rotation after: keypoints as the rotation moves
    the shuffled ones."""
    pipe = W.Compose([W.HorizontalFlip(p=1), W.RandomGridShuffle((3, 2), p=1),
                      W.Transpose(p=1)])
    kps = np.random.default_rng(1).uniform(-0.5, [406.5, 300.5], (100, 2))
    out = pipe(image=PHOTO, mask=PHOTO[..., 0], keypoints=kps, seed=3, queue=queue)
    step = out["params"]["steps"][1]
    flipped = PHOTO[:, ::-1]
    np.testing.assert_array_equal(out["image"], _theirs(flipped, step).transpose(1, 0, 2))
    moved = _their_keypoints(np.stack([406 - kps[:, 0], kps[:, 1]], 1), step)
    np.testing.assert_allclose(out["keypoints"], moved[:, ::-1], atol=1e-9)
    turn = W.Compose([W.RandomGridShuffle((2, 3), p=1), W.Rotate((12, 12), p=1)])
    both = turn(image=PHOTO, keypoints=kps, seed=4, queue=queue)
    alone = W.Compose([W.Rotate((12, 12), p=1)])
    shuffled = _their_keypoints(kps, both["params"]["steps"][0])
    want = alone(image=PHOTO, keypoints=shuffled, seed=0, queue=queue)["keypoints"]
    np.testing.assert_allclose(both["keypoints"], want, atol=1e-6)


def test_keypoints_through_tiles_and_a_field(queue):
    """A chain with the shuffle and a field (GridDistortion, moved by Newton's method): points
    move exactly through the tiles, then through the field by Newton's method on its piece of
    the chain alone: as the field's pipeline moves the shuffled points."""
    kps = np.random.default_rng(2).uniform(5, [400, 295], (150, 2))
    for seed in range(3):
        both = W.Compose([W.RandomGridShuffle((2, 3), p=1), W.GridDistortion(p=1)])(
            image=PHOTO, keypoints=kps, seed=seed, queue=queue)
        steps = both["params"]["steps"]
        field = W.Compose([W.GridDistortion(p=1)])
        want = field(image=PHOTO, keypoints=_their_keypoints(kps, steps[0]),
                     params={"applied": True, "steps": [steps[1]]}, queue=queue)
        assert len(want["keypoints"]) > 140
        np.testing.assert_allclose(both["keypoints"], want["keypoints"], atol=1e-6)


def test_a_batch_is_each_sample_alone_and_replays(queue):
    imgs = [PHOTO[:60 + 9 * k, :70 + 5 * k].copy() for k in range(6)]
    pipe = W.Compose([W.RandomResizedCrop(40), W.RandomGridShuffle((2, 3), p=0.7),
                      W.Rotate(10)], output_dtype="float32", layout="CHW")
    batch = pipe(image=imgs, seed=5, queue=queue)
    for i, img in enumerate(imgs):
        alone = pipe(image=img, seed=5, index=i, queue=queue)
        np.testing.assert_array_equal(batch["image"][i], alone["image"])
        again = pipe(image=img, params=alone["params"], queue=queue)["image"]
        np.testing.assert_array_equal(again, alone["image"])


def test_ported_serialised_and_refused(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.RandomGridShuffle((2, 4), p=0.3)])
    for given in (recipe, A.to_dict(recipe)):
        (t,) = W.from_albumentations(given).transforms
        assert type(t).__name__ == "RandomGridShuffle" and (t.grid, t.p) == ((2, 4), 0.3)
    pipe = W.Compose([W.RandomGridShuffle((5, 1), p=0.6)])
    assert W.Compose.from_dict(pipe.to_dict()).to_dict() == pipe.to_dict()
    for bad in ((0, 3), (2,), 3, (2.5, 2), (True, 2)):
        with pytest.raises(ValueError, match="grid must be \\(rows, columns\\)"):
            W.RandomGridShuffle(bad)
    with pytest.raises(ValueError, match="grid of 9 x 2 tiles .* at least that many pixels, "
                                         "got 8 x 30"):
        W.Compose([W.RandomGridShuffle((9, 2), p=1)])(image=np.zeros((8, 30), np.uint8),
                                                       seed=0, queue=queue)
    boxes = np.array([[1, 1, 5, 5]], np.float32)
    with pytest.raises(ValueError, match="boxes cannot pass RandomGridShuffle"):
        pipe = W.Compose([W.RandomGridShuffle(p=1)])
        pipe(image=PHOTO, boxes=boxes, labels=[0], seed=0, queue=queue)
    # a call whose draw skipped it takes boxes
    out = W.Compose([W.RandomGridShuffle(p=0)])(image=PHOTO, boxes=boxes, labels=[0], seed=0,
                                               queue=queue)
    np.testing.assert_allclose(out["boxes"], boxes)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Images of 1 x 2 to 19 x 13 pixels, grids up to their size, uint8 and float32: the swap
    pixel for pixel on the device (its Tiles stage, clamped to each tile)."""
    photo = skimage.data.coffee()[100:119, 200:213]
    for k, ((h, w), grid, dt) in enumerate(itertools.product(
            [(19, 13), (1, 2), (5, 3)], [(1, 2), (3, 1), (1, 1)], (np.uint8, np.float32))):
        im = photo[:h, :w] if dt == np.uint8 else photo[:h, :w].astype(np.float32) / 255
        if grid[0] > h or grid[1] > w:
            continue
        out = W.Compose([W.RandomGridShuffle(grid, p=1)])(image=im, seed=k, queue=small_queue)
        np.testing.assert_array_equal(out["image"], _theirs(im, out["params"]["steps"][0]))
