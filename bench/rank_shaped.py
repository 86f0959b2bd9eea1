"""``cardarena rank`` and the headline leaderboard on a log of a played tournament's shape (issue 28 §1).

    .venv/bin/python bench/rank_shaped.py [--matches 68640] [--entrants 12] [--baseline-tree DIR]
                                          [--coverage 200] [--dir /tmp/cardarena-bench-shaped] [--keep]

1. Builds the log with :func:`tournaments.analysis.synth.write_shaped`: one-deal matches of all the
   registered games at their default seat counts, duplicate groups of every rotation, ``--entrants``
   entrants of known log-strengths (evenly spaced in [-0.6, 0.6]), each match carrying the moves of a
   one-deal match played at random (the moves table of a real log of that size: 9M moves for 68,640
   matches).
2. ``cardarena rank DIR --json`` as a command: CPU of the process and its workers (``os.wait4``) and
   their largest resident set.  With ``--baseline-tree DIR`` (e.g. ``git archive 012801d | tar -x -C
   DIR``) the same command with that tree first on ``PYTHONPATH``, interleaved with this tree's runs,
   and the ratio of the two.  Goal: <= 15 s of CPU and <= 1 GB.
3. The headline leaderboard (``tournament leaderboard``'s computation, ``leaderboard.headlines``) over
   the same matches, in-process CPU.
4. ``--coverage R``: R small logs (one 4-seat game, 8 entrants, 100 duplicate groups each, planted
   strengths); the share of the 95% intervals of the Plackett-Luce strength that hold the (centred)
   truth, for the interval ``rank`` shows (the group sandwich, :func:`ratings.strength_cov`) and the
   200-replicate group bootstrap it replaced (:func:`ratings.bootstrap_fits`), with their mean
   half-widths and CPU per board.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

from engine import GAMES  # noqa: E402
from tournaments.analysis import open_log  # noqa: E402
from tournaments.analysis.leaderboard import Result, headlines  # noqa: E402
from tournaments.analysis.ratings import (  # noqa: E402
    Z95,
    bootstrap_fits,
    build_patterns,
    fit_pl,
    load_matches,
    strength_cov,
)
from tournaments.analysis.synth import write_shaped  # noqa: E402


def run_command(args: list[str], pythonpath: str | None = None) -> tuple[float, float, float, str]:
    """(CPU s of the command and its waited-for workers, max RSS in MB, wall s, stdout)."""
    import tempfile
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        # python -m puts the working directory first on sys.path: run in the tree measured
        p = subprocess.Popen(args, stdout=out, stderr=err, env=env, text=True,
                             cwd=pythonpath or str(HERE.parent))
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if p.returncode:
            raise SystemExit(f"{args} failed: {err.read().strip()[-500:]}")
        return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, wall, out.read()


def strengths(n: int) -> dict[str, float]:
    return {f"bot{i:02d}": float(x) for i, x in enumerate(np.linspace(-0.6, 0.6, n))}


def coverage(reps: int, root: Path) -> dict[str, dict[str, float]]:
    names = strengths(8)
    truth = np.array([names[k] for k in sorted(names)])
    truth -= truth.mean()
    hit = {"sandwich": 0, "bootstrap": 0}
    width = {"sandwich": 0.0, "bootstrap": 0.0}
    cpu = {"sandwich": 0.0, "bootstrap": 0.0}
    total = 0
    for r in range(reps):
        d = root / f"cov{r}"
        write_shaped(d, ["hartenjagen"], names, 400, seed=1000 + r, played=0)
        ms = load_matches(open_log(d, tables=("matches",)))
        shutil.rmtree(d)
        pt = build_patterns(ms)
        theta = fit_pl(pt, pt.counts)
        t0 = time.process_time()
        half = Z95 * np.sqrt(np.diag(strength_cov(pt, theta)))
        cpu["sandwich"] += time.process_time() - t0
        t0 = time.process_time()
        lo, hi = np.percentile(bootstrap_fits(pt, theta, 200, r), [2.5, 97.5], axis=0)
        cpu["bootstrap"] += time.process_time() - t0
        hit["sandwich"] += int(((theta - half <= truth) & (truth <= theta + half)).sum())
        hit["bootstrap"] += int(((lo <= truth) & (truth <= hi)).sum())
        width["sandwich"] += float(half.sum())
        width["bootstrap"] += float(((hi - lo) / 2).sum())
        total += len(truth)
    return {k: {"coverage": hit[k] / total, "mean_half_width": width[k] / total,
                "cpu_ms_per_board": 1000 * cpu[k] / reps, "intervals": total} for k in hit}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=68_640)
    ap.add_argument("--entrants", type=int, default=12)
    ap.add_argument("--reps", type=int, default=2, help="runs of this tree's rank command")
    ap.add_argument("--baseline-tree", type=Path, help="an older tree to run the same rank command from")
    ap.add_argument("--coverage", type=int, default=0, help="small logs for the coverage table")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/cardarena-bench-shaped"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="use the log already in --dir")
    a = ap.parse_args()
    log_dir = a.dir / "log"
    res: dict[str, Any] = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if not (a.reuse and log_dir.exists()):
        shutil.rmtree(a.dir, ignore_errors=True)
        t0 = time.process_time()
        nm, nmoves = write_shaped(log_dir, GAMES, strengths(a.entrants), a.matches, seed=7)
        res["log"] = {"matches": nm, "moves": nmoves, "games": len(GAMES), "entrants": a.entrants,
                      "build_cpu_s": round(time.process_time() - t0, 1)}
        print(f"log: {nm:,} matches, {nmoves:,} moves, {len(GAMES)} games, {a.entrants} entrants", flush=True)
    cmd = [sys.executable, "-m", "dashboards", "rank", str(log_dir.resolve()), "--json"]
    runs: dict[str, list[tuple[float, float, float]]] = {"this": [], "baseline": []}
    for k in range(a.reps):
        cpu, rss, wall, out = run_command(cmd)
        runs["this"].append((cpu, rss, wall))
        print(f"rank (this tree) run {k}: {cpu:.1f} s CPU, {rss:.0f} MB max RSS, {wall:.1f} s wall",
              flush=True)
        if a.baseline_tree and k == 0:
            tree = str(a.baseline_tree.resolve())
            where = subprocess.run([sys.executable, "-c", "import tournaments.analysis.ratings as r; "
                                    "print(r.__file__)"], env=dict(os.environ, PYTHONPATH=tree), cwd=tree,
                                   capture_output=True, text=True, check=True).stdout.strip()
            if not where.startswith(tree):
                raise SystemExit(f"the baseline tree is not imported first ({where}): run this with the "
                                 "worktree's own .venv")
            cpu, rss, wall, _ = run_command(cmd, tree)
            runs["baseline"].append((cpu, rss, wall))
            print(f"rank (baseline tree) : {cpu:.1f} s CPU, {rss:.0f} MB max RSS, {wall:.1f} s wall",
                  flush=True)
    boards = json.loads(out)
    best = min(runs["this"])
    res["rank"] = {"cpu_s": round(best[0], 2), "max_rss_mb": round(best[1]), "wall_s": round(best[2], 1),
                   "goal": "<= 15 s CPU, <= 1024 MB", "ok": best[0] <= 15 and best[1] <= 1024,
                   "boards": len(boards)}
    if runs["baseline"]:
        b = runs["baseline"][0]
        res["rank"]["baseline"] = {"cpu_s": round(b[0], 2), "max_rss_mb": round(b[1]),
                                   "wall_s": round(b[2], 1)}
        res["rank"]["cpu_ratio_baseline_over_this"] = round(b[0] / best[0], 1)
    ms = load_matches(open_log(log_dir, tables=("matches",)))
    results = [Result(m.game, m.group_id, m.bots, m.teams, m.ranking) for m in ms]
    t0 = time.process_time()
    heads = headlines(results)
    res["headlines"] = {"cpu_s": round(time.process_time() - t0, 2), "boards": len(heads)}
    print(f"headlines (tournament leaderboard's computation): {res['headlines']['cpu_s']} s CPU", flush=True)
    if a.coverage:
        res["coverage"] = coverage(a.coverage, a.dir)
        for k, v in res["coverage"].items():
            print(f"coverage {k:9s}: {v['coverage']:.3f} of {v['intervals']} 95% intervals, mean half-width "
                  f"{v['mean_half_width']:.3f}, {v['cpu_ms_per_board']:.1f} ms CPU per board", flush=True)
    res["load_average_end"] = os.getloadavg()
    print(json.dumps(res))
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
