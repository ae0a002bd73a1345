"""Host and device arrays as kernel operands.

Operators accept numpy arrays (any strides; anything ``numpy.asarray`` takes) and
``pyopencl.array.Array`` (any strides and offset), and return the kind they were given: a numpy
result when every array input was on the host, else a ``pyopencl.array.Array`` that stays on the
device (no hidden host round trip).

On a CPU device a contiguous numpy array is wrapped in a ``CL_MEM_USE_HOST_PTR`` buffer, which PoCL
uses in place: no copy in, no copy out. On other devices numpy data is copied, into and out of
device memory from the runtime's pool (``Runtime.allocate``), as are device results.

Host results of 64 KiB and up come from a pool of recycled blocks (:class:`HostPool`): fresh
memory costs a page fault per 4 KiB page on first write, and faults taken by several device
threads at once serialize in the kernel, and a large warp could spend most of its time that
way whenever other work had returned the previous result's pages to the system.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from .runtime import Runtime, register_cache, runtime_for_queue

if TYPE_CHECKING:
    import pyopencl.array as cla

mf = cl.mem_flags


@dataclass
class Operand:
    """One array argument: the host array or the device array, with element strides/offset."""

    name: str
    host: np.ndarray | None
    dev: cla.Array | None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple((self.host if self.host is not None else self.dev).shape)

    @property
    def dtype(self) -> np.dtype:
        return (self.host if self.host is not None else self.dev).dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def layout(self) -> tuple:
        """What a launch plan depends on (see ``runtime.PlanCache``): shape, strides and dtype;
        for a device array also its offset, queue and context. Not the data."""
        if self.host is not None:
            h = self.host
            return (h.shape, h.strides, h.dtype)
        d = self.dev
        return ("device", d.shape, d.strides, d.dtype, d.offset, d.queue, d.context)


def is_device_array(a: Any) -> bool:
    """Whether ``a`` is a ``pyopencl.array.Array``. pyopencl.array is imported only where device
    arrays are used (its import is a large share of a command's start): an input can be one only if
    that module is loaded."""
    cla = sys.modules.get("pyopencl.array")
    return cla is not None and isinstance(a, cla.Array)


def operand(a: Any, name: str) -> Operand:
    """Wrap an input; a non-array (list, scalar) goes through ``numpy.asarray``, and a host array
    in non-native byte order (``'>f4'`` on x86, from FITS files or network buffers) is converted
    to native order, a copy: kernels read native values, and results come in native order."""
    if is_device_array(a):
        return Operand(name, None, a)
    if isinstance(a, cl.MemoryObjectHolder):
        raise TypeError(f"{name} must be a numpy or pyopencl.array.Array, got a raw pyopencl Buffer")
    try:
        arr = np.asarray(a)
    except Exception as e:  # ragged lists and the like
        raise TypeError(f"{name} must be array-like, got {type(a).__name__}: {e}") from None
    if not arr.dtype.isnative and arr.dtype.fields is None:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return Operand(name, arr, None)


def pick_runtime(queue: cl.CommandQueue | None, *ops: Operand) -> Runtime:
    """The queue to run on: ``queue`` if given, else a device input's queue, else the default."""
    if queue is None:
        for o in ops:
            if o.dev is not None:
                queue = o.dev.queue
                if queue is None:
                    raise ValueError("a pyopencl array input has no queue; pass queue=")
                break
    rt = runtime_for_queue(queue)
    rctx = rt.context
    for o in ops:
        d = o.dev
        if d is None:
            continue
        ctx = d.context
        if ctx is not rctx and ctx != rctx:
            raise ValueError(
                f"{o.name} lives in another OpenCL context than the queue the operation runs on; "
                "copy it to that context first"
            )
    return rt


def wants_device_result(*ops: Operand) -> bool:
    return any(o.dev is not None for o in ops)


@dataclass
class DeviceView:
    """A buffer with the element offset and element strides of an operand inside it."""

    buf: cl.Buffer
    offset: int
    strides: tuple[int, ...]
    keep: Any = None  # host array a USE_HOST_PTR buffer points into


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(st))


