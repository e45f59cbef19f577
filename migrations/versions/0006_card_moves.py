"""Where every card has been: ``card_moves``, one row per card per event that put it somewhere.

The server answers a player's hand as of an event from this table, so it needs no access to the
events' private fields. Existing ledgers are filled in by replaying their events (with their
private parts) once, here.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def _moves(conn: Any) -> list[dict[str, Any]]:
    """Every move of the existing ledger, from a replay of its events (read on the
    migration's own connection and transaction)."""
    from nomic_cards.core.clock import SystemClock
    from nomic_cards.core.ledger.replay import apply
    from nomic_cards.core.ledger.state import State
    from nomic_cards.core.store.reads import Reads
    from nomic_cards.errors import DatabaseError

    state = State(history=True)
    cursor = conn.connection.driver_connection.cursor()
    try:
        unit = Reads(cursor, postgres=conn.dialect.name == "postgresql", actor="migration",
                     clock=SystemClock())
        for rec in unit.events():
            try:
                apply(state, rec)
            except Exception as exc:  # noqa: BLE001 - any event that does not replay
                raise DatabaseError(f"event {rec.seq} cannot be replayed ({exc}); nothing was "
                                    "changed: run `nomic-cards ledger verify` with the version "
                                    "that made this database") from None
    finally:
        cursor.close()
    ids = {name: p.id for name, p in state.players.items()}
    return [{"card": card, "seq": seq, "holder_id": None if who is None else ids[who]}
            for seq, card, who in sorted(state.moves, key=lambda m: (m[0], m[1]))]


def upgrade() -> None:
    op.create_table('card_moves',
    sa.Column('card', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('holder_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['card'], ['cards.number'], name=op.f('fk_card_moves_card_cards')),
    sa.ForeignKeyConstraint(['holder_id'], ['players.id'], name=op.f('fk_card_moves_holder_id_players')),
    sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_card_moves_seq_events')),
    sa.PrimaryKeyConstraint('card', 'seq', name=op.f('pk_card_moves'))
    )
    with op.batch_alter_table('card_moves', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_card_moves_holder_id'), ['holder_id'], unique=False)
    moves = _moves(op.get_bind())
    if moves:
        table = sa.table('card_moves', sa.column('card', sa.Integer()),
                         sa.column('seq', sa.Integer()), sa.column('holder_id', sa.Integer()))
        for i in range(0, len(moves), 5000):
            op.bulk_insert(table, moves[i:i + 5000])


def downgrade() -> None:
    with op.batch_alter_table('card_moves', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_card_moves_holder_id'))
    op.drop_table('card_moves')
