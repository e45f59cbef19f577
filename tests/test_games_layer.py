"""The card game engine: a small card game, Tribute, declared from code with the SDK alone and
registered with the engine, plays on the ledger; the engine's registry of actions."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from datetime import date

import pytest
from freezegun import freeze_time

from nomic_cards.cardgames.sdk import (
    ActionField,
    ActionOutcome,
    ActionSpec,
    CardGame,
    Event,
    Param,
    RuleViolation,
    State,
    Tx,
    parse_card_ref,
    require_player,
)
from nomic_cards.core import api, engine
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from tests.helpers import new_game

# --- the whole game -------------------------------------------------------------------------

RULE = "card game tribute"


def verify_tribute(state: State, player: str, card: int) -> str:
    """Raise unless ``player`` may pay ``card`` as Tribute; eir registered name."""
    if not state.in_force("tribute"):
        raise RuleViolation("card game tribute is not in force")
    name = require_player(state, player)
    if card not in state.pcards("tribute"):
        raise RuleViolation(f"card {card} is not a card of card game tribute")
    if state.owner.get(card) != name:
        raise RuleViolation(f"card {card} is not in {name}'s Hand")
    return name


def can_tribute(state: State, player: str, card: int) -> bool:
    try:
        verify_tribute(state, player, card)
    except RuleViolation:
        return False
    return True


def tribute(state: State, player: str, card: int) -> list[Event]:
    """The events of a Tribute: the card to the Deck, Points from the Bank, both citing the
    game's rule."""
    change = state.rule("tribute")
    assert change is not None
    earned = int(change.params.get("points", 3))
    return [ev.CardTransferred(card, player, None, RULE),
            ev.PointsMoved(None, player, earned, RULE)]


def pay_tribute(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    card = parse_card_ref(tx.state, str(body["card"]))
    name = verify_tribute(tx.state, actor, card)
    recs = tx.record(tribute(tx.state, name, card))
    return ActionOutcome(tuple(r.seq for r in recs), summary=f"{name} paid Tribute")


TRIBUTE = engine.register(CardGame(
    "tribute", "Tribute (a card game)",
    "A Player may pay Tribute: one card of the game from eir Hand to the Deck, for Points.",
    (Param("points", "int", 3, "Points from the Bank for one Tribute", 1, 100),),
    actions=(ActionSpec("tribute.pay", "player",
                        "Pay one card of your Hand as Tribute, for Points.",
                        (ActionField("card", "text", "the card, e.g. 'Fish 2c'"),),
                        pay_tribute),)))

# --- the test carries it out --------------------------------------------------------------


@pytest.fixture
def fish(db_url: str) -> Iterator[Nomic]:
    with freeze_time("2026-01-01 10:00:00"), new_game(
            db_url, epoch=date(2026, 1, 1), players=("ann", "ben")) as game:
        yield game


def test_the_worked_example_adds_a_game_that_plays_on_the_ledger(fish: Nomic) -> None:
    with fish.write() as tx:
        api.game_enact(tx, "tribute", "Fish", ["points=4"], proposal="P600")
        api.transfer(tx, "Fish 2c", "ann", "P601: a gift", source="deck")
        api.transfer(tx, "Red 2c", "ann", "P601: a gift", source="deck")
    [action] = [a for a in engine.actions() if a.name == "tribute.pay"]
    with fish.write() as tx:
        outcome = action.run(tx, "ann", {"card": "Fish 2c"})
    assert len(outcome.seqs) == 2 and not outcome.waiting
    with fish.read() as tx:
        assert [c.card for c in api.hand(tx, "ann").cards] == ["Red 2c"]
        assert {b.player: b.points for b in points.balances(tx)}["ann"] == 4
    with pytest.raises(RuleViolation, match="not a card of card game tribute"), \
            fish.write() as tx:
        action.run(tx, "ann", {"card": "Red 2c"})
    with pytest.raises(RuleViolation, match="not in ben's Hand"), fish.write() as tx:
        action.run(tx, "ben", {"card": "Fish 2c"})
    with fish.read() as tx:
        assert not can_tribute(tx.state, "ann", parse_card_ref(tx.state, "Fish 2c"))
    with fish.read() as tx:
        assert api.ledger_verify(tx).ok


def test_every_game_declares_its_actions_once_for_every_adapter() -> None:
    names = {a.name: a for a in engine.actions()}
    assert {"pooker.trade", "pooker.show", "pooker.motion", "pooker.vote",
            "pooker.showdown_open", "tribute.pay"} <= set(names)
    assert names["pooker.trade"].private and not names["pooker.show"].private
    assert names["pooker.showdown_open"].scope == "dealer"
    assert {f.name for f in names["pooker.trade"].fields} == {"with", "give", "get"}


def test_every_private_field_is_stored_under_its_own_name() -> None:
    """The codec splits private fields by payload key: a private field renamed in JSON would
    stay public."""
    for cls in ev.EVENT_TYPES.values():
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in cls.PRIVATE:
                assert f.metadata.get("json", f.name) == f.name, (cls.KIND, f.name)


def test_a_trade_notification_publishes_its_author_and_expiry_only(fish: Nomic) -> None:
    with fish.write() as tx:
        api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        api.transfer(tx, "Red As", "ann", "P601: a gift", source="deck")
        points.grant_points(tx, "ann", 1, rule="Scorekeeper")
    from nomic_cards.cardgames.pooker import rules as pooker
    with fish.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Blue Kd"], "ben")
        [row] = [r for r in api.public_record(tx) if r.kind == "pooker.notified"]
    assert json.loads(row.payload) == {"expires": "2026-01-08T10:00:00Z", "player": "ann"}
