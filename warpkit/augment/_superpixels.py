"""albumentations' ``Superpixels``: the image cut into SLIC superpixels, a drawn share of them
filled with their mean. A host step (:mod:`._host`): the image is segmented where the step
stands, between two passes.

albumentations 2.0.8 segments with SLIC of its own (numpy): cluster centres on a grid of
``int(sqrt(pixels / n_segments))``, ten rounds of assigning each pixel within a step of a centre
to the nearest by colour (the image over its maximum) plus ten times the squared distance in
steps, each centre then moved to the truncated mean of its pixels. warpkit does the same in the
same arithmetic (the distances in float64 from the same expressions, the centres' means by
``bincount``: sums of whole numbers, so exactly ``np.mean``'s), so the segments are the same;
a round takes all the centres at once where albumentations loops over them (:func:`slic`).
Its quirks are kept: the label 0 is never filled when it is the lowest present, and a
segment's place in the drawn list is its index among the labels present, taken modulo the
list's length. Images larger than ``max_size`` are segmented at that size (``cv2.resize`` by
``interpolation``) and the whole image resized back. Float images go through 8-bit levels
(``rint(255 v)``, back as ``level / 255``), as albumentations' ``uint8_io``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import value_range
from ._domain import INTER_LINEAR, _opencv, _resized
from ._colour import eight_bit_io
from ._host import HostStep

#: OpenCV's interpolations albumentations' Superpixels takes (INTER_NEAREST, INTER_LINEAR,
#: INTER_CUBIC, INTER_AREA, INTER_LANCZOS4, INTER_LINEAR_EXACT, INTER_NEAREST_EXACT)
_INTERPOLATIONS = (0, 1, 2, 3, 4, 5, 6)
#: the interpolations warpkit resizes without OpenCV (``_domain._resized``)
_WITHOUT_OPENCV = (INTER_LINEAR, 3)


class Superpixels(HostStep):
    """albumentations' Superpixels: SLIC superpixels (about ``n_segments``, drawn per sample
    from that range), each filled with its mean with a probability drawn from ``p_replace``;
    segmented at ``max_size`` on the longer side where the image is larger. On the host, between
    two passes (see :mod:`warpkit.augment._superpixels`): the same pixels as albumentations.

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import Compose, Superpixels, stream
        >>> t = Superpixels(p_replace=(0.5, 0.5), n_segments=(20, 20), p=1)
        >>> p = t.draw(stream(seed=0), (64, 48))
        >>> p["n_segments"], len(p["replace_samples"])
        (20, 20)
    """

    changes = frozenset({"image"})

    def __init__(self, p_replace: Any = (0, 0.1), n_segments: Any = (100, 100),
                 max_size: int | None = 128, interpolation: int = INTER_LINEAR,
                 p: float = 0.5) -> None:
        super().__init__(p)
        if not isinstance(p_replace, (list, tuple)):  # (albumentations: a number is (0, it))
            p_replace = (0.0, p_replace)
        self.p_replace = value_range(p_replace, "p_replace", False, 0.0, 1.0)[0]
        if not isinstance(n_segments, (list, tuple)):  # (a number is (1, it))
            n_segments = (1, n_segments)
        lo, hi = value_range(n_segments, "n_segments", False, 1, np.inf)[0]
        if lo != int(lo) or hi != int(hi):
            raise ValueError(f"n_segments must be whole numbers, got {n_segments!r}")
        self.n_segments = (int(lo), int(hi))
        if max_size is not None and (isinstance(max_size, bool) or
                                     not isinstance(max_size, (int, np.integer)) or max_size < 1):
            raise ValueError(f"max_size must be a whole number >= 1 or None, got {max_size!r}")
        self.max_size = None if max_size is None else int(max_size)
        if isinstance(interpolation, bool) or interpolation not in _INTERPOLATIONS:
            raise ValueError(f"interpolation must be one of OpenCV's codes "
                             f"{', '.join(map(str, _INTERPOLATIONS))}, got {interpolation!r}")
        self.interpolation = int(interpolation)

    def draw(self, rng, size):
        n = int(rng.integers(self.n_segments[0], self.n_segments[1] + 1))
        share = float(rng.uniform(*self.p_replace))
        return {"n_segments": n, "replace_samples": (rng.random(n) < share).astype(int).tolist()}

    def config(self) -> dict:
        return {"p_replace": list(self.p_replace), "n_segments": list(self.n_segments),
                "max_size": self.max_size, "interpolation": self.interpolation}

    def run(self, target, value, params, shape):
        replace = np.asarray(params["replace_samples"], bool)
        n = int(params["n_segments"])
        if n < 1 or len(replace) < 1:
            raise ValueError(f"Superpixels' parameters must have n_segments >= 1 and a list of "
                             f"replace_samples, got {n} and {len(replace)}")
        return eight_bit_io(value, "Superpixels", lambda img: superpixels(
            img, n, replace, self.max_size, self.interpolation))


def superpixels(image: np.ndarray, n_segments: int, replace: np.ndarray, max_size: int | None,
                interpolation: int) -> np.ndarray:
    """albumentations 2.0.8's ``superpixels`` of an 8-bit (H, W) or (H, W, C) image."""
    if not replace.any():
        return image
    img = image if image.ndim == 3 else image[..., None]
    h, w = img.shape[:2]
    if max_size is not None and max(h, w) > max_size:
        scale = max_size / max(h, w)
        img = _resize(img, int(w * scale), int(h * scale), interpolation)
    labels = slic(img, n_segments)
    out = img.copy()
    present = np.unique(labels)
    if present[0] == 0:  # (albumentations' skip of "the background": a segment like any other)
        present = present[1:]
    chosen = present[replace[np.arange(len(present)) % len(replace)]]
    if len(chosen):
        flat = labels.ravel()
        index = np.searchsorted(present, flat)  # (each pixel's place among the labels present)
        hit = np.isin(flat, chosen)
        count = np.bincount(index[hit], minlength=len(present)).astype(np.float64)
        for c in range(out.shape[2]):
            chan = out[..., c].ravel()
            sums = np.bincount(index[hit], weights=chan[hit], minlength=len(present))
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / count  # (exactly np.mean's: whole-number sums)
            fill = np.clip(np.round(means), 0, 255)
            chan[hit] = fill[index[hit]].astype(np.uint8)
            out[..., c] = chan.reshape(out.shape[:2])
    if out.shape[:2] != (h, w):
        out = _resize(out, w, h, interpolation)
    return out.reshape(image.shape)


