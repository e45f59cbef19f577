"""A real ``nomic-cards serve`` in a subprocess, on SQLite and PostgreSQL: a card dealt with the
command line shows on the very next request; nothing secret reaches the logs; idle connections
do not starve real ones; a database that stops answering gives 503, and service comes back by
itself."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nomic_cards.core import api
from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url, pg_base_url
from tests.server.conftest import Live, Served, make_game, start_server, stop_server

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow


def cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("nomic-cards")
    return subprocess.run([str(exe), "--db", db, *args], capture_output=True, text=True,
                          env={**os.environ, "NOMIC_CARDS_ACTOR": "dealer"}, check=False)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_card_dealt_on_the_command_line_shows_on_the_next_request(
        served: Served, live: Live) -> None:
    token = served.tokens["cat"]
    with httpx.Client(base_url=live.base, timeout=10) as http:
        before = http.get("/api/v1/me/hand", headers=auth(token)).json()
        head = http.get("/api/v1/ledger/head")
        for _ in range(3):
            done = cli(served.game.url, "deal", "cat", "--json")
            assert done.returncode == 0, done.stderr
            dealt = int(json.loads(done.stdout)["card_number"])
            now = http.get("/api/v1/me/hand", headers=auth(token)).json()
            assert dealt in [c["number"] for c in now["cards"]]
            assert len(now["cards"]) == len(before["cards"]) + 1
            before = now
        # the public side moved too: the old ETag no longer matches
        again = http.get("/api/v1/ledger/head", headers={"If-None-Match": head.headers["etag"]})
        assert again.status_code == 200


def test_no_token_card_face_or_notice_in_the_logs(served: Served, tmp_path: Path) -> None:
    live = start_server(served.game.url, tmp_path)
    secrets = [*served.tokens.values()]
    for p in ("ann", "ben"):
        with served.game.read() as tx:
            secrets += [c.card for c in api.hand(tx, p).cards]
            secrets += [n.text for n in api.notices(tx, p)]
    try:
        with httpx.Client(base_url=live.base, timeout=10) as http:
            for token in served.tokens.values():
                for path in ("/api/v1/me", "/api/v1/me/hand", "/api/v1/me/notices",
                             "/api/v1/me/hand?as_of=3", "/api/v1/me/hand?as_of=garbage"):
                    http.get(path, headers=auth(token))
                http.get("/api/v1/me/hand", headers=auth(token + "x"))
            for path in ("/", "/api/v1/players", "/api/v1/deck", "/reports.atom", "/nope",
                         "/api/v1/reports/1?format=text"):
                http.get(path)
            http.post("/api/v1/me/hand", headers=auth(served.tokens["ann"]), content=b"{}")
    finally:
        log = stop_server(live)
    assert '"GET /api/v1/me/hand HTTP/1.1" 200' in log  # the access log is on
    leaked = [s for s in secrets if s in log]
    assert leaked == [], leaked
    assert "Traceback" not in log


def test_a_thousand_idle_connections_do_not_stop_real_requests(served: Served,
                                                               live: Live) -> None:
    host, port = live.base.removeprefix("http://").split(":")
    idle = []
    try:
        for _ in range(1000):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(b"GET /api/v1/deck HTTP/1.1\r\nHost: x\r\n")  # never finished
            idle.append(s)
        with httpx.Client(base_url=live.base, timeout=10) as http:
            for _ in range(20):
                r = http.get("/api/v1/me/hand", headers=auth(served.tokens["ann"]))
                assert r.status_code == 200
    finally:
        for s in idle:
            s.close()


class Proxy:
    """A TCP proxy on 127.0.0.1 in front of the database, that the test can cut and restore."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(128)
        self.port = self.server.getsockname()[1]
        self.up = threading.Event()
        self.up.set()
        self.stopping = threading.Event()
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.server.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                client, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        try:
            while not self.stopping.is_set():
                for key, _ in sel.select(timeout=0.2):
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            a.close()
            b.close()

    def cut(self) -> None:
        """Refuse new connections and break every open one."""
        self.up.clear()
        with self.lock:
            for a, b in self.pairs:
                for s in (a, b):
                    with contextlib.suppress(OSError):  # already closed
                        s.shutdown(socket.SHUT_RDWR)
            self.pairs.clear()

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.stopping.set()
        self.cut()
        self.server.close()


