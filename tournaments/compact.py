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

Object stores have no atomic swap of many objects: :func:`compact` refuses a URI in one line.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from tournaments.ledger import begin_epoch, clean_orphans
from tournaments.log import _META, TABLES, check_batch, named_oserror, read_part, write_atomic
from tournaments.paths import (
    committed_parts,
    digest_path,
    part_game,
    part_name,
    part_path,
    partition_dir,
    tournament_key,
)
from tournaments.store import is_uri, restore_uri

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
    "events": [("match_id", "ascending"), ("ply", "ascending")],
    "matches": [("match_id", "ascending")],
}

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
        raise CompactError(f"{text.split('?', 1)[0]}: compaction on an object store is not supported (it has "
                           "no atomic swap of many objects); compact a local copy")
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
        by_game: dict[str, list[str]] = {}
        for p in committed_parts(base, tournament):
            c = check_batch(base, part_game(p), p.name, tournament, full=False)
            if c.problems:
                raise CompactError(f"{c.problems[0]}; `cardarena tournament repair {root}` first")
            by_game.setdefault(c.game, []).append(p.name)
        if game is not None:
            if game not in by_game:
                have = f" (it has: {', '.join(sorted(by_game))})" if by_game else ""
                raise CompactError(f"tournament {tournament!r} in {root} has no committed batch of game "
                                   f"{game!r}{have}")
            by_game = {game: by_game[game]}
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
        blobs = {t: compacted_bytes(tables[t].sort_by(SORT_KEYS[t])) for t in TABLES}
        for t in ("moves", "events"):
            write_atomic(part_path(base, t, game, name), blobs[t], fsync)
            _step(f"write {t}")
        record = {"tournament": tournament, "rows": {t: tables[t].num_rows for t in TABLES},
                  "sha256": {t: hashlib.sha256(blobs[t]).hexdigest() for t in TABLES},
                  "compacted_from": len(grp)}
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
