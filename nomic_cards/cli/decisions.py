"""``nomic-cards decision`` (the nomic's decisions on the ledger: open, list, show, resolve) and
``nomic-cards strength`` (voting strengths), for the officer who collects the votes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from nomic_cards.cli import list_posting
from nomic_cards.cli.common import (
    JSON_OPTION,
    Tls,
    act_at,
    at_option,
    echo,
    emit_json,
    read,
    write,
)

if TYPE_CHECKING:
    from nomic_cards.core.store.reads import Reads
from nomic_cards.errors import InputError

decision_app = typer.Typer(help="The nomic's decisions: open one, list and show them, and "
                                "publish their resolution.", no_args_is_help=True)
strength_app = typer.Typer(help="Voting strengths on the nomic's decisions.",
                           no_args_is_help=True)

FORMATS = ("text", "agora", "json")


@decision_app.command("open")
def decision_open(
    ctx: typer.Context,
    id: str = typer.Argument(..., help="The decision's id, as the nomic numbers the proposal "
                                       "(9355)."),
    title: str = typer.Option(..., "--title", help="The proposal's title."),
    author: str = typer.Option(..., "--author", help="The proposal's author."),
    coauthor: list[str] = typer.Option([], "--coauthor", help="A co-author (repeatable)."),
    klass: str = typer.Option("ordinary", "--class", help="ordinary or democratic."),
    ai: str = typer.Option(..., "--ai", help="The adoption index, a decimal: 1.0 is a simple "
                                             "majority."),
    quorum: int = typer.Option(None, "--quorum", min=0, max=100000,
                               help="Distinct voters needed (default: the rule's)."),
    closes: str = typer.Option(None, "--closes", help="When voting ends (ISO time)."),
    days: int = typer.Option(None, "--days", min=1, max=365, help="Or: voting ends in N "
                                                                 "days."),
    text: str = typer.Option(None, "--text", metavar="FILE", help="The proposal's text."),
    source: str = typer.Option("", "--source", help="Where the proposal was distributed (a "
                                                    "message, an archive's address)."),
    strength_default: int = typer.Option(None, "--strength-default", min=0, max=15,
                                         help="A voter's strength on it (default: the "
                                              "rule's)."),
    strength: list[str] = typer.Option([], "--strength", metavar="PLAYER=N",
                                       help="One voter's strength on it (repeatable)."),
    change: list[str] = typer.Option([], "--change", metavar="COMMAND",
                                     help="A rule change it carries, recorded if it is "
                                          "adopted: 'rules amend RULE --set K=V' ... "
                                          "(repeatable)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Open a decision of the nomic until its close; every active player is told."""
    from nomic_cards.core.services.decisions import open_decision

    act_at(ctx, at)
    view = write(ctx, open_decision, id, title=title, author=author, ai=ai,
                 coauthors=coauthor, klass=klass, quorum=quorum, closes=closes, days=days,
                 text_file=text, source=source, strength_default=strength_default,
                 strengths=strength, changes=change)
    if as_json:
        emit_json(view)
        return
    echo(f"[event {view.event}] decision {view.id} ({view.title}) is open until {view.closes} "
         f"(AI={view.ai}, quorum {view.quorum}); {view.told} player(s) told")


@decision_app.command("list")
def decision_list(ctx: typer.Context, as_json: bool = JSON_OPTION) -> None:
    """Every decision, newest first: open, or its outcome."""
    from nomic_cards.core.services.decisions import decisions_list

    rows = read(ctx, decisions_list)
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        echo(f"{r.id:<10} {r.status:<13} closes {r.closes}  {r.ballots:>4} ballot(s)  "
             f"{r.title} ({r.author})")
    if not rows:
        echo("No decisions on the ledger.")


