"""Benchmark protocol of docs/performance.md: peers in one process, interleaved, medians of >= 9.

Every peer gets 2 threads. Ratios are peer time / warpkit time (> 1: warpkit is faster), printed
two ways: the ratio of the two medians, and in brackets the median of the per-round ratios (each
round runs every callable once, so a round's two times share the machine's state of that moment).
Shared machines here have slow phases lasting seconds; a phase that covers some rounds moves the
medians of the two sides by different amounts but leaves most per-round ratios alone.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from warpkit.runtime import profile

THREADS = 2


# Interleaving only measures fairly if no peer keeps spinning on the cores after its call:
# OpenMP (torch, cv2) and ONNX Runtime's pool busy-wait by default and would slow whatever runs
# next. These must be set before the peers load.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))


def set_threads() -> None:
    try:
        import torch

        torch.set_num_threads(THREADS)
    except ImportError:
        pass
    try:
        import cv2

        cv2.setNumThreads(THREADS)
    except ImportError:
        pass


def optional(name: str):
    """Import a peer, or print that it is skipped."""
    try:
        return __import__(name)
    except ImportError:
        print(f"[skip] {name} is not installed: its column is left out")
        return None


def ort_session(model_bytes: bytes):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


def profiling_queue(rt) -> cl.CommandQueue:
    return cl.CommandQueue(rt.context, rt.device,
                           properties=cl.command_queue_properties.PROFILING_ENABLE)


@dataclass(frozen=True)
class Timing:
    """One callable's samples (seconds), in round order."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)


