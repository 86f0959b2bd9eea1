"""Zenuwen (RULES.md 2.6, seed 002 "Zenuwen"): decisions Z1-Z14, the real-time scheduler (ticks,
X2) and the card's rule events."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, build_deck, cards_of
from tests import gamekit
from tests.conformance import leaked_cards, random_playout
from tests.gamekit import events
from tests.gamekit import zone_tokens as zone

# Seat 1's standard layout: tops 7D 2C 3C 4C 5C (only 7D fits an 8), ten face-down fillers.
STD = ["7D", "2D", "2C", "2S", "3D", "3C", "3S", "4D", "5S", "4C", "4S", "5D", "6C", "6D", "5C"]
# A chain for seat 0: on an 8 every next top is one higher (9H TH JH QH KH AH 2H ... 6H 7S ... TS).
CHAIN = ["9H", "AH", "TH", "3H", "2H", "JH", "6H", "5H", "4H", "QH", "TS", "9S", "8S", "7S", "KH"]
CHAIN_ORDER = ["9H", "TH", "JH", "QH", "KH", "AH", "2H", "3H", "4H", "5H", "6H", "7S", "8S", "9S", "TS"]


def new(hands: list[list[str]], tick: int = 0, seed: int = 1, **options: Any) -> State:
    """An injected deal; two packs unless said otherwise, so that seat 1's fillers (STD) may repeat
    the cards of seat 0's layout."""
    options.setdefault("packs", 2)
    return gamekit.new("zenuwen", hands, seed=seed, options=options,
                       dealer=0, stock=[], upcard=None, tick=tick)


def tick(st: State, *actions: str) -> None:
    """One tick: every seat's action, in seat order."""
    assert st.phase == "play"
    for seat, a in enumerate(actions):
        assert st.current_player == seat
        st.apply(a)


def obs(st: State, seat: int = 0) -> dict[str, Any]:
    return st.observation(seat)


def play_chain(st: State, pile: int = 2, others: int = 1) -> None:
    for c in CHAIN_ORDER:
        tick(st, f"play {c} {pile}", *["pass"] * others)


# --------------------------------------------------------------------- Z1: ticks
def test_z1_every_seat_submits_in_seat_order_hidden_until_the_tick_resolves() -> None:
    st = new([["9H", "KS"], [*STD, "8C"]])
    assert st.current_player == 0 and "play 9H 2" in st.legal_actions()
    st.apply("play 9H 2")
    assert st.current_player == 1
    o1 = obs(st, 1)
    assert o1["submitted"] == [True, False] and o1["my_submission"] is None and o1["last_tick"] is None
    assert "play 9H 2" not in json.dumps(o1)  # X2: seat 0's choice is not shown
    assert obs(st, 0)["my_submission"] == "play 9H 2"
    # seat 1's choices are those of the tick's start: the 8C is still the top of centre pile 2
    assert o1["centre_tops"] == [None, "8C"] and "play 7D 2" in st.legal_actions()
    st.apply("pass")
    assert st.current_player == 0 and obs(st)["tick"] == 1
    assert obs(st)["centre_tops"] == [None, "9H"]
    assert obs(st, 1)["last_tick"]["actions"] == ["play 9H 2", "pass"]


def test_z1_race_conflict_the_first_in_priority_order_wins() -> None:
    st = new([["9H", "KS"], [*STD, "8C"]])  # tick 0: seat 0 resolves first
    tick(st, "play 9H 2", "play 7D 2")
    conflict = events(st, "zenuwen.race_conflict")
    assert [(e["seat"], e["pile"], e["winner"], e["card"]) for e in conflict] == [(1, 2, 0, "7D")]
    o = obs(st, 1)
    assert o["centre_tops"][1] == "9H" and o["layout_up"][1][0] == ["7D"]  # the card stays
    assert o["last_tick"]["results"] == ["ok", "failed"]


