"""Bridge deals: dealer.dpp shape specs and the dealer scripting language.

A library beside poker, deals and randomizers: it imports nothing from the game core.
See docs/bridge.md. Its sub-packages say what they hold:

- :mod:`~nomic_cards.bridge.language`: the dealer language (tokens, grammar, parser, the syntax
  tree of :mod:`~nomic_cards.bridge.language.nodes`; :func:`~nomic_cards.bridge.language.script.
  parse_script` turns a script into it);
- :mod:`~nomic_cards.bridge.shapes`: dealer's shape lists and dealer.dpp shape specs;
- :mod:`~nomic_cards.bridge.exact`: exact probabilities of conditions;
- :mod:`~nomic_cards.bridge.deal`: how deals are made (the specified stream, lazy batches,
  point tables, smart stacking, dealer's own shuffle);
- :mod:`~nomic_cards.bridge.run`: running a script (the run loop, the evaluator, the actions,
  the ``bridge run`` command and the compiled loop);
- :mod:`~nomic_cards.bridge.output`: dealer's text layouts and the PBN/LIN/JSON formats.

:mod:`~nomic_cards.bridge.deck` (seats, suits, ranks) and :mod:`~nomic_cards.bridge.errors`
serve them all. Nothing is imported here, so that a module of the package (the options of
``bridge run``, :mod:`nomic_cards.bridge.run.command`) can be imported without the parser.
"""
