"""A batch's random streams drawn side by side: numpy's Philox4x64-10 and the Generator calls
the transforms make (``random``, ``uniform``, ``integers`` below 2**32) computed for every
sample at once, in numpy uint64 lanes, with the very numbers each sample's own
``numpy.random.Generator`` (:func:`warpkit.augment.stream`) gives, call for call.

Why: a pipeline's parameters were drawn sample by sample, a Python loop over generator calls
that costs tens of microseconds a sample while the device waits. Philox is counter-based: the
k-th block of four words of a stream is ``philox(counter=k, key)``, so every sample's first
blocks are one vectorised computation, and each draw is a gather at the sample's own position.

What numpy does, and so what this does (numpy/random/src/philox and distributions.c):

- a stream's words come in blocks of four: the counter is incremented, then
  ``philox4x64_10(counter, key)`` gives the block; a fresh stream starts at counter 0 with an
  empty buffer, so its first block is counter 1;
- ``random()`` is ``(word >> 11) * 2**-53``; ``uniform(a, b)`` is ``a + (b - a) * random()``;
- ``integers(lo, hi)`` with ``hi - lo - 1 = r < 2**32 - 1``: none drawn when ``r == 0``, else
  Lemire's method on 32-bit words (``m = u32 * (r + 1)``, redrawn while ``m``'s low half is
  below ``(2**32 - 1 - r) % (r + 1)``), result ``lo + (m >> 32)``; a 32-bit word is the low
  half of a fresh word, whose high half is kept for the next 32-bit request (a 64-bit draw
  in between leaves it kept).

tests/test_lanes.py holds every call equal to numpy's own generator, stream by stream.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._base import Transform, draw_step, draw_step_lanes, lanes_ok
from ._streams import checked_keys, sample_streams

__all__ = ["Lanes", "SubLanes", "draw_samples"]

#: batches from this many samples draw side by side (below, a lane pass costs more than the
#: per-sample generator calls it saves)
LANES_FROM = 32

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
#: the multipliers of counter words 0 and 2 (whole, and as 32-bit halves), and the key's bumps
_MUL = np.array([0xD2E7470EE14C6C93, 0xCA5A826395121157], np.uint64)[:, None, None]
_MUL_LO, _MUL_HI = _MUL & _M32, _MUL >> _S32
_BUMP = np.array([0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B], np.uint64)[:, None, None]
_ROUNDS = 10
#: blocks of four words made per lane at a time (a pipeline of a few transforms draws fewer)
_BLOCKS = 6


def philox_blocks(key0: np.ndarray, key1: np.ndarray, first: int, count: int) -> np.ndarray:
    """(lanes, 4 * count) uint64: the blocks of counters ``first .. first + count - 1`` of each
    lane's stream (counter words 1-3 zero), the four words of a block in order.

    A round multiplies counter words 0 and 2 by two constants, keeping the low and high 64
    bits of each product: both products are made at once (one array), the high half through
    32-bit halves (every partial product and sum fits 64 bits)."""
    n = len(key0)
    c0 = np.broadcast_to(np.arange(first, first + count, dtype=np.uint64), (n, count))
    zero = np.zeros((n, count), np.uint64)
    even = np.stack([c0, zero])  # counter words 0 and 2, the multiplied ones
    odd = np.stack([zero, zero])  # words 1 and 3
    key = np.stack([key0, key1])[:, :, None]
    with np.errstate(over="ignore"):
        for r in range(_ROUNDS):
            if r:
                key = key + _BUMP
            b_lo, b_hi = even & _M32, even >> _S32
            t = _MUL_LO * b_lo
            m1 = _MUL_HI * b_lo + (t >> _S32)
            m2 = _MUL_LO * b_hi + (m1 & _M32)
            hi = _MUL_HI * b_hi + (m1 >> _S32) + (m2 >> _S32)
            lo = _MUL * even
            # (w0, w1, w2, w3) <- (hi(w2) ^ w1 ^ k0, lo(w2), hi(w0) ^ w3 ^ k1, lo(w0))
            even = hi[::-1] ^ odd ^ key
            odd = lo[::-1]
    return np.stack([even[0], odd[0], even[1], odd[1]], -1).reshape(n, 4 * count)


class Lanes:
    """The streams of a batch's samples (keys as :func:`philox_keys` gives them), drawn
    together: each call draws for every lane, or for the lanes of a boolean ``where``, and
    returns one value per lane (0 where a lane drew nothing).

    Example:
        >>> from warpkit.augment._streams import philox_keys, stream
        >>> lanes = Lanes(philox_keys(0, 0, [3, 4]))
        >>> bool(lanes.random()[1] == stream(0, 0, 4).random())
        True
    """

    def __init__(self, keys: Sequence[tuple[int, int]]) -> None:
        k = np.array(keys, np.uint64).reshape(-1, 2)
        self.n = len(k)
        self._key0, self._key1 = k[:, 0].copy(), k[:, 1].copy()
        self._words = philox_blocks(self._key0, self._key1, 1, _BLOCKS)
        self._pos = np.zeros(self.n, np.intp)  # the next word of each lane
        self._has32 = np.zeros(self.n, bool)  # a kept high half, and its value
        self._half = np.zeros(self.n, np.uint64)
        self._rows = np.arange(self.n)

    def _take(self, where: np.ndarray, k: int = 1) -> np.ndarray:
        """(lanes of ``where``, k) words: the next k of each of those lanes."""
        rows = self._rows if where is None else self._rows[where]
        need = int(self._pos[rows].max(initial=0)) + k
        have = self._words.shape[1]
        if need > have:  # more blocks for every lane (rare: long rejection loops)
            more = -(-(need - have) // 4) + _BLOCKS
            self._words = np.concatenate(
                [self._words, philox_blocks(self._key0, self._key1, have // 4 + 1, more)], 1)
        cols = self._pos[rows][:, None] + np.arange(k)
        self._pos[rows] += k
        return self._words[rows[:, None], cols]

    def random(self, where: np.ndarray | None = None, k: int = 1) -> np.ndarray:
        """``Generator.random()`` per lane ((lanes,) float64), or ``random(k)`` with ``k``
        ((lanes, k)); lanes outside ``where`` get 0 and draw nothing."""
        u = (self._take(where, k) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        if where is not None:
            out = np.zeros((self.n, k))
            out[where] = u
            u = out
        return u[:, 0] if k == 1 else u

    def ahead(self, k: int) -> np.ndarray:
        """(lanes, k) float64: the next k ``random()`` of every lane, without drawing them
        (:meth:`skip` draws them): for loops whose draws per lane are known only after."""
        pos = self._pos.copy()
        u = self.random(k=k)
        self._pos = pos
        return u

    def skip(self, counts: np.ndarray) -> None:
        """Draw ``counts[i]`` 64-bit words of lane i and drop them."""
        self._pos += counts

    def uniform(self, low: float, high: float, where: np.ndarray | None = None) -> np.ndarray:
        """``Generator.uniform(low, high)`` per lane."""
        return low + (high - low) * self.random(where)

    def _u32(self, where: np.ndarray) -> np.ndarray:
        """``next_uint32`` for the lanes of ``where`` (a kept high half first)."""
        rows = self._rows[where]
        out = np.empty(len(rows), np.uint64)
        kept = self._has32[rows]
        out[kept] = self._half[rows[kept]]
        fresh = rows[~kept]
        if len(fresh):
            mask = np.zeros(self.n, bool)
            mask[fresh] = True
            w = self._take(mask)[:, 0]
            out[~kept] = w & _M32
            self._half[fresh] = w >> _S32
        self._has32[rows] = ~kept
        return out

    def integers(self, low: np.ndarray | int, high: np.ndarray | int,
                 where: np.ndarray | None = None) -> np.ndarray:
        """``Generator.integers(low, high)`` (int64, ``high`` excluded) per lane; bounds per
        lane or shared, each range below 2**32 - 1 values (the 32-bit path)."""
        where = np.ones(self.n, bool) if where is None else where
        low = np.broadcast_to(np.asarray(low, np.int64), (self.n,))
        span = np.broadcast_to(np.asarray(high, np.int64), (self.n,)) - low - 1
        if (span[where] < 0).any() or (span[where] >= 0xFFFFFFFF).any():
            raise ValueError("integers: each lane needs low < high and fewer than 2**32 - 1 "
                             "values")
        out = low.copy()
        draw = where & (span > 0)
        if not draw.any():
            return out
        excl = span.astype(np.uint64) + np.uint64(1)
        m = np.zeros(self.n, np.uint64)
        m[draw] = self._u32(draw) * excl[draw]
        threshold = (_M32 - span.astype(np.uint64)) % excl
        # numpy tests m's low half against excl first, then the threshold; the threshold is
        # below excl, so one test decides
        again = draw & ((m & _M32) < threshold)
        while again.any():
            m[again] = self._u32(again) * excl[again]
            again &= (m & _M32) < threshold
        out[draw] += (m[draw] >> _S32).astype(np.int64)
        return out


class SubLanes:
    """Some lanes of a :class:`Lanes` (or of another view), ``rows`` of them, drawn as a
    :class:`Lanes` of their own: what a OneOf's choice hands each of its transforms (the lanes
    that chose it). Every call draws from those lanes' own streams, the others untouched.

    Example:
        >>> from warpkit.augment._streams import philox_keys, stream
        >>> sub = SubLanes(Lanes(philox_keys(0, 0, [3, 4, 5])), np.array([2]))
        >>> bool(sub.random()[0] == stream(0, 0, 5).random())
        True
    """

    def __init__(self, parent: Lanes | SubLanes, rows: np.ndarray) -> None:
        self.parent, self.rows, self.n = parent, np.asarray(rows, np.intp), len(rows)

    def _mask(self, where: np.ndarray | None) -> np.ndarray:
        """The parent's lanes of ``where`` (these lanes' mask; None: all of them)."""
        m = np.zeros(self.parent.n, bool)
        m[self.rows if where is None else self.rows[where]] = True
        return m

    def _spread(self, values: np.ndarray | int, fill: np.ndarray | int = 0) -> np.ndarray:
        """Per-lane values (or one for all) as the parent's lanes take them, ``fill`` elsewhere."""
        out = np.array(np.broadcast_to(np.asarray(fill, np.int64), (self.parent.n,)))
        out[self.rows] = np.broadcast_to(np.asarray(values, np.int64), (self.n,))
        return out

    def random(self, where: np.ndarray | None = None, k: int = 1) -> np.ndarray:
        return self.parent.random(self._mask(where), k)[self.rows]

    def ahead(self, k: int) -> np.ndarray:
        return self.parent.ahead(k)[self.rows]

    def skip(self, counts: np.ndarray) -> None:
        self.parent.skip(self._spread(counts))

    def uniform(self, low: float, high: float, where: np.ndarray | None = None) -> np.ndarray:
        return low + (high - low) * self.random(where)  # (Lanes.uniform's operations)

    def integers(self, low: np.ndarray | int, high: np.ndarray | int,
                 where: np.ndarray | None = None) -> np.ndarray:
        lo = self._spread(low)
        return self.parent.integers(lo, self._spread(high, lo + 1), self._mask(where))[self.rows]


def draw_samples(t: Transform, seed: int, epoch: int, indices: Sequence[int],
                 sizes: list[tuple[int, int]], lanes: bool | None = None,
                 seen: list | None = None) -> list[dict]:
    """Every sample's recorded parameters (:func:`~warpkit.augment._base.draw_step` on its
    ``(seed, epoch, index)`` stream), drawn side by side where ``t`` can (:func:`lanes_ok`) and
    the batch is large enough (``lanes`` forces the choice): the same dicts either way.
    ``seen``: each sample's targets (:class:`~warpkit.augment._targets.Seen`), for a pipeline
    whose draws read them (drawn sample by sample)."""
    if lanes is None:
        lanes = len(indices) >= LANES_FROM and lanes_ok(t)
    if lanes:
        return draw_step_lanes(t, Lanes(checked_keys(seed, epoch, indices)), list(sizes))
    return [draw_step(t, rng, s, None if seen is None else seen[k]) for k, (rng, s) in
            enumerate(zip(sample_streams(seed, epoch, indices), sizes))]
