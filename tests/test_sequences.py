"""Sequential and ReplayCompose under albumentations' names and parameters, so that code written
with them ports by its import: Sequential applies its transforms all or none with its p;
ReplayCompose's result holds a record that ReplayCompose.replay applies to other targets."""

from __future__ import annotations

import json
import warnings

import albumentations as A
import numpy as np
import pytest

import warpkit.augment as W

RNG = np.random.default_rng(3)
PHOTO = RNG.integers(0, 256, (24, 36, 3), np.uint8)
OTHER = RNG.integers(0, 256, (24, 36, 3), np.uint8)


def _quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def test_sequential_applies_all_or_none_as_albumentations(queue):
    """Two flips in a Sequential: the photo turned half a turn or left as it is, never one
    flip; applied, albumentations' pixels; the share of samples it changes at p=0.3 is
    albumentations' (2000 samples each, within 5 sigma)."""
    def steps(m, p):
        return [m.Sequential([m.HorizontalFlip(p=1), m.VerticalFlip(p=1)], p=p)]

    ours = W.Compose(steps(W, 1.0))(image=PHOTO, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Compose, steps(A, 1.0))(image=PHOTO)["image"]
    assert np.array_equal(ours, theirs) and np.array_equal(ours, PHOTO[::-1, ::-1])
    ours_p, theirs_p = W.Compose(steps(W, 0.3)), _quiet(A.Compose, steps(A, 0.3))
    theirs_p.set_random_seed(0)
    counts = []
    for run in (lambda s: ours_p(image=PHOTO, seed=s, queue=queue)["image"],
                lambda s: _quiet(theirs_p, image=PHOTO)["image"]):
        seen = [run(s) for s in range(2000)]
        assert all(np.array_equal(x, PHOTO) or np.array_equal(x, PHOTO[::-1, ::-1])
                   for x in seen)
        counts.append(sum(not np.array_equal(x, PHOTO) for x in seen))
    assert abs(counts[0] - counts[1]) < 5 * np.sqrt(2 * 2000 * 0.3 * 0.7), counts
    assert W.Sequential([W.HorizontalFlip()]).p == 0.5  # (albumentations' default)
    again = W.from_dict(W.Compose(steps(W, 0.3)).to_dict()).transforms[0]
    assert type(again) is W.Sequential and again.p == 0.3


def test_replay_compose_replays_its_record_on_other_targets(queue):
    """The same code with either import: out["replay"] applied to another image gives the
    draw the first call made (albumentations': the same map on both); the record is plain
    data; warpkit's own replay of out["params"] agrees; a batch's record replays a batch."""
    def steps(m):
        return [m.HorizontalFlip(), m.Affine(rotate=(-25, 25), p=0.8),
                m.RandomBrightnessContrast(p=0.5)]

    for seed in range(4):
        aug = W.ReplayCompose(steps(W))
        out = aug(image=PHOTO, seed=seed, queue=queue)
        rec = json.loads(json.dumps(out["replay"]))  # (plain data, kept by JSON)
        same = W.ReplayCompose.replay(rec, image=PHOTO, queue=queue)
        assert np.array_equal(same["image"], out["image"])
        other = W.ReplayCompose.replay(rec, image=OTHER, queue=queue)
        want = aug.replay(out["params"], image=OTHER, queue=queue)
        assert np.array_equal(other["image"], want["image"])
        assert np.array_equal(other["matrix"], out["matrix"])
    theirs = _quiet(A.ReplayCompose, steps(A))
    got = _quiet(theirs, image=PHOTO)
    assert np.array_equal(_quiet(A.ReplayCompose.replay, got["replay"], image=PHOTO)["image"],
                          got["image"])  # (the contract both keep)
    batch = np.stack([PHOTO, OTHER])
    out = W.ReplayCompose(steps(W))(image=batch, seed=9, queue=queue)
    again = W.ReplayCompose.replay(out["replay"], image=batch[::-1].copy(), queue=queue)
    assert np.array_equal(again["matrix"], out["matrix"])


def test_replay_compose_ports_with_its_save_key(queue):
    recipe = _quiet(A.ReplayCompose, [A.HorizontalFlip(p=1), A.Affine(rotate=(10, 10), p=1)],
                    save_key="r")
    aug = W.from_albumentations(recipe)
    assert type(aug) is W.ReplayCompose and aug.save_key == "r"
    out = aug(image=PHOTO, seed=0, queue=queue)
    theirs = _quiet(recipe, image=PHOTO)
    assert np.abs(out["image"].astype(int) - theirs["image"]).max() <= 1
    assert np.array_equal(W.ReplayCompose.replay(out["r"], image=PHOTO, queue=queue)["image"],
                          out["image"])
    assert W.from_dict(aug.to_dict()).save_key == "r"


@pytest.mark.parametrize("kw,pattern", [
    ({"save_key": ""}, r"save_key must be a non-empty string, got ''"),
    ({"save_key": "image"}, r"save_key='image' names one of the call's results"),
    ({"save_key": "labels"}, r"save_key='labels' names one of the call's results"),
    ({"save_key": "volume"}, r"save_key='volume' names one of the call's results"),
    ({"save_key": "applied_transforms"}, r"save_key='applied_transforms' names one of the"),
])
def test_a_save_key_that_would_overwrite_a_result_is_refused(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        W.ReplayCompose([W.HorizontalFlip()], **kw)


def test_replay_on_the_class_needs_a_record():
    with pytest.raises(ValueError, match=r"ReplayCompose.replay takes a call's record, "
                                         r"out\[save_key\] \(a dict of 'pipeline' and "
                                         r"'params'\), got list"):
        W.ReplayCompose.replay([{}], image=PHOTO)