@decision_app.command("show")
def decision_show(
    ctx: typer.Context,
    id: str = typer.Argument(..., help="The decision's id."),
    fmt: str = typer.Option("text", "--format", help="text, agora (the Assessor's block) or "
                                                     "json."),
) -> None:
    """One decision: what it carries, every ballot standing (as cast, its source), and its
    resolution (or the tally as it stands)."""
    from nomic_cards.core.services import decisions

    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "agora":
        typer.echo(read(ctx, decisions.agora_block, id), nl=False)
        return
    d = read(ctx, decisions.decision_show, id)
    if fmt == "json":
        emit_json(d)
        return
    echo(f"Decision {d.id} ({d.title}) by {d.author}"
         + (f" with {', '.join(d.coauthors)}" if d.coauthors else "")
         + f"; {d.decision_class}, AI={d.ai}, quorum {d.quorum}, strength "
           f"{d.strength_default} unless noted")
    echo(f"  opened at event {d.opened}; voting ends {d.closes}"
         + (f"; source {d.source}" if d.source else ""))
    for c in d.changes:
        echo(f"  carries: {c}")
    for b in d.ballots:
        what = b.option if b.endorse is None else f"endorses {b.endorse} ({b.counts_as})"
        extra = (f"; as cast: {b.as_cast}" if b.as_cast else "") + \
            (f"; source {b.source}" if b.source else "")
        echo(f"  {b.player}: {what}, strength {b.strength}, cast {b.at} [event {b.event}]"
             f"{extra}")
    r = d.resolution or d.standing
    assert r is not None
    state = f"resolved at event {r.event}: {r.outcome}" if d.resolution else \
        f"as it stands: {r.outcome}"
    echo(f"  {state}; F/A {r.f}/{r.a}, {r.ballots} ballot(s), popularity {r.popularity}")


@decision_app.command("resolve")
def decision_resolve(
    ctx: typer.Context,
    ids: list[str] = typer.Argument(..., help="The decisions, in the order to publish them."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the resolution of decisions whose voting has ended, as the Assessor posts it (the
    periodic work resolves each at its close; this publishes it)."""
    from nomic_cards.core.services import decisions

    if as_json:
        emit_json(read(ctx, decisions.resolved, ids))
        return
    typer.echo(read(ctx, decisions.resolution_message, ids), nl=False)


@decision_app.command("post")
def decision_post(
    ctx: typer.Context,
    ids: list[str] = typer.Argument(None, help="The decisions, in the order to post them."),
    new: bool = typer.Option(False, "--new", help="Every resolved decision whose resolution "
                             "is not yet on the list, in one message (cron runs this)."),
    smtp: str = list_posting.smtp_option(),
    tls: Tls = list_posting.tls_option(),
    cafile: str = list_posting.cafile_option(),
    sender: str = list_posting.sender_option(),
    to_list: str = list_posting.list_option(),
    tag: str = list_posting.tag_option(),
    to: str = list_posting.to_option(),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Post the resolution of decisions whose voting has ended to the game's list by SMTP, as
    decision resolve prints it (its lines wrapped at 72 columns), recording the post's
    Message-ID; a resolution is posted once."""
    from nomic_cards.core.services import list_posts

    if new == bool(ids):
        raise typer.BadParameter("takes the decisions or --new", param_hint="IDS")
    act_at(ctx, at)
    named = list(ids or ())

    def build(tx: Reads, label: str) -> list[list_posts.Post]:
        return (list_posts.new_resolution_posts(tx, label) if new
                else [list_posts.resolution_post(tx, named, label)])

    list_posting.post_all(ctx, build, smtp=smtp, tls=tls, cafile=cafile, sender=sender,
                          to_list=to_list, tag=tag, to=to, as_json=as_json)


@strength_app.command("set")
def strength_set(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="Whose strength."),
    value: str = typer.Argument(..., help="The strength, 0 to 15, or 'default'."),
    reason: str = typer.Option(..., "--reason", help="Why (the rule, the report)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Set a player's voting strength on every decision closing from now on (unless the
    decision gives em another)."""
    from nomic_cards.core.services.decisions import set_strength
    from nomic_cards.inputs import ascii_int

    if value.strip().lower() == "default":
        n = None
    else:
        n = ascii_int(value.strip(), "the strength")
        if n is None:
            raise InputError(f"the strength is a whole number from 0 to 15, or 'default', not "
                             f"{value!r}")
    act_at(ctx, at)
    view = write(ctx, set_strength, player, n, reason=reason)
    if as_json:
        emit_json(view)
        return
    shown = "the default" if view.strength is None else str(view.strength)
    echo(f"[event {view.event}] {view.player}'s voting strength is {shown}: {view.reason}")
