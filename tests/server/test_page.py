"""The web page at ``/`` in a real browser: Debian's headless Chromium driven by Playwright,
against a real ``nomic-cards serve`` subprocess on a game with five packs, deals, two published
reports and a revealed dice period (``page_support.build_game``).

What the page shows is checked against what the API answers; the token must live in the tab's
sessionStorage and the Authorization header only; refusals, rate limits and outages must be
said plainly; the page must work by keyboard alone, under its Content-Security-Policy without
a single violation or console error, and pass axe-core (from the axe-playwright-python package,
loaded from disk) and focused accessibility checks. A screenshot is kept under the tmp dir.
Without /usr/bin/chromium the tests skip (and fail under ``CI``).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from nomic_cards.server.app import PAGE_CSP
from tests.server.conftest import start_server, stop_server
from tests.server.page_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    CSP_WATCH,
    Tab,
    api,
    build_game,
    low_contrast,
    parse_rgb,
    require_browser,
)

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

SUIT = {"d": ("\u2666", "red"), "h": ("\u2665", "red"), "s": ("\u2660", "black"),
        "c": ("\u2663", "black")}
REFUSED = ("That token was not accepted: it may be mistyped, revoked, or belong to a player who "
           "has left the game. Check it, or ask the Dealer for a new one.")


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


@dataclass
class Site:
    base: str
    db: str
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import expect as pw_expect
    from playwright.sync_api import sync_playwright

    pw_expect.set_options(timeout=30_000)  # waits for a condition, generous on a busy machine
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def site(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("page")
    db = f"sqlite:///{tmp / 'game.db'}"
    tokens = build_game(db)
    live = start_server(db, tmp)
    try:
        yield Site(live.base, db, tokens)
    finally:
        stop_server(live)


def new_tab(browser: Any, base: str, **options: Any) -> Tab:
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), base)
    context.on("request", lambda r: tab.requests.append(r))
    tab.watch(tab.page)
    return tab


@pytest.fixture
def tab(browser: Any, site: Site) -> Iterator[Tab]:
    t = new_tab(browser, site.base)
    try:
        yield t
    finally:
        t.page.context.close()


def texts(locator: Any) -> list[str]:
    return [t.strip() for t in locator.all_text_contents()]


# --- what the page shows --------------------------------------------------------------------


def test_the_page_shows_the_public_record_the_api_gives(site: Site, tab: Tab) -> None:
    game, deck = api(site.base, "/api/v1/game"), api(site.base, "/api/v1/deck")
    players, dice = api(site.base, "/api/v1/players"), api(site.base, "/api/v1/dice")
    reports, head = api(site.base, "/api/v1/reports"), api(site.base, "/api/v1/ledger/head")
    page = tab.open()
    described = {p["name"]: p["back"] for p in game["packs"]}

    line = page.locator("#game-line").text_content()
    assert f"Dealer: {game['dealer']}" in line
    assert f"{deck['total']} of {deck['sides']} cards in the Deck" in line
    rows = page.locator("#deck tbody tr")
    assert [texts(r.locator("th, td")) for r in rows.all()] == [
        [b["back"], described[b["back"]], str(b["cards"])] for b in deck["by_back"]]
    assert len(deck["by_back"]) == 5
    expect(page.locator("#deck-total")).to_have_text(f"{deck['total']} of {deck['sides']}")

    active = [p for p in players["players"] if p["active"]]
    assert "dan" not in [p["name"] for p in active]
    rows = page.locator("#players tbody tr")
    expect(rows).to_have_count(len(active))
    for row, p in zip(rows.all(), active, strict=True):
        name = p["name"] + (" Dealer" if p["dealer"] else "")
        assert row.locator("th").text_content() == name
        assert row.locator("td.num").text_content() == ("—" if p["dealer"] else str(p["cards"]))
        assert texts(row.locator(".chips li")) == [f"{b['cards']} {b['back']}"
                                                   for b in p["by_back"]]

    latest = reports[0]
    assert [r["nweek"] for r in reports] == [2, 1]
    assert page.locator("#report").text_content() == api(
        site.base, f"/api/v1/reports/{latest['nweek']}?format=text")
    assert f"nweek {latest['nweek']}" in page.locator("#report-meta").text_content()
    for r in reports:
        link = page.get_by_role("link", name=f"nweek {r['nweek']} (text)")
        assert link.get_attribute("href") == f"/api/v1/reports/{r['nweek']}?format=text"

    rows = page.locator("#dice tbody tr")
    assert [texts(r.locator("th, td")) for r in rows.all()] == [
        [str(d["period"]), str(d["rolls"]), d["commitment"], d["seed"] or "not revealed yet"]
        for d in dice]
    assert any(d["seed"] for d in dice) and not all(d["seed"] for d in dice)
    assert page.locator("#head").text_content() == f"event {head['event']}, {head['hash']}"
    assert page.locator("#me").is_hidden()
    assert tab.problems() == []


def face_of(card: str) -> tuple[str, str]:
    """``"Red 10h"`` -> ``("10", "h")``, read here from the API's text, not from the page."""
    token = card.split()[-1]
    return token[:-1].upper(), token[-1].lower()


