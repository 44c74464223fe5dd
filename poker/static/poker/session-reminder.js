// The session reminder of the table page: every `reminder_minutes` (the server's
// SESSION_REMINDER_MINUTES) it asks /api/v1/account/session/ for the player's current
// play session and, when the player is seated, shows how long they have played and their
// net result until they dismiss it. The figures are computed by the server.
(function () {
  "use strict";
  const box = document.getElementById("session-reminder");
  if (!box) return; // a spectator: no session
  const url = box.dataset.url;
  const text = box.querySelector("[data-testid=session-reminder-text]");

  function describe(session) {
    const hours = Math.floor(session.minutes_played / 60);
    const minutes = session.minutes_played % 60;
    const played = hours ? `${hours} h ${minutes} min` : `${minutes} min`;
    const net = session.net > 0 ? `+${session.net}` : String(session.net);
    return `${played} played, net result ${net} ${session.currency}`;
  }

  async function fetchSessions() {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`session: HTTP ${response.status}`);
    return response.json();
  }

  async function remind() {
    const data = await fetchSessions();
    if (!data.sessions.length) return;
    text.textContent = `Reality check: ${data.sessions.map(describe).join("; ")}.`;
    box.dataset.minutes = String(Math.max(...data.sessions.map((s) => s.minutes_played)));
    box.hidden = false;
  }

  box.querySelector("[data-testid=session-reminder-dismiss]").addEventListener("click", () => {
    box.hidden = true;
  });

  fetchSessions()
    .then((data) => {
      const every = Math.max(1, data.reminder_minutes) * 60 * 1000;
      setInterval(() => remind().catch(() => {}), every);
    })
    .catch(() => {}); // no reminder rather than a broken table page
})();
