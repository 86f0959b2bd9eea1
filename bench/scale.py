"""Logs at scale (issue 25, section 4): the same log uncompacted and compacted, on local disk and in an
object store (moto's standalone server), and what each reader pays on each.

    .venv/bin/python -m bench.scale --moves 1000000 [--moto] [--files] [--results bench/scale.json]
    .venv/bin/python -m bench.scale --fit bench/scale.json        # growth exponents over the sizes run
    .venv/bin/python -m bench.scale --moves 100000000 --reuse --layouts uncompacted   # the logs built before

It plays a small synthetic log (:func:`tournaments.analysis.synth.write_log`), replicates it under new
match ids up to ``--moves`` moves (:func:`~tournaments.analysis.synth.replicate`: small parts, as a run
of short batches writes), copies it and compacts the copy (:func:`tournaments.compact.compact`).  With
``--moto`` it starts a moto server of its own (request recording on) and uploads both trees.

Each reader is the real command (``cardarena query`` of one game and one bot, ``rank``, ``coverage``,
``verify --sample 0.01``, ``dashboard --no-verify``) in a fresh process, measured from outside: wall
seconds, CPU seconds (user + system of the process and its children, ``wait4``) and peak memory (the
process's own ``VmHWM``: ``ru_maxrss`` would report the benchmark's own size, inherited at fork).
Bytes read: on disk the process's ``rchar`` (``/proc/self/io``) while the command runs (the
interpreter's own start-up excluded); on moto the bytes the server served (each GET's range, or the
whole object), from its request recording, with the objects fetched.  ``--files`` adds a second,
untimed run of each disk reader under ``strace -e openat`` to count the part files it opens.  The
machine may be shared: the load average is printed with every row.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

GAMES = ["hartenjagen", "manillen", "handjas"]
BOTS = ["random-a", "random-b", "first", "last"]
ROOT = Path(__file__).resolve().parents[1]

READERS: dict[str, list[str]] = {
    "query (one game, one bot)": ["query", "{R}", "SELECT count(*) AS n, avg(think_us) AS t FROM moves "
                                  "WHERE game = 'hartenjagen' AND bot = 'first'", "--format", "json"],
    "query --game (one game, one bot)": ["query", "{R}", "SELECT count(*) AS n, avg(think_us) AS t FROM "
                                         "moves WHERE game = 'hartenjagen' AND bot = 'first'", "--format",
                                         "json", "--game", "hartenjagen"],
    "rank": ["rank", "{R}", "--json"],
    "coverage": ["coverage", "{R}", "--json"],
    "verify --sample 0.01": ["verify", "{R}", "--sample", "0.01", "--seed", "1", "--workers", "1", "--json"],
    "dashboard --no-verify": ["dashboard", "{R}", "--no-verify", "--sample", "20", "--json", "--output",
                              "{OUT}"],
}


# ------------------------------------------------------------------------------------------ the child
def run_child(argv: list[str], report: str) -> None:
    """In the measured process: the command, with its ``rchar`` and wall time written to ``report``."""
    def rchar() -> int:
        with open("/proc/self/io") as f:
            return int(next(line for line in f if line.startswith("rchar:")).split()[1])
    from dashboards.app import main  # (imported before the count starts: start-up is not the reader's)
    r0, t0 = rchar(), time.perf_counter()
    code = 0
    try:
        sys.argv = ["cardarena", *argv]
        main()
    except SystemExit as e:
        code = int(e.code or 0) if not isinstance(e.code, str) else 2
    with open("/proc/self/status") as f:   # this process's own peak (ru_maxrss keeps the parent's from fork)
        hwm = int(next(line for line in f if line.startswith("VmHWM:")).split()[1])
    Path(report).write_text(json.dumps({"rchar": rchar() - r0, "seconds": time.perf_counter() - t0,
                                        "exit": code, "peak_kb": hwm}))


# ------------------------------------------------------------------------------------------ moto
class Moto:
    """A moto server of this benchmark's own, its requests recorded to a file."""

    def __init__(self, tmp: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.recording = tmp / "moto-recording.jsonl"
        exe = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
        env = {**os.environ, "MOTO_RECORDER_FILEPATH": str(self.recording)}
        self.proc = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(self.port)], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("moto_server did not start") from None
                time.sleep(0.1)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": self.endpoint}
        import boto3
        self.client = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                                   aws_access_key_id="testing", aws_secret_access_key="testing")
        self.bucket = f"scale-{uuid.uuid4().hex[:8]}"
        self.client.create_bucket(Bucket=self.bucket)
        self.sizes: dict[str, int] = {}

    def upload(self, root: Path, prefix: str) -> None:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                key = f"{prefix}/{f.relative_to(root).as_posix()}"
                data = f.read_bytes()
                self.client.put_object(Bucket=self.bucket, Key=key, Body=data)
                self.sizes[key] = len(data)

    def _api(self, what: str) -> None:
        import urllib.request
        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/moto-api/recorder/{what}",
                                                      method="POST"), timeout=10).read()

    def start(self) -> None:
        self._api("reset-recording")
        self._api("start-recording")

    def served(self) -> tuple[int, int, int]:
        """(GET requests, distinct objects fetched, bytes served) since :meth:`start`."""
        self._api("stop-recording")
        gets, keys, size = 0, set(), 0
        text = self.recording.read_text() if self.recording.exists() else ""
        for line in text.splitlines():
            r = json.loads(line)
            if r["method"] != "GET":
                continue
            path = r["url"].split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
            bucket, _, key = path.partition("/")
            if bucket != self.bucket or not key or "list-type" in r["url"] or "prefix=" in r["url"]:
                continue   # a listing
            from urllib.parse import unquote
            key = unquote(key)
            gets += 1
            keys.add(key)
            rng = {k.lower(): v for k, v in r["headers"].items()}.get("range")
            m = re.match(r"bytes=(\d+)-(\d*)", rng or "")
            if m:
                end = int(m.group(2)) if m.group(2) else self.sizes.get(key, 0) - 1
                size += min(end, self.sizes.get(key, end + 1) - 1) - int(m.group(1)) + 1
            else:
                size += self.sizes.get(key, 0)
        return gets, len(keys), size

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# ------------------------------------------------------------------------------------------ measuring
def measure(argv: list[str], env: dict[str, str], tmp: Path) -> dict[str, Any]:
    report = tmp / f"report-{uuid.uuid4().hex[:8]}.json"
    cmd = [sys.executable, "-m", "bench.scale", "--child", str(report), "--", *argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=False)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    got = json.loads(report.read_text()) if report.exists() else {"exit": proc.returncode}
    if got.get("exit") not in (0, 1):
        raise SystemExit(f"{argv[0]} failed (exit {got.get('exit')}): {err.decode()[-500:]}")
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "max_rss_mb": got.get("peak_kb", 0) / 1024,
            "reader_s": got.get("seconds"), "rchar": got.get("rchar"), "load": os.getloadavg()[0]}


