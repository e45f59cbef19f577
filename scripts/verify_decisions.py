#!/usr/bin/env python3
"""Recompute every resolution of the nomic's decisions from the public record, with nothing but
Python's standard library.

Reads a JSON array of events (``nomic-cards ledger export``: keys seq, at, kind, payload, ...)
from a file or standard input and, for every ``decision.resolved``, recomputes it from the
decision's opening, the ballots standing at its close and the voting strengths
(docs/decisions.md): who counted as FOR, AGAINST and PRESENT (endorsements followed), F and A,
the ballots, the popularity, the outcome, and every strength other than the default. A forged
outcome, tally or strength is one line naming the event. Exit 0 when every resolution follows,
1 otherwise (2: the input is not an export).

    python3 scripts/verify_decisions.py ledger.json

Check the chain itself with ``scripts/verify_chain.py``: this script trusts the events'
content and checks what follows from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import ROUND_HALF_UP, Decimal, localcontext
from pathlib import Path
from typing import Any

#: the decisions rule's parameters before any change (as ``init`` enacts them)
RULE_DEFAULTS = {"quorum": 1, "strength-default": 1, "strength-low": 0, "strength-high": 15}
OPTIONS = ("FOR", "AGAINST", "PRESENT")


def popularity(for_: int, against: int, ballots: int) -> str:
    if ballots == 0:
        return "0.000"
    with localcontext() as ctx:
        ctx.prec = 50
        value = Decimal(for_ - against) / Decimal(ballots)
    return str(value.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def final(ballots: dict[str, dict[str, Any]], player: str) -> str:
    seen: set[str] = set()
    who = player
    while who in ballots and ballots[who].get("endorse") is not None and who not in seen:
        seen.add(who)
        who = ballots[who]["endorse"]
    ballot = ballots.get(who)
    if ballot is None or ballot.get("endorse") is not None:
        return "PRESENT"
    return str(ballot["option"])


class Record:
    """The decisions' part of the public record, folded event by event."""

    def __init__(self) -> None:
        self.opened: dict[str, dict[str, Any]] = {}
        self.ballots: dict[str, dict[str, dict[str, Any]]] = {}
        self.strengths: dict[str, tuple[int, str, int]] = {}
        self.rule = dict(RULE_DEFAULTS)
        self.problems: list[str] = []

    def apply(self, e: dict[str, Any]) -> None:
        kind, p = e["kind"], json.loads(e["payload"])
        if kind in ("rule.enacted", "rule.amended") and p.get("rule") == "decisions":
            if kind == "rule.enacted":
                self.rule = dict(RULE_DEFAULTS)
            self.rule.update(p.get("params") or {})
        elif kind == "decision.opened":
            self.opened[p["id"]] = p
            self.ballots[p["id"]] = {}
        elif kind == "ballot.cast":
            self.ballots.setdefault(p["decision"], {})[p["player"]] = p
        elif kind == "strength.set":
            if p["strength"] is None:
                self.strengths.pop(p["player"], None)
            else:
                self.strengths[p["player"]] = (int(p["strength"]), p["reason"], e["seq"])
        elif kind == "decision.resolved":
            self.check(e["seq"], p)

    def check(self, seq: int, said: dict[str, Any]) -> None:
        d = self.opened.get(said["decision"])
        if d is None:
            self.problems.append(f"event {seq}: decision {said['decision']} was never opened")
            return
        ballots = self.ballots.get(d["id"], {})
        default = int(d["strength_default"])
        given = {s["player"]: int(s["strength"]) for s in d.get("strengths", [])}
        low, high = int(self.rule["strength-low"]), int(self.rule["strength-high"])
        strengths: dict[str, int] = {}
        unusual = []
        for player in sorted(ballots):
            if player in given:
                raw, why = given[player], "given when the decision was opened"
            elif player in self.strengths:
                raw, reason, at = self.strengths[player]
                why = f"{reason} (event {at})"
            else:
                raw, why = default, ""
            value = max(low, min(high, raw))
            if value != raw:
                why = (f"{why}; " if why else "") + f"{raw} held to the bounds {low} to {high}"
            strengths[player] = value
            if value != default:
                unusual.append({"player": player, "strength": value, "why": why})
        counted = {p: final(ballots, p) for p in ballots}
        names = {o: sorted(p for p, got in counted.items() if got == o) for o in OPTIONS}
        f = sum(strengths[p] for p in names["FOR"])
        a = sum(strengths[p] for p in names["AGAINST"])
        n = len(counted)
        if n < int(d["quorum"]):
            outcome = "FAILED QUORUM"
        else:
            adopted = Decimal(f) >= Decimal(d["ai"]) * Decimal(a) and f > a
            outcome = "ADOPTED" if adopted else "REJECTED"
        right = {"outcome": outcome, "quorum": int(d["quorum"]), "for": names["FOR"],
                 "against": names["AGAINST"], "present": names["PRESENT"], "f": f, "a": a,
                 "ballots": n, "popularity": popularity(len(names["FOR"]),
                                                        len(names["AGAINST"]), n),
                 "default": default, "strengths": unusual}
        for key, value in right.items():
            if said.get(key) != value:
                self.problems.append(f"event {seq}: decision {d['id']}'s {key} is recorded as "
                                     f"{said.get(key)!r}; its ballots and strengths give "
                                     f"{value!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("export", nargs="?", default="-", help="the export (default: stdin)")
    args = ap.parse_args(argv)
    try:
        text = (sys.stdin.read() if args.export == "-" else
                Path(args.export).read_text(encoding="utf-8"))
        events = json.loads(text)
        assert isinstance(events, list)
    except (OSError, ValueError, AssertionError) as exc:
        print(f"error: cannot read the export: {exc or 'not a JSON array'}", file=sys.stderr)
        return 2
    record = Record()
    resolved = 0
    for e in events:
        try:
            record.apply(e)
        except (KeyError, TypeError, ValueError) as exc:
            record.problems.append(f"event {e.get('seq')}: cannot be read: {exc}")
        resolved += e.get("kind") == "decision.resolved"
    for line in record.problems:
        print(line)
    print(f"{resolved} resolution(s) recomputed, {len(record.problems)} problem(s)")
    return 1 if record.problems else 0


if __name__ == "__main__":
    sys.exit(main())