def test_z1_priority_rotates_with_the_tick_count() -> None:
    st = new([["9H", "KS"], [*STD, "8C"]], tick=1)  # tick 1: seat 1 resolves first
    assert obs(st)["priority"] == 1
    tick(st, "play 9H 2", "play 7D 2")
    conflict = events(st, "zenuwen.race_conflict")
    assert [(e["seat"], e["winner"]) for e in conflict] == [(0, 1)]
    assert obs(st)["centre_tops"][1] == "7D" and obs(st)["layout_up"][0][0] == ["9H"]
    assert obs(st)["priority"] == 0  # tick 2


def test_z1_hand_card_that_loses_the_race_becomes_known() -> None:
    st = new([["9H", "2C", "5S"], [*STD, "3H", "QD"]])
    tick(st, "take", "pass")  # tick 0; 2C was face down: only seat 0 knows it
    assert obs(st, 1)["known_hands"][0] == ["9H", "5S"]
    # tick 1: seat 1 resolves first, 4C onto the 3H; seat 0's 2C from hand then fails and is shown
    tick(st, "play 2C 2", "play 4C 2")
    lost = events(st, "zenuwen.race_conflict")
    assert [(e["seat"], e["card"], e["winner"]) for e in lost] == [(0, "2C", 1)]
    assert sorted(obs(st, 1)["known_hands"][0]) == ["2C", "5S", "9H"]
    assert obs(st, 1)["hand_sizes"][0] == 3 and obs(st, 1)["centre_tops"][1] == "4C"
    assert not leaked_cards(st, 1)


# --------------------------------------------------------------------- Z2: the deal
def test_z2_seeded_deal_is_half_the_pack_each_round_robin_from_seat_0() -> None:
    st = load_game("zenuwen").new_match(seed=7)
    deck = build_deck()
    random.Random(7).shuffle(deck)
    o = obs(st)
    assert st.scores() == [26.0, 26.0]
    assert o["layout_down"] == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
    assert o["spit_sizes"] == [10, 10] and o["centre_sizes"] == [1, 1]
    for s in range(2):
        dealt = deck[s::2]
        tops = [dealt[0], dealt[2], dealt[5], dealt[9], dealt[14]]
        assert [p[0] for p in o["layout_up"][s]] == [TOKENS[c] for c in tops]
        assert o["centre_tops"][s] == TOKENS[dealt[15]]  # the first spit card, flipped


def test_z2_three_and_four_players_use_two_packs() -> None:
    st3 = load_game("zenuwen").new_match(seed=3, players=3)
    assert st3.scores() == [35.0, 35.0, 34.0]
    st4 = load_game("zenuwen").new_match(seed=3, players=4)
    assert st4.scores() == [26.0] * 4
    with pytest.raises(ValueError, match="two packs"):
        load_game("zenuwen", packs=1).new_match(seed=3, players=4)


def test_z2_injected_cards_fill_the_piles_in_dealt_order() -> None:
    st = new([[*CHAIN, "JC", "QC"], [*STD, "8C"]])
    o = obs(st)
    assert o["layout_up"][0] == [["9H"], ["TH"], ["JH"], ["QH"], ["KH"]]
    assert o["layout_down"][0] == [0, 1, 2, 3, 4]
    assert o["centre_tops"] == ["JC", "8C"] and o["spit_sizes"] == [1, 0]
    assert zone(st, "spit0") == ["QC"]


def test_z2_later_rounds_lay_out_each_seats_cards_again() -> None:
    st = new([[*CHAIN, "JC"], [*STD, "8C"]])
    play_chain(st)
    st.apply("pile 2")  # seat 0 takes the big pile: 8C and his 15 cards; seat 1 JC and his 15
    assert st.deal_no == 2 and st.score_sheet() == [[16.0, 16.0]]
    o = obs(st)
    assert o["layout_down"] == [[0, 1, 2, 3, 4]] * 2 and o["spit_sizes"] == [0, 0]
    assert o["centre_sizes"] == [1, 1] and o["had_spit"] == [True, True]
    assert sorted(zone(st, "layout0") + zone(st, "centre1")) == sorted([*CHAIN, "8C"])
    assert sorted(zone(st, "layout1") + zone(st, "centre2")) == sorted([*STD, "JC"])


