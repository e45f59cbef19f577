"""Commands for game time: the Clock, votes, the periodic ``tick`` and the Dealer's Report."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from nomic_cards.cli import list_posting
from nomic_cards.cli.common import (
    DB_INT_MAX,
    JSON_OPTION,
    ReportFormat,
    Tls,
    act_at,
    at_option,
    echo,
    emit_json,
    nweek_lines,
    open_nomic,
    read,
    write,
)

if TYPE_CHECKING:
    from nomic_cards.core.services.votes import VoteImport
    from nomic_cards.core.store.reads import Reads

clock_app = typer.Typer(help="The game Clock: nweeks and ndays; stop and start.",
                        invoke_without_command=True)


@clock_app.callback()
def clock_show(
    ctx: typer.Context,
    at: str = typer.Option(None, "--at", help="Convert this ISO time instead of now."),
    nweek: int = typer.Option(None, "--nweek", min=1, max=DB_INT_MAX,
                              help="Show when this nweek begins."),
    nday: int = typer.Option(1, "--nday", min=1, max=DB_INT_MAX, help="With --nweek: which nday."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show the current nweek and nday (or convert a time, or find when an nweek begins)."""
    if ctx.invoked_subcommand is not None:
        return
    from nomic_cards.core.services.time import clock_status, nweek_start

    if nweek is not None:
        start = read(ctx, nweek_start, nweek, nday)
        if as_json:
            emit_json({"nweek": nweek, "nday": nday, "starts": start})
        else:
            echo(f"nweek {nweek} nday {nday} begins {start}" if start else
                 f"nweek {nweek} nday {nday}: not yet fixed (the Clock is Off before it)")
        return
    view = read(ctx, clock_status, at=at)
    if as_json:
        emit_json(view)
        return
    status = "running" if view.running else "OFF (game time is not advancing)"
    echo(f"{view.at}: nweek {view.nweek}, nday {view.nday} of {view.nweek_days}; Clock {status}")
    following = (f"the next begins {view.next_nweek_start}" if view.next_nweek_start else
                 "the next start is unknown while the Clock is Off")
    echo(f"  this nweek began {view.nweek_start}; {following}")
    echo(f"  epoch {view.epoch}; last nweek started: {view.last_ticked_nweek}")


@clock_app.command("stop")
def clock_stop(
    ctx: typer.Context, at: str = at_option(), as_json: bool = JSON_OPTION) -> None:
    """Switch the Clock Off: game time stops advancing."""
    from nomic_cards.core.services.time import clock_stop

    act_at(ctx, at)
    at = write(ctx, clock_stop)
    emit_json({"clock": "off", "at": at}) if as_json else echo(f"Clock switched Off at {at}.")


@clock_app.command("start")
def clock_start(
    ctx: typer.Context, at: str = at_option(), as_json: bool = JSON_OPTION) -> None:
    """Switch the Clock On again."""
    from nomic_cards.core.services.time import clock_start

    act_at(ctx, at)
    at = write(ctx, clock_start)
    emit_json({"clock": "on", "at": at}) if as_json else echo(f"Clock switched On at {at}.")


vote_app = typer.Typer(help="Votes: record one (cast) or import the vote counter's CSV file.",
                       no_args_is_help=True)


def _print_votes(result: VoteImport, as_json: bool) -> None:
    if as_json:
        emit_json(result)
    else:
        echo(f"{result.recorded} vote(s) recorded, {result.already} already recorded"
             + (f" [event {result.event}]" if result.event else ""))
        for late in result.late:
            echo(f"  late: {late.player}'s vote in nweek {late.nweek} came after that nweek's "
                 f"Cards for Votes were dealt ({late.cards_dealt_at}): {late.outcome}"
                 + (f" [event {late.event}]" if late.event else ""))


