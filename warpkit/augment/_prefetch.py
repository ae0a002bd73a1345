"""Augmenting a loader's batches ahead of a training loop: :func:`batches` runs the pipeline
on a thread of its own, one batch (or ``prefetch``) ahead, so that drawing, packing and the
kernels of batch k + 1 run while the loop trains on batch k."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .._checks import count
from ._result import Result

__all__ = ["batches"]

#: the keys of a batch (a dict) that go to the pipeline call; the others pass through
_CALL_KEYS = ("image", "mask", "masks", "boxes", "labels", "keypoints")
_END = object()


def batches(loader: Iterable, pipeline: Any, *, seed: int | None = None, epoch: int = 0,
            prefetch: int = 1, call: dict | None = None) -> Iterator:
    """Each batch of ``loader`` through ``pipeline``, prepared on a thread of its own up to
    ``prefetch`` batches ahead of the loop that takes them.

    A batch is what a DataLoader with ``collate_fn=warpkit.augment.collate`` gives (any
    iterable of such batches will do):

    - a dict: its targets (``image``, ``mask``, ``masks``, ``boxes`` or ``bboxes``,
      ``keypoints``, the pipeline's label fields and additional targets) go to the pipeline;
      the result is the pipeline's dict with the batch's other keys beside it;
    - a tuple or list of columns (``(images, classes)``): the first is the images; the result
      is the same columns with the images augmented;
    - the images alone (a batch array or tensor, or a list of images): the augmented images.

    Each sample draws from its ``(seed, epoch, index)`` stream, so the results are those of
    calling the pipeline batch by batch: the indices are the batch's ``"index"`` entry where
    it has one (give the dataset's indices and a shuffled epoch replays exactly), else the
    count of samples before it in this pass; the epoch is ``epoch``, or the batch's
    ``"epoch"`` entry (one value for the whole batch, as :class:`EpochSampler` gives it); the
    seed is ``seed``, or the pipeline's own (``Compose(seed=...)``) where none is given.

    ``call``: keywords every call passes besides the batch's (HistogramMatching's reference
    images: ``call={"hm_metadata": refs}``); a batch's own entry of the same name wins.

    An error in the loader or the pipeline is raised by the loop at that batch; leaving the
    loop early stops the thread after the batch under way.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, RandomResizedCrop, batches
        >>> pipeline = Compose([RandomResizedCrop(32)], output_dtype="float32", layout="CHW")
        >>> loader = [{"image": np.zeros((4, 48, 64, 3), np.uint8), "index": [0, 1, 2, 3]}]
        >>> for batch in batches(loader, pipeline, seed=7, epoch=0):   # doctest: +SKIP
        ...     print(batch["image"].shape)          # a model's step would take it here
        (4, 3, 32, 32)
    """
    if not callable(pipeline):
        raise TypeError(f"pipeline must be a warpkit.augment pipeline, got "
                        f"{type(pipeline).__name__}")
    if isinstance(prefetch, bool) or not isinstance(prefetch, int) or prefetch < 1:
        raise ValueError(f"prefetch must be an integer >= 1 (batches ready ahead), got "
                         f"{prefetch!r}")
    if seed is None:
        seed = getattr(pipeline, "seed", None)
        if seed is None:
            raise ValueError("batches() needs seed= (the samples' streams are keyed on it), "
                             "or a pipeline with a seed of its own (Compose(seed=...))")
    count(seed, "seed", 0)
    count(epoch, "epoch", 0)
    if call is not None and not (isinstance(call, dict) and all(isinstance(k, str) for k in call)):
        raise TypeError(f"call must be a dict of keywords, got {type(call).__name__}")
    fixed = dict(call or {})
    clash = {"image", "seed", "epoch", "index"} & set(fixed)
    if clash:
        raise ValueError(f"call may not set {', '.join(sorted(clash))}: batches() gives them")
    return _Prefetched(loader, pipeline, seed, epoch, prefetch, fixed)


class _Prefetched:
    """The iterator :func:`batches` returns: a thread that fills a queue of at most
    ``prefetch`` finished batches (or the error that stopped it). The thread holds the queue
    and the stop flag, not this object, so that a loop left early drops the iterator and its
    finalizer stops the thread."""

    def __init__(self, loader: Iterable, pipeline: Any, seed: int, epoch: int,
                 prefetch: int, fixed: dict) -> None:
        self._ready: queue.Queue = queue.Queue(prefetch)
        self._stop = threading.Event()
        self._done = False
        threading.Thread(target=_fill, name="warpkit-batches", daemon=True,
                         args=(iter(loader), pipeline, seed, epoch, fixed, self._ready,
                               self._stop)).start()

    def __iter__(self) -> _Prefetched:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        res, error = self._ready.get()
        if error is not None or res is _END:
            self.close()
            if error is not None:
                raise error
            raise StopIteration
        return res

    def close(self) -> None:
        """Stop preparing batches (the one under way finishes); done on leaving a loop (when
        the iterator is dropped) or a ``with`` block."""
        self._done = True
        self._stop.set()

    def __enter__(self) -> _Prefetched:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _fill(items: Iterator, pipeline: Any, seed: int, epoch: int, fixed: dict,
          ready: queue.Queue, stop: threading.Event) -> None:
    """The thread's work: each item augmented into ``ready`` until the end, an error (queued
    for the loop to raise) or ``stop``."""
    start = 0
    try:
        for item in items:
            res, n = _augment(item, pipeline, seed, epoch, start, fixed)
            start += n
            if not _put(ready, stop, (res, None)):
                return
    except BaseException as e:  # noqa: BLE001  handed to the loop, raised there
        _put(ready, stop, (None, e))
        return
    _put(ready, stop, (_END, None))


def _put(ready: queue.Queue, stop: threading.Event, entry: tuple) -> bool:
    """Queue ``entry`` once there is room; False when the loop has stopped taking them."""
    while not stop.is_set():
        try:
            ready.put(entry, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def _augment(item: Any, pipeline: Any, seed: int, epoch: int, start: int,
             fixed: dict) -> tuple[Any, int]:
    """(one batch augmented, its sample count); ``fixed``: keywords of every call."""
    if isinstance(item, dict):
        if "image" not in item and "mask" not in item:
            raise ValueError(f"a batch given as a dict needs an 'image' (or 'mask') entry, got "
                             f"keys {sorted(item)}")
        n = _samples(item["image"] if "image" in item else item["mask"])
        keys = pipeline.call_keys() if hasattr(pipeline, "call_keys") else _CALL_KEYS
        call = {**fixed, **{k: item[k] for k in keys if k in item}}
        out = pipeline(**call, seed=seed, epoch=_epoch_of(item.get("epoch", epoch)),
                       index=item.get("index", start))
        rest = {k: v for k, v in item.items() if k not in call and k not in out}
        return Result({**rest, **{k: v for k, v in out.items() if k not in fixed or k in item}},
                      getattr(out, "records", None)), n
    if isinstance(item, (tuple, list)) and item and _is_column(item):
        n = _samples(item[0])
        res = pipeline(image=item[0], seed=seed, epoch=epoch, index=start, **fixed)["image"]
        return type(item)([res, *item[1:]]) if isinstance(item, list) else (res, *item[1:]), n
    return pipeline(image=item, seed=seed, epoch=epoch, index=start, **fixed)["image"], \
        _samples(item)


def _is_column(item: tuple | list) -> bool:
    """Whether a tuple or list is a batch's columns (its first entry holds the batch's images)
    rather than a list of images: a list of images has entries of one kind, each one image."""
    first = item[0]
    if isinstance(first, (list, tuple)):
        return True  # a ragged column of images
    ndim = getattr(first, "ndim", None)
    return ndim == 4 or (ndim is not None and any(getattr(x, "ndim", None) != ndim
                                                  for x in item[1:]))


def _samples(images: Any) -> int:
    """How many samples a batch's images hold."""
    shape = getattr(images, "shape", None)
    if shape is not None and len(shape) == 4:
        return int(shape[0])
    if isinstance(images, (list, tuple)):
        return len(images)
    return 1


def _epoch_of(value: Any) -> int:
    """A batch's epoch: one number, or one per sample that are all the same."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    a = np.asarray(value)  # a list, a numpy array or a CPU torch tensor (collate's)
    if a.ndim != 1 or not a.size or a.dtype.kind not in "iu" or (a != a[0]).any():
        raise ValueError(f"a batch's 'epoch' must be one integer, or one per sample all equal "
                         f"(a batch is augmented under one epoch), got {value!r:.100}")
    return int(a[0])
