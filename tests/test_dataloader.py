"""warpkit.augment with a real torch.utils.data.DataLoader: the same samples with 0 or 2 worker
processes (spawn), per batch in the main process after collation, and the fork case."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from _augment_data import (KeyedPhotos, Photos, SeededDraws, WatchedPhotos,  # noqa: E402
                           photo)
from warpkit.augment import (Compose, EpochSampler, RandomAffine,  # noqa: E402
                             RandomHorizontalFlip, RandomResizedCrop, batches,
                             collate)

PIPE = Compose([RandomResizedCrop(32, scale=(0.3, 1.0)), RandomHorizontalFlip(),
                RandomAffine(degrees=10)], padding="reflect_101")


def _all(loader):
    out = {}
    for images, idx in loader:
        for img, i in zip(images, idx.tolist()):
            out[i] = img
    return out


def test_workers_do_not_change_the_samples():
    ds = Photos(12, PIPE.to_dict())
    alone = _all(torch.utils.data.DataLoader(ds, batch_size=4, num_workers=0))
    spawned = _all(torch.utils.data.DataLoader(ds, batch_size=4, num_workers=2,
                                               multiprocessing_context="spawn",
                                               persistent_workers=True))
    assert sorted(alone) == sorted(spawned) == list(range(12))
    for i in range(12):
        assert alone[i].shape == (3, 32, 32)
        assert torch.equal(alone[i], spawned[i]), i
    direct = PIPE(image=torch.from_numpy(photo(5)).permute(2, 0, 1), seed=3, index=5)["image"]
    assert torch.equal(direct, alone[5])


def _persistent(ds, **kw):
    return torch.utils.data.DataLoader(ds, batch_size=4, num_workers=2,
                                       multiprocessing_context="spawn", persistent_workers=True,
                                       **kw)


def test_the_epoch_reaches_persistent_workers_with_the_index():
    """EpochSampler hands each sample (index, epoch): with persistent workers, epoch 1 is not
    epoch 0 again, and every sample is the one a direct call with that epoch gives."""
    loader = _persistent(KeyedPhotos(8, PIPE.to_dict()), sampler=EpochSampler(8))
    epochs = []
    for _ in range(2):
        got = {}
        for images, idx, ep in loader:
            got.update({(i, e): img for img, i, e in zip(images, idx.tolist(), ep.tolist())})
        epochs.append(got)
    assert sorted(epochs[0]) == [(i, 0) for i in range(8)]
    assert sorted(epochs[1]) == [(i, 1) for i in range(8)]
    for (i, e), img in [*epochs[0].items(), *epochs[1].items()]:
        ref = PIPE(image=torch.from_numpy(photo(i)).permute(2, 0, 1), seed=3, index=i, epoch=e)
        assert torch.equal(img, ref["image"]), (i, e)
    assert sum(torch.equal(epochs[0][i, 0], epochs[1][i, 1]) for i in range(8)) == 0


def test_an_epoch_set_in_the_parent_that_never_arrives_warns():
    """The trap EpochSampler avoids: the epoch set on the dataset in the parent never reaches
    persistent workers, so epoch 1 repeats epoch 0; the workers say so
    (RepeatedSampleWarning) instead of training on repeats in silence."""
    ds = WatchedPhotos(8, PIPE.to_dict())
    loader = _persistent(ds)
    first = [w for _, _, warned in loader for w in warned.tolist()]
    ds.epoch = 1  # what a training loop does; the workers keep their copy's epoch 0
    second = [w for _, _, warned in loader for w in warned.tolist()]
    assert not any(first)
    assert any(second)


def test_epoch_sampler_passes_and_checks_epochs():
    class Dist:  # a DistributedSampler's interface
        def __init__(self):
            self.epochs = []

        def set_epoch(self, e):
            self.epochs.append(e)

        def __iter__(self):
            return iter([2, 0])

        def __len__(self):
            return 2

    s = EpochSampler(Dist(), epoch=5)
    assert len(s) == 2 and list(s) == [(2, 5), (0, 5)]
    s.set_epoch(9)
    assert list(s) == [(2, 9), (0, 9)] and s.sampler.epochs == [5, 9]
    assert list(s)[0].epoch == 10
    with pytest.raises(ValueError, match="epoch must be an integer >= 0, got -1"):
        s.set_epoch(-1)
    with pytest.raises(TypeError, match="sampler must be a count or an iterable"):
        EpochSampler(2.5)


def test_per_batch_in_the_main_process_after_collation():
    """Ragged raw samples collated by warpkit.augment.collate, augmented a batch at a time:
    each sample as if it had been augmented alone."""
    ds = Photos(10, None)
    loader = torch.utils.data.DataLoader(ds, batch_size=5, collate_fn=collate, num_workers=2,
                                         multiprocessing_context="spawn")
    for batch in loader:
        assert isinstance(batch["image"], list)  # ragged sizes stay a list
        out = PIPE(image=batch["image"], seed=3, index=list(batch["index"]))
        for img, i in zip(out["image"], batch["index"]):
            np.testing.assert_array_equal(img, PIPE(image=photo(i), seed=3, index=i)["image"])


def test_batches_ahead_of_a_training_loop():
    """warpkit.augment.batches over a real DataLoader (workers load, the main process augments
    a batch ahead of the loop, shuffled): each sample as if augmented alone, every epoch its
    own, into a model's step."""
    ds = Photos(12, None)
    loader = torch.utils.data.DataLoader(ds, batch_size=4, collate_fn=collate, num_workers=2,
                                         multiprocessing_context="spawn", shuffle=True,
                                         persistent_workers=True)
    model = torch.nn.Conv2d(3, 4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    seen = {}
    for epoch in range(2):
        for batch in batches(loader, PIPE, seed=3, epoch=epoch):
            x = torch.from_numpy(np.ascontiguousarray(batch["image"].transpose(0, 3, 1, 2)))
            loss = model(x.float() / 255).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            for img, i in zip(batch["image"], batch["index"]):
                seen[epoch, int(i)] = img
    assert len(seen) == 24
    for (epoch, i), img in seen.items():
        np.testing.assert_array_equal(
            img, PIPE(image=photo(i), seed=3, index=i, epoch=epoch)["image"])
    assert any(not np.array_equal(seen[0, i], seen[1, i]) for i in range(12))


def _forked_child(q):
    try:
        PIPE(image=photo(0), seed=0)
        q.put("ran")
    except RuntimeError as e:
        q.put(str(e))


def test_fork_after_the_parent_used_opencl_says_why():
    """PoCL's driver threads do not survive fork(): a child forked after the parent ran a kernel
    gets a clear error instead of hanging (the documented patterns: per batch in the main
    process, or spawn/forkserver workers)."""
    PIPE(image=photo(0), seed=0)  # the parent uses OpenCL
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_forked_child, args=(q,))
    p.start()
    p.join(120)
    msg = q.get(timeout=10)
    assert "forked after its parent used OpenCL" in msg and "spawn" in msg


