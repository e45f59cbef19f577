"""Read commands load no more than they need: no SQLAlchemy, no Alembic (unless migrating), no
numpy, no pydantic.

Checked in a fresh interpreter through ``sys.modules`` (not by timing): the figures themselves
are measured by ``scripts/bench_startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nomic_cards.cli import main as _main  # noqa: F401  (the entry point must import)
from tests.helpers import new_game

PROBE = """
import json, sys
from nomic_cards.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = sorted({m.split('.')[0] for m in sys.modules}
               & {'alembic', 'numpy', 'flint', 'lark', 'mako', 'pydantic_settings',
                  'sqlalchemy', 'pydantic', 'starlette', 'icu'})
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""

READS = [
    ["hand", "alice"], ["deck"], ["log"], ["report", "1"], ["player", "list"],
    ["dealer", "show"], ["clock"], ["notices", "list"], ["dice", "commitment"],
    ["dice", "verify"], ["ledger", "verify"], ["rules", "show"], ["rules", "history"],
    ["pooker", "status"], ["points", "show"], ["points", "history"], ["--help"],
]


@pytest.fixture(scope="module")
def small_game(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("startup") / "g.db")
    game = new_game(db, players=["alice", "bob"])
    game.close()
    return db


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_read_command_imports_nothing_heavy(small_game: str, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, "--db", small_game, *args],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(small_game).parent)
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe["code"] in (0, None), done.stderr
    assert probe["heavy"] == [], f"{' '.join(args)} imported {probe['heavy']}"


def test_init_does_use_alembic(tmp_path: Path) -> None:
    """The probe can see Alembic when it is loaded (so the test above can fail)."""
    done = subprocess.run([sys.executable, "-c", PROBE, "--db", str(tmp_path / "n.db"), "init"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe["code"] in (0, None) and "alembic" in probe["heavy"]


def test_services_resolve_every_public_name_lazily() -> None:
    """Each name of ``services.__all__`` is the object its module defines, the submodules are
    reachable, and importing the submodule ``notices`` does not hide the use case ``notices``."""
    probe = """
import inspect, sys
from nomic_cards.core import services
assert 'nomic_cards.core.services.queries' not in sys.modules
import nomic_cards.core.services.notices
assert inspect.isfunction(services.notices), services.notices
assert services.notices.__module__ == 'nomic_cards.core.services.queries'
from nomic_cards.core.services import time
assert time.__name__ == 'nomic_cards.core.services.time'
assert services.public.__name__ == 'nomic_cards.core.services.public'
for name in services.__all__:
    value = getattr(services, name)
    assert value.__module__.startswith('nomic_cards.core.services.'), name
    assert getattr(sys.modules[value.__module__], name) is value, name
print(len(services.__all__))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 60


def test_a_read_on_either_backend_imports_no_sqlalchemy(db_url: str, tmp_path: Path) -> None:
    """The same through a database URL (SQLite or PostgreSQL), not a path."""
    new_game(db_url, players=["alice"]).close()
    for args in (["hand", "alice"], ["ledger", "verify"]):
        done = subprocess.run([sys.executable, "-c", PROBE, "--db", db_url, *args],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        probe = json.loads(done.stderr.strip().splitlines()[-1])
        assert probe["code"] in (0, None), done.stderr
        assert probe["heavy"] == [], f"{' '.join(args)} imported {probe['heavy']}"
        assert "alice" in done.stdout or "ok" in done.stdout.lower(), done.stdout
