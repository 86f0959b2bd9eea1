"""Benchmark of the analysis over a synthetic log of 10 million moves (issue: analysis, item 6).

    .venv/bin/python bench/analysis.py [--moves 10000000] [--dir /tmp/cardarena-bench-analysis]
                                       [--no-full-verify] [--keep]

1. Plays a base log of real matches (every registered game, random/first/last players, whole
   matches) and replicates it under new match ids up to ``--moves`` moves
   (:func:`tournaments.analysis.synth.replicate`): the copies replay and verify like the originals.
2. ``rank``: the time of :func:`tournaments.analysis.ratings.rank` over the whole log, in-process and
   as the ``cardarena rank DIR --json`` command (Python start-up included).  Target: <= 2 s.
3. Replay rate against the engine's random-play rate, one process each, per game and over the log's
   mix of games (total moves / total time): the random-play loop is ``legal_actions()``, a uniform
   choice, ``apply()``; the replay is :func:`tournaments.analysis.verify.replay_part` (reading the
   parts, the legality, seat, deal and legal-count checks, final scores, ranking and events).
   Target: replay >= 50% of random play.
4. Unless ``--no-full-verify``: ``cardarena verify DIR`` over all the moves (replay in 2 processes, then
   the invariant SQL), wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
# `python bench/analysis.py` puts bench/ first on sys.path, where bench/engine.py would shadow the
# `engine` package: look in the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from engine import GAMES, load_game  # noqa: E402
from tournaments.analysis import open_log  # noqa: E402
from tournaments.analysis.ratings import rank  # noqa: E402
from tournaments.analysis.synth import replicate, write_log  # noqa: E402
from tournaments.analysis.verify import replay_part  # noqa: E402

BOTS = ["random-a", "random-b", "random-c", "random-d"]
"""Random players only: the replayed trajectories are random play, like the rate they are compared to."""


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def random_play_rate(game: str, seconds: float) -> tuple[int, float]:
    g = load_game(game)
    n, seed = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        rng = random.Random(seed)
        s = g.new_match(seed=seed)
        while not s.is_over():
            s.apply(rng.choice(s.legal_actions()))
            n += 1
        seed += 1
    return n, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/cardarena-bench-analysis"))
    ap.add_argument("--boards", type=int, default=4, help="boards per game in the base log")
    ap.add_argument("--no-full-verify", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the log directory")
    a = ap.parse_args()
    base, big = a.dir / "base", a.dir / "log"
    shutil.rmtree(a.dir, ignore_errors=True)
    results: dict[str, object] = {}

    t0 = time.perf_counter()
    write_log(base, GAMES, BOTS, boards=a.boards, seed=11, batch_size=16)
    base_moves = open_log(base).sql("SELECT count(*) AS n FROM moves")["n"][0]
    factor = max(1, -(-a.moves // int(base_moves)))
    total = replicate(base, big, factor)
    nmatches = open_log(big, tables=("matches",)).sql("SELECT count(*) AS n FROM matches")["n"][0]
    results["log"] = {"games": GAMES, "base_moves": int(base_moves), "factor": factor, "moves": total,
                      "matches": int(nmatches), "build_s": round(time.perf_counter() - t0, 1)}
    print(f"log: {total:,} moves, {nmatches:,} matches ({factor} copies of {base_moves:,} moves of real "
          f"matches) in {time.perf_counter() - t0:.1f} s", flush=True)

    # ---- rank
    t0 = time.perf_counter()
    boards = rank(open_log(big, tables=("matches",)))
    rank_s = time.perf_counter() - t0
    cpu0 = _child_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dashboards", "rank", str(big), "--json"],
                          capture_output=True, text=True, check=True)
    rank_cli_s = time.perf_counter() - t0
    rank_cli_cpu = _child_cpu() - cpu0
    assert len(json.loads(proc.stdout)) == len(boards)
    load = os.getloadavg()[0]
    results["rank"] = {"in_process_s": round(rank_s, 2), "command_s": round(rank_cli_s, 2),
                       "command_cpu_s": round(rank_cli_cpu, 2), "load_average": load,
                       "target_cpu_s": 2.0, "ok": rank_cli_cpu <= 2.0}
    print(f"rank: {rank_s:.2f} s in-process, {rank_cli_s:.2f} s as `cardarena rank --json` "
          f"({rank_cli_cpu:.2f} s CPU in all its processes; load average {load:.1f} on {os.cpu_count()} "
          "CPUs) (target: <= 2 s of CPU as a command)", flush=True)

    # ---- replay vs random play, one process each
    per_game: dict[str, dict[str, float]] = defaultdict(dict)
    log = open_log(base, tables=("matches",))
    mix: dict[str, int] = defaultdict(int)
    for p in log.parts["matches"]:
        st = replay_part(str(base), p.game, p.path.name)
        assert not st.violations, st.violations[:3]
        per_game[p.game]["replay_moves"] = per_game[p.game].get("replay_moves", 0) + st.moves
        per_game[p.game]["replay_s"] = per_game[p.game].get("replay_s", 0) + st.seconds
        mix[p.game] += st.moves
    for g in GAMES:
        n, s = random_play_rate(g, 3.0)
        per_game[g]["random_rate"] = n / s
        per_game[g]["replay_rate"] = per_game[g]["replay_moves"] / per_game[g]["replay_s"]
        per_game[g]["ratio"] = per_game[g]["replay_rate"] / per_game[g]["random_rate"]
        print(f"  {g:12s} random play {per_game[g]['random_rate']:>9,.0f} actions/s   replay "
              f"{per_game[g]['replay_rate']:>9,.0f} moves/s   ratio {per_game[g]['ratio']:.2f}", flush=True)
    total_mix = sum(mix.values())
    t_random = sum(mix[g] / per_game[g]["random_rate"] for g in GAMES)
    t_replay = sum(mix[g] / per_game[g]["replay_rate"] for g in GAMES)
    ratio = t_random / t_replay
    results["replay"] = {"per_game": per_game, "mix_random_rate": total_mix / t_random,
                         "mix_replay_rate": total_mix / t_replay, "ratio": ratio, "target_ratio": 0.5,
                         "ok": ratio >= 0.5}
    print(f"replay over the log's mix: {total_mix / t_replay:,.0f} moves/s vs random play "
          f"{total_mix / t_random:,.0f} actions/s: {ratio:.0%} (target >= 50%)", flush=True)

    # ---- full verify
    if not a.no_full_verify:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "dashboards.app", "verify", str(big), "--workers", "2"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
        results["verify"] = {"wall_s": round(wall, 1), "exit": proc.returncode, "summary": last,
                             "moves_per_s_wall": total / wall}
        print(f"verify (2 processes + SQL): {wall:.1f} s wall, exit {proc.returncode}: {last}", flush=True)
    print(json.dumps(results, default=float))
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
