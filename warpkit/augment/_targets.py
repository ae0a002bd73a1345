"""What a pipeline call does with each target: one resampling per image (a batch in one launch),
masks with nearest sampling and the image's padding, boxes and keypoints through the same map."""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import geometry
from .._memory import is_device_array
from ..warp import Coords, warp_batch, warp_by_coords, warp_each, warp_perspective
from ._fields import (_stack, chain_coords, fields_of, forward_jacobians, forward_points,
                      projective_part)
from ._pipeline import sample_streams

#: mask dtypes warped as they are; others go through int32 when their values fit
_MASK_NATIVE = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.int32))


def _layout(x: Any, what: str) -> tuple[str, list[tuple[int, int]]]:
    """("single" | "batch" | "list", the (width, height) of each sample)."""
    Image = sys.modules.get("PIL.Image")
    if Image is not None and isinstance(x, Image.Image):
        return "single", [x.size]
    if isinstance(x, (list, tuple)):
        sizes = [_layout(item, f"{what}[{i}]") for i, item in enumerate(x)]
        if any(kind != "single" for kind, _ in sizes):
            raise ValueError(f"{what} as a list holds single images (each (H, W) or (H, W, C))")
        return "list", [s[0] for _, s in sizes]
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"{what} must be a Pillow image, an array or a list of them, got "
                        f"{type(x).__name__}")
    if len(shape) in (2, 3):
        return "single", [(int(shape[1]), int(shape[0]))]
    if len(shape) == 4:
        return "batch", [(int(shape[2]), int(shape[1]))] * int(shape[0])
    raise ValueError(f"{what} must be (H, W), (H, W, C) or a batch (B, H, W, C), got {shape}")


def _per_sample(value: Any, kind: str, n: int, what: str) -> list:
    """A target as one entry per sample: a batch's or list's targets come as a sequence of n,
    or as an array whose first axis is the sample's (what :func:`collate` makes of equal
    counts: (B, N, 4) boxes, (B, N) labels)."""
    if value is None:
        return [None] * n
    if kind == "single":
        return [value]
    if hasattr(value, "shape") and getattr(value, "ndim", 0) >= 1 and len(value) == n:
        return list(value)
    if not isinstance(value, Sequence) or len(value) != n:
        got = f"shape {tuple(value.shape)}" if hasattr(value, "shape") else \
            f"{len(value)} entries" if isinstance(value, Sequence) else type(value).__name__
        raise ValueError(f"{what} for {n} samples must be a sequence of {n}, one per sample "
                         f"(or an array of {n} along its first axis), got {got}")
    return list(value)


def _indices(index: Any, n: int) -> list[int]:
    """The stream index of each of n samples: ``index``, ``index + 1``, ... for an integer,
    else one per sample from any 1-D sequence of integers (a list, a numpy array, a torch
    tensor: what a DataLoader's default collate gives)."""
    if isinstance(index, numbers.Integral) and not isinstance(index, bool):
        return [int(index) + i for i in range(n)]
    if isinstance(index, (str, bytes, bool)) or not hasattr(index, "__len__"):
        raise ValueError(f"index must be an integer >= 0 or one per sample, got {index!r}")
    try:
        a = np.asarray(index)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"index must be an integer >= 0 or a 1-D sequence of integers, one "
                         f"per sample; got {type(index).__name__}") from None
    if a.ndim == 0 and a.dtype.kind in "iu":
        return [int(a) + i for i in range(n)]
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise ValueError(f"index must be an integer >= 0 or a 1-D sequence of integers, one "
                         f"per sample; got {type(index).__name__} of shape {a.shape}, "
                         f"{a.dtype}")
    if len(a) != n:
        raise ValueError(f"index has {len(a)} entries for {n} samples")
    return a.tolist()


def _hw(x: Any) -> tuple[int, int]:
    """(height, width) of a Pillow image or an (H, W, ...) array."""
    shape = getattr(x, "shape", None)
    return (x.size[1], x.size[0]) if shape is None else (int(shape[0]), int(shape[1]))


