"""The epoch of a sample, carried to DataLoader workers with its index, and a warning when a
worker draws the same sample twice.

A DataLoader's workers hold copies of the dataset: with ``persistent_workers=True`` they keep
the copies they made at the first epoch, so an ``epoch`` attribute set on the dataset in the
parent never reaches them, and every epoch repeats the first one's augmentations. The indices
do reach them, every batch: :class:`EpochSampler` puts the epoch beside each index."""

from __future__ import annotations

import numbers
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from .._checks import count

__all__ = ["EpochSampler", "RepeatedSampleWarning", "SampleKey"]


class SampleKey(NamedTuple):
    """What :class:`EpochSampler` hands the dataset for one sample: its index and the epoch."""

    index: int
    epoch: int


class RepeatedSampleWarning(RuntimeWarning):
    """A DataLoader worker augmented the same ``(seed, epoch, index)`` twice: it got the same
    augmentation again, most often because the epoch did not reach the worker."""


class EpochSampler:
    """A DataLoader ``sampler`` that yields :class:`SampleKey` ``(index, epoch)`` pairs: the
    epoch travels to the workers with every index, so persistent workers see it change.

    Each pass over the sampler is the next epoch (the first is ``epoch``); :meth:`set_epoch`
    sets the one the next pass takes, and is passed on to the wrapped sampler where it has one
    (``DistributedSampler``).

    Args:
        sampler: the indices: a count n (0 .. n - 1 in order), or any sampler or iterable of
            indices (``torch.utils.data.RandomSampler(dataset)``, ``DistributedSampler``).
        epoch: the epoch of the first pass.

    Example:
        >>> s = EpochSampler(3)
        >>> [tuple(k) for k in s], [tuple(k) for k in s]
        ([(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 1), (2, 1)])

    The dataset takes the pair::

        def __getitem__(self, key):
            index, epoch = key
            return pipeline(image=load(index), seed=SEED, index=index, epoch=epoch)["image"]

        loader = DataLoader(dataset, sampler=EpochSampler(RandomSampler(dataset)),
                            batch_size=32, num_workers=4, persistent_workers=True)
    """

    def __init__(self, sampler: Iterable[int] | int, epoch: int = 0) -> None:
        if isinstance(sampler, numbers.Integral) and not isinstance(sampler, bool):
            sampler = range(count(sampler, "sampler", 0))
        elif not isinstance(sampler, Iterable):
            raise TypeError(f"sampler must be a count or an iterable of indices (a torch "
                            f"sampler), got {type(sampler).__name__}")
        self.sampler = sampler
        self.epoch = count(epoch, "epoch", 0)  #: the epoch of the pass under way (or the next)
        self._next = self.epoch

    def set_epoch(self, epoch: int) -> None:
        """The epoch of the next pass (and of the wrapped sampler's, where it has epochs)."""
        self._next = self.epoch = count(epoch, "epoch", 0)

    def __iter__(self) -> Iterator[SampleKey]:
        epoch = self.epoch = self._next
        self._next = epoch + 1
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)
        for i in self.sampler:
            yield SampleKey(int(i), epoch)

    def __len__(self) -> int:
        return len(self.sampler)  # type: ignore[arg-type]


#: keys drawn in this process (in a DataLoader worker only); every key while there are fewer
#: than _ALL, then one index in 16 (a repeated epoch still shows within a few dozen samples)
_SEEN: set = set()
_ALL = 1 << 16
_M64 = (1 << 64) - 1
_WARNED = False


def note_draws(seed: int, epoch: int, indices: Sequence[int]) -> None:
    """Warn (once per process) when a DataLoader worker draws a sample it drew before; outside
    workers (the main process, replays, tests) nothing is kept."""
    global _WARNED
    data = sys.modules.get("torch.utils.data")
    if _WARNED or data is None or data.get_worker_info() is None:
        return
    for index in indices:
        key = (seed, epoch, index)
        if key in _SEEN:
            _WARNED = True
            warnings.warn(
                f"sample (seed={seed}, epoch={epoch}, index={index}) was augmented before in "
                f"this DataLoader worker and gets the same augmentation again. If the epoch "
                f"should have changed (persistent_workers=True keeps the dataset the workers "
                f"copied, so an epoch set on it in the parent never arrives), pass it with "
                f"warpkit.augment.EpochSampler; if the repeat is meant, filter "
                f"warpkit.augment.RepeatedSampleWarning", RepeatedSampleWarning, stacklevel=5)  # the pipeline call
            return
        if len(_SEEN) < _ALL or (index * 0x9E3779B97F4A7C15) & _M64 < 1 << 60:
            if len(_SEEN) >= 4 * _ALL:
                _SEEN.clear()
            _SEEN.add(key)
