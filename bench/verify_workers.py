"""Verification on a pool (issue 25, section 3): the replay with 2 worker processes against 1, in the
same run, and what the driver costs per match (so how many workers one driver can feed).

    .venv/bin/python -m bench.verify_workers [--boards 12] [--repeat 2]

It writes a synthetic log (:func:`tournaments.analysis.synth.write_log`: real matches of three games),
then replays it with ``workers=1`` (in this process) and ``workers=2`` (a local pool through the
submission loop), alternating, ``--repeat`` times each, and prints the best wall time of each, the
ratio, and the driver's CPU seconds per match with 2 workers.  The machine may be shared: the load
average is printed with the figures.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tournaments.analysis.synth import write_log
from tournaments.analysis.verify import replay_all
from tournaments.analysis.views import TournamentLog

GAMES = ["hartenjagen", "manillen", "handjas"]
BOTS = ["random-a", "random-b", "first", "last"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "log"
        t0 = time.perf_counter()
        write_log(root, GAMES, BOTS, boards=args.boards, seed=3, max_deals=2, batch_size=16)
        log = TournamentLog(root)
        print(f"log: {len(log.parts['matches'])} batches, written in {time.perf_counter() - t0:.1f} s; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        best: dict[int, float] = {}
        driver = 0.0
        matches = moves = 0
        for _ in range(args.repeat):
            for w in (1, 2):
                stats = replay_all(log, workers=w)
                assert not stats.violations, stats.violations[:3]
                best[w] = min(best.get(w, float("inf")), stats.seconds)
                matches, moves = stats.matches, stats.moves
                if w == 2:
                    driver = stats.driver_seconds
        per_match = best[1] / matches
        print(f"{matches} matches, {moves} moves")
        print(f"1 worker : {best[1]:.2f} s ({moves / best[1]:,.0f} moves/s)")
        print(f"2 workers: {best[2]:.2f} s ({moves / best[2]:,.0f} moves/s)")
        print(f"ratio 2 workers / 1 worker: {best[1] / best[2]:.2f}x")
        print(f"driver CPU with 2 workers: {driver:.3f} s = {1e3 * driver / matches:.3f} ms per match "
              f"(a worker replays a match in {1e3 * per_match:.2f} ms: one driver feeds about "
              f"{per_match / (driver / matches):.0f} workers)")
        print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
