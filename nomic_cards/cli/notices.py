"""``nomic-cards notices``: list the private notices, and send the unsent ones by e-mail."""

from __future__ import annotations

import typer

from nomic_cards.cli._common import JSON_OPTION, call, echo, emit_json

app = typer.Typer(help="Private notices: list them, and send the unsent ones by e-mail.",
                  no_args_is_help=True)


@app.command("list")
def list_notices(
    ctx: typer.Context,
    player: str = typer.Argument(None, help="Only this player's notices."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List private notices (what each player was told privately) and whether each was sent."""
    from nomic_cards.core import services

    rows = call(ctx, services.notices, player)
    if as_json:
        emit_json(rows)
        return
    for n in rows:
        echo(f"#{n.event:<5} to {n.player}: {n.text}" + ("" if n.sent else "  [not sent]"))
    if not rows:
        echo("No notices.")


@app.command("send")
def send(
    ctx: typer.Context,
    smtp: str = typer.Option(..., "--smtp", metavar="HOST:PORT",
                             help="The SMTP server to hand the messages to (no TLS, no login)."),
    sender: str = typer.Option(None, "--from", metavar="ADDR",
                               help="The From address (default: dealer@localhost)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """E-mail each unsent notice, once, to its player's address.

    Players without an address are skipped and their notices stay unsent. If the server
    refuses a message the batch stops (exit 1): those sent stay sent, the rest are retried next
    time."""
    from nomic_cards.core import services
    from nomic_cards.core.mail import MailError

    report = call(ctx, services.send_notices, smtp=smtp, sender=sender)
    if as_json:
        emit_json(report)
    else:
        for n in report.sent:
            echo(f"sent    #{n.notice:<5} to {n.player} <{n.address}>  [event {n.event}]")
        for n in report.skipped:
            echo(f"skipped #{n.notice:<5} {n.reason}")
        echo(f"{len(report.sent)} notice(s) sent via {report.smtp}; "
             f"{len(report.skipped)} skipped (no address).")
    if report.failed is not None:
        f = report.failed
        raise MailError(f"notice #{f.notice} to {f.player} not sent: {f.reason}; "
                        f"{len(report.sent)} sent, {report.unsent} left unsent for the next run")