# --------------------------------------------------------------------- Z3: empty spit pile
def test_z3_empty_spit_pile_flips_nothing_by_default() -> None:
    st = new([["KS", "QS"], [*STD, "8C", "2H"]])
    assert obs(st)["centre_tops"] == [None, "8C"]
    tick(st, "pass", "pass")
    assert events(st, "zenuwen.stuck_both")
    assert obs(st)["centre_tops"] == [None, "2H"]  # only seat 1 flips, onto his own pile
    assert not events(st, "zenuwen.spit_from_opponent")


def test_z3_option_spit_from_opponent() -> None:
    st = new([["KS", "QS"], [*STD, "8C", "2H", "3H"]], spit_from_opponent=True)
    ev = events(st, "zenuwen.spit_from_opponent")
    assert [(e["seat"], e["opponent"], e["card"]) for e in ev] == [(0, 1, "2H")]
    assert obs(st)["centre_tops"] == ["2H", "8C"] and obs(st)["spit_sizes"] == [0, 1]


# --------------------------------------------------------------------- Z4: the pile choice
def test_z4_round_winner_chooses_any_centre_pile() -> None:
    st = new([[*CHAIN, "JC"], [*STD, "8C"]])
    play_chain(st)
    won = events(st, "zenuwen.round_won")
    assert [(e["seat"], e["blocked"]) for e in won] == [(0, False)]
    assert st.phase == "choose" and st.current_player == 0
    assert st.legal_actions() == ["pile 1", "pile 2"]  # the bigger pile too: nothing chooses for him
    st.apply("pile 1")
    assert [(e["seat"], e["pile"], e["size"]) for e in events(st, "zenuwen.pile_choice")] == [(0, 1, 1)]
    assert st.score_sheet() == [[1.0, 31.0]]


def test_z4_slap_variant_first_in_the_next_ticks_priority_order_gets_his_choice() -> None:
    st = new([[*CHAIN, "JC"], [*STD, "8C"]], round_end="slap")
    play_chain(st)  # 15 ticks: the slap goes by tick 15's order, seat 1 first
    assert st.phase == "slap" and st.current_player == 0
    st.apply("pile 1")
    assert obs(st, 1)["my_submission"] is None and obs(st, 1)["submitted"] == [True, False]
    st.apply("pile 1")
    slap = events(st, "zenuwen.slap_race")
    assert [(e["seat"], e["pile"]) for e in slap] == [(1, 1)]
    assert [(e["seat"], e["pile"]) for e in events(st, "zenuwen.pile_choice")] == [(1, 1)]
    # seat 1 takes the small pile 1; seat 0, its owner, takes seat 1's pile (Z12)
    assert st.score_sheet() == [[16.0, 16.0]]
    assert obs(st)["tick"] == 15  # the slap is not a tick


# --------------------------------------------------------------------- Z5: wrap
def test_z5_king_ace_two_wrap() -> None:
    st = new([["AH", "4C", "QS", "5C", "6C", "2D"], [*STD, "KC"]])
    legal = st.legal_actions()
    assert "play AH 2" in legal and "play QS 2" in legal and "play 2D 2" not in legal
    st = new([["KH", "4H", "2S", "5H", "6H", "3D"], [*STD, "AC"]])
    legal = st.legal_actions()
    assert "play KH 2" in legal and "play 2S 2" in legal and "play 3D 2" not in legal


