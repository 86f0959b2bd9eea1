"""Logs at scale (issue 25, section 4; the local-disk part): the same log uncompacted and compacted,
and what a reader pays on each.

    .venv/bin/python -m bench.scale [--moves 1000000] [--dir /tmp/cardarena-bench-scale]

It plays a small synthetic log (:func:`tournaments.analysis.synth.write_log`), replicates it under new
match ids up to ``--moves`` moves (:func:`~tournaments.analysis.synth.replicate`: small parts, as a run
of short batches writes), copies it and compacts the copy (:func:`tournaments.compact.compact`).  For
each it measures, in this process, wall and CPU seconds of: opening the log (``open_log``: every
footer checked, every matches part decoded), a query of one game and one bot, ``rank``'s data (the
matches table) and ``verify --sample 0.01``'s replay; and the files and bytes on disk.  The machine
may be shared: the load average is printed.  Not measured here (left for later): the object store
(moto) side, 10^7 and 10^8 moves, peak memory per reader, bytes read per query.
"""
from __future__ import annotations

import argparse
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tournaments.analysis import open_log
from tournaments.analysis.synth import replicate, write_log
from tournaments.analysis.verify import replay_all
from tournaments.compact import compact

GAMES = ["hartenjagen", "manillen", "handjas"]
BOTS = ["random-a", "random-b", "first", "last"]


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def _files(root: Path) -> tuple[int, int]:
    fs = [p for t in ("matches", "moves", "events") for p in (root / t).rglob("*.parquet")]
    return len(fs), sum(p.stat().st_size for p in fs)


def measure(root: Path) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    w, c, log = _timed(lambda: open_log(root))
    out["open_log (check every part)"] = (w, c)
    w, c, _ = _timed(lambda: log.rows("SELECT count(*) n, avg(think_us) t FROM moves "
                                      "WHERE game = 'hartenjagen' AND bot = 'first'"))
    out["query: one game, one bot (moves)"] = (w, c)
    w, c, _ = _timed(lambda: log.matches(columns=["match_id", "bots", "ranking", "scores"]))
    out["rank's input (matches columns)"] = (w, c)
    w, c, _ = _timed(lambda: replay_all(log, workers=1, sample=0.01, seed=1))
    out["verify --sample 0.01 (replay, 1 worker)"] = (w, c)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/cardarena-bench-scale"))
    a = ap.parse_args()
    shutil.rmtree(a.dir, ignore_errors=True)
    base, flat, packed = a.dir / "base", a.dir / "uncompacted", a.dir / "compacted"
    write_log(base, GAMES, BOTS, boards=8, seed=11, batch_size=8, tournament="synth")
    moves_base = replicate(base, a.dir / "probe", 1)
    shutil.rmtree(a.dir / "probe")
    factor = max(1, round(a.moves / moves_base))
    total = replicate(base, flat, factor)
    shutil.copytree(flat, packed)
    w, c, done = _timed(lambda: compact(packed, "synth", fsync=False))
    print(f"log: {total:,} moves ({factor} copies of {moves_base:,}); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"compaction: {w:.1f} s wall, {c:.1f} s CPU; batches per game {done.games}")
    rows = {}
    for name, root in (("uncompacted", flat), ("compacted", packed)):
        n, size = _files(root)
        print(f"{name}: {n:,} files, {size / 1e6:,.1f} MB")
        rows[name] = measure(root)
    print("| reader | uncompacted wall / CPU s | compacted wall / CPU s | ratio (wall) |")
    print("|---|---|---|---|")
    for k in rows["uncompacted"]:
        (w1, c1), (w2, c2) = rows["uncompacted"][k], rows["compacted"][k]
        print(f"| {k} | {w1:.2f} / {c1:.2f} | {w2:.2f} / {c2:.2f} | {w1 / w2:.1f}x |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
