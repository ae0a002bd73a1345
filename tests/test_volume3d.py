"""albumentations' 3-D transforms (Pad3D, PadIfNeeded3D, CenterCrop3D, RandomCrop3D,
CoarseDropout3D, CubicSymmetry) under warpkit's import: checked against albumentations 2.0.8
itself, its whole pipeline where the parameters are fixed, its own functions on warpkit's
recorded parameters where they are drawn; and how they sit in a pipeline."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data
    from albumentations.augmentations.transforms3d import functional as F3

CAMERA = skimage.data.camera()
#: 12 slices of a photo, each shifted down and right: a (12, 40, 50) uint8 volume
VOL = np.stack([CAMERA[8 * k:8 * k + 40, 16 * k:16 * k + 50] for k in range(12)])
COFFEE = skimage.data.coffee()
#: 9 RGB slices, float32 on [0, 1]: (9, 30, 44, 3)
RGB = np.stack([COFFEE[5 * k:5 * k + 30, 7 * k:7 * k + 44] for k in range(9)]) \
    .astype(np.float32) / 255
MASK = (VOL > 120).astype(np.uint8)
#: keypoints (x, y, z) in VOL, with a label each
POINTS = [[3.0, 4.0, 2.0], [49.0, 39.0, 11.0], [20.5, 10.25, 6.0], [0.0, 0.0, 0.0],
          [30.0, 20.0, 9.5]]
LABELS = ["a", "b", "c", "d", "e"]


def _theirs(steps, **call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = A.Compose(steps, keypoint_params=A.KeypointParams(format="xyz",
                                                                 label_fields=["kl"]))
        return pipe(**call)


def _ours(steps, queue, **call):
    pipe = W.Compose(steps, keypoint_params=W.KeypointParams(format="xyz", label_fields=["kl"]))
    return pipe(queue=queue, **call)


def _same(ours, theirs, keys=("volume", "mask3d")):
    for k in keys:
        assert ours[k].shape == theirs[k].shape, k
        assert ours[k].dtype == theirs[k].dtype, k
        np.testing.assert_array_equal(ours[k], theirs[k], err_msg=k)
    np.testing.assert_allclose(np.asarray(ours["keypoints"]).reshape(-1, 3),
                               np.asarray(theirs["keypoints"]).reshape(-1, 3), atol=1e-4)
    assert list(ours["kl"]) == list(theirs["kl"])


FIXED = [
    ("Pad3D one number", lambda m: m.Pad3D(padding=3, fill=7, fill_mask=1)),
    ("Pad3D per axis", lambda m: m.Pad3D(padding=(1, 2, 3), fill=200, fill_mask=2)),
    ("Pad3D per side", lambda m: m.Pad3D(padding=(1, 2, 3, 4, 5, 6))),
    ("PadIfNeeded3D min_zyx", lambda m: m.PadIfNeeded3D(min_zyx=(16, 47, 50), fill=3)),
    ("PadIfNeeded3D divisor", lambda m: m.PadIfNeeded3D(pad_divisor_zyx=(5, 16, 32),
                                                        fill_mask=4)),
    ("CenterCrop3D", lambda m: m.CenterCrop3D(size=(7, 21, 33))),
    ("CenterCrop3D padded", lambda m: m.CenterCrop3D(size=(16, 25, 61), pad_if_needed=True,
                                                     fill=9, fill_mask=2)),
]


@pytest.mark.parametrize("name, make", FIXED, ids=[c[0] for c in FIXED])
def test_fixed_steps_as_albumentations(name, make, queue):
    """Steps whose parameters are fixed: albumentations' whole pipeline, voxel for voxel, and
    its keypoints (those outside the result dropped with their labels); the caller's arrays are
    not touched."""
    before = VOL.copy()
    call = dict(volume=VOL, mask3d=MASK, keypoints=POINTS, kl=LABELS)
    _same(_ours([make(W)], queue, **call), _theirs([make(A)], **call))
    np.testing.assert_array_equal(VOL, before)


def test_fixed_steps_on_rgb_float_volumes(queue):
    """A float32 RGB volume with a fill per channel: padded as albumentations' (whose own
    np.pad takes one number), channel by channel."""
    ours = _ours([W.Pad3D(padding=(1, 2, 3), fill=[0.25, 0.5, 1.0])], queue, volume=RGB)
    for c, f in enumerate([0.25, 0.5, 1.0]):
        want = A.Pad3D(padding=(1, 2, 3), fill=f)(volume=RGB[..., c])["volume"]
        np.testing.assert_array_equal(ours["volume"][..., c], want)
    with pytest.raises(ValueError, match="fill has 2 values and the volume 3 channels"):
        _ours([W.Pad3D(padding=1, fill=[0, 1])], queue, volume=RGB)


def _pad_params(padding):
    keys = ("pad_front", "pad_back", "pad_top", "pad_bottom", "pad_left", "pad_right")
    return dict(zip(keys, padding)) if any(padding) else None


@pytest.mark.parametrize("size, pad", [((8, 25, 30), False), ((16, 25, 60), True)])
def test_random_crop_as_albumentations_on_its_draws(size, pad, queue):
    """RandomCrop3D: albumentations' own crop of warpkit's recorded window (and padding) gives
    the same voxels and keypoints; over many seeds every start of each axis is drawn."""
    for seed in range(30):
        out = _ours([W.RandomCrop3D(size=size, pad_if_needed=pad, fill=5)], queue,
                    volume=VOL, mask3d=MASK, keypoints=POINTS, kl=LABELS, seed=seed)
        rec = out["params"]["volume_steps"][0]
        c = rec["crop"]
        theirs = A.RandomCrop3D(size=size, pad_if_needed=pad, fill=5)
        kw = dict(crop_coords=(c[0], c[3], c[1], c[4], c[2], c[5]),
                  pad_params=_pad_params(rec["padding"]))
        np.testing.assert_array_equal(out["volume"], theirs.apply_to_volume(VOL, **kw))
        np.testing.assert_array_equal(out["mask3d"], theirs.apply_to_mask3d(MASK, **kw))
        moved = theirs.apply_to_keypoints(np.asarray(POINTS), **kw)
        inside = np.all((moved >= 0) & (moved < np.asarray(size)[::-1]), axis=1)
        np.testing.assert_allclose(np.asarray(out["keypoints"]).reshape(-1, 3), moved[inside])
        assert list(out["kl"]) == [a for a, k in zip(LABELS, inside) if k]
    small, size = VOL[:3, :8, :9], (1, 2, 3) if not pad else (1, 10, 3)
    starts = [set(), set(), set()]
    for seed in range(200):
        c = _ours([W.RandomCrop3D(size=size, pad_if_needed=pad)], queue, volume=small,
                  seed=seed)["params"]["volume_steps"][0]["crop"]
        for k in range(3):
            starts[k].add(c[k])
    padded = [max(s, n) for s, n in zip(size, small.shape)]
    assert [sorted(s) for s in starts] == [list(range(p - s + 1)) for p, s in zip(padded, size)]


def test_coarse_dropout_as_albumentations_on_its_draws(queue):
    """CoarseDropout3D: albumentations' own cut-out of warpkit's recorded holes, voxel for
    voxel; keypoints inside a hole dropped as its filter drops them; the holes' count, sizes and
    places within albumentations' laws; fill_mask fills mask3d (None leaves it)."""
    step = dict(num_holes_range=(1, 4), hole_depth_range=(0.2, 0.5),
                hole_height_range=(0.1, 0.9), hole_width_range=(0.3, 0.3), fill=255, p=1)
    points = np.array([[x, y, z] for z in range(0, 12, 2) for y in range(0, 40, 5)
                       for x in range(0, 50, 7)], np.float64)
    counts, dropped = set(), 0
    for seed in range(40):
        out = _ours([W.CoarseDropout3D(**step, fill_mask=3)], queue, volume=VOL, mask3d=MASK,
                    keypoints=points, kl=list(range(len(points))), seed=seed)
        holes = np.asarray(out["params"]["volume_steps"][0]["holes"])
        theirs = A.CoarseDropout3D(**step)
        np.testing.assert_array_equal(out["volume"], theirs.apply_to_volume(VOL, holes=holes))
        want = F3.cutout3d(MASK, holes, 3)
        np.testing.assert_array_equal(out["mask3d"], want)
        kept = F3.filter_keypoints_in_holes3d(points, holes)
        np.testing.assert_allclose(np.asarray(out["keypoints"]).reshape(-1, 3), kept)
        assert [tuple(points[i]) for i in out["kl"]] == [tuple(p) for p in kept]
        dropped += len(points) - len(kept)
        counts.add(len(holes))
        d, h, w = (holes[:, 3:] - holes[:, :3]).T
        assert ((d >= 3) & (d <= 6)).all() and ((h >= 4) & (h <= 36)).all() and (w == 15).all()
        assert (holes[:, :3] >= 0).all() and (holes[:, 3:] <= VOL.shape).all()
    assert counts == {1, 2, 3, 4} and dropped > 0
    out = _ours([W.CoarseDropout3D(**step)], queue, volume=VOL, mask3d=MASK, seed=0)
    np.testing.assert_array_equal(out["mask3d"], MASK)


