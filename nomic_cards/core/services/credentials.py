"""Use case: issue a player's token and mail it to them, all or nothing.

Everything that can be checked beforehand is checked before any token is issued or revoked:
the mail settings, the sender, the server's URL, the player and their address, and the SMTP
connection itself (reached, secured, logged in). The token is then issued in a unit of work
that commits only once the SMTP server has accepted the message: if the server refuses it or
the connection is lost, the unit of work is rolled back and the player's tokens are exactly as
they were. The ledger lock is held only while that one message is handed over on the
connection already open.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.core import mail
from nomic_cards.core.game import Game
from nomic_cards.core.services.common import require_player
from nomic_cards.core.services.tokens import IssuedToken, issue_in
from nomic_cards.errors import InputError, RuleViolation

#: what every refusal adds: nothing changed
UNCHANGED = "no token was issued or revoked"


@dataclass(frozen=True)
class MailedToken:
    """The token issued and the address it was mailed to."""

    issued: IssuedToken
    address: str


def mail_token(game: Game, player: str, *, smtp: str | mail.SmtpConfig,
               keep_others: bool = False, sender: str | None = None,
               base_url: str | None = None) -> MailedToken:
    """Issue a token for ``player`` (revoking their earlier ones unless ``keep_others``) and
    mail it to their address; with ``base_url`` (the server's URL) the mail says where to use
    it. ``smtp`` as for :func:`~nomic_cards.core.services.send_notices`. Any failure leaves the
    player's tokens as they were (see the module docstring)."""
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    server = mail.check_base_url(base_url) if base_url is not None else None
    with game.read() as uow:
        name = require_player(uow.state, player)
        p = uow.state.players[name]
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
        with mail.Sender(config) as conn, game.unit_of_work() as uow:
            issued = issue_in(uow, name, now=game.clock.now(), keep_others=keep_others)
            conn.send(mail.build_token_message(name, address, issued.token, sender=from_addr,
                                               now=game.clock.now(), server=server))
    except mail.Refused as exc:
        raise mail.MailError(f"the SMTP server at {config} refused the mail to {address}: "
                             f"{exc}; {UNCHANGED}") from None
    except mail.MailError as exc:
        raise mail.MailError(f"{exc}; {UNCHANGED}") from None
    return MailedToken(issued, address)
