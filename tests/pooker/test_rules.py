"""Pooker on the ledger (docs/pooker.md): one test per rule of the record (games.md at the root
of the shared materials; the table of docs/rules.md, "Pooker"), named after it, on SQLite and
PostgreSQL; Points; the engine's time-true windows; verifiable Showdowns."""

from __future__ import annotations

import dataclasses
import runpy
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cardgames.pooker import view as pooker_view
from nomic_cards.core import api
from nomic_cards.core.ledger.chain import card_commitment
from nomic_cards.core.ledger.replay import ReplayError, apply_event, replay
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from nomic_cards.errors import InputError, RuleViolation
from tests.conftest import drop_pg_schema, new_pg_schema_url
from tests.game_time import moment as day
from tests.helpers import new_game, scripted
from tests.pooker.support import balances, fund, give, hand

DEALER = "PurpleBob"


# --- Points -------------------------------------------------------------------------------


def test_points_grant_show_history_and_export(pg: Nomic) -> None:
    with pg.write() as tx:
        points.grant_points(tx, "ann", 12, rule="Rule 2: Scorekeeper", note="week 3")
        points.grant_points(tx, "ann", -5, rule="Rule 2: Scorekeeper")
    assert balances(pg) == {"ann": 7, "ben": 0, "cat": 0, DEALER: 0, "Bank": -7}
    with pg.read() as tx:
        moves = points.point_movements(tx)
    assert [(m.source, m.target, m.points, m.rule) for m in moves] == [
        ("Bank", "ann", 12, "Rule 2: Scorekeeper"), ("ann", "Bank", 5, "Rule 2: Scorekeeper")]
    with pg.read() as tx:
        csv = points.points_csv(tx, "2026-01-01")
    assert csv.splitlines()[0] == "event,at,from,to,points,rule,note"
    assert csv.splitlines()[1].endswith(",Bank,ann,12,Rule 2: Scorekeeper,week 3")
    with pg.read() as tx:
        assert points.points_csv(tx, "2026-02-01").splitlines() == [
            "event,at,from,to,points,rule,note"]


def test_points_no_balance_below_zero_unless_a_rule_allows_and_bank_unbounded(
        pg: Nomic) -> None:
    with pytest.raises(RuleViolation, match="holds 0 Point.*cannot pay 3"), pg.write() as tx:
        points.grant_points(tx, "ben", -3, rule="fine")
    with pytest.raises(InputError, match="other than 0"), pg.write() as tx:
        points.grant_points(tx, "ben", 0, rule="fine")
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["points-below-zero=yes"], proposal="P9")
        points.grant_points(tx, "ben", -3, rule="fine")
        points.grant_points(tx, "cat", 10**6, rule="jackpot")  # the Bank has no floor
    assert balances(pg)["ben"] == -3 and balances(pg)["Bank"] == 3 - 10**6
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


# --- Rule 399 and the first proposal: trades ------------------------------------------------


def test_rule_399_pcards_are_the_cards_of_the_packs_bound_to_pooker(pg: Nomic) -> None:
    give(pg, "ann", "Red As", "Blue As", "Fish 2c")
    give(pg, "ben", "Red Kd")
    fund(pg, "ann")
    with pytest.raises(RuleViolation, match="Fish 2c is not a PCard"), pg.write() as tx:
        pooker.trade(tx, "ann", ["Fish 2c"], ["Red Kd"], "ben")
    with pg.write() as tx:
        assert pooker.trade(tx, "ann", ["Blue As"], ["Red Kd"], "ben").traded is None


