"""Verification on a pool (issue 25, section 3): ``cardarena verify --workers N`` replays by match group
through the submission loop, with the same report as one worker; a task whose worker died runs again
and the report is the same; ``--sample F`` replays a random fraction, reproducible from its seed, and
states the confidence it gives (0 violations in n: rate below 3/n at 95%)."""
from __future__ import annotations

import json
import math
import os
import signal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tournaments.analysis.verify as verify_mod
from dashboards.app import app
from tournaments.analysis.synth import write_log
from tournaments.analysis.verify import replay_tasks, verify
from tournaments.analysis.views import TournamentLog
from tournaments.log import record_digests, write_part

from .conftest import BOTS

runner = CliRunner()


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vw") / "t"
    write_log(root, ["hartenjagen", "manillen"], BOTS, boards=3, seed=5, max_deals=1, batch_size=6)
    return root


@pytest.fixture
def forged(small_log: Path, tmp_path: Path) -> Path:
    """A copy with one match's scores forged (a replay violation) in each game."""
    import shutil
    root = tmp_path / "t"
    shutil.copytree(small_log, root)
    for game in ("hartenjagen", "manillen"):
        path = sorted((root / "matches" / f"game={game}").glob("*.parquet"))[-1]
        rows = pq.read_table(path).to_pylist()
        schema = pq.read_schema(path)
        rows[0]["scores"] = [s + 1.0 for s in rows[0]["scores"]]
        write_part(path, pa.Table.from_pylist(rows, schema=schema.remove_metadata()), fsync=False)
        record_digests(path)
    return root


def _replay_view(report: verify_mod.VerifyReport) -> tuple[int, int, list[tuple[str, str, str]]]:
    return report.matches, report.moves, sorted((v.check, v.match_id, v.detail) for v in report.violations
                                                if v.check == "replay")


def test_two_workers_give_the_report_of_one(forged: Path) -> None:
    one = verify(forged, workers=1, sql=False)
    two = verify(forged, workers=2, sql=False)
    assert one.matches == pq.read_table(forged / "matches", columns=["match_id"]).num_rows
    assert _replay_view(one) == _replay_view(two)
    assert len({v.match_id for v in two.violations}) == 2


def test_tasks_are_whole_match_groups_and_cover_every_match_once(small_log: Path) -> None:
    log = TournamentLog(small_log)
    tasks, drawn = replay_tasks(log)
    assert drawn is None
    ids = [m for t in tasks for m in t.ids]
    all_ids = pq.read_table(small_log / "matches", columns=["match_id", "group_id"])
    assert sorted(ids) == sorted(all_ids.column("match_id").to_pylist())
    group_of = dict(zip(all_ids.column("match_id").to_pylist(), all_ids.column("group_id").to_pylist(),
                        strict=True))
    owner: dict[tuple[str, str], int] = {}
    for i, t in enumerate(tasks):   # a group's matches in one batch are never split between two tasks
        for m in t.ids:
            assert owner.setdefault((t.name, group_of[m]), i) == i


REAL = verify_mod.run_replay_task


