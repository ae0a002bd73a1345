"""CLAHE (warpkit.augment.CLAHE, kernels_cl/colour_pass.cl's colour_clahe_lut and colour_apply):
albumentations' CLAHE, OpenCV's createCLAHE on 8-bit levels (on L of OpenCV's 8-bit Lab for RGB),
with OpenCV's Lab tables made in warpkit/engine/lab.py; checked against albumentations itself
with fixed clip limits on real photos, uint8 and float32, 1 and 3 channels, grids that do and do
not divide the image, on every device CI runs (Oclgrind for the small cases)."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W
from warpkit.engine import lab

from conftest import reference_queue
from helpers import check_small_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

COFFEE = skimage.data.coffee()[::2, ::2].copy()  # 200 x 300 RGB
CAMERA = skimage.data.camera()[100:323, 50:311].copy()  # 223 x 261, one channel
ASTRONAUT = skimage.data.astronaut()[:123, 200:401].copy()  # 123 x 201: no grid divides it


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_lab_conversions_are_opencvs():
    """Every one of the 2^24 RGB colours to Lab, and every 8-bit Lab triple back to RGB: the
    tables made as OpenCV makes them give OpenCV's levels, all of them."""
    every = np.arange(1 << 24, dtype=np.uint32)
    cube = np.stack([(every >> 16) & 255, (every >> 8) & 255, every & 255], -1)
    cube = cube.astype(np.uint8).reshape(4096, 4096, 3)
    np.testing.assert_array_equal(lab.rgb_to_lab(cube), cv2.cvtColor(cube, cv2.COLOR_RGB2LAB))
    np.testing.assert_array_equal(lab.lab_to_rgb(cube), cv2.cvtColor(cube, cv2.COLOR_LAB2RGB))
    t = lab.tables()
    assert t.dtype == np.int32 and len(t) == lab.TABLE_WORDS
    assert lab.DEFINES["LT_COEFFS"] + 18 == lab.TABLE_WORDS


CASES = [(2.0, (8, 8)), (3.7, (4, 6)), (1.0, (3, 5)), (40.0, (2, 2)), (1.5, (1, 1))]


@pytest.mark.parametrize("photo", [COFFEE, CAMERA, ASTRONAUT], ids=["rgb", "gray", "odd size"])
@pytest.mark.parametrize("clip,grid", CASES, ids=[f"{c}-{g[0]}x{g[1]}" for c, g in CASES])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_clahe_equals_albumentations(photo, clip, grid, dtype, queue):
    """A fixed clip limit: albumentations' image, on these photos every pixel the same level
    (the interpolation's float arithmetic is OpenCV's; a device whose rounding of it differs
    may move a pixel by a level, never more)."""
    img = photo if dtype == "uint8" else photo.astype(np.float32) / 255
    t = dict(clip_limit=(clip, clip), tile_grid_size=grid, p=1)
    ours = W.Compose([W.CLAHE(**t)])(image=img, seed=0, queue=queue)["image"]
    theirs = _quiet(A.CLAHE(**t), image=img)["image"]
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    levels = np.abs(ours.astype(np.float64) - theirs) * (255 if dtype == "float32" else 1)
    assert levels.max() <= 1 + 1e-4
    assert (levels > 1e-4).mean() < 1e-3
    assert (ours != img).mean() > 0.2  # it equalised


def test_a_large_tile(queue):
    """One tile of 1500 x 2000 pixels (its histogram counted by 750 work-items of 2 rows):
    albumentations' image (Mesa llvmpipe ends a shader's loops past about 65000 turns, which
    one work-group per tile reached)."""
    big = np.tile(skimage.data.coffee(), (4, 4, 1))[:1500, :2000].copy()
    t = dict(clip_limit=(2.0, 2.0), tile_grid_size=(1, 1), p=1)
    ours = W.Compose([W.CLAHE(**t)])(image=big, seed=0, queue=queue)["image"]
    theirs = _quiet(A.CLAHE(**t), image=big)["image"]
    assert np.abs(ours.astype(int) - theirs).max() <= 1


