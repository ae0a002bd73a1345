"""The dtypes warpkit kernels read and write, and how each maps to OpenCL storage."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True)
class StorageType:
    """How one numpy dtype is stored and converted in the kernels (see kernels_cl/warpkit.h)."""

    kind: str  # WK_F16, WK_BF16, WK_F32, WK_F64, WK_INT, WK_BOOL
    cl: str  # OpenCL storage type
    lo: str = "0"  # saturation limits (OpenCL macros) for integers
    hi: str = "0"
    wide: bool = False  # 32/64-bit integer: accumulate in double where the device has fp64

    def defines(self, prefix: str = "X") -> dict[str, str]:
        d = {f"{prefix}_KIND": self.kind, f"{prefix}_T": self.cl}
        if self.kind == "WK_INT":
            d[f"{prefix}_MIN"] = self.lo
            d[f"{prefix}_MAX"] = self.hi
        return d


VALUE_TYPES: dict[np.dtype, StorageType] = {
    np.dtype(np.float16): StorageType("WK_F16", "ushort"),
    BFLOAT16: StorageType("WK_BF16", "ushort"),
    np.dtype(np.float32): StorageType("WK_F32", "float"),
    np.dtype(np.float64): StorageType("WK_F64", "double"),
    np.dtype(np.int8): StorageType("WK_INT", "char", "CHAR_MIN", "CHAR_MAX"),
    np.dtype(np.uint8): StorageType("WK_INT", "uchar", "0", "UCHAR_MAX"),
    np.dtype(np.int16): StorageType("WK_INT", "short", "SHRT_MIN", "SHRT_MAX"),
    np.dtype(np.uint16): StorageType("WK_INT", "ushort", "0", "USHRT_MAX"),
    np.dtype(np.int32): StorageType("WK_INT", "int", "INT_MIN", "INT_MAX", wide=True),
    np.dtype(np.uint32): StorageType("WK_INT", "uint", "0", "UINT_MAX", wide=True),
    np.dtype(np.int64): StorageType("WK_INT", "long", "LONG_MIN", "LONG_MAX", wide=True),
    np.dtype(np.uint64): StorageType("WK_INT", "ulong", "0", "ULONG_MAX", wide=True),
    np.dtype(np.bool_): StorageType("WK_BOOL", "uchar"),
}

COORD_TYPES: dict[np.dtype, StorageType] = {
    dt: VALUE_TYPES[dt]
    for dt in (np.dtype(np.float16), BFLOAT16, np.dtype(np.float32), np.dtype(np.float64))
}


def dtype_name(dt: np.dtype) -> str:
    return "bfloat16" if dt == BFLOAT16 else str(dt)


def _names(table: dict[np.dtype, StorageType]) -> str:
    return ", ".join(dtype_name(d) for d in table)


def value_type(dt: np.dtype, arg: str) -> StorageType:
    """The storage type of a sampled tensor, or a TypeError naming ``arg``."""
    dt = np.dtype(dt)
    st = VALUE_TYPES.get(dt)
    if st is None:
        kind = {"c": "complex", "U": "string", "S": "bytes", "O": "object", "V": "void"}.get(
            dt.kind, dt.kind
        )
        raise TypeError(
            f"{arg} has dtype {dtype_name(dt)} ({kind}), which warpkit cannot sample; "
            f"expected one of: {_names(VALUE_TYPES)}"
        )
    return st


def coord_type(dt: np.dtype, arg: str) -> StorageType:
    """The storage type of a coordinate tensor (grid, theta, rois), or a TypeError naming ``arg``."""
    dt = np.dtype(dt)
    st = COORD_TYPES.get(dt)
    if st is None:
        raise TypeError(
            f"{arg} must have a floating dtype ({_names(COORD_TYPES)}), got {dtype_name(dt)}"
        )
    return st
