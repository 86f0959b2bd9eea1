"""The tournament dashboard: one self-contained HTML file from a tournament directory.

``cardarena dashboard DIR -o report.html`` (see :mod:`dashboards.cli`) calls :func:`build_report`.
The file needs no network when viewed: the charts are Vega-Lite specs made with Altair, and the
Vega / Vega-Lite / vega-embed JavaScript is inlined from ``vl-convert-python``'s bundle (all three
are BSD-3-Clause, as are Altair and vl-convert).  It holds:

- the tournament's spec and size, and the verification status (every logged match replayed);
- the overall and per-game leaderboards with rating intervals, a head-to-head heatmap and how the
  ratings converged as matches accumulated;
- the entrants with their options (as the spec gave them, from the manifest);
- faults grouped by bot, kind and normalised reason (:func:`normalise_reason`: one bug at different
  moves is one row), with the first example's match and move;
- rule coverage as one small table per game, with the events that never fired;
- a match viewer: a sample of matches is replayed here with the engine and every seat's
  ``state.observation(seat)`` after every ply is embedded (delta-encoded, zlib, base64), so the
  browser draws hands, tricks, melds, the discard pile, scores and rule events without an engine,
  and jumps to the move of a fault.

:func:`build_match_page` writes the viewer alone for one match (``cardarena show DIR MATCH_ID``).

Where the data comes from: the Parquet logs of ``data/README.md`` (schema 1), read with DuckDB.
The numbers come from :class:`Analysis`, the one seam to the analysis package
(``tournaments.analysis``): it takes that package's ratings, head-to-head, coverage and verification
where it provides them, and computes them here otherwise (openskill Plackett-Luce, pairwise
placements, ``Game.rule_events``, a report-time replay).

A section without data (an empty tournament, a single bot or game) shows a sentence saying why in
place of its chart.
"""
from __future__ import annotations

import base64
import html
import json
import math
import os
import random
import re
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bots.faults import group_faults
from bots.faults import normalise_reason as normalise_reason  # (re-exported: it lives in bots.faults now)

TEMPLATES = Path(__file__).with_name("templates")
DEFAULT_SAMPLE = 20
"""Matches embedded in the viewer unless ``--sample`` says otherwise."""
Z95 = 1.959964


class DashboardError(ValueError):
    """Bad input (not a tournament directory, unreadable logs): one line for the user."""


