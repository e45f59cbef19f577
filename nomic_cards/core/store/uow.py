"""Units of work: one transaction per use case, in which events are appended to the ledger and
their projections written.

A writing unit of work first takes the ledger lock (``SELECT ... FOR UPDATE`` on the single
``ledger_head`` row in PostgreSQL; ``BEGIN IMMEDIATE`` in SQLite), so appends from concurrent
processes are serialised and the hash chain never forks. Either everything a use case recorded
commits, or nothing does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.ledger.append import append, seal, too_early
from nomic_cards.core.ledger.codec import to_record
from nomic_cards.core.ledger.events import Event, EventRecord, StoredEvent, utc
from nomic_cards.core.ledger.state import ReportRecord, State
from nomic_cards.core.store import models as m
from nomic_cards.core.store.engine import READ_ONLY, display_url
from nomic_cards.core.store.load import iter_events, to_stored
from nomic_cards.core.store.migrate import (
    first_line,
    is_driver_error,
    permission_hint,
    refused,
)
from nomic_cards.core.store.plain import PlainReadUnit, load_state_on, plain_unit_on
from nomic_cards.core.store.project import project, table
from nomic_cards.core.store.protocol import NweekDeal
from nomic_cards.core.store.reads import Reader
from nomic_cards.errors import DatabaseError, PermissionDenied, RuleViolation

__all__ = ["NweekDeal", "UnitOfWork", "reading", "unit_of_work"]

# the writes every event makes, built once (see store.project.table)
_INSERT_EVENT, _INSERT_PRIVATE = insert(table(m.Event)), insert(table(m.EventPrivate))
_HEAD = table(m.LedgerHead)
_MOVE_HEAD = update(_HEAD).where(_HEAD.c.id == 1)


class UnitOfWork:
    """A session in one transaction, with the live state and a :meth:`record` method."""

    def __init__(self, session: Session, *, actor: str, clock: Clock,
                 emails: bool = True) -> None:
        self.session = session
        self.emails = emails
        self.actor = actor
        self.clock = clock
        self._state: State | None = None
        self._last_at: datetime | None = None
        self.recorded: list[EventRecord] = []

    def _last_time(self) -> datetime | None:
        """The time of the newest event (None in an empty ledger)."""
        if self._last_at is None and self.state.seq:
            at = self.session.scalar(select(m.Event.at).where(m.Event.seq == self.state.seq))
            self._last_at = None if at is None else utc(at)
        return self._last_at

    def check_clock(self) -> None:
        """Refuse at once if the clock is before the ledger's last event."""
        when, last = utc(self.clock.now()), self._last_time()
        if last is not None and when < last:
            raise RuleViolation(too_early(self.state, when, last))

    @contextmanager
    def as_of(self, when: datetime) -> Iterator[None]:
        """Record what is done inside at ``when`` (work due at a boundary, done late, is dated
        at its boundary), or at the ledger's last event when that is later (a ledger written
        before boundary work was done first: docs/nweeks.md, "Time-true")."""
        saved, last = self.clock, self._last_time()
        self.clock = FixedClock(when if last is None or when >= last else last)
        try:
            yield
        finally:
            self.clock = saved

    def _load(self, *, history: bool) -> State:
        """The projections read back on this unit's own connection and transaction."""
        conn = self.session.connection()
        return load_state_on(conn.connection.driver_connection,
                             postgres=conn.dialect.name == "postgresql", history=history,
                             emails=self.emails)

    @property
    def state(self) -> State:
        if self._state is None:
            self._state = self._load(history=False)
            self._state.track = True
        return self._state

    def record(self, new: Event | Sequence[Event], *,
               subject: str | None = None) -> list[EventRecord]:
        """Append events to the ledger, apply them to the state and write their projections.
        ``subject`` overrides the events' own (for a kind whose payload does not name it)."""
        items = [new] if isinstance(new, Event) else list(new)
        state = self.state
        out: list[EventRecord] = []
        for event in items:
            sealed = seal(state, event, at=self.clock.now(), actor=self.actor,
                          last_at=self._last_time(), subject=subject)
            changes = append(state, sealed)
            rec = sealed.record
            self.session.execute(_INSERT_EVENT, {
                "seq": rec.seq, "at": rec.at, "actor": rec.actor, "kind": rec.kind,
                "subject": rec.subject, "payload": sealed.text, "private": sealed.commitment,
                "prev_hash": rec.prev_hash, "hash": rec.hash})
            if sealed.opening is not None:
                self.session.execute(_INSERT_PRIVATE, {"seq": rec.seq,
                                                       "nonce": sealed.opening.nonce,
                                                       "data": sealed.opening.data})
            project(self.session, state, changes)
            self._last_at = rec.at
            out.append(rec)
        if out:
            self.session.execute(_MOVE_HEAD, {"seq": state.seq, "hash": state.head_hash})
        self.recorded.extend(out)
        return out

    # --- reads that services need, kept here so SQLAlchemy stays inside the store ---------

    def full_state(self) -> State:
        """The projections including history (deals, rolls, notices)."""
        return self._load(history=True)

    def stored_events(self, *, private: bool = True) -> Iterator[StoredEvent]:
        """Every event row as stored (for verification), with its private part unless
        ``private`` is false (the public record)."""
        return iter_events(self.session, private=private)

    def events(self) -> Iterator[EventRecord]:
        """Every event, decoded (raises :class:`EventDecodeError` on a row that is not)."""
        return (to_record(row) for row in iter_events(self.session))

    def recent_events(self, *, subject: str | None = None, limit: int = 20,
                      kinds: tuple[str, ...] = ()) -> list[EventRecord]:
        q = select(m.Event, m.EventPrivate).outerjoin(
            m.EventPrivate, m.EventPrivate.seq == m.Event.seq).order_by(m.Event.seq.desc()) \
            .limit(limit)
        if subject is not None:
            q = q.where(m.Event.subject == subject)
        if kinds:
            q = q.where(m.Event.kind.in_(kinds))
        rows = self.session.execute(q).all()
        return [to_record(to_stored(e, p)) for e, p in reversed(rows)]

    @contextmanager
    def _plain(self) -> Iterator[PlainReadUnit]:
        """The plain read path on this unit's own connection and transaction."""
        conn = self.session.connection()
        with plain_unit_on(conn.connection.driver_connection,
                           postgres=conn.dialect.name == "postgresql", actor=self.actor,
                           clock=self.clock) as unit:
            yield unit

    def events_from(self, start: datetime, end: datetime | None,
                    kinds: tuple[str, ...]) -> list[EventRecord]:
        with self._plain() as unit:
            return unit.events_from(start, end, kinds)

    def event_at(self, seq: int) -> EventRecord | None:
        row = self.session.get(m.Event, seq)
        return None if row is None else \
            to_record(to_stored(row, self.session.get(m.EventPrivate, seq)))

    def event_time(self, seq: int) -> datetime | None:
        at = self.session.scalar(select(m.Event.at).where(m.Event.seq == seq))
        return None if at is None else utc(at)

    def event_hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        """The chain hash of each of the given events."""
        out: dict[int, str] = {}
        for i in range(0, len(seqs), 500):
            q = select(m.Event.seq, m.Event.hash).where(m.Event.seq.in_(seqs[i:i + 500]))
            out.update((int(seq), str(h)) for seq, h in self.session.execute(q))
        return out

    def notice_sent(self, seq: int) -> bool:
        """Whether the notice recorded by event ``seq`` is recorded as sent."""
        return self.session.scalar(select(m.Notice.sent_seq).where(m.Notice.seq == seq)) \
            is not None

    def card_rows(self) -> list[tuple[int, int, int, int]]:
        q = select(m.Card.number, m.Card.pack, m.Card.suit, m.Card.rank).order_by(m.Card.number)
        return [tuple(r) for r in self.session.execute(q)]  # type: ignore[misc]

    def voters_between(self, start: datetime, end: datetime) -> list[str]:
        """Names of the players with at least one vote at a time in [start, end)."""
        q = (select(m.Player.name).join(m.Vote, m.Vote.player_id == m.Player.id)
             .where(m.Vote.at >= start, m.Vote.at < end).distinct())
        return sorted(self.session.scalars(q))

    def existing_votes(self, start: datetime, end: datetime) -> set[tuple[str, str, datetime]]:
        """(player, proposal, time) of the votes already recorded in [start, end]."""
        q = (select(m.Player.name, m.Vote.proposal, m.Vote.at)
             .join(m.Player, m.Vote.player_id == m.Player.id)
             .where(m.Vote.at >= start, m.Vote.at <= end))
        return {(n, p, utc(a)) for n, p, a in self.session.execute(q)}

    def deals_in_nweek(self, nweek: int) -> list[NweekDeal]:
        """The cards dealt in ``nweek``, in event order, with the dice that dealt them."""
        q = (select(m.Deal.seq, m.Player.name, m.Deal.card, m.Roll.source, m.Roll.period_id)
             .join(m.Player, m.Deal.player_id == m.Player.id)
             .join(m.Roll, (m.Roll.deal_seq == m.Deal.seq) & (m.Roll.position == 0))
             .where(m.Deal.nweek == nweek, m.Deal.card.is_not(None)).order_by(m.Deal.seq))
        return [NweekDeal(seq, name, card, source, period)
                for seq, name, card, source, period in self.session.execute(q)
                if card is not None]

    def report(self, nweek: int) -> ReportRecord | None:
        row = self.session.get(m.Report, nweek)
        if row is None:
            return None
        return ReportRecord(row.nweek, row.published_seq, row.text, row.markdown, row.json)

    def latest_report(self) -> int | None:
        return self.session.scalar(select(func.max(m.Report.nweek)))

    def secret(self, period: int) -> str | None:
        row = self.session.get(m.DiceSecret, period)
        return None if row is None else row.seed

    def save_secret(self, period: int, seed_hex: str) -> None:
        self.session.execute(insert(m.DiceSecret).values(period_id=period, seed=seed_hex))


