"""Normalize, ToFloat and ToTensorV2 under albumentations' names and parameters: a Compose
whose last steps they are takes them as its model-input settings, so a recipe that ends in
``A.Normalize(), ToTensorV2()`` ports by changing its imports. Checked against albumentations
itself with fixed parameters, and against the same Compose with the settings given."""

from __future__ import annotations

import warnings

import albumentations as A
import numpy as np
import pytest

import warpkit.augment as W

RNG = np.random.default_rng(11)
PHOTO = RNG.integers(0, 256, (40, 52, 3), np.uint8)
PHOTO16 = RNG.integers(0, 65536, (40, 52, 3), np.uint16)
MASK = (PHOTO[..., 0] > 128).astype(np.uint8)


def _both(make, **call):
    """The same steps from each library (``make(lib)``), called on the same inputs: the
    geometry is fixed (a crop and a flip: pixels copied), so the results can be compared."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose(make(A))(**call)
    return W.Compose(make(W))(**call, seed=0), theirs


@pytest.mark.parametrize("kw", [{}, {"mean": (0.3, 0.4, 0.5), "std": (0.2, 0.1, 0.3),
                                     "max_pixel_value": 200.0},
                                {"mean": 0.5, "std": 0.25}, {"normalization": "image"},
                                {"normalization": "min_max_per_channel"}])
def test_normalize_gives_albumentations_input(kw):
    ours, theirs = _both(lambda m: [m.CenterCrop(32, 48), m.HorizontalFlip(p=1),
                                    m.Normalize(**kw)], image=PHOTO)
    assert ours["image"].dtype == np.float32 and ours["image"].shape == (32, 48, 3)
    np.testing.assert_allclose(ours["image"], theirs["image"], rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("image,max_value", [(PHOTO, None), (PHOTO16, None), (PHOTO16, 4000.0)])
def test_to_float_gives_albumentations_input(image, max_value):
    ours, theirs = _both(lambda m: [m.VerticalFlip(p=1), m.ToFloat(max_value=max_value)],
                         image=image)
    np.testing.assert_allclose(ours["image"], theirs["image"], rtol=1e-6, atol=1e-7)


def test_to_tensor_gives_albumentations_tensors():
    torch = pytest.importorskip("torch")
    from albumentations.pytorch import ToTensorV2

    def steps(m, last):
        return [m.CenterCrop(32, 48), m.HorizontalFlip(p=1), *last]

    cases = [([W.Normalize(), W.ToTensorV2()], [A.Normalize(), ToTensorV2()]),
             ([W.ToTensorV2()], [ToTensorV2()]),
             ([W.Normalize(), W.ToTensorV2(transpose_mask=True)],
              [A.Normalize(), ToTensorV2(transpose_mask=True)])]
    mask = np.dstack([MASK, 1 - MASK])
    for ours_last, theirs_last in cases:
        ours = W.Compose(steps(W, ours_last))(image=PHOTO, mask=mask, seed=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = A.Compose(steps(A, theirs_last))(image=PHOTO, mask=mask)
        for key in ("image", "mask"):
            assert isinstance(ours[key], torch.Tensor), key
            assert ours[key].shape == theirs[key].shape and ours[key].dtype == theirs[key].dtype
            np.testing.assert_allclose(ours[key].numpy(), theirs[key].numpy(), rtol=1e-5,
                                       atol=2e-5)


def test_the_steps_are_the_compose_settings(queue):
    """The same pipeline as the settings given to Compose: the same data and, bit for bit, the
    same results; the data reads back (a "Normalize" step too)."""
    steps = [W.RandomResizedCrop((24, 32)), W.Affine(rotate=(-20, 20), p=1), W.HorizontalFlip()]
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]
    stepped = W.Compose([*steps, W.Normalize(mean=mean, std=std, max_pixel_value=250.0)])
    given = W.Compose(steps, output_dtype="float32", mean=mean, std=std, max_pixel_value=250.0)
    assert stepped.to_dict() == given.to_dict() and len(stepped.transforms) == 3
    for seed in range(3):
        a = stepped(image=PHOTO, seed=seed, queue=queue)["image"]
        b = given(image=PHOTO, seed=seed, queue=queue)["image"]
        assert a.dtype == np.float32 and np.array_equal(a, b)
    data = given.to_dict()
    data["transforms"].append({"type": "Normalize", "mean": 0.5, "std": 0.5})
    back = W.Compose.from_dict({**data, "output_dtype": None, "mean": None, "std": None,
                                "max_pixel_value": None})
    assert (back.output_dtype, back.mean, back.std) == ("float32", [0.5], [0.5])
    assert W.Compose([*steps, W.ToFloat()]).max_pixel_value is None


@pytest.mark.parametrize("steps,kw,pattern", [
    (lambda: [W.Normalize(), W.HorizontalFlip(), W.ToFloat()], {},
     r"Normalize makes the model's input, which warpkit makes in the warp's store: a Compose "
     r"takes one, at its top level \(Normalize or ToFloat, then the geometry and dropouts that "
     r"albumentations applies to the model's float image, then ToTensorV2 last\), not twice "
     r"nor inside OneOf or a nested pipeline"),
    (lambda: [W.Normalize(), W.ColorJitter()], {},
     r"ColorJitter after Normalize is not supported: warpkit makes the model's input last"),
    (lambda: [W.ToFloat(), W.OneOf([W.HorizontalFlip(), W.Blur()])], {},
     r"Blur after ToFloat is not supported"),
    (lambda: [W.Normalize(), W.CoarseDropout(fill="random")], {},
     r"CoarseDropout\(fill='random'\) after Normalize is not supported: warpkit takes a number"),
    (lambda: [W.Normalize(), W.CoarseDropout(fill=5)], {},
     r"CoarseDropout\(fill=5.0\) after Normalize is \[415.65, 401.88, 390.4\] in the image's "
     r"values, outside 0-255"),
    (lambda: [W.HorizontalFlip(), W.OneOf([W.ToFloat(), W.NoOp()])], {},
     r"ToFloat makes the model's input"),
    (lambda: [W.ToTensorV2(), W.Normalize()], {}, r"ToTensorV2 makes the model's input"),
    (lambda: [W.HorizontalFlip(), W.Normalize(), W.ToTensorV2()], {"output_dtype": "float32"},
     r"Normalize and ToTensorV2 make the model's input, and so do Compose's output_dtype: "
     r"give one or the other"),
    (lambda: [W.HorizontalFlip(), W.ToFloat()], {"layout": "CHW", "mean": [0.5]},
     r"ToFloat makes the model's input, and so do Compose's mean, layout"),
    (lambda: [W.Normalize(p=0.5)], {}, r"Normalize\(p < 1\) is not supported: the model's input "
                                       r"is made for every sample"),
    (lambda: [W.ToTensorV2(p=0.5)], {}, r"ToTensorV2\(p=0.5\) is not supported"),
    # a nested pipeline's model input would be dropped: refused (its steps or its settings)
    (lambda: [W.HorizontalFlip(), W.OneOf([W.Compose([W.VerticalFlip(), W.Normalize()])])],
     {}, r"a Compose inside a pipeline makes no model input of its own \(its output_dtype, "
         r"tensors or mask_layout, or its Normalize, ToFloat or ToTensorV2\): give them to the "
         r"outermost Compose"),
    (lambda: [W.Compose([W.VerticalFlip()], output_dtype="float32")], {},
     r"a Compose inside a pipeline makes no model input of its own"),
])
def test_misplaced_or_doubled_steps_are_refused(steps, kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        W.Compose(steps(), **kw)


def test_geometry_and_dropouts_after_normalize_as_albumentations(queue):
    """Kaggle's order under warpkit's import: Normalize (or ToFloat), then flips, turns and
    dropouts, then ToTensorV2. albumentations applies those to the model's float image, so
    their fills are in the model's units: the Compose takes them as the image's levels (the
    port's rule), at any depth of OneOf or Sequential. Fixed parameters give albumentations'
    values (a turn within half a level; holes hold the fill exactly, as many pixels)."""
    photo = np.ascontiguousarray(PHOTO16[:, :, :3] >> 8).astype(np.uint8)
    fill = (0.5, -1.0, 1.0)

    def hole(lib):
        return lib.CoarseDropout(num_holes_range=(1, 1), hole_height_range=(0.5, 0.5),
                                 hole_width_range=(0.5, 0.5), fill=fill, p=1)

    def turn(lib):
        return lib.Affine(translate_px={"x": (4, 4), "y": (-3, -3)}, rotate=(10, 10), fill=0.25,
                          p=1)

    for make, tol in [(lambda L: [L.Normalize(), turn(L)], 0.5 / 255 / 0.224),
                      (lambda L: [L.ToFloat(), L.HorizontalFlip(p=1), turn(L)], 0.5 / 255),
                      (lambda L: [L.Normalize(), L.PixelDropout(dropout_prob=1.0, p=1)], 0.0),
                      (lambda L: [L.Normalize(), L.HorizontalFlip(p=1), hole(L)], None),
                      (lambda L: [L.Normalize(), L.OneOf([L.Sequential(
                          [L.VerticalFlip(p=1), hole(L)], p=1)], p=1)], None)]:
        ours, theirs = _both(make, image=photo)
        ours, theirs = ours["image"], theirs["image"]
        assert ours.dtype == np.float32 and ours.shape == theirs.shape
        if tol is not None:
            assert np.abs(ours - theirs).max() <= tol + 1e-6
        else:  # (the hole lies where each draws it)
            held = [np.all(np.abs(r - np.float32(fill)) < 1e-5, axis=2).sum()
                    for r in (ours, theirs)]
            assert held[0] == held[1] == 20 * 26
    # the same pipeline as the port of albumentations' own, and as the levels given
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alb = A.Compose([A.HorizontalFlip(), A.Normalize(), hole(A)])
    mine = W.Compose([W.HorizontalFlip(), W.Normalize(), hole(W)])
    ported = W.from_albumentations(alb)
    assert mine.transforms[-1].fill == ported.transforms[-1].fill == pytest.approx(
        tuple((np.array(fill) * [0.229, 0.224, 0.225] + [0.485, 0.456, 0.406]) * 255))
    by_hand = W.Compose([W.HorizontalFlip(), W.CoarseDropout(
        num_holes_range=(1, 1), hole_height_range=(0.5, 0.5), hole_width_range=(0.5, 0.5),
        fill=mine.transforms[-1].fill, p=1)], **{k: getattr(mine, k) for k in (
            "output_dtype", "mean", "std", "max_pixel_value")})
    for seed in range(3):
        a = mine(image=photo, seed=seed, queue=queue)["image"]
        b = by_hand(image=photo, seed=seed, queue=queue)["image"]
        assert a.shape == (40, 52, 3) and np.array_equal(a, b)
