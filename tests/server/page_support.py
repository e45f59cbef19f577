"""Support for the browser tests of the page: the game they run on, a browser tab that records
what it requested and logged, and the WCAG contrast ratio."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from freezegun import freeze_time

from nomic_cards.core import api as core_api
from tests.helpers import new_game, scripted

CHROMIUM = Path("/usr/bin/chromium")
#: As root, and on a closed network that refuses Chromium's background connections.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

#: A fifth pack, beside the proposal's four, whose Back the page has no drawing for.
EXTRA_PACK = ("Meadow", "The Backs of these cards show a green meadow under a wide sky.")
#: ann's cards by the proposal's numbers: every rank, both colours, all five packs.
ANN_CARDS = (1, 3, 4, 6, 13, 36, 70, 103, 128, 150, 158, 177, 191, 241)


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"headless Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


def require_browser() -> None:
    """Skip without Chromium or Playwright on a developer machine; fail under CI."""
    reason = browser_unavailable()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; the page's tests must run under CI")
    pytest.skip(reason)


def libfaketime() -> Path | None:
    """Debian's libfaketime (the ``faketime`` package), or None: its thread-safe build
    (``libfaketimeMT``), which takes a lock around each reading of the time. The server answers
    on several threads, and with the other build, reading the offset anew from its file on every
    call (as :class:`FakeClock` has it), one thread could now and then see another's half-made
    answer and be given the real time -- an event recorded months after the game's clock."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))
    return Path(found[0]) if found else None


def require_faketime() -> Path:
    """libfaketime's path; skip without it on a developer machine, fail under CI."""
    lib = libfaketime()
    if lib is not None:
        return lib
    reason = "libfaketime is not installed (apt-get install faketime)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; the tests under libfaketime must run under CI")
    pytest.skip(reason)


@dataclass
class FakeClock:
    """The clock of the server and of the command line run under it, set by the test: every
    process started with :meth:`env` reads its time as the real time plus an offset that
    libfaketime reads from ``path`` on every call, so :meth:`set` moves them all at once (only
    the wall clock: their monotonic clocks stay true). The browser keeps the real time: the
    page must show the server's."""

    lib: Path
    path: Path
    offset: int = 0

    @classmethod
    def at(cls, when: datetime, folder: Path) -> FakeClock:
        clock = cls(require_faketime(), folder / "faketime.offset")
        clock.set(when)
        return clock

    def env(self) -> dict[str, str]:
        return {"LD_PRELOAD": str(self.lib), "FAKETIME_TIMESTAMP_FILE": str(self.path),
                "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}

    def set(self, when: datetime) -> None:
        """From now on, the processes' time is ``when`` (and runs on from there)."""
        self.offset = round(when.timestamp() - time.time())
        scratch = self.path.with_suffix(".new")
        scratch.write_text(f"{self.offset:+d}\n")
        os.replace(scratch, self.path)  # never half written when a process reads it

    def now(self) -> datetime:
        return datetime.fromtimestamp(time.time() + self.offset, UTC)

    def run(self, db: str, *args: str, check: bool = True) -> str:
        """``nomic-cards --db DB ARGS`` at this clock's time; its standard output."""
        exe = Path(sys.executable).with_name("nomic-cards")
        done = subprocess.run([str(exe), "--db", db, *args], capture_output=True, text=True,
                              env={**os.environ, **self.env()}, timeout=120, check=False)
        if check:
            assert done.returncode == 0, f"{' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout


def build_game(url: str) -> dict[str, str]:
    """A game with five packs, cards dealt by manual, system and committed dice, two published
    Dealer's Reports and one revealed dice period. Returns tokens by what they are."""
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(url, players=("ann", "ben", "cat", "dan"), epoch=date(2026, 1, 1),
                        nweek_days=10)
    with game:
        with freeze_time("2026-01-01 10:00:00"):
            with game.write() as tx:
                core_api.add_pack(tx, *EXTRA_PACK)
                core_api.record_vote(tx, "ann", "1")
            for number in ANN_CARDS:
                with game.write() as tx:
                    core_api.deal(tx, "ann", **scripted([number]))
            with game.write() as tx:
                core_api.deal(tx, "ben", source="system")
        with freeze_time("2026-01-11 00:05:00"), game.write() as tx:
            core_api.tick(tx)  # the report of nweek 1; ann's Card for Votes
        with freeze_time("2026-01-12 10:00:00"), game.write() as tx:
            core_api.deal(tx, "ben")  # committed dice
        with freeze_time("2026-01-21 00:05:00"), game.write() as tx:
            core_api.tick(tx)  # the report of nweek 2; a new dice period
        with freeze_time("2026-01-21 09:00:00"):
            with game.write() as tx:
                core_api.dice_reveal(tx, 1, force=True)  # its cards are still held
                revoked = core_api.issue_token(tx, "ann").token
                tokens = {p: core_api.issue_token(tx, p).token for p in ("ann", "ben", "cat")}
            tokens["ann, revoked"] = revoked
            with game.write() as tx:
                tokens["dan, retired"] = core_api.issue_token(tx, "dan").token
                core_api.retire_player(tx, "dan")
    return tokens


def api(base: str, path: str, token: str | None = None) -> Any:
    """What the API answers (JSON, or text for a report's text form)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.get(base + path, headers=headers, timeout=30)
    r.raise_for_status()
    return r.text if r.headers["content-type"].startswith("text/") else r.json()


#: Collects Content-Security-Policy violations the page reports (runs before the page's
#: scripts, injected by Playwright, so the CSP does not apply to it).
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(e.effectiveDirective + " blocked " + (e.blockedURI || "inline")));
"""


@dataclass
class Tab:
    """A page in its own browser context, with everything it requested and logged."""

    page: Any
    base: str
    requests: list[Any] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> None:
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, *, loaded: bool = True) -> Any:
        """Go to the page; with ``loaded``, wait until the public record is shown."""
        from playwright.sync_api import expect

        self.page.goto(self.base + "/")
        if loaded:
            head = re.compile(r"^event \d+, [0-9a-f]{64}$")
            expect(self.page.locator("#head")).to_have_text(head)
        return self.page

    def sign_in(self, token: str) -> None:
        """Paste ``token`` and sign in (signed in already, the folded token box opened)."""
        page = self.page
        if page.locator("#token").is_hidden() and page.locator("#change-token").is_visible():
            page.click("#change-token")
        self.page.fill("#token", token)
        self.page.click("#token-form button[type=submit]")

    def problems(self, *, allow_status: tuple[int, ...] = ()) -> list[str]:
        """Console errors and warnings, uncaught errors and CSP violations -- except the
        browser's own note of a response whose status is in ``allow_status``."""
        allowed = [f"the server responded with a status of {s}" for s in allow_status]
        found = [f"console {kind}: {text}" for kind, text in self.console
                 if kind in ("error", "warning") and not any(a in text for a in allowed)]
        found += [f"page error: {e}" for e in self.errors]
        found += [f"CSP: {v}" for v in self.page.evaluate("window.__csp || []")]
        return found


