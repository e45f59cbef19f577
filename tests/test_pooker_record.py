"""Pooker exactly as the record wrote it (rules version 2; docs/games.md, "Pooker"): Motions end,
shown cards are held to their Showdown, a shower who retired or became the Dealer is not scored,
a trade's commitments say nothing of the order of its cards, trades are in the Dealer's Report,
and the Players' own acts (withdraw, decline, declare at ten PCards). One test per rule, named
after it, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.core import api
from nomic_cards.core.game import Game
from nomic_cards.errors import RuleViolation
from tests.game_time import moment as day
from tests.helpers import new_game, sql

DEALER = "PurpleBob"


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time(day(0.5)) as frozen:
        yield frozen


@pytest.fixture
def pg(clock: FrozenDateTimeFactory, db_url: str) -> Iterator[Game]:
    """Pooker (version 2, as any new enactment) on the Red and Blue packs; ann, ben, cat."""
    with new_game(db_url, epoch=date(2026, 1, 1), nweek_days=10,
                  players=("ann", "ben", "cat")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        yield game


def give(game: Game, player: str, *cards: str) -> None:
    with game.write() as tx:
        for card in cards:
            api.transfer(tx, card, player, "test setup", source="deck")


def hand(game: Game, player: str) -> set[str]:
    with game.read() as tx:
        return {c.card for c in api.hand(tx, player).cards}


def fund(game: Game, *players: str) -> None:
    """Points for the trade fees."""
    from nomic_cards.cardgames import points

    with game.write() as tx:
        for p in players:
            points.grant(tx, p, 100, rule="Scorekeeper's report")


def kinds(game: Game) -> list[str]:
    return [str(r[0]) for r in sql(game, "select kind from events order by seq")]


def payload(game: Game, kind: str) -> dict[str, Any]:
    rows = sql(game, "select payload from events where kind = :k order by seq desc", k=kind)
    found: dict[str, Any] = json.loads(str(rows[0][0]))
    return found


# --- Motions end -----------------------------------------------------------------------------


def test_a_motion_fails_when_a_majority_of_players_votes_against_it(pg: Game) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        first = pooker.vote(tx, "ben", False)
        assert not first.failed  # 1 against of 4 Players: no majority yet
        second = pooker.vote(tx, "cat", False)
        third = pooker.vote(tx, DEALER, False)
    assert not second.failed and third.failed  # 3 of 4 against: a majority
    assert payload(pg, "pooker.failed") == {"number": 1, "yes": 0, "no": 3, "players": 4,
                                            "why": "against"}
    with pg.write() as tx:  # the next Motion may be made
        assert pooker.motion(tx, "ann").number == 2


def test_a_motion_fails_when_its_voting_window_ends_time_true(
        pg: Game, clock: FrozenDateTimeFactory) -> None:
    """No majority either way by the end of motion-days (3 days by default): the next write,
    however late, records the failure dated at the window's end."""
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        made = pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", True)
    clock.move_to(day(9))
    with pg.write() as tx:
        api.tick(tx)
    rows = sql(pg, "select at, payload from events where kind = 'pooker.failed'")
    assert len(rows) == 1 and json.loads(str(rows[0][1]))["why"] == "time"
    assert str(rows[0][0]).startswith("2026-01-04 12:00:00")  # made at day 0.5, + 3 days
    assert made.number == 1
    with pg.write() as tx:
        assert pooker.motion(tx, "ann").number == 2


