"""Shared fixtures: every database test runs against SQLite and PostgreSQL.

PostgreSQL comes from ``NOMIC_CARDS_TEST_PG`` (default: the server on 127.0.0.1:5432, database
``test``). Each test gets its own schema there, dropped afterwards. When the server is
unreachable the PostgreSQL variants are skipped — except under ``CI``, where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import psycopg  # noqa: F401 - imported before any test freezes time (its C part checks datetime)
import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.core.nomic import Nomic
from tests.game_time import EPOCH, day
from tests.helpers import new_game
from tests.mailbox import Kept, serving

PG_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PLUGINS = Path(__file__).resolve().parent / "plugins"


def _installed_as_in_source(plugin: Path) -> bool:
    """Whether the card game package in ``plugin`` is installed, file for file as its source."""
    from importlib.metadata import PackageNotFoundError, distribution

    name = next(line.split("=", 1)[1].strip().strip('"')
                for line in (plugin / "pyproject.toml").read_text().splitlines()
                if line.startswith("name"))
    try:
        dist = distribution(name)
    except PackageNotFoundError:
        return False
    packages = [d for d in plugin.iterdir() if (d / "__init__.py").is_file()]
    for source in (p for d in packages for p in d.rglob("*.py")):
        installed = Path(str(dist.locate_file(source.relative_to(plugin))))
        if not installed.is_file() or installed.read_bytes() != source.read_bytes():
            return False
    return True


def pytest_configure(config: pytest.Config) -> None:
    """Install the card games of tests/plugins/ into this environment, as a player of the
    nomic would install one (a package with the ``nomic_cards.games`` entry point), unless
    installed already as they are; once, before any test (xdist's workers find them)."""
    if hasattr(config, "workerinput"):
        return
    import importlib
    import subprocess
    import sys

    for plugin in sorted(p for p in PLUGINS.iterdir() if (p / "pyproject.toml").is_file()):
        if _installed_as_in_source(plugin):
            continue
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--no-build-isolation", "--force-reinstall", str(plugin)],
                       check=True, capture_output=True)
    importlib.invalidate_caches()


#: the groups of tests that need something outside Python, how a skip of each says so, and how
#: to install it (each group skips without it on a developer's machine and fails under ``CI``)
SKIPPED_GROUPS = (
    ("the page's tests", ("headless Chromium", "Playwright"),
     "apt-get install chromium, and pip install -e '.[test]'"),
    ("the bridge tests against Debian's dealer", ("Debian's dealer",), "apt-get install dealer"),
    ("the nginx block of docs/deploy.md", ("nginx is not installed",), "apt-get install nginx"),
    ("the IMAP tests against Debian's Dovecot", ("dovecot-imapd is not installed",),
     "apt-get install dovecot-imapd"),
    ("the PostgreSQL tests", ("PostgreSQL unreachable",),
     "apt-get install postgresql and start it, or point NOMIC_CARDS_TEST_PG at a server"),
)


def skipped_summary(reasons: list[str]) -> str | None:
    """One line naming each group of :data:`SKIPPED_GROUPS` that ``reasons`` (the skipped
    tests' reasons) skipped, how many of its tests, and how to install what it needs."""
    parts = []
    for group, marks, install in SKIPPED_GROUPS:
        count = sum(1 for r in reasons if any(m in r for m in marks))
        if count:
            parts.append(f"{group} ({count}: {install})")
    return f"skipped {'; '.join(parts)}" if parts else None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reasons.append(str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr))
    line = skipped_summary(reasons)
    if line is not None:
        terminalreporter.write_line(line, yellow=True, bold=True)


def pg_base_url() -> str:
    return os.environ.get("NOMIC_CARDS_TEST_PG", PG_DEFAULT)


_pg_state: dict[str, str | None] = {}


def pg_unreachable_reason() -> str | None:
    """None when the PostgreSQL server answers, else why not (checked once per session)."""
    if "reason" not in _pg_state:
        try:
            import psycopg

            url = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(url, connect_timeout=5) as conn:
                conn.execute("select 1")
            _pg_state["reason"] = None
        except Exception as exc:  # noqa: BLE001 - any failure means unreachable
            _pg_state["reason"] = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
    return _pg_state["reason"]


def _require_pg() -> None:
    reason = pg_unreachable_reason()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL at {pg_base_url()} is unreachable under CI: {reason}")
    pytest.skip(f"PostgreSQL unreachable: {reason}")


def new_pg_schema_url() -> tuple[str, str]:
    """A URL whose search_path is a fresh schema, and the schema's name."""

    schema = f"t_{uuid.uuid4().hex[:12]}"
    base = pg_base_url()
    with psycopg.connect(base.replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as conn:
        conn.execute(f'create schema "{schema}"')
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}", schema


def drop_pg_schema(schema: str) -> None:

    with psycopg.connect(pg_base_url().replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as conn:
        conn.execute(f'drop schema if exists "{schema}" cascade')


@pytest.fixture
def pg_url() -> Iterator[str]:
    """An empty PostgreSQL database (a fresh schema, dropped afterwards)."""
    _require_pg()
    url, schema = new_pg_schema_url()
    try:
        yield url
    finally:
        drop_pg_schema(schema)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.pg)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database (no schema yet) on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'game.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def game(db_url: str) -> Iterator[Nomic]:
    """A database holding the proposal's initial game (four packs, PurpleBob Dealer) and three
    players."""
    with new_game(db_url, players=("alice", "bob", "carol")) as g:
        yield g


@pytest.fixture
def sqlite_game(tmp_path: Path) -> Iterator[Nomic]:
    """The same game on SQLite only (for tests about files and processes)."""
    with new_game(f"sqlite:///{tmp_path / 'game.db'}", players=("alice", "bob", "carol")) as g:
        yield g


@pytest.fixture
def smtp() -> Iterator[tuple[str, Kept]]:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 keeping every message: its ``HOST:PORT``
    and what it kept."""
    kept = Kept()
    with serving(kept) as address:
        yield address, kept


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    """Game time for the test, frozen on the epoch; tests move it forward only (the ledger
    refuses an event dated before the one before it)."""
    with freeze_time(day(0)) as frozen:  # neither ticking nor auto-ticking: a frozen factory
        yield cast(FrozenDateTimeFactory, frozen)


@pytest.fixture
def weekly_players() -> tuple[str, ...]:
    """The players of the ``weekly`` game (a test module may override this fixture)."""
    return ("ann", "ben", "cat")


@pytest.fixture
def weekly(clock: FrozenDateTimeFactory, db_url: str,
           weekly_players: tuple[str, ...]) -> Iterator[Nomic]:
    """A game on each backend with 10-day nweeks from the epoch, on the frozen clock."""
    with new_game(db_url, epoch=EPOCH, nweek_days=10, players=weekly_players) as game:
        yield game
