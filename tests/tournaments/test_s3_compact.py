"""Compaction on an object store (issue 25 section 1), on moto's standalone server: under the
tournament's lease, committed by one record object written last (``tournaments.compact``).  Readers
see the old batches or the new ones, never both and never neither; a SIGKILL at any step leaves a log
that reads as before or as after, which a second ``compact`` finishes (the dead one's leftovers gone,
its commit blocked) and which verifies; two compactions at once: one wins, the other is refused in one
line; a resume after compaction plays every remaining match exactly once."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import tournaments.compact as compact_mod
from tests.tournaments.conftest import raw_spec, toml_of
from tests.tournaments.test_compact import cli, content
from tests.tournaments.test_s3 import MOTO, _keys, bucket, s3_endpoint, s3_env  # noqa: F401
from tournaments.log import TABLES
from tournaments.paths import committed_parts, part_game

pytestmark = pytest.mark.skipif(not Path(MOTO).exists(), reason="moto[server] is not installed")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(spec, output) of a finished tournament of two games in several small batches each."""
    base = tmp_path_factory.mktemp("played")
    spec = base / "t.toml"
    spec.write_text(toml_of(raw_spec(base, games=["hartenjagen", "manillen"], run={"batch_s": 0.01})))
    code, _, err = cli("tournament", "run", str(spec), "--inline", "--no-progress", "--no-leaderboard")
    assert code == 0, err
    parts = committed_parts(base / "out", "t")
    assert all(sum(part_game(p) == g for p in parts) >= 2 for g in ("hartenjagen", "manillen"))
    return spec, base / "out"


def _client() -> Any:
    import boto3
    return boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])


def upload(root: Path, bucket: str, prefix: str, skip: tuple[str, ...] = ()) -> None:  # noqa: F811
    c = _client()
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        if f.is_file() and not any(s in rel for s in skip):
            c.put_object(Bucket=bucket, Key=f"{prefix}/{rel}", Body=f.read_bytes())


@pytest.fixture
def log(played: tuple[Path, Path], bucket: str, monkeypatch: pytest.MonkeyPatch) -> str:  # noqa: F811
    """The played log's bytes in a fresh bucket: its URI.  Leases live 1 s, no grace after a commit."""
    monkeypatch.setenv("CARDARENA_LEASE_TTL_S", "1")
    monkeypatch.setenv(compact_mod.GRACE_ENV, "0")
    upload(played[1], bucket, "c/t")
    return f"s3://{bucket}/c/t"


def _parts(uri: str) -> dict[str, list[str]]:
    """Per table, the part files in the store (what a raw listing sees)."""
    b, prefix = uri[len("s3://"):].split("/", 1)
    keys = _keys(b, prefix + "/")
    ends = (".parquet", ".parquet.json")
    return {t: [k for k in keys if k.startswith(f"{prefix}/{t}/") and k.endswith(ends)]
            for t in (*TABLES, "_digests")}


def _verifies(uri: str) -> None:
    code, stdout, err = cli("verify", uri, "--workers", "1")
    assert code == 0 and "0 violation(s)" in stdout, stdout + err


def _compacted_once(uri: str, before: dict[str, Any]) -> None:
    """The log holds one batch per game (every other part file gone) and reads as ``before``."""
    parts = _parts(uri)
    assert len(parts["matches"]) == 2 and all(len(v) == 2 for v in parts.values()), parts
    assert content(uri) == before
    _verifies(uri)