def test_cubic_symmetry_every_index_as_albumentations(queue):
    """CubicSymmetry: each of the 48 indices moves the voxels as albumentations'
    transform_cube of that index and the keypoints as its transform_cube_keypoints (a uint8
    volume and a float32 RGB one, whose axes of three sizes trade places); every index is
    drawn over enough seeds."""
    aug = W.Compose([W.CubicSymmetry()], keypoint_format="xyz", remove_invisible=False)
    first = aug(volume=VOL, keypoints=POINTS, seed=0, queue=queue)
    for i in range(48):
        params = {**first["params"], "volume_steps": [{"applied": True, "index": i}]}
        out = aug(volume=VOL, keypoints=POINTS, params=params, queue=queue)
        np.testing.assert_array_equal(out["volume"], F3.transform_cube(VOL, i))
        np.testing.assert_allclose(out["keypoints"], F3.transform_cube_keypoints(
            np.asarray(POINTS), i, VOL.shape), atol=1e-9)
        rgb = aug(volume=RGB, params=params, queue=queue)["volume"]
        np.testing.assert_array_equal(rgb, F3.transform_cube(RGB, i))
    drawn = {aug(volume=VOL, seed=s, queue=queue)["params"]["volume_steps"][0]["index"]
             for s in range(400)}
    assert drawn == set(range(48))


