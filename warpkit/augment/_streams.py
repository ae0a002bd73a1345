"""Randomness of the pipelines: every sample draws from its own counter-based stream (Philox)
keyed on ``(seed, epoch, index)``, so a sample's augmentation is the same alone or inside any
batch, with any number of DataLoader workers, under fork, spawn or forkserver. The key is
numpy's ``Philox(SeedSequence([seed, epoch, index]))``, computed in Python ints."""

from __future__ import annotations

import numbers
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["philox_key", "philox_keys", "sample_streams", "stream"]


def stream(seed: int, epoch: int = 0, index: int = 0) -> np.random.Generator:
    """The random stream of one sample: a Philox generator keyed on ``(seed, epoch, index)``,
    the numbers of numpy's ``Philox(SeedSequence([seed, epoch, index]))``.

    Example:
        >>> a = stream(7, epoch=2, index=5).random(3)
        >>> bool((a == stream(7, epoch=2, index=5).random(3)).all())
        True
    """
    bits = np.random.Philox(0)
    _rekey(bits, philox_key(_key_entropy(seed, epoch, index)))
    return np.random.Generator(bits)


def _key_entropy(seed: Any, epoch: Any, index: Any) -> list[int]:
    """``[seed, epoch, index]`` checked: integers >= 0."""
    key = []
    for name, v in (("seed", seed), ("epoch", epoch), ("index", index)):
        # a plain int skips the abstract-class checks; numpy integers pass them, bools do not
        integral = type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool))
        if not integral or v < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
        key.append(int(v))
    return key


# numpy's SeedSequence (O'Neill's seed_seq hashing, pool of 4 uint32 words), for philox_key
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _hash_constants(n: int, init: int, mult: int) -> tuple[int, ...]:
    """The first n + 1 values of SeedSequence's hash constant: init, then times mult each step
    (the same whatever is hashed, so each step's pair is known in advance)."""
    out = [init]
    for _ in range(n):
        out.append((out[-1] * mult) & _M32)
    return tuple(out)


#: the constants of the hashes of up to 12 entropy words, and of generate_state's 4 outputs
_HA = _hash_constants(4 + 12 + 4 * 8, _INIT_A, _MULT_A)
_HB = _hash_constants(4, _INIT_B, _MULT_B)


def philox_key(entropy: list[int]) -> tuple[int, int]:
    """``numpy.random.SeedSequence(entropy).generate_state(2, numpy.uint64)`` (the key
    ``Philox(SeedSequence(entropy))`` takes) for integers >= 0, in Python ints: numpy's object,
    its arrays and its Philox cost several times as much per sample, a visible share of a
    pipeline's host work (tests/test_pipeline.py checks this against numpy)."""
    if len(entropy) == 3 and max(entropy) <= _M32:  # [seed, epoch, index]: one word each
        return _key3(*entropy)
    words = []  # each integer as little-endian uint32 words, 0 as one
    for n in entropy:
        words += _words(n)
    k0, k1 = _hash(words)
    return int(k0), int(k1)


def _mixed(src: int, k: int) -> int:
    """The hash of ``src`` with constants k and k + 1 of _HA, as the pool mixes it."""
    v = ((src ^ _HA[k]) * _HA[k + 1]) & _M32
    return v ^ (v >> 16)


def _mix(dst: int, h: int) -> int:
    """A pool word ``dst`` after mixing in the hashed word ``h``."""
    r = (_MIX_L * dst - _MIX_R * h) & _M32
    return r ^ (r >> 16)


#: (seed, epoch) -> the part of _hash's pool for [seed, epoch, index, 0] that does not depend on
#: index (:func:`_key3`); a call's samples share it
_PREFIXES: dict[tuple[int, int], tuple[int, int, int, int, int]] = {}


def _key3(seed: int, epoch: int, index: int) -> tuple[int, int]:
    """:func:`_hash` of the words [seed, epoch, index, 0] (each below 2**32), its operations
    written out in _hash's order with the part that does not depend on ``index`` kept per
    (seed, epoch): the pool's words 0, 1 and 3 after the first two rounds of mixing, and the
    two words those rounds mix into word 2 (about half of the hash: the samples of a call
    share their seed and epoch)."""
    pre = _PREFIXES.get((seed, epoch))
    if pre is None:
        p0, p1, p3 = _mixed(seed, 0), _mixed(epoch, 1), _mixed(0, 3)  # (_HA[0..4]: the pool)
        p1, g02, p3 = _mix(p1, _mixed(p0, 4)), _mixed(p0, 5), _mix(p3, _mixed(p0, 6))
        p0, g12, p3 = _mix(p0, _mixed(p1, 7)), _mixed(p1, 8), _mix(p3, _mixed(p1, 9))
        if len(_PREFIXES) >= 64:
            _PREFIXES.clear()
        pre = _PREFIXES[seed, epoch] = (p0, p1, p3, g02, g12)
    p0, p1, p3, g02, g12 = pre
    M, L, R, A = _M32, _MIX_L, _MIX_R, _HA  # (locals; _mixed and _mix written out)
    v = ((index ^ A[2]) * A[3]) & M
    r = (L * (v ^ (v >> 16)) - R * g02) & M
    r = (L * (r ^ (r >> 16)) - R * g12) & M
    p2 = r ^ (r >> 16)
    v = ((p2 ^ A[10]) * A[11]) & M  # round 3: word 2 into 0, 1 and 3
    r = (L * p0 - R * (v ^ (v >> 16))) & M
    p0 = r ^ (r >> 16)
    v = ((p2 ^ A[11]) * A[12]) & M
    r = (L * p1 - R * (v ^ (v >> 16))) & M
    p1 = r ^ (r >> 16)
    v = ((p2 ^ A[12]) * A[13]) & M
    r = (L * p3 - R * (v ^ (v >> 16))) & M
    p3 = r ^ (r >> 16)
    v = ((p3 ^ A[13]) * A[14]) & M  # round 4: word 3 into 0, 1 and 2
    r = (L * p0 - R * (v ^ (v >> 16))) & M
    p0 = r ^ (r >> 16)
    v = ((p3 ^ A[14]) * A[15]) & M
    r = (L * p1 - R * (v ^ (v >> 16))) & M
    p1 = r ^ (r >> 16)
    v = ((p3 ^ A[15]) * A[16]) & M
    r = (L * p2 - R * (v ^ (v >> 16))) & M
    p2 = r ^ (r >> 16)
    B = _HB  # generate_state: 4 uint32 words, read as 2 uint64
    p0 = ((p0 ^ B[0]) * B[1]) & M
    p1 = ((p1 ^ B[1]) * B[2]) & M
    p2 = ((p2 ^ B[2]) * B[3]) & M
    p3 = ((p3 ^ B[3]) * B[4]) & M
    return p0 ^ (p0 >> 16) | (p1 ^ (p1 >> 16)) << 32, p2 ^ (p2 >> 16) | (p3 ^ (p3 >> 16)) << 32


