"""OpenCL runtime: a queue on a device with its capabilities (:class:`Runtime`), the default
device's and per-queue runtimes, the caches of launch plans, and the launches themselves.

Devices are chosen by :mod:`warpkit.devices` (``WARPKIT_DEVICE``, else the first GPU, then the
first CPU device); programs are built and cached by :mod:`warpkit.programs`. Nothing here
touches OpenCL at import time: the default device is chosen on first use.

Every operator also takes ``queue=``: a ``pyopencl.CommandQueue`` to run on. Inputs that are
``pyopencl.array.Array`` run on their own queue.

Example:
    >>> import warpkit
    >>> rt = warpkit.get_runtime()          # doctest: +SKIP
    >>> print(rt.describe())                # doctest: +SKIP
    pthread-AMD EPYC on Portable Computing Language (CPU, fp64)
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyopencl as cl

from . import programs
from ._options import KERNEL_DEFINES
from .devices import DeviceEntry, check_fork_safe, choose_device, device_entry, list_devices, mark_used
from .programs import load_source, program_cache_dir

__all__ = [
    "DeviceEntry",
    "PlanCache",
    "Runtime",
    "clear_cache",
    "get_runtime",
    "launch",
    "load_source",
    "make_runtime",
    "profile",
    "list_devices",
    "program_cache_dir",
    "runtime_for_queue",
    "set_device",
]


class PlanCache:
    """An operator's launch plans: what follows from its inputs' layouts and options alone (the
    checks, the kernel variant, the scalar arguments, the work sizes), computed once per layout.

    A call then only wraps its arrays in buffers and launches (benchmarks/bench_host.py
    measures what that saves). ``make`` runs unlocked, so two threads may both make a
    plan; either result is the same. A ``make`` that raises caches nothing: bad input is refused
    on every call. The key must hold every value a plan depends on, the runtime included (its
    device and queue).
    """

    def __init__(self, maxsize: int = 64) -> None:
        self.maxsize = maxsize
        self._plans: dict[Any, Any] = {}
        self._lock = threading.Lock()
        _PLAN_CACHES.append(self)

    def get(self, key: Any, make: Any) -> Any:
        """The plan for ``key``, made by ``make()`` when there is none."""
        plan = self._plans.get(key)
        if plan is None:
            plan = make()
            self.put(key, plan)
        return plan

    def find(self, key: Any) -> Any:
        """The plan for ``key``, or None."""
        return self._plans.get(key)

    def put(self, key: Any, plan: Any) -> None:
        """Keep ``plan`` for ``key`` (the oldest goes where the cache is full)."""
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self.maxsize:
                del self._plans[next(iter(self._plans))]

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()

    def _forget(self) -> dict:
        """In a forked child: start empty without releasing anything (another thread may have
        held the lock at fork time); returns the parent's plans, to be kept, never released."""
        plans, self._plans, self._lock = self._plans, {}, threading.Lock()
        return plans

    def __len__(self) -> int:
        return len(self._plans)


_PLAN_CACHES: list[PlanCache] = []


def _context_of(queue: cl.CommandQueue) -> cl.Context:
    """The queue's context, or a clear error where it is gone: OpenCL frees a context when the
    last pyopencl.Context holding it is released, and some implementations (Intel's CPU runtime)
    do not count a queue as holding it, so ``CommandQueue(Context(...))`` loses it at once."""
    try:
        return queue.context
    except cl.Error as err:
        raise RuntimeError(
            f"the context of this queue is gone ({err}): keep a reference to the "
            "pyopencl.Context the queue was made with for as long as you use the queue (on "
            "some OpenCL implementations, Intel's CPU runtime among them, a queue does not "
            "keep its context alive)") from None


