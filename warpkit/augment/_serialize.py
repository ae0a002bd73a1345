"""albumentations' serialisation functions under their own names and signatures: ``to_dict``,
``from_dict``, ``save`` and ``load``, so that a recipe's ``A.save(aug, "aug.json")`` and
``A.load("aug.json")`` port with the import (``import warpkit.augment as A``).

They write warpkit's own pipeline data (:meth:`~warpkit.augment.Transform.to_dict`: the
classes and parameters warpkit's transforms take) as JSON or YAML, and read it back; ``load``
and ``from_dict`` also read what albumentations itself saved (``A.save``, ``A.to_dict``), ported
by :func:`~warpkit.augment.from_albumentations`.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, Literal, TextIO

from .._checks import one_of
from ._albumentations import from_albumentations, is_albumentations_data
from ._base import Transform
from ._base import from_dict as _from_data

#: the data formats albumentations' save and load take
DATA_FORMATS = {"json": "JSON", "yaml": "YAML, with PyYAML"}
#: what to_dict does where a transform cannot be written
ON_NOT_IMPLEMENTED = {"raise": "raise the error", "warn": "warn and give None"}


def to_dict(transform: Transform, on_not_implemented_error: Literal["raise", "warn"] = "raise"
            ) -> dict[str, Any] | None:
    """A transform's (a pipeline's) data, as albumentations' ``A.to_dict`` gives its own:
    :meth:`Transform.to_dict` (plain data, JSON). ``on_not_implemented_error="warn"`` warns
    and gives None where the transform cannot be written, as albumentations does.

    Example:
        >>> import warpkit.augment as A
        >>> A.to_dict(A.Compose([A.HorizontalFlip(p=0.3)]))["transforms"][0]["p"]
        0.3
    """
    one_of(on_not_implemented_error, "on_not_implemented_error", ON_NOT_IMPLEMENTED)
    if not isinstance(transform, Transform):
        raise TypeError(f"to_dict takes a warpkit.augment transform, got "
                        f"{type(transform).__name__} (an albumentations pipeline: "
                        f"from_albumentations ports it)")
    try:
        return transform.to_dict()
    except NotImplementedError as e:
        if on_not_implemented_error == "raise":
            raise
        warnings.warn(f"{type(transform).__name__} cannot be written: {e}", stacklevel=2)
        return None


def from_dict(transform_dict: dict[str, Any], nonserializable: dict[str, Any] | None = None
              ) -> Transform:
    """The transform :func:`to_dict` (or :meth:`Transform.to_dict`) wrote, or the warpkit port
    of the dict albumentations' ``A.to_dict`` wrote (:func:`from_albumentations`).
    ``nonserializable``: each ``Lambda``'s functions by its name, as albumentations takes them.

    Example:
        >>> import warpkit.augment as A
        >>> aug = A.from_dict(A.to_dict(A.Compose([A.HorizontalFlip(p=0.3)])))
        >>> type(aug).__name__, aug.transforms[0].p
        ('Compose', 0.3)
    """
    if is_albumentations_data(transform_dict):
        return from_albumentations(transform_dict, nonserializable)
    return _from_data(transform_dict, nonserializable=nonserializable)


def save(transform: Transform, filepath_or_buffer: str | os.PathLike | TextIO,
         data_format: Literal["json", "yaml"] = "json",
         on_not_implemented_error: Literal["raise", "warn"] = "raise") -> None:
    """Write a transform's data (:func:`to_dict`) to a file (written atomically: a reader sees
    the whole file or the old one) or a text stream, as JSON or as YAML (PyYAML, which
    albumentations installs): albumentations' ``A.save`` with warpkit's pipelines.

    Example:
        >>> import io, warpkit.augment as A
        >>> buf = io.StringIO()
        >>> A.save(A.Compose([A.HorizontalFlip(p=0.3)]), buf, data_format="yaml")
        >>> A.load(io.StringIO(buf.getvalue()), data_format="yaml").transforms[0].p
        0.3
    """
    one_of(data_format, "data_format", DATA_FORMATS)
    data = to_dict(transform, on_not_implemented_error)
    if data_format == "json":
        text = json.dumps(data, indent=1)
    else:
        from ..fileio import yaml_module

        yaml = yaml_module()
        # (through JSON's types: YAML's safe writer refuses tuples)
        text = yaml.safe_dump(json.loads(json.dumps(data)), default_flow_style=False)
    if isinstance(filepath_or_buffer, (str, os.PathLike)):
        from ..fileio import save_text_atomic

        save_text_atomic(text, Path(filepath_or_buffer))
    else:
        filepath_or_buffer.write(text)


def load(filepath_or_buffer: str | os.PathLike | TextIO,
         data_format: Literal["json", "yaml"] = "json",
         nonserializable: dict[str, Any] | None = None) -> Transform:
    """The transform a file or a text stream holds, JSON or YAML as ``data_format`` says (as
    albumentations' ``A.load`` reads them): data :func:`save` wrote, or a pipeline
    albumentations' ``A.save`` wrote, ported (:func:`from_albumentations`). ``nonserializable``:
    each ``Lambda``'s functions by its name.

    Example:
        >>> import io, warpkit.augment as A
        >>> aug = A.load(io.StringIO('{"transform": {"__class_fullname__": "Compose", '
        ...                          '"transforms": [{"__class_fullname__": "HorizontalFlip"}]}}'))
        >>> [type(t).__name__ for t in aug.transforms]
        ['HorizontalFlip']
    """
    from ..fileio import parse_data_file

    one_of(data_format, "data_format", DATA_FORMATS)
    path = isinstance(filepath_or_buffer, (str, os.PathLike))
    text = Path(filepath_or_buffer).read_text(encoding="utf-8") if path else \
        filepath_or_buffer.read()
    try:
        data = parse_data_file(text, data_format=data_format)
    except ValueError as e:
        hint = "; data_format='yaml' reads YAML" if data_format == "json" else ""
        raise ValueError(f"{filepath_or_buffer if path else 'the stream'}: {e}{hint}") from None
    return from_dict(data, nonserializable)
