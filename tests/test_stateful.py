"""Hypothesis stateful test: any sequence of deals, transfers, pack additions, elections,
registrations and retirements keeps every card in exactly one place and ``verify`` clean —
against the real database, checked after every step."""

from __future__ import annotations

import contextlib
import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from nomic_cards.core import services
from nomic_cards.errors import NomicCardsError
from tests.conftest import drop_pg_schema, new_pg_schema_url
from tests.helpers import new_game


def make_machine(backend: str, tmp: str) -> type[RuleBasedStateMachine]:
    class Game(RuleBasedStateMachine):
        counter = 0

        @initialize()
        def setup(self) -> None:
            Game.counter += 1
            self.schema = None
            if backend == "sqlite":
                self.url = f"sqlite:///{tmp}/stateful-{os.getpid()}-{Game.counter}.db"
            else:
                self.url, self.schema = new_pg_schema_url()
            self.game = new_game(self.url, packs=(("Red", "red"), ("Blue", "blue")))
            self.players = ["PurpleBob"]
            self.packs = 2

        def teardown(self) -> None:
            self.game.close()
            if self.schema:
                drop_pg_schema(self.schema)

        @rule(name=st.sampled_from(["ann", "ben", "cat", "dan"]))
        def register(self, name: str) -> None:
            try:
                services.add_player(self.game, name)
                self.players.append(name)
            except NomicCardsError:
                assert name in self.players

        @precondition(lambda self: len(self.players) > 1)
        @rule(data=st.data())
        def deal(self, data: st.DataObject) -> None:
            who = data.draw(st.sampled_from(self.players))
            # refused for the Dealer, a retired player, or an empty Deck
            with contextlib.suppress(NomicCardsError):
                services.deal(self.game, who, source="system")

        @rule(data=st.data())
        def transfer(self, data: st.DataObject) -> None:
            card = data.draw(st.integers(1, 52 * self.packs))
            to = data.draw(st.sampled_from([*self.players, "deck"]))
            with contextlib.suppress(NomicCardsError):
                services.transfer(self.game, str(card), to, "Proposal 42")

        @precondition(lambda self: self.packs < 4)
        @rule()
        def add_pack(self) -> None:
            services.add_pack(self.game, f"Pack{self.packs}", "a back")
            self.packs += 1

        @rule(data=st.data())
        def elect(self, data: st.DataObject) -> None:
            with contextlib.suppress(NomicCardsError):
                services.elect_dealer(self.game, data.draw(st.sampled_from(self.players)))

        @rule(data=st.data())
        def retire(self, data: st.DataObject) -> None:
            with contextlib.suppress(NomicCardsError):
                services.retire_player(self.game, data.draw(st.sampled_from(self.players)))

        @invariant()
        def every_card_in_exactly_one_place(self) -> None:
            report = services.ledger_verify(self.game)
            assert report.ok, [str(p) for p in report.problems]
            assert report.cards == 52 * self.packs
            deck = services.deck(self.game).total
            held = sum(p.cards for p in services.list_players(self.game) if not p.dealer)
            assert deck + held == 52 * self.packs

    return Game


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_any_sequence_keeps_cards_in_one_place(backend: str, tmp_path: object) -> None:
    if backend == "postgresql":
        from tests.conftest import _require_pg

        _require_pg()
    machine = make_machine(backend, str(tmp_path))
    machine.TestCase.settings = settings(
        max_examples=12 if backend == "sqlite" else 6, stateful_step_count=15, deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    machine.TestCase().runTest()
