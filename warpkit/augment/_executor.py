"""What a pipeline call does (:func:`apply`): the inputs read (single images, batches, lists,
torch tensors), each sample's parameters drawn from its stream, then one resampling per image
(a batch in one launch), masks with nearest sampling and the image's padding, and boxes and
keypoints moved by the same map under the target rules of :mod:`._targets`."""

from __future__ import annotations

import functools
import importlib
import math
import numbers
import sys
from collections.abc import Sequence
from typing import Any, Callable, NamedTuple

import numpy as np

from .._images import MAX_CHANNELS
from .._memory import HOST_POOL, is_device_array
from .._options import INTERPOLATIONS, PADDINGS, Sampling
from ..engine import PLAIN, Coords, ModelInput, warp_batch, warp_by, warp_by_coords, warp_each
from ..engine.chain import chain_coords, fields_of, prepare_stages, projective_part
from ..engine.core import _result_array
from ..engine.inputs import stack
from ..engine.output import PEAK, fills as fills_of
from ..engine.stages import Tiles
from ._base import all_steps, contains, keeps_axes, passed_keys, shared_keys
from ._epochs import note_draws
from ._host import host_children, host_positions, image_shapes, is_host, run_host_step
from ._text import TextImage
from ._colour import ColourTransform, colour_program
from ._convert import convert_results, expand_inputs
from ._overlay import (OverlayElements, has_mask_ids, overlay_mask_ids, paste_sources,
                       source_overlays)
from ._frames import frame_plan
from ._dropout import _Dropout, has_dropout, hole_mask, in_holes, output_holes
from ._lanes import draw_samples
from ._streams import sample_streams
from ._mask_dropout import MaskDropout, drop_map, mask_readers, on_pixels, run_pixels
from ._params import FRAME, Targets, volume_targets
from ._result import RECORDS, Result
from ._morph import Morphological, morph_steps
from ._pixel_dropout import PixelDropout, fill_mask_drops, pixel_drops
from ._targets import (Seen, box_rows, check_boxes, keypoint_rows, move_boxes,
                       move_keypoint_lists, select, to_xyxy)
from ._volume3d import (check_volume, finish_volume_steps, start_volume_steps,
                        volume_steps_applied, volume_tensors)


class _Opts(NamedTuple):
    """How one target is warped: the sampling, the model's input (images only), the queue, the
    array the result goes into (images only)."""

    sampling: Sampling
    model: ModelInput = PLAIN
    queue: Any = None
    out: Any = None
    colour: Any = None  # each sample's colour operations (images only; _colour.py)
    # the call's waits (engine.core.warp_by's pending): a warp then gives its result as a
    # function to call once they are done (_then), and the host goes on meanwhile
    pending: list | None = None

    def kw(self) -> dict:
        kw = {"queue": self.queue, "model": self.model}
        if self.colour is not None:
            kw["colour"] = self.colour
        if self.pending is not None:
            kw["pending"] = self.pending
        return kw if self.out is None else {**kw, "into": self.out}

    def item(self, k: int) -> _Opts:
        """These options for sample k warped alone (its colour operations)."""
        return self if self.colour is None else self._replace(colour=self.colour[k:k + 1])

    def one_array(self) -> None:
        """Refuse ``out`` where the result is not one array (a list of several sizes)."""
        if self.out is not None:
            raise ValueError("out= takes a result that is one array: a single image, a batch, "
                             "or a list whose outputs share one size; this call gives a list")


#: mask dtypes warped as they are; others go through int32 when their values fit
_MASK_NATIVE = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.int32))


def layout(x: Any, what: str) -> tuple[str, list[tuple[int, int]]]:
    """("single" | "batch" | "list", the (width, height) of each sample) of a Pillow image, an
    array (H, W) / (H, W, C), a batch (B, H, W, C) or a list of single images, from shapes alone
    (the warp converts and checks the pixels); the one reader of what a call was given."""
    Image = sys.modules.get("PIL.Image")
    if Image is not None and isinstance(x, Image.Image):
        return "single", [x.size]
    if isinstance(x, (list, tuple)):
        sizes = []
        for i, item in enumerate(x):
            kind, size = layout(item, f"{what}[{i}]")
            if kind != "single":
                raise ValueError(f"{what}[{i}] is a {kind} {_shape(item)}: a list holds single "
                                 f"images (each (H, W) or (H, W, C)); pass a batch on its own")
            sizes += size
        return "list", sizes
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"{what} must be a Pillow image, an array (H, W), (H, W, C) or a batch "
                        f"(B, H, W, C), or a list of images; got {type(x).__name__}")
    if len(shape) in (2, 3):
        return "single", [(int(shape[1]), int(shape[0]))]
    if len(shape) == 4:
        return "batch", [(int(shape[2]), int(shape[1]))] * int(shape[0])
    raise ValueError(f"{what} must be (H, W), (H, W, C) or a batch (B, H, W, C), got "
                     f"{_shape(x)}")


def _shape(x: Any) -> str:
    shape = getattr(x, "shape", None)
    return f"of {len(x)} images" if shape is None else str(tuple(int(n) for n in shape))


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
    if type(index) is int or (isinstance(index, numbers.Integral)
                              and not isinstance(index, bool)):
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


def _check_masks(mask: Any, kind: str, sizes: list[tuple[int, int]], what: str = "mask"
                 ) -> None:
    """Refuse masks that are not one per image, each the size of its image (they would be
    warped with another image's map, or cut off)."""
    if kind == "batch" and hasattr(mask, "shape"):
        shape = tuple(mask.shape)
        B, (w, h) = len(sizes), sizes[0]
        if len(shape) not in (3, 4) or shape[:3] != (B, h, w):
            raise ValueError(f"{what} for a batch of {B} {h}x{w} images must be (B, H, W) or "
                             f"(B, H, W, C) = ({B}, {h}, {w}, ...), got {_shape_of(mask)}")
        return
    if kind == "single" and isinstance(mask, (list, tuple)):
        raise ValueError(f"{what} for a single image is one array (H, W) or (H, W, C), got a list "
                         f"of {len(mask)}: pass several masks of one image as masks=[...]")
    items = [mask] if kind == "single" else mask
    if kind != "single" and (not isinstance(mask, Sequence) and not hasattr(mask, "shape")
                             or len(mask) != len(sizes)):
        got = len(mask) if hasattr(mask, "__len__") else type(mask).__name__
        raise ValueError(f"{what} for a {kind} of {len(sizes)} images must be a list of "
                         f"{len(sizes)} masks, one per image, got {got}")
    for k, (m, size) in enumerate(zip(items, sizes)):
        _check_size(m, size, what if kind == "single" else f"{what}[{k}]")


def _check_size(m: Any, size: tuple[int, int], where: str) -> None:
    """Refuse a mask whose height and width are not its image's ``size`` = (width, height)."""
    w, h = size
    if _hw(m) != (h, w):
        raise ValueError(f"{where} must have its image's height and width ({h}, {w}), got "
                         f"{_shape_of(m)}")


def _mask_groups(masks: Any, kind: str, sizes: list[tuple[int, int]], what: str = "masks"
                 ) -> list[list]:
    """``masks=`` as one list of masks per sample (a single image's: a list; a batch's or a
    list's: a list of such lists), each mask of its image's height and width."""
    groups = _per_sample(masks, kind, len(sizes), what)
    for k, (group, size) in enumerate(zip(groups, sizes)):
        where = what if kind == "single" else f"{what}[{k}]"
        if not isinstance(group, (list, tuple)):
            raise ValueError(f"{where} must be a list of masks of its image (each (H, W) or "
                             f"(H, W, C)), got {_shape_of(group)}")
        for j, m in enumerate(group):
            if not hasattr(m, "shape") and not hasattr(m, "size"):
                raise TypeError(f"{where}[{j}] must be an array, a tensor or a Pillow image, "
                                f"got {type(m).__name__}")
            _check_size(m, size, f"{where}[{j}]")
    return [list(g) for g in groups]


def _warp_group(group: list, m, size, chain, opts, fill) -> list:
    """One sample's masks moved by its map (or chain), each back in its own kind, dtype and
    shape: masks of one shape and dtype (a mask3d's slices, instance masks) as a batch of one
    launch, the map for each (40 instance masks of 640 x 480 turned: 19.5 against 40.5 ms as
    channels); else masks of one dtype together, as the channels of one mask."""
    arrays, torch_flags = [], []
    for j, item in enumerate(group):
        a, flag = _torch_in(item, f"masks[{j}]", False)
        arrays.append(a if is_device_array(a) else np.asarray(a))
        torch_flags.append(flag)
    if fill is not None:  # (once a dtype: a volume's slices share one)
        for dt in {_dtype_of(a) for a in arrays}:
            _check_mask_fill(fill, dt)
    if _one_shape(arrays):  # (a volume's slices: a batch of one launch)
        n = len(arrays)
        moved = _warp_all(np.stack(arrays), "batch", np.repeat(np.asarray(m)[None], n, axis=0),
                          [size] * n, opts, True, None if chain is None else [chain] * n)
        return [_tensor_image(r, 0, True) if flag else r for r, flag in zip(moved, torch_flags)]
    res: list = [None] * len(arrays)
    by_dtype: dict = {}
    for j, a in enumerate(arrays):
        by_dtype.setdefault((str(a.dtype), is_device_array(a)), []).append(j)
    for (_, on_device), js in by_dtype.items():
        if on_device:  # device masks stay there: one call each
            for j in js:
                res[j] = _warp_all(arrays[j], "single", [m], [size], opts, True,
                                   None if chain is None else [chain])
            continue
        parts = [arrays[j].reshape(*arrays[j].shape[:2], -1) for j in js]
        both = _warp_all(parts[0] if len(parts) == 1 else np.concatenate(parts, 2), "single",
                         [m], [size], opts, True, None if chain is None else [chain])
        both = both.reshape(*both.shape[:2], -1)
        at = 0
        for j, part in zip(js, parts):
            r = both[..., at:at + part.shape[2]]
            at += part.shape[2]
            res[j] = r.reshape(r.shape[:2]) if arrays[j].ndim == 2 else r
    return [_tensor_image(r, 0, True) if flag else r for r, flag in zip(res, torch_flags)]


