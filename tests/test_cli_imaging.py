"""warpkit warp / crop on files: results, metadata, safety, batches, one-line errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image, ImageCms
from typer.testing import CliRunner

import warpkit
from warpkit import geometry as g
from warpkit.cli.app import app

runner = CliRunner()


@pytest.fixture
def photo(tmp_path):
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
    path = tmp_path / "photo.png"
    Image.fromarray(arr).save(path)
    return path, arr


def _read(path):
    with Image.open(path) as im:
        return np.asarray(im)


def _folder(tmp_path, photo_path, names, bad=None):
    """tmp_path/in holding copies of the photo under ``names``, and a broken image ``bad``."""
    d = tmp_path / "in"
    d.mkdir()
    for name in names:
        shutil.copy(photo_path, d / name)
    if bad is not None:
        (d / bad).write_text("not an image")
    return d


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_rotate_matches_the_api(photo, tmp_path):
    path, arr = photo
    out = tmp_path / "out.png"
    r = _run("warp", path, "-o", out, "--rotate", 30, "--interpolation", "cubic")
    assert r.exit_code == 0, r.output
    expected = warpkit.warp_affine(arr, g.rotation(30, (31.5, 23.5)), interpolation="cubic")
    np.testing.assert_array_equal(_read(out), expected)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # atomic: no leftovers
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_area_shrinks_as_the_api(photo, tmp_path):
    """--interpolation area: OpenCV's area filter, as warp_affine gives it (a shrink: each
    output pixel the mean of its footprint)."""
    path, arr = photo
    out = tmp_path / "small.png"
    r = _run("warp", path, "-o", out, "--matrix", "0.25,0,-0.375,0,0.25,-0.375", "--size",
             "16x12", "--interpolation", "area")
    assert r.exit_code == 0, r.output
    m = np.array([[0.25, 0, -0.375], [0, 0.25, -0.375]])  # cv2.resize's map, 4x smaller
    expected = warpkit.warp_affine(arr, m, (16, 12), interpolation="area")
    np.testing.assert_array_equal(_read(out), expected)
    block = arr[:4, :4].reshape(16, -1).mean(0)
    assert np.abs(_read(out)[0, 0].astype(float) - block).max() <= 0.5


def test_help_shows_how_to_give_two_numbers():
    """--translate takes two numbers; its help says so rather than typer's '<float,float>...',
    which reads as one comma-separated value (the form --fill and --box take)."""
    r = runner.invoke(app, ["warp", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    line = next(ln for ln in r.output.splitlines() if "--translate" in ln)
    assert "DX DY" in line and "<float,float>" not in line


def test_options_compose_about_the_centre(photo, tmp_path):
    path, arr = photo
    out = tmp_path / "o.png"
    r = _run("warp", path, "-o", out, "--flip", "h", "--scale", 0.5, "--translate", 3, -2,
             "--size", "40x30", "--padding", "border")
    assert r.exit_code == 0, r.output
    c = (31.5, 23.5)
    m = g.compose(g.flip("h", (64, 48)), g.scale(0.5, center=c), g.translation(3, -2))
    expected = warpkit.warp_affine(arr, m, size=(40, 30), padding="border")
    np.testing.assert_array_equal(_read(out), expected)


def test_matrix_and_perspective(photo, tmp_path):
    path, arr = photo
    r = _run("warp", path, "-o", tmp_path / "m.png", "--matrix", "1,0,5,0,1,-2")
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(_read(tmp_path / "m.png"),
                                  warpkit.warp_affine(arr, g.translation(5, -2)))
    r = _run("warp", path, "-o", tmp_path / "p.png", "--perspective",
             "0,0:2,1 63,0:60,0 0,47:0,47 63,47:63,45")
    assert r.exit_code == 0, r.output


def test_exif_orientation_applied_and_icc_kept(tmp_path):
    arr = np.zeros((10, 20, 3), np.uint8)
    arr[:, :10] = 255  # left half white
    img = Image.fromarray(arr)
    exif = img.getexif()
    exif[0x0112] = 6  # rotated: viewers show it turned 90 degrees clockwise
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    src = tmp_path / "o.jpg"
    img.save(src, exif=exif.tobytes(), icc_profile=icc, quality=100)
    r = _run("warp", src, "-o", tmp_path / "w.jpg", "--scale", 1)
    assert r.exit_code == 0, r.output
    with Image.open(tmp_path / "w.jpg") as out:
        assert out.size == (10, 20)  # the orientation was applied
        assert out.info.get("icc_profile") == icc
        assert out.getexif().get(0x0112, 1) == 1
        assert out.format == "JPEG"


def test_never_overwrites(photo, tmp_path):
    path, _ = photo
    r = _run("warp", path, "-o", path, "--rotate", 10, "--overwrite")
    assert r.exit_code == 1 and "refusing to overwrite the input" in r.output
    out = tmp_path / "x.png"
    out.write_bytes(b"keep")
    r = _run("warp", path, "-o", out, "--rotate", 10)
    assert r.exit_code == 1 and "exists (pass --overwrite" in r.output
    assert out.read_bytes() == b"keep"
    assert _run("warp", path, "-o", out, "--rotate", 10, "--overwrite").exit_code == 0


def test_batch_reports_bad_files_and_goes_on(photo, tmp_path):
    path, _ = photo
    d = _folder(tmp_path, path, ["a.png", "b.png"], bad="c.png")
    out = tmp_path / "out"
    r = _run("warp", d, "-o", out, "--rotate", 5)
    assert r.exit_code == 1
    assert "c.png" in r.output and "1 of 3 files failed" in r.output
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.png"]


@pytest.mark.parametrize("args,message", [
    (["--size", "64by48"], "--size must look like 640x480"),
    (["--matrix", "1,2,3"], "--matrix must be 6 (affine) or 9 (perspective) numbers, got '1,2,3'"),
    (["--fill", "red"], "--fill must be a number or comma-separated numbers, got 'red'"),
    (["--rotate", "5", "--matrix", "1,0,0,0,1,0"], "--matrix and --perspective replace"),
    (["--size", "10x10", "--expand"], "pass either --size or --expand"),
    (["--fill", "1,2"], "--fill has 2 values, the image has 3 channels"),
    (["--device", "no-such-device"], "no OpenCL device matches 'no-such-device'"),
])
def test_user_errors_are_one_line(photo, tmp_path, args, message):
    path, _ = photo
    r = _run("warp", path, "-o", tmp_path / "e.png", *args)
    assert r.exit_code == 1, r.output
    assert message in r.output and "Traceback" not in r.output


def test_crop_boxes(photo, tmp_path):
    path, arr = photo
    boxes = tmp_path / "boxes.json"
    boxes.write_text(json.dumps([[10, 5, 26, 21]]))
    r = _run("crop", path, "--box", "0,0,16,16", "--boxes", boxes, "--size", "16x16", "-o", tmp_path / "c")
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(_read(tmp_path / "c" / "photo_0.png"), arr[:16, :16])
    np.testing.assert_array_equal(_read(tmp_path / "c" / "photo_1.png"), arr[5:21, 10:26])
    r = _run("crop", path, "--size", "8x8", "-o", tmp_path / "c2")
    assert r.exit_code == 1 and "give at least one --box or --boxes" in r.output


def test_warp_as_a_real_subprocess(photo, tmp_path):
    path, _ = photo
    exe = shutil.which("warpkit")
    r = subprocess.run([exe, "warp", str(path), "-o", str(tmp_path / "s.png"), "--rotate", "15",
                        "--expand"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={**os.environ})
    assert r.returncode == 0, r.stderr
    with Image.open(tmp_path / "s.png") as im:
        assert im.size[0] > 64
    r = subprocess.run([exe, "warp", str(tmp_path / "missing.png"), "-o", str(tmp_path / "z.png")],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.strip() == "warpkit: error: input not found: " + str(
        tmp_path / "missing.png")


def test_progress_bar_only_for_several_files_on_a_terminal(monkeypatch):
    """The rich bar shows for several inputs on a terminal; one image (or no terminal) gets a
    stand-in that does not import rich.progress (~25 ms of a one-image warp)."""
    from warpkit import files

    monkeypatch.setattr(files.os, "isatty", lambda fd: True)
    with files.progress(1) as p:
        assert isinstance(p, files.NoProgress)
        p.advance(p.add_task("warping", total=1))
    bar = files.progress(3)
    assert type(bar).__name__ == "Progress" and type(bar).__module__ == "rich.progress"
    monkeypatch.setattr(files.os, "isatty", lambda fd: False)
    assert isinstance(files.progress(3), files.NoProgress)


def test_augment_writes_copies_that_replay_and_records_their_maps(photo, tmp_path):
    path, arr = photo
    d = _folder(tmp_path, path, ["a.png", "b.png"])
    args = ["--copies", 3, "--degrees", 20, "--scale", "0.9,1.1", "--translate", "0.05",
            "--shear", "-5,5", "--hflip", 0.5, "--padding", "border", "--seed", 7]
    r = _run("augment", d, "-o", tmp_path / "out", *args, "--matrices", tmp_path / "m.json")
    assert r.exit_code == 0, r.output
    assert "6 images written" in r.output and "(seed 7)" in r.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [f"{s}_aug{k}.png" for s in "ab" for k in range(3)]
    record = json.loads((tmp_path / "m.json").read_text())
    assert sorted(record) == names
    for name in names:  # each output is the API's warp with the recorded map
        m = np.array(record[name]["matrix"])
        assert record[name]["source"].endswith(name[0] + ".png")
        ref = warpkit.warp_affine(arr, m, padding="border")
        assert np.abs(_read(tmp_path / "out" / name).astype(int) - ref).max() <= 1
    # an input's maps follow from the seed and its name alone: b alone gives b's maps again
    r = _run("augment", d / "b.png", "-o", tmp_path / "again", *args, "--matrices", tmp_path / "b.json")
    assert r.exit_code == 0, r.output
    again = json.loads((tmp_path / "b.json").read_text())
    for k in range(3):
        assert again[f"b_aug{k}.png"]["matrix"] == record[f"b_aug{k}.png"]["matrix"]
    assert record["a_aug0.png"]["matrix"] != record["b_aug0.png"]["matrix"]
    # no seed: one is drawn, printed, and replays the run
    r = _run("augment", path, "-o", tmp_path / "s1", "--degrees", 30)
    seed = r.output.split("(seed ")[1].split(")")[0]
    assert _run("augment", path, "-o", tmp_path / "s2", "--degrees", 30, "--seed", seed).exit_code == 0
    np.testing.assert_array_equal(_read(tmp_path / "s1" / "photo_aug0.png"),
                                  _read(tmp_path / "s2" / "photo_aug0.png"))


def test_augment_is_safe_and_reports(photo, tmp_path):
    path, _ = photo
    out = tmp_path / "out"
    assert _run("augment", path, "-o", out, "--degrees", 10, "--seed", 1).exit_code == 0
    before = (out / "photo_aug0.png").read_bytes()
    r = _run("augment", path, "-o", out, "--degrees", 40, "--seed", 2)
    assert r.exit_code == 1 and "exists (pass --overwrite" in r.output
    assert (out / "photo_aug0.png").read_bytes() == before
    r = _run("augment", path, "-o", out, "--seed", 1, "--matrices", path)
    assert r.exit_code == 1 and "refusing to overwrite the input" in r.output
    d = _folder(tmp_path, path, ["a.png"], bad="c.png")
    r = _run("augment", d, "-o", tmp_path / "o2", "--degrees", 5)
    assert r.exit_code == 1 and "c.png" in r.output and "1 of 2 files failed" in r.output
    assert (tmp_path / "o2" / "a_aug0.png").exists()


@pytest.mark.parametrize("args,message", [
    (["--degrees", "5,1"], "--degrees must have low <= high"),
    (["--degrees", "a"], "--degrees must be N or N,N, got 'a'"),
    (["--scale", "0"], "--scale must be > 0"),
    (["--translate", "1,2,3"], "--translate must be N or N,N"),
    (["--shear", "95"], r"--shear must lie in [-89, 89]"),
    (["--hflip", "2"], "--hflip is a probability"),
    (["--size", "0x5"], "--size must be at least 1x1"),
    (["--copies", "0"], "Invalid value for '--copies'"),
])
def test_augment_user_errors_are_one_line(photo, tmp_path, args, message):
    path, _ = photo
    r = _run("augment", path, "-o", tmp_path / "e", *args)
    assert r.exit_code != 0, r.output
    assert message in r.output and "Traceback" not in r.output


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    from warpkit.fileio import save_json_atomic

    dest = tmp_path / "maps.json"
    save_json_atomic({"a": 1}, dest)
    assert json.loads(dest.read_text()) == {"a": 1}
    umask = os.umask(0)
    os.umask(umask)
    assert dest.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    with pytest.raises(TypeError):
        save_json_atomic({"a": object()}, dest)  # fails halfway through json.dump
    assert json.loads(dest.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["maps.json"]


def _augmented(path, tmp_path, pipe, copies: int, option: str, files: list) -> tuple:
    """``path`` through ``pipe`` (saved as tmp_path/pipe.json) by the command, seed 4, with
    each of ``files`` given as ``option``: (the pipeline's file, the output folder)."""
    spec = tmp_path / "pipe.json"
    spec.write_text(json.dumps(pipe.to_dict()))
    out = tmp_path / "out"
    r = _run("augment", path, "-o", out, "--pipeline", spec, "--copies", copies, "--seed", 4,
             *[a for f in files for a in (option, f)])
    assert r.exit_code == 0, r.output
    return spec, out


def _refused_pipeline_files(path, tmp_path, spec, option: str, good) -> None:
    """One-line errors for a pipeline's files given as ``option``: none beside the pipeline
    ``spec`` that reads them, a missing file, a file that is no image; ``good`` beside a
    pipeline without the transform and without a pipeline."""
    from warpkit.augment import Compose, RandomHorizontalFlip

    for args, msg in (([], f"give one or more with {option} FILE"),
                      ([option, tmp_path / "none.png"], option), ([option, spec], option)):
        r = _run("augment", path, "-o", tmp_path / "e", "--pipeline", spec, *args)
        assert r.exit_code != 0 and msg in r.output and "Traceback" not in r.output, r.output
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(Compose([RandomHorizontalFlip()]).to_dict()))
    for args in (["--pipeline", plain, option, good], [option, good]):
        r = _run("augment", path, "-o", tmp_path / "e", *args)
        assert r.exit_code != 0 and f"{option} is for a" in r.output, r.output


