"""albumentations' geometric transforms under their own names (warpkit.augment._geometric):
with fixed parameters each gives albumentations 2.0.8's image (within 1 level), output size,
boxes (within 0.5 px, away from the border) and keypoints; their resampling arguments become
the pipeline's, and disagreeing ones are refused."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.coffee()[::2, ::2].copy()  # 200 x 300 RGB
BOXES = [[100.0, 60.0, 170.0, 130.0], [140.5, 80.25, 160.0, 110.0]]
POINTS = [[150.0, 100.0], [120.5, 70.25]]


def _theirs(t, image=PHOTO):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([t], bbox_params=A.BboxParams(format="pascal_voc",
                                                         label_fields=["labels"]),
                           keypoint_params=A.KeypointParams(format="xy", remove_invisible=False))
        return recipe(image=image, bboxes=BOXES, labels=[0, 1], keypoints=POINTS)


def _ours(t, queue, image=PHOTO):
    return W.Compose([t], remove_invisible=False)(image=image, boxes=BOXES, labels=[0, 1],
                                                  keypoints=POINTS, seed=0, queue=queue)


def _same(ours, theirs, levels=1, box_px=0.5):
    assert ours["image"].shape == theirs["image"].shape
    diff = np.abs(ours["image"].astype(int) - theirs["image"])
    assert diff.max() <= levels, diff.max()
    np.testing.assert_allclose(ours["keypoints"], theirs["keypoints"], atol=2e-3)
    assert list(ours["labels"]) == list(theirs["labels"])
    np.testing.assert_allclose(ours["boxes"], np.asarray(theirs["bboxes"]).reshape(-1, 4),
                               atol=box_px)


CASES = [
    ("rotate, scale per axis, shear x and y, pixels",
     dict(rotate=17.0, scale={"x": 1.1, "y": 0.9}, shear={"x": 5.0, "y": -3.0},
          translate_px={"x": 7, "y": -4})),
    ("translate_percent truncated to pixels", dict(translate_percent={"x": 0.13, "y": -0.07},
                                                   rotate=-8.0)),
    ("a number shears both axes", dict(shear=6.0, scale=0.8)),
    ("fit_output", dict(rotate=30.0, scale=1.2, fit_output=True)),
    ("reflect_101", dict(rotate=12.0, scale=0.7, border_mode=cv2.BORDER_REFLECT_101)),
    ("replicate, nearest", dict(rotate=-21.0, border_mode=cv2.BORDER_REPLICATE,
                                interpolation=cv2.INTER_NEAREST)),
    ("constant with a fill", dict(rotate=40.0, fill=(10, 200, 30))),
]


@pytest.mark.parametrize("kw", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_affine_equals_albumentations(kw, queue):
    ours = _ours(W.Affine(**kw, p=1), queue)
    theirs = _theirs(A.Affine(**kw, p=1))
    if kw.get("border_mode", 0) not in (0, 1):
        # reflections: albumentations adds a mirrored copy of each box and keypoint that the
        # reflected picture shows; warpkit moves the targets given (the image is compared)
        ours = {**ours, "boxes": ours["boxes"][:0], "labels": [], "keypoints": []}
        theirs = {**theirs, "bboxes": [], "labels": [], "keypoints": []}
    if kw.get("fit_output"):
        # albumentations places its boxes' output by flooring the corners of its box matrix,
        # not of the image's: here 1 px lower than its own image and keypoints. warpkit moves
        # boxes with the image's map: they agree with the keypoints' shift
        shift = np.asarray(theirs["bboxes"]) - ours["boxes"]
        np.testing.assert_allclose(shift, [[0, -1, 0, -1]] * 2, atol=1e-4)
        theirs = {**theirs, "bboxes": ours["boxes"]}
    _same(ours, theirs)


@pytest.mark.parametrize("t,a", [
    (lambda: W.ShiftScaleRotate(shift_limit=(0.05, 0.05), scale_limit=(0.1, 0.1),
                                rotate_limit=(20, 20), p=1),
     lambda: A.ShiftScaleRotate(shift_limit=(0.05, 0.05), scale_limit=(0.1, 0.1),
                                rotate_limit=(20, 20), p=1)),
    (lambda: W.ShiftScaleRotate(shift_limit_x=(-0.1, -0.1), shift_limit_y=(0.02, 0.02),
                                scale_limit=(-0.2, -0.2), rotate_limit=(-33, -33), p=1),
     lambda: A.ShiftScaleRotate(shift_limit_x=(-0.1, -0.1), shift_limit_y=(0.02, 0.02),
                                scale_limit=(-0.2, -0.2), rotate_limit=(-33, -33), p=1)),
    (lambda: W.Rotate(limit=(25, 25), p=1), lambda: A.Rotate(limit=(25, 25), p=1)),
    (lambda: W.Rotate(limit=(-35, -35), crop_border=True, p=1),
     lambda: A.Rotate(limit=(-35, -35), crop_border=True, p=1)),
    (lambda: W.SafeRotate(limit=(30, 30), p=1), lambda: A.SafeRotate(limit=(30, 30), p=1)),
    (lambda: W.SafeRotate(limit=(-100, -100), p=1), lambda: A.SafeRotate(limit=(-100, -100), p=1)),
    (lambda: W.Transpose(p=1), lambda: A.Transpose(p=1)),
    (lambda: W.HorizontalFlip(p=1), lambda: A.HorizontalFlip(p=1)),
    (lambda: W.VerticalFlip(p=1), lambda: A.VerticalFlip(p=1)),
], ids=["ShiftScaleRotate", "ShiftScaleRotate per axis", "Rotate", "Rotate crop_border",
        "SafeRotate", "SafeRotate past 90", "Transpose", "HorizontalFlip", "VerticalFlip"])
def test_named_transforms_equal_albumentations(t, a, queue):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ShiftScaleRotate: "use Affine"
        theirs = _theirs(a())
    _same(_ours(t(), queue), theirs)


PERSPECTIVE = [
    ("defaults", dict()),
    ("keep_size=False: the quad's own size", dict(scale=(0.1, 0.2), keep_size=False)),
    ("fit_output", dict(scale=(0.1, 0.2), fit_output=True)),
    ("a number is (0, s), fit_output at the quad's size",
     dict(scale=0.15, fit_output=True, keep_size=False)),
    ("reflect_101, cubic", dict(scale=(0.05, 0.1), border_mode=cv2.BORDER_REFLECT_101,
                                interpolation=cv2.INTER_CUBIC)),
    ("a fill", dict(scale=(0.2, 0.3), fill=(10, 200, 30))),
]


@pytest.mark.parametrize("kw", [c[1] for c in PERSPECTIVE], ids=[c[0] for c in PERSPECTIVE])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perspective_equals_albumentations(kw, seed, queue, monkeypatch):
    """warpkit's Perspective draws its corners from the sample's stream and records them
    (``points``); albumentations given the same corners (its random corner draw replaced by
    them) makes the same image, size, boxes and keypoints: its ordering, side lengths,
    keep_size and fit_output arithmetic are warpkit's."""
    from albumentations.augmentations.geometric import functional as fgeometric

    out = W.Compose([W.Perspective(**kw, p=1)], remove_invisible=False)(
        image=PHOTO, boxes=BOXES, labels=[0, 1], keypoints=POINTS, seed=seed, queue=queue)
    points = np.array(out["params"]["steps"][0]["points"])
    assert points.shape == (4, 2)
    monkeypatch.setattr(fgeometric, "generate_perspective_points",
                        lambda shape, scale, rng: points.copy())
    theirs = _theirs(A.Perspective(**kw, p=1))
    # albumentations moves a box's edge coordinates as if they were pixel centres; warpkit
    # moves its corners (half a pixel outside the edge pixels' centres) through the map: the
    # two differ by half a pixel times the map's local stretch less one (up to 1 px for the
    # strongest perspective here, 0.5 px for an affine map)
    _same(out, theirs, box_px=1.0)


