"""The ``warpkit`` command: a thin typer layer over the public API.

User errors exit with code 1 and a one-line message, never a traceback.
"""

from __future__ import annotations

import functools
import sys
from typing import Optional

import typer

from warpkit.fileio import UserError

from .imaging import augment as _augment
from .imaging import crop as _crop
from .imaging import warp as _warp

app = typer.Typer(
    name="warpkit",
    help="Image warping and ONNX-exact GridSample / AffineGrid / RoiAlign on any OpenCL device.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> None:
    """Exit 1 with a one-line message on stderr."""
    typer.echo(f"warpkit: error: {message}", err=True)
    raise typer.Exit(1)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _user_errors(fn):
    """User errors end the command with exit code 1 and one line on stderr, no traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as e:
            fail(str(e))

    return wrapper


app.command("warp")(_user_errors(_warp))
app.command("crop")(_user_errors(_crop))
app.command("augment")(_user_errors(_augment))


@app.command()
def devices(scheduler: Optional[str] = typer.Option(
        None, help="A Dask scheduler's address: list the device each of its workers uses "
                   "(as the --engine dask runs give them)")) -> None:
    """List OpenCL platforms and devices, their capabilities, and which one is the default and why."""
    if scheduler is not None:
        from warpkit import dist

        try:
            found = dist.worker_devices(scheduler=scheduler)
        except (ValueError, OSError, ImportError, TimeoutError) as e:
            fail(str(e).splitlines()[0] if str(e) else type(e).__name__)
        for addr, dev in sorted(found.items()):
            typer.echo(f"{addr}: {dev}")
        return
    from rich.console import Console
    from rich.table import Table

    from warpkit.runtime import choose_device, list_devices

    entries = list_devices()
    if not entries:
        fail("no OpenCL device found; install one, e.g. pip install 'warpkit[pocl]'")
    try:
        default, why = choose_device(None)
    except (ValueError, RuntimeError) as e:
        default, why = None, f"none: {e}"
    table = Table(title="OpenCL devices")
    for col in ("", "index", "device", "platform", "kind", "fp64", "fp16", "max alloc", "memory",
                "local mem", "units"):
        table.add_column(col)
    for e in entries:
        mark = "*" if default is not None and e.index == default.index else ""
        table.add_row(mark, e.index, e.name, e.platform, e.kind, "yes" if e.fp64 else "no",
                      "yes" if e.fp16 else "no", _size(e.max_alloc), _size(e.global_mem),
                      _size(e.local_mem), str(e.compute_units))
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # piped: do not squeeze the table to 80 columns
    console.print(table)
    if default is not None:
        typer.echo(f"default: {default.index} {default.name} ({why}); "
                   "choose another with WARPKIT_DEVICE=P:D or a name, e.g. WARPKIT_DEVICE=pocl")
    else:
        typer.echo(f"default: {why}")


@app.command()
def check(device: str = typer.Option(None, "--device", "-d",
                                     help="the device to check: P:D, P or a name substring "
                                          "(as WARPKIT_DEVICE); default: the default device"),
          verbose: bool = typer.Option(False, "--verbose", "-v",
                                       help="also list every failing case")) -> None:
    """Check this device: ONNX's node cases and seeded differential cases of every operator and
    dtype, against expected results shipped with warpkit. Exit 1 on any failure."""
    from rich.console import Console
    from rich.table import Table

    import warpkit

    try:
        report = warpkit.check(device)
    except (ValueError, RuntimeError) as e:  # no such device, no OpenCL
        fail(str(e).splitlines()[0])
    console = Console()
    if not console.is_terminal:
        console = Console(width=140)
    typer.echo(f"device: {report.device}")
    for k, v in report.capabilities.items():
        typer.echo(f"  {k}: {v}")
    table = Table(title="warpkit self-check")
    for col in ("result", "operator", "dtype", "cases", "passed", "worst error / tolerance",
                "source"):
        table.add_column(col)
    for r in report.rows:
        passed = f"{r.passed}" + (f" ({r.refused} refused: no fp64)" if r.refused else "")
        table.add_row("PASS" if r.ok else "[bold red]FAIL[/]", r.op, r.dtype, str(r.cases), passed,
                      f"{r.worst:.2f}", r.source)
    console.print(table)
    failures = report.failures
    for f in failures if verbose else failures[:10]:
        typer.echo(f"  {f}")
    if len(failures) > 10 and not verbose:
        typer.echo(f"  ... {len(failures) - 10} more (--verbose lists them)")
    total = sum(r.cases for r in report.rows)
    if failures:
        typer.echo(f"warpkit: check failed: {len(failures)} of {total} cases on {report.device}",
                   err=True)
        raise typer.Exit(1)
    typer.echo(f"all {total} cases passed ({report.seconds:.1f} s)")


@app.command()
def version() -> None:
    """Print warpkit's version."""
    import warpkit

    typer.echo(warpkit.__version__)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("warpkit: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
