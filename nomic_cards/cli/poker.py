"""`nomic-cards poker`: evaluate hands, the Ness Enumeration, tables by enumeration, showdowns.

Thin adapter over :mod:`nomic_cards.poker` (imported inside each command so that
``nomic-cards --help`` stays fast). ``showdown`` reads players' hands from the ledger through
:func:`nomic_cards.core.services.queries.hand_faces` -- read-only: moving cards still needs a
rule-cited transfer.
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Any

import typer

from nomic_cards.cli.common import (
    JSON_OPTION,
    PokerGame,
    ShowdownGame,
    echo,
    emit_json,
    read,
    run_language,
)
from nomic_cards.errors import InputError

app = typer.Typer(
    help="Near Poker (after David Ness): hand values with wild cards, NE numbers, tables by "
    "enumeration and showdowns.",
    no_args_is_help=True,
)

_WILD_HELP = ("Wild cards: a preset (deuces, one-eyed-jacks, one-eyed-jacks-axe, baseball, "
              "none) or cards like '2c,2d,2h,2s'. Jokers (Jk) are always wild.")
_HAND_HELP = "Cards, e.g. 'As Ks Qs Js Th' or 'AsKsQsJs10h' (quote it for the shell)."


def _hv(hv: Any) -> dict[str, Any] | None:
    if hv is None:
        return None
    return {"v": hv.v, "t": hv.t, "type": hv.type.title, "cv": list(hv.cv), "label": hv.label}


@app.command("eval")
def eval_cmd(
    hand: str = typer.Argument(..., help=_HAND_HELP),
    wild: str = typer.Option(None, "--wild", "-w", help=_WILD_HELP),
    game: PokerGame = typer.Option("high", "--game", "-g",
                             help="Scale: high, a5 (ace-to-five low), 27 (deuce-to-seven low) or "
                                  "low8 (8-or-better low)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the value of the best five cards of HAND: V, type T, CV, label (and NE for a hand of
    five different cards)."""
    from nomic_cards import poker

    codes = run_language(lambda: poker.parse_cards(hand))
    ws = run_language(lambda: poker.wild_set(wild))
    hv = poker.evaluate(codes, wild=ws, game=game)
    ne = None
    if len(codes) == 5 and len(set(codes)) == 5 and max(codes) < poker.JOKER:
        ne = poker.ne_rank(codes)
    if as_json:
        emit_json({"hand": poker.format_cards(codes), "game": game, "wild": str(ws),
                   "value": _hv(hv), "ne": ne})
        return
    echo(f"hand   {poker.format_cards(codes)}")
    if hv is None:
        echo("value  none (no qualifying low)")
    else:
        echo(f"value  {hv.v} ({game})")
        echo(f"type   {hv.t} ({hv.type.title})")
        echo(f"cv     {' '.join(str(x) for x in hv.cv)}")
        echo(f"label  {hv.label}")
    if ne is not None:
        echo(f"ne     {ne}")