def device_layout(op: Operand, n: int | None = None) -> tuple[int, tuple[int, ...]]:
    """The element offset and element strides of :func:`to_device`'s view of ``op``, without
    making it (for launch plans); ``n``: the batch items of a host slice ``host[n0:n0 + n]``."""
    if op.dev is not None:
        a = op.dev
        isz = a.dtype.itemsize
        if a.offset % isz or any(s % isz for s in a.strides):
            raise ValueError(f"{op.name} has strides or offset that are not whole elements")
        return a.offset // isz, tuple(s // isz for s in a.strides)
    shape = op.shape if n is None else (n, *op.shape[1:])
    return 0, _c_strides(shape)


def to_device(rt: Runtime, op: Operand, host: np.ndarray | None = None) -> DeviceView:
    """A read-only device view of ``op`` (or of ``host``, a slice of its host array)."""
    if host is None and op.dev is not None:
        return DeviceView(op.dev.base_data, *device_layout(op))
    arr = op.host if host is None else host
    arr = np.ascontiguousarray(arr)
    if rt.zero_copy:
        buf = cl.Buffer(rt.context, mf.READ_ONLY | mf.USE_HOST_PTR, hostbuf=arr)
    else:  # pooled device memory (Runtime.allocate)
        buf = rt.allocate(arr.nbytes)
        if arr.nbytes:
            # blocking: a non-blocking copy's event (pyopencl's NannyEvent, which keeps arr
            # alive) waits for the copy when released, and does so holding the GIL
            cl.enqueue_copy(rt.queue, buf, arr, is_blocking=True)
    return DeviceView(buf, 0, _c_strides(arr.shape), keep=arr)


