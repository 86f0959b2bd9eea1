"""What an organiser sees of ``cardarena tournament run`` (issue 14, items 6 and 7): Ray's own messages
go to ``OUT/_logs/ray-driver.log`` and never to the driver's stdout or stderr; a lost node is one line
of ours; off a terminal, progress is a plain line every few seconds and the summary is never wrapped.
Without Ray (fast); the two-node cluster with a node killed is in test_ray.py."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ray._private.worker import print_to_stdstream  # Ray's own printer of "(raylet)" lines
from ray.exceptions import NodeDiedError, WorkerCrashedError

from tests.tournaments.conftest import fastest_game
from tournaments.runners import RAY_LOG, NodeWatch, Progress, RayOutput, Summary, TournamentError
from tournaments.runners.ray import _join

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[")
NODE = "ac70980fdf422e22c2b74ea5c8b375506d3dd7a387136d9e7894e000"
DIED = (f"Task failed because the node it was running on is dead or unavailable. Node IP: 192.0.2.2, node "
        f"ID: {NODE}. This can happen if the node was preempted, had a hardware failure, or its raylet "
        f"crashed unexpectedly. To see node death information, use `ray list nodes --filter node_id={NODE}`")
"""The message of the NodeDiedError Ray 2.60 raised for a batch on a node killed with SIGKILL."""


@pytest.mark.parametrize("std_on_descriptors", [True, False], ids=["process", "test-runner"])
def test_ray_output_sends_rays_messages_to_the_log_and_ours_to_the_terminal(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        std_on_descriptors: bool) -> None:
    if std_on_descriptors:   # as in a real process; else pytest's own sys.stdout and sys.stderr
        monkeypatch.setattr(sys, "stdout", open(1, "w", closefd=False))
        monkeypatch.setattr(sys, "stderr", open(2, "w", closefd=False))
    std = sys.stdout, sys.stderr

    def raylet(line: str) -> None:   # what Ray's error-listener thread does with a node-death message
        # (Ray holds back a line it printed moments ago: each case prints its own)
        print_to_stdstream({"lines": [f"{line} ({std_on_descriptors})"], "pid": "raylet", "is_err": False},
                           ignore_prefix=False)

    with RayOutput() as ray_out:
        raylet("Raylet is terminated. [state-dump] before the output directory exists")
        os.write(2, b"[core_worker.cc:123] a C++ log line\n")
        assert not (tmp_path / "_logs").exists()
        assert ray_out.attach(tmp_path, "test run") == tmp_path / RAY_LOG
        thread = threading.Thread(target=raylet, args=("The node with node id: abc has been marked dead",))
        thread.start()
        thread.join()
        print("ray's logger line", file=sys.stderr)
        os.write(1, b"a worker's print\n")
        print("our progress", file=ray_out.out)
        print("our event line", file=ray_out.err)
    assert (sys.stdout, sys.stderr) == std
    print("after the run", flush=True)
    got = capfd.readouterr()
    assert got.out == "our progress\nafter the run\n" and got.err == "our event line\n"
    log = (tmp_path / RAY_LOG).read_text()
    assert log.startswith("=== ") and "test run" in log.splitlines()[0]
    for line in ("(raylet)", "[state-dump] before the output directory exists", "a C++ log line",
                 "has been marked dead", "ray's logger line", "a worker's print"):
        assert line in log


def summary(total: int = 600) -> Summary:
    return Summary("t", Path("/tmp/out"), total, 0)


def test_progress_off_a_terminal_is_plain_lines_and_events_join_them() -> None:
    out, err = io.StringIO(), io.StringIO()   # not a terminal
    s = summary()
    with Progress(s, True, out, err, every_s=0.0) as bar:
        assert bar.bar is None   # no rich live display
        bar.update()             # nothing done yet: no line
        s.done_now = 120
        bar.update()
        bar.event("node 192.0.2.2 (ac70980f) lost; 1 batch re-run")
        s.done_now, s.resubmitted = 600, 1
    lines = out.getvalue().splitlines()
    assert err.getvalue() == "" and not ANSI.search(out.getvalue())
    assert re.fullmatch(r"t: 120 of 600 matches \(20%\) in \d+ s, [\d.]+ matches/s, ETA \S+( \S+)?, faults 0",
                        lines[0]), lines
    assert lines[1] == "node 192.0.2.2 (ac70980f) lost; 1 batch re-run"
    assert lines[2].startswith("t: 600 of 600 matches (100%)") and lines[2].endswith(
        "batches rerun after a lost worker or node: 1")
    assert len(lines) == 3


def test_progress_waits_every_s_between_plain_lines() -> None:
    out = io.StringIO()
    s = summary()
    bar = Progress(s, True, out, io.StringIO(), every_s=3600.0)
    for n in range(1, 50):
        s.done_now = n
        bar.update()
    assert out.getvalue() == ""
    bar.__exit__(None, None, None)   # the end of the run: one last line
    assert out.getvalue().startswith("t: 49 of 600 matches") and out.getvalue().count("\n") == 1


def test_progress_disabled_sends_events_to_stderr_only() -> None:
    out, err = io.StringIO(), io.StringIO()
    s = summary()
    with Progress(s, False, out, err, every_s=0.0) as bar:
        s.done_now = 300
        bar.update()
        bar.event("a line of ours")
    assert out.getvalue() == "" and err.getvalue() == "a line of ours\n"


def test_node_watch_one_line_per_lost_node_with_the_batches_it_took() -> None:
    alive = {NODE: True, "1b54db34" + "0" * 48: True, "ffff0000" + "0" * 48: True}
    err = io.StringIO()
    s = summary()
    watch = NodeWatch(s, Progress(s, False, io.StringIO(), err), poll_s=0.0, settle_s=3600.0,
                      nodes=lambda: [{"NodeID": n, "Alive": a, "NodeManagerAddress": "192.0.2.2"}
                                     for n, a in alive.items()])
    assert watch.batch_lost(NodeDiedError(DIED), time.monotonic())
    assert watch.batch_lost(NodeDiedError(DIED), time.monotonic())
    assert not watch.batch_lost(WorkerCrashedError(), time.monotonic())   # names no node: a lost worker
    alive[NODE] = False
    watch.tick()
    assert err.getvalue() == ""   # within settle_s of the last failure: more may come
    alive["ffff0000" + "0" * 48] = False   # found dead by the poll, no batch on it
    watch.tick(final=True)
    assert err.getvalue().splitlines() == ["node 192.0.2.2 (ac70980f) lost; 2 batches re-run",
                                           "node 192.0.2.2 (ffff0000) lost; 0 batches re-run"]
    assert watch.batch_lost(NodeDiedError(DIED), time.monotonic())   # a late one is counted and shown again
    watch.tick(final=True)
    assert err.getvalue().splitlines()[2:] == ["node 192.0.2.2 (ac70980f) lost; 3 batches re-run in all"]
    assert {n: (x.rerun, x.address) for n, x in s.lost_nodes.items()} == {
        NODE: (3, "192.0.2.2"), "ffff0000" + "0" * 48: (0, "192.0.2.2")}


def test_run_to_a_pipe_prints_plain_progress_lines_and_the_whole_summary(tmp_path: Path) -> None:
    out = tmp_path / "a-rather-long-output-directory-name-so-the-summary-is-wider-than-80-columns"
    proc = subprocess.run(
        [sys.executable, "-m", "dashboards.app", "tournament", "run", "--games", fastest_game(),
         "--bots", "random,r2=random,r3=random,r4=random", "--matches", "12", "--max-deals", "1",
         "--out", str(out), "--inline", "--progress-every", "0.05", "--no-leaderboard"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env=dict(os.environ, COLUMNS="80", TERM="xterm-256color"))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert not ANSI.search(proc.stdout) and "\r" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("cli: 1 games, 4 entrants")
    progress = lines[1:-1]
    line = re.compile(r"cli: \d+ of 48 matches \(\d+%\) in .*, faults 0")
    assert progress and all(line.fullmatch(x) for x in progress)
    assert progress[-1].startswith("cli: 48 of 48 matches (100%)")
    last = lines[-1]
    assert last.startswith("cli: 48 of 48 matches (complete); this run 48 matches")
    assert last.endswith(f"; logs in {out}") and len(last) > 80   # whole, on one line


def test_a_refused_token_says_how_to_give_the_driver_the_clusters_token(
        capfd: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as sock:   # a port nothing listens on: start_ray fails at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with RayOutput() as ray_out:
        assert "InvalidAuthToken" not in ray_out.caught()
        with pytest.raises(TournamentError) as plain:
            _join(f"127.0.0.1:{port}", ray_out)
        # what Ray 2.60's C++ GCS client logs, retrying, when the head refuses the token
        os.write(2, b"[2026-12-01 12:54:43,419 W 22558 22558] gcs_client.cc:210: Failed to get cluster ID "
                    b"from GCS server: Unauthenticated: RPC error: InvalidAuthToken: Authentication token "
                    b"is missing or incorrect\n")
        with pytest.raises(TournamentError) as refused:
            _join(f"127.0.0.1:{port}", ray_out)
    assert "RAY_AUTH_TOKEN" not in str(plain.value)
    assert str(refused.value).startswith(f"cannot reach a Ray cluster at 127.0.0.1:{port}")
    assert "InvalidAuthToken" in str(refused.value) and "RAY_AUTH_TOKEN" in str(refused.value)
    assert "RAY_AUTH_MODE=disabled" in str(refused.value) and "\n" not in str(refused.value)
    assert capfd.readouterr().err == ""   # Ray's line stayed in the caught output


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_no_leaderboard_is_not_computed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        as_json: bool) -> None:
    """``--no-leaderboard``: the board (a read of every batch and a bootstrap, most of the seconds
    after a short run) is not computed at all; ``--json`` then has no "leaderboard"."""
    import json

    from typer.testing import CliRunner

    import tournaments.tournament_cli as tc
    from dashboards.app import app

    def refuse(*_: object) -> list[dict[str, object]]:
        raise AssertionError("the leaderboard was computed")

    monkeypatch.setattr(tc, "leaderboard_rows", refuse)
    res = CliRunner().invoke(app, ["tournament", "run", "--games", fastest_game(), "--bots",
                                   "random,r2=random,r3=random,r4=random", "--matches", "1", "--max-deals",
                                   "1", "--out", str(tmp_path / "o"), "--inline", "--no-progress",
                                   "--no-leaderboard", *(["--json"] if as_json else [])])
    assert res.exit_code == 0, res.output
    if as_json:
        summary = json.loads(res.stdout.strip().splitlines()[-1])
        assert summary["complete"] and "leaderboard" not in summary
    else:
        assert "leaderboard: " not in res.stdout


def _run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, COLUMNS="80"))


@pytest.mark.parametrize("args", [
    ["--matches", "0"],                                        # a bad spec value
    ["--games", "no_such_game"],                               # a bad spec value
    ["--address", "127.0.0.1:1"],                              # no Ray cluster there
    ["--out", "s3://arena/league?endpoint_override=127.0.0.1:1&scheme=http"],   # a store refusing
], ids=["matches", "game", "ray", "store"])
def test_json_run_refused_prints_one_json_document_with_the_error(args: list[str]) -> None:
    proc = _run_cli("tournament", "run", "examples/demo.toml", "--json", *args, timeout=120)
    assert proc.returncode == 2
    err = proc.stderr.strip()
    assert err.startswith("cardarena tournament: ") and "\n" not in err and "Traceback" not in err
    doc = json.loads(proc.stdout)   # one document, the whole of stdout
    assert doc == {"error": err, "exit": 2}


def test_without_json_a_refused_run_prints_nothing_on_stdout() -> None:
    proc = _run_cli("tournament", "run", "examples/demo.toml", "--matches", "0")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.startswith("cardarena tournament: ")


def test_json_requested_reads_the_command_line_up_to_a_double_dash() -> None:
    from bots.failure import json_requested
    assert json_requested(["x", "--json"]) and json_requested(["--format", "json"])
    assert json_requested(["--format=json"])
    assert not json_requested(["--format", "table"]) and not json_requested(["--", "--json"])


def test_start_line_of_a_run_into_a_store_shows_the_uri_whole() -> None:
    proc = _run_cli("tournament", "run", "examples/demo.toml", "--games", fastest_game(), "--matches", "1",
                    "--out", "s3://arena/league?endpoint_override=127.0.0.1:1&scheme=http")
    assert proc.returncode == 2
    first = proc.stdout.splitlines()[0]
    assert "-> s3://arena/league (" in first and "s3:/arena" not in first and "endpoint" not in first


def test_spec_keeps_a_uri_output_a_string_and_a_directory_a_path() -> None:
    from tournaments.spec import load_spec
    sp = load_spec(ROOT / "examples/demo.toml", {"output": "s3://arena/league"})
    assert sp.output == "s3://arena/league"
    assert isinstance(load_spec(ROOT / "examples/demo.toml", {"output": "data/x"}).output, Path)
