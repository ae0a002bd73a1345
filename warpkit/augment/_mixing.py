"""Batch-level mixing as torchvision v2 defines it: :class:`MixUp` and :class:`CutMix` blend
each sample of a batch with the one before it (the batch rolled by one, as torchvision does)
and mix their labels into soft labels that sum to 1.

They run on a pipeline's output batch (numpy arrays or torch tensors, on any torch device),
after the warp: ``images, labels = CutMix(num_classes=10)(out["image"], classes, seed=s,
index=i)``. Their numbers (the mixing weight, CutMix's box) are drawn from the stream ``(seed,
epoch, index)`` like every warpkit draw, so a batch mixes the same way again (:meth:`sample`
gives them without touching the batch, :meth:`apply` applies them).

Conventions: a torch batch is channels first, (B, C, H, W), as torchvision takes it; a numpy
batch is channels last, (B, H, W, C) or (B, H, W), as warpkit's pipelines return it (pass
``layout="CHW"`` for a channels-first numpy batch, the pipelines' ``layout="CHW"`` output).
Integer images are mixed in float32 and rounded back to their dtype. Labels are class indices
(B,), one-hot encoded with ``num_classes``, or soft labels (B, num_classes) already; the result
is float32 (B, num_classes)."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from .._checks import count, number
from ._streams import stream

__all__ = ["CutMix", "MixUp"]


def _is_torch(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


class _Mix:
    """What MixUp and CutMix share: the Beta draw, the labels, the layouts."""

    def __init__(self, *, alpha: float = 1.0, num_classes: int | None = None) -> None:
        self.alpha = number(alpha, "alpha")
        if self.alpha <= 0:
            raise ValueError(f"alpha must be > 0 (the Beta distribution's parameter), got {alpha!r}")
        self.num_classes = None if num_classes is None else count(num_classes, "num_classes", 1)

    def _hw(self, images: Any, layout: str | None) -> tuple[str, int, int]:
        shape = tuple(images.shape)
        layout = layout or ("CHW" if _is_torch(images) else "HWC")
        if layout not in ("CHW", "HWC"):
            raise ValueError(f"layout must be 'CHW' or 'HWC', got {layout!r}")
        if len(shape) != 4 and not (layout == "HWC" and len(shape) == 3):
            raise ValueError(f"images must be a batch: (B, C, H, W) for layout 'CHW', (B, H, W, C) "
                             f"or (B, H, W) for 'HWC'; got shape {shape}")
        if shape[0] < 1:
            raise ValueError("images is an empty batch")
        h, w = (shape[-2], shape[-1]) if layout == "CHW" else (shape[1], shape[2])
        return layout, h, w

    def sample(self, shape: tuple[int, int], seed: int, epoch: int = 0, index: int = 0) -> dict:
        """The numbers for a batch of images of ``shape`` = (height, width), drawn from the
        stream ``(seed, epoch, index)``."""
        return self.draw(stream(seed, epoch, index), shape)

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> dict:
        return {"lam": float(rng.beta(self.alpha, self.alpha))}

    def __call__(self, images: Any, labels: Any, *, seed: int | None = None, epoch: int = 0,
                 index: int = 0, layout: str | None = None,
                 inplace: bool = False) -> tuple[Any, Any]:
        """(mixed images, soft labels) for a batch and its labels; without ``seed``, one is
        drawn. ``inplace``: the images are mixed in ``images`` itself (a pipeline's output
        batch, which nothing else holds), without a copy of the batch."""
        _, h, w = self._hw(images, layout)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        return self.apply(images, labels, self.sample((h, w), seed, epoch, index), layout=layout,
                          inplace=inplace)

    def _labels(self, labels: Any, n: int) -> Any:
        """(B, num_classes) float32 of class indices or soft labels, as the batch's kind."""
        torch = sys.modules.get("torch") if _is_torch(labels) else None
        shape = tuple(labels.shape) if hasattr(labels, "shape") else (len(labels),)
        if len(shape) == 1:
            if self.num_classes is None:
                raise ValueError("labels are class indices: give num_classes to one-hot encode "
                                 "them (or pass one-hot labels, (B, num_classes))")
            idx = labels if torch is not None else np.asarray(labels)
            bad = (idx < 0) | (idx >= self.num_classes)
            if bool(bad.any()):
                raise ValueError(f"labels must be class indices in [0, {self.num_classes}), got "
                                 f"{idx[bad][0].item() if hasattr(idx, 'dtype') else idx}")
            if torch is not None:
                out = torch.nn.functional.one_hot(idx.long(), self.num_classes).float()
            else:
                out = np.eye(self.num_classes, dtype=np.float32)[idx.astype(np.int64)]
        elif len(shape) == 2:
            out = labels.float() if torch is not None else np.asarray(labels, np.float32)
        else:
            raise ValueError(f"labels must be (B,) class indices or (B, num_classes), got shape "
                             f"{shape}")
        if out.shape[0] != n:
            raise ValueError(f"labels has {out.shape[0]} rows for a batch of {n} images")
        return out

    def _mixed_labels(self, labels: Any, n: int, lam: float) -> Any:
        y = self._labels(labels, n)
        rolled = y.roll(1, 0) if _is_torch(y) else np.roll(y, 1, 0)
        return y * lam + rolled * (1.0 - lam)


def _as_float(x: Any) -> Any:
    """A sample as float32 (numpy or torch; no copy where it is float32 already)."""
    return x.float() if _is_torch(x) else np.asarray(x, np.float32)


