"""Cincinnati Rummy (RULES.md 2.28, seed 003 L715-742): decisions CR1-CR3 and the card's rule events."""
from __future__ import annotations

import random
from typing import Any

from engine import State, load_game
from engine.cards import TOKENS, bits
from tests import gamekit
from tests.gamekit import draw_and_discard_it, events, play

LOSER = ["AC", "3D", "8H", "QC", "JD", "TD", "4S"]
STOCK = ["6C", "7C", "3S", "4C"]


def new(hands: list[list[str]], stock: list[str], upcard: str = "8C", dealer: int = 0, seed: int = 1,
        **extra: Any) -> State:
    opts = extra.pop("options", {})
    return gamekit.new("cincinnati_rummy", hands, seed=seed, options=opts,
                       **{"dealer": dealer, "stock": stock, "upcard": upcard, **extra})


def test_cr1_winner_scores_his_own_combinations() -> None:
    st = new([LOSER, ["QH", "KH", "AH", "2S", "2D", "2C", "KS"]], ["JK", *STOCK])
    play(st, "draw stock", "knock KS")
    ev = events(st, "cincinnati_rummy.went_out_all_at_once")[0]
    # QH KH AH (ace high) = 31, 2S 2D 2C = 6 (a 2 is 2, not wild), joker 15; the discard counts nothing
    assert ev["seat"] == 1 and ev["points"] == 31 + 6 + 15 and ev["discard"] == "KS"
    assert st.score_sheet()[0] == [0.0, 52.0]


def test_cr1_twos_are_not_wild() -> None:
    st = new([LOSER, ["QH", "KH", "2S", "9C", "9D", "9S"]], ["5D", *STOCK])
    play(st, "draw stock")
    assert not any(a.startswith("knock") for a in st.legal_actions())


def test_cr1_going_out_without_a_discard_counts_every_card() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S"]], ["4H", *STOCK])
    play(st, "draw stock", "knock")
    ev = events(st, "cincinnati_rummy.went_out_all_at_once")[0]
    assert ev["discard"] is None and ev["points"] == 4 + 5 + 6 + 7 + 27


def test_cr1_option_penalties_collects_the_others_cards() -> None:
    st = new([["JK", "3D", "KC"], ["5H", "6H", "7H", "9C", "9D", "9S"]], ["4H", *STOCK],
             options={"scoring": "penalties"})
    play(st, "draw stock", "knock")
    assert st.score_sheet()[0] == [0.0, 25.0 + 3 + 10]


def test_cr1_only_all_at_once_and_not_with_the_card_taken() -> None:
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S", "KS"]], ["4H", *STOCK])
    play(st, "draw stock", "pass", "discard KS")
    assert not events(st, "cincinnati_rummy.went_out_all_at_once") and st.current_player == 0
    st = new([LOSER, ["5H", "6H", "7H", "9C", "9D", "9S"]], STOCK, upcard="KS")
    play(st, "draw discard")
    legal = st.legal_actions()
    assert not any(a.startswith("knock") for a in legal) and "discard KS" not in legal


def test_cr4_knock_with_a_discard_when_all_meld() -> None:
    # the hand: 3C-7C and 9D 9H 9S after the draw: out without a discard, or with 3C or 7C
    st = new([LOSER, ["3C", "4C", "5C", "6C", "9D", "9H", "9S"]], ["7C", "KH", "QS", "8S"])
    play(st, "draw stock")
    assert st.legal_actions() == ["pass", "knock", "knock 3C", "knock 7C"]
    play(st, "knock 3C")
    ev = events(st, "cincinnati_rummy.went_out_all_at_once")[0]
    # the discard does not count (CR1): 4C..7C = 22, three 9s = 27
    assert ev["discard"] == "3C" and ev["points"] == 22 + 27


def test_cr4_the_going_out_discard_is_never_the_card_taken() -> None:
    st = new([LOSER, ["3C", "4C", "5C", "6C", "9D", "9H", "9S"]], ["KH", "QS", "8S"], upcard="7C")
    play(st, "draw discard")
    assert st.legal_actions() == ["pass", "knock", "knock 3C"]


