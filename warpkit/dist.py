"""Warp, crop and augment many files on a Dask cluster, one OpenCL device per worker.

``pip install 'warpkit[dask]'``. The per-file work is the command line's own (the picklable jobs
of :mod:`warpkit.files`), so workers need nothing but warpkit installed, and the outputs are
byte for byte what ``warpkit warp/crop/augment`` writes in one process::

    from warpkit import dist

    s = dist.warp_files("photos/*.jpg", "out/", rotate=15, expand=True, n_workers=4)
    s = dist.augment_files(["a.jpg", "b.jpg"], "aug/", copies=8, seed=7, degrees=20,
                           scheduler="tcp://10.0.0.5:8786")
    print(s.describe())         # files done, skipped, failed; which worker used which device

**Devices.** A worker plugin (:class:`DevicePlugin`) gives each worker process its OpenCL context
once, before its first task: ``device=`` names one device for every worker (as
``WARPKIT_DEVICE``); ``devices=`` maps worker names (or addresses) to devices, or lists several
(a node's GPUs) from which each worker claims a free one with a lock file, sharing only when
there are more workers than devices; by default a node with
several GPUs is shared out the same way, else each worker takes the default device. Several
workers on one CPU device split its cores: PoCL's threads are capped at cores / workers on that
host, so that they do not oversubscribe them.

**Restartable.** Files whose outputs all exist are skipped (``overwrite=True`` redoes them);
the others are written whole, replacing any outputs an earlier attempt left (outputs are
deterministic; a task retried after its worker died may find its own).
Every file's result goes to a manifest, a JSON-lines file (default
``OUTPUT/warpkit-manifest.jsonl``), appended as results arrive: source, outputs, status
(``done``, ``failed``, ``skipped``, ``lost`` with a killed worker), the error, the worker and
its device, and each output's matrix or parameters. A rerun after an interruption or a lost
worker does only what is missing. Augmented copies follow from (seed, file name, copy) alone,
so they do not depend on the partitioning or on the number of workers.
"""

from __future__ import annotations

import collections
import dataclasses
import fcntl
import json
import math
import os
import re
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._options import Sampling
from ._threads import cores as host_cores
from .augment import RandomAffine
from .fileio import (DEFAULT_MAX_PIXELS, UserError, check_side_outputs, expand_inputs,
                     remove_stale_temporaries)
from .files import AugmentJob, CropJob, WarpJob, file_message
from .files import progress as progress_bar
from .files import tasks as files_tasks

MANIFEST = "warpkit-manifest.jsonl"

try:
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # the plugin is only made where Dask is installed
    _WorkerPlugin = object  # type: ignore[assignment,misc]


@dataclass
class Summary:
    """What a run did: counts, the records of the outputs written, one line per failed file,
    and which worker used which device."""

    total: int
    done: int = 0
    skipped: int = 0
    failed: int = 0
    lost: int = 0
    records: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    workers: dict[str, str] = field(default_factory=dict)  #: address -> device
    files_by_worker: dict[str, int] = field(default_factory=dict)
    manifest: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.lost

    def describe(self) -> str:
        lines = [f"{self.done} files done, {self.skipped} already done (skipped), "
                 f"{self.failed} failed" + (f", {self.lost} lost with their worker" if self.lost
                                            else "")
                 + f" of {self.total} in {self.seconds:.1f} s; manifest {self.manifest}"]
        for addr, dev in sorted(self.workers.items()):
            lines.append(f"  worker {addr}: {dev}, {self.files_by_worker.get(addr, 0)} files")
        return "\n".join(lines)


# ---- workers ---------------------------------------------------------------------------------

def _lock_dir() -> str:
    return os.path.join(tempfile.gettempdir(), f"warpkit-devices-{os.getuid()}")


