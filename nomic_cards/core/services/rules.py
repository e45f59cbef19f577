"""Use cases for the rules in force: show them (as of any time), their history, and record what
the nomic decided -- a rule enacted, amended or repealed by a proposal (docs/rules.md,
"Changing the rules").

A change is checked whole before anything is written (an unknown rule or parameter, a value out
of bounds, amending a repealed rule, a time before the ledger's last event), and recorded in one
transaction: after the work due at any nweek boundary that has passed, so a change never
reaches back before a boundary that was due.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core import engine, installed, ruleset
from nomic_cards.core.ledger.events import RuleAmended, RuleEnacted, RuleRepealed
from nomic_cards.core.ledger.state import RuleChange, State
from nomic_cards.core.ruleset import ParamValue, RuleSpec
from nomic_cards.core.services.common import iso, parse_when
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import shorten

__all__ = [
    "CardGameView",
    "RuleChangeView",
    "RuleView",
    "amend_rule",
    "enact_rule",
    "game_amend",
    "game_enact",
    "game_list",
    "game_repeal",
    "repeal_rule",
    "rules_history",
    "rules_show",
]


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
    spec = installed.spec(change.rule)
    return RuleView(change.rule, spec.number if spec else "", spec.title if spec else "",
                    change.in_force, change.version, dict(change.params), change.proposal,
                    iso(change.at) or "", change.seq, change.from_nweek)


def _change_view(change: RuleChange) -> RuleChangeView:
    spec = installed.spec(change.rule)
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


def rules_show(tx: Reads, *, at: str | None = None) -> list[RuleView]:
    """The rules as in force at ``at`` (default: now, the game's clock)."""
    when = parse_when(at, "--at time") if at is not None else None
    return rules_at(tx.state, when if when is not None else tx.clock.now())


def rules_history(tx: Reads, rule: str | None = None) -> list[RuleChangeView]:
    """Every change to the rules (of one rule), oldest first, the rules ``init`` enacted
    included."""
    name = ruleset.find_rule(rule).name if rule is not None else None
    return [_change_view(c) for c in sorted(tx.state.rule_changes,
                                            key=lambda c: (c.seq, _order(c.rule)))
            if name is None or c.rule == name]


def cite(text: str) -> str:
    """The proposal (or other instrument) a change cites: spaces folded, not empty, at most
    :data:`MAX_PROPOSAL` characters."""
    return _proposal(text)


def _proposal(text: str) -> str:
    t = " ".join(text.split())
    if not t:
        raise InputError("--proposal must name the proposal (or other instrument) that made "
                         "the change")
    if len(t) > MAX_PROPOSAL:
        raise InputError(f"--proposal is longer than {MAX_PROPOSAL} characters: cite the "
                         "proposal, do not copy it")
    return t


def _cited(state: State, text: str) -> str:
    """The proposal a change cites; one that names a decision of the ledger only once that
    decision was ADOPTED (a change it carries is recorded by its resolution)."""
    cited = _proposal(text)
    decision = state.decisions.get(cited)
    if decision is not None and decision.outcome != "ADOPTED":
        status = f"was {decision.outcome}" if decision.outcome else "is not resolved yet"
        raise RuleViolation(f"decision {cited} {status}: a rule change cites it only once it "
                            "is ADOPTED")
    return cited


def _when_repealed(change: RuleChange) -> str:
    return f"by {change.proposal!r} at {iso(change.at)}"


def amend_rule(tx: Tx, rule: str, sets: Sequence[str], *, proposal: str,
               version: int | None = None) -> RuleChangeView:
    """Record that ``proposal`` amended ``rule``: ``sets`` are ``KEY=VALUE``; ``version`` the
    version of the rule's code now in force."""
    spec = ruleset.find_rule(rule)
    cited = _cited(tx.state, proposal)
    params = ruleset.parse_assignments(spec, sets)
    if version is not None:
        spec.check_version(version)
    if not params and version is None:
        raise InputError(f"nothing to amend in {spec.label}: give --set KEY=VALUE or "
                         "--version N")
    spec.check_params(params, amending=True)
    now = _in_force(tx.state, spec, "amend")
    same = all(spec.value(now.params, k) == v for k, v in params.items()) and \
        (version is None or version == now.version)
    if same:
        shown = ", ".join(f"{k}={v}" for k, v in params.items()) or f"version {version}"
        raise RuleViolation(f"{spec.label} already has {shown}: nothing to amend")
    tx.record(RuleAmended(spec.name, params, version, cited))
    return _change_view(tx.state.rule_changes[-1])


def repeal_rule(tx: Tx, rule: str, *, proposal: str) -> RuleChangeView:
    """Record that ``proposal`` repealed ``rule``."""
    spec = ruleset.find_rule(rule)
    cited = _cited(tx.state, proposal)
    if not spec.repealable:
        raise RuleViolation(f"{spec.label} cannot be repealed in this nomic-cards: the other "
                            "rules it carries out depend on it (repealable: "
                            f"{', '.join(r.name for r in ruleset.RULES if r.repealable)})")
    _in_force(tx.state, spec, "repeal")
    _nothing_under_way(tx.state, spec.name)
    tx.record(RuleRepealed(spec.name, cited))
    return _change_view(tx.state.rule_changes[-1])


def enact_rule(tx: Tx, rule: str, sets: Sequence[str] = (), *, proposal: str,
               version: int | None = None) -> RuleChangeView:
    """Record that ``proposal`` enacted ``rule`` (again): parameters not given take their
    defaults; ``version`` defaults to the version last in force (a rule enacted again is put
    back), else the first."""
    spec = ruleset.find_rule(rule)
    cited = _cited(tx.state, proposal)
    params = ruleset.parse_assignments(spec, sets)
    spec.check_params(params)
    if version is not None:
        spec.check_version(version)
    now = tx.state.rule(spec.name)
    if now is not None and now.in_force:
        raise RuleViolation(f"{spec.label} is in force (since {iso(now.at)}, "
                            f"{now.proposal!r}): amend it instead of enacting it")
    # put back as it was last in force, unless told which version
    chosen = version if version is not None else \
        now.version if now is not None and now.version in spec.versions else spec.versions[0]
    tx.record(RuleEnacted(spec.name, chosen, params, cited))
    return _change_view(tx.state.rule_changes[-1])


def _in_force(state: State, spec: RuleSpec, doing: str) -> RuleChange:
    now = state.rule(spec.name)
    if now is None:
        raise RuleViolation(f"{spec.label} was never enacted in this game: cannot {doing} it")
    if not now.in_force:
        fix = " (enact it again with `rules enact`)" if doing == "amend" else ""
        raise RuleViolation(f"{spec.label} is repealed ({_when_repealed(now)}): cannot "
                            f"{doing} it{fix}")
    return now


# --- card games (Rule 399) -----------------------------------------------------------------


@dataclass(frozen=True)
class CardGameView:
    """A card game in force: its name, the packs bound to it (numbers and names), its other
    parameters and the change that last touched it."""

    game: str
    packs: list[int]
    pack_names: list[str]
    params: dict[str, ParamValue]
    changed_by: str
    since: str
    event: int


def _game_spec(name: str) -> RuleSpec:
    found = installed.rule(name.strip().lower())
    if found is None:
        raise NotFound(f"unknown card game {shorten(name)}: the games installed are "
                       f"{', '.join(installed.known()) or 'none'}")
    return found


def _pack_numbers(state: State, text: str) -> str:
    """``--packs Red,3`` as the ``packs`` parameter ("0,3"): each a pack's name or number."""
    numbers: set[int] = set()
    for item in (t.strip() for t in text.split(",")):
        if not item:
            raise InputError(f"--packs {shorten(text)}: name each pack, separated by commas")
        if item.isascii() and item.isdigit():
            n = int(item)
        else:
            n = next((p.number for p in state.packs if p.name.lower() == item.lower()), -1)
            if n < 0:
                raise NotFound(f"--packs: no pack named {shorten(item)} (the packs: "
                               f"{', '.join(p.name for p in state.packs)})")
        if n in numbers:
            raise InputError(f"--packs names pack {n} twice")
        numbers.add(n)
    return ",".join(str(n) for n in sorted(numbers))


def _check_binding(state: State, spec: RuleSpec, params: dict[str, ParamValue]) -> None:
    problem = state.binding_problem(spec.name, str(params.get("packs", "")))
    if problem is not None:
        raise RuleViolation(problem)


def _game_change(name: str, sets: Sequence[str], proposal: str
                 ) -> tuple[RuleSpec, str, dict[str, ParamValue]]:
    """A card game's declaration, the proposal cited and the parameters a change sets (its
    packs are given apart, never as ``--set packs=``)."""
    spec = _game_spec(name)
    cited = _proposal(proposal)
    params = ruleset.parse_assignments(spec, sets)
    if "packs" in params:
        raise InputError("give the packs with --packs, not --set packs=")
    return spec, cited, params


def game_enact(tx: Tx, name: str, packs: str, sets: Sequence[str] = (), *,
               proposal: str) -> RuleChangeView:
    """Record that ``proposal`` enacted card game ``name`` binding ``packs``."""
    spec, cited, params = _game_change(name, sets, proposal)
    _cited(tx.state, cited)
    spec.check_params(params)
    state = tx.state
    now = state.rule(spec.name)
    if now is not None and now.in_force:
        raise RuleViolation(f"{spec.label} is in force (since {iso(now.at)}, "
                            f"{now.proposal!r}): amend it instead of enacting it")
    params = {"packs": _pack_numbers(state, packs), **params}
    _check_binding(state, spec, params)
    tx.record(RuleEnacted(spec.name, spec.versions[-1], params, cited,
                          installed.package(spec.name) or ""))
    return _change_view(state.rule_changes[-1])


def game_amend(tx: Tx, name: str, sets: Sequence[str] = (), *, packs: str | None = None,
               proposal: str, version: int | None = None) -> RuleChangeView:
    """Record that ``proposal`` amended card game ``name`` (its packs, its parameters and/or
    the version of its rules now in force)."""
    spec, cited, params = _game_change(name, sets, proposal)
    _cited(tx.state, cited)
    if version is not None:
        spec.check_version(version)
    if not params and packs is None and version is None:
        raise InputError(f"nothing to amend in {spec.label}: give --packs, --set KEY=VALUE "
                         "or --version N")
    spec.check_params(params, amending=True)
    state = tx.state
    now = _in_force(state, spec, "amend")
    if packs is not None:
        params = {"packs": _pack_numbers(state, packs), **params}
        _check_binding(state, spec, {**now.params, **params})
        if set(str(now.params.get("packs", "")).split(",")) - set(str(params["packs"]).split(",")):
            _nothing_under_way(state, spec.name, "amendment")
    if all(spec.value(now.params, k) == v for k, v in params.items()) and \
            (version is None or version == now.version):
        shown = ", ".join(f"{k}={v}" for k, v in params.items()) or f"version {version}"
        raise RuleViolation(f"{spec.label} already has {shown}: nothing to amend")
    tx.record(RuleAmended(spec.name, params, version, cited))
    return _change_view(state.rule_changes[-1])


def game_repeal(tx: Tx, name: str, *, proposal: str) -> RuleChangeView:
    """Record that ``proposal`` repealed card game ``name``: its packs are free again."""
    spec = _game_spec(name)
    cited = _cited(tx.state, proposal)
    _in_force(tx.state, spec, "repeal")
    _nothing_under_way(tx.state, spec.name)
    tx.record(RuleRepealed(spec.name, cited))
    return _change_view(tx.state.rule_changes[-1])


def _nothing_under_way(state: State, name: str, change: str = "repeal") -> None:
    """A card game is repealed, or loses a pack, once what it has under way is resolved: a
    repeal while one of its windows is open (a Showdown, a notification waiting) would leave
    that never resolved, and its close may move cards of the pack, which are then no longer
    the game's to move (docs/games.md, "What a game may change")."""
    declared = engine.game(name)
    open_ = sorted(declared.windows(state), key=lambda w: w.end) if declared is not None else []
    if open_:
        last = open_[-1]
        doing = "be repealed" if change == "repeal" else "lose a pack"
        raise RuleViolation(f"card game {name} cannot {doing} while {len(open_)} of its "
                            f"windows are open (the last, {last.what}, ends "
                            f"{last.end.strftime('%Y-%m-%dT%H:%M:%SZ')}): record the {change} "
                            "once `tick` has closed them")


def game_list(tx: Reads) -> list[CardGameView]:
    """The card games in force and the packs bound to each."""
    state = tx.state
    out: list[CardGameView] = []
    for name, change in sorted(state.rules.items()):
        found = installed.spec(name)
        if not change.in_force or found is None or not found.game:
            continue
        numbers = [int(n) for n in str(change.params.get("packs", "")).split(",") if n]
        out.append(CardGameView(name, numbers, [state.packs[n].name for n in numbers],
                                {k: v for k, v in change.params.items() if k != "packs"},
                                change.proposal, iso(change.at) or "", change.seq))
    return out
