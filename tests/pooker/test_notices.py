"""Told in time: a private notice whenever something waits for a Player of Pooker -- a Motion
pending (to each Player who may vote, with its deadline), a Showdown open (to each Player with
PCards, with its deadline), an offer naming em, an offer about to lapse (a day before), a result
(to each shower), a Motion failed (to its mover) -- each saying what, why, when and by when; the
notices to the side an offer names name em to no one else."""

from __future__ import annotations

import json

import pytest
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.errors import RuleViolation
from tests.game_time import moment as day
from tests.helpers import sql
from tests.pooker.support import fund, give, head

DEALER = "PurpleBob"


@pytest.fixture
def pg(pg: Nomic) -> Nomic:
    """ann, ben and cat with 100 Points each (and the Dealer, PurpleBob)."""
    fund(pg, "ann", "ben", "cat", n=100)
    return pg


def told(game: Nomic, after: int = 0) -> list[tuple[str, str]]:
    """(player, text) of each notice recorded after event ``after``, in order."""
    with game.read() as tx:
        return [(n.player, n.text) for n in sorted(api.notices(tx), key=lambda n: n.event)
                if n.event > after]


def lines(text: str) -> dict[str, str]:
    """A notice's lines by their label (``what`` for the first)."""
    first, *rest = text.splitlines()
    return {"what": first, **{k: v for k, _, v in (r.partition(": ") for r in rest)}}