def test_augment_pastes_overlay_files(photo, tmp_path):
    """--overlay: the pipeline's OverlayElements takes the files as each copy's elements, in
    the input's mode, a transparent file's alpha as the element's mask; each copy is the
    Python call's; a grayscale input gets gray elements; one-line errors without them, beside
    a pipeline without the transform, and for a file that is no image."""
    import zlib

    from warpkit.augment import Compose, OverlayElements, RandomHorizontalFlip, Resize
    from warpkit.files import overlay_element

    path, arr = photo
    sticker = np.zeros((12, 16, 4), np.uint8)
    sticker[..., 0], sticker[..., 3] = 250, 255
    sticker[:4, :4, 3] = 0  # (a transparent corner: not pasted)
    files = [tmp_path / "sticker.png", tmp_path / "logo.jpg"]
    Image.fromarray(sticker).save(files[0])
    Image.fromarray(np.full((10, 10, 3), 30, np.uint8)).save(files[1])
    pipe = Compose([OverlayElements(p=1), RandomHorizontalFlip(), Resize((40, 50))])
    spec, out = _augmented(path, tmp_path, pipe, 2, "--overlay", files)
    with Image.open(path) as im:
        elements = [overlay_element(f, im) for f in files]
    assert "mask" in elements[0] and "mask" not in elements[1]
    assert (elements[0]["mask"] == 0).sum() == 16
    for k in range(2):
        want = pipe(image=arr, overlay_metadata=elements, seed=4, epoch=k,
                    index=zlib.crc32(b"photo.png"))["image"]
        np.testing.assert_array_equal(_read(out / f"photo_aug{k}.png"), want)
    gray = tmp_path / "gray.png"
    Image.fromarray(arr[..., 1]).save(gray)
    r = _run("augment", gray, "-o", tmp_path / "g", "--pipeline", spec, "--overlay", files[0],
             "--seed", 1)
    assert r.exit_code == 0 and _read(tmp_path / "g" / "gray_aug0.png").ndim == 2, r.output
    _refused_pipeline_files(path, tmp_path, spec, "--overlay", files[0])


