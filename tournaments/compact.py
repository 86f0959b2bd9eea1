"""Compaction: merge a tournament's committed batches, per game, into few large batches.

Every batch of a run writes one small part per table; a long run leaves many thousands of them, and
every reader pays per file.  :func:`compact` rewrites a finished (or paused) tournament's batches of
each game as batches of about :data:`FILE_BYTES` each, sorted by ``match_id`` (and ``ply``), in row
groups of about :data:`ROW_GROUP_BYTES`, so that one match reads as one range.

A compacted batch is an ordinary batch (``tournaments.log``): three parts of one name
``part-<tkey>-e<epoch>-<batch>.parquet`` (the epoch the compaction started, the batch key of its match
ids) and a digest record, so every reader, ``verify``, ``repair`` and a resume treat it as any other.
It is committed under the existing protocol, with one more atomic step:

1. Under the tournament's lock (a running driver, a repair or another compaction holds it: refused in
   one line), :func:`tournaments.ledger.begin_epoch` fences off any worker left by a killed driver,
   the orphans of earlier epochs go, and every batch is certified: a damaged log is refused (repair it
   first).
2. The new moves and events parts and digest records are written beside the old ones.  Until step 3
   they have no matches part: orphans, invisible to every reader that follows the commit record.
3. **The commit**: a copy of the game's ``matches/game=<id>`` folder (hard links of every file the
   compaction keeps, the new matches parts in place of the old) is built under ``OUT/_compact/`` and
   swapped with the live folder in one ``renameat2(RENAME_EXCHANGE)``.  A reader lists either the old
   matches parts or the new ones, never both and never neither.
4. The old batches' moves and events parts and digest records, now orphans, are deleted, and the
   swapped-out folder.

A compaction killed at any point leaves a log that reads as before step 3 or as after it; its leftovers
are orphans of an earlier epoch, which the next ``compact``, resume or repair removes.

**On an object store** (no rename, no swap of many objects) the committed set is named by one object,
written last (:func:`compact_store`):

1. The compaction takes the tournament's lease (``tournaments.ledger.acquire_lease``: a new epoch;
   a running driver or another compaction holds it: refused in one line), removes the staging of
   earlier epochs (the fence) and the leftovers of earlier compactions, and creates the marker
   ``_tournaments/<t>.compacting-e<epoch>``: from then on every part of its epoch is out of the
   committed set for every reader and driver until step 3.
2. It writes the new batches (moves, events, digest record, matches part) under their final names, the
   lease checked before each.
3. **The commit**: the record ``_tournaments/<t>.compacted-e<epoch>`` (JSON: the batches it replaced,
   those it wrote), created by a conditional write after a last check of the lease.  Readers list
   ``_tournaments/`` before the table folders and leave out the replaced batches of every record and
   every batch of a marker without its record (``tournaments.store.Compactions``).
4. After :func:`compact_grace` seconds (a reader that listed ``_tournaments/`` just before the commit
   still finds the old batches), the replaced batches are deleted.

Killed before step 3, the log reads as before; after it, as after.  The next compaction removes the
leftovers: it first blocks a dead compaction's commit for good (it creates that epoch's record itself,
marked ``aborted``, which readers treat as no commit), then deletes the dead compaction's batches and
the batches replaced by committed ones.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from tournaments.ledger import (
    Lease,
    LeaseHeld,
    acquire_lease,
    begin_epoch,
    clean_orphans,
    clean_staging,
)
from tournaments.log import (
    _META,
    TABLES,
    Fenced,
    check_batch,
    named_oserror,
    read_part,
    record_sizes,
    write_atomic,
)
from tournaments.paths import (
    DIGESTS,
    committed_parts,
    compacted_path,
    compacting_path,
    compaction_name,
    digest_path,
    part_epoch,
    part_game,
    part_name,
    part_path,
    part_prefix,
    partition_dir,
    tournament_key,
)
from tournaments.store import (
    ObjectStore,
    StoreError,
    StoreFiles,
    compactions,
    is_uri,
    open_store,
    restore_uri,
)

COMPACT = "_compact"
"""``OUT/_compact/<tkey>/``: where a compaction builds the matches folder it swaps in (no reader globs
``_`` folders)."""

ROW_GROUP_BYTES = 128 << 20
"""Target size of a row group (uncompressed Arrow bytes)."""

FILE_BYTES = 1 << 30
"""Target size of a compacted batch's moves (uncompressed Arrow bytes): the batches of a game are
grouped, in order, until their moves reach this; a compaction holds one such group in memory."""

SORT_KEYS: dict[str, list[tuple[str, str]]] = {
    "moves": [("match_id", "ascending"), ("ply", "ascending")],
    "events": [("match_id", "ascending")],
    "matches": [("match_id", "ascending")],
}
"""How a compacted part's rows are ordered.  A match's events keep the order they were logged in (the
order the rules emitted them: an event fired at a trick's end carries the ply of the card it is about,
so ply order is not emission order, and ``verify`` compares the sequence): :func:`sorted_rows` breaks
ties by the rows' order in the batches, never by ply."""


