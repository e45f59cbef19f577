"""What the mail-in tests share: a game of four players with their addresses and decision 9355
open, messages written as players write them, DKIM-signed with a key made for the test (its
public half pinned in a keys file, as ``NOMIC_CARDS_DKIM_KEYS`` names it), and a real SMTP
server (aiosmtpd) keeping what it is handed."""

from __future__ import annotations

import base64
import shlex
import threading
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from typer.testing import CliRunner, Result

from nomic_cards.cli import app
from tests.mailbox import free_port

runner = CliRunner()

ADDRESSES = {"ann": "ann@spoon.example", "ben": "Ben@Mail.Example", "cat": "cat@spoon.example",
             "dan": "dan@other.example"}
#: the game's clock: the decision opens at T0, the mail comes in at T1
T0 = "2026-01-01T11:00:00Z"
T1 = "2026-01-02T12:00:00Z"
DATE = "Fri, 02 Jan 2026 09:30:00 +0000"
SELECTOR = "s2026"


def cli(db: str, *args: str, at: str = T1, env: dict[str, str] | None = None,
        stdin: bytes | None = None) -> Result:
    return runner.invoke(app, ["--db", db, "--at", at, *args], env=env, input=stdin)


def ok(db: str, command: str, *, at: str = T1, env: dict[str, str] | None = None) -> Result:
    result = cli(db, *shlex.split(command), at=at, env=env)
    assert result.exit_code == 0, f"{command}: {result.output}"
    return result


def table(db: str) -> None:
    """ann, ben, cat, dan (each with an address), the Dealer PurpleBob; decision 9355 open from
    2026-01-01T11:00Z until 2026-01-04T11:00Z."""
    ok(db, "init --epoch 2026-01-01 --nweek-days 10", at="2026-01-01T10:00:00Z")
    for name in ADDRESSES:
        ok(db, f"player add {name}", at="2026-01-01T10:01:00Z")
    for name, address in ADDRESSES.items():
        ok(db, f"player email {name} {address}", at="2026-01-01T10:02:00Z")
    ok(db, "decision open 9355 --title 'More cards' --author ann --ai 1.0 --quorum 2 "
           "--closes 2026-01-04T11:00:00Z", at=T0)


class Signer:
    """An RSA key made for the test, signing for the domains given; ``keys`` is the file
    pinning its public half for each."""

    def __init__(self, directory: Path, domains: tuple[str, ...]) -> None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private = key.private_bytes(serialization.Encoding.PEM,
                                         serialization.PrivateFormat.TraditionalOpenSSL,
                                         serialization.NoEncryption())
        public = key.public_key().public_bytes(serialization.Encoding.DER,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
        p = base64.b64encode(public).decode("ascii")
        self.keys = directory / "dkim-keys"
        self.keys.write_text("# the list's signers\n" + "".join(
            f"{SELECTOR}._domainkey.{d} v=DKIM1; k=rsa; p={p}\n" for d in domains))

    def sign(self, raw: bytes, domain: str,
             headers: tuple[bytes, ...] = (b"from", b"to", b"subject", b"date",
                                           b"message-id")) -> bytes:
        import dkim

        signature = dkim.sign(raw, SELECTOR.encode(), domain.encode(), self.private,
                              include_headers=list(headers))
        return bytes(signature) + raw

    def env(self) -> dict[str, str]:
        return {"NOMIC_CARDS_DKIM_KEYS": str(self.keys)}


def message(sender: str, body: str, *, message_id: str = "<m1@spoon.example>",
            subject: str = "Votes", to: str = "business@spoon.example",
            date: str = DATE) -> bytes:
    """A plain-text message as a player's mail program writes it (CRLF line ends)."""
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = message_id
    msg.set_content(body)
    return msg.as_bytes()


def signed(signer: Signer, sender: str, body: str, **kw: Any) -> bytes:
    return signer.sign(message(sender, body, **kw), sender.rpartition("@")[2].rstrip(">"))


class Inbox:
    """An aiosmtpd handler keeping each message it accepts, with its recipients."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = message_from_bytes(envelope.content, policy=policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), msg))
        return "250 OK"


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    @property
    def smtp(self) -> str:
        return f"127.0.0.1:{self.port}"

