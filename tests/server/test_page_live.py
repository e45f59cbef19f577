"""The page as the game's table, live: in Debian's Chromium (Playwright) against a real server,
a card dealt on the officer's side shows in the player's hand and log without a refresh, with
its notice for its receiver only; what came since the last visit is marked new; the page holds
to its CSP and axe-core throughout (see test_page.py for the rest of the page)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.server.page_support import (
    CSP_WATCH,
    Tab,
    build_game,
    live_table,
    require_browser,
)

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Any]]:
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    tokens = build_game(db)
    with live_table(db, tmp_path) as (base, browser):
        yield base, db, tokens, browser


def open_tab(browser: Any, base: str, width: int = 1280) -> Tab:
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), base)
    tab.watch(tab.page)
    return tab


def test_a_deal_reaches_the_players_table_live(table: tuple[str, str, dict[str, str], Any],
                                               tmp_path: Path) -> None:
    base, db, tokens, browser = table
    tab = open_tab(browser, base, width=375)
    page = tab.open()
    tab.sign_in(tokens["ann"])
    cards = page.locator("#hand li.card")
    expect(cards.first).to_be_visible()
    expect(page.locator("#live-status")).to_have_text("Following the game live.")
    before = cards.count()
    expect(page.locator("#countdown")).to_have_text(re.compile(r"^nweek \d+ begins in "))

    # the officer's side, another process's connection
    with Nomic(db) as game, game.write() as tx:
        mine = api.deal(tx, "ann")
        bens = api.deal(tx, "ben")
    # no refresh: the stream brings the deal, the hand is read again
    expect(cards).to_have_count(before + 1)
    expect(page.locator("#hand")).to_contain_text(f"card {mine.card_number}")
    mine_line = page.locator("#log li").filter(has_text=f"(card {mine.card_number})")
    expect(mine_line).to_have_count(1)
    expect(mine_line.locator(".notice")).to_contain_text("you were dealt")
    ben_line = page.locator("#log li").filter(has_text=f"#{bens.event} ")
    expect(ben_line).to_have_count(1)
    expect(ben_line).to_contain_text(re.compile(
        r"Dealt ben a card \(hidden\) with \d+ rolls? of a \d+-sided die \(committed dice, "
        r"period \d+\); reason: dealt by the Dealer\."))
    assert ben_line.locator(".notice").count() == 0
    assert f"card {bens.card_number})" not in page.content()
    # a rule change, in words, live
    with Nomic(db) as game, game.write() as tx:
        api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
    expect(page.locator("#log li").filter(
        has_text="Card game pooker was enacted by 'P456' (version 3): packs Red, Blue."
    )).to_have_count(1)

    # a later visit marks what came since the last one
    page.reload()
    expect(cards.first).to_be_visible()
    expect(page.locator("#log li.new")).to_have_count(0)
    with Nomic(db) as game, game.write() as tx:
        later = api.deal(tx, "cat")
    fresh = page.locator("#log li.new").filter(has_text=f"#{later.event} ")
    expect(fresh).to_have_count(1)
    expect(fresh.locator(".tag")).to_have_text("new")
    page.locator("#token").blur()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(tmp_path / "table-narrow.png"), full_page=True)
    assert tab.problems() == []
    print(f"screenshot: {tmp_path / 'table-narrow.png'}")


def test_the_live_page_is_axe_clean_and_keyboard_usable(
        table: tuple[str, str, dict[str, str], Any]) -> None:
    from tests.server.test_page import axe_violations

    base, db, tokens, browser = table
    tab = open_tab(browser, base)
    page = tab.open()
    page.keyboard.press("Tab")  # the skip link, then into the token field by keyboard alone
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "token"
    page.keyboard.type(tokens["ben"])
    page.keyboard.press("Enter")
    expect(page.locator("#hand li.card").first).to_be_visible()
    expect(page.locator("#log li").first).to_be_visible()
    count, report = axe_violations(page)
    assert count == 0, report
    assert tab.problems() == []
