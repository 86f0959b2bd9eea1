"""Honderden, three players (RULES.md 2.19, seed 003 L417-434): decisions HT1-HT9 and the card's
rule events, on injected deals."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, card
from engine.games.jass._honderden import DECK32, HonderdenState
from tests import gamekit
from tests.gamekit import play
from tests.gamekit import plays as plays_only

# dealer 0, voorhand 1, then 2; the dealer's last card 9H is trump; seat 0 holds Stuk (KH QH).
# Melds: seat 1 QS JS TS (3 on the queen), seat 2 AD KD QD and seat 0 AC KC QC (3 on the ace).
S0 = ["AC", "KC", "QC", "AS", "JD", "QH", "KH", "9H"]
S1 = ["QS", "JS", "TS", "9C", "TC", "AH", "9D", "TD"]
S2 = ["AD", "KD", "QD", "9S", "JC", "TH", "JH", "KS"]


def new(hands: list[list[str]] | None = None, dealer: int = 0, seed: int = 1,
        trump_card: str | None = None, **options: Any) -> HonderdenState:
    deal: dict[str, Any] = {"dealer": dealer}
    if trump_card:
        deal["trump_card"] = trump_card
    st = gamekit.new("honderden_3p", hands or [S0, S1, S2], partial=False, seed=seed, options=options, **deal)
    assert isinstance(st, HonderdenState)
    return st


def events(state: State, name: str) -> list[dict[str, Any]]:
    return gamekit.events(state, name, "honderden_3p.")


def to_last_card(state: HonderdenState) -> None:
    while sum(h.bit_count() for h in state.hands) > 1:
        state.apply(plays_only(state)[0])


def last_trick_gain(state: HonderdenState) -> list[int]:
    probe = state.clone()
    assert isinstance(probe, HonderdenState)
    probe.apply(plays_only(probe)[0])
    return [probe.results[-1][s] - state.total[s] for s in range(3)]


# ------------------------------------------------------------------------------ decisions
def test_ht1_doubled_only_if_both_others_under_50() -> None:
    for others, gp in (((30, 40), 2), ((30, 60), 1)):
        st = new()
        play(st, "play 9C", "play JC")
        st.total = [100, *others]
        st.apply("declare dek")
        assert st.scores() == [float(gp), 0.0, 0.0]
        assert bool(events(st, "double_both_under_jan")) == (gp == 2)


def test_ht2_without_stuk_no_early_end_the_highest_above_100_wins() -> None:
    st = new()
    st.total[1] = 120
    assert "declare dek" not in st.legal_actions()  # seat 1 has no Stuk
    to_last_card(st)
    gain = last_trick_gain(st)
    st.total = [60 - gain[0], 120 - gain[1], 10 - gain[2]]
    st.apply(plays_only(st)[0])
    assert st.scores()[1] >= 1 and st.deal_no == 2


def test_ht3_dek_offered_to_the_stuk_holder_and_counts_its_20() -> None:
    st = new()
    assert "declare dek" not in st.legal_actions()
    play(st, "play 9C")
    assert "declare dek" not in st.legal_actions()
    play(st, "play JC")
    assert "declare dek" in st.legal_actions()  # seat 0 holds KH QH
    st.total[0] = 80
    st.apply("declare dek")
    ev = events(st, "dek_via_stuk")[0]
    assert ev["seat"] == 0 and ev["correct"] is True and ev["total"] == 100
    assert st.scores()[0] >= 1


def test_ht3_dek_with_stuk_in_hand_announces_it() -> None:
    st = new([["JC", "9D", "AH", "KH", "JH", "9C", "QD", "TH"],
              ["9S", "TS", "AC", "JS", "TD", "AD", "QS", "KS"],
              ["TC", "AS", "KC", "9H", "QH", "KD", "JD", "QC"]], dealer=2, trump_card="QC")
    play(st, "play JH", "play KS", "play QH", "play AS", "play AH", "play QS")
    assert st.total[2] == 30 and st.hands[2] & (1 << card("KC")) and st.hands[2] & (1 << card("QC"))
    play(st, "declare dek")
    [stuk] = events(st, "stuk")
    assert stuk["seat"] == 2
    [dek] = events(st, "dek_via_stuk")
    assert dek["correct"] is False and dek["total"] == 50
    # wrong: the deal goes to seat 0; the claimer's 50 (with the Stuk) is not under jan, seat 1 is
    assert [e["seat"] for e in events(st, "onder_jan")] == [1]
    assert st.scores() == [1.0, 0.0, 0.0]


def test_ht3_every_dek_counts_the_stuk_once_in_random_deals() -> None:
    game = load_game("honderden_3p")
    deks = 0
    for seed in range(150):
        st = game.new_match(seed=seed, max_deals=1)
        assert isinstance(st, HonderdenState)
        rng = random.Random(seed)
        while not st.is_over():
            legal = st.legal_actions()
            if "declare dek" in legal and rng.random() < 0.5:
                seat = st.current_player
                before = st.total[seat]
                had_stuk = st.stuk_seat == seat
                st.apply("declare dek")
                deks += 1
                [dek] = [e for e in events(st, "dek_via_stuk") if e["ply"] == len(st.history) - 1]
                assert dek["total"] == before + (0 if had_stuk else 20)
                assert [e["seat"] for e in events(st, "stuk")] == [seat]
                under = {e["seat"] for e in events(st, "onder_jan")}
                assert (seat in under) == (dek["total"] < 50 and not dek["correct"])
                continue
            st.apply(rng.choice([a for a in legal if a != "declare dek"]))
    assert deks > 20


def test_ht4_first_to_five_or_elimination_then_two_player_rules() -> None:
    game = load_game("honderden_3p")
    st = game.new_match(seed=4)
    rng = random.Random(4)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert max(st.scores()) >= 5
    game = load_game("honderden_3p", elimination=True, lives=2)
    for seed in range(40):
        st = game.new_match(seed=seed)
        assert isinstance(st, HonderdenState)
        rng = random.Random(seed)
        while not st.is_over() and not events(st, "switch_to_2p"):
            st.apply(rng.choice(st.legal_actions()))
        if events(st, "switch_to_2p") and not st.is_over():
            assert len(st.act) == 2 and not st.three and st.deck_mask == DECK32
            assert sum(h.bit_count() for h in st.hands) == 18 and len(st.stock) == 13
            out = next(s for s in range(3) if s not in st.act)
            assert st.hands[out] == 0 and st.lives[out] <= 0
            while not st.is_over():
                st.apply(rng.choice(st.legal_actions()))
            assert st.ranking()[out] == 3
            return
    pytest.fail("no elimination match reached two players")


def test_ht5_later_declarer_rejects_every_earlier_declaration_it_beats() -> None:
    st = new()
    play(st, "declare QS JS TS", "play 9C", "declare AD KD QD", "play JC", "declare AC KC QC", "play AC")
    # seat 2's 3 on the ace beats seat 1's 3 on the queen; seat 0's equal meld leaves seat 2's
    assert [(e["seat"], e["by"]) for e in events(st, "meld_rejected")] == [(1, 2)]
    assert st.total[2] == 20 and st.total[1] == 0
    assert st.total[0] == 20 + 11 + 1  # his meld, and the trick AC + JC (9C is worth 0)


def test_ht6_wrong_dek_goes_to_the_higher_other_equal_next_in_order() -> None:
    st = new()
    play(st, "play 9C", "play JC")
    st.total = [55, 30, 60]  # 55 + 20 < 100: wrong; seat 2 is higher than seat 1
    st.apply("declare dek")
    assert st.scores() == [0.0, 0.0, 1.0]
    st = new()
    play(st, "play 9C", "play JC")
    st.apply("declare dek")  # all at 0: the next after the claimer (seat 0) is seat 1
    assert events(st, "dek_via_stuk")[0]["correct"] is False
    assert st.scores() == [0.0, 2.0, 0.0]


def test_ht7_pit_only_in_a_first_deal() -> None:
    for carried, name, gp in (([0, 0, 0], "honderden_3p.pit", 3),
                              ([60, 60, 60], "honderden_3p.pit_first_deal_only", 1)):
        st = new()
        st.carried = list(carried)
        st.total = list(carried)
        to_last_card(st)
        gain = last_trick_gain(st)
        w = max(range(3), key=lambda s: gain[s])
        st.tricks_won = [0, 0, 0]
        st.tricks_won[w] = st.ntricks
        st.total = [c for c in carried]
        st.total[w] = 140
        st.apply(plays_only(st)[0])
        assert [e["seat"] for e in st.events if e["event"] == name] == [w]
        assert st.scores()[w] == float(gp)


def test_ht8_trump_card_is_the_dealers_last_and_known_to_all() -> None:
    st = new()
    assert st.trump == 2  # hearts: 9H is seat 0's last listed card
    assert st.observation(1)["known_cards"] == {"0": ["9H"]}
    assert not st.hidden_cards(1) >> card("9H") & 1
    st = new(trump_card="AS")
    assert st.trump == 3 and st.observation(2)["trump"] == "S"
    with pytest.raises(ValueError, match="trump_card"):
        new(trump_card="AD")
    assert not [a for a in st.legal_actions() if a.startswith("swap")]  # no trump-7 swap


def test_ht9_void_any_card_holding_follow_or_trump() -> None:
    s1 = ["QS", "JS", "TS", "9C", "TC", "AH", "9S", "KS"]
    s2 = ["AD", "KD", "QD", "9D", "TD", "JC", "TH", "JH"]
    st = new([S0, s1, s2])
    play(st, "play 9S")
    assert sorted(plays_only(st)) == sorted("play " + t for t in s2)  # void in spades: anything
    play(st, "play JC")
    assert sorted(plays_only(st)) == ["play 9H", "play AS", "play KH", "play QH"]  # spade or trump
    with pytest.raises(IllegalAction, match="follow suit or trump"):
        st.apply("play AC")
    st = new([S0, s1, s2])
    play(st, "play AH")  # trump led: a trump if you have one, no duty to overtrump
    assert sorted(plays_only(st)) == ["play JH", "play TH"]


# ------------------------------------------------------------------------------ events
def test_event_names_and_invariants() -> None:
    names = {f"honderden_3p.{e}" for e in (
        "trump7_swap", "meld_announced", "meld_rejected", "stuk", "last_stock_choice", "phase_change",
        "ik_dek", "meld_100_deal_win", "carry_over", "onder_jan", "pit", "op_de_kip", "tie_replay",
        "dek_via_stuk", "double_both_under_jan", "pit_first_deal_only", "switch_to_2p")}
    seen: set[str] = set()
    for opts in ({}, {"elimination": True}):
        game = load_game("honderden_3p", **opts)
        for seed in range(60):
            st = game.new_match(seed=seed)
            rng = random.Random(seed)
            while not st.is_over():
                seat = st.current_player
                assert seat is not None
                if seed < 5:
                    assert not st.invariant_violations()
                    d = st.determinize(seat, random.Random(seed))
                    assert not d.invariant_violations()
                st.apply(rng.choice(st.legal_actions()))
            seen |= {e["event"] for e in st.events}
    assert seen <= names
    assert {"honderden_3p.dek_via_stuk", "honderden_3p.double_both_under_jan",
            "honderden_3p.switch_to_2p", "honderden_3p.carry_over", "honderden_3p.stuk"} <= seen
    assert TOKENS[card("9H")] == "9H"


def test_a_declaration_on_a_clone_never_reaches_the_original() -> None:
    """Issue 21 §1: a clone shared the per-declaration meld lists (``decls``), so a carre declared
    on a clone was scored in the original (a second game point, a second meld in every view)."""
    deal = {"dealer": 2, "hands": [["QS", "QH", "QD", "QC", "JS", "JH", "JD", "JC"],
                                   ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC"],
                                   ["TS", "TH", "TD", "TC", "9S", "9H", "9D", "9C"]]}
    s = load_game("honderden_3p").new_match(seed=1, players=3, max_deals=1, deal=deal)
    s.apply("declare QC QD QH QS")
    c = s.clone()
    c.apply("declare JC JD JH JS")
    assert "declare JC JD JH JS" in s.legal_actions()
    for a in ("play QS", "play AS", "play TS"):
        s.apply(a)
    wins = [e for e in s.events if e["event"] == "honderden_3p.meld_100_deal_win"]
    assert [e["cards"] for e in wins] == [["QC", "QD", "QH", "QS"]]
    assert s.scores() == [1, 0, 0]
    assert len(s.observation(1)["declarations"]) == 1
