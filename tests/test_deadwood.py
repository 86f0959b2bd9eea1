"""The exact searches of the meld library (engine/deadwood.py): the deadwood minimiser against
OpenSpiel's gin rummy utilities, the cover search against the minimiser, lazy tables."""
from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.cards import ACE, JOKER, PACK, TOKENS, bits, deck_52, value_table
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
    code = ("import engine.games.rummy._rummy, engine.games.rummy._knock, engine.games.shedding._shedding\n"
            "import engine.games.rummy.tonk\n"
            "import engine.cards as c, engine.deadwood as d, engine.games.rummy._rummy as r\n"
            "assert not d.EXT13 and not d.FOLD14 and not r._SUIT_TABLES\n"
            "d.lower_bound(7, 0, 0); r.by_suit('meld ', 5)\n"
            "assert len(d.EXT13) == 1 << 13 and len(d.FOLD14) == 1 << 14\n"
            "assert len(r._SUIT_TABLES['meld ']) == 4\n"
            "assert r.by_suit('meld ', 5) == ['meld 2C', 'meld 4C'] and c.bits(1 << 70 | 3) == [0, 1, 70]\n")
    root = Path(__file__).resolve().parent.parent
    got = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr


def _near_melded_hand(rng: random.Random, deck: list[int], size: int) -> list[int]:
    """A random hand of ``size`` physical cards from ``deck``, mostly sets and runs (some of their
    places taken by jokers or 2s), then random cards: many hands that meld, or all but one card."""
    pool = list(deck)
    rng.shuffle(pool)
    by_base: dict[int, list[int]] = {}
    for c in pool:
        by_base.setdefault(c % PACK, []).append(c)
    hand: list[int] = []

    def take(b: int) -> bool:
        if by_base.get(b):
            hand.append(by_base[b].pop())
            return True
        return False

    goal = size - rng.choice((0, 1, 1, 2, 3))
    while len(hand) < goal:
        if rng.random() < 0.5:  # a run of 3..5 in one suit, the ace low or high
            s, n = rng.randrange(4), rng.choice((3, 3, 4, 5))
            start = rng.randrange(14 - n + 1)
            places = [(12 if p in (0, 13) else p - 1) + 13 * s for p in range(start, start + n)]
        else:  # a set of 3 or 4
            r = rng.randrange(13)
            places = [r + 13 * s for s in rng.sample(range(4), rng.choice((3, 4)))]
        for b in places[:size - len(hand)]:
            wild = rng.random() < 0.15
            if not (wild and (take(52) or take(53) or take(rng.randrange(4) * 13))) and not take(b):
                take(rng.choice(list(by_base)))
    while len(hand) < size:
        take(rng.choice([b for b, cs in by_base.items() if cs]))
    return hand


def test_wr7_one_search_finds_every_out_card_the_per_card_loop_finds() -> None:
    """WR7/CR4: ``Solver.outs1`` (one search) gives exactly ``count2(hand) == 0`` and the cards
    whose removal leaves ``count2 == 0``, the per-card loop the going-out offer used before, and
    the games' cached ``outs`` the same as their ``out_count`` loop; on random near-melded hands of
    one pack (two jokers) and two packs (four jokers), 2s wild or not (WR8), after the draw (7+1,
    6+1, 10+1 cards) and not, for the specs of Wildcard and Cincinnati Rummy and two others."""
    from engine import load_game
    from engine.cards import build_deck
    from engine.games.rummy._knock import ConfrontationGame

    games = [load_game("wildcard_rummy"), load_game("cincinnati_rummy")]
    specs = [g.solver.spec for g in games if isinstance(g, ConfrontationGame)]
    specs += [GIN, MeldSpec(set_max=3, run_min=3, run_max=4, ace_low=False, ace_high=True, wild_twos=True)]
    rng = random.Random(15)
    seen = Counter[str]()
    for packs in (1, 2):
        deck = build_deck(jokers=2 * packs, packs=packs)
        for spec in specs:
            solver = Solver(spec, [1] * PACK, 1)
            for _ in range(70):
                hand = _near_melded_hand(rng, deck, rng.choice((7, 8, 10, 11)))
                whole, out = solver.outs1(hand)
                assert whole == (solver.count2(hand) == 0), [TOKENS[c] for c in hand]
                loop = 0
                for c in hand:
                    if solver.count2([x for x in hand if x != c]) == 0:
                        loop |= 1 << c
                assert out == loop, ([TOKENS[c] for c in hand], spec)
                seen["whole" if whole else "out" if out else "none"] += 1
                seen["two packs, out"] += packs == 2 and out != 0
                seen["a 2 or joker out"] += any(out >> c & 1 and (c % PACK >= JOKER or c % 13 == 0)
                                                for c in hand)
        for game in games:
            assert isinstance(game, ConfrontationGame)
            for _ in range(60):
                hand_cards = _near_melded_hand(rng, deck, rng.choice((7, 8, 11)))
                mask = sum(1 << c for c in hand_cards)
                loop = 0
                for c in hand_cards:
                    if game.solver.count2(bits(mask & ~(1 << c))) == 0:
                        loop |= 1 << c
                whole = game.solver.count2(bits(mask)) == 0
                assert game.outs(mask) == (whole, loop), [TOKENS[c] for c in hand_cards]
    # the comparison has teeth: every kind of answer occurs
    assert min(seen[k] for k in ("whole", "out", "none", "two packs, out", "a 2 or joker out")) >= 10, seen


