"""GridSample float32 NCHW 8x3x512x512, random affine grids, every mode and padding.

Peers: torch.nn.functional.grid_sample (CPU) and ONNX Runtime GridSample (opset 20).
End-to-end: numpy in, numpy out (torch.from_numpy / .numpy() are zero copy). Kernel: OpenCL
profiling time of warpkit's kernel, with host-pointer buffers already made.

    python benchmarks/bench_grid_sample.py [--samples 9] [--size 512] [--batch 8]
"""

from __future__ import annotations

import argparse

import numpy as np
from onnx import TensorProto, helper

import warpkit

from _harness import (VERSUS, optional, ort_session, profiling_queue, random_affine_grid,
                      set_threads, table, versus, warpkit_calls)

MODES = ["linear", "nearest", "cubic"]
PADS = ["zeros", "border", "reflection"]


def ort_model(mode, pad, shape_x, shape_g) -> bytes:
    node = helper.make_node("GridSample", ["X", "grid"], ["Y"], mode=mode, padding_mode=pad,
                            align_corners=0)
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape_x),
                           helper.make_tensor_value_info("grid", TensorProto.FLOAT, shape_g)],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)],
                             ir_version=10).SerializeToString()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=9)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--pads", default=",".join(PADS))
    args = ap.parse_args()
    set_threads()
    torch = optional("torch")
    ort = optional("onnxruntime")

    rng = np.random.default_rng(0)
    n, s = args.batch, args.size
    X = rng.standard_normal((n, 3, s, s)).astype(np.float32)
    grid = random_affine_grid(rng, n, s, s)
    rt = warpkit.get_runtime()
    pq = profiling_queue(rt)
    print(f"warpkit device: {rt.describe()} ({rt.reason})")
    print(f"X {X.shape} float32, grid {grid.shape}; medians of {args.samples}, ms")

    rows = []
    for mode in args.modes.split(","):
        for pad in args.pads.split(","):
            ours = warpkit_calls(lambda q: warpkit.grid_sample(X, grid, mode, pad, queue=q), pq)
            fns = {}
            if torch is not None:
                tX, tg = torch.from_numpy(X), torch.from_numpy(grid)
                tmode = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
                fns["torch"] = lambda: torch.nn.functional.grid_sample(
                    tX, tg, tmode, pad, align_corners=False).numpy()
            if ort is not None:
                sess = ort_session(ort_model(mode, pad, X.shape, grid.shape))
                fns["onnxruntime"] = lambda: sess.run(None, {"X": X, "grid": grid})[0]
            for r in versus(ours, fns, args.samples):
                rows.append([mode, pad, *r])
                print(" | ".join(rows[-1]), flush=True)
    print(table("GridSample float32 %dx3x%dx%d, ms" % (n, s, s), rows,
                ["mode", "padding", *VERSUS]))


if __name__ == "__main__":
    main()
