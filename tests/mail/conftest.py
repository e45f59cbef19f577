"""The mail tests' servers and game: Debian's Dovecot (IMAP over TLS), aiosmtpd for the mail
sent, a DKIM key pinned for the players' domains, and the table of ``support.table`` on SQLite
(``test_in.py`` has it on each database instead)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mail.imap_server import Dovecot, missing_reason
from tests.mail.support import Signer, SmtpServer, table


@pytest.fixture
def dovecot(tmp_path: Path) -> Iterator[Dovecot]:
    reason = missing_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} under CI (.ci/run installs dovecot-imapd)")
        pytest.skip(reason)
    root = tmp_path / "imap"
    root.mkdir()
    server = Dovecot(root).start()
    yield server
    server.stop()


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.controller.start()
    yield server
    server.controller.stop()


@pytest.fixture
def signer(tmp_path: Path) -> Signer:
    return Signer(tmp_path, ("spoon.example", "mail.example"))


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'game.db'}"
    table(url)
    return url
