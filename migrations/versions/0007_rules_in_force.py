"""The rules in force, a fact of the ledger: the ``rule_changes`` projection.

Replay counts the ``game.created`` event as enacting the Cards proposal's rules and the calendar
rule with their defaults (the nweek length and epoch from the game's settings), so a game
created before this revision needs no new event: its history already says which rules are in
force. This migration writes what that replay gives into the new table -- one row per rule at
the ``game.created`` event -- so that ``ledger verify`` finds the tables equal to the replay.

This file is self-contained on purpose: it describes the rules as they are at this revision,
whatever later code declares.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

#: (short name, its parameters as init enacts them) at this revision, in declaration order
RULES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("properties", {}),
    ("packs", {}),
    ("dealer", {}),
    ("dealing", {}),
    ("hands", {}),
    ("deck", {}),
    ("report", {"every": 1}),
    ("cards-for-votes", {"cards": 1}),
    ("nweeks", {"days": 10, "epoch": ""}),
)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def upgrade() -> None:
    table = op.create_table(
        'rule_changes',
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('rule', sa.String(length=64), nullable=False),
        sa.Column('action', sa.String(length=16), nullable=False),
        sa.Column('in_force', sa.Boolean(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('params', sa.Text(), nullable=False),
        sa.Column('proposal', sa.Text(), nullable=False),
        sa.Column('from_nweek', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_rule_changes_seq_events')),
        sa.PrimaryKeyConstraint('seq', 'rule', name=op.f('pk_rule_changes')))
    conn = op.get_bind()
    first = conn.execute(sa.text("SELECT seq, kind FROM events WHERE seq = 1")).first()
    if first is None or first[1] != "game.created":
        return
    settings = dict(conn.execute(sa.text("SELECT key, value FROM settings")).all())
    rows = []
    for name, defaults in RULES:
        params = dict(defaults)
        if name == "nweeks":
            with contextlib.suppress(ValueError):
                params["days"] = int(settings.get("nweek_days", "10"))
            if settings.get("epoch"):
                params["epoch"] = settings["epoch"]
        rows.append({"seq": 1, "rule": name, "action": "enacted", "in_force": True,
                     "version": 1, "params": _canonical(params), "proposal": "init",
                     "from_nweek": 1 if name == "nweeks" else None})
    op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_table('rule_changes')
