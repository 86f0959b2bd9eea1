"""Where a tournament's log lives: the one module that knows the paths under an output directory
(standard library only; documented for readers in ``data/README.md``)::

    OUT/_tournaments/<tournament>.json                        the manifest (spec, spec hash, schema version)
    OUT/_tournaments/<tournament>.epoch                       the current run's epoch: the commit fence
    OUT/_tournaments/<tournament>.secret                      the tournament secret (hex, mode 0600)
    OUT/_tournaments/<tournament>.lock                        held by the run (or repair) that writes
    OUT/matches/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet   one row per finished match
    OUT/moves/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet     one row per action, in order
    OUT/events/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet    one row per rule event
    OUT/_digests/game=<id>/<part name>.json                   each batch's digest record
    OUT/_quarantine/<table or _digests>/game=<id>/<file>      the files of batches found damaged
    OUT/_logs/ray-driver.log                                  Ray's own output during a run

- Hive-partitioned by game: the ``game`` column lives in the directory name, not in the files, so
  DuckDB (``read_parquet('OUT/moves/**/*.parquet')``), Polars (``pl.scan_parquet('OUT/moves/',
  hive_partitioning=True)``) and pyarrow (``pq.read_table('OUT/moves')``) all read the tree as-is.
  Folders beginning with ``_`` are not tables: readers of ``OUT`` as a dataset skip them.
- A part's name is a function of the tournament (``tkey``, :func:`tournament_key`), the run's epoch
  and the batch's match ids (:func:`batch_key`): a retried batch rewrites its own files.

>>> part_name("t", ["b", "a"], 3) == part_name("t", ["a", "b"], 3)
True
>>> part_epoch(part_name("t", ["a"], 7)), part_epoch("notes.parquet")
(7, None)
>>> partition_dir("OUT", "moves", "tonk"), digest_path(part_path("OUT", "matches", "tonk", "part-x.parquet"))
(PosixPath('OUT/moves/game=tonk'), PosixPath('OUT/_digests/game=tonk/part-x.parquet.json'))
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

Root = str | os.PathLike[str]
"""A tournament output directory."""

TOURNAMENTS = "_tournaments"
"""``OUT/_tournaments/``: each tournament's manifest, secret, epoch fence and lock."""
DIGESTS = "_digests"
"""``OUT/_digests/game=<id>/<part name>.json``: each batch's digest record (outside the table trees,
which Polars reads whole)."""
QUARANTINE = "_quarantine"
"""``OUT/_quarantine/<table>/game=<id>/<part>``: where a repair moves the files of damaged batches."""
LOGS = "_logs"
"""``OUT/_logs/``: the run's own log files."""
RAY_LOG = Path(LOGS) / "ray-driver.log"
"""Ray's output during a run, relative to the output directory."""

class Lister(Protocol):
    """What lists a log's folders: the local filesystem, or an object store read in place
    (``tournaments.store.LocalFiles``/``StoreFiles``; None below means the local filesystem)."""

    def is_dir(self, p: Path) -> bool: ...

    def glob(self, p: Path, pattern: str) -> list[Path]: ...


def _glob(files: Lister | None, p: Path, pattern: str) -> list[Path]:
    if files is None:
        return sorted(p.glob(pattern)) if p.is_dir() else []
    return files.glob(p, pattern) if files.is_dir(p) else []


GAME_PREFIX = "game="
_PART = re.compile(r"^part-([0-9a-f]{8})-e([0-9]+)-([0-9a-f]{16})\.parquet$")


# ------------------------------------------------------------------------------------------ part names
def tournament_key(tournament: str) -> str:
    """The 8 hex digits naming a tournament's part files (ids may hold any character)."""
    return hashlib.sha256(tournament.encode()).hexdigest()[:8]


