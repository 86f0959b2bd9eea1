"""The batch runner: the same match as bots.match.play_match, every move logged, faults contained,
matches replayable from the logs alone, and a retried batch harmless."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bots.api import Player
from bots.match import MoveRecord, make_players, play_match, seat_seed
from engine import GAMES, load_game
from engine.core import Game
from tests.tournaments.conftest import FOUR, comparable, raw_spec
from tournaments.log import TABLES
from tournaments.runner import Batch, play_logged, run_batch
from tournaments.schedule import plan
from tournaments.spec import parse_spec


class Faulty:
    """Plays randomly, then on its ``at``-th move answers ``how``: an illegal action, a malformed
    one, an exception, or a non-string."""

    def __init__(self, seed: int, at: int, how: str) -> None:
        import random
        self.rng, self.at, self.how, self.n = random.Random(seed), at, how, 0

    def act(self, obs: dict[str, Any]) -> Any:
        self.n += 1
        if self.n == self.at:
            if self.how == "illegal":
                return "play ZZ" if "play" not in " ".join(obs["legal_actions"]) else "meld 2C 3C 4C"
            if self.how == "malformed":
                return "dance"
            if self.how == "crash":
                raise RuntimeError("the bot broke")
            return 42
        return self.rng.choice(obs["legal_actions"])


def batch_of(tmp_path: Path, gid: str, n: int = 3, **over: Any) -> Batch:
    spec = parse_spec(raw_spec(tmp_path, games=[gid], bots=FOUR, **over))
    gp = plan(spec)[0]
    ms = tuple(m for _, m in zip(range(n), gp.matches(), strict=False))
    g = gp.game
    return Batch("t", str(tmp_path / "out"), gid, g.options, g.players, g.max_deals, ms,
                 {e.label: e.bot for e in spec.bots}, limits=spec.limits)


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("how", ["none", "illegal", "malformed", "crash", "not-a-string"])
def test_the_same_match_as_bots_play_match(gid: str, how: str) -> None:
    game = load_game(gid)
    n = game.check_players(None)

    def players(faulty: Faulty, seed: int) -> list[Player]:
        ps = make_players(game, ["random"] * n, seed)
        if how != "none":
            ps[1] = faulty
        return ps

    # seat 1 faults on its 4th move, or on its last one when the deal gives it fewer; a seed where
    # it moves at all (a Tonk or Klop Rummy deal can end before seat 1's turn)
    for seed in range(5, 105):
        calm = play_match(game, players(Faulty(7, 0, how), seed), seed, max_deals=1)
        at = min(4, sum(1 for s, _ in calm.moves if s == 1))
        if at:
            break
    assert at > 0, "seat 1 never moves"
    ref = play_match(game, players(Faulty(7, at, how), seed), seed, max_deals=1)
    got = play_logged(game, players(Faulty(7, at, how), seed), seed, max_deals=1)
    records: list[MoveRecord] = []
    play_match(game, players(Faulty(7, at, how), seed), seed, max_deals=1, on_move=records.append)
    assert got.state.history == ref.state.history
    # the log's columns (MoveColumns) hold the rows on_move hands out, the times aside
    assert [m._replace(think_us=0) for m in got.moves] == [m._replace(think_us=0) for m in records]
    assert got.placement == ref.placement
    assert got.faults == ref.faults   # the one fault record, as the match loop made it
    assert [m[4] for m in got.moves] == got.state.history
    assert [m[1] for m in got.moves] == list(range(len(got.state.history)))
    if how == "none":
        assert not got.faults and {m[7] for m in got.moves} == {"ok"}
    else:
        kind = "crash" if how == "crash" else "illegal"
        assert got.faults[0].seat == 1 and got.faults[0].outcome == kind
        rows = [m for m in got.moves if m[2] == 1]
        assert rows[at - 1][7] == kind and {m[7] for m in rows[at:]} <= {"fallback"}
        assert {m[7] for m in rows[:at - 1]} <= {"ok"}
        assert got.placement[1] == max(got.placement)


@pytest.mark.parametrize("gid", GAMES)
def test_logs_replay_through_the_engine(tmp_path: Path, gid: str) -> None:
    b = batch_of(tmp_path, gid, n=8, matches_per_seating=2)   # two boards (a tonk deal can end at once)
    r = run_batch(b)
    root = Path(b.root)
    matches = pq.read_table(root / "matches").to_pylist()
    moves = pq.read_table(root / "moves").to_pylist()
    events = pq.read_table(root / "events").to_pylist()
    assert r.matches == 8 and r.moves == len(moves) == sum(m["moves"] for m in matches)
    assert {m["game"] for m in matches} == {gid} and len(matches) == 8
    for m in matches:
        state = load_game(m["game"], **json.loads(m["options"])).new_match(
            seed=m["seed"], players=m["players"], max_deals=m["max_deals"])
        mine = sorted((x for x in moves if x["match_id"] == m["match_id"]), key=lambda x: x["ply"])
        assert len(mine) == m["moves"]
        for x in mine:
            assert (x["deal"], x["seat"], x["phase"]) == (state.deal_no, state.current_player, state.phase)
            assert x["legal_count"] == len(state.legal_actions())
            assert x["bot"] == m["bots"][x["seat"]]
            state.apply(x["action"])
        assert state.is_over()
        assert state.scores() == m["scores"] and state.ranking() == m["engine_ranking"]
        assert state.deal_no == m["deals_played"]
        evs = [(e["event"], e["deal"], e["ply"], e["seat"]) for e in events if e["match_id"] == m["match_id"]]
        assert sorted(evs, key=str) == sorted(((e["event"], e["deal"], e["ply"], e["seat"])
                                               for e in state.events), key=str)


def test_a_faulting_bot_is_logged_and_placed_last(tmp_path: Path) -> None:
    gid = GAMES[0]
    b = batch_of(tmp_path, gid, n=2)

    def make(game: Game, refs: Sequence[str], seed: int, seeds: Sequence[int]) -> list[Player]:
        ps = make_players(game, refs, seed, seeds=seeds)
        ps[2] = Faulty(seed, 3, "crash")
        return ps

    run_batch(b, make)
    matches = pq.read_table(Path(b.root) / "matches").to_pylist()
    moves = pq.read_table(Path(b.root) / "moves").to_pylist()
    for m in matches:
        assert m["status"] == "crash" and m["fault_seat"] == 2 and "the bot broke" in m["fault_reason"]
        assert m["faults"][0]["kind"] == "crash" and m["faults"][0]["seat"] == 2
        assert m["ranking"][2] == max(m["ranking"])
        assert sum(1 for r in m["ranking"] if r == m["ranking"][2]) == 1
        seat2 = sorted((x for x in moves if x["match_id"] == m["match_id"] and x["seat"] == 2),
                       key=lambda x: x["ply"])
        assert [x["status"] for x in seat2[:3]] == ["ok", "ok", "crash"]
        assert {x["status"] for x in seat2[3:]} <= {"fallback"}


def test_an_engine_error_is_recorded_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gid = GAMES[0]
    b = batch_of(tmp_path, gid, n=1)
    cls = type(load_game(gid).new_match(seed=1))
    real = cls._apply

    def broken(self: Any, action: str) -> None:
        if len(self.history) == 5:
            raise KeyError("engine bug")
        real(self, action)

    monkeypatch.setattr(cls, "_apply", broken)
    r = run_batch(b)
    assert r.errors == 1
    (m,) = pq.read_table(Path(b.root) / "matches").to_pylist()
    assert m["status"] == "error" and m["fault_seat"] is None and "engine bug" in m["fault_reason"]
    assert m["moves"] == 5


def test_a_retried_batch_rewrites_the_same_files(tmp_path: Path) -> None:
    b = batch_of(tmp_path, GAMES[0], n=3)
    first = run_batch(b)
    before = comparable(Path(b.root))
    second = run_batch(b)
    assert first.parts == second.parts
    for t in TABLES:
        assert len(list((Path(b.root) / t).rglob("*.parquet"))) == 1
        assert not list((Path(b.root) / t).rglob(".*"))
    assert comparable(Path(b.root)) == before


def test_tournament_match_replays_with_cardarena_play(tmp_path: Path) -> None:
    """The README's promise: a logged match is ``play(game, bots by seat, seed, max_deals, seeds=the
    seats' own seeds)`` (``tournaments.schedule.bot_seed`` of the tournament secret)."""
    from bots.match import play

    b = batch_of(tmp_path, GAMES[0], n=2)
    run_batch(b)
    own = {m.match_id: m.seat_seeds for m in b.matches}
    for m in pq.read_table(Path(b.root) / "matches").to_pylist():
        res = play(m["game"], m["bot_refs"], m["seed"], m["max_deals"], seeds=own[m["match_id"]],
                   **json.loads(m["options"]))
        assert res.state.scores() == m["scores"] and res.placement == m["ranking"]


