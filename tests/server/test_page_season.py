"""A short season of Pooker at the players' table, told in time and answered where they look:
three players and the Dealer, each in Debian's Chromium (Playwright) against a real
``nomic-cards serve`` on SQLite -- ann with a mouse at 1280 pixels, bob on a phone 375 pixels
wide, cat by the keyboard alone, and the Dealer with an officer token -- while a real SMTP
server (aiosmtpd) takes the notices that ``nomic-cards cron run`` mails, run as the documented
crontab runs it (docs/deploy.md: every five minutes).

The server and every command run under libfaketime at game times the test sets (from the
games' epoch, whatever the day; the browser keeps the real time, so the page must show the
server's). What must hold:

- every action's answer (or the rules' refusal) is under its control, in a live region, and in
  the viewport where the action was taken (bounding boxes); what cannot be undone asks first,
  saying what happens; the focus stays on the control or its answer, never on the body;
- every notice reaches its player's mailbox within five minutes of its event, and before the
  deadline its ``By:`` line gives; a digest counts as waiting only what still waits;
- signed in, the first screen (375x740 and 1280x800) shows what waits, each with its deadline,
  and the hand in brief, the token box folded; the Dealer's page has no hand and no votes;
- the Dealer's Report on the page is wrapped to its box, its packs named; the standings list
  every player and the Bank; the private notices are newest first; a player changes eir
  address through the action and the link mailed to the new one; serve's banner and log hold
  no password;
- the countdowns (the next nweek, the Motion's voting, the time left to show) match the
  server's clock within a second, and the nweek and nday roll over at the boundary with no
  event;
- what waits for a player goes once it is done; a "waits" answer changes when the trade is
  made, declined or withdrawn;
- the pages pass axe-core; a screenshot of each step is kept under the test's tmp dir.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import json
import re
import socket
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.game_time import moment
from tests.server.page_support import (
    CSP_WATCH,
    FakeClock,
    Tab,
    live_table,
    require_browser,
)
from tests.server.test_page_table import in_first_screen

#: a server, four browsers, an SMTP server and a dozen commands: the full run only
pytestmark = pytest.mark.slow

#: the season's first moment: nweek 1, nday 2 of the test games' calendar
START = moment(1.375)  # 2026-01-02 09:00 UTC
PLAYERS = ("ann", "bob", "cat")
ADDRESS = {"ann": "ann@example.org", "bob": "bob@example.org", "cat": "cat@example.org",
           "PurpleBob": "dealer@example.org"}


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


# --- the mailbox ------------------------------------------------------------------------------


@dataclass
class Mail:
    to: tuple[str, ...]
    message: EmailMessage
    #: when it reached the mailbox, on the game's (the server's) clock
    arrived: datetime

    def events(self) -> set[int]:
        return {int(n) for n in str(self.message["X-Nomic-Cards-Events"]).split(",")}


@dataclass
class Mailbox:
    """An SMTP server's handler (aiosmtpd) keeping every message it accepts."""

    clock: FakeClock
    mails: list[Mail] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.mails.append(Mail(tuple(envelope.rcpt_tos), message, self.clock.now()))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the table --------------------------------------------------------------------------------


@dataclass
class Season:
    base: str
    db: str
    clock: FakeClock
    browser: Any
    tokens: dict[str, str]
    mailbox: Mailbox
    smtp: str
    shots: Path
    #: the server's output (its banner first) and cron's log
    serve_log: Path
    cron_log: Path
    taken: list[Path] = field(default_factory=list)
    #: when each cron run ran, on the game's clock
    runs: list[datetime] = field(default_factory=list)

    def cli(self, *args: str) -> str:
        return self.clock.run(self.db, *args)

    def mail_notices(self) -> None:
        """cron's next run, as the documented crontab (``*/5 * * * * nomic-cards cron run``)
        makes it: the game's clock on to the next five-minute mark, then ``cron run`` (tick,
        then notices send to the SMTP server, naming the page)."""
        now = self.clock.now()
        mark = now.replace(second=0, microsecond=0) + timedelta(minutes=5 - now.minute % 5)
        self.clock.set(mark)
        self.cli("cron", "run", "--smtp", self.smtp, "--base-url", self.base,
                 "--log", str(self.cron_log))
        self.runs.append(mark)

    def recorded_at(self, seq: int) -> datetime:
        """When event ``seq`` was recorded (the ledger's own time of it)."""
        path = self.db.removeprefix("sqlite:///")
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            (at,) = db.execute("select at from events where seq = ?", (seq,)).fetchone()
        when = datetime.fromisoformat(str(at))
        return when if when.tzinfo else when.replace(tzinfo=UTC)

    def shot(self, tab: Tab, name: str, *, full: bool = False) -> None:
        width = tab.page.viewport_size["width"]
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= width, name
        path = self.shots / f"{len(self.taken) + 1:02d}-{name}.png"
        tab.page.screenshot(path=str(path), full_page=full)
        self.taken.append(path)


