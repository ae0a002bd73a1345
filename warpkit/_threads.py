"""warpkit's helper threads: named pools made on first use, once per process (a forked child
makes its own: its parent's threads did not come with it, and work handed to them would wait
forever). ``concurrent.futures`` is imported on first use, not at ``import warpkit`` (the
command's start)."""

from __future__ import annotations

import os
import threading
from typing import Any

#: name -> (the process it was made in, the executor)
_POOLS: dict[str, tuple[int, Any]] = {}
_LOCK = threading.Lock()


def cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1


def pool(name: str, threads: int) -> Any:
    """The ``concurrent.futures.ThreadPoolExecutor`` called ``name`` of this process, with
    ``threads`` threads (the number of its first use)."""
    pid = os.getpid()
    got = _POOLS.get(name)
    if got is None or got[0] != pid:
        from concurrent.futures import ThreadPoolExecutor

        with _LOCK:
            got = _POOLS.get(name)
            if got is None or got[0] != pid:
                got = _POOLS[name] = (pid, ThreadPoolExecutor(
                    threads, thread_name_prefix=f"warpkit-{name}"))
    return got[1]