# --------------------------------------------------------------------- Z6: short layouts
def test_z6_fewer_than_15_cards_fill_piles_left_to_right_without_spit_pile() -> None:
    st = new([["KS", "QS", "JS", "TS", "9S", "8S", "2H"], [*STD, "8C"]])
    o = obs(st)
    assert o["layout_up"][0] == [["KS"], ["JS"], ["8S"], ["2H"], []]
    assert o["layout_down"][0] == [0, 1, 2, 0, 0] and o["spit_sizes"][0] == 0
    ev = events(st, "zenuwen.no_spit_pile_round")
    assert [(e["seat"], e["cards"]) for e in ev] == [(0, 7)]
    assert o["had_spit"] == [False, True]


# --------------------------------------------------------------------- Z7: more players
def test_z7_three_players_each_flip_onto_his_own_centre_pile() -> None:
    st = load_game("zenuwen").new_match(seed=2, players=3)
    o = obs(st)
    assert len(o["centre_tops"]) == 3 and all(o["centre_tops"]) and o["centre_sizes"] == [1, 1, 1]
    flip = events(st, "zenuwen.simultaneous_flip")
    assert len(flip) == 1 and flip[0]["cards"] == o["centre_tops"]
    assert o["spit_sizes"] == [19, 19, 18]


# --------------------------------------------------------------------- Z8: passing
def test_z8_pass_is_always_legal_and_all_passing_flips() -> None:
    st = new([["9H", "KS"], [*STD, "8C", "QD"]])
    assert "pass" in st.legal_actions() and "play 9H 2" in st.legal_actions()
    tick(st, "pass", "pass")  # seat 0 could play but waits
    assert len(events(st, "zenuwen.stuck_both")) == 1
    flips = events(st, "zenuwen.simultaneous_flip")
    assert [f["cards"] for f in flips] == [[None, "8C"], [None, "QD"]]
    assert obs(st)["centre_tops"] == [None, "QD"]


def test_z8_a_tick_with_a_move_is_not_stuck() -> None:
    st = new([["9H", "KS"], [*STD, "8C", "QD"]])
    tick(st, "play 9H 2", "pass")
    assert not events(st, "zenuwen.stuck_both") and obs(st)["centre_tops"] == [None, "9H"]


# --------------------------------------------------------------------- Z9: blocked round
def test_z9_blocked_round_fewest_cards_wins_and_everyone_keeps_his_cards() -> None:
    st = new([["2H", "2S", "3S"], [*STD, "8C"]])
    tick(st, "pass", "pass")  # nobody moves and nobody can flip
    blocked = events(st, "zenuwen.round_blocked")
    assert [(e["seat"], e["cards"]) for e in blocked] == [(0, [3, 15])]
    # seat 0 started without a spit pile: he takes no pile (Z13) and keeps his 3 cards
    assert st.score_sheet() == [[3.0, 16.0]] and st.deal_no == 2 and not st.is_over()
    assert not events(st, "zenuwen.match_won_gejast")


def test_z9_blocked_tie_goes_to_the_earlier_in_priority_order() -> None:
    hearts = [r + "H" for r in "A23456789TJQK"] + ["7S", "8S"]
    st = new([hearts, [*STD, "QC"]], tick=1)  # 15 against 15; tick 1: seat 1 first
    tick(st, "pass", "pass")
    assert [e["seat"] for e in events(st, "zenuwen.round_blocked")] == [1]
    assert st.phase == "choose" and st.current_player == 1  # he had a spit pile: he chooses
    st2 = new([hearts, [*STD, "QC"]], tick=0)
    tick(st2, "pass", "pass")
    assert [e["seat"] for e in events(st2, "zenuwen.round_blocked")] == [0]


