"""Every read of the game's tables: :class:`Reads`, over a DB-API cursor, for SQLite and
PostgreSQL alike, its SQL text in :mod:`.sql`.

A read runs in a transaction of :mod:`.connect` (a snapshot, or one narrow statement); a writing
transaction (:class:`~.writes.Tx`) is a ``Reads`` too, on its own cursor. The state is loaded
from the projection tables by :func:`load_state`, the one loader.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from nomic_cards.core.clock import Clock
from nomic_cards.core.ledger.codec import to_record
from nomic_cards.core.ledger.events import EventRecord, Opening, StoredEvent, utc
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
    RollRecord,
    RuleChange,
    State,
    StrengthState,
    VoteRecord,
)
from nomic_cards.core.ruleset import ParamValue
from nomic_cards.core.store import sql
from nomic_cards.core.store.schema import one_revision
from nomic_cards.errors import DatabaseError

if TYPE_CHECKING:
    from nomic_cards.core.store.connect import Cursor


@dataclass(frozen=True)
class NweekDeal:
    """A card dealt in an nweek: the deal's event, who got it, the card, and the dice that
    dealt it (the source, and the period of committed-seed dice)."""

    seq: int
    player: str
    card: int
    source: str
    period: int | None
    #: why it was dealt (a Cards for Votes deal names the ballot that earned it)
    reason: str = ""


@dataclass(frozen=True)
class TokenRow:
    player: str
    active: bool
    verifier_sha256: str
    revoked: bool
    player_id: int
    scope: str | None = None  # None: the player's own token; "dealer": an officer token


@dataclass(frozen=True)
class KeyRow:
    """A player's ``Idempotency-Key`` as stored: the body's hash, the events the action
    recorded, and its first answer (None until written)."""

    body_sha256: str
    seqs: tuple[int, ...]
    status: int | None
    response: str | None


@dataclass(frozen=True)
class PublicRow:
    """An event's public columns (never its private part)."""

    seq: int
    at: datetime
    actor: str
    kind: str
    subject: str | None
    payload: str


@dataclass(frozen=True)
class DecisionRow:
    """A decision as ``decision list`` reads it."""

    id: str
    opened_seq: int
    opened_at: datetime
    closes: datetime
    params: dict[str, Any]
    resolved_seq: int | None
    outcome: str | None
    ballots: int


@dataclass(frozen=True)
class HeldCard:
    number: int
    pack: str


@dataclass(frozen=True)
class BackCountRow:
    holder: str | None  # None: the Deck
    pack: int
    cards: int


