"""The area filter, OpenCV's INTER_AREA as OpenCV applies it: ``cv2.resize``'s area filter for
maps that keep or swap the axes (the mean of each output pixel's footprint where both sides
shrink or keep their size, two taps from the footprint's overlap where either grows), linear
elsewhere (``cv2.warpAffine`` and ``cv2.remap`` read INTER_AREA as INTER_LINEAR); and
``antialias="area"``, albumentations' ``area_for_downscale``: the area filter for the maps that
shrink, the interpolation for the others. Checked against OpenCV and albumentations themselves,
on every device and under Oclgrind."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

import warpkit
from warpkit import augment as W
from warpkit import geometry as g
from warpkit.warp import warp_batch

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTO = skimage.data.astronaut()[::2, ::3].copy()  # 256 x 171 RGB
CAT = np.ascontiguousarray(skimage.data.chelsea())  # 300 x 451 RGB


def _resize_map(w: int, h: int, W_: int, H_: int) -> np.ndarray:
    """The dst_from_src map of cv2.resize from (W_, H_) to (w, h) (pixel centres at integers)."""
    sx, sy = w / W_, h / H_
    return np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])


def _level(dtype) -> float:
    """One level of ``dtype`` (uint16: 4, a 16000th of the range, where OpenCV rounds its
    float weights; float images: a thousandth of their unit)."""
    return {np.dtype(np.uint8): 1.0, np.dtype(np.uint16): 4.0}.get(np.dtype(dtype), 1e-3)


def _close(got, want, dtype, share=1.0) -> None:
    """Within a level everywhere; where ``share`` < 1, exact but on that share of pixels
    (OpenCV's fixed-point weights round where float ones do not)."""
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert d.max() <= _level(dtype), d.max()
    if share < 1:
        assert (d > 0).mean() <= share, (d > 0).mean()


def _opencv_slips(n: int, m: int) -> np.ndarray:
    """The outputs (of ``m`` from ``n`` along an axis) whose two taps OpenCV's enlarging area
    filter takes elsewhere than the footprint says: it works out ``floor(d * scale)`` and the
    second tap's weight in double, from a rounded scale, and where ``d * scale`` is a whole
    pixel the rounding can fall below it (300 rows from 290: rows 29 and 30 both read row 28,
    none reads row 29). warpkit reads each footprint where it lies."""
    from fractions import Fraction
    inv = m / n
    slips = []
    for d in range(m):
        sx = int(np.floor(d * (1.0 / inv)))
        fx = float(np.float32((d + 1) - (sx + 1) * inv))  # (a float, as OpenCV keeps it)
        fx = 0.0 if fx <= 0 else fx - np.floor(fx)
        a = Fraction(d * n, m)  # the footprint's exact start and side
        s = Fraction(n, m)
        ex = int(a // 1)
        ef = max((a + s - (ex + 1)) / s, 0)
        want = {ex: 1 - ef, ex + 1: ef}
        got = {sx: 1 - fx, sx + 1: fx}
        if any(abs(float(want.get(k, 0)) - got.get(k, 0)) > 1e-4 for k in {*want, *got}):
            slips.append(d)
    return np.array(slips, int)


def _close_but_slips(got, want, n_hw, m_hw) -> None:
    """Within a level but on the rows and columns where OpenCV's double rounding moves a tap
    (:func:`_opencv_slips`; only where either axis grows: its two-tap mode), which are few."""
    (n_h, n_w), (m_h, m_w) = n_hw, m_hw
    keep = np.ones(got.shape[:2], bool)
    if m_h > n_h or m_w > n_w:
        keep[_opencv_slips(n_h, m_h)] = False
        keep[:, _opencv_slips(n_w, m_w)] = False
    assert keep.mean() > 0.95
    _close(got[keep], want[keep], got.dtype)


SIZES = [(65, 48), (44, 32), (20, 10), (171, 256), (57, 64),  # shrink (whole, cut, kept)
         (300, 400), (200, 300),  # enlarge
         (60, 400), (300, 100)]  # one axis each way


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_resizes_equal_opencv(size, dtype, queue):
    """warp_affine with cv2.resize's map and interpolation='area' is cv2.resize(INTER_AREA):
    a shrink within a level on rounding ties only (OpenCV multiplies a block's sum by a float
    reciprocal and rounds half to even: a whole 3 x 4 block's mean is a tie one time in 12), an
    enlargement within a level (OpenCV weighs its two taps in fixed point for 8-bit images)."""
    img = PHOTO if dtype == np.uint8 else (PHOTO.astype(np.uint16) * 257
                                           if dtype == np.uint16 else PHOTO / np.float32(255))
    w, h = size
    want = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    got = warpkit.warp_affine(img, _resize_map(w, h, 171, 256)[:2], (w, h),
                              interpolation="area", padding="border", queue=queue)
    if w <= 171 and h <= 256:
        _close(got, want, dtype, 0.05 if dtype == np.uint8 else 1.0)
    else:
        _close_but_slips(got, want, (256, 171), (h, w))


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_channels_and_gray(channels, queue):
    """1, 2 and 4 channels, and an (H, W) image, filter as the RGB one does."""
    img = np.ascontiguousarray(np.dstack([PHOTO, PHOTO[..., :1]])[..., :channels])
    for w, h in [(50, 70), (400, 90)]:
        want = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).reshape(h, w, channels)
        got = warpkit.warp_affine(img, _resize_map(w, h, 171, 256)[:2], (w, h),
                                  interpolation="area", padding="border", queue=queue)
        _close_but_slips(got.reshape(h, w, channels), want, (256, 171), (h, w))
    gray = np.ascontiguousarray(PHOTO[..., 0])
    got = warpkit.warp_affine(gray, _resize_map(50, 70, 171, 256)[:2], (50, 70),
                              interpolation="area", padding="border", queue=queue)
    assert got.shape == (70, 50)
    _close(got, cv2.resize(gray, (50, 70), interpolation=cv2.INTER_AREA), np.uint8)


def test_flips_and_quarter_turns_filter_their_footprints(queue):
    """A map that flips or turns a quarter keeps its footprints boxes: the filter gives the
    flipped or turned cv2.resize; a map that turns otherwise samples linearly, as OpenCV's
    warpAffine does with INTER_AREA."""
    w, h = 60, 80
    flip = g.scale(-1, 1, ((w - 1) / 2, 0)) @ _resize_map(w, h, 171, 256)
    want = cv2.resize(PHOTO, (w, h), interpolation=cv2.INTER_AREA)
    got = warpkit.warp_affine(PHOTO, flip[:2], (w, h), interpolation="area", padding="border",
                              queue=queue)
    _close(got, want[:, ::-1], np.uint8, 0.05)
    turn = np.array([[0, 1, 0], [-1, 0, h - 1], [0, 0, 1.0]]) @ _resize_map(h, w, 171, 256)
    got = warpkit.warp_affine(PHOTO, turn[:2], (w, h), interpolation="area", padding="border",
                              queue=queue)
    _close(got, np.rot90(cv2.resize(PHOTO, (h, w), interpolation=cv2.INTER_AREA)), np.uint8,
           0.05)
    rot = g.rotation(20, (85, 128)) @ g.scale(0.4, center=(85, 128))
    area = warpkit.warp_affine(PHOTO, rot[:2], interpolation="area", queue=queue)
    linear = warpkit.warp_affine(PHOTO, rot[:2], interpolation="linear", queue=queue)
    np.testing.assert_array_equal(area, linear)
    opencv = cv2.warpAffine(PHOTO, rot[:2].astype(np.float32), (171, 256), flags=cv2.INTER_AREA)
    _close(area, opencv, np.uint8)


def test_small_case_on_every_implementation(small_queue):
    """A shrink, an enlargement, a flip and a quarter turn of a small image in every padding,
    on each device and under Oclgrind (every access checked), reaching past each edge."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (9, 13, 3), np.uint8)
    fimg = rng.random((9, 13), np.float32)
    maps = [g.scale(0.45, 0.3), g.scale(2.5, 1.7, (6, 4)), g.scale(-0.6, 0.7, (6, 0)),
            np.array([[0, 0.8, 1], [-1.4, 0, 12], [0, 0, 1.0]])]
    for m in maps:
        for pad in ("constant", "border", "reflection", "reflect_101", "constant_edge"):
            for x in (img, fimg):
                got = warpkit.warp_affine(x, m[:2], (11, 7), interpolation="area", padding=pad,
                                          fill=9, queue=small_queue)
                want = _host_area(x, np.linalg.inv(m), (11, 7), pad, 9)
                np.testing.assert_allclose(got.astype(np.float64), want,
                                           atol=0.5 + 1e-3 if x.dtype == np.uint8 else 1e-5)


def _host_area(img, inv, size, pad, fill):
    """The filter written plainly: each output pixel's footprint under ``inv``'s axes, its
    pixels weighed by overlap (or two taps where a side is under a pixel), taps outside the
    image by the padding (numpy.pad's modes), in float64."""
    x = img.astype(np.float64).reshape(img.shape[0], img.shape[1], -1)
    H, W_ = x.shape[:2]
    w, h = size
    sw, sh = abs(inv[0, 0]) + abs(inv[0, 1]), abs(inv[1, 0]) + abs(inv[1, 1])
    box = sw >= 1 and sh >= 1

    def taps(a, s):
        a = round(a) if abs(a - round(a)) < 1e-6 else a
        i0 = int(np.floor(a))
        if not box:
            f = max((a + s - (i0 + 1)) / s, 0.0)
            return [(i0, 1 - f), (i0 + 1, f)]
        return [(i, (min(i + 1, a + s) - max(i, a)) / s)
                for i in range(i0, int(np.floor(a + s)) + 1) if min(i + 1, a + s) > max(i, a)]

    def read(i, j):
        inside = 0 <= i < W_ and 0 <= j < H
        if inside:
            return x[j, i]
        if pad == "constant":
            return np.full(x.shape[2], float(fill))
        mode = {"border": "edge", "constant_edge": "edge", "reflection": "symmetric",
                "reflect_101": "reflect"}[pad]
        big = np.pad(x, ((40, 40), (40, 40), (0, 0)), mode=mode)
        return big[j + 40, i + 40]

    out = np.empty((h, w, x.shape[2]))
    for yo in range(h):
        for xo in range(w):
            cx = inv[0, 0] * xo + inv[0, 1] * yo + inv[0, 2]
            cy = inv[1, 0] * xo + inv[1, 1] * yo + inv[1, 2]
            if pad == "constant_edge" and not (-0.5 <= cx <= W_ - 0.5 and -0.5 <= cy <= H - 0.5):
                out[yo, xo] = fill
                continue
            v = 0.0
            for j, wy in taps(cy - sh / 2 + 0.5, sh):
                for i, wx in taps(cx - sw / 2 + 0.5, sw):
                    v = v + wy * wx * read(i, j)
            out[yo, xo] = v
    return out.reshape((h, w) + img.shape[2:])


def test_a_ragged_batch_filters_each_image_as_alone(queue):
    """warp_batch of photos of different sizes (read in place or packed, a region each) gives
    each image's own result; antialias='area' filters those that shrink and samples the
    others linearly."""
    imgs = [PHOTO, CAT, CAT[50:100, 30:90].copy()]
    mats = [_resize_map(96, 64, i.shape[1], i.shape[0]) for i in imgs]
    got = warp_batch(imgs, mats, (96, 64), interpolation="area", padding="border",
                             queue=queue)
    for k, i in enumerate(imgs):
        alone = warpkit.warp_affine(i, mats[k][:2], (96, 64), interpolation="area",
                                    padding="border", queue=queue)
        np.testing.assert_array_equal(got[k], alone)
        _close_but_slips(got[k], cv2.resize(i, (96, 64), interpolation=cv2.INTER_AREA),
                         i.shape[:2], (64, 96))
    got = warp_batch(imgs, mats, (96, 64), antialias="area", padding="border",
                             queue=queue)
    for k, i in enumerate(imgs):
        want = "area" if k < 2 else "linear"  # (the last one grows both ways)
        alone = warpkit.warp_affine(i, mats[k][:2], (96, 64), interpolation=want,
                                    padding="border", queue=queue)
        np.testing.assert_array_equal(got[k], alone)


def test_crops_of_boxes_filter_each_box(queue):
    """crop_rois with interpolation='area': each patch is cv2.resize(INTER_AREA) of its box."""
    boxes = [[10, 20, 110, 220], [0, 0, 451, 300], [300, 100, 364, 164]]
    got = warpkit.crop_rois(CAT, boxes, (32, 40), interpolation="area", queue=queue)
    for k, (x1, y1, x2, y2) in enumerate(boxes):
        want = cv2.resize(CAT[y1:y2, x1:x2], (32, 40), interpolation=cv2.INTER_AREA)
        _close(got[k], want, np.uint8, 0.1)  # (a whole 2-px cell along x: ties are common)


def _their(aug, img, **targets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Compose([aug] if not isinstance(aug, list) else aug)(image=img, **targets)


@pytest.mark.parametrize("aug, grows", [
    (A.Resize(200, 150, interpolation=cv2.INTER_AREA), None),
    (A.Resize(700, 300, interpolation=cv2.INTER_AREA), (700, 300)),
    (A.LongestMaxSize(320, interpolation=cv2.INTER_AREA), None),
    (A.SmallestMaxSize(256, interpolation=cv2.INTER_AREA), None),
    (A.LongestMaxSize(320, area_for_downscale="image"), None),
    (A.LongestMaxSize(900, area_for_downscale="image"), None),  # (linear: it grows)
    (A.Resize(150, 640, area_for_downscale="image"), (150, 640)),
    ([A.LongestMaxSize(320, interpolation=cv2.INTER_AREA),
      A.PadIfNeeded(320, 320, border_mode=cv2.BORDER_CONSTANT, fill=114), A.HorizontalFlip(p=1)],
     None),
    ([A.Resize(128, 96, interpolation=cv2.INTER_AREA, mask_interpolation=cv2.INTER_AREA),
      A.Transpose(p=1)], None),
], ids=["Resize-down", "Resize-mixed", "LongestMaxSize", "SmallestMaxSize", "afd-down",
        "afd-up", "afd-either", "letterbox-flip", "masks-transposed"])
def test_ported_resizes_equal_albumentations(aug, grows, queue):
    """albumentations' resizes with INTER_AREA or area_for_downscale='image', ported: the same
    image within a level (where a resize grows along an axis, but on OpenCV's slips), masks
    included (averaged by area where asked, nearest otherwise)."""
    mask = (CAT[..., 0] > 120).astype(np.uint8) * 200
    want = _their(aug, CAT, mask=mask)
    pipe = W.from_albumentations(A.Compose(aug if isinstance(aug, list) else [aug]))
    got = pipe(image=CAT, mask=mask, seed=0, queue=queue)
    assert got["image"].shape == want["image"].shape
    if grows:
        _close_but_slips(got["image"], want["image"], CAT.shape[:2], grows)
    else:
        _close(got["image"], want["image"], np.uint8)
    if pipe.mask_interpolation == "area":
        _close(got["mask"], want["mask"], np.uint8)
    else:  # (nearest: warpkit reads each pixel's centre, albumentations floors: pixels along
        # the mask's edges differ, the guide's "nearest masks through a resize")
        assert (got["mask"] != want["mask"]).mean() < 0.08


@pytest.mark.parametrize("aug, shrinks", [
    (A.Resize(120, 200, area_for_downscale="image_mask"), True),
    (A.LongestMaxSize(600, area_for_downscale="image_mask"), False),
    (A.SmallestMaxSize(150, area_for_downscale="image_mask"), True),
    (A.RandomResizedCrop((200, 200), scale=(0.05, 0.06), area_for_downscale="image_mask"),
     False),
    (A.RandomResizedCrop((64, 64), scale=(0.5, 0.6), area_for_downscale="image_mask"), True),
], ids=["Resize", "LongestMaxSize-up", "SmallestMaxSize", "RRC-up", "RRC-down"])
def test_area_for_downscale_image_mask(aug, shrinks, queue):
    """area_for_downscale='image_mask': the masks too are filtered by area where the map
    shrinks (albumentations' resizes), or on every sample (its crops that resize, whatever
    their scale); the image by area where it shrinks. albumentations' own result for the
    recorded window (its RandomResizedCrop's through its crop and resize functions)."""
    mask = ((CAT[..., 0] > 120) * 200 + (CAT[..., 1] > 90) * 55).astype(np.uint8)
    pipe = W.from_albumentations(A.Compose([aug]))
    out = pipe(image=CAT, mask=mask, seed=1, queue=queue)
    if isinstance(aug, A.RandomResizedCrop):
        x, y, w, h = out["params"]["steps"][0]["box"]
        size = tuple(aug.size)[::-1]
        img_i = cv2.INTER_AREA if shrinks else cv2.INTER_LINEAR
        want = {"image": cv2.resize(CAT[y:y + h, x:x + w], size, interpolation=img_i),
                "mask": cv2.resize(mask[y:y + h, x:x + w], size, interpolation=cv2.INTER_AREA)}
        assert pipe.mask_interpolation == "area"
    else:
        want = _their(aug, CAT, mask=mask)
        assert pipe.mask_antialias == "area"
    assert pipe.antialias == "area"
    crop = isinstance(aug, A.RandomResizedCrop)
    for key in ("image", "mask"):
        got, theirs = out[key], want[key]
        assert got.shape == theirs.shape
        if crop and not shrinks:  # an enlarged crop: cv2.resize repeats the crop's edge
            # pixels where warpkit reads the image beyond them (the guide's RandomSizedCrop
            # row): its outer 3 pixels apart
            keep = np.zeros(got.shape[:2], bool)
            keep[3:-3, 3:-3] = True
            for d in _opencv_slips(h, got.shape[0]):
                keep[d] = False
            for d in _opencv_slips(w, got.shape[1]):
                keep[:, d] = False
            got, theirs = got[keep], theirs[keep]
            if key == "mask":  # (by area on every sample)
                _close(got, theirs, np.uint8)
                continue
        if shrinks:
            _close_but_slips(got, theirs, (h, w) if crop else CAT.shape[:2], got.shape[:2])
        else:  # (linear where it grows: within a level; masks nearest as warpkit reads them)
            d = np.abs(got.astype(int) - theirs.astype(int))
            assert d.max() <= 1 if key == "image" else (d > 0).mean() < 0.08


def test_crops_that_resize_filter_the_recorded_window(queue):
    """RandomResizedCrop, RandomScale and CropAndPad with INTER_AREA: cv2.resize(INTER_AREA)
    of the recorded window (a crop resized back, a scale truncated as albumentations does)."""
    pipe = W.Compose([W.RandomResizedCrop(96, scale=(0.3, 0.6), interpolation=cv2.INTER_AREA)])
    for seed in range(4):
        out = pipe(image=CAT, seed=seed, queue=queue)
        x, y, w, h = out["params"]["steps"][0]["box"]
        want = cv2.resize(CAT[y:y + h, x:x + w], (96, 96), interpolation=cv2.INTER_AREA)
        _close(out["image"], want, np.uint8)
    pipe = W.Compose([W.RandomScale((-0.6, -0.2), interpolation=cv2.INTER_AREA, p=1)])
    out = pipe(image=CAT, seed=1, queue=queue)
    s = out["params"]["steps"][0]["scale"]
    want = cv2.resize(CAT, (int(451 * s), int(300 * s)), interpolation=cv2.INTER_AREA)
    _close(out["image"], want, np.uint8)
    aug = A.CropAndPad(px=(-10, 20, 0, -5), interpolation=cv2.INTER_AREA, keep_size=True)
    _close_but_slips(W.from_albumentations(A.Compose([aug]))(image=CAT, seed=0,
                                                            queue=queue)["image"],
                     _their(aug, CAT)["image"], (290, 466), (300, 451))


def test_the_pass_around_the_filter(queue):
    """The area filter in the same pass as the rest: the model's float CHW input is the uint8
    result's levels within half a level (the store rounds one, not the other), a colour step
    applies to the filtered value, a batch lands in out=, and uint16 (the general kernel)
    normalised is cv2.resize's within 2e-5."""
    resize = W.Resize(120, 200, interpolation=cv2.INTER_AREA)
    base = W.Compose([resize])(image=CAT, seed=0, queue=queue)["image"]
    norm = W.Compose([resize], output_dtype="float32", mean=0, std=1, layout="CHW")(
        image=CAT, seed=0, queue=queue)["image"]
    assert np.abs(norm.transpose(1, 2, 0) - base / np.float32(255)).max() <= 0.5 / 255 + 1e-6
    bright = W.Compose([resize, W.ColorJitter(brightness=(1.3, 1.3), contrast=0, saturation=0,
                                              hue=0, p=1)])(image=CAT, seed=0, queue=queue)
    want = np.clip(np.rint(base.astype(np.float32) * 1.3), 0, 255)
    assert np.abs(bright["image"].astype(int) - want).max() <= 1
    out = np.empty((4, 120, 200, 3), np.uint8)
    got = W.Compose([resize])(image=np.stack([CAT] * 4), seed=0, out=out, queue=queue)
    assert np.shares_memory(got["image"], out)
    np.testing.assert_array_equal(out[2], base)
    u16 = CAT.astype(np.uint16) * 257
    n16 = W.Compose([resize], output_dtype="float32", mean=0, std=1)(image=u16, seed=0,
                                                                     queue=queue)["image"]
    assert np.abs(n16 - cv2.resize(u16, (200, 120), interpolation=cv2.INTER_AREA) / 65535
                  ).max() < 2e-5


def test_warps_read_opencv_area_code_as_linear(queue):
    """albumentations warps with cv2.warpAffine, which reads INTER_AREA as INTER_LINEAR: an
    Affine given code 3 samples linearly (the same as albumentations' own), a warpkit
    pipeline given the name 'area' filters where its map keeps the axes."""
    aug = A.Affine(scale=0.5, interpolation=cv2.INTER_AREA, p=1)
    pipe = W.from_albumentations(A.Compose([aug]))
    assert pipe.interpolation == "linear"
    _close(pipe(image=CAT, seed=0, queue=queue)["image"], _their(aug, CAT)["image"], np.uint8)
    assert W.Affine(interpolation=cv2.INTER_AREA).interpolation == "linear"
    assert W.Affine(interpolation="area").interpolation == "area"


def test_settings_round_trip_and_replay(queue):
    """to_dict / from_dict keep the area filter and area_for_downscale; a replay equals."""
    pipe = W.Compose([W.LongestMaxSize(200, area_for_downscale="image"), W.HorizontalFlip()])
    assert pipe.antialias == "area"
    again = W.Compose.from_dict(pipe.to_dict())
    assert again.antialias == "area" and again.transforms[0].area_for_downscale == "image"
    out = pipe(image=CAT, seed=2, queue=queue)
    np.testing.assert_array_equal(again(image=CAT, seed=2, queue=queue)["image"], out["image"])
    np.testing.assert_array_equal(pipe.replay(out["params"], image=CAT, queue=queue)["image"],
                                  out["image"])
    pipe = W.Compose([W.Resize(64, 64, interpolation=cv2.INTER_AREA)])
    assert W.Compose.from_dict(pipe.to_dict()).interpolation == "area"


def test_refusals():
    """What the filter cannot do is refused by name, before any launch."""
    with pytest.raises(ValueError, match=r"footprints are 1e\+05 x 1 source pixels"):
        warpkit.warp_affine(np.zeros((8, 8), np.uint8), g.scale(1e-5, 1)[:2], (300, 8),
                            interpolation="area")
    with pytest.raises(ValueError, match="antialias must be True, False or 'area'"):
        warpkit.warp_affine(np.zeros((8, 8), np.uint8), g.identity()[:2], antialias="box")
    with pytest.raises(ValueError, match="Mosaic resamples its cells by stages"):
        W.Mosaic(interpolation=cv2.INTER_AREA)
    with pytest.raises(ValueError, match="Mosaic pipeline resamples its cells"):
        W.Compose([W.Mosaic(target_size=(64, 64)),
                   W.LongestMaxSize(32, area_for_downscale="image_mask")])(
            image=np.zeros((64, 64, 3), np.uint8), seed=0)
    with pytest.raises(ValueError, match="Affine takes no area_for_downscale"):
        W.Affine().given_resampling(area_for_downscale="image")
    with pytest.raises(ValueError, match="sets interpolation='linear' but LongestMaxSize sets "
                                         "interpolation='area': a warpkit pipeline of "
                                         "passes='one' resamples once"):
        W.Compose([W.LongestMaxSize(64, interpolation=cv2.INTER_AREA), W.Affine(rotate=10, p=1)],
                  passes="one")
    # (the default takes them in two passes)
    assert W.Compose([W.LongestMaxSize(64, interpolation=cv2.INTER_AREA),
                      W.Affine(rotate=10, p=1)]).pass_starts == (1,)
    # (a port resamples again where albumentations' settings change: tests/test_passes.py)
    assert W.from_albumentations(A.Compose([A.LongestMaxSize(64, interpolation=cv2.INTER_AREA),
                                            A.Affine(rotate=10, p=1)])).pass_starts == (1,)
