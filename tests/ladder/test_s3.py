"""A ladder in an object store (``ladder create --out s3://...``; tournaments/ladder/remote.py), against
moto's S3 server: the versions and their changes as append-only records created with conditional
writes, submissions while the runner runs, and a SIGKILLed run restarted losing and doubling no
group."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.ladder.conftest import GOOD_BOT, OTHER_BOT, bot_file, tiny_spec
from tests.ladder.test_loop import check_log
from tests.tournaments.test_s3 import MOTO, bucket, s3_endpoint, s3_env  # noqa: F401  (fixtures)
from tournaments.ladder import tables
from tournaments.ladder.core import create_ladder
from tournaments.ladder.loop import run_ladder
from tournaments.ladder.remote import CHANGES, SETTLEMENT, VERSIONS, Records, local_copy
from tournaments.ladder.state import LadderError, LadderStore
from tournaments.ledger import read_store_secret
from tournaments.store import open_store

pytestmark = pytest.mark.skipif(not Path(MOTO).exists(), reason="moto[server] is not installed")
PROJECT = Path(__file__).resolve().parents[2]


def quiet(_text: str) -> None:
    pass


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CARDARENA_COMPILED": "0"}
    return subprocess.run([sys.executable, "-m", "dashboards", *args], cwd=PROJECT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@contextmanager
def copy_of(uri: str) -> Iterator[Path]:
    """A local copy of the ladder's log and records, to check it with the local ladder's readers."""
    with local_copy(open_store(uri), "lad", ["matches", *tables.SIDE_TABLES]) as (root, _, _):
        yield root


def keys(uri: str, prefix: str) -> list[str]:
    return open_store(uri).list(prefix)


@pytest.fixture
def lad(bucket: str) -> str:  # noqa: F811
    uri = f"s3://{bucket}/club"
    assert create_ladder(tiny_spec(), uri) == uri
    return uri


def test_s3_create_submit_run_status_and_board(tmp_path: Path, lad: str) -> None:
    """``create``, ``submit``, ``run``, ``status`` and ``board`` on a store; the versions and changes
    are records (one object each), never a database."""
    assert create_ladder(tiny_spec(), lad) == lad   # the same spec again: nothing changes
    with pytest.raises(LadderError, match="another spec"):
        create_ladder(tiny_spec(seed=4), lad)
    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "good", GOOD_BOT)), "--name", "good",
            "--author", "ann", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ref"] == "good@1"
    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "other", OTHER_BOT)), "--name", "other",
            "--author", "bob", "--json")
    assert r.returncode == 0, r.stderr
    s = run_ladder(lad, groups=6, executor="inline", say=quiet)
    assert s.groups_new == 6 and s.groups_committed == 6 and s.validated == ["good@1", "other@1"]
    with copy_of(lad) as root:
        got = check_log(root)
        assert len(set(got["groups"])) == 6 and set(got["committed"]) == set(got["groups"])
    status = json.loads(cli("ladder", "status", lad, "--json").stdout)
    states = {v["ref"]: (v["author"], v["state"]) for v in status["versions"]}
    assert states["good@1"] == ("ann", "active") and states["other@1"] == ("bob", "active")
    assert states["random"] == ("reference", "active")
    assert status["groups"]["committed"] == 6
    board = json.loads(cli("ladder", "board", lad, "--json").stdout)
    assert board["watermark"]["groups"] == 6
    assert {"good@1", "other@1", "random", "greedy"} <= {r["ref"] for r in board["overall"]}
    # the records: one object per version and per change, nothing in SQLite in the store
    ks = keys(lad, "_ladder")
    assert f"{VERSIONS}/good@1.json" in ks and f"{CHANGES}/good@1/000001.json" in ks
    assert not [k for k in keys(lad, "") if k.endswith(".sqlite")]
    assert not [k for k in keys(lad, "") if "_staging" in k]   # every staged group published


def test_s3_records_are_never_overwritten(tmp_path: Path, lad: str) -> None:
    """Two submitters who both saw no version of a name: the second's claim of ``@1`` fails (a
    conditional create) and it takes ``@2``; two writers of one version's changes get numbers 1 and
    2, and the state is the later one's."""
    spec = tiny_spec()
    with local_copy(open_store(lad), "lad", []) as (a_root, _, _), \
            local_copy(open_store(lad), "lad", []) as (b_root, _, _):
        a, b = LadderStore(a_root), LadderStore(b_root)
        b.versions()   # b has read the records: no version of "good" yet
        va, new_a, _ = a.submit(spec, _src(tmp_path, "one", GOOD_BOT), "good", "ann")
        vb, new_b, _ = b.submit(spec, _src(tmp_path, "two", OTHER_BOT), "good", "ann")
        assert new_a and new_b and (va.ref, vb.ref) == ("good@1", "good@2")
        body = json.loads(open_store(lad).get(f"{VERSIONS}/good@1.json"))
        assert body["hash"] == va.hash != vb.hash   # the first claim stands
        a.move("good@1", "placement", "validated")
        b.move("good@1", "rejected", "a second writer")   # b read the records before a's change
        assert keys(lad, f"{CHANGES}/good@1") == [f"{CHANGES}/good@1/000001.json",
                                                  f"{CHANGES}/good@1/000002.json"]
        a.sync()
        assert a.version("good@1").state == "rejected"
        assert [(c.from_state, c.to_state) for c in a.changes() if c.ref == "good@1"] == [
            (None, "validating"), ("validating", "placement"), ("placement", "rejected")]
    assert Records(open_store(lad)).create(f"{VERSIONS}/good@1.json", {"ref": "x"}) is False


