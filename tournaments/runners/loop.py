"""The submission loop, written once: batches go to an executor, their results come back, a batch
whose worker or node was lost runs again.

This is the public interface every runner of batches uses: the tournament driver
(:func:`tournaments.runners.driver.run_tournament`) with the local pool
(:class:`~tournaments.runners.local.LocalExecutor`) or Ray
(:class:`~tournaments.runners.ray.RayExecutor`), and any other driver of batches (a ladder) with
either of them::

    executor = LocalExecutor(pool)            # or RayExecutor(address, num_cpus)
    run_batches(executor, work, on_result, summary, progress, max_in_flight=None)

``work`` is an iterator of :class:`~tournaments.runner.Batch` (read lazily: at most ``max_in_flight``
batches, by default two per CPU the executor has, are in flight, so the driver's memory does not grow
with the work); ``on_result`` is called in the driver with each :class:`~tournaments.runner.BatchResult`,
in the order they finish.  The loop keeps its counters in a
:class:`~tournaments.runners.summary.Summary` (``stopped``, ``resubmitted``, and through the executor
``lost_workers``, ``lost_nodes``, ``nodes``, ``startup_seconds``) and shows what happens on a
:class:`~tournaments.runners.progress.Progress` (``Progress(summary, False)`` shows nothing).

**An executor** (:class:`Executor`) is small: ``start`` it (it says how many batches it runs at once),
``submit`` a batch (a handle back), ``wait`` for some handles to finish, take a handle's ``result``,
get ready to run ``lost`` batches again, ``tick`` between rounds, and ``stop`` (cancelling what is
still in flight).  A result is a :class:`~tournaments.runner.BatchResult`, None for a cancelled batch,
or one of two errors:

- :class:`Lost`: the worker or node was lost (killed, out of memory, its machine gone), not a fault of
  the batch.  The loop runs it again, up to :data:`MAX_ATTEMPTS` times, and counts it in
  ``Summary.resubmitted``.  Here the executors differ, and only here: the local pool loses every batch
  in flight with one worker (``Lost(everything=True)``: the pool is made anew and all of them re-run),
  Ray loses one batch (or a node's worth, one by one) and says which node went.
- :class:`Failed`: :func:`~tournaments.runner.run_batch` raised: a bug.  The run stops with one line.

**Ctrl-C** (``KeyboardInterrupt`` in the driver) stops submitting, lets the batches in flight finish
for up to 30 s (a second Ctrl-C cancels them), and sets ``Summary.stopped``; everything they committed
is kept.  Whatever way the loop ends, nothing of it keeps running (``Executor.stop``).
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Protocol, TypeVar

from tournaments.runner import Batch, BatchResult
from tournaments.runners.progress import Progress
from tournaments.runners.summary import Summary, TournamentError

MAX_ATTEMPTS = 5
"""Runs of one batch whose worker or node was lost before the run gives up on it."""
MAX_POOL_LOSSES = 30
"""Runs of one batch lost with everything in flight (a local pool a dead worker broke) before the run
gives up on it: such a loss does not say which batch's worker died, so a batch that merely shared the
pool with it counts one too, and a worker killed every second or two would otherwise end a run whose
batches take longer than that (issue 27: a worker killed every 1.2 s, 12 times)."""

H = TypeVar("H", bound=Hashable)


class Lost(Exception):
    """The worker or node that ran a batch was lost: the batch is run again.

    ``why`` ends the message when a batch was lost too often; ``error`` is what the executor saw;
    ``everything``: every batch in flight was lost with it (a broken process pool)."""

    def __init__(self, why: str, error: BaseException | None = None, everything: bool = False) -> None:
        super().__init__(why)
        self.why, self.error, self.everything = why, error, everything


class Failed(Exception):
    """:func:`~tournaments.runner.run_batch` raised ``cause`` (``error`` is how the executor reported
    it): a bug, which stops the run."""

    def __init__(self, cause: BaseException, error: BaseException) -> None:
        super().__init__(str(cause))
        self.cause, self.error = cause, error

    def line(self) -> str:
        text = str(self.cause)
        return f"{type(self.cause).__name__}: {text.splitlines()[0] if text else ''}"


class Executor(Protocol[H]):
    """Where batches run; ``H`` is its handle of a submitted batch (a future, a Ray object ref)."""

    def start(self, s: Summary, bar: Progress) -> int:
        """Start (or join) and return how many batches run at once; may set ``s.startup_seconds``.
        ``s`` and ``bar`` are where :meth:`lost` and :meth:`tick` count and speak."""
        ...

    def submit(self, batch: Batch) -> H:
        ...

    def wait(self, handles: list[H], timeout: float) -> Iterable[H]:
        """Some of ``handles`` that have finished (none after ``timeout`` seconds)."""
        ...

    def result(self, handle: H) -> BatchResult | None:
        """The finished batch's result; None if it was cancelled; raises :class:`Lost` or :class:`Failed`."""
        ...

    def lost(self, batches: list[Batch], error: Lost) -> None:
        """Count and say that ``batches`` were lost, and get ready to run them again."""
        ...

    def tick(self, final: bool = False) -> None:
        """Between rounds of the loop (``final``: at its end)."""
        ...

    def stop(self, handles: list[H]) -> None:
        """The loop ends: cancel ``handles`` (still in flight when stopped or failed), release the rest."""
        ...


