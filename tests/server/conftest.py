"""Fixtures for the server: a game with players, cards and a published report; the app
in-process; and a real ``nomic-cards serve`` in a subprocess."""

from __future__ import annotations

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

from nomic_cards.core import Game, services
from nomic_cards.server import create_app
from tests.helpers import new_game, scripted


@dataclass
class Served:
    game: Game
    tokens: dict[str, str]


def make_game(url: str) -> Served:
    """ann and ben hold cards (one dealt by each kind of dice); a report is published."""
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(url, players=("ann", "ben", "cat"))
        services.set_email(game, "ann", "ann@example.org")
        services.record_vote(game, "ann", "1")
    with freeze_time("2026-01-11 00:05:00"):
        services.tick(game)
    with freeze_time("2026-01-12 10:00:00"):
        services.deal(game, "ben", source="system")
        services.deal(game, "ben", **scripted(range(90, 120)))  # 90, or the next in the Deck
        services.deal(game, "ann")
    with freeze_time("2026-01-21 00:05:00"):
        services.tick(game)
    with freeze_time("2026-01-21 09:00:00"):
        tokens = {p: services.issue_token(game, p).token for p in ("ann", "ben", "cat")}
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


@dataclass
class Live:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path


def start_server(db: str, tmp: Path, *, workers: int = 1) -> Live:
    """``nomic-cards serve`` in a subprocess, waited for until /healthz answers."""
    port = free_port()
    log = tmp / f"serve-{port}.log"
    exe = Path(sys.executable).with_name("nomic-cards")
    proc = subprocess.Popen([str(exe), "--db", db, "serve", "--port", str(port),
                             "--workers", str(workers)],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
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


@pytest.fixture
def live(served: Served, tmp_path: Path) -> Iterator[Live]:
    server = start_server(served.game.url, tmp_path)
    try:
        yield server
    finally:
        stop_server(server)