def test_perspective_draws_albumentations_corners():
    """Each corner moves inwards by |N(0, s)| of the side folded into [0, 0.32): over many
    draws the moves' spread is s (the half-normal's mean is s sqrt(2 / pi)), and the replayed
    map is the recorded one's."""
    size = (300, 200)
    t = W.Perspective(scale=(0.05, 0.05))
    pts = np.array([t.draw(np.random.default_rng(i), size)["points"] for i in range(2000)])
    frac = np.abs(pts - [[0, 0], [300, 0], [300, 200], [0, 200]]) / [300, 200]
    assert frac.max() < 0.32
    assert abs(frac.mean() - 0.05 * np.sqrt(2 / np.pi)) < 0.002
    assert abs(frac.std() - 0.05 * np.sqrt(1 - 2 / np.pi)) < 0.002
    wide = np.array([W.Perspective(scale=2.0).draw(np.random.default_rng(i), size)["points"]
                     for i in range(500)])
    assert (np.abs(wide - [[0, 0], [300, 0], [300, 200], [0, 200]]) / [300, 200]).max() < 0.32
    m, out = t.map({"points": pts[0].tolist()}, size)
    assert out == size and m.shape == (3, 3)
    with pytest.raises(ValueError, match="Perspective: points must be 4 finite"):
        t.map({"points": [[0, 0], [1, 1]]}, size)


SIZED = [dict(min_max_height=(80, 150), size=(96, 128), w2h_ratio=1.3),
         dict(min_max_height=(150, 260), size=(64, 64), w2h_ratio=2.0),
         dict(min_max_height=(30, 40), size=(120, 90), w2h_ratio=0.7,
              interpolation=cv2.INTER_CUBIC)]