@contextmanager
def unit_of_work(
    engine: Engine, *, actor: str = "cli", clock: Clock | None = None, write: bool = True,
    emails: bool = True,
) -> Iterator[UnitOfWork]:
    """Open a transaction (taking the ledger lock when ``write``); commit on success. Without
    ``emails`` the state is loaded without the players' addresses (the server's account may
    not read them)."""
    driver_error = _driver_error(engine)
    try:
        bind = engine if write else engine.execution_options(**{READ_ONLY: True})
        with Session(bind, expire_on_commit=False) as session, session.begin():
            if write:
                session.execute(select(m.LedgerHead.seq).where(m.LedgerHead.id == 1)
                                .with_for_update())
            yield UnitOfWork(session, actor=actor, clock=clock or SystemClock(),
                             emails=emails)
    except OperationalError as exc:
        raise DatabaseError(f"database {display_url(str(engine.url))} failed: "
                            f"{first_line(exc)}") from None
    except SQLAlchemyError as exc:
        raise _error_for(exc)(f"database error: {str(exc).strip().splitlines()[0]}"
                            f"{permission_hint(exc)}") from None
    except driver_error as exc:  # the state is loaded on the driver's own cursor
        raise _error_for(exc)(f"database error: {first_line(exc)}{permission_hint(exc)}") from None