def test_a_motion_tells_each_player_who_may_vote_by_when(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    before = head(pg)
    with pg.write() as tx:
        pooker.motion(tx, "ann")
    notes = told(pg, before)
    assert [p for p, _ in notes] == sorted(["ann", "ben", "cat", DEALER])  # every active Player
    by = {p: lines(t) for p, t in notes}
    assert by["ben"]["what"] == "ann made Motion 1 to Show Cards: vote on it"
    assert by["ann"]["what"] == "your Motion 1 to Show Cards is pending: vote on it"
    # voting ends motion-days (3) after the Motion: the deadline the notice gives
    assert {v["By"] for v in by.values()} == {"2026-01-04T12:00:00Z"}
    assert "a majority of the 4 Players for it opens a Showdown" in by["cat"]["Why"]
    assert by["cat"]["When"] == "2026-01-01T12:00:00Z"


def test_a_failed_motion_tells_its_mover_why(pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", False)
    before = head(pg)
    clock.move_to(day(4))  # voting ended at day 3.5 without a majority for it
    with pg.write() as tx:
        api.tick(tx)
    notes = [(p, lines(t)) for p, t in told(pg, before)]
    assert [(p, n["what"]) for p, n in notes] == [("ann", "your Motion 1 to Show Cards failed")]
    assert notes[0][1]["Why"].startswith("its voting ended without a majority for it (0 yes, "
                                         "1 no of 4 Players)")
    assert notes[0][1]["When"] == "2026-01-04T12:00:00Z"  # dated at the window's end


def test_a_showdown_tells_each_player_with_pcards_by_when(pg: Nomic) -> None:
    give(pg, "ann", "Red As", "Red Ks")
    give(pg, "ben", "Blue 2c")
    before = head(pg)  # cat holds no PCard; the Dealer may not show
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        for p in ("ann", "ben", "cat"):
            pooker.vote(tx, p, True)
    opened = [(p, lines(t)) for p, t in told(pg, before) if "Showdown 1 is open" in t]
    assert [p for p, _ in opened] == ["ann", "ben"]
    assert opened[0][1]["what"] == "Showdown 1 is open: show your Poker Hands by " \
                                   "2026-01-04T12:00:00Z"
    assert opened[0][1]["By"] == "2026-01-04T12:00:00Z"  # show-days 3
    assert opened[0][1]["Why"].startswith("you hold 2 PCard(s); ")
    assert "return to the Deck when the Showdown closes" in opened[1][1]["Why"]


def test_a_declared_showdown_tells_its_declarer_what_e_must_show(pg: Nomic) -> None:
    with pg.write() as tx:
        api.game_amend(tx, "pooker", ["trigger-pcards=2"], proposal="P9")
    give(pg, "ann", "Red As", "Red Ks")
    before = head(pg)
    with pg.write() as tx:
        pooker.declare(tx, "ann")
    ((player, text),) = told(pg, before)
    assert player == "ann"
    assert "you declared it and must show at least 2 PCards" in lines(text)["Why"]


def test_an_offer_tells_the_side_it_names_and_no_one_else(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd")
    before = head(pg)
    with pg.write() as tx:
        r = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
    ((player, text),) = told(pg, before)
    note = lines(text)
    assert player == "ben"
    assert note["what"] == "ann offers you a trade: eir Red As for your Red Kd"
    assert note["By"] == r.expires == "2026-01-08T12:00:00Z"  # trade-expiry-days 7
    assert f"you may also decline it (event {r.notified})" in note["Why"]
    # the public record says a notice went, not to whom; nor does its notice.sent
    public = json.dumps([e.__dict__ for e in _public_log(pg, before)])
    assert "ben" not in public and "Red" not in public


def _public_log(game: Nomic, after: int) -> list[object]:
    with game.read() as tx:
        return [e for e in api.log(tx, limit=100) if e.event > after]


def test_an_offer_about_to_lapse_reminds_the_side_it_names_once(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd")
    with pg.write() as tx:
        r = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
    before = head(pg)
    clock.move_to(day(6.4))  # the reminder is due a day before the lapse (day 7.5)
    with pg.write() as tx:
        api.tick(tx)
    assert told(pg, before) == []
    clock.move_to(day(6.6))
    with pg.write() as tx:
        api.tick(tx)
    ((player, text),) = told(pg, before)
    assert player == "ben" and lines(text)["what"] == \
        "ann's trade offer to you lapses in a day: eir Red As for your Red Kd"
    assert lines(text)["When"] == "2026-01-07T12:00:00Z"  # dated when it fell due
    assert lines(text)["By"] == r.expires
    rows = sql(pg, "select kind, subject, payload from events where seq > :s", s=before)
    kinds = [k for k, _, _ in rows]
    assert kinds.count("pooker.reminded") == 1
    assert "ben" not in json.dumps([list(r) for r in rows])  # the record names only ann
    after = head(pg)
    with pg.write() as tx:
        api.tick(tx)
    assert told(pg, after) == []  # once
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_no_reminder_for_an_offer_that_lives_a_day_or_less(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    with pg.write() as tx:
        api.game_amend(tx, "pooker", ["trade-expiry-days=1"], proposal="P9")
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd")
    with pg.write() as tx:
        offer = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben").notified
    before = head(pg)
    clock.move_to(day(3))
    with pg.write() as tx:
        api.tick(tx)
    # the lapse alone is told, to both sides: no reminder
    assert [(p, t.splitlines()[0]) for p, t in told(pg, before)] == [
        ("ann", f"your trade notification naming ben lapsed (event {offer}): your Red As "
                "for eir Red Kd"),
        ("ben", f"ann's trade offer to you lapsed (event {offer}): eir Red As for your Red Kd")]
    kinds = [k for (k,) in sql(pg, "select kind from events where seq > :s", s=before)]
    assert "pooker.lapsed" in kinds and "pooker.reminded" not in kinds


def test_a_reminder_before_its_time_is_refused_by_the_replay(pg: Nomic) -> None:
    from nomic_cards.cardgames.pooker import events as ge
    from nomic_cards.core.ledger.state import ReplayError

    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd")
    with pg.write() as tx:
        r = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
    before = head(pg)
    with pytest.raises(ReplayError, match="before its time"), pg.write() as tx:
        tx.record(ge.TradeReminded(r.notified, "ann", "ben"))  # six days early
    assert head(pg) == before


def test_the_close_tells_each_shower_the_result(pg: Nomic,
                                                clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As", "Blue As")
    give(pg, "ben", "Blue 2c")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="P500")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "ben", ["Blue 2c"])
    before = head(pg)
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    result = {p: lines(t) for p, t in told(pg, before)}
    assert set(result) == {"ann", "ben"}
    assert result["ann"]["what"] == "Showdown 1 closed: you scored 5 and won 5 Point(s)"
    assert result["ben"]["what"] == "Showdown 1 closed: you scored 0"
    assert "(won by ann, prize 5)" in result["ben"]["Why"]


def test_refusals_speak_of_the_actions_fields_not_the_command_lines_flags(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    with pytest.raises(RuleViolation) as refused, pg.write() as tx:
        pooker.trade(tx, "ann", ["Blue 9h"], ["Red Kd"], "ben")
    assert str(refused.value) == "give: Blue 9h is not in ann's Hand"
    with pytest.raises(RuleViolation) as refused, pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="P500")
        pooker.show(tx, "ann", ["Blue 9h"])
    assert str(refused.value) == "hands: Blue 9h is not in ann's Hand"
