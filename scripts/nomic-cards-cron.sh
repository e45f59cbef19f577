#!/usr/bin/env bash
# Periodic work for cron: tick (Cards for Votes, the Dealer's Report, the new dice period), then
# e-mail the private notices, then print the latest Dealer's Report (cron mails stdout to the
# crontab's MAILTO, e.g. the game's mailing list).
#
# Environment:
#   NOMIC_CARDS_DB     the game database (SQLite path or postgresql:// URL)   [required]
#   NOMIC_CARDS_SMTP   HOST:PORT of the mail relay for notices (skip mail when unset)
#   NOMIC_CARDS_FROM   From: address for notices (optional)
#   NOMIC_CARDS_BIN    the nomic-cards executable (default: nomic-cards on PATH)
#   NOMIC_CARDS_REPORT_FORMAT  text (default), markdown or json
#
# Crontab line (every day at 00:05 UTC; tick does nothing on days that start no nweek):
#   CRON_TZ=UTC
#   5 0 * * * NOMIC_CARDS_DB=/srv/nomic/cards.db NOMIC_CARDS_SMTP=localhost:25 /srv/nomic/nomic-cards-cron.sh
set -euo pipefail
: "${NOMIC_CARDS_DB:?set NOMIC_CARDS_DB to the game database}"
export NOMIC_CARDS_DB
NC="${NOMIC_CARDS_BIN:-nomic-cards}"
export NOMIC_CARDS_ACTOR="${NOMIC_CARDS_ACTOR:-cron}"

# One run at a time on this machine (tick itself is safe to run concurrently; this only avoids
# piling up runs when a mail relay hangs).
lock="${TMPDIR:-/tmp}/nomic-cards-cron.$(printf '%s' "$NOMIC_CARDS_DB" | cksum | cut -d' ' -f1).lock"
exec 9>"$lock"
flock -n 9 || { echo "nomic-cards-cron: another run holds $lock" >&2; exit 0; }

out="$("$NC" tick)"
echo "$out" >&2
if [ -n "${NOMIC_CARDS_SMTP:-}" ]; then
  "$NC" notices send --smtp "$NOMIC_CARDS_SMTP" ${NOMIC_CARDS_FROM:+--from "$NOMIC_CARDS_FROM"} >&2
fi
# Print the report only when this run published one, so the list gets each report once.
if printf '%s\n' "$out" | grep -q "published the Dealer's Report"; then
  "$NC" report --format "${NOMIC_CARDS_REPORT_FORMAT:-text}"
fi
