"""Tournament logs in an object store (issue 16), against a real S3 API: moto's standalone server on a
free localhost port (``moto[server]``, in the test extras), one bucket per test."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from tests.tournaments.conftest import FOUR, TIMING, comparable, raw_spec
from tournaments.log import TABLES
from tournaments.spec import parse_spec

MOTO = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
pytestmark = pytest.mark.skipif(not Path(MOTO).exists(), reason="moto[server] is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("moto_server did not start")
            time.sleep(0.1)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{s3_endpoint}")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return s3_endpoint


@pytest.fixture
def bucket(s3_env: str) -> str:
    import boto3
    name = f"b-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=f"http://{s3_env}").create_bucket(Bucket=name)
    return name


def _keys(bucket: str, prefix: str = "") -> list[str]:
    import boto3
    c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    got = c.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
    return sorted(o["Key"] for o in got)


def _spec(tmp_path: Path, out: str, **over: Any) -> Any:
    return parse_spec(raw_spec(tmp_path, bots=FOUR, output=out, secret="seed", **over))


def _query_rows(out: str) -> dict[str, list[dict[str, Any]]]:
    """Every table read back through ``open_log`` (the reader of ``cardarena query``), timing aside."""
    from tournaments.analysis import open_log
    log = open_log(out)
    got = {}
    for t in TABLES:
        tab = log.sql(f"SELECT * FROM {t}").to_arrow()
        cols = [c for c in tab.column_names if c not in TIMING]
        rows = tab.select(cols).to_pylist()
        rows.sort(key=lambda r: tuple(str(r[c]) for c in ("match_id", "ply", *cols) if c in r))
        got[t] = rows
    return got


def test_s3_tournament_equals_the_same_tournament_on_disk(tmp_path: Path, bucket: str) -> None:
    from tournaments.runners import run_tournament
    uri = f"s3://{bucket}/logs/t"
    on_disk = run_tournament(_spec(tmp_path, str(tmp_path / "disk")), executor="inline", progress=False)
    in_s3 = run_tournament(_spec(tmp_path, uri), executor="inline", progress=False)
    assert in_s3.complete and in_s3.done == on_disk.done == on_disk.total
    assert _query_rows(uri) == _query_rows(str(tmp_path / "disk"))
    assert comparable(tmp_path / "disk") == _query_rows(str(tmp_path / "disk"))
    keys = _keys(bucket, "logs/t/")
    assert not [k for k in keys if "/_staging/" in k], keys          # every staged object published
    assert "logs/t/_tournaments/t.json" in keys and "logs/t/_tournaments/t.secret" in keys
    assert "logs/t/_tournaments/t.lease-e1" in keys


def test_s3_two_drivers_at_once_the_second_is_refused(tmp_path: Path, bucket: str) -> None:
    from tournaments.runners import TournamentError, prepare
    spec = _spec(tmp_path, f"s3://{bucket}/t")
    first = prepare(spec)
    try:
        with pytest.raises(TournamentError, match="being run by another driver"):
            prepare(spec, resume=True)
    finally:
        first.release()
    again = prepare(spec, resume=True)          # released: the next run takes the next epoch
    assert again.epoch == 2
    again.release()


def test_s3_lease_is_a_conditional_write_one_driver_per_epoch(bucket: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Two drivers that both saw epoch 1 as the last: only the first creates the lease of epoch 2."""
    from tournaments import ledger
    from tournaments.ledger import LeaseHeld, acquire_lease
    from tournaments.paths import lease_path
    from tournaments.store import open_store
    store = open_store(f"s3://{bucket}/t")
    assert store.put_if_absent(lease_path("", "t", 1), b'{"released": true}')
    assert not store.put_if_absent(lease_path("", "t", 1), b"{}")
    first = acquire_lease(store, "t", ttl=30)
    assert first.epoch == 2
    monkeypatch.setattr(ledger, "leases", lambda store, tournament: [1])   # listed before lease 2 was made
    with pytest.raises(LeaseHeld, match="at the same time"):
        acquire_lease(store, "t", ttl=30)
    monkeypatch.undo()
    with pytest.raises(LeaseHeld, match="lease of epoch 2 expires in"):
        acquire_lease(store, "t", ttl=30)
    first.release()
    assert acquire_lease(store, "t", ttl=30).epoch == 3


