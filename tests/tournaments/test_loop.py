"""The one submission loop (tournaments/runners/loop.py) over a scripted executor: what every user of
the loop (the tournament's local pool and Ray, the ladder) relies on, without a process or Ray."""
from __future__ import annotations

from collections.abc import Iterable

import pytest

from tournaments.runner import Batch, BatchResult
from tournaments.runners import MAX_ATTEMPTS, Failed, Lost, Progress, Summary, TournamentError, run_batches
from tournaments.schedule import Match


def batch(i: int) -> Batch:
    m = Match(f"m{i:03d}", f"g{i:03d}", "hartenjagen", 0, 0, ("a", "b", "c", "d"), i)
    return Batch("t", "/nowhere", "hartenjagen", {}, 4, 1, (m,), {})


class Scripted:
    """Runs a batch at once, unless ``script[match id]`` holds what its next runs do: ``lost`` (its
    worker), ``pool`` (every batch in flight lost), ``fail`` (run_batch raised), ``interrupt``
    (Ctrl-C while waiting)."""

    def __init__(self, slots: int = 2, script: dict[str, list[str]] | None = None) -> None:
        self.slots, self.script = slots, script or {}
        self.started = False
        self.stopped_with: list[str] | None = None
        self.handles: dict[int, Batch] = {}
        self.runs: list[str] = []
        self.lost_calls: list[tuple[list[str], bool]] = []
        self.ticks = 0
        self.most_in_flight = 0

    def start(self, s: Summary, bar: Progress) -> int:
        self.started = True
        return self.slots

    def submit(self, b: Batch) -> int:
        h = len(self.runs)
        self.runs.append(b.match_ids[0])
        self.handles[h] = b
        return h

    def wait(self, handles: list[int], timeout: float) -> Iterable[int]:
        self.most_in_flight = max(self.most_in_flight, len(handles))
        for h in handles:
            if self._next(self.handles[h], peek=True) == "interrupt":
                self._next(self.handles[h])
                raise KeyboardInterrupt
        return handles[:1]

    def _next(self, b: Batch, peek: bool = False) -> str:
        todo = self.script.get(b.match_ids[0], [])
        if not todo:
            return "ok"
        return todo[0] if peek else todo.pop(0)

    def result(self, h: int) -> BatchResult | None:
        b = self.handles[h]
        what = self._next(b)
        if what == "lost":
            raise Lost("its worker died")
        if what == "pool":
            raise Lost("its worker process died", everything=True)
        if what == "fail":
            err = ZeroDivisionError("division by zero\nmore")
            raise Failed(err, err)
        return BatchResult(b.game, len(b.matches), 1, 0, 0, 0.1, 0.0, "w", [])

    def lost(self, batches: list[Batch], error: Lost) -> None:
        self.lost_calls.append(([b.match_ids[0] for b in batches], error.everything))

    def tick(self, final: bool = False) -> None:
        self.ticks += 1

    def stop(self, handles: list[int]) -> None:
        self.stopped_with = [self.handles[h].match_ids[0] for h in handles]


def run(ex: Scripted, n: int, max_in_flight: int | None = None) -> tuple[Summary, list[str]]:
    s = Summary("t", "/nowhere", n, 0)
    done: list[str] = []
    run_batches(ex, iter([batch(i) for i in range(n)]), lambda r: done.append(r.game), s,
                Progress(s, False), max_in_flight)
    return s, done


def test_every_batch_runs_once_with_at_most_two_per_slot_in_flight() -> None:
    ex = Scripted(slots=3)
    s, done = run(ex, 20)
    assert len(done) == 20 and sorted(ex.runs) == [f"m{i:03d}" for i in range(20)]
    assert ex.most_in_flight == 6 and not s.stopped and s.resubmitted == 0 and ex.stopped_with == []


def test_a_given_max_in_flight_still_starts_the_executor() -> None:
    ex = Scripted(slots=3)
    run(ex, 5, max_in_flight=1)
    assert ex.started and ex.most_in_flight == 1


def test_a_lost_batch_runs_again_alone_and_is_counted() -> None:
    ex = Scripted(script={"m002": ["lost", "lost"]})
    s, done = run(ex, 5)
    assert len(done) == 5 and ex.runs.count("m002") == 3 and s.resubmitted == 2
    assert ex.lost_calls == [(["m002"], False), (["m002"], False)]


def test_a_broken_pool_runs_every_batch_in_flight_again_together() -> None:
    ex = Scripted(slots=2, script={"m001": ["pool"]})
    s, done = run(ex, 6)
    assert len(done) == 6 and len(ex.lost_calls) == 1
    lost, everything = ex.lost_calls[0]
    assert everything and "m001" in lost and len(lost) > 1 and s.resubmitted == len(lost)
    assert all(ex.runs.count(m) == 2 for m in lost)


def test_a_batch_lost_too_often_stops_the_run_in_one_line() -> None:
    ex = Scripted(script={"m001": ["lost"] * (MAX_ATTEMPTS + 1)})
    with pytest.raises(TournamentError) as e:
        run(ex, 3)
    assert str(e.value) == f"a batch of hartenjagen failed {MAX_ATTEMPTS} times: its worker died"
    assert ex.stopped_with is not None


def test_a_batch_that_raised_stops_the_run_with_its_first_line_and_cancels_the_rest() -> None:
    ex = Scripted(slots=2, script={"m000": ["fail"]})
    with pytest.raises(TournamentError) as e:
        run(ex, 6)
    assert str(e.value) == "a batch of hartenjagen failed: ZeroDivisionError: division by zero"
    assert ex.stopped_with and "m000" not in ex.stopped_with


def test_ctrl_c_stops_submitting_finishes_what_is_in_flight_and_reruns_nothing() -> None:
    ex = Scripted(slots=1, script={"m001": ["interrupt", "lost"]})
    s, done = run(ex, 10)
    assert s.stopped and s.resubmitted == 0 and ex.lost_calls == []
    assert len(ex.runs) == 2 and done == ["hartenjagen"] and ex.stopped_with == []
