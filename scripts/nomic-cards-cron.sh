#!/usr/bin/env bash
# For crontabs that name this script: finds the nomic-cards executable and runs
# `nomic-cards cron run`, which does the periodic work (tick, the notices by e-mail, each new
# Dealer's Report on stdout, everything else to a log; see docs/nweeks.md#cron for its
# environment). A new crontab names the executable itself:
#   5 0 * * * NOMIC_CARDS_DB=/srv/nomic/cards.db ... /srv/nomic/venv/bin/nomic-cards cron run
#
# NOMIC_CARDS_BIN  the nomic-cards executable. Default: the first of `nomic-cards` next to this
#                  script, the project's .venv/bin/nomic-cards beside scripts/, and nomic-cards
#                  on PATH (cron's PATH is only /usr/bin:/bin).
set -u
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${NOMIC_CARDS_BIN:-}" ]; then
  nc="$NOMIC_CARDS_BIN"
elif [ -x "$here/nomic-cards" ]; then
  nc="$here/nomic-cards"
elif [ -x "$here/../.venv/bin/nomic-cards" ]; then
  nc="$here/../.venv/bin/nomic-cards"
else
  nc="$(command -v nomic-cards || true)"
fi
if [ -z "$nc" ] || [ ! -x "$nc" ]; then
  echo "nomic-cards-cron: cannot find the nomic-cards executable${nc:+ ($nc)}: set" \
       "NOMIC_CARDS_BIN" >&2
  exit 1
fi
exec "$nc" cron run