def test_a_token_shows_the_hand_with_faces_and_backs_and_the_notices(site: Site,
                                                                      tab: Tab) -> None:
    token = site.tokens["ann"]
    hand = api(site.base, "/api/v1/me/hand", token)
    notices = api(site.base, "/api/v1/me/notices", token)
    described = {p["name"]: p["back"] for p in api(site.base, "/api/v1/game")["packs"]}
    page = tab.open()
    tab.sign_in(token)
    n = len(hand["cards"])
    expect(page.locator("#me-status")).to_have_text(
        f"ann, you hold {n} cards (as of event {hand['as_of']}).")
    assert n == 15  # the fourteen dealt by hand, and the Card for Votes

    # grouped by Back, in the packs' order; each Back's description once on the page (the
    # Deck's), never again per group
    backs = list(dict.fromkeys(c["back"] for c in hand["cards"]))
    groups = page.locator(".pack-group")
    expect(groups).to_have_count(len(backs))
    for group, back in zip(groups.all(), backs, strict=True):
        held = [c for c in hand["cards"] if c["back"] == back]
        count = f"{len(held)} card" + ("s" if len(held) > 1 else "")
        assert group.locator("h4").text_content() == f"{back} back · {count}"
        assert group.locator(".back-text").count() == 0
        assert page.get_by_text(described[back], exact=True).count() == 1
        cards = group.locator("li.card").all()
        assert len(cards) == len(held)
        for li, c in zip(cards, held, strict=True):
            rank, suit = face_of(c["card"])
            symbol, colour = SUIT[suit]
            assert li.locator(".caption .name").text_content() == c["name"]
            assert li.locator(".caption .number").text_content() == f"card {c['number']}"
            assert li.locator(".caption").text_content() == (
                f"{c['name']}card {c['number']}, {back} back")  # what a screen reader hears
            assert texts(li.locator(".corner .rank")) == [rank, rank]
            assert texts(li.locator(".corner .pip")) == [symbol, symbol]
            middle = li.locator(".middle")
            if rank == "A":
                assert middle.locator(".ace").text_content() == symbol
            elif rank in "JQK":
                assert middle.locator(".court-rank").text_content() == rank
            else:
                assert texts(middle.locator(".pip")) == [symbol] * int(rank)
            assert li.locator(".art").get_attribute("aria-hidden") == "true"
            r, g, b, _ = parse_rgb(li.locator(".face").evaluate("e => getComputedStyle(e).color"))
            assert (r > 120 and g < 80 and b < 80) if colour == "red" else max(r, g, b) < 60
            drawn = li.locator(".card-back")
            expected = f"back-{back.lower()}" if back != "Meadow" else "back-other"
            assert expected in drawn.get_attribute("class").split()
    # each Back is drawn differently, the extra pack's in a colour of its own (set through the
    # CSSOM, which the CSP allows: no violation below)
    looks = {}
    for group, back in zip(groups.all(), backs, strict=True):
        looks[back] = group.locator(".card-back").first.evaluate(
            "e => getComputedStyle(e).backgroundColor + getComputedStyle(e).backgroundImage")
    assert len(set(looks.values())) == len(backs) == 5
    assert not looks["Meadow"].startswith("rgb(119, 119, 119)")  # not the fallback grey

    items = page.locator("#notices li")
    expect(items).to_have_count(len(notices))
    for li, notice in zip(items.all(), notices, strict=True):
        assert li.locator(".text").text_content() == notice["text"]
        assert li.locator("time").get_attribute("datetime") == notice["at"]
        # how many rolls the deal took, never the numbers rolled (docs/dice.md)
        count = f"{notice['rolls']} roll" + ("s" if notice["rolls"] != 1 else "")
        dice = "the committed die" if notice["dice"] == "committed" else \
            f"{notice['dice']} dice"
        assert li.locator(".rolls").text_content() == f"Dealt in {count} of {dice}."
        assert not re.search(r"\bd\d|on a d", li.text_content())
    sources = {n["dice"] for n in notices}
    assert sources == {"manual", "committed"}
    assert tab.problems() == []


