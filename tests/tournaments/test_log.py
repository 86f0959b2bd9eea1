"""The Parquet layout: the schema data/README.md documents, atomic parts, hive partitions that
DuckDB, Polars and pyarrow read as-is, and the clean-up of an interrupted batch."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine import GAMES
from tests.tournaments.conftest import FOUR, raw_spec
from tournaments.ledger import clean_orphans
from tournaments.log import SCHEMA_VERSION, SCHEMAS, TABLES, finished_matches, schema_version_of
from tournaments.paths import committed_parts
from tournaments.runner import Batch, run_batch
from tournaments.schedule import plan
from tournaments.spec import parse_spec

README = Path(__file__).resolve().parents[2] / "data" / "README.md"


@pytest.fixture
def two_games(tmp_path: Path) -> Path:
    """A log of two games (three batches) under tmp_path/out."""
    games = GAMES[:2]
    spec = parse_spec(raw_spec(tmp_path, games=games, bots=FOUR))
    for i, gp in enumerate(plan(spec)):
        ms = list(gp.matches())
        g = gp.game
        for chunk in (ms[:2], ms[2:4]) if i == 0 else (ms[:3],):
            run_batch(Batch("t", str(tmp_path / "out"), g.id, g.options, g.players, g.max_deals, tuple(chunk),
                            {e.label: e.bot for e in spec.bots}))
    return tmp_path / "out"


def documented_columns(table: str) -> list[str]:
    """Column names of ``table``'s section in data/README.md (``a``, ``b`` rows count as two)."""
    text = README.read_text()
    section = text.split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    cols: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            cols += re.findall(r"`([a-z_0-9]+)`", line.split("|")[1])
    return cols


@pytest.mark.parametrize("table", TABLES)
def test_schema_is_the_documented_one(table: str) -> None:
    assert f"schema version {SCHEMA_VERSION}" in README.read_text()
    assert sorted(documented_columns(table)) == sorted([*SCHEMAS[table].names, "game"])


def test_parts_carry_the_schema_version_and_no_temporary_file_remains(two_games: Path) -> None:
    for t in TABLES:
        parts = sorted((two_games / t).rglob("*.parquet"))
        assert len(parts) == 3
        for p in parts:
            assert schema_version_of(p) == SCHEMA_VERSION
            assert pq.read_schema(p).remove_metadata() == SCHEMAS[t]
        assert not [p for p in (two_games / t).rglob("*") if p.name.startswith(".")]
        if t == "matches":   # each batch's digest record, outside the table trees
            assert {p.name for p in (two_games / "_digests").rglob("*")} == {
                *(f"{p.name}.json" for p in parts), *(p.parent.name for p in parts)}


def test_duckdb_polars_and_pyarrow_read_the_layout_as_is(two_games: Path) -> None:
    per_game = {g: 0 for g in GAMES[:2]}
    for r in pq.read_table(two_games / "matches").to_pylist():
        per_game[r["game"]] += 1
    assert sorted(per_game.values()) == [3, 4]
    for t in TABLES:
        arrow = pq.read_table(two_games / t)
        duck = duckdb.sql(f"SELECT game, count(*) FROM read_parquet('{two_games}/{t}/**/*.parquet') "
                          "GROUP BY game ORDER BY game").fetchall()
        polars = (pl.scan_parquet(two_games / t, hive_partitioning=True).group_by("game").len()
                  .sort("game").collect().rows())
        games = arrow.column("game").to_pylist()
        by_game = sorted((g, games.count(g)) for g in set(games))
        assert duck == by_game == [tuple(r) for r in polars]
    moves = duckdb.sql(f"SELECT m.game, count(*) FROM read_parquet('{two_games}/moves/**/*.parquet') m "
                       f"JOIN read_parquet('{two_games}/matches/**/*.parquet') x USING (match_id) "
                       "GROUP BY m.game").fetchall()
    assert sum(n for _, n in moves) == pq.read_table(two_games / "moves").num_rows


