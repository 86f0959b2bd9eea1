"""Run a tournament: the driver and its executors, one module per job.

``run_tournament(spec)`` (:mod:`~tournaments.runners.driver`) is what ``cardarena tournament run`` calls:

1. **Prepare** (:mod:`~tournaments.runners.preparation`, :func:`prepare`): resolve the bots, write or
   check the manifest and the tournament secret, take the tournament's lock, start a new epoch (batches
   of an earlier, killed run can no longer commit), delete orphaned parts of an interrupted run, and
   read which matches are already committed: those are skipped.
2. **Run**: the remaining matches go out in batches of about ``batch_s`` seconds of work (the size is
   learnt per game from the batches done so far: :mod:`~tournaments.runners.work`), through the one
   submission loop (:mod:`~tournaments.runners.loop`, :func:`run_batches`) to an executor.  A batch
   whose worker or node died is submitted again and rewrites the same part files.  At most two batches
   per CPU are in flight, so the driver's memory does not grow with the tournament.  Each worker writes
   its own part files (``tournaments.runner``); the output directory must therefore be one every node
   sees.
3. **Stop**: Ctrl-C stops submitting, lets the batches in flight finish (a second Ctrl-C cancels
   them), and keeps everything committed; ``--resume`` or re-running the spec plays the rest.

**Executors.**  Without ``address``, and with ``[run] num_cpus`` (0: every CPU) no more than this
machine's CPUs, a run uses the **local path** (``executor="auto"``, the default, or ``"local"``): a
pool of worker processes forked from the driver (:mod:`~tournaments.runners.local`).  With an
``address``, more CPUs than the machine's, or ``executor="ray"`` (``--ray``), Ray runs the batches
(:mod:`~tournaments.runners.ray`): embedded on this machine, or on that cluster.
``executor="inline"`` runs the batches in this process (:mod:`~tournaments.runners.inline`: tests,
debugging, the benchmark's baseline).  The submission loop's executor interface
(:class:`~tournaments.runners.loop.Executor`) is public: another driver of batches (a ladder) uses
:func:`run_batches` with :class:`LocalExecutor` or :class:`RayExecutor` as the tournament does.

**Output.**  While Ray runs in the driver, everything it prints goes to ``OUT/_logs/ray-driver.log``
(:class:`RayOutput`), so stdout holds only the driver's own lines.  Progress is a live bar on a
terminal and a plain line every few seconds otherwise (:mod:`~tournaments.runners.progress`); a run
ends with a :class:`Summary` (:mod:`~tournaments.runners.summary`) or a one-line
:class:`TournamentError`.
"""
from __future__ import annotations

from tournaments.runners.driver import EXECUTORS, OnBatch, choose_executor, run_tournament
from tournaments.runners.local import LocalExecutor, LocalPool, machine_cpus
from tournaments.runners.loop import MAX_ATTEMPTS, Executor, Failed, Lost, run_batches
from tournaments.runners.preparation import Prepared, prepare, resolve_bots
from tournaments.runners.progress import Progress
from tournaments.runners.ray import (
    JOB_ENV,
    RAY_LOG,
    STORE_ENV,
    NodeWatch,
    RayExecutor,
    RayOutput,
    check_address,
    job_env,
    start_ray,
    store_env,
)
from tournaments.runners.summary import LostNode, Summary, TournamentError
from tournaments.runners.work import Sizer, batches

__all__ = [
    "EXECUTORS", "JOB_ENV", "MAX_ATTEMPTS", "RAY_LOG", "STORE_ENV", "Executor", "Failed", "LocalExecutor",
    "LocalPool", "Lost", "LostNode", "NodeWatch", "OnBatch", "Prepared", "Progress", "RayExecutor",
    "RayOutput", "Sizer", "Summary", "TournamentError", "batches", "check_address", "choose_executor",
    "job_env", "machine_cpus", "prepare", "resolve_bots", "run_batches", "run_tournament", "start_ray",
    "store_env",
]