def test_a_player_without_cards_is_told_so(site: Site, tab: Tab) -> None:
    page = tab.open()
    tab.sign_in(site.tokens["cat"])
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^cat, you hold 0 cards"))
    expect(page.locator("#hand")).to_have_text("You hold no cards yet.")
    expect(page.locator("#notices")).to_have_text("No notices yet.")
    assert tab.problems() == []


# --- the token --------------------------------------------------------------------------------


def test_the_token_stays_in_this_tab_and_travels_only_in_a_header(site: Site, tab: Tab) -> None:
    token = site.tokens["ann"]
    page = tab.open()
    tab.sign_in(f"  Bearer {token}\n")  # pasted with the scheme and white space: still read
    expect(page.locator("#hand li.card").first).to_be_visible()
    assert page.input_value("#token") == ""
    assert page.evaluate("sessionStorage.getItem('nomic-cards-token')") == token
    # localStorage holds the number of the last event seen (to mark what is new), nothing else
    stored = page.evaluate("Object.fromEntries(Object.entries(localStorage))")
    assert set(stored) <= {"nomic-cards-seen"} and all(v.isdigit() for v in stored.values())
    assert page.evaluate("document.cookie") == ""

    page.reload()  # the same tab keeps it ...
    expect(page.locator("#hand li.card").first).to_be_visible()
    other = page.context.new_page()  # ... another tab does not have it
    tab.watch(other)
    other.goto(site.base + "/")
    expect(other.locator("#head")).to_have_text(re.compile(r"^event \d+"))
    assert other.evaluate("sessionStorage.length") == 0
    assert other.locator("#me").is_hidden()

    page.click("#forget")
    expect(page.locator("#me-status")).to_have_text("Your token is forgotten in this tab.")
    assert page.evaluate("sessionStorage.length") == 0
    assert page.locator("#hand li, #notices li").count() == 0  # nothing private left in the page

    assert page.url == other.url == site.base + "/"
    private = 0
    for request in tab.requests:
        assert token not in request.url
        headers = request.all_headers()
        for name, value in headers.items():
            if token in value:
                assert name == "authorization" and value == f"Bearer {token}"
        if "authorization" in headers:
            assert request.url == site.base + "/api/v1/me" or \
                request.url.startswith(site.base + "/api/v1/me/")
            private += 1
    # the player, eir hand, notices, votes, the card games' view and eir event stream, before
    # and after the reload
    assert private == 12
    assert tab.problems() == []


