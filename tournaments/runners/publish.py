"""Publishing on an object store off the driver's main thread (issue 25 §5): the staged batches the
workers return are published by a few threads, each taking every batch waiting when it starts as one
group (:meth:`~tournaments.runners.preparation.Prepared.publish_group`: two lease checks for the
group, the server-side copies in pyarrow's C++ client, the staged copies deleted in one request), so
the publishes of many batches overlap and their fixed costs are shared.  Each batch is still committed
by its own matches part, copied after a lease check; a publish that fails stops the run, and whatever
was staged but not published is played again by the next run (``--resume``)."""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from tournaments.runner import BatchResult

THREADS = 4
"""Publishing threads."""
MOST = 64
"""Staged results one group publishes at most."""


class Publisher:
    """``submit`` a staged result; :meth:`finished` gives back those published since (in the order
    their groups ended) and raises the first error a group met; :meth:`close` waits for the groups
    under way and drops what is still queued (staged, never published)."""

    def __init__(self, publish: Callable[[list[BatchResult]], object], threads: int = THREADS,
                 most: int = MOST) -> None:
        self.publish, self.most = publish, most
        self.todo: queue.Queue[BatchResult | None] = queue.Queue()
        self.done: queue.Queue[tuple[list[BatchResult], BaseException | None]] = queue.Queue()
        self.stopping = threading.Event()
        self.submitted = self.returned = 0
        self.threads = [threading.Thread(target=self._work, name=f"cardarena-publish-{i}", daemon=True)
                        for i in range(threads)]
        for t in self.threads:
            t.start()

    def _work(self) -> None:
        while True:
            r = self.todo.get()
            if r is None or self.stopping.is_set():
                return
            group = [r]
            while len(group) < self.most:
                try:
                    more = self.todo.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self.todo.put(None)   # for this thread's next round: it ends then
                    break
                group.append(more)
            try:
                self.publish(group)
            except BaseException as e:   # handed to the driver's thread, which raises it
                self.stopping.set()
                self.done.put((group, e))
                return
            self.done.put((group, None))

    def submit(self, r: BatchResult) -> None:
        self.submitted += 1
        self.todo.put(r)

    @property
    def pending(self) -> int:
        """Submitted results not yet given back by :meth:`finished`."""
        return self.submitted - self.returned

    def finished(self, wait: bool = False) -> list[BatchResult]:
        """The results published since the last call; ``wait``: until every submitted one is.  Raises
        the error of a group that failed."""
        out: list[BatchResult] = []
        while self.pending:
            try:
                group, error = self.done.get(block=wait)
            except queue.Empty:
                break
            self.returned += len(group)
            if error is not None:
                raise error
            out.extend(group)
        return out

    def close(self) -> None:
        """Wait for the groups under way; what is still queued is not published."""
        self.stopping.set()
        for _ in self.threads:
            self.todo.put(None)
        for t in self.threads:
            t.join()
