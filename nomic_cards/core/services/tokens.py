"""Use cases for players' credentials on the server: issue, revoke, list, check, and issue a
token mailed to its player, all or nothing.

A token is ``<selector>.<verifier>``: 16 and 43 URL-safe characters from the OS CSPRNG. Only the
selector and the SHA-256 of the verifier are stored (in ``player_tokens``, outside the ledger),
so the database never holds a usable token; checking one looks up the selector and compares the
verifier's hash in constant time. Every way a token can be wrong -- malformed, unknown, wrong
verifier, revoked, a retired player -- takes the same path and gives the same answer.

``mail_token``: everything that can be checked beforehand is checked before any token is issued
or revoked -- the mail settings, the sender, the server's URL, the player and their address, and
the SMTP connection itself (reached, secured, logged in). The token is then issued in a savepoint
that is kept only once the SMTP server has accepted the message: if the server refuses it
or the connection is lost, it is rolled back and the player's tokens are exactly as they
were.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from nomic_cards.core.services.common import require_active, require_player
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation

if TYPE_CHECKING:
    from nomic_cards.core import mail
    from nomic_cards.core.store import reads

__all__ = [
    "IssuedToken",
    "MailedToken",
    "TokenView",
    "issue_token",
    "list_tokens",
    "mail_token",
    "revoke_tokens",
]


SELECTOR_BYTES = 12  # 16 characters
VERIFIER_BYTES = 32  # 43 characters
_DUMMY_SELECTOR = "-" * 16  # never issued (issued selectors are URL-safe base64 of 12 bytes)
_DUMMY_HASH = "0" * 64
#: the scopes an officer token may hold (a token without one is a player's own)
SCOPES = ("dealer",)


@dataclass(frozen=True)
class IssuedToken:
    player: str
    token: str  # shown once; never stored
    selector: str
    revoked: int  # earlier tokens of the player revoked by this issue
    scope: str | None = None


@dataclass(frozen=True)
class TokenView:
    player: str
    selector: str
    issued_at: str
    revoked_at: str | None
    scope: str | None = None


def verifier_hash(verifier: str) -> str:
    """A token's verifier as it is stored: its SHA-256, in hex."""
    return hashlib.sha256(verifier.encode("utf-8")).hexdigest()


def split_token(token: str) -> tuple[str, str]:
    """``(selector, verifier)``; a malformed token gives a selector that matches nothing."""
    selector, sep, verifier = token.strip().partition(".")
    if not sep or len(selector) != 16 or len(verifier) != 43:
        return _DUMMY_SELECTOR, verifier
    return selector, verifier


def check_scope(scope: str | None) -> str | None:
    """``scope`` as given to ``token issue --scope`` (None: a player's own token)."""
    if scope is None:
        return None
    if scope not in SCOPES:
        raise InputError(f"a token's scope is one of {', '.join(SCOPES)}, not {scope!r}")
    return scope


def issue_token(tx: Tx, player: str, *, keep_others: bool = False,
                scope: str | None = None) -> IssuedToken:
    """A new token for ``player``; their earlier tokens are revoked unless ``keep_others``.
    ``scope="dealer"`` makes an officer token, for the Dealer only: it may take the Dealer's
    actions on the server (deal, transfer, record votes, tick) for as long as its holder is the
    Dealer."""
    scope = check_scope(scope)
    return issue_in(tx, player, now=tx.clock.now(), keep_others=keep_others, scope=scope)


def issue_in(tx: Tx, player: str, *, now: datetime,
             keep_others: bool = False, scope: str | None = None) -> IssuedToken:
    """Inside a transaction: :func:`issue_token` (nothing is kept if the transaction is rolled
    back, as when mailing the token fails)."""
    from nomic_cards.core.store import tokens as stored

    state = tx.state
    player = require_active(state, player)
    if scope == "dealer" and state.dealer != player:
        raise RuleViolation(f"a token with the dealer scope is for the Dealer, and {player} is "
                            f"not the Dealer ({state.dealer or 'nobody'} is)")
    p = state.players[player]
    revoked = 0 if keep_others else stored.revoke(tx, at=now, player_id=p.id)
    selector, verifier = new_token()
    stored.add(tx, player_id=p.id, selector=selector,
               verifier_sha256=verifier_hash(verifier), at=now, scope=scope)
    return IssuedToken(player, f"{selector}.{verifier}", selector, revoked, scope)


def new_token() -> tuple[str, str]:
    """A fresh token's selector and verifier (``selector.verifier`` is the token)."""
    return secrets.token_urlsafe(SELECTOR_BYTES), secrets.token_urlsafe(VERIFIER_BYTES)