class Runtime:
    """A queue on one device, its capabilities, and access to cached programs.

    Create one with :func:`get_runtime` (the default device), :func:`set_device`, or
    :func:`runtime_for_queue` (a queue of your own).
    """

    def __init__(self, queue: cl.CommandQueue, reason: str = "given queue",
                 context: cl.Context | None = None) -> None:
        e = device_entry(-1, -1, queue.device)
        check_fork_safe(e)
        mark_used()
        self.queue = queue
        #: held for the runtime's life: a queue does not keep its context alive everywhere
        self.context: cl.Context = context if context is not None else _context_of(queue)
        self.device: cl.Device = queue.device
        self.name = e.name
        self.platform = e.platform
        self.kind = e.kind
        self.fp64 = e.fp64
        self.fp16 = e.fp16
        self.max_alloc = e.max_alloc
        self.local_mem = e.local_mem
        self.max_work_group_size = int(self.device.max_work_group_size)
        self.compute_units = e.compute_units
        #: the device runs work-items as loops on host cores (PoCL's CPU device; Oclgrind, which
        #: simulates one): kernels take their CPU-shaped variants (explicit 8-wide vectors, several
        #: channel blocks per work-item); other devices (GPUs) get one item of work per work-item
        self.cpu_like = e.kind in ("CPU", "SIMULATOR")
        #: the device works in host memory: wrap numpy arrays, do not copy
        self.zero_copy = self.cpu_like
        #: kernels may use clang's target builtins (prefetch, non-temporal stores): PoCL's CPU
        #: device, which compiles them natively; other compilers may reject them at build time,
        #: and a failing build can end the process (Mesa's rusticl), so nothing else gets them
        self.llvm_builtins = (e.kind == "CPU"
                              and "portable computing language" in e.platform.lower())
        self._host_coherent: bool | None = None
        self.reason = reason
        self._pid = os.getpid()
        self._pool: Any = None
        self._pool_lock = threading.Lock()

    @property
    def host_coherent(self) -> bool:
        """Whether the device works in a host-pointer buffer's own memory, so that the host sees
        a finished command's writes without mapping the buffer (PoCL's CPU device and Oclgrind
        do; a device that keeps its own copy needs the map). Probed once per runtime, with a fill
        command on its queue."""
        if self._host_coherent is None:
            probe = np.zeros(64, np.uint8)
            buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR,
                            hostbuf=probe)
            cl.enqueue_fill_buffer(self.queue, buf, np.uint8(0xA5), 0, probe.nbytes).wait()
            self._host_coherent = bool((probe == 0xA5).all())
        return self._host_coherent

    #: at most this much freed memory stays in a runtime's pool for reuse (:meth:`allocate`)
    POOL_HELD_BYTES = 1 << 30

    def allocate(self, nbytes: int) -> cl.MemoryObjectHolder:
        """Device memory for a result or a scratch buffer, from this queue's memory pool.

        Memory goes back to the pool when the buffer (or the array holding it) is dropped, and the
        next allocation of a similar size reuses it. Fresh memory is slow to come by: PoCL's first
        write to each page of a new buffer takes a page fault (a large GridSample into a new
        device array ran far slower than into recycled memory), and a GPU driver allocates and
        frees device memory on the call's critical path.

        Reuse is safe on an in-order queue: a later command that gets the memory runs after every
        earlier one. An out-of-order queue gets fresh buffers. Memory held for reuse is capped at
        :attr:`POOL_HELD_BYTES`; :func:`clear_cache` gives it all back.
        """
        nbytes = max(int(nbytes), 1)
        with self._pool_lock:
            pool = self._pool
            if pool is None:
                props = self.queue.properties
                if props & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE:
                    return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, nbytes)
                from pyopencl.tools import ImmediateAllocator, MemoryPool

                pool = self._pool = MemoryPool(ImmediateAllocator(self.queue))
            if pool.managed_bytes - pool.active_bytes > self.POOL_HELD_BYTES:
                pool.free_held()
            return pool.allocate(nbytes)

    def free_pool(self) -> None:
        """Give the memory the pool holds for reuse back to the device (buffers in use stay)."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.free_held()

    def describe(self) -> str:
        caps = ["fp64" if self.fp64 else "no fp64"]
        if self.fp16:
            caps.append("fp16")
        return f"{self.name} on {self.platform} ({self.kind}, {', '.join(caps)})"

    def program(self, source_name: str, defines: dict[str, Any] | None = None) -> cl.Program:
        """The built program for ``kernels_cl/<source_name>`` with ``-D`` defines (and the option
        numbers of ``_options.KERNEL_DEFINES``), cached."""
        merged = {**KERNEL_DEFINES, "WK_BUILTINS": int(self.llvm_builtins), **(defines or {})}
        opts = tuple(f"-D{k}={v}" for k, v in sorted(merged.items()))
        return programs.program(self.context, source_name, opts)

    def kernel(self, source_name: str, defines: dict[str, Any] | tuple | None,
               name: str) -> cl.Kernel:
        """A kernel object of the cached program, reused within the calling thread.

        ``defines`` is a dict, or the ``tuple(sorted(defines.items()))`` of one (what a launch
        plan keeps, to skip the sort on every call)."""
        dk = defines if isinstance(defines, tuple) else tuple(sorted((defines or {}).items()))
        return programs.kernel(self.context, source_name, dk, name,
                               lambda d: self.program(source_name, d))

    def require_fp64(self, what: str) -> None:
        if not self.fp64:
            raise TypeError(
                f"{what} needs double precision, but device {self.name!r} on {self.platform!r} "
                "has no cl_khr_fp64; use float32 data or another device (see `warpkit devices`)"
            )

    def __repr__(self) -> str:
        return f"<warpkit.Runtime {self.describe()}>"


_default: Runtime | None = None


_default_lock = threading.Lock()


_queue_runtimes: dict[int, Runtime] = {}


_orphans: list[Any] = []  # OpenCL objects inherited over fork: never released in the child


def make_runtime(spec: str | None) -> Runtime:
    entry, why = choose_device(spec)
    check_fork_safe(entry)
    ctx = cl.Context([entry.device])
    rt = Runtime(cl.CommandQueue(ctx), reason=why, context=ctx)
    rt.index = entry.index  # type: ignore[attr-defined]
    return rt


def get_runtime() -> Runtime:
    """The default runtime, created on first use (see the module docstring for the choice)."""
    global _default
    rt = _default
    if rt is not None and rt._pid == os.getpid():
        return rt
    with _default_lock:
        if _default is None or _default._pid != os.getpid():
            _default = make_runtime(None)
        return _default


def set_device(spec: str | None) -> Runtime:
    """Make the device ``spec`` selects the default and return its runtime.

    ``spec`` is ``"P:D"``, ``"P"`` or a name substring as for ``WARPKIT_DEVICE``; ``None`` (or
    a blank string, as a blank ``WARPKIT_DEVICE``) re-applies the environment and default
    rules.

    Example:
        >>> warpkit.set_device("pocl")     # doctest: +SKIP
        <warpkit.Runtime pthread-AMD EPYC on Portable Computing Language (CPU, fp64)>
    """
    global _default
    rt = make_runtime(spec)
    with _default_lock:
        _default = rt
    return rt


def runtime_for_queue(queue: cl.CommandQueue | None) -> Runtime:
    """The runtime for a user's queue (or the default runtime when ``queue`` is None)."""
    if queue is None:
        return get_runtime()
    d = _default
    if d is not None and d.queue is queue:  # the common case first
        return d
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue must be a pyopencl.CommandQueue or None, got {type(queue).__name__}")
    if d is not None and d.queue == queue:
        return d
    key = queue.int_ptr
    with _default_lock:
        rt = _queue_runtimes.get(key)
        if rt is None or rt.queue != queue:
            rt = Runtime(queue)
            _queue_runtimes[key] = rt
            while len(_queue_runtimes) > 32:  # do not keep many user queues alive
                _queue_runtimes.pop(next(iter(_queue_runtimes)))
    return rt


