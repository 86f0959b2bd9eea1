"""Schutjassen (RULES.md 2.12, seed 003 L149-166 with Kruisjassen): decisions S1-S10 and the card's
rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.gamekit import events as ev
from tests.gamekit import first_play, play
from tests.games.test_kruisjassen import CARRES, MIX, PIT, _k6_legal

G = "schutjassen"


def new(hands: list[list[str]], dealer: int = 0, seed: int = 1, **options: Any) -> State:
    return gamekit.new(G, hands, partial=False, dealer=dealer, seed=seed, options=options)


def first_card(state: State) -> None:
    state.apply(first_play(state))


def finish_deal(state: State) -> None:
    gamekit.play_deal_out(state, first_play)


def random_matches(n: int, **options: Any) -> list[State]:
    return gamekit.random_matches(G, n, **options)


def test_s1_one_bidding_round_first_schut_fixes_the_side() -> None:
    st = new(MIX)
    assert st.phase == "bid" and st.current_player == 1
    assert st.legal_actions() == ["pass", "declare schut"]
    play(st, "pass", "declare schut")
    [s] = ev(st, "schutjassen.schut")
    assert s["seat"] == 2 and s["side"] == 0
    assert st.phase == "meld" and st.current_player == 1  # the meld round from voorhand
    assert st.observation(0)["schut_side"] == 0


def test_s8_nobody_says_schut_same_dealer_redeals() -> None:
    st = new(MIX, dealer=2)
    play(st, "pass", "pass", "pass", "pass")
    assert ev(st, "schutjassen.no_schut_redeal")
    assert st.deal_no == 2 and st.observation(0)["dealer"] == 2
    assert st.score_sheet() == [[0.0, 0.0, 0.0, 0.0]]
    st = load_game(G).new_match(seed=3, max_deals=1, deal={"dealer": 0, "hands": MIX})
    play(st, "pass", "pass", "pass", "pass")
    assert st.is_over()  # the passed deal counts as a deal played


def test_s2_herschut_by_a_defender_then_one_schutter_decision() -> None:
    st = new(MIX)
    play(st, "declare schut", "pass", "pass", "pass", "pass")  # seat 1 (side 1) schuts; no melds
    assert st.current_player == 1
    assert "declare herschut" not in st.legal_actions()  # seat 1 is a Schutter
    play(st, "play 7C")
    assert "declare herschut" in st.legal_actions() and "declare concede" in st.legal_actions()
    play(st, "declare herschut")
    [h] = ev(st, "schutjassen.herschut")
    assert h["seat"] == 2 and h["trick_no"] == 1
    assert st.current_player == 2  # Herschut does not use up the turn
    assert "declare herschut" not in st.legal_actions()
    play(st, "play 9C")
    assert sorted(a for a in st.legal_actions() if a.startswith("declare")) == [
        "declare concede", "declare tout"]
    play(st, "play 8S")  # plays on: the decision is spent
    play(st, "play KC")
    first_card(st)
    assert not any(a.startswith("declare") for a in st.legal_actions())


def test_s2_no_herschut_once_the_last_trick_started() -> None:
    st = new(PIT)
    play(st, "declare schut", "pass", "pass", "pass", "pass")
    for _ in range(7 * 4):
        first_card(st)
    assert st.current_player == 0 and "declare herschut" in st.legal_actions()  # 8th trick not begun
    first_card(st)
    assert "declare herschut" not in st.legal_actions()


def test_s3_tout_lost_goes_to_the_herschutters() -> None:
    st = new(PIT)
    play(st, "declare schut", "pass", "pass", "pass", "pass")  # seat 1 (side 1) schuts
    play(st, "play 7C", "declare herschut", "play 7D", "declare tout")
    assert ev(st, "schutjassen.tout")
    assert "declare concede" not in st.legal_actions()  # after Tout nobody concedes or bids
    finish_deal(st)
    [f] = ev(st, "schutjassen.contract_failed")
    assert f["side"] == 1 and f["winner"] == 0 and f["value"] == 900
    extras = 100 * sum(1 for e in ev(st, "schutjassen.trick_meld_claimed") if e["value"] >= 100)
    assert st.score_sheet()[0] == [900.0 + extras, 0.0, 900.0 + extras, 0.0]


def test_s4_each_deal_settled_on_its_own() -> None:
    st = new(MIX)
    play(st, "declare schut", "pass", "pass", "pass", "pass")
    play(st, "play 7C", "declare concede")
    assert st.deal_no == 2
    assert st.observation(0)["running_totals"] == [0, 0]
    assert "carry_over" not in st.observation(0)


def test_s5_melds_under_100_count_toward_the_contract() -> None:
    st = new(MIX)
    play(st, "declare schut", "declare QS JS TS", "pass", "pass", "pass")
    assert st.observation(0)["running_totals"] == [0, 20]
    st = new(CARRES)
    play(st, "declare schut", "declare JS JH JD JC", "pass", "pass", "pass")
    assert ev(st, "schutjassen.meld_100_extra_hand")
    assert st.observation(0)["running_totals"] == [0, 0] and st.scores()[1] == 100.0


def test_s6_match_to_1100() -> None:
    assert load_game(G).options["target"] == 1100
    for st in random_matches(15):
        assert max(st.scores()) >= 1100
        sc = st.scores()
        assert sc[0] == sc[2] and sc[1] == sc[3]
        assert [sum(r[s] for r in st.score_sheet()) for s in range(4)] == sc


def test_s7_concessions() -> None:
    st = new(MIX)
    play(st, "declare schut", "pass", "pass", "pass", "pass", "play 7C", "declare concede")
    [c] = ev(st, "schutjassen.conceded")
    assert c["side"] == 0 and st.score_sheet()[0] == [0.0, 100.0, 0.0, 100.0]
    st = new(MIX)
    play(st, "declare schut", "pass", "pass", "pass", "pass", "play 7C", "declare herschut", "play 9C")
    assert "declare concede" in st.legal_actions()
    play(st, "declare concede")
    assert ev(st, "schutjassen.conceded")[0]["side"] == 1
    assert st.score_sheet()[0] == [300.0, 0.0, 300.0, 0.0]
    st = new(MIX)
    play(st, "declare schut", "pass", "pass", "pass", "pass", "play 7C", "declare herschut")
    with pytest.raises(IllegalAction):
        st.apply("declare concede")  # after Herschut only the Schutters may concede


def test_s9_contract_made_ends_the_deal_at_once_no_pit() -> None:
    st = new(MIX)
    play(st, "pass", "declare schut")  # seat 2: side 0
    play(st, "declare QS JS TS", "declare QD JD TD 9D", "pass", "declare KC QC JC TC")
    assert st.observation(0)["running_totals"] == [100, 0]
    play(st, "play 7C", "play 9C", "play 8S", "play KC")  # side 0 takes trick 1: made at once
    [m] = ev(st, "schutjassen.contract_made")
    assert m["side"] == 0 and m["value"] == 300
    [j] = ev(st, "schutjassen.under_jan")
    assert j["side"] == 1 and j["points"] == 0
    assert st.deal_no == 2 and st.score_sheet()[0] == [300.0, 0.0, 300.0, 0.0]


def test_s9_failed_contract_onder_jan() -> None:
    st = new(PIT)
    play(st, "declare schut", "pass", "pass", "pass", "pass")  # side 1 cannot take a trick
    finish_deal(st)
    [f] = ev(st, "schutjassen.contract_failed")
    assert f["side"] == 1 and f["winner"] == 0 and f["value"] == 200
    assert ev(st, "schutjassen.under_jan")[0]["side"] == 1


def test_s10_herschut_at_100_wins_at_once() -> None:
    st = new(MIX)
    play(st, "declare schut", "declare QS JS TS", "declare QD JD TD 9D", "pass", "declare KC QC JC TC")
    assert st.observation(0)["running_totals"] == [100, 0]
    play(st, "play 7C", "declare herschut")
    [m] = ev(st, "schutjassen.contract_made")
    assert m["side"] == 0 and m["value"] == 500  # the Schutters are under 50
    assert st.deal_no == 2


def test_herschut_failed_gives_the_schutters_500() -> None:
    found = 0
    for st in random_matches(40):
        for e in ev(st, "schutjassen.contract_failed"):
            if e["value"] == 500:
                found += 1
                assert e["winner"] != e["side"]
    assert found


def test_k6_only_trumps_must_overtrump_in_schutjassen_too() -> None:
    """Schutjassen plays Kruisjassen's trick duties (the shared _jass.KRUISJAS_RULE): every legal
    set in random matches is K6/K7 written out, trump-hoarding players included."""
    checked = bites = 0
    for seed in range(30):
        st = load_game(G, target=300).new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            legal = st.legal_actions()
            cards = {a[5:] for a in legal if a.startswith("play ")}
            if st.phase == "play" and cards:
                obs = st.observation(st.current_player)
                trump, trick, hand = obs["trump"], [t for _, t in obs["trick"]], set(obs["hand"])
                if trick:
                    want = _k6_legal(hand, trick, trump)
                    assert cards == want, (obs, trick)
                    checked += 1
                    bites += want != hand and all(c[1] == trump for c in hand)
                plain = [a for a in legal if a.startswith("play ") and a[-1] != trump]
                if plain and (not any(t[1] == trump for t in trick) or rng.random() < 0.5):
                    st.apply(rng.choice(plain))
                    continue
            st.apply(rng.choice(legal))
    assert checked > 500 and bites >= 3
