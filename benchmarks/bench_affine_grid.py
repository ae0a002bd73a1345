"""AffineGrid 8x512x512 (2-D, float32) against torch.nn.functional.affine_grid and ONNX Runtime.

Also prints the write-bandwidth floor: the time numpy takes to fill an array of the output's size.

    python benchmarks/bench_affine_grid.py [--samples 9]
"""

from __future__ import annotations

import argparse

import numpy as np
from onnx import TensorProto, helper

import warpkit

from _harness import (VERSUS, optional, ort_session, profiling_queue, set_threads, table, versus,
                      warpkit_calls)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=9)
    args = ap.parse_args()
    set_threads()
    torch = optional("torch")
    ort = optional("onnxruntime")
    rng = np.random.default_rng(0)
    n, h, w = 8, 512, 512
    theta = (np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (n, 1, 1))
             + rng.uniform(-0.3, 0.3, (n, 2, 3)).astype(np.float32))
    size = (n, 3, h, w)
    rt = warpkit.get_runtime()
    pq = profiling_queue(rt)
    print(f"warpkit device: {rt.describe()}")
    out_bytes = n * h * w * 2 * 4

    ours = warpkit_calls(lambda q: warpkit.affine_grid(theta, size, queue=q), pq)
    fns = {}
    fns["floor: np.empty + fill"] = lambda: np.empty((n, h, w, 2), np.float32).fill(1.0)
    if torch is not None:
        tt = torch.from_numpy(theta)
        fns["torch"] = lambda: torch.nn.functional.affine_grid(tt, size, align_corners=False).numpy()
    if ort is not None:
        node = helper.make_node("AffineGrid", ["theta", "size"], ["Y"], align_corners=0)
        g = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("theta", TensorProto.FLOAT, theta.shape),
                               helper.make_tensor_value_info("size", TensorProto.INT64, [4])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)], ir_version=10)
        sess = ort_session(m.SerializeToString())
        sz = np.array(size, np.int64)
        fns["onnxruntime"] = lambda: sess.run(None, {"theta": theta, "size": sz})[0]
    rows = versus(ours, fns, args.samples)
    print(table(f"AffineGrid {n}x{h}x{w} float32 ({out_bytes / 1e6:.0f} MB out), ms", rows, VERSUS))


if __name__ == "__main__":
    main()
