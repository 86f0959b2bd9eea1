"""Run a tournament: the driver.  Schedules batches of matches as Ray tasks, shows progress, resumes.

``run_tournament(spec)`` is what ``cardarena tournament run`` calls:

1. **Prepare** (:func:`prepare`): resolve the bots (``NAME`` -> ``NAME@VERSION``), write or check the
   manifest ``OUT/_tournaments/<id>.json`` (a directory holding this id from another spec is refused)
   and the tournament secret beside it (``<id>.secret``: created once, reused by every resume; every
   deal and bot seed derives from it, ``tournaments.schedule``),
   take the tournament's lock, start a new epoch (batches of an earlier, killed run that still run
   somewhere can no longer commit: ``tournaments.log``, ``tournaments.ledger``), delete orphaned parts
   of an interrupted run, and read which matches are already committed (``matches`` parts): those are skipped.
2. **Run**: batches of about ``batch_s`` seconds of work (the size is learnt per game from the batches
   done so far) go to Ray tasks; a batch whose worker or node died is submitted again and rewrites
   the same part files.  At most two batches per CPU are in flight, so the driver's memory does not
   grow with the tournament.  Each task writes its own part files (``tournaments.runner``);
   the output directory must therefore be one every node sees.
3. **Stop**: Ctrl-C stops submitting, lets the batches in flight finish (a second Ctrl-C cancels
   them), and keeps everything committed; ``--resume`` or re-running the spec plays the rest.

**Executors.**  Without ``address``, and with ``[run] num_cpus`` (0: every CPU) no more than this
machine's CPUs, a run uses the **local path** (``executor="auto"``, the default, or ``"local"``): a
pool of worker processes forked from the driver (:class:`LocalPool`), one per CPU, each pinned to a
CPU of its own (its sandboxed bots inherit it: a move's pipe round trip stays on one core).  It
starts in milliseconds where embedded Ray takes 3-8 s, which on a small run is most of the time.
The workers play the same batches with the same :func:`~tournaments.runner.run_batch`, so the
exactly-once commit protocol and the epoch fence of ``tournaments.log`` are the same; they ignore
Ctrl-C (the driver decides), die with the driver (``PR_SET_PDEATHSIG``), and a worker that dies
(an OOM kill) is counted, its pool made anew and the batches in flight run again.  With an
``address``, more CPUs than the machine's, or ``executor="ray"`` (``--ray``), Ray runs the batches:
embedded on this machine (``ray.init()``), or on that cluster, shipping this project's packages with
the job (``py_modules``) when a node is another machine.  ``executor="inline"`` runs the batches in
this process (tests, debugging, the benchmark's baseline).

**Output.**  While Ray runs in the driver, everything it prints (the ``(raylet)`` node-death and
state dumps it relays from the cluster, its C++ log lines, its Python logger) goes to
``OUT/_logs/ray-driver.log`` instead of the terminal (:class:`RayOutput`): stdout holds only this
module's own lines, so ``--json`` output parses whatever the cluster does.  A lost node is one line
of our own, ``node 10.0.0.7 (1f3a9c2e) lost; 2 batches re-run``.  Progress is a live bar on a
terminal and a plain line every few seconds otherwise (CI, ``nohup``, a log file): :class:`Progress`.
With an ``address`` the cluster is reached, and joined, before anything is written to the output
directory: an unreachable or refusing cluster leaves it untouched.
"""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import multiprocessing
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from engine import GAMES
from tournaments.ledger import (
    Lease,
    LeaseHeld,
    acquire_lease,
    begin_epoch,
    clean_orphans,
    clean_staging,
    mirror_tournament,
    publish_batch,
    read_manifest,
    read_secret,
    repair,
    secret_fingerprint,
    tournaments_in,
    write_manifest,
    write_secret,
)
from tournaments.log import Fenced, PartError, engine_version, finished_matches, logged_engine_versions
from tournaments.paths import RAY_LOG, lock_path, manifest_path, secret_path
from tournaments.runner import Batch, BatchResult, run_batch
from tournaments.schedule import GamePlan, Match, plan, spec_secret
from tournaments.spec import GameEntry, Spec, SpecError, check_tournament_id
from tournaments.store import Mirror, ObjectStore, StoreError, is_uri, open_store, restore_uri

PROJECT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bots", "tournaments")
"""Shipped to a remote cluster with the job (``runtime_env.py_modules``)."""


class TournamentError(Exception):
    """A tournament that cannot run or go on; the message is one line."""


# ------------------------------------------------------------------------------------------ bots
def _builtins() -> tuple[str, ...]:
    from bots.api import BUILTIN

    return tuple(BUILTIN)


