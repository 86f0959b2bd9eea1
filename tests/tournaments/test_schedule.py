"""The schedule: every combination (every team split) in all rotations over duplicate boards,
deterministic from the spec, with stable ids; and the balanced sampled schedule."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, game_class
from tests.tournaments.conftest import raw_spec
from tournaments.schedule import (
    bot_seed,
    count_arrangements,
    deal_seed,
    group_id,
    match_id,
    plan,
    rotate,
    sampled_arrangements,
    schedule,
    secret_from_seed,
    splits,
)
from tournaments.spec import Spec, SpecError, parse_spec

FIVE: list[Any] = ["random", *({"name": f"r{i}", "bot": "random"} for i in range(2, 6))]
TEAM_GAMES = [g for g in GAMES if game_class(g).teams]
SOLO_GAMES = [g for g in GAMES if not game_class(g).teams]


def spec_for(tmp_path: Path, games: list[str], bots: Sequence[Any], boards: int = 2, **over: object) -> Spec:
    return parse_spec(raw_spec(tmp_path, games=games, bots=bots, matches_per_seating=boards, **over))


@pytest.mark.parametrize("gid", GAMES)
def test_every_combination_in_every_rotation_on_every_board(tmp_path: Path, gid: str) -> None:
    spec = spec_for(tmp_path, [gid], FIVE, boards=2)
    n = spec.games[0].players
    teams = game_class(gid).teams
    ms = list(schedule(spec))
    assert len(ms) == math.comb(5, n) * (3 if teams else 1) * n * 2 == plan(spec)[0].total
    assert len({m.match_id for m in ms}) == len(ms)
    combos = Counter(frozenset(m.seats) for m in ms)
    assert len(combos) == math.comb(5, n)
    # every entrant holds every seat equally often, over the whole schedule
    seat_counts = Counter((label, s) for m in ms for s, label in enumerate(m.seats))
    labels = {e for m in ms for e in m.seats}
    per_entrant = {label: {seat_counts[(label, s)] for s in range(n)} for label in labels}
    assert all(len(v) == 1 for v in per_entrant.values()), per_entrant


@pytest.mark.parametrize("gid", GAMES)
def test_duplicate_boards_share_the_seed_across_rotations_and_seatings(tmp_path: Path, gid: str) -> None:
    spec = spec_for(tmp_path, [gid], FIVE, boards=3)
    ms = list(schedule(spec))
    seeds = {b: {m.seed for m in ms if m.board == b} for b in range(3)}
    assert all(len(s) == 1 for s in seeds.values())
    assert len({next(iter(s)) for s in seeds.values()}) == 3
    groups: dict[str, list[int]] = {}
    for m in ms:
        groups.setdefault(m.group_id, []).append(m.rotation)
    n = spec.games[0].players
    assert all(sorted(r) == list(range(n)) for r in groups.values())


@pytest.mark.parametrize("gid", TEAM_GAMES)
def test_partnership_games_play_every_split_with_partners_opposite(tmp_path: Path, gid: str) -> None:
    spec = spec_for(tmp_path, [gid], FIVE[:4], boards=1)
    ms = list(schedule(spec))
    teams = Counter(frozenset((frozenset((m.seats[0], m.seats[2])), frozenset((m.seats[1], m.seats[3]))))
                    for m in ms)
    assert len(teams) == 3 and set(teams.values()) == {4}   # 3 splits x 4 rotations
    for m in ms:  # a rotation keeps partners opposite
        base = next(x for x in ms if x.group_id == m.group_id and x.rotation == 0)
        assert {frozenset((m.seats[0], m.seats[2])), frozenset((m.seats[1], m.seats[3]))} == \
               {frozenset((base.seats[0], base.seats[2])), frozenset((base.seats[1], base.seats[3]))}


def test_schedule_is_deterministic_and_ids_derive_from_the_spec(tmp_path: Path) -> None:
    gid = GAMES[0]
    secret = bytes(range(32))
    a = list(schedule(spec_for(tmp_path, [gid], FIVE), secret=secret))
    b = list(schedule(spec_for(tmp_path / "x", [gid], FIVE), secret=secret))
    assert a == b
    c = list(schedule(spec_for(tmp_path, [gid], FIVE, seed=12), secret=secret))
    assert not {m.match_id for m in a} & {m.match_id for m in c}
    m = a[5]
    arrangement = rotate(m.seats, -m.rotation)
    assert m.match_id == match_id(11, gid, arrangement, m.rotation, m.board)
    assert m.group_id == group_id(11, gid, arrangement, m.board)
    assert m.seed == deal_seed(secret, gid, m.board)
    assert m.seat_seeds == tuple(bot_seed(secret, gid, m.board, m.match_id, s) for s in range(len(m.seats)))
    # the ids never depend on the secret; with secret = "seed" the seeds come from the spec alone
    fresh = list(schedule(spec_for(tmp_path, [gid], FIVE)))
    assert [x.match_id for x in fresh] == [x.match_id for x in a]
    seeded = list(schedule(spec_for(tmp_path, [gid], FIVE, secret="seed")))
    assert seeded == list(schedule(spec_for(tmp_path / "y", [gid], FIVE, secret="seed")))
    assert seeded == list(schedule(spec_for(tmp_path, [gid], FIVE), secret=secret_from_seed(11)))


def test_rotation_and_splits() -> None:
    assert rotate(("a", "b", "c"), 0) == ("a", "b", "c")
    assert rotate(("a", "b", "c"), 2) == ("b", "c", "a")
    assert splits(("a", "b", "c", "d")) == [("a", "c", "b", "d"), ("a", "b", "c", "d"), ("a", "b", "d", "c")]


@pytest.mark.parametrize("teams", [False, True])
def test_sampled_schedule_balances_appearances_meetings_and_seats(teams: bool) -> None:
    entrants = [f"b{i:02d}" for i in range(12)]
    total = count_arrangements(12, 4, teams)
    assert total == 495 * (3 if teams else 1)
    arrs = sampled_arrangements(entrants, 4, teams, 60, random.Random(5))
    assert len(set(arrs)) == 60
    full: set[tuple[str, ...]] = set()
    for c in itertools.combinations(entrants, 4):
        full.update(splits(c) if teams else [c])
    assert set(arrs) <= full   # a subset of the full schedule: the same match ids
    appear = Counter(e for a in arrs for e in a)
    assert max(appear.values()) - min(appear.values()) <= 1 and sum(appear.values()) == 240
    meet = Counter(frozenset(p) for a in arrs for p in itertools.combinations(a, 2))
    assert len(meet) == 66 and max(meet.values()) - min(meet.values()) <= 3   # 360 meetings, 66 pairs
    if teams:
        partners = Counter(frozenset((a[i], a[i + 2])) for a in arrs for i in (0, 1))
        assert max(partners.values()) <= 3   # 120 partnerships over 66 pairs


def test_sampled_spec_is_a_subset_of_the_full_one(tmp_path: Path) -> None:
    gid = next(iter(SOLO_GAMES or GAMES))
    bots: list[Any] = ["random", *({"name": f"r{i}", "bot": "random"} for i in range(2, 9))]
    full = {m.match_id for m in schedule(spec_for(tmp_path, [gid], bots, boards=1))}
    sampled = list(schedule(spec_for(tmp_path, [gid], bots, boards=1,
                                     schedule={"mode": "sampled", "seatings": 10})))
    n = game_class(gid).default_players
    assert len(sampled) == 10 * n and {m.match_id for m in sampled} <= full


def test_sampled_seatings_beyond_the_distinct_ones_are_refused(tmp_path: Path) -> None:
    gid = GAMES[0]
    spec = spec_for(tmp_path, [gid], FIVE, schedule={"mode": "sampled", "seatings": 10_000})
    with pytest.raises(SpecError, match=r"schedule\.seatings: 10000 exceeds"):
        plan(spec)


def _plain_greedy(n: int, k: int, count: int, copies: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The greedy phase of the sampled schedule as a plain loop, one ``rng.random()`` at a time: a
    seat goes to the first entrant of least (appearances + noise * u1, meetings with the table, u2)."""
    appear = [0] * n
    meet = [[0] * n for _ in range(n)]
    used: Counter[tuple[int, ...]] = Counter()
    tables: list[tuple[int, ...]] = []

    def pick(noise: float) -> tuple[int, ...]:
        chosen: list[int] = []
        for _ in range(k):
            best = min((e for e in range(n) if e not in chosen),
                       key=lambda e: (appear[e] + noise * rng.random(),
                                      sum(meet[e][c] for c in chosen), rng.random()))
            chosen.append(best)
        return tuple(sorted(chosen))

    while len(tables) < count:
        combo = None
        for attempt in range(200):
            c = pick(noise=attempt / 20)
            if used[c] < copies:
                combo = c
                break
        if combo is None:
            combo = next(c for c in itertools.combinations(range(n), k) if used[c] < copies)
        used[combo] += 1
        tables.append(combo)
        for e in combo:
            appear[e] += 1
        for a, b in itertools.combinations(combo, 2):
            meet[a][b] += 1
            meet[b][a] += 1
    return tables


