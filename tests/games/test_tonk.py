"""Tonk (RULES.md 2.22, seed 003 L547-575): decisions T1-T13 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, play

STOCK = ["9C", "8D", "6D", "3D", "4C"]


def new(hands: list[list[str]], stock: list[str] | None = None, upcard: str = "2C", dealer: int = 0,
        seed: int = 1, **opts: Any) -> State:
    return gamekit.new("tonk", hands, seed=seed, options=opts,
                       dealer=dealer, stock=STOCK if stock is None else stock, upcard=upcard)


def transfers(st: State) -> list[tuple[int, int, int]]:
    return [(e["seat"], e["to"], e["n"]) for e in events(st, "tonk.stake_transfer")]


def test_t1_values_pictures_10_ace_1_pips_face() -> None:
    st = new([["KD", "QC", "JS", "AH", "5C"], ["2H", "3S", "4D", "6C", "AS"], ["TD", "9S", "8H", "7C", "KC"]])
    play(st, "call")
    assert events(st, "tonk.drop")[0]["counts"] == [36, 16, 44]


def test_t2_drop_only_at_the_start_of_the_turn() -> None:
    st = new([["KD", "QC", "JS", "AH", "5C"], ["2H", "3S", "4D", "6C", "AS"]])
    assert st.current_player == 1 and st.legal_actions() == ["call", "draw stock", "draw discard"]
    play(st, "draw stock")
    assert "call" not in st.legal_actions()
    with pytest.raises(IllegalAction):
        st.apply("call")


def test_t3_caught_dropper_pays_double_lowest_gets_single_from_others() -> None:
    st = new([["TD", "KS"], ["5C", "TH"], ["QC", "2D"]])  # counts 20, 15, 12: seat 1 drops
    play(st, "call")
    drop = events(st, "tonk.drop")[0]
    assert drop["result"] == "caught" and drop["count"] == 15
    # seat 0 (20) is above the dropper and gets nothing from him; he pays the lowest (seat 2) 1
    assert sorted(transfers(st)) == [(0, 2, 1), (1, 2, 2)]
    assert st.score_sheet() == [[-1.0, -2.0, 3.0]]


def test_t3_dropper_pays_every_player_at_or_below_him() -> None:
    st = new([["TD", "2S"], ["5C", "TH"], ["QC", "2D"], ["KH", "QH"]])  # 12, 15, 12, 20
    play(st, "call")
    # seat 1 pays 2 to seats 0 and 2; the co-lowest 0 and 2 get 1 each from seat 3 only
    assert sorted(transfers(st)) == [(1, 0, 2), (1, 2, 2), (3, 0, 1), (3, 2, 1)]
    assert st.score_sheet() == [[3.0, -4.0, 3.0, -2.0]]


def test_t3_option_dropper_also_pays_the_lowest_single() -> None:
    st = new([["TD"], ["5C", "5D"], ["KC", "QD", "JS", "AH"]], dropper_pays_lowest=True)
    play(st, "call")
    assert sorted(transfers(st)) == [(1, 0, 1), (1, 0, 2), (2, 0, 1)]
    assert st.score_sheet() == [[4.0, -3.0, -1.0]]


def test_t3_lowest_dropper_wins_single_from_everyone() -> None:
    st = new([["TD", "KS"], ["AC", "2H"], ["QC", "2D"]])
    play(st, "call")
    assert events(st, "tonk.drop")[0]["result"] == "won"
    assert sorted(transfers(st)) == [(0, 1, 1), (2, 1, 1)]


def test_t4_stock_exhausted_tied_lowest_each_get_single() -> None:
    st = new([["2D", "3S"], ["AC", "4H"], ["KC", "QD"]], stock=["9H"])
    play(st, "draw stock", "discard 9H")  # seat 1's draw empties the stock; his turn ends it
    ev = events(st, "tonk.stock_exhausted")
    assert ev and ev[0]["counts"] == [5, 5, 20] and ev[0]["lowest"] == [0, 1]
    assert sorted(transfers(st)) == [(2, 0, 1), (2, 1, 1)]


def test_t5_ace_low_only_in_runs() -> None:
    st = new([["KD", "QC"], ["AH", "2H", "3H", "QS", "KS"]], stock=["AS", *STOCK])
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "meld AH 2H 3H" in legal and "meld QS KS AS" not in legal


def test_t6_sets_of_three_or_four_of_one_rank() -> None:
    st = new([["KD", "QC"], ["7H", "7S", "7D", "7C", "2S"]], stock=["9H", *STOCK])
    play(st, "draw stock")
    legal = st.legal_actions()
    assert {"meld 7C 7D 7H", "meld 7C 7D 7H 7S"} <= set(legal)
    assert not [a for a in legal if a.startswith("meld") and len(a.split()) == 3]  # no pairs
    play(st, "meld 7D 7H 7S")  # another order is accepted
    assert "layoff 7C 1" in st.legal_actions()


def test_t7_lay_off_on_another_players_meld_without_one_of_ones_own() -> None:
    st = new([["KD", "QC", "9S", "8S", "6S"], ["4H", "5H", "6H", "QD", "JS"], ["7H", "3H", "TC", "2S", "JD"]],
             stock=["JC", "KC", "AD", *STOCK])
    play(st, "draw stock", "meld 4H 5H 6H", "discard JC")
    play(st, "draw stock")
    assert {"layoff 7H 1", "layoff 3H 1"} <= set(st.legal_actions())
    play(st, "layoff 3H 1", "layoff 7H 1")
    assert st.observation(0)["table"][0]["cards"] == ["3H", "4H", "5H", "6H", "7H"]


def test_t8_match_is_ten_deals_ranked_by_net_stakes() -> None:
    st = load_game("tonk").new_match(seed=4)
    rng = random.Random(4)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert st.deal_no == 10 and len(st.score_sheet()) == 10
    assert sum(st.scores()) == 0
    best = max(st.scores())
    assert all((r == 1) == (s == best) for r, s in zip(st.ranking(), st.scores(), strict=True))
    short = load_game("tonk", deals=2).new_match(seed=4)
    while not short.is_over():
        short.apply(rng.choice(short.legal_actions()))
    assert short.deal_no == 2


def test_t9_tonk_at_50_and_option_49() -> None:
    st = new([["KD", "QC", "JS", "TH", "KS"], ["2H", "3S", "4D", "6C", "AS"]])
    ev = events(st, "tonk.dealt_tonk")
    assert ev and ev[0]["seat"] == 0 and ev[0]["points"] == 50
    assert transfers(st) == [(1, 0, 2)] and st.deal_no == 2
    h49 = [["KD", "QC", "JS", "TH", "9S"], ["2H", "3S", "4D", "6C", "AS"]]
    assert not events(new(h49), "tonk.dealt_tonk")
    assert events(new(h49, tonk_min=49), "tonk.dealt_tonk")[0]["points"] == 49


def test_t10_count_includes_cards_that_would_meld() -> None:
    st = new([["7H", "7S", "7D", "AC"], ["KH", "QH", "JS"]])
    play(st, "call")  # seat 1 drops with 30 against seat 0's 22 (a set held, not laid)
    assert events(st, "tonk.drop")[0]["counts"] == [22, 30]


def test_t11_stock_emptied_ends_the_deal_at_the_end_of_that_turn() -> None:
    st = new([["2D", "3S"], ["AC", "4H"], ["KC", "QD"]], stock=["9H", "8H"])
    play(st, "draw stock", "discard 9H")
    assert not events(st, "tonk.stock_exhausted")
    play(st, "draw stock")  # empties the stock; the turn goes on
    assert not events(st, "tonk.stock_exhausted") and "discard 8H" in st.legal_actions()
    play(st, "discard 8H")
    assert events(st, "tonk.stock_exhausted") and st.deal_no == 2


def test_t11_going_out_on_the_last_stock_card_is_not_stock_exhausted() -> None:
    st = new([["2D", "3S"], ["4H", "5H", "6H", "KS"]], stock=["7H"])
    play(st, "draw stock", "meld 4H 5H 6H 7H", "discard KS")
    assert events(st, "tonk.out_by_discard") and not events(st, "tonk.stock_exhausted")


def test_t12_multiple_tonks_redeal_and_count_as_a_deal() -> None:
    st = new([["KD", "QC", "JS", "TH", "KS"], ["KH", "QH", "JD", "TD", "KC"], ["2H", "3S", "4D", "6C", "AS"]],
             deals=3)
    ev = events(st, "tonk.multiple_tonk_redeal")
    assert ev and ev[0]["seats"] == [0, 1]
    assert st.score_sheet() == [[0.0, 0.0, 0.0]] and st.deal_no == 2
    assert st.dealer == 1  # type: ignore[attr-defined]  # the next dealer deals


def test_t13_tied_dropper_is_caught() -> None:
    st = new([["TD"], ["5C", "5D"], ["KC", "QD", "JS", "AH"]])  # 10/10/31, seat 1 drops
    play(st, "call")
    assert events(st, "tonk.drop")[0]["result"] == "caught"
    assert sorted(transfers(st)) == [(1, 0, 2), (2, 0, 1)]
    assert st.score_sheet() == [[3.0, -2.0, -1.0]]


def test_tonk_out_double_stake_and_out_by_discard_single() -> None:
    st = new([["KD", "QC"], ["4H", "5H", "6H", "7H", "8H"], ["KC", "QD"]], stock=["9H", *STOCK])
    play(st, "draw stock", "meld 4H 5H 6H 7H 8H 9H")
    assert events(st, "tonk.tonk_out")[0]["seat"] == 1
    assert sorted(transfers(st)) == [(0, 1, 2), (2, 1, 2)]
    st = new([["KD", "QC"], ["4H", "5H", "6H", "7H", "8H"], ["KC", "QD"]], stock=["KH", *STOCK])
    play(st, "draw stock", "meld 4H 5H 6H 7H 8H", "discard KH")
    assert events(st, "tonk.out_by_discard")[0]["seat"] == 1
    assert sorted(transfers(st)) == [(0, 1, 1), (2, 1, 1)]


def test_hidden_hands_and_determinize() -> None:
    st = new([["KD", "QC", "9S"], ["4H", "5H", "JD"]], upcard="QH")
    play(st, "draw discard", "discard JD")
    obs = st.observation(0)
    assert "4H" not in str(obs) and obs["known_cards"][1] == ["QH"]
    d = st.determinize(0, random.Random(2))
    assert "QH" in [TOKENS[c] for c in cards_of(d.hands[1])]  # type: ignore[attr-defined]
    assert not d.invariant_violations()
