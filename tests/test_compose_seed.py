"""A pipeline's own seed (albumentations' ``Compose(seed=...)``): calls without ``seed=`` draw
from it, each call's samples at the pipeline's next indices, so two pipelines of one seed make
the same sequence and a pipeline's calls differ from one another; ``set_random_seed`` starts
it again; the seed survives to_dict / save / the port from albumentations."""

from __future__ import annotations

import json
import threading
import warnings

import numpy as np
import pytest

import warpkit.augment as W

PHOTO = np.random.default_rng(5).integers(0, 256, (60, 80, 3), np.uint8)
BOXES = [[4, 6, 40, 50], [30, 10, 70, 44]]


def _steps():
    return [W.RandomResizedCrop((40, 32), scale=(0.3, 1.0)), W.HorizontalFlip(),
            W.Affine(rotate=(-20, 20)), W.ColorJitter(0.3, 0.3, 0.3, 0.05, p=0.8)]


def _pipe(**kw):
    return W.Compose(_steps(), bbox_params=W.BboxParams("pascal_voc", ["labels"]), **kw)


def test_two_pipelines_of_one_seed_make_one_sequence_of_different_calls(queue):
    a, b = _pipe(seed=137), _pipe(seed=137)
    xs = [a(image=PHOTO, bboxes=BOXES, labels=[1, 2], queue=queue) for _ in range(4)]
    ys = [b(image=PHOTO, bboxes=BOXES, labels=[1, 2], queue=queue) for _ in range(4)]
    for x, y in zip(xs, ys):
        assert x["params"] == y["params"]
        assert np.array_equal(x["image"], y["image"])
        assert np.array_equal(x["bboxes"], y["bboxes"])
        assert x["seed"] == 137
    assert len({json.dumps(x["params"], sort_keys=True) for x in xs}) == 4
    other = _pipe(seed=138)(image=PHOTO, bboxes=BOXES, labels=[1, 2], queue=queue)
    assert other["params"] != xs[0]["params"]


def test_the_calls_take_the_next_indices_of_the_seed(queue):
    """Call k of single samples is the sample (seed, 0, k); a batch of n takes n indices: the
    same draws as the explicit keys, bit for bit."""
    seeded, plain = _pipe(seed=7), _pipe()
    batch = np.stack([PHOTO, PHOTO[::-1].copy(), PHOTO[:, ::-1].copy()])
    got = [seeded(image=PHOTO, queue=queue), seeded(image=PHOTO, queue=queue),
           seeded(image=batch, queue=queue), seeded(image=PHOTO, epoch=2, queue=queue)]
    want = [plain(image=PHOTO, seed=7, index=0, queue=queue),
            plain(image=PHOTO, seed=7, index=1, queue=queue),
            plain(image=batch, seed=7, index=2, queue=queue),
            plain(image=PHOTO, seed=7, index=5, epoch=2, queue=queue)]
    for g, w in zip(got, want):
        assert g["params"] == w["params"]
        assert np.array_equal(g["image"], w["image"])
    assert seeded.next_streams(0) == (7, 6)


def test_explicit_keys_leave_the_count_alone(queue):
    aug = _pipe(seed=7)
    first = aug(image=PHOTO, queue=queue)
    by_index = aug(image=PHOTO, index=40, queue=queue)  # (the pipeline's seed, that index)
    assert by_index["params"] == _pipe()(image=PHOTO, seed=7, index=40, queue=queue)["params"]
    by_seed = aug(image=PHOTO, seed=3, queue=queue)  # (that seed, index 0)
    assert by_seed["seed"] == 3
    assert by_seed["params"] == _pipe()(image=PHOTO, seed=3, queue=queue)["params"]
    replayed = aug(image=PHOTO, params=first["params"], queue=queue)
    assert np.array_equal(replayed["image"], first["image"]) and "seed" not in replayed
    second = aug(image=PHOTO, queue=queue)
    assert second["params"] == _pipe()(image=PHOTO, seed=7, index=1, queue=queue)["params"]


def test_set_random_seed_starts_the_sequence_again(queue):
    aug = _pipe(seed=11)
    first = [aug(image=PHOTO, queue=queue)["params"] for _ in range(3)]
    aug.set_random_seed(11)
    assert [aug(image=PHOTO, queue=queue)["params"] for _ in range(3)] == first
    aug.set_random_seed(None)
    fresh = [aug(image=PHOTO, queue=queue)["seed"] for _ in range(2)]
    assert fresh[0] != fresh[1]  # (fresh entropy each call, returned)
    with pytest.raises(ValueError, match="this pipeline has no seed"):
        aug.next_streams(1)


def test_calls_from_threads_take_indices_once_each():
    aug = W.Compose([W.HorizontalFlip()], seed=1)
    taken: list[int] = []

    def worker():
        for _ in range(200):
            taken.append(aug.next_streams(3)[1])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken) == list(range(0, 2400, 3))


def test_the_seed_is_written_and_read_back(tmp_path, queue):
    aug = _pipe(seed=137)
    assert aug.to_dict()["seed"] == 137 and "seed" not in _pipe().to_dict()
    for again in (W.Compose.from_dict(aug.to_dict()), W.from_dict(W.to_dict(aug))):
        assert again.seed == 137
    W.save(aug, str(tmp_path / "a.yaml"), data_format="yaml")
    loaded = W.load(str(tmp_path / "a.yaml"), data_format="yaml")
    assert loaded.seed == 137
    assert loaded(image=PHOTO, queue=queue)["params"] == aug(image=PHOTO, queue=queue)["params"]
    replay = W.ReplayCompose(_steps(), seed=5)
    out = replay(image=PHOTO, queue=queue)
    assert out["params"] == _pipe()(image=PHOTO, seed=5, queue=queue)["params"]
    again = W.ReplayCompose.replay(json.loads(json.dumps(out["replay"])), image=PHOTO,
                                   queue=queue)
    assert np.array_equal(again["image"], out["image"])


def test_bad_and_nested_seeds_are_refused():
    for bad in (-1, 1.5, True, "7"):
        with pytest.raises(ValueError, match="seed must be an integer >= 0, got"):
            W.Compose([W.HorizontalFlip()], seed=bad)
    inner = W.Compose([W.HorizontalFlip()], seed=3)
    with pytest.raises(ValueError, match="a Compose inside a pipeline draws from the outer "
                                         "pipeline's streams: give seed=3 to the outermost"):
        W.Compose([W.OneOf([inner, W.VerticalFlip()])])
    with pytest.raises(ValueError, match="a Sequential inside"):
        seq = W.Sequential([W.HorizontalFlip()])
        seq.set_random_seed(4)
        W.Compose([seq], seed=4)


def test_the_port_keeps_albumentations_seed(queue):
    A = pytest.importorskip("albumentations")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        live = A.Compose([A.HorizontalFlip(), A.Affine(rotate=(-10, 10))], seed=137)
        data = A.to_dict(live)
    ported = W.from_albumentations(live)
    assert ported.seed == 137  # (albumentations' to_dict leaves it out: read off the pipeline)
    assert W.from_albumentations(data).seed is None
    data["transform"]["seed"] = 9  # (a hand-written dict may carry it)
    assert W.from_albumentations(data).seed == 9
    twin = W.from_albumentations(live)
    for _ in range(3):  # as albumentations: two pipelines of one seed, one sequence
        x, y = ported(image=PHOTO, queue=queue), twin(image=PHOTO, queue=queue)
        assert x["params"] == y["params"] and np.array_equal(x["image"], y["image"])
