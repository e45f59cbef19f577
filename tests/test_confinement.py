"""A card game stays in its lane (docs/games.md, "What a game may change"): its events move
only the cards of the packs bound to it by its rule in force (Rule 399) and Points only
through the SDK's ``pay``, as that game; its kinds and actions live in its own namespace. The
hostile games of ``tests/plugins/intruder`` try each way out: every one is refused when the
action records it and named by ``ledger verify`` when a ledger holds it, the victim's Hand
and Points are untouched, a package reaching into another's namespace is refused in one line
naming both, and every other game keeps loading and playing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time

from nomic_cards.cli import app as cli
from nomic_cards.core import api, engine, installed
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from tests.helpers import new_game

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
#: the entry point group of the hostile games (installed, but not as card games)
INTRUDERS = "nomic_cards.games.intruders"


def _cli(db: str, *args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    r = CliRunner().invoke(cli, ["--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def _clear() -> None:
    for cached in (installed._entry_points, installed.load, installed.load_all,
                   installed.rule):
        cached.cache_clear()


@contextmanager
def installed_as_games(*names: str) -> Iterator[None]:
    """The hostile games ``names`` installed as card games (their entry points in the group
    ``nomic_cards.games``) for the block."""
    import importlib.metadata as md

    real = md.entry_points
    extra = [ep for ep in real(group=INTRUDERS) if ep.name in names]
    assert len(extra) == len(names), "pip install tests/plugins/intruder (tests/conftest.py)"

    def entry_points(**kw: object) -> md.EntryPoints:
        found = real(**kw)  # type: ignore[arg-type]
        if kw.get("group") == installed.ENTRY_POINTS:
            return md.EntryPoints([*found, *extra])
        return found

    md.entry_points = entry_points  # type: ignore[assignment]
    _clear()
    try:
        yield
    finally:
        md.entry_points = real
        _clear()
        _forget_intruders()


def _forget_intruders() -> None:
    """The hostile packages' modules and kinds gone from this process (a later test imports
    them afresh), so that no other test meets them."""
    from nomic_cards.core.ledger import events, replay

    for kind_, cls in list(events._REGISTRY.items()):
        if cls.__module__.startswith("nomic_cards_intruder"):
            del events._REGISTRY[kind_]
            replay._STEPS.pop(cls, None)
    for module in [m for m in sys.modules if m.startswith("nomic_cards_intruder")]:
        del sys.modules[module]


@pytest.fixture
def grifter(db_url: str) -> Iterator[Nomic]:
    """Pooker on Red and Blue (points below zero allowed), Grifter on Fish, Corporate bound to
    no game; ann, the victim, holds Red As and Corporate As and 10 Points; mal is the thief."""
    with installed_as_games("grifter"), freeze_time(START), \
            new_game(db_url, players=("ann", "ben", "mal")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", ["points-below-zero=yes"],
                           proposal="P456")
            api.game_enact(tx, "grifter", "Fish", proposal="P600")
            for card in ("Red As", "Corporate As"):
                api.transfer(tx, card, "ann", "P601: a gift", source="deck")
            points.grant_points(tx, "ann", 10, rule="Scorekeeper's report")
        yield game


def _victim(game: Nomic) -> tuple[set[str], int]:
    with game.read() as r:
        cards = {c.card for c in api.hand(r, "ann").cards}
        return cards, {b.player: b.points for b in points.balances(r)}["ann"]


#: each attack, the card it names and what the refusal says
ATTACKS = {
    "pooker-card": ("Red As", "card game grifter's event moved a card of pack Red, which "
                              "card game pooker's rule binds, not one of the packs bound to "
                              "it (Fish)"),
    "loose-card": ("Corporate As", "card game grifter's event moved a card of pack "
                                   "Corporate, which no card game in force binds, not one of "
                                   "the packs bound to it (Fish)"),
    "owner-write": ("Red As", "card game grifter's event moved a card of pack Red"),
    "nested": ("Red As", "card game grifter's event applied another event from inside its "
                         "own"),
    "points-write": ("Fish 2c", "card game grifter's event changed Points other than by "
                                "paying them (the SDK's pay)"),
    "points-inplace": ("Fish 2c", "card game grifter's event changed Points other than by "
                                  "paying them (the SDK's pay)"),
    "pay-unsaid": ("Fish 2c", "card game grifter's grifter.took event paid 10 Point(s) "
                              "ann -> mal but says it moved none (its points_moves)"),
    "pay-as-pooker": ("Fish 2c", "card game grifter's grifter.took event cites "
                                 "'card game pooker: trade fee' for a movement of Points: a "
                                 "card game's cite it by name (card game grifter)"),
    "overdraw": ("Fish 2c", "ann paid 15 Point(s) holding 10: no balance goes below zero"),
    "pooker-state": ("Fish 2c", "card game grifter's event changed 'pooker', which is not its "
                                "own state"),
    "core-state": ("Fish 2c", "card game grifter's event changed the players, which only the "
                              "core's events do"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_games_event_out_of_its_lane_is_refused_and_the_victim_untouched(
        grifter: Nomic, attack: str) -> None:
    """The action records the event, its replay step tries the attack: refused in one line,
    nothing written, ann's Hand and Points as they were."""
    card, why = ATTACKS[attack]
    points_ = "15" if attack == "overdraw" else "10"
    with freeze_time(START + timedelta(hours=1)):
        before = _victim(grifter)
        code, out, err = _cli(grifter.url, "act", "grifter.take", "--as", "mal",
                              f"attack={attack}", "victim=ann", f"card={card}",
                              f"points={points_}")
        assert (code, out) == (1, "") and len(err.splitlines()) == 1, (code, out, err)
        assert why in err and "Traceback" not in err, err
        assert _victim(grifter) == before == ({"Red As", "Corporate As"}, 10)
        with grifter.read() as r:
            assert not [e for e in api.public_record(r) if e.kind == "grifter.took"]
            assert api.ledger_verify(r).ok


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_ledger_verify_names_a_games_event_out_of_its_lane_and_why(
        grifter: Nomic, attack: str) -> None:
    """The event recorded while its step did nothing, then replayed by a step that tries the
    attack (a package changed after the fact): ``ledger verify`` names the event and why."""
    from nomic_cards_intruder import ARMED

    card, why = ATTACKS[attack]
    points_ = "15" if attack == "overdraw" else "10"
    with freeze_time(START + timedelta(hours=1)):
        ARMED.discard(attack)
        try:
            code, _, err = _cli(grifter.url, "act", "grifter.take", "--as", "mal",
                                f"attack={attack}", "victim=ann", f"card={card}",
                                f"points={points_}")
        finally:
            ARMED.add(attack)
        assert code == 0, err
        with grifter.read() as r:
            seq = api.ledger_head(r).event
            problems = [str(p) for p in api.ledger_verify(r).problems]
        said = f"event {seq}: the grifter.took event cannot be replayed: {why}"
        assert any(p.startswith(said) for p in problems), problems
        code, out, _ = _cli(grifter.url, "ledger", "verify")
        assert code == 1 and said in out