def _one_shape(arrays: list) -> bool:
    """Whether masks are two or more host arrays of one shape and dtype with at most 4
    channels, which one batched launch moves (the slices of a mask3d)."""
    if len(arrays) < 2 or any(type(a) is not np.ndarray for a in arrays):
        return False
    first = arrays[0]
    return all(a.shape == first.shape and a.dtype == first.dtype for a in arrays) and \
        (first.ndim == 2 or first.ndim == 3 and first.shape[2] <= 4)


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
        if a.shape[-1] <= 4 < a.shape[-3]:  # (H, W, C) as torch.from_numpy gives a photo
            order = "(2, 0, 1)" if a.ndim == 3 else "(0, 3, 1, 2)"
            raise ValueError(
                f"{what} as a torch tensor is taken channels first, (C, H, W) or (B, C, H, W); "
                f"this one, {tuple(a.shape)}, looks channels last ({a.shape[-1]} channels "
                f"after {a.shape[-3]} rows): pass tensor.permute{order}, or the numpy array "
                f"itself, which warpkit takes as (H, W, C)")
        a = np.moveaxis(a, -3, -1)
    return a, True


def _import_torch(what: str) -> None:
    """torch imported for a pipeline's tensors (``what`` makes them), or a ValueError saying it
    is not installed."""
    try:
        importlib.import_module("torch")
    except ImportError:
        raise ValueError(f"{what} returns torch tensors, and torch is not installed: install "
                         f"it, or leave {what} out for numpy arrays") from None


def _tensor_image(x: Any, lead: int, chw: bool) -> Any:
    """A result as a torch tensor viewing it (a pipeline's tensors, as albumentations'
    ToTensorV2 makes them, and the results of targets given as tensors): an image's channels
    first unless ``chw`` (made so, or a mask: as it is), a gray (H, W) one as (1, H, W);
    ``lead`` dimensions come before the image's own (a batch's, a sample's frames), and a list
    (a ragged batch, a list of masks) is one of them, item by item."""
    import torch

    if isinstance(x, (list, tuple)):
        return [_tensor_image(item, max(lead - 1, 0), chw) for item in x]
    a = np.asarray(x)
    if not chw:
        a = a[..., None, :, :] if a.ndim == 2 + lead else np.moveaxis(a, -1, -3)
    # (a read-only result, an input passed through, is copied: torch's view would write it)
    return torch.from_numpy(a if a.flags.writeable else a.copy())


def _call_kind(t: Targets) -> str:
    """"single", "batch" or "list": how the call's image (or, without one, its mask) is laid
    out; "single" for a call of ``images=`` alone."""
    for group, name in ((t.images, "image"), (t.masks, "mask")):
        if name in group:
            return layout(group[name], name)[0]
    return "single"


def _split_volumes(t: Targets, names: dict[str, str]) -> list | None:
    """albumentations' volumes, whose slices its 2-D transforms move alike: ``volume=`` and
    ``volumes=`` as frames of ``images=`` after its own, ``mask3d=`` and ``masks3d=`` as stacks
    of masks (:func:`_unstack_masks` takes them apart); ``names``: the call's volume targets
    -> their kind (:func:`~._params.volume_targets`). What :func:`_join_volumes` puts back:
    (name, the shape of the dimensions before a slice's own, its frames' count: None for
    masks, whether it came without channels), ``images=``'s own first where volumes join it.
    None without volumes."""
    found = [k for k in names if k in t.images or k in t.mask_lists]
    if not found:
        return None
    kind = _call_kind(t)
    if kind != "single":
        raise ValueError(f"{found[0]}= holds one sample's slices (albumentations' target of a "
                         f"call of one image), and this call is a {kind} of samples: call the "
                         f"pipeline per sample")
    parts: list = []
    frames: list = []
    for key in found:
        is_mask = names[key].startswith("mask")
        v = (t.mask_lists if is_mask else t.images).pop(key)
        lead = check_volume(key, v, names[key]) + 1  # (the dimensions before a slice's own)
        flat = v.reshape(-1, *v.shape[lead:])
        if is_mask:
            t.mask_lists[key] = flat  # (a stack of masks, one a slice)
            parts.append((key, v.shape[:lead], None, False))
        else:
            parts.append((key, v.shape[:lead], len(flat), v.ndim == lead + 2))
            frames.extend(flat)
    if frames:
        own = t.images.pop("images", None)
        if own is None:
            parts.insert(0, ("images", None, 0, False))
        else:
            if not isinstance(own, (list, tuple)) and getattr(own, "ndim", 0) not in (3, 4):
                raise ValueError(f"images must be one sample's frames: a stack (N, H, W) or "
                                 f"(N, H, W, C), or a list of images, got {_shape_of(own)}")
            parts.insert(0, ("images", own, len(own), False))
            frames = [*own, *frames]
        t.images["images"] = frames
    return parts


def _mask_names(t: Targets, volume_names: dict) -> list[str]:
    """The masks ToTensorV2 (``tensors``, ``mask_layout``) makes tensors of: not mask3d= and
    masks3d= (or targets of their kinds), which albumentations' leaves as they are."""
    return [n for n in (*t.masks, *t.mask_lists) if n not in volume_names]


def _join_volumes(res: dict, parts: list, chw: bool) -> None:
    """The results of :func:`_split_volumes`' volumes back under their names, shaped as they
    came (``images=``'s own frames as they came); ``chw``: the frames are the model's input
    channels first, which albumentations' volumes are not (its ToTensorV2 leaves them HWC, a
    gray one without channels): they are moved back so."""
    at = 0
    frames = res.pop("images") if parts[0][0] == "images" else None  # (frames joined them)
    for key, shape, count, gray in parts:
        if key == "images":
            if shape is not None:
                own = frames[:count]
                res["images"] = np.stack(own) if isinstance(shape, np.ndarray) else own
            at = count
        elif count is None:
            r = np.asarray(res.pop(key))
            res[key] = r.reshape(*shape, *r.shape[1:])
        else:
            r = np.stack(frames[at:at + count])
            if chw:  # (n, C, H, W) -> (n, H, W, C), or (n, H, W) where it came gray
                r = r[:, 0] if gray else np.moveaxis(r, 1, -1)
            res[key] = r.reshape(*shape, *r.shape[1:])
            at += count


def _split_frames(t: Targets) -> tuple | None:
    """``images=`` (albumentations' frames of one sample, which the same parameters move: a
    stack (N, H, W[, C]) or a list; in a batch call one such per sample, each with N frames)
    as N image targets, ``images[k]`` (:data:`FRAME`), in ``t.images``: (N, the call's kind,
    whether each sample's frames came as one array, ``images=`` as given: :func:`_join_frames`'s
    arguments). None without ``images=``."""
    v = t.images.pop("images", None)
    if v is None:
        return None
    kind = _call_kind(t)

    def frames_of(x: Any, where: str) -> list:
        if isinstance(x, (list, tuple)):
            return list(x)
        if getattr(x, "ndim", 0) in (3, 4):
            return list(x)
        raise ValueError(f"{where} must be one sample's frames: a stack (N, H, W) or "
                         f"(N, H, W, C), or a list of images, got {_shape_of(x)}")

    if kind == "single":
        per = [frames_of(v, "images")]
        stacked = isinstance(v, np.ndarray)
    else:
        if not isinstance(v, (list, tuple, np.ndarray)) or len(v) != len(layout(
                t.images.get("image", t.masks.get("mask")), "image")[1]):
            raise ValueError(f"images= in a call of a {kind} of samples must hold each "
                             f"sample's frames, one entry a sample, got {_shape_of(v)}")
        per = [frames_of(x, f"images[{b}]") for b, x in enumerate(v)]
        stacked = all(isinstance(x, np.ndarray) for x in v)
        if len({len(f) for f in per}) > 1:
            raise ValueError(f"images= must hold as many frames for each sample (they become "
                             f"one image target a frame), got {[len(f) for f in per]}")
    n = len(per[0])
    for k in range(n):
        items = [f[k] for f in per]
        t.images[f"{FRAME}{k}]"] = items[0] if kind == "single" else \
            np.stack(items) if kind == "batch" else items
    return n, kind, stacked, v


def _join_frames(res: dict, n: int, kind: str, stacked: bool, given: Any) -> None:
    """The frames' results back as ``res["images"]``, laid out as ``images=`` came."""
    outs = [res.pop(f"{FRAME}{k}]") for k in range(n)]
    if not n:
        res["images"] = given
    elif kind == "single":
        res["images"] = np.stack(outs) if stacked else outs
    elif all(isinstance(o, np.ndarray) for o in outs):  # (B, ...) each: samples of one size
        res["images"] = np.stack(outs, axis=1) if stacked else \
            [[o[b] for o in outs] for b in range(len(outs[0]))]
    else:
        per = [[o[b] for o in outs] for b in range(len(outs[0]))]
        res["images"] = [np.stack(f) for f in per] if stacked else per


def _unstack_masks(t: Targets) -> dict[str, Any]:
    """Each ``masks=`` given as one array (albumentations' (N, H, W[, C]); in a batch call one
    such a sample, or a (B, N, H, W[, C]) array) as the list of its masks, in place in
    ``t.mask_lists``: name -> what was given (how :func:`_restack` puts them back)."""
    kind = _call_kind(t) if t.mask_lists else "single"
    out = {}
    for name, v in t.mask_lists.items():
        if kind == "single" and isinstance(v, np.ndarray) and v.ndim in (3, 4):
            t.mask_lists[name], out[name] = list(v), v
        elif kind != "single" and (isinstance(v, np.ndarray) and v.ndim in (4, 5) or
                                   isinstance(v, (list, tuple)) and v and
                                   all(isinstance(g, np.ndarray) for g in v)):
            t.mask_lists[name], out[name] = [list(g) for g in v], list(v)
    return out


def _restack(x: Any, given: Any) -> Any:
    """The results of masks :func:`_unstack_masks` took apart as arrays again, as ``given``
    came: a sample's (N, ...) stack, a batch's list of them (one array where their shapes
    agree); masks given empty as they came."""
    if isinstance(given, np.ndarray):
        return np.stack(x) if len(x) else given
    per = [_restack(g, k) for g, k in zip(x, given)]
    return np.stack(per) if len({p.shape for p in per}) == 1 else per


def _channels_first_mask(x: Any, lead: int) -> Any:
    """A mask result with its channels first: (H, W, C) as (C, H, W), arrays with ``lead``
    dimensions before (a batch's B, a stack's N) likewise, lists (a ragged batch, a list of
    masks) item by item; (H, W) masks as they are."""
    if isinstance(x, (list, tuple)):
        return [_channels_first_mask(m, max(lead - 1, 0)) for m in x]
    return np.moveaxis(x, -1, -3) if x.ndim == 3 + lead else x


