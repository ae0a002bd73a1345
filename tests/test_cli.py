"""The warpkit command: in process with typer's CliRunner, and once as the installed command."""

from __future__ import annotations

import os
import shutil
import subprocess

from typer.testing import CliRunner

import warpkit
from warpkit.cli.app import app

runner = CliRunner()


def test_devices_lists_every_device_and_the_default():
    r = runner.invoke(app, ["devices"])
    assert r.exit_code == 0, r.output
    for e in warpkit.list_devices():
        assert e.index in r.output
    assert "default: " in r.output and "WARPKIT_DEVICE" in r.output


def test_devices_reports_a_bad_warpkit_device(monkeypatch):
    monkeypatch.setenv("WARPKIT_DEVICE", "no-such-device")
    r = runner.invoke(app, ["devices"])
    assert r.exit_code == 0
    assert "default: none: no OpenCL device matches 'no-such-device'" in r.output


def test_version():
    r = runner.invoke(app, ["version"])
    assert r.exit_code == 0 and r.output.strip() == warpkit.__version__


def test_unknown_command_is_a_usage_error():
    r = runner.invoke(app, ["frobnicate"])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_installed_command_runs_from_any_directory(tmp_path):
    exe = shutil.which("warpkit")
    assert exe, "the warpkit command is not installed"
    r = subprocess.run([exe, "devices"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    assert "OpenCL devices" in r.stdout and "default: " in r.stdout


def test_installed_warp_is_silent_on_a_warm_start(tmp_path):
    """A second run, with every cache warm (PoCL's, warpkit's binaries, pyopencl's invokers),
    writes the file and nothing on stderr: no library warning reaches the user."""
    from PIL import Image

    exe = shutil.which("warpkit")
    Image.new("RGB", (64, 48), (10, 20, 30)).save(tmp_path / "in.png")
    for _ in range(2):
        r = subprocess.run([exe, "warp", "in.png", "-o", "out.png", "--rotate", "15",
                            "--overwrite"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    assert (tmp_path / "out.png").is_file()


def test_the_checkout_imports_like_the_installed_package():
    """`python -m pytest` from the repository root imports the checkout's warpkit/ (the current
    directory comes first on sys.path): it must find cli/ and kernels_cl/, which sit beside it
    there and inside it once installed."""
    import pathlib
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    code = ("import warpkit, warpkit.cli.app, importlib.resources as r, pathlib; "
            "print(pathlib.Path(warpkit.__file__).resolve().parent.parent); "
            "print(r.files('warpkit.kernels_cl').joinpath('sampling.h').is_file())")
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    where, found = r.stdout.split()
    assert pathlib.Path(where) == root and found == "True"


def test_every_subpackage_is_installed():
    """A plain `pip install .` ships the packages pyproject.toml lists: every directory of the
    library with an __init__.py must be among them (a new one left out installs a package that
    cannot import itself)."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent
    text = (root / "pyproject.toml").read_text()  # (tomllib is Python 3.11+)
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*?)\]", text,
                                                       re.M | re.S).group(1)))
    found = {".".join(("warpkit", *p.parent.relative_to(root / "warpkit").parts)).rstrip(".")
             for p in (root / "warpkit").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