@pytest.fixture
def season(tmp_path: Path) -> Iterator[Season]:
    from aiosmtpd.controller import Controller

    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    clock = FakeClock.at(START, tmp_path)

    def cli(*args: str) -> str:
        return clock.run(db, *args)

    cli("init", "--epoch", "2026-01-01", "--nweek-days", "10")
    for name in PLAYERS:
        cli("player", "add", name, "--email", ADDRESS[name])
    cli("player", "email", "PurpleBob", ADDRESS["PurpleBob"])
    cli("game", "enact", "pooker", "--packs", "Red,Blue", "--proposal", "P456",
        "--set", "trigger-pcards=6")
    # the cards the page's Dealer does not move emself
    for card, who in (("Red As", "ann"), ("Red Ks", "ann"), ("Red Qs", "ann"), ("Red Js", "ann"),
                      ("Red 9h", "ann"), ("Red 2h", "bob"), ("Red 3d", "cat"), ("Red 4c", "cat"),
                      ("Red 4d", "cat"), ("Red 5c", "cat"), ("Red 5d", "cat")):
        cli("transfer", card, "--to", who, "--from", "deck", "--rule", "P470: dealt")
    for name in PLAYERS:
        cli("points", "grant", name, "5", "--rule", "Scorekeeper report")
    tokens = {name: json.loads(cli("token", "issue", name, "--json"))["token"]
              for name in PLAYERS}
    tokens["dealer"] = json.loads(cli("token", "issue", "PurpleBob", "--scope", "dealer",
                                      "--json"))["token"]
    mailbox = Mailbox(clock)
    port = free_port()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=port)
    smtp.start()
    shots = tmp_path / "shots"
    shots.mkdir()
    try:
        with live_table(db, tmp_path, clock) as (base, browser):
            port_of = base.rsplit(":", 1)[1]
            yield Season(base, db, clock, browser, tokens, mailbox, f"127.0.0.1:{port}", shots,
                         tmp_path / f"serve-{port_of}.log", tmp_path / "cron.log")
    finally:
        smtp.stop()
    print(f"screenshots: {shots}")


def seat(s: Season, token: str, *, width: int, height: int = 900, phone: bool = False) -> Tab:
    """A browser of one's own, on the page (signed in by the caller)."""
    context = s.browser.new_context(viewport={"width": width, "height": height},
                                    is_mobile=phone, has_touch=phone)
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), s.base)
    tab.watch(tab.page)
    tab.open()
    return tab


def signed_in(tab: Tab, token: str) -> None:
    tab.sign_in(token)
    expect(tab.page.locator("#live-status")).to_have_text("Following the game live.")


