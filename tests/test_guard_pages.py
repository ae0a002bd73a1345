"""No kernel reads or writes outside its arguments, on the real CPU device.

guard_cases.py runs every operator and fast path (shapes at every edge: 1x1, 1xN, Nx1, widths
1-17, 1-4 channels, every dtype, interpolation and padding, antialias, batches, crops partly and
fully outside) with inputs and results against unreadable pages. A stray access faults, so each
family runs in a subprocess: a crash fails its test and names the case, and the run goes on.
Devices that copy host data into their own memory cannot fault on host pages: only CPU devices
(PoCL runs kernels on host memory in place) are tested here.

The families' processes compile their own kernels (minutes in all): they run one after another
in the lane beside the rest of the suite (tests/lane.py, started by conftest.py with the
selected tests' jobs), the costliest first; each test waits for its family's process and reads
what it said.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import lane
import pytest

from conftest import REAL
from guard_cases import FAMILIES

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = [e for e in REAL if e.kind == "CPU"]


#: the families' order in the lane: the costliest first (a cold run on a Zen 4, 2026-12-03:
#: 77, 55, 47, 43, 25, 22, 17 and 11 s; affine_grid and roi_align, a few seconds, last; since
#: their covering sets, colour 64 s and fields 28 s on a slower host, where they took 87 and 76)
_FIRST = ("colour", "warp", "wide", "fields", "remap", "grid_sample", "crop", "model_input")


def _make(family: str, index: str) -> lane.Make:
    return lambda tmp: ([sys.executable, os.path.join(HERE, "guard_cases.py"), family, index], {})


def _place(item) -> tuple:
    family = item.callspec.params["family"]
    return (1, (_FIRST + (family,)).index(family))


def _job(item):
    entry = item.callspec.params["entry"]
    if entry is None:
        return None
    family = item.callspec.params["family"]
    return (("guard", family, entry.index), _make(family, entry.index), False)


#: the lane's jobs (tests/lane.py, started by conftest.py): after the examples', before the
#: cold builds'
LANE = {"test_no_access_outside_arguments": (_place, _job)}


@pytest.mark.parametrize("entry", CPU or [None], ids=[e.index for e in CPU] or ["no-cpu"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_access_outside_arguments(family, entry):
    if entry is None:
        pytest.skip("no CPU OpenCL device: guard pages catch stray accesses only where kernels "
                    "run on host memory in place")
    proc = lane.result(("guard", family, entry.index), _make(family, entry.index))
    out = proc.stdout.strip().splitlines()
    last = next((ln for ln in reversed(out) if ln.startswith("CASE ")), "no case started")
    if proc.returncode < 0:
        pytest.fail(f"the process died of signal {-proc.returncode} in {last[5:]!r}: a kernel "
                    "touched memory outside its arguments")
    assert proc.returncode == 0, "\n".join(out[-60:]) + "\n" + proc.stderr[-4000:]
    assert out and out[-1] == "ALL OK"
    ran, met = map(int, re.fullmatch(r"RAN (\d+) OF (\d+) CASES", out[-2]).groups())
    # a sample (WARPKIT_GUARD_EVERY) still runs cases of every family, and all of them without
    assert ran >= 1 and met >= 1 and (ran == met or "WARPKIT_GUARD_EVERY" in os.environ)


def test_guard_pages_catch_a_stray_read():
    """The harness itself: reading one byte past a guarded array faults (in a subprocess)."""
    code = ("import sys, ctypes; sys.path.insert(0, %r); import guardpage, numpy as np; "
            "a = guardpage.guarded(np.arange(10, dtype=np.uint8)); "
            "print(a[-1], flush=True); ctypes.string_at(a.ctypes.data, 11)") % HERE
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.strip() == "9"
    assert proc.returncode < 0  # killed by SIGSEGV (or SIGBUS)
