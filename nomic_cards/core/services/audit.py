"""Use cases that audit: the whole ledger against its projections, the dice against their
revealed seeds."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.core import dice as dice_mod
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.state import RollRecord, State
from nomic_cards.core.ledger.verify import Problem, check_chain_and_replay, compare
from nomic_cards.errors import NotFound


@dataclass(frozen=True)
class VerifyReport:
    events: int
    cards: int
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def ledger_verify(game: Game) -> VerifyReport:
    """Replay the whole log from scratch and compare with the tables (DESIGN.md section 2)."""
    with game.unit_of_work(write=False) as uow:
        replayed, problems = check_chain_and_replay(uow.stored_events())
        tables = uow.full_state()
        problems += compare(replayed, tables, uow.card_rows())
        return VerifyReport(replayed.seq, len(replayed.owner), tuple(problems))


@dataclass(frozen=True)
class DiceCheck:
    period: int
    revealed: bool
    rolls: int
    problems: tuple[str, ...]


def dice_verify(game: Game, period: int | None = None) -> list[DiceCheck]:
    """Recompute every roll of each revealed period (or the one named) from the ledger."""
    with game.unit_of_work(write=False) as uow:
        return verify_dice_state(uow.full_state(), period)


def verify_dice_state(state: State, period: int | None = None) -> list[DiceCheck]:
    """Check each dice period of ``state``: the revealed seed matches its commitment, the roll
    indices run 0, 1, 2, ... without gaps or reuse, and every face is the seed's."""
    periods = sorted(state.periods.values(), key=lambda p: p.id)
    if period is not None:
        periods = [p for p in periods if p.id == period]
        if not periods:
            raise NotFound(f"no dice period {period}")
    by_period: dict[int, list[tuple[int, RollRecord]]] = {}
    for d in state.deals:
        for r in d.rolls:
            if r.source == dice_mod.COMMITTED and r.period is not None:
                by_period.setdefault(r.period, []).append((d.seq, r))
    out = []
    for p in periods:
        rolls = by_period.get(p.id, [])
        problems: list[str] = []
        if p.revealed_seed is not None:
            try:
                seed = bytes.fromhex(p.revealed_seed)
            except ValueError:
                seed = b""
                problems.append("the revealed seed is not hexadecimal")
            if dice_mod.commitment(seed) != p.commitment:
                problems.append("the revealed seed does not match the commitment "
                                f"{p.commitment[:16]}...")
            for expect, (seq, r) in enumerate(rolls):
                if r.index != expect:
                    problems.append(f"event {seq} roll {r.position + 1}: roll index {r.index}, "
                                    f"expected {expect} (rolls skipped or reused)")
                if r.index is None or r.index < 0:
                    continue
                face = dice_mod.committed_face(seed, r.index, r.sides)
                if face != r.value:
                    problems.append(f"event {seq} roll {r.position + 1}: the ledger says "
                                    f"{r.value} on a d{r.sides}, the seed gives {face}")
        out.append(DiceCheck(p.id, p.revealed_seed is not None, len(rolls), tuple(problems)))
    return out
