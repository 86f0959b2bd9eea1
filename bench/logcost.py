"""The workers' per-move cost of the pipeline (issue 28 section 2), in one process: the same scheduled
matches played by the plain loop (``bots.match.play``, nothing logged) and by the workers' batch
runner (``tournaments.runner.run_batch``: the seat seeds, the logged match loop, ``BatchLog``, the
Arrow tables and the zstd Parquet parts), rounds alternating, CPU time of this process.

    .venv/bin/python -m bench.logcost [--matches 1000] [--batch 500] [--rounds 3] [--game hartenjagen]

Pin it to one CPU (``taskset -c 1``) on a shared machine.  ``run_batch`` writes its parts without
fsync into a temporary directory, removed after each round.  Prints each round's ratio (``run_batch``
CPU / plain loop CPU) and the extra microseconds a move, and their medians: the local pool's CPU
ratio of ``bench/tournament.py`` is this one plus the driver's and the workers' start-up (about 1%).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bots.match import play
from engine import game_class
from tournaments.runner import Batch, run_batch
from tournaments.schedule import Match, schedule
from tournaments.spec import Spec, parse_spec


def make_spec(game: str, matches: int) -> Spec:
    n = game_class(game).default_players
    bots: list[object] = ["random", *({"name": f"random-{i}", "bot": "random"} for i in range(2, n + 1))]
    per_board = n * (3 if game_class(game).teams else 1)
    return parse_spec({"name": "logcost", "seed": 1, "games": [game], "bots": bots,
                       "matches_per_seating": max(1, matches // per_board), "max_deals": 1,
                       "output": str(Path(tempfile.gettempdir()) / "logcost")})


def plain(spec: Spec, ms: list[Match]) -> tuple[float, int]:
    """(CPU seconds, moves) of the plain loop."""
    g = spec.games[0]
    refs = {e.label: e.bot for e in spec.bots}
    t, moves = time.process_time(), 0
    for m in ms:
        r = play(g.id, [refs[label] for label in m.seats], m.seed, g.max_deals, seeds=m.seat_seeds,
                 **g.options)
        moves += len(r.state.history)
    return time.process_time() - t, moves


def batched(spec: Spec, ms: list[Match], size: int) -> float:
    """CPU seconds of ``run_batch`` over the same matches, ``size`` a batch, parts without fsync."""
    g = spec.games[0]
    refs = {e.label: e.bot for e in spec.bots}
    root = Path(tempfile.mkdtemp(prefix="cardarena-logcost-"))
    try:
        t = time.process_time()
        for i in range(0, len(ms), size):
            run_batch(Batch("logcost", str(root), g.id, g.options, len(ms[0].seats), g.max_deals,
                            tuple(ms[i:i + size]), refs, fsync=False))
        return time.process_time() - t
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="hartenjagen")
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=500, help="matches a batch")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    spec = make_spec(a.game, a.matches)
    ms = list(schedule(spec))
    plain(spec, ms[:50])   # warm-up: imports, tables, the first Parquet writer
    batched(spec, ms[:50], a.batch)
    ratios, extra = [], []
    for k in range(a.rounds):
        p, moves = plain(spec, ms)
        b = batched(spec, ms, a.batch)
        ratios.append(b / p)
        extra.append((b - p) / moves * 1e6)
        print(f"round {k + 1}: plain {p / moves * 1e6:.2f} us a move, run_batch {b / moves * 1e6:.2f}: "
              f"x{b / p:.3f}, {extra[-1]:.2f} us a move extra", flush=True)
    print(f"{a.game}, {len(ms)} matches, {moves / len(ms):.1f} moves a match, load {os.getloadavg()[0]:.1f}: "
          f"median x{statistics.median(ratios):.3f}, {statistics.median(extra):.2f} us a move extra")


if __name__ == "__main__":
    main()