# --------------------------------------------------------------------- Z10: layout moves
def test_z10_stack_only_a_single_face_up_card_on_the_same_rank() -> None:
    st = new([["5H", "2C", "5S", "9D", "8D", "5D"], [*STD, "KC"]])
    legal = st.legal_actions()
    assert {"stack 5H 2", "stack 5H 3", "stack 5S 1", "stack 5S 3", "stack 5D 1", "stack 5D 2"} <= set(legal)
    tick(st, "stack 5H 2", "pass")
    o = obs(st)
    assert o["layout_up"][0] == [[], ["5S", "5H"], ["5D"], [], []]
    legal = st.legal_actions()
    assert "stack 5H 3" not in legal  # a face-up 5S lies under the 5H: no cycling
    assert "stack 5D 2" in legal


def test_z10_move_into_an_empty_space_only_over_a_face_down_card() -> None:
    st = new([["5H", "2C", "5S", "9D", "8D", "5D"], [*STD, "KC"]])
    tick(st, "stack 5H 2", "pass")
    legal = st.legal_actions()
    assert "move 2 1" in legal and "move 3 1" in legal
    tick(st, "move 2 1", "pass")
    o = obs(st)
    assert o["layout_up"][0][:2] == [["5S", "5H"], ["2C"]]  # 2C turned up at once
    assert o["layout_down"][0][:3] == [0, 0, 2]
    assert not [a for a in st.legal_actions() if a.startswith("move 1")]  # nothing face down under it


def test_z10_a_face_down_top_is_turned_up_after_a_play() -> None:
    st = new([["KS", "3D", "9H"], [*STD, "8C"]])
    assert obs(st)["layout_down"][0][1] == 1
    tick(st, "play 9H 2", "pass")
    o = obs(st)
    assert o["layout_up"][0][1] == ["3D"] and o["layout_down"][0][1] == 0


# --------------------------------------------------------------------- Z11: two empty in one tick
def test_z11_first_play_in_priority_order_that_empties_a_layout_wins() -> None:
    filler = STD
    for first, want in ((0, 0), (1, 1)):
        st = new([["9H"], ["7D"], [*filler[1:], "2H", "8C"]], tick=first)
        tick(st, "play 9H 3", "play 7D 3", "pass")
        assert [e["seat"] for e in events(st, "zenuwen.round_won")] == [want]
        assert not events(st, "zenuwen.race_conflict")  # the rest of the tick is void
        loser = 1 - want
        assert st.scores()[loser] >= 1.0


# --------------------------------------------------------------------- Z12: pile taking
def test_z12_three_players_owner_of_the_chosen_pile_takes_the_choosers_pile() -> None:
    st = new([[*CHAIN, "JC"], [*STD, "8C"], [*STD, "KD", "KS"]])
    assert obs(st)["centre_tops"] == ["JC", "8C", "KD"]
    play_chain(st, pile=2, others=2)
    assert st.current_player == 0 and st.legal_actions() == ["pile 1", "pile 2", "pile 3"]
    st.apply("pile 3")
    # seat 0 takes pile 3 (KD); seat 2 takes seat 0's pile 1 (JC) + KS + 15; seat 1 his own (16) + 15
    assert st.score_sheet() == [[1.0, 31.0, 17.0]]
    assert sum(st.score_sheet()[0]) == 49


# --------------------------------------------------------------------- Z13: match end
def test_z13_winner_without_spit_pile_takes_no_pile_and_wins_the_match() -> None:
    st = new([["9H"], [*STD, "8C"]])
    tick(st, "play 9H 2", "pass")
    assert [(e["seat"], e["pile"], e["size"]) for e in events(st, "zenuwen.pile_choice")] == [(0, None, 0)]
    won = events(st, "zenuwen.match_won_gejast")
    assert [(e["seat"], e["held"]) for e in won] == [(0, [0, 17])]
    assert st.is_over() and st.scores() == [0.0, 17.0] and st.ranking() == [1, 2]
    assert st.current_player is None and st.legal_actions() == []
    assert not st.invariant_violations()


