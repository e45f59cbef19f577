"use strict";
// The page: the public record for everyone, and a player's own hand and notices once they paste
// their token (the Dealer's table, with an officer token). The token lives in this tab's
// sessionStorage and travels only in the Authorization header of requests to /api/v1/me*; it
// is never put in an address. Everything is built with DOM calls (no innerHTML): server text
// is always shown as text. The page follows the ledger live: one event stream (/api/v1/events,
// or /api/v1/me/events with the token, read with fetch so the token stays in a header),
// resumed from the last event seen.
//
// Time on the page is the server's: every countdown is computed from an absolute time the
// server gave and the server's clock, known as an offset from this device's monotonic clock
// (see "the server's clock"); the nweek and nday roll over at their boundary without an event.
// Each part of the page loads, fails and retries on its own; every action's answer appears
// beside the control that took it, in a live region.
(function () {
  const KEY = "nomic-cards-token";
  // The last event seen on an earlier visit (not a secret: a number), to mark what is new.
  const SEEN = "nomic-cards-seen";
  // The card games' panels (their own, registered by their scripts, and the generic ones):
  // each {render(hand, games, token, mine)} is called whenever the player's view is loaded --
  // on sign-in and after every event of the stream, so what another player did shows without
  // a refresh -- (`games` is /api/v1/me/games: each game in force's view by name; `mine`
  // {me, notices}: /api/v1/me and /api/v1/me/notices), {clear()} when the token is forgotten,
  // and {onEvent(event, token)} on each event of the stream.
  const PANELS = [];
  const $ = (id) => document.getElementById(id);
  const SUITS = {
    d: { symbol: "\u2666", colour: "red" }, s: { symbol: "\u2660", colour: "black" },
    h: { symbol: "\u2665", colour: "red" }, c: { symbol: "\u2663", colour: "black" },
  };
  // The packs of the proposal have backs drawn for them in style.css; other packs get a
  // pattern in a colour of their own, chosen from their name.
  const DRAWN_BACKS = ["red", "blue", "fish", "corporate"];
  // Where the pips of a number card sit: [column, row] classes, as on a printed card.
  const L = "x-l", C = "x-c", R = "x-r";
  const SIDES = [[L, "y-15"], [R, "y-15"], [L, "y-85"], [R, "y-85"]];
  const PIPS = {
    2: [[C, "y-15"], [C, "y-85"]],
    3: [[C, "y-15"], [C, "y-50"], [C, "y-85"]],
    4: SIDES,
    5: [...SIDES, [C, "y-50"]],
    6: [...SIDES, [L, "y-50"], [R, "y-50"]],
    7: [...SIDES, [L, "y-50"], [R, "y-50"], [C, "y-33"]],
    8: [...SIDES, [L, "y-50"], [R, "y-50"], [C, "y-33"], [C, "y-67"]],
    9: [...SIDES, [L, "y-38"], [R, "y-38"], [L, "y-62"], [R, "y-62"], [C, "y-50"]],
    10: [...SIDES, [L, "y-38"], [R, "y-38"], [L, "y-62"], [R, "y-62"], [C, "y-27"], [C, "y-73"]],
  };
  const DAY = 86400000;

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function decorative(tag, text, cls) {
    const e = el(tag, text, cls);
    e.setAttribute("aria-hidden", "true");
    return e;
  }

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  function sleep(ms) {
    return new Promise((done) => setTimeout(done, ms));
  }

  // What each pack's Back looks like, by pack name (a Back is named by its pack), from /api/v1/game.
  let described = new Map();

  function learnPacks(game) {
    described = new Map(game.packs.map((pack) => [pack.name, pack.back]));
    // what was drawn before the packs were known (the Deck can come before the game)
    document.querySelectorAll(".back-text[data-back]").forEach((e) => {
      e.textContent = described.get(e.dataset.back) || "";
    });
  }

  // A Back's description, filled in by learnPacks if the packs are not known yet.
  function backText(tag, back) {
    const e = el(tag, described.get(back) || "", "back-text");
    e.dataset.back = back;
    return e;
  }

  // A drawing of a pack's Back (decorative: the Back's name and description are text nearby).
  function backOf(pack, cls) {
    const key = String(pack).toLowerCase();
    const e = decorative("span", undefined, cls + " back");
    if (DRAWN_BACKS.includes(key)) {
      e.classList.add("back-" + key);
    } else {
      let hue = 0;
      for (const ch of String(pack)) hue = (hue * 31 + ch.codePointAt(0)) % 360;
      e.classList.add("back-other");
      e.style.setProperty("--hue", String(hue));  // CSSOM: allowed under the page's CSP
    }
    return e;
  }

  function status(id, text, kind) {
    const s = typeof id === "string" ? $(id) : id;
    if (!s) return;
    if (s.textContent !== text) s.textContent = text;
    s.classList.toggle("error", kind === "error");
    s.classList.toggle("ok", kind === "ok");
  }

  // --- the server's clock ------------------------------------------------------------------
  //
  // The page never trusts this device's clock (it may be wrong, or moved): the server's time
  // is this device's monotonic clock (performance.now()) plus an offset, known within bounds.
  // /api/v1/game (read with no cache: a fresh answer each time) says the server's time when
  // it was made, `now`, in whole seconds S: sent at t0 and received at t1, it puts the offset
  // within [S - t1, S + 1s - t0]. Each answer narrows the bounds, and bounds that no longer
  // meet mean a clock was moved: start again from the newest answer. A few reads timed to
  // reach the server on its whole seconds narrow the bounds to a few hundredths of a second.
  // (Not the Date header: uvicorn refreshes it once a second, and a revalidated copy's may be
  // the stored one's.)

  const CLOCK = { lo: null, hi: null, rtt: 50, syncing: 0, again: 0 };

  function learnTime(serverMs, t0, t1, width) {
    if (!Number.isFinite(serverMs)) return;
    const lo = serverMs - t1, hi = serverMs + width - t0;
    if (CLOCK.lo === null || lo > CLOCK.hi || hi < CLOCK.lo) {
      const moved = CLOCK.lo !== null;
      CLOCK.lo = lo;
      CLOCK.hi = hi;
      if (moved) syncClock();  // a clock moved: narrow the new bounds again
    } else {
      CLOCK.lo = Math.max(CLOCK.lo, lo);
      CLOCK.hi = Math.min(CLOCK.hi, hi);
    }
    CLOCK.rtt = Math.max(1, t1 - t0);
  }

  // The server's time now, in milliseconds since 1970 (this device's until the first answer).
  function serverNow() {
    return CLOCK.lo === null ? Date.now() : performance.now() + (CLOCK.lo + CLOCK.hi) / 2;
  }

  // How far the page's notion of the server's time may be off, in milliseconds.
  function clockError() {
    return CLOCK.lo === null ? Infinity : (CLOCK.hi - CLOCK.lo) / 2;
  }

  async function readGameClock() {
    const t0 = performance.now();
    const r = await fetch("/api/v1/game", { cache: "no-store", credentials: "omit",
                                           referrerPolicy: "no-referrer" });
    const t1 = performance.now();
    if (!r.ok) throw new Error(String(r.status));
    const game = await r.json();
    learnTime(Date.parse(game.now), t0, t1, 1000);
    return game;
  }

  // A read answered slowly (the server busy while the page loads) narrows little, so the
  // rounds go on until the bounds are narrow, and a sync that ends wide is tried again soon.
  async function syncClock() {
    const mine = ++CLOCK.syncing;
    clearTimeout(CLOCK.again);
    for (let round = 0; round < 12 && mine === CLOCK.syncing; round++) {
      if (clockError() < 40) return;
      if (CLOCK.lo !== null) {  // send so that the request reaches the server on a whole second
        const at = performance.now() + CLOCK.rtt / 2 + (CLOCK.lo + CLOCK.hi) / 2;
        await sleep(1000 - (((at % 1000) + 1000) % 1000));
      }
      try {
        await readGameClock();
      } catch (e) {
        break;  // the game line's own load says what is wrong; try again later
      }
    }
    if (mine === CLOCK.syncing && clockError() >= 100) {
      CLOCK.again = setTimeout(syncClock, 15 * 1000);
    }
  }

  // --- talking to the server ----------------------------------------------------------------

  function problem(status, retryAfter, serverText) {
    if (status === 401) {
      return "That token was not accepted: it may be mistyped, revoked, or belong to a player " +
        "who has left the game. Check it, or ask the Dealer for a new one.";
    }
    if (status === 429) {
      const wait = parseInt(retryAfter || "", 10);
      const when = Number.isFinite(wait) && wait > 0
        ? (wait >= 120 ? "in " + Math.ceil(wait / 60) + " minutes" : "in " + plural(wait, "second"))
        : "later";
      return "Too many wrong tokens were tried from this address. Try again " + when + ".";
    }
    if (status === 503) {
      return "The game's database is not answering just now. Try again in a few seconds.";
    }
    return "The server could not answer (" + status + (serverText ? ": " + serverText : "") + ").";
  }

  async function get(path, token, asText) {
    const headers = token ? { Authorization: "Bearer " + token } : {};
    let r;
    try {
      r = await fetch(path, { headers, cache: "no-cache", credentials: "omit",
                              referrerPolicy: "no-referrer" });
    } catch (e) {
      const err = new Error("The server could not be reached. Check your connection and try again.");
      err.status = 0;
      throw err;
    }
    if (!r.ok) {
      let text = "";
      try { text = (await r.json()).error || ""; } catch (e) { /* not JSON */ }
      const err = new Error(problem(r.status, r.headers.get("Retry-After"), text));
      err.status = r.status;
      throw err;
    }
    return asText ? r.text() : r.json();
  }

  // A part of the page that loads on its own: its failure is said in its own status line
  // (with what the page does next), and it tries again by itself -- 2, 4, 8 ... up to 60
  // seconds apart -- while the rest of the page goes on. `run(current)` loads and draws it;
  // `current()` is false once a newer load started (a late answer is dropped).
  function loader(statusId, run, failed) {
    let gen = 0, timer = 0, wait = 2000;
    return async function load() {
      const mine = ++gen;
      clearTimeout(timer);
      try {
        await run(() => mine === gen);
        if (mine !== gen) return;
        wait = 2000;
        status(statusId, "");
      } catch (e) {
        if (mine !== gen) return;
        if (failed) failed(e);
        const again = Math.round(wait / 1000);
        status(statusId, e.message + " The page tries again in " + plural(again, "second") + ".",
          "error");
        timer = setTimeout(load, wait);
        wait = Math.min(wait * 2, 60000);
      }
    };
  }

  // --- the public record ----------------------------------------------------------------------

  function backCell(pack) {
    const th = el("th");
    th.setAttribute("scope", "row");
    th.append(backOf(pack, "swatch"), el("span", pack));
    return th;
  }

  function showDeck(deck) {
    $("deck").querySelector("tbody").replaceChildren(...deck.by_back.map((b) => {
      const tr = el("tr");
      tr.append(backCell(b.back), backText("td", b.back),
        el("td", b.cards, "num"));
      return tr;
    }));
    $("deck-total").textContent = deck.total + " of " + deck.sides;
  }

  function showPlayers(players) {
    knownPlayers = players.players.filter((p) => p.active)
      .map((p) => ({ name: p.name, dealer: p.dealer }));
    fillPlayerChoices();
    $("players").querySelector("tbody").replaceChildren(...players.players
      .filter((p) => p.active).map((p) => {
        const tr = el("tr");
        const who = el("th", p.name);
        who.setAttribute("scope", "row");
        if (p.dealer) who.append(" ", el("span", "Dealer", "tag"));
        const backs = el("td");
        if (p.dealer) {
          backs.textContent = "The Dealer holds the Deck.";
        } else if (!p.by_back.length) {
          backs.textContent = "No cards.";
        } else {
          const list = el("ul", undefined, "chips");
          p.by_back.forEach((b) => {
            const li = el("li");
            li.append(backOf(b.back, "swatch"), el("span", b.cards + " " + b.back));
            list.append(li);
          });
          backs.append(list);
        }
        tr.append(who, el("td", p.dealer ? "—" : p.cards, "num"), backs);
        return tr;
      }));
  }

  function showDice(dice) {
    const body = $("dice").querySelector("tbody");
    if (!dice.length) {
      const tr = el("tr");
      const td = el("td", "No dice period has been opened yet.");
      td.colSpan = 4;
      tr.append(td);
      body.replaceChildren(tr);
      return;
    }
    body.replaceChildren(...dice.map((d) => {
      const tr = el("tr");
      const th = el("th", d.period);
      th.setAttribute("scope", "row");
      tr.append(th, el("td", d.rolls, "num"), el("td", d.commitment, "hash"),
        d.seed ? el("td", d.seed, "hash") : el("td", "not revealed yet", "muted"));
      return tr;
    }));
  }

  function showReports(reports, text) {
    const links = $("report-links");
    links.querySelectorAll("li.earlier").forEach((li) => li.remove());
    if (!reports.length) return;
    const latest = reports[0];
    $("report").textContent = text;
    $("report-meta").textContent = "nweek " + latest.nweek + ", published " +
      latest.published.replace("T", " ").replace("Z", " UTC") + " (event " + latest.event + ")";
    reports.forEach((r) => {
      const li = el("li", undefined, "earlier");
      const a = el("a", "nweek " + r.nweek + " (text)");
      a.href = "/api/v1/reports/" + r.nweek + "?format=text";
      const md = el("a", "Markdown");
      md.href = "/api/v1/reports/" + r.nweek + "?format=markdown";
      li.append(a, " · ", md);
      links.append(li);
    });
  }

  // The game line: what /api/v1/game said (the Dealer, the Clock, the nweek and nday as of
  // `now`) and the Deck's count from /api/v1/deck, each drawn when it comes.
  let gameInfo = null, deckLine = null;

  const loadGame = loader("public-status", async (current) => {
    const game = await readGameClock();
    if (!current()) return;
    gameInfo = game;
    learnPacks(game);
    drawGameLine();
    scheduleRollover();
  }, () => {
    if (!gameInfo) $("game-line").textContent = "The game could not be loaded.";
  });

  const loadDeck = loader("deck-status", async (current) => {
    const deck = await get("/api/v1/deck");
    if (!current()) return;
    deckLine = deck.total + " of " + deck.sides + " cards in the Deck";
    showDeck(deck);
    drawGameLine();
  });

  const loadPlayers = loader("players-status", async (current) => {
    const players = await get("/api/v1/players");
    if (current()) showPlayers(players);
  });

  const loadDice = loader("dice-status", async (current) => {
    const dice = await get("/api/v1/dice");
    if (current()) showDice(dice);
  });

  const loadReports = loader("report-status", async (current) => {
    const reports = await get("/api/v1/reports");
    const text = reports.length
      ? await get("/api/v1/reports/" + reports[0].nweek + "?format=text", null, true) : null;
    if (current()) showReports(reports, text);
  });

  const loadHead = loader("head-status", async (current) => {
    const head = await get("/api/v1/ledger/head");
    if (!current()) return;
    $("head").textContent = "event " + head.event + ", " + head.hash;
    shownHead = Math.max(shownHead, head.event);
  });

  function loadPublic() {
    loadGame();
    loadDeck();
    loadPlayers();
    loadDice();
    loadReports();
    loadHead();
  }

  // --- the nweek, the nday and the countdowns -------------------------------------------------

  // Where the game stands at server time `at`, from the last /api/v1/game: its nweek and nday
  // as of its `now`, moved on by the ndays (24 hours each while the Clock runs) passed since.
  function position(game, at) {
    if (!game || !game.nweek) return null;
    if (!game.clock_running || !game.next_nweek_at) {
      return { nweek: game.nweek, nday: game.nday, next: null, nextDay: null };
    }
    const next = Date.parse(game.next_nweek_at);
    const length = game.nweek_days;
    const start = next - length * DAY;  // the current nweek's start
    const passed = Math.floor((at - start) / DAY);
    if (passed < length) {
      return { nweek: game.nweek, nday: passed + 1, next, nextDay: start + (passed + 1) * DAY };
    }
    // past the next nweek's start (until /api/v1/game is read again)
    const over = passed - length;
    const weeks = Math.floor(over / length);
    const nweekStart = next + weeks * length * DAY;
    return { nweek: game.nweek + 1 + weeks, nday: over % length + 1,
             next: nweekStart + length * DAY,
             nextDay: nweekStart + (over % length + 1) * DAY };
  }

  function drawGameLine() {
    if (!gameInfo) return;
    const game = gameInfo;
    const at = position(game, serverNow());
    const parts = ["Dealer: " + (game.dealer || "none")];
    if (at) parts.push("nweek " + at.nweek + ", nday " + at.nday);
    parts.push("the Clock is " + (game.clock_running ? "On" : "Off"));
    if (deckLine) parts.push(deckLine);
    const line = parts.join(" · ");
    if ($("game-line").textContent !== line) $("game-line").textContent = line;
    let count = "";
    if (at && at.next) {
      const iso = new Date(at.next).toISOString();
      count = "nweek " + (at.nweek + 1) + " begins in " + timeLeft(iso) + " (" + when(iso) + ")";
    } else if (game.nweek) {
      count = "The Clock is Off: the next nweek waits for it.";
    }
    if ($("countdown").textContent !== count) $("countdown").textContent = count;
  }

  // At the next nday's boundary, /api/v1/game is read again (a second after it, on the
  // server's clock): the line has already rolled over by itself; the read checks it.
  let rollover = 0;

  function scheduleRollover() {
    clearTimeout(rollover);
    const at = position(gameInfo, serverNow());
    if (!at || !at.nextDay) return;
    const wait = Math.min(at.nextDay + 1000 - serverNow(), 6 * 3600 * 1000);
    rollover = setTimeout(loadGame, Math.max(wait, 1000));
  }

  // The time left until `iso` on the server's clock, to the nearest second:
  // "2 days 03:04:05"; "00:00:00" once it has passed.
  function timeLeft(iso) {
    const pad = (n) => String(n).padStart(2, "0");
    let left = Math.max(0, Math.round((Date.parse(iso) - serverNow()) / 1000));
    const d = Math.floor(left / 86400); left %= 86400;
    const h = Math.floor(left / 3600); left %= 3600;
    return (d ? plural(d, "day") + " " : "") + pad(h) + ":" + pad(Math.floor(left / 60)) + ":" +
      pad(left % 60);
  }

  function passed(iso) {
    return Date.parse(iso) <= serverNow();
  }

  // A countdown to `iso`, kept current: "in 2 days 03:04:05", or `done` once it has passed.
  function countdown(iso, done) {
    const e = el("span", undefined, "left");
    e.dataset.ends = iso;
    e.dataset.done = done || "passed";
    drawLeft(e);
    return e;
  }

  function drawLeft(e) {
    const text = passed(e.dataset.ends) ? e.dataset.done : "in " + timeLeft(e.dataset.ends);
    if (e.textContent !== text) e.textContent = text;
    e.classList.toggle("over", passed(e.dataset.ends));
  }

  // Five times a second: the game line and every countdown on the page (only what changed
  // is written).
  function tick() {
    drawGameLine();
    document.querySelectorAll("[data-ends]").forEach((e) => {
      if (e.dataset.done) drawLeft(e);
      else if (e.textContent !== timeLeft(e.dataset.ends)) e.textContent = timeLeft(e.dataset.ends);
    });
  }

  // --- the player's own hand ------------------------------------------------------------------

  // "Red 10h" -> {pack: "Red", rank: "10", suit: "h"}; null if the text is not a card.
  function parseCard(text) {
    const m = /^(.*\S)\s+(10|[2-9AJQK])([dshc])$/i.exec(String(text));
    return m ? { pack: m[1], rank: m[2].toUpperCase(), suit: m[3].toLowerCase() } : null;
  }

  function corner(rank, suit, where) {
    const c = el("span", undefined, "corner " + where);
    c.append(el("span", rank, "rank"), el("span", suit.symbol, "pip"));
    return c;
  }

  function faceOf(face) {
    const suit = SUITS[face.suit];
    const f = decorative("span", undefined, "face suit-" + suit.colour);
    const middle = el("span", undefined, "middle");
    if (face.rank === "A") {
      middle.append(el("span", suit.symbol, "ace"));
    } else if ("JQK".includes(face.rank)) {
      const court = el("span", undefined, "court");
      court.append(el("span", face.rank, "court-rank"), el("span", suit.symbol, "court-pip"));
      middle.append(court);
    } else {
      PIPS[face.rank].forEach(([x, y]) => {
        const pip = el("span", suit.symbol, "pip " + x + " " + y);
        if (parseInt(y.slice(2), 10) > 50) pip.classList.add("flip");  // upside down
        middle.append(pip);
      });
    }
    f.append(corner(face.rank, suit, "top"), middle, corner(face.rank, suit, "bottom"));
    return f;
  }

  function cardItem(c) {
    const li = el("li", undefined, "card");
    const face = parseCard(c.card);
    const art = decorative("span", undefined, "art");
    art.append(backOf(c.back, "card-back"));
    art.append(face ? faceOf(face) : el("span", c.card, "face plain"));
    const caption = el("span", undefined, "caption");
    caption.append(el("span", c.name, "name"), el("span", "card " + c.number, "number"),
      el("span", ", " + c.back + " back", "sr-only"));
    li.append(art, caption);
    return li;
  }

  // The hand grouped by Back; the server lists cards by number, so packs come in their order.
  function showHand(hand) {
    const groups = new Map();
    hand.cards.forEach((c) => {
      if (!groups.has(c.back)) groups.set(c.back, []);
      groups.get(c.back).push(c);
    });
    if (!groups.size) {
      part($("hand"), [], () => [el("p", "You hold no cards yet.", "empty")]);
      return;
    }
    part($("hand"), hand.cards, () => [...groups].map(([back, cards], i) => {
      const group = el("section", undefined, "pack-group");
      const title = el("h4", undefined, "pack-title");
      title.id = "back-" + i;
      title.append(backOf(back, "swatch large"), el("span", back + " back"),
        el("span", " · " + plural(cards.length, "card"), "count"));
      group.setAttribute("aria-labelledby", title.id);
      const list = el("ul", undefined, "cards");
      list.setAttribute("aria-labelledby", title.id);
      list.append(...cards.map(cardItem));
      group.append(title, backText("p", back), list);
      return group;
    }));
  }

  // How a deal was rolled: the number of rolls and the dice, never the numbers rolled
  // (a reroll names a card that is in someone else's hand).
  function rollsText(n) {
    if (!n.rolls) return "";
    const how = n.dice === "committed" ? "the committed die" : (n.dice || "") + " dice";
    return "Dealt in " + plural(n.rolls, "roll") + " of " + how + ".";
  }

  // A notice's deadline: its "By:" line (what waits for the player, and by when), or null.
  function deadlineOf(text) {
    const m = /^By: (\S+)$/m.exec(String(text));
    return m && Number.isFinite(Date.parse(m[1])) ? m[1] : null;
  }

  // A deadline drawn: "By 2026-01-08 00:00 UTC, in 2 days 03:04:05" (or "(passed)").
  function deadline(iso, what) {
    const p = el("span", undefined, "by");
    const t = el("time", when(iso));
    t.dateTime = iso;
    p.append((what || "By") + " ", t, ", ", countdown(iso, "the deadline has passed"));
    return p;
  }

  function showNotices(notices) {
    part($("notices"), notices, () => {
      if (!notices.length) return [el("li", "No notices yet.", "empty")];
      return notices.map((n) => {
        const li = el("li");
        const at = el("time", n.at.replace("T", " ").replace("Z", " UTC"), "when");
        at.dateTime = n.at;
        li.append(at, el("span", n.text, "text"));  // a deadline's "By:" line and all
        if (n.rolls) li.append(el("span", rollsText(n), "rolls"));
        return li;
      });
    });
  }

  // The panel is busy while any load of the hand is under way.
  function busy(delta) {
    pending += delta;
    $("me-panel").setAttribute("aria-busy", pending > 0 ? "true" : "false");
  }

  // Each load of the hand is numbered; a load draws what it read unless a later one has
  // drawn already (so an answer read while a newer load is under way is not thrown away),
  // and never for a token no longer the tab's.
  let mineGen = 0, mineShown = 0, pending = 0;

  function forget(message) {
    mineShown = ++mineGen;
    sessionStorage.removeItem(KEY);
    lastMine = null;
    PANELS.forEach((panel) => panel.clear && panel.clear());
    ["hand", "notices"].forEach((id) => { $(id).replaceChildren(); $(id).dataset.key = ""; });
    $("votes").querySelector("tbody").replaceChildren();
    dealerTable.clear();
    if (following) follow(null);
    $("me").hidden = true;
    $("forget").hidden = true;
    $("me-title").textContent = "Your hand";
    ["notices-status", "votes-status", "hand-status", "games-status"].forEach((id) => status(id, ""));
    clearTimeout(mineRetry);
    if (message) status("me-status", message, "ok");
  }

  // The token's player (/api/v1/me, which says whether the token is good and what it may do),
  // then eir hand, notices, votes and card games, each drawn as it comes (a failure of one
  // is said where it belongs, and the rest is drawn).
  async function loadMine(token) {
    const gen = ++mineGen;
    busy(+1);
    if (!lastMine) status("me-status", "Loading your hand…");
    try {
      const me = await get("/api/v1/me", token);
      const fresh = () => gen > mineShown && sessionStorage.getItem(KEY) === token;
      if (!fresh()) return;
      const settled = (p) => p.then((value) => ({ value }), (error) => ({ error }));
      const [hand, notices, votes, games] = await Promise.all([
        settled(get("/api/v1/me/hand", token)), settled(get("/api/v1/me/notices", token)),
        settled(get("/api/v1/me/votes", token)), settled(get("/api/v1/me/games", token))]);
      await gamesReady;  // the games' own panels, registered
      if (!fresh()) return;
      mineShown = gen;
      const had = document.activeElement;
      const looking = lookingAt();
      const refused = [hand, notices, votes, games].find((r) => r.error && r.error.status === 401);
      if (refused) throw refused.error;
      $("me").hidden = false;
      $("forget").hidden = false;
      if (following !== token) follow(token);  // the token is good: its own stream
      showMe(me, hand.value);
      drawPart("hand-status", hand, showHand);
      drawPart("notices-status", notices, showNotices);
      drawPart("votes-status", votes, showVotes);
      drawPart("games-status", games, () => null);
      const mine = { me, notices: notices.value || (lastMine && lastMine.mine.notices) || [] };
      if (hand.value && games.value) {
        lastMine = { hand: hand.value, games: games.value.games, token, mine };
        PANELS.forEach((panel) => panel.render &&
          panel.render(hand.value, games.value.games, token, mine));
        Object.keys(games.value.games).forEach((name) => {  // a game come into force since
          if (GAMES.has(name)) loadPanel(GAMES.get(name));
        });
        // the hand and the games' views come by separate requests, each read at a head of its
        // own: an event after the older of the two makes them read again
        mineHead = Math.max(mineHead, Math.min(hand.value.as_of, games.value.as_of));
      }
      dealerTable.render(me, token);
      keepFocus(had);
      looking();
      clearTimeout(mineRetry);
      if ([hand, notices, votes, games].some((r) => r.error)) {
        mineRetry = setTimeout(() => reload(token), 5000);  // each failed part says so
      }
    } catch (e) {
      if (gen !== mineGen) return;
      if (e.status === 401) {
        forget();
      } else {
        $("forget").hidden = !sessionStorage.getItem(KEY);
      }
      status("me-status", e.message, "error");
    } finally {
      busy(-1);
    }
  }

  let mineRetry = 0;

  function drawPart(statusId, result, draw) {
    if (result.error) {
      status(statusId, result.error.message + " The page tries again in 5 seconds.", "error");
    } else {
      status(statusId, "");
      draw(result.value);
    }
  }

  // The player's line -- or the Dealer's, who holds no hand: the Deck and the table instead.
  function showMe(me, hand) {
    const asOf = hand ? " (as of event " + hand.as_of + ")" : "";
    $("hand-part").hidden = me.dealer;
    if (me.dealer) {
      $("me-title").textContent = "The Dealer's table";
      status("me-status", me.name + ", you are the Dealer: the Deck holds " +
        plural(me.cards, "card") + asOf + ". " + (me.scope === "dealer"
        ? "Your officer token takes the Dealer's actions below."
        : "This token is your own, not an officer token: the Dealer's actions need one " +
          "(nomic-cards token issue " + me.name + " --scope dealer)."), "ok");
    } else {
      $("me-title").textContent = "Your hand";
      status("me-status", me.name + ", you hold " + plural(hand ? hand.cards.length : me.cards,
        "card") + asOf + ".", "ok");
    }
  }

  function showVotes(votes) {
    const body = $("votes").querySelector("tbody");
    if (!votes.length) {
      const tr = el("tr");
      const td = el("td", "No vote of yours has been recorded yet.");
      td.colSpan = 3;
      tr.append(td);
      body.replaceChildren(tr);
      return;
    }
    body.replaceChildren(...votes.map((v) => {
      const tr = el("tr");
      const th = el("th", v.proposal);
      th.setAttribute("scope", "row");
      const at = el("td");
      const t = el("time", v.at.replace("T", " ").replace(/:\d\d(\+00:00|Z)$/, " UTC"));
      t.dateTime = v.at;
      if (v.nweek !== null) at.append(el("span", "nweek " + v.nweek, "nweek"), " ");
      at.append(t);
      const earned = v.earned.length
        ? v.earned.map((c) => c.name + " (" + c.back + " back, card " + c.number + ")").join(", ")
        : "not dealt yet";
      tr.append(th, at, el("td", earned, v.earned.length ? "" : "muted"));
      return tr;
    }));
  }

  // --- actions: answers beside their controls -------------------------------------------------

  // An action of a game, for the token's player; the server's one sentence on refusal.
  async function act(body, token) {
    const key = Array.from(crypto.getRandomValues(new Uint8Array(16)),
      (b) => b.toString(16).padStart(2, "0")).join("");
    let r;
    try {
      r = await fetch("/api/v1/me/actions", {
        method: "POST", body: JSON.stringify(body), cache: "no-store", credentials: "omit",
        referrerPolicy: "no-referrer",
        headers: { Authorization: "Bearer " + token, "Content-Type": "application/json",
                   "Idempotency-Key": key } });
    } catch (e) {
      throw new Error("The server could not be reached. Check your connection and try again.");
    }
    let data = {};
    try { data = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) {
      throw new Error(r.status === 401 || r.status === 503 || (r.status === 429 && !data.error)
        ? problem(r.status, r.headers.get("Retry-After"), data.error) : data.error || problem(r.status));
    }
    return data;
  }

  // Where an action's answer goes, right after its control: a confirmation (when the action
  // asks for one) and the answer itself, a live region screen readers announce; the answer can
  // take the focus when its control is gone (an offer accepted leaves the list).
  function answerSlot(id) {
    const slot = el("div", undefined, "answer-slot");
    slot.id = id + "-slot";
    const ask = el("div", undefined, "confirm");
    ask.id = id + "-confirm";
    ask.hidden = true;
    const said = el("p", undefined, "status answer");
    said.id = id;
    said.tabIndex = -1;
    said.setAttribute("aria-live", "polite");
    said.setAttribute("aria-atomic", "true");
    slot.append(ask, said);
    return slot;
  }

  function answerOf(slot) {
    return slot.querySelector(".answer");
  }

  // Asks first, beside the control: `question` says what will happen; resolves true for yes.
  // The focus goes to the yes button, and back to the control after a no.
  function confirmFirst(slot, control, question, yes) {
    const box = slot.querySelector(".confirm");
    return new Promise((done) => {
      const text = el("p", question, "question");
      text.id = box.id + "-text";
      const ok = el("button", yes);
      ok.type = "button";
      ok.id = box.id + "-yes";
      const no = el("button", "Cancel", "quiet");
      no.type = "button";
      no.id = box.id + "-no";
      const row = el("div", undefined, "row");
      row.append(ok, no);
      box.setAttribute("role", "group");
      box.setAttribute("aria-labelledby", text.id);
      box.replaceChildren(text, row);
      box.hidden = false;
      const finish = (answer) => {
        box.hidden = true;
        box.replaceChildren();
        if (!answer) refocus(control, answerOf(slot));
        done(answer);
      };
      ok.addEventListener("click", () => finish(true));
      no.addEventListener("click", () => finish(false));
      box.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") finish(false);
      });
      ok.focus();
      reveal(box);
    });
  }

  // The control again if it is still there (or drawn anew under its id), else the answer.
  function refocus(control, answer) {
    const again = control && (control.isConnected ? control : control.id && $(control.id));
    const target = again || answer;
    if (target && document.activeElement !== target) target.focus({ preventScroll: true });
    if (target) reveal(answer && answer.textContent ? answer : target);
  }

  // The control of the action under way, and its answer (see keepFocus).
  let taking = null;

  // After the page is drawn anew: if the element that had the focus was removed, the focus
  // goes to the element drawn in its place (the same id), else to the answer of the action
  // it took -- never left on the body.
  function keepFocus(had) {
    if (!had || had === document.body || had.isConnected) return;
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected) return;
    const again = had.id && $(had.id);
    const target = again || (taking && taking.control === had && taking.answer.isConnected
      ? taking.answer : null);
    if (target) target.focus({ preventScroll: true });
  }

  // Where the node is in the viewport now; the function returned scrolls it back there after
  // the page is drawn anew (an offer gone from a list above it, a section grown), if it was
  // in view, and notes the scroll position as the page's own (see `held`).
  function holdPlace(node) {
    const top = node.getBoundingClientRect().top;
    return () => {
      if (!node.isConnected || top < 0 || top > window.innerHeight) return;
      const moved = node.getBoundingClientRect().top - top;
      if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
      heldY = window.scrollY;
    };
  }

  // The answer of the player's last action stays where the player reads it through every
  // redraw (its own view read, a stream event, even one that comes after the answer) until
  // the player moves on: a click, a key, a touch, a wheel, or a scroll the page did not make.
  let held = null;  // that answer
  let heldY = 0;  // where the page left the scroll position
  function hold(answer) {
    held = answer;
    heldY = window.scrollY;
  }
  function playerScrolled() {  // since the page last left the scroll position
    return Math.abs(window.scrollY - heldY) >= 1;
  }
  ["pointerdown", "keydown", "wheel", "touchstart"].forEach((type) =>
    window.addEventListener(type, () => { held = null; }, { capture: true, passive: true }));
  window.addEventListener("scroll", () => { if (held && playerScrolled()) held = null; },
    { passive: true });

  // Where the player reads stays where it is, however the page is drawn anew (by a view read
  // or a stream event): a confirmation open under a control, else the answer held. Call
  // before drawing; the function returned, after.
  function lookingAt() {
    const box = document.querySelector(".confirm:not([hidden])");
    if (box) return holdPlace(box);
    if (held && (playerScrolled() || !held.isConnected)) held = null;
    return held ? holdPlace(held) : () => null;
  }

  // Scrolled into view, if it is not already wholly in it.
  function reveal(node) {
    if (!node || !node.isConnected) return;
    const box = node.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      node.scrollIntoView({ block: "nearest" });
      heldY = window.scrollY;  // the page's own scroll
    }
  }

  // Takes an action from a control: asks first when `confirm` is given ({question, yes});
  // sends it; says the answer (`say(data)`, else the server's summary) or the refusal in the
  // control's answer slot; reads the player's view again; keeps the focus on the control (or
  // on the answer, when the control is gone). Resolves the answer's data, or null.
  async function take({ body, token, control, slot, confirm, say, sent }) {
    const answer = answerOf(slot);
    if (control.getAttribute("aria-disabled") === "true") return null;
    if (confirm && !(await confirmFirst(slot, control, confirm.question, confirm.yes))) {
      return null;
    }
    control.setAttribute("aria-disabled", "true");  // not disabled: it keeps the focus
    refocus(control, answer);
    taking = { control, answer };
    status(answer, "Sending…");
    // where the player looks now: the answer stays there, however the page is drawn anew
    // (by this action's reading of the view, or by the events on the stream)
    hold(answer);
    const back = holdPlace(answer);
    delete answer.dataset.watch;
    let data = null;
    try {
      data = await act(body, token);
      status(answer, say ? say(data) : data.summary || (data.waiting ? "Waiting." : "Done."), "ok");
      if (sent) sent(data, answer);
    } catch (e) {
      status(answer, e.message, "error");
    } finally {
      control.removeAttribute("aria-disabled");
    }
    if (data) await reload(token);
    if (held === answer) back();  // unless the player has moved on meanwhile
    if (!document.activeElement || document.activeElement === document.body ||
        document.activeElement === control || !document.activeElement.isConnected) {
      refocus(control, answer);
    }
    reveal(answer);
    return data;
  }

  // The server's summary as the answer of a control: "Done: dealt ann a card."
  function sentence(text) {
    const t = String(text).trim();
    return "Done: " + (/[.!?]$/.test(t) ? t : t + ".");
  }

  // The player's view read again after an action, unless the token was forgotten meanwhile.
  function reload(token) {
    if (token && sessionStorage.getItem(KEY) === token) return loadMine(token);
    return Promise.resolve();
  }

  // --- the Dealer's table: the Dealer's actions, with an officer token ------------------------

  const DEALER_ACTIONS = [
    { action: "cards.deal", title: "Deal a card", button: "Deal a card",
      doc: "From the Deck, with the committed die (rule 5); the player is told privately.",
      fields: [{ name: "player", kind: "player", required: true, doc: "The player dealt to" },
               { name: "reason", kind: "text", required: false, doc: "Why" }] },
    { action: "cards.transfer", title: "Move a card", button: "Move the card",
      doc: "Under a rule you cite (rule 1); the holders are told privately.",
      fields: [{ name: "card", kind: "text", required: true,
                 doc: "The card: its number, or its name as a hand shows it (Red As)" },
               { name: "from", kind: "holder", required: false, doc: "From" },
               { name: "to", kind: "holder", required: true, doc: "To" },
               { name: "rule", kind: "text", required: true, doc: "The rule cited" }] },
    { action: "cards.vote", title: "Record a vote", button: "Record the vote",
      doc: "A player's vote on a proposal, for the Cards for Votes; the same vote again " +
           "changes nothing.",
      fields: [{ name: "player", kind: "player", required: true, doc: "The voter" },
               { name: "proposal", kind: "text", required: true, doc: "The proposal" },
               { name: "at", kind: "text", required: false,
                 doc: "When it was cast, as 2026-01-05T12:00:00Z" }] },
    { action: "cards.tick", title: "Tick", button: "Tick now",
      doc: "Do everything due at the nweek boundaries and the card games' deadlines passed " +
           "since the last tick (as nomic-cards tick, which cron runs).",
      fields: [] },
  ];

  const dealerTable = {
    built: false,

    render(me, token) {
      const root = $("dealer-table");
      const officer = me.dealer && me.scope === "dealer";
      root.hidden = !officer;
      if (!officer) return;
      this.token = token;
      if (!this.built) {
        $("dealer-actions").replaceChildren(...DEALER_ACTIONS.map((spec) => actionForm(spec, {
          id: "dealer-" + spec.action.split(".")[1],
          token: () => this.token, say: (data) => sentence(data.summary),
          reset: spec.action !== "cards.tick",
        })));
        this.built = true;
        fillPlayerChoices();
      }
    },

    clear() {
      $("dealer-table").hidden = true;
    },
  };

  function isOfficer() {
    const me = lastMine && lastMine.mine && lastMine.mine.me;
    return Boolean(me && me.dealer && me.scope === "dealer");
  }

  // --- the live stream ------------------------------------------------------------------------

  const KINDS = {
    "card.dealt": (e) => "The Dealer dealt " + e.payload.player + " a card (" + e.payload.reason + ").",
    "card.transferred": (e) => "A card moved from " + (e.payload.from || "the Deck") + " to " +
      (e.payload.to || "the Deck") + " under " + e.payload.rule + ".",
    "deal.refused": (e) => "A deal to " + e.payload.player + " was refused: " + e.payload.refused + ".",
    "votes.recorded": (e) => "Votes recorded: " + (e.payload.votes || []).map(
      (v) => v.player + " on " + v.proposal).join(", ") + ".",
    "nweek.started": (e) => "nweek " + e.payload.nweek + " began.",
    "dice.committed": (e) => "Dice period " + e.payload.period + " opened; its commitment is " +
      e.payload.commitment + ".",
    "dice.revealed": (e) => "The seed of dice period " + e.payload.period + " was revealed.",
    "notice.given": (e) => "A private notice went to " + (e.payload.player || e.subject) + ".",
    "notice.sealed": () => "A private notice went to a player (whom, only they know).",
    "notice.sent": (e) => "The notice of event " + e.payload.notice + " was mailed.",
    "notice.failed": (e) => "The mail of the notice of event " + e.payload.notice +
      " was refused.",
    "report.published": (e) => "The Dealer's Report for nweek " + e.payload.nweek + " was published.",
    "reports.posted": (e) => "The Dealer's Reports for " + (e.payload.nweeks || []).map(
      (n) => "nweek " + n).join(", ") + " were posted to the list.",
    "rule.enacted": (e) => "The rule " + e.payload.rule + " was enacted by " + e.payload.proposal + ".",
    "rule.amended": (e) => "The rule " + e.payload.rule + " was amended by " + e.payload.proposal +
      ": " + Object.entries(e.payload.params || {}).map(([k, v]) => k + " = " + v).join(", ") + ".",
    "rule.repealed": (e) => "The rule " + e.payload.rule + " was repealed by " + e.payload.proposal + ".",
    "clock.stopped": () => "The game Clock was switched Off.",
    "clock.started": () => "The game Clock was switched On.",
    "pack.added": (e) => "Pack " + e.payload.name + " was put in play.",
    "pack.retired": (e) => "Pack " + (e.payload.name || e.payload.pack) + " was taken out of play.",
    "player.rejoined": (e) => e.payload.name + " rejoined the game.",
    "player.registered": (e) => e.payload.name + " joined the game.",
    "player.retired": (e) => e.payload.name + " retired.",
    "player.email_set": (e) => e.payload.name + "'s address for notices changed.",
    "dealer.elected": (e) => e.payload.name + " was elected Dealer.",
    "game.created": () => "The game began.",
    "points.moved": (e) => (e.payload.from || "The Bank") + " paid " + (e.payload.to || "the Bank") +
      " " + plural(e.payload.points, "Point") + " under " + e.payload.rule + ".",
  };

  // The record's own bookkeeping: folded away in the log (unless it carries the reader's own
  // notice) behind "Show every event". A card game adds its own (registerGame's `bookkeeping`).
  const BOOKKEEPING = new Set(["notice.given", "notice.sealed", "notice.sent", "notice.failed",
    "reports.posted", "player.email_set", "dice.committed"]);

  function when(iso) {
    return String(iso).replace("T", " ").replace(/(:\d\d)?(\.\d+)?Z$/, " UTC");
  }

  function describe(e) {
    const known = KINDS[e.kind] || gameSentence(e.kind);
    try {
      if (known) return known(e);
    } catch (err) { /* a payload of another shape: the plain line below */ }
    return e.kind + (e.subject ? " (" + e.subject + ")" : "") + ".";
  }

  const seenBefore = parseInt(localStorage.getItem(SEEN) || "", 10);
  let newCount = 0;

  function logEvent(e) {
    const li = el("li");
    li.dataset.event = String(e.event);
    const at = el("time", e.at.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace("Z", " UTC"), "when");
    at.dateTime = e.at;
    li.append(el("span", "#" + e.event, "seq"), " ", at, " ", el("span", describe(e), "text"));
    if (e.notice) li.append(el("span", e.notice, "notice"));
    if (BOOKKEEPING.has(e.kind) && !e.notice) li.classList.add("bookkeeping");
    if (isNew(e.event)) {
      li.classList.add("new");
      li.prepend(el("span", "new", "tag"), " ");
      if (!li.classList.contains("bookkeeping")) newCount++;
    }
    const log = $("log");
    log.prepend(li);
    while (log.children.length > 400) log.lastElementChild.remove();
    localStorage.setItem(SEEN, String(Math.max(e.event,
      parseInt(localStorage.getItem(SEEN) || "0", 10) || 0)));
    countLog();
  }

  function countLog() {
    const hidden = $("log").querySelectorAll("li.bookkeeping").length;
    const all = $("log").classList.contains("all");
    const button = $("log-all");
    button.hidden = hidden === 0;
    const text = all ? "Hide the bookkeeping" : "Show every event (" +
      plural(hidden, "line") + " of bookkeeping hidden)";
    if (button.textContent !== text) button.textContent = text;
    const fresh = newCount ? plural(newCount, "event") + " new since your last visit, marked new." : "";
    if ($("log-new").textContent !== fresh) $("log-new").textContent = fresh;
  }

  // One stream at a time: the token's (public events and the player's own notices) or the
  // public one. A new call ends the one before.
  // The public parts and the player's own are each read again (a moment after a burst of
  // events) when an event is newer than the ledger head they were last read at: the player's
  // own action reads eir view at once, but its events still move the public parts.
  let streamGen = 0, lastId = null, refreshing = 0, shownHead = 0, mineHead = 0;
  const stale = { public: false, mine: false };

  function refreshSoon(token, event) {
    stale.public = stale.public || event > shownHead;
    stale.mine = stale.mine || (Boolean(token) && event > mineHead);
    if (!stale.public && !stale.mine) return;
    clearTimeout(refreshing);
    refreshing = setTimeout(() => {
      if (stale.public) loadPublic();
      if (stale.mine && token && sessionStorage.getItem(KEY) === token) loadMine(token);
      stale.public = stale.mine = false;
    }, 300);
  }

  let following;  // the token whose stream is open (null: the public one)
  let aborter = null;

  async function follow(token) {
    const gen = ++streamGen;
    following = token;
    if (aborter) aborter.abort();  // the stream before ends now, token and all
    const mine = aborter = new AbortController();
    await gamesReady;  // the log's lines in the games' own words
    let wait = 1000;
    while (gen === streamGen) {
      const headers = token ? { Authorization: "Bearer " + token } : {};
      if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
      else {
        try {
          const head = await get("/api/v1/ledger/head");
          lastId = Math.max(0, head.event - 30);  // the recent past, for the log
        } catch (e) { /* the stream's own error says it */ }
        if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
      }
      try {
        const r = await fetch(token ? "/api/v1/me/events" : "/api/v1/events",
          { headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer",
            signal: mine.signal });
        if (r.status === 401) return;  // the hand's own request says so
        if (!r.ok || !r.body) throw new Error(String(r.status));
        status("live-status", "Following the game live.", "ok");
        wait = 1000;
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        while (gen === streamGen) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = block.split("\n").filter((l) => l.startsWith("data: "))
              .map((l) => l.slice(6)).join("\n");
            if (!data) continue;  // a comment (ping)
            const e = JSON.parse(data);
            lastId = e.event;
            const looking = lookingAt();
            logEvent(e);
            PANELS.forEach((panel) => panel.onEvent && panel.onEvent(e, token));
            looking();
            if (changesGames(e)) gamesReady = loadGames();
            refreshSoon(token, e.event);
          }
        }
        reader.cancel().catch(() => null);
      } catch (e) {
        if (gen !== streamGen) return;
        status("live-status", "The live view lost the server; trying again…", "error");
      }
      if (gen !== streamGen) return;
      await sleep(wait);
      wait = Math.min(wait * 2, 30000);
    }
  }

  // --- card games: their panels (GET /api/v1/games, /api/v1/me/games, POST /api/v1/me/actions)
  //
  // The page names no card game. /api/v1/games lists the installed ones: a game with a panel
  // of its own has its script (/static/games/<name>.js, same origin) loaded, which registers
  // the game through window.NomicCards.registerGame({name, panel, describe, bookkeeping}) and
  // draws it with the helpers NomicCards gives; a game without one (or whose script fails) gets
  // the generic panel: its view as readable lists and tables, and a form for each action it
  // declares.

  const RANK_NAMES = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };
  const SUIT_NAMES = { d: "Diamonds", s: "Spades", h: "Hearts", c: "Clubs" };

  function faceName(face) {
    return (RANK_NAMES[face.rank] || face.rank) + " of " + SUIT_NAMES[face.suit];
  }

  // A card drawn small: rank and suit in its colour; its name said in text.
  function mini(label) {
    const face = parseCard(label);
    const e = el("span", undefined, "mini");
    if (!face) {
      e.textContent = label;
      return e;
    }
    const suit = SUITS[face.suit];
    e.classList.add("suit-" + suit.colour);
    e.append(backOf(face.pack, "swatch tiny"), decorative("span", face.rank + suit.symbol),
      el("span", faceName(face) + " (" + face.pack + ")", "sr-only"));
    e.title = label;
    return e;
  }

  function minis(labels, cls) {
    const list = el("ul", undefined, "minis" + (cls ? " " + cls : ""));
    labels.forEach((c) => {
      const li = el("li");
      li.append(mini(typeof c === "string" ? c : c.card));
      list.append(li);
    });
    return list;
  }

  // A card as the game names it ("Fish Kd"), in its suit's colour beside its Back: the text
  // a form asks for.
  function cardText(label) {
    const face = parseCard(label);
    const e = el("span", undefined, "mini card-text");
    if (!face) {
      e.textContent = label;
      return e;
    }
    e.classList.add("suit-" + SUITS[face.suit].colour);
    e.append(backOf(face.pack, "swatch tiny"), el("span", label),
      el("span", " (" + faceName(face) + ")", "sr-only"));
    return e;
  }

  function cardsText(labels) {
    return labels.join(", ");
  }

  // Rebuilds a part only when what it shows changed, so a form being filled in keeps its
  // values and its focus while other players' events come in. When the focus was inside, it
  // goes back to the control of the same id, else to the nearest answer (never to the page's
  // body).
  function part(node, data, build) {
    const key = JSON.stringify(data);
    if (node.dataset.key === key) return;
    node.dataset.key = key;
    const inside = node.contains(document.activeElement) ? document.activeElement : null;
    node.replaceChildren(...build());
    if (!inside) return;
    const again = inside.id && $(inside.id);
    if (again) {
      again.focus({ preventScroll: true });
      return;
    }
    for (let n = node; n; n = n.parentElement) {
      const answer = n.querySelector && n.querySelector(".answer");
      if (answer) {
        answer.focus({ preventScroll: true });
        return;
      }
      if (n.tabIndex >= 0 || n.id === "main") break;
    }
    $("main").focus({ preventScroll: true });
  }

  function isNew(event) {
    return Number.isFinite(seenBefore) && event > seenBefore;
  }

  // Every installed card game by name: {info (from /api/v1/games), script (its panel's
  // loading, a promise), failed, generic (its generic panel)}.
  const GAMES = new Map();
  // What the games' own scripts registered, by name: {panel, describe}.
  const REGISTERED = new Map();
  // Where each game's panel goes, in the order /api/v1/games lists them.
  const SLOTS = new Map();
  // The player's last view ({hand, games, token, mine}), to draw a panel registered after it.
  let lastMine = null;
  // The active players ({name, dealer}), from /api/v1/players: a form's choice of player.
  let knownPlayers = [];
  let gamesReady = null;

  function slot(name) {
    let s = SLOTS.get(name);
    if (!s) {
      s = el("div", undefined, "game-slot");
      s.dataset.game = name;
      $("game-panels").append(s);
      SLOTS.set(name, s);
    }
    return s;
  }

  function learnGames(list) {
    list.forEach((info) => {
      let game = GAMES.get(info.name);
      if (!game) {
        game = { info, script: null, failed: false, generic: genericPanel(info.name) };
        GAMES.set(info.name, game);
        PANELS.push(game.generic);
        slot(info.name);
      }
      game.info = info;
    });
  }

  // A game's own panel script, added once; the promise settles when it has run (or failed:
  // the generic panel draws the game then).
  function loadPanel(game) {
    const src = game.info.panel;
    if (!src || game.script) return game.script;
    game.script = new Promise((done) => {
      const s = document.createElement("script");
      s.src = src;
      s.addEventListener("load", () => {
        game.failed = !REGISTERED.has(game.info.name);
        done();
      });
      s.addEventListener("error", () => {
        game.failed = true;
        done();
      });
      document.head.append(s);
    });
    game.script.then(() => {
      if (game.failed && lastMine) drawLater(game.generic);
    });
    return game.script;
  }

  // /api/v1/games (once, and again when a game's rule changes), and the panels of the games
  // in force; never fails: without it the page goes on with no card game panel.
  async function loadGames() {
    try {
      learnGames(await get("/api/v1/games"));
    } catch (e) {
      return;
    }
    await Promise.all([...GAMES.values()].filter((g) => g.info.in_force).map(loadPanel));
  }

  function drawLater(panel) {
    const mine = lastMine;
    if (mine && sessionStorage.getItem(KEY) === mine.token && panel.render) {
      panel.render(mine.hand, mine.games, mine.token, mine.mine);
    }
  }

  // The hook a game's panel script calls: {name, panel: {render(hand, games, token, mine),
  // clear(), onEvent(event, token)}, describe: {kind: (event) => sentence}, bookkeeping:
  // [kinds folded away in the log]}.
  function registerGame(game) {
    const name = String((game && game.name) || "");
    if (!name || REGISTERED.has(name)) return;
    REGISTERED.set(name, { panel: game.panel || null, describe: game.describe || {} });
    (game.bookkeeping || []).forEach((kind) => BOOKKEEPING.add(String(kind)));
    const known = GAMES.get(name);
    if (known) known.generic.clear();
    if (game.panel) {
      PANELS.push(game.panel);
      drawLater(game.panel);
    }
  }

  // Whether an event puts a card game in force or out of it (as the page last read them).
  function changesGames(e) {
    const now = { "rule.enacted": true, "rule.repealed": false }[e.kind];
    const game = e.payload && GAMES.get(e.payload.rule);
    return now !== undefined && game !== undefined && game.info.in_force !== now;
  }

  function inForce(name, games) {
    const game = GAMES.get(name);
    return Boolean((games && name in games) || (game && game.info.in_force));
  }

  // What the log says of a game's event: its panel's sentence, else its template.
  function gameSentence(kind) {
    const name = String(kind).split(".")[0];
    const own = REGISTERED.get(name);
    if (own && typeof own.describe[kind] === "function") return own.describe[kind];
    const game = GAMES.get(name);
    const template = game && game.info.describe && game.info.describe[kind];
    return template ? (e) => fill(template, e.payload) : null;
  }

  // "{a} challenged {b}" with the payload's fields; a field missing: no sentence.
  function fill(template, payload) {
    const text = template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, field) => {
      if (!(field in payload)) throw new Error("no " + field);
      const value = payload[field];
      return Array.isArray(value) ? value.join(", ") : String(value);
    });
    return /[.!?]$/.test(text) ? text : text + ".";
  }

  // --- forms for actions (the generic panel's and the Dealer's) -------------------------------

  function capital(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : text;
  }

  // "they_committed" -> "They committed".
  function words(name) {
    return capital(String(name).replace(/[-_]+/g, " ").trim()) || String(name);
  }

  // "<game>.commit" -> "Commit": an action's name, without its game's.
  function actionName(action) {
    return words(String(action).replace(/^[^.]*\./, ""));
  }

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  // A game's view, drawn from its JSON: objects as lists of terms, lists of objects as tables,
  // cards as cards, times in UTC, yes or no for true and false.
  function shown(value, label) {
    if (value === null || value === undefined) return el("span", "none", "muted");
    if (typeof value === "boolean") return el("span", value ? "yes" : "no");
    if (typeof value === "number") return el("span", value);
    if (typeof value === "string") {
      if (parseCard(value)) return cardText(value);
      if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) {
        const t = el("time", when(value));
        t.dateTime = value;
        return t;
      }
      return el("span", value);
    }
    if (Array.isArray(value)) {
      if (!value.length) return el("span", "none", "muted");
      if (value.every(isObject)) return viewTable(value, label);
      const list = el("ul", undefined, value.every((v) => parseCard(v)) ? "minis" : "view-list");
      value.forEach((v) => {
        const li = el("li");
        li.append(shown(v));
        list.append(li);
      });
      return list;
    }
    const entries = Object.entries(value);
    if (!entries.length) return el("span", "nothing", "muted");
    const terms = el("dl", undefined, "view-terms");
    entries.forEach(([k, v]) => {
      const dd = el("dd");
      dd.append(shown(v, words(k)));
      terms.append(el("dt", words(k)), dd);
    });
    return terms;
  }

  // A list of objects as a table, in a box of its own that scrolls on a narrow screen
  // (focusable, so the keyboard scrolls it too).
  function viewTable(rows, label) {
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const box = el("div", undefined, "view-scroll");
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", label || "Table");
    const table = el("table", undefined, "view-table");
    if (label) table.append(el("caption", label, "sr-only"));
    const head = el("tr");
    columns.forEach((c) => {
      const th = el("th", words(c));
      th.setAttribute("scope", "col");
      head.append(th);
    });
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    rows.forEach((r) => {
      const tr = el("tr");
      columns.forEach((c) => {
        const td = el("td");
        td.append(shown(r[c], words(c)));
        tr.append(td);
      });
      tbody.append(tr);
    });
    table.append(thead, tbody);
    box.append(table);
    return box;
  }

  // What to write in a field of each kind, beside the field's own words.
  const FIELD_HELP = {
    cards: "Cards as the game names them, separated by commas: for example Red Kd, Blue 10s.",
    "card-lists": "One hand a line, its cards separated by commas: for example Red Kd, Red Qd.",
  };

  function splitCards(text) {
    return text.split(",").map((t) => t.trim()).filter(Boolean);
  }

  // A field's value for the body; undefined when empty (the server says what is missing).
  function fieldValue(field, input) {
    const raw = input.value.trim();
    if (!raw) return undefined;
    if (field.kind === "int") return /^-?\d+$/.test(raw) ? parseInt(raw, 10) : raw;
    if (field.kind === "cards") return splitCards(raw);
    if (field.kind === "card-lists") {
      return raw.split("\n").map(splitCards).filter((hand) => hand.length);
    }
    return raw;
  }

  function fieldInput(field, id) {
    let input;
    if (field.kind === "player" || field.kind === "holder") {
      input = el("select");
      input.dataset.players = field.kind;
      fillPlayers(input);
    } else if (field.kind === "card-lists") {
      input = el("textarea");
      input.rows = 3;
      input.spellcheck = false;
    } else {
      input = el("input");
      input.type = field.kind === "int" ? "number" : "text";
      if (field.kind === "int") {
        input.step = "1";
        input.inputMode = "numeric";
      } else {
        input.spellcheck = false;
      }
      input.autocomplete = "off";
    }
    input.id = id;
    input.name = field.name;
    if (field.required) input.setAttribute("aria-required", "true");
    return input;
  }

  // A choice of player: every active player but the viewer (a "holder": the Deck too); the
  // choice made is kept.
  function fillPlayers(select) {
    const me = lastMine && lastMine.hand.player;
    const holder = select.dataset.players === "holder";
    const others = knownPlayers.filter((p) => holder ? !p.dealer : p.name !== me);
    const keep = select.value;
    part(select, [others, holder], () => {
      const none = el("option", holder ? "Choose" : "Choose a player");
      none.value = "";
      const deck = el("option", "the Deck");
      deck.value = "deck";
      return [none, ...(holder ? [deck] : []), ...others.map((p) => {
        const o = el("option", p.name + (p.dealer ? " (the Dealer)" : ""));
        o.value = p.name;
        return o;
      })];
    });
    if (keep === "deck" || others.some((p) => p.name === keep)) select.value = keep;
  }

  function fillPlayerChoices() {
    document.querySelectorAll("select[data-players]").forEach(fillPlayers);
  }

  // A form for an action from its declaration ({action, doc, scope, fields: [{name, kind,
  // required, doc}]}, as /api/v1/games lists them; `title` and `button`, words of its own),
  // with its answer slot right under its button.
  function actionForm(action, { id, token, say, confirm, reset = true }) {
    const box = el("div", undefined, "game-action");
    const form = el("form");
    form.id = id;
    form.noValidate = true;
    const set = el("fieldset");
    set.append(el("legend", action.title || actionName(action.action)));
    const about = el("p", action.doc, "help");
    about.id = id + "-doc";
    set.append(about);
    set.setAttribute("aria-describedby", about.id);
    const inputs = action.fields.map((f) => {
      const input = fieldInput(f, id + "-" + f.name);
      const label = el("label", capital(f.doc || words(f.name)) + (f.required ? "" : " (optional)"));
      label.htmlFor = input.id;
      set.append(label);
      if (FIELD_HELP[f.kind]) {
        const help = el("p", FIELD_HELP[f.kind], "help");
        help.id = input.id + "-help";
        input.setAttribute("aria-describedby", help.id);
        set.append(help);
      }
      set.append(input);
      return [f, input];
    });
    const submit = el("button", action.button || actionName(action.action));
    submit.type = "submit";
    submit.id = id + "-submit";
    const row = el("div", undefined, "row");
    row.append(submit);
    const answers = answerSlot(id + "-answer");
    form.append(set, row, answers);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = { action: action.action };
      inputs.forEach(([f, input]) => {
        const value = fieldValue(f, input);
        if (value !== undefined) body[f.name] = value;
      });
      await take({ body, token: token(), control: submit, slot: answers, say,
        confirm: confirm && confirm(body), sent: () => {
          if (!reset) return;
          form.reset();
          form.querySelectorAll("select").forEach((s) => { s.value = ""; });
        } });
    });
    box.append(form);
    return box;
  }

  // --- the generic panel --------------------------------------------------------------------

  function genericPanel(name) {
    const base = "game-" + name;
    return {
      root: null, token: null,

      build() {
        const info = GAMES.get(name).info;
        const root = el("section", undefined, "game-panel generic-panel");
        root.id = base;
        root.setAttribute("aria-labelledby", base + "-title");
        const title = el("h3", info.title || name);
        title.id = base + "-title";
        root.append(title);
        if (info.doc) root.append(el("p", info.doc, "help"));
        [["view", "What you see"], ["actions", "What you can do"]].forEach(([id, text]) => {
          const sec = el("section", undefined, "game-part");
          const h = el("h4", text);
          h.id = base + "-" + id + "-title";
          sec.setAttribute("aria-labelledby", h.id);
          const body = el("div");
          body.id = base + "-" + id;
          sec.append(h, body);
          root.append(sec);
        });
        return root;
      },

      render(hand, games, token) {
        const game = GAMES.get(name);
        const own = REGISTERED.get(name);
        const drawn = inForce(name, games) && !(own && own.panel)
          && (!game.info.panel || game.failed);
        if (!drawn) {
          this.clear();
          return;
        }
        if (!this.root) {
          this.root = this.build();
          slot(name).append(this.root);
        }
        this.token = token;
        const view = games ? games[name] : undefined;
        part($(base + "-view"), view === undefined ? null : view, () => [view === undefined
          ? el("p", "This game shows you nothing of its own.", "muted") : shown(view)]);
        this.actions(game.info, hand.dealer && isOfficer());
      },

      clear() {
        if (this.root) this.root.remove();
        this.root = null;
      },

      // A form for each action the viewer may take: a player's, and the Dealer's to the Dealer
      // with an officer token (the server takes those from an officer token only).
      actions(info, officer) {
        const mine = info.actions.filter(
          (a) => a.scope === "player" || (officer && a.scope === "dealer"));
        const body = $(base + "-actions");
        part(body, mine, () => mine.length ? mine.map((a) => {
          const id = "act-" + a.action.replace(/[^A-Za-z0-9_-]/g, "-");
          return actionForm({ ...a, doc: a.doc + (a.scope === "dealer"
            ? " (The Dealer's: it needs an officer token.)" : "") }, {
            id, token: () => this.token });
        }) : [el("p", "This game has no action for you.", "muted")]);
        body.querySelectorAll("select[data-players]").forEach(fillPlayers);
      },
    };
  }

  // The page's hook for the games' own panel scripts.
  window.NomicCards = Object.freeze({
    registerGame, slot, el, decorative, status, plural, part, when, timeLeft, isNew,
    parseCard, backOf, mini, minis, cardText, cardsText, send: act, reload,
    take, answerSlot, countdown, deadline, deadlineOf, passed, serverNow, clockError,
    isOfficer, sentence, actionForm, get,
  });

  function tokenFrom(text) {
    return text.trim().replace(/^bearer\s+/i, "").trim();
  }

  document.addEventListener("DOMContentLoaded", () => {
    gamesReady = loadGames();
    $("token-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const token = tokenFrom($("token").value);
      $("token").value = "";
      if (!token) {
        status("me-status", "Paste your token in the field first.", "error");
        $("token").focus();
        return;
      }
      sessionStorage.setItem(KEY, token);
      lastMine = null;
      loadMine(token);
    });
    $("forget").addEventListener("click", () => {
      forget("Your token is forgotten in this tab.");
      $("token").focus();
    });
    $("refresh").addEventListener("click", () => {
      loadPublic();
      syncClock();
      const saved = sessionStorage.getItem(KEY);
      if (saved) loadMine(saved);
    });
    $("log-all").addEventListener("click", () => {
      const all = $("log").classList.toggle("all");
      $("log-all").setAttribute("aria-pressed", all ? "true" : "false");
      countLog();
    });
    loadPublic();
    syncClock();
    setInterval(tick, 200);
    setInterval(syncClock, 5 * 60 * 1000);  // a device asleep, or a clock moved
    const saved = sessionStorage.getItem(KEY);
    if (saved) loadMine(saved);
    else follow(null);
  });
})();
