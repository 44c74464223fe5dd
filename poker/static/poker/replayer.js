/* The hand replayer: draws the table as the live page does, one step of a finished hand at
 * a time. Every step (stacks, bets, pots, board, cards, winners) was computed by the
 * server from the events the viewer may see (handhistory/readable.py); this file only
 * draws it. Like table.js it builds every node with createElement and textContent, and
 * positions through the CSSOM (the Content-Security-Policy refuses inline styles).
 */
(function () {
  "use strict";

  const root = document.getElementById("replayer");
  if (!root) return;
  const hand = JSON.parse(document.getElementById("hand-replay").textContent);
  const steps = hand.steps || [];
  // Amounts come in minor units: shown in the hand's currency, as at the table (money.js).
  const chips = (n) => Money.amount(n, hand.currency_spec);
  const byTestId = (id) => root.querySelector(`[data-testid="${id}"]`);

  const SUIT_SYMBOL = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
  // The felt's geometry (felt.js), the live table's.
  const { NARROW, seatPosition, placeChips } = window.PokerFelt;

  const players = {};
  for (const p of hand.players) players[p.seat] = p;
  const mine = hand.players.find((p) => p.username === hand.viewer);
  const anchor = mine ? mine.seat : 1;
  const dealStep = steps.findIndex((s) => s.kind === "deal");
  const cardCount = hand.variant === "PO" ? 4 : 2;
  let current = 0;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function codes(cards) {
    const out = [];
    const text = String(cards || "");
    for (let i = 0; i + 1 < text.length; i += 2) out.push(text.slice(i, i + 2));
    return out;
  }

  function cardNode(code) {
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    return el(
      "span",
      { class: `card suit-${suit}`, "data-card": code, title: `${code[0]} of ${SUIT_NAME[suit] || suit}` },
      rank + (SUIT_SYMBOL[suit] || suit),
    );
  }

  function cardBack() {
    return el("span", { class: "card back", "aria-label": "hidden card" }, "\u00a0");
  }

  function fillCards(container, list) {
    container.replaceChildren(...list.map(cardNode));
    container.setAttribute("data-cards", list.join(""));
  }

  function renderSeats(step) {
    const container = document.getElementById("seats");
    const count = hand.max_seats;
    const nodes = [];
    for (const s of step.seats) {
      const p = players[s.seat];
      const index = (s.seat - anchor + count) % count;
      const pos = seatPosition(index, count);
      const classes = ["seat"];
      if (mine && mine.seat === s.seat) classes.push("me");
      if (s.folded) classes.push("folded");
      if (s.all_in) classes.push("all-in");
      if (step.seat === s.seat) classes.push("acting");
      const node = el("div", {
        class: classes.join(" "),
        "data-testid": `seat-${s.seat}`,
        "data-seat": s.seat,
        "data-player": p.username,
        "data-stack": s.stack,
      });
      node.style.left = `${pos.left}%`;
      node.style.top = `${pos.top}%`;
      node.append(el("div", { class: "seat-name", "data-testid": `seat-${s.seat}-name` }, p.username));
      node.append(el("div", { class: "seat-stack", "data-testid": `seat-${s.seat}-stack` }, chips(s.stack)));
      const status = s.folded ? "folded" : s.all_in ? "all-in" : "";
      node.append(el("div", { class: "seat-state", "data-testid": `seat-${s.seat}-state` }, [p.position, status].filter(Boolean).join(" · ")));
      const cards = el("div", { class: "seat-cards cards", "data-testid": `seat-${s.seat}-cards` });
      const shown = codes(s.cards);
      if (shown.length) fillCards(cards, shown);
      else if (!s.folded && dealStep >= 0 && current >= dealStep) {
        for (let i = 0; i < cardCount; i++) cards.append(cardBack());
      }
      node.append(cards);
      nodes.push(node);
      if (s.bet > 0) {
        nodes.push(el("div", { class: "bet", "data-testid": `bet-${s.seat}`, "data-seat": s.seat, "data-amount": s.bet }, chips(s.bet)));
      }
      if (hand.button_seat === s.seat) {
        nodes.push(el("div", { class: "dealer", "data-testid": "dealer-button", "data-seat": s.seat, title: "Dealer button" }, "D"));
      }
    }
    container.classList.toggle("many", count > 6);
    container.replaceChildren(...nodes);
    placeChips(container);
  }

  function renderCenter(step) {
    fillCards(byTestId("board"), codes(step.board));
    byTestId("step-street").textContent = step.street;
    const pot = byTestId("pot");
    pot.setAttribute("data-total", step.pot);
    const parts = [];
    if (step.pot > 0) parts.push(el("span", { class: "pot-total", "data-testid": "pot-total" }, `Pot ${chips(step.pot)}`));
    if ((step.pots || []).length > 1) {
      step.pots.forEach((p, i) => {
        parts.push(el("span", { class: "pot-part", "data-testid": `pot-${i}` }, `${i === 0 ? "Main" : `Side ${i}`} ${chips(p.amount)}`));
      });
    }
    for (const w of step.winners || []) {
      parts.push(el("span", { class: "pot-total result", "data-testid": "result", "data-seat": w.seat }, `${w.username} wins ${chips(w.amount)}`));
    }
    pot.replaceChildren(...parts);
  }

  function renderResult(step) {
    const panel = byTestId("hand-result");
    const last = current === steps.length - 1;
    panel.hidden = !last;
    if (!last) return;
    byTestId("winners").replaceChildren(
      ...(step.winners || []).map((w) => {
        const label = w.pot > 0 ? ` (side pot ${w.pot})` : "";
        const how = w.hand ? ` with ${w.hand.replace(/_/g, " ")}` : "";
        return el("div", { class: "winner-line", "data-seat": w.seat, "data-amount": w.amount }, `${w.username} wins ${chips(w.amount)}${label}${how}`);
      }),
    );
    byTestId("shown").replaceChildren(
      ...step.seats
        .filter((s) => s.cards && (players[s.seat].showed || hand.hand.full || (mine && mine.seat === s.seat)))
        .map((s) => {
          const line = el("div", { class: "shown-line", "data-seat": s.seat, "data-cards": s.cards });
          line.append(el("span", { class: "who" }, `${players[s.seat].username}${players[s.seat].showed ? " shows" : ""} `));
          const cards = el("span", { class: "cards" });
          cards.replaceChildren(...codes(s.cards).map(cardNode));
          line.append(cards);
          return line;
        }),
    );
    byTestId("rake").textContent = hand.rake ? `Rake ${chips(hand.rake)}` : "No rake";
  }

  function renderLog() {
    const list = byTestId("steps-log");
    if (!list.children.length) {
      steps.forEach((s, i) => {
        const item = el("li", { class: `step-line step-${s.kind}`, "data-step": i, tabindex: "0", role: "button" }, s.text);
        item.addEventListener("click", () => go(i));
        list.append(item);
      });
    }
    for (const item of list.children) {
      const on = Number(item.getAttribute("data-step")) === current;
      item.classList.toggle("current", on);
      if (on) item.scrollIntoView({ block: "nearest" });
    }
  }

  function render() {
    const step = steps[current];
    if (!step) return;
    root.setAttribute("data-step", current);
    renderSeats(step);
    renderCenter(step);
    renderResult(step);
    renderLog();
    byTestId("step-text").textContent = step.text;
    byTestId("step-count").textContent = `Step ${current + 1} of ${steps.length}`;
    const range = byTestId("step-range");
    range.max = Math.max(0, steps.length - 1);
    range.value = current;
    byTestId("step-first").disabled = current === 0;
    byTestId("step-back").disabled = current === 0;
    byTestId("step-forward").disabled = current === steps.length - 1;
    byTestId("step-last").disabled = current === steps.length - 1;
  }

  function go(target) {
    const next = Math.max(0, Math.min(steps.length - 1, Number(target)));
    if (!Number.isFinite(next) || next === current) return;
    current = next;
    render();
  }

  const MOVES = {
    first: () => 0,
    back: () => current - 1,
    forward: () => current + 1,
    last: () => steps.length - 1,
  };
  for (const button of root.querySelectorAll("[data-go]")) {
    button.addEventListener("click", () => go(MOVES[button.getAttribute("data-go")]()));
  }
  byTestId("step-range").addEventListener("input", (e) => go(e.target.value));
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.matches && e.target.matches("input, select, textarea")) return;
    const key = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }[e.key];
    if (!key) return;
    e.preventDefault();
    go(MOVES[key]());
  });
  NARROW.addEventListener("change", render);
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => placeChips(document.getElementById("seats")), 100);
  });
  render();
})();
