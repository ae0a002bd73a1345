"""The ONNX operators warpkit runs, registered where each operator is defined.

Each operator module registers a handler with :func:`onnx_op`; the ONNX backend
(:mod:`warpkit.onnx_backend`) runs nodes through this registry, and its error messages and the
operator table in docs/guide.md are made from it. Nothing here imports ``onnx``: attributes
arrive as a plain dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OnnxNode:
    """What a handler needs of a node: its type, its name (for messages) and its attributes."""

    op_type: str
    name: str
    attrs: dict[str, Any]

    def only(self, allowed: set[str]) -> None:
        """Refuse attributes that this opset does not define."""
        extra = sorted(set(self.attrs) - allowed)
        if extra:
            raise ValueError(f"{self.op_type} node {self.name!r} has attributes this opset does "
                             f"not define: {', '.join(extra)}")

    def text(self, key: str, default: str) -> str:
        v = self.attrs.get(key, default)
        return v.decode() if isinstance(v, bytes) else str(v)


@dataclass(frozen=True)
class OnnxOp:
    domain: str  #: "" for the default domain (ai.onnx)
    op_type: str
    opsets: tuple[int, ...]  #: the opset versions that define it (tested)
    run: Callable[[OnnxNode, list, int, str], list]  #: (node, inputs, opset, domain) -> outputs
    defaults: str = ""  #: attribute defaults that depend on the opset, for the docs

    @property
    def name(self) -> str:
        return f"{self.domain + ' ' if self.domain else ''}{self.op_type}"


#: (domain, op_type) -> OnnxOp
ONNX_OPS: dict[tuple[str, str], OnnxOp] = {}


def onnx_op(op_type: str, opsets: tuple[int, ...], domain: str = "", defaults: str = ""):
    """Register the decorated handler as the ONNX operator ``op_type`` of ``domain``."""

    def register(fn: Callable) -> Callable:
        ONNX_OPS[(domain, op_type)] = OnnxOp(domain, op_type, tuple(opsets), fn, defaults)
        return fn

    return register


def _ops() -> list[OnnxOp]:
    return sorted(ONNX_OPS.values(), key=lambda op: (op.op_type, op.domain))


def describe() -> str:
    """'AffineGrid (opset 20), ...': the registered operators in one phrase."""
    parts = [f"{op.name} ({'opset' if len(op.opsets) == 1 else 'opsets'} "
             f"{', '.join(map(str, op.opsets))})" for op in _ops()]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def markdown_table() -> str:
    """The operator table of docs/guide.md (a test keeps the two the same)."""
    rows = ["| operator | opsets | defaults that depend on the opset |", "|---|---|---|"]
    rows += [f"| {op.name} | {', '.join(map(str, op.opsets))} | {op.defaults} |"
             for op in _ops()]
    return "\n".join(rows)
