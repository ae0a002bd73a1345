"""Warps by per-pixel maps (OpenCV's ``remap``) and by camera lens models (``undistort``).

Conventions: positions are pixel coordinates with pixel centres at integers, x right, y down,
as OpenCV's. ``map_x[y, x], map_y[y, x]`` is where output pixel (x, y) samples the image: a
**source-from-destination** map (the direction a kernel evaluates), unlike the
destination-from-source matrices of :mod:`warpkit.geometry`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ._images import as_image, shape_hwc
from ._memory import operand
from ._options import Sampling
from .engine import COORD_MAP, Coords, ModelInput, warp_by
from .engine.chain import chain_coords
from .engine.stages import lens
from .warp import Interpolation, Padding

__all__ = ["remap", "undistort"]


def _map_operand(a: Any, name: str):
    op = operand(a, name)
    if op.dev is not None:
        d = op.dev
        if d.dtype != np.float32 or not d.flags.c_contiguous:
            raise TypeError(f"{name} on the device must be a C-contiguous float32 array, got "
                            f"{d.dtype}{'' if d.flags.c_contiguous else ' (not contiguous)'}")
        return op
    h = op.host
    if h.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold numbers (positions), got {h.dtype}")
    return operand(np.ascontiguousarray(h, dtype=np.float32), name)


def remap(
    image: Any,
    map_x: Any,
    map_y: Any = None,
    interpolation: Interpolation = "linear",
    padding: Padding = "constant",
    fill: float | tuple[float, ...] = 0,
    queue: Any = None,
    output_dtype: Any = None,
    mean: float | Sequence[float] | None = None,
    std: float | Sequence[float] | None = None,
    layout: Literal["HWC", "CHW"] = "HWC",
    max_pixel_value: float | None = None,
) -> Any:
    """Sample an image at given positions, one per output pixel (``cv2.remap``).

    Args:
        image: as :func:`warpkit.warp_affine` takes it (Pillow, numpy or device array; (H, W),
            (H, W, C) or a batch (B, H, W, C); uint8, uint16, int32 or float32), or a
            CPU torch tensor of those shapes (a tensor comes back; maps may be tensors too).
        map_x: the source x of each output pixel, (Ho, Wo); or both coordinates as one
            (Ho, Wo, 2) array of (x, y) with ``map_y`` None. For a batch, one map for every
            image or one per image: (B, Ho, Wo) / (B, Ho, Wo, 2). float32 (other numbers are
            converted on the host; device maps must be float32 and contiguous). A NaN or
            infinite position has no source pixel: the output there is ``fill`` (or 0 with
            other paddings).
        map_y: the source y of each output pixel, shaped as ``map_x``.
        interpolation, padding, fill, queue, output_dtype, mean, std, layout,
            max_pixel_value: as
            :func:`warpkit.warp_affine` takes them (no ``antialias``: a map gives no positions
            between output pixels to average).

    Returns:
        The (Ho, Wo) output, of the image's kind, dtype and channels (or the model's input that
        ``output_dtype`` asks for).

    Example:
        >>> import numpy as np, warpkit
        >>> img = np.arange(12, dtype=np.float32).reshape(3, 4)
        >>> ys, xs = np.mgrid[0:3, 0:4].astype(np.float32)
        >>> warpkit.remap(img, xs[:, ::-1], ys)[0].tolist()     # a left-right mirror  # doctest: +SKIP
        [3.0, 2.0, 1.0, 0.0]
    """
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(image, torch.Tensor):  # CPU tensors: (H, W[, C]) views
        res = remap(image.numpy(), map_x, map_y, interpolation, padding, fill, queue,
                    output_dtype, mean, std, layout, max_pixel_value)
        return torch.from_numpy(res)
    arr, _ = as_image(image)
    batched = len(arr.shape) == 4
    mx = _map_operand(map_x, "map_x")
    xy = map_y is None
    my = mx if xy else _map_operand(map_y, "map_y")
    grid = mx.shape[:-1] if xy else mx.shape
    if xy and (mx.ndim not in (3, 4) or mx.shape[-1] != 2):
        raise ValueError(f"map_x without map_y must be (Ho, Wo, 2) or (B, Ho, Wo, 2) positions, "
                         f"got shape {mx.shape}")
    if not xy and my.shape != mx.shape:
        raise ValueError(f"map_x and map_y must have one shape, got {mx.shape} and {my.shape}")
    per_item = len(grid) == 3
    if len(grid) not in (2, 3) or (per_item and (not batched or grid[0] != arr.shape[0])):
        want = "(Ho, Wo)" + (f" or ({arr.shape[0]}, Ho, Wo) for this batch" if batched else "")
        raise ValueError(f"the maps must be {want}{' x 2' if xy else ''}, got "
                         f"{tuple(mx.shape)}")
    ho, wo = grid[-2:]
    if ho < 1 or wo < 1:
        raise ValueError(f"the maps have no output pixels: shape {tuple(mx.shape)}")
    item = ho * wo * (2 if xy else 1) if per_item else 0
    coords = Coords(COORD_MAP, mx=mx, my=my, map_item=item, map_xy=xy)
    return warp_by(image, None, (wo, ho), Sampling.of(interpolation, padding, fill), queue=queue,
                   affine=False, coords=coords,
                   model=ModelInput(output_dtype, mean, std, layout, max_pixel_value))


def undistort(image: Any, camera_matrix: Any, dist_coeffs: Any, new_camera_matrix: Any = None,
              size: tuple[int, int] | None = None, interpolation: Interpolation = "linear",
              padding: Padding = "constant", fill: float | tuple[float, ...] = 0,
              queue: Any = None) -> Any:
    """Remove lens distortion (``cv2.undistort``): the map of
    :func:`warpkit.geometry.undistort_maps`, evaluated per pixel inside the warp kernel (in
    float32, from the camera model) instead of made on the host; a batch takes one lens.

    Example:
        >>> import numpy as np, warpkit
        >>> K = [[500, 0, 319.5], [0, 500, 239.5], [0, 0, 1]]
        >>> img = np.zeros((480, 640, 3), np.uint8)
        >>> warpkit.undistort(img, K, [-0.2, 0.05, 0, 0]).shape   # doctest: +SKIP
        (480, 640, 3)
    """
    if size is None:
        _, H, W, _, _, _ = shape_hwc(as_image(image)[0])
        size = (W, H)
    stage = lens(camera_matrix, dist_coeffs, new_camera_matrix)
    eye = np.eye(3)
    return warp_by(image, None, size, Sampling.of(interpolation, padding, fill), queue=queue,
                   affine=False, coords=chain_coords([[eye, stage, eye]]))
