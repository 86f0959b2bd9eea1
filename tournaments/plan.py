"""``cardarena tournament plan SPEC``: the schedule a spec would play, without playing it.

:func:`plan_report` takes the schedule :func:`tournaments.schedule.plan` makes for ``tournament run``
(the same entrants per game, from ``tournaments.runners.resolve_bots``) and reports, per game, its
size (seatings, rotations, boards, matches) and how evenly the entrants meet, per entrant its
appearances and meetings (who meets whom in how many matches), a digest of the match ids (the same
as the sorted ids of the logs a run writes), and an estimated time from the per-game costs in
:mod:`tournaments.costs` (measured by ``bench/game_costs.py``).

The estimate is engine and random-bot play plus the logging cost per move (bench/README.md): CPU
seconds ``matches x deals x (seconds per deal + actions per deal x logging per move)``, plus the
thinking of the built-in bots (greedy, ismcts at its iterations) and the sandbox's round trip for
every sandboxed seat's move, per move of each seat (:func:`think_per_move`), divided by the CPUs.
A submitted bot's own thinking is not known; the report names those bots and gives the bound where
every move uses the whole move limit.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import os
from collections import Counter, defaultdict
from typing import Any

from rich.console import Console

from engine import game_class
from tournaments.analysis.tables import PlainTable as Table
from tournaments.analysis.tables import styled
from tournaments.costs import COSTS, MEASURED
from tournaments.runners.driver import choose_executor
from tournaments.schedule import GamePlan, least_spread, match_id, plan, secret_from_seed
from tournaments.spec import Entrant, Spec

LOG_S_PER_MOVE = 5.78e-6
"""Arrow + Parquet logging per move (bench/README.md, tournament.py)."""
RAY_START_S = (3, 11)
"""Ray's start-up, seconds (bench/README.md)."""
LOCAL_START_S = (1, 2)
"""The local pool's start-up (its worker processes import the engine), seconds (bench/README.md)."""
MATCH_OVERHEAD_S = 1.5e-3
"""CPU per match outside the engine and the moves' logging: the bots' set-up, the match record, the
batch's parts; (3.95 s CPU measured - 2.84 s estimated) / 720 matches of the demo with four random
bots on the local pool (bench/README.md, "plan's estimate")."""
RANDOM_SPEED = frozenset({"random"})
"""The built-in bots whose moves cost what the cost table measured (the seeded random bot)."""
MODELLED = frozenset({"random", "greedy", "ismcts"})
"""The built-in bots whose thinking the cost table measures (bench/game_costs.py)."""
SANDBOX_S_PER_MOVE = 42.8e-6
"""CPU a move costs through the sandbox, match process and bot together (bench/README.md, sandbox.py:
pinned, msgspec); added for every sandboxed seat's move."""


def think_per_move(entrant: Entrant, game: str, sandboxed: bool) -> float:
    """CPU seconds ``entrant`` adds per move of its own in ``game`` beyond a random move (the cost
    table's ``greedy_s_per_move``, ``ismcts_s_per_move + iterations x ismcts_s_per_iteration``, its
    ``time_limit`` capping it), plus the sandbox's round trip when it runs sandboxed.  A submitted
    bot's own thinking is not known: 0 here (the plan names it)."""
    c = COSTS[game]
    extra = 0.0
    if entrant.bot == "greedy":
        extra = c.get("greedy_s_per_move", 0.0)
    elif entrant.bot == "ismcts":
        from bots.builtin._common import family
        from bots.builtin.ismcts import Bot as Ismcts
        its = entrant.options.get("iterations") or (
            Ismcts.shed_iterations if family(game) in ("shedding", "rummy") else Ismcts.iterations)
        extra = c.get("ismcts_s_per_move", 0.0) + float(its) * c.get("ismcts_s_per_iteration", 0.0)
        limit = entrant.options.get("time_limit")
        if isinstance(limit, int | float):
            extra = min(extra, float(limit))
    return extra + (SANDBOX_S_PER_MOVE if sandboxed else 0.0)


def sandboxed(entrant: Entrant, spec: Spec) -> bool:
    """Whether ``entrant`` plays in the sandbox: a submitted bot always, a built-in with
    ``limits.sandbox_builtins``."""
    from bots.api import BUILTIN
    return entrant.bot not in BUILTIN or spec.limits.sandbox_builtins


def deals_per_match(game: str, max_deals: int | None) -> float:
    """The deals a match of ``game`` lasts: its ``max_deals``, or what a whole random match lasts."""
    whole = COSTS[game]["deals_per_match"]
    return whole if max_deals is None else min(float(max_deals), whole)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _pair_counts(counts: Counter[tuple[str, str]], pairs: int) -> dict[int, int]:
    """How many of the ``pairs`` entrant pairs (all of them, ``counts`` holding those above 0) have
    each count: ``Counter(counts[p] for p in every pair)`` without listing every pair."""
    hist = Counter(c for c in counts.values() if c)
    never = pairs - sum(hist.values())
    if never:
        hist[0] = never
    return dict(hist)


