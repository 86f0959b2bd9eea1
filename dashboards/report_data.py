"""The data of the tournament report, assembled from the analysis package: the HTML is
:mod:`dashboards.report`'s.

:func:`read_logs` opens a tournament directory through :class:`tournaments.analysis.views.TournamentLog`
(the one reader of the log with SQL: :meth:`Logs.rows` runs its queries there) and keeps its manifests,
matches and counts; :class:`Analysis` takes the numbers from ``tournaments.analysis`` (the leaderboards,
head-to-head and rating convergence of ``ratings``, verification, rule coverage) as plain rows;
:func:`sample_matches` picks the viewer's matches and :func:`replay_for_viewer` replays one
(:func:`engine.replay.replay`) recording what every seat saw after every ply.  Nothing here reads a
Parquet file or computes a rating itself.
"""
from __future__ import annotations

import base64
import json
import math
import random
import time
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tournaments.ladder.state import Change, Version

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

    @property
    def where(self) -> str:
        """The log as its user named it: the directory, or the object store's URI (read in place)."""
        return str(self.log.location)

    @property
    def in_store(self) -> bool:
        """Whether the log is in an object store (``root`` is then the store's path, not a folder here)."""
        return self.log.uri is not None

    def games(self) -> list[str]:
        """The games of the tournament: those with matches, and those its manifests name."""
        seen = {m["game"] for m in self.matches}
        for man in self.manifests:
            for games in (man.get("games"), man.get("spec", {}).get("games")):
                for g in games if isinstance(games, list) else []:
                    gid = g.get("id") if isinstance(g, dict) else g
                    if isinstance(gid, str):
                        seen.add(gid)
        return game_order(seen)

    def rows(self, query: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        """Rows of a DuckDB query over the views ``matches``, ``moves`` and ``events``
        (:meth:`tournaments.analysis.views.TournamentLog.rows`)."""
        from tournaments.analysis.views import LogError
        try:
            rows: list[dict[str, Any]] = self.log.rows(query, params)
        except LogError as e:
            raise DashboardError(f"cannot read the logs under {self.where}: {e}") from None
        return rows

    def moves_of(self, match_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """The moves of these matches, in ply order."""
        out: dict[str, list[dict[str, Any]]] = {m: [] for m in match_ids}
        if match_ids:
            q = ("SELECT match_id, ply, deal, seat, action, status FROM moves "
                 "WHERE match_id IN (SELECT unnest(?)) ORDER BY match_id, ply")
            for r in self.rows(q, [list(match_ids)]):
                out[r["match_id"]].append(r)
        return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def game_order(ids: Iterable[str]) -> list[str]:
    from engine.core import RULES_ORDER
    order = {g: i for i, g in enumerate(RULES_ORDER)}
    return sorted(set(ids), key=lambda g: (order.get(g, len(order)), g))


def read_logs(root: str | Path, digests: bool = True) -> Logs:
    """Open a tournament directory (``data/README.md``); :class:`DashboardError` if it is none or a
    part file is missing or unreadable, a match is in two batches, or (``digests``) a part is not the
    bytes its batch committed (the message names the file)."""
    from tournaments.analysis.views import LogError, open_log
    from tournaments.store import StoreError
    try:
        log = open_log(root, digests=digests)
    except LogError as e:
        raise DashboardError(str(e)) from None
    root = log.root   # a store's path for a log read in place (log.files reads it)
    manifests: list[dict[str, Any]] = []
    from tournaments.paths import manifests as manifest_files
    try:
        for p in manifest_files(root, log.reader):
            try:
                manifests.append(json.loads(log.reader.read_text(p)))
            except (OSError, json.JSONDecodeError) as e:
                raise DashboardError(f"{log.reader.shown(str(p))}: unreadable manifest ({e})") from None
    except StoreError as e:
        raise DashboardError(str(e)) from None
    logs = Logs(root, log, manifests, [], {}, 0, 0)
    logs.matches = logs.rows("SELECT * REPLACE (epoch_ms(finished_at) AS finished_at) FROM matches "
                            "ORDER BY finished_at, match_id")
    for m in logs.matches:
        m["faults"] = [dict(f) for f in m.get("faults") or []]
    logs.moves_total = int(logs.rows("SELECT count(*) AS n FROM moves")[0]["n"])
    for r in logs.rows("SELECT game, event, count(*) AS n FROM events GROUP BY ALL"):
        logs.event_counts[(r["game"], r["event"])] = int(r["n"])
    logs.events_total = sum(logs.event_counts.values())
    return logs


# =============================================================================== the analysis seam
class Analysis:
    """The numbers of the report, as plain rows (lists of dicts), from the analysis package
    (``tournaments.analysis``): leaderboards and head-to-head (``ratings.rank``), verification
    (``verify.verify``), rule coverage and how the ratings converged (``ratings.openskill_histories``);
    the fault rows are the logged matches' own."""

    def __init__(self, logs: Logs, bootstrap: int = 200) -> None:
        from tournaments.analysis import ratings
        self.logs = logs
        self._histories: dict[str, dict[str, list[tuple[int, float, float]]]] | None = None
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
        from tournaments.analysis.leaderboard import rank_labels
        ranks = rank_labels([(e.score_lo, e.score_hi) for e in board.entrants])
        for i, e in enumerate(board.entrants):
            rows.append({
                "rank": ranks[i], "bot": e.name, "matches": e.matches, "mean_place": e.mean_place,
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
            from tournaments.analysis import ratings
            self._histories = ratings.openskill_histories(ratings.load_matches(self.logs.log))
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

    # ------------------------------------------------------------------ entrants
    def entrants(self) -> list[dict[str, Any]]:
        """One page of data per entrant (label), in name order: its games (the game board's score,
        95% interval, rank label and field size), matches, faults, think time per game (moves the bot
        chose itself, status ``ok``: median, 95th percentile and maximum), time-bank use (per
        match and seat, the time over the per-move limit ``move_s`` as a share of the bank ``bank_s``
        of the tournament's limits) and its share of placings above each opponent it met (every
        game, ties half, partners not opponents; not in a match a person played, which is never
        ranked)."""
        from tournaments.analysis.leaderboard import rank_labels, ranked_match
        labels = sorted({b for m in self.logs.matches for b in m["bots"]})
        out: dict[str, dict[str, Any]] = {b: {"bot": b, "games": [], "matches": 0, "faults": [],
                                             "think": [], "bank": None, "opponents": []} for b in labels}
        for g, board in sorted(self.boards.items()):
            if board.scope != g or g == "overall":
                continue
            ranks = rank_labels([(e.score_lo, e.score_hi) for e in board.entrants])
            for e, rk in zip(board.entrants, ranks, strict=True):
                if e.name in out:
                    out[e.name]["games"].append({"game": g, "score": e.score, "lo": e.score_lo,
                                                 "hi": e.score_hi, "rank": rk, "field": len(board.entrants),
                                                 "matches": e.matches})
        pair: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
        for m in self.logs.matches:
            bots, teams, ranking = m["bots"], m["teams"], m["ranking"]
            for b in set(bots):
                out[b]["matches"] += 1
            if not ranked_match(m.get("bot_refs")):   # a match a person played: no share against anyone
                continue
            for i, a in enumerate(bots):
                for j, b in enumerate(bots):
                    if teams[i] != teams[j] and a != b:
                        cell = pair[(a, b)]
                        ri, rj = ranking[i], ranking[j]
                        cell[0] += 1.0 if ri < rj else 0.5 if ri == rj else 0.0
                        cell[1] += 1
        for (a, b), (won, n) in sorted(pair.items()):
            out[a]["opponents"].append({"opponent": b, "share": won / n, "n": int(n)})
        for f in self.faults():
            if f["bot"] in out:
                out[f["bot"]]["faults"].append(f)
        for r in self.logs.rows(
                "SELECT bot, game, count(*) AS moves, median(think_us) AS med, "
                "quantile_cont(think_us, 0.95) AS p95, max(think_us) AS mx FROM moves "
                "WHERE status = 'ok' GROUP BY bot, game ORDER BY bot, game"):
            if r["bot"] in out:
                out[r["bot"]]["think"].append({"game": r["game"], "moves": int(r["moves"]),
                                               "median_ms": float(r["med"]) / 1000,
                                               "p95_ms": float(r["p95"]) / 1000,
                                               "max_ms": float(r["mx"]) / 1000})
        bank: dict[str, list[float]] = defaultdict(list)
        for tid, (move_s, bank_s) in self._limits().items():
            for r in self.logs.rows(
                    "SELECT bot, sum(greatest(think_us - ?, 0)) AS over FROM moves WHERE tournament = ? "
                    "GROUP BY bot, match_id, seat", [int(move_s * 1e6), tid]):
                bank[r["bot"]].append(float(r["over"]) / (bank_s * 1e6))
        for b, shares in bank.items():
            if b in out and shares:
                shares.sort()
                out[b]["bank"] = {"seats": len(shares), "drew": sum(1 for x in shares if x > 0),
                                  "median": shares[len(shares) // 2], "max": shares[-1]}
        return list(out.values())

    def _limits(self) -> dict[str, tuple[float, float]]:
        """Each tournament's per-move limit and time bank, seconds (its manifest's spec)."""
        out = {}
        for man in self.logs.manifests:
            lim = (man.get("spec") or {}).get("limits") or {}
            move_s, bank_s = lim.get("move_s"), lim.get("bank_s")
            if isinstance(man.get("tournament"), str) and isinstance(move_s, int | float) \
                    and isinstance(bank_s, int | float) and bank_s > 0:
                out[man["tournament"]] = (float(move_s), float(bank_s))
        return out

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
        rep = verify(self.logs.where)
        return {"ran": True, "matches": rep.matches, "total": len(self.logs.matches), "moves": rep.moves,
                "queries": list(rep.queries), "unknown_games": list(rep.unknown_games),
                "seconds": time.perf_counter() - t0,
                "problems": [{"check": v.check, "game": v.game, "match_id": v.match_id, "detail": v.detail,
                              "replay": v.replay} for v in rep.violations]}


# =============================================================================== the match viewer
def sample_matches(matches: Sequence[dict[str, Any]], n: int, include: Sequence[str] = ()
                   ) -> list[dict[str, Any]]:
    """Up to ``n`` matches for the viewer (plus every id in ``include``), in the viewer's order: the
    asked ids, then faulted matches (a quarter of ``n`` at most, at least one; first one faulted match
    of every entrant that faulted, then more), then matches that bring every game and every entrant
    in (each pick the match that adds the most not yet shown), then round-robin over games.  Within a
    game the matches go in a fixed pseudo-random order.  ``n < 0`` takes every match, faulted first."""
    by_id = {m["match_id"]: m for m in matches}
    missing = [i for i in include if i not in by_id]
    if missing:
        raise DashboardError(f"no match {missing[0]!r} in the logs (match ids are 16 hex digits; "
                             "see the viewer's list or `cardarena query`)")
    rng = random.Random(0xDA5B)
    order = sorted(matches, key=lambda m: m["match_id"])
    rng.shuffle(order)
    faulted = [m for m in order if m["faults"]]
    if n < 0:
        return faulted + [m for m in order if not m["faults"]]
    chosen: dict[str, dict[str, Any]] = {i: by_id[i] for i in include}

    def room() -> bool:
        return len(chosen) - len(include) < n

    def faulting(m: dict[str, Any]) -> set[str]:
        return {m["bots"][f["seat"]] for f in m["faults"]
                if isinstance(f.get("seat"), int) and 0 <= f["seat"] < len(m["bots"])}

    budget = len(chosen) + (max(1, n // 4) if n else 0)
    shown_faults: set[str] = set()
    for m in faulted:   # one faulted match of every entrant that faulted, while the budget lasts
        if len(chosen) >= budget or not room():
            break
        if faulting(m) - shown_faults and m["match_id"] not in chosen:
            chosen[m["match_id"]] = m
            shown_faults |= faulting(m)
    for m in faulted:
        if len(chosen) >= budget or not room():
            break
        chosen.setdefault(m["match_id"], m)
    per_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in order:
        per_game[m["game"]].append(m)
    games_left = set(per_game) - {m["game"] for m in chosen.values()}
    bots_left = {b for m in order for b in m["bots"]} - {b for m in chosen.values() for b in m["bots"]}
    while room() and (games_left or bots_left):
        pool = [m for m in order if m["match_id"] not in chosen
                and (m["game"] in games_left or bots_left & set(m["bots"]))]
        if not pool:
            break
        m = max(pool, key=lambda m: (m["game"] in games_left, len(bots_left & set(m["bots"]))))
        chosen[m["match_id"]] = m
        games_left.discard(m["game"])
        bots_left -= set(m["bots"])
    queues = [per_game[g] for g in game_order(per_game)]
    while room() and any(queues):
        for q in queues:
            while q and q[0]["match_id"] in chosen:
                q.pop(0)
            if q and room():
                m = q.pop(0)
                chosen[m["match_id"]] = m
    return list(chosen.values())


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
    raw = json.dumps(body, separators=(",", ":"), default=jsonable).encode()
    return {
        "id": m["match_id"], "game": m["game"], "tournament": m["tournament"], "players": n,
        "bots": m["bots"], "teams": m["teams"], "scores": m["scores"], "ranking": m["ranking"],
        "status": m["status"], "faults": m["faults"], "deals": m["deals_played"], "nmoves": len(moves),
        "seed": m["seed"], "options": json.loads(m["options"]), "max_deals": m["max_deals"],
        "error": error, "z": base64.b64encode(zlib.compress(raw, 9)).decode("ascii"),
    }


def jsonable(o: Any) -> Any:
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    return str(o)


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
        raise DashboardError(f"match id {match_id!r} is ambiguous in {logs.where}: "
                             f"{', '.join(m['match_id'] for m in near[:5])}{more}")
    raise DashboardError(f"no match {match_id!r} in {logs.where} ({len(logs.matches):,} matches; match ids "
                         "are 16 hex digits, as `cardarena query` prints them)")


@dataclass
class Ladder:
    """What the ladder page shows of a ``cardarena ladder`` directory (its own tables and state)."""

    name: str
    board: list[dict[str, Any]]
    """The overall board's rows of every snapshot (entrants with a version ref)."""
    history: list[dict[str, Any]]
    """Per board row: snapshot time, version, strength with its 95% interval, rank and groups."""
    online: list[dict[str, Any]]
    """Each online update in order: version, game, mu and mu +- 2 sigma after it."""
    changes: list[Change]
    """The versions' state changes."""
    versions: list[Version]


def read_ladder(root: Path) -> Ladder | None:
    """The ladder of directory ``root`` (None for a tournament: no ``_ladder/ladder.json``)."""
    if not (root / "_ladder" / "ladder.json").is_file():
        return None
    from tournaments.ladder import tables
    from tournaments.ladder.core import load_spec
    from tournaments.ladder.state import LadderStore

    spec = load_spec(root)
    store = LadderStore(root)
    board = [r for r in tables.read(root, "board", spec.name) if r["scope"] == "overall" and r["ref"]]
    hist = [{"at": r["at"].isoformat(), "ref": r["ref"], "strength": r["strength"], "lo95": r["lo95"],
             "hi95": r["hi95"], "rank": r["rank"], "groups": r["groups"]} for r in board]
    online = [{"seq": r["seq"], "ref": r["ref"], "game": r["game"], "mu": r["mu_after"],
               "lo": r["mu_after"] - 2 * r["sigma_after"], "hi": r["mu_after"] + 2 * r["sigma_after"]}
              for r in sorted(tables.read(root, "ratings_online", spec.name), key=lambda r: r["seq"])]
    return Ladder(spec.name, board, hist, online, store.changes(), store.versions())
