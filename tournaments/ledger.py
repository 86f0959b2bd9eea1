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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments.log import SCHEMA_VERSION, TABLES, check_batch, named_oserror, write_atomic
from tournaments.paths import (
    DIGESTS,
    committed_parts,
    digest_path,
    digest_records,
    epoch_path,
    manifest_path,
    manifests,
    part_epoch,
    part_game,
    part_path,
    part_prefix,
    quarantine_dir,
    secret_path,
    temp_files,
    temp_part_name,
)


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


def repair(root: str | os.PathLike[str], tournament: str, scheduled: set[str] | None = None) -> Repair:
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
def read_manifest(root: str | os.PathLike[str], tournament: str) -> dict[str, Any] | None:
    p = manifest_path(root, tournament)
    try:
        data: dict[str, Any] = json.loads(p.read_text())
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


def tournaments_in(root: str | os.PathLike[str]) -> list[str]:
    """Ids of the tournaments with a manifest under ``root``."""
    return [p.stem for p in manifests(root)]