class HostPool:
    """Recycles the memory of large host results once the caller has dropped every view of them.

    A result is a view of a block that numpy arrays derived from it keep alive (numpy collapses a
    view's base to the block); when the block is collected its memory goes back to the pool,
    which keeps, of one size, as many blocks as fit ``size_bytes`` (at least ``min_blocks``), and
    ``max_bytes`` in all. A batch's worth of results of one size (a training loop that warps
    images one at a time and keeps them until the batch is stacked) comes back whole.
    """

    #: smaller results come from malloc. Larger ones kept by the caller while more are made
    #: (a batch warped image by image) got fresh pages from malloc (glibc maps blocks over
    #: 128 KiB and gives them back when they are freed), and each kernel faulted its pages in.
    #: Recycled blocks pay from about 64 KiB up (docs/performance.md has the measurements)
    min_bytes = 64 << 10
    align = 64  # bytes: a cache line, so that kernels can use aligned (and non-temporal) stores

    def __init__(self, max_bytes: int = 512 << 20, size_bytes: int = 64 << 20,
                 min_blocks: int = 2) -> None:
        self.max_bytes = max_bytes
        self.size_bytes = size_bytes
        self.min_blocks = min_blocks
        self._free: dict[int, list[tuple[bytearray, int]]] = {}  # size: [(memory, start)]
        self._refs: dict[int, tuple] = {}  # blocks lent: id(ref) -> (ref, memory, start)
        self._held = 0
        self._lock = threading.Lock()

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialized C-contiguous array (recycled memory when a block of its size is free)."""
        dtype = np.dtype(dtype)
        n = math.prod(shape) * dtype.itemsize
        if n < self.min_bytes:
            return np.empty(shape, dtype)
        with self._lock:
            blocks = self._free.get(n)
            entry = blocks.pop() if blocks else None
            if entry is not None:
                self._held -= n
        if entry is None:
            raw = bytearray(n + self.align)
            start = -np.frombuffer(raw, np.uint8, 1).__array_interface__["data"][0] % self.align
        else:
            raw, start = entry
        block = np.frombuffer(raw, dtype, n // dtype.itemsize, start)
        # a weak reference whose callback gives the memory back (weakref.finalize would do the
        # same, slower, for its registry and exit hooks): the pool holds the reference
        ref = weakref.ref(block, self._give_back)
        self._refs[id(ref)] = (ref, raw, start)  # (arrays cannot be hashed: nor their refs)
        return block.reshape(shape)

    def _give_back(self, ref: weakref.ref) -> None:
        _, raw, start = self._refs.pop(id(ref))
        n = len(raw) - self.align
        with self._lock:
            blocks = self._free.setdefault(n, [])
            if (len(blocks) < max(self.min_blocks, self.size_bytes // n)
                    and self._held + n <= self.max_bytes):
                blocks.append((raw, start))
                self._held += n

    def clear(self) -> None:
        with self._lock:
            self._free.clear()
            self._held = 0

    @property
    def held_bytes(self) -> int:
        return self._held


HOST_POOL = HostPool()
register_cache(HOST_POOL.clear)


def device_sizes(shape: tuple[int, ...], dtype: np.dtype) -> tuple:
    """(shape as ints, element count, byte strides) of a C-contiguous array."""
    shape = tuple(int(d) for d in shape)
    return shape, math.prod(shape), tuple(s * dtype.itemsize for s in _c_strides(shape))


def device_empty(rt: Runtime, shape: tuple[int, ...], dtype: np.dtype,
                 sizes: tuple | None = None) -> cla.Array:
    """``cla.empty(rt.queue, shape, dtype, allocator=rt.allocate)``, made through pyopencl's fast
    constructor where it has one (the public one validates the shape with a dozen numpy
    calls), for a result whose shape warpkit computed itself (``sizes``: its
    :func:`device_sizes`, when the caller keeps them)."""
    import pyopencl.array as cla

    shape, size, strides = sizes if sizes is not None else device_sizes(shape, dtype)
    if size:
        try:
            return cla.Array(None, shape, dtype, allocator=rt.allocate, strides=strides,
                             _fast=True, _size=size, _context=rt.context, _queue=rt.queue)
        except TypeError:  # a pyopencl without these keywords
            pass
    return cla.empty(rt.queue, shape, dtype, allocator=rt.allocate)


class DeviceResults:
    """A plan's device result arrays (one shape and dtype, one runtime), made for every call.

    The first is made by :func:`device_empty`; later ones copy its attributes (a pyopencl Array
    keeps them all in its ``__dict__``) with a new buffer from the pool, an empty event list and
    no cached flags: cheaper than pyopencl's fast constructor, on every call. Where the first array is not laid out that way (a
    pyopencl whose Array changed), every call goes through :func:`device_empty`."""

    __slots__ = ("shape", "dtype", "sizes", "nbytes", "_template")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype) -> None:
        self.shape, self.dtype = shape, np.dtype(dtype)
        self.sizes = device_sizes(shape, self.dtype)
        self.nbytes = self.sizes[1] * self.dtype.itemsize
        self._template: tuple[type, dict] | None = None  # (pyopencl's Array, its attributes)

    def new(self, rt: Runtime) -> cla.Array:
        if self._template is not None:
            cls, attrs = self._template
            y = cls.__new__(cls)
            d = attrs.copy()
            d["base_data"] = rt.allocate(self.nbytes)
            d["events"] = []
            y.__dict__ = d
            return y
        import pyopencl.array as cla

        y = device_empty(rt, self.shape, self.dtype, self.sizes)
        d = getattr(y, "__dict__", None)
        if (self.nbytes and type(y) is cla.Array and d is not None
                and {"base_data", "events", "_flags", "queue", "offset"} <= d.keys()
                and d["offset"] == 0 and d["queue"] is rt.queue):
            self._template = (cla.Array, dict(d, base_data=None, events=None, _flags=None))
        return y


#: how long :func:`wait_awake` polls before it sleeps in the driver's wait (seconds): a
#: sample's kernels (a 224 x 224 warp: 0.1-0.4 ms on 2 cores) finish within it
POLL_SECONDS = 0.002

#: the largest host result whose wait polls (:func:`wait_awake`): a sample's (a 512 x 512 RGB
#: float32 model input is 3 MiB); a batch's kernels take milliseconds, and its wait sleeps
POLL_BYTES = 4 << 20

_YIELD = getattr(os, "sched_yield", lambda: time.sleep(0))


def wait_awake(done: cl.Event) -> None:
    """Wait for ``done`` on a CPU device: its status polled, the CPU yielded between polls (to
    the device's own threads), for up to :data:`POLL_SECONDS`, then the driver's wait. A thread
    asleep in the driver's wait is woken on whichever core the device's last thread ran, where
    its interpreter's code and data are not in the caches: one sample a call (a 224 x 224 warp)
    then took ~50% longer in its host work, in phases of seconds, than a thread that stays on
    its core (docs/performance.md, "Waiting awake")."""
    end = time.perf_counter() + POLL_SECONDS
    while done.command_execution_status > 0 and time.perf_counter() < end:  # (< 0: failed)
        _YIELD()
    done.wait()  # (at once where done; raises where the command failed)


class Output:
    """The result array: a device array, or a host array with the buffer the kernel writes into."""

    def __init__(self, rt: Runtime, shape: tuple[int, ...], dtype: np.dtype, on_device: bool,
                 host: np.ndarray | None = None):
        self.rt = rt
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.on_device = on_device
        if on_device:
            self.dev = device_empty(rt, shape, self.dtype)
            self.host = None
        else:  # the caller's array (checked by it: C-contiguous, this shape and dtype)
            self.dev = None
            self.host = HOST_POOL.empty(shape, self.dtype) if host is None else host

    def view(self, host_slice: np.ndarray | None = None) -> DeviceView:
        """A writable view; for a host result, of ``host_slice`` (a contiguous part of it)."""
        if self.on_device:
            return DeviceView(self.dev.base_data, self.dev.offset // self.dtype.itemsize,
                              _c_strides(self.shape))
        h = self.host if host_slice is None else host_slice
        if self.rt.zero_copy:
            buf = cl.Buffer(self.rt.context, mf.WRITE_ONLY | mf.USE_HOST_PTR, hostbuf=h)
        else:
            buf = self.rt.allocate(h.nbytes)
        return DeviceView(buf, 0, _c_strides(h.shape), keep=h)

    def finish(self, view: DeviceView, done: cl.Event) -> None:
        """Make a host slice's data visible on the host once ``done`` (the last command writing
        it) has finished: wait for it where the device writes the host memory itself
        (Runtime.host_coherent: no map and unmap commands, which cost a small warp dearly), map for
        other zero-copy devices, else read back."""
        if self.on_device:
            # no wait: the result carries its event, as pyopencl's own arrays do (get(),
            # finish() and pyopencl operations on other queues wait for it)
            self.dev.add_event(done)
            return
        q = self.rt.queue
        h = view.keep
        if self.rt.zero_copy and self.rt.host_coherent:
            if h.nbytes <= POLL_BYTES:  # (a sample's result: its kernels are short)
                wait_awake(done)
            else:
                done.wait()
        elif self.rt.zero_copy:
            mapped, _ = cl.enqueue_map_buffer(q, view.buf, cl.map_flags.READ, 0, h.shape, h.dtype,
                                              is_blocking=True)
            mapped.base.release(q)
        else:
            cl.enqueue_copy(q, h, view.buf, is_blocking=True)

    def result(self) -> Any:
        return self.dev if self.on_device else self.host


#: Results of at least this many bytes are written with non-temporal stores where a kernel can
#: (CPU devices, 32-byte aligned rows): larger than any core's cache, so the stores go past the
#: caches instead of first reading every line in (GridSample linear 1.14x, cubic 1.11x; its
#: nearest kernel keeps plain stores, see grid_sample_v).
STREAM_BYTES = 8 << 20


def streaming_output(nbytes: int) -> bool:
    """Whether a kernel writing a result of ``nbytes`` should use non-temporal stores."""
    return nbytes >= STREAM_BYTES


def check_allocation(rt: Runtime, nbytes: int, what: str, hint: str = "") -> None:
    """Refuse, before anything is allocated or launched, a buffer larger than one allocation of
    the device (``what``: the buffer, as the message names it; ``hint``: what to do instead)."""
    if nbytes > rt.max_alloc:
        raise ValueError(f"{what} ({nbytes} bytes) exceeds the device's maximum allocation of "
                         f"{rt.max_alloc} bytes ({rt.name})" + (f"; {hint}" if hint else ""))


def meta_buffer(rt: Runtime, values: list[int]) -> cl.Buffer:
    arr = np.asarray(values if values else [0], dtype=np.int64)
    return cl.Buffer(rt.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=arr)


def round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def row_group(blocks: int) -> int:
    """Work-group width for a row of ``blocks`` work-items (8 outputs each): the whole row, up to
    64 items (512 outputs), a power of two of at least 8; measured best on PoCL."""
    return min(64, max(8, 1 << (blocks - 1).bit_length()))
