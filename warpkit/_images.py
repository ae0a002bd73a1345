"""Images as the warps take them: Pillow images (converted to arrays and back, mode kept) and
arrays in the layouts HW, HWC and BHWC."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ._memory import operand

#: Pillow modes warped as they are: mode -> (dtype, channels)
PIL_MODES = {"L": (np.uint8, 1), "LA": (np.uint8, 2), "RGB": (np.uint8, 3), "RGBA": (np.uint8, 4),
             "I;16": (np.uint16, 1), "I;16L": (np.uint16, 1), "I;16B": (np.uint16, 1),
             "I;16N": (np.uint16, 1), "I": (np.int32, 1), "F": (np.float32, 1)}
#: 16-bit modes with an explicit byte order (big-endian TIFFs open as I;16B): warped as native
#: uint16 and given back in their own order
_PIL_ORDERED = {"I;16L": "<u2", "I;16B": ">u2", "I;16N": "=u2"}
#: Pillow modes converted first (the result keeps the converted mode)
PIL_CONVERT = {"1": "L", "P": "RGBA", "PA": "RGBA", "La": "LA", "RGBa": "RGBA", "RGBX": "RGBA"}

def as_image(image: Any):
    """(array or device array, restore) for a Pillow image, numpy array or device array; restore
    turns a result array back into a Pillow image of the input's mode (None for arrays).
    Pillow is not imported for this (it would weigh on ``import warpkit``): an image exists only if it was."""
    Image = sys.modules.get("PIL.Image")
    if Image is not None and isinstance(image, Image.Image):
        img = image
        if img.mode in PIL_CONVERT:
            target = PIL_CONVERT[img.mode]
            if img.mode == "P" and "transparency" not in img.info:
                target = "RGB"
            img = img.convert(target)
        if img.mode not in PIL_MODES:
            raise TypeError(
                f"image has Pillow mode {img.mode!r}; warpkit warps {', '.join(PIL_MODES)} (and "
                f"converts {', '.join(PIL_CONVERT)}): convert it first, e.g. image.convert('RGB')"
            )
        dt, c = PIL_MODES[img.mode]
        arr = np.asarray(img)
        if arr.dtype != dt:  # I;16 comes as uint16 on little-endian, I as int32
            arr = arr.astype(dt)
        mode = img.mode
        info = dict(img.info)

        def restore(out: np.ndarray):
            if mode in _PIL_ORDERED:  # Pillow cannot convert to these modes: build it in place
                raw = np.ascontiguousarray(out, _PIL_ORDERED[mode])
                res = Image.frombuffer(mode, (raw.shape[1], raw.shape[0]), raw.tobytes(), "raw",
                                       mode, 0, 1)
            else:
                res = Image.fromarray(out if c > 1 else out.reshape(out.shape[:2]))
                if res.mode != mode:  # Pillow infers L/LA/RGB/RGBA, I;16, I, F from the array
                    res = res.convert(mode)
            res.info.update({k: v for k, v in info.items() if k in ("icc_profile", "dpi", "exif")})
            return res

        return arr, restore
    op = operand(image, "image")
    return (op.dev if op.dev is not None else op.host), None


#: the most channels one launch warps (kernels_cl/warp.cl's WK_WIDE); the engine splits host
#: images of more into groups of this many
MAX_CHANNELS = 16


def shape_hwc(arr) -> tuple[int, int, int, int, bool, tuple]:
    """(B, H, W, C, batched, output shape builder) for HW, HWC or BHWC (an array, or its
    shape)."""
    s = tuple(arr if isinstance(arr, tuple) else arr.shape)
    if len(s) == 2:
        return 1, s[0], s[1], 1, False, lambda ho, wo: (ho, wo)
    if len(s) == 3:
        if s[2] > MAX_CHANNELS:
            raise ValueError(f"image must be (H, W), (H, W, C) or (B, H, W, C) with C <= "
                             f"{MAX_CHANNELS}, got {s}")
        return 1, s[0], s[1], s[2], False, lambda ho, wo: (ho, wo, s[2])
    if len(s) == 4:
        if s[3] > MAX_CHANNELS:
            raise ValueError(f"image must be (H, W), (H, W, C) or (B, H, W, C) with C <= "
                             f"{MAX_CHANNELS}, got {s}")
        return s[0], s[1], s[2], s[3], True, lambda ho, wo: (s[0], ho, wo, s[3])
    raise ValueError(f"image must be (H, W), (H, W, C) or (B, H, W, C), got {s}")
