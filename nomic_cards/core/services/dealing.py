"""Use cases that move cards: dealing (rule 5) and transfers under a cited rule (rule 1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nomic_cards.core import dice as dice_mod
from nomic_cards.core.engine import held
from nomic_cards.core.ledger.replay import deal_rolls
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.common import (
    calendar,
    card_label,
    has_calendar,
    iso,
    moment,
    parse_card_ref,
)
from nomic_cards.core.services.dice import make_dice
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import RuleViolation

__all__ = [
    "DealResult",
    "RollView",
    "TransferResult",
    "deal",
    "transfer",
]


@dataclass(frozen=True)
class RollView:
    value: int
    sides: int
    source: str
    period: int | None
    index: int | None


@dataclass(frozen=True)
class DealResult:
    event: int | None
    player: str
    card: str | None
    card_number: int | None
    rolls: tuple[RollView, ...]
    notice: str | None
    opened_commitment: str | None = None
    refused: str | None = None


def deal(tx: Tx, player: str, *, source: str = dice_mod.COMMITTED,
         reason: str = "dealt by the Dealer", ask: Callable[[int], int] | None = None,
         reject: Callable[[str], None] | None = None, nweek: int | None = None) -> DealResult:
    """Rule 5: deal one card to ``player``. An empty Deck records the refusal
    (``deal.refused``) and returns it (``refused`` says why): the caller commits it and tells
    the Dealer the deal was refused. ``nweek`` defaults to the nweek of the clock's time."""
    rules.check_reason(reason)
    state = tx.state
    if nweek is None and has_calendar(state):
        nweek = calendar(state).nweek_of(tx.clock.now())
    player = rules.player_name(state, player)
    try:
        rules.verify_deal(state, player)
    except rules.EmptyDeck as exc:
        rec = tx.record(rules.refuse_deal(state, player, reason, str(exc), nweek))[0]
        return DealResult(rec.seq, player, None, None, (), None, refused=str(exc))
    dice, opened = make_dice(tx, source, ask, reject)
    event = rules.deal(state, player, dice, reason=reason, nweek=nweek,
                       at=iso(tx.clock.now()))
    rec = tx.record(event)[-1]
    rolls = tuple(RollView(r.value, r.sides, r.source, r.period, r.index)
                  for r in deal_rolls(event))
    return DealResult(rec.seq, player, card_label(state, event.card), event.card, rolls,
                      event.notice, opened)


@dataclass(frozen=True)
class TransferResult:
    event: int
    card: str
    source: str  # a player, or "Deck"
    target: str  # a player, or "Deck"
    rule: str
    notice: str | None = None  # the private notice to the receiving player


def _deck_or(name: str) -> str | None:
    """None for ``deck`` (the Deck), else the player's name as given."""
    return None if name.strip().lower() in ("deck", "the deck") else name


def transfer(tx: Tx, card: str, to: str, rule: str, *,
             source: str | None = None) -> TransferResult:
    """Move a card under a cited rule; ``to`` is a player, or ``deck``. With ``source`` (a
    player, or ``deck``), refuse unless the card is there."""
    state = tx.state
    number = parse_card_ref(state, card)
    if source is not None:
        rules.verify_source(state, number, _deck_or(source))
    holding = held(tx).get(number)
    if holding is not None:
        raise RuleViolation(f"{card_label(state, number)} cannot be transferred: {holding}")
    target = _deck_or(to)
    at, nweek = moment(state, tx.clock.now())
    event = rules.transfer(state, number, target, rule, at=at, nweek=nweek)
    rec = tx.record(event)[0]
    if event.from_ is not None:
        gone = rules.left_hand(state, event.from_, (number,), at=at, nweek=nweek,
                               went=f"transferred to {event.to or rules.DECK}",
                               why=f"under {event.rule!r}")
        if gone is not None:
            tx.record(gone)
    return TransferResult(rec.seq, card_label(state, number), event.from_ or "Deck",
                          event.to or "Deck", event.rule, event.notice)