def _claim(specs: Sequence[str]) -> tuple[str, Any]:
    """The first of ``specs`` no other process on this host holds (an exclusive lock on a file
    per device, held for the process's life), or, all taken, the least recent by position."""
    os.makedirs(_lock_dir(), exist_ok=True)
    for spec in specs:
        path = os.path.join(_lock_dir(), re.sub(r"[^A-Za-z0-9_.-]", "_", spec) + ".lock")
        fh = open(path, "a")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return spec, fh
        except OSError:
            fh.close()
    return specs[os.getpid() % len(specs)], None


#: the device spec a plugin last gave this worker process (None: the default rules)
_APPLIED: str | None = None


class DevicePlugin(_WorkerPlugin):
    """Gives a Dask worker its OpenCL device once, before its first task (see the module)."""

    name = "warpkit-device"

    def __init__(self, device: str | None = None,
                 devices: Sequence[str] | dict[str, str] | None = None,
                 cpu_threads: dict[str, int] | None = None) -> None:
        self.device = device
        #: a worker name or address -> its device, or devices to claim from
        self.mapping = dict(devices) if isinstance(devices, dict) else None
        self.devices = list(devices) if devices and self.mapping is None else None
        self.cpu_threads = cpu_threads or {}  # host -> PoCL threads per worker
        self._lock = None
        self.description = ""

    def setup(self, worker) -> None:
        threads = self.cpu_threads.get(_host(worker.address))
        if threads:  # before OpenCL starts in this process: PoCL reads these once
            os.environ["POCL_MAX_PTHREAD_COUNT"] = str(threads)
            os.environ["POCL_CPU_MAX_CU_NUM"] = str(threads)
            # never pinned (a POCL_AFFINITY=1 from the environment the worker was started
            # with): every worker of the host would put its threads on the same first CPUs
            os.environ["POCL_AFFINITY"] = "0"
        import warpkit
        from warpkit.runtime import list_devices

        spec = self.device
        if self.mapping is not None:
            spec = self.mapping.get(str(worker.name), self.mapping.get(worker.address, spec))
        devices = self.devices
        if spec is None and devices is None:
            gpus = [e.index for e in list_devices() if e.kind == "GPU"]
            devices = gpus if len(gpus) > 1 else None
        if spec is None and devices:
            spec, self._lock = _claim(devices)
        global _APPLIED
        # a new spec (this plugin registered again with another device) makes a new default
        # runtime; the same one keeps the runtime and its built kernels
        rt = warpkit.get_runtime() if spec == _APPLIED else warpkit.set_device(spec)
        _APPLIED = spec
        self.description = f"{rt.index if hasattr(rt, 'index') else ''} {rt.name} on " \
            f"{rt.platform}, {rt.compute_units} compute units".strip()

    def teardown(self, worker) -> None:
        if self._lock is not None:
            self._lock.close()


def _worker_device(dask_worker) -> str:
    """The device a worker's plugin gave it (Client.run passes the worker)."""
    plugin = dask_worker.plugins.get(DevicePlugin.name)
    return getattr(plugin, "description", "") or "no warpkit device yet"


def _run_chunk(job, chunk: list[tuple[str, list[str]]]) -> list[dict]:
    """Run a job on a chunk of files in a worker; a failing file is a record, not an error.
    Files are written whole, replacing what an earlier attempt left (outputs are
    deterministic, and a task retried after its worker died may find its own there); files
    whose outputs all existed were skipped before (unless overwrite)."""
    from distributed import get_worker

    worker = get_worker().address
    job = dataclasses.replace(job, overwrite=True)
    out = []
    for src, dests in chunk:
        t0 = time.perf_counter()
        try:
            records = job(Path(src), [Path(d) for d in dests], {Path(src).resolve()})
            status, error = "done", None
        except Exception as e:  # noqa: BLE001 - any one file's failure is reported, the rest go on
            records, status, error = [], "failed", file_message(src, e)
        out.append({"source": src, "outputs": dests, "status": status, "error": error,
                    "worker": worker, "seconds": round(time.perf_counter() - t0, 4),
                    "records": records})
    return out


# ---- the client side -------------------------------------------------------------------------

