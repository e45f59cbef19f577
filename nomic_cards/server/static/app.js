"use strict";
// The page: the public record for everyone, and a player's own hand and notices once they paste
// their token. The token lives in this tab's sessionStorage and travels only in the
// Authorization header of requests to /api/v1/me*; it is never put in an address.
// Everything is built with DOM calls (no innerHTML): server text is always shown as text.
// The page follows the ledger live: one event stream (/api/v1/events, or /api/v1/me/events with
// the token, read with fetch so the token stays in a header), resumed from the last event seen.
(function () {
  const KEY = "nomic-cards-token";
  // The last event seen on an earlier visit (not a secret: a number), to mark what is new.
  const SEEN = "nomic-cards-seen";
  // Card games add panels to the player's view here: each {render(hand, token)} is called
  // whenever the hand is loaded, and {onEvent(event, token)} on each event of the stream.
  // (Pooker's arrangement, trades and showdowns plug in this way; none is built in yet.)
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

  // What each pack's Back looks like, by pack name (a Back is named by its pack), from /api/v1/game.
  let described = new Map();

  function learnPacks(game) {
    described = new Map(game.packs.map((pack) => [pack.name, pack.back]));
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
    const s = $(id);
    s.textContent = text;
    s.classList.toggle("error", kind === "error");
    s.classList.toggle("ok", kind === "ok");
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
      tr.append(backCell(b.back), el("td", described.get(b.back) || "", "back-text"),
        el("td", b.cards, "num"));
      return tr;
    }));
    $("deck-total").textContent = deck.total + " of " + deck.sides;
  }

  function showPlayers(players) {
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

  // Each load (and each Forget) starts a new generation; a late answer to an older one is
  // dropped, so it cannot undo a Forget or show another token's hand.
  let publicGen = 0, mineGen = 0, pending = 0;

  async function loadPublic() {
    const gen = ++publicGen;
    try {
      const [game, deck, players, dice, reports, head] = await Promise.all([
        get("/api/v1/game"), get("/api/v1/deck"), get("/api/v1/players"),
        get("/api/v1/dice"), get("/api/v1/reports"), get("/api/v1/ledger/head")]);
      const report = reports.length
        ? await get("/api/v1/reports/" + reports[0].nweek + "?format=text", null, true) : null;
      if (gen !== publicGen) return;
      status("public-status", "");
      const parts = ["Dealer: " + (game.dealer || "none")];
      if (game.nweek) parts.push("nweek " + game.nweek + ", nday " + game.nday);
      parts.push("the Clock is " + (game.clock_running ? "On" : "Off"));
      parts.push(deck.total + " of " + deck.sides + " cards in the Deck");
      $("game-line").textContent = parts.join(" · ");
      startCountdown(game);
      learnPacks(game);
      showDeck(deck);
      showPlayers(players);
      showDice(dice);
      $("head").textContent = "event " + head.event + ", " + head.hash;
      shownHead = Math.max(shownHead, head.event);
      showReports(reports, report);
    } catch (e) {
      if (gen !== publicGen) return;
      $("game-line").textContent = "The game could not be loaded.";
      status("public-status", e.message, "error");
    }
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
      $("hand").replaceChildren(el("p", "You hold no cards yet.", "empty"));
      return;
    }
    $("hand").replaceChildren(...[...groups].map(([back, cards], i) => {
      const group = el("section", undefined, "pack-group");
      const title = el("h4", undefined, "pack-title");
      title.id = "back-" + i;
      title.append(backOf(back, "swatch large"), el("span", back + " back"),
        el("span", " · " + plural(cards.length, "card"), "count"));
      group.setAttribute("aria-labelledby", title.id);
      const list = el("ul", undefined, "cards");
      list.setAttribute("aria-labelledby", title.id);
      list.append(...cards.map(cardItem));
      group.append(title, el("p", described.get(back) || "", "back-text"), list);
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

  function showNotices(notices) {
    if (!notices.length) {
      $("notices").replaceChildren(el("li", "No notices yet.", "empty"));
      return;
    }
    $("notices").replaceChildren(...notices.map((n) => {
      const li = el("li");
      const when = el("time", n.at.replace("T", " ").replace("Z", " UTC"), "when");
      when.dateTime = n.at;
      li.append(when, el("span", n.text, "text"));
      if (n.rolls) li.append(el("span", rollsText(n), "rolls"));
      return li;
    }));
  }

  // The panel is busy while any load of the hand is under way.
  function busy(delta) {
    pending += delta;
    $("me-panel").setAttribute("aria-busy", pending > 0 ? "true" : "false");
  }

  function forget(message) {
    mineGen++;
    sessionStorage.removeItem(KEY);
    $("hand").replaceChildren();
    $("notices").replaceChildren();
    $("votes").querySelector("tbody").replaceChildren();
    if (following) follow(null);
    $("me").hidden = true;
    $("forget").hidden = true;
    if (message) status("me-status", message, "ok");
  }

  async function loadMine(token) {
    const gen = ++mineGen;
    busy(+1);
    status("me-status", "Loading your hand…");
    try {
      const [hand, notices, votes] = await Promise.all([
        get("/api/v1/me/hand", token), get("/api/v1/me/notices", token),
        get("/api/v1/me/votes", token),
        get("/api/v1/game").then(learnPacks, () => null)]);  // the Backs' descriptions
      if (gen !== mineGen) return;
      showHand(hand);
      showNotices(notices);
      showVotes(votes);
      PANELS.forEach((panel) => panel.render && panel.render(hand, token));
      shownHead = Math.max(shownHead, hand.as_of);
      if (following !== token) follow(token);  // the token is good: its own stream
      $("me").hidden = false;
      $("forget").hidden = false;
      status("me-status", hand.player + ", you hold " + plural(hand.cards.length, "card") +
        " (as of event " + hand.as_of + ").", "ok");
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
      const when = el("td");
      const t = el("time", v.at.replace("T", " ").replace(/:\d\d(\+00:00|Z)$/, " UTC"));
      t.dateTime = v.at;
      if (v.nweek !== null) when.append(el("span", "nweek " + v.nweek, "nweek"), " ");
      when.append(t);
      const earned = v.earned.length
        ? v.earned.map((c) => c.name + " (" + c.back + " back, card " + c.number + ")").join(", ")
        : "not dealt yet";
      tr.append(th, when, el("td", earned, v.earned.length ? "" : "muted"));
      return tr;
    }));
  }

  // --- the nweek and the countdown to the next ----------------------------------------------

  let ticking = 0;

  function startCountdown(game) {
    clearInterval(ticking);
    const line = $("countdown");
    if (!game.next_nweek_at) {
      line.textContent = game.nweek ? "The Clock is Off: the next nweek waits for it." : "";
      return;
    }
    const next = Date.parse(game.next_nweek_at);
    // the server's clock, not this device's: offset by the difference when the page loaded
    const skew = Date.parse(game.now) - Date.now();
    const pad = (n) => String(n).padStart(2, "0");
    const show = () => {
      let left = Math.max(0, Math.floor((next - (Date.now() + skew)) / 1000));
      const d = Math.floor(left / 86400); left %= 86400;
      const h = Math.floor(left / 3600); left %= 3600;
      line.textContent = "nweek " + (game.nweek + 1) + " begins in " + (d ? plural(d, "day") + " " : "") +
        pad(h) + ":" + pad(Math.floor(left / 60)) + ":" + pad(left % 60) +
        " (" + game.next_nweek_at.replace("T", " ").replace("Z", " UTC") + ")";
    };
    show();
    ticking = setInterval(show, 1000);
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
    "report.published": (e) => "The Dealer's Report for nweek " + e.payload.nweek + " was published.",
    "rule.enacted": (e) => "The rule " + e.payload.rule + " was enacted by " + e.payload.proposal + ".",
    "rule.amended": (e) => "The rule " + e.payload.rule + " was amended by " + e.payload.proposal +
      ": " + Object.entries(e.payload.params || {}).map(([k, v]) => k + " = " + v).join(", ") + ".",
    "rule.repealed": (e) => "The rule " + e.payload.rule + " was repealed by " + e.payload.proposal + ".",
    "clock.stopped": () => "The game Clock was switched Off.",
    "clock.started": () => "The game Clock was switched On.",
    "pack.added": (e) => "Pack " + e.payload.name + " was put in play.",
    "player.rejoined": (e) => e.payload.name + " rejoined the game.",
    "player.registered": (e) => e.payload.name + " joined the game.",
    "player.retired": (e) => e.payload.name + " retired.",
    "dealer.elected": (e) => e.payload.name + " was elected Dealer.",
  };

  function describe(e) {
    const known = KINDS[e.kind];
    try {
      if (known) return known(e);
    } catch (err) { /* a payload of another shape: the plain line below */ }
    return e.kind + (e.subject ? " (" + e.subject + ")" : "") + ".";
  }

  const seenBefore = parseInt(localStorage.getItem(SEEN) || "", 10);

  function logEvent(e) {
    const li = el("li");
    const when = el("time", e.at.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace("Z", " UTC"), "when");
    when.dateTime = e.at;
    li.append(el("span", "#" + e.event, "seq"), " ", when, " ", el("span", describe(e), "text"));
    if (e.notice) li.append(el("span", e.notice, "notice"));
    if (Number.isFinite(seenBefore) && e.event > seenBefore) {
      li.classList.add("new");
      li.prepend(el("span", "new", "tag"), " ");
    }
    const log = $("log");
    log.prepend(li);
    while (log.children.length > 50) log.lastElementChild.remove();
    localStorage.setItem(SEEN, String(Math.max(e.event,
      parseInt(localStorage.getItem(SEEN) || "0", 10) || 0)));
  }

  // One stream at a time: the token's (public events and the player's own notices) or the
  // public one. A new call ends the one before.
  let streamGen = 0, lastId = null, refreshing = 0, shownHead = 0;

  function refreshSoon(token) {
    clearTimeout(refreshing);
    refreshing = setTimeout(() => {
      loadPublic();
      if (token && sessionStorage.getItem(KEY) === token) loadMine(token);
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
      if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
      else {
        try {
          const head = await get("/api/v1/ledger/head");
          lastId = Math.max(0, head.event - 20);  // the recent past, for the log
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
            logEvent(e);
            PANELS.forEach((panel) => panel.onEvent && panel.onEvent(e, token));
            if (e.event > shownHead) refreshSoon(token);
          }
        }
        reader.cancel().catch(() => null);
      } catch (e) {
        if (gen !== streamGen) return;
        status("live-status", "The live view lost the server; trying again…", "error");
      }
      if (gen !== streamGen) return;
      await new Promise((done) => setTimeout(done, wait));
      wait = Math.min(wait * 2, 30000);
    }
  }

  function tokenFrom(text) {
    return text.trim().replace(/^bearer\s+/i, "").trim();
  }

  document.addEventListener("DOMContentLoaded", () => {
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
      loadMine(token);
    });
    $("forget").addEventListener("click", () => {
      forget("Your token is forgotten in this tab.");
      $("token").focus();
    });
    $("refresh").addEventListener("click", () => {
      loadPublic();
      const saved = sessionStorage.getItem(KEY);
      if (saved) loadMine(saved);
    });
    loadPublic();
    const saved = sessionStorage.getItem(KEY);
    if (saved) loadMine(saved);
    else follow(null);
  });
})();
