"""How well the ladder ranks: its scheduler and rating loop against a synthetic outcome model.

The same code as ``ladder run`` and ``ladder close`` (tournaments/ladder: the matchmaker's seeding and
tables, the openskill online layer, the board's Plackett-Luce batch fit with its group bootstrap, the
settlement's stages and stop rule) drives groups whose outcomes are drawn here instead of played:
each rotation of a group ranks its four seats by a Plackett-Luce draw (Gumbel noise) on the versions'
true log-strengths, and a group's units are ranked by their summed placement, as in a real ladder.

Measured over ``--seeds`` seeds with ``--versions`` versions (two per author, so the one-version-per-
author rule binds), strengths drawn from N(0, 1):

1. **Accuracy against a long round robin**: a balanced round robin of ``--rr`` groups (every version
   as often, pair meetings as even as the sampled schedule allows) is fitted; the ladder, given 25% of
   those groups, is fitted too.  Kendall tau between the two boards, overall and within the round
   robin's top 8; and within the true top 8 against the true strengths, for the ladder and for the
   round robin itself (how noisy the reference is at the top).  ``--rr-long N`` repeats it against a
   longer reference; ``--top K:W:P`` sets the matchmaker's top weighting (``8:0:0``: none).
2. **Groups needed for tau >= 0.9** (ladder board against the round robin's) for the information-
   based matchmaker, a rating-window baseline and uniform pairing.
3. **Coverage**: the share of the ladder board's 95% intervals that hold the true (centred) strength.
4. **Fairness**: the longest wait between two groups of a version (in groups, against the configured
   starvation time) and the Gini coefficient of groups per version.
5. **Settlement accuracy against the gap**: a settlement (stage 1 on the balanced sampled schedule,
   stage 2 on the top K, the stop rule P(first > second) >= 0.95 with disjoint top-3 rank intervals,
   or the budget) of 12 versions whose best two differ by ``delta``: how often it names the true first
   (alone), declares a shared first, or names a false winner.

    python bench/ladder.py                 # the figures of bench/README.md (about 10 minutes)
    python bench/ladder.py --seeds 3 --quick
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

HERE = Path(__file__).resolve().parent
# `python bench/ladder.py` puts bench/ first on sys.path, where bench/bots.py would shadow the bots package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from tournaments.analysis.ratings import MatchRec  # noqa: E402
from tournaments.ladder.board import Fit, fit, shared_places  # noqa: E402
from tournaments.ladder.matchmaking import (  # noqa: E402
    Entry,
    Params,
    choose_table,
    focus,
    pick_seed,
    table_key,
    top_relevance,
)
from tournaments.ladder.online import OnlineRatings, Outcome, group_outcome  # noqa: E402
from tournaments.ladder.online import Params as OnlineParams  # noqa: E402
from tournaments.ladder.settle import decided, look_confidence, stage1_tables, stage2_round  # noqa: E402
from tournaments.schedule import sampled_arrangements  # noqa: E402

GAME = "synthetic"
PLAYERS = 4
GAMES = {GAME: (PLAYERS, False)}


def play_group(gid: str, arrangement: Sequence[str], strength: dict[str, float], rng: np.random.Generator
               ) -> list[MatchRec]:
    """Every rotation of ``arrangement``: each a Plackett-Luce draw of the four seats' places."""
    out = []
    s = np.array([strength[a] for a in arrangement])
    for r in range(PLAYERS):
        perf = s + rng.gumbel(size=PLAYERS)
        places = (-perf).argsort().argsort() + 1
        seats = [arrangement[(k - r) % PLAYERS] for k in range(PLAYERS)]
        ranking = [int(places[arrangement.index(x)]) for x in seats]
        out.append(MatchRec(GAME, f"{gid}-{r}", gid, seats, list(range(PLAYERS)), ranking, [0.0] * PLAYERS))
    return out


def outcome_of(gid: str, recs: list[MatchRec]) -> Outcome:
    return group_outcome(gid, GAME, [{"bots": m.bots, "teams": m.teams, "ranking": m.ranking} for m in recs])


@dataclass
class LadderRun:
    records: list[MatchRec]
    groups_per: dict[str, int]
    max_wait: int
    checkpoints: dict[int, list[MatchRec]]


