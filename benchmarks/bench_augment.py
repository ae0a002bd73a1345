"""Augmentation pipelines: RandomResizedCrop(224) + horizontal flip + RandomAffine(15 degrees,
scale 0.9-1.1) + normalisation to float32 CHW, on a ragged list of 64 photos of 400-640 px,
without and with targets (a mask, 10 boxes, 17 keypoints per image); images/s.

warpkit per batch (one pipeline call for the list) and per sample (64 calls, results in a list as
albumentations' are); albumentations 2 in one process (OpenCV on 2 threads), and on 2 ideal
cores: its time with OpenCV on one thread, halved (perfect scaling over 2 worker processes, with
no cost to send the results back: its best case; a real pool pickles 38 MB of float32 per batch
back to the parent); kornia 0.9 on the CPU, one call per photo (its batches need one size).
Besides: warpkit through warpkit.augment.batches (one batch prepared ahead), the raw warp of
the same batch with its maps made beforehand (what the pipeline adds to a warp), albumentations
in a real torch DataLoader with 2 workers (timed alone: its workers run ahead), and the device
path's host work per call (a pyopencl batch in and out).
A third table times colour in the pass (issue 42's benchmark): RandomResizedCrop(224) + flip +
ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8) + ToGray(p=0.2) to float32 CHW, against the same
pipeline without the colour steps and against albumentations (one process, and 2 ideal cores);
ColorJitter's contrast takes the passes after the warp (the image's mean), so the table also
times it without the contrast. A fourth times GaussNoise(p=0.5) + CoarseDropout(1-4 holes,
p=0.5) after the same geometry, made in the warp's store, against albumentations; a fifth
GaussianBlur(p=0.5) (a pass after the warp), with each blur (GaussianBlur, MotionBlur, Blur,
MedianBlur, AdvancedBlur, Defocus, RingingOvershoot, UnsharpMask, ZoomBlur), CLAHE, Equalize,
AutoContrast, AdditiveNoise (Beta per pixel), ISONoise, SaltAndPepper, ShotNoise, PixelDropout, GridDropout,
Downscale and ImageCompression (a JPEG round trip) on every sample beside it, and five pointwise transforms (ToSepia,
PlanckianJitter, RandomToneCurve, MultiplicativeNoise, ChannelDropout) at p=0.5. Another times
HistogramMatching on every sample (each call passing 3 of the photos as its references);
FDA likewise. Two time the steps on the host, between two passes: a Lambda (a gamma table)
before ColorJitter, against the one pass without it and with an identity Lambda (the split's
own cost); WebP, inpainting, Superpixels and fitted HEStain each on every sample.
torchvision's v2 transforms are not a peer here: torchvision from PyPI does not load beside this
torch build. warpkit normalises inside the warp kernel (float32, channels first); the ragged
list is packed into one buffer and warped in one launch (warp.warp_batch), masks in a second.

A sixth times a detection recipe whose crop reads the boxes (BBoxSafeRandomCrop + the YOLO
letterbox + flip, 10 boxes a photo) against albumentations'; a seventh the YOLO-style recipe
(Mosaic + Affine + HueSaturationValue + flip + letterbox to 640) against albumentations' own
Mosaic pipeline, each photo given three others as its mosaic_metadata.

The pipeline table and the colour, noise and blur tables also time warpkit's (first) run by its
kernels alone: the device time of every kernel the call launched (OpenCL events on a profiling
queue), and what ratio against albumentations a call with no host work at all would reach.

    python benchmarks/bench_augment.py [--samples 5] [--colour-only] [--detection-only]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _harness import (THREADS, Timing, ideal_scaling, interleaved, one_thread, optional,
                      profiling_queue, set_threads, table, warpkit_calls)

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
N = 64


def photos(seed: int = 0):
    """64 photos of 400-640 px per side (smooth content, like a photo's), each with a mask, 10
    boxes and 17 keypoints."""
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(N):
        h, w = rng.integers(400, 641, 2)
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.sin(xx / rng.uniform(5, 40)) * np.cos(yy / rng.uniform(5, 40))
        img = np.clip(128 + 100 * base[..., None] * rng.uniform(0.3, 1, 3), 0, 255)
        img = img.astype(np.uint8)
        mask = (base > 0.3).astype(np.uint8)
        x1 = rng.uniform(0, w * 0.7, 10)
        y1 = rng.uniform(0, h * 0.7, 10)
        boxes = np.stack([x1, y1, x1 + rng.uniform(10, w * 0.3, 10),
                          y1 + rng.uniform(10, h * 0.3, 10)], 1)
        kps = np.stack([rng.uniform(0, w - 1, 17), rng.uniform(0, h - 1, 17)], 1)
        data.append((img, mask, boxes, list(range(10)), kps))
    return data


def warpkit_runs(data, targets: bool):
    from warpkit.augment import Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop

    pipe = Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
                    RandomAffine(degrees=15, scale=(0.9, 1.1))], output_dtype="float32",
                   mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")
    images = [d[0] for d in data]
    kw = {}
    if targets:
        kw = dict(mask=[d[1] for d in data], boxes=[d[2] for d in data],
                  labels=[d[3] for d in data], keypoints=[d[4] for d in data])
    epoch = [0]

    def per_batch(queue=None):
        epoch[0] += 1
        out = pipe(image=images, seed=0, epoch=epoch[0], index=0, queue=queue, **kw)
        return np.asarray(out["image"])

    def per_sample():
        """64 calls of one sample each, their results in a list as albumentations' are (a
        stack to one batch is the DataLoader's collation, on either side: ~8 ms for 38 MB)."""
        epoch[0] += 1
        outs = []
        for i, d in enumerate(data):
            t = dict(mask=d[1], boxes=d[2], labels=d[3], keypoints=d[4]) if targets else {}
            outs.append(pipe(image=d[0], seed=0, epoch=epoch[0], index=i, **t)["image"])
        return outs

    def raw_warp():
        """The same batch's warp alone, its maps made beforehand (what the pipeline adds to a
        warp is drawing, maps and targets)."""
        return warp_batch(images, mats, (224, 224), output_dtype="float32",
                          mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")

    def streamed():
        """Per batch through warpkit.augment.batches, 4 batches a round with one prepared ahead
        (the host work of batch k + 1 beside the wait for batch k's kernel); time per batch."""
        epoch[0] += 1
        t0 = time.perf_counter()
        for out in batches([{"image": images, **kw}] * 4, pipe, seed=0, epoch=epoch[0]):
            np.asarray(out["image"])
        return (time.perf_counter() - t0) / 4

    from warpkit.augment import batches
    from warpkit.warp import warp_batch

    mats = pipe(image=images, seed=0)["matrix"]
    return per_batch, per_sample, raw_warp, streamed


def device_host_work(data):
    """The pipeline on the device path (a uniform (64, 480, 640, 3) batch as a pyopencl array
    in, a device float32 CHW batch out): the host's time per call (nothing waits) and the call
    with its kernel finished. On a GPU the first is the host work per batch."""
    import pyopencl.array as cla

    import warpkit
    from warpkit.augment import Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop

    pipe = Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
                    RandomAffine(degrees=15, scale=(0.9, 1.1))], output_dtype="float32",
                   mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")
    q = warpkit.get_runtime().queue
    batch = cla.to_device(q, np.stack([d[0][:400, :400] for d in data]))
    calls = [0]

    def host_only():
        calls[0] += 1
        t0 = time.perf_counter()
        out = pipe(image=batch, seed=0, index=64 * calls[0])
        dt = time.perf_counter() - t0
        out["image"].finish()
        return dt

    def finished():
        calls[0] += 1
        pipe(image=batch, seed=0, index=64 * calls[0])["image"].finish()

    return host_only, finished


def one_cv2_thread(_worker: int) -> None:
    """A spawned DataLoader worker's init: OpenCV on one thread (2 workers on 2 cores; OpenCV's
    own threads in each would fight over them), albumentations' best setup in a pool. (Not for
    forked workers: OpenCV's thread pool does not survive a fork, and resizing it there hangs.)"""
    import cv2

    cv2.setNumThreads(1)


def albumentations_loader(pipe, data, targets: bool, batches: int):
    """albumentations in a real torch DataLoader, 2 worker processes (fork), persistent, batches
    of 64 sent back through shared memory as a DataLoader does: seconds per batch in a steady
    stream (its workers run ahead, so it is timed alone, not interleaved)."""
    import torch

    class Photos(torch.utils.data.Dataset):
        def __len__(self):
            return N * (batches + 2)

        def __getitem__(self, i):
            return torch.from_numpy(albumentations_one(pipe, data[i % N], targets))

    import cv2

    # forked workers inherit OpenCV on one thread (2 workers on 2 cores: OpenCV's own threads in
    # each would fight over them); the parent's setting comes back once they run
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    loader = torch.utils.data.DataLoader(Photos(), batch_size=N, num_workers=THREADS,
                                         persistent_workers=True,
                                         multiprocessing_context="fork")
    it = iter(loader)
    next(it)
    next(it)  # workers started, the stream running
    cv2.setNumThreads(threads)
    t0 = time.perf_counter()
    for _ in range(batches):
        next(it)
    dt = (time.perf_counter() - t0) / batches
    del it, loader
    return dt


def albumentations_pipeline(targets: bool):
    import albumentations as A

    steps = [A.RandomResizedCrop(size=(224, 224)), A.HorizontalFlip(),
             A.Affine(rotate=(-15, 15), scale=(0.9, 1.1)),
             A.Normalize(mean=MEAN.tolist(), std=STD.tolist())]
    if not targets:
        return A.Compose(steps)
    return A.Compose(steps, bbox_params=A.BboxParams(format="pascal_voc",
                                                     label_fields=["labels"]),
                     keypoint_params=A.KeypointParams(format="xy", remove_invisible=True))


def albumentations_one(pipe, d, targets: bool):
    img, mask, boxes, labels, kps = d
    if targets:
        h, w = img.shape[:2]
        b = np.clip(boxes, 0, [w, h, w, h])
        r = pipe(image=img, mask=mask, bboxes=b, labels=labels, keypoints=kps)
    else:
        r = pipe(image=img)
    # float32 CHW as ToTensorV2 gives it: a view, no copy (the peer's best case; warpkit's
    # kernel stores channels first)
    return r["image"].transpose(2, 0, 1)


def kornia_run(data, targets: bool):
    import kornia.augmentation as K
    import torch

    keys = ["input", "mask", "bbox_xyxy", "keypoints"] if targets else ["input"]
    aug = K.AugmentationSequential(
        K.RandomResizedCrop((224, 224)), K.RandomHorizontalFlip(),
        K.RandomAffine(degrees=15, scale=(0.9, 1.1)),
        K.Normalize(mean=torch.tensor(MEAN), std=torch.tensor(STD)), data_keys=keys)
    tensors = []
    for img, mask, boxes, _, kps in data:
        t = [torch.from_numpy(img).permute(2, 0, 1)[None].float() / 255]
        if targets:
            t += [torch.from_numpy(mask)[None, None].float(),
                  torch.from_numpy(boxes)[None].float(), torch.from_numpy(kps)[None].float()]
        tensors.append(t)

    def run():
        outs = [aug(*t) for t in tensors]
        return torch.cat([o[0] if isinstance(o, list) else o for o in outs])

    return run


def pass_runs(data, warpkit_steps: dict, albumentations_steps, also: dict | None = None,
              passed: dict | None = None, each: dict | None = None,
              one_sample: tuple[str, ...] = ()) -> dict:
    """A table's callables after RandomResizedCrop(224) + flip, to the normalised float32 CHW
    input: warpkit with each list of ``warpkit_steps`` (one call per batch), and, where
    ``albumentations_steps`` makes a list (None: not installed), albumentations with it in one
    process and on one thread (for 2 ideal cores); ``also``: more albumentations peers, a
    name (the warpkit row they match) -> a maker of their steps; ``passed``: keywords every
    call passes (HistogramMatching's reference images), to both libraries; ``each``: keywords
    every sample passes as its own (OverlayElements' elements: warpkit's batch call takes one
    value per sample); ``one_sample``: the warpkit rows also timed one sample per call (as a
    Dataset's ``__getitem__`` calls it: 64 calls, their results in a list), named
    "<row>, one sample per call"."""
    images = [d[0] for d in data]
    per_image = {**(passed or {}), **(each or {})}
    passed = {**(passed or {}), **{k: [v] * len(images) for k, v in (each or {}).items()}}
    from warpkit.augment import Compose, RandomHorizontalFlip, RandomResizedCrop

    model = dict(output_dtype="float32", mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")
    geometry = [RandomResizedCrop(224), RandomHorizontalFlip()]
    epoch = [0]

    def call(pipe):
        def run(queue=None):
            epoch[0] += 1
            return pipe(image=images, seed=0, epoch=epoch[0], queue=queue, **passed)["image"]
        return run

    def each_call(pipe):
        def run():
            epoch[0] += 1
            return [pipe(image=img, seed=0, epoch=epoch[0], index=i, **per_image)["image"]
                    for i, img in enumerate(images)]
        return run

    pipes = {name: Compose(geometry + steps, **model) for name, steps in warpkit_steps.items()}
    fns = {name: call(pipe) for name, pipe in pipes.items()}
    fns[KERNELS] = kernels_alone(next(iter(fns.values())))
    for name in one_sample:
        fns[f"{name}{ONE_SAMPLE}"] = each_call(pipes[name])
    if albumentations_steps is None:
        return fns
    import albumentations as A

    # the peer of warpkit row "warpkit, X" is "albumentations, ... (X)"
    for suffix, steps in {"": albumentations_steps,
                          **{f" ({k.removeprefix('warpkit, ')})": v
                             for k, v in (also or {}).items()}}.items():
        pipe = A.Compose([A.RandomResizedCrop(size=(224, 224)), A.HorizontalFlip(), *steps(A),
                          A.Normalize(mean=MEAN.tolist(), std=STD.tolist())])
        one = (lambda p: lambda: [p(image=i, **per_image)["image"].transpose(2, 0, 1)
                                  for i in images])(pipe)
        fns[f"albumentations, 1 process{suffix}"] = one
        fns[f"albumentations, 1 thread{suffix}"] = one_thread(one)
    return fns


def colour_runs(data, have_alb: bool) -> dict:
    """The colour table: warpkit with and without the colour steps (and without the contrast,
    whose mean takes the passes after the warp), albumentations."""
    from warpkit.augment import ColorJitter, ToGray

    return pass_runs(data, {
        "warpkit, geometry and colour": [ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8), ToGray(p=0.2)],
        "warpkit, the same without the contrast (one pass)":
            [ColorJitter(0.4, 0, 0.4, 0.1, p=0.8), ToGray(p=0.2)],
        "warpkit, geometry alone": []},
        (lambda A: [A.ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8), A.ToGray(p=0.2)])
        if have_alb else None, one_sample=("warpkit, geometry and colour",))