def keep_mailed(tx: Tx, player: str, selector: str, verifier: str) -> int:
    """Inside a transaction: keep the token a sending mailed to ``player`` on eir request
    (only its verifier's hash), revoking eir earlier tokens of eir own (an officer token
    stays); how many were revoked."""
    from nomic_cards.core.store import tokens as stored

    now = tx.clock.now()
    p = tx.state.players[player]
    revoked = stored.revoke_own(tx, at=now, player_id=p.id)
    stored.add(tx, player_id=p.id, selector=selector, verifier_sha256=verifier_hash(verifier),
               at=now)
    return revoked


def revoke_tokens(tx: Tx, *, player: str | None = None, selector: str | None = None) -> int:
    """Revoke every token of a player, or the one with ``selector``; how many were revoked."""
    from nomic_cards.core.store import tokens as stored

    now = tx.clock.now()
    if player is not None:
        player = require_player(tx.state, player)
        return stored.revoke(tx, at=now,
                                  player_id=tx.state.players[player].id)
    count = stored.revoke(tx, at=now, selector=selector)
    if count == 0:
        known = stored.selector_state(tx, selector or "")
        if known is None:
            raise NotFound(f"no token has the selector {selector!r} (see `nomic-cards "
                           "token list`); nothing was revoked")
        raise RuleViolation(f"the token with the selector {selector!r} was already "
                            f"revoked ({known}); nothing was revoked")
    return count


def revoke_all_of(tx: Tx, player_id: int, now: datetime) -> int:
    """Inside a transaction (retiring a player): revoke every token of the player."""
    from nomic_cards.core.store import tokens as stored

    return stored.revoke(tx, at=now, player_id=player_id)


def list_tokens(tx: Reads, player: str | None = None) -> list[TokenView]:
    """Tokens (without any secret), newest first."""
    if player is not None:
        player = require_player(tx.state, player)
    return [TokenView(n, sel, at.isoformat(), rv.isoformat() if rv else None, sc)
            for n, sel, at, rv, sc in tx.tokens(player)]


def check(row: reads.TokenRow | None, verifier: str) -> str | None:
    """The player a token belongs to, or None; constant time in the verifier, and the same work
    whether or not the selector matched."""
    expected = row.verifier_sha256 if row is not None else _DUMMY_HASH
    good = hmac.compare_digest(verifier_hash(verifier), expected)
    if row is None or not good or row.revoked or not row.active:
        return None
    return row.player


def accepted(r: reads.Reads, token: str) -> reads.TokenRow | None:
    """The stored row of ``token`` if it is valid, else None: one lookup by its selector and
    one constant-time comparison (:func:`check`), the same work for every token."""
    selector, verifier = split_token(token)
    row = r.token(selector)
    return row if check(row, verifier) is not None else None


# --- a token mailed to its player, all or nothing ----------------------------------------

#: what every refusal adds: nothing changed
UNCHANGED = "no token was issued or revoked"


@dataclass(frozen=True)
class MailedToken:
    """The token issued and the address it was mailed to."""

    issued: IssuedToken
    address: str


def mail_token(tx: Tx, player: str, *, smtp: str | mail.SmtpConfig,
               keep_others: bool = False, sender: str | None = None,
               base_url: str, scope: str | None = None) -> MailedToken:
    """Issue a token for ``player`` (revoking their earlier ones unless ``keep_others``) and
    mail it to their address, saying where to use it (``base_url``: the server's URL as players
    reach it) and what it lets its holder do. ``smtp`` as for
    :func:`~nomic_cards.core.services.send_notices`. Any failure leaves the player's tokens as
    they were (see the module docstring)."""
    from nomic_cards.core import mail  # smtplib and ssl: loaded by this command only

    scope = check_scope(scope)
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    server = mail.check_base_url(base_url)
    name = require_player(tx.state, player)
    p = tx.state.players[name]
    active, address = p.active, p.email
    if not active:
        raise RuleViolation(f"{name} has retired and is no longer a player; {UNCHANGED}")
    if not address:
        raise InputError(f"{name} has no e-mail address: set one with `nomic-cards player "
                         f"email` first; {UNCHANGED}")
    if not mail.is_address(address):
        raise InputError(f"{name}'s e-mail address {address!r} cannot be mailed to: set "
                         f"another with `nomic-cards player email`; {UNCHANGED}")
    try:
        with mail.Sender(config) as conn, tx.savepoint():
            issued = issue_in(tx, name, now=tx.clock.now(), keep_others=keep_others,
                              scope=scope)
            conn.send(mail.build_token_message(name, address, issued.token, sender=from_addr,
                                               now=tx.clock.now(), server=server,
                                               scope=scope))
    except mail.Refused as exc:
        raise mail.MailError(f"the SMTP server at {config} refused the mail to {address}: "
                             f"{exc}; {UNCHANGED}") from None
    except mail.MailError as exc:
        raise mail.MailError(f"{exc}; {UNCHANGED}") from None
    return MailedToken(issued, address)
