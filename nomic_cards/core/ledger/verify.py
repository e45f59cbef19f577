"""``verify``: check the hash chain over the stored bytes, replay the log from scratch and
compare the replay with the projection tables.

It never raises on bad data: every problem found is returned (it does not stop at the first),
each naming the event where it starts, in a sentence. The public part (:func:`check_row`) needs
only the public record; the Dealer's full check also opens every commitment to private fields.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from nomic_cards.cards import CARDS_PER_PACK, spoon_card
from nomic_cards.core.ledger.chain import canonical_json, commitment, event_hash
from nomic_cards.core.ledger.codec import EventDecodeError, to_record
from nomic_cards.core.ledger.events import (
    GENESIS_HASH,
    PlayerEmailSet,
    PlayerRegistered,
    StoredEvent,
    event_type,
)
from nomic_cards.core.ledger.replay import ReplayError, apply
from nomic_cards.core.ledger.state import (
    BallotState,
    ClockStop,
    DealerTermState,
    DealRecord,
    DecisionState,
    NoticeRecord,
    PackState,
    PeriodState,
    PlayerState,
    ReportRecord,
    RuleChange,
    State,
    StrengthState,
    VoteRecord,
)
from nomic_cards.errors import RuleViolation
from nomic_cards.inputs import address_problem, escape, is_address, shorten

T = TypeVar("T")
K = TypeVar("K")


@dataclass(frozen=True)
class Problem:
    seq: int | None
    message: str

    def __str__(self) -> str:
        where = f"event {self.seq}" if self.seq is not None else "ledger"
        return f"{where}: {self.message}"


@dataclass
class ChainCheck:
    """Walks the chain one stored row at a time (see :meth:`check_row`)."""

    prev_seq: int = 0
    prev_hash: str = GENESIS_HASH
    prev_at: datetime | None = None
    problems: list[Problem] = field(default_factory=list)

    def check_row(self, row: StoredEvent, *, private: bool) -> None:
        """Numbering, link, time order, hash over the stored bytes, canonical payload text;
        with ``private``, the commitment to the private fields is opened too."""
        out = self.problems
        if row.seq != self.prev_seq + 1:
            gap = "is missing" if row.seq == self.prev_seq + 2 else "are missing"
            what = (f"event {self.prev_seq + 1} {gap}" if row.seq > self.prev_seq + 1
                    else f"the sequence goes back from {self.prev_seq} to {row.seq}")
            out.append(Problem(row.seq, f"{what}: events must be numbered 1, 2, 3, ... "
                                        "without gaps"))
        if row.prev_hash != self.prev_hash:
            out.append(Problem(row.seq, "its link to the event before is broken: an event before "
                                        "it was altered, removed or inserted"))
        if row.at is None:
            out.append(Problem(row.seq, "its stored time is not a time"))
        elif self.prev_at is not None and row.at < self.prev_at:
            out.append(Problem(row.seq, f"it is dated {row.at.isoformat()}, before the event "
                                        f"before it ({self.prev_at.isoformat()})"))
        if row.at is not None and event_hash(
                seq=row.seq, at=row.at, actor=row.actor, kind=row.kind, subject=row.subject,
                prev_hash=row.prev_hash, private=row.private, payload=row.payload) != row.hash:
            out.append(Problem(row.seq, f"its hash does not match its stored content: the "
                                        f"{row.kind} event was altered after it was written"))
        self._check_text(row)
        if private:
            self._check_opening(row)
        self.prev_seq, self.prev_hash = row.seq, row.hash
        self.prev_at = row.at or self.prev_at

    def _check_text(self, row: StoredEvent) -> None:
        try:
            value = json.loads(row.payload)
        except ValueError:
            return  # reported when the event is read
        if canonical_json(value) != row.payload:
            self.problems.append(Problem(row.seq, "its payload is not stored in the canonical "
                                                  "form (compact JSON with sorted keys) that the "
                                                  "program writes: it was edited by hand"))

    def _check_opening(self, row: StoredEvent) -> None:
        cls = event_type(row.kind)
        wants_private = cls is not None and bool(cls.PRIVATE)
        if row.opening is None:
            if row.private is not None or wants_private:
                self.problems.append(Problem(row.seq, "its private fields are missing from "
                                                      "event_private"))
        elif row.private is None:
            self.problems.append(Problem(row.seq, "it has private fields but no commitment to "
                                                  "them in the chain"))
        elif commitment(row.opening.nonce, row.opening.data) != row.private:
            self.problems.append(Problem(row.seq, "its private fields do not match the "
                                                  "commitment in the chain: they were altered"))


def check_chain(stored: Iterable[StoredEvent], *, private: bool = False) -> ChainCheck:
    """Check the chain alone (the public record, or with ``private`` the openings too)."""
    check = ChainCheck()
    for row in stored:
        check.check_row(row, private=private)
    return check


def check_chain_and_replay(stored: Iterable[StoredEvent]) -> tuple[State, list[Problem]]:
    """Check the chain with every commitment opened, and replay every event."""
    check = ChainCheck()
    state = State(history=True)
    addressed: dict[str, int] = {}  # player -> the event that set eir address
    for row in stored:
        check.check_row(row, private=True)
        try:
            rec = to_record(row)
        except EventDecodeError as exc:
            check.problems.append(Problem(row.seq, f"it cannot be read: {_decode_reason(exc)}"))
            state.seq, state.head_hash = row.seq, row.hash
            continue
        try:
            apply(state, rec)
        except (ReplayError, RuleViolation, KeyError, IndexError, TypeError, ValueError) as exc:
            check.problems.append(Problem(rec.seq, f"the {row.kind} event cannot be replayed: "
                                                   f"{exc}"))
            state.seq, state.head_hash = rec.seq, rec.hash
            continue
        if isinstance(rec.event, PlayerRegistered | PlayerEmailSet):
            addressed[rec.event.name] = rec.seq
    return state, check.problems + _bad_addresses(state, addressed)


def _bad_addresses(state: State, addressed: Mapping[str, int]) -> list[Problem]:
    """A problem for each player whose address in force is not exactly one e-mail address
    (stored before addresses were checked as strictly), naming the event that set it: the
    mailer never sends to it."""
    out = []
    for name, p in state.players.items():
        if p.email and not is_address(p.email):
            out.append(Problem(addressed.get(name), (
                f"{name}'s e-mail address {shorten(escape(p.email))} is not exactly one "
                f"address ({address_problem(p.email)}): nothing is mailed to it; set another "
                f"with `nomic-cards player email {name} ADDR`")))
    return out


def _decode_reason(exc: EventDecodeError) -> str:
    if exc.field is None:
        return f"the {exc.kind} event {exc.problem}"
    if not exc.field:
        return f"its payload {exc.problem}"
    return f"field {exc.field!r} {exc.problem}"


# --- the replay against the tables -----------------------------------------------------------


def compare(replayed: State, tables: State,
            cards: Iterable[tuple[int, int, int, int]] = ()) -> list[Problem]:
    """Differences between the replayed state and the one read from the tables, in words.

    ``cards`` are the rows of the cards table: ``(number, pack, suit, rank)``.
    """
    out: list[Problem] = []
    if (tables.seq, tables.head_hash) != (replayed.seq, replayed.head_hash):
        out.append(Problem(tables.seq or None, f"the ledger head names event {tables.seq}, but "
                                               f"the log ends at event {replayed.seq}"))
    if tables.settings != replayed.settings:
        out.append(Problem(1, "the game settings in the tables differ from those of the "
                              "game.created event"))
    r, t = replayed, tables
    out += _diff("pack", dict(enumerate(r.packs)), dict(enumerate(t.packs)),
                 lambda x: x.added_seq, _pack)
    out += _diff("player", r.players, t.players, lambda x: x.joined_seq, _player)
    out += _diff("Dealer term", dict(enumerate(r.dealer_terms, 1)),
                 dict(enumerate(t.dealer_terms, 1)), lambda x: x.start_seq, _term)
    out.extend(_compare_cards(replayed, tables, cards))
    out.extend(_compare_moves(replayed, tables))
    out += _diff("dice period", r.periods, t.periods, lambda x: x.opened_seq, _period)
    out += _diff("deal of event", {d.seq: d for d in r.deals}, {d.seq: d for d in t.deals},
                 lambda x: x.seq, _deal, _deal_fields)
    out += _diff("Clock stop", dict(enumerate(r.clock_stops, 1)),
                 dict(enumerate(t.clock_stops, 1)), lambda x: x.stop_seq, _stop)
    out += _diff("start of nweek", r.nweeks, t.nweeks, lambda x: x,
                 lambda seq: f"recorded by event {seq}")
    out += _diff("Dealer's Report for nweek", r.reports, t.reports, lambda x: x.seq, _report)
    out += _diff("notice of event", r.notices, t.notices, lambda x: x.seq, _notice)
    out += _diff("change of rule", {(c.seq, c.rule): c for c in r.rule_changes},
                 {(c.seq, c.rule): c for c in t.rule_changes}, lambda x: x.seq, _rule_change)
    for name in sorted(set(r.games_data) | set(t.games_data)):
        if r.games_data.get(name) != t.games_data.get(name):
            out.append(Problem(None, f"the card games' {name} in the tables differ from the "
                                     "replay of the log"))
    out += _diff("decision", r.decisions, t.decisions, lambda x: x.opened_seq, _decision)
    out += _diff("ballot of event", {b.seq: b for b in r.ballots},
                 {b.seq: b for b in t.ballots}, lambda x: x.seq, _ballot)
    out += _diff("voting strength of", r.strengths, t.strengths, lambda x: x.seq, _strength)
    rv, tv = set(r.votes), set(t.votes)
    for v in sorted(rv ^ tv, key=_vote_key)[:50]:
        what = "is missing from the tables" if v in rv else "is in the tables but not in the log"
        out.append(Problem(v.seq, f"the vote of {v.player} on proposal {v.proposal} at "
                                  f"{v.at.isoformat()} {what}"))
    return out


def _diff(what: str, log: Mapping[K, T], tables: Mapping[K, T],
          seq_of: Callable[[T], int | None], describe: Callable[[T], str],
          fields: Callable[[T, T], list[str]] | None = None) -> list[Problem]:
    """One problem per key whose value differs between the log's replay and the tables;
    ``fields`` names what differs within a value (else both values are described whole)."""
    out = []
    for key in sorted(set(log) | set(tables), key=str):
        a, b = log.get(key), tables.get(key)
        if a == b:
            continue
        ref = a if a is not None else b
        assert ref is not None
        if b is None:
            text = f"is missing from the tables (the log has: {describe(ref)})"
        elif a is None:
            text = f"is in the tables but not in the log (the tables have: {describe(ref)})"
        else:
            named = fields(a, b) if fields is not None else []
            if named:
                text = f"({describe(a)}) differs in {'; '.join(named)}"
            else:
                text = f"differs: the log has {describe(a)}; the tables have {describe(b)}"
        out.append(Problem(seq_of(ref), f"{what} {key} {text}"))
    return out


def _pack(p: PackState) -> str:
    return f"{p.name}, added by event {p.added_seq}, back {p.back!r}"


def _player(p: PlayerState) -> str:
    status = f"retired at event {p.retired_seq}" if not p.active else "active"
    mail = f"e-mail {p.email}" if p.email else "no e-mail address"
    return f"{p.name} (number {p.id}, joined at event {p.joined_seq}, {status}, {mail})"


def _term(t: DealerTermState) -> str:
    until = f"until event {t.end_seq}" if t.end_seq is not None else "still in office"
    return f"{t.player} from event {t.start_seq}, {until}"


def _period(p: PeriodState) -> str:
    seed = f"revealed at event {p.revealed_seq}" if p.revealed_seed else "secret"
    return (f"commitment {p.commitment[:16]}..., opened at event {p.opened_seq}, "
            f"{p.rolls_used} roll(s) used, seed {seed}")


def _deal(d: DealRecord) -> str:
    if d.card is None:
        return f"a refused deal to {d.player} ({d.refused})"
    faces = ", ".join(str(r.value) for r in d.rolls)
    return f"card {d.card} to {d.player} by {len(d.rolls)} roll(s) ({faces}), for {d.reason!r}"


#: the fields of a deal and of a roll, as the tables name them (``rolls.sides``)
_DEAL_FIELDS = (("player", "deals.player_id"), ("card", "deals.card"), ("reason", "deals.reason"),
                ("refused", "deals.refused"), ("nweek", "deals.nweek"))
_ROLL_FIELDS = (("position", "rolls.position"), ("value", "rolls.value"),
                ("sides", "rolls.sides"), ("source", "rolls.source"),
                ("period", "rolls.period_id"), ("index", "rolls.roll_index"))


def _shown(value: object) -> str:
    return "NULL" if value is None else repr(value)


def _deal_fields(log: DealRecord, tables: DealRecord) -> list[str]:
    """Each field of a deal, and of each of its rolls, whose value in the tables is not the
    log's: ``roll 1's sides (rolls.sides): the log has 208, the tables have 100``."""
    out = [f"{name} ({column}): the log has {_shown(getattr(log, name))}, the tables have "
           f"{_shown(getattr(tables, name))}"
           for name, column in _DEAL_FIELDS if getattr(log, name) != getattr(tables, name)]
    if len(log.rolls) != len(tables.rolls):
        out.append(f"the number of rolls (rows of rolls): the log has {len(log.rolls)}, the "
                   f"tables have {len(tables.rolls)}")
    for n, (a, b) in enumerate(zip(log.rolls, tables.rolls, strict=False), 1):
        out += [f"roll {n}'s {name} ({column}): the log has {_shown(getattr(a, name))}, the "
                f"tables have {_shown(getattr(b, name))}"
                for name, column in _ROLL_FIELDS if getattr(a, name) != getattr(b, name)]
    return out


def _stop(s: ClockStop) -> str:
    started = f"started again at {s.started_at.isoformat()}" if s.started_at else "still Off"
    return f"stopped at {s.stopped_at.isoformat()} by event {s.stop_seq}, {started}"


def _report(r: ReportRecord) -> str:
    return f"published by event {r.seq} ({len(r.text)} characters of text)"


def _rule_change(c: RuleChange) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted(c.params.items())) or "no parameters"
    since = f", from nweek {c.from_nweek}" if c.from_nweek is not None else ""
    return (f"{c.rule} {c.action} by {c.proposal!r} (version {c.version}, {params}{since}, "
            f"{'in force' if c.in_force else 'not in force'})")


def _decision(d: DecisionState) -> str:
    end = f"resolved {d.outcome} at event {d.resolved_seq}" if d.resolved_seq is not None \
        else "open"
    told = f", reminded at event {d.reminded_seq}" if d.reminded_seq is not None else ""
    return (f"opened at event {d.opened_seq}, closing {d.closes.isoformat()}, {end}{told}, "
            f"AI {d.params.get('ai')}, quorum {d.params.get('quorum')}")


def _ballot(b: BallotState) -> str:
    what = b.option if b.endorse is None else f"endorsing {b.endorse}"
    stands = "standing" if b.replaced_seq is None else f"replaced by event {b.replaced_seq}"
    return f"{b.player} on decision {b.decision}: {what}, cast {b.at.isoformat()}, {stands}"


def _strength(s: StrengthState) -> str:
    return f"{s.strength} ({s.reason}), set by event {s.seq}"


def _notice(n: NoticeRecord) -> str:
    sent = f"sent at event {n.sent_seq}" if n.sent_seq is not None else "not sent"
    if n.failed_seq is not None:
        sent += f", refused for {n.failed_to} at event {n.failed_seq}"
    return f"to {n.player}, {sent}: {n.text!r}"


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
            out.append(Problem(seq, f"card {card} is in {_where(replayed.owner[card])} by the "
                                    f"log, but in {_where(tables.owner[card])} by the tables"))
        elif replayed.owner_seq[card] != tables.owner_seq[card]:
            out.append(Problem(seq, f"card {card} was last moved by event "
                                    f"{replayed.owner_seq[card]} by the log, by event "
                                    f"{tables.owner_seq[card]} by the tables"))
    for name in sorted(set(tables.owner.values()) - {None} - set(tables.players), key=str):
        out.append(Problem(None, f"the tables give cards to {name}, who is not a player"))
    seen: set[int] = set()
    for number, pack, suit, rank in cards:
        seen.add(number)
        p, face = spoon_card(number)
        if (p, int(face.suit), int(face.rank)) != (pack, suit, rank):
            out.append(Problem(replayed.owner_seq.get(number),
                               f"card {number} is recorded as pack {pack} suit {suit} rank "
                               f"{rank}, but its number makes it the {face.title} of pack {p}"))
    if cards and seen != set(range(1, CARDS_PER_PACK * len(replayed.packs) + 1)):
        out.append(Problem(None, "the cards table does not hold exactly the cards of the packs"))
    return out


def _compare_moves(replayed: State, tables: State) -> list[Problem]:
    """The history of where each card has been (``card_moves``, from which the server answers
    a hand as of an event) against the log's."""
    out = []
    for seq, card, holder in sorted(replayed.moves ^ tables.moves, key=lambda x: x[:2])[:50]:
        what = "is missing from the tables" if (seq, card, holder) in replayed.moves \
            else "is in the tables but not in the log"
        out.append(Problem(seq, f"the move of card {card} to {_where(holder)} by event {seq} "
                                f"{what}"))
    return out


def _vote_key(v: VoteRecord) -> tuple[int, str, str, str]:
    return (v.seq, v.player, v.proposal, v.at.isoformat())


def _where(owner: str | None) -> str:
    return "the Deck" if owner is None else f"{owner}'s hand"
