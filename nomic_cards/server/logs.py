"""What the server's logs may say of a request's target: never a secret.

Tokens travel in the ``Authorization`` header alone, but a client may still put one in an
address (``/api/v1/me/events?token=...``, ``/api/v1/me/<token>``), and uvicorn's access log
writes the path and query of every request. :func:`redact_target` is what the logs write
instead: each path segment, query parameter name or value that holds a run of 20 or more
characters a token is made of (URL-safe base64, as a token's selector and verifier are) is
written ``[redacted]``, and so is the value of every query parameter the API does not take (only
``as_of``, ``at`` and ``format`` are ever shown). :class:`RedactTargets` applies it to uvicorn's
access log; the app installs it on the ``uvicorn.access`` logger when it is made, in every worker,
under ``nomic-cards serve`` and plain uvicorn alike.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

#: a run of characters a token is made of, long enough to be one or a part of one (a selector
#: is 16 characters, a verifier 43)
_TOKENISH = re.compile(r"[A-Za-z0-9_-]{20,}")
#: the query parameters whose values are shown (what the API takes)
SHOWN = frozenset({"as_of", "at", "format"})
REDACTED = "[redacted]"


def _clean(part: str) -> str:
    return REDACTED if _TOKENISH.search(unquote(part)) else part


def redact_target(target: str) -> str:
    """``target`` (a path, with its query) as a log may write it."""
    path, sep, query = target.partition("?")
    out = "/".join(_clean(segment) for segment in path.split("/"))
    if not sep:
        return out
    pairs = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        shown = _clean(name)
        if eq:
            value = _clean(value) if unquote(name) in SHOWN else REDACTED
        pairs.append(f"{shown}{eq}{value}")
    return f"{out}?{'&'.join(pairs)}"


class RedactTargets(logging.Filter):
    """Rewrites the target of uvicorn's access log records (``client - "METHOD target
    HTTP/x" status``) with :func:`redact_target`."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (args[0], args[1], redact_target(args[2]), args[3], args[4])
        elif isinstance(args, tuple) or isinstance(record.msg, str):
            # any other record of this logger: its whole message, redacted the same way
            message = record.getMessage()
            record.msg, record.args = " ".join(map(redact_target, message.split(" "))), ()
        return True


def install() -> None:
    """Put :class:`RedactTargets` on uvicorn's access logger, once per process."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactTargets) for f in logger.filters):
        logger.addFilter(RedactTargets())
