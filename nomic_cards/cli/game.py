"""Commands that set up and change the game: init, players, the Dealer, packs."""

from __future__ import annotations

import typer

from nomic_cards.cli.common import (
    JSON_OPTION,
    act_at,
    at_option,
    echo,
    emit_json,
    open_nomic,
    read,
    write,
)
from nomic_cards.core.settings import (
    PROPOSAL_DEALER,
    PROPOSAL_PACKS,
    SPOON_NWEEK_DAYS,
    GameSettings,
)
from nomic_cards.errors import InputError

_PACK_NAMES = ", ".join(name for name, _ in PROPOSAL_PACKS)

player_app = typer.Typer(help="Register, retire and list players.", no_args_is_help=True)
dealer_app = typer.Typer(help="The Dealer office (rule 4).", no_args_is_help=True)
pack_app = typer.Typer(help="Packs in play (rule 2).", no_args_is_help=True)


def _parse_packs(specs: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for spec in specs:
        name, sep, back = spec.partition("=")
        if not sep or not name.strip() or not back.strip():
            raise InputError(f"--pack takes NAME=BACK-DESCRIPTION, not {spec!r}")
        out.append((name.strip(), back.strip()))
    return tuple(out)


def _given(ctx: typer.Context, param: str) -> bool:
    """Whether the user chose this option (on the command line or in the environment)."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def init(
    ctx: typer.Context,
    pack: list[str] = typer.Option(
        [], "--pack", help="NAME=BACK for a pack in play, repeatable, in numbering order "
                           f"(default: the proposal's {_PACK_NAMES} packs)."),
    dealer: str = typer.Option(PROPOSAL_DEALER, "--dealer",
                               help="The original Dealer (rule 4)."),
    epoch: str = typer.Option(None, "--epoch",
                              help="The game's first day, YYYY-MM-DD (default: today, UTC)."),
    nweek_days: int = typer.Option(SPOON_NWEEK_DAYS, "--nweek-days", min=1, max=1000,
                                   help="Game days in an nweek (Spoon Nomic: "
                                        f"{SPOON_NWEEK_DAYS})."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Create or upgrade the database; on an empty one, create the game: every card of every
    pack in the Deck, the Dealer, and the first dice period's commitment. On a database that
    holds a game, options that differ from the game's are refused (nothing is changed)."""
    from datetime import date

    from nomic_cards.core.services.players import init_game

    act_at(ctx, at)
    first = None
    if epoch is not None:
        try:
            first = date.fromisoformat(epoch)
        except ValueError:
            raise InputError(f"--epoch takes a date YYYY-MM-DD, not {epoch!r}") from None
    settings = GameSettings(packs=_parse_packs(pack) if pack else PROPOSAL_PACKS,
                            dealer=dealer, nweek_days=nweek_days, epoch=first)
    given = frozenset(name for name, param in (("packs", "pack"), ("dealer", "dealer"),
                                               ("nweek_days", "nweek_days"), ("epoch", "epoch"))
                      if _given(ctx, param))
    with open_nomic(ctx, create=True, settings=settings) as nomic:
        result = init_game(nomic, given=given)
    if as_json:
        emit_json(result)
        return
    if result.created:
        echo(f"Created a game in {result.database}: {result.packs} packs, {result.cards} cards "
             f"in the Deck, {result.dealer} is the Dealer.")
        echo(f"Dice period 1 commitment (publish this before any deal): {result.commitment}")
    else:
        echo(f"{result.database} already holds a game; schema is at revision {result.revision}.")


@player_app.command("add")
def player_add(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The player's name."),
    email: str = typer.Option(None, "--email", help="Address for private notices."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Register a player, or let a retired player rejoin (with an empty hand)."""
    from nomic_cards.core.services.players import add_player

    act_at(ctx, at)
    view = write(ctx, add_player, name, email=email)
    if as_json:
        emit_json(view)
    elif view.rejoined:
        echo(f"{view.name} rejoined the game with an empty hand"
             + (f" <{view.email}>" if view.email else "") + ".")
    else:
        echo(f"Registered {view.name}" + (f" <{view.email}>" if view.email else "") + ".")


@player_app.command("email")
def player_email(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The player's name."),
    email: str = typer.Argument(None, help="New address (omit to show the current one)."),
    clear: bool = typer.Option(False, "--clear", help="Remove the player's address."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show, set or (with --clear) remove a player's e-mail address (a private field of the
    ledger: only the Dealer sees it)."""
    from nomic_cards.core.services.players import set_email, show_player

    act_at(ctx, at)
    if clear and email is not None:
        raise InputError("give an address or --clear, not both")
    if clear:
        view = write(ctx, set_email, name, None)
    elif email is None:
        view = read(ctx, show_player, name)
    else:
        view = write(ctx, set_email, name, email)
    if as_json:
        emit_json(view)
    else:
        echo(f"{view.name}: " + (f"<{view.email}>" if view.email else "no e-mail address"))


@player_app.command("retire")
def player_retire(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The player who leaves."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Retire a player; their hand returns to the Deck."""
    from nomic_cards.core.services.players import retire_player

    act_at(ctx, at)
    returned = write(ctx, retire_player, name)
    if as_json:
        emit_json({"player": name, "returned_to_deck": len(returned)})
    else:
        echo(f"{name} retired; {len(returned)} card(s) returned to the Deck.")


@player_app.command("list")
def player_list(
    ctx: typer.Context,
    all_: bool = typer.Option(False, "--all", help="Include retired players."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List players with the number of cards each holds."""
    from nomic_cards.core.services.players import list_players

    views = read(ctx, list_players, include_retired=all_)
    if as_json:
        emit_json(views)
        return
    for v in views:
        role = " (Dealer: holds the Deck)" if v.dealer else ""
        gone = " [retired]" if not v.active else ""
        echo(f"{v.name:<20} {v.cards:>4} card(s){role}{gone}")


@dealer_app.command("show")
def dealer_show(
    ctx: typer.Context,as_json: bool = JSON_OPTION) -> None:
    """Show the Dealer and who held the office before."""
    from nomic_cards.core.services.players import show_dealer

    view = read(ctx, show_dealer)
    if as_json:
        emit_json(view)
        return
    echo(f"Dealer: {view.dealer} (since event {view.since_event})")
    for t in view.history[:-1]:
        echo(f"  before: {t.player} (events {t.from_event}..{t.until_event})")


@dealer_app.command("elect")
def dealer_elect(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The newly elected Dealer."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Record the election of a new Dealer; their own hand joins the Deck (rule 7)."""
    from nomic_cards.core.services.players import elect_dealer

    act_at(ctx, at)
    merged = write(ctx, elect_dealer, name)
    if as_json:
        emit_json({"dealer": name, "hand_merged_into_deck": len(merged)})
    else:
        echo(f"{name} is now the Dealer; {len(merged)} card(s) from their hand joined the Deck.")


@pack_app.command("add")
def pack_add(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The pack's name."),
    back: str = typer.Option(..., "--back", help="Description of the pack's Back."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Put a new pack in play (numbered next; its cards start in the Deck)."""
    from nomic_cards.core.services.players import add_pack

    act_at(ctx, at)
    info = write(ctx, add_pack, name, back)
    if as_json:
        emit_json({"number": info.number, "name": info.name, "back": info.back,
                   "sides": info.sides, "event": info.event})
    else:
        echo(f"Pack {info.number} {info.name} added; the dealing die now has "
             f"{info.sides} sides.")


@pack_app.command("retire")
def pack_retire(
    ctx: typer.Context,
    pack: str = typer.Argument(..., help="The pack's name or number (as `pack list` shows)."),
    proposal: str = typer.Option(..., "--proposal",
                                 help="The proposal (or other instrument) that retired it."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Take a pack out of play (rule 2 amended): its cards leave the Deck and every Hand, each
    holder is told privately, and the die shrinks by 52 sides."""
    from nomic_cards.core.services.players import retire_pack

    act_at(ctx, at)
    info = write(ctx, retire_pack, pack, proposal=proposal)
    if as_json:
        emit_json({"number": info.number, "name": info.name, "proposal": info.proposal,
                   "deck": info.deck, "hands": [{"player": p, "cards": n}
                                                for p, n in info.hands],
                   "sides": info.sides, "event": info.event})
        return
    hands = "; ".join(f"{p} {n}" for p, n in info.hands) or "none"
    echo(f"Pack {info.number} {info.name} retired by {info.proposal!r}: {info.deck} card(s) "
         f"left the Deck, from Hands: {hands}; the dealing die now has {info.sides} sides.")


@pack_app.command("list")
def pack_list(
    ctx: typer.Context,as_json: bool = JSON_OPTION) -> None:
    """List the packs with their Backs (and those retired, marked so)."""
    from nomic_cards.core.services.players import list_packs

    packs = read(ctx, list_packs)
    if as_json:
        emit_json([{"number": p.number, "name": p.name, "back": p.back}
                   | ({"retired_event": p.retired} if p.retired is not None else {})
                   for p in packs])
        return
    for p in packs:
        gone = f"  (retired by event {p.retired})" if p.retired is not None else ""
        echo(f"{p.number}  {p.name}: {p.back}{gone}")
