"""A dataset for the DataLoader tests (a module of its own, so that spawned workers import it)."""

from __future__ import annotations

import warnings

import numpy as np
import torch

from warpkit.augment import Compose, RepeatedSampleWarning


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

    def __getitem__(self, i):
        if self.pipeline is None:  # raw samples: the main process augments whole batches
            return {"image": photo(i), "index": i}
        return self.augment(i, self.epoch), i

    def augment(self, i: int, epoch: int) -> torch.Tensor:
        if self._pipe is None:
            self._pipe = Compose.from_dict(self.pipeline)
        out = self._pipe(image=torch.from_numpy(photo(i)).permute(2, 0, 1), seed=self.seed,
                         epoch=epoch, index=i)
        return out["image"]


class KeyedPhotos(Photos):
    """Indexed by warpkit.augment.EpochSampler's (index, epoch) keys: the epoch comes with each
    index, so persistent workers see it change."""

    def __getitem__(self, key):
        i, epoch = key
        return self.augment(i, epoch), i, epoch


class WatchedPhotos(Photos):
    """Photos that also say whether the sample's call warned that it repeated one."""

    def __getitem__(self, i: int):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", RepeatedSampleWarning)
            image = self.augment(i, self.epoch)
        return image, i, any(issubclass(w.category, RepeatedSampleWarning) for w in seen)


#: real photos (scikit-image's) with hand-placed boxes around their objects, (x1, y1, x2, y2)
DETECTIONS = [("coffee", [[190, 20, 450, 300]], [1]),
              ("astronaut", [[140, 0, 370, 230], [350, 60, 480, 500]], [2, 3]),
              ("chelsea", [[60, 20, 300, 290]], [4]),
              ("rocket", [[290, 40, 360, 427]], [5])]


class Detections(torch.utils.data.Dataset):
    """A small detection set: raw photos, boxes and labels (the main process augments)."""

    def __len__(self) -> int:
        return len(DETECTIONS)

    def __getitem__(self, i: int):
        import skimage.data

        name, boxes, labels = DETECTIONS[i]
        return {"image": getattr(skimage.data, name)(), "boxes": np.array(boxes, np.float64),
                "labels": np.array(labels), "index": i}


class Segments(torch.utils.data.Dataset):
    """A small segmentation set: raw photos and a semantic mask of discs for each (the main
    process augments)."""

    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int):
        img = photo(i)
        h, w = img.shape[:2]
        rng = np.random.default_rng(i)
        yy, xx = np.ogrid[:h, :w]
        mask = np.zeros((h, w), np.uint8)
        for k in range(6):
            cy, cx, r = rng.integers(0, h), rng.integers(0, w), rng.integers(8, 30)
            mask[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = 1 + k % 3
        return {"image": img, "mask": mask, "index": i}


class SeededDraws(torch.utils.data.Dataset):
    """Calls of a pipeline with a seed of its own (albumentations' ``Compose(seed=...)``) and
    neither seed= nor index=: each item is its call's draws, as JSON."""

    def __init__(self, n: int, pipeline: dict) -> None:
        self.n, self.pipeline, self._pipe = n, pipeline, None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        import json

        if self._pipe is None:
            self._pipe = Compose.from_dict(self.pipeline)
        return json.dumps(self._pipe(image=photo(i))["params"], sort_keys=True)
