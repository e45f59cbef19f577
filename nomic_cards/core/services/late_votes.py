"""Cards for Votes earned late (docs/rules.md, "Late votes"): a vote or a ballot recorded in an
nweek whose Cards for Votes were dealt already earns its card now, or is owed it later (a voter
who is then the Dealer or retired, under ``absent=owe``), once per voter and nweek. Shared by
``vote cast``/``vote import`` and by ballots on the nomic's decisions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core.calendar import Calendar
from nomic_cards.core.ledger.events import LateOwed, VoteEntry
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_for_votes as cfv
from nomic_cards.core.services.common import calendar, has_calendar, iso
from nomic_cards.core.services.dealing import deal
from nomic_cards.core.store.writes import Tx

__all__ = ["LateBallot", "LateVote"]


@dataclass(frozen=True)
class LateVote:
    """A vote recorded after the Cards for Votes of its nweek were dealt (docs/rules.md, "Late
    votes"): the voter, the nweek voted in, when that nweek's cards were dealt, and what was
    done now -- the deal's event, or why no card was dealt."""

    player: str
    nweek: int
    cards_dealt_at: str
    event: int | None
    outcome: str


@dataclass(frozen=True)
class LateBallot:
    """What a ballot cast in an nweek whose Cards for Votes were dealt already owes: the cards
    owed later (for its event) and the deals it earns now (:meth:`deal`, once recorded)."""

    tx: Tx
    later: tuple[LateOwed, ...]
    owed: dict[int, list[str]]

    def deal(self) -> list[LateVote]:
        return late_votes(self.tx, self.tx.state, self.owed)


def late_ballot(tx: Tx, player: str, at: datetime) -> LateBallot:
    """A ballot of ``player`` cast at ``at`` as a vote for Cards for Votes (docs/rules.md,
    "Late votes"): read before it is recorded."""
    state = tx.state
    if not has_calendar(state):
        return LateBallot(tx, (), {})
    owed = owed_late(tx, state, calendar(state), [VoteEntry(player, "", at)])
    return LateBallot(tx, owed_later(state, owed), owed)


def owed_late(tx: Tx, state: State, cal: Calendar,
               votes: list[VoteEntry]) -> dict[int, list[str]]:
    """nweek -> the voters among ``votes`` whose vote falls in that nweek although its Cards for
    Votes were already dealt (the next nweek has started), and who had no vote recorded in it
    before (such a vote already earned, or was refused, the one card the nweek gives)."""
    owed: dict[int, set[str]] = {}
    earlier: dict[int, set[str]] = {}
    for v in votes:
        k = cal.nweek_of(v.at)
        if k + 1 not in state.nweeks:
            continue
        if k not in earlier:
            start, end = cal.start_of(k), cal.start_of(k + 1)
            assert start is not None and end is not None
            earlier[k] = set(tx.voters_between(start, end))
        if v.player not in earlier[k]:
            owed.setdefault(k, set()).add(v.player)
    return {k: sorted(p) for k, p in sorted(owed.items())}


def owed_later(state: State, owed: dict[int, list[str]]) -> tuple[LateOwed, ...]:
    """The late votes whose cards are owed later rather than dealt now: under rule 9 in force
    with ``absent=owe``, a late voter who is now the Dealer or retired is owed the cards the
    rule gives each voter, as a voter absent at the boundary is (docs/rules.md, "Late
    votes")."""
    if cfv.stopped_reason(state) is not None or not cfv.absent_owed(state):
        return ()
    count = cfv.cards_per_vote(state)
    return tuple(LateOwed(p, k, count) for k, voters in owed.items() for p in voters
                 if cfv.is_absent(state, p))


def late_votes(tx: Tx, state: State, owed: dict[int, list[str]]) -> list[LateVote]:
    """Deal the cards that late votes earn (rule 9), nweek by nweek, voters in the rule's
    order; a voter owed nothing, or an empty Deck, is reported with the reason."""
    out: list[LateVote] = []
    for k, voters in owed.items():
        started = tx.event_at(state.nweeks[k + 1])
        assert started is not None
        dealt_at = iso(started.at) or ""
        period = state.current_period()
        order = cfv.voter_order(voters, commitment=period.commitment if period else "",
                                nweek=k + 1)
        reason = (f"Cards for Votes: voted in nweek {k} (rule 9); the vote was recorded after "
                  f"that nweek's cards were dealt at {dealt_at}")
        stopped, count = cfv.stopped_reason(state), cfv.cards_per_vote(state)
        owed_now: list[str] = []
        for n in range(1, count + 1 if stopped is None else 2):  # in rounds, as on time
            for player in order if n == 1 else owed_now:
                why = stopped or cfv.not_owed_reason(state, player)
                if why is not None:
                    if stopped is None and cfv.absent_owed(state) and \
                            cfv.is_absent(state, player):
                        why += f"; owed {count} card(s) later (rule 9, absent=owe)"
                    out.append(LateVote(player, k, dealt_at, None, f"not dealt: {why}"))
                    continue
                if n == 1:
                    owed_now.append(player)
                result = deal(tx, player, reason=nth(reason, n, count))
                if result.refused:
                    out.append(LateVote(player, k, dealt_at, result.event,
                                        f"not dealt: {result.refused}"))
                else:
                    out.append(LateVote(player, k, dealt_at, result.event,
                                        "dealt a card now"))
    return out


def nth(reason: str, n: int, count: int) -> str:
    """A deal's reason, naming which of a voter's cards it is when the rule deals several."""
    return reason if count == 1 else f"{reason}, card {n} of {count}"
