"""What a database driver's error means, in one line: its first line, and whether it is a refused
permission (with what to do about it)."""

from __future__ import annotations


def first_line(exc: BaseException) -> str:
    """The first line of a database error's message (of the driver's error that a SQLAlchemy
    error wraps), or its type's name when it has no message."""
    orig = getattr(exc, "orig", None) or exc
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__


def refused(exc: BaseException) -> bool:
    """Whether a database error is a refused permission (SQLSTATE 42501)."""
    orig = getattr(exc, "orig", None) or exc
    return getattr(orig, "sqlstate", None) == "42501"


def permission_hint(exc: BaseException) -> str:
    """What to do about a refused permission: the account in the URL lacks a grant that the
    documentation lists."""
    if refused(exc):
        return (" (the database account in the URL may not do this: docs/deploy.md lists the "
                "grants of the server's and cron's accounts, docs/dice.md the players')")
    return ""