@pytest.mark.parametrize("kw", SIZED, ids=["mild", "past the image", "enlarged, cubic"])
def test_random_sized_crop_equals_albumentations(kw, queue):
    """RandomSizedCrop's recorded crop (its height drawn from min_max_height, width
    int(height * w2h_ratio), each cut to the image) resized by albumentations' own apply gives
    warpkit's image within 1 level, but near the edges of an enlarged crop, where cv2.resize
    repeats the crop's edge pixels and warpkit reads the image beyond them."""
    t = W.RandomSizedCrop(**kw)
    lo, hi = kw["min_max_height"]
    for seed in range(4):
        out = W.Compose([t])(image=PHOTO, seed=seed, queue=queue)
        x, y, w, h = out["params"]["steps"][0]["box"]
        assert min(lo, PHOTO.shape[0]) <= h <= hi and w == min(int(h * kw["w2h_ratio"]),
                                                                PHOTO.shape[1])
        theirs = _quiet_apply(A.RandomSizedCrop(**kw, p=1), PHOTO, (x, y, x + w, y + h))
        assert out["image"].shape == theirs.shape == (*kw["size"], 3)
        # the enlarged edge's pixels: those whose taps (2 source pixels each side for cubic)
        # reach past the crop; cv2.resize's cubic weights are fixed point (11 bits): within 2
        cubic = kw.get("interpolation") == cv2.INTER_CUBIC
        my, mx = ((1 + cubic) * -(-kw["size"][0] // h) + 1,
                  (1 + cubic) * -(-kw["size"][1] // w) + 1)
        inner = (slice(my, -my) if kw["size"][0] > h else slice(None),
                 slice(mx, -mx) if kw["size"][1] > w else slice(None))
        levels = 2 if cubic else 1
        assert np.abs(out["image"][inner].astype(int) - theirs[inner]).max() <= levels


@pytest.mark.parametrize("fractions", [(0.2, 0.3, 0.1, 0.4), (0.5, 0.5, 0.0, 1.0),
                                       (0.0, 0.0, 0.0, 0.0)])
def test_crops_from_borders_and_fixed_crops_equal_albumentations(fractions, queue):
    """RandomCropFromBorders draws its ends as albumentations does (each end's range as its
    draw makes it); the recorded crop, cut by albumentations' own apply, is warpkit's image to
    the bit, and so is a fixed Crop."""
    t = W.RandomCropFromBorders(*fractions)
    H, W_ = PHOTO.shape[:2]
    left, right, top, bottom = fractions
    for seed in range(4):
        out = W.Compose([t])(image=PHOTO, seed=seed, queue=queue)
        x0, y0, x1, y1 = out["params"]["steps"][0]["crop"]
        assert 0 <= x0 <= int(left * W_) and max(x0 + 1, int((1 - right) * W_)) <= x1 <= W_
        assert 0 <= y0 <= int(top * H) and max(y0 + 1, int((1 - bottom) * H)) <= y1 <= H
        theirs = _quiet_apply(A.RandomCropFromBorders(*fractions, p=1), PHOTO, (x0, y0, x1, y1))
        np.testing.assert_array_equal(out["image"], theirs)
    fixed = W.Compose([W.Crop(10, 20, 110, 70)])(image=PHOTO, seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(fixed, _theirs(A.Crop(10, 20, 110, 70))["image"])


def _quiet_apply(t, img, crop):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.apply(img, crop_coords=crop)


def test_d4_elements_are_albumentations_own(queue):
    img = PHOTO[:40, :70]
    seen = set()
    for seed in range(40):
        out = W.Compose([W.D4()])(image=img, seed=seed, queue=queue)
        name = out["params"]["steps"][0]["element"]
        seen.add(name)
        want = A.D4(p=1).apply(img, group_element=name)
        np.testing.assert_array_equal(out["image"], want)
    assert seen == set(W._geometric.D4_ELEMENTS)  # all eight drawn


def test_draws_follow_albumentations_rules():
    """A 2-tuple shears x and y (each drawn, negated as albumentations does); a number is a
    fixed value for Affine and a symmetric range for ShiftScaleRotate / Rotate; balanced_scale
    draws below and above 1 alike; keep_ratio uses one scale."""
    size = (300, 200)
    draws = [W.Affine(shear=(2, 5)).draw(np.random.default_rng(i), size) for i in range(200)]
    sx = np.array([d["shear"] for d in draws])
    assert (sx <= -2).all() and (sx >= -5).all() and (sx[:, 0] != sx[:, 1]).all()
    assert {tuple(W.Affine(rotate=10, scale=0.8).draw(np.random.default_rng(i), size)["scale"])
            for i in range(5)} == {(0.8, 0.8)}
    rot = [W.Rotate(limit=20).draw(np.random.default_rng(i), size)["angle"] for i in range(300)]
    assert min(rot) < -15 and max(rot) > 15 and max(map(abs, rot)) <= 20
    bal = np.array([W.Affine(scale=(0.5, 4), balanced_scale=True)
                    .draw(np.random.default_rng(i), size)["scale"] for i in range(400)])
    below = (bal < 1).mean()
    assert 0.4 < below < 0.6  # plain uniform(0.5, 4) is below 1 one time in seven
    kr = W.Affine(scale=(0.5, 2), keep_ratio=True).draw(np.random.default_rng(3), size)
    assert kr["scale"][0] == kr["scale"][1]
    px = [W.Affine(translate_px=(-3, 3)).draw(np.random.default_rng(i), size)["translate"]
          for i in range(200)]
    assert {v for p in px for v in p} == set(range(-3, 4))


def test_their_resampling_becomes_the_pipelines():
    aug = W.Compose([W.Affine(rotate=5, border_mode=cv2.BORDER_REFLECT_101,
                              interpolation=cv2.INTER_CUBIC),
                     W.Rotate(limit=3, border_mode="reflect_101", interpolation=2)])
    assert (aug.padding, aug.interpolation) == ("reflect_101", "cubic")
    again = W.Compose.from_dict(aug.to_dict())
    assert again.to_dict() == aug.to_dict()
    filled = W.Compose([W.SafeRotate(fill=(1, 2, 3), fill_mask=5)])
    assert (filled.fill, filled.mask_fill) == ((1, 2, 3), 5.0)
    assert W.Compose([W.Affine(border_mode=4)], padding="mirror").padding == "mirror"  # alias


@pytest.mark.parametrize("call,match", [
    (lambda: W.Compose([W.Affine(border_mode=4), W.Rotate(border_mode=1)], passes="one"),
     r"Rotate sets padding='border' but Affine sets padding='reflect_101': a warpkit pipeline "
     r"of passes='one' resamples once, with one padding"),
    (lambda: W.Compose([W.Affine(border_mode=4)], padding="constant"),
     r"Affine sets padding='reflect_101' but Compose sets padding='constant'"),
    (lambda: W.Compose([W.OneOf([W.Affine(interpolation=0), W.SafeRotate()])]),
     r"SafeRotate sets interpolation='linear' but Affine sets interpolation='nearest'"),
    (lambda: W.Compose([W.Affine(fill=3), W.Rotate(fill=4)], passes="one"),
     r"Rotate sets fill=4 but Affine"),
    (lambda: W.Affine(border_mode=3), r"border_mode must be one of 0 \('constant'\), 1 "
                                      r"\('border'\), 2 \('reflection'\), 4 \('reflect_101'\), "
                                      r"got 3"),
    (lambda: W.Affine(mask_interpolation=4), r"mask_interpolation must be one of 0 \('nearest'\)"),
    (lambda: W.Affine(rotate_method="circle"), r"rotate_method must be one of 'largest_box', "
                                               r"'ellipse', got 'circle'"),
    (lambda: W.Compose([W.Affine(rotate_method="ellipse"), W.Perspective()]),
     r"rotate_method='ellipse' is supported where its step is the pipeline's only one that "
     r"turns, shears or bends \(Affine, Perspective here\)"),
    (lambda: W.Compose([W.OneOf([W.Rotate(rotate_method="ellipse"), W.Affine(rotate=5)])]),
     r"\(Affine, Rotate here\)"),
    (lambda: W.Affine(translate_percent=0.1, translate_px=3), r"not both"),
    (lambda: W.Affine(translate_px=1.5), r"translate_px is whole pixels"),
    (lambda: W.Affine(scale={"z": 1}), r"scale as a dict takes the keys 'x' and/or 'y'"),
    (lambda: W.Affine(scale={"x": (0.5, 2), "y": 1}, keep_ratio=True),
     r"keep_ratio=True needs one"),
    (lambda: W.ShiftScaleRotate(shift_limit=2), r"shift_limit_x must lie in \[-1, 1\]"),
    (lambda: W.Rotate(crop_border="yes"), r"crop_border must be True or False"),
    (lambda: W.RandomSizedCrop((10, 20.5), 32), r"min_max_height must be whole rows"),
    (lambda: W.RandomSizedCrop((10, 20), 32, w2h_ratio=0), r"w2h_ratio must be > 0"),
    (lambda: W.Compose([W.Crop(10, 20, 310, 70)])(image=PHOTO, seed=0),
     r"Crop\(10, 20, 310, 70\) reaches past the 300x200 image"),
    (lambda: W.Crop(10, 20, 5, 70), r"Crop needs x_min < x_max and y_min < y_max"),
    (lambda: W.Crop(-1, 0, 5, 5), r"x_min must be a whole number of pixels >= 0"),
    (lambda: W.Crop(0, 0, 5, 5, pad_if_needed=True, pad_position="middle"),
     r"Crop pad_if_needed|pad_position must be one of"),
    (lambda: W.RandomCropFromBorders(0.6, 0.5), r"crop_left \+ crop_right must be <= 1"),
    (lambda: W.RandomCropFromBorders(crop_top=1.5), r"crop_top must be in \[0, 1\]"),
    (lambda: W.Perspective(scale=(-0.1, 0.1)), r"scale"),
    (lambda: W.Perspective(keep_size=1), r"keep_size must be True or False"),
    (lambda: W.Perspective(border_mode=3), r"border_mode must be one of 0"),
])
def test_bad_arguments_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_from_albumentations_maps_them(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.Affine(rotate=(12, 12), shear={"x": (4, 4), "y": (0, 0)},
                                     scale=(0.9, 0.9), border_mode=cv2.BORDER_REFLECT_101, p=1),
                            A.ShiftScaleRotate(p=0.3, border_mode=cv2.BORDER_REFLECT_101),
                            A.Rotate(limit=10, border_mode=cv2.BORDER_REFLECT_101),
                            A.SafeRotate(border_mode=cv2.BORDER_REFLECT_101), A.Transpose(),
                            A.D4(p=0.2), A.Perspective(scale=(0.02, 0.08), keep_size=False,
                                                       border_mode=cv2.BORDER_REFLECT_101),
                            A.RandomSizedCrop((50, 80), (64, 48), w2h_ratio=0.75),
                            A.RandomCropFromBorders(crop_left=0.3, p=0.4), A.Crop(2, 3, 40, 30)])
    ours = W.from_albumentations(recipe)
    assert [type(t).__name__ for t in ours.transforms] == \
        ["Affine", "ShiftScaleRotate", "Rotate", "SafeRotate", "Transpose", "D4", "Perspective",
         "RandomSizedCrop", "RandomCropFromBorders", "Crop"]
    assert ours.padding == "reflect_101"
    assert [t.p for t in ours.transforms] == [1, 0.3, 0.5, 0.5, 0.5, 0.2, 0.5, 1, 0.4, 1]
    assert ours.transforms[-2].fractions == (0.3, 0.1, 0.1, 0.1)
    assert ours.transforms[-1].box == (2, 3, 40, 30)
    sized = ours.transforms[-3]
    assert (sized.min_max_height, sized.size, sized.w2h_ratio) == ((50, 80), (48, 64), 0.75)
    persp = ours.transforms[-4]
    assert (persp.scale, persp.keep_size, persp.fit_output) == ((0.02, 0.08), False, False)
    again = W.Compose.from_dict(ours.to_dict())
    assert again.to_dict() == ours.to_dict()
    one = W.from_albumentations(A.Compose([A.Affine(rotate=(12, 12), scale=(0.9, 0.9), p=1)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = A.Compose([A.Affine(rotate=(12, 12), scale=(0.9, 0.9), p=1)])(image=PHOTO)
    got = one(image=PHOTO, seed=0, queue=queue)
    assert np.abs(got["image"].astype(int) - want["image"]).max() <= 1
    with pytest.raises(ValueError, match=r"rotate_method='ellipse' is supported where.*"
                                         r"Compose\(passes='as_needed'\) moves them pass by "
                                         r"pass"):
        W.Compose([W.Affine(rotate_method="ellipse"), W.Rotate()])
    # (a port moves the boxes pass by pass, as albumentations: tests/test_passes.py)
    assert W.from_albumentations(A.Compose([A.Affine(rotate_method="ellipse"),
                                            A.Rotate()])).pass_starts == (1,)


# ---- a transform called alone, as albumentations' are -------------------------------------

LONE = [
    (lambda m: m.Affine(rotate=(17, 17), scale=(0.9, 0.9), shear=(5, 5), p=1), "Affine"),
    (lambda m: m.Rotate(limit=(25, 25), p=1), "Rotate"),
    (lambda m: m.SafeRotate(limit=(30, 30), p=1), "SafeRotate"),
    (lambda m: m.Perspective(scale=(0, 0), p=1), "Perspective"),
    (lambda m: m.HorizontalFlip(p=1), "HorizontalFlip"),
    (lambda m: m.VerticalFlip(p=1), "VerticalFlip"),
    (lambda m: m.Transpose(p=1), "Transpose"),
    (lambda m: m.CenterCrop(120, 160, p=1), "CenterCrop"),
    (lambda m: m.Resize(100, 150, p=1), "Resize"),
    (lambda m: m.LongestMaxSize(max_size=160, p=1), "LongestMaxSize"),
    (lambda m: m.PadIfNeeded(min_height=256, min_width=320, border_mode=cv2.BORDER_CONSTANT,
                             fill=7, p=1), "PadIfNeeded"),
]


@pytest.mark.parametrize("make", [c[0] for c in LONE], ids=[c[1] for c in LONE])
def test_a_lone_transform_is_called_as_albumentations(make, queue):
    """``HorizontalFlip(p=1)(image=img, mask=m)``: a transform called alone gives
    albumentations' lone call (image within 1 level, the mask exactly where no tie between
    neighbours decides it), with the keys it was given."""
    mask = (PHOTO[..., 1] // 50).astype(np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = make(A)(image=PHOTO, mask=mask)
    ours = make(W)(image=PHOTO, mask=mask, seed=0, queue=queue)
    assert ours["image"].shape == theirs["image"].shape
    assert np.abs(ours["image"].astype(int) - theirs["image"]).max() <= 1
    assert ours["mask"].shape == theirs["mask"].shape
    if make(W).__class__.__name__ not in ("Resize", "LongestMaxSize"):
        assert (ours["mask"] != theirs["mask"]).mean() < 2e-3
    # (OpenCV's nearest resize reads source pixel floor(x * scale), not the nearest centre,
    # which warpkit reads: there the masks differ on a share of pixels by design)
    assert {"image", "mask"} <= ours.keys()


def test_a_lone_transform_takes_targets_and_pipeline_options(queue):
    """Boxes, labels and Compose's options (bbox_params) in a lone call go to its one-step
    pipeline; its probability holds (p=0: nothing changes); without seed= each call draws
    anew, with one it replays."""
    flip = W.HorizontalFlip(p=1)
    out = flip(image=PHOTO, bboxes=BOXES, class_labels=[3, 4], queue=queue,
               bbox_params=W.BboxParams(format="pascal_voc", label_fields=["class_labels"]))
    w = PHOTO.shape[1]
    np.testing.assert_allclose(out["bboxes"], [[w - b[2], b[1], w - b[0], b[3]] for b in BOXES])
    assert list(out["class_labels"]) == [3, 4]
    np.testing.assert_array_equal(W.HorizontalFlip(p=0)(image=PHOTO)["image"], PHOTO)
    turn = W.Affine(rotate=(-40, 40), p=1)
    draws = {round(turn(image=PHOTO, queue=queue)["params"]["steps"][0]["rotate"], 6)
             for _ in range(4)}
    assert len(draws) == 4
    a, b = (turn(image=PHOTO, seed=5, queue=queue)["image"] for _ in range(2))
    np.testing.assert_array_equal(a, b)


def test_compose_takes_opencv_mask_interpolation_codes():
    """albumentations' Compose(mask_interpolation=cv2.INTER_LINEAR): OpenCV's codes as its
    names; anything else is refused by name."""
    assert W.Compose([], mask_interpolation=cv2.INTER_LINEAR).mask_interpolation == "linear"
    assert W.Compose([], mask_interpolation=cv2.INTER_CUBIC).mask_interpolation == "cubic"
    assert W.Compose([], mask_interpolation="nearest").mask_interpolation == "nearest"
    assert W.Compose([], mask_interpolation=cv2.INTER_AREA).mask_interpolation == "area"
    with pytest.raises(ValueError, match="mask_interpolation must be one of 0 .'nearest'."):
        W.Compose([], mask_interpolation=cv2.INTER_LANCZOS4)
    with pytest.raises(ValueError, match="mask_interpolation"):
        W.Compose([], mask_interpolation=True)


POSITIONS = ["center", "top_left", "top_right", "bottom_left", "bottom_right", "random"]
#: boxes and keypoints inside the 110 x 200 photo of the padding tests
SMALL_BOXES = [[100.0, 20.0, 170.0, 90.0], [140.5, 30.25, 160.0, 100.0]]
SMALL_POINTS = [[150.0, 100.0], [120.5, 70.25]]


def _pad_then_crop(pipe_out, t, img, mask, position, crop_hw, fill, fill_mask):
    """albumentations' result for warpkit's recorded crop (and random position): its own
    PadIfNeeded to the crop's size at the same position, then its own Crop of the window
    warpkit drew, with the boxes and keypoints (what its RandomCrop(pad_if_needed=True) is:
    padding first, then a window of the padded image)."""
    h, w = crop_hw
    step = pipe_out["params"]["steps"][0]
    H, W_ = img.shape[:2]
    pads = [max(0, h - H), max(0, w - W_)]
    top = step.get("top", int(pads[0] / 2) if position == "center" else
                   0 if position.startswith("top") else pads[0])
    left = step.get("left", int(pads[1] / 2) if position == "center" else
                    0 if position.endswith("left") else pads[1])
    x0 = step["x"] + left if "x" in step else round((W_ + pads[1] - w) / 2)
    y0 = step["y"] + top if "y" in step else round((H + pads[0] - h) / 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.PadIfNeeded(min_height=h, min_width=w, position="top_left",
                                          border_mode=cv2.BORDER_CONSTANT, fill=fill,
                                          fill_mask=fill_mask),
                            A.Crop(x0, y0, x0 + w, y0 + h)],
                           bbox_params=A.BboxParams(format="pascal_voc",
                                                    label_fields=["labels"]),
                           keypoint_params=A.KeypointParams(format="xy",
                                                            remove_invisible=False))
        # the image moved to where the position puts it: pad the far sides by hand first
        shifted = []
        for a, v in ((img, fill), (mask, fill_mask)):
            b = np.empty((a.shape[0] + top, a.shape[1] + left) + a.shape[2:], a.dtype)
            b[...] = v
            b[top:, left:] = a
            shifted.append(b)
        boxes = np.asarray(SMALL_BOXES) + [left, top, left, top]
        points = np.asarray(SMALL_POINTS) + [left, top]
        return recipe(image=shifted[0], mask=shifted[1], bboxes=boxes, labels=[0, 1],
                      keypoints=points)


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("kind, crop_hw", [("RandomCrop", (130, 120)),
                                           ("RandomCrop", (90, 320)),
                                           ("CenterCrop", (130, 320)),
                                           ("CenterCrop", (90, 160))])
def test_crops_pad_if_needed_as_albumentations(kind, crop_hw, position, queue):
    """RandomCrop and CenterCrop with pad_if_needed=True: a photo smaller than the crop along
    an axis is padded to it there first, placed at pad_position (drawn for "random"), with the
    crop's fill and fill_mask, then the window is cut from the padded image: albumentations'
    pad then crop gives the same image, mask, boxes and keypoints (CenterCrop's margins over
    the padded image are even here: where one is odd, its corner is rounded as torchvision
    rounds it, a pixel from albumentations' floor). Their fill becomes the pipeline's; their
    recorded window replays."""
    img = PHOTO[:110, :200]
    mask = (np.arange(110 * 200).reshape(110, 200) % 7).astype(np.uint8)
    t = getattr(W, kind)(*crop_hw, pad_if_needed=True, pad_position=position,
                         fill=(7, 8, 9), fill_mask=3)
    pipe = W.Compose([t], box_format="pascal_voc", remove_invisible=False, min_visibility=0.0)
    for seed in range(3):
        out = pipe(image=img, mask=mask, boxes=SMALL_BOXES, labels=[0, 1],
                   keypoints=SMALL_POINTS, seed=seed, queue=queue)
        theirs = _pad_then_crop(out, t, img, mask, position, crop_hw, (7, 8, 9), 3)
        np.testing.assert_array_equal(out["image"], theirs["image"])
        np.testing.assert_array_equal(out["mask"], theirs["mask"])
        np.testing.assert_allclose(out["keypoints"], theirs["keypoints"], atol=1e-6)
        np.testing.assert_allclose(out["boxes"], np.asarray(theirs["bboxes"]).reshape(-1, 4),
                                   atol=1e-6)
        again = pipe(image=img, mask=mask, params=out["params"], queue=queue)
        np.testing.assert_array_equal(again["image"], out["image"])
    assert pipe.fill == (7, 8, 9) and pipe.mask_fill == 3


@pytest.mark.parametrize("crop_hw", [(40, 41), (99, 150), (120, 301)])
def test_center_crop_corner_follows_the_form_of_the_call(crop_hw, queue):
    """Odd margins: CenterCrop(height, width) (albumentations' call, and its port) floors half
    the margin as albumentations does, the same pixels as its own CenterCrop; CenterCrop(size)
    rounds it half to even as torchvision does; ``rounding`` says so outright and survives
    to_dict (data written before it had one meant torchvision's, and loads so)."""
    img = PHOTO[:199, :299]  # odd margins against even crops, even against odd
    h, w = crop_hw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.CenterCrop(h, w, pad_if_needed=w > 299, fill=3)])(image=img)
    for t in (W.CenterCrop(h, w, pad_if_needed=w > 299, fill=3),
              W.from_albumentations(A.Compose([A.CenterCrop(h, w, pad_if_needed=w > 299,
                                                            fill=3)])).transforms[0]):
        assert t.rounding == "albumentations"
        out = W.Compose([t])(image=img, seed=0, queue=queue)
        np.testing.assert_array_equal(out["image"], theirs["image"])
    tv = W.CenterCrop((h, w))
    assert tv.rounding == "torchvision"
    m, size = tv.map({}, (299, 199))
    assert (-m[0, 2], -m[1, 2]) == (round((299 - w) / 2), round((199 - h) / 2))
    d = W.Compose([tv]).to_dict()
    assert d["transforms"][0]["rounding"] == "torchvision"
    del d["transforms"][0]["rounding"]
    assert W.Compose.from_dict(d).transforms[0].rounding == "torchvision"
    assert W.CenterCrop((h, w), rounding="albumentations").map({}, (299, 199))[0][0, 2] == \
        -((299 - w) // 2)
    with pytest.raises(ValueError, match="CenterCrop rounding must be one of"):
        W.CenterCrop(4, rounding="up")


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("box", [(250, 150, 330, 230), (20, 30, 100, 90), (290, 0, 331, 201)])
def test_crop_pad_if_needed_as_albumentations(box, position, queue):
    """Crop(pad_if_needed=True), a rectangle past the image: albumentations' Crop pads the far
    side by the amount it passes and the near side by its position's share, then cuts the
    rectangle from the padded image; the same image, mask, boxes and keypoints (its own
    Compose for the fixed positions; for "random", its padding at the recorded amounts, then
    its Crop), through from_albumentations too; a rectangle inside needs no padding."""
    img = PHOTO  # 300 x 200
    mask = (np.arange(200 * 300).reshape(200, 300) % 7).astype(np.uint8)
    boxes, points = [[240, 140, 290, 190], [10, 30, 60, 80]], [[260.5, 160.25], [30.0, 40.0]]
    kw = dict(pad_if_needed=True, pad_position=position, border_mode=cv2.BORDER_CONSTANT,
              fill=(7, 8, 9), fill_mask=3)
    params = dict(bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"],
                                           min_visibility=0.0),
                  keypoint_params=A.KeypointParams(format="xy", remove_invisible=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.Crop(*box, **kw)], **params)
    for pipe in (W.Compose([W.Crop(*box, **kw)], box_format="pascal_voc", min_visibility=0.0,
                           remove_invisible=False),
                 W.from_albumentations(recipe)):
        out = pipe(image=img, mask=mask, boxes=boxes, labels=[0, 1], keypoints=points, seed=2,
                   queue=queue)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if position == "random":  # its padding at warpkit's draw, then its Crop
                step = out["params"]["steps"][0]
                dx, dy = max(0, box[2] - 300), max(0, box[3] - 200)
                top, left = step.get("top", 0), step.get("left", 0)
                pad = A.Compose([A.Pad((left, top, dx, dy), border_mode=cv2.BORDER_CONSTANT,
                                       fill=(7, 8, 9), fill_mask=3), A.Crop(*box)], **params)
                theirs = pad(image=img, mask=mask, bboxes=boxes, labels=[0, 1],
                             keypoints=points)
            else:
                theirs = recipe(image=img, mask=mask, bboxes=boxes, labels=[0, 1],
                                keypoints=points)
        np.testing.assert_array_equal(out["image"], theirs["image"])
        np.testing.assert_array_equal(out["mask"], theirs["mask"])
        np.testing.assert_allclose(np.asarray(out["boxes"]).reshape(-1, 4),  # (a port's: a list)
                                   np.asarray(theirs["bboxes"]).reshape(-1, 4),
                                   atol=1e-4)  # (albumentations' boxes pass through float32)
        np.testing.assert_allclose(out["keypoints"], theirs["keypoints"], atol=1e-6)
        assert W.Compose.from_dict(pipe.to_dict())(image=img, params=out["params"],
                                                   queue=queue)["image"].tobytes() == \
            out["image"].tobytes()


def test_from_albumentations_takes_pad_if_needed(queue):
    """A.RandomCrop(pad_if_needed=True, ...) ports with its padding; its fill goes to the
    pipeline, and without pad_if_needed its padding arguments stay unused, as albumentations'
    are."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.RandomCrop(160, 160, pad_if_needed=True, pad_position="random",
                                         fill=5, fill_mask=2)])
        plain = A.Compose([A.CenterCrop(60, 60, fill=5)])
    got = W.from_albumentations(recipe)
    (t,) = got.transforms
    assert (t.pad_if_needed, t.pad_position, got.fill, got.mask_fill) == (True, "random", 5, 2)
    out = got(image=PHOTO[:100, :150], seed=1, queue=queue)
    assert out["image"].shape == (160, 160, 3)
    d = got.to_dict()["transforms"][0]
    assert d["pad_if_needed"] is True and d["pad_position"] == "random"
    assert W.Compose.from_dict(got.to_dict())(image=PHOTO[:100, :150], params=out["params"],
                                              queue=queue)["image"].tolist() == \
        out["image"].tolist()
    (c,) = W.from_albumentations(plain).transforms
    assert not c.pad_if_needed and "pad_if_needed" not in c.to_dict()


#: boxes away from the border (where warpkit clips a box's mapped outline and albumentations
#: the box around it)
INNER_BOXES = [[120.0, 70.0, 180.0, 130.0], [140.5, 80.25, 160.0, 110.0], [90.0, 60.0, 210.0,
                                                                            95.0]]


@pytest.mark.parametrize("make", [
    lambda m: m.Affine(rotate=30.0, p=1, rotate_method="ellipse"),
    lambda m: m.Affine(rotate=-17.0, scale=0.8, shear={"x": 6.0, "y": -4.0}, p=1,
                       rotate_method="ellipse"),
    lambda m: m.Rotate(limit=(25, 25), p=1, rotate_method="ellipse"),
    lambda m: m.ShiftScaleRotate(shift_limit=(0.05, 0.05), scale_limit=(0.1, 0.1),
                                 rotate_limit=(-40, -40), p=1, rotate_method="ellipse"),
], ids=["Affine", "Affine sheared", "Rotate", "ShiftScaleRotate"])
def test_rotate_method_ellipse_is_albumentations(make, queue):
    """rotate_method="ellipse": each box becomes the box around its inscribed ellipse's 360
    points through the map, as albumentations moves it, before a crop and a flip (which take an
    ellipse's box to the box of its image): albumentations' boxes within 0.5 px (away from the
    border), its image within a level; the same pipeline with largest_box gives larger boxes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([make(A), A.Crop(10, 5, 290, 195), A.HorizontalFlip(p=1)],
                           bbox_params=A.BboxParams(format="pascal_voc",
                                                    label_fields=["labels"]))
        t = theirs(image=PHOTO, bboxes=INNER_BOXES, labels=[0, 1, 2])
    pipe = W.from_albumentations(theirs)
    assert pipe.box_method == "ellipse"
    out = pipe(image=PHOTO, boxes=INNER_BOXES, labels=[0, 1, 2], seed=0, queue=queue)
    assert np.abs(out["image"].astype(int) - t["image"]).max() <= 1
    np.testing.assert_allclose(out["boxes"], np.asarray(t["bboxes"]).reshape(-1, 4), atol=0.5)
    corners = W.Compose([make(W), W.Crop(10, 5, 290, 195), W.HorizontalFlip(p=1)])
    big = corners(image=PHOTO, boxes=INNER_BOXES, labels=[0, 1, 2], seed=0, queue=queue)
    assert corners.box_method == "ellipse"
    d = corners.to_dict()
    d["transforms"][0]["rotate_method"] = "largest_box"
    boxed = W.Compose.from_dict(d)
    assert boxed.box_method == "largest_box"
    wide = boxed(image=PHOTO, boxes=INNER_BOXES, labels=[0, 1, 2], seed=0, queue=queue)
    area = lambda b: np.prod(b[:, 2:] - b[:, :2], axis=1)  # noqa: E731
    assert (area(wide["boxes"]) > area(big["boxes"]) + 1).all()


def test_set_mask_interpolation_as_albumentations(queue):
    """Compose.set_mask_interpolation after the pipeline is made: masks resampled linearly from
    then on, as albumentations' own (within 1 level of its fixed-point warp), and as
    Compose(mask_interpolation=...) gives them; the seed's count of calls is kept; None changes
    nothing; a bad value is refused by name."""
    mask = np.zeros(PHOTO.shape[:2], np.uint8)
    mask[50:150, 80:220] = 200
    theirs = A.Compose([A.Affine(rotate=(21, 21), p=1)])
    theirs.set_mask_interpolation(cv2.INTER_LINEAR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = theirs(image=PHOTO, mask=mask)["mask"]
    ours = W.Compose([W.Affine(rotate=(21, 21), p=1)], seed=4)
    nearest = ours(image=PHOTO, mask=mask, queue=queue)["mask"]
    ours.set_mask_interpolation(cv2.INTER_LINEAR)
    ours.set_mask_interpolation(None)
    assert ours.mask_interpolation == "linear" and ours._counted == 1
    got = ours(image=PHOTO, mask=mask, queue=queue)["mask"]
    assert np.abs(got.astype(int) - want).max() <= 1
    assert len(np.unique(got)) > 2 and set(np.unique(nearest)) <= {0, 200}
    made = W.Compose([W.Affine(rotate=(21, 21), p=1)], mask_interpolation="linear")
    np.testing.assert_array_equal(made(image=PHOTO, mask=mask, seed=4, index=1,
                                       queue=queue)["mask"], got)
    with pytest.raises(ValueError, match="mask_interpolation must be one of"):
        ours.set_mask_interpolation(cv2.INTER_LANCZOS4)
