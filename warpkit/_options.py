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

from typing import Any, NamedTuple

#: interpolation names -> MODE (kernels: MODE_NEAREST, MODE_LINEAR, MODE_CUBIC). ``area`` is
#: OpenCV's INTER_AREA as OpenCV applies it: ``cv2.resize``'s area filter where a map keeps (or
#: swaps) the axes, which the warp kernel's WK_AREA builds take per item (engine.coords.area_items),
#: and linear elsewhere (``cv2.warpAffine`` and ``cv2.remap`` read INTER_AREA as INTER_LINEAR):
#: its kernels' MODE is linear's
INTERPOLATIONS = {"nearest": 0, "linear": 1, "cubic": 2, "area": 3}
INTERPOLATION_ALIASES = {"bilinear": "linear", "bicubic": "cubic"}

#: image paddings (warps, crops, augmentation) -> the kernels' tap padding (WK_PAD_*).
#: constant_edge: the fill outside the image, and its edge pixels repeated for the taps that reach
#: past it from a position inside (a resize, then a constant pad: OpenCV's and albumentations'
#: letterbox)
PADDINGS = {"constant": 0, "border": 1, "reflection": 2, "reflect_101": 3, "constant_edge": 4}
PADDING_ALIASES = {"zeros": "constant", "replicate": "border", "edge": "border",
                   "reflect": "reflection", "symmetric": "reflection",
                   "reflect101": "reflect_101", "mirror": "reflect_101"}

#: ONNX GridSample's padding_mode (its reflection mirrors the coordinate, then the taps: about
#: the outer edges with align_corners=0, about the edge pixels' centres with align_corners=1)
GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}

#: where a warp's source positions come from (kernels_cl/warp.cl, COORD): one 3x3 map per item,
#: a per-pixel map (remap), a chain of non-linear stages between maps, per-axis tables
COORD_SOURCES = {"matrix": 0, "map": 1, "field": 2, "axes": 3}
#: the kinds of non-linear stage in a chain (COORD_FIELD; warp.cl reads each stage's kind from
#: FI): a coarse displacement field, a displacement per axis (GridDistortion), a camera lens,
#: rectangles each with its own affine map (Mosaic's cells), painted quadrilaterals each with its
#: own projective map (GridElasticDeform's)
STAGE_KINDS = {"field": 0, "axes": 1, "lens": 2, "cells": 3, "quads": 4, "blend": 5}

#: the numbers every kernel build gets: the kernels name options, the table numbers them
KERNEL_DEFINES = {
    "MODE_NEAREST": INTERPOLATIONS["nearest"],
    "MODE_LINEAR": INTERPOLATIONS["linear"],
    "MODE_CUBIC": INTERPOLATIONS["cubic"],
    "WK_PAD_ZEROS": PADDINGS["constant"],
    "WK_PAD_BORDER": PADDINGS["border"],
    "WK_PAD_REFLECT": PADDINGS["reflection"],
    "WK_PAD_REFLECT_101": PADDINGS["reflect_101"],
    "WK_PAD_CONSTANT_EDGE": PADDINGS["constant_edge"],
    "GS_PAD_ZEROS": GRID_PADDINGS["zeros"],
    "GS_PAD_BORDER": GRID_PADDINGS["border"],
    "GS_PAD_REFLECTION": GRID_PADDINGS["reflection"],
    **{f"COORD_{k.upper()}": v for k, v in COORD_SOURCES.items()},
    **{f"STAGE_{k.upper()}": v for k, v in STAGE_KINDS.items()},
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



class Sampling(NamedTuple):
    """How a warp samples its source: the four options that every resampling call shares
    (``warp_*``, ``crop_rois``, ``remap``, ``Compose``, ``RandomAffine`` and the file jobs),
    checked once where they are given (:meth:`of`) and passed on as one value.

    ``interpolation`` and ``padding`` keep the names they were given (an alias stays an alias,
    so that a pipeline's ``to_dict`` writes what its author wrote); :attr:`mode` and
    :attr:`pad` are the kernels' numbers. ``fill`` is checked against each image's channels and
    dtype when it is warped.

    Example:
        >>> s = Sampling.of("bicubic", "mirror", fill=(0, 0, 0))
        >>> s.mode == INTERPOLATIONS["cubic"], s.pad == PADDINGS["reflect_101"], s.constant
        (True, True, False)
        >>> s._replace(interpolation="nearest").mode
        0
    """

    interpolation: str = "linear"
    padding: str = "constant"
    fill: Any = 0
    antialias: bool | str = False

    @classmethod
    def of(cls, interpolation: Any = "linear", padding: Any = "constant", fill: Any = 0,
           antialias: Any = False) -> "Sampling":
        """The options, with ``interpolation`` and ``padding`` checked (a ValueError names the
        argument); ``antialias`` a bool, or ``"area"``: OpenCV's area filter for the maps that
        keep the axes and shrink along either (albumentations' ``area_for_downscale``), the
        interpolation elsewhere."""
        choice(interpolation, INTERPOLATIONS, "interpolation", INTERPOLATION_ALIASES)
        choice(padding, PADDINGS, "padding", PADDING_ALIASES)
        if isinstance(antialias, str):
            if antialias != "area":
                raise ValueError(f"antialias must be True, False or 'area', got {antialias!r}")
            return cls(interpolation, padding, fill, antialias)
        return cls(interpolation, padding, fill, bool(antialias))

    @property
    def mode(self) -> int:
        """The kernels' interpolation number (MODE): ``area``'s is linear's (:attr:`area`
        says which maps are filtered by area)."""
        m = choice(self.interpolation, INTERPOLATIONS, "interpolation", INTERPOLATION_ALIASES)
        return INTERPOLATIONS["linear"] if m == INTERPOLATIONS["area"] else m

    @property
    def area(self) -> str | None:
        """Which maps the area filter takes: ``"all"`` (interpolation ``area``: every map that
        keeps or swaps the axes), ``"shrink"`` (antialias ``"area"``: those that also shrink
        along either axis), or None."""
        if self.interpolation == "area":
            return "all"
        return "shrink" if self.antialias == "area" else None

    @property
    def supersample(self) -> bool:
        """Whether maps that shrink are supersampled (antialias True)."""
        return self.antialias is True

    @property
    def pad(self) -> int:
        """The padding's number (the kernels' tap padding)."""
        return choice(self.padding, PADDINGS, "padding", PADDING_ALIASES)

    @property
    def constant(self) -> bool:
        """Whether the outside is the fill (padding ``constant``, its alias ``zeros``, or
        ``constant_edge``)."""
        return self.pad in (PADDINGS["constant"], PADDINGS["constant_edge"])
