"""PoCL's kernels built for another LLVM CPU: the benchmark's batch (64 ragged photos through
RandomResizedCrop(224) + flip + RandomAffine to float32 CHW, and the same with ColorJitter +
ToGray) timed with PoCL's own CPU name and with the ones given, each in a process of its own
with empty caches (a build for one CPU must not load for another), names alternating rounds.

The name goes where ``warpkit._pocl_cpu`` writes one for a CPU PoCL's LLVM calls ``generic``:
into the string PoCL's device holds (only within the bytes ``malloc`` gave it; a longer name is
left out, and the row says so). PoCL from pip only; figures in docs/performance.md.

    python benchmarks/bench_pocl_cpu.py [--rounds 3] [--names sapphirerapids haswell ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from _harness import table

NAMES = ["sapphirerapids", "icelake-server", "skylake-avx512", "haswell", "x86-64-v3"]


def one(name: str) -> dict:
    """In this process (fresh caches set by the caller): ms per batch, medians of 15 calls."""
    import time

    import numpy as np
    import pyopencl as cl

    import warpkit._pocl_cpu as P
    from warpkit.augment import (ColorJitter, Compose, RandomAffine, RandomHorizontalFlip,
                                 RandomResizedCrop, ToGray)

    import bench_augment as B

    written = None
    if name != "default":
        dev = next(d for p in cl.get_platforms() for d in p.get_devices()
                   if "portable computing language" in p.name.lower())
        own = dev.version.rstrip().rsplit("-", 1)[-1].encode() + b"\0"
        P._GENERIC = own  # (the name PoCL holds, found as _pocl_cpu finds "generic")
        os.environ["WARPKIT_POCL_CPU"] = name
        written = P._write_cpu(int(dev.int_ptr))
        P._DONE[int(dev.int_ptr)] = written
        if written is None:
            return {"name": name, "written": None}
    images = [d[0] for d in B.photos()]
    kw = dict(output_dtype="float32", mean=B.MEAN.tolist(), std=B.STD.tolist(), layout="CHW")
    geo = [RandomResizedCrop(224), RandomHorizontalFlip()]
    pipes = {"images only": Compose([*geo, RandomAffine(degrees=15, scale=(0.9, 1.1))], **kw),
             "ColorJitter + ToGray": Compose([*geo, ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8),
                                              ToGray(p=0.2)], **kw)}
    out = {"name": name, "written": written or "PoCL's own"}
    for case, pipe in pipes.items():
        pipe(image=images, seed=0)  # (the build)
        ts = []
        for e in range(15):
            t0 = time.perf_counter()
            pipe(image=images, seed=0, epoch=e + 1)
            ts.append(time.perf_counter() - t0)
        out[case] = float(np.median(ts)) * 1e3
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--names", nargs="*", default=NAMES)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    runs: dict[str, list[dict]] = {}
    for _ in range(args.rounds):
        for name in ["default", *args.names]:
            with tempfile.TemporaryDirectory() as tmp:
                env = {**os.environ, "XDG_CACHE_HOME": tmp, "POCL_CACHE_DIR": tmp + "/pocl"}
                res = subprocess.run([sys.executable, __file__, "--one", name], env=env,
                                     capture_output=True, text=True, check=True,
                                     cwd=os.path.dirname(os.path.abspath(__file__)))
                runs.setdefault(name, []).append(json.loads(res.stdout.splitlines()[-1]))
    rows = []
    for name, rs in runs.items():
        if rs[0]["written"] is None:
            rows.append([name, "not written (longer than PoCL's string)", "", ""])
            continue
        span = {case: f"{min(r[case] for r in rs):.1f}-{max(r[case] for r in rs):.1f}"
                for case in ("images only", "ColorJitter + ToGray")}
        rows.append([name, rs[0]["written"], span["images only"], span["ColorJitter + ToGray"]])
    print(table(f"PoCL's CPU name: ms per 64 photos, {args.rounds} rounds (min-max of medians)",
                rows, ["name", "built for", "images only", "ColorJitter + ToGray"]))


if __name__ == "__main__":
    main()
