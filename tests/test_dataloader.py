"""warpkit.augment with a real torch.utils.data.DataLoader: the same samples with 0 or 2 worker
processes (spawn), per batch in the main process after collation, and the fork case."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from _augment_data import Photos, photo  # noqa: E402
from warpkit.augment import (Compose, RandomAffine, RandomHorizontalFlip,  # noqa: E402
                             RandomResizedCrop, collate)

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
