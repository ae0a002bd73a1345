"""albumentations' OverlayElements: images (stickers, logos, objects cut from other photos) the
call passes, pasted onto the image where their masks are set, and their masks' pixels set to
an id in the mask targets.

The elements come with the call, as albumentations' data does: ``overlay_metadata=`` (the
transform's ``metadata_key``) holds a sample's elements, a dict or a list of dicts, one value
per sample in a batch or list call. Each element is a dict:

- ``image``: the element's pixels, (h, w) or (h, w, C) with the image's channels and dtype;
- ``bbox`` (optional): where it goes, ``[x_min, y_min, x_max, y_max]`` as fractions of the
  image's width and height (albumentations' normalised boxes; more numbers after the four are
  kept by albumentations and ignored here). The element is resized to the box's whole pixels
  (``int(x_min * W)`` .. ``int(x_max * W)``, likewise y) as ``cv2.resize`` with INTER_AREA
  resizes it, its mask by INTER_NEAREST. Without a box, the element goes at a place drawn per
  sample (a whole column in ``[0, W - w]``, then a row in ``[0, H - h]``, both ends
  included), first resized to the image's size where it is wider or higher than the image;
- ``mask`` (optional): (h, w), which of the element's pixels are pasted (those not 0); all of
  them without one;
- ``mask_id`` (optional): the value the pasted pixels take in the call's masks.

Conventions: boxes are (x, y) fractions of the image as this step finds it, the drawn places
(recorded as ``elements``: ``[x, y, width, height]`` in whole pixels per element, in order)
are pixel corners from its top-left. Where it stands decides where it pastes:

- with no geometric step after it, on the output, in the pass: each element is a colour
  operation (``engine.core.paste_ops``) whose selected output pixels take the element's
  values, in the pipeline's order among the colour steps; the masks' ids are set on the host
  after their warp;
- with geometric steps after it, on the source: the host pastes the elements and the ids into
  copies of the call's images and masks (numpy, CPU torch or Pillow), which the warp then
  reads, so the elements move with the image. Nothing that moves or changes pixels may come
  before it then (the pipeline refuses it).

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, HorizontalFlip, OverlayElements
    >>> aug = Compose([HorizontalFlip(p=1), OverlayElements(p=1)])
    >>> logo = {"image": np.full((8, 8, 3), 255, np.uint8), "bbox": [0.5, 0.5, 0.75, 1.0]}
    >>> out = aug(image=np.zeros((16, 32, 3), np.uint8), overlay_metadata=logo,
    ...           seed=0)                                             # doctest: +SKIP
    >>> out["params"]["steps"][1]["elements"]                          # doctest: +SKIP
    [[16, 8, 8, 8]]
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..engine.core import COLOUR_PEAKS, COLOUR_WORDS, colour_peak, paste_data, paste_ops
from ..engine.resize8 import INTER_AREA, INTER_NEAREST, stage_axis, stage_modes
from ._colour import ColourTransform, IdentityStep, table_offset
from ._domain import _metadata_key, _resized

__all__ = ["OverlayElements", "check_overlays", "has_mask_ids", "overlay_keys",
           "overlay_mask_ids", "paste_sources", "source_overlays"]

#: the image dtypes an element takes, by the image's peak (engine.core.colour_peak)
_DTYPES = {peak: dt for dt, peak in COLOUR_PEAKS.items()}


class OverlayElements(ColourTransform):
    """albumentations' OverlayElements: the elements the call passes under ``metadata_key``
    pasted onto the image (where their masks are set) and their ``mask_id`` into the masks;
    see the module's notes for the elements' fields and the conventions.

    A sample without elements (an empty list) is left as it is. After the geometry it pastes
    on the output in the pass; before it, on the source on the host (see the module's notes).

    Example:
        >>> import numpy as np
        >>> from warpkit.augment._targets import Seen
        >>> t = OverlayElements(p=1)
        >>> elem = {"image": np.zeros((10, 20, 3), np.uint8)}
        >>> seen = Seen((64, 48), given={"overlay_metadata": elem}.get)
        >>> x, y, w, h = t.draw_seen(np.random.default_rng(0), (64, 48), seen)["elements"][0]
        >>> (w, h), 0 <= x <= 44 and 0 <= y <= 38
        ((20, 10), True)
    """

    reads = frozenset({"passed"})

    def __init__(self, metadata_key: str = "overlay_metadata", p: float = 0.5) -> None:
        super().__init__(p)
        self.metadata_key = _metadata_key(metadata_key)

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        given = None if seen is None or seen.given is None else seen.given(self.metadata_key)
        placed = []
        for k, e in enumerate(_elements(given, self.metadata_key)):
            _image(e, f"{self.metadata_key}[{k}]")
            box = _box_pixels(e, size, f"{self.metadata_key}[{k}]")
            if box is not None:
                placed.append([box[0], box[1], box[2] - box[0], box[3] - box[1]])
                continue
            w, h = _free_size(e, size)
            x = int(rng.integers(0, size[0] - w + 1))  # (Python's randint: both ends)
            y = int(rng.integers(0, size[1] - h + 1))
            placed.append([x, y, w, h])
        return {"elements": placed}

    def colour_ops(self, params, channels, peak):
        raise ValueError(f"OverlayElements' operations need the call's elements "
                         f"({self.metadata_key}=): a pipeline call makes them")

    def call_colour_ops(self, params: dict, channels: int, peak: float, size: tuple[int, int],
                        passed: dict, memo: dict) -> np.ndarray:
        """A COL_PASTE operation per element (in order) for a sample whose output is ``size`` =
        (width, height) and whose elements are ``passed[metadata_key]``."""
        pieces = [paste_ops(x, y, sel.shape[1], sel.shape[0],
                            table_offset(memo, key, lambda: paste_data(sel, pixels)))
                  for x, y, sel, pixels, _, key in self.placed(
                      params, size, passed.get(self.metadata_key), channels, peak, memo)]
        return np.concatenate(pieces) if pieces else np.zeros((0, COLOUR_WORDS), np.float32)

    def placed(self, params: dict, size: tuple[int, int], given: Any, channels: int | None,
               peak: float | None, memo: dict | None = None
               ) -> list[tuple[int, int, np.ndarray, Any, Any, tuple]]:
        """Each element as the sample's recorded ``elements`` place it on an image of ``size``:
        (x, y, its selected pixels (h, w) bool, its pixels (h, w, channels) in the image's
        units or None where ``channels`` is None, its mask_id or None, a key of the element's
        pixels: the element's identity, size, channels and peak); ``memo``: a call's, where
        each element's pixels are made once per key (a batch passing the same elements to
        every sample resizes each once)."""
        key = self.metadata_key
        elements = _elements(given, key)
        rec = params.get("elements")
        if not isinstance(rec, list) or len(rec) != len(elements):
            raise ValueError(f"OverlayElements' params place {_count(rec)} elements, the call "
                             f"passes {len(elements)} in {key}: replay them with the elements "
                             f"they were drawn with")
        out = []
        memo = {} if memo is None else memo
        for k, (e, r) in enumerate(zip(elements, rec)):
            what = f"{key}[{k}]"
            x, y, w, h = _recorded(r, e, size, what)
            made = ("OverlayElements", id(e), id(e["image"]), id(e.get("mask")), w, h,
                    channels, peak)
            if made not in memo:  # (the call holds its elements: their ids stay theirs)
                memo[made] = _made(e, what, w, h, channels, peak)
            selected, pixels = memo[made]
            out.append((x, y, selected, pixels, e.get("mask_id"), made + ("ops",)))
        return out

    def config(self):
        return {"metadata_key": self.metadata_key}


def _made(e: Mapping, what: str, w: int, h: int, channels: int | None,
          peak: float | None) -> tuple[np.ndarray, Any]:
    """An element's selected pixels (h, w) and its pixels resized to (w, h) in the image's
    units (None where ``channels`` is None), its channels and dtype checked."""
    img = _image(e, what)
    mask = e.get("mask")
    if mask is not None:
        mask = _mask(mask, img.shape[:2], "bbox" in e, what)
        mask = _nearest(mask, w, h) if mask.shape != (h, w) else mask
    selected = np.ones((h, w), bool) if mask is None else mask != 0
    pixels = None
    if channels is not None:
        got = 1 if img.ndim == 2 else img.shape[2]
        if got != channels:
            raise ValueError(f"{what}['image'] has {got} channel{'s' * (got != 1)}, the image "
                             f"{channels}: give the element the image's channels")
        if img.dtype != _DTYPES[float(peak)]:
            raise ValueError(f"{what}['image'] is {img.dtype}, the image "
                             f"{np.dtype(_DTYPES[float(peak)])}: give the element in the "
                             f"image's dtype (albumentations copies its values as they are)")
        src = img.reshape(img.shape[0], img.shape[1], -1)
        pixels = src if src.shape[:2] == (h, w) else _resized(src, w, h, INTER_AREA)
    return selected, pixels


def _count(rec: Any) -> str:
    return str(len(rec)) if isinstance(rec, list) else "no"


def _elements(given: Any, key: str) -> list[Mapping]:
    """A sample's elements as a list of dicts, or a ValueError naming ``key``."""
    if given is None:
        raise ValueError(f"OverlayElements pastes the elements the call passes as {key}= (a "
                         f"dict with 'image' and optionally 'bbox', 'mask', 'mask_id', or a "
                         f"list of them; one per sample in a batch): the call has none")
    elements = [given] if isinstance(given, Mapping) else given
    if not isinstance(elements, Sequence) or isinstance(elements, (str, bytes)) or \
            not all(isinstance(e, Mapping) for e in elements):
        raise ValueError(f"{key} must be a dict (an element) or a list of dicts, got "
                         f"{type(given).__name__}")
    for k, e in enumerate(elements):
        if "image" not in e:
            raise ValueError(f"{key}[{k}] has no 'image': each element is a dict with 'image' "
                             f"and optionally 'bbox', 'mask', 'mask_id'")
        unknown = sorted(set(e) - {"image", "bbox", "mask", "mask_id", "bbox_id"})
        if unknown:
            raise ValueError(f"{key}[{k}] has keys {unknown}: an element takes 'image', "
                             f"'bbox', 'mask', 'mask_id' (and albumentations' 'bbox_id')")
    return list(elements)


def _image(e: Mapping, what: str) -> np.ndarray:
    img = e["image"]
    if not isinstance(img, np.ndarray) or img.ndim not in (2, 3) or min(img.shape[:2]) < 1 \
            or img.dtype not in (np.uint8, np.uint16, np.float32):
        raise ValueError(f"{what}['image'] must be a numpy array (h, w) or (h, w, C), uint8, "
                         f"uint16 or float32, with pixels; got "
                         f"{getattr(img, 'dtype', type(img).__name__)} "
                         f"{getattr(img, 'shape', '')}")
    return img


def _mask(mask: Any, hw: tuple[int, int], boxed: bool, what: str) -> np.ndarray:
    """An element's mask as (h, w): without a box, of the element's own size (albumentations
    indexes the element with it)."""
    m = np.asarray(mask)
    if m.ndim == 3 and m.shape[2] == 1:
        m = m[:, :, 0]
    if m.ndim != 2 or min(m.shape) < 1 or not (np.issubdtype(m.dtype, np.number)
                                                 or m.dtype == np.bool_):
        raise ValueError(f"{what}['mask'] must be an (h, w) array of numbers, got "
                         f"{m.dtype} {m.shape}")
    if not boxed and m.shape != tuple(hw):
        raise ValueError(f"{what}['mask'] is {m.shape[0]} x {m.shape[1]} (h x w), its image "
                         f"{hw[0]} x {hw[1]}: without a bbox the mask selects the element's "
                         f"own pixels")
    return m


def _box_pixels(e: Mapping, size: tuple[int, int], what: str) -> list[int] | None:
    """An element's box as whole pixels [x0, y0, x1, y1] of an image of ``size`` (albumentations:
    ``int()`` of each fraction times the side, in double), or None for an element without."""
    if "bbox" not in e:
        return None
    b = np.asarray(e["bbox"], np.float64).reshape(-1) if _numbers(e["bbox"]) else None
    if b is None or len(b) < 4:
        raise ValueError(f"{what}['bbox'] must be [x_min, y_min, x_max, y_max] as fractions "
                         f"of the image, got {e['bbox']!r}")
    b = b[:4]
    # (albumentations' check_bboxes: in [0, 1], or numpy's isclose to 0 or 1)
    inside = all(0 <= v <= 1 or abs(v) <= 1e-8 or abs(v - 1) <= 1e-8 + 1e-5 for v in b.tolist())
    if not inside or not (b[2] > b[0] and b[3] > b[1]):
        raise ValueError(f"{what}['bbox'] must be fractions in [0, 1] with x_max > x_min and "
                         f"y_max > y_min, got {e['bbox']!r}")
    w, h = size
    x0, y0, x1, y1 = (int(v) for v in b * np.array([w, h, w, h], np.float64))
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"{what}['bbox'] {e['bbox']!r} covers no whole pixel of the {w} x {h} "
                         f"image ({x0}..{x1}, {y0}..{y1}): nothing to paste")
    return [x0, y0, x1, y1]


