"""Messages from an IMAP mailbox (``mail poll``), over TLS: implicit TLS (``ssl``, port 993) or
STARTTLS (``starttls``, port 143), the server's certificate and name always checked (against the
system's CAs, or the CA file given). The settings come from the environment or from a file
(never the command line, where ``ps`` would show the password):

``NOMIC_CARDS_IMAP_HOST``, ``NOMIC_CARDS_IMAP_PORT`` (default 993, or 143 with STARTTLS),
``NOMIC_CARDS_IMAP_USER``, ``NOMIC_CARDS_IMAP_PASSWORD``, ``NOMIC_CARDS_IMAP_TLS`` (``ssl`` or
``starttls``), ``NOMIC_CARDS_IMAP_CA_FILE``, ``NOMIC_CARDS_IMAP_MAILBOX`` (default ``INBOX``),
``NOMIC_CARDS_IMAP_MOVE_TO`` (a folder to move each message to once it is kept; default: it is
marked seen and stays). ``NOMIC_CARDS_IMAP_FILE`` names a file of ``NAME=VALUE`` lines with the
same names, readable by its owner alone, for whatever the environment does not set.

The unseen messages are fetched one at a time without marking them (``BODY.PEEK``); each is
marked seen (or moved) only once the game has kept it, so a poll that stops midway leaves the
rest for the next, and one kept but not yet marked is recognised by its Message-ID then.
"""

from __future__ import annotations

import contextlib
import imaplib
import re
import ssl
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType

from nomic_cards.errors import NomicCardsError
from nomic_cards.mail.authenticate import ConfigError
from nomic_cards.mail.parse import HEAD_BYTES, MAX_BYTES

PREFIX = "NOMIC_CARDS_IMAP_"
FILE_VARIABLE = "NOMIC_CARDS_IMAP_FILE"
NAMES = ("HOST", "PORT", "USER", "PASSWORD", "TLS", "CA_FILE", "MAILBOX", "MOVE_TO")
TLS_MODES = ("ssl", "starttls")
TIMEOUT_SECONDS = 30.0
#: the most messages one poll takes (the rest wait for the next)
MAX_PER_POLL = 10_000

_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")
_DATE = re.compile(rb'INTERNALDATE "([^"]+)"')


class ImapError(NomicCardsError):
    """The IMAP server could not be reached, refused the login, or failed a command."""


@dataclass(frozen=True)
class ImapConfig:
    host: str
    port: int
    user: str
    password: str = field(repr=False)
    tls: str = "ssl"
    cafile: str | None = None
    mailbox: str = "INBOX"
    move_to: str | None = None

    def __str__(self) -> str:
        return f"{self.user}@{self.host}:{self.port}/{self.mailbox} ({self.tls})"


def _file_settings(path: str) -> dict[str, str]:
    p = Path(path)
    try:
        mode = p.stat().st_mode
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ConfigError(f"{FILE_VARIABLE} {path}: cannot be read ({why})") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(f"{FILE_VARIABLE} {path} may be read by others: it holds a "
                          f"password (chmod 600 {path})")
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        name = name.strip().removeprefix("export ").strip()
        if not sep or name.removeprefix(PREFIX) not in NAMES:
            raise ConfigError(f"{FILE_VARIABLE} {path} line {number}: give NAME=VALUE, a "
                              f"name among {', '.join(PREFIX + n for n in NAMES)}")
        out[PREFIX + name.removeprefix(PREFIX)] = value.strip().strip("'\"")
    return out


def is_configured(environ: Mapping[str, str]) -> bool:
    """Whether the environment names an IMAP mailbox to poll (``cron run`` polls it then)."""
    return bool(environ.get(PREFIX + "HOST") or environ.get(FILE_VARIABLE))


def imap_config(environ: Mapping[str, str]) -> ImapConfig:
    """The IMAP settings of the environment and its file; :class:`ConfigError` naming what
    is missing or wrong."""
    given = dict(_file_settings(environ[FILE_VARIABLE])) if environ.get(FILE_VARIABLE) else {}
    given.update({k: v for k, v in environ.items() if k.startswith(PREFIX) and v
                  and k != FILE_VARIABLE})
    missing = [PREFIX + n for n in ("HOST", "USER", "PASSWORD") if not given.get(PREFIX + n)]
    if missing:
        raise ConfigError(f"mail poll needs {', '.join(missing)} (in the environment, or in "
                          f"the file {FILE_VARIABLE} names)")
    tls = given.get(PREFIX + "TLS") or "ssl"
    if tls not in TLS_MODES:
        raise ConfigError(f"{PREFIX}TLS takes ssl or starttls, not {tls!r}: the password "
                          "never crosses the network in clear")
    port_text = given.get(PREFIX + "PORT") or ("993" if tls == "ssl" else "143")
    if not port_text.isascii() or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ConfigError(f"{PREFIX}PORT takes a port number, not {port_text!r}")
    return ImapConfig(given[PREFIX + "HOST"], int(port_text), given[PREFIX + "USER"],
                      given[PREFIX + "PASSWORD"], tls, given.get(PREFIX + "CA_FILE") or None,
                      given.get(PREFIX + "MAILBOX") or "INBOX",
                      given.get(PREFIX + "MOVE_TO") or None)


@dataclass(frozen=True)
class Fetched:
    """One message fetched: its UID, its bytes (the head alone of one too large), its size and
    when the server received it."""

    uid: str
    raw: bytes
    size: int
    received: datetime | None


