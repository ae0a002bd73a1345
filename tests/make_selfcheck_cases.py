"""Build the cases that ``warpkit check`` ships (warpkit/selfcheck_cases.npz): inputs and expected
outputs from oracles nobody here wrote, so that a user's device is checked without onnx installed.

- every ONNX backend node case of GridSample, AffineGrid and RoiAlign (ONNX's own expected
  outputs);
- seeded differential cases per operator and dtype, expected outputs from the ONNX reference
  implementation with docs/semantics.md's decisions (tests/oracles.py);
- warp_affine on uint8 and float32 images, expected from the ONNX reference GridSample on the
  equivalent grid (pixel centres on integers: align_corners=1).

    python tests/make_selfcheck_cases.py          # rewrite the shipped file
    python tests/make_selfcheck_cases.py --check  # exit 1 if the shipped file differs beyond
                                                  # the documented tolerances

The test suite runs ``--check``, so the shipped data cannot drift from its oracles.
"""

from __future__ import annotations

import io
import itertools
import json
import pathlib
import sys

import numpy as np
from onnx.reference.ops.op_affine_grid import construct_original_grid

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from oracles import (BF16, backend_cases, onnx_cast, reference_affine_grid,  # noqa: E402
                     reference_grid_sample, reference_roi_align)

OUT = HERE.parent / "warpkit" / "selfcheck_cases.npz"
MODES = ("nearest", "linear", "cubic")
PADS = ("zeros", "border", "reflection")


def _store(a: np.ndarray) -> tuple[np.ndarray, str]:
    """An array as npz can hold it without pickle (bfloat16 as its bits), and its dtype name."""
    a = np.asarray(a)
    if a.dtype == BF16:
        return a.view(np.uint16), "bfloat16"
    return a, a.dtype.name


def _attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return a.s.decode() if a.type == a.STRING else (a.f if a.type == a.FLOAT else a.i)
    return default


def node_cases():
    for case in backend_cases("test_gridsample"):
        node = case.model.graph.node[0]
        kw = dict(mode=_attr(node, "mode", "linear"),
                  padding_mode=_attr(node, "padding_mode", "zeros"),
                  align_corners=int(_attr(node, "align_corners", 0)))
        for inputs, outputs in case.data_sets:
            yield dict(name=case.name, op="grid_sample", source="onnx node case", kwargs=kw,
                       compare=kw["mode"], rtol=case.rtol, atol=case.atol), list(inputs), outputs[0]
    for case in backend_cases("test_affine_grid"):
        node = case.model.graph.node[0]
        kw = dict(align_corners=int(_attr(node, "align_corners", 0)))
        for inputs, outputs in case.data_sets:
            yield dict(name=case.name, op="affine_grid", source="onnx node case", kwargs=kw,
                       compare="linear", rtol=case.rtol, atol=case.atol), list(inputs), outputs[0]
    for case in backend_cases("test_roialign"):
        node = case.model.graph.node[0]
        kw = dict(mode=_attr(node, "mode", "avg"),
                  output_height=int(_attr(node, "output_height", 1)),
                  output_width=int(_attr(node, "output_width", 1)),
                  sampling_ratio=int(_attr(node, "sampling_ratio", 0)),
                  spatial_scale=float(_attr(node, "spatial_scale", 1.0)),
                  coordinate_transformation_mode=_attr(node, "coordinate_transformation_mode",
                                                       "half_pixel"))
        for inputs, outputs in case.data_sets:
            yield dict(name=case.name, op="roi_align", source="onnx node case", kwargs=kw,
                       compare="linear", rtol=case.rtol, atol=case.atol), list(inputs), outputs[0]


