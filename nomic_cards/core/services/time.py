"""Use cases for time: the game Clock, votes, and ``tick`` -- Cards for Votes (rule 9) and the
Dealer's Report (rule 8) at the start of every nweek, idempotent and catching up in order.

Everything due is done in the caller's transaction, under the ledger lock: two ticks started at
the same moment (on PostgreSQL, or SQLite) serialise, and the second finds the nweeks started.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nomic_cards.core.calendar import Calendar
from nomic_cards.core.ledger.events import (
    ClockStarted,
    ClockStopped,
    LateOwed,
    NotDealt,
    NweekStarted,
    OwedPaid,
    VoteEntry,
    VotesRecorded,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_for_votes as cfv
from nomic_cards.core.rules import names
from nomic_cards.core.services.common import (
    calendar,
    has_calendar,
    iso,
    parse_when,
    require_player,
)
from nomic_cards.core.services.dealing import deal
from nomic_cards.core.services.dice import open_period
from nomic_cards.core.services.reports import publish_report
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import MAX_PROPOSAL, check_text, read_file, shorten

__all__ = [
    "ClockView",
    "NweekStart",
    "VoteImport",
    "clock_start",
    "clock_status",
    "clock_stop",
    "import_votes",
    "nweek_start",
    "record_vote",
    "record_votes",
    "tick",
]


_MAX_SOURCE = 255  # a file name
_MAX_TIME = 64  # an ISO time, generously


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


def clock_status(tx: Reads, *, at: str | None = None) -> ClockView:
    """Where a time (default: now) falls in game time."""
    state = tx.state
    cal = calendar(state)
    when = parse_when(at) if at else tx.clock.now()
    pos = cal.position(when)
    start = cal.start_of(pos.nweek) if pos.nweek >= 1 else cal.origin
    return ClockView(iso(when) or "", pos.nweek, pos.nday, pos.running,
                     cal.days_in(pos.nweek),
                     cal.epoch.isoformat(), iso(start), iso(cal.start_of(pos.nweek + 1)),
                     state.last_nweek)


def nweek_start(tx: Reads, nweek: int, nday: int = 1) -> str | None:
    """The real time an nweek (or one of its ndays) begins, if the Clock history fixes it."""
    if nweek < 1:
        raise InputError(f"nweeks are numbered from 1, not {nweek}")
    try:
        return iso(calendar(tx.state).start_of(nweek, nday))
    except OverflowError:
        raise InputError(f"nweek {nweek} nday {nday} begins after the year 9999") from None


def clock_stop(tx: Tx) -> str:
    """Switch the Clock Off; returns when."""
    if not tx.state.clock_running:
        raise RuleViolation("the Clock is already Off")
    now = tx.clock.now()
    tx.record(ClockStopped(now))
    return iso(now) or ""


def clock_start(tx: Tx) -> str:
    """Switch the Clock On again; returns when."""
    if tx.state.clock_running:
        raise RuleViolation("the Clock is already On")
    now = tx.clock.now()
    tx.record(ClockStarted(now))
    return iso(now) or ""


# --- votes ---------------------------------------------------------------------------------


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
class VoteImport:
    rows: int
    recorded: int
    already: int
    event: int | None
    late: tuple[LateVote, ...] = ()


def record_vote(tx: Tx, player: str, proposal: str, *, at: str | None = None) -> VoteImport:
    """Record one vote (``at`` default: now). Recording the same vote again changes nothing."""
    when = parse_when(at) if at else tx.clock.now().replace(microsecond=0)
    return record_votes(tx, [(player, proposal, when)], source="vote")


#: how many bad lines of a vote file an error lists (the rest are counted)
MAX_LISTED = 20


@dataclass(frozen=True)
class _Bad:
    """What is wrong with one line of a vote file (``kind``: the error class to raise when it
    is the only one)."""

    line: int
    message: str
    kind: type[InputError] = InputError


def _refusal(source: str, bad: list[_Bad]) -> InputError:
    """One error for every bad line of a vote file (one problem per line, the first found): a
    single line says what is wrong on it; several give a summary line, then each bad line
    (the first :data:`MAX_LISTED`, and how many more)."""
    first: dict[int, _Bad] = {}
    for b in sorted(bad, key=lambda b: b.line):
        first.setdefault(b.line, b)
    found = list(first.values())
    if len(found) == 1:
        return found[0].kind(f"{source} line {found[0].line}: {found[0].message}")
    lines = [f"{source}: {len(found)} bad lines, nothing imported:"]
    lines += [f"  line {b.line}: {b.message}" for b in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        lines.append(f"  and {len(found) - MAX_LISTED} more")
    return InputError("\n".join(lines))


def import_votes(tx: Tx, path: str) -> VoteImport:
    """Import a CSV of ``player,proposal,time`` (header optional, at most
    :data:`~nomic_cards.inputs.MAX_FILE_BYTES`). Any bad line: nothing is imported and the
    error names every bad line (:func:`_refusal`). Votes already recorded are skipped."""
    text = read_file(path, path, encoding="utf-8-sig")
    if "\0" in text:
        raise InputError(f"{path} is not a text file (it holds NUL characters)")
    source = check_text(Path(path).name, "the vote file's name", _MAX_SOURCE)
    rows: list[tuple[str, str, datetime]] = []
    lines: list[int] = []
    bad: list[_Bad] = []
    reader = csv.reader(io.StringIO(text))
    try:
        for row in reader:
            line_no = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if line_no == 1 and [c.strip().lower() for c in row] == ["player", "proposal",
                                                                      "time"]:
                continue
            if len(row) != 3:
                bad.append(_Bad(line_no, f"expected 3 fields player,proposal,time, got "
                                         f"{len(row)}"))
                continue
            player, proposal, when = (c.strip() for c in row)
            if not player or not proposal:
                bad.append(_Bad(line_no, "empty player or proposal"))
                continue
            try:
                check_text(player, "the player", names.MAX_LENGTH)
                check_text(proposal, "the proposal", MAX_PROPOSAL)
                at = parse_when(check_text(when, "the time", _MAX_TIME))
            except InputError as exc:
                message = str(exc)
                if message.startswith("bad time"):
                    message = f"bad time {shorten(when)}"
                bad.append(_Bad(line_no, message))
                continue
            rows.append((player, proposal, at))
            lines.append(line_no)
    except csv.Error as exc:  # e.g. a field over csv.field_size_limit(): reading stops here
        bad.append(_Bad(reader.line_num, f"unreadable CSV ({exc}); the lines after it were "
                                         "not read"))
    return record_votes(tx, rows, source=source, lines=lines, bad=bad, path=path)


def record_votes(tx: Tx, rows: list[tuple[str, str, datetime]], *, source: str,
                 lines: list[int] | None = None, bad: list[_Bad] | None = None,
                 path: str = "") -> VoteImport:
    """Validate every row first, then record the new ones in one event. For a file (``path``),
    ``lines`` gives each row's line and ``bad`` the lines already refused: any bad line and
    nothing is recorded, the error naming them all. A vote in an nweek whose Cards for Votes
    were already dealt earns its card now, in the same transaction (:func:`_late_votes`)."""
    state = tx.state
    cal = calendar(state)
    now = tx.clock.now()
    named: list[tuple[str, str, datetime]] = []
    problems = list(bad or ())
    for i, (player, proposal, at) in enumerate(rows):
        line = lines[i] if lines else 0
        try:
            named.append(_check_vote(state, cal, now, player, proposal, at))
        except InputError as exc:
            if not lines:
                raise
            problems.append(_Bad(line, str(exc), type(exc)))
    if problems:
        raise _refusal(path, problems)
    existing = tx.existing_votes(min(r[2] for r in named), max(r[2] for r in named),
                                  [state.players[r[0]].id for r in named]) \
        if named else set()
    new: list[VoteEntry] = []
    seen = set(existing)
    for player, proposal, at in named:
        key = (player, proposal, at)
        if key in seen:
            continue
        seen.add(key)
        new.append(VoteEntry(player, proposal, at))
    event = None
    late: list[LateVote] = []
    if new:
        owed = _owed_late(tx, state, cal, new)
        later = _owed_later(state, owed)
        event = tx.record(VotesRecorded(tuple(new), source, later))[0].seq
        late = _late_votes(tx, state, owed)
    return VoteImport(len(rows), len(new), len(rows) - len(new), event, tuple(late))


def _check_vote(state: State, cal: Calendar, now: datetime, player: str, proposal: str,
                at: datetime) -> tuple[str, str, datetime]:
    """One vote as recorded (the voter's registered name, the proposal stripped), or the
    error saying what is wrong with it."""
    try:
        name = require_player(state, player)
    except NotFound:
        raise NotFound(f"unknown player {shorten(player)}") from None
    proposal = proposal.strip()
    if not proposal:
        raise InputError("the proposal voted on must not be empty")
    check_text(proposal, "the proposal", MAX_PROPOSAL)
    if at < cal.origin:
        raise InputError(f"vote time {iso(at)} is before the game began "
                         f"(its first day is {cal.epoch.isoformat()})")
    if at > now:
        raise InputError(f"vote time {iso(at)} is in the future (it is now {iso(now)})")
    return name, proposal, at


def _owed_late(tx: Tx, state: State, cal: Calendar,
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


def _owed_later(state: State, owed: dict[int, list[str]]) -> tuple[LateOwed, ...]:
    """The late votes whose cards are owed later rather than dealt now: under rule 9 in force
    with ``absent=owe``, a late voter who is now the Dealer or retired is owed the cards the
    rule gives each voter, as a voter absent at the boundary is (docs/rules.md, "Late
    votes")."""
    if cfv.stopped_reason(state) is not None or not cfv.absent_owed(state):
        return ()
    count = cfv.cards_per_vote(state)
    return tuple(LateOwed(p, k, count) for k, voters in owed.items() for p in voters
                 if cfv.is_absent(state, p))


def _late_votes(tx: Tx, state: State, owed: dict[int, list[str]]) -> list[LateVote]:
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
                result = deal(tx, player, reason=_nth(reason, n, count))
                if result.refused:
                    out.append(LateVote(player, k, dealt_at, result.event,
                                        f"not dealt: {result.refused}"))
                else:
                    out.append(LateVote(player, k, dealt_at, result.event,
                                        "dealt a card now"))
    return out


def _nth(reason: str, n: int, count: int) -> str:
    """A deal's reason, naming which of a voter's cards it is when the rule deals several."""
    return reason if count == 1 else f"{reason}, card {n} of {count}"


# --- tick ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NweekStart:
    nweek: int
    event: int
    period: int
    commitment: str
    dealt: tuple[str, ...] = ()
    not_dealt: tuple[NotDealt, ...] = ()
    report_published: int | None = None
    paid: tuple[OwedPaid, ...] = ()


def tick(tx: Tx, *, on_window: Callable[[str], None] | None = None) -> list[NweekStart]:
    """Do everything due: start every nweek whose boundary has passed and close every card
    game window that has ended, each as of its moment, in this transaction (with what its
    opening did first, ``tx.caught_up``). ``on_window`` is told a line for each window
    closed (docs/games.md)."""
    return [*tx.caught_up, *catch_up(tx, on_window=on_window)]


def catch_up(tx: Tx, *, limit: int | None = None,
             on_window: Callable[[str], None] | None = None) -> list[NweekStart]:
    """Start every nweek whose boundary has passed by the transaction's clock and that has not
    been started (at most ``limit``), in order, each as of its boundary: its work is judged by
    the state as it was when the boundary passed, and dated then (docs/nweeks.md,
    "Time-true"). Every writing transaction calls this before its own work."""
    from nomic_cards.cardgames.engine import close_windows

    state = tx.state
    now = tx.clock.now()
    if not has_calendar(state):
        close_windows(tx, now, on_window)
        return []
    cal = calendar(state)
    done: list[NweekStart] = []
    while True:
        k = state.last_nweek + 1
        due = k <= cal.nweek_of(now)
        boundary = cal.start_of(k) if due else None
        # the card games' windows ending before this boundary (or before now) close first
        close_windows(tx, boundary if boundary is not None else now, on_window)
        if boundary is None or (limit is not None and len(done) >= limit):
            return done
        with tx.as_of(boundary):
            done.append(start_nweek(tx, state, cal, k))


def start_nweek(tx: Tx, state: State, cal: Calendar, k: int) -> NweekStart:
    """The start of nweek ``k``: the report of the nweek that ended, the new dice period,
    Cards for Votes, and the ``nweek.started`` event."""
    published = publish_report(tx, state, k - 1) if k >= 2 else None
    period = state.current_period()
    if period is None or period.rolls_used > 0 or tx.secret(period.id) is None:
        open_period(tx)
        period = state.current_period()
    assert period is not None
    voters: list[str] = []
    if k >= 2:
        start, end = cal.start_of(k - 1), cal.start_of(k)
        assert start is not None and end is not None
        voters = tx.voters_between(start, end)
    order = cfv.voter_order(voters, commitment=period.commitment, nweek=k)
    dealt: list[str] = []
    not_dealt: list[NotDealt] = []
    reason = f"Cards for Votes: voted in nweek {k - 1} (rule 9)"
    empty = "the Deck contains no Cards (rule 5 takes precedence)"
    stopped, count = cfv.stopped_reason(state), cfv.cards_per_vote(state)
    paid = _pay_debts(tx, state, k, period.commitment)
    owe_absent = stopped is None and cfv.absent_owed(state)
    owed: list[str] = []
    for player in order:  # the first card of each voter (or why none)
        why = stopped or cfv.not_owed_reason(state, player)
        if why is not None and owe_absent and cfv.is_absent(state, player):
            not_dealt.append(NotDealt(player, f"{why}; owed {count} card(s) later "
                                              "(rule 9, absent=owe)", count))
            continue
        if why is None and not state.deck:
            why = empty
        if why is not None:
            not_dealt.append(NotDealt(player, why))
            continue
        deal(tx, player, reason=_nth(reason, 1, count), nweek=k)
        dealt.append(player)
        owed.append(player)
    for n in range(2, count + 1):  # the rule as amended: more cards, in rounds
        for player in owed:
            if not state.deck:
                not_dealt.append(NotDealt(player, f"{empty}: card {n} of {count}"))
                continue
            deal(tx, player, reason=_nth(reason, n, count), nweek=k)
            dealt.append(player)
    event = NweekStarted(k, iso(cal.start_of(k)), period.id, period.commitment, cfv.ORDER_RULE,
                         tuple(order), tuple(dealt), tuple(not_dealt), tuple(paid))
    rec = tx.record(event)[0]
    return NweekStart(k, rec.seq, period.id, period.commitment, tuple(dealt), tuple(not_dealt),
                      published, tuple(paid))


def _pay_debts(tx: Tx, state: State, k: int, commitment: str) -> list[OwedPaid]:
    """Deal, at the start of nweek ``k``, the Cards for Votes owed to voters who were the
    Dealer or retired when theirs were due and are now active players other than the Dealer
    (docs/rules.md, "Owed later"); what the Deck cannot give stays owed."""
    if not state.owed or not cfv.pays_debts(state):
        return []
    paid: list[OwedPaid] = []
    for player, voted, cards in cfv.debt_order(state, commitment=commitment, nweek=k):
        if cfv.not_owed_reason(state, player) is not None:
            continue
        reason = f"Cards for Votes: voted in nweek {voted} (rule 9); owed since nweek {voted + 1}"
        got = 0
        while got < cards and state.deck:
            got += 1
            deal(tx, player, reason=_nth(reason, got, cards), nweek=k)
        if got:
            paid.append(OwedPaid(player, voted, got))
    return paid
