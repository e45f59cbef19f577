"""Small helpers shared by the CLI modules: global options and output."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import typer


@dataclass
class _State:
    db: str | None = None


state = _State()


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    typer.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
