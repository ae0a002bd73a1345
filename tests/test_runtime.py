"""The runtime: lazy device choice, WARPKIT_DEVICE, caches, threads, fork, profiling, Oclgrind."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import nullcontext
from types import SimpleNamespace

import numpy as np
import pyopencl as cl
import lane
import pytest

import warpkit
from conftest import REAL, SIMS
from warpkit import devices, programs, runtime


def _run_py(code: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter, outside the checkout (so the installed package is used)."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=e, timeout=timeout, cwd=tempfile.gettempdir())


def test_import_touches_no_opencl():
    code = (
        "import pyopencl as cl\n"
        "def boom(*a, **k): raise SystemExit('OpenCL touched at import')\n"
        "cl.get_platforms = boom\n"
        "cl.Context = boom\n"
        "import warpkit, warpkit.runtime as r, warpkit.devices as d\n"
        "assert r._default is None and not d._opencl_used\n"
        "print('ok')\n"
    )
    r = _run_py(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_list_devices_reports_capabilities():
    entries = warpkit.list_devices()
    assert entries, "no OpenCL device"
    for e in entries:
        assert e.index.count(":") == 1 and e.max_alloc > 0 and e.kind in (
            "GPU", "CPU", "ACCELERATOR", "OTHER", "SIMULATOR")
        assert isinstance(e.fp64, bool) and isinstance(e.fp16, bool)
    assert all(e.kind == "SIMULATOR" for e in entries if "oclgrind" in e.platform.lower())


def test_default_prefers_real_devices(monkeypatch):
    monkeypatch.delenv("WARPKIT_DEVICE", raising=False)
    entry, why = runtime.choose_device(None)
    if REAL:
        assert not entry.is_simulator
        assert why in ("first GPU", "no GPU; first CPU device")


@pytest.mark.parametrize("spec_of", [lambda e: e.index, lambda e: e.name.upper()[:8],
                                     lambda e: e.index.split(":")[0]])
def test_warpkit_device_env(spec_of, monkeypatch):
    for e in warpkit.list_devices():
        monkeypatch.setenv("WARPKIT_DEVICE", spec_of(e))
        chosen, why = runtime.choose_device(None)
        assert chosen.platform == e.platform and why.startswith("WARPKIT_DEVICE=")


def test_device_spec_errors():
    with pytest.raises(ValueError, match=r"device '9:9' not found; available: "):
        runtime.choose_device("9:9")
    with pytest.raises(ValueError, match=r"no OpenCL device matches 'no-such-gpu'; available: "):
        runtime.choose_device("no-such-gpu")


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_spec_is_unset_everywhere(blank, monkeypatch, tmp_path):
    """A blank device spec is unset, as a blank WARPKIT_DEVICE is, in choose_device,
    set_device, check and the CLI: as a name substring it matched every device and picked the
    first listed (the Oclgrind simulator here: a 1080p warp took 17 s instead of 0.8)."""
    from typer.testing import CliRunner

    from warpkit.cli.app import app

    monkeypatch.delenv("WARPKIT_DEVICE", raising=False)
    default, why = runtime.choose_device(None)
    assert runtime.choose_device(blank) == (default, why)
    monkeypatch.setenv("WARPKIT_DEVICE", blank)
    assert runtime.choose_device(None) == (default, why)
    assert runtime.choose_device(blank) == (default, why)
    if REAL:
        assert not default.is_simulator
    old = runtime._default
    try:
        assert warpkit.set_device(blank).index == default.index
        report = warpkit.check(blank)
        assert report.device.startswith(default.name)
        from PIL import Image

        Image.new("RGB", (8, 6)).save(tmp_path / "a.png")
        res = CliRunner().invoke(app, ["warp", str(tmp_path / "a.png"), "-o",
                                       str(tmp_path / "b.png"), "--rotate", "5", "--device",
                                       blank])
        assert res.exit_code == 0, res.output
        assert warpkit.get_runtime().index == default.index
    finally:
        runtime._default = old


def test_set_device_and_env_subprocess():
    """WARPKIT_DEVICE picks the device a fresh process uses, and the runtime says why."""
    target = (REAL + SIMS)[-1]
    code = ("import warpkit, numpy as np\n"
            "warpkit.grid_sample(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 1, 2), np.float32))\n"
            "rt = warpkit.get_runtime(); print(rt.index, '|', rt.reason)\n")
    r = _run_py(code, {"WARPKIT_DEVICE": target.index})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("|")[0].strip() == target.index
    assert "WARPKIT_DEVICE" in r.stdout


def test_set_device_changes_default():
    old = runtime._default
    try:
        rt = warpkit.set_device(REAL[0].index if REAL else SIMS[0].index)
        assert warpkit.get_runtime() is rt and "selected" in rt.reason
        assert rt.describe().startswith(rt.name)
    finally:
        runtime._default = old


def test_import_leaves_pillow_alone():
    """Pillow loads only for those who use it (15 ms of import time): a Pillow image can only
    be passed in if the caller imported Pillow."""
    r = _run_py("import sys, warpkit\nprint('PIL.Image' in sys.modules)")
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


def test_program_cache_is_shared_and_clearable(queue):
    rt = warpkit.runtime_for_queue(queue)
    d = {"R": 2, "MODE": 1}
    p1 = rt.program("grid_sample.cl", d)
    assert rt.program("grid_sample.cl", dict(d)) is p1
    assert rt.program("grid_sample.cl", {"R": 2, "MODE": 0}) is not p1
    warpkit.clear_cache()
    assert len(programs._CACHE) == 0
    assert rt.program("grid_sample.cl", d) is not p1


_K = "__kernel void k(__global int *a) { a[get_global_id(0)] = VALUE + (int)get_global_id(0); }"


def _is_pocl(queue) -> bool:
    return "portable computing language" in queue.device.platform.name.lower()


def _run_k(prg, queue) -> list[int]:
    a = np.zeros(4, np.int32)
    buf = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, a.nbytes)
    cl.Kernel(prg, "k")(queue, (4,), None, buf)
    cl.enqueue_copy(queue, a, buf)
    return a.tolist()


def test_program_binaries_on_disk(queue, tmp_path, monkeypatch):
    """On PoCL a built program's binary is kept on disk and the next build (another process, or
    here a fresh program cache) is made from it; a stale or corrupt file is rebuilt from source
    and replaced; WARPKIT_CACHE_DIR="" keeps nothing; clear_cache(disk=True) removes them."""
    monkeypatch.setenv("WARPKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(programs, "_WARM_BUILD_S", 1e9)  # save even after a cold compile
    ctx, opts = queue.context, ("-DVALUE=7",)
    path = programs._binary_path(ctx, _K, opts)
    if not _is_pocl(queue):
        assert path is None  # only PoCL: other drivers keep their own binaries
        return
    assert path is not None and path.startswith(str(tmp_path))
    first = programs.ProgramCache().get(ctx, _K, opts)
    assert first.get_info(cl.program_info.SOURCE) and os.path.getsize(path) > 0
    again = programs.ProgramCache().get(ctx, _K, opts)
    assert not again.get_info(cl.program_info.SOURCE).strip("\0")  # made from the binary
    assert _run_k(again, queue) == [7, 8, 9, 10]
    assert programs._binary_path(ctx, _K, ("-DVALUE=8",)) != path  # options are in the key
    with open(path, "wb") as f:
        f.write(b"not a binary")
    rebuilt = programs.ProgramCache().get(ctx, _K, opts)
    assert rebuilt.get_info(cl.program_info.SOURCE) and _run_k(rebuilt, queue) == [7, 8, 9, 10]
    assert os.path.getsize(path) > len(b"not a binary")  # replaced by the real binary
    warpkit.clear_cache(disk=True)
    assert not os.path.exists(path)
    monkeypatch.setenv("WARPKIT_CACHE_DIR", "")
    assert programs.program_cache_dir() is None and programs._binary_path(ctx, _K, opts) is None


def test_a_program_without_kernels_is_never_used(queue, tmp_path, monkeypatch):
    """A build that gives no kernels raises a RuntimeError that says so (not INVALID_KERNEL_NAME
    at the kernel's creation); such a binary on disk is dropped and the source built anew."""
    monkeypatch.setenv("WARPKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(programs, "_WARM_BUILD_S", 1e9)
    ctx, opts = queue.context, ("-DVALUE=3",)
    with pytest.raises(RuntimeError, match="program without kernels"):
        programs.ProgramCache().get(ctx, "int f(int x) { return x; }\n", ())
    path = programs._binary_path(ctx, _K, opts)
    if path is None:  # (only PoCL's binaries are kept)
        return
    empty = cl.Program(ctx, "int g(int x) { return x; }\n").build()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(empty.binaries[0])
    rebuilt = programs.ProgramCache().get(ctx, _K, opts)
    assert rebuilt.get_info(cl.program_info.SOURCE) and _run_k(rebuilt, queue) == [3, 4, 5, 6]


_LATER_PROCESS = """
import numpy as np, warpkit.augment as W
img = np.random.default_rng(0).integers(0, 256, (40, 50, 3), np.uint8)
aug = W.Compose([W.Affine(rotate=(10, 10), p=1), W.GaussNoise(p=1), W.SaltAndPepper(p=1),
                 W.RandomBrightnessContrast(brightness_by_max=False, p=1), W.GaussianBlur(p=1),
                 W.ImageCompression(p=1)])
for x in (img, img.astype(np.float32) / 255):
    print(float(aug(image=x, seed=1)["image"].astype(np.float64).sum()))
"""


def test_later_processes_build_the_same_kernels(queue):
    """The colour warp and its passes (Philox's 64-bit products, a JPEG round trip's 16-pixel
    rows among them) built in two processes, the first cold, the second from PoCL's cache: each
    has its kernels and gives the same images. PoCL 3.0 returned programs without kernels from
    its cache on CPUs without AVX-512 while wk_mul_hi8 passed a ulong8 to a builtin, and the
    JPEG rows float16 and int16 vectors. (warpkit's binaries, kept only where asked for, are
    test_program_binaries_on_disk's and test_a_program_without_kernels_is_never_used's: saving
    them made PoCL compile each program of the pipeline again.)"""
    if not _is_pocl(queue):
        pytest.skip("PoCL's cache")
    r = lane.result(("later", _entry(queue)), _later)
    assert r.returncode == 0, r.stderr[-2000:]
    sums = r.stdout.splitlines()
    assert len(sums) == 2 and sums[0] == sums[1] and len(sums[0].split()) == 2


_QUIET_BUILDS = """
import numpy as np, warpkit.augment as W
for dt, shape, steps in [
        (np.uint8, (2, 1), [W.GaussianBlur(sigma_limit=(0.8, 0.8), p=1), W.CLAHE(p=1)]),
        (np.float32, (5, 1, 3), [W.ImageCompression(quality_range=(30, 30), p=1)]),
        (np.uint8, (5, 9, 3), [W.UnsharpMask(p=1), W.ZoomBlur(p=1), W.RandomSnow(p=1),
                                 W.Illumination(p=1),
                                 W.RandomGravel(p=1),
                                 W.RandomShadow(p=1), W.Morphological(p=1),
                                 W.RandomSunFlare(p=1), W.RandomFog(p=1),
                                 W.RandomRain(p=1), W.GlassBlur(max_delta=1, p=1)])]:
    pipe = W.Compose([W.RandomAffine(degrees=20, size=(3, 5)), *steps])
    pipe(image=np.zeros(shape, dt), seed=0)
import warpkit
for dt in (np.uint16, np.int32):  # the general kernel (its nearest store warned)
    for mode in ("nearest", "linear", "cubic"):
        warpkit.warp_affine(np.zeros((5, 9, 3), dt), [[0.9, 0.1, 0.5], [-0.1, 1.1, 0.25]],
                            (4, 3), interpolation=mode)
"""


def test_builds_print_no_compiler_warnings(queue):
    """Colour passes' builds (a blur with CLAHE, the JPEG blocks of a float image, an unsharp
    mask, a zoom blur, OpenCV's HLS, a light and a polygon) and the general warp kernel (uint16,
    int32) compile without a warning: PoCL prints "1 warning generated." on the user's stderr
    for each one that does (the first two did: a constant operand, an unroll it could not do;
    the warp's uint16 and int32 nearest builds a constant operand too). Oclgrind's build logs:
    test_portability's test_kernels_build_without_compiler_warnings."""
    if not _is_pocl(queue):
        pytest.skip("PoCL's compiler")
    r = lane.result(("quiet", _entry(queue)), _quiet)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "warning" not in r.stderr, r.stderr[-2000:]


#: the processes of the two tests above, each with a PoCL cache of its own (cold), in the lane
#: beside the suite (tests/lane.py), after the guard pages': the later-process one runs the
#: pipeline twice, the second from the first's cache
_TWICE = """
import subprocess, sys
for _ in range(2):
    r = subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True, text=True,
                       timeout=600)
    sys.stderr.write(r.stderr)
    if r.returncode:
        sys.exit(r.returncode)
    print(" ".join(r.stdout.split()))
"""


def _env(tmp: str) -> dict:
    return {"POCL_CACHE_DIR": os.path.join(tmp, "pocl"), "WARPKIT_CACHE_DIR": ""}


def _later(tmp: str):
    return [sys.executable, "-c", _TWICE, _LATER_PROCESS], _env(tmp)


def _quiet(tmp: str):
    return [sys.executable, "-c", _QUIET_BUILDS], _env(tmp)


def _entry(queue) -> str:
    """The lane's name for the device of ``queue`` (and of a ``queue`` parameter's entry)."""
    return queue.device.platform.name + "/" + queue.device.name


def _pocl_job(key: str, make):
    def job(item):
        entry = item.callspec.params.get("queue")
        if entry is None or not _is_pocl(entry):
            return None
        return ((key, _entry(entry)), make, False)
    return job


LANE = {"test_later_processes_build_the_same_kernels": ((2, 0), _pocl_job("later", _later)),
        "test_builds_print_no_compiler_warnings": ((2, 1), _pocl_job("quiet", _quiet))}


def test_program_cache_bounded():
    cache = programs.ProgramCache(maxsize=2)
    rt = runtime.get_runtime()
    for i in range(4):
        cache.get(rt.context, f"__kernel void k{i}(__global int *a) {{ a[0] = {i}; }}", ())
    assert len(cache) == 2


def test_threads_share_a_queue(queue):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2, 3, 20, 24)).astype(np.float32)
    grids = [rng.uniform(-1.2, 1.2, (2, 9, 11, 2)).astype(np.float32) for _ in range(8)]
    expected = [warpkit.grid_sample(X, g, "cubic", queue=queue) for g in grids]
    warpkit.clear_cache()  # threads race to build the same program
    results: list = [None] * len(grids)
    errors: list = []

    def work(i):
        try:
            for _ in range(3):
                results[i] = warpkit.grid_sample(X, grids[i], "cubic", queue=queue)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(grids))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r, e)


