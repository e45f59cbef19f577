"use strict";
// Pooker's panel on the page (rule 399): the player's PCards and best arrangement, the offers
// naming em and eir own waiting, a trade's form, the Motion to Show Cards, the Showdown and the
// last one; and Pooker's sentences for the page's log. Served as /static/games/pooker.js from
// this package (CardGame.panel); the page loads it when Pooker is in force and it registers
// itself with the page's hook, window.NomicCards (see app.js), whose helpers it uses.
(function () {
  const page = window.NomicCards;
  if (!page) return;  // not on the game's page
  const { el, status, plural, part, when, timeLeft, minis, cardsText, isNew, send, reload,
          slot } = page;
  const $ = (id) => document.getElementById(id);

  const CATEGORY = (name) => name.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");

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
        const sec = el("section", undefined, "game-part");
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
        const answer = await send(body, this.token);
        this.say(done || answer.summary);
        reload(this.token);
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
      if (isNew(n.event)) {
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
      // another player's showing redraws the part: the arrangement being made, and the focus
      // in it, are kept
      const form = $("show-form");
      const picked = new Map(form
        ? [...form.querySelectorAll("select")].map((s) => [s.dataset.card, s.value]) : []);
      const focused = form && form.contains(document.activeElement)
        ? document.activeElement.id : "";
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
          out.push(this.showForm(view, sd, picked));
        }
        return out;
      });
      if (focused && $(focused) && document.activeElement !== $(focused)) $(focused).focus();
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

  // What the log says of each of Pooker's events.
  const KINDS = {
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

  page.registerGame({ name: "pooker", panel: pooker, describe: KINDS });
})();
