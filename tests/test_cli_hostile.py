"""The command line on hostile files and paths: every per-file failure is one line and the batch
goes on, nothing is lost or overwritten, and user errors exit 1 with one line (no traceback)."""

from __future__ import annotations

import errno
import hashlib
import re
import shutil
import struct
import warnings
import zlib

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

import warpkit
from warpkit import geometry as g
from warpkit.cli.app import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bomb_png(path, size=100_000):
    """A valid PNG header declaring size x size RGB pixels, and almost no data."""
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
                     + _chunk(b"IDAT", zlib.compress(b"\0" * 16)) + _chunk(b"IEND", b""))
    return path


def _hashes(paths):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture
def photo(tmp_path):
    arr = np.random.default_rng(0).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    path = tmp_path / "photo.png"
    Image.fromarray(arr).save(path)
    return path, arr


def _one_line_error(r, pattern):
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert "Traceback" not in r.output
    assert any(re.search(pattern, ln) for ln in lines), r.output


def test_batch_with_a_bomb_a_corrupt_file_and_an_unwritable_output(photo, tmp_path):
    path, arr = photo
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a.png", "c.png", "e.png"):
        shutil.copy(path, src / name)
    bomb_png(src / "b.png")
    (src / "d.png").write_text("not an image")
    out = tmp_path / "out"
    (out / "e.png").mkdir(parents=True)  # a directory where e's output should go
    before = _hashes(sorted(src.iterdir()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Pillow's bomb warning must not leak
        r = _run("warp", src, "-o", out, "--rotate", 10)
    assert r.exit_code == 1
    assert "Traceback" not in r.output
    lines = r.output.strip().splitlines()
    assert any("b.png: refused as a possible decompression bomb" in ln and "--max-pixels" in ln
               for ln in lines), r.output
    assert any("d.png: cannot read the image" in ln for ln in lines), r.output
    assert any(ln.endswith("out/e.png is a directory") for ln in lines), r.output
    assert lines[-1] == "warpkit: error: 3 of 5 files failed"
    # the good files are written, nothing else, and no input changed
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "c.png", "e.png"]
    assert (out / "e.png").is_dir() and not any((out / "e.png").iterdir())
    expected = warpkit.warp_affine(arr, g.rotation(10, (31.5, 23.5)))
    for name in ("a.png", "c.png"):
        with Image.open(out / name) as im:
            np.testing.assert_array_equal(np.asarray(im), expected)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert _hashes(sorted(src.iterdir())) == before


def test_max_pixels_is_an_option(photo, tmp_path):
    path, _ = photo  # 3072 pixels
    for limit in (100, 2000):  # Pillow's error (over twice the limit) and its warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = _run("warp", path, "-o", tmp_path / f"o{limit}.png", "--max-pixels", limit)
        _one_line_error(r, r"refused as a possible decompression bomb")
    r = _run("warp", path, "-o", tmp_path / "ok.png", "--max-pixels", 3072)
    assert r.exit_code == 0, r.output
    r = _run("warp", bomb_png(tmp_path / "big.png", 3000), "-o", tmp_path / "b2.png",
             "--max-pixels", 0)  # no limit: the bomb is opened (and fails on its missing data)
    assert "decompression bomb" not in r.output


def test_duplicate_output_names_are_refused_before_any_write(photo, tmp_path):
    path, _ = photo
    for d in ("d1", "d2"):
        (tmp_path / d).mkdir()
        shutil.copy(path, tmp_path / d / "same.png")
    out = tmp_path / "out"
    r = _run("warp", tmp_path / "d1/same.png", tmp_path / "d2/same.png", "-o", out,
             "--overwrite")
    _one_line_error(r, r"d1/same.png and .*d2/same.png would both be written to .*out/same.png")
    assert not out.exists()
    r = _run("augment", tmp_path / "d1/same.png", tmp_path / "d2/same.png", "-o", out,
             "--matrices", tmp_path / "maps.json", "--copies", 2)
    _one_line_error(r, r"would both be written to .*same_aug0.png")
    assert not out.exists() and not (tmp_path / "maps.json").exists()


def test_output_with_a_trailing_slash_is_a_directory(photo, tmp_path):
    path, _ = photo
    r = _run("warp", path, "-o", f"{tmp_path / 'newdir'}/", "--rotate", 5)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "newdir" / "photo.png").is_file()


@pytest.mark.parametrize("args, pattern", [
    (["--rotate", "inf"], r"--rotate must be finite, got inf"),
    (["--scale", "inf"], r"--scale must be finite, got inf"),
    (["--shear", "nan"], r"--shear must be finite, got nan"),
    (["--translate", "inf", "0"], r"--translate must be finite"),
    (["--matrix", "1,0,inf,0,1,0"], r"--matrix must be 6 \(affine\) or 9 \(perspective\) numbers"),
    (["--fill", "nan"], r"--fill must be a number or comma-separated numbers"),
    (["--size", "100000x10"], r"--size must look like 640x480 \(at most 65536 per side\)"),
    (["--max-pixels", "-1"], r"--max-pixels must be >= 0"),
])
def test_warp_option_errors(photo, tmp_path, args, pattern):
    path, _ = photo
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning
        r = _run("warp", path, "-o", tmp_path / "o.png", *args)
    _one_line_error(r, pattern)
    assert not (tmp_path / "o.png").exists()


