"""The epoch fence on an object store is the store's (issue 27, section 4): a driver paused at any step
of publishing a batch while another run takes over, or a run paused at any step of taking over while
the old driver publishes, leaves every match in the log exactly once and the log readable by every
command without a further ``--resume`` (moto's S3 server, as in test_s3.py).

Before: the new run read the log and only then removed the earlier epoch's staging, so a driver paused
after its last lease check copied its matches part in after the new run had replayed the batch
(32,070 match rows for 32,000 matches, ``query`` refusing the log)."""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.tournaments.test_s3 import _keys, _query_rows, _spec, bucket, s3_endpoint, s3_env  # noqa: F401
from tournaments import ledger
from tournaments.log import Fenced
from tournaments.runners import Sizer, TournamentError, batches, prepare, run_tournament
from tournaments.schedule import schedule

PUBLISH = ["publish: checked", "publish: copied moves", "publish: copied events", "publish: copied _digests",
           "publish: checked again", "publish: copied matches", "publish: staging removed"]
TAKEOVER = ["takeover: lease taken", "takeover: staging removed", "takeover: log read", "takeover: repaired",
            "takeover: synced back"]
FAST = {("publish: checked again", "takeover: log read"), ("publish: copied moves", "takeover: lease taken")}
"""The reported window (past the last lease check, the new run reading the log) and one more, run by
``make test``; every pair of steps runs in the slow suite."""


class Pause:
    """Pauses the thread that reaches ``at`` (and only that thread) until :meth:`go`."""

    def __init__(self, at: str, thread: threading.Thread | None = None) -> None:
        self.at, self.thread = at, thread
        self.reached, self.resume = threading.Event(), threading.Event()

    def __call__(self, name: str) -> None:
        if name == self.at and (self.thread is None or threading.current_thread() is self.thread) \
                and not self.reached.is_set():
            self.reached.set()
            assert self.resume.wait(120), "never resumed"

    def go(self) -> None:
        self.resume.set()


def _readable_once(uri: str, spec: Any) -> None:
    """Every scheduled match exactly once, and the commands read the log as it is."""
    ids = [r["match_id"] for r in _query_rows(uri)["matches"]]
    scheduled = {m.match_id for m in schedule(spec)}
    assert len(ids) == len(set(ids)) and set(ids) == scheduled, (len(ids), len(scheduled))
    runner = CliRunner()
    for cmd in (["query", uri, "SELECT count(*) AS n FROM matches"], ["tournament", "status", uri],
                ["tournament", "leaderboard", uri], ["rank", uri, "--bootstrap", "5"],
                ["verify", uri, "--workers", "1", "--no-replay"]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 0, (cmd, res.output, res.stderr)


def _old_driver_with_a_staged_batch(spec: Any) -> tuple[Any, Any]:
    """A driver of epoch 1 that published its first batch and holds a second one staged."""
    from tournaments.runner import run_batch
    first = prepare(spec)
    assert first.epoch == 1
    early, late = list(batches(first, Sizer(1.0, first=2)))[:2]
    first.publish(run_batch(early))
    return first, run_batch(late)


def _forget(p: Any) -> None:
    """The old driver's process ends (its lease is not released: a new run took it over)."""
    p.lease = None
    p.release()


PAIRS = [(a, b) for a in PUBLISH for b in TAKEOVER]


@pytest.mark.parametrize("at_publish, at_takeover", [
    pytest.param(a, b, marks=() if (a, b) in FAST else pytest.mark.slow) for a, b in PAIRS])
def test_s3_old_driver_paused_while_publishing_and_new_run_paused_while_taking_over(
        tmp_path: Path, bucket: str, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        at_publish: str, at_takeover: str) -> None:
    """The old driver pauses at a step of publishing a batch; past its lease's time to live a new run
    takes over and pauses at a step of taking over; the old driver goes on to the end of its publish
    (or fails, in one line); then the new run goes on and finishes the tournament."""
    monkeypatch.setenv("CARDARENA_LEASE_TTL_S", "1")
    uri = f"s3://{bucket}/t"
    spec = _spec(tmp_path, uri, games=["hartenjagen"])
    old, staged = _old_driver_with_a_staged_batch(spec)
    errors: list[BaseException] = []
    results: list[Any] = []

    def publish() -> None:
        try:
            old.publish(staged)
        except (TournamentError, Fenced) as e:
            errors.append(e)

    def resume() -> None:
        try:
            results.append(run_tournament(spec, resume=True, executor="inline", progress=False))
        except BaseException as e:   # reported by the assertion below
            results.append(e)

    a, b = threading.Thread(target=publish), threading.Thread(target=resume)
    pause_a, pause_b = Pause(at_publish, a), Pause(at_takeover, b)
    monkeypatch.setattr(ledger, "STEP_HOOK", lambda name: (pause_a(name), pause_b(name)))
    a.start()
    assert pause_a.reached.wait(60)
    time.sleep(1.1)                        # paused past its lease's time to live
    b.start()
    assert pause_b.reached.wait(60)
    pause_a.go()                           # the old driver goes on where it stopped
    a.join(60)
    pause_b.go()
    b.join(120)
    _forget(old)
    assert not a.is_alive() and not b.is_alive()
    assert all("\n" not in str(e) for e in errors), errors
    assert results and not isinstance(results[0], BaseException), results
    assert results[0].complete
    _readable_once(uri, spec)
    assert _keys(bucket, "t/_staging/") == []
