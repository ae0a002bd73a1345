"""COCO annotations through warps: RLE against pycocotools, objects against their warped masks
(pycocotools rasterises both), and ``warpkit augment --annotations``."""

from __future__ import annotations

import json

import numpy as np
import pycocotools.mask as mask_api
import pytest
from PIL import Image, ImageDraw
from pycocotools.coco import COCO
from typer.testing import CliRunner

import warpkit
from warpkit import geometry as g
from warpkit.augment.coco import rle_decode, rle_encode, transform_annotations
from warpkit.cli.app import app

runner = CliRunner()
# pycocotools' Cython decoder meets numpy 2's __array__ protocol with a warning, not an error
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def test_rle_round_trips_as_pycocotools_writes_it():
    rng = np.random.default_rng(0)
    for t in range(150):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        m = (rng.random((h, w)) > rng.random()).astype(np.uint8)
        if t % 5 == 0:
            m[:] = t % 2  # all inside / all outside: runs that start with 0 of 0s
        ref = mask_api.encode(np.asfortranarray(m))
        mine = rle_encode(m)
        assert mine == {"size": [h, w], "counts": ref["counts"].decode()}
        np.testing.assert_array_equal(rle_decode(mine), m.astype(bool))
        plain = rle_encode(m, compressed=False)
        np.testing.assert_array_equal(mask_api.decode(mask_api.frPyObjects(plain, h, w)), m)
        np.testing.assert_array_equal(rle_decode(plain), m.astype(bool))


@pytest.mark.parametrize("rle,match", [
    ({"size": [2, 2], "counts": [1, 2]}, r"add up to h \* w = 4, got 3"),
    ({"counts": [4]}, r"an RLE mask is \{'size'"),
    ({"size": [2, 2], "counts": [5, -1]}, r"runs that add up"),
])
def test_bad_rle_is_refused(rle, match):
    with pytest.raises(ValueError, match=match):
        rle_decode(rle)


def _dataset(W=96, H=64):
    """Objects of each kind on a W x H image: a polygon (concave), a box-only object, an RLE
    crowd region, a person with keypoints."""
    blob = np.zeros((H, W), np.uint8)
    blob[40:58, 60:90] = 1
    blob[45:50, 70:80] = 0
    anns = [
        {"id": 1, "image_id": 7, "category_id": 1, "iscrowd": 0, "area": 0,
         "segmentation": [[10, 10, 40, 10, 40, 30, 25, 20, 10, 30]], "bbox": [10, 10, 30, 20]},
        {"id": 2, "image_id": 7, "category_id": 2, "iscrowd": 0, "area": 150.0,
         "bbox": [50, 5, 15, 10]},
        {"id": 3, "image_id": 7, "category_id": 1, "iscrowd": 1, "area": float(blob.sum()),
         "segmentation": rle_encode(blob), "bbox": [60, 40, 30, 18]},
        {"id": 4, "image_id": 7, "category_id": 3, "iscrowd": 0, "area": 100.0,
         "bbox": [5, 35, 20, 25], "num_keypoints": 3,
         "keypoints": [10, 40, 2, 20, 50, 1, 0, 0, 0, 15, 58, 2]},
    ]
    return {"info": {"description": "t"}, "categories": [{"id": i, "name": f"c{i}"}
                                                         for i in (1, 2, 3)],
            "images": [{"id": 7, "file_name": "a.png", "width": W, "height": H}],
            "annotations": anns}


def _to_mask(ann, w, h):
    seg = ann["segmentation"]
    rles = mask_api.frPyObjects(seg, h, w) if isinstance(seg, list) else seg
    rle = mask_api.merge(rles) if isinstance(rles, list) else rles
    if isinstance(rle["counts"], str):
        rle = {**rle, "counts": rle["counts"].encode()}
    return mask_api.decode(rle)


