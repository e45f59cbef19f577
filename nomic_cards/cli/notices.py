"""``nomic-cards notices``: list the private notices, and send the unsent ones by e-mail."""

from __future__ import annotations

import typer

from nomic_cards.cli.common import (
    CA_FILE_OPTION,
    JSON_OPTION,
    TLS_OPTION,
    Tls,
    echo,
    emit_json,
    read,
    run_job,
)
from nomic_cards.errors import InputError

app = typer.Typer(help="Private notices: list them, and send the unsent ones by e-mail.",
                  no_args_is_help=True)


@app.command("list")
def list_notices(
    ctx: typer.Context,
    player: str = typer.Argument(None, help="Only this player's notices."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List private notices (what each player was told privately) and whether each was sent."""
    from nomic_cards.core.services.queries import notices

    rows = read(ctx, notices, player)
    if as_json:
        emit_json(rows)
        return
    for n in rows:
        mark = "" if n.sent else "  [not sent]" if n.refused is None else \
            f"  [not sent: refused for good at event {n.refused}]"
        echo(f"#{n.event:<5} to {n.player}: {n.text}{mark}")
    if not rows:
        echo("No notices.")


@app.command("send")
def send(
    ctx: typer.Context,
    smtp: str = typer.Option(..., "--smtp", metavar="HOST:PORT",
                             help="The SMTP server to hand the messages to."),
    tls: Tls = TLS_OPTION,
    cafile: str = CA_FILE_OPTION,
    sender: str = typer.Option(None, "--from", metavar="ADDR",
                               help="The From address (default: dealer@localhost)."),
    base_url: str = typer.Option(None, "--base-url", metavar="URL",
                                 envvar="NOMIC_CARDS_BASE_URL",
                                 help="The server's URL as players reach it (e.g. "
                                      "https://cards.example.org): each notice says to act "
                                      "on the game's page there."),
    as_json: bool = JSON_OPTION,
) -> None:
    """E-mail the due notices, one mail per player gathering all of eirs, each saying what,
    why, by when and where to act (at least once; see docs/notices.md).

    The login, if the server wants one, comes from the environment: NOMIC_CARDS_SMTP_USER and
    NOMIC_CARDS_SMTP_PASSWORD. One sender at a time: while another notices send runs on the
    game, this one sends nothing and exits 1 in one line. Exit 1 also when a notice was refused
    (for good: recorded and not tried again at that address; for now: tried again next run) or
    the connection was lost."""
    import os

    from nomic_cards.core import mail
    from nomic_cards.core.services.notices import send_notices

    if not base_url:
        raise InputError("notices send needs --base-url URL (or NOMIC_CARDS_BASE_URL): each "
                         "notice says where to act")
    page = mail.check_base_url(base_url)
    config = mail.smtp_config(smtp, tls=tls.value, cafile=cafile, environ=os.environ)
    report = run_job(ctx, send_notices, smtp=config, sender=sender, base_url=page)
    if as_json:
        emit_json(report)
    else:
        for n in report.sent:
            echo(f"sent    #{n.notice:<5} to {n.player} <{n.address}>  "
                 + (f"[event {n.event}]" if n.event is not None
                    else f"({n.reason or 'recorded sent by another run'})"))
        for n in report.failed:
            echo(f"failed  #{n.notice:<5} to {n.player} <{n.address}>: {n.reason}  "
                 f"[event {n.event}]")
        for n in report.retry:
            echo(f"retry   #{n.notice:<5} to {n.player} <{n.address}>: {n.reason}")
        for n in report.held:
            echo(f"held    #{n.notice:<5} to {n.player} <{n.address}>: {n.reason}")
        for n in report.skipped:
            echo(f"skipped #{n.notice:<5} {n.reason}")
        for q in report.requests:  # the links and tokens players asked for
            where = f" <{q.address}>" if q.address else ""
            echo(f"{q.what:<7} {q.outcome} to {q.player}{where} (asked by event {q.request})"
                 + (f": {q.reason}" if q.reason else "")
                 + (f"  [event {q.event}]" if q.event is not None else ""))
        later = f"; {len(report.later)} kept for a daily digest" if report.later else ""
        officer = (f"; {report.officer} for the Dealer, who reads them on the page"
                   if report.officer else "")
        echo(f"{len(report.sent)} notice(s) sent in {report.mails} mail(s) via {report.smtp}; "
             f"{len(report.failed)} refused for good; {len(report.retry)} left for the next "
             f"run; {len(report.held)} held (address refused, or not one address); "
             f"{len(report.skipped)} skipped (no address){later}{officer}.")
    if report.error is not None:
        raise mail.MailError(f"{report.error}; {len(report.sent)} sent, "
                             f"{len(report.retry)} left unsent for the next run")
    if not report.ok:
        raise mail.MailError(f"{len(report.failed)} notice(s) refused for good, "
                             f"{len(report.retry)} refused for now (tried again next run); "
                             f"{len(report.sent)} sent")