def resolve_bots(spec: Spec, bots_data: str | None = None) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(entrant label -> bot ref, game -> labels of the entrants that play it).

    Built-ins play every game; a submitted bot ``NAME`` resolves to its latest version and plays the
    games it was validated for (its ``GAMES``).
    """
    from bots.api import BUILTIN

    refs: dict[str, str] = {}
    games_of: dict[str, list[str] | None] = {}
    for i, e in enumerate(spec.bots):
        if e.bot in BUILTIN:
            refs[e.label], games_of[e.label] = e.bot, None
            continue
        from bots.registry import Registry

        try:
            entry = Registry(bots_data).resolve(e.bot)
        except LookupError as err:
            raise SpecError(f"bots[{i}]: unknown bot {e.bot!r}: {err} (built-in bots: "
                            f"{', '.join(BUILTIN)}; submit one with `cardarena bots submit`)") from None
        refs[e.label], games_of[e.label] = f"{entry.name}@{entry.version}", list(entry.games)
    by_game = {g.id: [e.label for e in spec.bots if games_of[e.label] is None
                      or g.id in (games_of[e.label] or [])] for g in spec.games}
    return refs, by_game


# ------------------------------------------------------------------------------------------ prepare
@dataclass
class Prepared:
    spec: Spec
    tournament: str
    root: Path
    plans: list[GamePlan]
    refs: dict[str, str]
    total: int
    done: set[str]
    lock: TextIO | None = None
    store: ObjectStore | None = None
    """The object store the log is in (None: the local directory ``root``)."""
    lease: Lease | None = None
    """On an object store: this run's lease (its epoch)."""
    mirror: Mirror | None = None
    """On an object store: the temporary local copy ``root`` is (its bookkeeping)."""
    uri: str | None = None
    removed_orphans: int = 0
    epoch: int = 0
    """This run's epoch: batches of earlier runs can no longer commit (``tournaments.log``)."""
    secret: bytes = field(default=b"", repr=False)
    """The tournament secret (kept in its directory; never given to a bot)."""
    quarantined: list[tuple[str, list[str]]] = field(default_factory=list)
    """Damaged batches moved to ``_quarantine/`` (``tournaments.ledger.repair``): their matches run again."""

    @property
    def out(self) -> str:
        """Where the log is: the store's URI, or the directory."""
        return self.uri if self.uri is not None else str(self.root)

    def publish(self, r: BatchResult) -> None:
        """On an object store, publish a staged batch (the driver alone commits there)."""
        if self.store is None or r.attempt is None:
            return
        if self.lease is None:
            raise TournamentError("a staged batch without this run's lease: nothing published")
        publish_batch(self.store, self.lease, r.attempt, r.parts)
        r.parts = [self.store.where(k) for k in r.parts]

    def release(self) -> None:
        if self.lease is not None:
            self.lease.release()
            self.lease = None
        if self.mirror is not None:
            self.mirror.close()
            self.mirror = None
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def prepare(spec: Spec, tournament_id: str | None = None, resume: bool = False,
            bots_data: str | None = None, lock: bool = True, allow_engine_change: bool = False) -> Prepared:
    """Lock the tournament, check the output directory against the spec, read what is done."""
    try:  # the id names files under the output directory: never a path (spec.check_tournament_id)
        tid = check_tournament_id(tournament_id or spec.name, "--tournament-id" if tournament_id else "name")
    except SpecError as e:
        raise TournamentError(str(e)) from None
    if is_uri(restore_uri(spec.output)):
        return _prepare_store(spec, tid, restore_uri(spec.output), tournament_id is not None, resume,
                              bots_data, lock, allow_engine_change)
    root = spec.output.expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise TournamentError(f"output {str(spec.output)!r} is a file, not a directory")
    held = _lock(root, tid) if lock else None
    try:
        p = _prepare(spec, tid, root, tournament_id is not None, resume, bots_data, allow_engine_change)
        p.lock = held
        if held is not None:   # fence off the batches of earlier runs before reading what they finished
            p.epoch = begin_epoch(root, tid)
            p.removed_orphans = len(clean_orphans(root, tid, before_epoch=p.epoch))
            fixed = repair(root, tid, {m.match_id for gp in p.plans for m in gp.matches()})
            p.done, p.quarantined = fixed.done, fixed.quarantined
        else:
            p.done = finished_matches(root, tid)
    except PartError as e:
        if held is not None:
            held.close()
        raise TournamentError(str(e)) from None
    except BaseException:
        if held is not None:
            held.close()
        raise
    return p


def _prepare_store(spec: Spec, tid: str, uri: str, new_id: bool, resume: bool, bots_data: str | None,
                   lock: bool, allow_engine_change: bool = False) -> Prepared:
    """:func:`prepare` for a log in an object store: the lease (the epoch) instead of the lock file,
    staged objects of earlier runs removed, then the same bookkeeping on a temporary local copy whose
    changes (a new manifest and secret, orphans removed, damaged batches quarantined) go back to the
    store (``data/README.md``)."""
    try:
        store = open_store(uri)
        lease = acquire_lease(store, tid) if lock else None
    except (StoreError, LeaseHeld, ValueError) as e:
        raise TournamentError(str(e)) from None
    try:
        mirror = mirror_tournament(store, tid)
    except StoreError as e:
        if lease is not None:
            lease.release()
        raise TournamentError(str(e)) from None
    try:
        p = _prepare(spec, tid, mirror.dir, new_id, resume, bots_data, allow_engine_change)
        for k in (secret_path("", tid), manifest_path("", tid)):   # the secret first, as on disk
            if k.as_posix() not in mirror.keys:
                mirror.push(k.as_posix())
                mirror.keys.add(k.as_posix())
        p.store, p.lease, p.mirror, p.uri = store, lease, mirror, uri
        if lease is not None:
            p.epoch = lease.epoch
            p.removed_orphans = len(clean_staging(store, tid, before_epoch=p.epoch))
            p.removed_orphans += len(clean_orphans(mirror.dir, tid, before_epoch=p.epoch))
            fixed = repair(mirror.dir, tid, {m.match_id for gp in p.plans for m in gp.matches()})
            p.done, p.quarantined = fixed.done, fixed.quarantined
            mirror.sync_back("")
        else:
            p.done = finished_matches(mirror.dir, tid)
    except (PartError, TournamentError, StoreError) as e:
        mirror.close()
        if lease is not None:
            lease.release()
        raise TournamentError(str(e).replace(str(mirror.dir), uri.split("?", 1)[0])) from None
    except BaseException:
        mirror.close()
        if lease is not None:
            lease.release()
        raise
    return p


