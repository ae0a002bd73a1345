"""remap against cv2.remap and grid_sample; undistort against OpenCV's lens model."""

from __future__ import annotations

import cv2
import numpy as np
import pyopencl.array as cla
import pytest

import warpkit
from warpkit import geometry as g

INTERP = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "cubic": cv2.INTER_CUBIC}
PADS = {"constant": cv2.BORDER_CONSTANT, "border": cv2.BORDER_REPLICATE,
        "reflection": cv2.BORDER_REFLECT, "reflect_101": cv2.BORDER_REFLECT_101}


def _maps(wo, ho, w, h, seed=0):
    """A smooth non-linear map that reaches past every edge of a w x h image."""
    ys, xs = np.mgrid[0:ho, 0:wo].astype(np.float64)
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(2, 5, 2)
    mx = xs * (w + 6) / wo - 3 + a * np.sin(ys / 4.3)
    my = ys * (h + 6) / ho - 3 + b * np.cos(xs / 5.1)
    return mx.astype(np.float32), my.astype(np.float32)


@pytest.mark.parametrize("interp", list(INTERP))
@pytest.mark.parametrize("pad", list(PADS))
@pytest.mark.parametrize("channels", [None, 1, 3, 4])
def test_matches_opencv_remap_uint8(interp, pad, channels, small_queue):
    """uint8 within 1 level of cv2.remap (OpenCV rounds positions to 1/32 pixel), every
    interpolation and padding, odd output widths (partial 8-pixel blocks); on Oclgrind too."""
    rng = np.random.default_rng(3)
    shape = (23, 31) if channels is None else (23, 31, channels)
    yy, xx = np.mgrid[0:23, 0:31]
    base = 128 + 100 * np.sin(xx / 3.0) * np.cos(yy / 4.0)
    img = np.clip(base[..., None] * rng.uniform(0.5, 1, channels or 1), 0, 255).astype(np.uint8)
    img = img.reshape(shape)
    mx, my = _maps(29, 19, 31, 23)
    out = warpkit.remap(img, mx, my, interpolation=interp, padding=pad, fill=9,
                        queue=small_queue)
    ref = cv2.remap(img, mx, my, INTERP[interp], borderMode=PADS[pad], borderValue=(9,) * 4)
    assert out.shape == (19, 29) + shape[2:]
    ref = ref.reshape(out.shape)  # OpenCV drops a single channel
    assert np.abs(out.astype(int) - ref).max() <= (0 if interp == "nearest" else 1)


