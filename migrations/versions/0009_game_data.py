"""The card games layer's live state: ``game_data``, one row per part (points, pooker).

A ledger written before this revision holds no event of the games layer, so the table starts
empty (the replay of such a ledger has no games data either).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'game_data',
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('data', sa.Text(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_game_data_seq_events')),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_game_data')))


def downgrade() -> None:
    op.drop_table('game_data')
