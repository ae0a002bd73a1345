"""Augmentation for training loops: geometry and colour in one pass.

Transforms draw their parameters as plain data from a per-sample stream keyed on ``(seed,
epoch, index)`` and contribute a 3x3 map; :class:`Compose` multiplies the maps and resamples each
image once (a batch in one launch), moving masks, boxes and keypoints with the same map. Colour
transforms (albumentations' names: ``ColorJitter``, ``HueSaturationValue``,
``RandomBrightnessContrast``, ``RandomGamma``, ``ToGray``, ``RGBShift``, ``ChannelShuffle``,
``InvertImg``, ``Solarize``, ``Posterize``, ``ToSepia``, ``PlanckianJitter``,
``RandomToneCurve``, ``MultiplicativeNoise``, ``ChannelDropout``, ``RandomSnow``,
``ChromaticAberration``, ``Illumination``, ``RandomGravel``, ``RandomShadow``,
``RandomSunFlare``, ``RandomFog``, ``RandomRain``, ``Spatter``, ``PlasmaShadow``,
``PlasmaBrightnessContrast``, ``OverlayElements`` (elements the call passes); noise, dropout,
blur and morphology: ``GaussNoise``, ``SaltAndPepper``, ``ShotNoise``, ``ISONoise``,
``PixelDropout``, ``CoarseDropout``, ``GridDropout``, ``Morphological``, ...) run inside that resampling, on each pixel before it is stored (a
contrast on the image's mean, a blur, ``CLAHE``, ``Equalize``, ``AutoContrast``,
``HistogramMatching`` and ``FDA`` (to a reference image the call passes), ``FancyPCA``,
``ISONoise`` or
``ImageCompression`` in a pass after it, on the device; ``ToRGB`` and ``FromFloat`` on the
host, before and after it). ``Lambda`` (a Python function of the image, masks, boxes or
keypoints), ``Superpixels`` and ``TextImage`` run on the host between two passes, and so do
ImageCompression to WebP, the dropouts' inpainting, HEStain's fitted matrices and Equalize's
mask function. albumentations' geometric
transforms come under their own names and parameters too (``Affine``, ``ShiftScaleRotate``,
``Rotate``, ``SafeRotate``, ``Perspective``, ``HorizontalFlip``, ``VerticalFlip``,
``Transpose``, ``D4``, ``CropAndPad``; the letterbox's ``LongestMaxSize``,
``SmallestMaxSize``, ``RandomScale``, ``PadIfNeeded``; the crops that keep objects,
``BBoxSafeRandomCrop``, ``RandomSizedBBoxSafeCrop``, ``AtLeastOneBBoxRandomCrop``,
``CropNonEmptyMaskIfExists``, with torchvision's ``RandomIoUCrop`` and ``RandomZoomOut``), and
so are its ``BboxParams``, ``KeypointParams`` and call keywords, its ``Normalize``, ``ToFloat``
and ``ToTensorV2`` as a Compose's last steps (its model-input settings), its ``Sequential``
and ``ReplayCompose``, and its ``save``, ``load``, ``to_dict`` and ``from_dict``. torchvision's batch-level
``MixUp`` and ``CutMix`` mix a pipeline's output batch and its labels.

Sizes are (height, width), as ``image.shape[:2]`` and as albumentations, torchvision and kornia
take them: ``RandomResizedCrop((224, 160))`` gives images 224 high and 160 wide. (The warp
functions of :mod:`warpkit` keep OpenCV's and Pillow's (width, height), and so do a call's
``out["matrix"]`` and ``out["size"]``, which are that warp's arguments.)

Example:
    >>> import numpy as np
    >>> from warpkit.augment import Compose, RandomAffine, RandomHorizontalFlip, RandomResizedCrop
    >>> aug = Compose([RandomResizedCrop(224), RandomHorizontalFlip(),
    ...                RandomAffine(degrees=15, scale=(0.9, 1.1))], padding="reflect_101")
    >>> p = aug.sample((480, 640), seed=0, index=3)  # (height, width): plain data, no device
    >>> [type(t).__name__ for t, _ in aug.applied_steps(p)][0]
    'RandomResizedCrop'
    >>> out = aug(image=np.zeros((480, 640, 3), np.uint8), seed=0, index=3)  # doctest: +SKIP
    >>> out["image"].shape                                                 # doctest: +SKIP
    (224, 224, 3)
"""

from ._affine import RandomAffine
from ._geometric import (D4, Affine, CropAndPad, HorizontalFlip, LongestMaxSize, PadIfNeeded,
                         Perspective, RandomScale, Rotate, SafeRotate, ShiftScaleRotate,
                         SmallestMaxSize, SquareSymmetry, TimeReverse, Transpose, VerticalFlip)
from ._albumentations import from_albumentations
from ._serialize import from_dict, load, save, to_dict
from ._model_steps import Normalize, ToFloat, ToTensorV2
from ._result import Result
from ._sequences import ReplayCompose, Sequential
from ._nonlinear import (ElasticTransform, GridDistortion, GridElasticDeform, OpticalDistortion,
                         PiecewiseAffine, ThinPlateSpline)
from ._base import OneOf, OneOrOther, RandomOrder, SomeOf, Transform
from ._colour import (CLAHE, Blur, ChannelShuffle, ColorJitter, Downscale, Emboss, GaussianBlur,
                      GaussNoise, HueSaturationValue, InvertImg, MedianBlur, MotionBlur,
                      Posterize, RandomBrightnessContrast, RandomGamma, RGBShift, Sharpen,
                      Solarize, ToGray)
