"""A call's result is albumentations' dict of the targets, the call's records (params, matrix,
size, seed, keypoints' visibility) beside its keys: a Dataset that returns the whole result to a
DataLoader's default collate runs as under albumentations (it failed on each sample's draws)."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import warpkit.augment as W
from warpkit.augment import Result

RNG = np.random.default_rng(2)
PHOTOS = [RNG.integers(0, 256, (90 + 7 * i, 120, 3), np.uint8) for i in range(8)]


def test_the_keys_are_the_targets_and_the_records_are_beside_them(queue):
    pipe = W.Compose([W.CenterCrop((60, 80)), W.HorizontalFlip()],
                     keypoint_params=W.KeypointParams("xy", remove_invisible=False))
    out = pipe(image=PHOTOS[0], mask=PHOTOS[0][..., 0], keypoints=[[60, 45], [500, 7]], note="a",
               seed=3, queue=queue)
    assert sorted(out) == ["image", "keypoints", "mask", "note"] and len(out) == 4
    for key in ("params", "matrix", "size", "seed", "keypoints_visible"):
        assert key in out and key not in out.keys()
        assert out[key] is out.records[key] is out.get(key) is getattr(out, key)
    assert out.seed == 3 and out.keypoints_visible.tolist() == [True, False]
    assert np.array_equal(pipe.replay(out["params"], image=PHOTOS[0])["image"], out["image"])
    assert {**out}.keys() == out.keys() and "params" not in dict(out)
    with pytest.raises(KeyError, match="nothing"):
        out["nothing"]
    with pytest.raises(AttributeError, match="'Result' object has no attribute 'nothing'"):
        out.nothing
    # a copy is of the targets; a pickle keeps both; a record set or taken stays a record
    assert not copy.copy(out).records and sorted(copy.copy(out)) == sorted(out)
    back = pickle.loads(pickle.dumps(out))
    assert back.params == out.params and sorted(back) == sorted(out)
    out["params"] = {"applied": False}
    assert out.params == {"applied": False} and "params" not in out.keys()
    assert out.pop("seed") == 3 and "seed" not in out
    del out["size"]
    assert "size" not in out and sorted(out.records) == ["keypoints_visible", "matrix", "params"]
    out["extra"] = 1
    assert out.keys() >= {"extra"}


def test_a_replay_compose_keeps_its_record_as_a_key(queue):
    out = W.ReplayCompose([W.HorizontalFlip()])(image=PHOTOS[0], seed=0, queue=queue)
    assert sorted(out) == ["image", "replay"] and "params" in out


def test_batches_keep_the_records():
    pipe = W.Compose([W.RandomResizedCrop(16)])
    loader = [{"image": np.stack([PHOTOS[0][:80]] * 2), "index": [0, 1], "name": ["a", "b"]}]
    (res,) = list(W.batches(loader, pipe, seed=1))
    assert sorted(res) == ["image", "index", "name"] and len(res.params) == 2
    assert res.params == pipe(image=loader[0]["image"], seed=1, index=[0, 1])["params"]


def _recipe(L, T):
    return L.Compose([L.RandomResizedCrop(size=(64, 64)), L.HorizontalFlip(),
                      L.OneOf([L.Blur(p=1), L.ColorJitter(p=1),
                               L.Affine(rotate=(-20, 20), p=1)], p=0.7),
                      L.CoarseDropout(p=0.5), L.Normalize(), T()])


def test_a_dataset_returning_whole_results_collates_as_albumentations():
    torch = pytest.importorskip("torch")
    A = pytest.importorskip("albumentations")
    from albumentations.pytorch import ToTensorV2

    class Photos(torch.utils.data.Dataset):
        def __init__(self, t):
            self.t = t

        def __len__(self):
            return len(PHOTOS)

        def __getitem__(self, i):
            return self.t(image=PHOTOS[i])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _recipe(A, ToTensorV2)
    for t in (theirs, _recipe(W, W.ToTensorV2), W.from_albumentations(theirs)):
        batches = list(torch.utils.data.DataLoader(Photos(t), batch_size=4))
        assert len(batches) == 2
        for b in batches:
            assert list(b) == ["image"] and b["image"].shape == (4, 3, 64, 64)
            assert b["image"].dtype == torch.float32
    assert isinstance(batches[0], Result) and not batches[0].records
