"""The ``nomic-cards`` command line (the only package that imports Typer).

Commands are thin adapters over :mod:`nomic_cards.core.services` and the libraries: they parse
input, call one use case, print the result (text or ``--json``) and map errors to exit codes —
1 for a :class:`~nomic_cards.errors.NomicCardsError` (one line on stderr, never a traceback), 2
for usage errors. Heavy imports (SQLAlchemy, numpy, lark) happen inside the commands.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any, cast

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from nomic_cards.cli.common import AT_HELP, CliOptions
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
    length; unwrapped, each paragraph is wrapped at the terminal's width wherever it is shown
    (a group's list of its commands too), never where a source line ended. Paragraphs (blank
    lines) and Click's ``\\b`` blocks stay as written."""
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
    digits only. Its help is Click's plain text (Typer's rich help costs every ``--help`` a
    tenth of a second of imports), a group listing each command with its help's whole first
    paragraph, as the rich help did (Click's own cuts it to one shortened sentence)."""
    command.rich_markup_mode = None
    if command.help:
        command.help = _unwrap(command.help)
        if not command.short_help:
            command.short_help = command.help.split("\n\n")[0]
    for param in command.params:
        if any(c.__name__ == "IntParamType" for c in type(param.type).__mro__):
            param.type.__class__ = _ascii_int_type(cast(Any, type(param.type)))
        if type(param) is TyperArgument:
            param.__class__ = _Argument
            param.metavar = param.metavar or (param.name or "").upper()
        if getattr(param, "help", None):
            param.help = _unwrap(param.help)
    # the root group's commands are polished as each is loaded (see _load)
    loaded = getattr(command, "_loaded", None)
    for sub in (loaded if loaded is not None else getattr(command, "commands", {})).values():
        if sub is not None:
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
        # help is wrapped at the terminal's width (COLUMNS, else the terminal's), as Click
        # does up to 80 columns, and wider on a wider terminal
        extra.setdefault("terminal_width", max(shutil.get_terminal_size().columns - 2, 50))
        if not standalone_mode:
            return super().main(  # type: ignore[misc]
                args, prog_name, complete_var, False, **extra)
        try:
            rv = super().main(  # type: ignore[misc]
                args, prog_name, complete_var, False, **extra)
        except _USAGE_ERROR as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # the message is the help
                typer.echo(exc.format_message())
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
    """The root group (see :class:`_Errors`): its commands (:data:`COMMANDS`) and each
    installed card game's own under its name, each loaded when first asked for.

    The help lists each command as declared, unbuilt (:func:`_listed`), and a card game by
    the name of its entry point alone: a command is built, and a game imported, only when it
    is invoked (:meth:`resolve_command`), or all are asked for (:attr:`commands`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: dict[str, Any] = {}
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, Any]:  # every command, each game's loaded: for the tests
        found = {}
        for name in self._names():
            try:
                command = self._command(name)
            except NomicCardsError:  # a broken card game does not hide the rest
                continue
            if command is not None:
                found[name] = command
        return found

    @commands.setter
    def commands(self, value: dict[str, Any]) -> None:
        self._loaded.update(value)

    def _names(self) -> list[str]:
        return [*COMMANDS, *sorted(set(_games()) - set(COMMANDS))]

    def list_commands(self, ctx: Any) -> list[str]:
        return self._names()

    def get_command(self, ctx: Any, name: str) -> Any:  # as listed (invoked: resolve_command)
        if name in COMMANDS or name in _games():
            return self._loaded.get(name) or _listed(name)
        return None

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if name is not None:
            command = self._command(name)
            if command is None:
                ctx.fail(f"card game {name} declares no commands")
        return name, command, rest

    def _command(self, name: str) -> Any:
        """The command ``name``, loaded (None: a card game that declares no commands; a
        broken one raises its error)."""
        if name not in self._loaded:
            self._loaded[name] = _load(name)
        return self._loaded[name]


def _load(name: str) -> Any:
    """The command ``name``: one of :data:`COMMANDS`, or an installed card game's group (None:
    the game declares none)."""
    import importlib

    if name in COMMANDS:
        module, attr, group = COMMANDS[name]
        target = getattr(importlib.import_module(f"nomic_cards.cli.{module}"), attr)
    else:
        from nomic_cards.core import engine

        game = engine.game(name)
        if game is None or not game.commands:
            return None
        module, _, attr = game.commands.partition(":")
        target, group = getattr(importlib.import_module(module), attr), True
    command: Any
    if group:
        command = typer.main.get_group(target)
    else:
        single = typer.Typer()
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    _polish(command)
    return command


def _games() -> list[str]:
    """The installed card games' names (from their entry points: no game is imported)."""
    from nomic_cards.core import installed

    return installed.known()