@pytest.mark.parametrize("m", [
    g.rotation(25, (47.5, 31.5)),
    g.compose(g.scale(0.7, center=(47.5, 31.5)), g.translation(30, -12)),
    g.flip("h", (96, 64)),
    g.perspective_from_points([[0, 0], [95, 0], [0, 63], [95, 63]],
                              [[8, 3], [90, 0], [0, 60], [95, 50]]),
])
def test_objects_follow_their_warped_masks(m, queue):
    """Each moved object's mask (rasterised by pycocotools) against the source object's mask
    warped with nearest sampling: IoU >= 0.85 (rasterising a polygon and sampling the pixels
    differ along the edges); boxes within 1.5 px of the warped mask's bounding box; keypoints
    at the map of their positions, unlabelled when they leave."""
    data = _dataset()
    out = transform_annotations(data["annotations"], m, (96, 64), (80, 60))
    by_id = {a["id"]: a for a in out}
    for ann in data["annotations"]:
        if "segmentation" not in ann:
            continue
        src = _to_mask(ann, 96, 64)
        warped = warpkit.warp_perspective(src, m, size=(80, 60), interpolation="nearest",
                                          queue=queue)
        if not warped.any():
            assert ann["id"] not in by_id
            continue
        moved = by_id[ann["id"]]
        mine = _to_mask(moved, 80, 60)
        iou = (mine & warped).sum() / (mine | warped).sum()
        assert iou >= 0.85, (ann["id"], iou)
        ys, xs = np.nonzero(warped)
        ref = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
        x, y, w, h = moved["bbox"]
        assert np.abs(np.array([x, y, x + w, y + h]) - ref).max() <= 1.5
        assert abs(moved["area"] - warped.sum()) <= 0.15 * warped.sum() + 4
    person = data["annotations"][3]
    k = np.array(person["keypoints"], float).reshape(-1, 3)
    moved = by_id[4] if 4 in by_id else None
    if moved is not None:
        mk = np.array(moved["keypoints"], float).reshape(-1, 3)
        xy = g.transform_points(m, k[:, :2])
        inside = (xy[:, 0] >= -0.5) & (xy[:, 0] < 79.5) & (xy[:, 1] >= -0.5) & (xy[:, 1] < 59.5)
        for r in range(4):
            if k[r, 2] > 0 and inside[r]:
                np.testing.assert_allclose(mk[r, :2], xy[r], atol=1e-3)
                assert mk[r, 2] == k[r, 2]
            else:
                assert mk[r].tolist() == [0, 0, 0]
        assert moved["num_keypoints"] == int((mk[:, 2] > 0).sum())


def test_objects_leaving_the_image_are_dropped_and_visibility_applies():
    data = _dataset()
    away = g.translation(500, 0)
    assert transform_annotations(data["annotations"], away, (96, 64), (96, 64)) == []
    half = g.translation(-25, 0)  # the polygon (x 10..40) keeps 15 of its 30 px
    kept = transform_annotations(data["annotations"][:1], half, (96, 64), (96, 64),
                                 min_visibility=0.4)
    assert len(kept) == 1 and kept[0]["bbox"][0] == 0
    assert transform_annotations(data["annotations"][:1], half, (96, 64), (96, 64),
                                 min_visibility=0.6) == []
    with pytest.raises(ValueError, match=r"its RLE mask is 96x64, the image 50x50"):
        transform_annotations(data["annotations"][2:3], g.identity(), (50, 50), (50, 50))


def _coco_files(tmp_path):
    data = _dataset()
    data["images"].append({"id": 9, "file_name": "sub/b.png", "width": 96, "height": 64})
    data["annotations"].append({"id": 5, "image_id": 9, "category_id": 2, "iscrowd": 0,
                                "area": 200, "bbox": [20, 20, 20, 10],
                                "segmentation": [[20, 20, 40, 20, 40, 30, 20, 30]]})
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a.png", "b.png"):
        im = Image.new("RGB", (96, 64), (30, 60, 90))
        # object 1's polygon, painted (Pillow's vertices are pixel indices: edges - 0.5)
        ImageDraw.Draw(im).polygon([(9.5, 9.5), (39.5, 9.5), (39.5, 29.5), (24.5, 19.5),
                                    (9.5, 29.5)], fill=(250, 250, 250))
        im.save(src / name)
    Image.new("RGB", (50, 40)).save(src / "c.png")  # not in the dataset
    (tmp_path / "coco.json").write_text(json.dumps(data))
    return src, data