def test_z13_with_spit_from_opponent_his_own_centre_pile_goes_to_the_next_seat() -> None:
    st = new([["9H"], [*STD, "8C", "2H", "3H"]], spit_from_opponent=True)
    assert obs(st)["centre_tops"] == ["2H", "8C"]
    tick(st, "play 9H 2", "pass")
    assert st.is_over() and st.scores() == [0.0, 19.0]


def test_z13_slap_variant_a_winner_without_spit_pile_is_settled_without_a_slap() -> None:
    """Z13 (revised turn 2): under round_end="slap" the round of a winner who started it without a
    spit pile has no slap: he takes no pile, every other seat its own."""
    for players in (2, 3):
        hands = [["9H"], [*STD, "8C"], [*STD, "KD", "KS"]][:players]
        st = new(hands, round_end="slap")
        tick(st, "play 9H 2", *["pass"] * (players - 1))
        assert st.phase != "slap" and not events(st, "zenuwen.slap_race")
        assert [(e["seat"], e["pile"]) for e in events(st, "zenuwen.pile_choice")] == [(0, None)]
        # seat 1 takes its own pile (8C 9H) and 15 layout cards; seat 2 its own KD, KS and 15
        want = [0.0, 17.0, 17.0][:players]
        assert st.is_over() and st.scores() == want
        assert [e["seat"] for e in events(st, "zenuwen.match_won_gejast")] == [0]
        assert not st.invariant_violations()


def test_z13_slap_variant_his_own_centre_pile_goes_to_the_next_seat() -> None:
    hands = [["9H"], [*STD, "8C", "2H", "3H"], [*STD, "KD", "KS"]]
    st = new(hands, round_end="slap", spit_from_opponent=True)
    assert obs(st)["centre_tops"] == ["2H", "8C", "KD"]  # seat 0 flipped seat 1's 2H
    tick(st, "play 9H 2", "pass", "pass")
    assert not events(st, "zenuwen.slap_race")
    # seat 1, next to seat 0: seat 0's pile (2H), its own (8C 9H), its spit 3H and 15 layout cards
    assert st.is_over() and st.scores() == [0.0, 19.0, 17.0]


def test_z13_ranking_by_cards_held_after_max_deals() -> None:
    st = new([["2H", "2S", "3S"], [*STD, "8C"]])
    st2 = load_game("zenuwen", packs=2).new_match(seed=1, max_deals=1, deal={
        "partial": True,
        "dealer": 0, "hands": [["2H", "2S", "3S"], [*STD, "8C"]], "stock": [], "upcard": None})
    tick(st2, "pass", "pass")  # blocked: seat 0 keeps 3, seat 1 holds 16
    assert st2.is_over() and st2.scores() == [3.0, 16.0] and st2.ranking() == [1, 2]
    assert not events(st2, "zenuwen.match_won_gejast")
    assert st.deal_no == 1


# --------------------------------------------------------------------- Z14: last three in hand
def test_z14_take_one_to_three_layout_cards_into_a_hidden_hand() -> None:
    st = new([["9H", "2C", "5S"], [*STD, "8C"]])
    assert "take" in st.legal_actions()
    tick(st, "take", "pass")
    ev = events(st, "zenuwen.took_last_three_in_hand")
    assert [(e["seat"], e["cards"]) for e in ev] == [(0, 3)]
    assert sorted(obs(st)["hand"]) == ["2C", "5S", "9H"]
    o1 = obs(st, 1)
    assert o1["hand"] == [] and o1["hand_sizes"] == [3, 0] and o1["known_hands"][0] == ["9H", "5S"]
    assert "2C" in [TOKENS[c] for c in cards_of(st.hidden_cards(1))]  # it was face down
    assert "2C" not in [TOKENS[c] for c in cards_of(st.hidden_cards(0))]
    assert "play 9H 2" in st.legal_actions() and "take" not in st.legal_actions()
    tick(st, "play 9H 2", "pass")
    assert sorted(obs(st)["hand"]) == ["2C", "5S"]


