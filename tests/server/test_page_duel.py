"""The generic panel, in Debian's Chromium (Playwright) against a real ``nomic-cards serve``: the
card duel of tests/plugins/duel, installed from outside the project and bringing no panel of its
own, is drawn by the page from ``/api/v1/games`` (its title, its actions' forms) and
``/api/v1/me/games`` (its view). ann challenges ben through the challenge form; ben's page shows
the duel live and ben commits a card; ann commits; the duel leaves both open lists, each answer
shows beside its form (the focus staying on the button), and the log says each event in the
server's sentence for it (its kind's ``summary``, as ``nomic-cards log`` prints it).
Screenshots at 1280 and 375 pixels go to /tmp/duel-shots/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nomic_cards.core import api
from tests.helpers import new_game
from tests.server.page_support import (
    CSP_WATCH,
    Tab,
    live_table,
    low_contrast,
    require_browser,
)

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/duel-shots")
#: the generic panel's kinds of text, each to be read at 4.5:1 or more on what is behind it
PANEL_TEXTS = ["#game-duel h3", "#game-duel h4", "#game-duel .help", "#game-duel legend",
               "#game-duel label", "#game-duel dt", "#game-duel th", "#game-duel td",
               "#game-duel .card-text", "#game-duel button", "#game-duel .answer"]


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


@pytest.fixture
def duel_table(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Any]]:
    """The duel enacted on the Fish pack at the real time (the server's clock), a Fish card
    each for ann (a King) and ben (a Three), and a token each."""
    require_browser()
    db = f"sqlite:///{tmp_path / 'game.db'}"
    with new_game(db, players=("ann", "ben", "cat")) as game:
        with game.write() as tx:
            api.game_enact(tx, "duel", "Fish", proposal="P1")
        with game.write() as tx:
            api.transfer(tx, "Fish Kd", "ann", "P1: dealt", source="deck")
            api.transfer(tx, "Fish 3c", "ben", "P1: dealt", source="deck")
            tokens = {who: api.issue_token(tx, who).token for who in ("ann", "ben")}
    with live_table(db, tmp_path) as (base, browser):
        yield base, tokens, browser


def seat(browser: Any, base: str, token: str, width: int) -> Tab:
    """A player at the table: eir own browser context, signed in, the duel's panel shown."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), base)
    tab.watch(tab.page)
    tab.open()
    tab.sign_in(token)
    expect(tab.page.locator("#game-duel-title")).to_have_text("Card duel")
    expect(tab.page.locator("#live-status")).to_have_text("Following the game live.")
    return tab


def shot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = tab.page.viewport_size["width"]
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= width, name
    tab.page.screenshot(path=str(SHOTS / name), full_page=True)


def focused_id(page: Any) -> str:
    return str(page.evaluate("document.activeElement.closest('form')?.id + ' ' + "
                             "document.activeElement.type"))


def open_duels(page: Any) -> Any:
    return page.locator("#game-duel-view table tbody tr")


def test_a_duel_through_the_generic_panel(duel_table: tuple[str, dict[str, str], Any]) -> None:
    from tests.server.test_page import axe_violations

    base, tokens, browser = duel_table
    ann = seat(browser, base, tokens["ann"], 1280)
    ben = seat(browser, base, tokens["ben"], 375)
    a, b = ann.page, ben.page

    # the view, from its JSON: the player's duel cards, no open duel yet; a form per action
    expect(a.locator("#game-duel-view dt")).to_have_text(["Cards", "Duels"])
    expect(a.locator("#game-duel-view .card-text")).to_have_text(["Fish Kd (King of Diamonds)"])
    expect(a.locator("#game-duel-view dd").nth(1)).to_have_text("none")
    expect(a.locator("#game-duel-actions legend")).to_have_text(["Challenge", "Commit"])
    expect(a.get_by_label("The player challenged")).to_be_visible()
    assert a.locator("#act-duel-challenge-opponent option").all_text_contents() == [
        "Choose a player", "PurpleBob (the Dealer)", "ben", "cat"]  # never the viewer emself
    expect(a.locator("#act-duel-challenge-answer")).to_have_attribute("aria-live", "polite")

    # ann challenges ben: the answer beside the form, the focus on the button
    a.select_option("#act-duel-challenge-opponent", "ben")
    a.click("#act-duel-challenge button[type=submit]")
    answer = a.locator("#act-duel-challenge-answer")
    expect(answer).to_have_text("ann challenged ben to duel 1")
    assert "ok" in answer.get_attribute("class").split()
    assert focused_id(a) == "act-duel-challenge submit"
    expect(a.locator("#act-duel-challenge-opponent")).to_have_value("")  # ready for another
    expect(open_duels(a)).to_have_count(1)
    expect(open_duels(a)).to_contain_text("ben")

    # ben's page shows the duel live, and the log line in the server's words
    expect(b.locator("#game-duel-view th")).to_have_text(
        ["Number", "Against", "Ends", "Committed", "They committed"])
    expect(open_duels(b)).to_have_count(1)
    expect(open_duels(b).locator("td")).to_have_text(
        ["1", "ann", re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d UTC$"), "no", "no"])
    for page in (a, b):
        expect(page.locator("#log li").filter(has_text=re.compile(
            r"ann challenged ben to duel 1; commit by \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.")
               )).to_have_count(1)

    # a refusal is the server's one sentence, beside the form
    a.fill("#act-duel-commit-duel", "1")
    a.fill("#act-duel-commit-card", "Fish 3c")
    a.click("#act-duel-commit button[type=submit]")
    refused = a.locator("#act-duel-commit-answer")
    expect(refused).to_have_text("Fish 3c is not a duel card in ann's Hand")
    assert "error" in refused.get_attribute("class").split()
    expect(a.locator("#act-duel-commit-card")).to_have_value("Fish 3c")  # kept, to correct
    assert focused_id(a) == "act-duel-commit submit"

    # ben commits by keyboard alone
    b.focus("#act-duel-commit-duel")
    b.keyboard.type("1")
    b.focus("#act-duel-commit-card")
    b.keyboard.type("Fish 3c")
    b.keyboard.press("Enter")  # submits the form
    expect(b.locator("#act-duel-commit-answer")).to_have_text("ben committed a card")
    assert focused_id(b) == "act-duel-commit submit"
    expect(open_duels(b).locator("td").nth(3)).to_have_text("yes")  # committed
    expect(open_duels(a).locator("td").nth(4)).to_have_text("yes")  # they committed, live
    expect(a.locator("#log li").filter(has_text="ben committed a card to duel 1.")
           ).to_have_count(1)
    SHOTS.mkdir(parents=True, exist_ok=True)
    b.locator("#game-duel").screenshot(path=str(SHOTS / "committed-375.png"))

    count, report = axe_violations(a)
    assert count == 0, report
    assert low_contrast(a, PANEL_TEXTS) == []
    shot(ann, "waiting-1280.png")

    # ann commits her King: the duel is decided, and leaves both open lists
    a.fill("#act-duel-commit-duel", "1")
    a.fill("#act-duel-commit-card", "Fish Kd")
    a.click("#act-duel-commit button[type=submit]")
    expect(a.locator("#act-duel-commit-answer")).to_have_text("ann won duel 1")
    for page in (a, b):
        expect(open_duels(page)).to_have_count(0)
        expect(page.locator("#game-duel-view dd").nth(1)).to_have_text("none")
        expect(page.locator("#log li").filter(
            has_text="Duel 1: Fish Kd vs Fish 3c; won by ann, 5 Point(s).")).to_have_count(1)
        expect(page.locator("#log li").filter(has_text="ann committed a card to duel 1.")
               ).to_have_count(1)
    expect(b.locator("#act-duel-commit-answer")).to_have_text("ben committed a card")

    count, report = axe_violations(b)
    assert count == 0, report
    shot(ann, "decided-1280.png")
    shot(ben, "decided-375.png")
    assert ann.problems(allow_status=(409,)) == []
    assert ben.problems() == []