def test_a_vote_after_the_voting_ended_is_refused(pg: Game, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
    clock.move_to(day(4))
    with pytest.raises(RuleViolation, match="no Motion to Show Cards is pending"), \
            pg.write() as tx:
        pooker.vote(tx, "ben", True)  # the write first closes the window: the Motion failed
    assert "pooker.failed" not in kinds(pg)  # a refused act writes nothing, the close included
    with pg.write() as tx:
        api.tick(tx)
    assert kinds(pg).count("pooker.failed") == 1


# --- shown cards are held to their Showdown ---------------------------------------------------


def _showdown(game: Game) -> None:
    give(game, "ann", "Red As", "Blue As")
    give(game, "ben", "Blue 2c", "Blue 3c")
    with game.write() as tx:
        pooker.showdown_open(tx, motion_passed="Motion 12 of the nomic")
        pooker.show(tx, "ann", ["Red As,Blue As"])  # a pair: 5


def test_a_shown_card_is_held_until_the_close_no_transfer_or_trade_moves_it(
        pg: Game) -> None:
    _showdown(pg)
    with pytest.raises(RuleViolation, match=r"Red As cannot be transferred: it was shown at "
                                            r"Showdown 1, which holds it"), pg.write() as tx:
        api.transfer(tx, "Red As", "ben", "Proposal 90")
    with pytest.raises(RuleViolation, match="shown at the open Showdown"), pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Blue 2c"], "ben")
    with pg.write() as tx:
        api.transfer(tx, "Blue 2c", "cat", "Proposal 91")  # an unshown card moves as ever
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_the_close_returns_exactly_the_shown_cards_still_in_their_showers_hands(
        pg: Game, clock: FrozenDateTimeFactory) -> None:
    _showdown(pg)
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert closed["winners"] == ["ann"] and "gone" not in closed and "voided" not in closed
    assert hand(pg, "ann") == set() and len(closed["returned"]) == 2


def test_a_shower_who_retires_is_not_scored_and_no_card_is_taken_from_another(
        pg: Game, clock: FrozenDateTimeFactory) -> None:
    """Retiring returns a Player's Hand to the Deck (rule 4 of the proposal): the show goes
    with it, unscored, and the prize goes to Players only."""
    _showdown(pg)
    with pg.write() as tx:
        pooker.show(tx, "ben", ["Blue 2c"])
        api.retire_player(tx, "ann")
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert closed["voided"] == [{"player": "ann", "why": "retired"}]
    assert [s["player"] for s in closed["scores"]] == ["ben"]
    assert closed["winners"] == [] and closed["prize"] == 0  # a High Card scores 0
    assert {g["player"] for g in closed["gone"]} == {"ann"}
    assert closed["returned"] == [ge_number(pg, "Blue 2c")]
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def ge_number(game: Game, card: str) -> int:
    from nomic_cards.core.services.common import parse_card_ref

    with game.read() as tx:
        return parse_card_ref(tx.state, card)


def test_a_shower_elected_dealer_is_not_scored_the_dealer_may_never_show(
        pg: Game, clock: FrozenDateTimeFactory) -> None:
    _showdown(pg)
    with pg.write() as tx:
        api.elect_dealer(tx, "ann")
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert closed["voided"] == [{"player": "ann", "why": "now the Dealer, who may never show"}]
    assert closed["prize"] == 0 and closed["scores"] == []
    with pg.read() as tx:  # ann is told why eir show was not scored
        notes = [n.text for n in api.notices(tx, "ann")]
    assert any("your show at Showdown 1 was not scored" in n for n in notes)


# --- commitments say nothing about order -----------------------------------------------------


def test_a_trades_commitments_are_published_in_an_order_that_tells_nothing_of_its_cards(
        pg: Game) -> None:
    """Each side's per-card commitments are published sorted by commitment: showing the
    highest card of a three-card trade lands it first, in the middle or last as chance has
    it, never by rank."""
    fund(pg, "ann", "ben")
    positions = set()
    for n in range(12):
        ann = [f"Red {r}s" for r in ("2", "7", "K")] if n % 2 == 0 else \
            [f"Red {r}h" for r in ("2", "7", "K")]
        ben = [f"Blue {r}d" for r in ("3", "4", "5")] if n % 2 == 0 else \
            [f"Blue {r}c" for r in ("3", "4", "5")]
        if n:  # the cards back to the Deck for the next trade
            with pg.write() as tx:
                for card in [*hand(pg, "ann"), *hand(pg, "ben")]:
                    api.transfer(tx, card, "deck", "test setup")
        give(pg, "ann", *ann)
        give(pg, "ben", *ben)
        with pg.write() as tx:
            pooker.trade(tx, "ann", ann, ben, "ben")
            pooker.trade(tx, "ben", ben, ann, "ann")
        traded = payload(pg, "pooker.traded")
        to_b = traded["to_b"]
        assert to_b == sorted(to_b)
        with pg.read() as tx:
            record = tx.event_at(tx.head()[0] - 2)  # the trade, with its private part
        assert record is not None and isinstance(record.event, ge.Traded)
        top = ge_number(pg, ann[2])
        positions.add(record.event.a_gives.index(top))
    assert len(positions) > 1  # the King's place follows the hashes, not its rank


# --- trades in the Dealer's Report -----------------------------------------------------------


def test_a_trade_is_in_the_dealers_report_with_the_backs_never_the_faces(
        pg: Game, clock: FrozenDateTimeFactory) -> None:
    fund(pg, "ann", "ben")
    give(pg, "ann", "Red As")
    give(pg, "ben", "Blue Kd")
    with pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben")
        pooker.trade(tx, "ben", ["Blue Kd"], ["Red As"], "ann")
    clock.move_to(day(10.5))
    with pg.write() as tx:
        api.tick(tx)
    with pg.read() as tx:
        text = api.report(tx, 1).body
    assert "No player received a Card" not in text
    assert "card game pooker" in text and "Red" in text and "Blue" in text
    assert "As" not in text.replace("Aspects", "") and "Kd" not in text


# --- the Players' own acts --------------------------------------------------------------------


def test_a_player_may_withdraw_eir_own_waiting_notification_and_the_other_side_is_told(
        pg: Game) -> None:
    fund(pg, "ann")
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        notified = pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben").notified
    with pytest.raises(RuleViolation, match="only its author may withdraw it"), \
            pg.write() as tx:
        pooker.withdraw(tx, "ben", notified)
    with pg.write() as tx:
        pooker.withdraw(tx, "ann", notified)
        assert str(notified) not in ge.pooker_data(tx.state)["pending"]
        told = [n.text for n in api.notices(tx, "ben")]
    assert any(f"ann withdrew eir trade notification naming you (event {notified})" in t
               for t in told)
    public = payload(pg, "pooker.withdrawn")
    assert public == {"notified": notified, "player": "ann"}  # the partner is private


def test_a_player_may_decline_a_notification_that_names_em_and_its_author_is_told(
        pg: Game) -> None:
    fund(pg, "ann")
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        notified = pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben").notified
    with pytest.raises(RuleViolation, match="only the other side it names may decline"), \
            pg.write() as tx:
        pooker.decline(tx, "cat", notified)
    with pg.write() as tx:
        pooker.decline(tx, "ben", notified)
        told = [n.text for n in api.notices(tx, "ann")]
    assert any(f"ben declined your trade notification (event {notified})" in t for t in told)
    assert payload(pg, "pooker.declined") == {"notified": notified, "author": "ann"}


def test_a_player_holding_ten_pcards_may_declare_a_showdown_emself_and_show_at_least_two(
        pg: Game) -> None:
    ten = [f"Red {r}s" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J")]
    give(pg, "ann", *ten[:9])
    with pytest.raises(RuleViolation, match="holds 9 PCard"), pg.write() as tx:
        pooker.declare(tx, "ann")
    give(pg, "ann", ten[9])
    with pg.write() as tx:
        opened = pooker.declare(tx, "ann")
    assert opened.how == "ten" and opened.min_shown == 2
    with pytest.raises(RuleViolation, match="at least 2 PCards"), pg.write() as tx:
        pooker.show(tx, "ann", ["Red 2s"])
    with pg.write() as tx:
        pooker.show(tx, "ann", ["Red 2s,Red 3s"])


def test_a_game_enacted_at_version_1_keeps_its_rules_until_the_nomic_amends_the_version(
        clock: FrozenDateTimeFactory, db_url: str) -> None:
    """Version 1 Motions never end (an older ledger replays as written); `game amend pooker
    --version 2` brings the record's rules in from then on."""
    from nomic_cards.core.ledger.events import RuleEnacted

    with new_game(db_url, epoch=date(2026, 1, 1), nweek_days=10,
                  players=("ann", "ben", "cat")) as game:
        with game.write() as tx:  # as an older nomic-cards enacted it
            tx.record(RuleEnacted("pooker", 1, {"packs": "0,1"}, "P456"))
        give(game, "ann", "Red As")
        with game.write() as tx:
            pooker.motion(tx, "ann")
            for p in ("ben", "cat", DEALER):
                assert not pooker.vote(tx, p, False).failed
        clock.move_to(day(9))
        with game.write() as tx:
            api.tick(tx)
        assert "pooker.failed" not in kinds(game)  # version 1: still pending
        with game.write() as tx:
            api.game_amend(tx, "pooker", proposal="P500", version=2)
            assert ge.version(tx.state) == 2
        with game.read() as tx:
            assert api.ledger_verify(tx).ok
