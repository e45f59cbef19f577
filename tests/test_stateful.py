"""Hypothesis stateful test: any sequence of deals, transfers, pack additions, elections,
registrations and retirements keeps every card in exactly one place and ``verify`` clean —
against the real database, checked after every step."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from nomic_cards.core import api
from nomic_cards.errors import NomicCardsError
from tests.conftest import drop_pg_schema, new_pg_schema_url
from tests.helpers import new_game

#: Every kind of action; each must be accepted at least once in a run (an action that is always
#: refused would otherwise hide behind the refusals the rules allow).
KINDS = ("register", "deal", "transfer", "add_pack", "elect", "retire")


def make_machine(backend: str, tmp: str,
                 accepted: Counter[str]) -> type[RuleBasedStateMachine]:
    @contextmanager
    def attempt(kind: str, refusal_allowed: Callable[[], bool] = lambda: True) -> Iterator[None]:
        """Run one action: count it if accepted; a refusal must be one of the project's errors
        (and allowed at that point)."""
        try:
            yield
        except NomicCardsError:
            assert refusal_allowed(), f"{kind} refused"
        else:
            accepted[kind] += 1

    class Nomic(RuleBasedStateMachine):
        counter = 0

        @initialize()
        def setup(self) -> None:
            Nomic.counter += 1
            self.schema = None
            if backend == "sqlite":
                self.url = f"sqlite:///{tmp}/stateful-{os.getpid()}-{Nomic.counter}.db"
            else:
                self.url, self.schema = new_pg_schema_url()
            self.game = new_game(self.url, packs=(("Red", "red"), ("Blue", "blue")))
            self.players = ["PurpleBob"]
            self.packs = 2

        def teardown(self) -> None:
            self.game.close()
            if self.schema:
                drop_pg_schema(self.schema)

        def active(self) -> set[str]:
            with self.game.read() as tx:
                return {p.name for p in api.list_players(tx) if p.active}

        @rule(name=st.sampled_from(["ann", "ben", "cat", "dan"]))
        def register(self, name: str) -> None:
            known = name in self.players and name in self.active()  # a retired one rejoins
            with attempt("register", lambda: known):
                with self.game.write() as tx:
                    api.add_player(tx, name)
                assert not known, f"{name} registered twice"
                if name not in self.players:
                    self.players.append(name)

        @precondition(lambda self: len(self.players) > 1)
        @rule(data=st.data())
        def deal(self, data: st.DataObject) -> None:
            who = data.draw(st.sampled_from(self.players))
            # refused for the Dealer, a retired player, or an empty Deck
            with attempt("deal"), self.game.write() as tx:
                api.deal(tx, who, source="system")

        @rule(data=st.data())
        def transfer(self, data: st.DataObject) -> None:
            card = data.draw(st.integers(1, 52 * self.packs))
            to = data.draw(st.sampled_from([*self.players, "deck"]))
            with attempt("transfer"), self.game.write() as tx:
                api.transfer(tx, str(card), to, "Proposal 42")

        @precondition(lambda self: self.packs < 4)
        @rule()
        def add_pack(self) -> None:
            with attempt("add_pack", lambda: False):
                with self.game.write() as tx:
                    api.add_pack(tx, f"Pack{self.packs}", "a back")
                self.packs += 1

        @precondition(lambda self: len(self.players) > 1)
        @rule(data=st.data(), again=st.booleans())
        def elect(self, data: st.DataObject, again: bool) -> None:
            """Elect another player (refused for a retired one), or now and then the Dealer
            again (always refused): a draw over every player would mostly draw the Dealer,
            the first of them, and never elect anyone."""
            with self.game.read() as tx:
                dealer = api.show_dealer(tx).dealer
            others = [p for p in self.players if p != dealer]
            who = dealer if again and dealer else data.draw(st.sampled_from(others))
            with (
                attempt("elect", lambda: who == dealer or who not in self.active()),
                self.game.write() as tx,
            ):
                api.elect_dealer(tx, who)

        @precondition(lambda self: len(self.players) > 1)
        @rule(data=st.data(), dealer=st.booleans())
        def retire(self, data: st.DataObject, dealer: bool) -> None:
            """Retire a player other than the Dealer (refused for one retired already), or now
            and then the Dealer (always refused): as for ``elect``, a draw over every player
            would mostly draw the Dealer."""
            with self.game.read() as tx:
                now = api.show_dealer(tx).dealer
            others = [p for p in self.players if p != now]
            who = now if dealer and now else data.draw(st.sampled_from(others))
            with attempt("retire"), self.game.write() as tx:
                api.retire_player(tx, who)

        @invariant()
        def every_card_in_exactly_one_place(self) -> None:
            with self.game.read() as tx:
                report = api.ledger_verify(tx)
            assert report.ok, [str(p) for p in report.problems]
            assert report.cards == 52 * self.packs
            with self.game.read() as tx:
                deck = api.deck(tx).total
                held = sum(p.cards for p in api.list_players(tx) if not p.dealer)
            assert deck + held == 52 * self.packs

    return Nomic


@pytest.mark.slow
@pytest.mark.parametrize("backend", [
    "sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def test_any_sequence_keeps_cards_in_one_place(backend: str, tmp_path: object) -> None:
    if backend == "postgresql":
        from tests.conftest import _require_pg

        _require_pg()
    accepted: Counter[str] = Counter()
    machine = make_machine(backend, str(tmp_path), accepted)
    machine.TestCase.settings = settings(
        max_examples=12, stateful_step_count=15, deadline=None,
        suppress_health_check=list(HealthCheck), derandomize=True, database=None,
    )
    machine.TestCase().runTest()
    never = [k for k in KINDS if accepted[k] == 0]
    assert never == [], f"never accepted: {never} (accepted: {dict(accepted)})"
