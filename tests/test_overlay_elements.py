"""OverlayElements (albumentations' name and metadata: elements the call passes, pasted where
their masks are set, their ids into the masks) against albumentations 2.0.8 itself: after the
geometry (a colour operation of the pass, kernels_cl/colour.h's wk_paste8) and before it (on
the host, into copies of the sources the warp reads), photos and pieces of other photos as
elements, with boxes (OpenCV's INTER_AREA resize, the masks' INTER_NEAREST) and without
(drawn places), uint8, uint16 and float32, 1 to 4 channels, among other colour steps, ragged
batches with an element list per sample, replay, the port, refusals, the engine's checks of
malformed operations, and small cases on each device CI runs and Oclgrind."""

from __future__ import annotations

import random

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos, ragged_crops

A, PHOTOS = albumentations_and_photos()
_ASTRO = PHOTOS["astronaut"]
_COFFEE = PHOTOS["coffee"]


def _elements(dtype=np.uint8, channels: int = 3) -> list[dict]:
    """Pieces of photos as elements: boxed and resized down (a disc's mask, an id), boxed and
    resized up (no mask), unboxed and placed (a mask of its own size, an id), unboxed and wider
    than most images (resized to the image's size)."""
    def piece(a):
        a = a[..., :channels] if channels <= 3 else np.concatenate([a, a[..., :1]], 2)
        a = a[..., 0] if channels == 1 else a
        return _as(a, dtype)

    yy, xx = np.mgrid[:120, :150]
    disc = (((yy - 60) ** 2 + (xx - 75) ** 2) < 55 ** 2).astype(np.uint8) * 255
    noise = (np.random.default_rng(4).random((40, 70)) > 0.3).astype(np.uint8)
    return [{"image": piece(_COFFEE[100:220, 200:350]), "bbox": [0.05, 0.1, 0.45, 0.62],
             "mask": disc, "mask_id": 3},
            {"image": piece(_ASTRO[30:50, 200:230]), "bbox": [0.5, 0.55, 0.93, 0.97]},
            {"image": piece(_ASTRO[300:340, 100:170]), "mask": noise, "mask_id": 7},
            {"image": piece(_COFFEE[:200, :500])}]


def _as(a: np.ndarray, dtype) -> np.ndarray:
    if dtype == np.uint8:
        return np.ascontiguousarray(a)
    if dtype == np.uint16:
        return a.astype(np.uint16) * 257
    return a.astype(np.float32) / 255