@pytest.mark.slow
def test_s3_killed_driver_leftover_worker_only_reaches_staging(tmp_path: Path, bucket: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The race the epoch fence closed on disk, replayed on S3: a driver dies holding its lease (not
    released), the resume waits out the lease and takes epoch 2, then a worker of epoch 1 finishes.
    It can only write to staging, which the resumed run removes; every match is logged once."""
    from tournaments.runner import run_batch
    from tournaments.runners import Sizer, batches, prepare, run_tournament
    monkeypatch.setenv("CARDARENA_LEASE_TTL_S", "1")
    uri = f"s3://{bucket}/t"
    spec = _spec(tmp_path, uri, games=["hartenjagen"])
    first = prepare(spec)
    assert first.epoch == 1
    early, late = list(batches(first, Sizer(1.0, first=3)))[:2]
    first.publish(run_batch(early))     # committed while its driver lived
    first.lease = None                  # SIGKILLed: no release, its lease runs out
    assert first.mirror is not None
    first.mirror.close()

    with pytest.raises(Exception, match="being run by another driver"):
        prepare(spec, resume=True)       # the lease is still live
    time.sleep(1.1)
    second = prepare(spec, resume=True)
    assert second.epoch == 2 and second.done == set(early.match_ids)
    r = run_batch(late)                  # the orphan worker of epoch 1 finishes after the resume read
    assert r.attempt is not None
    staged = _keys(bucket, "t/_staging/")
    assert staged and all("/e1/" in k for k in staged)
    assert not [k for k in _keys(bucket, "t/matches/") if "-e1-" in k and
                any(n in k for n in r.parts[-1:])]
    second.release()

    s = run_tournament(spec, resume=True, executor="inline", progress=False)
    assert s.complete
    assert _keys(bucket, "t/_staging/") == []
    ids = [r["match_id"] for r in _query_rows(uri)["matches"]]
    assert len(ids) == len(set(ids)) == s.total
    assert set(late.match_ids) <= set(ids)
    disk = run_tournament(_spec(tmp_path, str(tmp_path / "disk"), games=["hartenjagen"]),
                          executor="inline", progress=False)
    assert disk.total == s.total
    assert _query_rows(uri) == _query_rows(str(tmp_path / "disk"))


def test_s3_a_fenced_driver_publishes_nothing(tmp_path: Path, bucket: str) -> None:
    """A driver that outlived its lease (another run took over) stops at its next publish."""
    from tournaments.ledger import Lease
    from tournaments.log import Fenced
    from tournaments.paths import lease_path
    from tournaments.runner import run_batch
    from tournaments.runners import Sizer, batches, prepare
    spec = _spec(tmp_path, f"s3://{bucket}/t")
    first = prepare(spec)
    assert isinstance(first.lease, Lease) and first.store is not None
    b = next(batches(first, Sizer(1.0, first=2)))
    r = run_batch(b)
    first.store.put(lease_path("", "t", 2), b"{}")    # a new run took over
    with pytest.raises(Fenced, match="took over"):
        first.publish(r)
    assert _keys(bucket, "t/matches/") == []
    first.lease = None
    first.release()


@pytest.mark.slow
def test_s3_driver_sigkilled_then_resume(tmp_path: Path, bucket: str) -> None:
    """The driver, a separate process, is SIGKILLed mid-run; ``--resume`` (after the lease's time to
    live) finishes with every match once, equal to an uninterrupted run."""
    import signal

    from tests.tournaments.conftest import toml_of
    raw = raw_spec(tmp_path, bots=FOUR, output=f"s3://{bucket}/t", games=["hartenjagen"], secret="seed",
                   matches_per_seating=2, max_deals=2)
    (tmp_path / "t.toml").write_text(toml_of(raw))
    env = {**os.environ, "CARDARENA_LEASE_TTL_S": "1"}
    cmd = [sys.executable, "-m", "dashboards.app", "tournament", "run", str(tmp_path / "t.toml"), "--inline"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=Path(__file__).parents[2])
    deadline = time.monotonic() + 60
    while not [k for k in _keys(bucket, "t/matches/")] and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(1.1)
    res = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[2])
    assert res.returncode == 0, res.stderr
    disk = parse_spec({**raw, "output": str(tmp_path / "disk")})
    from tournaments.runners import run_tournament
    d = run_tournament(disk, executor="inline", progress=False)
    got = _query_rows(f"s3://{bucket}/t")
    ids = [r["match_id"] for r in got["matches"]]
    assert len(ids) == len(set(ids)) == d.total
    assert got == _query_rows(str(tmp_path / "disk"))


@pytest.mark.parametrize("uri, what", [
    ("foo://bucket/x", "not a usable store URI"),
    ("s3://no-such-bucket-here/x", "no bucket 'no-such-bucket-here'"),
])
def test_s3_bad_store_uri_is_one_line_exit_2_nothing_written(tmp_path: Path, s3_env: str, uri: str,
                                                             what: str) -> None:
    from tests.tournaments.conftest import toml_of
    (tmp_path / "t.toml").write_text(toml_of(raw_spec(tmp_path, bots=FOUR, output=uri)))
    res = subprocess.run([sys.executable, "-m", "dashboards.app", "tournament", "run",
                          str(tmp_path / "t.toml"), "--inline"], capture_output=True, text=True,
                         timeout=60, cwd=Path(__file__).parents[2], env=dict(os.environ))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and uri.split("?")[0] in lines[0] and what in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_s3_unreachable_endpoint_is_one_line(tmp_path: Path, s3_env: str) -> None:
    from tournaments.store import StoreError, open_store
    port = _free_port()
    t0 = time.monotonic()
    with pytest.raises(StoreError, match=r"s3://b/x\?endpoint_override=.*cannot be reached") as e:
        open_store(f"s3://b/x?endpoint_override=127.0.0.1:{port}&scheme=http", timeout_s=1)
    assert "\n" not in str(e.value) and time.monotonic() - t0 < 15


def test_s3_part_names_and_layout_match_disk(tmp_path: Path, bucket: str) -> None:
    """The store holds the local layout (data/README.md): pyarrow reads its tables there as a dataset."""
    import pyarrow.dataset as ds

    from tournaments.runners import run_tournament
    from tournaments.store import open_store
    run_tournament(_spec(tmp_path, f"s3://{bucket}/t"), executor="inline", progress=False)
    run_tournament(_spec(tmp_path, str(tmp_path / "disk")), executor="inline", progress=False)
    store = open_store(f"s3://{bucket}/t")
    for t in TABLES:
        remote = ds.dataset(store.path(t), filesystem=store.fs, format="parquet", partitioning="hive")
        assert remote.to_table().num_rows == pq.read_table(tmp_path / "disk" / t).num_rows
        assert sorted(k.rsplit("/", 1)[-1] for k in store.list(t)) == sorted(
            p.name for p in (tmp_path / "disk" / t).rglob("*.parquet"))


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_s3_a_node_removed_mid_tournament_on_a_two_node_cluster(tmp_path: Path, bucket: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A two-node Ray cluster writing to S3, one node killed mid-batch (the real CLI, ``--address``):
    the run completes with every scheduled match in the log once, equal to an uninterrupted run on
    disk, read back through ``query``'s reader.  The nodes are started without any S3 setting (as
    machines of a cluster that only the driver configured): what the workers need reaches them from
    the driver."""
    from ray.cluster_utils import Cluster

    from tests.tournaments.conftest import toml_of
    from tests.tournaments.test_ray import driver, kill_node, killpg, long_spec, reference, workers_of
    from tournaments.schedule import schedule

    driver_env = {k: os.environ[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION",
                                             "AWS_ENDPOINT_URL")}
    for k in driver_env:
        monkeypatch.delenv(k)
    monkeypatch.setenv("RAY_health_check_period_ms", "1000")
    monkeypatch.setenv("RAY_health_check_failure_threshold", "3")
    uri = f"s3://{bucket}/logs"
    raw = {**long_spec(tmp_path, "unused", boards=60), "output": uri}
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text(toml_of(raw))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"head": 1},
                                                            "include_dashboard": False})
    try:
        node = cluster.add_node(num_cpus=1)
        for k, v in driver_env.items():
            monkeypatch.setenv(k, v)
        proc = driver(["run", str(spec_file), "--json", "--address", cluster.address])
        try:
            deadline = time.monotonic() + 60
            while not any(t.startswith(b"ray::_run_batch_on_node") for t in workers_of(node).values()):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "no batch ran on the second node"
                time.sleep(0.02)
            kill_node(cluster, node)
            out, err = proc.communicate(timeout=120)
        finally:
            killpg(proc, signal.SIGKILL)
    finally:
        cluster.shutdown()
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert summary["complete"] and summary["resubmitted"] >= 1, "a batch was running on the removed node"
    assert _keys(bucket, "logs/_staging/") == []
    scheduled = {m.match_id for m in schedule(parse_spec(raw))}
    got = _query_rows(uri)
    ids = [r["match_id"] for r in got["matches"]]
    assert len(ids) == len(set(ids)) == len(scheduled) and set(ids) == scheduled
    assert got == reference(tmp_path, raw)


