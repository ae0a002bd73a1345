"""``warpkit.check()`` / ``warpkit check``: conformance cases run on one device, against expected
results shipped in the package (``selfcheck_cases.npz``, made by tests/make_selfcheck_cases.py
from the ONNX backend node cases and the ONNX reference implementation; onnx is not needed here).

Drivers differ and some are wrong: this is the check a user runs on their own GPU. Each case is
compared with the tolerance of docs/semantics.md for its dtype and mode; cases that need fp64 on a
device without it must be refused with warpkit's documented error, and count as passed when they
are.
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from ._dtypes import BFLOAT16

_FILE = "selfcheck_cases.npz"


@dataclass
class CheckRow:
    """One (operator, dtype, source) group of cases."""

    op: str
    dtype: str
    source: str
    cases: int = 0
    passed: int = 0
    refused: int = 0  #: cases refused as documented (fp64 data on a device without fp64)
    worst: float = 0.0  #: the largest error, as a fraction of its tolerance (<= 1 passes)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.passed == self.cases


@dataclass
class CheckReport:
    """What :func:`check` found: the device, its capabilities, a row per group, and ``ok``."""

    device: str
    capabilities: dict[str, Any]
    rows: list[CheckRow]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    @property
    def failures(self) -> list[str]:
        return [f for r in self.rows for f in r.failures]

    def __str__(self) -> str:
        lines = [f"device: {self.device}"]
        lines += [f"  {k}: {v}" for k, v in self.capabilities.items()]
        for r in self.rows:
            extra = f", {r.refused} refused as documented" if r.refused else ""
            lines.append(f"{'PASS' if r.ok else 'FAIL'} {r.op} {r.dtype} ({r.source}): "
                         f"{r.passed}/{r.cases}{extra}, worst {r.worst:.2f} of tolerance")
        lines += [f"  {f}" for f in self.failures]
        n = sum(r.cases for r in self.rows)
        bad = sum(r.cases - r.passed for r in self.rows)
        lines.append(f"{'all ' if not bad else ''}{n - bad}/{n} cases passed in "
                     f"{self.seconds:.1f} s")
        return "\n".join(lines)


def _load() -> tuple[list[dict], Any]:
    data = resources.files("warpkit").joinpath(_FILE).read_bytes()
    z = np.load(io.BytesIO(data), allow_pickle=False)
    return json.loads(str(z["meta"])), z


def _array(a: np.ndarray, dtype: str) -> np.ndarray:
    return a.view(BFLOAT16) if dtype == "bfloat16" else a


def ulps_16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between two float16/bfloat16 arrays (NaN == NaN)."""
    ia = np.asarray(a).view(np.int16).astype(np.int32)
    ib = np.asarray(b).view(np.int16).astype(np.int32)
    d = np.abs(np.where(ia < 0, -32768 - ia, ia) - np.where(ib < 0, -32768 - ib, ib))
    nan = np.isnan(np.asarray(a, np.float32)) & np.isnan(np.asarray(b, np.float32))
    return np.where(nan, 0, d)


def compare(y: np.ndarray, ref: np.ndarray, mode: str, int_tol: float = 1.0
            ) -> tuple[float, str]:
    """(error / tolerance, what the tolerance is) for a result against its expected value, with
    docs/semantics.md's tolerances (the test suite's too): float16/bfloat16 1 ulp; float32
    1e-5 of the largest value plus 1e-5 relative (nearest: exact); float64 the same with 1e-10;
    integers ``int_tol`` levels (nearest: exact); bool exact. NaN equals NaN."""
    if y.shape != ref.shape or y.dtype != ref.dtype:
        return np.inf, f"shape {ref.shape} {ref.dtype}, got {y.shape} {y.dtype}"
    if y.size == 0:
        return 0.0, "empty"
    if y.dtype in (np.dtype(np.float16), BFLOAT16):
        return float(ulps_16(y, ref).max()), "1 ulp"
    if y.dtype == np.bool_ or mode == "nearest" and y.dtype != np.float64:
        same = (y == ref) | (np.isnan(y) & np.isnan(ref) if y.dtype.kind == "f" else False)
        return (0.0 if same.all() else np.inf), "exact"
    if y.dtype.kind == "f":
        k = 1e-10 if y.dtype == np.float64 else 1e-5
        scale = max(1.0, float(np.nanmax(np.abs(ref.astype(np.float64)), initial=0)))
        return _allclose_error(y, ref, k, k * scale), f"{k:g} relative + {k * scale:.1e}"
    diff = np.abs(y.astype(np.float64) - ref.astype(np.float64))
    return float(diff.max() / int_tol), f"{int_tol:g} level"


