/* The live staff dashboard: draws the figures embedded in the page, then asks for fresh
 * ones every few seconds and redraws them in place (no reload). Text goes in through
 * textContent only: names and fraud subjects are data, never markup. */
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("dashboard-config").textContent);
  let figures = JSON.parse(document.getElementById("dashboard-figures").textContent);
  const charts = {};

  function $(id) { return document.getElementById(id); }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function link(href, text) {
    const a = el("a", text);
    a.href = href;
    return a;
  }

  function row(cells) {
    const tr = document.createElement("tr");
    for (const cell of cells) {
      const td = document.createElement("td");
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell === null ? "" : String(cell);
      tr.appendChild(td);
    }
    return tr;
  }

  function fill(id, rows, empty, columns) {
    const body = $(id);
    body.replaceChildren();
    if (!rows.length) {
      const tr = document.createElement("tr");
      const td = el("td", empty, "dash-none");
      td.colSpan = columns;
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    for (const r of rows) body.appendChild(r);
  }

  function number(n) { return n === null || n === undefined ? "" : n.toLocaleString("en"); }

  // Amounts come in minor units: shown in their currency's units ("€50.00", "1,500 CHIPS").
  function money(amount, currency) { return Money.format(amount, figures.currencies[currency]); }

  function sums(id, byCurrency) {
    const list = $(id);
    list.replaceChildren();
    for (const [currency, s] of Object.entries(byCurrency)) {
      list.appendChild(el("li", `${money(s.sum, currency)} (${s.count})`));
    }
  }

  function drawTables(tables) {
    fill("tables", tables.map((t) => {
      // Links only where the every-card rule lets this member (none when seated there).
      const watch = document.createElement("span");
      if (t.watch_url) {
        const live = link(t.watch_url, "live, every card a hand behind");
        live.dataset.testid = `watch-${t.id}`;
        watch.appendChild(live);
      }
      if (t.hand_url) {
        if (t.watch_url) watch.appendChild(document.createTextNode(" · "));
        watch.appendChild(link(t.hand_url, `last hand ${t.last_hand}`));
      }
      const tr = row([t.name, t.variant, t.stakes, `${t.seated}/${t.max_seats}`,
                      t.pot === null ? "–" : money(t.pot, t.currency), number(t.hands_last_hour), watch]);
      tr.dataset.table = t.id;
      return tr;
    }), "No table is open.", 7);
  }

  function drawAudits(audits) {
    fill("audits", audits.map((a) => {
      const run = a.run;
      if (!run) return row([a.label, el("span", "never run", "dash-none"), "", "", ""]);
      const result = link(run.url, run.ok ? "passed" : run.status);
      result.className = run.ok ? "dash-ok" : "dash-bad";
      const problems = document.createElement("div");
      problems.appendChild(document.createTextNode(number(run.failure_count)));
      if (run.failures.length) {
        const list = el("ul", null, "dash-failures");
        for (const f of run.failures) list.appendChild(el("li", f));
        problems.appendChild(list);
      }
      const tr = row([a.label, result, new Date(run.started_at).toLocaleString(),
                      number(run.checked), problems]);
      tr.dataset.check = a.check;
      tr.dataset.status = run.status;
      return tr;
    }), "", 5);
  }

  function drawFraud(fraud) {
    $("fraud-counts").textContent = Object.entries(fraud.by_status)
      .map(([status, n]) => `${status}: ${n}`).join(" · ");
    fill("fraud-top", fraud.top.map((c) => row([
      link(c.url, `case ${c.id}`), c.subject, c.kinds.join(", "), c.score, c.status,
    ])), "No open case.", 5);
  }

  const COLOURS = ["#417690", "#c4761c", "#6b8e23", "#8e44ad", "#b22222"];

  function chart(id, type, labels, datasets) {
    if (typeof Chart === "undefined") return; // the library failed to load: figures still show
    if (charts[id]) {
      charts[id].data.labels = labels;
      charts[id].data.datasets = datasets;
      charts[id].update("none");
      return;
    }
    charts[id] = new Chart($(id), {
      type: type,
      data: { labels: labels, datasets: datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
        plugins: { legend: { display: datasets.length > 1 } },
      },
    });
  }

  function drawCharts(f) {
    const hours = f.hands_per_hour;
    chart("hands-chart", "line",
      hours.map((h) => new Date(h.hour).toISOString().slice(5, 13).replace("T", " ") + "h"),
      [{ label: "hands", data: hours.map((h) => h.hands), borderColor: COLOURS[0],
         backgroundColor: COLOURS[0], tension: 0.2, pointRadius: 0 }]);  // 720 hours: a line
    const rake = f.rake_per_day;
    const currencies = Object.keys(rake.currencies);
    chart("rake-chart", "bar", rake.days.map((d) => d.slice(5)),
      (currencies.length ? currencies : ["CHIPS"]).map((c, i) => ({
        label: c, data: rake.currencies[c] || rake.days.map(() => 0),
        backgroundColor: COLOURS[i % COLOURS.length],
      })));
  }

  function draw(f) {
    $("updated-at").textContent = new Date(f.generated_at).toLocaleTimeString();
    $("updated-at").dateTime = f.generated_at;
    $("players-seated").textContent = number(f.players.seated);
    $("players-24h").textContent = number(f.players.last_24h);
    $("hands-hour").textContent = number(f.tables.reduce((n, t) => n + t.hands_last_hour, 0));
    for (const kind of ["deposits", "withdrawals"]) {
      $(`${kind}-count`).textContent = number(f.money[kind].count);
      $(`${kind}-link`).href = f.money[kind].url;
      sums(`${kind}-sums`, f.money[kind].by_currency);
    }
    drawAudits(f.audits);
    drawTables(f.tables);
    drawFraud(f.fraud);
    drawCharts(f);
  }

  async function refresh() {
    try {
      const response = await fetch(config.figures_url, {
        credentials: "same-origin", headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      figures = await response.json();
      draw(figures);
      $("refresh-error").hidden = true;
    } catch (err) {
      $("refresh-error").hidden = false;
    }
  }

  draw(figures);
  setInterval(refresh, config.refresh_ms);
})();