def test_clahe_after_the_warp_and_before_other_steps(queue):
    """In a pipeline CLAHE equalises the image the steps before it made (a resize, a
    brightness), and the steps after it take its result: albumentations' own steps on warpkit's
    resized image give the same levels."""
    resize = W.Compose([W.Resize((150, 210))])(image=COFFEE, seed=0, queue=queue)["image"]
    pipe = W.Compose([W.Resize((150, 210)), W.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
                      W.CLAHE(clip_limit=(3, 3), p=1), W.InvertImg(p=1)])
    ours = pipe(image=COFFEE, seed=0, queue=queue)["image"]
    theirs = _quiet(A.Compose([A.RandomBrightnessContrast((0.1, 0.1), (0, 0), p=1),
                               A.CLAHE(clip_limit=(3, 3), p=1), A.InvertImg(p=1)]),
                    image=resize)["image"]
    assert np.abs(ours.astype(int) - theirs).max() <= 1


def test_a_sample_is_the_same_alone_and_in_any_batch(queue):
    """CLAHE on some samples of a batch (drawn per sample), other colour steps on others, none
    on some: each sample's image is the one it gets alone, to the bit (a sample that drew no
    colour step is rounded to levels either way, as albumentations' uint8 steps leave it),
    float32 CHW out as a model takes it."""
    photos = [COFFEE, skimage.data.astronaut(), skimage.data.chelsea(), COFFEE[::-1].copy()]
    pipe = W.Compose([W.RandomResizedCrop(96), W.CLAHE(p=0.5),
                      W.RandomBrightnessContrast(p=0.3)], output_dtype="float32",
                     mean=[0.5] * 3, std=[0.2] * 3, layout="CHW")
    drew = set()
    for seed in range(3):
        out = pipe(image=photos, seed=seed, queue=queue)
        for k, photo in enumerate(photos):
            alone = pipe(image=photo, seed=seed, index=k, queue=queue)
            np.testing.assert_array_equal(out["image"][k], alone["image"])
            drew.add(tuple(s["applied"] for s in alone["params"]["steps"][1:]))
    assert (False, False) in drew and len(drew) >= 3


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """A rotated 21 x 13 output through CLAHE (grids that divide it and that do not, one tile, a
    clip limit that clips and one that cannot, after a brightness and before a blur's pass):
    the default device's numbers on each device, Oclgrind included; and a gray image."""
    img = skimage.data.astronaut()[100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.CLAHE(clip_limit=(2, 2), tile_grid_size=(3, 2), p=1)],
             [W.CLAHE(clip_limit=(1, 1), tile_grid_size=(7, 13), p=1)],
             [W.RandomBrightnessContrast(p=1), W.CLAHE(tile_grid_size=(1, 1), p=1),
              W.GaussianBlur(sigma_limit=(0.8, 0.8), p=1)],
             [W.CLAHE(clip_limit=(40, 40), tile_grid_size=(4, 4), p=1)]]
    check_small_cases(img, geo, cases, small_queue)
    gray = img[..., 1].copy()
    pipe = W.Compose([geo, W.CLAHE(clip_limit=(2, 2), tile_grid_size=(5, 3), p=1)])
    out = pipe(image=gray, seed=3, queue=small_queue)["image"]
    assert out.shape == (13, 21)
    ref = pipe(image=gray, seed=3, queue=reference_queue())["image"]
    assert np.abs(out.astype(int) - ref).max() <= 1