def _src(tmp_path: Path, name: str, text: str) -> Any:
    from bots.api import bot_source
    return bot_source(bot_file(tmp_path, name, text))


def _start(uri: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "dashboards", "ladder", "run", uri, *args], cwd=PROJECT,
                            env={**os.environ, "CARDARENA_COMPILED": "0", **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _wait(cond: Any, timeout: float) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.2)


def _committed(uri: str) -> int:
    return len(keys(uri, "matches"))


@pytest.mark.slow
def test_s3_submit_while_running(tmp_path: Path, lad: str) -> None:
    """A version submitted (by another process) while ``ladder run`` runs is validated, placed and
    played by that run."""
    p = _start(lad, "--for", "60s", "--json")
    try:
        _wait(lambda: _committed(lad) >= 2, 120)
        r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "late", GOOD_BOT)), "--name", "late",
                "--author", "cat", "--json")
        assert r.returncode == 0, r.stderr
        out, err = p.communicate(timeout=240)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0, err
    assert json.loads(out)["validated"] == ["late@1"]
    status = {v["ref"]: v for v in json.loads(cli("ladder", "status", lad, "--json").stdout)["versions"]}
    assert status["late@1"]["state"] == "active" and status["late@1"]["groups"] >= 1
    with copy_of(lad) as root:
        check_log(root)


