"""The local path (issue 15 item 4): a run on this machine within its CPUs plays its batches in a
pool of forked worker processes, not on Ray.  It starts within a second; a driver killed with SIGKILL
takes its workers with it and ``--resume`` through the local path logs every scheduled match once
(the logs equal an uninterrupted run's); a worker that dies has its batches run again."""
from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.tournaments.conftest import comparable, toml_of
from tests.tournaments.test_ray import assert_exactly_once, driver, long_spec, wait_for_parts
from tournaments.log import finished_matches
from tournaments.runner import BatchResult
from tournaments.runners import (
    LocalPool,
    Summary,
    TournamentError,
    choose_executor,
    machine_cpus,
    run_tournament,
)
from tournaments.schedule import schedule
from tournaments.spec import parse_spec


def reference(tmp_path: Path, raw: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The logs of an uninterrupted run of the same matches in this process (big batches, no fsync:
    neither changes a row)."""
    ref = dict(raw, output=str(tmp_path / "reference"), run={"batch_s": 5.0})
    s = run_tournament(parse_spec(ref), executor="inline", progress=False, fsync=False)
    assert s.complete
    return comparable(tmp_path / "reference")


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):   # ended while we looked
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(d.name))
    return found


def forked_children(pid: int) -> list[int]:
    """The children of ``pid`` that are forks of it (the same command line): the pool's workers, not a
    server another test of this process started (moto's, say)."""
    own = Path(f"/proc/{pid}/cmdline").read_bytes()
    out = []
    for c in children(pid):
        try:
            if Path(f"/proc/{c}/cmdline").read_bytes() == own:
                out.append(c)
        except OSError:   # ended while we looked
            continue
    return out


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_local_path_is_chosen_for_a_run_within_this_machines_cpus() -> None:
    n = machine_cpus()
    assert choose_executor("auto", None, 0) == "local"
    assert choose_executor("auto", None, n) == "local"
    assert choose_executor("auto", None, n + 1) == "ray"
    assert choose_executor("auto", "10.0.0.5:6379", 0) == "ray"
    assert choose_executor("ray", None, 0) == "ray" and choose_executor("inline", None, 0) == "inline"
    with pytest.raises(TournamentError, match="only with Ray"):
        choose_executor("local", "10.0.0.5:6379", 0)
    with pytest.raises(ValueError, match="executor must be one of"):
        choose_executor("threads", None, 0)


def test_local_path_starts_within_a_second_and_equals_the_inline_run(tmp_path: Path) -> None:
    with LocalPool(2) as pool:
        assert pool.startup_seconds < 1.0
    raw = long_spec(tmp_path, "out", boards=5)
    t = time.monotonic()
    s = run_tournament(parse_spec(raw), progress=False)
    assert time.monotonic() - t < 30.0   # a guard against a hang, not a speed check (bench/ measures speed)
    assert s.executor == "local" and s.startup_seconds < 1.0 and not s.nodes
    assert s.complete and s.done_now == s.total == 20 and len(s.workers) >= 1
    assert_exactly_once(tmp_path / "out", raw, reference(tmp_path, raw))
    again = run_tournament(parse_spec(raw), progress=False)
    assert again.done_before == 20 and again.done_now == 0


def _drive(raw: dict[str, Any]) -> None:
    """A driver that stalls after its third batch (its workers finish what they hold): killed there,
    the run is surely unfinished."""
    seen: list[int] = []

    def stall(r: BatchResult, s: Summary) -> None:
        seen.append(r.matches)
        if len(seen) == 3:
            time.sleep(60)

    run_tournament(parse_spec(raw), progress=False, on_batch=stall, fsync=False)


class _Proc:
    """What ``wait_for_parts`` polls (a ``Popen``'s ``poll``) for a forked driver."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc

    def poll(self) -> int | None:
        return self.proc.exitcode  # type: ignore[no-any-return]

    def communicate(self) -> tuple[str, str]:
        return "", f"the driver exited with {self.proc.exitcode}"


def test_local_path_driver_sigkilled_then_resumed_exactly_once(tmp_path: Path) -> None:
    raw = dict(long_spec(tmp_path, "out", boards=10), run={"batch_s": 0.01})
    root = tmp_path / "out"
    driver = multiprocessing.get_context("fork").Process(target=_drive, args=(raw,))
    driver.start()
    try:
        wait_for_parts(root, "t", 3, _Proc(driver))  # type: ignore[arg-type]
        workers = children(driver.pid or 0)
        assert workers, "the driver runs its batches in worker processes"
    finally:
        os.kill(driver.pid or 0, signal.SIGKILL)   # the driver alone: its workers die with it
        driver.join(10)
    deadline = time.monotonic() + 5
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [w for w in workers if alive(w)], "a worker outlived its driver"
    done = len(finished_matches(root, "t"))
    total = sum(1 for _ in schedule(parse_spec(raw)))
    assert 0 < done < total, "the driver was killed mid-run"
    s = run_tournament(parse_spec(raw), resume=True, progress=False)
    assert s.executor == "local" and s.complete and s.done_before >= done and s.total == total
    assert_exactly_once(root, raw, reference(tmp_path, raw))


def test_local_path_reruns_the_batches_of_a_worker_that_died(tmp_path: Path) -> None:
    raw = dict(long_spec(tmp_path, "out", boards=10), run={"batch_s": 0.05})
    killed: list[int] = []

    def on_batch(r: BatchResult, s: Summary) -> None:
        if not killed:
            victim = forked_children(os.getpid())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    s = run_tournament(parse_spec(raw), progress=False, on_batch=on_batch, fsync=False)
    assert killed and s.complete and s.lost_workers >= 1 and s.resubmitted >= 0
    assert_exactly_once(tmp_path / "out", raw, reference(tmp_path, raw))


def _kill_workers(driver: subprocess.Popen[str], every_s: float, times: int, killed: list[int]) -> None:
    """Kill one of the driver's pool workers every ``every_s`` seconds, ``times`` times (while it runs)."""
    while len(killed) < times and driver.poll() is None:
        time.sleep(every_s)
        with contextlib.suppress(OSError):   # the driver or the worker ended while we looked
            workers = forked_children(driver.pid)
            if workers:
                os.kill(random.choice(workers), signal.SIGKILL)
                killed.append(1)


@pytest.mark.parametrize("every_s, times", [
    (0.4, 6), pytest.param(1.2, 12, marks=pytest.mark.slow)])
def test_local_pool_survives_a_worker_killed_again_and_again(tmp_path: Path, every_s: float,
                                                             times: int) -> None:
    """Issue 27: a worker killed every 1.2 s, 12 times, broke the submit loop (BrokenProcessPool from
    ``submit`` on the broken pool, a traceback; ``--json`` printed nothing).  Now every lost batch runs
    again, the run completes, ``--json`` prints its document, and every match is logged once."""
    boards = 150 if times <= 6 else 800   # runs that outlast the kills (100-150 matches/s on 2 CPUs)
    raw = dict(long_spec(tmp_path, "out", boards=boards), run={"batch_s": 0.3})
    spec = tmp_path / "t.toml"
    spec.write_text(toml_of(raw))
    proc = driver(["run", str(spec), "--json", "--no-progress", "--no-leaderboard"])
    killed: list[int] = []
    killer = threading.Thread(target=_kill_workers, args=(proc, every_s, times, killed))
    killer.start()
    out, err = proc.communicate(timeout=900)
    killer.join()
    assert "Traceback" not in err and proc.returncode == 0, err[-3000:]
    summary = json.loads(out)
    # every kill the run lived through was survived (a fast machine may finish before the last ones)
    assert len(killed) >= min(times, 3) and summary["complete"] and summary["lost_workers"] >= 1, \
        (len(killed), summary)
    assert_exactly_once(tmp_path / "out", raw, reference(tmp_path, raw))


def _claim(directory: str, out: Any, done: Any) -> None:
    from tournaments.runners.local import claim_cpu
    cpu = claim_cpu(directory)
    out.put((cpu, sorted(os.sched_getaffinity(0)), claim_cpu(directory)))
    done.wait(60)   # hold the claim while the others claim


def test_each_claimant_pins_itself_to_a_cpu_of_its_own(tmp_path: Path) -> None:
    """Ray's workers pin themselves as the local pool's are (issue 28 §3): each process that claims
    gets a CPU no other holds and runs only there; once every CPU is held a claimant stays unpinned;
    a claim ends with its process."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    cpus = sorted(os.sched_getaffinity(0))
    q, done = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_claim, args=(str(tmp_path), q, done)) for _ in range(len(cpus) + 1)]
    for p in procs:
        p.start()
    got = [q.get(timeout=60) for _ in procs]
    done.set()
    for p in procs:
        p.join(timeout=60)
    pinned = [g for g in got if g[0] is not None]
    assert sorted(g[0] for g in pinned) == cpus                       # every CPU once
    assert all(g[1] == [g[0]] and g[2] == g[0] for g in pinned)       # runs there; once per process
    assert [g for g in got if g[0] is None] == [(None, cpus, None)]   # the one too many: unpinned
    q2, done2 = ctx.Queue(), ctx.Event()
    done2.set()
    again = ctx.Process(target=_claim, args=(str(tmp_path), q2, done2))
    again.start()
    assert q2.get(timeout=60)[0] in cpus                              # the claims ended with them
    again.join(timeout=60)
