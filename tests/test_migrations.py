"""The schema exists only through Alembic migrations, and models and migrations cannot drift."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from nomic_cards.core.store.engine import make_engine
from nomic_cards.core.store.migrate import alembic_config, head_revision, upgrade


def test_upgrade_head_then_alembic_check_finds_no_drift(db_url: str) -> None:
    engine = make_engine(db_url, must_exist=False)
    try:
        upgrade(engine)
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

    from nomic_cards.core.store.migrate import HEAD_REVISION, KNOWN_REVISIONS

    script = ScriptDirectory.from_config(alembic_config())
    fix = "a new migration needs its id in HEAD_REVISION and KNOWN_REVISIONS (store/migrate.py)"
    assert script.get_current_head() == HEAD_REVISION, fix
    known = [r.revision for r in script.walk_revisions("base", "heads")]
    assert sorted(known) == sorted(KNOWN_REVISIONS), fix
    assert KNOWN_REVISIONS[-1] == HEAD_REVISION
