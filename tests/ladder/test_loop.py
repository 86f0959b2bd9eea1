"""``ladder run``: groups written before they run, whole groups, ratings rebuilt bit for bit, the board."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.ladder.conftest import CRASH_BOT, GOOD_BOT, OTHER_BOT, bot_file
from tournaments.ladder import tables
from tournaments.ladder.core import load_view, params_of, rating_dicts
from tournaments.ladder.loop import run_ladder
from tournaments.ladder.state import LadderStore

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output + res.stderr, res.output + res.stderr
    return res.exit_code, res.stdout, res.stderr


def quiet(_: str) -> None:
    pass


def check_log(out: Path) -> dict[str, Any]:
    """Every group row once; every committed group whole (one match per rotation) and written as a
    group first; no match twice; the stored online ratings equal their rebuild from the log."""
    view = load_view(out)
    ids = [g["group_id"] for g in tables.read(out, "groups", "lad")]
    matches = [m for rows in view.committed.values() for m in rows]
    assert len({m["match_id"] for m in matches}) == len(matches)
    for gid, rows in view.committed.items():
        assert gid in ids
        assert sorted(m["rotation"] for m in rows) == list(range(4))
    state, rows = view.online(params_of(view.spec))
    stored = sorted(tables.read(out, "ratings_online", "lad"), key=lambda r: (r["seq"], r["ref"]))
    rebuilt = sorted(rating_dicts(rows, state, "lad"), key=lambda r: (r["seq"], r["ref"]))
    assert stored == rebuilt   # bit for bit: floats compared exactly
    return {"groups": ids, "committed": view.committed, "view": view}


def test_reference_groups_are_whole_rated_and_on_the_board(ladder: Path) -> None:
    s = run_ladder(ladder, groups=6, executor="inline", say=quiet)
    assert s.groups_new == 6 and s.groups_committed == 6
    got = check_log(ladder)
    assert len(got["groups"]) == len(set(got["groups"])) == 6
    code, so, _ = cli("ladder", "board", str(ladder), "--json")
    assert code == 0
    b = json.loads(so)
    assert set(b) >= {"watermark", "overall", "games"}
    assert b["watermark"]["group_id"] == got["view"].groups[-1]["group_id"] and b["watermark"]["at"]
    assert b["watermark"]["groups"] == 6
    assert set(b["games"]) == {"hartenjagen"}
    for row in b["overall"] + b["games"]["hartenjagen"]:
        assert {"ref", "strength", "lo95", "hi95", "rank", "groups", "matches", "provisional"} <= set(row)
        assert row["lo95"] <= row["strength"] <= row["hi95"]
        assert row["author"] == "reference"
    assert sorted(r["rank"] for r in b["overall"]) == list(range(1, len(b["overall"]) + 1))
    code, so, _ = cli("query", str(ladder), "SELECT (SELECT count(*) FROM groups) AS g, "
                      "(SELECT count(*) FROM ratings_online) AS r, "
                      "(SELECT count(DISTINCT snapshot) FROM board) AS b", "-f", "json")
    assert code == 0
    q = json.loads(so)[0]
    assert q["g"] == 6 and q["r"] == 6 * 4 and q["b"] >= 1


def test_a_rerun_goes_on_with_the_next_groups(ladder: Path) -> None:
    run_ladder(ladder, groups=3, executor="inline", say=quiet)
    run_ladder(ladder, groups=2, executor="inline", say=quiet)
    got = check_log(ladder)
    assert [g["seq"] for g in got["view"].groups] == [1, 2, 3, 4, 5]


def test_written_but_uncommitted_groups_run_again_under_their_ids(ladder: Path) -> None:
    """A group row whose matches never committed (a run killed after writing it) is submitted again
    by the next run, with the same group and match ids, and rated once."""
    from tournaments.ladder.loop import Ladder
    lad = Ladder(ladder, quiet)
    t = lad.plan_next()
    assert t is not None
    row = lad.write_group(t)
    s = run_ladder(ladder, groups=1, executor="inline", say=quiet)
    assert s.groups_resubmitted == 1
    got = check_log(ladder)
    assert row["group_id"] in got["committed"] and len(got["groups"]) == 2


@pytest.mark.slow
def test_versions_are_validated_placed_and_two_of_one_author_never_share_a_table(
        ladder: Path, tmp_path: Path) -> None:
    store = LadderStore(ladder)
    from tournaments.ladder.core import load_spec
    spec = load_spec(ladder)
    from bots.api import bot_source
    store.submit(spec, bot_source(bot_file(tmp_path, "a1", GOOD_BOT)), "alpha", "alice")
    store.submit(spec, bot_source(bot_file(tmp_path, "a2", OTHER_BOT)), "alpha2", "alice")
    store.submit(spec, bot_source(bot_file(tmp_path, "b1", OTHER_BOT + "\n# b\n")), "beta", "bob")
    run_ladder(ladder, groups=10, executor="inline", say=quiet)
    states = {v.ref: v.state for v in store.versions()}
    assert states["alpha@1"] == states["alpha2@1"] == states["beta@1"] == "active"
    got = check_log(ladder)
    authors = {v.ref: v.author for v in store.versions()}
    for g in got["view"].groups:
        mine = Counter(authors[r] for r in g["arrangement"] if authors[r] != "reference")
        assert all(n == 1 for n in mine.values()), g["arrangement"]
        if g["reason"] == "placement":
            assert sum(authors[r] != "reference" for r in g["arrangement"]) == 1
        assert 0.0 < g["probability"] <= 1.0
    changes = [(c.ref, c.from_state, c.to_state) for c in store.changes() if c.ref == "alpha@1"]
    assert changes == [("alpha@1", None, "validating"), ("alpha@1", "validating", "placement"),
                       ("alpha@1", "placement", "active")]


def test_a_bot_that_fails_validation_is_rejected_with_the_reason(ladder: Path, tmp_path: Path) -> None:
    from bots.api import bot_source
    from tournaments.ladder.core import load_spec
    store = LadderStore(ladder)
    store.submit(load_spec(ladder), bot_source(bot_file(tmp_path, "c", CRASH_BOT)), "crash", "carol")
    run_ladder(ladder, groups=1, executor="inline", say=quiet)
    v = store.version("crash@1")
    assert v.state == "rejected"
    reason = [c.reason for c in store.changes() if c.ref == "crash@1"][-1]
    assert "FAILED" in reason and "boom" in reason


@pytest.mark.slow
def test_a_bot_crashing_after_validation_goes_to_probation_without_an_outsized_share(
        ladder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A version that passes validation and then crashes on every move (a time bomb) is charged its
    faults, goes to probation after rating.fault_min_groups groups, and plays no more: its share of the
    groups stays that of its neighbours (seeding is by need, never by sigma)."""
    import tournaments.ladder.loop as loop
    from bots.api import bot_source
    from tournaments.ladder.core import load_spec
    monkeypatch.setattr(loop, "validate_version", lambda spec, root, ref: (True, "validated (test)",
                                                                            ["hartenjagen"]))
    store = LadderStore(ladder)
    spec = load_spec(ladder)
    store.submit(spec, bot_source(bot_file(tmp_path, "c", CRASH_BOT)), "crash", "carol")
    store.submit(spec, bot_source(bot_file(tmp_path, "g", GOOD_BOT)), "good", "gina")
    run_ladder(ladder, groups=14, executor="inline", say=quiet)
    assert store.version("crash@1").state == "probation"
    assert store.version("good@1").state == "active"
    view = load_view(ladder)
    st = view.stats()
    assert st["crash@1"].fault_rate == 1.0
    assert st["crash@1"].groups <= st["good@1"].groups
    reason = [c.reason for c in store.changes() if c.ref == "crash@1"][-1]
    assert reason.startswith("fault rate 1.00")


