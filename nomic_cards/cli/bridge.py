"""`nomic-cards bridge`: run dealer scripts (and, beside them, dealer.dpp shapes).

Thin adapter over :mod:`nomic_cards.bridge` (imported inside each command so that
``nomic-cards --help`` stays fast). ``bridge run`` mirrors Debian dealer's flags: ``-p``,
``-g``, ``-s``, ``-0``/``-2``/``-3``, ``-v``, ``-q``, ``-m``. A script error is one line
naming the line and column and what was expected; a runtime error (division by zero) names
the expression and its line. Each command lives in its own function.
"""

from __future__ import annotations

import json

import typer

from nomic_cards.cli._common import BridgeFormat, run_language
from nomic_cards.errors import InputError

app = typer.Typer(
    help="Bridge deals: run dealer scripts; dealer.dpp shape specs.",
    no_args_is_help=True,
)

_STACK_HELP = ("Deal the seat with the rarest one-seat constraint (shape, lengths, points) "
               "straight from the hands that meet it, uniformly; the deals produced have the "
               "same distribution, far fewer are generated.")
_EXACT_HELP = "Also print the exact keep rate (when computable) beside the sampled one."


@app.command("run")
def run_cmd(
    script: str = typer.Argument(..., help="A dealer script file ('-' reads standard input)."),
    produce: int = typer.Option(None, "-p", "--produce", min=0,
                                help="Deals to produce (overrides the script's 'produce')."),
    generate: int = typer.Option(None, "-g", "--generate", min=0,
                                 help="Deals to generate at most (overrides 'generate')."),
    seed: int = typer.Option(None, "-s", "--seed", min=0, max=2**64 - 1,
                             help="Seed; without it a fresh one is drawn and reported."),
    jobs: int = typer.Option(1, "-j", "--jobs", min=1, max=64,
                             help="Worker processes (results do not depend on it)."),
    fmt: BridgeFormat = typer.Option("text", "--format", "-f",
                            help="text (the script's actions), pbn, lin or json."),
    dealer_compatible: bool = typer.Option(
        False, "--dealer-compatible",
        help="Deal exactly as Debian dealer does for the same seed (glibc random)."),
    swap2: bool = typer.Option(False, "-2", help="With --dealer-compatible: 2-way swapping."),
    swap3: bool = typer.Option(False, "-3", help="With --dealer-compatible: 3-way swapping."),
    no_swap: bool = typer.Option(False, "-0", help="No swapping (the default)."),
    toggle_verbose: bool = typer.Option(False, "-v", help="Toggle the closing statistics."),
    strict: bool = typer.Option(False, "--strict",
                                help="Refuse what dealer (and the online site's) refuses."),
    meter: bool | None = typer.Option(None, "-m/-M", "--progress/--no-progress",
                               help="Progress bar on stderr (default: on when stderr is a "
                                    "terminal; never otherwise)."),
    dd: bool = typer.Option(False, "--dd",
                            help="Add double-dummy tricks and par to pbn/json output "
                                 "(needs nomic-cards[dd])."),
    stack: bool = typer.Option(False, "--stack", help=_STACK_HELP),
    exact_rate: bool = typer.Option(False, "--exact", help=_EXACT_HELP),
) -> None:
    """Run a dealer script: deal, keep the deals its condition accepts, do its actions."""
    from nomic_cards.bridge.command import RunArgs, UsageProblem, run_command

    try:
        run_command(RunArgs(
            script, produce=produce, generate=generate, seed=seed, jobs=jobs, fmt=fmt,
            dealer_compatible=dealer_compatible, swap2=swap2, swap3=swap3, no_swap=no_swap,
            toggle_verbose=toggle_verbose, strict=strict, meter=meter, dd=dd, stack=stack,
            exact_rate=exact_rate))
    except UsageProblem as problem:
        raise typer.BadParameter(problem.message, param_hint=problem.hint) from None


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

    from nomic_cards.bridge.shapes import SEATS, format_dealer, parse_shape
    from nomic_cards.cli._common import echo

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
    from nomic_cards.bridge.command import UsageProblem, prob_command

    try:
        prob_command(expr, script, as_json=as_json)
    except UsageProblem as problem:
        raise typer.BadParameter(problem.message, param_hint=problem.hint) from None