def grid_sample_cases():
    rng = np.random.default_rng(2026)
    for dt in (np.float32, np.float64, np.float16, BF16, np.uint8, np.int16, np.int32):
        dt = np.dtype(dt)
        for mode, pad in itertools.product(MODES, PADS):
            align = int(rng.integers(0, 2))
            shape = (2, 3, 6, 7)
            if dt.kind == "f" or dt == BF16:
                X = (rng.standard_normal(shape) * (50 if dt.itemsize == 2 else 1)).astype(dt)
            else:
                info = np.iinfo(dt)
                X = rng.integers(max(info.min, -(2**20)), min(info.max, 2**20), shape,
                                 endpoint=True).astype(dt)
            gdt = np.float64 if dt == np.float64 else np.float32
            grid = rng.uniform(-1.3, 1.3, (2, 5, 4, 2)).astype(gdt)
            wide = dt.kind in "iu" and dt.itemsize >= 4
            if dt.kind in "iu" and mode == "nearest":
                # exact: which element each output copies, from the reference on an index image
                idx = np.arange(1, X.size + 1, dtype=np.float64).reshape(shape)
                picked = reference_grid_sample(idx, grid.astype(np.float64), mode, pad,
                                               align).astype(np.int64)
                ref = np.where(picked > 0, X.reshape(-1)[np.maximum(picked - 1, 0)], 0)
                ref = ref.astype(dt)
            elif dt.kind in "iu":
                ref = onnx_cast(reference_grid_sample(X.astype(np.float64), grid, mode, pad, align,
                                                      wide_weights=wide), dt)
            elif dt.itemsize == 2:
                ref = reference_grid_sample(X.astype(np.float32), grid, mode, pad,
                                            align).astype(dt)
            else:
                ref = reference_grid_sample(X, grid, mode, pad, align)
            yield dict(name=f"grid_sample_2d_{dt.name if dt != BF16 else 'bfloat16'}_{mode}_{pad}",
                       op="grid_sample", source="differential (ONNX reference)",
                       kwargs=dict(mode=mode, padding_mode=pad, align_corners=align),
                       compare=mode, wide=wide), [X, grid], ref
    for mode, pad in itertools.product(MODES, PADS):  # rank 3 (volumes)
        X = rng.standard_normal((1, 2, 4, 5, 3)).astype(np.float32)
        grid = rng.uniform(-1.3, 1.3, (1, 3, 2, 4, 3)).astype(np.float32)
        align = int(rng.integers(0, 2))
        yield dict(name=f"grid_sample_3d_float32_{mode}_{pad}", op="grid_sample",
                   source="differential (ONNX reference)",
                   kwargs=dict(mode=mode, padding_mode=pad, align_corners=align), compare=mode), \
            [X, grid], reference_grid_sample(X, grid, mode, pad, align)


def affine_grid_cases():
    rng = np.random.default_rng(20)
    for dt, r, align in itertools.product((np.float32, np.float64), (2, 3), (0, 1)):
        theta = (np.eye(r, r + 1) + rng.uniform(-0.3, 0.3, (2, r, r + 1))).astype(dt)
        size = np.array([2, 3, *rng.integers(2, 7, r)], np.int64)
        if dt == np.float64:
            # the reference's own base grid and float64 matmul, without its final float32 cast
            base = construct_original_grid(tuple(size[2:]), align)
            ref = np.einsum("nij,...j->n...i", theta, base)
        else:
            ref = reference_affine_grid(theta, size, align).astype(dt)
        yield dict(name=f"affine_grid_{r}d_{np.dtype(dt).name}_align{align}", op="affine_grid",
                   source="differential (ONNX reference)", kwargs=dict(align_corners=align),
                   compare="linear"), [theta, size], ref


def roi_align_cases():
    rng = np.random.default_rng(16)
    for dt, mode, ctm in itertools.product((np.float32, np.float64, np.float16), ("avg", "max"),
                                           ("half_pixel", "output_half_pixel")):
        X = (rng.standard_normal((2, 4, 10, 9)) * 10).astype(dt)
        x0, y0 = rng.uniform(-1, 6, 6), rng.uniform(-1, 7, 6)
        rois = np.stack([x0, y0, x0 + rng.uniform(0.5, 5, 6), y0 + rng.uniform(0.5, 5, 6)],
                        1).astype(dt)
        bidx = rng.integers(0, 2, 6).astype(np.int64)
        kw = dict(mode=mode, output_height=3, output_width=2, sampling_ratio=int(rng.integers(0, 3)),
                  spatial_scale=1.0, coordinate_transformation_mode=ctm)
        if dt == np.float64:
            ref = reference_roi_align(X, rois, bidx, **kw)
        else:
            ref = reference_roi_align(X.astype(np.float32), rois.astype(np.float32), bidx,
                                      **kw).astype(dt)
        yield dict(name=f"roi_align_{np.dtype(dt).name}_{mode}_{ctm}", op="roi_align",
                   source="differential (ONNX reference)", kwargs=kw, compare="linear"), \
            [X, rois, bidx], ref


