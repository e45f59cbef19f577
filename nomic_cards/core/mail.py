"""Private notices by e-mail: the message for one notice, and a sender that delivers a batch
over one SMTP connection (plain, STARTTLS or implicit TLS, with an optional login).

Standard library only (``smtplib``, ``ssl``, ``email``). Which notices to send, and recording
what became of them, is the business of :func:`nomic_cards.core.services.send_notices`; this
module knows nothing of the ledger beyond the numbers and hashes it is handed.
"""

from __future__ import annotations

import hashlib
import smtplib
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, getaddresses
from types import MappingProxyType, TracebackType
from typing import Any

from nomic_cards import inputs
from nomic_cards.errors import InputError, NomicCardsError
from nomic_cards.inputs import is_ascii_number

DEFAULT_SENDER = "dealer@localhost"
SUBJECT = "Spoon Nomic Cards: a private notice"
MESSAGE_ID_DOMAIN = "nomic-cards"
# How long to wait for the server at each step (no database lock is held meanwhile).
TIMEOUT_SECONDS = 30.0


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
    if not sep or not host or any(c.isspace() for c in host) or not is_ascii_number(port) \
            or len(port) > 5:
        raise bad
    number = int(port)
    if not 1 <= number <= 65535:
        raise bad
    return Endpoint(host, number)


#: how the connection is secured: none, STARTTLS after connecting, or TLS from the start
TLS_MODES = ("none", "starttls", "ssl")
USER_VARIABLE = "NOMIC_CARDS_SMTP_USER"
PASSWORD_VARIABLE = "NOMIC_CARDS_SMTP_PASSWORD"
_LOOPBACK = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class SmtpConfig:
    """How to reach the SMTP server: where, how the connection is secured (``tls``), the CA file
    that signed its certificate (None: the system's CAs) and the login, if any."""

    endpoint: Endpoint
    tls: str = "none"
    cafile: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:
        return str(self.endpoint) + ("" if self.tls == "none" else f" ({self.tls})")

    def context(self) -> ssl.SSLContext:
        """A client TLS context that checks the certificate and the host name."""
        try:
            return ssl.create_default_context(cafile=self.cafile)
        except (OSError, ssl.SSLError) as exc:
            raise InputError(f"--ca-file {self.cafile!r} cannot be read as PEM certificates: "
                             f"{_reason(exc)}") from None


def smtp_config(smtp: str, *, tls: str = "none", cafile: str | None = None,
                environ: Mapping[str, str] | None = None) -> SmtpConfig:
    """The configuration from the command line (``--smtp``, ``--tls``, ``--ca-file``) and the
    login from ``environ`` (``NOMIC_CARDS_SMTP_USER`` and ``NOMIC_CARDS_SMTP_PASSWORD``, both or
    neither). A password is never sent in clear: a login over ``--tls none`` is refused unless
    the server is on this machine (a loopback address)."""
    endpoint = parse_endpoint(smtp)
    if tls not in TLS_MODES:
        raise InputError(f"--tls takes one of {', '.join(TLS_MODES)}, not {tls!r}")
    env = environ if environ is not None else {}
    user, password = env.get(USER_VARIABLE) or None, env.get(PASSWORD_VARIABLE) or None
    if (user is None) != (password is None):
        given, missing = ((USER_VARIABLE, PASSWORD_VARIABLE) if user is not None
                          else (PASSWORD_VARIABLE, USER_VARIABLE))
        raise InputError(f"{given} is set but {missing} is not: set both to log in, "
                         "or neither")
    if user is not None and tls == "none" and endpoint.host.lower() not in _LOOPBACK:
        raise InputError(f"{USER_VARIABLE} is set but --tls is none: the password would cross "
                         f"the network in clear to {endpoint}; use --tls starttls or --tls ssl")
    if cafile is not None and tls == "none":
        raise InputError("--ca-file needs --tls starttls or --tls ssl")
    config = SmtpConfig(endpoint, tls, cafile, user, password)
    if cafile is not None:
        config.context()  # a bad file is an input error now, before anything is sent
    return config


def is_address(address: str) -> bool:
    """Whether ``address`` is exactly one e-mail address, ``name@example.org``
    (:func:`nomic_cards.inputs.address_problem`): the only kind a message is ever addressed
    to, so that no header and no SMTP envelope can read a second recipient in it."""
    return inputs.is_address(address)


def check_sender(address: str) -> str:
    """The ``--from`` address, checked as strictly as players' addresses are."""
    a = address.strip()
    if not is_address(a):
        raise InputError(f"--from takes an e-mail address, not {address!r}")
    return a