@pytest.mark.parametrize("content, pattern", [
    ('["0088"]', r"expected a JSON list of \[x1, y1, x2, y2\] lists of numbers"),
    ('[[0, 0, 8]]', r"expected a JSON list of \[x1, y1, x2, y2\]"),
    ('[[0, 0, 8, "8"]]', r"expected a JSON list"),
    ('[[0, 0, 8, true]]', r"expected a JSON list"),
    ('{"boxes": []}', r"expected a JSON list"),
    ('[[0, 0', r"--boxes .*boxes.json"),
])
def test_crop_boxes_file_errors(photo, tmp_path, content, pattern):
    path, _ = photo
    (tmp_path / "boxes.json").write_text(content)
    r = _run("crop", path, "--boxes", tmp_path / "boxes.json", "--size", "8x8", "-o",
             tmp_path / "crops")
    _one_line_error(r, pattern)
    assert not (tmp_path / "crops").exists()


def test_crop_checks_every_output_before_writing_any(photo, tmp_path):
    path, _ = photo
    out = tmp_path / "crops"
    out.mkdir()
    (out / "photo_1.png").write_bytes(b"keep")
    r = _run("crop", path, "--box", "0,0,8,8", "--box", "8,8,16,16", "--size", "8x8", "-o", out)
    _one_line_error(r, r"photo_1.png exists \(pass --overwrite to replace it\)")
    assert sorted(p.name for p in out.iterdir()) == ["photo_1.png"]
    assert (out / "photo_1.png").read_bytes() == b"keep"


def test_crop_into_an_unwritable_place_is_one_line(photo, tmp_path):
    path, _ = photo
    (tmp_path / "afile").write_text("x")
    r = _run("crop", path, "--box", "0,0,8,8", "--size", "8x8", "-o", tmp_path / "afile" / "sub")
    _one_line_error(r, r"afile/sub.*(Not a directory|File exists)")


def test_full_disk_is_one_line_and_leaves_nothing(photo, tmp_path, monkeypatch):
    path, _ = photo

    def full(self, fp, *a, **k):
        with open(fp, "wb") as fh:
            fh.write(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Image.Image, "save", full)
    out = tmp_path / "crops"
    r = _run("crop", path, "--box", "0,0,8,8", "--size", "8x8", "-o", out)
    _one_line_error(r, r"photo_0.png: No space left on device")
    assert not list(out.iterdir())
    r = _run("warp", path, "-o", tmp_path / "w.png")
    _one_line_error(r, r"No space left on device")
    assert not (tmp_path / "w.png").exists()


def test_cmyk_jpeg_is_converted_with_one_note(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for k in range(2):
        Image.new("CMYK", (32, 24), (10, 200, 30, 5)).save(src / f"c{k}.jpg")
    r = _run("warp", src, "-o", tmp_path / "out", "--rotate", 3)
    assert r.exit_code == 0, r.output
    assert r.output.count("CMYK images are converted to RGB") == 1
    for k in range(2):
        with Image.open(tmp_path / "out" / f"c{k}.jpg") as im:
            assert im.mode == "RGB"


def test_frames_are_refused_not_dropped(tmp_path):
    frames = [Image.new("RGB", (16, 16), c) for c in ((255, 0, 0), (0, 255, 0))]
    gif = tmp_path / "anim.gif"
    frames[0].save(gif, save_all=True, append_images=frames[1:], duration=100)
    tif = tmp_path / "pages.tif"
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    for f in (gif, tif):
        r = _run("warp", f, "-o", tmp_path / f"out{f.suffix}")
        _one_line_error(r, rf"{f.name}: has 2 frames .*extract the frames first")


@pytest.mark.parametrize("channels", [3, 4])
def test_16_bit_colour_keeps_its_depth(tmp_path, channels):
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(channels)
    rgb = rng.integers(0, 65536, (20, 30, channels), dtype=np.uint16)
    src = tmp_path / "deep.png"
    cv2.imwrite(str(src), rgb[..., [2, 1, 0, 3][:channels]])
    with Image.open(src) as im:
        assert im.mode in ("RGB", "RGBA")  # what Pillow alone would give: 8 bits
    out = tmp_path / "out.png"
    r = _run("warp", src, "-o", out, "--rotate", 20, "--interpolation", "cubic")
    assert r.exit_code == 0, r.output
    got = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)[..., [2, 1, 0, 3][:channels]]
    assert got.dtype == np.uint16
    expected = warpkit.warp_affine(rgb, g.rotation(20, (14.5, 9.5)), interpolation="cubic")
    np.testing.assert_array_equal(got, expected)
    r = _run("warp", src, "-o", tmp_path / "out.jpg")
    _one_line_error(r, r"out.jpg: .jpg cannot hold 16-bit colour; write .png or .tif")
    crops = tmp_path / "crops"
    r = _run("crop", src, "--box", "0,0,10,10", "--size", "10x10", "-o", crops)
    assert r.exit_code == 0, r.output
    patch = cv2.imread(str(crops / "deep_0.png"), cv2.IMREAD_UNCHANGED)[..., [2, 1, 0, 3][:channels]]
    np.testing.assert_array_equal(patch, rgb[:10, :10])
    r = _run("augment", src, "-o", tmp_path / "aug", "--degrees", 10, "--seed", 1)
    assert r.exit_code == 0, r.output
    assert cv2.imread(str(tmp_path / "aug" / "deep_aug0.png"), cv2.IMREAD_UNCHANGED).dtype == np.uint16


def test_a_16_bit_png_round_trip_hashes_inputs(tmp_path):
    """The 16-bit grey mode Pillow does read (I;16) stays 16-bit too, and inputs never change."""
    a = np.random.default_rng(5).integers(0, 65536, (12, 9), dtype=np.uint16)
    src = tmp_path / "g16.png"
    Image.fromarray(a).save(src)
    before = _hashes([src])
    r = _run("warp", src, "-o", tmp_path / "o.png", "--interpolation", "nearest")
    assert r.exit_code == 0, r.output
    with Image.open(tmp_path / "o.png") as im:
        np.testing.assert_array_equal(np.asarray(im), a)
    assert _hashes([src]) == before
