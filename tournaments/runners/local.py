"""The local executor: a pool of worker processes forked from the driver (:class:`LocalPool`), one per
CPU, each pinned to a CPU of its own (its sandboxed bots inherit it: a move's pipe round trip stays on
one core).  It starts in milliseconds where embedded Ray takes 3-8 s, which on a small run is most of
the time.  The workers play the same batches with the same :func:`~tournaments.runner.run_batch`, so
the exactly-once commit protocol and the epoch fence of ``tournaments.log`` are the same; they ignore
Ctrl-C (the driver decides), die with the driver (``PR_SET_PDEATHSIG``), and a worker that dies (an
OOM kill) breaks the pool: :class:`LocalExecutor` reports every batch in flight
:class:`~tournaments.runners.loop.Lost`, counts one lost worker, makes the pool anew, and the loop
runs them again.
"""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tournaments.runner import Batch, BatchResult, run_batch
from tournaments.runners.loop import Failed, Lost
from tournaments.runners.progress import Progress
from tournaments.runners.summary import Summary, TournamentError

START_TRIES = 5
"""Pools made in a row whose workers died as they started before the run gives up."""


_CLAIMED: tuple[int, int] | None = None
"""This process's CPU claim (the CPU, the descriptor holding its lock), once made."""


def claim_cpu(directory: str | None = None) -> int | None:
    """Pin this process to a CPU that no other claimant on this machine holds, and return it; None
    (left unpinned) when every CPU it may run on is held.  A claim is an exclusive ``flock`` on
    ``DIR/cardarena-cpu-K.lock`` (``/dev/shm`` by default), held until the process ends, so a worker
    that dies frees its CPU.  Ray's workers claim on their first batch (Ray gives a task a CPU's
    worth, not a CPU id): pinned, a sandboxed move's pipe round trip stays on one core, as in the
    local pool.  Once per process."""
    global _CLAIMED
    if _CLAIMED is not None:
        return _CLAIMED[0]
    import fcntl
    where = directory or ("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp")
    for cpu in sorted(os.sched_getaffinity(0)):
        try:
            fd = os.open(os.path.join(where, f"cardarena-cpu-{cpu}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            os.close(fd)
            return None
        _CLAIMED = (cpu, fd)
        return cpu
    return None


def machine_cpus() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


PR_SET_PDEATHSIG = 1


def _local_worker_init(cpus: tuple[int, ...], slot: Any, driver: int) -> None:
    """A pool worker: ignores Ctrl-C (the driver stops the run), dies with the driver, and runs on a
    CPU of its own (its bots inherit it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.setsid()   # a session of its own: the kernel's autogroup shares CPU between sessions, so
        # workers in the driver's session would split one share between them (Ray's workers are
        # not in the driver's session either); Ctrl-C is the driver's, the driver's death is below
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):   # not Linux: a killed driver's workers end with their queue
        pass
    if os.getppid() != driver:   # the driver died before prctl: nothing to work for
        os._exit(0)
    if cpus:
        with slot.get_lock():
            k = slot.value
            slot.value += 1
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpus[k % len(cpus)]})


def _local_ready() -> int:
    return os.getpid()


class LocalPool:
    """``workers`` processes forked from the driver, each on a CPU of its own when there are as many
    CPUs; :meth:`renew` replaces a pool a dead worker broke."""

    def __init__(self, workers: int, fn: Callable[[Any], Any] = run_batch) -> None:
        self.workers = workers
        self.fn = fn
        """What a worker runs on each submitted item (a tournament's :func:`run_batch`, or another
        driver's task, e.g. ``cardarena verify``'s replay of a group of matches)."""
        cpus = sorted(os.sched_getaffinity(0))
        self.cpus: tuple[int, ...] = tuple(cpus) if workers <= len(cpus) else ()
        self.ctx = multiprocessing.get_context("fork")
        self.pool: ProcessPoolExecutor | None = None
        self.startup_seconds = 0.0

    def __enter__(self) -> LocalPool:
        t0 = time.monotonic()
        self._start()
        self.startup_seconds = time.monotonic() - t0
        return self

    def _start(self) -> None:
        """A new pool, every worker forked and one of them running.  A worker killed while the pool
        starts breaks it: it is made again, up to :data:`START_TRIES` times."""
        for tries in range(1, START_TRIES + 1):
            slot = self.ctx.Value("i", 0)
            self.pool = ProcessPoolExecutor(self.workers, mp_context=self.ctx, initializer=_local_worker_init,
                                            initargs=(self.cpus, slot, os.getpid()))
            try:
                self.pool.submit(_local_ready).result()   # forks every worker, and waits for one to run
                return
            except BrokenProcessPool as e:
                self.close(kill=True)
                if tries == START_TRIES:
                    raise TournamentError(f"the local worker processes died as they started, "
                                          f"{START_TRIES} times ({e or 'killed'})") from e

    def submit(self, batch: Batch) -> Future[BatchResult]:
        assert self.pool is not None
        try:
            return self.pool.submit(self.fn, batch)
        except BrokenProcessPool as e:   # a worker died since the last wait: this batch is lost with the
            lost: Future[BatchResult] = Future()   # others (LocalExecutor.result: Lost, everything)
            lost.set_exception(e)
            return lost

    def renew(self) -> None:
        self.close()
        self._start()

    def close(self, kill: bool = False) -> None:
        pool, self.pool = self.pool, None
        if pool is None:
            return
        procs = list(getattr(pool, "_processes", {}).values())   # the executor keeps no public list
        if kill:
            for proc in procs:
                with contextlib.suppress(OSError):
                    proc.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)




class LocalExecutor:
    """:class:`LocalPool` as the submission loop's :class:`~tournaments.runners.loop.Executor`: a dead
    worker loses every batch in flight (the pool is broken), which run again on a new pool."""

    def __init__(self, pool: LocalPool) -> None:
        self.pool = pool
        self.s: Summary | None = None
        self.bar: Progress | None = None

    def start(self, s: Summary, bar: Progress) -> int:
        self.s, self.bar = s, bar
        s.startup_seconds = self.pool.startup_seconds
        return self.pool.workers

    def submit(self, batch: Batch) -> Future[BatchResult]:
        """The batch's future; when a worker has died since the loop last looked (the pool is broken),
        a future that failed with :class:`BrokenProcessPool`, so that the loop re-runs this batch with
        the others in flight (:meth:`result`) instead of ending with a traceback."""
        try:
            return self.pool.submit(batch)
        except BrokenProcessPool as e:
            lost: Future[BatchResult] = Future()
            lost.set_exception(e)
            return lost

    def wait(self, handles: list[Future[BatchResult]], timeout: float) -> Iterable[Future[BatchResult]]:
        done, _ = wait_futures(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        return done

    def result(self, handle: Future[BatchResult]) -> BatchResult | None:
        try:
            return handle.result()
        except CancelledError:
            return None
        except BrokenProcessPool as e:   # a worker died (killed, out of memory): the pool is broken
            raise Lost("its worker process died", e, everything=True) from e
        except Exception as e:   # run_batch raised in the worker: a bug, one line (as on Ray)
            raise Failed(e, e) from e

    def lost(self, batches: list[Batch], error: Lost) -> None:
        assert self.s is not None and self.bar is not None, "start() first"
        self.s.lost_workers += 1
        self.bar.event(f"a worker process died; {len(batches)} batches re-run")
        self.pool.renew()

    def tick(self, final: bool = False) -> None:
        pass

    def stop(self, handles: list[Future[BatchResult]]) -> None:
        if handles:   # stopped, or failed: nothing of ours keeps running
            self.pool.close(kill=True)