def files_opened(argv: list[str], env: dict[str, str], tmp: Path) -> int:
    """The part files the command opens (``strace -f -e openat``; an untimed run of its own)."""
    trace = tmp / f"trace-{uuid.uuid4().hex[:8]}.txt"
    report = tmp / f"report-{uuid.uuid4().hex[:8]}.json"
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", str(trace), sys.executable, "-m",
                    "bench.scale", "--child", str(report), "--", *argv], cwd=ROOT, env={**os.environ, **env},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    opened = set()
    for line in trace.read_text(errors="replace").splitlines():
        m = re.search(r'openat\([^,]+, "([^"]+\.parquet)"', line)
        if m and "= -1" not in line:
            opened.add(m.group(1))
    trace.unlink()
    return len(opened)


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def _files(root: Path) -> tuple[int, int]:
    fs = [p for t in ("matches", "moves", "events") for p in (root / t).rglob("*.parquet")]
    return len(fs), sum(p.stat().st_size for p in fs)


def played(a: argparse.Namespace, flat: Path) -> int:
    """A real tournament over every game (the four entrants are random players under :data:`BOTS`'
    labels, so the query's bot exists), ``a.played`` boards, one deal a match, on the local pool; its
    moves."""
    from tournaments.runners import run_tournament
    from tournaments.spec import parse_spec
    spec = parse_spec({"name": "played", "seed": 3, "secret": "seed", "matches_per_seating": a.played,
                       "max_deals": 1, "output": str(flat), "games": "all",
                       "bots": [{"name": b, "bot": "random"} for b in BOTS], "run": {"batch_s": 2.0}})
    s = run_tournament(spec, executor="local", progress=False)
    return s.moves