def clear_cache(disk: bool = False) -> None:
    """Drop every cached program, launch plan and per-queue runtime, and give back pooled memory
    (host results' and device buffers', see :meth:`Runtime.allocate`; the default device stays
    chosen); with ``disk=True`` also the program binaries kept on disk (see
    :func:`program_cache_dir`)."""
    programs.clear_programs(disk)
    with _default_lock:
        for rt in [_default, *_queue_runtimes.values()]:
            if rt is not None:
                rt.free_pool()
        _queue_runtimes.clear()
    for plans in _PLAN_CACHES:
        plans.clear()
    for clear in _CLEARED_CACHES:
        clear()


#: what clear_cache() empties besides programs, plans and device pools (register_cache)
_CLEARED_CACHES: list = []


def register_cache(clear) -> None:
    """Have :func:`clear_cache` call ``clear()``: modules with caches of their own register
    them here (the host result pool, ...), so that this module imports none of them."""
    _CLEARED_CACHES.append(clear)


def _after_fork_in_child() -> None:
    """A forked child cannot use its parent's OpenCL objects: forget them, without releasing
    (a release could call into a driver whose threads are gone). A new context is made on first
    use, where the device's driver can run in a forked child (see
    :func:`warpkit.devices.check_fork_safe`; :mod:`warpkit.programs` forgets its programs)."""
    global _default, _default_lock
    _orphans.append((_default, list(_queue_runtimes.values()),
                     [plans._forget() for plans in _PLAN_CACHES]))
    _default = None
    _queue_runtimes.clear()
    _default_lock = threading.Lock()  # another thread may have held it at fork time


