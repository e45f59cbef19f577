"""The ``nomic-cards`` command line (the only package that imports Typer).

Commands are thin adapters over :mod:`nomic_cards.core.services` and the libraries: they parse
input, call one use case, print the result (text or ``--json``) and map errors to exit codes —
1 for a :class:`~nomic_cards.errors.NomicCardsError` (one line on stderr, never a traceback), 2
for usage errors. Heavy imports (SQLAlchemy, numpy, lark) happen inside the commands.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache
from typing import Any, cast

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from nomic_cards.cli import act as _act
from nomic_cards.cli import audit as _audit
from nomic_cards.cli import bridge as _bridge
from nomic_cards.cli import cron as _cron
from nomic_cards.cli import deals as _deals
from nomic_cards.cli import game as _game
from nomic_cards.cli import games as _games
from nomic_cards.cli import notices as _notices
from nomic_cards.cli import play as _play
from nomic_cards.cli import poker as _poker
from nomic_cards.cli import randomizer as _randomizer
from nomic_cards.cli import rules as _rules
from nomic_cards.cli import server as _server
from nomic_cards.cli import time as _time
from nomic_cards.cli._common import AT_HELP, CliOptions
from nomic_cards.core.settings import DEFAULT_DATABASE_FILE
from nomic_cards.errors import InputError, NomicCardsError
from nomic_cards.inputs import ascii_int, escape_lines, shorten


def _click_class(name: str) -> Any:
    """Click's exception class ``name`` (from whichever Click this Typer uses), found from the
    public ``typer.BadParameter``."""
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


_USAGE_ERROR = _click_class("UsageError")
_CLICK_EXCEPTION = _click_class("ClickException")


def _database_error(exc: BaseException) -> bool:
    """Whether ``exc`` comes from the database (SQLAlchemy or a driver: a permission the
    account lacks, a lost connection) and escaped the store's own translation: one line too."""
    return any(c.__module__.partition(".")[0] in ("sqlalchemy", "sqlite3", "psycopg")
               for c in type(exc).__mro__)


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _unwrap(text: str) -> str:
    """``text`` with each paragraph on one line: help is written wrapped at the source's line
    length, and the rich help would keep those breaks mid-sentence instead of wrapping each
    paragraph at the terminal's width. Paragraphs (blank lines) and Click's ``\\b`` blocks
    stay as written."""
    paragraphs = text.strip().split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split())
                        for p in paragraphs)


class _Argument(TyperArgument):
    """A positional argument shown as Click writes one in a usage line: ``CARD``, ``[CARD]``
    when it may be left out, ``PLAYERS...`` when it repeats (Typer's own form is ``{card}``)."""

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        var = self.metavar or (self.name or "").upper()
        if self.nargs != 1:
            var += "..."
        return f"[{var}]" if usage and not self.required else var


@cache
def _ascii_int_type(base: type) -> type:
    """``base`` (Click's int type or int range) reading only ASCII digits: Click's own
    conversion is ``int()``, which takes other scripts' digits too (``٣`` is 3) and fails with
    a traceback-worthy ValueError on more than 4300 digits."""
    def convert(self: Any, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str):
            try:
                number = ascii_int(value.strip(), "the number", signed=True)
            except InputError as exc:
                self.fail(str(exc), param, ctx)
            if number is None:
                self.fail(f"{shorten(value)} is not a whole number written in ASCII "
                          "digits 0-9", param, ctx)
            value = number
        return base.convert(self, value, param, ctx)  # type: ignore[attr-defined]

    return type(f"Ascii{base.__name__}", (base,), {"convert": convert})


def _polish(command: Any) -> None:
    """Unwrap the help of ``command``, its parameters and every command below it; show its
    arguments' names as metavars (``CARD``); make its whole-number parameters take ASCII
    digits only."""
    if command.help:
        command.help = _unwrap(command.help)
    for param in command.params:
        if any(c.__name__ == "IntParamType" for c in type(param.type).__mro__):
            param.type.__class__ = _ascii_int_type(cast(Any, type(param.type)))
        if type(param) is TyperArgument:
            param.__class__ = _Argument
            param.metavar = param.metavar or (param.name or "").upper()
        if getattr(param, "help", None):
            param.help = _unwrap(param.help)
    for sub in getattr(command, "commands", {}).values():
        _polish(sub)