def noise_runs(data, have_alb: bool) -> dict:
    """Noise and dropout in the pass: warpkit with and without them, albumentations."""
    from warpkit.augment import CoarseDropout, GaussNoise

    return pass_runs(data, {
        "warpkit, geometry, noise and dropout":
            [GaussNoise(p=0.5), CoarseDropout(num_holes_range=(1, 4), p=0.5)],
        "warpkit, geometry alone": []},
        (lambda A: [A.GaussNoise(p=0.5), A.CoarseDropout(num_holes_range=(1, 4), p=0.5)])
        if have_alb else None)


def stain_runs(data, have_alb: bool) -> dict:
    """HEStain on every sample (albumentations' defaults: a random preset) in the pass:
    warpkit with and without it, albumentations."""
    from warpkit.augment import HEStain

    return pass_runs(data, {"warpkit, geometry and HEStain": [HEStain(p=1)],
                            "warpkit, geometry alone": []},
                     (lambda A: [A.HEStain(p=1)]) if have_alb else None)


def matching_runs(data, have_alb: bool) -> dict:
    """HistogramMatching on every sample (blend_ratio 0.5-1, its default), each call passing 3
    of the batch's photos as the reference images: warpkit with and without it, albumentations
    (each photo matched to one of the same 3)."""
    from warpkit.augment import HistogramMatching

    refs = {"hm_metadata": [d[0] for d in data[:3]]}
    return pass_runs(data, {"warpkit, geometry and HistogramMatching": [HistogramMatching(p=1)],
                            "warpkit, geometry alone": []},
                     (lambda A: [A.HistogramMatching(p=1)]) if have_alb else None,
                     passed=refs)


