"""warpkit.dist and --engine dask on a LocalCluster of 2 worker processes on 127.0.0.1 (no
dashboard): outputs byte-identical to the single-process command line, both workers working, a
bad file reported while the rest finish, a killed worker and the rerun doing only what is missing,
augment outputs independent of the partitioning. No speed assertions."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

pytest.importorskip("distributed")
# Dask's comms may leave a socket to the garbage collector when a cluster closes
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning",
                                        "ignore::pytest.PytestUnraisableExceptionWarning")

from distributed import Client, LocalCluster  # noqa: E402

from warpkit import dist  # noqa: E402
from warpkit.cli.app import app  # noqa: E402
from warpkit.files import WarpJob  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None,
                           scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def photos(tmp_path):
    rng = np.random.default_rng(0)
    d = tmp_path / "in"
    d.mkdir()
    for i in range(10):
        img = rng.integers(0, 256, (40 + i, 56, 3), dtype=np.uint8)
        Image.fromarray(img).save(d / f"p{i:02d}.png")
    Image.fromarray(rng.integers(0, 256, (30, 30), dtype=np.uint8)).save(d / "gray.jpg")
    return d


def _bytes(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.suffix != ".jsonl"}


def _cli(*args) -> object:
    return runner.invoke(app, [str(a) for a in args])


def test_warp_files_match_the_command_line_and_use_both_workers(client, photos, tmp_path):
    s = dist.warp_files(photos, tmp_path / "out", rotate=12, expand=True, fill=255,
                        client=client, chunk=1)
    assert s.ok and s.done == 11 and s.skipped == 0, s.describe()
    assert len(s.files_by_worker) == 2, s.describe()  # two worker processes did the work
    assert all("compute units" in dev for dev in s.workers.values())
    r = _cli("warp", photos, "-o", tmp_path / "local", "--rotate", 12, "--expand", "--fill", 255)
    assert r.exit_code == 0, r.output
    assert _bytes(tmp_path / "out") == _bytes(tmp_path / "local")
    lines = [json.loads(x) for x in (tmp_path / "out" / dist.MANIFEST).read_text().splitlines()]
    assert len(lines) == 11 and {x["status"] for x in lines} == {"done"}
    assert all(len(x["records"][0]["matrix"]) == 3 for x in lines)
    # a rerun does nothing: every output is there
    again = dist.warp_files(photos, tmp_path / "out", rotate=12, expand=True,
                            fill=255, client=client)
    assert again.done == 0 and again.skipped == 11


def test_a_bad_file_is_reported_and_the_rest_finish(client, photos, tmp_path):
    (photos / "broken.png").write_bytes(b"not an image")
    s = dist.warp_files(photos, tmp_path / "out", scale=0.5, client=client)
    assert s.done == 11 and s.failed == 1 and not s.ok
    assert len(s.failures) == 1 and "broken.png" in s.failures[0]
    assert not (tmp_path / "out" / "broken.png").exists()


def test_augment_does_not_depend_on_partitioning_or_workers(client, photos, tmp_path):
    opts = dict(copies=3, seed=11, degrees=20, scale=(0.8, 1.2), hflip=0.5)
    a = dist.augment_files(photos, tmp_path / "a", client=client, chunk=1, **opts)
    b = dist.augment_files(photos, tmp_path / "b", client=client, chunk=7, **opts)
    assert a.ok and b.ok and a.done == b.done == 11
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b")
    r = _cli("augment", photos, "-o", tmp_path / "c", "--copies", 3, "--seed", 11, "--degrees",
             20, "--scale", "0.8,1.2", "--hflip", 0.5, "--matrices", tmp_path / "m.json")
    assert r.exit_code == 0, r.output
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "c")
    matrices = json.loads((tmp_path / "m.json").read_text())
    for rec in a.records:
        np.testing.assert_allclose(rec["matrix"], matrices[Path(rec["output"]).name]["matrix"])


def test_crop_files_with_boxes_per_file(client, photos, tmp_path):
    boxes = {"p00.png": [[0, 0, 10, 10], [5, 5, 25, 20]], "gray.jpg": [[2, 2, 12, 12]]}
    s = dist.crop_files([photos / "p00.png", photos / "gray.jpg"], tmp_path / "c", boxes,
                        (8, 8), client=client)
    assert s.ok and s.done == 2
    assert sorted(p.name for p in (tmp_path / "c").glob("*.*") if p.suffix != ".jsonl") == \
        ["gray_0.jpg", "p00_0.png", "p00_1.png"]
    missing = dist.crop_files([photos / "p01.png"], tmp_path / "c", boxes, (8, 8), client=client)
    assert missing.failed == 1 and "no boxes for p01.png" in missing.failures[0]


@dataclasses.dataclass(frozen=True)
class KillerJob(WarpJob):
    """A warp whose worker dies (os._exit) on files named k*.png."""

    def __call__(self, src, dests, protected):
        if src.name.startswith("k"):
            os._exit(3)
        return super().__call__(src, dests, protected)


def test_a_killed_worker_and_the_rerun(photos, tmp_path):
    """Files on a worker that dies are reported lost; the rerun (its own local cluster) does
    only the files whose outputs are missing."""
    import dask

    for i in range(2):
        (photos / f"p{i:02d}.png").rename(photos / f"k{i:02d}.png")
    out = tmp_path / "out"
    from warpkit.files import tasks as _tasks

    files = sorted(photos.iterdir())
    tasks = _tasks(files, lambda f: [out / f.name])
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        s = dist.run(KillerJob(scale=0.9), tasks, out, n_workers=2, chunk=1)
    # the killed workers' files (k00, k01, and any queued behind them) are lost, none failed
    assert s.lost >= 2 and s.failed == 0 and s.done + s.lost == 11, "\n".join(s.failures)
    assert all("lost" in f for f in s.failures)
    assert not (out / "k00.png").exists() and not (out / "k01.png").exists()
    # (a file done just before its worker died may be written yet reported lost)
    missing = sorted(f.name for f in files if not (out / f.name).exists())
    again = dist.warp_files(photos, out, scale=0.9, n_workers=2)
    assert again.ok and again.done == len(missing) and again.skipped == 11 - len(missing), \
        again.describe()
    assert sorted(Path(r["source"]).name for r in again.records) == missing
    assert all((out / f.name).exists() for f in files)
    statuses = [json.loads(x)["status"] for x in (out / dist.MANIFEST).read_text().splitlines()]
    assert statuses.count("lost") == s.lost and statuses.count("skipped") == 11 - len(missing)


def test_cli_engine_dask(photos, tmp_path):
    (photos / "broken.png").write_bytes(b"not an image")
    r = _cli("warp", photos, "-o", tmp_path / "out", "--rotate", 5, "--engine", "dask",
             "--workers", 2)
    assert r.exit_code == 1
    assert "broken.png" in r.output and "1 of 12 files failed" in r.output
    assert "11 files done" in r.output and "worker tcp://127.0.0.1" in r.output
    assert "Traceback" not in r.output
    r = _cli("warp", photos / "p00.png", "-o", tmp_path / "x.png", "--scheduler",
             "tcp://127.0.0.1:1")
    assert r.exit_code == 1 and "--scheduler and --workers need --engine dask" in r.output
    r = _cli("warp", photos, "-o", tmp_path / "o2", "--engine", "dask", "--device", "no-such")
    assert r.exit_code == 1 and "no OpenCL device matches 'no-such'" in r.output
    r = _cli("augment", photos, "-o", tmp_path / "aug", "--engine", "dask", "--annotations",
             tmp_path / "coco.json")
    assert r.exit_code == 1 and "--annotations runs with --engine local" in r.output
    r = _cli("crop", photos / "p00.png", photos / "p01.png", "--box", "0,0,8,8", "--size", "4x4",
             "-o", tmp_path / "crops", "--engine", "dask", "--workers", 1)
    assert r.exit_code == 0, r.output
    assert "2 crops written" in r.output


def test_devices_of_a_scheduler(client):
    r = _cli("devices", "--scheduler", client.scheduler.address)
    assert r.exit_code == 0, r.output
    assert r.output.count("tcp://127.0.0.1") == 2 and "compute units" in r.output


def test_devices_are_claimed_once_each(tmp_path, monkeypatch):
    """Workers of one node claim distinct devices from a list (a lock file each), and share only
    when they outnumber them."""
    monkeypatch.setattr(dist, "_lock_dir", lambda: str(tmp_path))
    first, lock1 = dist._claim(["0:0", "0:1"])
    second, lock2 = dist._claim(["0:0", "0:1"])
    third, lock3 = dist._claim(["0:0", "0:1"])
    assert (first, second) == ("0:0", "0:1") and lock1 and lock2
    assert third in ("0:0", "0:1") and lock3 is None
    lock1.close()  # a worker gone: its device is free again
    again, lock4 = dist._claim(["0:0", "0:1"])
    assert again == "0:0" and lock4
    lock2.close()
    lock4.close()


def test_explicit_device_mapping(client):
    """devices= as a mapping: each named worker gets its own device (here Oclgrind for one, the
    default device for the other); registered again without it, both go back to the default."""
    from warpkit.runtime import choose_device, list_devices

    sims = [e.index for e in list_devices() if e.is_simulator]
    if not sims:
        pytest.skip("Oclgrind not installed: one device only, a mapping shows nothing")
    default = choose_device(None)[0].index
    names = sorted(str(w["name"]) for w in client.scheduler_info()["workers"].values())
    by_name = {str(w["name"]): a for a, w in client.scheduler_info()["workers"].items()}
    found = dist.worker_devices(client, devices={names[0]: sims[0], names[1]: default})
    assert found[by_name[names[0]]].startswith(sims[0] + " Oclgrind"), found
    assert found[by_name[names[1]]].startswith(default + " "), found
    again = dist.worker_devices(client)
    assert all(dev.startswith(default + " ") for dev in again.values()), again


@pytest.mark.parametrize("chunk", [0, -1, 2.5, True])
def test_chunk_must_be_a_whole_number_of_files(client, photos, tmp_path, chunk):
    """chunk=-1 did nothing and reported success."""
    with pytest.raises(ValueError, match=r"chunk \(files per task\) must be an int >= 1"):
        dist.warp_files(photos, tmp_path / "out", rotate=5, client=client, chunk=chunk)
    assert not (tmp_path / "out").exists()


def test_a_rerun_after_a_cut_off_manifest_and_a_killed_write(client, photos, tmp_path):
    """A run killed mid-write leaves a manifest whose last line is cut off and a temporary
    file beside an output: the rerun starts its records on a new line (they were glued to the
    broken one) and removes the temporaries of its own outputs (nothing else did)."""
    out = tmp_path / "out"
    out.mkdir()
    manifest = out / dist.MANIFEST
    manifest.write_text('{"source": "a", "status": "done"}\n{"source": "in/p0')
    stale = out / ".p03.png.x1y2z3w4.tmp"
    stale.write_bytes(b"half an image")
    s = dist.warp_files(photos, out, rotate=5, client=client)
    assert s.ok and s.done == 11, s.describe()
    lines = manifest.read_text().splitlines()
    assert lines[1] == '{"source": "in/p0'
    records = [json.loads(x) for x in lines[2:]]
    assert len(records) == 11 and all(r["status"] == "done" for r in records)
    assert not stale.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([dist.MANIFEST] + [
        p.name for p in photos.iterdir()])
