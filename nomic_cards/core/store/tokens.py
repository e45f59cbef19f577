"""The ``player_tokens`` table: insert and revoke tokens (SQL only; the rules for them are in
``core/services/tokens.py``; the reads are in :class:`.reads.Reads`)."""

from __future__ import annotations

from datetime import datetime

from nomic_cards.core.store.writes import Tx

_ADD = ("INSERT INTO player_tokens (player_id, selector, verifier_sha256, issued_at, scope) "
        "VALUES (?, ?, ?, ?, ?)")
_REVOKE = "UPDATE player_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND {where} = ?"
_REVOKED_AT = "SELECT player_tokens.revoked_at FROM player_tokens WHERE player_tokens.selector = ?"


def add(tx: Tx, *, player_id: int, selector: str, verifier_sha256: str, at: datetime,
        scope: str | None = None) -> None:
    tx.execute(_ADD, (player_id, selector, verifier_sha256, tx.time_param(at), scope))


def revoke(tx: Tx, *, at: datetime, player_id: int | None = None,
           selector: str | None = None) -> int:
    """Revoke the live tokens of a player, or the one with ``selector``; how many."""
    if player_id is not None:
        return tx.execute(_REVOKE.format(where="player_id"), (tx.time_param(at), player_id))
    return tx.execute(_REVOKE.format(where="selector"), (tx.time_param(at), selector))


_REVOKE_OWN = ("UPDATE player_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND "
               "player_id = ? AND scope IS NULL")


def revoke_own(tx: Tx, *, at: datetime, player_id: int) -> int:
    """Revoke the live tokens a player holds as emself (not an officer token); how many."""
    return tx.execute(_REVOKE_OWN, (tx.time_param(at), player_id))


def selector_state(tx: Tx, selector: str) -> str | None:
    """When the token with ``selector`` was revoked (ISO time), ``"live"``, or None when no
    token has that selector."""
    from nomic_cards.core.store.reads import stored_time

    row = tx.db.one(_REVOKED_AT, (selector,))
    if row is None:
        return None
    at = stored_time(row[0])
    return "live" if row[0] is None else f"at {at.isoformat() if at else row[0]}"
