"""Run a tournament: the driver (``cardarena tournament run``).  See :mod:`tournaments.runners`."""
from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tournaments.ledger import (
    clean_orphans,
    clean_staging,
    late_batches,
    publish_secret,
    read_manifest,
    write_manifest,
)
from tournaments.log import Fenced
from tournaments.paths import manifest_path, part_epoch
from tournaments.runner import BatchResult
from tournaments.runners.inline import run_inline
from tournaments.runners.local import LocalExecutor, LocalPool, machine_cpus
from tournaments.runners.loop import run_batches
from tournaments.runners.preparation import Prepared, prepare
from tournaments.runners.progress import Progress
from tournaments.runners.publish import Publisher
from tournaments.runners.ray import RayExecutor, RayOutput, _join, _ray_shutdown, check_address, job_env
from tournaments.runners.summary import Summary, TournamentError
from tournaments.runners.work import Sizer, batches
from tournaments.spec import Spec
from tournaments.store import StoreError

EXECUTORS = ("auto", "local", "ray", "inline")
RAY_TASK_BATCHES = 4
"""Batches a Ray task carries once a game's batch size is learnt (each committed on its own,
:attr:`~tournaments.runner.Batch.every`): a task costs the driver about 1.4 ms of CPU on Ray (its
submission and result), a batch in the local pool less than half of that (bench/README.md)."""


def _builtins() -> tuple[str, ...]:
    from bots.api import BUILTIN

    return tuple(BUILTIN)


