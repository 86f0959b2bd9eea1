"""Tournament logs in Parquet: the schemas of ``moves``, ``matches`` and ``events``, the row types, the
writer and the reader that certifies a batch.  Where the files live is :mod:`tournaments.paths`; the
run's bookkeeping (manifest, secret, the epoch fence's counter, orphans, repair) is
:mod:`tournaments.ledger`.

- Every part file is zstd-compressed, written under a hidden temporary name (``.part-...tmp``, which no
  reader globs) and renamed into place with ``os.replace``, so a reader or a crash never sees half a file.
- One batch of matches writes one part per table with the same name, ``moves`` and ``events`` first and
  ``matches`` last: **a batch's matches part is its commit record.** A part name is a function of the
  tournament and the match ids in the batch (:func:`tournaments.paths.part_name`), so a retried batch
  (a Ray task re-run after its node died) replaces its own files with the same content instead of
  adding rows. Moves or events parts whose matches part never appeared (a crash between the renames)
  are orphans; :func:`tournaments.ledger.clean_orphans` removes them before a run resumes.
- **Fencing.** Every run of a tournament (a first run, a resume) starts a new *epoch*
  (:func:`tournaments.ledger.begin_epoch`, a counter in ``_tournaments/<tournament>.epoch``) before it
  reads which matches are committed, and its batches carry that epoch in their part names.  A batch
  renames its matches part into place only while it holds a shared ``flock`` on the epoch file and the
  file still holds its epoch (:func:`commit_batch`); the new run bumps the epoch under the exclusive
  lock.  So a worker left over from a killed driver either commits before the new run reads the
  finished set (its matches are then skipped) or finds itself fenced off and deletes its parts: never
  both.  On a cluster the output directory is shared, and so is this lock (NFS v4 and other POSIX
  filesystems carry ``flock`` across machines).
- **Integrity.** Every part carries page CRCs, and before its matches part a batch writes its digest
  record ``OUT/_digests/game=<id>/<part>.json`` (SHA-256 and rows of each part).  :func:`check_batch`
  certifies a batch against it (every part decoded whole, the schema's types, the rows consistent and
  this tournament's); :func:`tournaments.ledger.repair` (run by every resume, under the lock) moves
  each batch that is not whole to ``OUT/_quarantine/`` so that its matches are played again;
  :func:`scan_matches` and :func:`finished_matches` count only whole batches.  Writes name their file
  when the disk is full and leave no temporary file.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import typing
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bots.faults import Fault
from bots.records import MoveColumns, MoveRecord
from tournaments.paths import (
    committed_parts,
    digest_path,
    epoch_path,
    part_game,
    part_name,
    part_path,
    sibling_part,
    staging_dir,
    tournament_key,
)
from tournaments.store import Files, LocalFiles, StoreFiles

SCHEMA_VERSION = 1
"""Bump on any change of a column's name, type or meaning (and describe it in data/README.md)."""

TABLES = ("moves", "events", "matches")
"""The tables, in the order a batch writes them (matches last: it is the commit record)."""

REASON_CHARS = 4000
"""A fault's logged reason (:meth:`bots.faults.Fault.detail`) is cut to this many characters."""

MOVE_STATUSES = ("ok", "timeout", "crash", "illegal", "memory", "fallback")
"""``moves.status``: the bot's outcome for that move; ``fallback`` = played by the random fallback for a
seat whose bot faulted earlier in the match.  A faulting move's action is the fallback's action."""

MoveRow = MoveRecord
"""One ``moves`` row as the writer takes it (:meth:`BatchLog.add_match`): the match loop's
:class:`bots.match.MoveRecord`, the one type of a move row."""


def _moves_schema() -> pa.Schema:
    """The ``moves`` table's columns, derived from :class:`~bots.match.MoveRecord`: the tournament and
    the match, then its fields in order at the width each names, with the seat's entrant (``bot``)
    after ``seat``."""
    hints = typing.get_type_hints(MoveRecord, include_extras=True)
    fields = [pa.field("tournament", pa.string(), nullable=False),
              pa.field("match_id", pa.string(), nullable=False)]
    for name in MoveRecord._fields:
        width = typing.get_args(hints[name])[1]
        fields.append(pa.field(name, pa.type_for_alias(width), nullable=False))
        if name == "seat":
            fields.append(pa.field("bot", pa.string(), nullable=False))
    return pa.schema(fields)


MOVES_SCHEMA = _moves_schema()

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
    pa.field("bot", pa.string()),
    pa.field("data", pa.string(), nullable=False),
])

ADDED_COLUMNS: dict[str, tuple[str, ...]] = {"events": ("bot",)}
"""Columns added to schema version 1 after its first logs: a part written before may lack them, and
every reader fills them (:func:`read_part` with nulls; the ``events`` view of
``tournaments.analysis.views`` with the seat's entrant from ``matches.bots``)."""

SCHEMAS: dict[str, pa.Schema] = {"moves": MOVES_SCHEMA, "events": EVENTS_SCHEMA, "matches": MATCHES_SCHEMA}