def _check_masks(mask: Any, kind: str, sizes: list[tuple[int, int]]) -> None:
    """Refuse masks that are not one per image, each the size of its image (they would be
    warped with another image's map, or cut off)."""
    if kind == "batch" and hasattr(mask, "shape"):
        shape = tuple(mask.shape)
        B, (w, h) = len(sizes), sizes[0]
        if len(shape) not in (3, 4) or shape[:3] != (B, h, w):
            raise ValueError(f"mask for a batch of {B} {h}x{w} images must be (B, H, W) or "
                             f"(B, H, W, C) = ({B}, {h}, {w}, ...), got {_shape_of(mask)}")
        return
    items = [mask] if kind == "single" else mask
    if kind != "single" and (not isinstance(mask, Sequence) and not hasattr(mask, "shape")
                             or len(mask) != len(sizes)):
        got = len(mask) if hasattr(mask, "__len__") else type(mask).__name__
        raise ValueError(f"mask for a {kind} of {len(sizes)} images must be a list of "
                         f"{len(sizes)} masks, one per image, got {got}")
    for k, (m, (w, h)) in enumerate(zip(items, sizes)):
        if _hw(m) != (h, w):
            where = "" if kind == "single" else f"[{k}]"
            raise ValueError(f"mask{where} must have its image's height and width ({h}, {w}), "
                             f"got {_shape_of(m)}")


def _shape_of(x: Any) -> str:
    shape = getattr(x, "shape", None)
    if shape is not None:
        return f"shape {tuple(shape)}"
    return f"a {x.size[0]}x{x.size[1]} Pillow image" if hasattr(x, "size") else \
        type(x).__name__


def _check_mask_fill(fill: float, dtype: np.dtype) -> None:
    """Refuse a mask_fill that an integer mask's dtype cannot hold: it would wrap (200 in int8
    is -56) or saturate onto another label (3e9 in uint32 was 2^31 - 1). Bool masks take any
    number (nonzero: True)."""
    if dtype == np.bool_:  # nonzero is True, as numpy casts
        if not math.isfinite(fill):
            raise ValueError(f"mask_fill must be a finite number for a bool mask, got {fill!r}")
        return
    if dtype.kind not in "iu":
        return  # refused as a mask dtype by _mask_work
    info, i32 = np.iinfo(dtype), np.iinfo(np.int32)
    lo, hi = (info.min, info.max) if dtype in _MASK_NATIVE else \
        (max(info.min, i32.min), min(info.max, i32.max))  # warped as int32 (_mask_work)
    if not (math.isfinite(fill) and fill == int(fill) and lo <= fill <= hi):
        through = "" if dtype in _MASK_NATIVE else ", warped as int32"
        raise ValueError(f"mask_fill must be a whole number that the mask's {dtype} holds "
                         f"({lo}..{hi}{through}), got {fill!r}")


def _torch_in(x: Any, what: str, channels_first: bool):
    """(numpy view, True) of a CPU torch tensor ((C, H, W) / (B, C, H, W) images become HWC /
    BHWC views: no copy) or of a list of them (a list of views), or (x, False) for anything
    else."""
    torch = sys.modules.get("torch")
    if torch is None:
        return x, False
    if isinstance(x, (list, tuple)) and x and all(isinstance(t, torch.Tensor) for t in x):
        # a list of tensors (what collate gives for ragged ones): each taken as one tensor is
        return [_torch_in(t, f"{what}[{k}]", channels_first)[0] for k, t in enumerate(x)], True
    if not isinstance(x, torch.Tensor):
        return x, False
    if x.device.type != "cpu":
        raise TypeError(f"{what} is a torch tensor on {x.device}; warpkit takes CPU tensors "
                        "(or pyopencl arrays for data on an OpenCL device)")
    a = x.detach().numpy()
    if channels_first:
        if a.ndim not in (3, 4):
            raise ValueError(f"{what} as a torch tensor must be (C, H, W) or (B, C, H, W), got "
                             f"{tuple(a.shape)}")
        a = np.moveaxis(a, -3, -1)
    return a, True


def _torch_out(x: Any, channels_first: bool):
    """A result array as a torch tensor viewing it ((…, C, H, W) for images), or a list of them."""
    import torch

    if isinstance(x, list):
        return [_torch_out(item, channels_first) for item in x]
    a = np.asarray(x)
    return torch.from_numpy(np.moveaxis(a, -1, -3) if channels_first else a)


def apply(pipe, *, image, mask, boxes, labels, keypoints, seed, index, epoch, params,
          queue) -> dict:
    image, image_torch = _torch_in(image, "image", True)
    mask, mask_torch = _torch_in(mask, "mask", False)
    boxes, boxes_torch = _torch_in(boxes, "boxes", False)
    keypoints, keypoints_torch = _torch_in(keypoints, "keypoints", False)
    out = _apply(pipe, image=image, mask=mask, boxes=boxes, labels=labels, keypoints=keypoints,
                 seed=seed, index=index, epoch=epoch, params=params, queue=queue)
    image_hwc = pipe.layout == "HWC"
    for key, flag, chw in (("image", image_torch, image_hwc), ("mask", mask_torch, False),
                           ("boxes", boxes_torch, False), ("keypoints", keypoints_torch, False)):
        if flag and key in out:
            out[key] = _torch_out(out[key], chw)
    return out


