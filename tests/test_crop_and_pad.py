"""CropAndPad (warpkit.augment._geometric) against albumentations 2.0.8 itself: fixed amounts
give its image (within 1 level, but the outermost pixels where cv2.resize repeats a cut edge),
output size, boxes and keypoints; drawn amounts follow its rules (ranges with the high end
excluded, shared or per side, choices, percent truncated to pixels, crops that would leave
nothing shrunk as its own); a batch draws what each sample draws; ports and round trips."""

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

# the photo (200 x 300), boxes, keypoints and albumentations' run of the named transforms' tests
from test_albumentations_geometry import BOXES, PHOTO, POINTS, _theirs  # noqa: E402


def _compare(ours: dict, theirs: dict, sides: list[int], keep_size: bool,
             constant: bool = True) -> None:
    """Image within 1 level but, resized back, the outermost rows and columns of sides cut,
    untouched or padded by a border mode other than constant (cv2.resize repeats the edge
    pixel there, warpkit reads on); boxes within 1e-4 px; keypoints within half a pixel times
    the stretch less one (albumentations scales them about the corner, warpkit about pixel
    centres)."""
    H, W_ = PHOTO.shape[:2]
    a, b = ours["image"], theirs["image"]
    assert a.shape == b.shape
    inner = [slice(None), slice(None)]
    _, _, bw, bh = W.CropAndPad._box(sides, (W_, H))  # (crops past the image shrunk)
    if keep_size:
        my, mx = -(-H // max(bh, 1)) + 1, -(-W_ // max(bw, 1)) + 1
        edge = [v <= 0 or not constant for v in sides]
        inner = [slice(my if edge[0] else 0, -my if edge[2] else None),
                 slice(mx if edge[3] else 0, -mx if edge[1] else None)]
    diff = np.abs(a[tuple(inner)].astype(int) - b[tuple(inner)])
    assert diff.max() <= 1, diff.max()
    np.testing.assert_allclose(ours["boxes"], np.asarray(theirs["bboxes"]).reshape(-1, 4),
                               atol=1e-4)
    assert list(ours["labels"]) == list(theirs["labels"])
    stretch = max(abs(a.shape[1] / bw - 1), abs(a.shape[0] / bh - 1)) if keep_size else 0.0
    np.testing.assert_allclose(ours["keypoints"], np.asarray(theirs["keypoints"])[:, :2],
                               atol=0.5 * stretch + 1e-4)


FIXED = [
    ("px per side, kept size", dict(px=(-10, 20, 0, -5))),
    ("px per side, its own size", dict(px=(-10, 20, 0, -5), keep_size=False)),
    ("pad every side, a fill", dict(px=15, fill=7)),
    ("crop every side", dict(px=-20)),
    ("percent per side", dict(percent=(-0.1, 0.2, 0.05, -0.15))),
    ("reflect_101 pads", dict(px=[-30, -40, 25, 33], border_mode=cv2.BORDER_REFLECT_101)),
    ("replicate, cubic", dict(px=[12, -9, 30, 4], border_mode=cv2.BORDER_REPLICATE,
                              interpolation=cv2.INTER_CUBIC)),
    ("crops past the image shrunk", dict(px=(-150, -150, -150, -150), keep_size=False)),
    ("crops past the image, kept size", dict(px=[-110, 0, -100, 0])),
    ("a fill as three equal values", dict(px=(5, 0, 5, 0), fill=(9, 9, 9), keep_size=False)),
]


@pytest.mark.parametrize("kw", [c[1] for c in FIXED], ids=[c[0] for c in FIXED])
def test_fixed_amounts_equal_albumentations(kw, queue):
    out = W.Compose([W.CropAndPad(**kw)], remove_invisible=False)(
        image=PHOTO, boxes=BOXES, labels=[0, 1], keypoints=POINTS, seed=0, queue=queue)
    theirs = _theirs(A.CropAndPad(**kw, p=1))
    _compare(out, theirs, out["params"]["steps"][0]["sides"], kw.get("keep_size", True),
             kw.get("border_mode", 0) == 0)


DRAWN = [dict(px=(-30, 40)), dict(px=(-30, 40), sample_independently=False),
         dict(percent=(-0.2, 0.3)), dict(percent=(-0.2, 0.3), sample_independently=False),
         dict(px=[(-5, 5), (0, 10), (-20, -10), (3, 4)]),
         dict(percent=[(-0.1, 0.0), (0.0, 0.1), (0.05, 0.05), (-0.2, 0.2)]),
         dict(px=[[-10, 0, 10], [5], [-3, 3], [7, 8, 9]]),
         dict(percent=[[-0.1, 0.1, 0.2], [0.0], [0.3, -0.3, 0.1], [0.01, 0.02, 0.05]])]


@pytest.mark.parametrize("kw", DRAWN, ids=str)
def test_drawn_amounts_follow_albumentations_rules(kw, queue):
    """Every drawn amount lies where albumentations' draw puts it (pixel ranges: randrange,
    the high end excluded; percent: uniform, truncated to pixels of the side; choices: one of
    the values), each end of a range reached, shared draws equal on every side; and the image
    of the recorded amounts is albumentations' own for those amounts."""
    t = W.CropAndPad(**kw)
    H, W_ = PHOTO.shape[:2]
    drawn = np.array([t.draw(np.random.default_rng(s), (W_, H))["sides"] for s in range(400)])
    spec = kw.get("px", kw.get("percent"))
    pixels = "px" in kw
    sides = [spec] * 4 if len(spec) == 2 else spec
    for k, (side, got) in enumerate(zip(sides, drawn.T)):
        length = H if k % 2 == 0 else W_
        if len(side) == 2 and side[0] != side[1] or (len(spec) == 2):
            lo, hi = side
            if pixels:
                assert got.min() == lo and got.max() == hi - 1
            else:
                assert int(lo * length) <= got.min() and got.max() <= int(hi * length)
                assert got.max() - got.min() >= 0.8 * (hi - lo) * length
        else:
            want = {int(v) if pixels else int(v * length) for v in side}
            assert set(got.tolist()) == want
    if kw.get("sample_independently") is False:  # one draw: the same pixels per axis
        assert (drawn[:, :2] == drawn[:, 2:]).all()
        if pixels:
            assert (drawn == drawn[:, :1]).all()
    for seed in range(3):
        out = W.Compose([t], remove_invisible=False)(
            image=PHOTO, boxes=BOXES, labels=[0, 1], keypoints=POINTS, seed=seed, queue=queue)
        sides_px = out["params"]["steps"][0]["sides"]
        _compare(out, _theirs(A.CropAndPad(px=sides_px, p=1)), sides_px, True)


def test_shrinking_crops_as_albumentations():
    """Crops of a side that leave no pixel give back as albumentations' _prevent_zero does."""
    t = W.CropAndPad(px=0)
    for crops in [(150, 150), (199, 1), (0, 250), (120, 80), (1, 199), (300, 0)]:
        for size in (200, 201):
            theirs = A.CropAndPad._prevent_zero([crops[0], 0, crops[1], 0], size, 50)
            x0, y0, w, h = t._box([-crops[0], 0, -crops[1], 0], (50, size))
            assert (y0, size - y0 - h) == (theirs[0], theirs[2]), (crops, size)
            assert h >= 1


def test_batch_draws_replay_and_port(queue):
    """A ragged batch: each sample's amounts and image as alone; to_dict / from_dict keep the
    parameters; from_albumentations maps albumentations' own (its p=1 default kept)."""
    photos = [PHOTO, skimage.data.astronaut()[::3, ::3].copy(), PHOTO[:77, :45].copy()]
    pipe = W.Compose([W.CropAndPad(percent=(-0.25, 0.25), border_mode=cv2.BORDER_REFLECT_101),
                      W.HorizontalFlip()])
    got = pipe(image=photos, seed=4, queue=queue)
    for k, img in enumerate(photos):
        alone = pipe(image=img, seed=4, index=k, queue=queue)
        assert alone["params"] == got["params"][k]
        np.testing.assert_array_equal(alone["image"], got["image"][k])
    t = W.CropAndPad(px=[(-5, 5), (0, 10), (-20, -10), (3, 4)], keep_size=False,
                     sample_independently=False, border_mode=cv2.BORDER_REPLICATE,
                     interpolation=cv2.INTER_CUBIC, fill_mask=3, p=0.6)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose([A.CropAndPad(percent=(-0.1, 0.2), keep_size=False,
                                         border_mode=cv2.BORDER_REFLECT_101)])
    ported = W.from_albumentations(theirs)
    (c,) = ported.transforms
    assert type(c).__name__ == "CropAndPad" and c.p == 1.0 and not c.keep_size
    assert c.config()["percent"] == [-0.1, 0.2] and ported.padding == "reflect_101"


@pytest.mark.parametrize("call,match", [
    (lambda: W.CropAndPad(), r"CropAndPad takes px or percent, one of the two"),
    (lambda: W.CropAndPad(px=3, percent=0.1), r"CropAndPad takes px or percent"),
    (lambda: W.CropAndPad(px=1.5), r"px must be whole pixels, got 1.5"),
    (lambda: W.CropAndPad(px=(9, 3)), r"px range must be \(low, high\) with low <= high"),
    (lambda: W.CropAndPad(px=(1, 2, 3)), r"px must be a number, a pair \(a range\) or four"),
    (lambda: W.CropAndPad(px=[(1, 2), 3, (1, 2), (1, 2)]), r"a pair or a list of choices"),
    (lambda: W.CropAndPad(percent="0.1"), r"percent must be a finite number"),
    (lambda: W.CropAndPad(px=3, fill=(0, 255)), r"fill=\(0, 255\) is not supported: "
                                               r"albumentations draws one value of it"),
    (lambda: W.CropAndPad(px=3, keep_size=1), r"keep_size must be True or False"),
    (lambda: W.CropAndPad(px=3, border_mode=cv2.BORDER_WRAP), r"border_mode must be one of"),
])
def test_bad_arguments_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()
