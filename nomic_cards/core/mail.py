"""Private notices by e-mail: the message for one notice, and a sender that delivers a batch
over one SMTP connection.

Standard library only (``smtplib``, ``email``). Which notices to send, and recording that they
were sent, is the business of :func:`nomic_cards.core.services.send_notices`; this module knows
nothing of the ledger beyond the numbers and hashes it is handed.
"""

from __future__ import annotations

import smtplib
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from types import TracebackType

from nomic_cards.errors import InputError, NomicCardsError

DEFAULT_SENDER = "dealer@localhost"
SUBJECT = "Spoon Nomic Cards: a private notice"
MESSAGE_ID_DOMAIN = "nomic-cards"
# Below SQLite's 30 s busy timeout: each message is sent while the ledger lock is held.
TIMEOUT_SECONDS = 20.0


class MailError(NomicCardsError):
    """The SMTP server could not be reached, or refused or dropped a message."""


@dataclass(frozen=True)
class Endpoint:
    """Where the SMTP server listens."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_endpoint(text: str) -> Endpoint:
    """``localhost:25``, ``10.0.0.5:2525`` or ``[::1]:25``; anything else is an InputError."""
    bad = InputError(f"--smtp takes HOST:PORT (e.g. localhost:25), not {text!r}")
    host, sep, port = text.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or any(c.isspace() for c in host) or not port.isdigit():
        raise bad
    number = int(port)
    if not 1 <= number <= 65535:
        raise bad
    return Endpoint(host, number)


def check_sender(address: str) -> str:
    """The ``--from`` address, checked as loosely as players' addresses are."""
    a = address.strip()
    if "@" not in a or any(c.isspace() for c in a) or a.startswith("@") or a.endswith("@"):
        raise InputError(f"--from takes an e-mail address, not {address!r}")
    return a


def message_id(notice_seq: int, notice_hash: str) -> str:
    """``<notice-12.<hash>@nomic-cards>``: the same notice always gets the same Message-ID, so a
    resent copy can be recognised as a duplicate (the hash makes it unique to one game)."""
    return f"<notice-{notice_seq}.{notice_hash}@{MESSAGE_ID_DOMAIN}>"


@dataclass(frozen=True)
class Notice:
    """One notice to mail: its event number and hash, the player and address, the text."""

    seq: int
    event_hash: str
    player: str
    address: str
    text: str


def build_message(notice: Notice, *, sender: str, now: datetime) -> EmailMessage:
    """The e-mail for one notice."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = formataddr((notice.player, notice.address))
    msg["Subject"] = SUBJECT
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = message_id(notice.seq, notice.event_hash)
    msg["X-Nomic-Cards-Event"] = str(notice.seq)
    msg.set_content(
        f"{notice.text}\n\n"
        f"Spoon Nomic Cards, ledger event {notice.seq}. This notice is private: it is "
        f"addressed to {notice.player} alone.\n"
    )
    return msg


def _text(raw: bytes | str) -> str:
    """A server reply on one line (multi-line replies joined)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return " ".join(text.split())


def _reason(exc: BaseException) -> str:
    """One line saying why: the server's reply (``451 4.3.0 try later``) or the socket error."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return f"{exc.smtp_code} {_text(exc.smtp_error)}".strip()
    if isinstance(exc, smtplib.SMTPRecipientsRefused) and exc.recipients:
        code, reply = next(iter(exc.recipients.values()))
        return f"{code} {_text(reply)}".strip()
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class Sender:
    """One SMTP connection for a batch: ``with Sender(endpoint) as s: s.send(msg)``.

    Opening raises :class:`MailError` when the server cannot be reached or does not greet us;
    :meth:`send` raises it when the server refuses the message or drops the connection.
    """

    def __init__(self, endpoint: Endpoint, *, timeout: float = TIMEOUT_SECONDS) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def __enter__(self) -> Sender:
        try:
            self._smtp = smtplib.SMTP(self.endpoint.host, self.endpoint.port,
                                      timeout=self.timeout)
            self._smtp.ehlo_or_helo_if_needed()
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            raise MailError(f"cannot reach the SMTP server at {self.endpoint}: "
                            f"{_reason(exc)}") from None
        return self

    def send(self, msg: EmailMessage) -> None:
        if self._smtp is None:
            raise MailError("the SMTP connection is not open")
        try:
            self._smtp.send_message(msg)
        except (OSError, smtplib.SMTPException) as exc:
            raise MailError(_reason(exc)) from None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._close()

    def _close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is None:
            return
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()


def build_token_message(player: str, address: str, token: str, *, sender: str,
                        now: datetime, server: str | None = None) -> EmailMessage:
    """The e-mail that hands a player their server token (the only copy there is)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = formataddr((player, address))
    msg["Subject"] = "Spoon Nomic Cards: your player token"
    msg["Date"] = format_datetime(now)
    where = f" at {server}" if server else ""
    msg.set_content(
        f"Your token for the Cards server{where}:\n\n    {token}\n\n"
        "Paste it into the page to see your own hand and notices. Keep it to yourself: anyone "
        "holding it can read your hand. The Dealer can revoke it and issue a new one.\n"
    )
    return msg