def keys_to(page: Any, selector: str, *, limit: int = 400) -> None:
    """Tab until the focus is on ``selector``: the keyboard alone moves it."""
    for _ in range(limit):
        if page.evaluate("(s) => Boolean(document.activeElement?.matches(s))", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


#: how far past the viewport's edge a box may lie and still be wholly in view: less than a
#: pixel (a page that keeps an answer in its place scrolls by whole pixels, and what was flush
#: with the edge can end a fraction of a pixel past it)
SUBPIXEL = 1.0


def in_view(page: Any, selector: str) -> dict[str, float]:
    """``selector``'s box, which must lie wholly within the viewport as it is now."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, selector
    assert box["y"] > -SUBPIXEL and box["y"] + box["height"] < size["height"] + SUBPIXEL, \
        (selector, box)
    assert box["x"] > -SUBPIXEL and box["x"] + box["width"] < size["width"] + SUBPIXEL, \
        (selector, box)
    return dict(box)


#: whether the element matching a selector lies wholly within the viewport (to a pixel: SUBPIXEL)
IN_VIEW_JS = """(s) => { const e = document.querySelector(s); if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.top > -1 && r.left > -1 && r.bottom < innerHeight + 1 && r.right < innerWidth + 1; }"""


def answered(page: Any, answer: str, text: Any, *, control_y: float, kind: str = "ok") -> None:
    """The action's answer says ``text``, in a live region, under its control and in the
    viewport where the action was taken: within half a screen of where the control was
    (``control_y``, its top in the viewport when it was clicked or pressed), once the page
    has settled -- however much of the page above it was drawn anew."""
    loc = page.locator(answer)
    expect(loc).to_have_text(text)
    expect(loc).to_have_class(re.compile(rf"\b{kind}\b"))
    expect(loc).to_have_attribute("aria-live", "polite")
    with contextlib.suppress(Exception):  # said below, with the box
        page.wait_for_function(IN_VIEW_JS, arg=answer, timeout=10_000)
    box = in_view(page, answer)
    assert abs(box["y"] - control_y) < page.viewport_size["height"] / 2, (answer, box, control_y)
    assert page.evaluate("document.activeElement !== document.body"), answer


def press_enter(page: Any) -> float:
    """Enter on the focused control (the keyboard alone); its top in the viewport."""
    y = float(page.evaluate("document.activeElement.getBoundingClientRect().top"))
    page.keyboard.press("Enter")
    return y


def click_in_view(page: Any, selector: str) -> float:
    """Clicks ``selector`` (scrolled into view, as a player does); its top in the viewport."""
    page.locator(selector).scroll_into_view_if_needed()
    y = in_view(page, selector)["y"]
    page.click(selector)
    return y


def confirm(page: Any, slot: str, says: str) -> None:
    """The confirmation under a control: says what happens; the focus on its yes."""
    box = page.locator(f"#{slot}-confirm")
    expect(box).to_be_visible()
    expect(box).to_contain_text(says)
    assert page.evaluate("document.activeElement.id") == f"{slot}-confirm-yes"
    with contextlib.suppress(Exception):  # said below, with the box
        page.wait_for_function(IN_VIEW_JS, arg=f"#{slot}-confirm", timeout=5_000)
    in_view(page, f"#{slot}-confirm")


def say_yes(page: Any, slot: str) -> float:
    """Clicks the confirmation's yes: the act is taken there (the page may have scrolled to
    show the confirmation, on a phone); its top in the viewport."""
    yes = f"#{slot}-confirm-yes"
    y = in_view(page, yes)["y"]
    page.click(yes)
    return y


def axe_clean(tab: Tab) -> None:
    from tests.server.test_page import axe_violations

    count, report = axe_violations(tab.page)
    assert count == 0, report


LEFT = re.compile(r"(?:(\d+) days? )?(\d\d):(\d\d):(\d\d)")


def seconds_shown(text: str) -> int:
    m = LEFT.search(text)
    assert m, text
    days, h, mi, se = (int(x) if x else 0 for x in m.groups())
    return ((days * 24 + h) * 60 + mi) * 60 + se


def matches_server_clock(s: Season, page: Any, selector: str, until: datetime) -> None:
    """The countdown at ``selector`` shows the time left until ``until`` on the server's
    clock, within a second (once the page has learned the server's clock)."""
    page.wait_for_function("() => window.NomicCards.clockError() < 100", timeout=30_000)
    page.wait_for_timeout(300)  # a tick of the page's own, after it learned the clock
    before = (until - s.clock.now()).total_seconds()
    shown = seconds_shown(page.locator(selector).text_content())
    after = (until - s.clock.now()).total_seconds()
    assert after - 1 <= shown <= before + 1, (selector, shown, before, after)


def game_view(s: Season, who: str) -> dict[str, Any]:
    r = httpx.get(f"{s.base}/api/v1/me/games", timeout=10,
                  headers={"Authorization": f"Bearer {s.tokens[who]}"})
    r.raise_for_status()
    view: dict[str, Any] = r.json()["games"]["pooker"]
    return view


def head(s: Season) -> int:
    return int(httpx.get(f"{s.base}/api/v1/ledger/head", timeout=10).json()["event"])


def test_a_short_season_told_in_time_and_answered_where_they_look(season: Season) -> None:
    s = season
    dealer = seat(s, s.tokens["dealer"], width=1280)
    ann = seat(s, s.tokens["ann"], width=1280)
    bob = seat(s, s.tokens["bob"], width=375, height=740, phone=True)
    cat = seat(s, s.tokens["cat"], width=1280)
    d, a, b, c = dealer.page, ann.page, bob.page, cat.page
    for tab, who in ((dealer, "dealer"), (ann, "ann"), (bob, "bob")):
        signed_in(tab, s.tokens[who])
    # cat signs in by the keyboard alone
    keys_to(c, "#token")
    c.keyboard.type(s.tokens["cat"])
    c.keyboard.press("Enter")
    expect(c.locator("#me-status")).to_have_text(re.compile(r"^cat, you hold 5 cards"))
    expect(c.locator("#live-status")).to_have_text("Following the game live.")

    # --- the Dealer's table: the main content is the Dealer's, never "you hold 0 cards"
    expect(d.locator("#me-title")).to_have_text("The Dealer's table")
    expect(d.locator("#me-status")).to_have_text(
        "PurpleBob, you are the Dealer: the Deck holds 197 cards (as of event "
        f"{head(s)}). Your officer token takes the Dealer's actions below.")
    # no hand and no votes: what waits for the Dealer, and the Dealer's tools
    for hidden in ("#hand-part", "#votes", "#votes-title"):
        expect(d.locator(hidden)).to_be_hidden()
    expect(d.locator("#waiting-title")).to_have_text("Waiting for the Dealer")
    expect(d.locator("#hand-brief")).to_be_empty()
    assert not re.search(r"you hold \d+ cards?", d.locator("#me").inner_text())
    expect(d.locator("#dealer-actions legend")).to_have_text(
        ["Deal a card", "Move a card", "Record a vote", "Tick"])
    expect(d.locator("#pooker-open-form")).to_be_visible()  # Pooker's: Open a Showdown
    axe_clean(dealer)
    s.shot(dealer, "dealer-table", full=True)

    # the Dealer moves three cards through the page, each answered under its button
    for card, who in (("Blue 2h", "ann"), ("Red 10s", "bob"), ("Red 3c", "cat")):
        d.fill("#dealer-transfer-card", card)
        d.select_option("#dealer-transfer-from", "deck")
        d.select_option("#dealer-transfer-to", who)
        d.fill("#dealer-transfer-rule", "P470: dealt")
        y = click_in_view(d, "#dealer-transfer-submit")
        answered(d, "#dealer-transfer-answer",
                 f"Done: moved a card from Deck to {who} under 'P470: dealt'.", control_y=y)
        expect(d.locator("#dealer-transfer-card")).to_have_value("")  # ready for the next
    # a refusal is the rules' sentence, in the same place; the form keeps what was typed
    d.fill("#dealer-transfer-card", "Red As")
    d.select_option("#dealer-transfer-from", "deck")
    d.select_option("#dealer-transfer-to", "bob")
    d.fill("#dealer-transfer-rule", "P470: dealt")
    y = click_in_view(d, "#dealer-transfer-submit")
    answered(d, "#dealer-transfer-answer", re.compile(r"in ann's hand"), kind="error",
             control_y=y)
    expect(d.locator("#dealer-transfer-card")).to_have_value("Red As")
    expect(d.locator("#dealer-transfer-submit")).to_be_focused()
    s.shot(dealer, "dealer-refused")
    # a deal with the committed die, and a vote recorded
    d.select_option("#dealer-deal-player", "bob")
    y = click_in_view(d, "#dealer-deal-submit")
    answered(d, "#dealer-deal-answer", re.compile(
        r"^Done: dealt (Red|Blue|Fish|Corporate) (10|[2-9AJQK])[dshc] \(card \d+\) to bob, in "
        r"\d+ rolls? of the committed die: .*\(in the Deck: dealt\)\.$"), control_y=y)
    d.select_option("#dealer-vote-player", "ann")
    d.fill("#dealer-vote-proposal", "P500")
    y = click_in_view(d, "#dealer-vote-submit")
    answered(d, "#dealer-vote-answer", "Done: recorded the vote.", control_y=y)
    s.shot(dealer, "dealer-answers")
    expect(a.locator("#hand li.card")).to_have_count(6)  # live, on ann's page

    # --- the time on the page is the server's (the browser's clock is a year off)
    game = httpx.get(f"{s.base}/api/v1/game", timeout=10).json()
    assert (game["nweek"], game["nday"]) == (1, 2)
    expect(a.locator("#game-line")).to_contain_text("nweek 1, nday 2")
    matches_server_clock(s, a, "#countdown", datetime.fromisoformat(game["next_nweek_at"]))
    matches_server_clock(s, b, "#countdown", datetime.fromisoformat(game["next_nweek_at"]))

    # --- ann (a mouse) offers bob a trade: asked first, then answered under the button
    a.select_option("#trade-with", "bob")
    a.check("#trade-give-list input[value='Blue 2h']")
    a.fill("#trade-get", "Red 10s")
    y = click_in_view(a, "#trade-submit")
    confirm(a, "trade-answer", "Notify the Dealer of this trade with bob? You give Blue 2h and "
            "get Red 10s. When bob notifies the same trade it is made at once, and each of you "
            "pays the Dealer 1 Point; until then you may withdraw it.")
    s.shot(ann, "ann-confirms-a-trade")
    y = say_yes(a, "trade-answer")
    answered(a, "#trade-answer", re.compile(
        r"^Sent: your notification \(event \d+\) waits for bob's matching one\.$"), control_y=y)
    s.shot(ann, "ann-trade-waits")
    waits = a.locator("#trade-answer").text_content()

    # bob (a phone) sees the offer, with the time left to answer it, and accepts
    offer = b.locator("#pooker-offer-list > li")
    expect(offer).to_have_count(1)
    expect(offer).to_contain_text("ann offers you Blue 2h for your Red 10s.")
    expect(offer.locator(".lapses")).to_contain_text(re.compile(r"in 6 days 23:5\d:\d\d"))
    expect(b.locator("#pooker-todo-list")).to_contain_text("Answer ann's offer")
    s.mail_notices()  # cron's run: bob is told by mail, before the offer lapses
    accept = "#" + str(b.locator("#pooker-offer-list button").first.get_attribute("id"))
    y = click_in_view(b, accept)
    confirm(b, "pooker-offers-answer", "Accept ann's offer? You give Red 10s and get Blue 2h: "
            "the trade is made at once, and each of you pays the Dealer 1 Point.")
    s.shot(bob, "bob-confirms-accept")
    y = say_yes(b, "pooker-offers-answer")
    answered(b, "#pooker-offers-answer", "Traded with ann: you gave Red 10s and got Blue 2h.",
             control_y=y)
    # the offer is gone; the focus is on the answer where it was, never on the body
    expect(offer).to_have_count(0)
    expect(b.locator("#pooker-offers-answer")).to_be_focused()
    expect(b.locator("#pooker-todo-body")).to_have_text("Nothing waits for you.")
    s.shot(bob, "bob-accepted")
    # ann's "waits" is over: it says the trade was made
    expect(a.locator("#trade-answer")).to_have_text(re.compile(
        r"^Traded: ann and bob's notifications matched \(events \d+ and \d+\)\.$"))
    assert a.locator("#trade-answer").text_content() != waits
    expect(a.locator("#pooker-score")).to_have_text("Score 80")

    # ann offers cat a trade; cat declines it by the keyboard alone
    a.select_option("#trade-with", "cat")
    a.check("#trade-give-list input[value='Red 9h']")
    a.fill("#trade-get", "Red 5d")
    click_in_view(a, "#trade-submit")
    y = say_yes(a, "trade-answer")
    expect(a.locator("#trade-answer")).to_contain_text("waits for cat's matching one")
    decline = c.locator("#pooker-offer-list button.quiet")
    expect(decline).to_have_count(1)
    keys_to(c, "#" + str(decline.get_attribute("id")))
    c.keyboard.press("Enter")
    confirm(c, "pooker-offers-answer", "Decline ann's offer")
    y = press_enter(c)
    answered(c, "#pooker-offers-answer", re.compile(
        r"^You declined ann's offer \(event \d+\); ann is told\.$"), control_y=y)
    s.shot(cat, "cat-declined")
    expect(a.locator("#trade-answer")).to_have_text(re.compile(
        r"^Your notification \(event \d+\) was declined: it no longer waits\.$"))

    # ann offers bob another, and withdraws it: once her page is drawn anew after the decline
    # (the offer to cat gone from her list above the form), as a player reads the page before
    # reaching for a control -- a list shrinking above a button moves it as it is clicked
    expect(a.locator("#pooker-waiting-list > li")).to_have_count(0)
    a.select_option("#trade-with", "bob")
    a.check("#trade-give-list input[value='Red 9h']")
    a.fill("#trade-get", "Red 2h")
    click_in_view(a, "#trade-submit")
    y = say_yes(a, "trade-answer")
    expect(a.locator("#trade-answer")).to_contain_text("waits for bob's matching one")
    # (once the list is drawn anew: the offer to cat, declined, is gone from it)
    expect(a.locator("#pooker-waiting-list > li")).to_have_count(1)
    withdraw = a.locator("#pooker-waiting-list button[aria-label='Withdraw your offer to bob']")
    expect(withdraw).to_have_count(1)
    y = click_in_view(a, "#" + str(withdraw.get_attribute("id")))
    confirm(a, "pooker-waiting-answer", "Withdraw your offer to bob")
    y = say_yes(a, "pooker-waiting-answer")
    answered(a, "#pooker-waiting-answer", re.compile(
        r"^You withdrew your offer to bob \(event \d+\)\.$"), control_y=y)
    expect(a.locator("#trade-answer")).to_have_text(re.compile(
        r"^You withdrew your notification \(event \d+\)\.$"))
    expect(a.locator("#pooker-waiting-body")).to_have_text("Nothing of yours waits.")

    # bob offers cat a trade that will wait: cat is reminded a day before it lapses
    b.select_option("#trade-with", "cat")
    b.check("#trade-give-list input[value='Red 2h']")
    b.fill("#trade-get", "Red 3c")
    y = click_in_view(b, "#trade-submit")
    y = say_yes(b, "trade-answer")
    answered(b, "#trade-answer", re.compile(r"waits for cat's matching one"), control_y=y)
    s.shot(bob, "bob-offer-waits")

    # --- cat makes a Motion to Show Cards, by the keyboard alone
    keys_to(c, "#make-motion")
    press_enter(c)
    confirm(c, "pooker-motion-answer", "Make a Motion to Show Cards? Every Player is told")
    y = press_enter(c)
    answered(c, "#pooker-motion-answer", "You made a Motion to Show Cards (Motion 1): every "
             "Player is told, and may vote on it.", control_y=y)
    motion_ends = datetime.fromisoformat(game_view(s, "cat")["motion"].get("ends") or [
        n for n in json.loads(s.cli("notices", "list", "cat", "--json"))
        if "Motion 1" in n["text"]][-1]["text"].split("By: ")[1].strip())
    assert motion_ends - s.clock.now() > timedelta(days=2, hours=23)
    for page in (a, b, c, d):  # its voting deadline, everywhere
        expect(page.locator("#motion-ends")).to_contain_text(
            "Voting ends " + motion_ends.strftime("%Y-%m-%d %H:%M") + " UTC, in 2 days 23:")
    matches_server_clock(s, c, "#motion-ends .left", motion_ends)
    expect(a.locator("#pooker-todo-list")).to_contain_text("Vote on Motion 1 to Show Cards")
    s.mail_notices()  # everyone is told, by mail, before the voting ends
    axe_clean(cat)
    s.shot(cat, "cat-motion")

    # --- signed in anew, the first screen is what waits (each with its deadline) and the hand
    # in brief, the token box folded: bob on his phone (375x740), ann at 1280x800
    for who, width, height, phone in (("bob", 375, 740, True), ("ann", 1280, 800, False)):
        fresh = seat(s, s.tokens[who], width=width, height=height, phone=phone)
        signed_in(fresh, s.tokens[who])
        page = fresh.page
        expect(page.locator("#waiting-title")).to_have_text("What waits for you")
        items = page.locator("#waiting-list li")
        expect(page.locator("#waiting-list")).to_contain_text("Vote on Motion 1 to Show Cards")
        texts = items.all_inner_texts()
        assert texts and all(re.search(r"By \d{4}-\d\d-\d\d \d\d:\d\d UTC, in ", t)
                             for t in texts), texts
        expect(page.locator("#hand-brief-count")).to_have_text(re.compile(
            r"^\d+ cards: \d+ (Red|Blue)"))
        expect(page.locator("#token-form")).to_be_hidden()
        expect(page.locator("#change-token")).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        s.shot(fresh, f"{who}-first-screen-{width}x{height}")
        for part in ("#waiting-title", "#waiting-list li", "#hand-brief-count",
                     "#hand-brief .mini"):
            in_first_screen(page, part)
        assert fresh.problems() == [], who
        page.context.close()

    # the votes: ann by mouse, bob on the phone, cat by keyboard; the focus never lost
    click_in_view(a, "#vote-yes")
    confirm(a, "pooker-motion-answer", "Vote yes on Motion 1 to Show Cards?")
    y = say_yes(a, "pooker-motion-answer")
    answered(a, "#pooker-motion-answer", "You voted yes on Motion 1.", control_y=y)
    assert a.locator("#motion-mine").text_content() == "You voted yes."  # as the answer says
    assert a.evaluate("document.activeElement.id") in ("vote-yes", "pooker-motion-answer")
    expect(a.locator("#motion-mine")).to_have_text("You voted yes.")
    expect(a.locator("#pooker-todo-body")).not_to_contain_text("Vote on Motion 1")
    click_in_view(b, "#vote-yes")
    confirm(b, "pooker-motion-answer", "Vote yes on Motion 1 to Show Cards?")
    y = say_yes(b, "pooker-motion-answer")
    answered(b, "#pooker-motion-answer", "You voted yes on Motion 1.", control_y=y)
    assert b.evaluate("document.activeElement.id") in ("vote-yes", "pooker-motion-answer")
    expect(c.locator("#motion-text")).to_contain_text("2 yes, 0 no, of 4 Players")
    keys_to(c, "#vote-yes")
    press_enter(c)
    confirm(c, "pooker-motion-answer", "Vote yes on Motion 1 to Show Cards?")
    y = press_enter(c)
    answered(c, "#pooker-motion-answer", re.compile(
        r"^You voted yes on Motion 1\. It passed: Showdown 1 is open; show your Poker Hands "
        r"above\.$"), control_y=y)
    expect(c.locator("#pooker-motion-answer")).to_be_focused()
    s.shot(cat, "cat-motion-passed")

    # --- Showdown 1: the time left to show is the server's
    showdown = game_view(s, "ann")["showdown"]
    ends = datetime.fromisoformat(showdown["ends"])
    for page in (a, b, c):
        expect(page.locator("#showdown-text")).to_contain_text("Showdown 1 is open")
    matches_server_clock(s, b, "#showdown-left", ends)
    matches_server_clock(s, a, "#showdown-left", ends)
    expect(b.locator("#pooker-todo-list")).to_contain_text("Show your Poker Hands at Showdown 1")
    # the Dealer cannot open another: the refusal under the Dealer's button
    d.fill("#pooker-open-form-motion_passed", "P600")
    y = click_in_view(d, "#pooker-open-form-submit")
    answered(d, "#pooker-open-form-answer", re.compile(r"^Showdown 1 is open until "),
             kind="error", control_y=y)
    s.shot(dealer, "dealer-open-refused")

    # ann shows her best arrangement: asked first, saying where the cards go
    click_in_view(a, "#show-best")
    expect(a.locator("#pooker-showdown-answer")).to_have_text("Filled in: 1 Poker Hand, Score 80.")
    y = click_in_view(a, "#show-submit")
    confirm(a, "pooker-showdown-answer", "these 5 cards are held by the Showdown and return to "
            "the Deck when the Showdown closes")
    s.shot(ann, "ann-confirms-show")
    y = say_yes(a, "pooker-showdown-answer")
    answered(a, "#pooker-showdown-answer", "You showed 1 Poker Hand at Showdown 1; the cards "
             "return to the Deck when it closes.", control_y=y)
    expect(a.locator("#pooker-showdown-answer")).to_be_focused()
    # bob shows on the phone
    b.select_option("#show-form select[data-card='Blue 2h']", "1")
    y = click_in_view(b, "#show-submit")
    confirm(b, "pooker-showdown-answer", "return to the Deck when the Showdown closes")
    y = say_yes(b, "pooker-showdown-answer")
    answered(b, "#pooker-showdown-answer", re.compile(r"^You showed 1 Poker Hand"), control_y=y)
    for page in (a, b, c):
        expect(page.locator("#showdown-shown > li")).to_have_count(2)
    s.mail_notices()
    axe_clean(bob)
    s.shot(bob, "bob-showed")
    s.shot(bob, "bob-showed-page", full=True)

    # --- cron runs on through the days that follow, every five minutes: the runs that find
    # something due are these -- Showdown 1's end, and a day before bob's offer to cat lapses
    s.clock.set(ends)
    s.mail_notices()
    expect(a.locator("#last-text")).to_contain_text("Showdown 1: ann won")
    (offered,) = [n for n in json.loads(s.cli("notices", "list", "cat", "--json"))
                  if n["text"].startswith("bob offers you a trade")]
    by = re.search(r"^By: (\S+)$", offered["text"], re.M)
    assert by, offered
    lapses = datetime.fromisoformat(by.group(1))
    s.clock.set(lapses - timedelta(days=1))
    s.mail_notices()

    # --- three days on: the Showdown ended, the reminder of bob's offer is due
    s.clock.set(moment(7.5))  # 2026-01-08 12:00, before bob's offer lapses on the 9th
    d.select_option("#dealer-vote-player", "bob")
    d.fill("#dealer-vote-proposal", "P501")
    y = click_in_view(d, "#dealer-vote-submit")
    answered(d, "#dealer-vote-answer", "Done: recorded the vote.", control_y=y)
    for page in (a, b, c):
        expect(page.locator("#last-text")).to_contain_text(
            "Showdown 1: ann won, with a Score of 80; paid ann 80 Points")
        expect(page.locator("#game-line")).to_contain_text("nweek 1, nday 8")
    expect(a.locator("#pooker-summary")).to_contain_text("You have 84 Points")
    reminder = c.locator("#pooker-notice-list li").filter(has_text="lapses in a day")
    expect(reminder).to_have_count(1)
    expect(reminder).to_contain_text(re.compile(r"By 2026-01-09 09:\d\d UTC, in 2\d:\d\d:\d\d"))
    s.mail_notices()

    # cat holds six PCards: e declares Showdown 2, by the keyboard alone
    expect(c.locator("#declare")).to_be_visible()
    keys_to(c, "#declare")
    c.keyboard.press("Enter")
    confirm(c, "pooker-declare-answer", "you must show at least 2 PCards")
    y = press_enter(c)
    answered(c, "#pooker-declare-answer", re.compile(
        r"^You declared Showdown 2: show at least 2 PCards by 2026-01-11 12:\d\d UTC\.$"),
        control_y=y)
    expect(c.locator("#showdown-text")).to_contain_text("Showdown 2 is open (cat declared it")
    s.mail_notices()
    s.shot(cat, "cat-declared")
    axe_clean(ann)
    s.shot(ann, "ann-after-showdown", full=True)

    # the offer lapses: cron's next run tells both sides
    s.clock.set(lapses)
    s.mail_notices()
    expect(b.locator("#pooker-waiting-body")).to_have_text("Nothing of yours waits.")
    for who in ("bob", "cat"):
        assert any("lapsed" in m.message.get_content() for m in s.mailbox.mails
                   if m.to == (ADDRESS[who],) and m.arrived > lapses), who

    # --- the end of nweek 1: the page rolls over by itself, at the boundary, with no event
    # a minute before it: the Dealer's action, and the page learning the server's moved clock
    # anew, must both be over before the boundary, on a machine busy with other tests too
    s.clock.set(moment(9.9993))  # 2026-01-10 23:58:59
    d.select_option("#dealer-vote-player", "cat")
    d.fill("#dealer-vote-proposal", "P502")
    y = click_in_view(d, "#dealer-vote-submit")
    answered(d, "#dealer-vote-answer", "Done: recorded the vote.", control_y=y)
    boundary = moment(10)
    expect(a.locator("#game-line")).to_contain_text("nweek 1, nday 10")
    matches_server_clock(s, a, "#countdown", boundary)
    still = head(s)
    expect(a.locator("#game-line")).to_contain_text("nweek 2, nday 1", timeout=90_000)
    expect(a.locator("#countdown")).to_contain_text(re.compile(
        r"^nweek 3 begins in (9 days 23:5\d:\d\d|10 days 00:00:00) \(2026-01-21 00:00 UTC\)$"))
    expect(b.locator("#game-line")).to_contain_text("nweek 2, nday 1")
    assert s.clock.now() >= boundary and head(s) == still  # no event moved it
    matches_server_clock(s, a, "#countdown", boundary + timedelta(days=10))
    s.shot(ann, "ann-nweek-2")
    # the Dealer ticks: nweek 2 starts (its report), bob's offer has lapsed meanwhile
    y = click_in_view(d, "#dealer-tick-submit")
    answered(d, "#dealer-tick-answer", re.compile(
        r"^Done: started nweek 2 \(the Dealer's Report for nweek 1 published\), Cards for "
        r"Votes \d+ dealt(; closed [^;]+)*\. \d+ events? recorded\.$"), control_y=y)
    expect(b.locator("#pooker-waiting-body")).to_have_text("Nothing of yours waits.")
    expect(d.locator("#report-meta")).to_contain_text("nweek 1, published")
    s.shot(dealer, "dealer-ticked")
    s.mail_notices()

    # --- the Dealer's Report on the players' pages: wrapped to its box, its packs named
    published = httpx.get(f"{s.base}/api/v1/reports/1?format=text", timeout=10).text
    assert "packs Red and Blue" in " ".join(published.split()), published
    assert "packs=" not in published, published
    for tab in (ann, bob):
        report = tab.page.locator("#report")
        expect(report).to_contain_text("packs Red and Blue")
        assert report.text_content() == published
        assert report.evaluate("(n) => n.scrollWidth <= n.clientWidth"), report.evaluate(
            "(n) => [n.scrollWidth, n.clientWidth]")
        report.scroll_into_view_if_needed()
        s.shot(tab, f"report-{tab.page.viewport_size['width']}")

    # --- every notice reached its player's mailbox, before its deadline
    notices = json.loads(s.cli("notices", "list", "--json"))
    assert notices and all(n["sent"] for n in notices)
    by_event = {e: m for m in s.mailbox.mails for e in m.events()}
    waited = 0
    for n in notices:
        mail = by_event[n["event"]]
        assert mail.to == (ADDRESS[n["player"]],), n
        assert n["text"].split("\n")[0] in mail.message.get_content(), n
        assert s.base in mail.message.get_content()
        m = re.search(r"^By: (\S+)$", n["text"], re.M)
        if m:
            waited += 1
            assert mail.arrived < datetime.fromisoformat(m.group(1)), (n, mail.arrived)
        # mailed by the first cron run after its event: within five minutes of it
        at, run = s.recorded_at(n["event"]), max(r for r in s.runs if r <= mail.arrived)
        assert at <= mail.arrived and run - at <= timedelta(minutes=5), (n, at, run)
    # offers (sealed), the reminder, the Motion (four Players), two Showdowns' openings
    assert waited >= 11, waited
    assert len(s.runs) >= 9 and all(r.minute % 5 == 0 and r.second == 0 for r in s.runs)
    # a digest counts as waiting only what still waits when it is sent: what was done first
    # (ann's offer cat declined, the one she withdrew from bob) is mailed as done
    done = "Done: this no longer waits for you"
    for m in s.mailbox.mails:
        text = m.message.get_content()
        first = text.split("\n", 1)[0]
        waiting = len(re.findall(r"^   By: ", text, re.M))
        count = re.search(r"(\d+) of them wait for you", first)
        assert (int(count.group(1)) if count else 1 if "It waits for you" in first else 0) \
            == waiting, text
    for who in ("cat", "bob"):
        assert any(done in m.message.get_content() for m in s.mailbox.mails
                   if m.to == (ADDRESS[who],)), who
    kinds = {n["text"].split("\n")[0].split(":")[0] for n in notices}
    assert any("lapses in a day" in n["text"] for n in notices), kinds

    # the log reads as sentences; the bookkeeping is folded away until asked for
    log = a.locator("#log")
    expect(log.locator("li").filter(
        has_text="ann and bob traded 1 PCard(s); each paid 1 Point(s) to the Dealer.")
    ).to_have_count(1)
    mailed = log.locator("li.bookkeeping").filter(has_text="Mailed the notices: ")
    assert mailed.count() > 0
    expect(mailed.first).to_be_hidden()
    click_in_view(a, "#log-all")
    expect(mailed.first).to_be_visible()
    expect(a.locator("#log-all")).to_have_attribute("aria-pressed", "true")
    s.shot(ann, "ann-log-all")

    # --- the standings: every player and the Bank, as the API gives them
    points = httpx.get(f"{s.base}/api/v1/points", timeout=10).json()
    rows = a.locator("#standings tbody tr")
    accounts = [r["account"] for r in points["standings"]]
    assert set(accounts) >= {*PLAYERS, "PurpleBob", "Bank"}, accounts
    expect(rows).to_have_count(len(accounts))
    expect(rows.locator("th")).to_have_text(
        ["The Bank" if r["bank"] else r["account"] for r in points["standings"]])
    a.locator("#standings").scroll_into_view_if_needed()
    s.shot(ann, "ann-standings")

    # --- ann's private notices, newest first
    mine = sorted(json.loads(s.cli("notices", "list", "ann", "--json")),
                  key=lambda n: -n["event"])
    shown = a.locator("#notices > li")
    expect(shown).to_have_count(len(mine))
    for li, n in zip(shown.all_inner_texts(), mine, strict=True):
        assert n["text"].split("\n")[0] in li, (li, n)

    # --- cat changes eir address: the action, then the link cron mails to the new address
    r = httpx.post(f"{s.base}/api/v1/me/actions", timeout=10,
                   headers={"Authorization": f"Bearer {s.tokens['cat']}"},
                   json={"action": "cards.address", "address": "cat@new.example"})
    assert r.status_code in (200, 201, 202), r.text
    before = len(s.mailbox.mails)
    s.mail_notices()
    (asked,) = s.mailbox.mails[before:]
    assert asked.to == ("cat@new.example",)
    assert asked.arrived - s.runs[-1] < timedelta(minutes=1)
    (link,) = re.findall(rf"{s.base}/address/confirm\?link=(\S+)", asked.message.get_content())
    followed = httpx.post(f"{s.base}/address/confirm", data={"link": link}, timeout=10)
    assert followed.status_code == 200 and "cat@new.example" in followed.text
    assert httpx.post(f"{s.base}/address/confirm", data={"link": link},
                      timeout=10).status_code == 409  # followed once only

    # --- no password in serve's banner or its log: SQLite has none, so the banner names the
    # database by its path alone (a PostgreSQL URL's password shown as ***: tests/test_deploy_doc.py
    # scans the documented deployment's output for every password it set)
    served = s.serve_log.read_text(encoding="utf-8")
    banner = served.splitlines()[0]
    assert banner.startswith(f"Serving {s.db.removeprefix('sqlite:///')} on http://127.0.0.1:"), \
        banner
    assert "@" not in banner and "password" not in served.lower(), banner

    for tab in (dealer, ann, bob, cat):
        axe_clean(tab)
    assert dealer.problems(allow_status=(409,)) == []
    for who, tab in (("ann", ann), ("bob", bob), ("cat", cat)):
        assert tab.problems(allow_status=(409,)) == [], who
    assert len(s.taken) >= 25
