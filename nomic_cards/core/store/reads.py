"""Narrow reads for the server's hot paths: one query each, no replay, no whole-state load.

Each function takes the unit of work's session and returns plain typed rows; the use cases in
``core/services/`` shape them into results.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
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


def head(s: Session) -> tuple[int, str]:
    """The ledger head: the last event's number and hash."""
    row = s.execute(select(m.LedgerHead.seq, m.LedgerHead.hash)
                    .where(m.LedgerHead.id == 1)).one()
    return int(row[0]), str(row[1])


def token_and_hand(s: Session, selector: str
                   ) -> tuple[TokenRow | None, list[HeldCard], tuple[int, str]]:
    """The token with ``selector`` and its player, that player's cards and the ledger head, in
    one round trip (no token: None and no cards, the same query run)."""
    t, p, o, c, k, h = (m.PlayerToken, m.Player, m.Ownership, m.Card, m.Pack, m.LedgerHead)
    q = (select(p.name, p.active, t.verifier_sha256, t.revoked_at, o.card, k.name, h.seq,
                h.hash)
         .select_from(h)
         .outerjoin(t, t.selector == selector)
         .outerjoin(p, p.id == t.player_id)
         .outerjoin(o, o.holder_id == p.id)
         .outerjoin(c, c.number == o.card)
         .outerjoin(k, k.number == c.pack)
         .where(h.id == 1)
         .order_by(o.card))
    rows = s.execute(q).all()
    first = rows[0]
    at = (int(first[6]), str(first[7]))
    if first[0] is None:
        return None, [], at
    token = TokenRow(str(first[0]), bool(first[1]), str(first[2]), first[3] is not None)
    cards = [HeldCard(int(r[4]), str(r[5])) for r in rows if r[4] is not None]
    return token, cards, at


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
