"""A SIGKILLed ``ladder run``, restarted, loses and doubles no group, and its online ratings rebuild
exactly; Ctrl-C drains."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.ladder.test_loop import check_log
from tournaments.ladder import tables
from tournaments.paths import committed_parts

PROJECT = Path(__file__).resolve().parents[2]


def start(out: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "CARDARENA_COMPILED": "0"}
    return subprocess.Popen([sys.executable, "-m", "dashboards", "ladder", "run", str(out), *args],
                            cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def wait_for(cond: object, timeout: float) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_sigkill_then_restart_loses_and_doubles_nothing(ladder: Path) -> None:
    p = start(ladder, "--groups", "400")
    try:
        wait_for(lambda: len(committed_parts(ladder, "lad")) >= 5, 120)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    before = {g["group_id"] for g in tables.read(ladder, "groups", "lad")}
    done_before = len(committed_parts(ladder, "lad"))
    assert 5 <= done_before < 400
    r = subprocess.run([sys.executable, "-m", "dashboards", "ladder", "run", str(ladder), "--groups", "3",
                        "--json"], cwd=PROJECT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = check_log(ladder)
    assert before <= set(got["groups"])
    assert set(got["committed"]) == set(got["groups"])   # every written group ran, once


def test_ctrl_c_drains_and_a_rerun_goes_on(ladder: Path) -> None:
    p = start(ladder, "--for", "10m")
    try:
        wait_for(lambda: len(committed_parts(ladder, "lad")) >= 3, 120)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, err
    got = check_log(ladder)   # every committed group whole and rated, its ratings stored
    # drained: the batches in flight finished; a group is left only if Ctrl-C came between writing
    # it and submitting its batch (then the next run plays it under its ids)
    left = set(got["groups"]) - set(got["committed"])
    assert len(left) <= 1, left
    r = subprocess.run([sys.executable, "-m", "dashboards", "ladder", "run", str(ladder), "--groups", "1"],
                       cwd=PROJECT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = check_log(ladder)
    assert left <= set(got["committed"]) and set(got["committed"]) == set(got["groups"])


def test_a_killed_worker_loses_and_doubles_no_group(ladder: Path) -> None:
    """A worker of the local pool killed mid-run: its groups run again under the same ids (the
    runners' submission loop), and the log holds every group once, rated once."""
    import json
    env = {**os.environ, "CARDARENA_COMPILED": "0"}
    p = subprocess.Popen([sys.executable, "-m", "dashboards", "ladder", "run", str(ladder), "--groups", "40",
                          "--json"], cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        wait_for(lambda: len(committed_parts(ladder, "lad")) >= 3, 120)
        kids = subprocess.run(["ps", "-o", "pid=", "--ppid", str(p.pid)], capture_output=True, text=True)
        workers = [int(x) for x in kids.stdout.split()]
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0, err
    summary = json.loads(out)
    got = check_log(ladder)
    assert set(got["committed"]) == set(got["groups"]) and len(got["groups"]) == 40
    assert summary["lost_workers"] >= 1 and summary["resubmitted_batches"] >= 1


def test_a_ctrl_c_while_a_group_is_read_loses_no_rating(ladder: Path, monkeypatch: Any) -> None:
    """A SIGINT that lands while the driver reads a committed group's part: the ingest finishes
    first, then the interrupt is raised; the group is in the view and rated, and so is every later
    one.  (It used to be marked seen before its read, never rated, and every later group waited
    behind it: a drained run's stored ratings stopped at the first group read when Ctrl-C came.)"""
    from tournaments.ladder import loop
    s = loop.run_ladder(ladder, groups=3, executor="inline", say=lambda _: None)
    assert s.groups_committed == 3
    for p in (ladder / "ratings_online").rglob("*.parquet"):
        p.unlink()   # rated again below by a fresh driver, which reads every part
    lad = loop.Ladder(ladder, lambda _: None)
    lad.seen_parts.clear()
    lad.view.committed.clear()
    real = tables.read_part
    calls = [0]

    def read_part(p: Path, table: str, **kw: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)   # the handler runs here, mid-read
        return real(p, table, **kw)

    monkeypatch.setattr(tables, "read_part", read_part)
    with pytest.raises(KeyboardInterrupt):
        lad.ingest(loop.RunSummary("lad"))
    assert calls[0] == 3 and len(lad.view.committed) == 3 and lad.rated == 3
    got = check_log(ladder)   # stored online ratings == their rebuild from the log
    assert len(got["committed"]) == 3
