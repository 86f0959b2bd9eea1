"""The matchmaker's hard constraints and seeding, over many draws (pure: no games played)."""
from __future__ import annotations

import random
from collections import Counter

from tournaments.ladder.matchmaking import (
    Entry,
    Params,
    choose_table,
    focus,
    pick_seed,
    placement_table,
    table_key,
    top_relevance,
)

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


def spaced(n: int, sigma: float) -> tuple[list[Entry], dict[str, tuple[float, float]]]:
    es = [Entry(f"v{i:02d}@1", f"author{i}", ("ffa",), "active", groups=10) for i in range(n)]
    return es, {e.ref: (40.0 - 2.0 * i, sigma) for i, e in enumerate(es)}


def test_top_relevance_is_the_chance_of_being_above_the_top_k_boundary() -> None:
    es, r = spaced(16, 0.5)
    rel = top_relevance(es, r.__getitem__, 8)
    assert all(rel[f"v{i:02d}@1"] > 0.97 for i in range(7))
    assert all(rel[f"v{i:02d}@1"] < 0.03 for i in range(9, 16))
    assert 0.9 < rel["v07@1"] + rel["v08@1"] < 1.1 and rel["v07@1"] > 0.5 > rel["v08@1"]   # the boundary
    wide = top_relevance(es, spaced(16, 40.0)[1].__getitem__, 8)
    assert all(0.3 < wide[e.ref] < 0.7 for e in es)   # nothing known yet: everyone may be in the top
    assert set(top_relevance(es, r.__getitem__, 0).values()) == {1.0}   # top_k = 0: no preference
    assert set(top_relevance(es[:8], r.__getitem__, 8).values()) == {1.0}


def test_seeding_favours_the_top_of_the_board_by_need() -> None:
    """Equal groups: a version surely in the top is seeded (1 + top_weight) times as often as one surely
    out of it; its need still falls with its groups, so the bottom keeps being served."""
    rng = random.Random(6)
    p = [Entry("top@1", "a", ("ffa",), "active", groups=5, last=100.0),
         Entry("low@1", "b", ("ffa",), "active", groups=5, last=100.0)]
    rel = {"top@1": 1.0, "low@1": 0.0}
    params = Params(lru_share=0.0, top_weight=2.0)
    picks = Counter(pick_seed(p, 100.0, params, rng, rel).ref for _ in range(3000))  # type: ignore[union-attr]
    assert 2.6 < picks["top@1"] / picks["low@1"] < 3.4
    p[0].groups = 17   # three times the need of the other: equal weights (3/18 and 1/6)
    picks = Counter(pick_seed(p, 100.0, params, rng, rel).ref for _ in range(3000))  # type: ignore[union-attr]
    assert 0.8 < picks["top@1"] / picks["low@1"] < 1.25
    flat = Counter(pick_seed(p, 100.0, Params(lru_share=0.0, top_weight=0.0), rng, rel).ref  # type: ignore[union-attr]
                   for _ in range(3000))
    assert flat["low@1"] > 2 * flat["top@1"]


def test_a_top_seed_is_seated_with_the_uncertain_top() -> None:
    """With ``top_pairs`` the information about pairs of the top weighs more: of the four tables a top
    seed can have with two top and two bottom versions, plain information takes the two uncertain
    bottom ones, the weighted information the two of the top."""
    es = [Entry(f"{n}@1", n, ("ffa",), "active") for n in ("seed", "t1", "t2", "b1", "b2")]
    r = {"seed@1": (30.0, 2.0), "t1@1": (30.5, 2.0), "t2@1": (29.5, 2.0), "b1@1": (28.0, 4.0),
         "b2@1": (27.0, 4.0)}
    rel = {"seed@1": 1.0, "t1@1": 1.0, "t2@1": 1.0, "b1@1": 0.0, "b2@1": 0.0}

    def table(top_pairs: float) -> set[str]:
        t = choose_table(es[0], es, {"ffa": (4, False)}, lambda g, ref: r[ref], set(),
                         Params(epsilon=0.0, top_pairs=top_pairs), 4.0, random.Random(8), rel)
        assert t is not None
        return set(t.arrangement)

    assert table(0.0) >= {"b1@1", "b2@1"}
    assert table(8.0) >= {"t1@1", "t2@1"}


def test_top_groups_are_seeded_and_seated_among_the_top_k_plus_margin() -> None:
    """With ``top_share`` a share of the groups (``focus``) is built among the first ``top_k +
    top_margin`` versions by online mu: the seed and every opponent from that set; the other groups
    from the whole pool; with ``top_share = 0`` (or ``top_k = 0``) none."""
    es, r = spaced(20, 1.0)
    overall = r.__getitem__
    params = Params(top_k=4, top_margin=2, top_share=0.4, lru_share=0.0)
    rng = random.Random(5)
    top6 = {f"v{i:02d}@1" for i in range(6)}
    hits = 0
    for _ in range(500):
        among = focus(es, overall, params, rng)
        if among is None:
            continue
        hits += 1
        assert among == top6
        seed = pick_seed(es, 0.0, params, rng, None, among)
        assert seed is not None and seed.ref in top6
        t = choose_table(seed, es, {"ffa": (4, False)}, lambda g, ref: r[ref], set(), params, 4.0, rng, None,
                         among)
        assert t is not None and set(t.arrangement) <= top6
    assert 160 < hits < 240   # 40% of 500
    assert all(focus(es, overall, Params(top_share=0.0), rng) is None for _ in range(50))
    assert all(focus(es, overall, Params(top_k=0, top_share=1.0), rng) is None for _ in range(50))


def test_a_starved_version_is_served_before_a_top_group() -> None:
    es, r = spaced(12, 1.0)
    es[11].last = 0.0   # the bottom version last played at time 0; it is now 1000
    for e in es[:11]:
        e.last = 990.0
    params = Params(top_k=4, top_share=1.0, starvation_s=600.0)
    among = focus(es, lambda ref: r[ref], params, random.Random(1))
    assert among is not None and es[11].ref not in among
    seed = pick_seed(es, 1000.0, params, random.Random(1), None, among)
    assert seed is not None and seed.ref == es[11].ref


def test_a_top_group_falls_back_to_the_pool_when_the_top_cannot_seat_a_table() -> None:
    """The top set without a feasible table (here: one author holds all but the seed) gives a table of
    the whole pool, never none."""
    es = [Entry("s@1", "s", ("ffa",), "active")]
    es += [Entry(f"x{i}@1", "x", ("ffa",), "active") for i in range(3)]
    es += [Entry(f"o{i}@1", f"o{i}", ("ffa",), "active") for i in range(4)]
    r = {e.ref: (30.0 if e.ref[0] in "sx" else 20.0, 1.0) for e in es}
    t = choose_table(es[0], es, {"ffa": (4, False)}, lambda g, ref: r[ref], set(), Params(), 4.0,
                     random.Random(2), None, {"s@1", "x0@1", "x1@1", "x2@1"})
    assert t is not None and t.arrangement[0] == "s@1"
    assert sum(ref.startswith("x") for ref in t.arrangement) <= 1   # one version per author
    assert sum(ref.startswith("o") for ref in t.arrangement) >= 2   # from outside the top set