# --- contrast (WCAG 2) ------------------------------------------------------------------------


def parse_rgb(css: str) -> tuple[float, float, float, float]:
    """``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as numbers."""
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def luminance(rgb: tuple[float, float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b, _ = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: str, bg: str) -> float:
    """The WCAG contrast ratio of two opaque CSS colours."""
    a, b = sorted((luminance(parse_rgb(fg)), luminance(parse_rgb(bg))), reverse=True)
    return (a + 0.05) / (b + 0.05)


#: For each element matching a selector: its text colour and the first opaque background
#: colour behind it.
def low_contrast(page: Any, selectors: Sequence[str]) -> list[tuple[str, str, str, float]]:
    """Each text the ``selectors`` match on ``page`` whose contrast with its background is
    under 4.5:1 (WCAG AA), as (selector, colour, background, ratio); a selector that matches
    nothing fails at once."""
    low = []
    for selector in selectors:
        pairs = page.evaluate(COLOURS_JS, selector)
        assert pairs, f"nothing matches {selector}"
        low += [(selector, fg, bg, round(contrast(fg, bg), 2)) for fg, bg in pairs
                if contrast(fg, bg) < 4.5]
    return low


COLOURS_JS = """
(selector) => [...document.querySelectorAll(selector)].map((e) => {
  let bg = null;
  for (let n = e; n && !bg; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    const alpha = c.startsWith("rgba") ? parseFloat(c.split(",")[3]) : 1;
    if (alpha >= 1) bg = c;
  }
  return [getComputedStyle(e).color, bg || "rgb(255, 255, 255)"];
})
"""


@contextmanager
def live_table(db: str, tmp_path: Path, clock: FakeClock | None = None
               ) -> Iterator[tuple[str, Any]]:
    """A real ``nomic-cards serve`` on ``db`` (a ping a second on the streams; at ``clock``'s
    time, if given) and a headless Chromium: yields the server's base URL and the browser. The
    server's log must hold no traceback and no internal error."""
    require_browser()
    from playwright.sync_api import expect as pw_expect
    from playwright.sync_api import sync_playwright

    from tests.server.conftest import start_server, stop_server

    pw_expect.set_options(timeout=30_000)
    live = start_server(db, tmp_path, env={"NOMIC_CARDS_SSE_PING": "1",
                                           **(clock.env() if clock else {})})
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield live.base, browser
            finally:
                browser.close()
    finally:
        log = stop_server(live)
    assert "Traceback" not in log and "internal error" not in log, log[-3000:]
