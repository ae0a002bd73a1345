"""FancyPCA (the channels' covariance and its eigenproblem on the device: kernels_cl/
colour_pass.cl's cp_pca_sums, pca_eigh and cp_pca_matrix) against albumentations 2.0.8's: its
noise ``V diag(alpha l) (x - mean)`` takes each eigenvector with the sign LAPACK gives it, so
the device solves the eigenproblem by LAPACK's own steps; on photos, on random colour
distributions, 1 to 4 channels, uint8, uint16 and float32, after geometry, in batches, and on
Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W

from helpers import assert_batch_is_alone, device_fp64, small_rotated_cases

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")  # no network check at import
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import skimage.data
    import albumentations as A

PHOTOS = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea(),
          skimage.data.rocket(), skimage.data.moon()[..., None]]
ALPHAS = [[0.3333, -0.0818, -0.1956, 0.05], [-2.0, 1.5, 0.7, -0.4], [0.0, 0.0, 1.0, 0.0]]


def _params(alpha_vector) -> dict:
    return {"applied": True, "steps": [{"applied": True, "alpha_vector": list(alpha_vector)}]}


def _ours(img, alpha_vector, queue, steps=()):
    pipe = W.Compose([*steps, W.FancyPCA(p=1)])
    params = _params(alpha_vector) if not steps else None
    return pipe(image=img, seed=0, params=params, queue=queue)["image"]


def _theirs(img: np.ndarray, alpha_vector) -> np.ndarray:
    c = 1 if img.ndim == 2 else img.shape[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = A.FancyPCA(p=1).apply(img.copy(), alpha_vector=np.float32(alpha_vector[:c]))
    return out.reshape(img.shape)


def _theirs_any_sign(img: np.ndarray, alpha_vector) -> list[np.ndarray]:
    """albumentations' formula (float32 values, numpy's cov and eigh) with every choice of the
    eigenvectors' signs: what a device without fp64 may give (its float iterations can end with
    an eigenvector of the other sign)."""
    import itertools

    c = img.shape[-1]
    x = img.reshape(-1, c).astype(np.float32) / (255 if img.dtype == np.uint8 else 1)
    xc = x - x.mean(0)
    vals, vecs = np.linalg.eigh(np.cov(xc, rowvar=False))
    perm = vals[::-1].argsort()
    vals, vecs = vals[perm], vecs[:, perm]
    outs = []
    for signs in itertools.product((1, -1), repeat=c):
        noise = (vecs * np.array(signs)) @ np.diag(np.float32(alpha_vector[:c]) * vals) @ xc.T
        y = np.clip(x + noise.T, 0, 1)
        outs.append(np.rint(y * 255).astype(np.uint8).reshape(img.shape) if img.dtype == np.uint8
                    else y.astype(np.float32).reshape(img.shape))
    return outs


def _close(got: np.ndarray, want: np.ndarray, share: float = 0.97) -> None:
    """Integer images within 1 level, ``share`` of them exact (albumentations takes the mean in
    float32 with numpy's sequential sum over the pixels, a few thousandths of a level off, so
    sums landing on a half round either way); float32 within 1e-4 (of 1)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    if got.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)
        return
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert d.max() <= (1 if got.dtype == np.uint8 else 4), d.max()
    assert (d == 0).mean() >= share, (d == 0).mean()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_photos_are_albumentations(dtype, queue):
    """Photos of 3 channels and one, three weight vectors (the last one moves only along the
    smallest component), each dtype albumentations takes."""
    for photo in PHOTOS:
        img = (photo if dtype == np.uint8 else photo.astype(np.uint16) * 257
               if dtype == np.uint16 else photo.astype(np.float32) / 255)
        if img.shape[-1] == 1:
            img = img[..., 0]
        for a in ALPHAS:
            _close(_ours(img, a, queue), _theirs(img, a), 0.97 if dtype == np.uint8 else 0.0)


def test_eigenvector_signs_are_lapacks(queue):
    """200 images of random colour distributions (random mixes of 2-4 sources, 2 to 4
    channels) and random weights: albumentations' result, which each eigenvector enters with
    LAPACK's sign. In double on devices with fp64, every one; in float, LAPACK's iterations
    end elsewhere now and then (an eigenvector of the other sign)."""
    rng = np.random.default_rng(3)
    wrong = total = 0
    for k in range(200):
        c = 2 + k % 3
        src = rng.random((24, 20, 2 + k % 3))
        mix = rng.standard_normal((src.shape[-1], c)) * rng.uniform(0.05, 0.5)
        img = np.clip(0.5 + (src - 0.5) @ mix, 0, 1).astype(np.float32)
        a = rng.normal(0, 1.0, 4).tolist()
        got, want = _ours(img, a, queue), _theirs(img, a)
        total += 1
        wrong += not np.allclose(got, want, rtol=0, atol=1e-4)
    assert wrong == 0 if device_fp64(queue) else wrong <= total // 10, (wrong, total)