FORK_CODE = """
import os, sys, numpy as np, warpkit
X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
g = np.zeros((1, 1, 1, 2), np.float32)
parent = warpkit.grid_sample(X, g, align_corners=True).item()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        msg = 'ok %s' % warpkit.grid_sample(X, g, align_corners=True).item()
    except RuntimeError as e:
        msg = 'error ' + str(e)
    os.write(w, msg.encode()); os._exit(0)
os.close(w)
_, status = os.waitpid(pid, 0)
print(parent, '|', os.read(r, 4096).decode())
"""


def test_fork_child_pocl_gets_a_clear_error_not_a_hang():
    pocl = [e for e in REAL if "portable" in e.platform.lower()]
    if not pocl:
        pytest.skip("PoCL not present")
    r = _run_py(FORK_CODE, {"WARPKIT_DEVICE": pocl[0].index}, timeout=60)
    assert r.returncode == 0, r.stderr
    parent, child = r.stdout.split("|")
    assert parent.strip() == "7.5"
    assert child.strip().startswith("error this process was forked after its parent used OpenCL")
    assert "'spawn'" in child


def test_a_forked_child_whose_driver_lists_nothing_is_told_why(monkeypatch):
    """NVIDIA's OpenCL (CUDA underneath) lists no platform's devices in a child forked after the
    parent used it (seen on an H200): the child must get the fork's message, not "install a
    device"; without the fork, the message still says how to install one."""
    monkeypatch.setattr(devices, "list_devices", lambda: [])
    monkeypatch.setattr(devices, "_forked_after_use", False)
    for spec in (None, "nvidia"):
        with pytest.raises(RuntimeError, match=r"no OpenCL device found: install one"):
            devices.choose_device(spec)
    monkeypatch.setattr(devices, "_forked_after_use", True)
    for spec in (None, "nvidia"):
        with pytest.raises(RuntimeError, match=r"forked after its parent used OpenCL, and no "
                                               r"OpenCL device can be listed.*'spawn'"):
            devices.choose_device(spec)


