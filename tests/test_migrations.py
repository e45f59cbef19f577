"""The schema exists only through Alembic migrations, and models and migrations cannot drift."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from nomic_cards.core.store.migrate import alembic_config, migration_engine, upgrade
from nomic_cards.core.store.schema import head_revision
from nomic_cards.errors import NotFound


def test_upgrade_head_then_alembic_check_finds_no_drift(db_url: str) -> None:
    upgrade(db_url)
    engine = migration_engine(db_url)
    try:
        cfg = alembic_config()
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.check(cfg)  # raises if the models differ from the migrations
        names = set(inspect(engine).get_table_names())
        assert {"events", "ledger_head", "packs", "cards", "players", "dealer_terms",
                "ownership", "dice_periods", "rolls", "deals", "notices"} <= names
        with engine.connect() as conn:
            rev = conn.exec_driver_sql("select version_num from alembic_version").scalar()
        assert rev == head_revision()
    finally:
        engine.dispose()


def test_no_create_all_anywhere() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offenders = [
        str(p) for folder in ("nomic_cards", "migrations", "tests", "scripts")
        for p in (root / folder).rglob("*.py")
        if "create_all(" in p.read_text(encoding="utf-8") and p.name != "test_migrations.py"
    ]
    assert offenders == []


def test_head_revision_constant_is_alembics_head() -> None:
    from alembic.script import ScriptDirectory

    from nomic_cards.core.store.schema import HEAD_REVISION, KNOWN_REVISIONS

    script = ScriptDirectory.from_config(alembic_config())
    fix = "a new migration needs its id in HEAD_REVISION and KNOWN_REVISIONS (store/schema.py)"
    assert script.get_current_head() == HEAD_REVISION, fix
    known = [r.revision for r in script.walk_revisions("base", "heads")]
    assert sorted(known) == sorted(KNOWN_REVISIONS), fix
    assert KNOWN_REVISIONS[-1] == HEAD_REVISION


def test_card_moves_are_filled_in_for_an_existing_ledger_and_answer_as_the_replay(
        db_url: str) -> None:
    """0006 fills ``card_moves`` in from the events of a ledger made before it; a hand as of
    every event, read from that table, is the one a replay of the log gives; ``ledger verify``
    finds a move edited in the table."""
    from freezegun import freeze_time

    from nomic_cards.core import api
    from nomic_cards.core.services import public
    from tests.helpers import new_game, scripted, sql

    with freeze_time("2026-03-01 12:00:00"):
        game = new_game(db_url, players=("ann", "ben", "cat"))
    with game, freeze_time("2026-03-01 13:00:00"):
        for who, roll in (("ann", 5), ("ben", 60), ("ann", 61), ("cat", 7), ("ben", 5)):
            with game.write() as tx:
                api.deal(tx, who, **scripted([roll, 100, 101, 102]))
        with game.write() as tx:
            first = api.hand(tx, "ann").cards[0].number
            api.transfer(tx, str(first), "ben", "rule 1")
            api.transfer(tx, str(api.hand(tx, "cat").cards[0].number), "deck",
                              "rule 2")
            api.retire_player(tx, "ben")
            api.elect_dealer(tx, "cat")
        cfg = alembic_config()
        engine = migration_engine(game.url)
        try:
            with engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.downgrade(cfg, "0005")
            assert "card_moves" not in inspect(engine).get_table_names()
        finally:
            engine.dispose()
        upgrade(game.url)
        with game.read() as tx:
            assert api.ledger_verify(tx).ok
            last = api.ledger_head(tx).event
        for seq in range(1, last + 1):
            for player in ("ann", "ben", "cat"):
                try:
                    with game.read() as tx:
                        replayed = [c.number for c in
                                    api.hand(tx, player, as_of=str(seq)).cards]
                except NotFound:
                    replayed = None
                try:
                    with game.read() as tx:
                        read = [c.number for c in
                                public.hand_as_of(tx, player, str(seq)).cards]
                except NotFound:
                    read = None
                assert read == replayed, (seq, player)
        sql(game, "update card_moves set holder_id = null where card = :c and holder_id is "
                  "not null", c=first)
        with game.read() as tx:
            problems = api.ledger_verify(tx).problems
        assert any(f"the move of card {first} to" in p.message for p in problems), problems
