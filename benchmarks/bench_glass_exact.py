"""GlassBlur's two modes after the augmentation benchmark's geometry: RandomResizedCrop(224) +
flip + GlassBlur(p=1) (albumentations' defaults: sigma 0.7, max_delta 4, two rounds) to
normalised float32 CHW, 64 ragged photos, warpkit against albumentations in one process and
on 2 ideal cores, interleaved rounds (bench_augment.py's pass table). Apart from
bench_augment.py because albumentations' exact mode is a Python loop over the pairs: about
15 s a batch, a few minutes for this table.

    python benchmarks/bench_glass_exact.py [--samples 3]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_augment import pass_runs, pass_table, photos  # noqa: E402
from _harness import set_threads  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=3)
    args = ap.parse_args()
    set_threads()
    from warpkit.augment import GlassBlur

    exact = "warpkit, geometry and GlassBlur (exact) on every sample"
    runs = pass_runs(photos(), {
        exact: [GlassBlur(mode="exact", p=1)],
        "warpkit, geometry and GlassBlur (fast) on every sample": [GlassBlur(p=1)]},
        lambda A: [A.GlassBlur(mode="exact", p=1)],
        {"warpkit, geometry and GlassBlur (fast) on every sample": lambda A: [A.GlassBlur(p=1)]})
    pass_table(runs, exact, "GlassBlur's modes: RandomResizedCrop(224) + flip + GlassBlur(p=1), "
               "64 ragged photos -> float32 CHW", args)


if __name__ == "__main__":
    main()
