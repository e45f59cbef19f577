"""Mail out, one message to one address: the configured SMTP server (as ``notices send`` and
``cron run`` configure it: ``NOMIC_CARDS_SMTP``, ``NOMIC_CARDS_SMTP_TLS``,
``NOMIC_CARDS_SMTP_CA_FILE``, the login in ``NOMIC_CARDS_SMTP_USER`` and
``NOMIC_CARDS_SMTP_PASSWORD``, the From in ``NOMIC_CARDS_FROM``), the message built
(:func:`message`: To one address, a Message-ID, In-Reply-To and References when it answers one),
handed over by the sender, :class:`nomic_cards.core.mail.Sender`, one connection for a whole
sending (the certificate checked, the login never in clear, the envelope's one recipient the one
address of its To). Receipts are sent so; so is anything else the game posts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from nomic_cards.core import mail


@dataclass(frozen=True)
class Outbox:
    """Where mail goes out: the SMTP server, and the From address of what is sent."""

    smtp: mail.SmtpConfig
    sender: str = mail.DEFAULT_SENDER

    def __str__(self) -> str:
        return str(self.smtp)


def outbox(smtp: str | None, *, tls: str = "none", cafile: str | None = None,
           sender: str | None = None, environ: Mapping[str, str] | None = None
           ) -> Outbox | None:
    """The outbox from the options given (``--smtp`` and the rest; None: no mail is sent), the
    login from ``environ``; :class:`~nomic_cards.errors.InputError` for a bad one."""
    if not smtp:
        return None
    config = mail.smtp_config(smtp, tls=tls, cafile=cafile, environ=environ or {})
    return Outbox(config, mail.check_sender(sender) if sender else mail.DEFAULT_SENDER)


def message(*, to: str, name: str | None = None, subject: str, body: str, sender: str,
            now: datetime, message_id: str, in_reply_to: str | None = None,
            references: Sequence[str] = ()) -> EmailMessage:
    """One message to the one address ``to`` (``name``: the player's name shown with it),
    answering ``in_reply_to`` (a Message-ID) when given. A ``to`` that is not exactly one
    address is the sender's to refuse, for good (:meth:`nomic_cards.core.mail.Sender.send`), as
    the server would refuse it."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = formataddr((name, to)) if name else to
    msg["Subject"] = " ".join(subject.split())[:200]
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = message_id
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = " ".join([*references, in_reply_to])
    msg["Auto-Submitted"] = "auto-replied" if in_reply_to else "auto-generated"
    msg.set_content(body)
    return msg
