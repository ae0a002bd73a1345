"""OpenCV's 8-bit sRGB <-> CIE L*a*b* conversions (``cv2.COLOR_RGB2LAB`` and ``COLOR_LAB2RGB``
on uint8 images), which albumentations' CLAHE goes through: integer arithmetic on lookup
tables, bit-exact in OpenCV. The tables are made here as OpenCV makes them (its float32 steps
in float32, its double steps in double, its rounding half to even), so the conversions below,
and the kernels that read the same tables (kernels_cl/colour_pass.cl, :func:`tables`), give
OpenCV's levels: tests/test_clahe.py checks all 2^24 inputs of each direction against
OpenCV.

L is scaled to 0-255 (``L * 255 / 100``), a and b offset by 128, as OpenCV's 8-bit Lab is.

Example:
    >>> import numpy as np
    >>> lab = rgb_to_lab(np.array([[255, 0, 0], [0, 0, 0]], np.uint8))
    >>> lab.tolist()
    [[136, 208, 195], [0, 128, 128]]
    >>> lab_to_rgb(lab).tolist()        # 8-bit Lab loses a little
    [[255, 2, 1], [0, 0, 0]]
"""

from __future__ import annotations

import functools
import math
import struct

import numpy as np

from .raster import c_div

_F32 = np.float32
#: OpenCV's D65 white point and sRGB <-> XYZ matrices (rows: X, Y, Z; R, G, B)
_D65 = np.array([0.950456, 1.0, 1.088754])
_RGB2XYZ = np.array([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
                     [0.019334, 0.119193, 0.950227]])
_XYZ2RGB = np.array([[3.240479, -1.53715, -0.498535], [-0.969256, 1.875991, 0.041556],
                     [0.055648, -0.204043, 1.057311]])