def _prepare(spec: Spec, tid: str, root: Path, new_id: bool, resume: bool, bots_data: str | None,
             allow_engine_change: bool = False) -> Prepared:
    try:
        manifest = read_manifest(root, tid)
    except (OSError, ValueError) as e:
        raise TournamentError(f"the manifest {manifest_path(root, tid)} cannot be read ({e}); move "
                              "the directory away or choose another output") from None
    if manifest is not None and not isinstance(manifest, dict):
        raise TournamentError(f"the manifest {manifest_path(root, tid)} is corrupt (not a JSON object); move "
                              "the directory away or choose another output")
    others = [t for t in tournaments_in(root) if t != tid]
    if manifest is None:
        if resume:
            where = f"; it holds {', '.join(others)}" if others else ""
            raise TournamentError(f"--resume: no tournament {tid!r} in {root}{where}")
        if others and not new_id:
            raise TournamentError(
                f"output {root} holds another tournament ({', '.join(others)}); choose another output, or "
                f"pass --tournament-id NEW to add tournament NEW beside it")
        refs, by_game = resolve_bots(spec, bots_data)
        secret = spec_secret(spec)
        plans = plan(spec, by_game, secret)
        total = sum(p.total for p in plans)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        write_secret(root, tid, secret)   # before the manifest: a manifest always has its secret
        write_manifest(root, tid, {
            "tournament": tid, "spec_hash": spec.spec_hash(), "spec": spec.identity(), "name": spec.name,
            "games": spec.game_entries(), "bots": refs, "entrants": by_game, "total_matches": total,
            "secret": spec.secret, "secret_sha256": secret_fingerprint(secret),
            "engine_version": engine_version(), "created_at": now, "updated_at": now, "complete": False})
    else:
        if manifest.get("spec_hash") != spec.spec_hash():
            raise TournamentError(
                f"output {root} holds tournament {tid!r} from another spec (spec hash "
                f"{manifest.get('spec_hash')} here, {spec.spec_hash()} now); re-run its own spec to resume "
                "it, choose another output, or pass --tournament-id NEW for a new tournament")
        try:
            spec, refs, by_game = _frozen(spec, manifest, root)
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # fields missing or of other types
            raise TournamentError(f"the manifest {manifest_path(root, tid)} is corrupt ({type(e).__name__}: "
                                  f"{str(e)[:100]}); move the directory away or choose another output"
                                  ) from None
        secret = _kept_secret(manifest, root, tid)
        _check_engine(manifest, root, tid, allow_engine_change)
        plans = plan(spec, by_game, secret)
        total = sum(p.total for p in plans)
    return Prepared(spec, tid, root, plans, refs, total, set(), secret=secret)


def _check_engine(manifest: dict[str, Any], root: Path, tid: str, allow: bool) -> None:
    """Refuse to go on with a tournament whose matches so far were played by other rules code (the
    engine versions of its logged matches, ``matches.engine_version``): its remaining matches would
    not be dealt and played as its first ones were, and a duplicate board could be split across the
    two.  ``allow`` (``--allow-engine-change``) goes on, and the manifest records the change."""
    now_v = engine_version()
    other = {v: n for v, n in logged_engine_versions(root, tid).items() if v != now_v}
    if not other:
        return
    played = ", ".join(f"{v} ({n} match{'es' if n != 1 else ''})" for v, n in sorted(other.items()))
    if not allow:
        raise TournamentError(
            f"tournament {tid!r} in {root} was played so far by engine {played} and this is engine "
            f"{now_v}: the rules code has changed since, so its remaining matches would not be dealt and "
            "played as its first ones were; finish it with the cardarena that started it, or pass "
            "--allow-engine-change to go on with this one (the manifest records the change)")
    changes = manifest.setdefault("engine_changes", [])
    changes.append({"from": sorted(other), "to": now_v,
                    "at": datetime.now(UTC).isoformat(timespec="seconds")})
    write_manifest(root, tid, manifest)


def _kept_secret(manifest: dict[str, Any], root: Path, tid: str) -> bytes:
    """The secret a tournament started with, checked against the manifest's fingerprint."""
    kept = manifest.get("secret_sha256")
    if kept is None:
        raise TournamentError(f"tournament {tid!r} in {root} was started without a tournament secret (an "
                              "older cardarena, whose deals a bot could predict); start it again in a new "
                              "output directory")
    try:
        secret = read_secret(root, tid)
    except (OSError, ValueError) as e:
        raise TournamentError(f"the secret of tournament {tid!r} cannot be read ({e}); its remaining "
                              "matches cannot be dealt as its first ones were") from None
    if secret is None:
        raise TournamentError(f"the secret of tournament {tid!r} is missing "
                              f"({root}/_tournaments/{tid}.secret); its remaining matches cannot be "
                              "dealt as its first ones were")
    if secret_fingerprint(secret) != kept:
        raise TournamentError(f"the secret of tournament {tid!r} in {root} is not the one it started with "
                              f"(fingerprint {secret_fingerprint(secret)}, manifest {kept})")
    return secret


def _frozen(spec: Spec, manifest: dict[str, Any],
            root: Path) -> tuple[Spec, dict[str, str], dict[str, list[str]]]:
    """The spec with the games and bots frozen when the tournament started."""
    games = []
    for g in manifest["games"]:
        if g["id"] not in GAMES:
            raise TournamentError(f"tournament in {root} plays {g['id']}, which is no longer registered")
        games.append(GameEntry(g["id"], dict(g["options"]), int(g["players"]), g["max_deals"]))
    entrants = {k: list(v) for k, v in manifest["entrants"].items()}
    return spec.with_games(tuple(games)), dict(manifest["bots"]), entrants


