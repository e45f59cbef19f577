"""The rules of the Cards proposal as the ledger records them: each rule's number and short name,
its parameters (type, bounds, default, one line of documentation) and the versions of its code.

Which rules are in force, with which parameters and which version, is a fact of the ledger
(events ``rule.enacted``, ``rule.amended``, ``rule.repealed``; docs/rules.md, "Changing the
rules"); this module only declares what can be recorded and checks it. It is pure and sits with
the calendar and the settings, below the ledger, because the ledger's replay checks every rule
event against these declarations.

A rule is named by its number (``9``) or its short name (``cards-for-votes``); the calendar
rule ``nweeks`` has no number in the proposal. Parameters are whole numbers (with bounds) or
dates; ``KEY=VALUE`` is parsed by :func:`parse_assignment`, with one-line errors (a whole
number in ASCII digits only: ``٣`` is refused, not read as 3).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import ascii_int

_PACKS = re.compile(r"(0|[1-9][0-9]{0,3})(,(0|[1-9][0-9]{0,3})){0,99}")

#: A parameter's value as events and tables carry it.
ParamValue = int | str

#: What ``changed_by`` reads for the rules that ``init`` (the ``game.created`` event) enacted.
INIT = "init"

#: The actions a rule change records (the ``action`` of a row of ``rule_changes``).
ENACTED, AMENDED, REPEALED = "enacted", "amended", "repealed"


@dataclass(frozen=True)
class Param:
    """One parameter of a rule."""

    name: str
    kind: str  # "int", "date", "choice" or "packs" (pack numbers: "1,4")
    default: ParamValue
    doc: str
    low: int | None = None
    high: int | None = None
    #: set when the game is created and never amended (the epoch)
    fixed: bool = False
    #: a change takes effect at the next nweek boundary, not at once
    at_boundary: bool = False
    #: the values of a "choice" parameter
    choices: tuple[str, ...] = ()
    #: added after games were recorded: not written by init or enact unless given, and read
    #: as its default while absent from a rule's parameters (so older ledgers replay unchanged)
    implicit: bool = False

    @property
    def bounds(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "packs":
            return "pack numbers, ascending, comma-separated (e.g. 0,3)"
        return f"from {self.low} to {self.high}" if self.kind == "int" else "an ISO date"

    def check(self, value: object, rule: str) -> ParamValue:
        """``value`` if it is a valid value of this parameter, else :class:`InputError`."""
        where = f"{rule}.{self.name}"
        if self.kind == "int":
            if type(value) is not int:
                raise InputError(f"{where} must be a whole number {self.bounds}, not "
                                 f"{value!r}")
            assert self.low is not None and self.high is not None
            if not self.low <= value <= self.high:
                raise InputError(f"{where} must be {self.bounds}, not {value}")
            return value
        if self.kind == "packs":
            if type(value) is not str or not _PACKS.fullmatch(value) or \
                    [int(n) for n in value.split(",")] != \
                    sorted({int(n) for n in value.split(",")}):
                raise InputError(f"{where} must be {self.bounds}, not {value!r}")
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise InputError(f"{where} must be {self.bounds}, not {value!r}")
            assert isinstance(value, str)
            return value
        if type(value) is not str:
            raise InputError(f"{where} must be an ISO date, not {value!r}")
        try:
            date.fromisoformat(value)
        except ValueError:
            raise InputError(f"{where} must be an ISO date, not {value!r}") from None
        return value

    def parse(self, text: str, rule: str) -> ParamValue:
        """A value typed by the officer."""
        t = text.strip()
        if self.kind == "int":
            number = ascii_int(t, f"{rule}.{self.name}", signed=True)
            if number is None:
                raise InputError(f"{rule}.{self.name} must be a whole number {self.bounds} "
                                 f"written in ASCII digits 0-9, not {text!r}")
            return self.check(number, rule)
        return self.check(t, rule)


@dataclass(frozen=True)
class RuleSpec:
    """A rule as the code knows it."""

    number: str  # the proposal's number ("9"); "" for the calendar rule
    name: str
    title: str
    doc: str
    params: tuple[Param, ...] = ()
    #: the versions of this rule's code (a ``rule.amended`` may name one)
    versions: tuple[int, ...] = (1,)
    #: what each version after the first does differently (one line each, in order)
    version_docs: tuple[str, ...] = ()
    #: whether the code can honour the rule's repeal
    repealable: bool = False
    #: a card game (Rule 399), not a rule of the proposal: nomic_cards.core.installed
    game: bool = False
    #: a card game's parameter (yes/no) that lets its payments take Points below zero
    overdraw: str | None = None

    @property
    def label(self) -> str:
        """``rule 9 (cards-for-votes)``, or ``rule nweeks`` for the unnumbered one."""
        if self.game:
            return f"card game {self.name}"
        return f"rule {self.number} ({self.name})" if self.number else f"rule {self.name}"

    def param(self, key: str) -> Param:
        for p in self.params:
            if p.name == key:
                return p
        have = ", ".join(p.name for p in self.params) or "none"
        raise NotFound(f"{self.label} has no parameter {key!r} (its parameters: {have})")

    def defaults(self, settings: Mapping[str, str] | None = None) -> dict[str, ParamValue]:
        """The parameters as enacted by ``init``: the declared defaults, and for the calendar
        rule the game's own nweek length and epoch from its settings."""
        out: dict[str, ParamValue] = {p.name: p.default for p in self.params if not p.implicit}
        if self.name == "nweeks" and settings is not None:
            with contextlib.suppress(ValueError):
                out["days"] = int(settings.get("nweek_days", str(out["days"])))
            if settings.get("epoch"):
                out["epoch"] = settings["epoch"]
        return out

    def value(self, params: Mapping[str, ParamValue], key: str) -> ParamValue:
        """A parameter's value in ``params``, its default when not there (an implicit one)."""
        return params.get(key, self.param(key).default)

    def check_params(self, params: Mapping[str, object], *, amending: bool = False
                     ) -> dict[str, ParamValue]:
        """Every key a parameter of this rule and every value valid; a fixed parameter cannot
        be amended."""
        out: dict[str, ParamValue] = {}
        for key, value in params.items():
            p = self.param(key)
            if amending and p.fixed:
                raise RuleViolation(f"{self.name}.{key} is fixed when the game is created and "
                                    "cannot be amended")
            out[key] = p.check(value, self.name)
        return out

    def check_version(self, version: int) -> int:
        if version not in self.versions:
            have = ", ".join(str(v) for v in self.versions)
            known = "version" if len(self.versions) == 1 else "versions"
            raise InputError(f"{self.label} has no version {version} in this nomic-cards (it "
                             f"knows {known} {have})")
        return version


