"""Narrow reads for the server's hot paths: one query each, no replay, no whole-state load.

Each function takes the unit of work's session and returns plain typed rows; the use cases in
``core/services/`` shape them into results.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Row, bindparam, func, select
from sqlalchemy.orm import Session

from nomic_cards.core.ledger.events import utc
from nomic_cards.core.store import models as m

if TYPE_CHECKING:
    from nomic_cards.core.store.keys import KeyRow


@dataclass(frozen=True)
class TokenRow:
    player: str
    active: bool
    verifier_sha256: str
    revoked: bool
    player_id: int
    scope: str | None = None  # None: the player's own token; "dealer": an officer token


@dataclass(frozen=True)
class HeldCard:
    number: int
    pack: str


_T, _P, _O, _C, _K, _H = (m.PlayerToken, m.Player, m.Ownership, m.Card, m.Pack,
                          m.LedgerHead)
#: Built once: the ledger head.
HEAD = select(_H.seq, _H.hash).where(_H.id == 1)
#: Built once: a token and its player, by selector. Always one row (the ledger head's, with
#: the token's columns empty when no token has the selector), so that a known and an unknown
#: selector cost the same fetch.
TOKEN = (select(_P.name, _P.active, _T.verifier_sha256, _T.revoked_at, _P.id, _T.scope)
         .select_from(_H)
         .outerjoin(_T, _T.selector == bindparam("selector"))
         .outerjoin(_P, _P.id == _T.player_id)
         .where(_H.id == 1))
#: Built once: a player's cards and the ledger head, in one statement (so the hand and the
#: event it is as of come from one snapshot; the head row always comes back).
HAND_AND_HEAD = (
    select(_O.card, _K.name, _H.seq, _H.hash)
    .select_from(_H)
    .outerjoin(_O, _O.holder_id == bindparam("player_id"))
    .outerjoin(_C, _C.number == _O.card)
    .outerjoin(_K, _K.number == _C.pack)
    .where(_H.id == 1)
    .order_by(_O.card))


def _token_row(row: Row[str, bool, str, datetime | None, int, str | None] | None
               ) -> TokenRow | None:
    if row is None or row[0] is None:
        return None
    return TokenRow(str(row[0]), bool(row[1]), str(row[2]), row[3] is not None, int(row[4]),
                    None if row[5] is None else str(row[5]))
_M, _DT = m.CardMove, m.DealerTerm
_LATER = _M.__table__.alias("later")
#: Built once: the cards a player held as of an event, from ``card_moves`` (each card's last
#: move at or before the event put it in the player's hand, and its pack was in play).
HAND_AS_OF = (
    select(_M.card, _K.name)
    .join(_P, _P.id == _M.holder_id)
    .join(_C, _C.number == _M.card)
    .join(_K, _K.number == _C.pack)
    .where(_P.name == bindparam("player"), _M.seq <= bindparam("seq"),
           _K.retired_seq.is_(None) | (_K.retired_seq > bindparam("seq")),
           ~select(_LATER.c.seq).where(_LATER.c.card == _M.card, _LATER.c.seq > _M.seq,
                                       _LATER.c.seq <= bindparam("seq")).exists())
    .order_by(_M.card))


class Reader:
    """Narrow reads on one connection, in a read-only transaction (``Game.reader()``)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def head(self) -> tuple[int, str]:
        row = self.conn.execute(HEAD).one()
        return int(row[0]), str(row[1])

    def first_hash(self) -> str:
        """The hash of the ledger's first event (it names the game; '' for an empty ledger)."""
        row = self.conn.execute(select(m.Event.hash).where(m.Event.seq == 1)).first()
        return "" if row is None else str(row[0])

    def token(self, selector: str) -> TokenRow | None:
        """The token with ``selector`` and its player (one indexed lookup), or None."""
        return _token_row(self.conn.execute(TOKEN, {"selector": selector}).first())

    def hand_and_head(self, player_id: int) -> tuple[list[HeldCard], tuple[int, str]]:
        """A player's cards and the ledger head, from one statement."""
        rows = self.conn.execute(HAND_AND_HEAD, {"player_id": player_id}).all()
        at = (int(rows[0][2]), str(rows[0][3]))
        return [HeldCard(int(r[0]), str(r[1])) for r in rows if r[0] is not None], at
    def last_event_at(self, at: datetime) -> int:
        """The last event recorded at or before ``at`` (0: none)."""
        return int(self.conn.execute(select(func.coalesce(func.max(m.Event.seq), 0))
                                     .where(m.Event.at <= utc(at))).scalar_one())

    def joined_seq(self, player: str) -> int | None:
        """The event that registered ``player`` (None: no such player)."""
        found = self.conn.execute(select(_P.joined_seq).where(_P.name == player)).scalar()
        return None if found is None else int(found)

    def dealer_at(self, seq: int) -> str | None:
        """The Dealer as of event ``seq``."""
        found = self.conn.execute(
            select(_P.name).join(_DT, _DT.player_id == _P.id)
            .where(_DT.start_seq <= seq, (_DT.end_seq.is_(None)) | (_DT.end_seq > seq))).scalar()
        return None if found is None else str(found)

    def hand_as_of(self, player: str, seq: int) -> list[HeldCard]:
        """The cards ``player`` held as of event ``seq`` (one query on ``card_moves``)."""
        return [HeldCard(int(card), str(pack)) for card, pack in self.conn.execute(
            HAND_AS_OF, {"player": player, "seq": seq})]

    def events_after(self, after: int, limit: int) -> list[PublicRow]:
        """Up to ``limit`` events after event ``after``, public columns only."""
        return events_after(self.conn, after, limit)

    def notices_in(self, player_id: int, after: int, last: int) -> dict[int, str]:
        """A player's own notices recorded by the events after ``after`` up to ``last``."""
        return notices_in(self.conn, player_id, after, last)

    def all_notices_in(self, after: int, last: int) -> dict[int, dict[int, str]]:
        """Every notice recorded by the events after ``after`` up to ``last``: event ->
        player id -> text."""
        out: dict[int, dict[int, str]] = {}
        for seq, player_id, text in self.conn.execute(
                select(_N.seq, _N.player_id, _N.text).where(_N.seq > after, _N.seq <= last)):
            out.setdefault(int(seq), {})[int(player_id)] = str(text)
        return out

    def idempotency_key(self, player_id: int, key: str) -> KeyRow | None:
        """A player's Idempotency-Key as stored, or None."""
        from nomic_cards.core.store.keys import find

        return find(self.conn, player_id, key)

    def players_by(self, seq: int) -> list[str]:
        """The names of the players registered at or before event ``seq``."""
        return [str(n) for n in self.conn.execute(
            select(_P.name).where(_P.joined_seq <= seq).order_by(_P.id)).scalars()]


