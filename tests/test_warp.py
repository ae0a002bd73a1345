"""warp_affine / warp_perspective against OpenCV and Pillow, on arrays, batches and Pillow images."""

from __future__ import annotations

import itertools
from contextlib import nullcontext

import cv2
import numpy as np
import pyopencl.array as cla
import pytest
from PIL import Image

import warpkit
from warpkit import geometry as g

from helpers import foreign_byte_order

INTERP = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "cubic": cv2.INTER_CUBIC}
BORDER = {"constant": cv2.BORDER_CONSTANT, "border": cv2.BORDER_REPLICATE,
          "reflection": cv2.BORDER_REFLECT, "reflect_101": cv2.BORDER_REFLECT_101}
H, W = 37, 53
CENTER = ((W - 1) / 2, (H - 1) / 2)
MAP = g.compose(g.rotation(17, CENTER), g.scale(1.15, 0.9, CENTER), g.translation(3.3, -2.1))


def _cv2(img, m, interp, pad, fill, size=(W, H), perspective=False):
    M = g.to_cv2(m)
    f = cv2.warpPerspective if perspective or M.shape == (3, 3) else cv2.warpAffine
    return f(img, M, size, flags=INTERP[interp], borderMode=BORDER[pad], borderValue=fill)


def _close(a, b, interp, dtype, what="", m=None):
    """uint8/uint16 within 1 level (OpenCV rounds its coordinates to 1/32 pixel); float32 within
    the error of those rounded coordinates; nearest only where OpenCV's rounded coordinate falls on
    the other side of a half-pixel tie."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if interp == "nearest":
        bad = np.argwhere((a64 != b64).reshape(a.shape[0], a.shape[1], -1).any(-1))
        assert len(bad) < 0.01 * a.shape[0] * a.shape[1], what
        if m is not None and len(bad):
            src = g.transform_points(g.invert(m), bad[:, ::-1].astype(np.float64))
            near_tie = (np.abs(src - np.floor(src) - 0.5) < 1 / 32).any(axis=1)
            assert near_tie.all(), f"{what}: nearest differs away from a tie at {bad[~near_tie][:3]}"
        return
    if np.dtype(dtype).kind == "u":
        assert np.abs(a64 - b64).max() <= 1, what
    else:
        scale = np.abs(b64).max()
        assert np.abs(a64 - b64).max() <= 0.05 * scale, what


@pytest.mark.parametrize("interp,pad", list(itertools.product(INTERP, BORDER)))
@pytest.mark.parametrize("dtype,channels", [(np.uint8, 3), (np.uint8, 1), (np.uint16, 4), (np.float32, 2)])
def test_affine_matches_opencv(interp, pad, dtype, channels, queue):
    rng = np.random.default_rng([len(interp), len(pad), channels])
    hi = 255 if dtype == np.uint8 else 60000
    shape = (H, W, channels) if channels > 1 else (H, W)
    img = rng.integers(0, hi, shape).astype(dtype)
    fill = tuple(float(v) for v in rng.integers(0, hi, channels))
    out = warpkit.warp_affine(img, MAP, interpolation=interp, padding=pad, fill=fill, queue=queue)
    assert out.shape == img.shape and out.dtype == img.dtype
    ref = _cv2(img, MAP, interp, pad, fill if channels > 1 else fill[0])
    if channels == 2 and ref.ndim == 3 and ref.shape[2] != 2:
        pytest.fail("cv2 changed the channel count")
    _close(out, ref, interp, dtype, f"{interp} {pad}", MAP)


@pytest.mark.parametrize("interp", list(INTERP))
@pytest.mark.parametrize("dtype,channels", [(np.uint8, 3), (np.uint8, 1), (np.uint16, 4),
                                            (np.float32, 2)])
@pytest.mark.parametrize("size", [(131, 77), (29, 17)])
def test_constant_edge_is_a_resize_then_a_constant_pad(interp, dtype, channels, size, queue):
    """padding="constant_edge": OpenCV's resize (which repeats the edge pixels) and then a
    constant border, in one warp: enlarged and shrunk, with an offset, every path (uint8 and
    float32 the 8-wide kernel, uint16 the general one)."""
    rng = np.random.default_rng([channels, len(interp), size[0]])
    hi = 255 if dtype == np.uint8 else 60000
    img = rng.integers(0, hi, (H, W, channels) if channels > 1 else (H, W)).astype(dtype)
    fill = tuple(float(v) for v in rng.integers(0, hi, channels))
    top, left, bottom, right = 7, 11, 5, 9
    sx, sy = size[0] / W, size[1] / H
    m = g.compose(g.from_cv2(np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5]])),
                  g.translation(left, top))  # (the resize first)
    out = warpkit.warp_affine(img, m, size=(size[0] + left + right, size[1] + top + bottom),
                              interpolation=interp, padding="constant_edge", fill=fill,
                              queue=queue)
    resized = cv2.resize(img, size, interpolation={"nearest": cv2.INTER_NEAREST_EXACT,
                                                   "linear": cv2.INTER_LINEAR,
                                                   "cubic": cv2.INTER_CUBIC}[interp])
    ref = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT,
                             value=fill if channels > 1 else fill[0])
    ref = ref.reshape(out.shape)
    if interp == "nearest":
        np.testing.assert_array_equal(out, ref)
    else:
        _close(out, ref, interp, dtype, f"{interp} {size}")
    # the padding is the fill exactly; constant padding blends it into the enlarged rim
    np.testing.assert_array_equal(out[:top].reshape(-1, channels),
                                  np.broadcast_to(np.asarray(fill, dtype), (top * out.shape[1],
                                                                            channels)))
    if interp != "nearest" and size[0] > W:
        blended = warpkit.warp_affine(img, m, size=out.shape[1::-1], interpolation=interp,
                                      padding="constant", fill=fill, queue=queue)
        assert not np.array_equal(blended, out)


@pytest.mark.parametrize("interp", list(INTERP))
def test_constant_edge_everywhere_is_border_inside_fill_outside(interp, small_queue):
    """Under any map, constant_edge gives border padding's result where the position is inside
    the image's pixels and the fill elsewhere (a rotation; every path, supersampling too, and
    no invalid access on Oclgrind)."""
    img = (np.arange(9 * 13 * 3) % 251).astype(np.uint8).reshape(9, 13, 3)
    m = g.compose(g.rotation(33, (6, 4)), g.scale(1.7, center=(6, 4)))
    yx = np.indices((15, 21)).reshape(2, -1).T.astype(np.float64)
    src = g.transform_points(g.invert(m), yx[:, ::-1]).reshape(15, 21, 2)
    lo, hi = -0.5, np.array([13, 9]) - 0.5
    inside = ((src >= lo) & (src <= hi)).all(-1)
    clear = ((np.abs(src - lo) > 1e-3) & (np.abs(src - hi) > 1e-3)).all(-1)  # no float ties
    for dt in (np.uint8, np.float32, np.uint16):
        x = img.astype(dt)
        for aa in (False, True):
            kw = dict(size=(21, 15), interpolation=interp, antialias=aa, queue=small_queue)
            got = warpkit.warp_affine(x, m, padding="constant_edge", fill=(1, 2, 3), **kw)
            border = warpkit.warp_affine(x, m, padding="border", **kw)
            if not aa:
                np.testing.assert_array_equal(got[inside & clear], border[inside & clear])
                np.testing.assert_array_equal(got[~inside & clear],
                                              np.broadcast_to(np.array([1, 2, 3], dt),
                                                              ((~inside & clear).sum(), 3)))
            else:  # supersampled: each sub-sample is tested, so only the pixels far outside
                # are wholly the fill
                far = ~inside & clear & (np.abs(src - np.clip(src, lo, hi)).max(-1) > 1.5)
                np.testing.assert_array_equal(got[far], np.broadcast_to(np.array([1, 2, 3], dt),
                                                                        (far.sum(), 3)))


@pytest.mark.parametrize("interp", list(INTERP))
def test_constant_edge_on_the_pixels_outer_edges(interp, small_queue):
    """Positions exactly on the pixels' outer edges (-0.5, W - 0.5 and H - 0.5: a half-pixel
    shift of an even-sized image, where nearest rounds W - 0.5 up to the tap W) lie on the
    pixels: constant_edge gives border's result there, whole rows and columns of them, in each
    kernel (uint8 and float32: the 8-wide one; uint16: the general one), the fill past them."""
    img = (np.arange(10 * 14 * 3) % 251).astype(np.uint8).reshape(10, 14, 3)
    m = g.translation(0.5, 0.5)  # output (x, y) reads (x - 0.5, y - 0.5)
    for dt in (np.uint8, np.float32, np.uint16):
        x = img.astype(dt)
        kw = dict(size=(17, 13), interpolation=interp, queue=small_queue)
        got = warpkit.warp_affine(x, m, padding="constant_edge", fill=(1, 2, 3), **kw)
        border = warpkit.warp_affine(x, m, padding="border", **kw)
        # rows 0-10 read y -0.5 .. 9.5 and columns 0-14 read x -0.5 .. 13.5: on the pixels
        np.testing.assert_array_equal(got[:11, :15], border[:11, :15], err_msg=str(dt))
        assert (got[11:] == np.array([1, 2, 3], dt)).all() and \
            (got[:, 15:] == np.array([1, 2, 3], dt)).all(), dt


@pytest.mark.parametrize("interp", list(INTERP))
def test_perspective_matches_opencv(interp, queue):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    hm = g.perspective_from_points([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]],
                                   [[3, 2], [W - 5, 1], [1, H - 4], [W - 2, H - 1]])
    out = warpkit.warp_perspective(img, hm, size=(W + 4, H + 2), interpolation=interp, queue=queue)
    ref = _cv2(img, hm, interp, "constant", 0, size=(W + 4, H + 2), perspective=True)
    _close(out, ref, interp, np.uint8, "perspective", hm)


def test_batch_one_matrix_each(queue):
    rng = np.random.default_rng(4)
    imgs = rng.integers(0, 256, (5, H, W, 3), dtype=np.uint8)
    mats = np.stack([g.rotation(a, CENTER) for a in (0, 10, -20, 45, 90)])
    out = warpkit.warp_affine(imgs, mats, queue=queue)
    assert out.shape == imgs.shape
    for i in range(5):
        np.testing.assert_array_equal(out[i], warpkit.warp_affine(imgs[i], mats[i], queue=queue))
        _close(out[i], _cv2(imgs[i], mats[i], "linear", "constant", 0), "linear", np.uint8)


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "I;16", "I", "F", "P", "1"])
def test_pillow_modes(mode, queue):
    rng = np.random.default_rng(5)
    base = Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8), "RGB")
    img = base.convert(mode)
    out = warpkit.warp_affine(img, g.translation(2, 3), interpolation="nearest", queue=queue)
    assert isinstance(out, Image.Image) and out.size == img.size
    expected_mode = {"P": "RGB", "1": "L"}.get(mode, mode)
    assert out.mode == expected_mode
    a = np.asarray(out)
    ref = np.asarray(img.convert(expected_mode) if expected_mode != mode else img)
    np.testing.assert_array_equal(a[3:, 2:], ref[:-3, :-2])
    assert (a[:3] == 0).all() and (a[:, :2] == 0).all()


@pytest.mark.parametrize("mode,order", [("I;16B", ">u2"), ("I;16L", "<u2"), ("I;16N", "=u2")])
def test_pillow_16_bit_byte_orders(mode, order, queue):
    """16-bit images with an explicit byte order (big-endian TIFFs open as I;16B) keep their mode
    and values."""
    a = np.random.default_rng(15).integers(0, 65536, (H, W), dtype=np.uint16)
    img = Image.frombuffer(mode, (W, H), a.astype(order).tobytes(), "raw", mode, 0, 1)
    out = warpkit.warp_affine(img, g.translation(2, 3), interpolation="nearest", queue=queue)
    assert out.mode == mode and out.size == img.size
    b = np.asarray(out).astype(np.uint16)
    np.testing.assert_array_equal(b[3:, 2:], a[:-3, :-2])
    assert (b[:3] == 0).all() and (b[:, :2] == 0).all()


def test_pillow_transform_agrees(queue):
    """Pillow's own affine transform, from the converter, lands on the same pixels."""
    img = Image.fromarray(np.random.default_rng(6).integers(0, 256, (H, W), dtype=np.uint8))
    m = g.compose(g.rotation(90, (26, 18)), g.translation(1, 2))
    pil = img.transform(img.size, Image.Transform.AFFINE, g.to_pillow(m), Image.Resampling.NEAREST)
    np.testing.assert_array_equal(np.asarray(warpkit.warp_affine(img, m, interpolation="nearest",
                                                                 queue=queue)), np.asarray(pil))


