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

import os as _os

# In a checkout, cli/ and kernels_cl/ sit beside this package, not in it (the installed package
# has them inside, pyproject.toml's package-dir): find them there too, so that the checkout's
# warpkit/ (first on sys.path under `python -m pytest` from the root) works like the installed one.
_top = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "cli")) and \
        _os.path.isfile(_os.path.join(_top, "kernels_cl", "warpkit.h")):
    __path__.append(_top)
del _os, _top

from . import augment, geometry  # noqa: E402
from ._selfcheck import CheckReport, check  # noqa: E402
from .affine_grid import affine_grid  # noqa: E402
from .augment import RandomAffine  # noqa: E402
from .grid_sample import grid_sample  # noqa: E402
from .remap import remap, undistort  # noqa: E402
from .roi_align import roi_align  # noqa: E402
from .runtime import Runtime, clear_cache, get_runtime, list_devices, runtime_for_queue, set_device  # noqa: E402,E501
from .warp import crop_rois, warp_affine, warp_perspective  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "CheckReport",
    "RandomAffine",
    "Runtime",
    "affine_grid",
    "augment",
    "check",
    "clear_cache",
    "crop_rois",
    "geometry",
    "get_runtime",
    "grid_sample",
    "list_devices",
    "remap",
    "roi_align",
    "runtime_for_queue",
    "set_device",
    "undistort",
    "warp_affine",
    "warp_perspective",
]
