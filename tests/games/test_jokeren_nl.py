"""Jokeren, Dutch home and club rules (RULES.md 2.5, seed 002 "Jokeren"): decisions J1-J17 and the
card's rule events."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from engine.core import Game
from tests import gamekit
from tests.conformance import random_playout
from tests.gamekit import can_discard, events, play, table
from tests.games.rummy_oracle import after as oracle_after
from tests.games.rummy_oracle import can_end as oracle_can_end
from tests.games.rummy_oracle import (
    capped_positions,
    check_capped_position,
    finishable_actions,
    joker_after_layoff_position,
)

FILL = ["2C", "4D", "6S", "8C", "TD", "QS", "KC"]  # no meld among them
OTHER = ["3C", "5D", "7S", "9C", "JD", "KH", "AC"]


def new(hands: list[list[str]], stock: list[str] | None = None, seed: int = 1, **extra: Any) -> State:
    opts = {k: extra.pop(k) for k in list(extra) if k in ("open50", "competition", "max_reforms")}
    deal: dict[str, Any] = {"dealer": len(hands) - 1, "upcard": None, **extra}
    if stock is not None:
        deal["stock"] = stock
    return gamekit.new("jokeren_nl", hands, seed=seed, options=opts, **deal)


# --------------------------------------------------------------------- J1, J11, J17: deck and deal
def test_j1_deck_108_with_four_jokers_competition_three_or_two() -> None:
    st = load_game("jokeren_nl").new_match(seed=2, players=4)
    toks = [TOKENS[c] for c in cards_of(st.deck_mask)]
    assert len(toks) == 108 and toks.count("JK") == 4
    assert all(len(h) == 13 for h in [st.observation(s)["hand"] for s in range(1)])
    st = load_game("jokeren_nl", competition=True).new_match(seed=2, players=4)
    assert [TOKENS[c] for c in cards_of(st.deck_mask)].count("JK") == 3
    st = load_game("jokeren_nl", competition=True).new_match(seed=2, players=3)
    assert [TOKENS[c] for c in cards_of(st.deck_mask)].count("JK") == 2


def test_j11_no_upcard_the_first_player_draws_from_the_stock() -> None:
    st = load_game("jokeren_nl").new_match(seed=2, players=3)
    obs = st.observation(st.current_player or 0)
    assert obs["discard_top"] is None and obs["pile_size"] == 0
    assert st.legal_actions() == ["draw stock"]


def test_j17_competition_three_players_seat0_deals_twice_six_deals_ace_10() -> None:
    st = load_game("jokeren_nl", competition=True).new_match(seed=5, players=3)
    random_playout(st, random.Random(5))
    assert len(st.score_sheet()) == 6
    assert [e["deal"] for e in events(st, "jokeren_nl.dealt_twice")] == [2]
    with pytest.raises(ValueError):
        load_game("jokeren_nl", competition=True).new_match(seed=1, players=2)
    # the ace counts 10 (not 11) for the opening: A S/C/D = 30 + 8 8 8 = 54 vs 57
    st = new(
        [["AS", "AC", "AD", "9C", "9D", "9S", "2H", "3D"], OTHER, ["2S", "4S", "6C", "8D", "TH", "QC", "KD"]],
        stock=["4H", "5S", "5S"],
        competition=True,
    )
    play(st, "draw stock", "meld AS", "meld AC", "meld AD", "confirm")
    assert not can_discard(st)  # 30 < 40
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm", "discard 4H")
    assert [e["points"] for e in events(st, "jokeren_nl.opened")] == [57]


# --------------------------------------------------------------------- J3, J10, J15: the 40
def test_j3_joker_counts_10_for_the_opening() -> None:
    st = new([["2H", "3H", "JK", "9C", "9D", "9S", "5C", "KD"], FILL], stock=["QD", "5S", "5S"])
    play(
        st,
        "draw stock",
        "meld 2H",
        "meld 3H",
        "meld JK=4H",
        "confirm",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
    )
    assert can_discard(st)  # 2 + 3 + 10 + 27 = 42 (the joker as the 4 would give 36)
    play(st, "discard KD")
    assert [e["points"] for e in events(st, "jokeren_nl.opened")] == [42]


def test_j10_forty_over_several_melds_layoffs_not_counted() -> None:
    st = new([["2H", "3H", "4H", "5H", "7C", "7D", "7S", "KD"], FILL], stock=["QD", "5S", "5S"])
    play(st, "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm", "layoff 5H 1")
    play(st, "meld 7C", "meld 7D", "meld 7S", "confirm")
    assert not can_discard(st)  # 9 + 21 = 30; the 5H laid off does not count
    play(
        st, "takeback", "meld 2H", "meld 3H", "meld 4H", "meld 5H", "confirm", "meld 7C", "meld 7D", "meld 7S"
    )
    play(st, "confirm")
    assert not can_discard(st)  # 14 + 21 = 35
    st = new([["JH", "QH", "KH", "7C", "7D", "7S", "5C", "KD"], FILL], stock=["QD", "5S", "5S"])
    play(
        st,
        "draw stock",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
        "meld 7C",
        "meld 7D",
        "meld 7S",
        "confirm",
    )
    assert can_discard(st)  # 30 + 21 = 51


def test_j15_ace_1_low_in_a_run_11_otherwise() -> None:
    st = new([["AH", "2H", "3H", "KS", "QS", "JS", "5C", "KD"], FILL], stock=["QD", "5S", "5S"])
    play(
        st,
        "draw stock",
        "meld AH",
        "meld 2H",
        "meld 3H",
        "confirm",
        "meld JS",
        "meld QS",
        "meld KS",
        "confirm",
    )
    assert not can_discard(st)  # 1 + 2 + 3 + 30 = 36
    st = new([["AH", "AC", "AD", "KS", "QS", "JS", "5C", "KD"], FILL], stock=["QD", "5S", "5S"])
    play(st, "draw stock", "meld AH", "meld AC", "meld AD", "confirm")
    assert not can_discard(st)  # 33
    play(st, "meld JS", "meld QS", "meld KS", "confirm", "discard KD")
    assert [e["points"] for e in events(st, "jokeren_nl.opened")] == [63]
    st = new([["QH", "KH", "AH", "5S", "5C", "5D", "8C", "KD"], FILL], stock=["QD", "7S", "7S"])
    play(
        st,
        "draw stock",
        "meld QH",
        "meld KH",
        "meld AH",
        "confirm",
        "meld 5S",
        "meld 5C",
        "meld 5D",
        "confirm",
    )
    assert can_discard(st)  # 31 + 15 = 46 (the high ace 11)


# --------------------------------------------------------------------- J4, J7: runs
def test_j4_ace_low_or_high_no_wrap() -> None:
    st = new([["KH", "AH", "2H", "QC", "KC", "AC", "5D", "9S"], FILL], stock=["QD", "5S", "5S"])
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "meld 2H" not in legal and "meld KH" not in legal  # K-A-2 wraps
    assert "meld AC" in legal


def test_j7_no_two_jokers_side_by_side() -> None:
    st = new([["5H", "JK", "JK", "9C", "9D", "KS", "2D", "QC"], FILL], stock=["QD", "5S", "5S"])
    play(st, "draw stock", "meld 5H", "meld JK=6H")
    legal = st.legal_actions()
    assert "meld JK=7H" not in legal and "meld JK=4H" in legal  # JK 5H JK: not side by side
    play(st, "meld JK=4H", "confirm")
    assert table(st) == ["JK=4H 5H JK=6H"]


# --------------------------------------------------------------------- J2, J12: taking the discard
def test_j12_not_opened_take_the_discard_only_to_open_with_it() -> None:
    base = ["KH", "QH", "9C", "9D", "9S", "2D", "4S", "6C"]
    st = new([FILL, base], stock=["5S", "3S", "3S"])
    play(st, "draw stock", "discard QS")  # QS cannot join KH QH, no opening with it
    assert st.legal_actions() == ["draw stock"]
    st = new([FILL, base], stock=["5S", "3S", "3S"])
    play(st, "draw stock", "discard KC")  # KH QH ... no; KC with KH: set needs a third K
    assert st.legal_actions() == ["draw stock"]
    st = new([["JH", *FILL[:6]], base], stock=["5S", "3S", "3S"])
    play(st, "draw stock", "discard JH")  # JH QH KH (30) + 9C 9D 9S (27) opens
    assert st.legal_actions() == ["draw stock", "draw discard"]
    play(st, "draw discard")
    assert not can_discard(st)  # J2: the card must be used first
    play(st, "meld 9C", "meld 9D", "meld 9S", "confirm")
    assert not can_discard(st)
    play(st, "meld JH", "meld QH", "meld KH", "confirm", "discard 2D")
    assert [e["card"] for e in events(st, "jokeren_nl.discard_pickup_used")] == ["JH"]


SEAT1 = ["3C", "5D", "7S", "9H", "TH", "KS", "AC"]


def test_j2_opened_player_takes_the_discard_to_lay_it_off() -> None:
    st = new(
        [["9C", "9D", "9S", "JH", "QH", "KH", "2C", "4D", "6S"], SEAT1], stock=["5S", "8D", "3S", "3S", "4C"]
    )
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
    )
    play(st, "discard 5S")
    play(st, "draw stock", "discard 8D")  # seat 1 throws 8D: nothing takes it
    assert st.legal_actions() == ["draw stock"]
    play(st, "draw stock", "discard 2C", "draw stock", "discard TH")  # TH fits JH QH KH
    assert "draw discard" in st.legal_actions()
    play(st, "draw discard")
    assert not can_discard(st)
    play(st, "layoff TH 2")
    assert table(st)[1] == "TH JH QH KH" and can_discard(st)


def test_j2_taken_discard_must_be_used_before_the_turn_ends() -> None:
    st = new([["9C", "9D", "9S", "JH", "QH", "KH", "2C", "4D", "6S"], SEAT1], stock=["5S", "3S", "3S", "4C"])
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
    )
    play(st, "discard 5S", "draw stock", "discard 9H")
    play(st, "draw discard")
    assert not can_discard(st) and "layoff 9H 1" in st.legal_actions()
    with pytest.raises(IllegalAction):
        st.apply("discard 2C")
    play(st, "layoff 9H 1")
    assert can_discard(st)
    play(st, "discard 2C")
    assert [e["card"] for e in events(st, "jokeren_nl.discard_pickup_used")] == ["9H"]


# --------------------------------------------------------------------- J13, J14: the opening turn
def test_j13_opening_turn_lays_off_only_onto_own_new_melds() -> None:
    st = new(
        [["9C", "9D", "9S", *FILL], ["JH", "QH", "KH", "5H", "6H", "7H", "9H", "8C"]],
        stock=["2S", "8H", "3S"],
    )
    play(st, "draw stock", "discard 2S")
    play(st, "draw stock")  # seat 1 draws 8H
    assert not any(a.startswith("layoff") for a in st.legal_actions())  # seat 0 has no melds; none own
    play(st, "meld 5H", "meld 6H", "meld 7H", "confirm")
    assert "layoff 8H 1" in st.legal_actions()  # his own new meld


def test_j14_swap_and_layoff_on_others_only_after_the_opening_turn() -> None:
    st = new(
        [["9C", "9D", "JK", "JH", "QH", "KH", "2C", "4D"], ["9S", "3C", "5D", "7S", "JD", "KS", "AC"]],
        stock=["6S", "8S", "3S", "4S", "5S"],
    )
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld JK=9S",
        "confirm",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
    )
    play(st, "discard 6S")
    assert [e["points"] for e in events(st, "jokeren_nl.opened")] == [58]
    play(st, "draw stock")  # seat 1, not opened: no swap of 9S for the joker
    assert not any(a.startswith("swap") for a in st.legal_actions())
    play(st, "discard 8S", "draw stock")  # seat 0, opened in an earlier turn
    hand = st.observation(0)["hand"]
    assert "3S" in hand


# --------------------------------------------------------------------- J5, J6, J16: going out, jokers
def test_j5_going_out_melds_all_but_one_and_discards_it() -> None:
    st = new([["2C", "4D", "6S", "8C"], ["JH", "QH", "KH", "9C", "9D", "9S"]], stock=["KS", "TD", "3S"])
    play(st, "draw stock", "discard KS")
    play(
        st,
        "draw stock",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
    )
    assert st.legal_actions() == ["discard TD"]
    play(st, "discard TD")
    assert [e["seat"] for e in events(st, "jokeren_nl.went_out")] == [1]
    assert st.score_sheet()[0] == [4.0, 0.0] and st.observation(0)["xs"] == [0, 1]


def test_j6_swapped_joker_must_be_laid_again_this_turn() -> None:
    st = new(
        [["9C", "9D", "JK", "JH", "QH", "KH", "2C", "4D", "5C"], ["9S", "3C", "5D", "7S", "JD", "KS", "AC"]],
        stock=["6S", "8S", "9S", "4S", "5S"],
    )
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld JK=9S",
        "confirm",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
    )
    play(st, "discard 6S", "draw stock", "discard 8S", "draw stock")  # seat 0 draws 9S
    assert "swap 9S 1" in st.legal_actions()
    play(st, "swap 9S 1")
    assert not can_discard(st)
    assert [e["card"] for e in events(st, "jokeren_nl.joker_swapped")] == ["9S"]


def test_j16_freed_joker_may_be_laid_off() -> None:
    st = new(
        [["9C", "9D", "JK", "JH", "QH", "KH", "2C", "4D", "5C"], ["9S", "3C", "5D", "7S", "JD", "KS", "AC"]],
        stock=["6S", "8S", "9S", "4S", "5S"],
    )
    play(
        st,
        "draw stock",
        "meld 9C",
        "meld 9D",
        "meld JK=9S",
        "confirm",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
    )
    play(st, "discard 6S", "draw stock", "discard 8S", "draw stock", "swap 9S 1")
    legal = st.legal_actions()
    assert "layoff JK=TH 2" in legal or "layoff JK=AH 2" in legal
    play(st, "layoff JK=TH 2")
    assert can_discard(st)
    assert table(st) == ["9C 9D 9S", "JK=TH JH QH KH"]


# --------------------------------------------------------------------- J8, J9: stock, ties
def test_j8_stock_reshuffled_except_the_top_discard() -> None:
    st = new([["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]], stock=["KS", "KH", "QD"])
    play(st, "draw stock", "discard KS", "draw stock", "discard KH", "draw stock")
    ev = events(st, "jokeren_nl.stock_reshuffled")
    assert len(ev) == 1 and ev[0]["cards"] == 1
    assert st.observation(0)["discard_top"] == "KH"


def test_j9_ties_without_more_xs_are_shared() -> None:
    st = new([FILL, OTHER], stock=["KS", "QC"], totals=[5, 5])
    assert st.ranking() == [1, 1]
    st = new([FILL, OTHER], stock=["KS", "QC"], totals=[4, 5])
    assert st.ranking() == [1, 2]


def test_j9_equal_totals_more_xs_ranks_first() -> None:
    st = new(
        [["2C", "4D", "6S", "8C"], ["JH", "QH", "KH", "9C", "9D", "9S"]],
        stock=["KS", "TD", "3S"],
        totals=[3, 7],
    )
    play(
        st,
        "draw stock",
        "discard KS",
        "draw stock",
        "meld JH",
        "meld QH",
        "meld KH",
        "confirm",
        "meld 9C",
        "meld 9D",
        "meld 9S",
        "confirm",
        "discard TD",
    )
    assert st.scores()[:2] == [7.0, 7.0]
    assert st.ranking() == [2, 1]  # seat 1 has the X


# --------------------------------------------------------------------- events
def test_open50_open_below_50_by_going_out() -> None:
    st = new(
        [["2C", "4D", "6S", "8C"], ["2H", "3H", "4H", "5C", "5D", "5S"]],
        stock=["KS", "TD", "3S"],
        open50=True,
    )
    play(st, "draw stock", "discard KS", "draw stock", "meld 2H", "meld 3H", "meld 4H", "confirm")
    assert not can_discard(st)
    play(st, "meld 5C", "meld 5D", "meld 5S", "confirm", "discard TD")  # 24 points, going out
    assert [e["points"] for e in events(st, "jokeren_nl.open_below_50_by_going_out")] == [24]


def test_match_subtotal_after_five_deals_and_deal_without_winner() -> None:
    st = new(
        [["2C", "4D", "6S", "8C", "TD"], ["3C", "5D", "7S", "9C", "JD"]],
        stock=["KS", "KH"],
        deal_no=5,
        max_reforms=0,
    )
    play(st, "draw stock", "discard KS", "draw stock", "discard KH")
    assert len(events(st, "jokeren_nl.deal_without_winner")) == 1
    assert st.score_sheet()[0] == [5.0, 5.0]
    sub = events(st, "jokeren_nl.match_subtotal")
    assert len(sub) == 1 and sub[0]["after"] == 5 and sub[0]["totals"] == [5.0, 5.0]


def test_random_matches_keep_invariants() -> None:
    for opts in ({}, {"open50": True}):
        g = load_game("jokeren_nl", **opts)
        for seed in range(2):
            st = g.new_match(seed=seed, players=3, max_deals=2)
            random_playout(st, random.Random(seed), check_every_action=True)
            assert st.stuck == 0  # type: ignore[attr-defined]


def test_j2_the_last_takeback_keeps_the_taken_discard_and_offers_every_line_that_uses_it() -> None:
    # jokeren_nl: the top discard is taken only to be used at once (J2); a take-back never puts it
    # back (meld protocol, revised turn 2): after the third, exactly the actions after which the
    # turn can still end are offered (revised turn 3): 9C starts 9C 9D 9S, which with JH QH KH
    # opens (57), so it is offered too, not only the line the engine would pick
    hands = [["JH", "2C", "4D", "6S", "8C", "TD", "QS"], ["KH", "QH", "9C", "9D", "9S", "2D", "4S", "6C"]]
    st = new(hands, stock=["5S", "3S", "3S"])
    play(st, "draw stock", "discard JH", "draw discard")
    for _ in range(2):
        play(st, "meld 9C", "takeback")
    assert not any(a.startswith("discard") for a in st.legal_actions())
    play(st, "meld 9C", "takeback")
    assert st.phase == "play" and "JH" in st.observation(1)["hand"]
    legal = st.legal_actions()
    assert "takeback" not in legal and {"meld 9C", "meld JH"} <= set(legal)
    assert set(legal) == finishable_actions(st)
    for _ in range(10):
        legal = st.legal_actions()
        assert "takeback" not in legal
        if all(a.startswith("discard") for a in legal):
            break
        st.apply(legal[0])
    assert any("JH" in m for m in table(st)) and "discard 2D" in st.legal_actions()


def test_j7_joker_ace_laid_off_at_the_free_end_of_a_two_to_king_run() -> None:
    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
    st = new([FILL, ["JK", "JK", *run]], stock=["5C", "2S", "3S"])
    play(
        st, "draw stock", "discard 5C", "draw stock", "meld 3H", "meld JK=2H", *[f"meld {c}" for c in run[1:]]
    )
    play(st, "confirm")
    assert "layoff JK=AH 1" in st.legal_actions()
    play(st, "layoff JK=AH 1")  # the low end is next to JK=2H (J7): it goes high
    assert table(st) == ["JK=2H " + " ".join(run) + " JK=AH"]
    assert st.invariant_violations() == []
    play(st, "discard 2S")
    assert [e["seat"] for e in events(st, "jokeren_nl.went_out")] == [1]


# --------------------------------------------------------------------- J2/J12, J16: the exact search
def repro_deal(discard: str = "TC", game: Game | None = None) -> State:
    """Issue 12 item 10's jokeren_nl repro, up to seat 0's discard (TC in the issue)."""
    hands = [["TC", "2C", "2D", "5S", "7C", "7D", "9H", "JH", "AS", "AD", "3H", "5H", "8S"],
             ["KH", "KS", "KC", "QH", "QS", "JK", "QD", "9C", "4S", "6H", "8D", "TS", "3C"]]
    rest = [TOKENS[c] for c in range(54) for _ in range(2)]
    for t in [tok for h in hands for tok in h] + ["5D", "4C"]:
        rest.remove(t)
    st = (game or load_game("jokeren_nl")).new_match(seed=0, players=2, deal={
        "dealer": 0, "upcard": None, "hands": hands, "stock": ["5D", "4C", *sorted(rest)]})
    play(st, "draw stock", "meld KH", "meld KS", "meld KC", "confirm", "meld QH", "meld QS", "meld JK=QD",
         "confirm", "discard 3C", "draw stock", f"discard {discard}")
    return st


def test_j2_draw_discard_is_judged_for_this_pile_not_remembered_from_another() -> None:
    # the search's memo is shared by every state of one game (ismcts's worlds too): the same hand
    # and table with 2C on the pile instead of TC must not reuse TC's answer (cardarena verify found
    # it on the demo: 'logged 2 legal actions but the engine has 1')
    game = load_game("jokeren_nl")
    assert "draw discard" in repro_deal("TC", game).legal_actions()
    assert repro_deal("2C", game).legal_actions() == repro_deal("2C").legal_actions() == ["draw stock"]


def test_j2_discard_usable_through_a_joker_freed_by_a_swap() -> None:
    # TC is usable: swap QD into meld 2 (QH QS JK=QD), then meld TC TS JK=TH
    st = repro_deal()
    assert st.legal_actions() == ["draw stock", "draw discard"]
    play(st, "draw discard", "swap QD 2", "meld TC", "meld TS", "meld JK=TH", "confirm")
    assert can_discard(st) and "TC" in " ".join(table(st))


def test_j16_layoff_of_a_freed_joker_judged_on_the_table_after_the_swap() -> None:
    # JK=JC QC KC AC (41): after 'swap JC 1' the joker can go to the low end (JK=TC), which J7
    # forbids on the table before the swap (a joker next to a joker)
    st = new([["QC", "KC", "AC", "JK", "JC", "2D", "4H", "6S", "8D"], FILL], stock=["9S", "3D", "KS"])
    play(st, "draw stock", "meld QC", "meld KC", "meld AC", "meld JK=JC", "confirm", "discard 9S")
    play(st, "draw stock", "discard 3D", "draw stock")
    assert "swap JC 1" in st.legal_actions()
    play(st, "swap JC 1", "layoff JK=TC 1")
    assert table(st) == ["JK=TC JC QC KC AC"] and can_discard(st)


def test_j2_exact_search_agrees_with_a_brute_force_oracle_on_small_hands() -> None:
    # random small positions: 'draw discard' is offered exactly when some sequence of the offered
    # table-play actions (searched exhaustively over the legal lists) ends the turn
    rng = random.Random(12)
    game = load_game("jokeren_nl")
    checked = 0
    for seed in range(400):
        if checked >= 12:
            break
        st = game.new_match(seed=seed, players=2)
        for _ in range(rng.randrange(20, 120)):
            if st.is_over():
                break
            st.apply(rng.choice(st.legal_actions()))
        if st.is_over() or st.phase != "draw" or not st.pile or not st.opened[st.turn]:  # type: ignore[attr-defined]
            continue
        if st.hands[st.turn].bit_count() > 7:  # type: ignore[attr-defined]
            continue
        after = st.clone()
        after._do_draw(after.turn, "discard")  # type: ignore[attr-defined]  # taken whether legal or not
        after._legal = None  # type: ignore[attr-defined]
        assert ("draw discard" in st.legal_actions()) == brute_force_can_end(after), seed
        checked += 1
    assert checked >= 5


def brute_force_can_end(st: State, depth: int = 0, seen: set[Any] | None = None) -> bool:
    """Oracle: any sequence of table-play actions (no take-back) reaching an offered discard."""
    seen = set() if seen is None else seen
    key = (st.hands[st.turn], st.must_use, tuple(m.text() for m in st.melds),  # type: ignore[attr-defined]
           tuple(map(str, st.building)))  # type: ignore[attr-defined]
    if key in seen:
        return False
    seen.add(key)
    st.takebacks = 0  # type: ignore[attr-defined]
    stuck = st.stuck  # type: ignore[attr-defined]
    acts = [a for a in st.legal_actions() if a != "takeback"]
    if st.stuck != stuck:  # type: ignore[attr-defined]
        return False  # the safety net's discards are no way to end the turn
    if any(a.startswith("discard") for a in acts):
        return True
    for a in acts:
        nxt = st.clone()
        nxt.apply(a)
        if brute_force_can_end(nxt, depth + 1, seen):
            return True
    return False


def test_j2_after_the_third_takeback_every_offered_action_leaves_the_turn_able_to_end() -> None:
    # TC taken (usable only through a swap): after three take-backs exactly the actions after
    # which the turn can still end are offered (revised turn 3), and playing any of them, here
    # always the first, reaches the discard
    st = repro_deal()
    play(st, "draw discard")
    for _ in range(3):
        play(st, "swap QD 2", "takeback")
    assert "TC" in st.observation(1)["hand"]
    assert set(st.legal_actions()) == finishable_actions(st)
    for _ in range(12):
        legal = st.legal_actions()
        assert "takeback" not in legal and legal
        if all(a.startswith("discard") for a in legal):
            break
        st.apply(legal[0])
    assert can_discard(st) and st.stuck == 0  # type: ignore[attr-defined]
    assert any("TC" in m for m in table(st))


def test_meld_protocol_after_the_third_takeback_exactly_the_finishable_actions_are_offered() -> None:
    # meld protocol (revised turn 3), checked by the brute-force oracle on random positions (open
    # and not yet open, taken discards that must be used), and after random offered plays from them
    compared = 0
    for opts in ({}, {"open50": True}):
        for seed, st in capped_positions("jokeren_nl", range(100), 14, 12, **opts):
            compared += check_capped_position(st, random.Random(seed))
    assert compared >= 40


def test_j2_j16_use_at_once_agrees_with_the_oracle_when_the_jokers_place_needs_a_natural_lay_off() -> None:
    # random positions: a swap (and a pick-up of the swapping card) is offered exactly when some line
    # ends the turn, in particular when the freed joker's only place opens after a natural is laid
    # off (J7: never two jokers side by side)
    rng = random.Random(21)
    seen = {True: 0, False: 0}
    for i in range(120):
        st, swap = joker_after_layoff_position("jokeren_nl", rng, from_pile=i % 2 == 1)
        act = "draw discard" if i % 2 else swap
        expected = oracle_can_end(oracle_after(st, act))
        assert (act in st.legal_actions()) == expected, (i, st.observation(0)["hand"], table(st))
        seen[expected] += 1
    assert seen[True] >= 20 and seen[False] >= 5


def test_j2_no_first_move_refusal_never_contradicts_the_exact_search() -> None:
    """J2: the cheap refusal before the exact "use it at once" search (no first move after the
    draw) is sound: wherever it refuses, the exact search finds no line either."""
    from engine.cards import BASE
    game = load_game("jokeren_nl")
    refused = searched = 0
    for seed in range(2):
        st: Any = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            seat = st.turn
            if st.phase == "draw" and st.pile and st.opened[seat] and BASE[st.pile[-1]] < 52:
                if st._no_first_move(seat, st.pile[-1]):
                    refused += 1
                    assert not st._usable_after(["draw discard"]), (seed, st.history[-4:])
                else:
                    searched += 1
            st.apply(rng.choice(st.legal_actions()))
    assert refused > 30 and searched > 10  # both sides of the refusal were exercised


# ------------------------------------------- J2, J6, J16: the freed joker's place after a lay-off
def s10_deal(seat0_draws_discard: bool) -> State:
    """Issue 21's S10 position: meld 1 ``JK=TS JS QS KS AS`` (seat 1), meld 2 ``7C 7D 7S JK=7H`` and
    meld 3 ``KC KD KH KS`` (seat 0); seat 1 has just discarded ``seat1_discard``.  Seat 0 holds
    ``9S`` (the low end of meld 1) and, once it draws, ``7H`` (the joker of meld 2): from the
    discard pile (S10, seat 1 discarded it) or from the stock (S11, seat 1 discarded 4C)."""
    hands = [["7C", "7D", "JK", "7S", "KC", "KD", "KH", "KS", "9S", "2C", "AD", "TD", "JC"],
             ["JK", "JS", "QS", "KS", "AS", "2D", "3D", "5H", "6C", "8D", "9C", "4D", "7H"]]
    # S10's stock begins 5C 3H 3C; S11's 5C 3H 4C 7H (seat 1 draws and discards 4C, seat 0 draws 7H)
    top = ["5C", "3H", "3C"] if seat0_draws_discard else ["5C", "3H", "4C", "7H"]
    rest = [TOKENS[c] for c in range(54) for _ in range(2)]
    for t in [tok for h in hands for tok in h] + top:
        rest.remove(t)
    st = load_game("jokeren_nl").new_match(seed=0, players=2, deal={
        "dealer": 0, "upcard": None, "hands": hands, "stock": [*top, *sorted(rest)]})
    play(st, "draw stock", "meld JS", "meld QS", "meld KS", "meld AS", "confirm", "discard 5C")
    play(st, "draw stock", "meld 7C", "meld 7D", "meld 7S", "meld JK=7H", "confirm",
         "meld KC", "meld KD", "meld KH", "meld KS", "confirm", "discard 3H")
    play(st, "draw stock", "layoff JK=TS 1", "discard 7H" if seat0_draws_discard else "discard 4C")
    assert table(st) == ["JK=TS JS QS KS AS", "7C 7D 7S JK=7H", "KC KD KH KS"]
    return st


def test_j2_pickup_usable_when_the_freed_jokers_place_needs_a_natural_laid_off_first() -> None:
    # S10: 7H is usable at once: swap 7H 2, lay off 9S onto meld 1, then the joker as 8S (JK=9S
    # would touch JK=TS, J7; meld 3 is full)
    st = s10_deal(seat0_draws_discard=True)
    assert st.legal_actions() == ["draw stock", "draw discard"]
    play(st, "draw discard", "swap 7H 2", "layoff 9S 1", "layoff JK=8S 1")
    assert table(st)[:2] == ["JK=8S 9S JK=TS JS QS KS AS", "7C 7D 7H 7S"] and can_discard(st)


def test_j16_swap_offered_when_the_freed_jokers_place_needs_a_natural_laid_off_first() -> None:
    # S11: 7H drawn from the stock; 'swap 7H 2' is legal at once (then 9S, then JK=8S)
    st = s10_deal(seat0_draws_discard=False)
    play(st, "draw stock")
    legal = st.legal_actions()
    assert "swap 7H 2" in legal and "layoff 9S 1" in legal
    play(st, "swap 7H 2")
    assert not can_discard(st)  # the joker is owed to the table
    assert "layoff 9S 1" in st.legal_actions()
    play(st, "layoff 9S 1", "layoff JK=8S 1")
    assert can_discard(st)


def test_j16_swap_legal_whichever_order_the_player_tries_lay_off_then_swap() -> None:
    # the legal set does not depend on the order: lay off 9S first, then the swap is offered too
    st = s10_deal(seat0_draws_discard=False)
    play(st, "draw stock", "layoff 9S 1")
    assert "swap 7H 2" in st.legal_actions()
