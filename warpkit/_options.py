"""The one table of sampling options: the names users type, the aliases they bring from other
libraries, and the numbers the kernels take (given to every kernel build as ``-D`` defines, so
the OpenCL sources hold no numbers of their own).

Aliases (accepted wherever the canonical name is, and documented in docs/guide.md):

- interpolation: ``bilinear`` is ``linear``, ``bicubic`` is ``cubic`` (ONNX opset 16, PyTorch);
- image padding: ``zeros`` is ``constant`` (PyTorch); ``replicate`` and ``edge`` are ``border``
  (OpenCV, numpy); ``reflect`` (SciPy's and OpenCV's meaning: about the outer pixel edges) and
  ``symmetric`` (numpy.pad's name for the same) are ``reflection``; ``reflect101`` and
  ``mirror`` (SciPy) are ``reflect_101``, which mirrors about the edge pixels' centres
  (OpenCV's BORDER_REFLECT_101, albumentations' default). numpy.pad's ``reflect`` is
  ``reflect_101``: warpkit follows SciPy and OpenCV, where most image code comes from.
"""

from __future__ import annotations

from typing import Any

#: interpolation names -> MODE (kernels: MODE_NEAREST, MODE_LINEAR, MODE_CUBIC)
INTERPOLATIONS = {"nearest": 0, "linear": 1, "cubic": 2}
INTERPOLATION_ALIASES = {"bilinear": "linear", "bicubic": "cubic"}

#: image paddings (warps, crops, augmentation) -> the kernels' tap padding (WK_PAD_*)
PADDINGS = {"constant": 0, "border": 1, "reflection": 2, "reflect_101": 3}
PADDING_ALIASES = {"zeros": "constant", "replicate": "border", "edge": "border",
                   "reflect": "reflection", "symmetric": "reflection",
                   "reflect101": "reflect_101", "mirror": "reflect_101"}

#: ONNX GridSample's padding_mode (its reflection mirrors the coordinate, then the taps: about
#: the outer edges with align_corners=0, about the edge pixels' centres with align_corners=1)
GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}

#: the numbers every kernel build gets: the kernels name options, the table numbers them
KERNEL_DEFINES = {
    "MODE_NEAREST": INTERPOLATIONS["nearest"],
    "MODE_LINEAR": INTERPOLATIONS["linear"],
    "MODE_CUBIC": INTERPOLATIONS["cubic"],
    "WK_PAD_ZEROS": PADDINGS["constant"],
    "WK_PAD_BORDER": PADDINGS["border"],
    "WK_PAD_REFLECT": PADDINGS["reflection"],
    "WK_PAD_REFLECT_101": PADDINGS["reflect_101"],
    "GS_PAD_ZEROS": GRID_PADDINGS["zeros"],
    "GS_PAD_BORDER": GRID_PADDINGS["border"],
    "GS_PAD_REFLECTION": GRID_PADDINGS["reflection"],
}


def choice(value: Any, table: dict[str, int], arg: str,
           aliases: dict[str, str] | None = None) -> int:
    """The table's number for ``value`` (a name or an alias), or a ValueError naming ``arg``."""
    if isinstance(value, bytes):  # ONNX attributes come as bytes
        value = value.decode()
    if isinstance(value, str):
        name = (aliases or {}).get(value, value)
        if name in table:
            return table[name]
    names = ", ".join(map(repr, table))
    also = f" (or {', '.join(map(repr, aliases))})" if aliases else ""
    raise ValueError(f"{arg} must be one of {names}{also}; got {value!r}")

