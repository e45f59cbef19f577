"""Notices the mail server refused for good: the latest notice.failed event and its address.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('notices', schema=None) as batch_op:
        batch_op.add_column(sa.Column('failed_seq', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('failed_to', sa.String(length=320), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_notices_failed_seq_events'), 'events', ['failed_seq'], ['seq'])


def downgrade() -> None:
    with op.batch_alter_table('notices', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_notices_failed_seq_events'), type_='foreignkey')
        batch_op.drop_column('failed_to')
        batch_op.drop_column('failed_seq')
