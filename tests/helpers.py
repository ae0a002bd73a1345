"""Comparison helpers with docs/semantics.md's per-dtype tolerances."""

from __future__ import annotations

import numpy as np

from oracles import BF16


def foreign_byte_order(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` in the byte order this machine does not use (big-endian on x86)."""
    return a.astype(a.dtype.newbyteorder(">" if np.little_endian else "<"))


def ulp_distance_16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between two float16 or bfloat16 arrays (NaN == NaN)."""
    ia = np.asarray(a).view(np.int16).astype(np.int32)
    ib = np.asarray(b).view(np.int16).astype(np.int32)
    ma = np.where(ia < 0, -32768 - ia, ia)
    mb = np.where(ib < 0, -32768 - ib, ib)
    d = np.abs(ma - mb)
    both_nan = np.isnan(np.asarray(a, np.float32)) & np.isnan(np.asarray(b, np.float32))
    return np.where(both_nan, 0, d)


def device_fp64(queue) -> bool:
    import warpkit

    return warpkit.runtime_for_queue(queue).fp64


def refused_without_fp64(queue, dtypes, call) -> bool:
    """On a device without fp64, a case with float64 data must be refused with the documented
    error: check that and return True (the test is done); else False (run the case)."""
    import pytest

    if all(np.dtype(d) != np.float64 for d in dtypes) or device_fp64(queue):
        return False
    with pytest.raises(TypeError, match=r"needs double precision, but device .* has no "
                                        r"cl_khr_fp64"):
        call()
    return True


def assert_close(y, ref, mode: str = "linear", what: str = "", int_tol: float = 1) -> None:
    """Compare a result to an oracle already in the result's dtype, with docs/semantics.md's
    tolerance (``int_tol``: integer results, linear and cubic)."""
    y = np.asarray(y)
    ref = np.asarray(ref)
    assert y.shape == ref.shape, f"{what}: shape {y.shape} != {ref.shape}"
    assert y.dtype == ref.dtype, f"{what}: dtype {y.dtype} != {ref.dtype}"
    dt = y.dtype
    if dt in (np.dtype(np.float16), BF16):
        d = ulp_distance_16(y, ref)
        assert d.max(initial=0) <= 1, f"{what}: {d.max()} ulp apart at {np.argmax(d)}"
    elif dt == np.float64:
        np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-10 * max(1.0, np.nanmax(np.abs(ref), initial=0)),
                                   err_msg=what)
    elif dt == np.float32:
        if mode == "nearest":
            np.testing.assert_array_equal(y, ref, err_msg=what)
        else:
            scale = max(1.0, float(np.nanmax(np.abs(ref), initial=0)))
            np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5 * scale, err_msg=what)
    elif dt == np.bool_ or mode == "nearest":
        np.testing.assert_array_equal(y, ref, err_msg=what)
    else:  # integers, linear/cubic: float32 rounding may cross an integer
        diff = np.abs(y.astype(np.float64) - ref.astype(np.float64))
        assert diff.max(initial=0) <= int_tol, f"{what}: integer results {diff.max()} apart"
