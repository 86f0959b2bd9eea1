"""Tournament throughput, logging cost and driver memory, measured in one run.

    .venv/bin/python bench/tournament.py                    # the full measurement (about 5 minutes)
    .venv/bin/python bench/tournament.py --quick            # smaller: 2,000 / 1,000 and 10,000 matches

1. **Plain loop**: the scheduled matches (in-process random bots) played one after the other with
   ``bots.match.play``, nothing logged: the single-process baseline.
2. **Logging cost per move** (CPU time): the same matches through the tournament's batch runner in
   this process (``executor="inline"``: per-move rows, Arrow tables, zstd Parquet part files, atomic
   renames), minus the plain loop, divided by the moves; split into the per-move bookkeeping and the
   writing.
3. **Ray on 2 CPUs**: the same matches as a tournament on embedded Ray (``num_cpus=2``); throughput
   end to end, after Ray's start-up, and in steady state (first to last batch), against the plain loop.
   The target: at least 1.5x the plain loop.
4. **Driver memory**: a tournament of ``--rss-matches`` matches on Ray; the driver's RSS when 10% of
   them are done and at the end (the brief: 10k and 100k matches).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# run as a script, bench/ comes first on sys.path, and bench/bots.py would shadow the bots package
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from bots.match import play  # noqa: E402
from engine import game_class  # noqa: E402
from tournaments.ray_runner import Summary, run_tournament  # noqa: E402
from tournaments.runner import BatchResult, play_logged  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.spec import Spec, parse_spec  # noqa: E402


def rss_mib() -> float:
    """This process's resident set size (VmRSS), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_spec(game: str, matches: int, deals: int | None, out: Path, name: str, cpus: int) -> Spec:
    n = game_class(game).default_players
    per_board = n * (3 if game_class(game).teams else 1)   # 4 entrants: one combination (x3 splits)
    bots: list[Any] = ["random", *({"name": f"random-{i}", "bot": "random"} for i in range(2, n + 1))]
    return parse_spec({"name": name, "seed": 1, "games": [game], "bots": bots,
                       "matches_per_seating": max(1, matches // per_board), "max_deals": deals,
                       "output": str(out), "run": {"num_cpus": cpus}})


def plain_loop(spec: Spec, clock: Any = time.perf_counter) -> tuple[float, int, int]:
    """(seconds, matches, moves) of the single-process loop without logging."""
    g = spec.games[0]
    refs = {e.label: e.bot for e in spec.bots}
    matches = moves = 0
    t = clock()
    for m in schedule(spec):
        r = play(g.id, [refs[label] for label in m.seats], m.seed, g.max_deals, seeds=m.seat_seeds,
                 **g.options)
        matches += 1
        moves += len(r.state.history)
    return clock() - t, matches, moves


def bookkeeping_only(spec: Spec, clock: Any = time.perf_counter) -> float:
    """Seconds of the tournament's match loop (per-move rows kept) without Arrow or Parquet."""
    from bots.match import close_players, make_players
    from engine import load_game

    g = spec.games[0]
    game = load_game(g.id, **g.options)
    refs = {e.label: e.bot for e in spec.bots}
    t = clock()
    for m in schedule(spec):
        players = make_players(game, [refs[label] for label in m.seats], m.seed, seeds=m.seat_seeds)
        play_logged(game, players, m.seed, g.max_deals, m.seat_seeds)
        close_players(players)
    return clock() - t


def ray_run(spec: Spec, rss_at: int | None = None) -> dict[str, Any]:
    marks: dict[str, Any] = {"first_batch": None, "first_done": 0}
    rss: dict[int, float] = {}

    def on_batch(r: BatchResult, s: Summary) -> None:
        now = time.monotonic()
        if marks["first_batch"] is None:
            marks["first_batch"], marks["first_done"] = now, s.done_now
        marks["last_batch"], marks["last_done"] = now, s.done_now
        if rss_at is not None and s.done_now >= rss_at and not rss:
            rss[s.done_now] = rss_mib()

    t = time.monotonic()
    s = run_tournament(spec, progress=False, on_batch=on_batch, fsync=True)
    wall = time.monotonic() - t
    out: dict[str, Any] = {"matches": s.done_now, "moves": s.moves, "wall_s": round(wall, 2),
                           "startup_s": round(s.startup_seconds, 2),
                           "run_s": round(s.seconds - s.startup_seconds, 2)}
    steady_t = marks.get("last_batch", 0) - (marks["first_batch"] or 0)
    steady_n = marks.get("last_done", 0) - marks["first_done"]
    out["steady_matches_per_s"] = round(steady_n / steady_t, 1) if steady_t > 0 else None
    out["rss_mib"] = {str(k): round(v, 1) for k, v in rss.items()}
    out["rss_mib"][str(s.done_now)] = round(rss_mib(), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="hartenjagen")
    ap.add_argument("--deals", type=int, default=1, help="deals per match (0: whole matches)")
    ap.add_argument("--matches", type=int, default=8000, help="matches for the throughput comparison")
    ap.add_argument("--log-matches", type=int, default=2000, help="matches for the logging cost")
    ap.add_argument("--rss-matches", type=int, default=100_000, help="matches of the memory run (0: skip)")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2,000 / 1,000 / 10,000 matches")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.matches, a.log_matches, a.rss_matches = 2000, 1000, 10_000
    deals = a.deals or None
    tmp = Path(tempfile.mkdtemp(prefix="cardarena-bench-"))
    report: dict[str, Any] = {"game": a.game, "deals_per_match": deals, "cpus": a.cpus,
                              "machine": f"{platform.node()}, {os.cpu_count()} CPUs, load "
                                         f"{os.getloadavg()[0]:.1f}"}
    try:
        # 2. logging cost per move (single process; CPU time of this process, so other load counts less)
        spec = make_spec(a.game, a.log_matches, deals, tmp / "inline", "inline", a.cpus)
        cpu = time.process_time
        base_s, n, moves = plain_loop(spec, cpu)
        book_s = bookkeeping_only(spec, cpu)
        c = cpu()
        s = run_tournament(spec, executor="inline", progress=False)
        logged_s = cpu() - c
        assert s.done_now == n and s.moves == moves
        report["logging"] = {
            "matches": n, "moves": moves, "plain_s": round(base_s, 3), "bookkeeping_s": round(book_s, 3),
            "logged_s": round(logged_s, 3),
            "cost_us_per_move": round((logged_s - base_s) / moves * 1e6, 2),
            "of_which_bookkeeping_us": round((book_s - base_s) / moves * 1e6, 2),
            "of_which_arrow_parquet_us": round((logged_s - book_s) / moves * 1e6, 2),
            "plain_us_per_move": round(base_s / moves * 1e6, 2),
            "parquet_bytes_per_move": round(sum(f.stat().st_size for f in (tmp / "inline").rglob("*.parquet"))
                                            / moves, 2)}
        # 3. throughput: plain loop vs Ray on 2 CPUs, same matches
        spec = make_spec(a.game, a.matches, deals, tmp / "ray", "ray", a.cpus)
        base_s, n, moves = plain_loop(spec)
        r = ray_run(spec)
        plain_rate = n / base_s
        report["throughput"] = {
            "matches": n, "moves": moves, "plain_matches_per_s": round(plain_rate, 1), "ray": r,
            "speedup_end_to_end": round(n / r["wall_s"] / plain_rate, 2),
            "speedup_after_startup": round(n / r["run_s"] / plain_rate, 2),
            "speedup_steady": round((r["steady_matches_per_s"] or 0) / plain_rate, 2),
            "target": 1.5}
        shutil.rmtree(tmp / "ray", ignore_errors=True)
        # 4. driver memory
        if a.rss_matches:
            spec = make_spec(a.game, a.rss_matches, deals, tmp / "rss", "rss", a.cpus)
            r = ray_run(spec, rss_at=a.rss_matches // 10)
            report["driver_memory"] = r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        print(json.dumps(report, indent=2))
        return
    lg, tp = report["logging"], report["throughput"]
    print(f"machine: {report['machine']}; game {a.game}, {deals or 'whole'} deal(s) per match, random bots")
    print(f"logging: {lg['cost_us_per_move']} us per move over a plain loop of "
          f"{lg['plain_us_per_move']} us/move "
          f"(bookkeeping {lg['of_which_bookkeeping_us']}, Arrow+Parquet {lg['of_which_arrow_parquet_us']}); "
          f"{lg['parquet_bytes_per_move']} bytes of Parquet per move")
    r = tp["ray"]
    print(f"throughput, {tp['matches']} matches: plain loop {tp['plain_matches_per_s']}/s; "
          f"Ray on {a.cpus} CPUs "
          f"{r['matches'] / r['wall_s']:.1f}/s end to end (start-up {r['startup_s']} s), "
          f"{r['matches'] / r['run_s']:.1f}/s after start-up, {r['steady_matches_per_s']}/s steady: "
          f"x{tp['speedup_end_to_end']} / x{tp['speedup_after_startup']} / x{tp['speedup_steady']} "
          f"(target x{tp['target']})")
    if "driver_memory" in report:
        print(f"driver RSS (MiB) by matches done: {report['driver_memory']['rss_mib']}")


if __name__ == "__main__":
    main()