def test_channel_counts_and_constant_channels(queue):
    """1 to 4 channels; channels that are constant (their covariance exactly 0, the sums taken
    about the first pixel) and an image of one value (no noise)."""
    rng = np.random.default_rng(4)
    base = PHOTOS[0][::4, ::4]
    for c in range(1, 5):
        img = np.dstack([base, base[..., :1]])[..., :c] if c > 1 else base[..., 0]
        for a in ALPHAS:
            _close(_ours(img, a, queue), _theirs(img, a))
    two = base[..., :3].copy()
    two[..., 1] = 77
    two[..., 2] = 200
    _close(_ours(two, ALPHAS[1], queue), _theirs(two, ALPHAS[1]))
    flat = np.full((9, 7, 3), 131, np.uint8)
    np.testing.assert_array_equal(_ours(flat, ALPHAS[1], queue), flat)
    noise = rng.integers(0, 256, (33, 47, 4)).astype(np.uint8)
    _close(_ours(noise, ALPHAS[0], queue), _theirs(noise, ALPHAS[0]))


def test_after_geometry_batches_and_draws(queue):
    """FancyPCA takes the image the steps before it left (albumentations' on warpkit's
    geometric result, with the recorded weights); a batch of ragged photos equals each sample
    alone; the weights are normals of deviation alpha, as albumentations draws them."""
    geo = W.RandomResizedCrop(96)
    pipe = W.Compose([geo, W.HorizontalFlip(p=0.5), W.FancyPCA(alpha=0.8, p=1)])
    for k, photo in enumerate(PHOTOS[:4]):
        out = pipe(image=photo, seed=k, queue=queue)
        steps = out["params"]["steps"]
        base = W.Compose([geo, W.HorizontalFlip(p=0.5)])(
            image=photo, seed=k, queue=queue,
            params={"applied": True, "steps": steps[:2]})["image"]
        _close(out["image"], _theirs(base, steps[2]["alpha_vector"]))
    crops = [p[:int(90 + 13 * i), :int(120 - 7 * i)].copy() for i, p in enumerate(PHOTOS[:4])]
    assert_batch_is_alone(pipe, crops, 5, queue)
    draws = np.array([W.FancyPCA(alpha=0.25, p=1).draw(np.random.default_rng(s), (10, 10))
                      ["alpha_vector"] for s in range(500)])
    assert draws.shape == (500, 4)
    assert abs(draws.mean()) < 0.03 and abs(draws.std() - 0.25) < 0.02
    assert np.array_equal(draws, draws.astype(np.float32))  # albumentations' float32 weights


def test_ported_and_refused(queue):
    ours = W.from_albumentations(A.Compose([A.FancyPCA(alpha=0.3, p=0.7)]))
    t = ours.transforms[0]
    assert isinstance(t, W.FancyPCA) and t.alpha == 0.3 and t.p == 0.7
    assert W.Compose.from_dict(ours.to_dict()).transforms[0].alpha == 0.3
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        W.FancyPCA(alpha=-1)
    with pytest.raises(TypeError, match="FancyPCA takes images of 1 to 4 channels, got 5"):
        W.Compose([W.FancyPCA(p=1)])(image=np.zeros((8, 8, 5), np.uint8), seed=0, queue=queue)
    from warpkit.engine.core import COL_PCA, COLOUR_WORDS, warp_by
    img = np.zeros((6, 6, 3), np.uint8)
    row = np.zeros((1, COLOUR_WORDS), np.float32)
    row[0, :3] = [COL_PCA, 0.5, np.inf]
    with pytest.raises(ValueError, match=r"COL_PCA's weights must be finite"):
        warp_by(img, np.eye(3), (6, 6), colour=row, queue=queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Outputs 1 to 19 pixels on a side after a rotation, 1 and 3 channels, uint8 and float32:
    albumentations' on the same device's geometric result."""
    for geo, k, im, base in small_rotated_cases(PHOTOS[1][100:121, 200:223], small_queue):
        out = W.Compose([geo, W.FancyPCA(alpha=1.5, p=1)])(image=im, seed=k, queue=small_queue)
        a = out["params"]["steps"][1]["alpha_vector"]
        if base.shape[0] * base.shape[1] == 1:  # (albumentations' cov divides by N - 1 = 0)
            np.testing.assert_array_equal(out["image"], base)
        elif device_fp64(small_queue) or base.ndim == 2 or base.shape[-1] == 1:
            _close(out["image"], _theirs(base, a), 0.9)
        else:  # (float iterations: an eigenvector may take the other sign)
            fits = []
            for want in _theirs_any_sign(base, a):
                try:
                    _close(out["image"], want, 0.9)
                    fits.append(True)
                except AssertionError:
                    fits.append(False)
            assert any(fits)
