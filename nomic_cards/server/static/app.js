"use strict";
// The page: the public record for everyone, and a player's own hand and notices once they paste
// their token (the Dealer's table, with an officer token). The token lives in this tab's
// sessionStorage and travels only in the Authorization header of requests to /api/v1/me*; it
// is never put in an address. The page follows the ledger live: one event stream
// (/api/v1/events, or /api/v1/me/events with the token, read with fetch so the token stays in
// a header), resumed from the last event seen; each event's sentence is the server's (`text`).
//
// What the page knows is held in `S`; each part of the page is a function from it to a tree
// (render.js: h), patched into its container in place by render() whenever what it shows may
// have changed (draw). A patch keeps every node it can, so the focus, what a player is typing,
// an open confirmation and an answer stay through every redraw, and the browser's own scroll
// anchoring keeps in place what the player reads (style.css: .keep-place). Server text is
// always shown as text.
//
// Time on the page is the server's: every countdown is computed from an absolute time the
// server gave and the server's clock, known as an offset from this device's monotonic clock
// (see "the server's clock"); the nweek and nday roll over at their boundary without an event.
// Each part of the page loads, fails and retries on its own; every action's answer appears
// beside the control that took it, in a live region.
(function () {
  const { h, render } = window.NomicRender;
  const KEY = "nomic-cards-token";
  // The last event seen on an earlier visit (not a secret: a number), to mark what is new.
  const SEEN = "nomic-cards-seen";
  const $ = (id) => document.getElementById(id);
  const SUITS = {
    d: { symbol: "\u2666", colour: "red" }, s: { symbol: "\u2660", colour: "black" },
    h: { symbol: "\u2665", colour: "red" }, c: { symbol: "\u2663", colour: "black" },
  };
  const RANK_NAMES = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };
  const SUIT_NAMES = { d: "Diamonds", s: "Spades", h: "Hearts", c: "Clubs" };
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
  // The record's own bookkeeping: folded away in the log (unless it carries the reader's own
  // notice) behind "Show every event". A card game adds its own (registerGame's `bookkeeping`).
  const BOOKKEEPING = new Set(["notice.given", "notice.sealed", "notice.sent", "notice.failed",
    "notices.mailed", "reports.posted", "player.email_set", "dice.committed"]);
  const seenBefore = parseInt(localStorage.getItem(SEEN) || "", 10);
  // The parts that hold actions' answer slots: drawn again when an answer changes.
  const ANSWERED = ["games", "dealer", "decisions"];

  // Everything the page has read, and what the player did on it.
  const S = {
    game: null, deck: null, players: null, dice: null, reports: null, reportText: null,
    head: null,
    // the standings (GET /api/v1/points), and each account's history read, by its path
    points: null,
    histories: new Map(),
    // the token's player: {token, me, hand, notices, votes, games} (each the last read)
    mine: null,
    // every installed card game by name: {info (from /api/v1/games), script (its panel's
    // loading, a promise), failed}
    games: new Map(),
    // what the games' own scripts registered, by name: {render}
    registered: new Map(),
    rules: [],  // /api/v1/rules: each game's parameters
    // the nomic's decisions: the list ({data, head}: the ledger head it was read at) and each
    // decision read whole, by id ({data, head})
    decisions: null,
    details: new Map(),
    log: [],  // the events seen, newest first
    logAll: false,  // the bookkeeping shown
    // each action's answer by its id: {text, kind, data, after, confirm}
    answers: new Map(),
    // the player's last action until e moves on: {id (its answer's), control}; its answer
    // keeps its place on the screen meanwhile
    held: null,
    tokenOpen: false,  // the token box opened again after signing in
  };

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  function sleep(ms) {
    return new Promise((done) => setTimeout(done, ms));
  }

  function when(iso) {
    return String(iso).replace("T", " ").replace(/(:\d\d)?(\.\d+)?Z$/, " UTC");
  }

  function isNew(event) {
    return Number.isFinite(seenBefore) && event > seenBefore;
  }

  // --- drawing ------------------------------------------------------------------------------
  //
  // Each part, by name: it renders its containers from S. draw() asks for parts; they are
  // drawn once the code running now is done (several changes, one patch), or at once by
  // flush().

  const PARTS = {};
  const dirty = new Set();

  function draw(...names) {
    if (!dirty.size) queueMicrotask(flush);
    names.forEach((n) => dirty.add(n));
  }

  function flush() {
    const names = [...dirty];
    dirty.clear();
    names.forEach((n) => PARTS[n]());
    // the control of the player's last action gone with what it acted on (an offer accepted
    // leaves its list), the focus with it: the focus goes to the action's answer, never to
    // the page's body
    const last = S.held;
    if (last && !last.control.isConnected && document.activeElement === document.body) {
      const answer = $(last.id);
      if (answer) answer.focus({ preventScroll: true });
    }
  }

  // A status line: the part's trouble (with what the page does next), or a sentence of its own.
  function status(id, text, kind) {
    const line = $(id);
    if (!line) return;
    render(line, text);
    line.classList.toggle("error", kind === "error");
    line.classList.toggle("ok", kind === "ok");
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

  // A resource's answer (revalidated: a copy is used only while its ETag is current), or its
  // trouble as an Error with the status and one sentence.
  async function answerOf(path, token) {
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
    return r;
  }

  async function get(path, token, asText) {
    const r = await answerOf(path, token);
    return asText ? r.text() : r.json();
  }

  // A public resource and the ledger head it was read at (its ETag: "812-3fa9...").
  async function getAt(path) {
    const r = await answerOf(path);
    const m = /^(?:W\/)?"(\d+)-/.exec(r.headers.get("ETag") || "");
    return { data: await r.json(), head: m ? parseInt(m[1], 10) : 0 };
  }

  // An action of a game, for the token's player; the server's one sentence on refusal.
  async function send(body, token) {
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

  // A part of the page that loads on its own: its failure is said in its own status line
  // (with what the page does next), and it tries again by itself -- 2, 4, 8 ... up to 60
  // seconds apart -- while the rest of the page goes on. `run(current)` loads it;
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

  // --- cards and backs ----------------------------------------------------------------------

  // What each pack's Back looks like, by pack name (a Back is named by its pack).
  function backText(back) {
    const pack = S.game && S.game.packs.find((p) => p.name === back);
    return pack ? pack.back : "";
  }

  // A drawing of a pack's Back (decorative: the Back's name and description are text nearby).
  function backOf(pack, cls) {
    const key = String(pack).toLowerCase();
    if (DRAWN_BACKS.includes(key)) {
      return h("span", { class: cls + " back back-" + key, "aria-hidden": "true" });
    }
    let hue = 0;
    for (const ch of String(pack)) hue = (hue * 31 + ch.codePointAt(0)) % 360;
    return h("span", { class: cls + " back back-other", "aria-hidden": "true",
                       style: { "--hue": String(hue) } });
  }

  // "Red 10h" -> {pack: "Red", rank: "10", suit: "h"}; null if the text is not a card.
  function parseCard(text) {
    const m = /^(.*\S)\s+(10|[2-9AJQK])([dshc])$/i.exec(String(text));
    return m ? { pack: m[1], rank: m[2].toUpperCase(), suit: m[3].toLowerCase() } : null;
  }

  function faceName(face) {
    return (RANK_NAMES[face.rank] || face.rank) + " of " + SUIT_NAMES[face.suit];
  }

  function corner(rank, suit, where) {
    return h("span", { class: "corner " + where }, h("span", { class: "rank" }, rank),
      h("span", { class: "pip" }, suit.symbol));
  }

  function faceOf(face) {
    const suit = SUITS[face.suit];
    let middle;
    if (face.rank === "A") {
      middle = h("span", { class: "ace" }, suit.symbol);
    } else if ("JQK".includes(face.rank)) {
      middle = h("span", { class: "court" }, h("span", { class: "court-rank" }, face.rank),
        h("span", { class: "court-pip" }, suit.symbol));
    } else {  // the pips below the middle are drawn upside down
      middle = PIPS[face.rank].map(([x, y]) => h("span", {
        class: ["pip", x, y, parseInt(y.slice(2), 10) > 50 && "flip"] }, suit.symbol));
    }
    return h("span", { class: "face suit-" + suit.colour, "aria-hidden": "true" },
      corner(face.rank, suit, "top"), h("span", { class: "middle" }, middle),
      corner(face.rank, suit, "bottom"));
  }

  function cardItem(c) {
    const face = parseCard(c.card);
    return h("li", { class: "card", key: c.number },
      h("span", { class: "art", "aria-hidden": "true" }, backOf(c.back, "card-back"),
        face ? faceOf(face) : h("span", { class: "face plain" }, c.card)),
      h("span", { class: "caption" }, h("span", { class: "name" }, c.name),
        h("span", { class: "number" }, "card " + c.number),
        h("span", { class: "sr-only" }, ", " + c.back + " back")));
  }

  // A card drawn small: rank and suit in its colour; its name said in text.
  function mini(label) {
    const face = parseCard(label);
    if (!face) return h("span", { class: "mini" }, label);
    const suit = SUITS[face.suit];
    return h("span", { class: "mini suit-" + suit.colour, title: label },
      backOf(face.pack, "swatch tiny"), h("span", { "aria-hidden": "true" }, face.rank + suit.symbol),
      h("span", { class: "sr-only" }, faceName(face) + " (" + face.pack + ")"));
  }

  // Cards drawn small, in a list (labels, or cards {card}).
  function minis(labels, cls) {
    return h("ul", { class: ["minis", cls] },
      labels.map((c) => h("li", null, mini(typeof c === "string" ? c : c.card))));
  }

  // A card as the game names it ("Fish Kd"), in its suit's colour beside its Back: the text
  // a form asks for.
  function cardText(label) {
    const face = parseCard(label);
    if (!face) return h("span", { class: "mini card-text" }, label);
    return h("span", { class: "mini card-text suit-" + SUITS[face.suit].colour },
      backOf(face.pack, "swatch tiny"), h("span", null, label),
      h("span", { class: "sr-only" }, " (" + faceName(face) + ")"));
  }

  function cardsText(labels) {
    return labels.join(", ");
  }

  // --- the public record ----------------------------------------------------------------------

  function backCell(pack) {
    return h("th", { scope: "row" }, backOf(pack, "swatch"), h("span", null, pack));
  }

  PARTS.deck = () => {
    const deck = S.deck;
    if (!deck) return;
    render($("deck").tBodies[0], deck.by_back.map((b) => h("tr", { key: b.back },
      backCell(b.back), h("td", { class: "back-text" }, backText(b.back)),
      h("td", { class: "num" }, b.cards))));
    render($("deck-total"), deck.total + " of " + deck.sides);
  };

  // The active players ({name, dealer}): a form's choice of player.
  function activePlayers() {
    return S.players ? S.players.players.filter((p) => p.active) : [];
  }

  PARTS.players = () => {
    if (!S.players) return;
    render($("players").tBodies[0], activePlayers().map((p) => {
      let backs;
      if (p.dealer) backs = "The Dealer holds the Deck.";
      else if (!p.by_back.length) backs = "No cards.";
      else {
        backs = h("ul", { class: "chips" }, p.by_back.map((b) => h("li", { key: b.back },
          backOf(b.back, "swatch"), h("span", null, b.cards + " " + b.back))));
      }
      return h("tr", { key: p.name },
        h("th", { scope: "row" }, p.name, p.dealer && [" ", h("span", { class: "tag" }, "Dealer")]),
        h("td", { class: "num" }, p.dealer ? "—" : p.cards), h("td", null, backs));
    }));
  };

  PARTS.dice = () => {
    if (!S.dice) return;
    render($("dice").tBodies[0], S.dice.length ? S.dice.map((d) => h("tr", { key: d.period },
      h("th", { scope: "row" }, d.period), h("td", { class: "num" }, d.rolls),
      h("td", { class: "hash" }, d.commitment),
      d.seed ? h("td", { class: "hash" }, d.seed) : h("td", { class: "muted" }, "not revealed yet")))
      : h("tr", null, h("td", { colspan: "4" }, "No dice period has been opened yet.")));
  };

  PARTS.report = () => {
    const reports = S.reports || [];
    render($("report-links"), [
      h("li", { key: "atom" }, h("a", { href: "/reports.atom" }, "Follow the reports (Atom feed)")),
      reports.map((r) => h("li", { class: "earlier", key: r.nweek },
        h("a", { href: "/api/v1/reports/" + r.nweek + "?format=text" }, "nweek " + r.nweek + " (text)"),
        " · ", h("a", { href: "/api/v1/reports/" + r.nweek + "?format=markdown" }, "Markdown")))]);
    if (!reports.length) return;
    const latest = reports[0];
    // a line a span, wrapped to the box's width, a long line going on under itself indented;
    // the text itself exactly as published
    const lines = String(S.reportText || "").split("\n");
    const lineOf = (line, i, text) => {
      const hang = line.length - line.trimStart().length + 2;  // under its own first word
      return h("span", { class: "line", key: i, style: { "padding-left": hang + "ch",
                                                         "text-indent": -hang + "ch" } }, text);
    };
    render($("report"), lines.map((line, i) => i === lines.length - 1
      ? (line ? lineOf(line, i, line) : null) : lineOf(line, i, line + "\n")));
    render($("report-meta"), "nweek " + latest.nweek + ", published " +
      latest.published.replace("T", " ").replace("Z", " UTC") + " (event " + latest.event + ")");
  };

  // The standings: every player's Points and the Bank's, each with its history (the
  // account's movements, newest first) behind a disclosure, read when it is opened and again
  // with the standings while it is open.
  const HISTORY_SHOWN = 20;

  function signed(n) {
    return n > 0 ? "+" + n : n < 0 ? "\u2212" + -n : "0";
  }

  // A movement as the account sees it: "+3 from the Bank", "-2 to ben".
  function movementItem(account, bank, m) {
    const isMine = (side) => bank ? side === "Bank" : side === account;
    const into = isMine(m.target) && !isMine(m.source);
    const other = into ? m.source : m.target;
    const pts = into ? m.points : -m.points;
    const whom = other === "Bank" ? "the Bank" : other;
    return h("li", { key: m.event + "-" + m.source + "-" + m.target + "-" + m.points },
      h("span", { class: ["pts", pts < 0 && "out"] }, signed(pts)), " ",
      into ? "from " + whom : "to " + whom,
      m.rule ? " · rule " + m.rule : "", m.note ? " · " + m.note : "", " · ",
      h("time", { datetime: m.at }, when(m.at)), " (event " + m.event + ")");
  }

  function historyOf(row) {
    const read = S.histories.get(row.history);
    if (!read) return h("p", { class: "muted" }, "Reading the history…");
    const moves = read.movements;
    if (!moves.length) return h("p", { class: "muted" }, "No Points have moved in or out yet.");
    return [h("ol", { class: "movements", key: "moves" },
      moves.slice(0, HISTORY_SHOWN).map((m) => movementItem(row.account, row.bank, m))),
      moves.length > HISTORY_SHOWN && h("p", { class: "meta", key: "more" },
        plural(moves.length - HISTORY_SHOWN, "earlier movement") + " in the full history.")];
  }

  async function loadHistory(path) {
    try {
      S.histories.set(path, await get(path));
    } catch (e) {
      status("standings-status", e.message, "error");
      return;
    }
    draw("standings");
  }

  function historyId(row) {
    return "history-" + (row.bank ? "bank" : "player-" + row.account.replace(/[^A-Za-z0-9_-]/g, "_"));
  }

  PARTS.standings = () => {
    const p = S.points;
    if (!p) return;
    render($("standings").tBodies[0], p.standings.map((row) => h("tr", {
      key: (row.bank ? "bank:" : "player:") + row.account, class: row.bank ? "bank" : null },
    h("th", { scope: "row" }, row.bank ? "The Bank" : row.account),
    h("td", { class: ["num", row.points < 0 && "negative"] }, signed(row.points)),
    h("td", null, h("details", { id: historyId(row), class: "history",
                                 ontoggle: (ev) => { if (ev.currentTarget.open) loadHistory(row.history); } },
      h("summary", null, (row.bank ? "The Bank's" : row.account + "'s") + " history"),
      historyOf(row),
      h("p", { class: "meta" }, h("a", { href: row.history }, "The whole history (JSON)")))))));
    render($("standings-caption"), "Points by account, as of event " + p.as_of);
  };

  PARTS.head = () => {
    if (S.head) render($("head"), "event " + S.head.event + ", " + S.head.hash);
  };

  // The game line: what /api/v1/game said (the Dealer, the Clock, the nweek and nday as of
  // `now`, moved on with the server's clock) and the Deck's count, with the next nweek's
  // countdown.
  PARTS.line = () => {
    const game = S.game;
    if (!game) return;
    const at = position(game, serverNow());
    const parts = ["Dealer: " + (game.dealer || "none")];
    if (at) parts.push("nweek " + at.nweek + ", nday " + at.nday);
    parts.push("the Clock is " + (game.clock_running ? "On" : "Off"));
    if (S.deck) parts.push(S.deck.total + " of " + S.deck.sides + " cards in the Deck");
    render($("game-line"), parts.join(" · "));
    let count = "";
    if (at && at.next) {
      const iso = new Date(at.next).toISOString();
      count = "nweek " + (at.nweek + 1) + " begins in " + timeLeft(iso) + " (" + when(iso) + ")";
    } else if (game.nweek) {
      count = "The Clock is Off: the next nweek waits for it.";
    }
    render($("countdown"), count);
  };

  const loadGame = loader("public-status", async (current) => {
    const game = await readGameClock();
    if (!current()) return;
    S.game = game;
    draw("line", "deck", "hand");
    scheduleRollover();
  }, () => {
    if (!S.game) render($("game-line"), "The game could not be loaded.");
  });

  const loadDeck = loader("deck-status", async (current) => {
    const deck = await get("/api/v1/deck");
    if (!current()) return;
    S.deck = deck;
    draw("deck", "line");
  });

  const loadPlayers = loader("players-status", async (current) => {
    const players = await get("/api/v1/players");
    if (!current()) return;
    S.players = players;
    draw("players", "log", "dealer", "games", "decisions");
  });

  const loadDice = loader("dice-status", async (current) => {
    const dice = await get("/api/v1/dice");
    if (!current()) return;
    S.dice = dice;
    draw("dice");
  });

  const loadReports = loader("report-status", async (current) => {
    const reports = await get("/api/v1/reports");
    const text = reports.length
      ? await get("/api/v1/reports/" + reports[0].nweek + "?format=text", null, true) : null;
    if (!current()) return;
    S.reports = reports;
    S.reportText = text;
    draw("report");
  });

  const loadPoints = loader("standings-status", async (current) => {
    const points = await get("/api/v1/points");
    if (!current()) return;
    S.points = points;
    // the histories open are read again with the standings; the others when next opened
    const open = points.standings.filter((row) => {
      const node = $(historyId(row));
      return node && node.open;
    });
    S.histories.clear();
    await Promise.all(open.map((row) => get(row.history).then(
      (read) => S.histories.set(row.history, read), () => null)));
    if (!current()) return;
    draw("standings");
  });

  const loadHead = loader("head-status", async (current) => {
    const head = await get("/api/v1/ledger/head");
    if (!current()) return;
    S.head = head;
    shownHead = Math.max(shownHead, head.event);
    draw("head");
  });

  function loadPublic() {
    loadGame();
    loadDeck();
    loadPlayers();
    loadDice();
    loadReports();
    loadPoints();
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

  // At the next nday's boundary, /api/v1/game is read again (a second after it, on the
  // server's clock): the line has already rolled over by itself; the read checks it.
  let rollover = 0;

  function scheduleRollover() {
    clearTimeout(rollover);
    const at = position(S.game, serverNow());
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

  // A countdown to `iso`: "in 2 days 03:04:05", or `done` once it has passed (the parts that
  // show countdowns are drawn five times a second).
  function countdown(iso, done) {
    const over = passed(iso);
    return h("span", { class: ["left", over && "over"] },
      over ? done || "passed" : "in " + timeLeft(iso));
  }

  // A deadline: "By 2026-01-08 00:00 UTC, in 2 days 03:04:05" (or "the deadline has passed").
  function deadline(iso, what, props) {
    return h("span", { class: "by", ...props }, (what || "By") + " ",
      h("time", { datetime: iso }, when(iso)), ", ", countdown(iso, "the deadline has passed"));
  }

  // A notice's deadline: its "By:" line (what waits for the player, and by when), or null.
  function deadlineOf(text) {
    const m = /^By: (\S+)$/m.exec(String(text));
    return m && Number.isFinite(Date.parse(m[1])) ? m[1] : null;
  }

  // --- the player's own hand, notices and votes ----------------------------------------------

  // The hand grouped by Back; the server lists cards by number, so packs come in their order.
  PARTS.hand = () => {
    const hand = S.mine && S.mine.hand;
    if (!hand) {
      render($("hand"), null);
      return;
    }
    const groups = new Map();
    hand.cards.forEach((c) => {
      if (!groups.has(c.back)) groups.set(c.back, []);
      groups.get(c.back).push(c);
    });
    render($("hand"), groups.size ? [...groups].map(([back, cards], i) =>
      h("section", { class: "pack-group", key: back, "aria-labelledby": "back-" + i },
        h("h4", { class: "pack-title", id: "back-" + i }, backOf(back, "swatch large"),
          h("span", null, back + " back"),
          h("span", { class: "count" }, " · " + plural(cards.length, "card"))),
        h("ul", { class: "cards", "aria-labelledby": "back-" + i }, cards.map(cardItem))))
      : h("p", { class: "empty" }, "You hold no cards yet."));
    PARTS.brief();
  };

  // The hand in brief, at the top of the player's table: the count by Back (the most first)
  // and every card drawn small; each Back's description is the Deck's, said once on the page.
  PARTS.brief = () => {
    const hand = S.mine && !S.mine.me.dealer ? S.mine.hand : null;
    if (!hand) {
      render($("hand-brief"), null);
      return;
    }
    const counts = new Map();
    hand.cards.forEach((c) => counts.set(c.back, (counts.get(c.back) || 0) + 1));
    const byBack = [...counts].sort((a, b) => b[1] - a[1]);
    render($("hand-brief"), h("section", { class: "hand-brief", id: "hand-brief-part",
                                           "aria-labelledby": "hand-brief-title" },
      h("h3", { id: "hand-brief-title" }, "Your hand in brief"),
      hand.cards.length
        ? [h("p", { class: "brief-count", id: "hand-brief-count", key: "count" },
          plural(hand.cards.length, "card") + ": " +
            byBack.map(([back, n]) => n + " " + back).join(", ") + " · ",
          h("a", { href: "#hand-part" }, "every card, drawn")),
        minis(hand.cards.map((c) => c.card), "hand-minis")]
        : h("p", { class: "muted" }, "You hold no cards yet.")));
  };

  // How a deal was rolled: the number of rolls and the dice, never the numbers rolled
  // (a reroll names a card that is in someone else's hand).
  function rollsText(n) {
    const how = n.dice === "committed" ? "the committed die" : (n.dice || "") + " dice";
    return "Dealt in " + plural(n.rolls, "roll") + " of " + how + ".";
  }

  PARTS.notices = () => {
    const notices = S.mine && S.mine.notices;
    render($("notices"), !notices ? null : notices.length ? notices.map((n) => h("li", { key: n.event },
      h("time", { class: "when", datetime: n.at }, n.at.replace("T", " ").replace("Z", " UTC")),
      h("span", { class: "text" }, n.text),  // a deadline's "By:" line and all
      n.rolls ? h("span", { class: "rolls" }, rollsText(n)) : null))
      : h("li", { class: "empty" }, "No notices yet."));
  };

  PARTS.votes = () => {
    const votes = S.mine && S.mine.votes;
    render($("votes").tBodies[0], !votes ? null : votes.length ? votes.map((v, i) => h("tr", { key: i },
      h("th", { scope: "row" }, v.proposal),
      h("td", null, v.nweek !== null && [h("span", { class: "nweek" }, "nweek " + v.nweek), " "],
        h("time", { datetime: v.at },
          v.at.replace("T", " ").replace(/:\d\d(\+00:00|Z)$/, " UTC"))),
      h("td", { class: v.earned.length ? null : "muted" }, v.earned.length
        ? v.earned.map((c) => c.name + " (" + c.back + " back, card " + c.number + ")").join(", ")
        : "not dealt yet")))
      : h("tr", null, h("td", { colspan: "3" }, "No vote of yours has been recorded yet.")));
  };

  // The player's line -- or the Dealer's, who holds no hand: the Deck and the table instead.
  PARTS.mine = () => {
    const m = S.mine;
    $("me").hidden = !m;
    $("forget").hidden = !m && !sessionStorage.getItem(KEY);
    tokenBox();
    const dealer = Boolean(m && m.me.dealer);
    render($("me-title"), dealer ? "The Dealer's table" : "Your hand");
    $("hand-part").hidden = dealer;
    $("dealer-table").hidden = !isOfficer();
    // the Dealer holds no hand and earns no Cards for Votes: no votes of eir own here
    ["votes-title", "votes-status", "votes"].forEach((id) => { $(id).hidden = dealer; });
    ["hand", "brief", "notices", "votes", "games", "dealer", "decisions"].forEach((n) => PARTS[n]());
  };

  function meLine(me, hand) {
    const asOf = hand ? " (as of event " + hand.as_of + ")" : "";
    if (!me.dealer) {
      return me.name + ", you hold " + plural(hand ? hand.cards.length : me.cards, "card") +
        asOf + ".";
    }
    return me.name + ", you are the Dealer: the Deck holds " + plural(me.cards, "card") + asOf +
      ". " + (me.scope === "dealer" ? "Your officer token takes the Dealer's actions below."
      : "This token is your own, not an officer token: the Dealer's actions need one " +
        "(nomic-cards token issue " + me.name + " --scope dealer).");
  }

  // Signed in, the token box folds away ("Use another token" opens it again; a focus in it
  // goes there); a token kept but not read (the server busy) can still be forgotten.
  function tokenBox() {
    const m = S.mine;
    const form = $("token-form");
    const had = form.contains(document.activeElement);
    form.hidden = Boolean(m) && !S.tokenOpen;
    $("change-token").hidden = !m || S.tokenOpen;
    $("signed-in").hidden = $("forget").hidden && $("change-token").hidden;
    if (had && form.hidden) $("change-token").focus({ preventScroll: true });
  }

  function isOfficer() {
    const me = S.mine && S.mine.me;
    return Boolean(me && me.dealer && me.scope === "dealer");
  }

  // The panel is busy while any load of the hand is under way.
  function busy(delta) {
    pending += delta;
    $("me-panel").setAttribute("aria-busy", pending > 0 ? "true" : "false");
  }

  // Each load of the hand is numbered; a load draws what it read unless a later one has
  // drawn already (so an answer read while a newer load is under way is not thrown away),
  // and never for a token no longer the tab's.
  let mineGen = 0, mineShown = 0, pending = 0, mineRetry = 0;

  function forget(message) {
    mineShown = ++mineGen;
    sessionStorage.removeItem(KEY);
    S.mine = null;
    S.answers.clear();
    S.held = null;
    if (following) follow(null);
    ["notices-status", "votes-status", "hand-status", "games-status"].forEach((id) => status(id, ""));
    clearTimeout(mineRetry);
    if (message) status("me-status", message, "ok");
    draw("mine");
  }

  // The token's player (/api/v1/me, which says whether the token is good and what it may do),
  // then eir hand, notices, votes and card games, each drawn as it comes (a failure of one
  // is said where it belongs, and the rest is drawn).
  async function loadMine(token) {
    const gen = ++mineGen;
    busy(+1);
    if (!S.mine) status("me-status", "Loading your hand…");
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
      const refused = [hand, notices, votes, games].find((r) => r.error && r.error.status === 401);
      if (refused) throw refused.error;
      if (following !== token) follow(token);  // the token is good: its own stream
      const was = S.mine && S.mine.token === token ? S.mine : {};
      const read = (r, name) => r.error ? was[name] : r.value;
      S.mine = { token, me, hand: read(hand, "hand"), notices: read(notices, "notices"),
                 votes: read(votes, "votes"), games: read(games, "games") };
      status("me-status", meLine(me, hand.value), "ok");
      [["hand-status", hand], ["notices-status", notices], ["votes-status", votes],
       ["games-status", games]].forEach(([id, r]) => status(id, r.error
        ? r.error.message + " The page tries again in 5 seconds." : "", r.error ? "error" : ""));
      if (games.value) {
        Object.keys(games.value.games).forEach((name) => {  // a game come into force since
          if (S.games.has(name)) loadPanel(S.games.get(name));
        });
      }
      if (hand.value && games.value) {
        // the hand and the games' views come by separate requests, each read at a head of its
        // own: an event after the older of the two makes them read again
        mineHead = Math.max(mineHead, Math.min(hand.value.as_of, games.value.as_of));
      }
      draw("mine");
      clearTimeout(mineRetry);
      if ([hand, notices, votes, games].some((r) => r.error)) {
        mineRetry = setTimeout(() => reload(token), 5000);  // each failed part says so
      }
    } catch (e) {
      if (gen !== mineGen) return;
      if (e.status === 401) forget();
      else {
        $("forget").hidden = !sessionStorage.getItem(KEY);
        tokenBox();
      }
      status("me-status", e.message, "error");
    } finally {
      busy(-1);
    }
  }

  // The player's view read again after an action, unless the token was forgotten meanwhile.
  function reload(token) {
    if (token && sessionStorage.getItem(KEY) === token) return loadMine(token);
    return Promise.resolve();
  }

  // --- actions: answers beside their controls -------------------------------------------------
  //
  // An action's answer lives in S.answers under the id of its answer slot (answerSlot: a
  // confirmation when the action asks for one, then the answer, a live region), drawn with
  // the part that holds the slot. The answer of the player's last action keeps its place on
  // the screen through every redraw until the player moves on (a click, a key, a touch, the
  // wheel): it is marked .keep-place, which makes it the browser's scroll anchor (an open
  // confirmation, likewise).

  function anyConfirmOpen() {
    return [...S.answers.values()].some((a) => a.confirm);
  }

  function answerSlot(id, show) {
    const a = S.answers.get(id) || {};
    const c = a.confirm;
    const said = a.text === undefined ? null : show ? show(a) : a;
    const keep = S.held !== null && S.held.id === id && !anyConfirmOpen();
    return h("div", { class: "answer-slot", id: id + "-slot" },
      h("div", { class: ["confirm", c && "keep-place"], id: id + "-confirm", hidden: !c,
                 role: c ? "group" : null, "aria-labelledby": c ? id + "-confirm-text" : null,
                 onkeydown: c ? (ev) => { if (ev.key === "Escape") c.finish(false); } : null },
        c && [h("p", { class: "question", id: id + "-confirm-text" }, c.question),
          h("div", { class: "row" },
            h("button", { type: "button", id: id + "-confirm-yes", onclick: () => c.finish(true) },
              c.yes),
            h("button", { type: "button", id: id + "-confirm-no", class: "quiet",
                          onclick: () => c.finish(false) }, "Cancel"))]),
      h("p", { id, class: ["status answer", said && said.kind, keep && "keep-place"],
               tabindex: "-1", "aria-live": "polite", "aria-atomic": "true" },
        said ? said.text : ""));
  }

  // Says an answer in a slot: {text, kind ("ok", "error" or none), data (the action's
  // answer)}, noting the last event seen then (`after`).
  function say(id, text, kind, data) {
    const a = S.answers.get(id) || {};
    S.answers.set(id, { ...a, text, kind: kind || "", data: data || null,
                        after: S.log.length ? S.log[0].event : 0 });
    draw(...ANSWERED);
  }

  // Asks first, in the control's slot: resolves true for yes. The focus goes to the yes
  // button, and back to the control after a no.
  function ask(id, control, { question, yes }) {
    const open = S.answers.get(id);
    if (open && open.confirm) open.confirm.finish(false);  // another question, in its place
    return new Promise((done) => {
      const finish = (answer) => {
        const a = S.answers.get(id);
        if (!a || a.confirm !== confirm) return;
        S.answers.set(id, { ...a, confirm: null });
        draw(...ANSWERED);
        flush();
        const back = control.isConnected ? control : $(id);
        if (back) back.focus({ preventScroll: true });
        done(answer);
      };
      const confirm = { question, yes, finish };
      S.answers.set(id, { ...(S.answers.get(id) || {}), confirm });
      draw(...ANSWERED);
      flush();
      const button = $(id + "-confirm-yes");
      if (button) button.focus({ preventScroll: true });
      show($(id + "-confirm"));
    });
  }

  // What the player's own act just opened or said (a confirmation, an answer) is shown
  // whole, as a focus shows what it moves to: the one scroll the page makes.
  function show(node) {
    if (!node) return;
    const box = node.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) node.scrollIntoView({ block: "nearest" });
  }

  // What a form holds, by field name: a checkbox's (or radio's) name gives the list of the
  // values checked, any other field its value.
  function valuesOf(form) {
    const values = {};
    for (const f of form.elements) {
      if (!f.name) continue;
      if (f.type === "checkbox" || f.type === "radio") {
        values[f.name] = values[f.name] || [];
        if (f.checked) values[f.name].push(f.value);
      } else {
        values[f.name] = f.value;
      }
    }
    return values;
  }

  // Sets a form's fields: each named field to `values[name]` (a list: the checkboxes of those
  // values ticked), any other emptied; `names` limits it to those fields.
  function fill(form, values, names) {
    const node = typeof form === "string" ? $(form) : form;
    if (!node) return;
    for (const f of node.elements) {
      if (!f.name || (names && !names.includes(f.name))) continue;
      const v = values[f.name];
      if (f.type === "checkbox" || f.type === "radio") f.checked = [].concat(v || []).includes(f.value);
      else f.value = v === undefined || v === null ? "" : String(v);
    }
  }

  // The listener that takes an action from a control (onclick) or a form (onsubmit):
  // `body`, or body(values of the form) (null: nothing to send; say() why), sent for the
  // token's player; first a confirmation when `confirm` ({question, yes}, or a function of
  // the body) is given; then the answer in the slot `answer` -- `say(data, body)`, else the
  // server's summary -- or the refusal; `reset` (true, or a list of field names) empties the
  // form's fields once it is done; `settle(data, body)` (the page's own parts: a promise)
  // reads again what the answer is about before the answer is said, so that the part never
  // contradicts it; the player's view is read again. The control keeps the focus (the answer
  // takes it if the control is gone).
  function act(body, { answer, confirm, say: saying, reset, settle }) {
    return (ev) => {
      if (ev) ev.preventDefault();
      const form = ev && ev.type === "submit" ? ev.currentTarget : null;
      const control = form ? ev.submitter || form.querySelector("[type=submit]") : ev.currentTarget;
      const b = typeof body === "function" ? body(form ? valuesOf(form) : {}) : body;
      if (b) take(b, control, form, answer, confirm, saying, reset, settle);
    };
  }

  async function take(body, control, form, id, confirm, saying, reset, settle) {
    if (control.getAttribute("aria-disabled") === "true") return;  // under way
    const token = S.mine && S.mine.token;
    const question = typeof confirm === "function" ? confirm(body) : confirm;
    if (question && !(await ask(id, control, question))) return;
    control.setAttribute("aria-disabled", "true");  // not disabled: it keeps the focus
    if (document.activeElement !== control) control.focus({ preventScroll: true });  // Enter
    S.held = { id, control };
    say(id, "Sending…");
    let data = null;
    try {
      data = await send(body, token);
      if (settle) await settle(data, body).catch(() => null);  // its part says its trouble
      say(id, saying ? saying(data, body) : data.summary || (data.waiting ? "Waiting." : "Done."),
        "ok", data);
      if (reset && form) fill(form, {}, reset === true ? null : reset);
    } catch (e) {
      say(id, e.message, "error");
    } finally {
      control.removeAttribute("aria-disabled");
    }
    flush();
    show($(id));
    if (data) await reload(token);
  }

  // The player moves on: the answer held lets go of its place.
  ["pointerdown", "keydown", "wheel", "touchstart"].forEach((type) =>
    window.addEventListener(type, () => {
      if (S.held === null) return;
      S.held = null;
      draw(...ANSWERED);
    }, { capture: true, passive: true }));

  // The server's summary as the answer of a control: "Done: dealt ann a card."
  function sentence(text) {
    const t = String(text).trim();
    return "Done: " + (/[.!?]$/.test(t) ? t : t + ".");
  }

  // --- forms for actions (the generic panel's, the Dealer's, a game's own) -------------------

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

  // What to write in a field of each kind, beside the field's own words.
  const FIELD_HELP = {
    cards: "Cards as the game names them, separated by commas: for example Red Kd, Blue 10s.",
    "card-lists": "One hand a line, its cards separated by commas: for example Red Kd, Red Qd.",
  };

  function splitCards(text) {
    return text.split(",").map((t) => t.trim()).filter(Boolean);
  }

  // A field's value for the body; undefined when empty (the server says what is missing).
  function fieldValue(field, text) {
    const raw = String(text || "").trim();
    if (!raw) return undefined;
    if (field.kind === "int") return /^-?\d+$/.test(raw) ? parseInt(raw, 10) : raw;
    if (field.kind === "cards") return splitCards(raw);
    if (field.kind === "card-lists") {
      return raw.split("\n").map(splitCards).filter((hand) => hand.length);
    }
    return raw;
  }

  // A choice of player: every active player but the viewer (a "holder": the Deck too, and
  // no Dealer).
  function playerOptions(holder) {
    const me = S.mine && S.mine.me.name;
    const others = activePlayers().filter((p) => holder ? !p.dealer : p.name !== me);
    return [h("option", { value: "", key: "" }, holder ? "Choose" : "Choose a player"),
      holder && h("option", { value: "deck", key: "deck" }, "the Deck"),
      others.map((p) => h("option", { value: p.name, key: p.name },
        p.name + (p.dealer ? " (the Dealer)" : "")))];
  }

  function fieldInput(field, id) {
    const common = { id, name: field.name, "aria-required": field.required ? "true" : null,
                     "aria-describedby": FIELD_HELP[field.kind] ? id + "-help" : null };
    if (field.kind === "player" || field.kind === "holder") {
      return h("select", common, playerOptions(field.kind === "holder"));
    }
    if (field.kind === "option") {  // a ballot's option
      return h("select", common, h("option", { value: "", key: "" }, "None"),
        OPTIONS.map((o) => h("option", { value: o, key: o }, o)));
    }
    if (field.kind === "card-lists") {
      return h("textarea", { ...common, rows: "3", spellcheck: "false" });
    }
    return h("input", { ...common, type: field.kind === "int" ? "number" : "text",
                        autocomplete: "off", step: field.kind === "int" ? "1" : null,
                        inputmode: field.kind === "int" ? "numeric" : null,
                        spellcheck: field.kind === "int" ? null : "false" });
  }

  // A form for an action from its declaration ({action, doc, fields: [{name, kind, required,
  // doc}]}, as /api/v1/games lists them; `title` and `button`, words of its own), with its
  // answer slot (`id`-answer) right under its button; `say` and `confirm` as act() takes them;
  // its fields emptied once it is done, unless `reset` is false.
  function actionForm(action, { id, say: saying, confirm, reset = true }) {
    const body = (values) => {
      const b = { action: action.action };
      action.fields.forEach((f) => {
        const value = fieldValue(f, values[f.name]);
        if (value !== undefined) b[f.name] = value;
      });
      return b;
    };
    return h("div", { class: "game-action", key: id },
      h("form", { id, novalidate: true,
                  onsubmit: act(body, { answer: id + "-answer", say: saying, confirm, reset }) },
        h("fieldset", { "aria-describedby": id + "-doc" },
          h("legend", null, action.title || actionName(action.action)),
          h("p", { class: "help", id: id + "-doc" }, action.doc),
          action.fields.map((f) => {
            const input = id + "-" + f.name;
            return [h("label", { for: input, key: input + "-label" },
              capital(f.doc || words(f.name)) + (f.required ? "" : " (optional)")),
              FIELD_HELP[f.kind] && h("p", { class: "help", id: input + "-help" }, FIELD_HELP[f.kind]),
              fieldInput(f, input)];
          })),
        h("div", { class: "row" }, h("button", { type: "submit", id: id + "-submit" },
          action.button || actionName(action.action))),
        answerSlot(id + "-answer")));
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
      doc: "A player's vote on a proposal, for the Cards for Votes: on a decision of the " +
           "ledger a ballot, an option or an endorsement (it replaces the player's earlier " +
           "one); on any other proposal a vote, and the same vote again changes nothing.",
      fields: [{ name: "player", kind: "player", required: true, doc: "The voter" },
               { name: "proposal", kind: "text", required: true, doc: "The proposal" },
               { name: "option", kind: "option", required: false,
                 doc: "The ballot's option, on a decision" },
               { name: "endorse", kind: "player", required: false,
                 doc: "Or the player the ballot endorses" },
               { name: "as_cast", kind: "text", required: false,
                 doc: "The ballot in the voter's words" },
               { name: "source", kind: "text", required: false,
                 doc: "Where it was cast (the message)" },
               { name: "at", kind: "text", required: false,
                 doc: "When it was cast, as 2026-01-05T12:00:00Z" }] },
    { action: "cards.tick", title: "Tick", button: "Tick now",
      doc: "Do everything due at the nweek boundaries and the card games' deadlines passed " +
           "since the last tick (as nomic-cards tick, which cron runs).",
      fields: [] },
  ];

  // A deal's answer, to the Dealer alone (the action's `private`): the card and every roll,
  // as nomic-cards deal prints them.
  function dealtText(data) {
    const p = data.private;
    if (!p || !p.card) return sentence(data.summary);
    const rolls = p.rolls.map((r, i) => "d" + r.sides + " \u2192 " + r.value + " (" +
      (i === p.rolls.length - 1 ? "in the Deck: dealt" : "not in the Deck: rolled again") + ")");
    const whom = (data.summary.match(/^dealt (.*) a card$/) || [])[1] || "the player";
    return "Done: dealt " + p.card + " (card " + p.number + ") to " + whom + ", in " +
      plural(rolls.length, "roll") + " of " + (p.rolls[0] && p.rolls[0].source === "committed"
      ? "the committed die" : (p.rolls[0] ? p.rolls[0].source + " dice" : "dice")) + ": " +
      rolls.join(", ") + "." + (p.commitment ? " A new dice period opened first, its " +
      "commitment " + p.commitment + "." : "");
  }

  // A tick's answer: everything it did, the due work the action caught up first included,
  // with the number of events it recorded.
  function tickText(data) {
    const n = (data.events || []).length;
    return sentence(data.summary) + (n ? " " + plural(n, "event") + " recorded." : "");
  }

  const DEALER_SAY = { "cards.deal": dealtText, "cards.tick": tickText };

  PARTS.dealer = () => {
    render($("dealer-actions"), isOfficer() ? DEALER_ACTIONS.map((spec) => actionForm(spec, {
      id: "dealer-" + spec.action.split(".")[1],
      say: DEALER_SAY[spec.action] || ((data) => sentence(data.summary)),
      reset: spec.action !== "cards.tick" })) : null);
  };

  // --- the nomic's decisions (docs/decisions.md) --------------------------------------------
  //
  // Public: every decision (GET /api/v1/decisions, newest first) and, whole, each open one and
  // the newest resolved ones (GET /api/v1/decisions/{id}: its ballots standing, each with what
  // it counts as and its strength, and its resolution); a resolved decision never changes, so
  // it is read once. Each read is kept with the ledger head it was made at (its ETag), and a
  // read older than the one kept is dropped. The stream's events of decisions, ballots and
  // strengths read them again. A signed-in player casts eir ballot on an open decision
  // (cards.ballot), asked first; the decision is read again before the answer is said, so
  // the part shows the very ballot the answer names.

  const RESOLVED_SHOWN = 10;
  const OPTIONS = ["FOR", "AGAINST", "PRESENT"];
  const DECISION_KINDS = /^(decision|ballot|strength)\./;

  function keepDecision(id, read) {
    const old = S.details.get(id);
    if (!old || read.head >= old.head) S.details.set(id, read);
  }

  async function loadDecision(id) {
    keepDecision(id, await getAt("/api/v1/decisions/" + encodeURIComponent(id)));
    draw("decisions");
  }

  // Whether a decision is resolved, by the newest read of it.
  function isResolved(summary) {
    const read = S.details.get(summary.id);
    return read ? read.data.resolution !== null : summary.status !== "open";
  }

  function byClose(a, b) {
    return Date.parse(a.closes) - Date.parse(b.closes) || a.event - b.event;
  }

  // The resolved decisions, newest first.
  function resolvedNewest(list) {
    return list.filter(isResolved).sort(byClose).reverse();
  }

  const loadDecisions = loader("decisions-status", async (current) => {
    const list = await getAt("/api/v1/decisions");
    if (!current()) return;
    if (!S.decisions || list.head >= S.decisions.head) S.decisions = list;
    const newest = resolvedNewest(list.data).slice(0, RESOLVED_SHOWN);
    await Promise.all(list.data.filter((d) => !isResolved(d) ||
      (newest.includes(d) && !S.details.has(d.id))).map((d) => loadDecision(d.id)));
    draw("decisions");
  });

  let decisionsTimer = 0;

  function decisionsSoon() {
    clearTimeout(decisionsTimer);
    decisionsTimer = setTimeout(loadDecisions, 300);
  }

  // The open decisions, soonest to close first, as last read whole.
  function openDecisions() {
    if (!S.decisions) return [];
    return S.decisions.data.filter((d) => !isResolved(d)).sort(byClose)
      .map((d) => S.details.get(d.id)).filter(Boolean).map((read) => read.data);
  }

  // A ballot in words: "FOR", "endorsing ben".
  function ballotText(b) {
    return b.endorse ? "endorsing " + b.endorse : b.option;
  }

  function ballotItem(d, b) {
    return h("li", { key: b.player, "data-player": b.player },
      h("span", { class: "voter" }, b.player), ": ",
      h("span", { class: "option" }, ballotText(b)),
      b.endorse ? [" (counts as ", h("span", { class: "counts" }, b.counts_as), ")"] : null,
      b.strength !== d.strength_default && [" · ", h("span", { class: "strength" },
        "strength " + b.strength)],
      " · cast ", h("time", { datetime: b.at }, when(b.at)),
      b.as_cast ? h("span", { class: "as-cast" }, "As cast: \u201c" + b.as_cast + "\u201d") : null,
      b.source ? h("span", { class: "source" }, "Where: " + b.source) : null,
      b.comment ? h("span", { class: "comment" }, "Note: " + b.comment) : null);
  }

  function ballotsList(d) {
    return h("ul", { class: "ballots", id: "decision-" + d.id + "-ballots",
                     "aria-label": "Ballots on decision " + d.id },
      d.ballots.length ? d.ballots.map((b) => ballotItem(d, b))
        : h("li", { class: "muted none", key: "none" }, "No ballot has been cast yet."));
  }

  // The ballots counted by what they count as, heads and names: "FOR (2): ann, ben · ...".
  function countedParts(d) {
    return OPTIONS.map((o, i) => {
      const names = d.ballots.filter((b) => b.counts_as === o).map((b) => b.player).sort();
      return [i ? " · " : "", h("span", { class: "count", key: o }, o + " (" + names.length + ")"),
        names.length ? ": " + names.join(", ") : ""];
    });
  }

  function tallyText(d, r) {
    return "F/A " + r.f + "/" + r.a + " (AI=" + d.ai + ") · " + plural(r.ballots, "ballot") +
      " · popularity " + r.popularity + " · quorum " + d.quorum;
  }

  function aboutText(d) {
    return "By " + d.author + (d.coauthors.length ? " with " + d.coauthors.join(", ") : "") +
      " · " + capital(d.decision_class) + " · AI=" + d.ai + " · quorum " + d.quorum +
      " · opened at event " + d.opened;
  }

  function changesLine(d) {
    if (!d.changes.length) return null;
    const r = d.resolution;
    const lead = !r ? "If it is adopted, it changes the rules: "
      : r.outcome === "ADOPTED" ? "The rule changes it carried: "
        : "The rule changes it would have carried: ";
    return h("p", { class: "changes" }, lead,
      d.changes.map((c, i) => [i ? "; " : "", h("code", { key: "c" + i }, c)]));
  }

  function strengthsLine(d) {
    if (!d.strengths.length) return null;
    return h("p", { class: "meta strengths" }, "Strengths other than the default (" +
      d.strength_default + "): " + d.strengths.map((s) => s.player + " " + s.strength + " (" +
      s.why + ")").join("; "));
  }

  function extras(d) {
    return [
      d.source ? h("p", { class: "meta", key: "source" }, "Distributed: " + d.source) : null,
      d.text ? h("details", { class: "decision-text", key: "text" },
        h("summary", null, "The text of proposal " + d.id),
        h("pre", { tabindex: "0", "aria-label": "The text of proposal " + d.id }, d.text)) : null,
      h("p", { class: "meta", key: "agora" }, h("a", {
        href: "/api/v1/decisions/" + encodeURIComponent(d.id) + "?format=agora" },
      "Decision " + d.id + " as the Assessor publishes it (text)"))];
  }

  // The signed-in player's own ballot on a decision.
  function mineLine(d, mine, open) {
    const id = "decision-" + d.id + "-mine";
    if (mine) {
      return h("p", { class: "mine", id }, "Your ballot: " + ballotText(mine) +
        (mine.endorse ? " (it counts as " + mine.counts_as + ")" : "") + ", cast ",
      h("time", { datetime: mine.at }, when(mine.at)), ".");
    }
    return open
      ? h("p", { class: "mine unvoted", id }, "You have not voted: cast your ballot by ",
        h("time", { datetime: d.closes }, when(d.closes)), ".")
      : h("p", { class: "mine", id }, "You cast no ballot on it.");
  }

  // FOR, AGAINST, PRESENT, or endorse another player: each asked first, answered under the
  // controls.
  function ballotControls(d, mine) {
    const base = "decision-" + d.id;
    const slot = base + "-answer";
    const before = mine ? ballotText(mine) : null;
    const replaced = before ? " It replaces your ballot " + before + "." : "";
    const until = " You may change it until voting ends, " + when(d.closes) + ".";
    const named = "decision " + d.id + " (" + d.title + ")";
    const settle = () => loadDecision(d.id);
    const cast = (option) => act(() => {
      if (mine && !mine.endorse && mine.option === option) {
        say(slot, "Your ballot on decision " + d.id + " is " + option + " already.", "ok");
        return null;
      }
      return { action: "cards.ballot", decision: d.id, option };
    }, { answer: slot, settle,
         confirm: { question: "Vote " + option + " on " + named + "?" + replaced + until,
                    yes: "Yes, vote " + option },
         say: () => "You voted " + option + " on decision " + d.id + "." + replaced });
    const endorse = act((values) => {
      if (!values.endorse) {
        say(slot, "Choose the player whose ballot yours follows first.", "error");
        return null;
      }
      return { action: "cards.ballot", decision: d.id, endorse: values.endorse };
    }, { answer: slot, settle,
         confirm: (body) => ({
           question: "Endorse " + body.endorse + " on " + named + "? Your ballot counts as " +
             body.endorse + "'s final ballot on it (PRESENT if e casts none)." + replaced + until,
           yes: "Yes, endorse " + body.endorse }),
         say: (data, body) => "You endorsed " + body.endorse + " on decision " + d.id +
           ": your ballot counts as eirs." + replaced });
    const pressed = mine && !mine.endorse ? mine.option : null;
    // an answer the player's ballot has moved past since (another tab) says nothing
    const current = (said) => {
      const ours = ((said.data && said.data.events) || []).find((e) => e.kind === "ballot.cast");
      return ours && mine && mine.event > ours.event ? null : said;
    };
    return h("div", { class: "ballot-box", role: "group", "aria-labelledby": base + "-vote" },
      h("p", { class: "vote-title", id: base + "-vote" },
        (mine ? "Change your ballot" : "Cast your ballot") + " on decision " + d.id),
      h("div", { class: "row" }, OPTIONS.map((o) => h("button", {
        type: "button", id: base + "-" + o.toLowerCase(), key: o, class: "quiet",
        "aria-pressed": pressed === o ? "true" : "false", onclick: cast(o) }, o))),
      h("form", { id: base + "-endorse-form", class: "row endorse", novalidate: true,
                  onsubmit: endorse },
        h("label", { for: base + "-endorse" }, "Or endorse another player (your ballot " +
          "counts as eirs)"),
        // the standing endorsement, chosen; a choice being made stays through redraws
        h("select", { id: base + "-endorse", name: "endorse",
                      value: mine && mine.endorse ? mine.endorse : "" }, playerOptions(false)),
        h("button", { type: "submit", id: base + "-endorse-submit", class: "quiet" }, "Endorse")),
      answerSlot(slot, current));
  }

  function openItem(d, me) {
    const base = "decision-" + d.id;
    const mine = me ? d.ballots.find((b) => b.player === me) || null : null;
    const over = passed(d.closes);
    const s = d.standing;
    return h("li", { key: d.id, id: base, class: "decision" },
      h("h4", { id: base + "-title" }, "Decision " + d.id + ": " + d.title),
      h("p", { class: "meta" }, aboutText(d)),
      h("p", { class: "closes", id: base + "-closes" }, over
        ? ["Voting ended ", h("time", { datetime: d.closes }, when(d.closes)),
          ": the next tick resolves it, as of then."]
        : deadline(d.closes, "Voting ends")),
      changesLine(d),
      d.ballots.length > 0 && [
        h("p", { class: "standing", id: base + "-standing", key: "standing" },
          "As it stands: " + s.outcome + " · " + tallyText(d, s)),
        h("p", { class: "counted", id: base + "-counted", key: "counted" }, countedParts(d))],
      ballotsList(d),
      strengthsLine(d),
      me && mineLine(d, mine, !over),
      me && !over && ballotControls(d, mine),
      extras(d));
  }

  function resolvedItem(d, me) {
    const base = "decision-" + d.id;
    const r = d.resolution;
    const mine = me ? d.ballots.find((b) => b.player === me) || null : null;
    return h("li", { key: d.id, id: base, class: "decision resolved" },
      h("h4", { id: base + "-title" }, "Decision " + d.id + ": " + d.title),
      h("p", { class: "meta" }, aboutText(d)),
      h("p", { class: "outcome", id: base + "-outcome" },
        h("span", { class: "verdict verdict-" + r.outcome.toLowerCase().replace(/\s+/g, "-") },
          r.outcome),
        " · voting ended ", h("time", { datetime: d.closes }, when(d.closes)),
        " · resolved at event " + r.event),
      h("p", { class: "tally", id: base + "-tally" }, tallyText(d, r)),
      h("p", { class: "counted", id: base + "-counted" }, countedParts(d)),
      strengthsLine(d),
      changesLine(d),
      me && mineLine(d, mine, false),
      d.ballots.length > 0 && h("details", { class: "ballots-box", key: "ballots" },
        h("summary", null, "The " + plural(d.ballots.length, "ballot") + " as cast"),
        ballotsList(d)),
      extras(d));
  }

  // A resolved decision not read whole (past the newest few): its line from the list.
  function earlierItem(summary) {
    return h("li", { key: summary.id, id: "decision-" + summary.id },
      "Decision " + summary.id + " (" + summary.title + "): " + summary.status + ", voting ended ",
      h("time", { datetime: summary.closes }, when(summary.closes)), " · ",
      h("a", { href: "/api/v1/decisions/" + encodeURIComponent(summary.id) + "?format=agora" },
        "its resolution (text)"));
  }

  PARTS.decisions = () => {
    const me = S.mine ? S.mine.me.name : null;
    PARTS.waiting();
    if (!S.decisions) return;
    const list = S.decisions.data;
    if (!list.length) {
      render($("decisions"), h("p", { class: "muted" }, "No decision has been opened on the " +
        "ledger yet."));
      return;
    }
    const open = openDecisions();
    const done = resolvedNewest(list);
    const whole = done.filter((x) => S.details.has(x.id)).slice(0, RESOLVED_SHOWN);
    const earlier = done.filter((x) => !whole.includes(x));
    render($("decisions"), [
      h("section", { key: "open", class: "decisions-group",
                     "aria-labelledby": "decisions-open-title" },
        h("h3", { id: "decisions-open-title" }, "Open for ballots"),
        open.length ? h("ul", { class: "decision-list", id: "decisions-open" },
          open.map((d) => openItem(d, me)))
          : h("p", { class: "muted" }, "No decision is open for ballots now.")),
      h("section", { key: "resolved", class: "decisions-group",
                     "aria-labelledby": "decisions-resolved-title" },
        h("h3", { id: "decisions-resolved-title" }, "Resolved"),
        whole.length ? h("ul", { class: "decision-list", id: "decisions-resolved" },
          whole.map((x) => resolvedItem(S.details.get(x.id).data, me)))
          : h("p", { class: "muted" }, "No decision has been resolved yet."),
        earlier.length > 0 && [h("p", { class: "meta", key: "earlier-title" }, "Earlier:"),
          h("ul", { class: "earlier-decisions", key: "earlier" }, earlier.map(earlierItem))])]);
  };

  // What waits for the Dealer (an officer token), on eir table: each decision whose voting
  // has ended, for a tick to resolve, and the next nweek's start, each with its deadline;
  // the card games' own waits are in their panels.
  function dealerWaiting() {
    const items = [];
    openDecisions().filter((d) => passed(d.closes)).forEach((d) => items.push(h("li", {
      key: "d" + d.id }, h("a", { href: "#decision-" + d.id }, "Resolve decision " + d.id +
      " (" + d.title + "): voting ended; Tick now resolves it"), " ",
    h("time", { datetime: d.closes }, when(d.closes)))));
    const at = position(S.game, serverNow());
    if (at && at.next) {
      const iso = new Date(at.next).toISOString();
      items.push(h("li", { key: "nweek" }, h("a", { href: "#dealer-table" }, "Start nweek " +
        (at.nweek + 1) + " (its report, dice period and Cards for Votes): a tick after it " +
        "begins"), deadline(iso, "Begins")));
    }
    return h("section", { class: "waiting-part", id: "waiting-part",
                          "aria-labelledby": "waiting-title" },
      h("h3", { id: "waiting-title" }, "Waiting for the Dealer"),
      items.length ? h("ul", { class: "waiting-list", id: "waiting-list" }, items)
        : h("p", { class: "muted" }, "Nothing waits for you now."));
  }

  // What waits for the signed-in player, on eir table: each open decision e has cast no
  // ballot on, with its deadline.
  function waitingFor(me) {
    if (!me) return null;
    if (isOfficer()) return dealerWaiting();
    const ballots = openDecisions().filter((d) => !passed(d.closes) &&
      !d.ballots.some((b) => b.player === me));
    const games = gameWaits();
    if (!ballots.length && !games.length) return null;
    return h("section", { class: "waiting-part", id: "waiting-part",
                          "aria-labelledby": "waiting-title" },
      h("h3", { id: "waiting-title" }, "What waits for you"),
      h("ul", { class: "waiting-list", id: "waiting-list" },
        ballots.map((d) => h("li", { key: "decision-" + d.id },
          h("a", { href: "#decision-" + d.id }, "Decision " + d.id + " (" + d.title + "): " +
            "cast your ballot"), deadline(d.closes))),
        games.map((w) => h("li", { key: w.game + ":" + w.text },
          h("a", { href: w.href || "#game-panels" }, w.text), w.by && deadline(w.by)))));
  }

  // What each card game in force says waits for the player (its panel's `waiting(view,
  // kit)`), soonest deadline first; a game that cannot say is left out.
  function gameWaits() {
    const views = S.mine && S.mine.games ? S.mine.games.games : null;
    if (!views) return [];
    const out = [];
    S.registered.forEach((own, name) => {
      if (!own.waiting || !(name in views)) return;
      try {
        own.waiting(views[name], kitFor(name)).forEach((w) => out.push({ ...w, game: name }));
      } catch (e) {
        console.error("the " + name + " panel could not say what waits: " + e);
      }
    });
    const at = (w) => (w.by ? Date.parse(w.by) : Infinity);
    return out.sort((a, b) => at(a) - at(b));
  }

  PARTS.waiting = () => {
    render($("waiting"), waitingFor(S.mine ? S.mine.me.name : null));
  };

  // --- the live log -------------------------------------------------------------------------

  // An event's sentence as the log shows it: the server's line, a capital first (unless it
  // begins with a player's name) and a full stop.
  function logSentence(text) {
    const t = String(text || "").trim();
    const first = t.split(/[\s:;,']/)[0];
    const named = S.players && S.players.players.some((p) => p.name === first);
    const s = named ? t : capital(t);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  PARTS.log = () => {
    let newCount = 0, hidden = 0;
    const items = S.log.map((e) => {
      const book = BOOKKEEPING.has(e.kind) && !e.notice, fresh = isNew(e.event);
      if (book) hidden++;
      else if (fresh) newCount++;
      return h("li", { key: e.event, "data-event": e.event,
                       class: [book && "bookkeeping", fresh && "new"] },
        fresh && [h("span", { class: "tag" }, "new"), " "],
        h("span", { class: "seq" }, "#" + e.event), " ",
        h("time", { class: "when", datetime: e.at },
          e.at.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace("Z", " UTC")), " ",
        h("span", { class: "text" }, logSentence(e.text)),
        e.notice && h("span", { class: "notice" }, e.notice));
    });
    $("log").classList.toggle("all", S.logAll);
    render($("log"), items);
    render($("log-controls"), [
      h("p", { id: "log-new", class: "meta" }, newCount
        ? plural(newCount, "event") + " new since your last visit, marked new." : ""),
      h("button", { type: "button", id: "log-all", class: "quiet small", hidden: hidden === 0,
                    "aria-pressed": S.logAll ? "true" : "false", "aria-controls": "log",
                    onclick: () => { S.logAll = !S.logAll; draw("log"); } },
        S.logAll ? "Hide the bookkeeping"
          : "Show every event (" + plural(hidden, "line") + " of bookkeeping hidden)")]);
  };

  function logEvent(e) {
    if (S.log.some((x) => x.event === e.event)) return;
    S.log.unshift(e);
    S.log.sort((a, b) => b.event - a.event);
    if (S.log.length > 400) S.log.length = 400;
    localStorage.setItem(SEEN, String(Math.max(e.event,
      parseInt(localStorage.getItem(SEEN) || "0", 10) || 0)));
    draw("log", "games");
  }

  // --- the live stream ------------------------------------------------------------------------

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
    let wait = 1000;
    while (gen === streamGen) {
      const headers = token ? { Authorization: "Bearer " + token } : {};
      if (lastId === null) {
        try {
          const head = await get("/api/v1/ledger/head");
          lastId = Math.max(0, head.event - 30);  // the recent past, for the log
        } catch (e) { /* the stream's own error says it */ }
      }
      if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
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
            logEvent(e);
            if (DECISION_KINDS.test(e.kind)) decisionsSoon();
            if (changesGames(e)) gamesReady = loadGames();
            else if (/^rule\./.test(e.kind)) loadRules();
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
  // the game through window.NomicCards.registerGame({name, render, bookkeeping}); the page
  // draws its panel with render(view, kit) (docs/panel.md). A game without one (or whose
  // script fails) gets the generic panel: its view as readable lists and tables, and a form
  // for each action it declares.

  let gamesReady = null;

  // A game's own panel script, added once; the promise settles when it has run (or failed:
  // the generic panel draws the game then).
  function loadPanel(game) {
    const src = game.info.panel;
    if (!src || game.script) return game.script;
    game.script = new Promise((done) => {
      const s = document.createElement("script");
      s.src = src;
      s.addEventListener("load", () => {
        game.failed = !S.registered.has(game.info.name);
        done();
      });
      s.addEventListener("error", () => {
        game.failed = true;
        done();
      });
      document.head.append(s);
    });
    game.script.then(() => draw("games"));
    return game.script;
  }

  // /api/v1/games (once, and again when a game's rule changes), the rules' parameters, and
  // the panels of the games in force; never fails: without it the page goes on with no card
  // game panel.
  async function loadGames() {
    try {
      (await get("/api/v1/games")).forEach((info) => {
        const game = S.games.get(info.name);
        if (game) game.info = info;
        else S.games.set(info.name, { info, script: null, failed: false });
      });
    } catch (e) {
      return;
    }
    loadRules();
    await Promise.all([...S.games.values()].filter((g) => g.info.in_force).map(loadPanel));
    draw("games");
  }

  async function loadRules() {
    try {
      S.rules = await get("/api/v1/rules");
    } catch (e) {
      return;  // a game's panel goes on without its parameters
    }
    draw("games");
  }

  // The hook a game's panel script calls: {name, render(view, kit), bookkeeping: [kinds
  // folded away in the log]}.
  function registerGame(game) {
    const name = String((game && game.name) || "");
    if (!name || S.registered.has(name) || typeof game.render !== "function") return;
    S.registered.set(name, { render: game.render,
                             waiting: typeof game.waiting === "function" ? game.waiting : null });
    (game.bookkeeping || []).forEach((kind) => BOOKKEEPING.add(String(kind)));
    draw("games", "log");
  }

  // Whether an event puts a card game in force or out of it (as the page last read them).
  function changesGames(e) {
    const now = { "rule.enacted": true, "rule.repealed": false }[e.kind];
    const game = e.payload && S.games.get(e.payload.rule);
    return now !== undefined && game !== undefined && game.info.in_force !== now;
  }

  // What the page gives a game's panel (docs/panel.md).
  function kitFor(name) {
    const m = S.mine;
    const rule = S.rules.find((r) => r.rule === name);
    return {
      h, player: m.me.name, dealer: m.me.dealer, officer: isOfficer(),
      notices: m.notices || [], events: S.log, params: rule ? rule.params || {} : {},
      players: activePlayers().map((p) => ({ name: p.name, dealer: p.dealer })),
      plural, when, timeLeft, passed, countdown, deadline, deadlineOf, isNew,
      mini, minis, cardText, cardsText, parseCard,
      answer: answerSlot, act, say, fill, form: actionForm, sentence,
      // the player's view read again (a promise): an act's `settle`, so that the panel shows
      // what its answer says before it is said
      reload: () => reload(m.token),
      said: (id) => {
        const a = S.answers.get(id);
        return a && a.text !== undefined ? a : null;
      },
    };
  }

  PARTS.games = () => {
    PARTS.waiting();
    PARTS.brief();
    const views = S.mine && S.mine.games ? S.mine.games.games : null;
    render($("game-panels"), !views ? null : [...S.games.values()].map((game) => {
      const name = game.info.name;
      const own = S.registered.get(name);
      if (!(name in views) && !game.info.in_force) return null;
      let tree;
      if (own && name in views) {
        try {
          tree = own.render(views[name], kitFor(name));
        } catch (e) {  // a panel that cannot draw this view: the generic one does
          console.error("the " + name + " panel failed: " + e);
          tree = genericPanel(game.info, views[name], kitFor(name));
        }
      } else if (!own && (!game.info.panel || game.failed)) {
        tree = genericPanel(game.info, views[name], kitFor(name));
      }
      return tree ? h("div", { class: "game-slot", key: name, "data-game": name }, tree) : null;
    }));
  };

  // --- the generic panel --------------------------------------------------------------------

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  // A game's view, drawn from its JSON: objects as lists of terms, lists of objects as tables,
  // cards as cards, times in UTC, yes or no for true and false.
  function shown(value, label) {
    if (value === null || value === undefined) return h("span", { class: "muted" }, "none");
    if (typeof value === "boolean") return h("span", null, value ? "yes" : "no");
    if (typeof value === "number") return h("span", null, value);
    if (typeof value === "string") {
      if (parseCard(value)) return cardText(value);
      if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) {
        return h("time", { datetime: value }, when(value));
      }
      return h("span", null, value);
    }
    if (Array.isArray(value)) {
      if (!value.length) return h("span", { class: "muted" }, "none");
      if (value.every(isObject)) return viewTable(value, label);
      return h("ul", { class: value.every((v) => parseCard(v)) ? "minis" : "view-list" },
        value.map((v) => h("li", null, shown(v))));
    }
    const entries = Object.entries(value);
    if (!entries.length) return h("span", { class: "muted" }, "nothing");
    return h("dl", { class: "view-terms" }, entries.map(([k, v]) => [
      h("dt", { key: "t-" + k }, words(k)), h("dd", { key: "d-" + k }, shown(v, words(k)))]));
  }

  // A list of objects as a table, in a box of its own that scrolls on a narrow screen
  // (focusable, so the keyboard scrolls it too).
  function viewTable(rows, label) {
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return h("div", { class: "view-scroll", tabindex: "0", role: "region",
                      "aria-label": label || "Table" },
      h("table", { class: "view-table" }, label && h("caption", { class: "sr-only" }, label),
        h("thead", null, h("tr", null, columns.map((c) => h("th", { scope: "col" }, words(c))))),
        h("tbody", null, rows.map((r) => h("tr", null,
          columns.map((c) => h("td", null, shown(r[c], words(c)))))))));
  }

  // A form for each action the viewer may take: a player's, and the Dealer's to the Dealer
  // with an officer token (the server takes those from an officer token only).
  function genericPanel(info, view, kit) {
    const base = "game-" + info.name;
    const mine = info.actions.filter(
      (a) => a.scope === "player" || (kit.officer && a.scope === "dealer"));
    const part = (id, title, body) => h("section", { class: "game-part", key: id,
                                                     "aria-labelledby": base + "-" + id + "-title" },
      h("h4", { id: base + "-" + id + "-title" }, title), h("div", { id: base + "-" + id }, body));
    return h("section", { class: "game-panel generic-panel", id: base,
                          "aria-labelledby": base + "-title" },
      h("h3", { id: base + "-title" }, info.title || info.name),
      info.doc && h("p", { class: "help" }, info.doc),
      part("view", "What you see", view === undefined
        ? h("p", { class: "muted" }, "This game shows you nothing of its own.") : shown(view)),
      part("actions", "What you can do", mine.length ? mine.map((a) => actionForm({ ...a,
        doc: a.doc + (a.scope === "dealer" ? " (The Dealer's: it needs an officer token.)" : "") },
      { id: "act-" + a.action.replace(/[^A-Za-z0-9_-]/g, "-") }))
        : h("p", { class: "muted" }, "This game has no action for you.")));
  }

  // The page's hook for the games' own panel scripts (and the server's clock's error bound).
  window.NomicCards = Object.freeze({ registerGame, clockError });

  // Five times a second: the game line and every countdown on the page.
  function tick() {
    draw("line", "games");
    if (openDecisions().length || isOfficer()) draw("decisions");
  }

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
      S.mine = null;
      S.tokenOpen = false;
      S.answers.clear();
      loadMine(token);
    });
    $("change-token").addEventListener("click", () => {
      S.tokenOpen = true;
      draw("mine");
      flush();
      $("token").focus();
    });
    $("forget").addEventListener("click", () => {
      forget("Your token is forgotten in this tab.");
      flush();  // the token box shown again, before the focus goes to it
      $("token").focus();
    });
    $("refresh").addEventListener("click", () => {
      loadPublic();
      loadDecisions();
      syncClock();
      const saved = sessionStorage.getItem(KEY);
      if (saved) loadMine(saved);
    });
    loadPublic();
    loadDecisions();
    syncClock();
    draw("log");
    setInterval(tick, 200);
    setInterval(syncClock, 5 * 60 * 1000);  // a device asleep, or a clock moved
    const saved = sessionStorage.getItem(KEY);
    if (saved) loadMine(saved);
    else follow(null);
  });
})();