def _numbers(v: Any) -> bool:
    try:
        a = np.asarray(v, np.float64)
    except (TypeError, ValueError):
        return False
    return a.ndim == 1 and np.isfinite(a).all()


def _free_size(e: Mapping, size: tuple[int, int]) -> tuple[int, int]:
    """An element without a box: its size, or the image's where it is wider or higher."""
    h, w = np.shape(e["image"])[:2]
    return (size[0], size[1]) if w > size[0] or h > size[1] else (int(w), int(h))


def _recorded(r: Any, e: Mapping, size: tuple[int, int], what: str) -> tuple[int, int, int, int]:
    """A recorded place [x, y, w, h], checked against the element and the image's ``size``."""
    if not (isinstance(r, (list, tuple)) and len(r) == 4 and
            all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in r)):
        raise ValueError(f"OverlayElements' elements are [x, y, width, height] in whole pixels "
                         f"for each, got {r!r} for {what}")
    x, y, w, h = (int(v) for v in r)
    box = _box_pixels(e, size, what)
    want = (box[2] - box[0], box[3] - box[1]) if box is not None else _free_size(e, size)
    if (w, h) != want or (box is not None and (x, y) != (box[0], box[1])) or x < 0 or y < 0 \
            or x + w > size[0] or y + h > size[1]:
        raise ValueError(f"OverlayElements' params put {what} at {list(r)} ([x, y, width, "
                         f"height]), which its element does not fit on the {size[0]} x "
                         f"{size[1]} image (it takes {want[0]} x {want[1]}"
                         f"{' at its box' if box is not None else ''}): replay them on the "
                         f"size and elements they were drawn with")
    return x, y, w, h


