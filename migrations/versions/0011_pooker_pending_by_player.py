"""Pooker's notifications waiting, kept by Player (issue 39, point 8).

Before this revision every notification waiting was in one part of ``game_data`` (``pooker``:
``{"pending": {seq: notification}, ...}``), rewritten whole by each write that touched it and
walked by every write for its windows. From it, each Player with one waiting (made or naming em)
has a part ``pooker/<player id>`` (``{"mine": {seq: notification}, "named": {seq: author}}``)
and ``pooker/due`` lists ``[when, author]`` in time order, ``when`` the earliest window of that
author's notifications: a reminder still to send (a day before the lapse, if after it was
made), else the lapse. This moves the rows written before into that shape, exactly as the
replay of the same log builds it (``ledger verify`` compares the two); the ledger is untouched.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
#: Pooker's own part before any Motion or Showdown: the replay writes none until then
_UNTOUCHED = {"showdown": None, "showdowns": 0, "motion": None, "motions": 0}


def _time(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)


def _first_window(note: dict[str, Any]) -> str:
    """As ``pooker.events._next`` for one notification."""
    made = note.get("at")
    if made and not note.get("reminded"):
        remind = _time(note["expires"]) - timedelta(days=1)
        if remind > _time(made):
            return remind.strftime(_FORMAT)
    return str(note["expires"])


def _dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def upgrade() -> None:
    conn = op.get_bind()
    row = conn.execute(sa.text("SELECT data, seq FROM game_data WHERE name = 'pooker'")).first()
    if row is None or "pending" not in json.loads(row[0]):
        return
    data = json.loads(row[0])
    pending: dict[str, dict[str, Any]] = data.pop("pending", None) or {}
    ids = {name: pid for pid, name in conn.execute(sa.text("SELECT id, name FROM players"))}
    parts: dict[int, dict[str, dict[str, Any]]] = {}
    for key, note in pending.items():
        parts.setdefault(ids[note["player"]], {"mine": {}, "named": {}})["mine"][key] = note
        parts.setdefault(ids[note["with"]], {"mine": {}, "named": {}})["named"][key] = \
            note["player"]
    firsts: dict[str, str] = {}
    for note in pending.values():
        when = _first_window(note)
        firsts[note["player"]] = min(when, firsts.get(note["player"], when))
    due = sorted([when, author] for author, when in firsts.items())
    rows = [] if data == _UNTOUCHED else [("pooker", _dump(data))]
    rows += [(f"pooker/{pid}", _dump(part)) for pid, part in sorted(parts.items())]
    if due:
        rows.append(("pooker/due", _dump(due)))
    conn.execute(sa.text("DELETE FROM game_data WHERE name = 'pooker' OR name LIKE 'pooker/%'"))
    for name, text in rows:
        conn.execute(sa.text("INSERT INTO game_data (name, data, seq) VALUES (:n, :d, :s)"),
                     {"n": name, "d": text, "s": row[1]})


def downgrade() -> None:
    conn = op.get_bind()
    found = {name: (json.loads(text), seq) for name, text, seq in conn.execute(sa.text(
        "SELECT name, data, seq FROM game_data WHERE name = 'pooker' OR name LIKE 'pooker/%'"))}
    if not found:
        return
    data, seq = found.get("pooker", (dict(_UNTOUCHED), max(s for _p, s in found.values())))
    data["pending"] = {k: v for name, (part, _s) in found.items()
                       if name not in ("pooker", "pooker/due") for k, v in part["mine"].items()}
    conn.execute(sa.text("DELETE FROM game_data WHERE name = 'pooker' OR name LIKE 'pooker/%'"))
    conn.execute(sa.text("INSERT INTO game_data (name, data, seq) VALUES ('pooker', :d, :s)"),
                 {"d": _dump(data), "s": seq})
