"use strict";
// Pooker's panel on the page (rule 399): what waits for the player and by when, eir PCards and
// best arrangement, the offers naming em (Accept, Decline) and eir own waiting (Withdraw), a
// trade's form, the Motion to Show Cards and its voting deadline, declaring a Showdown at
// trigger-pcards PCards, the Showdown and the last one, eir Pooker notices with their
// deadlines; the Dealer's Open a Showdown (with an officer token). Every action's answer
// appears under its control (the kit's answer slots); what cannot be undone -- a trade
// notified or accepted, a show, a withdrawal, a decline, a declaration -- is confirmed first,
// saying what happens. Served as /static/games/pooker.js from this package (CardGame.panel);
// the page loads it when Pooker is in force, and it registers render(view, kit): the panel
// as a tree, from the player's view and what the kit gives (docs/panel.md).
(function () {
  const page = window.NomicCards;
  if (!page) return;  // not on the game's page

  const CATEGORY = (name) => name.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");

  function motionEnds(view, kit) {
    const m = view.motion;
    if (!m) return null;
    if (m.ends) return m.ends;
    // the Motion's voting deadline, from the notice that told the player of it
    const told = kit.notices.find((n) => new RegExp("Motion " + m.number + " to Show Cards")
      .test(n.text.split("\n")[0]) && kit.deadlineOf(n.text));
    return told ? kit.deadlineOf(told.text) : null;
  }

  // What waits for the player now, each {text, by (its deadline), href}: from the view, so an
  // item goes the moment what it describes is done (a vote cast, a show made, an offer
  // answered). The panel lists them, and the page at the top of the player's table.
  function waits(view, kit) {
    const items = [];
    const sd = view.showdown;
    if (sd && !sd.ended && !sd.mine && !view.dealer && view.pcards.length) {
      items.push({ text: "Show your Poker Hands at Showdown " + sd.number +
        (sd.must_show ? " (at least " + kit.plural(sd.must_show, "PCard") + ")" : ""),
      by: sd.ends, href: "#pooker-showdown" });
    }
    if (sd && view.dealer) {
      items.push({ text: "Showdown " + sd.number + "'s showing ends; a tick after it closes " +
        "the Showdown", by: sd.ends, href: "#pooker-showdown" });
    }
    const m = view.motion;
    if (m && !m.voted) {
      items.push({ text: "Vote on Motion " + m.number + " to Show Cards",
        by: motionEnds(view, kit), href: "#pooker-motion" });
    }
    view.offers.forEach((n) => items.push({ text: "Answer " + n.player + "'s offer: accept " +
      "or decline it", by: n.expires, href: "#pooker-offers" }));
    return items;
  }

  // An answer that said a trade notification waits says how it ended, once its event came:
  // made, lapsed, withdrawn or declined.
  function settled(said, kit) {
    const d = said.data;
    const notified = d && d.waiting && (d.events || []).find((e) => e.kind === "pooker.notified");
    if (!notified) return said;
    const n = notified.event;
    for (const e of kit.events) {
      const p = e.payload || {};
      if (e.kind === "pooker.traded" && (p.notified || []).includes(n)) {
        return { ...said, text: "Traded: " + p.a + " and " + p.b + "'s notifications matched " +
          "(events " + p.notified.join(" and ") + ")." };
      }
      if (p.notified !== n) continue;
      if (e.kind === "pooker.lapsed") {
        return { ...said, text: "Your notification (event " + n + ") lapsed unmatched." };
      }
      if (e.kind === "pooker.withdrawn") {
        return { ...said, text: "You withdrew your notification (event " + n + ")." };
      }
      if (e.kind === "pooker.declined") {
        return { ...said, text: "Your notification (event " + n + ") was declined: it no " +
          "longer waits." };
      }
    }
    return said;
  }

  // An answer that said a Showdown is open, or what happens when it closes, is over once it
  // closed ("The last Showdown" says how it ended).
  function overAtClose(said, kit, any) {
    const closed = kit.events.some((e) => e.kind === "pooker.closed" && e.event > said.after &&
      (any || new RegExp("Showdown " + e.payload.number + "\\b").test(said.text)));
    return closed ? null : settled(said, kit);
  }

  function render(view, kit) {
    const { h, plural, when, minis, cardsText } = kit;
    const notices = kit.notices;
    const answer = (id, show) => kit.answer("pooker-" + id + "-answer", show);

    // One part of the panel: its title, its body and (for those that have one) its answer slot.
    function part(id, title, body, { hidden = false, slot = null } = {}) {
      return h("section", { class: "game-part", id: "pooker-" + id, hidden,
                            "aria-labelledby": "pooker-" + id + "-title" },
        h("h4", { id: "pooker-" + id + "-title" }, title),
        h("div", { id: "pooker-" + id + "-body" }, body), slot);
    }

    // What a trade's answer says: made, or waiting (its outcome said there when it comes).
    function traded(data, gave, got, other) {
      if (!data.waiting) {
        return "Traded with " + other + ": you gave " + cardsText(gave) + " and got " +
          cardsText(got) + ".";
      }
      const mine = (data.events || []).find((e) => e.kind === "pooker.notified");
      return "Sent: your notification (event " + (mine ? mine.event : "?") + ") waits for " +
        other + "'s matching one.";
    }

    // What waits for the player now, each with its deadline: from the view, so an item goes
    // the moment what it describes is done (a vote cast, a show made, an offer answered).
    function todo() {
      const items = waits(view, kit);
      if (!items.length) return h("p", { class: "muted" }, "Nothing waits for you.");
      return h("ul", { class: "waiting-list", id: "pooker-todo-list" },
        items.map(({ text, by, href }) => h("li", { key: text },
          h("a", { href }, text), by && kit.deadline(by))));
    }

    function arrangement() {
      if (!view.pcards.length) return h("p", { class: "empty" }, "You hold no PCards.");
      const inHands = new Set(view.hands.flatMap((hd) => hd.cards.map((c) => c.number)));
      const rest = view.pcards.filter((c) => !inHands.has(c.number));
      return [h("p", { class: "score", id: "pooker-score" }, "Score " + view.score),
        !view.exact && h("p", { class: "muted", id: "pooker-not-exact" }, "The best arrangement " +
          "found so far, maybe not the best: the exact one is being worked out; reload the " +
          "page in a moment to see it."),
        view.hands.length
          ? h("ol", { class: "poker-hands", id: "pooker-hands" }, view.hands.map((hd) => h("li", null,
            h("span", { class: "category" }, CATEGORY(hd.category) + " · " + hd.score),
            minis(hd.cards))))
          : h("p", { class: "muted" }, "No Poker Hand of yours scores yet."),
        rest.length > 0 && h("div", { class: "unshown" },
          h("span", null, "Not in a scoring hand: "), minis(rest))];
    }

    function offerLine(n, text, row) {
      const fresh = kit.isNew(n.event);
      return h("li", { key: n.event, class: fresh ? "new" : null },
        fresh && [h("span", { class: "tag" }, "new"), " "],
        h("span", { class: "offer-text" }, text),
        h("span", { class: "lapses" }, " Lapses ", h("time", { datetime: n.expires }, when(n.expires)),
          " unless matched, ", kit.countdown(n.expires, "now"), "."),
        row);
    }

    function offers() {
      const fee = view.trade_fee;
      if (!view.offers.length) return h("p", { class: "muted" }, "No offer names you.");
      return h("ul", { class: "offers", id: "pooker-offer-list" }, view.offers.map((n) =>
        offerLine(n, n.player + " offers you " + cardsText(n.give) + " for your " +
          cardsText(n.get) + ".", h("div", { class: "row" },
          h("button", { type: "button", id: "accept-" + n.event, onclick: kit.act(
            { action: "pooker.trade", with: n.player, give: n.get, get: n.give }, {
              answer: "pooker-offers-answer",
              confirm: { yes: "Yes, accept", question: "Accept " + n.player + "'s offer? You " +
                "give " + cardsText(n.get) + " and get " + cardsText(n.give) + ": the trade is " +
                "made at once, and each of you pays the Dealer " + plural(fee, "Point") + "." },
              say: (d) => traded(d, n.get, n.give, n.player) }) },
            "Accept " + n.player + "'s offer"),
          h("button", { type: "button", id: "decline-" + n.event, class: "quiet",
                        "aria-label": "Decline " + n.player + "'s offer", onclick: kit.act(
            { action: "pooker.decline", notification: n.event }, {
              answer: "pooker-offers-answer",
              confirm: { yes: "Yes, decline", question: "Decline " + n.player + "'s offer " +
                "(event " + n.event + ")? It stops waiting, and " + n.player + " is told." },
              say: () => "You declined " + n.player + "'s offer (event " + n.event + "); " +
                n.player + " is told." }) }, "Decline")))));
    }

    function waiting() {
      const mine = view.waiting.concat(view.all_waiting.filter((n) => n.player !== view.player));
      if (!mine.length) {
        return h("p", { class: "muted" },
          view.dealer ? "No trade notification waits." : "Nothing of yours waits.");
      }
      return h("ul", { class: "offers", id: "pooker-waiting-list" }, mine.map((n) => {
        const own = n.player === view.player;
        return offerLine(n, (own ? "You give " : n.player + " gives ") + cardsText(n.give) +
          " to " + n.other + " for " + cardsText(n.get) +
          (own ? "" : " (you see it as the Dealer)") + ".", own && h("div", { class: "row" },
          h("button", { type: "button", id: "withdraw-" + n.event, class: "quiet",
                        "aria-label": "Withdraw your offer to " + n.other, onclick: kit.act(
            { action: "pooker.withdraw", notification: n.event }, {
              answer: "pooker-waiting-answer",
              confirm: { yes: "Yes, withdraw", question: "Withdraw your offer to " + n.other +
                " (event " + n.event + ")? It stops waiting, and " + n.other + " is told." },
              say: () => "You withdrew your offer to " + n.other + " (event " + n.event + ")." }) },
          "Withdraw")));
      }));
    }

    function trade() {
      const can = !view.dealer && view.pcards.length > 0 && view.traders.length > 0;
      const body = (values) => {
        const chosen = values.give || [];
        const wanted = String(values.get || "").split(",").map((t) => t.trim()).filter(Boolean);
        // what the form can tell at once, under its button like the server's answers
        const refuse = !values.with ? "Choose the player you trade with."
          : !chosen.length ? "Choose at least one of your PCards to give."
          : !wanted.length ? "Name the cards you get, separated by commas." : null;
        if (refuse) {
          kit.say("trade-answer", refuse, "error");
          return null;
        }
        return { action: "pooker.trade", with: values.with, give: chosen, get: wanted };
      };
      return [h("p", { class: "muted", id: "trade-none", hidden: can },
        "You need PCards in your Hand to trade."),
      h("form", { id: "trade-form", novalidate: true, hidden: !can,
                  "aria-labelledby": "pooker-trade-title", onsubmit: kit.act(body, {
          answer: "trade-answer", reset: ["give", "get"],
          confirm: (b) => ({ yes: "Yes, notify the Dealer",
            question: "Notify the Dealer of this trade with " + b.with + "? You give " +
              cardsText(b.give) + " and get " + cardsText(b.get) + ". When " + b.with +
              " notifies the same trade it is made at once, and each of you pays the Dealer " +
              plural(view.trade_fee, "Point") + "; until then you may withdraw it." }),
          say: (d, b) => traded(d, b.give, b.get, b.with) }) },
        h("p", { class: "help", id: "trade-help" }, "Agree with the other player first: each " +
          "of you then notifies the Dealer, and the trade is made when both notifications " +
          "match. Each side pays the Dealer a fee."),
        h("label", { for: "trade-with" }, "With"),
        h("select", { id: "trade-with", name: "with" },
          view.traders.map((name) => h("option", { value: name, key: name }, name))),
        h("fieldset", { class: "give", id: "trade-give" },
          h("legend", null, "You give (from your PCards)"),
          h("div", { class: "checks", id: "trade-give-list" }, view.pcards.map((c, i) =>
            h("div", { class: "check", key: c.card },
              h("input", { type: "checkbox", id: "give-" + i, name: "give", value: c.card,
                           key: c.card }),
              h("label", { for: "give-" + i }, c.card + " (" + c.name + ")"))))),
        h("label", { for: "trade-get" }, "You get"),
        h("p", { class: "help", id: "trade-get-help" }, "Cards as the game names them, " +
          "separated by commas, as many as you give: for example Red Kd, Blue 10s."),
        h("input", { id: "trade-get", name: "get", type: "text", autocomplete: "off",
                     spellcheck: "false", "aria-describedby": "trade-get-help" }),
        h("div", { class: "row" }, h("button", { type: "submit", id: "trade-submit" },
          "Notify the Dealer of this trade")),
        kit.answer("trade-answer", (s) => settled(s, kit)))];
    }

    function motion() {
      const m = view.motion;
      if (view.showdown) {
        return h("p", { class: "muted" }, "A Showdown is open: no Motion can be made until it ends.");
      }
      if (!m) {
        if (view.dealer || !view.pcards.length) {
          return h("p", { class: "muted" }, "No Motion is pending. A Player with PCards may make one.");
        }
        return [h("p", null, "No Motion is pending. When one passes, a Showdown opens."),
          h("button", { type: "button", id: "make-motion", onclick: kit.act(
            { action: "pooker.motion" }, { answer: "pooker-motion-answer", settle: kit.reload,
              confirm: { yes: "Yes, make the Motion", question: "Make a Motion to Show Cards? " +
                "Every Player is told and may vote on it" + (kit.params["motion-days"]
                  ? " for " + plural(kit.params["motion-days"], "day") : "") + "; if it " +
                "passes, a Showdown opens at once, at which each Player with PCards may show." },
              say: (d) => "You made a Motion to Show Cards (" + (d.summary || "").split(" to ")[0] +
                "): every Player is told, and may vote on it." }) },
          "Make a Motion to Show Cards")];
      }
      const ends = motionEnds(view, kit);
      const need = m.threshold === "unanimity" ? m.players
        : m.threshold === "two-thirds" ? Math.ceil(2 * m.players / 3) : Math.floor(m.players / 2) + 1;
      return [h("p", { id: "motion-text" }, "Motion " + m.number + " to Show Cards, made by " +
        m.by + ": " + m.yes + " yes, " + m.no + " no, of " + plural(m.players, "Player") +
        "; it passes at " + need + " yes (" + m.threshold.replace("-", " ") + ")."),
      ends && kit.deadline(ends, "Voting ends", { id: "motion-ends" }),
      h("p", { id: "motion-mine" }, m.voted ? "You voted " + m.voted + "." : "You have not voted."),
      !m.voted && h("div", { class: "row" }, ["yes", "no"].map((v) => h("button", {
        type: "button", id: "vote-" + v, class: v === "no" ? "quiet" : null,
        onclick: kit.act({ action: "pooker.vote", vote: v }, { answer: "pooker-motion-answer",
          settle: kit.reload,
          confirm: { yes: "Yes, vote " + v, question: "Vote " + v + " on Motion " + m.number +
            " to Show Cards? It counts at once" + (v === "yes" ? ", and if it makes the Motion " +
              "pass, the Showdown opens." : ".") },
          say: (d) => "You voted " + v + " on Motion " + m.number + "." +
            (/Showdown (\d+) opened/.test(d.summary || "")
              ? " It passed: Showdown " + /Showdown (\d+)/.exec(d.summary)[1] +
                " is open; show your Poker Hands above." : "") }) },
        "Vote " + v + " on Motion " + m.number)))];
    }

    function declare() {
      const need = kit.params["trigger-pcards"], least = kit.params["trigger-min-shown"];
      const can = view.pcards.length >= need && !view.showdown;
      if (!can) {
        return h("p", { class: "muted" }, "At " + plural(need, "PCard") + " you may declare a " +
          "Showdown without a Motion (you hold " + view.pcards.length + ")" + (view.showdown
          ? "; a Showdown is open now." : "."));
      }
      return [h("p", null, "You hold " + plural(view.pcards.length, "PCard") + ": you may " +
        "declare a Showdown without a Motion, and must then show at least " +
        plural(least, "PCard") + "."),
      h("button", { type: "button", id: "declare", onclick: kit.act({ action: "pooker.declare" }, {
        answer: "pooker-declare-answer",
        confirm: { yes: "Yes, declare", question: "Declare a Showdown now? It opens at once, " +
          "every Player with PCards is told, and you must show at least " +
          plural(least, "PCard") + " before it ends; the cards shown return to the Deck when " +
          "it closes." },
        say: (d) => {
          const s = /Showdown (\d+).* by (\S+)$/.exec(d.summary || "");
          return s ? "You declared Showdown " + s[1] + ": show at least " +
            plural(least, "PCard") + " by " + when(s[2]) + "." : "You declared a Showdown.";
        } }) }, "Declare a Showdown")];
    }

    function showdown() {
      const sd = view.showdown;
      if (!sd) return null;
      const how = sd.how === "ten" ? sd.by + " declared it, holding " +
        plural(kit.params["trigger-pcards"] || 10, "PCard") + " or more" : "opened by " + sd.motion;
      const shown = Object.entries(sd.shown);
      let mine = null;
      if (sd.mine) mine = h("p", null, "You have shown " + plural(sd.mine.length, "Poker Hand") + ".");
      else if (view.dealer) mine = h("p", { class: "muted" }, "The Dealer may never show eir cards.");
      else if (!sd.ended && view.pcards.length) mine = showForm(sd);
      return [h("p", { id: "showdown-text" }, "Showdown " + sd.number + " is open (" + how +
        "). " + (sd.ended ? "Showing ended " + when(sd.ends) + "; the next tick closes it."
        : "Show until " + when(sd.ends) + ".")),
      !sd.ended && h("p", { class: "countdown" }, "Time left to show: ",
        h("span", { id: "showdown-left" }, kit.timeLeft(sd.ends))),
      shown.length > 0 && h("ul", { class: "shown", id: "showdown-shown" }, shown.map(([who, hands]) =>
        h("li", { key: who }, h("span", { class: "who" }, who + " showed: "),
          hands.map((hd) => minis(hd, "inline"))))),
      mine];
    }

    // The arrangement being made is the form's own: another player's showing draws the part
    // anew and leaves it as it is.
    function showForm(sd) {
      const slot = "pooker-showdown-answer";
      const best = () => {
        const where = {};
        view.hands.forEach((hd, k) => hd.cards.forEach((c) => { where[c.card] = String(k + 1); }));
        kit.fill("show-form", where);
        kit.say(slot, view.hands.length
          ? "Filled in: " + plural(view.hands.length, "Poker Hand") + ", Score " + view.score +
            (view.exact ? "." : " (the best found so far, maybe not the best).")
          : "None of your Poker Hands scores: nothing was filled in.", "ok");
      };
      const body = (values) => {
        const hands = new Map();
        view.pcards.forEach((c) => {
          const k = values[c.card];
          if (!k) return;
          if (!hands.has(k)) hands.set(k, []);
          hands.get(k).push(c.card);
        });
        if (!hands.size) {
          kit.say(slot, "Put at least one PCard in a Poker Hand to show it.", "error");
          return null;
        }
        return { action: "pooker.show",
                 hands: [...hands.keys()].sort((a, b) => a - b).map((k) => hands.get(k)) };
      };
      return h("form", { class: "show-form", id: "show-form", novalidate: true, onsubmit: kit.act(body, {
        answer: slot,
        confirm: (b) => {
          const cards = b.hands.flat();
          return { yes: "Yes, show them", question: "Show " + plural(b.hands.length, "Poker Hand") +
            " (" + b.hands.map((hd) => hd.join(", ")).join("; ") + ") at Showdown " + sd.number +
            "? A show cannot be taken back: " + (cards.length === 1 ? "this card is" : "these " +
            cards.length + " cards are") + " held by the Showdown and return to the Deck when " +
            "the Showdown closes." };
        },
        say: (d, b) => "You showed " + plural(b.hands.length, "Poker Hand") + " at Showdown " +
          sd.number + "; the cards return to the Deck when it closes." }) },
        h("fieldset", null, h("legend", null, "Arrange your PCards into Poker Hands of 1 to 5 cards"),
          sd.must_show && h("p", { class: "help" }, "You declared this Showdown: show at least " +
            plural(sd.must_show, "PCard") + "."),
          view.pcards.map((c, i) => h("div", { class: "show-row", key: c.card },
            h("label", { for: "show-" + i }, c.card + " (" + c.name + ")"),
            h("select", { id: "show-" + i, key: c.card, name: c.card, "data-card": c.card },
              h("option", { value: "" }, "not shown"),
              view.pcards.map((x, k) => h("option", { value: String(k + 1), key: k + 1 },
                "Poker Hand " + (k + 1))))))),
        h("div", { class: "row" },
          h("button", { type: "button", id: "show-best", class: "quiet", onclick: best },
            "Fill in my best arrangement"),
          h("button", { type: "submit", id: "show-submit" }, "Show these Poker Hands")));
    }

    function last() {
      const l = view.last;
      if (!l) return null;
      const scores = Object.entries(l.scores).map(([p, s]) => p + " " + s).join(", ");
      return h("p", { id: "last-text" }, "Showdown " + l.number + ": " + (l.winners.length
        ? l.winners.join(" and ") + " won, with a Score of " + l.prize + "; paid " +
          Object.entries(l.paid).map(([p, n]) => p + " " + plural(n, "Point")).join(", ")
        : "nobody won") + ". Scores shown: " + (scores || "none") + ".");
    }

    // Whether what a notice waited for is settled, by the view (the notice's own words name
    // it: a Motion, a Showdown, or a notification by its event).
    function done(text) {
      const head = text.split("\n")[0];
      let m = /Motion (\d+) to Show Cards/.exec(head);
      if (m) return !view.motion || view.motion.number !== +m[1] || Boolean(view.motion.voted);
      m = /Showdown (\d+) is open/.exec(head);
      if (m) return !view.showdown || view.showdown.number !== +m[1] || Boolean(view.showdown.mine);
      m = /\(event (\d+)\)/.exec(text);
      if (m) return !view.offers.some((o) => o.event === +m[1]);
      return false;
    }

    // The player's Pooker notices that gave em a deadline, newest first: what, by when, and
    // whether it still waits.
    function noticeList() {
      const told = notices.filter((n) => kit.deadlineOf(n.text));
      if (!told.length) return h("p", { class: "muted" }, "No notice of Pooker has given you a deadline.");
      return h("ul", { class: "waiting-list", id: "pooker-notice-list" }, told.map((n) => {
        const by = kit.deadlineOf(n.text);
        return h("li", { key: n.event },
          kit.isNew(n.event) && [h("span", { class: "tag" }, "new"), " "],
          h("span", { class: "headline" }, n.text.split("\n")[0]), " ",
          done(n.text) ? h("span", { class: "by done" }, "By ", h("time", { datetime: by }, when(by)),
            ": done, it no longer waits for you.") : kit.deadline(by));
      }));
    }

    const need = kit.params["trigger-pcards"];
    const declared = kit.said("pooker-declare-answer") !== null;
    const officer = view.dealer && kit.officer;
    return h("section", { class: "game-panel", id: "pooker", "aria-labelledby": "pooker-title" },
      h("h3", { id: "pooker-title" }, "Pooker"),
      h("p", { class: "pooker-summary", id: "pooker-summary" }, view.dealer
        ? "You are the Dealer: you hold no PCards and do not trade; the Bank of Points is " +
          "yours to pay from, and every trade notification waiting is shown to you."
        : "You have " + plural(view.points, "Point") + " · " + plural(view.pcards.length, "PCard") +
          " in your Hand · a trade's fee is " + plural(view.trade_fee, "Point") + " from each side."),
      part("todo", "Waiting for you", todo()),
      part("arrangement", "Your best arrangement", arrangement(), { hidden: view.dealer }),
      part("showdown", "Showdown", showdown(), { hidden: !view.showdown,
        slot: answer("showdown", (s) => overAtClose(s, kit, true)) }),
      // no offer names the Dealer, who does not trade
      part("offers", "Offers made to you", offers(), { hidden: view.dealer,
        slot: answer("offers", (s) => settled(s, kit)) }),
      part("waiting", view.dealer ? "Trade notifications waiting" : "Your offers waiting",
        waiting(), { slot: answer("waiting") }),
      part("trade", "Offer a trade", trade(), { hidden: view.dealer }),
      part("motion", "Motion to Show Cards", motion(), {
        slot: answer("motion", (s) => overAtClose(s, kit, false)) }),
      part("declare", "Declare a Showdown", need && !view.dealer ? declare() : null, {
        hidden: view.dealer || !need || (!view.pcards.length && !declared),
        slot: answer("declare", (s) => overAtClose(s, kit, false)) }),
      part("open", "Open a Showdown", officer && kit.form({
        action: "pooker.showdown_open", title: "Open a Showdown", button: "Open the Showdown",
        doc: "When the nomic passed a Motion to Show Cards (name it), or a Player holds " +
          "ten or more PCards (choose em): one of the two.",
        fields: [{ name: "motion_passed", kind: "text", required: false,
                   doc: "The Motion the nomic passed" },
                 { name: "ten", kind: "player", required: false,
                   doc: "Or the Player holding ten or more PCards" }],
      }, { id: "pooker-open-form", say: (d) => kit.sentence(d.summary || "done") }),
      { hidden: !officer }),
      part("last", "The last Showdown", last(), { hidden: !view.last }),
      part("notices", "Your Pooker notices", noticeList()));
  }

  page.registerGame({ name: "pooker", render, waiting: waits, bookkeeping: ["pooker.reminded"] });
})();