#: the variable that gives the server's URL for the mails that send players to it
BASE_URL_VARIABLE = "NOMIC_CARDS_BASE_URL"


def check_base_url(url: str) -> str:
    """The server's URL as players reach it (``--base-url`` or ``NOMIC_CARDS_BASE_URL``):
    ``http`` or ``https``, a host, no query, fragment or credentials; without a trailing
    ``/``."""
    from urllib.parse import urlsplit

    text = url.strip()
    bad = InputError(f"--base-url ({BASE_URL_VARIABLE}) takes the server's URL, e.g. "
                     f"https://cards.example.org, not {url!r}")
    if any(c.isspace() or ord(c) < 32 for c in text):
        raise bad
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (a bad port raises here)
    except ValueError:
        raise bad from None
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.query
            or parts.fragment or parts.username is not None):
        raise bad
    return text.rstrip("/")


def message_id(notice_seq: int, notice_hash: str) -> str:
    """``<notice-12.<hash>@nomic-cards>``: the same notice always gets the same Message-ID, so a
    resent copy can be recognised as a duplicate (the hash makes it unique to one game)."""
    return f"<notice-{notice_seq}.{notice_hash}@{MESSAGE_ID_DOMAIN}>"


def digest_id(notices: Sequence[Notice]) -> str:
    """The Message-ID of a mail gathering ``notices``: one notice's own
    (:func:`message_id`); for several, ``<notices-12-40.<hash>@nomic-cards>`` from all their
    hashes -- the same notices always get the same Message-ID."""
    if len(notices) == 1:
        return message_id(notices[0].seq, notices[0].event_hash)
    digest = hashlib.sha256(" ".join(n.event_hash for n in notices).encode()).hexdigest()
    return f"<notices-{notices[0].seq}-{notices[-1].seq}.{digest[:24]}@{MESSAGE_ID_DOMAIN}>"


@dataclass(frozen=True)
class Notice:
    """One notice to mail: its event number and hash, the player and address, the text."""

    seq: int
    event_hash: str
    player: str
    address: str
    text: str
    #: whom the notice's own event names publicly (None: a sealed notice names no one)
    subject: str | None = None
    #: what the notice's ``By:`` line waited for is done (acted on, over, or its time gone)
    done: bool = False

    @property
    def waits(self) -> str | None:
        """The deadline of what still waits for the player, if anything does."""
        return None if self.done else deadline(self.text)

    def lines(self) -> list[str]:
        """The notice's lines as mailed: a ``By:`` line of what no longer waits says so."""
        out = []
        for line in self.text.splitlines():
            if self.done and line.startswith("By: "):
                line = f"Done: this no longer waits for you (it was due by {line[4:].strip()})"
            out.append(line)
        return out


def subject(text: str) -> str:
    """The mail's subject: the notice's first line -- what happened, with the nweek and the card
    (``Spoon Nomic Cards: Nweek 2: you were dealt the Red Queen of Hearts (card 90)``)."""
    first = " ".join(text.split("\n", 1)[0].split())
    if not first:
        return SUBJECT
    if len(first) > 150:
        first = first[:149].rstrip() + "\N{HORIZONTAL ELLIPSIS}"
    return f"Spoon Nomic Cards: {first}"


def deadline(text: str) -> str | None:
    """A notice's deadline (its ``By:`` line), if something waits for its player."""
    for line in text.splitlines():
        if line.startswith("By: "):
            return line[4:].strip() or None
    return None


