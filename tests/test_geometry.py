"""The conventions page (warpkit.geometry) checked against OpenCV, Pillow, scipy and GridSample."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
import scipy.ndimage as ndi
from PIL import Image

import warpkit
from warpkit import geometry as g

H, W = 24, 32
IMG = np.random.default_rng(0).integers(0, 256, (H, W), dtype=np.uint8)

# maps that put every destination pixel centre exactly on a source pixel centre, so that nearest
# sampling is exact in every library and any convention mismatch shows as a shifted image
EXACT = {
    "translate": g.translation(3, -2),
    "rot90": g.rotation(90, center=(11, 11)),
    "rot180": g.rotation(180, center=(15.5, 11.5)),
    "flip_h": g.flip("h", (W, H)),
    "flip_v": g.flip("v", (W, H)),
    "scale_half": g.scale(0.5, center=(4, 3)),  # sources at 2 x - 4: integers
    "compose": g.compose(g.flip("h", (W, H)), g.translation(-1, 4), g.rotation(-90, center=(16, 12))),
}


def _cv2(m):
    M = g.to_cv2(m)
    warp = cv2.warpAffine if M.shape == (2, 3) else cv2.warpPerspective
    return warp(IMG, M, (W, H), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


@pytest.mark.parametrize("name", list(EXACT))
def test_pillow_matches_opencv(name):
    m = EXACT[name]
    pil = Image.fromarray(IMG).transform((W, H), Image.Transform.AFFINE, g.to_pillow(m),
                                         resample=Image.Resampling.NEAREST, fillcolor=0)
    np.testing.assert_array_equal(np.asarray(pil), _cv2(m))


@pytest.mark.parametrize("name", list(EXACT))
def test_scipy_matches_opencv(name):
    m = EXACT[name]
    out = ndi.affine_transform(IMG, g.to_scipy(m), output_shape=(H, W), order=0, mode="constant", cval=0)
    np.testing.assert_array_equal(out, _cv2(m))


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("name", list(EXACT))
def test_theta_with_grid_sample_matches_opencv(name, align, queue):
    m = EXACT[name]
    theta = g.to_theta(m, (W, H), align_corners=align)[None].astype(np.float32)
    grid = warpkit.affine_grid(theta, (1, 1, H, W), align, queue=queue)
    out = warpkit.grid_sample(IMG[None, None].astype(np.float32), grid, "nearest", "zeros", align,
                              queue=queue)[0, 0]
    np.testing.assert_array_equal(out.astype(np.uint8), _cv2(m))


def test_theta_matches_torch_affine_grid():
    torch = pytest.importorskip("torch")
    m = g.compose(g.rotation(17, center=(10, 7)), g.scale(1.3, 0.8), g.translation(2, 3))
    for align in (False, True):
        theta = g.to_theta(m, (W, H), align_corners=align)
        grid_t = torch.nn.functional.affine_grid(torch.tensor(theta[None]), (1, 1, H, W),
                                                 align_corners=align).numpy()
        if not warpkit.get_runtime().fp64:  # float64 theta is refused there: float32's grid
            theta = theta.astype(np.float32)
        grid_w = warpkit.affine_grid(theta[None], (1, 1, H, W), align)
        np.testing.assert_allclose(grid_w, grid_t, atol=1e-6)


def test_rotation_is_opencv_and_counter_clockwise():
    for deg, c in [(30, (10, 20)), (-75.5, (0, 0)), (90, (3.5, 7))]:
        np.testing.assert_allclose(g.to_cv2(g.rotation(deg, c)), cv2.getRotationMatrix2D(c, deg, 1.0),
                                   atol=1e-12)
    # a point right of the centre moves up (y decreases) under a positive quarter turn
    np.testing.assert_allclose(g.transform_points(g.rotation(90, (0, 0)), [[1, 0]]), [[0, -1]], atol=1e-12)


def test_compose_applies_in_order():
    a, b = g.translation(5, 0), g.scale(2)
    np.testing.assert_allclose(g.transform_points(g.compose(a, b), [[1, 1]]), [[12, 2]])
    np.testing.assert_allclose(g.transform_points(g.compose(b, a), [[1, 1]]), [[7, 2]])


def test_round_trips():
    m = g.compose(g.rotation(23, (5, 6)), g.shear(10, -5), g.scale(1.5, 0.7), g.translation(-3, 8))
    np.testing.assert_allclose(g.from_cv2(g.to_cv2(m)), m, atol=1e-12)
    np.testing.assert_allclose(g.from_pillow(g.to_pillow(m)), m, atol=1e-9)
    np.testing.assert_allclose(g.from_theta(g.to_theta(m, (W, H)), (W, H)), m, atol=1e-9)
    np.testing.assert_allclose(g.from_theta(g.to_theta(m, (W, H), (40, 30), True), (W, H), (40, 30), True),
                               m, atol=1e-9)
    np.testing.assert_allclose(g.invert(g.invert(m)), m, atol=1e-12)
    np.testing.assert_allclose(g.from_scipy(g.to_scipy(m)), m, atol=1e-12)
    np.testing.assert_allclose(g.from_scipy(g.to_scipy(m)[:2]), m, atol=1e-12)  # scipy's 2x3 form


def test_from_scipy_reads_what_scipy_applies():
    """A matrix written for scipy (output (row, col) -> input (row, col)) gives warpkit's map:
    warping with it matches scipy's own result (nearest, exact pixel mapping)."""
    sc = np.array([[1.0, 0.0, -2.0], [0.0, 1.0, 3.0], [0.0, 0.0, 1.0]])  # input = output + (-2, 3)
    out = ndi.affine_transform(IMG, sc, output_shape=(H, W), order=0, mode="constant", cval=0)
    m = g.from_scipy(sc)
    np.testing.assert_allclose(m, g.translation(-3, 2), atol=1e-12)  # x moves -3, y moves +2
    np.testing.assert_array_equal(out, _cv2(m))


