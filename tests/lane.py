"""A lane beside the suite: subprocesses that tests need (the guard pages' families, cold
builds in fresh processes, the examples) run one after another in a thread from the end of
collection, on the other core, while the suite's own process goes on; each such test reads its
process's result when it comes to it.

conftest.py calls :func:`start` with the jobs of the selected tests, in the lane's order. A
test calls :func:`result` with its job's key: it gets the finished process, waits for a running
one, or takes a job still queued and runs it itself (no test waits behind jobs the lane has not
reached). Without :func:`start` (a test run alone), :func:`result` runs the job there and then.
Each job's temporary folder is made when it starts and removed when it ends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: a job: argv and extra environment from its temporary folder
Make = Callable[[str], tuple[Sequence[str], dict]]


@dataclass
class _Slot:
    make: Make
    cwd_tmp: bool
    state: str = "queued"  # then "running" (by the lane or a test) and "done"
    done: threading.Event = field(default_factory=threading.Event)
    proc: subprocess.CompletedProcess | None = None
    error: BaseException | None = None
    popen: subprocess.Popen | None = None


_slots: dict[tuple, _Slot] = {}
_lock = threading.Lock()
_stopped = False


def _execute(slot: _Slot, timeout: float = 900) -> None:
    tmp = tempfile.mkdtemp(prefix="warpkit-lane-")
    try:
        args, env = slot.make(tmp)
        with subprocess.Popen(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, **env},
                              cwd=tmp if slot.cwd_tmp else None) as p:
            slot.popen = p
            try:
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                raise
        slot.proc = subprocess.CompletedProcess(args, p.returncode, out, err)
    except BaseException as e:  # noqa: BLE001 - the test reports it
        slot.error = e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with _lock:
            slot.state = "done"
        slot.done.set()


def start(jobs: list[tuple[tuple, Make, bool]]) -> None:
    """Queue ``jobs`` ((key, make, run in its temporary folder)) and run them in order in a
    daemon thread."""
    with _lock:
        for key, make, cwd_tmp in jobs:
            _slots.setdefault(key, _Slot(make, cwd_tmp))
        order = [key for key, _, _ in jobs]

    def lane():
        for key in order:
            with _lock:
                slot = _slots[key]
                if _stopped:
                    break
                if slot.state != "queued":  # a test took it
                    continue
                slot.state = "running"
            _execute(slot)

    threading.Thread(target=lane, name="lane", daemon=True).start()


def result(key: tuple, make: Make, cwd_tmp: bool = False) -> subprocess.CompletedProcess:
    """The finished process of job ``key`` (see the module's docstring)."""
    with _lock:
        slot = _slots.get(key)
        mine = slot is None or slot.state == "queued"
        if slot is None:
            slot = _slots[key] = _Slot(make, cwd_tmp)
        if mine:
            slot.state = "running"
    if mine:
        _execute(slot)
    slot.done.wait()
    if slot.error is not None:
        raise slot.error
    assert slot.proc is not None
    return slot.proc


def stop() -> None:
    """End the lane (the session ended early): no queued job starts, a running one is killed."""
    global _stopped
    with _lock:
        _stopped = True
        slots = list(_slots.values())
    for slot in slots:
        p = slot.popen
        if p is not None and p.poll() is None:
            p.kill()
