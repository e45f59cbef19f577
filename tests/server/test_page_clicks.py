"""No click is lost while the stream redraws the page: in Debian's Chromium (Playwright) against a
real ``nomic-cards serve``, ann plays Pooker on her page while bob, through the API in a thread of
his own, offers her a trade and withdraws it again and again -- a burst of events that stream
into her page and redraw the lists above her controls -- and cat, bob and dan make and vote on
Motions through the API.

What must hold: what ann types in the trade form (and the choices she made in it) stays, the
focus with it, through the redraws; a confirmation she opened stays open, its yes focused; each
of her clicks (votes on four Motions, a trade notified, then withdrawn) is answered under its
control, and the ledger holds each of her acts exactly once, in order; a press of the mouse on
"Vote yes" that a redraw of the Motion comes between (the button down, bob's vote drawn, the
button up) is a click, on the very node pressed. Every wait is on a condition; bob's requests
are bounded."""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import new_game
from tests.server.page_support import CSP_WATCH, Tab, live_table, require_browser

#: a server, a browser, a thread of requests: the full run only
pytestmark = pytest.mark.slow

#: the most actions bob's thread takes in the whole test
BURST_LIMIT = 120
#: bob's offer to ann, again and again (and withdrawn each time)
OFFER = {"action": "pooker.trade", "with": "ann", "give": ["Red 2h"], "get": ["Red Ks"]}


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


def act(base: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    """An action through the API: 201 or 202 (a 429 of the action rate is waited out and
    sent again with the same Idempotency-Key, so it is done once)."""
    key = secrets.token_hex(16)
    for _ in range(30):
        r = httpx.post(f"{base}/api/v1/me/actions", json=body, timeout=30,
                       headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})
        if r.status_code != 429:
            break
        time.sleep(float(r.headers.get("Retry-After", "1")))
    assert r.status_code in (201, 202), (body, r.status_code, r.text)
    return dict(r.json())


