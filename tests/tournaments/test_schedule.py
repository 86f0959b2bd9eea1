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