def batch_key(match_ids: Iterable[str]) -> str:
    """The 16 hex digits naming a batch's part files: a function of its match ids only."""
    h = hashlib.sha256()
    for m in sorted(match_ids):
        h.update(m.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def part_name(tournament: str, match_ids: Iterable[str], epoch: int = 0) -> str:
    """``part-<tkey>-e<epoch>-<batch>.parquet``; epoch 0 is a writer outside any run (synthetic data)."""
    return f"part-{tournament_key(tournament)}-e{epoch}-{batch_key(match_ids)}.parquet"


def part_prefix(tournament: str) -> str:
    """What every part file name of ``tournament`` begins with."""
    return f"part-{tournament_key(tournament)}-"


def part_epoch(name: str) -> int | None:
    """The epoch in a part file's name (None for a name that is not a part's)."""
    m = _PART.match(name)
    return int(m.group(2)) if m else None


def is_part_name(name: str) -> bool:
    return _PART.match(name) is not None


def temp_part_name(name: str) -> str | None:
    """The part name a hidden temporary file (``.part-....parquet.<pid>-<id>.tmp``, see
    ``tournaments.log.write_part``) was being written for; None for another file name."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    return name[1:].split(".parquet.", 1)[0] + ".parquet"


# ------------------------------------------------------------------------------------------ the tables
def table_dir(root: Root, table: str) -> Path:
    """``OUT/<table>``: the Hive-partitioned tree of one table (``moves``, ``events``, ``matches``)."""
    return Path(root) / table


def partition_dir(root: Root, table: str, game: str) -> Path:
    """``OUT/<table>/game=<id>``."""
    return Path(root) / table / f"{GAME_PREFIX}{game}"


def part_path(root: Root, table: str, game: str, name: str) -> Path:
    """``OUT/<table>/game=<id>/<name>``: one part file."""
    return partition_dir(root, table, game) / name


def part_game(part: Path) -> str:
    """The game of a part file, from its partition folder's name (``game=<id>``)."""
    return part.parent.name.partition("=")[2]


def sibling_part(part: Path, table: str) -> Path:
    """The part of the same batch (the same name, the same game) in another ``table``."""
    return part.parent.parent.parent / table / part.parent.name / part.name


def partitions(root: Root, table: str, files: Lister | None = None) -> list[tuple[str, Path]]:
    """(game, folder) of every ``game=<id>`` partition of ``table``, sorted by folder name."""
    base = table_dir(root, table)
    if files is not None:
        return [(d.name[len(GAME_PREFIX):], d) for d in _glob(files, base, f"{GAME_PREFIX}*")
                if files.is_dir(d)]
    if not base.is_dir():
        return []
    return [(d.name[len(GAME_PREFIX):], d) for d in sorted(base.iterdir())
            if d.is_dir() and d.name.startswith(GAME_PREFIX)]


def all_parts(root: Root, table: str, files: Lister | None = None) -> list[Path]:
    """Every committed part file of ``table`` (any tournament's), sorted."""
    return _glob(files, table_dir(root, table), f"{GAME_PREFIX}*/part-*.parquet")


def committed_parts(root: Root, tournament: str, table: str = "matches",
                    files: Lister | None = None) -> list[Path]:
    """The part files of ``table`` that belong to ``tournament``."""
    prefix = part_prefix(tournament)
    return [p for p in all_parts(root, table, files) if p.name.startswith(prefix)]


def temp_files(root: Root, table: str) -> list[Path]:
    """The hidden temporary files (``.part-*.tmp``) under ``OUT/<table>`` (``table`` may be
    :data:`DIGESTS`): left by a writer that was killed, or still being written."""
    base = Path(root) / table
    return sorted(base.glob(f"{GAME_PREFIX}*/.part-*.tmp")) if base.is_dir() else []


# ------------------------------------------------------------------------------------------ digests
def digest_path(matches_part: Path) -> Path:
    """The digest record of the batch whose matches part is ``matches_part``."""
    game_dir = matches_part.parent
    return game_dir.parent.parent / DIGESTS / game_dir.name / f"{matches_part.name}.json"


def digest_records(root: Root, tournament: str) -> list[Path]:
    """The digest records of ``tournament``'s batches."""
    base = Path(root) / DIGESTS
    if not base.is_dir():
        return []
    return sorted(base.glob(f"{GAME_PREFIX}*/{part_prefix(tournament)}*.parquet.json"))


def quarantine_dir(root: Root, table: str | None = None, game: str | None = None) -> Path:
    """``OUT/_quarantine``, or the folder in it for ``table`` (or :data:`DIGESTS`) and ``game``."""
    base = Path(root) / QUARANTINE
    if table is None:
        return base
    return base / table / f"{GAME_PREFIX}{game}" if game is not None else base / table


# ------------------------------------------------------------------------------------------ bookkeeping
def tournaments_dir(root: Root) -> Path:
    """``OUT/_tournaments``."""
    return Path(root) / TOURNAMENTS


def manifest_path(root: Root, tournament: str) -> Path:
    return tournaments_dir(root) / f"{tournament}.json"


def manifests(root: Root, files: Lister | None = None) -> list[Path]:
    """Every manifest under ``root``, sorted (their stems are the tournament ids)."""
    return _glob(files, tournaments_dir(root), "*.json")


def secret_path(root: Root, tournament: str) -> Path:
    return tournaments_dir(root) / f"{tournament}.secret"


def epoch_path(root: Root, tournament: str) -> Path:
    return tournaments_dir(root) / f"{tournament}.epoch"


def lock_path(root: Root, tournament: str) -> Path:
    """The file a run (or a repair) of ``tournament`` holds locked while it writes."""
    return tournaments_dir(root) / f"{tournament}.lock"


def ray_log_path(root: Root) -> Path:
    """``OUT/_logs/ray-driver.log``."""
    return Path(root) / RAY_LOG


# ------------------------------------------------------------------------------------------ object stores
STAGING = "_staging"
"""``OUT/_staging/e<epoch>/<attempt>/<table or _digests>/game=<id>/<part>``: where a worker writes a batch
on an object store; only the driver holding the epoch's lease publishes it (``tournaments.ledger``)."""
_LEASE = re.compile(r"\.lease-e([0-9]+)$")


def lease_path(root: Root, tournament: str, epoch: int) -> Path:
    """``OUT/_tournaments/<tournament>.lease-e<epoch>``: the lease of one run on an object store (created
    with a conditional write: at most one driver per epoch)."""
    return tournaments_dir(root) / f"{tournament}.lease-e{epoch}"


def lease_epoch(name: str, tournament: str) -> int | None:
    """The epoch of a lease object's name (None for another name or tournament)."""
    if not name.startswith(f"{tournament}.lease-e"):
        return None
    m = _LEASE.search(name)
    return int(m.group(1)) if m and name == f"{tournament}.lease-e{m.group(1)}" else None


def staging_dir(root: Root, tournament: str, epoch: int | None = None, attempt: str | None = None) -> Path:
    """``OUT/_staging/<tkey>``, or the folder of one epoch (``e<epoch>``), or of one batch attempt in it."""
    base = Path(root) / STAGING / tournament_key(tournament)
    if epoch is None:
        return base
    return base / f"e{epoch}" / attempt if attempt is not None else base / f"e{epoch}"


_COMPACTING = re.compile(r"^(.*)\.compacting-e([0-9]+)$")
_COMPACTED = re.compile(r"^(.*)\.compacted-e([0-9]+)$")


def compacting_path(root: Root, tournament: str, epoch: int) -> Path:
    """``OUT/_tournaments/<tournament>.compacting-e<epoch>``: on an object store, a compaction of that
    epoch started; until its record (:func:`compacted_path`) exists, the parts of that epoch are not
    committed (readers and drivers leave them out)."""
    return tournaments_dir(root) / f"{tournament}.compacting-e{epoch}"


def compacted_path(root: Root, tournament: str, epoch: int) -> Path:
    """``OUT/_tournaments/<tournament>.compacted-e<epoch>``: on an object store, the commit of a
    compaction (JSON, written last, by a conditional create): the batches it replaced (no longer
    committed) and those it wrote (committed from then on)."""
    return tournaments_dir(root) / f"{tournament}.compacted-e{epoch}"


def compaction_name(name: str) -> tuple[str, int, bool] | None:
    """(tournament, epoch, whether it is the commit record) of a compaction's object name in
    ``_tournaments/``; None for another name."""
    for rx, done in ((_COMPACTED, True), (_COMPACTING, False)):
        m = rx.match(name)
        if m:
            return m.group(1), int(m.group(2)), done
    return None