@pytest.fixture
def pg_behind_proxy(tmp_path: Path) -> Iterator[tuple[Served, Proxy, str]]:
    _require_pg()
    url, schema = new_pg_schema_url()
    s = make_game(url)
    s.game.close()
    base = pg_base_url()
    hostport = base.split("@", 1)[1].split("/", 1)[0]
    host, _, port = hostport.partition(":")
    proxy = Proxy((host, int(port or 5432)))
    proxied = url.replace(hostport, f"127.0.0.1:{proxy.port}")
    try:
        yield s, proxy, proxied
    finally:
        proxy.close()
        drop_pg_schema(schema)


def test_a_database_that_stops_answering_gives_503_then_recovers(
        pg_behind_proxy: tuple[Served, Proxy, str], tmp_path: Path) -> None:
    served, proxy, url = pg_behind_proxy
    live = start_server(url, tmp_path)
    token = served.tokens["ann"]
    try:
        with httpx.Client(base_url=live.base, timeout=30) as http:
            assert http.get("/api/v1/me/hand", headers=auth(token)).status_code == 200
            proxy.cut()
            for path in ("/api/v1/me/hand", "/api/v1/deck", "/healthz"):
                r = http.get(path, headers=auth(token))
                assert r.status_code == 503, (path, r.text)
                assert r.json() == {"error": "the game database is not answering; try again "
                                             "shortly"}
                assert r.headers["retry-after"] == "5"
            proxy.restore()
            # back within ten tries a second apart (the pool reconnects on its own schedule,
            # later on a busy machine): until then each answer is the same one-line 503
            answers = []
            for _ in range(10):
                r = http.get("/api/v1/me/hand", headers=auth(token))
                answers.append(r.status_code)
                if r.status_code == 200:
                    break
                assert r.status_code == 503 and r.headers["retry-after"] == "5", r.text
                threading.Event().wait(1.0)
            assert answers[-1] == 200, answers
            assert http.get("/healthz").status_code == 200
    finally:
        log = stop_server(live)
    assert "Traceback" not in log


