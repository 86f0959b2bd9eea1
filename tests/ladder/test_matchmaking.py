"""The matchmaker's hard constraints and seeding, over many draws (pure: no games played)."""
from __future__ import annotations

import random
from collections import Counter

from tournaments.ladder.matchmaking import Entry, Params, choose_table, pick_seed, placement_table, table_key

GAMES = {"ffa": (4, False), "teams": (4, True)}


def pool() -> list[Entry]:
    refs = [Entry(f"ref{i}", "reference", ("ffa", "teams"), "active") for i in range(3)]
    subs = [Entry(f"{a}{k}@1", a, ("ffa", "teams"), "active", groups=k) for a in "abcd" for k in range(2)]
    return refs + subs


def rating(game: str, ref: str) -> tuple[float, float]:
    return (25.0 + (hash(ref) % 7), 3.0 + (hash(ref) % 3))


def test_one_version_per_author_at_every_table_and_partners_too() -> None:
    rng = random.Random(1)
    p = pool()
    authors = {e.ref: e.author for e in p}
    for _ in range(500):
        seed = pick_seed(p, 0.0, Params(), rng)
        assert seed is not None
        t = choose_table(seed, p, GAMES, rating, set(), Params(), 4.0, rng)
        assert t is not None and len(t.arrangement) == 4 and len(set(t.arrangement)) == 4
        mine = Counter(authors[r] for r in t.arrangement if authors[r] != "reference")
        assert max(mine.values()) == 1
        assert 0.0 < t.probability <= 1.0


def test_no_table_identical_to_a_recent_one() -> None:
    rng = random.Random(2)
    p = pool()
    recent: list[tuple[str, frozenset[frozenset[str]]]] = []
    for _ in range(300):
        seed = pick_seed(p, 0.0, Params(), rng)
        assert seed is not None
        t = choose_table(seed, p, GAMES, rating, set(recent[-5:]), Params(), 4.0, rng)
        assert t is not None
        key = table_key(t.game, t.arrangement, GAMES[t.game][1])
        assert key not in recent[-5:]
        recent.append(key)
        seed.per_game[t.game] = seed.per_game.get(t.game, 0) + 1


def test_identical_tables_under_another_split_are_different_tables() -> None:
    a = table_key("teams", ("w", "x", "y", "z"), True)
    assert a == table_key("teams", ("y", "z", "w", "x"), True)
    assert a != table_key("teams", ("w", "y", "x", "z"), True)


def test_seeding_is_by_need_not_sigma_and_serves_the_starved_first() -> None:
    rng = random.Random(3)
    p = [Entry("new@1", "a", ("ffa",), "active", groups=0, last=100.0),
         Entry("old@1", "b", ("ffa",), "active", groups=30, last=100.0)]
    picks = Counter(pick_seed(p, 100.0, Params(lru_share=0.0), rng).ref for _ in range(2000))  # type: ignore[union-attr]
    assert picks["new@1"] > 20 * picks["old@1"] * 0.5   # weights 1 and 1/31
    starved = [Entry("new@1", "a", ("ffa",), "active", groups=0, last=1000.0),
               Entry("old@1", "b", ("ffa",), "active", groups=30, last=0.0)]
    assert pick_seed(starved, 1000.0, Params(starvation_s=600.0), rng).ref == "old@1"  # type: ignore[union-attr]


def test_reference_bots_seed_only_without_active_submissions() -> None:
    rng = random.Random(4)
    p = pool()
    assert all(not pick_seed(p, 0.0, Params(), rng).reference for _ in range(200))  # type: ignore[union-attr]


def test_placement_plays_reference_bots_only() -> None:
    rng = random.Random(5)
    refs = [Entry(f"ref{i}", "reference", ("ffa", "teams"), "active") for i in range(3)]
    v = Entry("new@1", "a", ("teams",), "placement")
    t = placement_table(v, refs, GAMES, rng)
    assert t is not None and t.game == "teams" and t.reason == "placement"
    assert sorted(t.arrangement) == sorted(["new@1", "ref0", "ref1", "ref2"])
