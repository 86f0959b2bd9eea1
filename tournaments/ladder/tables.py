"""The ladder's own tables, append-only Parquet beside ``matches``, ``moves`` and ``events``::

    OUT/groups/part-<tkey>-<first seq>-<hash>.parquet          one row per scheduled group
    OUT/ratings_online/part-<tkey>-<first seq>-<hash>.parquet  one row per (rated group, version)
    OUT/board/part-<tkey>-<snapshot>.parquet                   one row per (snapshot, scope, version)

Each file is written whole (a temporary file renamed into place, :func:`tournaments.log.write_part`)
and never changed; a table is the union of its files.  ``cardarena query OUT`` has them as views.
A ``groups`` row is written before its group is submitted: a row whose matches are not committed is
in flight or abandoned, and the next ``ladder run`` submits it again under the same ids.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tournaments.log import PartError, read_part, write_part
from tournaments.paths import committed_parts, part_game, tournament_key

SIDE_TABLES = ("groups", "ratings_online", "board")

GROUPS_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("group_id", pa.string(), nullable=False),
    pa.field("seq", pa.int64(), nullable=False),
    pa.field("game", pa.string(), nullable=False),
    pa.field("board", pa.int32(), nullable=False),
    pa.field("arrangement", pa.list_(pa.string()), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
    pa.field("probability", pa.float64(), nullable=False),
    pa.field("rating_seq", pa.int64(), nullable=False),
    pa.field("rerun_of", pa.string()),
    pa.field("created_at", pa.timestamp("ms", tz="UTC"), nullable=False),
])
RATINGS_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("group_id", pa.string(), nullable=False),
    pa.field("seq", pa.int64(), nullable=False),
    pa.field("game", pa.string(), nullable=False),
    pa.field("ref", pa.string(), nullable=False),
    pa.field("rank", pa.int32(), nullable=False),
    pa.field("mu_before", pa.float64(), nullable=False),
    pa.field("sigma_before", pa.float64(), nullable=False),
    pa.field("mu_after", pa.float64(), nullable=False),
    pa.field("sigma_after", pa.float64(), nullable=False),
    pa.field("model", pa.string(), nullable=False),
    pa.field("openskill", pa.string(), nullable=False),
    pa.field("tau", pa.float64(), nullable=False),
    pa.field("mu0", pa.float64(), nullable=False),
    pa.field("sigma0", pa.float64(), nullable=False),
    pa.field("beta", pa.float64(), nullable=False),
    pa.field("kappa", pa.float64(), nullable=False),
    pa.field("limit_sigma", pa.bool_(), nullable=False),
])
BOARD_SCHEMA = pa.schema([
    pa.field("tournament", pa.string(), nullable=False),
    pa.field("snapshot", pa.int64(), nullable=False),
    pa.field("at", pa.timestamp("ms", tz="UTC"), nullable=False),
    pa.field("watermark_seq", pa.int64(), nullable=False),
    pa.field("watermark_group", pa.string()),
    pa.field("watermark_groups", pa.int64()),
    pa.field("revision", pa.string(), nullable=False),
    pa.field("scope", pa.string(), nullable=False),
    pa.field("ref", pa.string(), nullable=False),
    pa.field("author", pa.string(), nullable=False),
    pa.field("state", pa.string(), nullable=False),
    pa.field("strength", pa.float64()),
    pa.field("lo95", pa.float64()),
    pa.field("hi95", pa.float64()),
    pa.field("rank", pa.int32()),
    pa.field("rank_lo", pa.int32()),
    pa.field("rank_hi", pa.int32()),
    pa.field("groups", pa.int64(), nullable=False),
    pa.field("matches", pa.int64(), nullable=False),
    pa.field("fault_rate", pa.float64()),
    pa.field("provisional", pa.bool_(), nullable=False),
    pa.field("mu", pa.float64()),
    pa.field("sigma", pa.float64()),
])
SCHEMAS = {"groups": GROUPS_SCHEMA, "ratings_online": RATINGS_SCHEMA, "board": BOARD_SCHEMA}


def table_files(root: Path, table: str, tournament: str) -> list[Path]:
    d = root / table
    if not d.is_dir():
        return []
    return sorted(d.glob(f"part-{tournament_key(tournament)}-*.parquet"))


def append(root: Path, table: str, tournament: str, rows: Sequence[dict[str, Any]], first: int,
           fsync: bool = True) -> Path | None:
    """Write ``rows`` as one new file of ``table``; ``first``: the number that orders it (the first
    group's seq, the snapshot).  The name hashes the content, so writing the same rows twice leaves
    one file."""
    if not rows:
        return None
    t = pa.Table.from_pylist(list(rows), schema=SCHEMAS[table])
    digest = hashlib.sha256(repr(sorted(map(repr, rows))).encode()).hexdigest()[:12]
    path = root / table / f"part-{tournament_key(tournament)}-{first:012d}-{digest}.parquet"
    write_part(path, t, fsync=fsync)
    return path


def read(root: Path, table: str, tournament: str) -> list[dict[str, Any]]:
    """Every row of ``table`` for ``tournament``, in file order (one line naming a damaged file)."""
    out: list[dict[str, Any]] = []
    for p in table_files(root, table, tournament):
        try:
            t = pq.read_table(p)
        except (OSError, pa.ArrowException) as e:
            raise PartError(f"{p}: unreadable ladder table part ({' '.join(str(e).split())[:200]})") from None
        out += [r for r in t.to_pylist() if r["tournament"] == tournament]
    return out


@dataclass
class Committed:
    """The committed matches of a ladder's groups: group id -> its match rows."""

    by_group: dict[str, list[dict[str, Any]]]


MATCH_COLUMNS = ["match_id", "group_id", "rotation", "bots", "teams", "ranking", "status", "faults",
                 "finished_at", "tournament"]


def committed(root: Path, tournament: str, seen: set[Path] | None = None) -> Committed:
    """The matches of every committed batch of ``tournament`` (a batch is one group); with ``seen``,
    only the parts not in it (which are added to it)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for p in committed_parts(root, tournament):
        if seen is not None and p in seen:
            continue
        t = read_part(p, "matches", columns=MATCH_COLUMNS)
        if seen is not None:   # once read: a part whose read is interrupted is read again next time
            seen.add(p)
        game = part_game(p)
        for r in t.to_pylist():
            if r["tournament"] != tournament:
                continue
            r["game"] = game
            by.setdefault(r["group_id"], []).append(r)
    for rows in by.values():
        rows.sort(key=lambda r: r["rotation"])
    return Committed(by)
