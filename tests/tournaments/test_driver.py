"""The driver without Ray (executor "inline"): resume, the manifest, refusing another tournament's
directory, the lock, and the command line's one-line errors."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.tournaments.conftest import FOUR, comparable, fastest_game, raw_spec, toml_of
from tournaments.ledger import read_manifest
from tournaments.log import finished_matches
from tournaments.runner import BatchResult
from tournaments.runners import Summary, TournamentError, prepare, run_tournament
from tournaments.schedule import schedule
from tournaments.spec import Spec, parse_spec
from tournaments.tournament_cli import app


def spec(tmp_path: Path, **over: Any) -> Spec:
    return parse_spec(raw_spec(tmp_path, **{"matches_per_seating": 3, "run": {"batch_s": 0.01}, **over}))


def test_run_to_the_end_writes_every_match_once_and_the_manifest(tmp_path: Path) -> None:
    sp = spec(tmp_path)
    s = run_tournament(sp, executor="inline", progress=False)
    ids = {m.match_id for m in schedule(sp)}
    assert s.complete and s.done_now == s.total == len(ids)
    assert finished_matches(tmp_path / "out", "t") == ids
    m = read_manifest(tmp_path / "out", "t")
    assert m is not None and m["complete"] and m["total_matches"] == len(ids)
    assert m["spec_hash"] == sp.spec_hash() and m["bots"] == {"random": "random", "r2": "random",
                                                              "r3": "random", "r4": "random"}


def test_interrupted_run_resumes_to_the_same_logs(tmp_path: Path) -> None:
    sp = spec(tmp_path, secret="seed")   # the reference run in another directory deals the same

    def stop_after_two(r: BatchResult, s: Summary) -> None:
        if s.done_now >= 2:
            raise KeyboardInterrupt

    first = run_tournament(sp, executor="inline", progress=False, on_batch=stop_after_two)
    assert first.stopped and not first.complete and first.done_now >= 2
    with_resume = run_tournament(sp, resume=True, executor="inline", progress=False)
    assert with_resume.done_before == first.done_now and with_resume.complete
    ref = run_tournament(spec(tmp_path, secret="seed", output=str(tmp_path / "ref")), executor="inline",
                         progress=False)
    assert ref.complete
    assert comparable(tmp_path / "out") == comparable(tmp_path / "ref")


def test_a_directory_holding_another_tournament_is_refused(tmp_path: Path) -> None:
    run_tournament(spec(tmp_path), executor="inline", progress=False)
    other = spec(tmp_path, seed=99)
    with pytest.raises(TournamentError, match="holds tournament 't' from another spec"):
        run_tournament(other, executor="inline", progress=False)
    renamed = spec(tmp_path, seed=99, name="u")
    with pytest.raises(TournamentError, match="holds another tournament"):
        run_tournament(renamed, executor="inline", progress=False)
    s = run_tournament(other, tournament_id="t2", executor="inline", progress=False)
    assert s.complete and s.tournament == "t2"
    assert finished_matches(tmp_path / "out", "t2").isdisjoint(finished_matches(tmp_path / "out", "t"))


def test_resume_needs_a_tournament_and_one_driver_at_a_time(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="--resume: no tournament 't'"):
        run_tournament(spec(tmp_path), resume=True, executor="inline", progress=False)
    held = prepare(spec(tmp_path))
    try:
        with pytest.raises(TournamentError, match="is being run by another process"):
            prepare(spec(tmp_path))
    finally:
        held.release()
    prepare(spec(tmp_path)).release()


def test_games_all_is_frozen_when_the_tournament_starts(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from engine import GAMES

    bots = [*FOUR, *({"name": f"r{i}", "bot": "random"} for i in range(5, 9))]
    with monkeypatch.context() as m:   # the tournament starts while only two games are registered
        m.setattr("tournaments.spec.GAMES", GAMES[:2])
        p = prepare(spec(tmp_path, games="all", bots=bots, matches_per_seating=1))
        p.release()
    assert [gp.game.id for gp in p.plans] == GAMES[:2]
    again = prepare(spec(tmp_path, games="all", bots=bots, matches_per_seating=1))   # more games now
    again.release()
    assert [gp.game.id for gp in again.plans] == GAMES[:2]


# ------------------------------------------------------------------------------------------ CLI
runner = CliRunner()


def test_cli_run_with_flags_prints_summary_and_leaderboard(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "--bots", "random,r2=random,r3=random,r4=random",
                              "--games", fastest_game(), "--max-deals", "1", "--out", str(tmp_path / "o"),
                              "--inline", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "matches (complete)" in res.output and "leaderboard" in res.output
    lb = runner.invoke(app, ["leaderboard", str(tmp_path / "o"), "--json"])
    rows = json.loads(lb.output)
    assert sorted(r["bot"] for r in rows) == ["r2", "r3", "r4", "random"]
    st = runner.invoke(app, ["status", str(tmp_path / "o"), "--json"])
    (row,) = json.loads(st.output)
    assert row["done"] == row["total"] == 4


def test_cli_run_spec_json(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(toml_of(raw_spec(tmp_path)))
    res = runner.invoke(app, ["run", str(f), "--inline", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["complete"] and out["total"] == out["done"] and len(out["leaderboard"]) == 4


@pytest.mark.parametrize("args, needle", [
    (["run", "/no/such/spec.toml"], "spec file '/no/such/spec.toml' not found"),
    (["run", "--bots", "random,r2=random", "--games", "nosuchgame"], "games[0]: unknown game 'nosuchgame'"),
    (["run", "--bots", "random,r2=random"], "seats"),
    (["run", "--bots", "random,r2=random,r3=random,r4=random,mystery@3"], "bots[4]: unknown bot 'mystery@3'"),
    (["run", "--games", "all"], "bots: give a SPEC file"),
    (["leaderboard", "/no/such/dir"], "0 tournaments"),
])
def test_cli_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "o")] if args[0] == "run" else args)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in res.output


def test_a_built_in_with_options_plays_with_them(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from bots.api import BUILTIN

    if "ismcts" not in BUILTIN:
        pytest.skip("needs the ismcts built-in")
    sp = spec(tmp_path, matches_per_seating=1,
              bots=[*FOUR[:3], {"name": "i", "bot": "ismcts", "options": {"iterations": 3}}])
    assert run_tournament(sp, executor="inline", progress=False).complete
    for m in pq.read_table(tmp_path / "out" / "matches").to_pylist():
        assert m["bot_refs"][m["bots"].index("i")] == "ismcts(iterations=3)"


def test_parts_this_machine_cannot_see_stop_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a cluster the output must be shared: a worker writing where the driver cannot read is an error."""
    from tournaments.runners import inline

    def elsewhere(batch: Any) -> BatchResult:
        return BatchResult(batch.game, len(batch.matches), 1, 0, 0, 0.1, 0.0, "far:1",
                           ["/nonexistent/matches/part.parquet"])

    monkeypatch.setattr(inline, "run_batch", elsewhere)
    with pytest.raises(TournamentError, match="every node shares"):
        run_tournament(spec(tmp_path), executor="inline", progress=False)


