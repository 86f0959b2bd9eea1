"""The run's bookkeeping beside its log: the manifest, the tournament secret, the epoch fence's
counter, orphaned files and the repair of damaged batches (the files: :mod:`tournaments.paths`; the
schemas, writer and batch certification: :mod:`tournaments.log`).

- **Fencing.** :func:`begin_epoch` starts a new run of a tournament: it bumps the counter in
  ``_tournaments/<tournament>.epoch`` under the exclusive ``flock`` that :func:`tournaments.log.commit_batch`
  takes shared, so a batch of an earlier run commits before the new run reads what is finished, or
  never (see :mod:`tournaments.log`).
- **Orphans.** :func:`clean_orphans` removes the moves/events parts and digest records of batches whose
  matches part never appeared, and the temporary files a killed writer left.
- **Repair.** :func:`repair` certifies every committed batch and moves each one that is not whole to
  ``OUT/_quarantine/``, so that its matches are played again.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import socket
import time
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments.log import SCHEMA_VERSION, TABLES, Fenced, check_batch, named_oserror, write_atomic
from tournaments.paths import (
    DIGESTS,
    TOURNAMENTS,
    committed_parts,
    digest_path,
    digest_records,
    epoch_path,
    lease_epoch,
    lease_path,
    manifest_path,
    manifests,
    part_epoch,
    part_game,
    part_path,
    part_prefix,
    quarantine_dir,
    secret_path,
    staging_dir,
    temp_files,
    temp_part_name,
)
from tournaments.store import Files, Mirror, ObjectStore, StoreError, compactions


# ------------------------------------------------------------------------------------------ epoch fence
def begin_epoch(root: str | os.PathLike[str], tournament: str) -> int:
    """Start a new run of ``tournament``: bump its epoch under the exclusive lock and return it.

    Call before reading the finished matches: every batch of an earlier run either committed before
    this returns or will find itself fenced off."""
    path = epoch_path(root, tournament)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        text = f.read().strip()
        try:
            epoch = int(text or 0) + 1
        except ValueError:
            raise ValueError(f"{path} holds {text[:40]!r}, not an epoch number") from None
        line = f"{epoch}\n".encode()
        try:   # overwrite in place, then cut: a full disk cannot leave the fence empty (back at epoch 1)
            fd = os.open(path, os.O_WRONLY)   # f is O_APPEND, where pwrite appends on Linux
            try:
                if os.pwrite(fd, line, 0) != len(line):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                os.ftruncate(fd, len(line))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            raise named_oserror(e, path) from None
    return epoch



# ------------------------------------------------------------------------------------------ repair
@dataclass
class Repair:
    done: set[str]
    """The matches committed in whole batches after the repair (each once)."""
    quarantined: list[tuple[str, list[str]]]
    """Per batch moved to ``_quarantine``: (its matches part, the problems found)."""
    replay: set[str]
    """Ids of the (scheduled) matches the quarantined batches held that no whole batch holds."""


def repair(root: str | os.PathLike[str], tournament: str, scheduled: Container[str] | None = None) -> Repair:
    """Certify every committed batch of ``tournament`` (:func:`check_batch` with ``full``) and move each
    batch that is not whole, not this tournament's, holds a match outside ``scheduled`` or a match an
    earlier whole batch already holds, with all of its files, to ``OUT/_quarantine/``.

    Call only while holding the tournament's lock, after :func:`begin_epoch`."""
    base = Path(root)
    done: set[str] = set()
    where: dict[str, Path] = {}
    out = Repair(done, [], set())
    for p in committed_parts(base, tournament):
        c = check_batch(base, part_game(p), p.name, tournament, full=True)
        if not c.problems and scheduled is not None:
            extra = [x for x in c.match_ids if x not in scheduled]
            if extra:
                c.problems.append(f"{p}: holds {len(extra)} match(es) not in the schedule of tournament "
                                  f"{tournament!r} (e.g. {extra[0]}): not counted")
        if not c.problems:
            twice = [x for x in c.match_ids if x in done]
            if twice:
                c.problems.append(f"{p}: holds {len(twice)} match(es) already in {where[twice[0]]} "
                                  f"(e.g. {twice[0]}): not counted twice")
        if c.problems:
            _quarantine(base, c.game, c.name)
            out.quarantined.append((str(p), c.problems))
            out.replay.update(x for x in c.match_ids if scheduled is None or x in scheduled)
            continue
        done.update(c.match_ids)
        where.update((x, p) for x in c.match_ids)
    out.replay -= done
    return out