def choose_executor(executor: str, address: str | None, num_cpus: int) -> str:
    """``auto``: the local path for a run on this machine that fits its CPUs, else Ray."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "local" and address is not None:
        raise TournamentError(f"--address {address}: a cluster runs batches only with Ray, not the "
                              "local path")
    if executor != "auto":
        return executor
    return "local" if address is None and (num_cpus or machine_cpus()) <= machine_cpus() else "ray"


OnBatch = Callable[[BatchResult, Summary], None]


def run_tournament(spec: Spec, *, tournament_id: str | None = None, resume: bool = False,
                   address: str | None = None, executor: str = "auto", progress: bool = True,
                   on_batch: OnBatch | None = None, fsync: bool = True, bots_data: str | None = None,
                   max_in_flight: int | None = None, progress_every: float = 5.0,
                   allow_engine_change: bool = False) -> Summary:
    """Run (or resume) the tournament of ``spec`` to its end or to Ctrl-C; see the module doc.

    ``executor``: ``auto`` (the local path for a run on this machine within its CPUs, else Ray),
    ``local``, ``ray`` or ``inline`` (see the module doc).  With Ray and an ``address`` (or the
    spec's), the cluster is checked and joined before the output directory is touched; Ray's messages
    go to ``OUT/_logs/ray-driver.log`` (:class:`RayOutput`).  ``progress_every``: seconds between
    plain progress lines (not a terminal).
    """
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if any(e.bot not in _builtins() for e in spec.bots):   # submitted bots: refuse a weak sandbox now
        from bots.sandbox import SandboxUnavailable, isolation
        try:
            isolation().require_untrusted()
        except SandboxUnavailable as e:
            raise TournamentError(str(e)) from None
    if bots_data is None and any(e.bot not in _builtins() for e in spec.bots):
        from bots.registry import data_dir

        bots_data = str(data_dir().resolve())   # the workers must read the same registry
    address = address or spec.address
    executor = choose_executor(executor, address, spec.num_cpus)
    with contextlib.ExitStack() as stack:
        ray_out: RayOutput | None = None
        if executor == "ray":
            if address is not None:
                check_address(address)   # within seconds, before anything is written
            ray_out = stack.enter_context(RayOutput())
            if address is not None and _join(address, ray_out, job_env(spec.output)):
                stack.callback(_ray_shutdown)   # before RayOutput restores stdout and stderr
        p = prepare(spec, tournament_id, resume, bots_data, allow_engine_change=allow_engine_change)
        stack.callback(p.release)
        summary = Summary(p.tournament, p.uri or p.root, p.total, len(p.done),
                          removed_orphans=p.removed_orphans, quarantined=p.quarantined, executor=executor)
        if summary.complete:
            _finish_manifest(p, summary)
            return summary
        out, err = (ray_out.out, ray_out.err) if ray_out is not None else (sys.stdout, sys.stderr)
        if ray_out is not None:
            summary.ray_log = ray_out.attach(p.root, f"cardarena tournament run {p.tournament}")
        sizer = Sizer(p.spec.batch_s)
        work = batches(p, sizer, fsync, bots_data, RAY_TASK_BATCHES if executor == "ray" else 1)
        t0 = time.monotonic()
        pool = (stack.enter_context(LocalPool(spec.num_cpus or machine_cpus())) if executor == "local"
                else None)   # forked before the progress bar's thread starts
        publisher = Publisher(p.publish_group) if p.store is not None else None
        if publisher is not None:   # closed before the lease is released (the stack unwinds in reverse)
            stack.callback(publisher.close)
        with Progress(summary, progress, out, err, progress_every) as bar:

            def published(wait: bool = False) -> None:
                assert publisher is not None
                try:
                    done = publisher.finished(wait)
                except Fenced as e:
                    raise TournamentError(str(e)) from None
                for r in done:
                    _account(r, sizer, summary, bar, on_batch)

            def account(r: BatchResult) -> None:
                if publisher is not None and r.attempt is not None:   # an object store: this driver commits
                    publisher.submit(r)
                    published()
                else:
                    _account(r, sizer, summary, bar, on_batch)

            if pool is not None:
                run_batches(LocalExecutor(pool), work, account, summary, bar, max_in_flight)
            elif ray_out is None:
                run_inline(work, account, summary)
            else:
                run_batches(RayExecutor(address, p.spec.num_cpus), work, account, summary, bar, max_in_flight)
            if publisher is not None:
                try:
                    published(wait=True)
                except KeyboardInterrupt:   # what is not published yet is played again by the next run
                    summary.stopped = True
        summary.seconds = time.monotonic() - t0
        _finish_manifest(p, summary)
    return summary


def _finish_manifest(p: Prepared, s: Summary) -> None:
    try:
        if p.store is not None and p.lease is not None:
            _finish_store(p, s)
        elif p.epoch:   # parts a fenced-off worker of an earlier run wrote after this run began
            s.removed_orphans += len(clean_orphans(p.root, p.tournament, before_epoch=p.epoch))
        m = read_manifest(p.root, p.tournament) or {}
        m.pop("schema_version", None)
        m.update(updated_at=datetime.now(UTC).isoformat(timespec="seconds"), complete=s.complete,
                 done_matches=s.done)
        write_manifest(p.root, p.tournament, m)
        if p.mirror is not None:
            p.mirror.push(manifest_path("", p.tournament).as_posix())
    except StoreError as e:
        raise TournamentError(f"{e}; run again with --resume to finish the tournament's bookkeeping"
                              ) from None


def _finish_store(p: Prepared, s: Summary) -> None:
    """The end of a run on an object store: the fence checked again (still this run's lease; no batch
    of an earlier epoch published since this run read the log, else it is quarantined: this run
    played its matches), then this run's staged objects no publish will take any more removed."""
    assert p.store is not None and p.lease is not None and p.mirror is not None
    try:
        p.lease.check()
    except Fenced as e:
        raise TournamentError(str(e)) from None
    for k in late_batches(p.store, p.tournament, p.epoch, p.mirror.keys):
        s.quarantined.append((p.store.where(k), [f"{p.store.where(k)}: published by an earlier run (epoch "
                                                 f"{part_epoch(k.rsplit('/', 1)[-1])}) after this one "
                                                 "read the log; its matches were played by this run"]))
    s.removed_orphans += len(clean_staging(p.store, p.tournament, before_epoch=p.epoch + 1))
    if s.complete:   # its deals can be checked now; while it ran, the log held only the fingerprint
        publish_secret(p.store, p.tournament, p.secret)


def _account(r: BatchResult, sizer: Sizer, s: Summary, bar: Progress, on_batch: OnBatch | None) -> None:
    """Count a committed batch (on an object store: once this driver published it)."""
    if r.attempt is None and r.parts and not Path(r.parts[-1]).exists():
        raise TournamentError(f"worker {r.worker} wrote {r.parts[-1]}, which this machine cannot see: on a "
                              "cluster the output must be a directory every node shares")
    sizer.learn(r)
    s.done_now += r.matches
    s.moves += r.moves
    s.faults += r.faults
    s.errors += r.errors
    s.workers.add(r.worker)
    bar.update()
    if on_batch is not None:
        on_batch(r, s)
