"""Tournament logs in Parquet: the schemas of ``moves``, ``matches`` and ``events``, and the writer.

Layout under a tournament output directory (documented for readers in ``data/README.md``)::

    OUT/_tournaments/<tournament>.json                        the manifest (spec, spec hash, schema version)
    OUT/_tournaments/<tournament>.epoch                       the current run's epoch: the commit fence
    OUT/_tournaments/<tournament>.secret                      the tournament secret (hex, mode 0600)
    OUT/matches/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet   one row per finished match
    OUT/moves/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet     one row per action, in order
    OUT/events/game=<id>/part-<tkey>-e<epoch>-<batch>.parquet    one row per rule event

- Hive-partitioned by game: the ``game`` column lives in the directory name, not in the files, so
  DuckDB (``read_parquet('OUT/moves/**/*.parquet')``), Polars (``pl.scan_parquet('OUT/moves/',
  hive_partitioning=True)``) and pyarrow (``pq.read_table('OUT/moves')``) all read the tree as-is.
- Every part file is zstd-compressed, written under a hidden temporary name (``.part-...tmp``, which no
  reader globs) and renamed into place with ``os.replace``, so a reader or a crash never sees half a file.
- One batch of matches writes one part per table with the same name, ``moves`` and ``events`` first and
  ``matches`` last: **a batch's matches part is its commit record.** A part name is a function of the
  tournament and the match ids in the batch, so a retried batch (a Ray task re-run after its node died)
  replaces its own files with the same content instead of adding rows. Moves or events parts whose
  matches part never appeared (a crash between the renames) are orphans; :func:`clean_orphans` removes
  them before a run resumes.
- **Fencing.** Every run of a tournament (a first run, a resume) starts a new *epoch*
  (:func:`begin_epoch`, a counter in ``_tournaments/<tournament>.epoch``) before it reads which
  matches are committed, and its batches carry that epoch in their part names.  A batch renames its
  matches part into place only while it holds a shared ``flock`` on the epoch file and the file still
  holds its epoch (:func:`commit_batch`); the new run bumps the epoch under the exclusive lock.  So a
  worker left over from a killed driver either commits before the new run reads the finished set (its
  matches are then skipped) or finds itself fenced off and deletes its parts: never both.  On a
  cluster the output directory is shared, and so is this lock (NFS v4 and other POSIX filesystems
  carry ``flock`` across machines).
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA_VERSION = 1
"""Bump on any change of a column's name, type or meaning (and describe it in data/README.md)."""

TABLES = ("moves", "events", "matches")
"""The tables, in the order a batch writes them (matches last: it is the commit record)."""

MOVE_STATUSES = ("ok", "timeout", "crash", "illegal", "memory", "fallback")
"""``moves.status``: the bot's outcome for that move; ``fallback`` = played by the random fallback for a
seat whose bot faulted earlier in the match.  A faulting move's action is the fallback's action."""

MOVES_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("match_id", pa.string(), nullable=False),
    pa.field("deal", pa.int32(), nullable=False),
    pa.field("ply", pa.int32(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False),
    pa.field("bot", pa.string(), nullable=False),
    pa.field("phase", pa.string(), nullable=False),
    pa.field("action", pa.string(), nullable=False),
    pa.field("legal_count", pa.int32(), nullable=False),
    pa.field("think_us", pa.int64(), nullable=False),
    pa.field("status", pa.string(), nullable=False),
])

FAULT_TYPE = pa.struct([
    pa.field("seat", pa.int8()),
    pa.field("kind", pa.string()),
    pa.field("ply", pa.int32()),
    pa.field("reason", pa.string()),
])