def _store(mixed: Any, into: Any) -> None:
    """Write ``mixed`` (float32) into ``into`` (a sample of the batch's kind and dtype):
    integers rounded (halves to even) and clipped to their range."""
    if _is_torch(into):
        if not into.dtype.is_floating_point:
            info = sys.modules["torch"].iinfo(into.dtype)
            mixed = mixed.round().clamp(info.min, info.max)
        into.copy_(mixed)
        return
    if not np.issubdtype(into.dtype, np.floating):
        info = np.iinfo(into.dtype)
        mixed = np.clip(np.rint(mixed, out=mixed), info.min, info.max, out=mixed)
    into[...] = mixed


def _on_accelerator(images: Any) -> bool:
    """A torch tensor on a GPU (or any device but the CPU): there a few launches over the whole
    batch cost less than a few per sample, and memory is fast enough for a rolled copy."""
    return _is_torch(images) and images.device.type != "cpu"


def _rolled(images: Any, out: Any, each: Any) -> Any:
    """``out`` (``images`` itself, or a new batch of its kind) with sample k made by
    ``each(sample k, sample k - 1, out's sample k)`` for every k, sample -1 being the last
    (the batch rolled by one, as torchvision rolls it). Sample by sample from the last down,
    the last one's old value kept aside where it is overwritten: no rolled copy of the batch,
    no temporary larger than a sample. On an accelerator, ``each`` once on the whole batch and
    its rolled copy (``each`` takes samples and batches alike)."""
    if _on_accelerator(images):
        each(images, images.roll(1, 0), out)
        return out
    last = images[-1]
    if out is images:
        last = last.clone() if _is_torch(images) else np.array(last, copy=True)
    for k in range(images.shape[0] - 1, -1, -1):
        each(images[k], images[k - 1] if k else last, out[k])
    return out


def _new(images: Any, inplace: bool, copy: bool) -> Any:
    """Where a mix goes: ``images`` itself (``inplace``), a copy of it, or an empty batch."""
    if inplace:
        return images
    if _is_torch(images):
        return images.clone() if copy else sys.modules["torch"].empty_like(images)
    return np.array(images, copy=True) if copy else np.empty_like(images)


class MixUp(_Mix):
    """torchvision v2's MixUp: each image becomes ``lam * image + (1 - lam) * previous`` (the
    batch rolled by one) and its labels the same mix, ``lam`` drawn from Beta(alpha, alpha) once
    per batch.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import MixUp
        >>> images = np.stack([np.full((4, 4, 3), 200, np.uint8), np.zeros((4, 4, 3), np.uint8)])
        >>> mixed, soft = MixUp(num_classes=3).apply(images, np.array([0, 2]), {"lam": 0.75})
        >>> mixed[:, 0, 0, 0].tolist(), soft.tolist()
        ([150, 50], [[0.75, 0.0, 0.25], [0.25, 0.0, 0.75]])
    """

    def apply(self, images: Any, labels: Any, params: dict, *, layout: str | None = None,
              inplace: bool = False) -> tuple[Any, Any]:
        """The mix of these numbers (:meth:`sample`'s); ``inplace``: into ``images`` itself
        (a pipeline's own output batch: no copy of it is made)."""
        self._hw(images, layout)
        lam = float(params["lam"])
        if _is_torch(images):
            a, b = lam, 1.0 - lam  # torch takes Python numbers as the tensor's type
        else:
            a, b = np.float32(lam), np.float32(1.0 - lam)

        def mix(x, prev, into):
            m = _as_float(x) * a
            m += _as_float(prev) * b
            _store(m, into)

        return (_rolled(images, _new(images, inplace, False), mix),
                self._mixed_labels(labels, images.shape[0], lam))


class CutMix(_Mix):
    """torchvision v2's CutMix: a box of each image is replaced by the same box of the previous
    one (the batch rolled by one). The box is centred at a point drawn uniformly over the
    pixels, its sides ``sqrt(1 - lam)`` of the image's (``lam`` from Beta(alpha, alpha)),
    clipped to the image; the labels mix by the area kept, ``1 - box area / image area``.

    Example:
        >>> cut = CutMix(num_classes=2)
        >>> p = cut.sample((32, 32), seed=0)
        >>> sorted(p)
        ['box', 'lam', 'lam_adjusted']
    """

    def draw(self, rng, shape):
        h, w = shape
        lam = float(rng.beta(self.alpha, self.alpha))
        cx, cy = int(rng.integers(w)), int(rng.integers(h))
        r = 0.5 * math.sqrt(1.0 - lam)
        rw, rh = int(r * w), int(r * h)
        x1, y1 = max(cx - rw, 0), max(cy - rh, 0)
        x2, y2 = min(cx + rw, w), min(cy + rh, h)
        return {"lam": lam, "box": [x1, y1, x2, y2],
                "lam_adjusted": 1.0 - (x2 - x1) * (y2 - y1) / (w * h)}

    def apply(self, images: Any, labels: Any, params: dict, *, layout: str | None = None,
              inplace: bool = False) -> tuple[Any, Any]:
        """The cut and paste of these numbers (:meth:`sample`'s); ``inplace``: into ``images``
        itself (only the boxes move: no copy of the batch)."""
        layout, h, w = self._hw(images, layout)
        x1, y1, x2, y2 = (int(v) for v in params["box"])
        if not (0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h):
            raise ValueError(f"CutMix box {params['box']} does not lie in the {w}x{h} images")
        # counted from the last axis, so that it holds for a sample and for the batch alike
        box = (Ellipsis, slice(y1, y2), slice(x1, x2),
               *((slice(None),) if layout == "HWC" and images.ndim == 4 else ()))

        def paste(x, prev, into):
            into[box] = prev[box]

        out = _rolled(images, _new(images, inplace, True), paste)
        return out, self._mixed_labels(labels, images.shape[0], float(params["lam_adjusted"]))