_META = {b"cardarena.schema_version": str(SCHEMA_VERSION).encode()}
_EVENT_KEYS = frozenset(("event", "deal", "ply", "seat"))
_EVENT_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""``events.data``'s encoder: what ``json.dumps(..., sort_keys=True, separators=(",", ":"))`` makes
(it builds this encoder on every call)."""
_RUNS = ("deal", "phase", "status")
"""``moves`` columns kept as runs: they change a few times a match."""
_LISTS = ("bots", "bot_refs", "teams", "scores", "ranking", "engine_ranking", "faults")
"""``matches`` list columns kept as every match's values in one list and where each match's end (``sheet``,
a list of lists, likewise per deal row): no list object per match and column."""

def options_json(options: dict[str, Any]) -> str:
    """Game options as the canonical JSON stored in ``matches.options`` (sorted keys, no spaces)."""
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


# ------------------------------------------------------------------------------------------ buffer
class BatchLog:
    """The rows of one batch of matches (all of one game), kept column-wise until :meth:`tables`.

    The match loop collects each match's moves column by column (:class:`bots.records.MoveColumns`:
    three list appends a move, no record object) and hands them over once per match; a sequence of
    :data:`MoveRow` records is taken too.  Per move the batch keeps lists of ``seat``,
    ``legal_count``, ``think_us`` and ``action``; ``match_id``, ``deal``, ``phase`` and ``status`` as
    runs, ``ply`` as each match's row numbers (or as given by records), ``bot`` as each match's
    entrants by seat: :meth:`tables` makes those columns in Arrow and numpy (the same values and
    types, so the part files' bytes do not change).
    """

    def __init__(self, tournament: str, game: str) -> None:
        self.tournament = tournament
        self.game = game
        self.match_ids: list[str] = []
        self._seat: list[int] = []
        self._legal: list[int] = []
        self._think: list[int] = []
        self._action: list[str] = []
        self._ply: list[int] | None = None
        """``ply`` of every move when a match came as records (else each match's row numbers)."""
        self._mv_ids: list[str] = []
        """The match of each run of moves (a match with moves), in order..."""
        self._mv_ends: list[int] = []
        """... the moves logged up to the end of that run: ``moves.match_id``, run-length encoded ..."""
        self._mv_bots: list[int] = []
        """... and where that match's entrants by seat start in :attr:`_bots` (``moves.bot``)."""
        self._bots: list[str] = []
        self._run_ends: list[int] = []
        """Runs of equal (deal, phase, status): the moves logged up to the end of each, and its values."""
        self._runs: dict[str, list[Any]] = {k: [] for k in _RUNS}
        self._ev: dict[str, list[Any]] = {f.name: [] for f in EVENTS_SCHEMA}
        self._ma: dict[str, list[Any]] = {f.name: [] for f in MATCHES_SCHEMA
                                          if f.name not in _LISTS and f.name != "sheet"}
        self._lists: dict[str, tuple[list[Any], list[int]]] = {k: ([], [0]) for k in _LISTS}
        self._sheet: tuple[list[float], list[int], list[int]] = ([], [0], [0])
        """``sheet``: every deal row's scores, where each row ends, where each match's rows end."""

    @property
    def moves_logged(self) -> int:
        return len(self._seat)

    def _add_moves(self, moves: Sequence[MoveRow] | MoveColumns) -> int:
        """Append one match's moves; their number."""
        at = len(self._seat)
        runs = self._runs
        if isinstance(moves, MoveColumns):
            n = len(moves.seat)
            if len(moves.action) != n:
                raise ValueError(f"a match's moves: {len(moves.action)} actions for {n} moves "
                                 "(MoveColumns.finish was not called)")
            self._seat.extend(moves.seat)
            self._legal.extend(moves.legal_count)
            self._think.extend(moves.think_us)
            self._action.extend(moves.action)
            if self._ply is not None:
                self._ply.extend(range(n))
            self._run_ends.extend(at + x for x in moves.run_start[1:])
            if n:
                self._run_ends.append(at + n)
            runs["deal"].extend(moves.run_deal)
            runs["phase"].extend(moves.run_phase)
            runs["status"].extend(moves.run_status)
            return n
        n = len(moves)
        if not n:
            return 0
        deal, ply, seat, phase, action, legal, think, status = zip(*moves, strict=True)
        if self._ply is None:   # the matches before had row numbers as their plies
            self._ply = [i - s for s, e in zip([0, *self._mv_ends], self._mv_ends, strict=False)
                         for i in range(s, e)]
        self._ply.extend(ply)
        self._seat.extend(seat)
        self._legal.extend(legal)
        self._think.extend(think)
        self._action.extend(action)
        last = (None, None, None)
        for i, key in enumerate(zip(deal, phase, status, strict=True)):
            if key != last:
                if i:
                    self._run_ends.append(at + i)
                last = key
                runs["deal"].append(key[0])
                runs["phase"].append(key[1])
                runs["status"].append(key[2])
        self._run_ends.append(at + n)
        return n

    def add_match(self, *, match_id: str, group_id: str, options: str, seed: int, players: int,
                  max_deals: int | None, board: int, rotation: int, bots: Sequence[str],
                  bot_refs: Sequence[str], teams: Sequence[int], scores: Sequence[float],
                  ranking: Sequence[int], engine_ranking: Sequence[int], deals_played: int,
                  sheet: Sequence[Sequence[float]],
                  moves: Sequence[MoveRow] | MoveColumns,
                  events: Sequence[dict[str, Any]], faults: Sequence[Fault], duration_s: float,
                  finished_at_ms: int, worker: str) -> None:
        """Add one finished match with its moves (:class:`~bots.records.MoveColumns`, or records) and
        rule events."""
        self.match_ids.append(match_id)
        n = self._add_moves(moves)
        if n:
            if any(not 0 <= s < len(bots) for s in (min(self._seat[-n:]), max(self._seat[-n:]))):
                raise ValueError(f"match {match_id}: a move's seat has no entrant in bots {list(bots)}")
            self._mv_ids.append(match_id)
            self._mv_ends.append(len(self._seat))
            self._mv_bots.append(len(self._bots))
            self._bots.extend(bots)
        ev = self._ev
        for e in events:
            ev["match_id"].append(match_id)
            ev["deal"].append(e["deal"])
            ev["ply"].append(e["ply"])
            ev["event"].append(e["event"])
            seat = e.get("seat")
            ev["seat"].append(seat)
            ev["bot"].append(bots[seat] if isinstance(seat, int) and 0 <= seat < len(bots) else None)
            ev["data"].append(_EVENT_JSON.encode({k: v for k, v in e.items() if k not in _EVENT_KEYS}))
        first = faults[0] if faults else None
        ma = self._ma
        ma["match_id"].append(match_id)
        ma["group_id"].append(group_id)
        ma["options"].append(options)
        ma["seed"].append(seed)
        ma["players"].append(players)
        ma["max_deals"].append(max_deals)
        ma["board"].append(board)
        ma["rotation"].append(rotation)
        lists = self._lists
        for name, values in (("bots", bots), ("bot_refs", bot_refs), ("teams", teams),
                             ("scores", map(float, scores)), ("ranking", ranking),
                             ("engine_ranking", engine_ranking)):
            flat, ends = lists[name]
            flat.extend(values)
            ends.append(len(flat))
        ma["deals_played"].append(deals_played)
        cells, row_ends, sheet_ends = self._sheet
        for r in sheet:
            cells.extend(map(float, r))
            row_ends.append(len(cells))
        sheet_ends.append(len(row_ends) - 1)
        ma["engine_version"].append(engine_version(self.game))
        ma["moves"].append(n)
        ma["status"].append(first.outcome if first else "ok")
        ma["fault_seat"].append(first.seat if first else None)
        ma["fault_reason"].append(first.detail()[:REASON_CHARS] if first else None)
        flat, ends = lists["faults"]
        flat.extend({"seat": f.seat, "kind": f.outcome, "ply": f.ply, "reason": f.detail()[:REASON_CHARS]}
                    for f in faults)
        ends.append(len(flat))
        ma["duration_s"].append(duration_s)
        ma["finished_at"].append(finished_at_ms)
        ma["worker"].append(worker)

    def _moves_columns(self) -> dict[str, Any]:
        """The ``moves`` columns but ``tournament``, as Arrow arrays: the per-move lists converted once
        (numpy for the integers), the runs decoded and ``bot`` taken from each match's entrants."""
        n = len(self._seat)
        ends = np.array(self._mv_ends, np.int64)
        lengths = np.diff(ends, prepend=0)
        seat = np.fromiter(self._seat, np.int8, n)

        def runs(values: list[Any], typ: pa.DataType, run_ends: list[int]) -> pa.Array:
            return pc.run_end_decode(pa.RunEndEncodedArray.from_arrays(
                pa.array(run_ends, pa.int64()), pa.array(values, typ)))

        if self._ply is None:   # each match's row numbers
            ply = np.arange(n, dtype=np.int32) - np.repeat(ends - lengths, lengths).astype(np.int32)
        else:
            ply = np.fromiter(self._ply, np.int32, n)
        bot = pa.array(self._bots, pa.string()).take(
            pa.array(np.repeat(np.array(self._mv_bots, np.int64), lengths) + seat))
        types = {f.name: f.type for f in MOVES_SCHEMA}
        return {
            "match_id": runs(self._mv_ids, pa.string(), self._mv_ends),
            "deal": runs(self._runs["deal"], types["deal"], self._run_ends),
            "ply": pa.array(ply),
            "seat": pa.array(seat),
            "bot": bot,
            "phase": runs(self._runs["phase"], types["phase"], self._run_ends),
            "action": pa.array(self._action, types["action"]),
            "legal_count": pa.array(np.fromiter(self._legal, np.int32, n)),
            "think_us": pa.array(np.fromiter(self._think, np.int64, n)),
            "status": runs(self._runs["status"], types["status"], self._run_ends),
        }

    def _matches_columns(self) -> dict[str, Any]:
        """The ``matches`` columns but ``tournament``: the list columns from their flat values."""
        def lists(ends: list[int], values: Any, typ: pa.DataType) -> pa.Array:
            return pa.ListArray.from_arrays(pa.array(ends, pa.int32()), values, type=typ)

        cols: dict[str, Any] = dict(self._ma)
        for name, (flat, ends) in self._lists.items():
            typ = MATCHES_SCHEMA.field(name).type
            cols[name] = lists(ends, pa.array(flat, typ.value_type), typ)
        cells, row_ends, sheet_ends = self._sheet
        typ = MATCHES_SCHEMA.field("sheet").type
        cols["sheet"] = lists(sheet_ends, lists(row_ends, pa.array(cells, pa.float64()), typ.value_type), typ)
        return cols

    def tables(self) -> dict[str, pa.Table]:
        """The three tables of this batch, with their schemas (``game`` is in the path, not here)."""
        out: dict[str, pa.Table] = {}
        for name, cols in (("moves", self._moves_columns()), ("events", dict(self._ev)),
                           ("matches", self._matches_columns())):
            schema = SCHEMAS[name]
            n = len(cols["match_id"])
            cols["tournament"] = pa.repeat(pa.scalar(self.tournament, pa.string()), n)
            out[name] = pa.Table.from_pydict(cols, schema=schema)
        return out


@functools.cache
def engine_digest() -> str:
    """The SHA-256 (64 hex digits) of every engine source file (``engine/**/*.py``, paths and bytes,
    sorted): :func:`engine_version` without a game is its first 12 digits, and it keys the shipped
    table of game versions (:func:`shipped_game_versions`).  About 2 ms, once per process."""
    import engine
    root = Path(engine.__file__).parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def engine_version(game: str | None = None) -> str:
    """12 hex digits of the SHA-256 of the rules code: with ``game``, of that game's module and of
    every engine module it imports, directly or through another (:func:`game_sources`), so adding or
    changing another game leaves its version as it was; without, of every engine source file.  Two
    logs of a game with the same value were played by the same rules code, so a replay must
    reproduce them exactly.

    A game's version is read from the table shipped in ``tournaments/games_index.json`` when that
    table was written from this very engine (:func:`shipped_game_versions`: the whole engine's
    digest matches), else made from the sources (:func:`sources_version`: 50-80 ms of parsing per
    game, which every tournament worker paid on its first batch of each game); once per process
    either way."""
    if game is None:
        return engine_digest()[:12]
    v = shipped_game_versions().get(game)
    return v if v is not None else sources_version(game)


SHIPPED_INDEX = Path(__file__).with_name("games_index.json")
"""``tournaments.games_index.INDEX_PATH``: where ``make regen`` writes the game versions."""


@functools.cache
def shipped_game_versions() -> dict[str, str]:
    """Game id -> :func:`sources_version` as ``make regen`` wrote them into
    ``tournaments/games_index.json`` (its ``engine`` entry), if that entry's ``digest`` is this
    engine's :func:`engine_digest` (every engine source byte for byte the same, so every game's
    import closure and bytes too); else empty (an edited engine: the versions come from the
    sources).  The file is read here, not through :mod:`tournaments.games_index`, which imports this
    module to write the entry."""
    try:
        data = json.loads(SHIPPED_INDEX.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entry = data.get("engine") if isinstance(data, dict) else None
    if not isinstance(entry, dict) or entry.get("digest") != engine_digest():
        return {}
    versions = entry.get("versions")
    if not isinstance(versions, dict):
        return {}
    return {k: v for k, v in versions.items() if isinstance(k, str) and isinstance(v, str)}


def sources_version(game: str) -> str:
    """:func:`engine_version` of ``game`` made from the sources: the SHA-256 over the paths (from
    the engine folder) and bytes of :func:`game_sources`, 12 hex digits."""
    import engine
    root = Path(engine.__file__).parent
    h = hashlib.sha256()
    for f in game_sources(game):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def game_sources(game: str) -> list[Path]:
    """The source files of ``game``'s rules: its module and the engine modules it imports, directly
    or through another (read from the sources, nothing imported), sorted.  A ``ValueError`` for an
    unknown game."""
    import ast

    import engine
    from engine.core import GAME_MODULES, discover
    if game not in GAME_MODULES:
        discover()
        if game not in GAME_MODULES:
            raise ValueError(f"unknown game {game!r}")
    base = Path(engine.__file__).parent.parent

    def source(module: str) -> Path | None:
        p = base.joinpath(*module.split("."))
        for f in (p.with_suffix(".py"), p / "__init__.py"):
            if f.is_file():
                return f
        return None

    seen: dict[str, Path] = {}
    todo = [GAME_MODULES[game]]
    while todo:
        module = todo.pop()
        f = source(module)
        if module in seen or f is None:
            continue
        seen[module] = f
        for node in ast.walk(ast.parse(f.read_bytes())):
            if isinstance(node, ast.Import):
                todo.extend(a.name for a in node.names if a.name.split(".")[0] == "engine")
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                    and node.module.split(".")[0] == "engine":
                todo.append(node.module)
                todo.extend(f"{node.module}.{a.name}" for a in node.names)  # submodules imported by name
    return sorted(seen.values())


# ------------------------------------------------------------------------------------------ writing
def part_bytes(table: pa.Table) -> bytes:
    """A part file's bytes: zstd, the schema version in its metadata, a CRC on every data page
    (readers verify them: :func:`read_part`)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(_META), sink, compression="zstd", write_page_checksum=True)
    return bytes(sink.getvalue().to_pybytes())


def write_part(path: Path, table: pa.Table, fsync: bool = True) -> str:
    """Write ``table`` to ``path`` atomically: a hidden temporary file in the same directory, then
    ``os.replace``.  A concurrent or repeated write of the same part leaves one whole file.  Returns
    the SHA-256 of the file's bytes.  An ``OSError`` (a full disk) names ``path`` and leaves no
    temporary file."""
    data = part_bytes(table)
    write_atomic(path, data, fsync)
    return hashlib.sha256(data).hexdigest()


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")


def write_atomic(path: Path, data: bytes, fsync: bool, mode: int = 0o644) -> None:
    tmp = _tmp_name(path)
    try:
        _write_tmp(path, tmp, data, fsync, mode)
        os.replace(tmp, path)
    except OSError as e:
        raise named_oserror(e, path) from None
    finally:
        tmp.unlink(missing_ok=True)


def named_oserror(e: OSError, path: Path) -> OSError:
    """``e`` naming the file it was writing (a failed ``write`` or ``flush`` names none)."""
    if e.filename is not None or e.errno is None:
        return e
    return OSError(e.errno, e.strerror, str(path))


def _write_tmp(path: Path, tmp: Path, data: bytes, fsync: bool, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as f:
        f.write(data)
        f.flush()
        if fsync:
            os.fsync(f.fileno())


class Fenced(Exception):
    """A batch of an earlier run of the tournament tried to commit after a new run began."""


def commit_batch(root: str | os.PathLike[str], log: BatchLog, fsync: bool = True,
                 epoch: int = 0) -> list[Path]:
    """Write the batch's three parts (matches last, the commit record); return their paths.

    Before the matches part, the batch's digest record (:func:`digest_path`: the SHA-256 and row count
    of each of its three parts) is written: :func:`check_batch` compares the files against it.
    With ``epoch`` > 0 the matches part is renamed into place only while the tournament's epoch file
    (locked shared) still holds ``epoch``; otherwise the batch's parts are deleted and :class:`Fenced`
    raised.  Epoch 0 writes without the fence (synthetic logs, tests)."""
    name = part_name(log.tournament, log.match_ids, epoch)
    tables = log.tables()
    paths: list[Path] = []
    sha: dict[str, str] = {}
    for t in TABLES[:-1]:
        p = part_path(root, t, log.game, name)
        sha[t] = write_part(p, tables[t], fsync=fsync)
        paths.append(p)
    mpath = part_path(root, "matches", log.game, name)
    data = part_bytes(tables["matches"])
    sha["matches"] = hashlib.sha256(data).hexdigest()
    sizes = {t: p.stat().st_size for t, p in zip(TABLES[:-1], paths, strict=True)}
    record = {"tournament": log.tournament, "rows": {t: tables[t].num_rows for t in TABLES}, "sha256": sha,
              **record_sizes(name, {**sizes, "matches": len(data)})}
    dpath = digest_path(mpath)
    write_atomic(dpath, (json.dumps(record, sort_keys=True) + "\n").encode(), fsync)
    paths.append(dpath)
    if epoch:
        _fenced_write(root, log.tournament, epoch, mpath, data, len(tables["matches"]), paths, fsync)
    else:
        write_atomic(mpath, data, fsync)
    paths.remove(dpath)
    paths.append(mpath)
    return paths


def _fenced_write(root: str | os.PathLike[str], tournament: str, epoch: int, path: Path, data: bytes,
                  rows: int, written: list[Path], fsync: bool) -> None:
    tmp = _tmp_name(path)
    try:
        try:
            _write_tmp(path, tmp, data, fsync)
        except OSError as e:
            raise named_oserror(e, path) from None
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
                     f"(epoch {epoch}); its {rows} matches are left to the new run")
    finally:
        tmp.unlink(missing_ok=True)



def stage_batch(store: Any, log: BatchLog, epoch: int, attempt: str) -> list[str]:
    """On an object store (``store``: a :class:`tournaments.store.ObjectStore`): write the batch's three
    parts and digest record under ``_staging/<tkey>/e<epoch>/<attempt>/`` (the final layout beneath it)
    and return their keys relative to that folder, matches part last.  Nothing here is a commit: only
    the driver holding the epoch's lease publishes them (:func:`tournaments.ledger.publish_batch`)."""
    name = part_name(log.tournament, log.match_ids, epoch)
    tables = log.tables()
    stage = staging_dir("", log.tournament, epoch, attempt)
    keys: list[str] = []
    sha: dict[str, str] = {}
    blobs: dict[str, bytes] = {}
    for t in TABLES:
        blobs[t] = part_bytes(tables[t])
        sha[t] = hashlib.sha256(blobs[t]).hexdigest()
    record = {"tournament": log.tournament, "rows": {t: tables[t].num_rows for t in TABLES}, "sha256": sha,
              **record_sizes(name, {t: len(b) for t, b in blobs.items()})}
    mpath = part_path("", "matches", log.game, name)
    for t in TABLES[:-1]:
        k = part_path("", t, log.game, name)
        store.put(stage / k, blobs[t])
        keys.append(k.as_posix())
    d = digest_path(mpath)
    store.put(stage / d, (json.dumps(record, sort_keys=True) + "\n").encode())
    keys.append(d.as_posix())
    store.put(stage / mpath, blobs["matches"])
    keys.append(mpath.as_posix())
    return keys


class PartError(Exception):
    """A part file that does not read whole, or a batch that is incomplete or not this tournament's; the
    message is one line naming the file."""


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _arrow_buffer(data: bytes) -> pa.Buffer:
    """``data`` copied into memory that Arrow owns (no reference back to a Python object)."""
    buf = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(buf).write(data)
    return buf


def read_part(path: Path, table: str, columns: list[str] | None = None,
              data: bytes | None = None, files: Files | None = None) -> pa.Table:
    """Decode a part of ``table`` whole (every row group and column, the data pages' CRCs checked where
    the writer recorded them) and check its columns against the schema; :class:`PartError` otherwise.
    ``files``: where ``path`` is (an object store read in place; default the local filesystem)."""
    fs = files.fs if files is not None else None
    try:
        # Bytes are copied into an Arrow buffer and read on this thread: a reader that still held a
        # Python buffer when a pool thread released it aborted the interpreter at exit (pyarrow 23).
        source = pa.BufferReader(_arrow_buffer(data)) if data is not None else str(path)
        with pq.ParquetFile(source, page_checksum_verification=True,
                            filesystem=fs if data is None else None) as pf:
            schema = pf.schema_arrow
            got = pf.read(columns=columns, use_threads=False)
    except FileNotFoundError:
        raise PartError(f"{path}: missing part file") from None
    except (OSError, pa.ArrowException, ValueError, EOFError) as e:   # truncated, empty, junk, bad CRC
        raise PartError(f"{path}: unreadable Parquet part, truncated or corrupted ({_one_line(e)[:300]})"
                        ) from None
    added = _schema_checked(path, table, schema)
    for c in added:   # a part written before the column was added: nulls, where the schema has it
        if columns is None or c in columns:
            f = SCHEMAS[table].field(c)
            at = min(SCHEMAS[table].get_field_index(c), got.num_columns)
            got = got.add_column(at, f, pa.nulls(got.num_rows, f.type))
    return got


def _schema_checked(path: Path, table: str, schema: pa.Schema) -> list[str]:
    """The :data:`ADDED_COLUMNS` a part of ``table`` with ``schema`` lacks; :class:`PartError` when a
    column of the schema is missing or of another type."""
    names = set(schema.names)
    added = [c for c in ADDED_COLUMNS.get(table, ()) if c not in names]
    bad = [f.name for f in SCHEMAS[table] if f.name not in added
           and (f.name not in names or schema.field(f.name).type != f.type)]
    if bad:   # (a column beyond the schema's, e.g. a ``game`` a rewrite took from the path, is no harm)
        raise PartError(f"{path}: not a {table} part of schema version {SCHEMA_VERSION}: missing or mistyped "
                        f"column(s) {', '.join(bad)}")
    return added


def part_match_rows(path: Path, table: str, data: bytes) -> tuple[int, set[str], dict[str, int]]:
    """(rows, tournaments, rows per match id) of a moves or events part's bytes ``data``: its
    ``tournament`` and ``match_id`` columns decoded row group by row group (page CRCs checked, the
    schema's columns and types), so memory holds one row group's two columns, not the part's;
    :class:`PartError` when it does not decode."""
    rows, owners, per_match = 0, set[str](), dict[str, int]()
    try:
        with pq.ParquetFile(pa.BufferReader(_arrow_buffer(data)), page_checksum_verification=True) as pf:
            _schema_checked(path, table, pf.schema_arrow)
            for i in range(pf.num_row_groups):
                got = pf.read_row_group(i, columns=["tournament", "match_id"], use_threads=False)
                rows += got.num_rows
                owners.update(got.column("tournament").unique().to_pylist())
                counts = pc.value_counts(got.column("match_id"))   # (per match, not a string per row)
                for x, n in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(),
                                strict=True):
                    per_match[x] = per_match.get(x, 0) + n
    except (OSError, pa.ArrowException, ValueError, EOFError) as e:   # truncated, empty, junk, bad CRC
        raise PartError(f"{path}: unreadable Parquet part, truncated or corrupted ({_one_line(e)[:300]})"
                        ) from None
    return rows, owners, per_match


@dataclass
class BatchCheck:
    """What :func:`check_batch` found about one batch (its matches part and the parts of the same name)."""
    game: str
    name: str
    match_ids: list[str]
    """Empty when the matches part does not read."""
    problems: list[str]
    """One line each, naming the file; empty: the batch is whole and this tournament's."""
    unreadable: list[str] = field(default_factory=list)
    """Those of :attr:`problems` that mean a part is missing or does not decode (the others: it decodes
    but changed since its commit, disagrees with the other parts, or holds another tournament's rows)."""
    matches: pa.Table | None = None
    """The decoded matches part (None when it does not read)."""
    foreign: bool = False
    """The matches part reads whole but holds rows of another tournament: reported, never counted."""

    def fail(self, problem: str) -> None:
        self.problems.append(problem)
        self.unreadable.append(problem)


def check_batch(root: str | os.PathLike[str], game: str, name: str, tournament: str | None = None,
                full: bool = True, files: Files | None = None) -> BatchCheck:
    """Certify one committed batch: its matches part decodes whole with the expected schema, holds each
    match once and only rows of ``tournament`` (``None``: of the tournament its name's key says); its
    moves and events parts exist; every part agrees with the batch's digest record (SHA-256 and rows,
    when the writer recorded one).  With ``full`` the moves and events parts are decoded whole too and
    their rows checked against the matches part (tournament, match ids, ``matches.moves`` per match);
    otherwise only their footers' row counts are.  ``files``: where the log is (an object store read in
    place, ``root`` its :attr:`~tournaments.store.StoreFiles.root`; default the local filesystem)."""
    out = _check_batch(root, game, name, tournament, full, files or LocalFiles(root))
    if isinstance(files, StoreFiles):   # name the objects by URI
        out.problems = [files.shown(x) for x in out.problems]
        out.unreadable = [files.shown(x) for x in out.unreadable]
    return out


def _check_batch(root: str | os.PathLike[str], game: str, name: str, tournament: str | None,
                 full: bool, files: Files) -> BatchCheck:
    base = Path(root)
    mpath = part_path(base, "matches", game, name)
    out = BatchCheck(game, name, [], [])
    record, rec_problem = digest_record(mpath, files)
    if rec_problem:
        out.problems.append(rec_problem)
    data = {}
    for t in TABLES if full else ("matches",):
        p = part_path(base, t, game, name)
        try:
            data[t] = files.read_bytes(p)
        except FileNotFoundError:
            continue
        except OSError as e:
            out.fail(f"{p}: cannot read ({e.strerror or e})")
            continue
        want = (record or {}).get("sha256", {}).get(t)
        if want is not None and hashlib.sha256(data[t]).hexdigest() != want:
            out.problems.append(f"{p}: its bytes changed since the batch was committed (SHA-256 differs "
                                "from the batch's digest record)")
    if "matches" not in data:
        out.fail(f"{mpath}: missing part file")
        return out
    try:
        m = read_part(mpath, "matches", data=data["matches"])
    except PartError as e:
        out.fail(str(e))
        return out
    out.matches = m
    ids = m.column("match_id").to_pylist()
    owners = sorted(set(m.column("tournament").to_pylist()))
    expect = [tournament] if tournament is not None else [o for o in owners
                                                          if name.startswith(f"part-{tournament_key(o)}-")]
    foreign = [o for o in owners if o not in expect]
    if foreign or not expect:
        out.foreign = True
        whose = tournament if tournament is not None else "the tournament its name is keyed to"
        out.problems.append(f"{mpath}: holds rows of tournament {', '.join(map(repr, foreign or owners))}, "
                            f"not of {whose}: not counted")
        return out
    out.match_ids = ids
    if len(set(ids)) != len(ids):
        out.problems.append(f"{mpath}: holds a match more than once")
    per_match = dict(zip(ids, m.column("moves").to_pylist(), strict=True))
    rows = (record or {}).get("rows", {})
    for t in ("moves", "events"):
        p = part_path(base, t, game, name)
        if not files.is_file(p):
            out.fail(f"{p}: missing part file (its batch's matches part {mpath} exists: the batch "
                     "is incomplete)")
            continue
        n: int | None = None
        if full and t in data:
            try:
                n, tournaments, got = part_match_rows(p, t, data.pop(t))
            except PartError as e:
                out.fail(str(e))
                continue
            if any(x not in expect for x in tournaments):
                out.problems.append(f"{p}: holds rows of another tournament than its matches part")
            if not set(got) <= set(per_match):
                out.problems.append(f"{p}: holds rows of matches its matches part does not hold")
            if t == "moves" and any(got.get(k, 0) != v for k, v in per_match.items()):
                out.problems.append(f"{p}: its rows per match disagree with matches.moves of {mpath}")
        elif not full:
            try:
                n = pq.read_metadata(str(p), filesystem=files.fs).num_rows
            except (OSError, pa.ArrowException, ValueError) as e:
                out.fail(f"{p}: unreadable Parquet part, truncated or corrupted ({_one_line(e)[:300]})")
                continue
            if t == "moves" and n != sum(per_match.values()):
                out.problems.append(f"{p}: {n} rows but matches.moves of {mpath} sums to "
                                    f"{sum(per_match.values())}")
        if n is not None and t in rows and rows[t] != n:
            out.problems.append(f"{p}: {n} rows but the batch's digest record says {rows[t]}")
    if "matches" in rows and rows["matches"] != m.num_rows:
        out.problems.append(f"{mpath}: {m.num_rows} rows but the batch's digest record says "
                            f"{rows['matches']}")
    return out


def record_sizes(name: str, sizes: dict[str, int]) -> dict[str, Any]:
    """The digest record's fields that let a reader check a batch without reading it: ``part``, the
    batch's part name (a record copied with its batch under another name names the original), and
    ``bytes``, each part's size.  A record with them was written by a writer whose parts have every
    column of :data:`SCHEMAS` (the :data:`ADDED_COLUMNS` too).  A reader of an object store compares the
    sizes with its listing instead of reading every part (``tournaments.analysis.views``)."""
    return {"part": name, "bytes": dict(sizes)}


def digest_record(mpath: Path, files: Files | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """(the digest record of the batch whose matches part is ``mpath``, or a problem with it): none
    for a batch written before digest records; a missing one where the tournament's other batches of
    the game have theirs is a problem (it was deleted)."""
    dpath = digest_path(mpath)
    files = files or LocalFiles(dpath.parent)
    try:
        rec = json.loads(files.read_text(dpath))
    except FileNotFoundError:
        # a batch written before digest records (or by another writer) has none; but where the
        # tournament's other batches of the game have theirs, a missing one was deleted
        key = mpath.name.split("-", 2)[:2]
        if len(key) == 2 and files.glob(dpath.parent, f"{key[0]}-{key[1]}-*.json"):
            return None, (f"{dpath}: missing digest record (the tournament's other batches have theirs: "
                          "the batch's parts cannot be certified)")
        return None, None
    except (OSError, ValueError) as e:
        return None, f"{dpath}: unreadable digest record ({_one_line(e)[:200]})"
    if not isinstance(rec, dict) or not isinstance(rec.get("sha256"), dict) or not isinstance(
            rec.get("rows"), dict):
        return None, f"{dpath}: not a digest record"
    return rec, None


def record_digests(matches_part: Path) -> None:
    """Write the digest record of a batch from its parts as they are now: for a deliberate edit of a
    committed part (tests that forge a log to show the rule checks catch it)."""
    sha, rows, sizes = {}, {}, {}
    for t in TABLES:
        p = sibling_part(matches_part, t)
        if p.is_file():
            sha[t] = hashlib.sha256(p.read_bytes()).hexdigest()
            rows[t] = pq.read_metadata(p).num_rows
            sizes[t] = p.stat().st_size
    record = {"tournament": None, "rows": rows, "sha256": sha, **record_sizes(matches_part.name, sizes)}
    write_atomic(digest_path(matches_part), (json.dumps(record, sort_keys=True) + "\n").encode(), False)


def scan_matches(root: str | os.PathLike[str], tournament: str,
                 files: Files | None = None) -> tuple[set[str], list[BatchCheck]]:
    """(ids of the matches in ``tournament``'s whole batches, the batches that are not whole): the
    matches parts decoded and checked against their digest record, the moves and events parts'
    presence and row counts (:func:`check_batch` without ``full``)."""
    done: set[str] = set()
    bad: list[BatchCheck] = []
    where: dict[str, Path] = {}
    for p in committed_parts(root, tournament, files=files):
        c = check_batch(root, part_game(p), p.name, tournament, full=False, files=files)
        if not c.problems:
            twice = [x for x in c.match_ids if x in done]
            if twice:   # a batch copied under another name: each match counts once
                line = f"{p}: holds {len(twice)} match(es) already in {where[twice[0]]} (e.g. {twice[0]}): " \
                       "not counted twice"
                c.problems.append(files.shown(line) if files is not None else line)
        if c.problems:
            bad.append(c)
        else:
            done.update(c.match_ids)
            where.update((x, p) for x in c.match_ids)
    return done, bad


def logged_engine_versions(root: str | os.PathLike[str], tournament: str) -> dict[str, int]:
    """The engine versions (:func:`engine_version`) that played ``tournament``'s committed matches
    under ``root`` -> how many matches each.  A part that does not decode is left to
    :func:`scan_matches` and :func:`repair`, which report it."""
    out: dict[str, int] = {}
    for versions in logged_engine_versions_by_game(root, tournament).values():
        for v, n in versions.items():
            out[v] = out.get(v, 0) + n
    return out


def logged_engine_versions_by_game(root: str | os.PathLike[str],
                                   tournament: str) -> dict[str, dict[str, int]]:
    """Per game, the engine versions that played ``tournament``'s committed matches of that game
    -> how many matches each (see :func:`logged_engine_versions`)."""
    out: dict[str, dict[str, int]] = {}
    for p in committed_parts(root, tournament):
        try:
            col = pq.read_table(p, columns=["engine_version"]).column("engine_version").to_pylist()
        except (OSError, pa.ArrowException):
            continue
        game = part_game(p)
        by = out.setdefault(game, {})
        for v in col:
            by[v] = by.get(v, 0) + 1
    return out


def finished_matches(root: str | os.PathLike[str], tournament: str) -> set[str]:
    """Ids of the matches of ``tournament`` whose results are committed under ``root``; :class:`PartError`
    naming the first batch that is not whole (see :func:`scan_matches`, :func:`repair`)."""
    done, bad = scan_matches(root, tournament)
    if bad:
        raise PartError(damage_line(bad, root))
    return done


def damage_line(bad: Sequence[BatchCheck], root: str | os.PathLike[str]) -> str:
    """One line for damaged batches: the first problem, how many more, and how to repair."""
    first = bad[0].problems[0]
    more = sum(len(c.problems) for c in bad) - 1
    return (first + (f" (and {more} more problem(s))" if more else "") +
            f"; `cardarena tournament repair {root}` quarantines the damaged batches and `--resume` "
            "replays their matches")



def schema_version_of(path: str | os.PathLike[str]) -> int | None:
    """The schema version a part file was written with (None if it carries none)."""
    meta = pq.read_schema(path).metadata or {}
    v = meta.get(b"cardarena.schema_version")
    return int(v) if v is not None else None


