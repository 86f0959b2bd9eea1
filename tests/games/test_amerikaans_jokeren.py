"""Amerikaans Jokeren (RULES.md 2.20, seed 003 L436-493): decisions AJ1-AJ15 and the card's rule
events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.conformance import random_playout
from tests.gamekit import can_discard, events, play, table
from tests.games.rummy_oracle import capped_positions, check_capped_position, finishable_actions

FILL = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld among them
GAME = "amerikaans_jokeren"


def new(
    hands: list[list[str]],
    stock: list[str] | None = None,
    upcard: str | None = "AS",
    round_no: int = 1,
    passes: bool = True,
    **extra: Any,
) -> State:
    opts = {k: extra.pop(k) for k in list(extra) if k == "max_reforms"}
    if stock is not None:
        extra["stock"] = stock
    st = gamekit.new(GAME, hands, options=opts,
                     **{"dealer": len(hands) - 1, "upcard": upcard, "deal_no": round_no, **extra})
    if passes and upcard is not None:
        for _ in hands:
            st.apply("pass")
    return st


# --------------------------------------------------------------------- AJ1, AJ2, AJ7: melds
def test_aj1_set_naturals_of_different_suits_at_most_four() -> None:
    st = new([["7H", "7H", "7S", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock")
    assert "meld 7H" not in st.legal_actions()  # 7H 7H 7S is no set
    st = new([["7H", "7S", "7D", "7C", "JK", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 7H", "meld 7S", "meld 7D", "meld 7C")
    assert not any(a.startswith("meld JK") for a in st.legal_actions())  # at most four
    play(st, "confirm")
    assert table(st) == ["7C 7D 7H 7S"] and can_discard(st)


def test_aj2_layoff_onto_a_set_once_out() -> None:
    st = new(
        [["9C", "9D", "9S", "3H", *FILL], ["9H", "3S", "5S", "JD", "QD", "KH", "TC"]],
        stock=["2D", "3D", "9H", "3S"],
    )
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm", "discard 2D")
    play(st, "draw stock", "discard 3D")
    play(st, "draw stock")  # seat 0 draws 9H, came out last turn
    assert "layoff 9H 1" in st.legal_actions()
    play(st, "layoff 9H 1")
    assert table(st) == ["9C 9D 9H 9S"]
    assert [(e["seat"], e["on_other"]) for e in events(st, "amerikaans_jokeren.laid_off")] == [(0, False)]


def test_aj7_ace_low_or_high_no_wrap() -> None:
    st = new([["AH", "2H", "3H", *FILL], FILL], stock=["KH", "2S", "2S"], round_no=2)
    play(st, "draw stock", "meld AH", "meld 2H", "meld 3H", "confirm")
    assert table(st) == ["AH 2H 3H"] and can_discard(st)
    st = new([["QH", "KH", "AH", "2H", *FILL], FILL], stock=["3S", "2S", "2S"], round_no=2)
    play(st, "draw stock", "meld KH", "meld AH")
    assert "meld 2H" not in st.legal_actions() and "meld QH" in st.legal_actions()


# --------------------------------------------------------------------- AJ3, AJ10: round 3
def test_aj3_round3_points_joker_as_its_card_ace_low_1() -> None:
    st = new([["AH", "2H", "JK", "QS", "KS", "AS", "9C", "5D"], FILL], stock=["7C", "2S", "2S"], round_no=3)
    play(
        st,
        "draw stock",
        "meld AH",
        "meld 2H",
        "meld JK=3H",
        "confirm",
        "meld QS",
        "meld KS",
        "meld AS",
        "confirm",
    )
    assert not can_discard(st)  # 1 + 2 + 3 + 10 + 10 + 11 = 37
    st = new([["JH", "QH", "JK", "9C", "9D", "9S", "5D", "2S"], FILL], stock=["7C", "3S", "3S"], round_no=3)
    play(st, "draw stock", "meld JH", "meld QH", "meld JK=KH", "confirm")
    assert not can_discard(st)  # 30
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm")  # 30 + 27
    assert can_discard(st)
    play(st, "discard 2S")
    assert [e["round"] for e in events(st, "amerikaans_jokeren.opened")] == [3]


def test_aj10_one_meld_of_the_named_kind_and_size() -> None:
    hands = [["5H", "6H", "7H", "8H", "9C", "9D", "9S", "2D"], FILL]
    st = new(hands, stock=["KC", "2S", "2S"], round_no=1)  # round 1: a set
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    assert not can_discard(st)
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert not can_discard(st)  # two melds: only the required one
    play(st, "takeback", "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert can_discard(st)
    st = new(hands, stock=["KC", "2S", "2S"], round_no=4)  # round 4: a run of 4 or more
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    assert not can_discard(st)
    play(st, "layoff 8H 1")
    assert not can_discard(st)  # no lay-offs in the coming-out turn (and the run was laid with 3)
    play(st, "takeback", "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm")
    assert can_discard(st)
    st = new(hands, stock=["KC", "2S", "2S"], round_no=5)
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm")
    assert not can_discard(st)  # round 5 needs 5


# --------------------------------------------------------------------- AJ4, AJ11: going out
def test_aj4_round6_only_by_going_out_in_one_turn() -> None:
    st = new(
        [["2C", "4D", "6S", "8C"], ["5H", "6H", "7H", "9C", "9D", "9S"]], stock=["KS", "QD", "2S"], round_no=6
    )
    play(st, "draw stock", "discard KS")
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    assert not can_discard(st)  # coming out without going out
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert st.legal_actions() == ["discard QD"]
    play(st, "discard QD")
    assert [e["seat"] for e in events(st, "amerikaans_jokeren.went_out_in_one_turn")] == [1]
    assert [(e["seat"], e["round"]) for e in events(st, "amerikaans_jokeren.went_out")] == [(1, 6)]
    assert st.is_over() and st.score_sheet()[0] == [20.0, 0.0]


def test_aj11_going_out_in_the_coming_out_turn_may_lay_off_on_own_new_melds() -> None:
    st = new(
        [["2C", "4D", "6S", "8C"], ["9C", "9D", "9S", "5H", "6H", "7H", "8H"]],
        stock=["KS", "QD", "2S"],
        round_no=1,
    )
    play(st, "draw stock", "discard KS")
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
        "meld 5H",
        "meld 6H",
        "meld 7H",
        "confirm",
    )
    assert not can_discard(st)  # two melds, not going out
    play(st, "layoff 8H 2")
    assert st.legal_actions() == ["discard QD"]
    play(st, "discard QD")
    assert [e["seat"] for e in events(st, "amerikaans_jokeren.went_out")] == [1]


def test_aj11_requirement_counted_over_the_melds_as_confirmed() -> None:
    # round 4 (a run of at least 4): 5H 6H 7H confirmed, then 8H laid off onto it, makes a run of
    # four on the table, but the meld as confirmed had three: going out (discard QD) is refused
    hands = [["2C", "4D", "6S", "8C"], ["5H", "6H", "7H", "8H"]]
    st = new(hands, stock=["KS", "QD", "2S"], round_no=4)
    play(st, "draw stock", "discard KS", "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm")
    play(st, "layoff 8H 1")
    assert st.legal_actions() == ["takeback"]
    # the same cards confirmed as one run of four meet it
    st = new(hands, stock=["KS", "QD", "2S"], round_no=4)
    play(st, "draw stock", "discard KS", "draw stock", "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm")
    assert st.legal_actions() == ["discard QD"]


def test_aj11_no_layoff_onto_others_melds_in_the_coming_out_turn() -> None:
    st = new(
        [["9C", "9D", "9S", "3H", *FILL], ["9H", "5H", "6H", "7H", "QD", "KH", "TC"]],
        stock=["2D", "3D", "2S", "3S"],
        round_no=1,
    )
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm", "discard 2D")
    play(st, "draw stock")
    assert "layoff 9H 1" not in st.legal_actions()


# --------------------------------------------------------------------- AJ5, AJ6
def test_aj5_going_out_requires_the_last_discard() -> None:
    st = new([["2C", "4D", "6S", "8C"], ["9C", "9D", "9S"]], stock=["KS", "9H", "2S"], round_no=1)
    play(st, "draw stock", "discard KS", "draw stock", "meld 9C", "meld 9D", "meld 9S")
    assert "meld 9H" not in st.legal_actions()  # four melded would leave no card to discard
    play(st, "confirm", "discard 9H")
    assert [e["seat"] for e in events(st, "amerikaans_jokeren.went_out")] == [1]


def test_aj6_a_player_not_yet_out_may_take_the_discard() -> None:
    st = new([FILL, FILL], stock=["KH", "2S"], upcard="QH")
    assert st.legal_actions() == ["draw stock", "draw discard"]
    play(st, "draw discard", "discard QH")


# --------------------------------------------------------------------- AJ8, AJ12: up-card round
def test_aj8_returned_card_becomes_the_discard_top() -> None:
    st = new(
        [FILL, ["3C", "5D", "7S", "9C", "JD", "KH", "AC"]], stock=["KD", "2S"], upcard="QH", passes=False
    )
    assert st.phase == "upcard" and st.legal_actions() == ["pass", "draw discard"]
    play(st, "pass")
    assert st.current_player == 1
    play(st, "draw discard")
    assert [(e["seat"], e["card"]) for e in events(st, "amerikaans_jokeren.upcard_taken")] == [(1, "QH")]
    play(st, "discard 3C")
    obs = st.observation(0)
    assert obs["discard_top"] == "3C" and st.current_player == 0 and st.phase == "draw"
    assert "QH" in st.observation(1)["hand"] and obs["known_cards"][1] == ["QH"]


def test_aj12_returned_card_differs_from_the_upcard_and_round_is_no_turn() -> None:
    st = new([["QH", *FILL], FILL], stock=["KD", "2S"], upcard="QH", passes=False)
    play(st, "draw discard")
    assert "discard QH" not in st.legal_actions()  # the other pack's QH counts as the same card
    with pytest.raises(IllegalAction):
        st.apply("discard QH")
    play(st, "discard 2C")
    assert st.current_player == 0 and st.phase == "draw"  # voorhand starts normal play
    # the up-card round is no turn: seat 0's first turn is turn 1, so he may not go out yet
    assert st.observation(0)["opened"] == [False, False]


def test_aj12_all_pass_then_voorhand_starts() -> None:
    st = new([FILL, ["3C", "5D", "7S"], ["9C", "JD", "KH"]], stock=["KD", "2S"], upcard="QH", passes=False)
    play(st, "pass", "pass", "pass")
    assert st.current_player == 0 and st.phase == "draw" and st.observation(0)["discard_top"] == "QH"


# --------------------------------------------------------------------- AJ9: rotation, ties
def test_aj9_deal_rotates_and_equal_totals_share() -> None:
    st = load_game(GAME).new_match(seed=4, players=3)
    random_playout(st, random.Random(4))
    assert len(st.score_sheet()) == 6
    st2 = new([["2C", "4D", "6S", "8C"], ["5H", "6H", "7H"]], stock=["KS", "QD", "2S"], round_no=2)
    play(st2, "draw stock", "discard KS")
    play(st2, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm", "discard QD")  # seat 1 out
    assert st2.observation(0)["dealer"] == 0 and st2.current_player == 1  # round 3 dealt by seat 0
    state = load_game(GAME).new_match(
        seed=1,
        players=2,
        deal={
            "partial": True,
            "dealer": 1,
            "hands": [["5H", "6H", "7H"], ["5C", "6C", "7C"]],
            "upcard": None,
            "stock": ["KS", "KD"],
            "deal_no": 6,
            "totals": [10, 10],
        },
    )
    play(state, "draw stock")
    assert state.ranking() == [1, 1]


# --------------------------------------------------------------------- AJ13, AJ14, AJ15
def test_aj13_failed_attempt_on_takeback_with_confirmed_melds() -> None:
    st = new([["5H", "6H", "7H", *FILL], FILL], stock=["KH", "2S", "2S"], round_no=1)
    play(st, "draw stock", "meld 5H", "takeback")
    assert not events(st, "amerikaans_jokeren.opening_requirement_failed_attempt")  # nothing confirmed
    play(st, "meld 5H", "meld 6H", "meld 7H", "confirm", "takeback")
    ev = events(st, "amerikaans_jokeren.opening_requirement_failed_attempt")
    assert [(e["seat"], e["round"]) for e in ev] == [(0, 1)]


def test_aj14_joker_penalties_at_deal_end() -> None:
    st = new(
        [["JK", "9C", "9D", "9S", "2D"], ["JK", "5D", "3C"], ["5S", "5C", "5H"]],
        stock=["KS", "4S", "QD", "2S"],
        round_no=1,
    )
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm", "discard KS")
    play(st, "draw stock", "discard 4S")
    play(st, "draw stock", "meld 5S", "meld 5C", "meld 5H", "confirm", "discard QD")  # seat 2 out
    pen = events(st, "amerikaans_jokeren.joker_penalty")
    assert [(e["seat"], e["per_joker"]) for e in pen] == [(0, 25), (1, 10)]
    assert st.score_sheet()[0] == [25.0 + 2, 10.0 + 5 + 3, 0.0]


def test_aj15_swap_only_once_out_in_an_earlier_turn_joker_into_a_new_meld() -> None:
    st = new(
        [["5H", "JK", "7H", "6H", "9C", "9D", "KS", "2D", "QC"], ["3S", "4S", "8D", "QD", "KH", "TC", "AC"]],
        stock=["AD", "3D", "3D", "4C", "4C"],
        round_no=2,
    )
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm")
    assert not any(a.startswith("swap") for a in st.legal_actions())  # his coming-out turn
    play(st, "discard AD", "draw stock", "discard 3D")
    play(st, "draw stock")
    assert "swap 6H 1" in st.legal_actions()
    play(st, "swap 6H 1")
    assert not any(a.startswith("layoff JK") for a in st.legal_actions()) and not can_discard(st)
    play(st, "meld 9C", "meld 9D", "meld JK=9S", "confirm")
    assert can_discard(st)
    assert [(e["seat"], e["card"]) for e in events(st, "amerikaans_jokeren.joker_swapped")] == [(0, "6H")]


# --------------------------------------------------------------------- stock events
def test_stock_reshuffled_and_deal_without_winner() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS", "KH"],
        upcard="QH",
        max_reforms=1,
    )
    play(st, "draw stock", "discard KS", "draw stock", "discard KH")
    assert len(events(st, "amerikaans_jokeren.stock_reshuffled")) == 1
    play(st, "draw stock", "discard 2C")
    assert len(events(st, "amerikaans_jokeren.deal_without_winner")) == 1 and st.deal_no == 2


def test_random_matches_keep_invariants() -> None:
    g = load_game(GAME)
    for seed in range(2):
        st = g.new_match(seed=seed, players=3, max_deals=2)
        random_playout(st, random.Random(seed), check_every_action=True)


def test_aj15_swap_when_the_rank_is_held_in_all_four_suits() -> None:
    # came out with 6C 6D JK=6S, holds 6S 7C 7D 7H 7S: 'swap 6S 1' is legal, the joker goes into
    # a new meld 7C 7D JK=7H (the 7s of all four suits do not hide that set)
    st = new([["6C", "6D", "JK", "6S", "7C", "7D", "7H", "7S", "2C"], ["3D", "5S", "9C", "JH", "KD"]],
             stock=["4D", "8C", "TH", "QS"], round_no=1)
    play(st, "draw stock", "meld 6C", "meld 6D", "meld JK=6S", "confirm", "discard 4D")
    play(st, "draw stock", "discard 8C", "draw stock")
    assert "swap 6S 1" in st.legal_actions()
    play(st, "swap 6S 1", "meld 7C", "meld 7D", "meld JK=7H", "confirm")
    assert can_discard(st)


# --------------------------------------------------------------------- meld protocol: the take-back cap
def test_meld_protocol_after_the_third_takeback_exactly_the_finishable_actions_are_offered() -> None:
    # meld protocol (revised turn 3): after the third take-back exactly the actions after which the
    # turn can still end are offered (every discard, meld card, confirm, lay-off or swap), checked by
    # the brute-force oracle on random positions and after random offered plays from them
    compared = 0
    for opts in ({},):
        for seed, st in capped_positions("amerikaans_jokeren", range(200), 14, 20, **opts):
            compared += check_capped_position(st, random.Random(seed))
    assert compared >= 40


@pytest.mark.parametrize("third_draw", ["8H", "QS"])
def test_aj10_aj11_after_the_third_takeback_a_run_in_the_set_round_is_offered_only_where_it_goes_out(
        third_draw: str) -> None:
    # AJ10/AJ11 with the take-back cap (revised turn 3): before coming out in round 1 a run ends the
    # turn only by going out (the set of the round laid too), so after the third take-back the run's
    # cards are offered exactly when every card held but one can still reach the table: with 8H
    # (run 5H-8H, set 9C 9D 9S, discard KD) but not with QS (KD and QS have no meld)
    st = new([["5H", "6H", "7H", "9C", "9D", "9S", "2C"], FILL], stock=["KD", "3S", third_draw, "4C"])
    play(st, "draw stock", "discard 2C", "draw stock", "discard 3S", "draw stock")
    for _ in range(3):
        play(st, "meld 9C", "takeback")
    legal = st.legal_actions()
    assert "takeback" not in legal and "meld 9C" in legal
    assert set(legal) == finishable_actions(st)
    if third_draw == "8H":
        assert {"meld 5H", "meld 6H", "meld 7H", "meld 8H"} <= set(legal)
        play(st, "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm",
             "meld 9C", "meld 9D", "meld 9S", "confirm", "discard KD")
        assert st.is_over() or st.deal_no > 1 or st.hands[0] == 0
    else:
        assert not any(a in legal for a in ("meld 5H", "meld 6H", "meld 7H"))


def test_aj10_a_set_being_built_is_a_sure_end_of_the_turn_only_as_the_turns_first_meld() -> None:
    # AJ10 in the take-back cap's search (revised turn 3): before coming out in round 1, a set the
    # hand can still complete ends the turn (the round's one meld) only while no other meld was laid
    # this turn; after a run, only going out would end it, and here it cannot (KD and QS have no meld)
    from tests.games.rummy_oracle import can_end
    st: Any = new([["5H", "6H", "7H", "9C", "9D", "9S", "2C"], FILL], stock=["KD", "3S", "QS", "4C"])
    play(st, "draw stock", "discard 2C", "draw stock", "discard 3S", "draw stock")
    first = st.clone()
    play(first, "meld 9C")
    assert first._build_sure() and can_end(first)
    play(st, "meld 5H", "meld 6H", "meld 7H", "confirm", "meld 9C")
    assert not st._build_sure() and not can_end(st)
    assert st._finishable(["meld 9D", "meld 9S"]) == []


def test_aj15_after_the_third_takeback_a_meld_that_strands_the_freed_joker_is_not_offered() -> None:
    # meld protocol (revised turn 3) and AJ15: once out, the joker freed by a swap must go into a new
    # meld this turn; after the third take-back, completing the set being built with the natural 9S
    # would leave the joker alone in hand (no new meld for it), so the turn could not end: only the
    # joker completes it (the search's sure ends after coming out need no card owed in hand)
    st = new([["6C", "6D", "JK", "6S", "9C", "9D"], ["3D", "5S", "2C", "JH", "KD"]],
             stock=["4D", "8C", "9S", "QS"], round_no=1)
    play(st, "draw stock", "meld 6C", "meld 6D", "meld JK=6S", "confirm", "discard 4D")
    play(st, "draw stock", "discard 8C", "draw stock")
    for _ in range(3):
        play(st, "swap 6S 1", "takeback")
    play(st, "swap 6S 1", "meld 9C", "meld 9D")
    assert table(st) == ["6C 6D 6S"] and "takeback" not in st.legal_actions()
    assert sorted(st.legal_actions()) == sorted(finishable_actions(st)) == ["meld JK=9H", "meld JK=9S"]