def _quarantine(root: Path, game: str, name: str) -> None:
    """Move a batch's files (its three parts and digest record, those that exist) under ``_quarantine``."""
    for t in (*TABLES, DIGESTS):
        mpath = part_path(root, "matches", game, name)
        f = digest_path(mpath) if t == DIGESTS else part_path(root, t, game, name)
        if not f.exists():
            continue
        dst_dir = quarantine_dir(root, t, game)
        dst_dir.mkdir(parents=True, exist_ok=True)
        dst = dst_dir / f.name
        n = 1
        while dst.exists():          # the same batch damaged again after an earlier repair
            dst = dst_dir / f"{f.name}.{n}"
            n += 1
        os.replace(f, dst)


def clean_orphans(root: str | os.PathLike[str], tournament: str,
                  before_epoch: int | None = None) -> list[Path]:
    """Remove ``tournament``'s moves/events parts and digest records without a matches part, and stale
    temporary files (left by a killed writer).

    Without ``before_epoch``, call only while no writer of this tournament runs.  With it, only the
    files of epochs before ``before_epoch`` go: those runs are fenced off, so this is safe at any time."""
    committed = {(p.parent.name, p.name) for p in committed_parts(root, tournament)}
    prefix = part_prefix(tournament)

    def old(name: str) -> bool:
        if before_epoch is None:
            return True
        e = part_epoch(name)   # None: a name from before epochs, which no current writer uses
        return e is None or e < before_epoch

    def stale_temp(p: Path) -> bool:
        name = temp_part_name(p.name)
        return name is not None and name.startswith(prefix) and old(name)

    doomed = [p for p in temp_files(root, DIGESTS) if stale_temp(p)]
    doomed += [p for p in digest_records(root, tournament)
               if (p.parent.name, p.name[:-len(".json")]) not in committed and old(p.name[:-len(".json")])]
    for t in TABLES:
        doomed += [p for p in temp_files(root, t) if stale_temp(p)]
        if t != "matches":
            doomed += [p for p in committed_parts(root, tournament, t)
                       if (p.parent.name, p.name) not in committed and old(p.name)]
    for p in doomed:
        p.unlink(missing_ok=True)
    return doomed


# ------------------------------------------------------------------------------------------ manifest
def read_manifest(root: str | os.PathLike[str], tournament: str,
                  files: Files | None = None) -> dict[str, Any] | None:
    """The manifest of ``tournament`` (None when there is none); ``files``: an object store read in place
    (``root`` its path), default the local filesystem."""
    p = manifest_path(root, tournament)
    try:
        data: dict[str, Any] = json.loads(files.read_text(p) if files is not None else p.read_text())
    except FileNotFoundError:
        return None
    return data


def write_manifest(root: str | os.PathLike[str], tournament: str, data: dict[str, Any]) -> None:
    """Write the manifest atomically (temporary file, then rename; on a full disk an ``OSError`` naming
    the manifest, the old one intact and no temporary file left)."""
    p = manifest_path(root, tournament)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise named_oserror(e, p.parent) from None
    text = json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, sort_keys=True) + "\n"
    write_atomic(p, text.encode(), fsync=False)


def secret_fingerprint(secret: bytes) -> str:
    """What the manifest keeps of the secret: 16 hex digits of its SHA-256 (checks the file on resume)."""
    return hashlib.sha256(secret).hexdigest()[:16]


def read_secret(root: str | os.PathLike[str], tournament: str) -> bytes | None:
    """The tournament secret (every deal and bot seed derives from it), None when there is none.
    ``ValueError`` (one line) when the file is not one: 64 hex digits."""
    p = secret_path(root, tournament)
    try:
        text = p.read_text(encoding="ascii", errors="replace").strip()
    except FileNotFoundError:
        return None
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ValueError(f"{p} is not a tournament secret (64 hex digits)")
    return bytes.fromhex(text)


def write_secret(root: str | os.PathLike[str], tournament: str, secret: bytes) -> None:
    """Keep the secret beside the manifest, readable by its owner only, written atomically (on a full
    disk an ``OSError`` naming the file, no temporary file left)."""
    p = secret_path(root, tournament)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise named_oserror(e, p.parent) from None
    write_atomic(p, secret.hex().encode() + b"\n", fsync=True, mode=0o600)


