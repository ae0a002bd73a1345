"""Volumes (albumentations' ``volume=`` and ``mask3d=``) through a pipeline, one sample a call,
against albumentations 2.0.8 on the same volumes: 16 uint8 volumes of 48 x 96 x 96 with a mask
each, through a flip, a flip and Normalize, a turn, an elastic field, a grid distortion, and a
medical recipe of 3-D steps (a crop and the cube's symmetries from 64 x 128 x 128 volumes) with a
flip and Normalize. Peers in one process, interleaved (benchmarks/_harness.py); albumentations
with OpenCV on 2 threads and on 1 (2 ideal cores: its one-thread time halved, the worker pool's
best case).

    python benchmarks/bench_volumes.py [--samples 9]
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np

from _harness import ideal_scaling, interleaved, one_thread, optional, set_threads, table

N = 16


def cases(m):
    """name -> (the steps in module ``m``'s names, the volumes' shape)."""
    return {
        "flip": ([m.HorizontalFlip(p=1)], (48, 96, 96)),
        "flip + Normalize": ([m.HorizontalFlip(p=1), m.Normalize(mean=0.5, std=0.25)],
                             (48, 96, 96)),
        "turn (Rotate 20 degrees)": ([m.Rotate(limit=20, p=1)], (48, 96, 96)),
        "ElasticTransform": ([m.ElasticTransform(p=1)], (48, 96, 96)),
        "GridDistortion": ([m.GridDistortion(p=1)], (48, 96, 96)),
        "RandomCrop3D + CubicSymmetry + flip + Normalize": (
            [m.RandomCrop3D(size=(48, 96, 96)), m.CubicSymmetry(p=0.5), m.HorizontalFlip(),
             m.Normalize(mean=0.5, std=0.25)], (64, 128, 128)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=9)
    args = ap.parse_args()
    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    set_threads()
    import warpkit.augment as W

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = optional("albumentations")
    rng = np.random.default_rng(0)
    rows = []
    for name, (steps, shape) in cases(W).items():
        vols = [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(N)]
        masks = [(v > 128).astype(np.uint8) for v in vols]
        ours = W.Compose(steps)
        fns = {"warpkit": lambda: [ours(volume=v, mask3d=m, seed=0, index=i)
                                   for i, (v, m) in enumerate(zip(vols, masks))]}
        if A is not None:
            theirs = A.Compose(cases(A)[name][0])
            fns["albumentations, 2 threads"] = lambda: [theirs(volume=v, mask3d=m)
                                                        for v, m in zip(vols, masks)]
            fns["albumentations, 1 thread"] = one_thread(fns["albumentations, 2 threads"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = interleaved(fns, samples=args.samples)
        if "albumentations, 1 thread" in res:
            res["albumentations, 2 ideal cores"] = ideal_scaling(
                res.pop("albumentations, 1 thread"))
        best = res["warpkit"].median
        for who, t in res.items():
            rows.append([name, who, f"{t.median * 1e3 / N:.2f}", f"{t.median / best:.2f}x"])
    print(table(f"{N} volumes and their masks (uint8), one a call: ms per volume", rows,
                ["case", "who", "ms", "time / warpkit"]))


if __name__ == "__main__":
    main()