def test_trade_executed_only_when_both_notifications_describe_the_same_trade(
        pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd", "Blue 2c")
    fund(pg, "ann", "ben")
    with pg.write() as tx:
        first = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
    assert first.traded is None
    with pg.write() as tx:
        other = pooker.trade(tx, "ben", ["Blue 2c"], ["Red As"], "ann")  # not the same trade
    assert other.traded is None
    assert hand(pg, "ann") == {"Red As"}
    with pg.write() as tx:
        done = pooker.trade(tx, "ben", ["Red Kd"], ["Red As"], "ann")
    assert done.traded is not None
    assert hand(pg, "ann") == {"Red Kd"} and hand(pg, "ben") == {"Red As", "Blue 2c"}
    # one event executes it; the public record says who traded how many, not which
    with pg.read() as tx:
        log = api.log(tx, limit=50)
    row = next(r for r in log if r.event == done.traded)
    assert row.summary.startswith("ann and ben traded 1 PCard(s)")
    assert "Red" not in row.summary
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_trade_both_sides_give_the_same_number_of_cards(pg: Nomic) -> None:
    give(pg, "ann", "Red As", "Red Ks")
    fund(pg, "ann")
    with pytest.raises(RuleViolation, match="same number of cards"), pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As,Red Ks"], ["Red Kd"], "ben")


def test_trade_each_side_pays_the_dealer_a_one_point_fee(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd")
    fund(pg, "ann", "ben", n=3)
    with pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
        pooker.trade(tx, "ben", ["Red Kd"], ["Red As"], "ann")
    assert balances(pg) == {"ann": 2, "ben": 2, "cat": 0, DEALER: 2, "Bank": -6}
    with pg.read() as tx:
        fees = [m for m in points.point_movements(tx) if m.target == DEALER]
    assert [(m.source, m.points) for m in fees] == [("ann", 1), ("ben", 1)]


def test_trade_fee_refused_when_a_side_cannot_pay(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    with pytest.raises(RuleViolation, match="cannot pay 1 as the trade fee"), pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")


def test_trading_is_for_pcards_in_eir_hand_and_the_dealer_is_not_a_trader(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    fund(pg, "ann", "ben")
    with pytest.raises(RuleViolation, match="not in ben's Hand"), pg.write() as tx:
        pooker.trade(tx, "ben", ["Red As"], ["Red Kd"], "ann")
    with pytest.raises(RuleViolation, match="is the Dealer"), pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], DEALER)
    with pytest.raises(RuleViolation, match="is the Dealer"), pg.write() as tx:
        pooker.trade(tx, DEALER, ["Red Kd"], ["Red As"], "ann")


def test_unmatched_notification_waits_then_lapses_after_the_expiry_parameter(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As")
    fund(pg, "ann")
    with pg.write() as tx:
        note = pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
        assert [n.event for n in pooker_view.status(tx, reveal=True).pending] == [note.notified]
        assert pooker_view.status(tx).pending == []  # visible to its author and the Dealer only
        assert [n.event for n in pooker_view.status(tx, player="ann").pending] == [note.notified]
        assert pooker_view.status(tx, player="ben").pending == []
    clock.move_to(day(0.5 + 6.9))
    with pg.write() as tx:
        api.tick(tx)
        assert len(pooker_view.status(tx, reveal=True).pending) == 1
    clock.move_to(day(0.5 + 7.1))
    with pg.write() as tx:
        api.tick(tx)
        assert pooker_view.status(tx, reveal=True).pending == []
        lapsed = [r for r in api.log(tx, limit=50) if r.kind == "pooker.lapsed"]
    assert len(lapsed) == 1 and lapsed[0].at.startswith("2026-01-08T12:00:00")
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


# --- Rule 397: Poker Hands and their Scores ------------------------------------------------


def royal(game: Nomic, player: str, pack: str = "Red") -> list[str]:
    cards = [f"{pack} {r}s" for r in ("A", "K", "Q", "J", "10")]
    give(game, player, *cards)
    return cards


def test_rule_397_poker_hands_are_one_to_five_pcards_split_as_the_player_chooses(
        pg: Nomic) -> None:
    cards = royal(pg, "ann")
    give(pg, "ann", "Blue As")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="Motion 1")
    with pytest.raises(InputError, match="1 to 5 PCards, not 6"), pg.write() as tx:
        pooker.show(tx, "ann", [",".join([*cards, "Blue As"])])
    with pg.write() as tx:
        shown = pooker.show(tx, "ann", [",".join(cards), "Blue As"])
    assert shown.score == 80 + 0  # a royal flush, and a high card


def test_rule_397_score_table_first_statement_that_applies_takes_precedence(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    royal(pg, "ann")  # a royal flush is also a straight flush and a flush: 80
    give(pg, "ben", "Red 9h", "Red 10h", "Red Jh", "Red Qh", "Red Kh")  # straight flush: 70
    give(pg, "cat", "Red 2c", "Blue 2c", "Red 2d", "Blue 2d", "Red 2h")  # five of a kind: 80
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["score-five-of-a-kind=90"], proposal="P10")
        pooker.showdown_open(tx, motion_passed="Motion 1")
        assert pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs,Red Js,Red 10s"]).score == 80
        assert pooker.show(tx, "ben", ["Red 9h,Red 10h,Red Jh,Red Qh,Red Kh"]).score == 70
        assert pooker.show(tx, "cat", ["Red 2c,Blue 2c,Red 2d,Blue 2d,Red 2h"]).score == 90


# --- Fix the Showdown, Really Fix the Showdown ------------------------------------------------


def test_fix_the_showdown_show_within_three_days_then_shown_cards_return_unshown_stay(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    royal(pg, "ann")
    give(pg, "ann", "Blue 3d")
    give(pg, "ben", "Red 2h", "Blue 2h")
    with pg.write() as tx:
        opened = pooker.showdown_open(tx, motion_passed="Motion to Show Cards 1")
    assert opened.ends == "2026-01-04T12:00:00Z"
    with pg.write() as tx:
        pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs,Red Js,Red 10s"])
    clock.move_to(day(0.5 + 2.9))
    with pg.write() as tx:
        pooker.show(tx, "ben", ["Red 2h,Blue 2h"])
    clock.move_to(day(0.5 + 3.1))
    with pg.read() as tx:
        status = pooker_view.status(tx)  # a read closes nothing: it says the window has ended
    assert status.showdown is not None and status.showdown.ended
    with pytest.raises(RuleViolation, match="no Showdown is open"), pg.write() as tx:
        pooker.show(tx, "cat", ["Red 3c"])  # the window ends before this act
    with pg.write() as tx:
        api.tick(tx)  # a refused act writes nothing; the next write closes the window
    assert hand(pg, "ann") == {"Blue 3d"}  # unshown cards stay
    assert hand(pg, "ben") == set()
    with pg.read() as tx:
        last = pooker_view.status(tx).last
    assert last is not None and last["winners"] == ["ann"] and last["prize"] == 80
    assert last["scores"] == {"ann": 80, "ben": 5}
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_showing_is_optional(pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    royal(pg, "ann")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
    clock.move_to(day(0.5 + 3.5))
    with pg.write() as tx:
        api.tick(tx)
        last = pooker_view.status(tx).last
    assert last is not None and last["winners"] == [] and last["prize"] == 0
    assert len(hand(pg, "ann")) == 5


def test_motion_to_show_cards_passes_with_a_majority_of_players(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    with pytest.raises(RuleViolation, match="no PCards in eir Hand"), pg.write() as tx:
        pooker.motion(tx, "ben")
    with pg.write() as tx:
        made = pooker.motion(tx, "ann")
    with pytest.raises(RuleViolation, match="is pending"), pg.write() as tx:
        pooker.motion(tx, "ann")
    # four players (the Dealer is one): a majority is three
    with pg.write() as tx:
        assert pooker.vote(tx, "ann", True).showdown is None
        assert pooker.vote(tx, "ben", True).showdown is None
        assert pooker.vote(tx, "cat", False).showdown is None
        passed = pooker.vote(tx, "cat", True)
    assert (passed.number, passed.yes, passed.players) == (made.number, 3, 4)
    assert passed.showdown == 1
    with pg.read() as tx:
        status = pooker_view.status(tx)
    assert status.showdown is not None and status.motion is None


def test_ten_pcards_let_a_player_declare_a_showdown_and_show_at_least_two(pg: Nomic) -> None:
    nine = [f"Red {r}c" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9")]
    give(pg, "ann", *nine)
    with pytest.raises(RuleViolation, match="holds 9 PCard"), pg.write() as tx:
        pooker.showdown_open(tx, ten="ann")
    give(pg, "ann", "Red 10c")
    with pg.write() as tx:
        opened = pooker.showdown_open(tx, ten="ann")
    assert (opened.how, opened.min_shown) == ("ten", 2)
    with pytest.raises(RuleViolation, match="must show at least 2"), pg.write() as tx:
        pooker.show(tx, "ann", ["Red Ac"])
    with pg.write() as tx:
        assert pooker.show(tx, "ann", ["Red Ac,Red 2c"]).score == 0


def test_the_dealer_may_never_show(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
    with pytest.raises(RuleViolation, match="Dealer may never show"), pg.write() as tx:
        pooker.show(tx, DEALER, ["Red Kd"])


def test_prize_from_the_bank_equal_to_the_score_split_on_a_tie(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red 2h", "Blue 2h")
    give(pg, "ben", "Red 3h", "Blue 3h")
    give(pg, "cat", "Red 4h")
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["score-one-pair=7"], proposal="P11")
        pooker.showdown_open(tx, motion_passed="M")
    for p, cards in (("ann", "Red 2h,Blue 2h"), ("ben", "Red 3h,Blue 3h"), ("cat", "Red 4h")):
        with pg.write() as tx:
            pooker.show(tx, p, [cards])
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
        last = pooker_view.status(tx).last
    assert last is not None and last["winners"] == ["ann", "ben"] and last["prize"] == 7
    assert last["paid"] == {"ann": 3, "ben": 3}  # 7 split two ways, rounded down
    assert balances(pg)["Bank"] == -6
    assert not hand(pg, "ann") and not hand(pg, "cat")
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_no_pooker_a_repeal_waits_until_the_showdown_under_way_is_resolved(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red 2h", "Blue 2h")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red 2h,Blue 2h"])
    with pytest.raises(RuleViolation, match=r"cannot be repealed while 1 of its windows are "
                                            r"open \(the last, Showdown 1 ends"), pg.write() as tx:
        api.game_repeal(tx, "pooker", proposal="No Pooker")
    assert pg_in_force(pg)
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
        api.game_repeal(tx, "pooker", proposal="No Pooker")
    assert not pg_in_force(pg)
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def pg_in_force(game: Nomic) -> bool:
    with game.read() as tx:
        return any(g.game == "pooker" for g in api.game_list(tx))


# --- the engine: windows are time-true -----------------------------------------------------


def _showdown_season(db_url: str, tick_at: float) -> dict[str, object]:
    with freeze_time(day(0.5)) as clock, new_game(
            db_url, epoch=date(2026, 1, 1), nweek_days=2, players=("ann", "ben")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        royal(game, "ann")
        give(game, "ben", "Red 2h", "Blue 2h")
        with game.write() as tx:
            pooker.showdown_open(tx, motion_passed="M")
            pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs,Red Js,Red 10s"])
            pooker.show(tx, "ben", ["Red 2h,Blue 2h"])
        clock.move_to(day(tick_at))
        with game.write() as tx:
            api.tick(tx)
            rows = [(r.at, r.kind, r.summary) for r in api.log(tx, limit=200)
                    if r.kind.startswith(("pooker.", "nweek."))]
        return {"rows": rows, "points": balances(game)}


def test_a_late_tick_closes_a_showdown_exactly_as_an_on_time_one(db_url: str) -> None:
    on_time = _showdown_season(db_url, 3.6)
    if db_url.startswith("sqlite"):
        late = _showdown_season(db_url.replace("game.db", "late.db"), 30)
    else:
        url, schema = new_pg_schema_url()
        try:
            late = _showdown_season(url, 30)
        finally:
            drop_pg_schema(schema)
    closed = [r for r in late["rows"] if r[1] == "pooker.closed"]  # type: ignore[union-attr]
    assert closed and closed[0][0].startswith("2026-01-04T12:00:00")
    assert closed == [r for r in on_time["rows"] if r[1] == "pooker.closed"]  # type: ignore
    # interleaved with the nweek boundaries in time order (nweeks of 2 days)
    kinds = [r[1] for r in late["rows"]]  # type: ignore[union-attr]
    before = kinds[:kinds.index("pooker.closed")]
    assert before.count("nweek.started") == 2  # nweeks 1 and 2 began before day 3.5
    assert late["points"] == on_time["points"]


# --- verifiable Showdowns ------------------------------------------------------------------


def test_a_shown_card_comes_with_the_opening_of_the_commitment_that_put_it_there(
        pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    give(pg, "ben", "Red Kd", "Red Qd")
    fund(pg, "ann", "ben")
    with pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Red Kd"], "ben")
        done = pooker.trade(tx, "ben", ["Red Kd"], ["Red As"], "ann")
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red Kd"])
        pooker.show(tx, "ben", ["Red As,Red Qd"])
    with pg.read() as tx:
        shown = [r for r in tx.recent_events(kinds=("pooker.shown",), limit=5)]
        for rec in shown:
            e = rec.event
            assert isinstance(e, ge.Shown)
            for o in e.openings:
                source = tx.event_at(o.event)
                assert source is not None
                public = source.payload
                commits = [public.get("commit")] if "commit" in public else \
                    [*public["to_a"], *public["to_b"]]
                assert card_commitment(o.salt, o.card) in commits
    ann = next(r for r in shown if r.event.player == "ann")  # type: ignore[attr-defined]
    assert ann.event.openings[0].event == done.traded  # type: ignore[attr-defined]


def test_a_forged_showdown_result_does_not_replay(pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    royal(pg, "ann")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs,Red Js,Red 10s"])
    clock.move_to(day(4))
    with pg.read() as tx:
        state = tx.full_state()
        replayed = replay([r for r in tx.events()])
    assert replayed.games_data == state.games_data
    cards = tuple(sorted(state.hand("ann")))
    at = day(4)
    for forged, why in (
            (ge.ShowdownClosed(1, (ge.PlayerScore("ann", 70),), ("ann",), 70,
                               (ge.Payment("ann", 70),), cards), "not that of the Poker Hands"),
            (ge.ShowdownClosed(1, (ge.PlayerScore("ann", 80),), ("ann",), 80,
                               (ge.Payment("ann", 90),), cards),
             "not paid to the winners as the rules split it"),
            (ge.ShowdownClosed(1, (ge.PlayerScore("ann", 80),), ("ann",), 80,
                               (ge.Payment("ann", 80),), cards[:4]),
             "not the shown cards still in their showers' Hands")):
        fresh = replay([r for r in _events(pg)])
        with pytest.raises(ReplayError, match=why):
            apply_event(fresh, fresh.seq + 1, forged, at)
    early = replay([r for r in _events(pg)])
    with pytest.raises(ReplayError, match="before its window ended"):
        apply_event(early, early.seq + 1, pooker_closed(early), day(2))


def _events(game: Nomic) -> list[Any]:
    with game.read() as tx:
        return list(tx.events())


def pooker_closed(state: State) -> ge.ShowdownClosed:
    return pooker.closed(state)


def test_deals_of_pcards_carry_a_per_card_commitment_and_others_do_not(pg: Nomic) -> None:
    with pg.write() as tx:
        api.deal(tx, "ann", **scripted([1]))  # card 1: the Red Ace of Diamonds, a PCard
        api.deal(tx, "ann", **scripted([105]))  # card 105: pack 2 (Fish), not a PCard
    with pg.read() as tx:
        dealt = [r for r in tx.events() if r.kind == "card.dealt"]
    pc, other = dealt
    assert card_commitment(pc.private["salt"], 1) == pc.payload["commit"]
    assert "salt" not in pc.payload and "commit" not in other.payload
    assert "salt" not in other.private


def test_verify_showdowns_reports_a_card_without_commitment_as_unproven(pg: Nomic) -> None:
    give(pg, "ann", "Red As", "Red Ks")
    with pg.write() as tx:
        api.game_repeal(tx, "pooker", proposal="P7")
    give(pg, "ann", "Red Qs")  # no game in force: no per-card commitment
    with pg.write() as tx:
        api.game_enact(tx, "pooker", "Red,Blue", proposal="P8")
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs"])
        events = [dataclasses.asdict(r) for r in api.public_record(tx)]
    script = runpy.run_path(str(Path(__file__).resolve().parents[2] / "scripts"
                                / "verify_showdowns.py"))
    problems, unproven, checked = script["verify"](events)
    assert (problems, len(unproven), checked) == ([], 1, 2)
    assert "unproven" in unproven[0]
    assert script["verify"](events, True)[0] == unproven
