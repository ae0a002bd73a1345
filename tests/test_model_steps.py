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
    (lambda: [W.Normalize(), W.HorizontalFlip()], {},
     r"Normalize makes the model's input, which warpkit makes in the warp's store: a Compose "
     r"takes it as its last step \(Normalize or ToFloat, then ToTensorV2\), not before other "
     r"steps nor inside OneOf or a nested pipeline\. albumentations' other places for it "
     r"\(before geometry or dropouts\) port with from_albumentations"),
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
