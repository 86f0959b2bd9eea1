// cardarena play --human SEAT --web: the page of one seat.  It holds no game data of its own: it asks
// the local server for messages (the seat's observation after every move, its turns, the end) and
// draws them with the match viewer's table (table.js).  The other seats' moves are shown one by one.
"use strict";

(function () {
  const { el, card, fmt, isCard, drawTable, cardRow, render, field } = window.CardTable;
  const TABLES = ["card_order", "card_points"];   // the card tables: folded away under the table
  const $ = (sel) => document.querySelector(sel);
  const params = new URLSearchParams(location.search);
  const TOKEN = params.get("token") || "";
  const DELAY = params.has("delay") ? Math.max(0, Number(params.get("delay")) || 0) : 700;
  // &tick=MS: in a game of simultaneous ticks (Zenuwen), a tick you let run MS ms passes for you
  const TICK = Math.max(0, Number(params.get("tick")) || 0);
  const HEAD = { "X-Cardarena-Token": TOKEN };
  const PRIVATE = new Set(["hand", "legal_actions", "my_submission"]);
  const body = document.body;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  let info = null;        // the start message: game, seat, labels, teams
  let next = 0;           // the next message number to ask for
  const pending = [];     // messages fetched, not yet shown
  let busy = false;
  let turn = null;        // {id, legal} while it is the seat's turn
  let turnStart = 0, think = 0, done = false;
  let caughtUp = false;   // the first answer (the match so far, after a reload too) is shown at once

  function setState(s) { body.dataset.state = s; }
  function status(text) { $("#p-status").textContent = text; }

  // ------------------------------------------------------------------ the table
  function tokensOf(text) {
    const out = new Set();
    for (const w of String(text).split(/\s+/)) for (const part of w.split("=")) {
      const t = part.split("/")[0];
      if (isCard(t)) out.add(t);
    }
    return out;
  }
  function draw(obs, fresh) {
    const C = {}, own = {};
    for (const [k, v] of Object.entries(obs)) {
      if (k === "options" || k === "clock") continue;
      (PRIVATE.has(k) ? own : C)[k] = v;
    }
    const tables = TABLES.filter((k) => C[k] && typeof C[k] === "object");
    const folded = el("details", "tables");
    folded.append(el("summary", null, "card tables (" + tables.map((k) => k.replace(/_/g, " ")).join(", ") + ")"));
    for (const k of tables) { folded.append(field(k, render(k, C[k], info.players))); delete C[k]; }
    const S = Array.from({ length: info.players }, (_, i) => (i === info.seat ? own : {}));
    const tbl = $("#p-table");
    drawTable(tbl, { C, S, n: info.players, names: info.labels, teams: info.teams,
      seatView: info.seat, justPlayed: fresh || new Set(), noLegal: true });
    if (tables.length) tbl.append(folded);
  }
  function actionNode(text) {
    const a = el("span", "act");
    for (const w of String(text).split(" ")) {
      const tok = w.split("/")[0];
      if (isCard(tok)) a.append(card(tok), el("span", null, w.slice(tok.length) + " "));
      else a.append(el("span", null, w + " "));
    }
    return a;
  }

  // ------------------------------------------------------------------ actions
  function showActions(legal) {
    const box = $("#p-actions");
    box.textContent = "";
    $("#p-error").textContent = "";
    for (const a of legal) {
      const b = el("button");
      b.dataset.action = a;
      b.append(actionNode(a));
      b.addEventListener("click", () => send(a));
      box.append(b);
    }
    // a card of the hand is clickable: one action with it is played at once, several are pointed out
    for (const c of document.querySelectorAll('.seat.viewer .field[data-key="hand"] .card')) {
      const tok = c.title;
      const uses = legal.filter((a) => tokensOf(a).has(tok));
      if (!uses.length) continue;
      c.classList.add("playable");
      if (uses.length === 1) c.dataset.action = uses[0];
      c.addEventListener("click", () => {
        if (uses.length === 1) { send(uses[0]); return; }
        for (const b of box.querySelectorAll("button")) b.classList.toggle("hint", uses.includes(b.dataset.action));
      });
    }
  }
  function clearActions(text) {
    const box = $("#p-actions");
    box.textContent = "";
    if (text) box.append(el("span", "small", text));
  }
  async function send(action) {
    if (!turn) return;
    const t = turn;
    turn = null;
    for (const b of document.querySelectorAll("#p-actions button")) b.disabled = true;
    let r;
    try {
      r = await fetch("/api/act", { method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, HEAD),
        body: JSON.stringify({ turn: t.id, action }) });
    } catch (e) { r = null; }
    if (r && r.ok) {
      think += (Date.now() - turnStart) / 1000;
      clearActions("sent: " + action);
      status("waiting for the other seats");
      setState("waiting");
      return;
    }
    const j = r ? await r.json().catch(() => ({})) : {};
    $("#p-error").textContent = (j && j.error) || "the server did not answer; try again";
    turn = t;
    for (const b of document.querySelectorAll("#p-actions button")) b.disabled = false;
  }
  document.addEventListener("keydown", (e) => {
    if (e.key === " " && turn && turn.legal.includes("pass")) { e.preventDefault(); send("pass"); }
  });

  // ------------------------------------------------------------------ the clock
  setInterval(() => {
    const now = turn ? (Date.now() - turnStart) / 1000 : 0;
    $("#p-clock").textContent = "your clock: " + now.toFixed(0) + " s this move · " + (think + now).toFixed(0) +
      " s in all (you are not timed)";
  }, 250);

  // ------------------------------------------------------------------ messages
  function logLine(node) {
    const li = el("li");
    li.append(node);
    const list = $("#p-log");
    list.prepend(li);
  }
  function show(m) {
    if (m.type === "start") {
      info = m;
      $("#p-title").textContent = m.name + " · you are seat " + m.seat;
      document.title = "cardarena: " + m.game + " (seat " + m.seat + ")";
    } else if (m.type === "view") {
      draw(m.obs);
      status("the bots are playing");
      setState("waiting");
    } else if (m.type === "move") {
      const fresh = tokensOf(m.text);
      draw(m.obs, fresh);
      const mv = $("#p-move");
      mv.textContent = "";
      const who = m.seat === info.seat ? "you" : "seat " + m.seat + " (" + m.label + ")";
      mv.append(el("span", null, who + " → "), actionNode(m.text));
      for (const e of m.events) mv.append(el("span", "evt fresh", e));
      mv.classList.remove("anim"); void mv.offsetWidth; mv.classList.add("anim");
      const line = el("span");
      line.append(el("span", null, "ply " + m.ply + " · " + who + ": " + m.text + (m.events.length ? " [" + m.events.join("; ") + "]" : "")));
      logLine(line);
      body.dataset.shown = String(m.n);
    } else if (m.type === "turn") {
      draw(m.obs);
      think = m.think_s;
      turn = { id: m.n, legal: m.obs.legal_actions };
      turnStart = Date.now();
      showActions(turn.legal);
      status("your turn: pick an action (or click a card)");
      if (TICK > 0 && "submitted" in m.obs && turn.legal.includes("pass")) {
        const mine = turn;
        setTimeout(() => { if (turn === mine) send("pass"); }, TICK);
        status("your tick: act within " + (TICK / 1000).toFixed(1) + " s, or you pass");
      }
      body.dataset.turn = String(m.n);
      setState("turn");
    } else if (m.type === "over") {
      done = true;
      turn = null;
      draw(m.obs);
      clearActions("the match is over");
      status("the match is over");
      showEnd(m);
      setState("over");
    } else if (m.type === "error") {
      done = true;
      status("the match stopped: " + m.error);
      setState("error");
    }
  }
  function showEnd(m) {
    $("#p-end").hidden = false;
    const t = el("table");
    const hr = el("tr");
    for (const x of ["seat", "player", "score", "place"]) hr.append(el("th", null, x));
    t.append(hr);
    info.labels.forEach((lab, i) => {
      const r = el("tr");
      for (const x of [i, lab + (i === info.seat ? " (you)" : ""), fmt(m.scores[i]), m.placement[i]]) r.append(el("td", null, x));
      t.append(r);
    });
    const res = $("#p-result");
    res.textContent = "";
    res.append(t);
    if (m.sheet.length) res.append(el("p", "small", "score sheet: " + m.sheet.map((row, d) => "deal " + (d + 1) + ": " + row.map(fmt).join(" / ")).join(" · ")));
    const rv = $("#p-reveal");
    rv.textContent = "";
    for (const d of m.reveal.dealt) {
      const tt = el("table", "reveal");
      d.hands.forEach((h, i) => {
        const r = el("tr");
        const c = el("td");
        c.append(cardRow(h));
        r.append(el("td", null, "deal " + d.deal + " · seat " + i + " (" + info.labels[i] + ")"), c);
        tt.append(r);
      });
      rv.append(tt);
    }
    const z = el("details");
    z.append(el("summary", null, "where every card lies now"));
    for (const [name, cards] of Object.entries(m.reveal.zones)) {
      const p = el("div", "field");
      p.append(el("span", "k", name), cardRow(cards));
      z.append(p);
    }
    rv.append(z);
  }
  async function pump() {
    if (busy) return;
    busy = true;
    try {
      while (pending.length) {
        const m = pending.shift();
        show(m);
        if (m.type === "move" && info && m.seat !== info.seat && DELAY > 0 && pending.length && caughtUp) {
          await sleep(DELAY);
        }
      }
    } finally { busy = false; }
  }
  async function poll() {
    while (!done) {
      try {
        const r = await fetch("/api/updates?since=" + next, { headers: HEAD, cache: "no-store" });
        if (!r.ok) throw new Error("HTTP " + r.status);
        const j = await r.json();
        for (const m of j.messages) { pending.push(m); next = m.n + 1; }
        if (j.messages.some((m) => m.type === "over" || m.type === "error")) { await pump(); return; }
        const first = !caughtUp;
        pump();
        if (first && j.messages.length) caughtUp = true;
      } catch (e) {
        status("the connection to cardarena was lost; retrying");
        await sleep(1000);
      }
    }
  }
  setState("connecting");
  poll();
})();
