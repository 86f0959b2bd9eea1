"""The driver's cost per committed batch (issue 25 section 5): what one driver spends to commit a batch
a worker finished, on local files and on an object store (moto's standalone server), and so how many
cores it can feed at ``batch_s = 1`` (cores = batch seconds / driver seconds per batch).

    .venv/bin/python -m bench.publish [--batches 200]

- **Local files**: the worker commits its own batch (``commit_batch``: write, fsync, rename under the
  shared lock); the driver only reads the result.  Measured: ``commit_batch``'s CPU and wall per batch
  (in the worker), and the driver's share, nothing per batch but its bookkeeping.
- **Object store**: the worker stages the batch (``stage_batch``: 4 PUTs); the driver publishes it
  (``publish_batch``: two lease checks, 4 server-side copies, the staged copies deleted).  Measured:
  the driver's CPU (``time.process_time``, every thread) and wall per batch, four ways in the same
  run: main's request pattern before the publish pool (boto3 copies, a delete request per object,
  one batch at a time: the baseline), ``publish_batch`` one at a time (pyarrow's copies, one delete
  request), the driver's :class:`~tournaments.runners.publish.Publisher` (threads publishing the
  batches waiting as groups: two lease checks a group) given every staged batch at once (a driver
  whose workers return batches faster than it publishes them), and the same with Ray's tasks of four
  batches (one staged attempt each).

The same staged batch contents (one Hartenjagen match of random bots) each time; CPU is the driver's
own, which on a real cluster does nothing else between publishes.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any


def _moto() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    exe = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
    proc = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("moto_server did not start") from None
            time.sleep(0.1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=200)
    a = ap.parse_args()
    import boto3

    from tournaments.analysis.synth import write_log
    from tournaments.ledger import acquire_lease, publish_batch, publish_batches
    from tournaments.log import TABLES, commit_batch, stage_batch
    from tournaments.paths import committed_parts
    from tournaments.runner import BatchResult
    from tournaments.runners.publish import THREADS, Publisher
    from tournaments.store import open_store

    tmp = Path(tempfile.mkdtemp(prefix="cardarena-bench-publish-"))
    try:
        # one real batch, read back as the BatchLog a worker would hold
        write_log(tmp / "src", ["hartenjagen"], ["random-a", "random-b", "first", "last"], boards=1, seed=3,
                  batch_size=1, tournament="bench")
        import pyarrow as pa
        import pyarrow.parquet as pq

        from tournaments.log import BatchLog
        part = committed_parts(tmp / "src", "bench")[0]
        tables = {t: pq.ParquetFile(part.parent.parent.parent / t / part.parent.name / part.name).read()
                  for t in TABLES}

        class Staged(BatchLog):
            def __init__(self, i: int) -> None:
                super().__init__("bench", "hartenjagen")
                self.match_ids = [f"{i:016x}"]

            def tables(self) -> dict[str, pa.Table]:
                return tables   # the same rows each time: the cost is per batch, not per row

        # local files: the worker's commit (the driver does nothing per batch)
        out = tmp / "disk"
        from tournaments.ledger import begin_epoch
        epoch = begin_epoch(out, "bench")   # the run's fence, as a driver starts it
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(a.batches):
            commit_batch(out, Staged(i), fsync=True, epoch=epoch)
        local_cpu = (time.process_time() - c0) / a.batches
        local_wall = (time.perf_counter() - w0) / a.batches

        proc, endpoint = _moto()
        try:
            os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                              AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint)
            bucket = f"publish-{uuid.uuid4().hex[:8]}"
            boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
            store = open_store(f"s3://{bucket}/log")
            lease = acquire_lease(store, "bench", ttl=600)
            n = a.batches
            count = iter(range(1 << 30))

            def stage(per_attempt: int = 1) -> list[tuple[str, list[str]]]:
                out = []
                for i in range(n // per_attempt):
                    keys: list[str] = []
                    for _ in range(per_attempt):
                        keys += stage_batch(store, Staged(next(count)), lease.epoch, f"a{i}-{per_attempt}")
                    out.append((f"a{i}-{per_attempt}", keys))
                return out

            s0 = time.perf_counter()
            staged = {"old": stage(), "serial": stage(), "pool": stage(), "tasks": stage(4)}
            stage_wall = (time.perf_counter() - s0) / (4 * n)
            client = store._client()
            rows = []

            def old_publish(attempt: str, keys: list[str]) -> None:
                """main's request pattern before the publish pool: boto3 copies, a delete per key."""
                from tournaments.paths import staging_dir
                st = staging_dir("", lease.tournament, lease.epoch, attempt)
                lease.check()
                for k in keys[:-1]:
                    src = store.path(st / k).partition("/")[2]
                    client.copy_object(Bucket=bucket, Key=store.path(k).partition("/")[2],
                                       CopySource={"Bucket": bucket, "Key": src})
                lease.check()
                last = store.path(st / keys[-1]).partition("/")[2]
                client.copy_object(Bucket=bucket, Key=store.path(keys[-1]).partition("/")[2],
                                   CopySource={"Bucket": bucket, "Key": last})
                for k in keys:
                    store.delete(st / k)

            def timed(what: str, fn: Any) -> None:
                c0, w0 = time.process_time(), time.perf_counter()
                fn()
                rows.append((what, (time.process_time() - c0) / n, (time.perf_counter() - w0) / n))

            def pooled(items: list[tuple[str, list[str]]]) -> None:
                pub = Publisher(lambda group: publish_batches(store, lease, [(r.attempt or "", r.parts)
                                                                             for r in group]))
                try:
                    for attempt, keys in items:
                        pub.submit(BatchResult("hartenjagen", 1, 0, 0, 0, 0.0, 0.0, "w", keys,
                                               attempt=attempt))
                    pub.finished(wait=True)
                finally:
                    pub.close()

            def one_by_one(how: Any, items: list[tuple[str, list[str]]]) -> None:
                for attempt, keys in items:
                    how(attempt, keys)

            timed("main's publish_batch, one at a time (boto3 copies, a delete request per object)",
                  lambda: one_by_one(old_publish, staged["old"]))
            timed("publish_batch, one at a time (pyarrow copies, one delete request)",
                  lambda: one_by_one(lambda at, k: publish_batch(store, lease, at, k), staged["serial"]))
            timed(f"the driver's Publisher ({THREADS} threads, groups of the batches waiting)",
                  lambda: pooled(staged["pool"]))
            timed("the same, Ray tasks of 4 batches (an attempt each)", lambda: pooled(staged["tasks"]))
            left = [k for k in store.list("_staging")]
            assert not left, left[:3]
        finally:
            proc.terminate()
            proc.wait(10)
        print(f"{n} batches; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print("| per batch | CPU ms | wall ms | cores one driver feeds at batch_s = 1 (CPU / wall) |")
        print("|---|---|---|---|")
        print(f"| local files: the worker's commit_batch (the driver: nothing per batch) | "
              f"{local_cpu * 1e3:.1f} | {local_wall * 1e3:.1f} | unbounded by the commit |")
        print(f"| S3 (moto): the worker's stage_batch | - | {stage_wall * 1e3:.1f} | (in the worker) |")
        for what, cpu, wall in rows:
            print(f"| S3 (moto), the driver: {what} | {cpu * 1e3:.2f} | {wall * 1e3:.2f} | "
                  f"{1 / cpu:,.0f} / {1 / wall:,.0f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
