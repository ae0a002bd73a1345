"""albumentations' ``TextImage``: texts the call passes, each drawn into its box with a TrueType
font (Pillow's ``ImageDraw.text``), some of their words inserted, swapped or deleted. A host
step (:mod:`._host`): the texts are drawn where the step stands, between two passes.

The call passes each sample's texts under ``metadata_key`` (``"textimage_metadata"``): a dict
or a list of dicts, each with a ``bbox`` (x_min, y_min, x_max, y_max as fractions of the image)
and a ``text``. The draws follow albumentations' order from the sample's stream: the share of
the boxes to draw, which boxes (in the order they are drawn), then for each its font size (a
fraction of the box's height) and its text's change. They are recorded (``texts``: each box's
index, its ``bbox``, the ``text`` drawn and the ``original_text``, the font's ``size`` and the
box's pixel ``coords``), so a call replays without its metadata; a call's result has
albumentations' ``overlay_data`` too (each sample's list: its boxes in pixels, the texts
drawn and given, their indices, the colour). The drawing is albumentations' ``render_text``: 8-bit levels (float images
through ``rint(255 v)`` and back), the box's background inpainted first with ``clear_bg``
(OpenCV's Telea, radius 3), the text at the box's corner in ``font_color``; one or three
channels as a Pillow image, more channel by channel.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import flag
from ._base import value_range
from ._colour import eight_bit_io
from ._domain import _metadata_key, _opencv
from ._host import HostStep

#: the changes a text may take (None: as it is)
TEXT_CHANGES = ("insertion", "swap", "deletion", None)


class TextImage(HostStep):
    """albumentations' TextImage: each sample's texts (passed under ``metadata_key``) drawn into
    their boxes with the TrueType font at ``font_path``, on the host between two passes (see
    :mod:`warpkit.augment._text`): the same pixels as albumentations.

    Example:
        >>> from warpkit.augment import TextImage, stream
        >>> from warpkit.augment._targets import Seen
        >>> t = TextImage(font_path="DejaVuSans.ttf", p=1)
        >>> texts = [{"bbox": [0.1, 0.1, 0.9, 0.4], "text": "a cat sat"}]
        >>> p = t.draw_seen(stream(seed=0), (64, 48), Seen((64, 48),
        ...                 given={"textimage_metadata": texts}.get))
        >>> p["texts"][0]["text"], p["texts"][0]["index"]
        ('a cat sat', 0)
    """

    reads = frozenset({"passed"})
    changes = frozenset({"image"})

    def __init__(self, font_path: str | Path,
                 stopwords: Sequence[str] = ("the", "is", "in", "at", "of"),
                 augmentations: Sequence[str | None] = (None,),
                 fraction_range: Any = (1.0, 1.0),
                 font_size_fraction_range: Any = (0.8, 0.9),
                 font_color: Any = (0, 0, 0), clear_bg: bool = False,
                 metadata_key: str = "textimage_metadata", p: float = 0.5) -> None:
        super().__init__(p)
        if not isinstance(font_path, (str, Path)):
            raise TypeError(f"font_path must be the path of a TrueType font, got "
                            f"{type(font_path).__name__}")
        self.font_path = str(font_path)
        if isinstance(stopwords, str) or not all(isinstance(w, str) for w in stopwords) or \
                not stopwords:
            raise ValueError(f"stopwords must be a list of words, got {stopwords!r}")
        self.stopwords = tuple(stopwords)
        if isinstance(augmentations, str) or any(a not in TEXT_CHANGES for a in augmentations):
            raise ValueError(f"augmentations must be a list of 'insertion', 'swap', 'deletion' "
                             f"or None, got {augmentations!r}")
        self.augmentations = list(augmentations)
        self.fraction_range = value_range(fraction_range, "fraction_range", False, 0.0, 1.0)[0]
        self.font_size_fraction_range = value_range(font_size_fraction_range,
                                                    "font_size_fraction_range", False, 0.0,
                                                    1.0)[0]
        colour = [font_color] if isinstance(font_color, (int, float)) else list(font_color)
        if not colour or not all(isinstance(c, (int, float)) and not isinstance(c, bool)
                                 for c in colour):
            raise ValueError(f"font_color must be a level or one level per channel, got "
                             f"{font_color!r}")
        self.font_color = tuple(colour)
        self.clear_bg = flag(clear_bg, "clear_bg")
        self.metadata_key = _metadata_key(metadata_key)

    def draw(self, rng, size):
        return self.draw_seen(rng, size, None)

    def draw_seen(self, rng, size, seen):
        given = None if seen is None or seen.given is None else seen.given(self.metadata_key)
        texts = _texts(given, self.metadata_key)
        if not texts:
            return {"texts": []}
        share = float(rng.uniform(*self.fraction_range))
        count = int(len(texts) * share)
        drawn = []
        for i in rng.choice(len(texts), count, replace=False).tolist() if count else []:
            box, text = texts[i]
            size_share = float(rng.uniform(*self.font_size_fraction_range))
            changed = text
            if self.augmentations:
                change = self.augmentations[int(rng.integers(len(self.augmentations)))]
                if change is not None:
                    changed = _changed(text, change, self.stopwords, rng)
            drawn.append({"index": i, "bbox": box, "text": changed, "size": size_share,
                          "original_text": text, "coords": _coords(box, size)})
        return {"texts": drawn}

    def overlay_data(self, params: dict) -> list[dict]:
        """albumentations' ``overlay_data`` of a sample's recorded texts: each text's box in
        pixels of the image where the step stood, the text drawn and the one given, its index
        among the sample's texts, the colour."""
        return [{"bbox_coords": tuple(t["coords"]), "text": t["text"],
                 "original_text": t["original_text"], "bbox_index": t["index"],
                 "font_color": self.font_color}
                for t in params.get("texts") or () if "coords" in t]

    def config(self) -> dict:
        return {"font_path": self.font_path, "stopwords": list(self.stopwords),
                "augmentations": list(self.augmentations),
                "fraction_range": list(self.fraction_range),
                "font_size_fraction_range": list(self.font_size_fraction_range),
                "font_color": list(self.font_color), "clear_bg": self.clear_bg,
                "metadata_key": self.metadata_key}

    def run(self, target, value, params, shape):
        texts = params.get("texts") or []
        if not texts:
            return value
        h, w = value.shape[:2]
        placed = []
        for k, t in enumerate(texts):
            x1, y1, x2, y2 = _coords(_box(t.get("bbox"), f"texts[{k}]"), (w, h))
            points = int(float(t["size"]) * (y2 - y1))
            if points < 1:
                raise ValueError(f"TextImage's box {k} ({t.get('bbox')}) is {y2 - y1} pixels "
                                 f"high: its font would be {points} points (albumentations "
                                 f"fails too)")
            placed.append(((x1, y1, x2, y2), str(t["text"]), _font(self.font_path, points)))
        return eight_bit_io(value, "TextImage",
                            lambda img: _render(img, placed, self.font_color, self.clear_bg))


