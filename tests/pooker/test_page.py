"""A season of Pooker played through the page alone, in Debian's Chromium (Playwright) against a
real ``nomic-cards serve``: the officer sets the game up on the command line; then ann, bob and
cat, each in a browser context of their own, trade, make and pass a Motion to Show Cards and
show, every change reaching every page through its event stream with no refresh; the Showdown
closes at its window's end (the officer's ``tick --at``, past the end the view gives) and the
winner's Points show: the server and that tick run under libfaketime, moved past the end).
bob's page never shows ann's offer to dan, and cat's never shows any offer. Screenshots at 1280
and 375 pixels go to /tmp/table-shots/."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.game_time import EPOCH, moment
from tests.server.page_support import (
    CSP_WATCH,
    FakeClock,
    Tab,
    live_table,
    low_contrast,
    require_browser,
)

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/table-shots")
#: the time left to show, just after a Showdown opens (three days, on the server's clock)
LEFT = re.compile(r"^(2 days 23|3 days 00):\d\d:\d\d$")
#: the Pooker panel's kinds of text, each to be read at 4.5:1 or more on what is behind it
PANEL_TEXTS = ["#pooker h3", "#pooker h4", "#pooker-summary", "#pooker .score",
               "#pooker .category", "#pooker .mini", "#pooker .muted", "#pooker .help",
               "#pooker .lapses", "#pooker legend", "#pooker label", "#pooker select",
               "#pooker button", "#pooker-showdown-answer", "#pooker .by"]

#: ann's offer to dan (who has no page): its cards must reach no page but ann's
TO_DAN = ("Red Js", "Red 5d")
#: the cards of ann's offer to bob, before the trade is made
TO_BOB = ("Blue 2h", "Red 10s")


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


def officer(clock: FakeClock, db: str, command: str) -> str:
    """The officer's ``command``, at the clock's time."""
    return clock.run(db, *shlex.split(command))


def set_up(db: str, clock: FakeClock) -> dict[str, str]:
    """The officer's part, on the command line, at the clock's time (the server's): the game
    (from the test games' epoch), four players, Pooker, the deal, Points for the fees, a token
    each."""
    officer(clock, db, f"init --epoch {EPOCH.isoformat()} --nweek-days 10")
    for name in ("ann", "bob", "cat", "dan"):
        officer(clock, db, f"player add {name}")
    officer(clock, db, "game enact pooker --packs Red,Blue --proposal P456")
    for card, who in (("Red As", "ann"), ("Red Ks", "ann"), ("Red Qs", "ann"),
                      ("Red Js", "ann"), ("Blue 2h", "ann"), ("Red 10s", "bob"),
                      ("Red 2h", "bob"), ("Red 3c", "cat")):
        officer(clock, db, f"transfer '{card}' --to {who} --from deck --rule 'P470: dealt'")
    for who in ("ann", "bob"):
        officer(clock, db, f"points grant {who} 5 --rule 'Scorekeeper report'")
    return {who: json.loads(officer(clock, db, f"token issue {who} --json"))["token"]
            for who in ("ann", "bob", "cat")}


@pytest.fixture
def season(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Any, FakeClock]]:
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    clock = FakeClock.at(moment(1.375), tmp_path)  # nweek 1, whatever the day
    tokens = set_up(db, clock)
    with live_table(db, tmp_path, clock) as (base, browser):
        yield base, db, tokens, browser, clock


def seat(browser: Any, base: str, token: str, width: int, *, height: int = 900,
         script: str | None = None) -> Tab:
    """A player at the table: eir own browser context, signed in, the Pooker panel shown;
    every /api/v1/me/games body the page reads is kept for :func:`never_shows` (or ``script``
    runs in the page first instead)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    context.add_init_script(script=script or RECORD_BODIES)
    tab = Tab(context.new_page(), base)
    tab.watch(tab.page)
    tab.open()
    tab.sign_in(token)
    expect(tab.page.locator("#pooker-summary")).to_contain_text("PCard")
    expect(tab.page.locator("#live-status")).to_have_text("Following the game live.")
    return tab


def never_shows(tab: Tab, secrets: tuple[str, ...], who: str) -> None:
    """Neither the page nor anything the page was sent by /api/v1/me/games names ``secrets``."""
    text = tab.page.content()
    for secret in secrets:
        assert secret not in text, (who, secret)
    for body in tab.page.evaluate(SEEN_BODIES):
        for secret in secrets:
            assert secret not in body, (who, secret)


#: Every body the page read from /api/v1/me/games (kept by the wrapper installed below).
RECORD_BODIES = """
window.__bodies = [];
const plainFetch = window.fetch;
window.fetch = async (...args) => {
  const r = await plainFetch(...args);
  if (String(args[0]).startsWith("/api/v1/me/games")) {
    r.clone().text().then((t) => window.__bodies.push(t));
  }
  return r;
};
"""
SEEN_BODIES = "window.__bodies || []"


def shot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.locator("#token").blur()
    width = tab.page.viewport_size["width"]
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= width, name
    tab.page.screenshot(path=str(SHOTS / name), full_page=True)


def test_a_season_of_pooker_through_the_page_alone(
        season: tuple[str, str, dict[str, str], Any, FakeClock]) -> None:
    from tests.server.test_page import axe_violations

    base, db, tokens, browser, clock = season
    ann = seat(browser, base, tokens["ann"], 1280)
    bob = seat(browser, base, tokens["bob"], 1280)
    cat = seat(browser, base, tokens["cat"], 375)
    a, b, c = ann.page, bob.page, cat.page
    expect(a.locator("#pooker-score")).to_have_text("Score 0")
    expect(a.locator("#pooker-summary")).to_contain_text("You have 5 Points")

    # bob comes back later: what is new since this visit will be marked
    b.reload()
    expect(b.locator("#pooker-summary")).to_contain_text("PCard")

    # ann offers dan a trade (dan has no page), then bob one, by keyboard
    a.select_option("#trade-with", "dan")
    a.check("#trade-give-list input[value='Red Js']")
    a.fill("#trade-get", "Red 5d")
    a.click("#trade-form button[type=submit]")
    expect(a.locator("#trade-answer-confirm")).to_contain_text(
        "Notify the Dealer of this trade with dan? You give Red Js and get Red 5d.")
    a.click("#trade-answer-confirm-yes")
    expect(a.locator("#trade-answer")).to_contain_text("waits for dan's matching one")
    a.focus("#trade-with")
    a.select_option("#trade-with", "bob")
    a.focus("#trade-give-list input[value='Blue 2h']")
    a.keyboard.press("Space")
    a.focus("#trade-get")
    a.keyboard.type("Red 10s")
    a.keyboard.press("Enter")  # submits the form: asks first, the focus on its yes
    a.keyboard.press("Enter")
    waiting = a.locator("#pooker-waiting-list li")
    expect(waiting).to_have_count(2)
    expect(waiting.nth(1)).to_contain_text("You give Blue 2h to bob for Red 10s.")
    expect(waiting.nth(1)).to_contain_text("Lapses ")

    # bob sees the offer naming em, marked new, live; never ann's offer to dan
    offer = b.locator("#pooker-offer-list li")
    expect(offer).to_have_count(1)
    expect(offer).to_contain_text("ann offers you Blue 2h for your Red 10s.")
    expect(offer.locator(".tag")).to_have_text("new")
    b.reload()  # seen now: no longer new
    expect(offer).to_contain_text("ann offers you Blue 2h for your Red 10s.")
    expect(offer.locator(".tag")).to_have_count(0)
    notified = "ann notified a Pooker trade (hidden); waits until "
    expect(b.locator("#log li").filter(has_text=notified)).to_have_count(2)
    expect(c.locator("#log li").filter(has_text=notified)).to_have_count(2)
    never_shows(bob, TO_DAN, "bob")
    never_shows(cat, TO_DAN + TO_BOB, "cat")
    expect(c.locator("#pooker-offers-body")).to_have_text("No offer names you.")

    # a refusal is the server's one sentence, in an alert
    c.check("#trade-give-list input[value='Red 3c']")
    c.fill("#trade-get", "Red 4c, Red 5c")
    c.click("#trade-form button[type=submit]")
    c.click("#trade-answer-confirm-yes")
    expect(c.locator("#trade-answer")).to_have_text(re.compile(
        r"^both sides of a trade give the same number of cards"))
    expect(c.locator("#trade-answer")).to_have_attribute("aria-live", "polite")

    count, report = axe_violations(b)
    assert count == 0, report
    shot(bob, "offer-1280.png")

    # bob accepts, by keyboard: both hands change live
    b.focus("#pooker-offer-list button")
    b.keyboard.press("Enter")
    b.keyboard.press("Enter")  # yes, accept
    expect(a.locator("#pooker-score")).to_have_text("Score 80")
    expect(a.locator("#pooker-hands > li")).to_have_count(1)
    expect(a.locator("#pooker-hands > li")).to_contain_text("Royal Flush · 80")
    expect(a.locator("#trade-give-list")).to_contain_text("Red 10s")
    expect(a.locator("#pooker-summary")).to_contain_text("You have 4 Points")
    expect(waiting).to_have_count(1)  # the offer to dan waits on
    expect(b.locator("#pooker-score")).to_have_text("Score 5")
    expect(b.locator("#pooker-hands > li")).to_contain_text("One Pair · 5")
    expect(b.locator("#pooker-offers-body")).to_have_text("No offer names you.")
    expect(b.locator("#hand li.card")).to_have_count(2)
    expect(b.locator("#hand")).to_contain_text("2 of Hearts")
    never_shows(bob, TO_DAN, "bob")
    never_shows(cat, TO_DAN, "cat")

    # a Motion to Show Cards, made and passed on the pages
    c.click("#make-motion")
    expect(c.locator("#pooker-motion-answer-confirm")).to_contain_text(
        "Make a Motion to Show Cards? Every Player is told")  # asked first, as a trade is
    c.click("#pooker-motion-answer-confirm-yes")
    for page in (a, b, c):
        expect(page.locator("#motion-text")).to_contain_text(
            "Motion 1 to Show Cards, made by cat: 0 yes, 0 no, of 5 Players")
    a.click("#vote-yes")
    expect(a.locator("#pooker-motion-answer-confirm")).to_contain_text(
        "Vote yes on Motion 1 to Show Cards?")
    a.click("#pooker-motion-answer-confirm-yes")
    # the answer said, the view says the same: never "You have not voted" beside it
    expect(a.locator("#pooker-motion-answer")).to_have_text("You voted yes on Motion 1.")
    assert a.locator("#motion-mine").text_content() == "You voted yes."
    assert a.locator("#vote-yes").count() == 0
    expect(b.locator("#motion-text")).to_contain_text("1 yes, 0 no")
    b.focus("#vote-yes")
    b.keyboard.press("Enter")
    expect(b.locator("#pooker-motion-answer-confirm-yes")).to_be_focused()
    b.keyboard.press("Enter")
    expect(c.locator("#motion-text")).to_contain_text("2 yes, 0 no")
    c.click("#vote-yes")
    c.click("#pooker-motion-answer-confirm-yes")
    for page in (a, b, c):
        expect(page.locator("#showdown-text")).to_contain_text("Showdown 1 is open")
        expect(page.locator("#showdown-left")).to_have_text(LEFT)

    # both show: ann with the best-arrangement button, bob by picking eir Poker Hand
    a.click("#show-best")
    expect(a.locator("#pooker-showdown-answer")).to_have_text("Filled in: 1 Poker Hand, Score 80.")
    count, report = axe_violations(a)
    assert count == 0, report
    assert low_contrast(a, PANEL_TEXTS) == []
    shot(ann, "showdown-1280.png")
    a.click("#show-form button[type=submit]")
    a.click("#pooker-showdown-answer-confirm-yes")
    b.select_option("#show-form select >> nth=0", "1")
    b.select_option("#show-form select >> nth=1", "1")
    b.click("#show-form button[type=submit]")
    b.click("#pooker-showdown-answer-confirm-yes")
    for page in (a, b, c):
        shown = page.locator("#showdown-shown > li")
        expect(shown).to_have_count(2)
        expect(shown.filter(has_text="ann showed")).to_contain_text("Ace of Spades")
    expect(a.locator("#pooker-showdown-body")).to_contain_text("You have shown 1 Poker Hand.")
    expect(c.locator("#log li").filter(has_text="bob showed at Showdown 1: Red 2h, Blue 2h.")
           ).to_have_count(1)
    count, report = axe_violations(c)
    assert count == 0, report
    shot(cat, "showdown-375.png")

    # the Showdown closes at its window's end: the officer's tick, past the end the view says
    view = httpx.get(f"{base}/api/v1/me/games", timeout=10,
                     headers={"Authorization": f"Bearer {tokens['ann']}"}).json()
    ends = datetime.fromisoformat(view["games"]["pooker"]["showdown"]["ends"])
    clock.set(ends + timedelta(minutes=1))  # the server's clock, and the officer's
    clock.run(db, "tick")
    for page in (a, b, c):
        expect(page.locator("#last-text")).to_contain_text(
            "Showdown 1: ann won, with a Score of 80; paid ann 80 Points")
        expect(page.locator("#pooker-showdown")).to_be_hidden()
    expect(a.locator("#pooker-summary")).to_contain_text("You have 84 Points")
    expect(a.locator("#log li").filter(has_text=re.compile(
        r"^#\d+ .* Showdown 1 closed: ann 80, bob 5; won by ann, prize 80; \d+ shown card"))
    ).to_have_count(1)
    expect(b.locator("#pooker-summary")).to_contain_text("You have 4 Points")
    never_shows(bob, ("Red 5d",), "bob")  # the offer to dan still waits, unseen
    never_shows(cat, ("Red 5d",), "cat")
    count, report = axe_violations(a)
    assert count == 0, report
    shot(ann, "after-1280.png")
    b.set_viewport_size({"width": 375, "height": 900})
    shot(bob, "after-375.png")
    for who, tab in (("ann", ann), ("bob", bob)):
        assert tab.problems() == [], who
    assert cat.problems(allow_status=(409,)) == []



#: counts the scrolls a script of the page makes (window.scrollBy, scrollTo, scroll and
#: Element.scrollIntoView): none keeps an answer in its place, the browser's scroll anchoring does
COUNT_PAGE_SCROLLS = """
window.__pageScrolls = 0;
for (const [owner, name] of [[window, "scrollBy"], [window, "scrollTo"], [window, "scroll"],
                             [Element.prototype, "scrollIntoView"]]) {
  const plain = owner[name];
  owner[name] = function (...args) { window.__pageScrolls += 1; return plain.apply(this, args); };
}
"""


#: the top of ann's trade answer in the page (not in the viewport)
ANSWER_OFFSET = ("document.querySelector('#trade-answer').getBoundingClientRect().top"
                 " + window.scrollY")


def bob_acts(base: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    """bob's action, through the API (not through any page)."""
    r = httpx.post(f"{base}/api/v1/me/actions", json=body, timeout=30,
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code in (201, 202), r.text
    return dict(r.json())


def test_an_answer_keeps_its_place_through_later_events_until_the_player_moves_on(
        season: tuple[str, str, dict[str, str], Any, FakeClock]) -> None:
    base, _db, tokens, browser, _clock = season
    tab = seat(browser, base, tokens["ann"], 375, height=1600, script=COUNT_PAGE_SCROLLS)
    a = tab.page  # a tall phone
    offers = a.locator("#pooker-offer-list > li")
    offer = bob_acts(base, tokens["bob"], {"action": "pooker.trade", "with": "ann",
                                           "give": ["Red 2h"], "get": ["Red Ks"]})
    expect(offers).to_have_count(1)

    # ann (a phone) offers bob another trade; her answer is under the form, where she looks,
    # and bob's offer is on her screen above it
    a.select_option("#trade-with", "bob")
    a.check("#trade-give-list input[value='Blue 2h']")
    a.fill("#trade-get", "Red 10s")
    # bob's offer 150 px down her screen: her own offer may join the lists above it before or
    # after her answer is shown (the browser's scroll anchoring then keeps her answer where it
    # is, moving the rest up)
    a.evaluate("document.querySelector('#pooker-offers').scrollIntoView();"
               " window.scrollTo(0, window.scrollY - 150)")
    a.click("#trade-submit")
    a.click("#trade-answer-confirm-yes")
    answer = a.locator("#trade-answer")
    expect(answer).to_contain_text("waits for bob's matching one")
    top = answer.bounding_box()["y"]  # from here on, through every redraw
    assert 0 <= offers.bounding_box()["y"] < top <= 1600, (offers.bounding_box(), top)
    offset = a.evaluate(ANSWER_OFFSET)
    scrolls = a.evaluate("window.__pageScrolls")  # the page's own, from here on: none

    # then, after her answer was said, bob withdraws his offer from elsewhere: it goes from
    # her screen, above her answer, and her answer stays where she reads it
    bob_acts(base, tokens["bob"], {"action": "pooker.withdraw",
                                   "notification": offer["events"][0]["event"]})
    expect(offers).to_have_count(0)
    a.wait_for_function(
        "(top) => Math.abs(document.querySelector('#trade-answer').getBoundingClientRect().top"
        " - top) < 1", arg=top, timeout=10_000)
    shrunk = offset - a.evaluate(ANSWER_OFFSET)
    assert shrunk >= 20, shrunk  # the page above it shrank: without its anchor it moved up
    assert abs(answer.bounding_box()["y"] - top) < 1
    assert a.evaluate("window.__pageScrolls") == scrolls  # the browser kept it there

    # she moves on (a turn of the mouse wheel): the page leaves the scroll position to her
    before = a.evaluate("window.scrollY")
    a.mouse.move(180, 300)
    a.mouse.wheel(0, -150)
    a.wait_for_function("(y) => window.scrollY < y - 50", arg=before)
    bob_acts(base, tokens["bob"], {"action": "pooker.trade", "with": "ann",
                                   "give": ["Red 2h"], "get": ["Red Qs"]})
    expect(offers).to_have_count(1)
    expect(a.locator("#pooker-todo-body")).to_contain_text("Answer bob's offer")
    assert a.evaluate("window.__pageScrolls") == scrolls
    assert tab.problems() == []
