"""A real SMTP server's handler that keeps the recipients it was given, and a free port on
127.0.0.1 to run such a server (or any other) on."""

from __future__ import annotations

import socket

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
