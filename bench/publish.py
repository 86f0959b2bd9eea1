"""The driver's cost per committed batch (issue 25 section 5): what one driver spends to commit a batch
a worker finished, on local files and on an object store (moto's standalone server), and so how many
cores it can feed at ``batch_s = 1`` (cores = batch seconds / driver seconds per batch).

    .venv/bin/python -m bench.publish [--batches 200]

- **Local files**: the worker commits its own batch (``commit_batch``: write, fsync, rename under the
  shared lock); the driver only reads the result.  Measured: ``commit_batch``'s CPU and wall per batch
  (in the worker), and the driver's share, nothing per batch but its bookkeeping.
- **Object store**: the worker stages the batch (``stage_batch``: 4 PUTs); the driver publishes it
  (``publish_batch``: two lease checks, 4 server-side copies, 4 deletes).  Measured: the driver's CPU
  (``time.process_time``) and wall per publish, in one thread.

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
    from tournaments.ledger import acquire_lease, publish_batch
    from tournaments.log import TABLES, commit_batch, stage_batch
    from tournaments.paths import committed_parts
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
            staged = []
            s0 = time.perf_counter()
            for i in range(a.batches):
                attempt = f"a{i}"
                staged.append((attempt, stage_batch(store, Staged(i), lease.epoch, attempt)))
            stage_wall = (time.perf_counter() - s0) / a.batches
            c0, w0 = time.process_time(), time.perf_counter()
            for attempt, keys in staged:
                publish_batch(store, lease, attempt, keys)
            pub_cpu = (time.process_time() - c0) / a.batches
            pub_wall = (time.perf_counter() - w0) / a.batches
        finally:
            proc.terminate()
            proc.wait(10)
        print(f"{a.batches} batches; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print("| per batch | CPU ms | wall ms | cores one driver feeds at batch_s = 1 (CPU / wall) |")
        print("|---|---|---|---|")
        print(f"| local files: the worker's commit_batch (the driver: nothing per batch) | "
              f"{local_cpu * 1e3:.1f} | {local_wall * 1e3:.1f} | unbounded by the commit |")
        print(f"| S3 (moto): the worker's stage_batch | - | {stage_wall * 1e3:.1f} | (in the worker) |")
        print(f"| S3 (moto): the driver's publish_batch | {pub_cpu * 1e3:.1f} | {pub_wall * 1e3:.1f} | "
              f"{1 / pub_cpu:,.0f} / {1 / pub_wall:,.0f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
