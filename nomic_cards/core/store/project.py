"""The projector: write the changes a fold made into the query tables.

It works from the :data:`~nomic_cards.core.ledger.state.Change` records the state's methods
produced while an event was applied, one kind of change per table; event kinds are unknown
here, so a new kind of event needs no projection code. ``verify`` compares a from-scratch
replay with the tables read back, which catches a table edited by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from sqlalchemy import Table, bindparam, delete, insert, update
from sqlalchemy.orm import Session

from nomic_cards.cards import spoon_card
from nomic_cards.core.ledger import state as st
from nomic_cards.core.ledger.chain import canonical_json
from nomic_cards.core.store import models as m
from nomic_cards.core.store.base import Base


def _pid(state: st.State, name: str | None) -> int | None:
    return None if name is None else state.players[name].id


_NO_SYNC = MappingProxyType({"synchronize_session": False})


def table(model: type[Base]) -> Table:
    """The table behind a model: statements on it run as plain SQL, without the ORM's
    per-statement bookkeeping (the hot writes below are built once and only bound)."""
    t = model.__table__
    assert isinstance(t, Table)
    return t


_OWN, _PERIOD, _NOTICE = table(m.Ownership), table(m.DicePeriod), table(m.Notice)
MOVE_CARDS = (update(_OWN).where(_OWN.c.card.in_(bindparam("b_cards", expanding=True)))
              .values(holder_id=bindparam("b_holder"), since_seq=bindparam("b_since")))
UPDATE_PERIOD = update(_PERIOD).where(_PERIOD.c.id == bindparam("b_id"))
INSERT_DEAL, INSERT_ROLL = insert(table(m.Deal)), insert(table(m.Roll))
INSERT_MOVE = insert(table(m.CardMove))
INSERT_NOTICE, INSERT_VOTE = insert(_NOTICE), insert(table(m.Vote))
INSERT_RULE_CHANGE = insert(table(m.RuleChange))
MARK_NOTICE = update(_NOTICE).where(_NOTICE.c.seq == bindparam("b_seq"))


def _coalesce(changes: Iterable[st.Change]) -> list[st.Change]:
    """Each row written once: repeated puts of one player, Dealer term, dice period or Clock stop
    carry the same live object, so the first (an insert if the row is new) writes its final
    values and the rest are dropped."""
    out: list[st.Change] = []
    where: set[tuple[str, int]] = set()
    for c in changes:
        match c:
            case st.PlayerPut():
                key = ("player", c.player.id)
            case st.DealerTermPut():
                key = ("term", c.number)
            case st.PeriodPut():
                key = ("period", c.period.id)
            case st.ClockStopPut():
                key = ("stop", c.number)
            case _:
                out.append(c)
                continue
        if key not in where:  # later puts of the row: the first write has its final values
            where.add(key)
            out.append(c)
    return out


def project(s: Session, state: st.State, changes: Iterable[st.Change]) -> None:
    """Write ``changes`` (made to ``state`` by the events just applied) into the tables."""
    for c in _coalesce(changes):
        match c:
            case st.SettingsSet():
                if c.settings:
                    s.execute(insert(m.Setting),
                              [{"key": k, "value": str(v)} for k, v in c.settings.items()])
            case st.PackPut():
                p = c.pack
                s.execute(insert(m.Pack).values(number=p.number, name=p.name, back=p.back,
                                                added_seq=p.added_seq))
                faces = [(n, spoon_card(n)) for n in c.cards]
                s.execute(insert(m.Card), [
                    {"number": n, "pack": pack, "suit": int(face.suit), "rank": int(face.rank)}
                    for n, (pack, face) in faces])
                s.execute(insert(m.Ownership), [
                    {"card": n, "holder_id": None, "since_seq": p.added_seq} for n in c.cards])
                s.execute(INSERT_MOVE, [
                    {"card": n, "seq": p.added_seq, "holder_id": None} for n in c.cards])
            case st.PackRetiredChange():
                s.execute(update(m.Pack).where(m.Pack.number == c.pack.number)
                          .values(retired_seq=c.pack.retired_seq), execution_options=_NO_SYNC)
                s.execute(delete(m.Ownership).where(m.Ownership.card.in_(c.cards)),
                          execution_options=_NO_SYNC)
            case st.PlayerPut():
                pl = c.player
                values = {"name": pl.name, "email": pl.email, "active": pl.active,
                          "joined_seq": pl.joined_seq, "retired_seq": pl.retired_seq}
                if c.new:
                    s.execute(insert(m.Player).values(id=pl.id, **values))
                else:
                    s.execute(update(m.Player).where(m.Player.id == pl.id).values(**values),
                              execution_options=_NO_SYNC)
            case st.DealerTermPut():
                t = c.term
                if c.new:
                    s.execute(insert(m.DealerTerm).values(
                        id=c.number, player_id=_pid(state, t.player), start_seq=t.start_seq,
                        end_seq=t.end_seq))
                else:
                    s.execute(update(m.DealerTerm).where(m.DealerTerm.id == c.number)
                              .values(end_seq=t.end_seq), execution_options=_NO_SYNC)
            case st.CardsMoved():
                holder = _pid(state, c.owner)
                s.execute(MOVE_CARDS, {"b_cards": list(c.cards), "b_holder": holder,
                                       "b_since": c.seq})
                s.execute(INSERT_MOVE, [{"card": n, "seq": c.seq, "holder_id": holder}
                                        for n in c.cards])
            case st.PeriodPut():
                per = c.period
                values = {"commitment": per.commitment, "opened_seq": per.opened_seq,
                          "revealed_seed": per.revealed_seed, "revealed_seq": per.revealed_seq,
                          "rolls_used": per.rolls_used}
                if c.new:
                    s.execute(insert(m.DicePeriod).values(id=per.id, **values))
                else:
                    s.execute(UPDATE_PERIOD, {"b_id": per.id, **values})
            case st.DealAdded():
                d = c.deal
                s.execute(INSERT_DEAL, {
                    "seq": d.seq, "player_id": _pid(state, d.player), "card": d.card,
                    "reason": d.reason, "refused": d.refused, "nweek": d.nweek})
                if d.rolls:
                    s.execute(INSERT_ROLL, [
                        {"deal_seq": d.seq, "position": r.position, "value": r.value,
                         "sides": r.sides, "source": r.source, "period_id": r.period,
                         "roll_index": r.index} for r in d.rolls])
            case st.NoticeAdded():
                n = c.notice
                s.execute(INSERT_NOTICE, {
                    "seq": n.seq, "player_id": _pid(state, n.player), "text": n.text,
                    "sent_seq": n.sent_seq, "failed_seq": n.failed_seq,
                    "failed_to": n.failed_to})
            case st.NoticeMarkedSent():
                s.execute(MARK_NOTICE, {"b_seq": c.notice, "sent_seq": c.sent_seq})
            case st.NoticeMarkedFailed():
                s.execute(MARK_NOTICE, {"b_seq": c.notice, "failed_seq": c.failed_seq,
                                        "failed_to": c.failed_to})
            case st.ClockStopPut():
                k = c.stop
                if c.new:
                    s.execute(insert(m.ClockInterval).values(
                        id=c.number, stopped_at=k.stopped_at, stop_seq=k.stop_seq,
                        started_at=k.started_at, start_seq=k.start_seq))
                else:
                    s.execute(update(m.ClockInterval).where(m.ClockInterval.id == c.number)
                              .values(started_at=k.started_at, start_seq=k.start_seq),
                              execution_options=_NO_SYNC)
            case st.VotesAdded():
                s.execute(INSERT_VOTE, [
                    {"seq": v.seq, "player_id": _pid(state, v.player), "proposal": v.proposal,
                     "at": v.at} for v in c.votes])
            case st.NweekMarked():
                s.execute(insert(m.Nweek).values(nweek=c.nweek, started_seq=c.seq))
            case st.ReportAdded():
                r = c.report
                s.execute(insert(m.Report).values(nweek=r.nweek, published_seq=r.seq,
                                                  text=r.text, markdown=r.markdown,
                                                  json=r.json))
            case st.RuleChangeAdded():
                rc = c.change
                s.execute(INSERT_RULE_CHANGE, {
                    "seq": rc.seq, "rule": rc.rule, "action": rc.action,
                    "in_force": rc.in_force, "version": rc.version,
                    "params": canonical_json(dict(rc.params)), "proposal": rc.proposal,
                    "from_nweek": rc.from_nweek})
