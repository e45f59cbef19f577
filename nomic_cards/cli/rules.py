"""Commands for the rules in force: show them, their history, and record what the nomic
decided (a rule enacted, amended or repealed by a proposal)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from nomic_cards.cli.common import JSON_OPTION, act_at, at_option, echo, emit_json, read, write

if TYPE_CHECKING:
    from nomic_cards.core.services.rules import RuleChangeView

app = typer.Typer(help="The rules in force (the Cards proposal's and the calendar's): show "
                       "them, and record their changes.", no_args_is_help=True)

RULE_HELP = "The rule: its number (9) or its short name (cards-for-votes)."
SET_HELP = "KEY=VALUE: a parameter of the rule (repeatable), e.g. --set cards=2."
PROPOSAL_HELP = "The proposal (or other instrument) that made the change, e.g. 'Proposal 412'."


def _params(params: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def _change_line(c: RuleChangeView) -> str:
    name = f"{c.number} {c.rule}" if c.number else c.rule
    effect = f"; from nweek {c.from_nweek}" if c.from_nweek is not None and c.from_nweek > 1 \
        else ""
    params = "" if c.action == "repealed" else f": {_params(dict(c.params))}"
    return (f"[event {c.event}] {c.at} rule {name} {c.action} by {c.proposal!r} "
            f"(version {c.version}){params}{effect}")


@app.command("show")
def show(
    ctx: typer.Context,
    at: str = typer.Option(None, "--at", metavar="TIME",
                           help="The rules as they stood at TIME (ISO; default now)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Each rule, its number and name, whether it is in force, its parameters, and the change
    that last touched it. Needs no secret: the rules are public."""
    from nomic_cards.core.services.rules import rules_show

    views = read(ctx, rules_show, at=at)
    if as_json:
        emit_json([{"rule": v.rule, "number": v.number, "title": v.title,
                    "in_force": v.in_force, "version": v.version, "params": v.params,
                    "changed_by": v.changed_by, "since": v.since, "event": v.event,
                    **({"from_nweek": v.from_nweek} if v.from_nweek is not None else {})}
                   for v in views])
        return
    for v in views:
        name = f"{v.number:>2} {v.rule}" if v.number else f"   {v.rule}"
        state = "in force" if v.in_force else "REPEALED"
        params = f"  {_params(dict(v.params))}" if v.params else ""
        effect = f" (from nweek {v.from_nweek})" if v.from_nweek is not None \
            and v.from_nweek > 1 else ""
        echo(f"{name:<20} {state:<8} v{v.version}{params}{effect}")
        echo(f"{'':<20} since {v.since}, {v.changed_by!r} [event {v.event}]")


