"""Fixtures for the server: a game with players, cards and a published report; the app
in-process; and a real ``nomic-cards serve`` in a subprocess."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.server import create_app
from tests.helpers import new_game, scripted


@dataclass
class Served:
    game: Nomic
    tokens: dict[str, str]


def make_game(url: str) -> Served:
    """ann and ben hold cards (one dealt by each kind of dice); a report is published."""
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(url, players=("ann", "ben", "cat"))
        with game.write() as tx:
            api.set_email(tx, "ann", "ann@example.org")
            api.record_vote(tx, "ann", "1")
    with freeze_time("2026-01-11 00:05:00"), game.write() as tx:
        api.tick(tx)
    with freeze_time("2026-01-12 10:00:00"), game.write() as tx:
        api.deal(tx, "ben", source="system")
        api.deal(tx, "ben", **scripted(range(90, 120)))  # 90, or the next in the Deck
        api.deal(tx, "ann")
    with freeze_time("2026-01-21 00:05:00"), game.write() as tx:
        api.tick(tx)
    with freeze_time("2026-01-21 09:00:00"), game.write() as tx:
        tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben", "cat")}
    return Served(game, tokens)


@pytest.fixture
def served(db_url: str) -> Iterator[Served]:
    s = make_game(db_url)
    with s.game:
        yield s


@pytest.fixture
def client(served: Served) -> Iterator[TestClient]:
    with TestClient(create_app(served.game)) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spawned(supervisor: int) -> list[int]:
    """The processes ``serve`` process ``supervisor`` started (not multiprocessing's resource
    tracker, which is a child too)."""
    out = subprocess.run(["pgrep", "-P", str(supervisor)], capture_output=True, text=True,
                         check=False).stdout
    return [int(p) for p in out.split()
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]


def worker_pids(supervisor: int) -> list[int]:
    """The worker processes of ``serve --workers N`` process ``supervisor``."""
    return _spawned(supervisor)


@dataclass
class Live:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path


def start_server(db: str, tmp: Path, *, workers: int = 1, port: int | None = None,
                 env: dict[str, str] | None = None, args: tuple[str, ...] = (),
                 files: int | None = None) -> Live:
    """``nomic-cards serve [args]`` in a subprocess, waited for until /healthz answers;
    ``files``: the most files it may open (its hard limit)."""
    import resource

    def limited() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    port = port or free_port()
    log = tmp / f"serve-{port}.log"
    exe = Path(sys.executable).with_name("nomic-cards")
    proc = subprocess.Popen([str(exe), "--db", db, "serve", "--port", str(port),
                             "--workers", str(workers), *args],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
                            preexec_fn=limited)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            # one worker answers; each of the others is then being started, or is
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200 and (
                    workers == 1 or len(worker_pids(proc.pid)) == workers):
                return Live(base, proc, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")


def stop_server(live: Live) -> str:
    live.proc.terminate()
    try:
        live.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        live.proc.kill()
        live.proc.wait()
    return live.log.read_text(encoding="utf-8", errors="replace")


ROOT = Path(__file__).resolve().parents[2]


def _sql_block(doc: str, granting: str | None = None) -> str:
    """The first ```sql block of a page (with ``granting``: the first that grants to that
    role)."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```sql\n")[1:]]
    return next(b for b in blocks if granting is None or f"TO {granting};" in b)


def documented_grants(schema: str, player_role: str, server_role: str) -> str:
    """The players' grants of docs/dice.md and the read-only server's of docs/deploy.md,
    exactly as written there, for the test's schema and roles (the server's login made as the
    cluster superuser makes it there)."""
    text = (_sql_block("dice.md") + _sql_block("dice.md", granting="nomic_player")
            + "CREATE ROLE nomic_server LOGIN;\n"
            + _sql_block("deploy.md", granting="nomic_server"))
    return (text.replace("SCHEMA public", f'SCHEMA "{schema}"')
            .replace("nomic_server", server_role).replace("nomic_player", player_role))


@contextlib.contextmanager
def documented_accounts(url: str) -> Iterator[tuple[str, str]]:
    """(the server's URL, a player's URL): the PostgreSQL game at ``url`` seen through accounts
    made with the documented grants (dropped afterwards)."""
    import uuid

    import psycopg

    from tests.conftest import pg_base_url

    schema = url.split("search_path%3D", 1)[1].split("&", 1)[0]
    tag = uuid.uuid4().hex[:8]
    player, server = f"player_{tag}", f"server_{tag}"
    admin = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'SET search_path TO "{schema}"')
        con.execute(documented_grants(schema, player, server))
        con.execute(f"CREATE ROLE {player}_login LOGIN IN ROLE {player}")
    scheme, rest = url.split("://", 1)
    host = rest.split("@", 1)[1]
    try:
        yield f"{scheme}://{server}@{host}", f"{scheme}://{player}_login@{host}"
    finally:
        with psycopg.connect(admin, autocommit=True) as con:
            for role in (f"{player}_login", server, player):
                con.execute(f"DROP OWNED BY {role}")
                con.execute(f"DROP ROLE {role}")


@pytest.fixture
def live(served: Served, tmp_path: Path) -> Iterator[Live]:
    """The server on the game: on PostgreSQL with the read-only account docs/deploy.md
    describes."""
    with contextlib.ExitStack() as stack:
        url = served.game.url
        if not url.startswith("sqlite"):
            url = stack.enter_context(documented_accounts(url))[0]
        server = start_server(url, tmp_path)
        try:
            yield server
        finally:
            stop_server(server)