def test_fork_child_gets_a_fresh_context_where_the_driver_allows():
    if not SIMS:
        pytest.skip("Oclgrind not installed")
    r = _run_py(FORK_CODE, {"WARPKIT_DEVICE": SIMS[0].index}, timeout=60)
    assert r.returncode == 0, r.stderr
    parent, child = r.stdout.split("|")
    assert parent.strip() == "7.5" and child.strip() == "ok 7.5"


def test_spawned_process_after_parent_use_works(tmp_path):
    code = ("import multiprocessing as mp, numpy as np, warpkit\n"
            "def f(_):\n"
            "    X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)\n"
            "    return warpkit.grid_sample(X, np.zeros((1, 1, 1, 2), np.float32), align_corners=True).item()\n"
            "if __name__ == '__main__':\n"
            "    print(f(0))\n"
            "    with mp.get_context('spawn').Pool(1) as p: print(p.map(f, [0])[0])\n")
    script = tmp_path / "spawn_demo.py"  # spawn re-imports the main module: it needs a file
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["7.5", "7.5"]


def test_profile_records_kernels(queue):
    pq = cl.CommandQueue(queue.context, queue.device,
                         properties=cl.command_queue_properties.PROFILING_ENABLE)
    X = np.ones((1, 2, 8, 8), np.float32)
    with runtime.profile() as prof:
        warpkit.grid_sample(X, np.zeros((1, 4, 4, 2), np.float32), queue=pq)
    want = "grid_sample_v" if warpkit.runtime_for_queue(pq).cpu_like else "grid_sample"
    assert [n for n, _ in prof.events] == [want]
    assert prof.kernel_seconds() > 0


def test_queue_argument_type_checked():
    with pytest.raises(TypeError, match=r"queue must be a pyopencl.CommandQueue or None, got int"):
        warpkit.runtime_for_queue(3)


def test_oclgrind_harness_catches_invalid_access(oclgrind_queue, capfd):
    """The memory check that guards the small conformance cases can fail."""
    q = oclgrind_queue
    prg = cl.Program(q.context,
                     "__kernel void k(__global float *a) { a[get_global_id(0) + 4] = 1; }").build()
    buf = cl.Buffer(q.context, cl.mem_flags.READ_WRITE, 16)
    prg.k(q, (4,), None, buf)
    q.finish()
    assert "Invalid write" in capfd.readouterr().err


def test_host_pool_recycles_only_unreferenced_memory():
    """Large results reuse the memory of dropped ones, never of one a view still keeps alive."""
    import gc

    from warpkit._memory import HostPool

    pool = HostPool(size_bytes=4 << 20, min_blocks=1)
    a = pool.empty((1024, 1024), np.float32)
    assert a.flags.c_contiguous and a.flags.writeable and a.dtype == np.float32
    assert a.ctypes.data % 64 == 0  # cache-line aligned: kernels may use aligned vector stores
    addr = a.ctypes.data
    view = a[10:20, ::2]
    del a
    gc.collect()
    b = pool.empty((1024, 1024), np.float32)
    assert b.ctypes.data != addr  # the view still holds the first block
    b[:] = 1
    view[:] = 7
    assert (b == 1).all()
    del view, b
    gc.collect()
    assert pool.held_bytes == 4 << 20  # one block kept (4 MiB of a size), the other freed
    c = pool.empty((2048, 512), np.int32)  # same size, other shape and dtype
    assert pool.held_bytes == 0 and c.shape == (2048, 512) and c.ctypes.data % 64 == 0
    small = pool.empty((10,), np.uint8)  # small arrays come straight from numpy
    assert small.base is None
    del c
    gc.collect()
    pool.clear()
    assert pool.held_bytes == 0


