"""OpenCL runtime: device choice, contexts and queues, capabilities, and the program cache.

Nothing here touches OpenCL at import time. The default device is chosen lazily on first use:

1. ``WARPKIT_DEVICE`` if set: ``"P:D"`` (platform and device index, as ``warpkit devices`` lists
   them), ``"P"`` (first device of platform P), or a case-insensitive substring of the platform or
   device name, vendor or version (``"pocl"``, ``"oclgrind"``, ``"nvidia"``);
2. otherwise the first GPU, then the first CPU device; simulators (Oclgrind) only when nothing
   else exists.

Programs are cached per process; on PoCL their binaries are also kept on disk (see
:func:`program_cache_dir`), which makes a later process's build ~10x cheaper.

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
import functools
import hashlib
import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import pyopencl as cl

from ._options import KERNEL_DEFINES

__all__ = [
    "DeviceEntry",
    "PlanCache",
    "Runtime",
    "clear_cache",
    "get_runtime",
    "launch",
    "profile",
    "list_devices",
    "program_cache_dir",
    "runtime_for_queue",
    "set_device",
]

_SIMULATORS = ("oclgrind",)


@dataclass(frozen=True)
class DeviceEntry:
    """One OpenCL device as ``warpkit devices`` lists it."""

    index: str  #: ``"platform:device"``
    platform: str
    name: str
    kind: str  #: ``GPU``, ``CPU``, ``ACCELERATOR`` or ``SIMULATOR``
    version: str
    fp64: bool
    fp16: bool
    max_alloc: int
    global_mem: int
    local_mem: int
    compute_units: int
    device: Any  #: the ``pyopencl.Device``

    @property
    def is_simulator(self) -> bool:
        return self.kind == "SIMULATOR"


def _is_simulator(dev: cl.Device) -> bool:
    text = " ".join([dev.name, dev.vendor, dev.platform.name, dev.platform.vendor]).lower()
    return any(s in text for s in _SIMULATORS)


def _kind(dev: cl.Device) -> str:
    if _is_simulator(dev):
        return "SIMULATOR"  # Oclgrind reports every type bit at once
    if dev.type & cl.device_type.GPU:
        return "GPU"
    if dev.type & cl.device_type.CPU:
        return "CPU"
    if dev.type & cl.device_type.ACCELERATOR:
        return "ACCELERATOR"
    return "OTHER"


def _entry(pi: int, di: int, dev: cl.Device) -> DeviceEntry:
    ext = dev.extensions.split()
    return DeviceEntry(
        index=f"{pi}:{di}",
        platform=dev.platform.name.strip(),
        name=dev.name.strip(),
        kind=_kind(dev),
        version=dev.version.strip(),
        fp64="cl_khr_fp64" in ext or bool(getattr(dev, "double_fp_config", 0)),
        fp16="cl_khr_fp16" in ext,
        max_alloc=int(dev.max_mem_alloc_size),
        global_mem=int(dev.global_mem_size),
        local_mem=int(dev.local_mem_size),
        compute_units=int(dev.max_compute_units),
        device=dev,
    )


def _pin_pocl_threads() -> bool:
    """Have PoCL pin its CPU device's worker threads, thread i to CPU i (``POCL_AFFINITY=1``),
    where that is safe: this process may run on every CPU, PoCL starts one thread per CPU (no
    ``POCL_MAX_PTHREAD_COUNT`` / ``POCL_CPU_MAX_CU_NUM`` below it) and nobody set
    ``POCL_AFFINITY``. Returns whether it set it. PoCL reads it once, when its device starts
    (its threads are made and pinned by ``get_devices``): :func:`list_devices` sets it around its
    look at the platforms and then takes it back, so that no child process inherits it (one told
    to start fewer threads would pin them all to the first CPUs); a child that uses warpkit
    decides for itself.

    Why: unpinned, the scheduler left both worker threads of a 2-CPU host on one CPU in 5 of 8
    processes, for the whole process (a 512x384 lens warp's kernel: median 0.69 ms instead of
    0.35); pinned, 13 processes of 14 had 0.34-0.43 ms. With fewer threads than CPUs (several
    processes sharing a host, :mod:`warpkit.dist`'s ``cpu_threads``) every process would pin to
    the same first CPUs, hence the conditions. ``POCL_AFFINITY=0`` keeps PoCL's default.
    """
    if "POCL_AFFINITY" in os.environ or not hasattr(os, "sched_getaffinity"):
        return False
    n = os.cpu_count() or 0
    if n < 2 or os.sched_getaffinity(0) != set(range(n)):
        return False
    for var in ("POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_NUM"):
        if os.environ.get(var, str(n)).strip() != str(n):
            return False
    os.environ["POCL_AFFINITY"] = "1"
    return True


def list_devices() -> list[DeviceEntry]:
    """Every OpenCL device on every platform, in platform order.

    Returns an empty list when no OpenCL platform is installed (install ``warpkit[pocl]`` for a
    CPU device from pip).
    """
    pinned = _pin_pocl_threads()
    try:
        try:
            platforms = cl.get_platforms()
        except cl.LogicError:  # CL_PLATFORM_NOT_FOUND_KHR: no ICD at all
            return []
        out = []
        for pi, p in enumerate(platforms):
            try:
                devs = p.get_devices()
            except cl.Error:
                continue
            out.extend(_entry(pi, di, d) for di, d in enumerate(devs))
        return out
    finally:
        if pinned:  # read by now: not for child processes (see _pin_pocl_threads)
            os.environ.pop("POCL_AFFINITY", None)


def _match(entries: list[DeviceEntry], spec: str) -> DeviceEntry:
    spec = spec.strip()
    if not entries:
        raise RuntimeError(
            "no OpenCL device found: install one (pip install 'warpkit[pocl]' gives a CPU device)"
        )
    parts = spec.split(":")
    if all(p.isdigit() for p in parts) and 1 <= len(parts) <= 2:
        pi = int(parts[0])
        di = int(parts[1]) if len(parts) == 2 else 0
        for e in entries:
            if e.index == f"{pi}:{di}":
                return e
        raise ValueError(
            f"device {spec!r} not found; available: "
            + ", ".join(f"{e.index} ({e.name})" for e in entries)
        )
    low = spec.lower()
    for e in entries:
        d = e.device
        text = " ".join(
            [d.name, d.vendor, d.version, d.platform.name, d.platform.vendor, d.platform.version]
        ).lower()
        if low in text:
            return e
    raise ValueError(
        f"no OpenCL device matches {spec!r}; available: "
        + ", ".join(f"{e.index} ({e.name} on {e.platform})" for e in entries)
    )


def choose_device(spec: str | None = None) -> tuple[DeviceEntry, str]:
    """The device a spec (or, with ``None`` or a blank spec, the environment and defaults)
    selects, and why. A blank spec is unset, as a blank ``WARPKIT_DEVICE`` is: as a name
    substring it would match every device, and pick the first listed (a simulator, say)."""
    entries = list_devices()
    if spec is not None and not spec.strip():
        spec = None
    if spec is None:
        env = os.environ.get("WARPKIT_DEVICE", "").strip()
        if env:
            return _match(entries, env), f"WARPKIT_DEVICE={env!r}"
    else:
        return _match(entries, spec), f"selected {spec!r}"
    if not entries:
        raise RuntimeError(
            "no OpenCL device found: install one (pip install 'warpkit[pocl]' gives a CPU device), "
            "or set WARPKIT_DEVICE"
        )
    for kind in ("GPU", "CPU", "ACCELERATOR", "OTHER", "SIMULATOR"):
        for e in entries:
            if e.kind == kind:
                why = {
                    "GPU": "first GPU",
                    "CPU": "no GPU; first CPU device",
                }.get(kind, f"no GPU or CPU device; first {kind.lower()}")
                return e, why
    raise AssertionError("unreachable")


class _ProgramCache:
    """Programs keyed on (context, source digest, build options); thread-safe, LRU-bounded.

    A program holds its context, so the bound (and :func:`clear_cache`) is what lets a context a
    user dropped be released.
    """

    def __init__(self, maxsize: int = 256) -> None:
        self.maxsize = maxsize
        self._lock = threading.Lock()
        self._progs: OrderedDict[tuple, cl.Program] = OrderedDict()
        self._building: dict[tuple, threading.Lock] = {}

    def get(self, ctx: cl.Context, source: str, options: tuple[str, ...]) -> cl.Program:
        key = (ctx.int_ptr, _digest(source), options)
        with self._lock:
            prg = self._progs.get(key)
            if prg is not None:
                self._progs.move_to_end(key)
                return prg
            build_lock = self._building.setdefault(key, threading.Lock())
        with build_lock:  # one build per key, even with several threads asking
            with self._lock:
                prg = self._progs.get(key)
            if prg is None:
                prg = _build(ctx, source, options)
                with self._lock:
                    self._progs[key] = prg
                    while len(self._progs) > self.maxsize:
                        self._progs.popitem(last=False)
        with self._lock:
            self._building.pop(key, None)
        return prg

    def clear(self) -> None:
        global _generation
        with self._lock:
            self._progs.clear()
            _generation += 1  # per-thread kernel caches drop their kernels on next use

    def __len__(self) -> int:
        return len(self._progs)


_CACHE = _ProgramCache()

#: A source build faster than this was served from the driver's own cache, so its binary is
#: ready to fetch (1 ms); after a real compile, fetching it would compile more (0.6 s on PoCL 3.0).
_WARM_BUILD_S = 0.25


def _build(ctx: cl.Context, source: str, options: tuple[str, ...]) -> cl.Program:
    """Build ``source``; on PoCL, from the binary saved on disk by an earlier process if any.

    PoCL caches compiled sources itself, but a build that hits its cache still costs ~45 ms (the
    source is hashed and the module reloaded); a program made from its binary builds in ~4 ms.
    pyopencl keeps no binaries for PoCL (it counts on that cache), so warpkit keeps them, keyed on
    the platform and device (name, vendor and versions), the source and the options.
    """
    path = _binary_path(ctx, source, options)
    with warnings.catch_warnings():
        # a successful build's log (PoCL notes the double8 ABI, for instance) is not the user's
        # concern; failures still raise with the full log
        warnings.simplefilter("ignore", cl.CompilerWarning)
        if path is not None:
            try:
                with open(path, "rb") as f:
                    binary = f.read()
                return cl.Program(ctx, ctx.devices, [binary]).build(options=list(options))
            except FileNotFoundError:
                pass
            except (OSError, cl.Error):  # unreadable or stale: build from source, save anew
                with contextlib.suppress(OSError):
                    os.unlink(path)
        t0 = time.perf_counter()
        prg = cl.Program(ctx, source).build(options=list(options))
    if path is not None and time.perf_counter() - t0 < _WARM_BUILD_S:
        _save_binary(path, prg.binaries[0])
    return prg


def program_cache_dir() -> str | None:
    """Where program binaries are kept: ``WARPKIT_CACHE_DIR`` (empty: keep none), else
    ``$XDG_CACHE_HOME/warpkit`` (``~/.cache/warpkit``)."""
    d = os.environ.get("WARPKIT_CACHE_DIR")
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "warpkit")
    return d or None


def _binary_path(ctx: cl.Context, source: str, options: tuple[str, ...]) -> str | None:
    devs = ctx.devices
    if len(devs) != 1 or "portable computing language" not in devs[0].platform.name.lower():
        return None
    d = program_cache_dir()
    if d is None:
        return None
    dev = devs[0]
    ident = [dev.platform.name, dev.platform.version, dev.name, dev.vendor, dev.version,
             dev.driver_version, cl.VERSION_TEXT, _digest(source), *options]
    key = hashlib.sha256("\0".join(ident).encode()).hexdigest()
    return os.path.join(d, "programs", key[:40] + ".bin")


def _save_binary(path: str, binary: bytes) -> None:
    """Write atomically (a concurrent reader sees the whole file or none); failures are ignored:
    the cache is only a speed-up."""
    import tempfile

    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(binary)
            os.replace(tmp, path)
        except OSError:
            os.unlink(tmp)
            raise


_generation = 0


@functools.lru_cache(maxsize=64)
def _digest(source: str) -> str:
    """The cache key of a source text (hashed once, not on every launch)."""
    return hashlib.sha256(source.encode()).hexdigest()


class _ThreadKernels(threading.local):
    """Kernel objects per thread: a kernel's arguments are state, so threads must not share one,
    and making one per call costs pyopencl ~0.4 ms."""

    def __init__(self) -> None:
        self.generation = -1
        self.kernels: OrderedDict[tuple, cl.Kernel] = OrderedDict()


_KERNELS = _ThreadKernels()


class PlanCache:
    """An operator's launch plans: what follows from its inputs' layouts and options alone (the
    checks, the kernel variant, the scalar arguments, the work sizes), computed once per layout.

    A call then only wraps its arrays in buffers and launches (GridSample on PoCL, in one process
    against the code before plans: 1x3x64x64 nearest 145 -> 102 us per call, linear 206 -> 159
    us; 8x3x512x512 0.15-0.2 ms less). ``make`` runs unlocked, so two threads may both make a
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
            with self._lock:
                self._plans[key] = plan
                while len(self._plans) > self.maxsize:  # drop the oldest
                    del self._plans[next(iter(self._plans))]
        return plan

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
_SOURCES: dict[str, str] = {}
_SOURCES_LOCK = threading.Lock()


def load_source(name: str) -> str:
    """Text of ``kernels_cl/<name>`` from the installed package, with local ``#include``\\ s inlined."""
    with _SOURCES_LOCK:
        if name in _SOURCES:
            return _SOURCES[name]
    pkg = resources.files("warpkit.kernels_cl")
    lines = []
    for line in pkg.joinpath(name).read_text(encoding="utf-8").splitlines():
        s = line.strip()
        if s.startswith("#include") and '"' in s:
            inc = s.split('"')[1]
            lines.append(load_source(inc))
        else:
            lines.append(line)
    text = "\n".join(lines) + "\n"
    with _SOURCES_LOCK:
        _SOURCES[name] = text
    return text


#: OpenCL was used in this process, or in a parent before fork()
_opencl_used = False
_forked_after_use = False


def _check_fork_safe(entry: DeviceEntry) -> None:
    """OpenCL drivers keep threads and device state that a forked child does not inherit: PoCL's
    thread pool is gone there, so a kernel would wait forever. Say so instead of hanging."""
    if _forked_after_use and not entry.is_simulator:
        raise RuntimeError(
            f"this process was forked after its parent used OpenCL, and {entry.name!r} on "
            f"{entry.platform!r} cannot run in a forked child (its driver threads did not survive "
            "the fork). Use multiprocessing's 'spawn' or 'forkserver' start method, or do not use "
            "warpkit in the parent before forking."
        )


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
        global _opencl_used
        e = _entry(-1, -1, queue.device)
        _check_fork_safe(e)
        _opencl_used = True
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
        write to each page of a new buffer takes a page fault (a 64x3x512x512 GridSample into a
        new device array ran 2.6x slower than into recycled memory), and a GPU driver allocates and
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
        return _CACHE.get(self.context, load_source(source_name), opts)

    def kernel(self, source_name: str, defines: dict[str, Any] | tuple | None,
               name: str) -> cl.Kernel:
        """A kernel object of the cached program, reused within the calling thread.

        ``defines`` is a dict, or the ``tuple(sorted(defines.items()))`` of one (what a launch
        plan keeps, to skip the sort on every call)."""
        tk = _KERNELS
        if tk.generation != _generation:
            tk.kernels.clear()
            tk.generation = _generation
        dk = defines if isinstance(defines, tuple) else tuple(sorted((defines or {}).items()))
        key = (self.context.int_ptr, source_name, dk, name)
        k = tk.kernels.get(key)
        if k is None:
            k = cl.Kernel(self.program(source_name, dict(dk)), name)
            tk.kernels[key] = k
            while len(tk.kernels) > 128:
                tk.kernels.popitem(last=False)
        return k

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


def _make_runtime(spec: str | None) -> Runtime:
    entry, why = choose_device(spec)
    _check_fork_safe(entry)
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
            _default = _make_runtime(None)
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
    rt = _make_runtime(spec)
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
    _CACHE.clear()
    d = program_cache_dir()
    if disk and d is not None:
        import shutil

        shutil.rmtree(os.path.join(d, "programs"), ignore_errors=True)
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
    use, where the device's driver can run in a forked child (see :func:`_check_fork_safe`)."""
    global _default, _CACHE, _default_lock, _forked_after_use, _KERNELS
    _orphans.append((_default, list(_CACHE._progs.values()), list(_queue_runtimes.values()),
                     _KERNELS, [plans._forget() for plans in _PLAN_CACHES]))
    _default = None
    _CACHE = _ProgramCache(_CACHE.maxsize)
    _KERNELS = _ThreadKernels()
    _queue_runtimes.clear()
    _default_lock = threading.Lock()  # another thread may have held it at fork time
    _forked_after_use = _forked_after_use or _opencl_used


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
    brings pyopencl.tools and pytools: ~50 ms of every command's start)."""
    base = np.dtype(base)
    dt = _VEC4.get(base)
    if dt is None:
        # the same dtype as cltypes' (titles too): pyopencl's invoker cache keys on it
        dt = _VEC4[base] = np.dtype({"names": ["s0", "s1", "s2", "s3"], "formats": [base] * 4,
                                     "titles": ["x", "y", "z", "w"]})
    v = np.zeros((), dt)
    v[()] = tuple(values) + (0,) * (4 - len(values))
    return v


def set_args(kernel: cl.Kernel, *args: Any) -> None:
    """Set every argument of ``kernel``: buffers, and scalars as numpy scalars of the kernel's type.

    The first call types the kernel's scalar arguments from the values given; pyopencl then packs
    them all at once (~0.05 us each, against ~7 us per numpy scalar through its untyped path, which
    made a 20-argument launch cost 0.15 ms).
    """
    if getattr(kernel, "_wk_typed", False) is False:
        kernel.set_scalar_arg_dtypes(
            [None if isinstance(a, cl.MemoryObjectHolder) else np.asarray(a).dtype for a in args])
        kernel._wk_typed = True
    kernel.set_args(*args)
    kernel._wk_bound = None  # whose arguments these are: see _op._bind


def launch(rt: Runtime, kernel: cl.Kernel, global_size: tuple[int, ...],
           local_size: tuple[int, ...] | None) -> cl.Event:
    """Enqueue a kernel whose arguments are set; records it under :func:`profile`."""
    ev = cl.enqueue_nd_range_kernel(rt.queue, kernel, global_size, local_size)
    prof = _PROFILE.get()
    if prof is not None:
        prof.events.append((kernel.function_name, ev))
    return ev
