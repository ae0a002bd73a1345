"""Writes tests/data/opencv4_thick_lines.npz, the oracle of tests/test_random_rain.py's wide
drops that cross the image's sides: ``cv2.line`` (4-connected, 2 to 13 pixels wide) of OpenCV
4.10, whose thick lines warpkit's RandomRain draws (OpenCV 5 clips such a drop's outline
otherwise; inside the image the two agree, and the tests compare with the installed OpenCV
there). Run it in an environment of its own with that OpenCV:

    python -m venv /tmp/cv4 && /tmp/cv4/bin/pip install numpy opencv-python-headless==4.10.0.84
    /tmp/cv4/bin/python tests/make_opencv4_thick_lines.py

The cases: a 30 x 30 image, drops starting at x in [-4, 34), y in [0, 20), 1 to 24 pixels long,
slanted by up to 45 pixels either way (RandomRain's ends: x + slant truncated), 60 per width.
Stored: ``cases`` (n, 5) int32 as (x1, y1, x2, y2, width) and ``masks``, the lit pixels, packed
by numpy.packbits (n, 30 * 30 / 8).
"""

from pathlib import Path

import cv2
import numpy as np

H = W = 30
WIDTHS = (2, 3, 4, 5, 8, 13)


def main() -> None:
    assert cv2.__version__.startswith("4."), cv2.__version__
    rng = np.random.default_rng(7)
    cases, masks = [], []
    for width in WIDTHS:
        for _ in range(60):
            x, y = int(rng.integers(-4, 34)), int(rng.integers(0, 20))
            length, slant = int(rng.integers(1, 25)), float(rng.uniform(-45, 45))
            x2, y2 = int(np.trunc(x + slant)), y + length
            mask = np.zeros((H, W), np.uint8)
            cv2.line(mask, (x, y), (x2, y2), 1, width, lineType=cv2.LINE_4)
            cases.append((x, y, x2, y2, width))
            masks.append(np.packbits(mask.reshape(-1)))
    out = Path(__file__).parent / "data" / "opencv4_thick_lines.npz"
    np.savez_compressed(out, cases=np.array(cases, np.int32), masks=np.stack(masks),
                        opencv=np.array(cv2.__version__))
    print(f"{len(cases)} drops -> {out}")


if __name__ == "__main__":
    main()
