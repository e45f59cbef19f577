"""Event to mail under libfaketime, as deployed: every command a real process whose clock
libfaketime sets (``nomic-cards act`` for each player's act, ``nomic-cards cron run`` at each
five minutes, as docs/deploy.md's crontab runs it), the mail server a real one (aiosmtpd).
For each kind of Pooker notice -- an offer, a withdrawal, a decline, a Motion, a reminder, a
lapse -- the mail's Date is at most five minutes after the event it tells."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

from freezegun import freeze_time

from nomic_cards.core import api
from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.nomic import Nomic
from tests.helpers import new_game, sql
from tests.mailbox import Kept
from tests.pooker.support import fund, give
from tests.server.page_support import require_faketime

BIN = Path(sys.executable).parent / "nomic-cards"
BASE = "https://cards.example.org"
ADDRESSES = {"ann": "ann@spoon.example", "ben": "ben@spoon.example",
             "cat": "cat@spoon.example"}
EVERY = timedelta(minutes=5)
START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Deployed:
    """The game's file, and its commands run at a time libfaketime sets."""

    def __init__(self, tmp: Path, server: str) -> None:
        self.tmp, self.db = tmp, tmp / "cards.db"
        self.last = START  # the crontab's last run
        self.env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp), "HOME": str(tmp),
                    "LD_PRELOAD": str(require_faketime()), "NOMIC_CARDS_DB": str(self.db),
                    "NOMIC_CARDS_LOG": str(tmp / "cron.log"), "NOMIC_CARDS_SMTP": server,
                    "NOMIC_CARDS_BASE_URL": BASE}

    def run(self, at: datetime, *args: str) -> str:
        env = {**self.env, "FAKETIME": f"@{at.strftime('%Y-%m-%d %H:%M:%S')}"}
        done = subprocess.run([str(BIN), *args], env=env, capture_output=True, text=True,
                              timeout=120, cwd=self.tmp)
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
        return done.stdout

    def act(self, at: datetime, player: str, action: str, *fields: str) -> int:
        """The action's first event."""
        out = json.loads(self.run(at, "act", action, "--as", player, "--json", *fields))
        return int(out["events"][0]["event"])

    def until(self, upto: datetime) -> None:
        """cron run at each five minutes after the last one, until ``upto``."""
        while self.last + EVERY <= upto:
            self.last += EVERY
            self.run(self.last, "cron", "run")

    def skip_to(self, at: datetime) -> None:
        """One run at ``at`` (the crontab's runs in between left out: nothing is due in them
        but what this one does), the five minutes from then on."""
        self.run(at, "cron", "run")
        self.last = at.replace(minute=at.minute - at.minute % 5, second=0)


def setup(db: Path) -> None:
    with freeze_time("2026-01-01T11:00:00Z"), \
            new_game(f"sqlite:///{db}", epoch=date(2026, 1, 1), nweek_days=10,
                     players=tuple(ADDRESSES)) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        fund(game, *ADDRESSES, n=100)
        for name, address in ADDRESSES.items():
            with game.write() as tx:
                api.set_email(tx, name, address)
        give(game, "ann", "Red As", "Red Ks")
        give(game, "ben", "Blue 2c", "Blue 3c")
        give(game, "cat", "Red 4h", "Blue 5d")


def notices_since(game: Nomic, seq: int) -> list[int]:
    with game.read() as tx:
        return sorted(n.event for n in api.notices(tx) if n.event > seq and n.player in ADDRESSES)


def head(game: Nomic) -> int:
    return int(str(sql(game, "select max(seq) from events")[0][0]))


def test_event_to_mail_for_each_kind_under_libfaketime(tmp_path: Path,
                                                       smtp: tuple[str, Kept]) -> None:
    server, inbox = smtp
    d = Deployed(tmp_path, server)
    setup(d.db)
    d.run(START, "cron", "run")  # the cards given, mailed
    kinds: dict[str, list[int]] = {}
    with Nomic(f"sqlite:///{d.db}") as game:
        def step(kind: str, at: datetime, player: str, action: str, *fields: str) -> int:
            d.until(at)
            h = head(game)
            first = d.act(at, player, action, *fields)
            kinds.setdefault(kind, []).extend(notices_since(game, h))
            return first

        def minutes(m: float) -> datetime:
            return START + timedelta(seconds=round(m * 60))

        offer = step("offer", minutes(2.3), "ann", "pooker.trade", "with=ben",
                     "give=Red As", "get=Blue 2c")
        step("withdrawal", minutes(7.6), "ann", "pooker.withdraw", f"notification={offer}")
        offer = step("offer", minutes(10.7), "ann", "pooker.trade", "with=cat",
                     "give=Red Ks", "get=Red 4h")
        step("decline", minutes(13.5), "cat", "pooker.decline", f"notification={offer}")
        lapsing = step("offer", minutes(16), "ben", "pooker.trade", "with=cat",
                       "give=Blue 3c", "get=Blue 5d")
        step("motion", minutes(22), "ann", "pooker.motion")
        d.until(minutes(30))
        expires = parse_time(str(sql(game, "select at from events where seq = :s",
                                     s=lapsing)[0][0]).replace(" ", "T")) + timedelta(days=7)
        # the crontab's runs around the reminder, a day before the lapse, and the lapse
        d.skip_to(expires - timedelta(days=1, minutes=20))  # the Motion's end, days before
        h = head(game)
        d.until(expires - timedelta(days=1) + timedelta(minutes=10))
        kinds["reminder"] = notices_since(game, h)
        d.skip_to(expires - timedelta(minutes=20))
        h = head(game)
        d.until(expires + timedelta(minutes=10))
        kinds["lapse"] = notices_since(game, h)
        at = {int(s): parse_time(str(a).replace(" ", "T"))
              for s, a in sql(game, "select seq, at from events")}

    mailed: dict[int, datetime] = {}
    for m in inbox.messages:
        for s in str(m["X-Nomic-Cards-Events"]).split(", "):
            assert int(s) not in mailed, f"notice {s} mailed twice"
            mailed[int(s)] = parsedate_to_datetime(str(m["Date"]))
    figures = {}
    for kind, seqs in kinds.items():
        assert seqs, kind
        assert set(seqs) <= set(mailed), f"{kind}: {sorted(set(seqs) - set(mailed))} unmailed"
        worst = max(mailed[s] - at[s] for s in seqs)
        figures[kind] = worst
        # five minutes, and the seconds a run under libfaketime takes to reach its sending
        assert timedelta(0) <= worst <= EVERY + timedelta(seconds=30), f"{kind}: {worst}"
    print("libfaketime, event to mail, the most per kind:",
          ", ".join(f"{k} {v.total_seconds():.0f} s" for k, v in figures.items()))
    (reminder,) = kinds["reminder"]
    assert timedelta(hours=23, minutes=54) <= expires - mailed[reminder] <= timedelta(days=1)
