"""A dataset for the DataLoader tests (a module of its own, so that spawned workers import it)."""

from __future__ import annotations

import numpy as np
import torch

from warpkit.augment import Compose


def photo(i: int) -> np.ndarray:
    """Sample i: a deterministic RGB image of a size that depends on i (ragged)."""
    rng = np.random.default_rng(i)
    return rng.integers(0, 256, (40 + 3 * (i % 4), 56 + 5 * (i % 3), 3), dtype=np.uint8)


class Photos(torch.utils.data.Dataset):
    """Per-sample augmentation in the workers: each item's stream is (seed, epoch, index)."""

    def __init__(self, n: int, pipeline: dict | None, seed: int = 3, epoch: int = 0) -> None:
        self.n, self.pipeline, self.seed, self.epoch = n, pipeline, seed, epoch
        self._pipe = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        if self.pipeline is None:  # raw samples: the main process augments whole batches
            return {"image": photo(i), "index": i}
        if self._pipe is None:
            self._pipe = Compose.from_dict(self.pipeline)
        out = self._pipe(image=torch.from_numpy(photo(i)).permute(2, 0, 1), seed=self.seed,
                         epoch=self.epoch, index=i)
        return out["image"], i