def _texts(given: Any, key: str) -> list[tuple[list[float], str]]:
    """A sample's texts as passed (a dict or a list of dicts with a bbox and a text)."""
    if given is None:
        return []
    items = [given] if isinstance(given, Mapping) else given
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise ValueError(f"{key} must be a dict or a list of dicts with 'bbox' and 'text', got "
                         f"{type(given).__name__}")
    out = []
    for k, e in enumerate(items):
        if not isinstance(e, Mapping) or "bbox" not in e or "text" not in e:
            raise ValueError(f"{key}[{k}] must be a dict with 'bbox' (fractions of the image) "
                             f"and 'text', got {e!r:.120}")
        if not isinstance(e["text"], str):
            raise ValueError(f"{key}[{k}]['text'] must be a string, got "
                             f"{type(e['text']).__name__}")
        out.append((_box(e["bbox"], f"{key}[{k}]['bbox']"), e["text"]))
    return out


def _box(box: Any, what: str) -> list[float]:
    try:
        b = [float(v) for v in box][:4]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be 4 numbers (x_min, y_min, x_max, y_max, fractions of "
                         f"the image), got {box!r}") from None
    if len(b) != 4 or not all(np.isfinite(b)) or not (0 <= b[0] < b[2] <= 1) or \
            not (0 <= b[1] < b[3] <= 1):
        raise ValueError(f"{what} must be x_min < x_max and y_min < y_max in [0, 1] (fractions "
                         f"of the image), got {box!r}")
    return b


