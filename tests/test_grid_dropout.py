"""GridDropout (warpkit.augment, kernels_cl/colour.h's WK_COL_HOLES: holes in bands of rows)
against albumentations 2.0.8 itself: the image and masks pixel for pixel as its own dropout of
the recorded holes, boxes and keypoints as its filters; the grid, the holes' sizes and their
places as its draws make them (the same holes where nothing is random, the same laws where
something is); every fill, dtype and channel count; alone, in ragged batches, replayed, ported,
on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import check_small_cases, dropout_runs

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.dropout import functional as AD
    import skimage.data

PHOTO = skimage.data.astronaut()


def _holes(out, step: int = 0) -> np.ndarray:
    return np.asarray(out["params"]["steps"][step]["holes"], np.int64).reshape(-1, 4)


def _theirs_holes(t, shape: tuple[int, int], seed: int) -> np.ndarray:
    """albumentations' own holes for an image of ``shape`` (H, W), its generator seeded."""
    t.set_random_seed(seed)
    return t.get_params_dependent_on_data({"shape": shape}, {})["holes"]


def _covered(holes: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    m = np.zeros(shape, bool)
    for x1, y1, x2, y2 in holes.tolist():
        m[y1:y2, x1:x2] = True
    return m


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("kw", [{}, {"unit_size_range": (20, 60), "ratio": 0.3},
                                {"holes_number_xy": (3, 7), "random_offset": False,
                                 "shift_xy": (9, 400), "ratio": 0.8}], ids=str)
def test_grid_dropout_is_albumentations_with_the_recorded_holes(dtype, kw, queue):
    """Image and mask pixel for pixel as albumentations' dropout of the same holes (the last
    case's shift pushes the holes past the bottom edge, where they pile up); boxes kept,
    dropped and shrunk as its filter; keypoints in a hole gone, or invisible."""
    outs, cut = dropout_runs(lambda fill: (W.GridDropout(fill=fill, fill_mask=7, p=1, **kw),
                                           A.GridDropout(fill=fill, fill_mask=7, p=1, **kw)),
                             dtype, queue, range(4), 0.6)
    assert all(len(_holes(out)) >= 9 for out in outs)
    assert cut or kw  # the default's holes (25 pixels) cut or drop a box


@pytest.mark.parametrize("shape", [(512, 512), (90, 61), (37, 300), (7, 5)], ids=str)
@pytest.mark.parametrize("kw", [{}, {"holes_number_xy": (4, 6)},
                                {"holes_number_xy": (9, 2), "random_offset": False,
                                 "shift_xy": (3, 1), "ratio": 0.9},
                                {"random_offset": False, "ratio": 1.0},
                                {"holes_number_xy": (4, 8), "random_offset": False,
                                 "shift_xy": (2, 3)},
                                {"holes_number_xy": (6, 40), "ratio": 0.2}], ids=str)
def test_the_holes_are_albumentations_holes(shape, kw):
    """Nothing random but the order of the cells' sizes: the same holes as albumentations'
    as a set, for each order either side draws (compared as sorted lists over many seeds:
    the same sizes, the same places, the same count). Grids of more cells than pixels leave
    cells of 0 pixels, whose holes cover nothing (warpkit records none)."""
    ours, theirs = W.GridDropout(p=1, **kw), A.GridDropout(p=1, **kw)
    h, w = shape
    rows, cols = kw.get("holes_number_xy", (0, 0))
    exact = not kw.get("random_offset", True) and rows and h % rows == 0 and w % cols == 0
    sizes_ours, sizes_theirs, cover_ours, cover_theirs = [], [], [], []
    for seed in range(40):
        mine = np.asarray(ours.draw(np.random.default_rng(seed), (w, h))["holes"],
                          np.int64).reshape(-1, 4)
        their = _theirs_holes(theirs, shape, seed)
        their = their[(their[:, 2] > their[:, 0]) & (their[:, 3] > their[:, 1])]
        sizes_ours.append(sorted(map(tuple, (mine[:, 2:] - mine[:, :2]).tolist())))
        sizes_theirs.append(sorted(map(tuple, (their[:, 2:] - their[:, :2]).tolist())))
        cover_ours.append(_covered(mine, shape).mean())
        cover_theirs.append(_covered(their, shape).mean())
        assert ((mine[:, :2] >= 0) & (mine[:, 2:] <= [w, h])).all()
        if exact:  # cells of one size: no order to draw
            assert sorted(map(tuple, mine.tolist())) == sorted(map(tuple, their.tolist()))
    # the holes' sizes are fixed by the grid's sizes: the same multiset every draw, both sides
    assert sorted(set(map(tuple, sizes_ours))) == sorted(set(map(tuple, sizes_theirs)))
    # the share of the image covered: the same law (only the holes' places move it)
    assert abs(np.mean(cover_ours) - np.mean(cover_theirs)) <= 0.02 + 0.2 * np.std(cover_theirs)


def test_random_places_and_unit_sizes_follow_albumentations_laws():
    """Each hole uniform over the places its cell leaves it (offsets 0 .. free, both ends
    reached), and cells of a side uniform in unit_size_range with its high end excluded: the
    counts of holes as often as albumentations draws them."""
    ours, theirs = W.GridDropout(p=1), A.GridDropout(p=1)
    offs_ours, offs_theirs = [], []
    for seed in range(300):
        for holes, bucket in ((np.asarray(ours.draw(np.random.default_rng(seed), (100, 100))
                                          ["holes"]), offs_ours),
                              (_theirs_holes(theirs, (100, 100), seed), offs_theirs)):
            bucket.append(holes[:, :2] % 10)  # 10 x 10 cells of 10: holes of 5, offsets 0-5
    a, b = np.concatenate(offs_ours), np.concatenate(offs_theirs)
    assert a.min() == 0 and a.max() == 5 and b.max() == 5
    fa = np.bincount(a.ravel(), minlength=6) / a.size
    fb = np.bincount(b.ravel(), minlength=6) / b.size
    np.testing.assert_allclose(fa, fb, atol=0.01)
    np.testing.assert_allclose(fa, 1 / 6, atol=0.01)
    ours, theirs = W.GridDropout(unit_size_range=(20, 25), p=1), \
        A.GridDropout(unit_size_range=(20, 25), p=1)
    counts_ours = [len(ours.draw(np.random.default_rng(s), (100, 100))["holes"])
                   for s in range(400)]
    counts_theirs = [len(_theirs_holes(theirs, (100, 100), s)) for s in range(400)]
    assert set(counts_ours) == set(counts_theirs) == {25, 16}  # units 20, 21 .. 24: 5 or 4 a side
    assert abs(np.mean(counts_ours) - np.mean(counts_theirs)) < 1.2
    # (k, k): cells of k (albumentations' own draw refuses an empty range)
    assert len(W.GridDropout(unit_size_range=(25, 25), p=1).draw(np.random.default_rng(0),
                                                                 (100, 100))["holes"]) == 16


@pytest.mark.parametrize("shape", [(60, 70), (60, 70, 2), (60, 70, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_other_channel_counts_and_dtypes(shape, dtype, queue):
    """Gray, two-channel and RGBA images, uint8, uint16 and float32, a fill per channel: pixel
    for pixel as albumentations' own cutout of the recorded holes."""
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (np.random.default_rng(0).uniform(0.3, 0.7, shape) * peak).astype(dtype)
    channels = shape[2] if len(shape) == 3 else 1
    fill = [float(dtype(peak * (k + 1) / 8)) for k in range(channels)]
    out = W.Compose([W.GridDropout(ratio=0.4, fill=fill if channels > 1 else fill[0], p=1)])(
        image=img, seed=1, queue=queue)
    holes = _holes(out)
    assert len(holes) == 100  # cells of 6 x 7 (a tenth of each side)
    want = AD.cutout(img, holes, tuple(fill) if channels > 1 else fill[0],
                     np.random.default_rng(0))
    np.testing.assert_array_equal(out["image"], want)


def test_random_fills_and_replay(queue):
    """'random': a level per pixel and channel inside the holes; 'random_uniform': one colour
    per hole; the rest untouched; both replay from the recorded params."""
    for dtype in (np.uint8, np.float32):
        img = PHOTO if dtype == np.uint8 else PHOTO.astype(np.float32) / 255
        peak = 255 if dtype == np.uint8 else 1
        for fill in ("random", "random_uniform"):
            pipe = W.Compose([W.GridDropout(holes_number_xy=(5, 4), fill=fill, p=1)])
            out = pipe(image=img, seed=3, queue=queue)
            holes = _holes(out)
            m = _covered(holes, img.shape[:2])
            np.testing.assert_array_equal(out["image"][~m], img[~m])
            inside = out["image"][m].astype(np.float64)
            assert inside.min() >= 0 and inside.max() <= peak
            if fill == "random":
                assert inside.std() > 0.25 * peak and abs(inside.mean() - peak / 2) < 0.05 * peak
            else:
                colours = {tuple(out["image"][y1, x1].tolist()) for x1, y1, _, _ in holes}
                assert len(colours) == len(holes)
                for x1, y1, x2, y2 in holes:
                    patch = out["image"][y1:y2, x1:x2]
                    assert (patch == patch[0, 0]).all()
            again = pipe(image=img, params=out["params"], queue=queue)["image"]
            np.testing.assert_array_equal(again, out["image"])


def test_many_holes_and_an_output_of_another_size(queue):
    """Thousands of holes (cells of 2 to 4 pixels); a dropout before a resize: its holes land
    on the output scaled (edges rounded), in the image and the mask alike."""
    img = np.full((200, 300, 3), 9, np.uint8)
    mask = np.zeros((200, 300), np.uint8)
    pipe = W.Compose([W.GridDropout(unit_size_range=(2, 5), fill=200, fill_mask=1, p=1)])
    out = pipe(image=img, mask=mask, seed=0, queue=queue)
    holes = _holes(out)
    assert len(holes) >= 2500
    want = _covered(holes, (200, 300))
    np.testing.assert_array_equal(out["image"][..., 0] == 200, want)
    np.testing.assert_array_equal(out["mask"] == 1, want)
    pipe = W.Compose([W.GridDropout(holes_number_xy=(3, 5), fill=200, fill_mask=1, p=1),
                      W.Resize((57, 75))])
    out = pipe(image=img, mask=mask, seed=0, queue=queue)
    want = np.zeros((57, 75), bool)
    # the kernel's edges: float32 fractions times the output's side, halves up
    def r(v: int, side: int, n: int) -> int:
        return int(np.floor(np.float32(v / side) * np.float32(n) + np.float32(0.5)))

    for x1, y1, x2, y2 in _holes(out).tolist():
        want[r(y1, 200, 57):r(y2, 200, 57), r(x1, 300, 75):r(x2, 300, 75)] = True
    np.testing.assert_array_equal(out["image"][..., 0] == 200, want)
    np.testing.assert_array_equal(out["mask"] == 1, want)


def test_in_a_ragged_batch_each_sample_is_as_alone(queue):
    """Holes made on each crop of a ragged batch, normalised into float CHW in the same pass:
    every sample as called alone (its draws and its output)."""
    photos = [PHOTO, skimage.data.coffee(), skimage.data.chelsea(), PHOTO[::2, ::3].copy()]
    pipe = W.Compose([W.RandomResizedCrop(96), W.RandomHorizontalFlip(),
                      W.GridDropout(ratio=0.4, fill=(255, 0, 0), p=0.8)],
                     output_dtype="float32", mean=[0.5, 0.4, 0.3], std=[0.2, 0.25, 0.3],
                     layout="CHW")
    got = pipe(image=photos, seed=9, queue=queue)
    applied = 0
    for k, photo in enumerate(photos):
        alone = pipe(image=photo, seed=9, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        assert alone["params"] == got["params"][k]
        applied += got["params"][k]["steps"][2]["applied"]
    assert applied


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Bands of holes (two to an operation, one with its colour, random levels) after a
    rotation, on each device CI runs and on Oclgrind: the default device's numbers."""
    img = PHOTO[100:117, 200:219].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [W.GridDropout(holes_number_xy=(3, 5), fill=(5, 6, 7), p=1),
             W.GridDropout(unit_size_range=(3, 5), ratio=0.6, fill="random", p=1),
             W.GridDropout(holes_number_xy=(2, 3), fill="random_uniform", p=1)]
    check_small_cases(img, geo, [[t] for t in cases], small_queue)


def test_serialised_and_ported():
    """to_dict / from_dict keep the parameters; from_albumentations maps albumentations' own."""
    kw = dict(ratio=0.3, random_offset=False, unit_size_range=(4, 9), holes_number_xy=(3, 4),
              shift_xy=(2, 5), fill="random_uniform", fill_mask=3, p=0.4)
    t = W.GridDropout(**kw)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert repr(back) == repr(t) and back.config() == t.config()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.GridDropout(**kw), A.GridDropout()])
    ported = W.from_albumentations(theirs)
    assert ported.transforms[0].config() == t.config() and ported.transforms[0].p == 0.4
    assert ported.transforms[1].config() == W.GridDropout().config()


def test_refused_arguments(queue):
    with pytest.raises(ValueError, match="ratio must be in \\(0, 1\\], got 0"):
        W.GridDropout(ratio=0)
    with pytest.raises(ValueError, match="unit_size_range must be two whole numbers >= 2"):
        W.GridDropout(unit_size_range=(1, 4))
    with pytest.raises(ValueError, match="unit_size_range must be \\(low, high\\) with low <="):
        W.GridDropout(unit_size_range=(9, 4))
    with pytest.raises(ValueError, match="holes_number_xy must be two whole numbers >= 1"):
        W.GridDropout(holes_number_xy=(0, 4))
    with pytest.raises(ValueError, match="shift_xy must be two whole numbers >= 0, got \\(-1, "):
        W.GridDropout(shift_xy=(-1, 0))
    with pytest.raises(ValueError, match="GridDropout's fill must be.*inpaint_ns, got 'telea'"):
        W.GridDropout(fill="telea")
    with pytest.raises(ValueError, match="random_offset must be True or False"):
        W.GridDropout(random_offset=1)
    with pytest.raises(ValueError, match="unit_size_range \\(10, 60\\) must be within the "
                                         "shortest side.*80 x 50"):
        W.Compose([W.GridDropout(unit_size_range=(10, 60), p=1)])(
            image=np.zeros((50, 80, 3), np.uint8), seed=0, queue=queue)
