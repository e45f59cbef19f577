#!/usr/bin/env bash
# Periodic work for cron: tick (Cards for Votes, the Dealer's Report, the new dice period), then
# e-mail the private notices, then print each Dealer's Report not yet posted to the list.
#
# Cron mails whatever a job prints, stdout and stderr, to the crontab's MAILTO: the game's list.
# So this script prints the new Dealer's Report(s) and nothing else; everything else (tick's
# lines, each notice sent with its player's address, errors) goes to a log file. A quiet day
# prints nothing. A run in which a command failed also writes ONE line to stderr, naming the
# command and the log file, so the failure reaches the officer without leaking the details.
#
# Environment:
#   NOMIC_CARDS_DB     the game database (SQLite path or postgresql:// URL)   [required]
#   NOMIC_CARDS_BIN    the nomic-cards executable. Default: the first of `nomic-cards` next to
#                      this script, the project's .venv/bin/nomic-cards beside scripts/, and
#                      nomic-cards on PATH (cron's PATH is only /usr/bin:/bin).
#   NOMIC_CARDS_LOG    the log file (appended to). Default:
#                      ${XDG_STATE_HOME:-$HOME/.local/state}/nomic-cards/cron.log
#   NOMIC_CARDS_SMTP   HOST:PORT of the mail server for notices (skip mail when unset)
#   NOMIC_CARDS_SMTP_TLS      none (default), starttls or ssl
#   NOMIC_CARDS_SMTP_CA_FILE  CA certificates (PEM) for the mail server's certificate
#   NOMIC_CARDS_SMTP_USER, NOMIC_CARDS_SMTP_PASSWORD  the mail login, if any
#   NOMIC_CARDS_FROM   From: address for notices (optional)
#   NOMIC_CARDS_REPORT_FORMAT  text (default), markdown or json
#
# Crontab (every day at 00:05 UTC; tick does nothing on days that start no nweek):
#   CRON_TZ=UTC
#   MAILTO=cards@lists.example.org
#   5 0 * * * NOMIC_CARDS_DB=/srv/nomic/cards.db NOMIC_CARDS_BIN=/srv/nomic/venv/bin/nomic-cards NOMIC_CARDS_LOG=/srv/nomic/cron.log NOMIC_CARDS_SMTP=localhost:25 /srv/nomic/nomic-cards-cron.sh
set -uo pipefail
me="nomic-cards-cron"
if [ -z "${NOMIC_CARDS_DB:-}" ]; then
  echo "$me: set NOMIC_CARDS_DB to the game database" >&2
  exit 1
fi
export NOMIC_CARDS_DB
export NOMIC_CARDS_ACTOR="${NOMIC_CARDS_ACTOR:-cron}"

if [ -n "${NOMIC_CARDS_LOG:-}" ]; then
  log="$NOMIC_CARDS_LOG"
elif [ -n "${XDG_STATE_HOME:-}" ] || [ -n "${HOME:-}" ]; then
  log="${XDG_STATE_HOME:-$HOME/.local/state}/nomic-cards/cron.log"
else
  echo "$me: set NOMIC_CARDS_LOG to a log file (HOME is not set)" >&2
  exit 1
fi
if ! mkdir -p -- "$(dirname -- "$log")" 2>/dev/null || ! : >>"$log" 2>/dev/null; then
  echo "$me: cannot write the log file $log (set NOMIC_CARDS_LOG)" >&2
  exit 1
fi

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
  echo "$me: cannot find the nomic-cards executable${nc:+ ($nc)}: set NOMIC_CARDS_BIN" \
       "(see $log)" >&2
  echo "$me $(date -u +%Y-%m-%dT%H:%M:%SZ): no executable; NOMIC_CARDS_BIN=${NOMIC_CARDS_BIN:-}" \
       "PATH=$PATH" >>"$log"
  exit 1
fi

note() { printf '%s\n' "$*" >>"$log"; }
failed=""
# Run one nomic-cards command with its stdout and stderr appended to the log.
run() {
  note "\$ nomic-cards $*"
  "$nc" "$@" >>"$log" 2>&1
  local code=$?
  if [ "$code" -ne 0 ]; then
    note "(exit $code)"
    failed="${failed:+$failed, }$1${2:+ $2} (exit $code)"
  fi
  return 0
}

note "--- $me $(date -u +%Y-%m-%dT%H:%M:%SZ) pid $$"

# One run at a time on this machine: two runs would mail the same notices twice.
lock="${TMPDIR:-/tmp}/nomic-cards-cron.$(printf '%s' "$NOMIC_CARDS_DB" | cksum | cut -d' ' -f1).lock"
if ! { exec 9>"$lock"; } 2>/dev/null; then
  note "cannot open the lock file $lock"
  echo "$me: cannot open the lock file $lock; see $log" >&2
  exit 1
fi
flock -n -E 75 9
case $? in
  0) ;;
  75) note "another run holds $lock: nothing done"; exit 0 ;;
  *) note "flock failed on $lock"; echo "$me: cannot lock $lock; see $log" >&2; exit 1 ;;
esac

# tick prints each nweek as soon as it is committed; what it printed in this run is read back
# from the log (even when it failed midway, the nweeks it committed are listed).
run tick

if [ -n "${NOMIC_CARDS_SMTP:-}" ]; then
  run notices send --smtp "$NOMIC_CARDS_SMTP" --tls "${NOMIC_CARDS_SMTP_TLS:-none}" \
    ${NOMIC_CARDS_SMTP_CA_FILE:+--ca-file "$NOMIC_CARDS_SMTP_CA_FILE"} \
    ${NOMIC_CARDS_FROM:+--from "$NOMIC_CARDS_FROM"}
fi

# Every report published and not yet posted, whichever command published it (tick, or one
# that did a boundary's work first), once, in order, exactly as stored, a blank line between
# two; recorded as posted.
note "\$ nomic-cards report --new (to stdout)"
if ! "$nc" report --new --format "${NOMIC_CARDS_REPORT_FORMAT:-text}" 2>>"$log"; then
  note "(report --new failed)"
  failed="${failed:+$failed, }report --new"
fi

if [ -n "$failed" ]; then
  note "--- failed: $failed"
  echo "$me: $failed failed; see $log" >&2
  exit 1
fi
note "--- done"