def _allclose_error(y: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> float:
    """The largest |y - ref| / (atol + rtol |ref|): <= 1 where numpy's allclose holds (NaN
    equal to NaN, as there)."""
    if y.shape != ref.shape:
        return np.inf
    a, b = y.astype(np.float64), ref.astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(a - b) / (atol + rtol * np.abs(b))
    err = np.where(np.isnan(a) & np.isnan(b), 0.0, np.where(np.isnan(err), np.inf, err))
    return float(err.max(initial=0))


def _run(op: str, inputs: list, kwargs: dict, queue) -> np.ndarray:
    from .affine_grid import affine_grid
    from .grid_sample import grid_sample
    from .roi_align import roi_align
    from .warp import warp_affine

    if op == "warp_affine":
        kw = dict(kwargs)
        kw["size"] = tuple(kw["size"])
        return warp_affine(*inputs, **kw, queue=queue)
    ops = {"grid_sample": grid_sample, "affine_grid": affine_grid, "roi_align": roi_align}
    return ops[op](*inputs, **kwargs, queue=queue)


def check(device: str | None = None, queue=None) -> CheckReport:
    """Run warpkit's shipped conformance cases on one device and report per operator and dtype.

    ``device`` is a spec as for ``WARPKIT_DEVICE`` (``"P:D"``, ``"P"`` or a name substring);
    ``None`` checks the default device; or pass a ``queue`` of your own. The cases: ONNX's
    backend node cases of GridSample, AffineGrid and RoiAlign, seeded differential cases per
    operator and dtype (expected results from the ONNX reference implementation), and
    warp_affine against the reference GridSample on the same grid.

    Example:
        >>> report = warpkit.check()          # doctest: +SKIP
        >>> report.ok                         # doctest: +SKIP
        True
        >>> print(report)                     # doctest: +SKIP
        device: ...
    """
    import pyopencl as cl

    from .runtime import make_runtime, runtime_for_queue

    t0 = time.perf_counter()
    rt = make_runtime(device) if queue is None else runtime_for_queue(queue)
    queue = rt.queue
    dev = rt.device
    caps = {"platform": f"{rt.platform} ({dev.platform.version.strip()})",
            "version": dev.version.strip(), "driver": dev.driver_version.strip(),
            "kind": rt.kind, "compute units": rt.compute_units,
            "fp64": "yes" if rt.fp64 else "no (float64 data refused)",
            "fp16": "yes" if rt.fp16 else "no (not needed)",
            "max allocation": f"{rt.max_alloc / 2**20:.0f} MiB",
            "target builtins": "yes" if rt.llvm_builtins else "no"}
    meta, z = _load()
    rows: dict[tuple, CheckRow] = {}
    for k, m in enumerate(meta):
        row = rows.setdefault((m["op"], m["dtype"], m["source"]),
                              CheckRow(m["op"], m["dtype"], m["source"]))
        row.cases += 1
        inputs = [_array(z[f"c{k}_i{i}"], d) for i, d in enumerate(m["inputs"])]
        ref = _array(z[f"c{k}_out"], m["dtype"])
        data = m["inputs"][:1] if m["op"] == "warp_affine" else m["inputs"]  # not its matrix
        needs_fp64 = "float64" in data
        try:
            y = np.asarray(_run(m["op"], inputs, m["kwargs"], queue))
        except TypeError as e:
            if needs_fp64 and not rt.fp64 and "double precision" in str(e):
                row.passed += 1
                row.refused += 1
            else:
                row.failures.append(f"{m['name']}: raised {type(e).__name__}: {e}")
            continue
        except (cl.Error, ValueError, RuntimeError) as e:
            row.failures.append(f"{m['name']}: raised {type(e).__name__}: {e}")
            continue
        if needs_fp64 and not rt.fp64:
            row.failures.append(f"{m['name']}: float64 data ran on a device without fp64 "
                                f"(expected the documented refusal)")
            continue
        if "rtol" in m:  # an ONNX node case: its own tolerances, as ONNX's runner applies them
            err, tol = _allclose_error(y, ref, m["rtol"], m["atol"]), \
                f"rtol {m['rtol']:g}, atol {m['atol']:g}"
        else:
            # 32/64-bit integers accumulate in float without fp64: 2^-20 of the values
            wide = m.get("wide", False) and not rt.fp64
            int_tol = max(1.0, 2.0 ** -20 * float(np.abs(ref.astype(np.float64)).max(initial=0))) \
                if wide else 1.0
            err, tol = compare(y, ref, m["compare"], int_tol)
        row.worst = max(row.worst, err)
        if err <= 1.0:
            row.passed += 1
        else:
            row.failures.append(f"{m['name']}: error {err:.3g} x the tolerance ({tol})")
    return CheckReport(f"{rt.name} on {rt.platform}", caps, list(rows.values()),
                       time.perf_counter() - t0)