def test_augment_moves_a_coco_dataset(tmp_path):
    """The CLI writes a dataset pycocotools loads: an image entry per copy, its objects moved
    by the copy's recorded matrix, ids renumbered; a file missing from the dataset is reported
    while the others go on."""
    src, data = _coco_files(tmp_path)
    out = tmp_path / "out"
    r = runner.invoke(app, ["augment", str(src / "a.png"), str(src / "b.png"), str(src / "c.png"),
                            "-o", str(out), "--copies", "2", "--seed", "3", "--degrees", "20",
                            "--padding", "constant", "--annotations", str(tmp_path / "coco.json")])
    assert r.exit_code == 1, r.output
    assert "c.png: is not among the images of coco.json" in r.output
    assert "1 of 3 files failed" in r.output
    res = COCO(str(out / "coco_aug.json"))
    assert sorted(img["file_name"] for img in res.dataset["images"]) == \
        ["a_aug0.png", "a_aug1.png", "b_aug0.png", "b_aug1.png"]
    assert res.dataset["categories"] == data["categories"]
    ids = [a["id"] for a in res.dataset["annotations"]]
    assert ids == list(range(1, len(ids) + 1))
    for img in res.dataset["images"]:
        m = np.array(img["matrix"])
        source = [a for a in data["annotations"] if a["image_id"] == img["source_id"]]
        expect = transform_annotations(source, m, (96, 64), (img["width"], img["height"]))
        got = res.loadAnns(res.getAnnIds(imgIds=[img["id"]]))
        assert [a["bbox"] for a in got] == [a["bbox"] for a in expect]
        assert all(a["image_id"] == img["id"] for a in got)
        # the white rectangle of the picture is where the polygon of object 1 / 5 says
        pixels = np.asarray(Image.open(out / img["file_name"]))[..., 0] > 200
        obj = [a for a in got if a["category_id"] == (1 if img["source_id"] == 7 else 2)]
        if img["source_id"] == 7 and obj:
            mk = res.annToMask(obj[0]).astype(bool)
            assert (mk & pixels).sum() / (mk | pixels).sum() >= 0.85


def test_augment_coco_errors_are_one_line(tmp_path):
    src, data = _coco_files(tmp_path)
    out = tmp_path / "out"
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    r = runner.invoke(app, ["augment", str(src / "a.png"), "-o", str(out), "--annotations",
                            str(bad)])
    assert r.exit_code == 1 and "not a COCO dataset" in r.output
    data["images"][0]["width"] = 90
    (tmp_path / "coco.json").write_text(json.dumps(data))
    r = runner.invoke(app, ["augment", str(src / "a.png"), "-o", str(out), "--annotations",
                            str(tmp_path / "coco.json")])
    assert r.exit_code == 1 and "coco.json says 90x64, the image is 96x64" in r.output
    assert "Traceback" not in r.output
    r = runner.invoke(app, ["augment", str(src / "a.png"), "-o", str(out), "--annotations",
                            str(tmp_path / "coco.json"), "--annotations-output",
                            str(tmp_path / "coco.json")])
    assert r.exit_code == 1 and "refusing to overwrite the input" in r.output


def test_augment_with_a_pipeline_moves_the_dataset(tmp_path):
    """--pipeline with --annotations: the pipeline's min_visibility applies, and its padding
    decides the note about unannotated mirrored objects."""
    from warpkit.augment import Compose, RandomAffine, RandomResizedCrop

    src, data = _coco_files(tmp_path)
    pipe = tmp_path / "aug.json"
    for padding, note in (("constant", False), ("constant_edge", False), ("reflect_101", True)):
        aug = Compose([RandomResizedCrop(48, scale=(0.5, 1)), RandomAffine(degrees=10)],
                      padding=padding, min_visibility=0.3)
        pipe.write_text(json.dumps(aug.to_dict()))
        out = tmp_path / f"out_{padding}"
        r = runner.invoke(app, ["augment", str(src / "a.png"), "-o", str(out), "--copies", "3",
                                "--seed", "1", "--pipeline", str(pipe), "--annotations",
                                str(tmp_path / "coco.json")])
        assert r.exit_code == 0, r.output
        assert ("objects mirrored or repeated into the border are not annotated" in r.output) \
            == note
        res = json.loads((out / "coco_aug.json").read_text())
        for img in res["images"]:
            assert (img["width"], img["height"]) == (48, 48)
            source = [a for a in data["annotations"] if a["image_id"] == img["source_id"]]
            expect = transform_annotations(source, np.array(img["matrix"]), (96, 64), (48, 48),
                                           min_visibility=0.3)
            got = [a for a in res["annotations"] if a["image_id"] == img["id"]]
            assert [a["bbox"] for a in got] == [a["bbox"] for a in expect]