def _client(client, scheduler: str | None, n_workers: int | None, device: str | None = None):
    """(client, what to close) for the arguments: a given client, a scheduler's address, or a
    local cluster of ``n_workers`` processes (default 2) on 127.0.0.1 without a dashboard."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("the Dask engine needs dask.distributed: pip install 'warpkit[dask]'") \
            from None
    if client is not None:
        return client, []
    if scheduler is None and device is not None:  # a local cluster: check the spec here first
        from .runtime import choose_device

        choose_device(device)
    if scheduler is not None:
        if n_workers is not None:
            raise ValueError("pass a scheduler address or a number of local workers, not both")
        c = Client(scheduler, timeout="30s")
        return c, [c]
    cluster = LocalCluster(n_workers=n_workers or 2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None,  # no dashboard, and its
                           # HTTP server (health checks) on a free port, not 8787
                           scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    c = Client(cluster)
    return c, [c, cluster]


def _host(address: str) -> str:
    """The host of a worker address (tcp://10.0.0.5:40123 -> 10.0.0.5)."""
    return address.split("://")[-1].rsplit(":", 1)[0]


def _cpu_threads(client) -> dict[str, int]:
    """PoCL threads per worker on each host: its cores shared by its workers."""
    workers = client.scheduler_info()["workers"]
    per_host = collections.Counter(_host(addr) for addr in workers)
    cores = client.run(host_cores)
    return {_host(addr): max(1, (cores.get(addr) or 1) // per_host[_host(addr)])
            for addr in workers}


def run(job, tasks: Sequence[tuple[Path, list[Path]]], output: str | os.PathLike, *,
        client=None,
        scheduler: str | None = None, n_workers: int | None = None, device: str | None = None,
        devices: Sequence[str] | dict[str, str] | None = None, manifest: str | os.PathLike | None = None,
        chunk: int | None = None, progress: str | None = None) -> Summary:
    """Run a job (one of :mod:`warpkit.files`') over (input, outputs) tasks on a Dask
    cluster, the manifest in ``output`` (a directory) unless ``manifest`` names it. The
    building block of :func:`warp_files`, :func:`crop_files` and
    :func:`augment_files` (and of the command line's ``--engine dask``)."""
    t0 = time.perf_counter()
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int)
                              or chunk < 1):
        raise ValueError(f"chunk (files per task) must be an int >= 1, got {chunk!r}")
    inputs = {Path(src).resolve() for src, _ in tasks}
    for src, dests in tasks:  # never an input overwritten, checked once here
        for d in dests:
            if Path(d).resolve() in inputs:
                raise ValueError(f"refusing to overwrite the input {d}")
    manifest = Path(manifest) if manifest is not None else Path(output) / MANIFEST

    try:  # the manifest is an output like the others (appended to, so it may exist)
        check_side_outputs([("manifest", manifest, False)], dict.fromkeys(inputs, "the input"),
                           {Path(d).resolve() for _, ds in tasks for d in ds}, overwrite=True)
    except UserError as e:
        raise ValueError(str(e)) from None
    summary = Summary(total=len(tasks), manifest=str(manifest))
    todo = []
    skipped = []
    for src, dests in tasks:
        have = [Path(d).exists() for d in dests]
        if dests and all(have) and not job.overwrite:
            skipped.append({"source": str(src), "outputs": [str(d) for d in dests],
                            "status": "skipped", "error": None, "worker": None, "records": []})
        else:
            todo.append((str(src), [str(d) for d in dests]))
    summary.skipped = len(skipped)
    for _, dests in todo:
        for d in dests[:1]:
            Path(d).parent.mkdir(parents=True, exist_ok=True)
        # what a killed worker left half-written for these outputs: removed before they are
        # written again (nothing of this run is writing yet)
        remove_stale_temporaries([Path(d) for d in dests])
    manifest.parent.mkdir(parents=True, exist_ok=True)
    _end_line(manifest)
    c, close = _client(client, scheduler, n_workers, device)
    try:
        _setup_workers(c, device, devices)
        summary.workers = c.run(_worker_device)
        nw = max(1, len(summary.workers))
        size = chunk or max(1, min(64, math.ceil(len(todo) / (nw * 8)))) if todo else 1
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        from distributed import as_completed

        futures = {c.submit(_run_chunk, job, ch, pure=False): ch for ch in chunks}
        with open(manifest, "a") as mf, progress_bar(len(tasks) if progress else 0) as bar:
            task = bar.add_task(progress or "", total=len(tasks))
            for rec in skipped:
                mf.write(json.dumps(rec) + "\n")
                bar.advance(task)
            mf.flush()
            for fut in as_completed(futures):
                try:
                    results = fut.result()
                except Exception as e:  # noqa: BLE001 - a killed worker: its files are lost
                    results = [{"source": src, "outputs": dests, "status": "lost",
                                "error": f"{src}: lost ({type(e).__name__}: {e})",
                                "worker": None, "records": []}
                               for src, dests in futures[fut]]
                for r in results:
                    mf.write(json.dumps(r) + "\n")
                    if r["status"] == "done":
                        summary.done += 1
                        summary.records.extend(r["records"])
                        summary.files_by_worker[r["worker"]] = \
                            summary.files_by_worker.get(r["worker"], 0) + 1
                    else:
                        summary.failed += r["status"] == "failed"
                        summary.lost += r["status"] == "lost"
                        summary.failures.append(r["error"])
                    bar.advance(task)
                mf.flush()
    finally:
        for obj in close:
            obj.close()
    summary.seconds = time.perf_counter() - t0
    return summary


