"""OpenCL devices: what is installed (:func:`list_devices`), which one a spec or the defaults
choose (:func:`choose_device`), and whether this process may still use one after a fork.

Nothing here touches OpenCL at import time. The default device is chosen on first use:

1. ``WARPKIT_DEVICE`` if set: ``"P:D"`` (platform and device index, as ``warpkit devices`` lists
   them), ``"P"`` (first device of platform P), or a case-insensitive substring of the platform or
   device name, vendor or version (``"pocl"``, ``"oclgrind"``, ``"nvidia"``);
2. otherwise the first GPU, then the first CPU device; simulators (Oclgrind) only when nothing
   else exists.

Example:
    >>> from warpkit.devices import list_devices
    >>> any(d.kind in ("CPU", "GPU") for d in list_devices())     # doctest: +SKIP
    True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pyopencl as cl

from ._pocl_cpu import fix_target_cpu

__all__ = ["DeviceEntry", "check_fork_safe", "choose_device", "device_entry", "list_devices",
           "mark_used"]

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


def device_entry(pi: int, di: int, dev: cl.Device) -> DeviceEntry:
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
    processes, for the whole process, halving the kernels' speed; pinned, nearly every process
    ran at full speed (docs/performance.md). With fewer threads than CPUs (several
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
            for d in devs:  # before any build: PoCL on a CPU its LLVM does not know
                fix_target_cpu(d)
            out.extend(device_entry(pi, di, d) for di, d in enumerate(devs))
        return out
    finally:
        if pinned:  # read by now: not for child processes (see _pin_pocl_threads)
            os.environ.pop("POCL_AFFINITY", None)


def _match(entries: list[DeviceEntry], spec: str) -> DeviceEntry:
    spec = spec.strip()
    if not entries:
        raise _no_device()
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
        raise _no_device(", or set WARPKIT_DEVICE")
    for kind in ("GPU", "CPU", "ACCELERATOR", "OTHER", "SIMULATOR"):
        for e in entries:
            if e.kind == kind:
                why = {
                    "GPU": "first GPU",
                    "CPU": "no GPU; first CPU device",
                }.get(kind, f"no GPU or CPU device; first {kind.lower()}")
                return e, why
    raise AssertionError("unreachable")


#: OpenCL was used in this process, or in a parent before fork()
_opencl_used = False
_forked_after_use = False


def mark_used() -> None:
    """Note that this process uses OpenCL (a child forked after this cannot)."""
    global _opencl_used
    _opencl_used = True


def check_fork_safe(entry: DeviceEntry) -> None:
    """OpenCL drivers keep threads and device state that a forked child does not inherit: PoCL's
    thread pool is gone there, so a kernel would wait forever. Say so instead of hanging."""
    if _forked_after_use and not entry.is_simulator:
        raise _forked_error(f"{entry.name!r} on {entry.platform!r} cannot run in a forked child "
                            "(its driver threads did not survive the fork)")


def _forked_error(what: str) -> RuntimeError:
    return RuntimeError(
        f"this process was forked after its parent used OpenCL, and {what}. Use "
        "multiprocessing's 'spawn' or 'forkserver' start method, or do not use warpkit in the "
        "parent before forking."
    )


def _no_device(hint: str = "") -> RuntimeError:
    """No device listed. In a child forked after its parent used OpenCL that is the fork's doing,
    not a missing driver: NVIDIA's driver (CUDA underneath) lists no device there at all."""
    if _forked_after_use:
        return _forked_error("no OpenCL device can be listed here (the driver did not survive "
                             "the fork)")
    return RuntimeError(
        f"no OpenCL device found: install one (pip install 'warpkit[pocl]' gives a CPU device){hint}")


def _after_fork_in_child() -> None:
    global _forked_after_use
    _forked_after_use = _forked_after_use or _opencl_used


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
