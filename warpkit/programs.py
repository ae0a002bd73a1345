"""OpenCL programs and kernels: the sources (:func:`load_source`, ``#include`` inlined), builds
cached per process and, on PoCL where ``WARPKIT_CACHE_DIR`` asks for it, as binaries on disk
(:func:`program_cache_dir`), kernel objects per thread, and their arguments (:func:`set_args`,
:func:`bind`: the one place that keeps the argument state warpkit notes on a kernel).

Example:
    >>> from warpkit.programs import load_source
    >>> "grid_sample" in load_source("grid_sample.cl")
    True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import threading
import time
import warnings
from collections import OrderedDict
from importlib import resources
from typing import Any

import numpy as np
import pyopencl as cl

from ._pocl_cpu import fix_target_cpu, target_cpu

__all__ = ["ProgramCache", "bind", "clear_programs", "kernel", "load_source", "program",
           "program_cache_dir", "set_args"]

class ProgramCache:
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


_CACHE = ProgramCache()


#: A source build faster than this was served from the driver's own cache: only such a build's
#: binary is saved (the first later process pays the fetch, and after it none does).
_WARM_BUILD_S = 0.25


def _build(ctx: cl.Context, source: str, options: tuple[str, ...]) -> cl.Program:
    """Build ``source``; on PoCL with ``WARPKIT_CACHE_DIR`` set, from the binary an earlier
    process saved there if any.

    PoCL caches compiled sources itself: a later process's build of a program served from its
    cache takes ~50 ms. One made from the binary takes ~5-10 ms, but fetching the binary once makes
    PoCL compile every kernel of the program again (0.75 s for the warp's, ~5 s for a blur's
    colour passes on a Zen 4), so binaries are kept only where asked for (a shell loop of many
    short CLI processes): see :func:`program_cache_dir`. Keyed on the platform and device (name,
    vendor and versions), the source and the options.
    """
    for dev in ctx.devices:  # a context the caller made: see list_devices
        fix_target_cpu(dev)
    path = _binary_path(ctx, source, options)
    with warnings.catch_warnings():
        # a successful build's log (PoCL notes the double8 ABI, for instance) is not the user's
        # concern; failures still raise with the full log
        warnings.simplefilter("ignore", cl.CompilerWarning)
        if path is not None:
            try:
                with open(path, "rb") as f:
                    binary = f.read()
                return _with_kernels(cl.Program(ctx, ctx.devices, [binary])
                                     .build(options=list(options)))
            except FileNotFoundError:
                pass
            except (OSError, cl.Error, _NoKernels):  # unreadable or stale: build anew
                with contextlib.suppress(OSError):
                    os.unlink(path)
        t0 = time.perf_counter()
        try:
            prg = _build_source(ctx, source, options)
        except cl.RuntimeError as e:
            if "unknown target CPU" not in str(e):
                raise
            raise RuntimeError(
                "the OpenCL compiler does not know the CPU it was given (PoCL's LLVM names a "
                "CPU newer than itself 'generic', and WARPKIT_POCL_CPU may name one it does "
                "not know); set WARPKIT_POCL_CPU to a CPU LLVM 14 knows (haswell, "
                "skylake-avx512, znver3, ...) or choose another device with WARPKIT_DEVICE. "
                "The build said: "
                + next(ln.strip() for ln in str(e).splitlines() if "unknown target CPU" in ln)
            ) from e
    _with_kernels(prg)
    if path is not None and time.perf_counter() - t0 < _WARM_BUILD_S:
        _save_binary(path, prg.binaries[0])
    return prg


def _build_source(ctx: cl.Context, source: str, options: tuple[str, ...]) -> cl.Program:
    """``source`` built with ``options`` alone (and PYOPENCL_BUILD_OPTIONS, as pyopencl
    honours it). pyopencl's Program.build adds its own include folder (``-I <site-packages>/
    pyopencl/cl``) to every build, and PoCL keys its cache on the options: with that path in
    them, two environments (CI's two, a user's venvs) never shared a compile, each paying
    every build of its own. warpkit's sources inline their ``#include``\\ s (load_source) and
    need no folder. A failed build raises pyopencl's RuntimeError, the build log in it. (The
    unwrapped program is pyopencl's private ``_cl._Program``, which its Program wraps: a pyopencl
    without it gets Program.build, folder and all.)"""
    unwrapped = getattr(getattr(cl, "_cl", None), "_Program", None)
    if unwrapped is None:
        return cl.Program(ctx, source).build(options=list(options))
    raw = unwrapped(ctx, source)
    extra = os.environ.get("PYOPENCL_BUILD_OPTIONS", "").split()
    raw.build(" ".join((*options, *extra)).encode(), ctx.devices)
    return cl.Program(raw)


class _NoKernels(RuntimeError):
    """A build that gave a program without kernels (:func:`_with_kernels`)."""


def _with_kernels(prg: cl.Program) -> cl.Program:
    """``prg``, or :class:`_NoKernels` where its build gave no kernels (every warpkit source has
    some): a binary on disk so is dropped and built anew (:func:`_build`), a source build says
    why here instead of failing later, far from the cause, with INVALID_KERNEL_NAME.

    PoCL 3.0 returned such programs for a source whose compile warned of a changed vector ABI
    (a 64-byte vector passed to a function, compiled for a CPU without AVX-512: PoCL's LLVM 14
    takes a Zen 4 for a Zen 3), in every build but a
    process's first cold one; warpkit's sources pass none (kernels_cl/warpkit.h's wk_mul_hi8)."""
    if prg.get_info(cl.program_info.NUM_KERNELS) == 0:
        raise _NoKernels(
            "the OpenCL compiler returned a program without kernels (PoCL 3.0 does so from "
            "its cache for a program whose build warned of a changed vector ABI); running "
            "with POCL_KERNEL_CACHE=0 avoids its cache")
    return prg


def program_cache_dir() -> str | None:
    """Where PoCL program binaries are kept: the folder ``WARPKIT_CACHE_DIR`` names; unset or
    empty, none (the default: PoCL's own cache serves later processes, see :func:`_build`)."""
    return os.environ.get("WARPKIT_CACHE_DIR") or None


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
    cpu = target_cpu(dev)  # the CPU warpkit named for PoCL (its version still says "generic")
    if cpu:
        ident.append(f"target-cpu={cpu}")
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
    and making one per call is costly in pyopencl."""

    def __init__(self) -> None:
        self.generation = -1
        self.kernels: OrderedDict[tuple, cl.Kernel] = OrderedDict()


_KERNELS = _ThreadKernels()


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


def program(ctx: cl.Context, source_name: str, options: tuple[str, ...]) -> cl.Program:
    """The built program of ``kernels_cl/<source_name>`` with these build options, cached."""
    return _CACHE.get(ctx, load_source(source_name), options)


def kernel(ctx: cl.Context, source_name: str, dk: tuple, name: str, make) -> cl.Kernel:
    """A kernel object of a cached program, reused within the calling thread (a kernel's
    arguments are state, so threads must not share one, and making one per call costs pyopencl
    dearly). ``dk``: the program's defines as a sorted tuple; ``make(dict(dk))``: its program,
    where this thread has no kernel for it."""
    tk = _KERNELS
    if tk.generation != _generation:
        tk.kernels.clear()
        tk.generation = _generation
    key = (ctx.int_ptr, source_name, dk, name)
    k = tk.kernels.get(key)
    if k is None:
        # a program of this kernel alone (kernels_cl/warpkit.h's WK_ONE_KERNEL): a source's
        # other kernels are not compiled for it
        k = cl.Kernel(make({**dict(dk), "WK_ONE_KERNEL": 1, f"WK_KERNEL_{name}": 1}), name)
        tk.kernels[key] = k
        while len(tk.kernels) > 128:
            tk.kernels.popitem(last=False)
    return k


def clear_programs(disk: bool = False) -> None:
    """Drop every cached program (and, with ``disk``, the binaries kept on disk)."""
    _CACHE.clear()
    d = program_cache_dir()
    if disk and d is not None:
        import shutil

        shutil.rmtree(os.path.join(d, "programs"), ignore_errors=True)


def set_args(kernel: cl.Kernel, *args: Any) -> None:
    """Set every argument of ``kernel``: buffers, and scalars as numpy scalars of the kernel's type.

    The first call types the kernel's scalar arguments from the values given; pyopencl then packs
    them all at once, far cheaper than one numpy scalar at a time through its untyped path.
    """
    if getattr(kernel, "_wk_typed", False) is False:
        kernel.set_scalar_arg_dtypes(
            [None if isinstance(a, cl.MemoryObjectHolder) else np.asarray(a).dtype for a in args])
        kernel._wk_typed = True
    kernel.set_args(*args)
    kernel._wk_bound = None  # whose arguments these are: see bind


def bind(kernel: cl.Kernel, ln: Any, vals: list) -> None:
    """Set the per-call arguments ``vals`` (one per slot of ``ln``, a :class:`~warpkit._op.Launch`)
    of ``kernel``, and the launch's fixed ones where the kernel last ran another launch. What a
    kernel last ran is noted on it (``_wk_bound``, ``_wk_scalars``; ``set_args`` notes
    ``_wk_typed``): this module alone reads and writes those notes."""
    is_buf = ln.__dict__.get("_is_buf")  # a name's kind is the same every call
    if is_buf is None:
        kinds = tuple(isinstance(v, cl.MemoryObjectHolder) for v in vals)
        is_buf = () if all(kinds) else kinds  # (): buffers only
        object.__setattr__(ln, "_is_buf", is_buf)
    scalars = [v for v, b in zip(vals, is_buf) if not b] if is_buf else None
    if getattr(kernel, "_wk_bound", None) is ln and (
            scalars is None or all(a is b for a, b in zip(scalars, kernel._wk_scalars))):
        # its other arguments, and these values (the same objects: callers keep the values
        # that do not change, such as a warp's fill), are set already: set only the buffers (a
        # scalar set alone takes pyopencl's slow untyped path: those go all at once). Buffers
        # are set every call: the kernel holds no reference to them, so an old one may be gone
        # and a new one reuse its address
        if is_buf:
            for (i, _), v, b in zip(ln.slots, vals, is_buf):
                if b:
                    kernel.set_arg(i, v)
        else:
            for (i, _), v in zip(ln.slots, vals):
                kernel.set_arg(i, v)
    else:
        args = list(ln.args)
        for (i, _), v in zip(ln.slots, vals):
            args[i] = v
        set_args(kernel, *args)
        kernel._wk_bound = ln
        kernel._wk_scalars = scalars


_orphans: list[Any] = []  # programs and kernels inherited over fork: never released in the child


def _after_fork_in_child() -> None:
    """A forked child cannot use its parent's programs: forget them, without releasing (a
    release could call into a driver whose threads are gone)."""
    global _CACHE, _KERNELS
    _orphans.append((list(_CACHE._progs.values()), _KERNELS))
    _CACHE = ProgramCache(_CACHE.maxsize)
    _KERNELS = _ThreadKernels()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