def fda_runs(data, have_alb: bool) -> dict:
    """FDA on every sample (beta_limit 0-0.1, its default), each call passing 3 of the batch's
    photos as the reference images: warpkit with and without it, albumentations (each photo
    adapted to one of the same 3)."""
    from warpkit.augment import FDA

    refs = {"fda_metadata": [d[0] for d in data[:3]]}
    return pass_runs(data, {"warpkit, geometry and FDA": [FDA(p=1)],
                            "warpkit, geometry alone": []},
                     (lambda A: [A.FDA(p=1)]) if have_alb else None, passed=refs)


def flare_runs(data, have_alb: bool) -> dict:
    """RandomSunFlare's physics-based method on every sample (albumentations' defaults
    otherwise): warpkit with it, with the overlay method and with neither, albumentations with
    each method."""
    from warpkit.augment import RandomSunFlare

    return pass_runs(data, {
        "warpkit, geometry and RandomSunFlare (physics_based)":
            [RandomSunFlare(method="physics_based", p=1)],
        "warpkit, geometry and RandomSunFlare (overlay)": [RandomSunFlare(p=1)],
        "warpkit, geometry alone": []},
        (lambda A: [A.RandomSunFlare(method="physics_based", p=1)]) if have_alb else None,
        {"warpkit, geometry and RandomSunFlare (overlay)": lambda A: [A.RandomSunFlare(p=1)]})


def overlay_runs(data, have_alb: bool) -> dict:
    """OverlayElements on every sample, after the geometry: three elements (pieces of the
    photos: a 64 x 64 sticker in a box with a disc's mask, two of 48 x 48 placed at random),
    each sample's own; warpkit with and without it, albumentations."""
    from warpkit.augment import OverlayElements

    yy, xx = np.mgrid[:80, :80]
    disc = (((yy - 40) ** 2 + (xx - 40) ** 2) < 38 ** 2).astype(np.uint8)
    photo = data[0][0]
    elements = [{"image": photo[:80, :80].copy(), "bbox": [0.1, 0.1, 0.39, 0.39],
                 "mask": disc},
                {"image": photo[100:148, 100:148].copy()},
                {"image": photo[200:248, 50:98].copy()}]
    return pass_runs(data, {
        "warpkit, geometry and OverlayElements": [OverlayElements(p=1)],
        "warpkit, geometry alone": []},
        (lambda A: [A.OverlayElements(p=1)]) if have_alb else None,
        each={"overlay_metadata": elements})


def spatter_runs(data, have_alb: bool) -> dict:
    """Spatter on every sample (albumentations' defaults: rain; and mud): warpkit with each mode
    and without, albumentations with each."""
    from warpkit.augment import Spatter

    return pass_runs(data, {
        "warpkit, geometry and Spatter (rain)": [Spatter(p=1)],
        "warpkit, geometry and Spatter (mud)": [Spatter(mode="mud", p=1)],
        "warpkit, geometry alone": []},
        (lambda A: [A.Spatter(p=1)]) if have_alb else None,
        {"warpkit, geometry and Spatter (mud)": lambda A: [A.Spatter(mode="mud", p=1)]})


#: a gamma of 0.8 as an 8-bit table: the Lambda table's function
_GAMMA = np.round(255 * (np.arange(256) / 255) ** 0.8).astype(np.uint8)


def gamma_table(img, **kw):
    """The Lambda table's function: a table lookup of each level (numpy, the same on both
    sides)."""
    return _GAMMA[img]


def lambda_runs(data, have_alb: bool) -> dict:
    """A Lambda (a gamma table, numpy) between the flip and ColorJitter: warpkit's two passes
    (the first in uint8, the function, the second to the model's input), the same without the
    Lambda (one pass), and with an identity function (the split's own cost); albumentations."""
    import warpkit.augment as W
    from warpkit.augment import Lambda

    def jitter(m):
        return [m.ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8)]

    return pass_runs(data, {
        "warpkit, geometry, Lambda and ColorJitter": [Lambda(image=gamma_table),
                                                      *jitter(W)],
        "warpkit, geometry, identity Lambda and ColorJitter": [
            Lambda(image=lambda x, **kw: x), *jitter(W)],
        "warpkit, geometry and ColorJitter (one pass)": jitter(W)},
        (lambda A: [A.Lambda(image=gamma_table), *jitter(A)]) if have_alb else None)