def _lock(root: Path, tid: str) -> TextIO:
    path = lock_path(root, tid)
    path.parent.mkdir(parents=True, exist_ok=True)
    f = open(path, "a+")  # held for the whole run
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip()
        f.close()
        raise TournamentError(f"tournament {tid!r} in {root} is being run by another process "
                              f"({holder or 'unknown'}); wait for it or stop it first") from None
    try:
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
        f.flush()
    except OSError as e:   # a full disk: name the file (a failed flush names none)
        with contextlib.suppress(OSError):
            f.close()
        raise OSError(e.errno, e.strerror, str(path)) from None
    return f


# ------------------------------------------------------------------------------------------ batching
class Sizer:
    """Matches per batch for each game, learnt from the batches done: about ``target`` seconds."""

    def __init__(self, target: float, first: int = 2, cap: int = 1000) -> None:
        self.target, self.first, self.cap = target, first, cap
        self.seconds: dict[str, float] = {}
        self.matches: dict[str, int] = {}

    def learn(self, r: BatchResult) -> None:
        self.seconds[r.game] = self.seconds.get(r.game, 0.0) + r.seconds
        self.matches[r.game] = self.matches.get(r.game, 0) + r.matches

    def size(self, game: str) -> int:
        n = self.matches.get(game, 0)
        if not n:
            return self.first
        per = max(self.seconds[game] / n, 1e-6)
        return max(1, min(self.cap, round(self.target / per)))


def batches(p: Prepared, sizer: Sizer, fsync: bool = True, bots_data: str | None = None) -> Iterator[Batch]:
    """The remaining matches in batches, taking the games in turn (so every game progresses)."""
    streams: list[tuple[GamePlan, Iterator[Match]]] = [
        (gp, (m for m in gp.matches() if m.match_id not in p.done)) for gp in p.plans]
    while streams:
        alive = []
        for gp, it in streams:
            chunk: list[Match] = []
            for m in it:
                chunk.append(m)
                if len(chunk) >= sizer.size(gp.game.id):
                    break
            if chunk:
                g = gp.game
                yield Batch(p.tournament, p.out, g.id, g.options, g.players, g.max_deals, tuple(chunk),
                            p.refs, {e.label: e.options for e in p.spec.bots if e.options}, p.spec.limits,
                            bots_data, fsync, p.epoch)
                alive.append((gp, it))
        streams = alive


# ------------------------------------------------------------------------------------------ Ray
def check_address(address: str, timeout: float = 3.0) -> None:
    """Fail within ``timeout`` seconds when nothing listens at a ``HOST:PORT`` (or ``ray://``) address."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise TournamentError(f"--address {address!r}: expected HOST:PORT (e.g. 10.0.0.5:6379), "
                              "ray://HOST:10001 or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise TournamentError(f"cannot reach a Ray cluster at {address}: {e.strerror or e}") from None


STORE_ENV = ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION",
             "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
             "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_APPLICATION_CREDENTIALS")
"""The driver's object-store settings that a cluster's workers get with the job (``runtime_env``
``env_vars``) when the log is in a store: a worker on another machine does not see the driver's
environment, and without these it would talk to the default endpoint with no credentials."""


def store_env(output: str | os.PathLike[str]) -> dict[str, str]:
    """The :data:`STORE_ENV` settings of this process, for a log kept at ``output`` (none for a
    local directory)."""
    if not is_uri(restore_uri(output)):
        return {}
    return {k: os.environ[k] for k in STORE_ENV if os.environ.get(k)}


JOB_ENV = ("CARDARENA_SANDBOX",)
"""The driver's sandbox choice, which a cluster's workers get with the job whatever the log's place:
the organiser who accepted the unshare fallback (``CARDARENA_SANDBOX=unshare``) on the driver accepted
it for the tournament, so a node without bubblewrap runs its batches in the same fallback instead of
refusing them; an unset variable is not sent (each node then requires bubblewrap)."""


def job_env(output: str | os.PathLike[str]) -> dict[str, str]:
    """Everything the driver forwards to a cluster's workers: :func:`store_env` and :data:`JOB_ENV`."""
    return {**store_env(output), **{k: os.environ[k] for k in JOB_ENV if os.environ.get(k)}}


