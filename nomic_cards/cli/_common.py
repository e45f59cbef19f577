"""Small helpers shared by the CLI modules: global options and output."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import typer

from nomic_cards.errors import with_input_context

if TYPE_CHECKING:
    from nomic_cards.core.game import Game
    from nomic_cards.core.settings import GameSettings

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class CliOptions:
    """The root options of one invocation, kept in the Click context (``ctx.obj``)."""

    db: str | None = None


def cli_options(ctx: typer.Context) -> CliOptions:
    """The root options of the command being run."""
    found = ctx.find_object(CliOptions)
    return found if found is not None else CliOptions()


@contextmanager
def open_game(ctx: typer.Context, *, create: bool = False,
              settings: GameSettings | None = None) -> Iterator[Game]:
    """The invocation's :class:`~nomic_cards.core.Game` (``--db``), closed afterwards."""
    from nomic_cards.core.game import Game

    with Game(cli_options(ctx).db, create=create, settings=settings) as game:
        yield game


def call(ctx: typer.Context, use_case: Callable[Concatenate[Game, P], T], *args: P.args,
         **kwargs: P.kwargs) -> T:
    """Run one use case on the invocation's game: ``call(ctx, services.deal, "Ienne")``."""
    with open_game(ctx) as game:
        return use_case(game, *args, **kwargs)

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


def echo(text: str = "", *, err: bool = False) -> None:
    typer.echo(text, err=err)


def run_language(fn: Callable[[], T], *, max_context: int = 100) -> T:
    """Call ``fn``; a language error from a short one-line input is re-raised with the input and a
    caret under the error on the lines after its one-line message."""
    return with_input_context(fn, max_context=max_context)
