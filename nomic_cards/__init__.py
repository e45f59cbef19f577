"""nomic-cards: the Spoon Nomic Cards rules as a ledger-backed game-state server, plus small
libraries for the card games played with the dealt cards (poker, deals, randomizers, bridge)."""

from __future__ import annotations

__version__ = "0.1.0"
