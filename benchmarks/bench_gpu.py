"""warpkit on an OpenCL GPU against torch on CUDA (same GPU), interleaved as in _harness.

For NVIDIA machines, where both run. Cases:

- GridSample float32 8x3x512x512 (PERFORMANCE.md's case) and 64x3x512x512 (enough work to fill a
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


def _ms(samples) -> float:
    return samples.median * 1e3


class Peers:
    """The callables of one case and the table row they make."""

    def __init__(self, pq: cl.CommandQueue, torch) -> None:
        self.pq, self.torch = pq, torch
        self.fns: dict = {}

    def ours(self, device_call, e2e_call) -> None:
        pq = self.pq

        def wall():
            t0 = time.perf_counter()
            device_call()
            pq.finish()
            return time.perf_counter() - t0

        def kernel():
            with profile() as prof:
                device_call()
            return prof.kernel_seconds()

        self.fns.update({"wk device": wall, "wk kernel": kernel, "wk e2e": e2e_call})

    def theirs(self, device_call, e2e_call) -> None:
        torch = self.torch
        if torch is None:
            return

        def wall():
            t0 = time.perf_counter()
            device_call()
            torch.cuda.synchronize()
            return time.perf_counter() - t0

        def kernel():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            device_call()
            b.record()
            b.synchronize()
            return a.elapsed_time(b) * 1e-3

        self.fns.update({"torch device": wall, "torch kernel": kernel, "torch e2e": e2e_call})

    def row(self, samples: int) -> list[str]:
        res = interleaved(self.fns, samples=samples)
        out = []
        for part in ("device", "kernel", "e2e"):
            ours = res[f"wk {part}"]
            if f"torch {part}" in res:
                theirs = res[f"torch {part}"]
                out.append(f"{_ms(ours):.3f} / {_ms(theirs):.3f} = "
                           f"**{theirs.median / ours.median:.2f}x**")
            else:
                out.append(f"{_ms(ours):.3f}")
        return out


def _diff(a, b) -> str:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return f"{np.max(np.abs(a - b)):.1e}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--device", default=None, help="WARPKIT_DEVICE spec (default: warpkit's)")
    ap.add_argument("--quick", action="store_true", help="8x3x512^2 GridSample only")
    args = ap.parse_args()
    rt = warpkit.set_device(args.device) if args.device else warpkit.get_runtime()
    pq = profiling_queue(rt)
    try:
        import torch
        import torch.nn.functional as F

        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
        dev = torch.device("cuda")
        print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    except ImportError as e:
        print(f"[skip] torch CUDA peer: {e}")
        torch = None
    print(f"warpkit device: {rt.describe()} ({rt.reason})")
    print(f"medians of {args.samples} interleaved rounds; cells: warpkit / torch ms = torch/warpkit")
    rng = np.random.default_rng(0)
    rows, header = [], ["case", "max |wk - torch|", "device call", "kernel", "e2e numpy"]
    tmode = {"linear": "bilinear", "cubic": "bicubic", "nearest": "nearest"}

    def case(name, p, ours_dev, ref):
        diff = _diff(ours_dev().get(), ref()) if torch is not None else "-"
        rows.append([name, diff, *p.row(args.samples)])
        print(" | ".join(rows[-1]), flush=True)

    # ---- GridSample 2-D
    for n in ((8,) if args.quick else (8, 64)):
        X = rng.standard_normal((n, 3, 512, 512)).astype(np.float32)
        grid = random_affine_grid(rng, n, 512, 512)
        Xd, gd = cla.to_device(pq, X), cla.to_device(pq, grid)
        tX = tg = None
        if torch is not None:
            tX, tg = torch.from_numpy(X).to(dev), torch.from_numpy(grid).to(dev)
        for mode in ("linear", "nearest", "cubic"):
            for pad in ("zeros", "border", "reflection"):
                p = Peers(pq, torch)
                dcall = lambda m=mode, pd=pad: warpkit.grid_sample(Xd, gd, m, pd, queue=pq)
                p.ours(dcall, lambda m=mode, pd=pad: warpkit.grid_sample(X, grid, m, pd, queue=pq))
                tcall = lambda m=tmode[mode], pd=pad: F.grid_sample(tX, tg, m, pd,
                                                                   align_corners=False)
                p.theirs(tcall, lambda m=tmode[mode], pd=pad: F.grid_sample(
                    torch.from_numpy(X).to(dev), torch.from_numpy(grid).to(dev), m, pd,
                    align_corners=False).cpu().numpy())
                case(f"GridSample {n}x3x512² {mode} {pad}", p, dcall,
                     lambda: tcall().cpu().numpy())
        del Xd, gd, tX, tg
    if args.quick:
        print(table("warpkit (OpenCL) vs torch (CUDA), ms", rows, header))
        return

    # ---- GridSample 3-D
    X = rng.standard_normal((4, 8, 64, 64, 64)).astype(np.float32)
    theta = np.tile(np.array([[0.9, 0.1, 0, 0.05], [-0.1, 0.9, 0.05, 0], [0, 0.02, 1.1, 0]],
                             np.float32), (4, 1, 1))
    grid = warpkit.affine_grid(theta, (4, 8, 64, 64, 64))
    Xd, gd = cla.to_device(pq, X), cla.to_device(pq, grid)
    p = Peers(pq, torch)
    dcall = lambda: warpkit.grid_sample(Xd, gd, queue=pq)
    p.ours(dcall, lambda: warpkit.grid_sample(X, grid, queue=pq))
    if torch is not None:
        tX, tg = torch.from_numpy(X).to(dev), torch.from_numpy(grid).to(dev)
        tcall = lambda: F.grid_sample(tX, tg, "bilinear", "zeros", align_corners=False)
        p.theirs(tcall, lambda: F.grid_sample(torch.from_numpy(X).to(dev),
                                              torch.from_numpy(grid).to(dev), "bilinear", "zeros",
                                              align_corners=False).cpu().numpy())
    case("GridSample 3-D 4x8x64³ linear zeros", p, dcall, lambda: tcall().cpu().numpy())

    # ---- AffineGrid
    theta = np.stack([geo.to_theta(geo.rotation(a, (255.5, 255.5)), (512, 512))[:2]
                      for a in rng.uniform(-30, 30, 64)]).astype(np.float32)
    td = cla.to_device(pq, theta)
    size = (64, 3, 512, 512)
    p = Peers(pq, torch)
    dcall = lambda: warpkit.affine_grid(td, size, queue=pq)
    p.ours(dcall, lambda: warpkit.affine_grid(theta, size, queue=pq))
    if torch is not None:
        tt = torch.from_numpy(theta).to(dev)
        tcall = lambda: F.affine_grid(tt, size, align_corners=False)
        p.theirs(tcall, lambda: F.affine_grid(torch.from_numpy(theta).to(dev), size,
                                              align_corners=False).cpu().numpy())
    case("AffineGrid 64x512²", p, dcall, lambda: tcall().cpu().numpy())

    # ---- RoiAlign (bench_roi_align's case)
    X, rois, bidx = roi_case(rng)
    (N, C, H, W), R = X.shape, len(rois)
    Xd, rd, bd = (cla.to_device(pq, a) for a in (X, rois, bidx))
    kw = dict(mode="avg", output_height=7, output_width=7, sampling_ratio=2, spatial_scale=1.0)
    p = Peers(pq, torch)
    dcall = lambda: warpkit.roi_align(Xd, rd, bd, **kw, queue=pq)
    p.ours(dcall, lambda: warpkit.roi_align(X, rois, bidx, **kw, queue=pq))
    try:
        import torchvision.ops as tvops
    except Exception as e:
        print(f"[skip] torchvision: {type(e).__name__}")
        tvops = None
    if torch is not None and tvops is not None:
        boxes = np.concatenate([bidx[:, None].astype(np.float32), rois], 1)
        tX, tb = torch.from_numpy(X).to(dev), torch.from_numpy(boxes).to(dev)
        tcall = lambda: tvops.roi_align(tX, tb, (7, 7), 1.0, 2, True)
        p.theirs(tcall, lambda: tvops.roi_align(torch.from_numpy(X).to(dev),
                                                torch.from_numpy(boxes).to(dev), (7, 7), 1.0, 2,
                                                True).cpu().numpy())
        case(f"RoiAlign avg {N}x{C}x{H}x{W}, {R} ROIs (torchvision)", p, dcall,
             lambda: tcall().cpu().numpy())
    else:
        rows.append(["RoiAlign avg", "-", *Peers.row(p, args.samples)])

    # ---- warp_affine, warpkit alone
    img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    imgd = cla.to_device(pq, img)
    c = (959.5, 539.5)
    m = geo.compose(geo.rotation(15, c), geo.scale(1.1, center=c))
    p = Peers(pq, None)
    p.ours(lambda: warpkit.warp_affine(imgd, m, queue=pq),
           lambda: warpkit.warp_affine(img, m, queue=pq))
    rows.append(["warp_affine uint8 1080p RGB linear (warpkit alone)", "-", *p.row(args.samples)])
    print(table("warpkit (OpenCL) vs torch (CUDA), ms", rows, header))


if __name__ == "__main__":
    main()