def start_ray(address: str | None, num_cpus: int = 0, env_vars: dict[str, str] | None = None) -> bool:
    """Connect to ``address``, or start embedded Ray; True if this call started it.  ``env_vars``
    reach the job's workers on a cluster (embedded workers inherit this process's environment)."""
    import logging

    import ray

    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address is None:
        # "local": a new instance of our own, never a cluster that happens to run on this machine
        try:
            ray.init(address="local", num_cpus=num_cpus or None, include_dashboard=False,
                     object_store_memory=128 << 20, **quiet)
        except (ConnectionError, RuntimeError, ValueError, OSError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise TournamentError(f"embedded Ray did not start: {first}") from None
        return True
    from ray.exceptions import AuthenticationError

    check_address(address)
    env: dict[str, Any] = {"env_vars": dict(env_vars)} if env_vars else {}
    try:
        ray.init(address=address, runtime_env=env or None, **quiet)
        if remote_nodes():  # another machine runs batches too: ship this project's code with the job
            ray.shutdown()
            ray.init(address=address,
                     runtime_env={**env, "py_modules": [str(PROJECT / p) for p in PACKAGES]}, **quiet)
    except AuthenticationError as e:
        first = (e.message or type(e).__name__).splitlines()[0]
        raise TournamentError(f"the Ray cluster at {address} refused this driver ({first}); {AUTH_HINT}"
                              ) from None
    except (ConnectionError, RuntimeError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise TournamentError(f"cannot connect to the Ray cluster at {address}: {first}") from None
    return True


AUTH_HINT = ("give the driver the cluster's token (RAY_AUTH_TOKEN=<`ray get-auth-token` on the head>), or "
             "start the head, every node and the driver with RAY_AUTH_MODE=disabled")


def _join(address: str, ray_out: RayOutput, env_vars: dict[str, str] | None = None) -> bool:
    """:func:`start_ray` at ``address``; a refused token is said so (Ray itself only retries, logging
    ``InvalidAuthToken`` from C++, then raises a bare "Failed to connect")."""
    try:
        return start_ray(address, env_vars=env_vars)
    except TournamentError as e:
        if "InvalidAuthToken" in ray_out.caught() and AUTH_HINT not in str(e):
            raise TournamentError(f"{e} (the cluster refused this driver's token: InvalidAuthToken); "
                                  f"{AUTH_HINT}") from None
        raise


def remote_nodes() -> list[str]:
    """Addresses of the cluster's live nodes that are not this machine."""
    import ray

    here = {ray.util.get_node_ip_address(), "127.0.0.1"}
    return sorted({n["NodeManagerAddress"] for n in ray.nodes() if n.get("Alive")} - here)


def _run_batch_on_node(batch: Batch) -> tuple[BatchResult, str]:
    """The Ray task: :func:`run_batch`, and the id of the node it ran on."""
    import ray

    return run_batch(batch), ray.get_runtime_context().get_node_id()


def ray_task() -> Any:
    """The remote function.

    ``max_retries=0``: a batch whose worker or node died comes back to the driver as an error and the
    driver submits it again (counted in :attr:`Summary.resubmitted`); the rerun rewrites the same parts.
    """
    import ray

    return ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(_run_batch_on_node)


# ------------------------------------------------------------------------------------------ output


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(ValueError, OSError):   # closed, or a full disk: nothing to keep
            stream.flush()


class RayOutput:
    """Keep Ray's own messages off this process's stdout and stderr while Ray runs in it.

    Ray writes to file descriptors 1 and 2 from Python (the ``(raylet)`` node-death and state dumps
    its error listener relays whatever ``log_to_driver`` says, its logger) and from C++ (the core
    worker's log lines), so the descriptors themselves are redirected: on entry both point at a
    temporary file, and :attr:`out` and :attr:`err` at copies of the real ones (or at the caller's
    own ``sys.stdout``/``sys.stderr`` when those are not descriptors 1 and 2), where this module's
    own lines go.  :meth:`attach` moves what was caught so far into ``OUT/_logs/ray-driver.log`` and
    sends the rest there, once the output directory may be written (never before: a cluster that
    cannot be joined leaves it untouched).  On exit the descriptors are restored; Ray must be shut
    down by then (``ray.shutdown`` joins its listener threads, so nothing of it prints later).
    """

    def __init__(self) -> None:
        self.path: Path | None = None
        self._saved: tuple[int, int] | None = None
        self._sink: Any = None
        self._std: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)
        self._opened: list[TextIO] = []
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    def __enter__(self) -> RayOutput:
        _flush_std()
        saved = os.dup(1), os.dup(2)
        self._saved = saved
        self._sink = tempfile.TemporaryFile()   # closed in __exit__, or replaced by attach
        self._std = sys.stdout, sys.stderr
        # our lines: to where stdout and stderr went (a copy of the descriptor, or the caller's own stream
        # when sys.stdout is not descriptor 1, as under a test runner); Ray's Python-level writes follow
        # sys.stdout and sys.stderr, so while it runs those write to descriptors 1 and 2
        streams = []
        for fd, copy, stream in ((1, saved[0], sys.stdout), (2, saved[1], sys.stderr)):
            if _writes_to(stream, fd):
                streams.append(self._open(os.dup(copy)))
            else:
                streams.append(stream)
                setattr(sys, "stdout" if fd == 1 else "stderr", self._open(fd, closefd=False))
        self.out, self.err = streams
        self._point(self._sink.fileno())
        return self

    def _open(self, fd: int, closefd: bool = True) -> TextIO:
        stream = open(fd, "w", buffering=1, encoding="utf-8", errors="replace", closefd=closefd)
        self._opened.append(stream)
        return stream

    @staticmethod
    def _point(fd: int) -> None:
        _flush_std()   # what Python buffered goes where it was written to
        os.dup2(fd, 1)
        os.dup2(fd, 2)

    def caught(self) -> str:
        """What Ray printed so far, before :meth:`attach` (empty after it)."""
        if self._sink is None or self.path is not None:
            return ""
        _flush_std()
        self._sink.seek(0)
        text: str = self._sink.read().decode("utf-8", "replace")
        self._sink.seek(0, os.SEEK_END)
        return text

    def attach(self, root: Path, title: str) -> Path:
        """From now on Ray's messages go to ``root/_logs/ray-driver.log`` (appended to)."""
        path = root / RAY_LOG
        path.parent.mkdir(parents=True, exist_ok=True)
        log = open(path, "ab")   # closed in __exit__
        try:
            log.write(f"=== {datetime.now(UTC).isoformat(timespec='seconds')} {title}, pid {os.getpid()} "
                      f"on {socket.gethostname()}\n".encode())
            _flush_std()
            self._sink.seek(0)
            shutil.copyfileobj(self._sink, log)
            log.flush()
        except OSError as e:   # a full disk: name the file (a failed write names none)
            with contextlib.suppress(OSError):
                log.close()
            raise OSError(e.errno, e.strerror, str(path)) from None
        self._point(log.fileno())
        self._sink.close()
        self._sink, self.path = log, path
        return path

    def __exit__(self, *exc: object) -> None:
        if self._saved is None:
            return
        _flush_std()
        for fd, target in zip(self._saved, (1, 2), strict=True):
            os.dup2(fd, target)
            os.close(fd)
        self._saved = None
        sys.stdout, sys.stderr = self._std
        self._sink.close()
        for stream in self._opened:
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        self._opened.clear()


def _writes_to(stream: TextIO, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except (AttributeError, ValueError, OSError):   # io.UnsupportedOperation: a stream in memory
        return False


# ------------------------------------------------------------------------------------------ progress
@dataclass
class LostNode:
    """A node of the cluster that died during the run."""

    node_id: str
    address: str
    rerun: int = 0
    """Batches that were running on it, submitted again elsewhere."""
    shown: int = -1
    """:attr:`rerun` when its line was last shown (-1: not yet)."""
    changed: float = 0.0
    """``time.monotonic()`` of the last change."""

    def line(self) -> str:
        batches = "batch" if self.rerun == 1 else "batches"
        again = " in all" if self.shown >= 0 else ""
        return f"node {self.address} ({self.node_id[:8]}) lost; {self.rerun} {batches} re-run{again}"


@dataclass
class Summary:
    tournament: str
    root: Path | str
    """The output directory, or the object store's URI."""
    total: int
    done_before: int
    done_now: int = 0
    moves: int = 0
    faults: int = 0
    errors: int = 0
    seconds: float = 0.0
    startup_seconds: float = 0.0
    """Of :attr:`seconds`: starting or connecting to Ray, until the first batch could be submitted."""
    stopped: bool = False
    resubmitted: int = 0
    removed_orphans: int = 0
    quarantined: list[tuple[str, list[str]]] = field(default_factory=list)
    """Damaged batches this run moved to ``_quarantine/`` before replaying their matches."""
    workers: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    """Ray node ids that ran batches."""
    lost_nodes: dict[str, LostNode] = field(default_factory=dict)
    """Nodes that died during the run, by node id."""
    lost_workers: int = 0
    """Batches re-run after their worker (not its node) was lost."""
    ray_log: Path | None = None
    """Where Ray's own messages went (``OUT/_logs/ray-driver.log``); None without Ray."""
    executor: str = ""
    """What ran the batches: ``local`` (a pool of processes), ``ray`` or ``inline``."""

    @property
    def done(self) -> int:
        return self.done_before + self.done_now

    @property
    def complete(self) -> bool:
        return self.done >= self.total


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, AttributeError):   # closed, or a stream without a descriptor
        return False


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """How a run shows its progress on ``out``: a live rich bar on a terminal (matches done of total,
    rate, ETA, faults); when ``out`` is not a terminal (CI, ``nohup``, a log file), a plain line every
    ``every_s`` seconds (no ANSI codes, no cursor movement, never wrapped); nothing when not
    ``enabled``.  Lines of our own (:meth:`event`, e.g. a lost node) go above the bar, among the plain
    lines, or to ``err`` when no progress is shown (so ``--json`` keeps stdout to itself)."""

    def __init__(self, summary: Summary, enabled: bool, out: TextIO | None = None, err: TextIO | None = None,
                 every_s: float = 5.0) -> None:
        self.s = summary
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.every_s = every_s
        self.bar: Any = None
        self.plain = enabled and not _isatty(self.out)
        self.t0 = time.monotonic()
        self.last_line = self.t0
        self.last_done = summary.done
        self.note = ""
        if enabled and not self.plain:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("matches"), TextColumn("{task.fields[rate]:>7.1f}/s"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(), TextColumn("faults {task.fields[faults]}"),
                TextColumn("{task.fields[note]}"), refresh_per_second=4, transient=False,
                console=Console(file=self.out, highlight=False))
            self.task = self.bar.add_task(summary.tournament, total=summary.total,
                                          completed=summary.done_before, rate=0.0, faults=0, note="")

    def __enter__(self) -> Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.update()
            self.bar.stop()
        elif self.plain and self.s.done != self.last_done:
            self._line()

    def _rerun_note(self) -> str:
        n = self.s.resubmitted
        return f"batches rerun after a lost worker or node: {n}" if n else ""

    def line(self) -> str:
        """The plain progress line: ``t: 120 of 600 matches (20%) in 4 s, 30.0 matches/s, ETA 13 s,
        faults 0``."""
        s = self.s
        dt = max(time.monotonic() - self.t0, 1e-9)
        rate = s.done_now / dt
        left = s.total - s.done
        eta = _duration(left / rate) if rate > 0 else "unknown"
        pct = 100 * s.done // s.total if s.total else 100
        text = (f"{s.tournament}: {s.done} of {s.total} matches ({pct}%) in {_duration(dt)}, "
                f"{rate:.1f} matches/s, ETA {eta}, faults {s.faults}")
        note = self.note or self._rerun_note()
        return f"{text}; {note}" if note else text

    def _line(self) -> None:
        print(self.line(), file=self.out, flush=True)
        self.last_line, self.last_done = time.monotonic(), self.s.done

    def update(self, note: str | None = None) -> None:
        if self.plain:
            if note is not None and note != self.note:
                self.note = note
                self._line()
            elif time.monotonic() - self.last_line >= self.every_s and self.s.done != self.last_done:
                self._line()
            return
        if self.bar is None:
            return
        dt = max(time.monotonic() - self.t0, 1e-9)
        fields: dict[str, Any] = {"rate": self.s.done_now / dt, "faults": self.s.faults}
        if self.s.resubmitted and note is None:
            note = self._rerun_note()
        if note is not None:
            fields["note"] = note
        self.bar.update(self.task, completed=self.s.done, **fields)

    def event(self, text: str) -> None:
        """One line of our own: above the live bar, among the plain lines, or on ``err``."""
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.out if self.plain else self.err, flush=True)


