"""A pipeline call's result: albumentations' dict of the targets, with warpkit's records of the
call beside them.

Conventions: the dict's keys are what albumentations' result holds (the targets given, and the
keywords passed through), so iterating it, ``len``, ``**out``, ``out.items()`` and a
DataLoader's default collate see what they saw under albumentations (a ``Dataset`` returning
the whole dict to ``torch.utils.data.default_collate`` met each sample's own draws and failed).
The records (``params``, ``matrix``, ``size``, ``seed``, and the ``<keypoints>_visible`` flags
of ``remove_invisible=False``) are read as items all the same (``out["params"]``, ``"params"
in out``, ``out.get("params")``) or as attributes (``out.params``); ``out.records`` holds them.
A copy (``copy.copy``, ``dict.copy``, a collated batch) is of the targets alone.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["Result"]

#: the records every call makes (besides the keypoints' visibility flags)
RECORDS = ("params", "matrix", "size", "seed")


class Result(dict):
    """A call's targets as a dict, its records beside them (see the module's conventions).

    Example:
        >>> out = Result({"image": 1}, {"params": {"applied": True}})
        >>> list(out), out["params"], out.params, "params" in out
        (['image'], {'applied': True}, {'applied': True}, True)
    """

    def __init__(self, targets: Any = (), records: dict | None = None) -> None:
        super().__init__(targets)
        self.records: dict[str, Any] = dict(records or {})

    @classmethod
    def of(cls, res: dict, records: Iterable[str]) -> "Result":
        """``res`` (a plain dict of the call) with the keys ``records`` names taken out as
        records."""
        keys = set(records)
        return cls({k: v for k, v in res.items() if k not in keys},
                   {k: v for k, v in res.items() if k in keys})

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            try:
                return self.__dict__["records"][key]
            except KeyError:
                raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.__dict__.get("records", ())

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: Any, value: Any) -> None:
        records = self.__dict__.get("records")
        if records is not None and key in records:
            records[key] = value
        else:
            dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        if dict.__contains__(self, key):
            dict.__delitem__(self, key)
        else:
            del self.__dict__["records"][key]

    def pop(self, key: Any, *default: Any) -> Any:
        if dict.__contains__(self, key):
            return dict.pop(self, key)
        return self.__dict__.get("records", {}).pop(key, *default)

    def __getattr__(self, name: str) -> Any:
        records = self.__dict__.get("records")
        if records is not None and name in records:
            return records[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __copy__(self) -> "Result":
        return Result(self)  # (the targets: what a collated batch is made of)
