"""Wildcard Rummy (RULES.md 2.24, seed 003 L603-630): decisions WR1-WR8 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import State, load_game
from engine.cards import TOKENS, cards_of, value_table
from engine.deadwood import MeldSpec, Solver
from engine.errors import IllegalAction
from tests import gamekit
from tests.gamekit import draw_and_discard_it, events, play

LOSER = ["AC", "3D", "8H", "QC", "JD", "TD", "4S"]  # no meld: 11+3+8+10+10+10+4 = 56
STOCK = ["6C", "7C", "3S", "4C"]


def new(hands: list[list[str]], stock: list[str], upcard: str = "8C", dealer: int = 0, seed: int = 1,
        **extra: Any) -> State:
    opts = extra.pop("options", {})
    return gamekit.new("wildcard_rummy", hands, seed=seed, options=opts,
                       **{"dealer": dealer, "stock": stock, "upcard": upcard, **extra})


def test_wr1_one_pack_to_six_players_two_packs_for_seven() -> None:
    game = load_game("wildcard_rummy")
    for n in (2, 4, 6):
        assert bin(game.new_match(seed=1, players=n).deck_mask).count("1") == 54
    st7 = game.new_match(seed=1, players=7)
    assert bin(st7.deck_mask).count("1") == 108 and st7.observation(0)["hand_sizes"] == [10] * 7
    st4 = load_game("wildcard_rummy", packs=2).new_match(seed=1, players=4)
    assert st4.observation(0)["hand_sizes"] == [10] * 4
    assert game.new_match(seed=1, players=6).observation(0)["hand_sizes"] == [6] * 6
    assert game.new_match(seed=1, players=5).observation(0)["hand_sizes"] == [7] * 5


def test_wr2_three_players_seven_cards_option_ten() -> None:
    assert load_game("wildcard_rummy").new_match(seed=2, players=3).observation(0)["hand_sizes"] == [7] * 3
    st = load_game("wildcard_rummy", three_player_cards=10).new_match(seed=2, players=3)
    assert st.observation(0)["hand_sizes"] == [10] * 3


def test_wr3_losers_meld_their_own_hand_only() -> None:
    st = new([["KD", "KC", "KH", "5S", "9H"], ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK])
    play(st, "draw stock", "knock KS")
    ev = events(st, "wildcard_rummy.rummy_declared")[0]
    assert ev["penalties"] == [14, 0]  # the kings meld; 5S and 9H score (no laying off on the winner)
    assert st.score_sheet()[0] == [0.0, 14.0]


def test_wr4_a_two_left_in_hand_is_25() -> None:
    st = new([["2C", "KD", "9H"], ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK])
    play(st, "draw stock", "knock KS")
    # 2C with KD or 9H needs a third card: no meld; 2C scores 25
    assert events(st, "wildcard_rummy.penalty_collected")[0]["points"] == 25 + 10 + 9


def test_wr5_no_meld_of_wild_cards_only() -> None:
    st = new([["JK", "JK", "JK", "KD"], ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK],
             options={"packs": 2})
    play(st, "draw stock", "knock KS")
    # KD JK JK JK is a set; without KD three jokers would be no meld
    assert events(st, "wildcard_rummy.rummy_declared")[0]["penalties"][0] == 0
    solver = Solver(MeldSpec(ace_high=True, wild_twos=True), value_table(11, joker=25, two=25), 25)
    assert solver.deadwood([52, 53, 106]) == 75  # three jokers alone are no meld


def test_wr6_first_to_100_wins() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK], totals=[0, 50])
    play(st, "draw stock", "knock KS")
    assert st.is_over() and st.scores() == [0.0, 106.0] and st.ranking() == [2, 1]


def test_wr7_going_out_by_choice_after_drawing_with_a_discard() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK])
    assert st.legal_actions() == ["draw stock", "draw discard"]  # not before drawing
    play(st, "draw stock")
    assert st.legal_actions() == ["pass", "knock KS"]
    play(st, "knock KS")
    ev = events(st, "wildcard_rummy.rummy_declared")[0]
    assert ev["seat"] == 1 and ev["discard"] == "KS" and ev["penalties"] == [56, 0]
    assert st.score_sheet()[0] == [0.0, 56.0] and st.deal_no == 2


def test_wr7_going_out_without_a_discard() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S"]], ["4H", *STOCK])
    play(st, "draw stock", "knock")
    ev = events(st, "wildcard_rummy.rummy_declared")[0]
    assert ev["discard"] is None and sorted(ev["melds"][1]) == ["4H 5H 6H 7H", "9C 9D 9S"]


def test_wr7_a_discard_that_leaves_a_melded_hand_does_not_end_the_deal() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK])
    play(st, "draw stock", "pass", "discard KS")
    assert not events(st, "wildcard_rummy.rummy_declared") and st.current_player == 0


def test_wr7_the_card_taken_from_the_pile_may_not_be_the_going_out_discard() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S"]], STOCK, upcard="KS")
    play(st, "draw discard")
    legal = st.legal_actions()
    assert not any(a.startswith("knock") for a in legal) and "discard KS" not in legal


def test_wr7_every_form_of_going_out_is_offered() -> None:
    # the hand: 3C-7C and 9D 9H 9S (2s wild here, none held): the whole hand melds, and
    # discarding either end of the run still leaves a melded hand
    st = new([LOSER, ["3C", "4C", "5C", "6C", "9D", "9H", "9S"]], ["7C", "KH", "QS", "8S"])
    play(st, "draw stock")
    assert st.legal_actions() == ["pass", "knock", "knock 3C", "knock 7C"]
    play(st, "knock 7C")
    ev = events(st, "wildcard_rummy.rummy_declared")[0]
    assert ev["seat"] == 1 and ev["discard"] == "7C" and st.score_sheet()[0] == [0.0, 56.0]


def test_wr7_going_out_with_a_discard_when_all_meld_never_the_taken_card() -> None:
    # all seven cards meld after taking 7C from the pile: 'knock' and 'knock 3C'; 'knock 7C' is banned
    st = new([LOSER, ["3C", "4C", "5C", "6C", "9D", "9H", "9S"]], ["KH", "QS", "8S"], upcard="7C")
    play(st, "draw discard")
    assert st.legal_actions() == ["pass", "knock", "knock 3C"]
    with pytest.raises(IllegalAction):
        st.apply("knock 7C")


def test_wr8_two_as_natural_and_as_wild() -> None:
    st = new([LOSER, ["2H", "2S", "2D", "9C", "9D", "9S"]], ["9H", *STOCK])
    play(st, "draw stock", "knock")
    assert events(st, "wildcard_rummy.rummy_declared") and not events(st, "wildcard_rummy.wild_two_used")
    st = new([LOSER, ["QH", "KH", "2C", "9C", "9D", "9S"]], ["4D", *STOCK])
    play(st, "draw stock", "knock 4D")
    used = events(st, "wildcard_rummy.wild_two_used")
    assert used and used[0]["seat"] == 1


def test_stock_flipped_without_shuffling() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C", "7C", "3S"], upcard="8C")
    play(st, "draw stock", "discard KS")
    play(st, "draw stock", "discard KD")
    play(st, "draw stock")  # empties the stock: the pile 8C KS KD is turned over, KD stays up
    ev = events(st, "wildcard_rummy.stock_flipped")
    assert ev and ev[0]["size"] == 2 and not ev[0]["shuffled"]
    obs = st.observation(0)
    assert obs["stock_order_known"] and obs["pile"] == ["KD"]
    assert [TOKENS[c] for c in reversed(st.stock)] == ["8C", "KS"]  # type: ignore[attr-defined]


def test_deal_without_winner_when_no_stock_can_be_formed() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], [], upcard="8C")
    assert events(st, "wildcard_rummy.deal_without_winner")
    assert st.score_sheet() == [[0.0, 0.0]] and st.deal_no == 2


def test_hidden_hands_shown_at_the_end_and_determinize() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK], upcard="QH")
    obs = st.observation(1)
    assert not set(LOSER) & set(obs["hand"]) and "AC" not in str(obs)
    d = st.determinize(1, random.Random(1))
    assert d.hands[1] == st.hands[1] and not d.invariant_violations()  # type: ignore[attr-defined]
    play(st, "draw discard", "discard KS")
    d = st.determinize(0, random.Random(1))
    assert "QH" in [TOKENS[c] for c in cards_of(d.hands[1])]  # type: ignore[attr-defined]


def test_x7_default_safety_valve_max_reforms_30_deal_cap_50() -> None:
    # X7 (revised turn 2): the engine's safety valve is the default here; None = the seed's no cap
    opts = load_game("wildcard_rummy").options
    assert opts["max_reforms"] == 30 and opts["deal_cap"] == 50
    # nobody goes out: each player discards the card he drew; the stock (one card) is turned over
    # after every draw that empties it, 30 times, and the turn that would need a 31st ends the deal
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C"], upcard="8C")
    while not events(st, "wildcard_rummy.deal_without_winner"):
        assert len(events(st, "wildcard_rummy.stock_flipped")) <= 30
        draw_and_discard_it(st)
    assert len(events(st, "wildcard_rummy.stock_flipped")) == 30 and st.deal_no == 2
    st = load_game("wildcard_rummy", max_reforms=None).new_match(seed=1, players=2, deal={
        "dealer": 0, "hands": [["KD", "QC", "5S"], ["AH", "9H", "KS"]], "stock": ["6C"], "upcard": "8C",
        "partial": True})
    for _ in range(31):  # no cap: a 31st re-forming is made
        draw_and_discard_it(st)
    assert len(events(st, "wildcard_rummy.stock_flipped")) == 31
    assert not events(st, "wildcard_rummy.deal_without_winner")
