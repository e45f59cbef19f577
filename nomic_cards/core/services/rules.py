"""Use cases for the rules in force: show them (as of any time), their history, and record what
the nomic decided -- a rule enacted, amended or repealed by a proposal (docs/rules.md,
"Changing the rules").

A change is checked whole before anything is written (an unknown rule or parameter, a value out
of bounds, amending a repealed rule, a time before the ledger's last event), and recorded in one
unit of work: after the work due at any nweek boundary that has passed, so a change never
reaches back before a boundary that was due.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core import ruleset
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import RuleAmended, RuleEnacted, RuleRepealed
from nomic_cards.core.ledger.state import RuleChange, State
from nomic_cards.core.ruleset import ParamValue, RuleSpec
from nomic_cards.core.services.common import iso, parse_when
from nomic_cards.errors import InputError, NotFound, RuleViolation

#: The longest proposal citation kept (an id or a title, not the proposal's text).
MAX_PROPOSAL = 500


@dataclass(frozen=True)
class RuleView:
    """A rule as in force at a moment: ``changed_by`` is the proposal (``init``) of the change
    that last touched it, ``since`` that change's time and ``event`` its event. For the calendar
    rule, ``from_nweek`` is the first nweek of the length in ``params``."""

    rule: str
    number: str
    title: str
    in_force: bool
    version: int
    params: dict[str, ParamValue]
    changed_by: str
    since: str
    event: int
    from_nweek: int | None = None


@dataclass(frozen=True)
class RuleChangeView:
    """One change to the rules, as ``rules history`` lists it."""

    event: int
    at: str
    rule: str
    number: str
    action: str
    in_force: bool
    version: int
    params: dict[str, ParamValue]
    proposal: str
    from_nweek: int | None = None


def _view(change: RuleChange) -> RuleView:
    spec = ruleset.spec(change.rule)
    return RuleView(change.rule, spec.number if spec else "", spec.title if spec else "",
                    change.in_force, change.version, dict(change.params), change.proposal,
                    iso(change.at) or "", change.seq, change.from_nweek)


def _change_view(change: RuleChange) -> RuleChangeView:
    spec = ruleset.spec(change.rule)
    return RuleChangeView(change.seq, iso(change.at) or "", change.rule,
                          spec.number if spec else "", change.action, change.in_force,
                          change.version, dict(change.params), change.proposal,
                          change.from_nweek)


def _order(name: str) -> int:
    return next((i for i, r in enumerate(ruleset.RULES) if r.name == name), len(ruleset.RULES))


def rules_at(state: State, when: datetime) -> list[RuleView]:
    """Every rule as it stood at ``when``, in the proposal's order."""
    current = state.rules_at(when)
    if not current and state.rule_changes:
        raise NotFound(f"the game did not exist yet at {iso(when)} (it was created at "
                       f"{iso(state.rule_changes[0].at)})")
    return [_view(c) for c in sorted(current.values(), key=lambda c: _order(c.rule))]


def rules_show(game: Game, *, at: str | None = None) -> list[RuleView]:
    """The rules as in force at ``at`` (default: now, the game's clock)."""
    when = parse_when(at, "--at time") if at is not None else None
    with game.read() as uow:
        return rules_at(uow.state, when if when is not None else game.clock.now())


def rules_history(game: Game, rule: str | None = None) -> list[RuleChangeView]:
    """Every change to the rules (of one rule), oldest first, the rules ``init`` enacted
    included."""
    name = ruleset.find_rule(rule).name if rule is not None else None
    with game.read() as uow:
        return [_change_view(c) for c in sorted(uow.state.rule_changes,
                                                key=lambda c: (c.seq, _order(c.rule)))
                if name is None or c.rule == name]


def _proposal(text: str) -> str:
    t = " ".join(text.split())
    if not t:
        raise InputError("--proposal must name the proposal (or other instrument) that made "
                         "the change")
    if len(t) > MAX_PROPOSAL:
        raise InputError(f"--proposal is longer than {MAX_PROPOSAL} characters: cite the "
                         "proposal, do not copy it")
    return t


def _when_repealed(change: RuleChange) -> str:
    return f"by {change.proposal!r} at {iso(change.at)}"


def amend_rule(game: Game, rule: str, sets: Sequence[str], *, proposal: str,
               version: int | None = None) -> RuleChangeView:
    """Record that ``proposal`` amended ``rule``: ``sets`` are ``KEY=VALUE``; ``version`` the
    version of the rule's code now in force."""
    spec = ruleset.find_rule(rule)
    cited = _proposal(proposal)
    params = ruleset.parse_assignments(spec, sets)
    if version is not None:
        spec.check_version(version)
    if not params and version is None:
        raise InputError(f"nothing to amend in {spec.label}: give --set KEY=VALUE or "
                         "--version N")
    spec.check_params(params, amending=True)
    with game.unit_of_work() as uow:
        now = _in_force(uow.state, spec, "amend")
        same = all(spec.value(now.params, k) == v for k, v in params.items()) and \
            (version is None or version == now.version)
        if same:
            shown = ", ".join(f"{k}={v}" for k, v in params.items()) or f"version {version}"
            raise RuleViolation(f"{spec.label} already has {shown}: nothing to amend")
        uow.record(RuleAmended(spec.name, params, version, cited))
        return _change_view(uow.state.rule_changes[-1])


def repeal_rule(game: Game, rule: str, *, proposal: str) -> RuleChangeView:
    """Record that ``proposal`` repealed ``rule``."""
    spec = ruleset.find_rule(rule)
    cited = _proposal(proposal)
    if not spec.repealable:
        raise RuleViolation(f"{spec.label} cannot be repealed in this nomic-cards: the other "
                            "rules it carries out depend on it (repealable: "
                            f"{', '.join(r.name for r in ruleset.RULES if r.repealable)})")
    with game.unit_of_work() as uow:
        _in_force(uow.state, spec, "repeal")
        uow.record(RuleRepealed(spec.name, cited))
        return _change_view(uow.state.rule_changes[-1])


def enact_rule(game: Game, rule: str, sets: Sequence[str] = (), *, proposal: str,
               version: int | None = None) -> RuleChangeView:
    """Record that ``proposal`` enacted ``rule`` (again): parameters not given take their
    defaults; ``version`` defaults to the newest the code knows."""
    spec = ruleset.find_rule(rule)
    cited = _proposal(proposal)
    params = ruleset.parse_assignments(spec, sets)
    spec.check_params(params)
    chosen = spec.check_version(version) if version is not None else spec.versions[-1]
    with game.unit_of_work() as uow:
        now = uow.state.rule(spec.name)
        if now is not None and now.in_force:
            raise RuleViolation(f"{spec.label} is in force (since {iso(now.at)}, "
                                f"{now.proposal!r}): amend it instead of enacting it")
        uow.record(RuleEnacted(spec.name, chosen, params, cited))
        return _change_view(uow.state.rule_changes[-1])


def _in_force(state: State, spec: RuleSpec, doing: str) -> RuleChange:
    now = state.rule(spec.name)
    if now is None:
        raise RuleViolation(f"{spec.label} was never enacted in this game: cannot {doing} it")
    if not now.in_force:
        fix = " (enact it again with `rules enact`)" if doing == "amend" else ""
        raise RuleViolation(f"{spec.label} is repealed ({_when_repealed(now)}): cannot "
                            f"{doing} it{fix}")
    return now
