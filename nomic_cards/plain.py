"""Result dataclasses as JSON-ready data, for every adapter that prints or serves them (the
command line's ``--json`` and the server's responses)."""

from __future__ import annotations

import dataclasses
from typing import Any

#: types that are JSON-ready as they are
_SCALARS = frozenset({str, int, float, bool, type(None)})
#: the field names of each result dataclass met so far (None: a type that is not one)
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields(kind: type) -> tuple[str, ...] | None:
    try:
        return _FIELDS[kind]
    except KeyError:
        names = (tuple(f.name for f in dataclasses.fields(kind))
                 if dataclasses.is_dataclass(kind) else None)
        _FIELDS[kind] = names
        return names


def plain(value: Any) -> Any:
    """A result dataclass (or a list, tuple or dict of them, nested) as dicts and lists."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    names = _fields(kind)
    if names is not None:
        return {name: plain(getattr(value, name)) for name in names}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
