"""``nomic-cards pooker``: Pooker's commands (mounted by the command line from the game's
declaration): each side's trade notification, Motions and votes, Showdowns, and what a Player
or the Dealer sees (``status``, ``advise``). Every act is also an action, ``nomic-cards act
pooker.<action>``, and on the server."""

from __future__ import annotations

import typer

from nomic_cards.cli.common import JSON_OPTION, act_at, at_option, echo, emit_json, read, write
from nomic_cards.errors import InputError

app = typer.Typer(help="Pooker (card game, rule 399): trades, Motions to Show Cards, "
                       "Showdowns.", no_args_is_help=True)
showdown_app = typer.Typer(help="Showdowns: open one.", no_args_is_help=True)
app.add_typer(showdown_app, name="showdown")


@app.command("trade")
def trade(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The Player whose notification this is."),
    give: list[str] = typer.Option(..., "--give", help="PCards e gives (Red As, or numbers; "
                                                       "comma-separated or repeated)."),
    get: list[str] = typer.Option(..., "--get", help="PCards e expects in return."),
    other: str = typer.Option(..., "--with", help="The other side of the trade."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record one side's private notification of a trade; when the other side's matching one
    is pending, the trade is executed at once (one event; a fee to the Dealer each side)."""
    from nomic_cards.cardgames.pooker.rules import trade as do_trade

    act_at(ctx, at)
    r = write(ctx, do_trade, player, give, get, other)
    if as_json:
        emit_json(r)
        return
    if r.traded is None:
        echo(f"[event {r.notified}] {r.player}'s notification recorded; it waits for "
             f"{r.other}'s until {r.expires}")
    else:
        echo(f"[event {r.notified}] {r.player}'s notification matched: [event {r.traded}] "
             f"{r.player} and {r.other} traded {r.cards} PCard(s)")


@app.command("motion")
def motion(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The Player making the Motion to Show Cards."),
    at: str = at_option(),
) -> None:
    """Record a Motion to Show Cards (none pending; a Player with PCards)."""
    from nomic_cards.cardgames.pooker.rules import motion as do_motion

    act_at(ctx, at)
    r = write(ctx, do_motion, player)
    echo(f"[event {r.event}] Motion {r.number} to Show Cards by {player}")


@app.command("vote")
def vote(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The voting Player."),
    choice: str = typer.Argument(..., help="yes or no."),
    at: str = at_option(),
) -> None:
    """Record a vote on the pending Motion; a Motion that passes opens a Showdown."""
    from nomic_cards.cardgames.pooker.rules import vote as do_vote

    if choice.lower() not in ("yes", "no"):
        raise InputError(f"the vote is yes or no, not {choice!r}")
    act_at(ctx, at)
    r = write(ctx, do_vote, player, choice.lower() == "yes")
    opened = f"; it passed: Showdown {r.showdown} is open" if r.showdown else ""
    echo(f"[event {r.event}] Motion {r.number}: {r.yes} yes, {r.no} no of {r.players} "
         f"Players{opened}")


@showdown_app.command("open")
def showdown_open(
    ctx: typer.Context,
    motion_passed: str = typer.Option(None, "--motion-passed",
                                      help="The Motion to Show Cards that passed."),
    ten: str = typer.Option(None, "--ten", help="The Player holding ten or more PCards who "
                                                "declares the Showdown."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Open a Showdown; `tick` closes it when showing ends."""
    from nomic_cards.cardgames.pooker.rules import showdown_open as do_open

    if (motion_passed is None) == (ten is None):
        raise InputError("give exactly one of --motion-passed TEXT and --ten PLAYER")
    act_at(ctx, at)
    r = write(ctx, do_open, motion_passed=motion_passed, ten=ten)
    if as_json:
        emit_json(r)
        return
    echo(f"[event {r.event}] Showdown {r.number} is open: show until {r.ends}")


@app.command("show")
def show_cards(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The Player showing."),
    hand: list[str] = typer.Option(..., "--hand", help="A Poker Hand: 1 to 5 PCards, "
                                                       "comma-separated (repeatable)."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show PCards at the open Showdown, arranged into Poker Hands (public)."""
    from nomic_cards.cardgames.pooker.rules import show as do_show

    act_at(ctx, at)
    r = write(ctx, do_show, player, hand)
    if as_json:
        emit_json(r)
        return
    hands = "; ".join(", ".join(h) for h in r.hands)
    echo(f"[event {r.event}] {r.player} shows at Showdown {r.showdown}: {hands} "
         f"(Score {r.score})")


@app.command("status")
def status(
    ctx: typer.Context,
    reveal: bool = typer.Option(False, "--reveal",
                                help="Also every pending trade notification (Dealer only)."),
    player: str = typer.Option(None, "--player",
                               help="Also this Player's own pending notifications."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Pooker now: the open Showdown and what was shown, the pending Motion, the last
    Showdown's result."""
    from nomic_cards.cardgames.pooker.view import status as do_status

    v = read(ctx, do_status, reveal=reveal, player=player)
    if as_json:
        emit_json(v)
        return
    if not v.in_force:
        echo("card game pooker is not in force")
        return
    echo(f"Pooker: {v.showdowns} Showdown(s) so far; trade fee {v.params['trade-fee']}")
    if v.motion:
        echo(f"Motion {v.motion['number']} to Show Cards by {v.motion['by']}: "
             f"{len(v.motion['yes'])} yes, {len(v.motion['no'])} no")
    if v.showdown:
        s = v.showdown
        ended = " (showing has ended: the next tick closes it)" if s.ended else ""
        echo(f"Showdown {s.number} open until {s.ends}{ended}")
        for p, hands in s.shown.items():
            echo(f"  {p}: " + "; ".join(", ".join(h) for h in hands))
    if v.last:
        won = ", ".join(v.last["winners"]) or "nobody"
        echo(f"Last Showdown ({v.last['number']}): won by {won}, prize {v.last['prize']}")
    for n in v.pending:
        echo(f"  pending [event {n.event}] {n.player} with {n.other}: gives "
             f"{', '.join(n.give)}; expects {', '.join(n.get)}; until {n.expires}")


@app.command("advise")
def advise(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="Whose Hand (shows its cards: Dealer or the "
                                           "Player emself)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """The best arrangement of a Player's PCards now, and the exact distribution of eir best
    Score after the next card, every unseen card equally likely."""
    from nomic_cards.cardgames.pooker.view import advise as do_advise

    v = read(ctx, do_advise, player)
    if as_json:
        emit_json({"player": v.player, "score": v.score,
                   "hands": [list(h) for h in v.hands], "unseen": v.unseen,
                   "next_card": [{"score": s, "probability": str(p)}
                                 for s, p in v.next_card]})
        return
    echo(f"{v.player}: best Score {v.score} with "
         + ("; ".join(", ".join(h) for h in v.hands) or "no PCards"))
    if v.next_card:
        echo(f"after the next card ({v.unseen} unseen, equally likely):")
        for s, p in v.next_card:
            echo(f"  Score {s:>5}: {p} ({float(p):.4f})")