MATCHES_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("match_id", pa.string(), nullable=False),
    pa.field("group_id", pa.string(), nullable=False),
    pa.field("options", pa.string(), nullable=False),
    pa.field("seed", pa.int64(), nullable=False),
    pa.field("players", pa.int8(), nullable=False),
    pa.field("max_deals", pa.int32()),
    pa.field("board", pa.int32(), nullable=False),
    pa.field("rotation", pa.int8(), nullable=False),
    pa.field("bots", pa.list_(pa.string()), nullable=False),
    pa.field("bot_refs", pa.list_(pa.string()), nullable=False),
    pa.field("teams", pa.list_(pa.int8()), nullable=False),
    pa.field("scores", pa.list_(pa.float64()), nullable=False),
    pa.field("ranking", pa.list_(pa.int8()), nullable=False),
    pa.field("engine_ranking", pa.list_(pa.int8()), nullable=False),
    pa.field("deals_played", pa.int32(), nullable=False),
    pa.field("sheet", pa.list_(pa.list_(pa.float64())), nullable=False),
    pa.field("engine_version", pa.string(), nullable=False),
    pa.field("moves", pa.int32(), nullable=False),
    pa.field("status", pa.string(), nullable=False),
    pa.field("fault_seat", pa.int8()),
    pa.field("fault_reason", pa.string()),
    pa.field("faults", pa.list_(FAULT_TYPE), nullable=False),
    pa.field("duration_s", pa.float64(), nullable=False),
    pa.field("finished_at", pa.timestamp("ms", tz="UTC"), nullable=False),
    pa.field("worker", pa.string(), nullable=False),
])

EVENTS_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("match_id", pa.string(), nullable=False),
    pa.field("deal", pa.int32(), nullable=False),
    pa.field("ply", pa.int32(), nullable=False),
    pa.field("event", pa.string(), nullable=False),
    pa.field("seat", pa.int8()),
    pa.field("data", pa.string(), nullable=False),
])

SCHEMAS: dict[str, pa.Schema] = {"moves": MOVES_SCHEMA, "events": EVENTS_SCHEMA, "matches": MATCHES_SCHEMA}

_META = {b"cardarena.schema_version": str(SCHEMA_VERSION).encode()}
_PART = re.compile(r"^part-([0-9a-f]{8})-e([0-9]+)-([0-9a-f]{16})\.parquet$")
_EVENT_KEYS = frozenset(("event", "deal", "ply", "seat"))


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


def part_epoch(name: str) -> int | None:
    """The epoch in a part file's name (None for a name that is not a part's)."""
    m = _PART.match(name)
    return int(m.group(2)) if m else None


def partition_dir(root: str | os.PathLike[str], table: str, game: str) -> Path:
    return Path(root) / table / f"game={game}"


def options_json(options: dict[str, Any]) -> str:
    """Game options as the canonical JSON stored in ``matches.options`` (sorted keys, no spaces)."""
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


# ------------------------------------------------------------------------------------------ buffer
@dataclass
class Fault:
    seat: int | None
    """None for an engine error (status ``error``)."""
    kind: str
    ply: int
    reason: str


class BatchLog:
    """The rows of one batch of matches (all of one game), kept column-wise until :meth:`tables`.

    The match loop collects its moves as tuples ``(deal, ply, seat, phase, action, legal_count,
    think_us, status)``, cheap to make per action, and hands them over once per match.
    """

    def __init__(self, tournament: str, game: str) -> None:
        self.tournament = tournament
        self.game = game
        self.match_ids: list[str] = []
        self._mv: dict[str, list[Any]] = {f.name: [] for f in MOVES_SCHEMA}
        self._ev: dict[str, list[Any]] = {f.name: [] for f in EVENTS_SCHEMA}
        self._ma: dict[str, list[Any]] = {f.name: [] for f in MATCHES_SCHEMA}

    @property
    def moves_logged(self) -> int:
        return len(self._mv["ply"])

    def add_match(self, *, match_id: str, group_id: str, options: str, seed: int, players: int,
                  max_deals: int | None, board: int, rotation: int, bots: Sequence[str],
                  bot_refs: Sequence[str], teams: Sequence[int], scores: Sequence[float],
                  ranking: Sequence[int], engine_ranking: Sequence[int], deals_played: int,
                  sheet: Sequence[Sequence[float]],
                  moves: Sequence[tuple[int, int, int, str, str, int, int, str]],
                  events: Sequence[dict[str, Any]], faults: Sequence[Fault], duration_s: float,
                  finished_at_ms: int, worker: str) -> None:
        """Add one finished match with its moves and rule events."""
        self.match_ids.append(match_id)
        n = len(moves)
        mv = self._mv
        mv["match_id"].extend([match_id] * n)
        if n:
            deal, ply, seat, phase, action, legal, think, status = zip(*moves, strict=True)
            mv["deal"].extend(deal)
            mv["ply"].extend(ply)
            mv["seat"].extend(seat)
            mv["bot"].extend(bots[s] for s in seat)
            mv["phase"].extend(phase)
            mv["action"].extend(action)
            mv["legal_count"].extend(legal)
            mv["think_us"].extend(think)
            mv["status"].extend(status)
        ev = self._ev
        for e in events:
            ev["match_id"].append(match_id)
            ev["deal"].append(e["deal"])
            ev["ply"].append(e["ply"])
            ev["event"].append(e["event"])
            ev["seat"].append(e.get("seat"))
            ev["data"].append(json.dumps({k: v for k, v in e.items() if k not in _EVENT_KEYS},
                                         sort_keys=True, separators=(",", ":")))
        first = faults[0] if faults else None
        row: dict[str, Any] = {
            "match_id": match_id, "group_id": group_id, "options": options, "seed": seed,
            "players": players, "max_deals": max_deals, "board": board, "rotation": rotation,
            "bots": list(bots), "bot_refs": list(bot_refs), "teams": list(teams),
            "scores": [float(x) for x in scores], "ranking": list(ranking),
            "engine_ranking": list(engine_ranking), "deals_played": deals_played,
            "sheet": [[float(x) for x in row] for row in sheet], "engine_version": engine_version(),
            "moves": n,
            "status": first.kind if first else "ok",
            "fault_seat": first.seat if first else None,
            "fault_reason": first.reason if first else None,
            "faults": [{"seat": f.seat, "kind": f.kind, "ply": f.ply, "reason": f.reason} for f in faults],
            "duration_s": duration_s, "finished_at": finished_at_ms, "worker": worker,
        }
        for k, v in row.items():
            self._ma[k].append(v)

    def tables(self) -> dict[str, pa.Table]:
        """The three tables of this batch, with their schemas (``game`` is in the path, not here)."""
        out: dict[str, pa.Table] = {}
        for name, cols in (("moves", self._mv), ("events", self._ev), ("matches", self._ma)):
            schema = SCHEMAS[name]
            n = len(cols["match_id"])
            cols["tournament"] = [self.tournament] * n
            out[name] = pa.Table.from_pydict(cols, schema=schema)
        return out


