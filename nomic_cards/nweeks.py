"""Use cases for time: the game Clock, votes, and ``tick`` — Cards for Votes (rule 9) and the
Dealer's Report (rule 8) at the start of every nweek, idempotent and catching up in order.

Each nweek start is one unit of work, taken under the ledger lock: two ticks started at the same
moment (on PostgreSQL, or SQLite) serialise, and the second finds the nweek already started.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from nomic_cards.cards import spoon_card
from nomic_cards.clock import Clock, SystemClock
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.gameclock import Calendar
from nomic_cards.ledger import events as ev
from nomic_cards.ledger.events import NewEvent, parse_time, utc
from nomic_cards.ledger.state import State
from nomic_cards.report import Receipt, ReportData, render_all
from nomic_cards.rules import cards_for_votes as cfv
from nomic_cards.services import _open_period, _uow, calendar, card_label, deal_in

# --- time ----------------------------------------------------------------------------------


def parse_when(text: str, what: str = "time") -> datetime:
    """An ISO date or date-time; naive means UTC."""
    try:
        return parse_time(text)
    except ValueError:
        raise InputError(f"bad {what} {text!r}: use ISO form, e.g. 2026-11-22T18:00:00Z") \
            from None


def _iso(at: datetime | None) -> str | None:
    return None if at is None else utc(at).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class ClockView:
    at: str
    nweek: int
    nday: int
    running: bool
    nweek_days: int
    epoch: str
    nweek_start: str | None
    next_nweek_start: str | None
    last_ticked_nweek: int


def clock_status(db: str | None, *, at: str | None = None, clock: Clock | None = None) -> ClockView:
    """Where a time (default: now) falls in game time."""
    clock = clock or SystemClock()
    with _uow(db, write=False, clock=clock) as uow:
        state = uow.state
        cal = calendar(state)
        when = parse_when(at) if at else clock.now()
        pos = cal.position(when)
        start = cal.start_of(pos.nweek) if pos.nweek >= 1 else cal.origin
        return ClockView(_iso(when) or "", pos.nweek, pos.nday, pos.running, cal.nweek_days,
                         cal.epoch.isoformat(), _iso(start), _iso(cal.start_of(pos.nweek + 1)),
                         state.last_nweek)


def nweek_start(db: str | None, nweek: int, nday: int = 1) -> str | None:
    """The real time an nweek (or one of its ndays) begins, if the Clock history fixes it."""
    with _uow(db, write=False) as uow:
        if nweek < 1:
            raise InputError(f"nweeks are numbered from 1, not {nweek}")
        return _iso(calendar(uow.state).start_of(nweek, nday))


def clock_stop(db: str | None, clock: Clock | None = None) -> str:
    with _uow(db, clock=clock) as uow:
        if not uow.state.clock_running:
            raise RuleViolation("the Clock is already Off")
        now = uow.clock.now()
        uow.record(NewEvent(ev.CLOCK_STOPPED, {"at": _iso_full(now)}))
        return _iso(now) or ""


def clock_start(db: str | None, clock: Clock | None = None) -> str:
    with _uow(db, clock=clock) as uow:
        if uow.state.clock_running:
            raise RuleViolation("the Clock is already On")
        now = uow.clock.now()
        uow.record(NewEvent(ev.CLOCK_STARTED, {"at": _iso_full(now)}))
        return _iso(now) or ""


def _iso_full(at: datetime) -> str:
    return utc(at).isoformat()


# --- votes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class VoteImport:
    rows: int
    recorded: int
    already: int
    event: int | None


def record_vote(db: str | None, player: str, proposal: str, *, at: str | None = None,
                clock: Clock | None = None) -> VoteImport:
    """Record one vote (``at`` default: now). Recording the same vote again changes nothing."""
    clock = clock or SystemClock()
    when = parse_when(at) if at else clock.now().replace(microsecond=0)
    return _record_votes(db, [(player, proposal, when)], source="vote", clock=clock)


def import_votes(db: str | None, path: str, clock: Clock | None = None) -> VoteImport:
    """Import a CSV of ``player,proposal,time`` (header optional). Any bad row: nothing is
    imported and the error names the line. Votes already recorded are skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    rows: list[tuple[str, str, datetime]] = []
    lines: list[int] = []
    reader = csv.reader(io.StringIO(text))
    for line_no, row in enumerate(reader, 1):
        if not row or all(not c.strip() for c in row):
            continue
        if line_no == 1 and [c.strip().lower() for c in row] == ["player", "proposal", "time"]:
            continue
        if len(row) != 3:
            raise InputError(f"{path} line {line_no}: expected 3 fields player,proposal,time, "
                             f"got {len(row)}")
        player, proposal, when = (c.strip() for c in row)
        if not player or not proposal:
            raise InputError(f"{path} line {line_no}: empty player or proposal")
        try:
            at = parse_when(when)
        except InputError:
            raise InputError(f"{path} line {line_no}: bad time {when!r}") from None
        rows.append((player, proposal, at))
        lines.append(line_no)
    return _record_votes(db, rows, source=Path(path).name, clock=clock,
                         where=[f"{path} line {n}: " for n in lines])


