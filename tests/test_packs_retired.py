"""Retiring a pack (rule 2 amended; docs/rules.md, "Retired packs"): its cards leave the Deck
and every Hand with a notice to each holder, the public record counts them per Hand, the die
runs over the packs in play (faces renumbered in pack order, docs/dice.md), and dealing, replay,
``ledger verify``, ``dice reveal`` and the Dealer's Report honour the packs in play at each
moment."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from freezegun.api import FrozenDateTimeFactory
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.players import retire_pack
from nomic_cards.core.services.public import hand_as_of
from nomic_cards.errors import NotFound, RuleViolation
from tests.game_time import at, day
from tests.helpers import flat, scripted

runner = CliRunner()

#: the proposal's packs, numbered as rule 5 numbers them (pack 2 is Fish: cards 105 to 156)
RED, BLUE, FISH, CORPORATE = 0, 1, 2, 3


def events(game: Nomic) -> int:
    with game.read() as tx:
        return len(api.log(tx, limit=100_000))


def face_to_card(face: int, in_play: list[int]) -> int:
    """Rule 5's die over the packs in play, written out: face 1..52 is the first pack in play,
    53..104 the second, and so on; within a pack the proposal's order (card 52*pack + 1 ...)."""
    return in_play[(face - 1) // 52] * 52 + (face - 1) % 52 + 1


def test_face_numbering_reference() -> None:
    # the reference itself, against figures worked by hand: Fish retired, the Corporate
    # Ace of Diamonds (card 157) is now face 105 and the Corporate King of Clubs face 156
    assert face_to_card(105, [0, 1, 3]) == 157
    assert face_to_card(156, [0, 1, 3]) == 208
    assert face_to_card(104, [0, 1, 3]) == 104
    assert face_to_card(1, [1, 3]) == 53


def test_retiring_a_pack_takes_its_cards_out_of_deck_and_hands(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.deal(tx, "ann", **scripted([110]))  # Fish 6 of Diamonds
        api.deal(tx, "ann", **scripted([5]))  # Red
        api.deal(tx, "ben", **scripted([120]))  # Fish
        api.deal(tx, "ben", **scripted([130]))  # Fish
    at(clock, 2)
    with weekly.write() as tx:
        view = retire_pack(tx, "fish", proposal="Proposal 500")
    assert (view.number, view.name, view.proposal) == (FISH, "Fish", "Proposal 500")
    assert view.deck == 49 and view.hands == (("ann", 1), ("ben", 2))
    assert view.sides == 156
    with weekly.read() as tx:
        assert [c.number for c in api.hand(tx, "ann").cards] == [5]
        assert api.hand(tx, "ben").cards == ()
        deck = api.deck(tx)
    assert deck.total == 208 - 4 - 49 and deck.sides == 156
    assert [b.pack for b in deck.by_back] == ["Red", "Blue", "Corporate"]
    # each holder is told privately which of eir cards left; the third player nothing
    with weekly.read() as tx:
        notes = {n.player: n.text for n in api.notices(tx) if "left play" in n.text}
    assert set(notes) == {"ann", "ben"}
    assert "card 110" in notes["ann"] and "Proposal 500" in notes["ann"]
    assert "card 120" in notes["ben"] and "card 130" in notes["ben"]
    assert "card 110" not in notes["ben"]
    # the public record: counts per Hand, no card
    with weekly.read() as tx:
        event = next(e for e in api.log(tx, limit=1000) if e.kind == "pack.retired")
    assert event.payload == {"number": 2, "name": "Fish", "proposal": "Proposal 500",
                             "deck": 49, "hands": [{"player": "ann", "cards": 1},
                                                   {"player": "ben", "cards": 2}]}
    # the hand as of an event, from the history of moves (the server's path), agrees
    before, after = event.event - 1, event.event
    with weekly.read() as tx:
        assert [c.number for c in hand_as_of(tx, "ann", str(before)).cards] == [5, 110]
        assert [c.number for c in hand_as_of(tx, "ann", str(after)).cards] == [5]
        assert [c.number for c in api.hand(tx, "ann", as_of=str(before)).cards] == [5, 110]
        listed = api.list_packs(tx)
    assert [(p.number, p.retired) for p in listed] == [
        (0, None), (1, None), (2, event.event), (3, None)]
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_the_die_runs_over_the_packs_in_play(clock: FrozenDateTimeFactory,
                                             weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        retire_pack(tx, "Fish", proposal="P1")
    in_play = [RED, BLUE, CORPORATE]
    for face in (105, 156, 104, 1):
        with weekly.write() as tx:
            got = api.deal(tx, "ann", **scripted([face]))
        assert got.rolls[-1].sides == 156
        assert got.card_number == face_to_card(face, in_play)
    with weekly.read() as tx:
        assert api.hand(tx, "ann").cards[-1].card == "Corporate Kc"
    # a face that names a card not in the Deck is rolled again, as before
    with weekly.write() as tx:
        again = api.deal(tx, "ben", **scripted([105, 106]))
    assert [r.value for r in again.rolls] == [105, 106] and again.card_number == 158
    # a pack added later is numbered next and its faces follow the others
    with weekly.write() as tx:
        added = api.add_pack(tx, "Tarot", "stars")
    assert added.number == 4 and added.sides == 208
    in_play.append(4)
    with weekly.write() as tx:
        got = api.deal(tx, "cat", **scripted([200]))
    assert got.card_number == face_to_card(200, in_play) == 4 * 52 + 44
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_committed_dice_verify_and_reveal_honour_the_packs_in_play_then(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """A committed roll's face names a card by the packs in play when it was rolled: `dice
    verify` checks the faces, the replay the card each named, and `dice reveal` refuses while a
    card a face named then is held -- not the card the face's number would name today."""
    at(clock, 1)
    with weekly.write() as tx:
        api.deal(tx, "ann", **scripted([110]))
        retire_pack(tx, "Fish", proposal="P1")
    kept: list[int] = []
    for _ in range(60):  # committed dice until a face above 104 (one whose card moved)
        with weekly.write() as tx:
            got = api.deal(tx, "ben")
        kept.append(got.card_number or 0)
        faces = [r.value for r in got.rolls]
        assert got.card_number == face_to_card(faces[-1], [RED, BLUE, CORPORATE])
        if faces[-1] > 104:
            break
    else:
        pytest.fail("sixty committed deals without a face above 104")
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok
        assert api.dice_verify(tx, secret=True).ok
    # every card back in the Deck but the last, whose face (above 104) is a Fish card's number
    # by the old numbering: the reveal looks for the card the face named when rolled
    for card in kept[:-1]:
        with weekly.write() as tx:
            api.transfer(tx, str(card), "deck", "Proposal 2")
    assert kept[-1] > 156
    with (
        pytest.raises(RuleViolation, match="1 card\\(s\\) still in players' hands"),
        weekly.write() as tx,
    ):
        api.dice_reveal(tx)
    with weekly.write() as tx:
        api.transfer(tx, str(kept[-1]), "deck", "Proposal 2")
        revealed = api.dice_reveal(tx)
    assert revealed.rolls >= len(kept)
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_bad_retirements_are_refused_and_write_nothing(clock: FrozenDateTimeFactory,
                                                       weekly: Nomic) -> None:
    at(clock, 1)
    before = events(weekly)
    with pytest.raises(NotFound, match="no pack 'Tarot'"), weekly.write() as tx:
        retire_pack(tx, "Tarot", proposal="P1")
    with pytest.raises(NotFound, match="no pack '9'"), weekly.write() as tx:
        retire_pack(tx, "9", proposal="P1")
    with pytest.raises(Exception, match="--proposal"), weekly.write() as tx:
        retire_pack(tx, "Fish", proposal="  ")
    with weekly.write() as tx:
        api.game_enact(tx, "pooker", "Blue", [], proposal="P456")
    before = events(weekly)
    with (
        pytest.raises(RuleViolation, match="belongs to card game pooker"),
        weekly.write() as tx,
    ):
        retire_pack(tx, "1", proposal="P1")
    assert events(weekly) == before
    with weekly.write() as tx:
        retire_pack(tx, "Fish", proposal="P2")
    before = events(weekly)
    with pytest.raises(RuleViolation, match="already retired"), weekly.write() as tx:
        retire_pack(tx, "FISH", proposal="P3")
    with pytest.raises(RuleViolation, match="binding|retired"), weekly.write() as tx:
        api.game_amend(tx, "pooker", packs="Blue,Fish", proposal="P4")
    with weekly.write() as tx:
        retire_pack(tx, "Red", proposal="P5")
        api.game_repeal(tx, "pooker", proposal="P6")
        retire_pack(tx, "Blue", proposal="P7")
    before = events(weekly)
    with pytest.raises(RuleViolation, match="last pack in play"), weekly.write() as tx:
        retire_pack(tx, "Corporate", proposal="P8")
    assert events(weekly) == before
    # a card of a retired pack is out of play: it cannot be moved
    with pytest.raises(RuleViolation, match="retired"), weekly.write() as tx:
        api.transfer(tx, "110", "ann", "Proposal 9")
    with weekly.read() as tx:
        assert api.deck(tx).sides == 52
        assert api.ledger_verify(tx).ok


def test_the_dealers_report_names_the_retirement_without_cards(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.deal(tx, "ann", **scripted([110]))
    at(clock, 3)
    with weekly.write() as tx:
        retire_pack(tx, "Fish", proposal="Proposal 500")
    at(clock, 10)
    with weekly.write() as tx:
        api.tick(tx)
        text = api.report(tx, 1).body
    line = ("2026-01-04T00:00:00Z pack 2 (Fish) retired by 'Proposal 500': 52 cards left "
            "play, 51 from the Deck, 1 from ann's Hand")
    assert f"\nPacks retired in this nweek:\n  {line[:30]}" in text
    assert flat(f"Packs retired in this nweek: {line} Ledger head") in flat(text)
    # the card's number as a number of its own: the report's hashes are hex, and may hold "110"
    assert re.search(r"\b110\b", text) is None and "6 of Diamonds" not in text
    with weekly.read() as tx:
        doc = json.loads(api.report(tx, 1, fmt="json").body)
    assert doc["packs_retired"] == [{"at": "2026-01-04T00:00:00Z", "pack": 2, "name": "Fish",
                                     "proposal": "Proposal 500", "deck": 51,
                                     "hands": [{"player": "ann", "cards": 1}]}]
    # an nweek without a retirement reads as before
    at(clock, 20)
    with weekly.write() as tx:
        api.tick(tx)
        assert "Packs retired" not in api.report(tx, 2).body


def test_cards_for_votes_after_a_retirement_deal_from_the_packs_in_play(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    for p in ("ann", "ben", "cat"):
        with weekly.write() as tx:
            api.record_vote(tx, p, "1")
    for name in ("Red", "Blue", "Fish"):
        with weekly.write() as tx:
            retire_pack(tx, name, proposal=f"Retire {name}")
    at(clock, 10)
    with weekly.write() as tx:
        api.tick(tx)
    for p in ("ann", "ben", "cat"):
        with weekly.read() as tx:
            (card,) = api.hand(tx, p).cards
        assert 157 <= card.number <= 208
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_verify_refuses_a_deal_by_the_old_numbering(clock: FrozenDateTimeFactory,
                                                    weekly: Nomic) -> None:
    """A deal recorded as if the retired pack were still on the die (the face taken as the card
    number, on the old die) is named by the replay."""
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    at(clock, 1)
    with weekly.write() as tx:
        retire_pack(tx, "Fish", proposal="P1")
    with weekly.read() as tx:
        state = State()
        for rec in tx.events():
            apply_event(state, rec.seq, rec.event, rec.at)
    when = datetime(2026, 1, 2, tzinfo=UTC)
    old_die = ev.CardDealt("ann", "x", 1, ev.DiceUse("manual", 208, None, None, 1), 160, (160,),
                           "n")
    with pytest.raises(ReplayError, match="d156"):
        apply_event(state, state.seq + 1, old_die, when)
    face_as_card = ev.CardDealt("ann", "x", 1, ev.DiceUse("manual", 156, None, None, 1), 110,
                                (110,), "n")
    with pytest.raises(ReplayError, match="card 110 was dealt but it is not in the Deck"):
        apply_event(state, state.seq + 1, face_as_card, when)
    wrong_card = ev.CardDealt("ann", "x", 1, ev.DiceUse("manual", 156, None, None, 1), 163,
                              (110,), "n")
    with pytest.raises(ReplayError, match="do not end with card 163"):
        apply_event(state, state.seq + 1, wrong_card, when)
    wrong_count = ev.PackRetired(1, "Blue", "P2", 50, ())
    with pytest.raises(ReplayError, match="52 were in the Deck"):
        apply_event(state, state.seq + 1, wrong_count, when)
    gone = ev.PackRetired(2, "Fish", "P2", 0, ())
    with pytest.raises(ReplayError, match="already retired"):
        apply_event(state, state.seq + 1, gone, when)
    # the same deal by the new numbering replays: face 110 is the Corporate 6 of Diamonds
    right = ev.CardDealt("ann", "x", 1, ev.DiceUse("manual", 156, None, None, 1), 162, (110,),
                         "n")
    apply_event(state, state.seq + 1, right, when)
    assert state.owner[162] == "ann"


def test_pack_retire_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, ["--db", db, *args])
        return result.exit_code, result.output

    assert run("--at", day(0), "init", "--epoch", "2026-01-01")[0] == 0
    assert run("--at", day(0), "player", "add", "ann")[0] == 0
    code, out = run("--at", day(1), "pack", "retire", "2", "--proposal", "Proposal 500",
                    "--json")
    assert code == 0, out
    assert json.loads(out) | {"event": 0} == {
        "number": 2, "name": "Fish", "proposal": "Proposal 500", "deck": 52, "hands": [],
        "sides": 156, "event": 0}
    code, out = run("pack", "list")
    assert "2  Fish:" in out and "(retired by event" in out
    code, out = run("--at", day(1), "pack", "retire", "Fish", "--proposal", "P")
    assert code != 0 and len(out.strip().splitlines()) == 1 and "already retired" in out
