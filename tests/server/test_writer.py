"""The action writer (``nomic_cards.server.writer``) in a process of its own, reached through
its socket as a worker reaches it (from an event loop): answers, refusals and the actions' own
errors come back as they would in the worker; a connection without the key is answered nothing;
a stopped writer and a database it cannot open are refused in one line each."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import secrets
import signal
from collections.abc import Iterator
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any

import pytest

from nomic_cards.cli.workers import WRITER_GRACE
from nomic_cards.core import api
from nomic_cards.core.services.acting import ActionAnswer
from nomic_cards.core.settings import PROPOSAL_DEALER
from nomic_cards.errors import NotFound
from nomic_cards.server.actions import Refusal
from nomic_cards.server.writer import ActionCall, WriterClient, WriterUnavailable, run_writer
from tests.server.conftest import Served

JSON = "application/json"


def _start(address: str, key: bytes, db: str) -> SpawnProcess:
    process = multiprocessing.get_context("spawn").Process(target=run_writer,
                                                           args=(address, key, db),
                                                           kwargs={"grace": WRITER_GRACE})
    process.start()
    for _ in range(600):  # a bound: 30 s
        if os.path.exists(address) or not process.is_alive():
            break
        process.join(0.05)
    return process


@pytest.fixture
def writer(served: Served, tmp_path: Path) -> Iterator[tuple[WriterClient, SpawnProcess]]:
    """A writer, and a client of it (each :func:`_run` is a loop of its own, with connections
    of its own)."""
    address, key = str(tmp_path / "writer.sock"), secrets.token_bytes(32)
    process = _start(address, key, served.game.url)
    assert process.is_alive(), process.exitcode
    try:
        yield WriterClient(address, key), process
    finally:
        process.terminate()
        process.join(30)


def _run(client: WriterClient, *calls: ActionCall) -> list[Any]:
    """Each call made in turn through ``client`` on an event loop of its own (as a worker makes
    them on its loop): what each returned, or the exception it raised."""
    async def run() -> list[Any]:
        out: list[Any] = []
        for call in calls:
            try:
                out.append(await client.perform(call))
            except Exception as exc:  # noqa: BLE001 - returned, for the test to look at
                out.append(exc)
        client.close()
        return out
    return asyncio.run(run())


def _deal(token: str, key: str | None = None, *, player: str = "cat",
          media: str = JSON, raw: bytes | None = None) -> ActionCall:
    body = json.dumps({"action": "cards.deal", "player": player}).encode()
    return ActionCall(token, media, body if raw is None else raw, key, None)


def test_an_action_is_answered_and_its_retry_replays_the_answer(
        served: Served, writer: tuple[WriterClient, SpawnProcess]) -> None:
    client, _process = writer
    dealer = api.issue_token(served.game, PROPOSAL_DEALER, scope="dealer").token
    first, again = _run(client, _deal(dealer, "k1"), _deal(dealer, "k1"))
    assert isinstance(first, ActionAnswer) and first.status == 201 and not first.replayed
    assert first.body["events"][0]["kind"] == "card.dealt"
    assert isinstance(again, ActionAnswer) and again.replayed and again.body == first.body
    assert api.hand(served.game, "cat").cards  # written by the writer, read here


def test_refusals_come_back_as_the_worker_answers_them(
        served: Served, writer: tuple[WriterClient, SpawnProcess]) -> None:
    client, _process = writer
    dealer = api.issue_token(served.game, PROPOSAL_DEALER, scope="dealer").token
    bad, plain, broken, nobody = _run(client, _deal("not-a-token"),
                                      _deal(dealer, media="text/plain"),
                                      _deal(dealer, raw=b"{not json"),
                                      _deal(dealer, player="nobody"))
    assert bad == Refusal(401, "")
    assert isinstance(plain, Refusal) and plain.status == 415
    assert isinstance(broken, Refusal) and broken.status == 400
    # the use case's own error, raised here as it was raised there
    assert isinstance(nobody, NotFound) and "nobody" in str(nobody)


def test_a_wrong_key_is_answered_nothing_and_a_stopped_writer_is_unavailable(
        served: Served, writer: tuple[WriterClient, SpawnProcess]) -> None:
    client, process = writer
    (refused,) = _run(WriterClient(client.address, secrets.token_bytes(32)), _deal("x"))
    assert isinstance(refused, WriterUnavailable)
    assert _run(client, _deal("x")) == [Refusal(401, "")]  # it still serves the key's holders
    assert process.pid is not None
    os.kill(process.pid, signal.SIGTERM)
    process.join(30)
    assert process.exitcode == 0
    assert not os.path.exists(client.address)
    (gone,) = _run(client, _deal("x"))
    assert isinstance(gone, WriterUnavailable)


def test_a_writer_that_cannot_open_its_database_exits_as_a_failed_start(
        tmp_path: Path) -> None:
    from uvicorn.config import STARTUP_FAILURE

    address = str(tmp_path / "writer.sock")
    process = _start(address, b"k", f"sqlite:///{tmp_path / 'missing.db'}")
    process.join(30)
    assert process.exitcode == STARTUP_FAILURE
    assert not os.path.exists(address)
