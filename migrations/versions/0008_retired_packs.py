"""Packs taken out of play: ``packs.retired_seq``, the ``pack.retired`` event that retired one.

Every pack of an existing game is in play (NULL), so its history replays unchanged.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # SQLite adds a nullable column with its reference in place; rebuilding the table
        # (batch mode) would drop a table the cards table refers to
        op.execute("ALTER TABLE packs ADD COLUMN retired_seq INTEGER "
                   "CONSTRAINT fk_packs_retired_seq_events REFERENCES events (seq)")
        return
    op.add_column('packs', sa.Column('retired_seq', sa.Integer(), nullable=True))
    op.create_foreign_key(op.f('fk_packs_retired_seq_events'), 'packs', 'events',
                          ['retired_seq'], ['seq'])


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE packs DROP COLUMN retired_seq")
        return
    op.drop_constraint(op.f('fk_packs_retired_seq_events'), 'packs', type_='foreignkey')
    op.drop_column('packs', 'retired_seq')
