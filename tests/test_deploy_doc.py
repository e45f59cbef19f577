"""docs/deploy.md, run as written on the test PostgreSQL server, top to bottom.

Every ```sql block runs through ``psql -v ON_ERROR_STOP=1`` as the account its first line
names (``-- as the cluster superuser``: the test server's superuser; ``-- as nomic_owner``:
the owner, with the owner's settings file the page writes), every ```sh block through ``bash
-euo pipefail`` (no ``NOMIC_CARDS_*`` or ``PG*`` variable from the test's own environment),
the systemd unit's ``ExecStart`` with its ``EnvironmentFile`` and nothing else, and the
crontab's command under cron's environment with the crontab's variables. The ``console``
and ``text`` blocks are not run; the nginx block has a test of its own, run where nginx is at
hand, and ``systemd-analyze verify`` checks the unit.

Only the page's placeholders are replaced (:meth:`Drill.substitute`): the database names and
the accounts get a random suffix (roles are cluster-wide), the passwords are random, the
folders ``/etc/nomic-cards`` and ``/srv/nomic`` are in the test's temporary folder (a
separate one for the SQLite game), ``/srv/nomic/venv`` is this virtualenv, the PostgreSQL
port is the test server's, the server's port a free one, the mail relay an SMTP server started
here, and ``runuser -u nomic`` runs as the test's own user. Everything talks to 127.0.0.1.

Between the sections the test does what the page says happens there: after the server's
section it plays actions through the server as the writer account (a deal with an officer
token, a Pooker trade, a Motion and its votes, a show, an idempotent retry), reads through a
second server as the read-only account, checks what each account may not do, and crosses an
nweek boundary through the writer; after cron's, it runs the crontab's command; around the
restore it stops and restarts the server. Afterwards every database and role it made is
dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest
from aiosmtpd.controller import Controller

from tests.conftest import _require_pg, pg_base_url
from tests.mailbox import Inbox, free_port

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "deploy.md"
VENV = Path(sys.executable).parent.parent
RUN = ("sql", "sh")
#: the environment systemd gives a service (before its EnvironmentFile), and cron a job
SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CRON_PATH = "/usr/bin:/bin"
#: how long any one command of the page may take
STEP_TIMEOUT = 120
TOOLS = ("psql", "pg_dump", "pg_restore", "sqlite3", "runuser")
#: the page's sections where the test does something of its own (a renamed heading must fail
#: here, not skip the plays)
SQLITE_SECTIONS = ("A SQLite game", "Backing up a SQLite game")


# --- the page -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    section: str
    lang: str
    text: str
    line: int


def page_blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, each with the heading it is under."""
    out: list[Block] = []
    section, lang, start = "", "", 0
    body: list[str] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if fence is None:
            if line.startswith("```"):
                fence = line[:len(line) - len(line.lstrip("`"))]
                lang, start, body = line[len(fence):].strip().split(" ")[0], number, []
            elif line.startswith("#"):
                section = line.lstrip("#").strip()
        elif line.startswith(fence) and not line[len(fence):].strip():
            out.append(Block(section, lang, "\n".join(body) + "\n", start))
            fence = None
        else:
            body.append(line)
    assert fence is None, f"docs/deploy.md: a block opened at line {start} is not closed"
    return out


def test_the_page_has_the_blocks_the_drill_relies_on() -> None:
    """Fast and without a database: every block is tagged, every SQL block names its account,
    and the sections the drill acts in exist."""
    blocks = page_blocks(DOC.read_text(encoding="utf-8"))
    langs = {b.lang for b in blocks}
    assert langs <= {"sql", "sh", "console", "text", "ini", "nginx", "crontab"}, langs
    for b in blocks:
        if b.lang == "sql":
            first = b.text.splitlines()[0]
            assert first in ("-- as the cluster superuser", "-- as nomic_owner"), (b.line, first)
    sections = {b.section for b in blocks}
    for name in (*Drill.BEFORE, *Drill.AFTER, *SQLITE_SECTIONS):
        assert name in sections, f"docs/deploy.md has no section {name!r} with a block"
    units = [b for b in blocks if b.lang == "ini"]
    assert len(units) == 1 and "ExecStart=" in units[0].text
    assert sum(b.lang == "crontab" for b in blocks) == 1
    nginx = next(b.text for b in blocks if b.lang == "nginx")
    found = re.search(r"--port (\d+)", units[0].text)
    assert found is not None
    port = found.group(1)
    assert set(re.findall(r"proxy_pass http://127\.0\.0\.1:(\d+);", nginx)) == {port}
    for path in ("/api/v1/events", "/api/v1/me/events"):
        streams = nginx.split(f"location = {path} {{", 1)[1].split("}", 1)[0]
        assert "proxy_buffering off;" in streams and "proxy_set_header" not in streams
    assert "--forwarded-allow-ips 127.0.0.1" in units[0].text
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    """``systemd-analyze verify`` finds nothing to say about the page's unit (its
    ExecStart's program and EnvironmentFile pointed at this virtualenv and a file here)."""
    analyze = shutil.which("systemd-analyze", path=SYSTEMD_PATH)
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = next(b.text for b in page_blocks(DOC.read_text(encoding="utf-8")) if b.lang == "ini")
    (tmp_path / "server.env").write_text("NOMIC_CARDS_DB=cards.db\n", encoding="utf-8")
    path = tmp_path / "nomic-cards.service"
    path.write_text(unit.replace("/srv/nomic/venv", str(VENV))
                    .replace("/etc/nomic-cards", str(tmp_path)), encoding="utf-8")
    done = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0 and not done.stdout and not done.stderr, done.stderr