def test_random_position_pads_to_the_size_asked(queue):
    """PadIfNeeded3D(position="random"): the volume reaches min_zyx exactly, a uniform share of
    each axis's padding in front (albumentations 2.0.8 draws the two sides apart)."""
    fronts = set()
    for seed in range(50):
        out = _ours([W.PadIfNeeded3D(min_zyx=(14, 44, 50), position="random")], queue,
                    volume=VOL, seed=seed)
        assert out["volume"].shape == (14, 44, 50)
        q = out["params"]["volume_steps"][0]["padding"]
        assert q[0] + q[1] == 2 and q[2] + q[3] == 4 and q[4] == q[5] == 0
        fronts.add((q[0], q[2]))
        np.testing.assert_array_equal(out["volume"], F3.pad_3d_with_params(VOL, q, 0))
    assert {f[0] for f in fronts} == {0, 1, 2} and {f[1] for f in fronts} == {0, 1, 2, 3, 4}


def test_a_pipeline_of_3d_and_2d_steps_as_albumentations(queue):
    """3-D steps before and after 2-D ones: albumentations' pipeline of the same fixed steps
    (a centre crop, a flip and a turn by quarters of each slice, a pad), voxel for voxel, with
    the keypoints and their labels; volumes= and masks3d= move alike."""
    def steps(m):
        return [m.CenterCrop3D(size=(9, 36, 36)), m.HorizontalFlip(p=1), m.Transpose(p=1),
                m.Pad3D(padding=(1, 0, 2))]
    call = dict(volume=VOL, mask3d=MASK, keypoints=POINTS, kl=LABELS)
    ours = _ours(steps(W), queue, **call)
    _same(ours, _theirs(steps(A), **call))
    many = _ours(steps(W), queue, volumes=np.stack([VOL, VOL[::-1]]),
                 masks3d=np.stack([MASK, MASK]))
    np.testing.assert_array_equal(many["volumes"][0], ours["volume"])
    np.testing.assert_array_equal(many["masks3d"][1], ours["mask3d"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flipped = A.Compose(steps(A))(volume=VOL[::-1].copy())["volume"]
    np.testing.assert_array_equal(many["volumes"][1], flipped)


def test_replay_records_and_the_2d_draws(queue):
    """The 3-D draws are recorded and replay; they come from a stream of their own, so a 3-D
    step that keeps the size leaves the 2-D steps' draws as they were; remove_invisible=False
    keeps every keypoint; save_applied_params lists the 3-D steps in their places."""
    aug = W.Compose([W.RandomCrop3D(size=(8, 30, 30)), W.Rotate(limit=40, p=1),
                     W.CoarseDropout3D(p=1)], keypoint_format="xyz", seed=11,
                    save_applied_params=True)
    out = aug(volume=VOL, mask3d=MASK, keypoints=POINTS, queue=queue)
    again = aug(volume=VOL, mask3d=MASK, keypoints=POINTS, params=out["params"], queue=queue)
    np.testing.assert_array_equal(again["volume"], out["volume"])
    np.testing.assert_array_equal(again["keypoints"], out["keypoints"])
    assert [n for n, _ in out["applied_transforms"]] == ["RandomCrop3D", "Rotate",
                                                         "CoarseDropout3D"]
    with pytest.raises(ValueError, match="params has no 'volume_steps' list"):
        aug(volume=VOL, params={"applied": True, "steps": out["params"]["steps"]})
    turn = W.Compose([W.Rotate(limit=40, p=1)])(volume=VOL, seed=3, queue=queue)
    kept = W.Compose([W.Pad3D(padding=0), W.Rotate(limit=40, p=1)])(volume=VOL, seed=3,
                                                                      queue=queue)
    np.testing.assert_array_equal(kept["volume"], turn["volume"])
    assert kept["params"]["steps"] == turn["params"]["steps"]
    loose = W.Compose([W.CenterCrop3D(size=(4, 10, 10))], keypoint_format="xyz",
                      remove_invisible=False)(volume=VOL, keypoints=POINTS, queue=queue)
    assert len(loose["keypoints"]) == len(POINTS)


def test_written_read_and_ported(queue, tmp_path):
    """to_dict / from_dict and save / load keep the 3-D steps in their places; the port of an
    albumentations pipeline (live, and its to_dict) takes them with their parameters."""
    aug = W.Compose([W.PadIfNeeded3D(min_zyx=(16, 48, 48), fill=1), W.CubicSymmetry(p=0.5),
                     W.VerticalFlip(), W.CoarseDropout3D(num_holes_range=(2, 3), fill_mask=0)])
    back = W.Compose.from_dict(aug.to_dict())
    assert back.to_dict() == aug.to_dict()
    a, b = (p(volume=VOL, mask3d=MASK, seed=5, queue=queue) for p in (aug, back))
    np.testing.assert_array_equal(a["volume"], b["volume"])
    W.save(aug, str(tmp_path / "p.json"))
    assert W.load(str(tmp_path / "p.json")).to_dict() == aug.to_dict()
    theirs = A.Compose([A.PadIfNeeded3D(min_zyx=(16, 48, 48), fill=1), A.CubicSymmetry(p=0.5),
                        A.VerticalFlip(), A.CoarseDropout3D(num_holes_range=(2, 3),
                                                            fill_mask=0),
                        A.RandomCrop3D(size=(4, 4, 4)), A.CenterCrop3D(size=(2, 2, 2)),
                        A.Pad3D(padding=1)])
    for given in (theirs, A.to_dict(theirs)):
        ported = W.from_albumentations(given)
        assert [type(t).__name__ for t in ported.volume_first + tuple(ported.transforms)
                + ported.volume_last] == ["PadIfNeeded3D", "CubicSymmetry", "VerticalFlip",
                                          "CoarseDropout3D", "RandomCrop3D", "CenterCrop3D",
                                          "Pad3D"]
        assert ported.volume_last[0].fill_mask == 0 and ported.volume_last[0].p == 0.5
        assert ported(volume=VOL, seed=1, queue=queue)["volume"].shape == (4, 4, 4)


def test_what_is_refused(queue):
    """Each refusal names the step and what to do instead; nothing runs."""
    with pytest.raises(ValueError, match="Pad3D is a 3-D step between 2-D steps"):
        W.Compose([W.HorizontalFlip(), W.Pad3D(1), W.Rotate()])
    with pytest.raises(ValueError, match="Pad3D inside OneOf is not supported"):
        W.Compose([W.OneOf([W.Pad3D(1), W.HorizontalFlip()])])
    with pytest.raises(ValueError, match="a 3-D step inside Compose is not supported"):
        W.Compose([W.HorizontalFlip(), W.Compose([W.Pad3D(1)])])
    with pytest.raises(ValueError, match=r"Pad3D after the 2-D steps of a pipeline whose "
                                         r"Normalize\(normalization='image'\) takes each"):
        W.Compose([W.HorizontalFlip(), W.Pad3D(1), W.Normalize(normalization="image")])
    with pytest.raises(ValueError, match="give volume=, volumes=, mask3d= or masks3d="):
        W.Compose([W.Pad3D(1)])(image=CAMERA, queue=queue)
    with pytest.raises(ValueError, match="is larger than the volume .depth, height, width. "
                                         r"\[12, 40, 50\]: pass pad_if_needed=True"):
        W.Compose([W.RandomCrop3D((13, 2, 2))])(volume=VOL, queue=queue)
    with pytest.raises(ValueError, match=r"volume must be a numpy array \(D, H, W\)"):
        W.Compose([W.Pad3D(1)])(volume=CAMERA, queue=queue)
    with pytest.raises(ValueError, match=r"mask3d has \(depth, height, width\) \[12, 40, 49\]"):
        W.Compose([W.Pad3D(1)])(volume=VOL, mask3d=MASK[..., 1:], queue=queue)
    with pytest.raises(ValueError, match="image= stays 40x50"):
        W.Compose([W.Pad3D(1), W.HorizontalFlip()])(volume=VOL, image=VOL[0], queue=queue)
    with pytest.raises(ValueError, match="min_zyx or pad_divisor_zyx"):
        W.PadIfNeeded3D()
    with pytest.raises(ValueError, match=r"hole_depth_range must be \(low, high\), two "
                                         r"fractions in \[0, 1\]"):
        W.CoarseDropout3D(hole_depth_range=(0.5, 1.5))
    with pytest.raises(ValueError, match="padding must be an integer >= 0"):
        W.Pad3D(padding=(1, 2))
    with pytest.raises(ValueError, match="size must be .depth, height, width."):
        W.CenterCrop3D(size=(4, 4))


def test_trailing_holes_drop_keypoints_with_their_labels(queue):
    """A CoarseDropout3D after the 2-D steps takes the pass's volumes and keypoints: the
    keypoints its recorded holes hold are dropped with their labels, as albumentations' filter
    drops them from the flipped points."""
    points = np.array([[x, y, z] for z in range(0, 12, 3) for y in range(0, 40, 4)
                       for x in range(0, 50, 5)], np.float64)
    labels = [f"p{i}" for i in range(len(points))]
    aug = W.Compose([W.HorizontalFlip(p=1), W.CoarseDropout3D(
        num_holes_range=(3, 3), hole_depth_range=(0.5, 0.5), hole_height_range=(0.4, 0.6),
        hole_width_range=(0.4, 0.6), p=1)],
        keypoint_params=W.KeypointParams(format="xyz", label_fields=["kl"]))
    out = aug(volume=VOL, keypoints=points, kl=labels, seed=2, queue=queue)
    holes = np.asarray(out["params"]["volume_steps"][0]["holes"])
    flipped = points.copy()
    flipped[:, 0] = VOL.shape[2] - 1 - flipped[:, 0]
    kept = F3.filter_keypoints_in_holes3d(flipped, holes)
    assert 0 < len(kept) < len(points)
    np.testing.assert_allclose(np.asarray(out["keypoints"]), kept)
    index = {tuple(p): f"p{i}" for i, p in enumerate(flipped)}
    assert list(out["kl"]) == [index[tuple(p)] for p in kept]
    np.testing.assert_array_equal(out["volume"], F3.cutout3d(VOL[:, :, ::-1], holes, 0))


@pytest.mark.parametrize("rgb", [True, False])
def test_to_tensor3d_as_albumentations(rgb, queue):
    """ToTensor3D after Normalize: the volume and mask3d as albumentations' torch tensors,
    (C, D, H, W) (a gray volume with C = 1), values within float32 rounding; kept by to_dict
    and by the port; anywhere but last (or last but ToTensorV2) refused."""
    torch = pytest.importorskip("torch")
    vol = (RGB * 255).astype(np.uint8) if rgb else VOL
    mask = (vol[..., 0] if rgb else vol) > 100
    mask = mask.astype(np.uint8)
    norm = {} if rgb else dict(mean=0.5, std=0.25)

    def steps(m):
        return [m.CenterCrop3D(size=(6, 20, 30)), m.HorizontalFlip(p=1), m.Normalize(**norm),
                m.ToTensor3D()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose(steps(A))(volume=vol, mask3d=mask)
    aug = W.Compose(steps(W))
    for pipe in (aug, W.Compose.from_dict(aug.to_dict()), W.from_albumentations(
            A.Compose(steps(A)))):
        ours = pipe(volume=vol, mask3d=mask, queue=queue)
        for k in ("volume", "mask3d"):
            assert isinstance(ours[k], torch.Tensor) and ours[k].shape == theirs[k].shape, k
            assert ours[k].dtype == theirs[k].dtype, k
            np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), atol=1e-5)
    assert aug.to_dict()["transforms"][-1]["type"] == "ToTensor3D"
    with pytest.raises(ValueError, match="ToTensor3D must be the pipeline's last step"):
        W.Compose([W.ToTensor3D(), W.HorizontalFlip()])
    with pytest.raises(ValueError, match="ToTensor3D inside OneOf"):
        W.Compose([W.OneOf([W.ToTensor3D()])])


def test_set_mask_interpolation_keeps_the_3d_steps(queue):
    """Compose.set_mask_interpolation remakes the pipeline from its steps: the 3-D ones and
    ToTensor3D stay in their places."""
    aug = W.Compose([W.Pad3D(padding=1), W.HorizontalFlip(), W.CubicSymmetry(), W.ToTensor3D()])
    before = aug.to_dict()["transforms"]
    aug.set_mask_interpolation(1)
    assert aug.to_dict()["transforms"] == before and aug.mask_interpolation == "linear"


def test_additional_volume_targets_as_albumentations(queue):
    """additional_targets of albumentations' volume kinds ("volume", "mask3d", "volumes",
    "masks3d"): moved as the built-in ones by the 3-D and the 2-D steps, voxel for voxel as
    albumentations; ToTensor3D makes tensors of the volume and mask3d kinds alone."""
    torch = pytest.importorskip("torch")

    def steps(m):
        return [m.CenterCrop3D(size=(8, 36, 40)), m.HorizontalFlip(p=1), m.Pad3D(padding=1)]
    kinds = {"ct2": "volume", "seg2": "mask3d", "many": "volumes", "segs": "masks3d"}
    call = dict(volume=VOL, ct2=VOL[::-1].copy(), seg2=MASK, many=np.stack([VOL, VOL]),
                segs=np.stack([MASK, 1 - MASK]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.Compose(steps(A), additional_targets=kinds)(**call)
    ours = W.Compose(steps(W), additional_targets=kinds)(**call, queue=queue)
    assert set(ours) == set(theirs)
    for k in theirs:
        assert ours[k].shape == theirs[k].shape, k
        np.testing.assert_array_equal(ours[k], theirs[k], err_msg=k)
    tensors = W.Compose([*steps(W), W.ToTensor3D()], additional_targets=kinds)(**call,
                                                                              queue=queue)
    assert {k for k, v in tensors.items() if isinstance(v, torch.Tensor)} == {
        "volume", "ct2", "seg2"}


def test_visibility_flags_count_the_3d_steps(queue):
    """remove_invisible=False keeps every keypoint, in order, and its flag in
    out["keypoints_visible"] says whether it is still inside the volume (depth too) and out of
    the holes after the 3-D steps, before and after the 2-D ones, and inside the slices."""
    points = np.array([[10.0, 10.0, 1.0], [10.0, 10.0, 8.0], [45.0, 35.0, 5.0],
                       [20.0, 20.0, 5.0]])
    aug = W.Compose([W.CenterCrop3D(size=(6, 30, 40)), W.HorizontalFlip(p=1),
                     W.CoarseDropout3D(num_holes_range=(1, 1), hole_depth_range=(1, 1),
                                       hole_height_range=(1, 1), hole_width_range=(0.1, 0.1),
                                       p=1)],
                    keypoint_format="xyz", remove_invisible=False)
    out = aug(volume=VOL, keypoints=points, seed=0, queue=queue)
    assert len(out["keypoints"]) == 4
    hole = out["params"]["volume_steps"][1]["holes"][0]
    x = out["keypoints"][:, 0]
    in_hole = (x >= hole[2]) & (x < hole[5])
    # crop offsets (3, 5, 5): z 1 -> -2 (out), z 8 -> 5 (in), (45, 35) -> (40, 30): out in x, y
    want = np.array([False, True, False, True]) & ~in_hole
    np.testing.assert_array_equal(out["keypoints_visible"], want)


@pytest.mark.parametrize("rgb", [True, False])
def test_trailing_fills_before_normalize_as_albumentations(rgb, queue):
    """3-D steps after the 2-D ones, before Normalize (the order of albumentations' recipes):
    warpkit makes the model's input in the pass, so a trailing step's fills become the model's
    values of those levels; albumentations' own chain (flip, its Pad3D, its cut-out of
    warpkit's recorded holes, then its Normalize) within float32 rounding, for uint8 RGB with
    ImageNet's statistics and for a 12-bit gray scan in uint16."""
    if rgb:
        vol, norm = (RGB * 255).astype(np.uint8), {}
    else:
        vol = (VOL.astype(np.uint16) * 16).astype(np.uint16)
        norm = dict(mean=0.4, std=0.3, max_pixel_value=4095)

    def steps(m):
        return [m.HorizontalFlip(p=1), m.Pad3D(padding=(1, 2, 3), fill=77),
                m.CoarseDropout3D(num_holes_range=(2, 2), fill=200, p=1), m.Normalize(**norm)]
    ours = W.Compose(steps(W))(volume=vol, seed=0, queue=queue)
    holes = np.asarray(ours["params"]["volume_steps"][1]["holes"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        padded = A.Pad3D(padding=(1, 2, 3), fill=77)(volume=vol[:, :, ::-1].copy())["volume"]
        want = A.Normalize(**norm)(volume=F3.cutout3d(padded, holes, 200))["volume"]
    assert ours["volume"].shape == want.shape and ours["volume"].dtype == want.dtype
    np.testing.assert_allclose(ours["volume"], want, atol=2e-6)


def test_the_pipelines_p_holds_for_its_3d_steps(queue):
    """Compose(p=0.5) with 3-D steps: a call applies all its steps or none, the 3-D ones with
    the 2-D ones (the pass's own draw decides), and a replay keeps the decision."""
    aug = W.Compose([W.Pad3D(padding=1), W.HorizontalFlip(p=1), W.Pad3D(padding=2)], p=0.5)
    seen = set()
    for seed in range(12):
        out = aug(volume=VOL, seed=seed, queue=queue)
        applied = out["params"]["applied"]
        assert [p["applied"] for p in out["params"]["volume_steps"]] == [applied] * 2
        if applied:
            np.testing.assert_array_equal(out["volume"], np.pad(VOL[:, :, ::-1], 3))
        else:
            np.testing.assert_array_equal(out["volume"], VOL)
        again = aug(volume=VOL, params=out["params"], queue=queue)
        np.testing.assert_array_equal(again["volume"], out["volume"])
        seen.add(applied)
    assert seen == {True, False}