# =============================================================================== reading the logs
@dataclass
class Logs:
    """What the report needs from a tournament directory, read through the analysis package's views."""

    root: Path
    log: Any
    """The checked :class:`tournaments.analysis.views.TournamentLog`."""
    manifests: list[dict[str, Any]]
    matches: list[dict[str, Any]]
    """One dict per match (the ``matches`` columns, ``game`` included), in the order they finished."""
    event_counts: dict[tuple[str, str], int]
    """(game, event) -> how often it fired."""
    moves_total: int
    events_total: int

    def games(self) -> list[str]:
        """The games of the tournament: those with matches, and those its manifests name."""
        seen = {m["game"] for m in self.matches}
        for man in self.manifests:
            for games in (man.get("games"), man.get("spec", {}).get("games")):
                for g in games if isinstance(games, list) else []:
                    gid = g.get("id") if isinstance(g, dict) else g
                    if isinstance(gid, str):
                        seen.add(gid)
        return _game_order(seen)

    def sql(self, query: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        """Rows of a DuckDB query over the views ``matches``, ``moves`` and ``events``."""
        import duckdb
        con = self.log.connect()
        try:
            cur = con.execute(query, params or [])
            cols = [d[0] for d in cur.description or []]
            return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as e:
            raise DashboardError(f"cannot read the logs under {self.root}: {_first_line(e)}") from None
        finally:
            con.close()

    def moves_of(self, match_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """The moves of these matches, in ply order."""
        out: dict[str, list[dict[str, Any]]] = {m: [] for m in match_ids}
        if match_ids:
            q = ("SELECT match_id, ply, deal, seat, action, status FROM moves "
                 "WHERE match_id IN (SELECT unnest(?)) ORDER BY match_id, ply")
            for r in self.sql(q, [list(match_ids)]):
                out[r["match_id"]].append(r)
        return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _game_order(ids: Iterable[str]) -> list[str]:
    from engine.core import RULES_ORDER
    order = {g: i for i, g in enumerate(RULES_ORDER)}
    return sorted(set(ids), key=lambda g: (order.get(g, len(order)), g))


def read_logs(root: str | Path) -> Logs:
    """Open a tournament directory (``data/README.md``); :class:`DashboardError` if it is none or a
    part file is missing or unreadable (the message names the file)."""
    from tournaments.analysis.views import LogError, open_log
    root = Path(root)
    try:
        log = open_log(root)
    except LogError as e:
        raise DashboardError(str(e)) from None
    manifests: list[dict[str, Any]] = []
    from tournaments.paths import manifests as manifest_files
    for p in manifest_files(root):
        try:
            manifests.append(json.loads(p.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as e:
            raise DashboardError(f"{p}: unreadable manifest ({e})") from None
    logs = Logs(root, log, manifests, [], {}, 0, 0)
    logs.matches = logs.sql("SELECT * REPLACE (epoch_ms(finished_at) AS finished_at) FROM matches "
                            "ORDER BY finished_at, match_id")
    for m in logs.matches:
        m["faults"] = [dict(f) for f in m.get("faults") or []]
    logs.moves_total = int(logs.sql("SELECT count(*) AS n FROM moves")[0]["n"])
    for r in logs.sql("SELECT game, event, count(*) AS n FROM events GROUP BY ALL"):
        logs.event_counts[(r["game"], r["event"])] = int(r["n"])
    logs.events_total = sum(logs.event_counts.values())
    return logs


# =============================================================================== the analysis seam
class Analysis:
    """The numbers of the report, as plain rows (lists of dicts), from the analysis package
    (``tournaments.analysis``): leaderboards and head-to-head (``ratings.rank``), verification
    (``verify.verify``) and rule coverage.  Computed here: how the ratings converged (the same
    openskill updates in the same order, recorded after every match) and faults."""

    def __init__(self, logs: Logs, bootstrap: int = 200) -> None:
        from tournaments.analysis import ratings
        self.logs = logs
        self._histories: dict[str, dict[str, Series]] | None = None
        self.boards: dict[str, Any] = {b.scope: b for b in ratings.rank(logs.log, bootstrap=bootstrap)}
        if "overall" not in self.boards and len(self.boards) == 1:
            self.boards["overall"] = next(iter(self.boards.values()))  # one game: it is the whole

    # ------------------------------------------------------------------ ratings
    def leaderboard(self, game: str | None) -> list[dict[str, Any]]:
        """One row per ranked entrant, in the headline's order (:mod:`tournaments.analysis.leaderboard`,
        the numbers ``tournament leaderboard`` and ``rank`` print): the headline ``score`` with its
        bootstrap 95% interval (``tied`` when the gap to the next is not significant), matches, mean
        place, mean points (per game), faults, the Plackett-Luce strength with its interval and the
        openskill rating ``mu`` with mu +- 1.96 sigma.  Overall: only the entrants ranked there
        (:meth:`apart` lists the others)."""
        board = self.boards.get(game or "overall")
        if board is None:
            return []
        games = set(board.games) if board.games else None
        faults: dict[str, int] = defaultdict(int)
        for m in self.logs.matches:
            if games is not None and m["game"] not in games:
                continue
            faulted = {f.get("seat") for f in m["faults"]}
            for seat, bot in enumerate(m["bots"]):
                faults[bot] += seat in faulted
        rows = []
        for i, e in enumerate(board.entrants, 1):
            rows.append({
                "rank": i, "bot": e.name, "matches": e.matches, "mean_place": e.mean_place,
                "mean_score": e.mean_score if game is not None else None,
                "score": e.score, "score_lo": e.score_lo, "score_hi": e.score_hi, "faults": faults[e.name],
                "strength": e.strength, "strength_lo": e.lo, "strength_hi": e.hi,
                "tied": bool(e.tied_with_next), "mu": e.mu, "sigma": e.sigma,
                "lo": e.mu - Z95 * e.sigma, "hi": e.mu + Z95 * e.sigma})
        return rows

    def board_note(self, game: str | None) -> tuple[str, list[dict[str, Any]], bool | None]:
        """What a board compares (one line), the entrants left out of it (overall) and, for a game,
        the direction of its score sheet (True: lower is better)."""
        board = self.boards.get(game or "overall")
        if board is None:
            return "", [], None
        return board.note, list(board.apart), board.lower_score_wins

    def head_to_head(self, game: str | None = None) -> list[dict[str, Any]]:
        """Both directions of every pair that met: the share of meetings in which ``a`` placed above
        ``b`` (ties half), its bootstrap interval, the number of meetings and whether the order is
        significant (the interval leaves out 0.5)."""
        board = self.boards.get(game or "overall")
        rows: list[dict[str, Any]] = []
        for h in board.h2h if board is not None else []:
            n = h.wins + h.losses + h.ties
            sig = bool(h.significant)
            rows.append({"a": h.a, "b": h.b, "share": h.score, "lo": h.lo, "hi": h.hi, "n": n,
                         "significant": sig})
            rows.append({"a": h.b, "b": h.a, "share": 1 - h.score, "lo": 1 - h.hi, "hi": 1 - h.lo, "n": n,
                         "significant": sig})
        return sorted(rows, key=lambda r: (r["a"], r["b"]))

    def convergence(self, game: str | None, points: int = 120) -> list[dict[str, Any]]:
        """Each entrant's openskill rating after each match it played, in the order the leaderboard
        rates them, thinned to about ``points`` per entrant; the last point is the leaderboard's."""
        if self._histories is None:
            self._histories = rating_histories(self.logs.matches)
        out: list[dict[str, Any]] = []
        for bot, series in self._histories.get(game or "overall", {}).items():
            step = max(1, math.ceil(len(series) / points))
            keep = series[::step]
            if keep[-1] is not series[-1]:
                keep.append(series[-1])
            for k, mu, sigma in keep:
                out.append({"bot": bot, "match": k, "mu": mu, "lo": mu - Z95 * sigma, "hi": mu + Z95 * sigma})
        return out

    # ------------------------------------------------------------------ faults
    def faults(self) -> list[dict[str, Any]]:
        """Every fault: bot, kind, reason, game, match, seat, ply."""
        rows = []
        for m in self.logs.matches:
            for f in m["faults"]:
                seat = f.get("seat")
                bot = (m["bots"][seat] if isinstance(seat, int) and 0 <= seat < len(m["bots"])
                       else "(engine)" if f.get("kind") == "error" else "?")
                rows.append({"bot": bot, "kind": f.get("kind") or "?", "reason": f.get("reason") or "",
                             "game": m["game"], "match_id": m["match_id"], "seat": seat, "ply": f.get("ply")})
        return rows

    # ------------------------------------------------------------------ coverage
    def coverage(self) -> list[dict[str, Any]]:
        """One row per (game, rule event): how often it fired and in how many matches (``coverage``);
        ``listed``: on the game's RULES.md card (an event that fired without being listed is shown too).
        Games the manifest names that have no match yet show their card's events, none fired."""
        from tournaments.analysis.coverage import card_events, coverage
        rows: list[dict[str, Any]] = []
        seen = set()
        for gc in coverage(self.logs.log):
            seen.add(gc.game)
            for listed, events in ((True, gc.events), (False, gc.extra)):
                rows += [{"game": gc.game, "event": e["event"], "count": e["fired"], "matches": e["matches"],
                          "listed": listed} for e in events]
        for g in self.logs.games():
            if g not in seen:
                rows += [{"game": g, "event": f"{g}.{n}", "count": 0, "matches": 0, "listed": True}
                         for n in card_events(g)[0]]
        for r in rows:
            r["short"] = r["event"].split(".", 1)[-1]
        return rows

    # ------------------------------------------------------------------ verification
    def verification(self) -> dict[str, Any]:
        """``cardarena verify``: every match replayed (each action legal, scores, ranking, deals and
        rule events as logged) and the invariant queries run over the logs."""
        from tournaments.analysis.verify import verify
        t0 = time.perf_counter()
        rep = verify(self.logs.root)
        return {"ran": True, "matches": rep.matches, "total": len(self.logs.matches), "moves": rep.moves,
                "queries": list(rep.queries), "unknown_games": list(rep.unknown_games),
                "seconds": time.perf_counter() - t0,
                "problems": [{"check": v.check, "game": v.game, "match_id": v.match_id, "detail": v.detail,
                              "replay": v.replay} for v in rep.violations]}


Series = list[tuple[int, float, float]]
"""``(k, mu, sigma)`` after each rated match."""


def rating_histories(matches: Sequence[dict[str, Any]]) -> dict[str, dict[str, Series]]:
    """Per scope (each game, and ``overall``) and entrant, ``(k, mu, sigma)`` after the k-th rated match
    of that scope in which the entrant played.

    The leaderboard's openskill (``tournaments.analysis.ratings``): per game, Plackett-Luce updates in
    ``match_id`` order with partners as one team (a unit: the labels of a team's seats, its best place);
    overall, each entrant's per-game ratings combined with equal weight (mean mu, sqrt(sum sigma^2) / k)
    after every match, in ``match_id`` order across games.  So each series ends at the leaderboard's
    rating (``test_convergence_ends_at_the_leaderboard_rating`` holds the two together).  One pass.
    """
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    per_game: dict[str, dict[str, Any]] = defaultdict(dict)
    hist: dict[str, dict[str, Series]] = defaultdict(lambda: defaultdict(list))
    done: Counter[str] = Counter()
    for k, m in enumerate(sorted(matches, key=lambda m: m["match_id"]), 1):
        game = m["game"]
        ratings = per_game[game]
        done[game] += 1
        us = _units(m["bots"], m["teams"], m["ranking"])
        teams = []
        for labels, _ in us:
            for lab in labels:
                if lab not in ratings:
                    ratings[lab] = model.rating(name=lab)
            teams.append([ratings[lab] for lab in labels])
        new = model.rate(teams, ranks=[float(p) for _, p in us])
        for (labels, _), team in zip(us, new, strict=True):
            for lab, r in zip(labels, team, strict=True):
                ratings[lab] = r
        for lab in dict.fromkeys(m["bots"]):
            r = ratings[lab]
            hist[game][lab].append((done[game], float(r.mu), float(r.sigma)))
            vals = [(float(g[lab].mu), float(g[lab].sigma)) for g in per_game.values() if lab in g]
            mu = sum(v[0] for v in vals) / len(vals)
            sigma = math.sqrt(sum(v[1] ** 2 for v in vals)) / len(vals)
            hist["overall"][lab].append((k, mu, sigma))
    return {scope: dict(h) for scope, h in hist.items()}


Unit = tuple[tuple[str, ...], int]
"""A competing unit of a match: the entrant labels of one side's seats, and its place."""


def _units(bots: Sequence[str], teams: Sequence[int], ranking: Sequence[int]) -> list[Unit]:
    """The competing units of a match, by place then labels: one per seat, or one per partnership."""
    out: list[Unit]
    if len(set(teams)) == len(teams):
        out = [((b,), r) for b, r in zip(bots, ranking, strict=True)]
    else:
        seats: dict[int, list[int]] = defaultdict(list)
        for s, t in enumerate(teams):
            seats[t].append(s)
        out = [(tuple(bots[s] for s in ss), min(ranking[s] for s in ss)) for ss in seats.values()]
    out.sort(key=lambda u: (u[1], u[0]))
    return out


# =============================================================================== the match viewer
def sample_matches(matches: Sequence[dict[str, Any]], n: int, include: Sequence[str] = ()
                   ) -> list[dict[str, Any]]:
    """Up to ``n`` matches for the viewer (plus every id in ``include``): faulted matches first (a
    quarter at most), then round-robin over games, each game's matches in a fixed pseudo-random order.
    ``n < 0`` takes every match."""
    by_id = {m["match_id"]: m for m in matches}
    missing = [i for i in include if i not in by_id]
    if missing:
        raise DashboardError(f"no match {missing[0]!r} in the logs (match ids are 16 hex digits; "
                             "see the viewer's list or `cardarena query`)")
    if n < 0:
        return list(matches)
    chosen: dict[str, dict[str, Any]] = {i: by_id[i] for i in include}
    rng = random.Random(0xDA5B)
    order = sorted(matches, key=lambda m: m["match_id"])
    rng.shuffle(order)
    faulted = [m for m in order if m["faults"]]
    for m in faulted[: max(1, n // 4) if n else 0]:
        if len(chosen) - len(include) >= n:
            break
        chosen.setdefault(m["match_id"], m)
    per_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in order:
        per_game[m["game"]].append(m)
    queues = [per_game[g] for g in _game_order(per_game)]
    while len(chosen) - len(include) < n and any(queues):
        for q in queues:
            while q and q[0]["match_id"] in chosen:
                q.pop(0)
            if q and len(chosen) - len(include) < n:
                m = q.pop(0)
                chosen[m["match_id"]] = m
    pos = {m["match_id"]: i for i, m in enumerate(matches)}
    return sorted(chosen.values(), key=lambda m: pos[m["match_id"]])


def _delta(prev: dict[str, Any], cur: dict[str, Any]) -> list[Any]:
    changed = {k: v for k, v in cur.items() if k not in prev or prev[k] != v}
    gone = [k for k in prev if k not in cur]
    return [changed, gone] if gone else [changed]


def replay_for_viewer(m: dict[str, Any], moves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Replay one match and record what each seat saw after every ply.

    ``frames[k]`` is the table after ``k`` moves as a delta on ``frames[k-1]``: ``c`` the keys of the
    observation that every seat shares, ``s`` each seat's own keys (``hand``, ``legal_actions``, ...).
    A rule event is attached to the frame in which it fired.
    """
    from engine import IllegalAction
    from engine.replay import replay, start
    try:
        state = start(m["game"], json.loads(m["options"]), m["seed"], m["players"], m["max_deals"])
    except ValueError as e:
        raise DashboardError(f"match {m['match_id']} cannot be replayed by this engine: {e}") from None
    n = state.players
    obs = [[state.observation(s) for s in range(n)]]
    ev_frames: list[list[Any]] = [[0, e] for e in state.events]
    error = None
    try:
        for k, step in enumerate(replay(state, [mv["action"] for mv in moves]), 1):
            obs.append([state.observation(s) for s in range(n)])
            ev_frames += [[k, e] for e in step.events]
    except IllegalAction as e:
        mv = moves[len(obs) - 1]
        error = f"the replay stops at ply {mv['ply']}: {mv['action']!r} is illegal: {e}"
    except Exception as e:  # an engine bug (a match logged with status "error"): show where it broke
        mv = moves[len(obs) - 1]
        error = f"the engine failed at ply {mv['ply']} ({mv['action']!r}): {type(e).__name__}: {e}"
    if error is None and len(obs) - 1 < len(moves):
        mv = moves[len(obs) - 1]
        error = (f"the replay stops at ply {mv['ply']}: the match is over, but {len(moves) - len(obs) + 1} "
                 "more moves are logged")
    keys: set[str] = set()
    for f in obs:
        for o in f:
            keys.update(o)
    common = {k for k in keys if all(all(o.get(k) == f[0].get(k) for o in f[1:]) for f in obs)}
    common.discard("seat")
    frames: list[dict[str, Any]] = []
    prev_c: dict[str, Any] = {}
    prev_s: list[dict[str, Any]] = [{} for _ in range(n)]
    for f in obs:
        c = {k: v for k, v in f[0].items() if k in common}
        ss = [{k: v for k, v in o.items() if k not in common} for o in f]
        frames.append({"c": _delta(prev_c, c), "s": [_delta(p, q) for p, q in zip(prev_s, ss, strict=True)]})
        prev_c, prev_s = c, ss
    body = {
        "moves": [[mv["seat"], mv["action"], mv["status"], mv["deal"]] for mv in moves[:len(obs) - 1]],
        "events": ev_frames, "frames": frames, "sheet": state.score_sheet(), "error": error,
    }
    raw = json.dumps(body, separators=(",", ":"), default=_jsonable).encode()
    return {
        "id": m["match_id"], "game": m["game"], "tournament": m["tournament"], "players": n,
        "bots": m["bots"], "teams": m["teams"], "scores": m["scores"], "ranking": m["ranking"],
        "status": m["status"], "faults": m["faults"], "deals": m["deals_played"], "nmoves": len(moves),
        "seed": m["seed"], "options": json.loads(m["options"]), "max_deals": m["max_deals"],
        "error": error, "z": base64.b64encode(zlib.compress(raw, 9)).decode("ascii"),
    }


def _jsonable(o: Any) -> Any:
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    return str(o)


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
    return json.dumps(obj, separators=(",", ":"), default=_jsonable).replace("<", "\\u003c")


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
        tied = ' <span class="tied" title="not significantly ahead of the next">~</span>' if r["tied"] else ""
        ci = ("-" if r["score_lo"] is None else f'{_num(r["score_lo"], 3)} … {_num(r["score_hi"], 3)}')
        cells = [str(r["rank"]), f'<span class="bot">{_e(r["bot"])}</span>'
                 + (f' <span class="opts">{_e(what)}</span>' if what else ""), _num(r["score"], 3) + tied,
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


def entrants(manifests: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Entrant label -> ``{"bot", "ref", "options", "games"}`` from the manifests: the spec's ``bots``
    entries (``{name, bot, options}``, the options as the spec gave them), the resolved bot refs
    (``bots``: label -> built-in name or ``NAME@VERSION``) and the games each entrant entered
    (``entrants``: game -> labels), where the manifest has them."""
    out: dict[str, dict[str, Any]] = {}
    for man in manifests:
        given = man.get("bots")
        refs: dict[str, Any] = given if isinstance(given, dict) else {}
        listed = man.get("spec", {}).get("bots")
        for b in listed if isinstance(listed, list) else []:
            if isinstance(b, dict) and isinstance(b.get("name"), str):
                opts = b.get("options")
                out[b["name"]] = {"bot": str(b.get("bot", b["name"])), "ref": str(refs.get(b["name"], "")),
                                  "options": dict(opts) if isinstance(opts, dict) else {}, "games": []}
        for label, ref in refs.items():
            out.setdefault(label, {"bot": str(ref), "ref": str(ref), "options": {}, "games": []})
        per_game = man.get("entrants")
        for game, labels in per_game.items() if isinstance(per_game, dict) else []:
            for label in labels if isinstance(labels, list) else []:
                if label in out and game not in out[label]["games"]:
                    out[label]["games"].append(game)
    return out


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


def fault_groups(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The faults grouped by bot, kind and normalised reason (:func:`bots.faults.normalise_reason`,
    shared with ``cardarena bots faults``), the biggest group first; each group with its count, the
    games and matches it hit and its first example (the first in the order the matches finished)."""
    return group_faults(rows)


def _faults_block(rows: Sequence[dict[str, Any]], charts: _Charts, nmatches: int,
                  viewer_ids: set[str]) -> str:
    why = ("No matches yet, so no faults." if nmatches == 0 else
           f"No bot faulted in {nmatches:,} matches: no timeouts, crashes, illegal moves or memory faults.")
    chart = charts.slot("faults", faults_chart(rows), why)
    if not rows:
        return chart
    groups = fault_groups(rows)
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
    for g in _game_order(by_game):
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


def _is_team_game(game: str) -> bool:
    from engine.core import GAMES, game_class
    return game in GAMES and game_class(game).teams


def _leaderboards_block(an: Analysis, logs: Logs, charts: _Charts) -> str:
    order = logs.games()
    games = sorted({m["game"] for m in logs.matches}, key=order.index)
    tabs: list[tuple[str, str | None]] = [("overall", None)] + [(g, g) for g in games]
    about = {label: e["bot"] + (f" · {options_text(e['options'])}" if e["options"] else "")
             for label, e in entrants(logs.manifests).items() if e["options"] or e["bot"] != label}
    buttons, panes = [], []
    for i, (label, game) in enumerate(tabs):
        rows = an.leaderboard(game)
        nm = sum(1 for m in logs.matches if game is None or m["game"] == game)
        what = "the tournament" if game is None else game
        if not rows:
            body = _nodata(f"No finished matches in {what}, so no leaderboard.")
        else:
            one = len(rows) == 1
            note, apart, lower = an.board_note(game)
            body = leaderboard_table(rows, per_game=game is not None, about=about, lower=lower)
            body += ('<p class="small">Score (the headline, as <code>cardarena tournament leaderboard</code> '
                     "and <code>cardarena rank</code> print it): the share of opponents placed below, ties "
                     "half (partnership: 1 win, 0 loss), with a 95% bootstrap interval over duplicate "
                     "boards; "
                     "<b>~</b>: not significantly ahead of the next entrant. "
                     + (_e(note) + ". " if note else "")
                     + "".join(f'Not ranked overall: <span class="bot">{_e(a["bot"])}</span> (entered only: '
                               f'{_e(", ".join(a["games"]))}). ' for a in apart)
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
        active = " active" if i == 0 else ""
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
    logs = read_logs(root)
    out = output_path(output, logs.root / "report.html")
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
        "COVERAGE": _coverage_block(an.coverage(), logs),
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
            or ", ".join(sorted({m["tournament"] for m in logs.matches})) or logs.root.name)
    fills = {
        "@@TITLE@@": _e(f"cardarena: {name}"),
        "@@GENERATED@@": _e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        "@@ROOT@@": _e(str(logs.root)),
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
    js = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    fills = {"/*@@CSS@@*/": (TEMPLATES / "report.css").read_text(encoding="utf-8"),
             "/*@@JS@@*/": js.replace("</script", "<\\/script"), **fills}
    page = re.sub(r"@@[A-Z_]+@@|/\*@@[A-Z]+@@\*/", lambda mt: fills.get(mt.group(0), mt.group(0)), page)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def find_match(logs: Logs, match_id: str) -> dict[str, Any]:
    """The logged match ``match_id`` (or the one match whose id starts with it, 6 digits or more);
    :class:`DashboardError` naming what was wrong otherwise."""
    exact = [m for m in logs.matches if m["match_id"] == match_id]
    if exact:
        return exact[0]
    near = [m for m in logs.matches if len(match_id) >= 6 and m["match_id"].startswith(match_id)]
    if len(near) == 1:
        return near[0]
    if len(near) > 1:
        more = ", ..." if len(near) > 5 else ""
        raise DashboardError(f"match id {match_id!r} is ambiguous in {logs.root}: "
                             f"{', '.join(m['match_id'] for m in near[:5])}{more}")
    raise DashboardError(f"no match {match_id!r} in {logs.root} ({len(logs.matches):,} matches; match ids "
                         "are 16 hex digits, as `cardarena query` prints them)")


def build_match_page(root: str | Path, match_id: str, output: str | Path | None = None
                     ) -> tuple[Path, dict[str, Any]]:
    """Write the match viewer for one logged match (``cardarena show DIR MATCH_ID``): the report's
    viewer, self-contained, for that match alone.  Default file: ``DIR/match-<ID>.html``."""
    t0 = time.perf_counter()
    logs = read_logs(root)
    m = find_match(logs, match_id)
    out = output_path(output, logs.root / f"match-{m['match_id']}.html")
    from engine import GAMES
    if m["game"] not in GAMES:
        raise DashboardError(f"match {m['match_id']} is a game of {m['game']!r}, which this engine does not "
                             "know")
    vm = replay_for_viewer(m, logs.moves_of([m["match_id"]])[m["match_id"]])
    fills = {
        "@@TITLE@@": _e(f"cardarena: {m['game']} match {m['match_id']}"),
        "@@GENERATED@@": _e(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        "@@ROOT@@": _e(str(logs.root)),
        "@@VIEWER_NOTE@@": (f"Tournament {_e(m['tournament'])} · {_e(m['game'])} · status {_e(m['status'])}"
                            + (f" · {len(m['faults'])} fault(s): <b>⚠ fault</b> goes to the move"
                               if m["faults"] else "")),
        "@@MATCHES_JSON@@": _json_script([vm]),
    }
    _write_page(out, "match.html", fills)
    return out, {"path": str(out), "bytes": out.stat().st_size, "match_id": m["match_id"], "game": m["game"],
                 "moves": vm["nmoves"], "faults": len(m["faults"]), "replay_error": vm["error"],
                 "seconds": round(time.perf_counter() - t0, 2)}