def _game_report(gp: GamePlan, spec: Spec, ents: list[str]) -> tuple[dict[str, Any], Counter[tuple[str, str]],
                                                                    list[str]]:
    g = gp.game
    teams = game_class(g.id).teams
    per_table = g.players * gp.boards            # matches each seating plays
    meet: Counter[tuple[str, str]] = Counter()
    partners: Counter[tuple[str, str]] = Counter()
    appear: Counter[str] = Counter()
    ids: list[str] = []
    for arr in gp.arrangements:
        appear.update(arr)
        for a, b in itertools.combinations(arr, 2):
            meet[_pair(a, b)] += 1
        if teams:
            partners[_pair(arr[0], arr[2])] += 1
            partners[_pair(arr[1], arr[3])] += 1
        ids.extend(match_id(gp.seed, g.id, arr, r, b) for b in range(gp.boards) for r in range(g.players))
    pairs = math.comb(len(ents), 2)
    hist = _pair_counts(meet, pairs)
    cost = COSTS[g.id]
    deals = deals_per_match(g.id, g.max_deals)
    by_label = {e.label: e for e in spec.bots}
    per_move = {e: think_per_move(by_label[e], g.id, sandboxed(by_label[e], spec)) for e in ents}
    # a deal lasts as long as random play makes it, or, with a player that goes out (any seat not the
    # random bot), as long as the cost table's deals with greedy in one seat; every seat plays about
    # 1/players of a deal's actions, in every rotation and on every board
    cpu = think = moves = 0.0
    per_action = cost["seconds_per_deal"] / cost["actions_per_deal"] + LOG_S_PER_MOVE
    for arr in gp.arrangements:
        skilled = any(by_label[e].bot not in RANDOM_SPEED for e in arr)
        length = cost.get("skilled_actions_per_deal", cost["actions_per_deal"]) if skilled \
            else cost["actions_per_deal"]
        n = g.players * gp.boards * deals * length           # the arrangement's actions, all rotations
        moves += n
        cpu += n * per_action
        think += n / g.players * sum(per_move[e] for e in arr)
    cpu += gp.total * MATCH_OVERHEAD_S
    report: dict[str, Any] = {
        "game": g.id, "players": g.players, "teams": teams, "entrants": len(ents),
        "seatings": len(gp.arrangements), "rotations": g.players, "boards": gp.boards, "matches": gp.total,
        "deals_per_match": round(deals, 2), "cpu_seconds": round(cpu + think, 3),
        "thinking_cpu_seconds": round(think, 3),
        "moves": round(moves),
        "meetings": {"min": min(hist), "max": max(hist), "never": hist.get(0, 0), "pairs": pairs,
                     "histogram": {str(c): n for c, n in sorted(hist.items())},
                     "least_spread": least_spread(len(ents), g.players, [appear[e] for e in ents])},
        "appearances": {"min": min(appear[e] for e in ents), "max": max(appear[e] for e in ents)},
    }
    if teams:
        pc = _pair_counts(partners, pairs)
        report["partners"] = {"min": min(pc), "max": max(pc)}
    together = Counter({p: c * per_table for p, c in meet.items()})
    return report, together, ids


def plan_report(spec: Spec, entrants_by_game: dict[str, list[str]], cpus: int | None = None
                ) -> dict[str, Any]:
    """What ``tournament run`` would play for ``spec`` (module doc); ``cpus`` default: the spec's
    ``run.num_cpus``, else this machine's."""
    labels = [e.label for e in spec.bots]
    plans = plan(spec, entrants_by_game, secret_from_seed(spec.seed))   # ids do not depend on the secret
    games: list[dict[str, Any]] = []
    together: Counter[tuple[str, str]] = Counter()
    matches: dict[str, dict[str, int]] = defaultdict(dict)
    seatings: Counter[str] = Counter()
    ids: list[str] = []
    for gp in plans:
        ents = entrants_by_game.get(gp.game.id, labels)
        rep, tog, gids = _game_report(gp, spec, ents)
        games.append(rep)
        together.update(tog)
        ids.extend(gids)
        for arr in gp.arrangements:
            for e in arr:
                seatings[e] += 1
                matches[e][gp.game.id] = matches[e].get(gp.game.id, 0) + gp.game.players * gp.boards
    met_by = {e: dict.fromkeys(labels, 0) for e in labels}   # every other entrant, in spec order
    for (a, b), c in together.items():
        if a in met_by and b in met_by:
            met_by[a][b] = met_by[b][a] = c
    for e in labels:
        del met_by[e][e]
    entrants = []
    for e in labels:
        met = met_by[e]
        entrants.append({"entrant": e, "bot": next(b.bot for b in spec.bots if b.label == e),
                         "matches": sum(matches[e].values()), "seatings": seatings[e], "games": matches[e],
                         "met": sum(1 for v in met.values() if v), "meetings": met})
    n_cpus = cpus or spec.num_cpus or os.cpu_count() or 1
    runner = choose_executor("auto", spec.address, spec.num_cpus)
    thinking = sorted({e.bot for e in spec.bots} - MODELLED)
    cpu = sum(g["cpu_seconds"] for g in games)
    think = sum(g["thinking_cpu_seconds"] for g in games)
    moves = sum(g["moves"] for g in games)
    return {
        "tournament": spec.name, "seed": spec.seed, "schedule": spec.schedule, "seatings": spec.seatings,
        "boards": spec.matches_per_seating, "total_matches": sum(g["matches"] for g in games),
        "match_ids_sha256": ids_digest(ids),
        "games": games, "entrants": entrants,
        "estimate": {"cpu_seconds": round(cpu, 3), "thinking_cpu_seconds": round(think, 3),
                     "cpus": n_cpus, "seconds": round(cpu / n_cpus, 3),
                     "runner": runner, "start_s": list(RAY_START_S if runner == "ray" else LOCAL_START_S),
                     "ray_start_s": list(RAY_START_S), "moves": moves, "thinking_bots": thinking,
                     "move_limit_bound_s": round(moves * spec.limits.move_s / n_cpus, 1),
                     "costs_measured": MEASURED},
    }