def _radian_column(pipe) -> int | None:
    """The keypoints' angle column where a pipeline takes it in radians
    (``angle_in_degrees=False``), else None."""
    fmt = pipe.keypoint_format
    return fmt.index("a") if "a" in fmt and not pipe.angle_in_degrees else None


def _with_angles(value: Any, col: int, convert: Callable) -> Any:
    """Keypoints as a call takes or gives them (one sample's rows, or a batch's: arrays, lists
    or tuples, nested) with column ``col`` through ``convert`` (np.degrees, np.radians), the
    nesting kept; anything else (refused later, by the keypoints' own checks) as it is."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fiu" and value.ndim >= 2 and value.shape[-1] > col:
            out = value.astype(np.result_type(value.dtype, np.float64))
            out[..., col] = convert(out[..., col])
            return out
        return [_with_angles(v, col, convert) for v in value] if value.dtype == object \
            else value
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                         for v in value):  # a row
            return type(value)(float(convert(v)) if k == col else v
                               for k, v in enumerate(value)) if len(value) > col else value
        return type(value)(_with_angles(v, col, convert) for v in value)
    return value


def _radians_in(pipe, t, col: int) -> None:
    """A call's keypoints (and its Mosaic's metadata items') angle column from radians to
    degrees, in new objects (the caller's are not touched)."""
    for name, value in t.keypoints.items():
        t.keypoints[name] = _with_angles(value, col, np.degrees)
    key = None if pipe.mosaic is None else pipe.mosaic.metadata_key
    meta = t.passed.get(key) if key is not None else None
    if isinstance(meta, (list, tuple)):
        t.passed[key] = [{**item, "keypoints": _with_angles(item["keypoints"], col, np.degrees)}
                         if isinstance(item, dict) and item.get("keypoints") is not None
                         else item for item in meta]


def apply(pipe, given: dict, *, seed, index, epoch, params, queue, out=None) -> dict:
    """A pipeline call: ``given`` its targets by name (the call's own keywords and the others
    it was passed), the rest its options."""
    if (pipe.tensors or pipe.volume_tensors) and sys.modules.get("torch") is None:
        _import_torch("ToTensor3D" if pipe.volume_tensors else "tensors=True (albumentations' "
                      "ToTensorV2)")
    t = Targets(pipe, given)
    # (the boxes and keypoints as given, whose types albumentations' results take)
    as_given = {**t.boxes, **t.keypoints} if pipe.target_types == "albumentations" else {}
    torch_keys: dict[str, bool] = {}  # the targets given as torch tensors: -> channels first
    volume_names = volume_targets(pipe)
    for group, chw in ((t.images, True), (t.masks, False), (t.boxes, False),
                       (t.keypoints, False)):
        for name, value in group.items():
            if name in volume_names:  # (numpy arrays alone: _split_volumes refuses the rest)
                continue
            group[name], flag = _torch_in(value, name, chw)
            if flag:
                torch_keys[name] = chw and pipe.layout == "HWC"
    angle = _radian_column(pipe)
    if angle is not None:  # (angles in radians: degrees within the call)
        _radians_in(pipe, t, angle)
    vol3d = None  # albumentations' 3-D steps: the leading ones here, the rest after the pass
    if pipe.volume_first or pipe.volume_last:
        vol3d, seed, index, params = start_volume_steps(pipe, t, _call_kind(t), seed, index,
                                                        epoch, params)
    volumes = _split_volumes(t, volume_names)  # volume=, mask3d=: frames of images=, masks
    image_names = list(t.images)  # (images= among them, before its frames are split)
    if pipe.normalization != "standard" and "images" in image_names:
        raise ValueError(f"normalization={pipe.normalization!r} normalises each image by its "
                         f"own statistics, and images= holds a sample's frames (albumentations "
                         f"pools them): pass the frames as image targets, or use "
                         f"normalization='standard'")
    frames = _split_frames(t)  # images=: an image target a frame
    stacks = _unstack_masks(t)  # masks= as one array (N, H, W[, C]): a list
    expand_inputs(pipe, t.images, out)  # ToRGB's channels, FromFloat's checks
    into = None if out is None else _out_array(out, t.images.get("image"))
    split = _facts(pipe).split
    run = _apply_split if split else _apply
    if params is None and seed is None and pipe.seed is not None:  # (the pipeline's seed)
        if index is None:
            seed, index = pipe.next_streams(_sample_count(t))
        else:
            seed = pipe.seed
    res = run(pipe, t, seed=seed, index=0 if index is None else index, epoch=epoch,
              params=params, queue=queue, into=into)
    convert_results(pipe, res, t.images)  # FromFloat
    single = isinstance(res["params"], dict)
    if pipe.normalization != "standard":  # (each image's statistics, on the host)
        for name in image_names:
            res[name] = _per_image(res[name], pipe.normalization, pipe.layout == "CHW",
                                   single, _first_dtype(t.images[name]))
    if frames is not None:
        _join_frames(res, *frames)
    for name, how in stacks.items():
        res[name] = _restack(res[name], how)
    if volumes is not None:  # (as albumentations' ToTensorV2 leaves them: arrays, HWC)
        _join_volumes(res, volumes, pipe.layout == "CHW")
        image_names = [n for n in image_names if n != "images" or n in res]
    if vol3d is not None:
        finish_volume_steps(pipe, vol3d, res)
    if pipe.volume_tensors:  # (ToTensor3D)
        volume_tensors(res, volume_names)
    if pipe.mask_layout == "CHW":  # (ToTensorV2(transpose_mask=True)): views, no copies
        for name in _mask_names(t, volume_names):  # (the dimensions before a mask's own)
            res[name] = _channels_first_mask(res[name], (name in t.mask_lists) + (not single))
    if split and _facts(pipe).text:  # (albumentations' output key of its texts)
        per = [[d for step, p in pipe.applied_steps(params) if isinstance(step, TextImage)
                for d in step.overlay_data(p)]
               for params in ([res["params"]] if single else res["params"])]
        res["overlay_data"] = per[0] if single else per
    if angle is not None:
        for name in t.keypoints:
            res[name] = _with_angles(res[name], angle, np.radians)
    for name, chw in torch_keys.items():
        res[name] = _tensor_image(res[name], 0, not chw)
    for name, value in as_given.items():
        if name not in torch_keys:
            res[name] = _albumentations_types(res[name], value, name in t.keypoints, single)
    if pipe.tensors:  # (ToTensorV2): the rest of the images and masks as tensors too
        for name in image_names:
            if name not in torch_keys and not (name == "image" and out is not None):
                res[name] = _tensor_image(res[name], (name == "images") + (not single),
                                          pipe.layout == "CHW")
        for name in _mask_names(t, volume_names):
            if name not in torch_keys:
                res[name] = _tensor_image(res[name], 0, True)
    if out is not None:  # written in place: the object given
        res["image"] = out
    res.update(t.passed)
    if pipe.save_applied_params:  # (albumentations' list: the steps applied, in order)
        per = [[(type(step).__name__, p) for step, p in pipe.applied_steps(params)]
               for params in ([res["params"]] if single else res["params"])]
        if vol3d is not None:
            before, after = volume_steps_applied(pipe, res["params"])
            per = [[*before, *per[0], *after]]
        res["applied_transforms"] = per[0] if single else per
    # (the records beside the targets: albumentations' dict, :mod:`._result`)
    return Result.of(res, (*RECORDS, *("keypoints_visible" if k == "keypoints" else
                                       f"{k}_visible" for k in t.keypoints)))


def _per_image(x: Any, how: str, chw: bool, single: bool, dt: np.dtype) -> Any:
    """A model's input (values over the peak of ``dt``, the image's dtype) normalised as
    albumentations' ``Normalize(normalization=how)``, each image by the statistics of its own
    values (levels for integer images), in place where it can be; a list item by item.
    albumentations' two ways, kept: uint8 images through its tables (1e-4 added to every
    spread, clipped to [-20, 20]), other dtypes through OpenCV (per channel without the 1e-4;
    ``min_max`` of one channel or over all of them without it, and not clipped). A flat image
    or channel whose spread is 0 gives 0 (albumentations' OpenCV way divides 0 by 0 there,
    NaN). Sample by sample while it is in the caches: the sums in float64, the spread from the
    centred values."""
    if isinstance(x, (list, tuple)):
        return [_per_image(a, how, chw, True, dt) for a in x]
    if not isinstance(x, np.ndarray):
        raise ValueError(f"normalization={how!r} normalises on the host: pass numpy arrays "
                         f"(or CPU tensors), got {type(x).__name__}")
    y = x if x.dtype == np.float32 and x.flags.writeable else x.astype(np.float32)
    peak, tables = PEAK.get(dt, 1.0), dt == np.uint8
    per_channel = how.endswith("per_channel") and y.ndim - (not single) == 3
    for item in [y] if single else y:
        if per_channel:  # (a row a channel: HWC's channels copied into rows, written back)
            rows = item.reshape(item.shape[0], -1) if chw else \
                np.ascontiguousarray(item.reshape(-1, item.shape[-1]).T)
        else:
            rows = item.reshape(1, -1)
        n, each = rows.shape[1], per_channel and rows.shape[0] > 1
        if how.startswith("image"):
            eps = 1e-4 if tables or not each else 0.0
            rows -= (np.add.reduce(rows, axis=1, dtype=np.float64) / n).astype(np.float32)[:, None]
            squares = np.add.reduce(np.square(rows), axis=1, dtype=np.float64)
            spread = np.sqrt(squares / n) * peak + eps
        else:
            eps = 1e-4 if tables or each else 0.0
            lo = rows.min(axis=1)
            spread = (rows.max(axis=1) - lo).astype(np.float64) * peak + eps
            rows -= lo[:, None]
        rows *= np.divide(peak, spread, out=np.zeros_like(spread), where=spread > 0) \
            .astype(np.float32)[:, None]
        if how.startswith("image") or tables or each:
            np.clip(rows, -20.0, 20.0, out=rows)
        if not np.shares_memory(rows, item):
            item[...] = (rows if chw or not per_channel else rows.T).reshape(item.shape)
    if y is not x:
        if x.flags.writeable:
            x[...] = y
            return x
        return y.astype(x.dtype)
    return x


def _albumentations_types(result: Any, given: Any, keypoints: bool, single: bool) -> Any:
    """Boxes or keypoints as albumentations 2 returns them (``target_types="albumentations"``):
    given as a list or tuple, a list of lists of floats; given as an array, an array
    (keypoints float32); a batch's (``single`` False), sample by sample as each was given."""
    if not single:
        if isinstance(given, (list, tuple)) and len(given) == len(result):
            return [_albumentations_types(r, g, keypoints, True) for r, g in zip(result, given)]
        return result
    if isinstance(given, (list, tuple)):
        return np.asarray(result, np.float64).tolist()
    return np.asarray(result, np.float32) if keypoints else result


def _out_array(out: Any, image: Any) -> np.ndarray:
    """``out=`` as a numpy array: a CPU torch tensor as its view (the same memory)."""
    if image is None:
        raise ValueError("out= is where the image's result goes: give image= as well")
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(out, torch.Tensor):
        if out.device.type != "cpu":
            raise ValueError(f"out must be a numpy array or a CPU torch tensor, got a tensor "
                             f"on {out.device}")
        return out.detach().numpy()
    return out


class _Facts(NamedTuple):
    """What every call reads of a pipeline's steps, found once (:func:`_facts`)."""

    split: bool  # host steps or a pass plan: the call runs in passes (_apply_split)
    sources: frozenset  # the OverlayElements that paste on the source (their ids)
    reads_mask: bool  # a step that may read the warped mask (MaskDropout, ...)
    sampling: Sampling  # warp_sampling's
    mask_sampling: Sampling  # the masks': their interpolation, filter and fill
    model: ModelInput  # the images' model input
    text: bool  # a TextImage (its overlay_data key)
    colour: bool  # a colour step (colour_program's operations)


def _facts(pipe) -> _Facts:
    """The pipeline's :class:`_Facts`, made on its first call and kept while its steps are the
    same objects (as :meth:`~warpkit.augment.Compose.host_parts` keeps its passes) and so are
    the settings they read (an option set as an attribute, ``pipe.fill = 255``, makes them
    anew): a call of one sample would otherwise walk the steps a dozen times."""
    key = tuple(map(id, pipe.transforms))
    held = (pipe.sampling, pipe.mask_interpolation, pipe.mask_antialias, pipe.mask_fill,
            pipe.output_dtype, pipe.mean, pipe.std, pipe.layout,
            pipe.max_pixel_value)  # (held: compared by identity)
    got = getattr(pipe, "_call_facts", None)
    if got is not None and got[0] == key and all(a is b for a, b in zip(got[1], held)):
        return got[2]
    sampling = warp_sampling(pipe)
    facts = _Facts(bool(host_positions(pipe) or pipe.pass_starts),
                   source_overlays(pipe) if contains(pipe, OverlayElements) else frozenset(),
                   any(hasattr(s, "reads_mask") for s in all_steps(pipe)), sampling,
                   sampling._replace(interpolation=pipe.mask_interpolation,
                                     antialias=pipe.mask_antialias,
                                     fill=pipe.mask_fill if sampling.constant else 0),
                   ModelInput(pipe.output_dtype, pipe.mean, pipe.std, pipe.layout,
                              pipe.max_pixel_value),
                   contains(pipe, TextImage), contains(pipe, ColourTransform))
    pipe._call_facts = (key, held, facts)
    return facts


def warp_sampling(pipe) -> Sampling:
    """The pipeline's sampling as its warps take it: constant padding in a pipeline that keeps
    the axes (resizes, crops, pads, flips: :func:`~warpkit.augment._base.keeps_axes`) fills
    only outside the image and repeats its edge pixels inside, as a resize then a pad does
    (``constant_edge``): albumentations' LongestMaxSize + PadIfNeeded letterbox, its
    RandomResizedCrop at the image's edge."""
    s = pipe.sampling
    if s.pad == PADDINGS["constant"] and keeps_axes(pipe):
        return s._replace(padding="constant_edge")
    return s


def _sample_count(t: Targets) -> int:
    """How many samples a call holds (1 where its image or mask is missing: the call refuses
    that after)."""
    ref_name, ref = _reference(t)
    return 1 if ref_name is None else len(layout(ref, ref_name)[1])


def _reference(t: Targets) -> tuple[str | None, Any]:
    """(the name, the value) of the target a call's sizes come from: its first image, else its
    first mask; (None, None) without either."""
    ref_name = next(iter(t.images), None) or next(iter(t.masks), None)
    return ref_name, None if ref_name is None else t.images.get(ref_name,
                                                                 t.masks.get(ref_name))


def _apply(pipe, t: Targets, *, seed, index, epoch, params, queue, into=None,
           split: dict | None = None) -> dict:
    """One pass. ``split`` (a pipeline with host steps, :func:`_apply_split`): this pass is
    steps ``start``:``stop`` of ``split["pipe"]``, whose parameters it draws whole into
    ``split["drawn"]`` (and the seed into ``split["seed"]``), taking its own; with
    ``draw_only`` it returns once they are drawn."""
    ref_name, ref = _reference(t)
    if ref_name is None:
        raise ValueError("give image= or mask= (the sizes come from them)"
                         + ("; masks= moves with them" if t.mask_lists else ""))
    kind, sizes = layout(ref, ref_name)
    n = len(sizes)
    single = kind == "single"
    for k, (w, h) in enumerate(sizes):
        if w < 1 or h < 1:
            raise ValueError(f"{ref_name}{'' if single else f'[{k}]'} has no pixels to "
                             f"sample: {w}x{h}")
    for name, x in t.images.items():
        if name != ref_name and layout(x, name) != (kind, sizes):
            raise ValueError(f"{name} must be laid out as {ref_name} is (a {kind} of the same "
                             f"sizes: it is moved by the same maps), got {_shape_of(x)}")
    for name, m in t.masks.items():
        if name != ref_name:
            _check_masks(m, kind, sizes, name)
    groups = {name: _mask_groups(v, kind, sizes, name) for name, v in t.mask_lists.items()}
    klists = {name: [keypoint_rows(k, pipe.keypoint_format, name if single else f"{name}[{i}]")
                     for i, k in enumerate(_per_sample(v, kind, n, name))]
              for name, v in t.keypoints.items()}
    kfields = _fields(t.keypoint_fields, kind, n, [len(k) for k in klists.get("keypoints", ())],
                      "keypoint")
    boxes = {}  # name -> (each sample's rows, each sample's labels or None, extra columns)
    main = t.main_boxes()
    for name, v in t.boxes.items():
        rows = [box_rows(b, name if single else f"{name}[{i}]")
                for i, b in enumerate(_per_sample(v, kind, n, name))]
        widths = {r.shape[1] for r in rows if len(r)}  # (a sample without boxes has 4)
        if len(widths) > 1:
            raise ValueError(f"{name}: every sample's rows must have the same columns, got "
                             f"{sorted(widths)}")
        extra = widths.pop() - 4 if widths else 0
        fields = _fields(t.box_fields if name == main else {}, kind, n,
                         [len(r) for r in rows], "box")
        if extra:  # albumentations' [x1, y1, x2, y2, label, ...]: carried as a field
            fields = [{**(f or {}), _EXTRA: r[:, 4:].reshape(len(r), extra)}
                      for f, r in zip(fields, rows)]
            rows = [np.ascontiguousarray(r[:, :4]) for r in rows]
        rows, fields = check_boxes(rows, fields, pipe.box_format, sizes, pipe.clip_boxes,
                                   pipe.filter_invalid_boxes, single, name)
        boxes[name] = (rows, fields, extra)
    mosaic = pipe.mosaic
    if mosaic is not None:  # before any draw: what it refuses, its other images
        from ._mosaic_call import MosaicCall
        mosaic = MosaicCall(pipe, mosaic, t, kind, sizes)
    if params is None:
        idx = _indices(index, n)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        else:
            note_draws(seed, epoch, idx)
        whole = pipe if split is None else split["pipe"]
        seen = _seen(whole, t, kind, sizes, boxes.get(main),
                     None if mosaic is None else mosaic.partners) if whole.reads else None
        plist = draw_samples(whole, seed, epoch, idx, sizes, seen=seen)
        if split is not None:
            split["drawn"], split["seed"] = plist, seed
            if split.get("draw_only"):
                return {}
            plist = [part_params(p, split["start"], split["stop"]) for p in plist]
    else:
        plist = [params] if single else list(params)
        if len(plist) != n:
            raise ValueError(f"params has {len(plist)} entries for {n} samples")
    if main is not None:
        boxes[main] = _drop_boxes(pipe, plist, *boxes[main], single)
    given = _sample_passed(pipe, t.passed, kind, n)
    facts = _facts(pipe)
    sources = facts.sources
    if sources:  # OverlayElements before geometry: pasted into copies of the sources
        paste_sources(pipe, sources, plist, sizes, _each(given, n), t.images, t.masks, groups,
                      kind)
    if mosaic is not None:  # the steps after Mosaic start from each sample's canvas
        sizes = mosaic.lay_out(plist, sizes)
        if main is not None:
            rows, fields, extra = boxes[main]
            boxes[main] = (*mosaic.boxes(rows, fields, sizes), extra)
        if "keypoints" in klists:
            klists["keypoints"], kfields = mosaic.keypoints(klists["keypoints"], kfields)
    # projective pipelines: the batch's maps as one array; else each sample's chain, and the
    # fields of its non-linear transforms (fielded: None for one matrix each)
    fielded = None
    batched = pipe.maps(plist, sizes)
    if batched is not None:
        mats, outs = batched
    else:
        staged = [pipe.stages(p, s) for p, s in zip(plist, sizes)]
        chains = [c for c, _ in staged]
        outs = [o for _, o in staged]
        mats = stack([projective_part(c) for c in chains])
        fielded = chains if any(len(c) > 1 for c in chains) else None
        if main is not None:  # (before any launch)
            for r, c in zip(boxes[main][0], chains):
                if len(r) and any(isinstance(f, Tiles) for f in fields_of(c)):
                    raise ValueError("boxes cannot pass RandomGridShuffle: albumentations cuts "
                                     "each box into the pieces its tiles separate, which "
                                     "warpkit does not; give its pipeline no boxes")
    # the steps that read the warped mask (MaskDropout; ConstrainedCoarseDropout by
    # mask_indices): its warp goes first
    readers = _mask_readers(pipe, plist, t.masks, groups, kind) if facts.reads_mask else []
    # the holes in each output, for the targets only (the images' holes are colour operations)
    holes = _holes(pipe, plist, outs, t.masks, groups, kind) \
        if t.masks or groups or boxes or klists else None
    # PixelDropout's keys, for the boxes it hides and the masks it drops (None: no such step)
    drops = _drops(pipe, plist, t.masks, groups, kind) if t.masks or groups or boxes else None
    # Morphological's steps, for the masks it filters and the boxes it moves (None: no such step)
    morphs = _morphs(pipe, plist, t.masks, groups, kind) if t.masks or groups or boxes else None
    # OverlayElements' mask ids (checked before any launch; False: none in the call)
    overlays = _overlays(pipe, plist, outs, given, t.masks, groups, kind, sources) \
        if t.masks or groups else False
    sampling = facts.sampling
    constant = sampling.constant
    if constant:  # before any launch
        for m in t.masks.values():
            for item in ([m] if kind != "list" else m):
                _check_mask_fill(pipe.mask_fill, _dtype_of(item))
    # edges="each_step": the frames that the steps cut (their fills in the colour operations;
    # the images then read with their edge repeated, the source's frame one of them)
    frames = frame_plan(pipe, plist, sizes, outs, sampling.mode == INTERPOLATIONS["nearest"],
                        bool(t.images), bool(t.masks or groups or klists)) \
        if pipe.edges == "each_step" and constant and fielded is None and mosaic is None \
        else None
    if frames is not None and (t.masks or groups) and any(frames.cuts):
        _host_masks(t.masks, groups, kind, set(), "edges='each_step''s fill_mask")
    # (the images read with their edge repeated: the source's frame is an operation too)
    image_sampling = sampling._replace(padding="border") if frames is not None and frames.clamp \
        else sampling
    out: dict[str, Any] = {}
    model = facts.model
    chains = None if mosaic is None else \
        fielded if fielded is not None else [[m] for m in mats]
    # the images' and masks' kernels run while the host moves the boxes and keypoints: their
    # results are taken after one wait (Mosaic's warps wait for their own)
    pending: list | None = [] if mosaic is None else None
    mask_opts = _Opts(facts.mask_sampling, queue=queue, pending=None if readers else pending)

    def warp_masks() -> None:
        for name, m in t.masks.items():
            out[name] = _warp_all(m, kind, mats, outs, mask_opts, as_mask=True,
                                  chains=fielded) if mosaic is None \
                else mosaic.warp(name, m, chains, outs, mask_opts, as_mask=True)

    try:
        if readers:  # the masks first, then each MaskDropout's objects, then the images
            warp_masks()
            _see_masks(pipe, plist, outs, out["mask"], kind, readers, given, sources)
            if has_dropout(pipe):  # (with the holes ConstrainedCoarseDropout found)
                holes = _holes(pipe, plist, outs, t.masks, groups, kind)
        at_once = _frames_at_once(t.images, kind, mosaic is None and frames is None)
        if at_once:  # (a sample's frames of one shape: one launch, the map for each)
            out.update(_warp_frames(pipe, at_once, t.images, plist, mats, outs,
                                    _Opts(image_sampling, model, queue),
                                    facts.colour, given, sources, fielded))
        for name, x in t.images.items():
            if name in out:
                continue
            channels, dtype = _channels_dtype(x, kind)
            if frames is not None and channels > 4 and any(frames.ops):
                raise ValueError(f"edges='each_step' puts each step's border among the warp's "
                                 f"colour operations, which take images of 1 to 4 channels; "
                                 f"{name} has {channels}: use edges='output' (or warp it in "
                                 f"parts of 4 channels)")
            colour = colour_program(pipe, plist, channels, dtype, outs, given, skip=sources,
                                    frames=None if frames is None else frames.image_ops(
                                        fills_of(sampling.fill, channels, dtype)),
                                    always=facts.colour or (frames is not None
                                                            and channels <= 4)) \
                if facts.colour or frames is not None else None
            opts = _Opts(image_sampling, model, queue, into if name == "image" else None,
                         colour, pending)
            out[name] = _warp_all(x, kind, mats, outs, opts, chains=fielded) \
                if mosaic is None else mosaic.warp(name, x, chains, outs, opts)
        if not readers:
            warp_masks()
        group_opts = mask_opts._replace(pending=None)  # (each group's masks: their arrays)
        for name, g in groups.items():
            res = [_warp_group(grp, mats[k], outs[k], None if fielded is None else fielded[k],
                               group_opts, pipe.mask_fill if constant else None)
                   for k, grp in enumerate(g)]
            out[name] = res[0] if single else res
        # (MaskDropout's removed pixels, for the boxes and keypoints)
        objects = _object_maps(readers, outs) if boxes or klists else None
        hole_masks = None if holes is None or not boxes else \
            [hole_mask(np.concatenate([r for r, _ in h]), o) if h else None
             for h, o in zip(holes, outs)]  # (the boxes' visible parts: only for boxes)
        for name, (rows, fields, extra) in boxes.items():
            moved = move_boxes(pipe, rows, fields, mats, sizes, outs, fielded, hole_masks,
                               drops, morphs, objects,
                               None if frames is None else frames.steps)
            kept = [b if not extra else np.concatenate([b, f.pop(_EXTRA)], 1)
                    for b, f in moved]
            out[name] = kept[0] if single else kept
            if name == main:
                for field in t.box_fields:
                    got = [f[field] for _, f in moved]
                    out[field] = got[0] if single else got
        for name, klist in klists.items():
            _move_keypoints(pipe, out, name, klist,
                            kfields if name == "keypoints" else [None] * n, mats, outs,
                            fielded, holes, single, objects, frames)
    finally:  # (also when something raised: the kernels may still read the call's arrays)
        for wait in pending or ():
            wait()
    for name in (*t.images, *t.masks):
        if callable(out[name]):
            out[name] = out[name]()
    if frames is not None and (t.masks or groups) and any(frames.cuts):  # (first: the
        # steps' edits come after)
        _each_mask(out, kind, [None if g is None else (g, pipe.mask_fill)
                               for g in frames.gone()], [*t.masks, *groups], _fill_lost)
    if (t.masks or groups) and not (holes is None and drops is None and morphs is None
                                    and not readers and not overlays):
        _each_mask(out, kind, [_mask_edits(pipe, p, o, given=g, sources=sources)
                               for p, o, g in zip(plist, outs, _each(given, n))],
                   [*t.masks, *groups], _edit_mask)
    out["matrix"] = mats[0] if single else mats
    out["size"] = outs[0] if single else outs
    out["params"] = plist[0] if single else plist
    if params is None:
        out["seed"] = seed
    return out


#: the label field that carries box rows' columns past the 4 numbers
_EXTRA = "\0columns"


def part_params(p: dict, start: int, stop: int, done: bool = False) -> dict:
    """A sample's parameters for the steps ``start``:``stop`` of its pipeline (whether the
    pipeline applied kept); ``done``: the first of them, a OneOf, chose a host step, which ran
    (not applied in this pass)."""
    steps = p["steps"][start:stop]
    if done:
        steps = [{**steps[0], "applied": False}, *steps[1:]]
    return {"applied": p.get("applied", True), "steps": steps}


def _apply_split(pipe, t: Targets, *, seed, index, epoch, params, queue, into=None) -> dict:
    """A call of a pipeline in several passes (:meth:`Compose.host_parts`): a pass for the
    steps before each host step (:mod:`._host`), the step on the pass's arrays, then a pass
    for the steps after it, to the pipeline's output; where the pass plan starts a pass
    (``passes="as_needed"``: the settings change, geometry follows a blur, ...), one pass
    after the other. The parameters are the whole pipeline's, drawn once before the first
    pass."""
    parts, hosts = pipe.host_parts()
    ref_name, ref = _reference(t)
    names = {"images": list(t.images), "masks": list(t.masks),
             "mask_lists": list(t.mask_lists), "boxes": list(t.boxes),
             "keypoints": list(t.keypoints)}
    kind, sizes0 = layout(ref, ref_name) if ref_name is not None else ("single", [])
    single = kind == "single"
    drawn = None
    if params is not None:
        drawn = [params] if single else list(params)
    resized: dict[int, dict] = {}  # per sample: a Lambda's position -> the shape it gave
    mats: Any = None
    chosen: dict[int, set] = {}  # a OneOf's samples that chose a host step: none in its pass
    vis: dict[str, Any] = {}  # each keypoints target's visibility from the passes before
    vis_keys = ["keypoints_visible" if k == "keypoints" else f"{k}_visible"
                for k in names["keypoints"]]
    res: dict[str, Any] = {}
    cur = t
    for i, (start, stop, part) in enumerate(parts):
        last = i == len(parts) - 1
        if part.transforms or last:
            split = None if drawn is not None else {"pipe": pipe, "start": start, "stop": stop}
            own = None if drawn is None else \
                [part_params(p, start, stop, start in chosen and k in chosen[start])
                 for k, p in enumerate(drawn)]
            res = _apply(part, cur, seed=seed, index=index, epoch=epoch,
                         params=None if own is None else own[0] if single else own,
                         queue=queue, into=into if last else None, split=split)
            if split is not None:
                drawn, seed = split["drawn"], split["seed"]
            m = np.asarray(res["matrix"], np.float64)
            mats = m if mats is None else m @ mats
            for key in vis_keys:  # (seen in every pass, and kept by the host steps)
                if key in vis and key in res:
                    res[key] = res[key] & vis[key] if single else \
                        [a & b for a, b in zip(res[key], vis[key])]
        else:  # (a host step first: the parameters drawn, the call's arrays as they came)
            if drawn is None:
                split = {"pipe": pipe, "start": 0, "stop": 0, "draw_only": True}
                _apply(part, cur, seed=seed, index=index, epoch=epoch, params=None,
                       queue=queue, split=split)
                drawn, seed = split["drawn"], split["seed"]
            res = {**cur.images, **cur.masks, **cur.mask_lists, **cur.boxes, **cur.keypoints,
                   **cur.box_fields, **cur.keypoint_fields}
        if last:
            break
        at = hosts[i]
        if at is not None:  # (None: a pass of the plan, the next takes these results as given)
            _host_between(pipe, at, drawn, res, names, ref_name, kind, chosen, resized,
                          own=bool(part.transforms), passed=t.passed, given=params is not None,
                          draws=(seed, epoch, index, sizes0))
        vis = {key: res.pop(key) for key in vis_keys if key in res}
        given = {**t.passed}
        for group in names.values():
            given.update({name: res[name] for name in group})
        for field in (*pipe.label_fields, *pipe.keypoint_label_fields):
            if field in res:
                given[field] = res[field]
        cur = Targets(parts[i + 1][2], given)
    if mats is None:
        n = 1 if single else len(drawn)
        mats = np.eye(3) if single else np.tile(np.eye(3), (n, 1, 1))
    res["matrix"] = mats
    res["params"] = drawn[0] if single else drawn
    if params is None:
        res["seed"] = seed
    else:
        res.pop("seed", None)
    return res


def _host_between(pipe, at: int, drawn: list, res: dict, names: dict, ref_name: str,
                  kind: str, chosen: dict, resized: dict, *, own: bool, passed: dict,
                  given: bool, draws: tuple) -> None:
    """The host step at ``at`` (or a OneOf's host steps, each on the samples that chose it)
    on the results of the pass before it, in place in ``res``; where a Lambda gave a sample
    another size, the steps after it are drawn again for that one."""
    steps = [p["steps"][at] if p.get("applied", True) else None for p in drawn]
    shapes = image_shapes(res[ref_name], kind)
    step = pipe.transforms[at]
    if is_host(step):
        run_host_step(step, steps, res, names, shapes, kind, pipe, own=own, passed=passed)
    else:  # a OneOf: each of its host steps on the samples that chose it
        for c in host_children(step):
            mine = [p["params"] if p is not None and p.get("applied", True)
                    and p["choice"] == c else None for p in steps]
            if not getattr(step.transforms[c], "stays_in_pass", False):
                chosen.setdefault(at, set()).update(
                    k for k, p in enumerate(mine) if p is not None)
            run_host_step(step.transforms[c], mine, res, names, shapes, kind, pipe, own=own,
                          passed=passed)
    after = image_shapes(res[ref_name], kind)
    changed = [k for k, (a, b) in enumerate(zip(shapes, after)) if a[:2] != b[:2]]
    if changed:  # (a Lambda gave another size: the steps after it draw for that one)
        seed, epoch, index, sizes0 = draws
        _resized(pipe, at, step, changed, after, drawn, resized, given, seed, epoch, index,
                 sizes0)


def _resized(pipe, at: int, step, changed: list[int], after: list[tuple], drawn: list[dict],
             resized: dict, given: bool, seed, epoch, index, sizes0: list) -> None:
    """The samples ``changed``, whose image the Lambda at ``at`` gave another shape
    (``after``): their parameters drawn again from their streams (``drawn``, changed in
    place), the same for every step before it and the Lambda's with the shape it gave
    (``shape``), the steps after it for that size, as albumentations draws each step for the
    image it gets. Replayed parameters (``given``) must have recorded that shape."""
    name = type(step).__name__
    if not is_host(step):
        raise ValueError(f"a Lambda in a {name} gave another image size: put a Lambda that "
                         f"changes sizes in the pipeline itself, not in a {name}")
    streams = _indices(index, len(drawn))
    for k in changed:
        shape = [int(v) for v in after[k][:2]]
        if given:
            if drawn[k]["steps"][at].get("shape") != shape:
                raise ValueError(f"the Lambda at step {at} gave a {shape[0]}x{shape[1]} image "
                                 f"(height x width) where the replayed parameters recorded "
                                 f"{drawn[k]['steps'][at].get('shape')}: a replay needs the "
                                 f"functions to give what they gave")
            continue
        if pipe.reads or pipe.mosaic is not None:
            raise ValueError(f"the Lambda at step {at} gave another image size, in a pipeline "
                             f"whose draws read the targets or take other images "
                             f"({', '.join(sorted(pipe.reads)) or 'Mosaic'}): those draws cannot "
                             f"be made again for the new size; keep the size there")
        resized.setdefault(k, {})[at] = shape
        rng = next(sample_streams(seed, epoch, [streams[k]]))
        applied = bool(rng.random() < pipe.p)  # (draw_step's order, the pipeline's own p first)
        drawn[k] = {"applied": applied,
                    **pipe.draw_seen(rng, sizes0[k], None, resized=resized[k])}


def _seen(pipe, t: Targets, kind: str, sizes: list, main: tuple | None,
          partners: list | None = None) -> list[Seen]:
    """Each sample's targets as the draws that read them see them (:class:`Seen`): its boxes
    (pixel-edge corners; None where the call gave none), its masks (``mask=``, else the
    list of ``masks=``; None where it gave neither) and the images a Mosaic may take."""
    n = len(sizes)
    rows = [None] * n if main is None or "boxes" not in pipe.reads else \
        [to_xyxy(r, pipe.box_format, s) for r, s in zip(main[0], sizes)]
    labels = [None] * n if main is None or "boxes" not in pipe.reads else \
        [_first_labels(pipe, f) for f in main[1]]
    if "masks" not in pipe.reads:  # (device masks are fine where no draw reads them)
        masks = [None] * n
    elif "mask" in t.masks:
        masks = [[m] for m in _per_sample(t.masks["mask"], kind, n, "mask")]
    elif "masks" in t.mask_lists:
        masks = [list(g) for g in _per_sample(t.mask_lists["masks"], kind, n, "masks")]
    else:
        masks = [None] * n
    for group in masks:
        if group is not None and any(is_device_array(m) for m in group):
            raise ValueError("a transform of this pipeline chooses its crop from the mask, "
                             "which it reads on the host: give the masks as arrays")
    partners = partners or [None] * n
    shared = shared_keys(pipe)
    given = [None] * n if "passed" not in pipe.reads else \
        [functools.partial(_given, t.passed, kind, n, k, shared) for k in range(n)]
    has_mask = "mask" in t.masks
    return [Seen(s, r, m, partners=p, labels=lab, given=g, has_mask=has_mask,
                 border=getattr(pipe, "box_border", "outline"))
            for s, r, m, p, lab, g in zip(sizes, rows, masks, partners, labels, given)]


def _sample_passed(pipe, passed: dict, kind: str, n: int) -> dict | list[dict]:
    """The call's passed keywords (``passed``) as each sample's draws read them: the dict itself
    where the pipeline's transforms read only keywords shared by every sample (or none), else a
    dict per sample, each keyword read one per sample (OverlayElements' elements) as its own."""
    if not passed:  # (most calls: nothing passed through)
        return passed
    shared = shared_keys(pipe)
    own = [key for key in passed_keys(pipe) if key not in shared and key in passed]
    if not own:
        return passed
    return [{**passed, **{key: _given(passed, kind, n, k, shared, key) for key in own}}
            for k in range(n)]


def _each(given: dict | list[dict], n: int) -> list[dict]:
    return given if isinstance(given, list) else [given] * n


def _given(passed: dict, kind: str, n: int, k: int, shared: tuple, name: str) -> Any:
    """Sample ``k``'s value of the keyword ``name`` the call passed through (one per sample in
    a batch or a list call, or the call's one value for a keyword in ``shared``); None where it
    passed none."""
    if name not in passed:
        return None
    return passed[name] if name in shared else _per_sample(passed[name], kind, n, name)[k]


def _first_labels(pipe, fields: dict | None) -> list | None:
    """A sample's labels of its boxes as albumentations' draws read them (its boxes' fifth
    column): the first label field's, else the first column past a box's corners; None where
    there are neither."""
    if not fields:
        return None
    names = list(pipe.label_fields or ())
    if names and fields.get(names[0]) is not None:
        return list(fields[names[0]])
    extra = fields.get(_EXTRA)
    return list(extra[:, 0]) if extra is not None and extra.shape[1] else None


def _drop_boxes(pipe, plist: list, rows: list, fields: list, extra: int, single: bool
                ) -> tuple:
    """The call's boxes less those a step of each sample's parameters removes by its own rule
    (RandomIoUCrop: the boxes whose centres left its crop), with their label fields."""
    if "boxes" not in pipe.reads:  # (only a draw that reads the boxes can name some)
        return rows, fields, extra
    rows, fields = list(rows), list(fields)
    for k, p in enumerate(plist):
        gone = sorted({int(j) for step, sp in pipe.applied_steps(p)
                       for j in sp.get("drop", ()) if getattr(step, "removes_boxes", False)})
        if not gone:
            continue
        if gone[-1] >= len(rows[k]):
            where = "" if single else f" (sample {k})"
            raise ValueError(f"params{where} remove box {gone[-1]}, but the call has "
                             f"{len(rows[k])} boxes: replay the parameters on the boxes they "
                             f"were drawn with")
        keep = np.ones(len(rows[k]), bool)
        keep[gone] = False
        rows[k] = rows[k][keep]
        fields[k] = None if fields[k] is None else select(fields[k], keep)
    return rows, fields, extra


def _fields(given: dict, kind: str, n: int, counts: list[int], what: str) -> list:
    """The label fields of a call's boxes or keypoints as one dict (field -> labels) per
    sample (None where there are none), each field one label per target of its sample."""
    if not given:
        return [None] * n
    per = {name: _per_sample(v, kind, n, name) for name, v in given.items()}
    for name, labels in per.items():
        for k, (lab, c) in enumerate(zip(labels, counts)):
            if lab is not None and (not hasattr(lab, "__len__") or len(lab) != c):
                got = len(lab) if hasattr(lab, "__len__") else type(lab).__name__
                where = "" if kind == "single" else f" (sample {k})"
                plural = "boxes" if what == "box" else f"{what}s"
                raise ValueError(f"{name} must have one entry per {what}{where}: {c} {plural}, "
                                 f"{got} {name}")
    return [{name: per[name][k] for name in per} for k in range(n)]


def _move_keypoints(pipe, out: dict, name: str, klist: list, fields: list, mats, outs,
                    fielded, holes, single: bool, objects: list | None = None,
                    frames: Any = None) -> None:
    """One keypoints target moved into ``out`` with its label fields (:func:`_fields`), in
    step with it; without remove_invisible, all of them and ``<name>_visible``. Those in
    dropout's ``holes``, on MaskDropout's removed pixels (``objects``: :func:`_object_maps`)
    or outside a step's frame (``frames``: :class:`~warpkit.augment._frames.Frames`) become
    invisible."""
    moved = move_keypoint_lists(klist, mats, fielded, outs, pipe.keypoint_format)
    ix, iy = pipe.keypoint_format.find("x"), pipe.keypoint_format.find("y")
    if frames is not None:
        moved = [(k, v & frames.visible(j, k[:, ix], k[:, iy])) if frames.cuts[j] and len(k)
                 else (k, v) for j, (k, v) in enumerate(moved)]
    if holes is not None:
        moved = [(k, v & ~in_holes(k[:, ix], k[:, iy], np.concatenate([r for r, _ in h])))
                 if h and len(k) else (k, v) for (k, v), h in zip(moved, holes)]
    if objects is not None:
        moved = [(k, v & ~on_pixels(k[:, ix], k[:, iy], maps)) if maps and len(k) else (k, v)
                 for (k, v), maps in zip(moved, objects)]
    if pipe.remove_invisible:
        points = [k[v] for k, v in moved]
        fields = [None if f is None else select(f, v) for f, (_, v) in zip(fields, moved)]
    else:
        points = [k for k, _ in moved]
        vis = "keypoints_visible" if name == "keypoints" else f"{name}_visible"
        out[vis] = moved[0][1] if single else [v for _, v in moved]
    out[name] = points[0] if single else points
    for field in fields[0] or ():
        got = [f[field] for f in fields]
        out[field] = got[0] if single else got


def _holes(pipe, plist: list, outs: list, masks: dict, groups: dict, kind: str) -> list | None:
    """Each sample's dropout holes in its output ([(rectangles, fill_mask)], None where the
    whole call has none), checked against the masks they fill before any launch: masks on
    the host, and a fill_mask of one value per channel as many as each mask has."""
    if not has_dropout(pipe):
        return None
    holes = [output_holes(pipe, p, o) for p, o in zip(plist, outs)]
    if not any(holes):
        return None
    fills = {len(fm) for h in holes for _, fm in h if isinstance(fm, list)}
    if any(fm is not None for h in holes for _, fm in h):
        _host_masks(masks, groups, kind, fills, "dropout's fill_mask")
    return holes


def _drops(pipe, plist: list, masks: dict, groups: dict, kind: str) -> list | None:
    """Each sample's PixelDropout steps and keys (:func:`pixel_drops`; None where the whole
    call has none), their mask_drop_values checked against the masks before any launch."""
    if not contains(pipe, PixelDropout):
        return None
    drops = [pixel_drops(pipe, p) for p in plist]
    if not any(drops):
        return None
    values = [s.mask_drop_value for d in drops for s, _ in d if s.mask_drop_value is not None]
    if values:
        _host_masks(masks, groups, kind, {len(v) for v in values if isinstance(v, list)},
                    "PixelDropout's mask_drop_value")
    return drops


def _morphs(pipe, plist: list, masks: dict, groups: dict, kind: str) -> list | None:
    """Each sample's Morphological steps (None where the whole call has none), the masks they
    filter checked before any launch: on the host."""
    if not contains(pipe, Morphological):
        return None
    steps = [morph_steps(pipe, p) for p in plist]
    if not any(steps):
        return None
    for m, _ in _mask_items(masks, groups, kind):
        if not isinstance(m, np.ndarray) and not _is_torch(m):
            raise ValueError(f"Morphological filters masks on the host: give them as numpy "
                             f"arrays or torch tensors, got {type(m).__name__}")
    return steps


def _overlays(pipe, plist: list, outs: list, given: dict | list, masks: dict, groups: dict,
              kind: str, sources: frozenset) -> bool:
    """Whether an applied OverlayElements of the call sets ids in the warped masks (not one of
    ``sources``, which pasted them before the warp); where one does, the masks checked before
    any launch: on the host (the elements are checked by the colour program's operations)."""
    if not contains(pipe, OverlayElements):
        return False
    ids = any(isinstance(step, OverlayElements) and id(step) not in sources and
              has_mask_ids(g.get(step.metadata_key))
              for p, g in zip(plist, _each(given, len(plist)))
              for step, _ in pipe.applied_steps(p))
    if ids:
        _host_masks(masks, groups, kind, set(), "OverlayElements' mask_id")
    return ids


def _mask_edits(pipe, params: dict, out: tuple[int, int], until: dict | None = None,
                given: dict | None = None, sources: frozenset = frozenset()
                ) -> list[Callable[[np.ndarray], None]]:
    """A sample's changes to its warped masks, in the pipeline's order (in place): dropout's
    holes filled with their fill_mask, PixelDropout's mask_drop_value, Morphological's
    filter, MaskDropout's objects filled with its fill_mask, OverlayElements' mask ids (its
    elements from ``given``, the sample's passed keywords; not those of ``sources``, pasted
    before the warp); those of the steps before the one whose parameters are ``until`` where
    given."""
    edits: list[Callable[[np.ndarray], None]] = []
    for step, p in pipe.applied_steps(params):
        if p is until:
            break
        if isinstance(step, OverlayElements):
            if id(step) in sources:  # (its ids were pasted before the warp)
                continue
            ids = overlay_mask_ids(step, p, out, (given or {}).get(step.metadata_key))
            if ids:
                edits.append(functools.partial(_paste_ids, elements=ids))
        elif isinstance(step, MaskDropout):
            if p["holes"] and step.fill_mask is not None:
                edits.append(functools.partial(_fill_objects, holes=p["holes"],
                                               value=step.fill_mask))
        elif isinstance(step, _Dropout):
            holes = output_holes(step, p, out)
            if holes:
                edits.append(functools.partial(_fill_holes, sample=holes))
        elif isinstance(step, PixelDropout):
            edits.append(functools.partial(fill_mask_drops, drops=pixel_drops(step, p)))
        elif isinstance(step, Morphological):
            edits.append(functools.partial(_morph_in_place, step))
    return edits


def _paste_ids(m: np.ndarray, elements: list) -> None:
    """OverlayElements' elements' ids set in a warped mask where their masks select (in
    place; every channel of a mask of several, as albumentations' boolean index sets them)."""
    for x, y, selected, mask_id in elements:
        h, w = selected.shape
        m[y:y + h, x:x + w][selected] = mask_id


def _fill_lost(m: np.ndarray, lost: tuple[np.ndarray, float]) -> None:
    """The pixels a frame cut away (an (H, W) bool map) filled with the mask's fill (in
    place; every channel)."""
    gone, value = lost
    m[gone] = value


def _fill_objects(m: np.ndarray, holes: list, value: float) -> None:
    """MaskDropout's objects (their runs, ``holes``) set to ``value`` in a warped mask."""
    np.put(m, run_pixels(holes, m.shape[1]), value)  # (one channel: a pixel an element)


def _mask_readers(pipe, plist: list, masks: dict, groups: dict, kind: str) -> list:
    """Each sample's applied steps that read the warped mask (:func:`mask_readers`:
    MaskDropout, ConstrainedCoarseDropout by mask_indices; an empty list where the call has
    none), checked before any launch: the call's ``mask`` on the host, of one channel, and the
    masks their fill_mask fills on the host."""
    readers = mask_readers(pipe, plist)
    if not any(readers):
        return []
    name = next(type(s).__name__ for r in readers for s, _ in r)
    if "mask" not in masks:
        raise ValueError(f"{name} finds its objects in the call's mask: give mask= (as "
                         f"albumentations reads data['mask'])")
    _host_masks({"mask": masks["mask"]}, {}, kind, set(), f"{name}'s mask")
    for m, batched in _mask_items({"mask": masks["mask"]}, {}, kind):
        shape = tuple(m.shape)[1:] if batched else tuple(m.shape)
        if not (len(shape) == 2 or (len(shape) == 3 and shape[2] == 1)):
            raise ValueError(f"{name} finds objects in a mask of one channel, (H, W) or "
                             f"(H, W, 1), got mask of shape {tuple(m.shape)}")
    if any(s.fill_mask is not None for r in readers for s, _ in r):
        _host_masks(masks, groups, kind, set(), f"{name}'s fill_mask")
    return readers


def _see_masks(pipe, plist: list, outs: list, res: Any, kind: str, readers: list,
               given: dict | list, sources: frozenset) -> None:
    """Each step that reads the warped ``mask`` (``res``) given it as the steps before it
    leave it: their parameters completed in place (``see_masks``), the samples' first such
    steps together (a step's samples at once), then their second ones, and so on."""
    def mask(k: int) -> np.ndarray:
        m = res if kind == "single" else res[k]
        return m.numpy() if _is_torch(m) else np.asarray(m)

    for r in range(max(len(steps) for steps in readers)):
        together: dict[int, tuple[Any, list, list]] = {}
        for k, steps in enumerate(readers):
            if len(steps) <= r:
                continue
            step, p = steps[r]
            seen = mask(k)
            edits = _mask_edits(pipe, plist[k], outs[k], until=p,
                                given=_each(given, len(plist))[k], sources=sources)
            if edits:
                seen = seen.copy()
                _edit_mask(seen, edits)
            group = together.setdefault(id(step), (step, [], []))
            group[1].append(p)
            group[2].append(seen)
        for step, ps, seen in together.values():
            step.see_masks(ps, seen)


def _object_maps(readers: list, outs: list) -> list | None:
    """Each sample's MaskDropout steps' removed pixels ((H, W) bool maps, in order; None
    where the call has no such step)."""
    if not readers:
        return None
    return [[drop_map(p["holes"], o) for s, p in steps
             if isinstance(s, MaskDropout) and p["holes"]] for steps, o in zip(readers, outs)]


def _morph_in_place(step: Morphological, m: np.ndarray) -> None:
    m[...] = step.mask(m)


def _edit_mask(m: np.ndarray, edits: list[Callable[[np.ndarray], None]]) -> None:
    for edit in edits:
        edit(m)


def _mask_items(masks: dict, groups: dict, kind: str) -> list[tuple[Any, bool]]:
    """The call's masks: (a mask, whether its first axis is the batch's)."""
    items = []
    for m in masks.values():
        items += [(x, False) for x in m] if kind == "list" else [(m, kind == "batch")]
    items += [(m, False) for g in groups.values() for grp in g for m in grp]
    return items


def _host_masks(masks: dict, groups: dict, kind: str, counts: set, what: str) -> None:
    """Refuses masks that a fill on the host cannot reach (on a device), and masks whose
    channels are not ``counts`` (the lengths of the fills given one value per channel)."""
    arg = what.split("'s ")[-1]
    for m, batched in _mask_items(masks, groups, kind):
        if not isinstance(m, np.ndarray) and not _is_torch(m):
            raise ValueError(f"{what} fills masks held on the host: numpy arrays or torch "
                             f"tensors, got {type(m).__name__} (or pass {arg}=None)")
        channels = m.shape[-1] if m.ndim == 3 + batched else 1
        for n in counts:
            if n != channels:
                raise ValueError(f"{arg} has {n} values for a mask of {channels} channels")


def _is_torch(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _fill_holes(m: np.ndarray, sample: list) -> None:
    """A sample's dropout holes filled with their fill_mask in a warped mask (in place)."""
    for rects, value in sample:
        if value is None:
            continue
        v = np.asarray(value, m.dtype if m.dtype != np.bool_ else np.float64)
        for x1, y1, x2, y2 in rects.tolist():
            m[max(y1, 0):max(y2, 0), max(x1, 0):max(x2, 0)] = v


def _each_mask(out: dict, kind: str, per_sample: list, names: list,
               fill: Callable[[np.ndarray, Any], None]) -> None:
    """``fill(mask, per_sample[k])`` on each warped mask of sample k in the call's results
    (``names``: the mask targets and lists of masks; in place, torch tensors through their
    numpy view; checked by :func:`_host_masks`)."""
    single = kind == "single"
    for name in names:
        res = out[name]
        for k, sample in enumerate(per_sample):
            if not sample:
                continue
            item = res if single else res[k]
            for m in item if isinstance(item, list) else [item]:
                fill(m.numpy() if _is_torch(m) else m, sample)  # (a view of the CPU tensor)


def _then(result: Any, f: Callable[[Any], Any]) -> Any:
    """``f`` of a warp's result, or of a pending one (a function giving it once the call's
    waits are done, _Opts.pending): then a function giving ``f`` of it."""
    return (lambda: f(result())) if callable(result) else f(result)


def _frames_at_once(images: dict, kind: str, plain: bool) -> list[str]:
    """The frame targets of a one-sample call (``images=``, volumes' slices) to warp in one
    launch: two or more numpy arrays of one shape and dtype, with 1 to 4 channels, where
    ``plain`` (no Mosaic, no each-step edges); else none."""
    if kind != "single" or not plain:
        return []
    names = [n for n, x in images.items() if n.startswith(FRAME)]
    if len(names) < 2:
        return []
    first = images[names[0]]
    for n in names:
        x = images[n]
        if type(x) is not np.ndarray or x.shape != first.shape or x.dtype != first.dtype:
            return []
    if first.ndim not in (2, 3) or (first.ndim == 3 and not 1 <= first.shape[2] <= 4):
        return []
    return names


def _warp_frames(pipe, names: list[str], images: dict, plist: list, mats, outs,
                 opts: _Opts, colour: bool, given, sources, chains) -> dict:
    """One sample's frames (:func:`_frames_at_once`) warped as a batch of one launch, each
    by the sample's map (or its ``chains``' maps and fields) and colour operations (the
    sample's program a row each: noise and holes keyed on the sample, statistics per frame, as
    each frame alone gives them): name -> its result."""
    n = len(names)
    stack = np.stack([images[k] for k in names])
    gray = stack.ndim == 3
    if gray:
        stack = stack[..., None]
    if colour:  # (the sample's keywords for every frame: one dict, or the sample's own)
        program = colour_program(pipe, plist * n, stack.shape[3], stack.dtype, outs * n,
                                 _each(given, 1)[0], skip=sources, always=True)
        opts = opts._replace(colour=program)
    res = _warp_all(stack, "batch", np.repeat(mats[:1], n, axis=0), outs * n, opts,
                    chains=None if chains is None else chains[:1] * n)
    if gray and pipe.layout == "HWC":  # (as a gray frame alone gives it: (h, w); the
        res = res[..., 0]  # model's channels-first input keeps its (1, h, w))
    return {k: res[j] for j, k in enumerate(names)}


def _warp_all(x, kind, mats, outs, opts, as_mask: bool = False, chains=None):
    """One warp for a single image or a uniform batch (one launch). A list whose outputs share
    one size (RandomResizedCrop(224) over photos) gives one (B, ...) array, in one launch
    (warp_batch); a list of Pillow images a list of them; other lists are launched back to back
    with one wait. With ``chains`` (pipelines with
    non-linear transforms), the maps and fields of each sample (lists: one launch per item)."""
    if chains is not None:
        # per-axis tables hold positions at pixel centres: not with supersampling
        def coords(cs, size):
            return chain_coords(cs, None if opts.sampling.supersample else size)

        if kind == "batch" and len(set(outs)) == 1:
            return _warp(x, coords(chains, outs[0]), outs[0], opts, as_mask, batched=True)
        if kind == "single":
            return _warp(x, coords(chains, outs[0]), outs[0], opts, as_mask)
        # an item whose chain has no field (its transform not applied) takes its matrix: a
        # field launch needs at least one stage
        items = list(x)
        prepare_stages(chains)  # (a batch's cells rastered at once, then launched item by item)

        def each(k: int, o: _Opts) -> Any:
            c, m = chains[k], mats[k]
            return _warp(items[k], coords([c], outs[k]) if len(c) > 1 else m, outs[k],
                         o.item(k), as_mask)

        if not as_mask and len(set(outs)) == 1 and len({_kind(i) for i in items}) == 1 and \
                all(isinstance(i, np.ndarray) for i in items):
            # one output array: the first item's result gives its shape, the others are
            # written into it, their waits the call's (one wait, no stacking copy)
            if opts.out is not None and (not isinstance(opts.out, np.ndarray) or
                                         opts.out.shape[:1] != (len(items),)):
                raise ValueError(f"out must hold one result per sample, {len(items)}, got "
                                 f"{getattr(opts.out, 'shape', type(opts.out).__name__)}")
            first = each(0, opts._replace(pending=None, out=None))
            arr = HOST_POOL.empty((len(items), *first.shape), first.dtype) if opts.out is None \
                else _result_array(opts.out, (len(items), *first.shape), first.dtype)
            # (recycled, aligned memory: no page faults)
            arr[0] = first
            for k in range(1, len(items)):
                each(k, opts._replace(out=arr[k]))
            return (lambda: arr) if opts.pending is not None else arr
        opts.one_array()
        opts = opts._replace(pending=None)  # (each waited for: their arrays are stacked)
        res = [each(k, opts) for k in range(len(items))]
        one = len(set(outs)) == 1 and len({_kind(r) for r in res}) == 1
        return np.stack(res) if one and all(isinstance(r, np.ndarray) for r in res) else res
    if kind == "batch" and len(set(outs)) == 1:
        return _warp(x, mats, outs[0], opts, as_mask, batched=True)
    if kind == "single":
        return _warp(x, mats[0], outs[0], opts, as_mask)
    items = list(x)
    later = opts  # (warp_batch takes the call's waits; warp_each waits for its own)
    opts = opts._replace(pending=None)
    # one output array: one output size, and items of one kind (channels, dtype)
    one = len(set(outs)) == 1 and len({_kind(item) for item in items}) == 1
    if not as_mask:
        if not one:
            opts.one_array()
        return warp_batch(items, mats, outs[0], opts.sampling, **later.kw()) if one else \
            warp_each(items, mats, outs, opts.sampling, **opts.kw())
    if any(is_device_array(item) for item in items):  # device masks stay there, one call each
        return [_warp(item, m, o, opts, True) for item, m, o in zip(items, mats, outs)]
    arrays = [np.asarray(item) for item in items]
    prepared = [_mask_work(a) for a in arrays]
    if one:
        return _then(warp_batch([w for w, _ in prepared], mats, outs[0], opts.sampling,
                                **later.kw()), prepared[0][1])
    res = warp_each([w for w, _ in prepared], mats, outs, opts.sampling, **opts.kw())
    return [back(r) for r, (_, back) in zip(res, prepared)]


def _channels_dtype(image: Any, kind: str) -> tuple[int, np.dtype]:
    """The channels and dtype of a call's images (a list's first; a Pillow image as numpy
    reads it)."""
    first = image[0] if kind == "list" else image
    shape = getattr(first, "shape", None)
    if shape is None:  # Pillow
        a = np.asarray(first)
        return (a.shape[2] if a.ndim == 3 else 1), a.dtype
    per_item = len(shape) - (1 if kind == "batch" else 0)
    return (shape[-1] if per_item == 3 else 1), _dtype_of(first)


def _first_dtype(image: Any) -> np.dtype:
    """The dtype of an image target as the pipeline took it (the first of a list)."""
    return _dtype_of(image[0] if isinstance(image, (list, tuple)) and image else image)


def _dtype_of(x: Any) -> np.dtype:
    """An array's dtype, or a Pillow image's as numpy reads it."""
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(x).dtype


def _kind(item: Any) -> tuple:
    """What items must share to be stacked: their type, dtype, and shape past (H, W)."""
    shape = getattr(item, "shape", None)
    if shape is None:  # a Pillow image
        return type(item), getattr(item, "mode", None)
    return type(item), item.dtype, tuple(shape[2:])  # (a dtype hashes faster than its name)


def _mask_work(a: Any):
    """(the array the warps take, the function giving a warped one back in the mask's dtype):
    bool as uint8, uint8/uint16/int32/float32 as they are, other integers as int32 when they
    fit, float16/float64 as float32 (on the host: a device mask's values are not read back, so
    it must have one of those dtypes)."""
    dt = a.dtype
    if dt == np.bool_:
        return a.view(np.uint8), lambda r: r.view(np.bool_)
    if dt in _MASK_NATIVE or dt == np.float32:
        return a, lambda r: r
    if dt.kind == "f" and not is_device_array(a):  # heatmaps, depth: resampled in float32
        return a.astype(np.float32), lambda r: r.astype(dt)
    if dt.kind not in "iu":
        raise TypeError(f"mask must hold integers, bools (labels) or floats (heatmaps, depth), "
                        f"got {dt}")
    if is_device_array(a):
        raise TypeError(f"a mask on the device must be bool, uint8, uint16 or int32 (its values "
                        f"are not read back to check they fit), got {dt}: convert it first, "
                        f"e.g. mask.astype(numpy.int32)")
    if a.size and (a.min() < -2**31 or a.max() > 2**31 - 1):
        raise ValueError(f"mask values must fit int32 to be warped, got {a.min()}..{a.max()}")
    return a.astype(np.int32), lambda r: r.astype(dt)


def _sample(x, m, size, opts: _Opts):
    """A perspective warp by the matrix ``m``, or by the maps and fields of ``m`` (Coords)."""
    if isinstance(m, Coords):
        return warp_by_coords(x, m, size, opts.sampling, **opts.kw())
    return warp_by(x, m, size, opts.sampling, affine=False, again=True, **opts.kw())


def _warp(x, m, size, opts, as_mask, batched=False):
    if not as_mask:
        return _sample(x, m, size, opts)
    a = x if is_device_array(x) else np.asarray(x)
    plain = a.ndim == (3 if batched else 2)  # no channel axis: (H, W) or (B, H, W)
    if plain:
        a = a.reshape(*a.shape, 1)
    if a.shape[-1] > MAX_CHANNELS and is_device_array(a):  # (the engine splits host arrays')
        raise ValueError(f"a mask on the device may have at most {MAX_CHANNELS} channels, got "
                         f"{a.shape[-1]}: warp it in parts of {MAX_CHANNELS}")
    work, back = _mask_work(a)

    def shaped(res):
        res = back(res)
        if res.ndim == a.ndim - 1:  # a one-channel (H, W, 1) comes back as (H, W)
            res = res.reshape(*res.shape, 1)
        return res.reshape(res.shape[:-1]) if plain else res

    return _then(_sample(work, m, size, opts), shaped)
