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
  // Card games add panels to the player's view here: each {render(hand, games, token)} is
  // called whenever the player's view is loaded -- on sign-in and after every event of the
  // stream, so a trade notification made, matched or lapsed shows without a refresh --
  // (`games` is /api/v1/me/games: each game in force's view by name), {clear()} when the
  // token is forgotten, and {onEvent(event, token)} on each event of the stream.
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
      if (gen !== mineGen) return;
      showHand(hand);
      showNotices(notices);
      showVotes(votes);
      PANELS.forEach((panel) => panel.render && panel.render(hand, games.games, token));
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
      const until = $("showdown-left");  // a Showdown's window, in a card game's panel
      if (until) until.textContent = timeLeft(until.dataset.ends);
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
    "pooker.notified": (e) => e.payload.player + " notified the Dealer of a trade (its terms " +
      "are private); it waits for the other side until " + when(e.payload.expires) + ".",
    "pooker.traded": (e) => e.payload.a + " and " + e.payload.b + " traded " +
      plural(e.payload.cards, "PCard") + "; each paid the Dealer " + plural(e.payload.fee, "Point") + ".",
    "pooker.lapsed": (e) => "A trade notification of " + e.payload.player + " (event " +
      e.payload.notified + ") lapsed unmatched.",
    "pooker.motion": (e) => e.payload.player + " made Motion " + e.payload.number + " to Show Cards.",
    "pooker.voted": (e) => e.payload.player + " voted " + (e.payload.vote ? "yes" : "no") +
      " on Motion " + e.payload.number + " to Show Cards.",
    "pooker.opened": (e) => "Showdown " + e.payload.number + " opened (" +
      (e.payload.how === "ten" ? e.payload.by + " holds ten PCards" : e.payload.motion) +
      "); showing ends " + when(e.payload.ends) + ".",
    "pooker.shown": (e) => e.payload.player + " showed " + plural(e.payload.hands.length, "Poker Hand") +
      " at Showdown " + e.payload.showdown + ".",
    "pooker.closed": (e) => "Showdown " + e.payload.number + " ended: " + (e.payload.winners.length
      ? e.payload.winners.join(" and ") + " won with a Score of " + e.payload.prize
      : "nobody won") + ".",
  };

  function when(iso) {
    return String(iso).replace("T", " ").replace(/(:\d\d)?(\.\d+)?Z$/, " UTC");
  }

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

  // --- Pooker: the player's table (GET /api/v1/me/games, POST /api/v1/me/actions) -------------

  // An action of the game, for the token's player; the server's one sentence on refusal.
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

  const CATEGORY = (name) => name.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");

  const RANK_NAMES = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };
  const SUIT_NAMES = { d: "Diamonds", s: "Spades", h: "Hearts", c: "Clubs" };

  // A PCard drawn small: rank and suit in its colour; its name said in text.
  function mini(label) {
    const face = parseCard(label);
    const e = el("span", undefined, "mini");
    if (!face) {
      e.textContent = label;
      return e;
    }
    const suit = SUITS[face.suit];
    const name = (RANK_NAMES[face.rank] || face.rank) + " of " + SUIT_NAMES[face.suit];
    e.classList.add("suit-" + suit.colour);
    e.append(backOf(face.pack, "swatch tiny"), decorative("span", face.rank + suit.symbol),
      el("span", name + " (" + face.pack + ")", "sr-only"));
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

  const pooker = {
    root: null, token: null, view: null,

    build() {
      const root = el("section", undefined, "game-panel");
      root.id = "pooker";
      root.setAttribute("aria-labelledby", "pooker-title");
      const title = el("h3", "Pooker");
      title.id = "pooker-title";
      const summary = el("p", undefined, "pooker-summary");
      summary.id = "pooker-summary";
      const alert = el("p", undefined, "status");
      alert.id = "pooker-error";
      alert.setAttribute("role", "alert");
      const said = el("p", undefined, "status");
      said.id = "pooker-status";
      said.setAttribute("role", "status");
      root.append(title, summary, alert, said);
      const sections = [["arrangement", "Your best arrangement"], ["showdown", "Showdown"],
        ["offers", "Offers made to you"], ["waiting", "Your offers waiting"],
        ["trade", "Offer a trade"], ["motion", "Motion to Show Cards"], ["last", "The last Showdown"]];
      sections.forEach(([id, text]) => {
        const sec = el("section", undefined, "pooker-part");
        sec.id = "pooker-" + id;
        const h = el("h4", text);
        h.id = "pooker-" + id + "-title";
        sec.setAttribute("aria-labelledby", h.id);
        const body = el("div");
        body.id = "pooker-" + id + "-body";
        sec.append(h, body);
        root.append(sec);
      });
      root.querySelector("#pooker-trade-body").append(this.tradeForm());
      return root;
    },

    say(text) {
      status("pooker-error", "");
      status("pooker-status", text, "ok");
    },

    fail(text) {
      status("pooker-status", "");
      status("pooker-error", text, "error");
    },

    async send(body, done, button) {
      if (button) button.disabled = true;
      try {
        const answer = await act(body, this.token);
        this.say(done || answer.summary);
        if (sessionStorage.getItem(KEY) === this.token) loadMine(this.token);
        return true;
      } catch (e) {
        this.fail(e.message);
        return false;
      } finally {
        if (button) button.disabled = false;
      }
    },

    tradeForm() {
      const form = el("form");
      form.id = "trade-form";
      form.noValidate = true;
      form.setAttribute("aria-labelledby", "pooker-trade-title");
      const help = el("p", "Agree with the other player first: each of you then notifies the " +
        "Dealer, and the trade is made when both notifications match. Each side pays the " +
        "Dealer a fee.", "help");
      help.id = "trade-help";
      const withLabel = el("label", "With");
      withLabel.htmlFor = "trade-with";
      const other = el("select");
      other.id = "trade-with";
      const give = el("fieldset", undefined, "give");
      give.id = "trade-give";
      give.append(el("legend", "You give (from your PCards)"));
      const giveList = el("div", undefined, "checks");
      giveList.id = "trade-give-list";
      give.append(giveList);
      const getLabel = el("label", "You get");
      getLabel.htmlFor = "trade-get";
      const get = el("input");
      get.id = "trade-get";
      get.type = "text";
      get.autocomplete = "off";
      get.spellcheck = false;
      const getHelp = el("p", "Cards as the game names them, separated by commas, as many as " +
        "you give: for example Red Kd, Blue 10s.", "help");
      getHelp.id = "trade-get-help";
      get.setAttribute("aria-describedby", "trade-get-help");
      const submit = el("button", "Notify the Dealer of this trade");
      submit.type = "submit";
      form.append(help, withLabel, other, give, getLabel, getHelp, get, el("div", undefined, "row"));
      form.lastChild.append(submit);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const chosen = [...form.querySelectorAll("#trade-give-list input:checked")].map((i) => i.value);
        const wanted = get.value.split(",").map((t) => t.trim()).filter(Boolean);
        if (!other.value) return this.fail("Choose the player you trade with.");
        if (!chosen.length) return this.fail("Choose at least one of your PCards to give.");
        if (!wanted.length) return this.fail("Name the cards you get, separated by commas.");
        const ok = await this.send({ action: "pooker.trade", with: other.value, give: chosen,
          get: wanted }, null, submit);
        if (ok) {
          get.value = "";
          form.querySelectorAll("#trade-give-list input").forEach((i) => { i.checked = false; });
        }
      });
      return form;
    },

    render(hand, games, token) {
      const view = games && games.pooker;
      const host = $("game-panels");
      if (!view) {
        this.clear();
        return;
      }
      if (!this.root) {
        this.root = this.build();
        host.append(this.root);
      }
      this.token = token;
      this.view = view;
      $("pooker-summary").textContent = "You have " + plural(view.points, "Point") + " · " +
        plural(view.pcards.length, "PCard") + " in your Hand · a trade's fee is " +
        plural(view.trade_fee, "Point") + " from each side.";
      this.arrangement(view);
      this.showdown(view);
      this.offers(view);
      this.waiting(view);
      this.trade(view);
      this.motion(view);
      this.last(view);
    },

    clear() {
      if (this.root) this.root.remove();
      this.root = null;
      this.view = null;
    },

    arrangement(view) {
      part($("pooker-arrangement-body"), [view.pcards, view.hands, view.score], () => {
        if (!view.pcards.length) return [el("p", "You hold no PCards.", "empty")];
        const out = [el("p", "Score " + view.score, "score")];
        out[0].id = "pooker-score";
        if (view.hands.length) {
          const list = el("ol", undefined, "poker-hands");
          list.id = "pooker-hands";
          view.hands.forEach((h) => {
            const li = el("li");
            li.append(el("span", CATEGORY(h.category) + " · " + h.score, "category"),
              minis(h.cards));
            list.append(li);
          });
          out.push(list);
        } else {
          out.push(el("p", "No Poker Hand of yours scores yet.", "muted"));
        }
        const shown = new Set(view.hands.flatMap((h) => h.cards.map((c) => c.number)));
        const rest = view.pcards.filter((c) => !shown.has(c.number));
        if (rest.length) {
          const p = el("div", undefined, "unshown");
          p.append(el("span", "Not in a scoring hand: "), minis(rest));
          out.push(p);
        }
        return out;
      });
    },

    offerLine(n, text) {
      const li = el("li");
      if (Number.isFinite(seenBefore) && n.event > seenBefore) {
        li.classList.add("new");
        li.append(el("span", "new", "tag"), " ");
      }
      li.append(el("span", text, "offer-text"),
        el("span", " Lapses " + when(n.expires) + " unless matched.", "lapses"));
      return li;
    },

    offers(view) {
      part($("pooker-offers-body"), view.offers, () => {
        if (!view.offers.length) return [el("p", "No offer names you.", "muted")];
        const list = el("ul", undefined, "offers");
        list.id = "pooker-offer-list";
        list.append(...view.offers.map((n) => {
          const li = this.offerLine(n, n.player + " offers you " + cardsText(n.give) + " for your " +
            cardsText(n.get) + ".");
          const accept = el("button", "Accept " + n.player + "'s offer");
          accept.type = "button";
          accept.addEventListener("click", () => this.send({ action: "pooker.trade", with: n.player,
            give: n.get, get: n.give }, null, accept));
          li.append(accept);
          return li;
        }));
        return [list];
      });
    },

    waiting(view) {
      const mine = view.waiting.concat(view.all_waiting.filter((n) => n.player !== view.player));
      part($("pooker-waiting-body"), mine, () => {
        if (!mine.length) return [el("p", "Nothing of yours waits.", "muted")];
        const list = el("ul", undefined, "offers");
        list.id = "pooker-waiting-list";
        list.append(...mine.map((n) => this.offerLine(n, (n.player === view.player ? "You give "
          : n.player + " gives ") + cardsText(n.give) + " to " + n.other + " for " +
          cardsText(n.get) + (n.player === view.player ? "" : " (you see it as the Dealer)") + ".")));
        return [list];
      });
    },

    trade(view) {
      const form = $("trade-form");
      const can = !view.dealer && view.pcards.length > 0 && view.traders.length > 0;
      form.hidden = !can;
      let note = $("trade-none");
      if (!note) {
        note = el("p", "", "muted");
        note.id = "trade-none";
        form.before(note);
      }
      note.hidden = can;
      note.textContent = view.dealer ? "The Dealer owns the Deck and is not a trader."
        : "You need PCards in your Hand to trade.";
      const other = $("trade-with");
      const keep = other.value;
      part(other, view.traders, () => view.traders.map((name) => {
        const o = el("option", name);
        o.value = name;
        return o;
      }));
      if (view.traders.includes(keep)) other.value = keep;
      const list = $("trade-give-list");
      part(list, view.pcards, () => {
        const ticked = new Set([...list.querySelectorAll("input:checked")].map((i) => i.value));
        return view.pcards.map((c, i) => {
          const row = el("div", undefined, "check");
          const box = el("input");
          box.type = "checkbox";
          box.id = "give-" + i;
          box.value = c.card;
          box.checked = ticked.has(c.card);
          const label = el("label", c.card + " (" + c.name + ")");
          label.htmlFor = box.id;
          row.append(box, label);
          return row;
        });
      });
    },

    motion(view) {
      const m = view.motion;
      part($("pooker-motion-body"), [m, view.showdown !== null, view.dealer, view.pcards.length > 0], () => {
        if (view.showdown) return [el("p", "A Showdown is open: no Motion can be made until it ends.", "muted")];
        if (!m) {
          if (view.dealer || !view.pcards.length) {
            return [el("p", "No Motion is pending. A Player with PCards may make one.", "muted")];
          }
          const make = el("button", "Make a Motion to Show Cards");
          make.type = "button";
          make.id = "make-motion";
          make.addEventListener("click", () => this.send({ action: "pooker.motion" }, null, make));
          return [el("p", "No Motion is pending. When one passes, a Showdown opens."), make];
        }
        const need = m.threshold === "unanimity" ? m.players
          : m.threshold === "two-thirds" ? Math.ceil(2 * m.players / 3) : Math.floor(m.players / 2) + 1;
        const text = el("p", "Motion " + m.number + " to Show Cards, made by " + m.by + ": " +
          m.yes + " yes, " + m.no + " no, of " + plural(m.players, "Player") + "; it passes at " +
          need + " yes (" + m.threshold.replace("-", " ") + ").");
        text.id = "motion-text";
        const mine = el("p", m.voted ? "You voted " + m.voted + "." : "You have not voted.");
        mine.id = "motion-mine";
        const row = el("div", undefined, "row");
        ["yes", "no"].forEach((v) => {
          const b = el("button", "Vote " + v + " on Motion " + m.number, v === "no" ? "quiet" : "");
          b.type = "button";
          b.id = "vote-" + v;
          b.addEventListener("click", () => this.send({ action: "pooker.vote", vote: v }, null, b));
          row.append(b);
        });
        return [text, mine, row];
      });
    },

    showdown(view) {
      const sd = view.showdown;
      const sec = $("pooker-showdown");
      sec.hidden = !sd;
      if (!sd) {
        $("pooker-showdown-body").dataset.key = "";
        return;
      }
      part($("pooker-showdown-body"), [sd, view.pcards, view.dealer], () => {
        const out = [];
        const how = sd.how === "ten" ? sd.by + " declared it holding ten PCards" : "opened by " + sd.motion;
        const head = el("p", "Showdown " + sd.number + " is open (" + how + "). " + (sd.ended
          ? "Showing ended " + when(sd.ends) + "; the next tick closes it."
          : "Show until " + when(sd.ends) + "."));
        head.id = "showdown-text";
        out.push(head);
        if (!sd.ended) {
          const left = el("p", "Time left to show: ", "countdown");
          const clock = el("span", timeLeft(sd.ends));
          clock.id = "showdown-left";
          clock.dataset.ends = sd.ends;
          left.append(clock);
          out.push(left);
        }
        const shown = Object.entries(sd.shown);
        if (shown.length) {
          const list = el("ul", undefined, "shown");
          list.id = "showdown-shown";
          shown.forEach(([who, hands]) => {
            const li = el("li");
            li.append(el("span", who + " showed: ", "who"));
            hands.forEach((h) => li.append(minis(h, "inline")));
            list.append(li);
          });
          out.push(list);
        }
        if (sd.mine) {
          out.push(el("p", "You have shown " + plural(sd.mine.length, "Poker Hand") + "."));
        } else if (view.dealer) {
          out.push(el("p", "The Dealer may never show eir cards.", "muted"));
        } else if (!sd.ended && view.pcards.length) {
          out.push(this.showForm(view, sd));
        }
        return out;
      });
    },

    showForm(view, sd) {
      const form = el("form", undefined, "show-form");
      form.id = "show-form";
      form.noValidate = true;
      const set = el("fieldset");
      set.append(el("legend", "Arrange your PCards into Poker Hands of 1 to 5 cards"));
      if (sd.must_show) {
        set.append(el("p", "You declared this Showdown: show at least " + plural(sd.must_show, "PCard") + ".", "help"));
      }
      const selects = view.pcards.map((c, i) => {
        const row = el("div", undefined, "show-row");
        const label = el("label", c.card + " (" + c.name + ")");
        label.htmlFor = "show-" + i;
        const pick = el("select");
        pick.id = "show-" + i;
        pick.dataset.card = c.card;
        const none = el("option", "not shown");
        none.value = "";
        pick.append(none);
        for (let k = 1; k <= view.pcards.length; k++) {  // as many Poker Hands as cards
          const o = el("option", "Poker Hand " + k);
          o.value = String(k);
          pick.append(o);
        }
        row.append(label, pick);
        set.append(row);
        return pick;
      });
      const best = el("button", "Fill in my best arrangement", "quiet");
      best.type = "button";
      best.id = "show-best";
      best.addEventListener("click", () => {
        const where = new Map();
        view.hands.forEach((h, k) => h.cards.forEach((c) => where.set(c.card, String(k + 1))));
        selects.forEach((s) => { s.value = where.get(s.dataset.card) || ""; });
        this.say(view.hands.length
          ? "Filled in: " + plural(view.hands.length, "Poker Hand") + ", Score " + view.score + "."
          : "None of your Poker Hands scores: nothing was filled in.");
      });
      const submit = el("button", "Show these Poker Hands");
      submit.type = "submit";
      const row = el("div", undefined, "row");
      row.append(best, submit);
      form.append(set, row);
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        const hands = new Map();
        selects.forEach((s) => {
          if (!s.value) return;
          if (!hands.has(s.value)) hands.set(s.value, []);
          hands.get(s.value).push(s.dataset.card);
        });
        if (!hands.size) return this.fail("Put at least one PCard in a Poker Hand to show it.");
        const list = [...hands.keys()].sort((a, b) => a - b).map((k) => hands.get(k));
        this.send({ action: "pooker.show", hands: list }, null, submit);
      });
      return form;
    },

    last(view) {
      const l = view.last;
      $("pooker-last").hidden = !l;
      part($("pooker-last-body"), l, () => {
        if (!l) return [];
        const scores = Object.entries(l.scores).map(([p, s]) => p + " " + s).join(", ");
        const text = el("p", "Showdown " + l.number + ": " + (l.winners.length
          ? l.winners.join(" and ") + " won, with a Score of " + l.prize + "; paid " +
            Object.entries(l.paid).map(([p, n]) => p + " " + plural(n, "Point")).join(", ")
          : "nobody won") + ". Scores shown: " + (scores || "none") + ".");
        text.id = "last-text";
        return [text];
      });
    },
  };
  PANELS.push(pooker);

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