def run_ladder_sim(strength: dict[str, float], authors: dict[str, str], groups: int, mode: str, seed: int,
                   starvation: int, checkpoints: Sequence[int] = (),
                   top: tuple[float, ...] | None = None) -> LadderRun:
    """The matchmaker and the online layer, one group at a time (a group's time: its index).  ``top``:
    the matchmaker's (top_k, top_weight, top_pairs[, top_share[, top_margin]]), its defaults if None."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    params = Params(mode=mode, starvation_s=float(starvation))
    if top is not None:
        params = replace(params, top_k=int(top[0]), top_weight=top[1], top_pairs=top[2])
        if len(top) > 3:
            params = replace(params, top_share=top[3])
        if len(top) > 4:
            params = replace(params, top_margin=int(top[4]))
    online = OnlineRatings(OnlineParams(tau=0.05))
    pool = [Entry(v, authors[v], (GAME,), "active") for v in strength]
    by = {e.ref: e for e in pool}
    recent: list[tuple[str, frozenset[frozenset[str]]]] = []
    records: list[MatchRec] = []
    last: dict[str, int] = {}
    max_wait = 0
    cps: dict[int, list[MatchRec]] = {}
    for g in range(groups):
        rel = top_relevance(pool, online.overall, params.top_k)
        among = focus(pool, online.overall, params, rng)
        seed_e = pick_seed(pool, float(g), params, rng, rel, among)
        assert seed_e is not None
        t = choose_table(seed_e, pool, GAMES, online.get, set(recent[-params.recent:]), params, 25 / 6, rng,
                         rel, among)
        assert t is not None
        gid = f"g{g}"
        recs = play_group(gid, t.arrangement, strength, nrng)
        records += recs
        online.update(outcome_of(gid, recs))
        recent.append(table_key(GAME, t.arrangement, False))
        for ref in t.arrangement:
            e = by[ref]
            max_wait = max(max_wait, g - last.get(ref, 0))
            last[ref] = g
            e.groups += 1
            e.last = float(g)
            e.per_game[GAME] = e.per_game.get(GAME, 0) + 1
        if g + 1 in checkpoints:
            cps[g + 1] = list(records)
    for ref in strength:   # the wait since the last group, at the end
        max_wait = max(max_wait, groups - last.get(ref, 0))
    return LadderRun(records, {e.ref: e.groups for e in pool}, max_wait, cps)


def round_robin(strength: dict[str, float], groups: int, seed: int, design: str = "sampled"
                ) -> list[MatchRec]:
    """``groups`` groups of a balanced round robin: tournaments' balanced sampled schedule
    (``sampled``: equal appearances, pair meetings as even as it can make them; its cost grows fast
    with the count), or ``rounds`` (each round a uniformly random partition of the versions into
    tables: equal appearances, meetings even in expectation; cheap at any length)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed + 1)
    names = list(strength)
    if design == "sampled":
        arrs = sampled_arrangements(names, PLAYERS, False, groups, rng)
    else:
        arrs = []
        while len(arrs) < groups:
            order = names[:]
            rng.shuffle(order)
            arrs += [tuple(order[k:k + PLAYERS]) for k in range(0, len(order) - PLAYERS + 1, PLAYERS)]
        arrs = arrs[:groups]
    out: list[MatchRec] = []
    for i, arr in enumerate(arrs):
        out += play_group(f"rr{i}", arr, strength, nrng)
    return out


def tau(a: Fit, b: Fit, names: Sequence[str] | None = None) -> float:
    names = list(names) if names is not None else a.names
    x = [a.theta[a.index(n)] for n in names]
    y = [b.theta[b.index(n)] for n in names]
    return float(kendalltau(x, y).statistic)


def gini(xs: Sequence[float]) -> float:
    v = sorted(xs)
    n = len(v)
    total = sum(v)
    return sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(v)) / (n * total) if total else 0.0


def versions(n: int, seed: int) -> tuple[dict[str, float], dict[str, str]]:
    rng = np.random.default_rng(1000 + seed)
    s = rng.normal(0.0, 1.0, n)
    names = [f"v{i:02d}@1" for i in range(n)]
    return dict(zip(names, s.tolist(), strict=True)), {nm: f"author{i // 2}" for i, nm in enumerate(names)}