_DIED_NODE = re.compile(r"node ID: ([0-9a-f]{8,})", re.IGNORECASE)
_DIED_IP = re.compile(r"Node IP: ([0-9A-Za-z.:\[\]-]+?)[,.]?\s")


class NodeWatch:
    """The cluster's nodes as this driver sees them.  A node that dies is one line of our own
    (:meth:`LostNode.line`), shown once the batches it took with it are counted: ``settle_s`` after
    the last of them failed (they fail together; Ray's ``NodeDiedError`` names the node) or after a
    poll of ``nodes()`` (default ``ray.nodes()``, every ``poll_s``) found it dead."""

    def __init__(self, s: Summary, bar: Progress, poll_s: float = 2.0, settle_s: float = 1.0,
                 nodes: Callable[[], list[dict[str, Any]]] | None = None) -> None:
        self.s, self.bar, self.poll_s, self.settle_s = s, bar, poll_s, settle_s
        self.nodes = nodes if nodes is not None else _ray_nodes
        self.known: dict[str, str] = {}
        self.last_poll = 0.0
        self.poll(time.monotonic())

    def poll(self, now: float) -> None:
        self.last_poll = now
        for n in self.nodes():
            nid, where = str(n.get("NodeID", "")), str(n.get("NodeManagerAddress") or "?")
            if n.get("Alive"):
                self.known[nid] = where
            elif nid in self.known and nid not in self.s.lost_nodes:
                self.s.lost_nodes[nid] = LostNode(nid, self.known[nid], changed=now)

    def batch_lost(self, error: BaseException, now: float) -> bool:
        """Count a batch lost with its node; False if ``error`` names no node (a lost worker)."""
        text = str(error)
        m = _DIED_NODE.search(text)
        if m is None:
            return False
        nid = m.group(1).lower()
        ip = _DIED_IP.search(text)
        lost = self.s.lost_nodes.get(nid)
        if lost is None:
            lost = self.s.lost_nodes[nid] = LostNode(nid, self.known.get(nid) or (ip.group(1) if ip else "?"))
        lost.rerun += 1
        lost.changed = now
        return True

    def tick(self, final: bool = False) -> None:
        now = time.monotonic()
        if final or now - self.last_poll >= self.poll_s:
            self.poll(now)
        for lost in self.s.lost_nodes.values():
            if lost.shown != lost.rerun and (final or now - lost.changed >= self.settle_s):
                self.bar.event(lost.line())
                lost.shown = lost.rerun


