"""Bridge deals: dealer.dpp shape specs and the dealer scripting language.

A library beside poker, deals and randomizers: it imports nothing from the game core.
See docs/bridge.md. :func:`nomic_cards.bridge.script.parse_script` turns a dealer script into
the syntax tree of :mod:`nomic_cards.bridge.nodes`; :mod:`nomic_cards.bridge.run` deals and
evaluates it. Nothing is imported here, so that a module of the package (the options of
``bridge run``, :mod:`nomic_cards.bridge.command`) can be imported without the parser.
"""
