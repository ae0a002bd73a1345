"""Image warps, numpy in and numpy out: uint8 RGB 1920x1080 affine warp (15 degrees, scale 1.1,
bilinear, constant fill), 8 bands of 1024x1024 (one launch) and a batch of 64 x 224x224x3 with
one matrix each, against OpenCV; resizes by the area filter and linear ones against cv2.resize
(cv2.warpAffine, a loop for the batch), Pillow (Image.transform) and a torch float chain
(affine_grid + grid_sample on the converted image).

    python benchmarks/bench_warp.py [--samples 9]
"""

from __future__ import annotations

import argparse

import numpy as np

from _harness import (VERSUS, optional, profiling_queue, set_threads, table, versus,
                      warpkit_calls)

import warpkit
from warpkit import geometry as g


def torch_chain(torch, img: np.ndarray, m: np.ndarray):
    """torch's way to the same warp of a uint8 (H, W, C) image: to float, affine_grid +
    grid_sample, back to rounded uint8."""
    h, w, c = img.shape
    theta = torch.tensor(g.to_theta(m, (w, h))[None], dtype=torch.float32)

    def run():
        t = torch.from_numpy(img).permute(2, 0, 1)[None].float()
        grid = torch.nn.functional.affine_grid(theta, (1, c, h, w), align_corners=False)
        y = torch.nn.functional.grid_sample(t, grid, "bilinear", "zeros", align_corners=False)
        return y[0].permute(1, 2, 0).round().clamp(0, 255).to(torch.uint8).numpy()

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=9)
    args = ap.parse_args()
    set_threads()
    cv2 = optional("cv2")
    torch = optional("torch")
    from PIL import Image

    rng = np.random.default_rng(0)
    rt = warpkit.get_runtime()
    pq = profiling_queue(rt)
    print(f"warpkit device: {rt.describe()}")
    rows = []

    def one_image(img: np.ndarray) -> list:
        """One image turned 15 degrees and scaled 1.1 about its centre, against OpenCV (any
        channel count), Pillow (3 channels) and torch's float chain."""
        h, w, c = img.shape
        m = g.compose(g.rotation(15, ((w - 1) / 2, (h - 1) / 2)),
                      g.scale(1.1, center=((w - 1) / 2, (h - 1) / 2)))
        ours = warpkit_calls(lambda q: warpkit.warp_affine(img, m, queue=q), pq)
        fns = {}
        if cv2 is not None:
            M = g.to_cv2(m)
            fns["cv2.warpAffine"] = lambda: cv2.warpAffine(img, M, (w, h), flags=cv2.INTER_LINEAR,
                                                           borderMode=cv2.BORDER_CONSTANT)
        if c == 3:
            pil = Image.fromarray(img)
            data = g.to_pillow(m)
            fns["Pillow transform"] = lambda: np.asarray(pil.transform(
                pil.size, Image.Transform.AFFINE, data, Image.Resampling.BILINEAR))
        if torch is not None:
            fns["torch float chain"] = torch_chain(torch, img, m)
        return [[f"{w}x{h}x{c}", *r] for r in versus(ours, fns, args.samples)]

    rows += one_image(rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8))
    # multispectral: 8 bands in one launch
    rows += one_image(rng.integers(0, 256, (1024, 1024, 8), dtype=np.uint8))

    # ---- OpenCV's area filter: a photo shrunk 3x and 1.5x (cv2.resize's map), against
    # cv2.resize(INTER_AREA) and warpkit's own linear of the same map
    photo = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    area_rows = []
    for w, h in [(640, 360), (1280, 720)]:
        sx, sy = w / 1920, h / 1080
        m = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])
        ours = warpkit_calls(lambda q, m=m, w=w, h=h: warpkit.warp_affine(
            photo, m, (w, h), interpolation="area", padding="border", queue=q), pq)
        fns = {"warpkit linear": lambda m=m, w=w, h=h: warpkit.warp_affine(
            photo, m, (w, h), padding="border")}
        if cv2 is not None:
            fns["cv2.resize INTER_AREA"] = lambda w=w, h=h: cv2.resize(
                photo, (w, h), interpolation=cv2.INTER_AREA)
        area_rows += [[f"1920x1080x3 -> {w}x{h}", *r] for r in versus(ours, fns, args.samples)]
    print(table("uint8 resizes by the area filter (interpolation='area'), ms", area_rows,
                ["case", *VERSUS]))

    # ---- linear resizes: axis-aligned maps, 16 rows per work-item (engine.coords.
    # rows_per_item), cv2.resize's map, against cv2.resize(INTER_LINEAR) (its weights rounded
    # to 11 bits, so within a level of warpkit's)
    linear_rows = []
    for (sw, sh), (w, h) in [((1920, 1080), (640, 360)), ((520, 500), (640, 615)),
                             ((640, 480), (1280, 960))]:
        src = rng.integers(0, 256, (sh, sw, 3), dtype=np.uint8)
        sx, sy = w / sw, h / sh
        m = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])
        ours = warpkit_calls(lambda q, src=src, m=m, w=w, h=h: warpkit.warp_affine(
            src, m, (w, h), padding="border", queue=q), pq)
        fns = {}
        if cv2 is not None:
            fns["cv2.resize INTER_LINEAR"] = lambda src=src, w=w, h=h: cv2.resize(
                src, (w, h), interpolation=cv2.INTER_LINEAR)
        linear_rows += [[f"{sw}x{sh}x3 -> {w}x{h}", *r] for r in versus(ours, fns, args.samples)]
    print(table("uint8 linear resizes (cv2.resize's map), ms", linear_rows, ["case", *VERSUS]))

    # ---- batch
    batch = rng.integers(0, 256, (64, 224, 224, 3), dtype=np.uint8)
    mats = np.stack([g.compose(g.rotation(a, (111.5, 111.5)), g.scale(s, center=(111.5, 111.5)))
                     for a, s in zip(rng.uniform(-30, 30, 64), rng.uniform(0.8, 1.2, 64))])
    ours = {"warpkit": lambda: warpkit.warp_affine(batch, mats)}
    fns = {}
    if cv2 is not None:
        Ms = [g.to_cv2(x) for x in mats]
        fns["cv2 loop"] = lambda: np.stack([cv2.warpAffine(b, M_, (224, 224)) for b, M_ in zip(batch, Ms)])
    pils = [Image.fromarray(b) for b in batch]
    datas = [g.to_pillow(x) for x in mats]
    fns["Pillow loop"] = lambda: np.stack([np.asarray(p.transform((224, 224), Image.Transform.AFFINE, d,
                                                                  Image.Resampling.BILINEAR))
                                           for p, d in zip(pils, datas)])
    rows += [["64x224x224x3", *r] for r in versus(ours, fns, args.samples)]
    print(table("uint8 affine warps, bilinear, constant fill, ms", rows, ["case", *VERSUS]))


if __name__ == "__main__":
    main()