RULES: tuple[RuleSpec, ...] = (
    RuleSpec("1", "properties", "Cards: Properties",
             "Cards have a Suit, a Rank and a Back, and move only as the rules say."),
    RuleSpec("2", "packs", "Cards: The Packs",
             "A Pack is 52 Cards with one Back; the Packs in play (pack add)."),
    RuleSpec("4", "dealer", "Cards: The Dealer",
             "The Dealer owns the Deck and deals; an Elected Officer."),
    RuleSpec("5", "dealing", "Cards: Dealing",
             "One die of 52 x packs sides, rerolled until a card in the Deck; empty Deck: no "
             "deal."),
    RuleSpec("6", "hands", "Cards: Hands",
             "A Hand is the cards a player besides the Dealer owns."),
    RuleSpec("7", "deck", "Cards: The Deck",
             "The Deck is the cards the Dealer owns."),
    RuleSpec("8", "report", "Cards: Dealer's Report",
             "A report of who received Cards and their Backs.",
             (Param("every", "int", 1, "nweeks covered by one report, published at the end of "
                                       "the last of them", 1, 1000),
              Param("doubt_days", "int", 0, "days a report posted to the list must stand "
                    "undoubted before it is ratified (0: no claims of error; Agora's: 14)",
                    0, 365, implicit=True)),
             versions=(1, 2),
             version_docs=("the Backs alone, as rule 8's text says (\"No other information "
                           "about the Cards\"): not how each card came (its dice or its "
                           "transfer) nor the dice commitments",),
             repealable=True),
    RuleSpec("9", "cards-for-votes", "Cards for Votes",
             "At the beginning of each nweek, Cards to each Player who voted in the previous "
             "nweek.",
             (Param("cards", "int", 1, "cards dealt to each voter at the start of the next "
                                       "nweek", 0, 52),
              Param("absent", "choice", "skip", "a voter who is the Dealer or retired when the "
                    "cards are due: skip (no card) or owe (dealt at the first boundary where "
                    "they are an active player other than the Dealer)",
                    choices=("skip", "owe"), implicit=True)),
             repealable=True),
    RuleSpec("", "decisions", "The nomic's decisions",
             "Proposals put to a vote on the ledger: ballots, voting strengths, quorum and "
             "adoption index, resolved at their close (docs/decisions.md).",
             (Param("quorum", "int", 1, "distinct voters a decision needs (PRESENT counts), "
                                        "unless it is opened with another", 0, 100000),
              Param("strength-default", "int", 1, "a voter's strength unless the decision or "
                                                  "`strength set` gives another", 0, 15),
              Param("strength-low", "int", 0, "the lowest strength counted (a lower one is "
                                              "raised to it)", 0, 15),
              Param("strength-high", "int", 15, "the highest strength counted (a higher one "
                                                "is lowered to it)", 0, 15))),
    RuleSpec("", "nweeks", "The game calendar",
             "Game days from the epoch, grouped in nweeks.",
             (Param("days", "int", 10, "game days per nweek; a change takes effect at the next "
                                       "nweek boundary", 1, 1000, at_boundary=True),
              Param("epoch", "date", "", "the game's first day (fixed at init)", fixed=True))),
)

_BY_NAME = {r.name: r for r in RULES}
_BY_NUMBER = {r.number: r for r in RULES if r.number}


def rule_names() -> str:
    """``1 properties, 2 packs, ..., nweeks``."""
    return ", ".join(f"{r.number} {r.name}" if r.number else r.name for r in RULES)


def find_rule(text: str) -> RuleSpec:
    """A rule by its number or its short name (any case), or :class:`NotFound`."""
    t = text.strip().lower()
    found = _BY_NUMBER.get(t) or _BY_NAME.get(t)
    if found is None:
        raise NotFound(f"unknown rule {text!r}: the rules are {rule_names()}")
    return found


def parse_assignment(rule: RuleSpec, text: str) -> tuple[str, ParamValue]:
    """``KEY=VALUE`` as a parameter of ``rule`` and its checked value."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--set {text!r}: expected KEY=VALUE, e.g. --set cards=2")
    p = rule.param(key.strip())
    return p.name, p.parse(value, rule.name)


def parse_assignments(rule: RuleSpec, texts: Iterable[str]) -> dict[str, ParamValue]:
    """Every ``KEY=VALUE``; a key given twice is refused."""
    out: dict[str, ParamValue] = {}
    for text in texts:
        key, value = parse_assignment(rule, text)
        if key in out:
            raise InputError(f"--set {key} is given twice")
        out[key] = value
    return out