def test_orphans_of_an_interrupted_batch_are_cleaned(two_games: Path) -> None:
    done = finished_matches(two_games, "t")
    assert len(done) == 7
    # a batch killed between its renames: moves and events written, matches not; and a temporary file
    victim = committed_parts(two_games, "t")[0]
    victim.unlink()
    tmp = victim.with_name(f".{victim.name}.123-abc.tmp")
    tmp.write_bytes(b"partial")
    removed = clean_orphans(two_games, "t")
    assert sorted(p.parent.parent.name for p in removed) == ["_digests", "events", "matches", "moves"]
    assert len(finished_matches(two_games, "t")) < 7
    for t in TABLES:
        assert len(list((two_games / t).rglob("*.parquet"))) == 2
    # another tournament's parts are not touched
    assert clean_orphans(two_games, "other") == []


def test_a_batch_of_a_killed_run_commits_before_the_resume_reads_or_never(tmp_path: Path) -> None:
    """The race test (b) of issue 5 found: a killed driver's worker finishing after the resumed run
    read the finished set.  Epochs fence it off: its parts are deleted, the new run plays its matches."""
    from tournaments.log import Fenced
    from tournaments.paths import part_epoch
    from tournaments.runners import Sizer, batches, prepare, run_tournament

    spec = parse_spec(raw_spec(tmp_path, games=[GAMES[0]], bots=FOUR))
    first = prepare(spec)
    assert first.epoch == 1
    early, late = list(batches(first, Sizer(1.0, first=3)))[:2]
    run_batch(early)                  # committed while its driver lived
    first.release()                   # the driver is SIGKILLed: its lock goes, its workers may not

    second = prepare(spec, resume=True)
    assert second.epoch == 2
    assert second.done == set(early.match_ids)
    with pytest.raises(Fenced, match=re.escape("a new run (epoch 2) began after this batch's (epoch 1)")):
        run_batch(late)               # the orphan worker finishes after the resume read the done set
    for t in TABLES:                  # it left nothing behind, not even its moves and events
        names = [p.name for p in (tmp_path / "out" / t).rglob("*") if p.is_file()]
        assert all(part_epoch(n) == 1 for n in names) and len(names) == 1, names
    second.release()

    s = run_tournament(spec, resume=True, executor="inline", progress=False)
    ids = pq.read_table(tmp_path / "out" / "matches").column("match_id").to_pylist()
    assert len(ids) == len(set(ids)) == s.total
    assert set(late.match_ids) <= set(ids)


def test_clean_orphans_before_an_epoch_spares_the_current_run(two_games: Path) -> None:
    """At the end of a run only fenced-off epochs' orphans go; a live writer's parts are never touched."""
    from tournaments.paths import part_name

    victim = committed_parts(two_games, "t")[0]
    ids = pq.read_table(victim, columns=["match_id"]).column("match_id").to_pylist()
    moves = victim.parent.parent.parent / "moves" / victim.parent.name
    for epoch in (1, 2):
        (moves / part_name("t", ids, epoch)).write_bytes((moves / victim.name).read_bytes())
    (moves / f".{part_name('t', ids, 2)}.99-abcd.tmp").write_bytes(b"half")
    (moves / f".{part_name('t', ids, 1)}.98-abcd.tmp").write_bytes(b"half")
    removed = sorted(p.name for p in clean_orphans(two_games, "t", before_epoch=2))
    assert removed == sorted([f".{part_name('t', ids, 1)}.98-abcd.tmp", part_name("t", ids, 1)])
    assert (moves / part_name("t", ids, 2)).exists()


