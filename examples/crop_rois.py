"""Crop many boxes out of a photo into fixed-size patches in one launch.

Boxes are in pixel-edge coordinates: (0, 0, W, H) is the whole image, and a box the size of its
patch reproduces the pixels exactly -- which this example checks.

    python examples/crop_rois.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

import warpkit

SAMPLE = Path(__file__).parent / "data" / "sample.jpg"


def main() -> None:
    with Image.open(SAMPLE) as f:
        img = f.convert("RGB")
    arr = np.asarray(img)
    boxes = [[280, 340, 480, 560],   # the house, resized
             [690, 60, 830, 200],    # the sun, resized
             [100, 100, 228, 228]]   # a 128x128 box, kept as it is
    patches = warpkit.crop_rois(img, boxes, (128, 128), interpolation="cubic", antialias=True)
    assert len(patches) == 3 and all(p.size == (128, 128) and p.mode == "RGB" for p in patches)
    assert np.array_equal(np.asarray(warpkit.crop_rois(arr, boxes[2:], (128, 128))[0]),
                          arr[100:228, 100:228])
    print(f"{len(patches)} patches of 128x128; the unscaled box reproduces its pixels exactly")


if __name__ == "__main__":
    main()
