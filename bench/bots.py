"""Strength of the built-in players: duplicate matches with 95% confidence intervals.

    python bench/bots.py [--games g1,g2] [--matches 200] [--deals 1] [--jobs 1]
                         [--pairs greedy:random,ismcts:greedy] [--json | --markdown]

For each game and each pair ``A:B`` it plays at least ``--matches`` matches in *duplicate*: every
seed is played once per rotation, so that A meets every deal from every seat.

* individual games (n seats): A at seat k and B at the others, for k = 0..n-1;
* partnership games: A's team at seats 0 and 2, then at 1 and 3.

Per seed (one duplicate set) it records A's mean placement and the mean placement of B's seats
in the same matches (1 is best, the match's own ranking), and A's score edge: A's score minus the
mean of B's, in the game's units, signed so that positive favours A.  In the rummies on the meld
protocol it also counts A's take-backs and confirmed melds (a player that lays melds and takes them
back in a loop shows many take-backs per confirm).  It prints the mean of each
over the sets with a 95% confidence interval (1.96 standard errors) and whether the expected order
(A better) holds: the interval of "B place - A place" lies above 0.

A match is ``--deals`` deals long (``max_deals``; 1 by default, to keep the ISMCTS runs to minutes).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.builtin.ismcts import LOWER_IS_BETTER
from bots.match import close_players, make_players, play_match
from engine import GAMES, game_class, load_game


def rotations(game_id: str, a: str, b: str) -> list[list[str]]:
    cls = game_class(game_id)
    n = cls.default_players
    if cls.teams and n == 4:
        return [[a, b, a, b], [b, a, b, a]]
    return [[a if s == k else b for s in range(n)] for k in range(n)]


def one_set(args: tuple[str, str, str, int, int]) -> dict[str, Any]:
    """One duplicate set: every rotation of one seed."""
    game_id, a, b, seed, deals = args
    game = load_game(game_id)
    lower = LOWER_IS_BETTER.get(game_id, game.lower_score_wins)  # the game's own declaration
    a_place, b_place, edge, faults = [], [], [], 0
    takebacks = confirms = 0
    t0 = time.perf_counter()
    for names in rotations(game_id, a, b):
        players = make_players(game, names, seed)
        try:
            r = play_match(game, players, seed, max_deals=deals)
        finally:
            close_players(players)
        faults += len(r.faults)
        sa = [s for s, n in enumerate(names) if n == a]
        sb = [s for s, n in enumerate(names) if n == b]
        a_place.append(sum(r.placement[s] for s in sa) / len(sa))
        b_place.append(sum(r.placement[s] for s in sb) / len(sb))
        if "confirm" in r.state.history:  # the meld protocol
            tb, cf = _verb_counts(game, seed, len(names), r.state.history, set(sa), deals)
            takebacks += tb
            confirms += cf
        sc = r.state.scores()
        d = sum(sc[s] for s in sa) / len(sa) - sum(sc[s] for s in sb) / len(sb)
        edge.append(-d if lower else d)
    return {"a": sum(a_place) / len(a_place), "b": sum(b_place) / len(b_place),
            "edge": sum(edge) / len(edge), "matches": len(a_place), "faults": faults,
            "takebacks": takebacks, "confirms": confirms, "seconds": time.perf_counter() - t0}


def _verb_counts(game: Any, seed: int, n: int, history: list[str], seats: set[int],
                 deals: int) -> tuple[int, int]:
    """(take-backs, confirms) of ``seats`` in a match."""
    st = game.new_match(seed=seed, players=n, max_deals=deals)
    tb = cf = 0
    for a in history:
        if st.current_player in seats:
            tb += a == "takeback"
            cf += a == "confirm"
        st.apply(a)
    return tb, cf


def ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval."""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def run(game_id: str, a: str, b: str, matches: int, deals: int, jobs: int, seed0: int) -> dict[str, Any]:
    per_set = len(rotations(game_id, a, b))
    sets = math.ceil(matches / per_set)
    tasks = [(game_id, a, b, seed0 + i, deals) for i in range(sets)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            rows = list(ex.map(one_set, tasks, chunksize=max(1, sets // (4 * jobs))))
    else:
        rows = [one_set(t) for t in tasks]
    diff = [r["b"] - r["a"] for r in rows]
    m_a, h_a = ci([r["a"] for r in rows])
    m_b, h_b = ci([r["b"] for r in rows])
    m_d, h_d = ci(diff)
    m_e, h_e = ci([r["edge"] for r in rows])
    return {"game": game_id, "a": a, "b": b, "sets": sets, "matches": sum(r["matches"] for r in rows),
            "deals": deals, "a_place": [m_a, h_a], "b_place": [m_b, h_b], "place_gain": [m_d, h_d],
            "score_edge": [m_e, h_e], "faults": sum(r["faults"] for r in rows),
            "takebacks": sum(r["takebacks"] for r in rows), "confirms": sum(r["confirms"] for r in rows),
            "holds": m_d - h_d > 0, "wall_seconds": sum(r["seconds"] for r in rows)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids (default: all)")
    ap.add_argument("--pairs", default="greedy:random,ismcts:greedy", help="A:B pairs, A expected stronger")
    ap.add_argument("--matches", type=int, default=200, help="matches per game and pair, at least")
    ap.add_argument("--deals", type=int, default=1, help="deals per match (max_deals)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--seed", type=int, default=1000, help="first seed")
    ap.add_argument("--json", action="store_true", help="one JSON object per result line")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (for docs/bots.md)")
    args = ap.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in games:
        if g not in GAMES:
            sys.exit(f"bench/bots.py: unknown game {g!r}; known games: {', '.join(GAMES)}")
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
    if args.markdown:
        print("| game | A:B | matches | A place | B place | B − A place | A score edge | holds |")
        print("|---|---|---|---|---|---|---|---|")
    elif not args.json:
        print(f"{'game':15} {'A:B':15} {'matches':>7} {'A place':>13} {'B place':>13} {'B-A place':>14} "
              f"{'A score edge':>16}  holds  wall s")
    for g in games:
        for a, b in pairs:
            r = run(g, a, b, args.matches, args.deals, args.jobs, args.seed)
            if args.json:
                print(json.dumps(r), flush=True)
                continue
            if args.markdown:
                m = "{:.2f} ± {:.2f}"
                cells = [g, f"{a}:{b}", str(r["matches"]),
                         *(m.format(*r[k]) for k in ("a_place", "b_place", "place_gain", "score_edge")),
                         "yes" if r["holds"] else "**no**"]
                print("| " + " | ".join(cells) + " |", flush=True)
                continue
            f = "{:.3f}±{:.3f}"
            print(f"{g:15} {a + ':' + b:15} {r['matches']:7d} {f.format(*r['a_place']):>13} "
                  f"{f.format(*r['b_place']):>13} {f.format(*r['place_gain']):>14} "
                  f"{'{:.2f}±{:.2f}'.format(*r['score_edge']):>16}  {'yes' if r['holds'] else 'NO':5}"
                  f"  {r['wall_seconds']:.0f}" + (f"  faults {r['faults']}" if r["faults"] else "")
                  + (f"  A take-backs/confirms {r['takebacks']}/{r['confirms']}" if r["confirms"] else ""),
                  flush=True)


if __name__ == "__main__":
    main()