def host_runs(data, have_alb: bool) -> dict:
    """The other steps on the host, each on every sample after the same geometry: WebP
    (quality 50-90), inpainting CoarseDropout (1-4 holes, Telea), Superpixels (its defaults:
    about 100 segments at 128 px), fitted HEStain (macenko), and the same geometry alone;
    albumentations with each."""
    import warpkit.augment as W

    def steps(m):
        return {"WebP": [m.ImageCompression(compression_type="webp", quality_range=(50, 90),
                                            p=1)],
                "inpainting": [m.CoarseDropout(num_holes_range=(1, 4), fill="inpaint_telea",
                                               p=1)],
                "Superpixels": [m.Superpixels(p=1)],
                "HEStain macenko": [m.HEStain(method="macenko", p=1)]}

    ours = {f"warpkit, geometry and {k}": v for k, v in steps(W).items()}
    first = next(iter(ours))
    return pass_runs(data, {**ours, "warpkit, geometry alone": []},
                     (lambda A: steps(A)["WebP"]) if have_alb else None,
                     {k: (lambda A, name=k.removeprefix("warpkit, geometry and "):
                          steps(A)[name]) for k in ours if k != first})


#: Downscale's interpolation pair of two real resamplings (cv2.INTER_AREA down, INTER_LINEAR up)
AREA_LINEAR = {"downscale": 3, "upscale": 1}


def blur_runs(data, have_alb: bool) -> dict:
    """GaussianBlur's pass: warpkit with and without it (p=0.5, and p=1; MotionBlur, Blur,
    MedianBlur, AdvancedBlur, Defocus, RingingOvershoot, UnsharpMask, ZoomBlur, CLAHE, Equalize,
    AutoContrast, RandomSnow (bleach, and texture), ChromaticAberration, Illumination (its three modes in a OneOf),
    RandomGravel, RandomShadow, Morphological (a dilation and an erosion with 5 x 5 elements,
    one a sample), RandomSunFlare, RandomFog, RandomRain (and with drops 3 px wide), GlassBlur, PlasmaBrightnessContrast,
    PlasmaShadow, AdditiveNoise (Beta per pixel), ISONoise, SaltAndPepper, ShotNoise, PixelDropout,
    GridDropout, Downscale (and with cv2.INTER_AREA down, INTER_LINEAR up) and ImageCompression
    at p=1, their defaults; ToSepia,
    PlanckianJitter, RandomToneCurve, MultiplicativeNoise and ChannelDropout at p=0.5, in the warp's store; ToGray's from_lab
    and pca at p=1), albumentations doing the same (each such row has its own albumentations
    peer)."""
    import warpkit.augment as W
    from warpkit.augment import (CLAHE, AdvancedBlur, AutoContrast, Blur, ChromaticAberration,
                                 Defocus, Downscale, Equalize, GaussianBlur, GridDropout,
                                 ImageCompression, ISONoise, MedianBlur, MotionBlur,
                                 PixelDropout, RandomSnow, RingingOvershoot, SaltAndPepper,
                                 ShotNoise, UnsharpMask, ZoomBlur)

    def light(m):  # Illumination's three modes, one a sample
        return m.OneOf([m.Illumination(mode=k, p=1) for k in ("linear", "corner", "gaussian")])

    def morph(m):  # a dilation or an erosion with a 5 x 5 element, one a sample
        return m.OneOf([m.Morphological((5, 5), op, p=1) for op in ("dilation", "erosion")])

    def pixel(m):  # the same five from warpkit.augment (W) or albumentations (A)
        return [m.ToSepia(p=0.5), m.PlanckianJitter(p=0.5), m.RandomToneCurve(p=0.5),
                m.MultiplicativeNoise(p=0.5), m.ChannelDropout(p=0.5)]

    return pass_runs(data, {
        "warpkit, geometry and blur": [GaussianBlur(p=0.5)],
        "warpkit, geometry and blur on every sample": [GaussianBlur(p=1)],
        "warpkit, geometry and MotionBlur on every sample": [MotionBlur(p=1)],
        "warpkit, geometry and Blur on every sample": [Blur(p=1)],
        "warpkit, geometry and MedianBlur on every sample": [MedianBlur(p=1)],
        "warpkit, geometry and CLAHE on every sample": [CLAHE(p=1)],
        "warpkit, geometry and Equalize on every sample": [Equalize(p=1)],
        "warpkit, geometry and AutoContrast on every sample": [AutoContrast(p=1)],
        "warpkit, geometry and AdditiveNoise (Beta per pixel) on every sample":
            [W.AdditiveNoise("beta", "per_pixel", p=1)],
        "warpkit, geometry and ISONoise on every sample": [ISONoise(p=1)],
        "warpkit, geometry and SaltAndPepper on every sample": [SaltAndPepper(p=1)],
        "warpkit, geometry and ShotNoise on every sample": [ShotNoise(p=1)],
        "warpkit, geometry and PixelDropout on every sample": [PixelDropout(p=1)],
        "warpkit, geometry and GridDropout on every sample": [GridDropout(p=1)],
        "warpkit, geometry and AdvancedBlur on every sample": [AdvancedBlur(p=1)],
        "warpkit, geometry and Defocus on every sample": [Defocus(p=1)],
        "warpkit, geometry and RingingOvershoot on every sample": [RingingOvershoot(p=1)],
        "warpkit, geometry and UnsharpMask on every sample": [UnsharpMask(p=1)],
        "warpkit, geometry and ZoomBlur on every sample": [ZoomBlur(p=1)],
        "warpkit, geometry and RandomSnow on every sample": [RandomSnow(p=1)],
        "warpkit, geometry and RandomSnow (texture) on every sample":
            [RandomSnow(method="texture", p=1)],
        "warpkit, geometry and ChromaticAberration on every sample": [ChromaticAberration(p=1)],
        "warpkit, geometry and Illumination on every sample": [light(W)],
        "warpkit, geometry and RandomGravel on every sample": [W.RandomGravel(p=1)],
        "warpkit, geometry and RandomShadow on every sample": [W.RandomShadow(p=1)],
        "warpkit, geometry and Morphological on every sample": [morph(W)],
        "warpkit, geometry and RandomSunFlare on every sample": [W.RandomSunFlare(p=1)],
        "warpkit, geometry and RandomFog on every sample": [W.RandomFog(p=1)],
        "warpkit, geometry and RandomRain on every sample": [W.RandomRain(p=1)],
        "warpkit, geometry and RandomRain (drop_width 3) on every sample":
            [W.RandomRain(drop_width=3, p=1)],
        "warpkit, geometry and GlassBlur on every sample": [W.GlassBlur(p=1)],
        "warpkit, geometry and PlasmaBrightnessContrast on every sample":
            [W.PlasmaBrightnessContrast(p=1)],
        "warpkit, geometry and PlasmaShadow on every sample": [W.PlasmaShadow(p=1)],
        "warpkit, geometry and Downscale on every sample": [Downscale(p=1)],
        "warpkit, geometry and Downscale (area down, linear up) on every sample":
            [Downscale(interpolation_pair=AREA_LINEAR, p=1)],
        "warpkit, geometry and ImageCompression on every sample": [ImageCompression(p=1)],
        "warpkit, geometry and 5 pixel transforms (p=0.5)": pixel(W),
        "warpkit, geometry and ToGray from_lab on every sample": [W.ToGray(method="from_lab", p=1)],
        "warpkit, geometry and ToGray pca on every sample": [W.ToGray(method="pca", p=1)],
        "warpkit, geometry alone": []},
        (lambda A: [A.GaussianBlur(p=0.5)]) if have_alb else None,
        {"warpkit, geometry and blur on every sample": lambda A: [A.GaussianBlur(p=1)],
         "warpkit, geometry and MotionBlur on every sample": lambda A: [A.MotionBlur(p=1)],
         "warpkit, geometry and Blur on every sample": lambda A: [A.Blur(p=1)],
         "warpkit, geometry and MedianBlur on every sample": lambda A: [A.MedianBlur(p=1)],
         "warpkit, geometry and CLAHE on every sample": lambda A: [A.CLAHE(p=1)],
         "warpkit, geometry and Equalize on every sample": lambda A: [A.Equalize(p=1)],
         "warpkit, geometry and AutoContrast on every sample": lambda A: [A.AutoContrast(p=1)],
         "warpkit, geometry and AdditiveNoise (Beta per pixel) on every sample":
             lambda A: [A.AdditiveNoise("beta", "per_pixel", p=1)],
         "warpkit, geometry and ISONoise on every sample": lambda A: [A.ISONoise(p=1)],
         "warpkit, geometry and SaltAndPepper on every sample":
             lambda A: [A.SaltAndPepper(p=1)],
         "warpkit, geometry and ShotNoise on every sample": lambda A: [A.ShotNoise(p=1)],
         "warpkit, geometry and PixelDropout on every sample":
             lambda A: [A.PixelDropout(p=1)],
         "warpkit, geometry and GridDropout on every sample": lambda A: [A.GridDropout(p=1)],
         "warpkit, geometry and AdvancedBlur on every sample": lambda A: [A.AdvancedBlur(p=1)],
         "warpkit, geometry and Defocus on every sample": lambda A: [A.Defocus(p=1)],
         "warpkit, geometry and RingingOvershoot on every sample":
             lambda A: [A.RingingOvershoot(p=1)],
         "warpkit, geometry and UnsharpMask on every sample": lambda A: [A.UnsharpMask(p=1)],
         "warpkit, geometry and ZoomBlur on every sample": lambda A: [A.ZoomBlur(p=1)],
         "warpkit, geometry and RandomSnow on every sample": lambda A: [A.RandomSnow(p=1)],
         "warpkit, geometry and RandomSnow (texture) on every sample":
             lambda A: [A.RandomSnow(method="texture", p=1)],
         "warpkit, geometry and ChromaticAberration on every sample":
             lambda A: [A.ChromaticAberration(p=1)],
         "warpkit, geometry and Illumination on every sample": lambda A: [light(A)],
         "warpkit, geometry and RandomGravel on every sample": lambda A: [A.RandomGravel(p=1)],
         "warpkit, geometry and RandomShadow on every sample": lambda A: [A.RandomShadow(p=1)],
         "warpkit, geometry and Morphological on every sample": lambda A: [morph(A)],
         "warpkit, geometry and RandomSunFlare on every sample":
             lambda A: [A.RandomSunFlare(p=1)],
         "warpkit, geometry and RandomFog on every sample": lambda A: [A.RandomFog(p=1)],
         "warpkit, geometry and RandomRain on every sample": lambda A: [A.RandomRain(p=1)],
         "warpkit, geometry and RandomRain (drop_width 3) on every sample":
             lambda A: [A.RandomRain(drop_width=3, p=1)],
         "warpkit, geometry and GlassBlur on every sample": lambda A: [A.GlassBlur(p=1)],
         "warpkit, geometry and PlasmaBrightnessContrast on every sample":
             lambda A: [A.PlasmaBrightnessContrast(p=1)],
         "warpkit, geometry and PlasmaShadow on every sample": lambda A: [A.PlasmaShadow(p=1)],
         "warpkit, geometry and Downscale on every sample": lambda A: [A.Downscale(p=1)],
         "warpkit, geometry and Downscale (area down, linear up) on every sample":
             lambda A: [A.Downscale(interpolation_pair=AREA_LINEAR, p=1)],
         "warpkit, geometry and ImageCompression on every sample":
             lambda A: [A.ImageCompression(p=1)],
         "warpkit, geometry and 5 pixel transforms (p=0.5)": pixel,
         "warpkit, geometry and ToGray from_lab on every sample":
             lambda A: [A.ToGray(method="from_lab", p=1)],
         "warpkit, geometry and ToGray pca on every sample":
             lambda A: [A.ToGray(method="pca", p=1)]})


