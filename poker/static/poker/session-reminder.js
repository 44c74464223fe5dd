// The session reminder of the table page (a "reality check"). Every `reminder_minutes`
// (the server's SESSION_REMINDER_MINUTES) of the player's play session, counted from the
// session's start, it shows how long they have played and their net result until they
// dismiss it. The session and its figures come from /api/v1/account/session/ (computed
// by the server): counting from the session's start rather than from when the page was
// opened, a reload of the page does not put the next reminder off. Time is counted on
// the server's clock (this browser's, corrected by the first answer's Date header), so a
// reminder due at one hour comes at one hour and says "1 h 0 min", whatever the skew
// between the two clocks. "Leave the table" beside OK leaves as the table's own Leave
// button does (asking first when a hand of theirs is live). The net, in minor units from
// the server, is shown in the currency's units by the one formatter (money.js), each
// currency as the page states it.
(function () {
  "use strict";
  const box = document.getElementById("session-reminder");
  if (!box) return; // a spectator: no session
  const url = box.dataset.url;
  const text = box.querySelector("[data-testid=session-reminder-text]");
  const currencies = JSON.parse(box.dataset.currencies || "{}");

  // The server's clock minus this browser's (ms), from the first answer; 0 until then.
  let skew = null;
  const serverNow = () => Date.now() + (skew || 0);

  function describe(session) {
    // To the nearest minute: the timer fires at a whole interval, give or take a second.
    const played = Math.max(0, Math.round((serverNow() - Date.parse(session.started_at)) / 60000));
    const hours = Math.floor(played / 60);
    const minutes = played % 60;
    const spent = hours ? `${hours} h ${minutes} min` : `${minutes} min`;
    return `${spent} played, net result ${Money.format(session.net, currencies[session.currency], { plus: true })}`;
  }

  async function fetchSessions() {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`session: HTTP ${response.status}`);
    const date = Date.parse(response.headers.get("Date") || "");
    if (skew === null && Number.isFinite(date)) skew = date - Date.now();
    return response.json();
  }

  // Milliseconds until the next whole interval of the longest session (a full interval
  // when not seated: the player may sit down meanwhile).
  function untilNextReminder(data, every) {
    if (!data.sessions.length) return every;
    const started = Math.min(...data.sessions.map((s) => Date.parse(s.started_at)));
    const elapsed = Math.max(0, serverNow() - started);
    return every - (elapsed % every);
  }

  const leave = box.querySelector("[data-testid=session-reminder-leave]");
  const tableLeave = () => document.querySelector("[data-testid=leave]");

  function show(data) {
    text.textContent = `Reality check: ${data.sessions.map(describe).join("; ")}.`;
    const seated = tableLeave();
    leave.hidden = !seated || seated.hidden;
    box.hidden = false;
  }

  leave.addEventListener("click", () => {
    box.hidden = true;
    const seated = tableLeave();
    if (seated && !seated.hidden) seated.click();
  });

  async function cycle(first) {
    const data = await fetchSessions();
    const every = Math.max(1, data.reminder_minutes) * 60 * 1000;
    // A reminder is due when the timer fired at a whole interval of a session.
    if (!first && data.sessions.length && untilNextReminder(data, every) > every - 60 * 1000) {
      show(data);
    }
    setTimeout(() => cycle(false).catch(retryLater), untilNextReminder(data, every));
  }

  function retryLater() {
    setTimeout(() => cycle(false).catch(retryLater), 60 * 1000);
  }

  box.querySelector("[data-testid=session-reminder-dismiss]").addEventListener("click", () => {
    box.hidden = true;
  });

  cycle(true).catch(retryLater); // no reminder rather than a broken table page
})();
