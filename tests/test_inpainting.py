"""The dropouts' inpainting fills ("inpaint_telea", "inpaint_ns": OpenCV's cv2.inpaint of the
holes, on the host between two passes) against albumentations 2.0.8's own apply on warpkit's
drawn holes: CoarseDropout, Erasing, GridDropout, XYMasking and ConstrainedCoarseDropout (by
its boxes' labels), 1 and 3 channels, uint8 and float32, after a flip and a crop; the targets
(masks' fill_mask, keypoints hidden, boxes' visible parts) as the same holes with a numeric fill
give them; in a OneOf; ported; refused where the holes could not be the output's."""

from __future__ import annotations

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos

A, PHOTOS = albumentations_and_photos()
_IMG = np.ascontiguousarray(PHOTOS["coffee"][40:260, 100:340])


def _steps(fill):
    return [W.CoarseDropout(num_holes_range=(2, 5), hole_height_range=(0.05, 0.25),
                            hole_width_range=(0.05, 0.25), fill=fill, fill_mask=9, p=1),
            W.Erasing(fill=fill, fill_mask=9, p=1),
            W.GridDropout(ratio=0.3, fill=fill, fill_mask=9, p=1),
            W.XYMasking(num_masks_x=(1, 2), num_masks_y=1, mask_x_length=(5, 20),
                        mask_y_length=(4, 12), fill=fill, fill_mask=9, p=1),
            W.ConstrainedCoarseDropout(num_holes_range=(1, 2), hole_height_range=(0.3, 0.5),
                                       hole_width_range=(0.3, 0.5), bbox_labels=[1], fill=fill,
                                       fill_mask=9, p=1)]


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("method", ["inpaint_telea", "inpaint_ns"])
def test_matches_albumentations_and_keeps_the_targets(queue, which, method):
    """After a crop and a flip: each sample's image as albumentations' apply inpaints the same
    holes (1 and 3 channels, uint8 and float32); its mask, keypoints and boxes as a numeric
    fill's (the same holes: the fill draws nothing)."""
    boxes = [[20, 30, 120, 150], [130, 20, 200, 110]]
    for channels, dtype in ((3, np.uint8), (1, np.uint8), (3, np.float32)):
        img = _IMG if channels == 3 else np.ascontiguousarray(_IMG[..., 1])
        img = img if dtype == np.uint8 else img.astype(np.float32) / 255
        call = dict(image=img, mask=np.zeros(img.shape[:2], np.uint8), boxes=boxes,
                    labels=[1, 2], keypoints=[[30, 40], [60, 90], [150, 60]])
        head = [W.Crop(10, 5, 230, 200), W.HorizontalFlip(p=1)]
        ours = W.Compose([*head, _steps(method)[which]], label_fields=["labels"],
                         remove_invisible=False)
        plain = W.Compose([*head, _steps(0)[which]], label_fields=["labels"],
                          remove_invisible=False)
        for index in range(2):
            got = ours(**call, seed=3, index=index, queue=queue)
            same = plain(**call, seed=3, index=index, queue=queue)
            step = got["params"]["steps"][2]
            assert step == same["params"]["steps"][2] and len(step["holes"])
            moved = np.ascontiguousarray(img[5:200, 10:230][:, ::-1])
            theirs = getattr(A, type(ours.transforms[2]).__name__)
            want = theirs(fill=method, p=1).apply(moved, holes=np.array(step["holes"]), seed=0)
            np.testing.assert_array_equal(got["image"], want.reshape(got["image"].shape))
            np.testing.assert_array_equal(got["mask"], same["mask"])
            assert (got["mask"] == 9).any()
            np.testing.assert_array_equal(got["keypoints_visible"], same["keypoints_visible"])
            np.testing.assert_allclose(got["boxes"], same["boxes"])
            assert list(got["labels"]) == list(same["labels"])


def test_in_a_oneof_and_ported(queue):
    """OneOf(an inpainting, a numeric fill): each sample as its choice made alone; the port of
    albumentations' pipeline with an inpainting fill."""
    pipe = W.Compose([W.HorizontalFlip(p=1), W.OneOf([
        W.CoarseDropout(hole_height_range=(0.2, 0.2), hole_width_range=(0.2, 0.2),
                        fill="inpaint_telea", fill_mask=5, p=1),
        W.CoarseDropout(hole_height_range=(0.2, 0.2), hole_width_range=(0.2, 0.2), fill=0,
                        fill_mask=5, p=1)])])
    imgs = [_IMG] * 6
    masks = [np.zeros(_IMG.shape[:2], np.uint8)] * 6
    got = pipe(image=imgs, mask=masks, seed=1, queue=queue)
    picked = [p["steps"][1]["choice"] for p in got["params"]]
    assert set(picked) == {0, 1}
    for k in range(6):
        alone = pipe(image=_IMG, mask=masks[0], seed=1, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        np.testing.assert_array_equal(alone["mask"], got["mask"][k])
        assert (got["mask"][k] == 5).any()
        holes = np.array(got["params"][k]["steps"][1]["params"]["holes"])
        if picked[k] == 0:
            want = A.CoarseDropout(fill="inpaint_telea", p=1).apply(
                np.ascontiguousarray(_IMG[:, ::-1]), holes=holes, seed=0)
            np.testing.assert_array_equal(got["image"][k], want)
    port = W.from_albumentations(A.Compose([A.Erasing(fill="inpaint_ns", p=1)]))
    assert port.transforms[0].fill == "inpaint_ns"
    out = port(image=_IMG, seed=0, queue=queue)
    holes = np.array(out["params"]["steps"][0]["holes"])
    np.testing.assert_array_equal(out["image"], A.Erasing(fill="inpaint_ns", p=1).apply(
        _IMG, holes=holes, seed=0))


def test_refusals():
    with pytest.raises(ValueError, match=r"CoarseDropout\(fill='inpaint_ns'\) with geometric "
                                         r"steps after it \(Rotate\) is not supported"):
        W.Compose([W.CoarseDropout(fill="inpaint_ns"), W.Rotate()])
    with pytest.raises(ValueError, match=r"CoarseDropout\(fill='inpaint_ns'\) with geometric "
                                         r"steps after it \(OneOf\)"):
        W.Compose([W.OneOf([W.CoarseDropout(fill="inpaint_ns"), W.Blur()]),
                   W.OneOf([W.HorizontalFlip(), W.Blur()])])
    with pytest.raises(ValueError, match="with mask_indices is not supported"):
        W.ConstrainedCoarseDropout(mask_indices=[1], fill="inpaint_telea")
    with pytest.raises(ValueError, match="fill_mask must be None, a number"):
        W.CoarseDropout(fill_mask="inpaint_telea")
    with pytest.raises(ValueError, match=r"inpaints 1 or 3 channels \(OpenCV's cv2.inpaint\), "
                                         r"got 4"):
        W.CoarseDropout(fill="inpaint_telea", p=1)(image=np.zeros((20, 20, 4), np.uint8),
                                                    seed=0)
    with pytest.raises(ValueError, match="CoarseDropout takes uint8 or float32 images"):
        W.CoarseDropout(fill="inpaint_telea", p=1)(image=np.zeros((20, 20, 3), np.uint16),
                                                    seed=0)
