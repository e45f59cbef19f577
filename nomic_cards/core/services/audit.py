"""Use cases that audit: the whole ledger against its projections, the dice against their
revealed seeds."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from nomic_cards.core import dice as dice_mod
from nomic_cards.core.engine import require_installed
from nomic_cards.core.ledger.chain import format_time
from nomic_cards.core.ledger.codec import EventDecodeError, to_record
from nomic_cards.core.ledger.events import (
    CardDealt,
    DiceCommitted,
    DiceRevealed,
    RuleEnacted,
    StoredEvent,
)
from nomic_cards.core.ledger.replay import deal_rolls
from nomic_cards.core.ledger.state import RollRecord
from nomic_cards.core.ledger.verify import Problem, check_chain_and_replay, compare
from nomic_cards.core.nomic import NO_GAME
from nomic_cards.core.report import published_heads
from nomic_cards.core.store.reads import Reads
from nomic_cards.errors import DatabaseError, InputError, NotFound, RuleViolation
from nomic_cards.inputs import ascii_int, shorten

__all__ = [
    "Anchor",
    "DiceCheck",
    "DiceReport",
    "PublicEvent",
    "VerifyReport",
    "dice_verify",
    "ledger_verify",
    "parse_anchors",
    "public_record",
]


@dataclass(frozen=True)
class VerifyReport:
    events: int
    cards: int
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Anchor:
    """A ledger head published outside the database (in a Dealer's Report, say): the event
    number, if known, and its hash."""

    seq: int | None
    hash: str

    def __str__(self) -> str:
        where = f"event {self.seq}" if self.seq is not None else "an event"
        return f"{where} with hash {self.hash[:16]}..."


_HASH = re.compile(r"[0-9a-f]{64}")
_EVENT_MAX = 2**63 - 1  # the largest number a database column holds


def parse_anchors(text: str, *, source: str = "the argument") -> list[Anchor]:
    """The ledger heads in ``text``: a bare hash, ``N:HASH``, or a Dealer's Report (or several)
    in any of its forms."""
    t = text.strip().lower()
    if _HASH.fullmatch(t):
        return [Anchor(None, t)]
    seq, sep, digest = t.partition(":")
    number = ascii_int(seq, "the event number of a ledger head") if sep else None
    if number is not None and _HASH.fullmatch(digest):
        if number > _EVENT_MAX:
            raise InputError(f"no event numbered {shorten(seq)}: event numbers are at most "
                             f"{_EVENT_MAX}")
        return [Anchor(number, digest)]
    heads = published_heads(text)
    if not heads:
        raise InputError(f"no ledger head in {source}: give a Dealer's Report, a hash of 64 hex "
                         "digits, or EVENT:HASH")
    return [Anchor(n, h) for n, h in heads]


def check_anchors(hashes: Mapping[int, str], anchors: Iterable[Anchor]) -> list[Problem]:
    """A problem for each published head that the chain does not pass through."""
    out = []
    last = max(hashes, default=0)
    by_hash = {h: n for n, h in hashes.items()}
    for a in anchors:
        if a.seq is None:
            if a.hash not in by_hash:
                out.append(Problem(None, f"the published ledger head {a.hash[:16]}... was "
                                         "not found: check the hash, or the chain was "
                                         "rewritten after it was published"))
        elif a.seq > last:
            out.append(Problem(a.seq, f"the published ledger head is {a}, but the ledger ends "
                                      f"at event {last}: events were removed after it was "
                                      "published"))
        elif hashes[a.seq] != a.hash:
            out.append(Problem(a.seq, f"the published ledger head is {a}, but this event now "
                                      f"has hash {hashes[a.seq][:16]}...: the chain was "
                                      "rewritten after it was published"))
    return out


def ledger_verify(tx: Reads, *, against: Sequence[Anchor] = ()) -> VerifyReport:
    """Check the chain, open every commitment, replay the whole log from scratch and compare
    it with the tables (DESIGN.md section 2); with ``against``, also check that the chain
    passes through each published head. A ledger holding a card game's events that is not
    installed is refused in one line (:func:`~nomic_cards.core.engine.require_installed`):
    its events could not be replayed. Whatever else was edited by hand is reported, never
    raised: ``tx`` need not have read the tables (``Nomic.read(need_game=False,
    snapshot=True)``), which may not be readable."""
    hashes: dict[int, str] = {}
    enacted: dict[str, str] = {}  # rule -> the package its enactment names

    def seen(rows: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
        for row in rows:
            hashes[row.seq] = row.hash
            if row.kind == "rule.enacted":
                with contextlib.suppress(EventDecodeError):  # the replay reports it
                    e = to_record(row).event
                    if isinstance(e, RuleEnacted):
                        enacted.setdefault(e.rule, e.package)
            yield row

    replayed, problems = check_chain_and_replay(seen(tx.stored_events()))
    if not hashes:
        raise RuleViolation(NO_GAME)
    require_installed(tx, enacted)
    try:
        tables = tx.full_state()
        cards = tx.card_rows()
    except DatabaseError as exc:  # a projection edited into something unreadable
        problems.append(Problem(None, f"the tables cannot be read: {exc}"))
    else:
        problems += compare(replayed, tables, cards)
    problems += check_anchors(hashes, against)
    return VerifyReport(replayed.seq, len(replayed.owner), tuple(problems))


@dataclass(frozen=True)
class PublicEvent:
    """One event of the public record, exactly as stored and hashed (docs/ledger.md)."""

    seq: int
    at: str  # YYYY-MM-DDTHH:MM:SS.ffffffZ
    actor: str
    kind: str
    subject: str | None
    payload: str  # the stored text of the public fields
    private: str | None  # the commitment to the private fields
    prev_hash: str
    hash: str


def public_record(tx: Reads, *, since: int = 0) -> list[PublicEvent]:
    """Every event after ``since`` as the public may see it: enough to check the whole chain,
    nothing that reveals a private field."""
    return [PublicEvent(r.seq, format_time(r.at) if r.at else "", r.actor, r.kind,
                        r.subject, r.payload,
                        r.private, r.prev_hash, r.hash)
            for r in tx.stored_events(private=False) if r.seq > since]


@dataclass(frozen=True)
class DiceCheck:
    period: int
    revealed: bool
    rolls: int
    problems: tuple[str, ...]
    #: checked with the secret seed kept in the database (not revealed): the Dealer's own check
    private: bool = False


@dataclass(frozen=True)
class DiceReport:
    periods: tuple[DiceCheck, ...]
    tables: tuple[str, ...]  # rolls in the tables that disagree with the log

    @property
    def ok(self) -> bool:
        return not self.tables and not any(c.problems for c in self.periods)


@dataclass
class _DiceLog:
    """What the events say about the dice: each period's commitment and revealed seed, and
    every committed roll with the event that rolled it."""

    commitments: dict[int, str] = field(default_factory=dict)
    seeds: dict[int, str] = field(default_factory=dict)
    rolls: dict[int, list[tuple[int, RollRecord]]] = field(default_factory=dict)
    deals: dict[int, tuple[RollRecord, ...]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def read(self, rows: Iterable[StoredEvent]) -> _DiceLog:
        for row in rows:
            try:
                e = to_record(row).event
            except EventDecodeError as exc:
                self.unreadable.append(str(exc))
                continue
            if isinstance(e, DiceCommitted):
                self.commitments[e.period] = e.commitment
            elif isinstance(e, DiceRevealed):
                self.seeds[e.period] = e.seed
            elif isinstance(e, CardDealt):
                rolls = deal_rolls(e)
                self.deals[row.seq] = rolls
                for r in rolls:
                    if r.source == dice_mod.COMMITTED and r.period is not None:
                        self.rolls.setdefault(r.period, []).append((row.seq, r))
        return self


def dice_verify(tx: Reads, period: int | None = None, *, secret: bool = False) -> DiceReport:
    """Recompute every roll of each revealed period (or the one named) from its revealed seed
    and the events themselves, and check that the rolls table agrees with the log. With
    ``secret``, the periods not yet revealed are checked too, with the seeds kept in the
    database: the Dealer's (or an auditor's with the Dealer's access) private check, which
    publishes nothing."""
    log = _DiceLog().read(tx.stored_events())
    tables = tx.full_state()
    kept_seeds: dict[int, str] = {}
    if secret:
        for p in log.commitments:
            seed = tx.secret(p) if p not in log.seeds else None
            if seed is not None:
                kept_seeds[p] = seed
    if period is not None and period not in log.commitments:
        raise NotFound(f"no dice period {period}")
    checks = tuple(_check_period(log, p, kept_seeds.get(p)) for p in sorted(log.commitments)
                   if period is None or p == period)
    by_seq = {d.seq: d.rolls for d in tables.deals}
    disagree = [f"the log cannot be read: {u}" for u in log.unreadable]
    for seq, rolls in log.deals.items():
        kept = by_seq.get(seq, ())
        if kept == rolls:
            continue
        for r in rolls:
            mine = next((k for k in kept if k.position == r.position), None)
            if mine != r:
                said = "nothing" if mine is None else f"{mine.value} on a d{mine.sides}"
                disagree.append(f"event {seq} roll {r.position + 1}: the rolls table says "
                                f"{said}, the log says {r.value} on a d{r.sides}")
                break
        else:
            disagree.append(f"event {seq}: the rolls table holds rolls the log does not")
    return DiceReport(checks, tuple(disagree))


def _check_period(log: _DiceLog, period: int, secret: str | None = None) -> DiceCheck:
    """A period's seed (the revealed one, else ``secret``, the one kept in the database)
    against its commitment; its roll indices 0, 1, 2, ... without gaps or reuse; every face
    against the seed's."""
    rolls = log.rolls.get(period, [])
    revealed = log.seeds.get(period)
    private = revealed is None and secret is not None
    if private:
        revealed = secret
    problems: list[str] = []
    if revealed is not None:
        try:
            seed = bytes.fromhex(revealed)
        except ValueError:
            seed = b""
            problems.append("the revealed seed is not hexadecimal")
        if dice_mod.commitment(seed) != log.commitments[period]:
            problems.append("the revealed seed does not match the commitment "
                            f"{log.commitments[period][:16]}...")
        for expect, (seq, r) in enumerate(rolls):
            if r.index != expect:
                problems.append(f"event {seq} roll {r.position + 1}: roll index {r.index}, "
                                f"expected {expect} (rolls skipped or reused)")
            if r.index is None or r.index < 0:
                continue
            face = dice_mod.committed_face(seed, r.index, r.sides)
            if face != r.value:
                problems.append(f"event {seq} roll {r.position + 1}: the ledger says {r.value} "
                                f"on a d{r.sides}, the seed gives {face}")
    return DiceCheck(period, revealed is not None and not private, len(rolls), tuple(problems),
                     private)