def test_a_game_moving_its_own_cards_and_paying_through_pay_is_accepted(grifter: Nomic) -> None:
    with freeze_time(START + timedelta(hours=1)):
        code, _, err = _cli(grifter.url, "act", "grifter.take", "--as", "mal",
                            "attack=honest", "victim=ann", "card=Fish 2c")
        assert code == 0, err
        with grifter.read() as r:
            assert [c.card for c in api.hand(r, "mal").cards] == ["Fish 2c"]
            assert {b.player: b.points for b in points.balances(r)}["mal"] == 1
            assert api.ledger_verify(r).ok
        assert _victim(grifter) == ({"Red As", "Corporate As"}, 10)
        code, out, _ = _cli(grifter.url, "points", "history")
        assert code == 0 and "card game grifter: a take" in out


#: each hostile package refused when loaded, and what its one line names
REFUSED = {
    "gifted": "card game gifted (package nomic-cards-intruder) is refused: it declares event "
              "kind card.gifted, in the core's namespace (card.*): a card game's kinds are "
              "named after it (gifted.<what>)",
    "squatter": "card game squatter (package nomic-cards-intruder) is refused: it declares "
                "event kind pooker.gift, in the namespace of card game pooker (package "
                "nomic-cards): a card game's kinds are named after it (squatter.<what>)",
    "claimer": "card game claimer (package nomic-cards-intruder) is refused: it declares event "
               "kind pooker.traded, in the namespace of card game pooker (package "
               "nomic-cards): a card game's kinds are named after it (claimer.<what>)",
    "poacher": "card game poacher (package nomic-cards-intruder) is refused: it declares "
               "action pooker.gift, in the namespace of card game pooker (package "
               "nomic-cards): a card game's actions are named after it (poacher.<action>)",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_package_reaching_into_another_namespace_is_refused_in_one_line_naming_both(
        db_url: str, name: str) -> None:
    with installed_as_games(name), freeze_time(START), \
            new_game(db_url, players=("ann", "ben")) as game:
        code, out, err = _cli(game.url, "game", "enact", name, "--packs", "Fish",
                              "--proposal", "P9")
        assert (code, out, err) == (1, "", f"error: {REFUSED[name]}\n")
        assert name not in engine.games()
        assert installed.refused() == {name: REFUSED[name]}
        assert "pooker.gift" not in {a.name for a in engine.actions()}
        with game.read() as r:
            assert api.ledger_verify(r).ok


#: a fresh process: the package declaring one of Pooker's kinds is imported before Pooker
CLAIMER_FIRST = """
import sys
assert "nomic_cards.cardgames.pooker" not in sys.modules
try:
    import nomic_cards_intruder.claimer
except Exception as exc:
    print("refused:", type(exc).__name__, exc)
from nomic_cards.core import engine
game = engine.game("pooker")
print("pooker:", game.name, sorted(a.name for a in game.actions)[0])
"""


@pytest.mark.slow
def test_a_kind_claimed_by_two_packages_refuses_the_intruder_whichever_loads_first() -> None:
    done = subprocess.run([sys.executable, "-c", CLAIMER_FIRST], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    refused, loaded = done.stdout.splitlines()
    assert "event kind pooker.traded" in refused and "nomic-cards-intruder" in refused
    assert "card game pooker (package nomic-cards)" in refused
    assert loaded == "pooker: pooker pooker.declare"


def test_every_other_game_keeps_loading_and_playing_beside_refused_packages(
        db_url: str) -> None:
    with installed_as_games(*REFUSED, "grifter"), freeze_time(START), \
            new_game(db_url, players=("ann", "ben", "cat")) as game:
        assert set(REFUSED).isdisjoint(engine.games())
        assert {"pooker", "duel", "grifter"} <= set(engine.games())
        assert sorted(installed.refused()) == sorted(REFUSED)
        assert {"pooker.trade", "duel.challenge", "grifter.take"} <= {
            a.name for a in engine.actions()}
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
            api.game_enact(tx, "duel", "Corporate", proposal="P500")
            for card, who in (("Red As", "ann"), ("Red Kd", "ben"), ("Corporate As", "ann"),
                              ("Corporate Kd", "ben")):
                api.transfer(tx, card, who, "P601: a gift", source="deck")
            points.grant_points(tx, "ann", 5, rule="Scorekeeper's report")
            points.grant_points(tx, "ben", 5, rule="Scorekeeper's report")
        db = game.url
        assert _cli(db, "act", "pooker.trade", "--as", "ann", "with=ben",
                    "give=Red As", "get=Red Kd")[0] == 0
        code, out, err = _cli(db, "act", "pooker.trade", "--as", "ben", "with=ann",
                              "give=Red Kd", "get=Red As")
        assert code == 0, err
        assert _cli(db, "act", "duel.challenge", "--as", "ann", "opponent=ben")[0] == 0
        assert _cli(db, "act", "duel.commit", "--as", "ann", "duel=1",
                    "card=Corporate As")[0] == 0
        code, out, err = _cli(db, "act", "duel.commit", "--as", "ben", "duel=1",
                              "card=Corporate Kd")
        assert code == 0 and "ann won duel 1" in out, err
        with game.read() as r:
            assert {c.card for c in api.hand(r, "ann").cards} == {"Red Kd", "Corporate As"}
            assert api.ledger_verify(r).ok


def test_a_pack_leaves_a_game_only_once_nothing_of_it_is_under_way(db_url: str) -> None:
    """A Showdown's close returns the shown cards to the Deck; were their pack taken from
    Pooker first, the close would move cards no longer Pooker's, which its lane refuses. So a
    pack leaves a game, as the game itself is repealed, once its windows have closed."""
    from nomic_cards.cardgames.pooker import rules as pooker
    from nomic_cards.errors import RuleViolation

    with freeze_time(START) as clock, new_game(db_url, players=("ann", "ben")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
            for card in ("Red 2h", "Blue 2h"):
                api.transfer(tx, card, "ann", "P601: a gift", source="deck")
            pooker.showdown_open(tx, motion_passed="M")
            pooker.show(tx, "ann", ["Red 2h,Blue 2h"])
        with pytest.raises(RuleViolation, match=r"^card game pooker cannot lose a pack while 1 "
                                                r"of its windows are open \(the last, Showdown 1 "
                                                r"ends, ends .*: record the amendment once "
                                                r"`tick`"), \
                game.write() as tx:
            api.game_amend(tx, "pooker", packs="Red", proposal="P9")
        with game.write() as tx:
            api.game_amend(tx, "pooker", ["show-days=4"], proposal="P10")  # no pack lost
        clock.move_to(START + timedelta(days=5))
        with game.write() as tx:
            api.tick(tx)
            api.game_amend(tx, "pooker", packs="Red", proposal="P9")
        with game.read() as r:
            assert not api.hand(r, "ann").cards  # the close returned both
            assert api.ledger_verify(r).ok