def detection_runs(data, have_alb: bool) -> dict:
    """A detection recipe whose crop reads the boxes: BBoxSafeRandomCrop + the YOLO letterbox
    to 640 (LongestMaxSize + PadIfNeeded, fill 114) + flip, with each photo's 10 boxes and
    labels, to uint8 HWC."""
    return boxed_recipe(data, "warpkit, box-safe crop + letterbox", lambda lib: [
        lib.BBoxSafeRandomCrop(), lib.LongestMaxSize(640),
        lib.PadIfNeeded(640, 640, border_mode=0, fill=114), lib.HorizontalFlip()], have_alb)


def area_runs(data, have_alb: bool) -> dict:
    """A letterbox whose resize is OpenCV's area filter (``interpolation=cv2.INTER_AREA``, 3):
    LongestMaxSize(320) + PadIfNeeded(320, 320, fill 114) + flip, with each photo's 10 boxes,
    to uint8 HWC; and the same with the linear resize beside it."""
    fns = boxed_recipe(data, "warpkit, letterbox 320 by the area filter", lambda lib: [
        lib.LongestMaxSize(320, interpolation=3),
        lib.PadIfNeeded(320, 320, border_mode=0, fill=114), lib.HorizontalFlip()], have_alb)
    linear = boxed_recipe(data, "warpkit, letterbox 320, linear", lambda lib: [
        lib.LongestMaxSize(320), lib.PadIfNeeded(320, 320, border_mode=0, fill=114),
        lib.HorizontalFlip()], have_alb)
    fns["warpkit, letterbox 320, linear"] = linear.pop("warpkit, letterbox 320, linear")
    for k, f in linear.items():  # (albumentations' linear rows, for the linear row)
        fns[f"{k} (letterbox 320, linear)"] = f
    return fns