def _nearest(m: np.ndarray, w: int, h: int) -> np.ndarray:
    """``cv2.resize(m, (w, h), interpolation=INTER_NEAREST)`` of a mask of any dtype
    (engine.resize8's nearest taps: source ``floor(x / scale)`` in double, at most the
    last)."""
    n, inv = (m.shape[1], m.shape[0]), (w / m.shape[1], h / m.shape[0])
    mode = stage_modes(n, (w, h), inv, INTER_NEAREST)
    cols = stage_axis(n[0], w, inv[0], INTER_NEAREST, mode)[0]
    rows = stage_axis(n[1], h, inv[1], INTER_NEAREST, mode)[0]
    return m[rows[:, None], cols[None, :]]


def has_mask_ids(given: Any) -> bool:
    """Whether a sample's elements (``given``: a dict or a list of them, as passed) set an id
    in the masks (one has a ``mask_id`` that is not None)."""
    elements = [given] if isinstance(given, Mapping) else given or ()
    return any(isinstance(e, Mapping) and e.get("mask_id") is not None for e in elements)


def overlay_mask_ids(step: OverlayElements, params: dict, size: tuple[int, int], given: Any
                     ) -> list[tuple[int, int, np.ndarray, Any]]:
    """The elements of one applied OverlayElements that set an id in the masks: (x, y, their
    selected pixels, mask_id), in order."""
    return [(x, y, sel, mid) for x, y, sel, _, mid, _ in
            step.placed(params, size, given, None, None) if mid is not None]


