"""XYMasking (warpkit.augment._dropout) against albumentations 2.0.8 itself: the image and masks
pixel for pixel as its own dropout of the recorded stripes, boxes and keypoints as its filters,
the stripes drawn by its rules; ported, serialised, refused where it refuses."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import dropout_runs

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A



@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("kw", [dict(num_masks_x=(1, 3), mask_x_length=(10, 60)),
                                dict(num_masks_x=2, mask_x_length=(0, 9), num_masks_y=(1, 2),
                                     mask_y_length=(100, 200)),
                                dict(num_masks_y=(3, 3), mask_y_length=512)], ids=str)
def test_stripes_are_albumentations_with_the_recorded_holes(kw, dtype, queue):
    """Image and mask pixel for pixel as albumentations' dropout of the same stripes; boxes
    kept, dropped and shrunk as its filter; keypoints in a stripe gone."""
    _, cut = dropout_runs(lambda fill: (W.XYMasking(fill=fill, fill_mask=7, p=1, **kw),
                                        A.XYMasking(fill=fill, fill_mask=7, p=1, **kw)),
                          dtype, queue, range(5), 0.6)
    assert cut or kw.get("mask_x_length") == (10, 60)


def test_stripes_drawn_as_albumentations():
    """Counts and lengths over their whole ranges, both ends included; vertical stripes the
    image's height at x in [0, W - length], horizontal ones its width: as albumentations' own
    draws (the same sets of counts and lengths over many seeds)."""
    kw = dict(num_masks_x=(1, 3), mask_x_length=(2, 6), num_masks_y=(0, 2), mask_y_length=(4, 5))
    ours, theirs = W.XYMasking(p=1, **kw), A.XYMasking(p=1, **kw)
    got, want = [], []
    for seed in range(300):
        for holes, bucket in ((ours.draw(np.random.default_rng(seed), (40, 30))["holes"], got),
                              (_their_holes(theirs, seed), want)):
            h = np.asarray(holes, np.int64).reshape(-1, 4)
            vertical = (h[:, 1] == 0) & (h[:, 3] == 30) & (h[:, 2] - h[:, 0] <= 6)
            assert ((h[:, :2] >= 0) & (h[:, 2:] <= [40, 30])).all()
            bucket.append((int(vertical.sum()), len(h) - int(vertical.sum()),
                           tuple(sorted(set((h[vertical, 2] - h[vertical, 0]).tolist()))),
                           tuple(sorted(set((h[~vertical, 3] - h[~vertical, 1]).tolist())))))
    for k in range(2):
        assert {g[k] for g in got} == {w[k] for w in want}
    assert set().union(*[g[2] for g in got]) == set().union(*[w[2] for w in want]) == \
        {2, 3, 4, 5, 6}
    assert set().union(*[g[3] for g in got]) == {4, 5}


def _their_holes(t, seed: int) -> list:
    t.set_random_seed(seed)
    return t.get_params_dependent_on_data({"shape": (30, 40)}, {})["holes"].tolist()


def test_ported_serialised_and_refused(queue):
    t = W.XYMasking(num_masks_x=(1, 2), mask_x_length=(3, 9), num_masks_y=4, mask_y_length=6,
                    fill="random_uniform", fill_mask=2, p=0.7)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.XYMasking(num_masks_x=(1, 2), mask_x_length=(3, 9), num_masks_y=4,
                                        mask_y_length=6, fill="random_uniform", fill_mask=2,
                                        p=0.7)])
    (ported,) = W.from_albumentations(theirs).transforms
    assert ported.config() == t.config() and ported.p == 0.7
    # albumentations' defaults (no lengths: nothing drawn, nothing changed) port and run
    img = np.full((30, 40, 3), 100, np.uint8)
    for kw in ({}, {"num_masks_x": 3}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = A.Compose([A.XYMasking(**kw, p=1)])
        out = W.from_albumentations(theirs)(image=img, seed=0, queue=queue)
        assert out["params"]["steps"][0]["holes"] == []
        np.testing.assert_array_equal(out["image"], theirs(image=img)["image"])
    with pytest.raises(ValueError, match="num_masks_x must be \\(low, high\\) with low <= high"):
        W.XYMasking(num_masks_x=(3, 1), mask_x_length=4)
    with pytest.raises(ValueError, match="mask_y_length must be two whole numbers >= 0"):
        W.XYMasking(mask_y_length=(1.5, 3))
    with pytest.raises(ValueError, match="mask_x_length \\(0, 90\\) reaches past the image's "
                                         "side of 80 pixels"):
        W.Compose([W.XYMasking(num_masks_x=1, mask_x_length=90, p=1)])(
            image=np.zeros((50, 80, 3), np.uint8), seed=0, queue=queue)


def _spec(name: str, *args, **kw):
    """albumentations' SpecAugment transform (it warns that it is an alias)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(A, name)(*args, **kw)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_time_and_frequency_masks_are_albumentations(dtype, queue):
    """TimeMasking and FrequencyMasking: none or one stripe of 0 in the image and the masks,
    pixel for pixel as albumentations' own of the recorded stripe, boxes and keypoints as its
    filters; drawn by its rules (a count of 0 or 1, lengths 0 to the parameter)."""
    for name, param, vertical in (("TimeMasking", 300, True), ("FrequencyMasking", 200, False)):
        ours, theirs = getattr(W, name)(param, p=1), _spec(name, param, p=1)
        outs, cut = dropout_runs(lambda fill: (ours, theirs), dtype, queue, range(6), 0.6)
        assert cut
        for out in outs:
            for x1, y1, x2, y2 in out["params"]["steps"][0]["holes"]:
                assert (y1, y2) == (0, 512) if vertical else (x1, x2) == (0, 512)
        small, theirs_small = getattr(W, name)(12, p=1), _spec(name, 12, p=1)
        drawn = {"ours": set(), "theirs": set()}
        for seed in range(300):
            for who, holes in (("ours", small.draw(np.random.default_rng(seed), (40, 30))["holes"]),
                               ("theirs", _their_holes(theirs_small, seed))):
                h = np.asarray(holes, np.int64).reshape(-1, 4)
                assert len(h) <= 1
                length = (h[:, 2] - h[:, 0]) if vertical else (h[:, 3] - h[:, 1])
                drawn[who] |= {(len(h), *length.tolist())}
        assert drawn["ours"] == drawn["theirs"] == {(0,)} | {(1, n) for n in range(13)}


