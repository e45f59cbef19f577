"""Use case: mail a newly issued token to its player, through the notice mailer."""

from __future__ import annotations

from nomic_cards.core import mail
from nomic_cards.core.game import Game
from nomic_cards.core.rules import names
from nomic_cards.errors import InputError


def mail_token(game: Game, player: str, token: str, *, smtp: str | mail.SmtpConfig,
               sender: str | None = None, server: str | None = None) -> str:
    """Send ``token`` to ``player``'s address; returns the address. ``smtp`` as for
    :func:`~nomic_cards.core.services.send_notices`."""
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    with game.read() as uow:
        found = names.find(uow.state.players, player)
        p = uow.state.players[found] if found is not None else None
        address = p.email if p is not None else None
    if not address:
        raise InputError(f"{player} has no e-mail address: set one with `nomic-cards player "
                         "email` (the token was issued; revoke it or show it instead)")
    with mail.Sender(config) as conn:
        conn.send(mail.build_token_message(player, address, token, sender=from_addr,
                                           now=game.clock.now(), server=server))
    return address
