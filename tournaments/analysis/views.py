"""Read a tournament directory: DuckDB views ``moves``, ``matches``, ``events``, and Polars frames.

The layout and columns are ``data/README.md``'s (schema version 1).  :class:`TournamentLog` checks the
directory before anything reads it: it must hold a ``matches/`` folder (or a ``_tournaments/``
manifest folder), every part file must have a readable Parquet footer with the schema's columns, every
``matches`` part must decode whole (every column, page CRCs checked, the schema's types), and every
committed batch (a ``matches`` part) must have its ``moves`` and ``events`` parts.  (``cardarena verify``
certifies more: every part decoded, and each part's bytes against the digest recorded at commit.)  Anything
else raises :class:`LogError` with a message that names the file; nothing is skipped silently.  In an
object store a batch whose digest record names its part and sizes is checked against the listing
instead, without reading its parts (:meth:`TournamentLog._vouch`).

For notebooks::

    from tournaments.analysis import open_log
    log = open_log("data/demo")
    log.matches()                       # polars.DataFrame, one row per match (``game`` included)
    log.moves(game="hartenjagen")       # the moves of one game
    log.events(match_id="0123456789abcdef")
    log.sql("SELECT bot, avg(think_us) FROM moves GROUP BY bot")   # any DuckDB SQL -> polars
    con = log.connect()                 # a duckdb connection with the three views

In SQL the three views are ``moves``, ``matches`` and ``events``; ``game`` is a column of each (from
the hive partition ``game=<id>``).  A ladder's log (docs/ladder.md) has the views ``groups``,
``ratings_online`` and ``board`` too.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from tournaments.log import (
    ADDED_COLUMNS,
    SCHEMA_VERSION,
    SCHEMAS,
    TABLES,
    PartError,
    digest_record,
    read_part,
)
from tournaments.paths import partitions, table_dir, tournaments_dir
from tournaments.store import Files, LocalFiles, StoreError, StoreFiles, log_files, restore_uri

if TYPE_CHECKING:
    import duckdb
    import polars as pl


SIDE_TABLES = ("groups", "ratings_online", "board")
"""A ladder's append-only tables beside the three (one folder of flat part files each): views too."""


class LogError(Exception):
    """A directory that is not a tournament, or a part file that is missing or unreadable."""


@dataclass(frozen=True)
class Part:
    table: str
    game: str
    path: Path