def one_thread(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` with OpenCV on one thread (restored after), as one worker process of a pool runs
    it: the measurement behind :func:`ideal_scaling`."""
    import cv2

    def run():
        n = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            return fn()
        finally:
            cv2.setNumThreads(n)

    return run


def ideal_scaling(t: Timing, cores: int = THREADS) -> Timing:
    """A one-thread peer's time as ``cores`` worker processes would give it with perfect scaling
    and free transfer of the results: each sample divided by ``cores``. Never measured, and a
    bound no real pool reaches (a DataLoader's workers pickle every result back through a pipe):
    the peer's best case, so that a ratio against it is not inflated by the pool's overhead."""
    return Timing(tuple(s / cores for s in t.samples))


def interleaved(fns: dict[str, Callable[[], float | None]], samples: int = 9,
                warmup: int = 2) -> dict[str, Timing]:
    """Run each callable once per round, in a new shuffled order every round (seeded, so runs
    repeat); return name -> its :class:`Timing`.

    What ran before leaves caches, freed memory and sleeping threads behind: a call right after
    a memory-hungry peer measured up to 2x slower. A fixed or merely rotated order (A B C, B C A,
    C A B: A still always follows C) would hand every call the same predecessor in every round;
    shuffling gives each one a mix. A callable may return its own measured time (e.g. a
    kernel's device time); otherwise its wall time counts.
    """
    for _ in range(warmup):
        for f in fns.values():
            f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    names = list(fns)
    order = random.Random(0)
    for i in range(samples):
        order.shuffle(names)
        for k in names:
            f = fns[k]
            t0 = time.perf_counter()
            r = f()
            dt = time.perf_counter() - t0
            times[k].append(r if isinstance(r, float) else dt)
    return {k: Timing(tuple(v)) for k, v in times.items()}


def versus(ours: dict[str, Callable[[], float | None]], peers: dict[str, Callable[[], object]],
           samples: int) -> list[list[str]]:
    """Time warpkit's callables against each peer in a set of its own (``interleaved``), and
    return a row per peer: peer, its time, warpkit's e2e and kernel times in that set, and the
    peer / warpkit ratios (``ours`` holds "warpkit", the end-to-end call, and optionally
    "warpkit kernel"). With no peer installed, one row of warpkit's own times.

    Why a set per peer: a peer that runs 50-100 ms on one thread (Pillow's transform) leaves the
    other core idle that long, and on the VMs here an idle core comes back
    slowly: whatever 2-thread call follows runs up to 2x slower for a while, whoever made it
    (OpenCV's 1080p warp went 6.2 -> 8.0 ms with Pillow in its set, warpkit's 3.4 -> 6.2 ms).
    Pairing each peer with warpkit alone keeps every ratio to the two callables it compares.
    """
    kernel = "warpkit kernel" in ours
    rows = []
    for name, fn in (peers or {"-": None}).items():
        res = interleaved({**ours, **({name: fn} if fn else {})}, samples=samples)
        e2e, ker = res["warpkit"], res.get("warpkit kernel")
        row = [name, ms(res[name]) if fn else "-", ms(e2e), ms(ker) if kernel else "-"]
        row += [ratio(res[name], e2e) if fn else "-",
                ratio(res[name], ker) if fn and kernel else "-"]
        rows.append(row)
    return rows


def warpkit_calls(run: Callable[[cl.CommandQueue | None], object],
                  pq: cl.CommandQueue) -> dict[str, Callable[[], float | None]]:
    """``versus``' ``ours`` for one warpkit call: end to end (``run(None)``, the default queue)
    and its kernel time (``run(pq)`` on a profiling queue: OpenCL event times)."""

    def kernel_time() -> float:
        with profile() as prof:
            run(pq)
        return prof.kernel_seconds()

    return {"warpkit": lambda: run(None), "warpkit kernel": kernel_time}


#: the columns of :func:`versus`' rows
VERSUS = ["peer", "peer time", "warpkit e2e", "warpkit kernel", "peer / warpkit e2e",
          "peer / warpkit kernel"]


def table(title: str, rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
    out = [f"\n### {title}\n", line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def ms(t: Timing) -> str:
    return f"{t.median * 1e3:.2f} (min {t.min * 1e3:.2f})"


def paired(peer: Timing, ours: Timing) -> float:
    """The median over rounds of peer time / warpkit time."""
    return statistics.median(p / o for p, o in zip(peer.samples, ours.samples))


def ratio(peer: Timing, ours: Timing) -> str:
    """``peer median / our median`` and, in brackets, the median of the per-round ratios."""
    return f"{peer.median / ours.median:.2f}x ({paired(peer, ours):.2f}x)"


def random_affine_grid(rng: np.random.Generator, n: int, h: int, w: int) -> np.ndarray:
    """Normalized sampling grids of random affine maps (rotation, scale, shear, shift)."""
    ys = (2 * np.arange(h) + 1) / h - 1
    xs = (2 * np.arange(w) + 1) / w - 1
    base = np.stack(np.meshgrid(xs, ys), -1)  # (h, w, 2) x, y
    out = np.empty((n, h, w, 2), np.float32)
    for i in range(n):
        a = rng.uniform(-np.pi / 6, np.pi / 6)
        s = rng.uniform(0.8, 1.25)
        sh = rng.uniform(-0.1, 0.1)
        m = s * np.array([[np.cos(a), -np.sin(a) + sh], [np.sin(a), np.cos(a)]])
        t = rng.uniform(-0.1, 0.1, 2)
        out[i] = base @ m.T + t
    return out


def roi_case(rng: np.random.Generator, n: int = 2, c: int = 256, size: int = 64, r: int = 1000):
    """RoiAlign's benchmark inputs: X (n, c, size, size) float32, ``r`` ROIs of 4-32 pixels a
    side inside the image, and their batch indices."""
    X = rng.standard_normal((n, c, size, size)).astype(np.float32)
    xy = rng.uniform(0, size - 8, (r, 2))
    wh = rng.uniform(4, 32, (r, 2))
    rois = np.concatenate([xy, np.minimum(xy + wh, size)], 1).astype(np.float32)
    return X, rois, rng.integers(0, n, r).astype(np.int64)