def test_expand_fits_the_whole_image(queue):
    img = np.full((20, 40), 200, np.uint8)
    out = warpkit.warp_affine(img, g.rotation(90, (19.5, 9.5)), expand=True, queue=queue)
    assert out.shape == (40, 20)
    assert (out == 200).all()


def test_supersampling_is_the_largest_local_scale():
    """_supersampling: samples per axis = ceil of the largest singular value of the map's
    Jacobian over the output's corners and centre (closed form; checked against numpy's SVD),
    capped at 8; one per map of a batch."""
    from warpkit.engine.coords import supersampling as _supersampling

    def by_svd(inv, wo, ho):
        worst = 1.0
        for m in inv:
            for x, y in ((0, 0), (wo - 1, 0), (0, ho - 1), (wo - 1, ho - 1), ((wo - 1) / 2, (ho - 1) / 2)):
                d = m[2, 0] * x + m[2, 1] * y + m[2, 2]
                u, v = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / d, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / d
                j = np.array([[(m[0, 0] - u * m[2, 0]) / d, (m[0, 1] - u * m[2, 1]) / d],
                              [(m[1, 0] - v * m[2, 0]) / d, (m[1, 1] - v * m[2, 1]) / d]])
                worst = max(worst, np.linalg.svd(j, compute_uv=False)[0])
        return int(min(8, np.ceil(worst - 1e-9)))

    c = (49.5, 29.5)
    persp = g.perspective_from_points([[0, 0], [99, 0], [0, 59], [99, 59]],
                                      [[10, 5], [80, 0], [0, 59], [99, 40]])
    cases = [g.scale(0.3, center=c), g.compose(g.rotation(40, c), g.scale(0.45, 0.2, center=c)),
             g.scale(2.0), persp, g.scale(0.05)]
    for m in cases:
        inv = g.invert(m)[None]
        assert _supersampling(inv, 100, 60) == [by_svd(inv, 100, 60)]
    assert _supersampling(g.invert(g.scale(0.3, center=c))[None], 100, 60) == [4]
    assert _supersampling(g.invert(g.scale(0.05))[None], 100, 60) == [8]  # capped
    # one per map of a batch, so that an image is sampled the same alone or in any batch
    batch = np.stack([g.invert(m) for m in cases[:3]])
    assert _supersampling(batch, 100, 60) == [by_svd(m[None], 100, 60) for m in batch] == [4, 5, 1]


