"""``python -m nomic_cards``: the ``nomic-cards`` command (cron's steps run this way, so they
need no PATH)."""

from __future__ import annotations

from nomic_cards.launch import main

if __name__ == "__main__":
    main()
