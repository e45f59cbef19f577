"""`nomic-cards deals`: count, solve, compare and sample Clear the Deck deal expressions.

Thin adapter over :mod:`nomic_cards.deals` (imported inside each command so that
``nomic-cards --help`` stays fast). A deal-language error becomes one line naming the column,
followed by the expression with a caret under the spot when the expression is short. Numbers of
any size are printed exactly, in text and in JSON (past CPython's 4300-digit limit for ``str``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from nomic_cards.cli.common import JSON_OPTION, echo, read, run_language
from nomic_cards.errors import InputError

app = typer.Typer(
    help="Deal expressions (Clear the Deck): count, solve, compare and sample the ways to deal.",
    no_args_is_help=True,
)

T = TypeVar("T")

_EXPR_HELP = "A deal expression, e.g. '(1 or 2)^?' (quote it for the shell)."


def _run(fn: Callable[[], T]) -> T:
    return run_language(fn, max_context=80)


def _num(value: int) -> str:
    from nomic_cards.deals.syntax import decimal

    return decimal(value)


def _json_text(data: Any, level: int = 0) -> str:
    """JSON like ``json.dumps(data, indent=2)``, writing ints of any size exactly."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(data, bool) or data is None or isinstance(data, str | float):
        return json.dumps(data, ensure_ascii=False)
    if isinstance(data, int):
        return _num(data)
    if isinstance(data, dict):
        if not data:
            return "{}"
        items = (f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_json_text(v, level + 1)}"
                 for k, v in data.items())
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(data, list | tuple):
        if not data:
            return "[]"
        return "[\n" + ",\n".join(f"{inner}{_json_text(v, level + 1)}" for v in data) + (
            f"\n{pad}]")
    return json.dumps(str(data), ensure_ascii=False)


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout (exact integers of any size)."""
    echo(_json_text(data))


@app.command("terms")
def terms_cmd(
    expr: str = typer.Argument(..., help=_EXPR_HELP),
    count: int = typer.Option(20, "--count", "-n", min=0, help="How many terms: a(0)..a(N-1)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print a(0), a(1), ...: the number of ways to deal 0, 1, ... cards, exactly."""
    from nomic_cards import deals

    deal = _run(lambda: deals.parse(expr))
    values = _run(lambda: deals.terms(deal, count))
    if as_json:
        emit_json({"deal": expr, "normal": str(deal), "terms": values})
        return
    echo(", ".join(_num(v) for v in values))


