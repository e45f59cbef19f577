"""The user's private cache directory for what the bridge library keeps between runs."""

from __future__ import annotations

import os


def private_cache_dir() -> str | None:
    """``$XDG_CACHE_HOME/nomic-cards`` (else ``~/.cache/nomic-cards``), made if need be and
    private, or ``None`` when it cannot be made or is not the user's alone: what is kept there
    is loaded without further checks, so a directory another user could write is not used."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "nomic-cards")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return None
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (info.st_uid != getuid() or info.st_mode & 0o022):
        return None
    return folder
