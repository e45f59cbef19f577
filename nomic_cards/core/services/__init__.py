"""Use cases: each opens one transaction on a :class:`~nomic_cards.core.game.Game`
(``game.read()`` or ``game.write()``), asks the rules what to do, records the resulting events
and returns a result dataclass for an adapter to print or serve.

One module per part of the officer's work: :mod:`.players` (the game, players, the Dealer,
packs), :mod:`.dealing` (deals and transfers), :mod:`.dice` (dice periods), :mod:`.time` (the
Clock, votes, ``tick``), :mod:`.reports` (the Dealer's Report), :mod:`.rules` (the rules in
force and their changes), :mod:`.notices` (mailing notices), :mod:`.tokens` (the server's
tokens), :mod:`.queries` (hands, the Deck, the log), :mod:`.public` (what the server shows),
:mod:`.audit` (verification). Import a use case from its module (a command loads only the part
it runs); scripts have them all in :mod:`nomic_cards.core.api`.
"""
