"""Preparing a run: resolve the bots (``NAME`` -> ``NAME@VERSION``), write or check the manifest
``OUT/_tournaments/<id>.json`` (a directory holding this id from another spec is refused) and the
tournament secret beside it (``<id>.secret``: created once, reused by every resume; every deal and bot
seed derives from it, ``tournaments.schedule``), take the tournament's lock (on an object store, its
lease), start a new epoch (batches of an earlier, killed run that still run somewhere can no longer
commit: ``tournaments.log``, ``tournaments.ledger``), delete orphaned parts of an interrupted run, and
read which matches are already committed (``matches`` parts): those are skipped.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Callable
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
    publish_batches,
    read_manifest,
    read_secret,
    read_store_secret,
    repair,
    secret_fingerprint,
    secret_store,
    step,
    tournaments_in,
    write_manifest,
    write_secret,
    write_store_secret,
)
from tournaments.log import PartError, engine_version, finished_matches, logged_engine_versions_by_game
from tournaments.paths import lock_path, manifest_path
from tournaments.runner import BatchResult
from tournaments.runners.summary import TournamentError
from tournaments.schedule import GamePlan, plan, spec_secret
from tournaments.spec import GameEntry, Spec, SpecError, check_tournament_id
from tournaments.store import Mirror, ObjectStore, StoreError, is_uri, open_store, restore_uri


# ------------------------------------------------------------------------------------------ bots
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
class ScheduledIds:
    """The match ids of ``plans`` as a set, made when first asked (:func:`~tournaments.ledger.repair`
    asks only when the log holds a committed batch: a new tournament derives no id per match)."""

    def __init__(self, plans: list[GamePlan]) -> None:
        self.plans = plans
        self._ids: set[str] | None = None

    def __contains__(self, match_id: object) -> bool:
        if self._ids is None:
            self._ids = {i for gp in self.plans for i in gp.match_ids()}
        return match_id in self._ids


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
        self.publish_group([r])

    def publish_group(self, results: list[BatchResult]) -> None:
        """On an object store, publish staged batches together (:func:`publish_batches`: two lease
        checks for all of them); each result's ``parts`` become their URIs."""
        staged = [r for r in results if r.attempt is not None]
        if self.store is None or not staged:
            return
        if self.lease is None:
            raise TournamentError("a staged batch without this run's lease: nothing published")
        try:
            publish_batches(self.store, self.lease, [(r.attempt or "", r.parts) for r in staged])
        except StoreError as e:   # the store went away, or a new run removed this run's staging
            raise TournamentError(f"{e}; the batch was not published: run again with --resume "
                                  "(its matches are played again)") from None
        for r in staged:
            r.parts = [self.store.where(k) for k in r.parts]

    def release(self) -> None:
        if self.lease is not None:
            with contextlib.suppress(StoreError):   # a store that went away: the lease runs out
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
    root = Path(spec.output).expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise TournamentError(f"output {str(spec.output)!r} is a file, not a directory")
    held = _lock(root, tid) if lock else None
    try:
        p = _prepare(spec, tid, root, tournament_id is not None, resume, bots_data, allow_engine_change)
        p.lock = held
        if held is not None:   # fence off the batches of earlier runs before reading what they finished
            p.epoch = begin_epoch(root, tid)
            p.removed_orphans = len(clean_orphans(root, tid, before_epoch=p.epoch))
            fixed = repair(root, tid, ScheduledIds(p.plans))
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
        secret_store(store)   # a log at the bucket's root has nowhere apart for its secret
        lease = acquire_lease(store, tid) if lock else None
        step("takeover: lease taken")
        removed = 0
        if lease is not None:   # the fence: an earlier run's late copy now fails at its source
            removed = len(clean_staging(store, tid, before_epoch=lease.epoch))
            step("takeover: staging removed")
    except (StoreError, LeaseHeld, ValueError) as e:
        raise TournamentError(str(e)) from None
    try:
        mirror = mirror_tournament(store, tid)
        step("takeover: log read")
    except StoreError as e:
        if lease is not None:
            with contextlib.suppress(StoreError):
                lease.release()
        raise TournamentError(str(e)) from None
    try:
        p = _prepare(spec, tid, mirror.dir, new_id, resume, bots_data, allow_engine_change,
                     (lambda t: read_store_secret(store, t),   # apart from the log, never in the mirror
                      lambda t, secret: write_store_secret(store, t, secret)))
        k = manifest_path("", tid).as_posix()
        if k not in mirror.keys:   # a new tournament: its secret is kept already (the secret first)
            mirror.push(k)
            mirror.keys.add(k)
        p.store, p.lease, p.mirror, p.uri = store, lease, mirror, uri
        if lease is not None:
            p.epoch = lease.epoch
            p.removed_orphans = removed + len(clean_orphans(mirror.dir, tid, before_epoch=p.epoch))
            fixed = repair(mirror.dir, tid, ScheduledIds(p.plans))
            p.done, p.quarantined = fixed.done, fixed.quarantined
            step("takeover: repaired")
            mirror.sync_back("")
            step("takeover: synced back")
        else:
            p.done = finished_matches(mirror.dir, tid)
    except (PartError, TournamentError, StoreError) as e:
        mirror.close()
        if lease is not None:
            with contextlib.suppress(StoreError):
                lease.release()
        raise TournamentError(str(e).replace(str(mirror.dir), uri.split("?", 1)[0])) from None
    except BaseException:
        mirror.close()
        if lease is not None:
            with contextlib.suppress(StoreError):
                lease.release()
        raise
    return p