def test_points_fit():
    src = [[0, 0], [10, 0], [0, 10], [10, 10]]
    m = g.compose(g.rotation(12), g.translation(3, 4))
    dst = g.transform_points(m, src)
    np.testing.assert_allclose(g.affine_from_points(src[:3], dst[:3]), m, atol=1e-12)
    p = g.perspective_from_points(src, [[0, 0], [10, 1], [1, 9], [12, 12]])
    np.testing.assert_allclose(p / p[2, 2], cv2.getPerspectiveTransform(np.float32(src),
                                                                       np.float32([[0, 0], [10, 1], [1, 9], [12, 12]])),
                               atol=1e-6)
    ph = Image.fromarray(IMG).transform((W, H), Image.Transform.PERSPECTIVE, g.to_pillow(p),
                                        resample=Image.Resampling.NEAREST)
    assert ph.size == (W, H)
    assert not g.is_affine(p) and g.is_affine(m)


@pytest.mark.parametrize("call,match", [
    (lambda: g.invert(np.zeros((3, 3))), r"the matrix is singular"),
    (lambda: g.to_cv2(np.zeros((2, 2))), r"a matrix must have shape \(3, 3\) or \(2, 3\), got \(2, 2\)"),
    (lambda: g.flip("d", (3, 3)), r"direction must be 'h' or 'v', got 'd'"),
    (lambda: g.to_theta(g.perspective_from_points([[0, 0], [1, 0], [0, 1], [1, 1]],
                                                  [[0, 0], [1, 0], [0, 1], [2, 2]]), (4, 4)),
     r"theta describes affine maps only"),
    (lambda: g.from_pillow([1, 2, 3]), r"Pillow transform data has 6 \(affine\) or 8 \(perspective\) numbers, got 3"),
    (lambda: g.affine_from_points([[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 0], [0, 1]]), r"collinear"),
    (lambda: g.to_cv2(g.rotation(math.nan)), r"degrees must be a finite number, got nan"),
        (lambda: g.to_cv2(np.full((2, 3), math.inf)), r"a matrix must be finite"),
])
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_single_matrix_inverse_is_the_stack_inverse_bit_for_bit():
    """A single matrix is inverted in Python floats, a stack with numpy: the same arithmetic, so
    the same bits, and the same errors (singular, overflowing to a non-finite inverse)."""
    rng = np.random.default_rng(5)
    mats = rng.normal(size=(300, 3, 3)) * 10.0 ** rng.uniform(-4, 4, (300, 1, 1))
    mats[::3, 2] = [0, 0, 1]
    for m in mats:
        assert np.array_equal(g.invert(m), g.invert(m[None])[0])
        assert np.array_equal(g.invert(m[:2]), g.invert(m[None, :2])[0])
    for bad, det in (([[1, 2, 0], [2, 4, 0], [0, 0, 1]], "0"), ([[1e200, 0, 0], [0, 1e200, 0], [0, 0, 1]], "inf"),
                     ([[1e-200, 0, 0], [0, 1e-200, 0], [0, 0, 1]], "0")):
        for m in (np.array(bad, float), np.array([bad], float)):
            with pytest.raises(ValueError, match=rf"the matrix is singular \(determinant {det}\)"):
                g.invert(m)


