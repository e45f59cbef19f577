"""Bridge deals: dealer.dpp shape specs and the dealer scripting language.

A library beside poker, deals and randomizers: it imports nothing from the game core.
See docs/bridge.md.
"""

from __future__ import annotations
