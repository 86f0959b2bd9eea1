"""Genive (RULES.md 2.1, seed 000): decisions G1-G10, the card's rule events and clarifications."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, zone_tokens

# filler hands worth 30 with no group or run, so that they never burn a low caller
HIGH = [["QS", "JH", "TD"], ["QH", "JD", "TC"], ["QD", "JC", "TS"], ["QC", "JS", "TH"]]


def new(hands: list[list[str]], stock: list[str] | None = None, upcard: str | None = "9D",
        players: int | None = None, seed: int = 1, **extra: Any) -> State:
    opts = extra.pop("options", {})
    deal: dict[str, Any] = {"dealer": extra.pop("dealer", len(hands) - 1), "upcard": upcard, **extra}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("genive", hands, seed=seed, players=players or len(hands), options=opts, **deal)


# --------------------------------------------------------------------- G1, G2, G3: scoring a call
def test_g1_successful_caller_scores_his_own_hand() -> None:
    st = new([["AH", "2C"], *HIGH[:3]])
    assert st.current_player == 0 and "call" in st.legal_actions()
    st.apply("call")
    called = events(st, "genive.genive_called")
    assert called and called[0]["seat"] == 0 and called[0]["total"] == 3
    assert called[0]["hands"][0] == ["2C", "AH"]
    assert st.score_sheet() == [[3.0, 30.0, 30.0, 30.0]]
    assert st.scores() == [3.0, 30.0, 30.0, 30.0]
    assert not events(st, "genive.genive_burned")
    assert st.deal_no == 2 and st.current_player == 0  # the successful caller starts the next deal


def test_g1_joker_only_caller_scores_minus_10() -> None:
    st = new([["JK"], *HIGH[:3]])
    st.apply("call")
    bonus = events(st, "genive.joker_only_bonus")
    assert [(e["seat"], e["bonus"]) for e in bonus] == [(0, -10)]
    assert st.scores()[0] == -10.0


def test_g1_two_jokers_only_caller_scores_minus_20() -> None:
    st = new([["JK", "JK"], *HIGH[:3]])
    st.apply("call")
    assert [e["bonus"] for e in events(st, "genive.joker_only_bonus")] == [-20]
    assert st.score_sheet()[0][0] == -20.0


def test_g1_joker_and_a_card_is_no_joker_only_hand() -> None:
    st = new([["JK", "AC"], *HIGH[:3]])
    st.apply("call")
    assert not events(st, "genive.joker_only_bonus")
    assert st.scores()[0] == 1.0


def test_g1_burned_joker_only_caller_scores_20() -> None:
    # clarification: the joker bonus and the burn both apply, -10 + 30 = 20
    st = new([["JK"], ["JK"], HIGH[0], HIGH[1]])
    st.apply("call")
    assert [e["bonus"] for e in events(st, "genive.joker_only_bonus")] == [-10]
    burned = events(st, "genive.genive_burned")
    assert burned and burned[0]["burners"] == [1] and burned[0]["penalty"] == 30
    assert st.score_sheet() == [[20.0, 0.0, 30.0, 30.0]]


def test_g2_burn_on_equal_totals_burner_scores_his_hand() -> None:
    st = new([["2H", "3C"], HIGH[0], ["AS", "4D"], HIGH[1]])  # 5 against 5
    st.apply("call")
    burned = events(st, "genive.genive_burned")
    assert burned[0]["caller"] == 0 and burned[0]["burners"] == [2]
    assert st.score_sheet() == [[35.0, 30.0, 5.0, 30.0]]  # caller hand + 30; burner his own hand
    assert st.current_player == 2  # the burner wins the deal and starts the next


def test_g2_lower_hand_burns_the_caller() -> None:
    st = new([["5H"], ["2D"], HIGH[0], HIGH[1]])
    st.apply("call")
    assert events(st, "genive.genive_burned")[0]["burners"] == [1]
    assert st.score_sheet()[0][:2] == [35.0, 2.0]


def test_g3_lowest_burner_leads_the_next_deal() -> None:
    st = new([["5H"], ["4C"], HIGH[0], ["3C"]])
    st.apply("call")
    assert events(st, "genive.genive_burned")[0]["burners"] == [1, 3]
    assert st.current_player == 3


def test_g3_tied_burners_first_clockwise_from_the_caller_leads() -> None:
    st = new([HIGH[0], ["5H"], ["AC", "3D"], ["4C"]], first=1)
    assert st.current_player == 1
    st.apply("call")
    burners = events(st, "genive.genive_burned")[0]["burners"]
    assert burners == [2, 3]  # clockwise from the caller (seat 1)
    assert st.current_player == 2


# --------------------------------------------------------------------- G4, X3: stock exhaustion
def test_g4_stock_reshuffle_keeps_the_previous_discard_group() -> None:
    st = new([["KS", "QS", "JD"], ["KH", "QH", "JC"], ["KD", "QD", "JH"]], stock=["3D"], upcard="2D")
    st.apply("discard KS")
    st.apply("draw stock")  # takes 3D: the stock is empty; 2D (not taken) is re-formed into a stock
    ev = events(st, "genive.stock_reshuffled")
    assert len(ev) == 1 and ev[0]["cards"] == 1
    obs = st.observation(1)
    assert obs["offer"] == ["KS"] and obs["takeable"] == ["KS"]  # kept aside for the next player
    assert obs["stock_size"] == 1 and obs["pile_size"] == 0
    assert zone_tokens(st, "stock") == ["2D"]
    st.apply("discard KH")
    st.apply("draw stock")  # 2D; now KS (not taken) is the only dead discard
    assert len(events(st, "genive.stock_reshuffled")) == 2
    assert zone_tokens(st, "stock") == ["KS"] and zone_tokens(st, "offer") == ["KH"]
    assert not st.invariant_violations()


def test_g4_reshuffle_when_the_offer_is_taken_from_an_empty_stock() -> None:
    # stock empty from the start: nothing dead yet, so the first player must take the upcard
    st = new([["KS", "QS"], ["KH", "QH"], ["KD", "QD"]], stock=[], upcard="2D")
    st.apply("discard KS")
    assert st.legal_actions() == ["draw 2D"]
    with pytest.raises(IllegalAction, match="stock is empty"):
        st.apply("draw stock")
    st.apply("draw 2D")
    st.apply("discard KH")
    assert st.legal_actions() == ["draw KS"]
    st.apply("draw KS")
    st.apply("discard KD")
    st.apply("draw KH")
    assert not events(st, "genive.stock_reshuffled")
    st.apply("discard QS")  # nothing is ever dead: every discard is taken
    st.apply("draw KD")
    st.apply("discard QH")
    assert st.legal_actions() == ["draw QS"]
    assert not st.invariant_violations()


# --------------------------------------------------------------------- G5: groups
def test_g5_groups_are_natural_equal_ranks_of_two_to_four() -> None:
    st = new([["5H", "5D", "5S", "5C", "JK"], *HIGH[:3]])
    legal = st.legal_actions()
    for a in ("discard 5C 5D", "discard 5D 5H 5S", "discard 5C 5D 5H 5S", "discard JK"):
        assert a in legal
    assert not [a for a in legal if "JK=" in a]  # no joker in a group, and no run possible
    with pytest.raises(IllegalAction, match="G5"):
        st.apply("discard 5H JK=5C")
    with pytest.raises(IllegalAction, match="G5"):
        st.apply("discard 5H JK")
    st.apply("discard 5S 5D 5H")  # any order of the same cards is accepted
    assert st.history == ["discard 5D 5H 5S"]
    ev = events(st, "genive.group_discard")
    assert ev[0]["size"] == 3 and ev[0]["seat"] == 0


def test_g5_lone_joker_is_a_single_discard() -> None:
    st = new([["JK", "KC"], *HIGH[:3]])
    st.apply("discard JK")
    st.apply("draw stock")
    assert st.observation(1)["takeable"] == ["JK"]
    st.apply("discard QS")
    st.apply("draw JK")
    assert "JK" in st.observation(1)["hand"]


# --------------------------------------------------------------------- G6: runs
def test_g6_runs_ace_low_only_three_or_more_one_suit() -> None:
    st = new([["AH", "2H", "3H", "QH", "KH"], ["AS", "7D", "8D"], HIGH[0], HIGH[3]])
    legal = st.legal_actions()
    assert "discard AH 2H 3H" in legal
    assert "discard QH KH AH" not in legal
    with pytest.raises(IllegalAction, match="ace is low"):
        st.apply("discard QH KH AH")
    with pytest.raises(IllegalAction, match="at least 3"):
        st.apply("discard 2H 3H")
    st.apply("discard 3H AH 2H")
    assert st.history[-1] == "discard AH 2H 3H"
    ev = events(st, "genive.run_discard")
    assert ev and ev[0]["len"] == 3 and ev[0]["jokers"] == 0


def test_g6_joker_stands_for_a_missing_card_only() -> None:
    st = new([["5H", "7H", "JK", "KD", "KC"], *HIGH[:3]])
    legal = st.legal_actions()
    assert "discard 5H JK=6H 7H" in legal
    assert "discard JK=4H 5H" not in legal
    # a joker extends an end too
    st2 = new([["5H", "6H", "7H", "JK", "KC"], *HIGH[:3]])
    legal2 = st2.legal_actions()
    assert "discard 5H 6H 7H JK=8H" in legal2 and "discard JK=4H 5H 6H 7H" in legal2
    assert "discard 5H JK=6H 7H" not in legal2
    with pytest.raises(IllegalAction, match="G6"):
        st2.apply("discard 5H JK=6H 7H")
    st.apply("discard 7H JK=6H 5H")
    assert st.history == ["discard 5H JK=6H 7H"]
    ev = events(st, "genive.run_discard")
    assert ev[0]["len"] == 3 and ev[0]["jokers"] == 1


def test_g6_run_needs_a_natural_card_and_one_suit() -> None:
    st = new([["5H", "JK", "JK", "6D", "KC"], *HIGH[:3]])
    legal = st.legal_actions()
    assert "discard 5H JK=6H JK=7H" in legal and "discard JK=3H JK=4H 5H" in legal
    with pytest.raises(IllegalAction, match="one suit"):
        st.apply("discard 5H 6D JK=7H")


def test_g6_take_only_the_ends_of_a_run() -> None:
    st = new([["5H", "7H", "JK", "KD", "KC"], *HIGH[:3]])
    st.apply("discard 5H JK=6H 7H")
    st.apply("draw stock")
    assert st.observation(1)["takeable"] == ["5H", "7H"]
    assert sorted(st.legal_actions()) == ["discard JH", "discard QS", "discard TD"]
    st.apply("discard QS")
    assert st.legal_actions() == ["draw stock", "draw 5H", "draw 7H"]
    with pytest.raises(IllegalAction, match="lowest or highest"):
        st.apply("draw JK")
    st.apply("draw 7H")
    ev = events(st, "genive.take_from_run_end")
    assert len(ev) == 1 and ev[0]["seat"] == 1 and ev[0]["card"] == "7H" and ev[0]["end"] == "high"
    # the rest of the run is dead; the player's own discard is now on offer
    assert zone_tokens(st, "pile") == ["5H", "9D", "JK"]  # with the upcard nobody took
    assert st.observation(2)["offer"] == ["QS"]


def test_g6_joker_end_of_a_run_is_drawn_as_jk() -> None:
    st = new([["5H", "6H", "JK", "KD", "KC"], *HIGH[:3]])
    st.apply("discard 5H 6H JK=7H")
    st.apply("draw stock")
    assert st.observation(1)["offer"] == ["5H", "6H", "JK=7H"]
    st.apply("discard QS")
    assert st.legal_actions() == ["draw stock", "draw 5H", "draw JK"]
    st.apply("draw JK")
    assert events(st, "genive.take_from_run_end")[0]["end"] == "high"
    assert "JK" in st.observation(1)["hand"]
    assert st.observation(0)["known_cards"][1] == ["JK"]  # taken in the open


# --------------------------------------------------------------------- G7: halving
def test_g7_exact_100_halved_to_50() -> None:
    st = new([["AH", "2C"], *HIGH[:3]], totals=[97, 0, 0, 0])
    st.apply("call")
    ev = events(st, "genive.score_halved")
    assert [(e["seat"], e["before"], e["after"]) for e in ev] == [(0, 100, 50)]
    assert st.scores()[0] == 50.0
    assert not st.invariant_violations()


def test_g7_exact_200_halved_to_100_and_not_lost() -> None:
    st = new([["AH"], ["TH", "KH", "QD"], HIGH[0], HIGH[1]], totals=[0, 170, 20, 20])
    st.apply("call")
    halved = events(st, "genive.score_halved")
    assert [(e["seat"], e["before"], e["after"]) for e in halved] == [(1, 200, 100)]
    assert st.scores()[1] == 100.0 and not st.is_over()
    assert not events(st, "genive.player_busted")


def test_g7_halving_via_the_negative_joker_bonus() -> None:
    st = new([["JK"], *HIGH[:3]], totals=[110, 0, 0, 0])
    st.apply("call")
    assert [(e["before"], e["after"]) for e in events(st, "genive.score_halved")] == [(100, 50)]
    assert st.scores()[0] == 50.0


def test_g7_passing_over_100_is_not_halved() -> None:
    st = new([["AH"], HIGH[0], HIGH[1], HIGH[2]], totals=[0, 95, 60, 0])
    st.apply("call")
    assert not events(st, "genive.score_halved")
    assert st.scores() == [1.0, 125.0, 90.0, 30.0]
    assert st.score_sheet() == [[1.0, 30.0, 30.0, 30.0]]  # rows: points added before halving


# --------------------------------------------------------------------- G8, G9
def test_g8_call_allowed_on_the_first_turn_only_with_at_most_5() -> None:
    st = new([["AH", "4C"], *HIGH[:3]])
    assert st.legal_actions()[0] == "call" and not st.history
    high = new([["AH", "5C"], *HIGH[:3]])
    assert "call" not in high.legal_actions()
    with pytest.raises(IllegalAction, match="at most 5; yours is 6"):
        high.apply("call")
    limit = new([["AH", "5C"], *HIGH[:3]], options={"call_limit": 6})
    assert "call" in limit.legal_actions()


def test_g9_seat_0_starts_and_play_goes_clockwise() -> None:
    st = new([HIGH[0], HIGH[1], HIGH[2], HIGH[3]], dealer=2)
    assert st.current_player == 0
    seen = []
    for _ in range(4):
        seen.append(st.current_player)
        st.apply(st.legal_actions()[0])
        assert st.phase == "draw" and st.current_player == seen[-1]  # discard, then draw
        st.apply("draw stock")
    assert seen == [0, 1, 2, 3] and st.current_player == 0
    seeded = load_game("genive").new_match(seed=5)
    assert seeded.current_player == 0


def test_g9_discard_then_draw_order_is_mandatory() -> None:
    st = new([HIGH[0], HIGH[1], HIGH[2], HIGH[3]])
    with pytest.raises(IllegalAction, match="discard first"):
        st.apply("draw stock")
    st.apply("discard QS")
    with pytest.raises(IllegalAction, match="now draw"):
        st.apply("discard JH")
    with pytest.raises(IllegalAction, match="now draw"):
        st.apply("call")
    st.apply("draw discard")  # the only card to take: the upcard
    assert st.history[-1] == "draw 9D"


# --------------------------------------------------------------------- G10: the match end
def test_g10_above_200_loses_and_ends_the_match() -> None:
    st = new([["AH"], HIGH[0], ["2C", "3C"], HIGH[1]], totals=[40, 175, 190, 60])
    st.apply("call")
    busted = events(st, "genive.player_busted")
    assert [(e["seat"], e["total"]) for e in busted] == [(1, 205)]
    assert st.is_over() and st.current_player is None and st.legal_actions() == []
    assert st.scores() == [41.0, 205.0, 195.0, 90.0]
    assert st.ranking() == [1, 4, 3, 2]  # the loser last, the others by total


def test_g10_every_total_above_200_busts_and_ranking_is_by_total() -> None:
    st = new([["AH"], HIGH[0], ["2C", "3C"], HIGH[1]], totals=[40, 175, 198, 60])
    st.apply("call")
    assert sorted(e["seat"] for e in events(st, "genive.player_busted")) == [1, 2]
    assert st.ranking() == [1, 4, 3, 2]


def test_g10_a_seeded_match_plays_to_the_end() -> None:
    st = load_game("genive").new_match(seed=3)
    rng = random.Random(3)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert max(st.scores()) > 200
    assert [e["seat"] for e in events(st, "genive.player_busted")] == [
        s for s, t in enumerate(st.scores()) if t > 200]
    assert len(st.score_sheet()) == st.deal_no


# --------------------------------------------------------------------- long play, upcard joker
def test_long_play_halves_every_multiple_of_100_and_plays_on() -> None:
    st = new([["AH"], HIGH[0], ["2C", "3C"], HIGH[1]], totals=[40, 270, 199, 60],
             options={"long_play": True, "long_play_deals": 2})
    st.apply("call")
    halved = events(st, "genive.score_halved")
    assert [(e["seat"], e["before"], e["after"]) for e in halved] == [(1, 300, 150)]
    assert not st.is_over() and not events(st, "genive.player_busted")
    assert st.scores()[2] == 204.0
    rng = random.Random(0)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert st.deal_no == 2


def test_upcard_joker_goes_back_into_the_stock() -> None:
    st = new([HIGH[0], HIGH[1], HIGH[2], HIGH[3]], stock=["3C", "4C", "5C", "6C"], upcard="JK")
    ev = events(st, "genive.upcard_joker_reinserted")
    assert len(ev) == 1 and 1 <= ev[0]["position_from_top"] <= 4
    obs = st.observation(0)
    assert obs["offer"] == ["3C"] and obs["stock_size"] == 4
    assert "JK" in zone_tokens(st, "stock")


def test_upcard_joker_rule_in_seeded_deals() -> None:
    game = load_game("genive")
    found = 0
    for seed in range(300):
        st = game.new_match(seed=seed)
        if events(st, "genive.upcard_joker_reinserted"):
            found += 1
            assert st.observation(0)["offer"] != ["JK"]
    assert found > 0


# --------------------------------------------------------------------- information
def test_hidden_cards_exclude_cards_taken_from_the_discard() -> None:
    st = new([["KS", "QS", "JD"], ["KH", "QH", "JC"], ["KD", "QD", "JH"]], upcard="2D")
    st.apply("discard KS")
    st.apply("draw 2D")
    hidden = {TOKENS[c] for c in cards_of(st.hidden_cards(1))}
    assert "2D" not in hidden and "QS" in hidden and "KD" in hidden
    assert st.observation(1)["known_cards"][0] == ["2D"]
    assert "QS" not in str(st.observation(1))
    st.apply("discard KH")
    st.apply("draw stock")
    st.apply("discard KD")
    st.apply("draw stock")
    st.apply("discard 2D")  # the known card leaves the hand again
    assert st.observation(1)["known_cards"][0] == []


def test_determinize_keeps_sizes_and_known_cards() -> None:
    st = new([["KS", "QS", "JD"], ["KH", "QH", "JC"], ["KD", "QD", "JH"]], upcard="2D")
    st.apply("discard KS")
    st.apply("draw 2D")
    d = st.determinize(1, random.Random(4))
    assert d.observation(1)["hand"] == st.observation(1)["hand"]
    assert [len(h) for h in (d.observation(s)["hand"] for s in range(3))] == [3, 3, 3]
    assert "2D" in d.observation(0)["hand"]
    assert not d.invariant_violations()
    assert d.zones()["stock"] | d.zones()["hand0"] | d.zones()["hand2"] == (
        st.zones()["stock"] | st.zones()["hand0"] | st.zones()["hand2"])
    redeals = [st.determinize(1, random.Random(k)) for k in range(10)]
    assert any(r.observation(2)["hand"] != st.observation(2)["hand"] for r in redeals)


def test_observation_after_the_match_shows_the_hands() -> None:
    st = new([["AH"], HIGH[0], HIGH[1], HIGH[2]], totals=[0, 190, 0, 0])
    st.apply("call")
    assert st.is_over()
    last = st.observation(2)["last_deal"]
    assert last["caller"] == 0 and last["hands"][1] == ["TD", "JH", "QS"]
    assert st.hidden_cards(2) == 0


def test_bad_injected_deals_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="more often"):
        new([["AH", "AH"], *HIGH[:3]])
    with pytest.raises(ValueError, match="4 hands"):
        load_game("genive").new_match(players=4, deal={"hands": [["AH"]]})
    with pytest.raises(ValueError, match="lost"):
        new([["AH"], *HIGH[:3]], totals=[201, 0, 0, 0])
