"""The game core: the Cards proposal carried out over a hash-chained ledger.

Importing this package loads nothing else: a script imports :mod:`nomic_cards.core.api` (the
:class:`~nomic_cards.core.nomic.Nomic` and every use case), an adapter each use case from the
module of :mod:`nomic_cards.core.services` that defines it.
"""
