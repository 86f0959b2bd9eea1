"""Klop / Bela, 3 players (RULES.md 2.16, seed 003 L318-320): decisions KT1-KT5 and the three-hand
deal, bidding and play (the rest of KB1-KB16 is pinned in test_klop_bela.py on the same code)."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, hand_of, play
from tests.games.test_klop_bela import deal, plays

G = "klop_bela_3p"

# Dealer 0; voorhand 1, then 2.  Seat 0 holds TC-QC, seat 2 TD-QD (equal sequences); 4 cards out.
EQUAL = [
    ["QC", "JC", "TC", "7D", "9D", "7S", "9S", "KS", "8H"],
    ["AC", "8C", "AD", "KD", "AS", "JS", "9H", "7H", "QH"],
    ["QD", "JD", "TD", "7C", "9C", "8S", "TS", "KH", "TH"],
]
# Seat 0 void in diamonds with one low trump; seat 2 void in diamonds with several hearts.
RUFF = [
    ["8H", "7C", "9C", "JC", "KC", "7S", "9S", "JS", "KS"],
    ["AD", "7D", "9D", "AH", "QH", "AC", "QC", "AS", "QS"],
    ["KH", "TH", "9H", "8C", "TC", "8S", "TS", "7H", "JH"],
]


def new(hands9: list[list[str]], upcard: str, dealer: int = 0, seed: int = 1, **options: Any) -> State:
    return gamekit.from_deal(G, deal(hands9, upcard, dealer), seed=seed, options=options)


def first_trick_sequence(hands: list[list[str]], upcard: str) -> list[tuple[int, int]]:
    st = new(hands, upcard)
    play(st, "trump " + upcard[1])
    while st.phase != "play":
        play(st, "pass")
    for _ in range(3):
        play(st, plays(st)[0])
    return [(e["seat"], e["points"]) for e in events(st, f"{G}.sequence_meld")]


def single_deals(n: int, **options: Any) -> list[State]:
    game = load_game(G, **options)
    out = []
    for seed in range(n):
        st = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice([a for a in st.legal_actions() if a != "declare claim"]))
        out.append(st)
    return out


# --------------------------------------------------------------------- deal, bidding, play
def test_three_hands_of_nine_four_cards_out_clockwise_bidding() -> None:
    st = new(EQUAL, "AH")
    assert st.current_player == 1 and [len(hand_of(st, s)) for s in range(3)] == [6, 6, 6]
    play(st, "pass")
    assert st.current_player == 2
    play(st, "pass")
    assert st.current_player == 0
    play(st, "pass")
    assert [len(hand_of(st, s)) for s in range(3)] == [9, 9, 9]
    assert st.zones()["stock"].bit_count() == 4 and st.current_player == 1
    assert [e["seat"] for e in events(st, f"{G}.pass")] == [1, 2, 0]
    play(st, "pass", "pass", "pass")
    assert events(st, f"{G}.redeal_all_pass") and st.deal_no == 2


def test_kb11_three_players_ruff_any_trump_even_under() -> None:
    st = new(RUFF, "KD")
    play(st, "pass", "pass", "pass", "trump H")
    assert [(e["seat"], e["suit"]) for e in events(st, f"{G}.second_round_trump")] == [(1, "H")]
    play(st, "play AD")
    assert plays(st) == ["play 7H", "play 9H", "play JH", "play KH", "play TH"]  # void: any trump
    play(st, "play 9H")
    assert st.legal_actions() == ["play 8H"]  # void: trump, although the 8 loses to the 9
    with pytest.raises(IllegalAction):
        st.apply("play 7C")


# --------------------------------------------------------------------- KT2, KT4: sequences
def test_kt2_best_sequence_among_all_three() -> None:
    hands = [list(h) for h in EQUAL]
    hands[1][3], hands[2][3] = "7C", "KD"  # seat 2: TD-KD, four cards
    assert first_trick_sequence(hands, "AH") == [(2, 50)]
    assert first_trick_sequence(hands, "KC") == [(2, 50)]  # length before trump


def test_kt4_equal_sequences_go_to_the_earlier_from_voorhand() -> None:
    assert first_trick_sequence(EQUAL, "AH") == [(2, 20)]  # seat 2 plays before seat 0
    assert first_trick_sequence(EQUAL, "KC") == [(0, 20)]  # ... unless seat 0's is in trump


# --------------------------------------------------------------------- KT1, KT3, KT4: scoring
def test_kt1_each_defender_own_points_maker_wet_to_the_higher() -> None:
    wet = split = 0
    for st in single_deals(400):
        row = st.score_sheet()[0]
        ev = events(st, f"{G}.maker_wet")
        if not ev:
            continue
        wet += 1
        mk, tot, to = ev[0]["seat"], ev[0]["totals"], ev[0]["to"]
        defenders = [s for s in range(3) if s != mk]
        assert row[mk] == 0 and max(tot[d] for d in defenders) >= tot[mk]
        for d in defenders:
            bonus = tot[mk] // len(to) if d in to else 0  # tie: split, rounded down
            assert row[d] == tot[d] + bonus
        if len(to) == 2:
            split += 1
    assert wet and split


def test_kt1_maker_must_beat_each_defender() -> None:
    made = 0
    for st in single_deals(200):
        if events(st, f"{G}.maker_wet") or events(st, f"{G}.redeal_all_pass"):
            continue
        row = st.score_sheet()[0]
        mk = st.observation(0)["maker"]
        assert all(row[mk] > row[d] for d in range(3) if d != mk)
        made += 1
    assert made


def test_kt3_winner_deals_next_and_kt4_tied_defenders() -> None:
    seen_made = seen_tie = 0
    game = load_game(G)
    for seed in range(3000):
        if seen_made and seen_tie:
            break
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while st.deal_no == 1 and not st.is_over():
            st.apply(rng.choice([a for a in st.legal_actions() if a != "declare claim"]))
        if st.is_over() or events(st, f"{G}.redeal_all_pass"):
            continue
        dealer = st.observation(0)["dealer"]
        ev = events(st, f"{G}.maker_wet")
        if not ev:
            made = (f"{G}.accept", f"{G}.second_round_trump")
            maker = next(e["seat"] for e in st.events if e["event"] in made)
            assert dealer == maker
            seen_made += 1
        else:
            assert dealer == ev[0]["to"][0]
            if len(ev[0]["to"]) == 2:  # KT4: tied defenders, the earlier from voorhand deals
                a, b = ev[0]["to"]
                old = game.new_match(seed=seed).observation(0)["dealer"]
                pos = {s: (s - old - 1) % 3 for s in range(3)}
                assert pos[a] < pos[b] and ev[0]["seat"] not in (a, b)
                seen_tie += 1
    assert seen_made and seen_tie


# --------------------------------------------------------------------- KT5: claims
def test_kt5_wrong_claim_ranks_last_the_others_by_totals() -> None:
    st = new(EQUAL, "AH", target=15)
    play(st, "trump H", "pass", "play AS", "play 8S", "play 7S")  # seat 1 takes AS
    play(st, "play AC")
    assert st.current_player == 2 and "declare claim" in st.legal_actions()  # sequence 20 > 15
    play(st, "declare claim")
    assert [e["right"] for e in events(st, f"{G}.claim_500_midhand")] == [False]
    assert st.scores() == [0.0, 11.0, 0.0] and st.ranking() == [2, 1, 3]


def test_kt5_right_claim_ranks_first_equal_totals_share() -> None:
    st = new(EQUAL, "AH", target=15)
    play(st, "trump H", "pass", "play 7H", "play TH", "play 8H")  # seat 2 takes 10 points
    assert st.current_player == 2
    play(st, "declare claim")
    assert [e["right"] for e in events(st, f"{G}.claim_500_midhand")] == [True]
    assert st.scores() == [0.0, 0.0, 30.0] and st.ranking() == [2, 2, 1]


def test_kb15_three_players_the_next_player_answers_a_schmeiss() -> None:
    st = new(EQUAL, "AH", schmeiss=True)
    assert st.current_player == 1 and "declare schmeiss" in st.legal_actions()
    play(st, "declare schmeiss")
    assert st.current_player == 2 and st.legal_actions() == ["declare accept", "declare refuse"]
    play(st, "declare accept")
    [e] = events(st, f"{G}.schmeiss")
    assert (e["seat"], e["chooser"], e["accepted"]) == (1, 2, True)
    assert st.observation(0)["maker"] == 1 and st.observation(0)["trump"] == "H"
    st = new(EQUAL, "AH", schmeiss=True)
    play(st, "pass", "declare schmeiss")
    assert st.current_player == 0  # after seat 2 comes the dealer
    play(st, "declare refuse")
    [e] = events(st, f"{G}.schmeiss")
    assert (e["seat"], e["chooser"], e["accepted"]) == (2, 0, False)
    assert st.deal_no == 2


def test_determinize_keeps_what_the_seat_knows() -> None:
    st = new(EQUAL, "AH")
    play(st, "trump H", "declare swap", "play AS")
    d = st.determinize(2, random.Random(3))
    assert d.zones()["hand2"] == st.zones()["hand2"]
    assert "AH" in [TOKENS[c] for c in cards_of(d.zones()["hand1"])]  # the swapped-in card is known
    assert not d.invariant_violations() and d.legal_actions() == st.legal_actions()