def _coords(box: list[float], size: tuple[int, int]) -> list[int]:
    """A box's fractions in pixels of an image of ``size`` = (width, height): albumentations'
    denormalisation, then ``int``."""
    w, h = size
    return [int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)]


def _changed(text: str, change: str, stopwords: tuple, rng) -> str:
    """albumentations' ``random_aug`` of a text (half its words, at least one), drawn from
    ``rng``: its result, or "" where it is the text itself (albumentations' rule)."""
    words = [w for w in text.strip().split() if w]
    n = max(1, int(0.5 * len(words)))
    if change == "insertion":
        for _ in range(n):
            at = int(rng.integers(0, len(words) + 1))
            words.insert(at, stopwords[int(rng.integers(len(stopwords)))])
        out = " ".join(words)
    elif change == "swap":
        if len(words) >= 2:
            for _ in range(n):
                i, j = rng.choice(len(words), 2, replace=False).tolist()
                words[i], words[j] = words[j], words[i]
        out = " ".join(words)
    elif n >= len(words):  # deletion of every word
        out = ""
    else:
        gone = set(rng.choice(len(words), n, replace=False).tolist())
        out = " ".join(w for i, w in enumerate(words) if i not in gone)
    out = re.sub(" +", " ", out).strip()
    return out if out != text else ""


#: each thread's fonts (FreeType's faces are not shared between threads), by path and size
_FONTS = threading.local()


def _font(path: str, points: int):
    fonts = getattr(_FONTS, "cache", None)
    if fonts is None:
        fonts = _FONTS.cache = {}
    key = (path, points)
    if key not in fonts:
        from PIL import ImageFont

        try:
            font = ImageFont.truetype(path, points)
        except OSError as e:
            raise ValueError(f"TextImage's font_path {path!r}: {e}") from None
        if len(fonts) >= 64:
            fonts.clear()
        fonts[key] = font
    return fonts[key]


def _render(img: np.ndarray, placed: list, colour: tuple, clear_bg: bool) -> np.ndarray:
    """albumentations 2.0.8's ``render_text`` of an 8-bit (H, W) or (H, W, C) image."""
    from PIL import Image, ImageDraw

    if clear_bg:
        cv2 = _opencv()
        if cv2 is None:
            raise ValueError("TextImage(clear_bg=True) inpaints with OpenCV, which is not "
                             "installed: pip install opencv-python-headless")
        if img.ndim == 3 and img.shape[2] not in (1, 3):
            raise ValueError(f"TextImage(clear_bg=True) inpaints 1 or 3 channels (OpenCV's "
                             f"cv2.inpaint; albumentations fails too), got {img.shape[2]}")
        img = img.copy()
        mask = np.zeros(img.shape[:2], np.uint8)
        for (x1, y1, x2, y2), _, _ in placed:
            img[y1:y2, x1:x2] = 0
            mask[y1:y2, x1:x2] = 255
        img = cv2.inpaint(img, mask, inpaintRadius=3, flags=cv2.INPAINT_TELEA).reshape(img.shape)
    channels = 1 if img.ndim == 2 else img.shape[2]
    if channels in (1, 3):
        picture = Image.fromarray(np.ascontiguousarray(
            img.reshape(img.shape[:2]) if channels == 1 else img))
        draw = ImageDraw.Draw(picture)
        if channels == 1:  # (the mean of the first three levels, or the one)
            fill: Any = int(sum(colour[:3]) / 3) if len(colour) >= 3 else int(colour[0]) \
                if len(colour) == 1 else colour
        else:
            fill = tuple(int(c) for c in colour)
        for (x1, y1, _, _), text, font in placed:
            draw.text((x1, y1), text, font=font, fill=fill)
        return np.array(picture).reshape(img.shape)
    levels = [int(c) for c in (list(colour) + [0] * channels)[:channels]]
    planes = [Image.fromarray(np.ascontiguousarray(img[..., c])) for c in range(channels)]
    for plane, level in zip(planes, levels):
        draw = ImageDraw.Draw(plane)
        for (x1, y1, _, _), text, font in placed:
            draw.text((x1, y1), text, font=font, fill=level)
    return np.stack([np.array(p) for p in planes], axis=2)
