"""`nomic-cards randomizer`: deal from Blackjack randomizer specs and give their exact statistics.

Thin adapter over :mod:`nomic_cards.randomizers` (imported inside each command so that
``nomic-cards --help`` stays fast). A SPEC argument is Blackjack text or a preset name
(case-insensitive). A spec error becomes one line naming the column, followed by the spec with
a caret under the spot.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import typer

from nomic_cards.cli.common import JSON_OPTION, echo, emit_json, run_language

app = typer.Typer(
    help="Blackjack randomizer specs: deal pieces reproducibly and compute exact statistics.",
    no_args_is_help=True,
)

T = TypeVar("T")

_SPEC_HELP = ("A Blackjack spec, e.g. 'bag of I,J,L,O,S,T,Z' (quote it for the shell), "
              "or a preset name such as tgm1 (see 'nomic-cards randomizer presets').")


def _run(fn: Callable[[], T]) -> T:
    return run_language(fn)


def _spec(text: str) -> Any:
    from nomic_cards.randomizers import PRESETS, parse

    preset = PRESETS.get(text.strip().lower())
    return _run(lambda: parse(preset.spec if preset else text))


def _num(v: Fraction | None) -> str:
    if v is None:
        return "-"
    text = f"{float(v):.6f}"
    if v.denominator != 1:
        text += f"  {v}" if len(str(v)) <= 40 else "  (exact in --json)"
    return text


@app.command("sample")
def sample_cmd(
    spec: str = typer.Argument(..., help=_SPEC_HELP),
    count: int = typer.Option(70, "--count", "-n", min=0, help="How many pieces to deal."),
    seed: int = typer.Option(None, "--seed", "-s", min=0, max=2**64 - 1,
                             help="Seed (0 to 2**64-1); without it a fresh one is drawn "
                                  "and printed."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Deal COUNT pieces from SPEC; the same seed deals the same pieces everywhere."""
    from nomic_cards.randomizers import Randomizer

    sp = _spec(spec)
    r = Randomizer(sp, seed=seed)
    pieces = r.take(count)
    if as_json:
        emit_json({"spec": str(sp), "seed": r.seed, "count": count, "pieces": pieces})
        return
    if seed is None:
        typer.echo(f"seed: {r.seed}", err=True)
    echo(" ".join(pieces))


@app.command("stats")
def stats_cmd(
    spec: str = typer.Argument(..., help=_SPEC_HELP),
    piece: str = typer.Option(None, "--piece", "-p",
                              help="Also print this piece's gap and first-appearance tables."),
    gaps: int = typer.Option(20, "--gaps", "-k", min=1, max=1000,
                             help="Table length K: P(gap = k) and P(first at k) for k = 1..K."),
    simulate: int = typer.Option(None, "--simulate", min=2,
                                 help="Cross-check by dealing N pieces (and fresh short runs "
                                      "for first appearance)."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=2**64 - 1,
                             help="Seed of the --simulate run."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Exact statistics of SPEC from its Markov chain: frequencies, gaps, repeats, first
    appearance, and the chance every roll fails."""
    from nomic_cards.randomizers import stats
    from nomic_cards.randomizers.simulate import simulate as run_simulation
    from nomic_cards.randomizers.stats import as_dict

    sp = _spec(spec)
    st = stats(sp, gaps=gaps)
    chosen = st.piece(piece) if piece is not None else None
    sim = run_simulation(sp, simulate, seed=seed, gaps=gaps) if simulate else None
    if as_json:
        data = as_dict(st, [piece] if piece is not None else None)
        if sim is not None:
            data["simulation"] = {
                "count": sim.count, "seed": sim.seed, "runs": sim.runs,
                "repeat": sim.repeat, "all_rolls_fail": sim.all_rolls_fail,
                "per_piece": [
                    {"piece": ps.piece, "frequency": ps.frequency, "gap": list(ps.gap),
                     "gap_mean": ps.gap_mean, "gap_max_seen": ps.gap_max_seen,
                     "first": list(ps.first), "first_later": ps.first_later}
                    for ps in sim.per_piece if piece is None or ps.piece == piece],
            }
        emit_json(data)
        return
    echo(f"spec: {st.spec}")
    echo(f"states: {st.states} (largest chain, lumped by symmetry)")
    line = f"repeat (next piece = last piece): {_num(st.repeat)}"
    if sim:
        line += f"   simulated {sim.repeat:.6f}"
    echo(line)
    if st.all_rolls_fail is not None:
        line = f"all rolls fail: {_num(st.all_rolls_fail)}"
        if sim and sim.all_rolls_fail is not None:
            line += f"   simulated {sim.all_rolls_fail:.6f}"
        echo(line)
    echo()
    header = f"{'piece':<8}{'frequency':<22}{'P(repeat)':<22}{'mean gap':<12}{'max gap':<10}"
    if sim:
        header += "sim. frequency"
    echo(header.rstrip())
    for ps in st.per_piece:
        freq = f"{float(ps.frequency):.6f} {ps.frequency}" if ps.frequency else "0"
        rep = f"{float(ps.repeat):.6f}" if ps.repeat is not None else "-"
        mean = f"{float(ps.gap_mean):.4f}" if ps.gap_mean is not None else "-"
        top = ("-" if not ps.recurs else "unbounded" if ps.gap_max is None
               else str(ps.gap_max))
        row = f"{ps.piece:<8}{freq:<22}{rep:<22}{mean:<12}{top:<10}"
        if sim:
            row += f"{sim.piece(ps.piece).frequency:.6f}"
        echo(row.rstrip())
    if chosen is None:
        return
    sim_piece = sim.piece(chosen.piece) if sim else None
    echo()
    echo(f"gaps between two {chosen.piece}s (1 = immediate repeat):")
    if not chosen.recurs:
        echo("  none: the piece does not recur")
    else:
        for k, v in enumerate(chosen.gap, start=1):
            row = f"  {k:>4}  {_num(v)}"
            if sim_piece and k <= len(sim_piece.gap):
                row = f"{row:<64}sim. {sim_piece.gap[k - 1]:.6f}"
            echo(row)
        echo(f"  mean {_num(chosen.gap_mean)}; longest "
             f"{'unbounded' if chosen.gap_max is None else chosen.gap_max}")
    echo(f"first appearance of {chosen.piece} (position 1 = first piece dealt):")
    for k, v in enumerate(chosen.first, start=1):
        row = f"  {k:>4}  {_num(v)}"
        if sim_piece:
            row = f"{row:<64}sim. {sim_piece.first[k - 1]:.6f}"
        echo(row)
    latest = ("-" if chosen.first_never == 1 else "unbounded" if chosen.first_max is None
              else str(chosen.first_max))
    echo(f"  never {_num(chosen.first_never)}; mean {_num(chosen.first_mean)}; "
         f"latest {latest}")


@app.command("presets")
def presets_cmd(as_json: bool = JSON_OPTION) -> None:
    """List the preset randomizers: name, spec and source."""
    from nomic_cards.randomizers import PRESETS

    if as_json:
        emit_json([{"name": p.name, "spec": p.spec, "source": p.source, "note": p.note}
                   for p in PRESETS.values()])
        return
    width = max(len(name) for name in PRESETS)
    for p in PRESETS.values():
        echo(f"{p.name:<{width}}  {p.spec}")
        echo(f"{'':<{width}}  {p.note}; source: {p.source}")