def reused(a: argparse.Namespace) -> tuple[Path, Path, int, dict[str, Any]] | None:
    """``--reuse``: the logs an earlier run left in ``--dir`` (its ``log.json``), when there."""
    flat, packed, saved = a.dir / "uncompacted", a.dir / "compacted", a.dir / "log.json"
    if not (a.reuse and saved.is_file() and flat.is_dir() and packed.is_dir()):
        return None
    info: dict[str, Any] = json.loads(saved.read_text())
    shutil.rmtree(a.dir / "tmp", ignore_errors=True)
    print(f"reusing the logs in {a.dir}", flush=True)
    return flat, packed, int(info["moves"]), info


def build(a: argparse.Namespace) -> tuple[Path, Path, int, dict[str, Any]]:
    from tournaments.analysis.synth import replicate, write_log
    from tournaments.compact import compact
    got = reused(a)
    if got is not None:
        return got
    shutil.rmtree(a.dir, ignore_errors=True)
    base, flat, packed = a.dir / "base", a.dir / "uncompacted", a.dir / "compacted"
    if a.played:
        factor, tid = 0, "played"
        pw, pc, total = _timed(lambda: played(a, flat))
        print(f"played: {total:,} moves in {pw:.0f} s wall, {pc:.0f} s CPU (the driver's)", flush=True)
    else:
        tid = "synth"
        write_log(base, GAMES, BOTS, boards=8, seed=11, batch_size=8, tournament="synth")
        moves_base = replicate(base, a.dir / "probe", 1)
        shutil.rmtree(a.dir / "probe")
        factor = max(1, round(a.moves / moves_base))
        total = replicate(base, flat, factor)
    shutil.copytree(flat, packed)
    w, c, done = _timed(lambda: compact(packed, tid, fsync=False))
    info = {"moves": total, "copies": factor, "compaction_wall_s": w, "compaction_cpu_s": c,
            "played": bool(a.played), "batches": {g: list(v) for g, v in done.games.items()}}
    for name, root in (("uncompacted", flat), ("compacted", packed)):
        n, size = _files(root)
        info[name] = {"files": n, "bytes": size}
    (a.dir / "log.json").write_text(json.dumps(info))   # (for --reuse)
    return flat, packed, total, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=1_000_000)
    ap.add_argument("--played", type=int, default=0, metavar="BOARDS",
                    help="a played log instead of the synthetic one: a real tournament of every game, "
                         "four random entrants, BOARDS boards (--moves is then not used)")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "cardarena-bench-scale")
    ap.add_argument("--moto", action="store_true", help="also read both logs in a moto server")
    ap.add_argument("--files", action="store_true", help="count the part files a disk reader opens (strace)")
    ap.add_argument("--only", default="", help="comma-separated readers (default: all)")
    ap.add_argument("--layouts", default="uncompacted,compacted")
    ap.add_argument("--results", type=Path, help="append this run's rows to this JSON file")
    ap.add_argument("--reuse", action="store_true",
                    help="read the logs an earlier run built in --dir instead of building them again")
    ap.add_argument("--fit", type=Path, help="print growth exponents from a --results file, and stop")
    a = ap.parse_args()
    if a.fit:
        fit(a.fit)
        return
    flat, packed, total, info = build(a)
    print(f"log: {total:,} moves ({info['copies']} copies); compaction {info['compaction_wall_s']:.1f} s "
          f"wall, {info['compaction_cpu_s']:.1f} s CPU; uncompacted {info['uncompacted']['files']:,} files "
          f"{info['uncompacted']['bytes'] / 1e6:,.1f} MB, compacted {info['compacted']['files']:,} files "
          f"{info['compacted']['bytes'] / 1e6:,.1f} MB; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
          "CPUs", flush=True)
    tmp = a.dir / "tmp"
    tmp.mkdir()
    moto = Moto(tmp) if a.moto else None
    places: list[tuple[str, str, str, dict[str, str]]] = []
    layouts = a.layouts.split(",")
    for name, root in (("uncompacted", flat), ("compacted", packed)):
        if name in layouts:
            places.append(("disk", name, str(root), {}))
    if moto is not None:
        for name, root in (("uncompacted", flat), ("compacted", packed)):
            if name in layouts:
                t0 = time.perf_counter()
                moto.upload(root, name)
                w = time.perf_counter() - t0
                print(f"uploaded {name} to moto: {w:.1f} s", flush=True)
                places.append(("moto", name, f"s3://{moto.bucket}/{name}", moto.env))
    only = [r for r in a.only.split(",") if r]
    rows: list[dict[str, Any]] = []
    old = json.loads(a.results.read_text()) if a.results and a.results.exists() else []
    print("| reader | where | layout | wall s | CPU s | peak MB | files | bytes read | of the log | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        for reader, argv0 in READERS.items():
            if only and not any(o in reader for o in only):
                continue
            for place, layout, where, env in places:
                page = str(tmp / "report.html")
                argv = [where if x == "{R}" else page if x == "{OUT}" else x for x in argv0]
                if moto is not None and place == "moto":
                    moto.start()
                m = measure(argv, env, tmp)
                log_bytes = info[layout]["bytes"]
                if place == "moto" and moto is not None:
                    m["gets"], m["files"], m["bytes"] = moto.served()
                else:
                    m["bytes"] = m["rchar"]
                    m["files"] = files_opened(argv, env, tmp) if a.files else None
                m.update(reader=reader, place=place, layout=layout, moves=total, log_bytes=log_bytes)
                rows.append(m)
                if a.results:   # after every row: a run cut short keeps what it measured
                    a.results.write_text(json.dumps([*old, {"info": info, "rows": rows}], indent=1))
                files = "-" if m["files"] is None else f"{m['files']:,}"
                print(f"| {reader} | {place} | {layout} | {m['wall_s']:.2f} | {m['cpu_s']:.2f} | "
                      f"{m['max_rss_mb']:,.0f} | {files} | {m['bytes'] / 1e6:,.2f} MB | "
                      f"{m['bytes'] / log_bytes:.1%} | {m['load']:.1f} |", flush=True)
    finally:
        if moto is not None:
            moto.close()


def fit(path: Path) -> None:
    """Least-squares slope of log(cost) on log(moves) per reader, place and layout (cost ∝ moves^k)."""
    runs = json.loads(path.read_text())
    series: dict[tuple[str, str, str], list[tuple[int, dict[str, Any]]]] = {}
    for run in runs:
        for r in run["rows"]:
            series.setdefault((r["reader"], r["place"], r["layout"]), []).append((r["moves"], r))
    print("| reader | where | layout | sizes | k (CPU s) | k (wall s) | k (peak MB) | k (bytes) |")
    print("|---|---|---|---|---|---|---|---|")
    for (reader, place, layout), pts in sorted(series.items()):
        pts.sort(key=lambda p: p[0])
        if len({n for n, _ in pts}) < 2:
            continue

        def k(key: str, pts: list[tuple[int, dict[str, Any]]] = pts) -> str:
            xs = [math.log(n) for n, r in pts if r.get(key)]
            ys = [math.log(r[key]) for _, r in pts if r.get(key)]
            if len(xs) < 2:
                return "-"
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            den = sum((x - mx) ** 2 for x in xs)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else None
            return "-" if slope is None else f"{slope:.2f}"
        sizes = ", ".join(f"10^{math.log10(n):.0f}" for n, _ in pts)
        print(f"| {reader} | {place} | {layout} | {sizes} | {k('cpu_s')} | {k('wall_s')} | {k('max_rss_mb')} "
              f"| {k('bytes')} |")


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        run_child(sys.argv[4:], sys.argv[2])
    else:
        main()
