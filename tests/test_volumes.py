"""albumentations' volume targets in a call: ``volume=`` (D, H, W[, C]) and ``mask3d=`` of one
sample, ``volumes=`` and ``masks3d=`` (N, D, ...): every slice moved (and coloured) as the image
is, by the sample's one draw, as albumentations' 2-D transforms move a volume slice by slice.
Until 2026-12-06 a call passed them through untouched (or refused ``volume=`` alone)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.data

import warpkit.augment as W

A = pytest.importorskip("albumentations")

IMG = np.ascontiguousarray(skimage.data.astronaut()[::4, ::4])  # 128 x 128 RGB
VOL = np.stack([IMG, np.ascontiguousarray(IMG[::-1]), 255 - IMG])
MASK3D = (VOL[..., 0] > 100).astype(np.uint8)


def _alb(steps, **call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose(steps)(**call)


def test_volumes_are_albumentations_with_fixed_parameters(queue):
    def steps(L):
        return [L.CenterCrop(100, 90), L.HorizontalFlip(p=1), L.VerticalFlip(p=1),
                L.InvertImg(p=1)]

    call = dict(image=IMG, volume=VOL, mask3d=MASK3D, volumes=np.stack([VOL, VOL[::-1]]),
                masks3d=np.stack([MASK3D, 1 - MASK3D]))
    theirs = _alb(steps(A), **call)
    ours = W.Compose(steps(W))(**call, seed=0, queue=queue)
    for key in ("volume", "mask3d", "volumes", "masks3d"):
        assert ours[key].dtype == theirs[key].dtype and ours[key].shape == theirs[key].shape
        assert np.array_equal(ours[key], theirs[key]), key
    # a turn, a zoom and a colour step: within a level of albumentations' slices
    def turned(L):
        return [L.Affine(rotate=(10, 10), scale=(1.2, 1.2), translate_px=(3, 3), p=1),
                L.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)]

    theirs = _alb(turned(A), image=IMG, volume=VOL[..., 1])
    ours = W.Compose(turned(W))(image=IMG, volume=VOL[..., 1], seed=0, queue=queue)
    assert ours["volume"].shape == theirs["volume"].shape == (3, 128, 128)
    for key in ("image", "volume"):  # (albumentations rounds the turn before the contrast)
        diff = np.abs(ours[key].astype(int) - theirs[key])
        assert diff.max() <= 2 and (diff > 1).mean() < 1e-4, key


def test_every_slice_takes_the_samples_draw(queue):
    """Random geometry, colour and noise: a slice equal to the image comes out equal to it,
    beside images= and with a volume alone (the size from its slices)."""
    pipe = W.Compose([W.RandomResizedCrop((48, 64)), W.HorizontalFlip(),
                      W.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1), W.GaussNoise(p=1)])
    for seed in range(3):
        out = pipe(image=IMG, volume=VOL, images=[IMG, VOL[2]], seed=seed, queue=queue)
        assert out["volume"].shape == (3, 48, 64, 3) and isinstance(out["images"], list)
        assert np.array_equal(out["volume"][0], out["image"])
        assert np.array_equal(out["images"][0], out["image"])
        assert np.array_equal(out["images"][1], out["volume"][2])
        alone = pipe(volume=VOL, seed=seed, queue=queue)
        assert "image" not in alone and np.array_equal(alone["volume"][0], out["image"])
    # mask3d beside images= (no volume): the frames stay images=' own
    both = pipe(image=IMG, images=np.stack([IMG, IMG]), mask3d=MASK3D, seed=0, queue=queue)
    assert both["images"].shape == (2, 48, 64, 3) and both["mask3d"].shape == (3, 48, 64)
    assert np.array_equal(both["images"][1], both["image"])
    gray = pipe(volume=VOL[..., 0], mask3d=VOL[..., 0] > 100, seed=1, queue=queue)
    assert gray["volume"].shape == (3, 48, 64) and gray["mask3d"].shape == (3, 48, 64)
    assert gray["mask3d"].dtype == bool


def test_a_seeded_pipeline_counts_a_volume_as_one_sample(queue):
    aug = W.Compose([W.RandomResizedCrop(32)], seed=4)
    aug(volume=VOL, queue=queue)
    assert aug.next_streams(0) == (4, 1)


def test_volumes_are_refused_where_they_cannot_be_read():
    pipe = W.Compose([W.HorizontalFlip()], strict=True)  # (strict knows their names)
    assert pipe(image=IMG, volume=VOL, seed=0)["volume"].shape == VOL.shape
    for call, why in [
            (dict(image=np.stack([IMG, IMG]), volume=VOL),
             r"volume= holds one sample's slices \(albumentations' target of a call of one "
             r"image\), and this call is a batch of samples: call the pipeline per sample"),
            (dict(image=IMG, volume=VOL[0, 0]),
             r"volume must be a numpy array \(D, H, W\) or \(D, H, W, C\), got shape \(128, 3\)"),
            (dict(image=IMG, volume=list(VOL)), r"volume must be a numpy array .* got a list"),
            (dict(image=IMG, masks3d=MASK3D[0]),
             r"masks3d must be a numpy array \(N, D, H, W\) or \(N, D, H, W, C\)"),
            (dict(image=IMG, volume=VOL[:, :64]), r"must be laid out as image is|size")]:
        with pytest.raises(ValueError, match=why):
            pipe(**call, seed=0)
    torch = pytest.importorskip("torch")  # (taken as an image's channels until 2026-12-06)
    with pytest.raises(ValueError, match=r"volume must be a numpy array \(D, H, W\) or \(D, H, "
                                         r"W, C\), got a Tensor \(albumentations' volumes are "
                                         r"numpy arrays: pass .numpy\(\)\)"):
        pipe(volume=torch.from_numpy(VOL), seed=0)
    with pytest.raises(ValueError, match="'volume' is a call's own keyword"):
        W.Compose([W.HorizontalFlip()], additional_targets={"volume": "image"})


def test_to_tensor_leaves_a_volume_as_albumentations():
    torch = pytest.importorskip("torch")
    from albumentations.pytorch import ToTensorV2

    theirs = _alb([A.HorizontalFlip(p=1), ToTensorV2()], image=IMG, volume=VOL, mask3d=MASK3D)
    ours = W.Compose([W.HorizontalFlip(p=1), W.ToTensorV2()])(image=IMG, volume=VOL,
                                                              mask3d=MASK3D, seed=0)
    # (albumentations' ToTensorV2 leaves the volume targets as arrays, as they are)
    for key in ("volume", "mask3d"):
        assert isinstance(ours[key], np.ndarray) and np.array_equal(ours[key], theirs[key])
    assert isinstance(ours["image"], torch.Tensor) and torch.equal(ours["image"],
                                                                    theirs["image"])


@pytest.mark.parametrize("gray", [False, True])
def test_normalized_volumes_stay_channels_last_under_to_tensor(gray):
    """Normalize then ToTensorV2: the image becomes the model's CHW tensor and the volumes stay
    albumentations' float32 arrays, channels last (a gray one without channels). Until
    2026-12-06 warpkit's came back channels first, (D, C, H, W)."""
    pytest.importorskip("torch")
    from albumentations.pytorch import ToTensorV2

    vol = VOL[..., 0] if gray else VOL
    norm = dict(mean=0.4, std=0.2) if gray else {}
    call = dict(volume=vol, volumes=np.stack([vol, vol[::-1]]))
    theirs = _alb([A.HorizontalFlip(p=1), A.Normalize(**norm), ToTensorV2()], **call)
    ours = W.Compose([W.HorizontalFlip(p=1), W.Normalize(**norm), W.ToTensorV2()])(**call,
                                                                                  seed=0)
    for key in ("volume", "volumes"):
        assert isinstance(ours[key], np.ndarray) and ours[key].shape == theirs[key].shape
        np.testing.assert_allclose(ours[key], theirs[key], atol=1e-5)


