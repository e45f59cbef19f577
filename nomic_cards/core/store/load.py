"""Read the projection tables back into a :class:`~nomic_cards.core.ledger.state.State`.

Everyday units of work load only the live part (settings, packs, players, the Dealer, card
ownership, dice periods); ``verify`` also loads the history tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import String, cast, select
from sqlalchemy import null as sql_null
from sqlalchemy.orm import Session

from nomic_cards.core.ledger.events import Opening, StoredEvent, utc
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
    State,
    VoteRecord,
)
from nomic_cards.core.store import models as m


def load_state(session: Session, *, history: bool = False) -> State:
    state = State(history=history)
    head = session.get(m.LedgerHead, 1)
    if head is not None:
        state.seq, state.head_hash = head.seq, head.hash
    state.settings = {k: v for k, v in session.execute(select(m.Setting.key, m.Setting.value))}
    for number, name, back, added in session.execute(
        select(m.Pack.number, m.Pack.name, m.Pack.back, m.Pack.added_seq).order_by(m.Pack.number)
    ):
        state.packs.append(PackState(number, name, back, added))
    names: dict[int, str] = {}
    for p in session.scalars(select(m.Player).order_by(m.Player.id)):
        state.players[p.name] = PlayerState(
            p.id, p.name, p.email, p.active, p.joined_seq, p.retired_seq
        )
        names[p.id] = p.name
    for t in session.scalars(select(m.DealerTerm).order_by(m.DealerTerm.id)):
        state.dealer_terms.append(DealerTermState(names[t.player_id], t.start_seq, t.end_seq))
    for card, holder, since in session.execute(
        select(m.Ownership.card, m.Ownership.holder_id, m.Ownership.since_seq)
    ):
        owner = None if holder is None else names.get(holder, f"#{holder}")
        state.owner[card] = owner
        state.owner_seq[card] = since
        if owner is None:
            state.deck.add(card)
    for d in session.scalars(select(m.DicePeriod)):
        state.periods[d.id] = PeriodState(
            d.id, d.commitment, d.opened_seq, d.revealed_seed, d.revealed_seq, d.rolls_used
        )
    for c in session.scalars(select(m.ClockInterval).order_by(m.ClockInterval.id)):
        state.clock_stops.append(ClockStop(
            utc(c.stopped_at), c.stop_seq, utc(c.started_at) if c.started_at else None,
            c.start_seq))
    state.nweeks = {n: seq for n, seq in session.execute(select(m.Nweek.nweek,
                                                                m.Nweek.started_seq))}
    if history:
        _load_history(session, state, names)
    return state


def _load_history(session: Session, state: State, names: dict[int, str]) -> None:
    rolls: dict[int, list[RollRecord]] = {}
    # plain rows, not ORM objects: a long game has hundreds of thousands of votes
    r = m.Roll
    for seq, pos, value, sides, source, period, index in session.execute(
        select(r.deal_seq, r.position, r.value, r.sides, r.source, r.period_id, r.roll_index)
        .order_by(r.deal_seq, r.position)
    ):
        rolls.setdefault(seq, []).append(RollRecord(pos, value, sides, source, period, index))
    d = m.Deal
    for seq, pid, card, reason, refused, nweek in session.execute(
        select(d.seq, d.player_id, d.card, d.reason, d.refused, d.nweek).order_by(d.seq)
    ):
        state.deals.append(DealRecord(seq, names.get(pid, f"#{pid}"), card, reason, refused,
                                      tuple(rolls.get(seq, ())), nweek))
    n = m.Notice
    for seq, pid, text, sent, failed, failed_to in session.execute(
        select(n.seq, n.player_id, n.text, n.sent_seq, n.failed_seq, n.failed_to).order_by(n.seq)
    ):
        state.notices[seq] = NoticeRecord(seq, names.get(pid, f"#{pid}"), text, sent, failed,
                                          failed_to)
    v = m.Vote
    state.votes.extend(
        VoteRecord(seq, names.get(pid, f"#{pid}"), proposal, utc(at))
        for seq, pid, proposal, at in session.execute(
            select(v.seq, v.player_id, v.proposal, v.at).order_by(v.id))
    )
    for rep in session.scalars(select(m.Report).order_by(m.Report.nweek)):
        state.reports[rep.nweek] = ReportRecord(rep.nweek, rep.published_seq, rep.text,
                                                rep.markdown, rep.json)


def _time(value: object) -> datetime | None:
    """A stored time; None when the stored value is not a time (a row edited by hand)."""
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, str):
        try:
            return utc(datetime.fromisoformat(value))
        except ValueError:
            return None
    return None


def to_stored(row: m.Event, private: m.EventPrivate | None = None) -> StoredEvent:
    opening = None if private is None else Opening(private.nonce, private.data)
    return StoredEvent(row.seq, utc(row.at), row.actor, row.kind, row.subject, row.payload,
                       row.private, row.prev_hash, row.hash, opening)


def iter_events(session: Session, *, batch: int = 2000,
                private: bool = True) -> Iterator[StoredEvent]:
    """Every event row in sequence order, as stored, streamed in batches; with ``private``,
    each with its private part. Reads plain values, so that a row edited by hand into
    something the model would refuse (a time that is not one) still comes out, for ``verify``
    to report."""
    e, p = m.Event, m.EventPrivate
    raw_at = e.at if session.get_bind().dialect.name != "sqlite" else cast(e.at, String)
    cols = [e.seq, raw_at, e.actor, e.kind, e.subject, e.payload, e.private, e.prev_hash,
            e.hash]
    last = 0
    while True:
        q = select(*cols, p.nonce, p.data).outerjoin(p, p.seq == e.seq) if private else \
            select(*cols, sql_null(), sql_null())
        rows = session.execute(q.where(e.seq > last).order_by(e.seq).limit(batch)).all()
        if not rows:
            return
        for row in rows:
            values: tuple[Any, ...] = tuple(row)
            seq, at, actor, kind, subject, payload, commit, prev, digest, nonce, data = values
            opening = Opening(nonce, data) if nonce is not None and data is not None else None
            yield StoredEvent(seq, _time(at), actor, kind, subject, payload, commit, prev,
                              digest, opening)
            last = seq
