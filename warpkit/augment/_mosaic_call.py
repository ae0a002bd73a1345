"""A pipeline call whose first step is :class:`~warpkit.augment.Mosaic` (:mod:`._mosaic`): the
images every sample may read (the call's, and a single call's ``mosaic_metadata``), each
sample's cells, the canvas's boxes and keypoints gathered from its cells, and the warps that
read every cell from one atlas in one launch per output size."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._memory import is_device_array
from ..engine.chain import chain_coords, merge
from ..engine.core import warp_by
from ..engine.inputs import copy_each, recycled_rows
from ..engine.output import fills
from ._executor import (_EXTRA, _check_size, _hw, _mask_work, _per_sample, _Opts,
                        _shape_of)
from ._mosaic import GUARD, Cell, Mosaic, cell_stages, plain_stage
from ._targets import box_rows, check_boxes, from_xyxy, keypoint_rows, move_keypoints, select, \
    to_xyxy


class MosaicCall:
    """What a Mosaic pipeline's call needs beyond a plain one, checked before any draw: the
    sources (the call's samples, then a single call's metadata items, each one's (width,
    height) in ``source_sizes``, and their places in the atlas), each sample's partners for
    the draw, and after :meth:`lay_out` each sample's cells and Cells stage."""

    def __init__(self, pipe: Any, mosaic: Mosaic, t: Any, kind: str,
                 sizes: list[tuple[int, int]]) -> None:
        self.pipe, self.mosaic, self.t, self.kind = pipe, mosaic, t, kind
        n = len(sizes)
        extra = [k for k in t.boxes if k not in ("boxes", "bboxes")] + \
            [k for k in t.keypoints if k != "keypoints"]
        if t.mask_lists or extra:
            what = ", ".join(f"{k}=" for k in [*t.mask_lists, *extra])
            raise ValueError(f"a Mosaic pipeline takes image=, mask=, boxes= (bboxes=) and "
                             f"keypoints= with their label fields, and further images and "
                             f"masks; not {what}")
        if pipe.antialias or "area" in (pipe.interpolation, pipe.mask_interpolation):
            raise ValueError("a Mosaic pipeline resamples its cells as albumentations does "
                             "(no antialiasing, no area filter): pass antialias=False and "
                             "interpolation 'nearest', 'linear' or 'cubic'")
        others = pipe.reads - {"call"}
        if others:
            raise ValueError(f"a step after Mosaic chooses its parameters from the "
                             f"{' and '.join(sorted(others))}, which Mosaic gathers from "
                             f"several images: not supported in one pipeline")
        for name, x in {**t.images, **t.masks}.items():
            items = x if kind == "list" else [x]
            if any(is_device_array(a) for a in items):
                raise ValueError(f"{name} is on the device: Mosaic packs the call's images "
                                 f"into one atlas on the host; give numpy arrays")
        meta = t.passed.get(mosaic.metadata_key)
        if meta is not None and kind != "single":
            raise ValueError(f"{mosaic.metadata_key}= is for a single image's call; a batch "
                             f"or a list call draws each sample's mosaic from its other "
                             f"samples")
        self.meta = [] if meta is None else self._metadata(meta)
        self.source_sizes = list(sizes) + [m["size"] for m in self.meta]
        self.offsets, self.atlas_shape = atlas_layout(self.source_sizes)
        if kind == "single":
            self.partners = [list(range(len(self.meta)))]
        else:
            self.partners = [[j for j in range(n) if j != k] for k in range(n)]

    def _metadata(self, meta: Any) -> list[dict]:
        """A single call's extra images as dicts, checked: an image of the call's dtype and
        channels, and the targets the call has (a mask of its image's size; boxes and
        keypoints in the pipeline's formats, with the call's label fields)."""
        key = self.mosaic.metadata_key
        if not isinstance(meta, Sequence) or isinstance(meta, (str, bytes)):
            raise ValueError(f"{key} must be a list of dicts (each with 'image'), got "
                             f"{type(meta).__name__}")
        t, pipe = self.t, self.pipe
        out = []
        for i, item in enumerate(meta):
            where = f"{key}[{i}]"
            if not isinstance(item, dict) or item.get("image") is None:
                raise ValueError(f"{where} must be a dict with 'image', got "
                                 f"{type(item).__name__}")
            entry = {"size": None}
            for name in t.images:
                if item.get(name) is None:
                    raise ValueError(f"{where} has no {name!r}: the call has {name}=, so each "
                                     f"image of the mosaic needs one")
            h, w = _hw(item["image"])
            entry["size"] = (w, h)
            for name in t.masks:
                if item.get(name) is None:
                    raise ValueError(f"{where} has no {name!r}: the call has {name}=, so each "
                                     f"image of the mosaic needs one")
                _check_size(item[name], (w, h), f"{where}[{name!r}]")
            entry.update({name: item[name] for name in (*t.images, *t.masks)})
            if t.main_boxes() is not None:
                raw = item.get("bboxes", item.get("boxes"))
                rows = box_rows([] if raw is None else raw, f"{where}['bboxes']")
                fields = _item_labels(item, t.box_fields, len(rows), raw is None, where, "box")
                if rows.shape[1] > 4:
                    fields[_EXTRA] = rows[:, 4:]
                    rows = np.ascontiguousarray(rows[:, :4])
                (rows,), (fields,) = check_boxes(
                    [rows], [fields or None], pipe.box_format, [(w, h)], pipe.clip_boxes,
                    pipe.filter_invalid_boxes, True, f"{where}['bboxes']")
                entry["boxes"] = (rows, fields)
            if "keypoints" in t.keypoints:
                raw = item.get("keypoints")
                k = keypoint_rows([] if raw is None else raw, pipe.keypoint_format,
                                  f"{where}['keypoints']")
                kf = _item_labels(item, t.keypoint_fields, len(k), raw is None, where,
                                  "keypoint")
                entry["keypoints"] = (k, kf or None)
            out.append(entry)
        return out

    def source(self, k: int, src: int) -> int:
        """The source index (the call's samples, then the metadata's) of a cell of sample k."""
        if src < 0:
            return k
        return src if self.kind != "single" else 1 + src

    def lay_out(self, plist: list[dict], sizes: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Each sample's cells (None where it is no mosaic) from its parameters; returns the
        size each sample's steps after Mosaic start from (the canvas, or its image)."""
        self.cells: list = []
        for k, p in enumerate(plist):
            step = p["steps"][0] if p.get("applied", True) else {"applied": False}
            if not step.get("applied", True):
                self.cells.append(None)
                continue
            for *_, src in step["cells"]:
                if src != -1 and src not in self.partners[k]:
                    raise ValueError(f"params: a Mosaic cell of sample {k} reads image {src}, "
                                     f"which is none of its {len(self.partners[k])} partners in "
                                     f"this call: replay parameters on the call they were "
                                     f"drawn for")
            self.cells.append(self.mosaic.cells(
                step, lambda s, k=k: self.source_sizes[self.source(k, s)]))
        # each sample's Cells stage: where its canvas reads in the atlas (every target's)
        mosaics = [k for k, c in enumerate(self.cells) if c is not None]
        staged = dict(zip(mosaics, cell_stages(
            [self.cells[k] for k in mosaics],
            [[self.source(k, x.source) for x in self.cells[k]] for k in mosaics],
            self.offsets, self.source_sizes)))
        self.stages = [plain_stage(self.offsets[k], self.source_sizes[k]) if c is None else
                       staged[k] for k, c in enumerate(self.cells)]
        self._launches: tuple | None = None
        return [self.mosaic.target_wh if c is not None else s
                for c, s in zip(self.cells, sizes)]

    # -- targets ------------------------------------------------------------------------------
    def boxes(self, rows: list, fields: list, canvas: list) -> tuple[list, list]:
        """Each mosaic sample's boxes (the pipeline's format, on the canvas) and label fields:
        every cell's image's boxes resized and shifted onto the canvas and clipped to the
        cell, in the order of the cells; those left without area dropped. The boxes of all
        the call's cells move together, in a few array operations for the call instead of a
        few per cell (elementwise: each box's arithmetic is what it was alone)."""
        fmt = self.pipe.box_format
        src_rows, src_fields = self._sources(rows, fields, [m["boxes"] for m in self.meta])
        parts = self._parts(src_rows)
        moved = keep = None
        if parts:
            xyxy: dict[int, np.ndarray] = {}  # each source's boxes as corners, once
            for _, _, s in parts:
                if s not in xyxy:
                    xyxy[s] = to_xyxy(src_rows[s], fmt, self.source_sizes[s])
            m = np.stack([c.matrix for _, c, _ in parts])
            rect = np.asarray([c.rect for _, c, _ in parts], np.float64)
            xy = [0, 1, 0, 1]  # (x1, y1, x2, y2) take x's then y's scale and shift
            scale = m[:, xy, xy]  # pixel centres; edges: e' = s e + (t + 0.5 - 0.5 s)
            per = np.stack([scale, m[:, xy, 2] + 0.5 - 0.5 * scale, rect[:, xy],
                            rect[:, [2, 3, 2, 3]]])  # each part's scale, shift, low, high
            scale, shift, lo, hi = np.repeat(per, [len(src_rows[s]) for _, _, s in parts], 1)
            e = np.concatenate([xyxy[s] for _, _, s in parts])
            moved = np.clip(e * scale + shift, lo, hi)
            keep = (moved[:, 2] > moved[:, 0]) & (moved[:, 3] > moved[:, 1])
        got, fields = self._placed(rows, fields, src_rows, src_fields, parts, moved, keep, 4)
        return [r if self.cells[k] is None else from_xyxy(r, fmt, canvas[k])
                for k, r in enumerate(got)], fields

    def keypoints(self, klist: list, kfields: list) -> tuple[list, list]:
        """Each mosaic sample's keypoints on the canvas (every cell's image's, those inside
        its cell) and their label fields, gathered as :meth:`boxes` gathers boxes (each
        cell's keypoints moved by a call of their own: keypoints carry angles and scales)."""
        fmt = self.pipe.keypoint_format
        ix, iy = fmt.find("x"), fmt.find("y")
        src_rows, src_fields = self._sources(klist, kfields,
                                             [m["keypoints"] for m in self.meta])
        parts = self._parts(src_rows)
        moved = keep = None
        if parts:
            placed = []
            for _, c, s in parts:
                m, _ = move_keypoints(src_rows[s], c.matrix, self.mosaic.target_wh, fmt)
                x1, y1, x2, y2 = c.rect
                x, y = m[:, ix], m[:, iy]
                placed.append((m, (x >= x1 - 0.5) & (x < x2 - 0.5) & (y >= y1 - 0.5)
                               & (y < y2 - 0.5)))
            moved = np.concatenate([m for m, _ in placed])
            keep = np.concatenate([k for _, k in placed])
        return self._placed(klist, kfields, src_rows, src_fields, parts, moved, keep, len(fmt))

    def _sources(self, rows: list, fields: list, meta: list) -> tuple[list, list]:
        """The targets of every source (the call's ``rows`` and ``fields``, then the
        metadata's (rows, fields) pairs)."""
        return list(rows) + [r for r, _ in meta], list(fields) + [f for _, f in meta]

    def _parts(self, src_rows: list) -> list[tuple[int, Cell, int]]:
        """(sample, cell, source) of each cell of each mosaic sample whose image has targets,
        in the order of the samples and their cells."""
        return [(k, c, s) for k, cells in enumerate(self.cells) if cells is not None
                for c in cells for s in (self.source(k, c.source),) if len(src_rows[s])]

    def _placed(self, rows: list, fields: list, src_rows: list, src_fields: list, parts: list,
                moved: Any, keep: Any, width: int) -> tuple[list, list]:
        """Each mosaic sample's targets and label fields from its ``parts`` (:meth:`_parts`),
        whose rows on the canvas are ``moved`` (all parts' in order; None: no parts) and
        ``keep`` those kept; the other samples' as they came."""
        rows, fields = list(rows), list(fields)
        got: dict[int, list] = {k: [] for k, c in enumerate(self.cells) if c is not None}
        labels: dict[int, list] = {k: [] for k in got}
        at = 0
        for k, _, s in parts:
            n = len(src_rows[s])
            kept = keep[at:at + n]
            got[k].append(moved[at:at + n][kept])
            if src_fields[s] is not None:
                labels[k].append(select(src_fields[s], kept))
            at += n
        for k, g in got.items():
            rows[k] = np.concatenate(g) if g else np.zeros((0, width))
            fields[k] = _joined(labels[k], fields[k])
        return rows, fields

    # -- images and masks ---------------------------------------------------------------------
    def warp(self, name: str, x: Any, chains: list, outs: list, opts: _Opts,
             as_mask: bool = False) -> Any:
        """Target ``name`` (the call's ``x``) of every sample through its chain after its cell
        stage, read from one atlas of the sources' images: one launch per output size."""
        items, flat = self._items(name, x)
        back = None
        if as_mask:
            work = [_mask_work(a) for a in items]
            items, back = [w for w, _ in work], work[0][1]
        a0 = items[0]
        for j, a in enumerate(items):
            if a.dtype != a0.dtype or a.shape[2] != a0.shape[2]:
                raise ValueError(f"{name}: the images of a mosaic must share their dtype and "
                                 f"channels; source {j} is {a.dtype} with {a.shape[2]}, source "
                                 f"0 {a0.dtype} with {a0.shape[2]}")
        C, dt = a0.shape[2], a0.dtype
        fill = np.asarray(fills(opts.sampling.fill, C, dt), np.float64)
        atlas = _fill_atlas(items, self.offsets, self.atlas_shape, fill.astype(dt))
        launches = self.launches(chains, outs)
        if len(launches) > 1:
            opts.one_array()
        res: list = [None] * len(outs)
        one = None
        for size, ks, coords in launches:
            colour = None if opts.colour is None else opts.colour[ks]
            kw = {} if colour is None else {"colour": colour}
            got = warp_by(atlas, None, size, opts.sampling, affine=False, coords=coords,
                          src_index=np.zeros(len(ks), np.int32), queue=opts.queue,
                          model=opts.model, into=opts.out, **kw)
            if back is not None:
                got = back(got)
            if flat and (as_mask or opts.model.layout == "HWC"):
                got = got.reshape(got.shape[:3])
            one = got
            for i, k in enumerate(ks):
                res[k] = got[i]
        if self.kind == "single":
            return _like(res[0], x, as_mask, opts)
        if len(launches) == 1:
            return one if self.kind == "batch" or not _pillow(x) else \
                [_like(r, p, as_mask, opts) for r, p in zip(res, x)]
        return [_like(r, p, as_mask, opts) for r, p in
                zip(res, x if self.kind == "list" else [None] * len(res))]

    def launches(self, chains: list, outs: list) -> list[tuple]:
        """(output size, its samples, their coordinates) per launch: each sample's Cells stage
        before its chain, samples of one output size together. The same for the image and every
        mask of a call: made once."""
        if self._launches is None:
            groups: dict = {}
            for k, o in enumerate(outs):
                groups.setdefault(o, []).append(k)
            self._launches = [(size, ks, chain_coords([merge([self.stages[k], *chains[k]])
                                                       for k in ks]))
                              for size, ks in groups.items()]
        return self._launches

    def _items(self, name: str, x: Any) -> tuple[list[np.ndarray], bool]:
        """The sources' arrays of target ``name`` as (H, W, C) numpy arrays, and whether they
        came without a channel axis."""
        items = list(_per_sample(x, self.kind, len(self.cells), name)) if self.kind != "batch" \
            else list(np.asarray(x))
        items += [m[name] for m in self.meta]
        arrays = [np.asarray(a) for a in items]
        flat = arrays[0].ndim == 2
        for j, a in enumerate(arrays):
            if a.ndim != (2 if flat else 3):
                raise ValueError(f"{name}: the images of a mosaic must all have a channel axis "
                                 f"or none; source {j} is {_shape_of(a)}")
        return [a[..., None] if flat else a for a in arrays], flat


def _item_labels(item: dict, names: Any, n: int, none: bool, where: str, what: str) -> dict:
    """A metadata item's label fields ``names``, each one label per target (n of them; an
    item without the targets (``none``) may leave them out)."""
    out = {}
    for f in names:
        lab = item.get(f, [] if none else None)
        if lab is None or len(lab) != n:
            raise ValueError(f"{where} needs {f!r}, one label per {what} ({n})")
        out[f] = lab
    return out


def atlas_layout(sizes: list[tuple[int, int]]) -> tuple[np.ndarray, tuple[int, int]]:
    """(offsets, (height, width)): images of ``sizes`` (width, height) placed in shelves of an
    about square atlas (positions stay small, where float32 is fine-grained), each with
    :data:`~._mosaic.GUARD` pixels around it; offsets (n, 2) the (x, y) of each image's first
    pixel."""
    G = GUARD
    slots = [(w + 2 * G, h + 2 * G) for w, h in sizes]
    width = max(max(w for w, _ in slots), int(np.ceil(np.sqrt(sum(w * h for w, h in slots)))))
    at, x, y, shelf = [], 0, 0, 0
    for w, h in slots:
        if x + w > width:
            x, y, shelf = 0, y + shelf, 0
        at.append((x, y))
        x += w
        shelf = max(shelf, h)
    return np.asarray(at, np.float64) + G, (y + shelf, width)


def _fill_atlas(images: list[np.ndarray], offsets: np.ndarray, shape: tuple[int, int],
                fill: np.ndarray) -> np.ndarray:
    """The atlas of :func:`atlas_layout`: each image at its offset, ``fill`` in its guard (the
    rest is never read). Recycled memory (the pool's size classes: a fresh atlas's page faults
    cost as much as the copy), filled by the packing threads."""
    G = GUARD
    first = images[0]
    C = first.shape[2]
    atlas = recycled_rows(shape[0] * shape[1], C, first.dtype).reshape(*shape, C)
    at = offsets.astype(int).tolist()

    def copy(ks: range) -> None:
        for k in ks:
            a, (x, y) = images[k], at[k]
            h, w = a.shape[:2]
            slot = atlas[y - G:y + h + G, x - G:x + w + G]
            slot[:G] = fill
            slot[G + h:] = fill
            slot[G:G + h, :G] = fill
            slot[G:G + h, G + w:] = fill
            slot[G:G + h, G:G + w] = a

    copy_each(copy, len(images), sum(a.nbytes for a in images))
    return atlas


def _joined(parts: list, given: Any) -> Any:
    """Label fields gathered from several images (dicts of field -> labels) as one dict,
    each field of the kind its first part came as (None where the call had none)."""
    if given is None and not parts:
        return None
    names = list(given) if given is not None else list(parts[0]) if parts else []
    out = {}
    for f in names:
        vals = [p[f] for p in parts if p is not None and f in p]
        out[f] = _concat(vals, None if given is None else given.get(f))
    return out


def _concat(vals: list, like: Any) -> Any:
    """Labels of several images end to end, as an array where they are arrays (a tensor
    where they are tensors), else a list."""
    torch = sys.modules.get("torch")
    if torch is not None and (isinstance(like, torch.Tensor) or
                              any(isinstance(v, torch.Tensor) for v in vals)):
        ts = [v if isinstance(v, torch.Tensor) else torch.as_tensor(np.asarray(v)) for v in vals]
        return torch.cat(ts) if ts else like[:0]
    if isinstance(like, np.ndarray) or any(isinstance(v, np.ndarray) for v in vals):
        arrays = [np.asarray(v) for v in vals]
        if not arrays:
            return np.asarray(like)[:0]
        return np.concatenate(arrays)
    return [lab for v in vals for lab in v]


def _pillow(x: Any) -> bool:
    Image = sys.modules.get("PIL.Image")
    items = x if isinstance(x, (list, tuple)) else [x]
    return Image is not None and any(isinstance(a, Image.Image) for a in items)


def _like(r: np.ndarray, given: Any, as_mask: bool, opts: _Opts) -> Any:
    """A result as its input came: a Pillow image for a Pillow image (the model's tensors
    stay arrays)."""
    Image = sys.modules.get("PIL.Image")
    if Image is None or not isinstance(given, Image.Image) or opts.model.output_dtype:
        return r
    return Image.fromarray(r[..., 0] if r.ndim == 3 and r.shape[2] == 1 else r, given.mode)
