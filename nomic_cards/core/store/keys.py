"""The ``idempotency_keys`` table: each player's ``Idempotency-Key`` on the server's actions,
with the body's hash, the events the action recorded and its answer, written in the action's
own transaction (SQL only; the rules are in ``core/services/acting.py``; the read is
:meth:`.reads.Reads.idempotency_key`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from nomic_cards.core.store.writes import Tx

_ADD = ("INSERT INTO idempotency_keys (player_id, key, body_sha256, seqs, status, response, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
_PURGE = "DELETE FROM idempotency_keys WHERE created_at < ?"


def add(tx: Tx, *, player_id: int, key: str, body_sha256: str, seqs: Sequence[int],
        status: int, response: str, at: datetime) -> None:
    """Keep a key with the action's answer (status and JSON body)."""
    tx.db.run(_ADD, (player_id, key, body_sha256, json.dumps(list(seqs)), status, response,
                     tx.time_param(at)))


def purge(tx: Tx, before: datetime) -> None:
    """Forget the keys made before ``before``."""
    tx.execute(_PURGE, (tx.time_param(before),))
