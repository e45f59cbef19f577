"""No secret reaches a log line: a real ``nomic-cards serve`` is sent a session of bad requests
carrying tokens everywhere a client could put one -- query strings, paths, headers, bodies, a
malformed request -- and its whole log (uvicorn's access and error logs, the app's) is searched
for every token issued and every token's verifier."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from freezegun import freeze_time

from nomic_cards.core import api
from nomic_cards.server.logs import redact_target
from tests.server.conftest import make_game, start_server, stop_server

pytestmark = pytest.mark.slow

TOKEN = "abcdefghijklmnop.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"


@pytest.mark.parametrize("target, logged", [
    (f"/api/v1/me/events?token={TOKEN}", "/api/v1/me/events?token=[redacted]"),
    (f"/api/v1/me/{TOKEN}", "/api/v1/me/[redacted]"),
    (f"/api/v1/players?{TOKEN}", "/api/v1/players?[redacted]"),
    (f"/x?{quote(TOKEN, safe='')}=1", "/x?[redacted]=[redacted]"),
    ("/api/v1/me/hand?as_of=12&x=short", "/api/v1/me/hand?as_of=12&x=[redacted]"),
    ("/api/v1/me/hand?as_of=2026-01-01T00%3A00%3A00Z",
     "/api/v1/me/hand?as_of=2026-01-01T00%3A00%3A00Z"),
    ("/" + "".join(f"%{ord(c):02X}" for c in TOKEN), "/[redacted]"),
    ("/api/v1/reports/3?format=json", "/api/v1/reports/3?format=json"),
])
def test_a_target_is_logged_without_anything_token_shaped(target: str, logged: str) -> None:
    assert redact_target(target) == logged


def _raw(port: int, request: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        with contextlib.suppress(OSError):
            s.recv(4096)


def test_no_token_reaches_the_servers_log(tmp_path: Path) -> None:
    served = make_game(f"sqlite:///{tmp_path / 'game.db'}")
    with freeze_time("2026-01-21 09:30:00"), served.game.write() as tx:
        dealer = api.issue_token(tx, "PurpleBob", scope="dealer").token
        revoked = api.issue_token(tx, "cat").token
        api.revoke_tokens(tx, player="cat")
    served.game.close()
    tokens = [*served.tokens.values(), dealer, revoked]
    secrets = tokens + [t.split(".", 1)[1] for t in tokens]  # each whole, and its verifier
    live = start_server(f"sqlite:///{tmp_path / 'game.db'}", tmp_path)
    port = int(live.base.rsplit(":", 1)[1])
    try:
        with httpx.Client(base_url=live.base, timeout=5) as c:
            for t in tokens:
                enc = quote(t, safe="")
                for target in (f"/api/v1/me/events?token={t}", f"/api/v1/me?access_token={t}",
                               f"/api/v1/me/hand?as_of={t}", f"/api/v1/players?{t}",
                               f"/api/v1/me/hand?as_of=1&token={enc}", f"/api/v1/me/{t}",
                               f"/{t}", f"/api/v1/reports/{t}", f"/static/{enc}",
                               f"/api/v1/events?t={t[:20]}", f"/api/v1/me/hand/?x={t}"):
                    c.get(target)
                c.get("/api/v1/me", headers={"Authorization": f"Bearer {t}x"})
                c.get("/api/v1/me", headers={"Authorization": t, "Cookie": f"token={t}",
                                             "X-Token": t, "Referer": f"/?token={t}"})
                c.post(f"/api/v1/me/actions?token={t}", content=f'{{"action": "{t}"}}',
                       headers={"Authorization": f"Bearer {t}",
                                "Content-Type": "application/json"})
                c.post("/api/v1/me/actions", content=f'{{"token": "{t}"',
                       headers={"Authorization": f"Bearer {t}",
                                "Content-Type": "application/json"})
                c.post("/api/v1/me/actions", content=t, headers={"Content-Type": "text/plain"})
                c.request("DELETE", f"/api/v1/me?token={t}")
                c.get("/api/v1/me/hand", params={"as_of": t},
                      headers={"Authorization": f"Bearer {t}"})
                _raw(port, f"GET /?token={t} HTTP/1.1\r\nHost: x\r\nBad Header {t}\r\n\r\n"
                     .encode())
                _raw(port, f"GET /{t} HTTP/9.9\r\n\r\n".encode())
    finally:
        log = stop_server(live)
    assert log.count('"GET /api/v1/me/events?token=[redacted] HTTP/1.1" 400') == len(tokens)
    assert "[redacted]" in log and " 401" in log and " 400" in log
    for secret in secrets:
        assert secret not in log, f"a token reached the log: ...{log[-3000:]}"
