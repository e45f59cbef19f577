"""A season of the nomic's decisions, played through every door: the command line, the server
and the page in Debian's Chromium (Playwright), against a real ``nomic-cards serve`` on SQLite,
everything at game times set by libfaketime (the browser keeps the real time: the page must show
the server's).

The officer opens decision 9355 through the command line -- carrying a rule change, Cards for
Votes of 2 -- and 9356 through the server with an officer token. ann votes on her page with the
mouse at 1280 pixels (asked first; AGAINST, then FOR, replacing it), bob through the server (an
idempotent retry answered exactly as the first) and on a phone 375 pixels wide (an endorsement,
chosen from the players), cat through the command line (an endorsement) and the server, dan by
mail: the officer records eir ballot, with its words and its message, on the Dealer's table
(and a vote on a decision without an option is refused in one line). Each player is told when
a decision opens, and a day before it closes if e has not voted. A ``tick`` run late -- after
the close and after the next nweek's start -- resolves 9355 exactly as a second game, the same
up to then and ticked on time, resolves it: the same events at the same times,
the dice's seeds aside; Cards for Votes are paid from the ballots, each deal's reason naming its
ballot. The page shows each decision live: its countdown on the server's clock, the ballots
standing, the player's own with controls to change it, and, after the tick, the resolution with
its tally. The Assessor's block is the same from the API and the command line, and the public
export alone recomputes every resolution.

Every wait is on a condition; every request is bounded; everything listens on 127.0.0.1.
Screenshots of each step are kept under the test's tmp dir.
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from nomic_cards.core.nomic import Nomic
from tests.game_time import moment
from tests.server.page_support import (
    CSP_WATCH,
    FakeClock,
    Tab,
    live_table,
    low_contrast,
    require_browser,
)
from tests.server.test_page_season import (
    answered,
    axe_clean,
    click_in_view,
    confirm,
    keys_to,
    press_enter,
    say_yes,
    seconds_shown,
)

#: a server, two browsers and a dozen commands: the full run only
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: nweek 1, nday 2 of the test games' calendar (nweeks of 10 days from 2026-01-01)
START = moment(1.375)  # 2026-01-02 09:00 UTC
CLOSE = "2026-01-06T12:00:00Z"  # decision 9355's voting ends
REMINDER = moment(4.5)  # a day before 9355 closes: those who have not voted are told
LATER_CLOSE = "2026-01-25T12:00:00Z"  # 9356's: still open after the late tick
NWEEK_2 = "2026-01-11T00:00:00Z"
LATE = moment(11.375)  # 2026-01-12 09:00: past the close and nweek 2's start
PLAYERS = ("ann", "bob", "cat", "dan")
TITLE = "More cards for voters"
#: the decisions part's kinds of text, each at least 4.5:1 on its background
TEXTS = ["#decisions-part .meta", ".decision h4", ".decision .meta", ".decision .closes",
         ".decision .standing", ".decision .counted", ".decision code", ".decision summary",
         ".decision a", ".ballots li", ".ballots .voter", ".ballots .comment", ".mine",
         ".mine.unvoted", ".ballot-box .vote-title", ".ballot-box button", ".ballot-box label",
         ".ballot-box select", ".verdict", ".decision .tally", "#waiting-list a",
         "#waiting-list .by", "#waiting-title"]
OPEN_9355 = (f"decision open 9355 --title '{TITLE}' --author ann --ai 1.0 --quorum 3 "
             f"--closes {CLOSE} --change 'rules amend cards-for-votes --set cards=2'")


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(target)


@dataclass
class Table:
    base: str
    db: str
    path: Path
    clock: FakeClock
    browser: Any
    tokens: dict[str, str]
    shots: Path
    taken: list[Path] = field(default_factory=list)

    def cli(self, *args: str) -> str:
        return self.clock.run(self.db, *args)

    def act(self, who: str, body: dict[str, Any], key: str | None = None) -> httpx.Response:
        """An action through the server, with an Idempotency-Key (a fresh one unless given)."""
        return httpx.post(f"{self.base}/api/v1/me/actions", json=body, timeout=30, headers={
            "Authorization": f"Bearer {self.tokens[who]}",
            "Idempotency-Key": key or secrets.token_hex(16)})

    def get(self, path: str, who: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        r = httpx.get(self.base + path, headers=headers, timeout=30)
        r.raise_for_status()
        return r.text if not r.headers["content-type"].startswith("application/json") \
            else r.json()

    def head(self) -> int:
        return int(self.get("/api/v1/ledger/head")["event"])

    def shot(self, tab: Tab, name: str, *, full: bool = False, part: str | None = None) -> Path:
        """The viewport (the whole page with ``full``; the element ``part`` alone, whole)."""
        width = tab.page.viewport_size["width"]
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= width, name
        path = self.shots / f"{len(self.taken) + 1:02d}-{name}.png"
        if part:
            tab.page.locator(part).screenshot(path=str(path))
        else:
            tab.page.screenshot(path=str(path), full_page=full)
        self.taken.append(path)
        return path


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    require_browser()
    path = tmp_path / "game.db"
    db = f"sqlite:///{path}"
    clock = FakeClock.at(START, tmp_path)

    def cli(*args: str) -> str:
        return clock.run(db, *args)

    cli("init", "--epoch", "2026-01-01", "--nweek-days", "10")
    for name in PLAYERS:
        cli("player", "add", name)
    tokens = {name: json.loads(cli("token", "issue", name, "--json"))["token"]
              for name in ("ann", "bob", "cat")}
    tokens["dealer"] = json.loads(cli("token", "issue", "PurpleBob", "--scope", "dealer",
                                      "--json"))["token"]
    shots = tmp_path / "shots"
    shots.mkdir()
    with live_table(db, tmp_path, clock) as (base, browser):
        yield Table(base, db, path, clock, browser, tokens, shots)
    print(f"screenshots: {shots}")


def seat(t: Table, who: str, *, width: int, height: int, phone: bool = False,
         says: str | None = None) -> Tab:
    """A browser of one's own, on the page, signed in and following the game live."""
    context = t.browser.new_context(viewport={"width": width, "height": height},
                                    is_mobile=phone, has_touch=phone)
    context.set_default_timeout(30_000)
    context.add_init_script(script=CSP_WATCH)
    tab = Tab(context.new_page(), t.base)
    tab.watch(tab.page)
    tab.open()
    tab.sign_in(t.tokens[who])
    expect(tab.page.locator("#live-status")).to_have_text("Following the game live.")
    expect(tab.page.locator("#me-status")).to_contain_text(says or f"{who}, you hold")
    return tab