def test_a_detection_set_through_box_safe_crops():
    """Real photos with their boxes through a DataLoader (workers load, collate keeps ragged
    images and boxes as lists) and a detection pipeline whose crops read the boxes: each sample
    as augmented alone, every box kept whole by the box-safe crop, labels in step."""
    from _augment_data import Detections
    from warpkit.augment import BBoxSafeRandomCrop, HorizontalFlip, LongestMaxSize, PadIfNeeded

    pipe = Compose([BBoxSafeRandomCrop(erosion_rate=0.0), LongestMaxSize(128),
                    PadIfNeeded(128, 128, border_mode=0, fill=114), HorizontalFlip()],
                   min_visibility=0.99)
    # (persistent workers: each spawn imports torch and warpkit, seconds of CI's CPU)
    loader = torch.utils.data.DataLoader(Detections(), batch_size=2, collate_fn=collate,
                                         num_workers=2, multiprocessing_context="spawn",
                                         persistent_workers=True)
    ds = Detections()
    for epoch in range(3):
        for batch in loader:
            out = pipe(image=batch["image"], boxes=batch["boxes"], labels=batch["labels"],
                       seed=1, epoch=epoch, index=list(batch["index"]))
            assert out["image"].shape[1:] == (128, 128, 3)
            for k, i in enumerate(batch["index"]):
                item = ds[int(i)]
                alone = pipe(image=item["image"], boxes=item["boxes"], labels=item["labels"],
                             seed=1, epoch=epoch, index=int(i))
                np.testing.assert_array_equal(out["image"][k], alone["image"])
                assert out["labels"][k].tolist() == item["labels"].tolist()  # all kept
                np.testing.assert_allclose(out["boxes"][k], alone["boxes"])


