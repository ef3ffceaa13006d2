// Dashboard of the mwallet simulator: reads GET /_sim/state every second and
// drives the control API. Plain browser JavaScript, no dependencies.
"use strict";

(function () {
  const POLL_MS = 1000;
  const LIST_ROWS = 100; // rows shown per journal-like table

  let lastText = "";
  let state = null;
  const openDetails = new Set(); // ids whose history is expanded
  // stepping is set while the page shows a step of the recording instead
  // of the live state: {seq, total}.
  let stepping = null;

  // --- the control token: a simulator that requires one (mwallet-sim
  // -control-token) is opened as /_sim/ui/#token=TOKEN; the token is kept
  // for this tab only, removed from the address bar, and sent in
  // X-Sim-Control-Token on every control call. ---

  const TOKEN_KEY = "mwallet-sim-control-token";
  (function takeToken() {
    const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (!m) return;
    try { sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1])); } catch (_) { /* storage off */ }
    try { window.history.replaceState(null, "", location.pathname + location.search); } catch (_) { /* keep the address */ }
  })();

  function controlHeaders(extra) {
    const out = Object.assign({}, extra || {});
    let tok = null;
    try { tok = sessionStorage.getItem(TOKEN_KEY); } catch (_) { /* storage off */ }
    if (tok) out["X-Sim-Control-Token"] = tok;
    return out;
  }

  // A link to a control route cannot carry the token: with one, the
  // recording is fetched with it and saved from memory.
  document.addEventListener("click", async (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest('a[href="/_sim/recording"]') : null;
    if (!a || !controlHeaders()["X-Sim-Control-Token"]) return;
    ev.preventDefault();
    const res = await fetch(a.getAttribute("href"), { cache: "no-store", headers: controlHeaders() });
    if (!res.ok) return;
    const url = URL.createObjectURL(await res.blob());
    const tmp = document.createElement("a");
    tmp.href = url;
    tmp.download = a.getAttribute("download") || "recording.jsonl";
    tmp.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  // --- DOM helpers: every value goes in as text, never as markup. ---

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function fmtTime(iso) {
    if (!iso) return "";
    return iso.replace("T", " ").replace(/\.\d+/, "").replace("Z", "");
  }

  function badge(status, id) {
    return h("span", { class: "badge " + tone(status), "data-status-of": id, text: status || "—" });
  }

  function tone(status) {
    switch (status) {
      case "completed": case "issued": case "active": case "credited": case "sent": case "approved":
        return "good";
      case "processing": case "pending": case "pending_review": case "submitted": case "reviewing":
      case "platform_reviewing": case "dispatching": case "needs_reconfirm": case "unactivated":
      case "closing": case "frozen":
        return "wait";
      case "failed": case "rejected": case "dead": case "closed": case "lost": case "suspended":
      case "blocklisted": case "banned": case "expired": case "canceled":
        return "bad";
      case "refunded": case "replaced": case "no_subscriber":
        return "back";
      default:
        return "";
    }
  }

  function table(id, headers, rows, emptyText) {
    const t = document.getElementById(id);
    t.replaceChildren(
      h("thead", {}, h("tr", {}, headers.map((x) => h("th", { text: x })))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { class: "empty", colspan: headers.length, text: emptyText })))
    );
  }

  function history(obj) {
    const entries = obj.history || [];
    const trace = obj.trace || [];
    if (!entries.length && !trace.length) return h("span", { class: "muted", text: "no events" });
    const d = h("details", { "data-history-of": obj.id },
      h("summary", { text: entries.length + (entries.length === 1 ? " event" : " events") + (trace.length ? ", trace" : "") }),
      entries.length ? h("ol", {}, entries.map((e) =>
        h("li", {}, h("time", { text: fmtTime(e.at) }), " v", String(e.status_version), " ",
          badge(e.status), " ", h("code", { text: e.event_type }), " ", h("span", { class: "muted mono", text: e.event_id })))) : null,
      trace.length ? h("div", { class: "muted mono", text: "trace: " + trace.join(" → ") }) : null);
    if (openDetails.has(obj.id)) d.open = true;
    d.addEventListener("toggle", () => { d.open ? openDetails.add(obj.id) : openDetails.delete(obj.id); });
    return d;
  }

  function details(obj) {
    const d = obj.details || {};
    return Object.keys(d).sort().map((k) => h("span", { class: "kv" }, h("span", { class: "k", text: k }), " ", d[k]));
  }

  // --- actions ---

  function banner(text, ok) {
    const b = document.getElementById("banner");
    b.textContent = text;
    b.className = "banner" + (ok ? " ok" : "");
    b.hidden = false;
    clearTimeout(banner.timer);
    banner.timer = setTimeout(() => { b.hidden = true; }, ok ? 2500 : 8000);
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: "POST",
      headers: controlHeaders({ "Content-Type": "application/json" }),
      body: JSON.stringify(body || {}),
    });
    let out = null;
    try { out = await res.json(); } catch (_) { /* empty answer */ }
    if (!res.ok) {
      const msg = out && (out.message || out.code) ? (out.code + ": " + out.message) : ("HTTP " + res.status);
      throw new Error(msg);
    }
    return out;
  }

  // run performs fn and reports its message (or "done") in the banner.
  async function run(label, fn) {
    try {
      const msg = await fn();
      banner(label + ": " + (typeof msg === "string" ? msg : "done"), true);
    } catch (err) {
      banner(label + ": " + err.message, false);
    }
    refresh();
  }

  // actionButtons renders one button per control action; allowed(name)
  // says whether the object's status permits it.
  function actionButtons(collection, id, names, allowed) {
    const known = new Set(state.actions || []);
    return h("div", { class: "actions" }, names
      .filter((n) => known.has(collection + "/" + n))
      .map((n) => h("button", {
        type: "button",
        "data-action": collection + "/" + n,
        "data-id": id,
        disabled: stepping !== null || !allowed(n),
        title: "POST /_sim/" + collection + "/" + id + "/" + n,
        onclick: () => run(n + " " + id, () => post("/_sim/" + collection + "/" + encodeURIComponent(id) + "/" + n)),
        text: n.replace("_", " "),
      })));
  }

  // --- sections ---

  function renderHeader(s) {
    document.getElementById("clock-now").textContent = fmtTime(s.now) + " UTC";
    document.getElementById("clock-timers").textContent = s.pending_timers + " timers pending";
    const m = s.merchant;
    document.getElementById("merchant").textContent = m.id + " · " + m.model + " · " + m.environment + " · " + m.status;
    // A start from a recording cut short: say so for as long as it runs.
    const partial = document.getElementById("partial-replay");
    partial.textContent = s.partial_replay ? "Partial replay: " + s.partial_replay.note : "";
    partial.hidden = !s.partial_replay;
  }

  function renderNav(s) {
    const items = [
      ["members", "Members", s.members.length],
      ["qr-orders", "QR orders", s.qr_orders.length],
      ["card-applications", "Card applications", s.card_applications.length],
      ["cards", "Cards", s.cards.length],
      ["card-topups", "Top-ups", s.card_topups.length],
      ["remittances", "Remittances", s.remittances.length],
      ["deposits", "Deposits", s.deposits.length],
      ["webhooks", "Webhooks", s.webhook_deliveries.length],
      ["requests", "Requests", s.requests.length],
      ["events", "Events", s.events.length],
    ];
    document.getElementById("nav").replaceChildren(...items.map(([id, label, n]) =>
      h("a", { href: "#" + id }, label, " ", h("span", { class: "count", text: "(" + n + ")" }))));
  }

  function isZero(v) { return !/[1-9]/.test(v || ""); }

  // renderMembers shows available and locked balances per asset; assets no
  // member holds are folded into one note to keep the table narrow.
  function renderMembers(s) {
    const all = (s.merchant.prepaid || []).map((b) => b.asset);
    const held = all.filter((a, i) => s.members.some((m) => !isZero(m.balances[i].available) || !isZero(m.balances[i].locked)));
    const idx = held.map((a) => all.indexOf(a));
    const none = all.filter((a) => !held.includes(a));
    const rows = s.members.map((m) => h("tr", {},
      h("td", { text: m.external_member_id }),
      h("td", { class: "mono id", text: m.id }),
      h("td", { class: "num", text: String(m.kyc_level) }),
      h("td", {}, badge(m.status, m.id), m.platform_direct ? h("span", { class: "muted", text: " platform-direct" }) : null),
      idx.map((i) => {
        const b = m.balances[i];
        return h("td", { class: "num bal", "data-balance-of": m.external_member_id + "/" + b.asset },
          h("div", { text: b.available }),
          h("div", { class: "locked", text: "locked " + b.locked }));
      })));
    table("members-table", ["member", "id", "KYC", "status", ...held.map((a) => a + " available / locked")], rows, "no members");
    document.getElementById("members-note").textContent = none.length ? "No member holds " + none.join(", ") + "." : "";
  }

  function objectRows(list, actionsFor) {
    return list.map((o) => h("tr", {},
      h("td", { class: "mono id", text: o.id }),
      h("td", { class: "nowrap", text: o.external_member_id }),
      h("td", {}, badge(o.status, o.id)),
      h("td", { class: "num", text: String(o.status_version) }),
      h("td", {}, h("div", { text: o.summary }), h("div", { class: "details" }, details(o))),
      h("td", {}, h("time", { text: fmtTime(o.created_at) })),
      h("td", {}, history(o)),
      actionsFor ? h("td", {}, actionsFor(o)) : null));
  }

  const OBJ_HEADERS = ["id", "member", "status", "v", "what", "created", "history"];

  function renderObjects(s) {
    const final = new Set(["completed", "failed", "refunded"]);
    table("qr-orders-table", [...OBJ_HEADERS, "upstream outcome"], objectRows(s.qr_orders, (o) =>
      actionButtons("qrpay/orders", o.id, ["complete", "fail", "refund", "timeout"], (n) =>
        n === "refund" ? o.status === "completed" : o.status === "processing")), "no QR orders");

    table("card-applications-table", [...OBJ_HEADERS, "review"], objectRows(s.card_applications, (o) =>
      actionButtons("cards/applications", o.id, ["approve", "reject"], () =>
        o.status === "pending_review" || o.status === "submitted")), "no card applications");

    table("cards-table", [...OBJ_HEADERS, "upstream"], objectRows(s.cards, (o) =>
      actionButtons("cards", o.id, ["ship", "close_complete"], (n) =>
        n === "ship" ? (o.details || {}).inventory === "manufacturing" : o.status === "closing")), "no cards");

    table("card-topups-table", [...OBJ_HEADERS, "upstream outcome"], objectRows(s.card_topups, (o) =>
      actionButtons("cards/topups", o.id, ["credit", "reject", "timeout"], () => o.status === "processing")), "no top-ups");

    table("remittances-table", [...OBJ_HEADERS, "upstream outcome"], objectRows(s.remittances, (o) =>
      actionButtons("remittances", o.id, ["advance", "dispatch", "complete", "fail", "refund", "needs_reconfirm"], (n) => {
        const st = o.status;
        switch (n) {
          case "dispatch": return ["reviewing", "platform_reviewing", "dispatching", "needs_reconfirm"].includes(st);
          case "complete": return st === "processing";
          case "refund": return st === "completed";
          case "needs_reconfirm": return ["reviewing", "platform_reviewing", "dispatching", "processing"].includes(st);
          default: return !final.has(st);
        }
      })), "no remittances");

    table("deposits-table", OBJ_HEADERS, objectRows(s.deposits, null), "no deposits");
  }

  function renderWebhooks(s) {
    const eps = s.webhook_endpoints || [];
    document.getElementById("endpoints").textContent = eps.length
      ? eps.length + (eps.length === 1 ? " endpoint: " : " endpoints: ") +
        eps.map((e) => e.id + " → " + e.url + (e.disabled ? " (disabled)" : "")).join(", ")
      : "no endpoints: every event gets a no_subscriber row";
    // The last attempt's error (status and the beginning of the
    // receiver's answer), shown under the attempts of a failing row.
    const lastFailure = (d) => {
      const a = (d.attempts || [])[(d.attempts || []).length - 1];
      return a && a.error ? h("div", { class: "attempt-error muted", text: a.error }) : null;
    };
    const rows = s.webhook_deliveries.slice(0, LIST_ROWS).map((d) => h("tr", {},
      h("td", { class: "mono id", text: d.id }),
      h("td", {}, h("code", { text: d.event_type }), h("div", { class: "muted mono", text: d.event_id })),
      h("td", { text: d.external_member_id }),
      h("td", { class: "mono", text: d.endpoint_id || "—" }),
      h("td", {}, badge(d.status, d.id)),
      h("td", {}, h("div", { class: "attempts" }, (d.attempts || []).length ? d.attempts.map((a) =>
        h("span", {
          class: "attempt " + (a.status_code >= 200 && a.status_code < 300 ? "ok" : "fail"),
          title: fmtTime(a.at) + (a.error ? " " + a.error : a.response ? " " + a.response : ""),
          text: a.status_code ? String(a.status_code) : "no answer",
        })) : h("span", { class: "muted", text: "none" })),
        lastFailure(d)),
      h("td", {}, h("time", { text: d.next_attempt_at ? fmtTime(d.next_attempt_at) : "" })),
      h("td", {}, h("div", { class: "actions" }, h("button", {
        type: "button",
        "data-action": "webhooks/deliveries/redeliver",
        "data-id": d.id,
        disabled: !["dead", "failed", "no_subscriber"].includes(d.status),
        title: "queue one more attempt and flush",
        onclick: () => run("redeliver " + d.id, async () => {
          await post("/_sim/webhooks/deliveries/" + encodeURIComponent(d.id) + "/redeliver");
          await post("/_sim/webhooks/flush");
        }),
        text: "redeliver",
      })))));
    table("deliveries-table", ["delivery", "event", "member", "endpoint", "status", "attempts", "next attempt", ""], rows, "no deliveries");
  }

  // signatureCheck shows what the simulator computed for a refused
  // signature: the problem, the canonical string (one component a line),
  // the body hash and the clock the timestamp was checked against.
  function signatureCheck(r) {
    const c = r.signature;
    const clock = fmtTime(c.clock) + " (" + c.clock_unix + ")" +
      (c.skew_seconds !== undefined ? ", x-timestamp skew " + c.skew_seconds + " s of ±" + c.tolerance_seconds : "");
    const d = h("details", { "data-signature-of": r.request_id },
      h("summary", { text: r.code }),
      h("div", { text: c.problem }),
      h("div", { class: "muted", text: "canonical string" + (c.truncated ? " (cut at 4 KiB)" : "") + ":" }),
      h("pre", { class: "mono", text: c.canonical_string }),
      h("div", { class: "muted", text: "body sha256 (" + c.body_bytes + " bytes): " + c.body_sha256 }),
      h("div", { class: "muted", text: "simulator clock: " + clock }));
    // Stays open across refreshes, like an object's history.
    if (openDetails.has(r.request_id)) d.open = true;
    d.addEventListener("toggle", () => { d.open ? openDetails.add(r.request_id) : openDetails.delete(r.request_id); });
    return d;
  }

  function renderRequests(s) {
    const rows = s.requests.slice(0, LIST_ROWS).map((r) => h("tr", {},
      h("td", { class: "num", text: String(r.seq) }),
      h("td", {}, h("time", { text: fmtTime(r.time) })),
      h("td", { class: "mono", text: r.method }),
      h("td", { class: "mono", text: r.path + (r.query ? "?" + r.query : "") }),
      h("td", { text: r.member || "" }),
      h("td", {}, h("span", {
        class: "badge " + (r.status >= 200 && r.status < 300 ? "good" : r.status >= 500 || r.status === 0 ? "bad" : "wait"),
        text: r.dropped ? "dropped" : String(r.status),
      })),
      h("td", { class: "mono" }, r.signature ? signatureCheck(r) : r.code || ""),
      h("td", { text: r.replay ? (r.replay_of ? "replay of " + r.replay_of : "replay") : "" }),
      h("td", { class: "mono muted", text: r.fault || "" }),
      h("td", { class: "mono muted", text: r.request_id })));
    table("requests-table", ["#", "time", "method", "path", "member", "status", "code", "replay", "fault", "request id"], rows, "no business requests yet");
  }

  function renderEvents(s) {
    const rows = s.events.slice(0, LIST_ROWS).map((e) => h("tr", {},
      h("td", {}, h("time", { text: fmtTime(e.created_at) })),
      h("td", {}, h("code", { text: e.event_type })),
      h("td", { class: "mono muted", text: e.event_id }),
      h("td", { text: e.object }),
      h("td", { class: "mono", text: e.id }),
      h("td", { text: e.external_member_id }),
      h("td", {}, badge(e.status)),
      h("td", { class: "num", text: String(e.status_version) })));
    table("events-table", ["created", "type", "event id", "object", "data.id", "member", "status", "v"], rows, "no events");
  }

  function render(s) {
    state = s;
    renderHeader(s);
    renderNav(s);
    renderMembers(s);
    renderObjects(s);
    renderWebhooks(s);
    renderRequests(s);
    renderEvents(s);
  }

  // --- polling ---

  function live(ok, text) {
    document.getElementById("live-dot").className = "dot " + (ok ? "ok" : "err");
    document.getElementById("live-text").textContent = text;
  }

  let timer = null;
  let inFlight = false;

  async function refresh() {
    if (inFlight) return;
    inFlight = true;
    clearTimeout(timer);
    if (stepping) {
      // A step of the recording is on screen: the live state waits.
      inFlight = false;
      timer = setTimeout(refresh, POLL_MS);
      return;
    }
    try {
      const res = await fetch("/_sim/state", { cache: "no-store", headers: controlHeaders() });
      if (!res.ok) throw new Error("HTTP " + res.status);
      const text = await res.text();
      if (text !== lastText) {
        lastText = text;
        render(JSON.parse(text));
      }
      live(true, "live · " + new Date().toLocaleTimeString());
    } catch (err) {
      live(false, "disconnected: " + err.message);
    } finally {
      inFlight = false;
      timer = setTimeout(refresh, POLL_MS);
    }
  }

  // --- clock and webhook controls ---

  for (const b of document.querySelectorAll("[data-advance]")) {
    b.addEventListener("click", () => {
      const secs = Number(b.getAttribute("data-advance"));
      run("advance " + b.textContent, () => post("/_sim/clock", { advance_seconds: secs }));
    });
  }
  document.getElementById("advance-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("advance-seconds");
    const secs = Number(input.value);
    if (!Number.isFinite(secs) || secs < 0 || input.value === "") {
      banner("advance: enter a number of seconds, 0 or more", false);
      return;
    }
    run("advance " + secs + " s", () => post("/_sim/clock", { advance_seconds: secs }));
  });
  document.getElementById("flush").addEventListener("click", () =>
    run("flush", async () => {
      const r = await post("/_sim/webhooks/flush");
      let msg = r.attempted + " attempted, " + r.succeeded + " succeeded, " + r.failed + " failed";
      if (r.failures && r.failures.length) msg += ": " + r.failures[0].error;
      if (r.hint) msg += " (" + r.hint + ")";
      return msg;
    }));

  // --- the recording's stepper ---

  let steps = []; // summaries of the recording's inputs, in order

  async function getJSON(path) {
    const res = await fetch(path, { cache: "no-store", headers: controlHeaders() });
    let out = null;
    try { out = await res.json(); } catch (_) { /* not JSON */ }
    if (!res.ok) throw new Error(out && out.code ? out.code + ": " + out.message : "HTTP " + res.status);
    return out;
  }

  async function loadSteps() {
    steps = [];
    // The control list envelope: a page's next_cursor is the after= of
    // the next one, null on the last.
    for (let after = "0"; after !== null;) {
      const page = await getJSON("/_sim/recording/steps?limit=1000&after=" + after);
      steps.push(...page.data);
      after = page.has_more && page.data.length ? page.next_cursor : null;
    }
    const total = steps.length;
    document.getElementById("step-list").replaceChildren(...steps.map((s) =>
      h("li", { "data-step": s.seq, class: "step op-" + s.op, onclick: () => showStep(s.seq) },
        h("span", { class: "num", text: String(s.seq) }), " ",
        h("time", { text: fmtTime(s.clock) }), " ",
        h("span", { text: s.summary }))));
    return total;
  }

  async function showStep(seq) {
    const total = steps.length;
    seq = Math.max(0, Math.min(seq, total));
    try {
      const d = await getJSON("/_sim/recording/steps/" + seq);
      stepping = { seq: seq, total: total };
      render(d.state);
      document.getElementById("step-pos").textContent = "step " + seq + " of " + total;
      document.getElementById("step-title").textContent = seq === 0
        ? "Before the first input: the simulator as it started"
        : "Input " + seq + ": " + d.step.summary;
      document.getElementById("step-input").textContent = d.input ? JSON.stringify(d.input, null, 2) : "—";
      const a = d.answer;
      document.getElementById("step-answer").textContent = !a ? "—"
        : (a.status ? String(a.status) : "no answer (dropped, or waiting in a delay)") + (a.body ? "\n" + JSON.stringify(a.body, null, 2) : "");
      for (const li of document.querySelectorAll("#step-list li")) {
        li.classList.toggle("current", Number(li.getAttribute("data-step")) === seq);
      }
      const cur = document.querySelector("#step-list li.current");
      if (cur) cur.scrollIntoView({ block: "nearest" });
      live(true, "recording · step " + seq + " of " + total + " (not live)");
    } catch (err) {
      banner("step " + seq + ": " + err.message, false);
    }
  }

  function setStepping(on) {
    document.getElementById("stepper").hidden = !on;
    document.querySelector(".stepper-nav").hidden = !on;
    document.getElementById("step-open").hidden = on;
    document.body.classList.toggle("stepping", on);
    // The clock and flush buttons act on the live simulator: not while a
    // step of the recording is on screen.
    for (const b of document.querySelectorAll("[data-advance], #advance-form button, #flush")) {
      b.disabled = on;
    }
  }

  document.getElementById("step-open").addEventListener("click", async () => {
    try {
      const total = await loadSteps();
      setStepping(true);
      await showStep(total);
    } catch (err) {
      banner("recording: " + err.message, false);
    }
  });
  document.getElementById("step-first").addEventListener("click", () => showStep(0));
  document.getElementById("step-prev").addEventListener("click", () => showStep((stepping ? stepping.seq : 0) - 1));
  document.getElementById("step-next").addEventListener("click", () => showStep((stepping ? stepping.seq : 0) + 1));
  document.getElementById("step-last").addEventListener("click", () => showStep(steps.length));
  document.getElementById("step-live").addEventListener("click", () => {
    stepping = null;
    lastText = "";
    setStepping(false);
    refresh();
  });

  refresh();
})();