def test_z14_no_take_with_four_layout_cards() -> None:
    st = new([["9H", "2C", "5S", "6D"], [*STD, "8C"]])
    assert "take" not in st.legal_actions()
    with pytest.raises(IllegalAction, match="1-3 layout cards"):
        st.apply("take")


# --------------------------------------------------------------------- API, views, seeds
def test_actions_parse_strictly_and_explain() -> None:
    st = new([["9H", "KS"], [*STD, "8C"]])
    with pytest.raises(IllegalAction, match="rank then suit"):
        st.apply("play 10H 2")
    with pytest.raises(IllegalAction, match="one rank higher or lower"):
        st.apply("play KS 2")
    with pytest.raises(IllegalAction, match="round end"):
        st.apply("pile 1")


def test_two_packs_name_the_source_pile_of_a_repeated_token() -> None:
    hands = [["9H", "KD", "9H"], [*STD, "8C"], [*STD, "QC"]]
    st = new(hands)
    legal = st.legal_actions()
    assert "play 9H/1 2" in legal and "play 9H/2 2" in legal and "stack 9H/1 2" in legal
    tick(st, "play 9H/2 2", "pass", "pass")
    assert obs(st)["layout_up"][0][:2] == [["9H"], ["KD"]]


def test_determinize_redeals_only_hidden_cards_and_forgets_others_submissions() -> None:
    st = new([["9H", "2C", "5S"], [*STD, "8C", "QD", "KD"]])
    tick(st, "take", "pass")
    st.apply("play 9H 2")
    d = st.determinize(1, random.Random(3))
    assert d.pending_str[0] == "pass"  # type: ignore[attr-defined]
    o, od = obs(st, 1), obs(d, 1)
    for k in ("layout_up", "layout_down", "spit_sizes", "hand_sizes", "known_hands", "centre_tops"):
        assert o[k] == od[k]
    assert sorted(d.hand[0]) != [] and len(d.hand[0]) == 3  # type: ignore[attr-defined]
    assert not d.invariant_violations()
    random_playout(d, random.Random(1))


def test_determinize_during_a_slap_guesses_a_pile() -> None:
    st = new([[*CHAIN, "JC"], [*STD, "8C"]], round_end="slap")
    play_chain(st)
    st.apply("pile 2")
    d = st.determinize(1, random.Random(5))
    assert d.pending_str == ["pile 1", None]  # type: ignore[attr-defined]
    d.apply("pile 2")
    assert [e["seat"] for e in events(d, "zenuwen.slap_race")] == [1]
    assert not d.invariant_violations()


def test_seeded_matches_play_to_the_end_with_every_option() -> None:
    for opts, players in (({}, 2), ({}, 3), ({"round_end": "slap"}, 2), ({"spit_from_opponent": True}, 3),
                          ({"packs": 1}, 3)):
        game = load_game("zenuwen", **opts)
        for seed in range(3):
            st = game.new_match(seed=seed, players=players)
            random_playout(st, random.Random(seed), check_every_action=True)
            assert st.is_over() and min(st.scores()) == 0.0 and st.ranking().count(1) == 1
            assert events(st, "zenuwen.match_won_gejast")


def test_bad_injected_deals_are_clear_errors() -> None:
    game = load_game("zenuwen")
    with pytest.raises(ValueError, match="stock"):
        game.new_match(deal={"hands": [["2C"], ["3C"]], "stock": ["4C"], "upcard": None})
    with pytest.raises(ValueError, match="more often"):
        game.new_match(deal={"hands": [["2C"], ["2C"]], "stock": [], "upcard": None})
    with pytest.raises(ValueError, match="bad card"):
        game.new_match(deal={"hands": [["JK"], ["2C"]], "stock": [], "upcard": None})
    with pytest.raises(ValueError, match="hands"):
        game.new_match(deal={"hands": [["2C"]], "stock": [], "upcard": None})
