"""Jokeren, seed-003 description (RULES.md 2.21, seed 003 L499-545): decisions JD1-JD6 and the
card's rule events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.conformance import random_playout
from tests.gamekit import events, play, table
from tests.games.rummy_oracle import capped_positions, check_capped_position, finishable_actions

FILL = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld among them


def new(
    hands: list[list[str]],
    stock: list[str] | None = None,
    upcard: str | None = "AS",
    seed: int = 1,
    **opts: Any,
) -> State:
    deal: dict[str, Any] = {"dealer": len(hands) - 1, "upcard": upcard}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("jokeren_drift", hands, seed=seed, options=opts, **deal)


# --------------------------------------------------------------------- JD1: the seed-003 rules
def test_jd1_no_opening_threshold_and_the_discard_may_always_be_taken() -> None:
    st = new([["2H", "3H", "4H", *FILL], FILL], stock=["9S", "9S"], upcard="KD")
    assert st.legal_actions() == ["draw stock", "draw discard"]
    play(st, "draw discard", "meld 2H", "meld 3H", "meld 4H", "confirm")  # 9 points: no 40 needed
    assert table(st) == ["2H 3H 4H"]
    assert any(a.startswith("discard") for a in st.legal_actions())


def test_jd1_penalties_joker_25_ace_11_faces_10_pips_face_value() -> None:
    st = new([["9S", "8S", "JK", "AC", "KD", "5H"], ["5S", "6S", "7S"]], stock=["KS", "QD", "4C"])
    play(st, "draw stock", "discard KS")
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "confirm", "discard QD")  # dealer goes out
    assert st.score_sheet()[0] == [float(9 + 8 + 25 + 11 + 10 + 5), 0.0]
    assert st.scores() == [68.0, 0.0]


# --------------------------------------------------------------------- JD2: 2 x players deals
def test_jd2_match_is_two_deals_per_player() -> None:
    for players, deals in ((2, 4), (3, 6)):
        st = load_game("jokeren_drift").new_match(seed=3, players=players)
        random_playout(st, random.Random(3))
        assert len(st.score_sheet()) == deals
    st = load_game("jokeren_drift", deals=1).new_match(seed=3, players=2)
    random_playout(st, random.Random(3))
    assert len(st.score_sheet()) == 1


# --------------------------------------------------------------------- JD3: AJ1, AJ2, AJ5, AJ7
def test_jd3_sets_need_different_suits_at_most_four() -> None:
    st = new([["7H", "7H", "7S", "7D", "7C", "JK", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 7H", "meld 7S", "meld 7D", "meld 7C")
    legal = st.legal_actions()
    assert "meld 7H" not in legal and not any(a.startswith("meld JK") for a in legal)
    play(st, "confirm")
    assert table(st) == ["7C 7D 7H 7S"]
    assert not any(a.startswith("layoff") for a in st.legal_actions())


def test_jd3_ace_low_or_high_never_wrapping() -> None:
    st = new(
        [["AH", "2H", "3H", "QD", "KD", "AD", "KS", "AS", "2S", "9C", "9C"], FILL], stock=["4C", "5C", "5C"]
    )
    play(
        st,
        "draw stock",
        "meld AH",
        "meld 2H",
        "meld 3H",
        "confirm",
        "meld AD",
        "meld KD",
        "meld QD",
        "confirm",
    )
    assert table(st) == ["AH 2H 3H", "QD KD AD"]
    legal = st.legal_actions()
    assert "meld KS" not in legal and "meld AS" not in legal and "meld 2S" not in legal  # K-A-2 wraps


def test_jd3_layoff_onto_another_players_set() -> None:
    st = new(
        [["9C", "9D", "9S", *FILL], ["9H", "3S", "5S", "JD", "QD", "KH", "TC"]], stock=["2D", "3D", "3D"]
    )
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm", "discard 2D")
    play(st, "draw stock")
    assert "layoff 9H 1" in st.legal_actions()
    play(st, "layoff 9H 1")
    assert table(st) == ["9C 9D 9H 9S"]
    ev = events(st, "jokeren_drift.laid_off")
    assert [(e["seat"], e["card"], e["meld"], e["on_other"]) for e in ev] == [(1, "9H", 1, True)]


def test_jd3_going_out_needs_a_discard() -> None:
    st = new([["2C", "4D", "6S", "8C"], ["5H", "6H", "7H"]], stock=["KS", "8H", "2S", "2S"])
    play(st, "draw stock", "discard KS")
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H")
    assert "meld 8H" not in st.legal_actions()  # melding all four would leave nothing to discard
    play(st, "confirm", "discard 8H")
    assert [e["seat"] for e in events(st, "jokeren_drift.went_out")] == [1]


# --------------------------------------------------------------------- JD4: swap after a meld this turn
def test_jd4_swap_right_after_laying_a_first_meld_in_the_same_turn() -> None:
    st = new(
        [["6H", "2D", "3D", "4D", "QC", "QH", "KS"], ["5H", "JK", "7H", "9S", "TS", "8D", "3C"]],
        stock=["QS", "2S", "2S", "3S"],
    )
    play(st, "draw stock", "discard QS")
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm", "discard 2S")
    play(st, "draw stock")
    assert not any(a.startswith("swap") for a in st.legal_actions())  # seat 0 has no meld yet
    play(st, "meld 2D", "meld 3D", "meld 4D", "confirm")
    assert "swap 6H 1" in st.legal_actions()
    play(st, "swap 6H 1", "meld QC", "meld QH", "meld JK=QS", "confirm")
    assert table(st) == ["5H 6H 7H", "2D 3D 4D", "QC QH JK=QS"]
    assert [(e["seat"], e["card"], e["meld"]) for e in events(st, "jokeren_drift.joker_swapped")] == [
        (0, "6H", 1)
    ]


# --------------------------------------------------------------------- JD5: freed joker into a new meld
def test_jd5_freed_joker_goes_into_a_new_meld_not_a_layoff() -> None:
    st = new(
        [["5H", "JK", "7H", "6H", "9C", "9D", "KS", "2D"], ["8S", "9S", "TS", "3C", "4D", "QD", "KH"]],
        stock=["AC", "3D", "3D", "4S"],
    )
    play(st, "draw stock", "meld 8S" if False else "meld 5H", "meld JK=6H", "meld 7H", "confirm")
    play(st, "swap 6H 1")
    legal = st.legal_actions()
    assert not any(a.startswith("layoff JK") for a in legal)  # a lay-off does not re-use it (JD5)
    assert not any(a.startswith("discard") for a in legal) and "takeback" in legal
    play(st, "meld 9C", "meld 9D", "meld JK=9S", "confirm")
    assert any(a.startswith("discard") for a in st.legal_actions())
    with pytest.raises(IllegalAction):
        st.apply("layoff JK=8H 1")


# --------------------------------------------------------------------- JD6: open40
def test_jd6_open40_first_melds_total_forty() -> None:
    st = new([["2H", "3H", "4H", "KC", "KD", "KS", "5S", "9C"], FILL], stock=["QH", "2S", "2S"], open40=True)
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm")
    assert not any(a.startswith("discard") for a in st.legal_actions())  # 9 points
    assert "takeback" in st.legal_actions()
    play(st, "meld KC", "meld KD", "meld KS", "confirm")  # 9 + 30 = 39
    assert not any(a.startswith("discard") for a in st.legal_actions())
    play(st, "takeback")
    play(st, "meld KC", "meld KD", "meld KS", "confirm", "meld 2H", "meld 3H", "meld 4H", "confirm")
    play(st, "takeback", "meld KC", "meld KD", "meld KS", "confirm")
    assert "layoff QH 1" not in st.legal_actions()
    st2 = new([["JH", "QH", "KH", "9C", "9D", "9S", "5S", "2D"], FILL], stock=["AH", "2S", "2S"], open40=True)
    play(st2, "draw stock", "meld JH", "meld QH", "meld KH", "confirm")  # 30
    play(st2, "layoff AH 1")  # onto his own new meld: allowed, not counted
    assert not any(a.startswith("discard") for a in st2.legal_actions())
    play(st2, "meld 9C", "meld 9D", "meld 9S", "confirm")  # 30 + 27 = 57
    play(st2, "discard 2D")
    ev = events(st2, "jokeren_drift.open40_met")
    assert [(e["seat"], e["points"]) for e in ev] == [(0, 57)]


def test_jd6_open40_ace_low_counts_1_joker_as_its_card() -> None:
    st = new([["AH", "2H", "JK", "QS", "KS", "AS", "9C", "5D"], FILL], stock=["7C", "2S", "2S"], open40=True)
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
    # (1 + 2 + 3) + (10 + 10 + 11) = 37 < 40
    assert not any(a.startswith("discard") for a in st.legal_actions())


def test_jd6_open40_layoff_on_others_and_swap_only_after_the_opening_turn() -> None:
    st = new(
        [["TC", "JC", "QC", "KC", "4H", "6D", "8S", "2S"], ["5H", "JK", "7H", "9S", "6H", "KD", "KH", "KS"]],
        stock=["3C", "3D", "6H", "3S", "4S"],
        open40=True,
    )
    play(st, "draw stock", "discard 3C")
    play(
        st,
        "draw stock",
        "meld KD",
        "meld KH",
        "meld KS",
        "confirm",
        "meld 5H",
        "meld JK=6H",
        "meld 7H",
        "confirm",
    )
    assert not any(a.startswith("swap") for a in st.legal_actions())  # his opening turn
    play(st, "discard 3D")
    assert [e["points"] for e in events(st, "jokeren_drift.open40_met")] == [48]
    play(st, "draw stock")  # seat 0 draws 6H; not opened: no lay-off onto seat 1's melds
    assert not any(a.startswith("layoff") or a.startswith("swap") for a in st.legal_actions())
    play(st, "meld TC", "meld JC", "meld QC", "meld KC", "confirm")
    assert "layoff 4H 2" not in st.legal_actions() and "layoff 6H 2" not in st.legal_actions()


# --------------------------------------------------------------------- events
def test_stock_reshuffled_and_deal_without_winner_events() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS", "KH"],
        upcard="QH",
        max_reforms=1,
    )
    play(st, "draw stock", "discard KS", "draw stock", "discard KH")
    assert [e["cards"] for e in events(st, "jokeren_drift.stock_reshuffled")] == [1]
    play(st, "draw stock", "discard 2C")
    assert len(events(st, "jokeren_drift.deal_without_winner")) == 1
    row = st.score_sheet()[0]
    assert row[0] > 0 and row[1] > 0  # X7: everyone scores his hand


def test_went_out_event_and_next_deal_dealt_by_the_next_seat() -> None:
    st = new([["2C", "4D", "6S", "8C"], ["5H", "6H", "7H"]], stock=["KS", "QD", "4C"])
    play(
        st, "draw stock", "discard KS", "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm", "discard QD"
    )
    assert [e["seat"] for e in events(st, "jokeren_drift.went_out")] == [1]
    assert st.deal_no == 2 and st.observation(0)["dealer"] == 0 and st.current_player == 1


def test_random_matches_keep_invariants() -> None:
    g = load_game("jokeren_drift", open40=True)
    for seed in range(3):
        st = g.new_match(seed=seed, players=3, max_deals=1)
        random_playout(st, random.Random(seed), check_every_action=True)


# --------------------------------------------------------------------- meld protocol: take-backs
def test_takeback_never_returns_a_taken_discard_and_the_cap_is_three() -> None:
    # the repro: the player takes KS, then three times 'meld 7C', 'meld 7D', 'takeback'
    st = new([["7C", "7D", "7S", "3H", "5D", "9S", "JC"], FILL], stock=["AC", "3D", "3D"], upcard="KS")
    play(st, "draw discard")
    for _ in range(3):
        play(st, "meld 7C", "meld 7D", "takeback")
        assert "KS" in st.observation(0)["hand"]
    legal = st.legal_actions()
    assert "takeback" not in legal and "discard KS" in legal and st.phase == "play"
    # revised turn 3: the set 7C 7D 7S can still be laid (a discard follows), so it is offered
    assert {"meld 7C", "meld 7D", "meld 7S"} <= set(legal)
    assert set(legal) == finishable_actions(st)
    play(st, "meld 7C", "meld 7D", "meld 7S", "confirm", "discard KS")
    assert table(st) == ["7C 7D 7S"]


# --------------------------------------------------------------------- meld protocol: the take-back cap
def test_meld_protocol_after_the_third_takeback_exactly_the_finishable_actions_are_offered() -> None:
    # meld protocol (revised turn 3): after the third take-back exactly the actions after which the
    # turn can still end are offered (every discard, meld card, confirm, lay-off or swap), checked by
    # the brute-force oracle on random positions and after random offered plays from them
    compared = 0
    for opts in ({}, {"open40": True}):
        for seed, st in capped_positions("jokeren_drift", range(100), 14, 12, **opts):
            compared += check_capped_position(st, random.Random(seed))
    assert compared >= 40


def test_jd5_after_the_third_takeback_a_meld_that_strands_the_freed_joker_is_not_offered() -> None:
    # meld protocol (revised turn 3) and JD5: the joker freed by a swap must go into a new meld this
    # turn; after the third take-back, completing the set being built with the natural 9S would leave
    # only the joker and one card (none to add to the set, no new meld with the joker), so the turn
    # could not end: only the joker completes it (the search's sure ends need no card owed in hand)
    st = new([["5H", "JK", "7H", "6H", "9C", "9D", "9S"], ["8S", "9S", "TS", "3C", "4D", "QD", "KH"]],
             stock=["AC", "3D", "3D", "KS"])
    play(st, "draw stock")
    for _ in range(3):
        play(st, "meld 5H", "meld JK=6H", "meld 7H", "confirm", "swap 6H 1", "takeback")
    play(st, "meld 5H", "meld JK=6H", "meld 7H", "confirm", "swap 6H 1", "meld 9C", "meld 9D")
    assert table(st) == ["5H 6H 7H"] and "takeback" not in st.legal_actions()
    assert sorted(st.legal_actions()) == sorted(finishable_actions(st)) == ["meld JK=9H", "meld JK=9S"]