def test_s3_sigkilled_run_restarted_loses_and_doubles_no_group(lad: str) -> None:
    """SIGKILLed mid-run and restarted once its lease ran out: the groups it wrote but did not commit
    are played under their ids by the next run (its epoch fences off the killed run's workers), none
    is lost or doubled, and the stored online ratings equal their rebuild."""
    env = {"CARDARENA_LEASE_TTL_S": "2"}
    p = _start(lad, "--groups", "400", env=env)
    try:
        _wait(lambda: _committed(lad) >= 4, 120)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    with copy_of(lad) as root:
        before = {g["group_id"] for g in tables.read(root, "groups", "lad")}
        done = set(tables.committed(root, "lad").by_group)
    assert 4 <= len(done) <= len(before) < 400
    time.sleep(2.5)   # the killed run's lease runs out
    r = subprocess.run([sys.executable, "-m", "dashboards", "ladder", "run", lad, "--groups", "2", "--json"],
                       cwd=PROJECT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["groups_resubmitted"] == len(before - done)
    with copy_of(lad) as root:
        got = check_log(root)
        assert before <= set(got["groups"])
        assert set(got["committed"]) == set(got["groups"])   # every written group ran, once
        assert len(got["groups"]) == len(set(got["groups"])) == len(before) + 2
    assert not [k for k in keys(lad, "") if "_staging" in k]


def test_s3_close_settles_in_the_store_on_a_fresh_key_and_a_second_close_is_refused(tmp_path: Path,
                                                                                    lad: str) -> None:
    """``ladder close s3://...`` (the real CLI): drained and locked, the settlement played in the store
    under its own lease on a fresh key (not the ladder's), its SHA-256 and then the key in the store's
    settlement record and the key in the log; ``status`` and ``board`` show the places; a second close
    and a submission are refused in one line; no staged object is left."""
    store = open_store(lad)
    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "good", GOOD_BOT)), "--name", "good",
            "--author", "ann")
    assert r.returncode == 0, r.stderr
    run_ladder(lad, groups=3, executor="inline", say=quiet)
    r = cli("ladder", "close", lad, "--budget", "6", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    key = bytes.fromhex(res["key"])
    assert hashlib.sha256(key).hexdigest() == res["key_sha256"]
    record = json.loads(store.get(SETTLEMENT))
    assert (record["key"], record["key_sha256"]) == (res["key"], res["key_sha256"])
    assert read_store_secret(store, "lad-settle") == key != read_store_secret(store, "lad")
    assert store.get("_tournaments/lad-settle.secret").decode().strip() == res["key"]   # in the log
    assert sorted(p["ref"] for p in res["places"]) == sorted(res["frozen"]) and "good@1" in res["frozen"]
    assert res["places"][0]["place"] == 1 and 1 <= res["groups"] <= 6
    with local_copy(store, ["lad", "lad-settle"], ["matches", "groups"]) as (root, _, _):
        settle = tables.committed(root, "lad-settle").by_group
        ladder = tables.committed(root, "lad").by_group
        assert set(settle) == {g["group_id"] for g in tables.read(root, "groups", "lad-settle")}
    assert len(settle) == res["groups"]
    assert not {m["match_id"] for rs in settle.values() for m in rs} & \
        {m["match_id"] for rs in ladder.values() for m in rs}
    status = json.loads(cli("ladder", "status", lad, "--json").stdout)
    board = json.loads(cli("ladder", "board", lad, "--json").stdout)
    assert status["closed"] and status["settlement"]["places"] == res["places"]
    assert board["settlement"]["places"] == res["places"]
    assert board["settlement"]["key_sha256"] == res["key_sha256"]
    text = cli("ladder", "status", lad).stdout
    assert f"key SHA-256 {res['key_sha256']}" in text and res["places"][0]["ref"] in text
    again = cli("ladder", "close", lad)
    assert again.returncode == 2 and "already settled" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    late = cli("ladder", "submit", lad, str(bot_file(tmp_path, "late", OTHER_BOT)), "--name", "late",
               "--author", "zed")
    assert late.returncode == 2 and "closed" in late.stderr
    assert not [k for k in keys(lad, "") if "_staging" in k]
    v = cli("verify", lad, "--workers", "1", "--json")   # the ladder's and the settlement's matches replay
    assert v.returncode == 0, v.stdout[-2000:] + v.stderr
    report = json.loads(v.stdout)
    assert report["ok"] and report["matches"] == sum(len(rs) for rs in [*settle.values(), *ladder.values()])


def test_query_of_a_store_ladder_sees_its_tables_in_place(tmp_path: Path, lad: str) -> None:
    """``cardarena query s3://.../LADDER`` (the real CLI) has the views ``groups``, ``ratings_online``
    and ``board`` beside ``matches``, read in place: their rows are the ones the ladder's own readers
    see in a copy of the store."""
    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "good", GOOD_BOT)), "--name", "good",
            "--author", "ann")
    assert r.returncode == 0, r.stderr
    run_ladder(lad, groups=3, executor="inline", say=quiet)
    with copy_of(lad) as root:
        want = {t: len(tables.read(root, t, "lad")) for t in tables.SIDE_TABLES}
        refs = sorted({r["ref"] for r in tables.read(root, "ratings_online", "lad")})
        snaps = max(r["snapshot"] for r in tables.read(root, "board", "lad"))
    assert want["groups"] == 3 and want["ratings_online"] > 0 and want["board"] > 0
    sql = ("SELECT (SELECT count(*) FROM groups) AS g, (SELECT count(*) FROM ratings_online) AS r, "
           "(SELECT count(*) FROM board) AS b, (SELECT count(DISTINCT group_id) FROM matches) AS m, "
           "(SELECT max(snapshot) FROM board) AS s, "
           "(SELECT string_agg(DISTINCT ref, ',' ORDER BY ref) FROM ratings_online) AS refs")
    r = cli("query", lad, sql, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    row = got[0] if isinstance(got, list) else got["rows"][0]
    assert (row["g"], row["r"], row["b"], row["m"], row["s"]) == (
        want["groups"], want["ratings_online"], want["board"], 3, snaps)
    assert row["refs"].split(",") == refs


WORKER = """
import json, pickle, sys
from tournaments.runner import run_batch
r = run_batch(pickle.loads(open(sys.argv[1], "rb").read()))
print(json.dumps({"matches": r.matches, "faults": r.faults, "errors": r.errors}))
"""


def test_a_worker_on_another_machine_plays_submitted_versions_from_the_store(
        tmp_path: Path, lad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group's batch of a ladder in a store names where its submitted versions' files are in the
    store: a worker with another temporary directory and working directory, after the driver's local
    copy is gone, fetches them into its own cache, checks them against the registered digest and
    plays them.  Files in the store that do not hash to the digest are refused, and a cached copy
    changed on the worker's disk is fetched again."""
    import pickle

    from tournaments.ladder.code import CACHE, worker_sources
    from tournaments.ladder.core import load_spec
    from tournaments.ladder.loop import make_batch

    store = open_store(lad)
    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "good", GOOD_BOT)), "--name", "good",
            "--author", "ann")
    assert r.returncode == 0, r.stderr
    run_ladder(lad, groups=2, executor="inline", say=quiet)
    secret = read_store_secret(store, "lad")
    assert secret is not None
    with local_copy(store, "lad", ["matches", "groups"]) as (root, _, _):
        spec = load_spec(root)
        LadderStore(root).versions()
        g = next(g for g in tables.read(root, "groups", "lad") if "good@1" in g["arrangement"])
        refs = {x.label: x.bot for x in spec.reference}
        batch = make_batch(spec, root, secret, g, 99, refs, {}, fsync=False, out=lad)
        h = LadderStore(root).version("good@1").hash
    assert set(batch.code) == {"good@1"} and batch.code["good@1"].hash == h
    assert batch.bots_data is not None and not Path(batch.bots_data).exists()   # the driver's copy: gone
    (tmp_path / "batch.pickle").write_bytes(pickle.dumps(batch))
    wtmp, wcwd = tmp_path / "worker-tmp", tmp_path / "worker-cwd"
    wtmp.mkdir()
    wcwd.mkdir()
    env = {**os.environ, "CARDARENA_COMPILED": "0", "TMPDIR": str(wtmp), "PYTHONPATH": str(PROJECT)}
    w = subprocess.run([sys.executable, "-c", WORKER, str(tmp_path / "batch.pickle")], cwd=wcwd, env=env,
                       capture_output=True, text=True, timeout=300)
    assert w.returncode == 0, w.stderr
    assert json.loads(w.stdout) == {"matches": spec.game(g["game"]).players, "faults": 0, "errors": 0}
    cached = wtmp / f"{CACHE}-{os.getuid()}" / h
    assert (cached / "good.py").read_text() == GOOD_BOT
    # a changed cached copy is fetched again; files in the store that are not the registered ones: refused
    monkeypatch.setattr("tempfile.tempdir", str(wtmp))
    os.chmod(cached, 0o755)
    os.chmod(cached / "good.py", 0o644)
    (cached / "good.py").write_text(OTHER_BOT)
    assert worker_sources(store, batch.code)["good@1"].path.read_text() == GOOD_BOT
    store.put(f"{batch.code['good@1'].key}/good.py", OTHER_BOT.encode())
    os.chmod(cached, 0o755)
    os.chmod(cached / "good.py", 0o644)
    (cached / "good.py").write_text(OTHER_BOT)
    with pytest.raises(ValueError, match="do not hash to its registered content hash"):
        worker_sources(store, batch.code)


