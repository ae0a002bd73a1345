"""No kernel reads or writes outside its arguments, on the real CPU device.

guard_cases.py runs every operator and fast path (shapes at every edge: 1x1, 1xN, Nx1, widths
1-17, 1-4 channels, every dtype, interpolation and padding, antialias, batches, crops partly and
fully outside) with inputs and results against unreadable pages. A stray access faults, so each
family runs in a subprocess: a crash fails its test and names the case, and the run goes on.
Devices that copy host data into their own memory cannot fault on host pages: only CPU devices
(PoCL runs kernels on host memory in place) are tested here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import REAL
from guard_cases import FAMILIES

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = [e for e in REAL if e.kind == "CPU"]


@pytest.mark.parametrize("entry", CPU or [None], ids=[e.index for e in CPU] or ["no-cpu"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_access_outside_arguments(family, entry):
    if entry is None:
        pytest.skip("no CPU OpenCL device: guard pages catch stray accesses only where kernels "
                    "run on host memory in place")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "guard_cases.py"), family,
                           entry.index], capture_output=True, text=True, timeout=900)
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