@functools.cache
def engine_version() -> str:
    """12 hex digits of the SHA-256 of the engine's source files: two logs with the same value
    were played by the same rules code, so a replay must reproduce them exactly."""
    import engine
    h = hashlib.sha256()
    root = Path(engine.__file__).parent
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


# ------------------------------------------------------------------------------------------ writing
def write_part(path: Path, table: pa.Table, fsync: bool = True) -> None:
    """Write ``table`` to ``path`` atomically: a hidden temporary file in the same directory, then
    ``os.replace``.  A concurrent or repeated write of the same part leaves one whole file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        _write_tmp(path, tmp, table, fsync)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_tmp(path: Path, tmp: Path, table: pa.Table, fsync: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.replace_schema_metadata(_META), tmp, compression="zstd")
    if fsync:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Fenced(Exception):
    """A batch of an earlier run of the tournament tried to commit after a new run began."""


def commit_batch(root: str | os.PathLike[str], log: BatchLog, fsync: bool = True,
                 epoch: int = 0) -> list[Path]:
    """Write the batch's three parts (matches last, the commit record); return their paths.

    With ``epoch`` > 0 the matches part is renamed into place only while the tournament's epoch file
    (locked shared) still holds ``epoch``; otherwise the batch's parts are deleted and :class:`Fenced`
    raised.  Epoch 0 writes without the fence (synthetic logs, tests)."""
    name = part_name(log.tournament, log.match_ids, epoch)
    tables = log.tables()
    paths: list[Path] = []
    for t in TABLES:
        p = partition_dir(root, t, log.game) / name
        if t == "matches" and epoch:
            _fenced_write(root, log.tournament, epoch, p, tables[t], paths, fsync)
        else:
            write_part(p, tables[t], fsync=fsync)
        paths.append(p)
    return paths


def _fenced_write(root: str | os.PathLike[str], tournament: str, epoch: int, path: Path, table: pa.Table,
                  written: list[Path], fsync: bool) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        _write_tmp(path, tmp, table, fsync)
        with open(epoch_path(root, tournament), "a+") as f:
            fcntl.flock(f, fcntl.LOCK_SH)   # released when f closes
            f.seek(0)
            now = int(f.read().strip() or 0)
            if now == epoch:
                os.replace(tmp, path)
                return
        for p in written:
            p.unlink(missing_ok=True)
        raise Fenced(f"tournament {tournament!r} in {root}: a new run (epoch {now}) began after this batch's "
                     f"(epoch {epoch}); its {len(table)} matches are left to the new run")
    finally:
        if tmp.exists():
            tmp.unlink()


def epoch_path(root: str | os.PathLike[str], tournament: str) -> Path:
    return Path(root) / "_tournaments" / f"{tournament}.epoch"


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
        f.seek(0)
        f.truncate()
        f.write(f"{epoch}\n")
        f.flush()
        os.fsync(f.fileno())
    return epoch


# ------------------------------------------------------------------------------------------ reading
def committed_parts(root: str | os.PathLike[str], tournament: str, table: str = "matches") -> list[Path]:
    """The part files of ``table`` that belong to ``tournament``."""
    base = Path(root) / table
    if not base.is_dir():
        return []
    prefix = f"part-{tournament_key(tournament)}-"
    return sorted(p for p in base.glob("game=*/part-*.parquet") if p.name.startswith(prefix))


def finished_matches(root: str | os.PathLike[str], tournament: str) -> set[str]:
    """Ids of the matches of ``tournament`` whose results are committed under ``root``."""
    done: set[str] = set()
    for p in committed_parts(root, tournament):
        t = pq.read_table(p, columns=["tournament", "match_id"])
        ids = t.column("match_id").to_pylist()
        if any(x != tournament for x in t.column("tournament").unique().to_pylist()):
            raise ValueError(f"{p} holds rows of another tournament than {tournament!r}")
        done.update(ids)
    return done


def clean_orphans(root: str | os.PathLike[str], tournament: str,
                  before_epoch: int | None = None) -> list[Path]:
    """Remove ``tournament``'s moves/events parts without a matches part, and stale temporary files
    (left by a killed writer).

    Without ``before_epoch``, call only while no writer of this tournament runs.  With it, only the
    files of epochs before ``before_epoch`` go: those runs are fenced off, so this is safe at any time."""
    committed = {(p.parent.name, p.name) for p in committed_parts(root, tournament)}
    prefix = f"part-{tournament_key(tournament)}-"

    def old(name: str) -> bool:
        if before_epoch is None:
            return True
        e = part_epoch(name)   # None: a name from before epochs, which no current writer uses
        return e is None or e < before_epoch

    removed: list[Path] = []
    for t in TABLES:
        base = Path(root) / t
        if not base.is_dir():
            continue
        for p in base.glob("game=*/.part-*.tmp"):
            name = p.name[1:].split(".parquet.", 1)[0] + ".parquet"
            if name.startswith(prefix) and old(name):
                p.unlink(missing_ok=True)
                removed.append(p)
        if t == "matches":
            continue
        for p in committed_parts(root, tournament, t):
            if (p.parent.name, p.name) not in committed and old(p.name):
                p.unlink(missing_ok=True)
                removed.append(p)
    return removed


def schema_version_of(path: str | os.PathLike[str]) -> int | None:
    """The schema version a part file was written with (None if it carries none)."""
    meta = pq.read_schema(path).metadata or {}
    v = meta.get(b"cardarena.schema_version")
    return int(v) if v is not None else None


def is_part_name(name: str) -> bool:
    return _PART.match(name) is not None


# ------------------------------------------------------------------------------------------ manifest
def manifest_path(root: str | os.PathLike[str], tournament: str) -> Path:
    return Path(root) / "_tournaments" / f"{tournament}.json"


def read_manifest(root: str | os.PathLike[str], tournament: str) -> dict[str, Any] | None:
    p = manifest_path(root, tournament)
    try:
        data: dict[str, Any] = json.loads(p.read_text())
    except FileNotFoundError:
        return None
    return data


def write_manifest(root: str | os.PathLike[str], tournament: str, data: dict[str, Any]) -> None:
    """Write the manifest atomically (temporary file, then rename)."""
    p = manifest_path(root, tournament)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, p)


def secret_path(root: str | os.PathLike[str], tournament: str) -> Path:
    return Path(root) / "_tournaments" / f"{tournament}.secret"


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
    """Keep the secret beside the manifest, readable by its owner only, written atomically."""
    p = secret_path(root, tournament)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        try:
            os.write(fd, secret.hex().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def tournaments_in(root: str | os.PathLike[str]) -> list[str]:
    """Ids of the tournaments with a manifest under ``root``."""
    d = Path(root) / "_tournaments"
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []
