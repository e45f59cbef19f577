"""Posting to the game's list by SMTP, for ``report --post`` and ``decision post``: the
options they share, and the loop that sends each message and then records its Message-ID
(``list.posted``) -- the SMTP server is talked to with no transaction open, and a message the
server does not take is not recorded, so the next run posts it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import typer

from nomic_cards.cli.common import Tls, echo, emit_json, read, write

if TYPE_CHECKING:
    from nomic_cards.core.services.list_posts import Post
    from nomic_cards.core.store.reads import Reads


def smtp_option() -> Any:
    return typer.Option(None, "--smtp", metavar="HOST:PORT", envvar="NOMIC_CARDS_SMTP",
                        help="With --post: the SMTP server to hand the message to.")


def tls_option() -> Any:
    return typer.Option(Tls.none, "--tls", envvar="NOMIC_CARDS_SMTP_TLS",
                        help="As for notices send: none, starttls or ssl.")


def cafile_option() -> Any:
    return typer.Option(None, "--ca-file", metavar="PATH", envvar="NOMIC_CARDS_SMTP_CA_FILE",
                        help="As for notices send: the CA of the mail server's certificate.")


def sender_option() -> Any:
    return typer.Option(None, "--from", metavar="ADDR", envvar="NOMIC_CARDS_FROM",
                        help="The From address (default: dealer@localhost).")


def list_option() -> Any:
    return typer.Option(None, "--list", metavar="ADDR", envvar="NOMIC_CARDS_LIST",
                        help="The game's list, where reports and resolutions are posted.")


def tag_option() -> Any:
    return typer.Option(None, "--tag", metavar="TAG", envvar="NOMIC_CARDS_LIST_TAG",
                        help="What each Subject starts with (default: 'OFF: [Dealer]').")


def to_option() -> Any:
    return typer.Option(None, "--to", metavar="ADDR",
                        help="Post a copy to this address instead of the list (recorded as a "
                             "copy: the list still gets its post).")


def post_all(ctx: typer.Context, build: Callable[[Reads, str], list[Post]], *,
             smtp: str | None, tls: Tls, cafile: str | None, sender: str | None,
             to_list: str | None, tag: str | None, to: str | None, as_json: bool) -> None:
    """Build the posts (``build(tx, tag)``, refused in one line when one is already on the
    list), send each to the list (or ``to``) and record it, then say what was posted."""
    import os
    from contextlib import ExitStack
    from datetime import datetime

    from nomic_cards.core import mail
    from nomic_cards.core.services import list_posts
    from nomic_cards.errors import InputError
    from nomic_cards.inputs import check_address
    from nomic_cards.mail import posting

    config = list_posts.list_config(to_list, tag)
    if config is None and to is None:
        raise InputError("set NOMIC_CARDS_LIST (or --list) to the game's list address, or "
                         "give --to ADDR")
    if not smtp:
        raise InputError("posting needs --smtp HOST:PORT (or NOMIC_CARDS_SMTP)")
    box = posting.outbox(smtp, tls=tls.value, cafile=cafile, sender=sender, environ=os.environ)
    assert box is not None
    address = check_address(to.strip(), "--to") if to is not None else \
        config.address if config else ""
    copy = to is not None

    def due(tx: Reads) -> tuple[list[Post], datetime]:
        posts = build(tx, config.tag if config else list_posts.DEFAULT_TAG)
        if not copy:
            for p in posts:
                list_posts.check_not_posted(tx, p)
        return posts, tx.clock.now()

    posts, now = read(ctx, due)
    done: list[dict[str, object]] = []
    try:
        with ExitStack() as connection:
            # one connection for every post (none opened when there is nothing to post)
            conn = connection.enter_context(mail.Sender(box.smtp)) if posts else None
            for p in posts:
                assert conn is not None
                conn.send(posting.message(to=address, subject=p.subject, body=p.body,
                                          sender=box.sender, now=now,
                                          message_id=p.message_id))
                seq = write(ctx, list_posts.record_post, p, address, to_list=not copy)
                done.append({"what": p.what, "ids": list(p.ids), "subject": p.subject,
                             "message_id": p.message_id, "to": address, "to_list": not copy,
                             "event": seq})
    except Exception:
        _said(done, as_json)
        raise
    _said(done, as_json)


def _said(done: Sequence[dict[str, object]], as_json: bool) -> None:
    if as_json:
        emit_json(list(done))
        return
    for d in done:
        mark = f"[event {d['event']}] " if d["event"] is not None else ""
        echo(f"{mark}posted {d['subject']!s} to {d['to']!s} as {d['message_id']!s}")
