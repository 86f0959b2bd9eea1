"""Klop Rummy (RULES.md 2.23, seed 003 L577-601): decisions KR1-KR13 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, play


def new(hands: list[list[str]], stock: list[str], upcard: str = "2C", dealer: int = 0,
        seed: int = 1, **extra: Any) -> State:
    opts = extra.pop("options", {})
    return gamekit.new("klop_rummy", hands, seed=seed, options=opts,
                       **{"dealer": dealer, "stock": stock, "upcard": upcard, **extra})


FILL = ["9D", "9S", "8C", "7D"]


def test_kr1_card_values_faces_10_ace_1_pips_face() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["AH", "2H", "3H", "KS"]], ["9C", *FILL])
    play(st, "draw stock", "knock", "discard KS")
    knock = events(st, "klop_rummy.knock")[0]
    assert knock["seat"] == 1 and knock["deadwoods"] == [26, 9]
    assert knock["melds"][1] == ["AH 2H 3H"] and knock["deadwood_cards"][1] == ["9C"]
    assert st.score_sheet() == [[0.0, 17.0]]


def test_kr2_rummy_bonus_25_once() -> None:
    hands = [["KD", "5S", "3C"], ["AH", "2H", "3H", "4S", "4D", "4C", "KS"], ["KC", "QD", "JS"]]
    st = new(hands, ["4H", *FILL], dealer=0)
    play(st, "draw stock", "knock", "discard KS")
    assert events(st, "klop_rummy.rummy")[0]["seat"] == 1
    assert st.score_sheet()[0] == [0.0, 18.0 + 30.0 + 25.0, 0.0]


def test_kr2_per_opponent_rummy_25_from_each() -> None:
    hands = [["KD", "5S", "3C"], ["AH", "2H", "3H", "4S", "4D", "4C", "KS"], ["KC", "QD", "JS"]]
    st = new(hands, ["4H", *FILL], options={"per_opponent": True})
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0] == [0.0, 18.0 + 30.0 + 50.0, 0.0]


def test_kr3_first_to_100_ends_the_match() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["AH", "2H", "3H", "KS"]], ["9C", *FILL], totals=[0, 90])
    play(st, "draw stock", "knock", "discard KS")
    assert st.is_over() and st.scores() == [0.0, 107.0] and st.ranking() == [2, 1]


def test_kr3_below_target_plays_on() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["AH", "2H", "3H", "KS"]], ["9C", *FILL], totals=[0, 80])
    play(st, "draw stock", "knock", "discard KS")
    assert not st.is_over() and st.deal_no == 2


def test_kr4_kr10_turn_ending_with_empty_stock_voids_the_deal() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["9C", "8C"])
    play(st, "draw stock", "pass", "discard KS")
    assert st.deal_no == 1 and not events(st, "klop_rummy.stock_exhausted")  # stock not empty yet
    play(st, "draw stock")
    assert "knock" in st.legal_actions()  # the last stock card may still be knocked on
    play(st, "pass", "discard KD")
    ev = events(st, "klop_rummy.stock_exhausted")
    assert len(ev) == 1 and ev[0]["deal"] == 1
    assert st.score_sheet() == [[0.0, 0.0]] and st.deal_no == 2 and st.scores() == [0.0, 0.0]


def test_kr10_void_deal_counts_for_max_deals() -> None:
    deal = {"partial": True,
            "dealer": 0, "hands": [["KD", "QC", "5S"], ["AH", "9H", "KS"]], "stock": ["9C"], "upcard": "2C"}
    st = load_game("klop_rummy").new_match(seed=1, players=2, max_deals=1, deal=deal)
    play(st, "draw stock", "pass", "discard KS")
    assert st.is_over() and st.score_sheet() == [[0.0, 0.0]]


def test_kr5_two_players_winner_deals_next() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["AH", "2H", "3H", "KS"]], ["9C", *FILL], dealer=1, first=0)
    play(st, "draw stock", "knock", "discard KD")  # seat 0 knocks with QC 5S AD 9C = 25 vs 16: loses
    assert events(st, "klop_rummy.knocker_lost")[0]["winner"] == 1
    assert st.dealer == 1 and st.current_player == 0  # type: ignore[attr-defined]


def test_kr5_more_players_deal_passes_left() -> None:
    hands = [["KD", "5S", "3C"], ["AH", "2H", "3H", "KS"], ["KC", "QD", "JS"]]
    st = new(hands, ["9C", *FILL], dealer=0)
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0][1] > 0 and st.dealer == 1  # type: ignore[attr-defined]


def test_kr6_knocker_may_discard_the_card_taken_from_the_pile() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["AH", "2H", "3H", "KS"]], ["9C", *FILL], upcard="QH")
    play(st, "draw discard", "knock")
    assert "discard QH" in st.legal_actions()
    play(st, "discard QH")
    assert events(st, "klop_rummy.knock")[0]["deadwood"] == 10


def test_kr7_winner_scores_others_total_minus_his_own_once() -> None:
    hands = [["KD", "5S", "3C"], ["AH", "2H", "3H", "2S", "KS"], ["KC", "QD", "JS"]]
    st = new(hands, ["9C", *FILL])
    play(st, "draw stock", "knock", "discard KS")  # kept: AH 2H 3H | 2S 9C = 11
    assert events(st, "klop_rummy.knock")[0]["deadwoods"] == [18, 11, 30]
    assert st.score_sheet()[0] == [0.0, 18 + 30 - 11, 0.0]


def test_kr7_per_opponent_differences() -> None:
    hands = [["KD", "5S", "3C"], ["AH", "2H", "3H", "2S", "KS"], ["KC", "QD", "JS"]]
    st = new(hands, ["9C", *FILL], options={"per_opponent": True})
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0] == [0.0, (18 - 11) + (30 - 11), 0.0]


def test_kr8_knocker_tied_with_one_non_knocker_loses_to_him() -> None:
    st = new([["5D", "2S"], ["AH", "2H", "3H", "KS"], ["9C", "3S"]], ["7C", *FILL])
    play(st, "draw stock", "knock", "discard KS")
    assert events(st, "klop_rummy.knock")[0]["deadwoods"] == [7, 7, 12]
    lost = events(st, "klop_rummy.knocker_lost")
    assert lost and lost[0]["winner"] == 0
    assert st.score_sheet()[0] == [7 + 12 - 7 + 10, 0.0, 0.0]


def test_kr8_knocker_tied_with_two_non_knockers_nobody_wins() -> None:
    st = new([["5D", "2S"], ["AH", "2H", "3H", "KS"], ["4C", "3S"]], ["7C", *FILL])
    play(st, "draw stock", "knock", "discard KS")
    assert events(st, "klop_rummy.knock")[0]["deadwoods"] == [7, 7, 7]
    tie = events(st, "klop_rummy.tie_no_winner")
    assert tie and tie[0]["lowest"] == [0, 1, 2]
    assert st.score_sheet()[0] == [0.0, 0.0, 0.0] and not events(st, "klop_rummy.knocker_lost")
    assert st.dealer == 1  # type: ignore[attr-defined]  # KR11: no winner, the deal passes left


def test_kr8_tie_without_the_knocker_nobody_wins() -> None:
    st = new([["2D", "2S"], ["AH", "2H", "3H", "KS"], ["3C", "AS"]], ["7C", *FILL])
    play(st, "draw stock", "knock", "discard KS")
    assert events(st, "klop_rummy.knock")[0]["deadwoods"] == [4, 7, 4]
    assert events(st, "klop_rummy.tie_no_winner") and st.score_sheet()[0] == [0.0, 0.0, 0.0]


def test_kr9_rummy_knocker_tied_at_zero_loses_without_the_25() -> None:
    st = new([["4S", "4D", "4C"], ["AH", "2H", "3H", "KS"]], ["4H", *FILL])
    play(st, "draw stock", "knock", "discard KS")
    assert events(st, "klop_rummy.rummy")  # the knocker has a Rummy ...
    assert events(st, "klop_rummy.knocker_lost")[0]["winner"] == 0  # ... but the tie goes to seat 0
    assert st.score_sheet()[0] == [0.0 + 0 + 10, 0.0]


def test_kr11_two_player_void_deal_passes_left() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["9C"], dealer=0)
    play(st, "draw stock", "pass", "discard KS")
    assert events(st, "klop_rummy.stock_exhausted") and st.dealer == 1  # type: ignore[attr-defined]


def test_kr12_first_dealer_drawn_from_the_seed() -> None:
    game = load_game("klop_rummy")
    dealers = {game.new_match(seed=s, players=4).dealer for s in range(40)}  # type: ignore[attr-defined]
    assert dealers == {0, 1, 2, 3}
    again = [game.new_match(seed=s, players=4).dealer for s in range(10)]  # type: ignore[attr-defined]
    assert again == [game.new_match(seed=s, players=4).dealer for s in range(10)]  # type: ignore[attr-defined]
    st = new([["KD"], ["AH"], ["9C"]], ["TS", *FILL], dealer=2)
    assert st.dealer == 2 and st.current_player == 0  # type: ignore[attr-defined]


def test_kr13_any_deadwood_may_knock_and_zero_is_rummy() -> None:
    st = new([["KD", "QC", "5S", "AD"], ["KH", "QH", "JS", "KS"]], ["9C", *FILL])
    play(st, "draw stock")
    assert st.legal_actions() == ["pass", "knock"]
    play(st, "knock", "discard 9C")
    knock = events(st, "klop_rummy.knock")[0]
    assert knock["deadwood"] == 40 and not events(st, "klop_rummy.rummy")
    assert events(st, "klop_rummy.knocker_lost")  # 26 < 40


def test_deal_sizes_and_hidden_hands() -> None:
    game = load_game("klop_rummy")
    st2 = game.new_match(seed=3, players=2)
    assert [len(st2.observation(s)["hand"]) for s in range(2)] == [10, 10]
    st = game.new_match(seed=3, players=4)
    assert st.observation(0)["hand_sizes"] == [7, 7, 7, 7]
    obs = st.observation(0)
    other = {TOKENS[c] for c in cards_of(st.hands[1])}  # type: ignore[attr-defined]
    assert not other & set(obs["hand"])
    assert "hands" not in str(obs.get("last_deal"))


def test_illegal_discard_before_draw_raises() -> None:
    st = new([["KD", "QC"], ["AH", "KS"]], ["9C", *FILL])
    with pytest.raises(IllegalAction):
        st.apply("discard KS")


def test_determinize_keeps_known_cards_and_sizes() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "2H", "KS"]], ["9C", *FILL], upcard="QH")
    play(st, "draw discard", "pass", "discard KS")
    d = st.determinize(0, random.Random(5))
    assert d.hands[0] == st.hands[0]  # type: ignore[attr-defined]
    assert "QH" in [TOKENS[c] for c in cards_of(d.hands[1])]  # type: ignore[attr-defined]
    assert bin(d.hands[1]).count("1") == 3  # type: ignore[attr-defined]
    assert not d.invariant_violations()
