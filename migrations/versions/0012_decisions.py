"""The nomic's decisions on the ledger: decisions, their ballots, players' voting strengths.

Three new projections of the events ``decision.opened``, ``decision.resolved``, ``ballot.cast``
and ``strength.set``; a ledger recorded before them holds none, so the tables start empty. A
game created since names the rules its ``game.created`` enacted, the decisions rule among them;
where ``rule_changes`` was rebuilt by an earlier revision (a schema taken down and up again), the
rule's row at that event is added, as the replay gives it.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('decisions',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('opened_seq', sa.Integer(), nullable=False),
    sa.Column('opened_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('closes', sa.DateTime(timezone=True), nullable=False),
    sa.Column('params', sa.Text(), nullable=False),
    sa.Column('resolved_seq', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.String(length=16), nullable=True),
    sa.Column('reminded_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['opened_seq'], ['events.seq'], name=op.f('fk_decisions_opened_seq_events')),
    sa.ForeignKeyConstraint(['reminded_seq'], ['events.seq'], name=op.f('fk_decisions_reminded_seq_events')),
    sa.ForeignKeyConstraint(['resolved_seq'], ['events.seq'], name=op.f('fk_decisions_resolved_seq_events')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_decisions'))
    )
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_decisions_closes'), ['closes'], unique=False)
        batch_op.create_index(batch_op.f('ix_decisions_resolved_seq'), ['resolved_seq'], unique=False)
    op.create_table('ballots',
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('decision_id', sa.String(length=40), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('option', sa.String(length=8), nullable=True),
    sa.Column('endorse_id', sa.Integer(), nullable=True),
    sa.Column('as_cast', sa.Text(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('comment', sa.Text(), nullable=False),
    sa.Column('replaced_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['decision_id'], ['decisions.id'], name=op.f('fk_ballots_decision_id_decisions')),
    sa.ForeignKeyConstraint(['endorse_id'], ['players.id'], name=op.f('fk_ballots_endorse_id_players')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_ballots_player_id_players')),
    sa.ForeignKeyConstraint(['replaced_seq'], ['events.seq'], name=op.f('fk_ballots_replaced_seq_events')),
    sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_ballots_seq_events')),
    sa.PrimaryKeyConstraint('seq', name=op.f('pk_ballots'))
    )
    with op.batch_alter_table('ballots', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ballots_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_ballots_decision_id'), ['decision_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_ballots_player_id'), ['player_id'], unique=False)
    op.create_table('strengths',
    sa.Column('player_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('strength', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_strengths_player_id_players')),
    sa.ForeignKeyConstraint(['seq'], ['events.seq'], name=op.f('fk_strengths_seq_events')),
    sa.PrimaryKeyConstraint('player_id', name=op.f('pk_strengths'))
    )


    conn = op.get_bind()
    first = conn.execute(sa.text("SELECT kind, payload FROM events WHERE seq = 1")).first()
    if first is None or first[0] != "game.created":
        return
    named = json.loads(first[1]).get("rules")
    have = conn.execute(sa.text("SELECT 1 FROM rule_changes WHERE seq = 1 AND "
                                "rule = 'decisions'")).first()
    if named is not None and "decisions" in named and have is None:
        conn.execute(sa.text(
            "INSERT INTO rule_changes (seq, rule, action, in_force, version, params, proposal, "
            "from_nweek) VALUES (1, 'decisions', 'enacted', :yes, 1, :params, 'init', NULL)"),
            {"yes": True, "params": _PARAMS})


#: the decisions rule's parameters as init enacts them, at this revision
_PARAMS = json.dumps({"quorum": 1, "strength-default": 1, "strength-high": 15,
                      "strength-low": 0}, sort_keys=True, separators=(",", ":"))


def downgrade() -> None:
    op.drop_table('strengths')
    with op.batch_alter_table('ballots', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ballots_player_id'))
        batch_op.drop_index(batch_op.f('ix_ballots_decision_id'))
        batch_op.drop_index(batch_op.f('ix_ballots_at'))
    op.drop_table('ballots')
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_decisions_resolved_seq'))
        batch_op.drop_index(batch_op.f('ix_decisions_closes'))
    op.drop_table('decisions')