@vote_app.command("cast")
def vote_cast(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The voter."),
    proposal: str = typer.Option(..., "--proposal", help="The proposal voted on (a decision "
                                                         "of the ledger: a ballot)."),
    option: str = typer.Option(None, "--option", help="FOR, AGAINST or PRESENT: the ballot's "
                                                      "option."),
    endorse: str = typer.Option(None, "--endorse", help="Or: the player whose ballot this one "
                                                        "follows."),
    as_cast: str = typer.Option("", "--as-cast", help="The ballot in the voter's own words "
                                                      "(a conditional one as written)."),
    source: str = typer.Option("", "--source", help="Where it was cast (a message, an "
                                                    "archive's address)."),
    comment: str = typer.Option("", "--comment", help="The officer's note, published with "
                                                      "the resolution."),
    at: str = typer.Option(None, "--at", help="When the vote was cast (ISO; default now)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record one vote: on a decision of the ledger a ballot (a later one replaces the
    player's earlier ballot), on any other proposal a vote (recording it twice changes
    nothing)."""
    from nomic_cards.core.services.votes import cast_vote

    cast = write(ctx, cast_vote, player, proposal, option=option, endorse=endorse,
                 as_cast=as_cast, source=source, comment=comment, at=at)
    if cast.votes is not None:
        for given in cast.dropped:
            echo(f"note: no decision {proposal.strip()} is on the ledger: recorded as a vote, "
                 f"{given} not kept", err=True)
        _print_votes(cast.votes, as_json)
        return
    b = cast.ballot
    assert b is not None
    if as_json:
        emit_json(b)
        return
    what = b.option if b.endorse is None else f"endorses {b.endorse}"
    replaced = f", replacing event {b.replaced}" if b.replaced else ""
    echo(f"[event {b.event}] {b.player}'s ballot on decision {b.decision}: {what} (cast "
         f"{b.at}{replaced})")
    for late in b.late:
        echo(f"  late: the ballot in nweek {late.nweek} came after that nweek's Cards for "
             f"Votes were dealt ({late.cards_dealt_at}): {late.outcome}"
             + (f" [event {late.event}]" if late.event else ""))


@vote_app.command("import")
def vote_import(
    ctx: typer.Context,
    file: str = typer.Argument(..., help="The vote counter's CSV file (player,proposal,time; "
                                         "or player,proposal,option,time,source,as_cast)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Import the vote counter's CSV file: all its rows or, if any row is bad, none. Importing
    the same file twice changes nothing."""
    from nomic_cards.core.services.votes import import_votes

    act_at(ctx, at)
    _print_votes(write(ctx, import_votes, file), as_json)


def tick(
    ctx: typer.Context, at: str = at_option(), as_json: bool = JSON_OPTION) -> None:
    """Do everything due since the last tick, nweek by nweek (meant for cron): publish the
    report of the nweek that ended, open the new nweek's dice period, deal Cards for Votes,
    close the card games' windows that ended. All in one transaction, printed once
    committed."""
    from nomic_cards.core.services.time import tick

    act_at(ctx, at)
    windows: list[str] = []
    with open_nomic(ctx) as nomic, nomic.write(catch_up=False) as tx:
        started = tick(tx, on_window=windows.append)
    if as_json:
        emit_json(started)
        return
    for n in started:
        echo("\n".join(nweek_lines(n)))
    for line in windows:
        echo(line)
    if not started and not windows:
        echo("Nothing due.")


def report(
    ctx: typer.Context,
    nweek: int = typer.Argument(None, min=1, max=DB_INT_MAX,
                                help="Which nweek (default: the latest published)."),
    fmt: ReportFormat = typer.Option("text", "--format", help="text, markdown or json."),
    as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    new: bool = typer.Option(False, "--new", help="Print every published report not yet "
                             "posted to the game's list, oldest first, and record them as "
                             "posted (cron runs this after tick)."),
    post: bool = typer.Option(False, "--post", help="Post the report of NWEEK (with --new: "
                              "every published report not yet posted) to the game's list by "
                              "SMTP, recording each post's Message-ID; a report is posted "
                              "once."),
    smtp: str = list_posting.smtp_option(),
    tls: Tls = list_posting.tls_option(),
    cafile: str = list_posting.cafile_option(),
    sender: str = list_posting.sender_option(),
    to_list: str = list_posting.list_option(),
    tag: str = list_posting.tag_option(),
    to: str = list_posting.to_option(),
    at: str = at_option(),
) -> None:
    """Print the Dealer's Report for an nweek, exactly as published (an nweek not yet reported
    is shown as a preview, marked so on stderr); with --post, post it to the game's list."""
    from nomic_cards.core.services.reports import new_reports, report

    act_at(ctx, at)
    form = "json" if as_json else str(fmt)
    if post:
        from nomic_cards.core.services import list_posts

        if new == (nweek is not None):
            raise typer.BadParameter("takes NWEEK or --new", param_hint="--post")
        n = nweek

        def build(tx: Reads, label: str) -> list[list_posts.Post]:
            return (list_posts.new_report_posts(tx, label) if n is None
                    else [list_posts.report_post(tx, n, label)])

        list_posting.post_all(ctx, build, smtp=smtp, tls=tls, cafile=cafile, sender=sender,
                              to_list=to_list, tag=tag, to=to, as_json=as_json)
        return
    if new:
        if nweek is not None:
            raise typer.BadParameter("takes no NWEEK with --new", param_hint="--new")
        for i, posted in enumerate(write(ctx, new_reports, fmt=form)):
            typer.echo(("\n" if i else "") + posted.body, nl=False)
        return
    view = read(ctx, report, nweek, fmt=form)
    if not view.published:
        typer.echo(f"(preview: the report for nweek {view.nweek} is not published yet)", err=True)
    typer.echo(view.body, nl=False)
