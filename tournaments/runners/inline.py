"""The inline executor: every batch in this process, one after another (tests, debugging, the
benchmark's baseline).  Nothing can be lost, so it needs no submission loop."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from tournaments.runner import Batch, BatchResult, run_batch
from tournaments.runners.summary import Summary


def run_inline(work: Iterator[Batch], on_result: Callable[[BatchResult], None], s: Summary) -> None:
    """Run ``work`` here to its end, or to Ctrl-C (``s.stopped``)."""
    try:
        for b in work:
            on_result(run_batch(b))
    except KeyboardInterrupt:
        s.stopped = True
