"""Shared combination machinery: groups and runs with jokers naming cards."""
from __future__ import annotations

import random

import pytest

from engine.cards import JOKER, TOKENS, card, deck_108
from engine.melds import (
    POS_BASE,
    GroupRule,
    RunRule,
    check_group,
    check_run,
    enumerate_groups,
    enumerate_runs,
    items_text,
    meld_candidates,
    parse_items,
    pos_base,
    position,
)

LOW = RunRule(ace_low=True, ace_high=False)
BOTH = RunRule(ace_low=True, ace_high=True, adjacent_jokers=False)


def items(*toks: str) -> list[tuple[int, int | None]]:
    pool = [card(t.split("=")[0]) if not t.startswith("JK") else JOKER for t in toks]
    jokers = [c for c in deck_108() if c % 54 >= JOKER]  # physical ids of four jokers
    for k, i in enumerate(i for i, t in enumerate(toks) if t.startswith("JK")):
        pool[i] = jokers[k]
    return parse_items(toks, 0, pool)


def test_run_with_joker_in_the_middle_sorts_into_order() -> None:
    assert items_text(check_run(items("8H", "JK=7H", "5H", "6H"), LOW)) == "5H 6H JK=7H 8H"


@pytest.mark.parametrize(("toks", "why"), [
    (("5H", "6H"), "at least 3"), (("5H", "6H", "7S"), "one suit"), (("5H", "6H", "8H"), "consecutive"),
    (("JK=5H", "JK=6H", "JK=7H"), "natural"), (("5H", "JK=5H", "6H"), "twice"),
    (("QH", "KH", "AH"), "ace is low"), (("KH", "AH", "2H"), "consecutive")])
