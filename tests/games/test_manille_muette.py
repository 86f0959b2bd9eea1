"""Manille Muette (RULES.md 2.9, seed 003 L56-79): Manille Parlée without talk; its rule events
and the family's."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, sides

HANDS = [
    ["8D", "KD", "KH", "QH", "JH", "9H", "8S", "7S"],  # dealer; 7S face up: spades trump
    ["AC", "TC", "KC", "JC", "8C", "7C", "TD", "AD"],
    ["9C", "QC", "TH", "AH", "QD", "JD", "7H", "8H"],
    ["9D", "7D", "TS", "AS", "KS", "QS", "JS", "9S"],
]


def new(seed: int = 1, **extra: Any) -> State:
    return gamekit.new("manille_muette", HANDS, partial=False, seed=seed, **{"dealer": 0, **extra})


def random_deals(n: int, start: int = 0, **options: Any) -> list[State]:
    return gamekit.random_matches("manille_muette", n, start, max_deals=1, **options)


def test_no_talk_at_all() -> None:
    st = new()
    assert all(a.startswith("play ") for a in st.legal_actions())
    for action in ("declare ask count D", "declare tell has AC", "declare ask trumps"):
        with pytest.raises(IllegalAction, match="silence"):
            st.apply(action)
    assert "talk" not in st.observation(1)
    rng = random.Random(0)
    while not st.is_over() and st.deal_no == 1:
        assert all(a.startswith("play ") for a in st.legal_actions())
        st.apply(rng.choice(st.legal_actions()))
    assert not any("question_asked" in e["event"] or "info_revealed" in e["event"] for e in st.events)


def test_turned_card_fixes_trump_and_nobody_names_it() -> None:
    st = new()
    ev = events(st, "manille_muette.trump_card_exposed")
    assert [(e["seat"], e["card"]) for e in ev] == [(0, "7S")]
    assert st.observation(2)["trump"] == "S"
    with pytest.raises(IllegalAction, match="turned card decides trump"):
        st.apply("trump H")
    st2 = new(trump_card="QH")
    assert st2.observation(0)["trump"] == "H"


def test_deal_won_with_35_and_first_to_two_deals() -> None:
    game = load_game("manille_muette")
    for seed in range(10):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        won = events(st, "manille_muette.deal_won")
        assert all(max(e["points"]) >= 35 and sum(e["points"]) == 68 for e in won)
        sc = st.scores()
        assert max(sc) == 2 and sc[0] == sc[2] and sc[1] == sc[3]
        assert len(won) + len(events(st, "manille_muette.deal_tied_34")) == st.deal_no


def test_deal_tied_34_wins_nobody() -> None:
    tied = [st for st in random_deals(500) if sides(st) == (34, 34)]
    assert tied
    for st in tied:
        assert events(st, "manille_muette.deal_tied_34") and st.scores() == [0.0] * 4


def test_sixty_eight_points_per_deal_and_trick_points() -> None:
    for st in random_deals(40, start=7):
        assert sum(sides(st)) == 68 and not st.invariant_violations()
        ev = events(st, "manille_muette.trick_point_awarded")
        assert len(ev) == 1 and sum(ev[0]["tricks"]) == 8


def test_family_rule_and_events() -> None:
    st = load_game("manille_muette", no_losing_trump=True).new_match(
        seed=1, deal={"dealer": 0, "hands": HANDS})
    st.apply("play 7C")
    assert sorted(st.legal_actions()) == ["play 9C", "play QC"]
    st.apply("play 9C")
    # seat 3 void in clubs, opponent winning: a winning trump (all his spades beat the club)
    assert sorted(st.legal_actions()) == sorted(
        "play " + t for t in ["TS", "AS", "KS", "QS", "JS", "9S"])
    st.apply("play 9S")
    assert [e["seat"] for e in events(st, "manille_muette.overtrump_forced")] == [3]
    # dealer: void, opponent wins with 9S, his 8S 7S cannot win: no trump
    assert "play 8S" not in st.legal_actions() and "play KH" in st.legal_actions()
    st.apply("play KH")
    assert [e["seat"] for e in events(st, "manille_muette.undertrump_blocked")] == [0]
    names = {"manille_muette.overtake_forced", "manille_muette.partner_exemption_used"}
    seen: set[str] = set()
    for d in random_deals(40):
        seen |= {e["event"] for e in d.events}
    assert names <= seen


# issue 12 item 8's repro: hearts trump (the dealer's last card, 8H)
REPRO = [["8C", "9C", "TC", "JC", "QD", "KD", "AD", "8H"],
         ["7C", "QC", "KC", "AC", "7D", "8D", "9D", "TD"],
         ["TH", "JD", "7S", "8S", "9S", "TS", "JS", "QS"],
         ["7H", "9H", "JH", "QH", "KH", "AH", "KS", "AS"]]


def test_family_void_no_winning_trump_any_card_and_option_no_losing_trump() -> None:
    """RULES.md "Manille family, void with an opponent winning and no trump that wins" (revised
    turn 2): seed 003 L74 "dan mag je bijgooien wat je wilt", a losing trump included."""
    st = load_game("manille_muette").new_match(seed=0, deal={"dealer": 0, "hands": REPRO})
    st.apply("play 7C")
    st.apply("play TH")  # seat 2, void in clubs, trumps with the manille of hearts
    # seat 3, void, the opponent wins with TH, none of his hearts beats it: any of his 8 cards
    assert sorted(st.legal_actions()) == sorted("play " + t for t in REPRO[3])
    st.apply("play 7H")
    assert not events(st, "manille_muette.undertrump_blocked")
    st = load_game("manille_muette", no_losing_trump=True).new_match(
        seed=0, deal={"dealer": 0, "hands": REPRO})
    st.apply("play 7C")
    st.apply("play TH")
    assert sorted(st.legal_actions()) == ["play AS", "play KS"]
    with pytest.raises(IllegalAction, match="no losing trump"):
        st.apply("play 7H")
    st.apply("play KS")
    assert [e["seat"] for e in events(st, "manille_muette.undertrump_blocked")] == [3]


def test_determinize_keeps_the_turned_card_with_the_dealer() -> None:
    st = new()
    st.apply("play AC")
    for k in range(20):
        d = st.determinize(2, random.Random(k))
        assert "7S" in [TOKENS[c] for c in cards_of(d.zones()["hand0"])]
        assert d.zones()["hand2"] == st.zones()["hand2"]