def _apply(pipe, *, image, mask, boxes, labels, keypoints, seed, index, epoch, params,
           queue) -> dict:
    if image is None and mask is None:
        raise ValueError("give image= or mask= (the sizes come from them)")
    ref = image if image is not None else mask
    kind, sizes = _layout(ref, "image" if image is not None else "mask")
    n = len(sizes)
    for k, (w, h) in enumerate(sizes):
        if w < 1 or h < 1:
            what = "image" if image is not None else "mask"
            raise ValueError(f"{what}{'' if kind == 'single' else f'[{k}]'} has no pixels to "
                             f"sample: {w}x{h}")
    if image is not None and mask is not None:
        _check_masks(mask, kind, sizes)
    if params is None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        idx = _indices(index, n)
        plist = [pipe.params(rng, s) for rng, s in zip(sample_streams(seed, epoch, idx), sizes)]
    else:
        plist = [params] if kind == "single" else list(params)
        if len(plist) != n:
            raise ValueError(f"params has {len(plist)} entries for {n} samples")
    staged = [pipe.stages(p, s) for p, s in zip(plist, sizes)]
    chains = [c for c, _ in staged]
    outs = [o for _, o in staged]
    mats = _stack([projective_part(c) for c in chains])
    # the fields of non-linear transforms, or None for projective pipelines (one matrix each)
    fielded = chains if any(len(c) > 1 for c in chains) else None
    out: dict[str, Any] = {}
    common = dict(interpolation=pipe.interpolation, padding=pipe.padding, fill=pipe.fill,
                  antialias=pipe.antialias, queue=queue)
    if image is not None:
        model_input = dict(output_dtype=pipe.output_dtype, mean=pipe.mean, std=pipe.std,
                           layout=pipe.layout)
        out["image"] = _warp_all(image, kind, mats, outs, {**common, **model_input},
                                 chains=fielded)
    if mask is not None:
        if _constant(pipe.padding):
            for item in ([mask] if kind != "list" else mask):
                _check_mask_fill(pipe.mask_fill, _dtype_of(item))
        mask_opts = dict(interpolation="nearest", padding=pipe.padding,
                         fill=pipe.mask_fill if _constant(pipe.padding) else 0, queue=queue)
        out["mask"] = _warp_all(mask, kind, mats, outs, mask_opts, as_mask=True,
                                chains=fielded)
    if boxes is not None:
        blist = _per_sample(boxes, kind, n, "boxes")
        llist = _per_sample(labels, kind, n, "labels")
        moved = _boxes(pipe, blist, llist, mats, sizes, outs, fielded)
        out["boxes"] = moved[0][0] if kind == "single" else [b for b, _ in moved]
        if labels is not None:
            out["labels"] = moved[0][1] if kind == "single" else [lab for _, lab in moved]
    elif labels is not None:
        out["labels"] = labels
    if keypoints is not None:
        klist = _per_sample(keypoints, kind, n, "keypoints")
        moved = [_keypoints(k, m if fielded is None else c, o)
                 for k, m, c, o in zip(klist, mats, chains, outs)]
        if pipe.remove_invisible:
            kept = [k[v] for k, v in moved]
            out["keypoints"] = kept[0] if kind == "single" else kept
        else:
            out["keypoints"] = moved[0][0] if kind == "single" else [k for k, _ in moved]
            out["keypoints_visible"] = moved[0][1] if kind == "single" else \
                [v for _, v in moved]
    single = kind == "single"
    out["matrix"] = mats[0] if single else mats
    out["size"] = outs[0] if single else outs
    out["params"] = plist[0] if single else plist
    if params is None:
        out["seed"] = seed
    return out


def _constant(padding: str) -> bool:
    return padding in ("constant", "zeros")