def test_a_detection_set_through_mosaic():
    """The same set through a DataLoader and a YOLO-style Mosaic pipeline (each sample with the
    batch's other photos): every box's label names an object of a photo its mosaic drew, its
    box lies on the canvas, and the batch replays from its keys."""
    from _augment_data import Detections
    from warpkit.augment import Affine, HorizontalFlip, LongestMaxSize, Mosaic, PadIfNeeded

    pipe = Compose([Mosaic(target_size=(192, 192), cell_shape=(160, 160), fill=114, p=1.0),
                    Affine(rotate=(-10, 10), border_mode=0, fill=114, p=1.0),
                    HorizontalFlip(), LongestMaxSize(160),
                    PadIfNeeded(160, 160, border_mode=0, fill=114)])
    loader = torch.utils.data.DataLoader(Detections(), batch_size=4, collate_fn=collate,
                                         num_workers=2, multiprocessing_context="spawn",
                                         persistent_workers=True)
    for epoch in range(2):
        for batch in loader:
            call = dict(image=batch["image"], boxes=batch["boxes"], labels=batch["labels"],
                        seed=3, epoch=epoch, index=list(batch["index"]))
            out = pipe(**call)
            assert out["image"].shape == (4, 160, 160, 3)
            for k in range(4):
                cells = out["params"][k]["steps"][0]["cells"]
                drawn = {k if src < 0 else src for *_, src in cells}
                allowed = {int(v) for j in drawn for v in batch["labels"][j]}
                assert set(out["labels"][k].tolist()) <= allowed
                b = np.asarray(out["boxes"][k]).reshape(-1, 4)
                assert (b >= 0).all() and (b <= 160).all()
            np.testing.assert_array_equal(pipe(**call)["image"], out["image"])


def test_a_segmentation_set_through_mask_dropout():
    """Photos with semantic masks through a DataLoader (workers load, warpkit.augment.collate
    keeps the ragged images and masks as lists) and a pipeline with MaskDropout per batch in
    the main process: each sample as augmented alone, its removed objects 0 in the mask."""
    from _augment_data import Segments
    from warpkit.augment import MaskDropout

    pipe = Compose([RandomResizedCrop(48, scale=(0.5, 1.0)), RandomHorizontalFlip(),
                    MaskDropout(max_objects=(1, 2), p=1)])
    loader = torch.utils.data.DataLoader(Segments(), batch_size=3, collate_fn=collate,
                                         num_workers=2, multiprocessing_context="spawn")
    ds, removed = Segments(), 0
    for batch in loader:
        out = pipe(image=batch["image"], mask=batch["mask"], seed=2,
                   index=list(batch["index"]))
        for k, i in enumerate(batch["index"]):
            item = ds[int(i)]
            alone = pipe(image=item["image"], mask=item["mask"], seed=2, index=int(i))
            np.testing.assert_array_equal(out["image"][k], alone["image"])
            np.testing.assert_array_equal(out["mask"][k], alone["mask"])
            for x1, y, x2, _ in out["params"][k]["steps"][2]["holes"]:
                assert not out["mask"][k][y, x1:x2].any()
                removed += 1
    assert removed


def test_a_seeded_pipeline_differs_across_workers_and_epochs_and_repeats_with_torch_seed():
    """Compose(seed=...) called without seed= or index=: each worker starts from a copy of the
    pipeline and its count of calls, so the count is keyed on the worker's torch seed too (new
    each epoch from torch's generator): no two draws of a run repeat, and torch.manual_seed
    repeats the run."""
    pipe = Compose([RandomResizedCrop(32, scale=(0.2, 1.0)), RandomAffine(degrees=30)], seed=5)
    ds = SeededDraws(8, pipe.to_dict())

    def run(epochs):
        torch.manual_seed(0)
        loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=2,
                                             multiprocessing_context="spawn")
        return [[d for batch in loader for d in batch] for _ in range(epochs)]

    first = run(2)
    drawn = [d for epoch in first for d in epoch]
    assert len(drawn) == 16 and len(set(drawn)) == 16
    assert run(1)[0] == first[0]
