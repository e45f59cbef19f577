"""The Nomic object: shared by many threads from its very first call, no module-level state in
the core or the command line."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import new_game

ROOT = Path(__file__).resolve().parent.parent


def test_threads_sharing_a_new_game_object_race_safely(db_url: str) -> None:
    new_game(db_url, players=[f"p{i}" for i in range(8)]).close()
    game = Nomic(db_url)  # fresh: no connection made, schema not yet checked
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []
    dealt: list[int] = []

    def work(i: int) -> None:
        try:
            barrier.wait()
            with game.read() as tx:
                assert api.hand(tx, f"p{i}").cards == ()
            for _ in range(3):
                with game.write() as tx:
                    dealt.append(api.deal(tx, f"p{i}").card_number or 0)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted on below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    with game:
        assert errors == []
        assert len(dealt) == 24 and len(set(dealt)) == 24  # no card dealt twice
        with game.read() as tx:
            assert api.deck(tx).total == 208 - 24
            assert api.ledger_verify(tx).ok


#: module-level containers filled once, at import, by decorators (registries, not state)
IMPORT_TIME_REGISTRIES = {
    ("nomic_cards/core/ledger/events.py", "_REGISTRY"),
    ("nomic_cards/core/ledger/replay.py", "_STEPS"),
    # card games declared from code (tests, scripts), beside the installed ones
    ("nomic_cards/core/installed.py", "_REGISTERED"),
}


def test_no_module_level_mutable_state_in_the_core_cli_or_server() -> None:
    found = []
    for folder in ("nomic_cards/core", "nomic_cards/cli", "nomic_cards/server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            rel = str(path.relative_to(ROOT))
            for node in tree.body:
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                else:
                    continue
                mutable = isinstance(value, ast.Dict | ast.List | ast.Set) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id in ("dict", "list", "set", "defaultdict"))
                for t in targets:
                    if mutable and isinstance(t, ast.Name) and not t.id.startswith("__") \
                            and (rel, t.id) not in IMPORT_TIME_REGISTRIES:
                        found.append(f"{rel}: {t.id}")
    assert found == [], f"module-level mutable state: {found}"