#: the fixed-point shifts: XYZ (12 bits), the gamma table's extra bits (3), the cube-root
#: table's (15), the inverse's base (14) and its gamma table's size (2^12 entries)
_LAB_SHIFT, _GAMMA_SHIFT, _LAB_SHIFT2, _BASE_SHIFT, _INV_GAMMA_SHIFT = 12, 3, 15, 14, 12
_BASE = 1 << _BASE_SHIFT
_CBRT_SIZE = 256 * 3 // 2 * (1 << _GAMMA_SHIFT)
_INV_SIZE = 1 << _INV_GAMMA_SHIFT
#: the smallest argument of the a, b -> x, z table
_MIN_AB = -8145
_AB_SIZE = _BASE * 9 // 4
_L_SCALE = (116 * 255 + 50) // 100
_L_SHIFT = -((16 * 255 * (1 << _LAB_SHIFT2) + 50) // 100)

#: where each table starts in :func:`tables` (int32 words): the gamma table, the cube roots,
#: L's (y, f(y)) pairs, the a, b -> x, z table, the inverse gamma table, the forward then the
#: inverse matrix's 9 fixed-point coefficients each
OFFSETS = {"gamma": 0, "cbrt": 256, "yf": 256 + _CBRT_SIZE, "abxz": 256 + _CBRT_SIZE + 512,
           "inv_gamma": 256 + _CBRT_SIZE + 512 + _AB_SIZE}
OFFSETS["coeffs"] = OFFSETS["inv_gamma"] + _INV_SIZE
OFFSETS["inv_coeffs"] = OFFSETS["coeffs"] + 9
TABLE_WORDS = OFFSETS["inv_coeffs"] + 9
#: the layout as colour_pass.cl's build options (LT_GAMMA, ..., the a, b table's first
#: argument and the inverse gamma table's size)
DEFINES = {**{f"LT_{k.upper()}": v for k, v in OFFSETS.items()},
           "LT_MIN_AB": _MIN_AB, "LT_INV_SIZE": _INV_SIZE}


def _round(x) -> np.ndarray:
    """cvRound: to the nearest integer, halves to even."""
    return np.rint(np.asarray(x, np.float64)).astype(np.int64)


# The powers below are Python's (the C library's, one value at a time), not numpy's, whose
# vector loops differ by CPU (AVX-512 builds call other routines); OpenCV computes them with its
# own double exp and log, whose last bits the rounding to float32 leaves out. The cube roots are
# OpenCV's own algorithm, bit for bit (_cbrt1): its result is not the correctly rounded root.


def _gamma(x: np.ndarray) -> np.ndarray:
    """sRGB's decoding of float32 values, in double, to float32 (OpenCV's applyGamma)."""
    return np.array([v / (323 / 25) if v <= 809 / 20000 else
                     math.pow((v + 11 / 200) / (1 + 11 / 200), 12 / 5)
                     for v in x.astype(np.float64).tolist()]).astype(_F32)


def _inv_gamma(x: np.ndarray) -> np.ndarray:
    """sRGB's encoding (OpenCV's applyInvGamma)."""
    return np.array([v * (323 / 25) if v <= 7827 / 2500000 else
                     math.pow(v, 5 / 12) * (1 + 11 / 200) - 11 / 200
                     for v in x.astype(np.float64).tolist()]).astype(_F32)


def _bits_f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


#: Turkowski's quartic rational approximation of the cube root on [0.125, 1), OpenCV's
#: constants (softfloat's f32_cbrt), made from their doubles' bits
_CBRT_NUM = [_bits_f64(c) for c in (0x4046a09e6653ba70, 0x406808f46c6116e0, 0x405dca97439cae14,
                                    0x402add70d2827500, 0x3fc4f15f83f55d2d)]
_CBRT_DEN = [_bits_f64(c) for c in (0x402d9e20660edb21, 0x4062ff15c0285815, 0x406510d06a8112ce,
                                    0x4040fecbc9e2c375, 0x3ff0000000000000)]


def _cbrt1(x: float) -> float:
    """OpenCV's softfloat cube root of a float32 ``x`` > 0, bit for bit: the mantissa's cube
    root by Turkowski's approximation in double, its fraction truncated (not rounded) to 23
    bits. (Not the correctly rounded root, from which it differs in the last bit of about half
    of the table's values; one entry of the cube-root table then moves, and 17888 of the 2^24
    colours' Lab with it.)"""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    if u & 0x7FFFFFFF == 0:
        return 0.0
    e = ((u >> 23) & 0xFF) - 127
    shx = int(math.fmod(e, 3))  # C's remainder: the sign of e
    shx -= 3 if shx >= 0 else 0
    ex = int((e - shx) / 3) - 1
    fr = _bits_f64(((shx + 1023) << 52) | ((u & 0x7FFFFF) << 29))
    a, b = _CBRT_NUM, _CBRT_DEN
    fr = ((((a[0] * fr + a[1]) * fr + a[2]) * fr + a[3]) * fr + a[4]) / \
        ((((b[0] * fr + b[1]) * fr + b[2]) * fr + b[3]) * fr + b[4])
    frac = (struct.unpack("<Q", struct.pack("<d", fr))[0] & ((1 << 52) - 1)) >> 29
    out = ((u >> 31) << 31) | ((ex + 127) << 23) | frac
    return struct.unpack("<f", struct.pack("<I", out))[0]


def _cbrt(x: np.ndarray) -> np.ndarray:
    """:func:`_cbrt1` of float32 values."""
    return np.array([_cbrt1(v) for v in x.astype(np.float32).tolist()], _F32)


@functools.lru_cache(maxsize=1)
def _tables() -> dict[str, np.ndarray]:
    f255 = _F32(255)
    i = np.arange(256)
    gamma = _round(_F32(255 * (1 << _GAMMA_SHIFT)) * _gamma(i.astype(_F32) / f255))
    x = _F32(1) / _F32(_INV_SIZE) * np.arange(_INV_SIZE).astype(_F32)
    inv_gamma = _round(f255 * _inv_gamma(x))
    # f(t) of the cube-root table: t^(1/3), or its linear part below (6/29)^3 (OpenCV's
    # mulAdd: one rounding, as float64 then float32 gives for these float32 operands)
    t = _F32(1) / (f255 * _F32(1 << _GAMMA_SHIFT)) * np.arange(_CBRT_SIZE).astype(_F32)
    thresh, scale, bias = _F32(216) / _F32(24389), _F32(841) / _F32(108), _F32(16) / _F32(116)
    lin = (t.astype(np.float64) * np.float64(scale) + np.float64(bias)).astype(_F32)
    cbrt = _round(_F32(1 << _LAB_SHIFT2) * np.where(t < thresh, lin, _cbrt(t)))
    yf = np.zeros((256, 2), np.int64)
    for k in range(256):
        if k <= 20:
            y = _round(_F32(k * _BASE * 20 * 9) / _F32(17 * 29 * 29 * 29))
            ify = _round(_F32(_BASE) * (_F32(16) / _F32(116) + _F32(k * 5) / _F32(3 * 17 * 29)))
        else:
            fy = _F32(k * 100 * _BASE) / _F32(255 * 116) + _F32(16 * _BASE) / _F32(116)
            ify = _round(fy)
            y = _round(fy * fy * fy / _F32(_BASE * _BASE))
        yf[k] = y, ify
    v = np.arange(_MIN_AB, _AB_SIZE + _MIN_AB)
    abxz = np.where(v <= 3390, c_div(v * 108, 841) - (_BASE * 16 // 116 * 108 // 841),
                    c_div(c_div(v * v, _BASE) * v, _BASE))
    # RGB order (OpenCV's blueIdx 2): row i of XYZ over the white point's i
    coeffs = _round((1 << _LAB_SHIFT) * _RGB2XYZ / _D65[:, None]).reshape(9)
    inv = _round((1 << _LAB_SHIFT) * _XYZ2RGB * _D65[None, :]).reshape(9)
    return {"gamma": gamma, "cbrt": cbrt, "yf": yf.reshape(-1), "abxz": abxz,
            "inv_gamma": inv_gamma, "coeffs": coeffs, "inv_coeffs": inv}


def tables() -> np.ndarray:
    """Every table and coefficient the kernels read, one int32 array (:data:`OFFSETS`)."""
    t = _tables()
    out = np.concatenate([t[k] for k in OFFSETS]).astype(np.int32)
    assert len(out) == TABLE_WORDS
    return out


#: the largest Y of the 8-bit conversion (the linear value of 255, times the Y coefficients'
#: sum, 4096, over 4096): colour.h's WK_LAB_YMAX
LAB_YMAX = 255 * (1 << _GAMMA_SHIFT)
#: the floats of :func:`gray_table`
GRAY_TABLE_SIZE = 3 + 256 + LAB_YMAX + 1


@functools.lru_cache(maxsize=1)
def gray_table() -> np.ndarray:
    """What colour.h's WK_COL_GRAY reads for L of OpenCV's 8-bit Lab (albumentations'
    ``ToGray(method="from_lab")``), float32 values of :data:`GRAY_TABLE_SIZE`: Y's three
    12-bit coefficients (R, G, B), the 256 levels' linear values (the gamma table), then L
    (0 .. 255) of each Y 0 .. :data:`LAB_YMAX`, as :func:`rgb_to_lab` computes them."""
    t = _tables()
    y = np.arange(LAB_YMAX + 1)
    light = np.clip(_descale(_L_SCALE * t["cbrt"][y] + _L_SHIFT, _LAB_SHIFT2), 0, 255)
    out = np.concatenate([t["coeffs"][3:6], t["gamma"], light]).astype(np.float32)
    assert len(out) == GRAY_TABLE_SIZE and t["gamma"].max() == LAB_YMAX
    assert t["coeffs"][3:6].sum() == 1 << _LAB_SHIFT
    out.flags.writeable = False
    return out


def _descale(v: np.ndarray, n: int) -> np.ndarray:
    return (v + (1 << (n - 1))) >> n


def rgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """uint8 RGB (..., 3) to OpenCV's uint8 Lab (``cv2.cvtColor(img, cv2.COLOR_RGB2LAB)``)."""
    t = _tables()
    c = t["coeffs"]
    r, g, b = (t["gamma"][rgb[..., k].astype(np.int64)] for k in range(3))
    fx, fy, fz = (t["cbrt"][_descale(r * c[3 * k] + g * c[3 * k + 1] + b * c[3 * k + 2],
                                     _LAB_SHIFT)] for k in range(3))
    lab = (_descale(_L_SCALE * fy + _L_SHIFT, _LAB_SHIFT2),
           _descale(500 * (fx - fy) + 128 * (1 << _LAB_SHIFT2), _LAB_SHIFT2),
           _descale(200 * (fy - fz) + 128 * (1 << _LAB_SHIFT2), _LAB_SHIFT2))
    return np.stack([np.clip(v, 0, 255) for v in lab], -1).astype(np.uint8)


def lab_to_rgb(lab: np.ndarray) -> np.ndarray:
    """OpenCV's uint8 Lab (..., 3) to uint8 RGB (``cv2.COLOR_LAB2RGB``)."""
    t = _tables()
    l_, a, b = (lab[..., k].astype(np.int64) for k in range(3))
    y, ify = t["yf"][2 * l_], t["yf"][2 * l_ + 1]
    adiv = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * _BASE // 500
    bdiv = ((b * 41943 + (1 << 4)) >> 9) - 128 * _BASE // 200 + 1
    x, z = t["abxz"][ify + adiv - _MIN_AB], t["abxz"][ify - bdiv - _MIN_AB]
    c = t["inv_coeffs"]
    shift = _LAB_SHIFT + _BASE_SHIFT - _INV_GAMMA_SHIFT
    out = [t["inv_gamma"][np.clip(_descale(c[3 * k] * x + c[3 * k + 1] * y + c[3 * k + 2] * z,
                                           shift), 0, _INV_SIZE - 1)] for k in range(3)]
    return np.stack(out, -1).astype(np.uint8)