def test_antialias_averages_when_shrinking(queue):
    """A 1-pixel checkerboard shrunk 4x is mid-grey with antialiasing, and aliased without."""
    board = ((np.indices((64, 64)).sum(0) % 2) * 255).astype(np.uint8)
    m = g.scale(0.25, center=(-2 / 3, -2 / 3))  # output pixel centres sample pixels 4x + 2
    plain = warpkit.warp_affine(board, m, size=(16, 16), queue=queue)
    smooth = warpkit.warp_affine(board, m, size=(16, 16), antialias=True, queue=queue)
    inner = smooth[:-1, :-1]  # the last row and column also sample past the image's edge
    assert abs(float(inner.mean()) - 127.5) < 1 and inner.std() < 1
    assert (plain == 0).all()  # every plain sample hits a black square


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("interp", list(INTERP))
@pytest.mark.parametrize("pad", [*BORDER, "constant_edge"])
def test_fast_paths_equal_the_general_path(channels, interp, pad, queue):
    """Blocks of 8 pixels whose taps are all inside the image, or (constant padding) all outside,
    take shortcuts in the 8-wide kernel; a source whose pixels are not packed (a channel view of a
    wider device array, used in place) takes the general path for every block. Both give the
    same bytes, widths not a multiple of 8 and a perspective map included."""
    rng = np.random.default_rng([channels, len(interp), len(pad)])
    wide = rng.integers(0, 256, (61, 83, channels + 1), dtype=np.uint8)
    general_src = cla.to_device(queue, wide)[..., :channels]
    packed_src = np.ascontiguousarray(wide[..., :channels])
    c = (41, 30)
    n_far = 0
    for m in (g.compose(g.rotation(23, c), g.scale(0.7, center=c)),  # fill all around
              g.compose(g.rotation(-9, c), g.scale(1.6, center=c)),  # mostly interior
              g.perspective_from_points([[0, 0], [82, 0], [0, 60], [82, 60]],
                                        [[5, 3], [70, 9], [2, 55], [80, 58]])):
        kw = dict(size=(77, 59), interpolation=interp, padding=pad, queue=queue,
                  fill=tuple(range(9, 9 + 40 * channels, 40)))
        fast = warpkit.warp_perspective(packed_src, m, **kw)
        ref = warpkit.warp_perspective(general_src, m, **kw).get()
        np.testing.assert_array_equal(fast, ref)
        if pad == "constant":  # pixels whose taps all fall outside are exactly the fill
            yx = np.indices((59, 77)).reshape(2, -1).T.astype(np.float64)
            src = g.transform_points(g.invert(m), yx[:, ::-1])
            far = ((src < -2.5) | (src > np.array([83, 61]) + 1.5)).any(1).reshape(59, 77)
            n_far += far.sum()
            np.testing.assert_array_equal(fast.reshape(59, 77, channels)[far],
                                          np.broadcast_to(kw["fill"], (far.sum(), channels)))
    assert pad != "constant" or n_far > 1000


@pytest.mark.parametrize("degrees,w,shape", [(0, 600, 6), (3, 600, 3), (15, 600, 6), (3, 203, 2),
                                             (0, 203, 5), (0, 27, 2)])
