"""YOLO and Pascal VOC label folders (issue: detection recipes, item 5): ``warpkit augment
--annotations DIR --annotation-format yolo|voc`` moves each image's boxes with its copies into a
label file beside each copy. Round trips, boxes against the copies' own pixels, a pipeline whose
crops read the boxes, and the per-file safety of the other outputs (a bad label file fails
alone, nothing is overwritten, one-line errors)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from warpkit.augment import BBoxSafeRandomCrop, CenterCrop, Compose, LongestMaxSize, PadIfNeeded
from warpkit.cli.app import app
from warpkit.labelfiles import LabelFolder

runner = CliRunner()
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


def _scene(path, boxes, size=(160, 120)):
    """An image with each box (pixel edges) painted a colour of its own on black."""
    a = np.zeros((size[1], size[0], 3), np.uint8)
    for (x1, y1, x2, y2), c in zip(boxes, COLOURS):
        a[y1:y2, x1:x2] = c
    Image.fromarray(a).save(path)


def _yolo(boxes, size=(160, 120), classes=None):
    w, h = size
    return "".join(f"{c} {(x1 + x2) / 2 / w} {(y1 + y2) / 2 / h} {(x2 - x1) / w} "
                   f"{(y2 - y1) / h}\n"
                   for c, (x1, y1, x2, y2) in zip(classes or range(len(boxes)), boxes))


def _read_yolo(path, size):
    w, h = size
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    out = {}
    for c, cx, cy, bw, bh in rows:
        cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
        out[int(c)] = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
    return out


BOXES = [(20, 15, 60, 55), (90, 30, 150, 100), (5, 80, 40, 115)]


@pytest.fixture
def data(tmp_path):
    src, labels = tmp_path / "images", tmp_path / "labels"
    src.mkdir()
    labels.mkdir()
    _scene(src / "a.png", BOXES)
    _scene(src / "b.png", BOXES[:2])
    (labels / "a.txt").write_text(_yolo(BOXES))
    (labels / "b.txt").write_text(_yolo(BOXES[:2]))
    return tmp_path


def _augment(*args):
    return runner.invoke(app, ["augment", *map(str, args)])


def test_yolo_round_trip(data):
    out = data / "out"
    r = _augment(data / "images" / "a.png", "-o", out, "--scale", "1", "--annotations",
                 data / "labels", "--annotation-format", "yolo", "--seed", "0")
    assert r.exit_code == 0, r.output
    assert "yolo labels beside them" in r.output
    got = [line.split() for line in (out / "a_aug0.txt").read_text().splitlines()]
    want = [line.split() for line in (data / "labels" / "a.txt").read_text().splitlines()]
    assert [g[0] for g in got] == [w[0] for w in want]
    np.testing.assert_allclose([[float(v) for v in g[1:]] for g in got],
                               [[float(v) for v in w[1:]] for w in want], atol=1e-6)


@pytest.mark.parametrize("how", [
    ["--degrees", "25", "--scale", "0.7,1.2", "--translate", "0.1", "--hflip", "0.5"],
    ["--pipeline", "pipeline.json"],
])
def test_yolo_boxes_follow_the_pixels(data, how):
    """Each copy's label box is the box of its colour in the copy (nearest sampling keeps the
    colours): within 1.5 px, a rotated box's corners cut to the pixel grid."""
    if how[0] == "--pipeline":
        aug = Compose([BBoxSafeRandomCrop(), LongestMaxSize(96, interpolation=0),
                       PadIfNeeded(96, 96)], min_visibility=0.999)
        (data / "pipeline.json").write_text(json.dumps(aug.to_dict()))
        how = ["--pipeline", data / "pipeline.json"]
    else:
        how = [*how, "--interpolation", "nearest", "--padding", "constant"]
    out = data / "out"
    r = _augment(data / "images" / "a.png", data / "images" / "b.png", "-o", out, "--copies",
                 "4", *how, "--annotations", data / "labels", "--annotation-format", "yolo",
                 "--seed", "5")
    assert r.exit_code == 0, r.output
    for stem, n in (("a", 3), ("b", 2)):
        for k in range(4):
            img = np.asarray(Image.open(out / f"{stem}_aug{k}.png"))
            boxes = _read_yolo(out / f"{stem}_aug{k}.txt", (img.shape[1], img.shape[0]))
            if how[0] == "--pipeline":
                assert sorted(boxes) == list(range(n))  # the box-safe crop keeps them all
            for c, box in boxes.items():
                ys, xs = np.nonzero((img == COLOURS[c]).all(-1))
                seen = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
                np.testing.assert_allclose(box, seen, atol=1.5)
            for c in set(range(n)) - set(boxes):  # a dropped box left no more than slivers
                assert (img == COLOURS[c]).all(-1).sum() < 20


