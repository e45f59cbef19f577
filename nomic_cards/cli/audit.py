"""Commands that audit: the dice commitments and checks, and the ledger verification."""

from __future__ import annotations

import dataclasses

import typer

from nomic_cards.cli.common import (
    DB_INT_MAX,
    JSON_OPTION,
    act_at,
    at_option,
    echo,
    emit_json,
    open_nomic,
    read,
    write,
)
from nomic_cards.inputs import read_file

dice_app = typer.Typer(help="Committed-seed dice periods: commitments, reveal, verify.",
                       no_args_is_help=True)
ledger_app = typer.Typer(help="The ledger itself.", no_args_is_help=True)


@dice_app.command("commitment")
def dice_commitment(
    ctx: typer.Context,as_json: bool = JSON_OPTION) -> None:
    """Show every dice period's commitment (and seed, once revealed)."""
    from nomic_cards.core.services.dice import dice_periods

    periods = read(ctx, dice_periods)
    if as_json:
        emit_json(periods)
        return
    for p in periods:
        status = f"revealed seed {p.seed}" if p.revealed else "secret"
        echo(f"period {p.period}: commitment {p.commitment}  ({p.rolls} roll(s); {status})")


@dice_app.command("open")
def dice_open(
    ctx: typer.Context, at: str = at_option(), as_json: bool = JSON_OPTION) -> None:
    """Open a new dice period (a fresh secret seed) and show its commitment."""
    from nomic_cards.core.services.dice import dice_open

    act_at(ctx, at)
    p = write(ctx, dice_open)
    if as_json:
        emit_json(p)
    else:
        echo(f"period {p.period}: commitment {p.commitment}")


@dice_app.command("reveal")
def dice_reveal(
    ctx: typer.Context,
    period: int = typer.Option(None, "--period", min=1, max=DB_INT_MAX,
                               help="Which period (default: the current)."),
    force: bool = typer.Option(False, "--force",
                               help="Reveal even though cards the period's rolls name are "
                                    "still in players' hands (anyone will see where they are)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Reveal a period's secret seed so anyone can check its rolls. The seed shows every card
    dealt from that period and every number rerolled because its card was in a hand: refused
    while any of those cards is still in a player's hand, unless --force."""
    from nomic_cards.core.services.dice import dice_reveal

    act_at(ctx, at)
    info = write(ctx, dice_reveal, period, force=force)
    if info.exposed:
        echo(f"warning: revealed with {info.exposed} of its card(s) still in players' hands: "
             "anyone can now tell where they are", err=True)
    if as_json:
        emit_json(info)
        return
    echo(f"period {info.period}: seed {info.seed} ({info.rolls} roll(s))")
    if info.next_commitment:
        echo(f"next period's commitment: {info.next_commitment}")


@dice_app.command("verify")
def dice_verify(
    ctx: typer.Context,
    period: int = typer.Option(None, "--period", min=1, max=DB_INT_MAX,
                               help="Only this period."),
    secret: bool = typer.Option(False, "--secret",
                                help="Also check the periods not yet revealed, with the secret "
                                     "seeds kept in the database (the Dealer's private check; "
                                     "nothing is revealed or recorded)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Recompute every roll of each revealed period from its seed and the ledger's events, check
    the rolls table against the log, and name any mismatch. With --secret, the Dealer checks the
    unrevealed periods too, privately, with the seeds in the database."""
    from nomic_cards.core.services.audit import dice_verify

    report = read(ctx, dice_verify, period, secret=secret)
    bad = not report.ok
    if as_json:
        emit_json({"ok": report.ok, "periods": report.periods, "tables": report.tables})
    else:
        for c in report.periods:
            if c.private and not c.problems:
                echo(f"period {c.period}: all {c.rolls} roll(s) match the secret seed (checked "
                     "privately; not revealed)")
            elif not c.revealed and not c.private:
                echo(f"period {c.period}: not revealed yet ({c.rolls} roll(s) to check later)")
            elif c.problems:
                echo(f"period {c.period}: {len(c.problems)} problem(s)")
                for p in c.problems:
                    echo(f"  {p}")
            else:
                echo(f"period {c.period}: all {c.rolls} roll(s) match the revealed seed")
        for line in report.tables:
            echo(f"tables: {line}")
    if bad:
        raise typer.Exit(1)


@ledger_app.command("verify")
def ledger_verify(
    ctx: typer.Context,
    against: list[str] = typer.Option(
        [], "--against", metavar="REPORT_OR_HASH",
        help="A published ledger head the chain must pass through: a Dealer's Report file (or "
             "a mailing-list archive of them), a hash, or EVENT:HASH. Repeatable."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Replay the whole log from scratch; check the hash chain and every commitment, that the
    replayed state equals the tables (every card in exactly one place), and that the chain
    passes through every published head given. Exit 1 if anything is wrong."""
    from pathlib import Path

    from nomic_cards.core.services.audit import ledger_verify, parse_anchors

    anchors = []
    for item in against:
        try:
            exists = Path(item).exists()
        except (OSError, ValueError):  # a name too long for a file (a hash, a number)
            exists = False
        if exists:
            text = read_file(item, item)
            anchors += parse_anchors(text, source=item)
        else:
            anchors += parse_anchors(item)
    with open_nomic(ctx) as nomic, nomic.read(need_game=False, snapshot=True) as r:
        report = ledger_verify(r, against=anchors)  # reports tables edited by hand, unread
    if as_json:
        emit_json({"ok": report.ok, "events": report.events, "cards": report.cards,
                   "problems": [{"event": p.seq, "problem": p.message}
                                for p in report.problems]})
    elif report.ok:
        echo(f"ledger OK: {report.events} events replayed, hash chain intact, "
             f"{report.cards} cards each in exactly one place"
             + (f", {len(anchors)} published head(s) found in the chain" if anchors else ""))
    else:
        echo(f"ledger FAILED verification: {len(report.problems)} problem(s)")
        for p in report.problems:
            echo(f"  {p}")
    if not report.ok:
        raise typer.Exit(1)


@ledger_app.command("export")
def ledger_export(
    ctx: typer.Context,
    since: int = typer.Option(0, "--since", min=0, max=DB_INT_MAX,
                              help="Only events after this one."),
) -> None:
    """Print the public record as JSON: every event as stored and hashed, with the commitment
    to its private fields but never the fields themselves. Anyone can check it with
    scripts/verify_chain.py."""
    import json

    from nomic_cards.core.services.audit import public_record

    rows = read(ctx, public_record, since=since)
    typer.echo(json.dumps([dataclasses.asdict(r) for r in rows], indent=1, ensure_ascii=False))
