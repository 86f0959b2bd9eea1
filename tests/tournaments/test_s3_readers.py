"""Readers in place on an object store (issue 25 section 2), against moto's standalone server: every
reader (``query``, ``rank``, ``coverage``, ``verify``, ``tournament status``/``leaderboard``,
``dashboard``, ``open_log``) given an ``s3://`` URI reads the log where it is, through ``pyarrow.fs``,
and answers exactly as on the local copy of the same bytes; it follows the commit record (an orphaned
part or a staged batch is not read); it makes no local copy and sends the store no write (the server's
request recording holds only GET and HEAD requests)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.tournaments.conftest import raw_spec, toml_of
from tests.tournaments.test_s3 import MOTO, _free_port
from tournaments.log import TABLES
from tournaments.paths import committed_parts, part_name, part_path

pytestmark = pytest.mark.skipif(not Path(MOTO).exists(), reason="moto[server] is not installed")
runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output + res.stderr, res.output + res.stderr
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(endpoint, recording file) of a moto server of this module's own that can record its requests."""
    port = _free_port()
    rec = tmp_path_factory.mktemp("moto") / "recording.jsonl"
    env = {**os.environ, "MOTO_RECORDER_FILEPATH": str(rec)}
    proc = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True, env=env)
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
        yield f"127.0.0.1:{port}", rec
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture
def env(recorded: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> str:
    endpoint, _ = recorded
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{endpoint}")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return endpoint


def _client(endpoint: str) -> Any:
    import boto3
    return boto3.client("s3", endpoint_url=f"http://{endpoint}", region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def upload(root: Path, endpoint: str, bucket: str, prefix: str) -> None:
    """Every file under ``root`` to ``s3://bucket/prefix/`` under the same relative keys."""
    c = _client(endpoint)
    for f in sorted(root.rglob("*")):
        if f.is_file():
            c.put_object(Bucket=bucket, Key=f"{prefix}/{f.relative_to(root).as_posix()}", Body=f.read_bytes())


@pytest.fixture(scope="module")
def local_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament of two games in several batches, plus what a reader must not read: a
    moves part and an events part without their batch's matches part (an orphan of a killed writer),
    and a staged batch (``_staging/``).  Do not modify."""
    base = tmp_path_factory.mktemp("readers")
    spec = base / "t.toml"
    spec.write_text(toml_of(raw_spec(base, games=["hartenjagen", "manillen"], matches_per_seating=1,
                                     run={"batch_s": 0.01})))
    code, _, err = cli("tournament", "run", str(spec), "--inline", "--no-progress", "--no-leaderboard")
    assert code == 0, err
    out = base / "out"
    first = committed_parts(out, "t")[0]
    game = first.parent.name.partition("=")[2]
    orphan = part_name("t", ["never-committed"], 1)
    for t in ("moves", "events"):
        shutil.copy(part_path(out, t, game, first.name), part_path(out, t, game, orphan))
    staged = out / "_staging" / "x" / "e1" / "a" / "matches" / f"game={game}" / orphan
    staged.parent.mkdir(parents=True)
    shutil.copy(first, staged)
    return out


@pytest.fixture
def both(local_log: Path, env: str) -> tuple[str, str]:
    """(the local log, the same bytes in a new bucket: its URI)."""
    bucket = f"r-{uuid.uuid4().hex[:12]}"
    _client(env).create_bucket(Bucket=bucket)
    upload(local_log, env, bucket, "logs/t")
    return str(local_log), f"s3://{bucket}/logs/t"


QUERIES = [
    "SELECT game, bot, count(*) AS n, sum(think_us) AS t, max(ply) AS p FROM moves GROUP BY ALL ORDER BY ALL",
    "SELECT * EXCLUDE (finished_at) FROM matches ORDER BY match_id",
    "SELECT game, event, bot, count(*) AS n FROM events GROUP BY ALL ORDER BY ALL",
    "SELECT match_id, deal, scores FROM deals ORDER BY ALL",
    "SELECT count(*) AS n FROM moves WHERE game = 'manillen' AND bot = 'r2'",
]

READERS: list[list[str]] = [
    *[["query", "{D}", q, "--format", "json", "--limit", "0"] for q in QUERIES],
    ["rank", "{D}", "--json"],
    ["rank", "{D}", "--json", "--game", "manillen"],
    ["coverage", "{D}", "--json"],
    ["verify", "{D}", "--json", "--workers", "1"],
    ["verify", "{D}", "--json", "--workers", "2", "--sample", "0.5", "--seed", "3"],
    ["tournament", "status", "{D}", "--json"],
    ["tournament", "leaderboard", "{D}", "--json"],
]

CLOCKS = {"replay_seconds", "sql_seconds", "driver_seconds", "seconds", "bytes"}


def _answer(cmd: list[str], where: str) -> Any:
    code, out, err = cli(*[where if a == "{D}" else a for a in cmd])
    assert code == 0 or (cmd[0] == "verify" and code == 1), (cmd, where, err)   # verify: the orphan

    def strip(x: Any) -> Any:
        if isinstance(x, dict):   # (the rows a query finds come in no set order)
            return {k: sorted(strip(v), key=json.dumps) if k == "violations" else strip(v)
                    for k, v in x.items() if k not in CLOCKS}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return code, strip(json.loads(out.replace(where, "{D}")))


@pytest.mark.parametrize("cmd", [pytest.param(c, marks=pytest.mark.slow) if c[-4:-2] == ["--sample", "0.5"]
                                 else c for c in READERS], ids=lambda c: " ".join(c[:1] + c[2:])[:60])
def test_every_reader_in_place_answers_as_on_the_local_copy(both: tuple[str, str], cmd: list[str]) -> None:
    local, uri = both
    here = _answer(cmd, local)
    assert here not in (None, [], {})
    assert _answer(cmd, uri) == here


def test_open_log_in_place_gives_the_same_frames_and_follows_the_commit_record(both: tuple[str, str]) -> None:
    from tournaments.analysis import open_log
    local, uri = both
    a, b = open_log(local), open_log(uri)
    assert b.uri == uri and b.location == uri
    for t in TABLES:
        assert {p.path.name for p in b.parts[t]} == {p.path.name for p in a.parts[t]}
        assert not [p for p in b.parts[t] if "never" in p.path.name]
    assert len(b.parts["moves"]) == len(b.parts["matches"])        # the orphan is not read
    assert b.matches().drop("finished_at").equals(a.matches().drop("finished_at"))
    assert b.moves(game="manillen").equals(a.moves(game="manillen"))
    assert b.events(columns=["match_id", "event", "bot"]).sort("match_id", "event", "bot").equals(
        a.events(columns=["match_id", "event", "bot"]).sort("match_id", "event", "bot"))
    one = a.matches()["match_id"][0]
    assert b.only_match(one).moves().equals(a.only_match(one).moves())


def test_dashboard_in_place_summarises_as_on_the_local_copy(both: tuple[str, str], tmp_path: Path) -> None:
    local, uri = both
    got = []
    for where, page in ((local, tmp_path / "a.html"), (uri, tmp_path / "b.html")):
        code, out, err = cli("dashboard", where, "--json", "--sample", "3", "--output", str(page))
        assert code == 0, err
        got.append({k: v for k, v in json.loads(out).items() if k not in CLOCKS | {"path", "output"}})
        assert page.is_file()
    assert got[0] == got[1]
    assert uri.split("?")[0] in (tmp_path / "b.html").read_text()


def _requests(rec: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in rec.read_text().splitlines() if line.strip()]


def test_readers_send_the_store_only_reads_and_copy_nothing_locally(both: tuple[str, str], env: str,
                                                                   recorded: tuple[str, Path],
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader never needs write access: every request it sends is a GET or a HEAD (moto's request
    recording), none under the staging area or for the orphaned part, and it leaves no file in the
    temporary directory (no local copy of the log)."""
    import requests
    _, uri = both
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    _, rec = recorded
    api = f"http://{env}/moto-api/recorder"
    requests.post(f"{api}/reset-recording", timeout=5)
    requests.post(f"{api}/start-recording", timeout=5)
    try:
        for cmd in READERS:
            _answer(cmd, uri)
        code, _, err = cli("dashboard", uri, "--json", "--sample", "2", "--no-verify", "--output",
                           str(tmp_path / "r.html"))
        assert code == 0, err
    finally:
        requests.post(f"{api}/stop-recording", timeout=5)
    sent = _requests(rec)
    assert len(sent) > 50
    methods = {r["method"] for r in sent}
    assert methods <= {"GET", "HEAD"}, methods
    bucket = uri.split("/")[2]
    assert all(f"/{bucket}" in r["url"] or f"{bucket}." in r["url"] for r in sent)
    gets = [r["url"] for r in sent if r["method"] == "GET" and "list-type" not in r["url"]
            and "prefix=" not in r["url"]]
    assert not [u for u in gets if "_staging" in u or "never" in u or ".secrets" in u]
    assert list(tmp.iterdir()) == []


def test_a_damaged_part_in_the_store_is_named_by_its_uri_in_one_line(both: tuple[str, str], env: str) -> None:
    local, uri = both
    bucket, prefix = uri[5:].split("/", 1)
    victim = committed_parts(Path(local), "t")[1]
    key = f"{prefix}/{victim.relative_to(local).as_posix()}"
    _client(env).put_object(Bucket=bucket, Key=key, Body=victim.read_bytes()[:100])   # truncated
    named = f"{uri}/{victim.relative_to(local).as_posix()}"
    for cmd in (["query", uri, "SELECT count(*) FROM matches"], ["rank", uri],
                ["tournament", "leaderboard", uri]):
        code, _, err = cli(*cmd)
        assert code == 2 and err.count("\n") == 1 and named in err, (cmd, err)
    code, _, err = cli("tournament", "status", uri, "--json")
    assert code == 1 and f"{uri}/matches/" in err and "not counted" in err
    code, _, err = cli("verify", uri, "--workers", "1")
    assert code == 2 and "not certified" in err and f"{uri}/matches/" in err


def _fetched(rec: Path, bucket: str, prefix: str) -> list[str]:
    """The keys (relative to the log) of the objects the recording's GETs fetched (listings left out)."""
    from urllib.parse import unquote
    out = []
    for r in _requests(rec):
        if r["method"] != "GET" or "list-type" in r["url"] or "prefix=" in r["url"]:
            continue
        path = unquote(r["url"].split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0])
        if path.startswith(f"{bucket}/{prefix}/"):
            out.append(path[len(bucket) + len(prefix) + 2:])
    return out


def test_a_plain_query_in_place_reads_the_digest_records_and_only_the_parts_its_sql_scans(
        both: tuple[str, str], env: str, recorded: tuple[str, Path]) -> None:
    """Without --game, a one-game question reads each batch's digest record (the listing's sizes are
    checked against it) and the parts the SQL scans: ``game`` prunes the other game's files, and no
    matches or events part is read for a moves question (before: every footer, every matches part
    whole for its SHA-256).  The answer is the local copy's."""
    import requests
    local, uri = both
    bucket, prefix = uri[5:].split("/", 1)
    sql = "SELECT count(*) AS n, sum(think_us) AS t FROM moves WHERE game = 'manillen' AND bot = 'r2'"
    _, rec = recorded
    api = f"http://{env}/moto-api/recorder"
    requests.post(f"{api}/reset-recording", timeout=5)
    requests.post(f"{api}/start-recording", timeout=5)
    try:
        code, out, err = cli("query", uri, sql, "--format", "json")
    finally:
        requests.post(f"{api}/stop-recording", timeout=5)
    assert code == 0, err
    assert json.loads(out) == json.loads(cli("query", local, sql, "--format", "json")[1])
    got = _fetched(rec, bucket, prefix)
    parts = [k for k in got if not k.startswith(("_digests/", "_tournaments/"))]
    assert parts and all(k.startswith("moves/game=manillen/") for k in parts), got
    records = {k for k in got if k.startswith("_digests/")}
    assert records == {f"_digests/{p.relative_to(Path(local) / 'matches').as_posix()}.json"
                       for p in committed_parts(Path(local), "t")}


def test_a_part_of_another_size_or_a_batch_copied_with_its_record_is_refused_in_place(
        both: tuple[str, str], env: str) -> None:
    """The reader's checks in place, from the listing and the digest records: a part whose size is not
    the one committed (here a moves part of the other game, which the SQL would not scan) and a batch
    copied under another name with its digest record are refused in one line naming the file."""
    local, uri = both
    bucket, prefix = uri[5:].split("/", 1)
    c = _client(env)
    first = committed_parts(Path(local), "t")[0]
    rel = first.relative_to(Path(local) / "matches")
    other = "hartenjagen" if "manillen" in str(rel) else "manillen"
    sql = f"SELECT count(*) FROM moves WHERE game = '{other}'"
    victim = f"{prefix}/moves/{rel.as_posix()}"
    body = c.get_object(Bucket=bucket, Key=victim)["Body"].read()
    c.put_object(Bucket=bucket, Key=victim, Body=body + b"\0")   # (a reader of it alone stops too)
    code, _, err = cli("query", uri, sql)
    assert code == 2 and err.count("\n") == 1 and "bytes" in err, err
    assert f"{uri}/moves/{rel.as_posix()}" in err, err
    c.put_object(Bucket=bucket, Key=victim, Body=body)
    assert cli("query", uri, sql)[0] == 0
    copy = part_name("t", ["copied"], 1)
    for t in TABLES:
        c.copy_object(Bucket=bucket, Key=f"{prefix}/{t}/{rel.parent.as_posix()}/{copy}",
                      CopySource={"Bucket": bucket, "Key": f"{prefix}/{t}/{rel.as_posix()}"})
    c.copy_object(Bucket=bucket, Key=f"{prefix}/_digests/{rel.parent.as_posix()}/{copy}.json",
                  CopySource={"Bucket": bucket, "Key": f"{prefix}/_digests/{rel.as_posix()}.json"})
    code, _, err = cli("query", uri, sql)
    assert code == 2 and err.count("\n") == 1 and copy in err and "another name" in err, err


def test_a_missing_bucket_is_one_line_for_a_reader(env: str) -> None:
    for cmd in (["query", "s3://no-such-bucket-here/x", "SELECT 1"], ["tournament", "status",
                                                                       "s3://no-such-bucket-here/x"]):
        code, _, err = cli(*cmd)
        assert code == 2 and err.count("\n") == 1 and "no-such-bucket-here" in err, (cmd, err)


def test_the_analyst_routes_of_data_readme_read_the_store_in_place(both: tuple[str, str], env: str) -> None:
    """data/README.md's own-tool examples (pyarrow dataset, DuckDB over it, Polars' object-store scan),
    each following the commit record by a semi join on ``matches``, give open_log's answer."""
    import duckdb
    import polars as pl
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    from tournaments.analysis import open_log
    local, uri = both
    want = open_log(local).rows("SELECT bot, count(*) AS n FROM moves WHERE game = 'manillen' "
                                "GROUP BY bot ORDER BY bot")
    path = uri[len("s3://"):]
    fs = pafs.S3FileSystem(endpoint_override=env, scheme="http")
    moves = ds.dataset(f"{path}/moves", filesystem=fs, format="parquet", partitioning="hive")
    matches = ds.dataset(f"{path}/matches", filesystem=fs, format="parquet", partitioning="hive")
    con = duckdb.connect()
    con.register("moves", moves)
    con.register("matches", matches)
    got = con.sql("SELECT bot, count(*) AS n FROM moves SEMI JOIN matches USING (match_id) "
                  "WHERE game = 'manillen' GROUP BY bot ORDER BY bot").fetchall()
    assert [tuple(r.values()) for r in want] == got
    raw = con.sql("SELECT count(*) FROM moves").fetchone()
    assert raw is not None and raw[0] > open_log(local).rows("SELECT count(*) AS n FROM moves")[0]["n"]
    # (a raw glob of moves/ reads the orphan too: hence the semi join)

    opts = {"aws_endpoint_url": f"http://{env}", "aws_allow_http": "true", "aws_region": "us-east-1"}
    pm = pl.scan_parquet(f"{uri}/moves/**/*.parquet", hive_partitioning=True, storage_options=opts)
    pt = pl.scan_parquet(f"{uri}/matches/**/*.parquet", hive_partitioning=True, storage_options=opts)
    frame = (pm.filter(pl.col("game") == "manillen").join(pt.select("match_id"), on="match_id", how="semi")
             .group_by("bot").agg(pl.len().alias("n")).sort("bot").collect())
    assert [tuple(r.values()) for r in want] == list(frame.iter_rows())
