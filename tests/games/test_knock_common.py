"""engine/games/rummy/_knock.py: the exact deadwood minimiser (RULES.md "Common rummy definitions":
deadwood, set composition, jokers naming cards, ace rules) checked on hand-made hands and against
a brute-force search over every partition of small random hands."""
from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations

import pytest

from engine.cards import ACE, IS_JOKER, PACK, PHYS, TOKENS, deck_52, deck_54, deck_108, value_table
from engine.deadwood import MeldSpec, Solver, melds_text, prefilter_out

KLOP = MeldSpec()
RAMINO = MeldSpec(run_max=4)
WILD = MeldSpec(ace_high=True, wild_twos=True)
CINCI = MeldSpec(ace_high=True)
V1 = value_table(ace=1, joker=20)
V11 = value_table(ace=11, joker=25, two=25)


def cards(text: str) -> list[int]:
    used: set[int] = set()
    out = []
    for t in text.split():
        c = next(x for x in PHYS[t] if x not in used)
        used.add(c)
        out.append(c)
    return out


def arrange(spec: MeldSpec, values: Sequence[int], wild: int, text: str) -> tuple[int, list[str], list[str]]:
    cost, melds, dead = Solver(spec, values, wild).arrange(cards(text))
    return cost, sorted(melds_text(melds)), sorted(TOKENS[c] for c in dead)


def test_runs_and_sets_ace_low_only() -> None:
    assert arrange(KLOP, V1, 0, "AH 2H 3H 4H 4S 4D 9C 9D KC") == (
        28, ["4D 4H 4S", "AH 2H 3H"], ["9C", "9D", "KC"])
    assert arrange(KLOP, V1, 0, "QH KH AH")[0] == 21  # never Q-K-A with the ace low


def test_ace_high_or_low_never_both() -> None:
    assert arrange(CINCI, V11, 15, "QH KH AH")[0] == 0
    assert arrange(CINCI, value_table(ace=11, joker=15), 15, "KH AH 2H")[0] == 10 + 11 + 2  # no K-A-2
    assert arrange(CINCI, V11, 15, "AH 2H 3H")[1] == ["AH 2H 3H"]
    assert arrange(CINCI, V11, 15, "QH KH AH")[1] == ["QH KH AH"]


def test_two_pack_sets_need_distinct_suits() -> None:
    # RK5 / common definition: the two packs' copies of a card never share a set
    assert arrange(RAMINO, V1, 20, "7H 7H 7S") == (21, [], ["7H", "7H", "7S"])
    assert arrange(RAMINO, V1, 20, "7H 7H 7S 7D 7C") == (7, ["7C 7D 7H 7S"], ["7H"])


def test_joker_may_stand_in_for_a_held_card() -> None:
    # the natural 7H serves in the set, a joker takes its place in the run
    cost, melds, dead = arrange(RAMINO, V1, 20, "6H 8H 7H JK JK JK")
    assert cost == 0 and not dead and len(melds) == 2


def test_run_length_cap() -> None:
    assert arrange(RAMINO, V1, 20, "3H 4H 5H 6H 7H 8H 9H")[0] == 0  # 3 + 4
    assert arrange(RAMINO, V1, 20, "3H 4H 5H 6H 7H")[0] == 3  # no 5-card run: 4 + a spare end
    assert arrange(KLOP, V1, 0, "3H 4H 5H 6H 7H")[0] == 0


def test_wild_two_stands_for_itself_or_any_card() -> None:
    assert arrange(WILD, V11, 25, "2H 2S 2D")[0] == 0
    cost, melds, _ = arrange(WILD, V11, 25, "QH KH 2C")
    assert cost == 0 and melds in (["2C=JH QH KH"], ["QH KH 2C=AH"])
    assert arrange(WILD, V11, 25, "JK JK 2C")[0] == 0  # 2C natural with two jokers
    assert arrange(WILD, V11, 25, "JK JK JK")[0] == 75  # no meld of wild cards only


def test_joker_names_a_missing_suit_in_a_set() -> None:
    cost, melds, _ = arrange(RAMINO, V1, 20, "7H 7S JK")
    assert cost == 0 and melds[0].startswith("7H 7S JK=7")
    assert melds[0][-1] in "CD"


