"""Claims of error against a posted Dealer's Report, in the live state (docs/nweeks.md,
"Claims of error"): rule 8's ``doubt_days`` (0, the default: no claims) is how many days a
report posted to the list must stand undoubted before ``tick`` records it ratified. One part of
the live state, :data:`CLAIMS`, kept like a card game's part (a row of ``game_data``, compared
by ``ledger verify``)::

    {"quiet": {nweek: time},        # posted, not ratified: undoubted since that time
     "doubts": {seq: {"nweek": n, "player": name}}}   # the doubts still open

A report enters ``quiet`` when it is posted to the list while the parameter is on; a doubt
holds its clock; when the last open doubt of it is denied, withdrawn or the report revised, it
is undoubted from then; once ratified it leaves the part.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from nomic_cards.core.installed import spec as rule_spec
from nomic_cards.core.ledger.state import ReplayError, State

__all__ = ["CLAIMS", "RULE", "claims_part", "days", "due", "open_doubt", "put_claims_part"]

CLAIMS = "cards/claims"
#: the rule whose parameter turns claims of error on
RULE = "report"
PARAM = "doubt_days"


def days(state: State) -> int:
    """Rule 8's ``doubt_days`` in force (0: claims of error are off)."""
    spec = rule_spec(RULE)
    change = state.rule(RULE)
    if spec is None or change is None or not change.in_force:
        return 0
    value = spec.value(dict(change.params), PARAM)
    return value if isinstance(value, int) else 0


def claims_part(state: State) -> dict[str, Any]:
    return state.part(CLAIMS, ("quiet", "doubts"))


def put_claims_part(state: State, data: dict[str, Any], seq: int) -> None:
    state.put_part(CLAIMS, data, seq)


def open_doubt(state: State, doubt: int) -> dict[str, Any]:
    """Doubt ``doubt`` (its event number) if it is open, else :class:`ReplayError`."""
    found = claims_part(state)["doubts"].get(str(doubt))
    if found is None:
        raise ReplayError(f"event {doubt} is no open doubt of a Dealer's Report")
    return dict(found)


def due(state: State) -> dict[int, datetime]:
    """Each posted report undoubted now, and when it is ratified (its quiet time plus the
    days in force)."""
    n = days(state)
    part = claims_part(state)
    doubted = {int(d["nweek"]) for d in part["doubts"].values()}
    return {int(k): datetime.fromisoformat(v) + timedelta(days=n)
            for k, v in part["quiet"].items() if int(k) not in doubted and n > 0}