def test_draws_and_refusals():
    """The clip limit is drawn per sample from (1, x) for a number x (albumentations'); a
    replay gives the same; what albumentations does not take is refused by name."""
    t = W.CLAHE(clip_limit=3.0)
    assert t.clip_limit == (1.0, 3.0)
    draws = [t.draw(np.random.default_rng(i), (50, 40))["clip_limit"] for i in range(200)]
    assert 1 <= min(draws) < 1.2 and 2.8 < max(draws) <= 3
    with pytest.raises(TypeError, match="CLAHE takes images of 1 or 3 channels"):
        W.Compose([W.CLAHE(p=1)])(image=np.zeros((8, 8, 4), np.uint8), seed=0)
    with pytest.raises(TypeError, match="CLAHE takes uint8 or float32 images"):
        W.Compose([W.CLAHE(p=1)])(image=np.zeros((8, 8, 3), np.uint16), seed=0)
    with pytest.raises(ValueError, match=r"tile_grid_size must be two whole numbers of tiles in "
                                         r"\[1, 64\]"):
        W.CLAHE(tile_grid_size=(0, 8))
    with pytest.raises(ValueError, match="tile_grid_size"):
        W.CLAHE(tile_grid_size=(65, 8))
    with pytest.raises(ValueError, match="clip_limit"):
        W.CLAHE(clip_limit=(0.5, 2))
    again = W.Compose.from_dict(W.Compose([W.CLAHE((2, 5), (4, 6), p=0.3)]).to_dict())
    assert (again.transforms[0].clip_limit, again.transforms[0].tile_grid_size) == \
        ((2.0, 5.0), (4, 6))


def test_ultralytics_recipe_ports(queue):
    """Ultralytics' albumentations recipe (its defaults: CLAHE among the blurs and gray, and
    steps with p=0, ImageCompression among them) ports whole; a CLAHE that always applies
    gives albumentations' image."""
    recipe = _quiet(A.Compose, [A.Blur(p=0.01), A.MedianBlur(p=0.01), A.ToGray(p=0.01),
                                A.CLAHE(p=0.01), A.RandomBrightnessContrast(p=0.0),
                                A.RandomGamma(p=0.0),
                                A.ImageCompression(quality_range=(75, 100), p=0.0)],
                    bbox_params=A.BboxParams(format="yolo", label_fields=["class_labels"]))
    ours = W.from_albumentations(recipe)
    assert [type(t).__name__ for t in ours.transforms] == \
        ["Blur", "MedianBlur", "ToGray", "CLAHE", "RandomBrightnessContrast", "RandomGamma",
         "ImageCompression"]
    out = ours(image=COFFEE, boxes=[[0.5, 0.5, 0.2, 0.3]], class_labels=[1], seed=0, queue=queue)
    assert out["image"].shape == COFFEE.shape
    one = W.from_albumentations(_quiet(A.Compose, [A.CLAHE(clip_limit=(2, 2), p=1)]))
    theirs = _quiet(A.Compose([A.CLAHE(clip_limit=(2, 2), p=1)]), image=COFFEE)["image"]
    assert np.abs(one(image=COFFEE, seed=0, queue=queue)["image"].astype(int) - theirs).max() <= 1


def test_the_cli_takes_an_albumentations_file_with_clahe(tmp_path):
    """``warpkit augment --pipeline`` with the JSON albumentations saves: CLAHE and Perspective
    (no perspective at scale 0) give albumentations' CLAHE of the photo."""
    from PIL import Image
    from typer.testing import CliRunner

    from warpkit.cli.app import app

    Image.fromarray(COFFEE).save(tmp_path / "a.png")
    recipe = _quiet(A.Compose, [A.Perspective(scale=(0, 0), p=1), A.CLAHE(clip_limit=(2, 2), p=1)])
    _quiet(A.save, recipe, str(tmp_path / "aug.json"))
    r = CliRunner().invoke(app, ["augment", str(tmp_path / "a.png"), "-o", str(tmp_path / "out"),
                                 "--pipeline", str(tmp_path / "aug.json")])
    assert r.exit_code == 0, r.output
    (out,) = sorted((tmp_path / "out").iterdir())
    got = np.asarray(Image.open(out))
    theirs = _quiet(A.CLAHE(clip_limit=(2, 2), p=1), image=COFFEE)["image"]
    assert got.shape == COFFEE.shape
    assert np.abs(got.astype(int) - theirs).max() <= 1
