"""PoCL from pip on CPUs its LLVM does not know: name a target it knows, or it builds nothing.

The PoCL that pip installs (``pocl-binary-distribution`` 3.0, with pyopencl's wheel) is built
on LLVM 14, which names the host CPU from its CPUID family and model. For an AMD family newer
than LLVM 14 (1Ah: Zen 5 and later; Intel's unknown models are named from their features) that
name is ``"generic"``; PoCL passes it to clang
as ``-target-cpu generic``, which clang rejects for x86-64, so that *every* program build fails
with ``unknown target CPU 'generic'`` (pocl/pocl#1049, #512). This PoCL reads no setting that
names the CPU (``POCL_LLVM_CPU_NAME`` came later), and it takes no ``-target-cpu`` among the
build options.

PoCL keeps the name it passes as a string on its device object, and it shows in the device's
version (``... HSTR: pthread-x86_64-unknown-linux-gnu-generic``). Where the version ends so, on
x86-64 Linux, :func:`fix_target_cpu` writes into that string (in place, within the bytes
``malloc`` gave it) the CPU for which the kernel library PoCL chose was compiled: its "distro"
build ships one library per x86-64 feature level and picks the best one the host's features
allow, so the same features pick the same CPU here (AVX-512F: ``skylake-avx512``, AVX2 with
FMA and BMI: ``haswell``, ...). Builds then compile for that CPU and inline the library, as on a
CPU LLVM knows. ``WARPKIT_POCL_CPU`` names another LLVM CPU (``znver3``, say) or, set to
``off``, keeps PoCL's own. Nothing here runs for other platforms, other PoCL builds, or CPUs
LLVM knows.
"""

from __future__ import annotations

import bisect
import ctypes
import os
import platform
import threading

import pyopencl as cl

__all__ = ["fix_target_cpu", "target_cpu", "distro_cpu"]

_GENERIC = b"generic\0"
_LOCK = threading.Lock()
_DONE: dict[int, str | None] = {}  # device pointer -> the CPU written (None: left as it was)

# (CPU as PoCL's distro build compiled each kernel library, /proc/cpuinfo flags it needs),
# best last: the same order and features as PoCL's own choice of library
_LEVELS = (
    ("x86-64", {"sse2"}),
    ("core2", {"sse2", "ssse3", "cx16"}),
    ("penryn", {"sse2", "sse4_1", "cx16"}),
    ("sandybridge", {"sse2", "avx", "cx16", "popcnt"}),
    ("ivybridge", {"sse2", "avx", "cx16", "popcnt", "f16c"}),
    ("bdver1", {"sse2", "avx", "cx16", "popcnt", "xop", "fma4"}),
    ("haswell", {"sse2", "avx", "avx2", "cx16", "popcnt", "abm", "f16c", "fma", "bmi1",
                 "bmi2"}),
    ("skylake-avx512", {"sse2", "avx512f"}),
)


def distro_cpu(flags: set[str]) -> str | None:
    """The LLVM CPU of the best PoCL kernel library that a CPU with these ``/proc/cpuinfo``
    flags runs (``None`` if none does).

    Example:
        >>> distro_cpu({"sse2", "avx", "avx2", "cx16", "popcnt", "abm", "f16c", "fma", "bmi1",
        ...             "bmi2"})
        'haswell'
        >>> distro_cpu({"sse2", "avx512f", "avx2"})
        'skylake-avx512'
    """
    best = None
    for cpu, need in _LEVELS:
        if need <= flags:
            best = cpu
    return best


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _readable() -> tuple[list[int], list[int]]:
    """The readable mappings of this process, sorted: (starts, ends)."""
    spans = []
    with open("/proc/self/maps") as f:
        for line in f:
            addr, perms = line.split()[:2]
            if perms.startswith("r"):
                lo, hi = (int(x, 16) for x in addr.split("-"))
                spans.append((lo, hi))
    spans.sort()
    return [lo for lo, _ in spans], [hi for _, hi in spans]


def _find_generic(dev_ptr: int, words: int = 1024) -> int | None:
    """The address of the NUL-terminated ``"generic"`` a pointer in PoCL's device object points
    at, reading only mapped memory."""
    starts, ends = _readable()

    def mapped(a: int, n: int) -> bool:
        i = bisect.bisect_right(starts, a) - 1
        return i >= 0 and a + n <= ends[i]

    while words and not mapped(dev_ptr, 8 * words):
        words //= 2
    table = (ctypes.c_uint64 * words).from_address(dev_ptr)
    for w in table:
        if w and w % 8 == 0 and mapped(w, len(_GENERIC)) \
                and ctypes.string_at(w, len(_GENERIC)) == _GENERIC:
            return int(w)
    return None


def _applies(dev: cl.Device) -> bool:
    return ("portable computing language" in dev.platform.name.lower()
            and dev.version.rstrip().endswith("-generic")
            and "HSTR:" in dev.version
            and platform.machine().lower() in ("x86_64", "amd64")
            and os.path.exists("/proc/self/maps"))


def fix_target_cpu(dev: cl.Device) -> str | None:
    """Give a PoCL CPU device whose LLVM named the host ``"generic"`` a CPU clang accepts (see
    the module's text); returns the CPU now used, or ``None`` where nothing was changed. Safe to
    call for any device, any number of times: only the first call per device looks.

    Example:
        >>> import pyopencl as cl
        >>> devs = [d for p in cl.get_platforms() for d in p.get_devices()]
        >>> named = {d.name: fix_target_cpu(d) for d in devs}  # None where nothing changed
        >>> all(v is None or v in ("haswell", "skylake-avx512") or "WARPKIT_POCL_CPU" in os.environ
        ...     for v in named.values())
        True
    """
    key = int(dev.int_ptr)
    if key in _DONE:
        return _DONE[key]
    with _LOCK:
        if key in _DONE:
            return _DONE[key]
        cpu = None
        try:
            if _applies(dev):
                cpu = _write_cpu(key)
        finally:
            _DONE[key] = cpu
    return cpu


def _write_cpu(dev_ptr: int) -> str | None:
    want = os.environ.get("WARPKIT_POCL_CPU", "").strip()
    if want.lower() == "off":
        return None
    cpu = want or distro_cpu(_cpu_flags())
    if not cpu:
        return None
    addr = _find_generic(dev_ptr)
    if addr is None:
        return None
    libc = ctypes.CDLL(None)
    usable = getattr(libc, "malloc_usable_size", None)
    if usable is None:
        return None
    usable.restype = ctypes.c_size_t
    usable.argtypes = [ctypes.c_void_p]
    data = cpu.encode() + b"\0"
    if usable(addr) < len(data):  # PoCL malloc'ed the name: write only within its block
        return None
    ctypes.memmove(addr, data, len(data))
    return cpu


def target_cpu(dev: cl.Device) -> str | None:
    """The CPU :func:`fix_target_cpu` gave this device, if any (part of the key of the program
    binaries warpkit keeps: a binary for one CPU must not load on another)."""
    return _DONE.get(int(dev.int_ptr))
