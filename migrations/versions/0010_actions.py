"""Actions through the server: officer scopes on tokens, idempotency keys, ledger notifications.

- ``player_tokens.scope``: empty for a player's own token, ``dealer`` for an officer token
  (``token issue NAME --scope dealer``).
- ``idempotency_keys``: each player's ``Idempotency-Key`` of ``POST /api/v1/me/actions`` with
  the body's hash, the events it recorded and the first answer (kept at least 24 hours). In the
  database, so a retry finds it after a restart and on another worker.
- On PostgreSQL, a trigger on ``events`` sends ``NOTIFY nomic_cards_ledger, '<seq>'`` in the
  writing transaction (delivered when it commits): the server's event streams ``LISTEN``.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

NOTIFY_FUNCTION = """
CREATE OR REPLACE FUNCTION nomic_cards_notify_event() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('nomic_cards_ledger', NEW.seq::text);
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""
NOTIFY_TRIGGER = """
CREATE TRIGGER nomic_cards_event_notify AFTER INSERT ON events
FOR EACH ROW EXECUTE FUNCTION nomic_cards_notify_event()
"""


def upgrade() -> None:
    with op.batch_alter_table('player_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('scope', sa.String(length=16), nullable=True))
    op.create_table('idempotency_keys',
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('body_sha256', sa.String(length=64), nullable=False),
    sa.Column('seqs', sa.Text(), nullable=False),
    sa.Column('status', sa.Integer(), nullable=True),
    sa.Column('response', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_idempotency_keys_player_id_players')),
    sa.PrimaryKeyConstraint('player_id', 'key', name=op.f('pk_idempotency_keys'))
    )
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_idempotency_keys_created_at'), ['created_at'], unique=False)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(NOTIFY_FUNCTION)
        op.execute(NOTIFY_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("DROP TRIGGER IF EXISTS nomic_cards_event_notify ON events")
        op.execute("DROP FUNCTION IF EXISTS nomic_cards_notify_event()")
    with op.batch_alter_table('idempotency_keys', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_idempotency_keys_created_at'))
    op.drop_table('idempotency_keys')
    with op.batch_alter_table('player_tokens', schema=None) as batch_op:
        batch_op.drop_column('scope')
