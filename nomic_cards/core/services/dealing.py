"""Use cases that move cards: dealing (rule 5) and transfers under a cited rule (rule 1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nomic_cards.core import dice as dice_mod
from nomic_cards.core.game import Game
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

if TYPE_CHECKING:
    from nomic_cards.core.store.uow import UnitOfWork

__all__ = [
    "DealResult",
    "RollView",
    "TransferResult",
    "deal",
    "deal_in",
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


def deal_in(uow: UnitOfWork, player: str, *, source: str = dice_mod.COMMITTED, reason: str,
            ask: Callable[[int], int] | None = None,
            reject: Callable[[str], None] | None = None, nweek: int | None = None) -> DealResult:
    """Deal inside an open unit of work. An empty Deck records a refusal and returns it.
    ``nweek`` defaults to the nweek of the clock's current time."""
    state = uow.state
    if nweek is None and has_calendar(state):
        nweek = calendar(state).nweek_of(uow.clock.now())
    player = rules.player_name(state, player)
    try:
        rules.verify_deal(state, player)
    except rules.EmptyDeck as exc:
        rec = uow.record(rules.refuse_deal(state, player, reason, str(exc), nweek))[0]
        return DealResult(rec.seq, player, None, None, (), None, refused=str(exc))
    dice, opened = make_dice(uow, source, ask, reject)
    event = rules.deal(state, player, dice, reason=reason, nweek=nweek,
                       at=iso(uow.clock.now()))
    rec = uow.record(event)[-1]
    rolls = tuple(RollView(r.value, r.sides, r.source, r.period, r.index)
                  for r in deal_rolls(event))
    return DealResult(rec.seq, player, card_label(state, event.card), event.card, rolls,
                      event.notice, opened)


def deal(game: Game, player: str, *, source: str = dice_mod.COMMITTED,
         reason: str = "dealt by the Dealer", ask: Callable[[int], int] | None = None,
         reject: Callable[[str], None] | None = None) -> DealResult:
    """Rule 5. An empty Deck records the refusal, then raises :class:`rules.EmptyDeck`."""
    rules.check_reason(reason)
    with game.write() as uow:
        result = deal_in(uow, player, source=source, reason=reason, ask=ask, reject=reject)
    if result.refused:
        raise rules.EmptyDeck(f"cannot deal to {player}: {result.refused}; "
                              f"the refusal is recorded as event {result.event}")
    return result


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


def transfer(game: Game, card: str, to: str, rule: str, *,
             source: str | None = None) -> TransferResult:
    """Move a card under a cited rule; ``to`` is a player, or ``deck``. With ``source`` (a
    player, or ``deck``), refuse unless the card is there."""
    with game.write() as uow:
        state = uow.state
        number = parse_card_ref(state, card)
        if source is not None:
            rules.verify_source(state, number, _deck_or(source))
        target = _deck_or(to)
        at, nweek = moment(state, uow.clock.now())
        event = rules.transfer(state, number, target, rule, at=at, nweek=nweek)
        rec = uow.record(event)[0]
        if event.from_ is not None:
            gone = rules.left_hand(state, event.from_, (number,), at=at, nweek=nweek,
                                   went=f"transferred to {event.to or rules.DECK}",
                                   why=f"under {event.rule!r}")
            if gone is not None:
                uow.record(gone)
        return TransferResult(rec.seq, card_label(state, number), event.from_ or "Deck",
                              event.to or "Deck", event.rule, event.notice)
