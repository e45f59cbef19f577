"""The projector: write an event's effects into the query tables.

It works from the event payload (and the player ids of the state), independently of the fold
in :mod:`nomic_cards.ledger.replay`, so that ``verify`` comparing the two catches either being
wrong — or a table edited by hand.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from nomic_cards.cards import CARDS_PER_PACK
from nomic_cards.ledger import events as ev
from nomic_cards.ledger.events import parse_time
from nomic_cards.ledger.state import State
from nomic_cards.store import models as m


def _pid(state: State, name: str | None) -> int | None:
    return None if name is None else state.players[name].id


def _add_pack(s: Session, number: int, name: str, back: str, seq: int) -> None:
    s.execute(insert(m.Pack).values(number=number, name=name, back=back, added_seq=seq))
    first = number * CARDS_PER_PACK
    cards = [
        {"number": first + suit * 13 + rank, "pack": number, "suit": suit, "rank": rank}
        for suit in range(4) for rank in range(1, 14)
    ]
    s.execute(insert(m.Card), cards)
    s.execute(insert(m.Ownership),
              [{"card": c["number"], "holder_id": None, "since_seq": seq} for c in cards])


def _register(s: Session, state: State, name: str, email: str | None, seq: int) -> None:
    s.execute(insert(m.Player).values(
        id=state.players[name].id, name=name, email=email, active=True, joined_seq=seq,
    ))


def _move(s: Session, cards: list[int], holder: int | None, seq: int) -> None:
    if cards:
        s.execute(update(m.Ownership).where(m.Ownership.card.in_(cards))
                  .values(holder_id=holder, since_seq=seq))


def project(s: Session, state: State, seq: int, kind: str, p: dict[str, Any]) -> None:
    """Write event ``seq`` (already applied to ``state``) into the projection tables."""
    if kind == ev.GAME_CREATED:
        settings = p.get("settings") or {}
        if settings:
            s.execute(insert(m.Setting),
                      [{"key": k, "value": str(v)} for k, v in settings.items()])
        for number, pack in enumerate(p["packs"]):
            _add_pack(s, number, pack["name"], pack["back"], seq)
        _register(s, state, p["dealer"], p.get("dealer_email"), seq)
        s.execute(insert(m.DealerTerm).values(
            id=1, player_id=_pid(state, p["dealer"]), start_seq=seq, end_seq=None))
    elif kind == ev.PLAYER_REGISTERED:
        _register(s, state, p["name"], p.get("email"), seq)
    elif kind == ev.PLAYER_EMAIL_SET:
        s.execute(update(m.Player).where(m.Player.name == p["name"]).values(email=p["email"]))
    elif kind == ev.PLAYER_RETIRED:
        s.execute(update(m.Player).where(m.Player.name == p["name"])
                  .values(active=False, retired_seq=seq))
        _move(s, p.get("returned", []), None, seq)
    elif kind == ev.DEALER_ELECTED:
        s.execute(update(m.DealerTerm).where(m.DealerTerm.end_seq.is_(None)).values(end_seq=seq))
        s.execute(insert(m.DealerTerm).values(
            id=len(state.dealer_terms), player_id=_pid(state, p["name"]), start_seq=seq))
        _move(s, p.get("merged", []), None, seq)
    elif kind == ev.PACK_ADDED:
        _add_pack(s, p["number"], p["name"], p["back"], seq)
    elif kind == ev.DICE_COMMITTED:
        s.execute(insert(m.DicePeriod).values(
            id=p["period"], commitment=p["commitment"], opened_seq=seq, rolls_used=0))
    elif kind == ev.DICE_REVEALED:
        s.execute(update(m.DicePeriod).where(m.DicePeriod.id == p["period"])
                  .values(revealed_seed=p["seed"], revealed_seq=seq))
    elif kind == ev.CARD_DEALT:
        pid = _pid(state, p["player"])
        _move(s, [p["card"]], pid, seq)
        s.execute(insert(m.Deal).values(
            seq=seq, player_id=pid, card=p["card"], reason=p["reason"], refused=None,
            nweek=p.get("nweek")))
        s.execute(insert(m.Roll), [
            {"deal_seq": seq, "position": i, "value": r["value"], "sides": r["sides"],
             "source": r["source"], "period_id": r.get("period"), "roll_index": r.get("index")}
            for i, r in enumerate(p["rolls"])
        ])
        used: dict[int, int] = {}
        for r in p["rolls"]:
            if r.get("period") is not None:
                used[r["period"]] = max(used.get(r["period"], 0), r["index"] + 1)
        for period, n in used.items():
            s.execute(update(m.DicePeriod).where(m.DicePeriod.id == period)
                      .values(rolls_used=n))
        s.execute(insert(m.Notice).values(seq=seq, player_id=pid, text=p["notice"]))
    elif kind == ev.DEAL_REFUSED:
        s.execute(insert(m.Deal).values(
            seq=seq, player_id=_pid(state, p["player"]), card=None, reason=p["reason"],
            refused=p["refused"], nweek=p.get("nweek")))
    elif kind == ev.CARD_TRANSFERRED:
        _move(s, [p["card"]], _pid(state, p["to"]), seq)
    elif kind == ev.NOTICE_SENT:
        s.execute(update(m.Notice).where(m.Notice.seq == p["notice"]).values(sent_seq=seq))
    elif kind == ev.CLOCK_STOPPED:
        stop = state.clock_stops[-1]
        s.execute(insert(m.ClockInterval).values(
            id=len(state.clock_stops), stopped_at=stop.stopped_at, stop_seq=seq))
    elif kind == ev.CLOCK_STARTED:
        stop = state.clock_stops[-1]
        s.execute(update(m.ClockInterval).where(m.ClockInterval.id == len(state.clock_stops))
                  .values(started_at=stop.started_at, start_seq=seq))
    elif kind == ev.VOTES_RECORDED:
        if p["votes"]:
            s.execute(insert(m.Vote), [
                {"seq": seq, "player_id": _pid(state, v["player"]), "proposal": v["proposal"],
                 "at": parse_time(v["at"])} for v in p["votes"]
            ])
    elif kind == ev.NWEEK_STARTED:
        s.execute(insert(m.Nweek).values(nweek=p["nweek"], started_seq=seq))
    elif kind == ev.REPORT_PUBLISHED:
        r = p["rendered"]
        s.execute(insert(m.Report).values(nweek=p["nweek"], published_seq=seq, text=r["text"],
                                          markdown=r["markdown"], json=r["json"]))
    else:  # pragma: no cover - apply() has already refused unknown kinds
        raise ValueError(f"no projection for event kind {kind!r}")