def _theirs(image, mask, elements, placed):
    """albumentations' apply and apply_to_mask with its own preprocessing of ``elements`` and
    the places warpkit drew for those without a box (its boxes' places checked equal)."""
    t = A.OverlayElements(p=1)
    data = [t.preprocess_metadata(e, image.shape, random.Random(0)) for e in elements]
    for d, e, (x, y, w, h) in zip(data, elements, placed):
        assert d["overlay_image"].shape[:2] == (h, w)
        if "bbox" in e:
            assert d["offset"] == (y, x)
        d["offset"] = (y, x)
    return t.apply(image, data), t.apply_to_mask(mask.copy(), data)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_after_geometry_is_albumentations(dtype, channels, queue):
    """Crop, flip, then the elements on the output: every pixel of the image and the mask as
    albumentations' (a crop and a flip move whole pixels: its image before the paste is
    warpkit's)."""
    img = _as(_ASTRO[40:340, 60:460], dtype)
    img = img[..., 0] if channels == 1 else img if channels == 3 else \
        np.concatenate([img, img[..., 1:2]], 2)
    mask = np.zeros(img.shape[:2], np.uint8)
    mask[100:200, 50:300] = 1
    elements = _elements(dtype, channels)
    pipe = W.Compose([W.Crop(10, 20, 390, 270), W.HorizontalFlip(p=1), W.OverlayElements(p=1)])
    for seed in range(2):
        out = pipe(image=img, mask=mask, overlay_metadata=elements, seed=seed, queue=queue)
        placed = out["params"]["steps"][2]["elements"]
        base = np.ascontiguousarray(img[20:270, 10:390][:, ::-1])
        want, want_mask = _theirs(base, np.ascontiguousarray(mask[20:270, 10:390][:, ::-1]),
                                  elements, placed)
        np.testing.assert_array_equal(out["image"], want)
        np.testing.assert_array_equal(out["mask"], want_mask)
        assert {3, 7} <= set(np.unique(out["mask"]).tolist())
        assert placed[3][2:] == [380, 250]  # (wider than the image: resized to it)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_before_geometry_moves_the_elements(dtype, queue):
    """Elements then a rotation and a resize: the warp of albumentations' pasted image and mask
    (the same kernel on the same pixels: equal), for a numpy image, a batch, a list, a Pillow
    image (back as Pillow) and a torch tensor."""
    img = _as(_ASTRO[:300, :400], dtype)
    mask = np.zeros(img.shape[:2], np.uint8)
    elements = _elements(dtype)
    geo = [W.Affine(rotate=(20, 20), p=1), W.Resize((150, 180))]
    pipe = W.Compose([W.OverlayElements(p=1), *geo])
    out = pipe(image=img, mask=mask, overlay_metadata=elements, seed=5, queue=queue)
    params = out["params"]
    pasted, pasted_mask = _theirs(img, mask, elements, params["steps"][0]["elements"])
    replay = {"applied": True, "steps": params["steps"][1:]}
    want = W.Compose(geo)(image=pasted, mask=pasted_mask, params=replay, queue=queue)
    np.testing.assert_array_equal(out["image"], want["image"])
    np.testing.assert_array_equal(out["mask"], want["mask"])
    assert {3, 7} <= set(np.unique(out["mask"]).tolist())
    np.testing.assert_array_equal(img, _as(_ASTRO[:300, :400], dtype))  # (the input untouched)
    batch = pipe(image=np.stack([img, img]), overlay_metadata=[elements, elements[:1]],
                 seed=5, queue=queue)
    np.testing.assert_array_equal(batch["image"][0], out["image"])
    listed = pipe(image=[img, img[:200]], overlay_metadata=[elements, []], seed=5, queue=queue)
    np.testing.assert_array_equal(listed["image"][0], out["image"])
    np.testing.assert_array_equal(
        listed["image"][1], W.Compose(geo)(image=img[:200], params={
            "applied": True, "steps": listed["params"][1]["steps"][1:]}, queue=queue)["image"])
    if dtype == np.uint8:
        from PIL import Image
        pil = pipe(image=Image.fromarray(img), overlay_metadata=elements, seed=5, queue=queue)
        assert isinstance(pil["image"], Image.Image)
        np.testing.assert_array_equal(np.asarray(pil["image"]), out["image"])


def test_torch_images_before_the_geometry(queue):
    torch = pytest.importorskip("torch")
    img = _ASTRO[:300, :400].copy()
    pipe = W.Compose([W.OverlayElements(p=1), W.Affine(rotate=(10, 10), p=1)])
    out = pipe(image=img, overlay_metadata=_elements(), seed=2, queue=queue)["image"]
    tensor = torch.from_numpy(img).permute(2, 0, 1)
    got = pipe(image=tensor, overlay_metadata=_elements(), seed=2, queue=queue)["image"]
    np.testing.assert_array_equal(got.permute(1, 2, 0).numpy(), out)
    np.testing.assert_array_equal(tensor.permute(1, 2, 0).numpy(), img)