def test_augment_matches_histograms_to_reference_files(photo, tmp_path):
    """--reference: the pipeline's HistogramMatching and FDA take the files as their
    hm_metadata and fda_metadata lists; each copy is the Python call's (seed, epoch k, index
    the file name's CRC); the references are inputs (never overwritten); one-line errors
    without them, beside neither transform, and for a file that is no image."""
    import zlib

    from warpkit.augment import FDA, Compose, HistogramMatching, RandomHorizontalFlip

    path, arr = photo
    refs = []
    for k, level in enumerate((40, 200)):
        p = tmp_path / f"ref{k}.png"
        ramp = np.clip(np.arange(30 * 20 * 3).reshape(30, 20, 3) // 7 + level - 100, 0, 255)
        Image.fromarray(ramp.astype(np.uint8)).save(p)
        refs.append(p)
    pipe = Compose([RandomHorizontalFlip(), HistogramMatching(p=1), FDA(p=1)])
    spec, out = _augmented(path, tmp_path, pipe, 3, "--reference", refs)
    given = [_read(p) for p in refs]
    for k in range(3):
        want = pipe(image=arr, hm_metadata=given, fda_metadata=given, seed=4, epoch=k,
                    index=zlib.crc32(b"photo.png"))["image"]
        np.testing.assert_array_equal(_read(out / f"photo_aug{k}.png"), want)
    _refused_pipeline_files(path, tmp_path, spec, "--reference", refs[0])
    r = _run("augment", path, "-o", tmp_path, "--pipeline", spec, "--reference", refs[0],
             "--matrices", refs[0])
    assert r.exit_code != 0 and "refusing to overwrite the input" in r.output, r.output


def test_albumentations_files_saved_as_yaml_run_as_their_json(photo, tmp_path):
    """--pipeline takes the file albumentations' A.save writes in either format: JSON, or YAML
    where the name ends .yaml or .yml (data_format="yaml"; it was refused as "not valid
    JSON"). Both give the same copies, the copies of the recipe ported in Python."""
    import warnings

    A = pytest.importorskip("albumentations")
    from warpkit.augment import from_albumentations

    recipe = A.Compose([A.RandomResizedCrop((40, 56)), A.HorizontalFlip(),
                        A.ColorJitter(p=1), A.CoarseDropout(p=1)])
    outs = {}
    for name, fmt in (("a.json", "json"), ("a.yaml", "yaml"), ("a.yml", "yaml")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            A.save(recipe, str(tmp_path / name), data_format=fmt)
        r = _run("augment", photo[0], "-o", tmp_path / name.replace(".", "_"), "--pipeline",
                 tmp_path / name, "--copies", 2, "--seed", 3)
        assert r.exit_code == 0, r.output
        outs[name] = [_read(tmp_path / name.replace(".", "_") / f"photo_aug{k}.png")
                      for k in range(2)]
    assert all(o.shape == (40, 56, 3) for o in outs["a.json"])
    for name in ("a.yaml", "a.yml"):
        assert all(np.array_equal(a, b) for a, b in zip(outs[name], outs["a.json"]))
    assert from_albumentations(tmp_path / "a.yaml").to_dict() == \
        from_albumentations(recipe).to_dict()
    # a YAML file that is not valid says so in one line, and a JSON file that holds YAML
    (tmp_path / "bad.yaml").write_text("transform: [1, 2\n")
    (tmp_path / "yaml.json").write_text((tmp_path / "a.yaml").read_text())
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{")
    for name, pattern in (("bin.json", r"--pipeline .*bin.json: not UTF-8 text \(invalid start "
                                       r"byte at byte 0\)"),
                          ("bad.yaml", r"--pipeline .*bad.yaml: not valid YAML \(expected ',' "
                                       r"or '\]', but got '<stream end>' at line 2, column 1\)"),
                          ("yaml.json", r"--pipeline .*yaml.json: not valid JSON \(.*\); YAML "
                                        r"files are read as YAML where named .yaml or .yml")):
        r = _run("augment", photo[0], "-o", tmp_path / "x", "--pipeline", tmp_path / name)
        assert r.exit_code != 0 and re.search(pattern, r.output), r.output
        assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_a_pipeline_files_own_seed_replays_without_the_option(photo, tmp_path):
    """A file warpkit.augment.save wrote from a Compose with a seed runs with that seed where
    --seed is not given (it was drawn afresh): the copies of --seed with the same number."""
    from warpkit.augment import Compose, HorizontalFlip, RandomResizedCrop, save

    save(Compose([RandomResizedCrop((40, 56)), HorizontalFlip()], seed=41),
         str(tmp_path / "p.json"))
    r = _run("augment", photo[0], "-o", tmp_path / "own", "--pipeline", tmp_path / "p.json",
             "--copies", 2)
    assert r.exit_code == 0 and "(seed 41)" in r.output, r.output
    r = _run("augment", photo[0], "-o", tmp_path / "given", "--pipeline", tmp_path / "p.json",
             "--copies", 2, "--seed", 41)
    assert r.exit_code == 0, r.output
    for k in range(2):
        np.testing.assert_array_equal(_read(tmp_path / "own" / f"photo_aug{k}.png"),
                                      _read(tmp_path / "given" / f"photo_aug{k}.png"))
