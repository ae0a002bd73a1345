"""The examples in the docstrings run: those that need no device as plain doctests, and those
marked ``# doctest: +SKIP`` (they launch kernels) here on the default device."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import warpkit

def _modules() -> list[str]:
    """Every module of the package, so that a new module's examples run (the command line's
    are its help texts; dist needs Dask)."""
    import pathlib

    root = pathlib.Path(warpkit.__file__).parent
    names = []
    for f in sorted(root.rglob("*.py")):
        parts = f.relative_to(root).with_suffix("").parts
        if parts[0] in ("cli", "kernels_cl", "dist"):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("warpkit", *parts)))
    return names


MODULES = _modules()
#: examples left out here, and why: a model file nobody has; changing the default device; the
#: name of the device the docs were written on; the self-check's report of this machine
NOT_RUN = ('onnx.load("model.onnx")', "rep.run(", 'set_device("pocl")', "rt.describe()",
           "print(report)")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _tests(name):
    pytest.importorskip("onnx") if name.endswith("onnx_backend") else None
    module = importlib.import_module(name)
    return doctest.DocTestFinder(exclude_empty=True).find(
        module, extraglobs={"np": np, "warpkit": warpkit})


@pytest.mark.parametrize("name", MODULES)
def test_device_free_examples(name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in _tests(name):
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_every_example_on_the_device(name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    ran = 0
    for t in _tests(name):
        for ex in t.examples:
            if any(s in ex.source for s in NOT_RUN):
                ex.options[doctest.SKIP] = True
            elif ex.options.pop(doctest.SKIP, None):
                ran += 1
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0
    if name in ("warpkit.warp", "warpkit.grid_sample", "warpkit.roi_align"):
        assert ran  # the kernel examples did run
