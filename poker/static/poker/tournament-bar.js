// A tournament table's bar: the tournament's level, the countdown to the next one, the
// players left, the average stack and the player's place, read from the tournament's
// public API every few seconds. When the player is moved to another table (balancing, a
// table broken), the bar says where and the page follows them there.
(function () {
  "use strict";
  const bar = document.querySelector("[data-testid=tournament-bar]");
  if (!bar) return;
  const api = bar.getAttribute("data-api");
  const here = Number(bar.getAttribute("data-table"));
  const part = (name) => bar.querySelector(`[data-testid=tournament-${name}]`);
  let endsAt = null;
  let moving = false;

  function countdown() {
    const el = part("next-level");
    if (endsAt === null) return;
    const s = Math.max(0, Math.floor((endsAt - Date.now()) / 1000));
    el.textContent = `Next level in ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  function show(t) {
    const level = t.level;
    if (level) {
      part("level").textContent =
        `Level ${level.number} · Blinds ${level.small_blind}/${level.big_blind}` +
        (level.ante ? `, ante ${level.ante}` : "");
      endsAt = level.ends_at ? Date.parse(level.ends_at) : null;
      if (endsAt === null) {
        part("next-level").textContent =
          level.hands_left !== null ? `${level.hands_left} hands to the next level` : "";
      }
    }
    part("players-left").textContent = `${t.players_left} of ${t.entries} left`;
    const stacks = t.standings.filter((s) => s.place === null).map((s) => s.chips);
    const average = stacks.length ? Math.round(stacks.reduce((a, b) => a + b, 0) / stacks.length) : 0;
    part("average").textContent = `Average stack ${average.toLocaleString("en")}`;
    const you = t.you;
    const yours = part("you");
    if (!you) {
      yours.textContent = "";
    } else if (you.place) {
      yours.textContent = `You finished ${you.place}` + (you.prize ? ", a prize is paid to your wallet" : "");
    } else {
      const rank = 1 + stacks.filter((chips) => chips > you.chips).length;
      yours.textContent = `Your rank ${rank} of ${t.players_left}`;
      if (you.table && you.table !== here && !moving) {
        moving = true;
        yours.textContent = `You are moved to table ${you.table}, seat ${you.seat}…`;
        setTimeout(() => window.location.assign(`/tables/${you.table}/`), 1500);
      }
    }
    countdown();
  }

  async function poll() {
    try {
      const resp = await fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (resp.ok) show(await resp.json());
    } catch (e) {
      // Offline for a moment: the next poll tries again.
    }
  }

  poll();
  setInterval(poll, 5000);
  setInterval(countdown, 1000);
})();