def _text(data: object) -> str:
    if isinstance(data, list | tuple):
        data = b" ".join(d for d in data if isinstance(d, bytes))
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
    return " ".join(text.split())[:300]


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Mailbox:
    """One IMAP session: ``with Mailbox(config) as box: for uid in box.unseen(): ...``."""

    def __init__(self, config: ImapConfig, *, timeout: float = TIMEOUT_SECONDS) -> None:
        self.config = config
        self.timeout = timeout
        self._imap: imaplib.IMAP4 | None = None
        self._capabilities: frozenset[str] = frozenset()

    def _context(self) -> ssl.SSLContext:
        try:
            return ssl.create_default_context(cafile=self.config.cafile)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"{PREFIX}CA_FILE {self.config.cafile!r} cannot be read as PEM "
                              f"certificates: {exc}") from None

    def __enter__(self) -> Mailbox:
        cfg = self.config
        where = f"{cfg.host}:{cfg.port}"
        context = self._context()
        try:
            if cfg.tls == "ssl":
                self._imap = imaplib.IMAP4_SSL(cfg.host, cfg.port, ssl_context=context,
                                               timeout=self.timeout)
            else:
                self._imap = imaplib.IMAP4(cfg.host, cfg.port, timeout=self.timeout)
                if "STARTTLS" not in self._imap.capabilities:
                    raise ImapError(f"the IMAP server at {where} does not offer STARTTLS (use "
                                    f"{PREFIX}TLS=ssl)")
                self._imap.starttls(ssl_context=context)
        except ImapError:
            self._close()
            raise
        except ssl.SSLCertVerificationError as exc:
            self._close()
            raise ImapError(f"cannot reach the IMAP server at {where}: its TLS certificate was "
                            f"not accepted ({exc.verify_message}); give the CA that signed it "
                            f"in {PREFIX}CA_FILE") from None
        except (OSError, imaplib.IMAP4.error) as exc:
            self._close()
            raise ImapError(f"cannot reach the IMAP server at {where}: {_text(str(exc))}") \
                from None
        imap = self._imap
        assert imap is not None
        try:
            imap.login(cfg.user, cfg.password)
        except (OSError, imaplib.IMAP4.error) as exc:
            self._close()
            raise ImapError(f"the IMAP server at {where} refused the login of {cfg.user!r}: "
                            f"{_text(str(exc))}") from None
        # what the server offers once logged in (more than in its greeting: MOVE, UIDPLUS)
        words = b" ".join(d for d in self._command("capability") if isinstance(d, bytes))
        self._capabilities = frozenset(words.decode("ascii", "replace").upper().split()) \
            | frozenset(imap.capabilities)
        self._command("select", _quoted(cfg.mailbox))
        return self

    def _command(self, name: str, *args: str) -> list[object]:
        imap = self._imap
        if imap is None:
            raise ImapError("the IMAP connection is not open")
        try:
            typ, data = getattr(imap, name)(*args)
        except (OSError, imaplib.IMAP4.error) as exc:
            self._close()
            raise ImapError(f"lost the IMAP connection to {self.config.host}: "
                            f"{_text(str(exc))}") from None
        if typ != "OK":
            raise ImapError(f"the IMAP server refused {name.upper()} {' '.join(args)[:80]}: "
                            f"{_text(data)}")
        return list(data)

    def _uid(self, *args: str) -> list[object]:
        return self._command("uid", *args)

    def unseen(self) -> list[str]:
        """The UIDs of the unseen messages, oldest first."""
        data = self._uid("SEARCH", "UNSEEN")
        words = b" ".join(d for d in data if isinstance(d, bytes)).split()
        return [w.decode("ascii") for w in words if w.isdigit()][:MAX_PER_POLL]

    def fetch(self, uid: str) -> Fetched:
        """Message ``uid`` (not marked seen): whole, or its head alone when it is larger than
        :data:`MAX_BYTES`."""
        meta = b" ".join(p[0] if isinstance(p, tuple) else p for p in
                         self._uid("FETCH", uid, "(RFC822.SIZE INTERNALDATE)")
                         if isinstance(p, bytes | tuple))
        size_match = _SIZE.search(meta)
        size = int(size_match.group(1)) if size_match else 0
        date_match = _DATE.search(meta)
        received = None
        if date_match:
            try:
                received = datetime.strptime(date_match.group(1).decode("ascii"),
                                             "%d-%b-%Y %H:%M:%S %z")
            except ValueError:
                received = None
        part = f"BODY.PEEK[]<0.{HEAD_BYTES}>" if size > MAX_BYTES else "BODY.PEEK[]"
        data = self._uid("FETCH", uid, f"({part})")
        raw = next((p[1] for p in data if isinstance(p, tuple) and len(p) > 1
                    and isinstance(p[1], bytes)), b"")
        return Fetched(uid, raw, size or len(raw), received)

    def done(self, uid: str) -> None:
        """Mark message ``uid`` seen, or move it to the folder configured."""
        target = self.config.move_to
        if target is None:
            self._uid("STORE", uid, "+FLAGS", "(\\Seen)")
            return
        # seen first, so that the copy in the folder is seen too
        self._uid("STORE", uid, "+FLAGS", "(\\Seen)")
        if "MOVE" in self._capabilities:
            self._uid("MOVE", uid, _quoted(target))
            return
        self._uid("COPY", uid, _quoted(target))
        self._uid("STORE", uid, "+FLAGS", "(\\Deleted)")
        if "UIDPLUS" in self._capabilities:  # this message alone, not every one deleted
            self._uid("EXPUNGE", uid)
        else:
            self._command("expunge")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._imap is not None:
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                self._imap.logout()
        self._close()

    def _close(self) -> None:
        imap, self._imap = self._imap, None
        if imap is None:
            return
        with contextlib.suppress(OSError):
            imap.shutdown()