# ------------------------------------------------------------------------------------------ local path
EXECUTORS = ("auto", "local", "ray", "inline")


def machine_cpus() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


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

    def __init__(self, workers: int) -> None:
        self.workers = workers
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
        slot = self.ctx.Value("i", 0)
        self.pool = ProcessPoolExecutor(self.workers, mp_context=self.ctx, initializer=_local_worker_init,
                                        initargs=(self.cpus, slot, os.getpid()))
        self.pool.submit(_local_ready).result()   # forks every worker, and waits for one to run

    def submit(self, batch: Batch) -> Future[BatchResult]:
        assert self.pool is not None
        return self.pool.submit(run_batch, batch)

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


def _run_local(pool: LocalPool, work: Iterator[Batch], sizer: Sizer, s: Summary, bar: Progress,
               on_batch: OnBatch | None, max_in_flight: int | None,
               publish: Publish | None = None) -> None:
    """The driver's loop over :class:`LocalPool`: at most two batches per worker in flight."""
    pending: dict[Future[BatchResult], Batch] = {}
    limit = max_in_flight or max(2, 2 * pool.workers)
    attempts: dict[str, int] = {}
    exhausted = False
    s.startup_seconds = pool.startup_seconds

    def collect(fut: Future[BatchResult]) -> bool:
        """Account a finished batch; False when its worker died (the pool is broken)."""
        b = pending[fut]
        try:
            r = fut.result()
        except CancelledError:
            del pending[fut]
            return True
        except BrokenProcessPool:
            return False
        except Exception as e:   # run_batch raised in the worker: a bug, one line (as on Ray)
            del pending[fut]
            raise TournamentError(f"a batch of {b.game} failed: {type(e).__name__}: "
                                  f"{str(e).splitlines()[0] if str(e) else ''}") from e
        del pending[fut]
        _account(r, sizer, s, bar, on_batch, publish)
        return True

    def rerun_lost() -> None:
        """A worker died (killed, out of memory): a new pool runs every batch that was in flight."""
        lost = list(pending.values())
        pending.clear()
        for b in lost:
            key = b.match_ids[0]
            attempts[key] = attempts.get(key, 0) + 1
            if attempts[key] > 5:
                raise TournamentError(f"a batch of {b.game} failed 5 times: its worker process died")
        s.lost_workers += 1
        s.resubmitted += len(lost)
        bar.event(f"a worker process died; {len(lost)} batches re-run")
        if s.stopped:
            return
        pool.renew()
        for b in lost:
            pending[pool.submit(b)] = b

    def drain(done: set[Future[BatchResult]]) -> None:
        if not all([collect(f) for f in done]):
            rerun_lost()

    try:
        while True:
            while not exhausted and len(pending) < limit:
                b = next(work, None)
                if b is None:
                    exhausted = True
                else:
                    pending[pool.submit(b)] = b
            if not pending:
                break
            done, _ = wait_futures(list(pending), timeout=0.25, return_when=FIRST_COMPLETED)
            drain(done)
            bar.update()
    except KeyboardInterrupt:
        s.stopped = True
        bar.update(note="stopping: finishing the batches in flight (Ctrl-C again to cancel them)")
        try:
            deadline = time.monotonic() + 30.0
            while pending and time.monotonic() < deadline:
                done, _ = wait_futures(list(pending), timeout=0.25, return_when=FIRST_COMPLETED)
                with contextlib.suppress(TournamentError):
                    drain(done)
                bar.update()
        except KeyboardInterrupt:
            pass
        bar.update(note="stopped")
    finally:
        if pending:   # stopped, or failed: nothing of ours keeps running
            pending.clear()
            pool.close(kill=True)


