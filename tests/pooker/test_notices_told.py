"""Told promptly and truly, by a real SMTP server (aiosmtpd) and the sending cron runs every
five minutes (docs/deploy.md): each kind of Pooker notice reaches its player within five
minutes of its event; a digest counts as waiting only what still waits when it is sent; a
reminder comes a day before its deadline, never more, never less than 12 hours, for a
player mailed at each sending and for one mailed a daily digest; a lapse, a withdrawal and a
decline are told to both sides."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import parsedate_to_datetime

import pytest
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.core import api
from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.self_service import choose_mail
from tests.game_time import moment
from tests.helpers import sql
from tests.mailbox import Kept
from tests.pooker.support import fund, give

BASE = "https://cards.example.org"
ADDRESSES = {"ann": "ann@spoon.example", "ben": "ben@spoon.example",
             "cat": "cat@spoon.example"}
#: the crontab's cadence
EVERY = timedelta(minutes=5)




@pytest.fixture
def pg(pg: Nomic) -> Nomic:
    """ann, ben and cat with 100 Points each and an address, the Dealer PurpleBob without."""
    fund(pg, "ann", "ben", "cat", n=100)
    for name, address in ADDRESSES.items():
        with pg.write() as tx:
            api.set_email(tx, name, address)
    give(pg, "ann", "Red As", "Red Ks")
    give(pg, "ben", "Blue 2c", "Blue 3c")
    give(pg, "cat", "Red 4h", "Blue 5d")
    return pg


class Cron:
    """``cron run``'s tick and sending at each five minutes of the clock, as the crontab
    runs them; ``mails``: (when sent, the message) in order."""

    def __init__(self, game: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept]
                 ) -> None:
        self.game, self.clock, (self.server, self.inbox) = game, clock, smtp
        self.reports: list[api.SendReport] = []

    def run(self) -> None:
        with self.game.write() as tx:
            api.tick(tx)
        self.reports.append(api.send_notices(self.game, smtp=self.server, base_url=BASE))

    def until(self, end: datetime) -> None:
        """Every run of the crontab from the clock's next five minutes to ``end``."""
        now = self.clock().replace(tzinfo=UTC)  # the frozen clock's time
        step = now.replace(minute=now.minute - now.minute % 5, second=0, microsecond=0)
        while step + EVERY <= end:
            step += EVERY
            self.clock.move_to(step)
            self.run()

    def at(self, when: datetime) -> None:
        """The crontab's runs until ``when``, then the clock at ``when``."""
        self.until(when)
        self.clock.move_to(when)

    @property
    def mails(self) -> list[EmailMessage]:
        return list(self.inbox.messages)


def to(mails: list[EmailMessage], player: str) -> list[EmailMessage]:
    return [m for m in mails if str(m["To"]).endswith(f"<{ADDRESSES[player]}>")]


def events_of(msg: EmailMessage) -> list[int]:
    return [int(s) for s in str(msg["X-Nomic-Cards-Events"]).split(", ")]


def body(msg: EmailMessage) -> str:
    return str(msg.get_content()).replace("\r\n", "\n")


def event_time(game: Nomic, seq: int) -> datetime:
    return parse_time(str(sql(game, "select at from events where seq = :s", s=seq)[0][0])
                      .replace(" ", "T"))


def delays(game: Nomic, mails: list[EmailMessage]) -> dict[int, timedelta]:
    """For each notice mailed: from its event to its mail's Date."""
    return {seq: parsedate_to_datetime(str(m["Date"])) - event_time(game, seq)
            for m in mails for seq in events_of(m)}