def tournaments_in(root: str | os.PathLike[str], files: Files | None = None) -> list[str]:
    """Ids of the tournaments with a manifest under ``root``."""
    return [p.stem for p in manifests(root, files)]


# ------------------------------------------------------------------------------------------ object stores
LEASE_TTL_ENV = "CARDARENA_LEASE_TTL_S"
"""Seconds a driver's lease on an object store lasts without renewal (default 60): how long a
``--resume`` after a killed driver waits at most."""


class LeaseHeld(Exception):
    """Another driver holds the tournament's lease (one line)."""


def lease_ttl() -> float:
    text = os.environ.get(LEASE_TTL_ENV, "60")
    try:
        ttl = float(text)
    except ValueError:
        raise ValueError(f"{LEASE_TTL_ENV}={text[:40]!r}: expected seconds (a number)") from None
    if not 0.5 <= ttl <= 86400:
        raise ValueError(f"{LEASE_TTL_ENV}={text[:40]!r}: out of range 0.5..86400 seconds")
    return ttl


@dataclass
class Lease:
    """A run's hold on a tournament in an object store: the object ``_tournaments/<t>.lease-e<epoch>``
    it created with a conditional write (its epoch is the run's), renewed while the run publishes.
    The run publishes a batch only while its lease is fresh by its own clock (renewed less than half
    the time to live ago) and no later lease exists (see data/README.md)."""
    store: ObjectStore
    tournament: str
    epoch: int
    ttl: float
    holder: str
    renewed: float = 0.0
    """``time.monotonic()`` when the lease was last written."""

    def _body(self, released: bool = False) -> bytes:
        return (json.dumps({"holder": self.holder, "epoch": self.epoch, "expires": time.time() + self.ttl,
                            "released": released}, sort_keys=True) + "\n").encode()

    def _successor(self) -> bool:
        return self.store.exists(lease_path("", self.tournament, self.epoch + 1))

    def _fenced(self) -> Fenced:
        return Fenced(f"tournament {self.tournament!r} in {self.store.uri}: a new run (epoch "
                      f"{self.epoch + 1}) took over from this one (epoch {self.epoch}); its batches are left "
                      "to the new run")

    def renew(self) -> None:
        start = time.monotonic()
        self.store.put(lease_path("", self.tournament, self.epoch), self._body())
        if self._successor():
            raise self._fenced()
        self.renewed = start

    def check(self) -> None:
        """Before each publish: renew when a quarter of the time to live has passed, else make sure no
        later run took over; :class:`Fenced` when one did."""
        if time.monotonic() - self.renewed > self.ttl / 4:
            self.renew()
        elif self._successor():
            raise self._fenced()

    def release(self) -> None:
        """Mark the lease released, so the next run need not wait for it to expire."""
        if not self._successor():
            self.store.put(lease_path("", self.tournament, self.epoch), self._body(released=True))


def leases(store: ObjectStore, tournament: str) -> list[int]:
    """The epochs of ``tournament``'s lease objects, sorted."""
    out = []
    for k in store.list(TOURNAMENTS):
        e = lease_epoch(k.rsplit("/", 1)[-1], tournament)
        if e is not None:
            out.append(e)
    return sorted(out)


def acquire_lease(store: ObjectStore, tournament: str, ttl: float | None = None, after: int = 0) -> Lease:
    """Start a new run of ``tournament`` in ``store``: create the lease of the epoch after the last one,
    with a conditional write; :class:`LeaseHeld` when the last lease is live or another driver created
    the new one first.  Waits (at most its time to live) when the previous holder renewed its lease
    after this driver looked: it finds this lease at its next publish and stops.  ``after``: the new
    epoch is above it too (a compaction's epoch must be new to every part in the log, even one a run
    outside this store wrote)."""
    ttl = lease_ttl() if ttl is None else ttl
    holder = f"pid {os.getpid()} on {socket.gethostname()}"
    found = leases(store, tournament)
    last = found[-1] if found else 0

    def live(epoch: int) -> dict[str, Any] | None:
        try:
            body = json.loads(store.get(lease_path("", tournament, epoch)))
        except FileNotFoundError:
            return None
        except ValueError:
            return None   # a torn or foreign lease object: treated as expired
        if not isinstance(body, dict) or body.get("released") or float(body.get("expires", 0)) <= time.time():
            return None
        return body

    if last and (body := live(last)) is not None:
        raise LeaseHeld(f"tournament {tournament!r} in {store.uri} is being run by another driver "
                        f"({body.get('holder', 'unknown')}, lease of epoch {last} expires in "
                        f"{float(body['expires']) - time.time():.0f} s); wait for it or stop it first")
    lease = Lease(store, tournament, max(last, after) + 1, ttl, holder)
    if not store.put_if_absent(lease_path("", tournament, lease.epoch), lease._body()):
        raise LeaseHeld(f"tournament {tournament!r} in {store.uri} is being started by another driver at "
                        f"the same time (it created the lease of epoch {lease.epoch} first)")
    lease.renewed = time.monotonic()
    if last and (body := live(last)) is not None:    # renewed after we looked: let it see us and stop
        time.sleep(max(0.0, min(ttl, float(body["expires"]) - time.time())))
    return lease