def test_cr4_every_offered_form_goes_out_and_no_other_does() -> None:
    # random play up to the first chance to go out: 'knock XX' is offered exactly for the cards
    # (not the one taken) whose discard leaves a hand that melds completely, 'knock' exactly when
    # the whole hand melds
    rng = random.Random(4)
    game = load_game("cincinnati_rummy")
    for seed in range(40):
        st = game.new_match(seed=seed, players=2)
        while not st.is_over() and not any(a.startswith("knock") for a in st.legal_actions()):
            st.apply(rng.choice(st.legal_actions()))
        if st.is_over():
            continue
        hand = st.hands[st.turn]  # type: ignore[attr-defined]
        taken = st.taken  # type: ignore[attr-defined]
        solver = game.solver  # type: ignore[attr-defined]
        want = {"knock"} if solver.count2(bits(hand)) == 0 else set()
        for c in range(hand.bit_length()):
            if hand >> c & 1 and (taken < 0 or TOKENS[c] != TOKENS[taken]) \
                    and solver.count2(bits(hand & ~(1 << c))) == 0:
                want.add("knock " + TOKENS[c])
        assert {a for a in st.legal_actions() if a.startswith("knock")} == want, seed


def test_cr2_first_to_100() -> None:
    st = new([LOSER, ["QH", "KH", "AH", "2S", "2D", "2C", "KS"]], ["JK", *STOCK], totals=[0, 60])
    play(st, "draw stock", "knock KS")
    assert st.is_over() and st.scores() == [0.0, 112.0] and st.ranking() == [2, 1]
    st = new([LOSER, ["QH", "KH", "AH", "2S", "2D", "2C", "KS"]], ["JK", *STOCK], totals=[0, 40])
    play(st, "draw stock", "knock KS")
    assert not st.is_over() and st.deal_no == 2


def test_cr3_packs_and_deal_as_wildcard_rummy() -> None:
    game = load_game("cincinnati_rummy")
    assert bin(game.new_match(seed=1, players=4).deck_mask).count("1") == 54
    st7 = game.new_match(seed=1, players=7)
    assert bin(st7.deck_mask).count("1") == 108 and st7.observation(0)["hand_sizes"] == [10] * 7
    assert game.new_match(seed=1, players=6).observation(0)["hand_sizes"] == [6] * 6
    st3 = load_game("cincinnati_rummy", three_player_cards=10).new_match(seed=1, players=3)
    assert st3.observation(0)["hand_sizes"] == [10] * 3


def test_stock_flipped_and_hidden_hands() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C", "7C", "3S"], upcard="8C")
    play(st, "draw stock", "discard KS", "draw stock", "discard KD", "draw stock")
    ev = events(st, "cincinnati_rummy.stock_flipped")
    assert ev and ev[0]["size"] == 2
    assert [TOKENS[c] for c in reversed(st.stock)] == ["8C", "KS"]  # type: ignore[attr-defined]
    assert st.observation(0)["stock_order_known"] and "AH" not in str(st.observation(0))
    d = st.determinize(0, random.Random(3))
    assert not d.invariant_violations()


def test_deal_without_winner() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], [], upcard="8C")
    assert events(st, "cincinnati_rummy.deal_without_winner") and st.score_sheet() == [[0.0, 0.0]]


def test_safety_nets_max_reforms_and_deal_cap() -> None:
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C", "7C"], upcard="8C",
             options={"max_reforms": 0, "deal_cap": 1})
    play(st, "draw stock", "discard KS", "draw stock", "discard KD")
    assert not events(st, "cincinnati_rummy.stock_flipped")
    assert events(st, "cincinnati_rummy.deal_without_winner") and st.is_over()


def test_x7_default_safety_valve_max_reforms_30_deal_cap_50() -> None:
    # X7 (revised turn 2): the engine's safety valve is the default here; None = the seed's no cap
    opts = load_game("cincinnati_rummy").options
    assert opts["max_reforms"] == 30 and opts["deal_cap"] == 50
    # nobody goes out: each player discards the card he drew; the stock (one card) is turned over
    # after every draw that empties it, 30 times, and the turn that would need a 31st ends the deal
    st = new([["KD", "QC", "5S"], ["AH", "9H", "KS"]], ["6C"], upcard="8C")
    while not events(st, "cincinnati_rummy.deal_without_winner"):
        assert len(events(st, "cincinnati_rummy.stock_flipped")) <= 30
        draw_and_discard_it(st)
    assert len(events(st, "cincinnati_rummy.stock_flipped")) == 30 and st.deal_no == 2
    st = load_game("cincinnati_rummy", max_reforms=None).new_match(seed=1, players=2, deal={
        "dealer": 0, "hands": [["KD", "QC", "5S"], ["AH", "9H", "KS"]], "stock": ["6C"], "upcard": "8C",
        "partial": True})
    for _ in range(31):  # no cap: a 31st re-forming is made
        draw_and_discard_it(st)
    assert len(events(st, "cincinnati_rummy.stock_flipped")) == 31
    assert not events(st, "cincinnati_rummy.deal_without_winner")