# --- the drill ------------------------------------------------------------------------------


def _env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines, as systemd's ``EnvironmentFile`` reads plain values."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    base: str
    log: Path

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.log.read_text(encoding="utf-8", errors="replace")


class Drill:
    """One run of the page, with its names, folders, servers and the plays in between."""

    #: section -> method run before its blocks / after them
    BEFORE: dict[str, str] = {
        "Putting the restored copy in place": "stop_servers",
        "Backing up a SQLite game": "publish_a_sqlite_report",
    }
    AFTER: dict[str, str] = {
        "The grants": "check_every_table_is_granted",
        "The server under systemd": "play",
        "Cron": "run_cron",
        "Restoring a backup, checked": "check_an_old_dump_fails",
        "Putting the restored copy in place": "check_the_restored_game_serves",
        "Upgrades": "grant_again_and_act",
        "Backing up a SQLite game": "check_the_restored_sqlite_game",
    }

    def __init__(self, tmp: Path, blocks: list[Block]) -> None:
        self.blocks = blocks
        self.tmp = tmp
        self.tag = uuid.uuid4().hex[:10]
        admin = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
        parts = urlsplit(admin)
        self.admin = admin
        self.pg_port = parts.port or 5432
        self.port = free_port()
        self.reader_port = free_port()
        self.names = {p: f"{p}_{self.tag}" for p in (
            "nomic_game", "nomic_restore", "nomic_owner", "nomic_writer", "nomic_cron",
            "nomic_server")}
        self.passwords = {p: secrets.token_hex(24) for p in (
            "OWNER-PASSWORD", "WRITER-PASSWORD", "CRON-PASSWORD", "SERVER-PASSWORD")}
        self.roots = {False: tmp / "srv", True: tmp / "sqlite-srv"}
        for d in (*self.roots.values(), tmp / "home", tmp / "cron-home"):
            d.mkdir()
        self.etc = tmp / "etc"
        self.sqlite = False
        self.servers: list[Server] = []
        self.inbox = Inbox()
        self.smtp = Controller(self.inbox, hostname="127.0.0.1", port=free_port())
        self.smtp.start()
        self.tokens: dict[str, str] = {}
        self.last_output = ""
        self.printed: list[str] = []  # everything the page's blocks and cron printed
        self.early_dump = tmp / "early.dump"

    # --- names ----------------------------------------------------------------------------

    def substitute(self, text: str) -> str:
        """The page's placeholders replaced, and nothing else (one pass, longest first)."""
        root = self.roots[self.sqlite]
        me = "runuser -u root --" if os.geteuid() == 0 else "env"
        pairs = {
            "/srv/nomic/venv": str(VENV), "/srv/nomic": str(root),
            "/etc/nomic-cards": str(self.etc), "127.0.0.1:5432": f"127.0.0.1:{self.pg_port}",
            "--port 8000": f"--port {self.port}", "localhost:25": f"127.0.0.1:{self.smtp.port}",
            "runuser -u nomic --": me, **self.names, **self.passwords,
        }
        pattern = re.compile("|".join(re.escape(k) for k in sorted(pairs, key=len,
                                                                       reverse=True)))
        return pattern.sub(lambda m: pairs[m.group(0)], text)

    def url(self, role: str, db: str = "nomic_game") -> str:
        return f"postgresql://{self.names[role]}@127.0.0.1:{self.pg_port}/{self.names[db]}"

    def databases(self) -> list[str]:
        game = self.names["nomic_game"]
        return [game, self.names["nomic_restore"], f"{game}_replaced", f"{game}_early"]

    # --- running the page's blocks --------------------------------------------------------

    def clean_env(self, **extra: str) -> dict[str, str]:
        return {"PATH": SYSTEMD_PATH, "HOME": str(self.tmp / "home"), "LANG": "C.UTF-8",
                **extra}

    def run_block(self, block: Block) -> None:
        text = self.substitute(block.text)
        where = f"docs/deploy.md line {block.line} ({block.section})"
        if block.lang == "sql":
            first = block.text.splitlines()[0]
            if first == "-- as the cluster superuser":
                target, env = self.admin, self.clean_env()
            else:
                owner = _env_file(self.etc / "owner.env")
                target, env = owner["NOMIC_CARDS_DB"], self.clean_env(**owner)
            args = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", target]
            done = subprocess.run(args, input=text, env=env, capture_output=True, text=True,
                                  timeout=STEP_TIMEOUT, check=False)
        else:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", text],
                                  env=self.clean_env(), capture_output=True, text=True,
                                  timeout=STEP_TIMEOUT, check=False)
        assert done.returncode == 0, f"{where} failed:\n{done.stdout}\n{done.stderr}"
        self.last_output = done.stdout
        self.printed += [done.stdout, done.stderr]

    def walk(self) -> None:
        sections: list[str] = []
        for block in self.blocks:
            if block.section not in sections:
                if sections:
                    self._hook(self.AFTER, sections[-1])
                sections.append(block.section)
                self.sqlite = block.section in SQLITE_SECTIONS
                self._hook(self.BEFORE, block.section)
            if block.lang in RUN:
                self.run_block(block)
        self._hook(self.AFTER, sections[-1])

    def _hook(self, hooks: dict[str, str], section: str) -> None:
        name = hooks.get(section)
        if name is not None:
            method: Callable[[], None] = getattr(self, name)
            method()

    def section_blocks(self, section: str) -> list[Block]:
        return [b for b in self.blocks if b.section == section]

    # --- the unit and the crontab, as systemd and cron would run them -----------------------

    def unit(self) -> dict[str, str]:
        (block,) = [b for b in self.blocks if b.lang == "ini"]
        out, part = {}, ""
        for line in self.substitute(block.text).splitlines():
            if line.startswith("["):
                part = line.strip("[]")
            elif part == "Service" and "=" in line and not line.startswith("#"):
                key, _, value = line.partition("=")
                out[key] = value
        return out

    def start_server(self, *, env_file: str | None = None, port: int | None = None) -> Server:
        """The unit's ExecStart, with its EnvironmentFile (or another one: the read-only
        server's), as systemd starts it."""
        unit = self.unit()
        command = unit["ExecStart"]
        if port is not None:
            command = command.replace(f"--port {self.port}", f"--port {port}")
        env_path = Path(env_file or unit["EnvironmentFile"])
        log = self.tmp / f"serve-{len(self.servers)}.log"
        proc = subprocess.Popen(shlex.split(command), stdout=log.open("wb"),
                                stderr=subprocess.STDOUT,
                                env=self.clean_env(**_env_file(env_path)))
        port = port or self.port
        server = Server(proc, f"http://127.0.0.1:{port}", log)
        self.servers.append(server)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, f"the server exited: {log.read_text()[-2000:]}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{server.base}/healthz", timeout=1).status_code == 200:
                    return server
            time.sleep(0.2)
        raise AssertionError(f"the server did not start: {log.read_text()[-2000:]}")

    def stop_servers(self) -> None:
        for server in self.servers:
            server.stop()
        self.servers = []

    def run_crontab(self, **extra: str) -> subprocess.CompletedProcess[str]:
        (block,) = [b for b in self.blocks if b.lang == "crontab"]
        env = {"PATH": CRON_PATH, "HOME": str(self.tmp / "cron-home"), "SHELL": "/bin/sh",
               "LOGNAME": "nomic"}
        command = None
        for line in self.substitute(block.text).splitlines():
            if re.match(r"[A-Z_]+=", line):
                key, _, value = line.partition("=")
                env[key] = value
            elif line.strip() and not line.startswith("#"):
                command = line.split(None, 5)[5]
        assert command is not None
        done = subprocess.run(["/bin/sh", "-c", command], env={**env, **extra},
                              capture_output=True, text=True, timeout=STEP_TIMEOUT,
                              check=False)
        self.printed += [done.stdout, done.stderr]
        return done

    # --- the game, as its owner and through the servers -----------------------------------

    def began(self, url: str) -> datetime:
        """When the game at ``url`` was made (its first event, dated by ``init`` on the
        machine's clock): the drill's later moments count from it, never from this process's
        own clock."""
        from nomic_cards.core.nomic import Nomic

        with Nomic(url) as game, game.read(need_game=False) as r:
            first = r.event_at(1)
        assert first is not None
        return first.at

    def owner_game(self, **kwargs: Any) -> Any:
        from nomic_cards.core.nomic import Nomic

        return Nomic(self.url("nomic_owner"), actor="PurpleBob", **kwargs)

    def set_up_players(self) -> dict[str, str]:
        """The Dealer's own work at eir terminal: players, Pooker, Points, tokens."""
        from nomic_cards.core import api
        from nomic_cards.core.services import points

        with self.owner_game() as game:
            with game.write() as tx:
                for p in ("ann", "ben", "cat"):
                    api.add_player(tx, p, email=f"{p}@example.org")
            with game.write() as tx:
                api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
            for player, card in (("ann", "Red As"), ("ben", "Red Kd"), ("cat", "Blue 9h")):
                with game.write() as tx:
                    api.transfer(tx, card, player, "test setup", source="deck")
            with game.write() as tx:
                for p in ("ann", "ben"):
                    points.grant_points(tx, p, 10, rule="Scorekeeper's report")
            with game.write() as tx:
                tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben", "cat")}
                tokens["dealer"] = api.issue_token(tx, "PurpleBob", scope="dealer").token
        return tokens

    @staticmethod
    def act(http: httpx.Client, token: str, body: dict[str, Any], *, key: str | None = None,
            expect: int = 201) -> Any:
        r = http.post("/api/v1/me/actions", content=json.dumps(body),
                      headers={"Authorization": f"Bearer {token}",
                               "Content-Type": "application/json",
                               "Idempotency-Key": key or uuid.uuid4().hex})
        assert r.status_code == expect, (body, r.status_code, r.text)
        return r

    def act_later(self, days: int, body: dict[str, Any]) -> dict[str, Any]:
        """An action through the writer account ``days`` after the drill began (the app
        in-process, on a clock set then): the work due at the boundaries passed comes first,
        in the action's transaction."""
        from starlette.testclient import TestClient

        from nomic_cards.core.clock import FixedClock
        from nomic_cards.core.nomic import Nomic
        from nomic_cards.server import create_app

        with Nomic(self.url("nomic_writer"), server=True, allow_future=True,
                  clock=FixedClock(self.began(self.url("nomic_owner")) + timedelta(days=days))
                  ) as game, \
                TestClient(create_app(game)) as client:
            r = client.post("/api/v1/me/actions", content=json.dumps(body),
                            headers={"Authorization": f"Bearer {self.tokens['dealer']}",
                                     "Content-Type": "application/json"})
            assert r.status_code == 201, r.text
            out: dict[str, Any] = r.json()
            return out

    def refused(self, role: str, statements: list[str]) -> None:
        """Each statement is refused to ``role`` for want of a privilege."""
        with psycopg.connect(self.url(role), autocommit=True) as con:
            for statement in statements:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    con.execute(statement)

    # --- the hooks ------------------------------------------------------------------------

    def check_every_table_is_granted(self) -> None:
        """The writer's block names every table of the schema (a migration adding one fails
        here until the page says what each account gets), and the grants took."""
        (writer,) = [b.text for b in self.section_blocks("The grants")
                     if "TO nomic_writer;" in b.text]
        named = set(re.findall(r"[a-z_]+", writer))
        with psycopg.connect(self.url("nomic_owner"), autocommit=True) as con:
            tables = {str(r[0]) for r in con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public'").fetchall()}
            assert tables and tables <= named, tables - named
            for role in ("nomic_writer", "nomic_cron", "nomic_server"):
                row = con.execute("SELECT has_table_privilege(%s, 'events', 'SELECT')",
                                  (self.names[role],)).fetchone()
                assert row is not None and row[0] is True, role

    def play(self) -> None:
        """Actions through the writer's server, reads through the reader's, and what neither
        may do."""
        self.tokens = tokens = self.set_up_players()
        writer = self.start_server()
        with httpx.Client(base_url=writer.base, timeout=30) as http:
            dealt = self.act(http, tokens["dealer"], {"action": "cards.deal", "player": "cat"})
            assert dealt.json()["actor"] == "PurpleBob (the Dealer, through the server)"
            self.act(http, tokens["dealer"], {"action": "cards.transfer", "card": "Blue 2c",
                                              "to": "ann", "rule": "Proposal 9"})
            self.act(http, tokens["dealer"], {"action": "cards.vote", "player": "ann",
                                              "proposal": "301"})
            self.act(http, tokens["ann"], {"action": "pooker.trade", "with": "ben",
                                           "give": ["Red As"], "get": ["Red Kd"]}, expect=202)
            self.act(http, tokens["ben"], {"action": "pooker.trade", "with": "ann",
                                           "give": ["Red Kd"], "get": ["Red As"]})
            self.act(http, tokens["ann"], {"action": "pooker.motion"})
            for p in ("ann", "ben", "cat"):
                self.act(http, tokens[p], {"action": "pooker.vote", "vote": "yes"})
            show = {"action": "pooker.show", "hands": [["Red Kd"]]}
            first = self.act(http, tokens["ann"], show, key="show-1")
            again = self.act(http, tokens["ann"], show, key="show-1")
            assert again.headers["Idempotent-Replayed"] == "true"
            assert again.json() == first.json()
            self.act(http, tokens["ann"], {"action": "cards.deal", "player": "ann"},
                     expect=403)
            hand = http.get("/api/v1/me/hand", headers={"Authorization":
                                                        f"Bearer {tokens['ann']}"}).json()
            assert {c["card"] for c in hand["cards"]} == {"Red Kd", "Blue 2c"}
            head = http.get("/api/v1/ledger/head").json()

        reader = self.start_server(env_file=str(self.etc / "reader.env"),
                                   port=self.reader_port)
        with httpx.Client(base_url=reader.base, timeout=30) as http:
            assert http.get("/api/v1/ledger/head").json() == head
            for path in ("/api/v1/game", "/api/v1/players", "/api/v1/deck", "/api/v1/dice",
                         "/api/v1/rules", "/api/v1/reports", "/reports.atom"):
                assert http.get(path).status_code == 200, path
            auth = {"Authorization": f"Bearer {tokens['ann']}"}
            mine = http.get("/api/v1/me/hand", headers=auth).json()
            assert mine["cards"] == hand["cards"]
            assert http.get(f"/api/v1/me/hand?as_of={head['event'] - 5}",
                            headers=auth).status_code == 200
            for path in ("/api/v1/me", "/api/v1/me/notices", "/api/v1/me/votes",
                         "/api/v1/me/games"):
                assert http.get(path, headers=auth).status_code == 200, path
            with http.stream("GET", "/api/v1/events",
                             headers={"Last-Event-ID": str(head["event"] - 1)}) as stream:
                seen = []
                for line in stream.iter_lines():
                    seen.append(line)
                    if line == f"id: {head['event']}" or len(seen) > 20:
                        break
                assert seen[-1] == f"id: {head['event']}", seen
            self.act(http, tokens["ann"], {"action": "pooker.motion"}, expect=500)
        log = reader.stop()
        self.servers.remove(reader)
        assert "permission denied" in log, log[-2000:]

        ledger = ["UPDATE events SET actor = actor", "DELETE FROM events", "TRUNCATE events",
                  "UPDATE event_private SET data = data", "DELETE FROM event_private",
                  "TRUNCATE ledger_head, events CASCADE"]
        self.refused("nomic_writer", [
            *ledger, "CREATE TABLE extra (n integer)", "CREATE TEMP TABLE extra (n integer)",
            "DROP TABLE events", "ALTER TABLE events ADD COLUMN extra integer",
            "SELECT email FROM players", "UPDATE players SET active = true",
            "INSERT INTO player_tokens (player_id, selector, verifier_sha256, issued_at) "
            "VALUES (1, 'x', 'y', now())", "UPDATE player_tokens SET revoked_at = NULL",
            "DELETE FROM player_tokens", "DELETE FROM ownership", "DELETE FROM card_moves",
            "UPDATE notices SET sent_seq = NULL", "INSERT INTO rule_changes (seq) VALUES (1)",
            "UPDATE settings SET value = value", "DELETE FROM deals"])
        # (the writer may set a player's address, confirmed by the link mailed to it, without
        # reading any: cron, its member, may too)
        self.refused("nomic_cron", [*ledger, "DROP TABLE events", "UPDATE players SET "
                                    "name = name", "UPDATE notices SET text = text"])
        self.refused("nomic_server", [
            *ledger, "SELECT * FROM event_private", "SELECT * FROM dice_secrets",
            "SELECT * FROM idempotency_keys", "SELECT email FROM players",
            "SELECT card FROM deals", "INSERT INTO votes (seq) VALUES (1)",
            "UPDATE ledger_head SET seq = seq"])

        # the work due at the next nweek boundary, done first by an action through the
        # writer: Cards for Votes (ann voted), the Dealer's Report, the next dice period
        # and its secret seed, the Showdown's close
        done = self.act_later(11, {"action": "cards.tick"})
        assert done["summary"].startswith("started nweek "), done
        assert "; closed " in done["summary"], done  # the Showdown's close, said too
        with psycopg.connect(self.url("nomic_owner"), autocommit=True) as con:
            kinds = {str(r[0]) for r in con.execute(
                "SELECT kind FROM events WHERE seq > %s", (head["event"],)).fetchall()}
            secrets_kept = con.execute("SELECT count(*) FROM dice_secrets").fetchone()
        assert {"report.published", "dice.committed", "card.dealt", "nweek.started",
                "pooker.closed"} <= kinds, kinds
        assert secrets_kept is not None and secrets_kept[0] == 2

    def pg_dump(self, path: Path) -> None:
        owner = _env_file(self.etc / "owner.env")
        subprocess.run(["pg_dump", "-Fc", "-d", owner["NOMIC_CARDS_DB"], "-f", str(path)],
                       env=self.clean_env(**owner), check=True, timeout=STEP_TIMEOUT)

    def run_cron(self) -> None:
        """The crontab's command at the next nweek boundary but one: the next report, the
        notices mailed as the cron account; what it prints is what the list receives."""
        self.pg_dump(self.early_dump)  # a dump that the next report's head comes after
        self.act_later(12, {"action": "cards.deal", "player": "ben"})
        at = (self.began(self.url("nomic_owner")) + timedelta(days=21)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        done = self.run_crontab(NOMIC_CARDS_AT=at, NOMIC_CARDS_ALLOW_FUTURE="1")
        log = (self.roots[False] / "cron.log").read_text(encoding="utf-8")
        assert done.returncode == 0 and not done.stderr, (done.stderr, log)
        assert "Dealer's Report for nweek 1" in done.stdout, done.stdout
        assert "Dealer's Report for nweek 2" in done.stdout, done.stdout
        assert {"ann@example.org", "ben@example.org", "cat@example.org"} <= set(
            self.inbox.rcpts), log
        # the list's archive, where the restore's check finds the published heads
        (self.roots[False] / "last-report.txt").write_text(done.stdout, encoding="utf-8")

    def check_an_old_dump_fails(self) -> None:
        """The check is worth something: a dump made before the newest report was published
        is refused by it."""
        assert "published head(s) found in the chain" in self.last_output, self.last_output
        early = self.databases()[3]
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{early}" OWNER "{self.names["nomic_owner"]}"')
        owner = _env_file(self.etc / "owner.env")
        url = f"postgresql://{self.names['nomic_owner']}@127.0.0.1:{self.pg_port}/{early}"
        subprocess.run(["pg_restore", "--exit-on-error", "--single-transaction", "-d", url,
                        str(self.early_dump)], env=self.clean_env(**owner), check=True,
                       timeout=STEP_TIMEOUT)
        done = subprocess.run([str(VENV / "bin" / "nomic-cards"), "ledger", "verify",
                               "--against", str(self.roots[False] / "last-report.txt")],
                              env=self.clean_env(**{**owner, "NOMIC_CARDS_DB": url}),
                              capture_output=True, text=True, timeout=STEP_TIMEOUT,
                              check=False)
        assert done.returncode == 1, done.stdout
        assert "events were removed after it was published" in done.stdout, done.stdout
        with psycopg.connect(self.admin, autocommit=True) as con:
            con.execute(f'DROP DATABASE "{early}" WITH (FORCE)')

    def check_the_restored_game_serves(self) -> None:
        """The server starts on the restored copy, whose grants came with the dump, and
        takes an action through the writer account."""
        server = self.start_server()
        head = httpx.get(f"{server.base}/api/v1/ledger/head", timeout=10).json()
        self.stop_servers()
        done = self.act_later(22, {"action": "cards.deal", "player": "cat"})
        assert done["events"][-1]["event"] > head["event"]

    def grant_again_and_act(self) -> None:
        """After the upgrade's init, the grant blocks again, as the page says; they are exact
        when run twice, and the writer still acts."""
        for block in self.section_blocks("The grants"):
            self.run_block(block)
        self.act_later(23, {"action": "cards.deal", "player": "ben"})

    def sqlite_cli(self, *args: str, **env: str) -> str:
        db = self.roots[True] / "cards.db"
        done = subprocess.run([str(VENV / "bin" / "nomic-cards"), *args],
                              env=self.clean_env(NOMIC_CARDS_DB=str(db), **env),
                              capture_output=True, text=True, timeout=STEP_TIMEOUT,
                              check=False)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def publish_a_sqlite_report(self) -> None:
        """A dealt card and a Dealer's Report in the SQLite game, the report saved as the
        list received it."""
        self.sqlite_cli("player", "add", "ann")
        self.sqlite_cli("deal", "ann")
        began = self.began(f"sqlite:///{self.roots[True] / 'cards.db'}")
        at = (began + timedelta(days=11)).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.sqlite_cli("tick", NOMIC_CARDS_AT=at, NOMIC_CARDS_ALLOW_FUTURE="1")
        report = self.sqlite_cli("report", "--new", NOMIC_CARDS_AT=at,
                                 NOMIC_CARDS_ALLOW_FUTURE="1")
        assert "Ledger head: event" in report, report
        (self.roots[True] / "last-report.txt").write_text(report, encoding="utf-8")

    def check_the_restored_sqlite_game(self) -> None:
        assert "published head(s) found in the chain" in self.sqlite_cli(
            "ledger", "verify", "--against", str(self.roots[True] / "last-report.txt"))
        assert "ann" in self.sqlite_cli("hand", "ann")

    # --- afterwards -----------------------------------------------------------------------

    def cleanup(self) -> None:
        """Stop what was started; drop every database and role made (roles are
        cluster-wide)."""
        errors = []
        with contextlib.suppress(Exception):
            self.stop_servers()
        with contextlib.suppress(Exception):
            self.smtp.stop()
        with psycopg.connect(self.admin, autocommit=True) as con:
            for db in self.databases():
                try:
                    con.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
                except psycopg.Error as exc:
                    errors.append(f"{db}: {exc}")
            for role in ("nomic_cron", "nomic_writer", "nomic_server", "nomic_owner"):
                try:
                    con.execute(f'DROP ROLE IF EXISTS "{self.names[role]}"')
                except psycopg.Error as exc:
                    errors.append(f"{role}: {exc}")
        assert not errors, errors


@pytest.fixture
def drill(tmp_path: Path) -> Iterator[Drill]:
    _require_pg()
    host = urlsplit(pg_base_url().replace("postgresql+psycopg://", "postgresql://")).hostname
    if host not in ("127.0.0.1", "localhost"):
        pytest.skip(f"the deployment drill runs on a PostgreSQL server at 127.0.0.1, not {host}")
    missing = [t for t in TOOLS if shutil.which(t, path=SYSTEMD_PATH) is None]
    if missing:
        message = f"the deployment drill needs {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    d = Drill(tmp_path, page_blocks(DOC.read_text(encoding="utf-8")))
    try:
        yield d
    finally:
        d.cleanup()


@pytest.mark.pg
@pytest.mark.slow
def test_the_deployment_page_runs_as_written(drill: Drill) -> None:
    began = time.monotonic()
    drill.walk()
    with psycopg.connect(drill.admin, autocommit=True) as con:
        left = {str(r[0]) for r in con.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s",
            (f"%{drill.tag}%",)).fetchall()}
    # the page's own last PostgreSQL steps: the game runs on the restored copy, the old one
    # is gone
    assert left == {drill.names["nomic_game"]}, left
    assert time.monotonic() - began < 300
    # no secret on the terminal or in a log: what every block and cron printed, every
    # server's output and cron's log show a database URL with its password as ***
    drill.stop_servers()
    said = [*drill.printed, *(p.read_text(encoding="utf-8", errors="replace")
                              for p in sorted(drill.tmp.rglob("*.log")))]
    assert any("Serving postgresql://" in s and ":***@" in s for s in said)  # masked, shown
    for name, password in drill.passwords.items():
        assert not [s for s in said if password in s], f"{name} was printed or logged"


# --- the nginx block, when nginx is at hand ---------------------------------------------------


def nginx_binary() -> str | None:
    """nginx from ``NOMIC_CARDS_TEST_NGINX``, else the system's."""
    return os.environ.get("NOMIC_CARDS_TEST_NGINX") or shutil.which("nginx", path=SYSTEMD_PATH)


@pytest.mark.slow
def test_the_nginx_block_serves_tls_and_passes_streams_through(tmp_path: Path) -> None:
    """The page's nginx block, run by nginx in front of ``serve`` on a SQLite game: TLS (a
    certificate of a test CA), plain HTTP redirected, an event stream's frames arriving as
    events are recorded, a body over 16 KiB and a 17th public stream from one address refused
    by nginx, a player's own stream served meanwhile. Only what ties it to this machine
    changes: the ports (free ones on 127.0.0.1, the IPv6 listens dropped), the certificate's
    files, and nginx's own file paths around the block."""
    import ssl

    import trustme

    from nomic_cards.core import api
    from nomic_cards.core.nomic import Nomic
    from tests.helpers import new_game
    from tests.server.conftest import start_server, stop_server

    nginx = nginx_binary()
    if nginx is None:
        why = "nginx is not installed (or set NOMIC_CARDS_TEST_NGINX to an nginx binary)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: .ci/run installs it")
        pytest.skip(why)
    blocks = page_blocks(DOC.read_text(encoding="utf-8"))
    block = next(b.text for b in blocks if b.lang == "nginx")
    ca = trustme.CA()
    cert = ca.issue_cert("cards.example.org", "127.0.0.1")
    cert.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "chain.pem"))
    db = f"sqlite:///{tmp_path / 'cards.db'}"
    with new_game(db, players=("ann",)) as game, game.write() as tx:
        token = api.issue_token(tx, "ann").token
    backend = start_server(db, tmp_path, args=("--forwarded-allow-ips", "127.0.0.1"))
    http_port, https_port = free_port(), free_port()
    port = backend.base.rsplit(":", 1)[1]
    pairs = {
        "listen 80;": f"listen 127.0.0.1:{http_port};", "listen [::]:80;": "",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{https_port} ssl http2;",
        "listen [::]:443 ssl http2;": "", "127.0.0.1:8000": f"127.0.0.1:{port}",
        "/etc/letsencrypt/live/cards.example.org/fullchain.pem": str(tmp_path / "chain.pem"),
        "/etc/letsencrypt/live/cards.example.org/privkey.pem": str(tmp_path / "chain.pem"),
    }
    for old, new in pairs.items():
        assert old in block, old
        block = block.replace(old, new)
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    temp = " ".join(f"{kind}_temp_path {prefix / kind};"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (prefix / "nginx.conf").write_text(
        f"pid {prefix / 'nginx.pid'};\nerror_log {prefix / 'error.log'};\nevents {{}}\n"
        f"http {{\naccess_log {prefix / 'access.log'};\n{temp}\n{block}\n}}\n",
        encoding="utf-8")
    run = [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf")]
    subprocess.run([*run, "-t"], check=True, capture_output=True, timeout=30)
    proxy = subprocess.Popen([*run, "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    context = ssl.create_default_context()
    ca.configure_trust(context)
    base = f"https://127.0.0.1:{https_port}"
    try:
        with httpx.Client(base_url=base, verify=context, timeout=10) as http:
            deadline = time.monotonic() + 30
            while True:
                try:
                    assert http.get("/healthz").json()["status"] == "ok"
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "nginx did not answer"
                    time.sleep(0.2)
            plain = httpx.get(f"http://127.0.0.1:{http_port}/api/v1/game",
                              headers={"Host": "cards.example.org"}, timeout=10)
            assert plain.status_code == 301
            assert plain.headers["location"] == "https://cards.example.org/api/v1/game"
            auth = {"Authorization": f"Bearer {token}"}
            big = http.post("/api/v1/me/actions", content=b"{" + b" " * 17000 + b"}",
                            headers={**auth, "Content-Type": "application/json"})
            assert big.status_code == 413 and big.headers["server"].startswith("nginx")
            head = http.get("/api/v1/ledger/head").json()["event"]
            with http.stream("GET", "/api/v1/me/events", headers=auth) as stream:
                lines = stream.iter_lines()
                assert next(lines).startswith("retry:")
                with Nomic(db) as again, again.write() as tx:
                    api.deal(tx, "ann")
                began = time.monotonic()
                for line in lines:
                    if line == f"id: {head + 1}":
                        break
                assert time.monotonic() - began < 5
            # the public stream's share per client address, taken by nginx first: the
            # 17th from one address is nginx's 429, and a player's own stream is served
            with contextlib.ExitStack() as held:
                answers = []
                for _ in range(17):
                    client = held.enter_context(
                        httpx.Client(base_url=base, verify=context, timeout=10))
                    answers.append(held.enter_context(client.stream("GET", "/api/v1/events")))
                assert [a.status_code for a in answers] == [200] * 16 + [429]
                # nginx's own page, not the server's JSON refusal
                assert answers[-1].headers["content-type"].startswith("text/html")
                with http.stream("GET", "/api/v1/me/events", headers=auth) as own:
                    assert own.status_code == 200
    finally:
        proxy.send_signal(signal.SIGQUIT)
        proxy.wait(timeout=20)
        stop_server(backend)
