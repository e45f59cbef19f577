"""Read commands load no more than they need: no SQLAlchemy, no Alembic (unless migrating), no
numpy, no pydantic; ``--help`` no card game (nor the engine) and no rich.

Checked in a fresh interpreter through ``sys.modules`` (not by timing): the figures themselves
are measured by ``scripts/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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
                  'sqlalchemy', 'pydantic', 'starlette'})
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


@pytest.mark.slow
@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_read_command_imports_nothing_heavy(small_game: str, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, "--db", small_game, *args],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(small_game).parent)
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe["code"] in (0, None), done.stderr
    assert probe["heavy"] == [], f"{' '.join(args)} imported {probe['heavy']}"


@pytest.mark.slow
def test_init_does_use_alembic(tmp_path: Path) -> None:
    """The probe can see Alembic when it is loaded (so the test above can fail)."""
    done = subprocess.run([sys.executable, "-c", PROBE, "--db", str(tmp_path / "n.db"), "init"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe["code"] in (0, None) and "alembic" in probe["heavy"]


LOADED = """
import json, sys
sys.argv[0] = "nomic-cards"
from nomic_cards.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _loaded(*args: str) -> tuple[int | None, str, set[str]]:
    """The exit code, the output and the modules loaded of ``nomic-cards ARGS`` in a fresh
    interpreter."""
    done = subprocess.run([sys.executable, "-c", LOADED, *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    return probe["code"], done.stdout, set(probe["modules"])


def _game_modules() -> dict[str, str]:
    """Each installed card game's name -> the module its entry point names."""
    from importlib.metadata import entry_points

    from nomic_cards.core import installed

    return {ep.name: ep.value.partition(":")[0]
            for ep in entry_points(group=installed.ENTRY_POINTS)}


def test_help_lists_the_card_games_without_importing_them() -> None:
    """``--help`` names every installed card game (from its entry point) and imports none of
    them, nor the card game engine; nor the rich help (rich, Markdown): Click's plain text."""
    games = _game_modules()
    assert {"pooker", "duel"} <= set(games)
    code, out, modules = _loaded("--help")
    assert code in (0, None)
    listed = {line.split()[0] for line in out.partition("Commands:")[2].splitlines()
              if line.startswith("  ") and not line.startswith("   ")}
    assert set(games) <= listed and {"init", "deal", "bridge"} <= listed, out
    assert "Usage: nomic-cards [OPTIONS] COMMAND [ARGS]..." in out
    assert sorted(m for m in games.values() if m in modules) == []
    assert sorted(m for m in modules if m.startswith(("nomic_cards.cardgames",
                                                      "nomic_cards.core.engine"))) == []
    assert sorted(m for m in modules if m.partition(".")[0] in
                  {"rich", "markdown_it", "pygments"} or m == "typer.rich_utils") == []


def test_help_lists_each_command_as_built() -> None:
    """The root's help lists each command from its declaration, unbuilt: with the help the
    command has once built (and invoked)."""
    from typer.main import get_command

    from nomic_cards.cli import COMMANDS, app

    root: Any = get_command(app)
    listed = {name: root.get_command(None, name) for name in COMMANDS}
    built = root.commands
    for name in COMMANDS:
        assert listed[name] is not built[name]
        seen = [(c.name, c.help, c.short_help, c.hidden, c.deprecated)
                for c in (listed[name], built[name])]
        assert seen[0] == seen[1], name


def test_a_card_games_commands_load_the_game() -> None:
    """The probe above can see a game loaded: ``pooker --help`` imports Pooker and shows its
    own commands; a game that declares none (the duel) is listed but has no commands."""
    code, out, modules = _loaded("pooker", "--help")
    assert code in (0, None) and _game_modules()["pooker"] in modules
    assert "Usage: nomic-cards pooker [OPTIONS] COMMAND [ARGS]..." in out and "trade" in out
    code, out, modules = _loaded("duel")
    assert code == 2 and _game_modules()["duel"] in modules


def test_the_core_package_loads_no_use_case() -> None:
    """Importing ``nomic_cards.core`` or ``nomic_cards.core.services`` loads no service module
    (an adapter imports each use case from its module, and loads only that one)."""
    probe = """
import sys
import nomic_cards.core, nomic_cards.core.services
loaded = sorted(m for m in sys.modules if m.startswith('nomic_cards.core.'))
assert loaded == ['nomic_cards.core.services'], loaded
from nomic_cards.core.services.queries import hand
assert 'nomic_cards.core.services.rules' not in sys.modules
assert 'sqlalchemy' not in sys.modules
print('ok')
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_api_offers_every_use_case() -> None:
    """``nomic_cards.core.api`` holds every use case (a public function of a service module
    whose first parameter is the transaction it runs in, or the Nomic for a job), each the
    object its module defines, and only names of the core."""
    import inspect
    import pkgutil
    from importlib import import_module

    import nomic_cards.core.services as package
    from nomic_cards.core import api

    use_cases = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = import_module(f"{package.__name__}.{info.name}")
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                params = list(inspect.signature(value).parameters.values())
                if params and params[0].annotation in ("Tx", "Reads", "Nomic"):
                    use_cases[name] = value
    assert len(use_cases) > 60 and "deal" in use_cases and "tick" in use_cases
    missing = sorted(n for n, f in use_cases.items()
                     if getattr(api, n, None) is not f and n not in _SERVER_ONLY)
    assert missing == []
    public = {n for n in dir(api) if not n.startswith("_") and n != "annotations"}
    assert api.notices.__module__ == "nomic_cards.core.services.queries"
    for name in public:
        value = getattr(api, name)
        assert getattr(value, "__module__", "").startswith("nomic_cards.core."), name


#: the server's own reads (``services/public.py``): served, not a script's business
_SERVER_ONLY = frozenset({"game_id", "public_holdings", "game_info", "reports_index",
                          "hand_for_token", "hand_as_of", "as_of_event", "hands_at",
                          "player_for_token", "notices_for", "me", "votes_for"})


@pytest.mark.slow
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
