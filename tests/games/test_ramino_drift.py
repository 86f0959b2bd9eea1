"""Ramino (Drift) / Remigio (RULES.md 2.27, seed 003 L689-713): decisions RD1-RD6, the card's rule
events, the discard ban, scoring and elimination."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.conformance import random_playout
from tests.gamekit import discards, events, play, table
from tests.games.rummy_oracle import capped_positions, check_capped_position

FILL_A = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld; penalty 50
FILL_B = ["3C", "5D", "7S", "9C", "JD", "KS", "AH"]  # no meld; penalty 45


def new(
    hands: list[list[str]],
    stock: list[str] | None = None,
    upcard: str | None = "8H",
    seed: int = 1,
    dealer: int | None = None,
    **extra: Any,
) -> State:
    opts = {k: v for k, v in extra.items() if k not in ("totals", "eliminated")}
    deal: dict[str, Any] = {"dealer": len(hands) - 1 if dealer is None else dealer, "upcard": upcard}
    for k in ("totals", "eliminated"):
        if k in extra:
            deal[k] = extra[k]
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("ramino_drift", hands, seed=seed, options=opts, **deal)


# --------------------------------------------------------------------- RD1: 2-4 players
def test_rd1_two_to_four_players_seven_cards_each_from_54() -> None:
    game = load_game("ramino_drift")
    for n in (2, 3, 4):
        st = game.new_match(seed=5, players=n)
        obs = st.observation(0)
        assert obs["hand_sizes"] == [7] * n
        assert obs["stock_size"] == 54 - 7 * n - 1 and obs["pile_size"] == 1
        assert bin(st.deck_mask).count("1") == 54
    for n in (1, 5):
        with pytest.raises(ValueError, match="players"):
            game.new_match(seed=5, players=n)


# --------------------------------------------------------------------- RD2: out with or without discard
def test_rd2_going_out_without_a_final_discard() -> None:
    st = new([["2H", "3H", "4H", "9H", "TH", "JH"], FILL_A], stock=["QH", "9D", "5C"])
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm")
    play(st, "meld 9H", "meld TH", "meld JH", "meld QH", "confirm")
    out = events(st, "ramino_drift.went_out")
    assert [(e["seat"], e["discard"]) for e in out] == [(0, False)]
    assert st.score_sheet()[0] == [0.0, 50.0]
    assert st.deal_no == 2  # the next deal has begun


def test_rd2_going_out_by_discarding_the_last_card() -> None:
    st = new([["2H", "3H", "4H"], FILL_A], stock=["9D", "5C", "6C"])
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm")
    assert discards(st) == ["discard 9D"]
    play(st, "discard 9D")
    assert [(e["seat"], e["discard"]) for e in events(st, "ramino_drift.went_out")] == [(0, True)]
    assert st.score_sheet()[0] == [0.0, 50.0]


# --------------------------------------------------------------------- RD3: lay-offs onto sets
def test_rd3_layoff_onto_sets_by_default() -> None:
    st = new([["7H", "7S", "7D", "7C", "2H", "3H", "4H", "5H"], FILL_A], stock=["9D", "5C", "6C"])
    play(st, "draw stock", "meld 7H", "meld 7S", "meld 7D", "confirm")
    assert "layoff 7C 1" in st.legal_actions()
    play(st, "layoff 7C 1")
    assert table(st) == ["7C 7D 7H 7S"]
    ev = events(st, "ramino_drift.laid_off")
    assert not ev  # emitted when the turn ends
    play(st, "discard 9D")
    ev = events(st, "ramino_drift.laid_off")
    assert [(e["card"], e["kind"], e["on_other"]) for e in ev] == [("7C", "set", False)]


def test_rd3_option_layoff_sets_off_only_runs() -> None:
    st = new([["7H", "7S", "7D", "7C", "2H", "3H", "4H", "5H"], FILL_A], stock=["9D", "5C", "6C"],
             layoff_sets=False)
    play(st, "draw stock", "meld 7H", "meld 7S", "meld 7D", "confirm")
    assert "layoff 7C 1" not in st.legal_actions()
    play(st, "meld 2H", "meld 3H", "meld 4H", "confirm")
    assert "layoff 5H 2" in st.legal_actions() and "layoff 7C 1" not in st.legal_actions()
    with pytest.raises(IllegalAction):
        st.apply("layoff 7C 1")


# --------------------------------------------------------------------- RD4: swap without having come out
def _joker_run_on_table(seat1: list[str]) -> State:
    st = new([["5H", "7H", "JK", "QC", "QD", "KS", "3S"], seat1], stock=["AD", "AC", "5D", "5C", "6C"],
             upcard="KH")
    play(st, "draw stock", "meld 5H", "meld JK=6H", "meld 7H", "confirm", "discard AD")
    assert table(st) == ["5H JK=6H 7H"]
    return st


def test_rd4_joker_swap_before_coming_out() -> None:
    st = _joker_run_on_table(["6H", "9C", "9D", "2S", "4C", "TS", "8D"])
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "swap 6H 1" in legal
    assert not any(a.startswith("layoff") for a in legal)  # not come out: no lay-offs
    play(st, "swap 6H 1")
    assert table(st) == ["5H 6H 7H"]
    assert not discards(st)  # RD6: the joker must be laid first
    play(st, "meld 9C", "meld 9D", "meld JK=9H", "confirm")
    assert discards(st)
    play(st, "discard AC")
    sw = events(st, "ramino_drift.joker_swapped")
    assert [(e["seat"], e["meld"], e["card"], e["came_out"]) for e in sw] == [(1, 1, "6H", False)]


# --------------------------------------------------------------------- RD5: coming out
def test_rd5_layoff_only_after_coming_out_in_the_same_turn() -> None:
    st = new([["2H", "3H", "4H", "QC", "QD", "KS", "3S"], ["5H", "9C", "9D", "9S", "2S", "4C", "8D"]],
             stock=["AD", "AC", "5D", "5C"], upcard="KH")
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm", "discard KS")
    assert [e["seat"] for e in events(st, "ramino_drift.came_out")] == [0]
    play(st, "draw stock")
    assert "layoff 5H 1" not in st.legal_actions()
    with pytest.raises(IllegalAction, match="come out"):
        st.apply("layoff 5H 1")
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert "layoff 5H 1" in st.legal_actions()
    play(st, "layoff 5H 1", "discard AC")
    assert table(st) == ["2H 3H 4H 5H", "9C 9D 9S"]
    assert [(e["seat"], e["meld"]) for e in events(st, "ramino_drift.came_out")] == [(0, 1), (1, 2)]
    assert [(e["seat"], e["on_other"]) for e in events(st, "ramino_drift.laid_off")] == [(1, True)]


def test_rd5_came_out_once_per_deal_and_not_for_a_taken_back_meld() -> None:
    st = new([["2H", "3H", "4H", "JC", "JD", "JS", "3S", "6D"], FILL_A], stock=["AD", "AC", "5D", "5C"],
             upcard="KH")
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm", "meld JC", "meld JD", "meld JS",
         "confirm", "discard AD")
    assert len(events(st, "ramino_drift.came_out")) == 1
    st = new([["2H", "3H", "4H", "JC", "JD", "JS", "3S", "6D"], FILL_A], stock=["AD", "AC", "5D", "5C"],
             upcard="KH")
    play(st, "draw stock", "meld 2H", "meld 3H", "takeback")
    assert st.observation(0)["came_out"] == [False, False] and not events(st, "ramino_drift.came_out")


# --------------------------------------------------------------------- RD6: the freed joker is used at once
def test_rd6_swap_not_offered_when_the_joker_cannot_be_laid_again() -> None:
    st = _joker_run_on_table(["6H", "2S", "4C", "TS", "8D", "QH", "3D"])
    play(st, "draw stock")
    assert "swap 6H 1" not in st.legal_actions()
    with pytest.raises(IllegalAction):
        st.apply("swap 6H 1")


def test_rd6_freed_joker_laid_off_once_come_out() -> None:
    st = _joker_run_on_table(["6H", "9C", "9D", "9S", "2S", "4C", "8D"])
    play(st, "draw stock", "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert "swap 6H 1" in st.legal_actions()
    play(st, "swap 6H 1")
    legal = st.legal_actions()
    assert not discards(st)
    assert {"layoff JK=4H 1", "layoff JK=8H 1", "layoff JK=9H 2"} <= set(legal)
    play(st, "layoff JK=8H 1")
    assert table(st) == ["5H 6H 7H JK=8H", "9C 9D 9S"]
    assert discards(st)
    play(st, "discard 2S")
    assert [e["came_out"] for e in events(st, "ramino_drift.joker_swapped")] == [True]


# --------------------------------------------------------------------- the discard ban
def test_taken_discard_may_not_be_discarded_in_the_same_turn() -> None:
    st = new([["2H", "3H", "9C", "QD", "KS", "4C", "7D"], FILL_A], stock=["AD", "AC"], upcard="5S")
    play(st, "draw discard")
    legal = discards(st)
    assert "discard 5S" not in legal and "discard 9C" in legal
    with pytest.raises(IllegalAction, match="took from the discard pile"):
        st.apply("discard 5S")


def test_taken_joker_bans_the_other_joker_too() -> None:
    st = new([["JK", "3H", "9C", "QD", "KS", "4C", "7D"], FILL_A], stock=["AD", "AC"], upcard="JK")
    play(st, "draw discard")
    assert "discard JK" not in discards(st)


def test_table_play_may_not_leave_only_the_taken_card() -> None:
    st = new([["5H", "6H", "7H"], FILL_A], stock=["AD", "AC"], upcard="8H")
    play(st, "draw discard", "meld 5H", "meld 6H", "meld 7H", "confirm")
    legal = st.legal_actions()
    assert not discards(st)
    assert "takeback" in legal and "layoff 8H 1" in legal
    play(st, "layoff 8H 1")  # out without a discard (RD2)
    assert [(e["seat"], e["discard"]) for e in events(st, "ramino_drift.went_out")] == [(0, False)]


# --------------------------------------------------------------------- melds and scoring (seed L701, L711)
def test_aces_low_only_sets_distinct_suits() -> None:
    st = new([["QH", "KH", "AH", "AS", "2S", "3S", "7C"], FILL_A], stock=["AD", "7D"], upcard="7H")
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "meld QH" not in legal and "meld KH" not in legal  # Q-K-A is no run
    assert {"meld AS", "meld AH", "meld AD"} <= set(legal)  # A-2-3 spades, the aces' set
    play(st, "meld AS", "meld 2S", "meld 3S", "confirm")
    assert table(st) == ["AS 2S 3S"]


def test_penalties_ace_1_pips_faces_10_joker_20() -> None:
    st = new([["2H", "3H"], ["AH", "5D", "KS", "JK", "9C"]], stock=["4H", "9D", "5C"])
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm")
    assert st.score_sheet()[0] == [0.0, float(1 + 5 + 10 + 20 + 9)]


# --------------------------------------------------------------------- stock (X3, X7)
def _empty_the_stock(**opts: Any) -> State:
    st = new([list(FILL_A), list(FILL_B)], stock=["2D", "4S", "6C"], upcard="8H", **opts)
    play(st, "draw stock", "discard 2D", "draw stock", "discard 4S", "draw stock")
    return st


def test_stock_flipped_without_shuffling() -> None:
    st = _empty_the_stock()
    (ev,) = events(st, "ramino_drift.stock_flipped")
    assert ev["cards"] == 2
    obs = st.observation(0)
    assert obs["stock_size"] == 2 and obs["discard_top"] == "4S"
    play(st, "discard 6C", "draw stock")
    assert "8H" in st.observation(1)["hand"]  # the pile's oldest card is the new top
    play(st, "discard 8H", "draw stock")
    assert "2D" in st.observation(0)["hand"]


def test_option_reshuffle_shuffles_the_pile() -> None:
    st = _empty_the_stock(reshuffle=True)
    assert [e["cards"] for e in events(st, "ramino_drift.stock_reshuffled")] == [2]
    assert not events(st, "ramino_drift.stock_flipped")


def test_x7_deal_without_winner_everyone_scores_his_hand() -> None:
    st = _empty_the_stock(max_reforms=0)
    play(st, "discard 6C")
    assert len(events(st, "ramino_drift.deal_without_winner")) == 1
    assert st.score_sheet()[0] == [50.0, 45.0]


# --------------------------------------------------------------------- elimination (seed L713)
def _seat1_goes_out(totals: list[float], players: int = 2, **extra: Any) -> State:
    hands = [list(FILL_A), ["5H", "6H", "7H"]] + [[] for _ in range(players - 2)]
    st = new(hands, stock=["2D", "4S", "6C"], upcard="8H", totals=totals, dealer=1, **extra)
    play(st, "draw stock", "discard 2D", "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm",
         "discard 4S")
    return st


def test_eliminated_at_101_last_player_wins() -> None:
    st = _seat1_goes_out([51.0, 0.0])
    assert [(e["seat"], e["total"]) for e in events(st, "ramino_drift.eliminated")] == [(0, 101.0)]
    assert st.is_over() and st.ranking() == [2, 1]
    st = _seat1_goes_out([50.0, 0.0])
    assert not events(st, "ramino_drift.eliminated") and not st.is_over() and st.scores() == [100.0, 0.0]


def test_eliminated_players_are_skipped_and_ranked_by_elimination() -> None:
    st = new([list(FILL_A), ["5H", "6H", "7H"], []], stock=["2D", "4S", "6C"], upcard="8H",
             totals=[95.0, 0.0, 130.0], eliminated=[2], dealer=2)
    assert st.current_player == 0
    play(st, "draw stock", "discard 2D")
    assert st.current_player == 1  # seat 2 is skipped
    play(st, "draw stock", "meld 5H", "meld 6H", "meld 7H", "confirm", "discard 4S")
    assert st.is_over()
    assert st.ranking() == [2, 1, 3]  # the later elimination before the earlier one


def test_all_out_in_one_deal_lowest_total_wins() -> None:
    st = new([list(FILL_A), list(FILL_B)], stock=["2D", "4S", "6C"], upcard="8H", max_reforms=0,
             totals=[60.0, 70.0])
    play(st, "draw stock", "discard 2D", "draw stock", "discard 4S", "draw stock", "discard 6C")
    assert sorted(e["seat"] for e in events(st, "ramino_drift.eliminated")) == [0, 1]
    assert st.scores() == [110.0, 115.0] and st.ranking() == [1, 2]


def test_random_matches_end_with_a_last_player_and_never_stick() -> None:
    game = load_game("ramino_drift")
    for seed in range(12):
        st = game.new_match(seed=seed, players=2 + seed % 3)
        random_playout(st, random.Random(seed), check_every_action=seed < 2)
        assert st.is_over() and sum(1 for r in st.ranking() if r == 1) == 1
        assert st.stuck == 0  # type: ignore[attr-defined]
        assert any(e["event"] == "ramino_drift.eliminated" for e in st.events)


# --------------------------------------------------------------------- meld protocol: the take-back cap
def test_meld_protocol_after_the_third_takeback_exactly_the_finishable_actions_are_offered() -> None:
    # meld protocol (revised turn 3): after the third take-back exactly the actions after which the
    # turn can still end are offered (every discard, meld card, confirm, lay-off or swap), checked by
    # the brute-force oracle on random positions and after random offered plays from them
    compared = 0
    for opts in ({}, {"layoff_sets": False}):
        for seed, st in capped_positions("ramino_drift", range(100), 14, 12, **opts):
            compared += check_capped_position(st, random.Random(seed))
    assert compared >= 40
