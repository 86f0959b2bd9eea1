"""Manille for 2-7 players (RULES.md 2.10, seed 003 L81-102): decisions Q1-Q6, the card's rule
events and the family's rule events (without partners)."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, finish_deal, hand_of, play

# three players: 10 cards each and a stock of 2
THREE = [
    ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7C", "TD", "AD"],  # seat 0, dealer
    ["7H", "8H", "9H", "JH", "QH", "KH", "AH", "TH", "7D", "8D"],  # seat 1, voorhand
    ["7S", "8S", "9S", "JS", "QS", "KS", "AS", "TS", "9D", "JD"],  # seat 2
]
STOCK = ["QD", "KD"]
FOUR = [
    ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7C"],
    ["7H", "8H", "9H", "JH", "QH", "KH", "AH", "TH"],
    ["7S", "8S", "9S", "JS", "QS", "KS", "AS", "TS"],
    ["7D", "8D", "9D", "JD", "QD", "KD", "AD", "TD"],
]


def new(hands: list[list[str]], stock: list[str] | None = None, dealer: int = 0, seed: int = 1,
        **options: Any) -> State:
    return gamekit.new("manille_2_7", hands, partial=False, seed=seed, options=options,
                       dealer=dealer, stock=stock or [])


def declared_deals(players: int, n: int) -> list[State]:
    """Single-deal matches where voorhand declares at once, then random play."""
    game = load_game("manille_2_7")
    out = []
    for seed in range(n):
        st = game.new_match(seed=seed, players=players, max_deals=1)
        st.apply("play")
        finish_deal(st, random.Random(seed))
        out.append(st)
    return out


# --------------------------------------------------------------------- Q1: contract
@pytest.mark.parametrize("players,need", [(2, 21), (3, 21), (4, 21), (5, 15), (6, 15), (7, 15)])
def test_q1_declarer_needs_21_up_to_four_players_else_15(players: int, need: int) -> None:
    for st in declared_deals(players, 25):
        obs = st.observation(0)
        assert obs["contract"] == need
        got = obs["points_won"][obs["declarer"]]
        made = events(st, "manille_2_7.contract_made")
        failed = events(st, "manille_2_7.contract_failed")
        assert len(made) + len(failed) == 1
        ev = (made or failed)[0]
        assert ev["target"] == need and ev["points"] == got
        assert bool(made) == (got >= need)


# --------------------------------------------------------------------- Q2: bidding
def test_q2_voorhand_first_and_the_first_play_wins() -> None:
    st = new(THREE, STOCK, dealer=0)
    assert st.phase == "bid" and st.current_player == 1
    assert sorted(st.legal_actions()) == ["pass", "play"]
    play(st, "pass")
    assert st.current_player == 2
    play(st, "play")
    assert [e["seat"] for e in events(st, "manille_2_7.declarer")] == [2]
    # the dealer no longer speaks: the declarer exchanges or names trump
    assert st.phase == "exchange" and st.current_player == 2
    assert st.observation(0)["bids"] == ["pass", "play"]


def test_q2_all_pass_the_next_dealer_deals() -> None:
    st = new(THREE, STOCK, dealer=0)
    play(st, "pass", "pass", "pass")
    ev = events(st, "manille_2_7.all_passed_redeal")
    assert [e["seat"] for e in ev] == [0]
    assert st.deal_no == 2 and st.observation(0)["dealer"] == 1 and st.current_player == 2
    assert st.score_sheet() == [[0.0, 0.0, 0.0]]
    st2 = load_game("manille_2_7").new_match(seed=1, players=3, max_deals=1,
                                               deal={"dealer": 0, "hands": THREE, "stock": STOCK})
    play(st2, "pass", "pass", "pass")
    assert st2.is_over() and st2.deal_no == 1  # the passed deal counts for max_deals


# --------------------------------------------------------------------- Q3: exchange
def test_q3_exchange_under_the_stock_up_to_its_size() -> None:
    st = new(THREE, STOCK, dealer=0)
    play(st, "play")  # voorhand seat 1 declares
    legal = st.legal_actions()
    assert {"trump C", "trump D", "trump H", "trump S"} <= set(legal)
    assert sorted(a for a in legal if a.startswith("discard")) == sorted("discard " + t for t in THREE[1])
    play(st, "discard 7H")  # 7H under the stock, QD taken
    assert "QD" in hand_of(st, 1) and "7H" not in hand_of(st, 1)
    assert st.observation(1)["under_stock"] == ["7H"] and "under_stock" not in st.observation(0)
    play(st, "discard 8H")  # KD taken
    assert "KD" in hand_of(st, 1)
    # the stock (2 cards) is used up: no more exchanges
    assert not any(a.startswith("discard") for a in st.legal_actions())
    with pytest.raises(IllegalAction, match="Q3"):
        st.apply("discard 9H")
    # the declarer knows his discards; the others do not
    assert not st.hidden_cards(1) & st.zones()["stock"]
    assert st.hidden_cards(0) & st.zones()["stock"] == st.zones()["stock"]
    play(st, "trump D")
    assert [e["n"] for e in events(st, "manille_2_7.exchanged")] == [2]
    assert [e["suit"] for e in events(st, "manille_2_7.trump_named")] == ["D"]


def test_q3_four_players_no_stock_no_exchange() -> None:
    st = new(FOUR, dealer=3)
    play(st, "play")
    assert sorted(st.legal_actions()) == ["trump C", "trump D", "trump H", "trump S"]
    with pytest.raises(IllegalAction):
        st.apply("trump none")


# --------------------------------------------------------------------- Q4: stakes
def test_q4_stakes_two_one_minus_two_and_first_to_ten() -> None:
    for players in (3, 4):
        for st in declared_deals(players, 30):
            decl = st.observation(0)["declarer"]
            made = bool(events(st, "manille_2_7.contract_made"))
            exchanged = bool(events(st, "manille_2_7.exchanged"))
            want = (1 if exchanged else 2) if made else -2
            row = st.score_sheet()[0]
            assert row[decl] == want and sum(row) == want
    game = load_game("manille_2_7", deal_limit=None)
    for seed in range(5):
        st = game.new_match(seed=seed, players=2)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        assert max(st.scores()) >= 10
        assert max(sum(r[s] for r in st.score_sheet()[:-1]) for s in range(2)) < 10


def test_q4_deal_limit_ends_a_losing_match() -> None:
    st = load_game("manille_2_7", deal_limit=5).new_match(seed=1, players=5)
    rng = random.Random(1)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert st.deal_no <= 5
    if max(st.scores()) < 10:
        assert events(st, "manille_2_7.deal_limit_reached") and st.deal_no == 5


def test_q4_exchange_made_scores_one() -> None:
    # seat 1 declares with all the hearts, exchanges once and names hearts: 8 tricks certain?
    st = new(THREE, STOCK, dealer=0)
    play(st, "play", "discard 7D", "trump H")
    finish_deal(st, random.Random(0))
    made = events(st, "manille_2_7.contract_made")
    if made:
        assert st.score_sheet()[0][1] == 1.0
    else:
        assert st.score_sheet()[0][1] == -2.0


# --------------------------------------------------------------------- Q5: lead
def test_q5_voorhand_leads_even_when_not_declarer() -> None:
    st = new(THREE, STOCK, dealer=0)
    play(st, "pass", "play", "trump S")
    assert st.phase == "play" and st.current_player == 1  # voorhand, not the declarer (2)


# --------------------------------------------------------------------- Q6: two players
def test_q6_two_players_sixteen_each_no_exchange_need_21() -> None:
    for seed in range(5):
        st = load_game("manille_2_7").new_match(seed=seed, players=2)
        assert [len(hand_of(st, s)) for s in range(2)] == [16, 16]
        assert st.zones()["stock"] == 0
        play(st, "play")
        assert sorted(st.legal_actions()) == ["trump C", "trump D", "trump H", "trump S"]
        assert st.observation(0)["contract"] == 21


@pytest.mark.parametrize("players,hand,stock", [(3, 10, 2), (4, 8, 0), (5, 6, 2), (6, 5, 2), (7, 4, 4)])
def test_deal_sizes(players: int, hand: int, stock: int) -> None:
    st = load_game("manille_2_7").new_match(seed=players, players=players)
    assert [len(hand_of(st, s)) for s in range(players)] == [hand] * players
    assert st.observation(0)["stock_size"] == stock


# --------------------------------------------------------------------- the play rule
def test_no_partner_exemption_always_beat_the_winning_card() -> None:
    hands = [
        ["9C", "QC", "JC", "8C", "TS", "KH", "7H", "8H"],
        ["9H", "JH", "QH", "AH", "TH", "7S", "8S", "9S"],  # no clubs, no diamonds
        ["KC", "7C", "AC", "TC", "JS", "QS", "KS", "AS"],
        FOUR[3],  # every diamond
    ]
    st = new(hands, dealer=3)  # voorhand seat 0
    play(st, "play", "trump D", "play 9C", "play 7S")
    # seat 2 sits opposite seat 0, whose 9C wins: no partners here, he must beat it
    assert sorted(st.legal_actions()) == ["play AC", "play KC", "play TC"]
    with pytest.raises(IllegalAction, match="beat the winning card"):
        st.apply("play 7C")
    play(st, "play KC")
    assert [e["seat"] for e in events(st, "manille_2_7.overtake_forced")] == [2]
    # seat 3, void in clubs, holds only trumps (all win): any of them
    assert len(st.legal_actions()) == 8
    play(st, "play 7D")
    assert st.current_player == 3  # the trump took the trick
    assert not any(e["event"].endswith("partner_exemption_used") for e in st.events)


OVERTRUMP_HANDS = [
    ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7D"],  # seat 0: one low trump
    ["7H", "8H", "9H", "JH", "QH", "KH", "AH", "TH"],
    ["7S", "8S", "9S", "JS", "QS", "KS", "AS", "TS"],
    ["7C", "8D", "9D", "JD", "QD", "KD", "AD", "TD"],
]


def test_family_void_no_winning_trump_any_card_and_option_no_losing_trump() -> None:
    """RULES.md "Manille family, void with an opponent winning and no trump that wins" (revised
    turn 2): seed 003 L98 "dan mag je bijgooien wat je wilt", a losing trump included."""
    st = new(OVERTRUMP_HANDS, dealer=0)
    play(st, "pass", "pass", "play", "trump D", "play AH", "play 7S", "play TD")
    # seat 0, void in hearts, his 7D cannot beat TD: any card, the 7D too
    assert sorted(st.legal_actions()) == sorted("play " + t for t in OVERTRUMP_HANDS[0])
    play(st, "play 7D")
    assert not events(st, "manille_2_7.undertrump_blocked")
    assert st.current_player == 3  # TD took the trick
    st = new(OVERTRUMP_HANDS, dealer=0, no_losing_trump=True)
    play(st, "pass", "pass", "play", "trump D", "play AH", "play 7S", "play TD")
    with pytest.raises(IllegalAction, match="no losing trump"):
        st.apply("play 7D")


def test_overtrump_and_undertrump_events() -> None:
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7D"],  # seat 0: one low trump
        ["7H", "8H", "9H", "JH", "QH", "KH", "AH", "TH"],
        ["7S", "8S", "9S", "JS", "QS", "KS", "AS", "TS"],
        ["7C", "8D", "9D", "JD", "QD", "KD", "AD", "TD"],
    ]
    st = new(hands, dealer=0, no_losing_trump=True)  # voorhand seat 1
    play(st, "pass", "pass", "play", "trump D")  # seat 3 declares diamonds
    play(st, "play AH")
    # seat 2, void in hearts, no trump: anything
    play(st, "play 7S")
    # seat 3, void in hearts: must trump with a winning trump; he also holds 7C: narrowed
    assert all(a.endswith("D") for a in st.legal_actions())
    play(st, "play TD")
    assert [e["seat"] for e in events(st, "manille_2_7.overtrump_forced")] == [3]
    # seat 0, void in hearts, his 7D cannot beat TD: no losing trump
    assert "play 7D" not in st.legal_actions()
    play(st, "play 8C")
    assert [e["seat"] for e in events(st, "manille_2_7.undertrump_blocked")] == [0]


def test_points_per_deal_invariant() -> None:
    for players in (2, 3, 4, 5, 7):
        for st in declared_deals(players, 8):
            obs = st.observation(0)
            tricks = 32 // players
            stock_pts = sum({"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1}.get(TOKENS[c][0], 0)
                            for c in cards_of(st.zones()["stock"]))
            assert sum(obs["points_won"]) + stock_pts == 60 + tricks
            assert not st.invariant_violations()
            if players == 4:
                assert sum(obs["points_won"]) == 68
            ev = events(st, "manille_2_7.trick_point_awarded")
            assert sum(ev[0]["tricks"]) == tricks


def test_determinize_keeps_the_stock_order_known_to_the_declarer() -> None:
    st = new(THREE, STOCK, dealer=0)
    play(st, "play", "discard 7H", "trump H", "play AH")
    for k in range(10):
        d = st.determinize(1, random.Random(k))
        assert hand_of(d, 1) == hand_of(st, 1)
        assert d.observation(1)["under_stock"] == ["7H"]
        assert len(hand_of(d, 0)) == len(hand_of(st, 0)) == 10
        d2 = st.determinize(0, random.Random(k))
        assert hand_of(d2, 0) == hand_of(st, 0) and d2.zones()["stock"].bit_count() == 2


def test_injected_deal_checks_the_stock() -> None:
    with pytest.raises(ValueError, match="stock"):
        new(THREE, ["QD"])