def hold_answers_for(page: Any, token: str) -> list[Any]:
    """Hold back the requests for the hand made with ``token`` (let others through); the
    returned list fills with them, to be let go later."""
    held: list[Any] = []

    def route(r: Any) -> None:
        if r.request.headers.get("authorization") == f"Bearer {token}":
            held.append(r)
        else:
            r.continue_()
    page.route("**/api/v1/me/hand", route)
    return held


def wait_held(page: Any, held: list[Any]) -> None:
    """Until the request for the hand is held (it is made once /api/v1/me has answered)."""
    for _ in range(600):  # the route handler runs as Playwright dispatches events
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1


def let_go(page: Any, held: list[Any]) -> None:
    wait_held(page, held)
    with page.expect_response(lambda r: r.url.endswith("/api/v1/me/hand")):
        held.pop().continue_()
    expect(page.locator("#me-panel")).to_have_attribute("aria-busy", "false")  # it settled


def test_a_late_answer_cannot_undo_forget_or_show_another_hand(site: Site, tab: Tab) -> None:
    page = tab.open()
    held = hold_answers_for(page, site.tokens["ann"])
    tab.sign_in(site.tokens["ann"])
    expect(page.locator("#me-panel")).to_have_attribute("aria-busy", "true")
    wait_held(page, held)  # the hand's answer is late
    page.evaluate("document.getElementById('forget').click()")  # Forget while it loads
    let_go(page, held)
    expect(page.locator("#me-status")).to_have_text("Your token is forgotten in this tab.")
    assert page.locator("#me").is_hidden() and page.locator("li.card").count() == 0

    tab.sign_in(site.tokens["ann"])  # ann's answer is late, and cat signs in meanwhile
    wait_held(page, held)
    tab.sign_in(site.tokens["cat"])
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^cat, you hold 0 cards"))
    let_go(page, held)
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^cat, you hold 0 cards"))
    assert page.locator("li.card").count() == 0
    assert page.evaluate("sessionStorage.getItem('nomic-cards-token')") == site.tokens["cat"]
    assert tab.problems() == []


@pytest.mark.parametrize("which", ["not a token", "malformed", "wrong verifier", "ann, revoked",
                                   "dan, retired"])
def test_a_refused_token_is_explained_and_the_page_goes_on(site: Site, tab: Tab,
                                                           which: str) -> None:
    good = site.tokens["ann"]
    selector, verifier = good.split(".")
    other = "y" if verifier[0] == "x" else "x"  # a first character it does not have
    token = {"not a token": "hello", "malformed": "a.b.c.d",
             "wrong verifier": f"{selector}.{other}{verifier[1:]}"
             }.get(which) or site.tokens[which]
    # (the page's two requests are two of the 20 failures a minute the server allows from an
    # address: this module's tests spend 12 of them; the 429 test has its own server)
    page = tab.open()
    tab.sign_in(token)
    status = page.locator("#me-status")
    expect(status).to_have_text(REFUSED)
    assert "error" in status.get_attribute("class").split()
    assert page.locator("#me").is_hidden() and page.locator("#hand li").count() == 0
    assert page.evaluate("sessionStorage.length") == 0
    assert page.locator("#deck tbody tr").count() == 5  # the public record is still there
    tab.sign_in(good)  # and the page still works
    expect(status).to_have_text(re.compile(r"^ann, you hold"))
    assert tab.problems(allow_status=(401,)) == []


def test_an_empty_field_asks_for_the_token(site: Site, tab: Tab) -> None:
    page = tab.open()
    tab.sign_in("   ")
    expect(page.locator("#me-status")).to_have_text("Paste your token in the field first.")
    assert page.evaluate("document.activeElement.id") == "token"
    assert not [r for r in tab.requests if "/api/v1/me" in r.url]


