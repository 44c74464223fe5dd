/* The live table page: renders the server's view and keeps it live over the WebSocket
 * described in docs/protocol.md (snapshot / update / private / ack / error).
 *
 * Safety rule: everything that can come from a player (names, chat, error messages) is
 * put in the page with textContent or as an attribute value, never parsed as HTML. This
 * file builds every node with createElement; it never assigns HTML strings.
 */
(function () {
  "use strict";

  const root = document.getElementById("poker");
  if (!root) return;
  const cfg = JSON.parse(document.getElementById("table-config").textContent);
  const $ = (sel, scope) => (scope || root).querySelector(sel);
  const byTestId = (id) => $(`[data-testid="${id}"]`);

  const RANKS = "23456789TJQKA";
  const SUITS = "cdhs";
  const SUIT_SYMBOL = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
  const LOG_MAX = 300;
  const CHAT_MAX = 200;
  const BACKOFF_MIN_MS = 250;
  const BACKOFF_MAX_MS = 5000;
  const PRIVATE_GRACE_MS = 900;

  const S = {
    fullQueue: [], // ?full=1: the last finished hands not shown yet, oldest first
    fullEnded: 0, // hands seen ending (the queue's head is asked for again after each)
    fullTried: -1, // fullEnded when the queue's head was last asked for
    fullLoading: null,
    view: null, // {table, version, seats, hand, you}
    version: null,
    names: {}, // seat number -> player name (kept after they leave, for the log)
    playerNames: {}, // player id -> name
    handSeats: {}, // hand id -> seat numbers in engine player order
    boards: {}, // hand id -> board card codes dealt so far
    handNumbers: {}, // hand id -> hand number
    lastHand: null, // {hand, number, winners: [], shown: [], stacks: {}}
    legalFresh: true, // false between an update that may change them and our private
    busy: false, // an act frame is on its way
    ws: null,
    backoff: BACKOFF_MIN_MS,
    buffer: new Map(), // version -> update received ahead of a gap
    resyncSentAt: 0,
    errorTimer: null,
    privateTimer: null,
    chosenSeat: null,
    runout: null, // {hand, from, streets: [cards per street], pots: [amounts], at}: an all-in run-out on screen
    logDelay: 0, // ms a log line waits (the lines of a run-out come with its streets)
  };

  // --- small helpers ----------------------------------------------------------------

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") node.className = v;
        // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
        else if (k === "style") node.style.cssText = v;
        else node.setAttribute(k, v === true ? "" : String(v));
      }
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    const b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  function cookie(name) {
    for (const part of document.cookie.split(";")) {
      const [k, ...rest] = part.trim().split("=");
      if (k === name) return decodeURIComponent(rest.join("="));
    }
    return "";
  }

  // Amounts come in minor units: shown in the table's currency (money.js, the one formatter),
  // money with its symbol ("€19.90"), play chips whole ("1,990").
  function currency() {
    return S.view.table.currency_spec;
  }

  function chips(n) {
    return Money.amount(n || 0, currency());
  }

  // A refusal's message names amounts in minor units, for programs; its `extra` carries
  // them, said here in the table's currency.
  const MONEY_REFUSALS = {
    buy_in_out_of_range: (x) => `The buy-in at this table is ${chips(x.min)} to ${chips(x.max)}.`,
    top_up_too_large: (x) => `You can add at most ${chips(x.max)} (the maximum buy-in).`,
    bet_too_small: (x) => `The smallest bet is ${chips(x.min)}.`,
    bet_too_large: (x) => `The largest bet is ${chips(x.max)}.`,
    raise_too_small: (x) => `The smallest raise is to ${chips(x.min)}.`,
    raise_too_large: (x) => `The largest raise is to ${chips(x.max)}.`,
  };

  function refusal(code, message, extra) {
    const say = MONEY_REFUSALS[code];
    return say && extra && S.view ? say(extra) : message;
  }

  /** What a person typed in an amount box, as minor units; a refusal is shown, and null. */
  function typedAmount(input) {
    const read = Money.parse(input.value, currency());
    if (read.error) {
      showError(read.error, read.message);
      return null;
    }
    return read.minor;
  }

  /** "AsKd" -> ["As", "Kd"]; [51, 45] -> ["As", "Kd"]. */
  function cardCodes(cards) {
    if (!cards) return [];
    if (Array.isArray(cards)) {
      return cards
        .filter((c) => Number.isInteger(c) && c >= 0 && c < 52)
        .map((c) => RANKS[c >> 2] + SUITS[c & 3]);
    }
    const out = [];
    const compact = String(cards).replace(/\s+/g, "");
    for (let i = 0; i + 1 < compact.length; i += 2) out.push(compact.slice(i, i + 2));
    return out;
  }

  function cardText(code) {
    const rank = code[0] === "T" ? "10" : code[0];
    return rank + (SUIT_SYMBOL[code[1]] || code[1]);
  }

  function cardNode(code) {
    const suit = code[1];
    return el(
      "span",
      { class: `card suit-${suit}`, "data-card": code, title: `${code[0]} of ${SUIT_NAME[suit] || suit}` },
      cardText(code),
    );
  }

  function cardBack() {
    return el("span", { class: "card back", "aria-label": "hidden card" }, "\u00a0");
  }

  function fillCards(container, codes) {
    container.replaceChildren(...codes.map(cardNode));
    container.setAttribute("data-cards", codes.join(""));
  }

  function plainCards(codes) {
    return codes.join(" ");
  }

  // --- view helpers -----------------------------------------------------------------

  function seats() {
    return (S.view && S.view.seats) || [];
  }

  /** A seat row's person (`username`, `user_id`; docs/protocol.md "Names on the wire"). */
  function rowName(row) {
    return (row && row.username) || "";
  }

  function rowUserId(row) {
    return row && row.user_id !== undefined ? row.user_id : null;
  }

  function seatRow(number) {
    return seats().find((s) => s.seat === number) || null;
  }

  function mySeatRow() {
    if (!cfg.user) return null;
    return seats().find((s) => rowName(s) === cfg.user) || null;
  }

  function rememberName(row) {
    const name = rowName(row);
    if (!name) return;
    S.names[row.seat] = name;
    const id = rowUserId(row);
    if (id !== null) S.playerNames[id] = name;
  }

  function rememberNames() {
    for (const s of seats()) rememberName(s);
  }

  function nameOfSeat(seat) {
    const row = seatRow(seat);
    return rowName(row) || S.names[seat] || `seat ${seat}`;
  }

  function nameOfPlayer(id, seat) {
    if (id !== undefined && id !== null && S.playerNames[id]) return S.playerNames[id];
    return seat !== undefined && seat !== null ? nameOfSeat(seat) : `player ${id}`;
  }

  /** Engine player order of a hand: left of the button first, the button last. */
  function seatsOfHand(handId) {
    if (S.handSeats[handId]) return S.handSeats[handId];
    const hand = S.view && S.view.hand;
    if (!hand || hand.id !== handId) return null;
    const numbers = seats().filter((s) => s.in_hand).map((s) => s.seat).sort((a, b) => a - b);
    const k = numbers.indexOf(hand.button_seat);
    if (k < 0) return null;
    const order = numbers.slice(k + 1).concat(numbers.slice(0, k + 1));
    S.handSeats[handId] = order;
    return order;
  }

  // --- rendering --------------------------------------------------------------------

  // The felt's geometry (felt.js), shared with the hand replayer.
  const { NARROW, seatPosition, placeChips } = window.PokerFelt;

  function renderSeats() {
    const container = document.getElementById("seats");
    const table = S.view.table;
    const count = table.max_seats;
    const hand = S.view.hand;
    const me = mySeatRow();
    const anchor = me ? me.seat : 1;
    const nodes = [];
    for (let number = 1; number <= count; number++) {
      const index = (number - anchor + count) % count;
      const pos = seatPosition(index, count);
      const row = shownRow(seatRow(number));
      const classes = ["seat"];
      if (!row) classes.push("empty");
      if (row && me && row.seat === me.seat) classes.push("me");
      if (row && row.folded) classes.push("folded");
      if (row && row.all_in) classes.push("all-in");
      if (row && row.state !== "active") classes.push("away");
      if (hand && hand.actor_seat === number) classes.push("acting");
      const node = el("div", {
        class: classes.join(" "),
        "data-testid": `seat-${number}`,
        "data-seat": number,
        "data-player": row ? rowName(row) : "",
        "data-stack": row ? row.stack : "",
      });
      // Through the CSSOM, not a style attribute: a strict Content-Security-Policy allows it.
      node.style.left = `${pos.left}%`;
      node.style.top = `${pos.top}%`;
      if (!row) {
        node.append(el("div", { class: "seat-name" }, `Seat ${number}`));
        // No sit form: watching only (signed out, or a time-out or self-exclusion runs).
        const canChoose = Boolean(byTestId("sit-form")) && !me && S.view.table.status !== "closed";
        const label = el("div", { class: "seat-empty" }, canChoose ? "Sit here" : "empty");
        node.append(label);
        if (canChoose) {
          node.classList.add("choosable");
          node.setAttribute("role", "button");
          node.setAttribute("tabindex", "0");
          node.addEventListener("click", () => chooseSeat(number));
        }
      } else {
        node.append(el("div", { class: "seat-name", "data-testid": `seat-${number}-name` }, rowName(row)));
        node.append(el("div", { class: "seat-stack", "data-testid": `seat-${number}-stack` }, chips(row.stack)));
        let status = "";
        if (row.folded) status = "folded";
        else if (row.all_in) status = "all-in";
        else if (row.state === "sitting_out") status = row.stack > 0 ? "sitting out" : "out of chips";
        else if (row.state === "leaving") status = "leaving";
        else if (hand && !row.in_hand) status = "waiting";
        node.append(el("div", { class: "seat-state", "data-testid": `seat-${number}-state` }, status));
        const cards = el("div", { class: "seat-cards cards", "data-testid": `seat-${number}-cards` });
        let shown = cardCodes(row.cards);
        if (!hand && S.view.next_hand_at && S.lastHand && S.lastHand.finished) {
          const showed = S.lastHand.shown.find((x) => x.seat === number);
          if (showed) shown = showed.cards;
        }
        if (shown.length) {
          fillCards(cards, shown);
        } else if (row.in_hand && !row.folded && hand) {
          let mine = me && me.seat === number && S.view.you ? cardCodes(S.view.you.hole_cards) : [];
          if (mine.length) fillCards(cards, mine);
          else {
            const n = table.variant === "PO" ? 4 : 2;
            for (let i = 0; i < n; i++) cards.append(cardBack());
          }
        }
        node.append(cards);
        if (hand && hand.actor_seat === number) {
          node.append(el("div", { class: "seat-clock", "data-testid": `seat-${number}-clock` }));
        }
      }
      nodes.push(node);
      // Placed by placeChips once the seats have their size.
      if (row && row.bet > 0) {
        nodes.push(el("div", { class: "bet", "data-testid": `bet-${number}`, "data-seat": number, "data-amount": row.bet }, chips(row.bet)));
      }
      if (hand && hand.button_seat === number) {
        nodes.push(el("div", { class: "dealer", "data-testid": "dealer-button", "data-seat": number, title: "Dealer button" }, "D"));
      }
    }
    container.classList.toggle("many", count > 6);
    container.replaceChildren(...nodes);
    placeChips(container);
  }

  function renderCenter() {
    const hand = S.view.hand;
    const board = byTestId("board");
    const pot = byTestId("pot");
    const info = byTestId("hand-info");
    const last = S.lastHand;
    const runout = runningOut();
    if (!hand && runout) {
      // An all-in run-out: the board a street at a time, the pots (main and side) at stake.
      fillCards(board, runout.board);
      info.textContent = last.number ? `Hand #${last.number} · all-in` : "All-in";
      pot.setAttribute("data-total", runout.pots.reduce((a, b) => a + b, 0));
      pot.replaceChildren(
        ...runout.pots.map((amount, i) =>
          el("span", { class: "pot-part", "data-testid": `pot-${i}` }, `${runout.pots.length === 1 ? "Pot" : i === 0 ? "Main" : `Side ${i}`} ${chips(amount)}`),
        ),
      );
      return;
    }
    if (!hand && S.view.next_hand_at && last && last.finished) {
      // The pause between hands: the result stays where it happened until the next deal.
      fillCards(board, S.boards[last.hand] || []);
      info.textContent = last.number ? `Hand #${last.number} is over` : "The hand is over";
      pot.setAttribute("data-total", "0");
      pot.replaceChildren(
        ...last.winners.map((w) =>
          el("span", { class: "pot-total result", "data-testid": "result", "data-seat": w.seat }, `${w.name} wins ${chips(w.amount)}`),
        ),
      );
      return;
    }
    if (!hand) {
      fillCards(board, []);
      pot.replaceChildren();
      pot.setAttribute("data-total", "0");
      const playing = seats().filter((s) => s.state === "active" && s.stack > 0).length;
      info.textContent = playing < 2 ? "Waiting for players…" : "Waiting for the next hand…";
      return;
    }
    fillCards(board, cardCodes(hand.board));
    info.textContent = `Hand #${hand.number} · ${hand.street}`;
    pot.setAttribute("data-total", hand.total_pot);
    const parts = [el("span", { class: "pot-total", "data-testid": "pot-total" }, `Pot ${chips(hand.total_pot)}`)];
    const pots = hand.pots || [];
    if (pots.length > 1) {
      pots.forEach((p, i) => {
        parts.push(
          el("span", { class: "pot-part", "data-testid": `pot-${i}` }, `${i === 0 ? "Main" : `Side ${i}`} ${chips(p.amount)}`),
        );
      });
    }
    pot.replaceChildren(...parts);
  }

  /** The run-out still being dealt on screen ({board, pots}), or null: one street per
   * cfg.runout_street_ms, the flop (or first street) at once. */
  function runningOut() {
    const r = S.runout;
    if (!r || !S.lastHand || S.lastHand.hand !== r.hand || S.view.hand) return null;
    const step = cfg.runout_street_ms || 0;
    const shown = step ? Math.floor((Date.now() - r.at) / step) + 1 : r.streets.length;
    if (shown >= r.streets.length + 1) return null; // the last street stays a step, then the result
    const board = r.from.concat(...r.streets.slice(0, shown));
    return { board, pots: r.pots };
  }

  /** A seat as the felt shows it: during a run-out, without what it wins and in the state
   * it went all-in in (the result, busted players included, waits for the last street). */
  function shownRow(row) {
    if (!row || !runningOut()) return row;
    const before = S.runout.rows[row.seat];
    const same = before && rowUserId(before) === rowUserId(row);
    const stack = row.stack - (S.runout.won[row.seat] || 0);
    const was = same ? { state: before.state, folded: before.folded, all_in: before.all_in || (before.in_hand && !before.folded && stack === 0) } : {};
    return Object.assign({}, row, was, { stack, bet: 0 });
  }

  /** Hand events of one update that end a hand with board dealt after the last decision
   * (everyone all-in): the index of that decision and the streets after it, else null. */
  const DECISIONS = new Set(["PlayerFolded", "PlayerChecked", "PlayerCalled", "BetPlaced", "RaisedTo"]);
  function runoutIn(events) {
    let last = -1;
    events.forEach((ev, i) => { if (DECISIONS.has(ev.type)) last = i; });
    const after = events.slice(last + 1);
    const streets = after.filter((ev) => ev.type === "BoardDealt").map((ev) => cardCodes(ev.cards));
    if (!streets.length || !after.some((ev) => ev.type === "PotAwarded")) return null;
    return { last, streets };
  }

  /** Remembers a run-out to be dealt out on screen at a readable pace, and holds back each
   * event's log line until its street is on the felt (the result's until the last). */
  function playRunout(handId, events) {
    const found = runoutIn(events);
    const step = cfg.runout_street_ms || 0;
    let dealt = 0;
    events.forEach((ev, i) => {
      if (found && i > found.last) {
        S.logDelay = (ev.type === "BoardDealt" ? dealt : found.streets.length) * step;
        if (ev.type === "BoardDealt") dealt += 1;
      }
      handEvent(handId, ev);
    });
    if (!found) return;
    // The pots at stake; what each seat wins, kept off its stack until the result is shown;
    // and the seats as they were before this update (all-in, not yet out of chips).
    const pots = [];
    const won = {};
    for (const ev of events.slice(found.last + 1)) {
      if (ev.type !== "PotAwarded") continue;
      (ev.winners || []).forEach((seat, i) => {
        const amount = (ev.amounts || [])[i] || 0;
        pots[ev.pot || 0] = (pots[ev.pot || 0] || 0) + amount;
        won[seat] = (won[seat] || 0) + amount;
      });
    }
    const rows = {};
    for (const row of S.view.seats || []) rows[row.seat] = row;
    const all = S.boards[handId] || [];
    const cards = found.streets.reduce((n, street) => n + street.length, 0);
    S.runout = { hand: handId, from: all.slice(0, all.length - cards), streets: found.streets, pots: pots.map((p) => p || 0), won, rows, at: Date.now() };
    for (let i = 1; i <= found.streets.length; i++) setTimeout(render, i * step);
  }

  function legal() {
    const you = S.view && S.view.you;
    const hand = S.view && S.view.hand;
    const me = mySeatRow();
    if (!you || !hand || !me || hand.actor_seat !== me.seat) return null;
    if (!S.legalFresh || S.busy) return null;
    return you.legal_actions || null;
  }

  function renderHero() {
    const you = S.view.you;
    const me = mySeatRow();
    const hole = byTestId("hole-cards");
    const codes = you && me && me.in_hand ? cardCodes(you.hole_cards) : [];
    fillCards(hole, codes);
    byTestId("hero").classList.toggle("seated", Boolean(me));

    const la = legal();
    const actions = byTestId("actions");
    actions.hidden = !la;
    for (const name of ["fold", "check", "call", "bet", "raise"]) {
      const button = byTestId(`action-${name}`);
      button.hidden = !la || !la.actions.includes(name);
      button.disabled = false;
    }
    const sizing = byTestId("sizing");
    if (la) {
      // A call of every chip behind is an all-in, and says so.
      const callsAll = me && la.call_amount > 0 && la.call_amount === me.stack;
      byTestId("action-call").textContent = `Call ${chips(la.call_amount)}${callsAll ? " (all-in)" : ""}`;
      // Fixed-limit (and any spot with one legal amount) has nothing to size: no slider,
      // no pot buttons, just "Bet 200" / "Raise to 400".
      const sized =
        (la.actions.includes("bet") || la.actions.includes("raise")) &&
        S.view.table.variant !== "FT" &&
        la.min_to !== la.max_to;
      sizing.hidden = !sized;
      byTestId("size-max").textContent = la.max_to === wholeStack() ? "All-in" : "Max";
      if (!sized) setAmount(la.min_to);
      else {
        const range = byTestId("amount-range");
        const input = byTestId("amount-input");
        range.min = la.min_to;
        range.max = la.max_to;
        if (actions.getAttribute("data-for") !== `${S.version}:${la.min_to}:${la.max_to}`) {
          setAmount(la.min_to);
          actions.setAttribute("data-for", `${S.version}:${la.min_to}:${la.max_to}`);
        } else if (document.activeElement === input) {
          showAmount(clampAmount(la, input.value)); // the player is typing: leave the field be
        } else {
          setAmount(Number(range.value));
        }
      }
    } else {
      sizing.hidden = true;
    }

    const seated = Boolean(me);
    const sitForm = byTestId("sit-form");
    if (sitForm) {
      sitForm.hidden = seated || S.view.table.status === "closed";
      const select = byTestId("sit-seat");
      const current = S.chosenSeat !== null ? String(S.chosenSeat) : select.value;
      const options = [el("option", { value: "" }, "any")];
      for (let n = 1; n <= S.view.table.max_seats; n++) {
        if (!seatRow(n)) options.push(el("option", { value: n }, `seat ${n}`));
      }
      select.replaceChildren(...options);
      select.value = options.some((o) => o.value === current) ? current : "";
    }
    renderTopUp(me);
    // A tournament seat is left by busting or by being moved: no leave, no top-up.
    const tournament = Boolean(S.view.tournament);
    const leave = byTestId("leave");
    if (leave) leave.hidden = tournament || !seated || (me && me.state === "leaving");
    const sitOut = byTestId("sit-out");
    if (sitOut) sitOut.hidden = !seated || me.state !== "active";
    const sitIn = byTestId("sit-in");
    if (sitIn) sitIn.hidden = !seated || me.state !== "sitting_out" || me.stack === 0;
  }

  /** Top up between your hands; a player out of chips is offered a rebuy that also sits
   * them back in (the server sat them out when they busted). */
  function renderTopUp(me) {
    const form = byTestId("top-up-form");
    if (!form) return;
    const table = S.view.table;
    const room = me ? table.max_buy_in - me.stack : 0;
    const shownAllIn = me && runningOut() && S.runout.rows[me.seat];
    const inHand = Boolean(me && ((S.view.hand && me.in_hand) || (shownAllIn && shownAllIn.in_hand)));
    form.hidden = Boolean(S.view.tournament) || !me || me.state === "leaving" || inHand || room <= 0 || table.status === "closed";
    if (form.hidden) return;
    const busted = me.stack === 0;
    form.classList.toggle("busted", busted);
    byTestId("busted-note").hidden = !busted;
    byTestId("top-up-submit").textContent = busted ? "Rebuy and sit in" : "Top up";
    const input = byTestId("top-up-amount");
    if (form.getAttribute("data-busted") !== String(busted)) {
      form.setAttribute("data-busted", String(busted));
      input.value = ""; // a rebuy starts from the full buy-in, not the last top-up offered
    }
    const typed = Money.parse(input.value, currency());
    if (document.activeElement !== input && (typed.error || typed.minor > room)) {
      input.value = Money.typed(busted ? Math.min(room, table.max_buy_in) : room, currency());
    }
  }

  /** What a bet or raise of ``value`` (minor units, or the text a person typed) would
   * send: minor units in the legal range. */
  function clampAmount(la, value) {
    let v = NaN;
    if (typeof value === "number") v = Math.round(value);
    else {
      const read = Money.parse(value, currency());
      if (!read.error) v = read.minor;
    }
    return Number.isFinite(v) ? Math.max(la.min_to, Math.min(la.max_to, v)) : la.min_to;
  }

  function setAmount(value) {
    const la = S.view && S.view.you && S.view.you.legal_actions;
    if (!la) return;
    const v = clampAmount(la, value);
    byTestId("amount-input").value = Money.typed(v, currency());
    showAmount(v);
  }

  /** The slider and the Bet/Raise labels at amount ``v`` (the amount field as it is). */
  function showAmount(v) {
    byTestId("amount-range").value = v;
    // "(all-in)" only when the amount is everything the player has (a pot-limit or
    // fixed-limit maximum usually is not).
    const allIn = v === wholeStack() ? " (all-in)" : "";
    byTestId("action-bet").textContent = `Bet ${chips(v)}${allIn}`;
    byTestId("action-raise").textContent = `Raise to ${chips(v)}${allIn}`;
  }

  /** What a bet or raise "to" of everything the hero has would be: their bet on this
   * street plus the chips behind it. */
  function wholeStack() {
    const me = mySeatRow();
    return me ? (me.bet || 0) + (me.stack || 0) : null;
  }

  function renderClock() {
    renderCountdown();
    const hand = S.view && S.view.hand;
    const clock = byTestId("clock");
    const seatClock = hand && hand.actor_seat ? byTestId(`seat-${hand.actor_seat}-clock`) : null;
    if (!hand || !hand.deadline || !hand.actor_seat) {
      clock.hidden = true;
      return;
    }
    // The action time runs to action_deadline; after it the player's time bank is drawn
    // until deadline, and the clock says so (not "62s" at a 30-second table).
    const now = Date.now();
    const end = new Date(hand.deadline).getTime();
    const actionEnd = hand.action_deadline ? new Date(hand.action_deadline).getTime() : end;
    const banking = now >= actionEnd && end > actionEnd;
    const left = Math.max(0, (banking ? end : actionEnd) - now);
    const seconds = Math.ceil(left / 1000);
    const total = banking
      ? Math.max(1, end - actionEnd)
      : Math.max(1, (S.view.table.action_seconds || 30) * 1000);
    const urgent = seconds <= 5 && (banking || end <= actionEnd);
    if (seatClock) {
      seatClock.textContent = banking ? `bank ${seconds}s` : `${seconds}s`;
      seatClock.classList.toggle("bank", banking);
      seatClock.classList.toggle("urgent", urgent);
    }
    const me = mySeatRow();
    const mine = me && me.seat === hand.actor_seat;
    clock.hidden = !mine;
    if (mine) {
      clock.setAttribute("data-phase", banking ? "time-bank" : "action");
      $(".clock-text", clock).textContent = banking ? `Time bank: ${seconds}s` : `Your turn: ${seconds}s`;
      $(".clock-fill", clock).style.width = `${Math.min(100, (100 * left) / total)}%`;
      clock.classList.toggle("bank", banking);
      clock.classList.toggle("urgent", urgent);
    }
  }

  /** While the last hand's result is shown: the seconds until the server deals the next. */
  function renderCountdown() {
    const node = byTestId("next-hand");
    const due = S.view && !S.view.hand && S.view.next_hand_at;
    if (!due) {
      node.hidden = true;
      return;
    }
    const seconds = Math.max(0, Math.ceil((new Date(due).getTime() - Date.now()) / 1000));
    node.hidden = false;
    node.textContent = seconds > 0 ? `Next hand in ${seconds}s` : "Dealing…";
  }

  function renderLastHand() {
    const panel = byTestId("last-hand");
    const last = S.lastHand;
    if (!last || !last.finished || runningOut()) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    panel.setAttribute("data-hand", last.hand);
    $(".last-hand-number", panel).textContent = last.number ? `#${last.number}` : "";
    const winner = byTestId("winner");
    const lines = last.winners.map((w) =>
      el(
        "div",
        { class: "winner-line", "data-seat": w.seat, "data-player": w.name, "data-amount": w.amount },
        `${w.name} wins ${chips(w.amount)}${w.potLabel}${w.desc ? ` (${w.desc})` : ""}`,
      ),
    );
    winner.replaceChildren(...lines);
    const shown = byTestId("shown");
    shown.replaceChildren(
      ...last.shown.map((s) => {
        const line = el("div", { class: "shown-line", "data-seat": s.seat, "data-cards": s.cards.join("") });
        line.append(el("span", { class: "who" }, `${s.name} shows `));
        const cards = el("span", { class: "cards" });
        cards.replaceChildren(...s.cards.map(cardNode));
        line.append(cards);
        return line;
      }),
    );
    const stacks = byTestId("final-stacks");
    stacks.replaceChildren(
      ...Object.keys(last.stacks)
        .map(Number)
        .sort((a, b) => a - b)
        .map((seat) =>
          el(
            "li",
            { "data-testid": `final-stack-${seat}`, "data-seat": seat, "data-stack": last.stacks[seat] },
            `${last.names[seat] || nameOfSeat(seat)}: ${chips(last.stacks[seat])}`,
          ),
        ),
    );
    stacks.prepend(el("li", { class: "label" }, "Stacks after the hand"));
  }

  // Staff watching with ?full=1 (risk, admin): the table as a spectator sees it, and in
  // the staff banner every hole card of a hand once the server's rule shows it (enough
  // hand ends after it: poker.full_view). A hand still too recent answers 409 and is
  // asked for again after the next hand ends; nothing here shows a hand being played.
  function queueFullHand(handId) {
    if (!cfg.full) return;
    S.fullEnded += 1;
    // Only the last few can still be waiting: older ones are past any delay.
    S.fullQueue = S.fullQueue.concat([handId]).slice(-Math.max(1, cfg.full_delay));
  }

  function loadFullCards() {
    const id = S.fullQueue[0];
    if (id === undefined || S.fullLoading !== null || S.fullTried === S.fullEnded) return;
    S.fullLoading = id;
    S.fullTried = S.fullEnded;
    fetch(`${cfg.hands_api}${id}/?full=1`, {
      credentials: "same-origin", headers: { Accept: "application/json" },
    })
      .then((r) => {
        if (r.status === 409) return null; // not yet: the next hand end brings it
        S.fullQueue = S.fullQueue.filter((h) => h !== id);
        S.fullTried = -1; // a later hand may be shown already
        return r.ok ? r.json() : null;
      })
      .then((detail) => {
        if (!detail) return;
        const line = byTestId("staff-full-hand");
        line.replaceChildren(`Hand #${detail.number}, every card:`);
        for (const ev of detail.events) {
          if (ev.type !== "HoleCardsDealt" || !ev.cards) continue;
          const cards = el("span", { class: "cards", "data-testid": `staff-full-seat-${ev.seat}` });
          fillCards(cards, cardCodes(ev.cards));
          line.append(` seat ${ev.seat} `, cards);
        }
        root.setAttribute("data-full-hand", id);
      })
      .catch(() => {})
      .finally(() => {
        S.fullLoading = null;
        loadFullCards();
      });
  }

  function render() {
    if (!S.view) return;
    root.setAttribute("data-version", S.version);
    root.setAttribute("data-hand", S.view.hand ? S.view.hand.id : "");
    loadFullCards();
    renderSeats();
    renderCenter();
    renderHero();
    renderClock();
    renderLastHand();
    renderCommitment();
  }

  /** The provably-fair promise, checkable from the page: the next deal's commitment, shown
   * before that hand (the log then says which commitment each hand was dealt from). */
  function renderCommitment() {
    const hash = S.view.next_deck_commitment;
    byTestId("commitment").hidden = !hash;
    byTestId("commitment-hash").textContent = hash || "";
  }

  // --- log, chat, errors ------------------------------------------------------------

  function appendLine(list, node, max) {
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.append(node);
    while (list.children.length > max) list.firstElementChild.remove();
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  function log(text, kind) {
    const line = el("li", { class: kind ? `log-${kind}` : null }, text);
    // A line that comes while a run-out is still dealt (a busted player sat out) waits
    // for its result like the run-out's own.
    const r = S.runout;
    const left = r ? r.at + r.streets.length * (cfg.runout_street_ms || 0) - Date.now() : 0;
    const delay = Math.max(S.logDelay, left);
    if (delay > 0) setTimeout(() => appendLine(byTestId("log"), line, LOG_MAX), delay);
    else appendLine(byTestId("log"), line, LOG_MAX);
  }

  function chat(name, text) {
    const line = el("li", { class: "chat-line" });
    line.append(el("span", { class: "chat-name" }, name));
    line.append(el("span", { class: "chat-text" }, text));
    appendLine(byTestId("chat"), line, CHAT_MAX);
  }

  function showError(code, message) {
    const banner = byTestId("error");
    banner.setAttribute("data-code", code || "");
    banner.textContent = message || code || "Something went wrong.";
    banner.hidden = false;
    clearTimeout(S.errorTimer);
    S.errorTimer = setTimeout(() => {
      banner.hidden = true;
    }, 8000);
  }

  function setConn(state, text) {
    const node = byTestId("conn-status");
    node.setAttribute("data-state", state);
    node.textContent = text;
  }

  // --- events -> log lines ----------------------------------------------------------

  const STREETS = { 1: "Flop", 2: "Turn", 3: "River" };

  function handEvent(handId, ev) {
    const who = () => nameOfSeat(ev.seat);
    switch (ev.type) {
      case "HandStarted":
        if (ev.deck_commitment) log(`Dealt from the deck committed as ${ev.deck_commitment}`, "commitment");
        break;
      case "AntePosted":
        log(`${who()} posts ante ${chips(ev.amount)}`);
        break;
      case "BlindPosted":
        log(`${who()} posts blind ${chips(ev.amount)}`);
        break;
      case "HoleCardsDealt":
        break;
      case "BoardDealt": {
        const dealt = cardCodes(ev.cards);
        const board = (S.boards[handId] || []).concat(dealt);
        S.boards[handId] = board;
        log(`Board: ${plainCards(board)}`, "board");
        break;
      }
      case "PlayerFolded":
        log(`${who()} folds`);
        break;
      case "PlayerChecked":
        log(`${who()} checks`);
        break;
      case "PlayerCalled":
        log(`${who()} calls ${chips(ev.amount)}`);
        break;
      case "BetPlaced":
        log(`${who()} bets ${chips(ev.amount)}`);
        break;
      case "RaisedTo":
        log(`${who()} raises to ${chips(ev.amount)}`);
        break;
      case "UncalledBetReturned":
        log(`Uncalled ${chips(ev.amount)} returned to ${who()}`);
        break;
      case "CardsShown": {
        const codes = cardCodes(ev.cards);
        log(`${who()} shows ${plainCards(codes)}`, "show");
        const last = lastHandFor(handId);
        last.shown.push({ seat: ev.seat, name: who(), cards: codes });
        break;
      }
      case "CardsMucked":
        log(`${who()} mucks`);
        break;
      case "RakeTaken":
        if (ev.amount) log(`Rake ${chips(ev.amount)}`);
        break;
      case "PotAwarded": {
        const last = lastHandFor(handId);
        (ev.winners || []).forEach((seat, i) => {
          const name = nameOfSeat(seat);
          const amount = (ev.amounts || [])[i] || 0;
          const potLabel = ev.pot > 0 ? ` (side pot ${ev.pot})` : "";
          const desc = ev.hand ? ev.hand.replace(/_/g, " ") : "";
          log(`${name} wins ${chips(amount)}${potLabel}${desc ? ` (${desc})` : ""}`, "win");
          last.winners.push({ seat, name, amount, potLabel, desc });
        });
        break;
      }
      case "HandEnded":
        break;
      default:
        break;
    }
  }

  function lastHandFor(handId) {
    if (!S.lastHand || S.lastHand.hand !== handId) {
      S.lastHand = { hand: handId, number: S.handNumbers[handId], winners: [], shown: [], stacks: {}, names: {}, finished: false };
    }
    return S.lastHand;
  }

  const SAT_OUT_WHY = {
    busted: "is out of chips and sits out",
    timeouts: "ran out of time too often and sits out",
    disconnected: "lost the connection and sits out",
  };

  function tableEvent(ev) {
    const who = () => ev.username || nameOfPlayer(ev.user_id, ev.seat);
    switch (ev.type) {
      case "ChatPosted":
        chat(who(), ev.text);
        break;
      case "HandBegan":
        if (Array.isArray(ev.seats)) S.handSeats[ev.hand] = ev.seats;
        S.handNumbers[ev.hand] = ev.number;
        log(`Hand #${ev.number} begins (button: ${nameOfSeat(ev.button_seat)})`, "hand");
        break;
      case "HandFinished": {
        const last = lastHandFor(ev.hand);
        last.stacks = ev.stacks || {};
        for (const seat of Object.keys(last.stacks)) last.names[seat] = nameOfSeat(Number(seat));
        last.finished = true;
        queueFullHand(ev.hand);
        log(last.number ? `Hand #${last.number} is over` : "The hand is over", "hand");
        break;
      }
      case "PlayerSat":
        log(`${who()} sits in seat ${ev.seat} with ${chips(ev.buy_in)}`, "table");
        break;
      case "PlayerLeaving":
        log(`${who()} will leave after this hand`, "table");
        break;
      case "PlayerLeft":
        log(ev.cashed_out ? `${who()} leaves with ${chips(ev.cashed_out)}` : `${who()} leaves`, "table");
        break;
      case "PlayerSatOut":
        log(`${who()} ${SAT_OUT_WHY[ev.reason] || "sits out"}`, "table");
        break;
      case "PlayerSatIn":
        log(`${who()} is back`, "table");
        break;
      case "PlayerToppedUp":
        log(`${who()} adds ${chips(ev.amount)}`, "table");
        break;
      case "TurnTimedOut":
        log(`${who()} ran out of time`, "table");
        break;
      default:
        break;
    }
  }

  // --- state changes ----------------------------------------------------------------

  function applySnapshot(view, version) {
    if (S.version !== null && version < S.version) return;
    const oldHand = S.view && S.view.hand ? S.view.hand.id : null;
    S.view = view;
    S.version = version;
    if (view.hand) S.handNumbers[view.hand.id] = view.hand.number;
    if (view.hand && view.hand.id !== oldHand) seatsOfHand(view.hand.id);
    S.legalFresh = true;
    S.busy = false;
    rememberNames();
    for (const v of Array.from(S.buffer.keys())) if (v <= version) S.buffer.delete(v);
    drainBuffer();
    render();
  }

  function applyUpdate(msg) {
    const before = S.view.hand ? S.view.hand.id : null;
    const beforeActor = S.view.hand ? S.view.hand.actor_seat : null;
    const groups = msg.events || [];
    // Names first: a player who just sat is only in the new seats, one who left only in the old.
    rememberNames();
    const pub = msg.public || {};
    const nextSeats = pub.seats || S.view.seats;
    for (const s of nextSeats) rememberName(s);
    for (const g of groups) {
      if (g.kind === "table" && g.event && g.event.type === "HandBegan") {
        if (Array.isArray(g.event.seats)) S.handSeats[g.event.hand] = g.event.seats;
        S.handNumbers[g.event.hand] = g.event.number;
      }
    }
    S.logDelay = 0; // after a run-out, this update's later lines wait for its result too
    for (const g of groups) {
      if (g.kind === "hand") playRunout(g.hand, g.events || []);
      else if (g.kind === "table" && g.event) tableEvent(g.event);
    }
    S.logDelay = 0;
    const you = S.view.you;
    let hand = "hand" in pub ? pub.hand : S.view.hand;
    let seatRows = nextSeats;
    const ended = groups.some((g) => g.kind === "table" && g.event && g.event.type === "HandFinished");
    if (!hand && S.view.hand && !ended) {
      // Only HandFinished ends a hand. A table command that did not touch the hand (chat,
      // someone sitting down) may publish no hand part: keep the hand and its seat fields.
      hand = S.view.hand;
      seatRows = nextSeats.map((row) => {
        const old = S.view.seats.find((o) => o.seat === row.seat && rowUserId(o) === rowUserId(row));
        if (!old || !old.in_hand) return row;
        const { stack, bet, in_hand, folded, all_in, cards } = old;
        return Object.assign({}, row, { stack, bet, in_hand, folded, all_in, cards });
      });
    }
    S.view = {
      table: pub.table || S.view.table,
      version: msg.version,
      seats: seatRows,
      hand,
      next_hand_at: "next_hand_at" in pub ? pub.next_hand_at : hand ? null : S.view.next_hand_at,
      next_deck_commitment:
        "next_deck_commitment" in pub ? pub.next_deck_commitment : S.view.next_deck_commitment,
      you,
    };
    S.version = msg.version;
    const me = mySeatRow();
    if (you) {
      if (!me) S.view.you = null;
      else {
        you.seat = me.seat;
        you.state = me.state;
      }
    }
    if ((hand ? hand.id : null) !== before && S.view.you) {
      S.view.you.hole_cards = null;
      S.view.you.legal_actions = null;
    }
    // Legal actions change only when the hand moves on (hand events), or the turn or the
    // hand changes; a chat line or someone sitting down leaves them as they are.
    const turnMoved =
      groups.some((g) => g.kind === "hand" && (g.events || []).length) ||
      (hand ? hand.id : null) !== before ||
      (hand ? hand.actor_seat : null) !== beforeActor;
    if (turnMoved) {
      S.legalFresh = false;
      S.busy = false;
      if (S.view.you) S.view.you.legal_actions = null;
    }
    S.legalFresh = S.legalFresh || !(hand && me && hand.actor_seat === me.seat);
    expectPrivate();
  }

  /** The server sends a `private` right after an update that changes what only we may
   * see; if none came (a dropped frame), ask REST for our view instead of showing none. */
  function expectPrivate() {
    clearTimeout(S.privateTimer);
    const hand = S.view.hand;
    const me = mySeatRow();
    if (!hand || !me || !cfg.user) return;
    const needCards = me.in_hand && !(S.view.you && S.view.you.hole_cards);
    const needActions = hand.actor_seat === me.seat && !S.legalFresh;
    if (needCards || needActions) {
      S.privateTimer = setTimeout(refreshState, PRIVATE_GRACE_MS);
    }
  }

  function applyPrivate(msg) {
    if (!S.view) return;
    if (msg.you === null) {
      S.view.you = null;
    } else {
      S.view.you = Object.assign({}, S.view.you || {}, msg.you);
      S.legalFresh = true;
      S.busy = false;
    }
    render();
    if (S.view.you) expectPrivate();
  }

  function drainBuffer() {
    while (S.buffer.has(S.version + 1)) {
      const next = S.buffer.get(S.version + 1);
      S.buffer.delete(S.version + 1);
      applyUpdate(next);
    }
    for (const v of Array.from(S.buffer.keys())) if (v <= S.version) S.buffer.delete(v);
    if (S.buffer.size && Date.now() - S.resyncSentAt > 3000) sendResync();
  }

  function sendResync() {
    S.resyncSentAt = Date.now();
    send({ type: "resync", from_version: S.version });
  }

  function onUpdate(msg) {
    if (!S.view || S.version === null) return;
    if (msg.version <= S.version) return; // already have it
    if (msg.version === S.version + 1) {
      applyUpdate(msg);
      drainBuffer();
      render();
      return;
    }
    S.buffer.set(msg.version, msg);
    if (Date.now() - S.resyncSentAt > 3000) sendResync();
  }

  function handle(msg) {
    if (!msg || typeof msg !== "object") return;
    switch (msg.type) {
      case "snapshot":
        applySnapshot(msg.view, msg.version);
        break;
      case "update":
        onUpdate(msg);
        break;
      case "private":
        applyPrivate(msg);
        break;
      case "error":
        S.busy = false;
        showError(msg.code, refusal(msg.code, msg.message, msg.extra));
        if (S.view) render();
        if (msg.code === "stale_version" || msg.code === "not_your_turn") refreshState();
        break;
      case "ack":
      case "pong":
        break;
      default:
        break;
    }
  }

  // --- transport --------------------------------------------------------------------

  function send(frame) {
    if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
      showError("not_connected", "Not connected to the table; reconnecting…");
      return false;
    }
    S.ws.send(JSON.stringify(frame));
    return true;
  }

  function connect() {
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${window.location.host}${cfg.ws_path}`);
    S.ws = ws;
    setConn("connecting", "connecting…");
    ws.onopen = () => {
      setConn("open", "live");
      S.backoff = BACKOFF_MIN_MS;
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      handle(msg);
    };
    ws.onclose = (event) => {
      if (S.ws !== ws) return;
      S.ws = null;
      if (event.code === 4404) {
        setConn("closed", "table closed");
        showError("table_not_found", "This table does not exist any more.");
        return;
      }
      const delay = Math.min(BACKOFF_MAX_MS, S.backoff) * (0.8 + Math.random() * 0.4);
      S.backoff = Math.min(BACKOFF_MAX_MS, S.backoff * 2);
      setConn("closed", `reconnecting in ${Math.ceil(delay / 1000)}s…`);
      setTimeout(connect, delay);
    };
  }

  async function api(path, method, body) {
    const init = {
      method,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    };
    if (method !== "GET") {
      init.headers["Content-Type"] = "application/json";
      // The cookie is the fresh one (it rotates at login); the page's copy is the fallback.
      init.headers["X-CSRFToken"] = cookie("csrftoken") || root.getAttribute("data-csrf") || "";
      init.headers["Idempotency-Key"] = newKey();
      init.body = JSON.stringify(body || {});
    }
    const resp = await fetch(cfg.api_base + path, init);
    let data = null;
    try {
      data = await resp.json();
    } catch (_) {
      data = null;
    }
    if (!resp.ok) {
      const err = new Error((data && data.message) || `HTTP ${resp.status}`);
      err.code = (data && data.code) || `http_${resp.status}`;
      err.extra = data && data.extra;
      throw err;
    }
    return data;
  }

  async function refreshState() {
    if (!cfg.user) return;
    try {
      const view = await api("state/", "GET");
      if (view && typeof view.version === "number") applySnapshot(view, view.version);
    } catch (err) {
      showError(err.code, err.message);
    }
  }

  // --- user input -------------------------------------------------------------------

  function act(action) {
    const la = legal();
    if (!la || !la.actions.includes(action)) return;
    const frame = { type: "act", action, key: newKey() };
    if (action === "bet" || action === "raise") {
      frame.amount = typedAmount(byTestId("amount-input"));
      if (frame.amount === null) return;
    }
    if (send(frame)) {
      S.busy = true;
      render();
    }
  }

  function sizeTo(kind) {
    const you = S.view && S.view.you;
    const la = you && you.legal_actions;
    if (!la) return;
    const me = mySeatRow();
    const myBet = me ? me.bet : 0;
    const pot = (S.view.hand && S.view.hand.total_pot) || 0;
    const call = la.call_amount || 0;
    const potRaise = (fraction) => myBet + call + Math.floor((pot + call) * fraction);
    const target = { min: la.min_to, max: la.max_to, half: potRaise(0.5), pot: potRaise(1) }[kind];
    setAmount(target);
  }

  function chooseSeat(number) {
    S.chosenSeat = number;
    const select = byTestId("sit-seat");
    if (select) select.value = String(number);
    const buyIn = byTestId("sit-buy-in");
    if (buyIn) buyIn.focus();
  }

  /** Sends REST commands in turn (stopping at the first refused); true when all went. */
  async function command(path, body, button, then) {
    if (button) button.disabled = true;
    try {
      await api(path, "POST", body);
      for (const [nextPath, nextBody] of then || []) await api(nextPath, "POST", nextBody);
      await refreshState();
      return true;
    } catch (err) {
      showError(err.code, refusal(err.code, err.message, err.extra));
      return false;
    } finally {
      if (button) button.disabled = false;
    }
  }

  function wire() {
    for (const button of root.querySelectorAll("[data-action]")) {
      button.addEventListener("click", () => act(button.getAttribute("data-action")));
    }
    for (const button of root.querySelectorAll("[data-size]")) {
      button.addEventListener("click", () => sizeTo(button.getAttribute("data-size")));
    }
    byTestId("amount-range").addEventListener("input", (e) => setAmount(Number(e.target.value)));
    byTestId("amount-input").addEventListener("change", (e) => {
      const minor = typedAmount(e.target);
      if (minor !== null) setAmount(minor);
    });
    // The labels follow the amount as it is typed; the field itself is settled on change.
    byTestId("amount-input").addEventListener("input", (e) => {
      const la = S.view && S.view.you && S.view.you.legal_actions;
      if (la) showAmount(clampAmount(la, e.target.value));
    });

    const sitForm = byTestId("sit-form");
    if (sitForm) {
      sitForm.addEventListener("submit", (e) => {
        e.preventDefault();
        const buyIn = typedAmount(byTestId("sit-buy-in"));
        if (buyIn === null) return;
        const seat = byTestId("sit-seat").value;
        const body = { buy_in: buyIn };
        if (seat) body.seat = Number(seat);
        S.chosenSeat = null;
        command("sit/", body, byTestId("sit-submit"));
      });
    }
    const topUp = byTestId("top-up-form");
    if (topUp) {
      topUp.addEventListener("submit", (e) => {
        e.preventDefault();
        const me = mySeatRow();
        if (!me) return;
        const amount = typedAmount(byTestId("top-up-amount"));
        if (amount === null) return;
        const sitIn = me.stack === 0 && me.state === "sitting_out" ? [["sit-in/", {}]] : [];
        command("top-up/", { amount }, byTestId("top-up-submit"), sitIn);
      });
    }
    const leave = byTestId("leave");
    if (leave) {
      // Leaving folds a live hand: ask first (a dialog of the page's own, not window.confirm).
      const ask = byTestId("leave-confirm");
      leave.addEventListener("click", () => {
        const me = mySeatRow();
        if (me && S.view.hand && me.in_hand && !me.folded) ask.showModal();
        else command("leave/", {}, leave);
      });
      byTestId("leave-stay").addEventListener("click", () => ask.close());
      byTestId("leave-confirmed").addEventListener("click", () => {
        ask.close();
        command("leave/", {}, leave);
      });
    }
    const sitOut = byTestId("sit-out");
    if (sitOut) sitOut.addEventListener("click", () => send({ type: "sit_out", key: newKey() }));
    const sitIn = byTestId("sit-in");
    if (sitIn) sitIn.addEventListener("click", () => send({ type: "sit_in", key: newKey() }));

    const chatForm = byTestId("chat-form");
    if (chatForm) {
      chatForm.addEventListener("submit", (e) => {
        e.preventDefault();
        const input = byTestId("chat-input");
        const text = input.value.trim();
        if (!text) return;
        if (send({ type: "chat", text: text.slice(0, 200), key: newKey() })) input.value = "";
      });
    }
    setInterval(renderClock, 250);
    NARROW.addEventListener("change", render);
    let resizeTimer = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => placeChips(document.getElementById("seats")), 100);
    });
    setInterval(() => {
      if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify({ type: "ping" }));
    }, 25000);
  }

  // --- start ------------------------------------------------------------------------

  /** Replays the recent public updates the page was served with into the log and chat
   * (the state itself comes from the embedded view). */
  function replayHistory(updates) {
    for (const u of updates) {
      for (const [seat, name] of Object.entries(u.names || {})) S.names[seat] = name;
      const groups = u.events || [];
      for (const g of groups) {
        const ev = g.kind === "table" ? g.event : null;
        if (ev && ev.type === "HandBegan") {
          if (Array.isArray(ev.seats)) S.handSeats[ev.hand] = ev.seats;
          S.handNumbers[ev.hand] = ev.number;
        }
        if (ev && ev.type === "PlayerSat" && u.names && u.names[ev.seat]) {
          S.playerNames[ev.user_id] = u.names[ev.seat];
        }
      }
      for (const g of groups) {
        if (g.kind === "hand") for (const ev of g.events || []) handEvent(g.hand, ev);
        else if (g.kind === "table" && g.event) tableEvent(g.event);
      }
    }
  }

  wire();
  const initial = JSON.parse(document.getElementById("initial-view").textContent);
  // Names in old events are those of their time (S.names), not of today's seats.
  S.view = Object.assign({}, initial, { seats: [] });
  replayHistory(JSON.parse(document.getElementById("table-history").textContent));
  S.view = null;
  applySnapshot(initial, initial.version);
  connect();
})();