def test_operator_results_use_the_pool_and_clear_cache_empties_it(queue):
    import gc

    from warpkit import _memory

    img = np.zeros((600, 800, 3), np.uint8)
    out = warpkit.warp_affine(img, np.eye(3), queue=queue)
    addr = out.ctypes.data
    del out
    gc.collect()
    assert _memory.HOST_POOL.held_bytes >= img.nbytes
    again = warpkit.warp_affine(img + 5, np.eye(3), queue=queue)
    assert again.ctypes.data == addr and (again == 5).all()
    del again
    gc.collect()
    runtime.clear_cache()
    assert _memory.HOST_POOL.held_bytes == 0


def _every_operator(q: cl.CommandQueue) -> list[np.ndarray]:
    """One small call of each operator on ``q`` (the same inputs every time): host inputs, and a
    device X for GridSample and RoiAlign (12 channels: RoiAlign's channels-last path too)."""
    import pyopencl.array as cla

    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    m = warpkit.geometry.rotation(20, (24.5, 19.5))
    X = rng.standard_normal((2, 12, 9, 11)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (2, 5, 7, 2)).astype(np.float32)
    theta = rng.standard_normal((2, 2, 3)).astype(np.float32)
    rois = np.array([[0, 0, 8, 6], [2, 1, 10, 8]], np.float32)
    bidx = np.array([0, 1])
    Xd = cla.to_device(q, X)
    return [warpkit.warp_affine(img, m, queue=q),
            warpkit.grid_sample(X, grid, "cubic", "reflection", queue=q),
            warpkit.grid_sample(Xd, grid, queue=q).get(),
            warpkit.affine_grid(theta, (2, 3, 6, 5), queue=q),
            warpkit.roi_align(X, rois, bidx, output_height=3, output_width=3, queue=q),
            warpkit.roi_align(Xd, rois, bidx, output_height=3, output_width=3, queue=q).get()]


@pytest.mark.parametrize("coherent", [True, False])
def test_host_results_with_and_without_the_map(small_queue, coherent, monkeypatch):
    """Where the device writes host-pointer buffers in place (Runtime.host_coherent, probed with
    a fill), a host result is ready once its kernel's event completes; elsewhere it is mapped.
    Both ways give the same results, for every operator's finish."""
    rt = warpkit.runtime_for_queue(small_queue)
    assert isinstance(rt.host_coherent, bool)
    if rt.kind == "CPU":
        assert rt.host_coherent  # PoCL works in the host memory itself
    monkeypatch.setattr(rt, "_host_coherent", coherent)
    got = _every_operator(small_queue)
    monkeypatch.setattr(rt, "_host_coherent", not coherent)
    for a, b in zip(got, _every_operator(small_queue)):
        np.testing.assert_array_equal(a, b)


def test_device_results_reuse_pooled_memory_and_overwrite_it(small_queue):
    """A dropped device result's memory serves the next result of its size; every element of
    the new result is written (the recycled memory is poisoned first); clear_cache gives it back."""
    import gc

    import pyopencl.array as cla

    rng = np.random.default_rng(11)
    X = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (2, 5, 7, 2)).astype(np.float32)
    Xd, gd = cla.to_device(small_queue, X), cla.to_device(small_queue, grid)
    first = warpkit.grid_sample(Xd, gd, queue=small_queue)
    ptr = first.base_data.int_ptr
    # poison (a fill command: pyopencl's fill kernel draws a compiler warning on NVIDIA)
    cl.enqueue_fill_buffer(small_queue, first.base_data, np.float32(np.nan), 0, first.nbytes)
    del first
    gc.collect()
    rt = warpkit.runtime_for_queue(small_queue)
    assert rt._pool.held_blocks >= 1
    again = warpkit.grid_sample(Xd, gd, mode="cubic", queue=small_queue)
    assert again.base_data.int_ptr == ptr
    np.testing.assert_array_equal(again.get(), warpkit.grid_sample(X, grid, mode="cubic",
                                                                   queue=small_queue))
    del again
    gc.collect()
    runtime.clear_cache()
    assert rt._pool.held_blocks == 0


def test_pool_holds_at_most_its_cap(queue, monkeypatch):
    import gc

    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "POOL_HELD_BYTES", 1 << 20)
    bufs = [rt.allocate(600 << 10) for _ in range(3)]
    del bufs
    gc.collect()
    pool = rt._pool
    assert pool.managed_bytes - pool.active_bytes >= 3 * (600 << 10)  # held for reuse
    keep = rt.allocate(100)  # over the cap: what is held goes back first
    assert pool.managed_bytes - pool.active_bytes <= 1 << 20
    del keep


def test_out_of_order_queues_get_fresh_buffers(queue):
    """The pool's reuse relies on in-order execution; an out-of-order queue bypasses it."""
    props = cl.command_queue_properties
    if not queue.device.queue_properties & props.OUT_OF_ORDER_EXEC_MODE_ENABLE:
        pytest.skip(f"{queue.device.name} has no out-of-order queues")
    ooo = cl.CommandQueue(queue.context, queue.device, properties=props.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    rt = warpkit.runtime_for_queue(ooo)
    buf = rt.allocate(1000)
    assert type(buf) is cl.Buffer and rt._pool is None


def test_copying_path_matches_zero_copy(small_queue, monkeypatch, fresh_plans):
    """GPUs copy numpy data into pooled device memory and results back out; CPU devices wrap host
    memory. Forcing the copying path on every device gives identical results, for every operator
    and for mixed host and device inputs."""
    rt = warpkit.runtime_for_queue(small_queue)
    want = _every_operator(small_queue)
    monkeypatch.setattr(rt, "zero_copy", False)
    fresh_plans()
    for a, b in zip(_every_operator(small_queue), want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 1, 1), (5,), (), (7, 1, 3, 2), (0, 3), (2, 0, 4)])
def test_device_results_are_ordinary_pyopencl_arrays(shape, queue):
    """Device results are made through pyopencl's fast constructor: every attribute equals what
    the public constructor gives, and the array works as any other."""
    import pyopencl.array as cla

    from warpkit._memory import device_empty

    rt = warpkit.runtime_for_queue(queue)
    for dtype in (np.dtype(np.float32), np.dtype(np.uint16)):
        got = device_empty(rt, tuple(np.int64(d) for d in shape), dtype)
        want = cla.empty(queue, shape, dtype, allocator=rt.allocate)
        for attr in ("shape", "strides", "dtype", "nbytes", "size", "offset", "queue", "context"):
            assert getattr(got, attr) == getattr(want, attr), attr
        assert type(got.shape[0] if shape else 0) is int
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == \
            (want.flags.c_contiguous, want.flags.f_contiguous)
        host = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
        got.set(host)
        np.testing.assert_array_equal(got.get(), host)


def _misaligned(a: np.ndarray, offset: int) -> np.ndarray:
    """A C-contiguous copy of ``a`` whose data starts ``offset`` bytes past a 128-byte boundary."""
    raw = np.zeros(a.nbytes + 256, np.uint8)
    start = (-raw.ctypes.data) % 128 + offset
    out = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("offset", [1, 4, 12, 20, 36])
