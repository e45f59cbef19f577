"""Reads on the plain DB-API, for processes that only read (the CLI's read commands).

SQLAlchemy costs a command-line process more to import than the whole read takes, so a read
opens the database with the driver alone: :mod:`sqlite3` for a SQLite file, psycopg for
PostgreSQL. :class:`PlainReadUnit` offers the read methods of
:class:`~nomic_cards.core.store.uow.UnitOfWork` (both satisfy
:class:`~nomic_cards.core.store.protocol.ReadUnit`) and returns exactly what they return; the
SQL text lives in :mod:`.sql`.

One read is one consistent snapshot: on SQLite a deferred ``BEGIN`` (under WAL it takes no
lock and never waits for a writer; ``busy_timeout`` covers the moments a checkpoint holds the
file), on PostgreSQL a ``REPEATABLE READ READ ONLY`` transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from nomic_cards.core.clock import Clock, SystemClock
from nomic_cards.core.ledger.codec import to_record
from nomic_cards.core.ledger.events import EventRecord, Opening, StoredEvent, utc
from nomic_cards.core.ledger.state import (
    ClockStop,
    DealerTermState,
    DealRecord,
    NoticeRecord,
    PackState,
    PeriodState,
    PlayerState,
    ReportRecord,
    RollRecord,
    RuleChange,
    State,
    VoteRecord,
)
from nomic_cards.core.ruleset import ParamValue
from nomic_cards.core.store import sql
from nomic_cards.core.store.migrate import (
    first_line,
    one_revision,
    permission_hint,
    require_revision,
)
from nomic_cards.core.store.migrate import (
    refused as permission_refused,
)
from nomic_cards.core.store.protocol import NweekDeal
from nomic_cards.core.store.urls import display_url, sqlite_path
from nomic_cards.errors import DatabaseError, PermissionDenied

#: How long a SQLite read waits for a lock held by a checkpoint (as the SQLAlchemy engine).
BUSY_TIMEOUT_MS = 30000
#: Seconds the command line waits to open a PostgreSQL connection (the server: less).
CLI_CONNECT_TIMEOUT = 10
#: TCP keepalive on PostgreSQL connections: a peer gone silent is found within about 25 s.
KEEPALIVE = MappingProxyType({"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                              "keepalives_count": 3})


class _Cursor(Protocol):
    def execute(self, query: Any, params: Sequence[Any] = ..., /) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def fetchone(self) -> Any: ...


def _sqlite_time(at: datetime) -> str:
    """A time as the SQLAlchemy SQLite dialect stores it (naive UTC, microseconds)."""
    return utc(at).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")


def stored_time(value: object) -> datetime | None:
    """A stored time; None when the stored value is not a time (a row edited by hand)."""
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, str):
        try:
            return utc(datetime.fromisoformat(value))
        except ValueError:
            return None
    return None


def _need_time(value: object) -> datetime:
    at = stored_time(value)
    if at is None:
        raise DatabaseError(f"database error: a stored time is not one: {value!r}")
    return at


@dataclass
class _Db:
    """One open connection and how to talk to it."""

    cur: _Cursor
    postgres: bool

    def q(self, text: str) -> str:
        return text.replace("?", "%s") if self.postgres else text

    def param(self, at: datetime) -> object:
        return utc(at) if self.postgres else _sqlite_time(at)

    def all(self, text: str, params: Sequence[Any] = ()) -> list[Any]:
        self.cur.execute(self.q(text), tuple(params))
        return self.cur.fetchall()

    def one(self, text: str, params: Sequence[Any] = ()) -> Any:
        self.cur.execute(self.q(text), tuple(params))
        return self.cur.fetchone()


def _stored(row: Sequence[Any]) -> StoredEvent:
    seq, at, actor, kind, subject, payload, commit, prev, digest, nonce, data = row
    opening = Opening(nonce, data) if nonce is not None and data is not None else None
    return StoredEvent(seq, stored_time(at), actor, kind, subject, payload, commit, prev, digest,
                       opening)


def load_state(db: _Db, *, history: bool = False, emails: bool = True) -> State:
    """The state from the projection tables: the live part (settings, packs, players, the
    Dealer, card ownership, dice periods, Clock stops, nweeks), and with ``history`` the deals,
    rolls, notices, votes, reports and card moves too (for ``verify``). Without ``emails`` the
    players' addresses are not read (they are None): the server's account may not read them."""
    state = State(history=history)
    head = db.one(sql.HEAD)
    if head is not None:
        state.seq, state.head_hash = head[0], head[1]
    state.settings = {k: v for k, v in db.all(sql.SETTINGS)}
    for number, name, back, added, retired in db.all(sql.PACKS):
        state.packs.append(PackState(number, name, back, added, retired))
    names: dict[int, str] = {}
    for pid, name, email, active, joined, retired in db.all(
            sql.PLAYERS if emails else sql.PLAYERS_PUBLIC):
        state.players[name] = PlayerState(pid, name, email, bool(active), joined, retired)
        names[pid] = name
    for pid, start, end in db.all(sql.DEALER_TERMS):
        state.dealer_terms.append(DealerTermState(names[pid], start, end))
    for card, holder, since in db.all(sql.OWNERSHIP):
        owner = None if holder is None else names.get(holder, f"#{holder}")
        state.owner[card] = owner
        state.owner_seq[card] = since
        if owner is None:
            state.deck.add(card)
    for pid, commit, opened, seed, revealed, used in db.all(sql.DICE_PERIODS):
        state.periods[pid] = PeriodState(pid, commit, opened, seed, revealed, used)
    for stopped, stop_seq, started, start_seq in db.all(sql.CLOCK_INTERVALS):
        state.clock_stops.append(ClockStop(
            _need_time(stopped), stop_seq,
            _need_time(started) if started is not None else None, start_seq))
    state.nweeks = {n: seq for n, seq in db.all(sql.NWEEKS)}
    for seq, at, rule, action, in_force, version, params, proposal, first in \
            db.all(sql.RULE_CHANGES):
        change = RuleChange(seq, _need_time(at), rule, action, bool(in_force), version,
                            _params(params), proposal, first)
        state.rule_changes.append(change)
        state.rules[rule] = change
    _load_owed(db, state)
    for name, data in db.all(sql.GAME_DATA):
        state.games_data[name] = json.loads(data)
    if history:
        _load_history(db, state, names)
    return state


def _load_owed(db: _Db, state: State) -> None:
    """Cards for Votes owed later, from the ``nweek.started`` events and the late votes owed
    (``votes.recorded``) since ``absent=owe`` was first in force (none to read in a game that
    never owed any)."""
    since = min((c.seq for c in state.rule_changes if c.rule == "cards-for-votes"
                 and c.params.get("absent") == "owe"), default=None)
    if since is None:
        return
    for _seq, kind, payload in db.all(sql.OWED_AFTER, (since, "nweek.started",
                                                       "votes.recorded", '%"owed":%')):
        data = json.loads(payload)
        if kind == "votes.recorded":
            for o in data.get("owed", ()):
                state.owe(o["player"], int(o["nweek"]), int(o["cards"]))
            continue
        state.settle_owed(int(data["nweek"]), ((n["player"], int(n.get("owed", 0)))
                                               for n in data.get("not_dealt", ())),
                          ((p["player"], int(p["nweek"]), int(p["cards"]))
                           for p in data.get("paid", ())))


def _params(text: str) -> dict[str, ParamValue]:
    try:
        value = json.loads(text)
    except ValueError:
        raise DatabaseError(f"database error: stored rule parameters are not JSON: {text!r}"
                            ) from None
    if type(value) is not dict:
        raise DatabaseError(f"database error: stored rule parameters are not an object: "
                            f"{text!r}")
    return value


def _load_history(db: _Db, state: State, names: dict[int, str]) -> None:
    rolls: dict[int, list[RollRecord]] = {}
    for seq, pos, value, sides, source, period, index in db.all(sql.ROLLS):
        rolls.setdefault(seq, []).append(RollRecord(pos, value, sides, source, period, index))
    for seq, pid, card, reason, refused, nweek in db.all(sql.DEALS):
        state.deals.append(DealRecord(seq, names.get(pid, f"#{pid}"), card, reason, refused,
                                      tuple(rolls.get(seq, ())), nweek))
    for seq, pid, text, sent, failed, failed_to in db.all(sql.NOTICES):
        state.notices[seq] = NoticeRecord(seq, names.get(pid, f"#{pid}"), text, sent, failed,
                                          failed_to)
    state.votes.extend(VoteRecord(seq, names.get(pid, f"#{pid}"), proposal, _need_time(at))
                       for seq, pid, proposal, at in db.all(sql.VOTES))
    for nweek, published, text, markdown, js in db.all(sql.REPORTS):
        state.reports[nweek] = ReportRecord(nweek, published, text, markdown, js)
    state.moves = {(seq, card, None if holder is None else names.get(holder, f"#{holder}"))
                   for seq, card, holder in db.all(sql.CARD_MOVES)}


def load_state_on(connection: Any, *, postgres: bool, history: bool = False,
                  emails: bool = True) -> State:
    """:func:`load_state` on an open DB-API connection, inside whatever transaction it is in
    (the SQLAlchemy unit of work loads its state this way, on its own connection)."""
    cur = connection.cursor()
    try:
        return load_state(_Db(cur, postgres), history=history, emails=emails)
    finally:
        cur.close()


@contextmanager
def plain_unit_on(connection: Any, *, postgres: bool, actor: str,
                  clock: Clock) -> Iterator[PlainReadUnit]:
    """A :class:`PlainReadUnit` on an open DB-API connection, inside whatever transaction it is
    in (the SQLAlchemy unit of work reads this way, on its own connection)."""
    cur = connection.cursor()
    try:
        yield PlainReadUnit(_Db(cur, postgres), actor=actor, clock=clock)
    finally:
        cur.close()


class PlainReadUnit:
    """A read-only unit of work on one DB-API connection in one snapshot transaction."""

    def __init__(self, db: _Db, *, actor: str, clock: Clock) -> None:
        self._db = db
        self.actor = actor
        self.clock = clock
        self._state: State | None = None

    @property
    def state(self) -> State:
        if self._state is None:
            self._state = load_state(self._db)
        return self._state

    def full_state(self) -> State:
        return load_state(self._db, history=True)

    def stored_events(self, *, private: bool = True) -> Iterator[StoredEvent]:
        text = sql.EVENTS_PRIVATE if private else sql.EVENTS_PUBLIC
        last, batch = 0, 2000
        while True:
            rows = self._db.all(text, (last, batch))
            if not rows:
                return
            for row in rows:
                yield _stored(row)
                last = row[0]

    def events(self) -> Iterator[EventRecord]:
        return (to_record(row) for row in self.stored_events())

    def recent_events(self, *, subject: str | None = None, limit: int = 20,
                      kinds: tuple[str, ...] = ()) -> list[EventRecord]:
        where: list[str] = []
        params: list[Any] = []
        if subject is not None:
            where.append(sql.RECENT_BY_SUBJECT)
            params.append(subject)
        if kinds:
            where.append(sql.RECENT_BY_KIND.format(marks=", ".join("?" * len(kinds))))
            params.extend(kinds)
        text = sql.RECENT_EVENTS.format(where="WHERE " + " AND ".join(where) if where else "")
        rows = self._db.all(text, (*params, limit))
        return [to_record(_stored(r)) for r in reversed(rows)]

    def events_from(self, start: datetime, end: datetime | None,
                    kinds: tuple[str, ...]) -> list[EventRecord]:
        params: list[Any] = [self._db.param(start)]
        if end is not None:
            params.append(self._db.param(end))
        text = sql.EVENTS_FROM.format(until=sql.EVENTS_UNTIL if end is not None else "",
                                      marks=", ".join("?" * len(kinds)))
        return [to_record(_stored(r)) for r in self._db.all(text, (*params, *kinds))]

    def event_at(self, seq: int) -> EventRecord | None:
        row = self._db.one(sql.EVENT_AT, (seq,))
        return None if row is None else to_record(_stored(row))

    def event_time(self, seq: int) -> datetime | None:
        row = self._db.one(sql.LAST_EVENT_AT, (seq,))
        return None if row is None else _need_time(row[0])

    def event_hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for i in range(0, len(seqs), 500):
            part = list(seqs[i:i + 500])
            text = sql.EVENT_HASHES.format(marks=", ".join("?" * len(part)))
            out.update((int(seq), str(h)) for seq, h in self._db.all(text, part))
        return out

    def notice_sent(self, seq: int) -> bool:
        row = self._db.one(sql.NOTICE_SENT, (seq,))
        return row is not None and row[0] is not None

    def card_rows(self) -> list[tuple[int, int, int, int]]:
        return [(int(a), int(b), int(c), int(d)) for a, b, c, d in self._db.all(sql.CARD_ROWS)]

    def voters_between(self, start: datetime, end: datetime) -> list[str]:
        return sorted(r[0] for r in self._db.all(sql.VOTERS_BETWEEN, (
            self._db.param(start), self._db.param(end))))

    def existing_votes(self, start: datetime, end: datetime) -> set[tuple[str, str, datetime]]:
        return {(n, p, _need_time(a)) for n, p, a in self._db.all(sql.EXISTING_VOTES, (
            self._db.param(start), self._db.param(end)))}

    def deals_in_nweek(self, nweek: int) -> list[NweekDeal]:
        return [NweekDeal(seq, name, card, source, period)
                for seq, name, card, source, period in self._db.all(sql.DEALS_IN_NWEEK, (nweek,))
                if card is not None]

    def report(self, nweek: int) -> ReportRecord | None:
        row = self._db.one(sql.REPORT, (nweek,))
        return None if row is None else ReportRecord(*row)

    def latest_report(self) -> int | None:
        row = self._db.one(sql.LATEST_REPORT)
        return None if row is None or row[0] is None else int(row[0])

    def secret(self, period: int) -> str | None:
        row = self._db.one(sql.SECRET, (period,))
        return None if row is None else str(row[0])


def _connect_sqlite(url: str) -> Any:
    import sqlite3

    path = sqlite_path(url)
    if path is None:
        raise DatabaseError(f"database {display_url(url)}: an in-memory SQLite database holds "
                            "no game")
    if not Path(path).exists():
        raise DatabaseError(f"no database at {display_url(url)}: run `nomic-cards init` "
                            "(or pass --db / set NOMIC_CARDS_DB)")
    # autocommit mode: the transaction is begun and ended here, explicitly
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


def _connect_postgres(url: str) -> Any:
    import psycopg

    conninfo = "postgresql://" + url.split("://", 1)[1]
    return psycopg.connect(conninfo, autocommit=True, connect_timeout=CLI_CONNECT_TIMEOUT,
                           keepalives=1, keepalives_idle=KEEPALIVE["keepalives_idle"],
                           keepalives_interval=KEEPALIVE["keepalives_interval"],
                           keepalives_count=KEEPALIVE["keepalives_count"])


def _errors(postgres: bool) -> tuple[type[BaseException], type[BaseException]]:
    """(the driver's operational error, its base error)."""
    if postgres:
        import psycopg

        return psycopg.OperationalError, psycopg.Error
    import sqlite3

    return sqlite3.OperationalError, sqlite3.Error


@contextmanager
def plain_read(url: str, *, actor: str = "cli", clock: Clock | None = None,
               check_schema: bool = False) -> Iterator[PlainReadUnit]:
    """A read-only snapshot transaction on a new connection to ``url`` (a URL as made by
    :func:`.urls.resolve_url`); with ``check_schema`` the schema revision is checked first,
    in the same transaction."""
    postgres = not url.startswith("sqlite")
    operational, base = _errors(postgres)
    where = display_url(url)
    try:
        conn = _connect_postgres(url) if postgres else _connect_sqlite(url)
    except operational as exc:
        raise DatabaseError(f"cannot reach database {where}: {first_line(exc)}") from None
    except base as exc:
        raise DatabaseError(f"cannot read database {where}: {first_line(exc)}") from None
    try:
        cur = conn.cursor()
        db = _Db(cur, postgres)
        try:
            cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" if postgres
                        else "BEGIN")
            if check_schema:
                require_current(db, where)
        except operational as exc:
            raise DatabaseError(f"cannot reach database {where}: {first_line(exc)}") from None
        except base as exc:
            raise _error_for(exc)(f"cannot read database {where}: {first_line(exc)}"
                                f"{permission_hint(exc)}") from None
        try:
            yield PlainReadUnit(db, actor=actor, clock=clock or SystemClock())
            cur.execute("COMMIT")
        except operational as exc:
            raise DatabaseError(f"database {where} failed: {first_line(exc)}") from None
        except base as exc:
            raise _error_for(exc)(f"database error: {first_line(exc)}{permission_hint(exc)}") \
                from None
    finally:
        conn.close()


def current_revision(db: _Db, where: str) -> str | None:
    """The schema revision (None when there is none yet); see :mod:`.migrate`."""
    exists = db.one(sql.REVISION_TABLE_POSTGRESQL if db.postgres else sql.REVISION_TABLE_SQLITE)
    if exists is None or not exists[0]:
        return None
    return one_revision([str(r[0]) for r in db.all(sql.REVISION)], where)


def require_current(db: _Db, where: str) -> None:
    require_revision(current_revision(db, where), where)


def _error_for(exc: BaseException) -> type[DatabaseError]:
    return PermissionDenied if permission_refused(exc) else DatabaseError
