"""AffineGrid against the ONNX backend cases, the ONNX reference and ONNX Runtime."""

from __future__ import annotations

import itertools

import numpy as np
import pyopencl.array as cla
import pytest

import warpkit
from helpers import assert_close, foreign_byte_order, refused_without_fp64
from oracles import backend_cases, BF16, ort_affine_grid, reference_affine_grid


def _cases():
    return backend_cases('test_affine_grid')


CASES = _cases()


def test_backend_case_count():
    assert len(CASES) == 4


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_onnx_backend_cases(case, small_queue):
    align = next((a.i for a in case.model.graph.node[0].attribute if a.name == "align_corners"), 0)
    for inputs, outputs in case.data_sets:
        y = warpkit.affine_grid(*inputs, align_corners=align, queue=small_queue)
        np.testing.assert_allclose(y, outputs[0], rtol=case.rtol, atol=case.atol)


def _theta(rng, n, r, dtype):
    eye = np.concatenate([np.eye(r), np.zeros((r, 1))], 1)
    return (eye + rng.uniform(-0.6, 0.6, (n, r, r + 1))).astype(dtype)


SIZES_2D = [(1, 1, 1, 1), (1, 2, 1, 7), (2, 3, 5, 1), (3, 1, 6, 9), (1, 1, 33, 17)]
SIZES_3D = [(1, 1, 1, 1, 1), (2, 2, 3, 1, 4), (1, 1, 4, 5, 6), (2, 1, 1, 7, 3)]


@pytest.mark.parametrize("size,align", list(itertools.product(SIZES_2D + SIZES_3D, [0, 1])))
def test_against_reference_and_ort(size, align, small_queue):
    rng = np.random.default_rng([len(size), *size, align])
    theta = _theta(rng, size[0], len(size) - 2, np.float32)
    y = warpkit.affine_grid(theta, size, align, queue=small_queue)
    assert y.shape == (size[0], *size[2:], len(size) - 2) and y.dtype == np.float32
    ref = reference_affine_grid(theta, size, align)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    if 1 not in size[2:]:  # ORT puts a size-1 axis at +1 (docs/semantics.md follows the reference: -1)
        np.testing.assert_allclose(y, ort_affine_grid(theta, size, align), rtol=1e-5, atol=1e-6)


def test_size_one_axis_is_minus_one_with_align_corners(queue):
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    y = warpkit.affine_grid(theta, (1, 1, 1, 3), True, queue=queue)
    np.testing.assert_array_equal(y[0, 0, :, 1], -1)  # y axis has size 1
    np.testing.assert_array_equal(y[0, 0, :, 0], [-1, 0, 1])


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64], ids=["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("r", [2, 3])
def test_dtypes(dtype, r, queue):
    rng = np.random.default_rng([r, 7])
    size = (2, 1, 5, 6, 7)[: r + 2]
    theta = _theta(rng, 2, r, dtype)
    if refused_without_fp64(queue, [dtype], lambda: warpkit.affine_grid(theta, size, 0,
                                                                       queue=queue)):
        return
    for align in (0, 1):
        y = warpkit.affine_grid(theta, size, align, queue=queue)
        assert y.dtype == dtype
        if dtype == np.float64:
            # float64 oracle: the reference's float64 matmul before its float32 cast
            ref = _f64_oracle(theta, size, align)
            np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
        else:
            ref = reference_affine_grid(theta.astype(np.float32), size, align).astype(dtype)
            assert_close(y, ref, "linear", str(dtype))


def _f64_oracle(theta, size, align):
    """The reference's own base grid (float64) and matmul, without its final float32 cast."""
    from onnx.reference.ops.op_affine_grid import construct_original_grid

    base = construct_original_grid(tuple(size[2:]), align)  # (..., r + 1): x, y, [z], 1
    return np.einsum("nij,...j->n...i", theta.astype(np.float64), base)


def test_device_arrays(queue):
    theta = _theta(np.random.default_rng(1), 3, 2, np.float32)
    td = cla.to_device(queue, np.concatenate([theta, theta]))[3:]  # an offset into the buffer
    y = warpkit.affine_grid(td, (3, 1, 8, 9))
    assert isinstance(y, cla.Array)
    np.testing.assert_array_equal(y.get(), warpkit.affine_grid(theta, (3, 1, 8, 9), queue=queue))


def test_non_native_byte_order(queue):
    theta = _theta(np.random.default_rng(2), 2, 2, np.float32)
    y = warpkit.affine_grid(foreign_byte_order(theta), (2, 1, 6, 7), queue=queue)
    assert y.dtype == np.float32 and y.dtype.isnative
    np.testing.assert_array_equal(y, warpkit.affine_grid(theta, (2, 1, 6, 7), queue=queue))


def test_feeds_grid_sample(queue):
    """An identity theta with align_corners reproduces X through grid_sample."""
    X = np.random.default_rng(2).standard_normal((2, 3, 6, 7)).astype(np.float32)
    theta = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (2, 1, 1))
    for align in (0, 1):
        grid = warpkit.affine_grid(theta, X.shape, align, queue=queue)
        np.testing.assert_allclose(warpkit.grid_sample(X, grid, align_corners=align, queue=queue), X,
                                   atol=1e-5)


def test_empty(queue):
    y = warpkit.affine_grid(np.zeros((0, 2, 3), np.float32), (0, 1, 4, 4), queue=queue)
    assert y.shape == (0, 4, 4, 2)
    y = warpkit.affine_grid(np.zeros((1, 2, 3), np.float32), (1, 1, 0, 4), queue=queue)
    assert y.shape == (1, 0, 4, 2)


@pytest.mark.parametrize("theta,size,exc,match", [
    (np.zeros((1, 2, 3), np.float32), (2, 1, 4, 4), ValueError,
     r"theta must have shape \(N, 2, 3\) = \(2, 2, 3\) for a size of length 4 \(\(2, 1, 4, 4\)\), got \(1, 2, 3\)"),
    (np.zeros((1, 2, 3), np.float32), (1, 1, 4, 4, 4), ValueError,
     r"theta must have shape \(N, 3, 4\)"),
    (np.zeros((1, 2, 3), np.float32), (1, 1, 4), ValueError,
     r"size must be 4 integers \(N, C, H, W\) or 5 \(N, C, D, H, W\)"),
    (np.zeros((1, 2, 3), np.float32), (1, 1, -4, 4), ValueError, r"size must be >= 0 everywhere"),
    (np.zeros((1, 2, 3), np.float32), (1.0, 1.0, 4.0, 4.0), ValueError, r"size must be 4 integers"),
    (np.zeros((1, 2, 3), np.int32), (1, 1, 4, 4), TypeError, r"theta must have a floating dtype"),
])
def test_bad_input(theta, size, exc, match):
    with pytest.raises(exc, match=match):
        warpkit.affine_grid(theta, size)
