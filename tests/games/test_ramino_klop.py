"""Ramino (Klop) (RULES.md 2.26, seed 003 L664-687): decisions RK1-RK8 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

from engine import State, load_game
from engine.cards import PHYS, TOKENS, value_table
from engine.deadwood import MeldSpec, Solver
from tests import gamekit
from tests.gamekit import draw_and_discard_it, events, play

STOCK = ["6C", "9C", "3S", "4C"]
HIGH = ["KD", "QC", "JS"]  # 30, no meld


def new(hands: list[list[str]], stock: list[str], upcard: str = "8D", dealer: int = 0, seed: int = 1,
        **extra: Any) -> State:
    opts = extra.pop("options", {})
    return gamekit.new("ramino_klop", hands, seed=seed, options=opts,
                       **{"dealer": dealer, "stock": stock, "upcard": upcard, **extra})


KNOCKER = ["3H", "4H", "5H", "7C", "7D", "7S", "KS"]


def test_rk1_knock_with_the_discard_at_deadwood_six_or_less() -> None:
    st = new([HIGH, KNOCKER], ["2C", *STOCK])
    play(st, "draw stock")
    assert st.legal_actions() == ["pass", "knock"]
    play(st, "knock")
    assert st.legal_actions() == ["discard KS"]  # only a discard that leaves deadwood <= 6
    play(st, "discard KS")
    ev = events(st, "ramino_klop.knock")
    assert ev and ev[0]["seat"] == 1 and ev[0]["deadwood"] == 2


def test_rk1_no_knock_at_deadwood_seven() -> None:
    st = new([HIGH, KNOCKER], ["8C", *STOCK])  # discarding KS would leave 8C: deadwood 8
    play(st, "draw stock")
    assert "knock" not in st.legal_actions()
    st = new([HIGH, KNOCKER], ["6S", *STOCK])
    play(st, "draw stock")
    assert "knock" in st.legal_actions()


def test_rk2_everyone_scores_his_deadwood_knocker_included() -> None:
    st = new([HIGH, KNOCKER, ["9H", "9S", "9D", "AC"]], ["2C", *STOCK])
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0] == [30.0, 2.0, 1.0]
    assert st.scores() == [30.0, 2.0, 1.0]


def test_rk2_rummy_scores_zero() -> None:
    st = new([HIGH, ["3H", "4H", "5H", "6H", "7C", "7D", "7S"]], ["AS", *STOCK])
    play(st, "draw stock", "knock", "discard AS")
    assert events(st, "ramino_klop.rummy")[0]["seat"] == 1 and not events(st, "ramino_klop.knock")
    assert st.score_sheet()[0] == [30.0, 0.0]


def test_rk3_reaching_101_is_out() -> None:
    st = new([HIGH, KNOCKER, ["9H", "AS"]], ["2C", *STOCK], totals=[71, 0, 90])
    play(st, "draw stock", "knock", "discard KS")
    out = events(st, "ramino_klop.eliminated")
    assert [(e["seat"], e["total"]) for e in out] == [(0, 101)]  # seat 2 at 100 stays in
    assert st.scores() == [101.0, 2.0, 100.0] and not st.is_over()
    assert st.dealer == 1  # type: ignore[attr-defined]
    assert st.current_player == 2 and st.observation(0)["hand"] == []  # seat 0 is skipped


def test_rk4_joker_is_20() -> None:
    st = new([["JK", "KD"], KNOCKER], ["2C", *STOCK])
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0] == [30.0, 2.0]


def test_rk5_no_set_with_a_suit_twice() -> None:
    st = new([["7H", "7H", "7S"], KNOCKER], ["2C", *STOCK])
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0][0] == 21.0


def test_rk6_all_remaining_out_together_lowest_total_wins() -> None:
    st = new([HIGH, KNOCKER, ["QH", "KH"]], ["2C", *STOCK], totals=[80, 99, 90])
    play(st, "draw stock", "knock", "discard KS")
    # seat 0 110, seat 1 101, seat 2 110: all out in this deal; seat 1 has the lowest total
    assert {e["seat"] for e in events(st, "ramino_klop.eliminated")} == {0, 1, 2}
    assert st.is_over() and st.ranking() == [2, 1, 2]


def test_rk6_ranking_later_eliminations_first() -> None:
    st = new([HIGH, KNOCKER, ["2D", "AS"]], ["2C", *STOCK], totals=[80, 0, 90])
    play(st, "draw stock", "knock", "discard KS")  # seat 0 out (110), 1 and 2 play on
    assert not st.is_over()
    while not st.is_over():
        st.apply(random.Random(len(st.history)).choice(st.legal_actions()))
    assert st.ranking()[0] == 3  # the first out is last, whatever the later totals


def test_rk7_runs_of_three_or_four_only() -> None:
    solver = Solver(MeldSpec(run_max=4), value_table(ace=1, joker=20), 20)
    five = [PHYS[t][0] for t in ("3H", "4H", "5H", "6H", "7H")]
    assert solver.deadwood(five) == 3
    st = new([["3D", "4D", "5D", "6D", "7D"], KNOCKER], ["2C", *STOCK])
    play(st, "draw stock", "knock", "discard KS")
    assert st.score_sheet()[0][0] == 3.0


def test_rk8_rummy_is_made_by_discarding() -> None:
    st = new([HIGH, ["3H", "4H", "5H", "6H", "7C", "7D", "7S"]], ["7H", *STOCK])
    play(st, "draw stock", "knock")
    legal = st.legal_actions()
    assert legal and all(a.startswith("discard ") for a in legal)  # no knock without a discard
    play(st, "discard 3H")  # 4H 5H 6H 7H + 7C 7D 7S
    assert events(st, "ramino_klop.rummy")


def test_the_card_taken_may_not_be_discarded() -> None:
    st = new([HIGH, KNOCKER], STOCK, upcard="QD")
    play(st, "draw discard")
    assert "discard QD" not in st.legal_actions() and "knock" not in st.legal_actions()


def test_stock_flipped_and_deal_without_winner() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C", "7C", "3S"], upcard="8C")
    play(st, "draw stock", "discard KS", "draw stock", "discard KD", "draw stock")
    ev = events(st, "ramino_klop.stock_flipped")
    assert ev and ev[0]["size"] == 2
    assert [TOKENS[c] for c in reversed(st.stock)] == ["8C", "KS"]  # type: ignore[attr-defined]
    assert st.observation(0)["stock_order_known"]
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], [], upcard="8C")
    # X7: everyone scores his deadwood as if another had gone out
    assert events(st, "ramino_klop.deal_without_winner") and st.score_sheet() == [[25.0, 20.0]]


def test_max_reforms_safety_net_ends_the_deal() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C", "7C"], upcard="8C", options={"max_reforms": 0})
    play(st, "draw stock", "discard KS", "draw stock", "discard KD")
    assert not events(st, "ramino_klop.stock_flipped")
    assert events(st, "ramino_klop.deal_without_winner") and st.deal_no == 2


def test_determinize_and_hidden_hands() -> None:
    st = new([HIGH, KNOCKER], ["2C", *STOCK], upcard="QH")
    assert "KS" not in str(st.observation(0))
    play(st, "draw discard", "discard KS")
    d = st.determinize(0, random.Random(4))
    assert not d.invariant_violations()


def test_x7_default_safety_valve_max_reforms_30() -> None:
    # X7 (revised turn 2): the engine's safety valve is the default here; None = the seed's no cap
    opts = load_game("ramino_klop").options
    assert opts["max_reforms"] == 30
    # nobody goes out: each player discards the card he drew; the stock (one card) is turned over
    # after every draw that empties it, 30 times, and the turn that would need a 31st ends the deal
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C"], upcard="8C")
    while not events(st, "ramino_klop.deal_without_winner"):
        assert len(events(st, "ramino_klop.stock_flipped")) <= 30
        draw_and_discard_it(st)
    assert len(events(st, "ramino_klop.stock_flipped")) == 30 and st.deal_no == 2
    st = load_game("ramino_klop", max_reforms=None).new_match(seed=1, players=2, deal={
        "dealer": 0, "hands": [["KD", "QC", "5S"], ["AH", "9H", "KS"]], "stock": ["6C"], "upcard": "8C",
        "partial": True})
    for _ in range(31):  # no cap: a 31st re-forming is made
        draw_and_discard_it(st)
    assert len(events(st, "ramino_klop.stock_flipped")) == 31
    assert not events(st, "ramino_klop.deal_without_winner")