from ._dropout import (CoarseDropout, ConstrainedCoarseDropout, Erasing, FrequencyMasking,
                       GridDropout, TimeMasking, XYMasking)
from ._filters import AdvancedBlur, Defocus, GlassBlur, RingingOvershoot, UnsharpMask, ZoomBlur
from ._pixel_dropout import PixelDropout
from ._mask_dropout import MaskDropout
from ._stain import HEStain
from ._domain import FDA, HistogramMatching
from ._overlay import OverlayElements
from ._spatter import Spatter
from ._host import Lambda, SelectiveChannelTransform
from ._superpixels import Superpixels
from ._text import TextImage
from ._additive import AdditiveNoise
from ._grid_shuffle import RandomGridShuffle
from ._pixel import (AutoContrast, ChannelDropout, ChromaticAberration, Equalize, FancyPCA,
                     ImageCompression, ISONoise, MultiplicativeNoise, PlanckianJitter, RandomSnow,
                     RandomToneCurve, SaltAndPepper, ShotNoise, ToSepia)
from ._mixing import CutMix, MixUp
from ._scene import Illumination, RandomGravel, RandomShadow
from ._plasma import PlasmaBrightnessContrast, PlasmaShadow
from ._weather import RandomFog, RandomRain, RandomSunFlare
from ._morph import Morphological
from ._mosaic import Mosaic
from ._convert import FromFloat, NoOp, ToRGB
from ._objects import (AtLeastOneBBoxRandomCrop, BBoxSafeRandomCrop, CropNonEmptyMaskIfExists,
                       RandomCropNearBBox, RandomIoUCrop, RandomSizedBBoxSafeCrop, RandomZoomOut)
from ._compose import Compose, collate
from ._volume3d import (CenterCrop3D, CoarseDropout3D, CubicSymmetry, Pad3D, PadIfNeeded3D,
                        RandomCrop3D, ToTensor3D)
from ._params import BboxParams, KeypointParams
from ._epochs import EpochSampler, RepeatedSampleWarning, SampleKey
from ._prefetch import batches
from ._streams import stream
from ._transforms import (CenterCrop, Crop, Pad, RandomCrop, RandomCropFromBorders,
                          RandomHorizontalFlip, RandomPerspective, RandomResizedCrop,
                          RandomRotate90, RandomRotation, RandomSizedCrop, RandomVerticalFlip,
                          Resize)

__all__ = ["AdditiveNoise", "AdvancedBlur", "Affine", "AtLeastOneBBoxRandomCrop", "AutoContrast",
           "batches", "BboxParams", "BBoxSafeRandomCrop", "Blur", "CenterCrop", "CenterCrop3D",
           "ChannelDropout", "CoarseDropout3D", "CubicSymmetry", "Pad3D", "PadIfNeeded3D",
           "RandomCrop3D",
           "ChromaticAberration",
           "ChannelShuffle", "CLAHE", "CoarseDropout", "collate", "ColorJitter", "Compose",
           "ConstrainedCoarseDropout", "Crop", "CropAndPad", "CropNonEmptyMaskIfExists", "CutMix",
           "D4", "Defocus", "Downscale",
           "ElasticTransform", "Emboss", "EpochSampler", "Equalize", "Erasing", "FancyPCA",
           "FrequencyMasking", "FromFloat",
           "from_albumentations", "from_dict", "GaussianBlur", "GaussNoise", "GlassBlur", "GridDistortion", "GridDropout",
           "GridElasticDeform",
           "FDA", "HEStain", "HistogramMatching", "HorizontalFlip", "HueSaturationValue", "Illumination", "ImageCompression", "InvertImg", "ISONoise",
           "KeypointParams", "Lambda", "load", "LongestMaxSize", "MaskDropout", "MedianBlur", "MixUp", "Morphological", "Mosaic",
           "MotionBlur",
           "MultiplicativeNoise", "NoOp", "Normalize", "OneOf", "OneOrOther", "RandomOrder", "SomeOf",
           "OpticalDistortion", "OverlayElements", "Pad", "PadIfNeeded",
           "Perspective", "PiecewiseAffine", "PixelDropout", "PlanckianJitter",
           "PlasmaBrightnessContrast", "PlasmaShadow", "Posterize",
           "RandomAffine", "RandomBrightnessContrast", "RandomCrop", "RandomCropFromBorders",
           "RandomCropNearBBox", "RandomFog", "RandomGamma", "RandomRain", "RandomGravel", "RandomGridShuffle",
           "RandomHorizontalFlip", "RandomIoUCrop",
           "RandomPerspective", "RandomResizedCrop", "RandomRotate90", "RandomRotation",
           "RandomScale", "RandomShadow", "RandomSizedBBoxSafeCrop", "RandomSizedCrop", "RandomSnow", "RandomSunFlare",
           "RandomToneCurve",
           "RandomVerticalFlip", "RandomZoomOut", "RepeatedSampleWarning", "ReplayCompose", "Resize", "Result", "RGBShift",
           "RingingOvershoot", "Rotate", "SafeRotate", "SaltAndPepper", "SampleKey", "save",
           "SelectiveChannelTransform", "Sequential", "Sharpen",
           "ShiftScaleRotate", "ShotNoise", "SmallestMaxSize", "Solarize", "Spatter", "Superpixels", "SquareSymmetry",
           "stream", "TextImage", "ThinPlateSpline", "TimeMasking", "TimeReverse", "to_dict", "ToFloat", "ToGray", "ToRGB", "ToSepia", "ToTensor3D", "ToTensorV2",
           "Transform", "Transpose", "UnsharpMask", "VerticalFlip", "XYMasking", "ZoomBlur"]
