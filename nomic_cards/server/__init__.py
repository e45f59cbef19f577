"""The game-state server: a read-only JSON API, an Atom feed of the Dealer's Reports and a web
page, over one :class:`~nomic_cards.core.nomic.Nomic` per process (the only package that imports the
web framework, Starlette).

``create_app`` is the factory: ``uvicorn --factory nomic_cards.server:create_app`` (the game
database from ``NOMIC_CARDS_DB``), or ``nomic-cards serve``. See docs/server.md.
"""

from __future__ import annotations

from nomic_cards.server.app import create_app

__all__ = ["create_app"]