def sorted_rows(table: pa.Table, name: str) -> pa.Table:
    """``table`` (a table ``name``'s rows, batches concatenated in order) sorted by :data:`SORT_KEYS`,
    rows with equal keys in their original order."""
    at = pa.array(range(table.num_rows), pa.int64())
    keyed = table.append_column("__row", at).sort_by([*SORT_KEYS[name], ("__row", "ascending")])
    return keyed.drop_columns(["__row"])

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class CompactError(Exception):
    """A compaction that cannot run (one line)."""


def _step(what: str) -> None:
    """Called after every change the compaction makes on disk (tests kill the process here)."""


@dataclass
class Compaction:
    tournament: str
    epoch: int
    games: dict[str, tuple[int, int]] = field(default_factory=dict)
    """game -> (batches before, batches after), for the games compacted."""
    matches: int = 0
    removed_orphans: int = 0
    files_before: int = 0
    files_after: int = 0


def exchange(a: Path, b: Path) -> None:
    """Swap two directories atomically (Linux ``renameat2(RENAME_EXCHANGE)``); :class:`CompactError`
    where the filesystem cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        raise CompactError("this system has no renameat2: compaction needs an atomic directory swap")
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise CompactError(f"the filesystem of {a} cannot swap directories atomically "
                               f"({os.strerror(err)}): compaction needs renameat2(RENAME_EXCHANGE)")
        raise named_oserror(OSError(err, os.strerror(err)), b)


def _rows_per_group(table: pa.Table) -> int:
    if table.num_rows == 0:
        return 1
    per_row = max(1, table.nbytes // table.num_rows)
    return max(1, min(table.num_rows, ROW_GROUP_BYTES // per_row))


def compacted_bytes(table: pa.Table) -> bytes:
    """A compacted part's bytes: as :func:`tournaments.log.part_bytes` (zstd, schema version, page CRCs)
    with row groups of about :data:`ROW_GROUP_BYTES`."""
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(_META), sink, compression="zstd", write_page_checksum=True,
                   row_group_size=_rows_per_group(table))
    return bytes(sink.getvalue().to_pybytes())


def _batches_by_game(root: Path, tournament: str, game: str | None, shown: str,
                     files: StoreFiles | None = None) -> dict[str, list[str]]:
    """The committed batches of ``tournament`` per game (only ``game``'s when given), each checked
    (:func:`check_batch`, not hashing every byte); :class:`CompactError` in one line for a damaged
    batch or a game without one.  ``shown``: the log's name in messages; ``files``: an object
    store's read-only view (None: the local directory ``root``)."""
    by_game: dict[str, list[str]] = {}
    for p in committed_parts(root, tournament, files=files):
        c = check_batch(root, part_game(p), p.name, tournament, full=False, files=files)
        if c.problems:
            raise CompactError(f"{c.problems[0]}; `cardarena tournament repair {shown}` first")
        by_game.setdefault(c.game, []).append(p.name)
    if game is None:
        return by_game
    if game not in by_game:
        have = f" (it has: {', '.join(sorted(by_game))})" if by_game else ""
        raise CompactError(f"tournament {tournament!r} in {shown} has no committed batch of game "
                           f"{game!r}{have}")
    return {game: by_game[game]}


def _groups(root: Path, game: str, names: list[str], target: int) -> list[list[str]]:
    """The batches of one game in runs whose moves reach about ``target`` bytes in memory."""
    out: list[list[str]] = [[]]
    size = 0
    for n in names:
        meta = pq.read_metadata(part_path(root, "moves", game, n))
        b = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        if out[-1] and size + b > target:
            out.append([])
            size = 0
        out[-1].append(n)
        size += b
    return out


def compact(root: str | os.PathLike[str], tournament: str, game: str | None = None,
            target: int = FILE_BYTES, fsync: bool = True,
            lock: Callable[[Path, str], IO[str]] | None = None) -> Compaction:
    """Compact ``tournament``'s batches under ``root`` (every game, or ``game``): see the module's doc.
    ``lock(root, tournament)`` takes the tournament's lock (an object with ``close``) or raises."""
    text = restore_uri(root)
    if is_uri(text):
        return compact_store(text, tournament, game, target)
    base = Path(root)
    if lock is None:
        from tournaments.runners.preparation import _lock
        lock = _lock
    held = lock(base, tournament)
    try:
        _step("locked")
        epoch = begin_epoch(base, tournament)
        _step("epoch")
        out = Compaction(tournament, epoch)
        out.removed_orphans = len(clean_orphans(base, tournament, before_epoch=epoch))
        _step("orphans")
        stale = base / COMPACT / tournament_key(tournament)
        if stale.exists():
            shutil.rmtree(stale)
            _step("stale")
        by_game = _batches_by_game(base, tournament, game, str(root))
        for g, names in sorted(by_game.items()):
            before = len(names)
            groups = _groups(base, g, names, target)
            if all(len(grp) == 1 for grp in groups):
                out.games[g] = (before, before)
                out.matches += sum(pq.read_metadata(part_path(base, "matches", g, n)).num_rows for n in names)
                continue
            out.matches += _compact_game(base, tournament, g, epoch, groups, fsync)
            out.games[g] = (before, len(groups))
            out.files_before += 4 * before
            out.files_after += 4 * len(groups)
        if stale.exists():
            shutil.rmtree(stale)
        return out
    finally:
        held.close()


def _compact_game(base: Path, tournament: str, game: str, epoch: int, groups: list[list[str]],
                  fsync: bool) -> int:
    new: dict[str, bytes] = {}     # new matches part name -> its bytes
    replaced: list[str] = []
    matches = 0
    for grp in groups:
        if len(grp) == 1:
            continue
        tables = {t: pa.concat_tables([read_part(part_path(base, t, game, n), t) for n in grp])
                  for t in TABLES}
        ids = tables["matches"].column("match_id").to_pylist()
        if len(set(ids)) != len(ids):
            raise CompactError(f"game {game}: a match is in two batches of tournament {tournament!r}; "
                               f"`cardarena tournament repair {base}` first")
        name = part_name(tournament, ids, epoch)
        blobs = {t: compacted_bytes(sorted_rows(tables[t], t)) for t in TABLES}
        for t in ("moves", "events"):
            write_atomic(part_path(base, t, game, name), blobs[t], fsync)
            _step(f"write {t}")
        record = {"tournament": tournament, "rows": {t: tables[t].num_rows for t in TABLES},
                  "sha256": {t: hashlib.sha256(blobs[t]).hexdigest() for t in TABLES},
                  "compacted_from": len(grp), **record_sizes(name, {t: len(blobs[t]) for t in TABLES})}
        mpath = part_path(base, "matches", game, name)
        write_atomic(digest_path(mpath), (json.dumps(record, sort_keys=True) + "\n").encode(), fsync)
        _step("write digest")
        new[name] = blobs["matches"]
        replaced += grp
        matches += len(ids)
    # the commit: a copy of matches/game=G with the new parts in place of the old, swapped in whole
    live = partition_dir(base, "matches", game)
    stage = base / COMPACT / tournament_key(tournament) / f"matches-game={game}"
    stage.mkdir(parents=True)
    gone = set(replaced)
    for f in sorted(live.iterdir()):
        if f.name not in gone and not f.name.startswith("."):
            os.link(f, stage / f.name)
    for name, data in new.items():
        write_atomic(stage / name, data, fsync)
    _step("staged")
    exchange(stage, live)
    _step("exchanged")
    for f in stage.iterdir():   # a part another tournament committed while the copy was made
        if f.name not in gone and not f.name.startswith(".") and not (live / f.name).exists():
            os.link(f, live / f.name)
    for name in replaced:
        for t in ("moves", "events"):
            part_path(base, t, game, name).unlink(missing_ok=True)
            _step(f"delete {t}")
        digest_path(part_path(base, "matches", game, name)).unlink(missing_ok=True)
        _step("delete digest")
    shutil.rmtree(stage)
    _step("cleaned")
    return matches


# ------------------------------------------------------------------------------------------ object stores
GRACE_ENV = "CARDARENA_COMPACT_GRACE_S"
"""Seconds an object-store compaction waits after its commit before it deletes the batches it
replaced (default 30): longer than a reader takes to list a log."""


def compact_grace() -> float:
    text = os.environ.get(GRACE_ENV, "30")
    try:
        grace = float(text)
    except ValueError:
        raise ValueError(f"{GRACE_ENV}={text[:40]!r}: expected seconds (a number)") from None
    if not 0 <= grace <= 86400:
        raise ValueError(f"{GRACE_ENV}={text[:40]!r}: out of range 0..86400 seconds")
    return grace


def _batch_keys(game: str, name: str) -> list[str]:
    """The objects of one batch: its three parts and its digest record (the matches part last)."""
    mpath = part_path("", "matches", game, name)
    return [part_path("", "moves", game, name).as_posix(), part_path("", "events", game, name).as_posix(),
            digest_path(mpath).as_posix(), mpath.as_posix()]


def _collect_garbage(store: ObjectStore, tournament: str, epoch: int) -> int:
    """Remove ``tournament``'s batches that no reader counts: those of compactions of earlier epochs that
    never committed (whose commit is first made impossible: an ``aborted`` record), and those replaced
    by committed ones.  Returns the objects deleted."""
    for k in store.list(compacting_path("", tournament, 0).parent.as_posix()):
        got = compaction_name(k.rsplit("/", 1)[-1])
        if got is not None and got[0] == tournament and not got[2] and got[1] < epoch:
            record = compacted_path("", tournament, got[1])
            store.put_if_absent(record, json.dumps({"aborted": True, "epoch": got[1]}).encode())
    gone = compactions(store)
    prefix = part_prefix(tournament)
    doomed = [k for t in (*TABLES, DIGESTS) for k in store.list(t)
              if k.rsplit("/", 1)[-1].startswith(prefix) and gone.hides(k.rsplit("/", 1)[-1])]
    doomed.sort(key=lambda k: k.startswith("matches/"), reverse=True)   # the commit records first
    for k in doomed:
        store.delete(k)
        _step("garbage deleted")
    return len(doomed)


def compact_store(uri: str, tournament: str, game: str | None = None, target: int = FILE_BYTES) -> Compaction:
    """Compact ``tournament``'s batches in the object store at ``uri`` (see the module's doc)."""
    shown = uri.split("?", 1)[0]
    try:
        store = open_store(uri)
        prefix = part_prefix(tournament)
        newest = max((part_epoch(k.rsplit("/", 1)[-1]) or 0 for k in store.list("matches")
                      if k.rsplit("/", 1)[-1].startswith(prefix)), default=0)
        lease = acquire_lease(store, tournament, after=newest)
    except (StoreError, ValueError) as e:
        raise CompactError(str(e)) from None
    except LeaseHeld as e:
        raise CompactError(f"cannot compact now: {e}") from None
    try:
        _step("locked")
        return _compact_store(store, lease, tournament, game, target, shown)
    except (StoreError, Fenced) as e:
        raise CompactError(str(e)) from None
    finally:
        with contextlib.suppress(StoreError):
            lease.release()


def _compact_store(store: ObjectStore, lease: Lease, tournament: str, game: str | None, target: int,
                   shown: str) -> Compaction:
    epoch = lease.epoch
    out = Compaction(tournament, epoch)
    out.removed_orphans = len(clean_staging(store, tournament, before_epoch=epoch))
    _step("staging")
    out.removed_orphans += _collect_garbage(store, tournament, epoch)
    _step("orphans")
    lease.check()
    store.put_if_absent(compacting_path("", tournament, epoch), b"")
    _step("marker")
    files = StoreFiles(store)
    root = files.root
    by_game = _batches_by_game(root, tournament, game, shown, files)
    replaced: dict[str, list[str]] = {}
    written: dict[str, list[str]] = {}
    for g, names in sorted(by_game.items()):
        sizes = []
        for n in names:
            meta = pq.read_metadata(str(part_path(root, "moves", g, n)), filesystem=files.fs)
            sizes.append(sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
        groups = _group_sizes(names, sizes, target)
        out.games[g] = (len(names), len(groups))
        for grp in groups:
            if len(grp) == 1:
                out.matches += pq.read_metadata(str(part_path(root, "matches", g, grp[0])),
                                                filesystem=files.fs).num_rows
                continue
            tables = {t: pa.concat_tables([read_part(part_path(root, t, g, n), t, files=files) for n in grp])
                      for t in TABLES}
            ids = tables["matches"].column("match_id").to_pylist()
            if len(set(ids)) != len(ids):
                raise CompactError(f"game {g}: a match is in two batches of tournament {tournament!r}; "
                                   f"`cardarena tournament repair {shown}` first")
            name = part_name(tournament, ids, epoch)
            blobs = {t: compacted_bytes(sorted_rows(tables[t], t)) for t in TABLES}
            record = {"tournament": tournament, "rows": {t: tables[t].num_rows for t in TABLES},
                      "sha256": {t: hashlib.sha256(blobs[t]).hexdigest() for t in TABLES},
                      "compacted_from": len(grp), **record_sizes(name, {t: len(blobs[t]) for t in TABLES})}
            data = [blobs["moves"], blobs["events"], (json.dumps(record, sort_keys=True) + "\n").encode(),
                    blobs["matches"]]
            for key, body in zip(_batch_keys(g, name), data, strict=True):
                lease.check()
                store.put(key, body)
                _step(f"write {key.split('/', 1)[0]}")
            replaced.setdefault(g, []).extend(grp)
            written.setdefault(g, []).append(name)
            out.matches += len(ids)
            out.files_before += 4 * len(grp)
            out.files_after += 4
    lease.check()
    _step("checked")
    commit = {"tournament": tournament, "epoch": epoch, "replaced": replaced, "parts": written}
    if not store.put_if_absent(compacted_path("", tournament, epoch),
                               (json.dumps(commit, sort_keys=True) + "\n").encode()):
        raise CompactError(f"tournament {tournament!r} in {shown}: a later run took over this compaction "
                           f"(epoch {epoch}) before its commit; nothing changed")
    _step("committed")
    if replaced:
        time.sleep(compact_grace())
    for g, names in sorted(replaced.items()):
        for n in names:
            for key in _batch_keys(g, n)[::-1]:   # the commit record first: never a half batch in sight
                store.delete(key)
                _step("delete replaced")
    _step("cleaned")
    return out


def _group_sizes(names: list[str], sizes: list[int], target: int) -> list[list[str]]:
    """The batches ``names`` (their moves' sizes ``sizes``) in runs of about ``target`` bytes."""
    out: list[list[str]] = [[]]
    size = 0
    for n, b in zip(names, sizes, strict=True):
        if out[-1] and size + b > target:
            out.append([])
            size = 0
        out[-1].append(n)
        size += b
    return out
