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
    with op.batch_alter_table('packs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('retired_seq', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_packs_retired_seq_events'), 'events',
                                    ['retired_seq'], ['seq'])


def downgrade() -> None:
    with op.batch_alter_table('packs', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_packs_retired_seq_events'), type_='foreignkey')
        batch_op.drop_column('retired_seq')