VOC = """<annotation>
  <folder>images</folder><filename>a.png</filename><source><database>test</database></source>
  <size><width>160</width><height>120</height><depth>3</depth></size>
  <object><name>cup</name><pose>Left</pose><truncated>0</truncated><difficult>0</difficult>
    <bndbox><xmin>21</xmin><ymin>16</ymin><xmax>60</xmax><ymax>55</ymax></bndbox></object>
  <object><name>dish</name><difficult>1</difficult><note>keep me</note>
    <bndbox><xmin>91</xmin><ymin>31</ymin><xmax>150</xmax><ymax>100</ymax></bndbox></object>
</annotation>"""


def test_voc_round_trip_keeps_every_element(data):
    voc = data / "voc"
    voc.mkdir()
    (voc / "a.xml").write_text(VOC)
    out = data / "out"
    r = _augment(data / "images" / "a.png", "-o", out, "--scale", "1", "--annotations", voc,
                 "--annotation-format", "voc", "--seed", "0")
    assert r.exit_code == 0, r.output
    root = ET.parse(out / "a_aug0.xml").getroot()
    assert root.findtext("filename") == "a_aug0.png"
    assert root.findtext("source/database") == "test"
    objs = root.findall("object")
    assert [o.findtext("name") for o in objs] == ["cup", "dish"]
    assert objs[0].findtext("pose") == "Left" and objs[1].findtext("note") == "keep me"
    assert [[int(o.findtext(f"bndbox/{t}")) for t in ("xmin", "ymin", "xmax", "ymax")]
            for o in objs] == [[21, 16, 60, 55], [91, 31, 150, 100]]


def test_voc_boxes_move_and_drop(data):
    voc = data / "voc"
    voc.mkdir()
    (voc / "a.xml").write_text(VOC)
    aug = Compose([PadIfNeeded(200, 300, position="top_left")], padding="constant")
    (data / "p.json").write_text(json.dumps(aug.to_dict()))
    out = data / "out"
    r = _augment(data / "images" / "a.png", "-o", out, "--pipeline", data / "p.json",
                 "--annotations", voc, "--annotation-format", "voc", "--seed", "0")
    assert r.exit_code == 0, r.output
    root = ET.parse(out / "a_aug0.xml").getroot()
    assert (root.findtext("size/width"), root.findtext("size/height")) == ("300", "200")
    assert [int(v.text) for v in root.find("object/bndbox")] == [21, 16, 60, 55]
    # a crop that leaves the cup out drops it (its pixels 60-100 across, 40-80 down)
    aug = Compose([CenterCrop((40, 40))])
    (data / "c.json").write_text(json.dumps(aug.to_dict()))
    r = _augment(data / "images" / "a.png", "-o", data / "out2", "--pipeline", data / "c.json",
                 "--annotations", voc, "--annotation-format", "voc", "--seed", "0")
    assert r.exit_code == 0, r.output
    root = ET.parse(data / "out2" / "a_aug0.xml").getroot()
    assert [o.findtext("name") for o in root.findall("object")] == ["dish"]
    assert [int(v.text) for v in root.find("object/bndbox")] == [31, 1, 40, 40]


@pytest.mark.parametrize("text, match", [
    ("0 0.5 0.5 0.2\n", "5 fields; this line has 4"),
    ("0 0.5 0.5 0.2 0.2 0.1 0.1 0.3 0.3\n", "segmentation polygon"),
    ("cat 0.5 0.5 0.2 0.2\n", "class must be a whole number"),
    ("0 80 60 40 40\n", "pixel coordinates"),
    ("0 0.5 0.5 0 0.2\n", "width and height > 0"),
    ("0 0.5 nan 0.2 0.2\n", "finite"),
])
def test_a_bad_yolo_file_fails_alone(data, text, match):
    (data / "labels" / "b.txt").write_text(text)
    out = data / "out"
    r = _augment(data / "images" / "a.png", data / "images" / "b.png", "-o", out, "--annotations",
                 data / "labels", "--annotation-format", "yolo", "--seed", "0")
    assert r.exit_code == 1
    assert "b.txt:1" in r.output and match in r.output and "Traceback" not in r.output
    assert "1 of 2 files failed" in r.output
    assert (out / "a_aug0.txt").exists() and (out / "a_aug0.png").exists()
    assert not (out / "b_aug0.png").exists() and not (out / "b_aug0.txt").exists()


@pytest.mark.parametrize("xml, match", [
    ("<annotation><object><name>x</name></object></annotation>", "no <bndbox>"),
    ("<annotation><size><width>10</width><height>10</height></size></annotation>",
     "says 10x10, the image is 160x120"),
    ("<annotation><object><name>x</name><bndbox><xmin>5</xmin><ymin>5</ymin><xmax>2</xmax>"
     "<ymax>9</ymax></bndbox></object></annotation>", "xmax must be >= xmin"),
    ("<annotation><object><name>x</name><bndbox><xmin>5</xmin><ymin>5</ymin><xmax>900</xmax>"
     "<ymax>9</ymax></bndbox></object></annotation>", "reaches outside"),
    ("<annotation><object>", "not valid XML"),
    ("<dataset/>", "root is <annotation>"),
])
def test_a_bad_voc_file_fails_alone(data, xml, match):
    voc = data / "voc"
    voc.mkdir()
    (voc / "a.xml").write_text(VOC)
    (voc / "b.xml").write_text(xml)
    r = _augment(data / "images" / "a.png", data / "images" / "b.png", "-o", data / "out",
                 "--annotations", voc, "--annotation-format", "voc", "--seed", "0")
    assert r.exit_code == 1 and match in r.output and "Traceback" not in r.output, r.output
    assert (data / "out" / "a_aug0.xml").exists()


