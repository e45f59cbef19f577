"""What the command line's modules share, and a card game's commands may use too: the global
options, the transaction a command opens (:func:`write`, :func:`read`, :func:`run_job`), the
options every command spells alike (``--json``, ``--at``) and output (:func:`echo`,
:func:`emit_json`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypeVar

import typer

from nomic_cards.errors import with_input_context
from nomic_cards.inputs import escape_lines
from nomic_cards.plain import plain

if TYPE_CHECKING:
    from nomic_cards.core.nomic import Nomic, Reads, Tx
    from nomic_cards.core.services.time import NweekStart
    from nomic_cards.core.settings import GameSettings

#: The fixed sets of values of options (a bad value is a usage error listing these). Kept equal
#: to the values the core and the libraries accept by tests/test_cli_choices.py.
DiceSource = Literal["committed", "manual", "system"]
ReportFormat = Literal["text", "markdown", "json"]
PokerGame = Literal["high", "a5", "27", "low8"]
ShowdownGame = Literal["high", "a5", "27", "hilo8"]

#: The largest number a database column holds (event numbers, nweeks, periods, counts).
DB_INT_MAX = 2**63 - 1

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class CliOptions:
    """The root options of one invocation, kept in the Click context (``ctx.obj``)."""

    db: str | None = None
    #: ``--at``: the time the command acts at (None: now)
    at: str | None = None
    #: ``--allow-future``: writes may be dated after now (a rehearsal on a scratch database)
    allow_future: bool = False


def cli_options(ctx: typer.Context) -> CliOptions:
    """The root options of the command being run."""
    found = ctx.find_object(CliOptions)
    return found if found is not None else CliOptions()


AT_HELP = ("Act as if the time were TIME (ISO 8601; UTC when no zone is given): for "
           "rehearsing a schedule. The ledger refuses a TIME before its last event.")


def at_option() -> Any:
    """The ``--at TIME`` option of a command that records or reads by the current time."""
    return typer.Option(None, "--at", metavar="TIME", help=AT_HELP)


def act_at(ctx: typer.Context, at: str | None) -> None:
    """A command's own ``--at`` (it overrides the one given before the command)."""
    if at is not None:
        ctx.obj = dataclasses.replace(cli_options(ctx), at=at)


@contextmanager
def open_nomic(ctx: typer.Context, *, create: bool = False,
               settings: GameSettings | None = None) -> Iterator[Nomic]:
    """The invocation's :class:`~nomic_cards.core.nomic.Nomic` (``--db``, and ``--at`` for its
    clock), closed afterwards."""
    from nomic_cards.core.clock import FixedClock
    from nomic_cards.core.nomic import Nomic
    from nomic_cards.core.services.common import parse_when

    opts = cli_options(ctx)
    clock = FixedClock(parse_when(opts.at, "--at time")) if opts.at is not None else None
    with Nomic(opts.db, create=create, settings=settings, clock=clock,
               allow_future=opts.allow_future) as nomic:
        yield nomic


def say_caught_up(caught_up: list[NweekStart]) -> None:
    """Tell the officer of the boundary work a command did first."""
    for started in caught_up:
        lines = nweek_lines(started)
        echo(f"note: first did the work due at {lines[0]}", err=True)
        for line in lines[1:]:
            echo(f"note: {line.strip()}", err=True)


def nweek_lines(n: NweekStart) -> list[str]:
    """What starting an nweek did, for the officer (``tick``, and the notes of a command that
    did it first)."""
    lines = [f"nweek {n.nweek} started [event {n.event}]: dice period {n.period} "
             f"(commitment {n.commitment[:16]}...)"]
    if n.report_published:
        lines.append(f"  published the Dealer's Report for nweek {n.nweek - 1} "
                     f"[event {n.report_published}]")
    lines.append(f"  Cards for Votes: {len(n.dealt)} dealt"
                 + (f"; not dealt: {', '.join(x.player for x in n.not_dealt)}"
                    if n.not_dealt else "")
                 + (f"; owed from earlier nweeks: "
                    f"{', '.join(f'{p.player} {p.cards} (nweek {p.nweek})' for p in n.paid)}"
                    if n.paid else ""))
    return lines


def write(ctx: typer.Context, use_case: Callable[Concatenate[Tx, P], T], *args: P.args,
          **kwargs: P.kwargs) -> T:
    """Run a use case that records something in the command's one writing transaction
    (``write(ctx, deal, "Ienne")``), committed when it returns."""
    with open_nomic(ctx) as nomic:
        with nomic.write() as tx:
            result = use_case(tx, *args, **kwargs)
        say_caught_up(tx.caught_up)
        return result


def read(ctx: typer.Context, use_case: Callable[Concatenate[Reads, P], T], *args: P.args,
         **kwargs: P.kwargs) -> T:
    """Run a use case that only reads, on one snapshot (``read(ctx, hand, "Ienne")``)."""
    with open_nomic(ctx) as nomic, nomic.read() as r:
        return use_case(r, *args, **kwargs)


def run_job(ctx: typer.Context, job: Callable[Concatenate[Nomic, P], T], *args: P.args,
            **kwargs: P.kwargs) -> T:
    """Run a job that opens its own transactions (mailing notices: it waits on a mail
    server between them)."""
    with open_nomic(ctx) as nomic:
        return job(nomic, *args, **kwargs)


JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of text.")


class Tls(StrEnum):
    """``--tls``: as nomic_cards.core.mail.TLS_MODES (not imported here: ssl is slow to load)."""

    none = "none"
    starttls = "starttls"
    ssl = "ssl"


TLS_OPTION = typer.Option(Tls.none, "--tls",
                          help="none: plain SMTP; starttls: upgrade the connection (usually "
                               "port 587); ssl: TLS from the start (usually 465).")
CA_FILE_OPTION = typer.Option(None, "--ca-file", metavar="PATH",
                              help="PEM file of the CA that signed the SMTP server's "
                                   "certificate (default: the system's CAs).")


def emit_json(data: Any) -> None:
    """Print ``data`` (dataclasses included) as indented JSON on stdout."""
    typer.echo(json.dumps(plain(data), indent=2, default=str, ensure_ascii=False))


def echo(text: str = "", *, err: bool = False) -> None:
    """Print ``text``, any control character in it escaped but its line breaks (text stored
    before such characters were refused must not drive the terminal)."""
    typer.echo(escape_lines(text), err=err)


def run_language(fn: Callable[[], T], *, max_context: int = 100) -> T:
    """Call ``fn``; a language error from a short one-line input is re-raised with the input and a
    caret under the error on the lines after its one-line message."""
    return with_input_context(fn, max_context=max_context)
