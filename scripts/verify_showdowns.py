#!/usr/bin/env python3
"""Check every card shown at a Pooker Showdown against the public record alone, with nothing but
Python's standard library.

Reads the JSON array of ``nomic-cards ledger export`` (or stdin; check the chain itself with
scripts/verify_chain.py). For each ``pooker.shown`` event, each shown card comes with an opening
``{"card", "event", "salt"}``: the event that put the card in the shower's Hand (a deal, a
transfer or a trade) published the card's own commitment, the hex SHA-256 of the netstrings of
``"nomic-cards/card/1"``, the salt and the card's number. The check: that event is earlier,
gave a card to the shower, and its commitment opens to the shown card. A card put there by an
event recorded before per-card commitments existed (no commitment, empty salt) is reported as
unproven, not as false. Opening one card's commitment says nothing about the other cards of
that event: each has its own salt.

    python3 scripts/verify_showdowns.py ledger.json

Prints one line per problem (and per unproven card with --strict); exit 0 when every opening
checks, 1 otherwise.
"""

import argparse
import hashlib
import json
import sys


def netstring(text):
    data = text.encode("utf-8")
    return str(len(data)).encode() + b":" + data + b","


def card_commitment(salt, card):
    parts = ["nomic-cards/card/1", salt, str(card)]
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()


def commitments_to(event, payload, player):
    """The commitments an event published for cards it gave ``player`` (None: it has none)."""
    kind = event["kind"]
    if kind == "card.dealt" and payload.get("player") == player:
        return [payload["commit"]] if payload.get("commit") else None
    if kind == "card.transferred" and payload.get("to") == player:
        return [payload["commit"]] if payload.get("commit") else None
    if kind == "pooker.traded":
        if payload.get("a") == player:
            return list(payload.get("to_a", []))
        if payload.get("b") == player:
            return list(payload.get("to_b", []))
    return []


def verify(events, strict=False):
    """(problems, unproven, checked) over the public record ``events``."""
    by_seq = {e["seq"]: e for e in events}
    problems, unproven, checked = [], [], 0
    for e in events:
        if e["kind"] != "pooker.shown":
            continue
        shown = json.loads(e["payload"])
        player = shown["player"]
        cards = sorted(c for hand in shown["hands"] for c in hand)
        openings = shown.get("openings", [])
        if sorted(o["card"] for o in openings) != cards:
            problems.append(f"event {e['seq']}: the openings are not one per shown card")
        for o in openings:
            where = f"event {e['seq']}: card {o['card']} shown by {player}"
            source = by_seq.get(o["event"])
            if source is None or o["event"] >= e["seq"]:
                problems.append(f"{where}: its opening names event {o['event']}, not an "
                                "earlier event of this record")
                continue
            commits = commitments_to(source, json.loads(source["payload"]), player)
            if commits is None or (not commits and not o["salt"]):
                unproven.append(f"{where}: event {o['event']} carries no per-card commitment "
                                "(recorded before they existed): unproven")
                continue
            if not commits:
                problems.append(f"{where}: event {o['event']} gave {player} no card")
            elif card_commitment(o["salt"], o["card"]) not in commits:
                problems.append(f"{where}: the opening does not match a commitment of event "
                                f"{o['event']}")
            else:
                checked += 1
    if strict:
        problems.extend(unproven)
    return problems, unproven, checked


def main(argv):
    ap = argparse.ArgumentParser(description="Check Pooker Showdowns against the public record.")
    ap.add_argument("file", nargs="?", help="the JSON array of events (default: stdin)")
    ap.add_argument("--strict", action="store_true", help="count unproven cards as problems")
    args = ap.parse_args(argv)
    if args.file:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    events = json.loads(text) if text.strip() else []
    problems, unproven, checked = verify(events, args.strict)
    for p in problems:
        print(p)
    if not args.strict:
        for u in unproven:
            print(u)
    print(f"{checked} shown card(s) checked, {len(unproven)} unproven, {len(problems)} "
          "problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