def test_bad_runs_say_why(toks: tuple[str, ...], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_run(items(*toks), LOW)


def test_ace_high_and_low_without_wrap() -> None:
    assert items_text(check_run(items("QH", "KH", "AH"), BOTH)) == "QH KH AH"
    assert items_text(check_run(items("3H", "AH", "2H"), BOTH)) == "AH 2H 3H"
    with pytest.raises(ValueError):
        check_run(items("KH", "AH", "2H"), BOTH)
    with pytest.raises(ValueError, match="side by side"):
        check_run(items("5H", "JK=6H", "JK=7H", "8H"), BOTH)


def test_groups() -> None:
    rule = GroupRule(min_size=2, max_size=4)
    assert len(check_group(items("5H", "5S", "5C"), rule)) == 3
    with pytest.raises(ValueError, match="one rank"):
        check_group(items("5H", "6S"), rule)
    with pytest.raises(ValueError, match="jokers may not"):
        check_group(items("5H", "JK=5S"), rule)
    sets = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    assert len(check_group(items("5H", "5S", "JK=5C"), sets)) == 3
    with pytest.raises(ValueError, match="different suits"):
        check_group(items("5H", "5S", "JK=5S"), sets)


def test_enumerate_runs_fills_gaps_and_ends_with_jokers() -> None:
    hand = [card("5H"), card("7H"), JOKER, card("KS")]
    runs = {items_text(r) for r in enumerate_runs(hand, LOW)}
    assert runs == {"5H JK=6H 7H"}
    hand2 = [card("5H"), card("6H"), JOKER, JOKER + 1]
    runs2 = {items_text(r) for r in enumerate_runs(hand2, LOW)}
    assert "JK=3H JK=4H 5H 6H" in runs2 and "5H 6H JK=7H JK=8H" in runs2 and "JK=4H 5H 6H JK=7H" in runs2
    assert "5H JK=6H" not in runs2  # a joker never stands for a card the hand holds


def test_enumerate_groups_two_packs() -> None:
    deck = deck_108()
    fives = [c for c in deck if c % 54 in (card("5H"), card("5S"))]  # 5H 5H 5S 5S
    groups = {items_text(g) for g in enumerate_groups(fives, GroupRule(min_size=2, max_size=4))}
    assert groups == {"5H 5H", "5H 5S", "5S 5S", "5H 5H 5S", "5H 5S 5S", "5H 5H 5S 5S"}
    distinct = {items_text(g) for g in enumerate_groups(fives, GroupRule(2, 4, distinct_suits=True))}
    assert distinct == {"5H 5S"}


def test_aj15_meld_token_lists_a_joker_with_a_rank_held_in_all_four_suits() -> None:
    from engine.cards import card
    from engine.melds import meld_token_lists
    counts = {card(t): 1 for t in ("7C", "7D", "7H", "7S", "9H")}
    got = meld_token_lists(counts, 1, with_base=None, with_joker=True, set_max=4, set_jokers=True,
                           set_distinct=True, run_min=3, ace_low=True, ace_high=True, run_max_jokers=None,
                           limit=3)
    assert ["7C", "7D", "JK=7H"] in got  # two of the four 7s and the joker
    assert ["7H", "JK=8H", "9H"] in got  # a joker in the gap of a run
    assert all(any(t.startswith("JK=") for t in m) and len(m) <= 3 for m in got)


def test_one_run_position_convention() -> None:
    """Every module reads run places the same way: A=0 (low), 2=1 .. K=12, A=13 (high)."""
    for s in range(4):
        assert pos_base(0, s) == pos_base(13, s) == card("A" + "CDHS"[s])
        assert POS_BASE[s] == tuple(pos_base(p, s) for p in range(14))
        for p in range(1, 13):
            assert position(pos_base(p, s), ace_high=False) == p == position(pos_base(p, s), ace_high=True)
        assert position(pos_base(0, s), ace_high=False) == 0
        assert position(pos_base(13, s), ace_high=True) == 13


def _cands(counts: dict[int, int], jokers: int, runs: RunRule) -> set[tuple[str, int]]:
    groups = GroupRule(min_size=3, max_size=4, distinct_suits=True, jokers=True)
    got = meld_candidates(counts, jokers, runs, groups, lambda kind, nats, lo, nj: len(nats) + nj)
    return {(" ".join(sorted(TOKENS[b] for b in nats)), nj) for nats, nj, _ in got}


def test_meld_candidates_fill_run_gaps_with_jokers_only_where_allowed() -> None:
    counts = {card(t): 1 for t in ("5H", "7H", "7S", "7D")}
    got = _cands(counts, 1, RunRule(min_len=3, ace_low=True, ace_high=False))
    assert ("5H 7H", 1) in got  # 5H JK=6H 7H
    assert ("7D 7H 7S", 0) in got and ("7D 7S", 1) in got  # the sevens, naturally or with the joker
    assert ("7H", 1) not in got  # a meld needs two naturals to reach three cards with one joker
    assert all(nj <= 1 for _, nj in got)  # one joker held
    got = _cands(counts, 1, RunRule(min_len=3, ace_low=True, ace_high=False, max_jokers=0))
    assert ("5H 7H", 1) not in got and ("7D 7S", 1) in got  # no joker in a run; sets keep theirs


def _token_runs_full_scan(counts: dict[int, int], jokers: int, with_base: int, run_min: int,
                          ace_low: bool, ace_high: bool, run_max_jokers: int | None,
                          limit: int) -> list[list[str]]:
    """The run part of ``meld_token_lists`` for a natural ``with_base``, as it was before it
    skipped the windows without the card: every window of the suit scanned (the oracle)."""
    out: list[list[str]] = []
    s = with_base // 13
    lo_all, hi_all = (0 if ace_low else 1), (13 if ace_high else 12)
    P = 0
    for p in range(lo_all, hi_all + 1):
        if counts.get(pos_base(p, s), 0) > 0:
            P |= 1 << p
    if not P:
        return out
    for a in range(lo_all, hi_all + 1):
        for z in range(a + run_min - 1, hi_all + 1):
            if z - a + 1 > limit:
                break
            w = ((1 << (z - a + 1)) - 1) << a
            wp = [p for p in range(a, z + 1) if pos_base(p, s) == with_base]
            if not wp or not P >> wp[0] & 1:
                continue
            nj = (w & ~P).bit_count()
            if nj > jokers or not P & w:
                if nj > jokers:
                    break
                continue
            if run_max_jokers is not None and nj > run_max_jokers:
                continue
            toks = [TOKENS[pos_base(p, s)] if P >> p & 1 else f"JK={TOKENS[pos_base(p, s)]}"
                    for p in range(a, z + 1)]
            i = next(i for i, t in enumerate(toks) if not t.startswith("JK="))
            toks = [toks[i], *toks[:i], *toks[i + 1:]]
            if toks not in out:
                out.append(toks)
    return out


def test_aj15_meld_token_lists_through_a_card_visit_only_its_windows_same_runs_in_order() -> None:
    from engine.melds import meld_token_lists
    rng = random.Random(15)
    for _ in range(400):
        counts: dict[int, int] = {}
        for b in rng.sample(range(52), rng.randint(1, 14)):
            counts[b] = rng.choice((1, 1, 2))
        with_base = rng.choice(sorted(counts))
        jokers, limit = rng.randint(0, 3), rng.randint(2, 14)
        ace_low, ace_high = rng.choice(((True, True), (True, False), (False, True)))
        run_min, run_max_jokers = rng.choice((3, 4)), rng.choice((None, 1, 2))
        got = meld_token_lists(counts, jokers, with_base=with_base, with_joker=False, set_max=4,
                               set_jokers=True, set_distinct=True, run_min=run_min, ace_low=ace_low,
                               ace_high=ace_high, run_max_jokers=run_max_jokers, limit=limit)
        runs = [m for m in got
                if len({t[-1] for t in m}) == 1 and len({t.removeprefix("JK=")[0] for t in m}) > 1]
        want = _token_runs_full_scan(counts, jokers, with_base, run_min, ace_low, ace_high,
                                     run_max_jokers, limit)
        assert runs == want, (counts, with_base, jokers, limit)
