"""Shared combination machinery: groups and runs with jokers naming cards."""
from __future__ import annotations

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
