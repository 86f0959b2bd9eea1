// cardarena: how a card table is drawn, shared by the report's match viewer (report.js) and the page of
// `cardarena play GAME --human SEAT --web` (play.js).  It draws what it is given (observations) and
// nothing else: window.CardTable.drawTable(container, {C, S, n, names, teams, seatView, justPlayed}).
"use strict";

window.CardTable = (function () {
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  // ------------------------------------------------------------------ cards
  const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const CARD = /^(?:[2-9TJQKA][CDHS]|JK(?:=[2-9TJQKA][CDHS])?)$/;
  const isCard = (x) => typeof x === "string" && CARD.test(x);

  function card(tok, extra) {
    if (tok.startsWith("JK")) {
      const c = el("span", "card joker" + (extra ? " " + extra : ""));
      c.append(el("b", null, "JK"));
      if (tok.length > 2) c.append(el("i", null, tok.slice(3)));
      c.title = tok;
      return c;
    }
    const r = tok[0] === "T" ? "10" : tok[0];
    const s = tok[1];
    const c = el("span", "card" + (s === "H" || s === "D" ? " red" : "") + (extra ? " " + extra : ""));
    c.append(el("b", null, r), el("i", null, SUIT[s]));
    c.title = tok;
    return c;
  }
  function backs(n) {
    const w = el("span", "cards");
    for (let i = 0; i < n; i++) w.append(el("span", "card back"));
    if (n === 0) w.append(el("span", "none", "no cards"));
    return w;
  }
  function cardRow(arr, fresh) {
    const w = el("span", "cards");
    if (!arr.length) w.append(el("span", "none", "none"));
    for (const t of arr) w.append(card(t, fresh && fresh.has(t) ? "new" : ""));
    return w;
  }

  // A value from an observation, drawn by its shape: card lists as cards, [seat, card] pairs as a
  // trick, {leader, cards, winner} as a trick, lists of card lists as groups (melds, known cards).
  function render(key, v, n, ctx) {
    if (v === null || v === undefined) return el("span", "none", "–");
    if (isCard(v)) return card(v);
    if (Array.isArray(v)) {
      if (v.every(isCard)) return cardRow(v, ctx && ctx.fresh);
      if (v.every((x) => Array.isArray(x) && x.length === 2 && Number.isInteger(x[0]) && isCard(x[1]))) {
        const t = el("span", "trick");
        for (const [s, c] of v) { const p = el("span", "play"); p.append(card(c), el("span", null, "s" + s)); t.append(p); }
        return t;
      }
      if (v.every((x) => x && typeof x === "object" && !Array.isArray(x) && Array.isArray(x.cards))) {
        const w = el("span");
        for (const t of v) w.append(trickObj(t, n));
        return w;
      }
      if (v.length && v.every((x) => Array.isArray(x))) {
        const w = el("span");
        const meldish = /meld|table|run|group/i.test(key);
        v.forEach((x, i) => {
          const g = el("span", "group");
          g.append(el("span", "lbl", meldish || v.length !== n ? "#" + (i + 1) : "s" + i));
          g.append(render(key, x, n, ctx));
          w.append(g);
        });
        return w;
      }
      if (v.every((x) => x === null || typeof x !== "object")) {
        if (/team/.test(key) && v.length > 1 && v.length < n) return el("span", null, v.map((x, i) => "team " + i + " " + fmt(x)).join(" · "));
        if (v.length === n && n > 1) return el("span", null, v.map((x, i) => "s" + i + " " + fmt(x)).join(" · "));
        return el("span", null, v.length ? v.map(fmt).join(", ") : "none");
      }
      const w = el("span");
      v.forEach((x, i) => { const g = el("span", "group"); g.append(el("span", "lbl", "#" + (i + 1)), render(key, x, n, ctx)); w.append(g); });
      return w;
    }
    if (typeof v === "object") {
      if (Array.isArray(v.cards)) return trickObj(v, n);
      const w = el("span", "kvs");
      for (const [k, x] of Object.entries(v)) {
        const s = el("span");
        s.append(el("span", null, k + ": "), render(k, x, n, ctx));
        w.append(s);
      }
      return w;
    }
    return el("span", null, fmt(v));
  }
  function trickObj(t, n) {
    const w = el("span", "trick");
    const lead = Number.isInteger(t.leader) ? t.leader : null;
    t.cards.forEach((c, j) => {
      const seat = lead === null ? null : (lead + j) % n;
      const p = el("span", "play" + (seat !== null && seat === t.winner ? " win" : ""));
      p.append(isCard(c) ? card(c) : el("span", null, fmt(c)), el("span", null, seat === null ? "" : "s" + seat));
      w.append(p);
    });
    return w;
  }
  function fmt(x) {
    if (x === null || x === undefined) return "–";
    if (typeof x === "number") return Number.isInteger(x) ? String(x) : x.toFixed(2);
    if (typeof x === "object") return JSON.stringify(x);
    return String(x);
  }
  function field(k, node) {
    const f = el("div", "field");
    f.dataset.key = k;
    f.append(el("span", "k", k.replace(/_/g, " ")), node);
    node.classList.add("v");
    return f;
  }

  // ------------------------------------------------------------------ the table
  const META = new Set(["game", "players", "seat", "scores", "legal_actions", "hand"]);
  const SIZES = ["hand_sizes", "hand_counts", "cards_in_hand", "hand_size"];
  const CENTRE_FIRST = ["trick", "last_trick", "offer", "takeable", "discard_top", "discard", "discard_pile",
    "pile", "melds", "table_melds", "table", "tricks", "upcard", "trump"];
  function rankKey(k) { const i = CENTRE_FIRST.indexOf(k); return i < 0 ? 100 : i; }
  function sizeOf(C, i) {
    for (const key of SIZES) if (Array.isArray(C[key]) && C[key].length > i) return C[key][i];
    return null;
  }

  // One box per seat, then the shared centre.  C: the keys every seat sees; S[i]: seat i's own keys
  // ({} for a seat whose view is not given); seatView: the seat whose view is drawn (null: every seat's);
  // justPlayed: card tokens to mark as fresh in the centre.
  function drawTable(tbl, o) {
    const { C, S, n, names, teams, seatView } = o;
    const justPlayed = o.justPlayed || new Set();
    tbl.textContent = "";
    const cp = C.current_player;
    for (let i = 0; i < n; i++) {
      const own = S[i] || {};
      const visible = seatView === null || seatView === i;
      const box = el("div", "seat" + (cp === i ? " to-act" : "") + (seatView === i ? " viewer" : ""));
      box.dataset.seat = String(i);
      const h = el("h5");
      const scores = C.scores || own.scores;
      const teamGame = teams.some((t, j) => t !== j);
      h.append(el("span", null, "seat " + i + " · " + names[i] + (teamGame ? " (team " + teams[i] + ")" : "")),
        el("span", "score", scores ? "score " + fmt(scores[i]) : ""));
      box.append(h);
      const hand = own.hand !== undefined ? own.hand : C.hand;
      if (visible && Array.isArray(hand)) box.append(field("hand", cardRow(hand)));
      else {
        const sz = sizeOf(C, i);
        box.append(field("hand", sz === null ? el("span", "none", "hidden") : backs(sz)));
      }
      if (visible) {
        for (const [key, v] of Object.entries(own)) {
          if (META.has(key) || key === "current_player" || key === "deal" || key === "phase") continue;
          box.append(field(key, render(key, v, n)));
        }
        if (Array.isArray(own.legal_actions) && own.legal_actions.length && !o.noLegal) {
          const la = own.legal_actions;
          box.append(field("legal", el("span", "kvs", la.slice(0, 24).join(" | ") + (la.length > 24 ? " | … (" + la.length + ")" : ""))));
        }
      }
      tbl.append(box);
    }
    const centre = el("div", "centre");
    const keys = Object.keys(C).filter((x) => !META.has(x) && !SIZES.includes(x));
    keys.sort((a, b) => rankKey(a) - rankKey(b));
    const scalars = el("div", "kvs");
    for (const key of keys) {
      const v = C[key];
      if (v === null || typeof v !== "object") {
        const s = el("span");
        s.append(el("b", null, key.replace(/_/g, " ") + ": "), el("span", null, fmt(v)));
        scalars.append(s);
      } else centre.append(field(key, render(key, v, n, { fresh: justPlayed })));
    }
    centre.prepend(scalars);
    tbl.append(centre);
  }

  return { el, card, backs, cardRow, render, trickObj, fmt, field, isCard, drawTable, META, SIZES };
})();
