"use strict";
// The page reads the public record, and a player's own hand with their token. The token lives in
// this tab's sessionStorage and travels only in the Authorization header.
(function () {
  const KEY = "nomic-cards-token";
  const $ = (id) => document.getElementById(id);

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function rows(table, data) {
    const body = $(table).querySelector("tbody");
    body.replaceChildren(...data.map((cells) => {
      const tr = el("tr");
      cells.forEach((c, i) => tr.appendChild(el(i === 0 ? "th" : "td", String(c))));
      tr.firstChild.setAttribute("scope", "row");
      return tr;
    }));
  }

  async function get(path, token) {
    const headers = token ? { Authorization: "Bearer " + token } : {};
    const r = await fetch(path, { headers, cache: "no-cache" });
    if (!r.ok) {
      let msg = "the server answered " + r.status;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      const err = new Error(msg); err.status = r.status; throw err;
    }
    return path.includes("format=text") ? r.text() : r.json();
  }

  async function loadPublic() {
    try {
      const [game, deck, players, dice, reports, head] = await Promise.all([
        get("/api/v1/game"), get("/api/v1/deck"), get("/api/v1/players"),
        get("/api/v1/dice"), get("/api/v1/reports"), get("/api/v1/ledger/head")]);
      $("game-line").textContent = "Dealer: " + (game.dealer || "none") +
        (game.nweek ? " · nweek " + game.nweek + ", nday " + game.nday : "") +
        " · the Clock is " + (game.clock_running ? "On" : "Off") +
        " · " + deck.total + " of " + deck.sides + " cards in the Deck";
      rows("deck", deck.by_back.map((b) => [b.back, b.cards]));
      rows("players", players.players.filter((p) => p.active).map((p) => [
        p.name + (p.dealer ? " (Dealer)" : ""), p.dealer ? "the Deck" : p.cards,
        p.by_back.map((b) => b.cards + " " + b.back).join(", ") || "—"]));
      rows("dice", dice.map((d) => [d.period, d.rolls, d.commitment, d.seed || "secret"]));
      $("head").textContent = "event " + head.event + ", " + head.hash;
      if (reports.length) {
        $("report").textContent = await get("/api/v1/reports/" + reports[0].nweek + "?format=text");
      }
    } catch (e) {
      $("game-line").textContent = "The game could not be loaded: " + e.message;
    }
  }

  function cardItem(c) {
    const li = el("li", undefined, "playing-card");
    li.appendChild(el("span", c.card, "face"));
    li.appendChild(el("span", c.name, "name"));
    li.appendChild(el("span", c.back + " back", "back"));
    li.setAttribute("aria-label", c.name + ", " + c.back + " back");
    return li;
  }

  async function loadMine(token) {
    $("me-status").textContent = "Loading your hand…";
    try {
      const [hand, notices] = await Promise.all([
        get("/api/v1/me/hand", token), get("/api/v1/me/notices", token)]);
      $("hand").replaceChildren(...hand.cards.map(cardItem));
      if (!hand.cards.length) $("hand").appendChild(el("li", "No cards yet."));
      $("notices").replaceChildren(...notices.map((n) => el("li",
        n.text + " (" + n.rolls.length + " roll" + (n.rolls.length === 1 ? "" : "s") + ": " +
        n.rolls.map((r) => r.value + " on a d" + r.sides).join(", ") + ")")));
      $("me").hidden = false;
      $("forget").hidden = false;
      $("me-status").textContent = hand.player + ", you hold " + hand.cards.length +
        " card" + (hand.cards.length === 1 ? "" : "s") + " (as of event " + hand.as_of + ").";
    } catch (e) {
      $("me").hidden = true;
      if (e.status === 401) sessionStorage.removeItem(KEY);
      $("me-status").textContent = e.status === 401
        ? "That token is not valid. Ask the Dealer for a new one." : e.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("token-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const token = $("token").value.trim();
      $("token").value = "";
      if (!token) return;
      sessionStorage.setItem(KEY, token);
      loadMine(token);
    });
    $("forget").addEventListener("click", () => {
      sessionStorage.removeItem(KEY);
      $("me").hidden = true;
      $("forget").hidden = true;
      $("me-status").textContent = "Your token is forgotten in this tab.";
    });
    loadPublic();
    const saved = sessionStorage.getItem(KEY);
    if (saved) loadMine(saved);
  });
})();
