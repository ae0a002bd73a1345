"""Overlapping augmentation with a training loop: results written into the caller's arrays
(out=), calls that return at once (Compose.submit) and batches prepared ahead of the loop
(warpkit.augment.batches), each giving the very results of plain calls."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from warpkit.augment import (Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop,
                             batches, collate)

PIPE = Compose([RandomResizedCrop(24, scale=(0.3, 1.0)), RandomHorizontalFlip(),
                RandomAffine(degrees=10)], output_dtype="float32", mean=(0.5, 0.4, 0.3),
               std=(0.2, 0.2, 0.2), layout="CHW")


def _photo(i: int) -> np.ndarray:
    return np.random.default_rng(i).integers(0, 256, (30 + 3 * (i % 5), 40 + 2 * (i % 3), 3),
                                             np.uint8)


def _samples(n: int) -> list[dict]:
    return [{"image": _photo(i), "index": i, "boxes": [[2, 3, 20, 25]], "labels": [i],
             "name": f"p{i}"} for i in range(n)]


def test_out_receives_the_result_in_place(queue):
    imgs = [_photo(i) for i in range(5)]
    want = PIPE(image=imgs, seed=4, queue=queue)["image"]
    into = np.full(want.shape, np.nan, np.float32)
    got = PIPE(image=imgs, seed=4, queue=queue, out=into)
    assert got["image"] is into and into.tobytes() == want.tobytes()
    one = np.empty((3, 24, 24), np.float32)  # a single image
    assert PIPE(image=imgs[0], seed=4, queue=queue, out=one)["image"] is one
    assert one.tobytes() == want[0].tobytes()
    batch = np.stack([imgs[0]] * 3)  # a uniform batch
    into = np.empty((3, 3, 24, 24), np.float32)
    PIPE(image=batch, seed=4, queue=queue, out=into)
    assert into.tobytes() == PIPE(image=batch, seed=4, queue=queue)["image"].tobytes()


def test_out_into_a_torch_tensor(queue):
    torch = pytest.importorskip("torch")
    imgs = [_photo(i) for i in range(3)]
    t = torch.zeros(3, 3, 24, 24)
    got = PIPE(image=imgs, seed=2, queue=queue, out=t)["image"]
    assert got is t
    assert np.array_equal(t.numpy(), PIPE(image=imgs, seed=2, queue=queue)["image"])


@pytest.mark.parametrize("bad, why", [
    (np.empty((5, 24, 24, 3), np.float32), "shape \\(5, 3, 24, 24\\)"),
    (np.empty((5, 3, 24, 24), np.float64), "float32 array"),
    (np.empty((5, 3, 24, 48), np.float32)[..., ::2], "not contiguous"),
    ([[0.0]], "got list"),
])
def test_a_wrong_out_is_refused_before_any_launch(bad, why, queue, monkeypatch):
    from warpkit import _op

    class Launched(Exception):
        pass

    def spy(*a, **k):
        raise Launched

    monkeypatch.setattr(_op, "launch", spy)
    images = [_photo(i) for i in range(5)]
    with pytest.raises(ValueError, match=why):
        PIPE(image=images, seed=1, queue=queue, out=bad)
    with pytest.raises(Launched):  # the spy sees launches: a right out gets that far
        PIPE(image=images, seed=1, queue=queue, out=np.empty((5, 3, 24, 24), np.float32))


def test_out_needs_one_result_array(queue):
    imgs = [_photo(0), _photo(1)]
    ragged = Compose([RandomAffine(degrees=5)])  # outputs keep their sizes: a list
    with pytest.raises(ValueError, match="one array"):
        ragged(image=imgs, seed=0, queue=queue, out=np.empty((2, 30, 40, 3), np.uint8))
    with pytest.raises(ValueError, match="give image="):
        ragged(mask=imgs[0][..., 0], seed=0, queue=queue, out=np.empty((30, 40), np.uint8))


def test_submit_returns_at_once_and_gives_the_calls_result(queue):
    imgs = [_photo(i) for i in range(6)]
    want = PIPE(image=imgs, seed=9, index=3, queue=queue)
    pending = PIPE.submit(image=imgs, seed=9, index=3, queue=queue)
    got = pending.result(timeout=60)
    assert got["image"].tobytes() == want["image"].tobytes()
    assert got["params"] == want["params"]
    failing = PIPE.submit(image=imgs, seed=-1, queue=queue)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        failing.result(timeout=60)


def test_batches_give_the_plain_calls_results(queue):
    pipe = Compose(PIPE.transforms, output_dtype="float32", layout="CHW")
    loader = [collate(_samples(12)[k:k + 4]) for k in range(0, 12, 4)]
    got = list(batches(loader, lambda **kw: pipe(**kw, queue=queue), seed=5, epoch=2,
                       prefetch=2))
    assert len(got) == 3
    for b, res in zip(loader, got):
        want = pipe(image=b["image"], boxes=b["boxes"], labels=b["labels"], seed=5, epoch=2,
                    index=b["index"], queue=queue)
        assert res["image"].tobytes() == want["image"].tobytes()
        assert all(np.array_equal(x, y) for x, y in zip(res["boxes"], want["boxes"]))
        assert res["name"] == b["name"] and res["index"] == b["index"]  # passed through
        assert res["params"] == want["params"]


def test_batches_without_indices_count_the_samples(queue):
    """Without an "index" entry, sample k of the pass has index k: the results of one call
    over the whole pass, and of columns (images, classes) alike."""
    imgs = [_photo(i) for i in range(9)]
    whole = PIPE(image=imgs, seed=3, queue=queue)["image"]
    pipe = lambda **kw: PIPE(**kw, queue=queue)  # noqa: E731
    chunks = [imgs[k:k + 3] for k in range(0, 9, 3)]
    got = np.concatenate(list(batches(chunks, pipe, seed=3)))
    assert got.tobytes() == whole.tobytes()
    cols = [(c, np.arange(3) + k) for k, c in enumerate(chunks)]
    res = list(batches(cols, pipe, seed=3))
    assert np.concatenate([r[0] for r in res]).tobytes() == whole.tobytes()
    assert [r[1].tolist() for r in res] == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    # a pipeline's own seed (Compose(seed=...)) where batches() is given none
    seeded = Compose.from_dict({**PIPE.to_dict(), "seed": 3})
    got = np.concatenate(list(batches(chunks, seeded)))
    assert got.tobytes() == whole.tobytes()
    with pytest.raises(ValueError, match=r"batches\(\) needs seed=.*or a pipeline with a seed"):
        batches(chunks, pipe)


def test_an_error_reaches_the_loop_at_its_batch(queue):
    def loader():
        yield [_photo(0)]
        yield [_photo(1)]
        raise OSError("disk gone")

    it = batches(loader(), lambda **kw: PIPE(**kw, queue=queue), seed=0)
    assert next(it).shape == (1, 3, 24, 24)
    assert next(it).shape == (1, 3, 24, 24)
    with pytest.raises(OSError, match="disk gone"):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    bad = batches([{"image": [_photo(0)], "epoch": [1, 2]}], PIPE, seed=0)
    with pytest.raises(ValueError, match="'epoch' must be one integer"):
        next(bad)


def test_leaving_the_loop_stops_the_thread(queue):
    taken = []

    def loader():
        for i in range(1000):
            taken.append(i)
            yield [_photo(i)]

    for k, _ in enumerate(batches(loader(), lambda **kw: PIPE(**kw, queue=queue), seed=0,
                                  prefetch=2)):
        if k == 2:
            break
    deadline = time.monotonic() + 10
    while any(t.name == "warpkit-batches" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the prefetching thread did not stop"
        time.sleep(0.02)
    assert len(taken) <= 3 + 2 + 2  # taken, queued, under way: not the whole loader


@pytest.mark.parametrize("kw, why", [({"prefetch": 0}, "prefetch must be"),
                                     ({"seed": -1}, "seed must be"),
                                     ({"epoch": 1.5}, "epoch must be")])
def test_batches_checks_its_arguments(kw, why):
    with pytest.raises(ValueError, match=why):
        batches([], PIPE, **{"seed": 0, **kw})
    with pytest.raises(TypeError, match="pipeline must be"):
        batches([], None, seed=0)


@pytest.mark.parametrize("kind", ["single", "list"])
def test_targets_move_while_the_kernels_run(kind, queue, monkeypatch):
    """A call's image and mask kernels are waited for once, after the boxes and keypoints have
    moved (the host's work beside the kernels), giving the same results; and when moving the
    targets raises, the kernels are still waited for before the error leaves the call (they
    read the call's arrays)."""
    from warpkit import _memory
    from warpkit.augment import _executor

    imgs = [_photo(i) for i in range(4)]
    masks = [(im[..., 0] > 128).astype(np.uint8) for im in imgs]
    boxes = [np.array([[2.0, 3.0, 20.0, 25.0]])] * 4
    kps = [np.array([[5.0, 6.0], [30.0, 20.0]])] * 4
    call = dict(image=imgs[0], mask=masks[0], boxes=boxes[0], labels=[1], keypoints=kps[0]) \
        if kind == "single" else dict(image=imgs, mask=masks, boxes=boxes, labels=[[1]] * 4,
                                      keypoints=kps)
    want = PIPE(**call, seed=9, queue=queue)
    order: list[str] = []
    finish, move = _memory.Output.finish, _executor.move_boxes

    def noted_finish(self, *a):
        order.append("wait")
        return finish(self, *a)

    def noted_move(*a, **k):
        order.append("boxes")
        return move(*a, **k)

    monkeypatch.setattr(_memory.Output, "finish", noted_finish)
    monkeypatch.setattr(_executor, "move_boxes", noted_move)
    got = PIPE(**call, seed=9, queue=queue)
    assert order == ["boxes", "wait", "wait"]  # the image's and the mask's, after the boxes
    for k in ("image", "mask", "boxes", "keypoints"):
        for a, b in zip(*((r[k],) if kind == "single" else r[k] for r in (got, want))):
            np.testing.assert_array_equal(a, b)

    def broken(*a, **k):
        raise RuntimeError("moving the boxes failed")

    order.clear()
    monkeypatch.setattr(_executor, "move_boxes", broken)
    with pytest.raises(RuntimeError, match="moving the boxes"):
        PIPE(**call, seed=9, queue=queue)
    assert order == ["wait", "wait"]