def ids_digest(match_ids: list[str]) -> str:
    """The digest of a set of match ids, as ``match_ids_sha256`` (sorted, one a line)."""
    return hashlib.sha256("\n".join(sorted(match_ids)).encode()).hexdigest()


def duration(seconds: float) -> str:
    """``42 s``, ``3.5 min``, ``2.1 h``, ``3.0 days``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def print_plan(r: dict[str, Any], out: Console) -> None:
    """The report as text: fits 80 columns (``--json`` has every pair's meetings)."""
    mode = (f"sampled, {r['seatings']} seatings per game" if r["schedule"] == "sampled"
            else "full: every seating")
    out.print(styled((r["tournament"], "bold"), f": {len(r['games'])} games, {len(r['entrants'])} entrants, "
                     f"{mode}, {r['boards']} board(s): {r['total_matches']:,} matches"))
    t = Table("game", "seats", "seatings", "rot.", "boards", "matches", "deals", "CPU", title="schedule")
    for g in r["games"]:
        t.add_row(g["game"], str(g["players"]), f"{g['seatings']:,}", str(g["rotations"]), str(g["boards"]),
                  f"{g['matches']:,}", f"{g['deals_per_match']:g}", duration(g["cpu_seconds"]))
    out.print(t)
    t = Table("game", "pairs", "together", "never", "best", "partners",
              title="meetings: seatings a pair shares")
    for g in r["games"]:
        m = g["meetings"]
        p = g.get("partners")
        t.add_row(g["game"], str(m["pairs"]), f"{m['min']}-{m['max']}", str(m["never"]),
                  f"{m['least_spread']}" + ("+" if m["least_spread"] == 2 else ""),
                  f"{p['min']}-{p['max']}" if p else "-")
    out.print(t)
    out.print("together: the fewest and most seatings two entrants share (each seating plays every "
              "rotation on every board); best: the least spread max - min the appearances allow",
              markup=False)
    t = Table("entrant", "matches", "seatings", "met", "matches together", title="entrants")
    others = len(r["entrants"]) - 1
    for e in r["entrants"]:
        vals = list(e["meetings"].values()) or [0]
        t.add_row(e["entrant"], f"{e['matches']:,}", f"{e['seatings']:,}", f"{e['met']} of {others}",
                  f"{min(vals):,}-{max(vals):,}")
    out.print(t)
    est = r["estimate"]
    lo, hi = est["start_s"]
    runner = ("Ray (a cluster, or more CPUs than this machine has)" if est["runner"] == "ray"
              else "the local pool of processes")
    thinking = est["thinking_bots"]
    out.print(f"estimate, on {runner}: {duration(est['cpu_seconds'])} of CPU (the engine, logging and "
              f"per-match overhead, and {duration(est['thinking_cpu_seconds'])} of the built-in bots' "
              "thinking and the sandbox's round trips, from bench/game_costs.py); on "
              f"{est['cpus']} CPUs of an idle machine about {duration(est['seconds'])} plus its start-up "
              f"({lo}-{hi} s). "
              + (f"Not counted: the thinking of the submitted bots {', '.join(thinking)} (only their "
                 "sandbox round trips are); " if thinking else "")
              + f"at most {duration(est['move_limit_bound_s'])} if each of the {est['moves']:,} moves used "
              f"its whole move limit. (Costs measured {est['costs_measured']}, bench/game_costs.py.)",
              markup=False)
