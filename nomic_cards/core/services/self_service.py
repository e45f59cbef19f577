"""Use cases for a player's own mail business, taken through the server (docs/notices.md,
"Your address, your token, how often you are mailed"): choose how often eir notices are
mailed, ask to change eir address (confirmed by a link mailed to the new address), confirm
that change, and ask for a new token mailed to eir registered address.

Each records a ledger event in the transaction it is given. The mails themselves -- the
confirmation link, the new token -- go with the next sending of the notices
(:func:`~nomic_cards.core.services.notices.send_notices`, every five minutes from cron), which
alone may read the addresses: the server's account never reads one. A link's secret and a
token are made by that sending, mailed, and kept only as their SHA-256.

Asking for an address change or a new token is limited to :data:`EVERY` and
:data:`A_DAY` times a day per player and per kind, counted on the ledger (every worker and
every host sees the same count), so that no one can flood a mailbox through the game.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger import mailing
from nomic_cards.core.services.common import iso, require_active
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, RuleViolation
from nomic_cards.inputs import check_address

__all__ = ["A_DAY", "EVERY", "LINK_GOOD_FOR", "AddressAsked", "Confirmed", "MailChoice",
           "TokenAsked", "TooSoon", "ask_address", "ask_token", "choose_mail",
           "confirm_address", "expires_at", "link_hash", "new_secret", "parse_link"]

#: the shortest time between two requests of one kind by (or for) one player
EVERY = timedelta(minutes=15)
#: the most requests of one kind by (or for) one player in 24 hours
A_DAY = 4
#: how long a confirmation link may be followed after it was mailed
LINK_GOOD_FOR = timedelta(hours=48)
#: what every bad, used, replaced or expired link is told, alike
_LINK_GONE = ("this confirmation link is not good (it was followed already, a newer one "
              "replaced it, or it expired): ask for the change again")


class TooSoon(RuleViolation):
    """A request past the limits; ``wait``: the seconds until the next may be made."""

    def __init__(self, text: str, wait: float) -> None:
        super().__init__(text)
        self.wait = wait


def _limit(tx: Tx, player: str, what: str, label: str) -> None:
    """Refuse (:class:`TooSoon`) a request of ``what`` past the limits."""
    now = tx.clock.now()
    times = [t for t in mailing.asked(tx.state, player, what) if t > now - mailing.ASKED_FOR]
    if times and now - times[-1] < EVERY:
        wait = (times[-1] + EVERY - now).total_seconds()
        raise TooSoon(f"{label} was asked for {player} less than {_minutes(EVERY)} ago: look "
                      f"for the mail, or ask again after {iso(times[-1] + EVERY)}", wait)
    if len(times) >= A_DAY:
        wait = (times[-A_DAY] + mailing.ASKED_FOR - now).total_seconds()
        raise TooSoon(f"{label} was asked for {player} {A_DAY} times in 24 hours, the most: "
                      f"ask again after {iso(times[-A_DAY] + mailing.ASKED_FOR)}", wait)


def _minutes(span: timedelta) -> str:
    return f"{int(span.total_seconds() // 60)} minutes"


@dataclass(frozen=True)
class MailChoice:
    player: str
    mail: str
    event: int


def choose_mail(tx: Tx, player: str, mail: str) -> MailChoice:
    """``player`` chooses how eir notices are mailed: ``each`` sending (as they come, within
    minutes) or ``daily`` (one digest a day, after 00:00 UTC; what would otherwise come less
    than 12 hours before its deadline still goes at once)."""
    name = require_active(tx.state, player)
    how = mail.strip().lower()
    if how not in ev.MAIL_CHOICES:
        raise InputError(f"mail is {' or '.join(ev.MAIL_CHOICES)}, not {mail[:40]!r}")
    rec = tx.record(ev.MailChosen(name, how))[0]
    return MailChoice(name, how, rec.seq)


@dataclass(frozen=True)
class AddressAsked:
    player: str
    address: str
    event: int


def ask_address(tx: Tx, player: str, address: str) -> AddressAsked:
    """``player`` asks to be mailed at ``address`` from now on: the next sending mails a
    confirmation link to that address, and the address changes when the link is followed
    (within :data:`LINK_GOOD_FOR`). A newer request replaces one waiting."""
    name = require_active(tx.state, player)
    new = check_address(address.strip(), "the new address")
    _limit(tx, name, "address", "an address change")
    rec = tx.record(ev.AddressAsked(name, new))[0]
    return AddressAsked(name, new, rec.seq)


def new_secret() -> str:
    """A confirmation link's secret (URL-safe, 32 characters)."""
    return secrets.token_urlsafe(24)


def link_hash(secret: str) -> str:
    """A confirmation link's secret as the ledger keeps it: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_link(link: str) -> tuple[int, str]:
    """``REQUEST.SECRET`` (what follows ``#`` in the link mailed) as its two parts."""
    seq, sep, secret = link.strip().lstrip("#").partition(".")
    if not sep or not seq.isascii() or not seq.isdigit() or len(seq) > 15 or \
            not 20 <= len(secret) <= 100:
        raise InputError("not a confirmation link: give what follows # in the link mailed "
                         "to you")
    return int(seq), secret


@dataclass(frozen=True)
class Confirmed:
    player: str
    address: str
    event: int


def confirm_address(tx: Tx, link: str) -> Confirmed:
    """Follow a confirmation link: the address change it was mailed for is made, if it is
    the player's latest, its secret matches (compared in constant time) and it has not
    expired; every other link is refused alike."""
    request, secret = parse_link(link)
    now = tx.clock.now()
    found = None
    for name in sorted(tx.state.players):
        pending = mailing.address_pending(tx.state, name)
        if pending is not None and pending["request"] == request and "link" in pending:
            found = (name, pending)
    expected = found[1]["sha"] if found is not None else "0" * 64
    good = hmac.compare_digest(link_hash(secret), expected)
    if found is None or not good or now >= ev.parse_time(found[1]["expires"]):
        raise RuleViolation(_LINK_GONE)
    name = require_active(tx.state, found[0])
    rec = tx.event_at(request)
    if rec is None or not isinstance(rec.event, ev.AddressAsked) or not rec.event.email:
        raise RuleViolation(_LINK_GONE)
    new = rec.event.email
    seq = tx.record(ev.PlayerEmailSet(name, new, request))[0].seq
    return Confirmed(name, new, seq)


@dataclass(frozen=True)
class TokenAsked:
    player: str
    event: int


def ask_token(tx: Tx, player: str) -> TokenAsked:
    """A new token for ``player``, mailed by the next sending to eir registered address; eir
    earlier player tokens are revoked when it is (officer tokens are not). Anyone may ask,
    knowing the name alone: only the registered address receives the token."""
    name = require_active(tx.state, player)
    _limit(tx, name, "token", "a new token")
    rec = tx.record(ev.TokenAsked(name))[0]
    return TokenAsked(name, rec.seq)


def expires_at(now: datetime) -> str:
    """When a link mailed now stops being good, as events write times."""
    return (now + LINK_GOOD_FOR).strftime("%Y-%m-%dT%H:%M:%SZ")
