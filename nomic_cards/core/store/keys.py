"""The ``idempotency_keys`` table: each player's ``Idempotency-Key`` on the server's actions,
with the body's hash, the events the action recorded and its first answer (SQL only; the rules
are in ``core/services/acting.py``)."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Engine, delete, insert, update
from sqlalchemy.orm import Session

from nomic_cards.core.store import models as m

_K = m.IdempotencyKey


def add(s: Session, player_id: int, key: str, body_sha256: str, seqs: list[int],
        at: datetime) -> None:
    s.execute(insert(_K).values(player_id=player_id, key=key, body_sha256=body_sha256,
                                seqs=json.dumps(seqs), created_at=at))


def set_seqs(s: Session, player_id: int, key: str, seqs: list[int]) -> None:
    s.execute(update(_K).where(_K.player_id == player_id, _K.key == key)
              .values(seqs=json.dumps(seqs)), execution_options={"synchronize_session": False})


def save_answer(engine: Engine, player_id: int, key: str, status: int, response: str) -> None:
    """Write a key's first answer, in a transaction of its own (outside the ledger lock: it
    changes no game state, and a key whose answer is never written still answers, rebuilt
    from the events it names)."""
    from nomic_cards.core.store.uow import translated

    with translated(engine), engine.begin() as conn:
        conn.execute(update(_K).where(_K.player_id == player_id, _K.key == key)
                     .values(status=status, response=response))


def purge(s: Session, before: datetime) -> None:
    """Forget the keys made before ``before``."""
    s.execute(delete(_K).where(_K.created_at < before),
              execution_options={"synchronize_session": False})
