"""Device fixtures: every test that takes ``queue`` runs on every available (non-simulator) OpenCL
device; tests that take ``small_queue`` also run on Oclgrind, failing on any invalid memory access
it reports.

With no device, tests fail rather than skip. ``WARPKIT_TEST_DEVICES`` (comma-separated specs as for
``WARPKIT_DEVICE``) restricts the devices. Oclgrind missing fails under CI (``CI=true``), and skips
with a reason otherwise.

``WARPKIT_TEST_REFERENCE`` (a spec as for ``WARPKIT_DEVICE``) names the device whose numbers the
small cases are compared with (:func:`reference_queue`); unset, the default device's. CI's jobs
on other implementations name PoCL there: their default device is the one under test, and a
case compared with the same device's numbers would check only that it ran.

``WARPKIT_TEST_SHARE=K/N`` runs share K of N of the tests: those whose name and parameters (the
device's left out) have a CRC-32 of K modulo N (``K,L/N``: of K or L); ``K/N-word`` leaves out
those whose name or parameters hold ``word``, ``K/N+word`` takes them all in (``word|other``:
either word). CI splits its conformance subset so between two more OpenCL implementations, each
test on one of them (PoCL runs them all), and gives the cubic cases and GridSample's to one of
them: each implementation compiles the kernels those cases need once, for minutes.
"""

from __future__ import annotations

import inspect
import os
import re
import zlib

import pyopencl as cl
import pytest

import warpkit
from warpkit.runtime import choose_device

_ENTRIES = warpkit.list_devices()

# albumentations blends uint8 images (albucore's add_weighted: RandomSunFlare's overlay,
# HistogramMatching's blend, ...) with simsimd's wsum, which picks a kernel per CPU: on Sapphire
# Rapids (AVX-512 FP16) it sums in float16, one or two levels off on about half the pixels,
# there alone. The tests hold warpkit to albumentations' arithmetic, so the peer takes its
# float32 kernels on every CPU.
try:
    import simsimd
except ImportError:
    pass
else:
    simsimd.disable_capability("sapphire")


def _selected():
    spec = os.environ.get("WARPKIT_TEST_DEVICES", "").strip()
    if not spec:
        return [e for e in _ENTRIES if not e.is_simulator], [e for e in _ENTRIES if e.is_simulator]
    chosen = [choose_device(s.strip())[0] for s in spec.split(",") if s.strip()]
    return [e for e in chosen if not e.is_simulator], [e for e in chosen if e.is_simulator]


REAL, SIMS = _selected()
_QUEUES: dict[str, cl.CommandQueue] = {}
_INVALID = re.compile(r"Invalid (read|write)")


_CONTEXTS: list = []


def _queue(entry) -> cl.CommandQueue:
    q = _QUEUES.get(entry.index)
    if q is None:
        # the context is kept with the queue: on some implementations (Intel's CPU runtime) a
        # queue alone does not keep its context alive
        ctx = cl.Context([entry.device])
        q = _QUEUES[entry.index] = cl.CommandQueue(ctx)
        _CONTEXTS.append(ctx)
    return q


def reference_queue() -> cl.CommandQueue | None:
    """A queue on the device ``WARPKIT_TEST_REFERENCE`` names, whose numbers a small case's on
    each device are compared with; None where it is unset (the default device's). A name that
    matches no device fails the test (a typo must not turn the comparison into one of a device
    with itself)."""
    spec = os.environ.get("WARPKIT_TEST_REFERENCE", "").strip()
    if not spec:
        return None
    return _queue(choose_device(spec)[0])


def _ids(entries):
    return [f"{e.index}-{e.name.split()[0]}" for e in entries] or ["no-device"]


@pytest.fixture(params=REAL or [None], ids=_ids(REAL))
def queue(request) -> cl.CommandQueue:
    """A queue on each real OpenCL device."""
    if request.param is None:
        pytest.fail("no OpenCL device found: install pocl-binary-distribution (warpkit[pocl])")
    return _queue(request.param)


_SMALL = REAL + (SIMS or [None])


@pytest.fixture(params=_SMALL or [None], ids=_ids(REAL) + (_ids(SIMS) if SIMS else ["oclgrind"]))
def small_queue(request) -> cl.CommandQueue:
    """A queue on each real device and on Oclgrind, which checks every memory access."""
    entry = request.param
    if entry is None:
        if not REAL and not SIMS:
            pytest.fail("no OpenCL device found")
        msg = "Oclgrind not installed (pip install 'warpkit[oclgrind]')"
        if os.environ.get("WARPKIT_TEST_DEVICES", "").strip() and any(
                e.is_simulator for e in _ENTRIES):
            msg = "Oclgrind is not among WARPKIT_TEST_DEVICES"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    if not entry.is_simulator:
        yield _queue(entry)
        return
    capfd = request.getfixturevalue("capfd")
    yield _queue(entry)
    err = capfd.readouterr().err
    if _INVALID.search(err):
        pytest.fail("Oclgrind reported invalid memory accesses:\n" + err[:4000])


