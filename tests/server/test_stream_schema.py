"""The OpenAPI document describes each Server-Sent Event of the two streams (``itemSchema`` of
``text/event-stream``): every event a reader parses from a stream, as the page's EventSource
receives it (id, event, data, retry), follows it, and each ledger event's data is a LiveEvent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from starlette.testclient import TestClient

from nomic_cards.server import create_app
from tests.server.conftest import Served


def parse_events(text: str) -> list[dict[str, Any]]:
    """The events of an event stream as the HTML standard's parser reads them (every field
    kept, the retry-only block included, ``retry`` a number as OpenAPI 3.2 has it; comments
    dropped)."""
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            fields[name] = fields[name] + "\n" + value if name == "data" and name in fields \
                else value
        if "retry" in fields and fields["retry"].isascii() and fields["retry"].isdigit():
            fields["retry"] = int(fields["retry"])
        if fields:
            events.append(fields)
    return events


@pytest.fixture
def short_streams(served: Served) -> Iterator[TestClient]:
    with TestClient(create_app(served.game, stream_max_age=1.0)) as c:
        yield c


@pytest.mark.parametrize("path", ["/api/v1/events", "/api/v1/me/events"])
def test_every_event_of_a_stream_follows_the_documents_item_schema(
        short_streams: TestClient, served: Served, path: str) -> None:
    doc = short_streams.get("/api/v1/openapi.json").json()
    assert doc["openapi"] == "3.2.0"
    media = doc["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
    item = jsonschema.Draft202012Validator({**media["itemSchema"],
                                            "components": doc["components"]})
    live_event = jsonschema.Draft202012Validator(
        {"$ref": "#/components/schemas/LiveEvent", "components": doc["components"]})
    headers = {"Last-Event-ID": "0", "Authorization": f"Bearer {served.tokens['ann']}"}
    with short_streams.stream("GET", path, headers=headers) as r:
        assert r.status_code == 200
        text = "".join(r.iter_text())
    events = parse_events(text)
    ledger = [e for e in events if e.get("event") == "ledger"]
    assert events[0] == {"retry": 2000} and len(ledger) == len(events) - 1 >= 10
    notices = 0
    for event in events:
        errors = [e.message for e in item.iter_errors(event)]
        assert not errors, (event, errors)
    for event in ledger:
        data: dict[str, Any] = json.loads(event["data"])
        assert not list(live_event.iter_errors(data)), data
        assert event["id"] == str(data["event"])
        notices += data["notice"] is not None
    assert (notices > 0) == (path == "/api/v1/me/events")


def test_a_live_event_as_json_carries_every_field() -> None:
    """What a stream's frame and an action's answer carry of an event: each field, as
    declared (a field added to LiveEvent and not to its JSON fails here)."""
    from dataclasses import asdict

    from nomic_cards.core.services.live import LiveEvent

    event = LiveEvent(7, "2026-01-01T00:00:00.000000Z", "ann", "card.dealt", "ann",
                      {"card": {"back": "Red"}}, "you were dealt Red As")
    assert event.as_dict() == asdict(event)