def test_sizer_counts_a_workers_first_batch_of_a_game_only_until_a_steady_one() -> None:
    """A worker's first batch of a game carries its warm-up: it sizes the next batches only while no
    other batch of that game is done (issue 28 §2: averaged in, it kept ten batches tiny)."""
    from tournaments.runners import Sizer

    def done(game: str, matches: int, seconds: float, worker: str) -> BatchResult:
        return BatchResult(game, matches, 10 * matches, 0, 0, seconds, 0.0, worker, [])

    s = Sizer(1.0)
    assert s.size("g") == 2                       # nothing learnt: the first size
    s.learn(done("g", 2, 0.4, "w1"))             # warm-up: 0.2 s a match
    assert s.size("g") == 5                       # all there is to go by
    s.learn(done("g", 2, 0.5, "w2"))             # another worker's warm-up
    assert s.size("g") == round(1.0 / (0.9 / 4))
    s.learn(done("g", 5, 0.05, "w1"))            # steady: 10 ms a match
    assert s.size("g") == 100                     # the warm-ups no longer count
    s.learn(done("g", 100, 2.0, "w2"))            # 20 ms a match: the average of the steady ones
    assert s.size("g") == round(1.0 / (2.05 / 105))
    s.learn(done("h", 3, 0.3, "w1"))              # another game warms up on its own
    assert s.size("h") == 10 and s.size("g") == round(1.0 / (2.05 / 105))
    s.learn(done("g", 10_000, 0.01, "w1"))        # never more than the cap
    assert s.size("g") == 1000