SecretRead = Callable[[str], "bytes | None"]
SecretWrite = Callable[[str, bytes], None]


def _prepare(spec: Spec, tid: str, root: Path, new_id: bool, resume: bool, bots_data: str | None,
             allow_engine_change: bool = False,
             secrets: tuple[SecretRead, SecretWrite] | None = None) -> Prepared:
    """The manifest's checks and bookkeeping in the directory ``root``; ``secrets``: how the tournament
    secret is read and kept (default: beside the manifest in ``root``; on a store, apart from its log)."""
    read_s, write_s = secrets or ((lambda t: read_secret(root, t)),
                                  (lambda t, secret: write_secret(root, t, secret)))
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
        write_s(tid, secret)   # before the manifest: a manifest always has its secret
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
        secret = _kept_secret(manifest, root, tid, read_s)
        _check_engine(manifest, root, tid, allow_engine_change)
        plans = plan(spec, by_game, secret)
        total = sum(p.total for p in plans)
    return Prepared(spec, tid, root, plans, refs, total, set(), secret=secret)


def _check_engine(manifest: dict[str, Any], root: Path, tid: str, allow: bool) -> None:
    """Refuse to go on with a tournament whose matches of a game so far were played by other rules
    code for that game (the engine versions of its logged matches, ``matches.engine_version``: per
    game, :func:`~tournaments.log.engine_version`): its remaining matches would not be dealt and
    played as its first ones were, and a duplicate board could be split across the two.  A change
    of another game's rules (a game added beside it) is no change.  ``allow``
    (``--allow-engine-change``) goes on, and the manifest records the change."""
    other: dict[str, int] = {}
    now: set[str] = set()
    for game, versions in sorted(logged_engine_versions_by_game(root, tid).items()):
        try:
            now_v = engine_version(game)
        except ValueError:  # a game no longer in the engine: the spec's check says so
            continue
        for v, n in versions.items():
            if v != now_v:
                other[v] = other.get(v, 0) + n
                now.add(now_v)
    if not other:
        return
    played = ", ".join(f"{v} ({n} match{'es' if n != 1 else ''})" for v, n in sorted(other.items()))
    now_vs = ", ".join(sorted(now))
    if not allow:
        raise TournamentError(
            f"tournament {tid!r} in {root} was played so far by engine {played} and this is engine "
            f"{now_vs}: the rules code has changed since, so its remaining matches would not be dealt and "
            "played as its first ones were; finish it with the cardarena that started it, or pass "
            "--allow-engine-change to go on with this one (the manifest records the change)")
    changes = manifest.setdefault("engine_changes", [])
    changes.append({"from": sorted(other), "to": now_vs,
                    "at": datetime.now(UTC).isoformat(timespec="seconds")})
    write_manifest(root, tid, manifest)


def _kept_secret(manifest: dict[str, Any], root: Path, tid: str, read: SecretRead) -> bytes:
    """The secret a tournament started with, checked against the manifest's fingerprint."""
    kept = manifest.get("secret_sha256")
    if kept is None:
        raise TournamentError(f"tournament {tid!r} in {root} was started without a tournament secret (an "
                              "older cardarena, whose deals a bot could predict); start it again in a new "
                              "output directory")
    try:
        secret = read(tid)
    except (OSError, ValueError, StoreError) as e:
        raise TournamentError(f"the secret of tournament {tid!r} cannot be read ({e}); its remaining "
                              "matches cannot be dealt as its first ones were") from None
    if secret is None:
        raise TournamentError(f"the secret of tournament {tid!r} is missing "
                              f"({root}/_tournaments/{tid}.secret, or beside a store's log); its remaining "
                              "matches cannot be dealt as its first ones were")
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