STEP_HOOK: Callable[[str], None] | None = None
"""A test hook: called with the name of each step of publishing a batch (``publish: ...``) and of
taking a tournament over (``takeover: ...``, tournaments.runners.preparation), so that a test can
pause a driver at any of them."""


def step(name: str) -> None:
    if STEP_HOOK is not None:
        STEP_HOOK(name)


def publish_batch(store: ObjectStore, lease: Lease, attempt: str, keys: list[str]) -> list[str]:
    """Copy a staged batch (:func:`tournaments.log.stage_batch`: ``keys``, matches part last) to its final
    names, each only while ``lease`` holds (:meth:`Lease.check`), then remove the staged copies; return
    the final keys.  The matches part, copied last, is the commit record, as on disk.  An attempt that
    staged several batches (a task of several, :attr:`tournaments.runner.Batch.every`) is published
    together: one check, every batch's moves, events and digest record, a check again, then each
    batch's matches part (:func:`publish_batches`).

    The fence is the store's, not only this check: a run that takes over removes the staging of every
    earlier epoch *before* it reads the log (:func:`clean_staging`), so a copy by a driver paused past
    its last check fails at its source (a :class:`~tournaments.store.StoreError`), and whatever it
    copied before is an orphan the new run removes; what it published before the new run read the
    log, the new run counts.  :func:`late_batches` checks the log again at the end of a run."""
    return publish_batches(store, lease, [(attempt, keys)])[0]


def publish_batches(store: ObjectStore, lease: Lease, staged: list[tuple[str, list[str]]]) -> list[list[str]]:
    """:func:`publish_batch` of several staged attempts ``(attempt, keys)`` at once: one lease check,
    the moves, events and digest records of all of them, a check again, every matches part, then the
    staged copies deleted together (one request per thousand on S3).  Each matches part is the commit
    of its own batch, so a publish stopped half-way (killed, fenced, the store gone) leaves every
    batch committed or not, never in part; an uncommitted one's matches are played again by the next
    run.  Returns each attempt's final keys."""
    stages = [(staging_dir("", lease.tournament, lease.epoch, attempt), keys) for attempt, keys in staged]
    lease.check()
    step("publish: checked")
    for stage, keys in stages:   # every batch's other files first
        for k in keys:
            if not k.startswith("matches/"):
                store.copy(stage / k, k)
                step(f"publish: copied {k.split('/', 1)[0]}")
    lease.check()
    step("publish: checked again")
    for stage, keys in stages:
        for k in keys:
            if k.startswith("matches/"):
                store.copy(stage / k, k)
                step("publish: copied matches")
    store.delete_many([(stage / k).as_posix() for stage, keys in stages for k in keys])
    step("publish: staging removed")
    return [keys for _, keys in staged]


def late_batches(store: ObjectStore, tournament: str, epoch: int, seen: set[str]) -> list[str]:
    """The end-of-run check of the fence: matches parts of ``tournament`` of an epoch before ``epoch``
    that are in ``store`` but not in ``seen`` (the keys the run read when it started).  A driver of an
    earlier epoch published them after this run read the log; this run played their matches too, so
    they are moved to ``_quarantine`` (every file of the batch) and their keys returned."""
    late = []
    prefix = part_prefix(tournament)
    gone = compactions(store)
    for k in store.list("matches"):
        name = k.rsplit("/", 1)[-1]
        e = part_epoch(name)
        if name.startswith(prefix) and k not in seen and e is not None and e < epoch and not gone.hides(name):
            late.append(k)
    for k in late:
        game, name = part_game(Path(k)), k.rsplit("/", 1)[-1]
        mpath = part_path("", "matches", game, name)
        for f in [part_path("", t, game, name) for t in TABLES] + [digest_path(mpath)]:
            key = f.as_posix()
            if store.exists(key):
                table = key.split("/", 1)[0]
                store.copy(key, (quarantine_dir("", table, game) / f.name).as_posix())
                store.delete(key)
    return late


