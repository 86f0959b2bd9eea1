"""Loba / Rami (RULES.md 2.25, seed 003 L632-662): decisions L1-L16 and the card's rule events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.conformance import random_playout
from tests.gamekit import discards, events, play, table
from tests.games.rummy_oracle import capped_positions, check_capped_position

FILL = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld among them


def new(
    hands: list[list[str]],
    stock: list[str] | None = None,
    upcard: str | None = "AS",
    seed: int = 1,
    dealer: int | None = None,
    max_deals: int | None = None,
    **extra: Any,
) -> State:
    opts = {k: extra.pop(k) for k in ("pickup_for_layoff", "max_reforms", "max_buybacks") if k in extra}
    deal: dict[str, Any] = {"dealer": len(hands) - 1 if dealer is None else dealer, "upcard": upcard, **extra}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("loba", hands, seed=seed, max_deals=max_deals, options=opts, **deal)


# --------------------------------------------------------------------- L1: joker 25
def test_l1_penalties_joker_25_ace_and_faces_10_pips_face_value() -> None:
    st = new([["5S", "6S", "7S", "8S", "9S"], ["JK", "AC", "KD", "5H"]], stock=["2C", "3C", "3C"])
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "meld 9S", "confirm", "discard 2C")
    assert st.score_sheet()[0] == [0.0, float(25 + 10 + 10 + 5)]
    assert [e["seat"] for e in events(st, "loba.went_out")] == [0]


# --------------------------------------------------------------------- L2: the discard pick-up
def test_l2_discard_taken_only_if_laid_at_once_in_a_new_meld() -> None:
    st = new([["5H", "6H", "7H", *FILL], FILL], stock=["9S", "9C", "3C"], upcard="8H")
    assert st.legal_actions() == ["draw stock", "draw discard"]
    st = new([["5H", "6H", "7H", *FILL], FILL], stock=["9S", "9C", "3C"], upcard="KH")
    assert st.legal_actions() == ["draw stock"]
    with pytest.raises(IllegalAction):
        st.apply("draw discard")


def test_l2_taken_discard_must_be_used_before_the_turn_ends() -> None:
    st = new([["5H", "6H", "7H", *FILL], FILL], stock=["9S", "9C", "3C"], upcard="8H")
    play(st, "draw discard")
    assert not discards(st) and "meld 8H" in st.legal_actions()
    play(st, "meld 5H", "meld 6H", "meld 7H", "meld 8H", "confirm")
    assert discards(st)
    play(st, "discard 2C")
    ev = events(st, "loba.discard_pickup_used")
    assert [(e["seat"], e["card"]) for e in ev] == [(0, "8H")]


def _table_run_then_pickup(**opts: Any) -> State:
    # seat 0 lays 9H TH JH QH and discards 8H; seat 1 may take it
    st = new([["9H", "TH", "JH", "QH", "8H", "2C", "4D"], ["8C", "8S", "5D", "KS", "3C", "7D", "6S"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS", **opts)
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm", "discard 8H")
    return st


def test_l2_taken_discard_is_not_laid_off_by_default() -> None:
    st = _table_run_then_pickup()
    assert "draw discard" in st.legal_actions()  # 8H 8C 8S is a pierna
    play(st, "draw discard")
    legal = st.legal_actions()
    assert "layoff 8H 1" not in legal and not discards(st)
    play(st, "meld 8C", "meld 8S", "meld 8H", "confirm")
    assert discards(st)
    # without the pierna cards the pick-up is refused (a lay-off alone does not count)
    st = new([["9H", "TH", "JH", "QH", "8H", "2C", "4D"], ["8C", "5S", "5D", "KS", "3C", "7D", "6S"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS")
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm", "discard 8H")
    assert st.legal_actions() == ["draw stock"]


def test_l2_option_pickup_for_layoff() -> None:
    st = new([["9H", "TH", "JH", "QH", "8H", "2C", "4D"], ["8C", "5S", "5D", "KS", "3C", "7D", "6S"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS", pickup_for_layoff=True)
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm", "discard 8H")
    assert "draw discard" in st.legal_actions()
    play(st, "draw discard", "layoff 8H 1")
    assert table(st) == ["8H 9H TH JH QH"]
    play(st, "discard 3C")
    assert [e["card"] for e in events(st, "loba.discard_pickup_used")] == ["8H"]


# --------------------------------------------------------------------- L3: lay-offs without an own meld
def test_l3_layoff_without_an_own_meld() -> None:
    st = new([["9H", "TH", "JH", "QH", "2C", "4D"], ["KH", "5S", "5D", "KS", "3C", "7D", "6S"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS")
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm", "discard 2C")
    play(st, "draw stock")
    assert "layoff KH 1" in st.legal_actions()
    play(st, "layoff KH 1")
    assert table(st) == ["9H TH JH QH KH"]


# --------------------------------------------------------------------- L4: pierna lay-offs
def test_l4_pierna_layoff_keeps_three_suits_at_most_six() -> None:
    st = new([["7H", "7S", "7C", "2C", "4D"], ["7D", "7H", "7S", "7C", "3C", "9D", "5S"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS")
    play(st, "draw stock", "meld 7H", "meld 7S", "meld 7C", "confirm", "discard 2C")
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "layoff 7D 1" not in legal  # a fourth suit
    assert {"layoff 7H 1", "layoff 7S 1", "layoff 7C 1"} <= set(legal)
    play(st, "layoff 7H 1", "layoff 7C 1", "layoff 7S 1")
    assert table(st) == ["7C 7C 7H 7H 7S 7S"]
    assert not any(a.startswith("layoff") for a in st.legal_actions())  # six cards: full


# --------------------------------------------------------------------- L5: >= 100 is out
def _lose_deal(totals: list[float], **extra: Any) -> State:
    """Seat 0 goes out at once; the others hold a five (5 points) each."""
    n = len(totals)
    hands = [["5S", "6S", "7S", "8S"]] + [[f"5{s}"] for s in "HDC"[:n - 1]]
    st = new(hands, stock=["9S", "2D", "3D", "4C", "2C"], totals=totals, **extra)
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "meld 9S", "confirm")
    return st


def test_l5_reaching_exactly_100_is_out() -> None:
    st = _lose_deal([50.0, 95.0, 94.0])
    assert st.totals == [40.0, 100.0, 99.0]  # seat 0 went out in one: -10
    assert st.phase == "buyback" and st.current_player == 1
    assert st.legal_actions() == ["declare buyback", "pass"]
    play(st, "pass")
    assert [e["seat"] for e in events(st, "loba.eliminated")] == [1]
    assert st.observation(0)["eliminated"] == [False, True, False]
    assert st.current_player in (0, 2) and st.phase == "draw"


# --------------------------------------------------------------------- L6: buy-back score
def test_l6_buy_back_to_the_highest_other_total() -> None:
    st = _lose_deal([50.0, 96.0, 60.0])
    assert st.totals == [40.0, 101.0, 65.0]
    play(st, "declare buyback")
    assert st.totals == [40.0, 65.0, 65.0]
    ev = events(st, "loba.buy_back")
    assert [(e["seat"], e["n"], e["total"]) for e in ev] == [(1, 1, 65.0)]
    assert not st.invariant_violations()


# --------------------------------------------------------------------- L7: -10 not below 0
def test_l7_going_out_in_one_floors_at_zero() -> None:
    st = _lose_deal([4.0, 0.0], max_deals=1)
    assert st.score_sheet()[0] == [-4.0, 5.0] and st.totals[0] == 0.0
    st = _lose_deal([30.0, 0.0], max_deals=1)
    assert st.score_sheet()[0] == [-10.0, 5.0] and st.totals[0] == 20.0
    ev = events(st, "loba.went_out_in_one")
    assert [(e["seat"], e["points"]) for e in ev] == [(0, -10.0)]


# --------------------------------------------------------------------- L8: reshuffle
def test_l8_stock_reshuffled_keeping_the_top_discard() -> None:
    st = new([["2C", "4D", "6S", "8C", "TD", "KC"], ["3C", "5D", "7S", "9C", "JD", "KD"]],
             stock=["2H", "3S"], upcard="AS")
    play(st, "draw stock", "discard 2H", "draw stock")  # the draw that empties the stock
    ev = events(st, "loba.stock_reshuffled")
    assert [(e["cards"], e["reforms"]) for e in ev] == [(1, 1)]
    obs = st.observation(0)
    assert obs["discard_top"] == "2H" and obs["pile_size"] == 1 and obs["stock_size"] == 1


# --------------------------------------------------------------------- L9: no price for buying back
def test_l9_buy_back_costs_nothing_but_the_score_reset() -> None:
    st = _lose_deal([50.0, 99.0, 30.0, 10.0])
    play(st, "declare buyback")
    assert st.totals == [40.0, 40.0, 35.0, 15.0]  # the highest below 100: seat 0's 40
    assert st.observation(1)["buybacks"] == [0, 1, 0, 0]
    assert len(st.score_sheet()) == 1  # no extra row: nothing else is charged


# --------------------------------------------------------------------- L10: out when the hand is empty
def test_l10_out_by_melding_the_last_card_without_discard() -> None:
    st = new([["5S", "6S", "7S"], ["JK", "AC"]], stock=["8S", "3C", "3C"], max_deals=1)
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "confirm")
    assert st.is_over() and st.score_sheet()[0] == [0.0, 35.0]
    assert [e["seat"] for e in events(st, "loba.went_out")] == [0]


def test_l10_out_by_laying_off_or_discarding_the_last_card() -> None:
    st = new([["9H", "TH", "JH", "QH", "KH"], ["5S", "5D"]], stock=["2C", "3C", "3C"], max_deals=1)
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm", "layoff KH 1")
    assert st.observation(0)["hand"] == ["2C"] and not st.is_over()
    play(st, "discard 2C")  # out by discarding
    assert st.is_over() and [e["seat"] for e in events(st, "loba.went_out")] == [0]
    st = new([["9H", "TH", "JH", "QH", "2C", "2D", "2S"], ["5S", "5D"]], stock=["KH", "3C", "3C"],
             max_deals=1)
    play(st, "draw stock", "meld 9H", "meld TH", "meld JH", "meld QH", "confirm")
    play(st, "meld 2C", "meld 2D", "meld 2S", "confirm")
    assert not st.is_over()
    play(st, "layoff KH 1")  # out by laying off the last card
    assert st.is_over() and st.score_sheet()[0] == [0.0, 10.0]


# --------------------------------------------------------------------- L11: jokers never the high ace
def test_l11_joker_never_stands_for_the_high_ace() -> None:
    st = new([["JH", "QH", "KH", "JK", "AD", "2D", "3D", *FILL], FILL], stock=["AH", "3C", "3C"])
    play(st, "draw stock", "meld JH", "meld QH", "meld KH")
    legal = st.legal_actions()
    assert "meld JK=AH" not in legal and "meld JK=TH" in legal and "meld AH" in legal
    play(st, "meld AH", "confirm")  # a natural ace is high: J Q K A
    assert table(st) == ["JH QH KH AH"]
    play(st, "meld AD", "meld 2D", "meld 3D")
    assert "meld JK=4D" in st.legal_actions()
    play(st, "meld JK=4D", "confirm")
    assert table(st)[1] == "AD 2D 3D JK=4D"
    # a joker may stand for the low ace
    st = new([["2S", "3S", "4S", "JK", *FILL], FILL], stock=["9D", "3C", "3C"])
    play(st, "draw stock", "meld 2S", "meld 3S", "meld 4S")
    assert "meld JK=AS" in st.legal_actions()


# --------------------------------------------------------------------- L12: jokers moved to an end
def test_l12_joker_moved_to_a_free_end_never_into_a_hand() -> None:
    st = new([["5H", "JK", "7H", "8H", "2C", "4D"], ["6H", "5S", "5D", "KS", "3C", "7D", "9C"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS")
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "meld 8H", "confirm", "discard 2C")
    play(st, "draw stock")
    legal = st.legal_actions()
    assert {"move 6H JK=4H 1", "move 6H JK=9H 1"} <= set(legal)
    assert not any(a.startswith("swap") for a in legal)  # never exchanged for a natural card
    play(st, "move 6H JK=4H 1")
    assert table(st) == ["JK=4H 5H 6H 7H 8H"]
    ev = events(st, "loba.joker_moved_end")
    assert [(e["seat"], e["card"], e["joker"], e["meld"]) for e in ev] == [(1, "6H", "JK=4H", 1)]
    assert st.observation(1)["hand"].count("JK") == 0
    # not above the king
    st = new([["TC", "JK", "QC", "KC", "2H", "4D"], ["JC", "5S", "5D", "KS", "3C", "7D", "9C"]],
             stock=["2D", "3D", "4S", "5S"], upcard="AS")
    play(st, "draw stock", "meld TC", "meld JK=JC", "meld QC", "meld KC", "confirm", "discard 2H")
    play(st, "draw stock")
    moves = [a for a in st.legal_actions() if a.startswith("move")]
    assert moves == ["move JC JK=9C 1"]


# --------------------------------------------------------------------- L13: joker discards
def test_l13_joker_discarded_only_to_finish_or_when_nothing_else() -> None:
    st = new([["JK", "2C", "4D"], FILL], stock=["9S", "3C", "3C"])
    play(st, "draw stock")
    assert "discard JK" not in st.legal_actions()
    with pytest.raises(IllegalAction, match="joker"):
        st.apply("discard JK")
    # only jokers, none can be laid (no escalera on the table): discarding one is allowed
    st = new([["JK", "JK"], FILL], stock=["JK", "3C", "3C"])
    play(st, "draw stock")
    assert discards(st) == ["discard JK"]
    play(st, "discard JK")
    assert events(st, "loba.joker_discard_to_finish") == []


def test_l13_joker_as_the_last_card_goes_out() -> None:
    st = new([["5S", "6S", "7S", "8S", "JK"], ["9D", "AC"]], stock=["2C", "3C", "9S", "4D"])
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "confirm")
    assert "discard JK" not in st.legal_actions()  # 2C still in hand
    play(st, "discard 2C", "draw stock", "discard 3C")
    play(st, "draw stock", "layoff 9S 1")
    legal = st.legal_actions()
    assert "discard JK" in legal and "layoff JK=TS 1" in legal
    play(st, "discard JK")
    assert [e["seat"] for e in events(st, "loba.joker_discard_to_finish")] == [0]
    assert [e["seat"] for e in events(st, "loba.went_out")] == [0]


def test_l13_takeback_offered_when_only_jokers_that_cannot_be_discarded_are_left() -> None:
    # issue 21's repro (meld protocol, revised turn 3): after 'draw stock' and 'layoff 3S 3' onto
    # 4S 5S JK=6S 7S, seat 0 holds JK JK: no discard is legal (they can be laid, L13), so the turn
    # cannot end as it stands and 'takeback' is offered beside the two joker lay-offs
    st = new([["QC", "QD", "QH", "4S", "5S", "JK", "7S", "JK", "JK"],
              ["9C", "9D", "9H", "2D", "4H", "6C", "8H", "TC", "KD"]],
             stock=["2H", "5C", "TD", "3C", "3S", "8C"], upcard="AH")
    play(st, "draw stock", "meld QC", "meld QD", "meld QH", "confirm", "discard 2H")
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9H", "confirm", "discard 5C")
    play(st, "draw stock", "meld 4S", "meld 5S", "meld JK=6S", "meld 7S", "confirm", "discard TD")
    play(st, "draw stock", "discard 3C")
    play(st, "draw stock", "layoff 3S 3")
    assert table(st)[2] == "3S 4S 5S JK=6S 7S" and st.observation(0)["hand"] == ["JK", "JK"]
    legal = st.legal_actions()
    assert discards(st) == [] and legal[0] == "takeback"
    assert {"layoff JK=2S 3", "layoff JK=8S 3"} <= set(legal)
    play(st, "takeback")
    assert sorted(st.observation(0)["hand"]) == ["3S", "JK", "JK"] and discards(st) == ["discard 3S"]


# --------------------------------------------------------------------- L14: out in one go
def test_l14_went_out_in_one_only_in_the_first_table_play_turn() -> None:
    st = _lose_deal([30.0, 0.0], max_deals=1)
    assert [e["seat"] for e in events(st, "loba.went_out_in_one")] == [0]
    # table play in an earlier turn: no bonus
    st = new([["5S", "6S", "7S", "8S", "JC", "JD", "4H"], ["9D", "AC", "2H"]],
             stock=["9S", "3C", "JH", "4C"], totals=[30.0, 0.0], max_deals=1)
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "meld 9S", "confirm", "discard 4H")
    play(st, "draw stock", "discard 3C")
    play(st, "draw stock", "meld JC", "meld JD", "meld JH", "confirm")
    assert st.is_over() and [e["seat"] for e in events(st, "loba.went_out")] == [0]
    assert events(st, "loba.went_out_in_one") == [] and st.score_sheet()[0][0] == 0.0


# --------------------------------------------------------------------- L15: buy-back order
def test_l15_buy_back_choices_lowest_seat_first() -> None:
    st = _lose_deal([50.0, 97.0, 98.0, 10.0])
    assert st.current_player == 1
    play(st, "declare buyback")
    assert st.current_player == 2 and st.phase == "buyback"
    play(st, "pass")
    assert st.totals == [40.0, 40.0, 103.0, 15.0]
    assert [e["seat"] for e in events(st, "loba.eliminated")] == [2]


def test_l15_nobody_below_100_all_are_out_lowest_total_wins() -> None:
    st = new([["5S", "9C"], ["5H"], ["6H"]], stock=["2C"], totals=[98.0, 99.0, 96.0], max_reforms=0)
    play(st, "draw stock", "discard 2C")  # seat 1's turn: the stock is empty and cannot be re-formed
    assert events(st, "loba.deal_without_winner")
    assert st.totals == [112.0, 104.0, 102.0]
    assert st.is_over()
    assert [e["seat"] for e in events(st, "loba.eliminated")] == [0, 1, 2]
    assert st.ranking() == [3, 2, 1]
    w = events(st, "loba.winner_last_standing")
    assert len(w) == 1 and w[0]["all_out"] is True


# --------------------------------------------------------------------- L16: piernas
def test_l16_pierna_exactly_three_suits_a_suit_may_repeat() -> None:
    st = new([["7H", "7H", "7S", "7C", "7D", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 7H", "meld 7H", "meld 7S")
    legal = st.legal_actions()
    assert "confirm" not in legal  # two suits
    assert "meld 7C" in legal and "meld 7D" in legal
    play(st, "meld 7C")
    assert "meld 7D" not in st.legal_actions()  # a fourth suit
    assert not any(a.startswith("meld JK") for a in st.legal_actions())  # no jokers in piernas
    play(st, "confirm")
    assert table(st) == ["7C 7H 7H 7S"]
    ev = events(st, "loba.pierna")
    assert [(e["size"], e["suits"]) for e in ev] == [(4, 3)]


def test_l16_escalera_four_cards_at_most_two_jokers() -> None:
    st = new([["5H", "6H", "7H", "JK", "JK", "JK", *FILL], FILL], stock=["KH", "2S", "2S"])
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H")
    assert "confirm" not in st.legal_actions()  # three cards are no escalera
    play(st, "meld JK=8H", "meld JK=9H")
    assert "meld JK=TH" not in st.legal_actions() and "meld JK=4H" not in st.legal_actions()
    play(st, "confirm")
    ev = events(st, "loba.escalera")
    assert [(e["len"], e["jokers"]) for e in ev] == [(5, 2)]
    assert "layoff JK=TH 1" not in st.legal_actions()


# --------------------------------------------------------------------- elimination and the match
def test_buy_back_at_most_twice_then_last_standing_wins() -> None:
    st = _lose_deal([50.0, 99.0], buybacks=[0, 2])
    assert st.is_over()
    assert [e["seat"] for e in events(st, "loba.eliminated")] == [1]
    w = events(st, "loba.winner_last_standing")
    assert [(e["seat"], e["all_out"]) for e in w] == [(0, False)]
    assert st.ranking() == [1, 2]


def test_eliminated_players_are_skipped_and_ranked_by_elimination() -> None:
    st = new([["5S", "6S", "7S", "8S"], [], ["5H"], ["5D"]], stock=["9S", "2C", "3C"],
             totals=[0.0, 120.0, 96.0, 10.0], eliminated=[1], dealer=3)
    play(st, "draw stock", "meld 5S", "meld 6S", "meld 7S", "meld 8S", "meld 9S", "confirm")
    assert st.current_player == 2  # seat 1 (out before) is not asked
    play(st, "pass")  # seat 2 at 101 leaves
    assert st.dealer == 0 and st.current_player == 3  # the deal passes over seats 1 and 2
    assert all(not h for s, h in enumerate(st.hands) if s in (1, 2))  # type: ignore[attr-defined]
    assert st.ranking()[2] < st.ranking()[1]  # the later elimination ranks higher


def test_x7_deal_without_winner_everyone_scores_his_hand() -> None:
    st = new([["5S", "9D"], ["KH", "JK"]], stock=["2C"], upcard="3C", max_reforms=0)
    play(st, "draw stock", "discard 2C")
    assert [e["reforms"] for e in events(st, "loba.deal_without_winner")] == [0]
    assert st.score_sheet()[0] == [14.0, 35.0]


def test_random_matches_end_with_a_last_player() -> None:
    for seed in range(3):
        st = load_game("loba").new_match(seed=seed, players=3)
        random_playout(st, random.Random(seed))
        assert st.is_over() and sum(1 for r in st.ranking() if r == 1) == 1
        assert events(st, "loba.winner_last_standing")
        assert st.stuck == 0  # type: ignore[attr-defined]


def test_l12_move_cache_is_kept_while_the_meld_is_unchanged() -> None:
    """L12: the move actions of a table meld are computed once per lay-off cache of the meld
    (the cache object is the one the meld holds, so the compiled build reuses it too), and the
    offers are the same with the cache warm."""
    game = load_game("loba")
    checked = 0
    for seed in range(4):
        st: Any = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            if st.phase == "play" and st.melds:
                first = st._layoff_offers(st.turn, st.hands[st.turn])
                kept = {i: st.moves_of[i] for i in range(len(st.melds))}
                assert all(kept[i][0] is m.acc for i, m in enumerate(st.melds))
                assert st._layoff_offers(st.turn, st.hands[st.turn]) == first
                assert all(st.moves_of[i] is kept[i] for i in kept)  # not recomputed
                checked += 1
            st.apply(rng.choice(st.legal_actions()))
    assert checked > 20


# --------------------------------------------------------------------- meld protocol: the take-back cap
def test_meld_protocol_after_the_third_takeback_exactly_the_finishable_actions_are_offered() -> None:
    # meld protocol (revised turn 3): after the third take-back exactly the actions after which the
    # turn can still end are offered (every discard, meld card, confirm, lay-off or move), checked by
    # the brute-force oracle on random positions and after random offered plays from them
    compared = 0
    for opts in ({}, {"pickup_for_layoff": True}):
        for seed, st in capped_positions("loba", range(100), 14, 12, **opts):
            compared += check_capped_position(st, random.Random(seed))
    assert compared >= 40
