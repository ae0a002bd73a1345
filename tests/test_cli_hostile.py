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


def _aug_setup(tmp_path):
    """Two photos, a pipeline file and a COCO file of them."""
    import json

    from warpkit.augment import Compose, RandomAffine

    src = tmp_path / "in"
    src.mkdir()
    rng = np.random.default_rng(1)
    for name in ("a.png", "b.png"):
        Image.fromarray(rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)).save(src / name)
    pipe = tmp_path / "aug.json"
    pipe.write_text(json.dumps(Compose([RandomAffine(degrees=10)]).to_dict()))
    coco = tmp_path / "coco.json"
    coco.write_text(json.dumps({
        "images": [{"id": 1, "file_name": "a.png", "width": 32, "height": 24},
                   {"id": 2, "file_name": "b.png", "width": 32, "height": 24}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [2, 2, 10, 8],
                         "area": 80}],
        "categories": [{"id": 1, "name": "x"}]}))
    return src, pipe, coco


@pytest.mark.parametrize("case", ["same file", "an image output", "the pipeline file",
                                  "the annotations file", "an input image", "under a file",
                                  "a directory"])
def test_side_outputs_are_checked_before_anything_is_written(tmp_path, case):
    """--matrices and --annotations-output against every input (the pipeline and annotation
    files too), every image output and each other, and against directories and paths under a
    file, before anything is written, --overwrite or not (they replaced one another, the user's
    pipeline, or failed with a traceback after every image was written)."""
    src, pipe, coco = _aug_setup(tmp_path)
    out = tmp_path / "out"
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    matrices, dataset = tmp_path / "m.json", tmp_path / "d.json"
    pattern = {"same file": r"--matrices and --annotations-output name the same file",
               "an image output": r"--matrices .*a_aug1.png is also one of the images",
               "the pipeline file": r"--matrices .*aug.json: refusing to overwrite the input "
                                    r"--pipeline file",
               "the annotations file": r"--matrices .*coco.json: refusing to overwrite the "
                                       r"input --annotations file",
               "an input image": r"--matrices .*b.png: refusing to overwrite the input",
               "under a file": r"--matrices .*: .*file is a file, not a directory",
               "a directory": r"--matrices .*dir is a directory"}[case]
    matrices = {"same file": dataset, "an image output": out / "a_aug1.png",
                "the pipeline file": pipe, "the annotations file": coco,
                "an input image": src / "b.png", "under a file": tmp_path / "file" / "m.json",
                "a directory": tmp_path / "dir"}[case]
    before = _hashes([src / "a.png", src / "b.png", pipe, coco])
    r = _run("augment", src, "-o", out, "--copies", 2, "--seed", 1, "--pipeline", pipe,
             "--annotations", coco, "--annotations-output", dataset, "--matrices", matrices,
             "--overwrite")
    _one_line_error(r, pattern)
    assert not out.exists() and not dataset.exists()
    assert _hashes([src / "a.png", src / "b.png", pipe, coco]) == before
    if case in ("under a file", "a directory"):  # the same without --annotations
        r = _run("augment", src, "-o", out, "--copies", 2, "--seed", 1, "--degrees", 5,
                 "--annotations-output" if case == "a directory" else "--matrices",
                 matrices)
        assert r.exit_code == 1 and not out.exists(), r.output


def test_the_manifest_is_checked_like_every_output(photo, tmp_path):
    """--engine dask --manifest naming an input appended JSON lines to the image; naming an
    output or a directory is refused too, before a cluster starts."""
    path, _ = photo
    before = _hashes([path])
    for manifest, pattern in ((path, r"manifest .*photo.png: refusing to overwrite the input"),
                              (tmp_path / "out" / "photo.png", r"is also one of the images "
                                                               r"this run writes"),
                              (tmp_path, r"manifest .* is a directory")):
        r = _run("warp", path, "-o", tmp_path / "out/", "--rotate", 5, "--engine", "dask",
                 "--manifest", manifest)
        _one_line_error(r, pattern)
    assert _hashes([path]) == before
    r = _run("augment", path, "-o", tmp_path / "aug", "--engine", "dask", "--manifest",
             path, "--degrees", 5)
    _one_line_error(r, r"--manifest .*photo.png: refusing to overwrite the input")
    assert _hashes([path]) == before


