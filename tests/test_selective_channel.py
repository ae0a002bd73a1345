"""SelectiveChannelTransform (albumentations' composition of the same name): its transforms run
on some of the image's channels alone, on the host between two passes, the other channels,
masks, boxes and keypoints as they are. Ported from albumentations (whose to_dict forgets the
channels: a live pipeline gives them) and checked against it."""

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

PHOTO = np.ascontiguousarray(skimage.data.astronaut()[:200, :240])
FOUR = np.concatenate([PHOTO, PHOTO[..., :1] // 2], axis=2)  # (an RGB + near-infrared image)


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


@pytest.mark.parametrize("inner,channels,passes", [
    (lambda: [A.InvertImg(p=1)], [1, 3], "one"),
    (lambda: [A.RandomBrightnessContrast((0.2, 0.2), (0.1, 0.1), p=1),
              A.HueSaturationValue((10, 10), (15, 15), (5, 5), p=1)], [0, 1, 2], "one"),
    (lambda: [A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.5, 1.5), p=1)], [2, 3], "one"),
    (lambda: [A.Affine(rotate=(10, 10), p=1)], [0], "one"),
    # (a blur, then resizes of two interpolations: its own pipeline in passes)
    (lambda: [A.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1.5, 1.5), p=1),
              A.Resize(100, 120), A.Resize(200, 240, interpolation=0)], [1], "as_needed"),
    # (an inversion before a turn: the turn's border stays black, edges="each_step")
    (lambda: [A.InvertImg(p=1), A.Rotate(limit=(20, 20), p=1)], [0, 2], "one"),
], ids=["invert", "colour", "blur", "turn", "passes", "edges"])
def test_ports_give_albumentations_result(inner, channels, passes, queue):
    """Between a flip and a turn of the whole image: albumentations' pixels within a level."""
    recipe = _quiet(A.Compose, [A.HorizontalFlip(p=1),
                                A.SelectiveChannelTransform(inner(), channels=channels),
                                A.Affine(rotate=(5, 5), p=1)])
    got = W.from_albumentations(recipe)
    step = got.transforms[1]
    assert type(step).__name__ == "SelectiveChannelTransform"
    assert step.channels == tuple(channels) and step.pipeline.passes == passes
    inverted_first = isinstance(recipe.transforms[1].transforms[0], A.InvertImg) and \
        len(recipe.transforms[1].transforms) > 1
    assert step.pipeline.edges == ("each_step" if inverted_first else "output")
    theirs = _quiet(recipe, image=FOUR)["image"]
    ours = got(image=FOUR, seed=0, queue=queue)["image"]
    d = np.abs(ours.astype(int) - theirs)
    if inverted_first:  # within a level but along the turn's border (its blend rounded twice)
        assert (d > 1).mean() < 0.001 and d.max() <= 4
    else:
        assert d.max() <= 1


def test_channels_come_from_the_live_pipeline():
    """albumentations 2.0.8's to_dict writes no channels (A.load then gives (0, 1, 2)): the port
    of a live pipeline reads them off the transform, the port of its dict takes what A.load
    would."""
    recipe = _quiet(A.Compose, [A.SelectiveChannelTransform([A.InvertImg(p=1)], channels=[3],
                                                            p=0.7)])
    assert W.from_albumentations(recipe).transforms[0].channels == (3,)
    spec = _quiet(A.to_dict, recipe)
    assert "channels" not in spec["transform"]["transforms"][0]
    from_dict = W.from_albumentations(spec).transforms[0]
    assert from_dict.channels == (0, 1, 2) and from_dict.p == 0.7
    assert _quiet(A.from_dict, spec).transforms[0].channels == (0, 1, 2)