def passes_runs(data, have_alb: bool) -> dict:
    """A letterbox to 320 (grey 114) + flip + an Affine that reflects: settings that change,
    so warpkit resamples in two passes (``passes="as_needed"``), as albumentations resamples
    after each step; and the same with an Affine that fills grey too, one pass, beside it."""
    def steps(border):
        return lambda lib: [
            lib.LongestMaxSize(320), lib.PadIfNeeded(320, 320, border_mode=0, fill=114),
            lib.HorizontalFlip(), lib.Affine(rotate=(-15, 15), scale=(0.8, 1.2),
                                             border_mode=border, fill=114, p=1.0)]

    fns = boxed_recipe(data, "warpkit, letterbox + reflecting Affine, two passes", steps(4),
                       have_alb, passes="as_needed")
    one = boxed_recipe(data, "warpkit, letterbox + grey Affine, one pass", steps(0), have_alb)
    fns["warpkit, letterbox + grey Affine, one pass"] = \
        one.pop("warpkit, letterbox + grey Affine, one pass")
    for k, f in one.items():
        fns[f"{k} (letterbox + grey Affine, one pass)"] = f
    return fns


def edges_runs(data, have_alb: bool, targets: bool = False) -> dict:
    """The main pipeline (RandomResizedCrop(224) + flip + a 15-degree affine, float32 CHW) with
    each step's edges (``edges="each_step"``: albumentations' result at the edges, which its
    steps give anyway) and with one map (``edges="output"``), against albumentations."""
    from warpkit.augment import Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop

    images = [d[0] for d in data]
    kw = dict(mask=[d[1] for d in data], boxes=[d[2] for d in data],
              labels=[d[3] for d in data], keypoints=[d[4] for d in data]) if targets else {}
    fns = {}
    for name, edges in (("warpkit, each step's edges", "each_step"),
                        ("warpkit, one map (edges='output')", "output")):
        pipe = Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
                        RandomAffine(degrees=15, scale=(0.9, 1.1))], output_dtype="float32",
                       mean=MEAN.tolist(), std=STD.tolist(), layout="CHW", edges=edges)
        fns[name] = (lambda p: lambda: p(image=images, seed=0, **kw))(pipe)
    if have_alb:
        pipe = albumentations_pipeline(targets)
        one = (lambda: [albumentations_one(pipe, d, targets) for d in data])
        fns["albumentations, 1 process"] = one
        fns["albumentations, 1 thread"] = one_thread(one)
    return fns


def resize_last_runs(data, have_alb: bool) -> dict:
    """Augment at the photos' size, then resize to the model's: flip + Affine +
    RandomBrightnessContrast + GaussianBlur(p=0.5) + Resize(224), with each photo's 10 boxes.
    In albumentations' order (the blur before the resize) warpkit needs two passes, the first
    at the photos' size (``passes="as_needed"``, what a port makes); the same steps in one
    pass (the blur after the resize: another result) beside it."""
    def steps(lib):
        return [lib.HorizontalFlip(), lib.Affine(rotate=(-15, 15), p=1.0),
                lib.RandomBrightnessContrast(p=1.0),
                lib.GaussianBlur(sigma_limit=(0.5, 1.5), p=0.5), lib.Resize(224, 224)]

    fns = boxed_recipe(data, "warpkit, resize last, two passes", steps, have_alb,
                       passes="as_needed")
    one = boxed_recipe(data, "warpkit, resize last, one pass", steps, False)
    fns["warpkit, resize last, one pass (blur after the resize)"] = one.popitem()[1]
    return fns


def mosaic_runs(data, have_alb: bool) -> dict:
    """The YOLO-style recipe: Mosaic (2 x 2 cells of 640 from the batch's photos) + Affine
    (rotate, scale, translate) + HueSaturationValue + flip + the letterbox to 640, with each
    photo's 10 boxes and labels, to uint8 HWC; albumentations' each photo given the next three
    photos as its mosaic_metadata."""
    return boxed_recipe(data, "warpkit, YOLO-style mosaic recipe", lambda lib: [
        lib.Mosaic(target_size=(640, 640), cell_shape=(640, 640), fill=114, p=1.0),
        lib.Affine(rotate=(-10, 10), scale=(0.8, 1.2), translate_percent=(-0.1, 0.1),
                   border_mode=0, fill=114, p=1.0),
        lib.HueSaturationValue(10, 40, 30, p=1.0), lib.HorizontalFlip(),
        lib.LongestMaxSize(640), lib.PadIfNeeded(640, 640, border_mode=0, fill=114)],
        have_alb, mosaic=True)


def segmentation_runs(data, have_alb: bool, letterbox: bool = False) -> dict:
    """A segmentation recipe: RandomResizedCrop(224) + flip + MaskDropout(1-3 objects, p=0.5)
    with each photo's mask (the mask's warp first, its objects found on the host, then the
    image's), to the normalised float32 CHW input and the mask; warpkit without MaskDropout
    too (the same call, masks and images launched together). With ``letterbox``, a YOLO-seg
    style one instead: LongestMaxSize(640) + PadIfNeeded(640, 640, fill 114, fill_mask 0) +
    flip with each photo's mask, to uint8 640x640 (the image linear, the mask nearest: both
    axis-aligned, 16 rows a work-item)."""
    import warpkit.augment as WA

    images, masks = [d[0] for d in data], [d[1] for d in data]
    model = {} if letterbox else \
        dict(output_dtype="float32", mean=MEAN.tolist(), std=STD.tolist(), layout="CHW")

    def steps(lib, drop: bool = True):
        if letterbox:
            return [lib.LongestMaxSize(640), lib.PadIfNeeded(640, 640, border_mode=0, fill=114,
                                                             fill_mask=0), lib.HorizontalFlip()]
        return [lib.RandomResizedCrop(size=(224, 224)), lib.HorizontalFlip(),
                *([lib.MaskDropout(max_objects=(1, 3), p=0.5)] if drop else [])]

    epoch = [0]

    def ours(pipe):
        def run(queue=None):
            epoch[0] += 1
            out = pipe(image=images, mask=masks, seed=0, epoch=epoch[0], queue=queue)
            return out["image"], out["mask"]
        return run

    fns = {"warpkit, letterboxed segmentation": ours(WA.Compose(steps(WA)))} if letterbox \
        else {"warpkit, segmentation with MaskDropout": ours(WA.Compose(steps(WA), **model)),
              "warpkit, the same without MaskDropout": ours(WA.Compose(steps(WA, False),
                                                                       **model))}
    fns[KERNELS] = kernels_alone(next(iter(fns.values())))
    if have_alb:
        import albumentations as A

        theirs = A.Compose(steps(A) if letterbox else
                           [*steps(A), A.Normalize(mean=MEAN.tolist(), std=STD.tolist())])

        def one():
            res = []
            for i, m in zip(images, masks):
                out = theirs(image=i, mask=m)
                res.append((out["image"] if letterbox else out["image"].transpose(2, 0, 1),
                            out["mask"]))
            return res

        fns["albumentations, 1 process"] = one
        fns["albumentations, 1 thread"] = one_thread(one)
    return fns


