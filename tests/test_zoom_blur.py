"""ZoomBlur (warpkit.augment._filters, kernels_cl/colour.h's WK_COL_ZOOM) against albumentations
2.0.8's apply of the recorded zooms: photos in uint8 and float32, 1-4 channels and three dtypes
on small images (crops of a few pixels), its draws, batches and replay, the port, the refusals
and the engine's checks, and on every device and Oclgrind."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from warpkit import augment as W
from warpkit.augment._filters import zoom_factors

from helpers import assert_alone_and_replayed, check_small_cases, warp_with_rows

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import albumentations as A
    import skimage.data

PHOTOS = {"astronaut": skimage.data.astronaut(), "coffee": skimage.data.coffee(),
          "chelsea": skimage.data.chelsea()}
#: (max_factor, step_factor) as fixed ranges: albumentations' defaults' ends, a few zooms,
#: large ones
PARAMS = [((1.31, 1.31), (0.01, 0.01)), ((1.2, 1.2), (0.03, 0.03)), ((1.05, 1.05), (0.02, 0.02)),
          ((2.0, 2.0), (0.1, 0.1))]


def _theirs(img: np.ndarray, params: dict) -> np.ndarray:
    return A.ZoomBlur(p=1).apply(img, zoom_factors=zoom_factors(params))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("photo", list(PHOTOS))
def test_photos_are_albumentations(photo, dtype, queue):
    """albumentations' apply of the recorded zooms (numpy's arange, as it makes them): within a
    level on uint8 (at most 1 value in 10^3 off at all), float32 within 2e-5; the image
    changed."""
    img = PHOTOS[photo] if dtype == np.uint8 else PHOTOS[photo].astype(np.float32) / 255
    for mf, sf in PARAMS:
        out = W.Compose([W.ZoomBlur(max_factor=mf, step_factor=sf, p=1)])(
            image=img, seed=0, queue=queue)
        want = _theirs(img, out["params"]["steps"][0])
        d = np.abs(out["image"].astype(np.float64) - want)
        if dtype == np.uint8:
            assert d.max() <= 1 and (d > 0).mean() < 1e-3, (mf, sf)
        else:
            assert d.max() <= 2e-5, (mf, sf)
        assert (out["image"] != img).mean() > 0.3


@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 2), (4, 45, 4), (37, 3, 3), (1, 9, 3)],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_channels_dtypes_and_small_images(shape, dtype, queue):
    """1-4 channels, three dtypes, sides of 1 to 45 pixels (crops of one or two pixels, a
    resize of a single row): albumentations' apply within a level (float32 within 2e-5)."""
    rs = np.random.default_rng(4)
    peak = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0}[dtype]
    img = (rs.random(shape) * peak).astype(dtype)
    tol = 2e-5 if dtype == np.float32 else 1
    for mf, sf in PARAMS + [((3.0, 3.0), (0.25, 0.25))]:
        out = W.Compose([W.ZoomBlur(max_factor=mf, step_factor=sf, p=1)])(
            image=img, seed=0, queue=queue)
        want = _theirs(img, out["params"]["steps"][0]).reshape(shape)
        assert np.abs(out["image"].astype(np.float64) - want).max() <= tol, (mf, sf)


def test_draws_follow_albumentations_laws():
    """The step uniform in its range, the largest zoom uniform in its and at least 1 + step;
    albumentations' readings of a number for each argument."""
    t = W.ZoomBlur(max_factor=(1.1, 1.5), step_factor=(0.01, 0.05), p=1)
    ps = [t.draw(np.random.default_rng(s), (32, 32)) for s in range(600)]
    step, top = np.array([p["step"] for p in ps]), np.array([p["max"] for p in ps])
    assert 0.01 <= step.min() and step.max() <= 0.05 and abs(step.mean() - 0.03) < 0.002
    assert 1.1 <= top.min() and top.max() <= 1.5 and abs(top.mean() - 1.3) < 0.02
    assert all(len(zoom_factors(p)) >= 2 and zoom_factors(p)[0] == 1.0 for p in ps)
    small = W.ZoomBlur(max_factor=(1.0, 1.0), step_factor=(0.2, 0.2), p=1)
    assert small.draw(np.random.default_rng(0), (8, 8))["max"] == 1.2  # at least 1 + step
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.ZoomBlur(max_factor=1.5, step_factor=0.02)
    ours = W.ZoomBlur(max_factor=1.5, step_factor=(0.01, 0.02))
    assert ours.max_factor == tuple(theirs.max_factor) == (1.0, 1.5)
    # a number x for step_factor is (0, x) to both: a step of 0, which warpkit refuses
    assert tuple(theirs.step_factor) == (0.0, 0.02)
    with pytest.raises(ValueError, match="a step of 0"):
        W.ZoomBlur(step_factor=0.02)


