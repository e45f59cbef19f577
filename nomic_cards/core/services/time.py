"""Use cases for time: the game Clock, votes, and ``tick`` -- Cards for Votes (rule 9) and the
Dealer's Report (rule 8) at the start of every nweek, idempotent and catching up in order.

Everything due is done in the caller's transaction, under the ledger lock: two ticks started at
the same moment (on PostgreSQL, or SQLite) serialise, and the second finds the nweeks started.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core.calendar import Calendar
from nomic_cards.core.engine import Window, close_windows
from nomic_cards.core.ledger.events import (
    ClockStarted,
    ClockStopped,
    NotDealt,
    NweekStarted,
    OwedPaid,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_for_votes as cfv
from nomic_cards.core.services.claims import claim_windows
from nomic_cards.core.services.common import (
    calendar,
    has_calendar,
    iso,
    parse_when,
)
from nomic_cards.core.services.dealing import deal
from nomic_cards.core.services.decisions import decision_windows
from nomic_cards.core.services.dice import open_period
from nomic_cards.core.services.late_votes import (
    nth,
)
from nomic_cards.core.services.reports import publish_report
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, RuleViolation

__all__ = [
    "ClockView",
    "NweekStart",
    "clock_start",
    "clock_status",
    "clock_stop",
    "nweek_start",
    "tick",
]


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


def _core_windows(state: State, upto: datetime) -> list[Window]:
    """The core's own moments: the decisions' reminders and closes, and the reports ratified
    after standing undoubted (claims of error)."""
    return [*decision_windows(state, upto), *claim_windows(state, upto)]


def catch_up(tx: Tx, *, limit: int | None = None,
             on_window: Callable[[str], None] | None = None) -> list[NweekStart]:
    """Start every nweek whose boundary has passed by the transaction's clock and that has not
    been started (at most ``limit``), in order, each as of its boundary: its work is judged by
    the state as it was when the boundary passed, and dated then (docs/nweeks.md,
    "Time-true"). Every writing transaction calls this before its own work."""
    state = tx.state
    now = tx.clock.now()

    def told(line: str) -> None:  # the transaction keeps every line (a tick's answer)
        tx.windows_closed.append(line)
        if on_window is not None:
            on_window(line)

    if not has_calendar(state):
        close_windows(tx, now, told, _core_windows)
        return []
    cal = calendar(state)
    done: list[NweekStart] = []
    while True:
        k = state.last_nweek + 1
        due = k <= cal.nweek_of(now)
        boundary = cal.start_of(k) if due else None
        # the card games' windows ending before this boundary (or before now) close first
        close_windows(tx, boundary if boundary is not None else now, told,
                      _core_windows)
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
    ballots: dict[str, tuple[str, int]] = {}
    if k >= 2:
        start, end = cal.start_of(k - 1), cal.start_of(k)
        assert start is not None and end is not None
        voters = tx.voters_between(start, end)
        ballots = tx.first_ballots(start, end) if state.decisions else {}
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
        deal(tx, player, reason=nth(_earned(reason, ballots.get(player)), 1, count), nweek=k)
        dealt.append(player)
        owed.append(player)
    for n in range(2, count + 1):  # the rule as amended: more cards, in rounds
        for player in owed:
            if not state.deck:
                not_dealt.append(NotDealt(player, f"{empty}: card {n} of {count}"))
                continue
            deal(tx, player, reason=nth(_earned(reason, ballots.get(player)), n, count),
                 nweek=k)
            dealt.append(player)
    event = NweekStarted(k, iso(cal.start_of(k)), period.id, period.commitment, cfv.ORDER_RULE,
                         tuple(order), tuple(dealt), tuple(not_dealt), tuple(paid))
    rec = tx.record(event)[0]
    return NweekStart(k, rec.seq, period.id, period.commitment, tuple(dealt), tuple(not_dealt),
                      published, tuple(paid))


def _earned(reason: str, ballot: tuple[str, int] | None) -> str:
    """A Cards for Votes deal's reason, naming the ballot that earned it (a player who voted
    by ballot on a decision of the ledger)."""
    return reason if ballot is None else f"{reason}: ballot on decision {ballot[0]} (event " \
                                         f"{ballot[1]})"


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
            deal(tx, player, reason=nth(reason, got, cards), nweek=k)
        if got:
            paid.append(OwedPaid(player, voted, got))
    return paid