def boxed_recipe(data, name: str, steps, have_alb: bool, mosaic: bool = False,
                 **compose) -> dict:
    """A recipe with each photo's 10 boxes and labels (clipped to the photo), to uint8 HWC:
    ``steps(library)`` the transforms under albumentations' names, from warpkit.augment (one
    call per batch) and from albumentations (per photo, one process, and one thread for 2
    ideal cores; with ``mosaic``, each photo given the next three as its mosaic_metadata);
    ``compose``: warpkit's Compose options."""
    import warpkit.augment as WA

    images, boxes, labels = ([d[k] for d in data] for k in (0, 2, 3))
    boxes = [np.clip(b, 0, [i.shape[1], i.shape[0]] * 2) for b, i in zip(boxes, images)]
    pipe = WA.Compose(steps(WA), label_fields=["labels"], **compose)
    epoch = [0]

    def ours():
        epoch[0] += 1
        return pipe(image=images, boxes=boxes, labels=labels, seed=0, epoch=epoch[0])["image"]

    fns = {name: ours}
    if have_alb:
        import albumentations as A

        theirs = A.Compose(steps(A), bbox_params=A.BboxParams("pascal_voc",
                                                               label_fields=["labels"]))
        extra = [{"mosaic_metadata": [{"image": images[j % N], "bboxes": boxes[j % N],
                                       "labels": labels[j % N]} for j in range(k + 1, k + 4)]}
                 if mosaic else {} for k in range(N)]
        one = lambda: [theirs(image=i, bboxes=b, labels=lab, **e)["image"]  # noqa: E731
                       for i, b, lab, e in zip(images, boxes, labels, extra)]
        fns["albumentations, 1 process"] = one
        fns["albumentations, 1 thread"] = one_thread(one)
    return fns


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--colour-only", action="store_true",
                    help="only the colour, noise, dropout and blur tables")
    ap.add_argument("--detection-only", action="store_true",
                    help="only the detection recipes' tables")
    args = ap.parse_args()
    set_threads()
    data = photos()
    have_alb = optional("albumentations") is not None
    detection = [
        (mosaic_runs, "warpkit, YOLO-style mosaic recipe",
         "YOLO-style: Mosaic(640) + Affine + HueSaturationValue + flip + letterbox 640, 64 "
         "ragged photos with 10 boxes each -> uint8 640x640"),
        (detection_runs, "warpkit, box-safe crop + letterbox",
         "Detection: BBoxSafeRandomCrop + LongestMaxSize(640) + PadIfNeeded(640, 640, fill 114) "
         "+ flip, 64 ragged photos with 10 boxes each -> uint8 640x640"),
        (area_runs, "warpkit, letterbox 320 by the area filter",
         "A letterbox by the area filter: LongestMaxSize(320, interpolation=cv2.INTER_AREA) + "
         "PadIfNeeded(320, 320, fill 114) + flip, 64 ragged photos with 10 boxes each -> uint8 "
         "320x320"),
        (passes_runs, "warpkit, letterbox + reflecting Affine, two passes",
         "Settings that change: LongestMaxSize(320) + PadIfNeeded(320, 320, fill 114) + flip "
         "+ Affine(border_mode=reflect_101), in two passes, 64 ragged photos with 10 boxes "
         "each -> uint8 320x320"),
        (resize_last_runs, "warpkit, resize last, two passes",
         "Augment, then resize: flip + Affine + RandomBrightnessContrast + GaussianBlur(p=0.5) "
         "+ Resize(224), albumentations' order in two passes, 64 ragged photos with 10 boxes "
         "each -> uint8 224x224"),
        (edges_runs, "warpkit, each step's edges",
         "Each step's edges: RandomResizedCrop(224) + flip + RandomAffine(15 degrees), "
         "edges='each_step', 64 ragged photos -> float32 CHW"),
        (lambda d, a: edges_runs(d, a, targets=True), "warpkit, each step's edges",
         "Each step's edges with targets: the same, with a mask, 10 boxes and 17 keypoints "
         "each"),
        (segmentation_runs, "warpkit, segmentation with MaskDropout",
         "Segmentation: RandomResizedCrop(224) + flip + MaskDropout(1-3 objects, p=0.5), 64 "
         "ragged photos with a mask each -> float32 CHW and the mask"),
        (lambda d, a: segmentation_runs(d, a, letterbox=True),
         "warpkit, letterboxed segmentation",
         "Segmentation at 640: LongestMaxSize(640) + PadIfNeeded(640, 640, fill 114, fill_mask "
         "0) + flip, 64 ragged photos with a mask each -> uint8 640x640 and the mask")]
    colour = [
        (colour_runs, "warpkit, geometry and colour",
         "Colour in the pass: RandomResizedCrop(224) + flip + ColorJitter(0.4, 0.4, 0.4, 0.1, "
         "p=0.8) + ToGray(p=0.2), 64 ragged photos -> float32 CHW"),
        (noise_runs, "warpkit, geometry, noise and dropout",
         "Noise and dropout in the pass: RandomResizedCrop(224) + flip + GaussNoise(p=0.5) + "
         "CoarseDropout(1-4 holes, p=0.5), 64 ragged photos -> float32 CHW"),
        (stain_runs, "warpkit, geometry and HEStain",
         "H&E stains in the pass: RandomResizedCrop(224) + flip + HEStain(p=1), 64 ragged photos "
         "-> float32 CHW"),
        (matching_runs, "warpkit, geometry and HistogramMatching",
         "HistogramMatching after the warp: RandomResizedCrop(224) + flip + "
         "HistogramMatching(p=1) to one of 3 reference photos, 64 ragged photos -> float32 CHW"),
        (fda_runs, "warpkit, geometry and FDA",
         "FDA after the warp: RandomResizedCrop(224) + flip + FDA(p=1) (beta 0-0.1) to one of 3 "
         "reference photos, 64 ragged photos -> float32 CHW"),
        (flare_runs, "warpkit, geometry and RandomSunFlare (physics_based)",
         "A physics-based sun flare: RandomResizedCrop(224) + flip + "
         "RandomSunFlare(method='physics_based', p=1), its layer made on the device, 64 ragged "
         "photos -> float32 CHW"),
        (overlay_runs, "warpkit, geometry and OverlayElements",
         "OverlayElements after the warp: RandomResizedCrop(224) + flip + OverlayElements(p=1), "
         "3 elements a sample (one boxed, two placed at random), 64 ragged photos -> float32 "
         "CHW"),
        (spatter_runs, "warpkit, geometry and Spatter (rain)",
         "Spatter after the warp: RandomResizedCrop(224) + flip + Spatter(p=1) (rain, and mud), "
         "its layer made on the host, 64 ragged photos -> float32 CHW"),
        (lambda_runs, "warpkit, geometry, Lambda and ColorJitter",
         "A Lambda between passes: RandomResizedCrop(224) + flip + Lambda(a gamma table) + "
         "ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8), 64 ragged photos -> float32 CHW"),
        (host_runs, "warpkit, geometry and WebP",
         "Steps on the host: RandomResizedCrop(224) + flip + one of WebP, inpainting, "
         "Superpixels, fitted HEStain (p=1), 64 ragged photos -> float32 CHW"),
        (blur_runs, "warpkit, geometry and blur",
         "Blur after the warp: RandomResizedCrop(224) + flip + GaussianBlur(sigma 0.5-3, "
         "p=0.5), 64 ragged photos -> float32 CHW")]
    everything = not (args.colour_only or args.detection_only)
    if everything:
        pipelines(data, args, have_alb)
    for runs, first, title in (colour if args.colour_only else detection if
                               args.detection_only else detection + colour):
        pass_table(runs(data, have_alb), first, title, args)
    if everything:
        device_table(data, args)


