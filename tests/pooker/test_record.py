"""Pooker exactly as the record wrote it (rules version 2; docs/pooker.md): Motions end,
shown cards are held to their Showdown, a shower who retired or became the Dealer is not scored,
a trade's commitments say nothing of the order of its cards, trades are in the Dealer's Report,
and the Players' own acts (withdraw, decline, declare at ten PCards). One test per rule, named
after it, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.core import api
from nomic_cards.core.ledger.replay import ReplayError, apply_event, replay
from nomic_cards.core.nomic import Nomic
from nomic_cards.errors import RuleViolation
from tests.game_time import moment as day
from tests.helpers import new_game, sql
from tests.pooker import support
from tests.pooker.support import give, hand

DEALER = "PurpleBob"


def fund(game: Nomic, *players: str) -> None:
    """Points for the trade fees."""
    support.fund(game, *players, n=100)


def kinds(game: Nomic) -> list[str]:
    return [str(r[0]) for r in sql(game, "select kind from events order by seq")]


def payload(game: Nomic, kind: str) -> dict[str, Any]:
    rows = sql(game, "select payload from events where kind = :k order by seq desc", k=kind)
    found: dict[str, Any] = json.loads(str(rows[0][0]))
    return found


# --- Motions end -----------------------------------------------------------------------------


def test_a_motion_fails_when_a_majority_of_players_votes_against_it(pg: Nomic) -> None:
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
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
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


def test_a_vote_after_the_voting_ended_is_refused(pg: Nomic, clock: FrozenDateTimeFactory) -> None:
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


def test_a_motion_counts_only_the_votes_of_those_who_are_players(pg: Nomic) -> None:
    """A Motion passes "with a majority of Players": ann and ben vote yes (2 of 4, no majority
    yet), ben retires (3 Players), cat votes no -- 1 yes (ann's) and 1 no of 3: still pending
    (ben's vote no longer counts); the Dealer votes no: 2 of 3 against, it fails, recorded with
    the counts it was judged by."""
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ann", True)
        pooker.vote(tx, "ben", True)
        api.retire_player(tx, "ben")
        pending = pooker.vote(tx, "cat", False)
        with pytest.raises(RuleViolation, match="ben has retired and cannot vote"):
            pooker.vote(tx, "ben", True)
    assert (pending.yes, pending.no, pending.players, pending.showdown, pending.failed) == \
        (1, 1, 3, None, False)
    with pg.write() as tx:
        failed = pooker.vote(tx, DEALER, False)
    assert failed.failed and "pooker.opened" not in kinds(pg)
    assert payload(pg, "pooker.failed") == {"number": 1, "yes": 1, "no": 2, "players": 3,
                                            "why": "against"}
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_a_rejoined_players_vote_counts_again(pg: Nomic) -> None:
    """A vote is a Player's while e is one: ben's yes stops counting when e retires and counts
    again when e rejoins; with ann's and the Dealer's it is 3 of 4."""
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", True)
        api.retire_player(tx, "ben")
        pooker.vote(tx, "ann", True)  # 1 of 3 counted
        api.add_player(tx, "ben")  # rejoins
        passed = pooker.vote(tx, DEALER, True)
    assert (passed.yes, passed.players, passed.showdown) == (3, 4, 1)


def test_a_failure_at_the_end_of_voting_counts_the_players_then(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", True)
        pooker.vote(tx, "cat", False)
        api.retire_player(tx, "cat")
    clock.move_to(day(9))
    with pg.write() as tx:
        api.tick(tx)
    assert payload(pg, "pooker.failed") == {"number": 1, "yes": 1, "no": 0, "players": 3,
                                            "why": "time"}
    with pg.read() as tx:
        assert api.ledger_verify(tx).ok


def test_a_forged_failure_counting_a_retired_voter_does_not_replay(pg: Nomic) -> None:
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", False)
        pooker.vote(tx, "cat", False)
        api.retire_player(tx, "cat")
        events = list(tx.events())
    state = replay(events)
    at = events[-1].at
    with pytest.raises(ReplayError, match="votes are not those recorded"):  # cat's no counted
        apply_event(replay(events), state.seq + 1, ge.MotionFailed(1, 0, 2, 3, "against"), at)
    with pytest.raises(ReplayError, match="before a majority voted against it"):
        apply_event(replay(events), state.seq + 1, ge.MotionFailed(1, 0, 1, 3, "against"), at)


def test_a_retired_player_may_neither_withdraw_nor_decline_a_notification(pg: Nomic) -> None:
    """Only a Player acts (a retired one's tokens are revoked): ben, retired, can neither
    withdraw eir own notification waiting nor decline ann's naming em; the replay refuses
    either act by em too."""
    fund(pg, "ann", "ben")
    give(pg, "ann", "Red As")
    give(pg, "ben", "Blue Kd", "Blue Qd")
    with pg.write() as tx:
        anns = pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben").notified
        bens = pooker.trade(tx, "ben", ["Blue Qd"], ["Red As"], "ann").notified
        api.retire_player(tx, "ben")
    with pytest.raises(RuleViolation, match=r"^ben has retired and cannot decline a trade "
                                            r"notification$"), pg.write() as tx:
        pooker.decline(tx, "ben", anns)
    with pytest.raises(RuleViolation, match=r"^ben has retired and cannot withdraw a trade "
                                            r"notification$"), pg.write() as tx:
        pooker.withdraw(tx, "ben", bens)
    with pg.read() as tx:
        assert {str(anns), str(bens)} <= set(ge.pending(tx.state))
        events = list(tx.events())
    at = events[-1].at
    for forged in (ge.TradeDeclined(anns, "ann", "ben"), ge.TradeWithdrawn(bens, "ben", "ann")):
        state = replay(events)
        with pytest.raises(ReplayError, match="ben, who has retired"):
            apply_event(state, state.seq + 1, forged, at)


def test_a_game_at_version_1_counts_the_votes_as_version_1_did(
        clock: FrozenDateTimeFactory, db_url: str) -> None:
    """Version 1's passing threshold is unchanged (every vote recorded, of the active
    Players): ben's yes still counts after e retires, and cat's vote passes the Motion."""
    from nomic_cards.core.ledger.events import RuleEnacted

    with new_game(db_url, epoch=date(2026, 1, 1), nweek_days=10,
                  players=("ann", "ben", "cat")) as game:
        with game.write() as tx:
            tx.record(RuleEnacted("pooker", 1, {"packs": "0,1"}, "P456"))
        give(game, "ann", "Red As")
        with game.write() as tx:
            pooker.motion(tx, "ann")
            pooker.vote(tx, "ann", True)
            pooker.vote(tx, "ben", True)
            api.retire_player(tx, "ben")
            passed = pooker.vote(tx, "cat", False)
        assert (passed.yes, passed.no, passed.players, passed.showdown) == (2, 1, 3, 1)


# --- shown cards are held to their Showdown ---------------------------------------------------


def _showdown(game: Nomic) -> None:
    give(game, "ann", "Red As", "Blue As")
    give(game, "ben", "Blue 2c", "Blue 3c")
    with game.write() as tx:
        pooker.showdown_open(tx, motion_passed="Motion 12 of the nomic")
        pooker.show(tx, "ann", ["Red As,Blue As"])  # a pair: 5


def test_a_shown_card_is_held_until_the_close_no_transfer_or_trade_moves_it(
        pg: Nomic) -> None:
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
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    _showdown(pg)
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert closed["winners"] == ["ann"] and "gone" not in closed and "voided" not in closed
    assert hand(pg, "ann") == set() and len(closed["returned"]) == 2


def test_a_shower_who_retires_is_not_scored_and_no_card_is_taken_from_another(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
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


def ge_number(game: Nomic, card: str) -> int:
    from nomic_cards.core.services.common import parse_card_ref

    with game.read() as tx:
        return parse_card_ref(tx.state, card)


def test_a_shower_elected_dealer_is_not_scored_the_dealer_may_never_show(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
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


def test_a_shower_made_dealer_and_replaced_before_the_close_is_not_scored(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """ann shows a pair, is elected Dealer (eir Hand, the pair with it, joins the Deck), then
    PurpleBob is elected again: at the close ann is still not scored, eir shown cards are in
    the Deck, and ben's High Card wins nothing."""
    _showdown(pg)
    with pg.write() as tx:
        pooker.show(tx, "ben", ["Blue 2c"])
        api.elect_dealer(tx, "ann")
        api.elect_dealer(tx, DEALER)
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert closed["voided"] == [
        {"player": "ann", "why": "made the Dealer after showing, and the Dealer may never show"}]
    assert [s["player"] for s in closed["scores"]] == ["ben"] and closed["winners"] == []
    assert sorted(closed["gone"], key=lambda g: g["card"]) == [
        {"card": ge_number(pg, c), "player": "ann", "holder": None}
        for c in ("Red As", "Blue As")]
    with pg.read() as tx:
        notes = [n.text for n in api.notices(tx, "ann")]
        assert api.ledger_verify(tx).ok
    assert any("your show at Showdown 1 was not scored: you were made the Dealer after "
               "showing" in n for n in notes)


def test_a_dealer_replaced_before_showing_is_scored(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """What voids a show is an election after it: ann, Dealer for a while after the Showdown
    opened and replaced, is dealt a pair and shows it -- scored and paid."""
    give(pg, "ann", "Red 9c")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        api.elect_dealer(tx, "ann")
        api.elect_dealer(tx, DEALER)
    give(pg, "ann", "Red As", "Blue As")
    with pg.write() as tx:
        pooker.show(tx, "ann", ["Red As,Blue As"])
    clock.move_to(day(4))
    with pg.write() as tx:
        api.tick(tx)
    closed = payload(pg, "pooker.closed")
    assert "voided" not in closed and closed["winners"] == ["ann"] and closed["prize"] == 5


def test_a_forged_transfer_of_a_held_card_does_not_replay(pg: Nomic) -> None:
    """Version 2 holds a shown card to its Showdown: the use case refuses its transfer, and so
    does the replay of ``card.transferred`` (a forged one fails ``ledger verify``), from a Hand
    or from the Deck; an unshown card transfers as ever."""
    from nomic_cards.core.ledger.events import CardTransferred

    _showdown(pg)
    with pg.write() as tx:
        api.retire_player(tx, "ben")  # ben's cards to the Deck: unshown, free to move
        events = list(tx.events())
    red_as, blue_2c = ge_number(pg, "Red As"), ge_number(pg, "Blue 2c")
    at = events[-1].at
    state = replay(events)
    with pytest.raises(ReplayError, match=rf"^card {red_as} was transferred, but card game "
                                          r"pooker holds it: it was shown at Showdown 1"):
        apply_event(state, state.seq + 1, CardTransferred(red_as, "ann", "cat", "P90"), at)
    apply_event(state, state.seq + 1, CardTransferred(blue_2c, None, "cat", "P91"), at)
    assert state.owner[blue_2c] == "cat"
    with pg.write() as tx:  # the Deck: ann retires, the pair goes there, still held
        api.retire_player(tx, "ann")
        events = list(tx.events())
    state = replay(events)
    with pytest.raises(ReplayError, match="card game pooker holds it"):
        apply_event(state, state.seq + 1, CardTransferred(red_as, None, "cat", "P92"), at)


# --- commitments say nothing about order -----------------------------------------------------


def test_a_trades_commitments_are_published_in_an_order_that_tells_nothing_of_its_cards(
        pg: Nomic) -> None:
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
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
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
        pg: Nomic) -> None:
    fund(pg, "ann")
    give(pg, "ann", "Red As")
    with pg.write() as tx:
        notified = pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben").notified
    with pytest.raises(RuleViolation, match="only its author may withdraw it"), \
            pg.write() as tx:
        pooker.withdraw(tx, "ben", notified)
    with pg.write() as tx:
        pooker.withdraw(tx, "ann", notified)
        assert str(notified) not in ge.pending(tx.state)
        told = [n.text for n in api.notices(tx, "ben")]
    assert any(f"ann withdrew eir trade notification naming you (event {notified})" in t
               for t in told)
    public = payload(pg, "pooker.withdrawn")
    assert public == {"notified": notified, "player": "ann"}  # the partner is private


def test_a_player_may_decline_a_notification_that_names_em_and_its_author_is_told(
        pg: Nomic) -> None:
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
        pg: Nomic) -> None:
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
