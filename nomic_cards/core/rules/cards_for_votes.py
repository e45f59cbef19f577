"""Rule 9, Cards for Votes: "At the beginning of each nweek, the Dealer deals a Card to each
Player who voted in the previous nweek." — who is owed a card, and in what order.

Order among voters (it matters only when the Deck runs out part-way): voters are sorted by
``SHA-256("<commitment>:<nweek>:<player name>")`` in hex, ascending, where ``<commitment>`` is
the dice commitment of the nweek's period, published before any of its rolls. The rule is
fixed in advance, favours nobody by name or by voting time, and anyone can recompute it from the
report and the ledger.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from nomic_cards.core.ledger.state import State

ORDER_RULE = "ascending SHA-256 of '<commitment>:<nweek>:<player>'"


def order_key(commitment: str, nweek: int, player: str) -> str:
    return hashlib.sha256(f"{commitment}:{nweek}:{player}".encode()).hexdigest()


def voter_order(voters: Iterable[str], *, commitment: str, nweek: int) -> list[str]:
    """The order in which voters are dealt (see module docstring)."""
    return sorted(set(voters), key=lambda p: (order_key(commitment, nweek, p), p))


def not_owed_reason(state: State, player: str) -> str | None:
    """Why a voter gets no card even with cards in the Deck, or None if one is owed."""
    if player not in state.players:
        return "not a registered player"
    if not state.players[player].active:
        return "retired before the card was due"
    if state.dealer == player:
        return ("is the Dealer, whose cards are the Deck (rules 6 and 7): no card can be dealt "
                "to the Dealer")
    return None
