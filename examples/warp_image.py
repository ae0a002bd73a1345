"""Warp a Pillow image with warpkit: a quarter turn about the centre, then a 15-degree rotation.

A quarter turn about the image centre puts every output pixel exactly on an input pixel, so it must
reproduce Pillow's own Image.transpose(ROTATE_90) bit for bit.

    python examples/warp_image.py [output.png]
"""

import sys

import numpy as np
from PIL import Image, ImageDraw

import warpkit
from warpkit import geometry as g


def make_image(size: int = 256) -> Image.Image:
    img = Image.new("RGB", (size, size), (30, 60, 90))
    d = ImageDraw.Draw(img)
    for i in range(0, size, 32):
        d.line([(i, 0), (i, size)], fill=(200, 200, 200), width=2)
        d.line([(0, i), (size, i)], fill=(200, 200, 200), width=2)
    d.ellipse([size // 4, size // 8, 3 * size // 4, 5 * size // 8], fill=(230, 120, 40))
    d.rectangle([size // 8, 3 * size // 4, size // 3, 7 * size // 8], fill=(40, 200, 90))
    return img


def main() -> None:
    img = make_image()
    w, h = img.size
    center = ((w - 1) / 2, (h - 1) / 2)  # pixel centres sit at integers
    quarter = warpkit.warp_affine(img, g.rotation(90, center), interpolation="nearest")
    assert isinstance(quarter, Image.Image) and quarter.mode == "RGB"
    assert np.array_equal(np.asarray(quarter), np.asarray(img.transpose(Image.Transpose.ROTATE_90)))

    tilted = warpkit.warp_affine(img, g.rotation(15, center), interpolation="cubic",
                                 fill=(255, 255, 255), expand=True)
    assert tilted.size[0] > w and tilted.size[1] > h  # expand fits the turned corners
    if len(sys.argv) > 1:
        tilted.save(sys.argv[1])
    print(f"device: {warpkit.get_runtime().describe()}")
    print(f"quarter turn matches Pillow's ROTATE_90 exactly; 15-degree turn: {tilted.size}")


if __name__ == "__main__":
    main()