def _warp_all(x, kind, mats, outs, opts, as_mask: bool = False, chains=None):
    """One warp for a single image or a uniform batch (one launch). A list whose outputs share
    one size (RandomResizedCrop(224) over photos) gives one (B, ...) array, in one launch
    (warp_batch); a list of Pillow images a list of them; other lists are launched back to back
    with one wait (masks of more than 4 channels item by item). With ``chains`` (pipelines with
    non-linear transforms), the maps and fields of each sample (lists: one launch per item)."""
    if chains is not None:
        # per-axis tables hold positions at pixel centres: not with supersampling
        def coords(cs, size):
            return chain_coords(cs, None if opts.get("antialias") else size)

        if kind == "batch" and len(set(outs)) == 1:
            return _warp(x, coords(chains, outs[0]), outs[0], opts, as_mask, batched=True)
        if kind == "single":
            return _warp(x, coords(chains, outs[0]), outs[0], opts, as_mask)
        # an item whose chain has no field (its transform not applied) takes its matrix: a
        # field launch needs at least one stage
        res = [_warp(item, coords([c], o) if len(c) > 1 else m, o, opts, as_mask)
               for item, c, m, o in zip(list(x), chains, mats, outs)]
        one = len(set(outs)) == 1 and len({_kind(r) for r in res}) == 1
        return np.stack(res) if one and all(isinstance(r, np.ndarray) for r in res) else res
    if kind == "batch" and len(set(outs)) == 1:
        return _warp(x, mats, outs[0], opts, as_mask, batched=True)
    if kind == "single":
        return _warp(x, mats[0], outs[0], opts, as_mask)
    items = list(x)
    # one output array: one output size, and items of one kind (channels, dtype)
    one = len(set(outs)) == 1 and len({_kind(item) for item in items}) == 1
    if not as_mask:
        return warp_batch(items, mats, outs[0], **opts) if one else \
            warp_each(items, mats, outs, **opts)
    if any(is_device_array(item) for item in items):  # device masks stay there, one call each
        return [_warp(item, m, o, opts, True) for item, m, o in zip(items, mats, outs)]
    arrays = [np.asarray(item) for item in items]
    if any(a.ndim == 3 and a.shape[2] > 4 for a in arrays):
        res = [_warp(a, m, o, opts, True) for a, m, o in zip(arrays, mats, outs)]
        return np.stack(res) if one else res
    prepared = [_mask_work(a) for a in arrays]
    if one:
        return prepared[0][1](warp_batch([w for w, _ in prepared], mats, outs[0], **opts))
    res = warp_each([w for w, _ in prepared], mats, outs, **opts)
    return [back(r) for r, (_, back) in zip(res, prepared)]


def _dtype_of(x: Any) -> np.dtype:
    """An array's dtype, or a Pillow image's as numpy reads it."""
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(x).dtype


def _kind(item: Any) -> tuple:
    """What items must share to be stacked: their type, dtype, and shape past (H, W)."""
    shape = getattr(item, "shape", None)
    if shape is None:  # a Pillow image
        return type(item), getattr(item, "mode", None)
    return type(item), str(item.dtype), tuple(shape[2:])


def _mask_work(a: Any):
    """(the array the warps take, the function giving a warped one back in the mask's dtype):
    bool as uint8, uint8/uint16/int32 as they are, other integers as int32 when they fit (on
    the host: a device mask's values are not read back, so it must have one of those dtypes)."""
    dt = a.dtype
    if dt == np.bool_:
        return a.view(np.uint8), lambda r: r.view(np.bool_)
    if dt in _MASK_NATIVE:
        return a, lambda r: r
    if dt.kind not in "iu":
        raise TypeError(f"mask must hold integers or bools (labels), got {dt}")
    if is_device_array(a):
        raise TypeError(f"a mask on the device must be bool, uint8, uint16 or int32 (its values "
                        f"are not read back to check they fit), got {dt}: convert it first, "
                        f"e.g. mask.astype(numpy.int32)")
    if a.size and (a.min() < -2**31 or a.max() > 2**31 - 1):
        raise ValueError(f"mask values must fit int32 to be warped, got {a.min()}..{a.max()}")
    return a.astype(np.int32), lambda r: r.astype(dt)


def _sample(x, m, size, opts):
    """warp_perspective by the matrix ``m``, or by the maps and fields of ``m`` (Coords)."""
    if isinstance(m, Coords):
        return warp_by_coords(x, m, size, **opts)
    return warp_perspective(x, m, size=size, **opts)


