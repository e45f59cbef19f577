"""Bridge deals: dealer.dpp shape specs and the dealer scripting language.

A library beside poker, deals and randomizers: it imports nothing from the game core.
See docs/bridge.md. ``parse_script`` turns a dealer script into the syntax tree of
:mod:`nomic_cards.bridge.nodes`; :mod:`nomic_cards.bridge.run` deals and evaluates it.
"""

from __future__ import annotations

from nomic_cards.bridge.errors import ScriptError, ScriptRuntimeError
from nomic_cards.bridge.script import Script, parse_script

__all__ = ["Script", "ScriptError", "ScriptRuntimeError", "parse_script"]