def test_the_factory_runs_under_plain_uvicorn(served: Served, tmp_path: Path) -> None:
    from tests.server.conftest import free_port

    port = free_port()
    log = tmp_path / "uvicorn.log"
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory",
                             "nomic_cards.server:create_app", "--port", str(port)],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "NOMIC_CARDS_DB": served.game.url})
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
            for _ in range(100):
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None, log.read_text()
                threading.Event().wait(0.1)
            deck = http.get("/api/v1/deck").json()
            with served.game.read() as tx:
                assert deck["total"] == api.deck(tx).total
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _connection_inodes(port: int) -> set[str]:
    """The socket inodes of the established TCP connections whose local port is ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                    found.add(fields[9])
    return found


def _held_by(pid: int, inodes: set[str]) -> int:
    """How many of ``inodes`` process ``pid`` holds open."""
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            link = os.readlink(fd)
            if link.startswith("socket:[") and link[8:-1] in inodes:
                held += 1
    return held


def test_two_workers_serve_every_player(served: Served, tmp_path: Path) -> None:
    """``serve --workers 2``: uvicorn's two worker processes on one socket, every player served
    whichever worker answers."""
    from tests.server.conftest import worker_pids

    live = start_server(served.game.url, tmp_path, workers=2)
    clients = [httpx.Client(base_url=live.base, timeout=10) for _ in range(40)]
    try:
        tokens = list(served.tokens.items())
        for i, http in enumerate(clients):  # each client keeps its connection open
            player, token = tokens[i % len(tokens)]
            r = http.get("/api/v1/me/hand", headers=auth(token))
            assert r.status_code == 200 and r.json()["player"] == player
        assert len(worker_pids(live.proc.pid)) == 2
    finally:
        for http in clients:
            http.close()
        log = stop_server(live)
    assert log.count("Application startup complete") == 2


def test_a_second_server_on_a_port_in_use_is_refused_in_one_line(served: Served,
                                                                 tmp_path: Path) -> None:
    """A second ``serve`` on a port a server listens on is refused in one line, with one
    worker or several."""
    from tests.server.conftest import free_port

    port = free_port()
    live = start_server(served.game.url, tmp_path, workers=2, port=port)
    try:
        for workers in ("2", "1"):
            r = subprocess.run([str(Path(sys.executable).with_name("nomic-cards")), "--db",
                                served.game.url, "serve", "--port", str(port), "--workers",
                                workers], capture_output=True, text=True, timeout=60,
                               check=False)
            assert r.returncode != 0
            assert r.stderr.strip().splitlines() == [
                f"error: cannot listen on 127.0.0.1:{port}: Address already in use"], r.stderr
        with httpx.Client(base_url=live.base, timeout=10) as http:
            assert http.get("/healthz").status_code == 200
    finally:
        stop_server(live)


@pytest.mark.pg
def test_the_documented_accounts_serve_every_endpoint_and_refuse_token_list_in_one_line(
        tmp_path: Path) -> None:
    """docs/server.md's account (with docs/dice.md's players' grants) serves every endpoint,
    ``as_of`` included, without reading ``event_private`` or addresses; ``token list`` as a
    player is one line."""
    from tests.server.conftest import documented_accounts

    _require_pg()
    url, schema = new_pg_schema_url()
    try:
        served = make_game(url)
        with served.game as game, documented_accounts(url) as (server_url, player_url):
            with game.read() as tx:
                head = api.ledger_head(tx)
                expected = {p: api.hand(tx, p, as_of=str(head.event - 3)) for p in ("ann",
                                                                                        "ben")}
            live = start_server(server_url, tmp_path)
            try:
                with httpx.Client(base_url=live.base, timeout=10) as http:
                    for path in ("/api/v1/game", "/api/v1/players", "/api/v1/deck",
                                 "/api/v1/dice", "/api/v1/reports", "/api/v1/reports/1",
                                 "/api/v1/ledger/head", "/reports.atom", "/healthz"):
                        r = http.get(path)
                        assert r.status_code == 200, (path, r.status_code, r.text)
                    for player in ("ann", "ben"):
                        token = auth(served.tokens[player])
                        for path in ("/api/v1/me", "/api/v1/me/hand", "/api/v1/me/notices",
                                     "/api/v1/me/votes"):
                            r = http.get(path, headers=token)
                            assert r.status_code == 200, (path, r.status_code, r.text)
                        assert "email" not in http.get("/api/v1/me", headers=token).json()
                        want = expected[player]
                        for as_of in (str(head.event - 3), "2026-01-12T10:00:00Z"):
                            r = http.get("/api/v1/me/hand", params={"as_of": as_of},
                                         headers=token)
                            assert r.status_code == 200, (as_of, r.status_code, r.text)
                            if as_of.isdigit():
                                assert r.json()["as_of"] == want.as_of
                                assert [c["number"] for c in r.json()["cards"]] == \
                                    [c.number for c in want.cards]
                        with game.read() as tx:
                            by_time = api.hand(tx, player, as_of="2026-01-12T10:00:00Z")
                        r = http.get("/api/v1/me/hand", headers=token,
                                     params={"as_of": "2026-01-12T10:00:00Z"})
                        assert r.json()["as_of"] == by_time.as_of
                        assert [c["number"] for c in r.json()["cards"]] == \
                            [c.number for c in by_time.cards]
            finally:
                log = stop_server(live)
            assert "internal error" not in log and "Traceback" not in log, log[-3000:]
            done = cli(player_url, "token", "list")
            assert done.returncode == 1 and done.stdout == ""
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
            assert "permission denied" in done.stderr and "Traceback" not in done.stderr
    finally:
        drop_pg_schema(schema)


#: A TCP proxy in a process of its own (so that the test can stop it with SIGSTOP): it prints
#: its port, then forwards every connection to the address given.
PROXY_SCRIPT = """
import socket, sys, threading
host, port = sys.argv[1], int(sys.argv[2])
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(128)
print(server.getsockname()[1], flush=True)

def pump(a, b):
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

while True:
    client, _ = server.accept()
    upstream = socket.create_connection((host, port))
    for a, b in ((client, upstream), (upstream, client)):
        threading.Thread(target=pump, args=(a, b), daemon=True).start()