def test_s3_a_stopped_close_goes_on_under_the_same_key_and_group_ids(
        tmp_path: Path, lad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A close stopped after its first settlement group (the others written, not played) is shown as
    under way, and the next close plays the written groups under their ids with the key whose hash
    it published first: none is lost or doubled."""
    import tournaments.ladder.settle as settle
    from tournaments.ladder.settle import close_ladder

    r = cli("ladder", "submit", lad, str(bot_file(tmp_path, "good", GOOD_BOT)), "--name", "good",
            "--author", "ann")
    assert r.returncode == 0, r.stderr
    run_ladder(lad, groups=2, executor="inline", say=quiet)
    real = settle.execute

    def one_then_stop(root: Path, spec: Any, executor: str, address: Any, work: Any, on_result: Any,
                      **kw: Any) -> Any:
        first = next(work, None)   # (the first call, for the groups of a stopped close: none)
        ex = real(root, spec, executor, address, iter([first] if first else []), on_result, **kw)
        ex.stopped = first is not None
        return ex

    monkeypatch.setattr(settle, "execute", one_then_stop)
    with pytest.raises(LadderError, match="stopped"):
        close_ladder(lad, budget=6, executor="inline", say=quiet, seed=1)
    monkeypatch.setattr(settle, "execute", real)
    first = json.loads(open_store(lad).get(SETTLEMENT))
    status = json.loads(cli("ladder", "status", lad, "--json").stdout)
    assert status["closed"] and status["settlement"]["places"] == [] and "key" not in status["settlement"]
    with local_copy(open_store(lad), "lad-settle", ["matches", "groups"]) as (root, _, _):
        written = [g["group_id"] for g in tables.read(root, "groups", "lad-settle")]
        assert len(tables.committed(root, "lad-settle").by_group) == 1 < len(written)
    res = close_ladder(lad, budget=6, executor="inline", say=quiet, seed=1)
    assert res["key_sha256"] == first["key_sha256"] and res["frozen"] == first["frozen"]
    with local_copy(open_store(lad), "lad-settle", ["matches", "groups"]) as (root, _, _):
        rows = [g["group_id"] for g in tables.read(root, "groups", "lad-settle")]
        committed = tables.committed(root, "lad-settle").by_group
        assert written == rows[:len(written)] and len(rows) == len(set(rows)) == res["groups"]
        assert set(committed) == set(rows)
        assert all(len(ms) == len({m["match_id"] for m in ms}) for ms in committed.values())