def test_among_colour_steps(queue):
    """A brightness before the paste leaves the elements as they are, an inversion after it
    turns them too, and a blur after it blurs across their edges: albumentations' sequence,
    within a level (the blur's rounding). A paste after a blur, and before and after a
    physics-based flare: the steps' own results with the elements pasted between."""
    img = _ASTRO[:200, :300].copy()
    elements = _elements()[:3]
    steps = [W.RandomBrightnessContrast((0.2, 0.2), (0, 0), p=1), W.OverlayElements(p=1),
             W.InvertImg(p=1)]
    out = W.Compose(steps)(image=img, overlay_metadata=elements, seed=1, queue=queue)
    placed = out["params"]["steps"][1]["elements"]
    bright = A.RandomBrightnessContrast((0.2, 0.2), (0, 0), p=1)(image=img)["image"]
    want = 255 - _theirs(bright, np.zeros(img.shape[:2]), elements, placed)[0]
    np.testing.assert_array_equal(out["image"], want)
    blur = W.Compose([W.OverlayElements(p=1), W.GaussianBlur((5, 5), (1.5, 1.5), p=1)])(
        image=img, overlay_metadata=elements, seed=1, queue=queue)
    pasted = _theirs(img, np.zeros(img.shape[:2]), elements,
                     blur["params"]["steps"][0]["elements"])[0]
    want = A.GaussianBlur((5, 5), (1.5, 1.5), p=1)(image=pasted)["image"]
    assert np.abs(blur["image"].astype(int) - want).max() <= 1
    # after a blur (the paste in the blur's pass), and before and after a layer the device
    # makes (the physics-based flare's areas, then the call's table, in the list's buffer)
    got = W.Compose([W.GaussianBlur((5, 5), (1.5, 1.5), p=1), W.OverlayElements(p=1)])(
        image=img, overlay_metadata=elements, seed=1, queue=queue)
    blurred = W.Compose([W.GaussianBlur((5, 5), (1.5, 1.5), p=1)])(
        image=img, params={"applied": True, "steps": got["params"]["steps"][:1]},
        queue=queue)["image"]
    np.testing.assert_array_equal(got["image"], _theirs(
        blurred, np.zeros(img.shape[:2]), elements, got["params"]["steps"][1]["elements"])[0])
    flare = W.RandomSunFlare(method="physics_based", src_radius=80, p=1)
    for steps in ([W.OverlayElements(p=1), flare], [flare, W.OverlayElements(p=1)]):
        got = W.Compose(steps)(image=img, overlay_metadata=elements, seed=2, queue=queue)
        k = int(steps[0] is flare)
        placed = got["params"]["steps"][k]["elements"]
        if k:
            lit = W.Compose([flare])(image=img, params={
                "applied": True, "steps": got["params"]["steps"][:1]}, queue=queue)["image"]
            want = _theirs(lit, np.zeros(img.shape[:2]), elements, placed)[0]
        else:
            want = W.Compose([flare])(image=_theirs(img, np.zeros(img.shape[:2]), elements,
                                                    placed)[0],
                                      params={"applied": True,
                                              "steps": got["params"]["steps"][1:]},
                                      queue=queue)["image"]
        np.testing.assert_array_equal(got["image"], want)