def ballot_line(page: Any, decision: str, player: str) -> Any:
    return page.locator(f"#decision-{decision}-ballots li[data-player='{player}']")


def shows_server_time_left(t: Table, page: Any, selector: str, until: datetime) -> None:
    """The countdown at ``selector`` is the time left until ``until`` on the server's clock,
    within a second (once the page has learned the server's clock)."""
    page.wait_for_function("() => window.NomicCards.clockError() < 100", timeout=30_000)
    page.wait_for_timeout(300)  # a tick of the page's own, after it learned the clock
    before = (until - t.clock.now()).total_seconds()
    shown = seconds_shown(page.locator(selector).text_content())
    after = (until - t.clock.now()).total_seconds()
    assert after - 1 <= shown <= before + 1, (selector, shown, before, after)


def instant(page: Any, selector: str) -> str:
    """What ``selector`` says at this very moment (no waiting)."""
    return str(page.evaluate("(s) => document.querySelector(s).textContent", selector))


def notices_of(t: Table, player: str) -> list[str]:
    return [n["text"] for n in json.loads(t.cli("notices", "list", player, "--json"))]


def events(path: Path) -> list[tuple[int, str, str, str]]:
    """Every event of a game's ledger: (number, kind, time, public payload)."""
    with Nomic(f"sqlite:///{path}") as nomic, nomic.read() as tx:
        return [(r.seq, r.kind, r.at.isoformat(), json.dumps(r.payload, sort_keys=True))
                for r in tx.events()]


