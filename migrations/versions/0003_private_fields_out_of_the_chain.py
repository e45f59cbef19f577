"""Private fields out of the hash chain: ledger format 2.

Each event's private fields (cards dealt and transferred, roll faces, notices, e-mail
addresses, returned and merged hands) move to ``event_private`` with a random nonce; the event
keeps its public fields and a salted commitment to the private ones, and the whole chain is
hashed again in format 2 (see nomic_cards/core/ledger/chain.py and docs/ledger.md). Before
anything is changed, the format-1 chain is checked event by event; a ledger that does not verify
is not upgraded.

This file is self-contained on purpose: it describes formats 1 and 2 as they are at this
revision, whatever later code does.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from nomic_cards.errors import DatabaseError

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

GENESIS = "0" * 64
PRIVATE = {
    "player.registered": ("email",),
    "player.email_set": ("email",),
    "player.retired": ("returned",),
    "dealer.elected": ("merged",),
    "card.dealt": ("card", "values", "notice"),
    "card.transferred": ("card",),
}


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _time(at: datetime) -> str:
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _net(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode("ascii") + b":" + data + b","


def _v1_hash(row: Any, payload: dict[str, Any]) -> str:
    body = _canonical({"seq": row.seq, "at": _time(row.at), "actor": row.actor,
                       "kind": row.kind, "subject": row.subject, "payload": payload,
                       "prev": row.prev_hash})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _v2_hash(row: Any, prev: str, private: str | None, payload: str) -> str:
    parts = ("nomic-cards/2", str(row.seq), _time(row.at), row.actor, row.kind,
             row.subject or "", prev, private or "", payload)
    return hashlib.sha256(b"".join(_net(p) for p in parts)).hexdigest()


def _commitment(nonce: str, data: str) -> str:
    parts = ("nomic-cards/private/2", nonce, data)
    return hashlib.sha256(b"".join(_net(p) for p in parts)).hexdigest()


def _fail(seq: int, why: str) -> None:
    raise DatabaseError(f"event {seq}: {why}; the ledger does not verify in format 1, so it was "
                       "not upgraded (nothing was changed)")


def _reshape(seq: int, kind: str, p: dict[str, Any]) -> dict[str, Any]:
    """Format 1 payload -> the fields of format 2 (only card.dealt changes shape)."""
    if kind != "card.dealt":
        return p
    rolls = p["rolls"]
    if not rolls:
        _fail(seq, "a deal without rolls")
    first = rolls[0]
    for i, r in enumerate(rolls):
        same = (r["source"], r["sides"], r["period"]) == \
            (first["source"], first["sides"], first["period"])
        index_ok = r["index"] == (None if first["index"] is None else first["index"] + i)
        if not (same and index_ok):
            _fail(seq, "the rolls of one deal are not consecutive rolls of one die")
    dice = {"source": first["source"], "sides": first["sides"], "period": first["period"],
            "first": first["index"], "count": len(rolls)}
    return {"player": p["player"], "reason": p["reason"], "nweek": p.get("nweek"),
            "dice": dice, "card": p["card"], "values": [r["value"] for r in rolls],
            "notice": p["notice"]}


def upgrade() -> None:
    op.add_column('events', sa.Column('private', sa.String(length=64), nullable=True))
    op.create_table('event_private',
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('nonce', sa.String(length=64), nullable=False),
    sa.Column('data', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_event_private_seq_events')),
    sa.PrimaryKeyConstraint('seq', name=op.f('pk_event_private'))
    )
    events = sa.table("events", sa.column("seq", sa.Integer),
                      sa.column("at", sa.DateTime(timezone=True)), sa.column("actor", sa.String),
                      sa.column("kind", sa.String), sa.column("subject", sa.String),
                      sa.column("payload", sa.Text), sa.column("private", sa.String),
                      sa.column("prev_hash", sa.String), sa.column("hash", sa.String))
    private_t = sa.table("event_private", sa.column("seq", sa.Integer),
                         sa.column("nonce", sa.String), sa.column("data", sa.Text))
    head = sa.table("ledger_head", sa.column("id", sa.Integer), sa.column("seq", sa.Integer),
                    sa.column("hash", sa.String))
    conn = op.get_bind()
    rows = conn.execute(sa.select(events).order_by(events.c.seq)).all()
    prev_old, prev_new, last = GENESIS, GENESIS, 0
    for row in rows:
        if row.seq != last + 1:
            _fail(row.seq, f"the sequence jumps from {last}")
        payload = json.loads(row.payload)
        if row.prev_hash != prev_old or _v1_hash(row, payload) != row.hash:
            _fail(row.seq, "its hash does not match its content and the event before")
        fields = _reshape(row.seq, row.kind, payload)
        secret = {k: fields.pop(k) for k in PRIVATE.get(row.kind, ()) if k in fields}
        public = _canonical(fields)
        commitment = None
        if secret:
            nonce, data = secrets.token_hex(32), _canonical(secret)
            commitment = _commitment(nonce, data)
            conn.execute(sa.insert(private_t).values(seq=row.seq, nonce=nonce, data=data))
        new_hash = _v2_hash(row, prev_new, commitment, public)
        conn.execute(sa.update(events).where(events.c.seq == row.seq).values(
            payload=public, private=commitment, prev_hash=prev_new, hash=new_hash))
        prev_old, prev_new, last = row.hash, new_hash, row.seq
    conn.execute(sa.update(head).where(head.c.id == 1).values(hash=prev_new))


def downgrade() -> None:
    raise NotImplementedError("ledger format 2 cannot be turned back into format 1")