def test_host_memory_at_any_alignment(offset, queue):
    """numpy gives 16-byte aligned memory (views: any element boundary), and a CPU device reads
    it in place through host-pointer buffers, below the 128 bytes OpenCL promises its own
    buffers: no kernel may use aligned vector accesses on it (PoCL faults on an aligned float8
    store to a 16-byte aligned host pointer). Sizes take every operator's 8-wide paths."""
    rng = np.random.default_rng(17)
    X = rng.standard_normal((2, 3, 40, 72)).astype(np.float32)
    grid = rng.uniform(-1.1, 1.1, (2, 24, 64, 2)).astype(np.float32)
    img = rng.integers(0, 256, (61, 83, 3), dtype=np.uint8)
    theta = rng.standard_normal((2, 2, 3)).astype(np.float32)
    rois = np.array([[0, 0, 30, 20], [5, 3, 70, 39], [-4, -2, 9, 50]], np.float32)
    bidx = np.array([0, 1, 1])
    m = warpkit.geometry.rotation(21, (41, 30))
    f = offset - offset % 4 or 4  # float arrays start on a float boundary

    def calls(a):
        return [*(warpkit.grid_sample(a(X, f), a(grid, f), mode, "border", queue=queue)
                  for mode in ("linear", "nearest", "cubic")),
                *(warpkit.warp_affine(a(img, offset), m, interpolation=i, queue=queue)
                  for i in ("nearest", "linear", "cubic")),
                warpkit.warp_affine(a(img[..., :1], offset), m, queue=queue),
                warpkit.affine_grid(a(theta, f), (2, 1, 24, 64), queue=queue),
                warpkit.roi_align(a(X, f), a(rois, f), bidx, output_height=5, output_width=5,
                                  queue=queue)]

    for got, want in zip(calls(_misaligned), calls(lambda a, _: np.ascontiguousarray(a))):
        np.testing.assert_array_equal(got, want)


def test_every_operator_refuses_buffers_beyond_one_allocation(queue, monkeypatch, fresh_plans):
    """Each operator checks its buffers against the device's allocation limit before anything is
    allocated or launched, with one message naming the buffer, its size, the limit and the device
    (GridSample splits host batches instead; a device output it cannot split)."""
    import pyopencl.array as cla

    rt = warpkit.runtime_for_queue(queue)
    X = np.zeros((1, 4, 16, 16), np.float32)  # 4096 bytes
    Xd = cla.to_device(queue, X)
    monkeypatch.setattr(rt, "max_alloc", 3000)
    fresh_plans()
    limit = rf"exceeds the device's maximum allocation of 3000 bytes \({re.escape(rt.name)}\)"
    calls = [
        (lambda: warpkit.warp_affine(np.zeros((60, 60), np.uint8), np.eye(3), queue=queue),
         "the 60x60 uint8 output"),
        (lambda: warpkit.warp_affine(np.zeros((60, 60), np.uint8), np.eye(3), size=(8, 8),
                                     queue=queue), "the image"),
        (lambda: warpkit.affine_grid(np.zeros((1, 2, 3), np.float32), (1, 1, 20, 20), queue=queue),
         "the grid"),
        (lambda: warpkit.roi_align(X, np.zeros((1, 4), np.float32), np.zeros(1, np.int64),
                                   queue=queue), "X"),
        (lambda: warpkit.roi_align(X[:, :, :8], np.zeros((40, 4), np.float32),
                                   np.zeros(40, np.int64), output_height=3, output_width=3,
                                   queue=queue), "the 40x4x3x3 float32 output"),
        (lambda: warpkit.grid_sample(Xd, np.zeros((1, 2, 2, 2), np.float32)), "X"),
        (lambda: warpkit.grid_sample(Xd[:, :, :8, :8], np.zeros((1, 20, 20, 2), np.float32)),
         "the output"),
    ]
    for call, what in calls:
        with pytest.raises(ValueError, match=rf"^{what} \(\d+ bytes\) {limit}"):
            call()
            pytest.fail(f"{what}: not refused")


def test_device_results_return_without_waiting(queue):
    """A call on device arrays only queues its kernels: with the queue held by a user event it
    returns at once, its result carrying the kernel's event (not complete yet); released, the
    result is right. Every operator, a warp, and a training step's augmentation pipeline (an
    elastic stage included) stay queued the same way."""
    import pyopencl.array as cla

    from warpkit import augment

    rng = np.random.default_rng(3)
    X = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    grid = rng.uniform(-1, 1, (2, 8, 8, 2)).astype(np.float32)
    img = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    theta = rng.uniform(-1, 1, (2, 2, 3)).astype(np.float32)
    rois = np.array([[0, 0, 9, 9], [3, 2, 15, 12]], np.float32)
    bidx = np.array([1, 0], np.int64)
    batch = rng.integers(0, 256, (3, 24, 32, 3), dtype=np.uint8)
    masks = rng.integers(0, 4, (3, 24, 32), dtype=np.uint8)
    pipe = augment.Compose([augment.RandomAffine(degrees=20, scale=(0.8, 1.2), p=1.0),
                            augment.ElasticTransform(alpha=30, sigma=5, p=1.0),
                            augment.RandomHorizontalFlip(p=0.5)])
    dev = [cla.to_device(queue, a) for a in (X, grid, img, theta, rois, bidx, batch, masks)]
    xd, gd, imd, td, rd, bd, batch_d, masks_d = dev
    queue.finish()
    gate = cl.UserEvent(queue.context)
    cl.enqueue_marker(queue, wait_for=[gate])  # the in-order queue waits here
    try:
        got = {
            "grid_sample": warpkit.grid_sample(xd, gd, "cubic", "border", 0),
            "warp_affine": warpkit.warp_affine(imd, [[1, 0.2, 1], [0.1, 1, 2]], (24, 18)),
            "affine_grid": warpkit.affine_grid(td, (2, 3, 5, 7)),
            "roi_align": warpkit.roi_align(xd, rd, bd, output_height=2, output_width=2),
        }
        step = pipe(image=batch_d, mask=masks_d, seed=5)
        got.update({"image": step["image"], "mask": step["mask"]})
        for name, r in got.items():
            assert isinstance(r, cla.Array) and r.events, name
            assert r.events[-1].command_execution_status != \
                cl.command_execution_status.COMPLETE, f"{name} waited"
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    host_step = pipe(image=batch, mask=masks, seed=5, queue=queue)
    want = {
        "grid_sample": warpkit.grid_sample(X, grid, "cubic", "border", 0, queue=queue),
        "warp_affine": warpkit.warp_affine(img, [[1, 0.2, 1], [0.1, 1, 2]], (24, 18), queue=queue),
        "affine_grid": warpkit.affine_grid(theta, (2, 3, 5, 7), queue=queue),
        "roi_align": warpkit.roi_align(X, rois, bidx, output_height=2, output_width=2,
                                       queue=queue),
        "image": host_step["image"], "mask": host_step["mask"],
    }
    for name, r in got.items():
        np.testing.assert_array_equal(r.get(), np.asarray(want[name]), err_msg=name)