# ------------------------------------------------------------------------------------------ settlement
def settle_sim(strength: dict[str, float], budget: int, seed: int, bootstrap: int, top_k: int = 4,
               stage1: int = 4, confidence: float = 0.95) -> tuple[str, bool, str]:
    """(the first place's version, shared?, stop reason) of a settlement of ``strength``."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed + 7)
    names = list(strength)
    games_of = {n: [GAME] for n in names}
    recs: list[MatchRec] = []
    played = 0
    for t in stage1_tables(names, games_of, GAMES, stage1, rng)[:budget]:
        recs += play_group(f"s{played}", t.arrangement, strength, nrng)
        played += 1
    stop = "budget"
    level = look_confidence(confidence)
    first_stage = played
    while True:
        f = fit(recs, bootstrap, seed=played)
        if decided(f, level):
            stop = "decided"
            break
        if played >= budget:
            break
        _, tables = stage2_round(f, top_k, games_of, GAMES, played, budget, first_stage)
        if not tables:
            break
        for t in tables:
            recs += play_group(f"s{played}", t.arrangement, strength, nrng)
            played += 1
    places = shared_places(f, level)
    first = places[0][0]
    shared = len(places) > 1 and places[1][1] == 1
    return first, shared, stop


def tune(first: int, seeds: int, n: int, budget: int, starvation: int, top: tuple[float, ...] | None) -> None:
    """The ladder's board against the true strengths: tau within the true top 8 and overall, the Gini
    and the longest wait, per seed and their means (one JSON line)."""
    out: dict[str, list[float]] = {"top8": [], "tau": [], "gini": [], "max_wait": []}
    t0 = time.process_time()
    for seed in range(first, first + seeds):
        strength, authors = versions(n, seed)
        truth = Fit(list(strength), np.array(list(strength.values())), np.empty((0, len(strength))))
        run = run_ladder_sim(strength, authors, budget, "info", seed, starvation, top=top)
        lad = fit(run.records, 0)
        out["top8"].append(tau(lad, truth, [truth.names[i] for i in truth.order()[:8]]))
        out["tau"].append(tau(lad, truth))
        out["gini"].append(gini(list(run.groups_per.values())))
        out["max_wait"].append(run.max_wait)
        print(f"seed {seed}: top8 {out['top8'][-1]:.3f} tau {out['tau'][-1]:.3f} gini {out['gini'][-1]:.3f} "
              f"max wait {run.max_wait}", file=sys.stderr, flush=True)
    print(json.dumps({"top": top, "seeds": [first, first + seeds - 1], "ladder_groups": budget,
                      "top8_vs_truth": {"mean": float(np.mean(out["top8"])), "min": min(out["top8"])},
                      "tau_vs_truth": float(np.mean(out["tau"])),
                      "gini": {"mean": float(np.mean(out["gini"])), "max": max(out["gini"])},
                      "max_wait": max(out["max_wait"]), "cpu_s": round(time.process_time() - t0, 1),
                      "raw": out}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--versions", type=int, default=40)
    ap.add_argument("--rr", type=int, default=2000, help="groups of the long round robin")
    ap.add_argument("--share", type=float, default=0.25, help="the ladder's groups, as a share of --rr")
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--starvation", type=int, default=40, help="the starvation time, in groups")
    ap.add_argument("--top", default=None, metavar="K:W:P[:S[:M]]",
                    help="the matchmaker's top_k:top_weight:top_pairs[:top_share[:top_margin]] (default: "
                         "its Params defaults; 8:0:0 is the matchmaker before them)")
    ap.add_argument("--rr-design", choices=("sampled", "rounds"), default="sampled",
                    help="the reference's schedule: tournaments' balanced sampled one (about 15 s CPU for "
                         "2,000 groups of 40 versions) or random partition rounds (cheap)")
    ap.add_argument("--rr-long", type=int, default=0, metavar="N",
                    help="also a longer reference of N groups (random partition rounds) and a ladder of "
                         "--share of it: top-8 tau against it and against the truth")
    ap.add_argument("--quick", action="store_true", help="fewer settlement seeds")
    ap.add_argument("--need-seeds", type=int, default=None,
                    help="seeds of the groups-to-tau-0.9 comparison (default --seeds)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--part", choices=("all", "ladder", "settle", "tune"), default="all",
                    help="only the ladder's figures (1-4), only the settlement's (5), or ``tune``: the "
                         "ladder's board against the true strengths only (no reference; for tuning the "
                         "matchmaker on seeds apart from the reported ones, e.g. --first-seed 100)")
    ap.add_argument("--settle-seeds", type=int, default=None, help="settlement seeds (default --seeds)")
    ap.add_argument("--first-seed", type=int, default=0, help="seeds --first-seed .. + --seeds - 1 (to split "
                    "a run over processes; --merge adds their JSON outputs up)")
    ap.add_argument("--merge", nargs="+", default=None, help="JSON outputs of --part ladder runs to add up")
    a = ap.parse_args()
    t0 = time.process_time()
    budget = int(a.rr * a.share)
    cps = [c for c in (100, 200, 300, 400, 500, 700, 1000) if c <= 2 * budget]
    res: dict[str, list[float]] = {k: [] for k in (
        "tau", "tau_top8", "tau_truth", "tau_rr_truth", "coverage", "gini", "max_wait", "tau_top8_truth",
        "tau_rr_top8_truth", "long_tau", "long_tau_top8", "long_tau_top8_truth", "long_rr_top8_truth",
        "long_gini", "long_max_wait")}
    top: tuple[float, ...] | None = None
    if a.top is not None:
        top = tuple(float(x) for x in a.top.split(":"))
        if not 3 <= len(top) <= 5:
            ap.error(f"--top {a.top}: expected K:W:P, K:W:P:S or K:W:P:S:M")
    need: dict[str, list[float]] = {"info": [], "window": [], "uniform": []}
    if a.merge:
        for path in a.merge:
            raw = json.loads(Path(path).read_text())["raw"]
            for k in res:
                res[k] += raw.get(k, [])
            for k in need:
                need[k] += [math.inf if x is None else x for x in raw["need"][k]]
        a.seeds = len(res["tau"])
    if a.part == "tune":
        tune(a.first_seed, a.seeds, a.versions, budget, a.starvation, top)
        return
    for seed in range(a.first_seed, a.first_seed + a.seeds) if a.part != "settle" and not a.merge else ():
        t1 = time.process_time()
        strength, authors = versions(a.versions, seed)
        rr = fit(round_robin(strength, a.rr, seed, a.rr_design), 0)
        truth = Fit(list(strength), np.array(list(strength.values())), np.empty((0, len(strength))))
        for mode in (need if seed < (a.need_seeds if a.need_seeds is not None else 10**9) else ()):
            run = run_ladder_sim(strength, authors, max(cps), mode, seed, a.starvation, cps, top)
            reached = next((c for c in cps if tau(fit(run.checkpoints[c], 0), rr) >= 0.9), math.inf)
            need[mode].append(reached)
        run = run_ladder_sim(strength, authors, budget, "info", seed, a.starvation, top=top)
        lad = fit(run.records, a.bootstrap, seed)
        top8 = [rr.names[i] for i in rr.order()[:8]]
        res["tau"].append(tau(lad, rr))
        res["tau_top8"].append(tau(lad, rr, top8))
        res["tau_truth"].append(tau(lad, truth))
        res["tau_rr_truth"].append(tau(rr, truth))
        true8 = [truth.names[i] for i in truth.order()[:8]]
        res["tau_top8_truth"].append(tau(lad, truth, true8))
        res["tau_rr_top8_truth"].append(tau(rr, truth, true8))
        if a.rr_long:
            rrl = fit(round_robin(strength, a.rr_long, seed, "rounds"), 0)
            runl = run_ladder_sim(strength, authors, int(a.rr_long * a.share), "info", seed, a.starvation,
                                  top=top)
            ladl = fit(runl.records, 0)
            res["long_tau"].append(tau(ladl, rrl))
            res["long_tau_top8"].append(tau(ladl, rrl, [rrl.names[i] for i in rrl.order()[:8]]))
            res["long_tau_top8_truth"].append(tau(ladl, truth, true8))
            res["long_rr_top8_truth"].append(tau(rrl, truth, true8))
            res["long_gini"].append(gini(list(runl.groups_per.values())))
            res["long_max_wait"].append(runl.max_wait)
        true_c = {n: s - float(np.mean(list(strength.values()))) for n, s in strength.items()}
        rows = {str(r["ref"]): r for r in lad.rows()}
        if a.bootstrap:   # (no replicates: no intervals to check)
            held = [float(rows[n]["lo95"]) <= true_c[n] <= float(rows[n]["hi95"]) for n in strength]
            res["coverage"].append(float(np.mean(held)))
        res["gini"].append(gini(list(run.groups_per.values())))
        res["max_wait"].append(run.max_wait)
        long = (f"; long reference: top8 {res['long_tau_top8'][-1]:.3f}, vs truth ladder "
                f"{res['long_tau_top8_truth'][-1]:.3f} rr {res['long_rr_top8_truth'][-1]:.3f}"
                if a.rr_long else "")
        cover = f"{res['coverage'][-1]:.3f}" if a.bootstrap else "-"
        print(f"seed {seed}: tau {res['tau'][-1]:.3f} top8 {res['tau_top8'][-1]:.3f} (vs truth: ladder "
              f"{res['tau_top8_truth'][-1]:.3f}, rr {res['tau_rr_top8_truth'][-1]:.3f}){long} coverage "
              f"{cover} gini {res['gini'][-1]:.3f} max wait {run.max_wait}; groups to "
              f"tau 0.9: " + ", ".join(f"{m} {need[m][-1] if need[m] else '-'}" for m in need)
              + f" ({time.process_time() - t1:.0f} s CPU)", file=sys.stderr, flush=True)
    settle: dict[str, dict[str, float]] = {}
    s_seeds = a.settle_seeds or (10 if a.quick else a.seeds)
    for delta in ((0.0, 0.15, 0.3, 0.5, 0.8) if a.part != "ladder" else ()):
        right = shared = wrong = 0
        for seed in range(s_seeds):
            rng = np.random.default_rng(500 + seed)
            rest = sorted(rng.normal(-1.0, 0.6, 10).tolist(), reverse=True)
            s = {"best@1": 1.0, "second@1": 1.0 - delta, **{f"o{i}@1": x for i, x in enumerate(rest)}}
            first, is_shared, _ = settle_sim(s, budget=120, seed=seed, bootstrap=a.bootstrap)
            if is_shared:
                shared += 1
            elif first == "best@1" or (delta == 0.0 and first == "second@1"):
                right += 1
            else:
                wrong += 1
        settle[f"{delta:g}"] = {"named_true_first": right / s_seeds, "shared_first": shared / s_seeds,
                                "false_winner": wrong / s_seeds}
        print(f"settlement delta {delta:g}: {settle[f'{delta:g}']}", file=sys.stderr, flush=True)

    def mean(xs: list[float]) -> float:
        return float(np.mean(xs)) if xs else math.nan

    if a.part == "settle":
        print(json.dumps({"settlement": settle, "seeds": s_seeds,
                          "cpu_s": round(time.process_time() - t0, 1)}))
        return

    out = {"versions": a.versions, "seeds": a.seeds, "rr_groups": a.rr, "ladder_groups": budget,
           "tau_overall": {"mean": mean(res["tau"]), "min": min(res["tau"], default=math.nan)},
           "tau_top8": {"mean": mean(res["tau_top8"]), "min": min(res["tau_top8"], default=math.nan)},
           "tau_vs_truth": {"ladder": mean(res["tau_truth"]), "round_robin": mean(res["tau_rr_truth"])},
           "tau_top8_vs_truth": {"ladder": mean(res["tau_top8_truth"]),
                                 "round_robin": mean(res["tau_rr_top8_truth"])},
           "long_reference": None if not a.rr_long else {
               "rr_groups": a.rr_long, "ladder_groups": int(a.rr_long * a.share),
               "tau": mean(res["long_tau"]),
               "tau_top8": {"mean": mean(res["long_tau_top8"]),
                            "min": min(res["long_tau_top8"], default=math.nan)},
               "tau_top8_vs_truth": {"ladder": mean(res["long_tau_top8_truth"]),
                                     "round_robin": mean(res["long_rr_top8_truth"])},
               "gini": {"mean": mean(res["long_gini"]), "max": max(res["long_gini"], default=math.nan)},
               "max_wait_groups": max(res["long_max_wait"], default=0)},
           "matchmaker_top": a.top or "default",
           "coverage95": mean(res["coverage"]),
           "gini": {"mean": mean(res["gini"]), "max": max(res["gini"], default=math.nan)},
           "max_wait_groups": max(res["max_wait"], default=0), "starvation_groups": a.starvation,
           "groups_to_tau_0.9": {m: {"median": float(np.median(v)),
                                     "reached": sum(math.isfinite(x) for x in v)} for m, v in need.items()},
           "settlement": settle, "cpu_s": round(time.process_time() - t0, 1),
           "raw": {**res, "need": {m: [None if not math.isfinite(x) else x for x in v]
                                   for m, v in need.items()}}}
    print(json.dumps(out, indent=2) if a.json else json.dumps(out))


if __name__ == "__main__":
    main()
