"""warpkit: image warping and ONNX-exact GridSample, AffineGrid and RoiAlign as OpenCL kernels.

Nothing touches OpenCL at import: the default device is chosen on first use (see
:mod:`warpkit.runtime`).

Example:
    >>> import numpy as np, warpkit
    >>> X = np.random.rand(1, 3, 32, 32).astype(np.float32)
    >>> grid = np.random.uniform(-1, 1, (1, 16, 16, 2)).astype(np.float32)
    >>> warpkit.grid_sample(X, grid).shape          # doctest: +SKIP
    (1, 3, 16, 16)
"""

from . import augment, geometry
from .affine_grid import affine_grid
from .augment import RandomAffine
from .grid_sample import grid_sample
from .roi_align import roi_align
from .runtime import Runtime, clear_cache, get_runtime, list_devices, runtime_for_queue, set_device
from .warp import crop_rois, warp_affine, warp_perspective

__version__ = "0.1.0"

__all__ = [
    "RandomAffine",
    "Runtime",
    "affine_grid",
    "augment",
    "clear_cache",
    "crop_rois",
    "geometry",
    "get_runtime",
    "grid_sample",
    "list_devices",
    "roi_align",
    "runtime_for_queue",
    "set_device",
    "warp_affine",
    "warp_perspective",
]
