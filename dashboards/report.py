"""The tournament dashboard: one self-contained HTML file from a tournament directory.

``cardarena dashboard DIR -o report.html`` (see :mod:`dashboards.cli`) calls :func:`build_report`.
The file needs no network when viewed: the charts are Vega-Lite specs made with Altair, and the
Vega / Vega-Lite / vega-embed JavaScript is inlined from ``vl-convert-python``'s bundle (all three
are BSD-3-Clause, as are Altair and vl-convert).  It holds:

- the tournament's spec and size, and the verification status (every logged match replayed);
- the overall and per-game leaderboards with rating intervals, a head-to-head heatmap and how the
  ratings converged as matches accumulated;
- the entrants with their options (as the spec gave them, from the manifest);
- faults grouped by bot, kind and normalised reason (:func:`bots.faults.group_faults`: one bug at
  different moves is one row), with the first example's match and move;
- rule coverage as one small table per game, with the events that never fired;
- a match viewer: a sample of matches is replayed with the engine and every seat's
  ``state.observation(seat)`` after every ply is embedded (delta-encoded, zlib, base64), so the
  browser draws hands, tricks, melds, the discard pile, scores and rule events without an engine,
  and jumps to the move of a fault.

:func:`build_match_page` writes the viewer alone for one match (``cardarena show DIR MATCH_ID``).

This module renders; it reads no log and computes no rating.  The data comes from
:mod:`dashboards.report_data`: the logs of ``data/README.md`` through
``tournaments.analysis.views.TournamentLog``, and the numbers (ratings, head-to-head, convergence,
coverage, verification) from the analysis package through :class:`~dashboards.report_data.Analysis`.

A section without data (an empty tournament, a single bot or game) shows a sentence saying why in
place of its chart.
"""
from __future__ import annotations

import html
import json
import math
import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bots.faults import group_faults
from dashboards.report_data import (
    Analysis,
    DashboardError,
    Logs,
    entrants,
    find_match,
    game_order,
    jsonable,
    read_ladder,
    read_logs,
    replay_for_viewer,
    sample_matches,
)

TEMPLATES = Path(__file__).with_name("templates")
DEFAULT_SAMPLE = 20
"""Matches embedded in the viewer unless ``--sample`` says otherwise."""


# =============================================================================== charts
def _alt() -> Any:
    import altair as alt
    return alt


def _table() -> Any:
    """The chart's data, named: its rows go in after ``to_dict`` (:func:`_vl`), which keeps Altair
    from copying and checking every row."""
    return _alt().Data(name="table")