def test_rk1_one_search_finds_every_knock_discard_the_per_card_loop_finds() -> None:
    """RK1: ``Solver.knock_discards`` (one search) gives exactly the cards ``c`` with
    ``within(hand - c, budget)``, the per-card loop Ramino Klop's knock offer and knock discards
    used before, and the game's cached ``knock_discards`` the same as its ``within`` loop at
    deadwood 6; on random near-melded hands of one pack (two jokers) and two packs (four jokers),
    with real card values (jokers 20 or 10), budgets 0-12, for Ramino Klop's spec and others (2s
    wild, ace high, long runs)."""
    from engine import load_game
    from engine.cards import build_deck
    from engine.games.rummy.ramino_klop import KNOCK_MAX, VALUES, RaminoKlop

    game = load_game("ramino_klop")
    assert isinstance(game, RaminoKlop)
    specs = [game.solver.spec, GIN, MeldSpec(set_max=3, run_min=3, run_max=4, ace_low=False, ace_high=True,
                                             wild_twos=True), MeldSpec(wild_twos=True)]
    rng = random.Random(16)
    seen = Counter[str]()
    for packs in (1, 2):
        deck = build_deck(jokers=2 * packs, packs=packs)
        for spec in specs:
            for wv in (20, 10):
                solver = Solver(spec, VALUES, wv)
                for _ in range(40):
                    hand = _near_melded_hand(rng, deck, rng.choice((7, 8, 10, 11)))
                    budget = rng.choice((KNOCK_MAX, KNOCK_MAX, 0, rng.randrange(13)))
                    out = solver.knock_discards(hand, budget)
                    loop = 0
                    for i, c in enumerate(hand):
                        if solver.within(hand[:i] + hand[i + 1:], budget):
                            loop |= 1 << c
                    assert out == loop, ([TOKENS[c] for c in hand], budget, spec, wv)
                    seen["out" if out else "none"] += 1
                    seen["not every card"] += out != 0 and out != sum(1 << c for c in hand)
                    seen["two packs, out"] += packs == 2 and out != 0
                    seen["a 2 or joker out"] += any(out >> c & 1 and (c % PACK >= JOKER or c % 13 == 0)
                                                    for c in hand)
        for _ in range(80):
            hand_cards = _near_melded_hand(rng, deck, 8)
            mask = sum(1 << c for c in hand_cards)
            loop = 0
            for c in hand_cards:
                if game.solver.within(bits(mask & ~(1 << c)), KNOCK_MAX):
                    loop |= 1 << c
            assert game.knock_discards(mask) == loop, [TOKENS[c] for c in hand_cards]
            seen["game, out"] += loop != 0
    # the comparison has teeth: every kind of answer occurs
    assert min(seen[k] for k in ("out", "none", "not every card", "two packs, out", "a 2 or joker out",
                                 "game, out")) >= 10, seen


def _engine_cycles(play: object) -> list[object]:
    """The engine objects (states, melds, the engine's functions) that ``play()`` leaves in
    reference cycles: collected with ``DEBUG_SAVEALL``, so the cycle collector keeps them."""
    import gc
    import types
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert callable(play)
        play()
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()

    def engine_owned(o: object) -> bool:
        if isinstance(o, types.FunctionType):
            return o.__module__.startswith("engine")
        return type(o).__module__.startswith("engine")
    return [o for o in found if engine_owned(o)]


def test_the_use_it_at_once_search_leaves_no_reference_cycle() -> None:
    """plan_search (the "use it at once" turn search, J2/J12, AJ15, JD5, RD6) leaves nothing for the
    cycle collector: a DFS written as a closure that calls itself is a cycle (the function, its
    cell) holding every search state it reached, freed only by the collector, whose collections
    then cost the whole game (issue 28 §4: Amerikaans Jokeren, Jokeren NL and Drift, Ramino Drift).
    Random one-deal matches of the rummies that run the search (each runs it in these seeds)."""
    import engine.core
    from engine import _compiled, load_game
    from engine.games.rummy._rummy import RummyState

    if _compiled.is_compiled(engine.core):
        pytest.skip("the source's search (a compiled class's method cannot be wrapped to count calls)")
    calls = 0
    search = RummyState._plan_from

    def counted(self: RummyState, root: RummyState) -> list[str] | None:
        nonlocal calls
        calls += 1
        return search(self, root)

    def play() -> None:
        for gid in ("jokeren_nl", "jokeren_drift", "amerikaans_jokeren", "ramino_drift"):
            game = load_game(gid)
            for seed in range(6):
                rng = random.Random(seed)
                st = game.new_match(seed=seed, max_deals=1)
                while not st.is_over():
                    st.apply(rng.choice(st.legal_actions()))

    mp = pytest.MonkeyPatch()
    mp.setattr(RummyState, "_plan_from", counted)
    try:
        left = _engine_cycles(play)
    finally:
        mp.undo()
    assert calls > 20, "the seeds no longer reach the search: choose others"
    assert left == [], f"{len(left)} engine objects in reference cycles, e.g. {left[:3]}"
