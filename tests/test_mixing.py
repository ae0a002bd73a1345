"""MixUp and CutMix as torchvision v2 defines them (issue: detection recipes, item 3): each
sample mixed with the previous one of the batch, soft labels that sum to 1, the numbers drawn
from the stream. CutMix is checked by painting each sample a colour and reading the colours
back under its box."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit.augment import Compose, CutMix, MixUp, RandomResizedCrop

COLOURS = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255]],
                   np.uint8)


def _painted(h=48, w=64):
    return np.stack([np.broadcast_to(c, (h, w, 3)) for c in COLOURS]).copy()


def test_cutmix_pastes_the_previous_sample_under_its_box():
    images, classes = _painted(), np.arange(5)
    cut = CutMix(num_classes=5)
    boxes = 0
    for seed in range(30):
        mixed, soft = cut(images, classes, seed=seed)
        x1, y1, x2, y2 = cut.sample((48, 64), seed)["box"]
        inside = np.zeros((48, 64), bool)
        inside[y1:y2, x1:x2] = True
        boxes += inside.any()
        for k in range(5):
            assert (mixed[k][inside] == COLOURS[k - 1]).all()
            assert (mixed[k][~inside] == COLOURS[k]).all()
            kept = (~inside).mean()
            want = np.zeros(5, np.float32)
            want[k] += kept
            want[k - 1] += 1 - kept
            np.testing.assert_allclose(soft[k], want, atol=1e-6)
        np.testing.assert_allclose(soft.sum(1), 1, atol=1e-6)
    assert boxes > 20


def test_mixup_blends_with_the_previous_sample():
    rng = np.random.default_rng(0)
    images = rng.random((4, 8, 10, 3), np.float32)
    mixed, soft = MixUp(num_classes=4)(images, np.array([0, 1, 2, 3]), seed=3, epoch=1, index=8)
    lam = MixUp(num_classes=4).sample((8, 10), 3, 1, 8)["lam"]
    np.testing.assert_allclose(mixed, lam * images + (1 - lam) * np.roll(images, 1, 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(soft.sum(1), 1, atol=1e-6)
    assert soft[1, 1] == pytest.approx(lam) and soft[1, 0] == pytest.approx(1 - lam)
    # uint8 batches round back to uint8
    u8 = _painted()
    got, _ = MixUp(num_classes=5).apply(u8, np.arange(5), {"lam": 0.25})
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got[1, 0, 0], np.rint(0.25 * COLOURS[1] + 0.75 * COLOURS[0]))
    # the weights follow Beta(alpha, alpha): alpha 1 is uniform
    lams = [MixUp(alpha=1.0).sample((4, 4), s)["lam"] for s in range(400)]
    assert abs(np.mean(lams) - 0.5) < 0.05 and min(lams) < 0.05 and max(lams) > 0.95
    lams = [MixUp(alpha=0.2).sample((4, 4), s)["lam"] for s in range(400)]
    assert np.mean([min(v, 1 - v) < 0.1 for v in lams]) > 0.5  # U-shaped


def test_torch_batches_are_channels_first():
    torch = pytest.importorskip("torch")
    images = _painted()
    t = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous()
    for mix in (MixUp(num_classes=5), CutMix(num_classes=5)):
        a, la = mix(images, np.arange(5), seed=7)
        b, lb = mix(t, torch.arange(5), seed=7)
        assert isinstance(b, torch.Tensor) and b.dtype == torch.uint8
        np.testing.assert_array_equal(b.permute(0, 2, 3, 1).numpy(), a)
        np.testing.assert_allclose(lb.numpy(), la, atol=1e-6)
    # a channels-first numpy batch (a pipeline's layout="CHW" output)
    a, _ = CutMix(num_classes=5)(images.transpose(0, 3, 1, 2), np.arange(5), seed=7,
                                 layout="CHW")
    np.testing.assert_array_equal(a.transpose(0, 2, 3, 1),
                                  CutMix(num_classes=5)(images, np.arange(5), seed=7)[0])


def _reference(images, params, cut):
    """torchvision's formulas as written, on the whole batch rolled by one (the arrays the
    sample-by-sample mix must equal, bit for bit)."""
    rolled = np.roll(images, 1, 0)
    if cut:
        x1, y1, x2, y2 = params["box"]
        out = images.copy()
        out[:, y1:y2, x1:x2] = rolled[:, y1:y2, x1:x2]
        return out
    lam = params["lam"]
    x = np.asarray(images, np.float32)
    mixed = x * np.float32(lam) + np.asarray(rolled, np.float32) * np.float32(1.0 - lam)
    if np.issubdtype(images.dtype, np.floating):
        return mixed.astype(images.dtype)
    info = np.iinfo(images.dtype)
    return np.clip(np.rint(mixed), info.min, info.max).astype(images.dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float16, np.float32, np.float64])
def test_sample_by_sample_and_in_place_are_the_whole_batch_formula(dtype):
    rng = np.random.default_rng(1)
    peak = 1 if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max
    images = (rng.random((6, 20, 24, 3)) * peak).astype(dtype)
    for mix, cut in ((MixUp(num_classes=6), False), (CutMix(num_classes=6), True)):
        for seed in range(4):
            params = mix.sample((20, 24), seed)
            want = _reference(images, params, cut)
            kept = images.copy()
            got, soft = mix.apply(images, np.arange(6), params)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(images, kept)  # the input is left as it was
            chw = np.ascontiguousarray(images.transpose(0, 3, 1, 2))
            got_chw, _ = mix.apply(chw, np.arange(6), params, layout="CHW")
            np.testing.assert_array_equal(got_chw.transpose(0, 2, 3, 1), want)
            gray = np.ascontiguousarray(images[..., 0])  # (B, H, W)
            np.testing.assert_array_equal(mix.apply(gray, np.arange(6), params)[0],
                                          _reference(gray, params, cut))
            mine = images.copy()
            same, soft2 = mix.apply(mine, np.arange(6), params, inplace=True)
            assert same is mine
            np.testing.assert_array_equal(mine, want)
            np.testing.assert_array_equal(soft2, soft)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("whole", [False, True], ids=["per-sample", "whole-batch"])
def test_torch_sample_by_sample_and_in_place_are_torchs_formula(dtype, whole, monkeypatch):
    """CPU tensors are mixed sample by sample; tensors on other devices (GPUs) by whole-batch
    operations (the same arithmetic), tried here on the CPU."""
    torch = pytest.importorskip("torch")
    from warpkit.augment import _mixing
    monkeypatch.setattr(_mixing, "_on_accelerator", lambda images: whole)
    raw = np.random.default_rng(1).random((6, 20, 24, 3))
    images = (raw * 255).astype(dtype) if dtype == np.uint8 else raw.astype(dtype)
    t = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous()
    for mix in (MixUp(num_classes=6), CutMix(num_classes=6)):
        a, _ = mix(t, torch.arange(6), seed=5)
        b = t.clone()
        c, _ = mix(b, torch.arange(6), seed=5, inplace=True)
        assert c is b and torch.equal(a, b)
        # torch's own arithmetic on the rolled batch
        p = mix.sample((20, 24), 5)
        if "box" in p:
            x1, y1, x2, y2 = p["box"]
            ref = t.clone()
            ref[..., y1:y2, x1:x2] = t.roll(1, 0)[..., y1:y2, x1:x2]
        else:
            x = t.float()
            ref = x * p["lam"] + x.roll(1, 0) * (1.0 - p["lam"])
            if not t.dtype.is_floating_point:
                ref = ref.round().clamp(0, 255)
            ref = ref.to(t.dtype)
        assert torch.equal(a, ref)
        hwc, _ = mix(torch.from_numpy(images.copy()), torch.arange(6), seed=5, layout="HWC")
        assert torch.equal(hwc, a.permute(0, 2, 3, 1))


def test_after_a_pipeline_and_with_soft_labels():
    aug = Compose([RandomResizedCrop(32)], output_dtype="float32", mean=0.5, std=0.25,
                  layout="CHW")
    out = aug(image=_painted(), seed=0, index=0)
    soft = np.eye(5, dtype=np.float32)[[4, 3, 2, 1, 0]]
    mixed, labels = CutMix()(out["image"], soft, seed=1, layout="CHW")
    assert mixed.shape == (5, 3, 32, 32) and mixed.dtype == np.float32
    np.testing.assert_allclose(labels.sum(1), 1, atol=1e-6)


@pytest.mark.parametrize("call, match", [
    (lambda: MixUp(alpha=0), "alpha must be > 0"),
    (lambda: CutMix(num_classes=0), "num_classes"),
    (lambda: MixUp()(_painted(), np.arange(5), seed=0), "give num_classes"),
    (lambda: MixUp(num_classes=3)(_painted(), np.arange(5), seed=0), r"class indices in \[0, 3\)"),
    (lambda: MixUp(num_classes=5)(_painted(), np.arange(4), seed=0), "4 rows for a batch of 5"),
    (lambda: CutMix(num_classes=5)(_painted()[0, :, :, 0], np.arange(5), seed=0), "must be a batch"),
    (lambda: CutMix(num_classes=5).apply(_painted(), np.arange(5),
                                         {"box": [0, 0, 99, 9], "lam_adjusted": 0.5}),
     "does not lie in"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()