@app.command("history")
def history(
    ctx: typer.Context,
    rule: str = typer.Argument(None, help="Only this rule (number or name)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Every change to the rules, oldest first, with the proposal that made it (the rules the
    game was created with are listed as enacted by init)."""
    from nomic_cards.core.services.rules import rules_history

    changes = read(ctx, rules_history, rule)
    if as_json:
        emit_json(changes)
        return
    for c in changes:
        echo(_change_line(c))


def _print(change: RuleChangeView, as_json: bool) -> None:
    emit_json(change) if as_json else echo(_change_line(change))


@app.command("amend")
def amend(
    ctx: typer.Context,
    rule: str = typer.Argument(..., help=RULE_HELP),
    sets: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help=SET_HELP),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    version: int = typer.Option(None, "--version", min=1, max=1000,
                                help="The version of the rule's code now in force."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal amended a rule in force. It takes effect at once, except a new
    nweek length (nweeks days=N), which starts at the next nweek boundary."""
    from nomic_cards.core.services.rules import amend_rule

    act_at(ctx, at)
    _print(write(ctx, amend_rule, rule, sets, proposal=proposal, version=version),
           as_json)


@app.command("repeal")
def repeal(
    ctx: typer.Context,
    rule: str = typer.Argument(..., help=RULE_HELP),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal repealed a rule (8 report or 9 cards-for-votes): from then on the
    game does without it."""
    from nomic_cards.core.services.rules import repeal_rule

    act_at(ctx, at)
    _print(write(ctx, repeal_rule, rule, proposal=proposal), as_json)


@app.command("enact")
def enact(
    ctx: typer.Context,
    rule: str = typer.Argument(..., help=RULE_HELP),
    sets: list[str] = typer.Option([], "--set", metavar="KEY=VALUE", help=SET_HELP),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    version: int = typer.Option(None, "--version", min=1, max=1000,
                                help="The version of the rule's code (default: the version "
                                     "last in force, else 1)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal enacted a repealed rule again; parameters not set take their
    defaults."""
    from nomic_cards.core.services.rules import enact_rule

    act_at(ctx, at)
    _print(write(ctx, enact_rule, rule, sets, proposal=proposal, version=version),
           as_json)


# --- card games (Rule 399) -----------------------------------------------------------------

game_app = typer.Typer(help="Card games as rules (Rule 399): bind packs to a card game whose "
                            "rules are a registered module.", no_args_is_help=True)

GAME_HELP = "The card game's name (an installed game: `nomic-cards actions` lists its actions)."
PACKS_HELP = "The packs whose cards are the game's cards: names or numbers, comma-separated."


@game_app.command("enact")
def game_enact(
    ctx: typer.Context,
    name: str = typer.Argument(..., help=GAME_HELP),
    packs: str = typer.Option(..., "--packs", metavar="P,Q", help=PACKS_HELP),
    sets: list[str] = typer.Option([], "--set", metavar="KEY=VALUE",
                                   help="A parameter of the game (repeatable)."),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal enacted a card game binding packs to it; parameters not set take
    the game's defaults. A pack belongs to at most one game."""
    from nomic_cards.core.services.rules import game_enact

    act_at(ctx, at)
    _print(write(ctx, game_enact, name, packs, sets, proposal=proposal), as_json)


@game_app.command("amend")
def game_amend(
    ctx: typer.Context,
    name: str = typer.Argument(..., help=GAME_HELP),
    packs: str = typer.Option(None, "--packs", metavar="P,Q",
                              help="The game's packs from now on. " + PACKS_HELP),
    sets: list[str] = typer.Option([], "--set", metavar="KEY=VALUE",
                                   help="A parameter of the game (repeatable)."),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    version: int = typer.Option(None, "--version", min=1, max=1000,
                                help="The version of the game's rules now in force."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal amended a card game in force: its packs, parameters and/or the
    version of its rules."""
    from nomic_cards.core.services.rules import game_amend

    act_at(ctx, at)
    _print(write(ctx, game_amend, name, sets, packs=packs, proposal=proposal,
                 version=version), as_json)


@game_app.command("repeal")
def game_repeal(
    ctx: typer.Context,
    name: str = typer.Argument(..., help=GAME_HELP),
    proposal: str = typer.Option(..., "--proposal", metavar="TEXT", help=PROPOSAL_HELP),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record that a proposal repealed a card game: its packs belong to no game again."""
    from nomic_cards.core.services.rules import game_repeal

    act_at(ctx, at)
    _print(write(ctx, game_repeal, name, proposal=proposal), as_json)


@game_app.command("list")
def game_list(ctx: typer.Context, as_json: bool = JSON_OPTION) -> None:
    """The card games in force, the packs bound to each, and their parameters."""
    from nomic_cards.core.services.rules import game_list

    games = read(ctx, game_list)
    if as_json:
        emit_json(games)
        return
    if not games:
        echo("no card game is in force")
    for g in games:
        packs = ", ".join(f"{n} {name}" for n, name in zip(g.packs, g.pack_names, strict=True))
        echo(f"{g.game}: packs {packs}; since {g.since}, {g.changed_by!r} [event {g.event}]")
        echo(f"  {_params(dict(g.params))}")