def _listed(name: str) -> Any:
    """Command ``name`` as the root's help lists it, without building it (Typer reads every
    parameter of every command below to build one): its name and its help, as Typer takes it
    from the declaration; a card game's, a line of its own (the game is not imported)."""
    import importlib
    import inspect

    from typer.models import TyperInfo

    if name not in COMMANDS:
        line = f"The card game {name}'s own commands, if it declares any."
        return TyperGroup(name=name, help=line, short_help=line)
    listed: Any
    module, attr, group = COMMANDS[name]
    target = getattr(importlib.import_module(f"nomic_cards.cli.{module}"), attr)
    if group:
        info = typer.main.solve_typer_info_defaults(TyperInfo(target))
        listed = TyperGroup(name=name, help=info.help, short_help=info.short_help,
                            hidden=info.hidden, deprecated=info.deprecated)
    else:
        listed = TyperCommand(name=name, help=inspect.getdoc(target))
    _polish(listed)
    return listed


class _Command(_Errors, TyperCommand):
    """A command standing alone, as ``nomic-dealer`` (see :class:`_Errors`)."""


app = typer.Typer(
    cls=_Group,
    name="nomic-cards",
    help="Run the Spoon Nomic Cards rules: the Dealer, the Deck, hands and an auditable ledger.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
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
    allow_future: bool = typer.Option(False, "--allow-future",
                                      envvar="NOMIC_CARDS_ALLOW_FUTURE",
                                      help="Let --at be after now: for a rehearsal on a "
                                           "scratch database (a live game would refuse every "
                                           "write until that time)."),
) -> None:
    """Run the Spoon Nomic Cards rules: the Dealer, the Deck, hands and an auditable ledger."""
    ctx.obj = CliOptions(db, at, allow_future)


#: every command, loaded when first asked for (a command imports only the module it runs):
#: name -> (module of nomic_cards.cli, attribute, whether it is a group of commands)
COMMANDS: Mapping[str, tuple[str, str, bool]] = MappingProxyType({
    "init": ("game", "init", False),
    "player": ("game", "player_app", True),
    "dealer": ("game", "dealer_app", True),
    "pack": ("game", "pack_app", True),
    "rules": ("rules", "app", True),
    "game": ("rules", "game_app", True),
    "deal": ("play", "deal", False),
    "transfer": ("play", "transfer", False),
    "hand": ("play", "hand", False),
    "deck": ("play", "deck", False),
    "log": ("play", "log", False),
    "notices": ("notices", "app", True),
    "mail": ("mail", "mail_app", True),
    "clock": ("time", "clock_app", True),
    "vote": ("time", "vote_app", True),
    "decision": ("decisions", "decision_app", True),
    "strength": ("decisions", "strength_app", True),
    "tick": ("time", "tick", False),
    "report": ("time", "report", False),
    "claim": ("claims", "claim_app", True),
    "cron": ("cron", "cron_app", True),
    "dice": ("audit", "dice_app", True),
    "ledger": ("audit", "ledger_app", True),
    "poker": ("poker", "app", True),
    "points": ("points", "points_app", True),
    "act": ("act", "act", False),
    "actions": ("act", "list_actions", False),
    "deals": ("deals", "app", True),
    "randomizer": ("randomizer", "app", True),
    "bridge": ("bridge", "app", True),
    "token": ("server", "token_app", True),
    "serve": ("server", "serve", False),
})


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    app(args=argv)


def dealer_main(argv: list[str] | None = None) -> None:
    """The ``nomic-dealer`` command (``bridge run`` under its own name) when the launcher's
    fast path leaves it to Typer: help, usage errors."""
    from nomic_cards.cli import bridge as _bridge

    dealer = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                         rich_markup_mode=None)
    dealer.command(cls=_Command)(_bridge.run_cmd)
    dealer(args=argv, prog_name="nomic-dealer")
