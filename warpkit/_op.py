"""The skeleton every operator follows: validated inputs -> a cached plan per layout -> launch.

An operator function checks its arguments, picks the runtime, and asks its :class:`PlanCache`
for the plan of these layouts and options. A plan is made once per layout: every check that
depends only on shapes, strides, dtypes and options, the kernel variants, their scalar arguments
and work sizes. A call then binds its arrays (and the few values that depend on the data, such
as a warp's matrices) and launches::

    def my_op(X, ..., queue=None):
        xo = operand(X, "X")                        # 1. inputs, checked
        rt = pick_runtime(queue, xo)
        plan = _PLANS.get((rt, xo.layout, opts), lambda: _plan(rt, xo, opts))   # 2. the plan
        return plan.run({"X": xo})                  # 3. buffers bound, kernels launched

The plan's launches name what they take per call with :class:`Arg`: ``Arg("X")`` is the buffer
of the operand called X, ``Arg("Y")`` the result's, and any other name a value passed to
:meth:`Plan.run` or a scratch buffer the plan declares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pyopencl as cl

from ._memory import DeviceResults, Operand, Output, to_device
from .programs import bind
from .runtime import Runtime, launch


@dataclass(frozen=True)
class Variant:
    """A kernel variant: its source file, its entry point and its build defines. Frozen and
    hashable: programs are built and kernel objects kept once per variant (Runtime.kernel),
    the way pyopencl's memoized kernel getters take the variant as their arguments."""

    source: str
    entry: str
    defines: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, source: str, entry: str, **defines: Any) -> Variant:
        return cls(source, entry, tuple(sorted(defines.items())))

    def kernel(self, rt: Runtime) -> cl.Kernel:
        return rt.kernel(self.source, self.defines, self.entry)


class Arg(NamedTuple):
    """A kernel argument bound per call: an operand's buffer ("X"), the result's ("Y"), a
    scratch buffer of the plan, or a value given to :meth:`Plan.run`."""

    name: str


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a plan. ``batch``: host operands and a host result are bound as
    their slice ``[n0:n1]`` along the first axis (plans split batches too large for one buffer);
    device arrays are bound whole and indexed through the launch's offsets. ``per_item``: a
    call may launch it once per item of its last axis (a ragged batch read where its images
    are, :meth:`Plan.run`'s ``"per_item"`` value)."""

    variant: Variant
    args: tuple
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    batch: tuple[int, int] | None = None
    per_item: bool = False

    def __post_init__(self) -> None:
        # where the per-call arguments go, found once (a call only fills them in)
        slots = tuple((i, a.name) for i, a in enumerate(self.args) if isinstance(a, Arg))
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "writes_y", any(name == "Y" for _, name in slots))


@dataclass(frozen=True)
class Scratch:
    """A device buffer the launches of one call share (``zero``: filled with zeros first)."""

    name: str
    nbytes: int
    zero: bool = False


@dataclass(frozen=True)
class Plan:
    """Everything a call with these layouts and options needs but its arrays."""

    rt: Runtime
    out_shape: tuple[int, ...]
    dtype: np.dtype
    on_device: bool
    launches: tuple[Launch, ...] = ()
    scratch: tuple[Scratch, ...] = ()

    def __post_init__(self) -> None:
        # a device result's shape, element count and strides, for every call
        object.__setattr__(self, "results", DeviceResults(self.out_shape, self.dtype))

    def run(self, operands: dict[str, Operand], values: dict[str, Any] | None = None,
            pending: list | None = None, out: np.ndarray | None = None) -> Any:
        """Bind ``operands`` (by name) and ``values`` to the launches, run them in order, and
        return the result (numpy or a device array, as the plan was made for). With
        ``pending`` (a list), the waits for host results are appended to it instead of done:
        the result is valid once every one of them has been called (several calls then run
        back to back, with one wait at the end). ``out``: a host result's array, given by the
        caller (checked by it: C-contiguous, the result's shape and dtype). A ``"per_item"``
        value (a list of dicts, one per item) launches each ``per_item`` launch once per item,
        item k with the global work offset k on its last axis and its dict's values in place
        of the call's (each image of a ragged batch in a buffer of its own)."""
        rt = self.rt
        if self.on_device:
            for op in operands.values():
                if op.dev is None:
                    break
            else:
                return self._run_on_device(operands, values)
        out = Output(rt, self.out_shape, self.dtype, self.on_device, out)
        bound: dict[Any, Any] = dict(values or {})
        bound.update(self._scratch())
        for ln in self.launches:
            vals = []
            yv = None
            for _, name in ln.slots:
                if name == "Y":
                    h = None if out.on_device or ln.batch is None else out.host[slice(*ln.batch)]
                    yv = out.view(h)
                    vals.append(yv.buf)
                elif name in bound:
                    vals.append(bound[name])
                else:  # an operand's view serves every launch of the same slice; it keeps a
                    key = (name, ln.batch)  # host array's memory alive
                    view = bound.get(key)
                    if view is None:
                        op = operands[name]
                        host = None if op.dev is not None or ln.batch is None else \
                            op.host[slice(*ln.batch)]
                        view = bound[key] = to_device(rt, op, host)
                    vals.append(view.buf)
            kernel = ln.variant.kernel(rt)
            items = bound.get("per_item") if ln.per_item else None
            if items is None:
                bind(kernel, ln, vals)
                ev = launch(rt, kernel, ln.global_size, ln.local_size)
            else:  # one launch per item, back to back on the in-order queue: the last event
                # is the last to finish
                one = (*ln.global_size[:-1], 1)
                at = (0,) * (len(one) - 1)
                names = [name for _, name in ln.slots]
                for k, own in enumerate(items):
                    bind(kernel, ln, [own.get(n, v) for n, v in zip(names, vals)])
                    ev = launch(rt, kernel, one, ln.local_size, (*at, k))
            if yv is not None:
                if pending is None:
                    out.finish(yv, ev)
                else:  # the bound views keep their host arrays (and temporary copies) alive
                    # until the kernels reading them are done: a host-pointer buffer's memory
                    # belongs to its numpy array, which nothing else may hold
                    pending.append(lambda out=out, yv=yv, ev=ev, keep=bound: out.finish(yv, ev))
        return out.result()

    def _scratch(self) -> dict[str, Any]:
        """The call's scratch buffers (pooled; zero-filled first where asked)."""
        bound = {}
        for s in self.scratch:
            buf = self.rt.allocate(s.nbytes)
            if s.zero:
                cl.enqueue_fill_buffer(self.rt.queue, buf, np.zeros(1, np.uint8), 0, s.nbytes)
            bound[s.name] = buf
        return bound

    def _run_on_device(self, operands: dict[str, Operand], values: dict[str, Any] | None) -> Any:
        """:meth:`run` where every array is on the device: no views to make (the plan holds
        their offsets and strides, which its key fixed), a result array made from sizes
        computed once, the buffers bound by name: a cached call's host work is a fraction of the
        general path's (benchmarks/bench_host.py measures it); nothing waits, the result carries
        its last kernel's event."""
        rt = self.rt
        y = self.results.new(rt)
        ybuf = y.base_data
        other = {**(values or {}), **self._scratch()} if values or self.scratch else {}
        for ln in self.launches:
            kernel = ln.variant.kernel(rt)  # this thread's
            bind(kernel, ln, [ybuf if name == "Y" else operands[name].dev.base_data
                               if name in operands else other[name] for _, name in ln.slots])
            ev = launch(rt, kernel, ln.global_size, ln.local_size)
            if ln.writes_y:
                y.add_event(ev)
        return y
