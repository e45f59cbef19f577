"""Actions through a real server: a game played through POST /api/v1/me/actions leaves no
token, card face or notice text in the server's log; a cross-origin form post cannot act (no
cookie, the token only in a header); a worker killed with SIGKILL while actions are posted loses
and doubles nothing, and a retry with the same Idempotency-Key gets the first answer."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from nomic_cards.core import api
from nomic_cards.core.settings import PROPOSAL_DEALER
from tests.helpers import sql
from tests.server.conftest import Served, start_server, stop_server, worker_pids
from tests.server.test_streams import Stream

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow


def auth(token: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **extra}


def act(http: httpx.Client, token: str, body: dict[str, Any], key: str | None = None) -> Any:
    headers = auth(token, **{"Content-Type": "application/json"})
    if key:
        headers["Idempotency-Key"] = key
    return http.post("/api/v1/me/actions", content=json.dumps(body), headers=headers)


@pytest.fixture
def dealer(served: Served) -> str:
    with served.game.write() as tx:
        return api.issue_token(tx, PROPOSAL_DEALER, scope="dealer").token


def test_a_game_played_through_actions_leaves_no_secret_in_the_log(
        served: Served, dealer: str, tmp_path: Path) -> None:
    live = start_server(served.game.url, tmp_path, workers=2,
                        env={"NOMIC_CARDS_SSE_PING": "0.5"})
    try:
        streams = {p: Stream(live.base, "/api/v1/me/events", auth(served.tokens[p]))
                   for p in ("ann", "ben", "cat")}
        with httpx.Client(base_url=live.base, timeout=30) as http:
            last = 0
            for i, player in enumerate(["ann", "ben", "cat"] * 3):
                r = act(http, dealer, {"action": "cards.deal", "player": player}, f"deal-{i}")
                assert r.status_code == 201, r.text
                last = r.json()["events"][-1]["event"]
            card = http.get("/api/v1/me/hand", headers=auth(served.tokens["ann"])).json()[
                "cards"][0]["card"]
            r = act(http, dealer, {"action": "cards.transfer", "card": card, "to": "ben",
                                   "rule": "Rule 1", "from": "ann"}, "move")
            assert r.status_code == 201, r.text
            last = r.json()["events"][-1]["event"]
            assert act(http, dealer, {"action": "cards.vote", "player": "cat",
                                      "proposal": "P9"}).status_code == 201
            assert act(http, dealer, {"action": "cards.tick"}).status_code == 201
            # refusals too: a card not there, a player's token on the Dealer's action, a
            # wrong token
            assert act(http, dealer, {"action": "cards.transfer", "card": card, "to": "cat",
                                      "rule": "Rule 1", "from": "ann"}).status_code == 409
            assert act(http, served.tokens["ann"], {"action": "cards.tick"}).status_code == 403
            assert act(http, served.tokens["ann"] + "x",
                       {"action": "cards.tick"}).status_code == 401
            for token in served.tokens.values():
                http.get("/api/v1/me/hand", headers=auth(token))
                http.get("/api/v1/me/notices", headers=auth(token))
        for stream in streams.values():
            stream.until(last)
            stream.close()
    finally:
        log = stop_server(live)
    secrets = [*served.tokens.values(), dealer]
    for p in ("ann", "ben", "cat"):
        with served.game.read() as tx:
            secrets += [c.card for c in api.hand(tx, p).cards]
            secrets += [n.text for n in api.notices(tx, p)]
            secrets += [line for n in api.notices(tx, p)
                        for line in n.text.splitlines()[:1]]
    assert '"POST /api/v1/me/actions HTTP/1.1" 201' in log  # the access log is on
    leaked = [s for s in secrets if s in log]
    assert leaked == [], leaked
    assert "Traceback" not in log


def test_a_cross_origin_form_post_cannot_act(served: Served, dealer: str,
                                             tmp_path: Path) -> None:
    from tests.server.page_support import CHROMIUM, CHROMIUM_ARGS, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    live = start_server(served.game.url, tmp_path)
    before = sql(served.game, "SELECT count(*) FROM events")
    form = (f'<form method="post" action="{live.base}/api/v1/me/actions" enctype="text/plain">'
            '<input name=\'{"action": "cards.tick", "x": "\' value=\'"}\'>'
            '<button id="go">go</button></form>')
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.set_content(form)  # another origin (about:blank)
                with page.expect_response(lambda r: "/api/v1/me/actions" in r.url) as got:
                    page.click("#go")
                assert got.value.status == 401  # no token: nothing a page can send holds one
                # a script of another origin cannot send the token either: the preflight the
                # Authorization header needs is refused (no CORS headers are ever given)
                page = browser.new_page()  # about:blank again: the form's answer was the
                page.set_content("<p>elsewhere</p>")  # server's own origin
                assert page.evaluate("location.origin") == "null"
                outcome = page.evaluate(f"""async () => {{
                  try {{
                    const r = await fetch("{live.base}/api/v1/me/actions", {{method: "POST",
                      headers: {{"Authorization": "Bearer {dealer}",
                                "Content-Type": "application/json"}},
                      body: JSON.stringify({{action: "cards.tick"}})}});
                    return "answered " + r.status;
                  }} catch (e) {{ return "blocked"; }}
                }}""")
                assert outcome == "blocked"
            finally:
                browser.close()
    finally:
        stop_server(live)
    assert sql(served.game, "SELECT count(*) FROM events") == before


def _retried(http: httpx.Client, dealer: str, key: str) -> httpx.Response:
    """The deal of ``key`` posted again until it is answered (a 503 says to retry with the
    same key; a connection may still die with a killed process), within a bound."""
    for _ in range(40):
        try:
            r = act(http, dealer, {"action": "cards.deal", "player": "cat"}, key)
        except httpx.HTTPError:
            time.sleep(0.5)
            continue
        if r.status_code != 503:
            return r
        time.sleep(0.5)
    raise AssertionError(f"{key} was never answered")


def _killed_during_actions(served: Served, dealer: str, tmp_path: Path,
                           victim: Callable[[int], int], answered: int,
                           after: Callable[[int], None] | None = None) -> None:
    """60 deals posted by 8 clients with a key each; process ``victim(supervisor)`` killed
    with SIGKILL once ``answered`` are answered; then every key posted again: every deal is in the
    ledger once, and each deal answered before the kill is answered again as it was.
    ``after(supervisor)`` checks the server once the retries are answered."""
    live = start_server(served.game.url, tmp_path, workers=2,
                        env={"NOMIC_CARDS_ACTION_RATE": "1000,1000"})
    answers: dict[str, Any] = {}
    try:
        assert len(worker_pids(live.proc.pid)) == 2
        killed = victim(live.proc.pid)

        def post(i: int) -> tuple[str, int, Any]:
            key = f"kill-{i}"
            try:
                with httpx.Client(base_url=live.base, timeout=30) as http:
                    r = act(http, dealer, {"action": "cards.deal", "player": "cat"}, key)
                    return key, r.status_code, r.json() if r.status_code < 500 else None
            except httpx.HTTPError:
                return key, 0, None  # the connection died with the worker

        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(post, i) for i in range(60)]
            while sum(f.done() for f in futures) < answered:
                time.sleep(0.005)
            os.kill(killed, signal.SIGKILL)
            results = [f.result() for f in futures]
        first = {k: body for k, code, body in results if code == 201}
        print(f"answered before the retries: {len(first)} of 60; lost with the process: "
              f"{sum(1 for _k, code, _b in results if code in (0, 503))}")
        # every request retried with its key: the first answer for those that were answered,
        # one deal for every key in all
        deadline = time.monotonic() + 60
        with httpx.Client(base_url=live.base, timeout=30) as http:
            while time.monotonic() < deadline and not http.get("/healthz").is_success:
                time.sleep(0.2)
            for key, _code, _body in results:
                r = _retried(http, dealer, key)
                assert r.status_code == 201, r.text
                answers[key] = r.json()
                if key in first:
                    assert r.headers["idempotent-replayed"] == "true"
                    assert answers[key] == first[key]
        if after is not None:
            after(live.proc.pid)
    finally:
        stop_server(live)
    dealt = [e["event"] for a in answers.values() for e in a["events"]]
    assert len(dealt) == len(set(dealt)) == 60  # one deal for each key, none twice
    rows = sql(served.game, "SELECT count(*) FROM events WHERE kind = 'card.dealt' AND "
                            "actor LIKE '%through the server%'")
    assert rows[0][0] == 60


def test_a_worker_killed_during_actions_loses_and_doubles_nothing(
        served: Served, dealer: str, tmp_path: Path) -> None:
    _killed_during_actions(served, dealer, tmp_path, lambda sup: worker_pids(sup)[0], 2)