def test_a_pool_of_one_possible_table_keeps_playing(tmp_path: Path) -> None:
    """Four versions in a 4-player game seat one table only: the no-repeat window shortens to what
    the pool can seat instead of stalling the ladder."""
    from tests.ladder.conftest import tiny_spec
    from tournaments.ladder.core import create_ladder
    out = tmp_path / "four"
    create_ladder(tiny_spec(reference=["random", "greedy", {"name": "r2", "bot": "random"},
                                       {"name": "r3", "bot": "random"}], matchmaking={"recent": 5}), str(out))
    s = run_ladder(out, groups=3, executor="inline", say=quiet)
    assert s.groups_committed == 3


def test_a_group_with_an_engine_error_is_played_again_and_never_rated(
        ladder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine error (a bug, not a bot's fault) in a group's match: the group is not rated nor
    charged to anyone, and the same arrangement is played again as a new group (``rerun_of``)."""
    import tournaments.runner as runner
    real = runner.play_logged
    calls = {"n": 0}

    def faulty(*args: Any, **kwargs: Any) -> Any:
        p = real(*args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 2:   # the second match of the first group
            p.error = "Traceback: an engine bug"
        return p

    monkeypatch.setattr(runner, "play_logged", faulty)
    s = run_ladder(ladder, groups=3, executor="inline", say=quiet)
    assert s.groups_rerun == 1
    view = load_view(ladder)
    bad = view.groups[0]
    assert view.errored(bad["group_id"])
    again = [g for g in view.groups if g["rerun_of"] == bad["group_id"]]
    assert len(again) == 1 and again[0]["arrangement"] == bad["arrangement"]
    rated = {r["group_id"] for r in tables.read(ladder, "ratings_online", "lad")}
    assert bad["group_id"] not in rated and again[0]["group_id"] in rated
    assert all(st.faulted == 0 for st in view.stats().values())
    check_log(ladder)
