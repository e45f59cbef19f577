"""Small helpers shared by the CLI modules: global options and output."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import typer

from nomic_cards.errors import InputError, LanguageError

T = TypeVar("T")


@dataclass
class _State:
    db: str | None = None


state = _State()

JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of text.")


def _plain(data: Any) -> Any:
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(data).items()}
    if isinstance(data, list | tuple):
        return [_plain(x) for x in data]
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    return data


def emit_json(data: Any) -> None:
    """Print ``data`` (dataclasses included) as indented JSON on stdout."""
    typer.echo(json.dumps(_plain(data), indent=2, default=str, ensure_ascii=False))


def echo(text: str = "") -> None:
    typer.echo(text)


def run_language(fn: Callable[[], T], *, max_context: int = 100) -> T:
    """Call ``fn``; a language error from a short one-line input is re-raised with the input and a
    caret under the error on the lines after its one-line message."""
    try:
        return fn()
    except LanguageError as err:
        if "\n" in err.text or len(err.text) > max_context:
            raise
        context = "\n".join(f"  {line}" for line in err.context().split("\n"))
        raise InputError(f"{err}\n{context}") from None