def head(s: Session) -> tuple[int, str]:
    """The ledger head: the last event's number and hash."""
    row = s.execute(HEAD).one()
    return int(row[0]), str(row[1])


def token(s: Session, selector: str) -> TokenRow | None:
    """The token with ``selector`` and its player, or None."""
    return _token_row(s.execute(TOKEN, {"selector": selector}).first())


@dataclass(frozen=True)
class BackCountRow:
    holder: str | None  # None: the Deck
    pack: int
    cards: int


def counts_by_back(s: Session) -> list[BackCountRow]:
    """How many cards of each pack each player holds (and the Deck: holder None)."""
    o, c, p = m.Ownership, m.Card, m.Player
    q = (select(p.name, c.pack, func.count())
         .select_from(o).join(c, c.number == o.card).outerjoin(p, p.id == o.holder_id)
         .group_by(p.name, c.pack))
    return [BackCountRow(r[0], int(r[1]), int(r[2])) for r in s.execute(q)]


@dataclass(frozen=True)
class NoticeRow:
    seq: int
    at: datetime
    text: str
    sent: bool
    rolls: int  # how many rolls the deal took (0: not a deal)
    dice: str | None  # the dice source of the deal


def notices_of(s: Session, player: str) -> list[NoticeRow]:
    """A player's private notices, each with how many rolls its deal took and the dice source
    (never the rolled numbers: a reroll names a card that is in someone else's hand)."""
    n, p, e, r = m.Notice, m.Player, m.Event, m.Roll
    rows = s.execute(select(n.seq, e.at, n.text, n.sent_seq)
                     .join(p, p.id == n.player_id).join(e, e.seq == n.seq)
                     .where(p.name == player).order_by(n.seq)).all()
    if not rows:
        return []
    rolls: dict[int, tuple[int, str]] = {
        int(seq): (int(count), str(source)) for seq, count, source in s.execute(
            select(r.deal_seq, func.count(), func.min(r.source))
            .where(r.deal_seq.in_([row[0] for row in rows]))
            .group_by(r.deal_seq))}
    return [NoticeRow(int(seq), utc(at), str(text), sent is not None,
                      *rolls.get(int(seq), (0, None))) for seq, at, text, sent in rows]


