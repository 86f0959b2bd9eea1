"""Manille Parlée (RULES.md 2.8, seed 003 L31-54): decisions P1-P7, the card's rule events
(the talk among them) and the family's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, cards_of
from tests import gamekit
from tests.gamekit import events, hand_of, play, plays, sides

HANDS = [
    ["8D", "KD", "KH", "QH", "JH", "9H", "8S", "7S"],  # dealer; 7S is dealt face up: spades trump
    ["AC", "TC", "KC", "JC", "8C", "7C", "TD", "AD"],  # voorhand
    ["9C", "QC", "TH", "AH", "QD", "JD", "7H", "8H"],
    ["9D", "7D", "TS", "AS", "KS", "QS", "JS", "9S"],
]


def new(hands: list[list[str]] = HANDS, dealer: int = 0, seed: int = 1, game: str = "manille_parlee",
        **extra: Any) -> State:
    options = {k: extra.pop(k) for k in ("no_losing_trump",) if k in extra}
    return gamekit.new(game, hands, partial=False, seed=seed, options=options, **{"dealer": dealer, **extra})


def talks(state: State) -> list[str]:
    return gamekit.legal_with(state, "declare")


def random_deals(n: int, start: int = 0, talk: bool = True, **options: Any) -> list[State]:
    game = load_game("manille_parlee", **options)
    out = []
    for seed in range(start, start + n):
        st = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            legal = st.legal_actions() if talk else plays(st)
            st.apply(rng.choice(legal))
        out.append(st)
    return out


# --------------------------------------------------------------------- the turned trump card
def test_turned_card_is_trump_and_stays_with_the_dealer() -> None:
    st = new()
    ev = events(st, "manille_parlee.trump_card_exposed")
    assert [(e["seat"], e["card"]) for e in ev] == [(0, "7S")]
    for seat in range(4):
        obs = st.observation(seat)
        assert obs["trump"] == "S" and obs["trump_card"] == "7S" and obs["trump_card_on_table"]
    assert "7S" in hand_of(st, 0)
    # the turned card is public: hidden from nobody
    for seat in range(1, 4):
        assert not any(TOKENS[c] == "7S" for c in cards_of(st.hidden_cards(seat)))
    play(st, "play AC")
    assert not st.observation(2)["trump_card_on_table"]


def test_injected_trump_card_key() -> None:
    st = new(trump_card="KH")
    assert st.observation(1)["trump"] == "H"
    with pytest.raises(ValueError, match="dealer's cards"):
        new(trump_card="AC")


def test_naming_trump_is_illegal() -> None:
    st = new()
    with pytest.raises(IllegalAction, match="turned card decides trump"):
        st.apply("trump H")


# --------------------------------------------------------------------- P1: structured talk
def test_p1_question_answered_truthfully_and_publicly() -> None:
    st = new()
    assert st.current_player == 1
    assert "declare ask count D" in talks(st) and plays(st)
    play(st, "declare ask count D")
    # partner seat 3 holds 9D 7D
    rec = {"trick": 1, "seat": 1, "kind": "ask", "topic": "count", "suit": "D", "rank": None,
           "about": 3, "answer": "2"}
    for seat in range(4):
        assert st.observation(seat)["talk"] == [rec]
    ev = events(st, "manille_parlee.question_asked")
    assert [(e["seat"], e["type"], e["answer"]) for e in ev] == [(1, "count", "2")]
    # talk does not use up the turn; only plays remain for this trick
    assert st.current_player == 1 and not talks(st) and plays(st)
    assert not st.observation(1)["may_talk"]


def test_p1_every_topic_is_answered_from_the_actual_hand() -> None:
    cases = [
        ("declare ask highest C", 3, "none"),  # seat 3 has no clubs
        ("declare ask has AS", 3, "yes"),
        ("declare ask has KH", 3, "no"),
        ("declare ask trumps", 3, "yes"),
        ("declare tell count C", 1, "6"),
        ("declare tell highest D", 1, "TD"),  # 10 (manille) beats the ace
        ("declare tell has AD", 1, "yes"),
        ("declare tell trumps", 1, "no"),
    ]
    for action, about, answer in cases:
        st = new()
        play(st, action)
        rec = st.observation(0)["talk"][0]
        assert (rec["about"], rec["answer"]) == (about, answer), action
        name = "question_asked" if " ask " in action else "info_revealed"
        assert events(st, f"manille_parlee.{name}")[0]["type"] == action.split()[2]


def test_p1_one_talk_per_player_per_trick_before_his_card() -> None:
    st = new()
    play(st, "declare tell count C")
    with pytest.raises(IllegalAction, match="already spoken"):
        st.apply("declare ask count D")
    play(st, "play AC")
    # the next player may talk before his card
    assert st.current_player == 2 and talks(st)
    play(st, "play QC")
    assert st.current_player == 3 and talks(st)


def test_p1_ask_has_only_for_cards_the_asker_cannot_place() -> None:
    st = new()
    asks = {a.split()[-1] for a in talks(st) if a.startswith("declare ask has")}
    own = set(HANDS[1])
    assert not asks & own and "7S" not in asks  # own cards and the turned card are placed
    assert len(asks) == 32 - 8 - 1
    tells = {a.split()[-1] for a in talks(st) if a.startswith("declare tell has")}
    assert tells == own


def test_p1_talk_log_never_names_a_hidden_card_as_a_token() -> None:
    st = new()
    play(st, "declare ask has KH")  # partner seat 3 does not hold it; KH is in seat 0's hand
    for seat in (1, 2, 3):
        flat = " ".join(str(v) for rec in st.observation(seat)["talk"] for v in rec.values())
        assert "KH" not in flat.split()


def test_p1_answers_are_used_by_determinize() -> None:
    st = new()
    play(st, "declare ask has AS")  # yes: seat 3 holds the ace of spades
    play(st, "play AC", "declare ask count D")  # seat 2 asks seat 0: 2 diamonds (8D KD)
    play(st, "play 9C")
    rng = random.Random(4)
    for _ in range(30):
        d = st.determinize(2, rng)
        assert "AS" in hand_of(d, 3)
        assert sum(1 for t in hand_of(d, 0) if t.endswith("D")) == 2
        assert "7S" in hand_of(d, 0)  # the turned card stays with the dealer
        assert hand_of(d, 2) == hand_of(st, 2)


# --------------------------------------------------------------------- P2: every trick
def test_p2_each_player_may_talk_in_every_trick() -> None:
    st = new()
    rng = random.Random(0)
    spoken = set()
    while st.deal_no == 1 and not st.is_over():
        t = talks(st)
        seat = st.current_player
        trick = len(st.observation(0)["played"]) // 4
        if t:
            assert (trick, seat) not in spoken
            play(st, rng.choice(t))
            spoken.add((trick, seat))
        else:
            assert (trick, seat) in spoken
            play(st, rng.choice(plays(st)))
    assert len(spoken) == 32  # every player, every trick


# --------------------------------------------------------------------- P3: 34-34
def test_p3_34_34_wins_nobody() -> None:
    tied = [st for st in random_deals(500, talk=False) if sides(st) == (34, 34)]
    assert tied
    for st in tied:
        assert st.score_sheet() == [[0.0] * 4] and st.scores() == [0.0] * 4
        assert events(st, "manille_parlee.deal_tied_34")
        assert not events(st, "manille_parlee.deal_won")
        assert st.deal_no == 1  # it counted as the one deal of max_deals=1


# --------------------------------------------------------------------- P4: no bonus
def test_p4_no_bonus_for_the_turned_card_68_points_per_deal() -> None:
    for st in random_deals(60, talk=False):
        a, b = sides(st)
        assert a + b == 68
        assert sum(st.observation(0)["tricks_won"]) == 8
        assert not st.invariant_violations()
        ev = events(st, "manille_parlee.trick_point_awarded")
        assert sum(ev[0]["tricks"]) == 8


# --------------------------------------------------------------------- P5, P7: match
def test_p5_deal_passes_left_and_p7_scores_count_deals_won() -> None:
    game = load_game("manille_parlee")
    for seed in range(8):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        dealers = []
        while not st.is_over():
            if not dealers or dealers[-1][0] != st.deal_no:
                dealers.append((st.deal_no, st.observation(0)["dealer"]))
            st.apply(rng.choice(plays(st)))
        assert [d for _, d in dealers] == [(k - 1) % 4 for k, _ in dealers]
        sc = st.scores()
        assert sc[0] == sc[2] and sc[1] == sc[3] and max(sc) == 2
        won = [0, 0]
        for e in events(st, "manille_parlee.deal_won"):
            assert max(e["points"]) >= 35
            won[e["side"][0] % 2] += 1
        assert won == [int(sc[0]), int(sc[1])]
        assert [sum(r[s] for r in st.score_sheet()) for s in range(4)] == sc
        assert st.ranking() == ([1, 3, 1, 3] if sc[0] > sc[1] else [3, 1, 3, 1])


# --------------------------------------------------------------------- P6: separate game
def test_p6_seed_003_numbers_not_manillen() -> None:
    for st in random_deals(30, start=100, talk=False):
        a, b = sides(st)
        assert a + b == 68  # manillen: 60, no trick points
        row = st.score_sheet()[0]
        if a != b:
            assert sorted(row) == [0.0, 0.0, 1.0, 1.0]  # a deal won, not points above 30
            assert max(a, b) >= 35


# --------------------------------------------------------------------- family events
def test_family_events_fire() -> None:
    names = {"manille_parlee.overtake_forced", "manille_parlee.overtrump_forced",
             "manille_parlee.undertrump_blocked", "manille_parlee.partner_exemption_used",
             "manille_parlee.trick_point_awarded", "manille_parlee.info_revealed"}
    seen: set[str] = set()
    for st in random_deals(30) + random_deals(30, no_losing_trump=True):
        seen |= {e["event"] for e in st.events}
    assert names <= seen


def test_overtake_and_overtrump_forced_on_a_set_deal() -> None:
    st = new(no_losing_trump=True)  # spades trump
    play(st, "play 7C")  # voorhand leads a low club
    # seat 2 (opponent) must beat it: 9C or QC
    assert sorted(plays(st)) == ["play 9C", "play QC"]
    play(st, "play 9C")
    # seat 3 (partner of the leader) void in clubs: opponent winning -> a winning trump
    assert sorted(plays(st)) == sorted("play " + t for t in ["TS", "AS", "KS", "QS", "JS", "9S"])
    play(st, "play 9S")
    # seat 2's two clubs both beat the seven: nothing was barred, no overtake_forced event
    assert not events(st, "manille_parlee.overtake_forced")
    assert [e["seat"] for e in events(st, "manille_parlee.overtrump_forced")] == [3]
    # dealer: void in clubs, opponent winning with 9S: he holds 8S 7S, both lower: no trump
    assert sorted(plays(st)) == sorted("play " + t for t in ["8D", "KD", "KH", "QH", "JH", "9H"])
    play(st, "play KH")
    assert [e["seat"] for e in events(st, "manille_parlee.undertrump_blocked")] == [0]


def test_family_void_no_winning_trump_any_card_and_option_no_losing_trump() -> None:
    """RULES.md "Manille family, void with an opponent winning and no trump that wins" (revised
    turn 2): seed 003 L50 "dan mag je bijgooien wat je wilt", a losing trump included."""
    st = new()
    play(st, "play 7C", "play 9C", "play 9S")
    # dealer: void in clubs, the opponent wins with 9S, his 8S 7S lose: any of his 8 cards
    assert sorted(plays(st)) == sorted("play " + t for t in HANDS[0])
    play(st, "play 8S")
    assert not events(st, "manille_parlee.undertrump_blocked")
    assert st.current_player == 3  # 9S took the trick
    st = new(no_losing_trump=True)
    play(st, "play 7C", "play 9C", "play 9S")
    with pytest.raises(IllegalAction, match="no losing trump"):
        st.apply("play 8S")


def test_p2_option_leader_only_talks() -> None:
    st = load_game("manille_parlee", talk_by="leader").new_match(
        seed=1, deal={"dealer": 0, "hands": HANDS})
    assert talks(st)  # voorhand leads: he may talk
    play(st, "play AC")
    assert not talks(st)  # the second player may not
    with pytest.raises(IllegalAction, match="P1"):
        st.apply("declare ask count D")
    play(st, "play QC", "play 9S", "play KH")
    assert st.current_player == 3 and talks(st)  # seat 3 took the trick and leads: he may