def _record_votes(db: str | None, rows: list[tuple[str, str, datetime]], *, source: str,
                  clock: Clock | None = None, where: list[str] | None = None) -> VoteImport:
    """Validate every row first (``where`` gives each row's location for messages), then
    record the new ones in one event."""
    with _uow(db, clock=clock) as uow:
        state = uow.state
        for i, (player, proposal, _at) in enumerate(rows):
            prefix = where[i] if where else ""
            if player not in state.players:
                raise NotFound(f"{prefix}unknown player {player!r}")
            if len(proposal) > 100:
                raise InputError(f"{prefix}proposal id longer than 100 characters")
        existing = uow.existing_votes(min(r[2] for r in rows), max(r[2] for r in rows)) \
            if rows else set()
        new: list[dict[str, str]] = []
        seen = set(existing)
        for player, proposal, at in rows:
            key = (player, proposal, at)
            if key in seen:
                continue
            seen.add(key)
            new.append({"player": player, "proposal": proposal, "at": _iso_full(at)})
        event = None
        if new:
            rec = uow.record(NewEvent(ev.VOTES_RECORDED, {"votes": new, "source": source}))
            event = rec[0].seq
        return VoteImport(len(rows), len(new), len(rows) - len(new), event)


# --- tick ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NweekStart:
    nweek: int
    event: int
    period: int
    commitment: str
    dealt: list[str] = field(default_factory=list)
    not_dealt: list[dict[str, str]] = field(default_factory=list)
    report_published: int | None = None


def tick(db: str | None, clock: Clock | None = None) -> list[NweekStart]:
    """Do everything due since the last tick, nweek by nweek, each in its own transaction."""
    clock = clock or SystemClock()
    done: list[NweekStart] = []
    while True:
        with _uow(db, clock=clock) as uow:
            state = uow.state
            cal = calendar(state)
            due = cal.nweek_of(clock.now())
            k = state.last_nweek + 1
            if k > due:
                return done
            done.append(_start_nweek(uow, state, cal, k))


def _start_nweek(uow: Any, state: State, cal: Calendar, k: int) -> NweekStart:
    published = None
    if k >= 2:
        published = _publish_report(uow, state, k - 1)
    period = state.current_period()
    if period is None or period.rolls_used > 0 or uow.secret(period.id) is None:
        _open_period(uow)
        period = state.current_period()
    assert period is not None
    voters: list[str] = []
    if k >= 2:
        start, end = cal.start_of(k - 1), cal.start_of(k)
        assert start is not None and end is not None
        voters = uow.voters_between(start, end)
    order = cfv.voter_order(voters, commitment=period.commitment, nweek=k)
    dealt: list[str] = []
    not_dealt: list[dict[str, str]] = []
    reason = f"Cards for Votes: voted in nweek {k - 1} (rule 9)"
    for player in order:
        why = cfv.not_owed_reason(state, player)
        if why is None and not state.deck:
            why = "the Deck contains no Cards (rule 5 takes precedence)"
        if why is not None:
            not_dealt.append({"player": player, "reason": why})
            continue
        deal_in(uow, player, reason=reason, nweek=k)
        dealt.append(player)
    payload = {
        "nweek": k, "start": _iso(cal.start_of(k)), "period": period.id,
        "commitment": period.commitment, "order_rule": cfv.ORDER_RULE, "voters": order,
        "dealt": dealt, "not_dealt": not_dealt,
    }
    rec = uow.record(NewEvent(ev.NWEEK_STARTED, payload))[0]
    return NweekStart(k, rec.seq, period.id, period.commitment, dealt, not_dealt, published)


# --- the Dealer's Report -------------------------------------------------------------------


def _report_data(uow: Any, state: State, nweek: int) -> ReportData:
    cal = calendar(state)
    receipts: dict[str, list[str]] = {}
    periods: set[int] = set()
    for _seq, player, card, used in uow.deals_in_nweek(nweek):
        pack = state.packs[spoon_card(card)[0]].name
        receipts.setdefault(player, []).append(pack)
        periods.update(used)
    commitments = tuple((p, state.periods[p].commitment) for p in sorted(periods))
    return ReportData(
        nweek, _iso(cal.start_of(nweek)) or "?", _iso(cal.start_of(nweek + 1)) or "(open)",
        state.dealer, tuple(Receipt(p, tuple(b)) for p, b in receipts.items()), commitments,
    )


def _publish_report(uow: Any, state: State, nweek: int) -> int | None:
    if uow.report(nweek) is not None:
        return None
    data = _report_data(uow, state, nweek)
    rendered = render_all(data)
    structured = json.loads(rendered["json"])
    rec = uow.record(NewEvent(ev.REPORT_PUBLISHED,
                              {"nweek": nweek, "report": structured, "rendered": rendered}))
    return int(rec[0].seq)


FORMATS = ("text", "markdown", "json")


@dataclass(frozen=True)
class ReportView:
    nweek: int
    published: bool
    body: str


def report(db: str | None, nweek: int | None = None, *, fmt: str = "text",
           clock: Clock | None = None) -> ReportView:
    """A published report exactly as published; an nweek not yet reported, as a preview."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    clock = clock or SystemClock()
    with _uow(db, write=False, clock=clock) as uow:
        state = uow.state
        if nweek is None:
            nweek = uow.latest_report()
            if nweek is None:
                raise NotFound("no Dealer's Report has been published yet (run `nomic-cards "
                               "tick` at the start of an nweek)")
        stored = uow.report(nweek)
        if stored is not None:
            return ReportView(nweek, True, stored[fmt])
        current = calendar(state).nweek_of(clock.now())
        if not 1 <= nweek <= current:
            raise NotFound(f"nweek {nweek} has not begun (the current nweek is {current})")
        body = render_all(_report_data(uow, state, nweek))[fmt]
        return ReportView(nweek, False, body)


def labels_dealt_in(db: str | None, nweek: int) -> list[str]:
    """Labels of the cards dealt in an nweek (the Dealer's own view, never in a report)."""
    with _uow(db, write=False) as uow:
        return [card_label(uow.state, card) for _s, _p, card, _u in uow.deals_in_nweek(nweek)]