def test_a_fault_is_one_record_from_the_sandbox_to_the_log() -> None:
    """One record type for a fault (bots.faults.Fault) from the match loop to the log, one exception
    form of it (BotFault, what a sandbox raises); the log keeps its seat, outcome (as ``kind``), ply and
    ``detail()`` (the action given, the reason, the traceback excerpt), an engine error too."""
    import bots.match
    import bots.sandbox
    import tournaments.log
    import tournaments.runner
    from bots.faults import BotFault, Fault
    from tournaments.log import REASON_CHARS, BatchLog

    assert bots.sandbox.BotFault is BotFault
    assert bots.match.Fault is tournaments.log.Fault is tournaments.runner.Fault is Fault
    bot = Fault(2, "illegal", "not legal now: follow hearts", "act", 1, 7, 2, "play 2C", "tb line")
    engine = Fault(None, "error", "RuntimeError: boom" + "x" * REASON_CHARS, "engine", 1, 9, 0)
    assert bot.detail() == "'play 2C': not legal now: follow hearts\ntb line"
    log = BatchLog("t", "hartenjagen")
    log.add_match(match_id="m", group_id="g", options="{}", seed=1, players=4, max_deals=1, board=0,
                  rotation=0, bots=["a", "b", "c", "d"], bot_refs=["a", "b", "c", "d"], teams=[0, 1, 2, 3],
                  scores=[0, 0, 0, 0], ranking=[1, 2, 3, 4], engine_ranking=[1, 2, 3, 4], deals_played=1,
                  sheet=[[0, 0, 0, 0]], moves=[], events=[], faults=[engine, bot], duration_s=0.0,
                  finished_at_ms=0, worker="w")
    row = log.tables()["matches"].to_pylist()[0]
    cut = engine.reason[:REASON_CHARS]
    assert (row["status"], row["fault_seat"], row["fault_reason"]) == ("error", None, cut)
    assert row["faults"] == [{"seat": None, "kind": "error", "ply": 9, "reason": cut},
                             {"seat": 2, "kind": "illegal", "ply": 7, "reason": bot.detail()}]
    with pytest.raises(ValueError, match="no seat's fault"):
        _ = engine.bot_seat


def _add(log: Any, match_id: str, r: Any, moves: Any, bots: list[str]) -> None:
    n = len(bots)
    log.add_match(match_id=match_id, group_id="g", options="{}", seed=1, players=n, max_deals=1, board=0,
                  rotation=0, bots=bots, bot_refs=bots, teams=list(range(n)), scores=r.state.scores(),
                  ranking=r.placement, engine_ranking=r.state.ranking(), deals_played=r.state.deal_no,
                  sheet=r.state.score_sheet(), moves=moves, events=r.state.events, faults=r.faults,
                  duration_s=0.5, finished_at_ms=1, worker="w")


