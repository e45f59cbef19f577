"""The JSON API in-process: every response against the OpenAPI document, the public record,
a player's own view, tokens, ETags, and every kind of bad request."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from freezegun import freeze_time
from sqlalchemy import Engine, event
from starlette.testclient import TestClient

from nomic_cards.core import services
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


def test_rules_now_and_at_a_time_match_the_document(client: TestClient,
                                                     served: Served) -> None:
    with freeze_time("2026-01-22 10:00:00"):
        services.amend_rule(served.game, "9", ["cards=2"], proposal="Proposal 412")
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
    ben = services.hand(served.game, "ben").cards
    assert players["ben"]["cards"] == len(ben) == 2
    assert sorted(b["back"] for b in players["ben"]["by_back"] for _ in range(b["cards"])) == \
        sorted(c.back for c in ben)
    deck = client.get("/api/v1/deck").json()
    assert deck["total"] == services.deck(served.game).total
    public_text = "".join(client.get(p).text for p in PUBLIC + ["/reports.atom"])
    for p in ("ann", "ben"):
        for c in services.hand(served.game, p).cards:
            assert c.card not in public_text and c.name not in public_text
    assert "ann@example.org" not in public_text
    head = client.get("/api/v1/ledger/head").json()
    assert head["event"] == services.public_record(served.game)[-1].seq


def test_a_player_reads_their_own_hand_and_notices(client: TestClient, served: Served) -> None:
    for player in ("ann", "ben"):
        r = client.get("/api/v1/me/hand", headers=auth(served.tokens[player]))
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        hand = check(client, "/api/v1/me/hand", r)
        expected = services.hand(served.game, player).cards
        assert hand["player"] == player
        assert [(c["number"], c["card"], c["back"]) for c in hand["cards"]] == \
            [(c.number, c.card, c.back) for c in expected]
        notices = check(client, "/api/v1/me/notices",
                        client.get("/api/v1/me/notices", headers=auth(served.tokens[player])))
        texts = [n.text for n in services.notices(served.game, player)]
        assert [n["text"] for n in notices] == texts
        assert all(n["rolls"] and n["rolls"][-1]["value"] in
                   {c.number for c in expected} | {c["number"] for c in hand["cards"]}
                   for n in notices if "card" in n["text"])
        me = check(client, "/api/v1/me", client.get("/api/v1/me",
                                                    headers=auth(served.tokens[player])))
        assert me["name"] == player


def test_hand_as_of_an_event_replays(client: TestClient, served: Served) -> None:
    token = served.tokens["ben"]
    first = min(n.event for n in services.notices(served.game, "ben"))
    r = client.get(f"/api/v1/me/hand?as_of={first}", headers=auth(token))
    hand = check(client, "/api/v1/me/hand", r)
    assert hand["as_of"] == first and len(hand["cards"]) == 1
    r = client.get("/api/v1/me/hand?as_of=2026-01-01T12:00:00Z", headers=auth(token))
    assert r.status_code == 200 and r.json()["cards"] == []


@pytest.mark.parametrize("value", ["-1", "0", "99999999", "yesterday", "2999-01-01T00:00:00Z",
                                   "1; drop table events", "' or 1=1 --", "9" * 200, "%00"])
def test_bad_as_of_is_400_in_one_line(client: TestClient, served: Served, value: str) -> None:
    r = client.get("/api/v1/me/hand", params={"as_of": value},
                   headers=auth(served.tokens["ann"]))
    assert r.status_code == 400
    assert "\n" not in r.json()["error"] and "Traceback" not in r.text
    check(client, "/api/v1/me/hand", r)


def test_every_wrong_token_gets_the_same_401_after_the_same_queries(
        client: TestClient, served: Served) -> None:
    good = served.tokens["ann"]
    selector, verifier = good.split(".")
    services.issue_token(served.game, "cat", keep_others=False)  # cat's first token revoked
    services.retire_player(served.game, "ben")  # ben's token revoked with him
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
            statements: list[str] = []

            def count(*args: Any, seen: list[str] = statements, **kw: Any) -> None:
                seen.append(str(args[2]))
            event.listen(Engine, "before_cursor_execute", count)
            try:
                r = client.get(path, headers=headers)
            finally:
                event.remove(Engine, "before_cursor_execute", count)
            assert r.status_code == 401, (path, what)
            assert r.headers["cache-control"] == "no-store"
            answers.add((r.text, len(statements)))
            check(client, path, r)
        assert answers == {(json.dumps(dict(UNAUTHORIZED_BODY), separators=(",", ":")),
                            next(iter(answers))[1])}, (path, answers)
        assert client.get(path, headers=auth(good)).status_code == 200


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
    services.deal(served.game, "ann")  # the ledger moves: every ETag changes
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
    assert entries[0].findtext("a:content", namespaces=ns) == \
        services.report(served.game, 2).body


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/nothing-here", 404), ("GET", "/api/v2/deck", 404),
    ("GET", "/api/v1/reports/99", 404), ("GET", "/api/v1/reports/abc", 400),
    ("GET", "/api/v1/reports/1?format=pdf", 400), ("GET", "/static/../app.py", 404),
    ("POST", "/api/v1/me/hand", 405), ("DELETE", "/api/v1/deck", 405),
    ("PUT", "/", 405), ("OPTIONS", "/api/v1/game", 405),
])
def test_wrong_paths_and_methods_are_4xx(client: TestClient, method: str, path: str,
                                         status: int) -> None:
    r = client.request(method, path)
    assert r.status_code == status and "error" in r.json()


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
