"""The nomic's decisions on the ledger: the rule in force that sets their quorum and strengths,
the strength each voter's ballot counts with, and the resolution of a decision as it stands --
what the ``decision.resolved`` event must say, checked by its replay step and computed by
``tick`` alike (:mod:`nomic_cards.core.resolution` resolves; this reads the state for it).

A voter's strength on a decision: the one the decision was opened with for em, else the one
``strength set`` gave em (as it stood at the close), else the decision's default; then held
within the rule's bounds (``strength-low``, ``strength-high``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.core import resolution
from nomic_cards.core.installed import spec as rule_spec
from nomic_cards.core.ledger.events import DecisionResolved, StrengthUsed
from nomic_cards.core.ledger.state import DecisionState, State
from nomic_cards.core.ruleset import ParamValue

__all__ = ["RULE", "Counted", "as_resolved", "ballots_of", "counted", "resolution_of",
           "rule_value"]

#: the rule of the ledger that sets the decisions' quorum and strengths
RULE = "decisions"


def rule_value(state: State, key: str) -> int:
    """A parameter of the decisions rule in force (its declared default while the rule is not
    in force: a game created before the rule existed)."""
    spec = rule_spec(RULE)
    assert spec is not None
    change = state.rule(RULE)
    params: dict[str, ParamValue] = dict(change.params) if change is not None \
        and change.in_force else {}
    value = spec.value(params, key)
    assert isinstance(value, int)
    return value


def ballots_of(decision: DecisionState) -> dict[str, resolution.Ballot]:
    """The ballots standing on ``decision``, by player, as the resolution reads them."""
    return {p: resolution.Ballot(b.option, b.endorse, b.comment)
            for p, b in decision.ballots.items()}


@dataclass(frozen=True)
class Counted:
    """A decision resolved as it stands: its tally, the strength of each voter, and every
    strength other than the default with why."""

    tally: resolution.Tally
    strengths: dict[str, int]
    unusual: tuple[StrengthUsed, ...]


def counted(state: State, decision: DecisionState) -> Counted:
    """The resolution of ``decision`` from the ballots standing and the strengths in force."""
    params = decision.params
    default = int(params["strength_default"])
    given = {str(p): int(n) for p, n in params.get("strengths", {}).items()}
    low, high = rule_value(state, "strength-low"), rule_value(state, "strength-high")
    strengths: dict[str, int] = {}
    unusual: list[StrengthUsed] = []
    for player in sorted(decision.ballots):
        if player in given:
            raw, why = given[player], "given when the decision was opened"
        elif player in state.strengths:
            set_ = state.strengths[player]
            raw, why = set_.strength, f"{set_.reason} (event {set_.seq})"
        else:
            raw, why = default, ""
        value = resolution.clamp(raw, low, high)
        if value != raw:
            why = (f"{why}; " if why else "") + f"{raw} held to the bounds {low} to {high}"
        strengths[player] = value
        if value != default:
            unusual.append(StrengthUsed(player, value, why))
    tally = resolution.tally(ballots_of(decision), strengths, default=default,
                             quorum=int(params["quorum"]), ai=str(params["ai"]))
    return Counted(tally, strengths, tuple(unusual))


def resolution_of(state: State, decision: DecisionState) -> DecisionResolved:
    """What ``decision``'s ``decision.resolved`` says: its resolution as it stands (``tick``
    records it at the close, and the replay checks the event against it)."""
    c = counted(state, decision)
    t = c.tally
    return DecisionResolved(decision.id, t.outcome, int(decision.params["quorum"]), t.for_,
                            t.against, t.present, t.f, t.a, t.ballots, t.popularity,
                            int(decision.params["strength_default"]), c.unusual)


def as_resolved(decision: DecisionState, e: DecisionResolved) -> Counted:
    """The resolution ``e`` recorded for ``decision``, as :func:`counted` gives one: the
    strengths in force at its close, whatever has changed since."""
    tally = resolution.Tally(e.for_, e.against, e.present, e.f, e.a, e.ballots, e.popularity,
                             e.outcome)
    strengths = {p: e.default for p in decision.ballots} | {s.player: s.strength
                                                             for s in e.strengths}
    return Counted(tally, strengths, e.strengths)