def test_ragged_batches_replay_port_and_dicts(queue):
    """Ragged crops, each with its own elements (and one without): each as alone and as
    replayed; Compose.sample; to_dict/from_dict; masks= lists get the ids; a pipeline ported
    from albumentations (boxed elements: no draws) gives albumentations' own result."""
    imgs = ragged_crops([_ASTRO, _COFFEE], 6)
    small = [{"image": _ASTRO[10:20, 10:25].copy(), "mask_id": 2},
             {"image": _COFFEE[50:60, 50:58].copy(), "bbox": [0.1, 0.1, 0.6, 0.5]}]
    per = [small, small[1:], [], small, small[:1], small]
    pipe = W.Compose([W.RandomResizedCrop((40, 48)), W.OverlayElements(p=0.8)])
    masks = [[np.zeros(i.shape[:2], np.uint8)] for i in imgs]
    got = pipe(image=imgs, masks=masks, overlay_metadata=per, seed=3, queue=queue)
    applied = [p["steps"][1]["applied"] for p in got["params"]]
    assert True in applied and False in applied
    for k, img in enumerate(imgs):
        alone = pipe(image=img, masks=masks[k], overlay_metadata=per[k], seed=3, index=k,
                     queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        np.testing.assert_array_equal(alone["masks"][0], got["masks"][k][0])
        again = pipe(image=img, overlay_metadata=per[k], params=got["params"][k], queue=queue)
        np.testing.assert_array_equal(again["image"], got["image"][k])
        has_id = applied[k] and any("mask_id" in e for e in per[k])
        assert (got["masks"][k][0] == 2).any() == has_id
        assert pipe.sample(img.shape[:2], 3, index=k, overlay_metadata=per[k]) == got["params"][k]
    same = W.Compose.from_dict(pipe.to_dict())
    np.testing.assert_array_equal(
        same(image=imgs, overlay_metadata=per, seed=3, queue=queue)["image"][2], got["image"][2])
    key = W.OverlayElements(metadata_key="stickers", p=1)
    assert W.Compose.from_dict(W.Compose([key]).to_dict()).transforms[0].metadata_key == "stickers"
    theirs = A.Compose([A.HorizontalFlip(p=1), A.OverlayElements(p=1)])
    boxed = [e for e in _elements() if "bbox" in e]
    img = _ASTRO[:256, :320].copy()
    mask = np.zeros(img.shape[:2], np.uint8)
    want = theirs(image=img, mask=mask, overlay_metadata=boxed)
    ours = W.from_albumentations(theirs)(image=img, mask=mask, overlay_metadata=boxed, seed=0,
                                         queue=queue)
    np.testing.assert_array_equal(ours["image"], want["image"])
    np.testing.assert_array_equal(ours["mask"], want["mask"])


def test_resizes_without_opencv(monkeypatch):
    """Where OpenCV is not installed, an element's INTER_AREA resize comes from engine.resize8's
    tables: 8-bit within a level of cv2.resize (down by whole and by fractional scales, and
    up), float32 within 1e-3 (the upscale's weights are OpenCV's fixed point)."""
    import cv2

    from warpkit.augment import _domain
    from warpkit.engine.resize8 import INTER_AREA

    piece = _COFFEE[100:190, 200:330].copy()
    sizes = [(65, 45), (13, 9), (200, 150), (130, 90)]
    want = {(dt, s): cv2.resize(_as(piece, dt), s, interpolation=cv2.INTER_AREA)
            for dt in (np.uint8, np.float32) for s in sizes}
    monkeypatch.setattr(_domain, "_opencv", lambda: None)
    for (dt, (w, h)), ref in want.items():
        got = _domain._resized(_as(piece, dt), w, h, INTER_AREA)
        d = np.abs(got.astype(np.float64) - ref.reshape(got.shape))
        assert d.max() <= (1 if dt == np.uint8 else 1e-3), (dt, w, h, d.max())


def test_refusals():
    img = _ASTRO[:100, :120].copy()
    elem = {"image": _ASTRO[:10, :10].copy()}
    cases = [([W.RandomGamma(p=1), W.OverlayElements(p=1), W.HorizontalFlip()], "before them"),
             ([W.OverlayElements(p=1), W.CropNonEmptyMaskIfExists(20, 20)], "masks as given"),
             ([W.OverlayElements(p=1), W.Mosaic()], "Mosaic")]
    for steps, match in cases:
        with pytest.raises(ValueError, match=match):
            W.Compose(steps)
    pipe = W.Compose([W.OverlayElements(p=1)])
    for kw, match in (({}, "the call has none"),
                      ({"overlay_metadata": "x"}, "dict"),
                      ({"overlay_metadata": {"bbox": [0, 0, 1, 1]}}, "no 'image'"),
                      ({"overlay_metadata": {**elem, "alpha": 1}}, "has keys"),
                      ({"overlay_metadata": {"image": [[1]]}}, "numpy array"),
                      ({"overlay_metadata": {**elem, "bbox": [0.5, 0, 0.4, 1]}}, "x_max > x_min"),
                      ({"overlay_metadata": {**elem, "bbox": [0, 0, 1.2, 1]}}, "in \\[0, 1\\]"),
                      ({"overlay_metadata": {**elem, "bbox": [0.5, 0, 0.504, 1]}}, "no whole"),
                      ({"overlay_metadata": {**elem, "mask": np.ones((3, 3))}}, "own pixels"),
                      ({"overlay_metadata": {"image": _ASTRO[:9, :9, 0].copy()}}, "channel"),
                      ({"overlay_metadata": {"image": _ASTRO[:9, :9] / 255.0}}, "float64"),
                      ({"overlay_metadata": {"image": _ASTRO[:9, :9].astype(np.float32)}},
                       "dtype")):
        with pytest.raises(ValueError, match=match):
            pipe(image=img, seed=0, **kw)
    out = pipe(image=img, overlay_metadata=[elem, elem], seed=0)
    for bad in ([[0, 0, 10, 10]], [[115, 0, 10, 10], [0, 0, 10, 10]], [[0, 0, 9, 10]] * 2,
                [[0.5, 0, 10, 10]] * 2):
        step = {**out["params"]["steps"][0], "elements": bad}
        with pytest.raises(ValueError, match="elements|replay"):
            pipe(image=img, overlay_metadata=[elem, elem],
                 params={"applied": True, "steps": [step]})


def test_malformed_operations_are_refused(queue):
    """The engine's checks of COL_PASTE operations before any launch (an element outside the
    output or not of whole pixels, values past the call's colour table, bits not 16-bit,
    pixels not finite); a well-formed one pastes where its bits are set, after another
    operation's place in the table."""
    from warpkit.engine.core import COLOUR_WORDS, paste_data, paste_ops, warp_by, with_table

    img = np.zeros((8, 8, 3), np.uint8)
    sel = np.array([[1, 0], [1, 1]], bool)
    table = np.concatenate([np.full(5, 7, np.float32),
                            paste_data(sel, np.full((2, 2, 3), 9, np.float32))])

    def run(op, table=table):
        colour = np.concatenate([op, np.zeros((1, COLOUR_WORDS), np.float32)]).reshape(1, -1)
        return warp_by(img, np.eye(3), (8, 8), queue=queue, colour=with_table(colour, table))

    got = run(paste_ops(1, 1, 2, 2, 5))
    np.testing.assert_array_equal(got[1:3, 1:3, 0], [[9, 0], [9, 9]])
    assert got.sum() == 9 * 3 * 3
    bad_bits = table.copy()
    bad_bits[5] = 70000
    bad_pixels = table.copy()
    bad_pixels[-1] = np.nan
    for op, t in ((paste_ops(7, 1, 2, 2, 5), table), (paste_ops(1, 1, 2, 2, 6), table),
                  (paste_ops(1, 1, 2, 2, 5), bad_bits), (paste_ops(1, 1, 2, 2, 5), bad_pixels),
                  (paste_ops(1, 1, 2, 2, 5), None)):
        with pytest.raises(ValueError, match="COL_PASTE"):
            run(op, t) if t is not None else warp_by(
                img, np.eye(3), (8, 8), queue=queue, colour=np.concatenate(
                    [op, np.zeros((1, COLOUR_WORDS), np.float32)]).reshape(1, -1))
    for word, value, match in ((1, 1.5, "whole pixels"), (2, np.nan, "whole pixels"),
                               (3, np.inf, "whole pixels"), (7, np.nan, "16-bit halves")):
        bad = paste_ops(1, 1, 2, 2, 5)
        bad[0, word] = value
        with pytest.raises(ValueError, match=match):
            run(bad)


def test_small_cases_on_every_device_and_oclgrind(small_queue):
    """Elements on a rotated 21 x 13 output (partly selected, at the edges, one wider than the
    output), then a gamma: the reference device's numbers, and the selected pixels the
    elements' own before the gamma; uint8 and float32, 1 and 3 channels, both kernels."""
    from conftest import reference_queue

    geo = W.RandomAffine(degrees=30, size=(13, 21))
    sel = np.array([[1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1]] * 5, np.uint8)
    for channels, dt, interpolation in ((3, np.uint8, "linear"), (1, np.float32, "cubic"),
                                        (3, np.float32, "linear")):
        img = _as(_ASTRO[100:117, 150:169], dt)
        piece = _as(_COFFEE[200:205, 300:311], dt)
        img, piece = (img[..., 0], piece[..., 0]) if channels == 1 else (img, piece)
        big = _as(_COFFEE[:20, :30], dt)[..., :channels].squeeze()  # (resized to the output)
        elements = [{"image": big, "mask": np.eye(20, 30)},
                    {"image": piece, "bbox": [0.8, 0, 1, 1]}, {"image": piece, "mask": sel}]
        pipe = W.Compose([geo, W.OverlayElements(p=1)], interpolation=interpolation)
        out = pipe(image=img, overlay_metadata=elements, seed=3, queue=small_queue)
        ref = pipe(image=img, overlay_metadata=elements, seed=3, queue=reference_queue())
        tol = 1 if dt == np.uint8 else 1e-5
        assert np.abs(out["image"].astype(np.float64) - ref["image"]).max() <= tol
        x, y, w, h = out["params"]["steps"][1]["elements"][2]
        got = out["image"][y:y + h, x:x + w]
        np.testing.assert_array_equal(got[sel != 0], piece[sel != 0])
        gamma = W.Compose([geo, W.OverlayElements(p=1), W.RandomGamma((150, 150), p=1)],
                          interpolation=interpolation)
        out = gamma(image=img, overlay_metadata=elements, seed=3, queue=small_queue)["image"]
        ref = gamma(image=img, overlay_metadata=elements, seed=3, queue=reference_queue())["image"]
        assert np.abs(out.astype(np.float64) - ref).max() <= tol