def test_device_calls_take_the_short_path(queue, monkeypatch):
    """A plan whose arrays are all on the device binds their buffers directly (no views, no
    Output): the path that keeps a call's host work low; its results equal the host path's."""
    import pyopencl.array as cla

    from warpkit import _op

    rng = np.random.default_rng(4)
    X = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (2, 5, 6, 2)).astype(np.float32)
    rois = np.array([[0, 0, 5, 5], [1, 2, 8, 7]], np.float32)
    want_g = warpkit.grid_sample(X, grid, "cubic", "reflection", 1, queue=queue)
    want_r = warpkit.roi_align(X, rois, [0, 1], output_height=3, output_width=2, queue=queue)
    xd, gd, rd = (cla.to_device(queue, a) for a in (X, grid, rois))
    bd = cla.to_device(queue, np.array([0, 1], np.int64))

    def no_output(*a, **k):
        raise AssertionError("the generic path ran")

    with monkeypatch.context() as m:
        m.setattr(_op, "Output", no_output)
        y = warpkit.grid_sample(xd[1:], gd[1:], "cubic", "reflection", 1)  # offsets into buffers
        # RoiAlign with its scratch buffer (channels last): device boxes are not read back
        r = warpkit.roi_align(xd, rd, bd, output_height=3, output_width=2)
    np.testing.assert_array_equal(y.get(), want_g[1:])
    np.testing.assert_array_equal(r.get(), want_r)


def test_short_path_rebinds_arguments_when_plans_alternate(queue):
    """Plans of different shapes share a kernel: each call sets what the kernel last had from
    another plan (or from the generic path); only a repeat of the same launch sets just its
    buffers. Alternating calls stay right."""
    import pyopencl.array as cla

    rng = np.random.default_rng(6)
    cases = []
    for shape, gshape in (((1, 2, 7, 9), (1, 4, 5, 2)), ((2, 2, 5, 6), (2, 3, 8, 2))):
        X = rng.standard_normal(shape).astype(np.float32)
        grid = rng.uniform(-1.1, 1.1, gshape).astype(np.float32)
        cases.append((X, grid, cla.to_device(queue, X), cla.to_device(queue, grid),
                      warpkit.grid_sample(X, grid, "linear", "border", 0, queue=queue)))
    for k in range(6):
        X, grid, xd, gd, want = cases[k % 2]
        if k == 3:  # the generic path in between, on the same kernel
            np.testing.assert_array_equal(
                warpkit.grid_sample(X, grid, "linear", "border", 0, queue=queue), want)
        for _ in range(2):
            y = warpkit.grid_sample(xd, gd, "linear", "border", 0)
            np.testing.assert_array_equal(y.get(), want)


def test_device_results_from_the_template_are_whole_arrays(queue):
    """A plan's later device results copy the first one's attributes: each has its own buffer and
    event list, its flags computed afresh, and everything else as pyopencl's constructor makes
    it."""
    import pyopencl.array as cla

    from warpkit._memory import DeviceResults

    rt = warpkit.runtime.runtime_for_queue(queue)
    maker = DeviceResults((2, 3, 5), np.dtype(np.float32))
    first, second, third = maker.new(rt), maker.new(rt), maker.new(rt)
    ref = cla.empty(queue, (2, 3, 5), np.float32)
    for a in (first, second, third):
        assert type(a) is cla.Array
        for name in ("shape", "strides", "dtype", "size", "nbytes", "offset", "queue", "context"):
            assert getattr(a, name) == getattr(ref, name), name
        assert a.flags.c_contiguous and a.events == []
    assert len({id(a.base_data) for a in (first, second, third)}) == 3
    assert second.events is not third.events
    ev = cl.enqueue_marker(queue)
    second.add_event(ev)
    assert third.events == [] and second.events == [ev]
    for k, a in enumerate((first, second, third)):
        a.fill(np.float32(k))
    np.testing.assert_array_equal(second.get(), np.full((2, 3, 5), 1, np.float32))
    np.testing.assert_array_equal(third.get(), np.full((2, 3, 5), 2, np.float32))
    empty = DeviceResults((0, 4), np.dtype(np.uint8))  # nothing to allocate: no template
    assert empty.new(rt).shape == (0, 4) and empty.new(rt).size == 0


POCL_VARS = ("POCL_AFFINITY", "POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_NUM")


def _without_pocl_vars(monkeypatch) -> None:
    """None of PoCL's thread settings in os.environ for this test, and the session's own back
    after it (monkeypatch restores a variable only if it held one when first touched: set
    first, so that what the code under test sets is undone too)."""
    for var in POCL_VARS:
        monkeypatch.setenv(var, "")
        monkeypatch.delenv(var)


@pytest.mark.parametrize("cpus, allowed, env, pinned", [
    (4, {0, 1, 2, 3}, {}, True),
    (4, {0, 1, 2, 3}, {"POCL_MAX_PTHREAD_COUNT": "4"}, True),
    (4, {0, 1, 2, 3}, {"POCL_AFFINITY": "0"}, False),  # the user's choice stands
    (4, {0, 1, 2, 3}, {"POCL_MAX_PTHREAD_COUNT": "2"}, False),  # processes sharing a host
    (4, {0, 1, 2, 3}, {"POCL_CPU_MAX_CU_NUM": "1"}, False),
    (4, {2, 3}, {}, False),  # a cpuset without CPU 0: thread 0 could not be pinned there
    (1, {0}, {}, False),
])
def test_pocl_threads_pinned_only_where_safe(monkeypatch, cpus, allowed, env, pinned):
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(allowed), raising=False)
    _without_pocl_vars(monkeypatch)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert devices._pin_pocl_threads() is pinned
    assert os.environ.get("POCL_AFFINITY") == ("1" if pinned else env.get("POCL_AFFINITY"))


def test_pinning_is_set_for_the_platforms_look_only(monkeypatch):
    """PoCL reads POCL_AFFINITY while list_devices looks at the platforms; afterwards it is gone
    again, so child processes do not inherit it, and the pinning happened."""
    seen = []

    def platforms():
        seen.append(os.environ.get("POCL_AFFINITY"))
        return []

    monkeypatch.setattr(devices, "_pin_pocl_threads",
                        lambda: os.environ.__setitem__("POCL_AFFINITY", "1") or True)
    _without_pocl_vars(monkeypatch)
    monkeypatch.setattr(cl, "get_platforms", platforms)
    assert devices.list_devices() == []
    assert seen == ["1"] and "POCL_AFFINITY" not in os.environ


@pytest.mark.skipif(not any("portable computing" in e.platform.lower() for e in REAL),
                    reason="PoCL's own threads")
