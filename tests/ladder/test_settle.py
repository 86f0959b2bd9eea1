"""``ladder close``: locked submissions, a fresh key published by hash first, settlement groups only,
shared places, the stop rule; and the anti-collusion report."""
from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.ladder.conftest import GOOD_BOT, bot_file
from tournaments.ladder import tables
from tournaments.ladder.board import Fit, shared_places
from tournaments.ladder.loop import run_ladder
from tournaments.ladder.settle import close_ladder, decided, frozen_versions
from tournaments.ladder.state import LadderError, LadderStore, Version


def quiet(_: str) -> None:
    pass


def test_close_settles_on_a_fresh_key_and_locks_the_ladder(ladder: Path, tmp_path: Path) -> None:
    run_ladder(ladder, groups=3, executor="inline", say=quiet)
    played_before = {m for rows in tables.committed(ladder, "lad").by_group.values() for m in
                     (r["match_id"] for r in rows)}
    res = close_ladder(ladder, budget=6, executor="inline", say=quiet, seed=1)
    key = bytes.fromhex(res["key"])
    assert hashlib.sha256(key).hexdigest() == res["key_sha256"]
    ladder_secret = (ladder / "_tournaments" / "lad.secret").read_text().strip()
    assert res["key"] != ladder_secret                        # never the ladder's own key
    assert 1 <= res["groups"] <= 6 and res["stop"] in ("decided", "budget")
    settle = tables.committed(ladder, "lad-settle").by_group
    assert len(settle) == res["groups"]
    assert not played_before & {r["match_id"] for rows in settle.values() for r in rows}
    places = res["places"]
    assert sorted(p["ref"] for p in places) == sorted(res["frozen"])
    assert places[0]["place"] == 1 and all(a["place"] <= b["place"] for a, b in itertools.pairwise(places))
    assert json.loads((ladder / "_ladder" / "settlement.json").read_text())["key"] == res["key"]
    # submissions and runs are refused once closed; a second close returns the same result
    code = CliRunner().invoke(app, ["ladder", "submit", str(ladder), str(bot_file(tmp_path, "a", GOOD_BOT)),
                                    "--name", "late", "--author", "zed"])
    assert code.exit_code == 2 and "closed" in code.stderr
    with pytest.raises(LadderError):
        run_ladder(ladder, groups=1, executor="inline", say=quiet)
    with pytest.raises(LadderError, match="already settled"):   # a second close: refused
        close_ladder(ladder, executor="inline", say=quiet)
    status = CliRunner().invoke(app, ["ladder", "status", str(ladder), "--json"])
    assert json.loads(status.stdout)["settlement"]["places"] == places
    board = CliRunner().invoke(app, ["ladder", "board", str(ladder), "--json"])
    assert json.loads(board.stdout)["settlement"]["key"] == res["key"]


def test_frozen_is_the_chosen_else_the_latest_of_each_author() -> None:
    def v(ref: str, author: str, at: str, state: str = "active", chosen: bool = False) -> Version:
        return Version(ref, ref.split("@")[0], int(ref.split("@")[1]), author, "h", at, state, ["x"],
                       chosen=chosen)
    vs = [v("a@1", "ann", "1"), v("a@2", "ann", "2"), v("b@1", "bo", "1", chosen=True), v("b@2", "bo", "2"),
          v("c@1", "cy", "1", state="probation"), Version("random", "random", 0, "reference", "", "0",
                                                          "active", ["x"])]
    assert sorted(x.ref for x in frozen_versions(vs)) == ["a@2", "b@1", "random"]


def fit_of(theta: list[float], boots: np.ndarray) -> Fit:
    return Fit([f"v{i}" for i in range(len(theta))], np.array(theta), boots)


def test_places_overlapping_are_shared_and_the_stop_rule() -> None:
    rng = np.random.default_rng(0)
    sep = fit_of([3.0, 2.0, 1.0, 0.0], np.array([3.0, 2.0, 1.0, 0.0]) + rng.normal(0, 0.05, (200, 4)))
    assert decided(sep, 0.95)
    assert [p for _, p in shared_places(sep, 0.95)] == [1, 2, 3, 4]
    close = fit_of([1.0, 0.99, 0.0, -1.0], np.array([1.0, 0.99, 0.0, -1.0]) + rng.normal(0, 0.3, (200, 4)))
    assert not decided(close, 0.95)
    assert [p for _, p in shared_places(close, 0.95)][:2] == [1, 1]


def test_close_needs_a_ladder_and_lock(ladder: Path) -> None:
    LadderStore(ladder).set_meta(closed_at="2026-01-01T00:00:00")
    res = CliRunner().invoke(app, ["ladder", "run", str(ladder), "--groups", "1"])
    assert res.exit_code == 2 and "closed" in res.stderr


def test_collusion_report_flags_a_feeder_and_not_chance() -> None:
    """A feeder: whenever authors ann and bo share a table, bo's bot lets ann's win (ann first, bo
    last) though their ratings are equal; the pair is flagged.  Random places are not."""
    from tournaments.ladder.settle import collusion_pairs
    authors = {"a@1": "ann", "b@1": "bo", "r1": "reference", "r2": "reference"}
    even = {r: (25.0, 3.0) for r in authors}
    feeder = [({"a@1": 1, "r1": 2 + i % 2, "r2": 3 - i % 2, "b@1": 4}, even) for i in range(12)]
    rows = collusion_pairs(feeder, authors, 25 / 6)
    assert len(rows) == 1 and rows[0]["authors"] == ["ann", "bo"] and rows[0]["flag"]
    assert rows[0]["ann"]["above_predicted"] > 0 > rows[0]["bo"]["above_predicted"]
    rng = np.random.default_rng(3)
    chance = []
    for _ in range(12):
        order = rng.permutation(4) + 1
        chance.append((dict(zip(["a@1", "b@1", "r1", "r2"], order.tolist(), strict=True)), even))
    assert not collusion_pairs(chance, authors, 25 / 6)[0]["flag"]


def test_a_clearly_weaker_version_never_shares_first_through_a_chain() -> None:
    rng = np.random.default_rng(1)
    theta = np.array([1.0, 0.8, 0.6, 0.4, 0.2, -2.0])
    f = fit_of(theta.tolist(), theta + rng.normal(0, 0.3, (400, 6)))
    places = dict(shared_places(f, 0.95))
    assert places["v0"] == 1 and places["v1"] == 1
    assert places["v5"] == 6
