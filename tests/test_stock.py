"""The draw-and-discard kernel (engine/stock.py): X3/X7 re-forming, X6 injected deals, hidden cards."""
from __future__ import annotations

import random

import pytest

from engine import load_game
from engine.cards import TOKENS, bits, card, deck_52, deck_108
from engine.deal import check_deal, pack_tokens
from engine.stock import (
    ReformOptions,
    ReformRule,
    ReshuffleOptions,
    deal_injected,
    kept_for_discard,
    read_seat,
    read_totals,
    reform_mode,
)


def test_x3_flip_turns_the_pile_over_keeping_the_top_discard() -> None:
    got = ReformRule("flip").reform([10, 11, 12, 13], 0, random.Random(0))
    assert got == ([12, 11, 10], [13])  # the pile's oldest card (10) is the stock's top (last)


def test_x3_shuffle_draws_from_the_rng_and_keeps_the_top_discard() -> None:
    pile = list(range(20))
    stock, kept = ReformRule("shuffle").reform(list(pile), 0, random.Random(7)) or ([], [])
    expect = pile[:-1]
    random.Random(7).shuffle(expect)
    assert (stock, kept) == (expect, [19])


def test_x3_keep_zero_takes_the_whole_pile_and_one_card_is_enough() -> None:
    assert ReformRule("shuffle", keep=0).reform([5], 0, random.Random(0)) == ([5], [])
    assert ReformRule("shuffle", keep=0).reform([], 0, random.Random(0)) is None


@pytest.mark.parametrize("pile, reforms, rule", [
    ([1], 0, ReformRule("flip")),                 # only the top discard: nothing to form a stock
    ([1, 2, 3], 3, ReformRule("shuffle", cap=3)),  # X7: the cap is reached
    ([1, 2, 3], 0, ReformRule("none")),           # KR4/KR10: never re-formed
])
def test_x7_no_stock_can_be_formed(pile: list[int], reforms: int, rule: ReformRule) -> None:
    before = list(pile)
    assert rule.reform(pile, reforms, random.Random(0)) is None
    assert pile == before  # refused: the pile is untouched


def test_x3_option_reshuffle_chooses_the_mode_where_a_game_has_it() -> None:
    assert reform_mode("flip", None) == "flip"
    assert reform_mode("none", ReformOptions(max_reforms=3)) == "none"
    assert reform_mode("flip", ReshuffleOptions(max_reforms=3, reshuffle=True)) == "shuffle"
    assert reform_mode("shuffle", ReshuffleOptions(max_reforms=None, reshuffle=False)) == "flip"


def test_x6_injected_stock_is_given_top_first_and_kept_top_last() -> None:
    d = check_deal({"hands": [["AS", "KS"], ["QS", "JS"]], "stock": ["2C", "3C"], "upcard": "TS",
                    "partial": True}, game="g", players=2, pack=pack_tokens(deck_52()), sizes=None,
                   stock="rest", upcard="optional")
    dealt = deal_injected(d, deck_52(), random.Random(0))
    assert [[TOKENS[c] for c in bits(h)] for h in dealt.hands] == [["KS", "AS"], ["JS", "QS"]]
    assert [TOKENS[c] for c in dealt.stock] == ["3C", "2C"]  # "2C" is the top: popped first
    assert dealt.upcard == card("TS")
    assert dealt.mask == sum(1 << card(t) for t in ("AS", "KS", "QS", "JS", "2C", "3C", "TS"))


def test_x6_injected_deal_without_stock_shuffles_the_rest_from_the_rng() -> None:
    deck = deck_108()
    hands = [["AS", "AS", "JK"], ["JK", "2C", "2C"]]
    d = check_deal({"hands": hands}, game="g", players=2, pack=pack_tokens(deck), sizes=None, stock="rest")
    a = deal_injected(d, deck, random.Random(3))
    b = deal_injected(d, deck, random.Random(3))
    assert a == b and len(a.stock) == 108 - 6 and a.upcard is None
    assert [h.bit_count() for h in a.hands] == [3, 3]  # two copies of AS and of 2C: both taken
    assert a.mask.bit_count() == 108


def test_x6_totals_and_first_are_checked_in_one_line() -> None:
    assert read_totals({"totals": [1, 2]}, 2, ints=True) == [1, 2]
    assert read_totals({"totals": [1, 2.5]}, 2, ints=False) == [1.0, 2.5]
    assert read_totals({}, 2, ints=True) is None
    with pytest.raises(ValueError, match="'totals' must list 2 ints"):
        read_totals({"totals": [1, 2.5]}, 2, ints=True)
    with pytest.raises(ValueError, match="'totals' must list 3 numbers"):
        read_totals({"totals": [1, float("nan"), 2]}, 3, ints=False)
    assert read_seat({}, "first", [True, False, True], 2) == 2
    with pytest.raises(ValueError, match=r"'first' must be a seat 0\.\.2 still in, got 1"):
        read_seat({"first": 1}, "first", [True, False, True], 0)


def test_the_card_kept_for_the_discard() -> None:
    assert kept_for_discard(True, True) == 1
    assert kept_for_discard(True, False) == 2  # going out not allowed yet: the discard is not the last card
    assert kept_for_discard(False, False) == 0


@pytest.mark.parametrize("game", ["jokeren_drift", "wildcard_rummy", "genive", "tonk"])
def test_determinize_keeps_what_the_seat_knows_and_redeals_the_rest(game: str) -> None:
    st = load_game(game).new_match(seed=5)
    rng = random.Random(1)
    for _ in range(6):
        st.apply(rng.choice(st.legal_actions()))
    seat = st.current_player
    assert seat is not None
    hidden = st.hidden_cards(seat)
    hands: list[int] = st.hands  # type: ignore[attr-defined]
    stock: list[int] = st.stock  # type: ignore[attr-defined]
    new = st.determinize(seat, random.Random(2))
    new_hands: list[int] = new.hands  # type: ignore[attr-defined]
    new_stock: list[int] = new.stock  # type: ignore[attr-defined]
    assert new_hands[seat] == hands[seat]
    assert [h.bit_count() for h in new_hands] == [h.bit_count() for h in hands]
    mask_stock = sum(1 << c for c in stock)
    before = hidden | mask_stock
    after = sum(1 << c for c in new_stock) | new.hidden_cards(seat)
    assert after == before  # the same cards, only moved among the hidden places
    assert new.zones().keys() == st.zones().keys()
    assert not new.invariant_violations()
