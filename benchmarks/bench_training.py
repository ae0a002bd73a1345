"""A training loop's share of augmentation: a tiny CNN trained on 224x224 float32 CHW batches
of 32 from 256 ragged photos of 400-640 px (RandomResizedCrop(224) + flip + RandomAffine(15
degrees, 0.9-1.1) + normalisation), one epoch per round, rounds interleaved.

- warpkit, per batch in the main process: a DataLoader only collates the photos, held in
  memory (warpkit.augment.collate, no workers: nothing to decode), the pipeline runs in the
  loop; the same through warpkit.augment.batches (one batch prepared ahead, beside the model's
  step); and the same with the photos sent by 2 worker processes (spawn) as (C, H, W) tensor
  views, which travel through shared memory (what a loader that decodes in workers pays).
- albumentations 2.0.8 in the DataLoader's 2 worker processes (its usual setup; tensors come
  back through shared memory), persistent workers.

Reported: seconds per epoch, and the share of the epoch the loop spent waiting for augmented
batches (the time in the pipeline call, or in the loader's next()).

    python benchmarks/bench_training.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _harness import THREADS, optional, set_threads, table
from bench_augment import (MEAN, STD, albumentations_one, albumentations_pipeline,
                           one_cv2_thread, photos)

BATCH = 32


def tiny_cnn():
    import torch

    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 5, stride=4), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, stride=2), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10))


class Raw:
    """The photos as a DataLoader dataset: a dict per sample (warpkit augments whole batches),
    or albumentations' augmented CHW tensor when given its pipeline."""

    def __init__(self, data, alb=None):
        self.data, self.alb = data, alb

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        import torch

        if self.alb is None:  # a tensor travels through shared memory, an array is pickled
            return {"image": torch.from_numpy(self.data[i][0]).permute(2, 0, 1), "index": i,
                    "label": i % 10}
        return torch.from_numpy(albumentations_one(self.alb, self.data[i], False)), i % 10


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    set_threads()
    torch = optional("torch")
    if torch is None:
        return
    torch.set_num_threads(THREADS)
    from warpkit.augment import (Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop,
                                 batches, collate)

    data = photos(0) + photos(1) + photos(2) + photos(3)
    pipe = Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
                    RandomAffine(degrees=15, scale=(0.9, 1.1))], output_dtype="float32",
                   mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")
    model = tiny_cnn()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(x, y):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    # the photos are in memory: nothing to decode, so no workers (warpkit's best setup); the
    # same through 2 workers shows what sending decoded photos to the main process costs
    loaders = {0: torch.utils.data.DataLoader(Raw(data), batch_size=BATCH, shuffle=True,
                                              collate_fn=collate),
               THREADS: torch.utils.data.DataLoader(
                   Raw(data), batch_size=BATCH, shuffle=True, collate_fn=collate,
                   num_workers=THREADS, multiprocessing_context="spawn",
                   persistent_workers=True)}
    epoch = [0]

    def warpkit_loop(ahead: bool, workers: int = 0):
        epoch[0] += 1
        waited = 0.0
        raw = loaders[workers]
        t0 = time.perf_counter()
        it = iter(batches(raw, pipe, seed=0, epoch=epoch[0]) if ahead else raw)
        while True:
            w0 = time.perf_counter()
            b = next(it, None)
            if b is None:
                break
            if not ahead:
                b = {**b, **pipe(image=b["image"], seed=0, epoch=epoch[0], index=b["index"])}
            waited += time.perf_counter() - w0
            step(b["image"], torch.as_tensor(b["label"]))
        return time.perf_counter() - t0, waited

    runs = {"warpkit, per batch in the loop": lambda: warpkit_loop(False),
            "warpkit, batches() one ahead": lambda: warpkit_loop(True),
            "warpkit, batches(), photos sent by 2 workers": lambda: warpkit_loop(True, THREADS)}
    if optional("albumentations") is not None:
        alb = torch.utils.data.DataLoader(
            Raw(data, albumentations_pipeline(False)), batch_size=BATCH, shuffle=True,
            num_workers=THREADS, multiprocessing_context="spawn", persistent_workers=True,
            worker_init_fn=one_cv2_thread)

        def alb_loop():
            waited = 0.0
            t0 = time.perf_counter()
            it = iter(alb)
            while True:
                w0 = time.perf_counter()
                b = next(it, None)
                waited += time.perf_counter() - w0
                if b is None:
                    break
                step(*b)
            return time.perf_counter() - t0, waited

        runs["albumentations, DataLoader 2 workers"] = alb_loop
    for fn in runs.values():  # workers started, kernels built
        fn()
    got: dict[str, list] = {k: [] for k in runs}
    for _ in range(args.rounds):
        for k, fn in runs.items():
            got[k].append(fn())
    rows = []
    for k, v in got.items():
        total = float(np.median([t for t, _ in v]))
        share = float(np.median([w / t for t, w in v]))
        rows.append([k, f"{total:.2f}", f"{len(data) / total:.0f}", f"{100 * share:.0f}%"])
    print(table(f"Training a tiny CNN, {len(data)} photos a epoch, batches of {BATCH}",
                rows, ["augmentation", "s per epoch", "images/s", "waiting for batches"]))


if __name__ == "__main__":
    main()
