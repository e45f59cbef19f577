"""The JSON API in-process: every response against the OpenAPI document, the public record,
a player's own view, tokens, ETags, and every kind of bad request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.settings import PROPOSAL_PACKS
from nomic_cards.core.store.reads import Db
from nomic_cards.server import create_app
from nomic_cards.server.auth import UNAUTHORIZED_BODY, FailureLimiter
from tests.server.conftest import Served

PUBLIC = ["/api/v1/game", "/api/v1/players", "/api/v1/deck", "/api/v1/reports",
          "/api/v1/dice", "/api/v1/rules", "/api/v1/ledger/head", "/healthz"]
PRIVATE = ["/api/v1/me", "/api/v1/me/hand", "/api/v1/me/notices"]


def check(client: TestClient, path: str, response: Any) -> Any:
    """Validate a JSON response against the OpenAPI document served by the app."""
    doc = client.get("/api/v1/openapi.json").json()
    template = path.split("?")[0]
    if template.startswith("/api/v1/reports/"):
        template = "/api/v1/reports/{nweek}"
    op = doc["paths"][template]["get"]
    spec = op["responses"][str(response.status_code)]
    media = response.headers["content-type"].split(";")[0]
    schema = spec["content"][media]["schema"]
    data = response.json() if media == "application/json" else response.text
    jsonschema.validate(data, {**schema, "components": doc["components"]},
                        cls=jsonschema.Draft202012Validator)
    return data


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_every_public_resource_matches_the_document(client: TestClient) -> None:
    for path in PUBLIC:
        r = client.get(path)
        assert r.status_code == 200, path
        check(client, path, r)
    for fmt in ("json", "text", "markdown"):
        r = client.get(f"/api/v1/reports/1?format={fmt}")
        assert r.status_code == 200
        check(client, "/api/v1/reports/1", r)


def test_rules_include_the_card_games_in_force(client: TestClient, served: Served) -> None:
    with freeze_time("2026-01-22 10:00:00"), served.game.write() as tx:
        api.game_enact(tx, "pooker", "0,1", proposal="P456")
    rules = check(client, "/api/v1/rules", client.get("/api/v1/rules"))
    pooker = [r for r in rules if r["rule"] == "pooker"]
    assert [(r["in_force"], r["params"]["packs"], r["params"]["trade-fee"], r["changed_by"])
            for r in pooker] == [(True, "0,1", 1, "P456")]


def test_rules_now_and_at_a_time_match_the_document(client: TestClient,
                                                     served: Served) -> None:
    with freeze_time("2026-01-22 10:00:00"), served.game.write() as tx:
        api.amend_rule(tx, "9", ["cards=2"], proposal="Proposal 412")
    now = check(client, "/api/v1/rules", client.get("/api/v1/rules"))
    cfv = next(r for r in now if r["rule"] == "cards-for-votes")
    assert (cfv["number"], cfv["in_force"], cfv["params"], cfv["changed_by"], cfv["since"]) == \
        ("9", True, {"cards": 2}, "Proposal 412", "2026-01-22T10:00:00Z")
    r = client.get("/api/v1/rules?at=2026-01-15T00:00:00Z")
    before = check(client, "/api/v1/rules", r)
    assert next(x for x in before if x["rule"] == "cards-for-votes")["params"] == {"cards": 1}
    bad = client.get("/api/v1/rules?at=soon")
    assert bad.status_code == 400
    check(client, "/api/v1/rules", bad)
    early = client.get("/api/v1/rules?at=2025-01-01")
    assert early.status_code == 404
    check(client, "/api/v1/rules", early)


def test_public_resources_say_what_the_report_says_and_no_face(client: TestClient,
                                                               served: Served) -> None:
    players = {p["name"]: p for p in client.get("/api/v1/players").json()["players"]}
    with served.game.read() as tx:
        ben = api.hand(tx, "ben").cards
    assert players["ben"]["cards"] == len(ben) == 2
    assert sorted(b["back"] for b in players["ben"]["by_back"] for _ in range(b["cards"])) == \
        sorted(c.back for c in ben)
    deck = client.get("/api/v1/deck").json()
    with served.game.read() as tx:
        assert deck["total"] == api.deck(tx).total
    public_text = "".join(client.get(p).text for p in PUBLIC + ["/reports.atom"])
    with served.game.read() as tx:
        held = [c for p in ("ann", "ben") for c in api.hand(tx, p).cards]
    for c in held:
        assert c.card not in public_text and c.name not in public_text
    assert "ann@example.org" not in public_text
    head = client.get("/api/v1/ledger/head").json()
    with served.game.read() as tx:
        assert head["event"] == api.public_record(tx)[-1].seq


def test_a_player_reads_their_own_hand_and_notices(client: TestClient, served: Served) -> None:
    for player in ("ann", "ben"):
        r = client.get("/api/v1/me/hand", headers=auth(served.tokens[player]))
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        hand = check(client, "/api/v1/me/hand", r)
        with served.game.read() as tx:
            expected = api.hand(tx, player).cards
        assert hand["player"] == player
        assert [(c["number"], c["card"], c["back"]) for c in hand["cards"]] == \
            [(c.number, c.card, c.back) for c in expected]
        notices = check(client, "/api/v1/me/notices",
                        client.get("/api/v1/me/notices", headers=auth(served.tokens[player])))
        with served.game.read() as tx:
            texts = [n.text for n in api.notices(tx, player)]  # the ledger's order
        assert len(texts) > 1 and [n["text"] for n in notices] == texts[::-1]  # newest first
        assert [n["event"] for n in notices] == sorted((n["event"] for n in notices),
                                                       reverse=True)
        # a dealt card's notice says how many rolls it took and the dice (as the public record
        # does), never a number rolled
        with served.game.read() as tx:
            public = [json.loads(e.payload)["dice"] for e in api.public_record(tx)
                      if e.kind == "card.dealt" and e.subject == player]
        assert [(n["rolls"], n["dice"]) for n in notices[::-1]] == \
            [(d["count"], d["source"]) for d in public]
        me = check(client, "/api/v1/me", client.get("/api/v1/me",
                                                    headers=auth(served.tokens[player])))
        assert me["name"] == player


def test_hand_as_of_an_event_replays(client: TestClient, served: Served) -> None:
    token = served.tokens["ben"]
    with served.game.read() as tx:
        first = min(n.event for n in api.notices(tx, "ben"))
    r = client.get(f"/api/v1/me/hand?as_of={first}", headers=auth(token))
    hand = check(client, "/api/v1/me/hand", r)
    assert hand["as_of"] == first and len(hand["cards"]) == 1
    r = client.get("/api/v1/me/hand?as_of=2026-01-01T12:00:00Z", headers=auth(token))
    assert r.status_code == 200 and r.json()["cards"] == []


def test_the_command_line_and_the_server_give_the_same_hand(client: TestClient,
                                                             served: Served) -> None:
    """``hand --json`` and ``/api/v1/me/hand`` are one shape, the same values: now and as of an
    event, for a player holding cards, one holding none and the Dealer."""
    from typer.testing import CliRunner

    from nomic_cards.cli import app as cli

    def cli_hand(*args: str) -> Any:
        r = CliRunner().invoke(cli, ["--db", served.game.url, "hand", *args, "--json"])
        assert r.exit_code == 0, r.output
        return json.loads(r.output)

    from nomic_cards.core.services.public import ledger_head

    with served.game.read() as tx:
        before = ledger_head(tx).event
    with freeze_time("2026-01-21 10:00:00"), served.game.write() as tx:
        api.elect_dealer(tx, "ben")
    for player, token in served.tokens.items():
        now = check(client, "/api/v1/me/hand",
                    client.get("/api/v1/me/hand", headers=auth(token)))
        assert now == cli_hand(player)
        assert now["dealer"] == (player == "ben") and (now["cards"] == []) == (player != "ann")
        then = check(client, "/api/v1/me/hand", client.get(
            "/api/v1/me/hand", params={"as_of": str(before)}, headers=auth(token)))
        assert then == cli_hand(player, "--as-of", str(before))
        assert not then["dealer"] and (then["cards"] == []) == (player == "cat")
        assert set(now) == set(then) == {"player", "as_of", "cards", "dealer"}
        for card in now["cards"] + then["cards"]:
            assert set(card) == {"number", "card", "name", "back"}


@pytest.mark.parametrize(("value", "status"), [
    ("-1", 400), ("0", 400), ("yesterday", 400), ("1; drop table events", 400),
    ("' or 1=1 --", 400), ("9" * 200, 400), ("9" * 19, 400), ("%00", 400),
    # numbers are ASCII digits: not superscripts, circled or other scripts' digits
    ("²", 400), ("٣", 400), ("①", 400), ("１", 400), ("9" * 5000, 400),
    # a well-formed as_of naming a hand that does not exist yet
    ("99999999", 404), ("2999-01-01T00:00:00Z", 404)])
def test_bad_as_of_is_4xx_in_one_line(client: TestClient, served: Served, value: str,
                                      status: int) -> None:
    r = client.get("/api/v1/me/hand", params={"as_of": value},
                   headers=auth(served.tokens["ann"]))
    assert r.status_code == status
    assert "\n" not in r.json()["error"] and "Traceback" not in r.text
    check(client, "/api/v1/me/hand", r)


def test_every_wrong_token_gets_the_same_401_after_the_same_queries(
        client: TestClient, served: Served) -> None:
    good = served.tokens["ann"]
    selector, verifier = good.split(".")
    with served.game.write() as tx:
        api.issue_token(tx, "cat", keep_others=False)  # cat's first token revoked
        api.retire_player(tx, "ben")  # ben's token revoked with him
    wrong = {
        "missing": {},
        "not bearer": {"Authorization": f"Basic {good}"},
        "malformed": auth("not-a-token"),
        "unknown selector": auth(f"{'x' * 16}.{verifier}"),
        "wrong verifier": auth(f"{selector}.{'y' * 43}"),
        "revoked": auth(served.tokens["cat"]),
        "retired player": auth(served.tokens["ben"]),
    }
    for path in PRIVATE:
        client.app.state.limiter = FailureLimiter()  # this test is not about the limit
        answers = set()
        for what, headers in wrong.items():
            with _recorded() as statements:
                r = client.get(path, headers=headers)
            assert r.status_code == 401, (path, what)
            assert r.headers["cache-control"] == "no-store"
            answers.add((r.text, len(statements)))
            check(client, path, r)
        assert answers == {(json.dumps(dict(UNAUTHORIZED_BODY), separators=(",", ":")),
                            next(iter(answers))[1])}, (path, answers)
        assert client.get(path, headers=auth(good)).status_code == 200


@contextmanager
def _recorded() -> Iterator[list[str]]:
    """The statements the reads inside run (every read goes through
    :class:`~nomic_cards.core.store.reads.Reads`' ``all`` and ``one``)."""
    seen: list[str] = []
    run_all, run_one = Db.all, Db.one

    def all_(db: Db, text: str, params: Any = ()) -> Any:
        seen.append(" ".join(text.lower().split()))
        return run_all(db, text, params)

    def one(db: Db, text: str, params: Any = ()) -> Any:
        seen.append(" ".join(text.lower().split()))
        return run_one(db, text, params)

    with patch.object(Db, "all", all_), patch.object(Db, "one", one):
        yield seen


def _statements(client: TestClient, headers: dict[str, str]) -> tuple[int, list[str]]:
    """The status of ``GET /me/hand`` and the statements its reads ran."""
    with _recorded() as seen:
        status = client.get("/api/v1/me/hand", headers=headers).status_code
    return status, seen


def test_the_hand_is_read_only_after_the_token_is_accepted(client: TestClient,
                                                           served: Served) -> None:
    """A token and its hand are read by one statement, the same for every token: a rejected
    token costs that one lookup whether or not its selector exists, and its player's cards are
    joined only when the verifier's hash is the stored one (``Reads.token_and_hand``, checked
    row by row in tests/test_reads.py), so a wrong verifier reads no card."""
    selector, verifier = served.tokens["ben"].split(".")
    known, known_queries = _statements(client, auth(f"{selector}.{'y' * 43}"))
    unknown, unknown_queries = _statements(client, auth(f"{'x' * 16}.{verifier}"))
    good, good_queries = _statements(client, auth(served.tokens["ben"]))
    assert known == unknown == 401 and good == 200
    assert len(known_queries) == len(unknown_queries) == len(good_queries) == 1
    assert known_queries == unknown_queries == good_queries  # the same statement text
    assert "player_tokens.verifier_sha256 = ?" in known_queries[0]


def test_failed_attempts_are_limited_per_address(client: TestClient, served: Served) -> None:
    for _ in range(20):
        assert client.get("/api/v1/me/hand", headers=auth("bad")).status_code == 401
    r = client.get("/api/v1/me/hand", headers=auth(served.tokens["ann"]))
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    check(client, "/api/v1/me/hand", r)


def test_public_resources_revalidate_with_the_ledger_head(client: TestClient,
                                                          served: Served) -> None:
    for path in PUBLIC[:-2] + ["/reports.atom", "/api/v1/reports/1"]:
        first = client.get(path)
        etag = first.headers["etag"]
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == etag
    with served.game.write() as tx:
        api.deal(tx, "ann")  # the ledger moves: every ETag changes
    after = client.get("/api/v1/deck", headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag


def test_the_feed_is_atom_with_every_report(client: TestClient, served: Served) -> None:
    r = client.get("/reports.atom")
    assert r.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(r.content)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = root.findall("a:entry", ns)
    assert [e.findtext("a:title", namespaces=ns) for e in entries] == [
        "Dealer's Report for nweek 2", "Dealer's Report for nweek 1"]
    with served.game.read() as tx:
        assert entries[0].findtext("a:content", namespaces=ns) == \
            api.report(tx, 2).body


def test_the_log_feed_says_each_event_as_the_log_does(client: TestClient) -> None:
    """``/log.atom``: the newest events, each entry's title its event's sentence, each linked
    to the event in ``GET /api/v1/log``."""
    r = client.get("/log.atom")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/atom+xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = ET.fromstring(r.content).findall("a:entry", ns)
    logged = client.get("/api/v1/log").json()
    assert [e.findtext("a:title", namespaces=ns) for e in entries] == [e["text"] for e in logged]
    link = entries[0].find("a:link", ns)
    assert link is not None
    one = client.get(link.get("href", "")).json()
    assert [e["event"] for e in one] == [logged[0]["event"]]


ATOM_NS = {"a": "http://www.w3.org/2005/Atom"}
FORGED = {"Host": "attacker.example"}


def _feed_addresses(body: bytes) -> tuple[list[str], list[str]]:
    root = ET.fromstring(body)
    ids = [e.text or "" for e in root.iter("{http://www.w3.org/2005/Atom}id")]
    links = [e.get("href", "") for e in root.iter("{http://www.w3.org/2005/Atom}link")]
    return ids, links


def test_the_feed_and_redirects_never_take_the_host_header(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOMIC_CARDS_BASE_URL", raising=False)
    with TestClient(create_app(served.game)) as c:
        forged = c.get("/reports.atom", headers=FORGED)  # the first to ask, after a move
        assert forged.status_code == 200 and b"attacker" not in forged.content
        assert c.get("/reports.atom").content == forged.content
        ids, links = _feed_addresses(forged.content)
        assert links == ["/reports.atom", "/", "/api/v1/reports/2?format=text",
                         "/api/v1/reports/1?format=text"]
        with served.game.read() as tx:
            game_id = api.public_record(tx)[0].hash[:16]
        assert ids == [f"urn:nomic-cards:{game_id}:reports",
                       f"urn:nomic-cards:{game_id}:report:2",
                       f"urn:nomic-cards:{game_id}:report:1"]
        r = c.get("/api/v1/me/hand/?as_of=3", headers=FORGED, follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == "/api/v1/me/hand?as_of=3"
        for path in ("/nothing-here/", "/api/v1/nothing/", "/static/nothing/x/"):
            assert c.get(path, headers=FORGED, follow_redirects=False).status_code in (400, 404)


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_the_feed_and_redirects_use_the_configured_base_url(
        served: Served, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    base = "https://cards.example.org"
    if how == "environment":
        monkeypatch.setenv("NOMIC_CARDS_BASE_URL", base + "/")
        app = create_app(served.game)
    else:
        monkeypatch.delenv("NOMIC_CARDS_BASE_URL", raising=False)
        app = create_app(served.game, base_url=base)
    with TestClient(app) as c:
        forged = c.get("/reports.atom", headers=FORGED)
        assert b"attacker" not in forged.content
        ids, links = _feed_addresses(forged.content)
        assert ids == [f"{base}/reports.atom", f"{base}/api/v1/reports/2",
                       f"{base}/api/v1/reports/1"]
        assert links == [f"{base}/reports.atom", f"{base}/",
                         f"{base}/api/v1/reports/2?format=text",
                         f"{base}/api/v1/reports/1?format=text"]
        assert c.get("/reports.atom", headers={"Host": "other.example"}).content == \
            forged.content
        r = c.get("/api/v1/reports/2/", headers=FORGED, follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == f"{base}/api/v1/reports/2"


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/nothing-here", 404), ("GET", "/api/v2/deck", 404),
    ("GET", "/api/v1/reports/99", 404), ("GET", "/api/v1/reports/abc", 400),
    # numbers are ASCII digits: not superscripts, circled or other scripts' digits (١ is 1)
    ("GET", "/api/v1/reports/%C2%B2", 400), ("GET", "/api/v1/reports/%E2%91%A0", 400),
    ("GET", "/api/v1/reports/%D9%A1", 400), ("GET", "/api/v1/reports/%EF%BC%91", 400),
    ("GET", "/api/v1/reports/1?format=pdf", 400), ("GET", "/static/../app.py", 404),
    ("POST", "/api/v1/me/hand", 405), ("DELETE", "/api/v1/deck", 405),
    ("PUT", "/", 405), ("OPTIONS", "/api/v1/game", 405),
])
def test_wrong_paths_and_methods_are_4xx(client: TestClient, method: str, path: str,
                                         status: int) -> None:
    r = client.request(method, path)
    assert r.status_code == status and "error" in r.json()


@pytest.mark.parametrize(("path", "error"), [
    ("/api/v1/reports/2147483648", "an nweek is from 1 to 2147483647, not 2147483648"),
    ("/api/v1/reports/0", "an nweek is from 1 to 2147483647, not 0"),
    ("/api/v1/reports/" + "9" * 300, "an nweek is from 1 to 2147483647, not " + "9" * 64),
    ("/api/v1/reports/%C2%B2", "an nweek is a whole number, not '\u00b2'"),
    ("/api/v1/reports/1?format=", "format must be one of text, markdown, json, not ''"),
    ("/api/v1/deck?x=1", "unknown parameter 'x' (this resource takes: none)"),
    ("/api/v1/me/hand?asof=3", "unknown parameter 'asof' (this resource takes: as_of)"),
])
def test_what_the_document_forbids_is_400_with_the_reason(client: TestClient, path: str,
                                                          error: str) -> None:
    r = client.get(path)
    assert (r.status_code, r.json()) == (400, {"error": error})
    doc = client.get("/api/v1/openapi.json").json()
    nweek = doc["paths"]["/api/v1/reports/{nweek}"]["get"]["parameters"][0]["schema"]
    assert (nweek["minimum"], nweek["maximum"]) == (1, 2147483647)


def test_packs_are_objects_with_a_name_and_a_back(client: TestClient) -> None:
    game = check(client, "/api/v1/game", client.get("/api/v1/game"))
    # the game was created with the proposal's packs (the settings' default)
    assert game["packs"] == [{"name": name, "back": back} for name, back in PROPOSAL_PACKS]
    assert [p["name"] for p in game["packs"]] == ["Red", "Blue", "Fish", "Corporate"]
    doc = client.get("/api/v1/openapi.json").text
    assert "prefixItems" not in doc


def test_a_body_on_a_get_is_refused(client: TestClient, served: Served) -> None:
    r = client.request("GET", "/api/v1/me/hand", content=b"x" * 1000,
                       headers=auth(served.tokens["ann"]))
    assert r.status_code == 400 and r.json() == {"error": "a GET request takes no body"}


def test_security_headers(client: TestClient, served: Served) -> None:
    page = client.get("/")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
    for r in (page, client.get("/api/v1/deck"),
              client.get("/api/v1/me", headers=auth(served.tokens["ann"]))):
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_wrong_tokens_through_an_untrusted_proxy_block_only_the_token_they_name(
        client: TestClient, served: Served) -> None:
    """No proxy configured: requests that came through one share its address, so the count is
    per address and token selector -- everyone else behind the proxy is still served. With the
    proxy trusted (the address is the client's own), it is per address again."""
    via = {"X-Forwarded-For": "203.0.113.7"}
    good, other = served.tokens["ann"], served.tokens["ben"]
    wrong = good.split(".")[0] + "." + "x" * 43
    for _ in range(20):
        assert client.get("/api/v1/me/hand", headers={**auth(wrong), **via}).status_code == 401
    blocked = client.get("/api/v1/me/hand", headers={**auth(wrong), **via})
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) >= 1
    check(client, "/api/v1/me/hand", blocked)
    assert client.get("/api/v1/me/hand", headers={**auth(other), **via}).status_code == 200
    client.app.state.trusted_proxy = True
    client.app.state.limiter = FailureLimiter()
    for _ in range(20):
        assert client.get("/api/v1/me/hand", headers={**auth(wrong), **via}).status_code == 401
    assert client.get("/api/v1/me/hand", headers={**auth(other), **via}).status_code == 429


def test_the_log_is_newest_first_with_each_events_sentence(client: TestClient,
                                                            served: Served) -> None:
    """``GET /api/v1/log``: the public log in pages, each event as the streams carry it, its
    sentence the log's line without ``--reveal`` (the dealt card hidden)."""
    with served.game.read() as tx:
        head = api.ledger_head(tx).event
        logged = {e.event: e.summary for e in api.log(tx, limit=head)}
    first = check(client, "/api/v1/log", client.get("/api/v1/log?limit=5"))
    assert [e["event"] for e in first] == list(range(head, head - 5, -1))
    page = check(client, "/api/v1/log", client.get(f"/api/v1/log?before={head - 4}&limit=200"))
    assert [e["event"] for e in page] == list(range(head - 5, 0, -1))
    for e in first + page:
        assert e["text"] == logged[e["event"]].replace("(hidden: use --reveal)", "(hidden)")
        assert e["notice"] is None
    dealt = [e for e in page if e["kind"] == "card.dealt"]
    assert dealt and all(e["text"].startswith(f"dealt {e['payload']['player']} a card (hidden)")
                         for e in dealt)
    again = client.get("/api/v1/log?limit=5", headers={"If-None-Match": client.get(
        "/api/v1/log?limit=5").headers["etag"]})
    assert again.status_code == 304
    for bad in ("limit=0", "limit=201", "limit=x", "before=0", "before=-1"):
        r = client.get(f"/api/v1/log?{bad}")
        assert r.status_code == 400 and "must be a whole number" in r.json()["error"], bad
