"""Geneve (RULES.md 2.2, seed 001): decisions V1-V10, the card's rule events and clarifications."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, zone_tokens

# filler hands worth 32 (J Q K are 11) with no pair or run
HIGH = [["QS", "JH", "TD"], ["QH", "JD", "TC"], ["QD", "JC", "TS"], ["QC", "JS", "TH"]]


def new(hands: list[list[str]], stock: list[str] | None = None, upcard: str | None = "9D",
        seed: int = 1, **extra: Any) -> State:
    opts = extra.pop("options", {})
    deal: dict[str, Any] = {"dealer": extra.pop("dealer", 0), "upcard": upcard, **extra}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("geneve", hands, seed=seed, options=opts, **deal)


def play_out(state: State, seed: int = 0) -> None:
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
        assert not state.invariant_violations()


# --------------------------------------------------------------------- V1, V2: values and limits
def test_v1_geneve_and_genive_are_two_games_with_their_own_numbers() -> None:
    gv = new([HIGH[0], ["KS"], HIGH[1], HIGH[2]])
    assert gv.current_player == 1  # left of the dealer plays first (seat 0 deals, X1)
    assert gv.observation(1)["hand_value"] == 11  # faces are 11 in Geneve
    assert "call" in gv.legal_actions()  # limit 11
    gn = load_game("genive").new_match(seed=1, deal={"partial": True, "dealer": 3, "first": 1,
                                                     "hands": [HIGH[0], ["KS"], HIGH[1], HIGH[2]]})
    assert gn.observation(1)["hand_value"] == 10 and "call" not in gn.legal_actions()  # 10 and 5
    assert gv.observation(1)["call_limit"] == 11 and gn.observation(1)["call_limit"] == 5


def test_v1_upcard_joker_stays_in_geneve() -> None:
    # the Genive rule that a turned-up joker goes back into the stock is Genive's alone
    st = new([HIGH[0], HIGH[1], HIGH[2], HIGH[3]], upcard="JK", stock=["2C", "3C"])
    assert st.observation(1)["offer"] == ["JK"]
    assert not [e for e in st.events if e["event"].endswith("upcard_joker_reinserted")]
    st.apply("discard QH")
    assert "draw JK" in st.legal_actions()


def test_v2_joker_counts_0() -> None:
    st = new([HIGH[0], ["JK", "AH", "TC"], HIGH[2], HIGH[3]])
    assert st.observation(1)["hand_value"] == 11 and "call" in st.legal_actions()


# --------------------------------------------------------------------- V3, V4: scoring a call
def test_v4_strictly_lowest_caller_scores_0() -> None:
    st = new([HIGH[0], ["AH", "2C"], HIGH[1], HIGH[2]])
    st.apply("call")
    ev = events(st, "geneve.geneve_called")
    assert ev[0]["seat"] == 1 and ev[0]["total"] == 3 and ev[0]["hands"][1] == ["2C", "AH"]
    assert st.score_sheet() == [[32.0, 0.0, 32.0, 32.0]]
    assert not events(st, "geneve.geneve_failed")


def test_v3_failed_caller_scores_hand_plus_30() -> None:
    st = new([HIGH[0], ["5H", "4C"], ["2D", "3S"], HIGH[1]])
    st.apply("call")
    failed = events(st, "geneve.geneve_failed")
    assert failed[0]["seat"] == 1 and failed[0]["penalty"] == 30 and failed[0]["lowest"] == [2]
    assert st.score_sheet() == [[32.0, 39.0, 5.0, 32.0]]
    assert not events(st, "geneve.tie_with_caller")


def test_v3_option_seed_reading_adds_30_only() -> None:
    st = new([HIGH[0], ["5H", "4C"], ["2D", "3S"], HIGH[1]], options={"failed_call_adds_hand": False})
    st.apply("call")
    assert st.score_sheet() == [[32.0, 30.0, 5.0, 32.0]]


def test_v3_tie_counts_against_the_caller() -> None:
    st = new([HIGH[0], ["5H"], HIGH[1], ["2D", "3S"]])
    st.apply("call")
    tie = events(st, "geneve.tie_with_caller")
    assert tie and tie[0]["seat"] == 1 and tie[0]["tied"] == [3]
    assert events(st, "geneve.geneve_failed")
    assert st.score_sheet() == [[32.0, 35.0, 32.0, 5.0]]


def test_v4_call_only_with_at_most_11() -> None:
    st = new([HIGH[0], ["KS", "AC"], HIGH[1], HIGH[2]])
    assert "call" not in st.legal_actions()
    with pytest.raises(IllegalAction, match="at most 11; yours is 12"):
        st.apply("call")


# --------------------------------------------------------------------- V5: decks
def test_v5_one_pack_to_5_players_two_packs_from_6() -> None:
    five = load_game("geneve").new_match(seed=2, players=5)
    six = load_game("geneve").new_match(seed=2, players=6)
    assert five.deck_mask.bit_count() == 54 and six.deck_mask.bit_count() == 108
    tokens = [TOKENS[c] for c in cards_of(six.deck_mask)]
    assert tokens.count("5H") == 2 and tokens.count("JK") == 4
    with pytest.raises(ValueError, match="more often"):
        new([["5H", "5H"], HIGH[0], HIGH[1], HIGH[2]])
    hands = [["5H", "5H", "KS"], HIGH[0], HIGH[1], HIGH[2], HIGH[3], ["9C", "9S", "8H"]]
    st = load_game("geneve").new_match(seed=2, players=6, deal={"partial": True, "dealer": 5, "hands": hands})
    assert st.current_player == 0 and "discard 5H 5H" in st.legal_actions()
    st.apply("discard 5H 5H")
    assert events(st, "geneve.pair_discard")[0]["size"] == 2
    st.apply("draw stock")
    assert st.observation(1)["takeable"] == ["5H"]
    st.apply("discard QS")
    st.apply("draw 5H")
    assert st.observation(2)["known_cards"][1] == ["5H"]
    assert not st.invariant_violations()


def test_v5_a_two_pack_match_plays_to_the_end() -> None:
    st = load_game("geneve").new_match(seed=4, players=7)
    play_out(st, 4)
    assert sum(1 for r in st.ranking() if r == 1) == 1


# --------------------------------------------------------------------- V6: pairs only
def test_v6_only_pairs_by_default() -> None:
    st = new([HIGH[0], ["5C", "5D", "5H", "KS"], HIGH[1], HIGH[2]])
    legal = st.legal_actions()
    assert {"discard 5C 5D", "discard 5C 5H", "discard 5D 5H"} <= set(legal)
    assert "discard 5C 5D 5H" not in legal
    with pytest.raises(IllegalAction, match="only pairs"):
        st.apply("discard 5H 5D 5C")
    st.apply("discard 5H 5C")
    assert st.history == ["discard 5C 5H"]
    ev = events(st, "geneve.pair_discard")
    assert ev[0]["seat"] == 1 and ev[0]["size"] == 2


def test_v6_max_group_option_allows_three_of_a_kind() -> None:
    st = new([HIGH[0], ["5C", "5D", "5H", "KS"], HIGH[1], HIGH[2]], options={"max_group": 3})
    assert "discard 5C 5D 5H" in st.legal_actions()
    st.apply("discard 5C 5D 5H")
    assert events(st, "geneve.pair_discard")[0]["size"] == 3
    st.apply("draw stock")
    assert st.observation(2)["takeable"] == ["5C", "5D", "5H"]


# --------------------------------------------------------------------- runs: the seed's example
def test_v6_run_5_6_joker_8_next_player_takes_only_5_or_8() -> None:
    st = new([HIGH[0], ["5H", "6H", "8H", "JK", "KC"], HIGH[1], HIGH[2]])
    assert "discard 5H 6H JK=7H 8H" in st.legal_actions()
    st.apply("discard 8H JK=7H 5H 6H")
    assert st.history == ["discard 5H 6H JK=7H 8H"]
    ev = events(st, "geneve.run_discard_with_joker")
    assert ev[0]["seat"] == 1 and ev[0]["len"] == 4 and ev[0]["jokers"] == 1
    st.apply("draw stock")
    st.apply("discard QH")
    assert st.legal_actions() == ["draw stock", "draw 5H", "draw 8H"]
    for bad in ("draw JK", "draw 6H"):
        with pytest.raises(IllegalAction, match="lowest or highest"):
            st.apply(bad)
    st.apply("draw 8H")
    assert sorted(st.observation(2)["hand"]) == ["8H", "JD", "TC"]


def test_v6_run_without_joker_fires_no_joker_event() -> None:
    st = new([HIGH[0], ["5H", "6H", "7H", "KC"], HIGH[1], HIGH[2]])
    st.apply("discard 5H 6H 7H")
    assert not events(st, "geneve.run_discard_with_joker")


# --------------------------------------------------------------------- V7: stock exhaustion
def test_v7_stock_reshuffle_keeps_the_previous_discard_group() -> None:
    st = new([["KS", "QS"], ["KH", "QH"], ["KD", "QD"]], stock=["3D"], upcard="2D")
    assert st.current_player == 1
    st.apply("discard KH")
    st.apply("draw stock")
    ev = events(st, "geneve.stock_reshuffled")
    assert len(ev) == 1 and ev[0]["cards"] == 1
    assert zone_tokens(st, "stock") == ["2D"] and zone_tokens(st, "offer") == ["KH"]
    assert st.observation(2)["takeable"] == ["KH"]
    assert not st.invariant_violations()


# --------------------------------------------------------------------- V8: next dealer and first
def test_v8_lowest_round_score_plays_first_highest_deals_ties_left_of_dealer() -> None:
    # failed caller seat 1 scores 9 + 30; seats 2 and 3 tie on 5 for lowest
    st = new([HIGH[0], ["5H", "4C"], ["2D", "3S"], ["AS", "4D"]])
    st.apply("call")
    obs = st.observation(0)
    assert obs["dealer"] == 1 and obs["first_player"] == 2 and st.current_player == 2


def test_v8_tie_for_highest_nearest_left_of_the_previous_dealer_deals() -> None:
    st = new([HIGH[0], HIGH[1], ["AH", "2C"], HIGH[2]], dealer=1)  # seat 2 plays first
    assert st.current_player == 2
    st.apply("call")
    obs = st.observation(0)
    assert obs["dealer"] == 3  # 32 for seats 3, 0 and 1: seat 3 sits first after dealer 1
    assert obs["first_player"] == 2 and st.current_player == 2


def test_v8_round_score_after_the_callers_adjustment() -> None:
    # the caller holds the lowest hand among the failed, but his round score is 3 + 30
    st = new([["AH", "2C"], ["3D"], HIGH[1], HIGH[2]], first=0)
    st.apply("call")
    obs = st.observation(0)
    assert obs["first_player"] == 1 and obs["dealer"] == 0  # 33 beats 32


# --------------------------------------------------------------------- V9: elimination
def test_v9_eliminated_player_deals_the_goodbye_shuffle() -> None:
    st = new([HIGH[0], ["AH"], HIGH[1], ["4C", "2D", "3S"]], totals=[150, 100, 195, 120])
    st.apply("call")
    out = events(st, "geneve.player_eliminated")
    assert [(e["seat"], e["total"]) for e in out] == [(2, 227)]
    bye = events(st, "geneve.goodbye_shuffle")
    assert [e["seat"] for e in bye] == [2] and bye[0]["deal"] == 2
    obs = st.observation(2)
    assert obs["dealer"] == 2 and obs["hand"] == [] and obs["active"] == [True, True, False, True]
    assert obs["hand_sizes"][2] == 0
    assert st.current_player == 1  # the caller's 0 is the lowest round score
    seen = []
    for _ in range(6):
        seen.append(st.current_player)
        st.apply(next(a for a in st.legal_actions() if a != "call"))
        st.apply(st.legal_actions()[0])
    assert seen == [1, 3, 0, 1, 3, 0]  # seat 2 is not seated any more
    assert st.ranking()[2] == 4 and not st.is_over()


def test_v9_exactly_200_goes_back_to_150() -> None:
    st = new([HIGH[0], ["AH"], HIGH[1], HIGH[2]], totals=[168, 0, 190, 0])
    st.apply("call")
    ev = events(st, "geneve.score_reset_200_to_150")
    assert [(e["seat"], e["before"], e["after"]) for e in ev] == [(0, 200, 150)]
    assert st.scores()[0] == 150.0 and st.observation(0)["active"][0]
    assert [e["seat"] for e in events(st, "geneve.player_eliminated")] == [2]
    assert not st.invariant_violations()


def test_v9_several_out_highest_round_score_says_goodbye() -> None:
    st = new([HIGH[0], ["AH"], ["KS", "KH", "KD"], HIGH[1], HIGH[2]], totals=[190, 0, 190, 0, 0])
    st.apply("call")
    assert sorted(e["seat"] for e in events(st, "geneve.player_eliminated")) == [0, 2]
    assert [e["seat"] for e in events(st, "geneve.goodbye_shuffle")] == [2]  # 33 beats 32
    assert st.observation(1)["dealer"] == 2


def test_v9_knock_out_ranking_later_before_earlier() -> None:
    st = new([HIGH[0], ["AH"], HIGH[1], []], totals=[190, 20, 30, 210], dealer=3)
    assert st.current_player == 0
    st.apply(next(a for a in st.legal_actions() if a.startswith("discard")))
    st.apply("draw stock")
    st.apply("call")  # seat 1 with 1 point, alone below everyone
    assert [e["seat"] for e in events(st, "geneve.player_eliminated")] == [0]
    assert not st.is_over()
    # survivors 1 and 2 by total; seat 0 (out in deal 1, 190 + more) before seat 3 (out before it)
    assert st.ranking() == [3, 1, 2, 4]
    assert st.scores()[0] > st.scores()[3]


def test_v9_last_player_left_wins() -> None:
    st = new([HIGH[0], ["AH"], []], totals=[190, 50, 300])
    st.apply("call")
    assert st.is_over() and st.ranking() == [2, 1, 3]


# --------------------------------------------------------------------- V10: all out together
def test_v10_all_out_together_lowest_total_wins() -> None:
    st = new([HIGH[0], ["5H", "4C"], ["2D", "3S"], []], totals=[190, 195, 196, 260], dealer=0)
    st.apply("call")  # seat 1 fails: 195 + 39; seat 0: 222; seat 2: 201
    assert sorted(e["seat"] for e in events(st, "geneve.player_eliminated")) == [0, 1, 2]
    assert st.is_over()
    assert st.scores() == [222.0, 234.0, 201.0, 260.0]
    assert st.ranking() == [2, 3, 1, 4]
    assert not events(st, "geneve.goodbye_shuffle")


def test_v10_seeded_match_ends_with_one_player_left() -> None:
    st = load_game("geneve").new_match(seed=11)
    play_out(st, 11)
    left = [s for s, t in enumerate(st.scores()) if t < 200]
    assert len(left) <= 1
    assert st.ranking().count(1) == 1
    if left:
        assert st.ranking()[left[0]] == 1
    assert len(events(st, "geneve.player_eliminated")) >= 3
    assert len(events(st, "geneve.goodbye_shuffle")) >= 1


# --------------------------------------------------------------------- information and errors
def test_observation_and_hidden_cards() -> None:
    st = new([["KS", "QS", "2C"], ["KH", "QH", "3C"], ["KD", "QD", "4C"]], upcard="2D")
    st.apply("discard KH")
    st.apply("draw 2D")
    hidden = {TOKENS[c] for c in cards_of(st.hidden_cards(0))}
    assert "2D" not in hidden and "QH" in hidden
    obs = st.observation(0)
    assert obs["known_cards"][1] == ["2D"] and obs["discard_top"] == ["KH"]
    assert "QH" not in str(obs)
    d = st.determinize(0, random.Random(1))
    assert "2D" in d.observation(1)["hand"] and len(d.observation(1)["hand"]) == 3
    assert not d.invariant_violations()


def test_bad_injected_totals_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="goes back"):
        new([HIGH[0], ["AH"], HIGH[1]], totals=[200, 0, 0])
    with pytest.raises(ValueError, match="holds no cards"):
        new([HIGH[0], ["AH"], HIGH[1]], totals=[250, 0, 0])
    with pytest.raises(ValueError, match="at least two"):
        new([[], ["AH"], []], totals=[250, 0, 250])