@dataclass
class TournamentLog:
    """A checked tournament directory.  ``tables`` limits the check (and the views) to some tables;
    :meth:`only_match` gives the log of one match (its batch's parts, views filtered to it)."""

    root: Path
    tables: tuple[str, ...] = TABLES
    check: bool = True
    parts: dict[str, list[Part]] = field(default_factory=dict)
    match_id: str | None = None
    """When set, the views hold this match's rows only (see :meth:`only_match`)."""
    duplicates: bool = True
    """Refuse a match that two batches hold (a batch copied under another name would count twice)."""
    digests: bool = True
    """Refuse a part read (of ``tables``) whose bytes are not those its batch committed (its digest
    record), and a batch whose record was deleted.  ``verify`` (and a dashboard that runs it) reports
    these as violations itself."""
    orphans: bool = False
    """Also read moves and events parts without their batch's matches part (``verify`` reports them);
    by default a reader follows the commit record and leaves them out (see data/README.md)."""
    files: Files | None = None
    """Where the log is: a local directory, or an object store read in place (``root`` is then the
    store's path ``BUCKET/PREFIX``, :attr:`uri` its URI); set from ``root`` when not given."""
    uri: str | None = None
    """The store's URI (with its query) for a log in an object store, else None."""
    vouched: set[tuple[str, str]] = field(default_factory=set)
    """The batches (game, part name) the check took on their digest record's word (an object store:
    :meth:`_vouch`); their parts have every column of the schema (no footer was read)."""
    only_games: tuple[str, ...] | None = None
    """Only these games' parts: the views hold their rows and the checks read only their parts (a
    question about one game of a large log then reads that game's files alone).  None: every game."""
    sample: dict[tuple[str, str], frozenset[str]] | None = None
    """When set, the views hold only these matches of the committed batches named ((game, part name) ->
    match ids; ``verify --sample``), plus every row of a moves or events part that has no matches part
    (an orphan, read with :attr:`orphans`).  Each table is then read once: only the named batches' parts
    and, in each, only the row groups whose ``match_id`` statistics may hold a sampled match, filtered
    to those matches as they are decoded, into an Arrow table the views read (:func:`sampled_table`)."""

    def __post_init__(self) -> None:
        if self.files is None:
            text = restore_uri(self.root)
            try:   # an object store's URI: read in place through pyarrow.fs (tournaments.store)
                self.files = log_files(text)
            except StoreError as e:
                raise LogError(str(e)) from None
            if isinstance(self.files, StoreFiles):
                self.uri = self.files.store.uri
        self.root = self.files.root
        try:
            self._open()
        except (LogError, StoreError) as e:   # name the URI, not the store's path
            raise LogError(self.files.shown(str(e))) from None

    @property
    def location(self) -> str:
        """The log as its user names it: the directory, or the store's URI (for messages and commands)."""
        return self.uri if self.uri is not None else str(self.root)

    def _open(self) -> None:
        root = self.root
        files = self.reader
        if isinstance(files, LocalFiles):
            if not root.exists():
                raise LogError(f"{root}: no such directory")
            if not root.is_dir():
                raise LogError(f"{root} is not a directory (expected a tournament directory, see "
                               "data/README.md)")
        if not files.is_dir(table_dir(root, "matches")) and not files.is_dir(tournaments_dir(root)):
            raise LogError(f"{root} is not a tournament directory: it has no matches/ folder "
                           "(expected matches/game=<id>/part-*.parquet, as data/README.md describes)")
        for t in TABLES:
            self.parts[t] = _list_parts(root, t, files, self.only_games)
        if self.only_games is not None:
            have = {p.game for p in self.parts["matches"]}
            absent = [g for g in self.only_games if g not in have]
            if absent:
                logged = {g for g, _ in partitions(root, "matches", files)}
                raise LogError(f"{root}: no logged match of game {', '.join(absent)} (it has: "
                               f"{', '.join(sorted(logged)) or 'none'})")
        # readers follow the commit record: a moves or events part counts only beside its batch's matches
        # part (an orphan of a killed writer, or an old batch a compaction is replacing, is not read)
        committed = {(p.game, p.path.name) for p in self.parts["matches"]}
        for t in ("moves", "events"):
            if not self.orphans:
                self.parts[t] = [p for p in self.parts[t] if (p.game, p.path.name) in committed]
        if self.check:
            self._check()

    @property
    def reader(self) -> Files:
        """How this log's files are read (:attr:`files`, set when the log was opened)."""
        assert self.files is not None   # set by __post_init__
        return self.files

    # ------------------------------------------------------------------ checking
    def _check(self) -> None:
        files = self.reader
        self.vouched = self._vouch() if isinstance(files, StoreFiles) and self.digests else set()
        rows: dict[tuple[str, str, str], int] = {}
        for t in self.tables:
            for p in self.parts[t]:
                if (p.game, p.path.name) not in self.vouched:
                    rows[(t, p.game, p.path.name)] = check_part(p.path, t, files)
        seen: dict[str, Path] = {}
        for p in self.parts["matches"]:   # the commit records, small: decoded whole, page CRCs checked
            if (p.game, p.path.name) in self.vouched or not (self.duplicates or self.digests):
                continue   # (verify opens with neither: its certify decodes every part itself)
            try:
                data = files.read_bytes(p.path)
            except FileNotFoundError:
                raise LogError(f"{p.path}: missing part file (a dangling link?)") from None
            except OSError as e:
                raise LogError(f"{p.path}: cannot read ({_one_line(e)})") from None
            try:
                ids = read_part(p.path, "matches", data=data).column("match_id").to_pylist()
            except PartError as e:
                raise LogError(str(e)) from None
            for x in ids if self.duplicates else ():   # a batch copied under another name
                if x in seen:
                    raise LogError(f"{p.path}: holds match {x}, which {seen[x]} holds too (a batch copied "
                                   f"under another name?): not counted twice; `cardarena tournament "
                                   f"repair` quarantines the copy")
                seen[x] = p.path
            if self.digests:
                self._check_digests(p, data, rows)
        # every committed batch has its moves and events parts (written before the matches part)
        for p in self.parts["matches"]:
            for t in ("moves", "events"):
                sib = self.root / t / p.path.parent.name / p.path.name
                if not files.is_file(sib):
                    raise LogError(f"{sib}: missing part file (its batch's matches part {p.path} exists; "
                                   "a batch writes moves, events, then matches)")

    def _vouch(self) -> set[tuple[str, str]]:
        """In an object store: the batches (game, part name) whose digest record vouches for their parts
        without reading them.  A record that names the batch's part (``part``) and each part's size
        (``bytes``, :func:`tournaments.log.record_sizes`) is compared with the listing: a size that
        differs (a part overwritten or cut short since its commit) or a record naming another part (a
        batch copied under another name with its record) is refused, in one line naming the file.  So a
        question reads the digest records, small, and then only the parts its SQL scans (``game`` prunes
        the other games' files) instead of every footer and every matches part of the log.  Batches
        whose record lacks these fields (written before them) are checked as on disk.  ``verify``
        hashes every byte and reads every match id."""
        files = self.reader
        assert isinstance(files, StoreFiles)
        out: set[tuple[str, str]] = set()
        for p in self.parts["matches"]:
            record, problem = digest_record(p.path, files)
            if problem:
                raise LogError(problem)
            sizes = (record or {}).get("bytes")
            if record is None or "part" not in record or not isinstance(sizes, dict):
                continue
            if record["part"] != p.path.name:
                raise LogError(f"{p.path}: its batch's digest record names part {record['part']} (a batch "
                               "copied under another name?): not counted twice; `cardarena tournament "
                               "repair` quarantines the copy")
            for t in TABLES:
                f = self.root / t / p.path.parent.name / p.path.name
                have, want = files.size(f), sizes.get(t)
                if have is not None and want is not None and have != want:
                    raise LogError(f"{f}: {have} bytes but the batch's digest record says {want}: its bytes "
                                   "changed since the batch was committed; `cardarena tournament repair` "
                                   "quarantines it")
            out.add((p.game, p.path.name))
        return out

    def _check_digests(self, p: Part, data: bytes, rows: dict[tuple[str, str, str], int]) -> None:
        """The parts of ``p``'s batch that this log reads, against the batch's digest record (SHA-256 of
        the bytes it committed): a part overwritten since is refused.  A batch without a record while
        the tournament's others have theirs lost it (:func:`tournaments.log.digest_record`).

        In an object store, read in place, only the matches part (``data``, read whole anyway) is
        hashed; the moves and events parts are checked against the record's row counts by their
        footers (hashing them would download the whole log for every question): ``verify`` hashes
        every byte."""
        record, problem = digest_record(p.path, self.reader)
        if problem:
            raise LogError(problem)
        if record is None:
            return
        for t in self.tables:
            f = self.root / t / p.path.parent.name / p.path.name
            want = record["sha256"].get(t)
            if want is None:
                continue
            if t == "matches":
                if hashlib.sha256(data).hexdigest() != want:
                    raise LogError(f"{f}: its bytes changed since the batch was committed (SHA-256 differs "
                                   "from the batch's digest record); `cardarena tournament repair` "
                                   "quarantines it")
                continue
            if isinstance(self.reader, StoreFiles):
                n, rec = rows.get((t, p.game, p.path.name)), record["rows"].get(t)
                if n is not None and rec is not None and n != rec:
                    raise LogError(f"{f}: {n} rows but the batch's digest record says {rec}; `cardarena "
                                   "tournament repair` quarantines it")
                continue
            if not f.is_file():
                continue
            h = hashlib.sha256()
            with open(f, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            if h.hexdigest() != want:
                raise LogError(f"{f}: its bytes changed since the batch was committed (SHA-256 differs from "
                               "the batch's digest record); `cardarena tournament repair` quarantines it")

    def only_match(self, match_id: str) -> TournamentLog:
        """The log of one match: the batches whose ``matches`` part holds ``match_id`` (a match's moves
        and events are written in its own batch, see data/README.md) and views filtered to its rows.
        Reads only the ``match_id`` column of each matches part; the result has no parts when no batch
        holds the match."""
        holding = [p for p in self.parts["matches"] if _holds(p.path, match_id, self.reader)]
        names = {(p.game, p.path.name) for p in holding}
        sub = self.sub(check=False, match_id=match_id)
        sub.parts = {t: [p for p in self.parts[t] if (p.game, p.path.name) in names] for t in TABLES}
        if self.check:
            sub._check()
        return sub

    def sub(self, **kw: Any) -> TournamentLog:
        """This log opened again (listed again) with other settings (``tables``, ``check``, ``match_id``,
        ``duplicates``, ``digests``, ``orphans``), in the same place."""
        args: dict[str, Any] = {"tables": self.tables, "check": self.check, "duplicates": self.duplicates,
                                "digests": self.digests, "orphans": self.orphans, "match_id": self.match_id,
                                "only_games": self.only_games, "sample": self.sample}
        args.update(kw)
        files = self.reader
        if isinstance(files, StoreFiles):
            files = StoreFiles(files.store)   # a fresh listing
        return TournamentLog(self.root, files=files, uri=self.uri, **args)

    @property
    def games(self) -> list[str]:
        """The games with at least one logged match."""
        return sorted({p.game for p in self.parts["matches"]})

    # ------------------------------------------------------------------ DuckDB
    def connect(self, threads: int | None = None) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection (in memory) with the views ``moves``, ``matches`` and ``events``."""
        import duckdb
        con = duckdb.connect(":memory:")
        con.execute("SET enable_progress_bar = false")
        if threads:
            con.execute(f"SET threads TO {int(threads)}")
        where = "" if self.match_id is None else f" WHERE match_id = {_quote(self.match_id)}"
        store = self.reader if isinstance(self.reader, StoreFiles) else None
        for t in sorted(self.tables, key=lambda t: t != "matches"):   # matches first: events' fallback
            files = [str(p.path) for p in self.parts[t]]
            if self.sample is not None and files:
                con.register(f"_sample_{t}", sampled_table(self, t))
                src = f"_sample_{t}"
            elif store is not None and files:
                # in place: an Arrow dataset over pyarrow.fs, into which DuckDB pushes its projection and
                # filters (``game`` prunes whole folders; row groups are skipped by their statistics)
                con.register(f"_arrow_{t}", _dataset(store, t, files))
                src = f"_arrow_{t}"
            else:
                lst = ", ".join(_quote(f) for f in files)
                src = f"read_parquet([{lst}], hive_partitioning = true, union_by_name = true)"
            # (a part of a vouched batch has events.bot: its record's writer wrote every column)
            unknown = [str(p.path) for p in self.parts[t] if (p.game, p.path.name) not in self.vouched]
            if files and t == "events" and not all(
                    "bot" in pq.read_schema(f, filesystem=self.reader.fs).names for f in unknown):
                has = len(unknown) < len(files) or any(
                    "bot" in pq.read_schema(f, filesystem=self.reader.fs).names for f in unknown)
                con.execute(_old_events_view(src, has, where, "matches" in self.tables))
            elif files and (store is not None or self.sample is not None):
                con.execute(f"CREATE VIEW {t} AS SELECT * FROM {src}{where}")
            elif files:
                lst = ", ".join(_quote(f) for f in files)
                con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet([{lst}], "
                            f"hive_partitioning = true){where}")
            else:
                empty = pa.schema([*list(SCHEMAS[t]), pa.field("game", pa.string())]).empty_table()
                con.register(f"_empty_{t}", empty)
                con.execute(f"CREATE VIEW {t} AS SELECT * FROM _empty_{t}")
        if "matches" in self.tables:
            con.execute(DEALS_VIEW)
        for t in SIDE_TABLES:   # a ladder's tables (tournaments/ladder/tables.py)
            folder = self.root / t
            if store is not None:   # in place, as the three tables: one listing of the folder
                found = [str(f) for f in store.glob(folder, "part-*.parquet")] if store.is_dir(folder) else []
                if found:
                    con.register(f"_arrow_{t}", _side_dataset(store, t, found))
                    con.execute(f"CREATE VIEW {t} AS SELECT * FROM _arrow_{t}")
                continue
            side = sorted(str(f) for f in folder.glob("part-*.parquet")) if folder.is_dir() else []
            if side:
                lst = ", ".join(_quote(f) for f in side)
                con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet([{lst}], union_by_name = true)")
        return con

    def rows(self, query: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        """Run DuckDB SQL over the views; the result as one dict per row.  A query DuckDB refuses (a
        part that does not decode) raises :class:`LogError` with its first line."""
        import duckdb
        con = self.connect()
        try:
            cur = con.execute(query, params or [])
            cols = [d[0] for d in cur.description or []]
            return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
        except duckdb.Error as e:
            text = str(e).strip()
            raise LogError(text.splitlines()[0] if text else type(e).__name__) from None
        finally:
            con.close()

    # ------------------------------------------------------------------ Polars
    def sql(self, query: str, params: list[Any] | None = None) -> pl.DataFrame:
        """Run DuckDB SQL over the views; the result as a Polars DataFrame."""
        con = self.connect()
        try:
            return con.execute(query, params or []).pl()
        finally:
            con.close()

    def _frame(self, table: str, game: str | None, match_id: str | None,
               columns: list[str] | None) -> pl.DataFrame:
        cols = ", ".join(f'"{c}"' for c in columns) if columns else "*"
        where, params = [], []
        if game is not None:
            where.append("game = ?")
            params.append(game)
        if match_id is not None:
            where.append("match_id = ?")
            params.append(match_id)
        order = {"moves": " ORDER BY match_id, ply", "events": " ORDER BY match_id, ply",
                 "matches": " ORDER BY game, match_id"}[table]
        q = f"SELECT {cols} FROM {table}" + (" WHERE " + " AND ".join(where) if where else "")
        if not columns:
            q += order
        return self.sql(q, params)

    def matches(self, game: str | None = None, match_id: str | None = None,
                columns: list[str] | None = None) -> pl.DataFrame:
        """One row per finished match (columns of data/README.md, plus ``game``)."""
        return self._frame("matches", game, match_id, columns)

    def moves(self, game: str | None = None, match_id: str | None = None,
              columns: list[str] | None = None) -> pl.DataFrame:
        """One row per action, ordered by match and ply."""
        return self._frame("moves", game, match_id, columns)

    def events(self, game: str | None = None, match_id: str | None = None,
               columns: list[str] | None = None) -> pl.DataFrame:
        """One row per rule event, ordered by match and ply."""
        return self._frame("events", game, match_id, columns)


DEALS_VIEW = """
CREATE VIEW deals AS
SELECT m.tournament, m.game, m.match_id, d.deal, m.players, m.bots, m.bot_refs,
       m.sheet[d.deal] AS scores, m.deals_played
FROM matches m, LATERAL (SELECT unnest(range(1, len(m.sheet) + 1)) AS deal) d
"""
"""``deals``: one row per match and finished deal: ``deal`` (from 1, as ``moves.deal``), ``scores`` (that
deal's row of ``matches.sheet``, each seat's score in the game's units), the match's bots."""


def _old_events_view(src: str, has: bool, where: str, with_matches: bool) -> str:
    """The ``events`` view over parts (``src``, a DuckDB table expression; ``has``: some of them have
    the column) of which some were written before ``events.bot`` was added: the seat's entrant from
    ``matches.bots`` (DuckDB lists count from 1: ``bots[seat + 1]``) where a part has no ``bot``."""
    own = "e.bot" if has else "NULL::VARCHAR"
    fill = "m.bots[e.seat + 1]" if with_matches else "NULL::VARCHAR"
    cols = "e.* EXCLUDE (bot)" if has else "e.*"
    join = " LEFT JOIN (SELECT match_id, bots FROM matches) m USING (match_id)" if with_matches else ""
    filt = where.replace("match_id", "e.match_id")
    return f"CREATE VIEW events AS SELECT {cols}, COALESCE({own}, {fill}) AS bot FROM {src} e{join}{filt}"


def open_log(root: str | os.PathLike[str], tables: tuple[str, ...] = TABLES, check: bool = True,
             digests: bool = True, games: tuple[str, ...] | None = None) -> TournamentLog:
    """Open and check a tournament directory (see :class:`TournamentLog`); ``games``: only theirs."""
    return TournamentLog(Path(restore_uri(root)), tables=tuple(tables), check=check, digests=digests,
                         only_games=tuple(games) if games is not None else None)


def _quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _dataset(store: StoreFiles, table: str, paths: list[str]) -> Any:
    """The committed parts ``paths`` of ``table`` in a store as one Arrow dataset (nothing read until
    scanned), with the schema's columns and ``game`` from the Hive folder, as ``read_parquet`` gives
    them locally (a part written before a column was added reads nulls there)."""
    import pyarrow.dataset as ds
    schema = pa.schema([*list(SCHEMAS[table]), pa.field("game", pa.string())])
    part = ds.partitioning(pa.schema([pa.field("game", pa.string())]), flavor="hive")
    return ds.dataset(paths, schema=schema, format="parquet", filesystem=store.fs, partitioning=part,
                      partition_base_dir=table_dir(store.root, table).as_posix())


def _side_dataset(store: StoreFiles, table: str, paths: list[str]) -> Any:
    """A ladder table's parts ``paths`` in a store as one Arrow dataset with the table's schema (a part
    written before a column was added reads nulls there, as ``union_by_name`` gives them locally)."""
    import pyarrow.dataset as ds

    from tournaments.ladder.tables import SCHEMAS as LADDER_SCHEMAS
    return ds.dataset(paths, schema=LADDER_SCHEMAS[table], format="parquet", filesystem=store.fs)


def sampled_pieces(log: TournamentLog, table: str) -> tuple[list[tuple[Part, list[int]]], list[Part]]:
    """What ``table`` a sampled log (:attr:`TournamentLog.sample`) reads, nothing decoded: ((part, row
    groups) for each committed batch with a sampled match: its row groups whose ``match_id`` range in the
    footer's statistics holds one of them; the parts that have no matches part, orphans, read whole)."""
    import bisect
    assert log.sample is not None
    committed = {(p.game, p.path.name) for p in log.parts["matches"]}
    sampled: list[tuple[Part, list[int]]] = []
    orphans: list[Part] = []
    for p in log.parts[table]:
        key = (p.game, p.path.name)
        if key not in committed:   # its rows are violations of their own (moves_without_match)
            orphans.append(p)
            continue
        ids = sorted(log.sample.get(key, ()))
        if not ids:
            continue
        meta = pq.read_metadata(str(p.path), filesystem=log.reader.fs)
        leaves = [meta.schema.column(j).path for j in range(meta.num_columns)]
        col = leaves.index("match_id") if "match_id" in leaves else -1
        keep = []
        for i in range(meta.num_row_groups):
            stats = meta.row_group(i).column(col).statistics if col >= 0 else None
            if stats is None or not stats.has_min_max:
                keep.append(i)
                continue
            at = bisect.bisect_left(ids, stats.min)
            if at < len(ids) and ids[at] <= stats.max:
                keep.append(i)
        if keep:
            sampled.append((p, keep))
    return sampled, orphans


def sampled_table(log: TournamentLog, table: str) -> pa.Table:
    """``table``'s rows of the sampled matches, and every row of its orphan parts, in a sampled log
    (:func:`sampled_pieces`), with the schema's columns and ``game`` (a part written before a column was
    added reads nulls there).  A row group's ``match_id`` column is read first and then each other column
    alone, filtered to the sampled rows as it is decoded: memory holds one decoded column of one row group
    beside the sample, however large the row groups (a compacted one is about 128 MB of Arrow)."""
    assert log.sample is not None
    schema = pa.schema([*list(SCHEMAS[table]), pa.field("game", pa.string())])
    fs = log.reader.fs
    ids = pa.array(sorted({m for v in log.sample.values() for m in v}), pa.string())
    sampled, orphans = sampled_pieces(log, table)
    out = [schema.empty_table()]
    for p, groups in [*sampled, *((o, None) for o in orphans)]:
        try:
            out += _sampled_rows(p, groups, schema, ids, fs)
        except (OSError, pa.ArrowException) as e:
            raise LogError(log.reader.shown(f"{p.path}: unreadable Parquet part, truncated or corrupted "
                                            f"({_one_line(e)})")) from None
    return pa.concat_tables(out)


def _sampled_rows(p: Part, groups: list[int] | None, schema: pa.Schema, ids: pa.Array,
                  fs: Any) -> list[pa.Table]:
    """The rows of part ``p`` in ``groups`` (None: every row group, every row) whose match is in ``ids``,
    column by column (see :func:`sampled_table`)."""
    import pyarrow.compute as pc
    out = []
    with pq.ParquetFile(str(p.path), filesystem=fs) as pf:
        names = set(pf.schema_arrow.names)
        for i in range(pf.num_row_groups) if groups is None else groups:
            mask = None
            if groups is not None:
                mask = pc.is_in(pf.read_row_group(i, columns=["match_id"]).column(0), value_set=ids)
                n = int(pc.sum(mask).as_py() or 0)
                if not n:
                    continue
            else:
                n = pf.metadata.row_group(i).num_rows
            cols: list[Any] = []
            for f in schema:
                if f.name == "game":
                    cols.append(pa.array([p.game] * n, f.type))
                elif f.name not in names:
                    cols.append(pa.nulls(n, f.type))
                else:
                    c = pf.read_row_group(i, columns=[f.name]).column(0)
                    c = c if mask is None else c.filter(mask)
                    cols.append(c if c.type == f.type else c.cast(f.type))
            out.append(pa.Table.from_arrays(cols, schema=schema))
    return out


def _holds(path: Path, match_id: str, files: Files | None = None) -> bool:
    """Does the matches part at ``path`` hold ``match_id``?  (Reads that one column.)"""
    import pyarrow.compute as pc
    try:
        ids = pq.read_table(str(path), columns=["match_id"],
                            filesystem=files.fs if files is not None else None).column("match_id")
    except (OSError, pa.ArrowException) as e:
        raise LogError(f"{path}: unreadable Parquet part, truncated or corrupted ({_one_line(e)})") from None
    return bool(pc.any(pc.equal(ids, match_id)).as_py())


def _list_parts(root: Path, table: str, files: Files | None = None,
                games: tuple[str, ...] | None = None) -> list[Part]:
    """``table``'s part files (only ``games``' folders listed when given)."""
    if files is None or isinstance(files, LocalFiles):
        return [Part(table, game, f) for game, d in partitions(root, table)
                if games is None or game in games for f in sorted(d.glob("*.parquet"))]
    return [Part(table, game, f) for game, d in partitions(root, table, files)
            if games is None or game in games for f in files.glob(d, "*.parquet")]


def check_part(path: Path, table: str, files: Files | None = None) -> int:
    """Raise :class:`LogError` naming ``path`` unless it is a readable part of ``table``'s schema; its
    rows (from the footer) otherwise."""
    if files is None or isinstance(files, LocalFiles):
        if not path.exists():
            raise LogError(f"{path}: missing part file (a dangling link?)")
        if not os.access(path, os.R_OK):
            raise LogError(f"{path}: part file is not readable (permissions)")
    try:
        meta = pq.read_metadata(str(path), filesystem=files.fs if files is not None else None)
        schema = meta.schema.to_arrow_schema()
    except (OSError, pa.ArrowException) as e:
        raise LogError(f"{path}: unreadable Parquet part, truncated or corrupted ({_one_line(e)})") from None
    missing = [f.name for f in SCHEMAS[table]
               if f.name not in schema.names and f.name not in ADDED_COLUMNS.get(table, ())]
    if missing:
        raise LogError(f"{path}: not a {table} part of schema version {SCHEMA_VERSION}: "
                       f"missing column(s) {', '.join(missing)}")
    version = (schema.metadata or {}).get(b"cardarena.schema_version")
    if version is not None and version != str(SCHEMA_VERSION).encode():
        raise LogError(f"{path}: schema version {version.decode()}; this analysis reads version "
                       f"{SCHEMA_VERSION}")
    return int(meta.num_rows)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())
