"use strict";
// Pooker's panel on the page (rule 399): what waits for the player and by when, eir PCards and
// best arrangement, the offers naming em (Accept, Decline) and eir own waiting (Withdraw), a
// trade's form, the Motion to Show Cards and its voting deadline, declaring a Showdown at
// trigger-pcards PCards, the Showdown and the last one, eir Pooker notices with their
// deadlines; the Dealer's Open a Showdown (with an officer token); and Pooker's sentences for
// the page's log. Every action's answer appears under its control (the page's answer slots);
// what cannot be undone -- a trade notified or accepted, a show, a withdrawal, a decline, a
// declaration -- is confirmed first, saying what happens. Served as /static/games/pooker.js
// from this package (CardGame.panel); the page loads it when Pooker is in force and it
// registers itself with the page's hook, window.NomicCards (see app.js), whose helpers it uses.
(function () {
  const page = window.NomicCards;
  if (!page) return;  // not on the game's page
  const { el, status, plural, part, when, minis, cardsText, isNew, take, answerSlot,
          countdown, deadline, deadlineOf, passed, isOfficer, actionForm, slot } = page;
  const $ = (id) => document.getElementById(id);

  const CATEGORY = (name) => name.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
  const SECTIONS = [["todo", "Waiting for you"], ["arrangement", "Your best arrangement"],
    ["showdown", "Showdown"], ["offers", "Offers made to you"], ["waiting", "Your offers waiting"],
    ["trade", "Offer a trade"], ["motion", "Motion to Show Cards"],
    ["declare", "Declare a Showdown"], ["open", "Open a Showdown"],
    ["last", "The last Showdown"], ["notices", "Your Pooker notices"]];
  // the sections whose controls answer in a slot of the section's own, under its list
  const ANSWERED = ["showdown", "offers", "waiting", "motion", "declare"];

  function motionEnds(view, notices) {
    const m = view.motion;
    if (!m) return null;
    if (m.ends) return m.ends;
    // the Motion's voting deadline, from the notice that told the player of it
    const told = notices.find((n) => new RegExp("Motion " + m.number + " to Show Cards")
      .test(n.text.split("\n")[0]) && deadlineOf(n.text));
    return told ? deadlineOf(told.text) : null;
  }

  const pooker = {
    root: null, token: null, view: null, notices: [], params: null,
    // trade notifications whose answer says "waits", by event: the answer to say the outcome
    watched: new Map(),

    build() {
      const root = el("section", undefined, "game-panel");
      root.id = "pooker";
      root.setAttribute("aria-labelledby", "pooker-title");
      const title = el("h3", "Pooker");
      title.id = "pooker-title";
      const summary = el("p", undefined, "pooker-summary");
      summary.id = "pooker-summary";
      root.append(title, summary);
      SECTIONS.forEach(([id, text]) => {
        const sec = el("section", undefined, "game-part");
        sec.id = "pooker-" + id;
        const h = el("h4", text);
        h.id = "pooker-" + id + "-title";
        sec.setAttribute("aria-labelledby", h.id);
        const body = el("div");
        body.id = "pooker-" + id + "-body";
        sec.append(h, body);
        if (ANSWERED.includes(id)) sec.append(answerSlot("pooker-" + id + "-answer"));
        root.append(sec);
      });
      root.querySelector("#pooker-trade-body").append(this.tradeForm());
      return root;
    },

    slotOf(id) {
      return $("pooker-" + id + "-answer-slot");
    },

    act(body, control, slotId, options) {
      return take({ body, token: this.token, control, slot: this.slotOf(slotId), ...options });
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
      submit.id = "trade-submit";
      const row = el("div", undefined, "row");
      row.append(submit);
      const answers = answerSlot("trade-answer");
      form.append(help, withLabel, other, give, getLabel, getHelp, get, row, answers);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const chosen = [...form.querySelectorAll("#trade-give-list input:checked")].map((i) => i.value);
        const wanted = get.value.split(",").map((t) => t.trim()).filter(Boolean);
        const answer = $("trade-answer");
        // what the form can tell at once, under its button like the server's answers
        if (!other.value) return status(answer, "Choose the player you trade with.", "error");
        if (!chosen.length) return status(answer, "Choose at least one of your PCards to give.", "error");
        if (!wanted.length) return status(answer, "Name the cards you get, separated by commas.", "error");
        const fee = this.view ? this.view.trade_fee : 0;
        await take({
          body: { action: "pooker.trade", with: other.value, give: chosen, get: wanted },
          token: this.token, control: submit, slot: answers,
          confirm: { yes: "Yes, notify the Dealer",
            question: "Notify the Dealer of this trade with " + other.value + "? You give " +
              cardsText(chosen) + " and get " + cardsText(wanted) + ". When " + other.value +
              " notifies the same trade it is made at once, and each of you pays the Dealer " +
              plural(fee, "Point") + "; until then you may withdraw it." },
          say: (d) => this.traded(d, chosen, wanted, other.value, $("trade-answer")),
          sent: () => {  // at once: the player may be filling in the next one already
            get.value = "";
            form.querySelectorAll("#trade-give-list input").forEach((i) => { i.checked = false; });
          },
        });
      });
      return form;
    },

    // What a trade's answer says: made, or waiting (and then watched until it is settled).
    traded(data, gave, got, other, answer) {
      if (!data.waiting) {
        return "Traded with " + other + ": you gave " + cardsText(gave) + " and got " +
          cardsText(got) + ".";
      }
      const mine = (data.events || []).find((e) => e.kind === "pooker.notified");
      if (mine) this.watched.set(mine.event, { answer, other });
      answer.dataset.watch = mine ? String(mine.event) : "";
      return "Sent: your notification (event " + (mine ? mine.event : "?") + ") waits for " +
        other + "'s matching one.";
    },

    // A watched notification's outcome, said where its "waits" was said.
    settle(notified, text) {
      const w = this.watched.get(notified);
      if (!w) return;
      this.watched.delete(notified);
      if (w.answer.isConnected && w.answer.dataset.watch === String(notified)) {
        status(w.answer, text, "ok");
      }
    },

    onEvent(e) {
      const p = e.payload || {};
      if (e.kind === "pooker.traded") {
        (p.notified || []).forEach((n) => this.settle(n, "Traded: " + p.a + " and " + p.b +
          "'s notifications matched (events " + (p.notified || []).join(" and ") + ")."));
      } else if (e.kind === "pooker.lapsed") {
        this.settle(p.notified, "Your notification (event " + p.notified + ") lapsed unmatched.");
      } else if (e.kind === "pooker.withdrawn") {
        this.settle(p.notified, "You withdrew your notification (event " + p.notified + ").");
      } else if (e.kind === "pooker.declined") {
        this.settle(p.notified, "Your notification (event " + p.notified + ") was declined: " +
          "it no longer waits.");
      } else if (e.kind === "pooker.closed") {
        // an answer that said the Showdown is open, or what happens when it closes, is over:
        // "The last Showdown" says how it ended
        ["motion", "showdown", "declare"].forEach((id) => {
          const answer = $("pooker-" + id + "-answer");
          if (answer && new RegExp("Showdown " + p.number + "\\b").test(answer.textContent)) {
            status(answer, "");
          }
        });
      } else if (e.kind === "rule.amended" && p.rule === "pooker") {
        this.params = null;
      }
    },

    async loadParams() {
      if (this.params) return this.params;
      try {
        const r = await fetch("/api/v1/rules", { cache: "no-cache", credentials: "omit",
                                                 referrerPolicy: "no-referrer" });
        const rules = r.ok ? await r.json() : [];
        const rule = rules.find((x) => x.rule === "pooker");
        this.params = rule ? rule.params : {};
      } catch (e) {
        this.params = {};
      }
      return this.params;
    },

    render(hand, games, token, mine) {
      const view = games && games.pooker;
      const host = slot("pooker");
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
      this.notices = (mine && mine.notices) || this.notices;
      const text = view.dealer
        ? "You are the Dealer: you hold no PCards and do not trade; the Bank of Points is " +
          "yours to pay from, and every trade notification waiting is shown to you."
        : "You have " + plural(view.points, "Point") + " · " + plural(view.pcards.length, "PCard") +
          " in your Hand · a trade's fee is " + plural(view.trade_fee, "Point") + " from each side.";
      if ($("pooker-summary").textContent !== text) $("pooker-summary").textContent = text;
      this.todo(view);
      this.arrangement(view);
      this.showdown(view);
      this.offers(view);
      this.waiting(view);
      this.trade(view);
      this.motion(view);
      this.open(view);
      this.last(view);
      this.noticeList(view);
      this.loadParams().then(() => this.root && this.declare(this.view));
      this.watched.forEach((w, n) => {  // a notification gone from the view without its event
        if (!view.waiting.some((x) => x.event === n) && !w.answer.isConnected) this.watched.delete(n);
      });
    },

    clear() {
      if (this.root) this.root.remove();
      this.root = null;
      this.view = null;
      this.watched.clear();
    },

    // What waits for the player now, each with its deadline: from the view, so an item goes
    // the moment what it describes is done (a vote cast, a show made, an offer answered).
    todo(view) {
      const items = [];
      const sd = view.showdown;
      if (sd && !sd.ended && !sd.mine && !view.dealer && view.pcards.length) {
        items.push(["Show your Poker Hands at Showdown " + sd.number +
          (sd.must_show ? " (at least " + plural(sd.must_show, "PCard") + ")" : ""), sd.ends,
          "#pooker-showdown"]);
      }
      if (sd && view.dealer) {
        items.push(["Showdown " + sd.number + "'s showing ends; a tick after it closes the " +
          "Showdown", sd.ends, "#pooker-showdown"]);
      }
      const m = view.motion;
      if (m && !m.voted) {
        items.push(["Vote on Motion " + m.number + " to Show Cards", motionEnds(view, this.notices),
          "#pooker-motion"]);
      }
      view.offers.forEach((n) => items.push(["Answer " + n.player + "'s offer: accept or decline " +
        "it", n.expires, "#pooker-offers"]));
      part($("pooker-todo-body"), items, () => {
        if (!items.length) return [el("p", "Nothing waits for you.", "muted")];
        const list = el("ul", undefined, "waiting-list");
        list.id = "pooker-todo-list";
        list.append(...items.map(([text, by, where]) => {
          const li = el("li");
          const a = el("a", text);
          a.href = where;
          li.append(a);
          if (by) li.append(deadline(by));
          return li;
        }));
        return [list];
      });
    },

    arrangement(view) {
      $("pooker-arrangement").hidden = view.dealer;
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
      if (isNew(n.event)) {
        li.classList.add("new");
        li.append(el("span", "new", "tag"), " ");
      }
      const lapses = el("span", undefined, "lapses");
      const t = el("time", when(n.expires));
      t.dateTime = n.expires;
      lapses.append(" Lapses " , t, " unless matched, ", countdown(n.expires, "now"), ".");
      li.append(el("span", text, "offer-text"), lapses);
      return li;
    },

    offers(view) {
      const fee = view.trade_fee;
      $("pooker-offers").hidden = view.dealer;  // no offer names the Dealer, who does not trade
      part($("pooker-offers-body"), [view.offers, fee], () => {
        if (!view.offers.length) return [el("p", "No offer names you.", "muted")];
        const list = el("ul", undefined, "offers");
        list.id = "pooker-offer-list";
        list.append(...view.offers.map((n) => {
          const li = this.offerLine(n, n.player + " offers you " + cardsText(n.give) +
            " for your " + cardsText(n.get) + ".");
          const row = el("div", undefined, "row");
          const accept = el("button", "Accept " + n.player + "'s offer");
          accept.type = "button";
          accept.id = "accept-" + n.event;
          accept.addEventListener("click", () => this.act(
            { action: "pooker.trade", with: n.player, give: n.get, get: n.give }, accept, "offers", {
              confirm: { yes: "Yes, accept", question: "Accept " + n.player + "'s offer? You " +
                "give " + cardsText(n.get) + " and get " + cardsText(n.give) + ": the trade is " +
                "made at once, and each of you pays the Dealer " + plural(fee, "Point") + "." },
              say: (d) => this.traded(d, n.get, n.give, n.player, $("pooker-offers-answer")) }));
          const decline = el("button", "Decline", "quiet");
          decline.type = "button";
          decline.id = "decline-" + n.event;
          decline.setAttribute("aria-label", "Decline " + n.player + "'s offer");
          decline.addEventListener("click", () => this.act(
            { action: "pooker.decline", notification: n.event }, decline, "offers", {
              confirm: { yes: "Yes, decline", question: "Decline " + n.player + "'s offer " +
                "(event " + n.event + ")? It stops waiting, and " + n.player + " is told." },
              say: () => "You declined " + n.player + "'s offer (event " + n.event + "); " +
                n.player + " is told." }));
          row.append(accept, decline);
          li.append(row);
          return li;
        }));
        return [list];
      });
    },

    waiting(view) {
      const mine = view.waiting.concat(view.all_waiting.filter((n) => n.player !== view.player));
      const title = view.dealer ? "Trade notifications waiting" : "Your offers waiting";
      if ($("pooker-waiting-title").textContent !== title) $("pooker-waiting-title").textContent = title;
      part($("pooker-waiting-body"), mine, () => {
        if (!mine.length) {
          return [el("p", view.dealer ? "No trade notification waits." : "Nothing of yours waits.",
            "muted")];
        }
        const list = el("ul", undefined, "offers");
        list.id = "pooker-waiting-list";
        list.append(...mine.map((n) => {
          const own = n.player === view.player;
          const li = this.offerLine(n, (own ? "You give " : n.player + " gives ") +
            cardsText(n.give) + " to " + n.other + " for " + cardsText(n.get) +
            (own ? "" : " (you see it as the Dealer)") + ".");
          if (own) {
            const withdraw = el("button", "Withdraw", "quiet");
            withdraw.type = "button";
            withdraw.id = "withdraw-" + n.event;
            withdraw.setAttribute("aria-label", "Withdraw your offer to " + n.other);
            withdraw.addEventListener("click", () => this.act(
              { action: "pooker.withdraw", notification: n.event }, withdraw, "waiting", {
                confirm: { yes: "Yes, withdraw", question: "Withdraw your offer to " + n.other +
                  " (event " + n.event + ")? It stops waiting, and " + n.other + " is told." },
                say: () => "You withdrew your offer to " + n.other + " (event " + n.event + ")." }));
            const row = el("div", undefined, "row");
            row.append(withdraw);
            li.append(row);
          }
          return li;
        }));
        return [list];
      });
    },

    trade(view) {
      const form = $("trade-form");
      const can = !view.dealer && view.pcards.length > 0 && view.traders.length > 0;
      form.hidden = !can;
      $("pooker-trade").hidden = view.dealer;
      let note = $("trade-none");
      if (!note) {
        note = el("p", "", "muted");
        note.id = "trade-none";
        form.before(note);
      }
      note.hidden = can;
      note.textContent = "You need PCards in your Hand to trade.";
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
      const ends = motionEnds(view, this.notices);
      part($("pooker-motion-body"), [m, ends, view.showdown !== null, view.dealer,
                                     view.pcards.length > 0], () => {
        if (view.showdown) return [el("p", "A Showdown is open: no Motion can be made until it ends.", "muted")];
        if (!m) {
          if (view.dealer || !view.pcards.length) {
            return [el("p", "No Motion is pending. A Player with PCards may make one.", "muted")];
          }
          const make = el("button", "Make a Motion to Show Cards");
          make.type = "button";
          make.id = "make-motion";
          make.addEventListener("click", () => this.act({ action: "pooker.motion" }, make, "motion", {
            say: (d) => "You made a Motion to Show Cards (" + (d.summary || "").split(" to ")[0] +
              "): every Player is told, and may vote on it." }));
          return [el("p", "No Motion is pending. When one passes, a Showdown opens."), make];
        }
        const need = m.threshold === "unanimity" ? m.players
          : m.threshold === "two-thirds" ? Math.ceil(2 * m.players / 3) : Math.floor(m.players / 2) + 1;
        const text = el("p", "Motion " + m.number + " to Show Cards, made by " + m.by + ": " +
          m.yes + " yes, " + m.no + " no, of " + plural(m.players, "Player") + "; it passes at " +
          need + " yes (" + m.threshold.replace("-", " ") + ").");
        text.id = "motion-text";
        const out = [text];
        if (ends) {
          const by = deadline(ends, "Voting ends");
          by.id = "motion-ends";
          out.push(by);
        }
        const own = el("p", m.voted ? "You voted " + m.voted + "." : "You have not voted.");
        own.id = "motion-mine";
        out.push(own);
        if (!m.voted) {
          const row = el("div", undefined, "row");
          ["yes", "no"].forEach((v) => {
            const b = el("button", "Vote " + v + " on Motion " + m.number, v === "no" ? "quiet" : "");
            b.type = "button";
            b.id = "vote-" + v;
            b.addEventListener("click", () => this.act({ action: "pooker.vote", vote: v }, b, "motion", {
              say: (d) => "You voted " + v + " on Motion " + m.number + "." +
                (/Showdown (\d+) opened/.test(d.summary || "")
                  ? " It passed: Showdown " + /Showdown (\d+)/.exec(d.summary)[1] +
                    " is open; show your Poker Hands above." : "") }));
            row.append(b);
          });
          out.push(row);
        }
        return out;
      });
    },

    declare(view) {
      const sec = $("pooker-declare");
      const need = this.params && this.params["trigger-pcards"];
      const least = this.params && this.params["trigger-min-shown"];
      const answered = $("pooker-declare-answer").textContent !== "";
      sec.hidden = !view || view.dealer || !need || (!view.pcards.length && !answered);
      if (sec.hidden) return;
      const can = view.pcards.length >= need && !view.showdown;
      part($("pooker-declare-body"), [can, need, least, view.pcards.length, Boolean(view.showdown)], () => {
        if (!can) {
          return [el("p", "At " + plural(need, "PCard") + " you may declare a Showdown without " +
            "a Motion (you hold " + view.pcards.length + ")" + (view.showdown
            ? "; a Showdown is open now." : "."), "muted")];
        }
        const b = el("button", "Declare a Showdown");
        b.type = "button";
        b.id = "declare";
        b.addEventListener("click", () => this.act({ action: "pooker.declare" }, b, "declare", {
          confirm: { yes: "Yes, declare", question: "Declare a Showdown now? It opens at once, " +
            "every Player with PCards is told, and you must show at least " +
            plural(least, "PCard") + " before it ends; the cards shown return to the Deck " +
            "when it closes." },
          say: (d) => {
            const m = /Showdown (\d+).* by (\S+)$/.exec(d.summary || "");
            return m ? "You declared Showdown " + m[1] + ": show at least " + plural(least, "PCard") +
              " by " + when(m[2]) + "." : "You declared a Showdown.";
          } }));
        return [el("p", "You hold " + plural(view.pcards.length, "PCard") + ": you may declare " +
          "a Showdown without a Motion, and must then show at least " + plural(least, "PCard") +
          "."), b];
      });
    },

    open(view) {
      const sec = $("pooker-open");
      const officer = view.dealer && isOfficer();
      sec.hidden = !officer;
      if (!officer || $("pooker-open-form")) return;
      $("pooker-open-body").append(actionForm({
        action: "pooker.showdown_open", title: "Open a Showdown", button: "Open the Showdown",
        doc: "When the nomic passed a Motion to Show Cards (name it), or a Player holds " +
          "ten or more PCards (choose em): one of the two.",
        fields: [{ name: "motion_passed", kind: "text", required: false,
                   doc: "The Motion the nomic passed" },
                 { name: "ten", kind: "player", required: false,
                   doc: "Or the Player holding ten or more PCards" }],
      }, { id: "pooker-open-form", token: () => this.token,
           say: (d) => page.sentence(d.summary || "done") }));
    },

    showdown(view) {
      const sd = view.showdown;
      const sec = $("pooker-showdown");
      sec.hidden = !sd;
      if (!sd) {  // closed: what was said of it is over (the last Showdown says the result)
        status("pooker-showdown-answer", "");
        part($("pooker-showdown-body"), null, () => []);
        return;
      }
      // another player's showing redraws the part: the arrangement being made, and the focus
      // in it, are kept
      const form = $("show-form");
      const picked = new Map(form
        ? [...form.querySelectorAll("select")].map((s) => [s.dataset.card, s.value]) : []);
      part($("pooker-showdown-body"), [sd, view.pcards, view.dealer, view.hands], () => {
        const out = [];
        const how = sd.how === "ten" ? sd.by + " declared it, holding " + plural(
          (this.params && this.params["trigger-pcards"]) || 10, "PCard") + " or more"
          : "opened by " + sd.motion;
        const head = el("p", "Showdown " + sd.number + " is open (" + how + "). " + (sd.ended
          ? "Showing ended " + when(sd.ends) + "; the next tick closes it."
          : "Show until " + when(sd.ends) + "."));
        head.id = "showdown-text";
        out.push(head);
        if (!sd.ended) {
          const left = el("p", "Time left to show: ", "countdown");
          const clock = el("span", page.timeLeft(sd.ends));
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
          out.push(this.showForm(view, sd, picked));
        }
        return out;
      });
    },

    showForm(view, sd, picked) {
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
        pick.value = (picked && picked.get(c.card)) || "";
        if (pick.selectedIndex < 0) pick.value = "";  // a Poker Hand there is no longer
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
        status("pooker-showdown-answer", view.hands.length
          ? "Filled in: " + plural(view.hands.length, "Poker Hand") + ", Score " + view.score + "."
          : "None of your Poker Hands scores: nothing was filled in.", "ok");
      });
      const submit = el("button", "Show these Poker Hands");
      submit.type = "submit";
      submit.id = "show-submit";
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
        if (!hands.size) {
          status("pooker-showdown-answer", "Put at least one PCard in a Poker Hand to show it.", "error");
          return;
        }
        const list = [...hands.keys()].sort((a, b) => a - b).map((k) => hands.get(k));
        const cards = list.flat();
        this.act({ action: "pooker.show", hands: list }, submit, "showdown", {
          confirm: { yes: "Yes, show them", question: "Show " + plural(list.length, "Poker Hand") +
            " (" + list.map((h) => h.join(", ")).join("; ") + ") at Showdown " + sd.number +
            "? A show cannot be taken back: " + (cards.length === 1 ? "this card is" : "these " +
            cards.length + " cards are") + " held by the Showdown and return to the Deck when " +
            "the Showdown closes." },
          say: () => "You showed " + plural(list.length, "Poker Hand") + " at Showdown " +
            sd.number + "; the cards return to the Deck when it closes." });
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

    // Whether what a notice waited for is settled, by the view (the notice's own words name
    // it: a Motion, a Showdown, or a notification by its event).
    settled(view, text) {
      const head = text.split("\n")[0];
      let m = /Motion (\d+) to Show Cards/.exec(head);
      if (m) return !view.motion || view.motion.number !== +m[1] || Boolean(view.motion.voted);
      m = /Showdown (\d+) is open/.exec(head);
      if (m) return !view.showdown || view.showdown.number !== +m[1] || Boolean(view.showdown.mine);
      m = /\(event (\d+)\)/.exec(text);
      if (m) return !view.offers.some((o) => o.event === +m[1]);
      return false;
    },

    // The player's Pooker notices that gave em a deadline, newest first: what, by when, and
    // whether it still waits.
    noticeList(view) {
      const told = this.notices.filter((n) => deadlineOf(n.text)).map((n) => ({
        event: n.event, text: n.text, by: deadlineOf(n.text), done: this.settled(view, n.text) }));
      part($("pooker-notices-body"), told, () => {
        if (!told.length) return [el("p", "No notice of Pooker has given you a deadline.", "muted")];
        const list = el("ul", undefined, "waiting-list");
        list.id = "pooker-notice-list";
        list.append(...told.map((n) => {
          const li = el("li");
          li.append(el("span", n.text.split("\n")[0], "headline"), " ");
          if (n.done) {
            const t = el("time", when(n.by));
            t.dateTime = n.by;
            const by = el("span", undefined, "by done");
            by.append("By ", t, ": done, it no longer waits for you.");
            li.append(by);
          } else {
            li.append(deadline(n.by));
          }
          if (isNew(n.event)) li.prepend(el("span", "new", "tag"), " ");
          return li;
        }));
        return [list];
      });
    },
  };

  // What the log says of each of Pooker's events.
  const KINDS = {
    "pooker.notified": (e) => e.payload.player + " notified the Dealer of a trade (its terms " +
      "are private); it waits for the other side until " + when(e.payload.expires) + ".",
    "pooker.traded": (e) => e.payload.a + " and " + e.payload.b + " traded " +
      plural(e.payload.cards, "PCard") + "; each paid the Dealer " + plural(e.payload.fee, "Point") + ".",
    "pooker.lapsed": (e) => "A trade notification of " + e.payload.player + " (event " +
      e.payload.notified + ") lapsed unmatched.",
    "pooker.withdrawn": (e) => e.payload.player + " withdrew eir trade notification (event " +
      e.payload.notified + ").",
    "pooker.declined": (e) => "The trade notification of " + e.payload.author + " (event " +
      e.payload.notified + ") was declined by the other side.",
    "pooker.reminded": (e) => "The other side of " + e.payload.player + "'s trade notification " +
      "(event " + e.payload.notified + ") was reminded that it lapses in a day.",
    "pooker.motion": (e) => e.payload.player + " made Motion " + e.payload.number + " to Show Cards" +
      (e.payload.ends ? "; its voting ends " + when(e.payload.ends) : "") + ".",
    "pooker.voted": (e) => e.payload.player + " voted " + (e.payload.vote ? "yes" : "no") +
      " on Motion " + e.payload.number + " to Show Cards.",
    "pooker.failed": (e) => "Motion " + e.payload.number + " to Show Cards failed (" +
      e.payload.yes + " yes, " + e.payload.no + " no of " + e.payload.players + " Players" +
      (e.payload.why === "time" ? "; its voting ended" : "") + ").",
    "pooker.opened": (e) => "Showdown " + e.payload.number + " opened (" +
      (e.payload.how === "ten" ? "declared by " + e.payload.by : e.payload.motion) +
      "); showing ends " + when(e.payload.ends) + ".",
    "pooker.shown": (e) => e.payload.player + " showed " + plural(e.payload.hands.length, "Poker Hand") +
      " at Showdown " + e.payload.showdown + ".",
    "pooker.closed": (e) => "Showdown " + e.payload.number + " ended: " + (e.payload.winners.length
      ? e.payload.winners.join(" and ") + " won with a Score of " + e.payload.prize
      : "nobody won") + ".",
  };

  page.registerGame({ name: "pooker", panel: pooker, describe: KINDS,
                      bookkeeping: ["pooker.reminded"] });
})();