def _warp(x, m, size, opts, as_mask, batched=False):
    if not as_mask:
        return _sample(x, m, size, opts)
    a = x if is_device_array(x) else np.asarray(x)
    plain = a.ndim == (3 if batched else 2)  # no channel axis: (H, W) or (B, H, W)
    if plain:
        a = a.reshape(*a.shape, 1)
    if a.shape[-1] > 4:  # the warps take up to 4 channels: masks of more, 4 at a time
        if is_device_array(a):
            raise ValueError(f"a mask on the device may have at most 4 channels, got "
                             f"{a.shape[-1]}: warp it in parts of 4")
        parts = [_warp(a[..., k:k + 4], m, size, opts, True, batched)
                 for k in range(0, a.shape[-1], 4)]
        res = np.concatenate(parts, -1)
    else:
        work, back = _mask_work(a)
        res = back(_sample(work, m, size, opts))
        if res.ndim == a.ndim - 1:  # a one-channel (H, W, 1) comes back as (H, W)
            res = res.reshape(*res.shape, 1)
    return res.reshape(res.shape[:-1]) if plain else res


# -- boxes -------------------------------------------------------------------------------------

def _to_xyxy(b: np.ndarray, fmt: str, size) -> np.ndarray:
    if fmt in ("xyxy", "pascal_voc"):
        return b.copy()
    x, y, w, h = b.T
    if fmt == "coco":
        return np.stack([x, y, x + w, y + h], 1)
    W, H = size  # yolo: centre and size as fractions of the image
    return np.stack([(x - w / 2) * W, (y - h / 2) * H, (x + w / 2) * W, (y + h / 2) * H], 1)


def _from_xyxy(b: np.ndarray, fmt: str, size) -> np.ndarray:
    if fmt in ("xyxy", "pascal_voc"):
        return b
    x1, y1, x2, y2 = b.T
    if fmt == "coco":
        return np.stack([x1, y1, x2 - x1, y2 - y1], 1)
    W, H = size
    return np.stack([(x1 + x2) / 2 / W, (y1 + y2) / 2 / H, (x2 - x1) / W, (y2 - y1) / H], 1)


def _boxes(pipe, blist, llist, mats, sizes, outs, chains=None) -> list:
    """[(kept boxes, kept labels)] per sample: every sample's boxes mapped in one call (its own
    matrix each), clipped to its output, and dropped below min_visibility / min_area. Through
    non-linear fields (``chains``), a box becomes the box around its mapped outline (points
    along its edges, :func:`_outline`)."""
    arrays = []
    for b, lab in zip(blist, llist):
        a = np.asarray(b, dtype=np.float64).reshape(-1, 4)
        if lab is not None and len(lab) != len(a):
            raise ValueError(f"labels must have one entry per box: {len(a)} boxes, "
                             f"{len(lab)} labels")
        arrays.append(a)
    counts = [len(a) for a in arrays]
    if not sum(counts):
        return list(zip(arrays, llist))
    which = np.repeat(np.arange(len(arrays)), counts)
    xyxy = np.concatenate([_to_xyxy(a, pipe.box_format, s) for a, s in zip(arrays, sizes)])
    lim = np.asarray(outs, dtype=np.float64)[which]  # (W, H) per box
    # where the border cuts a box, the box around the part of its mapped outline inside the
    # output (clipping the box around the whole outline is loose by a rotated box's corner)
    corners = geometry.box_corners(mats, xyxy, batch_indices=which)
    mapped = np.concatenate([corners.min(1), corners.max(1)], 1)
    clipped = geometry.clipped_bounds(corners, lim, fallback=mapped)
    if chains is not None:
        for k, c in enumerate(chains):
            rows = np.flatnonzero(which == k)
            if len(rows) and fields_of(c):
                outline = _outline(c, xyxy[rows])
                with np.errstate(invalid="ignore"):  # all-NaN outlines stay NaN
                    mapped[rows] = np.concatenate([np.nanmin(outline, 1),
                                                   np.nanmax(outline, 1)], 1)
                clipped[rows] = geometry.clipped_bounds(outline, lim[rows],
                                                        fallback=mapped[rows])
    area = np.prod(mapped[:, 2:] - mapped[:, :2], axis=1)
    inside = np.prod(np.maximum(clipped[:, 2:] - clipped[:, :2], 0), axis=1)
    inside[~np.isfinite(inside)] = 0  # a box none of whose outline was found
    keep = (inside > 0) & (inside >= pipe.min_area) & (inside >= pipe.min_visibility * area)
    res = []
    for k, lo, hi in zip(range(len(arrays)), np.cumsum([0] + counts), np.cumsum(counts)):
        kp = keep[lo:hi]
        kept = _from_xyxy(clipped[lo:hi][kp], pipe.box_format, outs[k])
        labels = llist[k]
        if labels is not None:
            labels = labels[kp] if isinstance(labels, np.ndarray) else \
                [lab for lab, c in zip(labels, kp) if c]
        res.append((kept, labels))
    return res


