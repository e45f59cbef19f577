"""The answer to a player's message: a receipt to eir registered address, In-Reply-To the
message, listing what was recorded and what was refused, one sentence each -- or saying that
the message waits for the officer, was rejected, or could not be read.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from email.message import EmailMessage

from nomic_cards.core.services.mail_in import MessageView
from nomic_cards.mail import posting
from nomic_cards.mail.parse import MADE_UP

#: the domain of the receipts' own Message-IDs
DOMAIN = "nomic-cards"


def receipt_id(view: MessageView) -> str:
    """The receipt's Message-ID: the same message in the same state always gets the same one,
    so a copy sent twice can be recognised."""
    digest = hashlib.sha256(f"{view.message_id} {view.status}".encode()).hexdigest()[:24]
    return f"<receipt-{view.id}.{view.status}.{digest}@{DOMAIN}>"


def _quoted(line: str) -> str:
    return f'"{line}"' if len(line) <= 120 else f'"{line[:119]}\N{HORIZONTAL ELLIPSIS}"'


def receipt_text(view: MessageView) -> str:
    """What the receipt says."""
    player = view.player or "Player"
    which = f"your message {view.message_id}" + (f' ("{view.subject}")' if view.subject else "")
    if view.status == "pending":
        return (f"{player}, a message from your address reached the game ({which}), but "
                f"it was not authenticated ({view.auth or 'no DKIM signature verifies'}).\n\n"
                "Nothing in it was recorded: it waits for the officer, who will accept or "
                "reject it. If you did not send it, tell the officer.\n")
    if view.status == "rejected":
        return (f"{player}, the officer rejected {which}: {view.reason}.\n\n"
                "Nothing in it was recorded.\n")
    if view.status == "refused":
        return (f"{player}, the game could not read {which}: {view.reason}.\n\n"
                "Nothing in it was recorded.\n")
    done = [r for r in view.results if r.get("recorded")]
    refused = [r for r in view.results if not r.get("recorded")]
    parts = [f"{player}, the game read {which}."]
    if done:
        parts.append("Recorded:\n" + "\n".join(f"- {_quoted(r['line'])}: {r['text']}."
                                              for r in done))
    if refused:
        parts.append("Refused:\n" + "\n".join(f"- {_quoted(r['line'])}: {r['text']}."
                                             for r in refused))
    if not view.results:
        parts.append("Nothing in it was read as a ballot or an action, so nothing was "
                     "recorded.")
    if view.unread:
        parts.append(f"{len(view.unread)} other line(s) were not read as a ballot or an "
                     "action; they are kept with the message.")
    return "\n\n".join(parts) + "\n"


def build(view: MessageView, *, address: str, sender: str, now: datetime) -> EmailMessage:
    """The receipt for message ``view`` to its player at ``address``."""
    subject = view.subject or "your message to the game"
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    answered = None if view.message_id.endswith(f"@{MADE_UP}>") else view.message_id
    return posting.message(to=address, name=view.player, subject=subject,
                           body=receipt_text(view), sender=sender, now=now,
                           message_id=receipt_id(view), in_reply_to=answered)