def test_batches_replay_port_and_refusals(queue):
    """A ragged batch after geometry, normalised to float CHW, with GaussianBlur on other items
    of the same passes: each sample as alone and replayed; to_dict / from_dict and
    from_albumentations; the refusals and the engine's checks."""
    photos = [p[::2, ::2] for p in PHOTOS.values()] * 2
    pipe = W.Compose([W.RandomResizedCrop(48), W.OneOf([W.ZoomBlur(p=1), W.GaussianBlur(p=1)]),
                      W.RandomBrightnessContrast(p=1)],
                     output_dtype="float32", mean=[0.5] * 3, std=[0.25] * 3, layout="CHW")
    got = pipe(image=photos, seed=1, queue=queue)
    assert {p["steps"][1]["choice"] for p in got["params"]} == {0, 1}
    assert_alone_and_replayed(pipe, photos, got, 1, queue)
    t = W.ZoomBlur(max_factor=(1.1, 1.4), step_factor=(0.02, 0.04), p=0.3)
    back = W.Compose.from_dict(W.Compose([t]).to_dict()).transforms[0]
    assert back.config() == t.config() and back.p == 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ported = W.from_albumentations(A.Compose([A.ZoomBlur(max_factor=(1.1, 1.4),
                                                             step_factor=(0.02, 0.04), p=0.3)]))
    assert ported.transforms[0].config() == t.config() and ported.transforms[0].p == 0.3
    with pytest.raises(ValueError, match="more than 1000 zooms"):
        W.ZoomBlur(step_factor=(0.0, 0.02))
    with pytest.raises(ValueError, match="more than 1000 zooms"):
        W.ZoomBlur(max_factor=(1, 30), step_factor=(0.01, 0.02))
    with pytest.raises(ValueError, match="max_factor"):
        W.ZoomBlur(max_factor=(0.5, 1.2))
    from warpkit.engine.core import COL_ZOOM

    img = PHOTOS["coffee"][:20, :30].copy()
    for row in ([COL_ZOOM, 0, 0.01, 0, 0], [COL_ZOOM, 2.5, 0.01, 0, 0],
                [COL_ZOOM, 3, 0.0, 0, 0], [COL_ZOOM, 3, np.nan, 0, 0]):
        with pytest.raises(ValueError, match="COL_ZOOM needs a whole count"):
            warp_with_rows(img, [row], queue)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """ZoomBlur after a rotation (a 21 x 13 output), and one before a colour step: the default
    device's numbers."""
    img = PHOTOS["astronaut"][100:117, 150:169].copy()
    geo = W.RandomAffine(degrees=30, size=(13, 21))
    cases = [[W.ZoomBlur(max_factor=(1.5, 1.5), step_factor=(0.1, 0.1), p=1)],
             [W.ZoomBlur(max_factor=(2.5, 2.5), step_factor=(0.5, 0.5), p=1),
              W.RandomGamma(p=1)]]
    check_small_cases(img, geo, cases, small_queue)


def test_column_tables_step_by_at_most_one():
    """The kernel reads a block's 8 columns of a zoom from the 8 pixels after its first and one
    more (kernels_cl/colour_pass.cl's cp_zoom8): every zoom's first columns rise by 0 or 1 a
    pixel, and the second column is the next one wherever its weight is not 0."""
    from warpkit.engine.core import zoom_axes
    for n in (1, 2, 3, 7, 8, 9, 45, 224, 641):
        zooms = np.concatenate([1.0 + np.arange(40) * 0.01, 1.0 + np.arange(1, 30) * 0.25])
        i0, i1, w = zoom_axes(n, zooms, True)
        assert set(np.unique(np.diff(i0, axis=1))) <= {0, 1}, n
        assert ((i1 == i0 + 1) | (w == 0)).all() and (i0 >= 0).all() and (i1 < n).all(), n
