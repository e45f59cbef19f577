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
  // The card games' panels (their own, registered by their scripts, and the generic ones):
  // each {render(hand, games, token)} is called whenever the player's view is loaded -- on
  // sign-in and after every event of the stream, so what another player did shows without a
  // refresh -- (`games` is /api/v1/me/games: each game in force's view by name), {clear()}
  // when the token is forgotten, and {onEvent(event, token)} on each event of the stream.
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
    lastMine = null;
    PANELS.forEach((panel) => panel.clear && panel.clear());
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
      // the card games' view once the token is known good: a refused token costs no more
      // failed attempts than it did before card games had a view
      const games = await get("/api/v1/me/games", token);
      await gamesReady;  // the games' own panels, registered
      if (gen !== mineGen) return;
      showHand(hand);
      showNotices(notices);
      showVotes(votes);
      lastMine = { hand, games: games.games, token };
      PANELS.forEach((panel) => panel.render && panel.render(hand, games.games, token));
      Object.keys(games.games).forEach((name) => {  // a game come into force since: its panel
        if (GAMES.has(name)) loadPanel(GAMES.get(name));
      });
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
  // the server's clock less this device's, from the last /api/v1/game read
  let skew = 0;

  // The time left until `iso` on the server's clock: "2 days 03:04:05".
  function timeLeft(iso) {
    const pad = (n) => String(n).padStart(2, "0");
    let left = Math.max(0, Math.floor((Date.parse(iso) - (Date.now() + skew)) / 1000));
    const d = Math.floor(left / 86400); left %= 86400;
    const h = Math.floor(left / 3600); left %= 3600;
    return (d ? plural(d, "day") + " " : "") + pad(h) + ":" + pad(Math.floor(left / 60)) + ":" +
      pad(left % 60);
  }

  function startCountdown(game) {
    clearInterval(ticking);
    const line = $("countdown");
    // the server's clock, not this device's: offset by the difference when the page loaded
    skew = Date.parse(game.now) - Date.now();
    const show = () => {
      // the time left until each data-ends of the card games' panels
      document.querySelectorAll("#game-panels [data-ends]").forEach((until) => {
        until.textContent = timeLeft(until.dataset.ends);
      });
      if (!game.next_nweek_at) return;
      line.textContent = "nweek " + (game.nweek + 1) + " begins in " + timeLeft(game.next_nweek_at) +
        " (" + game.next_nweek_at.replace("T", " ").replace("Z", " UTC") + ")";
    };
    if (!game.next_nweek_at) {
      line.textContent = game.nweek ? "The Clock is Off: the next nweek waits for it." : "";
    }
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
    "points.moved": (e) => (e.payload.from || "The Bank") + " paid " + (e.payload.to || "the Bank") +
      " " + plural(e.payload.points, "Point") + " under " + e.payload.rule + ".",
  };

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
    await gamesReady;  // the log's lines in the games' own words
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
            if (changesGames(e)) gamesReady = loadGames();
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

  // --- card games: their panels (GET /api/v1/games, /api/v1/me/games, POST /api/v1/me/actions)
  //
  // The page names no card game. /api/v1/games lists the installed ones: a game with a panel
  // of its own has its script (/static/games/<name>.js, same origin) loaded, which registers
  // the game through window.NomicCards.registerGame({name, panel, describe}) and draws it with
  // the helpers NomicCards gives; a game without one (or whose script fails) gets the generic
  // panel: its view as readable lists and tables, and a form for each action it declares.

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

  // The player's view read again after an action, unless the token was forgotten meanwhile.
  function reload(token) {
    if (token && sessionStorage.getItem(KEY) === token) loadMine(token);
  }

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
  // values and its focus while other players' events come in.
  function part(node, data, build) {
    const key = JSON.stringify(data);
    if (node.dataset.key === key) return;
    node.dataset.key = key;
    node.replaceChildren(...build());
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
  // The player's last view ({hand, games, token}), to draw a panel registered after it.
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
      panel.render(mine.hand, mine.games, mine.token);
    }
  }

  // The hook a game's panel script calls: {name, panel: {render(hand, games, token), clear(),
  // onEvent(event, token)}, describe: {kind: (event) => sentence}}.
  function registerGame(game) {
    const name = String((game && game.name) || "");
    if (!name || REGISTERED.has(name)) return;
    REGISTERED.set(name, { panel: game.panel || null, describe: game.describe || {} });
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

  // --- the generic panel --------------------------------------------------------------------

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
    if (field.kind === "player") {
      input = el("select");
      input.dataset.players = "";
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

  // A choice of player: every active player but the viewer; the choice made is kept.
  function fillPlayers(select) {
    const me = lastMine && lastMine.hand.player;
    const others = knownPlayers.filter((p) => p.name !== me);
    const keep = select.value;
    part(select, others, () => {
      const none = el("option", "Choose a player");
      none.value = "";
      return [none, ...others.map((p) => {
        const o = el("option", p.name + (p.dealer ? " (the Dealer)" : ""));
        o.value = p.name;
        return o;
      })];
    });
    if (others.some((p) => p.name === keep)) select.value = keep;
  }

  function fillPlayerChoices() {
    document.querySelectorAll("#game-panels select[data-players]").forEach(fillPlayers);
  }

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
        this.actions(game.info, hand.dealer);
      },

      clear() {
        if (this.root) this.root.remove();
        this.root = null;
      },

      // A form for each action the viewer may take: a player's, and the Dealer's to the Dealer
      // (the server takes those from an officer token only, and says so to any other).
      actions(info, dealer) {
        const mine = info.actions.filter(
          (a) => a.scope === "player" || (dealer && a.scope === "dealer"));
        const body = $(base + "-actions");
        part(body, mine, () => mine.length ? mine.map((a) => this.form(a))
          : [el("p", "This game has no action for you.", "muted")]);
        body.querySelectorAll("select[data-players]").forEach(fillPlayers);
      },

      form(action) {
        const id = "act-" + action.action.replace(/[^A-Za-z0-9_-]/g, "-");
        const box = el("div", undefined, "game-action");
        const form = el("form");
        form.id = id;
        form.noValidate = true;
        const set = el("fieldset");
        set.append(el("legend", actionName(action.action)));
        const about = el("p", action.doc + (action.scope === "dealer"
          ? " (The Dealer's: it needs an officer token.)" : ""), "help");
        about.id = id + "-doc";
        set.append(about);
        set.setAttribute("aria-describedby", about.id);
        const inputs = action.fields.map((f) => {
          const input = fieldInput(f, id + "-" + f.name);
          const label = el("label",
            capital(f.doc || words(f.name)) + (f.required ? "" : " (optional)"));
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
        const submit = el("button", actionName(action.action));
        submit.type = "submit";
        const row = el("div", undefined, "row");
        row.append(submit);
        form.append(set, row);
        const answer = el("p", undefined, "status answer");
        answer.id = id + "-answer";
        answer.setAttribute("aria-live", "polite");
        form.addEventListener("submit", (ev) => {
          ev.preventDefault();
          this.submit(action, inputs, form, submit, answer);
        });
        box.append(form, answer);
        return box;
      },

      // Sends the action with a fresh Idempotency-Key; the answer's summary (or the server's
      // sentence) beside the form; the focus stays on the button; the view is read again.
      async submit(action, inputs, form, button, answer) {
        if (button.getAttribute("aria-disabled") === "true") return;
        const body = { action: action.action };
        inputs.forEach(([f, input]) => {
          const value = fieldValue(f, input);
          if (value !== undefined) body[f.name] = value;
        });
        button.setAttribute("aria-disabled", "true");  // not disabled: it keeps the focus
        status(answer.id, "Sending…");
        try {
          const data = await act(body, this.token);
          status(answer.id, data.summary || (data.waiting ? "Waiting." : "Done."), "ok");
          form.reset();
          reload(this.token);
        } catch (e) {
          status(answer.id, e.message, "error");
        } finally {
          button.removeAttribute("aria-disabled");
          const at = document.activeElement;
          if (button.isConnected && (!at || at === document.body || form.contains(at))) {
            button.focus();
          }
        }
      },
    };
  }

  // The page's hook for the games' own panel scripts.
  window.NomicCards = Object.freeze({
    registerGame, slot, el, decorative, status, plural, part, when, timeLeft, isNew,
    parseCard, backOf, mini, minis, cardText, cardsText, send: act, reload,
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
