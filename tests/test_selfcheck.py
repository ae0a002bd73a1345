"""warpkit.check() and `warpkit check`: the shipped cases match their oracles, pass on every
device (Oclgrind too), and a wrong result, a missing refusal or a bad device fail loudly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import warpkit
from warpkit.cli.app import app

HERE = os.path.dirname(os.path.abspath(__file__))
runner = CliRunner()


@pytest.mark.host
def test_shipped_cases_are_what_the_oracles_give():
    """The npz in the package is rebuilt from the ONNX node cases and the ONNX reference and
    compared: the data cannot drift from its oracles."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "make_selfcheck_cases.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _npz(arrays: dict) -> bytes:
    import io

    import numpy as np

    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def test_rebuilt_cases_compare_within_the_documented_tolerances():
    """Another CPU's numpy gives the ONNX reference's float64 results an ulp or two apart (its
    SIMD kernels differ): that passes; a real drift (an output beyond its dtype's tolerance, an
    integer input, a changed case list) fails, each naming the array."""
    import io

    import numpy as np

    from make_selfcheck_cases import OUT, differences

    shipped = OUT.read_bytes()
    z = np.load(io.BytesIO(shipped))
    arrays = {f: z[f] for f in z.files}
    assert differences(shipped, _npz(arrays)) == []
    f64 = next(f for f in z.files if f.endswith("_out") and z[f].dtype == np.float64
               and z[f].size and np.abs(z[f]).max() > 0)
    ulps = dict(arrays, **{f64: np.nextafter(np.nextafter(z[f64], np.inf), np.inf)})
    assert differences(shipped, _npz(ulps)) == []  # two ulps: another CPU's numpy
    drift = dict(arrays, **{f64: z[f64] * (1 + 1e-7)})
    assert [d.split(":")[0] for d in differences(shipped, _npz(drift))] == [f64]
    ints = next(f for f in z.files if "_i" in f and z[f].dtype.kind in "iu" and z[f].size)
    flipped = z[ints].copy()
    flipped.reshape(-1)[0] += 1
    assert [d.split(":")[0] for d in differences(shipped, _npz(dict(arrays, **{ints: flipped})))] \
        == [ints]
    fewer = {f: a for f, a in arrays.items() if f != f64}
    assert differences(shipped, _npz(fewer))


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

    # the operator as the self-check calls it: from its module
    monkeypatch.setattr(sys.modules["warpkit.roi_align"], "roi_align", off)
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
    monkeypatch.setattr(sys.modules["warpkit.grid_sample"], "grid_sample",
                        lambda *a, **k: real(*a, **k)[..., ::-1].copy())
    res = runner.invoke(app, ["check"])
    assert res.exit_code == 1
    assert "FAIL" in res.output and "check failed" in res.output


def test_compare_applies_the_documented_tolerances():
    """The one definition of docs/semantics.md's tolerances (the suite's assert_close and
    warpkit check both use it): just inside passes, just outside fails, NaN equals NaN."""
    import ml_dtypes
    import numpy as np

    from warpkit._selfcheck import compare

    ref = np.array([0.0, 100.0, np.nan], np.float32)
    assert compare(ref + np.float32(9e-4), ref, "linear")[0] <= 1  # 1e-5 * 100 abs + rel
    assert compare(ref + np.float32(3e-3), ref, "linear")[0] > 1
    assert compare(ref + np.float32(1e-6), ref, "nearest")[0] > 1  # nearest: exact
    assert compare(ref.copy(), ref, "nearest")[0] == 0
    r64 = np.array([1.0, -3.0])
    assert compare(r64 * (1 + 5e-11), r64, "linear")[0] <= 1
    assert compare(r64 + 1e-9, r64, "nearest")[0] > 1
    h = np.array([1.0, 2.0], np.float16)
    one_ulp = np.array([1.0 + 2 ** -10, 2.0], np.float16)
    two_ulps = np.array([1.0 + 2 ** -9, 2.0], np.float16)
    assert compare(one_ulp, h, "linear")[0] == 1 and compare(two_ulps, h, "linear")[0] == 2
    b = h.astype(ml_dtypes.bfloat16)
    assert compare(b, b, "cubic")[0] == 0
    i = np.array([10, 200], np.uint8)
    assert compare(i + np.uint8(1), i, "linear")[0] == 1
    assert compare(i + np.uint8(2), i, "linear")[0] == 2
    assert compare(i + np.uint8(2), i, "linear", int_tol=2)[0] == 1
    assert compare(i + np.uint8(1), i, "nearest")[0] > 1
    assert compare(i, i.astype(np.int16), "linear")[0] == np.inf  # dtype differs
