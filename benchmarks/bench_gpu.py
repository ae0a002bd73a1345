"""warpkit on an OpenCL GPU against torch on CUDA (same GPU), interleaved as in _harness.

For NVIDIA machines, where both run. Cases:

- GridSample float32 8x3x512x512 (docs/performance.md's case) and 64x3x512x512 (enough work to fill a
  large GPU), random affine grids, every mode and padding; 3-D linear 4x8x64^3;
- AffineGrid 64x3x512x512; RoiAlign (bench_roi_align's case) against torchvision.ops.roi_align;
- warp_affine uint8 1080p RGB, warpkit alone (no CUDA peer with the same semantics is installed).

Three times per call, each a median over interleaved rounds:

- ``device``: arrays already on the GPU (pyopencl arrays / CUDA tensors), host wall time of one
  call until its result is ready (warpkit: ``queue.finish()``; torch: ``cuda.synchronize()``);
- ``kernel``: device time (warpkit: OpenCL profiling events; torch: CUDA events around the call);
- ``e2e``: numpy in, numpy out, transfers included (torch: ``.cuda()`` ... ``.cpu().numpy()``).

Each case also prints the largest difference between the two results, as a sanity check (the
conformance tests are the real check; torch and ONNX differ on some cubic edge rules).

    python benchmarks/bench_gpu.py [--samples 15] [--device nvidia]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from _harness import interleaved, profiling_queue, random_affine_grid, roi_case, table

import warpkit
from warpkit import geometry as geo
from warpkit.runtime import profile


class Case:
    """One case: warpkit's call and torch's, each given the same host arrays, timed three ways
    (device call, kernel, numpy end to end) in one interleaved set; ``row`` runs it."""

    def __init__(self, name: str, pq: cl.CommandQueue, torch) -> None:
        self.name, self.pq, self.torch = name, pq, torch
        self.fns: dict = {}
        self.ours_dev = self.theirs_dev = None

    def ours(self, fn, *host: np.ndarray) -> None:
        """warpkit's ``fn(*arrays)`` (it names the profiling queue ``self.pq``)."""
        pq = self.pq
        dev = [cla.to_device(pq, a) for a in host]
        self.ours_dev = lambda: fn(*dev)

        def wall():
            t0 = time.perf_counter()
            fn(*dev)
            pq.finish()
            return time.perf_counter() - t0

        def kernel():
            with profile() as prof:
                fn(*dev)
            return prof.kernel_seconds()

        self.fns.update({"wk device": wall, "wk kernel": kernel, "wk e2e": lambda: fn(*host)})

    def theirs(self, fn, *host: np.ndarray) -> None:
        """torch's ``fn(*tensors)`` on CUDA (nothing without a CUDA torch)."""
        torch = self.torch
        if torch is None:
            return
        cuda = lambda a: torch.from_numpy(a).to("cuda")  # noqa: E731
        dev = [cuda(a) for a in host]
        self.theirs_dev = lambda: fn(*dev)

        def wall():
            t0 = time.perf_counter()
            fn(*dev)
            torch.cuda.synchronize()
            return time.perf_counter() - t0

        def kernel():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn(*dev)
            b.record()
            b.synchronize()
            return a.elapsed_time(b) * 1e-3

        self.fns.update({"torch device": wall, "torch kernel": kernel,
                         "torch e2e": lambda: fn(*map(cuda, host)).cpu().numpy()})

    def row(self, samples: int) -> list[str]:
        diff = "-"
        if self.theirs_dev is not None:
            a = np.asarray(self.ours_dev().get(), np.float64)
            diff = f"{np.max(np.abs(a - self.theirs_dev().cpu().numpy())):.1e}"
        res = interleaved(self.fns, samples=samples)
        out = [self.name, diff]
        for part in ("device", "kernel", "e2e"):
            ours, theirs = res[f"wk {part}"], res.get(f"torch {part}")
            cell = f"{ours.median * 1e3:.3f}"
            if theirs is not None:
                cell += f" / {theirs.median * 1e3:.3f} = **{theirs.median / ours.median:.2f}x**"
            out.append(cell)
        print(" | ".join(out), flush=True)
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--device", default=None, help="WARPKIT_DEVICE spec (default: warpkit's)")
    ap.add_argument("--quick", action="store_true", help="8x3x512^2 GridSample only")
    args = ap.parse_args()
    rt = warpkit.set_device(args.device) if args.device else warpkit.get_runtime()
    pq = profiling_queue(rt)
    torch = F = tvops = None
    try:
        import torch as t

        if not t.cuda.is_available():
            raise ImportError("no CUDA device")
        torch, F = t, t.nn.functional
        print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    except ImportError as e:
        print(f"[skip] torch CUDA peer: {e}")
    if torch is not None:
        try:
            import torchvision.ops as tvops
        except Exception as e:  # a torchvision built for another torch fails in odd ways
            print(f"[skip] torchvision: {type(e).__name__}: {e}")
    print(f"warpkit device: {rt.describe()} ({rt.reason})")
    print(f"medians of {args.samples} interleaved rounds; cells: warpkit / torch ms = torch/warpkit")
    rng = np.random.default_rng(0)
    rows, header = [], ["case", "max |wk - torch|", "device call", "kernel", "e2e numpy"]
    tmode = {"linear": "bilinear", "cubic": "bicubic", "nearest": "nearest"}

    for n in ((8,) if args.quick else (8, 64)):
        X = rng.standard_normal((n, 3, 512, 512)).astype(np.float32)
        grid = random_affine_grid(rng, n, 512, 512)
        for mode in ("linear", "nearest", "cubic"):
            for pad in ("zeros", "border", "reflection"):
                c = Case(f"GridSample {n}x3x512² {mode} {pad}", pq, torch)
                c.ours(lambda x, g, m=mode, p=pad: warpkit.grid_sample(x, g, m, p, queue=pq),
                       X, grid)
                c.theirs(lambda x, g, m=tmode[mode], p=pad: F.grid_sample(
                    x, g, m, p, align_corners=False), X, grid)
                rows.append(c.row(args.samples))
    if not args.quick:
        X = rng.standard_normal((4, 8, 64, 64, 64)).astype(np.float32)
        theta = np.tile(np.array([[0.9, 0.1, 0, 0.05], [-0.1, 0.9, 0.05, 0], [0, 0.02, 1.1, 0]],
                                 np.float32), (4, 1, 1))
        grid = warpkit.affine_grid(theta, (4, 8, 64, 64, 64))
        c = Case("GridSample 3-D 4x8x64³ linear zeros", pq, torch)
        c.ours(lambda x, g: warpkit.grid_sample(x, g, queue=pq), X, grid)
        c.theirs(lambda x, g: F.grid_sample(x, g, align_corners=False), X, grid)
        rows.append(c.row(args.samples))

        theta = np.stack([geo.to_theta(geo.rotation(a, (255.5, 255.5)), (512, 512))[:2]
                          for a in rng.uniform(-30, 30, 64)]).astype(np.float32)
        size = (64, 3, 512, 512)
        c = Case("AffineGrid 64x512²", pq, torch)
        c.ours(lambda t: warpkit.affine_grid(t, size, queue=pq), theta)
        c.theirs(lambda t: F.affine_grid(t, size, align_corners=False), theta)
        rows.append(c.row(args.samples))

        X, rois, bidx = roi_case(rng)
        (N, C, H, W), R = X.shape, len(rois)
        kw = dict(mode="avg", output_height=7, output_width=7, sampling_ratio=2)
        c = Case(f"RoiAlign avg {N}x{C}x{H}x{W}, {R} ROIs (torchvision)", pq,
                 torch if tvops is not None else None)
        c.ours(lambda x, r, b: warpkit.roi_align(x, r, b, **kw, queue=pq), X, rois, bidx)
        boxes = np.concatenate([bidx[:, None].astype(np.float32), rois], 1)
        c.theirs(lambda x, bx: tvops.roi_align(x, bx, (7, 7), 1.0, 2, True), X, boxes)
        rows.append(c.row(args.samples))

        img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
        m = geo.compose(geo.rotation(15, (959.5, 539.5)), geo.scale(1.1, center=(959.5, 539.5)))
        c = Case("warp_affine uint8 1080p RGB linear (warpkit alone)", pq, None)
        c.ours(lambda im: warpkit.warp_affine(im, m, queue=pq), img)
        rows.append(c.row(args.samples))
    print(table("warpkit (OpenCL) vs torch (CUDA), ms", rows, header))


if __name__ == "__main__":
    main()