@pytest.mark.parametrize("seed", range(6))
def test_sampled_greedy_vectorised_draws_equal_the_plain_loop(seed: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The vectorised greedy (numpy's MT19937 continuing the seeded RNG) seats the same tables and
    leaves the RNG where the one-draw-at-a-time loop leaves it, so schedules (and match ids) stay
    those of earlier versions; the repair and the swaps are skipped to compare the greedy alone."""
    import tournaments.schedule as sch
    monkeypatch.setattr(sch, "_even_appearances", lambda *a: None)
    monkeypatch.setattr(sch, "_even_meetings", lambda *a: None)
    meta = random.Random(seed)
    for _ in range(8):
        k = meta.choice([2, 3, 4, 5, 6])
        n = meta.choice([k, k + 1, k + 3, 12, 40, 130])
        copies = meta.choice([1, 3])
        count = meta.randint(1, min(copies * math.comb(n, k), 90))
        s = meta.randrange(2**32)
        plain_rng, rng = random.Random(s), random.Random(s)
        assert [tuple(t) for t in sch._balanced_tables(n, k, count, copies, rng)] == \
            [tuple(sorted(t)) for t in _plain_greedy(n, k, count, copies, plain_rng)]
        assert rng.getstate() == plain_rng.getstate()


def test_least_spread_graph_check_is_erdos_gallai() -> None:
    """_graphic (prefix sums) decides as the inequality written out for every r does."""
    from tournaments.schedule import _graphic

    def plain(degrees: Sequence[int]) -> bool:
        d = sorted(degrees, reverse=True)
        return sum(d) % 2 == 0 and all(
            sum(d[:r]) <= r * (r - 1) + sum(min(x, r) for x in d[r:]) for r in range(1, len(d) + 1))

    rng = random.Random(7)
    answers: Counter[bool] = Counter()
    for _ in range(3000):
        n = rng.randint(0, 12)
        d = [rng.randint(0, max(0, n - 1) + rng.choice([0, 0, 3])) for _ in range(n)]
        answers[plain(d)] += 1
        assert _graphic(d) == plain(d), d
    assert answers[True] > 100 and answers[False] > 100


def test_match_ids_are_the_ids_of_the_matches_in_order(tmp_path: Path) -> None:
    """GamePlan.match_ids (the set a run checks its log against) lists matches()'s ids, in order."""
    spec = parse_spec(raw_spec(tmp_path, games=["hartenjagen", "manillen"], matches_per_seating=2))
    for gp in plan(spec, None, secret_from_seed(spec.seed)):
        assert list(gp.match_ids()) == [m.match_id for m in gp.matches(seat_seeds=False)]