def _vl(chart: Any, values: list[dict[str, Any]]) -> dict[str, Any]:
    """The Vega-Lite spec with ``values`` as the named data (unvalidated: validation costs ~0.3 s a
    chart; the browser test draws them all)."""
    spec: dict[str, Any] = chart.to_dict(validate=False)
    found = []

    def fill(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("data") == {"name": "table"}:
                node["data"] = {"values": values}
                found.append(node)
            for v in node.values():
                fill(v)
        elif isinstance(node, list):
            for v in node:
                fill(v)
    fill(spec)
    assert found, "the chart does not use the named data"
    return spec


def _r(x: Any) -> Any:
    return round(x, 4) if isinstance(x, float) and math.isfinite(x) else x


def interval_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Each entrant's headline score with its bootstrap 95% interval, best on top (0.5: the field)."""
    rows = [r for r in rows if r["score_lo"] is not None and r["score_hi"] is not None]
    if len(rows) < 2:
        return None
    alt = _alt()
    values = [{"bot": r["bot"], "score": _r(r["score"]), "lo": _r(r["score_lo"]), "hi": _r(r["score_hi"]),
               "strength": _r(r["strength"]), "matches": r["matches"]} for r in rows]
    y = alt.Y("bot:N", sort=[r["bot"] for r in rows], title=None)
    base = alt.Chart(_table())
    rule = base.mark_rule(strokeWidth=2.5, color="#8aa0c2").encode(
        y=y, x=alt.X("lo:Q", title="score (share of opponents placed below), bootstrap 95% interval",
                     scale=alt.Scale(domain=[0, 1])), x2="hi:Q")
    point = base.mark_point(filled=True, size=80, color="#1f4e8c").encode(
        y=y, x="score:Q",
        tooltip=["bot:N", alt.Tooltip("score:Q", format=".3f"), alt.Tooltip("lo:Q", format=".3f"),
                 alt.Tooltip("hi:Q", format=".3f"),
                 alt.Tooltip("strength:Q", format=".2f", title="Plackett–Luce strength"), "matches:Q"])
    mid = alt.Chart(alt.Data(values=[{"x": 0.5}])).mark_rule(strokeDash=[3, 3], color="#aaa").encode(x="x:Q")
    return _vl((mid + rule + point).properties(width=440, height=max(60, 26 * len(rows))), values)


def h2h_chart(rows: Sequence[dict[str, Any]], order: Sequence[str]) -> dict[str, Any] | None:
    """Row entrant's share of placing above the column entrant; '~': not significant."""
    if not rows:
        return None
    alt = _alt()
    values = [{"a": r["a"], "b": r["b"], "share": _r(r["share"]), "lo": _r(r["lo"]), "hi": _r(r["hi"]),
               "n": r["n"], "significant": "yes" if r["significant"] else "no",
               "label": f"{r['share']:.2f}" + ("" if r["significant"] else "~")} for r in rows]
    base = alt.Chart(_table()).encode(
        x=alt.X("b:N", sort=list(order), title="against (column)", axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("a:N", sort=list(order), title="entrant (row)"))
    rect = base.mark_rect().encode(
        color=alt.Color("share:Q", scale=alt.Scale(scheme="redblue", domain=[0, 1], domainMid=0.5),
                        title="row placed above"),
        tooltip=[alt.Tooltip("a:N", title="entrant"), alt.Tooltip("b:N", title="against"),
                 alt.Tooltip("share:Q", format=".3f", title="share placed above"),
                 alt.Tooltip("lo:Q", format=".3f", title="95% lo"),
                 alt.Tooltip("hi:Q", format=".3f", title="95% hi"),
                 alt.Tooltip("n:Q", title="meetings"), alt.Tooltip("significant:N")])
    text = base.mark_text(fontSize=11).encode(text="label:N")
    side = max(120, 50 * len(order))
    return _vl((rect + text).properties(width=side, height=side), values)


def convergence_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    if not rows:
        return None
    alt = _alt()
    values = [{k: _r(v) for k, v in r.items()} for r in rows]
    base = alt.Chart(_table()).encode(x=alt.X("match:Q", title="matches rated"),
                                  color=alt.Color("bot:N", title="entrant"))
    band = base.mark_area(opacity=0.13).encode(y=alt.Y("lo:Q", title="openskill mu, 95% band"), y2="hi:Q")
    line = base.mark_line().encode(y="mu:Q", tooltip=["bot:N", "match:Q", alt.Tooltip("mu:Q", format=".2f"),
                                                      alt.Tooltip("lo:Q", format=".2f"),
                                                      alt.Tooltip("hi:Q", format=".2f")])
    return _vl((band + line).properties(width=560, height=240), values)


def faults_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    if not rows:
        return None
    alt = _alt()
    counts = Counter((r["bot"], r["kind"]) for r in rows)
    values = [{"bot": b, "kind": k, "faults": n} for (b, k), n in sorted(counts.items())]
    chart = alt.Chart(_table()).mark_bar().encode(
        y=alt.Y("bot:N", title=None), x=alt.X("faults:Q", title="faults"),
        color=alt.Color("kind:N", title="kind", scale=alt.Scale(
            domain=["timeout", "crash", "illegal", "memory", "error"],
            range=["#e6a23c", "#c0392b", "#8e44ad", "#2c7fb8", "#555555"])),
        tooltip=["bot:N", "kind:N", "faults:Q"])
    nbots = len({b for b, _ in counts})
    return _vl(chart.properties(width=420, height=max(40, 26 * nbots)), values)


def opponents_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """One entrant's share of placings above each opponent it met (0.5: even), with the meetings."""
    if not rows:
        return None
    alt = _alt()
    values = [{"opponent": r["opponent"], "share": _r(r["share"]), "n": r["n"]} for r in rows]
    order = [r["opponent"] for r in sorted(rows, key=lambda r: -r["share"])]
    bars = alt.Chart(_table()).mark_bar(color="#1f4e8c").encode(
        y=alt.Y("opponent:N", sort=order, title=None),
        x=alt.X("share:Q", scale=alt.Scale(domain=[0, 1]),
                title="share of meetings placed above the opponent (ties half)"),
        tooltip=["opponent:N", alt.Tooltip("share:Q", format=".3f"), alt.Tooltip("n:Q", title="meetings")])
    mid = alt.Chart(alt.Data(values=[{"x": 0.5}])).mark_rule(strokeDash=[3, 3], color="#aaa").encode(x="x:Q")
    return _vl((bars + mid).properties(width=380, height=max(40, 22 * len(rows))), values)


def think_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """One entrant's think time per move in each game: the median (bar) and the 95th percentile (tick)."""
    if not rows:
        return None
    alt = _alt()
    values = [{"game": r["game"], "median_ms": _r(r["median_ms"]), "p95_ms": _r(r["p95_ms"]),
               "max_ms": _r(r["max_ms"]), "moves": r["moves"]} for r in rows]
    y = alt.Y("game:N", title=None)
    tip = ["game:N", alt.Tooltip("median_ms:Q", format=".3f"), alt.Tooltip("p95_ms:Q", format=".3f"),
           alt.Tooltip("max_ms:Q", format=".3f"), "moves:Q"]
    base = alt.Chart(_table())
    bar = base.mark_bar(color="#8aa0c2").encode(
        y=y, x=alt.X("median_ms:Q", title="think time per move, ms: median (bar), 95th percentile (tick)"),
        tooltip=tip)
    tick = base.mark_tick(color="#b03030", thickness=2).encode(y=y, x="p95_ms:Q", tooltip=tip)
    return _vl((bar + tick).properties(width=380, height=max(40, 22 * len(rows))), values)


def vega_bundle() -> str:
    """Vega + Vega-Lite + vega-embed as one script (vl-convert's bundle; sets ``window.vegaEmbed``).

    Building it takes vl-convert a few seconds, so it is kept in the user's cache directory
    (``$XDG_CACHE_HOME/cardarena``), keyed by the versions.
    """
    import vl_convert as vlc
    key = (f"vega-{vlc.get_vega_version()}-vl-{vlc.get_vegalite_versions()[-1]}"
           f"-embed-{vlc.get_vega_embed_version()}")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cardarena"
    path = base / f"{key}.js"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    # the stub says a snippet is required; without one the bundle sets the three globals
    js: str = vlc.javascript_bundle().replace("</script", "<\\/script")  # type: ignore[call-arg]
    try:
        base.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(js, encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # no writable cache: build it again next time
    return js


# =============================================================================== HTML
def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _nodata(text: str) -> str:
    return f'<p class="nodata">{_e(text)}</p>'


def _json_script(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), default=jsonable).replace("<", "\\u003c")


class _Charts:
    def __init__(self) -> None:
        self.specs: dict[str, dict[str, Any]] = {}

    def slot(self, key: str, spec: dict[str, Any] | None, why_empty: str) -> str:
        if spec is None:
            return _nodata(why_empty)
        cid = f"chart-{len(self.specs)}-{key}"
        self.specs[cid] = spec
        return f'<div class="chart-wrap"><div class="chart" id="{_e(cid)}"></div></div>'


def leaderboard_table(rows: Sequence[dict[str, Any]], per_game: bool,
                      about: dict[str, str] | None = None, lower: bool | None = None) -> str:
    """``about``: entrant label -> what it is (its bot and options), shown under the label; ``lower``:
    a game's score sheet direction (True: lower is better), said in the points header."""
    head = ["#", "entrant", "score", "95% interval", "matches", "mean place"]
    if per_game:
        head.append("mean points" + ("" if lower is None else " (lower is better)" if lower
                                     else " (higher is better)"))
    head += ["strength", "95% bootstrap", "openskill mu", "mu ± 1.96σ", "faults"]
    out = ['<table class="lb"><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head)
           + "</tr></thead><tbody>"]
    for r in rows:
        what = (about or {}).get(r["bot"])
        ci = ("-" if r["score_lo"] is None else f'{_num(r["score_lo"], 3)} … {_num(r["score_hi"], 3)}')
        cells = [str(r["rank"]), f'<span class="bot">{_e(r["bot"])}</span>'
                 + (f' <span class="opts">{_e(what)}</span>' if what else ""), _num(r["score"], 3),
                 ci, str(r["matches"]), _num(r["mean_place"])]
        if per_game:
            cells.append(_num(r["mean_score"], 1))
        cells += [_num(r["strength"]), f'{_num(r["strength_lo"])} … {_num(r["strength_hi"])}',
                  _num(r["mu"], 1), f'{_num(r["lo"], 1)} … {_num(r["hi"], 1)}',
                  f'<span class="{"warn" if r["faults"] else ""}">{r["faults"]}</span>']
        out.append('<tr class="lb-row" data-bot="' + _e(r["bot"]) + '">'
                   + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _spec_block(logs: Logs) -> str:
    if not logs.manifests:
        return _nodata("No manifest (_tournaments/*.json) in this directory, so the spec is unknown.")
    parts = []
    for man in logs.manifests:
        spec = man.get("spec", {})
        bots = man.get("bots") or {}
        done = man.get("done_matches")
        parts.append(
            f'<div class="spec"><p>Tournament <b>{_e(man.get("tournament"))}</b> · spec hash '
            f'<code>{_e(str(man.get("spec_hash", ""))[:16])}</code>'
            f' · created {_e(man.get("created_at", "?"))}'
            + (f' · {int(done):,} of {int(man.get("total_matches") or 0):,} matches done'
               + ("" if man.get("complete", True) else " (not complete)") if done is not None else
               f' · {_e(man.get("total_matches", "?"))} matches scheduled')
            + "</p>" + _entrants_table(man, bots) +
            f'<details><summary>the spec</summary><pre>{_e(json.dumps(spec, indent=2, sort_keys=True))}</pre>'
            "</details></div>")
    return "".join(parts)


def options_text(options: dict[str, Any]) -> str:
    """``iterations=50, seed=3``: an entrant's options as the spec gave them."""
    return ", ".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}" for k, v in options.items())


def _entrants_table(man: dict[str, Any], bots: dict[str, Any]) -> str:
    ents = entrants([man])
    if not ents:
        return '<p class="small">entrants: none</p>'
    ngames = len(man.get("games") or man.get("spec", {}).get("games") or [])
    rows = []
    for label, e in ents.items():
        ref = e["ref"] if e["ref"] and e["ref"] != e["bot"] else ""
        games = (f"{len(e['games'])} of {ngames}" if e["games"] and ngames and len(e["games"]) < ngames
                 else "all" if e["games"] else "–")
        rows.append(f'<tr class="entrant" data-bot="{_e(label)}"><td class="bot">{_e(label)}</td>'
                    f'<td>{_e(e["bot"])}{f" <code>{_e(ref)}</code>" if ref else ""}</td>'
                    f'<td class="opts">{_e(options_text(e["options"])) or "defaults"}</td>'
                    f'<td title="{_e(", ".join(e["games"]))}">{_e(games)}</td></tr>')
    return ('<table class="grid entrants"><tr><th>entrant</th><th>bot</th><th>options</th><th>games</th></tr>'
            + "".join(rows) + "</table>")


def _size_block(logs: Logs) -> str:
    ms = logs.matches
    status = Counter(m["status"] for m in ms)
    bots = sorted({b for m in ms for b in m["bots"]})
    games = logs.games()
    items = [
        ("matches", f"{len(ms):,}"),
        ("moves", f"{logs.moves_total:,}"),
        ("rule events", f"{logs.events_total:,}"),
        ("deals", f"{sum(m['deals_played'] for m in ms):,}"),
        ("games", f"{len(games)}: {', '.join(games) or 'none'}"),
        ("entrants", f"{len(bots)}: {', '.join(bots) or 'none'}"),
        ("match status", ", ".join(f"{k} {v:,}" for k, v in status.most_common()) or "–"),
        ("play time", f"{sum(m['duration_s'] for m in ms):,.1f} s summed over matches"),
    ]
    return ('<table class="kv" id="size">'
            + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items) + "</table>")


def _verify_block(v: dict[str, Any] | None, total: int) -> str:
    if total == 0:
        return _nodata("Nothing to verify: the tournament has no finished matches.")
    if v is None:
        return ('<p class="status partial" id="verify-status">Not run for this report.</p><p class="small">'
                "Run <code>cardarena verify DIR</code>, or make the report without "
                "<code>--no-verify</code>.</p>")
    probs = v["problems"]
    cls = "ok" if not probs else "bad"
    text = (f"All {v['matches']:,} matches replay as logged and every invariant holds."
            if not probs else f"{len(probs)} violation(s) found.")
    out = (f'<p class="status {cls}" id="verify-status">{_e(text)}</p><p class="small">'
           f"<code>cardarena verify</code>: each match replayed with the engine from its game, options, seed "
           f"and logged actions ({v['matches']:,} matches, {v['moves']:,} moves): every action legal for the "
           f"seat to act, final scores, ranking, deals and rule events as logged; and "
           f"{len(v['queries'])} invariant queries over the logs. {v['seconds']:.1f} s.</p>"
           f'<details class="small"><summary>the invariant queries</summary>{_e(", ".join(v["queries"]))}'
           "</details>")
    if v["unknown_games"]:
        out += f'<p class="warn">Games this engine does not know: {_e(", ".join(v["unknown_games"]))}.</p>'
    if probs:
        rows = "".join(f"<tr><td>{_e(p['check'])}</td><td>{_e(p['game'])}</td><td><code>{_e(p['match_id'])}"
                       f"</code></td><td>{_e(p['detail'])}</td><td><code>{_e(p['replay'])}</code></td></tr>"
                       for p in probs[:200])
        out += ('<table class="grid"><tr><th>check</th><th>game</th><th>match</th><th>violation</th>'
                f"<th>replay with</th></tr>{rows}</table>")
        if len(probs) > 200:
            out += (f'<p class="small">… and {len(probs) - 200} more: see '
                    "<code>cardarena verify DIR</code>.</p>")
    return out


def _faults_block(rows: Sequence[dict[str, Any]], charts: _Charts, nmatches: int,
                  viewer_ids: set[str]) -> str:
    why = ("No matches yet, so no faults." if nmatches == 0 else
           f"No bot faulted in {nmatches:,} matches: no timeouts, crashes, illegal moves or memory faults.")
    chart = charts.slot("faults", faults_chart(rows), why)
    if not rows:
        return chart
    groups = group_faults(rows)
    body = []
    for g in groups:
        ex = g["first"]
        full = ex["reason"].strip()
        first_line = (full.splitlines() or [""])[0]
        detail = (f"<details><summary>{_e(first_line[:200])}</summary><pre>{_e(full)}</pre></details>"
                  if full != first_line else _e(first_line))
        mid = str(ex["match_id"])
        ply = ex["ply"]
        view = (f' <a class="to-fault" href="#viewer" data-match="{_e(mid)}" data-ply="{_e(ply)}">view</a>'
                if mid in viewer_ids else "")
        body.append(
            f'<tr class="fault-row" data-bot="{_e(g["bot"])}" data-kind="{_e(g["kind"])}">'
            f'<td class="bot">{_e(g["bot"])}</td>'
            f'<td><span class="kind {_e(g["kind"])}">{_e(g["kind"])}</span></td>'
            f'<td class="norm"><code>{_e(g["reason"])}</code></td><td class="count">{g["count"]}</td>'
            f'<td class="first"><code class="mid">{_e(mid)}</code> move {_e(ply)}{view}'
            f'<div class="small">{_e(ex["game"])}, seat {_e(ex["seat"])}, in {g["matches"]:,} match(es); '
            f"<code>cardarena show DIR {_e(mid)}</code></div>{detail}</td></tr>")
    note = (f'<p class="small" id="faults-note">{len(rows):,} faults in {len(groups):,} group(s): '
            "one row per entrant, kind and normalised reason (the first line of the reason with the "
            "action given, card tokens, numbers, addresses and suit names replaced by placeholders, "
            "and the engine's legal list dropped), so one bug at different moves is one row. The first "
            "example is the earliest match it happened in, and its move (ply).</p>")
    return chart + note + ('<table class="grid faults"><tr><th>entrant</th><th>kind</th><th>reason '
                           "(normalised)</th><th>count</th><th>first example (match, move)</th></tr>"
                           + "".join(body) + "</table>")


def _entrants_block(rows: Sequence[dict[str, Any]], charts: _Charts, viewer_ids: set[str]) -> str:
    """A page per entrant (a tab each): its games with the game board's score, interval and rank, its
    faults with links into the viewer, think time per move and time-bank use, and two plots: its
    share against each opponent and its think time per game."""
    if not rows:
        return _nodata("No finished matches, so no entrant to show.")
    buttons, panes = [], []
    for i, e in enumerate(rows):
        bot, key = e["bot"], f"ent-{i}"
        games = "".join(
            f"<tr><td>{_e(g['game'])}</td><td class=\"n\">{g['score']:.3f}</td><td>"
            + ("-" if g["lo"] is None else f"{g['lo']:.2f}–{g['hi']:.2f}")
            + f"</td><td>{_e(g['rank'])} of {g['field']}</td><td class=\"n\">{g['matches']:,}</td></tr>"
            for g in e["games"])
        think = "".join(
            f"<tr><td>{_e(t['game'])}</td><td class=\"n\">{t['moves']:,}</td>"
            f"<td class=\"n\">{t['median_ms']:.3f}</td><td class=\"n\">{t['p95_ms']:.3f}</td>"
            f"<td class=\"n\">{t['max_ms']:.3f}</td></tr>" for t in e["think"])
        bank = e["bank"]
        bank_line = ("No time-bank figures (the tournament's limits are not in its manifest)."
                     if bank is None else
                     f"Time bank: drawn on in {bank['drew']:,} of {bank['seats']:,} match seats; median use "
                     f"{bank['median']:.1%}, most {bank['max']:.1%} of the bank (time over the per-move "
                     "limit, as a share of the bank).")
        frows = []
        for f in e["faults"][:50]:
            mid = str(f["match_id"])
            view = (f' <a class="to-fault" href="#viewer" data-match="{_e(mid)}" data-ply="{_e(f["ply"])}">'
                    "view</a>" if mid in viewer_ids else "")
            reason = (str(f["reason"]).strip().splitlines() or [""])[0][:160]
            frows.append(f"<tr><td>{_e(f['game'])}</td><td><span class=\"kind {_e(f['kind'])}\">"
                         f"{_e(f['kind'])}</span></td><td><code class=\"mid\">{_e(mid)}</code> move "
                         f"{_e(f['ply'])}{view}</td><td><code>{_e(reason)}</code></td></tr>")
        more = len(e["faults"]) - len(frows)
        faults = (_nodata("No fault.") if not frows else
                  '<table class="grid"><tr><th>game</th><th>kind</th><th>match, move</th><th>reason</th></tr>'
                  + "".join(frows) + "</table>"
                  + (f'<p class="small">and {more:,} more (the Faults section groups them).</p>'
                     if more else ""))
        body = (f'<p class="small">{e["matches"]:,} matches, {len(e["faults"]):,} faults.</p>'
                '<table class="grid"><tr><th>game</th><th>score</th><th>95% CI</th><th>rank</th>'
                f"<th>matches</th></tr>{games}</table>"
                f"<h4>Against each opponent</h4>"
                + charts.slot(f"opp-{i}", opponents_chart(e["opponents"]), "No opponent met.")
                + "<h4>Think time per move</h4>"
                + ('<table class="grid"><tr><th>game</th><th>moves</th><th>median ms</th><th>p95 ms</th>'
                   f"<th>max ms</th></tr>{think}</table>" if think else "")
                + charts.slot(f"think-{i}", think_chart(e["think"]), "No move of its own logged.")
                + f'<p class="small">{_e(bank_line)}</p><h4>Faults</h4>' + faults)
        active = " active" if i == 0 else ""
        buttons.append(f'<button class="tab{active}" data-tab="{key}" data-bot="{_e(bot)}">'
                       f"{_e(bot)}</button>")
        panes.append(f'<div class="pane{active} entrant" id="{key}" data-bot="{_e(bot)}">{body}</div>')
    return ('<p class="small">One page per entrant: the score, interval and rank on each game\'s board, '
            "the share of meetings it placed above each opponent, think time per move (the moves it chose "
            "itself), time-bank use and its faults, each with a link into the match viewer when the match "
            "is in its sample.</p>"
            f'<div class="tabs">{"".join(buttons)}</div>{"".join(panes)}')


def _coverage_block(rows: Sequence[dict[str, Any]], logs: Logs) -> str:
    """One small table per game (its events, how often each fired and in how many matches), each
    saying which of its events never fired; a grid of them wraps to the page's width."""
    games = logs.games()
    if not games:
        return _nodata("No games in this tournament yet, so no rule coverage.")
    if not rows:
        return _nodata(f"No rule event is listed for {', '.join(games)} and none fired, "
                       "so there is nothing to show.")
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_game[r["game"]].append(r)
    never_total = sum(1 for r in rows if r["count"] == 0)
    gaps = [g for g in by_game if any(r["count"] == 0 for r in by_game[g])]
    note = (f'<p id="coverage-note">{len(rows) - never_total} of {len(rows)} (game, event) pairs fired '
            f"at least once, over {len(by_game)} game(s); "
            + (f'<span class="warn">{len(gaps)} game(s) have an event that never fired</span>.' if gaps
               else "every listed event fired.")
            + ' <label class="small"><input type="checkbox" id="cov-gaps"> only games with an event that '
            "never fired</label></p>")
    if not logs.matches:
        note += '<p class="small">No matches yet: every listed event is still to fire.</p>'
    cards = []
    for g in game_order(by_game):
        rs = by_game[g]
        never = [r for r in rs if r["count"] == 0]
        fired = len(rs) - len(never)
        said = (f'<p class="never warn">Never fired: {_e(", ".join(r["short"] for r in never))}.</p>' if never
                else '<p class="never ok">Every event fired.</p>')
        trs = []
        for r in sorted(rs, key=lambda r: (r["count"] > 0, not r["listed"], r["short"])):
            tag = ("" if r["listed"] else
                   ' <span class="tag" title="fired, but not on the rules card">unlisted</span>')
            zero = " zero" if r["count"] == 0 else ""
            trs.append(f'<tr class="cov-row{zero}" data-event="{_e(r["event"])}">'
                       f'<td class="ev">{_e(r["short"]).replace("_", "_<wbr>")}{tag}</td>'
                       f'<td class="n">{r["count"]:,}</td><td class="n">{r["matches"]:,}</td></tr>')
        cards.append(f'<div class="cov-game{" has-gaps" if never else ""}" data-game="{_e(g)}">'
                     f'<h4>{_e(g)} <span class="small">{fired} of {len(rs)} fired</span></h4>{said}'
                     '<table class="cov"><thead><tr><th>event</th><th class="n">fired</th>'
                     f'<th class="n">matches</th></tr></thead><tbody>{"".join(trs)}</tbody></table></div>')
    return note + f'<div class="cov-grid">{"".join(cards)}</div>'


# =============================================================================== the ladder page
def board_history_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Each version's board strength (overall) at every snapshot, with its 95% interval."""
    if not rows:
        return None
    alt = _alt()
    values = [{k: _r(v) for k, v in r.items()} for r in rows]
    base = alt.Chart(_table()).encode(x=alt.X("at:T", title="snapshot"),
                                      color=alt.Color("ref:N", title="version"))
    band = base.mark_area(opacity=0.1).encode(y=alt.Y("lo95:Q", title="strength (Plackett–Luce), 95%"),
                                              y2="hi95:Q")
    line = base.mark_line(point=True).encode(
        y="strength:Q", tooltip=["ref:N", "at:T", alt.Tooltip("strength:Q", format=".3f"),
                                 alt.Tooltip("lo95:Q", format=".3f"), alt.Tooltip("hi95:Q", format=".3f"),
                                 "rank:Q", "groups:Q"])
    return _vl((band + line).properties(width=560, height=240), values)


def online_history_chart(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Each version's online rating (openskill mu, +-2 sigma) after every group it played."""
    if not rows:
        return None
    alt = _alt()
    values = [{k: _r(v) for k, v in r.items()} for r in rows]
    base = alt.Chart(_table()).encode(x=alt.X("seq:Q", title="online update (group)"),
                                      color=alt.Color("ref:N", title="version"))
    band = base.mark_area(opacity=0.1).encode(y=alt.Y("lo:Q", title="online mu, mu ± 2 sigma"), y2="hi:Q")
    line = base.mark_line().encode(y="mu:Q", detail="game:N",
                                   tooltip=["ref:N", "game:N", "seq:Q", alt.Tooltip("mu:Q", format=".2f"),
                                            alt.Tooltip("lo:Q", format=".2f"),
                                            alt.Tooltip("hi:Q", format=".2f")])
    return _vl((band + line).properties(width=560, height=240), values)


def ladder_sections(root: Path | None, charts: _Charts) -> dict[str, str]:
    """The ladder page (a directory of ``cardarena ladder``): the board over time, each version's online
    rating history, the placement results and the state changes; nothing for a tournament (or a log in
    an object store: ``root`` None)."""
    lad = read_ladder(root) if root is not None else None
    if lad is None:
        return {"LADDER": "", "LADDER_NAV": ""}
    board, changes, versions = lad.board, lad.changes, lad.versions
    placed = {c.ref: c for c in changes if c.from_state == "placement" and c.to_state == "active"}
    prow = "".join(
        f"<tr><td>{_e(v.ref)}</td><td>{_e(v.author)}</td><td>{_e(v.submitted_at[:19])}</td>"
        f"<td>{_e(placed[v.ref].at[:19]) if v.ref in placed else '-'}</td>"
        f"<td>{_e(placed[v.ref].reason) if v.ref in placed else _e(v.state)}</td></tr>"
        for v in versions if not v.reference)
    crow = "".join(f"<tr><td>{_e(c.at[:19])}</td><td>{_e(c.ref)}</td><td>{_e(c.from_state or '')}</td>"
                   f"<td>{_e(c.to_state)}</td><td>{_e(c.reason)}</td></tr>" for c in changes)
    body = (
        '<section id="ladder">\n  <h2>Ladder</h2>\n'
        f'  <p class="small">Ladder <code>{_e(lad.name)}</code>: {len(versions)} versions, '
        f'{len({r["snapshot"] for r in board})} board snapshots (docs/ladder.md).</p>\n'
        "  <h3>The board over time (overall)</h3>\n  "
        + charts.slot("ladder-board", board_history_chart(lad.history), "No board snapshot yet.")
        + "\n  <h3>Online ratings, version by version</h3>\n  "
        + charts.slot("ladder-online", online_history_chart(lad.online), "No rated group yet.")
        + "\n  <h3>Placement</h3>\n"
        + ("<table><tr><th>version</th><th>author</th><th>submitted</th><th>active</th>"
           "<th>placement</th></tr>" + prow + "</table>" if prow else _nodata("No version submitted yet."))
        + "\n  <h3>State changes</h3>\n"
        + "<table><tr><th>at</th><th>version</th><th>from</th><th>to</th><th>reason</th></tr>" + crow
        + "</table>\n</section>\n")
    return {"LADDER": body, "LADDER_NAV": '<a href="#ladder">Ladder</a>\n    '}


def _is_team_game(game: str) -> bool:
    from engine.core import GAMES, game_class
    return game in GAMES and game_class(game).teams


def _champions_table(rows: Sequence[dict[str, Any]]) -> str:
    """The per-game champions view (:func:`tournaments.analysis.leaderboard.champions`)."""
    body = []
    for c in rows:
        ci = "-" if c["lo"] is None else f"{c['lo']:.2f}–{c['hi']:.2f}"
        first = _e(c["leaders"][0]) if len(c["leaders"]) == 1 else \
            _e(" / ".join(c["leaders"])) + ' <span class="small">(shared: intervals overlap)</span>'
        body.append(f"<tr><td>{_e(c['game'])}</td><td>{first}</td><td class=\"n\">{c['score']:.3f}</td>"
                    f"<td>{ci}</td><td class=\"n\">{c['entrants']}</td>"
                    f"<td class=\"n\">{c['matches']:,}</td></tr>")
    return ('<p class="small">The entrants did not all play the same games, so each game\'s board is the '
            "result: here is each game's first place (every entrant whose rank interval holds first), "
            "then a tab per game. The overall tab ranks only the entrants that met over a common set of "
            "games.</p>"
            '<table class="grid champions"><tr><th>game</th><th>first</th><th>score</th><th>95% CI</th>'
            "<th>entrants</th><th>matches</th></tr>" + "".join(body) + "</table>")


def _leaderboards_block(an: Analysis, logs: Logs, charts: _Charts) -> str:
    from tournaments.analysis.leaderboard import RANK_LEGEND, no_overall, no_overall_text
    order = logs.games()
    games = sorted({m["game"] for m in logs.matches}, key=order.index)
    tabs: list[tuple[str, str | None]] = [("overall", None)] + [(g, g) for g in games]
    about = {label: e["bot"] + (f" · {options_text(e['options'])}" if e["options"] else "")
             for label, e in entrants(logs.manifests).items() if e["options"] or e["bot"] != label}
    buttons, panes = [], []
    ov = an.boards.get("overall")
    if ov is not None and ov.specialised:   # entrants specialise: each game's first place leads
        buttons.append('<button class="tab active" data-tab="lb-champions">per-game champions</button>')
        panes.append(f'<div class="pane active" id="lb-champions">{_champions_table(ov.champions)}</div>')
    for i, (label, game) in enumerate(tabs):
        rows = an.leaderboard(game)
        nm = sum(1 for m in logs.matches if game is None or m["game"] == game)
        what = "the tournament" if game is None else game
        board = an.boards.get(label)
        if not rows:
            body = _nodata(f"No finished matches in {what}, so no leaderboard.")
        elif (game is None and board is not None and board.scope == "overall"
              and no_overall(board.games, len(board.entrants), len(board.apart))):
            body = _nodata(no_overall_text(board.note) + ".")
        else:
            one = len(rows) == 1
            note, _apart, lower = an.board_note(game)
            body = leaderboard_table(rows, per_game=game is not None, about=about, lower=lower)
            body += ('<p class="small">Score (the headline, as <code>cardarena tournament leaderboard</code> '
                     "and <code>cardarena rank</code> print it): the share of opponents placed below, ties "
                     "half (partnership: 1 win, 0 loss), with a 95% bootstrap interval over duplicate "
                     "boards; "
                     + _e(RANK_LEGEND) + ". "
                     + (_e(note) + ". " if note else "")   # the note lists the entrants not ranked overall
                     + "Strength: Plackett–Luce maximum likelihood (log-strength, "
                     "centred on 0) with a 95% interval from resampling duplicate groups. "
                     "openskill: Plackett–Luce updates in match-id "
                     "order"
                     + (", partners rated as one team" if game is None or _is_team_game(game) else "")
                     + (", overall = per-game ratings combined with equal weight" if game is None else "")
                     + ". Mean place: 1 is best; a faulting seat is placed last."
                     + (" The tournament has one game, so this is its leaderboard."
                        if game is None and len(games) == 1 else "") + "</p>")
            body += charts.slot(f"lb-{label}", interval_chart(rows),
                                "A single entrant: its strength has nobody to be compared with." if one
                                else "No score intervals to draw (a game with one duplicate board has none).")
            body += f"<h4>Head-to-head in {_e(what)}</h4>" + _h2h(an, game, rows, charts, label)
            conv = an.convergence(game) if not one else []
            body += f"<h4>How the ratings converged in {_e(what)}</h4>" + charts.slot(
                f"conv-{label}", convergence_chart(conv),
                "A single entrant: there is no rating to converge." if one
                else f"No rated matches in {what} (a match needs two sides).")
        body = f'<p class="small">{nm:,} matches.</p>' + body
        active = " active" if i == 0 and not panes else ""
        buttons.append(f'<button class="tab{active}" data-tab="lb-{_e(label)}">{_e(label)}</button>')
        panes.append(f'<div class="pane{active}" id="lb-{_e(label)}">{body}</div>')
    return f'<div class="tabs">{"".join(buttons)}</div>{"".join(panes)}'


def _h2h(an: Analysis, game: str | None, board: Sequence[dict[str, Any]], charts: _Charts, label: str) -> str:
    rows = an.head_to_head(game)
    why = ("A single entrant: nobody to meet." if len(board) < 2 else
           "No two entrants ever sat on opposing sides.")
    out = charts.slot(f"h2h-{label}", h2h_chart(rows, [r["bot"] for r in board]), why)
    if rows:
        out += ('<p class="small">Cell: the share of meetings in which the row entrant placed above '
                "the column entrant (ties count half; partners never meet). <b>~</b>: its bootstrap 95% "
                "interval holds 0.5, so that order is not significant.</p>")
    return out


def build_report(root: str | Path, output: str | Path | None = None, sample: int = DEFAULT_SAMPLE,
                 include: Sequence[str] = (), verify: bool = True, bootstrap: int = 200
                 ) -> tuple[Path, dict[str, Any]]:
    """Write the report for the tournament directory ``root``; return its path and a summary.

    ``sample``: matches embedded in the viewer (``-1``: all); ``include``: match ids embedded as well;
    ``verify``: run ``cardarena verify`` (replay every match) for the verification status.
    """
    t0 = time.perf_counter()
    logs = read_logs(root, digests=not verify)   # verifying, the status reports a changed part
    out = output_path(output, _out_dir(logs) / "report.html")
    from engine import GAMES
    picked = sample_matches([m for m in logs.matches if m["game"] in GAMES or m["match_id"] in include],
                            sample, include)
    an = Analysis(logs, bootstrap=bootstrap)
    charts = _Charts()
    verification = an.verification() if verify and logs.matches else None
    sections = {
        "SPEC": _spec_block(logs),
        "SIZE": _size_block(logs),
        "VERIFY": _verify_block(verification if verify else None, len(logs.matches)),
        "LEADERBOARDS": _leaderboards_block(an, logs, charts),
        "FAULTS": _faults_block(an.faults(), charts, len(logs.matches), {m["match_id"] for m in picked}),
        "ENTRANTS": _entrants_block(an.entrants(), charts, {m["match_id"] for m in picked}),
        "COVERAGE": _coverage_block(an.coverage(), logs),
        **ladder_sections(None if logs.in_store else logs.root, charts),
    }
    moves = logs.moves_of([m["match_id"] for m in picked])
    viewer = [replay_for_viewer(m, moves[m["match_id"]]) for m in picked]
    total = len(logs.matches)
    if not total:
        vnote = "No finished matches, so there is nothing to step through."
    else:
        vnote = (f"{len(viewer)} of {total:,} matches are included"
                 + (" (all of them)." if len(viewer) == total else
                    ": a sample over every game, faulted matches first. Include more with "
                    "<code>cardarena dashboard DIR --sample N</code> (<code>--sample -1</code>: all) or "
                    "<code>--match ID</code>."))
    name = (", ".join(str(m.get("tournament")) for m in logs.manifests)
            or ", ".join(sorted({m["tournament"] for m in logs.matches}))
            or logs.where.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1])
    fills = {
        "@@TITLE@@": _e(f"cardarena: {name}"),
        "@@GENERATED@@": _e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        "@@ROOT@@": _e(logs.where.split("?", 1)[0]),
        "@@VIEWER_NOTE@@": vnote,
        **{f"@@{k}@@": v for k, v in sections.items()},
        "/*@@VEGA@@*/": vega_bundle() if charts.specs else "",
        "@@CHARTS_JSON@@": _json_script(charts.specs),
        "@@MATCHES_JSON@@": _json_script(viewer),
    }
    _write_page(out, "report.html", fills)
    summary = {"path": str(out), "bytes": out.stat().st_size, "matches": total, "viewer_matches": len(viewer),
               "charts": len(charts.specs), "verified": verification["matches"] if verification else 0,
               "violations": len(verification["problems"]) if verification else None,
               "seconds": round(time.perf_counter() - t0, 2)}
    return out, summary


def _out_dir(logs: Logs) -> Path:
    """Where a page goes by default: beside the log, or for a log in an object store (read in place,
    never written to) the current directory."""
    return Path(".") if logs.in_store else logs.root


def output_path(output: str | Path | None, default: Path) -> Path:
    """The file to write: ``output`` or ``default``; :class:`DashboardError` when it names a folder or
    its folder does not exist (nothing is created)."""
    out = Path(output) if output is not None else default
    if out.is_dir():
        raise DashboardError(f"--output {out} is a directory; give a file name such as {out / default.name}")
    if not out.parent.is_dir():
        what = "is a file, not a folder" if out.parent.exists() else "does not exist"
        raise DashboardError(f"--output {out}: the folder {out.parent} {what}; create it first")
    return out


def _write_page(out: Path, template: str, fills: dict[str, str]) -> None:
    """Fill ``templates/<template>`` (the CSS, the script and the viewer's markup go in here) and write
    it atomically to ``out``."""
    page = (TEMPLATES / template).read_text(encoding="utf-8")
    # one <head> for every page (templates/head.html); only the report's charts need 'unsafe-eval'
    head = (TEMPLATES / "head.html").read_text(encoding="utf-8").replace(
        "@@SCRIPT_SRC@@", "'unsafe-inline' 'unsafe-eval'" if template == "report.html" else "'unsafe-inline'")
    page = page.replace("@@HEAD@@", head, 1)
    page = page.replace("@@VIEWER_SECTION@@", (TEMPLATES / "viewer.html").read_text(encoding="utf-8"))
    # table.js: the card table's drawing, shared with the play page (dashboards/playweb.py)
    js = "\n".join((TEMPLATES / f).read_text(encoding="utf-8") for f in ("table.js", "report.js"))
    fills = {"/*@@CSS@@*/": (TEMPLATES / "report.css").read_text(encoding="utf-8"),
             "/*@@JS@@*/": js.replace("</script", "<\\/script"), **fills}
    page = re.sub(r"@@[A-Z_]+@@|/\*@@[A-Z]+@@\*/", lambda mt: fills.get(mt.group(0), mt.group(0)), page)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def build_match_page(root: str | Path, match_id: str, output: str | Path | None = None
                     ) -> tuple[Path, dict[str, Any]]:
    """Write the match viewer for one logged match (``cardarena show DIR MATCH_ID``): the report's
    viewer, self-contained, for that match alone.  Default file: ``DIR/match-<ID>.html``."""
    t0 = time.perf_counter()
    logs = read_logs(root)
    m = find_match(logs, match_id)
    out = output_path(output, _out_dir(logs) / f"match-{m['match_id']}.html")
    from engine import GAMES
    if m["game"] not in GAMES:
        raise DashboardError(f"match {m['match_id']} is a game of {m['game']!r}, which this engine does not "
                             "know")
    vm = replay_for_viewer(m, logs.moves_of([m["match_id"]])[m["match_id"]])
    fills = {
        "@@TITLE@@": _e(f"cardarena: {m['game']} match {m['match_id']}"),
        "@@GENERATED@@": _e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        "@@ROOT@@": _e(logs.where.split("?", 1)[0]),
        "@@VIEWER_NOTE@@": (f"Tournament {_e(m['tournament'])} · {_e(m['game'])} · status {_e(m['status'])}"
                            + (f" · {len(m['faults'])} fault(s): <b>⚠ fault</b> goes to the move"
                               if m["faults"] else "")),
        "@@MATCHES_JSON@@": _json_script([vm]),
    }
    _write_page(out, "match.html", fills)
    return out, {"path": str(out), "bytes": out.stat().st_size, "match_id": m["match_id"], "game": m["game"],
                 "moves": vm["nmoves"], "faults": len(m["faults"]), "replay_error": vm["error"],
                 "seconds": round(time.perf_counter() - t0, 2)}