@app.command("term")
def term_cmd(
    expr: str = typer.Argument(..., help=_EXPR_HELP),
    n: int = typer.Argument(..., min=0, help="Number of cards (any size, e.g. 10 to the 18th)."),
    mod: int = typer.Option(None, "--mod", "-m", min=1, help="Print a(n) modulo this number."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print a(n) alone, exactly or modulo M, in time growing with log n."""
    from nomic_cards import deals

    value = _run(lambda: deals.term(expr, n, mod=mod))
    if as_json:
        emit_json({"deal": expr, "n": n, "mod": mod, "value": value})
        return
    echo(_num(value))


@app.command("gf")
def gf_cmd(
    expr: str = typer.Argument(..., help=_EXPR_HELP),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the generating function P(x)/Q(x) in lowest terms, its recurrence and canonical
    form."""
    from nomic_cards import deals

    gf = _run(lambda: deals.generating_function(expr))
    try:
        rec = gf.recurrence()
        rec_text = str(rec)
    except deals.ResultTooLarge as err:
        rec = gf.law()
        rec_text = f"{rec} ({err})"
    canon = deals.canonical_of(gf)
    if as_json:
        emit_json({
            "deal": expr,
            "numerator": list(gf.numerator),
            "denominator": list(gf.denominator),
            "text": str(gf),
            "factored": gf.factored(),
            "recurrence": {
                "coefficients": list(rec.coefficients),
                "start": rec.start,
                "initial": list(rec.initial) if rec.initial or rec.start == 0 else None,
                "text": rec_text,
            },
            "canonical": canon,
        })
        return
    echo(f"generating function: {gf}")
    if gf.factored() != str(gf):
        echo(f"factored:            {gf.factored()}")
    echo(f"recurrence:          {rec_text}")
    echo(f"canonical form:      {canon}")


@app.command("same")
def same_cmd(
    a: str = typer.Argument(..., help="The first deal expression."),
    b: str = typer.Argument(..., help="The second deal expression."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Decide exactly whether two deals give the same sequence (exit 0 if so, 1 if not)."""
    from nomic_cards import deals

    n = _run(lambda: deals.first_difference(a, b))
    result: dict[str, Any] = {"a": a, "b": b, "same": n is None}
    if n is not None:
        result.update(first_difference=n, a_n=_run(lambda: deals.term(a, n)),
                      b_n=_run(lambda: deals.term(b, n)))
    if as_json:
        emit_json(result)
    elif n is None:
        echo("same: the two deals have the same number of ways for every number of cards")
    else:
        echo(f"different: first at n = {n}, where a(n) = {_num(result['a_n'])} and "
             f"{_num(result['b_n'])}")
    if n is not None:
        raise typer.Exit(1)


@app.command("canon")
def canon_cmd(
    expr: str = typer.Argument(..., help=_EXPR_HELP),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print the canonical form: equal for two deals exactly when their sequences are equal."""
    from nomic_cards import deals

    canon = _run(lambda: deals.canonical(expr))
    if as_json:
        emit_json({"deal": expr, "canonical": canon})
        return
    echo(canon)


def _standard_pack() -> list[str]:
    from nomic_cards.cards import format_card, spoon_card

    return [format_card(spoon_card(i)[1]) for i in range(1, 53)]


def _card_list(ctx: typer.Context, cards: str | None, player: str | None,
               deck: bool) -> list[str] | None:
    chosen = (cards is not None) + (player is not None) + bool(deck)
    if chosen > 1:
        raise InputError("give only one of --cards, --from-player and --from-deck")
    if player is not None or deck:
        from nomic_cards.core.services.queries import cards_of

        return read(ctx, cards_of, player)
    if cards is None or cards.strip().lower() == "standard":
        return _standard_pack()
    if cards.strip().lower() == "none":
        return None
    labels = [c.strip() for c in cards.split(",")]
    if any(not c for c in labels):
        raise InputError("--cards: an empty card label in the list (labels are comma-separated)")
    return labels


@app.command("sample")
def sample_cmd(
    ctx: typer.Context,
    expr: str = typer.Argument(..., help=_EXPR_HELP),
    n: int = typer.Argument(..., min=0, help="Number of cards to deal (the deck is left empty)."),
    seed: int = typer.Option(None, "--seed", "-s", help="Seed for a reproducible draw."),
    cards: str = typer.Option(
        None,
        "--cards",
        help="Cards to deal from the top: 'standard' (default: a 52-card pack in the project's "
        "numbering order), 'none', or a comma-separated list such as 'As,Kd,10h'.",
    ),
    from_player: str = typer.Option(
        None, "--from-player", help="Deal a player's cards from the ledger (uses --db)."
    ),
    from_deck: bool = typer.Option(
        False, "--from-deck", help="Deal the Deck's cards from the ledger (uses --db)."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """Draw one of the a(n) ways to deal n cards uniformly at random and show it as steps."""
    from nomic_cards import deals

    card_list = _card_list(ctx, cards, from_player, from_deck)
    drawn = _run(lambda: deals.sample(expr, n, seed=seed, cards=card_list))
    if as_json:
        emit_json({
            "deal": drawn.deal,
            "n": drawn.n,
            "ways": drawn.ways,
            "seed": drawn.seed,
            "steps": [
                {
                    "cards": s.cards,
                    "atom": s.atom,
                    "column": s.column,
                    "choices": [
                        {"kind": c.kind, "index": c.index, "total": c.total, "column": c.column}
                        for c in s.choices
                    ],
                    "dealt": list(s.dealt),
                }
                for s in drawn.steps
            ],
        })
        return
    echo(drawn.describe())
