"""An ONNX backend (``onnx.backend.base.Backend``) that runs GridSample, AffineGrid and RoiAlign.

Models made of these operators run on warpkit's OpenCL device, each attribute's default taken from
the opset the model imports:

========================  ================  =====================================================
operator                  opsets            defaults that depend on the opset
========================  ================  =====================================================
GridSample                16, 20, 22        mode: ``bilinear`` (16), ``linear`` (20+)
com.microsoft GridSample  1                 mode: ``bilinear``
AffineGrid                20
RoiAlign                  10, 16, 22        opset 10 has no coordinate_transformation_mode and
                                            behaves as ``output_half_pixel``; 16+: ``half_pixel``
========================  ================  =====================================================

Example:
    >>> from warpkit.onnx_backend import WarpkitBackend
    >>> rep = WarpkitBackend.prepare(onnx.load("model.onnx"))      # doctest: +SKIP
    >>> (y,) = rep.run([X, grid])                                   # doctest: +SKIP

ONNX's own runner works with it: ``onnx.backend.test.BackendTest(WarpkitBackend, __name__)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from .affine_grid import affine_grid
from .grid_sample import grid_sample
from .roi_align import roi_align

__all__ = ["WarpkitBackend", "WarpkitRep", "prepare", "run_model", "run_node", "supports_device"]

_LATEST = 22


def _attrs(node: onnx.NodeProto) -> dict[str, Any]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _str(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _grid_sample(node, inputs, version: int, domain: str):
    if domain == "com.microsoft":
        default_mode = "bilinear"
    else:
        if version < 16:
            raise NotImplementedError(f"GridSample does not exist in opset {version} (16+)")
        default_mode = "linear" if version >= 20 else "bilinear"
    a = _attrs(node)
    _only(node, a, {"mode", "padding_mode", "align_corners"})
    X, grid = inputs
    return [grid_sample(X, grid, mode=_str(a.get("mode", default_mode)),
                        padding_mode=_str(a.get("padding_mode", "zeros")),
                        align_corners=int(a.get("align_corners", 0)))]


def _affine_grid(node, inputs, version: int, domain: str):
    if version < 20:
        raise NotImplementedError(f"AffineGrid does not exist in opset {version} (20+)")
    a = _attrs(node)
    _only(node, a, {"align_corners"})
    theta, size = inputs
    size = size.get() if hasattr(size, "get") else np.asarray(size)
    return [affine_grid(theta, size.astype(np.int64), align_corners=int(a.get("align_corners", 0)))]


def _roi_align(node, inputs, version: int, domain: str):
    if version < 10:
        raise NotImplementedError(f"RoiAlign does not exist in opset {version} (10+)")
    a = _attrs(node)
    allowed = {"mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"}
    if version >= 16:
        allowed.add("coordinate_transformation_mode")
    _only(node, a, allowed)
    ctm = _str(a.get("coordinate_transformation_mode",
                     "half_pixel" if version >= 16 else "output_half_pixel"))
    X, rois, batch_indices = inputs
    return [roi_align(X, rois, batch_indices, mode=_str(a.get("mode", "avg")),
                      output_height=int(a.get("output_height", 1)),
                      output_width=int(a.get("output_width", 1)),
                      sampling_ratio=int(a.get("sampling_ratio", 0)),
                      spatial_scale=float(a.get("spatial_scale", 1.0)),
                      coordinate_transformation_mode=ctm)]


def _only(node: onnx.NodeProto, attrs: dict, allowed: set[str]) -> None:
    extra = sorted(set(attrs) - allowed)
    if extra:
        raise ValueError(f"{node.op_type} node {node.name!r} has attributes this opset does not "
                         f"define: {', '.join(extra)}")


_OPS: dict[tuple[str, str], Callable] = {
    ("", "GridSample"): _grid_sample,
    ("com.microsoft", "GridSample"): _grid_sample,
    ("", "AffineGrid"): _affine_grid,
    ("", "RoiAlign"): _roi_align,
}


def _domain(d: str) -> str:
    return "" if d in ("", "ai.onnx") else d


class WarpkitRep(BackendRep):
    """A prepared graph: its initializers, its nodes in order, and the opsets it imports."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.graph = model.graph
        self.opsets = {_domain(o.domain): o.version for o in model.opset_import}
        unsupported = sorted({f"{n.domain + '.' if n.domain else ''}{n.op_type}"
                              for n in self.graph.node
                              if (_domain(n.domain), n.op_type) not in _OPS})
        if unsupported:
            raise NotImplementedError(
                "warpkit's ONNX backend runs GridSample (opsets 16, 20, 22, com.microsoft 1), "
                "AffineGrid (20) and RoiAlign (10, 16, 22); this model also uses: "
                + ", ".join(unsupported)
            )
        self.initializers = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        self.input_names = [i.name for i in self.graph.input if i.name not in self.initializers]
        self.output_names = [o.name for o in self.graph.output]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Run on a list of inputs in the graph's order, or a dict by name."""
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if not isinstance(inputs, (list, tuple)):
                inputs = [inputs]
            if len(inputs) != len(self.input_names):
                raise ValueError(f"the model takes {len(self.input_names)} inputs "
                                 f"({', '.join(self.input_names)}), got {len(inputs)}")
            feeds = dict(zip(self.input_names, inputs))
        missing = [n for n in self.input_names if n not in feeds]
        if missing:
            raise ValueError(f"missing model inputs: {', '.join(missing)}")
        env = {**self.initializers, **feeds}
        for node in self.graph.node:
            dom = _domain(node.domain)
            fn = _OPS[(dom, node.op_type)]
            version = self.opsets.get(dom, _LATEST if dom == "" else 1)
            args = [env[name] for name in node.input if name]
            for name, value in zip(node.output, fn(node, args, version, dom)):
                env[name] = value
        return namedtupledict("Outputs", self.output_names)(*[env[n] for n in self.output_names])


class WarpkitBackend(Backend):
    """ONNX backend on warpkit's default OpenCL device (see :mod:`warpkit.runtime`)."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        return all((_domain(n.domain), n.op_type) in _OPS for n in model.graph.node)

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> WarpkitRep:
        super().prepare(model, device, **kwargs)
        return WarpkitRep(model)

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU",
                  **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Sequence[Any], device: str = "CPU",
                 outputs_info: Any = None, **kwargs: Any) -> tuple[Any, ...]:
        """Run one node; ``opset_version`` (default 22) picks the attribute defaults."""
        dom = _domain(node.domain)
        if (dom, node.op_type) not in _OPS:
            raise NotImplementedError(f"warpkit's ONNX backend does not run {node.op_type}")
        version = int(kwargs.get("opset_version", _LATEST if dom == "" else 1))
        return tuple(_OPS[(dom, node.op_type)](node, list(inputs), version, dom))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        # "CPU" is how ONNX's runner names the default device; warpkit runs on its OpenCL device
        return Device(device).type == DeviceType.CPU


prepare = WarpkitBackend.prepare
run_model = WarpkitBackend.run_model
run_node = WarpkitBackend.run_node
supports_device = WarpkitBackend.supports_device