@dataclass
class Profile:
    """Kernel events recorded by :func:`profile`; times need a queue with profiling enabled."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def kernel_seconds(self) -> float:
        """Sum of the recorded kernels' device times (waits for them)."""
        total = 0.0
        for _, ev in self.events:
            ev.wait()
            total += (ev.profile.end - ev.profile.start) * 1e-9
        return total


_PROFILE: contextvars.ContextVar[Profile | None] = contextvars.ContextVar("warpkit_profile",
                                                                          default=None)


@contextlib.contextmanager
def profile() -> Iterator[Profile]:
    """Record every kernel warpkit launches in this context (thread / task).

    Example:
        >>> import numpy as np, pyopencl as cl, warpkit
        >>> ctx = warpkit.get_runtime().context                        # doctest: +SKIP
        >>> q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)  # doctest: +SKIP
        >>> X = np.ones((1, 3, 64, 64), np.float32)
        >>> grid = np.zeros((1, 32, 32, 2), np.float32)
        >>> with warpkit.runtime.profile() as prof:                   # doctest: +SKIP
        ...     Y = warpkit.grid_sample(X, grid, queue=q)
        >>> prof.kernel_seconds() > 0                                  # doctest: +SKIP
        True
    """
    prof = Profile()
    token = _PROFILE.set(prof)
    try:
        yield prof
    finally:
        _PROFILE.reset(token)


_VEC4: dict[np.dtype, np.dtype] = {}


def vec4(values: Any, base: Any) -> np.ndarray:
    """An OpenCL 4-vector argument (``float4``, ``int4``, ``long4``) from up to 4 values (the rest
    0): a 0-d array of pyopencl.cltypes' layout, made without importing cltypes (its import
    brings pyopencl.tools and pytools, a large share of every command's start)."""
    base = np.dtype(base)
    dt = _VEC4.get(base)
    if dt is None:
        # the same dtype as cltypes' (titles too): pyopencl's invoker cache keys on it
        dt = _VEC4[base] = np.dtype({"names": ["s0", "s1", "s2", "s3"], "formats": [base] * 4,
                                     "titles": ["x", "y", "z", "w"]})
    v = np.zeros((), dt)
    v[()] = tuple(values) + (0,) * (4 - len(values))
    return v


def launch(rt: Runtime, kernel: cl.Kernel, global_size: tuple[int, ...],
           local_size: tuple[int, ...] | None,
           offset: tuple[int, ...] | None = None) -> cl.Event:
    """Enqueue a kernel whose arguments are set (``offset``: the global work offset); records
    it under :func:`profile`."""
    ev = cl.enqueue_nd_range_kernel(rt.queue, kernel, global_size, local_size, offset)
    prof = _PROFILE.get()
    if prof is not None:
        prof.events.append((kernel.function_name, ev))
    return ev