def test_each_kind_of_notice_is_mailed_within_five_minutes(
        pg: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept]) -> None:
    cron = Cron(pg, clock, smtp)
    start = moment(0.5)
    kinds: dict[str, list[int]] = {}

    def mark(kind: str, since: int) -> None:
        """The notices recorded since event ``since``, but the Dealer's (no address)."""
        with pg.read() as tx:
            kinds[kind] = sorted(n.event for n in api.notices(tx)
                                 if n.event > since and n.player in ADDRESSES)

    def head() -> int:
        return int(str(sql(pg, "select max(seq) from events")[0][0]))

    cron.at(start + timedelta(minutes=2, seconds=17))
    h = head()
    with pg.write() as tx:
        offer = pooker.trade(tx, "ann", ["Red As"], ["Blue 2c"], "ben").notified
    mark("offer", h)
    cron.at(start + timedelta(minutes=7, seconds=40))
    h = head()
    with pg.write() as tx:
        pooker.withdraw(tx, "ann", offer)
    mark("withdrawal", h)
    cron.at(start + timedelta(minutes=11, seconds=5))
    with pg.write() as tx:
        offer = pooker.trade(tx, "ann", ["Red Ks"], ["Red 4h"], "cat").notified
    cron.at(start + timedelta(minutes=13, seconds=30))
    h = head()
    with pg.write() as tx:
        pooker.decline(tx, "cat", offer)
    mark("decline", h)
    cron.at(start + timedelta(minutes=16, seconds=1))
    with pg.write() as tx:
        offer = pooker.trade(tx, "ben", ["Blue 3c"], ["Blue 5d"], "cat").notified
    cron.at(start + timedelta(minutes=21, seconds=59))
    h = head()
    with pg.write() as tx:
        pooker.motion(tx, "ann")
    mark("motion", h)
    cron.at(start + timedelta(minutes=30))
    # the offer's reminder, a day before it lapses 7 days on, and its lapse
    expires = start + timedelta(days=7, minutes=16, seconds=1)
    clock.move_to(expires - timedelta(days=1, minutes=20))
    cron.run()  # the Motion's end, days before: what came due meanwhile
    h = head()
    cron.at(expires - timedelta(days=1) + timedelta(minutes=10))
    mark("reminder", h)
    clock.move_to(expires - timedelta(minutes=20))
    cron.run()
    h = head()
    cron.at(expires + timedelta(minutes=10))
    mark("lapse", h)

    got = delays(pg, cron.mails)
    figures = {}
    for kind, seqs in kinds.items():
        assert seqs, kind
        assert set(seqs) <= set(got), f"{kind}: notices {seqs} not all mailed"
        worst = max(got[s] for s in seqs)
        figures[kind] = worst
        assert timedelta(0) <= worst <= EVERY, f"{kind}: {worst}"
    print("event to mail, the most per kind:",
          ", ".join(f"{k} {v.total_seconds():.0f} s" for k, v in figures.items()))
    # each mailed once
    mailed = [s for m in cron.mails for s in events_of(m)]
    assert len(mailed) == len(set(mailed))
    # the reminder: a day before the lapse, less the cadence at most
    (reminder,) = kinds["reminder"]
    sent = next(parsedate_to_datetime(str(m["Date"])) for m in cron.mails
                if reminder in events_of(m))
    assert timedelta(hours=23, minutes=55) <= expires - sent <= timedelta(days=1)


def test_a_lapse_a_withdrawal_and_a_decline_are_told_to_both_sides(
        pg: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept]) -> None:
    cron = Cron(pg, clock, smtp)
    with pg.write() as tx:
        first = pooker.trade(tx, "ann", ["Red As"], ["Blue 2c"], "ben").notified
        second = pooker.trade(tx, "ann", ["Red Ks"], ["Red 4h"], "cat").notified
        third = pooker.trade(tx, "ben", ["Blue 3c"], ["Blue 5d"], "cat").notified
    cron.run()
    before = len(cron.mails)
    with pg.write() as tx:
        pooker.withdraw(tx, "ann", first)
        pooker.decline(tx, "cat", second)
    cron.at(moment(8))  # the third lapsed after 7 days
    told = cron.mails[before:]
    text = {p: "\n".join(body(m) for m in to(told, p)) for p in ADDRESSES}
    assert f"you withdrew your trade notification naming ben (event {first})" in text["ann"]
    assert f"ann withdrew eir trade notification naming you (event {first})" in text["ben"]
    assert f"cat declined your trade notification (event {second})" in text["ann"]
    assert f"you declined ann's trade notification naming you (event {second})" in text["cat"]
    assert f"your trade notification naming cat lapsed (event {third})" in text["ben"]
    assert f"ben's trade offer to you lapsed (event {third})" in text["cat"]


