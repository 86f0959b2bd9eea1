"""The board snapshot of ``ladder run`` is fitted off the scheduler (issue 23, session 8): in one
background process, at most one in flight, identical to the synchronous board, the last one of every
rated group."""
from __future__ import annotations

import shutil
import signal
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tournaments.ladder import loop, tables
from tournaments.ladder.core import (
    BoardInputs,
    board_from_inputs,
    board_inputs,
    board_snapshot,
    latest_board,
    load_view,
    params_of,
    store_board,
)
from tournaments.ladder.loop import BoardWorker, run_ladder

SLOW_S = 3.0
"""The delay of the slow fit below (seconds)."""


def quiet(_: str) -> None:
    pass


def slow_board(inp: BoardInputs) -> dict[str, Any]:
    """The board fit, SLOW_S seconds slower (runs in the spawned worker: module level, by name)."""
    time.sleep(SLOW_S)
    return board_from_inputs(inp)


class FitFailed(RuntimeError):
    pass


def failing_board(inp: BoardInputs) -> dict[str, Any]:
    raise FitFailed(f"no board for {inp.ladder}")


def test_board_worker_gives_the_synchronous_board_of_the_same_view(ladder: Path) -> None:
    run_ladder(ladder, groups=4, executor="inline", say=quiet)
    view = load_view(ladder)
    state, _ = view.online(params_of(view.spec))
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    w = BoardWorker()
    try:
        assert w.wait() is None and w.done() is None
        w.submit(board_inputs(view, state, at))
        assert w.busy()
        got = w.wait()
        assert not w.busy()
    finally:
        w.close()
    want = board_snapshot(view, state, at)
    assert got == want   # floats compared exactly: same inputs, same seed
    assert got is not None and got["watermark"]["groups"] == 4 and got["overall"]


def test_the_board_worker_starts_with_ctrl_c_blocked(ladder: Path) -> None:
    """The board process is spawned with SIGINT blocked (and then ignored): a Ctrl-C to the ladder's
    process group while it still imports cannot interrupt it and leave the driver's drain waiting on
    it (test_restart's Ctrl-C test hung so once).  Read from the process's /proc status."""
    run_ladder(ladder, groups=2, executor="inline", say=quiet)
    view = load_view(ladder)
    state, _ = view.online(params_of(view.spec))
    w = BoardWorker()
    try:
        w.submit(board_inputs(view, state))
        pool = w._pool
        assert pool is not None
        pids = list(pool._processes)   # (the executor's own record of its process)
        assert len(pids) == 1
        status = Path(f"/proc/{pids[0]}/status").read_text()
        blocked = int(next(ln for ln in status.splitlines() if ln.startswith("SigBlk:")).split()[1], 16)
        assert blocked & (1 << (signal.SIGINT - 1)), status
        assert w.wait() is not None
    finally:
        w.close()
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, set()) & {signal.SIGINT}   # the driver's own mask


def test_the_stored_board_of_a_run_equals_the_synchronous_board(ladder: Path, tmp_path: Path) -> None:
    """The last board ``ladder run`` stored (fitted in the worker) equals the board computed in this
    process from the same log, stored the same way."""
    run_ladder(ladder, groups=5, executor="inline", say=quiet)
    stored = latest_board(ladder, "lad")
    assert stored is not None
    copy = tmp_path / "copy"
    shutil.copytree(ladder, copy)
    view = load_view(copy)
    state, _ = view.online(params_of(view.spec))
    store_board(view, board_snapshot(view, state, datetime.fromisoformat(stored["watermark"]["at"])))
    sync = latest_board(copy, "lad")
    assert sync is not None
    assert sync.pop("snapshot") == stored.pop("snapshot") + 1
    assert sync == stored


def test_groups_keep_being_submitted_while_a_slow_board_is_fitted(
        ladder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a fit slower than a group, groups are still written (submitted) while a snapshot is in
    flight; a synchronous fit would write none in that time."""
    monkeypatch.setattr(loop, "BOARD_FIT", slow_board)
    s = run_ladder(ladder, duration_s=2 * SLOW_S + 2, executor="inline", say=quiet)
    snaps = {r["snapshot"]: r["at"] for r in tables.read(ladder, "board", "lad")}
    assert s.snapshots == len(snaps) >= 2
    created = [g["created_at"] for g in tables.read(ladder, "groups", "lad")]
    during = 0
    for at in sorted(snaps.values())[:-1]:   # the last one is the final board, after the run
        # ``at`` is in whole seconds, up to 1 s before the snapshot started: (at + 1, at + SLOW_S) is
        # inside the time the fit was in flight
        lo, hi = at + timedelta(seconds=1), at + timedelta(seconds=SLOW_S)
        during += sum(lo < c < hi for c in created)
    assert during > 0, (snaps, created)


def test_the_final_board_covers_every_rated_group(ladder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot still in flight when the groups are done is waited for, and then the final board of
    every rated group is fitted and stored."""
    monkeypatch.setattr(loop, "BOARD_FIT", slow_board)
    s = run_ladder(ladder, groups=8, executor="inline", say=quiet)
    view = load_view(ladder)
    rated = view.rateable()
    assert len(rated) == s.groups_committed == 8
    b = latest_board(ladder, "lad")
    assert b is not None
    assert b["watermark"]["groups"] == 8 and b["watermark"]["group_id"] == rated[-1]["group_id"]
    played = {ref for g in rated for ref in g["arrangement"]}
    assert {r["ref"] for r in b["overall"]} == played
    assert sum(r["groups"] for r in b["overall"]) == sum(len(set(g["arrangement"])) for g in rated)


def test_an_error_of_the_fit_surfaces_in_the_run(ladder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "BOARD_FIT", failing_board)
    with pytest.raises(FitFailed, match="no board for lad"):
        run_ladder(ladder, groups=2, executor="inline", say=quiet)
