"""Affine and perspective warps of Pillow images and arrays, and ROI crops, as fused OpenCL
kernels: the public calls. They check their options into one
:class:`~warpkit._options.Sampling` value and hand the work to the engine
(:mod:`warpkit.engine`).

Matrices follow :mod:`warpkit.geometry`: 3x3 (or 2x3) **destination-from-source** maps in pixel
coordinates with pixel centres at integers, x right, y down — the convention of
``cv2.warpAffine`` / ``cv2.warpPerspective`` without ``WARP_INVERSE_MAP``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pyopencl as cl

from ._checks import batch_index_array, boxes_array, width_height
from ._images import as_image
from ._options import INTERPOLATIONS, PADDINGS, Sampling
from . import engine
from .engine import ModelInput, warp_by

__all__ = ["crop_rois", "warp_affine", "warp_batch", "warp_each", "warp_perspective",
           "INTERPOLATIONS", "PADDINGS"]

Interpolation = Literal["nearest", "linear", "cubic", "area"]
#: antialias: supersampling (True), OpenCV's area filter where the map shrinks ("area"), or none
Antialias = bool | Literal["area"]
Padding = Literal["constant", "border", "reflection", "reflect_101", "constant_edge"]

_MAX_COORD = 1 << 24  # box coordinates: float32 positions are whole pixels up to here


def warp_affine(
    image: Any,
    matrix: Any,
    size: tuple[int, int] | None = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    expand: bool = False,
    antialias: Antialias = False,
    queue: cl.CommandQueue | None = None,
    output_dtype: Any = None,
    mean: float | Sequence[float] | None = None,
    std: float | Sequence[float] | None = None,
    layout: Literal["HWC", "CHW"] = "HWC",
    max_pixel_value: float | None = None,
) -> Any:
    """Warp an image with an affine map.

    Args:
        image: a Pillow image (modes L, LA, RGB, RGBA, I;16, I, F; 1, P and PA are converted to L,
            RGB(A)), or an array (H, W), (H, W, C) or a batch (B, H, W, C), of uint8, uint16,
            int32 or float32; numpy or ``pyopencl.array.Array``; up to 16 channels in one
            launch (at most 16 on the device; a host array of more is warped 16 at a time).
        matrix: (3, 3) or (2, 3) destination-from-source map (see :mod:`warpkit.geometry`), or one
            per image of a batch: (B, 3, 3) / (B, 2, 3).
        size: output (width, height); default: the input's size.
        interpolation: ``"nearest"``, ``"linear"``, ``"cubic"`` (Keys, A = -0.75, as OpenCV) or
            ``"area"``: OpenCV's INTER_AREA as OpenCV applies it, ``cv2.resize``'s area filter
            where the map keeps or swaps the axes (a resize, crop, flip, pad or quarter turn:
            each output pixel the mean of its footprint, or two taps from the footprint's
            overlap along an axis it enlarges), linear under any other map (as
            ``cv2.warpAffine`` reads it).
        padding: where the source is outside the image: ``"constant"`` (``fill``), ``"border"``
            (the edge pixel, OpenCV's BORDER_REPLICATE), ``"reflection"`` (mirrored about the
            outer pixel edges, OpenCV's BORDER_REFLECT), ``"reflect_101"`` (mirrored about
            the edge pixels' centres, OpenCV's BORDER_REFLECT_101) or ``"constant_edge"``
            (``fill`` outside the image's pixels, the edge pixel for taps that reach past it
            from inside: a resize then a constant pad, as ``cv2.resize`` and
            ``cv2.copyMakeBorder`` give). Aliases such as ``"zeros"``,
            ``"reflect"`` and ``"mirror"`` are accepted (docs/guide.md lists them).
        fill: the constant, a number or one per channel.
        expand: make the output just large enough for the whole transformed image (and move it
            there); not with ``size``.
        antialias: for maps that shrink, average several samples per output pixel (as many per
            axis as source pixels fall on one output pixel, at most 8), so that detail does not
            alias; ``"area"``: the area filter for the maps that keep the axes and shrink along
            either (albumentations' ``area_for_downscale``), ``interpolation`` for the others.
        queue: the ``pyopencl.CommandQueue`` to run on.
        output_dtype, mean, std, layout, max_pixel_value: make the model's input in the same
            pass: with ``output_dtype`` float32 or float16 each sample becomes ``(v / peak -
            mean) / std`` (peak: ``max_pixel_value``, by default 255 for uint8, 65535 for
            uint16, 1 otherwise, e.g. 4095 for 12-bit data in uint16; integer images clamped to
            their range but not rounded), per channel (a mean or std of more values than the
            image's channels: the first ones, as albumentations' Normalize takes them);
            ``layout="CHW"`` writes channels first, (C, H, W) or (B, C, H, W). The result is
            then an array, also for a Pillow input.

    Returns:
        The warped image: the same kind (Pillow image of the same mode, numpy or device array),
        dtype and channel count. Integer results round to nearest (halves up, as OpenCV and
        Pillow) and saturate.

    Example:
        >>> import numpy as np, warpkit
        >>> from warpkit import geometry as g
        >>> img = np.zeros((480, 640, 3), np.uint8)
        >>> h, w = img.shape[:2]
        >>> m = g.rotation(15, center=((w - 1) / 2, (h - 1) / 2))   # pixel centres at integers
        >>> warpkit.warp_affine(img, m, interpolation="cubic").shape   # doctest: +SKIP
        (480, 640, 3)
        >>> warpkit.warp_affine(img, m, expand=True).shape             # doctest: +SKIP
        (630, 743, 3)
    """
    return warp_by(image, matrix, size, Sampling.of(interpolation, padding, fill, antialias),
                   expand=expand, queue=queue,
                   model=ModelInput(output_dtype, mean, std, layout, max_pixel_value))


def warp_perspective(
    image: Any,
    homography: Any,
    size: tuple[int, int] | None = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    expand: bool = False,
    antialias: Antialias = False,
    queue: cl.CommandQueue | None = None,
    output_dtype: Any = None,
    mean: float | Sequence[float] | None = None,
    std: float | Sequence[float] | None = None,
    layout: Literal["HWC", "CHW"] = "HWC",
    max_pixel_value: float | None = None,
) -> Any:
    """Warp an image with a perspective map (a 3x3 homography, destination from source).

    Arguments and result as :func:`warp_affine`; ``homography`` may be any invertible 3x3 matrix,
    e.g. from :func:`warpkit.geometry.perspective_from_points`. Output pixels whose source lies
    behind the camera (no finite source point) take the fill value.
    """
    return warp_by(image, homography, size, Sampling.of(interpolation, padding, fill, antialias),
                   expand=expand, queue=queue, affine=False,
                   model=ModelInput(output_dtype, mean, std, layout, max_pixel_value))


def crop_rois(
    image: Any,
    boxes: Any,
    output_size: tuple[int, int],
    batch_indices: Any = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    antialias: Antialias = False,
    queue: cl.CommandQueue | None = None,
) -> Any:
    """Crop and resize many boxes into fixed-size patches, in one launch.

    Args:
        image: a Pillow image, an array (H, W) / (H, W, C), or a batch (B, H, W, C) with
            ``batch_indices``; numpy or device array.
        boxes: (K, 4) boxes ``[x1, y1, x2, y2]`` in **pixel-edge** coordinates: ``(0, 0, W, H)``
            is the whole image, and a box the size of its output reproduces its pixels exactly.
            Parts outside the image follow ``padding``. ``x2 > x1`` and ``y2 > y1``.
        output_size: (width, height) of every patch.
        batch_indices: for a batch, the image of each box (K integers in [0, B)).
        interpolation, padding, fill, antialias: as :func:`warp_affine`.

    Returns:
        (K, h, w[, C]) patches of the image's dtype (numpy or device array), or a list of K Pillow
        images for a Pillow input.

    Example:
        >>> import numpy as np, warpkit
        >>> img = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
        >>> patches = warpkit.crop_rois(img, [[0, 0, 64, 64], [10, 20, 50, 40]], (32, 32))  # doctest: +SKIP
        >>> patches.shape                                              # doctest: +SKIP
        (2, 32, 32)
        >>> warpkit.crop_rois(img, [[0, 0, 2, 1]], (2, 1))             # doctest: +SKIP
        array([[[0., 1.]]], dtype=float32)
    """
    sampling = Sampling.of(interpolation, padding, fill, antialias)
    wo, ho = width_height(output_size, "output_size")
    b = boxes_array(boxes)
    far = np.flatnonzero(np.abs(b).max(axis=1, initial=0) > _MAX_COORD)
    if len(far):
        k = int(far[0])
        raise ValueError(f"box {k} {b[k].tolist()} reaches beyond {_MAX_COORD} pixels, where "
                         "float32 positions no longer tell pixels apart")
    extent = np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    bad = np.flatnonzero(extent <= 0)
    if len(bad):
        k = int(bad[0])
        if extent[k] == 0:
            raise ValueError(f"box {k} {b[k].tolist()} has no width or height")
        # it would crop mirrored: most often an [x, y, width, height] box (COCO's)
        raise ValueError(
            f"box {k} {b[k].tolist()} has x2 < x1 or y2 < y1; boxes are corners [x1, y1, x2, y2] "
            "(for [x, y, width, height] boxes add x and y to width and height; to mirror, use "
            "warp_affine with geometry.flip)")
    image, pil = as_image(image)  # pil: turns a patch back into a Pillow image, or None
    shape = tuple(image.shape)
    K = b.shape[0]
    if len(shape) == 4:
        if batch_indices is None:
            raise ValueError("a batch (B, H, W, C) needs batch_indices: the image of each box")
        bi = batch_index_array(batch_indices, K, shape[0])
    else:
        if batch_indices is not None and np.any(np.asarray(batch_indices) != 0):
            raise ValueError("batch_indices only apply to a batch (B, H, W, C)")
        bi = np.zeros(K, np.int64)
        image = image[None] if len(shape) == 3 else image[None, :, :, None]
    # dst_from_src per box: edge coordinate e is pixel-centre coordinate e - 0.5
    sx = wo / (b[:, 2] - b[:, 0])
    sy = ho / (b[:, 3] - b[:, 1])
    mats = np.zeros((K, 3, 3))
    mats[:, 0, 0], mats[:, 1, 1], mats[:, 2, 2] = sx, sy, 1.0
    mats[:, 0, 2] = (0.5 - b[:, 0]) * sx - 0.5
    mats[:, 1, 2] = (0.5 - b[:, 1]) * sy - 0.5
    out = warp_by(image, mats, (wo, ho), sampling, queue=queue, src_index=bi)
    if len(shape) == 2:  # a single-channel (H, W) image gives (K, h, w) patches
        out = out.reshape(K, ho, wo)
    if pil is not None:
        return [pil(np.ascontiguousarray(p)) for p in out]
    return out


def warp_batch(images: Sequence[Any], homographies: Any, size: tuple[int, int],
               interpolation: Interpolation = "linear", padding: Padding = "constant",
               fill: float | tuple[float, ...] = 0, antialias: Antialias = False,
               queue: cl.CommandQueue | None = None, output_dtype: Any = None,
               mean: float | Sequence[float] | None = None,
               std: float | Sequence[float] | None = None,
               layout: Literal["HWC", "CHW"] = "HWC",
               max_pixel_value: float | None = None) -> Any:
    """Warp a ragged batch (a list of images of different sizes, one channel count and dtype)
    to one output ``size``, each image with its own homography, in **one call**: on CPU
    devices each image is read where it is (a buffer over its memory, a launch each of one
    kernel bound once), elsewhere the images are packed into one buffer and warped in one
    launch, each output item reading its own. The result is one array
    (B, ho, wo, C) (or what ``output_dtype``/``layout`` make), as :func:`warp_perspective` of
    each image stacked; options as :func:`warp_perspective`'s. Lists of device arrays, or of
    images that differ in dtype or channels, are warped one by one (back to back, one wait) and
    stacked; lists of Pillow images give a list of Pillow images.

    Example:
        >>> import numpy as np
        >>> from warpkit.warp import warp_batch
        >>> photos = [np.zeros((480, 640, 3), np.uint8), np.zeros((500, 400, 3), np.uint8)]
        >>> warp_batch(photos, [np.eye(3)] * 2, (224, 224)).shape  # doctest: +SKIP
        (2, 224, 224, 3)
    """
    return engine.warp_batch(images, homographies, size,
                             Sampling.of(interpolation, padding, fill, antialias), queue=queue,
                             model=ModelInput(output_dtype, mean, std, layout,
                                              max_pixel_value))


def warp_each(images: Sequence[Any], homographies: Sequence[Any],
              sizes: Sequence[tuple[int, int]], interpolation: Interpolation = "linear",
              padding: Padding = "constant", fill: float | tuple[float, ...] = 0,
              antialias: Antialias = False, queue: cl.CommandQueue | None = None) -> list:
    """Warp each image of a list (sizes may differ) with its own homography and output size, as
    :func:`warp_perspective` would one by one, but launched back to back with one wait at the
    end; options as :func:`warp_perspective`'s.

    Example:
        >>> import numpy as np
        >>> from warpkit.warp import warp_each
        >>> imgs = [np.zeros((48, 64), np.uint8), np.zeros((30, 40), np.uint8)]
        >>> [a.shape for a in warp_each(imgs, [np.eye(3)] * 2, [(32, 24), (20, 15)])]  # doctest: +SKIP
        [(24, 32), (15, 20)]
    """
    return engine.warp_each(images, homographies, sizes,
                            Sampling.of(interpolation, padding, fill, antialias), queue=queue)