def test_pocl_threads_are_pinned_in_a_fresh_process():
    """In a fresh process on this host (every CPU allowed), PoCL's worker threads end up each
    on one CPU, and the environment holds no POCL_AFFINITY afterwards."""
    if len(os.sched_getaffinity(0)) < 2 or os.sched_getaffinity(0) != set(
            range(os.cpu_count() or 0)):
        pytest.skip("pinned only where the process may run on every CPU")
    code = ("import glob, json, os, warpkit; warpkit.list_devices(); "
            "print(json.dumps([[open(t).read().split('Cpus_allowed_list:')[1].split()[0] "
            "for t in glob.glob('/proc/self/task/*/status')], "
            "os.environ.get('POCL_AFFINITY')]))")
    env = {k: v for k, v in os.environ.items() if k not in POCL_VARS}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    cpus, left = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(c for c in cpus if c.isdigit()) == [str(i) for i in range(os.cpu_count())]
    assert left is None


def test_dask_workers_with_thread_counts_are_never_pinned(monkeypatch):
    """A worker given PoCL threads of its own unpins them, even under a parent that pinned."""
    from warpkit import dist

    # the device it would then choose is not what this test is about: nothing is switched
    chosen = []
    monkeypatch.setattr(warpkit, "set_device", lambda spec: chosen.append(spec) or SimpleNamespace(
        index="0:0", name="cpu", platform="p", compute_units=1))
    monkeypatch.setattr(dist, "_APPLIED", object())
    _without_pocl_vars(monkeypatch)
    monkeypatch.setenv("POCL_AFFINITY", "1")

    class Worker:
        address, name = "tcp://127.0.0.1:4000", "w0"

    dist.DevicePlugin(device="cpu", cpu_threads={"127.0.0.1": 1}).setup(Worker())
    assert chosen == ["cpu"]
    assert os.environ["POCL_AFFINITY"] == "0"
    assert os.environ["POCL_MAX_PTHREAD_COUNT"] == "1"


def test_host_pool_takes_back_a_batch_of_results_of_one_size():
    """Results kept while more are made (a batch warped image by image, then stacked) all come
    back to the pool, and the next batch is made of the same, already faulted-in, memory."""
    import gc

    from warpkit._memory import HostPool

    pool = HostPool()
    shape = (384, 512, 3)  # 576 KiB: below 1 MiB, above malloc's give-back threshold
    batch = [pool.empty(shape, np.uint8) for _ in range(40)]
    addrs = {a.ctypes.data for a in batch}
    assert len(addrs) == 40
    del batch
    gc.collect()
    assert pool.held_bytes == 40 * math.prod(shape)
    again = [pool.empty(shape, np.uint8) for _ in range(40)]
    assert {a.ctypes.data for a in again} == addrs and pool.held_bytes == 0
    del again
    gc.collect()
    small = HostPool(size_bytes=3 * math.prod(shape))  # 3 blocks of a size at most
    kept = [small.empty(shape, np.uint8) for _ in range(5)]
    del kept
    gc.collect()
    assert small.held_bytes == 3 * math.prod(shape)
    assert HostPool().empty((100, 100), np.uint8).base is None  # 10 KB: malloc's


def test_one_warp_plan_serves_host_images_of_every_size(small_queue, fresh_plans):
    """A host image's sizes and strides are values of each call: photos of many sizes share one
    plan (one made per size cost a single-image call ~110 us), and calls that alternate sizes on
    the same kernel each get their own (compared with each image warped under a plan of its
    own), in uint8 (the 8-wide kernel's word reads and interior path), float32 (the 8-wide
    kernel) and uint16 (the per-pixel kernel)."""
    from warpkit.engine import plan as engine_plan

    rng = np.random.default_rng(11)
    m = np.array([[0.9, 0.12, 3.0], [-0.1, 1.05, 2.0]])
    for dtype in (np.uint8, np.float32, np.uint16):
        images = [rng.integers(0, 256, shape).astype(dtype)
                  for shape in ((37, 45, 3), (64, 33, 3), (9, 70, 3), (37, 45, 3)[:2], (2, 2))]
        want = []
        for img in images:  # each under a plan of its own
            engine_plan.PLANS.clear()
            want.append(warpkit.warp_affine(img, m, (29, 23), queue=small_queue))
        engine_plan.PLANS.clear()
        for rnd in range(2):
            for img, w in zip(images if rnd == 0 else images[::-1], want if rnd == 0 else want[::-1]):
                np.testing.assert_array_equal(warpkit.warp_affine(img, m, (29, 23), queue=small_queue), w)
        # (H, W, 3) images share one plan; (H, W) ones another
        assert len(engine_plan.PLANS) == 2


# --- PoCL on a CPU its LLVM 14 does not know (warpkit/_pocl_cpu.py) ---------------------------

HASWELL_FLAGS = {"sse2", "ssse3", "sse4_1", "cx16", "avx", "avx2", "popcnt", "abm", "f16c", "fma",
                 "bmi1", "bmi2"}


@pytest.mark.parametrize("flags, cpu", [
    (set(), None),
    ({"sse2"}, "x86-64"),
    ({"sse2", "ssse3", "cx16"}, "core2"),
    ({"sse2", "ssse3", "sse4_1", "cx16"}, "penryn"),
    ({"sse2", "sse4_1", "cx16", "avx", "popcnt"}, "sandybridge"),
    ({"sse2", "cx16", "avx", "popcnt", "f16c"}, "ivybridge"),
    ({"sse2", "cx16", "avx", "popcnt", "f16c", "xop", "fma4"}, "bdver1"),
    (HASWELL_FLAGS, "haswell"),
    (HASWELL_FLAGS - {"bmi2"}, "ivybridge"),  # AVX2 without all of haswell's features
    (HASWELL_FLAGS | {"avx512f", "avx512bw"}, "skylake-avx512"),
])
def test_the_cpu_of_pocls_kernel_library(flags, cpu):
    """The same choice as PoCL's distro build makes of its kernel library, by the same features
    (in /proc/cpuinfo's names), so that warpkit's CPU and the library's agree."""
    from warpkit._pocl_cpu import distro_cpu
    assert distro_cpu(flags) == cpu


class _FakeDevice:
    """A stand-in for PoCL's device object: a table of pointers, one to a malloc'ed "generic"
    (as PoCL keeps its LLVM CPU name), among others to other strings and to nothing."""

    def __init__(self, name: bytes = b"generic"):
        import ctypes
        self.libc = ctypes.CDLL(None)
        self.libc.malloc.restype = ctypes.c_void_p
        self.libc.free.argtypes = [ctypes.c_void_p]
        self.other = ctypes.create_string_buffer(b"pthread")
        self.name = self.libc.malloc(len(name) + 1)
        ctypes.memmove(self.name, name + b"\0", len(name) + 1)
        self.table = (ctypes.c_uint64 * 64)()
        self.table[3] = ctypes.addressof(self.other)
        self.table[7] = 12345  # not a mapped address: never read
        self.table[40] = self.name
        self.ptr = ctypes.addressof(self.table)

    def string(self) -> bytes:
        import ctypes
        return ctypes.string_at(self.name)

    def close(self) -> None:
        self.libc.free(self.name)