def test_batches_replays_saving_and_the_other_targets(queue):
    """A batch equals each sample alone; a replay and to_dict / from_dict give the same; the
    mask, boxes and keypoints move with the pipeline's geometry alone (the step leaves them)."""
    step = W.SelectiveChannelTransform([W.GaussNoise(std_range=(0.1, 0.2), p=1),
                                        W.Resize(75, 90), W.Resize(150, 180)],
                                       channels=[0, 3], passes="as_needed")
    aug = W.Compose([W.RandomResizedCrop((150, 180), scale=(0.5, 1)), step,
                     W.HorizontalFlip()], label_fields=["labels"])
    mask = (PHOTO[..., 0] > 100).astype(np.uint8)
    boxes = [[10.0, 20.0, 120.0, 150.0]]
    out = aug(image=np.stack([FOUR] * 4), mask=np.stack([mask] * 4), boxes=[boxes] * 4,
              labels=[[1]] * 4, seed=3, queue=queue)
    plain = W.Compose([W.RandomResizedCrop((150, 180), scale=(0.5, 1)), W.HorizontalFlip()],
                      label_fields=["labels"])
    for k in range(4):
        alone = aug(image=FOUR, mask=mask, boxes=boxes, labels=[1], seed=3, index=k,
                    queue=queue)
        np.testing.assert_array_equal(alone["image"], out["image"][k])
        np.testing.assert_array_equal(
            aug.replay(out["params"][k], image=FOUR, queue=queue)["image"], out["image"][k])
        p = out["params"][k]["steps"]
        bare = plain.replay({"steps": [p[0], p[2]]}, image=FOUR, mask=mask, boxes=boxes,
                            labels=[1], queue=queue)
        np.testing.assert_array_equal(bare["mask"], out["mask"][k])
        np.testing.assert_allclose(bare["boxes"], out["boxes"][k])
        # (the other channels: the map's, within a level: the flip is a pass of its own here)
        assert np.abs(bare["image"][..., [1, 2]].astype(int)
                      - out["image"][k][..., [1, 2]]).max() <= 1
        assert not np.array_equal(bare["image"][..., 0], out["image"][k][..., 0])
    back = W.Compose.from_dict(aug.to_dict())
    assert back.transforms[1].pipeline.passes == "as_needed"
    np.testing.assert_array_equal(back(image=FOUR, seed=3, index=2, queue=queue)["image"],
                                  out["image"][2])


@pytest.mark.parametrize("make,match", [
    (lambda: W.SelectiveChannelTransform([W.InvertImg()], channels=[]),
     r"channels must be distinct indices >= 0, at least one, got \[\]"),
    (lambda: W.SelectiveChannelTransform([W.InvertImg()], channels=[1, 1]), r"distinct"),
    (lambda: W.SelectiveChannelTransform([W.InvertImg()], channels="rgb"),
     r"channels must be a list of channel indices, got 'rgb'"),
    (lambda: W.SelectiveChannelTransform([W.BBoxSafeRandomCrop()]),
     r"holds BBoxSafeRandomCrop, which reads the targets"),
    (lambda: W.SelectiveChannelTransform([W.Lambda(image=lambda x, **k: x)]),
     r"holds Lambda, which runs on the host"),
])
def test_refused_when_made(make, match):
    with pytest.raises(ValueError, match=match):
        make()
    assert W.SelectiveChannelTransform([W.InvertImg()], channels=np.arange(2)).channels == \
        (0, 1)  # (numpy's integers too)


def test_refused_when_called(queue):
    aug = W.Compose([W.SelectiveChannelTransform([W.InvertImg(p=1)], channels=[3])])
    with pytest.raises(ValueError, match=r"channels=\[3\]\) needs an image with those channels, "
                                         r"got shape \(200, 240, 3\)"):
        aug(image=PHOTO, seed=0, queue=queue)
    resized = W.Compose([W.SelectiveChannelTransform([W.Resize(10, 10)], channels=[0])])
    with pytest.raises(ValueError, match=r"must keep the channels' shape and dtype"):
        resized(image=PHOTO, seed=0, queue=queue)
    with pytest.raises(ValueError, match=r"SelectiveChannelTransform inside OneOf, Sequential "
                                         r"or a nested Compose is not supported"):
        W.from_albumentations(_quiet(A.Compose, [A.OneOf([
            A.SelectiveChannelTransform([A.InvertImg(p=1)]), A.Blur()])]))