@app.command("ne")
def ne_cmd(
    hand: str = typer.Argument(..., help="Five different cards, e.g. '4c 9s 4d 4h 9c'."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the Ness Enumeration number (0...2598959) of a 5-card hand."""
    from nomic_cards import poker

    n = run_language(lambda: poker.ne_rank(hand))
    if as_json:
        emit_json({"hand": poker.format_cards(sorted(poker.parse_cards(hand))), "ne": n})
        return
    echo(str(n))


@app.command("unne")
def unne_cmd(
    n: int = typer.Argument(..., help="An NE number, 0...2598959."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the 5-card hand with Ness Enumeration number N (sorted by Ness code)."""
    from nomic_cards import poker

    codes = poker.ne_unrank(n)
    if as_json:
        emit_json({"ne": n, "hand": poker.format_cards(codes), "codes": codes})
        return
    echo(poker.format_cards(codes))


@app.command("table")
def table_cmd(
    wild: str = typer.Option(None, "--wild", "-w", help=_WILD_HELP),
    jokers: int = typer.Option(0, "--jokers", "-j", min=0, max=8,
                               help="Jokers added to the 52-card pack (always wild)."),
    game: PokerGame = typer.Option("high", "--game", "-g",
                             help="Scale: high, a5, 27 or low8."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Count every 5-card hand of the pack by category: hands and distinct values."""
    from nomic_cards import poker

    ws = run_language(lambda: poker.wild_set(wild))
    tb = poker.table(wild=ws, jokers=jokers, game=game)
    if as_json:
        emit_json(tb)
        return
    echo(f"game {tb.game}, wild {tb.wild}, jokers {tb.jokers}")
    width = max(len(r.category) for r in tb.rows)
    echo(f"{'Hand':<{width}}  {'Number':>9}  {'Distinct':>8}")
    for r in tb.rows:
        echo(f"{r.category:<{width}}  {r.hands:>9}  {r.distinct:>8}")
    echo(f"{'Total':<{width}}  {tb.hands:>9}  {tb.distinct:>8}")


@app.command("showdown")
def showdown_cmd(
    ctx: typer.Context,
    players: list[str] = typer.Argument(None, help="Players whose hands (in the ledger) show "
                                                   "down: the best five of whatever each holds."),
    hand: list[str] = typer.Option(None, "--hand", "-H",
                                   help="An explicit hand NAME=CARDS, e.g. "
                                        "alice='As Ks Qs Js Th' (repeatable; no database)."),
    game: ShowdownGame = typer.Option("high", "--game", "-g",
                             help="high, a5 (ace-to-five low), 27 (deuce-to-seven low) or hilo8 "
                                  "(high/low split, 8-or-better low)."),
    wild: str = typer.Option(None, "--wild", "-w", help=_WILD_HELP),
    pot: str = typer.Option("1", "--pot", help="The pot to share, e.g. 100 or 7/2."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show hands down: each player's value, the winners, and each player's exact share of the pot.
    A player's cards from the ledger are shown with their packs (Red Jd, Blue Jd). Read-only:
    paying the pot in cards still needs a rule-cited transfer."""
    from nomic_cards import poker

    entries: list[tuple[str, Any]] = []
    #: the cards of the players read from the ledger, with their packs (``Red Jd``)
    labels: dict[str, tuple[str, ...]] = {}
    for spec in hand or []:
        name, sep, cards = spec.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--hand needs NAME=CARDS, got {spec!r}")
        entries.append((name.strip(), run_language(partial(poker.parse_cards, cards))))
    if players:
        from nomic_cards.core.services.queries import hand_faces

        for shown in read(ctx, hand_faces, list(players)):
            entries.append((shown.player, list(shown.faces)))
            labels[shown.player] = shown.labels
    if not entries:
        raise InputError("name some players, or give hands with --hand NAME=CARDS")
    ws = run_language(lambda: poker.wild_set(wild))
    result = poker.showdown(entries, game=game, wild=ws, pot=pot)
    if as_json:
        emit_json({
            "game": result.game, "wild": result.wild, "pot": str(result.pot),
            "winners": list(result.winners), "low_winners": list(result.low_winners),
            "players": [{"player": p.player, "cards": p.cards,
                         "labels": list(labels[p.player]) if p.player in labels else None,
                         "value": _hv(p.value),
                         "low": _hv(p.low), "share": str(p.share), "wins": list(p.wins)}
                        for p in result.players],
        })
        return
    width = max(len(p.player) for p in result.players)
    for p in result.players:
        low = ""
        if result.game == "hilo8":
            low = f"; low: {p.low.label}" if p.low is not None else "; no low"
        won = f"  wins {' and '.join(p.wins)}" if p.wins else ""
        cards = " ".join(labels[p.player]) if p.player in labels else p.cards
        echo(f"{p.player:<{width}}  {p.value.label}{low}  [{cards}]  share {_frac(p.share)}{won}")


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


_SCORES_HELP = ("The Score table, partial over Pooker's (rule 397 and its continuation): e.g. "
                "'full-house=45,one-pair=0'. Categories: five-of-a-kind, royal-flush, "
                "straight-flush, four-of-a-kind, full-house, flush, straight, three-of-a-kind, "
                "two-pair, one-pair, high-card.")
_PCARDS_HELP = ("Cards, e.g. 'As Ks Qs Js Th 9h 9h' (a card may be there twice: two packs); "
                "quote it for the shell.")


def _pcards(text: str) -> list[int]:
    from nomic_cards import poker

    codes = run_language(partial(poker.parse_cards, text))
    if any(c >= poker.JOKER for c in codes):
        raise InputError("a Poker Hand has no jokers: take the Jk out")
    return codes


def _table(scores: str | None) -> dict[str, int]:
    from nomic_cards.poker import pookerhands

    if scores is None:
        return dict(pookerhands.DEFAULT_SCORES)
    return run_language(partial(pookerhands.parse_scores, scores))


@app.command("arrange")
def arrange_cmd(
    cards: str = typer.Argument(..., help=_PCARDS_HELP),
    scores: str = typer.Option(None, "--scores", "-s", help=_SCORES_HELP),
    as_json: bool = JSON_OPTION,
) -> None:
    """Split CARDS into Poker Hands of 1 to 5 cards with the highest total Score (Pooker, rule
    397): an exact optimum, showing as few cards as it allows (cards in no hand stay unshown)."""
    from nomic_cards import poker
    from nomic_cards.poker import pookerhands

    codes = _pcards(cards)
    table = _table(scores)
    arr = pookerhands.best_arrangement(codes, table)
    hands = [[poker.format_code(codes[i]) for i in hand] for hand in arr.hands]
    if as_json:
        emit_json({"score": arr.score, "hands": hands})
        return
    shown = {i for hand in arr.hands for i in hand}
    echo(f"score  {arr.score}")
    for hand, idx in zip(hands, arr.hands, strict=True):
        name = pookerhands.category([codes[i] for i in idx])
        echo(f"{table[name]:>5}  {name:<15}  {' '.join(hand)}")
    rest = [poker.format_code(c) for i, c in enumerate(codes) if i not in shown]
    if rest:
        echo(f"unshown  {' '.join(rest)}")


@app.command("advice")
def advice_cmd(
    cards: str = typer.Argument(..., help=_PCARDS_HELP),
    unseen: str = typer.Option(None, "--unseen", "-u",
                               help="The cards the next one may be (each equally likely; a card "
                                    "listed twice is twice as likely). Default: the --packs "
                                    "packs less CARDS."),
    packs: int = typer.Option(2, "--packs", min=1, max=8,
                              help="Whole packs in play, for the default --unseen."),
    scores: str = typer.Option(None, "--scores", "-s", help=_SCORES_HELP),
    as_json: bool = JSON_OPTION,
) -> None:
    """The exact distribution of the best total Score of CARDS after the next card is dealt,
    every unseen card equally likely: each possible Score with its probability (a fraction)."""
    from nomic_cards import poker
    from nomic_cards.poker import pookerhands

    codes = _pcards(cards)
    table = _table(scores)
    if unseen is None:
        pool = [c for c in range(poker.JOKER) for _ in range(packs)]
        for c in codes:
            if c not in pool:
                raise InputError(f"{packs} pack(s) hold {poker.format_code(c)} only "
                                 f"{packs} time(s); give --packs or --unseen")
            pool.remove(c)
    else:
        pool = _pcards(unseen)
    if not pool:
        raise InputError("no unseen card: the next card cannot be dealt")
    now = pookerhands.best_arrangement(codes, table).score
    dist = pookerhands.advice(codes, pool, table)
    mean = sum((Fraction(s) * p for s, p in dist.items()), Fraction(0))
    if as_json:
        emit_json({"score": now, "unseen": len(pool), "expected": _frac(mean),
                   "distribution": [{"score": s, "probability": _frac(p)}
                                    for s, p in dist.items()]})
        return
    echo(f"now       {now}")
    echo(f"unseen    {len(pool)} cards")
    echo(f"expected  {_frac(mean)} (~{float(mean):.2f})")
    for s, p in dist.items():
        echo(f"{s:>8}  {_frac(p)}")