@pytest.mark.parametrize("env, written", [
    ("haswell", b"haswell"),
    ("znver3", b"znver3"),
    ("off", None),
    ("x" * 40, None),  # longer than malloc gave PoCL's string: never written past it
])
def test_the_generic_cpu_name_is_rewritten_in_place(monkeypatch, env, written):
    from warpkit import _pocl_cpu
    dev = _FakeDevice()
    try:
        monkeypatch.setenv("WARPKIT_POCL_CPU", env)
        assert _pocl_cpu._write_cpu(dev.ptr) == (written.decode() if written else None)
        assert dev.string() == (written or b"generic")
        assert bytes(dev.other.value) == b"pthread"
    finally:
        dev.close()


def test_no_generic_name_no_change(monkeypatch):
    from warpkit import _pocl_cpu
    dev = _FakeDevice(b"znver3")
    try:
        monkeypatch.setenv("WARPKIT_POCL_CPU", "haswell")
        assert _pocl_cpu._write_cpu(dev.ptr) is None and dev.string() == b"znver3"
    finally:
        dev.close()


def test_cpu_named_by_features_when_unset(monkeypatch):
    from warpkit import _pocl_cpu
    dev = _FakeDevice()
    try:
        monkeypatch.delenv("WARPKIT_POCL_CPU", raising=False)
        monkeypatch.setattr(_pocl_cpu, "_cpu_flags", lambda: HASWELL_FLAGS | {"avx512f"})
        assert _pocl_cpu._write_cpu(dev.ptr) == "skylake-avx512"
        assert dev.string() == b"skylake-avx512"
    finally:
        dev.close()


def test_every_real_device_builds_and_a_generic_pocl_is_mended(queue):
    """On a CPU LLVM 14 does not know, PoCL's device says "-generic" in its version and every
    build failed; here it builds, for the CPU warpkit named (on other CPUs nothing is named)."""
    from warpkit import _pocl_cpu
    from warpkit.programs import _binary_path
    dev = queue.device
    generic = _pocl_cpu._applies(dev)
    cpu = _pocl_cpu.fix_target_cpu(dev)
    assert (cpu is not None) == (generic and os.environ.get("WARPKIT_POCL_CPU") != "off")
    assert _pocl_cpu.target_cpu(dev) == cpu
    prg = cl.Program(queue.context, "__kernel void k(__global float *a) "
                                    "{ a[get_global_id(0)] = sqrt(a[get_global_id(0)]); }").build()
    a = np.array([4.0, 9.0], np.float32)
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    prg.k(queue, (2,), None, buf)
    cl.enqueue_copy(queue, a, buf)
    np.testing.assert_array_equal(a, [2.0, 3.0])
    key = _binary_path(queue.context, "x", ())
    if cpu is not None and key is not None:  # the saved binaries' key names the CPU
        _pocl_cpu._DONE[int(dev.int_ptr)] = None
        try:
            assert _binary_path(queue.context, "x", ()) != key
        finally:
            _pocl_cpu._DONE[int(dev.int_ptr)] = cpu


def test_a_build_that_fails_on_the_cpu_name_says_what_to_do(monkeypatch, queue):
    """Where warpkit could not name a CPU (an unknown PoCL build, WARPKIT_POCL_CPU=off), the
    build's failure says what it is and what to set."""
    def failing_build(ctx, source, options):
        raise cl.RuntimeError(cl._cl._ErrorRecord(
            msg="clBuildProgram failed: BUILD_PROGRAM_FAILURE\nerror: unknown target CPU "
                "'generic'", code=-11, routine="clBuildProgram"))

    monkeypatch.setattr(programs, "_build_source", failing_build)
    monkeypatch.setenv("WARPKIT_CACHE_DIR", "")
    with pytest.raises(RuntimeError, match="WARPKIT_POCL_CPU") as info:
        programs._build(queue.context, "__kernel void k() {}", ())
    assert "unknown target CPU 'generic'" in str(info.value)


def test_builds_leave_out_pyopencls_include_folder(queue):
    """pyopencl's Program.build adds ``-I <its own folder>`` to every build, and PoCL keys its
    cache on the options: two environments with that folder at two paths never shared a compile.
    warpkit's sources inline their includes, so its builds take only their own options; a
    failed build still says why, with the compiler's log."""
    import os

    prg = programs._build_source(queue.context, "__kernel void k(__global int *a) { a[0] = 3; }",
                                 ("-DUNUSED=1",))
    dev = queue.device
    opts = prg.get_build_info(dev, cl.program_build_info.OPTIONS)
    assert "-DUNUSED=1" in opts and os.path.dirname(cl.__file__) not in opts
    with pytest.raises(cl.RuntimeError, match="BUILD_PROGRAM_FAILURE") as info:
        programs._build_source(queue.context, "__kernel void k() { not_a_function(); }", ())
    assert "not_a_function" in str(info.value)  # the compiler's log


@pytest.mark.parametrize("short", [True, False])
def test_a_short_wait_polls_and_a_long_one_sleeps(queue, short, monkeypatch):
    """A sample's result is waited for awake (warpkit._memory.wait_awake: the event's status
    polled, the CPU yielded between polls) for up to POLL_SECONDS, then in the driver's wait:
    it returns once the command is done, either way, and raises where the command failed. The
    command ends at the third poll (short, the polls given a minute), or 20 ms after the first
    (long: past the polls' 2 ms); a timer ends it after 2 s where nothing else did (so that a
    wait that never polls fails instead of hanging)."""
    from warpkit import _memory

    for status, fails in ((cl.command_execution_status.COMPLETE, False), (-5, True)):
        ev = cl.UserEvent(queue.context)
        lock, ended, polls = threading.Lock(), [], []

        def end():
            with lock:
                if not ended:
                    ended.append(time.perf_counter())
                    ev.set_status(status)

        later = threading.Timer(0.02, end)

        def poll():
            polls.append(1)
            if short and len(polls) == 3:
                end()
            elif not short and len(polls) == 1:
                later.start()

        monkeypatch.setattr(_memory, "_YIELD", poll)
        if short:  # (a loaded host may hold the thread for milliseconds between polls)
            monkeypatch.setattr(_memory, "POLL_SECONDS", 60.0)
        fallback = threading.Timer(2.0, end)
        fallback.start()
        t0 = time.perf_counter()
        with pytest.raises(cl.RuntimeError) if fails else nullcontext():
            _memory.wait_awake(ev)
        returned = time.perf_counter()
        fallback.cancel()
        if later.ident is not None:
            later.join()
        assert ev.command_execution_status == status
        assert ended and returned >= ended[0]  # (not before the command ended)
        assert ended[0] - t0 < 1.0  # (ended by its polls, not by the fallback)
        # short: done at its third poll; long: polled (how often in POLL_SECONDS depends on
        # the host's load), then waited in the driver's wait for the end 20 ms on
        assert len(polls) == 3 if short else len(polls) >= 1
