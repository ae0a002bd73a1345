"""Arrays that touch an unreadable page: a kernel that reads or writes one byte outside its
argument faults (SIGSEGV) instead of reading a neighbour's data unnoticed.

Oclgrind checks every access of the kernels it runs, but it compiles other variants than a CPU
device does (no CPU fast paths, other vector widths), so a read past the end that only a CPU
path makes goes unseen there. PoCL runs kernels on host memory in place (``CL_MEM_USE_HOST_PTR``),
so an input whose last byte is the last byte of a readable page, followed by a ``PROT_NONE``
page, catches such a read on the real device.
"""

from __future__ import annotations

import ctypes
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
# Mappings are never unmapped (arrays and OpenCL buffers may still view them) but recycled:
# release() hands every mapping given out since the last call back for reuse, which keeps a long
# run under the kernel's limit on mappings (vm.max_map_count).
_FREE: dict[int, list] = {}
_IN_USE: list = []


def release() -> None:
    """Make every mapping handed out so far reusable (call once their arrays are dropped)."""
    for data, entry in _IN_USE:
        _FREE.setdefault(data, []).append(entry)
    _IN_USE.clear()


def _mapping(nbytes: int):
    """(mapping, data bytes): one guard page before the data pages and one after them."""
    data = -(-max(nbytes, 1) // PAGE) * PAGE
    free = _FREE.get(data)
    if free:
        entry = free.pop()
        _IN_USE.append((data, entry))
        return entry[0], data
    mm = mmap.mmap(-1, data + 2 * PAGE)
    buf = (ctypes.c_char * len(mm)).from_buffer(mm)
    base = ctypes.addressof(buf)
    for start in (base, base + PAGE + data):
        if _libc.mprotect(start, PAGE, 0) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed")
    _IN_USE.append((data, (mm, buf)))
    return mm, data


def guarded_empty(shape, dtype, at_end: bool = True) -> np.ndarray:
    """An uninitialized C-contiguous array whose last byte (``at_end``) is followed by an
    unreadable page, or whose first byte follows one."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    mm, data = _mapping(n)
    off = PAGE + (data - n if at_end else 0)
    return np.frombuffer(mm, dtype=dtype, count=n // dtype.itemsize, offset=off).reshape(shape)


def guarded(a, at_end: bool = True) -> np.ndarray:
    """A copy of ``a`` (C order) placed as :func:`guarded_empty` places it."""
    a = np.ascontiguousarray(a)
    g = guarded_empty(a.shape, a.dtype, at_end)
    g[...] = a
    return g


def guarded_view(a, at_end: bool = True) -> np.ndarray:
    """A strided view at the edge of a mapping: ``a`` placed as the last (or first) column
    block of a wider array, so rows have gaps and the last pixel's last byte is still the
    mapping's last readable byte."""
    a = np.ascontiguousarray(a)
    if a.ndim < 2:
        return guarded(a, at_end)
    wide = list(a.shape)
    wide[1] += 3  # three extra columns per row: row stride > width
    g = guarded_empty(tuple(wide), a.dtype, at_end)
    v = g[:, 3:] if at_end else g[:, : a.shape[1]]
    v[...] = a
    return v