@dataclass(frozen=True)
class NoticeRow:
    seq: int
    at: datetime
    text: str
    sent: bool
    rolls: int  # how many rolls the deal took (0: not a deal)
    dice: str | None  # the dice source of the deal


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
class Db:
    """One open connection and how to talk to it."""

    cur: Cursor
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

    def run(self, text: str, params: Sequence[Any] = ()) -> None:
        """A statement whose result is not read (a writing transaction's, or the ledger
        lock), sent with the next statement (on PostgreSQL in the same round trip:
        :class:`.connect.Cursor`)."""
        self.cur.later(self.q(text), params)

    def many(self, text: str, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`run`, once for each of ``rows``."""
        self.cur.later_many(self.q(text), rows)

    def batch(self, texts: Sequence[str | tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The rows of each of several statements (a text, or a text and its parameters), run
        in order: on PostgreSQL in one round trip (:meth:`.connect.Cursor.batch`), on SQLite
        one after another."""
        return self.cur.batch([(self.q(t), ()) if isinstance(t, str) else (self.q(t[0]), t[1])
                               for t in texts])


def _public(r: Sequence[Any]) -> PublicRow:
    """An event's public columns, as ``EVENTS_AFTER`` and ``LAST_OF_KIND`` select them."""
    return PublicRow(int(r[0]), _need_time(r[1]), str(r[2]), str(r[3]), r[4], str(r[5]))


def _stored(row: Sequence[Any]) -> StoredEvent:
    seq, at, actor, kind, subject, payload, commit, prev, digest, nonce, data = row
    opening = Opening(nonce, data) if nonce is not None and data is not None else None
    return StoredEvent(seq, stored_time(at), actor, kind, subject, payload, commit, prev, digest,
                       opening)


def live_reads(*, emails: bool = True) -> list[str]:
    """The statements :func:`state_from` builds the live state from, the head first."""
    return [sql.HEAD, sql.SETTINGS, sql.PACKS, sql.PLAYERS if emails else sql.PLAYERS_PUBLIC,
            sql.DEALER_TERMS, sql.OWNERSHIP, sql.DICE_PERIODS, sql.CLOCK_INTERVALS, sql.NWEEKS,
            sql.RULE_CHANGES, sql.GAME_DATA, sql.DECISIONS, sql.OPEN_BALLOTS, sql.STRENGTHS]


def load_state(db: Db, *, history: bool = False, emails: bool = True) -> State:
    """The state from the projection tables: the live part (settings, packs, players, the
    Dealer, card ownership, dice periods, Clock stops, nweeks), and with ``history`` the deals,
    rolls, notices, votes, reports and card moves too (for ``verify``). Without ``emails`` the
    players' addresses are not read (they are None): the server's account may not read them.
    The live part's statements go in one batch (:meth:`Db.batch`: one round trip on
    PostgreSQL)."""
    return state_from(db, db.batch(live_reads(emails=emails)), history=history)


def state_from(db: Db, rows: Sequence[list[Any]], *, history: bool = False) -> State:
    """The state from the rows of :func:`live_reads` (and, with ``history``, what
    :func:`load_state` says, read now)."""
    (head_rows, settings, packs, players, terms, ownership, periods, intervals, nweeks,
     changes, games_data, decisions, ballots, strengths) = rows
    state = State(history=history)
    if head_rows:
        state.seq, state.head_hash = head_rows[0][0], head_rows[0][1]
    state.settings = {k: v for k, v in settings}
    for number, name, back, added, retired in packs:
        state.packs.append(PackState(number, name, back, added, retired))
    names: dict[int, str] = {}
    for pid, name, email, active, joined, retired in players:
        state.players[name] = PlayerState(pid, name, email, bool(active), joined, retired)
        names[pid] = name
    for pid, start, end in terms:
        state.dealer_terms.append(DealerTermState(names[pid], start, end))
    for card, holder, since in ownership:
        owner = None if holder is None else names.get(holder, f"#{holder}")
        state.owner[card] = owner
        state.owner_seq[card] = since
        if owner is None:
            state.deck.add(card)
    for pid, commit, opened, seed, revealed, used in periods:
        state.periods[pid] = PeriodState(pid, commit, opened, seed, revealed, used)
    for stopped, stop_seq, started, start_seq in intervals:
        state.clock_stops.append(ClockStop(
            _need_time(stopped), stop_seq,
            _need_time(started) if started is not None else None, start_seq))
    state.nweeks = {n: seq for n, seq in nweeks}
    for seq, at, rule, action, in_force, version, params, proposal, first in changes:
        change = RuleChange(seq, _need_time(at), rule, action, bool(in_force), version,
                            _params(params), proposal, first)
        state.rule_changes.append(change)
        state.rules[rule] = change
    _load_owed(db, state)
    for name, data in games_data:
        state.games_data[name] = json.loads(data)
    for did, opened, opened_at, closes, params, resolved, outcome, reminded in decisions:
        state.decisions[did] = DecisionState(did, opened, _need_time(opened_at),
                                             _need_time(closes), json.loads(params), resolved,
                                             outcome, reminded)
    for pid, strength, reason, seq in strengths:
        state.strengths[names.get(pid, f"#{pid}")] = StrengthState(strength, reason, seq)
    if history:
        _load_history(db, state, names)
    else:
        for row in ballots:
            _add_ballot(state, names, row)
    return state


def _add_ballot(state: State, names: dict[int, str], row: Sequence[Any]) -> None:
    """A ballot's row into the state: the history's list, and its decision's standing ones."""
    seq, did, pid, at, option, endorse, as_cast, source, comment, replaced = row
    ballot = BallotState(seq, did, names.get(pid, f"#{pid}"), _need_time(at), option,
                         None if endorse is None else names.get(endorse, f"#{endorse}"),
                         as_cast, source, comment, replaced)
    if state.history:
        state.ballots.append(ballot)
    if replaced is None and did in state.decisions:
        state.decisions[did].ballots[ballot.player] = ballot


def _load_owed(db: Db, state: State) -> None:
    """Cards for Votes owed later, from the ``nweek.started`` events and the late votes owed
    (``votes.recorded``, ``ballot.cast``) since ``absent=owe`` was first in force (none to read
    in a game that never owed any)."""
    since = min((c.seq for c in state.rule_changes if c.rule == "cards-for-votes"
                 and c.params.get("absent") == "owe"), default=None)
    if since is None:
        return
    for _seq, kind, payload in db.all(sql.OWED_AFTER, (since, "nweek.started",
                                                       "votes.recorded", "ballot.cast",
                                                       '%"owed":%')):
        data = json.loads(payload)
        if kind != "nweek.started":
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


def _load_history(db: Db, state: State, names: dict[int, str]) -> None:
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
    for row in db.all(sql.BALLOTS):
        _add_ballot(state, names, row)
    for nweek, published, text, markdown, js in db.all(sql.REPORTS):
        state.reports[nweek] = ReportRecord(nweek, published, text, markdown, js)
    state.moves = {(seq, card, None if holder is None else names.get(holder, f"#{holder}"))
                   for seq, card, holder in db.all(sql.CARD_MOVES)}


def key_row(row: Sequence[Any] | None) -> KeyRow | None:
    """An ``idempotency_keys`` row as :data:`sql.TOKEN_AND_KEY` selects it last (None:
    none)."""
    if row is None:
        return None
    return KeyRow(str(row[0]), tuple(int(n) for n in json.loads(row[1])),
                  None if row[2] is None else int(row[2]),
                  None if row[3] is None else str(row[3]))


def token_row(row: Sequence[Any] | None) -> TokenRow | None:
    """A token's row as :data:`sql.TOKEN` selects it first (None: no such token)."""
    if row is None or row[0] is None:
        return None
    return TokenRow(str(row[0]), bool(row[1]), str(row[2]), row[3] is not None,
                    int(row[4]), None if row[5] is None else str(row[5]))


class Reads:
    """Every read of the game's tables, on one DB-API cursor, inside whatever transaction its
    connection is in (a read's snapshot, or a writing :class:`~.writes.Tx`). Without ``emails``
    the players' addresses are not read (the server's account may not read them)."""

    def __init__(self, cursor: Cursor, *, postgres: bool, actor: str, clock: Clock,
                 emails: bool = True) -> None:
        self.db = Db(cursor, postgres)
        self.actor = actor
        self.clock = clock
        self.emails = emails
        self._state: State | None = None

    #: whether the state records what changes (a writing transaction's does)
    _tracks = False

    @property
    def state(self) -> State:
        """The live state (no history), loaded on first use."""
        if self._state is None:
            self._state = load_state(self.db, emails=self.emails)
            self._state.track = self._tracks
        return self._state

    def naming(self) -> State:
        """What an event's public sentence names its cards by: the live state when it is
        loaded, else a state holding the packs alone (one statement)."""
        if self._state is not None:
            return self._state
        state = State(history=False)
        state.packs = [PackState(*row) for row in self.db.all(sql.PACKS)]
        return state

    def revision(self, where: str) -> str | None:
        """The schema revision (None: none yet); ``where`` names the database in errors."""
        exists = self.db.one(sql.REVISION_TABLE_POSTGRESQL if self.db.postgres
                              else sql.REVISION_TABLE_SQLITE)
        if exists is None or not exists[0]:
            return None
        return one_revision([str(r[0]) for r in self.db.all(sql.REVISION)], where)

    def full_state(self) -> State:
        """The projections including history (deals, rolls, notices, votes, reports)."""
        return load_state(self.db, history=True, emails=self.emails)

    def stored_events(self, *, private: bool = True) -> Iterator[StoredEvent]:
        """Every event row as stored, streamed in batches, with its private part unless
        ``private`` is false (the public record). Plain values, so that a row edited by hand
        into something that is not a time still comes out, for ``verify`` to report."""
        text = sql.EVENTS_PRIVATE if private else sql.EVENTS_PUBLIC
        last, batch = 0, 2000
        while True:
            rows = self.db.all(text, (last, batch))
            if not rows:
                return
            for row in rows:
                yield _stored(row)
                last = row[0]

    def events(self) -> Iterator[EventRecord]:
        """Every event, decoded (raises :class:`EventDecodeError` on a row that is not)."""
        return (to_record(row) for row in self.stored_events())

    def recent_events(self, *, subject: str | None = None, limit: int = 20,
                      kinds: tuple[str, ...] = ()) -> list[EventRecord]:
        """The newest ``limit`` events (of ``subject``, of ``kinds``), oldest first."""
        where: list[str] = []
        params: list[Any] = []
        if subject is not None:
            where.append(sql.RECENT_BY_SUBJECT)
            params.append(subject)
        if kinds:
            where.append(sql.RECENT_BY_KIND.format(marks=", ".join("?" * len(kinds))))
            params.extend(kinds)
        text = sql.RECENT_EVENTS.format(where="WHERE " + " AND ".join(where) if where else "")
        rows = self.db.all(text, (*params, limit))
        return [to_record(_stored(r)) for r in reversed(rows)]

    def events_from(self, start: datetime, end: datetime | None,
                    kinds: tuple[str, ...]) -> list[EventRecord]:
        """The events of ``kinds`` dated in [start, end) (no end: from ``start`` on), in
        ledger order, with their private parts."""
        params: list[Any] = [self.db.param(start)]
        if end is not None:
            params.append(self.db.param(end))
        text = sql.EVENTS_FROM.format(until=sql.EVENTS_UNTIL if end is not None else "",
                                      marks=", ".join("?" * len(kinds)))
        return [to_record(_stored(r)) for r in self.db.all(text, (*params, *kinds))]

    def event_at(self, seq: int) -> EventRecord | None:
        """Event ``seq``, if there is one."""
        row = self.db.one(sql.EVENT_AT, (seq,))
        return None if row is None else to_record(_stored(row))

    def event_time(self, seq: int) -> datetime | None:
        """When event ``seq`` was recorded, if there is one."""
        row = self.db.one(sql.EVENT_TIME, (seq,))
        return None if row is None else _need_time(row[0])

    def event_heads(self, seqs: Sequence[int]) -> dict[int, tuple[str, str | None]]:
        """The chain hash and the public subject of each of the given events."""
        out: dict[int, tuple[str, str | None]] = {}
        for i in range(0, len(seqs), 500):
            part = list(seqs[i:i + 500])
            text = sql.EVENT_HEADS.format(marks=", ".join("?" * len(part)))
            out.update((int(seq), (str(h), None if subject is None else str(subject)))
                       for seq, h, subject in self.db.all(text, part))
        return out

    def notice_sent(self, seq: int) -> bool:
        """Whether the notice recorded by event ``seq`` is recorded as sent."""
        row = self.db.one(sql.NOTICE_SENT, (seq,))
        return row is not None and row[0] is not None

    def card_rows(self) -> list[tuple[int, int, int, int]]:
        """(number, pack, suit, rank) of every card, by number."""
        return [(int(a), int(b), int(c), int(d)) for a, b, c, d in self.db.all(sql.CARD_ROWS)]

    def voters_between(self, start: datetime, end: datetime) -> list[str]:
        """Names of the players with at least one vote or ballot at a time in [start, end),
        sorted."""
        s, e = self.db.param(start), self.db.param(end)
        return sorted(r[0] for r in self.db.all(sql.VOTERS_BETWEEN, (s, e, s, e)))

    def first_ballots(self, start: datetime, end: datetime) -> dict[str, tuple[str, int]]:
        """Each player's first ballot cast in [start, end): the decision and its event."""
        out: dict[str, tuple[str, int]] = {}
        for name, decision, seq in self.db.all(sql.FIRST_BALLOTS, (
                self.db.param(start), self.db.param(end))):
            out.setdefault(str(name), (str(decision), int(seq)))
        return out

    def existing_votes(self, start: datetime, end: datetime, player_ids: Sequence[int]
                       ) -> set[tuple[str, str, datetime]]:
        """(player, proposal, time) of the votes of the players ``player_ids`` recorded in
        [start, end] (theirs only: a vote at a busy second reads no one else's)."""
        ids = sorted(set(player_ids))
        if not ids:
            return set()
        text = f"{sql.EXISTING_VOTES} AND votes.player_id IN ({', '.join('?' * len(ids))})"
        return {(n, p, _need_time(a)) for n, p, a in self.db.all(text, (
            self.db.param(start), self.db.param(end), *ids))}

    def deals_in_nweek(self, nweek: int) -> list[NweekDeal]:
        """The cards dealt in ``nweek``, in event order, with the dice that dealt them."""
        return [NweekDeal(seq, name, card, source, period, reason)
                for seq, name, card, source, period, reason in self.db.all(sql.DEALS_IN_NWEEK,
                                                                           (nweek,))
                if card is not None]

    def report(self, nweek: int) -> ReportRecord | None:
        """The report published for ``nweek``."""
        row = self.db.one(sql.REPORT, (nweek,))
        return None if row is None else ReportRecord(*row)

    def latest_report(self) -> int | None:
        """The newest nweek with a published report."""
        row = self.db.one(sql.LATEST_REPORT)
        return None if row is None or row[0] is None else int(row[0])

    def secret(self, period: int) -> str | None:
        """The secret seed of a committed-seed dice period, while it is kept."""
        row = self.db.one(sql.SECRET, (period,))
        return None if row is None else str(row[0])



    # --- narrow reads (the server's hot paths): one statement each, no state loaded --------

    def head(self) -> tuple[int, str]:
        """The ledger head: the last event's number and hash."""
        row = self.db.one(sql.HEAD)
        return (0, "") if row is None else (int(row[0]), str(row[1]))

    def first_hash(self) -> str:
        """The hash of the ledger's first event (it names the game; '' for an empty ledger)."""
        row = self.db.one(sql.FIRST_HASH)
        return "" if row is None else str(row[0])

    def last_event_at(self, at: datetime) -> int:
        """The last event recorded at or before ``at`` (0: none)."""
        return int(self.db.one(sql.LAST_EVENT_AT, (self.db.param(at),))[0])

    def token(self, selector: str) -> TokenRow | None:
        """The token with ``selector`` and its player (one indexed lookup), or None."""
        return token_row(self.db.one(sql.TOKEN, (selector,)))

    def received_by_games(self, start: datetime, end: datetime | None, core: Sequence[str]
                          ) -> list[tuple[int, int, str, str, str | None]]:
        """(event, card, receiver, kind, giver or None for the Deck) of every card that came
        into a Hand in [start, end) by an event of a kind other than the two ``core`` ones."""
        until = end if end is not None else datetime(9999, 1, 1, tzinfo=UTC)
        return [(int(seq), int(card), str(name), str(kind), None if giver is None else str(giver))
                for seq, card, name, kind, giver in self.db.all(sql.RECEIVED_BY_GAMES, (
                    self.db.param(start), self.db.param(until), *core))]

    def kinds(self) -> set[str]:
        """Every kind of event the ledger holds."""
        return {str(r[0]) for r in self.db.all(sql.KINDS)}

    def live_selectors(self, selectors: Sequence[str]) -> set[str]:
        """Which of ``selectors`` name a token still live (not revoked, of an active
        player)."""
        out: set[str] = set()
        items = sorted(set(selectors))
        for i in range(0, len(items), 500):
            part = items[i:i + 500]
            text = sql.TOKENS_LIVE.format(marks=", ".join("?" * len(part)))
            out.update(str(r[0]) for r in self.db.all(text, part))
        return out

    def token_and_hand(self, selector: str, verifier_sha256: str
                       ) -> tuple[TokenRow | None, list[HeldCard], tuple[int, str], bool]:
        """The token with ``selector`` (None: no such token), and, if ``verifier_sha256`` is
        its verifier's hash, its player's cards (else none), with the ledger head and whether
        the player is the Dealer now: one statement, one snapshot."""
        rows = self.db.all(sql.TOKEN_HAND, (selector, verifier_sha256))
        first = rows[0]
        token = None if first[0] is None else TokenRow(
            str(first[0]), bool(first[1]), str(first[2]), first[3] is not None, int(first[4]),
            None if first[5] is None else str(first[5]))
        return (token, [HeldCard(int(r[6]), str(r[7])) for r in rows if r[6] is not None],
                (int(first[8]), str(first[9])), bool(first[10]))

    def joined_seq(self, player: str) -> int | None:
        """The event that registered ``player`` (None: no such player)."""
        row = self.db.one(sql.JOINED_SEQ, (player,))
        return None if row is None else int(row[0])

    def dealer_at(self, seq: int) -> str | None:
        """The Dealer as of event ``seq``."""
        row = self.db.one(sql.DEALER_AT, (seq, seq))
        return None if row is None else str(row[0])

    def hand_as_of(self, player: str, seq: int) -> list[HeldCard]:
        """The cards ``player`` held as of event ``seq`` (one query on ``card_moves``), of the
        packs then in play."""
        return [HeldCard(int(card), str(pack))
                for card, pack in self.db.all(sql.HAND_AS_OF, (player, seq, seq, seq))]

    def players_by(self, seq: int) -> list[str]:
        """The names of the players registered at or before event ``seq``."""
        return [str(r[0]) for r in self.db.all(sql.PLAYERS_BY, (seq,))]

    def counts_by_back(self) -> list[BackCountRow]:
        """How many cards of each pack each player holds (and the Deck: holder None)."""
        return [BackCountRow(None if name is None else str(name), int(pack), int(count))
                for name, pack, count in self.db.all(sql.COUNTS_BY_BACK)]

    def notices_of(self, player: str) -> list[NoticeRow]:
        """A player's private notices, each with how many rolls its deal took and the dice
        source (never the rolled numbers: a reroll names a card that is in someone else's
        hand)."""
        rows = self.db.all(sql.NOTICES_OF, (player,))
        rolls: dict[int, tuple[int, str]] = {}
        seqs = [int(r[0]) for r in rows]
        for i in range(0, len(seqs), 500):
            part = seqs[i:i + 500]
            text = sql.ROLL_COUNTS.format(marks=", ".join("?" * len(part)))
            rolls.update((int(seq), (int(count), str(source)))
                         for seq, count, source in self.db.all(text, part))
        return [NoticeRow(int(seq), _need_time(at), str(text), sent is not None,
                          *rolls.get(int(seq), (0, None))) for seq, at, text, sent in rows]

    def reports_index(self) -> list[tuple[int, int, datetime]]:
        """(nweek, publishing event, its time) of every published report, newest first."""
        return [(int(n), int(seq), _need_time(at))
                for n, seq, at in self.db.all(sql.REPORTS_INDEX)]

    def tokens(self, player: str | None = None
               ) -> list[tuple[str, str, datetime, datetime | None, str | None]]:
        """(player, selector, issued, revoked or None, scope or None) of the tokens (of
        ``player``), newest first."""
        if player is None:
            rows = self.db.all(sql.TOKENS.format(where=""))
        else:
            rows = self.db.all(sql.TOKENS.format(where=sql.TOKENS_OF), (player,))
        return [(str(n), str(sel), _need_time(at), None if rv is None else _need_time(rv),
                 None if sc is None else str(sc))
                for n, sel, at, rv, sc in rows]

    def events_after(self, after: int, limit: int) -> list[PublicRow]:
        """Up to ``limit`` events after event ``after``, public columns only."""
        return [_public(r) for r in self.db.all(sql.EVENTS_AFTER, (after, limit))]

    def events_before(self, before: int, limit: int) -> list[PublicRow]:
        """Up to ``limit`` events before event ``before``, newest first, public columns
        only."""
        return [_public(r) for r in self.db.all(sql.EVENTS_BEFORE, (before, limit))]

    def decision_rows(self) -> list[DecisionRow]:
        """Every decision, oldest first, each with the number of ballots standing on it."""
        return [DecisionRow(str(r[0]), int(r[1]), _need_time(r[2]), _need_time(r[3]),
                            json.loads(r[4]), r[5], r[6], int(r[8]))
                for r in self.db.all(sql.DECISION_ROWS)]

    def decision_with_ballots(self, id: str) -> DecisionState | None:
        """Decision ``id`` with the ballots standing on it (None: no such decision)."""
        r = self.db.one(sql.DECISION, (id,))
        if r is None:
            return None
        decision = DecisionState(str(r[0]), int(r[1]), _need_time(r[2]), _need_time(r[3]),
                                 json.loads(r[4]), r[5], r[6], r[7])
        names = {p.id: p.name for p in self.state.players.values()}
        for row in self.db.all(sql.BALLOTS_ON, (id,)):
            seq, _did, pid, at, option, endorse, as_cast, source, comment, _replaced = row
            decision.ballots[names[pid]] = BallotState(
                seq, id, names[pid], _need_time(at), option,
                None if endorse is None else names[endorse], as_cast, source, comment)
        return decision

    def last_public(self, kind: str) -> PublicRow | None:
        """The newest event of ``kind``, public columns only (never its private part)."""
        r = self.db.one(sql.LAST_OF_KIND, (kind,))
        return None if r is None else _public(r)

    def notices_in(self, player_id: int, after: int, last: int) -> dict[int, str]:
        """A player's own notices recorded by the events after ``after`` up to ``last``."""
        return {int(seq): str(text)
                for seq, text in self.db.all(sql.NOTICES_IN, (player_id, after, last))}

    def all_notices_in(self, after: int, last: int) -> dict[int, dict[int, str]]:
        """Every notice recorded by the events after ``after`` up to ``last``: event ->
        player id -> text."""
        out: dict[int, dict[int, str]] = {}
        for seq, player_id, text in self.db.all(sql.ALL_NOTICES_IN, (after, last)):
            out.setdefault(int(seq), {})[int(player_id)] = str(text)
        return out

    def votes_of(self, player: str) -> list[tuple[int, str, datetime]]:
        """(event, proposal, time) of each vote recorded for ``player``, in time order."""
        return [(int(seq), str(prop), _need_time(at))
                for seq, prop, at in self.db.all(sql.VOTES_OF, (player,))]

    def vote_deals_of(self, player: str) -> list[tuple[int, str, str]]:
        """(event, reason, the player's notice of it) of each card dealt to ``player`` for
        votes (Cards for Votes). The card is named by the notice (the server's account reads
        the player's notices, never ``deals.card``)."""
        return [(int(seq), str(reason), str(text)) for seq, reason, text in self.db.all(
            sql.VOTE_DEALS_OF, (player, "Cards for Votes: voted in nweek %"))]

    # --- mail in -------------------------------------------------------------------------

    def mail_message(self, *, id: int | None = None,
                     message_id: str | None = None) -> MailRow | None:
        """The message received with this number or this Message-ID, or None."""
        if id is not None:
            return mail_row(self.db.one(sql.MAIL_BY_ID, (id,)))
        return mail_row(self.db.one(sql.MAIL_BY_MESSAGE_ID, (message_id,)))

    def mail_messages(self, status: str | None = None, *, limit: int = 1000) -> list[MailRow]:
        """The messages received: of ``status``, oldest first; else every one, newest
        first."""
        rows = (self.db.all(sql.MAIL_LIST, (limit,)) if status is None
                else self.db.all(sql.MAIL_LIST_BY_STATUS, (status, limit)))
        return [r for r in (mail_row(row) for row in rows) if r is not None]

    def mail_receipts(self, state: str) -> list[MailRow]:
        """The messages whose receipt is in ``state`` (``due``: to be sent), oldest first."""
        return [r for r in (mail_row(row) for row in self.db.all(sql.MAIL_RECEIPTS, (state,)))
                if r is not None]

    def mail_raw(self, id: int) -> bytes | None:
        """The raw message number ``id`` as it was received."""
        row = self.db.one(sql.MAIL_RAW, (id,))
        return None if row is None else bytes(row[0])


@dataclass(frozen=True)
class MailRow:
    """A message received by mail, as ``mail_messages`` keeps it (the raw message apart:
    :meth:`Reads.mail_raw`); ``reading``, ``outcome`` and ``seqs`` are the stored JSON."""

    id: int
    message_id: str
    received_at: datetime
    via: str
    sender: str | None
    player: str | None
    subject: str
    status: str
    reason: str
    auth: str
    reading: str
    outcome: str | None
    seqs: str
    private: bool
    size: int
    raw_sha256: str
    decided_at: datetime | None
    decided_by: str | None
    receipt: str | None
    receipt_note: str | None


def mail_row(row: Sequence[Any] | None) -> MailRow | None:
    """A row of the ``sql.MAIL_*`` statements."""
    if row is None:
        return None
    (id, mid, at, via, sender, player, subject, status, reason, auth, reading, outcome, seqs,
     private, size, digest, decided_at, decided_by, receipt, note) = row
    return MailRow(int(id), str(mid), _need_time(at), str(via),
                   None if sender is None else str(sender), None if player is None else str(player),
                   str(subject), str(status), str(reason), str(auth), str(reading),
                   None if outcome is None else str(outcome), str(seqs), bool(private), int(size),
                   str(digest), stored_time(decided_at), None if decided_by is None
                   else str(decided_by), None if receipt is None else str(receipt),
                   None if note is None else str(note))
