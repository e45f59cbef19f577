"""The ledger: immutable events, their hash chain, the pure fold that replays them into a
:class:`~nomic_cards.core.ledger.state.State`, and ``verify`` which compares a replay with the
projection tables. Nothing here touches a database."""
