/* Provably fair deals, checked in the browser (docs/provably-fair.md).
 *
 * pokerDeckV1 is algorithm poker-deck-v1 of poker/engine/deck.py, on WebCrypto: SHA-256 for
 * the commitment, HMAC-SHA256 for the key and the byte stream, read as big-endian uint32s
 * through a DataView (plain Numbers: no BigInt needed). Where crypto.subtle is missing (a
 * page served over plain http from another host is not a secure context) the check is
 * asked of the public endpoint POST /api/v1/fairness/verify/ instead.
 *
 * Mount points, with nothing inline (the Content-Security-Policy forbids it):
 *   <section id="fairness" data-hand-id="N">   the proof of hand N, with "Verify this deal"
 *   <form id="fairness-verify-form">           verify any deal pasted in
 *   <form id="fairness-client-seed">           the logged-in player's client seed
 * Everything from the server is put in the page with textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  // Known only while this file runs, not later when the page is ready.
  const SCRIPT = document.currentScript;
  const DOMAIN = "poker-deck-v1";
  const RANKS = "23456789TJQKA";
  const SUITS = "cdhs";
  const TWO_32 = 4294967296;
  const FULL_DECK = Array.from({ length: 52 }, (_, i) => i);
  // Short deck: sixes to aces, the cards 16..51 (poker/engine/cards.py).
  const DECKS = { NT: FULL_DECK, FT: FULL_DECK, PO: FULL_DECK, NS: FULL_DECK.slice(16) };
  const VERIFY_URL = "/api/v1/fairness/verify/";
  const WITHHELD_TEXT = {
    not_every_player_showed:
      "The server seed stays secret: not every player showed their cards, and revealing " +
      "the seed would reveal theirs. The commitment above still binds the deal; staff " +
      "can verify it in full.",
  };

  // --- poker-deck-v1 ----------------------------------------------------------------

  function cardText(card) {
    return RANKS[card >> 2] + SUITS[card & 3];
  }

  function hexToBytes(hex) {
    if (typeof hex !== "string" || hex.length % 2 || !/^[0-9a-fA-F]*$/.test(hex)) {
      throw new Error("not hexadecimal");
    }
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }

  function bytesToHex(bytes) {
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function u32(n) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, false);
    return b;
  }

  function u64(n) {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error("nonce must be a safe integer");
    const b = new Uint8Array(8);
    const view = new DataView(b.buffer);
    view.setUint32(0, Math.floor(n / TWO_32), false);
    view.setUint32(4, n % TWO_32, false);
    return b;
  }

  function concat(parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  function message(clientSeeds, nonce) {
    const enc = new TextEncoder();
    const parts = [enc.encode(DOMAIN), u32(clientSeeds.length)];
    for (const seed of clientSeeds) {
      const raw = enc.encode(seed);
      parts.push(u32(raw.length), raw);
    }
    parts.push(u64(nonce));
    return concat(parts);
  }

  async function hmac(keyBytes, data) {
    const key = await crypto.subtle.importKey(
      "raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
    );
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, data));
  }

  async function commitment(seedHex) {
    return bytesToHex(await crypto.subtle.digest("SHA-256", hexToBytes(seedHex)));
  }

  /* The deck order for (seed, cards, client seeds, nonce): deck.py's shuffle_deck. */
  async function shuffle(seedHex, cards, clientSeeds, nonce) {
    const seed = hexToBytes(seedHex);
    if (seed.length < 16) throw new Error("the server seed has fewer than 16 bytes");
    const key = await crypto.subtle.importKey(
      "raw", await hmac(seed, message(clientSeeds, nonce)),
      { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
    );
    const values = [];
    let block = 0;
    let next = 0;
    async function read() {
      if (next === values.length) {
        // Eight blocks at a time: 64 values, enough for a whole deck barring rejections.
        const blocks = await Promise.all(
          Array.from({ length: 8 }, (_, k) => crypto.subtle.sign("HMAC", key, u64(block + k)))
        );
        block += 8;
        for (const raw of blocks) {
          const view = new DataView(raw);
          for (let off = 0; off < 32; off += 4) values.push(view.getUint32(off, false));
        }
      }
      return values[next++];
    }
    const deck = cards.slice();
    for (let i = deck.length - 1; i > 0; i--) {
      const bound = i + 1;
      const limit = TWO_32 - (TWO_32 % bound);
      let x = await read();
      while (x >= limit) x = await read();
      const j = x % bound;
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
    return deck;
  }

  /* {ok, commitment_matches, mismatches, deck (text)}: the same answer as the endpoint. */
  async function verify(input) {
    const cards = DECKS[input.variant];
    if (!cards) throw new Error(`unknown variant ${input.variant}`);
    if (!(window.crypto && crypto.subtle)) return verifyOnServer(input);
    const computed = await commitment(input.server_seed);
    const deck = (await shuffle(input.server_seed, cards, input.client_seeds, input.nonce))
      .map(cardText);
    const mismatches = (input.dealt || [])
      .filter((d) => deck[d.position] !== d.card)
      .map((d) => ({ position: d.position, card: d.card, deck_has: deck[d.position] }));
    const matches = computed === String(input.commitment).toLowerCase();
    return {
      ok: matches && mismatches.length === 0,
      commitment_matches: matches,
      computed_commitment: computed,
      mismatches,
      deck,
      where: "browser",
    };
  }

  async function verifyOnServer(input) {
    const body = {
      server_seed: input.server_seed,
      commitment: input.commitment,
      client_seeds: input.client_seeds,
      nonce: input.nonce,
      variant: input.variant,
      dealt: (input.dealt || []).map((d) => ({ position: d.position, card: d.card })),
    };
    const resp = await fetch(VERIFY_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    const data = await resp.json();
    if (!resp.ok) throw new Error(data.message || `verification refused (${resp.status})`);
    return { ...data, where: "server" };
  }

  window.pokerDeckV1 = { shuffle, commitment, verify, cardText, decks: DECKS };

  // --- page helpers -------------------------------------------------------------------

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, String(v));
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function row(list, label, value, testid) {
    list.append(el("dt", null, label), el("dd", { "data-testid": testid, class: "mono" }, value));
  }

  function cookie(name) {
    const hit = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
    return hit ? decodeURIComponent(hit.slice(name.length + 1)) : "";
  }

  function showResult(node, result) {
    node.replaceChildren();
    node.className = "fairness-result " + (result.ok ? "ok" : "bad");
    const where = result.where === "server" ? " (checked by the server)" : " (checked in your browser)";
    node.append(el("p", { "data-testid": "fairness-verdict" },
      (result.ok ? "Verified: " : "NOT verified: ") +
      (result.commitment_matches ? "the seed matches the commitment" : "the seed does NOT match the commitment") +
      (result.mismatches.length ? `; ${result.mismatches.length} card(s) are not where the deck puts them` : "") +
      where));
    for (const m of result.mismatches) {
      node.append(el("p", null, `Position ${m.position}: ${m.card} was dealt, the deck has ${m.deck_has}.`));
    }
    node.append(el("p", { class: "mono", "data-testid": "fairness-deck" }, result.deck.join(" ")));
  }

  function showError(node, error) {
    node.replaceChildren(el("p", { class: "bad" }, `Could not check: ${error.message || error}`));
  }

  // --- the proof of one hand ----------------------------------------------------------

  async function mountHand(section) {
    const handId = section.getAttribute("data-hand-id");
    const body = el("div", { class: "fairness-proof" });
    section.append(body);
    let proof;
    try {
      const resp = await fetch(`/api/v1/hands/${encodeURIComponent(handId)}/fairness/`, {
        credentials: "same-origin", headers: { Accept: "application/json" },
      });
      proof = await resp.json();
      if (!resp.ok) throw new Error(proof.message || `error ${resp.status}`);
    } catch (error) {
      body.append(el("p", { "data-testid": "fairness-error" }, `No proof for this hand: ${error.message}`));
      return;
    }
    if (!proof.algorithm) {
      body.append(el("p", null, "This hand was not dealt from a committed seed."));
      return;
    }
    const list = el("dl", { class: "fairness-facts" });
    row(list, "Algorithm", proof.algorithm, "fairness-algorithm");
    row(list, "Commitment (SHA-256 of the seed)", proof.commitment, "fairness-commitment");
    const seeds = proof.client_seeds.map((s, i) =>
      `seat ${proof.client_seed_seats[i]}: ${s === "" ? "(none)" : JSON.stringify(s)}`);
    row(list, "Client seeds", seeds.length ? seeds.join(", ") : "(none)", "fairness-client-seeds");
    row(list, "Nonce", proof.nonce, "fairness-nonce");
    row(list, "Server seed", proof.server_seed || "secret", "fairness-server-seed");
    body.append(list);
    const known = proof.dealt.map((d) => `#${d.position} ${d.card} → ${d.to === "board" ? "board" : "seat " + d.to}`);
    body.append(el("p", { class: "mono", "data-testid": "fairness-dealt" }, known.join(", ")));
    if (!proof.server_seed) {
      const why = WITHHELD_TEXT[proof.withheld_reason] || "The server seed is not revealed to you.";
      body.append(el("p", { "data-testid": "fairness-withheld" }, why));
      return;
    }
    const button = el("button", { type: "button", "data-testid": "fairness-verify" }, "Verify this deal");
    const result = el("div", { "data-testid": "fairness-result", "aria-live": "polite" });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        showResult(result, await verify({ ...proof, dealt: proof.dealt }));
      } catch (error) {
        showError(result, error);
      } finally {
        button.disabled = false;
      }
    });
    body.append(button, result);
  }

  // --- the /fairness/ page's forms ----------------------------------------------------

  function mountVerifyForm(form) {
    const result = form.querySelector("[data-testid=verify-form-result]");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const seeds = String(data.get("client_seeds") || "");
      const input = {
        server_seed: String(data.get("server_seed") || "").trim(),
        commitment: String(data.get("commitment") || "").trim(),
        client_seeds: seeds === "" ? [] : seeds.split(/\r?\n/),
        nonce: Number(data.get("nonce") || 0),
        variant: String(data.get("variant") || "NT"),
        dealt: [],
      };
      try {
        showResult(result, await verify(input));
      } catch (error) {
        showError(result, error);
      }
    });
  }

  async function mountClientSeed(form) {
    const input = form.querySelector("input[name=seed]");
    const status = form.querySelector("[data-testid=client-seed-status]");
    const call = async (method, body) => {
      const resp = await fetch("/api/v1/fairness/client-seed/", {
        method, credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json",
                   "X-CSRFToken": cookie("csrftoken") },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const data = await resp.json();
      if (!resp.ok) throw new Error(data.message || `error ${resp.status}`);
      return data;
    };
    try {
      input.value = (await call("GET")).seed;
    } catch (error) {
      status.textContent = error.message;
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const saved = await call("PUT", { seed: input.value });
        input.value = saved.seed;
        status.textContent = "Saved: it is mixed into your deals from your next hand.";
      } catch (error) {
        status.textContent = error.message;
      }
    });
  }

  function linkStylesheet() {
    // The panel may be mounted on a page that does not know it (the hand replayer).
    if (!SCRIPT || !SCRIPT.src || document.querySelector("link[data-fairness-css]")) return;
    const href = SCRIPT.src.replace(/fairness(\.[0-9a-f]+)?\.js(\?.*)?$/, "fairness.css");
    const link = el("link", { rel: "stylesheet", href, "data-fairness-css": "" });
    document.head.append(link);
  }

  function start() {
    linkStylesheet();
    const section = document.getElementById("fairness");
    if (section && section.getAttribute("data-hand-id")) mountHand(section);
    const verifyForm = document.getElementById("fairness-verify-form");
    if (verifyForm) mountVerifyForm(verifyForm);
    const seedForm = document.getElementById("fairness-client-seed");
    if (seedForm) mountClientSeed(seedForm);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