def test_stacks_invert_and_check_at_once():
    """invert / is_affine take (K, 3, 3) and (K, 2, 3) stacks; a singular member raises, naming
    its determinant."""
    rng = np.random.default_rng(11)
    mats = rng.normal(size=(20, 3, 3))
    inv = g.invert(mats)
    np.testing.assert_allclose(inv, np.linalg.inv(mats), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g.invert(mats[3]), np.linalg.inv(mats[3]), rtol=1e-9, atol=1e-12)
    aff = mats[:, :2]
    assert g.is_affine(aff) and not g.is_affine(mats)
    np.testing.assert_allclose(g.invert(aff)[:, 2], np.broadcast_to([0, 0, 1], (20, 3)), atol=1e-12)
    mats[7] = [[1, 2, 0], [2, 4, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match=r"the matrix is singular \(determinant 0\)"):
        g.invert(mats)
    with pytest.raises(ValueError, match=r"a matrix must have shape \(3, 3\) or \(2, 3\), or a stack"):
        g.invert(np.zeros((2, 2, 3, 3)))
    with pytest.raises(ValueError, match=r"a matrix must have shape \(3, 3\) or \(2, 3\), got \(4, 3, 3\)"):
        g.rotation(10) @ g.compose(np.zeros((4, 3, 3)))


def test_a_stack_of_one_matrix_repeated_inverts_as_each():
    """A stack of one matrix repeated (a pipeline's identities, one camera for a batch) is
    inverted once and repeated: the same values as each alone, a writable array of its own,
    and a singular one still raises."""
    m = g.rotation(20, (3, 4)) @ g.scale(1.5, 0.5)
    inv = g.invert(np.stack([m] * 5))
    assert inv.shape == (5, 3, 3) and inv.flags.writeable and inv.flags.owndata
    for k in range(5):
        np.testing.assert_array_equal(inv[k], g.invert(m))
    inv[0, 0, 0] = 9  # one item's inverse is not another's
    assert inv[1, 0, 0] != 9
    with pytest.raises(ValueError, match=r"the matrix is singular \(determinant 0\)"):
        g.invert(np.zeros((3, 3, 3)) + [[1, 2, 0], [2, 4, 0], [0, 0, 1]])


def test_points_of_a_stack_go_through_their_own_matrix():
    rng = np.random.default_rng(5)
    mats = np.stack([g.rotation(a, (3, 4)) @ g.translation(1, 2) for a in (10, 20, 30)])
    mats[1, 2, :2] = (1e-3, -2e-3)  # one perspective map
    pts = rng.uniform(-50, 50, (11, 2))
    which = rng.integers(0, 3, 11)
    got = g.transform_points(mats, pts, batch_indices=which)
    for k in range(11):
        assert got[k].tobytes() == g.transform_points(mats[which[k]], pts[k:k + 1])[0].tobytes()
    with pytest.raises(ValueError, match="batch_indices must be 11 integers"):
        g.transform_points(mats, pts, batch_indices=which[:5])
    with pytest.raises(ValueError, match="only apply to a stack"):
        g.transform_points(mats[0], pts, batch_indices=which)


def test_a_few_cut_boxes_clip_as_many_do():
    """clipped_bounds cuts up to FEW_POLYGONS polygons in Python floats (a sample's boxes) and
    more as numpy arrays: the same boxes either way, for quadrilaterals across the border, on
    it, outside it, flat, and with vertices and crossings exactly on the lines."""
    rng = np.random.default_rng(5)
    polys = []
    for k in range(3000):
        c, r, a = rng.uniform(-120, 350, 2), rng.uniform(0.5, 220, 2), rng.uniform(0, 2 * math.pi)
        q = np.array([[c[0] + r[0] * math.cos(a + j * math.pi / 2),
                       c[1] + r[1] * math.sin(a + j * math.pi / 2)] for j in range(4)])
        if k % 3 == 0:
            q = np.round(q)  # vertices and crossings on the border lines
        if k % 7 == 0:
            q[:, 1] = q[0, 1]  # flat: edges along a line
        if k % 13 == 0:
            q = np.array([[0, 0], [224, 0], [224, 200], [0, 200]], float) + rng.integers(-2, 3, (4, 2))
        polys.append(q)
    polys = np.stack(polys)
    size = (224.0, 200.0)
    many = g.clipped_bounds(polys, size)  # ~2000 cut at once: numpy's arrays
    assert (~np.isnan(many[:, 0])).sum() > 1000 and np.isnan(many[:, 0]).sum() > 100
    few = np.concatenate([g.clipped_bounds(polys[k:k + 5], size) for k in range(0, len(polys), 5)])
    np.testing.assert_array_equal(few, many)
    assert g.FEW_POLYGONS >= 5


def _numpy_box_bounds(mats, which, bb, sizes):
    """map_boxes' numpy path: corners, the box around them, cut by the border (clipped where
    nothing is inside), their areas."""
    lim = np.asarray(sizes, np.float64)[which]
    corners = g.corners_of(mats[which], bb)
    mapped = np.concatenate([corners.min(1), corners.max(1)], 1)
    clipped = g.clipped_bounds(corners, lim, fallback=mapped)
    inside = np.prod(np.maximum(clipped[:, 2:] - clipped[:, :2], 0), axis=1)
    return mapped, clipped, np.prod(mapped[:, 2:] - mapped[:, :2], axis=1), inside


def test_a_few_boxes_move_in_python_floats_as_many_in_numpy():
    """few_box_bounds (a sample's boxes, one sample a call) gives the bytes of the numpy path
    (corners_of, clipped_bounds with the mapped box as fallback, the areas): affine and
    perspective maps, boxes inside, cut, wholly outside (the fallback), with integer corners
    and maps (vertices and crossings on the border lines), two samples' maps and outputs; a
    corner behind the camera refused as corners_of refuses it; a corner past float64's range
    left to the numpy path (None)."""
    rng = np.random.default_rng(11)
    cut = outside = 0
    for t in range(500):
        K, n = int(rng.integers(1, g.FEW_POLYGONS + 1)), int(rng.integers(1, 3))
        mats = np.stack([np.eye(3)] * n)
        mats[:, :2] = rng.normal(size=(n, 2, 3)) * [1, 1, 100]
        if t % 4 == 1:
            mats[:, 2, :2] = rng.normal(size=(n, 2)) * 1e-4  # perspective
        if t % 5 == 0:
            mats[:, :2] = np.round(mats[:, :2])
        which = np.sort(rng.integers(0, n, K))
        x1, y1 = rng.uniform(-50, 300, K), rng.uniform(-50, 300, K)
        bb = np.stack([x1, y1, x1 + rng.uniform(0.5, 100, K), y1 + rng.uniform(0.5, 100, K)], 1)
        if t % 3 == 0:
            bb = np.round(bb)
        sizes = [tuple(int(v) for v in rng.integers(50, 300, 2)) for _ in range(n)]
        want = _numpy_box_bounds(mats, which, bb, sizes)
        got = g.few_box_bounds(mats, which, bb, sizes)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        inside = (want[0][:, :2] >= 0).all(1) & (want[0][:, 2:] <= np.asarray(sizes)[which]).all(1)
        cut += int((~inside).sum())
        outside += int((want[3] == 0).sum())
    assert cut > 1000 and outside > 300
    mats = np.eye(3)[None].copy()
    mats[0, 2, 0] = -0.01  # the line x = 100.5 goes to infinity
    bb = np.array([[0.0, 0, 10, 10], [90, 0, 120, 10]])
    with pytest.raises(ValueError) as numpy_way:
        g.corners_of(mats[[0, 0]], bb)
    with pytest.raises(ValueError) as few_way:
        g.few_box_bounds(mats, np.zeros(2, np.intp), bb, [(200, 200)])
    assert str(few_way.value) == str(numpy_way.value) and "box 1 [90.0" in str(few_way.value)
    assert g.few_box_bounds(np.eye(3)[None] * 1e300, np.zeros(1, np.intp),
                            np.array([[1e10, 0, 2e10, 1]]), [(10, 10)]) is None
    none = g.few_box_bounds(np.eye(3)[None], np.zeros(0, np.intp), np.zeros((0, 4)), [(9, 9)])
    assert [a.shape for a in none] == [(0, 4), (0, 4), (0,), (0,)]
