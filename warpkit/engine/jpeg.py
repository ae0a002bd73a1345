"""The quantisation tables of OpenCV's JPEG encoder (libjpeg-turbo's ``jpeg_set_quality`` with
baseline limits, 4:2:0), for every quality, as kernels_cl/colour_pass.cl's colour_jpeg_blocks
reads them: per quality, the luminance's then the chrominance's 64 entries (natural order) of
each of quantval, and libjpeg's reciprocal, correction and shift of 8 quantval (its
``compute_reciprocal``: ``(|c| + correction) * reciprocal >> shift`` is its rounded division
of a DCT coefficient, which is 8 times the true one).

Example:
    >>> t = tables()
    >>> t.shape, int(t[49, 0, 0]), int(t[99, 0, 0])   # quality 50 and 100: luminance DC
    ((100, 4, 128), 16, 1)
"""

from __future__ import annotations

import functools

import numpy as np

#: the standard tables (ITU T.81 Annex K), natural order: luminance, then chrominance
BASE = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
    *[99] * 32], np.int64)


def quantval(quality: int) -> np.ndarray:
    """The 128 quantisation values at ``quality`` (1-100): libjpeg's scaling (5000 / q below
    50, else 200 - 2 q, in percent), rounded, limited to [1, 255]."""
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return np.clip((BASE * scale + 50) // 100, 1, 255)


def reciprocal(divisor: int) -> tuple[int, int, int]:
    """libjpeg's ``compute_reciprocal`` for 16-bit coefficients: (reciprocal, correction,
    shift)."""
    b = divisor.bit_length() - 1
    r = 16 + b
    fq, fr = divmod(1 << r, divisor)
    c = divisor // 2
    if fr == 0:  # a power of two
        fq >>= 1
        r -= 1
    elif fr <= divisor // 2:
        c += 1
    else:
        fq += 1
    return fq, c, r


@functools.lru_cache(maxsize=1)
def tables() -> np.ndarray:
    """(100, 4, 128) int32: quality q's tables at [q - 1] (quantval, reciprocal, correction,
    shift). Read-only."""
    out = np.zeros((100, 4, 128), np.int32)
    for q in range(1, 101):
        qv = quantval(q)
        out[q - 1, 0] = qv
        out[q - 1, 1:] = np.array([reciprocal(8 * int(v)) for v in qv]).T
    out.flags.writeable = False
    return out
