"""ToRGB and FromFloat (albumentations' channel and type conversions, made on the host around
the pass): against albumentations itself, in every form a call takes images, and where their
place in a pipeline is refused."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from helpers import albumentations_and_photos, assert_ports
from warpkit import augment as W

A, PHOTOS = albumentations_and_photos()
GRAY = (PHOTOS["astronaut"][100:260, 120:300] @ np.array([0.299, 0.587, 0.114])).round() \
    .astype(np.uint8)  # 160 x 180, one channel
SHIFT = dict(r_shift_limit=(20, 20), g_shift_limit=(-30, -30), b_shift_limit=(7, 7), p=1)


def _theirs(steps, image):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose(steps)(image=image)["image"]


@pytest.mark.parametrize("form", ["hw", "hw1"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_to_rgb_is_albumentations(form, dtype, queue):
    """A grayscale photo flipped, made RGB, then shifted per channel (each channel its own
    value: the three channels are real) and flipped back: albumentations' pipeline, ported,
    gives its result (uint8 exactly, float32 within float rounding)."""
    img = GRAY if dtype == np.uint8 else GRAY.astype(np.float32) / 255
    if form == "hw1":
        img = img[..., None]
    steps = [A.HorizontalFlip(p=1), A.ToRGB(), A.RGBShift(**SHIFT), A.VerticalFlip(p=1)]
    want = _theirs(steps, img)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = W.from_albumentations(A.Compose(steps))
    got = pipe(image=img, seed=0, queue=queue)["image"]
    assert got.shape == want.shape == img.shape[:2] + (3,) and got.dtype == want.dtype
    if dtype == np.uint8:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, atol=2e-7, rtol=0)
    assert not np.array_equal(got[..., 0], got[..., 1])


def test_to_rgb_takes_every_form_of_images(queue):
    """A batch (B, H, W, 1), a ragged list, a Pillow "L" image (an "RGB" one back) and an
    additional image target: each repeated as albumentations repeats one image; 4 channels
    out; 1 out is the image as given."""
    from PIL import Image

    crops = [GRAY[:50, :60], GRAY[10:90, 20:61]]
    pipe = W.Compose([W.HorizontalFlip(p=1), W.ToRGB()],
                     additional_targets={"other": "image"})
    batch = np.stack([GRAY[:50, :60], GRAY[50:100, :60]])[..., None]
    out = pipe(image=batch, other=batch[..., ::-1, :].copy(), seed=0, queue=queue)
    want = np.repeat(batch[:, :, ::-1], 3, axis=-1)
    np.testing.assert_array_equal(out["image"], want)
    np.testing.assert_array_equal(out["other"], np.repeat(batch, 3, axis=-1))
    got = pipe(image=crops, seed=0, queue=queue)["image"]
    for g, c in zip(got, crops):
        np.testing.assert_array_equal(g, _theirs([A.HorizontalFlip(p=1), A.ToRGB()], c))
    pil = pipe(image=Image.fromarray(crops[0]), seed=0, queue=queue)["image"]
    assert getattr(pil, "mode", None) == "RGB"
    np.testing.assert_array_equal(np.asarray(pil), got[0])
    four = W.Compose([W.ToRGB(num_output_channels=4)])(image=crops[1], seed=0, queue=queue)
    np.testing.assert_array_equal(four["image"], _theirs([A.ToRGB(num_output_channels=4)],
                                                         crops[1]))
    one = W.Compose([W.ToRGB(num_output_channels=1)])(image=crops[1], seed=0, queue=queue)
    np.testing.assert_array_equal(one["image"], crops[1])


def test_to_rgb_refusals_and_warnings(queue):
    """An RGB image is left as it is with albumentations' warning; 2 or 4 channels, a Pillow
    RGBA image and a device array are refused by name; p < 1, two ToRGBs, one inside OneOf
    and one after a step that changes values are refused when the pipeline is made."""
    import pyopencl.array as cla
    from PIL import Image

    rgb = PHOTOS["chelsea"][:40, :50]
    with pytest.warns(UserWarning, match="image is already an RGB image"):
        out = W.ToRGB()(image=rgb, seed=0, queue=queue)["image"]
    np.testing.assert_array_equal(out, rgb)
    for bad, why in [(rgb[..., :2], "image has 2 channels"),
                     (np.zeros((2, 9, 9, 4), np.uint8), "image has 4 channels"),
                     (Image.new("RGBA", (5, 4)), "mode 'RGBA'"),
                     (cla.to_device(queue, GRAY[:8, :8].copy()), "image must be a numpy array")]:
        with pytest.raises(TypeError, match=why):
            W.Compose([W.ToRGB()])(image=bad, seed=0, queue=queue)
    for make, why in [(lambda: W.ToRGB(p=0.5), "ToRGB takes p=1"),
                      (lambda: W.ToRGB(num_output_channels=0), "num_output_channels must be"),
                      (lambda: W.Compose([W.ToRGB(), W.ToRGB()]), "one ToRGB"),
                      (lambda: W.Compose([W.OneOf([W.ToRGB()])]), "not inside OneOf"),
                      (lambda: W.Compose([W.Compose([W.ToRGB()])]), "not inside Compose"),
                      (lambda: W.Compose([W.Resize((9, 9)), W.GaussNoise(), W.ToRGB()]),
                       r"before the steps that change values \(GaussNoise\)")]:
        with pytest.raises(ValueError, match=why):
            make()
    # geometry before it is taken (it moves each channel alike)
    pipe = W.Compose([W.Resize((20, 30)), W.Rotate(limit=(10, 10), p=1), W.ToRGB()])
    alone = W.Compose([W.Resize((20, 30)), W.Rotate(limit=(10, 10), p=1)])
    np.testing.assert_array_equal(pipe(image=GRAY, seed=3, queue=queue)["image"],
                                  np.repeat(alone(image=GRAY, seed=3, queue=queue)["image"]
                                            [..., None], 3, axis=-1))


@pytest.mark.parametrize("dtype, max_value", [("uint8", None), ("uint16", None),
                                              ("uint8", 100.0), ("uint32", None)])
def test_from_float_is_albumentations(dtype, max_value, queue):
    """A float32 photo (and values past [0, 1], which saturate) flipped and converted:
    albumentations' FromFloat, value for value."""
    img = PHOTOS["coffee"][:90, :130].astype(np.float32) / 255
    img[0, :10, 0] = [-0.2, 1.3, 0.5, 127.5 / 255, 1e-9, 2, -1, 0.999, 1, 0]
    steps = [A.HorizontalFlip(p=1), A.FromFloat(dtype=dtype, max_value=max_value)]
    want = _theirs(steps, img)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = W.from_albumentations(A.Compose(steps))
    got = pipe(image=img, seed=0, queue=queue)["image"]
    assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == want.shape
    if dtype == "uint32":
        # float64 here, float32 there (256 apart at most, float32's step below 2^32); at 1 and
        # past it albumentations' float32 product rounds to 2^32 and wraps to 0: here the top
        flipped = img[:, ::-1]
        inside = flipped < 0.99
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        assert diff[inside].max() <= 256
        assert (got[flipped >= 1] == 4294967295).all() and (want[flipped >= 1] == 0).all()
    else:
        np.testing.assert_array_equal(got, want)


