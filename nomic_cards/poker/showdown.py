"""Showdown: several hands, one game, one wild set -> winners, ties and exact pot shares.

Games: ``high`` (best high hand takes the pot), ``a5`` (ace-to-five lowball), ``27``
(deuce-to-seven lowball) and ``hilo8`` (high/low split with an eight-or-better low: the best
high hand and the best qualifying low each take half; without a qualifying low the high hand
takes all). Each half is split equally among the players who tie for it, and one player can win
both halves. Shares are exact fractions of the pot; how odd chips are paid out is the table's
business, not this module's.

Every hand is worth its best five cards (a hand may hold any number of cards from 5 up, from any
number of packs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nomic_cards.errors import InputError
from nomic_cards.poker.evaluate import evaluator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from nomic_cards.poker.classes import HandValue

SHOWDOWN_GAMES = ("high", "a5", "27", "hilo8")


@dataclass(frozen=True)
class PlayerResult:
    """One player's hand, its value(s) and share of the pot."""

    player: str
    cards: str
    value: HandValue
    low: HandValue | None
    share: Fraction
    wins: tuple[str, ...]  # "high", "low" or the game's name


@dataclass(frozen=True)
class Showdown:
    """The outcome: every player (in the order given) and the winners of each part."""

    game: str
    wild: str
    pot: Fraction
    players: tuple[PlayerResult, ...]
    winners: tuple[str, ...]
    low_winners: tuple[str, ...]


def _best(entries: list[tuple[str, int]]) -> tuple[str, ...]:
    top = max(v for _, v in entries)
    return tuple(name for name, v in entries if v == top)


def showdown(
    hands: Mapping[str, Any] | Iterable[tuple[str, Any]],
    *,
    game: str = "high",
    wild: Any = None,
    pot: int | str | Fraction = 1,
) -> Showdown:
    """Compare the hands (player -> cards) and share ``pot`` among the winners."""
    from fractions import Fraction

    from nomic_cards.poker.codes import format_cards, parse_cards, wild_set

    if game not in SHOWDOWN_GAMES:
        raise InputError(f"unknown game {game!r}; games: {', '.join(SHOWDOWN_GAMES)}")
    items = list(hands.items()) if isinstance(hands, Mapping) else list(hands)
    if not items:
        raise InputError("a showdown needs at least one hand")
    names = [name for name, _ in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"player named twice: {', '.join(dup)}")
    try:
        total = Fraction(pot)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"not an amount: {pot!r}") from None
    if total < 0:
        raise InputError(f"the pot cannot be negative: {pot}")
    ws = wild_set(wild)
    main = evaluator("high" if game == "hilo8" else game, ws)
    low_ev = evaluator("low8", ws) if game == "hilo8" else None
    codes: dict[str, list[int]] = {}
    values: dict[str, HandValue] = {}
    lows: dict[str, HandValue | None] = {}
    for name, cards in items:
        cs = [min(c, 63) for c in parse_cards(cards)]
        if len(cs) < 5:
            raise InputError(f"{name} holds {len(cs)} card{'s' if len(cs) != 1 else ''}; "
                             "a poker hand needs 5")
        codes[name] = cs
        hv = main(cs)
        assert hv is not None
        values[name] = hv
        lows[name] = low_ev(cs) if low_ev is not None else None
    winners = _best([(n, values[n].v) for n in names])
    qualified = [(n, lv.v) for n in names if (lv := lows[n]) is not None]
    low_winners = _best(qualified) if qualified else ()
    shares = {n: Fraction(0) for n in names}
    wins: dict[str, list[str]] = {n: [] for n in names}
    high_part = total / 2 if low_winners else total
    for n in winners:
        shares[n] += high_part / len(winners)
        wins[n].append("high" if game == "hilo8" else game)
    for n in low_winners:
        shares[n] += (total - high_part) / len(low_winners)
        wins[n].append("low")
    players = tuple(
        PlayerResult(n, format_cards(codes[n]), values[n], lows[n], shares[n], tuple(wins[n]))
        for n in names
    )
    return Showdown(game, str(ws), total, players, winners, low_winners)