def _resize(img: np.ndarray, w: int, h: int, interpolation: int) -> np.ndarray:
    if _opencv() is None and interpolation not in _WITHOUT_OPENCV:
        raise ValueError(f"Superpixels(interpolation={interpolation}) resizes with OpenCV, "
                         f"which is not installed: install opencv-python-headless, or take "
                         f"INTER_LINEAR (1) or INTER_AREA (3)")
    return _resized(img, w, h, interpolation)


def slic(image: np.ndarray, n_segments: int, compactness: float = 10.0,
         rounds: int = 10) -> np.ndarray:
    """albumentations 2.0.8's SLIC labels (int32, -1 where no centre reached) of an (H, W, C)
    image, in its arithmetic (see the module's notes).

    albumentations takes the centres one by one, each lowering the distance of the pixels in
    its window where it is strictly nearer; so after a round a pixel holds the least distance
    any centre gave it if that is below its old one, from the first centre that gave it. Here
    the centres' windows are arrays (as many centres at a time as :data:`_CANDIDATES` pairs
    allow), the least distance per pixel a scatter-min, and the first centre at it another:
    the same numbers, each distance from the same expression."""
    h, w = image.shape[:2]
    scaled = image.astype(np.float32) / np.max(image + 1e-6)
    planes = [np.ascontiguousarray(scaled[..., c]).ravel() for c in range(scaled.shape[2])]
    step = max(1, int((h * w / n_segments) ** 0.5))  # (albumentations fails at 0)
    centres = np.array([(x, y) for y in range(step // 2, h, step)
                        for x in range(step // 2, w, step)], dtype=np.int64).reshape(-1, 2)
    n = len(centres)
    labels = np.full(h * w, -1, np.int64)
    best = np.full(h * w, np.inf)
    offs = np.arange(-step, step + 1)
    span = np.arange(h * w)
    chunk = max(1, _CANDIDATES // len(offs) ** 2)  # (centres whose windows go at once)
    for _ in range(rounds):
        low = np.full(h * w, np.inf)
        first = np.full(h * w, n, np.int64)
        for c0 in range(0, n, chunk):
            cx, cy = centres[c0:c0 + chunk, 0], centres[c0:c0 + chunk, 1]
            ci, oy, ox = np.nonzero((cy[:, None, None] + offs[None, :, None] >= 0)
                                    & (cy[:, None, None] + offs[None, :, None] < h)
                                    & (cx[:, None, None] + offs[None, None, :] >= 0)
                                    & (cx[:, None, None] + offs[None, None, :] < w))
            dy, dx = offs[oy], offs[ox]
            pix = (cy[ci] + dy) * w + (cx[ci] + dx)
            at = (cy * w + cx)[ci]
            colour = None  # (albumentations' sum over the channels, in order)
            for plane in planes:
                d = plane[pix] - plane[at]
                colour = d * d if colour is None else colour + d * d
            distance = colour + compactness * ((dy * dy + dx * dx) / (step ** 2))
            if c0 == 0:  # (the first centres: straight into the round's arrays)
                mine, lead = low, first
            else:
                mine, lead = np.full(h * w, np.inf), np.full(h * w, n, np.int64)
            np.minimum.at(mine, pix, distance)
            hit = distance == mine[pix]
            np.minimum.at(lead, pix[hit], ci[hit] + c0)
            if c0:  # (a tie keeps the earlier centres' first)
                lower = mine < low
                low[lower] = mine[lower]
                first[lower] = lead[lower]
        nearer = low < best
        best[nearer] = low[nearer]
        labels[nearer] = first[nearer]
        # each centre to the truncated mean of its pixels (those with none stay)
        on = labels >= 0
        own = labels[on]
        count = np.bincount(own, minlength=n)
        sy = np.bincount(own, weights=(span // w)[on], minlength=n)
        sx = np.bincount(own, weights=(span % w)[on], minlength=n)
        some = count > 0
        centres[some, 0] = np.trunc(sx[some] / count[some]).astype(np.int64)
        centres[some, 1] = np.trunc(sy[some] / count[some]).astype(np.int64)
    return labels.reshape(h, w).astype(np.int32)


#: the most (centre, pixel) pairs one array holds in a round of :func:`slic`
_CANDIDATES = 1 << 20