def test_s3_store_settings_go_to_the_cluster_workers_only_for_a_store(tmp_path: Path, s3_env: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """What the driver forwards to a cluster's workers (``runtime_env`` ``env_vars``): its S3 endpoint,
    region and credentials when the log is in a store, nothing for a local directory."""
    from tournaments.runners import store_env
    monkeypatch.setenv("AWS_SESSION_TOKEN", "tok")
    monkeypatch.setenv("UNRELATED", "x")
    got = store_env("s3://b/x")
    assert got == {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                   "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{s3_env}",
                   "AWS_SESSION_TOKEN": "tok"}
    assert store_env("s3:/b/x") == got          # as pathlib leaves a URI
    assert store_env(str(tmp_path / "out")) == {}


def test_the_sandbox_choice_goes_to_the_cluster_workers_with_or_without_a_store(
        tmp_path: Path, s3_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An organiser who accepted the unshare fallback on the driver accepted it for every node of the
    job: ``CARDARENA_SANDBOX`` is forwarded with the store settings, and not invented when unset."""
    from tournaments.runners import job_env, store_env
    monkeypatch.delenv("CARDARENA_SANDBOX", raising=False)
    assert job_env("s3://b/x") == store_env("s3://b/x") and job_env(str(tmp_path / "out")) == {}
    monkeypatch.setenv("CARDARENA_SANDBOX", "unshare")
    assert job_env(str(tmp_path / "out")) == {"CARDARENA_SANDBOX": "unshare"}
    assert job_env("s3://b/x") == {**store_env("s3://b/x"), "CARDARENA_SANDBOX": "unshare"}


@pytest.mark.slow
def test_s3_wrong_credentials_are_one_line_exit_2(tmp_path: Path) -> None:
    """moto enforces credentials when started with ``INITIAL_NO_AUTH_ACTION_COUNT=0`` (every request
    then needs a key it issued): a run with a key it never issued stops with one line naming the URI."""
    from tests.tournaments.conftest import toml_of
    port = _free_port()
    proc = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "moto_server did not start"
                time.sleep(0.1)
        uri = "s3://bucket/x"
        (tmp_path / "t.toml").write_text(toml_of(raw_spec(tmp_path, bots=FOUR, output=uri)))
        env = {**os.environ, "AWS_ACCESS_KEY_ID": "wrong", "AWS_SECRET_ACCESS_KEY": "wrong",
               "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
        env.pop("AWS_PROFILE", None)
        res = subprocess.run([sys.executable, "-m", "dashboards.app", "tournament", "run",
                              str(tmp_path / "t.toml"), "--inline"], capture_output=True, text=True,
                             timeout=60, cwd=Path(__file__).parents[2], env=env)
    finally:
        proc.terminate()
        proc.wait(5)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and uri in lines[0] and "refused" in lines[0], res.stderr
    assert "ACCESS_DENIED" in lines[0], lines   # the refusal named, not an unreachable endpoint
    assert "Traceback" not in res.stderr


def test_s3_tasks_of_several_batches_publish_each_batch(tmp_path: Path, bucket: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A task of several batches (Ray's, Batch.every) stages every batch in one attempt and the driver
    publishes them together: each batch's matches part after the other files of all of them; the log
    reads as the same tournament on disk, nothing left staged."""
    from tournaments.runner import BatchResult, run_batch
    from tournaments.runners import Sizer, prepare, run_tournament
    from tournaments.runners.work import batches
    uri = f"s3://{bucket}/logs/g"
    run_tournament(_spec(tmp_path, str(tmp_path / "disk"), matches_per_seating=3), executor="inline",
                   progress=False)
    from tournaments.store import ObjectStore
    copied: list[str] = []
    copy = ObjectStore.copy

    def recorded(self: ObjectStore, src: Any, dst: Any) -> None:
        copied.append(str(dst))
        copy(self, src, dst)

    monkeypatch.setattr(ObjectStore, "copy", recorded)
    p = prepare(_spec(tmp_path, uri, matches_per_seating=3))
    try:
        sizer = Sizer(1.0)
        for w in ("w1", "w2", "w1"):   # a steady size of 2 matches a batch: tasks of 3 batches
            sizer.learn(BatchResult(p.plans[0].game.id, 2, 0, 0, 0, 1.0, 0.0, w, []))
        grouped = 0
        for b in batches(p, sizer, group=3):
            r = run_batch(b)
            commits = [k for k in r.parts if k.startswith("matches/")]
            grouped += b.every > 0 and len(commits) > 1
            copied.clear()
            p.publish(r)
            assert sorted(copied) == sorted(r_k.split(bucket + "/logs/g/", 1)[1] for r_k in r.parts)
            assert all(k.startswith("matches/") for k in copied[-len(commits):]), copied  # commits last
        assert grouped
    finally:
        p.release()
    assert _query_rows(uri) == _query_rows(str(tmp_path / "disk"))
    assert not [k for k in _keys(bucket, "logs/g/") if "/_staging/" in k]
