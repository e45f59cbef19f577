"""Self-service by mail, through the server and a real SMTP server (aiosmtpd), the clock
frozen: a player changes eir address by a link mailed to the new one (a page with a Confirm
button, then the change), asks for a new token mailed to the registered address (the old one
revoked), and chooses a daily digest; the limits; the ledger verifies, and a forged
confirmation is refused on replay."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.ledger.events import PlayerEmailSet
from nomic_cards.core.ledger.state import ReplayError
from nomic_cards.core.services.notices import send_notices
from tests.helpers import sql
from tests.mailbox import Kept
from tests.server.conftest import Served

BASE = "https://cards.example.org"
ACTIONS = "/api/v1/me/actions"




@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time("2026-01-22 10:00:00") as frozen:
        yield frozen


def body(msg: EmailMessage) -> str:
    return str(msg.get_content()).replace("\r\n", "\n")


def email_of(served: Served, player: str) -> str | None:
    found = sql(served.game, "select email from players where name = :n", n=player)[0][0]
    return None if found is None else str(found)


def test_an_address_changes_when_the_link_mailed_to_it_is_followed(
        served: Served, client: TestClient, smtp: tuple[str, Kept],
        clock: FrozenDateTimeFactory) -> None:
    server, inbox = smtp
    auth = {"Authorization": f"Bearer {served.tokens['ann']}"}
    r = client.post(ACTIONS, json={"action": "cards.address", "address": "ann@new.example"},
                    headers=auth)
    assert r.status_code in (200, 201, 202), r.text
    assert email_of(served, "ann") == "ann@example.org"  # not yet
    clock.tick(60)
    report = send_notices(served.game, smtp=server, base_url=BASE)
    assert [(q.what, q.outcome) for q in report.requests] == [("link", "sent")]
    (mail,) = [m for m in inbox.messages if "confirm your new address" in str(m["Subject"])]
    assert str(mail["To"]) == "ann <ann@new.example>"
    (link,) = re.findall(rf"{BASE}/address/confirm\?link=(\S+)", body(mail))
    # the page shows a Confirm button and changes nothing
    page = client.get(f"/address/confirm?link={link}")
    assert page.status_code == 200 and "<button type=\"submit\">Confirm</button>" in page.text
    assert email_of(served, "ann") == "ann@example.org"
    # a wrong secret is refused alike, and changes nothing
    request, _, secret = link.partition(".")
    wrong = client.post("/address/confirm", data={"link": f"{request}.{'x' * len(secret)}"})
    assert wrong.status_code == 409 and email_of(served, "ann") == "ann@example.org"
    done = client.post("/address/confirm", data={"link": link})
    assert done.status_code == 200 and "ann@new.example" in done.text
    assert email_of(served, "ann") == "ann@new.example"
    again = client.post("/address/confirm", data={"link": link})  # followed once only
    assert again.status_code == 409
    # the next sending mails nothing more
    before = len(inbox.messages)
    assert send_notices(served.game, smtp=server, base_url=BASE).requests == ()
    assert len(inbox.messages) == before
    with served.game.read() as tx:
        assert api.ledger_verify(tx).ok
        lines = {v.kind: v.summary for v in api.log(tx, limit=10)}
        revealed = {v.kind: v.summary for v in api.log(tx, limit=10, reveal=True)}
    # the log says each step; the new address only with --reveal, and never in public
    assert lines["player.address_asked"] == (
        "ann asked to change eir e-mail address to (hidden: use --reveal); a link confirms it")
    assert revealed["player.address_asked"] == (
        "ann asked to change eir e-mail address to <ann@new.example>; a link confirms it")
    assert lines["player.address_linked"].startswith(
        "mailed ann the link confirming the address change of event ")
    public = client.get("/api/v1/log", params={"limit": 10}).text
    assert "player.address_asked" in public and "ann@new.example" not in public


def test_a_link_expires_after_48_hours(served: Served, client: TestClient,
                                        smtp: tuple[str, Kept],
                                        clock: FrozenDateTimeFactory) -> None:
    server, inbox = smtp
    auth = {"Authorization": f"Bearer {served.tokens['ben']}"}
    client.post(ACTIONS, json={"action": "cards.address", "address": "ben@new.example"},
                headers=auth)
    send_notices(served.game, smtp=server, base_url=BASE)
    (link,) = re.findall(rf"{BASE}/address/confirm\?link=(\S+)", body(inbox.messages[-1]))
    clock.tick(48 * 3600 + 1)
    assert client.post("/address/confirm", data={"link": link}).status_code == 409
    assert email_of(served, "ben") is None


def test_a_new_token_is_mailed_to_the_registered_address_and_the_old_one_revoked(
        served: Served, client: TestClient, smtp: tuple[str, Kept],
        clock: FrozenDateTimeFactory) -> None:
    server, inbox = smtp
    old = {"Authorization": f"Bearer {served.tokens['ann']}"}
    assert client.get("/api/v1/me", headers=old).status_code == 200
    r = client.post("/api/v1/token", json={"player": "ann"})
    assert r.status_code == 202, r.text
    # asked again at once: refused with the time to wait
    clock.tick(60)
    soon = client.post("/api/v1/token", json={"player": "ann"})
    assert soon.status_code == 429 and int(soon.headers["Retry-After"]) == 14 * 60
    assert client.get("/api/v1/me", headers=old).status_code == 200  # not before the mail
    report = send_notices(served.game, smtp=server, base_url=BASE)
    assert [(q.what, q.outcome) for q in report.requests] == [("token", "sent")]
    (mail,) = [m for m in inbox.messages if "new player token" in str(m["Subject"])]
    assert str(mail["To"]) == "ann <ann@example.org>"
    (token,) = re.findall(r"^    (\S+\.\S+)$", body(mail), re.MULTILINE)
    assert client.get("/api/v1/me", headers=old).status_code == 401
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and "ann" in me.text
    # cat has no address: no token is mailed, and the ledger says so
    clock.tick(60)
    assert client.post("/api/v1/token", json={"player": "cat"}).status_code == 202
    report = send_notices(served.game, smtp=server, base_url=BASE)
    assert [(q.what, q.outcome, q.reason) for q in report.requests] == [
        ("token", "skipped", "cat has no e-mail address")]
    # four a day at most
    for _ in range(3):
        clock.tick(16 * 60)
        assert client.post("/api/v1/token", json={"player": "ben"}).status_code == 202
    clock.tick(16 * 60)
    assert client.post("/api/v1/token", json={"player": "ben"}).status_code == 202
    clock.tick(16 * 60)
    assert client.post("/api/v1/token", json={"player": "ben"}).status_code == 429
    assert client.post("/api/v1/token", json={"player": "nobody"}).status_code in (400, 404)
    with served.game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_a_daily_digest_is_chosen_by_an_action(served: Served, client: TestClient,
                                               clock: FrozenDateTimeFactory) -> None:
    auth = {"Authorization": f"Bearer {served.tokens['ann']}"}
    r = client.post(ACTIONS, json={"action": "cards.mail", "mail": "daily"}, headers=auth)
    assert r.status_code in (200, 201, 202), r.text
    bad = client.post(ACTIONS, json={"action": "cards.mail", "mail": "hourly"}, headers=auth)
    assert bad.status_code == 400 and "each or daily" in bad.json()["error"]


def test_a_forged_confirmation_is_refused(served: Served, clock: FrozenDateTimeFactory) -> None:
    head = int(str(sql(served.game, "select max(seq) from events")[0][0]))
    with pytest.raises(ReplayError, match="which is not the change waiting for it"), \
            served.game.write() as tx:
        tx.record(PlayerEmailSet("ann", "eve@evil.example", head))
    assert email_of(served, "ann") == "ann@example.org"


@contextlib.contextmanager
def deployed_accounts(url: str) -> Iterator[tuple[str, str]]:
    """(the writer's URL, cron's URL): the PostgreSQL game at ``url`` through accounts made
    with docs/deploy.md's grants for the writer and for cron, exactly as written there."""
    import uuid

    import psycopg

    from tests.conftest import pg_base_url
    from tests.server.conftest import _sql_block

    schema = url.split("search_path%3D", 1)[1].split("&", 1)[0]
    tag = uuid.uuid4().hex[:8]
    writer, cron = f"writer_{tag}", f"cron_{tag}"
    grants = (f"CREATE ROLE {writer} LOGIN;\nCREATE ROLE {cron} LOGIN IN ROLE {writer};\n"
              + _sql_block("deploy.md", granting="nomic_writer")
              + _sql_block("deploy.md", granting="nomic_cron"))
    grants = (grants.replace("SCHEMA public", f'SCHEMA "{schema}"')
              .replace("nomic_writer", writer).replace("nomic_cron", cron))
    admin = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'SET search_path TO "{schema}"')
        con.execute(grants)  # type: ignore[arg-type]
    scheme, rest = url.split("://", 1)
    host = rest.split("@", 1)[1]
    try:
        yield f"{scheme}://{writer}@{host}", f"{scheme}://{cron}@{host}"
    finally:
        with psycopg.connect(admin, autocommit=True) as con:
            for role in (cron, writer):
                con.execute(f"DROP OWNED BY {role}")  # type: ignore[arg-type]
                con.execute(f"DROP ROLE {role}")  # type: ignore[arg-type]