def clean_staging(store: ObjectStore, tournament: str, before_epoch: int | None = None) -> list[str]:
    """Remove ``tournament``'s staged objects of epochs before ``before_epoch`` (all without it): those
    of dead or fenced-off runs, which can never be published."""
    doomed = []
    base = staging_dir("", tournament).as_posix()
    for k in store.list(base):
        e = k[len(base) + 1:].split("/", 1)[0]
        if before_epoch is None or (e.startswith("e") and e[1:].isdigit() and int(e[1:]) < before_epoch):
            doomed.append(k)
    for k in doomed:
        store.delete(k)
    return doomed


SECRETS_SUFFIX = ".secrets"
"""The prefix beside a store's log where its tournaments' secrets are kept while they run."""


def secret_store(store: ObjectStore) -> ObjectStore:
    """Where the secrets of the tournaments logged in ``store`` (``s3://BUCKET/PREFIX``) are kept while
    they run: the sibling prefix ``s3://BUCKET/PREFIX.secrets``, apart from the log, so that whoever may
    read the log (``PREFIX/``) cannot deal a running tournament's remaining boards.  The secret joins
    the log (``_tournaments/<id>.secret``) when the tournament is complete, so that its deals can be
    checked; its fingerprint is in the manifest from the start.  A log at a bucket's root has no such
    sibling: :class:`StoreError` (one line)."""
    if "/" not in store.base:
        raise StoreError(f"{store.uri}: a tournament log in a store needs a prefix (s3://BUCKET/PREFIX): "
                         f"its secret is kept apart, under PREFIX{SECRETS_SUFFIX}")
    uri, _, query = store.uri.partition("?")
    return ObjectStore(uri.rstrip("/") + SECRETS_SUFFIX + (f"?{query}" if query else ""), store.fs,
                       store.base + SECRETS_SUFFIX, store.scheme, dict(store.s3))


def _secret_text(data: bytes, where: str) -> bytes:
    text = data.decode("ascii", errors="replace").strip()
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ValueError(f"{where} is not a tournament secret (64 hex digits)")
    return bytes.fromhex(text)


def read_store_secret(store: ObjectStore, tournament: str) -> bytes | None:
    """A tournament's secret in a store: kept apart while it runs (:func:`secret_store`), or published
    in the log once it is complete; None when there is none."""
    kept = secret_store(store)
    for where, key in ((kept, f"{tournament}.secret"), (store, secret_path("", tournament).as_posix())):
        try:
            return _secret_text(where.get(key), where.where(key))
        except FileNotFoundError:
            continue
    return None


def write_store_secret(store: ObjectStore, tournament: str, secret: bytes) -> None:
    """Keep a new tournament's secret apart from its log (:func:`secret_store`)."""
    secret_store(store).put(f"{tournament}.secret", secret.hex().encode() + b"\n")


def publish_secret(store: ObjectStore, tournament: str, secret: bytes) -> None:
    """The tournament is complete: its secret joins the log, so that its deals can be re-derived."""
    store.put(secret_path("", tournament), secret.hex().encode() + b"\n")


def mirror_tournament(store: ObjectStore, tournament: str | None = None) -> Mirror:
    """A temporary local copy of the log in ``store`` (of ``tournament``'s parts only, when given; every
    manifest, never a secret): the bookkeeping above then runs on it and :meth:`Mirror.sync_back`
    replays its changes in the store."""
    prefix = part_prefix(tournament) if tournament is not None else "part-"
    gone = compactions(store)   # (before the tables are listed)

    def keep(k: str) -> bool:
        name = k.rsplit("/", 1)[-1]
        if k.startswith(TOURNAMENTS + "/"):
            return ".lease-e" not in name and not name.endswith(".secret")   # never the secret
        return name.startswith(prefix) and not gone.hides(name)

    return Mirror(store, [TOURNAMENTS, *TABLES, DIGESTS], keep)
