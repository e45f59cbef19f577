"""Blackjack randomizer specs: parse them, deal from them reproducibly, and compute their
statistics exactly.

Blackjack (TetrisWiki) is a small language for how the next piece — or card — is chosen:
``bag of I,J,L,O,S,T,Z``, ``I,J,L,O,S,T,Z with 4 history 4 rolls first I,J,L,T history
Z,Z,Z,Z``. Stable names:

* :func:`parse` — text to :class:`Spec` (or :class:`BlackjackError` with the position);
* :class:`Randomizer` — ``Randomizer(spec, seed=...)`` deals pieces, the same on every platform;
* :func:`stats` — exact long-run frequencies, gap and first-appearance distributions;
* :data:`PRESETS` — named specs (7-bag, 14-bag, memoryless, move-to-back, SZSZ, TGM1, TGM2).

This package imports nothing from the project's core; see ``docs/randomizers.md``.
"""

from __future__ import annotations

from nomic_cards.randomizers.generate import Randomizer
from nomic_cards.randomizers.parser import parse
from nomic_cards.randomizers.presets import PRESETS, Preset
from nomic_cards.randomizers.spec import BlackjackError, Spec, StatsError
from nomic_cards.randomizers.stats import PieceStats, Stats, stats

__all__ = [
    "PRESETS",
    "BlackjackError",
    "PieceStats",
    "Preset",
    "Randomizer",
    "Spec",
    "Stats",
    "StatsError",
    "parse",
    "stats",
]
