"""Use cases for the committed-seed dice: periods, their commitments, reveal; and the dice a
deal rolls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nomic_cards.core import dice as dice_mod
from nomic_cards.core.ledger.events import DiceCommitted, DiceRevealed
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation

__all__ = [
    "PeriodView",
    "RevealResult",
    "dice_open",
    "dice_periods",
    "dice_reveal",
]


def open_period(tx: Tx) -> str:
    """Open a new committed-seed period: store the secret, record the commitment."""
    seed = dice_mod.new_seed()
    period = max(tx.state.periods, default=0) + 1
    commitment = dice_mod.commitment(seed)
    tx.record(DiceCommitted(period, commitment))
    tx.save_secret(period, seed.hex())
    return commitment


def check_stored_seed(period: int, seed_hex: str, commitment: str) -> None:
    """Refuse a stored seed that does not open the period's published commitment (a seed
    edited in ``dice_secrets``, or a damaged row): revealing it would publish a seed that
    proves nothing, and every roll of the period would then fail the public check."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        seed = None
    if seed is None or dice_mod.commitment(seed) != commitment:
        raise RuleViolation(
            f"the stored seed of dice period {period} does not match its commitment "
            f"{commitment[:16]}...: it was changed after the period was opened, so it is not "
            "revealed (nothing was recorded; `nomic-cards ledger verify` checks the rolls)")


def committed_dice(tx: Tx) -> tuple[dice_mod.CommittedDice, str | None]:
    """The dice of the current period, opening one first if none is open (then its
    commitment is returned too)."""
    opened = None
    period = tx.state.current_period()
    if period is None or tx.secret(period.id) is None:
        opened = open_period(tx)
        period = tx.state.current_period()
    assert period is not None
    secret = tx.secret(period.id)
    assert secret is not None
    return dice_mod.CommittedDice(bytes.fromhex(secret), period.id, period.rolls_used), opened


def make_dice(tx: Tx, source: str, ask: Callable[[int], int] | None = None,
              reject: Callable[[str], None] | None = None,
              ) -> tuple[dice_mod.DiceSource, str | None]:
    """The dice for a deal from ``source`` (committed, manual or system), and the commitment
    of a period opened for it, if one was."""
    if source == dice_mod.COMMITTED:
        return committed_dice(tx)
    if source == dice_mod.SYSTEM:
        return dice_mod.SystemDice(), None
    if source == dice_mod.MANUAL:
        if ask is None:
            raise InputError("manual dice need someone to type the results")
        return dice_mod.ManualDice(ask, reject or (lambda _m: None)), None
    raise InputError(f"unknown dice source {source!r} (use committed, manual or system)")


@dataclass(frozen=True)
class PeriodView:
    period: int
    commitment: str
    opened_event: int
    rolls: int
    revealed: bool
    seed: str | None


def dice_periods(tx: Reads) -> list[PeriodView]:
    return [PeriodView(p.id, p.commitment, p.opened_seq, p.rolls_used,
                       p.revealed_seed is not None, p.revealed_seed)
            for p in sorted(tx.state.periods.values(), key=lambda p: p.id)]


def dice_open(tx: Tx) -> PeriodView:
    """Open a new dice period. Refused while the current one has no rolls: otherwise the Dealer
    could open periods until the first roll of one suits (docs/dice.md)."""
    current = tx.state.current_period()
    if current is not None and current.rolls_used == 0 and tx.secret(current.id):
        raise RuleViolation(
            f"dice period {current.id} has no rolls yet: a new period opens only once the "
            "current one has been used, so that no seed can be chosen for its first roll")
    open_period(tx)
    p = tx.state.current_period()
    assert p is not None
    return PeriodView(p.id, p.commitment, p.opened_seq, 0, False, None)


@dataclass(frozen=True)
class RevealResult:
    period: int
    seed: str
    commitment: str
    rolls: int
    next_commitment: str | None
    #: cards the period's rolls named that were still in a player's hand when it was revealed
    #: (only with ``force``): anyone can now tell where they are
    exposed: int = 0


def cards_still_held(tx: Tx, period: int) -> list[int]:
    """The cards named by a roll of ``period`` (the cards dealt from it and the numbers
    rerolled because they were not in the Deck) that are in a player's hand now: revealing the
    seed would show where they are."""
    state = tx.full_state()
    named = {state.card_of_face(r.value, d.seq - 1) for d in state.deals for r in d.rolls
             if r.period == period}  # each face as the packs in play then numbered it
    return sorted(c for c in named if state.owner.get(c) is not None)


def dice_reveal(tx: Tx, period: int | None = None, *, force: bool = False) -> RevealResult:
    """Reveal a period's seed (default: the current one); if that was the current period, open
    the next so dealing can go on.

    The seed lets anyone recompute every roll of the period: the cards dealt from it, and the
    numbers rerolled because their cards were in someone's hand. So the reveal is refused while
    any of those cards is still in a player's hand (it would show where the card is now), unless
    ``force`` (the end of the game, or a Dealer who accepts it); once they are all back in the
    Deck the period can be revealed safely."""
    state = tx.state
    current = state.current_period()
    target = state.periods.get(period) if period is not None else current
    if target is None:
        raise NotFound("no such dice period" if period is not None
                       else "no dice period is open")
    if target.revealed_seed is not None:
        raise RuleViolation(f"dice period {target.id} was already revealed")
    if target.rolls_used == 0:
        raise RuleViolation(
            f"dice period {target.id} has no rolls: there is nothing to reveal, and "
            "revealing it would open a fresh period whose first roll could be chosen")
    seed = tx.secret(target.id)
    if seed is None:
        raise NotFound(f"the secret seed of dice period {target.id} is not in this database")
    check_stored_seed(target.id, seed, target.commitment)
    held = cards_still_held(tx, target.id)
    if held and not force:
        raise RuleViolation(
            f"dice period {target.id} cannot be revealed yet: its rolls name "
            f"{len(held)} card(s) still in players' hands, and the seed would show where "
            "they are; reveal it once they are back in the Deck, or with --force to "
            "publish that anyway (at the end of the game)")
    tx.record(DiceRevealed(target.id, seed))
    new_commit = open_period(tx) if current is not None and target.id == current.id else None
    return RevealResult(target.id, seed, target.commitment, target.rolls_used, new_commit,
                        len(held))