@pytest.mark.pg
def test_the_documented_accounts_suffice(served: Served, smtp: tuple[str, Kept],
                                         clock: FrozenDateTimeFactory) -> None:
    """The server as docs/deploy.md's writer takes the requests and the confirmation; cron's
    account mails the link and the token and keeps the token."""
    from nomic_cards.core.nomic import Nomic
    from nomic_cards.server import create_app

    if not served.game.url.startswith("postgresql"):
        pytest.skip("the documented accounts are PostgreSQL's")
    server, inbox = smtp
    with deployed_accounts(served.game.url) as (writer_url, cron_url), \
            Nomic(writer_url, server=True) as writer, Nomic(cron_url) as cron, \
            TestClient(create_app(writer)) as client:
        auth = {"Authorization": f"Bearer {served.tokens['ann']}"}
        r = client.post(ACTIONS, json={"action": "cards.address", "address": "ann@new.example"},
                        headers=auth)
        assert r.status_code == 202, r.text
        assert client.post("/api/v1/token", json={"player": "ben"}).status_code == 202
        report = send_notices(cron, smtp=server, base_url=BASE)
        assert sorted((q.what, q.outcome) for q in report.requests) == [
            ("link", "sent"), ("token", "skipped")]
        (link,) = re.findall(rf"{BASE}/address/confirm\?link=(\S+)", body(inbox.messages[-1]))
        assert client.post("/address/confirm", data={"link": link}).status_code == 200
        clock.tick(16 * 60)
        assert client.post("/api/v1/token", json={"player": "ann"}).status_code == 202
        report = send_notices(cron, smtp=server, base_url=BASE)
        assert [(q.what, q.outcome) for q in report.requests] == [("token", "sent")]
        assert str(inbox.messages[-1]["To"]) == "ann <ann@new.example>"
    assert email_of(served, "ann") == "ann@new.example"


@pytest.mark.parametrize(("path", "body", "status", "words"), [
    ("/api/v1/token", b'{"player": "ann", "player": "ben"}', 400, "twice"),
    ("/api/v1/token", b'{"player": NaN}', 400, "NaN"),
    ("/api/v1/token", b"[", 400, "not valid JSON"),
    ("/api/v1/token", b'{"player": "' + b"a" * 17_000 + b'"}', 413, "too large"),
    ("/address/confirm", b"link=" + b"a" * 17_000, 413, "too large"),
])
def test_a_bad_body_is_refused_in_one_line_and_nothing_is_recorded(
        served: Served, client: TestClient, path: str, body: bytes, status: int,
        words: str) -> None:
    """Read as an action's body is: at most 16 KiB (declared larger: refused before a byte is
    read, the connection closed), JSON one way."""
    before = sql(served.game, "select count(*) from events")
    r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert words in r.text and "Traceback" not in r.text
    if status == 413:
        assert r.headers["Connection"] == "close"
    assert sql(served.game, "select count(*) from events") == before
