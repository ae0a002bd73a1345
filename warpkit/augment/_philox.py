"""The kernel's generator on the host: Philox-4x32-10 (Salmon et al., "Parallel random numbers:
as easy as 1, 2, 3", the Random123 library), as kernels_cl/colour.h's ``wk_philox8`` computes
it, in numpy's 64-bit integers. The host needs it where a target must know what the kernel drew
for the image: PixelDropout's dropped pixels (which boxes they hide, and the masks' own
pattern, drawn the same way on the host)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["below", "kernel_key", "philox4x32", "unit"]

_M32, _S32 = np.uint64(0xFFFFFFFF), np.uint64(32)
_W0, _W1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # Philox-4x32's multipliers
_B0, _B1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)  # its key's steps


def philox4x32(c0: np.ndarray, c1: np.ndarray, c2: np.ndarray | int,
               key: tuple[Any, Any], c3: np.ndarray | int = 0) -> list[np.ndarray]:
    """The four 32-bit words (uint64 arrays) of Philox-4x32-10's block for counters
    ``(c0, c1, c2, c3)`` under ``key`` = (k0, k1), element by element (``c2``, ``c3`` and the
    key's words broadcast: a key per element where they are arrays; the kernel's ``c3`` is 0).

    Example:
        >>> [hex(int(w[0])) for w in philox4x32(np.array([0]), np.array([0]), 0, (0, 0))]
        ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    a0 = np.asarray(c0).astype(np.uint64) & _M32
    c = [a0, np.asarray(c1).astype(np.uint64) & _M32,
         np.broadcast_to(np.asarray(c2, np.uint64) & _M32, a0.shape).copy(),
         np.broadcast_to(np.asarray(c3, np.uint64) & _M32, a0.shape).copy()]
    k0, k1 = (np.asarray(k, np.uint64) & _M32 for k in key)
    # in place: a third of the time of fresh arrays each step (19 ms for 640 x 640 counters)
    p0, p1, spare = np.empty_like(a0), np.empty_like(a0), np.empty_like(a0)
    for _ in range(10):
        np.multiply(c[0], _W0, out=p0)
        np.multiply(c[2], _W1, out=p1)
        new0 = spare
        np.right_shift(p1, _S32, out=new0)
        new0 ^= c[1]
        new0 ^= k0
        np.bitwise_and(p1, _M32, out=c[1])
        np.right_shift(p0, _S32, out=c[2])
        c[2] ^= c[3]
        c[2] ^= k1
        np.bitwise_and(p0, _M32, out=c[3])
        spare, c[0] = c[0], new0
        k0, k1 = (k0 + _B0) & _M32, (k1 + _B1) & _M32
    return c


def kernel_key(words: Sequence[float]) -> tuple[int, int]:
    """The generator's key from a recorded ``key`` (three whole numbers below 2^24, 2^24 and
    2^16, as the colour operations carry it: colour.h's ``wk_key``)."""
    a, b, c = (int(w) for w in words[:3])
    return a | ((c & 0xFF) << 24), b | ((c >> 8) << 24)


def unit(word: np.ndarray) -> np.ndarray:
    """The kernel's uniform number of ``word`` (``1 - wk_unit8``: its 24 high bits as a number
    in [0, 1), exact in float32), as float64 (MultiplicativeNoise's factors per pixel, the
    uniform noise of kind 1).

    Example:
        >>> unit(np.array([0, 0xFFFFFFFF], np.uint64)).tolist()
        [0.9999999403953552, 0.0]
    """
    return (np.float64(16777215) - (word >> np.uint64(8)).astype(np.float64)) / 16777216.0


def below(word: np.ndarray, p: float) -> np.ndarray:
    """Whether the kernel's uniform number of ``word`` (:func:`unit`) lies below ``p`` taken
    as a float32, as the kernel compares them."""
    return unit(word) < float(np.float32(p))
