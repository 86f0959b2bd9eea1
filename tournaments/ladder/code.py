"""A submitted version's files as a worker on any machine gets them (a ladder in an object store).

A group's batch (:attr:`tournaments.runner.Batch.code`) names, per submitted version, where its files
are in the store the batch writes to (``_ladder/code/HASH``, written by ``ladder submit``) and the
content hash its version record registered.  The worker copies them once into a cache of its own
machine and checks them against that hash at the start of every batch, so the sandbox runs only the
registered files and no node needs the runner's disk (docs/ladder.md).  This module imports nothing
of the ladder's: the runner's workers import it.
"""
from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bots.api import BotSource
from bots.registry import make_readonly, rmtree_readonly
from tournaments.store import ObjectStore


@dataclass(frozen=True)
class BotCode:
    """A submitted version's files where a worker on any machine reads them: the objects under ``key``
    in the store the batch writes to (:attr:`tournaments.runner.Batch.root`), its entry ``entry`` (a
    file, or a package's folder), hashing to ``hash`` (:meth:`bots.api.BotSource.content_hash`, the
    registered digest)."""

    hash: str
    entry: str
    package: bool
    key: str


CACHE = "cardarena-ladder-code"
"""A worker's cache of submitted versions' files: ``$TMPDIR/cardarena-ladder-code-<uid>/<content hash>``."""


def worker_sources(store: ObjectStore, code: Mapping[str, BotCode]) -> dict[str, BotSource]:
    """The submitted versions of a batch as a worker on any machine plays them (``ref`` -> its source):
    each version's files read from ``store`` (``_ladder/code/HASH``, :attr:`BotCode.key`) into this
    machine's cache, a folder of its own temporary directory only its user may write, one read-only
    folder per content hash, and checked against the content hash its version record registered at
    every call (once a batch: the sandbox runs only what hashes to it).  ``ValueError`` (one line) for files
    that are missing or do not hash to it."""
    base = Path(tempfile.gettempdir()) / f"{CACHE}-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    st = base.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise ValueError(f"{base}: the cache of submitted bots is not a folder of this user's alone")
    out = {}
    for ref, bc in code.items():
        dest = base / bc.hash
        if dest.exists():
            src = BotSource((dest / bc.entry).resolve(), bc.package)
            if src.content_hash() == bc.hash:
                out[ref] = src
                continue
            rmtree_readonly(dest)   # a damaged or foreign copy: fetched again
        out[ref] = _fetch(store, bc, base, ref)
    return out


def _fetch(store: ObjectStore, bc: BotCode, base: Path, ref: str) -> BotSource:
    """Copy the files of ``bc`` from ``store`` into ``base/HASH`` (a temporary folder renamed into
    place, read-only) once they hash to ``bc.hash``."""
    prefix = bc.key.rstrip("/") + "/"
    keys = [k for k in store.list(bc.key.rstrip("/")) if k.startswith(prefix)]
    if not keys:
        raise ValueError(f"{store.where(prefix)}: the files of {ref} are missing")
    tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=base))
    try:
        for k in keys:
            rel = Path(k[len(prefix):])
            if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] != bc.entry:
                raise ValueError(f"{store.where(k)}: not a file of {ref} ({bc.entry})")
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(store.get(k))
        got = BotSource((tmp / bc.entry).resolve(), bc.package).content_hash()
        if got != bc.hash:
            raise ValueError(f"{store.where(prefix)}: the files of {ref} do not hash to its registered "
                             f"content hash ({got[:16]} against {bc.hash[:16]})")
        make_readonly(tmp)
        dest = base / bc.hash
        try:
            os.rename(tmp, dest)
        except OSError:   # another worker of this machine put it there first
            rmtree_readonly(tmp)
        src = BotSource((dest / bc.entry).resolve(), bc.package)
        if src.content_hash() != bc.hash:
            raise ValueError(f"{dest}: the cached files of {ref} do not hash to its registered content hash")
        return src
    except BaseException:
        if tmp.exists():
            rmtree_readonly(tmp)
        raise



