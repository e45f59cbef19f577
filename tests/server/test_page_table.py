"""The players' table, finished: in Debian's Chromium (Playwright) against a real
``nomic-cards serve``, the standings with each account's history, drawn in place as Points
move; the Dealer's own page with an officer token (the Dealer's tools and what waits for the
Dealer, the deal's card and rolls, a tick's whole work); what waits first on a player's first
screen; the Dealer's Report wrapped to the width. Screenshots at 1280x800 and 375x740 go to
``$NOMIC_CARDS_SHOTS`` when it is set."""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.game_time import EPOCH, moment
from tests.server.page_support import (
    CSP_WATCH,
    FakeClock,
    Tab,
    api,
    build_game,
    live_table,
    require_browser,
)

#: a server, a browser, subprocesses: the full run only
pytestmark = pytest.mark.slow

SIZES = ((1280, 800), (375, 740))


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


def cli(db: str, *args: str) -> str:
    exe = Path(sys.executable).with_name("nomic-cards")
    done = subprocess.run([str(exe), "--db", db, *args], capture_output=True, text=True,
                          env={**os.environ, "NOMIC_CARDS_ACTOR": "dealer"}, check=False,
                          timeout=120)
    assert done.returncode == 0, f"{' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Any]]:
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    tokens = build_game(db)
    with live_table(db, tmp_path) as (base, browser):
        yield base, db, tokens, browser


def open_tab(browser: Any, base: str, size: tuple[int, int] = (1280, 800)) -> Tab:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), base)
    tab.watch(tab.page)
    return tab


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("NOMIC_CARDS_SHOTS")
    if folder:
        size = page.viewport_size
        page.screenshot(path=str(Path(folder) / f"{name}-{size['width']}.png"))


def test_the_standings_list_every_account_with_its_history_drawn_in_place(
        table: tuple[str, str, dict[str, str], Any]) -> None:
    base, db, _tokens, browser = table
    cli(db, "points", "grant", "ben", "7", "--rule", "9", "--note", "a fine essay")
    cli(db, "points", "grant", "ann", "3", "--rule", "9")
    for round, size in enumerate(SIZES):
        tab = open_tab(browser, base, size)
        page = tab.open()
        rows = page.locator("#standings tbody tr")
        standings = api(base, "/api/v1/points")["standings"]
        expect(rows).to_have_count(len(standings))
        assert standings[-1]["bank"] and len(standings) >= 5  # ann, ben, cat, dan, the Dealer
        assert [[c.strip() for c in rows.nth(i).locator("th, td.num").all_inner_texts()]
                for i in range(rows.count())] == [
            [("The Bank" if r["bank"] else r["account"]),
             (f"+{r['points']}" if r["points"] > 0 else
              f"\u2212{-r['points']}" if r["points"] < 0 else "0")] for r in standings]
        assert [r["account"] for r in standings[:2]] == ["ben", "ann"]
        # ben's history, opened: his grant, with its rule and note
        ben = page.locator("#history-player-ben")
        ben.locator("summary").click()
        expect(ben.locator(".movements li")).to_have_count(1 + 2 * round)
        expect(ben.locator(".movements li").last).to_contain_text("+7 from the Bank")
        expect(ben.locator(".movements li").last).to_contain_text("rule 9 · a fine essay")
        if round:
            expect(ben.locator(".movements li").first).to_contain_text(
                "+2 from the Bank · rule 9 · the typo undone")
        expect(ben.locator("a")).to_have_attribute("href", "/api/v1/points/players/ben")
        bank = page.locator("#history-bank")
        bank.locator("summary").click()
        expect(bank.locator(".movements li")).to_have_count(2 + 2 * round)
        expect(bank.locator(".movements li").nth(2 * round)).to_contain_text("\u22123 to ann")
        shoot(page, "standings")
        # Points move while the page is open: the row and the open history are drawn again
        # in place (the very nodes), the history still open
        page.evaluate("document.querySelector('#history-player-ben').__mark = 1")
        cli(db, "points", "grant", "--rule", "9", "--note", "a typo", "ben", "--", "-2")
        expect(ben.locator(".movements li")).to_have_count(2 + 2 * round)
        expect(ben.locator(".movements li").first).to_contain_text("\u22122 to the Bank")
        expect(rows.filter(has=page.locator("th:text-is('ben')")).locator("td.num")).to_have_text("+5")
        assert page.evaluate("document.querySelector('#history-player-ben').__mark") == 1
        assert ben.evaluate("(d) => d.open") is True
        assert tab.problems() == []
        page.context.close()
        cli(db, "points", "grant", "ben", "2", "--rule", "9", "--note", "the typo undone")


def officer_token(db: str) -> str:
    """An officer token for the Dealer, issued just after the game was built (on its clock,
    so that the server's first action catches up the months since)."""
    from freezegun import freeze_time

    from nomic_cards.core import api as core_api
    from nomic_cards.core.nomic import Nomic

    with freeze_time("2026-01-21 09:00:05"), Nomic(db) as game, game.write() as tx:
        return core_api.issue_token(tx, "PurpleBob", scope="dealer", keep_others=True).token


