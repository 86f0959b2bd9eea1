"""Workers expand a slice of the schedule (issue 25 §5): the driver sends a game's plan once per
worker process and index ranges, and the matches the workers make are the schedule's, in order, with
the same ids and seeds; a resume skips exactly the committed ones; a task of several batches commits
each on its own."""
from __future__ import annotations

import pickle
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.tournaments.conftest import FOUR, raw_spec
from tournaments import runner
from tournaments.runner import Batch, PlanSlice, SharedPlan, run_batch
from tournaments.runners import Sizer, prepare
from tournaments.runners.work import batches
from tournaments.schedule import GamePlan, plan, secret_from_seed
from tournaments.spec import parse_spec

SIX = [*FOUR, {"name": "r5", "bot": "random"}, {"name": "r6", "bot": "random"}]


def plans(tmp_path: Path) -> list[GamePlan]:
    """Two games, one of them a partnership game, full and sampled."""
    full = parse_spec(raw_spec(tmp_path, games=["hartenjagen", "manillen"], bots=SIX, matches_per_seating=3))
    sampled = parse_spec(raw_spec(tmp_path, games=["hartenjagen"], bots=SIX, matches_per_seating=2,
                                  schedule={"mode": "sampled", "seatings": 7}))
    return [*plan(full, None, secret_from_seed(5)), *plan(sampled, None, secret_from_seed(6))]


def test_a_slice_of_the_schedule_is_the_schedules_matches_at_those_indices(tmp_path: Path) -> None:
    rng = random.Random(1)
    for gp in plans(tmp_path):
        every = list(gp.matches())
        assert len(every) == gp.total
        for _ in range(60):
            a = rng.randrange(-2, gp.total + 3)
            b = rng.randrange(a, gp.total + 5)
            assert list(gp.matches(True, a, b)) == every[max(0, a):b]
        assert list(gp.matches(False, 0, None)) == list(gp.matches(seat_seeds=False))


def test_a_shared_plan_is_unpickled_once_per_process_and_skips_what_is_done(tmp_path: Path) -> None:
    gp = plans(tmp_path)[0]
    shared = SharedPlan(gp)
    runner._PLANS.clear()
    first = pickle.loads(pickle.dumps(PlanSlice(shared, 3, 17, frozenset({4, 9}))))
    again = pickle.loads(pickle.dumps(PlanSlice(shared, 17, 30)))
    assert first.plan is again.plan and first.plan is not shared   # one copy in this "worker"
    assert first.plan.digest == shared.digest and first.plan.plan == gp
    every = list(gp.matches(seat_seeds=False))
    assert first.matches() == tuple(m for i, m in enumerate(every) if 3 <= i < 17 and i not in (4, 9))
    assert again.matches() == tuple(every[17:30])
    with pytest.raises(TypeError, match="not a GamePlan"):
        runner._shared_plan("x" * 64, pickle.dumps({"not": "a plan"}))


@pytest.mark.parametrize("group", [1, 3])
def test_batches_cover_the_remaining_schedule_once_in_order(tmp_path: Path, group: int) -> None:
    spec = parse_spec(raw_spec(tmp_path, games=["hartenjagen", "manillen"], bots=SIX,
                               matches_per_seating=2, secret="seed"))
    p = prepare(spec)
    try:
        every = {gp.game.id: list(gp.matches(seat_seeds=False)) for gp in p.plans}
        rng = random.Random(group)
        p.done = {m.match_id for ms in every.values() for m in ms if rng.random() < 0.3}
        sizer = Sizer(1.0)
        got: dict[str, list[str]] = {g: [] for g in every}
        for k, b in enumerate(batches(p, sizer, group=group)):
            assert b.matches == () and b.span is not None
            ms = b.played()
            assert ms and not any(m.match_id in p.done for m in ms)
            size = sizer.size(b.game)
            assert len(ms) <= (size * group if b.every else size)
            assert b.every in (0, size) and (b.every == 0 or group > 1)
            got[b.game] += [m.match_id for m in ms]
            sizer.learn(runner.BatchResult(b.game, len(ms), 0, 0, 0, 0.01 * len(ms), 0.0, f"w{k % 2}", []))
        for g, ms in every.items():
            assert got[g] == [m.match_id for m in ms if m.match_id not in p.done]
    finally:
        p.release()


def test_a_task_of_several_batches_commits_each_as_a_batch_of_its_own(tmp_path: Path) -> None:
    spec = parse_spec(raw_spec(tmp_path, bots=FOUR, matches_per_seating=2, secret="seed"))
    gp = plan(spec, None, secret_from_seed(spec.seed))[0]
    g = gp.game
    span = PlanSlice(SharedPlan(gp), 0, 7)

    def batch(root: Path, every: int) -> Batch:
        return Batch("t", str(root), g.id, g.options, g.players, g.max_deals, (),
                     {e.label: e.bot for e in spec.bots}, limits=spec.limits, secret=gp.secret,
                     span=span, every=every)

    one = run_batch(batch(tmp_path / "one", 0))
    three = run_batch(batch(tmp_path / "three", 3))
    assert (one.matches, three.matches) == (7, 7) and one.moves == three.moves
    committed = [p for p in three.parts if "/matches/" in p and p.endswith(".parquet")]
    assert len(committed) == 3 and len([p for p in one.parts if "/matches/" in p]) == 1
    ids = [pq.read_table(p, columns=["match_id"]).column(0).to_pylist() for p in committed]
    assert [len(x) for x in ids] == [3, 3, 1]
    assert [x for part in ids for x in part] == [m.match_id for m in gp.matches(False, 0, 7)]
    assert three.parts[-1].endswith(".parquet") and "/matches/" in three.parts[-1]
