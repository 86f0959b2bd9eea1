"""Tournament throughput, logging cost and driver memory, measured in one run.

    .venv/bin/python bench/tournament.py                    # the full measurement (about 5 minutes)
    .venv/bin/python bench/tournament.py --quick            # smaller: 2,000 / 1,000 and 10,000 matches

1. **Plain loop**: the scheduled matches (in-process random bots) played one after the other with
   ``bots.match.play``, nothing logged: the single-process baseline.
2. **Logging cost per move** (CPU time): the same matches through the tournament's batch runner in
   this process (``executor="inline"``: per-move rows, Arrow tables, zstd Parquet part files, atomic
   renames), minus the plain loop, divided by the moves; split into the per-move bookkeeping and the
   writing.
3. **Throughput on 2 CPUs**, a tournament of ``--work-s`` (default 60) seconds of single-core work
   (the plain loop's rate is calibrated on a few hundred matches first; ``--matches`` fixes the count
   instead): the plain loop, then the **local path** (``executor="auto"``: a pool of forked workers)
   and **Ray** (``executor="ray"``, embedded, ``num_cpus=2``) on the same matches, then the plain loop
   again (the baseline is the mean of the two, so a change of the machine's load during the run
   counts against both sides).  End to end (the call of ``run_tournament`` to its return: preparing
   the directory, starting the workers, playing, logging, the manifest), after start-up, and in
   steady state (first to last batch).  The target: at least 1.5x the plain loop end to end.
4. **Driver memory**: a tournament of ``--rss-matches`` matches on Ray; the driver's RSS when 10% of
   them are done and at the end (the brief: 10k and 100k matches).

``--s3`` measures instead the log in object storage (issue 16) against local disk, on the same matches,
with moto's S3 server (``moto_server``, from ``moto[server]``) started on a free localhost port:

5. **Throughput to disk vs to S3** on the local path (``executor="auto"``, ``--cpus`` workers), end to
   end and in steady state: the same ``--matches`` (or ``--work-s`` seconds) to a directory and to
   ``s3://bucket/prefix``.
6. **Commit cost per batch**, in one process (``executor="inline"``, so every step is timed here): the
   worker's write of a batch (on disk ``commit_batch``: Parquet parts, fsync, renames; on S3
   ``stage_batch``: the same parts PUT under ``_staging/``) and, on S3 only, the driver's publish
   (``publish_batches``, in a publishing thread, one call per group of the staged batches waiting:
   two lease checks, a server-side copy per part, one delete request; its calls are counted as
   ``batches`` in ``s3_publish_batch``); batches of 0.1 s of play, so that there are many.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
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
from tournaments.runner import BatchResult, play_logged  # noqa: E402
from tournaments.runners import Summary, run_tournament  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.spec import Spec, parse_spec  # noqa: E402


def rss_mib() -> float:
    """This process's resident set size (VmRSS), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (the local path's workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def make_spec(game: str, matches: int, deals: int | None, out: Path, name: str, cpus: int,
              batch_s: float | None = None) -> Spec:
    n = game_class(game).default_players
    per_board = n * (3 if game_class(game).teams else 1)   # 4 entrants: one combination (x3 splits)
    bots: list[Any] = ["random", *({"name": f"random-{i}", "bot": "random"} for i in range(2, n + 1))]
    return parse_spec({"name": name, "seed": 1, "games": [game], "bots": bots,
                       "matches_per_seating": max(1, matches // per_board), "max_deals": deals,
                       "output": str(out),
                       "run": {"num_cpus": cpus, **({"batch_s": batch_s} if batch_s else {})}})


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


def parallel_run(spec: Spec, executor: str, rss_at: int | None = None) -> dict[str, Any]:
    """A tournament of ``spec`` on ``executor`` (``auto``: the local path; ``ray``), timed end to end."""
    marks: dict[str, Any] = {"first_batch": None, "first_done": 0, "batch_cpu": 0.0}
    rss: dict[int, float] = {}

    def on_batch(r: BatchResult, s: Summary) -> None:
        now = time.monotonic()
        if marks["first_batch"] is None:
            marks["first_batch"], marks["first_done"] = now, s.done_now
        marks["last_batch"], marks["last_done"] = now, s.done_now
        marks["batch_cpu"] += getattr(r, "cpu", 0.0) or 0.0
        if rss_at is not None and s.done_now >= rss_at and not rss:
            rss[s.done_now] = rss_mib()

    load0 = os.getloadavg()[0]
    c0 = cpu_s()
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.monotonic()
    s = run_tournament(spec, executor=executor, progress=False, on_batch=on_batch, fsync=True)
    wall = time.monotonic() - t
    out: dict[str, Any] = {"executor": s.executor, "matches": s.done_now, "moves": s.moves,
                           "wall_s": round(wall, 2), "startup_s": round(s.startup_seconds, 3),
                           "run_s": round(s.seconds - s.startup_seconds, 2),
                           "load_before_after": [round(load0, 1), round(os.getloadavg()[0], 1)]}
    if s.executor == "local":   # its workers are this process's children, reaped at the end of the run
        own = resource.getrusage(resource.RUSAGE_SELF)
        out["cpu_s"] = round(cpu_s() - c0, 2)
        out["driver_cpu_s"] = round(own.ru_utime + own.ru_stime - own0.ru_utime - own0.ru_stime, 2)
        # the workers' CPU inside run_batch (BatchResult.cpu); the rest of theirs is start-up and idle
        out["workers_batch_cpu_s"] = round(marks["batch_cpu"], 2)
    steady_t = marks.get("last_batch", 0) - (marks["first_batch"] or 0)
    steady_n = marks.get("last_done", 0) - marks["first_done"]
    out["steady_matches_per_s"] = round(steady_n / steady_t, 1) if steady_t > 0 else None
    out["rss_mib"] = {str(k): round(v, 1) for k, v in rss.items()}
    out["rss_mib"][str(s.done_now)] = round(rss_mib(), 1)
    return out


def ray_run(spec: Spec, rss_at: int | None = None) -> dict[str, Any]:
    return parallel_run(spec, "ray", rss_at)


class Timed:
    """A function of a module replaced by one that records the seconds of each call."""

    def __init__(self, module: Any, name: str) -> None:
        self.module, self.name = module, name
        self.calls: list[float] = []
        self.orig = getattr(module, name)

        def timed(*args: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return self.orig(*args, **kw)
            finally:
                self.calls.append(time.perf_counter() - t)
        setattr(module, name, timed)

    def restore(self) -> None:
        setattr(self.module, self.name, self.orig)

    def stats(self) -> dict[str, Any]:
        c = sorted(self.calls)
        if not c:
            return {"batches": 0}
        return {"batches": len(c), "mean_ms": round(statistics.fmean(c) * 1e3, 2),
                "median_ms": round(statistics.median(c) * 1e3, 2),
                "p90_ms": round(c[int(0.9 * (len(c) - 1))] * 1e3, 2), "total_s": round(sum(c), 3)}


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    """moto's S3 server on a free localhost port, and this process's AWS settings pointed at it."""
    moto = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
    if not Path(moto).exists():
        sys.exit("bench/tournament.py --s3: moto_server not found (pip install 'moto[server]')")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    proc = subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                sys.exit("bench/tournament.py --s3: moto_server did not start")
            time.sleep(0.1)
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
                       "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"})
    os.environ.pop("AWS_PROFILE", None)
    return proc, f"127.0.0.1:{port}"