def test_s3_compaction_keeps_every_answer_in_one_batch_per_game(log: str) -> None:
    before = content(log)
    n = len(_parts(log)["matches"])
    code, stdout, err = cli("tournament", "compact", log, "--json")
    assert code == 0, err
    rec = json.loads(stdout)
    assert rec["matches"] == before["matches_rows"]
    assert sum(g["batches_before"] for g in rec["games"].values()) == n
    assert {g: v["batches_after"] for g, v in rec["games"].items()} == {"hartenjagen": 1, "manillen": 1}
    _compacted_once(log, before)
    b, prefix = log[len("s3://"):].split("/", 1)
    keys = _keys(b, f"{prefix}/_tournaments/")
    assert f"{prefix}/_tournaments/t.compacted-e{rec['epoch']}" in keys    # the commit record
    moves = next(k for k in _parts(log)["moves"] if "manillen" in k)
    import pyarrow.fs as pafs
    t = pq.read_table(f"{b}/{moves}", columns=["match_id", "ply"],
                      filesystem=pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"][7:],
                                                   scheme="http"))
    pairs = list(zip(t.column("match_id").to_pylist(), t.column("ply").to_pylist(), strict=True))
    assert pairs == sorted(pairs)                                       # one match reads as one range
    code, stdout, err = cli("tournament", "compact", log)               # again: nothing to do
    assert code == 0 and "2 batch(es) -> 2" in stdout, err
    _compacted_once(log, before)


def _child(uri: str, body: str) -> subprocess.Popen[str]:
    """A compaction in another process, ``_step`` replaced by ``body`` (gets ``what``, ``n``)."""
    inner = textwrap.indent(textwrap.dedent(body).strip(), "    ")
    code = ("import os, signal, sys, time\nfrom pathlib import Path\nimport tournaments.compact as c\n"
            "n = 0\ndef step(what):\n    global n\n    n += 1\n" + inner + "\n"
            f"c._step = step\nc.compact({uri!r}, 't')\nprint('done', n)\n")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ))


def _steps(uri: str) -> list[str]:
    child = _child(uri, "print('step', what, flush=True)")
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("step ")]


def _sigkill_at(uri: str, at: int, before: dict[str, Any]) -> None:
    child = _child(uri, f"""
        if n == {at}:
            os.kill(os.getpid(), signal.SIGKILL)""")
    _, err = child.communicate(timeout=300)
    assert child.returncode == -9, err
    assert content(uri) == before                 # as before the commit, or as after it: the same rows
    time.sleep(1.1)                               # the dead one's lease runs out
    code, _, err = cli("tournament", "compact", uri)
    assert code == 0, err
    _compacted_once(uri, before)


def _fresh_copy(played: tuple[Path, Path], bucket: str, i: int) -> str:  # noqa: F811
    upload(played[1], bucket, f"k{i}/t")
    return f"s3://{bucket}/k{i}/t"


def test_s3_a_compaction_killed_around_its_commit_is_finished_by_the_next(
        played: tuple[Path, Path], log: str, bucket: str) -> None:  # noqa: F811
    before = content(log)
    steps = _steps(log)
    assert steps.index("checked") + 1 == steps.index("committed")
    for at in (steps.index("marker") + 1, steps.index("write matches") + 1, steps.index("committed") + 1,
               steps.index("committed") + 2):   # after the marker, a batch, the commit; mid-deletion
        _sigkill_at(_fresh_copy(played, bucket, at), at, before)


@pytest.mark.slow
def test_s3_sigkill_at_every_step_of_a_compaction(played: tuple[Path, Path], log: str,
                                                  bucket: str) -> None:  # noqa: F811
    before = content(log)
    steps = _steps(log)
    assert len(steps) >= 12
    for at in range(1, len(steps) + 1):
        _sigkill_at(_fresh_copy(played, bucket, at), at, before)


def test_s3_a_dead_compaction_cannot_commit_after_the_next_one_cleaned_up(log: str) -> None:
    """A compaction killed after writing its batches (before its commit): the next one creates the
    dead one's record itself, marked aborted, before deleting its batches, so that a late commit of
    the dead one (a paused process woken up) is refused instead of naming deleted batches."""
    from tournaments.paths import compacted_path
    from tournaments.store import open_store
    before = content(log)
    child = _child(log, """
        if what == "checked":
            os.kill(os.getpid(), signal.SIGKILL)""")
    child.communicate(timeout=300)
    assert child.returncode == -9
    store = open_store(log)
    dead = max(int(k.rsplit("-e", 1)[1]) for k in store.list("_tournaments") if ".compacting-e" in k)
    time.sleep(1.1)
    assert cli("tournament", "compact", log)[0] == 0
    assert json.loads(store.get(compacted_path("", "t", dead)))["aborted"] is True
    assert not store.put_if_absent(compacted_path("", "t", dead), b"{}")      # the late commit: refused
    _compacted_once(log, before)