def test_time_reverse_is_albumentations(queue):
    """TimeReverse: albumentations' alias of HorizontalFlip, image, mask, boxes and keypoints."""
    import skimage.data

    img = skimage.data.coffee()
    boxes = np.array([[10, 20, 100, 200], [300, 40, 590, 390]], np.float32)
    kps = np.array([[0.0, 0.0], [599.0, 12.5], [321.25, 200.0]])
    out = W.Compose([W.TimeReverse(p=1)])(image=img, mask=img[..., 0], boxes=boxes,
                                          labels=[1, 2], keypoints=kps, seed=0, queue=queue)
    theirs = _spec("Compose", [_spec("TimeReverse", p=1)],
                   bbox_params=A.BboxParams("pascal_voc", label_fields=["labels"]),
                   keypoint_params=A.KeypointParams("xy"))
    want = theirs(image=img, mask=img[..., 0], bboxes=boxes, labels=[1, 2], keypoints=kps)
    np.testing.assert_array_equal(out["image"], want["image"])
    np.testing.assert_array_equal(out["mask"], want["mask"])
    np.testing.assert_allclose(out["boxes"], want["bboxes"], atol=1e-4)
    np.testing.assert_allclose(out["keypoints"], want["keypoints"], atol=1e-4)


def test_spec_masks_ported_serialised_and_refused():
    recipe = _spec("Compose", [_spec("TimeMasking", 25, p=0.7), _spec("FrequencyMasking", p=1),
                               _spec("TimeReverse", p=0.4)])
    for given in (recipe, A.to_dict(recipe)):
        ours = W.from_albumentations(given)
        assert [(type(t).__name__, t.config(), t.p) for t in ours.transforms] == [
            ("TimeMasking", {"time_mask_param": 25}, 0.7),
            ("FrequencyMasking", {"freq_mask_param": 30}, 1.0), ("TimeReverse", {}, 0.4)]
        assert W.Compose.from_dict(ours.to_dict()).to_dict() == ours.to_dict()
    changed = _spec("TimeMasking", 10, p=1)
    changed.fill = 3
    with pytest.raises(ValueError, match=r"TimeMasking\(fill=3\) is not supported: warpkit "
                                         r"takes fill=0.0 \(as TimeMasking sets it\)"):
        W.from_albumentations(_spec("Compose", [changed]))
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="time_mask_param must be a whole number above 0"):
            W.TimeMasking(bad)
    with pytest.raises(ValueError, match="freq_mask_param must be a whole number above 0"):
        W.FrequencyMasking(0)