def check_overlays(pipe: Any) -> None:
    """Refuse an OverlayElements where its place in ``pipe`` (a Compose) would not give
    albumentations' result. With no geometric step after it, it pastes on the output, in the
    pass. With geometric steps after it, it pastes on the source on the host
    (:func:`source_overlays`), so nothing may move or change the pixels before it, nor read the
    masks' new ids after it (their draws read the call's masks as given), nor may Mosaic
    follow it (its other images have no elements)."""
    leaves = _leaves(pipe)
    for k, t in enumerate(leaves):
        if not isinstance(t, OverlayElements):
            continue
        after = [type(a).__name__ for a in leaves[k + 1:] if not isinstance(a, IdentityStep)]
        if not after:
            continue
        before = [type(b).__name__ for b in leaves[:k]
                  if not isinstance(b, OverlayElements) and
                  (not isinstance(b, IdentityStep) or isinstance(b, ColourTransform))]
        if before:
            raise ValueError(f"OverlayElements with geometric steps after it ({', '.join(after)}) "
                             f"pastes on the source image, before them: it must come before "
                             f"the steps that move or change pixels ({', '.join(before)}); or "
                             f"put it after the geometry, where it pastes on the output")
        readers = [type(a).__name__ for a in leaves[k + 1:] if "masks" in a.reads]
        if readers:
            raise ValueError(f"{', '.join(readers)} read{'s' * (len(readers) == 1)} the call's "
                             f"masks as given, not the ids an OverlayElements before it pastes: "
                             f"put OverlayElements after the geometry")
        if "Mosaic" in after:
            raise ValueError("OverlayElements may not come before Mosaic (the mosaic's other "
                             "images have no elements): put it after the geometry")


