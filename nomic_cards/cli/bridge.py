"""`nomic-cards bridge`: run dealer scripts (and, beside them, dealer.dpp shapes).

Thin adapter over :mod:`nomic_cards.bridge` (imported inside each command so that
``nomic-cards --help`` stays fast). ``bridge run`` mirrors Debian dealer's flags: ``-p``,
``-g``, ``-s``, ``-0``/``-2``/``-3``, ``-v``, ``-m``; its parameters are built from the one
declaration of its options (:class:`nomic_cards.bridge.run.command.RunArgs`), as the launcher's
fast parser is (``nomic-dealer`` is the same command, :func:`nomic_cards.cli.dealer_main`).
A script error is one line
naming the line and column and what was expected; a runtime error (division by zero) names
the expression and its line. Each command lives in its own function.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Literal

import typer

from nomic_cards.cli.common import run_language
from nomic_cards.errors import InputError

app = typer.Typer(
    help="Bridge deals: run dealer scripts; dealer.dpp shape specs.",
    no_args_is_help=True,
)


def _run_parameters() -> list[inspect.Parameter]:
    """``bridge run``'s parameters, built from the one declaration of its options
    (:class:`nomic_cards.bridge.run.command.RunArgs`)."""
    from nomic_cards.bridge.run.command import run_options

    params = []
    for name, opt, default in run_options():
        info: Any
        annotation: Any
        if opt.kind == "argument":
            info = typer.Argument(..., help=opt.help, show_default=False)
            annotation = str
        elif opt.kind == "int":
            info = typer.Option(default, *opt.names, min=opt.low, max=opt.high, help=opt.help,
                                metavar=opt.metavar)
            annotation = int if default is not None else int | None
        elif opt.kind == "choice":
            info = typer.Option(default, *opt.names, help=opt.help)
            annotation = Literal[opt.choices]
        elif opt.off:
            info = typer.Option(default, *(f"{on}/{off}" for on, off in zip(opt.names, opt.off,
                                                                         strict=True)),
                                help=opt.help, show_default=False)
            annotation = bool | None
        else:
            info = typer.Option(default, *opt.names, help=opt.help, show_default=False)
            annotation = bool
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info,
                                        annotation=annotation))
    return params


def run_cmd(**options: Any) -> None:
    """Run a dealer script: deal, keep the deals its condition accepts, do its actions."""
    from nomic_cards.bridge.run.command import RunArgs, UsageProblem, run_command

    try:
        run_command(RunArgs(**options))
    except UsageProblem as problem:
        raise typer.BadParameter(problem.message, param_hint=problem.hint) from None


_PARAMETERS = _run_parameters()
run_cmd.__signature__ = inspect.Signature(_PARAMETERS)  # type: ignore[attr-defined]
run_cmd.__annotations__ = {p.name: p.annotation for p in _PARAMETERS}
app.command("run")(run_cmd)


# ------------------------------------------------------------------ dealer.dpp shapes, exact


_SHAPE_HELP = ("A dealer.dpp shape spec such as '5+xx5+' or '(4432) + (4333)' (quote it for "
               "the shell), or a whole 'shape{north, SPEC}'.")


@app.command("shape")
def shape_cmd(
    spec: str = typer.Argument(..., help=_SHAPE_HELP),
    as_json: bool = typer.Option(False, "--json",
                                 help="Print the shapes as [spades, hearts, diamonds, clubs]."),
) -> None:
    """Expand a dealer.dpp shape spec: print it as dealer.dpp does, for dealer's shape()."""
    import re

    from nomic_cards.bridge.shapes.spec import SEATS, format_dealer, parse_shape
    from nomic_cards.cli.common import echo

    whole = re.fullmatch(r"\s*shape\s*\{\s*(\w+)\s*,(.*)\}\s*", spec, re.DOTALL)
    seat = None
    if whole:
        seat = whole.group(1).lower()
        if seat not in SEATS:
            raise InputError(f"unknown seat '{whole.group(1)}' in shape{{...}}: expected "
                             "north, east, south or west")
        parsed = run_language(lambda: parse_shape(spec, whole.start(2), whole.end(2)))
    else:
        parsed = run_language(lambda: parse_shape(spec))
    if as_json:
        echo(json.dumps([list(s) for s in sorted(parsed.shapes, reverse=True)]))
    else:
        echo(format_dealer(parsed, seat))


@app.command("prob")
def prob_cmd(
    expr: str = typer.Argument(None, help="A dealer condition, e.g. 'hcp(north) >= 22' "
                                          "(quote it for the shell)."),
    script: str = typer.Option(None, "--script", "-f",
                               help="Take the condition (and point counts) of this script."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Exact probability that a deal satisfies a condition, and deals generated per deal
    produced; for a condition joining hand types with ||, each type's share."""
    from nomic_cards.bridge.run.command import UsageProblem, prob_command

    try:
        prob_command(expr, script, as_json=as_json)
    except UsageProblem as problem:
        raise typer.BadParameter(problem.message, param_hint=problem.hint) from None
