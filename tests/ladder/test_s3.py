"""A ladder in an object store (``ladder create --out s3://...``; tournaments/ladder/remote.py), against
moto's S3 server: the versions and their changes as append-only records created with conditional
writes, submissions while the runner runs, and a SIGKILLed run restarted losing and doubling no
group."""
from __future__ import annotations

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
from tournaments.ladder.remote import CHANGES, VERSIONS, Records, local_copy
from tournaments.ladder.state import LadderError, LadderStore
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


def test_s3_close_is_refused_in_one_line(lad: str) -> None:
    r = cli("ladder", "close", lad)
    assert r.returncode == 2 and "not supported" in r.stderr and len(r.stderr.strip().splitlines()) == 1


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