def store_bench(a: argparse.Namespace, deals: int | None, tmp: Path) -> dict[str, Any]:
    """Sections 5 and 6: the same matches to local disk and to moto's S3 on localhost."""
    import boto3

    from tournaments import runner
    from tournaments.runners import preparation

    proc, endpoint = start_moto()
    try:
        boto3.client("s3", endpoint_url=f"http://{endpoint}").create_bucket(Bucket="bench")
        matches = a.matches
        if not matches:
            probe = make_spec(a.game, 400, deals, tmp / "probe", "probe", a.cpus)
            t_probe, n_probe, _ = plain_loop(probe)
            matches = max(100, int(a.work_s * n_probe / t_probe))
        out: dict[str, Any] = {"endpoint": endpoint, "matches": matches}
        # 5. throughput on the local path: disk, S3, disk again (the disk figure is the mean of the two)
        disk1 = parallel_run(make_spec(a.game, matches, deals, tmp / "d1", "d1", a.cpus), "auto")
        s3 = parallel_run(make_spec(a.game, matches, deals, Path("s3://bench/tp"), "s3", a.cpus), "auto")
        disk2 = parallel_run(make_spec(a.game, matches, deals, tmp / "d2", "d2", a.cpus), "auto")
        disk_wall = (disk1["wall_s"] + disk2["wall_s"]) / 2
        steady = statistics.fmean([disk1["steady_matches_per_s"] or 0, disk2["steady_matches_per_s"] or 0])
        out["throughput"] = {"disk": [disk1, disk2], "s3": s3,
                             "s3_over_disk_end_to_end": round(disk_wall / s3["wall_s"], 3),
                             "s3_over_disk_steady": round((s3["steady_matches_per_s"] or 0) / steady, 3)}
        # 6. the commit per batch, in this process
        n_commit = a.log_matches
        commit = Timed(runner, "commit_batch")
        t = time.monotonic()
        d = run_tournament(make_spec(a.game, n_commit, deals, tmp / "c", "c", a.cpus, 0.1), executor="inline",
                           progress=False, fsync=True)
        disk_s = time.monotonic() - t
        commit.restore()
        stage, publish = Timed(runner, "stage_batch"), Timed(preparation, "publish_batches")
        parts: list[int] = []
        orig_publish = publish.module.publish_batches

        def count(store: Any, lease: Any, staged: list[tuple[str, list[str]]]) -> Any:
            parts.extend(len(keys) for _, keys in staged)
            return orig_publish(store, lease, staged)
        preparation.publish_batches = count
        t = time.monotonic()
        s = run_tournament(make_spec(a.game, n_commit, deals, Path("s3://bench/c"), "c", a.cpus, 0.1),
                           executor="inline", progress=False)
        s3_s = time.monotonic() - t
        stage.restore()
        publish.restore()
        assert d.done_now == s.done_now == d.total
        out["commit_per_batch"] = {
            "matches": d.total, "disk_wall_s": round(disk_s, 2), "s3_wall_s": round(s3_s, 2),
            "parts_per_batch": round(statistics.fmean(parts), 1) if parts else None,
            "disk_commit_batch": commit.stats(), "s3_stage_batch": stage.stats(),
            "s3_publish_batch": publish.stats()}
        return out
    finally:
        proc.terminate()
        proc.wait(5)


