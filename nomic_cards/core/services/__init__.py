"""Use cases: each takes the transaction its caller opened on a
:class:`~nomic_cards.core.nomic.Nomic` (``tx: Tx`` from ``nomic.write()`` to record, ``tx:
Reads`` from ``nomic.read()`` to read) and never commits; it asks the rules what to do, records
the resulting events and returns a result dataclass for an adapter to print or serve. Two jobs
take the Nomic itself and open their own short transactions, because they must hold no lock
while they wait on something else: :func:`~.players.init_game` (the schema first) and
:func:`~.notices.send_notices` (a mail server between transactions).

One module per part of the officer's work: :mod:`.players` (the game, players, the Dealer,
packs), :mod:`.dealing` (deals and transfers), :mod:`.dice` (dice periods), :mod:`.time` (the
Clock, votes, ``tick``), :mod:`.reports` (the Dealer's Report), :mod:`.rules` (the rules in
force and their changes), :mod:`.points` (Points), :mod:`.notices` (mailing notices),
:mod:`.tokens` (the server's tokens), :mod:`.queries` (hands, the Deck, the log),
:mod:`.public` (what the server shows), :mod:`.acting` (an action, by name),
:mod:`.player_games` (a player's view of each card game), :mod:`.live` (the streams),
:mod:`.audit` (verification). Import a use case from its module (a command loads only the part
it runs); scripts have them all in :mod:`nomic_cards.core.api`.
"""
