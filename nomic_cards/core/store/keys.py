"""The ``idempotency_keys`` table: each player's ``Idempotency-Key`` on the server's actions,
with the body's hash, the events the action recorded and its first answer (SQL only; the rules
are in ``core/services/acting.py``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Engine, delete
from sqlalchemy.orm import Session

from nomic_cards.core.store import models as m

if TYPE_CHECKING:
    from nomic_cards.core.store.uow import UnitOfWork

_K = m.IdempotencyKey
# written on every keyed action: SQL text on the unit of work's own cursor (as its events are)
_ADD = ("INSERT INTO idempotency_keys (player_id, key, body_sha256, seqs, created_at) "
        "VALUES (?, ?, ?, ?, ?)")
_SET_SEQS = "UPDATE idempotency_keys SET seqs = ? WHERE player_id = ? AND key = ?"
_SAVE_ANSWER = ("UPDATE idempotency_keys SET status = ?, response = ? "
                "WHERE player_id = ? AND key = ?")


def add(uow: UnitOfWork, player_id: int, key: str, body_sha256: str, seqs: list[int],
        at: datetime) -> None:
    uow.execute(_ADD, (player_id, key, body_sha256, json.dumps(seqs), uow.time_param(at)))


def set_seqs(uow: UnitOfWork, player_id: int, key: str, seqs: list[int]) -> None:
    uow.execute(_SET_SEQS, (json.dumps(seqs), player_id, key))


def save_answers(engine: Engine, answers: list[tuple[int, str, int, str]]) -> None:
    """Write keys' first answers, each ``(player_id, key, status, response)``, in a
    transaction of their own (outside the ledger lock: they change no game state, and a key
    whose answer is never written still answers, rebuilt from the events it names): on
    PostgreSQL in autocommit, in one pipeline (one round trip)."""
    from nomic_cards.core.store.engine import writer_lock
    from nomic_cards.core.store.reads import Db
    from nomic_cards.core.store.uow import autocommit, translated

    params = [(status, response, player_id, key) for player_id, key, status, response
              in answers]
    if engine.dialect.name == "postgresql":
        with translated(engine), autocommit(engine) as cursor:
            Db(cursor, postgres=True).many(_SAVE_ANSWER, params)
        return
    with translated(engine), writer_lock(engine), engine.begin() as conn:
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            _SAVE_ANSWER, params)


def purge(s: Session, before: datetime) -> None:
    """Forget the keys made before ``before``."""
    s.execute(delete(_K).where(_K.created_at < before),
              execution_options={"synchronize_session": False})