"""


@pytest.mark.pg
def test_a_frozen_database_gives_503_in_bounded_time_then_serves_again(
        tmp_path: Path) -> None:
    """Through a proxy stopped with SIGSTOP (connections open, nothing answered: the kernel
    still accepts and acknowledges), every request gets a 503 instead of hanging (the client's
    timeout is the bound), and the first request after SIGCONT is served."""
    import signal
    from concurrent.futures import ThreadPoolExecutor

    _require_pg()
    url, schema = new_pg_schema_url()
    base = pg_base_url()
    hostport = base.split("@", 1)[1].split("/", 1)[0]
    host, _, port = hostport.partition(":")
    proxy = subprocess.Popen([sys.executable, "-c", PROXY_SCRIPT, host, port or "5432"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert proxy.stdout is not None
        proxied = url.replace(hostport, f"127.0.0.1:{proxy.stdout.readline().strip()}")
        served = make_game(url)
        served.game.close()
        live = start_server(proxied, tmp_path)
        token = auth(served.tokens["ann"])
        paths = ["/api/v1/me/hand", "/api/v1/deck", "/healthz", "/api/v1/game", "/api/v1/me",
                 "/api/v1/ledger/head"] * 4  # more requests than the server has threads
        try:
            with httpx.Client(base_url=live.base, timeout=30) as http:
                assert http.get("/api/v1/me/hand", headers=token).status_code == 200
                os.kill(proxy.pid, signal.SIGSTOP)
                try:
                    with ThreadPoolExecutor(len(paths)) as pool:
                        answers = list(pool.map(
                            lambda p: http.get(p, headers=token), paths))
                    for path, r in zip(paths, answers, strict=True):
                        assert r.status_code == 503, (path, r.status_code, r.text)
                        assert r.headers["retry-after"] == "5"
                    again = http.get("/api/v1/deck")
                    assert again.status_code == 503
                finally:
                    os.kill(proxy.pid, signal.SIGCONT)
                r = http.get("/api/v1/me/hand", headers=token)
                assert r.status_code == 200, r.text
                for path in paths[:6]:
                    assert http.get(path, headers=token).status_code == 200, path
        finally:
            log = stop_server(live)
        assert "Traceback" not in log, log[-3000:]
    finally:
        os.kill(proxy.pid, signal.SIGCONT)
        proxy.kill()
        proxy.wait()
        drop_pg_schema(schema)


def _children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_failed_token_limit_holds_across_workers(served: Served, tmp_path: Path) -> None:
    live = start_server(served.game.url, tmp_path, workers=2)
    try:
        for _ in range(20):  # each on a new connection: the workers share them out
            r = httpx.get(f"{live.base}/api/v1/me", headers=auth("x.y"), timeout=10)
            assert r.status_code == 401
        for _ in range(20):
            r = httpx.get(f"{live.base}/api/v1/me", headers=auth(served.tokens["ann"]),
                          timeout=10)
            assert r.status_code == 429, r.text
    finally:
        log = stop_server(live)
    assert log.count("Application startup complete") == 2


@pytest.mark.parametrize(("workers", "stop"), [(1, "SIGTERM"), (2, "SIGTERM"), (1, "SIGINT")])
def test_a_stopped_server_exits_0_and_leaves_nothing_behind(
        served: Served, tmp_path: Path, workers: int, stop: str) -> None:
    """``serve`` stopped as systemd stops it (SIGTERM), or by Ctrl-C, with streams open: exit
    status 0, its ``nomic-cards-serve-*`` folder removed, and none of its processes left."""
    import signal

    from nomic_cards.cli.server import GRACE

    temp = tmp_path / "tmp"
    temp.mkdir()
    live = start_server(served.game.url, tmp_path, workers=workers, env={"TMPDIR": str(temp)})
    made = [p.name for p in temp.iterdir()]
    assert len(made) == 1 and made[0].startswith("nomic-cards-serve-"), made
    children = _children(live.proc.pid)
    assert len(children) >= (workers if workers > 1 else 0)
    streams = [httpx.Client(base_url=live.base, timeout=30) for _ in range(2)]
    try:
        opened = [c.stream("GET", "/api/v1/events").__enter__() for c in streams]
        assert [r.status_code for r in opened] == [200, 200]
        began = time.monotonic()
        live.proc.send_signal(getattr(signal, stop))
        status = live.proc.wait(timeout=GRACE + 20)
        took = time.monotonic() - began
    finally:
        for c in streams:
            c.close()
    log = live.log.read_text(encoding="utf-8", errors="replace")
    assert status == 0, log[-3000:]
    assert took < GRACE + 10
    assert list(temp.iterdir()) == []
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in children if _alive(p)]
    assert "Traceback" not in log, log[-3000:]

