"""``verify``: replay the whole log from scratch and compare it with the projections.

Returns every problem found (it does not stop at the first), each naming the event sequence
number where it starts: breaks in the hash chain, events that cannot be decoded or applied, and
any difference between the replayed state and the state read from the tables -- including the
invariant that every card is in exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from nomic_cards.cards import spoon_card
from nomic_cards.core.ledger.chain import event_hash
from nomic_cards.core.ledger.codec import EventDecodeError, to_record
from nomic_cards.core.ledger.events import GENESIS_HASH, StoredEvent
from nomic_cards.core.ledger.replay import ReplayError, apply
from nomic_cards.core.ledger.state import State, VoteRecord

T = TypeVar("T")
K = TypeVar("K")


@dataclass(frozen=True)
class Problem:
    seq: int | None
    message: str

    def __str__(self) -> str:
        where = f"event {self.seq}" if self.seq is not None else "ledger"
        return f"{where}: {self.message}"


def check_chain_and_replay(stored: Iterable[StoredEvent]) -> tuple[State, list[Problem]]:
    """Replay stored events checking numbering and hashes as it goes."""
    problems: list[Problem] = []
    state = State(history=True)
    prev_seq, prev_hash = 0, GENESIS_HASH
    for row in stored:
        if row.seq != prev_seq + 1:
            problems.append(Problem(row.seq, f"sequence jumps from {prev_seq} to {row.seq}"))
        if row.prev_hash != prev_hash:
            problems.append(Problem(row.seq,
                                    "previous-hash link does not match the event before"))
        try:
            rec = to_record(row)
        except EventDecodeError as exc:
            problems.append(Problem(row.seq, f"cannot read the event: {exc.problem}"
                                    if exc.field is None else
                                    f"cannot read field {exc.field!r}: {exc.problem}"))
            state.seq, state.head_hash = row.seq, row.hash
            prev_seq, prev_hash = row.seq, row.hash
            continue
        digest = event_hash(seq=rec.seq, at=rec.at, actor=rec.actor, kind=row.kind,
                            subject=rec.subject, payload=rec.payload, prev_hash=rec.prev_hash)
        if digest != rec.hash:
            problems.append(Problem(rec.seq, f"hash mismatch: the {row.kind} event was altered"))
        try:
            apply(state, rec)
        except (ReplayError, KeyError, TypeError, ValueError) as exc:
            problems.append(Problem(rec.seq, f"cannot replay {row.kind}: {exc}"))
            state.seq, state.head_hash = rec.seq, rec.hash
        prev_seq, prev_hash = row.seq, row.hash
    return state, problems


def compare(replayed: State, tables: State,
            cards: Iterable[tuple[int, int, int, int]] = ()) -> list[Problem]:
    """Differences between the replayed state and the one read from the tables.

    ``cards`` are the rows of the cards table: ``(number, pack, suit, rank)``.
    """
    out: list[Problem] = []
    if (tables.seq, tables.head_hash) != (replayed.seq, replayed.head_hash):
        out.append(Problem(tables.seq or None, f"ledger head says event {tables.seq}, "
                                               f"the log ends at event {replayed.seq}"))
    if tables.settings != replayed.settings:
        out.append(Problem(1, "game settings differ from the game.created event"))
    r, t = replayed, tables
    out += _diff("pack", dict(enumerate(r.packs)), dict(enumerate(t.packs)),
                 lambda x: x.added_seq)
    out += _diff("player", r.players, t.players, lambda x: x.joined_seq)
    out += _diff("Dealer term", dict(enumerate(r.dealer_terms)), dict(enumerate(t.dealer_terms)),
                 lambda x: x.start_seq)
    out.extend(_compare_cards(replayed, tables, cards))
    out += _diff("dice period", r.periods, t.periods, lambda x: x.opened_seq)
    out += _diff("deal", {d.seq: d for d in r.deals}, {d.seq: d for d in t.deals},
                 lambda x: x.seq)
    out += _diff("Clock stop", dict(enumerate(r.clock_stops)), dict(enumerate(t.clock_stops)),
                 lambda x: x.stop_seq)
    out += _diff("start of nweek", r.nweeks, t.nweeks, lambda x: x)
    out += _diff("Dealer's Report for nweek", r.reports, t.reports, lambda x: x.seq)
    out += _diff("notice", r.notices, t.notices, lambda x: x.seq)
    rv, tv = set(r.votes), set(t.votes)
    for v in sorted(rv ^ tv, key=_vote_key)[:50]:
        what = "missing from the tables" if v in rv else "in the tables but not the log"
        out.append(Problem(v.seq, f"vote of {v.player} on {v.proposal} at "
                                  f"{v.at.isoformat()} is {what}"))
    return out


def _diff(what: str, log: Mapping[K, T], tables: Mapping[K, T],
          seq_of: Callable[[T], int | None]) -> list[Problem]:
    """One problem per key whose value differs between the log's replay and the tables."""
    out = []
    for key in sorted(set(log) | set(tables), key=str):
        a, b = log.get(key), tables.get(key)
        if a != b:
            ref = a if a is not None else b
            assert ref is not None
            out.append(Problem(seq_of(ref), f"{what} {key!r} differs: log {_fmt(a)}, "
                                            f"tables {_fmt(b)}"))
    return out


def _compare_cards(replayed: State, tables: State,
                   cards: Iterable[tuple[int, int, int, int]]) -> list[Problem]:
    out: list[Problem] = []
    for card in sorted(set(replayed.owner) | set(tables.owner)):
        seq = replayed.owner_seq.get(card) or tables.owner_seq.get(card)
        if card not in tables.owner:
            out.append(Problem(seq, f"card {card} is in no place in the tables"))
        elif card not in replayed.owner:
            out.append(Problem(seq, f"card {card} is in the tables but no event created it"))
        elif replayed.owner[card] != tables.owner[card]:
            out.append(Problem(seq, f"card {card}: log puts it in {_where(replayed.owner[card])}, "
                                    f"tables in {_where(tables.owner[card])}"))
        elif replayed.owner_seq[card] != tables.owner_seq[card]:
            out.append(Problem(seq, f"card {card}: last moved by event {replayed.owner_seq[card]} "
                                    f"per the log, {tables.owner_seq[card]} per the tables"))
    for name in set(tables.owner.values()) - {None} - set(tables.players):
        out.append(Problem(None, f"cards are held by {name}, who is not a player"))
    seen: set[int] = set()
    for number, pack, suit, rank in cards:
        seen.add(number)
        p, face = spoon_card(number)
        if (p, int(face.suit), int(face.rank)) != (pack, suit, rank):
            out.append(Problem(replayed.owner_seq.get(number),
                               f"card {number} is recorded as pack {pack} suit {suit} rank {rank}"))
    if cards and seen != set(replayed.owner):
        out.append(Problem(None, "the cards table does not hold exactly the cards of the packs"))
    return out


def _vote_key(v: VoteRecord) -> tuple[int, str, str, str]:
    return (v.seq, v.player, v.proposal, v.at.isoformat())


def _where(owner: str | None) -> str:
    return "the Deck" if owner is None else f"{owner}'s hand"


def _fmt(x: object) -> str:
    return "absent" if x is None else repr(x)