def test_s3_two_compactions_at_once_one_wins_the_other_is_refused_in_one_line(
        log: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDARENA_LEASE_TTL_S", "60")   # the paused one's lease stays live
    before = content(log)
    gate = tmp_path / "gate"
    child = _child(log, f"""
        if what == "locked":
            Path({str(gate)!r} + ".held").touch()
            while not Path({str(gate)!r}).exists():
                time.sleep(0.02)""")
    try:
        deadline = time.monotonic() + 60
        while not Path(f"{gate}.held").exists():
            assert child.poll() is None and time.monotonic() < deadline, "no pause reached"
            time.sleep(0.02)
        code, _, err = cli("tournament", "compact", log)
        assert code == 2 and err.count("\n") == 1, err
        assert "cannot compact now" in err and "another driver" in err, err
    finally:
        gate.touch()   # never leave the paused compaction waiting
    stdout, err = child.communicate(timeout=300)
    assert child.returncode == 0 and stdout.startswith("done"), err
    _compacted_once(log, before)


def test_s3_a_reader_during_a_compaction_sees_the_old_batches_until_the_commit(log: str,
                                                                              tmp_path: Path) -> None:
    """Paused after writing every new batch (before the commit), and again just after the commit
    (the replaced batches still in the store): a reader counts each match once, the same rows."""
    before = content(log)
    for where in ("checked", "committed"):
        gate = tmp_path / f"gate-{where}"
        child = _child(log, f"""
            if what == {where!r}:
                Path({str(gate)!r} + ".held").touch()
                while not Path({str(gate)!r}).exists():
                    time.sleep(0.02)""")
        try:
            deadline = time.monotonic() + 120
            while not Path(f"{gate}.held").exists():
                assert child.poll() is None and time.monotonic() < deadline, "no pause reached"
                time.sleep(0.02)
            assert len(_parts(log)["matches"]) > 2 or where == "committed"   # old and new side by side
            assert content(log) == before
        finally:
            gate.touch()   # never leave the paused compaction waiting
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        time.sleep(1.1)
    _compacted_once(log, before)


def test_s3_a_resume_after_compaction_plays_every_remaining_match_once(played: tuple[Path, Path],
                                                                      bucket: str, tmp_path: Path,  # noqa: F811
                                                                      monkeypatch: pytest.MonkeyPatch
                                                                      ) -> None:
    """A paused tournament in the store (its last batch never published) is compacted, then resumed
    with ``--compact``: exactly the missing matches are played, each once, and the log verifies."""
    monkeypatch.setenv("CARDARENA_LEASE_TTL_S", "1")
    monkeypatch.setenv(compact_mod.GRACE_ENV, "0")
    spec, out = played
    ids = set(pq.read_table(out / "matches", columns=["match_id"]).column("match_id").to_pylist())
    victim = committed_parts(out, "t")[-1]
    missing = set(pq.read_table(victim, columns=["match_id"]).column("match_id").to_pylist())
    upload(out, bucket, "r/t", skip=(victim.name, "t.secret"))
    secret = (out / "_tournaments" / "t.secret").read_bytes()
    _client().put_object(Bucket=bucket, Key="r/t.secrets/t.secret", Body=secret)   # kept apart while it runs
    uri = f"s3://{bucket}/r/t"
    assert cli("tournament", "compact", uri)[0] == 0
    assert len(_parts(uri)["matches"]) == 2
    code, stdout, err = cli("tournament", "run", str(spec), "--resume", "--out", uri, "--inline",
                            "--no-progress", "--no-leaderboard", "--compact")
    assert code == 0 and f"{len(ids)} of {len(ids)} matches (complete)" in stdout, stdout + err
    from tournaments.analysis import open_log
    logged = [r["match_id"] for r in open_log(uri).rows("SELECT match_id FROM matches")]
    assert sorted(logged) == sorted(ids) and missing <= set(logged)    # every match once
    assert len(_parts(uri)["matches"]) == 2                            # --compact merged the new ones in
    _verifies(uri)
