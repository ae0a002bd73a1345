"""The warp engine: warpkit's named internal API behind every resampling call.

``warp_affine``, ``warp_perspective``, ``crop_rois``, ``remap``, ``undistort``, ``RandomAffine``
and the pipelines all come down to :func:`warp_by`, in four steps, one module each:

- **input** (:mod:`.inputs`, ``core._Input``): the image or a ragged batch packed into one
  buffer, its dtype and layout, and the matrices of its output items;
- **maps** (:mod:`.coords`): where each output pixel reads: one matrix per item, or a
  :class:`Coords` (per-pixel maps, chains of non-linear stages, per-axis tables), with the
  samples per axis that antialiasing takes and the work split for the map;
- **output** (:mod:`.output`): the fill per channel and the model's input (normalised floats,
  channels first) written in the same pass;
- **plan** (:mod:`.plan`): the kernel variant, its arguments and launch for one kind of call,
  cached, so that a repeated call only binds its buffers.

How to sample comes as one :class:`~warpkit._options.Sampling` value (interpolation, padding,
fill, antialias), checked where the user gave it.

Example:
    >>> import numpy as np
    >>> from warpkit.engine import Sampling, warp_by
    >>> img = np.zeros((48, 64, 3), np.uint8)
    >>> warp_by(img, np.eye(3), (32, 24), Sampling.of("cubic", "reflect_101")).shape  # doctest: +SKIP
    (24, 32, 3)
"""

from .._options import Sampling
from .coords import COORD_AXES, COORD_FIELD, COORD_MAP, COORD_MATRIX, Coords
from .core import LINEAR, warp_batch, warp_by, warp_by_coords, warp_each
from .inputs import WARP_DTYPES, matrices
from .output import PLAIN, ModelInput, check_max_pixel_value, check_model_input

__all__ = ["COORD_AXES", "COORD_FIELD", "COORD_MAP", "COORD_MATRIX", "Coords", "LINEAR",
           "ModelInput", "PLAIN", "Sampling", "WARP_DTYPES", "check_max_pixel_value",
           "check_model_input", "matrices",
           "warp_batch", "warp_by", "warp_by_coords", "warp_each"]
