"""Every default of a new game, in one place: the packs and their Backs, the original Dealer,
the length of an nweek and the first day. ``init``, the CLI's help and the docs read them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

#: The proposal's packs (rule 2), numbered 0.. in the order they are described.
PROPOSAL_PACKS: tuple[tuple[str, str], ...] = (
    ("Red", "The Backs of these cards are primarily Red. They are decorated with the traditional "
            "card design featuring the twisty lines surrounding circles which appear to contain "
            "cherubs on pogo sticks."),
    ("Blue", "The Backs of these cards are primarily Blue. Other than the color, they are "
             "decorated the same way as the Red Pack."),
    ("Fish", "The Backs of these cards contain colorful drawings of tropical fish."),
    ("Corporate", "The Backs of these cards contain a message urging you to fly the friendly "
                  "skies with United."),
)
#: Rule 4: "The original Dealer is PurpleBob."
PROPOSAL_DEALER = "PurpleBob"
#: Spoon Nomic's nweek: ten game days.
SPOON_NWEEK_DAYS = 10
#: The SQLite file used when no database is named.
DEFAULT_DATABASE_FILE = "nomic-cards.db"


@dataclass(frozen=True)
class GameSettings:
    """What a new game is created with. ``epoch`` None means the creation day (UTC)."""

    packs: tuple[tuple[str, str], ...] = PROPOSAL_PACKS
    dealer: str = PROPOSAL_DEALER
    nweek_days: int = SPOON_NWEEK_DAYS
    epoch: date | None = field(default=None)

    def stored(self, today: date) -> dict[str, str]:
        """The settings as the ``game.created`` event keeps them."""
        return {"epoch": (self.epoch or today).isoformat(), "nweek_days": str(self.nweek_days)}


@dataclass(frozen=True)
class StoredSettings:
    """The settings a game was created with, read back from its ledger."""

    epoch: date
    nweek_days: int

    @classmethod
    def parse(cls, stored: Mapping[str, str]) -> StoredSettings | None:
        """None when the game predates stored settings or they are unreadable."""
        try:
            return cls(date.fromisoformat(stored.get("epoch", "")),
                       int(stored.get("nweek_days", str(SPOON_NWEEK_DAYS))))
        except ValueError:
            return None