def test_additional_targets_of_volume_kinds(queue):
    """additional_targets={"ct2": "volume", "seg2": "mask3d", ...}: moved slice by slice as
    albumentations moves them (they were refused as kinds until 2026-12-06)."""
    def steps(L):
        return [L.CenterCrop(100, 90), L.HorizontalFlip(p=1), L.InvertImg(p=1)]

    kinds = {"ct2": "volume", "seg2": "mask3d", "many": "volumes", "segs": "masks3d"}
    call = dict(image=IMG, ct2=VOL, seg2=MASK3D, many=np.stack([VOL, VOL[::-1]]),
                segs=np.stack([MASK3D, 1 - MASK3D]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose(steps(A), additional_targets=kinds)(**call)
    ours = W.Compose(steps(W), additional_targets=kinds)(**call, seed=0, queue=queue)
    for key in kinds:
        assert ours[key].shape == theirs[key].shape, key
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


@pytest.mark.parametrize("steps", [
    lambda: [W.Rotate(limit=30, p=1), W.ColorJitter(p=1), W.GaussNoise(p=1),
             W.CoarseDropout(p=1)],
    lambda: [W.ElasticTransform(p=1), W.RandomBrightnessContrast(brightness_by_max=False, p=1)],
    lambda: [W.GridDistortion(p=1), W.Normalize()],
    lambda: [W.PiecewiseAffine(p=1)],
], ids=["turn+colour+noise+holes", "elastic+contrast", "grid+normalize", "piecewise"])
@pytest.mark.parametrize("gray", [False, True])
def test_a_volumes_slices_in_one_launch_are_each_slice_alone(steps, gray, queue):
    """A volume's slices (and a mask3d's) go through one launch, the sample's map, field and
    colour row for each: every slice equals that slice given alone as image= (mask=) with the
    same seed, as it did when each was a launch of its own."""
    pipe = W.Compose(steps(), mask_interpolation="nearest")
    vol = VOL[..., 0].copy() if gray else VOL
    out = pipe(volume=vol, mask3d=MASK3D, seed=5, queue=queue)
    for k in range(len(vol)):
        alone = pipe(image=vol[k], mask=MASK3D[k], seed=5, queue=queue)
        np.testing.assert_array_equal(out["volume"][k], alone["image"])
        np.testing.assert_array_equal(out["mask3d"][k], alone["mask"])


def test_frames_in_one_launch_at_the_edges(queue):
    """The one-launch path of a sample's frames where it once went wrong: gray frames resized
    to one row came back (N, 1, w, 1) instead of each frame's (1, w), and a step reading the
    call's keywords per sample (OverlayElements) failed with an IndexError; each frame equals
    that frame alone."""
    gray = VOL[..., 0].copy()
    for model in ({}, dict(output_dtype="float32", mean=0.5, std=0.2, layout="CHW")):
        pipe = W.Compose([W.Resize(1, 8)], **model)  # (CHW: the model's input, without torch)
        out = pipe(images=gray, seed=0, queue=queue)["images"]
        for k, f in enumerate(gray):
            alone = pipe(image=f, seed=0, queue=queue)["image"]
            assert tuple(out[k].shape) == tuple(alone.shape)
            np.testing.assert_array_equal(np.asarray(out[k]), np.asarray(alone))
    element = np.full((10, 10, 3), 200, np.uint8)
    meta = [{"image": element, "bbox": [0.1, 0.1, 0.4, 0.4]}]
    pipe = W.Compose([W.Rotate(limit=10, p=1), W.OverlayElements(p=1)])
    out = pipe(images=VOL, overlay_metadata=meta, seed=0, queue=queue)["images"]
    for k, f in enumerate(VOL):
        np.testing.assert_array_equal(
            out[k], pipe(image=f, overlay_metadata=meta, seed=0, queue=queue)["image"])
