"""Host work per call on a cached plan: what a call costs the host, apart from the device's run.

Every call's arrays are already on the device (pyopencl arrays in, a pyopencl array out), its plan
is cached, and nothing waits. Two figures per call, each the median of 7 rounds of ``--calls``
calls:

- ``host``: the queue is held by a user event while the round runs, so the kernels are queued but
  none runs until the round has been timed. This is the host's own work (Python, pyopencl, the
  OpenCL implementation's enqueue): on a CPU device the kernels would otherwise run on the cores
  the host is timed on.
- ``rate``: the same calls with the device running, per call; on a CPU device the device's threads
  share the cores with the host (on this 2-core machine that adds ~8 us to a GridSample call).

    python benchmarks/bench_host.py [--calls 2000] [--device SPEC]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from _harness import table

import warpkit
from warpkit import augment


def per_call(q: cl.CommandQueue, fn: Callable[[], object], calls: int, held: bool) -> float:
    """Median over 7 rounds of the host seconds per call (``held``: the queue waits on a user
    event until the round is timed)."""
    for _ in range(50):
        fn()
    q.finish()
    rounds = []
    for _ in range(7):
        gate = cl.UserEvent(q.context) if held else None
        if gate is not None:
            cl.enqueue_marker(q, wait_for=[gate])
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - t0) / calls)
        if gate is not None:
            gate.set_status(cl.command_execution_status.COMPLETE)
        q.finish()
    return statistics.median(rounds)


def cases(q: cl.CommandQueue) -> dict[str, tuple[Callable[[], object], int]]:
    """name -> (the call, how many calls a round makes relative to --calls: 1 or 1/10)."""
    rng = np.random.default_rng(0)
    dev = lambda a: cla.to_device(q, a)  # noqa: E731
    X = dev(rng.standard_normal((1, 3, 64, 64)).astype(np.float32))
    grid = dev(rng.uniform(-1, 1, (1, 32, 32, 2)).astype(np.float32))
    theta = dev(np.tile(np.array([[1, 0.1, 0], [0, 1, 0.2]], np.float32), (2, 1, 1)))
    rois = dev(np.array([[2, 3, 40, 50], [0, 0, 63, 63]], np.float32))
    bidx = dev(np.zeros(2, np.int64))
    img = dev(rng.integers(0, 256, (64, 64, 3), dtype=np.uint8))
    batch = dev(rng.integers(0, 256, (8, 64, 64, 3), dtype=np.uint8))
    m = np.array([[1, 0.1, 2], [0, 1, 1]])
    pipe = augment.Compose([augment.RandomResizedCrop(48, p=1.0),
                            augment.RandomHorizontalFlip(), augment.RandomAffine(degrees=15)])
    seeds = iter(range(1 << 30))
    return {
        "GridSample linear": (lambda: warpkit.grid_sample(X, grid, "linear", "zeros", 0), 1),
        "GridSample cubic border": (lambda: warpkit.grid_sample(X, grid, "cubic", "border"), 1),
        "AffineGrid": (lambda: warpkit.affine_grid(theta, (2, 3, 32, 32)), 1),
        "RoiAlign": (lambda: warpkit.roi_align(X, rois, bidx, output_height=7,
                                               output_width=7), 1),
        "warp_affine uint8": (lambda: warpkit.warp_affine(img, m, (64, 64)), 1),
        "augment step, 8 images": (lambda: pipe(image=batch, seed=next(seeds)), 10),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--device", default=None)
    a = ap.parse_args()
    rt = warpkit.set_device(a.device) if a.device else warpkit.get_runtime()
    q = rt.queue
    print(f"device: {rt.describe()}")
    rows = []
    for name, (fn, div) in cases(q).items():
        n = max(a.calls // div, 20)
        host = per_call(q, fn, n, held=True)
        rate = per_call(q, fn, n, held=False)
        rows.append([name, f"{host * 1e6:.1f} us", f"{rate * 1e6:.1f} us"])
    print(table("host work per cached call on device arrays", rows,
                ["call", "host (device held)", "per call (device running)"]))


if __name__ == "__main__":
    main()