@pytest.mark.parametrize("gid", GAMES)
def test_searching_bots_get_the_same_worlds_as_in_play_match(gid: str) -> None:
    from bots.api import BUILTIN
    from tournaments.runner import builtin_with_options

    if not {"greedy", "ismcts"} <= set(BUILTIN):
        pytest.skip("needs the greedy and ismcts built-ins")
    game = load_game(gid)
    n = game.check_players(None)

    def players() -> list[Player]:
        ps = make_players(game, ["greedy", *["random"] * (n - 1)], 9)
        ps[1] = builtin_with_options("ismcts", gid, 1, seat_seed(9, 1), {"iterations": 4})
        return ps

    ref = play_match(game, players(), 9, max_deals=1)
    got = play_logged(game, players(), 9, max_deals=1)
    assert got.state.history == ref.state.history and got.placement == ref.placement


def test_a_worker_derives_the_seat_seeds_the_driver_used_to_send(tmp_path: Path) -> None:
    """The runner's batches carry no seat seeds (an HMAC per seat, 2.6 s of a driver's 21 s on 20k
    matches) but the secret; the worker derives them: the same seeds as the schedule's and the same
    logged matches.  Without the secret a seedless match is refused, never played with other seeds."""
    import dataclasses

    from tournaments.schedule import match_seat_seeds

    spec = parse_spec(raw_spec(tmp_path, games=[GAMES[0]], bots=FOUR))
    gp = plan(spec)[0]
    full = [m for _, m in zip(range(3), gp.matches(), strict=False)]
    bare = [m for _, m in zip(range(3), gp.matches(seat_seeds=False), strict=False)]
    assert all(not m.seat_seeds for m in bare)
    assert [match_seat_seeds(gp.secret, m) for m in bare] == [m.seat_seeds for m in full]
    g = gp.game
    rows = {}
    for name, ms, secret in (("full", full, b""), ("bare", bare, gp.secret)):
        b = Batch("t", str(tmp_path / name), GAMES[0], g.options, g.players, g.max_deals, tuple(ms),
                  {e.label: e.bot for e in spec.bots}, limits=spec.limits, secret=secret)
        run_batch(b)
        rows[name] = sorted((r["match_id"], r["scores"], r["ranking"])
                            for r in pq.read_table(tmp_path / name / "matches").to_pylist())
    assert rows["full"] == rows["bare"]
    assert "secret" not in repr(dataclasses.replace(b))
    with pytest.raises(ValueError, match="seat seeds"):
        run_batch(dataclasses.replace(b, root=str(tmp_path / "none"), secret=b""))
