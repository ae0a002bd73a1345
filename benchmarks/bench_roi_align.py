"""RoiAlign 2x256x64x64 float32, 1000 ROIs, 7x7 bins, sampling_ratio 2, avg (and max), against
ONNX Runtime and, where installed, torchvision.ops.roi_align.

    python benchmarks/bench_roi_align.py [--samples 9]
"""

from __future__ import annotations

import argparse

import numpy as np
from onnx import TensorProto, helper

import warpkit

from _harness import (VERSUS, optional, ort_session, profiling_queue, roi_case, set_threads, table,
                      versus, warpkit_calls)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=9)
    args = ap.parse_args()
    set_threads()
    ort = optional("onnxruntime")
    try:
        import torch  # noqa: F401
        import torchvision.ops as tvops
    except Exception as e:  # PyPI's torchvision does not load beside the local torch build
        print(f"[skip] torchvision is not usable here ({type(e).__name__}): its column is left out")
        tvops = None
    rng = np.random.default_rng(0)
    X, rois, bidx = roi_case(rng)
    (N, C, H, W), R = X.shape, len(rois)
    rt = warpkit.get_runtime()
    pq = profiling_queue(rt)
    print(f"warpkit device: {rt.describe()}")
    rows = []
    for mode in ("avg", "max"):
        kw = dict(mode=mode, output_height=7, output_width=7, sampling_ratio=2, spatial_scale=1.0)
        ours = warpkit_calls(lambda q: warpkit.roi_align(X, rois, bidx, **kw, queue=q), pq)
        fns = {}
        if ort is not None:
            node = helper.make_node("RoiAlign", ["X", "rois", "b"], ["Y"], **kw)
            g = helper.make_graph([node], "g", [
                helper.make_tensor_value_info("X", TensorProto.FLOAT, X.shape),
                helper.make_tensor_value_info("rois", TensorProto.FLOAT, rois.shape),
                helper.make_tensor_value_info("b", TensorProto.INT64, bidx.shape)],
                [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)], ir_version=10)
            sess = ort_session(m.SerializeToString())
            fns["onnxruntime"] = lambda: sess.run(None, {"X": X, "rois": rois, "b": bidx})[0]
        if tvops is not None and mode == "avg":
            tX = torch.from_numpy(X)
            boxes = torch.from_numpy(np.concatenate([bidx[:, None].astype(np.float32), rois], 1))
            fns["torchvision"] = lambda: tvops.roi_align(tX, boxes, (7, 7), 1.0, 2, True).numpy()
        rows += [[mode, *r] for r in versus(ours, fns, args.samples)]
    print(table(f"RoiAlign {N}x{C}x{H}x{W}, {R} ROIs, 7x7, sampling_ratio 2, ms", rows,
                ["mode", *VERSUS]))


if __name__ == "__main__":
    main()