def warp_cases():
    """warp_affine: output pixel p reads the input at M^-1 p (pixel centres on integers), which
    is GridSample with align_corners=1 on the normalised positions."""
    rng = np.random.default_rng(7)
    pads = {"constant": "zeros", "replicate": "border", "reflect_101": "reflection"}
    for dt, mode, pad in itertools.product((np.uint8, np.float32), ("linear", "cubic"), pads):
        H, W, C, Ho, Wo = 23, 31, 3, 19, 27
        img = (rng.integers(0, 256, (H, W, C)) if dt == np.uint8
               else rng.standard_normal((H, W, C))).astype(dt)
        a = rng.uniform(-0.5, 0.5)
        s = rng.uniform(0.8, 1.2)
        M = np.array([[s * np.cos(a), -s * np.sin(a), rng.uniform(-4, 8)],
                      [s * np.sin(a), s * np.cos(a), rng.uniform(-4, 8)]])
        inv = np.linalg.inv(np.vstack([M, [0, 0, 1]]))
        ys, xs = np.mgrid[0:Ho, 0:Wo].astype(np.float64)
        sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
        sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
        grid = np.stack([2 * sx / (W - 1) - 1, 2 * sy / (H - 1) - 1], -1)[None]
        X = img.astype(np.float64).transpose(2, 0, 1)[None]
        ref = reference_grid_sample(X, grid, mode, pads[pad], 1)[0].transpose(1, 2, 0)
        ref = onnx_cast(ref, dt) if dt == np.uint8 else ref.astype(dt)
        yield dict(name=f"warp_affine_{np.dtype(dt).name}_{mode}_{pad}", op="warp_affine",
                   source="differential (ONNX reference GridSample)",
                   kwargs=dict(size=[Wo, Ho], interpolation=mode, padding=pad),
                   compare=mode), [img, M], ref


def build() -> bytes:
    arrays, meta = {}, []
    for k, (m, inputs, expected) in enumerate(itertools.chain(
            node_cases(), grid_sample_cases(), affine_grid_cases(), roi_align_cases(),
            warp_cases())):
        m["inputs"] = []
        for i, a in enumerate(inputs):
            arrays[f"c{k}_i{i}"], name = _store(a)
            m["inputs"].append(name)
        arrays[f"c{k}_out"], m["dtype"] = _store(expected)
        meta.append(m)
    arrays["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def differences(shipped: bytes, rebuilt: bytes) -> list[str]:
    """What differs between two builds of the cases beyond docs/semantics.md's tolerances
    (warpkit's own ``compare``): the case list and every integer input exactly, float arrays
    within their dtype's tolerance. numpy picks other SIMD kernels on other CPUs, so the
    ONNX reference's float64 results move by an ulp or two from one machine to the next; a
    byte-for-byte comparison would fail the suite on every CPU but the builder's."""
    from warpkit._selfcheck import compare

    za, zb = np.load(io.BytesIO(shipped)), np.load(io.BytesIO(rebuilt))
    if sorted(za.files) != sorted(zb.files):
        return [f"arrays {sorted(set(za.files) ^ set(zb.files))} are in one build only"]
    if str(za["meta"]) != str(zb["meta"]):
        return ["the case list (names, options, dtypes) differs"]
    dtypes = {}
    for k, m in enumerate(json.loads(str(za["meta"]))):
        dtypes[f"c{k}_out"] = m["dtype"]
        dtypes.update((f"c{k}_i{i}", d) for i, d in enumerate(m["inputs"]))
    out = []
    for f, dt in dtypes.items():
        a, b = za[f], zb[f]
        if dt == "bfloat16":
            a, b = a.view(BF16), b.view(BF16)
        if a.dtype != b.dtype or a.shape != b.shape:
            out.append(f"{f}: {a.dtype}{a.shape} against {b.dtype}{b.shape}")
            continue
        exact = a.dtype.kind in "iub" and not f.endswith("_out")  # seeded integer inputs
        err, tol = (0.0 if np.array_equal(a, b) else np.inf, "exact") if exact else \
            compare(a, b, "linear")
        if err > 1:
            out.append(f"{f}: {err:.3g} x the tolerance ({tol})")
    return out


def main() -> int:
    data = build()
    if "--check" in sys.argv:
        diff = differences(OUT.read_bytes(), data) if OUT.exists() else ["it is missing"]
        if diff:
            print(f"{OUT} differs from its oracles: rerun python tests/make_selfcheck_cases.py")
            print("\n".join(diff[:20]))
            return 1
        print(f"{OUT}: up to date")
        return 0
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