def test_every_work_group_shape_covers_the_output(degrees, w, shape, queue):
    """The 8-wide kernel's work-groups are rows of 512 pixels, 64 x 8 or 32 x 16 tiles, or a
    narrow output's whole rows, chosen from the map (warp._schedule); whichever it is, every
    output pixel is written and equals OpenCV's (widths not a multiple of 8 or of the tile
    included)."""
    from warpkit.engine.coords import schedule as _schedule

    img = np.random.default_rng(degrees).integers(0, 256, (50, w, 3), dtype=np.uint8)
    c = ((w - 1) / 2, 24.5)
    m = g.compose(g.rotation(degrees, c), g.scale(1.1, center=c))
    blocks = -(-(w - 3) // 8)
    assert _schedule(g.invert(m)[None], w - 3, 47, blocks, True)[0] == shape
    out = warpkit.warp_affine(img, m, size=(w - 3, 47), fill=(9, 99, 199), queue=queue)
    _close(out, _cv2(img, m, "linear", "constant", (9, 99, 199), size=(w - 3, 47)), "linear",
           np.uint8)


def test_schedule_rule():
    """_schedule: rows for axis-aligned maps and steep drifts, 64 x 8 tiles between, decided by
    the batch's median drift; a perspective whose centre maps to infinity takes tiles. Prefetch
    for affine maps drifting 16-256 source rows per 512 pixels (narrow outputs: 16-1024),
    not when magnifying."""
    from warpkit.engine.coords import schedule as _schedule

    c = (959.5, 539.5)

    def inv(a, s=1.1):
        return g.invert(g.compose(g.rotation(a, c), g.scale(s, center=c)))

    rot = [inv(a) for a in (0, 3, 15, 3, 3)]
    assert [_schedule(m[None], 1920, 1080, 240, True) for m in rot[:3]] == [(6, 0), (3, 4), (6, 4)]
    assert _schedule(np.stack(rot), 1920, 1080, 240, True) == (3, 4)  # median of 0, 3, 15, 3, 3
    assert _schedule(np.stack(rot[:4]), 1920, 1080, 240, True) == (3, 4)  # even: mean of 3 and 3
    assert _schedule(np.stack([rot[0], inv(30)]), 1920, 1080, 240, True) == (6, 4)  # mean 116
    assert _schedule(rot[2][None], 1920, 1080, 240, False) == (6, 0)  # not affine: no prefetch
    assert [_schedule(inv(a)[None], 1920, 1080, 240, True)[1] for a in (1, 30, 60, 90)] == [0, 4, 0, 0]
    assert _schedule(inv(15, 2.0)[None], 1920, 1080, 240, True) == (6, 0)  # magnified
    at_infinity = np.array([[1.0, 0, 0], [0, 1, 0], [-1, 0, 959.5]])  # w = 0 at x = 959.5
    assert _schedule(at_infinity[None], 1920, 1080, 240, False) == (3, 0)
    assert _schedule(rot[1][None], 200, 1080, 25, True) == (2, 4)  # narrow outputs: 32 x 16 tiles
    assert _schedule(rot[0][None], 200, 1080, 25, True) == (5, 0)  # axis-aligned: whole rows
    assert _schedule(rot[0][None], 8, 1080, 1, True) == (0, 0)  # one block: a column of them
    crops = np.stack([g.invert(g.compose(g.translation(-x, -x / 2), g.scale(224 / s)))
                      for x, s in zip(range(0, 128, 2), np.linspace(200, 600, 64))])
    assert _schedule(crops, 224, 224, 28, True) == (5, 0)  # resized crops: whole rows
    mats = np.stack([inv(a) for a in np.linspace(-30, 30, 64)])  # a batch: every 4th is sampled
    assert _schedule(mats, 224, 224, 28, True) == (2, 4)
    # steeper than 256 rows per 512 pixels: narrow outputs (tiles) prefetch up to 1024, rows of
    # 512 do not
    steep = [inv(a, 0.6) for a in (20, 45, 90)]  # drifts 292, 603 and 853
    assert [_schedule(m[None], 224, 224, 28, True) for m in steep] == [(2, 4)] * 3
    assert [_schedule(m[None], 1920, 1080, 240, True) for m in steep] == [(6, 0)] * 3
    assert _schedule(inv(90, 0.45)[None], 224, 224, 28, True) == (2, 0)  # drift 1138
    assert _schedule(inv(45, 1.5)[None], 224, 224, 28, True) == (2, 0)  # magnified: none


def test_interior_floor_just_below_an_integer(queue):
    """Source rows y = k - 2^-22 lie just above row k - 1, whose floor a shortcut like
    (int)(y + 8) - 8 gets wrong (y + 8 rounds up to k + 8 in float32). Here that would take rows
    k and k + 1 with a weight of -2^-22 instead of rows k - 1 and k: row 3 mixes 0.5 and 0.5
    (exactly 0.5, which rounds up to 1), the wrong taps give 0.4999999 (0). The interior path
    (packed pixels) and the general one (a channel view, unpacked) must both give 1."""
    img = np.tile(np.array([0, 1], np.uint8), (8, 12))
    img[4] *= 2  # a row of 0/2: what the wrong taps would mix in
    rgb = np.repeat(img[..., None], 4, axis=2)
    m = g.translation(-0.5, 2.0**-22)  # source = output + (0.5, -2^-22): every x mixes 0 and 1
    fast = warpkit.warp_affine(np.ascontiguousarray(rgb[..., :3]), m, queue=queue)
    general = warpkit.warp_affine(cla.to_device(queue, rgb)[..., :3], m, queue=queue).get()
    np.testing.assert_array_equal(fast, general)
    assert (fast[1:5, :23] == 1).all(), fast[1:5, :23, 0]


def test_integer_halves_round_up(queue):
    """A half-pixel shift between 0/1 columns gives exactly .5 everywhere: it rounds up, as in
    OpenCV and Pillow, on the 8-wide kernel (uint8) and the per-pixel one (uint16)."""
    for dtype in (np.uint8, np.uint16):
        img = np.tile(np.array([0, 1], dtype), (9, 20))
        out = warpkit.warp_affine(img, g.translation(-0.5, 0), size=(39, 9), padding="border",
                                  queue=queue)
        assert (out == 1).all(), dtype


def test_device_image_stays_on_device(queue):
    img = np.random.default_rng(7).random((H, W, 3)).astype(np.float32)
    out = warpkit.warp_affine(cla.to_device(queue, img), MAP)
    assert isinstance(out, cla.Array)
    np.testing.assert_allclose(out.get(), warpkit.warp_affine(img, MAP, queue=queue), rtol=1e-6)


def test_non_contiguous_and_inputs_untouched(queue):
    img = np.random.default_rng(8).integers(0, 256, (H, 2 * W, 3), dtype=np.uint8)[:, ::2]
    before = img.copy()
    out = warpkit.warp_affine(img, MAP, queue=queue)
    np.testing.assert_array_equal(out, warpkit.warp_affine(np.ascontiguousarray(img), MAP, queue=queue))
    np.testing.assert_array_equal(img, before)


def test_non_native_byte_order(queue):
    """A big-endian 16-bit image (as FITS and some TIFF readers give) warps as its values."""
    img = np.random.default_rng(9).integers(0, 65536, (H, W, 3), dtype=np.uint16)
    out = warpkit.warp_affine(foreign_byte_order(img), MAP, queue=queue)
    assert out.dtype == np.uint16 and out.dtype.isnative
    np.testing.assert_array_equal(out, warpkit.warp_affine(img, MAP, queue=queue))


def _firsts_then_kept(calls, monkeypatch) -> tuple[list, list]:
    """Each call's result as the first of its kind (the warp's kept calls emptied before
    each; programs and plans stay built), then the kept calls emptied once and a list that
    counts the calls taking one (engine.core._Again.warp) from then on."""
    from warpkit.engine import core

    first = []
    for call in calls:
        core._AGAIN.clear()
        first.append(call())
    core._AGAIN.clear()
    taken: list = []
    kept_warp = core._Again.warp
    monkeypatch.setattr(core._Again, "warp",
                        lambda self, *a: taken.append(1) or kept_warp(self, *a))
    return first, taken


def test_a_call_like_one_before_is_warped_as_it_was(queue, monkeypatch):
    """A single host image's call with the options of one before it (the same Sampling and
    ModelInput objects, as a pipeline passes them sample after sample) takes what that call
    made of them (engine.core._Again: the checks, the output and the plans that follow from
    the options and the image's layout alone), whatever the image's size: the same bytes as a
    first call, and the image's and the map's own checks on every call."""
    from warpkit.engine import core
    from warpkit.engine.output import ModelInput
    from warpkit._options import Sampling

    sampling = Sampling.of("linear", "constant", (10, 20, 30), False)
    model = ModelInput("float32", [0.5, 0.4, 0.3], [0.2, 0.25, 0.3], "CHW")
    rng = np.random.default_rng(5)
    imgs = [rng.integers(0, 256, (h, w, 3), np.uint8) for h, w in ((40, 50), (61, 33), (17, 90))]
    maps = [g.rotation(d, (20, 15)) for d in (0, 7, -30)] + [g.perspective_from_points(
        [[0, 0], [9, 0], [0, 9], [9, 9]], [[1, 0], [9, 1], [0, 8], [7, 8]])]
    cases = [(img, m) for img in imgs for m in maps]

    def warp(img, m, **kw):
        return core.warp_by(img, m, (24, 20), sampling, model=model, queue=queue, affine=False,
                            again=True, **kw)

    first, taken = _firsts_then_kept([lambda c=c: warp(*c) for c in cases], monkeypatch)
    for (img, m), ref in zip(cases, first):
        np.testing.assert_array_equal(warp(img, m), ref)
    assert len(taken) == len(cases) - 1  # every call but the first
    into = np.empty((3, 20, 24), np.float32)
    pending: list = []
    res = warp(imgs[1], maps[2], into=into, pending=pending)
    for wait in pending:
        wait()
    assert res() is into
    np.testing.assert_array_equal(into, first[len(maps) + 2])
    equal = ModelInput("float32", [0.5, 0.4, 0.3], [0.2, 0.25, 0.3], "CHW")  # (its own entry)
    np.testing.assert_array_equal(core.warp_by(imgs[0], maps[1], (24, 20), sampling, model=equal,
                                               queue=queue, affine=False, again=True), first[1])
    n = len(taken)
    warp(np.zeros((1, 1, 3), np.uint8), maps[0])  # (a layout of fewer than 4 values, as an
    with pytest.raises(ValueError, match=r"image has no pixels to sample: shape \(0, 50, 3\)"):
        warp(np.zeros((0, 50, 3), np.uint8), maps[0])  # empty image's)
    with pytest.raises(ValueError, match=r"a matrix must be finite"):
        warp(imgs[0], np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match=r"the matrix is singular"):
        warp(imgs[0], [[1, 2, 0], [2, 4, 0], [0, 0, 1]])
    refused = pytest.raises(ValueError, match=r"matrix is a perspective map .* use "
                                              r"warp_perspective")
    for m in (maps[1], maps[3]):  # an affine call, then a perspective map where one is asked
        with refused if m is maps[3] else nullcontext():
            core.warp_by(imgs[0], m, (24, 20), sampling, model=model, queue=queue, again=True)
    with pytest.raises(ValueError, match=r"out must be a writable C-contiguous float32 array of "
                                         r"shape \(3, 20, 24\)"):
        warp(imgs[0], maps[0], into=np.empty((20, 24, 3), np.float32))
    with pytest.raises(ValueError, match=r"fill must be a number or one per channel \(1\)"):
        warp(imgs[0][..., :1].copy(), maps[0])
    assert len(taken) > n  # (the checks above were made on calls that took a kept one)


def test_a_colour_call_like_one_before_is_warped_as_it_was(queue, monkeypatch):
    """A kept call (engine.core._Again) with colour operations whose words no check reads
    (ColorJitter's, ToGray's, GaussNoise's) takes the passes of the call before it with the
    same live codes (a contrast starts a pass: its place decides the split), and each call's
    own values: the same bytes as a first call. Lists of other codes, and lists with
    operations past their end, take the whole path and its checks."""
    import warpkit.augment as A
    from warpkit.augment._colour import colour_program
    from warpkit.engine import core
    from warpkit.engine.output import ModelInput
    from warpkit._options import Sampling

    # (a kept call binds its lists without looking for a colour table's operations)
    assert not core._AGAIN_CODES & {float(c) for c in core.COLOUR_TABLE_OPS}
    sampling = Sampling.of("linear", "constant", 0, False)
    model = ModelInput("float32", [0.5, 0.4, 0.3], [0.2, 0.25, 0.3], "CHW")
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (45, 52, 3), np.uint8)
    pipe = A.Compose([A.ColorJitter(0.4, 0.4, 0.4, 0.1), A.ToGray(p=0.3), A.GaussNoise(p=0.5)])
    lists = [colour_program(pipe, [pipe.draw(np.random.default_rng(s), (24, 20))], 3, np.uint8)
             for s in range(16)]
    codes = {core._again_codes(c) for c in lists}  # (their live operations' codes)
    assert len(codes) > 4 and () in codes  # (orders with the contrast in different places)
    n_drawn = len(lists)
    blur = colour_program(A.GaussianBlur(p=1), [{"applied": True, **A.GaussianBlur(p=1).draw(
        rng, (24, 20))}], 3, np.uint8)
    lists.append(blur)  # (another code: the whole path)
    # a list without operations keys apart from no list: its kernel takes the resampled
    # values as colour operations take them (rounded to a level), a kernel without colour not
    lists += [None, np.zeros((1, core.COLOUR_WORDS), np.float32)]
    maps = [g.rotation(5 * s, (20, 15)) for s in range(len(lists))]
    maps[-1] = maps[-2]

    def warp(m, colour, **kw):
        return core.warp_by(img, m, (24, 20), sampling, model=model, queue=queue, affine=False,
                            again=True, colour=colour, **kw)

    first, taken = _firsts_then_kept([lambda m=m, c=c: warp(m, c) for m, c in zip(maps, lists)],
                                     monkeypatch)
    assert not np.array_equal(first[-1], first[-2])
    for m, c, ref in zip(maps, lists, first):
        np.testing.assert_array_equal(warp(m, c), ref)
    # (not the blur's, nor a first of its codes; the list without operations after one drawn)
    assert len(taken) == n_drawn - len(codes) + 1
    taken.clear()
    for m, c, ref in zip(maps, lists, first):
        np.testing.assert_array_equal(warp(m, c), ref)
    assert len(taken) == len(lists) - 1  # (all kept now but the blur's)
    n = len(taken)
    np.testing.assert_array_equal(warp(maps[2], lists[2].copy()), first[2])
    assert len(taken) == n + 1
    # an operation past the list's end (after a code 0) is checked on the whole path
    past = np.zeros((1, lists[0].shape[1] + 2 * core.COLOUR_WORDS), np.float32)
    past[0, :lists[0].shape[1]] = lists[0]
    past[0, -core.COLOUR_WORDS:][:2] = [core.COL_MEDIAN, 4]
    with pytest.raises(ValueError, match=r"COL_MEDIAN's size must be an odd whole number"):
        warp(maps[0], past)
    with pytest.raises(ValueError, match=r"colour must be a C-contiguous float32 array \(1, k"):
        warp(maps[0], np.concatenate([lists[0], lists[0]]))
    assert len(taken) == n + 1
    # builds that hold a group whose launches read more than their list (a plasma pattern's
    # places: a process that warped one keeps the group in its builds): kept calls bind what
    # the whole path binds, the same bytes
    core._AGAIN.clear()
    for k in range(3):  # (the warp's launch and two passes)
        monkeypatch.setitem(core._GROUPS_SEEN, k, core._GROUPS_SEEN.get(k, 0) | core.COLG_PLASMA)
    for m, c, ref in zip(maps * 2, lists * 2, first * 2):
        np.testing.assert_array_equal(warp(m, c), ref)
    assert len(taken) == n + 1 + n_drawn - len(codes) + 1 + len(lists) - 1