def _strong_fields():
    from warpkit.augment import ElasticTransform, GridDistortion, OpticalDistortion

    return [GridDistortion(num_steps=4, distort_limit=(0.4, 0.5), p=1),
            OpticalDistortion(distort_limit=(0.6, 0.7), p=1),
            ElasticTransform(alpha=400, sigma=12, p=1)]


@pytest.mark.parametrize("field", _strong_fields(), ids=lambda t: type(t).__name__)
def test_objects_follow_non_linear_pipelines(field, queue):
    """With a non-linear stage, objects move through the same chain as the pixels (they were
    moved by the projective part only): polygons (edges cut every ~2 px), RLE masks and boxes
    against the object masks the pipeline itself warps, keypoints where the chain sends
    them."""
    from warpkit.augment import Compose, RandomAffine
    from warpkit.engine.chain import inverse_points

    pipe = Compose([RandomAffine(degrees=10, p=1), field])
    data = _dataset()
    out = pipe(image=np.zeros((64, 96, 3), np.uint8), seed=2, queue=queue)
    chain, size = pipe.stages(out["params"], (96, 64))
    moved = transform_annotations(data["annotations"], out["matrix"], (96, 64), size,
                                  chain=chain)
    by_id = {a["id"]: a for a in moved}
    for ann in data["annotations"][:3]:
        src = _to_mask(ann, 96, 64) if "segmentation" in ann else None
        if src is None:  # the box-only object: its box as a mask
            x, y, w, h = (int(v) for v in ann["bbox"])
            src = np.zeros((64, 96), np.uint8)
            src[y:y + h, x:x + w] = 1
        warped = pipe.replay(out["params"], mask=src, queue=queue)["mask"].astype(bool)
        mine = by_id[ann["id"]]
        ys, xs = np.nonzero(warped)
        ref = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
        x, y, w, h = mine["bbox"]
        assert np.abs(np.array([x, y, x + w, y + h]) - ref).max() <= 1.5, (ann["id"], ref,
                                                                            mine["bbox"])
        if "segmentation" in ann:
            mk = _to_mask(mine, *size).astype(bool)
            assert (mk & warped).sum() / (mk | warped).sum() >= 0.85
    person = by_id[4]
    src_k = np.array(data["annotations"][3]["keypoints"], float).reshape(-1, 3)
    k = np.array(person["keypoints"], float).reshape(-1, 3)
    for r in range(4):
        if k[r, 2] > 0:  # where the kernel reads for the moved point: the original point
            back = inverse_points(chain, k[r:r + 1, :2])[0]
            np.testing.assert_allclose(back, src_k[r, :2], atol=0.01)


def test_augment_moves_annotations_through_a_non_linear_pipeline(tmp_path):
    """`warpkit augment --pipeline P --annotations`, P with a non-linear stage: the written
    picture's object and its annotation agree (the annotation followed the projective part
    only, exit 0)."""
    from warpkit.augment import Compose, OpticalDistortion

    src, data = _coco_files(tmp_path)
    pipe = tmp_path / "aug.json"  # a strong lens: object 1, near a corner, moves 3 px
    pipe.write_text(json.dumps(Compose([OpticalDistortion(distort_limit=(0.6, 0.7),
                                                          p=1)]).to_dict()))
    out = tmp_path / "out"
    r = runner.invoke(app, ["augment", str(src / "a.png"), "-o", str(out), "--copies", "3",
                            "--seed", "4", "--pipeline", str(pipe), "--annotations",
                            str(tmp_path / "coco.json")])
    assert r.exit_code == 0, r.output
    res = COCO(str(out / "coco_aug.json"))
    for img in res.dataset["images"]:
        pixels = np.asarray(Image.open(out / img["file_name"]))[..., 0] > 200
        obj = [a for a in res.loadAnns(res.getAnnIds(imgIds=[img["id"]]))
               if a["category_id"] == 1 and not a["iscrowd"]]
        mk = res.annToMask(obj[0]).astype(bool)
        assert (mk & pixels).sum() / (mk | pixels).sum() >= 0.85
        ys, xs = np.nonzero(pixels)
        x, y, w, h = obj[0]["bbox"]
        # the painted polygon's thin tips fall under the threshold: 2 px (it was 3 px off)
        assert np.abs(np.array([x, y, x + w, y + h])
                      - [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]).max() <= 2.0