@pytest.fixture
def fresh_plans():
    """For tests that change a device's capabilities or warpkit's thresholds: launch plans made
    before (or during) the change must not be reused."""
    from warpkit import runtime

    def clear():
        for plans in runtime._PLAN_CACHES:
            plans.clear()

    clear()
    yield clear  # call it after each change
    clear()


@pytest.fixture(autouse=True)
def own_colour_groups():
    """Each test's colour builds hold the operation groups its own lists use, as in a process
    of its own: engine.core keeps every group a process's colour lists have had (so that a
    pipeline settles on one build), and across a session of tests that made each later build
    hold every earlier test's groups, a compile of its own that no other test shares."""
    from warpkit.engine import core

    core._GROUPS_SEEN.clear()
    yield


@pytest.fixture
def oclgrind_queue() -> cl.CommandQueue:
    """A queue on Oclgrind (fails under CI when it is missing, skips elsewhere)."""
    if not SIMS:
        msg = "Oclgrind not installed (pip install 'warpkit[oclgrind]')"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return _queue(SIMS[0])


def _needs_torch(item, asks: dict) -> bool:
    """A test that skips without torch: its module imports torch (or skips without it), or its
    own body asks for it (``asks``: per function, for its parametrized cases)."""
    if getattr(getattr(item, "module", None), "torch", None) is not None:
        return True
    fn = getattr(item, "function", None)
    if fn not in asks:
        try:
            asks[fn] = fn is not None and 'importorskip("torch")' in inspect.getsource(fn)
        except (OSError, TypeError):
            asks[fn] = False
    return asks[fn]


def _case_key(item) -> str:
    """The item's test and parameters, without the device's part (the same on every device)."""
    spec = getattr(item, "callspec", None)
    if spec is None:
        return item.nodeid
    case = spec.id
    for dev in _ids(REAL) + _ids(SIMS):
        case = case.replace(dev, "")
    return f"{item.nodeid.split('[')[0]}[{case}]"


def _share(items) -> list:
    """The items of ``WARPKIT_TEST_SHARE``: ``K,L/N`` (the shares by CRC), then ``+word`` (and
    every item whose case names ``word``) or ``-word`` (but none that does); ``word|other``
    names either."""
    spec = os.environ["WARPKIT_TEST_SHARE"]
    m = re.fullmatch(r"([\d,]+)/(\d+)(?:([+-])(\w+(?:\|\w+)*))?", spec)
    if m is None:
        raise pytest.UsageError(f"WARPKIT_TEST_SHARE must be K,L/N, then +word or -word "
                                f"(word|other: either), got {spec!r}")
    share, n, sign = {int(k) for k in m[1].split(",")}, int(m[2]), m[3]
    words = m[4].split("|") if m[4] else []

    def keep(item) -> bool:
        key = _case_key(item)
        named = any(w in key for w in words)
        if sign == "-" and named:
            return False
        return (sign == "+" and named) or zlib.crc32(key.encode()) % n in share
    return [i for i in items if keep(i)]


def pytest_collection_modifyitems(config, items):
    # CI's environment with torch runs ``-m torch``: the rest ran in the main job already
    asks: dict = {}
    for item in items:
        if _needs_torch(item, asks):
            item.add_marker(pytest.mark.torch)
    if os.environ.get("WARPKIT_TEST_SHARE"):
        kept = _share(items)
        keep = set(kept)
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = kept


def _lane_jobs(session) -> list:
    """The lane's jobs of the selected tests (tests/lane.py): a test module's ``LANE`` maps a
    test's name to (its place in the lane, a function of the item giving (key, make, whether
    it runs in its temporary folder) or None)."""
    jobs = []
    for item in session.items:
        spec = getattr(item.module, "LANE", {}).get(getattr(item, "originalname", None))
        if spec is not None:
            job = spec[1](item)
            if job is not None:
                jobs.append((spec[0](item) if callable(spec[0]) else spec[0], job))
    jobs.sort(key=lambda j: j[0])
    return [j for _, j in jobs]


def pytest_collection_finish(session):
    # subprocesses that tests need run in a lane of their own, beside the suite
    jobs = _lane_jobs(session)
    if jobs and not session.config.option.collectonly:
        import lane

        lane.start(jobs)


def pytest_sessionfinish(session):
    import lane

    lane.stop()


def pytest_report_header(config):
    lines = [f"OpenCL device under test: {e.index} {e.name} on {e.platform}" for e in REAL]
    lines += [f"memory-checking simulator: {e.index} {e.name}" for e in SIMS]
    return lines or ["no OpenCL device found"]
