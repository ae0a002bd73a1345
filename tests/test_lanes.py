"""A batch's parameters drawn side by side (warpkit.augment._lanes): every call the very numbers
of numpy's own generator on each sample's stream, every pipeline's recorded parameters the same
dicts as drawn sample by sample, and the batch's maps as one array the same matrices as each
sample's chain. All comparisons are between two computations made in this run (integers, or
doubles from the same integers by the same IEEE operations)."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit.augment import (AdditiveNoise, AdvancedBlur, Blur, FrequencyMasking, TimeMasking,
                             TimeReverse, CenterCrop, ChannelShuffle, CoarseDropout,
                             ColorJitter, Compose, ElasticTransform, Emboss, Erasing, GaussianBlur,
                             GaussNoise, GridDropout, HueSaturationValue, InvertImg, MedianBlur,
                             MotionBlur, OneOf, Pad, Posterize, RandomAffine,
                             RandomBrightnessContrast, RandomCrop, RandomGamma,
                             RandomHorizontalFlip, RandomPerspective, ChannelDropout, Equalize,
                             AutoContrast, FancyPCA, ISONoise, MultiplicativeNoise,
                             PlanckianJitter, RandomSnow, ChromaticAberration, Illumination,
                             RandomGravel, RandomShadow, Morphological, RandomSunFlare, RandomFog, RandomRain,
                             GlassBlur, RandomToneCurve,
                             SaltAndPepper, SquareSymmetry, PixelDropout, ShotNoise, ToSepia,
                             RandomResizedCrop,
                             RandomRotate90, RandomRotation, RandomSizedCrop, RandomVerticalFlip,
                             Resize, RGBShift, RingingOvershoot, Sharpen, Solarize, ToGray,
                             UnsharpMask, XYMasking, ZoomBlur, stream)
from warpkit.augment import (CLAHE, D4, Affine, Crop, CropAndPad, Defocus, Downscale, HEStain,
                             LongestMaxSize, MaskDropout, PadIfNeeded, Perspective,
                             RandomCropFromBorders, RandomScale, Rotate, SmallestMaxSize)
from warpkit.augment._base import lanes_ok
from warpkit.augment._lanes import LANES_FROM, Lanes, draw_samples, philox_blocks
from warpkit.augment._streams import philox_keys
from warpkit.engine.chain import projective_part


def test_blocks_are_numpys_philox():
    keys = philox_keys(11, 3, list(range(6)) + [2**40])
    k = np.array(keys, np.uint64)
    got = philox_blocks(k[:, 0], k[:, 1], 1, 5)
    for lane, key in enumerate(keys):
        bits = np.random.Philox(key=np.array(key, np.uint64))
        np.testing.assert_array_equal(got[lane], bits.random_raw(20))
    # a later counter: blocks 6 and 7 of each stream
    later = philox_blocks(k[:, 0], k[:, 1], 6, 2)
    bits = np.random.Philox(key=np.array(keys[0], np.uint64))
    bits.random_raw(20)
    np.testing.assert_array_equal(later[0], bits.random_raw(8))


def test_every_call_is_the_generators_call_lane_by_lane():
    """Random calls on random subsets of lanes, with the 32-bit path's kept halves, Lemire's
    rejections (spans near 2**32) and streams read past their first blocks."""
    rs = np.random.default_rng(0)
    idx = rs.integers(0, 2**36, 40).tolist()
    lanes = Lanes(philox_keys(3, 1, idx))
    gens = [stream(3, 1, i) for i in idx]
    rejected = 0
    for _ in range(300):
        where = rs.random(40) < 0.7
        op = int(rs.integers(5))
        if op == 0:
            got = lanes.random(where)
            want = [g.random() if w else 0.0 for g, w in zip(gens, where)]
        elif op == 1:
            got = lanes.random(where, k=3)
            want = [g.random(3) if w else np.zeros(3) for g, w in zip(gens, where)]
        elif op == 2:
            got = lanes.uniform(-2.5, 7.0, where)
            want = [g.uniform(-2.5, 7.0) if w else -2.5 for g, w in zip(gens, where)]
        else:
            lo = rs.integers(-50, 50, 40)
            span = rs.integers(1, 3, 40) if op == 3 else rs.integers(2**31, 2**32 - 2, 40)
            got = lanes.integers(lo, lo + span, where)
            want = [g.integers(a, a + s) if w else a for g, a, s, w in zip(gens, lo, span, where)]
            rejected += op == 4
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert rejected > 20
    for g, tail in zip(gens, lanes.random()):  # every stream used exactly as much
        assert g.random() == tail


def test_reading_ahead_then_skipping_is_drawing():
    idx = [5, 6, 7]
    lanes, plain = Lanes(philox_keys(1, 0, idx)), Lanes(philox_keys(1, 0, idx))
    ahead = lanes.ahead(6)
    np.testing.assert_array_equal(ahead, plain.random(k=6)[:, :6])
    lanes.skip(np.array([6, 6, 6]))
    np.testing.assert_array_equal(lanes.random(), plain.random())


def test_integers_refuses_spans_it_does_not_draw():
    lanes = Lanes(philox_keys(0, 0, [0, 1]))
    with pytest.raises(ValueError, match="low < high"):
        lanes.integers(5, 5)
    with pytest.raises(ValueError, match="2\\*\\*32"):
        lanes.integers(0, 2**33)


PIPELINES = [
    Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
             RandomAffine(degrees=15, scale=(0.9, 1.1))]),
    # extreme ratios: many tries, some samples fall back to the centre crop
    Compose([RandomResizedCrop(32, scale=(0.9, 1.0), ratio=(0.05, 20)), RandomVerticalFlip(0.3),
             RandomRotate90(), RandomRotation(30, p=0.5), RandomCrop(20, p=0.7),
             Resize(shorter=17), CenterCrop(12), Pad(2)], p=0.9),
    Compose([Compose([RandomResizedCrop((48, 64), scale=(0.01, 0.02), ratio=(5, 6)),
                      RandomAffine(degrees=5, translate=0.1, shear=(1, 2, 3, 4), hflip=0.5,
                                   vflip=0.5, size=(20, 30))], p=0.5),
             RandomCrop(100), RandomRotation((10, 40), expand=True)]),
    # colour steps draw side by side too (ToGray and InvertImg draw only whether they apply)
    Compose([RandomResizedCrop(24), RandomBrightnessContrast(p=0.7),
             RandomBrightnessContrast(0.4, 0.6, ensure_safe_range=True, p=0.6), RandomGamma(p=0.5),
             ToGray(p=0.3), RGBShift(p=0.6), ChannelShuffle(p=0.5), InvertImg(p=0.2),
             Solarize((0.2, 0.8), p=0.4), Posterize((2, 6), p=0.5),
             Posterize([(1, 3), (4, 5), (6, 7)], p=0.5)]),
    # the colour transforms with an order, shifts or a generator key, a coarse noise grid
    Compose([RandomResizedCrop(24), ColorJitter(0.4, 0.4, 0.4, 0.1, p=0.8),
             HueSaturationValue(p=0.6), GaussNoise(p=0.5),
             GaussNoise((0.1, 0.3), (-0.1, 0.1), noise_scale_factor=0.3, p=0.5),
             GaussianBlur(p=0.5), GaussianBlur((3, 8), (0.1, 2), p=0.5), MotionBlur(p=0.5),
             MotionBlur((5, 5), allow_shifted=False, p=0.5), Blur(p=0.5), Blur((9, 9), p=0.5),
             MedianBlur(p=0.5), MedianBlur((5, 5), p=0.5), Sharpen(p=0.5), Emboss(p=0.5),
             CLAHE(p=0.5), CLAHE((2, 3), (4, 6), p=0.5), Downscale(p=0.5),
             Downscale((0.1, 0.9), p=0.5),
             Downscale((0.2, 0.8), {"downscale": 3, "upscale": 1}, p=0.5), AdvancedBlur(p=0.6),
             AdvancedBlur((3, 3), 0.5, (0.2, 0.3), 10, (0.2, 5), (0.5, 1.5), p=0.5),
             Defocus(p=0.6), Defocus(5, (0.0, 0.2), p=0.5), RingingOvershoot(p=0.5),
             RingingOvershoot((3, 9), (0.2, 0.4), p=0.7), UnsharpMask(p=0.5),
             UnsharpMask((5, 11), (0.5, 2.0), 0.8, 20, p=0.6), ZoomBlur(p=0.5),
             ZoomBlur((1.1, 1.6), (0.02, 0.1), p=0.6)]),
    # albumentations' other pixel transforms: counts and keys, factors per channel, a
    # temperature by both samplings, the tone curve's normals
    Compose([RandomResizedCrop(24), ChannelDropout(p=0.6), ChannelDropout((1, 3), 9, p=0.5),
             MultiplicativeNoise(p=0.5), MultiplicativeNoise((0.5, 1.5), per_channel=True),
             MultiplicativeNoise((0.7, 1.2), elementwise=True, p=0.6),
             PlanckianJitter(p=0.5), PlanckianJitter("cied", (4000, 9000), "gaussian", p=0.6),
             ToSepia(p=0.3), RandomToneCurve(p=0.5), RandomToneCurve(0.3, True, p=0.5),
             SquareSymmetry(p=0.8), Equalize(p=0.4), ISONoise(p=0.5),
             ISONoise((0.0, 0.2), (0.0, 3.0), p=0.6), SaltAndPepper(p=0.5),
             PixelDropout(p=0.5), PixelDropout(0.2, True, None, 3, p=0.6), ShotNoise(p=0.5),
             ShotNoise((0.02, 1.5), p=0.7), AutoContrast(p=0.5),
             AutoContrast(5, 3, "pil", p=0.5), FancyPCA(p=0.5), FancyPCA(1.5, p=0.6),
             RandomSnow(p=0.5), RandomSnow(1.5, (0.0, 0.6), p=0.6),
             ChromaticAberration(p=0.5), ChromaticAberration(0.1, (0.0, 0.3), "red_blue", p=0.6),
             ChromaticAberration(mode="random", p=0.7), Illumination(p=0.5),
             Illumination("corner", p=0.6), Illumination("gaussian", effect_type="darken", p=0.7),
             RandomGravel(p=0.5), RandomGravel((0.0, 0.0, 1.0, 1.0), 3, p=0.7),
             RandomShadow(p=0.5), RandomShadow((0, 0, 1, 1), (1, 4), 7, (0.1, 0.9), p=0.7),
             Morphological(p=0.5), Morphological(3, "erosion", p=0.6),
             RandomSunFlare(p=0.5), RandomSunFlare((0, 0, 1, 1), 90, (255, 200, 0), (0.3, 0.6),
                                                   (1, 12), p=0.7),
             RandomFog(p=0.5), RandomFog(0.2, (0.1, 0.5), p=0.7),
             RandomRain(p=0.5), RandomRain((-20, 5), rain_type="heavy", p=0.6),
             GlassBlur(p=0.5), GlassBlur(1.1, 2, 1, p=0.6)]),
    # AdditiveNoise: each law in each mode (the constant Beta's gamma tries, looked at ahead)
    Compose([RandomResizedCrop(24)] + [
        AdditiveNoise(kind, mode, params, approx, p=0.7) for kind, params in
        (("uniform", {"ranges": [(-0.1, 0.15), (0.0, 0.2)]}),
         ("gaussian", {"mean_range": (0.0, 0.05), "std_range": (0.1, 0.2)}),
         ("laplace", {"mean_range": (-0.02, 0.0), "scale_range": (0.08, 0.1)}),
         ("beta", {"alpha_range": (0.3, 0.6), "beta_range": (0.2, 2.5), "scale_range": (0.3, 0.3)}))
        for mode, approx in (("constant", 1.0), ("per_pixel", 0.5), ("shared", 1.0))]),
    # dropout: counts of holes per sample (fractions and pixels, a single count, a pixel range
    # past small images' sides), every fill, Erasing's rectangles that cannot fit
    Compose([RandomResizedCrop(24), CoarseDropout(p=0.7),
             CoarseDropout((1, 6), (2, 9), (3, 40), fill="random", p=0.6),
             CoarseDropout((3, 3), (0.05, 0.5), (0.3, 0.4), fill="random_uniform", p=0.6),
             Erasing(p=0.6), Erasing((0.3, 0.9), (0.1, 8), fill="random_uniform", p=0.6),
             Erasing((0.02, 0.1), (1, 1), fill="random", p=0.6), TimeMasking(20, p=0.6),
             FrequencyMasking(5, p=0.7), TimeReverse(), MaskDropout((1, 4), p=0.6),
             HEStain(p=0.7), HEStain("preset", "dark", (0.5, 1.5), (-0.3, 0.1), p=0.5)]),
    # GridDropout: grids of every size the images give (empty ones on 1-pixel sides), fixed
    # grids, cells of a drawn side, every fill, shifted holes
    Compose([GridDropout(p=0.7), GridDropout(0.3, False, holes_number_xy=(5, 2),
                                             shift_xy=(3, 9), fill="random_uniform", p=0.6),
             RandomResizedCrop(24), GridDropout(unit_size_range=(2, 9), fill="random", p=0.6),
             GridDropout(0.8, unit_size_range=(6, 6), p=0.5),
             XYMasking((1, 3), (0, 2), (2, 9), (0, 5), fill="random", p=0.7),
             XYMasking(2, mask_x_length=(0, 24), fill="random_uniform", p=0.6)]),
    # OneOf: choices by weight (one never chosen, a choice holding a pipeline and another
    # OneOf), whole or not, among geometric, colour and dropout steps
    Compose([OneOf([RandomResizedCrop(24, p=0.9), RandomCrop(20, p=0.3), Resize((18, 22), p=0.0),
                    Compose([RandomRotation(20), CenterCrop(16)])], p=0.8),
             OneOf([RandomHorizontalFlip(), OneOf([RandomVerticalFlip(), RandomRotate90()]),
                    RandomAffine(degrees=10, translate=0.1, p=0.3)]),
             OneOf([GaussianBlur(p=1), MotionBlur(p=0.7), ColorJitter(0.2, 0.2, 0.2, 0.05),
                    CoarseDropout(fill="random_uniform")], p=0.6)]),
    # albumentations' names: Affine (percent and pixel shifts, balanced scales, keep_ratio),
    # Rotate, D4 and the letterbox's sizing, with choices and random positions
    Compose([LongestMaxSize(max_size=[24, 32, 40]), RandomScale(0.3),
             Affine(scale=(0.5, 1.5), translate_percent=(-0.1, 0.2), rotate=(-30, 30),
                    shear=(-5, 5), balanced_scale=True, p=0.7),
             Affine(translate_px={"x": (-3, 4), "y": 2}, scale=(0.9, 1.1), keep_ratio=True),
             Rotate(20, p=0.6), D4(), PadIfNeeded(48, 40, position="random"),
             Perspective((0.05, 0.3), keep_size=False), Perspective(0.2, fit_output=True),
             RandomSizedCrop((20, 60), (24, 32), w2h_ratio=1.4, p=0.7),
             RandomCropFromBorders(0.3, 0.2, 0.5, 0.5, p=0.6), RandomCropFromBorders(1, 0, 0, 1),
             Crop(0, 0, 1, 1, p=0.2),
             SmallestMaxSize(max_size_hw=(30, None)),
             PadIfNeeded(None, None, pad_height_divisor=8, pad_width_divisor=16)]),
    # CropAndPad: every way of giving the amounts, drawn per side or once
    Compose([CropAndPad(px=(-30, 40), p=0.7), CropAndPad(percent=(-0.2, 0.3),
                                                         sample_independently=False),
             CropAndPad(px=[(-5, 5), (0, 10), (-20, -10), (3, 4)], keep_size=False),
             CropAndPad(percent=[[-0.1, 0.1, 0.2], [0.0], [0.3, -0.3, 0.1], [0.01, 0.05]]),
             CropAndPad(px=[[-10, 0, 10], [5], [-3, 3], [7, 8, 9]], keep_size=False),
             CropAndPad(percent=[(-0.1, 0.0), (0.0, 0.1), (0.05, 0.05), (-0.2, 0.2)])]),
]


@pytest.mark.parametrize("pipe", PIPELINES)
def test_a_batch_draws_what_each_sample_draws(pipe):
    assert lanes_ok(pipe)
    rs = np.random.default_rng(1)
    for _ in range(8):
        n = int(rs.integers(1, 70))
        sizes = [(int(rs.integers(1, 700)), int(rs.integers(1, 700))) for _ in range(n)]
        idx = rs.integers(0, 2**40, n).tolist()
        together = draw_samples(pipe, 5, 3, idx, sizes, lanes=True)
        alone = [pipe.sample(s[::-1], 5, i, 3) for s, i in zip(sizes, idx)]
        assert repr(together) == repr(alone)  # the same values and the same Python types


@pytest.mark.parametrize("pipe", PIPELINES)
def test_a_batchs_maps_are_each_samples_chain(pipe):
    rs = np.random.default_rng(2)
    sizes = [(int(rs.integers(1, 700)), int(rs.integers(1, 700))) for _ in range(30)]
    plist = draw_samples(pipe, 1, 0, list(range(30)), sizes)
    mats, outs = pipe.maps(plist, sizes)
    for k, (p, s) in enumerate(zip(plist, sizes)):
        chain, out = pipe.stages(p, s)
        np.testing.assert_array_equal(mats[k], projective_part(chain))
        assert outs[k] == out


def test_what_cannot_draw_a_batch_at_once_draws_sample_by_sample():
    class MyAffine(RandomAffine):  # draw changed, draw_lanes inherited: not trusted
        def draw(self, rng, size):
            return {**super().draw(rng, size), "angle": 0.0}

    class MyDropout(CoarseDropout):  # one sample's holes changed, a batch's inherited
        def _holes(self, rng, size):
            return super()._holes(rng, size)[:1]

    class MyOneOf(OneOf):  # the choice changed, a batch's inherited
        def draw_seen(self, rng, size, seen):
            return {**super().draw_seen(rng, size, seen), "choice": 0}

    for t in (MyOneOf([RandomHorizontalFlip()]), ElasticTransform(), RandomPerspective(),
              MyAffine(), MyDropout(), OneOf([RandomHorizontalFlip(), ElasticTransform()]),
              Compose([RandomHorizontalFlip(), MyOneOf([RandomVerticalFlip()])])):
        assert not lanes_ok(t)
    pipe = Compose([RandomResizedCrop(16), MyAffine(degrees=30)])
    sizes = [(40, 30)] * LANES_FROM
    got = draw_samples(pipe, 0, 0, list(range(LANES_FROM)), sizes)
    assert all(p["steps"][1]["angle"] == 0.0 for p in got)
    assert got == [pipe.sample((30, 40), 0, i) for i in range(LANES_FROM)]
    # a non-linear stage: no one array of maps
    field = Compose([ElasticTransform(p=1)])
    assert field.maps(draw_samples(field, 0, 0, [0, 1], [(20, 20)] * 2), [(20, 20)] * 2) is None


def test_a_large_batch_is_each_sample_alone(queue):
    """Through the whole call: a batch above LANES_FROM gives each sample's image, map and
    parameters as that sample called alone."""
    pipe = PIPELINES[0]
    rs = np.random.default_rng(3)
    images = [rs.integers(0, 256, (int(rs.integers(40, 90)), int(rs.integers(40, 90)), 3),
                          np.uint8) for _ in range(LANES_FROM + 4)]
    small = Compose(pipe.transforms[1:], output_dtype="float32")
    small.transforms.insert(0, RandomResizedCrop(24))
    together = small(image=images, seed=8, index=100, epoch=1, queue=queue)
    for k, img in enumerate(images):
        alone = small(image=img, seed=8, index=100 + k, epoch=1, queue=queue)
        np.testing.assert_array_equal(alone["image"], together["image"][k])
        np.testing.assert_array_equal(alone["matrix"], together["matrix"][k])
        assert alone["params"] == together["params"][k]