def test_the_dealers_own_page_deals_with_the_card_and_rolls_and_ticks_with_all_it_did(
        table: tuple[str, str, dict[str, str], Any]) -> None:
    base, db, tokens, browser = table
    officer = officer_token(db)
    before = 3  # the game was built with nweek 3 started, months ago by the server's clock
    for round, size in enumerate(SIZES):
        tab = open_tab(browser, base, size)
        page = tab.open()
        tab.sign_in(officer)
        expect(page.locator("#me-title")).to_have_text("The Dealer's table")
        expect(page.locator("#dealer-table")).to_be_visible()
        # the Dealer's tools and what waits for em; no hand, no votes, no ballot waiting
        for hidden in ("#hand-part", "#votes", "#votes-title"):
            expect(page.locator(hidden)).to_be_hidden()
        expect(page.locator("#waiting-title")).to_have_text("Waiting for the Dealer")
        expect(page.locator("#waiting-list li").last).to_contain_text("Start nweek ")
        expect(page.locator("#dealer-deal-submit")).to_be_visible()
        expect(page.locator("#token-form")).to_be_hidden()
        expect(page.locator("#hand-brief")).to_be_empty()  # the Dealer holds no hand
        shoot(page, "dealer-first")
        if round == 0:
            # Tick first: the game's clock is months past its last nweek, so the action
            # catches up every nweek due before its own tick -- and says so
            page.click("#dealer-tick-submit")
            answer = page.locator("#dealer-tick-answer")
            now = api(base, "/api/v1/game")["nweek"]
            assert now > before + 1
            expect(answer).to_contain_text(f"Done: started {now - before} nweeks, {before + 1} "
                                           f"to {now} ({now - before} Dealer's Reports "
                                           "published), Cards for Votes 0 dealt.")
            expect(answer).not_to_contain_text("nothing was due")
            expect(answer).to_contain_text(re.compile(r"\d+ events recorded\.$"))
            shoot(page, "dealer-tick")
            page.click("#dealer-tick-submit")  # nothing due now: said so
            expect(answer).to_have_text("Done: nothing was due.")
        # a deal: the answer names the card and every roll, to the Dealer alone
        held = {c["number"] for c in api(base, "/api/v1/me/hand", tokens["ben"])["cards"]}
        page.select_option("#dealer-deal-player", "ben")
        page.click("#dealer-deal-submit")
        answer = page.locator("#dealer-deal-answer")
        expect(answer).to_contain_text("Done: dealt ")
        new = [c for c in api(base, "/api/v1/me/hand", tokens["ben"])["cards"]
               if c["number"] not in held]
        assert len(new) == 1
        text = answer.inner_text()
        assert text.startswith(f"Done: dealt {new[0]['card']} (card {new[0]['number']}) to ben, "
                               "in "), text
        rolls = re.findall(r"d(\d+) \u2192 (\d+) \(([^)]*)\)", text)
        assert rolls and rolls[-1][2] == "in the Deck: dealt"
        assert int(rolls[-1][1]) == new[0]["number"]  # the last roll names the card dealt
        assert all(r[2] == "not in the Deck: rolled again" for r in rolls[:-1])
        shoot(page, "dealer-deal")
        # ben's page shows the card and never the numbers rolled
        assert tab.problems() == []
        page.context.close()
    ben = open_tab(browser, base)
    page = ben.open()
    ben.sign_in(tokens["ben"])
    expect(page.locator("#votes-title")).to_be_visible()
    expect(page.locator("#dealer-table")).to_be_hidden()
    expect(page.locator("#notices li").first).to_contain_text("roll")
    assert " \u2192 " not in page.locator("#notices").inner_text()