def test_a_digest_counts_as_waiting_only_what_still_waits(
        pg: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept]) -> None:
    cron = Cron(pg, clock, smtp)
    cron.run()  # the cards dealt
    before = len(cron.mails)
    with pg.write() as tx:
        pooker.trade(tx, "ann", ["Red As"], ["Blue 2c"], "ben")
        pooker.motion(tx, "ann")
        pooker.vote(tx, "ben", True)
        pooker.vote(tx, "ann", True)
    cron.run()
    mails = cron.mails[before:]
    (ben,) = to(mails, "ben")
    text = body(ben)
    # two notices: the offer still waits, the Motion e voted on does not
    assert text.startswith("ben, the game has 2 new notices for you. 1 of them wait for you")
    assert "ben made" not in text and "ann made Motion 1 to Show Cards: vote on it" in text
    assert "Done: this no longer waits for you (it was due by 2026-01-04T12:00:00Z)" in text
    assert "By: 2026-01-08T12:00:00Z" in text  # the offer's deadline
    (cat,) = to(mails, "cat")
    assert body(cat).startswith("cat, the game has 1 new notice for you. It waits for you")
    assert "By: 2026-01-04T12:00:00Z" in body(cat)
    # the Dealer, told of the Motion too, has no address: counted, not a warning
    assert cron.reports[-1].officer == 1 and cron.reports[-1].skipped == ()
    (ann,) = to(mails, "ann")  # voted on eir own Motion: nothing waits
    assert "wait" not in body(ann).splitlines()[0]
    assert "Done: this no longer waits for you" in body(ann)


@pytest.mark.parametrize(("made", "earliest", "latest"), [
    # the reminder comes at 12:30 the day before the lapse: the digest after the next
    # midnight is 12.5 hours before the deadline, not less than 12: it waits for it
    (0.5 + 30 / 1440, timedelta(hours=12), timedelta(hours=12, minutes=30)),
    # the reminder comes at 10:00: the next digest would be 10 hours before the deadline,
    # too late: it goes at once
    (1 + 10 / 24, timedelta(hours=23, minutes=55), timedelta(days=1)),
])
def test_a_daily_digest_reminds_between_a_day_and_twelve_hours_before(
        pg: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept], made: float,
        earliest: timedelta, latest: timedelta) -> None:
    cron = Cron(pg, clock, smtp)
    with pg.write() as tx:
        choose_mail(tx, "ben", "daily")
    clock.move_to(moment(made))
    with pg.write() as tx:
        offer = pooker.trade(tx, "ann", ["Red As"], ["Blue 2c"], "ben")
    expires = parse_time(offer.expires)
    clock.move_to(expires - timedelta(days=1, minutes=10))
    cron.until(expires)
    reminders = [m for m in to(cron.mails, "ben") if "lapses in a day" in body(m)
                 or "reminder" in body(m).lower()]
    assert reminders, [body(m) for m in to(cron.mails, "ben")]
    sent = parsedate_to_datetime(str(reminders[0]["Date"]))
    assert earliest <= expires - sent <= latest, expires - sent
    # one digest a day: no two of ben's mails on one UTC day but the reminder sent at once
    days = [parsedate_to_datetime(str(m["Date"])).date() for m in to(cron.mails, "ben")]
    assert len(days) == len(set(days)) or latest == timedelta(days=1)


def test_a_decision_cast_on_before_the_sending_no_longer_waits(
        pg: Nomic, clock: FrozenDateTimeFactory, smtp: tuple[str, Kept]) -> None:
    from nomic_cards.core.services.decisions import cast_ballot, open_decision

    cron = Cron(pg, clock, smtp)
    cron.run()
    before = len(cron.mails)
    with pg.write() as tx:
        open_decision(tx, "9355", title="More cards", author="ann", ai="1.0", quorum=2,
                      closes="2026-01-04T11:00:00Z")
        cast_ballot(tx, "ann", "9355", option="FOR")
    cron.run()
    mails = cron.mails[before:]
    (ann,) = to(mails, "ann")
    assert "wait" not in body(ann).splitlines()[0]
    assert "Done: this no longer waits for you (it was due by 2026-01-04T11:00:00Z)" in body(ann)
    (ben,) = to(mails, "ben")
    assert body(ben).startswith("ben, the game has 1 new notice for you. It waits for you")
    assert "By: 2026-01-04T11:00:00Z" in body(ben)
