"""An ONNX backend (``onnx.backend.base.Backend``) that runs GridSample, AffineGrid and RoiAlign.

Models made of these operators run on warpkit's OpenCL device, each attribute's default taken from
the opset the model imports. The operators, their opsets and those defaults are registered where
each operator is defined (``warpkit._onnx_ops``); docs/guide.md lists them.

Example:
    >>> from warpkit.onnx_backend import WarpkitBackend
    >>> rep = WarpkitBackend.prepare(onnx.load("model.onnx"))      # doctest: +SKIP
    >>> (y,) = rep.run([X, grid])                                   # doctest: +SKIP

ONNX's own runner works with it: ``onnx.backend.test.BackendTest(WarpkitBackend, __name__)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

# the operators register themselves (_onnx_ops.onnx_op) when warpkit's package imports them
from ._onnx_ops import ONNX_OPS, OnnxNode, describe

__all__ = ["WarpkitBackend", "WarpkitRep", "prepare", "run_model", "run_node", "supports_device"]

_LATEST = 22


def _node(node: onnx.NodeProto) -> OnnxNode:
    return OnnxNode(node.op_type, node.name,
                    {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute})


def _run(dom: str, node: onnx.NodeProto, inputs: list, version: int) -> list:
    op = ONNX_OPS[(dom, node.op_type)]
    if version < op.opsets[0]:
        raise NotImplementedError(f"{node.op_type} does not exist in opset {version} "
                                  f"({op.opsets[0]}+)")
    return op.run(_node(node), inputs, version, dom)


def _domain(d: str) -> str:
    return "" if d in ("", "ai.onnx") else d


class WarpkitRep(BackendRep):
    """A prepared graph: its initializers, its nodes in order, and the opsets it imports."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.graph = model.graph
        self.opsets = {_domain(o.domain): o.version for o in model.opset_import}
        unsupported = sorted({f"{n.domain + '.' if n.domain else ''}{n.op_type}"
                              for n in self.graph.node
                              if (_domain(n.domain), n.op_type) not in ONNX_OPS})
        if unsupported:
            raise NotImplementedError(f"warpkit's ONNX backend runs {describe()}; this model "
                                      f"also uses: {', '.join(unsupported)}")
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
            version = self.opsets.get(dom, _LATEST if dom == "" else 1)
            args = [env[name] for name in node.input if name]
            for name, value in zip(node.output, _run(dom, node, args, version)):
                env[name] = value
        return namedtupledict("Outputs", self.output_names)(*[env[n] for n in self.output_names])


class WarpkitBackend(Backend):
    """ONNX backend on warpkit's default OpenCL device (see :mod:`warpkit.runtime`)."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        return all((_domain(n.domain), n.op_type) in ONNX_OPS for n in model.graph.node)

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
        if (dom, node.op_type) not in ONNX_OPS:
            raise NotImplementedError(f"warpkit's ONNX backend does not run {node.op_type}; "
                                      f"it runs {describe()}")
        version = int(kwargs.get("opset_version", _LATEST if dom == "" else 1))
        return tuple(_run(dom, node, list(inputs), version))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        # "CPU" is how ONNX's runner names the default device; warpkit runs on its OpenCL device
        return Device(device).type == DeviceType.CPU


prepare = WarpkitBackend.prepare
run_model = WarpkitBackend.run_model
run_node = WarpkitBackend.run_node
supports_device = WarpkitBackend.supports_device
