"""Benchmark: how much of the project two paths load and run -- a cold ``nomic-cards deal`` and
one action through the server. Counts, not timings (``scripts/bench_startup.py`` times the
commands). Run by hand:

    .venv/bin/python scripts/bench_paths.py

1. **A cold deal**: ``nomic-cards deal PLAYER`` on a small SQLite game (``init``, three
   players), in a fresh interpreter, as the console script runs it (``nomic_cards.launch``'s
   ``main``): the project's modules in ``sys.modules`` at the end (targets: at most 55, and no
   ``nomic_cards.poker.*``), and the distinct project source files executed -- a global trace
   hook (``sys.settrace``, every thread) counting the files under ``nomic_cards/`` where code
   ran: a module's body as it was imported, or a function.
2. **One action through the server**: one ``cards.vote`` POST (the Dealer's officer token, an
   ``Idempotency-Key``) handled in-process by the app under Starlette's ``TestClient``, in a
   fresh interpreter; the app is started first and only the request is traced (every thread:
   the event loop's and the worker thread that runs the action). The first POST after start-up
   (what it imports on the way included), then a second.

Prints one table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: Runs in a fresh interpreter: argv is [probe, package folder, output file, what, ...].
PROBE = r'''
import importlib.util, json, sys, threading

root = sys.argv[1].rstrip("/") + "/"
out, what = sys.argv[2], sys.argv[3]
state = {"on": False, "files": set(), "functions": set()}


def tracer(frame, event, arg):
    if state["on"] and event == "call":
        name = frame.f_code.co_filename
        if name.startswith(root):
            state["files"].add(name[len(root):])
            if frame.f_code.co_name != "<module>":
                state["functions"].add(name[len(root):])
    return None


def project(modules):
    return sorted(m for m in modules if m == "nomic_cards" or m.startswith("nomic_cards."))


def counts(files, functions, modules, before=()):
    mine = project(modules)
    return {"files": len(files), "functions": len(functions), "modules": len(mine),
            "poker": [m for m in mine if m.startswith("nomic_cards.poker")],
            "new": len(set(mine) - set(before)), "all_modules": len(modules),
            "file_list": sorted(files), "module_list": mine}


threading.settrace(tracer)
sys.settrace(tracer)
result = {}
if what == "deal":
    db, player = sys.argv[4], sys.argv[5]
    sys.argv = ["nomic-cards", "--db", db, "deal", player]
    state["on"] = True
    try:
        from nomic_cards.launch import main
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    state["on"] = False
    result = counts(state["files"], state["functions"], list(sys.modules))
    result["exit"] = code
else:
    db, token = sys.argv[4], sys.argv[5]
    from starlette.testclient import TestClient
    from nomic_cards.server import create_app

    app = create_app(db=db)
    with TestClient(app) as client:
        client.get("/healthz")
        for label in ("first", "second"):
            before = project(sys.modules)
            state["files"], state["functions"] = set(), set()
            state["on"] = True
            r = client.post("/api/v1/me/actions",
                            json={"action": "cards.vote", "player": "ann",
                                  "proposal": f"P-{label}"},
                            headers={"Authorization": f"Bearer {token}",
                                     "Idempotency-Key": f"paths-{label}"})
            state["on"] = False
            result[label] = counts(state["files"], state["functions"], list(sys.modules),
                                   before)
            result[label]["status"] = r.status_code
sys.settrace(None)
threading.settrace(None)
with open(out, "w") as f:
    json.dump(result, f)
'''


def package_folder() -> str:
    """The ``nomic_cards`` package this interpreter imports (a PYTHONPATH export included),
    found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec("nomic_cards")
    assert spec is not None and spec.submodule_search_locations
    return str(list(spec.submodule_search_locations)[0])


def probe(tmp: Path, *args: str) -> dict[str, Any]:
    out = tmp / f"{args[0]}.json"
    done = subprocess.run([sys.executable, "-c", PROBE, package_folder(), str(out), *args],
                          capture_output=True, text=True, timeout=300, check=False, cwd=tmp)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(f"the probe {args[0]} failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def make_game(db: str) -> str:
    """A small game (init, three players); the Dealer's officer token."""
    from nomic_cards.core import api

    with api.Nomic(db, create=True, actor="bench") as game:
        api.init_game(game)
        with game.write() as tx:
            for name in ("ann", "ben", "cat"):
                api.add_player(tx, name)
            dealer = api.show_dealer(tx).dealer
            assert dealer is not None
            return api.issue_token(tx, dealer, scope="dealer").token


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="also list the modules and files")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-paths-") as d:
        tmp = Path(d)
        deal_db = f"sqlite:///{tmp}/deal.db"
        make_game(deal_db)
        deal = probe(tmp, "deal", deal_db, "ann")
        if deal["exit"] != 0:
            raise SystemExit(f"nomic-cards deal exited {deal['exit']}")
        action_db = f"sqlite:///{tmp}/action.db"
        token = make_game(action_db)
        action = probe(tmp, "action", action_db, token)
    rows = [("cold `nomic-cards deal ann` (SQLite, a fresh process, the console script's "
             "`main`)", deal, "whole process"),
            ("one `cards.vote` POST in-process (TestClient), the first after start-up; only "
             "the request traced", action["first"], "the server process after it"),
            ("the same, a second POST", action["second"], "the server process after it")]
    print(f"code: {package_folder()}\n")
    print("| path | project modules loaded (target <= 55 for the deal) | of them "
          "`nomic_cards.poker.*` (target 0) | project source files executed | of them with "
          "a function run | modules loaded in all |")
    print("|---|---|---|---|---|---|")
    for what, r, scope in rows:
        status = f"; answered {r['status']}" if "status" in r else ""
        new = f" ({r['new']} loaded by this request)" if "status" in r else ""
        print(f"| {what}{status} | {r['modules']} ({scope}){new} | {len(r['poker'])} | "
              f"{r['files']} | {r['functions']} | {r['all_modules']} |")
    if a.list:
        for what, r, _ in rows:
            print(f"\n{what}\n  modules: {' '.join(r['module_list'])}\n  files: "
                  f"{' '.join(r['file_list'])}")


if __name__ == "__main__":
    main()
