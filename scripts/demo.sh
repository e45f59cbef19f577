#!/usr/bin/env bash
# A short demo game on SQLite: init, players, deals (with rerolls shown), a hand, the Deck,
# a ledger verify. Uses the `nomic-cards` on PATH (or $NOMIC_CARDS); leaves nothing behind.
set -euo pipefail
NC="${NOMIC_CARDS:-nomic-cards}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
export NOMIC_CARDS_DB="$dir/demo.db"
export NOMIC_CARDS_ACTOR="demo"

run() { printf '\n$ nomic-cards %s\n' "$*"; "$NC" "$@"; }

run init
run player add Ienne --email ienne@example.org
run player add Wonko
run player add Zilch
run player list

# The Dealer types results from an external dice server: card 17 goes to Zilch; then, for
# Wonko, the server says 17 again (no longer in the Deck: roll again), then 300 (out of range
# for a d208: asked again), then 90.
printf '\n$ nomic-cards deal Zilch --dice manual   (dice server says 17)\n'
printf '17\n' | "$NC" deal Zilch --dice manual
printf '\n$ nomic-cards deal Wonko --dice manual   (dice server says 17, 300, 90)\n'
printf '17\n300\n90\n' | "$NC" deal Wonko --dice manual

# The committed-seed die (the default): the commitment was published at init. It rolls again
# for the cards dealt above.
run deal Ienne --reason "Cards for Votes"
run deal Wonko

run hand Wonko
run transfer 90 --to Ienne --rule "Proposal 142 (a trade)"
run hand Ienne
run deck
run log -n 5
run ledger verify
run dice verify --secret  # the Dealer's private check of the rolls not yet revealed
# Revealing the seed shows every number the period rolled, so it is refused while those cards
# are in hands; the demo game ends here, so the Dealer reveals anyway.
run dice reveal --force
run dice verify