def pipelines(data, args, have_alb: bool) -> None:
    """The first two tables: the pipeline, images only and with targets."""
    have_kornia = optional("kornia") is not None
    have_torch = optional("torch") is not None
    rows, goals = [], []
    for targets in (False, True):
        per_batch, per_sample, raw_warp, streamed = warpkit_runs(data, targets)
        fns = {"warpkit per batch": per_batch, "warpkit per sample": per_sample,
               "warpkit per batch, batches() one ahead": streamed,
               KERNELS: kernels_alone(per_batch)}
        if not targets:
            fns["warpkit raw warp_batch, maps made beforehand"] = raw_warp
        if have_alb:
            pipe = albumentations_pipeline(targets)
            fns["albumentations, 1 process"] = lambda: [albumentations_one(pipe, d, targets)
                                                        for d in data]
            fns["albumentations, 1 thread"] = one_thread(fns["albumentations, 1 process"])
        if have_kornia:
            fns["kornia, per photo"] = kornia_run(data, targets)
        res = interleaved(fns, samples=args.samples, warmup=1)
        if have_alb:
            res["albumentations, 2 ideal cores"] = ideal_scaling(
                res.pop("albumentations, 1 thread"))
        if have_alb and have_torch:
            res["albumentations, DataLoader 2 workers (alone)"] = Timing(tuple(
                albumentations_loader(pipe, data, targets, 6) for _ in range(2)))
        best = res["warpkit per batch"].median
        for name, t in res.items():
            rows.append(["with targets" if targets else "images only", name,
                         f"{N / t.median:.0f}", f"{t.median * 1e3:.1f}",
                         f"{t.median / best:.2f}x"])
        case = "with targets" if targets else "images only"
        if have_alb:  # the goals' ratios, read off the same medians
            ideal = res["albumentations, 2 ideal cores"].median / best
            one = best_per_sample(res) / res["warpkit per sample"].median
            goals.append(f"{case}: per batch {ideal:.2f}x albumentations on 2 ideal cores; one "
                         f"sample per call {one:.2f}x albumentations per sample (the faster of "
                         "its 2 and 1 OpenCV threads)")
            goals.append(ceiling(case, res[KERNELS].median,
                                 res["albumentations, 2 ideal cores"].median))
        if not targets:
            raw = res["warpkit raw warp_batch, maps made beforehand"].median
            goals.append(f"{case}: the pipeline call {best / raw:.2f}x the raw warp of its batch")
    print(table("Augmentation pipeline, 64 ragged photos 400-640 px -> float32 CHW 224x224",
                rows, ["case", "who", "images/s", "ms per 64", "time / warpkit per batch"]))
    for line in goals:
        print(f"- {line}")
    print()


def pass_table(runs: dict, first: str, title: str, args) -> None:
    """A table of :func:`pass_runs`' callables, each against ``first`` (warpkit's full run),
    albumentations on one thread turned into 2 ideal cores; an albumentations row made for
    another warpkit row (its name in parentheses) is also timed against that row."""
    res = interleaved(runs, samples=args.samples, warmup=1)
    for key in [k for k in res if k.startswith("albumentations, 1 thread")]:
        res[key.replace("1 thread", "2 ideal cores")] = ideal_scaling(res.pop(key))
    best = res[first].median
    rows = []
    for k, t in res.items():
        own = "warpkit, " + k[k.find("(") + 1:-1] if k.startswith("albumentations") and "(" in k \
            else first
        rows.append([k, f"{N / t.median:.0f}", f"{t.median * 1e3:.1f}", f"{t.median / best:.2f}x",
                     f"{t.median / res[own].median:.2f}x" if k.startswith("albumentations")
                     else ""])
    print(table(title, rows, ["who", "images/s", "ms per 64", f"time / {first}",
                              "time / the warpkit run it matches"]))
    if KERNELS in res and "albumentations, 2 ideal cores" in res:
        line = ceiling(first.removeprefix("warpkit, "), res[KERNELS].median,
                       res["albumentations, 2 ideal cores"].median)
        print(f"- {line}")
        for k in (k for k in res if k.endswith(ONE_SAMPLE)):
            print(f"- {k.removeprefix('warpkit, ')}: {best_per_sample(res) / res[k].median:.2f}x "
                  f"albumentations per sample (the faster of its 2 and 1 OpenCV threads)")
        print()


def best_per_sample(res: dict) -> float:
    """albumentations' time per 64 samples at its best: OpenCV on 2 threads (its one process)
    or on 1 (2 ideal cores are its one-thread time halved), whichever was faster."""
    return min(res["albumentations, 1 process"].median,
               2 * res["albumentations, 2 ideal cores"].median)


#: the suffix of a warpkit row timed one sample per call (pass_runs' one_sample)
ONE_SAMPLE = ", one sample per call"

#: the row of a table's first warpkit run timed by its kernels alone (OpenCL event times)
KERNELS = "warpkit, its kernels alone (OpenCL profiling)"


def kernels_alone(run):
    """A callable giving the kernel time of ``run(queue)`` on a profiling queue (the device
    time of every kernel it launched: what no host work can take off a call)."""
    import warpkit

    return warpkit_calls(run, profiling_queue(warpkit.get_runtime()))["warpkit kernel"]


def ceiling(case: str, kernels: float, peer: float) -> str:
    """The goal line of a case's kernels: the ratio a call with no host work at all would reach
    against ``peer`` (albumentations on 2 ideal cores)."""
    return (f"{case}: its kernels alone take {kernels * 1e3:.1f} ms, so no host work could lift "
            f"the per-batch ratio past {peer / kernels:.2f}x albumentations on 2 ideal cores")


def device_table(data, args) -> None:
    host_only, finished = device_host_work(data)
    dev = interleaved({"host work per call": host_only, "call + kernel": finished},
                      samples=args.samples * 2)
    print(table("The device path: a (64, 400, 400, 3) pyopencl batch in, float32 CHW out",
                [[k, f"{t.median * 1e6:.0f}", f"{t.min * 1e6:.0f}"] for k, t in dev.items()],
                ["", "us (median)", "us (min)"]))


if __name__ == "__main__":
    main()