def test_outputs_are_safe(data):
    out = data / "out"
    args = [data / "images" / "a.png", "-o", out, "--annotations", data / "labels",
            "--annotation-format", "yolo", "--seed", "0"]
    assert _augment(*args).exit_code == 0
    before = (out / "a_aug0.txt").read_text()
    (out / "a_aug0.png").unlink()  # only the label file is left: still not replaced
    r = _augment(*args)
    assert r.exit_code == 1 and "a_aug0.txt exists (pass --overwrite" in r.output
    assert not (out / "a_aug0.png").exists() and (out / "a_aug0.txt").read_text() == before
    assert _augment(*args, "--overwrite", "--degrees", "30").exit_code == 0
    # into the label folder itself: the inputs' label files are never written
    r = _augment(data / "images" / "a.png", "-o", data / "labels", "--annotations",
                 data / "labels", "--annotation-format", "yolo", "--seed", "0")
    assert r.exit_code == 0 and (data / "labels" / "a.txt").read_text() == _yolo(BOXES)
    assert not list(out.glob(".*.tmp"))
    # wrong folder, wrong options: one line, before anything is written
    empty = data / "empty"
    empty.mkdir()
    for extra, match in (([empty, "--annotation-format", "yolo"], "holds no label file"),
                         ([data / "labels" / "a.txt", "--annotation-format", "yolo"],
                          "a folder of .txt files"),
                         ([data / "labels", "--annotation-format", "voc"], "holds no label"),
                         ([data / "labels", "--annotation-format", "yolo",
                           "--annotations-output", data / "x.json"], "for COCO datasets")):
        r = _augment(data / "images" / "b.png", "-o", data / "o3", "--annotations", *extra)
        assert r.exit_code == 1 and match in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1
    assert not (data / "o3").exists() or not list((data / "o3").iterdir())


def test_background_images_and_library_use(data):
    """An image without a label file is a background image (Ultralytics' reading): its copies
    get empty label files."""
    (data / "labels" / "b.txt").unlink()
    r = _augment(data / "images" / "a.png", data / "images" / "b.png", "-o", data / "out",
                 "--annotations", data / "labels", "--annotation-format", "yolo", "--seed", "0")
    assert r.exit_code == 0, r.output
    assert (data / "out" / "b_aug0.txt").read_text() == ""
    folder = LabelFolder(data / "labels", "yolo")
    objs, boxes = folder.read(data / "images" / "a.png", (160, 120))
    np.testing.assert_allclose(boxes, BOXES, atol=1e-9)
    assert objs.items == ["0", "1", "2"]


def test_coco_objects_go_into_the_pipelines_call(data):
    """A COCO dataset's boxes reach the pipeline's call too: a box-safe crop keeps every
    object, RandomIoUCrop removes those whose centres its crop left."""
    from warpkit.augment import RandomIoUCrop

    coco = {"images": [{"id": 1, "file_name": "a.png", "width": 160, "height": 120}],
            "annotations": [{"id": k + 1, "image_id": 1, "category_id": 1, "iscrowd": 0,
                             "bbox": [x1, y1, x2 - x1, y2 - y1], "area": (x2 - x1) * (y2 - y1)}
                            for k, (x1, y1, x2, y2) in enumerate(BOXES)],
            "categories": [{"id": 1, "name": "thing"}]}
    (data / "coco.json").write_text(json.dumps(coco))
    for steps, check in (([BBoxSafeRandomCrop()], "all"), ([RandomIoUCrop()], "centres")):
        aug = Compose(steps, padding="constant")
        (data / "p.json").write_text(json.dumps(aug.to_dict()))
        out = data / f"out_{check}"
        r = _augment(data / "images" / "a.png", "-o", out, "--copies", "6", "--pipeline",
                     data / "p.json", "--annotations", data / "coco.json", "--matrices",
                     data / f"m_{check}.json", "--seed", "1")
        assert r.exit_code == 0, r.output
        made = json.loads((out / "coco_aug.json").read_text())
        params = json.loads((data / f"m_{check}.json").read_text())
        for img in made["images"]:
            ids = sorted(a["id"] for a in made["annotations"] if a["image_id"] == img["id"])
            step = params[img["file_name"]]["params"]["steps"][0]
            if check == "all":
                assert len(ids) == 3
            elif step["crop"] is not None:
                assert len(ids) == 3 - len(step["drop"])