#: points per box edge that a non-linear map moves to find the box around the mapped outline
OUTLINE_POINTS = 16


def _outline(chain: list, xyxy: np.ndarray) -> np.ndarray:
    """Pixel-edge boxes (K, 4) -> their outlines mapped forward through a chain with fields,
    (K, 4 * OUTLINE_POINTS, 2) pixel-edge points in order around each box (corners included);
    NaN where a point was not found."""
    t = np.linspace(0, 1, OUTLINE_POINTS + 1)[:-1]
    x1, y1, x2, y2 = (xyxy[:, i:i + 1] - 0.5 for i in range(4))  # edges -> centre coordinates
    xs = np.concatenate([x1 + (x2 - x1) * t, np.broadcast_to(x2, (len(xyxy), len(t))),
                         x2 + (x1 - x2) * t, np.broadcast_to(x1, (len(xyxy), len(t)))], 1)
    ys = np.concatenate([np.broadcast_to(y1, (len(xyxy), len(t))), y1 + (y2 - y1) * t,
                         np.broadcast_to(y2, (len(xyxy), len(t))), y2 + (y1 - y2) * t], 1)
    pts, _ = forward_points(chain, np.stack([xs, ys], -1).reshape(-1, 2))
    return pts.reshape(len(xyxy), -1, 2) + 0.5


# -- keypoints ---------------------------------------------------------------------------------

def _keypoints(kp, m, out):
    """(moved keypoints, visible): x, y through the map; an angle column (degrees,
    counter-clockwise) turns with the map's local rotation, a scale column scales with its
    local scale (the square root of the Jacobian's determinant). ``m`` is a matrix, or a chain
    with non-linear fields (points found by Newton's method; the ones not found are
    invisible)."""
    k = np.array(kp, dtype=np.float64).reshape(len(kp), -1) if len(kp) else \
        np.zeros((0, 2))
    if k.shape[1] < 2:
        raise ValueError(f"keypoints must be (N, 2+) rows (x, y[, angle, scale]), got {k.shape}")
    res = k.copy()
    if isinstance(m, list):
        return _keypoints_chain(k, res, m, out)
    res[:, :2] = geometry.transform_points(m, k[:, :2])
    if k.shape[1] > 2:
        for r in range(len(k)):
            j = _jacobian(m, k[r, 0], k[r, 1])
            a = math.radians(k[r, 2])
            d = j @ np.array([math.cos(a), -math.sin(a)])  # screen angles: y points down
            res[r, 2] = math.degrees(math.atan2(-d[1], d[0]))
            if k.shape[1] > 3:
                res[r, 3] = k[r, 3] * math.sqrt(abs(np.linalg.det(j)))
    x, y = res[:, 0], res[:, 1]
    visible = (x >= -0.5) & (x < out[0] - 0.5) & (y >= -0.5) & (y < out[1] - 0.5)
    return res, visible


def _keypoints_chain(k: np.ndarray, res: np.ndarray, chain: list, out):
    """_keypoints through a chain with fields: the Jacobian from moving points 0.25 px away."""
    moved, found = forward_points(chain, k[:, :2])
    res[:, :2] = moved
    if k.shape[1] > 2 and len(k):
        jx, jy = forward_jacobians(chain, k[:, :2])
        a = np.radians(k[:, 2])
        d = jx * np.cos(a)[:, None] - jy * np.sin(a)[:, None]  # screen angles: y points down
        res[:, 2] = np.degrees(np.arctan2(-d[:, 1], d[:, 0]))
        if k.shape[1] > 3:
            res[:, 3] = k[:, 3] * np.sqrt(np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0]))
    x, y = res[:, 0], res[:, 1]
    with np.errstate(invalid="ignore"):
        visible = found & (x >= -0.5) & (x < out[0] - 0.5) & (y >= -0.5) & (y < out[1] - 0.5)
    return res, visible


def _jacobian(m: np.ndarray, x: float, y: float) -> np.ndarray:
    """The derivative of the map at source point (x, y)."""
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    u = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w
    v = (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w
    return np.array([[m[0, 0] - u * m[2, 0], m[0, 1] - u * m[2, 1]],
                     [m[1, 0] - v * m[2, 0], m[1, 1] - v * m[2, 1]]]) / w