@pytest.mark.parametrize("gid", GAMES)
def test_moves_from_columns_and_from_records_write_the_same_part_bytes(gid: str) -> None:
    """The match loop hands the log each match's moves column by column (MoveColumns: deal, phase and
    status as runs, ply the row number, the actions from the history) or as MoveRecord rows
    (``on_move``, synthetic logs); either way, in any mix, the tables and the part files' bytes are
    those of the row-by-row writer: the same values, row order and types.  Faults (the faulting move's
    status, the fallback's rows) and a match without moves included."""
    from bots.match import MoveColumns, MoveRecord, make_players, play_match
    from engine import load_game
    from tests.tournaments.test_runner import Faulty
    from tournaments.log import BatchLog, part_bytes

    game = load_game(gid)
    n = game.check_players(None)
    logs = [BatchLog("t", gid) for _ in range(3)]   # columns; records; columns and records in turn
    statuses: set[str] = set()
    for k in range(4):
        def players(k: int = k) -> list[Any]:
            ps = make_players(game, ["random"] * n, 100 + k)
            if k % 2:
                ps[k % n] = Faulty(k, 1 + k // 2, "crash" if k == 1 else "illegal")
            return ps
        records: list[MoveRecord] = []
        r = play_match(game, players(), 100 + k, 1, on_move=records.append, contain_errors=True)
        cols = MoveColumns()
        play_match(game, players(), 100 + k, 1, log=cols, contain_errors=True)
        cols.think_us[:] = [m.think_us for m in records]   # the only column two plays may differ in
        if k == 2:   # a match without moves
            records, cols = [], MoveColumns()
        statuses.update(m.status for m in records)
        bots = [f"e{(s + k) % n}" for s in range(n)]
        _add(logs[0], f"m{k}", r, cols, bots)
        _add(logs[1], f"m{k}", r, records, bots)
        _add(logs[2], f"m{k}", r, records if k % 2 else cols, bots)
    assert "ok" in statuses
    if gid == "hartenjagen":   # (a short deal of another game may end before the faulty seat moves)
        assert statuses == {"ok", "crash", "illegal", "fallback"}
    tables = [log.tables() for log in logs]
    for t in TABLES:
        rows = tables[1][t].to_pylist()
        assert tables[0][t].to_pylist() == rows == tables[2][t].to_pylist()
        # the row-by-row writer's table: built from the rows themselves
        by_rows = part_bytes(pa.Table.from_pylist(rows, schema=SCHEMAS[t]))
        assert part_bytes(tables[0][t]) == part_bytes(tables[1][t]) == part_bytes(tables[2][t]) == by_rows, t
    moves = tables[0]["moves"].to_pylist()
    for k in (0, 1, 3):   # ply is each match's history index; bot the seat's entrant
        mine = [m for m in moves if m["match_id"] == f"m{k}"]
        assert [m["ply"] for m in mine] == list(range(len(mine)))
        assert all(m["bot"] == f"e{(m['seat'] + k) % n}" for m in mine)


def test_an_engine_apply_that_does_not_append_one_action_ends_the_match_unlogged() -> None:
    """The log numbers a match's moves by their index in ``state.history`` and takes the actions from
    it; an engine whose ``apply`` appended two actions (or none) would misnumber them.  The match loop
    refuses it: contained, the match is an engine error with no moves logged; otherwise ValueError."""
    from bots.match import MoveColumns, make_players, play_match
    from engine import load_game

    real = load_game("hartenjagen")

    class Twice:   # a state whose third apply appends its action twice
        def __init__(self, state: Any) -> None:
            self.state, self.n = state, 0

        def __getattr__(self, name: str) -> Any:
            return getattr(self.state, name)

        def apply(self, action: str) -> None:
            self.state.apply(action)
            self.n += 1
            if self.n == 3:
                self.state.history.append(action)

    class Game:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def new_match(self, **kw: Any) -> Any:
            return Twice(real.new_match(**kw))

    game: Any = Game()
    cols = MoveColumns()
    r = play_match(game, make_players(game, ["random"] * 4, 3), 3, 1, log=cols, contain_errors=True)
    assert r.error is not None and "exactly one" in r.error
    assert len(cols) == 0 and not cols.seat and not cols.run_start
    with pytest.raises(ValueError, match="exactly one"):
        play_match(game, make_players(game, ["random"] * 4, 3), 3, 1, log=MoveColumns())


def test_a_move_whose_seat_has_no_entrant_is_refused() -> None:
    """``moves.bot`` is taken from the match's entrants by seat: a seat beyond them is an error, never
    another match's entrant."""
    from bots.match import MoveRecord
    from tournaments.log import BatchLog

    log = BatchLog("t", "hartenjagen")

    state = SimpleNamespace(scores=lambda: [0.0] * 4, ranking=lambda: [1] * 4, score_sheet=lambda: [],
                            deal_no=1, events=[])
    r = SimpleNamespace(state=state, placement=[1, 1, 1, 1], faults=[])
    _add(log, "a", r, [MoveRecord(1, 0, 0, "play", "play 2C", 13, 1, "ok")], ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match="no entrant"):
        _add(log, "b", r, [MoveRecord(1, 0, 4, "play", "play 2C", 13, 1, "ok")], ["a", "b", "c", "d"])
