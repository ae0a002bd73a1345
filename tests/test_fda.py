"""FDA (Fourier domain adaptation: the image's low-frequency DFT amplitudes replaced by a
reference's, on the device in its own pass: kernels_cl/colour_pass.cl's colour_fda_*) against
albumentations 2.0.8's, given the same reference and beta: photos and references of other sizes,
uint8, uint16 and float32, 1 to 4 channels and (H, W) images, odd and even sizes, windows from
empty to the whole spectrum, after geometry and before other colour, batches of ragged crops
choosing among the call's references, replay, the port from albumentations, refusals, and
small cases on each device CI runs and Oclgrind.

albumentations takes the whole FFT in double and truncates an integer image's result to a
level; warpkit takes the window's part in float32. A value within float rounding of a level
can fall either side of it: within a level, the same level on all but a few pixels in 1000
(albumentations' own round trip, ifft2(fft2(x)), leaves values a hair under their level that
its truncation takes one down: beta 0 changes nothing in warpkit, 1 level on some pixels
there)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_reference_batch, ragged_crops, small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    from albumentations.augmentations.mixing.domain_adaptation_functional import \
        fourier_domain_adaptation
    import cv2
    import skimage.data

PHOTOS = [skimage.data.astronaut()[:301, :256].copy(), skimage.data.coffee(),
          skimage.data.chelsea()[:, :449].copy()]
REFS = [skimage.data.rocket(), skimage.data.coffee()[::3, ::2].copy(),
        skimage.data.hubble_deep_field()]


def _albu(image: np.ndarray, ref: np.ndarray, beta: float) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = A.Compose([A.FDA(beta_limit=(beta, beta), p=1)])
        return t(image=image, fda_metadata=[ref])["image"]


def _direct(image: np.ndarray, ref: np.ndarray, beta: float) -> np.ndarray:
    """albumentations' function on the reference resized as its FDA resizes it (for what its
    Compose does not take: uint16)."""
    h, w = image.shape[:2]
    return fourier_domain_adaptation(image, cv2.resize(ref, (w, h)), beta)


def _close(got: np.ndarray, want: np.ndarray, share: float = 0.005) -> None:
    """Within a level (float rounding for floats), the same on all but ``share`` of the
    values."""
    want = want.reshape(got.shape)
    assert got.dtype == want.dtype
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    if got.dtype == np.float32:
        assert d.max() <= 1e-4, d.max()
        return
    assert d.max() <= 1.0, d.max()
    if d.size >= 1000:
        assert (d > 0).mean() <= share, (d > 0).mean()


def _ours(image, ref, beta, queue=None):
    pipe = W.Compose([W.FDA(beta_limit=(beta, beta), p=1)])
    return pipe(image=image, fda_metadata=[ref], seed=0, queue=queue)["image"]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("beta", [0.01, 0.05, 0.1, 0.23])
def test_photos_are_albumentations(dtype, beta, queue):
    for k, photo in enumerate(PHOTOS):
        img = photo if dtype == np.uint8 else photo.astype(np.float32) / 255
        ref = REFS[k] if dtype == np.uint8 else REFS[k].astype(np.float32) / 255
        _close(_ours(img, ref, beta, queue), _albu(img, ref, beta))


def test_windows_from_empty_to_the_whole_spectrum(queue):
    """beta 0 (an empty window: the image as it is; albumentations' round trip a level under
    on some pixels), the largest beta (every frequency but one), odd and even sides, uint16
    (albumentations' function: its Compose takes uint8 and float32)."""
    img, ref = PHOTOS[1][:121, :200].copy(), REFS[0]
    np.testing.assert_array_equal(_ours(img, ref, 0.0, queue), img)
    assert set(np.unique(img.astype(int) - _albu(img, ref, 0.0))) <= {0, 1}
    for beta in (0.5, 0.31):
        _close(_ours(img, ref, beta, queue), _albu(img, ref, beta))
    for h, w in ((57, 57), (56, 91), (90, 33)):
        part = PHOTOS[2][:h, :w].copy()
        _close(_ours(part, ref, 0.17, queue), _albu(part, ref, 0.17))
    deep = (PHOTOS[0][:100, :120].astype(np.uint16) * 257)
    r16 = REFS[1].astype(np.uint16) * 257
    # (float32's rounding at 65535 is 1/256 of a level: values that near a level, about 1 in
    # 100, fall either side of it)
    _close(_ours(deep, r16, 0.08, queue), _direct(deep, r16, 0.08), share=0.03)


def test_channels(queue):
    """1 to 4 channels and (H, W) images; references as (H, W) for one channel."""
    photo, ref = PHOTOS[1][:150, :170], REFS[0]
    for c in (1, 2, 3, 4):
        img = np.dstack([photo] * 2)[:, :, :c].copy()
        r = np.dstack([ref] * 2)[:, :, :c].copy()
        _close(_ours(img, r, 0.07, queue), _albu(img, r, 0.07))
    gray, rgray = photo[..., 0].copy(), ref[..., 1].copy()
    out = _ours(gray, rgray, 0.12, queue)
    assert out.shape == gray.shape
    _close(out, _albu(gray, rgray, 0.12))
    _close(_ours(gray[..., None].copy(), rgray, 0.12, queue)[..., 0], out)


def test_after_geometry_and_before_other_colour(queue):
    """FDA of the warped image (albumentations given warpkit's geometric output, its reference
    resized to that size), with colour steps before and after it in the same call."""
    geo = W.RandomResizedCrop((123, 157))
    for k, photo in enumerate(PHOTOS):
        base = W.Compose([geo])(image=photo, seed=k, queue=queue)["image"]
        out = W.Compose([geo, W.InvertImg(p=1), W.FDA(beta_limit=(0.08, 0.08), p=1),
                         W.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])(
            image=photo, fda_metadata=[REFS[k]], seed=k, queue=queue)["image"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = A.Compose([A.InvertImg(p=1), A.FDA(beta_limit=(0.08, 0.08), p=1),
                              A.RandomBrightnessContrast((0.1, 0.1), (0.2, 0.2), p=1)])(
                image=base, fda_metadata=[REFS[k]])["image"]
        _close(out, want, share=0.01)


def test_two_passes_share_the_scratch(queue):
    """Two FDAs with a blur between them (three passes after the warp, the two FDA passes on
    one scratch), each with its own reference list: albumentations' result (a blur of values
    a level apart rounds apart now and then: the same level on all but a few in 100)."""
    img = PHOTOS[0][:200, :180].copy()
    steps = lambda M: [M.FDA(beta_limit=(0.05, 0.05), p=1),  # noqa: E731
                       M.GaussianBlur(blur_limit=(5, 5), sigma_limit=(1, 1), p=1),
                       M.FDA(beta_limit=(0.2, 0.2), metadata_key="second", p=1)]
    out = W.Compose(steps(W))(image=img, fda_metadata=[REFS[1]], second=[REFS[0]], seed=0,
                             queue=queue)["image"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = A.Compose(steps(A))(image=img, fda_metadata=[REFS[1]], second=[REFS[0]])["image"]
    _close(out, want, share=0.05)


def test_a_batch_chooses_among_the_calls_references(queue):
    """One list of references for the whole call: each sample draws one and its beta (both
    recorded); the batch = each sample alone with the same list = its replay; the model's input
    made after it; to_dict/from_dict; beside HistogramMatching, each reading its own list."""
    imgs = ragged_crops(PHOTOS, 10)
    pipe = W.Compose([W.RandomResizedCrop(48), W.FDA(beta_limit=(0.0, 0.3), p=0.8)],
                     output_dtype="float32", mean=[0.4, 0.4, 0.4], std=[0.2, 0.2, 0.2],
                     layout="CHW")
    assert_reference_batch(pipe, imgs, "fda_metadata", REFS, "beta", (0.0, 0.3), 3, queue)
    # beside HistogramMatching: each its own list (the same index of each is not the same image)
    both = W.Compose([W.RandomResizedCrop(48), W.HistogramMatching(p=1),
                      W.FDA(beta_limit=(0.1, 0.1), p=1)])
    img = PHOTOS[0][:80, :90].copy()
    out = both(image=img, hm_metadata=[REFS[0]], fda_metadata=[REFS[2]], seed=1, queue=queue)
    base = W.Compose([W.RandomResizedCrop(48)])(image=img, seed=1, queue=queue)["image"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = out["params"]["steps"][1]["blend_ratio"]
        want = A.Compose([A.HistogramMatching(blend_ratio=(r, r), p=1),
                          A.FDA(beta_limit=(0.1, 0.1), p=1)])(
            image=base, hm_metadata=[REFS[0]], fda_metadata=[REFS[2]])["image"]
    _close(out["image"], want, share=0.03)


def test_outputs_of_several_sizes(queue):
    """A ragged list whose outputs keep their sizes (a launch per size, each with its part of
    the program and the call's table; each size its own spectra): each sample as alone."""
    from helpers import assert_batch_is_alone

    imgs = [PHOTOS[0][:200, :220].copy(), PHOTOS[1][:180, :240].copy(),
            PHOTOS[2][:150, :200].copy(), PHOTOS[0][:100, :120].copy()]
    pipe = W.Compose([W.GridDistortion(p=1), W.FDA(beta_limit=(0.02, 0.2), p=1)])
    assert_batch_is_alone(lambda **kw: pipe(**kw, fda_metadata=REFS[:2]), imgs, 0, queue)


@pytest.mark.parametrize("name, amount, given, saved", [
    ("HistogramMatching", "blend_ratio", (0.2, 0.4), (0.9, 1.0)),
    ("FDA", "beta_limit", (0.01, 0.2), (0.0, 0.05))])
def test_the_port_from_albumentations(name, amount, given, saved):
    """Both adaptations ported from a live Compose at any depth (albumentations' to_dict
    refuses them: their parameters are read off the live transform) and from a dict; the
    deprecated reference_images refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recipe = A.Compose([A.HorizontalFlip(p=0.5),
                            A.OneOf([getattr(A, name)(**{amount: given}, metadata_key="refs",
                                                      p=0.3), A.Blur()], p=1)])
        live = getattr(A, name)(reference_images=[REFS[0]], read_fn=lambda x: x)
    ours = W.from_albumentations(recipe)
    t = ours.transforms[1].transforms[0]
    assert type(t).__name__ == name
    assert (getattr(t, amount), t.metadata_key, t.p) == (given, "refs", 0.3)
    assert "refs" in ours.call_keys()
    spec = {"transform": {"__class_fullname__": "Compose", "transforms": [
        {"__class_fullname__": name, amount: list(saved), "p": 1.0}]}}
    assert getattr(W.from_albumentations(spec).transforms[0], amount) == saved
    with pytest.raises(ValueError, match="reference_images"):
        W.from_albumentations(A.Compose([live]))


def test_refusals():
    with pytest.raises(ValueError, match="beta_limit"):
        W.FDA(beta_limit=(0.1, 0.6))
    assert W.FDA(beta_limit=0.2).beta_limit == (0.0, 0.2)  # (albumentations' scalar)
    pipe = W.Compose([W.FDA(p=1)])
    img = PHOTOS[0][:32, :32].copy()
    with pytest.raises(TypeError, match=r"the image's dtype \(uint8"):
        pipe(image=img, fda_metadata=[REFS[0].astype(np.float32)], seed=0)
    with pytest.raises(TypeError, match=r"the image's dtype \(float32"):
        pipe(image=img.astype(np.float32), fda_metadata=[REFS[0]], seed=0)


@pytest.mark.parametrize("name, key", [("HistogramMatching", "hm_metadata"),
                                       ("FDA", "fda_metadata")])
def test_the_calls_reference_list_is_checked(name, key):
    """What both adaptations refuse alike (their shared base, _domain._Adaptation): no list, an
    empty one, a non-array, a reference of other channels, 5 channels, a replay whose recorded
    index is past the list, albumentations' deprecated reference_images, a metadata_key that
    is no keyword."""
    cls = getattr(W, name)
    with pytest.raises(ValueError, match="reference_images"):
        cls(reference_images=[REFS[0]])
    with pytest.raises(ValueError, match="metadata_key"):
        cls(metadata_key="a b")
    pipe = W.Compose([cls(p=1)])
    img = PHOTOS[0][:32, :32].copy()
    with pytest.raises(ValueError, match=f"{name} needs reference images: .* as {key}="):
        pipe(image=img, seed=0)
    for given, why in (([], "non-empty list"), ([[1, 2]], rf"{key}\[0\] must be a numpy array"),
                       ([REFS[0][..., :2]], "3 channels")):
        with pytest.raises(ValueError, match=why):
            pipe(image=img, seed=0, **{key: given})
    with pytest.raises(TypeError, match="1 to 4 channels"):
        pipe(image=np.zeros((8, 8, 5), np.uint8), seed=0, **{key: [REFS[0]]})
    done = pipe(image=img, seed=5, **{key: REFS})
    k = done["params"]["steps"][0]["reference"]
    with pytest.raises(ValueError, match=f"{name}'s recorded reference"):
        pipe.replay(done["params"], image=img, **{key: REFS[:k]})


def test_the_engine_checks_the_operation():
    """The kernel's words checked on the host before any launch: a window inside the output's
    frequencies, its column pairs, the amplitudes' place inside the call's colour table (16-bit
    halves), the table's values it reads finite and not negative, no data operations."""
    from warpkit.engine.core import _check_fda, fda_ops

    table = np.ones(2 * 3 * 9 * (16 // 2 + 1), np.float32)  # (two references' amplitudes)
    at = 3 * 9 * 9
    ops = fda_ops((-2, 4, -3, 6), at)[None]
    _check_fda(ops, 3, 16, 9, table)
    with pytest.raises(ValueError, match="run to value 567 of the call's colour table, which "
                                         "holds 486"):
        _check_fda(ops, 4, 16, 9, table)
    with pytest.raises(ValueError, match="holds 0"):
        _check_fda(ops, 3, 16, 9, None)
    with pytest.raises(ValueError, match="window"):
        _check_fda(ops, 3, 4, 9, table)  # (columns -3 .. 2 past a 4-wide output's -2 .. 1)
    for at, value, why in (((0, 5), 2, "window"), ((0, 2), 3.5, "window"),
                           ((0, 1), np.nan, "window"), ((0, 2), -1, "window"),
                           ((0, 6), 1, "run to value"), ((0, 7), 0.5, "16-bit halves"),
                           ((0, 7), 65536, "16-bit halves"), ((0, 6), -1, "16-bit halves"),
                           ((0, 10), 2, "word 10")):
        bad = ops.copy()
        bad[(0, *at)] = value
        with pytest.raises(ValueError, match=why):
            _check_fda(bad, 3, 16, 9, table)
    two = np.concatenate([ops, ops])  # (every item checked: the bad one named)
    two[1, 0, 7] = 300
    with pytest.raises(ValueError, match=r"colour\[1\]'s operation 0: .* run to value 543"):
        _check_fda(two, 3, 16, 9, table)
    for value in (np.nan, -1.0, np.inf):
        t = table.copy()
        t[3 * 9 * 9 + 5] = value  # (the amplitudes ops reads)
        with pytest.raises(ValueError, match="finite and not negative"):
            _check_fda(ops, 3, 16, 9, t)
        t = table.copy()  # (values it does not read: another transform's, OverlayElements')
        t[5] = value
        _check_fda(ops, 3, 16, 9, t)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32:
    albumentations' on the same device's geometric result, windows of a few frequencies to
    the whole spectrum."""
    for geo, k, im, base in small_rotated_cases(PHOTOS[1][100:121, 200:223], small_queue):
        ref = REFS[k % 3][..., :im.shape[-1]].copy()
        if im.dtype == np.float32:
            ref = ref.astype(np.float32) / 255
        for beta in (0.5, 0.2):
            out = W.Compose([geo, W.FDA(beta_limit=(beta, beta), p=1)])(
                image=im, fda_metadata=[ref], seed=k, queue=small_queue)["image"]
            _close(out, _albu(base, ref, beta))


def test_the_gpu_work_split_forced_on_this_device(queue, monkeypatch):
    """The launches a GPU gets (rows of colour_fda_rows filling a work-group of 64, a row a
    group for colour_apply), forced on this device: albumentations' result still."""
    import warpkit
    from warpkit.engine import core

    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "kind", "GPU")
    monkeypatch.setattr(core, "PLANS", type(core.PLANS)())  # (no plan built for the CPU)
    for beta, (h, w) in ((0.05, (301, 256)), (0.5, (57, 91))):
        img = PHOTOS[0][:h, :w].copy()
        _close(_ours(img, REFS[1], beta, queue), _albu(img, REFS[1], beta))
    rows = [launch for plan in core.PLANS._plans.values() for launch in plan.launches
            if launch.variant.entry == "colour_fda_rows"]
    # (its rows a group: as many as 64 work-items of 8 column frequencies hold)
    assert rows and all(int(launch.args[5]) == 64 // (int(launch.args[-1]) // 8) for launch in rows)