@dataclass
class Burst:
    """bob, in a thread of his own: each action asked for (more()) is, in turn, his offer to ann
    or its withdrawal, sent as soon as the one before is answered."""

    base: str
    token: str
    asked: int = 0
    done: int = 0
    pending: int | None = None  # bob's offer waiting, by event
    errors: list[str] = field(default_factory=list)
    wake: threading.Condition = field(default_factory=threading.Condition)
    stopped: bool = False

    def more(self, n: int) -> None:
        with self.wake:
            assert self.asked + n <= BURST_LIMIT, "bob's burst is bounded"
            self.asked += n
            self.wake.notify_all()

    def idle(self, timeout: float = 60) -> None:
        """Until every action asked for is done (and answered)."""
        with self.wake:
            assert self.wake.wait_for(lambda: self.done >= self.asked or self.errors, timeout)
        assert not self.errors, self.errors

    def settle(self) -> None:
        """Until bob has no offer waiting, and nothing asked for is left."""
        self.idle()
        if self.pending is not None:
            self.more(1)
            self.idle()

    def run(self) -> None:
        while True:
            with self.wake:
                self.wake.wait_for(lambda: self.stopped or self.done < self.asked)
                if self.stopped:
                    return
            try:
                if self.pending is None:
                    answer = act(self.base, self.token, OFFER)
                    self.pending = answer["events"][0]["event"]
                else:
                    act(self.base, self.token, {"action": "pooker.withdraw",
                                                "notification": self.pending})
                    self.pending = None
            except Exception as e:  # said by idle(), in the test's own thread
                self.errors.append(repr(e))
            with self.wake:
                self.done += 1
                self.wake.notify_all()

    def stop(self) -> None:
        with self.wake:
            self.stopped = True
            self.wake.notify_all()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Any]]:
    """Pooker at the real time (the server's clock) on the Red and Blue packs, dealt as in
    Pooker's season on the page: four players (dan without a page), Points for the fees, a
    token each."""
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    with new_game(db, players=("ann", "bob", "cat", "dan")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        with game.write() as tx:
            for card, who in (("Red As", "ann"), ("Red Ks", "ann"), ("Red Qs", "ann"),
                              ("Red Js", "ann"), ("Blue 2h", "ann"), ("Red 10s", "bob"),
                              ("Red 2h", "bob"), ("Red 3c", "cat")):
                api.transfer(tx, card, who, "P470: dealt", source="deck")
            for who in ("ann", "bob"):
                api.grant_points(tx, who, 5, rule="Scorekeeper report")
            tokens = {who: api.issue_token(tx, who).token for who in ("ann", "bob", "cat", "dan")}
    with live_table(db, tmp_path) as (base, browser):
        yield base, db, tokens, browser


def seat(browser: Any, base: str, token: str) -> Tab:
    """ann at the table: her own browser context (1280 by 900), signed in, the Pooker panel
    shown and the stream followed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), base)
    tab.watch(tab.page)
    tab.open()
    tab.sign_in(token)
    expect(tab.page.locator("#pooker-summary")).to_contain_text("PCard")
    expect(tab.page.locator("#live-status")).to_have_text("Following the game live.")
    return tab


#: how many of bob's events (offers and withdrawals) the page's log shows
BOBS = """[...document.querySelectorAll("#log li")].filter((li) =>
  /bob (notified a Pooker trade|withdrew eir trade notification)/.test(li.textContent)).length"""


def bobs_lines(page: Any, at_least: int) -> int:
    """Until the page's log shows ``at_least`` of bob's events; how many it shows."""
    page.wait_for_function(f"(n) => {BOBS} >= n", arg=at_least, timeout=30_000)
    return int(page.evaluate(f"() => {BOBS}"))


def test_no_click_is_lost_while_events_stream_in(
        table: tuple[str, str, dict[str, str], Any]) -> None:
    base, db, tokens, browser = table
    tab = seat(browser, base, tokens["ann"])
    a = tab.page
    burst = Burst(base, tokens["bob"])
    thread = threading.Thread(target=burst.run, daemon=True)
    thread.start()
    offers = a.locator("#pooker-offer-list > li")
    try:
        # --- ann fills in a trade while bob's offers come and go above the form
        a.select_option("#trade-with", "dan")
        a.check("#trade-give-list input[value='Red Js']")
        a.focus("#trade-get")
        a.keyboard.type("Red 5")
        seen = bobs_lines(a, 0)
        burst.more(1)
        expect(offers).to_have_count(1)  # the list above the form, drawn anew
        burst.more(1)
        expect(a.locator("#pooker-offers-body")).to_have_text("No offer names you.")
        burst.more(4)
        seen = bobs_lines(a, seen + 6)
        # her field kept its text and the focus: she types on where she was
        assert a.evaluate("document.activeElement.id") == "trade-get"
        expect(a.locator("#trade-get")).to_have_value("Red 5")
        a.keyboard.type("d")
        expect(a.locator("#trade-get")).to_have_value("Red 5d")
        expect(a.locator("#trade-give-list input[value='Red Js']")).to_be_checked()
        expect(a.locator("#trade-with")).to_have_value("dan")

        # --- the confirmation she opens stays open, its yes focused, through the burst
        a.keyboard.press("Enter")
        ask = a.locator("#trade-answer-confirm")
        expect(ask).to_contain_text("Notify the Dealer of this trade with dan? You give Red Js "
                                    "and get Red 5d.")
        assert a.evaluate("document.activeElement.id") == "trade-answer-confirm-yes"
        burst.more(6)
        seen = bobs_lines(a, seen + 6)
        expect(ask).to_be_visible()
        expect(ask).to_contain_text("with dan? You give Red Js and get Red 5d.")
        assert a.evaluate("document.activeElement.id") == "trade-answer-confirm-yes"
        a.keyboard.press("Enter")  # yes
        expect(a.locator("#trade-answer")).to_have_text(
            re.compile(r"^Sent: your notification \(event \d+\) waits for dan's matching one\.$"))
        mine = a.locator("#pooker-waiting-list > li")
        expect(mine).to_have_count(1)

        # --- her clicks while the burst goes on: three Motions voted down, her offer withdrawn
        voted = a.locator("#pooker-motion-answer")
        for number in (1, 2, 3):
            act(base, tokens["cat"], {"action": "pooker.motion"})
            burst.more(8)  # under way as she clicks
            a.get_by_role("button", name=f"Vote no on Motion {number}").click()
            a.click("#pooker-motion-answer-confirm-yes")  # a vote asks first
            expect(voted).to_have_text(f"You voted no on Motion {number}.")
            expect(a.locator("#motion-mine")).to_have_text("You voted no.")
            if number == 1:
                a.click("#pooker-waiting-list button[aria-label='Withdraw your offer to dan']")
                a.click("#pooker-waiting-answer-confirm-yes")
                expect(a.locator("#pooker-waiting-answer")).to_have_text(
                    re.compile(r"^You withdrew your offer to dan \(event \d+\)\.$"))
                expect(mine).to_have_count(0)
                expect(a.locator("#trade-answer")).to_have_text(
                    re.compile(r"^You withdrew your notification \(event \d+\)\.$"))
            for who in ("bob", "dan"):  # the Motion fails: three of five against it
                act(base, tokens[who], {"action": "pooker.vote", "vote": "no"})
            expect(a.locator("#make-motion")).to_be_visible()

        # --- a press of the mouse that a redraw comes between is still a click
        burst.settle()
        expect(a.locator("#pooker-offers-body")).to_have_text("No offer names you.")
        act(base, tokens["cat"], {"action": "pooker.motion"})
        yes = a.locator("#vote-yes")
        expect(yes).to_have_text("Vote yes on Motion 4")
        expect(a.locator("#motion-text")).to_contain_text("Motion 4 to Show Cards, made by cat: "
                                                          "0 yes, 0 no")
        yes.scroll_into_view_if_needed()
        yes.evaluate("(b) => { b.dataset.pressed = 'yes'; }")  # the node, marked
        box = yes.bounding_box()
        assert box is not None
        a.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        a.mouse.down()
        act(base, tokens["bob"], {"action": "pooker.vote", "vote": "yes"})
        expect(a.locator("#motion-text")).to_contain_text("1 yes, 0 no")  # drawn anew, pressed
        assert yes.evaluate("(b) => b.dataset.pressed") == "yes"  # the same node
        a.mouse.up()
        expect(a.locator("#pooker-motion-answer-confirm")).to_contain_text(
            "Vote yes on Motion 4 to Show Cards?")  # the click, asking first
        a.click("#pooker-motion-answer-confirm-yes")
        expect(voted).to_have_text("You voted yes on Motion 4.")
        expect(a.locator("#motion-text")).to_contain_text("2 yes, 0 no")
    finally:
        burst.stop()
        thread.join(timeout=30)
    assert not burst.errors, burst.errors
    assert burst.done <= BURST_LIMIT

    # --- the ledger: each of ann's acts once, in the order she took them
    with Nomic(db) as nomic, nomic.read() as tx:
        events = api.log(tx, limit=1000)
    hers = [(e.kind, e.payload.get("number"), e.payload.get("vote")) for e in events
            if e.actor == "ann (through the server)" and e.kind.startswith("pooker.")]
    assert hers == [("pooker.notified", None, None), ("pooker.voted", 1, False),
                    ("pooker.withdrawn", None, None), ("pooker.voted", 2, False),
                    ("pooker.voted", 3, False), ("pooker.voted", 4, True)], hers
    failed = [e.payload["number"] for e in events if e.kind == "pooker.failed"]
    assert failed == [1, 2, 3]
    assert tab.problems() == []