@pytest.mark.parametrize("interp", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
def test_equals_grid_sample_on_the_same_positions(interp, pad, queue):
    """float32: remap at pixel positions is grid_sample (align_corners=False) at the normalised
    grid of the same positions."""
    rng = np.random.default_rng(1)
    img = rng.standard_normal((2, 17, 21, 3)).astype(np.float32)
    mx, my = _maps(13, 11, 21, 17)
    out = warpkit.remap(img, mx, my, interpolation=interp, padding=pad, queue=queue)
    grid = np.stack([(2 * mx + 1) / 21 - 1, (2 * my + 1) / 17 - 1], -1).astype(np.float32)
    ref = warpkit.grid_sample(img.transpose(0, 3, 1, 2), np.stack([grid, grid]), mode=interp,
                              padding_mode=pad, align_corners=False, queue=queue)
    np.testing.assert_allclose(out, ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)


def test_forms_batches_devices_and_nan(queue):
    rng = np.random.default_rng(2)
    img = rng.integers(0, 255, (3, 12, 16, 3), dtype=np.uint8)
    mx, my = _maps(10, 9, 16, 12)
    one = warpkit.remap(img, mx, my, queue=queue)
    assert one.shape == (3, 9, 10, 3)
    np.testing.assert_array_equal(warpkit.remap(img, np.stack([mx, my], -1), queue=queue), one)
    for k in range(3):
        np.testing.assert_array_equal(warpkit.remap(img[k], mx, my, queue=queue), one[k])
    # one map per image, planes and (B, Ho, Wo, 2)
    pmx, pmy = np.stack([mx, mx + 1, mx - 2]), np.stack([my, my, my + 0.5])
    per = warpkit.remap(img, pmx, pmy, queue=queue)
    for k in range(3):
        np.testing.assert_array_equal(per[k], warpkit.remap(img[k], pmx[k], pmy[k], queue=queue))
    np.testing.assert_array_equal(warpkit.remap(img, np.stack([pmx, pmy], -1), queue=queue), per)
    # device image and maps (a slice: an offset into its buffer) stay on the device
    dmx = cla.to_device(queue, np.concatenate([mx, mx]))[9:]
    d = warpkit.remap(cla.to_device(queue, img[0]), dmx, cla.to_device(queue, my), queue=queue)
    assert isinstance(d, cla.Array)
    np.testing.assert_array_equal(d.get(), one[0])
    # no source at NaN and infinite positions: the fill (0 with other paddings)
    bad = mx.copy()
    bad[0, :3] = [np.nan, np.inf, -np.inf]
    r = warpkit.remap(img[0], bad, my, fill=(1, 2, 3), queue=queue)
    assert r[0, :3].tolist() == [[1, 2, 3]] * 3
    assert warpkit.remap(img[0], bad, my, padding="border", queue=queue)[0, :3].max() == 0
    # float64 maps are converted; the model's input in the same pass
    np.testing.assert_array_equal(warpkit.remap(img[0], mx.astype(np.float64), my, queue=queue),
                                  one[0])
    f = warpkit.remap(img[0], mx, my, output_dtype="float32", layout="CHW", queue=queue)
    assert f.shape == (3, 9, 10) and np.abs(f - one[0].transpose(2, 0, 1) / 255).max() <= 0.5 / 255


def test_torch_tensors_in_and_out(queue):
    torch = pytest.importorskip("torch")
    img = np.random.default_rng(4).integers(0, 255, (12, 16, 3), dtype=np.uint8)
    mx, my = _maps(10, 9, 16, 12)
    out = warpkit.remap(torch.from_numpy(img), torch.from_numpy(mx), torch.from_numpy(my),
                        queue=queue)
    assert isinstance(out, torch.Tensor) and out.shape == (9, 10, 3)
    np.testing.assert_array_equal(out.numpy(), warpkit.remap(img, mx, my, queue=queue))


@pytest.mark.parametrize("call,exc,match", [
    (lambda i: warpkit.remap(i, np.zeros((4, 5))), ValueError,
     r"map_x without map_y must be \(Ho, Wo, 2\)"),
    (lambda i: warpkit.remap(i, np.zeros((4, 5)), np.zeros((4, 6))), ValueError,
     r"map_x and map_y must have one shape, got \(4, 5\) and \(4, 6\)"),
    (lambda i: warpkit.remap(i, np.zeros((2, 4, 5)), np.zeros((2, 4, 5))), ValueError,
     r"the maps must be \(Ho, Wo\), got \(2, 4, 5\)"),
    (lambda i: warpkit.remap(i, np.zeros((0, 5)), np.zeros((0, 5))), ValueError,
     r"the maps have no output pixels"),
    (lambda i: warpkit.remap(i, np.array([["a"]]), np.zeros((1, 1))), TypeError,
     r"map_x must hold numbers"),
    (lambda i: warpkit.remap(i, np.zeros((4, 5)), np.zeros((4, 5)), interpolation="lanczos"),
     ValueError, r"interpolation"),
])
def test_bad_maps(call, exc, match):
    with pytest.raises(exc, match=match):
        call(np.zeros((6, 7, 3), np.uint8))


K = np.array([[310.0, 0, 159.5], [0, 305.0, 119.5], [0, 0, 1]])


@pytest.mark.parametrize("dist", [[-0.28, 0.09, 0.001, -0.002], [-0.3, 0.1, 0.001, -0.002, -0.02],
                                  [0.1, -0.05, 0, 0, 0.01, 0.05, -0.02, 0.01],
                                  [-0.2, 0.05, 0.001, 0.001, 0, 0, 0, 0, 0.002, -0.001, 0.001,
                                   0.0005]])
def test_undistort_matches_opencv(dist, queue):
    """undistort_maps equals cv2.initUndistortRectifyMap's float maps; undistort equals
    cv2.remap with them within 1 level, and cv2.undistort (positions rounded to 1/32 px) within
    1 on a smooth picture where the source is inside. Another output camera (getOptimalNewCameraMatrix) too."""
    d = np.array(dist)
    for newK in (None, cv2.getOptimalNewCameraMatrix(K, d, (320, 240), 1.0)[0]):
        m1, m2 = cv2.initUndistortRectifyMap(K, d, None, K if newK is None else newK,
                                             (320, 240), cv2.CV_32FC1)
        mx, my = g.undistort_maps(K, d, (320, 240), newK)
        assert np.abs(mx - m1).max() <= 1e-3 and np.abs(my - m2).max() <= 1e-3
    yy, xx = np.mgrid[0:240, 0:320]
    img = np.clip(128 + 90 * np.sin(xx / 9.0)[..., None] * np.cos(yy / 7.0)[..., None]
                  * [1, 0.8, 0.5], 0, 255).astype(np.uint8)
    out = warpkit.undistort(img, K, d, queue=queue)
    m1, m2 = cv2.initUndistortRectifyMap(K, d, None, K, (320, 240), cv2.CV_32FC1)
    assert np.abs(out.astype(int) - cv2.remap(img, m1, m2, cv2.INTER_LINEAR)).max() <= 1
    # cv2.undistort's own fixed-point remap differs from cv2.remap by up to 4 levels where the
    # source is partly outside (positions in (-1, 0)): compared where every tap is inside
    inside = (m1 >= 0) & (m1 <= 319) & (m2 >= 0) & (m2 <= 239)
    assert np.abs(out.astype(int) - cv2.undistort(img, K, d))[inside].max() <= 1


def test_undistort_batch_takes_one_lens_for_every_image(small_queue):
    """A batch is undistorted in one launch with one lens shared by its images (one chain read
    for every item, nothing past it: on Oclgrind too), each as undistorted alone; coordinates
    given for neither every item nor one for all are refused before any launch."""
    from warpkit.engine.chain import chain_coords
    from warpkit.engine.stages import lens
    from warpkit.engine import warp_by

    rng = np.random.default_rng(4)
    batch = rng.integers(0, 256, (3, 24, 32, 3), dtype=np.uint8)
    Ks = K * [[0.1], [0.1], [1]]  # the same camera for a 32x24 image
    d = [-0.25, 0.07, 0.001, -0.002]
    out = warpkit.undistort(batch, Ks, d, queue=small_queue)
    for k in range(3):
        np.testing.assert_array_equal(out[k], warpkit.undistort(batch[k], Ks, d,
                                                                queue=small_queue))
    eye = np.eye(3)
    two = chain_coords([[eye, lens(Ks, d), eye]] * 2)
    with pytest.raises(ValueError, match="for each of the 3 items or one for all, got 2"):
        warp_by(batch, None, (32, 24), affine=False, coords=two, queue=small_queue)


def test_distort_points_inverts_opencv_undistort_points():
    d = np.array([-0.25, 0.08, 0.001, -0.001, -0.01])
    pts = np.array([[10.0, 12.0], [300.0, 20.0], [160.0, 120.0], [40.0, 200.0]])
    ideal = cv2.undistortPoints(pts[:, None], K, d, P=K)[:, 0]
    np.testing.assert_allclose(g.distort_points(K, d, ideal), pts, atol=0.05)


@pytest.mark.parametrize("K_,d,match", [
    ([[0, 0, 1], [0, 1, 1], [0, 0, 1]], [0] * 4, r"camera_matrix must be a finite 3x3"),
    (K, [0.1] * 3, r"dist_coeffs must be 4, 5, 8 or 12 finite numbers .* got 3"),
    (K, [0.0] * 14, r"14: the tilted-sensor model is not supported"),
])
def test_bad_cameras(K_, d, match):
    with pytest.raises(ValueError, match=match):
        g.undistort_maps(K_, d, (10, 10))


def test_a_bad_new_camera_is_named():
    with pytest.raises(ValueError, match=r"^new_camera_matrix must be a finite 3x3"):
        g.undistort_maps(K, [0.1] * 4, (10, 10), new_camera_matrix=np.eye(3) * [0, 1, 1])
