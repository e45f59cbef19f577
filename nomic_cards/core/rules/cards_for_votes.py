"""Rule 9, Cards for Votes: "At the beginning of each nweek, the Dealer deals a Card to each
Player who voted in the previous nweek." — who is owed a card, how many, and in what order.

How many: the rule's parameter ``cards`` in force (default 1; docs/rules.md, "Changing the
rules"); none while the rule is repealed. With more than one card per voter, the cards are dealt
in rounds: a first card to each voter in order, then a second to each, and so on, so that a Deck
that runs out part-way favours no voter by more than one card.

Order among voters (it matters only when the Deck runs out part-way): voters are sorted by
``SHA-256("<commitment>:<nweek>:<player name>")`` in hex, ascending, where ``<commitment>`` is
the dice commitment of the nweek's period, published before any of its rolls. The rule is
fixed in advance, favours nobody by name or by voting time, and anyone can recompute it from the
report and the ledger.

Owed later (parameter ``absent``, default ``skip``): with ``absent=owe`` a voter who is the Dealer
or retired when the cards are due is recorded *not dealt* but owed the cards the rule gave then;
at the first nweek start where the voter is an active player other than the Dealer (and the rule
is in force), the debts are dealt first, before that nweek's voters: oldest nweek first, then in
the rule's order for the new nweek, each debt in full while the Deck lasts (what the Deck cannot
give stays owed). docs/rules.md, "Owed later".
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from nomic_cards.core.ledger.state import State

ORDER_RULE = "ascending SHA-256 of '<commitment>:<nweek>:<player>'"
#: the rule's short name in the ruleset
NAME = "cards-for-votes"


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


def absent_owed(state: State) -> bool:
    """Whether a voter who is the Dealer or retired is owed the cards later (``absent=owe``)."""
    change = state.rule(NAME)
    return change is not None and change.in_force and change.params.get("absent") == "owe"


def is_absent(state: State, player: str) -> bool:
    """The voter is the Dealer or a retired player (an *absent* voter of ``absent``)."""
    p = state.players.get(player)
    return p is not None and (not p.active or state.dealer == player)


def pays_debts(state: State) -> bool:
    """Owed cards are dealt while the rule is in force (they wait while it is repealed)."""
    change = state.rule(NAME)
    return change is None or change.in_force


def debt_order(state: State, *, commitment: str, nweek: int) -> list[tuple[str, int, int]]:
    """(player, nweek voted in, cards owed) of every debt, in the order they are paid at the
    start of ``nweek``: oldest first, then the rule's order for ``nweek``."""
    return [(p, k, n) for (p, k), n in
            sorted(state.owed.items(),
                   key=lambda d: (d[0][1], order_key(commitment, nweek, d[0][0]), d[0][0]))
            if n > 0]


def cards_per_vote(state: State) -> int:
    """Cards each voter is dealt under the rule in force (0 while it is repealed)."""
    change = state.rule(NAME)
    if change is None:
        return 1
    return int(change.params.get("cards", 1)) if change.in_force else 0


def stopped_reason(state: State) -> str | None:
    """Why no voter gets any card at all under the rules in force, or None."""
    change = state.rule(NAME)
    if change is None:
        return None
    if not change.in_force:
        return f"Cards for Votes (rule 9) was repealed by {change.proposal!r}"
    if cards_per_vote(state) == 0:
        return f"Cards for Votes (rule 9) deals 0 cards per voter since {change.proposal!r}"
    return None