def test_from_float_batches_ports_and_refusals(queue):
    """A batch of one-channel float images through ToRGB and FromFloat; a ragged list; the
    recorded parameters replay; to_dict and the port; an integer image, out=, a step after
    it, the model's input and a device array are refused by name."""
    import pyopencl.array as cla

    f = GRAY.astype(np.float32) / 255
    pipe = W.Compose([W.RandomResizedCrop((40, 50)), W.ToRGB(), W.FromFloat()])
    batch = np.stack([f[:80, :90], f[80:, 90:]])[..., None]
    out = pipe(image=batch, seed=4, queue=queue)
    assert out["image"].shape == (2, 40, 50, 3) and out["image"].dtype == np.uint8
    floats = W.Compose(pipe.transforms[:2])(image=batch, seed=4, queue=queue)["image"]
    np.testing.assert_array_equal(out["image"], np.clip(np.rint(floats * np.float32(255)),
                                                        0, 255).astype(np.uint8))
    again = pipe(image=batch, params=out["params"], queue=queue)["image"]
    np.testing.assert_array_equal(again, out["image"])
    ragged = pipe(image=[f[:70, :33], f[:45, :99, None]], seed=1, queue=queue)["image"]
    assert [r.dtype for r in ragged] == [np.uint8] * 2
    back = W.Compose.from_dict(json.loads(json.dumps(pipe.to_dict())))
    np.testing.assert_array_equal(back(image=batch, seed=4, queue=queue)["image"], out["image"])
    assert_ports(W.FromFloat(dtype="uint16", max_value=1000.0),
                 A.FromFloat(dtype="uint16", max_value=1000.0))
    assert_ports(W.ToRGB(num_output_channels=4), A.ToRGB(num_output_channels=4))
    last = W.Compose([W.FromFloat()])
    with pytest.raises(TypeError, match="FromFloat takes float images.*image is uint8"):
        last(image=GRAY, seed=0, queue=queue)
    with pytest.raises(TypeError, match="image must be a numpy array"):
        last(image=cla.to_device(queue, f[:8, :8].copy()), seed=0, queue=queue)
    with pytest.raises(ValueError, match="out= takes the pass's result"):
        last(image=f, out=np.empty_like(f), seed=0, queue=queue)
    for make, why in [(lambda: W.Compose([W.FromFloat(), W.HorizontalFlip()]), "last step"),
                      (lambda: W.Compose([W.FromFloat()], output_dtype="float32"),
                       "not with the model's input"),
                      (lambda: W.Compose([W.FromFloat()], layout="CHW"),
                       "not with the model's input"),
                      (lambda: W.FromFloat(p=0.9), "FromFloat takes p=1"),
                      (lambda: W.FromFloat(dtype="int16"), "dtype must be one of"),
                      (lambda: W.FromFloat(max_value=0), "max_value must be"),
                      (lambda: W.from_albumentations(A.Compose([A.Normalize(),
                                                                A.FromFloat()])),
                       "FromFloat after Normalize")]:
        with pytest.raises(ValueError, match=why):
            make()


def test_torch_tensors_through_to_rgb_and_from_float(queue):
    """A channels-first grayscale torch batch (B, 1, H, W) comes back (B, 3, H, W), the same
    numbers as the numpy call; a float one through FromFloat comes back uint8."""
    torch = pytest.importorskip("torch")
    batch = np.stack([GRAY[:40, :50], GRAY[40:80, 50:100]])[..., None]
    pipe = W.Compose([W.HorizontalFlip(p=1), W.ToRGB()])
    got = pipe(image=torch.from_numpy(batch.transpose(0, 3, 1, 2).copy()), seed=0,
               queue=queue)["image"]
    want = pipe(image=batch, seed=0, queue=queue)["image"]
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (2, 3, 40, 50)
    np.testing.assert_array_equal(got.numpy().transpose(0, 2, 3, 1), want)
    floats = torch.from_numpy((batch.transpose(0, 3, 1, 2) / 255).astype(np.float32))
    out = W.Compose([W.ToRGB(), W.FromFloat()])(image=floats, seed=0, queue=queue)["image"]
    assert out.dtype == torch.uint8 and tuple(out.shape) == (2, 3, 40, 50)
    np.testing.assert_array_equal(out.numpy()[:, 1], batch[..., 0])
