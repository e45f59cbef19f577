"""Mail in: the messages received by mail, kept whole.

``mail_messages``: each message read by ``mail receive``, ``mail import`` or ``mail poll``,
keyed by its Message-ID (the same message twice is applied once), with the raw message, the
player its From names, how it was authenticated, what it said, what became of it and its
receipt. Outside the ledger; the Dealer's alone (it holds the senders' addresses).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('mail_messages',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('message_id', sa.String(length=512), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('via', sa.String(length=16), nullable=False),
    sa.Column('sender', sa.String(length=320), nullable=True),
    sa.Column('player_id', sa.Integer(), nullable=True),
    sa.Column('subject', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('auth', sa.Text(), nullable=False),
    sa.Column('reading', sa.Text(), nullable=False),
    sa.Column('outcome', sa.Text(), nullable=True),
    sa.Column('seqs', sa.Text(), nullable=False),
    sa.Column('private', sa.Boolean(), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('raw', sa.LargeBinary(), nullable=False),
    sa.Column('raw_sha256', sa.String(length=64), nullable=False),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('decided_by', sa.String(length=200), nullable=True),
    sa.Column('receipt', sa.String(length=16), nullable=True),
    sa.Column('receipt_note', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_mail_messages_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mail_messages')),
    sa.UniqueConstraint('message_id', name=op.f('uq_mail_messages_message_id'))
    )
    with op.batch_alter_table('mail_messages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mail_messages_player_id'), ['player_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_mail_messages_receipt'), ['receipt'], unique=False)
        batch_op.create_index(batch_op.f('ix_mail_messages_status'), ['status'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('mail_messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mail_messages_status'))
        batch_op.drop_index(batch_op.f('ix_mail_messages_receipt'))
        batch_op.drop_index(batch_op.f('ix_mail_messages_player_id'))

    op.drop_table('mail_messages')