@contextmanager
def translated(engine: Engine) -> Iterator[None]:
    """Database errors raised inside as :class:`DatabaseError` (one line)."""
    try:
        yield
    except OperationalError as exc:
        raise DatabaseError(f"database {display_url(str(engine.url))} failed: "
                            f"{first_line(exc)}") from None
    except SQLAlchemyError as exc:
        raise _error_for(exc)(f"database error: {str(exc).strip().splitlines()[0]}"
                            f"{permission_hint(exc)}") from None


def _driver_error(engine: Engine) -> type[Exception]:
    error: type[Exception] = engine.dialect.loaded_dbapi.Error
    return error


@contextmanager
def reading(engine: Engine) -> Iterator[Reader]:
    """A read-only transaction on one connection, for :class:`~.reads.Reader`'s narrow queries."""
    try:
        with engine.execution_options(**{READ_ONLY: True}).connect() as conn, conn.begin():
            yield Reader(conn)
    except OperationalError as exc:
        raise DatabaseError(f"database {display_url(str(engine.url))} failed: "
                            f"{first_line(exc)}") from None
    except SQLAlchemyError as exc:
        raise _error_for(exc)(f"database error: {str(exc).strip().splitlines()[0]}"
                            f"{permission_hint(exc)}") from None
    except Exception as exc:  # the driver's own, from the DB-API reads on the connection
        if not is_driver_error(exc):
            raise
        raise _error_for(exc)(f"database error: {first_line(exc)}{permission_hint(exc)}") from None


def _error_for(exc: BaseException) -> type[DatabaseError]:
    return PermissionDenied if refused(exc) else DatabaseError
