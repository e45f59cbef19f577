"""The players' own mail business in the live state: how often each is mailed, the address
changes waiting for their confirmation link to be followed, the new tokens asked and not yet
mailed, and when each player last asked (for the limits of :mod:`~nomic_cards.core.services.
self_service`). One part of the live state, :data:`MAIL`, kept like a card game's part (a row
of ``game_data``, compared by ``ledger verify``); it holds no address and no secret, only the
SHA-256 of a confirmation link's secret::

    {"mail": {player: "daily"},
     "address": {player: {"request": seq, "link": seq, "sha": hex, "expires": time}},
     "token": {player: seq},
     "asked": {player: {"address": [time, ...], "token": [time, ...]}}}

A player absent from ``mail`` is mailed at each sending; an ``address`` entry without
``link`` waits for its link to be mailed; ``asked`` keeps the times of the last day.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from nomic_cards.core.ledger.state import ReplayError, State

__all__ = ["ASKED_FOR", "MAIL", "address_pending", "asked", "choice", "links_due", "mail_part",
           "need_player", "note_asked", "put_mail_part", "tokens_due"]

#: the core's part of the live state that holds the players' mail business
MAIL = "cards/mail"
#: how long the times a player asked are kept (the longest limit's span)
ASKED_FOR = timedelta(days=1)


def mail_part(state: State) -> dict[str, Any]:
    """A copy of the part (empty sections when nothing was ever recorded)."""
    return state.part(MAIL, ("mail", "address", "token", "asked"))


def put_mail_part(state: State, data: dict[str, Any], seq: int) -> None:
    """Keep the part, its empty sections left out (none left: the part is gone)."""
    state.put_part(MAIL, data, seq)


def choice(state: State, player: str) -> str:
    """How ``player``'s notices are mailed: ``each`` sending (the default) or ``daily``."""
    part = state.games_data.get(MAIL) or {}
    return str((part.get("mail") or {}).get(player, "each"))


def address_pending(state: State, player: str) -> dict[str, Any] | None:
    """``player``'s address change waiting for its confirmation, if any (a copy)."""
    part = state.games_data.get(MAIL) or {}
    found = (part.get("address") or {}).get(player)
    return dict(found) if found is not None else None


def links_due(state: State) -> dict[str, int]:
    """The address changes whose confirmation link is still to be mailed: player -> the
    ``player.address_asked`` event."""
    part = state.games_data.get(MAIL) or {}
    return {p: int(a["request"]) for p, a in sorted((part.get("address") or {}).items())
            if "link" not in a}


def tokens_due(state: State) -> dict[str, int]:
    """The new tokens asked and not yet mailed: player -> the ``player.token_asked`` event."""
    part = state.games_data.get(MAIL) or {}
    return {p: int(seq) for p, seq in sorted((part.get("token") or {}).items())}


def asked(state: State, player: str, what: str) -> list[datetime]:
    """When ``player`` asked for ``what`` (``address`` or ``token``) in the last day, as
    recorded (the oldest first)."""
    from nomic_cards.core.ledger.events import parse_time

    part = state.games_data.get(MAIL) or {}
    return [parse_time(t) for t in ((part.get("asked") or {}).get(player) or {}).get(what, [])]


def note_asked(data: dict[str, Any], player: str, what: str, at: datetime) -> None:
    """Add ``at`` to the times ``player`` asked for ``what``, forgetting those a day old."""
    mine = data["asked"].setdefault(player, {})
    since = at - ASKED_FOR
    times = [t for t in mine.get(what, []) if _time(t) > since]
    mine[what] = [*times, _stamp(at)]


def need_player(state: State, name: str, what: str) -> None:
    """Refuse (a replay error) ``what`` of a player who is not an active one."""
    player = state.players.get(name)
    if player is None or not player.active:
        raise ReplayError(f"{what} by {name!r}, who is not an active player")


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _time(text: str) -> datetime:
    from nomic_cards.core.ledger.events import parse_time

    return parse_time(text)