def build_message(notices: Sequence[Notice], *, sender: str, now: datetime,
                  page: str) -> EmailMessage:
    """The one e-mail that gathers a player's due notices (a digest), oldest first: each says
    what happened, why, when, by when the player must act (when something waits for em) and
    where -- ``page``, the game's page, where the player acts."""
    first = notices[0]
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = formataddr((first.player, first.address))
    dues = sorted(d for d in (n.waits for n in notices) if d)
    if len(notices) == 1:
        msg["Subject"] = subject(first.text)
    else:
        soonest = f"; the first waits until {dues[0]}" if dues else ""
        msg["Subject"] = f"Spoon Nomic Cards: {len(notices)} notices for {first.player}{soonest}"
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = digest_id(notices)
    msg["X-Nomic-Cards-Events"] = ", ".join(str(n.seq) for n in notices)
    blocks = []
    for i, n in enumerate(notices, 1):
        head, *rest = n.lines()
        lines = [f"{i}. {head}", *(f"   {line}" for line in rest), f"   Where: {page}",
                 f"   (ledger event {n.seq})"]
        blocks.append("\n".join(lines))
    waits = "" if not dues else (
        " It waits for you: act on the game's page by the time it gives." if len(notices) == 1
        else f" {len(dues)} of them wait for you: act on the game's page by the time each "
             "gives.")
    msg.set_content(
        f"{first.player}, the game has {len(notices)} new notice"
        f"{'s' if len(notices) != 1 else ''} for you.{waits}\n\n"
        + "\n\n".join(blocks)
        + f"\n\nSpoon Nomic Cards, {page}. These notices are private: they are addressed to "
          f"{first.player} alone.\n"
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


def one_recipient(msg: EmailMessage) -> str | None:
    """The one address the message's ``To:`` names, or None when it names none, several, or
    one that is not exactly an address (:func:`is_address`); ``Cc:`` and ``Bcc:`` are never
    set, so a message with either has no one recipient either."""
    if msg.get("Cc") is not None or msg.get("Bcc") is not None:
        return None
    to = msg.get_all("To") or []
    if len(to) != 1:
        return None
    addresses: tuple[Any, ...] = tuple(getattr(to[0], "addresses", ()))
    if len(addresses) != 1 or not is_address(str(addresses[0].addr_spec)):
        return None
    return str(addresses[0].addr_spec)


class Refused(MailError):
    """The server refused one message (its recipient or its content) but the connection is
    still usable. ``permanent`` for a 5xx reply: sending it again to that address is pointless."""

    def __init__(self, reason: str, *, code: int) -> None:
        super().__init__(reason)
        self.code = code

    @property
    def permanent(self) -> bool:
        return 500 <= self.code <= 599


class Sender:
    """One SMTP connection for a batch: ``with Sender(config) as s: s.send(msg)``.

    Opening connects (through implicit TLS or STARTTLS when configured, checking the server's
    certificate) and logs in when the configuration has a user; it raises :class:`MailError`
    when the server cannot be reached, the TLS handshake fails or the login is refused.
    :meth:`send` raises :class:`Refused` when the server refuses that one message and
    :class:`MailError` when the connection is lost or the server refuses our sender.
    """

    def __init__(self, config: SmtpConfig | Endpoint, *,
                 timeout: float = TIMEOUT_SECONDS) -> None:
        self.config = config if isinstance(config, SmtpConfig) else SmtpConfig(config)
        self.endpoint = self.config.endpoint
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def __enter__(self) -> Sender:
        cfg, where = self.config, self.config.endpoint
        try:
            if cfg.tls == "ssl":
                self._smtp = smtplib.SMTP_SSL(where.host, where.port, timeout=self.timeout,
                                              context=cfg.context())
            else:
                self._smtp = smtplib.SMTP(where.host, where.port, timeout=self.timeout)
            smtp = self._smtp
            smtp.ehlo_or_helo_if_needed()
            if cfg.tls == "starttls":
                if not smtp.has_extn("starttls"):
                    raise MailError(f"the SMTP server at {where} does not offer STARTTLS "
                                    "(use --tls ssl for implicit TLS, or --tls none)")
                smtp.starttls(context=cfg.context())
                smtp.ehlo()
        except MailError:
            self._close()
            raise
        except ssl.SSLCertVerificationError as exc:
            self._close()
            raise MailError(f"cannot reach the SMTP server at {where}: its TLS certificate "
                            f"was not accepted ({exc.verify_message}); give the CA that "
                            "signed it with --ca-file") from None
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            raise MailError(f"cannot reach the SMTP server at {where}: "
                            f"{_reason(exc)}") from None
        if cfg.user is not None:
            self._login(cfg.user, cfg.password or "")
        return self

    def _login(self, user: str, password: str) -> None:
        smtp, where = self._smtp, self.config.endpoint
        assert smtp is not None
        try:
            if not smtp.has_extn("auth"):
                raise MailError(f"the SMTP server at {where} offers no login (AUTH) on this "
                                f"connection, but {USER_VARIABLE} is set")
            smtp.login(user, password)
        except MailError:
            self._close()
            raise
        except smtplib.SMTPAuthenticationError as exc:
            self._close()
            raise MailError(f"the SMTP server at {where} refused the login of {user!r}: "
                            f"{_reason(exc)}") from None
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            raise MailError(f"cannot log in to the SMTP server at {where}: "
                            f"{_reason(exc)}") from None

    def send(self, msg: EmailMessage) -> None:
        """Hand ``msg`` to the server for the one address its ``To:`` names, the envelope's
        only recipient: a ``To:`` that names anything but exactly one address (as
        :func:`is_address` takes it) is refused here, as the server would refuse a bad
        recipient for good (``553``), and nothing is sent."""
        if self._smtp is None:
            raise MailError("the SMTP connection is not open")
        rcpt = one_recipient(msg)
        if rcpt is None:
            raise Refused("553 5.1.3 the message is not addressed to exactly one address; "
                          "not sent", code=553)
        # Flattened here, not by send_message: its generator would write a body line
        # beginning "From " as ">From " (the mbox convention), and a report's does.
        sender = getaddresses([str(msg.get("From", ""))])
        flat = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
        try:
            self._smtp.sendmail(sender[0][1] if sender else "", [rcpt], flat)
        except smtplib.SMTPSenderRefused as exc:  # our From: every message would fail
            raise MailError(f"the SMTP server refused the sender {exc.sender!r}: "
                            f"{_reason(exc)}") from None
        except smtplib.SMTPRecipientsRefused as exc:
            code = next(iter(exc.recipients.values()))[0] if exc.recipients else 0
            raise Refused(_reason(exc), code=code) from None
        except (smtplib.SMTPDataError, smtplib.SMTPNotSupportedError) as exc:
            code = exc.smtp_code if isinstance(exc, smtplib.SMTPDataError) else 0
            raise Refused(_reason(exc), code=code) from None
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            raise MailError(f"lost the connection to the SMTP server at "
                            f"{self.config.endpoint}: {_reason(exc)}") from None

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

#: what a token lets its holder do, by its scope (None: a player's own token)
TOKEN_POWERS: Mapping[str | None, str] = MappingProxyType({
    None: ("read your Hand, your notices and your Points, and act as you: trade, show, make "
           "and vote on Motions, and every other action of the card games in force"),
    "dealer": ("act as the Dealer through the server: deal, transfer cards, record votes, "
               "tick and open Showdowns, and read your own Hand and notices"),
})


def _to_player(player: str, address: str, title: str, *, sender: str,
               now: datetime) -> EmailMessage:
    """A message from ``sender`` to one player at ``address``, its Subject and Date set."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = formataddr((player, address))
    msg["Subject"] = title
    msg["Date"] = format_datetime(now)
    return msg


def build_token_message(player: str, address: str, token: str, *, sender: str,
                        now: datetime, server: str, scope: str | None = None) -> EmailMessage:
    """The e-mail that hands a player their server token (the only copy there is): where to
    use it and what it lets its holder do."""
    msg = _to_player(player, address, "Spoon Nomic Cards: your officer token" if scope else
                     "Spoon Nomic Cards: your player token", sender=sender, now=now)
    powers = TOKEN_POWERS.get(scope, TOKEN_POWERS[None])
    msg.set_content(
        f"Your token for the Cards server at {server}/:\n\n    {token}\n\n"
        f"Paste it into the page at {server}/ to sign in. It lets whoever holds it {powers}. "
        "Keep it to yourself. The Dealer can revoke it and issue you a new one.\n"
    )
    return msg


def build_new_token_message(player: str, address: str, token: str, *, sender: str,
                            now: datetime, server: str, asked: datetime) -> EmailMessage:
    """The e-mail answering a request for a new token (made on the game's page at ``asked``,
    by the player or by anyone who knows eir name): the token, and that the earlier ones stop
    working now."""
    msg = _to_player(player, address, "Spoon Nomic Cards: your new player token",
                     sender=sender, now=now)
    msg.set_content(
        f"A new token for you was asked for on the game's page at "
        f"{asked.strftime('%Y-%m-%dT%H:%M:%SZ')}. Here it is, for the Cards server at "
        f"{server}/:\n\n    {token}\n\n"
        f"Paste it into the page at {server}/ to sign in. Your earlier tokens stop working "
        f"now (an officer token of yours does not). It lets whoever holds it "
        f"{TOKEN_POWERS[None]}. Keep it to yourself.\n\n"
        "If you did not ask for it, someone who knows your name did: only this address "
        "receives the token, so nothing is lost; sign in with this one.\n"
    )
    return msg


def build_link_message(player: str, address: str, link: str, *, sender: str, now: datetime,
                       expires: str, asked: datetime) -> EmailMessage:
    """The e-mail to a new address, asked for by ``player`` at ``asked``: the link that
    confirms it, good until ``expires``."""
    msg = _to_player(player, address, "Spoon Nomic Cards: confirm your new address",
                     sender=sender, now=now)
    msg.set_content(
        f"{player} asked on the game's page, at {asked.strftime('%Y-%m-%dT%H:%M:%SZ')}, to be "
        f"mailed at this address ({address}) from now on.\n\n"
        f"To confirm it, open this link and press Confirm, before {expires}:\n\n"
        f"    {link}\n\n"
        "Until then the game mails the address it had. If you did not ask for this, ignore "
        "this mail: nothing changes.\n"
    )
    return msg