def run_batches(executor: Executor[H], work: Iterator[Batch], on_result: Callable[[BatchResult], None],
                s: Summary, bar: Progress, max_in_flight: int | None = None) -> None:
    """Run every batch of ``work`` on ``executor`` to the end or to Ctrl-C (see the module doc)."""
    pending: dict[H, Batch] = {}
    attempts: dict[tuple[str, bool], int] = {}
    started = executor.start(s, bar)   # always: a given max_in_flight must not skip the start
    limit = max_in_flight or max(2, 2 * started)

    def rerun(lost: list[Batch], error: Lost) -> None:
        if s.stopped:   # stopping: a lost batch stays for the next run
            return
        most = MAX_POOL_LOSSES if error.everything else MAX_ATTEMPTS
        for b in lost:
            key = (b.key, error.everything)
            attempts[key] = attempts.get(key, 0) + 1
            if attempts[key] > most:
                raise TournamentError(f"a batch of {b.game} failed {most} times: {error.why}"
                                      ) from error.error
        s.resubmitted += len(lost)
        executor.lost(lost, error)
        for b in lost:
            pending[executor.submit(b)] = b

    def collect(done: Iterable[H]) -> None:
        broken: Lost | None = None
        for h in done:
            b = pending[h]
            try:
                r = executor.result(h)
            except Lost as e:
                if e.everything:   # every batch in flight went with it: re-run them together below
                    broken = e
                    continue
                del pending[h]
                rerun([b], e)
                continue
            except Failed as e:
                del pending[h]
                raise TournamentError(f"a batch of {b.game} failed: {e.line()}") from e.error
            del pending[h]
            if r is not None:
                on_result(r)
        if broken is not None:
            lost = list(pending.values())
            pending.clear()
            rerun(lost, broken)

    try:
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    b = next(work, None)
                    if b is None:
                        exhausted = True
                    else:
                        pending[executor.submit(b)] = b
                if not pending:
                    break
                collect(executor.wait(list(pending), 0.25))
                executor.tick()
                bar.update()
            executor.tick(final=True)
        except KeyboardInterrupt:
            s.stopped = True
            bar.update(note="stopping: finishing the batches in flight (Ctrl-C again to cancel them)")
            try:
                deadline = time.monotonic() + 30.0
                while pending and time.monotonic() < deadline:
                    done = executor.wait(list(pending), 0.25)
                    with contextlib.suppress(TournamentError):
                        collect(done)
                    bar.update()
            except KeyboardInterrupt:
                pass
            executor.tick(final=True)
            bar.update(note="stopped")
    finally:   # stopped, or failed: nothing of ours keeps running
        in_flight = list(pending)
        pending.clear()
        executor.stop(in_flight)
