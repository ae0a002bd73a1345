"""Files per second: the single-process command line's code path against warpkit.dist on a local
Dask cluster, and the engine's per-file overhead.

200 JPEG photos (640x480, written once to a temporary directory) are warped (rotate 12, expand)
and augmented (4 copies each); each run writes into a fresh directory. The Dask runs use a
LocalCluster on 127.0.0.1 started once (its start-up is reported apart), 1 and 2 worker
processes; the overhead is measured with a job that does nothing but return (the engine's
submission, scheduling, manifest and result handling per file).

    python benchmarks/bench_dist.py [--files 200] [--rounds 3]

On this 2-core host the single process already uses both cores (PoCL's threads), so 2 workers
cannot beat it by much: the point of the engine is many machines. Expected scaling across
machines: files/s grows with the cores and devices added, as long as the per-file work (tens of
ms per photo here) dwarfs the engine's overhead per file and the shared storage keeps up.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from warpkit import dist
from warpkit.files import AugmentJob, WarpJob, run_local
from warpkit.files import tasks as _tasks


@dataclasses.dataclass(frozen=True)
class NoopJob(WarpJob):
    """Opens nothing, writes nothing: what is left is the engine's own cost per file."""

    def __call__(self, src, dests, protected):
        return [{"source": str(src), "output": str(dests[0])}]


def photos(d: Path, n: int) -> list[Path]:
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:480, 0:640]
    out = []
    for i in range(n):
        base = np.sin(xx / rng.uniform(5, 40)) * np.cos(yy / rng.uniform(5, 40))
        img = np.clip(128 + 100 * base[..., None] * rng.uniform(0.3, 1, 3), 0, 255)
        p = d / f"photo{i:04d}.jpg"
        Image.fromarray(img.astype(np.uint8)).save(p, quality=90)
        out.append(p)
    return out


def local(job, tasks, out) -> None:
    """The command line's own single-process loop."""
    run_local(job, tasks, "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    root = Path(tempfile.mkdtemp(prefix="warpkit-bench-dist-"))
    try:
        (root / "in").mkdir()
        files = photos(root / "in", args.files)
        jobs = {"warp (rotate 12, expand)": WarpJob(rotate=12, expand=True),
                "augment (4 copies)": AugmentJob(copies=4, seed=1, affine=dict(
                    degrees=15, scale=(0.9, 1.1), hflip=0.5, padding="reflection"))}
        clusters = {}
        for n in (1, 2):
            t0 = time.perf_counter()
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            client = Client(cluster)
            clusters[n] = (cluster, client, time.perf_counter() - t0)
        rows = []
        k = 0
        for name, job in jobs.items():
            times: dict[str, list[float]] = {}
            for r in range(args.rounds + 1):  # round 0 warms up (kernel builds in every worker)
                for who in ("single process", "dask, 1 worker", "dask, 2 workers"):
                    k += 1
                    out = root / f"out{k}"
                    tasks = _tasks(files, lambda f: job.dests(f, out) if hasattr(job, "dests")
                                   else [out / f.name])
                    t0 = time.perf_counter()
                    if who == "single process":
                        out.mkdir()
                        local(job, tasks, out)
                    else:
                        n = 1 if "1 worker" in who else 2
                        s = dist.run(job, tasks, out, client=clusters[n][1])
                        assert s.ok, s.describe()
                    if r:
                        times.setdefault(who, []).append(time.perf_counter() - t0)
                    shutil.rmtree(out)
            base = statistics.median(times["single process"])
            for who, ts in times.items():
                t = statistics.median(ts)
                rows.append((name, who, len(files) / t, t, base / t))
        overhead = []
        for n in (1, 2):
            out = root / "noop"
            tasks = _tasks(files, lambda f: [out / f.name])
            ts = []
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                dist.run(NoopJob(), tasks, out, client=clusters[n][1])
                ts.append(time.perf_counter() - t0)
                shutil.rmtree(out)
            overhead.append((n, statistics.median(ts) / len(files)))
        print(f"\n### {len(files)} JPEG photos 640x480, medians of {args.rounds} rounds\n")
        print("| job | who | files/s | s per run | speed vs single process |")
        print("|---|---|---|---|---|")
        for name, who, fps, t, ratio in rows:
            print(f"| {name} | {who} | {fps:.1f} | {t:.2f} | {ratio:.2f}x |")
        print()
        for n, (_, _, start) in clusters.items():
            print(f"local cluster of {n} worker(s): started in {start:.1f} s")
        for n, per in overhead:
            print(f"engine overhead, {n} worker(s): {per * 1e3:.2f} ms per file "
                  f"(a job that does nothing)")
        for cluster, client, _ in clusters.values():
            client.close()
            cluster.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
