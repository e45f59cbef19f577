"""Player tokens for the server (outside the ledger).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('player_tokens',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('selector', sa.String(length=32), nullable=False),
    sa.Column('verifier_sha256', sa.String(length=64), nullable=False),
    sa.Column('issued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_player_tokens_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_player_tokens')),
    sa.UniqueConstraint('selector', name=op.f('uq_player_tokens_selector'))
    )
    with op.batch_alter_table('player_tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_player_tokens_player_id'), ['player_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('player_tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_player_tokens_player_id'))
    op.drop_table('player_tokens')