def _end_line(manifest: Path) -> None:
    """A manifest whose last record was cut off (a killed run) gets a newline first, so that
    the next record starts a line of its own instead of being glued to the broken one."""
    try:
        with open(manifest, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return
            fh.seek(-1, os.SEEK_END)
            last = fh.read(1)
    except FileNotFoundError:
        return
    if last != b"\n":
        with open(manifest, "a") as fh:
            fh.write("\n")


def worker_devices(client=None, scheduler: str | None = None, device: str | None = None,
                   devices: Sequence[str] | None = None) -> dict[str, str]:
    """The device each worker of a cluster uses (giving it one first, as a run would):
    worker address -> "index name on platform, compute units"."""
    c, close = _client(client, scheduler, None if (client or scheduler) else 2)
    try:
        _setup_workers(c, device, devices)
        return c.run(_worker_device)
    finally:
        for obj in close:
            obj.close()


def _setup_workers(c, device, devices) -> None:
    """Register the device plugin (each worker, present and future, gets its device once)."""
    c.register_plugin(DevicePlugin(device, devices, _cpu_threads(c)), name=DevicePlugin.name)


def _files(inputs: str | os.PathLike | Iterable) -> list[Path]:
    items = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    try:
        return expand_inputs([str(i) for i in items])
    except UserError as e:
        raise ValueError(str(e)) from None


def _tasks(files: list[Path], dests_of) -> list[tuple[Path, list[Path]]]:
    try:
        return files_tasks(files, dests_of)
    except UserError as e:
        raise ValueError(str(e)) from None


def _sampling(kw: dict) -> Sampling:
    """The command's sampling options taken out of ``kw``, checked."""
    return Sampling.of(**{k: kw.pop(k) for k in Sampling._fields if k in kw})


def _engine(kw: dict) -> dict:
    return {k: kw.pop(k) for k in ("client", "scheduler", "n_workers", "device", "devices",
                                   "manifest", "chunk", "progress") if k in kw}


def warp_files(inputs, output: str | os.PathLike, *, overwrite: bool = False, **options
               ) -> Summary:
    """``warpkit warp`` on a cluster: every input warped into the directory ``output``.

    Options as the command's: ``rotate``, ``scale``, ``translate`` (dx, dy), ``shear``,
    ``flip`` ("h"/"v"), ``matrix`` or ``perspective`` (the command's text forms), ``size``
    (w, h), ``expand``, ``interpolation``, ``padding``, ``fill``, ``antialias``,
    ``max_pixels``; and the engine's: ``client``, ``scheduler``, ``n_workers``, ``device``,
    ``devices``, ``manifest``, ``chunk`` (files per task).

    Example:
        >>> s = dist.warp_files("photos/*.jpg", "out/", rotate=15, n_workers=2)  # doctest: +SKIP
        >>> s.done, s.failed
        (200, 0)
    """
    eng = _engine(options)
    sampling = _sampling(options)
    job = WarpJob(**options, sampling=sampling, overwrite=overwrite)
    _checked(job.check)
    out = Path(output)
    return run(job, _tasks(_files(inputs), lambda f: [out / f.name]), out, **eng)


def crop_files(inputs, output: str | os.PathLike, boxes, size: tuple[int, int], *,
               overwrite: bool = False, **options) -> Summary:
    """``warpkit crop`` on a cluster: ``boxes`` (x1, y1, x2, y2 lists) cut from every input, or
    a dict mapping file names to their own boxes; each patch resized to ``size`` (w, h) and
    written as ``output/<name>_<k>.<ext>``. Options: ``interpolation``, ``padding``, ``fill``,
    ``antialias``, ``max_pixels`` and the engine's (see :func:`warp_files`)."""
    eng = _engine(options)
    options["sampling"] = _sampling(options)
    if isinstance(boxes, dict):
        job = CropJob(size=tuple(size), boxes_by_name={str(k): [list(map(float, b)) for b in v]
                                                        for k, v in boxes.items()},
                      overwrite=overwrite, **options)
    else:
        job = CropJob(size=tuple(size), boxes=tuple(tuple(map(float, b)) for b in boxes),
                      overwrite=overwrite, **options)
    out = Path(output)
    return run(job, _tasks(_files(inputs), lambda f: job.dests(f, out)), out, **eng)


def augment_files(inputs, output: str | os.PathLike, *, copies: int = 1, seed: int = 0,
                  pipeline: Any = None, fill: Any = 0, overwrite: bool = False,
                  max_pixels: int | None = None, **options) -> Summary:
    """``warpkit augment`` on a cluster: ``copies`` augmented copies of every input, written as
    ``output/<name>_aug<k>.<ext>``; copy k of a file follows from (``seed``, its file name, k)
    alone. ``pipeline``: a :class:`warpkit.augment.Compose` (or its ``to_dict()``); otherwise
    RandomAffine's options (``degrees``, ``translate``, ``scale``, ``shear``, ``hflip``,
    ``vflip``, ``size``, ``interpolation``, ``padding``, ``antialias``), with the command's
    default padding, ``"reflection"``. Engine options as :func:`warp_files`. ``summary.records`` holds each output's matrix (and pipeline params)."""
    eng = _engine(options)
    if pipeline is not None:
        if options:
            raise ValueError(f"pipeline replaces RandomAffine's options; got {sorted(options)}")
        spec = pipeline if isinstance(pipeline, dict) else pipeline.to_dict()
        job = AugmentJob(copies=copies, seed=seed, pipeline=spec, fill=fill, overwrite=overwrite,
                         max_pixels=max_pixels or DEFAULT_MAX_PIXELS)
        job.transform()  # a bad pipeline fails here, not in every worker
    else:
        options.setdefault("padding", "reflection")  # the command's default
        RandomAffine(**options)  # a bad option fails here, with RandomAffine's message
        job = AugmentJob(copies=copies, seed=seed, affine=dict(options), fill=fill,
                         overwrite=overwrite, max_pixels=max_pixels or DEFAULT_MAX_PIXELS)
    if not isinstance(copies, int) or copies < 1:
        raise ValueError(f"copies must be an int >= 1, got {copies!r}")
    out = Path(output)
    return run(job, _tasks(_files(inputs), lambda f: job.dests(f, out)), out, **eng)


def _checked(fn) -> None:
    try:
        fn()
    except UserError as e:
        raise ValueError(str(e)) from None
