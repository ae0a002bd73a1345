"""Every example runs and checks its own result."""

from __future__ import annotations

import pathlib
import sys

import lane
import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("*.py"))


def test_examples_exist():
    assert EXAMPLES


def _make(path: pathlib.Path) -> lane.Make:
    return lambda tmp: ([sys.executable, str(path)], {})


#: each example runs in the lane beside the suite (tests/lane.py), in a folder of its own,
#: first of the lane's jobs
LANE = {"test_example_runs": (lambda item: (0, EXAMPLES.index(item.callspec.params["path"])),
                              lambda item: (("example", item.callspec.params["path"].name),
                                            _make(item.callspec.params["path"]), True))}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    r = lane.result(("example", path.name), _make(path), cwd_tmp=True)
    assert r.returncode == 0, r.stdout + r.stderr
