"""The Cards proposal carried out against a real database (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from freezegun import freeze_time

from nomic_cards.core import api
from nomic_cards.core.api import CardView, RollView
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.settings import PROPOSAL_PACKS
from nomic_cards.errors import DatabaseError, InputError, NotFound, RuleViolation
from tests.helpers import new_game, scripted, sql


def test_initial_state_is_the_proposals(game: Nomic) -> None:
    with game.read() as tx:
        view = api.deck(tx, show_cards=True)
    assert view.total == 208 and view.sides == 208
    assert [b.pack for b in view.by_back] == ["Red", "Blue", "Fish", "Corporate"]
    assert [b.back for b in view.by_back] == [b for _, b in PROPOSAL_PACKS]
    assert view.dealer == "PurpleBob"
    assert view.cards is not None
    # rule 5's numbering: 90 = 1*52 + 2*13 + 12 is pack 1 (Blue), Hearts (2), Queen (12)
    assert view.cards[89] == CardView(number=90, card="Blue Qh", name="Queen of Hearts",
                                      back="Blue")
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_dealing_rolls_one_die_with_52_times_packs_sides(game: Nomic) -> None:
    with game.write() as tx:
        r = api.deal(tx, "alice", **scripted([90]))
    assert r.card == "Blue Qh" and r.card_number == 90
    assert r.rolls == (RollView(value=90, sides=208, source="manual", period=None,
                                index=None),)
    with game.read() as tx:
        assert [c.number for c in api.hand(tx, "alice").cards] == [90]
        assert api.deck(tx).total == 207


def test_dealing_rerolls_cards_not_in_deck(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
        api.deal(tx, "bob", **scripted([5]))
        r = api.deal(tx, "carol", **scripted([90, 5, 90, 17]))
    assert [x.value for x in r.rolls] == [90, 5, 90, 17]
    assert r.card_number == 17
    rows = sql(game, "select position, value from rolls where deal_seq = :s order by position",
               s=r.event)
    assert rows == [(0, 90), (1, 5), (2, 90), (3, 17)]


def test_deal_notifies_only_the_receiving_player(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "carol", **scripted([17]))
        api.deal(tx, "alice", **scripted([17, 90]))
        (text,) = [n.text for n in api.notices(tx, "alice")]
    what, why, when = text.splitlines()
    # what happened (the mail's subject), in which nweek; why; when
    assert what == "Nweek 1: you were dealt the Blue Queen of Hearts (card 90)"
    assert why == "Why: dealt by the Dealer (it took 2 rolls)"
    assert re.fullmatch(r"When: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", when)
    with game.read() as tx:
        assert api.notices(tx, "bob") == []


def test_a_player_is_told_when_cards_leave_eir_hand(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
        api.deal(tx, "alice", **scripted([91]))
        api.deal(tx, "bob", **scripted([92]))
        api.transfer(tx, "90", "bob", "Proposal 7")
        api.transfer(tx, "92", "deck", "Proposal 8")
        api.elect_dealer(tx, "alice")  # card 91 joins the Deck
        firsts = {p: [n.text.splitlines()[:2] for n in api.notices(tx, p)]
                  for p in ("alice", "bob")}
    assert firsts["alice"][2:] == [
        ["Nweek 1: the Blue Queen of Hearts (card 90) left your Hand: transferred to bob",
         "Why: under 'Proposal 7'"],
        ["Nweek 1: the Blue King of Hearts (card 91) left your Hand: it joined the Deck",
         "Why: you were elected Dealer, and the Dealer's cards are the Deck (rules 4 and 7)"]]
    assert firsts["bob"][1:] == [
        ["Nweek 1: you received the Blue Queen of Hearts (card 90) from alice",
         "Why: transferred under 'Proposal 7'"],
        ["Nweek 1: the Blue Ace of Clubs (card 92) left your Hand: transferred to the Deck",
         "Why: under 'Proposal 8'"]]
    with game.write() as tx:
        api.deal(tx, "carol", **scripted([5]))
        api.deal(tx, "carol", **scripted([6]))
        api.retire_player(tx, "carol")
        last = api.notices(tx, "carol")[-1]
    assert last.text.splitlines()[0] == (
        "Nweek 1: 2 cards (the Red 5 of Diamonds (card 5), the Red 6 of Diamonds (card 6)) "
        "left your Hand: returned to the Deck")
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_committed_dice_record_period_and_index(game: Nomic) -> None:
    with game.write() as tx:
        r1 = api.deal(tx, "alice")
        r2 = api.deal(tx, "bob")
    assert r1.rolls[0].period == 1 and r1.rolls[0].index == 0
    assert r2.rolls[0].index == len(r1.rolls)
    with game.write() as tx:
        info = api.dice_reveal(tx, force=True)
    assert info.next_commitment is not None
    with game.read() as tx:
        checks = api.dice_verify(tx).periods
    assert checks[0].revealed and checks[0].problems == () and checks[0].rolls == \
        len(r1.rolls) + len(r2.rolls)
    with game.write() as tx:
        r3 = api.deal(tx, "carol")
    assert r3.rolls[0].period == 2 and r3.rolls[0].index == 0


def test_dice_verify_names_a_roll_edited_in_the_tables(game: Nomic) -> None:
    with game.write() as tx:
        r = api.deal(tx, "alice")
        api.dice_reveal(tx, force=True)
    value = r.rolls[-1].value
    sql(game, "update rolls set value = :v where deal_seq = :s", v=value % 208 + 1, s=r.event)
    with game.read() as tx:
        report = api.dice_verify(tx)
    assert not report.ok and report.periods[0].problems == ()
    assert any(f"event {r.event} roll {len(r.rolls)}: the rolls table says {value % 208 + 1}"
               in p for p in report.tables)


def test_dice_verify_recomputes_from_the_log_not_the_tables(game: Nomic) -> None:
    with game.write() as tx:
        r = api.deal(tx, "alice")
        api.dice_reveal(tx, force=True)
    # a face edited inside the event's private fields (the tables left alone)
    data = json.loads(str(sql(game, "select data from event_private where seq = :s",
                              s=r.event)[0][0]))
    data["values"][0] = data["values"][0] % 208 + 1
    sql(game, "update event_private set data = :d where seq = :s",
        d=json.dumps(data, sort_keys=True, separators=(",", ":")), s=r.event)
    with game.read() as tx:
        problems = api.dice_verify(tx).periods[0].problems
    assert any(f"event {r.event} roll 1" in p and "the seed gives" in p for p in problems)


def test_dice_verify_catches_a_revealed_seed_edited_in_the_log(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        info = api.dice_reveal(tx, force=True)
    sql(game, "update events set payload = replace(payload, :a, :b) where kind = 'dice.revealed'",
        a=info.seed, b="00" * 32)
    with game.read() as tx:
        problems = api.dice_verify(tx).periods[0].problems
    assert any("does not match the commitment" in p for p in problems)
    with game.read() as tx:
        assert not api.ledger_verify(tx).ok


def test_empty_deck_takes_precedence(db_url: str) -> None:
    with new_game(db_url, packs=(("Tiny", "a test back"),), players=["alice"]) as g:
        for _ in range(52):
            with g.write() as tx:
                api.deal(tx, "alice")
        with g.read() as tx:
            before = api.ledger_verify(tx).events
        with g.write() as tx:  # the refusal is recorded, and committed with the transaction
            refused = api.deal(tx, "alice")
        assert refused.card is None and refused.refused is not None
        assert "the Deck contains no Cards" in refused.refused
        rows = sql(g, "select card, refused from deals where card is null")
        assert len(rows) == 1 and "rule 5" in str(rows[0][1])
        assert sql(g, "select count(*) from rolls where deal_seq = (select max(seq) from deals)") \
            == [(0,)]
        with g.read() as tx:
            report = api.ledger_verify(tx)
        assert report.ok and report.events == before + 1


def test_a_card_cannot_be_dealt_to_the_dealer(game: Nomic) -> None:
    with pytest.raises(RuleViolation, match="Dealer"), game.write() as tx:
        api.deal(tx, "PurpleBob")


def test_unknown_and_retired_players_cannot_be_dealt(game: Nomic) -> None:
    with pytest.raises(NotFound, match="no player named 'zed'"), game.write() as tx:
        api.deal(tx, "zed")
    with game.write() as tx:
        api.retire_player(tx, "carol")
    with pytest.raises(RuleViolation, match="retired"), game.write() as tx:
        api.deal(tx, "carol")


def test_duplicate_player_is_refused_and_nothing_written(game: Nomic) -> None:
    with game.read() as tx:
        before = api.ledger_verify(tx).events
    with pytest.raises(InputError, match="already exists"), game.write() as tx:
        api.add_player(tx, "alice")
    with game.read() as tx:
        assert api.ledger_verify(tx).events == before


def test_transfer_needs_a_rule_and_records_it(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
    with pytest.raises(RuleViolation, match="cite the rule"), game.write() as tx:
        api.transfer(tx, "90", "bob", "  ")
    with game.write() as tx:
        info = api.transfer(tx, "Blue Qh", "bob", "Proposal 142")
    assert (info.source, info.target, info.rule) == ("alice", "bob", "Proposal 142")
    with game.write() as tx:
        assert [c.number for c in api.hand(tx, "bob").cards] == [90]
        api.transfer(tx, "90", "deck", "Proposal 143")
        assert api.deck(tx).total == 208
    with pytest.raises(NotFound), game.write() as tx:
        api.transfer(tx, "999", "bob", "Proposal 1")


def test_transfer_from_refuses_a_card_that_is_elsewhere_and_writes_nothing(game: Nomic) -> None:
    """Rule 1 with ``--from``: a mistyped card number must not move someone else's card."""
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
        before = api.ledger_verify(tx).events
    refusals = [
        ("91", "alice", "card 91 is in the Deck, not in alice's hand"),  # one off
        ("90", "bob", "card 90 is in alice's hand, not in bob's hand"),
        ("90", "deck", "card 90 is in alice's hand, not in the Deck"),
        ("90", "PurpleBob", "card 90 is in alice's hand, not in the Deck"),  # the Dealer's
    ]
    for card, source, message in refusals:
        with (
            pytest.raises(RuleViolation, match=f"^{message}: check the card number"),
            game.write() as tx,
        ):
            api.transfer(tx, card, "bob", "Proposal 142", source=source)
    with pytest.raises(NotFound, match="no player named 'zed'"), game.write() as tx:
        api.transfer(tx, "90", "bob", "Proposal 142", source="zed")
    with pytest.raises(NotFound, match="no card numbered 999"), game.write() as tx:
        api.transfer(tx, "999", "bob", "Proposal 142", source="alice")
    with game.read() as tx:
        assert api.ledger_verify(tx).events == before
        assert [c.number for c in api.hand(tx, "alice").cards] == [90]
    # where the card is: it moves (names as everywhere: ALICE is alice)
    with game.write() as tx:
        info = api.transfer(tx, "Blue Qh", "bob", "Proposal 142", source="ALICE")
    assert (info.source, info.target) == ("alice", "bob")
    with game.write() as tx:
        info = api.transfer(tx, "91", "bob", "Proposal 143", source="the Deck")
    assert (info.source, info.target) == ("Deck", "bob")
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_new_dealers_hand_joins_the_deck(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
        api.deal(tx, "alice", **scripted([91]))
        merged = api.elect_dealer(tx, "alice")
    assert merged == ["Blue Qh", "Blue Kh"]
    with game.read() as tx:
        assert api.deck(tx).total == 208
        assert api.show_dealer(tx).dealer == "alice"
    # the old Dealer is now an ordinary player with an empty hand, who can be dealt cards
    with game.write() as tx:
        api.deal(tx, "PurpleBob", **scripted([1]))
        assert api.hand(tx, "PurpleBob").cards[0].card == "Red Ad"
        assert api.ledger_verify(tx).ok


def test_retiring_returns_the_hand_to_the_deck(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "bob", **scripted([3]))
        assert api.retire_player(tx, "bob") == ["Red 3d"]
        assert api.deck(tx).total == 208
    with pytest.raises(RuleViolation, match="elect another Dealer"), game.write() as tx:
        api.retire_player(tx, "PurpleBob")


def test_added_pack_is_numbered_next_and_grows_the_die(game: Nomic) -> None:
    with game.write() as tx:
        info = api.add_pack(tx, "Tarot-ish", "Purple backs with stars")
    assert info.number == 4 and info.sides == 260
    with game.write() as tx:
        r = api.deal(tx, "alice", **scripted([260]))
    assert r.card == "Tarot-ish Kc"
    with pytest.raises(InputError, match="already exists"), game.write() as tx:
        api.add_pack(tx, "red", "x")


def test_hand_as_of_event_and_time(db_url: str) -> None:
    with freeze_time("2026-01-01 12:00:00"):
        g = new_game(db_url, players=["alice"])
        with g.write() as tx:
            first = api.deal(tx, "alice", **scripted([10]))
    with g:
        with freeze_time("2026-01-02 12:00:00"), g.write() as tx:
            api.deal(tx, "alice", **scripted([20]))
            api.transfer(tx, "10", "deck", "Proposal 7")
        with g.read() as tx:
            assert [c.number for c in api.hand(tx, "alice").cards] == [20]
            assert [c.number for c in api.hand(tx, "alice", as_of=str(first.event)).cards] \
                == [10]
            assert [c.number for c in
                    api.hand(tx, "alice", as_of="2026-01-01T23:00:00Z").cards] == [10]
        with pytest.raises(InputError, match="as-of point"), g.read() as tx:
            api.hand(tx, "alice", as_of="yesterday")


def test_verify_catches_a_hand_edited_ownership_row(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([90]))
    alice = sql(game, "select id from players where name = 'alice'")[0][0]
    sql(game, "update ownership set holder_id = :a where card = 91", a=alice)
    with game.read() as tx:
        report = api.ledger_verify(tx)
    assert not report.ok
    assert any("card 91" in p.message and p.seq == 1 for p in report.problems)


def test_verify_catches_an_edited_event_and_names_it(game: Nomic) -> None:
    with game.write() as tx:
        r = api.deal(tx, "alice", **scripted([90]))
    data = sql(game, "select data from event_private where seq = :s", s=r.event)[0][0]
    sql(game, "update event_private set data = :d where seq = :s",
        d=str(data).replace('"card":90', '"card":91').replace("[90]", "[91]"), s=r.event)
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert any(p.seq == r.event and "do not match the commitment" in p.message
               for p in problems)
    # the replay now moves card 91, so the tables disagree with it too, card by card
    assert any("card 90" in p.message for p in problems)
    assert any("card 91" in p.message for p in problems)
    payload = sql(game, "select payload from events where seq = :s", s=r.event)[0][0]
    sql(game, "update events set payload = :p where seq = :s",
        p=str(payload).replace("dealt by the Dealer", "dealt by the Deal"), s=r.event)
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert any(p.seq == r.event and "hash does not match its stored content" in p.message
               for p in problems)


def test_verify_catches_a_deleted_event(game: Nomic) -> None:
    with game.write() as tx:
        gone = api.deal(tx, "alice", **scripted([90])).event
        api.deal(tx, "bob", **scripted([91]))
    sql(game, "delete from notices where seq = :s", s=gone)
    sql(game, "delete from rolls where deal_seq = :s", s=gone)
    sql(game, "delete from deals where seq = :s", s=gone)
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert any(p.seq == gone and f"deal of event {gone} is missing from the tables" in p.message
               for p in problems)


@pytest.mark.parametrize("column, value, named", [
    ("value", "7", "roll 2's value (rolls.value): the log has 90, the tables have 7"),
    ("sides", "100", "roll 2's sides (rolls.sides): the log has 208, the tables have 100"),
    ("source", "'system'", "roll 2's source (rolls.source): the log has 'manual', the tables "
                           "have 'system'"),
    ("position", "5", "roll 2's position (rolls.position): the log has 1, the tables have 5"),
])
def test_verify_names_the_changed_roll_field(game: Nomic, column: str, value: str,
                                             named: str) -> None:
    with game.write() as tx:
        api.deal(tx, "bob", **scripted([91]))
        taken = api.deal(tx, "alice", **scripted([91, 90]))  # 91 is not in the Deck: reroll
    sql(game, f"update rolls set {column} = {value} where deal_seq = :s and position = 1",
        s=taken.event)
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert [p.seq for p in problems] == [taken.event], problems
    assert named in problems[0].message, problems[0].message
    assert problems[0].message.startswith(f"deal of event {taken.event} (card 90 to alice")


def test_uninitialised_database_names_the_fix(db_url: str) -> None:
    from nomic_cards.core.store.migrate import migration_engine

    engine = migration_engine(db_url)
    with engine.connect():  # the database exists but holds no schema
        pass
    engine.dispose()
    with pytest.raises(DatabaseError, match=r"not initialised: run `nomic-cards init`"), \
            Nomic(db_url) as g, g.read() as tx:
        api.deck(tx)


def test_schema_behind_names_the_fix(game: Nomic) -> None:
    sql(game, "update alembic_version set version_num = '0003'")
    with pytest.raises(DatabaseError, match=r"run `nomic-cards init` to upgrade"), \
            Nomic(game.url) as fresh, fresh.read() as tx:
        api.deck(tx)


def test_unknown_schema_revision_is_refused_by_reads_and_init(game: Nomic) -> None:
    sql(game, "update alembic_version set version_num = 'ffff'")
    with pytest.raises(DatabaseError, match=r"revision 'ffff'.*another version"), \
            Nomic(game.url) as fresh, fresh.read() as tx:
        api.deck(tx)
    with pytest.raises(DatabaseError, match=r"revision 'ffff', which this nomic-cards does not "
                                            r"know"), Nomic(game.url) as fresh:
        api.init_game(fresh)
    assert sql(game, "select version_num from alembic_version") == [("ffff",)]


def test_init_twice_keeps_the_game(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
    result = api.init_game(game)
    assert not result.created
    with game.read() as tx:
        assert api.deck(tx).total == 207


def test_events_are_timed_by_the_injected_clock(db_url: str) -> None:
    with freeze_time("2030-05-06 07:08:09"):
        g = new_game(db_url)
    with g, g.read() as tx:
        at = api.log(tx, limit=1)[0].at
    assert datetime.fromisoformat(at) == datetime(2030, 5, 6, 7, 8, 9, tzinfo=UTC)


def test_dice_reveal_refuses_a_stored_seed_that_does_not_open_the_commitment(
        game: Nomic) -> None:
    from tests.test_cli import run

    with game.write() as tx:
        api.deal(tx, "alice")
    period, commitment = sql(game, "select id, commitment from dice_periods")[0]
    sql(game, "update dice_secrets set seed = :s where period_id = :p", s="ab" * 32, p=period)
    head = sql(game, "select seq, hash from ledger_head")
    periods = sql(game, "select * from dice_periods order by id")
    code, out, err = run(game.url, "dice", "reveal")
    assert code == 1 and out == "", out
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert f"the stored seed of dice period {period} does not match its commitment" in err
    assert sql(game, "select seq, hash from ledger_head") == head
    assert sql(game, "select * from dice_periods order by id") == periods
    assert sql(game, "select count(*) from events where kind = 'dice.revealed'") == [(0,)]
    # a seed that is not even hex is refused the same way
    sql(game, "update dice_secrets set seed = 'not hex' where period_id = :p", p=period)
    code, _, err = run(game.url, "dice", "reveal")
    assert code == 1 and "does not match its commitment" in err
    assert sql(game, "select seq, hash from ledger_head") == head
    assert commitment == periods[0][1]
