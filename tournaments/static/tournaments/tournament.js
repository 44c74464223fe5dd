// The tournament pages: countdowns (to the start, to the next level) tick every second,
// and a tournament's page keeps itself current (entries, level, standings, your table)
// by reading itself again every few seconds while the tournament is not over.
(function () {
  "use strict";

  function left(ms) {
    if (ms <= 0) return "now";
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const pad = (n) => String(n).padStart(2, "0");
    return "in " + (h ? `${h}:${pad(m)}` : `${m}`) + `:${pad(s % 60)}`;
  }

  function tick() {
    for (const el of document.querySelectorAll("[data-countdown]")) {
      const at = Date.parse(el.getAttribute("data-countdown"));
      if (!Number.isNaN(at)) {
        el.textContent = left(at - Date.now());
        el.title = new Date(at).toLocaleString();
      }
    }
  }

  async function refresh() {
    const root = document.querySelector("[data-testid=tournament]");
    const live = document.getElementById("tournament-live");
    if (!root || !live) return;
    if (["finished", "cancelled"].includes(root.getAttribute("data-status"))) return;
    try {
      const resp = await fetch(location.href, { headers: { Accept: "text/html" } });
      if (!resp.ok) return;
      const next = new DOMParser().parseFromString(await resp.text(), "text/html");
      const fresh = next.getElementById("tournament-live");
      const freshRoot = next.querySelector("[data-testid=tournament]");
      if (fresh && freshRoot) {
        live.innerHTML = fresh.innerHTML;
        root.setAttribute("data-status", freshRoot.getAttribute("data-status"));
        const badge = document.querySelector("[data-testid=status]");
        const freshBadge = next.querySelector("[data-testid=status]");
        if (badge && freshBadge) badge.textContent = freshBadge.textContent;
        tick();
      }
    } catch (e) {
      // Offline for a moment: the next refresh tries again.
    }
  }

  tick();
  setInterval(tick, 1000);
  setInterval(refresh, 5000);
})();