@pytest.mark.parametrize("call,exc,match", [
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), np.eye(3), interpolation="lanczos"), ValueError,
     r"interpolation must be one of 'nearest', 'linear', 'cubic', 'area' \(or 'bilinear', 'bicubic'\); got 'lanczos'"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), np.eye(3), padding="wrap"), ValueError,
     r"padding must be one of 'constant', 'border', 'reflection', 'reflect_101', "
     r"'constant_edge' \(or 'zeros', 'replicate', 'edge', 'reflect', 'symmetric', 'reflect101', "
     r"'mirror'\); got 'wrap'"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), [[1, 0, 0], [0, 1, 0], [1e-3, 0, 1]]),
     ValueError, r"matrix is a perspective map .* use warp_perspective"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), [[1, 2, 0], [2, 4, 0], [0, 0, 1]]), ValueError,
     r"the matrix is singular"),
    (lambda: warpkit.warp_affine(np.zeros((2, 4, 4, 1), np.uint8),
                                 [np.eye(3)[:2], [[1, 2, 0], [2, 4, 0]]]), ValueError,
     r"the matrix is singular"),
    (lambda: warpkit.warp_affine(np.zeros((2, 4, 4, 1), np.uint8), [np.eye(3), np.full((3, 3), np.nan)]),
     ValueError, r"a matrix must be finite"),
    (lambda: warpkit.warp_affine(np.zeros((2, 4, 4, 1), np.uint8), [np.eye(3), [[1, 0, 0], [0, 1, 0], [0, 1e-3, 1]]]),
     ValueError, r"matrix is a perspective map .* use warp_perspective"),
    (lambda: warpkit.warp_affine(np.zeros((1, 2, 4, 4, 3), np.uint8), np.eye(3)), ValueError,
     r"image must be \(H, W\), \(H, W, C\) or \(B, H, W, C\), got \(1, 2, 4, 4, 3\)"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.float64), np.eye(3)), TypeError,
     r"image has dtype float64; warps take uint8, uint16, int32 or float32"),
    (lambda: warpkit.warp_affine(np.zeros((2, 4, 4, 3), np.uint8), np.zeros((3, 3, 3))), ValueError,
     r"matrix must have shape \(3, 3\) or \(2, 3\), or \(2, 3, 3\)"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4, 3), np.uint8), np.eye(3), fill=(1, 2)), ValueError,
     r"fill must be a number or one per channel \(3\)"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), np.eye(3), size=(0, 4)), ValueError,
     r"the output size must be between 1 and 65536 per axis, got 0x4"),
    (lambda: warpkit.warp_affine(Image.new("CMYK", (4, 4)), np.eye(3)), TypeError,
     r"image has Pillow mode 'CMYK'; warpkit warps L, LA, RGB"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), np.eye(3), size=(4, 4), expand=True),
     ValueError, r"pass either size or expand=True, not both"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4, 3), np.uint8), np.eye(3), fill="white"), ValueError,
     r"fill must be a number or one per channel \(3\), got 'white'"),
    (lambda: warpkit.warp_affine(np.zeros((4, 4), np.uint8), "abc"), ValueError,
     r"matrix must be a matrix of numbers, got str"),
    (lambda: warpkit.warp_perspective(np.zeros((4, 4), np.uint8), [[1, 0, 0], [0, 1]]), ValueError,
     r"homography must be a matrix of numbers, got list"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_output_beyond_max_allocation_refused(queue, monkeypatch):
    """An output larger than one device allocation is refused before anything is allocated,
    naming its shape, size and the device's limit (not an OpenCL error from a buffer)."""
    rt = warpkit.runtime_for_queue(queue)
    monkeypatch.setattr(rt, "max_alloc", 10_000)
    img = np.zeros((8, 8, 3), np.uint8)
    assert warpkit.warp_affine(img, np.eye(3), size=(40, 80), queue=queue).shape == (80, 40, 3)
    with pytest.raises(ValueError, match=r"the 90x40x3 uint8 output \(10800 bytes\) exceeds the "
                                         r"device's maximum allocation of 10000 bytes \(.*\); ask "
                                         r"for a smaller output"):
        warpkit.warp_affine(img, np.eye(3), size=(40, 90), queue=queue)
    with pytest.raises(ValueError, match=r"the 3x40x40x3 uint8 output \(14400 bytes\) exceeds"):
        warpkit.crop_rois(img, [[0, 0, 4, 4]] * 3, (40, 40), queue=queue)


@pytest.mark.parametrize("interp,pad", list(itertools.product(INTERP, BORDER)))
def test_small_and_extreme_maps_every_device(interp, pad, small_queue):
    """Tiny images, far-away and degenerate sources: correct where OpenCV defines it, and no
    out-of-bounds access on Oclgrind."""
    img = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    for m in (g.translation(1e6, -3e9), g.scale(1e-6, center=(1, 1)), g.rotation(33, (1.5, 1))):
        out = warpkit.warp_affine(img, m, size=(5, 3), interpolation=interp, padding=pad, fill=7,
                                  queue=small_queue)
        assert out.shape == (3, 5)
    out = warpkit.warp_affine(img, g.rotation(33, (1.5, 1)), size=(5, 3), interpolation=interp,
                              padding=pad, fill=7, queue=small_queue)
    _close(out, _cv2(img, g.rotation(33, (1.5, 1)), interp, pad, 7, size=(5, 3)), interp, np.uint8,
           "small", g.rotation(33, (1.5, 1)))


def _mirror(i, d, pad):
    """OpenCV's BORDER_REFLECT / BORDER_REFLECT_101 index of tap i (numpy arrays)."""
    p = 2 * d if pad == "reflection" else 2 * d - 2
    if p == 0:
        return np.zeros_like(i)
    m = np.mod(i, p)
    return np.where(m < d, m, p - 1 - m + (pad == "reflect_101"))


def _oracle(img, m, size, interp, pad):
    """The warp in float64: taps, Keys weights (A = -0.75) and mirrored indices, rounded halves up."""
    wo, ho = size
    h, w = img.shape[:2]
    xs, ys = np.meshgrid(np.arange(wo, dtype=np.float64), np.arange(ho, dtype=np.float64))
    src = g.transform_points(g.invert(m), np.stack([xs, ys], -1))
    x, y = src[..., 0], src[..., 1]
    if interp == "nearest":
        return img[_mirror(np.rint(y).astype(int), h, pad), _mirror(np.rint(x).astype(int), w, pad)]

    def weights(t):
        if interp == "linear":
            return [(0, 1 - t), (1, t)]
        a = -0.75
        out = []
        for k in (-1, 0, 1, 2):
            s = np.abs(t - k)
            out.append((k, np.where(s <= 1, ((a + 2) * s - (a + 3)) * s * s + 1,
                                    np.where(s < 2, ((a * s - 5 * a) * s + 8 * a) * s - 4 * a, 0))))
        return out

    x0, y0 = np.floor(x), np.floor(y)
    acc = np.zeros((ho, wo, img.shape[2]))
    for j, wy in weights(y - y0):
        for k, wx in weights(x - x0):
            px = img[_mirror(y0.astype(int) + j, h, pad), _mirror(x0.astype(int) + k, w, pad)]
            acc += (wy * wx)[..., None] * px
    return np.clip(np.floor(acc + 0.5), 0, np.iinfo(img.dtype).max)


@pytest.mark.parametrize("interp", list(INTERP))
@pytest.mark.parametrize("w,h", [(1, 1), (1, 5), (2, 2), (2, 7), (3, 1), (9, 4)])
@pytest.mark.parametrize("pad", ["reflection", "reflect_101"])
def test_reflections_on_tiny_axes(interp, w, h, pad, queue):
    """The mirror periods 2d and 2d - 2 (0 on a 1-pixel axis), far outside the image too, on
    both the 8-wide path (uint8) and the general one (uint16), against a float64 oracle (OpenCV's
    cubic warps are off on axes narrower than the 4-tap footprint: 202 levels on a 1x5 image)."""
    rng = np.random.default_rng([w, h])
    for dtype in (np.uint8, np.uint16):
        img = rng.integers(0, 250, (h, w, 3)).astype(dtype)
        m = g.compose(g.rotation(23, ((w - 1) / 2, (h - 1) / 2)), g.scale(0.37),
                      g.translation(0.3, -0.2))
        out = warpkit.warp_affine(img, m, size=(19, 11), interpolation=interp, padding=pad,
                                  queue=queue)
        ref = _oracle(img, m, (19, 11), interp, pad)
        assert np.abs(out.astype(np.float64) - ref).max() <= (0 if interp == "nearest" else 1), \
            f"{interp} {pad} {w}x{h} {dtype}"


@pytest.mark.parametrize("alias,name", [("zeros", "constant"), ("replicate", "border"),
                                        ("edge", "border"), ("reflect", "reflection"),
                                        ("symmetric", "reflection"), ("mirror", "reflect_101"),
                                        ("reflect101", "reflect_101"), ("bilinear", "linear"),
                                        ("bicubic", "cubic")])
def test_aliases_are_the_canonical_options(alias, name, queue):
    img = np.random.default_rng(0).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    m = g.rotation(40, (14.5, 9.5))
    key = "interpolation" if name in ("linear", "cubic") else "padding"
    out = warpkit.warp_affine(img, m, queue=queue, **{key: alias})
    np.testing.assert_array_equal(out, warpkit.warp_affine(img, m, queue=queue, **{key: name}))


MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


@pytest.mark.parametrize("interp", list(INTERP))
@pytest.mark.parametrize("pad", ["constant", "reflect_101"])
@pytest.mark.parametrize("odt", ["float32", "float16"])
def test_model_input_is_the_warp_normalised(interp, pad, odt, small_queue):
    """output_dtype/mean/std/layout: the warp's own samples, normalised and laid out in the same
    pass. Against warping to uint8 and normalising after: nearest exactly, linear and cubic
    within the half level the fused path does not round away (plus float16's rounding)."""
    rng = np.random.default_rng(len(interp) + len(pad))
    img = rng.integers(0, 256, (21, 30, 3), dtype=np.uint8)
    m = g.compose(g.rotation(17, (14.5, 10)), g.scale(1.2, center=(14.5, 10)))
    ref8 = warpkit.warp_affine(img, m, interpolation=interp, padding=pad, queue=small_queue)
    ref = ((ref8 / 255.0 - MEAN) / STD).transpose(2, 0, 1)
    out = warpkit.warp_affine(img, m, interpolation=interp, padding=pad, output_dtype=odt,
                              mean=MEAN, std=STD, layout="CHW", queue=small_queue)
    assert out.dtype == np.dtype(odt) and out.shape == (3, 21, 30)
    tol = (0 if interp == "nearest" else 0.5 / 255 / min(STD)) + \
        (2.0 ** -10 * 3 if odt == "float16" else 1e-6)
    assert np.abs(out.astype(np.float64) - ref).max() <= tol
    hwc = warpkit.warp_affine(img, m, interpolation=interp, padding=pad, output_dtype=odt,
                              mean=MEAN, std=STD, queue=small_queue)
    np.testing.assert_array_equal(hwc.transpose(2, 0, 1), out)


def test_model_input_batches_gray_and_float(queue):
    rng = np.random.default_rng(4)
    batch = rng.integers(0, 256, (3, 20, 27, 3), dtype=np.uint8)
    mats = np.stack([g.rotation(a, (13, 9.5)) for a in (5, 15, 40)])
    out = warpkit.warp_affine(batch, mats, output_dtype="float32", layout="CHW", queue=queue)
    ref = warpkit.warp_affine(batch, mats, queue=queue).transpose(0, 3, 1, 2) / 255.0
    assert out.shape == (3, 3, 20, 27) and np.abs(out - ref).max() <= 0.5 / 255 + 1e-6
    gray = rng.integers(0, 65536, (11, 13), dtype=np.uint16)
    o = warpkit.warp_affine(gray, g.identity(), output_dtype="float32", layout="CHW",
                            antialias=True, queue=queue)
    np.testing.assert_allclose(o, gray[None] / 65535.0, rtol=1e-6)
    f = rng.standard_normal((9, 10, 2)).astype(np.float32)
    o = warpkit.warp_affine(f, g.identity(), output_dtype="float16", mean=[1, 2], std=[2, 4],
                            queue=queue)
    np.testing.assert_allclose(o.astype(np.float32), ((f - [1, 2]) / [2, 4]).astype(np.float16),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("kw,match", [
    ({"output_dtype": "int8"}, r"output_dtype must be the image's dtype \(uint8\), float32 or "
                               r"float16, got 'int8'"),
    ({"layout": "NCHW"}, r"layout must be 'HWC' or 'CHW', got 'NCHW'"),
    ({"layout": "CHW"}, r"pass output_dtype='float32' or 'float16'"),
    ({"output_dtype": "float32", "std": 0}, r"std must be > 0"),
    ({"output_dtype": "float32", "mean": [1, 2]}, r"mean must be a finite number or one per "
                                                  r"channel \(3\)"),
])
def test_model_input_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        warpkit.warp_affine(np.zeros((4, 4, 3), np.uint8), g.identity(), **kw)


def _ragged(rng, dtype, channels, n=6):
    """n images of 1-60 px per side (1-pixel rows and columns included)."""
    out = []
    for k in range(n):
        h, w = (1, int(rng.integers(1, 60))) if k == 1 else rng.integers(1, 60, 2)
        shape = (int(h), int(w)) if channels is None else (int(h), int(w), channels)
        out.append((rng.random(shape) * 250).astype(dtype))
    return out


@pytest.mark.parametrize("dtype,channels", [(np.uint8, 3), (np.uint8, 1), (np.uint8, None),
                                            (np.float32, 4), (np.uint16, 2), (np.int32, 3)])
@pytest.mark.parametrize("interp", list(INTERP))
def test_ragged_batch_is_one_launch_and_each_alone(dtype, channels, interp, small_queue,
                                                   monkeypatch):
    """warp_batch: images of different sizes packed into one buffer and warped in one launch
    (GPUs), or read where they are, one launch each (CPU devices and Oclgrind), pixel for pixel
    what each image gives alone; every padding, the model-input stores too (and on Oclgrind no
    read leaves an image's own buffer). Each padding and store is a build of its own: each
    (dtype, channels, interpolation) takes two paddings, the model-input store with one of
    them, so that every padding meets every dtype and interpolation."""
    from warpkit import _op
    from warpkit.warp import warp_batch

    rng = np.random.default_rng(channels or 0)
    imgs = _ragged(rng, dtype, channels)
    mats = [g.compose(g.rotation(float(rng.uniform(-40, 40)), (5, 5)),
                      g.scale(float(rng.uniform(0.6, 1.8)))) for _ in imgs]
    mats[2] = g.perspective_from_points([[0, 0], [9, 0], [0, 9], [9, 9]],
                                        [[1, 0], [8, 1], [0, 9], [9, 7]])
    launches = []
    real = _op.launch
    monkeypatch.setattr(_op, "launch", lambda *a: launches.append(1) or real(*a))
    pads = ("constant", "border", "reflection", "reflect_101")
    first = (list(INTERP).index(interp) + (channels or 0)) % 4
    model = {"output_dtype": "float32", "layout": "CHW", "mean": 0.4}
    for pad, extra in ((pads[first], {}), (pads[(first + 1) % 4], {}),
                       (pads[(first + 2) % 4], model)):
        kw = dict(interpolation=interp, padding=pad, fill=9, queue=small_queue, **extra)
        launches.clear()
        out = warp_batch(imgs, mats, (23, 17), **kw)
        in_place = warpkit.runtime.runtime_for_queue(small_queue).zero_copy
        assert len(launches) == (len(imgs) if in_place else 1)
        each = [warpkit.warp_perspective(i, m, size=(23, 17), **kw) for i, m in zip(imgs, mats)]
        np.testing.assert_array_equal(out, np.stack(each))


@pytest.mark.parametrize("pad", ["constant", "border", "reflection", "reflect_101",
                                 "constant_edge"])
def test_ragged_batch_packs_only_what_each_output_reads(pad, small_queue, monkeypatch):
    """Crops inside larger images (a RandomResizedCrop's maps): the packed buffer holds each
    image's region the output can read, not the whole image, and every output is what the
    image gives alone (on Oclgrind no read leaves the smaller buffer); a map that reaches past
    the border under a folding padding keeps its whole image."""
    from warpkit.engine import inputs
    from warpkit.warp import warp_batch

    rng = np.random.default_rng(5)
    imgs = [(rng.random((40 + 7 * k, 50 + 5 * k, 3)) * 250).astype(np.uint8) for k in range(4)]
    mats = [g.compose(g.translation(-12.0 - k, -9.0 + k), g.rotation(10.0 * k, (20, 15)),
                      g.scale(1.3)) for k in range(4)]
    mats.append(g.translation(5, 3))  # reaches past the top-left corner
    imgs.append((rng.random((30, 30, 3)) * 250).astype(np.uint8))
    from warpkit.engine import core

    packed = []

    def spy(arrays, channels, regions=None):
        res = inputs.pack(arrays, channels, regions)
        packed.append(res[0].shape[0])
        return res

    monkeypatch.setattr(core, "pack", spy)
    monkeypatch.setattr(core._Input, "in_place", lambda self, rt: None)  # (packed everywhere)
    for interp in INTERP:
        kw = dict(interpolation=interp, padding=pad, fill=9, queue=small_queue)
        out = warp_batch(imgs, mats, (19, 13), **kw)
        each = [warpkit.warp_perspective(i, m, size=(19, 13), **kw) for i, m in zip(imgs, mats)]
        np.testing.assert_array_equal(out, np.stack(each))
    whole = sum(a.shape[0] * a.shape[1] for a in imgs)
    # the folding paddings keep the last image whole, and any that a rotation takes past a border
    assert packed and max(packed) < whole * (0.6 if pad in ("constant", "border",
                                                            "constant_edge") else 0.8), \
        (packed, whole)
    # the region's bounds: output 10 x 8 of a shift by (-20, -10), linear reach 3 and the 7
    # columns the kernel's last block computes past the right edge
    (box,) = inputs.read_regions(np.linalg.inv(g.translation(-20, -10))[None], 10, 8,
                                 [(50, 60)], clamped=False)
    assert box.tolist() == [16, 6, 40, 21]
    (box,) = inputs.read_regions(np.linalg.inv(g.translation(5, 3))[None], 10, 8, [(50, 60)],
                                 clamped=False)
    assert box.tolist() == [0, 0, 59, 49]  # folded taps: the whole image
    (box,) = inputs.read_regions(np.linalg.inv(g.translation(5, 3))[None], 10, 8, [(50, 60)],
                                 clamped=True)
    assert box.tolist() == [0, 0, 15, 8]


def test_ragged_batch_is_read_in_place_on_cpu_devices(queue, monkeypatch):
    """On a device that reads host memory (CPU devices), a ragged batch of C-contiguous images
    is not copied: each image is a buffer of its own, read where it is, one launch per image
    (no packing: ~4-6 ms of a 64-photo batch's 20); the result is bit for bit the packed one.
    Images that are strided views (or a device without host memory) are packed as before."""
    from warpkit.engine import core
    from warpkit.warp import warp_batch

    rng = np.random.default_rng(11)
    imgs = [(rng.random((40 + 9 * k, 70 - 6 * k, 3)) * 250).astype(np.uint8) for k in range(5)]
    mats = [g.compose(g.rotation(12.0 * k, (20, 15)), g.scale(0.7 + 0.1 * k)) for k in range(5)]
    packs = []
    real_pack = core.pack
    monkeypatch.setattr(core, "pack", lambda *a: packs.append(1) or real_pack(*a))
    kw = dict(size=(31, 27), output_dtype="float32", mean=0.5, layout="CHW", queue=queue)
    out = warp_batch(imgs, mats, **kw)
    in_place = warpkit.runtime.runtime_for_queue(queue).zero_copy
    assert len(packs) == (0 if in_place else 1)
    packs.clear()
    views = [np.pad(a, ((0, 0), (0, 3), (0, 0)))[:, :a.shape[1]] for a in imgs]  # row gaps
    np.testing.assert_array_equal(warp_batch(views, mats, **kw), out)
    assert len(packs) == 1
    monkeypatch.setattr(core._Input, "in_place", lambda self, rt: None)
    np.testing.assert_array_equal(warp_batch(imgs, mats, **kw), out)


def test_packing_threads_survive_a_fork():
    """A large ragged batch is packed by a thread pool; a child forked after the parent used
    it packs with a pool of its own (the parent's threads do not exist there: it would hang)."""
    import multiprocessing as mp

    from warpkit.engine import inputs

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    imgs = [np.full((700, 800, 3), k, np.uint8) for k in range(8)]  # 13 MB: threaded
    packed, _ = inputs.pack(imgs, 3)
    assert packed[::560000, 0].tolist() == list(range(8))
    child = mp.get_context("fork").Process(target=_pack_in_child, args=(imgs,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("packing in a forked child hung")
    assert child.exitcode == 0


def _pack_in_child(imgs):
    from warpkit.engine import inputs

    packed, _ = inputs.pack(imgs, 3)
    raise SystemExit(0 if packed[::560000, 0].tolist() == list(range(8)) else 1)


def test_ragged_batch_antialias_and_kinds(queue):
    """With antialias each map keeps its own samples per axis; images needing none run in the
    supersampling kernel beside those that do, equal to the 8-wide one up to float rounding
    (values up to 250: a few units of 2^-16 of them).
    Pillow lists give Pillow images; device arrays are warped one by one and stacked."""
    from warpkit.warp import warp_batch

    rng = np.random.default_rng(3)
    imgs = _ragged(rng, np.float32, 3)
    mats = [g.scale(s) for s in (0.3, 1.5, 0.5, 1.0, 2.0, 0.25)]
    out = warp_batch(imgs, mats, (20, 12), antialias=True, queue=queue)
    for i, m, o in zip(imgs, mats, out):
        np.testing.assert_allclose(o, warpkit.warp_perspective(i, m, size=(20, 12), antialias=True,
                                                               queue=queue), rtol=0, atol=5e-3)
    pil = [Image.fromarray(rng.integers(0, 255, (9 + k, 7, 3), dtype=np.uint8)) for k in range(3)]
    res = warp_batch(pil, [g.identity()] * 3, (7, 9), queue=queue)
    assert [r.size for r in res] == [(7, 9)] * 3 and res[0].mode == "RGB"
    np.testing.assert_array_equal(np.asarray(res[0]), np.asarray(pil[0]))
    dev = [cla.to_device(queue, i) for i in imgs[:2]]
    d = warp_batch(dev, mats[:2], (20, 12), queue=queue)
    assert isinstance(d, cla.Array) and d.shape == (2, 12, 20, 3)
    np.testing.assert_array_equal(d.get(), warp_batch(imgs[:2], mats[:2], (20, 12), queue=queue))


@pytest.mark.parametrize("images,mats,size,match", [
    ([], [], (4, 4), r"images is an empty list"),
    ([np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 1), np.uint8)], [np.eye(3)] * 2, (4, 4),
     r"images of a batch must share their dtype and channels, got uint8 \(1,\), uint8 \(3,\)"),
    ([np.zeros((4, 4), np.uint8)] * 2, [np.eye(3)] * 3, (4, 4), r"homographies must have shape"),
    ([np.zeros((4, 4), np.uint8)] * 2, [np.eye(3)] * 2, None, r"a ragged batch needs size="),
    ([np.zeros((4, 0), np.uint8)] * 2, [np.eye(3)] * 2, (4, 4), r"image 0 has no pixels"),
])
def test_ragged_batch_errors(images, mats, size, match):
    from warpkit.warp import warp_batch

    with pytest.raises(ValueError, match=match):
        warp_batch(images, mats, size)


def test_back_to_back_warps_keep_their_inputs_alive(queue):
    """warp_each launches without waiting: the temporaries its calls make (a Pillow image's
    array, a contiguous copy of a strided view) must live until the kernels have read them. The
    queue is held back by a user event while freed memory is reused and overwritten."""
    import gc

    import pyopencl as cl
    from PIL import Image

    from warpkit.warp import warp_each

    rng = np.random.default_rng(9)
    arrays = [rng.integers(0, 255, (40, 60, 3), dtype=np.uint8) for _ in range(4)]
    strided = np.zeros((40, 120, 3), np.uint8)
    strided[:, ::2] = arrays[2]
    inputs = [Image.fromarray(arrays[0]), Image.fromarray(arrays[1]),
              strided[:, ::2],  # not contiguous: the call copies it
              arrays[3]]
    gate = cl.UserEvent(queue.context)
    cl.enqueue_marker(queue, wait_for=[gate])  # the in-order queue waits here
    from warpkit.engine import core

    real = core.warp_by
    calls = []

    def warp_then_clobber(*a, **kw):
        r = real(*a, **kw)
        gc.collect()
        for _ in range(8):  # reuse freed blocks of these sizes, with junk
            np.full(40 * 60 * 3, 0xEE, np.uint8)
            np.full((40, 60, 3), 0xEE, np.uint8)
        calls.append(1)
        if len(calls) == len(inputs):  # every kernel queued: let them run
            gate.set_status(cl.command_execution_status.COMPLETE)
        return r

    core.warp_by = warp_then_clobber
    try:
        outs = warp_each(inputs, [g.identity()] * 4, [(60, 40)] * 4, queue=queue)
    finally:
        core.warp_by = real
        if len(calls) < len(inputs):
            gate.set_status(cl.command_execution_status.COMPLETE)
    for a, o in zip(arrays, outs):
        np.testing.assert_array_equal(np.asarray(o), a)


def test_options_made_once_follow_every_call():
    """A warp's option values (fill per channel, normalisation) are made once per hashable set
    of options and image kind: a later call with other options gets its own, equal options of
    other types give the same result, and a bad option raises on every call, not only the
    first."""
    img = np.full((6, 7, 3), 100, np.uint8)
    m = g.translation(20, 0)  # the whole output is fill
    for fill in (0, (255, 0, 7), 0.0, 3, np.float32(3), (255, 0, 7)):
        out = warpkit.warp_affine(img, m[:2], fill=fill)
        want = np.broadcast_to(np.round(np.asarray(fill, np.float64)), (3,))
        assert (out == want.astype(np.uint8)).all(), fill
    y = warpkit.warp_affine(img, m[:2], fill=1, output_dtype="float32", mean=0.5, std=0.25)
    assert np.allclose(y, (1 / 255 - 0.5) / 0.25)
    y = warpkit.warp_affine(img, m[:2], fill=1, output_dtype="float32", mean=0.0, std=1.0)
    assert np.allclose(y, 1 / 255)
    for _ in range(2):
        with pytest.raises(ValueError, match="fill must be a number or one per channel"):
            warpkit.warp_affine(img, m[:2], fill=(1, 2))
        with pytest.raises(ValueError, match="std must be > 0"):
            warpkit.warp_affine(img, m[:2], output_dtype="float32", std=0.0)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_nearest_ties_round_half_to_even(dtype, queue):
    """Source positions exactly between two pixels (shifts of +-0.5 and +-1.5, both axes) take
    the even one, as rint does, on every path of the 8-wide kernel (the interior, whose rounding
    is one instruction on PoCL, and the borders): the pixel index is an integer, exact on any CPU."""
    h, w = 21, 37
    ramp = (np.arange(h)[:, None] * w + np.arange(w)[None, :]).astype(np.int64)
    img = np.stack([ramp % 251, ramp // 251, ramp % 7], -1).astype(dtype)
    yo, xo = np.mgrid[0:h, 0:w]
    for tx, ty in [(0.5, -0.5), (-0.5, 1.5), (1.5, 0.5), (-1.5, -1.5)]:
        m = np.array([[1.0, 0, -tx], [0, 1, -ty]])  # output (x, y) reads source (x + tx, y + ty)
        out = warpkit.warp_affine(img, m, size=(w, h), interpolation="nearest", fill=(0, 0, 0),
                                  queue=queue)
        sx, sy = np.rint(xo + tx).astype(int), np.rint(yo + ty).astype(int)
        inside = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
        want = np.zeros_like(img)
        want[inside] = img[sy[inside], sx[inside]]
        np.testing.assert_array_equal(out, want, err_msg=f"shift {tx}, {ty}")
