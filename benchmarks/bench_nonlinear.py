"""Non-linear warps: warpkit's ElasticTransform, GridDistortion, OpticalDistortion,
ThinPlateSpline, PiecewiseAffine and GridElasticDeform (stages evaluated in the warp kernel) against
albumentations' transforms of the same names and parameters (per image in one process, and on 2
ideal cores: its time with OpenCV on one thread, halved, as 2 worker processes would give it
with perfect scaling and free transfer of the results), kornia's elastic transform (CPU, a batch), warpkit.remap against cv2.remap
with a precomputed map, and warpkit.undistort against cv2.undistort.

Inputs: 32 photos of 512x384 RGB uint8 (smooth content, like a photo's); each library draws its
own random parameters, with the same ranges. Times are per 32 images, end to end (parameters,
field, warp).

    python benchmarks/bench_nonlinear.py [--samples 9] [--only PiecewiseAffine ...] [--no-remap]
"""

from __future__ import annotations

import argparse

import numpy as np

from _harness import ideal_scaling, interleaved, one_thread, optional, set_threads, table

N, W, H = 32, 512, 384

#: (warpkit transform, albumentations transform, their shared parameters)
CASES = {
    "ElasticTransform": dict(alpha=120.0, sigma=6.0),
    "GridDistortion": dict(num_steps=5, distort_limit=(-0.3, 0.3)),
    "OpticalDistortion": dict(distort_limit=(-0.3, 0.3)),
    "ThinPlateSpline": dict(scale_range=(0.2, 0.4), num_control_points=4),
    "PiecewiseAffine": dict(scale=(0.03, 0.05), nb_rows=4, nb_cols=4),
    "GridElasticDeform": dict(num_grid_xy=(4, 4), magnitude=10),
}
#: albumentations' PiecewiseAffine loops over pixels in Python (seconds per image): it runs on
#: the first SLOW_N photos, 3 rounds; the times are scaled to 32 images
SLOW = {"PiecewiseAffine": 2}


def photos(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    out = []
    for _ in range(N):
        base = np.sin(xx / rng.uniform(5, 40)) * np.cos(yy / rng.uniform(5, 40))
        out.append(np.clip(128 + 100 * base[..., None] * rng.uniform(0.3, 1, 3), 0, 255))
    return np.stack(out).astype(np.uint8)


def warpkit_runs(name: str, data: np.ndarray):
    from warpkit import augment

    pipe = augment.Compose([getattr(augment, name)(p=1.0, **CASES[name])])
    epoch = [0]

    def per_image():
        epoch[0] += 1
        return [pipe(image=img, seed=0, epoch=epoch[0], index=i)["image"]
                for i, img in enumerate(data)]

    def per_batch():
        epoch[0] += 1
        return pipe(image=data, seed=0, epoch=epoch[0])["image"]

    return per_image, per_batch


def albumentations_transform(name: str):
    import albumentations as A

    return A.Compose([getattr(A, name)(p=1.0, **CASES[name])])


def kornia_elastic(data: np.ndarray):
    import kornia.augmentation as K
    import torch

    # kornia's sigma and alpha act on normalised coordinates and a 63-tap kernel: the nearest
    # it has to albumentations' (alpha 120, sigma 6) on 512 px
    aug = K.RandomElasticTransform(kernel_size=(63, 63), sigma=(6.0, 6.0), alpha=(0.5, 0.5),
                                   p=1.0)
    x = torch.from_numpy(data).permute(0, 3, 1, 2).float() / 255

    def run():
        with torch.no_grad():
            return aug(x)

    return run


def remap_runs():
    import cv2

    import warpkit

    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    ys, xs = np.mgrid[0:1080, 0:1920].astype(np.float32)
    mx = (xs * 0.95 + 20 + 5 * np.sin(ys / 50)).astype(np.float32)
    my = (ys * 0.95 + 20 + 5 * np.cos(xs / 60)).astype(np.float32)
    return {"warpkit.remap": lambda: warpkit.remap(img, mx, my),
            "cv2.remap": lambda: cv2.remap(img, mx, my, cv2.INTER_LINEAR)}


def undistort_runs():
    import cv2

    import warpkit

    rng = np.random.default_rng(2)
    img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    K = np.array([[1400.0, 0, 959.5], [0, 1400.0, 539.5], [0, 0, 1]])
    d = np.array([-0.28, 0.09, 0.001, -0.002])
    return {"warpkit.undistort": lambda: warpkit.undistort(img, K, d),
            "cv2.undistort": lambda: cv2.undistort(img, K, d)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=9)
    ap.add_argument("--only", nargs="*", choices=sorted(CASES), help="these transforms only")
    ap.add_argument("--no-remap", action="store_true", help="skip the remap comparison")
    args = ap.parse_args()
    set_threads()
    full = photos()
    have_alb = optional("albumentations") is not None
    have_kornia = optional("kornia") is not None
    rows = []
    for name in args.only or CASES:
        n = SLOW.get(name, N)
        data = full[:n]
        per_image, per_batch = warpkit_runs(name, data)
        fns = {"warpkit per image": per_image, "warpkit per batch": per_batch}
        if have_alb:
            pipe = albumentations_transform(name)
            fns["albumentations, 1 process"] = lambda pipe=pipe: [pipe(image=img)["image"]
                                                                  for img in data]
            fns["albumentations, 1 thread"] = one_thread(fns["albumentations, 1 process"])
        if have_kornia and name == "ElasticTransform":
            fns["kornia, a batch"] = kornia_elastic(data)
        res = interleaved(fns, samples=args.samples if n == N else 3, warmup=1)
        if have_alb:
            res["albumentations, 2 ideal cores"] = ideal_scaling(
                res.pop("albumentations, 1 thread"))
        ref = res["warpkit per image"].median
        for who, t in res.items():
            rows.append([name, who, f"{n / t.median:.1f}", f"{t.median * N / n * 1e3:.1f}",
                         f"{t.median / ref:.2f}x"])
    print(table(f"Non-linear transforms, {N} photos {W}x{H} RGB uint8", rows,
                ["transform", "who", "images/s", "ms per 32", "time / warpkit per image"]))
    if args.no_remap:
        return
    res = interleaved(remap_runs(), samples=args.samples, warmup=1)
    ref = res["warpkit.remap"].median
    print(table("remap, 1920x1080 RGB uint8, bilinear, a precomputed float32 map",
                [[who, f"{t.median * 1e3:.2f}", f"{t.median / ref:.2f}x"]
                 for who, t in res.items()], ["who", "ms", "time / warpkit"]))
    res = interleaved(undistort_runs(), samples=args.samples, warmup=1)
    ref = res["warpkit.undistort"].median
    print(table("undistort, 1920x1080 RGB uint8, bilinear, k1 k2 p1 p2 (no map given)",
                [[who, f"{t.median * 1e3:.2f}", f"{t.median / ref:.2f}x"]
                 for who, t in res.items()], ["who", "ms", "time / warpkit"]))


if __name__ == "__main__":
    main()