def print_store(a: argparse.Namespace, st: dict[str, Any]) -> None:
    tp, cb = st["throughput"], st["commit_per_batch"]
    print(f"object store (moto_server at {st['endpoint']}) vs local disk, {st['matches']} matches, "
          f"local path on {a.cpus} CPUs:")
    for label, r in (("disk", tp["disk"][0]), ("s3", tp["s3"]), ("disk", tp["disk"][1])):
        print(f"  {label:4}: {r['matches'] / r['wall_s']:.1f}/s end to end (wall {r['wall_s']} s, start-up "
              f"{r['startup_s']} s), {r['steady_matches_per_s']}/s steady")
    print(f"  S3 / disk: x{tp['s3_over_disk_end_to_end']} end to end, x{tp['s3_over_disk_steady']} steady")
    print(f"commit per batch, one process, {cb['matches']} matches (wall: disk {cb['disk_wall_s']} s, "
          f"S3 {cb['s3_wall_s']} s), {cb['parts_per_batch']} parts per batch:")
    for key in ("disk_commit_batch", "s3_stage_batch", "s3_publish_batch"):
        x = cb[key]
        print(f"  {key:18}: {x['batches']} batches, mean {x.get('mean_ms')} ms, "
              f"median {x.get('median_ms')} ms, p90 {x.get('p90_ms')} ms, total {x.get('total_s')} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="hartenjagen")
    ap.add_argument("--deals", type=int, default=1, help="deals per match (0: whole matches)")
    ap.add_argument("--matches", type=int, default=0, help="matches for the throughput comparison "
                    "(0: as many as --work-s seconds of the plain loop)")
    ap.add_argument("--work-s", type=float, default=60.0, help="single-core seconds of the throughput run")
    ap.add_argument("--log-matches", type=int, default=2000, help="matches for the logging cost")
    ap.add_argument("--rss-matches", type=int, default=100_000, help="matches of the memory run (0: skip)")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--no-ray", action="store_true", help="leave Ray out of the throughput run (the local "
                    "pool against the plain loop only)")
    ap.add_argument("--quick", action="store_true", help="2,000 / 1,000 / 10,000 matches")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--s3", action="store_true", help="only the object-store comparison (sections 5-6) "
                    "against moto_server on localhost")
    a = ap.parse_args()
    if a.quick:
        a.matches, a.log_matches = a.matches or 2000, 1000
        a.rss_matches = 10_000 if a.rss_matches == 100_000 else a.rss_matches
    deals = a.deals or None
    tmp = Path(tempfile.mkdtemp(prefix="cardarena-bench-"))
    if a.s3:
        try:
            st = store_bench(a, deals, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        st = {"game": a.game, "deals_per_match": deals, "cpus": a.cpus,
              "machine": f"{platform.node()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}", **st}
        if a.json:
            print(json.dumps(st, indent=2))
        else:
            print(f"machine: {st['machine']}; game {a.game}, {deals or 'whole'} deal(s) per match")
            print_store(a, st)
        return
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
        # 3. throughput: plain loop vs the local path and Ray on 2 CPUs, same matches
        matches = a.matches
        if not matches:   # calibrate: --work-s seconds of the plain loop
            probe = make_spec(a.game, 400, deals, tmp / "probe", "probe", a.cpus)
            t_probe, n_probe, _ = plain_loop(probe)
            matches = max(100, int(a.work_s * n_probe / t_probe))
        spec = make_spec(a.game, matches, deals, tmp / "local", "local", a.cpus)
        c0 = cpu_s()
        base1, n, moves = plain_loop(spec)
        plain_cpu = cpu_s() - c0
        local = parallel_run(spec, "auto")
        spec_ray = make_spec(a.game, matches, deals, tmp / "ray", "ray", a.cpus)
        r = parallel_run(spec_ray, "ray") if not a.no_ray else None
        c0 = cpu_s()
        base2, _, _ = plain_loop(spec)
        plain_cpu = (plain_cpu + cpu_s() - c0) / 2   # before and after, as the wall clock's baseline
        base_s = (base1 + base2) / 2
        plain_rate = n / base_s

        def ratios(x: dict[str, Any]) -> dict[str, Any]:
            return {"end_to_end": round(n / x["wall_s"] / plain_rate, 2),
                    "after_startup": round(n / x["run_s"] / plain_rate, 2),
                    "steady": round((x["steady_matches_per_s"] or 0) / plain_rate, 2)}

        report["throughput"] = {
            "matches": n, "moves": moves, "plain_s": [round(base1, 2), round(base2, 2)],
            "plain_matches_per_s": round(plain_rate, 1), "local": local, "ray": r,
            "local_speedup": ratios(local), "ray_speedup": ratios(r) if r else None, "target": 1.5,
            "plain_cpu_s": round(plain_cpu, 2),   # the mean of the runs before and after
            "local_cpu_over_plain": round(local["cpu_s"] / plain_cpu, 3)}
        shutil.rmtree(tmp / "local", ignore_errors=True)
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
    print(f"throughput, {tp['matches']} matches ({tp['plain_s']} s of plain loop, before and after): "
          f"plain loop {tp['plain_matches_per_s']}/s")
    ray_load = f", ray {tp['ray']['load_before_after']}" if tp["ray"] else ""
    print(f"  local path CPU (driver + workers) / plain loop CPU: {tp['local_cpu_over_plain']} "
          f"(plain {tp['plain_cpu_s']} CPU s, local {tp['local']['cpu_s']}); load average before/after: "
          f"local {tp['local']['load_before_after']}{ray_load}")
    print(f"  of the local path's CPU: driver {tp['local']['driver_cpu_s']} s, workers in their batches "
          f"{tp['local']['workers_batch_cpu_s']} s, the workers' other CPU "
          f"{tp['local']['cpu_s'] - tp['local']['driver_cpu_s'] - tp['local']['workers_batch_cpu_s']:.2f} s")
    for key in ("local", "ray") if tp["ray"] else ("local",):
        r, x = tp[key], tp[f"{key}_speedup"]
        print(f"  {key:5} on {a.cpus} CPUs: {r['matches'] / r['wall_s']:.1f}/s end to end "
              f"(wall {r['wall_s']} s, start-up {r['startup_s']} s), {r['matches'] / r['run_s']:.1f}/s after "
              f"start-up, {r['steady_matches_per_s']}/s steady: x{x['end_to_end']} / x{x['after_startup']} / "
              f"x{x['steady']} (target x{tp['target']} end to end)")
    if "driver_memory" in report:
        print(f"driver RSS (MiB) by matches done: {report['driver_memory']['rss_mib']}")


if __name__ == "__main__":
    main()