class _Errors:
    """A project error anywhere below becomes one stderr line and exit code 1; a usage error
    (unknown option, bad value, missing argument) one line and exit code 2. Every command's help
    is unwrapped and its arguments named in capitals (:func:`_polish`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _polish(self)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)  # type: ignore[misc]
        except NomicCardsError as exc:
            typer.echo(f"error: {escape_lines(str(exc))}", err=True)
            raise typer.Exit(1) from None
        except Exception as exc:
            if not _database_error(exc):
                raise
            typer.echo(f"error: database error: {_first_line(exc)}", err=True)
            raise typer.Exit(1) from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        extra["windows_expand_args"] = windows_expand_args
        if not standalone_mode:
            return super().main(  # type: ignore[misc]
                args, prog_name, complete_var, False, **extra)
        try:
            rv = super().main(  # type: ignore[misc]
                args, prog_name, complete_var, False, **extra)
        except _USAGE_ERROR as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # the help is printed already
                sys.exit(2)
            where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
            message = _one_line(exc.format_message()).replace("Value error, ", "")
            typer.echo(f"usage error: {message}{where}", err=True)
            sys.exit(2)
        except _CLICK_EXCEPTION as exc:
            typer.echo(f"error: {_one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        except NomicCardsError as exc:  # raised outside a command (e.g. while parsing options)
            typer.echo(f"error: {escape_lines(str(exc))}", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


class _Group(_Errors, TyperGroup):
    """The root group (see :class:`_Errors`), with each installed card game's own commands
    under its name, loaded when asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        built_in = super().list_commands(ctx)
        return [*built_in, *sorted(set(_game_commands()) - set(built_in))]

    def get_command(self, ctx: Any, name: str) -> Any:
        found = super().get_command(ctx, name)
        if found is None and name in _game_commands():
            found = _game_command(name)
        return found


def _game_commands() -> dict[str, str]:
    """Each installed card game that declares commands: its name -> ``module:attribute``."""
    from nomic_cards.cardgames import engine

    try:
        games = engine.games()
    except NomicCardsError:  # a broken game does not stop the command line
        return {}
    return {name: g.commands for name, g in games.items() if g.commands}


def _game_command(name: str) -> Any:
    import importlib

    module, _, attr = _game_commands()[name].partition(":")
    command = typer.main.get_group(getattr(importlib.import_module(module), attr))
    command.name = name
    _polish(command)
    return command


class _Command(_Errors, TyperCommand):
    """A command standing alone, as ``nomic-dealer`` (see :class:`_Errors`)."""


app = typer.Typer(
    cls=_Group,
    name="nomic-cards",
    help="Run the Spoon Nomic Cards rules: the Dealer, the Deck, hands and an auditable ledger.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    db: str = typer.Option(
        None,
        "--db",
        envvar="NOMIC_CARDS_DB",
        help=f"Database URL or SQLite file path (default: {DEFAULT_DATABASE_FILE} in the "
             "working directory).",
    ),
    at: str = typer.Option(None, "--at", metavar="TIME", envvar="NOMIC_CARDS_AT",
                           help=AT_HELP + " Applies to every command."),
) -> None:
    """Run the Spoon Nomic Cards rules: the Dealer, the Deck, hands and an auditable ledger."""
    ctx.obj = CliOptions(db, at)


app.command("init")(_game.init)
app.add_typer(_game.player_app, name="player")
app.add_typer(_game.dealer_app, name="dealer")
app.add_typer(_game.pack_app, name="pack")
app.add_typer(_rules.app, name="rules")
app.add_typer(_rules.game_app, name="game")
app.command("deal")(_play.deal)
app.command("transfer")(_play.transfer)
app.command("hand")(_play.hand)
app.command("deck")(_play.deck)
app.command("log")(_play.log)
app.add_typer(_notices.app, name="notices")
app.add_typer(_time.clock_app, name="clock")
app.add_typer(_time.vote_app, name="vote")
app.command("tick")(_time.tick)
app.command("report")(_time.report)
app.add_typer(_cron.cron_app, name="cron")
app.add_typer(_audit.dice_app, name="dice")
app.add_typer(_audit.ledger_app, name="ledger")
app.add_typer(_poker.app, name="poker")
app.add_typer(_games.points_app, name="points")
app.command("act")(_act.act)
app.command("actions")(_act.list_actions)
app.add_typer(_deals.app, name="deals")
app.add_typer(_randomizer.app, name="randomizer")
app.add_typer(_bridge.app, name="bridge")
app.add_typer(_server.token_app, name="token")
app.command("serve")(_server.serve)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=argv)


def dealer_main(argv: list[str] | None = None) -> None:
    """The ``nomic-dealer`` command (``bridge run`` under its own name) when the launcher's
    fast path leaves it to Typer: help, usage errors."""
    dealer = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    dealer.command(cls=_Command)(_bridge.run_cmd)
    dealer(args=argv, prog_name="nomic-dealer")
