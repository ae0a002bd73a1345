"""Comparison helpers with docs/semantics.md's per-dtype tolerances."""

from __future__ import annotations

import numpy as np

from warpkit._selfcheck import compare


def foreign_byte_order(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` in the byte order this machine does not use (big-endian on x86)."""
    return a.astype(a.dtype.newbyteorder(">" if np.little_endian else "<"))


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
    tolerance: the rules ``warpkit check`` applies (``int_tol``: integer results, linear and
    cubic)."""
    y, ref = np.asarray(y), np.asarray(ref)
    assert y.shape == ref.shape, f"{what}: shape {y.shape} != {ref.shape}"
    assert y.dtype == ref.dtype, f"{what}: dtype {y.dtype} != {ref.dtype}"
    err, tol = compare(y, ref, mode, int_tol)
    assert err <= 1, f"{what}: {err:.3g} x the tolerance ({tol})"
