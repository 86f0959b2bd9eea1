"""The driver's publishing threads (tournaments/runners/publish.py): every staged result is published
once, the results waiting are published as one group, a failed group stops the publishing and its
error reaches the driver's thread, and close() never waits for what was only queued."""
from __future__ import annotations

import threading

import pytest

from tournaments.runner import BatchResult
from tournaments.runners.publish import Publisher


def result(i: int) -> BatchResult:
    return BatchResult("g", 1, 0, 0, 0, 0.0, 0.0, "w", [f"matches/{i}"], attempt=f"a{i}")


def test_every_result_is_published_once_and_the_waiting_ones_together() -> None:
    gate = threading.Event()
    groups: list[list[str]] = []

    def publish(group: list[BatchResult]) -> None:
        gate.wait(10)
        groups.append([r.attempt or "" for r in group])

    pub = Publisher(publish, threads=2, most=5)
    try:
        for i in range(23):
            pub.submit(result(i))
        assert pub.finished() == [] and pub.pending == 23   # nothing published yet
        gate.set()
        got = pub.finished(wait=True)
    finally:
        pub.close()
    assert sorted(r.attempt or "" for r in got) == sorted(f"a{i}" for i in range(23))
    assert sorted(a for g in groups for a in g) == sorted(f"a{i}" for i in range(23))
    assert max(len(g) for g in groups) == 5 and len(groups) < 23   # grouped, at most `most` a group
    assert pub.pending == 0


def test_a_failed_group_reaches_the_driver_and_stops_the_publishing() -> None:
    seen: list[str] = []
    gate = threading.Event()

    class Fenced(Exception):
        pass

    def publish(group: list[BatchResult]) -> None:
        gate.wait(10)
        seen.extend(r.attempt or "" for r in group)
        if "a0" in seen:
            raise Fenced("a new run took over")

    pub = Publisher(publish, threads=1, most=1)
    for i in range(6):
        pub.submit(result(i))
    gate.set()
    with pytest.raises(Fenced, match="took over"):
        pub.finished(wait=True)
    pub.close()   # returns: the queued results are never published
    assert seen == ["a0"]
