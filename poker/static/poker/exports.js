/* The export panel of "My hands": starts an export job of the hands the page's filters
 * select (POST /api/v1/exports/), polls it every second for a live progress bar, then
 * offers its download link; below, the caller's recent exports. Session authentication,
 * so every POST carries the CSRF token from the cookie. Text from the server is put in
 * the page with textContent only.
 */
(function () {
  "use strict";

  const panel = document.getElementById("exports");
  if (!panel) return;
  const filters = JSON.parse(document.getElementById("export-filters").textContent);
  const byTestId = (id) => panel.querySelector(`[data-testid="${id}"]`);
  const BASE = "/api/v1/exports/";
  const POLL_MS = 1000;
  const DONE = new Set(["succeeded", "failed", "cancelled", "expired"]);
  const STATUS_TEXT = {
    queued: "Waiting to start…",
    running: "Exporting…",
    succeeded: "Ready",
    failed: "Failed",
    cancelled: "Cancelled",
    expired: "Expired",
  };
  let pollTimer = null;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, String(v));
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function cookie(name) {
    for (const part of document.cookie.split(";")) {
      const [k, ...rest] = part.trim().split("=");
      if (k === name) return decodeURIComponent(rest.join("="));
    }
    return "";
  }

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  }

  async function api(path, method, body) {
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (method !== "GET") {
      init.headers["Content-Type"] = "application/json";
      init.headers["X-CSRFToken"] = cookie("csrftoken");
      init.headers["Idempotency-Key"] = newKey();
      init.body = JSON.stringify(body || {});
    }
    const resp = await fetch(BASE + path, init);
    let data = null;
    try {
      data = await resp.json();
    } catch (_) {
      data = null;
    }
    if (!resp.ok) {
      const err = new Error((data && data.message) || `The export service answered ${resp.status}.`);
      err.code = (data && data.code) || `http_${resp.status}`;
      throw err;
    }
    return data;
  }

  // The refusal's message for people, its stable code on the box (data-code) for scripts.
  function showError(message, code) {
    const box = byTestId("export-error");
    box.textContent = message;
    box.hidden = !message;
    if (message && code) box.setAttribute("data-code", code);
    else box.removeAttribute("data-code");
  }

  function showJob(job) {
    const box = byTestId("export-job");
    box.hidden = false;
    box.setAttribute("data-status", job.status);
    box.setAttribute("data-job", job.id);
    byTestId("export-status").textContent = STATUS_TEXT[job.status] || job.status;
    const total = Number(job.hands_total) || 0;
    const done = Number(job.hands_done) || 0;
    const bar = byTestId("export-progress");
    bar.max = Math.max(1, total);
    bar.value = job.status === "succeeded" ? bar.max : Math.min(done, bar.max);
    byTestId("export-count").textContent = total ? `${done} / ${total} hands` : "";
    const link = byTestId("export-download");
    link.hidden = !(job.status === "succeeded" && job.download_url);
    if (!link.hidden) {
      link.href = job.download_url;
      link.setAttribute("download", "");
    }
    if (job.status === "failed" && job.error) showError(job.error);
  }

  async function poll(id) {
    clearTimeout(pollTimer);
    try {
      const job = await api(`${id}/`, "GET");
      showJob(job);
      if (DONE.has(job.status)) {
        loadRecent();
        return;
      }
    } catch (err) {
      showError(err.message, err.code);
      return;
    }
    pollTimer = setTimeout(() => poll(id), POLL_MS);
  }

  function describe(job) {
    const when = job.created_at ? job.created_at.replace("T", " ").slice(0, 16) : "";
    const hands = job.hands_total ? `, ${job.hands_total} hands` : "";
    return `${job.format} · ${when}${hands} · ${STATUS_TEXT[job.status] || job.status}`;
  }

  async function loadRecent() {
    let jobs;
    try {
      const data = await api("", "GET");
      jobs = Array.isArray(data) ? data : (data && data.results) || [];
    } catch (err) {
      return; // the list is a convenience: the panel still works without it
    }
    const list = byTestId("export-list");
    list.replaceChildren(
      ...jobs.slice(0, 10).map((job) => {
        const item = el("li", { "data-job": job.id, "data-status": job.status }, describe(job));
        if (job.status === "succeeded" && job.download_url) {
          item.append(" ", el("a", { href: job.download_url }, "download"));
        }
        return item;
      }),
    );
  }

  byTestId("export-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    showError("");
    const button = byTestId("export-submit");
    const body = { format: byTestId("export-format").value };
    if (filters.tables && filters.tables.length) body.tables = filters.tables;
    if (filters.since) body.since = filters.since;
    if (filters.until) body.until = filters.until;
    if (filters.result) body.result = filters.result;
    button.disabled = true;
    try {
      const job = await api("", "POST", body);
      showJob(job);
      poll(job.id);
    } catch (err) {
      showError(err.message, err.code);
    } finally {
      button.disabled = false;
    }
  });
  loadRecent();
})();
