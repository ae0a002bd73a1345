"""ONNX's own node-test runner on warpkit's backend, plus models, opset defaults and errors."""

from __future__ import annotations

import pathlib

import unittest
import warnings

import numpy as np
import onnx
import onnx.backend.test
import pytest
from onnx import TensorProto, helper

from oracles import reference_grid_sample, reference_roi_align
from warpkit.onnx_backend import WarpkitBackend

import re

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _runner = onnx.backend.test.BackendTest(WarpkitBackend, __name__)
    _runner.include(r"^test_gridsample.*_cpu$")
    _runner.include(r"^test_affine_grid_(2d|3d).*_cpu$")
    _runner.include(r"^test_roialign.*_cpu$")
    _runner.exclude(r"_expanded")
    _CASES = _runner.test_cases

# ONNX's runner makes unittest classes holding every ONNX test, the others marked skipped; run
# the 25 that apply, one pytest test each, and require each to pass (not skip)
_WANT = re.compile(r"^test_(gridsample|affine_grid_(2d|3d)|roialign).*_cpu$")
_NODE_TESTS = sorted((name, cls) for cls in _CASES.values() for name in dir(cls)
                     if _WANT.match(name) and "_expanded" not in name)


def test_runner_collects_all_25_node_cases():
    names = [n for n, _ in _NODE_TESTS]
    assert len(names) == 25, names
    assert sum(n.startswith("test_gridsample") for n in names) == 18
    assert sum(n.startswith("test_affine_grid") for n in names) == 4
    assert sum(n.startswith("test_roialign") for n in names) == 3


@pytest.mark.parametrize("name,cls", _NODE_TESTS, ids=[n for n, _ in _NODE_TESTS])
def test_onnx_runner_node_case(name, cls):
    result = unittest.TestResult()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls(name).run(result)
    assert result.testsRun == 1
    assert not result.skipped, result.skipped
    assert not result.failures and not result.errors, (result.failures + result.errors)[0][1]


def _model(nodes, inputs, outputs, opsets, initializers=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             ir_version=10)


def _vi(name, t=TensorProto.FLOAT, rank=4):
    """A value of unknown sizes (the checker wants a shape, not its sizes)."""
    return helper.make_tensor_value_info(name, t, [None] * rank)


def test_affine_grid_into_grid_sample_model():
    """A two-node model: AffineGrid's grid feeds GridSample; the size is an initializer."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    theta = (np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (2, 1, 1))
             + rng.uniform(-0.2, 0.2, (2, 2, 3)).astype(np.float32))
    size = onnx.numpy_helper.from_array(np.array([2, 3, 5, 6], np.int64), "size")
    m = _model([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=1),
                helper.make_node("GridSample", ["X", "grid"], ["Y"], mode="cubic", align_corners=1)],
               [_vi("X"), _vi("theta", rank=3)], [_vi("Y")], [("", 20)], [size])
    (y,) = WarpkitBackend.prepare(m).run({"X": X, "theta": theta})
    import warpkit

    grid = warpkit.affine_grid(theta, (2, 3, 5, 6), True)
    np.testing.assert_allclose(y, reference_grid_sample(X, grid, "cubic", "zeros", 1),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset,domain,mode_name", [(16, "", "bilinear"), (20, "", "linear"),
                                                    (22, "", "linear"), (1, "com.microsoft", "bilinear")])
def test_grid_sample_defaults_follow_the_opset(opset, domain, mode_name):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    grid = rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    node = helper.make_node("GridSample", ["X", "grid"], ["Y"], domain=domain)
    opsets = [("", 20 if domain else opset)] + ([(domain, opset)] if domain else [])
    (y,) = WarpkitBackend.run_model(_model([node], [_vi("X"), _vi("grid")], [_vi("Y")], opsets),
                                    [X, grid])
    np.testing.assert_allclose(y, reference_grid_sample(X, grid, "linear", "zeros", 0), rtol=1e-6)


def test_roi_align_opset10_is_output_half_pixel():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    rois = np.array([[0.5, 0.5, 4.2, 3.7], [1, 1, 1.5, 5]], np.float32)
    bidx = np.array([0, 0], np.int64)
    node = helper.make_node("RoiAlign", ["X", "rois", "b"], ["Y"], output_height=2, output_width=2)
    ins = [_vi("X"), _vi("rois", rank=2), _vi("b", TensorProto.INT64, rank=1)]
    (y10,) = WarpkitBackend.run_model(_model([node], ins, [_vi("Y")], [("", 10)]), [X, rois, bidx])
    (y16,) = WarpkitBackend.run_model(_model([node], ins, [_vi("Y")], [("", 16)]), [X, rois, bidx])
    kw = dict(output_height=2, output_width=2)
    np.testing.assert_allclose(y10, reference_roi_align(X, rois, bidx, coordinate_transformation_mode="output_half_pixel", **kw), rtol=1e-5)
    np.testing.assert_allclose(y16, reference_roi_align(X, rois, bidx, coordinate_transformation_mode="half_pixel", **kw), rtol=1e-5)
    assert not np.allclose(y10, y16)


def test_unsupported_operators_are_named():
    m = _model([helper.make_node("Relu", ["X"], ["A"]), helper.make_node("Conv", ["A", "W"], ["Y"])],
               [_vi("X"), _vi("W")], [_vi("Y")], [("", 20)])
    assert not WarpkitBackend.is_compatible(m)
    with pytest.raises(NotImplementedError, match=r"this model also uses: Conv, Relu"):
        WarpkitBackend.prepare(m)


def test_opset_too_old_and_wrong_inputs():
    node = helper.make_node("GridSample", ["X", "grid"], ["Y"])
    with pytest.raises(NotImplementedError, match=r"GridSample does not exist in opset 15"):
        WarpkitBackend.run_node(node, [np.zeros((1, 1, 2, 2), np.float32),
                                       np.zeros((1, 1, 1, 2), np.float32)], opset_version=15)
    m = _model([node], [_vi("X"), _vi("grid")], [_vi("Y")], [("", 20)])
    with pytest.raises(ValueError, match=r"the model takes 2 inputs \(X, grid\), got 1"):
        WarpkitBackend.prepare(m).run([np.zeros((1, 1, 2, 2), np.float32)])


def test_run_node_uses_opset_version():
    node = helper.make_node("RoiAlign", ["X", "rois", "b"], ["Y"])
    X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 0.5, 0.5]], np.float32)
    b = np.array([0], np.int64)
    y10 = WarpkitBackend.run_node(node, [X, rois, b], opset_version=10)[0]
    y22 = WarpkitBackend.run_node(node, [X, rois, b])[0]
    assert y10.shape == y22.shape == (1, 1, 1, 1) and y10.item() != y22.item()


def test_operator_table_in_the_guide_is_the_registry():
    """The ONNX operators are written once: where each is defined. The guide's table and the
    backend's messages come from that registry."""
    from warpkit import _onnx_ops

    guide = (pathlib.Path(__file__).parent.parent / "docs" / "guide.md").read_text()
    assert _onnx_ops.markdown_table() in guide
    assert {(op.domain, op.op_type) for op in _onnx_ops.ONNX_OPS.values()} == {
        ("", "GridSample"), ("com.microsoft", "GridSample"), ("", "AffineGrid"), ("", "RoiAlign")}
