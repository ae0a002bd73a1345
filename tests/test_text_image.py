"""TextImage (albumentations' name and metadata: texts the call passes, drawn into their boxes
with a TrueType font by Pillow, on the host between two passes) against albumentations 2.0.8's
own apply on warpkit's recorded texts: 1, 3 and 4 channels, uint8 and float32, with and without
clear_bg, after a flip; the text changes (insertion, swap, deletion) as albumentations makes
them; draws, replay without the metadata, ragged batches with per-sample texts, the dict round
trip, the port and the refusals. The font is Pillow's own (its embedded TrueType face, written
to a file), so the test needs no system fonts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from warpkit import augment as W

from helpers import albumentations_and_photos

A, PHOTOS = albumentations_and_photos()
_IMG = np.ascontiguousarray(PHOTOS["astronaut"][:200, :240])
_META = [{"bbox": [0.1, 0.1, 0.8, 0.3], "text": "the quick brown fox jumps"},
         {"bbox": [0.05, 0.5, 0.6, 0.7], "text": "hello world again"},
         {"bbox": [0.3, 0.75, 0.95, 0.95], "text": "lorem ipsum dolor sit amet"}]


@pytest.fixture(scope="module")
def font(tmp_path_factory) -> str:
    from PIL import ImageFont

    face = ImageFont.load_default(size=20)
    if not hasattr(face, "font_bytes"):
        pytest.skip("this Pillow has no TrueType face of its own (no FreeType)")
    path = tmp_path_factory.mktemp("font") / "face.ttf"
    path.write_bytes(face.font_bytes)
    return str(path)


def _theirs(font: str, img: np.ndarray, texts: list, colour, clear: bool) -> np.ndarray:
    """albumentations' apply with the texts warpkit recorded (its boxes denormalised as
    albumentations does, its fonts at the recorded sizes)."""
    from PIL import ImageFont

    h, w = img.shape[:2]
    overlay = []
    for t in texts:
        b = t["bbox"]
        x1, y1, x2, y2 = int(b[0] * w), int(b[1] * h), int(b[2] * w), int(b[3] * h)
        overlay.append({"bbox_coords": (x1, y1, x2, y2), "text": t["text"],
                        "font": ImageFont.truetype(font, int(t["size"] * (y2 - y1))),
                        "font_color": colour})
    return A.TextImage(font_path=font, font_color=colour, clear_bg=clear, p=1).apply(
        img, overlay_data=overlay)


@pytest.mark.parametrize("clear", [False, True])
def test_matches_albumentations(queue, font, clear):
    colour = (200, 30, 60)
    for img in (_IMG, _IMG[..., 0].copy(), _IMG[..., :1].copy(), _IMG.astype(np.float32) / 255,
                *([] if clear else [np.dstack([_IMG, _IMG[..., :1]])])):
        pipe = W.Compose([W.HorizontalFlip(p=1), W.TextImage(
            font_path=font, augmentations=("insertion", "swap", "deletion", None),
            fraction_range=(0.5, 1), font_color=colour, clear_bg=clear, p=1)])
        for index in range(3):
            out = pipe(image=img, textimage_metadata=_META, seed=1, index=index, queue=queue)
            texts = out["params"]["steps"][1]["texts"]
            assert 1 <= len(texts) <= 3
            want = _theirs(font, np.ascontiguousarray(img[:, ::-1]), texts, colour, clear)
            np.testing.assert_array_equal(out["image"], want.reshape(out["image"].shape))


def test_text_changes_and_draws(queue, font):
    """The changes albumentations makes: insertion adds stopwords (half the words' count),
    deletion removes half, swap keeps the words; a change that leaves the text as it was
    draws "" (albumentations' rule); the share of boxes drawn, each box at most once."""
    words = "one two three four five six".split()
    seen = {"insertion": 0, "swap": 0, "deletion": 0}
    for change in seen:
        t = W.TextImage(font_path=font, augmentations=(change,), stopwords=("zz",), p=1)
        for i in range(20):
            p = W.Compose([t]).sample((100, 100), seed=i, textimage_metadata=[
                {"bbox": [0, 0, 1, 0.5], "text": " ".join(words)}])["steps"][0]
            got = p["texts"][0]["text"].split()
            if change == "insertion":
                assert sorted(w for w in got if w != "zz") == sorted(words) and \
                    got.count("zz") == 3
            elif change == "deletion":
                assert len(got) == 3 and set(got) <= set(words)
            elif got:
                assert sorted(got) == sorted(words)
            seen[change] += bool(got)
    assert all(seen.values())
    single = W.Compose([W.TextImage(font_path=font, augmentations=("swap",), p=1)])
    p = single.sample((50, 50), seed=0, textimage_metadata={"bbox": [0, 0, 1, 1],
                                                            "text": "alone"})
    assert p["steps"][0]["texts"][0]["text"] == ""  # (one word: swapped, unchanged)
    half = W.Compose([W.TextImage(font_path=font, fraction_range=(0.5, 0.5), p=1)])
    for i in range(10):
        got = half.sample((50, 50), seed=i, textimage_metadata=_META * 2)["steps"][0]["texts"]
        assert len(got) == 3 and len({t["index"] for t in got}) == 3


def test_batches_replay_round_trip_and_port(queue, font):
    pipe = W.Compose([W.RandomResizedCrop((96, 128), scale=(0.6, 1)),
                      W.TextImage(font_path=font, augmentations=("deletion", None), p=0.8)])
    imgs = [_IMG, PHOTOS["coffee"][:180, :300], _IMG[:150]]
    metas = [_META, _META[:1], []]
    got = pipe(image=imgs, textimage_metadata=metas, seed=4, queue=queue)
    for k, img in enumerate(imgs):
        alone = pipe(image=img, textimage_metadata=metas[k], seed=4, index=k, queue=queue)
        np.testing.assert_array_equal(alone["image"], got["image"][k])
        assert alone["params"] == got["params"][k]
    again = pipe(image=imgs, params=got["params"], queue=queue)  # (no metadata: recorded)
    np.testing.assert_array_equal(again["image"], got["image"])
    back = W.Compose.from_dict(json.loads(json.dumps(pipe.to_dict())))
    np.testing.assert_array_equal(
        back(image=imgs, textimage_metadata=metas, seed=4, queue=queue)["image"], got["image"])
    theirs = A.Compose([A.TextImage(font_path=font, font_color=(10, 250, 10), clear_bg=True,
                                    fraction_range=(0.4, 0.9), p=0.7)])
    for given in (theirs, A.to_dict(theirs)):
        t = W.from_albumentations(given).transforms[0]
        assert (t.font_path, t.font_color, t.clear_bg, t.fraction_range, t.p) == \
            (font, (10, 250, 10), True, (0.4, 0.9), 0.7)


def test_overlay_data_as_albumentations_gives_it(queue, font):
    """The result's overlay_data: albumentations' keys and values (every box, texts as given),
    after a crop (the boxes in pixels of the image where the step stood); a batch's one list
    per sample."""
    theirs = A.Compose([A.Crop(0, 0, 200, 180), A.TextImage(font_path=font, p=1)])
    want = sorted(theirs(image=_IMG, textimage_metadata=_META)["overlay_data"],
                  key=lambda d: d["bbox_index"])
    ours = W.from_albumentations(theirs)
    got = sorted(ours(image=_IMG, textimage_metadata=_META, seed=0, queue=queue)["overlay_data"],
                 key=lambda d: d["bbox_index"])
    assert got == want
    batch = ours(image=[_IMG, _IMG], textimage_metadata=[_META, _META[:1]], seed=0, queue=queue)
    assert [len(o) for o in batch["overlay_data"]] == [3, 1]


def test_refusals(font):
    t = W.TextImage(font_path=font, p=1)
    with pytest.raises(ValueError, match=r"textimage_metadata\[0\] must be a dict with 'bbox'"):
        t(image=_IMG, textimage_metadata=["text"], seed=0)
    with pytest.raises(ValueError, match=r"must be x_min < x_max and y_min < y_max in \[0, 1\]"):
        t(image=_IMG, textimage_metadata=[{"bbox": [0.5, 0.1, 0.2, 0.3], "text": "x"}], seed=0)
    with pytest.raises(ValueError, match="is 0 pixels high"):
        t(image=_IMG, textimage_metadata=[{"bbox": [0.1, 0.1, 0.5, 0.101], "text": "x"}],
          seed=0)
    with pytest.raises(ValueError, match="font_path 'nofont.ttf'"):
        W.TextImage(font_path="nofont.ttf", p=1)(image=_IMG, textimage_metadata=_META, seed=0)
    with pytest.raises(ValueError, match="clear_bg=True\\) inpaints 1 or 3 channels"):
        W.TextImage(font_path=font, clear_bg=True, p=1)(
            image=np.zeros((40, 40, 4), np.uint8),
            textimage_metadata=[{"bbox": [0, 0, 1, 1], "text": "x"}], seed=0)
    with pytest.raises(TypeError, match="font_path must be the path"):
        W.TextImage(font_path=3)
    with pytest.raises(ValueError, match="augmentations must be a list of 'insertion'"):
        W.TextImage(font_path=font, augmentations=("shuffle",))
