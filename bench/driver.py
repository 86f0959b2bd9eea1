"""The tournament driver's CPU per committed batch (issue 25 section 5), measured on a real run: the
local pool (two forked workers) writing local files, tiny batches (``batch_s = 0.01``: one
Hartenjagen match of random bots a batch, one deal), so that the driver's fixed cost per batch
dominates.  The cluster one driver can feed at ``batch_s = 1`` is ``1 s / driver CPU per batch``
cores (each core finishing one batch a second).

    .venv/bin/python -m bench.driver [--small 2] [--large 8] [--profile] [--batch-s 0.01] [--executor ray]
                                    [--group N] [--s3]

Two runs of the same spec, ``--small`` and ``--large`` boards (60 matches a board: 6 entrants, every
seating of 4 in 4 rotations); the driver's CPU is ``getrusage(RUSAGE_SELF)`` of this process (the
workers are its forked children, not counted), and the cost per batch is the difference of the two
runs over the difference of their batches, so start-up (the pool's fork, the preparation, the
manifest) cancels out.  ``--profile``: cProfile of the larger run's driver, the functions of most
own time.  On local files the worker commits its own batch (``commit_batch``: write, fsync, rename
under the lock); the driver submits, collects and accounts (bench/publish.py has the object store's
publish, which the driver does itself).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import tempfile
import time
from typing import Any


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def run(boards: int, out: str, profile: cProfile.Profile | None = None, batch_s: float = 0.01,
        executor: str = "local") -> dict[str, Any]:
    from tournaments.runners.driver import run_tournament
    from tournaments.spec import parse_spec

    spec = parse_spec({"name": f"drv{boards}", "seed": 1, "secret": "seed", "matches_per_seating": boards,
                       "max_deals": 1, "output": out, "games": ["hartenjagen"],
                       "bots": [{"name": f"r{i}", "bot": "random"} for i in range(6)],
                       "run": {"batch_s": batch_s, "num_cpus": 2}})
    batches = commits = 0
    worked = worker_cpu = 0.0

    def on_batch(r: Any, s: object) -> None:
        nonlocal batches, commits, worked, worker_cpu
        batches += 1
        commits += sum(1 for p in r.parts if "/matches/" in str(p))
        worked += r.seconds + r.write_seconds
        worker_cpu += r.cpu

    c0, k0, t0 = _cpu(), _cpu(resource.RUSAGE_CHILDREN), time.monotonic()
    if profile is not None:
        profile.enable()
    s = run_tournament(spec, executor=executor, progress=False, on_batch=on_batch)
    if profile is not None:
        profile.disable()
    return {"boards": boards, "matches": s.done_now, "batches": batches, "commits": commits,
            "cpu": _cpu() - c0,
            "wall": time.monotonic() - t0, "worked": worked, "worker_cpu": worker_cpu,
            "children": _cpu(resource.RUSAGE_CHILDREN) - k0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", type=int, default=2)
    ap.add_argument("--large", type=int, default=8)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--batch-s", type=float, default=0.01,
                    help="the runs' batch_s (default 0.01: one match a batch)")
    ap.add_argument("--executor", choices=("local", "ray"), default="local",
                    help="ray: the embedded Ray (started once, by the warm-up run)")
    ap.add_argument("--s3", action="store_true",
                    help="the log in a moto server of its own (the driver publishes every batch)")
    ap.add_argument("--group", type=int, default=None,
                    help="batches a Ray task carries (default: the driver's RAY_TASK_BATCHES)")
    a = ap.parse_args()
    if a.group is not None:
        from tournaments.runners import driver as drv
        drv.RAY_TASK_BATCHES = a.group
    if a.executor == "ray":   # one embedded Ray for every run, so that none of them pays its start-up
        import logging

        import ray
        ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=128 << 20,
                 logging_level=logging.ERROR, log_to_driver=False)
    idle = 0.0
    moto = None
    if a.s3:   # the driver publishes every staged batch (its publish pool)
        import uuid

        import boto3

        from bench.publish import _moto
        moto, endpoint = _moto()
        os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                          AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint)
        bucket = f"driver-{uuid.uuid4().hex[:8]}"
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
    with tempfile.TemporaryDirectory(prefix="bench-driver-") as tmp:
        if moto is not None:
            tmp = f"s3://{bucket}"
        run(1, os.path.join(tmp, "warm"), executor=a.executor)   # imports and first-use costs out of the way
        if a.executor == "ray":   # Ray's own threads in the driver spend CPU while it waits: per second
            c0, t0 = _cpu(), time.monotonic()
            time.sleep(3.0)
            idle = (_cpu() - c0) / (time.monotonic() - t0)
        small = run(a.small, os.path.join(tmp, "small"), batch_s=a.batch_s, executor=a.executor)
        prof = cProfile.Profile() if a.profile else None
        large = run(a.large, os.path.join(tmp, "large"), prof, a.batch_s, a.executor)
    if moto is not None:
        moto.terminate()
        moto.wait(10)
    for r in (small, large):
        print(f"{r['boards']} boards: {r['matches']} matches in {r['commits']} batches "
              f"({r['batches']} tasks), "
              f"driver CPU {r['cpu']:.3f} s, wall {r['wall']:.2f} s "
              f"({r['cpu'] / max(1, r['batches']) * 1e3:.2f} ms/task)")
    if idle:
        print(f"the driver idle with Ray up: {idle * 1e3:.1f} ms CPU a second (Ray's threads; subtracted "
              "below, "
              "as it does not grow with the work)")
    busy = {k: r["cpu"] - idle * r["wall"] for k, r in (("small", small), ("large", large))}
    db = large["batches"] - small["batches"]
    per = (busy["large"] - busy["small"]) / db if db > 0 else float("nan")
    print(f"driver CPU per task (marginal, {db} tasks): {per * 1e3:.2f} ms; at one task a second a core, "
          f"one driver feeds about {1 / per:,.0f} cores" if per > 0 else
          f"driver CPU per task not resolved (difference {per})")
    dm = large["matches"] - small["matches"]
    driver = (busy["large"] - busy["small"]) / dm
    worker = large["worker_cpu"] / large["matches"]
    line = (f"per match (marginal, {dm} matches): driver CPU {driver * 1e6:.2f} us; worker CPU "
            f"{worker * 1e3:.2f} ms (the worker processes' own, in each batch), wall "
            f"{large['worked'] / large['matches'] * 1e3:.2f} ms")
    if a.executor == "local":
        children = (large["children"] - small["children"]) / dm
        line += f"; the forked workers' getrusage: {children * 1e3:.2f} ms CPU"
    print(line)
    print(f"cores fed = worker per match / driver CPU per match = {worker / driver:,.0f}" if driver > 0
          else f"driver CPU per match not resolved (difference {driver})")
    print(f"load average {os.getloadavg()[0]:.1f}")
    if a.executor == "ray":
        ray.shutdown()
    if prof is not None:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
        print(buf.getvalue())


if __name__ == "__main__":
    main()
