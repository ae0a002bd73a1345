"""What every OpenCL implementation can build: target builtins only where the host allows them.

Mesa's rusticl translates OpenCL C to SPIR-V, which has no prefetch: a kernel that calls
``__builtin_prefetch`` fails to build there, and that failure ends the process (exit status 8)
instead of raising. So every ``__builtin_`` in ``kernels_cl/`` must sit under a preprocessor
condition on ``WK_BUILTINS``, which the host sets only for PoCL's CPU device
(``Runtime.llvm_builtins``).
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pyopencl as cl

import warpkit
from warpkit._options import KERNEL_DEFINES
from warpkit.runtime import load_source

KERNELS = pathlib.Path(warpkit.__file__).resolve().parent.parent / "kernels_cl"
if not KERNELS.is_dir():  # an installed package keeps them inside
    KERNELS = pathlib.Path(warpkit.__file__).resolve().parent / "kernels_cl"


def _unguarded_builtins(text: str) -> list[str]:
    """Lines using a ``__builtin_`` outside any #if whose condition names WK_BUILTINS (directly or
    through a macro defined with it); clang's frontend builtin ``__builtin_convertvector`` may
    instead sit under ``defined(__clang__)`` (with a standard fallback beside it)."""
    guards = {"WK_BUILTINS"}
    for name, body in re.findall(r"#define\s+(\w+)\s+\(([^\n]*(?:\\\n[^\n]*)*)", text):
        if "WK_BUILTINS" in body:
            guards.add(name)
    stack: list[tuple[bool, bool]] = []  # (WK_BUILTINS holds, __clang__ holds) per level
    bad = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()

        def cond(s=s):
            return (any(re.search(rf"\b{g}\b", s) for g in guards),
                    "defined(__clang__)" in s and "!defined" not in s)

        if s.startswith(("#if", "#ifdef", "#ifndef")):
            stack.append(cond())
        elif s.startswith("#elif") and stack:
            stack[-1] = cond()
        elif s.startswith("#else") and stack:
            stack[-1] = (False, False)  # the branch where the guard does not hold
        elif s.startswith("#endif") and stack:
            stack.pop()
        elif "__builtin_" in line and not s.startswith(("/*", "*", "//")):
            target = any(b for b, _ in stack)
            frontend = "__builtin_convertvector" in line and any(c for _, c in stack)
            if not (target or frontend):
                bad.append(f"{n}: {s}")
    return bad


def test_every_target_builtin_is_behind_wk_builtins():
    sources = sorted(KERNELS.glob("*.cl")) + sorted(KERNELS.glob("*.h"))
    assert sources
    found = {p.name: _unguarded_builtins(p.read_text()) for p in sources}
    assert not any(found.values()), found
    # the checker finds what it must
    assert _unguarded_builtins("#if WK_CPU\n__builtin_prefetch(p);\n#endif\n")
    assert not _unguarded_builtins("#if WK_CPU && WK_BUILTINS\n__builtin_prefetch(p);\n#endif\n")
    assert _unguarded_builtins("#if WK_BUILTINS\n#else\n__builtin_prefetch(p);\n#endif\n")


def test_builtins_only_on_pocls_cpu_device(queue):
    """The host's decision: PoCL's CPU device compiles them natively; Oclgrind and any other
    implementation do not get them."""
    rt = warpkit.runtime_for_queue(queue)
    pocl_cpu = (queue.device.type & cl.device_type.CPU
                and "portable computing language" in queue.device.platform.name.lower())
    assert rt.llvm_builtins == bool(pocl_cpu)
    opts = rt.program("warp.cl", {"MODE": 1, "X_T": "uchar", "X_KIND": "WK_INT", "X_MIN": 0,
                                  "X_MAX": "UCHAR_MAX", "CH": 3}).get_build_info(
        queue.device, cl.program_build_info.OPTIONS)
    assert f"-DWK_BUILTINS={int(bool(pocl_cpu))}" in opts


def test_a_queue_whose_context_is_gone_gets_a_clear_error(queue):
    """Intel's CPU runtime frees a context whose last pyopencl.Context was released even while a
    queue uses it; reading ``queue.context`` then fails. warpkit names the cause."""
    import pytest

    from warpkit.runtime import Runtime

    class Orphan:
        device = queue.device

        @property
        def context(self):
            raise cl.LogicError("clRetainContext failed: INVALID_CONTEXT")

    with pytest.raises(RuntimeError, match=r"the context of this queue is gone \(clRetainContext "
                                           r"failed: INVALID_CONTEXT\): keep a reference to the "
                                           r"pyopencl.Context"):
        Runtime(Orphan())
    rt = Runtime(queue, context=queue.context)  # given explicitly, it is held
    assert rt.context == queue.context


def _warnings(log: str) -> list[str]:
    return [ln for ln in log.splitlines() if "warning" in ln.lower()]


def test_kernels_build_without_compiler_warnings(oclgrind_queue):
    """A warning in a kernel's source reaches the user: PoCL prints "1 warning generated." on
    stderr when it compiles one, the warning itself out of sight. Oclgrind compiles every
    program anew and keeps its diagnostics in the build log, so the warp's kernels of every
    dtype and interpolation, and every other program this process has built there, must build
    without one. (The general kernel's uint16 and int32 nearest store tested ``ss == 1 &&
    !area``, ``area`` a constant 0 without the area filter: clang's -Wconstant-logical-operand.)"""
    import warpkit.programs as P

    ctx = oclgrind_queue.context
    m = np.array([[0.9, 0.1, 0.5], [-0.1, 1.1, 0.25]], np.float32)
    for dtype in (np.uint8, np.uint16, np.int32, np.float32):
        for interpolation in ("nearest", "linear", "cubic"):
            warpkit.warp_affine(np.ones((5, 6, 3), dtype), m, (4, 3),
                                interpolation=interpolation, queue=oclgrind_queue)
    built = {key: prg for key, prg in list(P._CACHE._progs.items()) if key[0] == ctx.int_ptr}
    assert len(built) >= 12
    logs = {key[2]: _warnings(prg.get_build_info(oclgrind_queue.device,
                                                 cl.program_build_info.LOG))
            for key, prg in built.items()}
    assert not any(logs.values()), {k: v for k, v in logs.items() if v}
    # the check sees what it looks for: a source that warns, built as warpkit builds (from
    # source every time; pyopencl's own Program.build would find a second run's binary in its
    # disk cache, which has no log)
    src = "__kernel void k(__global int *y) { const int a = 0; if (y[0] == 1 && !a) y[0] = 2; }"
    log = P._build_source(ctx, src, ()).get_build_info(oclgrind_queue.device,
                                                      cl.program_build_info.LOG)
    assert _warnings(log), log


_HALF_KERNELS = r"""
__kernel void to_float(__global const ushort *h, __global float *f) {
    const int i = get_global_id(0);
    f[i] = wk_half_to_float(h[i]);
}
__kernel void to_half(__global const float *f, __global ushort *h) {
    const int i = get_global_id(0);
    h[i] = (ushort)wk_half_bits(f[i]);
}
__kernel void to_half8(__global const float *f, __global ushort *h) { /* 8 values a work-item */
    const int i = 8 * get_global_id(0);
    WK_STORE8(uint8, wk_half_bits8(WK_LOAD8(f + i)), h + i);
}
"""


def _half_boundaries() -> np.ndarray:
    """Floats where rounding to half is decided: every finite half, the midpoints between
    neighbours (ties, to even) and the floats one step either side of them, the overflow
    threshold, subnormals, infinities and NaNs of both signs."""
    h = np.arange(0x7c00, dtype=np.uint16).view(np.float16).astype(np.float32)
    mid = (h[:-1].astype(np.float64) + h[1:]) / 2
    mid = mid.astype(np.float32)
    around = np.concatenate([h, mid, np.nextafter(mid, np.float32(0)),
                             np.nextafter(mid, np.float32(np.inf)),
                             np.float32([65504, 65519.996, 65520, 65536, 1e30, np.inf, np.nan,
                                         1e-45, 2.0**-25, 2.0**-24, 2.0**-14])])
    bits = np.concatenate([around.view(np.uint32), np.uint32([0x7f800001, 0x7fffffff])])
    return np.concatenate([bits, bits | np.uint32(0x80000000)]).view(np.float32)


def test_half_conversions_match_numpy_bit_for_bit(queue):
    """float16 data is read and written from its bits (kernels_cl/warpkit.h: no cl_khr_fp16,
    and no out-of-line vload_half / vstore_half_rte): every half to float, and every rounding
    boundary to half one value and 8 at a time (the warp's stores of a model's input), as numpy
    converts them; NaN stays NaN with its sign."""
    ctx = queue.context
    defines = "".join(f"#define {k} {v}\n" for k, v in KERNEL_DEFINES.items())
    prg = cl.Program(ctx, defines + load_source("warpkit.h") + _HALF_KERNELS).build()
    mf = cl.mem_flags

    def run(kernel, x, out_dtype, per_item=1):
        out = np.empty(len(x), out_dtype)
        dst = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
        kernel(queue, (len(x) // per_item,), None,
               cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x), dst)
        cl.enqueue_copy(queue, out, dst)
        return out

    halves = np.arange(1 << 16, dtype=np.uint16)
    got = run(prg.to_float, halves, np.float32)
    want = halves.view(np.float16).astype(np.float32)
    nan = np.isnan(want)
    assert (got.view(np.uint32)[~nan] == want.view(np.uint32)[~nan]).all()
    assert np.isnan(got[nan]).all() and (np.signbit(got[nan]) == np.signbit(want[nan])).all()

    floats = _half_boundaries()
    floats = np.concatenate([floats, np.zeros(-len(floats) % 8, np.float32)])  # blocks of 8
    with np.errstate(over="ignore", invalid="ignore"):
        want = floats.astype(np.float16).view(np.uint16)
    nan = np.isnan(floats)
    assert nan.sum() == 6  # three NaNs of each sign
    for got in (run(prg.to_half, floats, np.uint16), run(prg.to_half8, floats, np.uint16, 8)):
        bad = np.flatnonzero((got != want) & ~nan)
        assert not len(bad), [(float(floats[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
        back = got[nan].view(np.float16)
        assert np.isnan(back).all() and (np.signbit(back) == np.signbit(floats[nan])).all()