def copy_of(path: Path, to: Path) -> None:
    """The game as it stands, copied whole while the server runs (SQLite's online backup)."""
    src = sqlite3.connect(str(path), timeout=30)
    dst = sqlite3.connect(str(to))
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def feed_titles(t: Table) -> list[str]:
    atom = "{http://www.w3.org/2005/Atom}"
    root = ET.fromstring(httpx.get(t.base + "/log.atom", timeout=30).content)
    return [str(e.findtext(f"{atom}title")) for e in root.iter(f"{atom}entry")]


def test_a_season_of_decisions_through_every_door(table: Table, tmp_path: Path) -> None:
    t = table
    ann_tab = seat(t, "ann", width=1280, height=800)
    bob_tab = seat(t, "bob", width=375, height=740, phone=True)
    a, b = ann_tab.page, bob_tab.page
    expect(a.locator("#decisions")).to_have_text("No decision has been opened on the ledger yet.")

    # --- the officer opens 9355 through the command line: it comes to the page live
    t.cli(*shlex.split(OPEN_9355))
    item = a.locator("#decisions-open > #decision-9355")
    expect(item.locator("h4")).to_have_text(f"Decision 9355: {TITLE}")
    expect(item).to_contain_text("By ann · Ordinary · AI=1.0 · quorum 3")
    expect(item).to_contain_text("If it is adopted, it changes the rules: "
                                 "rules amend cards-for-votes --set cards=2")
    expect(a.locator("#decision-9355-closes")).to_contain_text(
        "Voting ends 2026-01-06 12:00 UTC, in 4 days 0")
    shows_server_time_left(t, a, "#decision-9355-closes .left",
                           datetime.fromisoformat(CLOSE))
    expect(a.locator("#decision-9355-mine")).to_have_text(
        "You have not voted: cast your ballot by 2026-01-06 12:00 UTC.")
    expect(a.locator("#waiting-list li")).to_have_text([re.compile(
        rf"^Decision 9355 \({TITLE}\): cast your ballotBy 2026-01-06 12:00 UTC, in 4 days ")])

    # ... and 9356 through the server, with an officer token
    opened = t.act("dealer", {"action": "cards.decision_open", "id": "9356",
                              "title": "A quieter table", "author": "bob", "ai": "2.0",
                              "closes": LATER_CLOSE})
    assert opened.status_code == 201, opened.text
    assert opened.json()["summary"] == ("decision 9356 (A quieter table) is open until "
                                        f"{LATER_CLOSE}; 5 player(s) told")
    # the soonest to close first
    expect(a.locator("#decisions-open > li h4")).to_have_text(
        [f"Decision 9355: {TITLE}", "Decision 9356: A quieter table"])
    expect(b.locator("#decisions-open > li")).to_have_count(2)
    # every player is told of each, by a notice (on the page, and to dan who has no token)
    for who in ("ann", "bob", "cat", "dan", "PurpleBob"):
        told = notices_of(t, who)
        for d, title in (("9355", TITLE), ("9356", "A quieter table")):
            assert sum(n.startswith(f"decision {d} ({title}) is open for your ballot")
                       for n in told) == 1, (who, told)
    expect(a.locator("#notices li").filter(has_text="decision 9356 (A quieter table) is "
                                                    "open for your ballot")).to_have_count(1)

    # --- ann, with the mouse: asked first; Escape takes nothing
    before = t.head()
    click_in_view(a, "#decision-9355-against")
    confirm(a, "decision-9355-answer", f"Vote AGAINST on decision 9355 ({TITLE})? You may "
            "change it until voting ends, 2026-01-06 12:00 UTC.")
    a.keyboard.press("Escape")
    expect(a.locator("#decision-9355-answer-confirm")).to_be_hidden()
    expect(a.locator("#decision-9355-against")).to_be_focused()
    assert t.head() == before
    # AGAINST, then FOR: the answer and the part say the same, from the moment it is said
    for option, earlier in (("AGAINST", None), ("FOR", "AGAINST")):
        click_in_view(a, f"#decision-9355-{option.lower()}")
        confirm(a, "decision-9355-answer", f"Vote {option} on decision 9355 ({TITLE})?" + (
            f" It replaces your ballot {earlier}." if earlier else ""))
        if option == "AGAINST":
            t.shot(ann_tab, "ann-asked-first")
        y = say_yes(a, "decision-9355-answer")
        said = f"You voted {option} on decision 9355." + (
            f" It replaces your ballot {earlier}." if earlier else "")
        answered(a, "#decision-9355-answer", said, control_y=y)
        assert instant(a, "#decision-9355-mine").startswith(f"Your ballot: {option}, cast ")
        assert instant(a, "#decision-9355-ballots li[data-player='ann']").startswith(
            f"ann: {option} · cast ")
        expect(a.locator(f"#decision-9355-{option.lower()}")).to_have_attribute(
            "aria-pressed", "true")
    expect(a.locator("#decision-9355-against")).to_have_attribute("aria-pressed", "false")
    expect(a.locator("#waiting-list li")).to_have_text([re.compile(r"^Decision 9356 ")])
    t.shot(ann_tab, "ann-voted")

    # --- bob, through the server: an idempotent retry is answered exactly as the first
    key = secrets.token_hex(16)
    body = {"action": "cards.ballot", "decision": "9355", "option": "FOR"}
    first = t.act("bob", body, key)
    assert first.status_code == 201, first.text
    assert first.json()["summary"] == "bob's ballot on decision 9355: FOR"
    recorded = t.head()
    again = t.act("bob", body, key)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert t.head() == recorded
    expect(ballot_line(a, "9355", "bob")).to_contain_text("bob: FOR · cast ")  # live
    # the officer gives bob a strength of 2 (through the server); it shows on the ballot
    strength = t.act("dealer", {"action": "cards.strength_set", "player": "bob",
                                "strength": 2, "reason": "Rule 2422: bob is the Referee"})
    assert strength.status_code == 201, strength.text
    expect(ballot_line(a, "9355", "bob")).to_contain_text("bob: FOR · strength 2 · cast ")
    expect(a.locator("#decision-9355 .strengths")).to_have_text(re.compile(
        r"^Strengths other than the default \(1\): bob 2 \(Rule 2422: bob is the Referee "
        r"\(event \d+\)\)$"))

    # --- cat, through the command line: an endorsement of ann, counted as hers
    t.cli("vote", "cast", "cat", "--proposal", "9355", "--endorse", "ann", "--comment",
          "ann reads the rules")
    expect(ballot_line(a, "9355", "cat")).to_contain_text(
        "cat: endorsing ann (counts as FOR) · cast ")
    expect(a.locator("#decision-9355-standing")).to_have_text(
        "As it stands: ADOPTED · F/A 4/0 (AI=1.0) · 3 ballots · popularity 1.000 · quorum 3")
    expect(a.locator("#decision-9355-counted")).to_have_text(
        "FOR (3): ann, bob, cat · AGAINST (0) · PRESENT (0)")

    # --- bob, on the phone: endorses ann on 9356, chosen from the players; what he chose
    # stays through the redraws of other players' events, on the very same node
    b.locator("#decision-9356-endorse").scroll_into_view_if_needed()
    b.select_option("#decision-9356-endorse", "ann")
    b.evaluate("document.getElementById('decision-9356-endorse').__kept = true")
    # meanwhile the officer records dan's ballot, mailed to em, on the Dealer's table
    dealer_tab = seat(t, "dealer", width=1280, height=800, says="PurpleBob, you are the Dealer")
    d = dealer_tab.page
    d.select_option("#dealer-vote-player", "dan")
    d.fill("#dealer-vote-proposal", "9356")
    assert d.locator("#dealer-vote-option option").all_text_contents() == [
        "None", "FOR", "AGAINST", "PRESENT"]
    d.select_option("#dealer-vote-option", "PRESENT")
    d.fill("#dealer-vote-as_cast", "present, I'm away")
    d.fill("#dealer-vote-source", "https://lists.example.org/2026-January/000042.html")
    y = click_in_view(d, "#dealer-vote-submit")
    answered(d, "#dealer-vote-answer", "Done: dan's ballot on decision 9356: PRESENT.",
             control_y=y)
    expect(d.locator("#dealer-vote-proposal")).to_have_value("")  # ready for the next
    t.shot(dealer_tab, "dealer-vote-recorded", part="#dealer-vote")
    dan_line = ballot_line(b, "9356", "dan")
    expect(dan_line).to_contain_text("dan: PRESENT · cast ")
    expect(dan_line.locator(".as-cast")).to_have_text("As cast: \u201cpresent, I'm away\u201d")
    expect(dan_line.locator(".source")).to_have_text(
        "Where: https://lists.example.org/2026-January/000042.html")
    # ... and without an option, a vote on a decision is refused in one line, nothing written
    before = t.head()
    d.select_option("#dealer-vote-player", "dan")
    d.fill("#dealer-vote-proposal", "9356")
    y = click_in_view(d, "#dealer-vote-submit")
    answered(d, "#dealer-vote-answer", "decision 9356 is on the ledger: give the ballot as "
             "--option FOR|AGAINST|PRESENT or --endorse PLAYER", kind="error", control_y=y)
    assert t.head() == before
    assert b.evaluate("document.getElementById('decision-9356-endorse').__kept === true")
    expect(b.locator("#decision-9356-endorse")).to_have_value("ann")
    assert b.locator("#decision-9356-endorse option").all_text_contents() == [
        "Choose a player", "PurpleBob (the Dealer)", "ann", "cat", "dan"]
    click_in_view(b, "#decision-9356-endorse-submit")
    confirm(b, "decision-9356-answer", "Endorse ann on decision 9356 (A quieter table)? Your "
            "ballot counts as ann's final ballot on it (PRESENT if e casts none).")
    t.shot(bob_tab, "bob-asked-first")
    y = say_yes(b, "decision-9356-answer")
    answered(b, "#decision-9356-answer",
             "You endorsed ann on decision 9356: your ballot counts as eirs.", control_y=y)
    assert instant(b, "#decision-9356-mine").startswith(
        "Your ballot: endorsing ann (it counts as PRESENT), cast ")
    expect(b.locator("#decision-9356-endorse")).to_have_value("ann")  # the standing one
    t.shot(bob_tab, "bob-endorsed")

    # --- a day before 9355 closes: the next write tells those who have not voted first
    t.clock.set(REMINDER + timedelta(hours=1))
    cat_ballot = t.act("cat", {"action": "cards.ballot", "decision": "9356",
                               "option": "AGAINST"})
    assert cat_ballot.status_code == 201, cat_ballot.text
    reminded = [e for e in events(t.path) if e[1] == "decision.reminded"]
    assert [(at, json.loads(p)) for _s, _k, at, p in reminded] == [
        ("2026-01-05T12:00:00+00:00", {"decision": "9355", "players": ["PurpleBob", "dan"]})]
    for who in PLAYERS + ("PurpleBob",):
        told = [n for n in notices_of(t, who) if n.startswith(
            f"decision 9355 ({TITLE}) closes in a day: you have cast no ballot")]
        assert len(told) == (1 if who in ("dan", "PurpleBob") else 0), (who, told)
    mine = t.get("/api/v1/me/notices", "dealer")
    assert any("decision 9355" in n["text"] and "closes in a day" in n["text"] for n in mine)
    assert not any("closes in a day" in n["text"] for n in t.get("/api/v1/me/notices", "ann"))
    expect(a.locator("#decision-9356-ballots li")).to_have_count(3)

    # the feed carries each event in its sentence
    titles = feed_titles(t)
    for sentence in (
            f"opened decision 9355 ({TITLE}) by ann: voting ends {CLOSE}, AI=1.0, quorum 3; "
            "it carries 1 rule change",
            f"opened decision 9356 (A quieter table) by bob: voting ends {LATER_CLOSE}, "
            "AI=2.0, quorum 1",
            "ann voted on decision 9355: AGAINST", "ann voted on decision 9355: FOR",
            "bob voted on decision 9355: FOR", "cat voted on decision 9355: endorsing ann",
            "bob voted on decision 9356: endorsing ann",
            "bob's voting strength is 2 from now on: Rule 2422: bob is the Referee",
            "a day before decision 9355 closes, 2 players who had not voted were told: "
            "PurpleBob, dan"):
        assert sentence in titles, (sentence, titles)

    # --- a second game, the same up to here, to be ticked on time
    on_time = tmp_path / "on-time.db"
    copy_of(t.path, on_time)
    shared = t.head()

    # --- the late tick: after the close and after nweek 2's start
    t.clock.set(LATE)
    for at in (CLOSE, NWEEK_2):
        t.clock.run(f"sqlite:///{on_time}", "--at", at, "tick")
    t.cli("tick")
    late, timely = events(t.path), events(on_time)
    # the dice's seeds are each game's own (so are the cards they deal): the rest is the same
    ours = ("decision.", "ballot.", "rule.", "notice.given", "votes.", "player.", "nweek.")
    assert [e for e in late if e[1].startswith(ours)] == \
        [e for e in timely if e[1].startswith(ours)]
    assert [e[:3] for e in late] == [e[:3] for e in timely]
    after = [(k, at, json.loads(p)) for seq, k, at, p in late if seq > shared]
    kinds = [k for k, _at, _p in after]
    assert kinds.index("decision.resolved") < kinds.index("rule.amended") \
        < kinds.index("nweek.started")
    resolution = next(p for k, _at, p in after if k == "decision.resolved")
    assert resolution == {"decision": "9355", "outcome": "ADOPTED", "quorum": 3,
                          "for": ["ann", "bob", "cat"], "against": [], "present": [],
                          "f": 4, "a": 0, "ballots": 3, "popularity": "1.000", "default": 1,
                          "strengths": resolution["strengths"]}
    assert next(at for k, at, _p in after if k == "decision.resolved") == \
        "2026-01-06T12:00:00+00:00"
    assert next((at, p) for k, at, p in after if k == "rule.amended") == (
        "2026-01-06T12:00:00+00:00", {"rule": "cards-for-votes", "params": {"cards": 2},
                                      "version": None, "proposal": "9355"})

    # Cards for Votes, paid from the ballots at nweek 2's start: 2 cards each (the rule as
    # 9355 changed it), each deal's reason naming the voter's first ballot of nweek 1
    first_ballot: dict[str, int] = {}
    for seq, kind, _at, payload in late:
        if kind == "ballot.cast":
            first_ballot.setdefault(json.loads(payload)["player"], seq)
    deals = [p for k, _at, p in after if k == "card.dealt"]
    assert sorted((d["player"], d["reason"]) for d in deals) == sorted(
        (who, f"Cards for Votes: voted in nweek 1 (rule 9): ballot on decision "
              f"{9355 if who != 'dan' else 9356} (event {first_ballot[who]}), card {n} of 2")
        for who in ("ann", "bob", "cat", "dan") for n in (1, 2))
    rules = {r["rule"]: r for r in t.get("/api/v1/rules")}
    assert rules["cards-for-votes"]["params"] == {"cards": 2}

    # --- the page shows the resolution, live: 9355 resolved, 9356 open
    done = a.locator("#decisions-resolved > #decision-9355")
    expect(done.locator(".verdict")).to_have_text("ADOPTED")
    expect(a.locator("#decision-9355-tally")).to_have_text(
        "F/A 4/0 (AI=1.0) · 3 ballots · popularity 1.000 · quorum 3")
    expect(a.locator("#decision-9355-counted")).to_have_text(
        "FOR (3): ann, bob, cat · AGAINST (0) · PRESENT (0)")
    expect(a.locator("#decision-9355-outcome")).to_contain_text(
        "ADOPTED · voting ended 2026-01-06 12:00 UTC · resolved at event ")
    expect(done).to_contain_text("The rule changes it carried: rules amend cards-for-votes "
                                 "--set cards=2")
    expect(a.locator("#decision-9355-mine")).to_have_text(re.compile(
        r"^Your ballot: FOR, cast 2026-01-02 \d\d:\d\d UTC\.$"))
    expect(a.locator("#decisions-open > li")).to_have_count(1)
    expect(a.locator("#decision-9356-mine")).to_have_text(
        "You have not voted: cast your ballot by 2026-01-25 12:00 UTC.")
    shows_server_time_left(t, a, "#decision-9356-closes .left",
                           datetime.fromisoformat(LATER_CLOSE))
    detail = t.get("/api/v1/decisions/9355")
    assert detail["resolution"] | {"event": 0} == {"outcome": "ADOPTED", "f": 4, "a": 0,
                                                   "ballots": 3, "popularity": "1.000",
                                                   "event": 0}
    expect(b.locator("#decision-9355-tally")).to_have_text(
        "F/A 4/0 (AI=1.0) · 3 ballots · popularity 1.000 · quorum 3")
    expect(b.locator("#decision-9356-mine")).to_contain_text("Your ballot: endorsing ann")

    # the screenshots: a decision open, one resolved
    a.locator("#decisions-part").scroll_into_view_if_needed()
    t.shot(ann_tab, "ann-open-and-resolved")
    a.evaluate("window.scrollTo(0, 0)")
    t.shot(ann_tab, "ann-first-screen")
    t.shot(ann_tab, "ann-page", full=True)
    b.evaluate("window.scrollTo(0, 0)")
    t.shot(bob_tab, "bob-first-screen")
    b.locator("#decision-9356").scroll_into_view_if_needed()
    t.shot(bob_tab, "bob-open")
    b.locator("#decision-9355").scroll_into_view_if_needed()
    t.shot(bob_tab, "bob-resolved")
    t.shot(bob_tab, "bob-page", full=True)
    # the decisions part whole, at each width: one decision open, one resolved
    t.shot(ann_tab, "ann-decisions-1280", part="#decisions-part")
    t.shot(bob_tab, "bob-decisions-375", part="#decisions-part")

    assert low_contrast(a, TEXTS) == []
    axe_clean(ann_tab)

    # --- ann votes on 9356 by the keyboard alone: Tab to PRESENT, Enter, and Enter again
    keys_to(a, "#decision-9356-present")
    press_enter(a)
    confirm(a, "decision-9356-answer", "Vote PRESENT on decision 9356 (A quieter table)?")
    y = press_enter(a)
    answered(a, "#decision-9356-answer", "You voted PRESENT on decision 9356.", control_y=y)
    expect(a.locator("#decision-9356-present")).to_be_focused()
    expect(a.locator("#decision-9356-mine")).to_contain_text("Your ballot: PRESENT, cast ")
    expect(a.locator("#waiting")).to_be_empty()

    # --- the Assessor's block: the API's is the command line's
    block = t.get("/api/v1/decisions/9355?format=agora")
    assert block == t.cli("decision", "show", "9355", "--format", "agora")
    assert "FOR (3): ann, bob@, cat\n" in block and "OUTCOME: ADOPTED\n" in block
    assert "cat: ann reads the rules: Endorsement of ann\n" in block
    assert any(title.startswith("decision 9355 was resolved: ADOPTED (FOR 3, AGAINST 0, "
                                "PRESENT 0; F/A 4/0; 3 ballots, quorum 3)")
               for title in feed_titles(t))

    # --- the public export alone recomputes every resolution
    export = tmp_path / "ledger.json"
    export.write_text(t.cli("ledger", "export"))
    done_ = subprocess.run([sys.executable, "-I", str(ROOT / "scripts" / "verify_decisions.py"),
                            str(export)], capture_output=True, text=True, timeout=60)
    assert (done_.returncode, done_.stdout) == (0, "1 resolution(s) recomputed, 0 problem(s)\n")
    t.cli("ledger", "verify")

    for tab in (ann_tab, bob_tab, dealer_tab):
        axe_clean(tab)
    assert ann_tab.problems() == [] and bob_tab.problems() == []
    assert dealer_tab.problems(allow_status=(400,)) == []  # the vote refused, said above
