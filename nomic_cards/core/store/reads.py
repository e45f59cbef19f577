"""Narrow reads for the server's hot paths: one query each, no replay, no whole-state load.

Each function takes the unit of work's session and returns plain typed rows; the use cases in
``core/services/`` shape them into results.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.orm import Session

from nomic_cards.core.ledger.events import utc
from nomic_cards.core.store import models as m


@dataclass(frozen=True)
class TokenRow:
    player: str
    active: bool
    verifier_sha256: str
    revoked: bool


@dataclass(frozen=True)
class HeldCard:
    number: int
    pack: str


_T, _P, _O, _C, _K, _H = (m.PlayerToken, m.Player, m.Ownership, m.Card, m.Pack,
                          m.LedgerHead)
#: Built once: the ledger head.
HEAD = select(_H.seq, _H.hash).where(_H.id == 1)
#: Built once: a token, its player, the player's cards and the ledger head, in one round trip
#: (the head row always comes back, so an unknown selector runs the same query).
TOKEN_AND_HAND = (
    select(_P.name, _P.active, _T.verifier_sha256, _T.revoked_at, _O.card, _K.name, _H.seq,
           _H.hash)
    .select_from(_H)
    .outerjoin(_T, _T.selector == bindparam("selector"))
    .outerjoin(_P, _P.id == _T.player_id)
    .outerjoin(_O, _O.holder_id == _P.id)
    .outerjoin(_C, _C.number == _O.card)
    .outerjoin(_K, _K.number == _C.pack)
    .where(_H.id == 1)
    .order_by(_O.card))


_M, _DT = m.CardMove, m.DealerTerm
_LATER = _M.__table__.alias("later")
#: Built once: the cards a player held as of an event, from ``card_moves`` (each card's last
#: move at or before the event put it in the player's hand).
HAND_AS_OF = (
    select(_M.card, _K.name)
    .join(_P, _P.id == _M.holder_id)
    .join(_C, _C.number == _M.card)
    .join(_K, _K.number == _C.pack)
    .where(_P.name == bindparam("player"), _M.seq <= bindparam("seq"),
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

    def token_and_hand(self, selector: str
                       ) -> tuple[TokenRow | None, list[HeldCard], tuple[int, str]]:
        """The token with ``selector``, its player's cards, and the ledger head."""
        rows = self.conn.execute(TOKEN_AND_HAND, {"selector": selector}).all()
        first = rows[0]
        at = (int(first[6]), str(first[7]))
        if first[0] is None:
            return None, [], at
        token = TokenRow(str(first[0]), bool(first[1]), str(first[2]), first[3] is not None)
        return token, [HeldCard(int(r[4]), str(r[5])) for r in rows if r[4] is not None], at


def head(s: Session) -> tuple[int, str]:
    """The ledger head: the last event's number and hash."""
    row = s.execute(HEAD).one()
    return int(row[0]), str(row[1])


def token(s: Session, selector: str) -> TokenRow | None:
    t, p = m.PlayerToken, m.Player
    row = s.execute(select(p.name, p.active, t.verifier_sha256, t.revoked_at)
                    .join(p, p.id == t.player_id).where(t.selector == selector)).first()
    if row is None:
        return None
    return TokenRow(str(row[0]), bool(row[1]), str(row[2]), row[3] is not None)


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
    rolls: tuple[tuple[int, int, str, int | None, int | None], ...]  # value, sides, source...


def notices_of(s: Session, player: str) -> list[NoticeRow]:
    """A player's private notices, each with the rolls of its deal."""
    n, p, e, r = m.Notice, m.Player, m.Event, m.Roll
    rows = s.execute(select(n.seq, e.at, n.text, n.sent_seq)
                     .join(p, p.id == n.player_id).join(e, e.seq == n.seq)
                     .where(p.name == player).order_by(n.seq)).all()
    if not rows:
        return []
    rolls: dict[int, list[tuple[int, int, str, int | None, int | None]]] = {}
    for seq, value, sides, source, period, index in s.execute(
            select(r.deal_seq, r.value, r.sides, r.source, r.period_id, r.roll_index)
            .where(r.deal_seq.in_([row[0] for row in rows]))
            .order_by(r.deal_seq, r.position)):
        rolls.setdefault(int(seq), []).append((value, sides, source, period, index))
    return [NoticeRow(int(seq), utc(at), str(text), sent is not None,
                      tuple(rolls.get(int(seq), ()))) for seq, at, text, sent in rows]


def reports_index(s: Session) -> list[tuple[int, int, datetime]]:
    """(nweek, publishing event, its time) of every published report, newest first."""
    rp, e = m.Report, m.Event
    return [(int(a), int(b), utc(c)) for a, b, c in s.execute(
        select(rp.nweek, rp.published_seq, e.at).join(e, e.seq == rp.published_seq)
        .order_by(rp.nweek.desc()))]
