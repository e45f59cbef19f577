"""Result dataclasses as JSON-ready data, for every adapter that prints or serves them (the
command line's ``--json`` and the server's responses)."""

from __future__ import annotations

import dataclasses
from typing import Any


def plain(value: Any) -> Any:
    """A result dataclass (or a list, tuple or dict of them, nested) as dicts and lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