# --------------------------------------------------------------------- brute force oracle
def _is_meld(group: tuple[int, ...], spec: MeldSpec) -> bool:
    wild = [c for c in group if IS_JOKER[c] or (spec.wild_twos and c % PACK % 13 == 0)]
    duals = [c for c in wild if not IS_JOKER[c]]
    n = len(group)
    if n < 3:
        return False
    # try every choice of the 2s as natural or wild
    for mask in range(1 << len(duals)):
        nat = [c % PACK for c in group if c not in wild]
        nat += [duals[i] % PACK for i in range(len(duals)) if mask >> i & 1]
        w = n - len(nat)
        if not nat:
            continue
        if len({b % 13 for b in nat}) == 1 and len({b // 13 for b in nat}) == len(nat) and n <= spec.set_max:
            return True
        if len({b // 13 for b in nat}) == 1 and len(set(nat)) == len(nat):
            rmax = spec.run_max or 14
            if n > rmax or n < spec.run_min:
                continue
            for high in ([False] if not spec.ace_high else [False, True] if spec.ace_low else [True]):
                pos = sorted((13 if high else 0) if b % 13 == ACE else b % 13 + 1 for b in nat)
                if pos[-1] - pos[0] + 1 - len(pos) <= w and pos[-1] - pos[0] + 1 <= n:
                    lo_room = pos[0] - (0 if spec.ace_low else 1)
                    hi_room = (13 if spec.ace_high else 12) - pos[-1]
                    if n - (pos[-1] - pos[0] + 1) <= lo_room + hi_room:
                        return True
    return False


def brute(hand: list[int], spec: MeldSpec, values: Sequence[int]) -> int:
    hand = sorted(hand)

    @cache
    def best(rest: tuple[int, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        out = values[first] + best(others)
        for k in range(2, len(others) + 1):
            for combo in combinations(others, k):
                g = (first, *combo)
                if _is_meld(g, spec):
                    left = tuple(c for c in others if c not in combo)
                    out = min(out, best(left))
        return out

    return best(tuple(hand))


@pytest.mark.parametrize("spec,deck,values,wild,size", [
    (KLOP, deck_52(), value_table(ace=1), 0, 9),
    (RAMINO, deck_108(), V1, 20, 8),
    (WILD, deck_54(), V11, 25, 8),
    (CINCI, deck_54(), value_table(ace=11, joker=15), 15, 8),
])
def test_minimiser_agrees_with_brute_force(spec: MeldSpec, deck: list[int], values: Sequence[int],
                                           wild: int, size: int) -> None:
    rng = random.Random(11)
    solver = Solver(spec, values, wild)
    suits = [[c for c in deck if c % PACK // 13 == s or IS_JOKER[c]] for s in range(2)]
    for i in range(150):
        # dense hands (two suits and the jokers) so that melds are common
        pool = suits[i % 2] + [c for c in deck if c % PACK % 13 in (3, 4)]
        hand = rng.sample(sorted(set(pool)), size)
        assert solver.deadwood(hand) == brute(hand, spec, values), [TOKENS[c] for c in hand]
        cost, melds, dead = solver.arrange(hand)
        assert cost == sum(values[c] for c in dead)
        assert sorted([c for m in melds for c, _ in m] + dead) == sorted(hand)
        assert all(_is_meld(tuple(c for c, _ in m), spec) for m in melds)


def test_prefilter_never_rejects_a_hand_that_goes_out() -> None:
    rng = random.Random(4)
    ones = [1] * 216
    for spec, deck in ((CINCI, deck_54()), (WILD, deck_54()), (RAMINO, deck_108())):
        solver = Solver(spec, ones, 1)
        for _ in range(3000):
            hand = rng.sample(deck, 8)
            if solver.deadwood(hand) <= 1:
                assert prefilter_out(hand, spec.wild_twos), [TOKENS[c] for c in hand]


def test_fits_agrees_with_the_counting_minimiser() -> None:
    rng = random.Random(9)
    for spec, deck in ((CINCI, deck_54()), (WILD, deck_54()), (RAMINO, deck_108())):
        counter = Solver(spec, [1] * 216, 1)
        fitter = Solver(spec, V1, 20)
        for _ in range(400):
            hand = rng.sample(deck, 7)
            n = counter.deadwood(hand)
            assert fitter.fits(hand, 0) == (n == 0)
            assert fitter.fits(hand, 1) == (n <= 1)


def test_count2_agrees_with_the_counting_minimiser() -> None:
    rng = random.Random(10)
    for spec, deck in ((CINCI, deck_54()), (WILD, deck_54()), (RAMINO, deck_108())):
        counter = Solver(spec, [1] * 216, 1)
        fast = Solver(spec, V1, 20)
        for _ in range(400):
            hand = rng.sample(deck, 8)
            assert fast.count2(hand) == min(2, counter.deadwood(hand))


def test_within_agrees_with_the_minimiser() -> None:
    rng = random.Random(12)
    for spec, deck, values, wild in ((RAMINO, deck_108(), V1, 20), (KLOP, deck_52(), value_table(ace=1), 0)):
        exact = Solver(spec, values, wild)
        bounded = Solver(spec, values, wild)
        for _ in range(400):
            hand = rng.sample(deck, 7)
            dw = exact.deadwood(hand)
            for budget in (0, 6, 15):
                assert bounded.within(hand, budget) == (dw <= budget), ([TOKENS[c] for c in hand], budget)
