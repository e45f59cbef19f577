"""``nomic-cards points``: an account per Player and the Bank, kept in the ledger."""

from __future__ import annotations

import typer

from nomic_cards.cli.common import JSON_OPTION, act_at, at_option, echo, emit_json, read, write
from nomic_cards.errors import InputError

points_app = typer.Typer(help="Points: an account per Player and the Bank, kept in the ledger.",
                         no_args_is_help=True)


@points_app.command("grant")
def grant(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="Whose account."),
    points: str = typer.Argument(..., help="Points from the Bank (negative: back to it)."),
    rule: str = typer.Option(..., "--rule", help="The rule under which the Points move."),
    note: str = typer.Option("", "--note", help="What the Scorekeeper reported."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record Points the nomic's Scorekeeper reported (the source of truth for Points)."""
    from nomic_cards.core.services.points import grant_points
    from nomic_cards.inputs import ascii_int

    n = ascii_int(points.strip(), "POINTS", signed=True)
    if n is None:
        raise InputError(f"POINTS must be a whole number, not {points!r}")
    act_at(ctx, at)
    m = write(ctx, grant_points, player, n, rule=rule, note=note)
    if as_json:
        emit_json(m)
        return
    echo(f"[event {m.event}] {m.points} Point(s): {m.source} -> {m.target} under {m.rule!r}")


@points_app.command("show")
def show(ctx: typer.Context, as_json: bool = JSON_OPTION) -> None:
    """Every Player's balance, and the Bank's (minus what it has paid out)."""
    from nomic_cards.core.services.points import balances

    rows = read(ctx, balances)
    if as_json:
        emit_json([{"player": b.player, "points": b.points} for b in rows])
        return
    for b in rows:
        echo(f"  {b.player:<20} {b.points:>8}")


@points_app.command("history")
def history(
    ctx: typer.Context,
    player: str = typer.Option(None, "--player", help="Only this player's movements."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Every movement of Points, with the rule it cites."""
    from nomic_cards.core.services.points import point_movements

    rows = read(ctx, point_movements, player=player)
    if as_json:
        emit_json(rows)
        return
    for m in rows:
        note = f" ({m.note})" if m.note else ""
        echo(f"#{m.event:<5} {m.at[:19]}  {m.points:>5} {m.source} -> {m.target} under "
             f"{m.rule!r}{note}")
    if not rows:
        echo("No movements of Points.")


@points_app.command("export")
def export(
    ctx: typer.Context,
    since: str = typer.Option(..., "--since", help="ISO date or time: movements from then."),
) -> None:
    """CSV of the movements since a date, for the Scorekeeper."""
    from nomic_cards.core.services.points import points_csv

    typer.echo(read(ctx, points_csv, since), nl=False)
