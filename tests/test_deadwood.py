"""The exact searches of the meld library (engine/deadwood.py): the deadwood minimiser against
OpenSpiel's gin rummy utilities, the cover search against the minimiser, lazy tables."""
from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.cards import ACE, PACK, TOKENS, deck_52, value_table
from engine.deadwood import MeldSpec, Solver, can_cover, can_reach, lower_bound, naturals
from engine.melds import GroupRule, RunRule, check_group, check_run, meld_candidates

GIN = MeldSpec(set_max=4, run_min=3, ace_low=True, ace_high=False)  # gin rummy: the ace low only
GIN_VALUES = value_table(ace=1)  # A 1, pips face value, J Q K 10
_OS_SUIT = (1, 2, 3, 0)  # our suits C D H S -> OpenSpiel's s c d h


def _os_card(c: int) -> int:
    """Our card id (suit * 13 + rank, 2..A) as OpenSpiel's (suit * 13 + rank, A..K)."""
    s, r = divmod(c, 13)
    return _OS_SUIT[s] * 13 + (0 if r == ACE else r + 1)


def _hands(rng: random.Random, n: int, size: int) -> list[list[int]]:
    """Random hands, half of them from two suits only (many runs and sets to choose between)."""
    out = []
    for i in range(n):
        if i % 2:
            suits = rng.sample(range(4), 2)
            pool = sorted({s * 13 + r for s in suits for r in range(13)} | set(rng.sample(range(52), 6)))
        else:
            pool = list(range(52))
        out.append(rng.sample(pool, size))
    return out


def test_deadwood_matches_openspiel_gin_rummy_min_deadwood() -> None:
    """Hands of up to 10 cards: our exact minimiser and ``GinRummyUtils.min_deadwood`` agree.

    With 11 cards OpenSpiel returns the deadwood after its choice of discard (a shortcut over the
    best arrangement of the 11, not a search over every discard); ours, the least over every
    discard, is never more than it (so equal or better)."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pip open-spiel, the test extra) is missing")
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    solver = Solver(GIN, GIN_VALUES, 0)
    rng = random.Random(13)
    for size in (2, 4, 7, 10):
        for hand in _hands(rng, 60, size):
            assert solver.deadwood(hand) == utils.min_deadwood([_os_card(c) for c in hand]), \
                " ".join(TOKENS[c] for c in hand)
    for hand in _hands(rng, 40, 11):
        ours = min(solver.deadwood([x for x in hand if x != c]) for c in hand)
        assert ours <= utils.min_deadwood([_os_card(c) for c in hand]), " ".join(TOKENS[c] for c in hand)


def test_arrange_gives_legal_melds_and_the_deadwood_it_counts() -> None:
    spec = MeldSpec(set_max=4, run_min=3, ace_low=True, ace_high=True)
    values = value_table(ace=11, joker=25)
    solver = Solver(spec, values, 25)
    runs = RunRule(min_len=3, ace_low=True, ace_high=True)
    groups = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    deck = [*deck_52(), 52, 53]
    rng = random.Random(4)
    for _ in range(150):
        hand = rng.sample(deck, rng.choice((7, 10)))
        cost, melds, dead = solver.arrange(hand)
        assert cost == solver.deadwood(hand) == sum(values[c] for c in dead)
        used = [c for m in melds for c, _ in m] + dead
        assert Counter(used) == Counter(hand)  # every card once, in a meld or as deadwood
        for m in melds:
            named = [(c, n) for c, n in m]
            try:
                check_run(named, runs)
            except ValueError:
                check_group(named, groups)  # not a run: then a legal set


def test_cover_search_agrees_with_the_deadwood_minimiser_without_jokers() -> None:
    """``can_cover`` over ``meld_candidates`` and ``Solver.fits`` are two exact searches: on
    one-pack hands without jokers (the same sets and runs, the ace high or low) they agree."""
    spec = MeldSpec(set_max=4, run_min=3, ace_low=True, ace_high=True)
    solver = Solver(spec, [1] * PACK, 1)
    runs = RunRule(min_len=3, ace_low=True, ace_high=True)
    groups = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    rng = random.Random(8)
    agree = {True: 0, False: 0}
    for hand in _hands(rng, 160, 9):
        counts = dict(Counter(hand))
        cands = meld_candidates(counts, 0, runs, groups, lambda kind, nats, lo, nj: len(nats))
        for spare in (0, 1, 2):
            got = can_cover(cands, dict(counts), 0, spare)
            assert got == solver.fits(hand, spare), (" ".join(TOKENS[c] for c in hand), spare)
            agree[got] += 1
    assert agree[True] and agree[False]  # both answers occur: the comparison has teeth


def test_can_reach_finds_points_within_the_card_budget() -> None:
    runs = RunRule(min_len=3, ace_low=True, ace_high=True)
    groups = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    hand = [0 * 13 + r for r in (3, 4, 5)] + [s * 13 + 11 for s in (0, 1, 2)]  # 5C 6C 7C, KC KD KH
    counts = dict(Counter(hand))
    cands = meld_candidates(counts, 0, runs, groups, lambda kind, nats, lo, nj: sum(b % 13 + 2 for b in nats))
    assert can_reach(cands, dict(counts), 0, 6, 18 + 39)      # both melds: 18 + 39 points in 6 cards
    assert not can_reach(cands, dict(counts), 0, 5, 18 + 39)  # one card short
    assert can_reach(cands, dict(counts), 0, 3, 39)
    assert not can_reach(cands, dict(counts), 0, 6, 58)


def test_lower_bound_never_exceeds_the_unmelded_count() -> None:
    spec = MeldSpec(set_max=4, run_min=3, ace_low=True, ace_high=False)
    solver = Solver(spec, [1] * PACK, 1)
    deck = [*deck_52(), 52, 53]
    rng = random.Random(2)
    for _ in range(300):
        hand = rng.sample(deck, 8)
        m1, m2, w = naturals(sum(1 << c for c in hand), False)
        assert lower_bound(m1, m2, w) <= solver.deadwood(hand)


def test_no_meld_table_is_built_at_import() -> None:
    """Issue 15: the run-place tables and the rummy's action tables are built on first use, not when
    the family modules are imported (and ``bits`` needs no table at all)."""
    code = ("import engine.games._rummy, engine.games._knock, engine.games._shedding, engine.games.tonk\n"
            "import engine.cards as c, engine.deadwood as d, engine.games._rummy as r\n"
            "assert not d.EXT13 and not d.FOLD14 and not r._SUIT_TABLES\n"
            "d.lower_bound(7, 0, 0); r.by_suit('meld ', 5)\n"
            "assert len(d.EXT13) == 1 << 13 and len(d.FOLD14) == 1 << 14\n"
            "assert len(r._SUIT_TABLES['meld ']) == 4\n"
            "assert r.by_suit('meld ', 5) == ['meld 2C', 'meld 4C'] and c.bits(1 << 70 | 3) == [0, 1, 70]\n")
    root = Path(__file__).resolve().parent.parent
    got = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
