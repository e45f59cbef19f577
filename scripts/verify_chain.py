#!/usr/bin/env python3
"""Check the public record of a nomic-cards ledger, with nothing but Python's standard library.

Reads a JSON array of events (keys seq, at, actor, kind, subject, payload, private, prev_hash,
hash) from a file or standard input -- from ``nomic-cards ledger export``, or straight from the
database (docs/ledger.md shows the sqlite3 and psql commands) -- and checks the numbering, every
link and every hash. Prints one line per problem; exit 0 when the chain is whole, 1 otherwise.
Optional: ``--head EVENT:HASH`` checks that the chain passes through a published head.

    python3 scripts/verify_chain.py ledger.json [--head 37:3fa2...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from typing import TypedDict


class Event(TypedDict):
    """One event of the public record, as exported (docs/ledger.md)."""

    seq: int
    at: str
    actor: str
    kind: str
    subject: str | None
    payload: str
    private: str | None
    prev_hash: str
    hash: str


def netstring(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode() + b":" + data + b","


def event_hash(e: Event) -> str:
    parts = ["nomic-cards/2", str(e["seq"]), e["at"], e["actor"], e["kind"], e["subject"] or "",
             e["prev_hash"], e["private"] or "", e["payload"]]
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()


def verify(events: Sequence[Event], heads: Iterable[tuple[int, str]] = ()) -> list[str]:
    problems: list[str] = []
    prev = "0" * 64
    hashes: dict[int, str] = {}
    for n, e in enumerate(events, 1):
        if e["seq"] != n:
            problems.append(f"event {e['seq']}: expected event {n} here")
        if e["prev_hash"] != prev:
            problems.append(f"event {e['seq']}: the link to the event before is broken")
        if event_hash(e) != e["hash"]:
            problems.append(f"event {e['seq']}: the hash does not match the content")
        prev = hashes[e["seq"]] = e["hash"]
    for seq, digest in heads:
        if hashes.get(seq) != digest:
            problems.append(f"event {seq}: the published head {digest[:16]}... is not in the chain")
    return problems


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Check the public record of a nomic-cards ledger.")
    ap.add_argument("file", nargs="?", help="the JSON array of events (default: stdin)")
    ap.add_argument("--head", action="append", default=[], metavar="EVENT:HASH",
                    help="a published ledger head the chain must pass through")
    args = ap.parse_args(argv)
    heads = [(int(h.partition(":")[0]), h.partition(":")[2]) for h in args.head]
    if args.file:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    events: list[Event] = json.loads(text) if text.strip() else []
    problems = verify(events, heads)
    for p in problems:
        print(p)
    if not problems:
        print(f"chain OK: {len(events)} events, head {events[-1]['hash'] if events else '-'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
