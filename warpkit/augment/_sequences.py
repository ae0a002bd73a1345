"""albumentations' other pipelines under their names and parameters: ``Sequential`` (a nested
pipeline applied whole with probability ``p``) and ``ReplayCompose`` (a Compose whose result
also holds, under ``save_key``, what :meth:`ReplayCompose.replay` needs to apply the same draw
to other targets), so that code written with them ports by its import.

Conventions: ``ReplayCompose``'s record is warpkit's, not albumentations': a dict of the
pipeline's data (``"pipeline"``, :meth:`~warpkit.augment.Transform.to_dict`) and the call's
parameters (``"params"``, the call's ``out["params"]``), plain data that JSON keeps.
albumentations' record lists each transform with its ``"applied"`` flag and parameters;
code that reads those reads ``out["params"]`` here (``Compose.applied_steps``).
"""

from __future__ import annotations

from typing import Any, Sequence

from ._base import Transform
from ._compose import Compose
from ._params import BUILT_IN
from ._result import RECORDS


class Sequential(Compose):
    """albumentations' Sequential: its transforms in order, all of them or none, with
    probability ``p`` (0.5 by default), inside a pipeline (a nested Compose whose ``p`` is not
    1 by default; the outer pipeline's settings hold for its steps).

    Example:
        >>> from warpkit.augment import Compose, HorizontalFlip, Sequential, VerticalFlip
        >>> aug = Compose([Sequential([HorizontalFlip(p=1), VerticalFlip(p=1)], p=0.3)])
        >>> seq = aug.transforms[0]
        >>> type(seq).__name__, seq.p, len(seq.transforms)
        ('Sequential', 0.3, 2)
    """

    def __init__(self, transforms: Sequence[Transform], p: float = 0.5) -> None:
        super().__init__(transforms, p=p)

    def config(self) -> dict:
        return {"transforms": [t.data() for t in self.transforms]}


class _Replay:
    """``ReplayCompose.replay``: albumentations' static form on the class or an instance
    (``replay(out[save_key], image=...)``: the pipeline from the record), and Compose's own on
    an instance (``replay(out["params"], image=...)``)."""

    def __get__(self, obj: Any, cls: type) -> Any:
        def replay(saved: Any, **targets: Any) -> dict:
            if _is_record(saved):
                pipe = Compose.from_dict(saved["pipeline"])
                return Compose.replay(pipe, saved["params"], **targets)
            if obj is None:
                raise ValueError("ReplayCompose.replay takes a call's record, out[save_key] (a "
                                 "dict of 'pipeline' and 'params'), got "
                                 f"{type(saved).__name__}")
            return Compose.replay(obj, saved, **targets)
        return replay


def _is_record(saved: Any) -> bool:
    return isinstance(saved, dict) and set(saved) == {"pipeline", "params"}


class ReplayCompose(Compose):
    """albumentations' ReplayCompose: a Compose (every keyword of warpkit's too) whose result
    also holds, under ``save_key`` ("replay"), the record that ``ReplayCompose.replay(record,
    image=...)`` applies to other targets: the same draw, each sample's (the pipeline's data
    and the call's ``out["params"]``, plain data; see the module's conventions).

    Example:
        >>> import numpy as np
        >>> from warpkit.augment import HorizontalFlip, ReplayCompose
        >>> aug = ReplayCompose([HorizontalFlip()])
        >>> aug.save_key
        'replay'
        >>> out = aug(image=np.zeros((8, 8, 3), np.uint8), seed=0)          # doctest: +SKIP
        >>> again = ReplayCompose.replay(out["replay"], image=np.ones((8, 8, 3), np.uint8))
        ... # doctest: +SKIP
    """

    replay = _Replay()

    def __init__(self, transforms: Sequence[Transform], bbox_params: Any = None,
                 keypoint_params: Any = None, additional_targets: dict[str, str] | None = None,
                 p: float = 1.0, is_check_shapes: bool = True, save_key: str = "replay",
                 **settings: Any) -> None:
        super().__init__(transforms, p=p, bbox_params=bbox_params,
                         keypoint_params=keypoint_params, additional_targets=additional_targets,
                         is_check_shapes=is_check_shapes, **settings)
        if not isinstance(save_key, str) or not save_key:
            raise ValueError(f"save_key must be a non-empty string, got {save_key!r}")
        self.save_key = save_key
        self._check_save_key(self.additional_targets)

    def _check_save_key(self, targets: dict[str, str]) -> None:
        if self.save_key in (*BUILT_IN, *RECORDS, "applied_transforms", *self.label_fields,
                             *self.keypoint_label_fields, *targets):
            raise ValueError(f"save_key={self.save_key!r} names one of the call's results: "
                             f"choose another key")

    def add_targets(self, additional_targets: dict[str, str] | None) -> None:
        self._check_save_key(dict(additional_targets or {}))
        super().add_targets(additional_targets)

    def record(self, params: Any) -> dict:
        """What a call keeps under ``save_key``: the pipeline's data and the call's
        parameters."""
        return {"pipeline": self.to_dict(), "params": params}

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        out = super().__call__(*args, **kwargs)
        out[self.save_key] = self.record(out["params"])
        return out

    def config(self) -> dict:
        return {**super().config(), "save_key": self.save_key}
