"""cardarena verify: replay every match, run the invariant SQL, report each violation with a replay
command.  Each check is shown to fail on a log tampered in the way it guards against."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tournaments.analysis.verify import load_queries, replay_command, verify
from tournaments.log import record_digests, write_part

from .conftest import cardarena


def _part(root: Path, table: str, game: str) -> Path:
    return sorted((root / table / f"game={game}").glob("*.parquet"))[0]


def _edit(path: Path, fn: object) -> None:
    """Rewrite a part as a forger would: a well-formed part, and the batch's digest record made anew
    (the digests catch damage; the rule checks must catch a forgery)."""
    rows = pq.read_table(path).to_pylist()
    schema = pq.read_schema(path)
    rows = fn(rows)  # type: ignore[operator]
    write_part(path, pa.Table.from_pylist(rows, schema=schema.remove_metadata()), fsync=False)
    record_digests(path.parent.parent.parent / "matches" / path.parent.name / path.name)


def _checks(report: object) -> set[str]:
    return {v.check for v in report.violations}  # type: ignore[attr-defined]


def test_clean_log_verifies(clean_log: Path) -> None:
    report = verify(clean_log, workers=1)
    assert report.violations == []
    assert report.matches > 0 and report.moves > 0
    assert "hearts_follow_suit" in report.queries and "manillen_60_points_per_deal" in report.queries
    proc = cardarena("verify", str(clean_log), "--workers", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 violation(s)" in proc.stdout


def test_every_game_has_invariant_queries() -> None:
    for game in ("hartenjagen", "manillen", "genive", "geneve"):
        _, queries = load_queries(game)
        assert len(queries) >= 3, game
        assert all(q.doc for q in queries)
    for game in ("butifarra", "manille_parlee", "manille_muette"):
        _, queries = load_queries(game)
        assert {q.name for q in queries} == {f"{game}_whole_deal", f"{game}_follow_suit"}


def test_revoke_is_caught_by_replay_and_by_sql(log_copy: Path) -> None:
    """Swap two of one seat's hearts plays so that it discards while holding the led suit."""
    path = _part(log_copy, "moves", "hartenjagen")
    victim: dict[str, object] = {}

    def swap(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        mid = rows[0]["match_id"]
        plays = [r for r in rows if r["match_id"] == mid and r["deal"] == 1
                 and str(r["action"]).startswith("play ")]
        for i, r in enumerate(plays):
            if i % 4 == 0:
                continue
            led = str(plays[i - i % 4]["action"])[-1]
            if str(r["action"])[-1] != led:
                continue
            # a later play of this seat in another suit: play it here instead (a revoke)
            for later in plays[i + 1:]:
                if later["seat"] == r["seat"] and str(later["action"])[-1] != led:
                    r["action"], later["action"] = later["action"], r["action"]
                    victim["id"] = mid
                    return rows
        raise AssertionError("no play to swap")

    _edit(path, swap)
    report = verify(log_copy, workers=1)
    found = [v for v in report.violations if v.match_id == victim["id"]]
    assert {"replay", "hearts_follow_suit"} <= {v.check for v in found}
    assert any("illegal action" in v.detail for v in found if v.check == "replay")
    assert all(v.replay == replay_command(log_copy, str(victim["id"])) for v in found)
    proc = cardarena("verify", str(log_copy))
    assert proc.returncode == 1
    assert f"cardarena verify {log_copy} --match {victim['id']}" in proc.stdout
    one = cardarena("verify", str(log_copy), "--match", str(victim["id"]), "--json")
    data = json.loads(one.stdout)
    assert one.returncode == 1 and data["matches"] == 1
    assert {v["match_id"] for v in data["violations"]} == {victim["id"]}


def test_wrong_scores_are_caught(log_copy: Path) -> None:
    for game in ("hartenjagen", "manillen"):
        path = _part(log_copy, "matches", game)

        def bump(rows: list[dict[str, object]]) -> list[dict[str, object]]:
            rows[0]["scores"] = [s + 1.0 for s in rows[0]["scores"]]  # type: ignore[attr-defined]
            return rows

        _edit(path, bump)
    report = verify(log_copy, workers=1)
    checks = _checks(report)
    assert {"hearts_scores_from_plays", "manillen_deal_scores", "hearts_26_or_78_per_deal"} <= checks
    assert any(v.check == "replay" and "logged scores" in v.detail for v in report.violations)


def test_forged_events_are_caught(log_copy: Path) -> None:
    """A moon shot nobody shot, and a Genive halving at 150."""
    def forge(event: str, data: str) -> object:
        def f(rows: list[dict[str, object]]) -> list[dict[str, object]]:
            r = dict(rows[0])
            r.update(event=event, data=data)
            return [*rows, r]
        return f

    _edit(_part(log_copy, "events", "hartenjagen"), forge("hartenjagen.moon_shot", "{}"))
    _edit(_part(log_copy, "events", "genive"),
          forge("genive.score_halved", json.dumps({"before": 150, "after": 75})))
    report = verify(log_copy, workers=1)
    checks = _checks(report)
    assert {"hearts_moon_shot_event", "genive_g7_halving_only_at_100_and_200", "replay"} <= checks


def test_duplicate_and_orphan_rows_are_caught(log_copy: Path) -> None:
    """A batch copied under another epoch's name (a whole, well-formed batch of the same tournament)."""
    src = _part(log_copy, "matches", "manillen")
    copy = src.name.replace("-e0-", "-e7-")
    shutil.copy(src, src.with_name(copy))
    for t in ("moves", "events"):
        s = _part(log_copy, t, "manillen")
        shutil.copy(s, s.with_name(copy))
    orphan = log_copy / "moves" / "game=manillen" / src.name.replace("-e0-", "-e8-")
    shutil.copy(_part(log_copy, "moves", "geneve"), orphan)
    report = verify(log_copy, workers=1, replay=False)
    checks = _checks(report)
    assert {"match_logged_once", "moves_without_match"} <= checks


def test_parallel_replay_agrees_with_serial(clean_log: Path) -> None:
    a = verify(clean_log, workers=1, sql=False)
    b = verify(clean_log, workers=2, sql=False)
    assert (a.matches, a.moves, a.violations) == (b.matches, b.moves, b.violations)


def test_deep_replay_checks_invariants_every_action(clean_log: Path) -> None:
    mid = pq.read_table(_part(clean_log, "matches", "hartenjagen")).column("match_id")[0].as_py()
    report = verify(clean_log, workers=1, deep=True, only=mid)
    assert report.matches == 1 and report.violations == []


def test_verify_match_checks_only_that_match(log_copy: Path) -> None:
    """`verify --match ID` certifies, replays and queries the batch holding ID only, over views that hold
    ID's rows only: a damaged part of another batch and a forged row of another match in the same
    batch do not touch it, while the whole log's verify finds both."""
    from tournaments.analysis.views import TournamentLog
    mpart = _part(log_copy, "matches", "hartenjagen")
    ids = pq.read_table(mpart).column("match_id").to_pylist()
    assert len(ids) >= 2
    mid, other = ids[0], ids[1]
    _edit(mpart, lambda rows: [dict(r, ranking=list(reversed(r["ranking"]))) if r["match_id"] == other
                               else r for r in rows])
    damaged = _part(log_copy, "moves", "geneve")
    damaged.write_bytes(damaged.read_bytes()[:-40])
    one = TournamentLog(log_copy, check=False).only_match(mid)
    assert [p.path.name for p in one.parts["matches"]] == [mpart.name]
    assert {t: len(ps) for t, ps in one.parts.items()} == {"moves": 1, "matches": 1, "events": 1}
    assert one.sql("SELECT DISTINCT match_id FROM moves UNION SELECT DISTINCT match_id FROM matches"
                   ).to_series().to_list() == [mid]
    proc = cardarena("verify", str(log_copy), "--match", mid, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["matches"] == 1 and report["queries"] and report["violations"] == []
    assert cardarena("verify", str(log_copy)).returncode == 2, "the whole log is not certified"
    damaged.unlink()  # another batch's moves part missing now: still not this match's concern
    proc = cardarena("verify", str(log_copy), "--match", other, "--json")
    assert proc.returncode == 1
    assert {v["check"] for v in json.loads(proc.stdout)["violations"]} >= {"ranking_without_faults"}


def test_verify_match_unknown_id_is_one_line(clean_log: Path) -> None:
    for args in (["--match", "0000000000000000"], ["--match", "x'y", "--no-replay"]):
        proc = cardarena("verify", str(clean_log), *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.count("\n") == 1 and "no match" in proc.stderr, proc.stderr


def test_a_replay_that_disagrees_names_the_engine_that_played_it(log_copy: Path) -> None:
    """A log from other rules code (``engine_version`` differs): the disagreement says so, and a
    disagreement on a log from this engine does not."""
    from tournaments.log import engine_version

    def bump(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        rows[0]["scores"] = [s + 1.0 for s in rows[0]["scores"]]  # type: ignore[attr-defined]
        return rows

    path = _part(log_copy, "matches", "hartenjagen")
    _edit(path, bump)
    mine = [v for v in verify(log_copy, workers=1).violations if v.check == "replay"]
    assert mine and not any("played by engine" in v.detail for v in mine)

    def older(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        for r in rows:
            r["engine_version"] = "0123456789ab"
        return rows

    _edit(path, older)
    theirs = [v for v in verify(log_copy, workers=1).violations if v.check == "replay"]
    assert len(theirs) == len(mine)
    note = f"played by engine 0123456789ab and this is engine {engine_version('hartenjagen')}"
    assert all(note in v.detail for v in theirs)  # one problem a match here: the scores