def dies_once(task: verify_mod.ReplayTask) -> verify_mod.ReplayStats | str:
    """The first task to run kills its worker (SIGKILL), once: the marker file says it happened."""
    try:
        fd = os.open(os.environ["CARDARENA_TEST_KILL_MARKER"], os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return REAL(task)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def test_a_killed_worker_s_groups_are_replayed_again_with_the_same_report(
        forged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "killed"
    monkeypatch.setenv("CARDARENA_TEST_KILL_MARKER", str(marker))
    monkeypatch.setattr(verify_mod, "run_replay_task", dies_once)   # the pool forks: workers see it
    report = verify(forged, workers=2, sql=False)
    assert marker.exists() and report.resubmitted >= 1
    monkeypatch.setattr(verify_mod, "run_replay_task", REAL)
    assert _replay_view(report) == _replay_view(verify(forged, workers=1, sql=False))


def test_sample_replays_a_seeded_fraction_and_states_its_confidence(small_log: Path) -> None:
    total = pq.read_table(small_log / "matches", columns=["match_id"]).num_rows
    res = runner.invoke(app, ["verify", str(small_log), "--workers", "1", "--sample", "0.25", "--seed", "7",
                              "--no-sql", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    k = math.ceil(0.25 * total)
    assert data["matches"] == k and data["sample"] == {"fraction": 0.25, "seed": 7, "sampled": k, "of": total}
    assert f"below {3 / k:.3g}" in data["confidence"] and "95%" in data["confidence"]
    again = verify(small_log, workers=2, sql=False, sample=0.25, seed=7)
    assert again.matches == k and again.sample is not None and again.sample.seed == 7
    res = runner.invoke(app, ["verify", str(small_log), "--sample", "0.25", "--no-sql"])
    assert res.exit_code == 0 and "seed " in res.stdout and "--seed" in res.stdout and "95%" in res.stdout
    res = runner.invoke(app, ["verify", str(small_log), "--sample", "0"])
    assert res.exit_code == 2 and "Traceback" not in res.output


def _rank_reversed(root: Path, game: str, ids: set[str]) -> None:
    """Give the matches ``ids`` of ``game`` a ranking other than their engine ranking with status ok (the
    invariant query ranking_without_faults flags it; the replay, which checks engine_ranking, does not),
    their batches' digest records rewritten to match."""
    for path in sorted((root / "matches" / f"game={game}").glob("*.parquet")):
        rows = pq.read_table(path).to_pylist()
        if not ids & {r["match_id"] for r in rows}:
            continue
        for r in rows:
            if r["match_id"] in ids:
                r["ranking"] = [r["players"] - x + 1 for x in r["engine_ranking"]]
        schema = pq.read_schema(path).remove_metadata()
        write_part(path, pa.Table.from_pylist(rows, schema=schema), fsync=False)
        record_digests(path)


def _sql_view(report: verify_mod.VerifyReport) -> list[tuple[str, str, str, str]]:
    return sorted((v.check, v.game, v.match_id, v.detail) for v in report.violations)


def test_sample_sql_finds_a_violation_planted_in_a_sampled_match_and_names_the_sample_and_seed(
        small_log: Path, tmp_path: Path) -> None:
    import shutil
    root = tmp_path / "t"
    shutil.copytree(small_log, root)
    tasks, _ = replay_tasks(TournamentLog(root), sample=0.25, seed=7)
    chosen = {m for t in tasks for m in t.ids}
    games = pq.read_table(root / "matches", columns=["match_id", "game"]).to_pylist()
    inside = next(r["match_id"] for r in games if r["game"] == "hartenjagen" and r["match_id"] in chosen)
    outside = next(r["match_id"] for r in games if r["game"] == "hartenjagen" and r["match_id"] not in chosen)
    _rank_reversed(root, "hartenjagen", {inside, outside})
    full = verify(root, workers=1, replay=False)
    assert {v.match_id for v in full.violations if v.check == "ranking_without_faults"} == {inside, outside}
    res = runner.invoke(app, ["verify", str(root), "--workers", "1", "--sample", "0.25", "--seed", "7",
                              "--json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    found = [v for v in data["violations"] if v["check"] == "ranking_without_faults"]
    assert [v["match_id"] for v in found] == [inside]     # the unsampled match's rows are not queried
    assert data["sample"] == {"fraction": 0.25, "seed": 7, "sampled": len(chosen), "of": len(games)}
    assert data["confidence"].startswith(f"1 violating matches in {len(chosen)} sampled")
    res = runner.invoke(app, ["verify", str(root), "--workers", "1", "--sample", "0.25", "--seed", "7",
                              "--no-replay"])
    assert res.exit_code == 1 and inside in res.stdout and outside not in res.stdout
    assert "sample: 0.25 of the matches, seed 7" in res.stdout


def test_sample_sql_reads_only_the_row_groups_that_hold_sampled_matches(
        small_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The invariant SQL's input is the sample: each table is read once, from the row groups whose
    match_id statistics may hold a sampled match (a compacted log cut into small row groups here),
    filtered to the sampled matches' rows, which is all the queries see."""
    import shutil

    import tournaments.analysis.views as views_mod
    import tournaments.compact as compact_mod
    root = tmp_path / "t"
    shutil.copytree(small_log, root)
    monkeypatch.setattr(compact_mod, "ROW_GROUP_BYTES", 20_000)
    compact_mod.compact(root, "synth", fsync=False)
    moves_part = next((root / "moves" / "game=hartenjagen").glob("*.parquet"))
    meta = pq.read_metadata(moves_part)
    assert meta.num_row_groups >= 3
    log = TournamentLog(root, orphans=True)
    mpart = next(p for p in log.parts["matches"] if p.game == "hartenjagen")
    matches = pq.read_table(mpart.path, columns=["match_id", "moves"]).to_pylist()
    one = matches[len(matches) // 2]
    log.sample = {(mpart.game, mpart.path.name): frozenset({one["match_id"]})}
    sampled, orphans = views_mod.sampled_pieces(log, "moves")
    assert orphans == [] and [p.path for p, _ in sampled] == [moves_part]
    ids = pq.read_table(moves_part, columns=["match_id"]).column("match_id").to_pylist()
    per_group = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    holding, start = [], 0
    for i, n in enumerate(per_group):
        if one["match_id"] in ids[start:start + n]:
            holding.append(i)
        start += n
    assert sampled[0][1] == holding and len(holding) < len(per_group)
    assert views_mod.sampled_table(log, "moves").num_rows == one["moves"]
    assert log.rows("SELECT count(*) AS n FROM moves") == [{"n": one["moves"]}]

    read: dict[str, int] = {}
    real = views_mod.sampled_table

    def counting(log: TournamentLog, table: str) -> pa.Table:
        out = real(log, table)
        read[table] = read.get(table, 0) + out.num_rows
        return out

    monkeypatch.setattr(views_mod, "sampled_table", counting)
    report = verify(root, workers=1, replay=False, sample=0.1, seed=3)
    tasks, drawn = replay_tasks(TournamentLog(root), sample=0.1, seed=3)
    chosen = {m for t in tasks for m in t.ids}
    every = pq.read_table(root / "matches", columns=["match_id", "moves"]).to_pylist()
    assert report.sample == drawn and report.queries
    assert [v for v in report.violations if v.check != "integrity"] == []   # (synth writes no manifest)
    assert read["matches"] == len(chosen) < len(every)
    assert read["moves"] == sum(r["moves"] for r in every if r["match_id"] in chosen)


def test_a_sample_of_every_match_reports_what_the_full_run_reports(small_log: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """--sample 1: the same violations as no sample, an orphan part's rows and a planted one included,
    with the SQL in one chunk of sampled matches or several."""
    import shutil
    root = tmp_path / "t"
    shutil.copytree(small_log, root)
    ids = pq.read_table(root / "matches" / "game=manillen", columns=["match_id"]).column("match_id")
    _rank_reversed(root, "manillen", {ids[0].as_py()})
    moves = sorted((root / "moves" / "game=hartenjagen").glob("*.parquet"))[0]
    rows = pq.read_table(moves).to_pylist()
    for r in rows:
        r["match_id"] = "f" + r["match_id"][1:]   # matches no committed batch holds
    write_part(moves.with_name("part-orphan.parquet"),
               pa.Table.from_pylist(rows, schema=pq.read_schema(moves).remove_metadata()), fsync=False)
    full = verify(root, workers=1)
    whole = verify(root, workers=1, sample=1.0, seed=11)
    assert whole.sample is not None and whole.sample.sampled == whole.sample.of == full.matches
    assert {"ranking_without_faults", "moves_without_match"} <= {v.check for v in full.violations}
    assert _sql_view(whole) == _sql_view(full) and whole.queries == full.queries
    monkeypatch.setattr(verify_mod, "SQL_SAMPLE_MATCHES", 5)   # the SQL in chunks of 5 matches
    assert len(verify_mod.sample_chunks(verify_mod.sampled_batches(replay_tasks(TournamentLog(root))[0]),
                                        5)) >= 4
    chunked = verify(root, workers=1, sample=1.0, seed=11)
    assert _sql_view(chunked) == _sql_view(full)   # each violation once, the orphan's too


def test_an_unreachable_ray_address_is_one_line(small_log: Path) -> None:
    res = runner.invoke(app, ["verify", str(small_log), "--address", "127.0.0.1:1", "--no-sql"])
    assert res.exit_code == 2 and "Traceback" not in res.output and res.stderr.count("\n") == 1, res.output


@pytest.mark.slow
def test_replay_tasks_on_embedded_ray_give_the_report_of_one_worker(forged: Path) -> None:
    """The Ray executor of the submission loop, running verify's tasks (embedded Ray: no address)."""
    from tournaments.runners.loop import run_batches
    from tournaments.runners.progress import Progress
    from tournaments.runners.ray import RayExecutor
    from tournaments.runners.summary import Summary

    tasks, _ = replay_tasks(TournamentLog(forged))
    total = verify_mod.ReplayStats()
    s = Summary("verify", forged, len(tasks), 0)
    run_batches(RayExecutor(None, num_cpus=2, fn=verify_mod.run_replay_task), iter(tasks),  # type: ignore[arg-type]
                lambda r: total.add(r), s, Progress(s, False))  # type: ignore[arg-type]
    one = verify(forged, workers=1, sql=False)
    assert (total.matches, total.moves) == (one.matches, one.moves)
    assert sorted(v.match_id for v in total.violations) == sorted(v.match_id for v in one.violations
                                                                  if v.check == "replay")
