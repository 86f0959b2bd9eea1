// cardarena dashboard: tabs, charts (vega-embed, inlined above) and the match viewer.
// Everything this script needs is in the page: no network.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  // ------------------------------------------------------------------ nav
  // A nav click (or a #section in the address) lands with the section heading below the sticky header:
  // the page's scroll-padding-top follows the header's height, which grows when the nav wraps.
  const header = $("header");
  const fitHeader = () => {
    if (header) document.documentElement.style.setProperty("--head-h", header.getBoundingClientRect().height + "px");
  };
  fitHeader();
  window.addEventListener("resize", fitHeader);

  // ------------------------------------------------------------------ rule coverage
  const gaps = $("#cov-gaps");
  if (gaps) gaps.addEventListener("change", () => $("#coverage").classList.toggle("only-gaps", gaps.checked));

  // ------------------------------------------------------------------ tabs
  for (const b of $$(".tab")) {
    b.addEventListener("click", () => {
      const bar = b.parentElement;
      for (const o of $$(".tab", bar)) {
        o.classList.toggle("active", o === b);
        const pane = document.getElementById(o.dataset.tab);
        if (pane) pane.classList.toggle("active", o === b);
      }
    });
  }

  // ------------------------------------------------------------------ charts
  const charts = $("#charts-data") ? JSON.parse($("#charts-data").textContent) : {};
  const pending = [];
  for (const [id, spec] of Object.entries(charts)) {
    if (typeof window.vegaEmbed !== "function") break;
    pending.push(window.vegaEmbed("#" + id, spec, { actions: false, renderer: "svg" })
      .catch((err) => { console.error("chart " + id + ": " + err); }));
  }
  Promise.all(pending).then(() => { document.body.dataset.charts = String(pending.length); });

  // the table's drawing is shared with the play page (table.js, inlined before this script)
  const { card, fmt, isCard, drawTable } = window.CardTable;

  // ------------------------------------------------------------------ viewer data
  const MATCHES = JSON.parse($("#matches-data").textContent);
  const view = { m: null, body: null, C: [], S: [], k: 0, seat: "all", evFrames: [], faultFrames: [] };

  async function inflate(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return JSON.parse(await new Response(stream).text());
  }
  function applyDelta(prev, d) {
    const o = Object.assign({}, prev, d[0]);
    if (d[1]) for (const k of d[1]) delete o[k];
    return o;
  }

  function initPickers() {
    const gsel = $("#v-game"), bsel = $("#v-bot");
    if (!MATCHES.length) { $("#v-pick").hidden = true; document.body.dataset.viewer = "none"; return; }
    const games = [...new Set(MATCHES.map((m) => m.game))];
    const bots = [...new Set(MATCHES.flatMap((m) => m.bots))].sort();
    gsel.append(new Option("all games", ""));
    for (const g of games) gsel.append(new Option(g, g));
    bsel.append(new Option("all bots", ""));
    for (const b of bots) bsel.append(new Option(b, b));
    gsel.addEventListener("change", fillMatches);
    bsel.addEventListener("change", fillMatches);
    $("#v-match").addEventListener("change", () => openMatch($("#v-match").value));
    fillMatches();
  }
  function fillMatches() {
    const g = $("#v-game").value, b = $("#v-bot").value, msel = $("#v-match");
    const keep = msel.value;
    msel.textContent = "";
    const list = MATCHES.filter((m) => (!g || m.game === g) && (!b || m.bots.includes(b)));
    for (const m of list) {
      const label = m.id + " · " + m.game + " · " + m.bots.join(", ") + " · " + m.nmoves + " moves" +
        (m.status !== "ok" ? " · " + m.status : "");
      msel.append(new Option(label, m.id));
    }
    if (!list.length) { msel.append(new Option("no included match fits these filters", "")); return; }
    const pick = list.some((m) => m.id === keep) ? keep : list[0].id;
    msel.value = pick;
    if (!view.m || view.m.id !== pick) openMatch(pick);
  }

  async function openMatch(id) {
    const m = MATCHES.find((x) => x.id === id);
    if (!m) return;
    $("#v-main").dataset.ready = "";
    view.want = id;
    const body = await inflate(m.z);
    if (view.want !== id) return;  // another match was asked for meanwhile
    const C = [], S = [];
    let c = {}, s = Array.from({ length: m.players }, () => ({}));
    for (const f of body.frames) {
      c = applyDelta(c, f.c);
      s = s.map((o, i) => applyDelta(o, f.s[i]));
      C.push(c); S.push(s);
    }
    Object.assign(view, { m, body, C, S, k: 0 });
    view.evFrames = [...new Set(body.events.map((e) => e[0]))].sort((a, b) => a - b);
    view.faultFrames = [...new Set(m.faults.map((f) => faultFrame(f.ply, C.length - 1)).concat(
      body.moves.map((mv, i) => (mv[2] !== "ok" && mv[2] !== "fallback" ? i + 1 : -1)).filter((i) => i > 0)))]
      .sort((a, b) => a - b);
    const seatSel = $("#v-seat");
    const keepSeat = seatSel.value || "all";
    seatSel.textContent = "";
    seatSel.append(new Option("all hands (the match is over)", "all"));
    m.bots.forEach((b, i) => seatSel.append(new Option("as seat " + i + " (" + b + ") sees it", String(i))));
    seatSel.value = keepSeat === "all" || Number(keepSeat) < m.players ? keepSeat : "all";
    view.seat = seatSel.value;
    const slider = $("#v-slider");
    slider.max = String(C.length - 1);
    renderHead();
    $("#v-main").hidden = false;
    go(0);
    $("#v-main").dataset.ready = m.id;
    document.body.dataset.viewer = m.id;
  }

  // The frame that shows a fault: the move logged at the fault's ply (the faulted seat's move, played
  // by the fallback), or the end when the match stopped there.
  function faultFrame(ply, last) {
    return Number.isInteger(ply) ? Math.max(0, Math.min(ply + 1, last)) : last;
  }
  function nextFault() {
    const f = view.faultFrames;
    if (!f.length) return;
    const after = f.find((x) => x > view.k);
    go(after !== undefined ? after : f[0]);
  }
  // Open an embedded match (clearing the filters if they hide it), at the move of the fault at ``ply``.
  async function showFault(id, ply) {
    if (!MATCHES.some((x) => x.id === id)) return;
    $("#v-game").value = ""; $("#v-bot").value = "";
    fillMatches();
    $("#v-match").value = id;
    if (!view.m || view.m.id !== id) await openMatch(id);
    go(faultFrame(ply, view.C.length - 1));
    $("#viewer").scrollIntoView();
  }

  function renderHead() {
    const m = view.m, h = $("#v-head");
    h.textContent = "";
    const p = el("p");
    p.append(el("b", null, m.game), " · match ", el("code", null, m.id), " · tournament " + m.tournament +
      " · seed " + m.seed + " · " + m.nmoves + " moves, " + m.deals + " deal(s)" +
      (Object.keys(m.options).length ? " · options " + JSON.stringify(m.options) : ""));
    h.append(p);
    const t = el("table", "grid");
    const hr = el("tr");
    for (const x of ["seat", "bot", "team", "final score", "place", "fault"]) hr.append(el("th", null, x));
    t.append(hr);
    m.bots.forEach((b, i) => {
      const r = el("tr");
      const f = m.faults.filter((x) => x.seat === i).map((x) => x.kind + " at ply " + x.ply + ": " + (x.reason || "").split("\n")[0]).join("; ");
      for (const x of [i, b, m.teams[i], fmt(m.scores[i]), m.ranking[i], f || "–"]) r.append(el("td", null, x));
      t.append(r);
    });
    h.append(t);
    if (view.body.error) h.append(el("p", "err", view.body.error));
  }

  function go(k) {
    if (!view.m) return;
    view.k = Math.max(0, Math.min(view.C.length - 1, k));
    renderFrame();
  }

  function renderFrame() {
    const { m, body, C: CC, S: SS, k } = view;
    const C = CC[k], S = SS[k], n = m.players, last = CC.length - 1;
    const seatView = view.seat === "all" ? null : Number(view.seat);
    $("#v-ply").textContent = "move " + k + " / " + last + (C.phase ? " · " + C.phase : "");
    $("#v-slider").value = String(k);
    $("#v-first").disabled = $("#v-prev").disabled = k === 0;
    $("#v-last").disabled = $("#v-next").disabled = k === last;
    $("#v-prev-ev").disabled = !view.evFrames.some((f) => f < k);
    $("#v-next-ev").disabled = !view.evFrames.some((f) => f > k);
    $("#v-fault").disabled = !view.faultFrames.length;

    // the move that led here and the rule events it fired
    const mv = $("#v-move");
    mv.textContent = "";
    const fresh = body.events.filter((e) => e[0] === k).map((e) => e[1]);
    if (k === 0) mv.append(el("span", null, "The deal before the first move" + (C.deal ? " (deal " + C.deal + ")" : "") + "."));
    else {
      const [seat, action, status, deal] = body.moves[k - 1];
      mv.append(el("span", null, "ply " + (k - 1) + " · deal " + deal + " · seat " + seat + " (" + m.bots[seat] + ") → "));
      const a = el("span", "act");
      for (const w of action.split(" ")) { a.append(isCard(w) ? card(w) : el("span", null, w + " ")); }
      mv.append(a);
      if (status !== "ok") mv.append(el("span", "evt", status === "fallback" ? "random fallback (the bot had faulted)" : "fault: " + status));
    }
    for (const e of fresh) mv.append(eventBadge(e, true));
    for (const f of m.faults) {
      if (faultFrame(f.ply, last) !== k) continue;
      const seat = Number.isInteger(f.seat) ? f.seat : null;
      mv.append(el("span", "fault-note", "fault" + (seat === null ? "" : " of seat " + seat + " (" + m.bots[seat] + ")") +
        ": " + f.kind + " at ply " + f.ply + ": " + (f.reason || "").split("\n")[0]));
    }

    // the table: one box per seat, then the shared centre (table.js)
    const justPlayed = new Set();
    if (k > 0) for (const w of body.moves[k - 1][1].split(" ")) if (isCard(w)) justPlayed.add(w);
    drawTable($("#v-table"), { C, S, n, names: m.bots, teams: m.teams, seatView, justPlayed });

    // the rule events so far, newest first; a click goes to the move that fired it
    const list = $("#v-events");
    list.textContent = "";
    const past = body.events.filter((e) => e[0] <= k);
    for (const [f, e] of past.slice(-300).reverse()) {
      const li = el("li", f === k ? "fresh" : "", "move " + f + ": " + eventText(e));
      li.addEventListener("click", () => go(f));
      list.append(li);
    }
    if (!past.length) list.append(el("li", "none", "none yet"));

    // the score sheet, the current deal marked
    const sh = $("#v-sheet");
    sh.textContent = "";
    if (!body.sheet.length) sh.append(el("p", "small", "No deal finished."));
    else {
      const t = el("table");
      const hr = el("tr");
      hr.append(el("th", null, "deal"));
      for (let i = 0; i < n; i++) hr.append(el("th", null, "s" + i));
      t.append(hr);
      body.sheet.forEach((row, d) => {
        const r = el("tr", C.deal === d + 1 ? "now" : "");
        r.append(el("td", null, d + 1));
        for (const x of row) r.append(el("td", null, fmt(x)));
        if (C.deal !== undefined && d + 1 > C.deal) r.style.opacity = "0.4";
        t.append(r);
      });
      sh.append(t);
    }
  }
  function eventText(e) {
    const extra = Object.entries(e).filter(([k]) => !["event", "deal", "ply", "seat"].includes(k))
      .map(([k, v]) => k + "=" + (typeof v === "object" ? JSON.stringify(v) : v));
    return e.event + (e.seat !== null && e.seat !== undefined ? " · seat " + e.seat : "") + " · deal " + e.deal +
      (extra.length ? " · " + extra.join(", ") : "");
  }
  function eventBadge(e, fresh) { return el("span", "evt" + (fresh ? " fresh" : ""), eventText(e)); }

  // ------------------------------------------------------------------ controls
  $("#v-first").addEventListener("click", () => go(0));
  $("#v-prev").addEventListener("click", () => go(view.k - 1));
  $("#v-next").addEventListener("click", () => go(view.k + 1));
  $("#v-last").addEventListener("click", () => go(view.C.length - 1));
  $("#v-prev-ev").addEventListener("click", () => { const f = view.evFrames.filter((x) => x < view.k); if (f.length) go(f[f.length - 1]); });
  $("#v-next-ev").addEventListener("click", () => { const f = view.evFrames.find((x) => x > view.k); if (f !== undefined) go(f); });
  $("#v-fault").addEventListener("click", nextFault);
  for (const a of $$("a.to-fault")) {
    a.addEventListener("click", (e) => { e.preventDefault(); showFault(a.dataset.match, Number(a.dataset.ply)); });
  }
  $("#v-slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("#v-seat").addEventListener("change", (e) => { view.seat = e.target.value; if (view.m) renderFrame(); });
  document.addEventListener("keydown", (e) => {
    if (!view.m || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    if (e.key === "ArrowRight") go(view.k + 1);
    else if (e.key === "ArrowLeft") go(view.k - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(view.C.length - 1);
    else if (e.key === "f" || e.key === "F") nextFault();
    else return;
    e.preventDefault();
  });
  initPickers();
})();