def overlay_keys(pipe: Any) -> tuple[str, ...]:
    """The call keywords the OverlayElements of ``pipe`` read their elements from."""
    return tuple(dict.fromkeys(t.metadata_key for t in _leaves(pipe)
                               if isinstance(t, OverlayElements)))


def source_overlays(pipe: Any) -> frozenset[int]:
    """The ids of the OverlayElements of ``pipe`` that paste on the source image (on the
    host, before the warp): those with a geometric step after them."""
    leaves = _leaves(pipe)
    return frozenset(id(t) for k, t in enumerate(leaves) if isinstance(t, OverlayElements)
                     and any(not isinstance(a, IdentityStep) for a in leaves[k + 1:]))


def paste_sources(pipe: Any, sources: frozenset[int], plist: list, sizes: list, given: list,
                  images: dict, masks: dict, groups: dict, kind: str) -> None:
    """The applied OverlayElements of ``sources`` pasted on the host into copies of the call's
    images (``images``, name -> value, replaced in place) and their mask ids into copies of its
    masks (``masks``) and mask lists (``groups``: name -> each sample's masks), before the
    warp reads them."""
    steps = [[(s, sp) for s, sp in pipe.applied_steps(p) if id(s) in sources] for p in plist]
    if not any(steps):
        return
    for name, x in images.items():
        images[name] = _each_sample(x, kind, name, lambda a, k: _paste_pixels(
            a, steps[k], sizes[k], given[k]))
    for name, m in masks.items():
        masks[name] = _each_sample(m, kind, name, lambda a, k: _paste_mask(
            a, steps[k], sizes[k], given[k]))
    for name, g in groups.items():
        groups[name] = [[_paste_mask(_host(m, f"{name}[{k}]"), steps[k], sizes[k], given[k])
                         if steps[k] else m for m in grp] for k, grp in enumerate(g)]


def _paste_pixels(a: np.ndarray, steps: list, size: tuple[int, int], given: dict) -> np.ndarray:
    channels = 1 if a.ndim == 2 else a.shape[2]
    peak = colour_peak(a.dtype)  # (a TypeError for other dtypes)
    view = a.reshape(a.shape[0], a.shape[1], channels)
    for step, sp in steps:
        for x, y, selected, pixels, _, _ in step.placed(sp, size, given.get(step.metadata_key),
                                                      channels, peak):
            h, w = selected.shape
            view[y:y + h, x:x + w][selected] = pixels[selected]
    return a


def _paste_mask(a: np.ndarray, steps: list, size: tuple[int, int], given: dict) -> np.ndarray:
    for step, sp in steps:
        for x, y, selected, mask_id in overlay_mask_ids(step, sp, size,
                                                        given.get(step.metadata_key)):
            h, w = selected.shape
            a[y:y + h, x:x + w][selected] = mask_id
    return a


def _host(a: Any, what: str) -> np.ndarray:
    """A host image or mask as a numpy copy (Pillow's pixels too), or a ValueError."""
    Image = sys.modules.get("PIL.Image")
    if Image is not None and isinstance(a, Image.Image):
        return np.array(a)
    if not isinstance(a, np.ndarray):
        raise ValueError(f"OverlayElements before geometric steps pastes on the source on the "
                         f"host: give {what} as a numpy array, a CPU torch tensor or a Pillow "
                         f"image, got {type(a).__name__} (or put OverlayElements after the "
                         f"geometry)")
    return a.copy()


def _each_sample(x: Any, kind: str, name: str, paste: Any) -> Any:
    """``x`` (a call's image or mask: one, a batch or a list) with ``paste(copy, k)`` applied
    to a copy of each sample k, as the same kind (Pillow images back as Pillow images)."""
    Image = sys.modules.get("PIL.Image")
    if kind == "single":
        out = paste(_host(x, name), 0)
        if Image is None or not isinstance(x, Image.Image):
            return out
        back = Image.fromarray(out, x.mode)
        if x.mode == "P":  # (the same palette: the pixels are its indices)
            back.putpalette(x.getpalette())
        return back
    if kind == "batch":
        out = _host(x, name)
        for k in range(out.shape[0]):
            out[k] = paste(out[k], k)
        return out
    return [_each_sample(item, "single", f"{name}[{k}]", lambda a, _, k=k: paste(a, k))
            for k, item in enumerate(x)]


def _leaves(t: Any) -> list:
    inner = getattr(t, "transforms", None)
    if inner is None:
        return [t]
    return [leaf for c in inner for leaf in _leaves(c)]
