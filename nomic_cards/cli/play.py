"""Commands that deal and move cards, and that show hands, the Deck and the log."""

from __future__ import annotations

import sys

import typer

from nomic_cards.cli.common import (
    DB_INT_MAX,
    JSON_OPTION,
    DiceSource,
    act_at,
    at_option,
    echo,
    emit_json,
    read,
    write,
)
from nomic_cards.errors import InputError
from nomic_cards.inputs import ascii_int, escape, shorten

_MAX_LINE = 1000  # the longest line read for a die result
_GIVE_UP = "no die result given: the deal is abandoned and nothing was recorded"


def _ask(sides: int) -> int:
    """Ask the Dealer for a die result: a prompt on a terminal, else one line of standard input.
    Re-asks on anything that is not a whole number; gives up at end of input."""
    question = f"Result of the d{sides} from the dice server"
    tty = sys.stdin.isatty()
    while True:
        if tty:
            try:
                text = str(typer.prompt(question, err=True)).strip()
            except typer.Abort:
                raise InputError(_GIVE_UP) from None
        else:
            line = sys.stdin.readline(_MAX_LINE)
            if not line:
                raise InputError(_GIVE_UP)
            text = line.strip()
            typer.echo(f"{question}: {escape(shorten(text))[1:-1]}", err=True)
        try:
            number = ascii_int(text, "the result")
        except InputError:
            number = None
        if number is not None:
            return number
        typer.echo(f"not a whole number in ASCII digits: {escape(shorten(text))}; enter the "
                   "result again", err=True)


def _reject(message: str) -> None:
    typer.echo(message, err=True)


def deal(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The player who receives the card."),
    dice: DiceSource = typer.Option("committed", "--dice",
                             help="committed (default), manual or system."),
    reason: str = typer.Option("dealt by the Dealer", "--reason",
                               help="Why the card is dealt (e.g. the rule that requires it)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Deal one card (rule 5): roll a die with 52 x packs sides until it names a card in the
    Deck, move it to the player's hand and queue a private notice."""
    from nomic_cards.core.services.dealing import deal

    act_at(ctx, at)
    r = write(ctx, deal, player, source=dice, reason=reason, ask=_ask, reject=_reject)
    if r.refused:  # the refusal is committed (rule 5): the deal itself failed
        from nomic_cards.core.rules.cards_proposal import EmptyDeck

        raise EmptyDeck(f"cannot deal to {r.player}: {r.refused}; the refusal is recorded as "
                        f"event {r.event}")
    if as_json:
        emit_json(r)
        return
    if r.opened_commitment:
        echo(f"Opened a new dice period; commitment: {r.opened_commitment}")
    echo(f"Dealt {r.card} (card {r.card_number}) to {player}  [event {r.event}]")
    for i, roll in enumerate(r.rolls, 1):
        last = i == len(r.rolls)
        note = "in the Deck: dealt" if last else "not in the Deck: roll again"
        where = f", period {roll.period} roll #{roll.index}" if roll.period else ""
        echo(f"  roll {i}: d{roll.sides} -> {roll.value:>4}  ({roll.source}{where}; "
             f"{note})")
    echo(f"  private notice to {player}: {r.notice}")


def transfer(
    ctx: typer.Context,
    card: str = typer.Argument(..., help="Card number (e.g. 90) or pack and face ('Red Qh')."),
    to: str = typer.Option(..., "--to", help="The receiving player, or 'deck'."),
    rule: str = typer.Option(..., "--rule", help="The rule that authorizes this movement."),
    source: str = typer.Option(None, "--from", metavar="PLAYER",
                               help="Where the card is, a player or 'deck': refuse if it is "
                                    "not there (a mistyped card number moves nothing)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Move a card under a cited rule (rule 1: cards move only as the rules state); the
    receiving player gets a private notice naming the card."""
    from nomic_cards.core.services.dealing import transfer

    act_at(ctx, at)
    info = write(ctx, transfer, card, to, rule, source=source)
    if as_json:
        emit_json({"event": info.event, "card": info.card, "from": info.source,
                   "to": info.target, "rule": info.rule})
    else:
        echo(f"{info.card}: {info.source} -> {info.target} under {info.rule!r} "
             f"[event {info.event}]")


def hand(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="Whose hand."),
    as_of: str = typer.Option(None, "--as-of",
                              help="An event number or ISO time: the hand as it was then."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show a player's hand (now, or as of an event or time)."""
    from nomic_cards.core.services.queries import hand

    view = read(ctx, hand, player, as_of=as_of)
    if as_json:
        emit_json(view)
        return
    when = f" as of event {view.as_of}" if as_of else ""
    if view.dealer:
        echo(f"{player} is the Dealer{when}: their cards are the Deck (see `nomic-cards deck`).")
        return
    echo(f"{player}'s hand{when}: {len(view.cards)} card(s)")
    for c in view.cards:
        echo(f"  {c.card:<14} {c.name} ({c.back} back, card {c.number})")


def deck(
    ctx: typer.Context,
    cards: bool = typer.Option(False, "--cards",
                               help="Also list the cards (only the Dealer may see them)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Count the cards in the Deck by Back."""
    from nomic_cards.core.services.queries import deck

    view = read(ctx, deck, show_cards=cards)
    if as_json:
        emit_json(view)
        return
    echo(f"The Deck (owned by the Dealer, {view.dealer}): {view.total} card(s); "
         f"die: d{view.sides}")
    for b in view.by_back:
        echo(f"  {b.pack:<14} {b.cards:>4}")
    for c in view.cards or ():
        echo(f"  {c.card:<14} {c.name} (card {c.number})")


def log(
    ctx: typer.Context,
    player: str = typer.Option(None, "--player", help="Only events concerning this player."),
    limit: int = typer.Option(20, "--limit", "-n", min=1, max=DB_INT_MAX,
                              help="How many recent events."),
    reveal: bool = typer.Option(False, "--reveal",
                                help="Show card identities and seeds (Dealer only)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show recent ledger events."""
    from nomic_cards.core.services.queries import log

    rows = read(ctx, log, player=player, limit=limit, reveal=reveal)
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        echo(f"#{r.event:<5} {r.at[:19]}  {r.kind:<18} {escape(r.summary)}")