def event_at(s: Session, when: datetime) -> int:
    """The number of the last event recorded at or before ``when`` (0: none); events are
    recorded in time order."""
    found = s.execute(select(func.max(m.Event.seq)).where(m.Event.at <= when)).scalar()
    return int(found or 0)


def reports_index(s: Session) -> list[tuple[int, int, datetime]]:
    """(nweek, publishing event, its time) of every published report, newest first."""
    rp, e = m.Report, m.Event
    return [(int(a), int(b), utc(c)) for a, b, c in s.execute(
        select(rp.nweek, rp.published_seq, e.at).join(e, e.seq == rp.published_seq)
        .order_by(rp.nweek.desc()))]


@dataclass(frozen=True)
class PublicRow:
    """An event's public columns (never its private part)."""

    seq: int
    at: datetime
    actor: str
    kind: str
    subject: str | None
    payload: str


_E, _N = m.Event, m.Notice
EVENTS_AFTER = (select(_E.seq, _E.at, _E.actor, _E.kind, _E.subject, _E.payload)
                .where(_E.seq > bindparam("after")).order_by(_E.seq).limit(bindparam("limit")))
NOTICES_IN = (select(_N.seq, _N.text).where(_N.player_id == bindparam("player_id"),
                                            _N.seq > bindparam("after"),
                                            _N.seq <= bindparam("last")))


def events_after(conn: Connection, after: int, limit: int) -> list[PublicRow]:
    """Up to ``limit`` events after event ``after``, public columns only."""
    return [PublicRow(int(r[0]), utc(r[1]), str(r[2]), str(r[3]), r[4], str(r[5]))
            for r in conn.execute(EVENTS_AFTER, {"after": after, "limit": limit})]


def notices_in(conn: Connection, player_id: int, after: int, last: int) -> dict[int, str]:
    """The player's own notices recorded by events ``after`` < seq <= ``last``."""
    return {int(seq): str(text) for seq, text in conn.execute(
        NOTICES_IN, {"player_id": player_id, "after": after, "last": last})}


def votes_of(s: Session, player: str) -> list[tuple[int, str, datetime]]:
    """(event, proposal, time) of each vote recorded for ``player``, in time order."""
    v, p = m.Vote, m.Player
    q = (select(v.seq, v.proposal, v.at).join(p, p.id == v.player_id)
         .where(p.name == player).order_by(v.at, v.id))
    return [(int(seq), str(prop), utc(at)) for seq, prop, at in s.execute(q)]


def vote_deals_of(s: Session, player: str) -> list[tuple[int, str, str]]:
    """(event, reason, the player's notice of it) of each card dealt to ``player`` for votes
    (Cards for Votes). The card is named by the notice (the server's account reads the
    player's notices, never ``deals.card``)."""
    d, p, n = m.Deal, m.Player, m.Notice
    q = (select(d.seq, d.reason, n.text).join(p, p.id == d.player_id)
         .join(n, n.seq == d.seq)
         .where(p.name == player, d.reason.like("Cards for Votes: voted in nweek %"))
         .order_by(d.seq))
    return [(int(seq), str(reason), str(text)) for seq, reason, text in s.execute(q)]