def act(base: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(f"{base}/api/v1/me/actions", json=body, timeout=30,
                   headers={"Authorization": f"Bearer {token}",
                            "Idempotency-Key": secrets.token_hex(16)})
    assert r.status_code in (201, 202), (body, r.status_code, r.text)
    return dict(r.json())


@pytest.fixture
def pooker_table(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Any, FakeClock]]:
    """Pooker in force and a decision of the nomic open, at the test games' nweek 1 (the
    server and the command line under libfaketime)."""
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    clock = FakeClock.at(moment(1.375), tmp_path)
    run = lambda command: clock.run(db, *shlex.split(command))  # noqa: E731
    run(f"init --epoch {EPOCH.isoformat()} --nweek-days 10")
    for name in ("ann", "bob", "cat"):
        run(f"player add {name}")
    run("game enact pooker --packs Red,Blue --proposal P456")
    for card, who in (("Red As", "ann"), ("Red Ks", "ann"), ("Blue Qs", "ann"),
                      ("Red 10s", "bob"), ("Red 2h", "bob"), ("Blue 3c", "cat")):
        run(f"transfer '{card}' --to {who} --from deck --rule 'P470: dealt'")
    for who in ("ann", "bob"):
        run(f"points grant {who} 5 --rule 'Scorekeeper report'")
    closes = (clock.now() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run(f"decision open 9400 --title 'A tidier table' --author bob --ai 1.0 --quorum 2 "
        f"--closes {closes}")
    tokens = {who: json.loads(run(f"token issue {who} --json"))["token"]
              for who in ("ann", "bob", "cat")}
    tokens["dealer"] = json.loads(run("token issue PurpleBob --scope dealer --json"))["token"]
    with live_table(db, tmp_path, clock) as (base, browser):
        yield base, db, tokens, browser, clock


def in_first_screen(page: Any, selector: str) -> None:
    """Every element ``selector`` matches is shown whole in the first screen, unscrolled."""
    boxes = page.eval_on_selector_all(selector, """(nodes) => nodes.map((n) => {
      const r = n.getBoundingClientRect();
      return [r.top + window.scrollY, r.bottom + window.scrollY, r.width];
    })""")
    height = page.viewport_size["height"]
    assert boxes, selector
    for top, bottom, width in boxes:
        assert width > 0 and top >= 0 and bottom <= height, (selector, top, bottom, height)


def test_what_waits_and_the_hand_in_brief_come_first_the_token_box_folded(
        pooker_table: tuple[str, str, dict[str, str], Any, FakeClock]) -> None:
    base, _db, tokens, browser, _clock = pooker_table
    act(base, tokens["bob"], {"action": "pooker.trade", "with": "ann", "give": ["Red 10s"],
                              "get": ["Blue Qs"]})
    act(base, tokens["bob"], {"action": "pooker.motion"})
    for size in SIZES:
        tab = open_tab(browser, base, size)
        page = tab.open()
        tab.sign_in(tokens["ann"])
        items = page.locator("#waiting-list li")
        expect(items).to_have_count(3)
        expect(page.locator("#waiting-title")).to_have_text("What waits for you")
        # the decision, the Motion and bob's offer, each with its deadline
        texts = items.all_inner_texts()
        assert any(t.startswith("Decision 9400 (A tidier table): cast your ballot") for t in texts)
        assert any(t.startswith("Vote on Motion 1 to Show Cards") for t in texts)
        assert any(t.startswith("Answer bob's offer: accept or decline it") for t in texts)
        assert all(re.search(r"By \d{4}-\d\d-\d\d \d\d:\d\d UTC, in ", t) for t in texts), texts
        expect(page.locator("#hand-brief-count")).to_have_text(
            "3 cards: 2 Red, 1 Blue · every card, drawn")
        expect(page.locator("#hand-brief .mini")).to_have_count(3)
        # the token box is folded away; what waits and the hand in brief fill the first screen
        expect(page.locator("#token-form")).to_be_hidden()
        expect(page.locator("#change-token")).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        shoot(page, "first-screen")
        in_first_screen(page, "#waiting-list li")
        in_first_screen(page, "#hand-brief-count")
        in_first_screen(page, "#hand-brief .mini")
        if size == SIZES[-1]:
            # the vote asks first; answered, the view agrees at once: the Motion voted, its
            # buttons gone, and no longer among what waits
            page.click("#vote-yes")
            confirm = page.locator("#pooker-motion-answer-confirm")
            expect(confirm).to_contain_text("Vote yes on Motion 1 to Show Cards?")
            shoot(page, "motion-confirm")
            page.click("#pooker-motion-answer-confirm-yes")
            expect(page.locator("#pooker-motion-answer")).to_have_text(
                "You voted yes on Motion 1.")
            assert page.locator("#motion-mine").text_content() == "You voted yes."
            assert page.locator("#vote-yes").count() == 0
            assert not any(t.startswith("Vote on Motion") for t in items.all_inner_texts())
            shoot(page, "motion-voted")
        # and the token box opens again for another token
        page.click("#change-token")
        expect(page.locator("#token")).to_be_focused()
        assert tab.problems() == []
        page.context.close()


def test_the_dealers_report_is_wrapped_to_the_width_its_packs_named(
        pooker_table: tuple[str, str, dict[str, str], Any, FakeClock]) -> None:
    base, db, _tokens, browser, clock = pooker_table
    clock.set(moment(10.05))  # past nweek 1's end: the tick publishes its report
    clock.run(db, "tick")
    text = api(base, "/api/v1/reports/1?format=text")
    flat = " ".join(text.split())  # the text form is wrapped at 72 columns
    assert "packs Red and Blue, prize=score" in flat and "packs=" not in flat, text
    for size in SIZES:
        tab = open_tab(browser, base, size)
        page = tab.open()
        report = page.locator("#report")
        expect(report).to_contain_text("packs Red and Blue")
        assert report.text_content() == text  # the text as published, byte for byte
        # no line wider than its box, nor the page wider than the screen
        assert report.evaluate("(n) => n.scrollWidth <= n.clientWidth"), report.evaluate(
            "(n) => [n.scrollWidth, n.clientWidth]")
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        report.scroll_into_view_if_needed()
        shoot(page, "report")
        assert tab.problems() == []
        page.context.close()