@pytest.mark.parametrize("spec,pattern", [
    ({"type": "RandomAffine", "degrees": 10, "p": 1.0},
     r"the top level must be a Compose .* got RandomAffine"),
    ("float32", r"output_dtype='float32' make a model's tensor; the command writes image files"),
    ("CHW", r"layout='CHW' make a model's tensor"),
    ("mosaic", r"Mosaic combines several images of one call.*run Mosaic from Python"),
    ("mask", r"MaskDropout finds objects in a semantic mask.*run it from Python with mask="),
    ("indices", r"ConstrainedCoarseDropout finds objects in a semantic mask"),
    ("lambda", r"Lambda 'denoise' is a Python function, which a file holds by its name alone"),
    ("text", r"TextImage draws the texts each call passes \(its textimage_metadata\), and the "
             r"command passes none"),
    ({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
        {"__class_fullname__": "HorizontalFlip", "p": 0.5},
        {"__class_fullname__": "Lambda", "__name__": "mine"}]}},
     r"Lambda 'mine' is a Python function"),
])
def test_pipeline_files_that_cannot_write_images_are_refused_when_loaded(photo, tmp_path, spec,
                                                                         pattern):
    """A valid to_dict() that makes tensors, or a lone transform, failed every file with an
    AttributeError; now one sentence when the file is loaded."""
    import json

    from warpkit.augment import Compose, RandomAffine

    if spec == "float32":
        spec = Compose([RandomAffine(degrees=3)], output_dtype="float32").to_dict()
    elif spec == "CHW":
        spec = Compose([RandomAffine(degrees=3)], layout="CHW").to_dict()
    elif spec == "mosaic":
        from warpkit.augment import Mosaic

        spec = Compose([Mosaic(target_size=64, cell_shape=64), RandomAffine(degrees=3)]).to_dict()
    elif spec == "text":
        from warpkit.augment import OneOf, TextImage

        spec = Compose([RandomAffine(degrees=3), OneOf([TextImage(font_path="f.ttf"),
                                                        RandomAffine(degrees=1)])]).to_dict()
    elif spec == "lambda":
        from warpkit.augment import Lambda

        spec = Compose([RandomAffine(degrees=3),
                        Lambda(image=lambda x, **kw: x, name="denoise")]).to_dict()
    elif spec in ("mask", "indices"):
        from warpkit.augment import ConstrainedCoarseDropout, MaskDropout, OneOf

        step = MaskDropout(p=0.5) if spec == "mask" else \
            ConstrainedCoarseDropout(mask_indices=[1], p=1)
        # (inside a OneOf, beside a step that does not read the mask)
        spec = Compose([RandomAffine(degrees=3), OneOf([RandomAffine(degrees=1), step]),
                        MaskDropout(p=0)]).to_dict()
    (tmp_path / "p.json").write_text(json.dumps(spec))
    r = _run("augment", photo[0], "-o", tmp_path / "out", "--pipeline", tmp_path / "p.json")
    _one_line_error(r, pattern)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", ["--pipeline", "--annotations", "--boxes", "yaml"])
def test_json_nested_too_deeply_is_one_line(photo, tmp_path, option):
    deep = tmp_path / ("deep.yaml" if option == "yaml" else "deep.json")  # (YAML: --pipeline)
    option = "--pipeline" if option == "yaml" else option
    deep.write_text("[" * 100_000 + "]" * 100_000)
    cmd = ["crop", photo[0], "-o", tmp_path / "out", "--size", "4x4", "--boxes", deep] \
        if option == "--boxes" else ["augment", photo[0], "-o", tmp_path / "out", option, deep]
    _one_line_error(_run(*cmd), rf"{option} .*{deep.name}: nested too deeply to be read")


@pytest.mark.parametrize("where,value,pattern", [
    ("image_id", [1], r"annotations\[0\].image_id must be an integer or a string, got \[1\]"),
    ("image_id", {"a": 1}, r"annotations\[0\].image_id must be an integer or a string"),
    ("id", [1], r"images\[0\].id must be an integer or a string"),
    ("width", "32", r"images\[0\].width must be a whole number >= 1, got '32'"),
    ("file_name", 7, r"images\[0\].file_name must be a string, got 7"),
])
def test_malformed_coco_fields_are_one_line(tmp_path, where, value, pattern):
    import json

    src, _, coco = _aug_setup(tmp_path)
    data = json.loads(coco.read_text())
    (data["annotations"][0] if where == "image_id" else data["images"][0])[where] = value
    coco.write_text(json.dumps(data))
    r = _run("augment", src / "a.png", "-o", tmp_path / "out", "--annotations", coco)
    _one_line_error(r, pattern)


def test_stale_temporaries_of_the_runs_outputs_are_removed(photo, tmp_path):
    """A killed run leaves .<output>.<8 chars>.tmp beside an output; the next run of the same
    outputs removes them, and only them."""
    path, _ = photo
    out = tmp_path / "out"
    out.mkdir()
    stale = [out / ".photo.png.ab12_x9z.tmp", out / ".photo_aug0.png.k3j4h5g6.tmp"]
    kept = [out / ".other.png.ab12_x9z.tmp", out / ".photo.png.notmine.tmp", out / "photo.tmp"]
    for p in stale + kept:
        p.write_bytes(b"partial")
    assert _run("warp", path, "-o", out / "photo.png", "--rotate", 3).exit_code == 0
    assert not stale[0].exists() and stale[1].exists()
    assert _run("augment", path, "-o", out, "--degrees", 3).exit_code == 0
    assert not stale[1].exists() and all(p.exists() for p in kept)


def test_augment_copies_are_written_as_they_are_made(tmp_path):
    """--copies N held every copy of a file before writing the first (2000x1500: 985 MiB for
    64); now a copy is written as it is made: 24 copies of a 9 MB image run within 100 MB of
    the address space one copy takes (holding them all takes 216 MB more)."""
    import os

    from helpers import peak_address_space, run_limited

    Image.fromarray(np.zeros((1500, 2000, 3), np.uint8)).save(tmp_path / "big.bmp")
    code = ("import sys\n"
            "from warpkit.cli.app import main\n"
            "sys.argv = ['warpkit', 'augment', 'big.bmp', '-o', 'out{n}', '--copies', '{n}',"
            " '--seed', '1', '--degrees', '5']\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n")
    one = peak_address_space(code.format(n=1), cwd=str(tmp_path))
    r = run_limited(code.format(n=24), extra=100 << 20, base=one, cwd=str(tmp_path),
                    timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert len(os.listdir(tmp_path / "out24")) == 24