# ------------------------------------------------------------------------------------------ run
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
        work = batches(p, sizer, fsync, bots_data)
        t0 = time.monotonic()
        pool = (stack.enter_context(LocalPool(spec.num_cpus or machine_cpus())) if executor == "local"
                else None)   # forked before the progress bar's thread starts
        with Progress(summary, progress, out, err, progress_every) as bar:
            if pool is not None:
                _run_local(pool, work, sizer, summary, bar, on_batch, max_in_flight, p.publish)
            elif ray_out is None:
                _run_inline(work, sizer, summary, bar, on_batch, p.publish)
            else:
                _run_ray(work, sizer, summary, bar, on_batch, address, p.spec.num_cpus, max_in_flight,
                         p.publish)
        summary.seconds = time.monotonic() - t0
        _finish_manifest(p, summary)
    return summary


def _ray_nodes() -> list[dict[str, Any]]:
    import ray

    nodes: list[dict[str, Any]] = ray.nodes()
    return nodes


def _ray_shutdown() -> None:
    import ray

    ray.shutdown()


def _finish_manifest(p: Prepared, s: Summary) -> None:
    if p.store is not None and p.lease is not None:   # staged objects no publish will take any more
        s.removed_orphans += len(clean_staging(p.store, p.tournament))
    elif p.epoch:   # parts a fenced-off worker of an earlier run wrote after this run began
        s.removed_orphans += len(clean_orphans(p.root, p.tournament, before_epoch=p.epoch))
    m = read_manifest(p.root, p.tournament) or {}
    m.pop("schema_version", None)
    m.update(updated_at=datetime.now(UTC).isoformat(timespec="seconds"), complete=s.complete,
             done_matches=s.done)
    write_manifest(p.root, p.tournament, m)
    if p.mirror is not None:
        p.mirror.push(manifest_path("", p.tournament).as_posix())


Publish = Callable[[BatchResult], None]


def _account(r: BatchResult, sizer: Sizer, s: Summary, bar: Progress, on_batch: OnBatch | None,
             publish: Publish | None = None) -> None:
    if r.attempt is not None and publish is not None:   # an object store: this driver commits the batch
        try:
            publish(r)
        except Fenced as e:
            raise TournamentError(str(e)) from None
    elif r.parts and not Path(r.parts[-1]).exists():
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


def _run_inline(work: Iterator[Batch], sizer: Sizer, s: Summary, bar: Progress,
                on_batch: OnBatch | None, publish: Publish | None = None) -> None:
    try:
        for b in work:
            _account(run_batch(b), sizer, s, bar, on_batch, publish)
    except KeyboardInterrupt:
        s.stopped = True


def _run_ray(work: Iterator[Batch], sizer: Sizer, s: Summary, bar: Progress, on_batch: OnBatch | None,
             address: str | None, num_cpus: int, max_in_flight: int | None,
             publish: Publish | None = None) -> None:
    import ray
    from ray.exceptions import GetTimeoutError, RayError, RayTaskError, TaskCancelledError

    t0 = time.monotonic()
    pending: dict[Any, Batch] = {}
    started = start_ray(address, num_cpus)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        limit = max_in_flight or max(2, 2 * cpus)
        task = ray_task()
        s.startup_seconds = time.monotonic() - t0
        attempts: dict[str, int] = {}
        exhausted = False
        watch = NodeWatch(s, bar)

        def submit(b: Batch) -> None:
            pending[task.remote(b)] = b

        def collect(ref: Any) -> None:
            b = pending.pop(ref)
            try:
                r, node = ray.get(ref)
            except RayTaskError as e:  # an exception inside run_batch: a bug, not a lost worker
                cause = e.cause if e.cause is not None else e
                raise TournamentError(f"a batch of {b.game} failed: {type(cause).__name__}: "
                                      f"{str(cause).splitlines()[0] if str(cause) else ''}") from e
            except TaskCancelledError:
                return
            except RayError as e:  # its worker or node was lost: run it again (unless stopping)
                if s.stopped:
                    return
                key = b.match_ids[0]
                attempts[key] = attempts.get(key, 0) + 1
                if attempts[key] > 5:
                    raise TournamentError(f"a batch of {b.game} failed 5 times: {type(e).__name__}") from e
                s.resubmitted += 1
                if not watch.batch_lost(e, time.monotonic()):
                    s.lost_workers += 1
                    bar.event(f"a worker was lost ({type(e).__name__}); a batch of {b.game} re-run")
                submit(b)
                return
            r.node = node
            s.nodes.add(node)
            _account(r, sizer, s, bar, on_batch, publish)

        try:
            while True:
                while not exhausted and len(pending) < limit:
                    b = next(work, None)
                    if b is None:
                        exhausted = True
                    else:
                        submit(b)
                if not pending:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
                for ref in ready:
                    collect(ref)
                watch.tick()
                bar.update()
            watch.tick(final=True)
        except KeyboardInterrupt:
            s.stopped = True
            bar.update(note="stopping: finishing the batches in flight (Ctrl-C again to cancel them)")
            try:
                deadline = time.monotonic() + 30.0
                while pending and time.monotonic() < deadline:
                    ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
                    for ref in ready:
                        with contextlib.suppress(TournamentError, GetTimeoutError):
                            collect(ref)
                    bar.update()
            except KeyboardInterrupt:
                pass
            watch.tick(final=True)
            bar.update(note="stopped")
    finally:
        for ref in list(pending):   # stopped, or failed: nothing of ours keeps running on the cluster
            with contextlib.suppress(RayError):
                ray.cancel(ref, force=True)
        pending.clear()
        if started:
            ray.shutdown()