def philox_keys(seed: int, epoch: int, indices: Sequence[int]) -> list[tuple[int, int]]:
    """:func:`philox_key` of ``[seed, epoch, i]`` for every ``i`` of ``indices`` (integers
    >= 0), the batch's indices below 2**32 hashed together as numpy arrays (the same
    operations on uint64 lanes, masked to 32 bits as the Python ints are)."""
    small = [k for k, i in enumerate(indices) if i < 1 << 32]
    keys: list = [None] * len(indices)
    if len(small) > 1:
        idx = np.array([indices[k] for k in small], np.uint64)
        k0, k1 = _hash(_words(seed) + _words(epoch) + [idx])
        for k, a, b in zip(small, k0.tolist(), k1.tolist()):
            keys[k] = (a, b)
    for k, i in enumerate(indices):
        if keys[k] is None:
            keys[k] = philox_key([seed, epoch, i])
    return keys


def _words(n: int) -> list[int]:
    """A non-negative integer as SeedSequence reads it: little-endian uint32 words, 0 as one."""
    words = [n & _M32]
    n >>= 32
    while n:
        words.append(n & _M32)
        n >>= 32
    return words


def _hash(words: list) -> tuple:
    """SeedSequence's hash of entropy ``words`` (uint32 values as Python ints, or uint64
    arrays of one length: a word per sample), then generate_state's 4 words read as 2
    uint64 (Python ints, or arrays). Hash k XORs constant k and multiplies by constant k + 1
    (_HA, _HB); every product of two 32-bit values fits 64 bits, and subtraction that wraps in
    uint64 leaves the same low 32 bits as the Python ints' negative result."""
    words = words + [0] * (4 - len(words))
    a = _HA if len(words) <= 12 else _hash_constants(4 + 12 + 4 * (len(words) - 4), _INIT_A,
                                                       _MULT_A)
    pool = []
    for i in range(4):  # the pool, then every word mixed into every other
        v = ((words[i] ^ a[i]) * a[i + 1]) & _M32
        pool.append(v ^ (v >> 16))
    k = 4
    for i in range(len(words)):
        src = pool[i] if i < 4 else words[i]
        for j in range(4):
            if i == j:
                continue
            v = ((src ^ a[k]) * a[k + 1]) & _M32
            k += 1
            r = (_MIX_L * pool[j] - _MIX_R * (v ^ (v >> 16))) & _M32
            pool[j] = r ^ (r >> 16)
    out = []
    for i, v in enumerate(pool):  # generate_state: 4 uint32 words, read as 2 uint64
        v = ((v ^ _HB[i]) * _HB[i + 1]) & _M32
        out.append(v ^ (v >> 16))
    return out[0] | out[1] << 32, out[2] | out[3] << 32


_LOCAL = threading.local()
_ZEROS4 = (0, 0, 0, 0)


def _rekey(bits: np.random.Philox, key: tuple[int, int]) -> None:
    """Set ``bits`` to the start of the stream whose key is ``key`` (:func:`philox_key`'s):
    Philox keyed as ``Philox(SeedSequence(entropy))`` keys it, counter and buffers at zero."""
    # Python ints, which Philox's state setter takes as numpy's own arrays (it reads them by
    # index) without converting arrays first
    bits.state = {"bit_generator": "Philox", "state": {"counter": _ZEROS4, "key": key},
                  "buffer": _ZEROS4, "buffer_pos": 4, "has_uint32": 0, "uinteger": 0}


def sample_streams(seed: int, epoch: int, indices: Sequence[int]):
    """The streams of samples ``indices``, one after another (each is :func:`stream`'s, the
    same numbers): one generator of this thread re-keyed per sample, so each is valid until
    the next is taken (a transform's ``draw`` uses it and lets it go)."""
    gen = getattr(_LOCAL, "gen", None)
    if gen is None:
        gen = _LOCAL.gen = np.random.Generator(np.random.Philox(0))
    for key in checked_keys(seed, epoch, indices):
        _rekey(gen.bit_generator, key)
        yield gen


def checked_keys(seed: int, epoch: int, indices: Sequence[int]) -> list[tuple[int, int]]:
    """The Philox keys of samples ``indices``, every ``(seed, epoch, index)`` checked (and made
    Python ints) before any is hashed."""
    checked = [_key_entropy(seed, epoch, index) for index in indices]
    if len(checked) < 2:  # (one sample a call: its key alone)
        return [philox_key(k) for k in checked]
    return philox_keys(checked[0][0], checked[0][1], [k[2] for k in checked])
