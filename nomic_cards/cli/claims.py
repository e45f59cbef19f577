"""``nomic-cards claim``: claims of error against a posted Dealer's Report (rule 8's
``doubt_days`` on): a player doubts it, the Dealer denies the claim or revises the report,
the doubter withdraws it; ``tick`` records each report ratified once it has stood undoubted."""

from __future__ import annotations

import typer

from nomic_cards.cli.common import (
    DB_INT_MAX,
    JSON_OPTION,
    act_at,
    at_option,
    echo,
    emit_json,
    read,
    write,
)

claim_app = typer.Typer(help="Claims of error against a posted Dealer's Report: doubt, deny, "
                             "revise, withdraw, list.", no_args_is_help=True)


def _said(view: object, as_json: bool, line: str) -> None:
    if as_json:
        emit_json(view)
        return
    echo(line)


@claim_app.command("doubt")
def doubt(
    ctx: typer.Context,
    nweek: int = typer.Argument(..., min=1, max=DB_INT_MAX, help="The report's nweek."),
    player: str = typer.Option(..., "--player", help="Who doubts it."),
    claim: str = typer.Option(..., "--claim", help="What is wrong in it."),
    source: str = typer.Option("", "--source", metavar="REF",
                               help="Where the player said so (a message)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record a player's claim of error against the Dealer's Report for NWEEK, posted to the
    list and not yet ratified."""
    from nomic_cards.core.services.claims import doubt_report

    act_at(ctx, at)
    v = write(ctx, doubt_report, player, nweek, claim=claim, source=source)
    _said(v, as_json, f"[event {v.event}] {v.player} doubted the Dealer's Report for nweek "
                      f"{v.nweek}: {v.text}")


@claim_app.command("deny")
def deny(
    ctx: typer.Context,
    doubt: int = typer.Argument(..., min=1, max=DB_INT_MAX, help="The claim's event."),
    reason: str = typer.Option(..., "--reason", help="Why the report stands."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """The Dealer denies claim of error DOUBT: the report stands, undoubted from now."""
    from nomic_cards.core.services.claims import deny_claim

    act_at(ctx, at)
    v = write(ctx, deny_claim, doubt, reason=reason)
    _said(v, as_json, f"[event {v.event}] denied {v.player}'s claim of error against the "
                      f"report for nweek {v.nweek}: {v.text}")


@claim_app.command("revise")
def revise(
    ctx: typer.Context,
    doubt: int = typer.Argument(..., min=1, max=DB_INT_MAX, help="The claim's event."),
    correction: str = typer.Option(..., "--correction",
                                   help="What the report should have said."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """The Dealer grants claim of error DOUBT and revises the report: it stands as corrected,
    undoubted from now."""
    from nomic_cards.core.services.claims import revise_report

    act_at(ctx, at)
    v = write(ctx, revise_report, doubt, correction=correction)
    _said(v, as_json, f"[event {v.event}] revised the report for nweek {v.nweek} on "
                      f"{v.player}'s claim: {v.text}")


@claim_app.command("withdraw")
def withdraw(
    ctx: typer.Context,
    doubt: int = typer.Argument(..., min=1, max=DB_INT_MAX, help="The claim's event."),
    player: str = typer.Option(..., "--player", help="The doubter."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """The doubter withdraws eir claim of error DOUBT."""
    from nomic_cards.core.services.claims import withdraw_claim

    act_at(ctx, at)
    v = write(ctx, withdraw_claim, doubt, player)
    _said(v, as_json, f"[event {v.event}] {v.player} withdrew eir claim of error against the "
                      f"report for nweek {v.nweek}")


@claim_app.command("list")
def list_claims(ctx: typer.Context, as_json: bool = JSON_OPTION) -> None:
    """Each posted report not yet ratified: its open claims of error, or when it is
    ratified."""
    from nomic_cards.core.services.claims import claims_list

    rows = read(ctx, claims_list)
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        if r.doubts:
            echo(f"nweek {r.nweek}: doubted by " + ", ".join(f"{p} (event {s})"
                                                            for s, p in r.doubts))
        else:
            echo(f"nweek {r.nweek}: undoubted, ratified at {r.ratified_at}")
    if not rows:
        echo("No posted report waits to be ratified.")
