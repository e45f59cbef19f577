"""A real SMTP server's handlers -- one keeping the recipients it was given, one keeping every
message too -- a free port on 127.0.0.1 to run such a server (or any other) on, and the
fixture ``smtp`` (tests/conftest.py): a server on such a port keeping every message."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Sink


class Inbox(Sink):
    """Takes every message (``250 OK``) and keeps its recipients, in order."""

    def __init__(self) -> None:
        self.rcpts: list[str] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.rcpts.extend(envelope.rcpt_tos)  # type: ignore[attr-defined]
        return "250 OK"


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Kept(Inbox):
    """Takes every message (``250 OK``) and keeps it, parsed, with its recipients."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.rcpts.extend(envelope.rcpt_tos)
            self.messages.append(message_from_bytes(  # type: ignore[arg-type]
                envelope.content, policy=policy.default))
        return "250 OK"


@contextmanager
def serving(handler: object) -> Iterator[str]:
    """A real SMTP server on a free port of 127.0.0.1 handing each message to ``handler``,
    its ``HOST:PORT``, while the ``with`` lasts."""
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        controller.stop()