def test_too_many_wrong_tokens_give_the_wait(browser: Any, site: Site, tmp_path: Path) -> None:
    live = start_server(site.db, tmp_path)  # its own server: the failure count is per process
    t = new_tab(browser, live.base)
    try:
        for _ in range(100):
            r = httpx.get(live.base + "/api/v1/me", headers={"Authorization": "Bearer x.y"})
            if r.status_code == 429:
                break
        assert r.status_code == 429
        limit = int(r.headers["Retry-After"])
        page = t.open()
        t.sign_in(site.tokens["ann"])
        status = page.locator("#me-status")
        expect(status).to_have_text(re.compile(
            r"^Too many wrong tokens were tried from this address\. Try again in (\d+) "
            r"(seconds?|minutes)\.$"))
        wait = int(re.findall(r"\d+", status.text_content())[0])
        assert 0 < wait <= max(limit, 1)
        # not a refusal of the token: it is kept, and can be forgotten
        assert page.evaluate("sessionStorage.getItem('nomic-cards-token')") == site.tokens["ann"]
        assert page.locator("#forget").is_visible()
        assert t.problems(allow_status=(429,)) == []
    finally:
        t.page.context.close()
        stop_server(live)


def test_an_unreachable_database_or_server_is_said_plainly(site: Site, tab: Tab) -> None:
    page = tab.page
    # the server's own 503 (as it answers when the database does not: tests/server/test_live.py)
    down = {"status": 503, "headers": {"Retry-After": "5", "Cache-Control": "no-store"},
            "content_type": "application/json",
            "body": json.dumps({"error": "the game database is not answering; try again shortly"})}
    page.route("**/api/v1/deck", lambda route: route.fulfill(**down))
    tab.open(loaded=False)
    unavailable = "The game's database is not answering just now. Try again in a few seconds."
    retries = re.compile("^" + re.escape(unavailable) + r" The page tries again in \d+ seconds\.$")
    # the Deck's part says it, the rest of the page is drawn: the header is never blanked
    expect(page.locator("#deck-status")).to_have_text(retries)
    assert "error" in page.locator("#deck-status").get_attribute("class").split()
    expect(page.locator("#game-line")).to_contain_text("Dealer: PurpleBob · nweek ")
    expect(page.locator("#head")).to_have_text(re.compile(r"^event \d+"))
    expect(page.locator("#players tbody tr")).to_have_count(4)
    expect(page.locator("#public-status")).to_have_text("")
    page.unroute("**/api/v1/deck")  # it comes back by itself, without a reload or a click
    expect(page.locator("#deck tbody tr")).to_have_count(5)
    expect(page.locator("#deck-status")).to_have_text("")
    expect(page.locator("#game-line")).to_contain_text(" cards in the Deck")

    # one resource missing (a 404) is said in its own part; the header keeps its line
    missing = {"status": 404, "content_type": "application/json",
               "body": json.dumps({"error": "no such resource"})}
    page.route("**/api/v1/reports/2?format=text", lambda route: route.fulfill(**missing))
    page.click("#refresh")
    expect(page.locator("#report-status")).to_have_text(re.compile(
        r"^The server could not answer \(404: no such resource\)\. The page tries again in "))
    expect(page.locator("#game-line")).to_contain_text("Dealer: PurpleBob · nweek ")
    page.unroute("**/api/v1/reports/2?format=text")
    expect(page.locator("#report-status")).to_have_text("")

    page.route("**/api/v1/me", lambda route: route.fulfill(**down))
    tab.sign_in(site.tokens["ann"])
    expect(page.locator("#me-status")).to_have_text(unavailable)
    assert page.evaluate("sessionStorage.getItem('nomic-cards-token')") == site.tokens["ann"]
    page.unroute("**/api/v1/me")
    # the hand alone fails: the rest of the player's table is drawn, the hand says why
    page.route("**/api/v1/me/hand", lambda route: route.abort("connectionrefused"))
    page.click("#refresh")
    expect(page.locator("#hand-status")).to_have_text(
        "The server could not be reached. Check your connection and try again. The page tries "
        "again in 5 seconds.")
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^ann, you hold 15 cards\.$"))
    expect(page.locator("#notices li").first).to_be_visible()
    page.unroute("**/api/v1/me/hand")  # tried again by itself
    expect(page.locator("#hand-status")).to_have_text("")
    expect(page.locator("#hand li.card")).to_have_count(15)
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^ann, you hold 15 cards \(as of"))
    assert [p for p in tab.problems(allow_status=(503, 404))
            if "ERR_CONNECTION_REFUSED" not in p] == []


# --- keyboard, CSP, accessibility, looks ----------------------------------------------------


def focused(page: Any) -> dict[str, str]:
    return page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
      return {id: e.id, tag: e.tagName, text: (e.textContent || "").trim().slice(0, 40),
              outline: s.outlineStyle, width: s.outlineWidth, shadow: s.boxShadow}; }""")


def test_keyboard_alone_reaches_everything_with_visible_focus(site: Site, tab: Tab) -> None:
    page = tab.open()
    page.keyboard.press("Tab")
    assert focused(page)["text"] == "Skip to the game"
    assert page.locator(".skip").bounding_box()["x"] >= 0  # shown when focused
    page.keyboard.press("Enter")
    assert focused(page)["id"] == "main"
    page.keyboard.press("Tab")
    assert focused(page)["id"] == "token"
    page.keyboard.type(site.tokens["ann"])
    page.keyboard.press("Enter")
    expect(page.locator("#hand li.card").first).to_be_visible()
    # signed in, the token box folds away: the focus goes to what opens it again
    assert focused(page)["text"] == "Use another token"
    page.keyboard.press("Tab")
    assert focused(page)["text"] == "Forget my token"
    page.keyboard.press("Space")
    expect(page.locator("#me-status")).to_have_text("Your token is forgotten in this tab.")
    assert focused(page)["id"] == "token"  # focus goes back to the field, not lost

    page.reload()  # a full round of Tab from the top: every stop with a focus ring
    expect(page.locator("#head")).to_have_text(re.compile(r"^event \d+"))
    stops: list[dict[str, str]] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        f = focused(page)
        if f["tag"] == "BODY" or (stops and f == stops[0]):
            break
        stops.append(f)
    for f in stops:
        assert f["outline"] == "solid" and float(f["width"].removesuffix("px")) >= 3, f
        assert "255, 210, 63" in f["shadow"], f  # the gold ring inside the dark one
    reached = {f["id"] or f["text"] for f in stops}
    assert {"report", "refresh", "Follow the reports (Atom feed)", "nweek 1 (text)",
            "The JSON API (OpenAPI)"} <= reached
    assert tab.problems() == []


def test_the_content_security_policy_holds_and_nothing_is_logged(site: Site, tab: Tab) -> None:
    response = tab.page.goto(site.base + "/")
    assert response.headers["content-security-policy"] == PAGE_CSP
    page = tab.page
    expect(page.locator("#head")).to_have_text(re.compile(r"^event \d+"))  # the script ran
    assert page.locator("header").evaluate(
        "e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"  # the style applied
    tab.sign_in(site.tokens["ann"])
    expect(page.locator("#hand li.card").first).to_be_visible()
    page.click("#refresh")
    expect(page.locator("#me-status")).to_have_text(re.compile(r"^ann, you hold"))
    assert tab.problems() == []
    # the policy is really enforced: inline script and style are refused (and reported)
    page.evaluate("""() => { const s = document.createElement("script");
      s.textContent = "window.__inline = true"; document.body.append(s);
      document.body.setAttribute("style", "background: red"); }""")
    expect(page.locator("body")).to_have_attribute("style", "background: red")
    assert page.evaluate("window.__inline") is None
    assert page.locator("body").evaluate("e => getComputedStyle(e).backgroundColor") != \
        "rgb(255, 0, 0)"
    directives = {v.split()[0] for v in page.evaluate("window.__csp")}
    assert {"script-src-elem", "style-src-attr"} <= directives


def axe_violations(page: Any) -> tuple[int, str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={
        "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                              "wcag22aa", "best-practice"]},
        "resultTypes": ["violations"]})
    return results.violations_count, results.generate_report()


def test_axe_core_finds_no_accessibility_violation(site: Site, tab: Tab) -> None:
    page = tab.open()
    count, report = axe_violations(page)
    assert count == 0, report
    tab.sign_in(site.tokens["ann"])
    expect(page.locator("#notices li").first).to_be_visible()
    count, report = axe_violations(page)
    assert count == 0, report
    tab.sign_in("nonsense")
    expect(page.locator("#me-status")).to_have_text(REFUSED)
    count, report = axe_violations(page)
    assert count == 0, report


#: Text on its background, each pair at least 4.5:1 (WCAG AA for body text).
TEXTS = ["body", "#game-line", "#refresh", ".table-felt h2", ".table-felt label",
         ".table-felt .help", "#token", "button[type=submit]", "#forget", "#me-status",
         ".pack-title", "#hand-brief-count", ".caption .name", ".caption .number",
         ".corner .rank", ".notices .when", ".notices .text", ".notices .rolls", "caption",
         ".meta", "#deck .back-text", "#deck td.num", ".tag", ".chips li", "td.muted",
         "main a", "pre", ".hash", "footer p", "footer a",
         "#countdown", ".log .seq", ".log .when", ".log .text", "#votes caption", "#votes td"]


def test_focused_accessibility_checks(site: Site, tab: Tab) -> None:
    page = tab.open()
    tab.sign_in(site.tokens["ann"])
    expect(page.locator("#hand li.card").first).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.title() == "Spoon Nomic Cards"
    # every control has a label; no image without a text alternative
    assert page.evaluate("""[...document.querySelectorAll("input, select, textarea")]
      .filter((e) => !e.labels.length).length""") == 0
    assert page.evaluate("""[...document.querySelectorAll("img, svg, [role=img]")]
      .filter((e) => !e.getAttribute("alt") && !e.getAttribute("aria-label")
                     && e.getAttribute("aria-hidden") !== "true").length""") == 0
    # headings: one h1, then no level skipped
    levels = page.evaluate("""[...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
      .filter((h) => h.offsetParent !== null).map((h) => +h.tagName[1])""")
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    # landmarks, and live regions for what changes
    for role in ("banner", "main", "contentinfo"):
        expect(page.get_by_role(role)).to_have_count(1)
    for part in ("public", "me", "hand", "notices", "votes", "games", "deck", "players",
                 "live", "report", "dice", "head"):  # each part says its own troubles
        expect(page.locator(f"#{part}-status")).to_have_attribute("role", "status")
    # every card says its face in text (the drawing is hidden from screen readers)
    for li in page.locator("li.card").all():
        assert re.fullmatch(r"(Ace|King|Queen|Jack|\d+) of (Diamonds|Spades|Hearts|Clubs)",
                            li.locator(".caption .name").text_content())
    # contrast of every kind of text on its background
    assert low_contrast(page, TEXTS) == []


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_screenshots_wide_and_narrow(site: Site, browser: Any, tmp_path: Path) -> None:
    for name, width in (("page.png", 1280), ("page-narrow.png", 375)):
        t = new_tab(browser, site.base, viewport={"width": width, "height": 900})
        try:
            page = t.open()
            t.sign_in(site.tokens["ann"])
            expect(page.locator("#notices li").first).to_be_visible()
            page.locator("#token").blur()
            # nothing wider than the screen (long hashes and the report scroll in their box)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot = tmp_path / name
            page.screenshot(path=str(shot), full_page=True)
            assert png_size(shot)[0] == width and png_size(shot)[1] > 900
            assert t.problems() == []
        finally:
            t.page.context.close()
    print(f"screenshots: {tmp_path / 'page.png'} and {tmp_path / 'page-narrow.png'}")
