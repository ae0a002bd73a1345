"""warpkit.check() and `warpkit check`: the shipped cases match their oracles, pass on every
device (Oclgrind too), and a wrong result, a missing refusal or a bad device fail loudly."""

from __future__ import annotations

import os
import subprocess
import sys

from typer.testing import CliRunner

import warpkit
from warpkit.cli.app import app

HERE = os.path.dirname(os.path.abspath(__file__))
runner = CliRunner()


def test_shipped_cases_are_what_the_oracles_give():
    """The npz in the package is rebuilt from the ONNX node cases and the ONNX reference and
    compared: the data cannot drift from its oracles."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "make_selfcheck_cases.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_operator_and_dtype_passes(small_queue):
    report = warpkit.check(queue=small_queue)
    assert report.ok, str(report)
    ops = {(r.op, r.dtype) for r in report.rows}
    assert {("grid_sample", "uint8"), ("grid_sample", "bfloat16"), ("roi_align", "float16"),
            ("affine_grid", "float64"), ("warp_affine", "uint8")} <= ops
    node = [r for r in report.rows if r.source == "onnx node case"]
    assert sum(r.cases for r in node) == 25  # every ONNX node case of the three operators
    assert "fp64" in report.capabilities and "driver" in report.capabilities


def test_a_wrong_result_fails(queue, monkeypatch):
    """A driver that is off by 0.05 on RoiAlign: those cases fail, the others pass."""
    real = warpkit.roi_align

    def off(*a, **k):
        y = real(*a, **k)
        return y + y.dtype.type(0.05)

    monkeypatch.setattr(warpkit, "roi_align", off)
    report = warpkit.check(queue=queue)
    assert not report.ok
    bad = {r.op for r in report.rows if not r.ok}
    assert bad == {"roi_align"}
    ran = sum(r.cases - r.refused for r in report.rows if r.op == "roi_align")  # not float64
    assert ran in (11, 15)  # without fp64 the 4 float64 cases are refused, as documented
    assert len(report.failures) == ran and all("x the tolerance" in f for f in report.failures)


def test_fp64_refusal_is_required_without_fp64(queue, monkeypatch, fresh_plans):
    """A device without fp64: float64 cases pass only by being refused with the documented
    error; one that runs them anyway is reported."""
    rt = warpkit.runtime_for_queue(queue)
    real_fp64 = rt.fp64
    monkeypatch.setattr(rt, "fp64", False)
    report = warpkit.check(queue=queue)
    assert report.ok, str(report)
    assert sum(r.refused for r in report.rows) >= 17
    if not real_fp64:  # the kernels could not run float64 here at all
        return
    monkeypatch.setattr(rt, "require_fp64", lambda what: None)  # a runtime that forgets to refuse
    report = warpkit.check(queue=queue)
    assert not report.ok
    assert any("float64 data ran on a device without fp64" in f for f in report.failures)


def test_cli_check(monkeypatch):
    res = runner.invoke(app, ["check"])
    assert res.exit_code == 0, res.output
    assert "warpkit self-check" in res.output and "all 129 cases passed" in res.output
    assert "fp64:" in res.output
    res = runner.invoke(app, ["check", "--device", "no-such-device"])
    assert res.exit_code == 1
    assert "no OpenCL device matches 'no-such-device'" in res.output
    assert "Traceback" not in res.output
    real = warpkit.grid_sample
    monkeypatch.setattr(warpkit, "grid_sample", lambda *a, **k: real(*a, **k)[..., ::-1].copy())
    res = runner.invoke(app, ["check"])
    assert res.exit_code == 1
    assert "FAIL" in res.output and "check failed" in res.output