def test_every_rle_of_an_object_moves(queue):
    """A segmentation that is a list of RLEs (pycocotools merges them) kept only its first:
    each moves, the area and box are their union's."""
    left, right = np.zeros((64, 96), np.uint8), np.zeros((64, 96), np.uint8)
    left[10:30, 5:25] = 1
    right[30:50, 60:90] = 1
    ann = {"id": 1, "image_id": 1, "category_id": 1, "iscrowd": 1, "area": 800.0,
           "bbox": [5, 10, 85, 40], "segmentation": [rle_encode(left), rle_encode(right)]}
    m = g.flip("h", (96, 64))
    out = transform_annotations([ann], m, (96, 64), (96, 64))[0]
    assert len(out["segmentation"]) == 2
    np.testing.assert_array_equal(rle_decode(out["segmentation"][0]), left[:, ::-1] > 0)
    np.testing.assert_array_equal(rle_decode(out["segmentation"][1]), right[:, ::-1] > 0)
    assert out["area"] == 400 + 600 and out["bbox"] == [6.0, 10.0, 85.0, 40.0]
    # pycocotools' own reading of such an object: the merge of its RLEs
    merged = mask_api.decode(mask_api.merge([{**r, "counts": r["counts"].encode()}
                                             for r in out["segmentation"]]))
    np.testing.assert_array_equal(merged, (left | right)[:, ::-1])


@pytest.mark.parametrize("m,area", [
    (g.rotation(45, (49.5, 29.5)), 400.0),  # the box around it doubles; the object does not
    (g.scale(2.0, center=(49.5, 29.5)), 1600.0),
    (g.compose(g.rotation(45, (49.5, 29.5)), g.translation(-40, 0)), None),
])
def test_a_box_only_objects_area_follows_the_map(m, area):
    """A box-only object's area scales by the map's area change and the visible part of its
    box (it scaled by the box's growth: 400 -> 800 under a 45-degree turn)."""
    ann = {"id": 1, "image_id": 1, "category_id": 1, "area": 400.0, "bbox": [40, 20, 20, 20]}
    out = transform_annotations([ann], m, (100, 60), (100, 60))[0]
    if area is not None:
        assert out["area"] == pytest.approx(area, rel=1e-9)
    else:  # half of the turned box is cut off by the left border
        x, y, w, h = out["bbox"]
        assert x == 0 and out["area"] == pytest.approx(400 * w * h / 800, rel=1e-4)
        assert 0 < out["area"] < 400


def test_a_huge_declared_rle_is_refused_before_it_is_decoded():
    """An RLE declaring 60000 x 60000 with a 7-character counts string (3.4 GB decoded) is
    refused by its size against the image's before anything is decoded, under an
    address-space limit (a regression fails with MemoryError instead of swapping)."""
    from helpers import run_limited

    code = ("from warpkit.augment.coco import _counts_to_string, transform_annotations\n"
            "rle = {'size': [60000, 60000], 'counts': _counts_to_string([1, 3599999998, 1])}\n"
            "assert len(rle['counts']) <= 12, rle\n"
            "ann = {'id': 3, 'bbox': [0, 0, 1, 1], 'segmentation': rle}\n"
            "try:\n"
            "    transform_annotations([ann], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], (64, 48), (64, 48))\n"
            "except ValueError as e:\n"
            "    print(e)\n")
    r = run_limited(code, extra=256 << 20)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "annotation 3: its RLE mask is 60000x60000, the image 64x48" in r.stdout
