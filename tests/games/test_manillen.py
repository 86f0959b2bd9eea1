"""Manillen (RULES.md 2.4, seed 002 "manillen"): decisions M1-M7, the card's rule events, the
family's rule events, and the seed's worked example (the 9-point trick, the 36-24 deal)."""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from tests import gamekit
from tests.gamekit import events, hand_of, play
from tests.gamekit import sides as team_points

# The seed's example: A (seat 1) leads, B (2), C (3), D (0, the dealer) follow; teams A-C and B-D.
EXAMPLE = [
    ["8D", "KD", "KH", "QH", "JH", "9H", "8S", "7S"],  # D, dealer: no clubs, trumps 8D KD
    ["AC", "TC", "KC", "JC", "8C", "7C", "TD", "AD"],  # A: leads the ace of clubs
    ["9C", "QC", "TH", "AH", "QD", "JD", "7H", "8H"],  # B: clubs 9 and queen only
    ["9D", "7D", "TS", "AS", "KS", "QS", "JS", "9S"],  # C: no clubs, trumps 9D 7D
]


def new(hands: list[list[str]], dealer: int = 0, seed: int = 1, **options: Any) -> State:
    return gamekit.new("manillen", hands, partial=False, dealer=dealer, seed=seed, options=options)


def random_deals(n: int, **options: Any) -> list[State]:
    """``n`` single-deal matches played at random, over."""
    return gamekit.random_matches("manillen", n, max_deals=1, **options)


# --------------------------------------------------------------------- the seed's worked example
def test_worked_example_trick_gives_team_b_d_nine_points() -> None:
    st = new(EXAMPLE)
    play(st, "trump D")  # koeken (diamonds) are trump
    assert st.current_player == 1  # A, left of the dealer, leads
    play(st, "play AC")
    # B cannot beat the ace (only the ten could): either club; he "fattens" with the queen
    assert sorted(st.legal_actions()) == ["play 9C", "play QC"]
    play(st, "play QC")
    # C, void in clubs, sees his partner A winning: no duty (M1), but he may buy ("kopen")
    assert sorted(st.legal_actions()) == sorted("play " + t for t in EXAMPLE[3])
    play(st, "play 9D")
    # D may not undertrump (8D): he must play the king of trumps
    assert st.legal_actions() == ["play KD"]
    with pytest.raises(IllegalAction, match="M1/M2"):
        st.apply("play 8D")
    play(st, "play KD")
    obs = st.observation(2)
    assert obs["last_trick"] == [[1, "AC"], [2, "QC"], [3, "9D"], [0, "KD"]]
    assert team_points(st) == (9, 0)  # AC 4 + QC 2 + 9D 0 + KD 3 for team B-D (seats 0 and 2)
    assert st.current_player == 0  # D, who won, leads next
    assert [e["seat"] for e in events(st, "manillen.vetten")] == [2]
    assert [(e["seat"], e["card"]) for e in events(st, "manillen.kopen")] == [(3, "9D"), (0, "KD")]
    assert [e["seat"] for e in events(st, "manillen.overtrump_forced")] == [0]
    assert not events(st, "manillen.partner_exemption_used")  # C's trump would win anyway
    assert [(e["seat"], e["card"]) for e in events(st, "manillen.undertrump_refused")] == [(0, "KD")]
    assert events(st, "manillen.trump_chosen")[0]["suit"] == "D"


def test_worked_example_deal_36_24_gives_6_points() -> None:
    found = 0
    for st in random_deals(400, cut_phase=False):
        t02, t13 = team_points(st)
        assert t02 + t13 == 60
        row = st.score_sheet()[0]
        assert row == [max(0, t02 - 30), max(0, t13 - 30)] * 2
        if sorted((t02, t13)) == [24, 36]:
            winner = 0 if t02 == 36 else 1
            assert row[winner] == row[winner + 2] == 6 and row[1 - winner] == 0
            assert st.scores()[winner] == 6
            found += 1
    assert found  # some random deal ended 36-24


# --------------------------------------------------------------------- M1: partner exemption
def test_m1_partner_winning_need_not_overtake_and_may_discard_when_void() -> None:
    st = new(EXAMPLE)
    play(st, "trump H")
    play(st, "play 7C")  # A leads a low club
    play(st, "play 9C")  # B (opponent of A) must beat it: 9C or QC
    # C is A's partner; B is winning: C is void in clubs -> must trump to win (hearts none) -> free
    assert st.current_player == 3
    play(st, "play 9D")
    # D's partner B wins with 9C: D is void in clubs and need not trump: any card
    assert sorted(st.legal_actions()) == sorted("play " + t for t in EXAMPLE[0])
    play(st, "play 8S")
    assert [e["seat"] for e in events(st, "manillen.partner_exemption_used")] == [0]


def test_m1_partner_winning_following_suit_may_play_low() -> None:
    hands = [list(h) for h in EXAMPLE]
    st = new(hands)
    play(st, "trump S")
    play(st, "play TD")  # A leads the manille of diamonds
    # B: QD or JD, neither beats the ten
    play(st, "play JD")
    # C (A's partner; A wins): may play either diamond, the 7D under his partner's ten
    assert sorted(st.legal_actions()) == ["play 7D", "play 9D"]
    play(st, "play 7D")
    # D follows: 8D or KD, neither beats the ten, both legal
    assert sorted(st.legal_actions()) == ["play 8D", "play KD"]


def test_overtake_forced_event() -> None:
    hands = [
        ["8D", "KD", "KH", "QH", "JH", "9H", "8S", "7S"],
        ["9C", "TC", "KC", "JC", "8C", "7C", "TD", "AD"],
        ["AC", "QC", "TH", "AH", "QD", "JD", "7H", "8H"],
        ["9D", "7D", "TS", "AS", "KS", "QS", "JS", "9S"],
    ]
    st = new(hands)
    play(st, "trump H")
    play(st, "play KC")
    # B holds AC and QC: the ace beats the king and must be played
    assert st.legal_actions() == ["play AC"]
    play(st, "play AC")
    ev = events(st, "manillen.overtake_forced")
    assert [(e["seat"], e["card"]) for e in ev] == [(2, "AC")]


# --------------------------------------------------------------------- M2: no undertrumping
def test_m2_void_without_winning_trump_plays_no_trump() -> None:
    hands = [
        ["7D", "8D", "KH", "QH", "JH", "9H", "8S", "7S"],  # D: trumps 7D 8D only (low)
        ["AC", "TC", "KC", "JC", "8C", "7C", "KD", "QD"],
        ["9C", "QC", "TH", "AH", "AD", "JD", "7H", "8H"],
        ["TD", "9D", "TS", "AS", "KS", "QS", "JS", "9S"],  # C: trumps 10D 9D
    ]
    st = new(hands)
    play(st, "trump D", "play AC", "play 9C", "play TD")
    # D: void in clubs, opponent C wins with the manille of trumps, D's trumps cannot win:
    # no undertrump, any non-trump
    assert sorted(st.legal_actions()) == sorted(
        "play " + t for t in ["KH", "QH", "JH", "9H", "8S", "7S"])
    with pytest.raises(IllegalAction, match="never play a losing trump"):
        st.apply("play 7D")
    play(st, "play 8S")
    assert [e["seat"] for e in events(st, "manillen.undertrump_blocked")] == [0]
    assert [e["seat"] for e in events(st, "manillen.undertrump_refused")] == [0]


def test_m2_only_trumps_left_may_play_a_losing_trump() -> None:
    """Whenever a void player facing an opponent's trump he cannot beat holds only trumps, every
    card of his is legal; with any other card, no trump is."""
    seen_only, seen_mixed = 0, 0
    for seed in range(150):
        st = load_game("manillen").new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            seat = st.current_player
            obs = st.observation(seat)
            trick, trump = obs["trick"], obs["trump"]
            if trick and st.phase == "play":
                hand = obs["hand"]
                led = trick[0][1][1]
                winner = _winner(trick, trump)
                opponent = winner[0] not in (seat, obs["partner"])
                void = not any(t[1] == led for t in hand)
                trumps = [t for t in hand if t[1] == trump]
                beat = [t for t in trumps if _beats(t, winner[1], trump)]
                if void and opponent and winner[1][1] == trump and trumps and not beat:
                    legal = sorted(a.split()[1] for a in st.legal_actions())
                    if len(trumps) == len(hand):
                        seen_only += 1
                        assert legal == sorted(hand)
                    else:
                        seen_mixed += 1
                        assert legal == sorted(t for t in hand if t[1] != trump)
            st.apply(rng.choice(st.legal_actions()))
    assert seen_only and seen_mixed


RANKS = "789JQKAT"


def _beats(a: str, b: str, trump: str) -> bool:
    if a[1] == b[1]:
        return RANKS.index(a[0]) > RANKS.index(b[0])
    return a[1] == trump


def _winner(trick: list[list[Any]], trump: str) -> list[Any]:
    best = trick[0]
    for x in trick[1:]:
        if _beats(x[1], best[1], trump):
            best = x
    return best


def test_m2_partner_winning_with_a_trump_no_lower_trump() -> None:
    # D's partner B trumps; D, void, may discard or trump higher, but not trump lower
    hands = [
        ["7D", "AD", "KH", "QH", "JH", "9H", "8S", "7S"],  # D (dealer): trumps 7D AD, no clubs
        ["AC", "TC", "KC", "JC", "8C", "7C", "KD", "QD"],  # A
        ["9D", "JD", "TH", "AH", "7H", "8H", "QS", "TS"],  # B: no clubs, trumps 9D JD
        ["9C", "QC", "8D", "TD", "AS", "KS", "JS", "9S"],  # C
    ]
    st = new(hands)
    play(st, "trump D", "play AC")
    assert sorted(st.legal_actions()) == ["play 9D", "play JD"]  # B must buy the trick
    play(st, "play JD", "play 9C")
    legal = st.legal_actions()
    assert "play 7D" not in legal
    assert sorted(legal) == sorted("play " + t for t in hands[0] if t != "7D")
    play(st, "play KH")
    assert [e["seat"] for e in events(st, "manillen.undertrump_refused")] == [0]
    assert [e["seat"] for e in events(st, "manillen.partner_exemption_used")] == [0]


# --------------------------------------------------------------------- M3: target and 121
def test_m3_match_ends_when_a_team_reaches_101() -> None:
    game = load_game("manillen")
    for seed in range(5):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        sc = st.scores()
        assert max(sc) >= 101 and min(sc) < 101
        assert sc[0] == sc[2] and sc[1] == sc[3]
        totals = [sum(r[s] for r in st.score_sheet()) for s in range(4)]
        assert totals == sc
        # the match ended at the first deal that took a team to 101
        before = [sum(r[s] for r in st.score_sheet()[:-1]) for s in range(4)]
        assert max(before) < 101
        assert st.ranking() == ([1, 3, 1, 3] if sc[0] > sc[1] else [3, 1, 3, 1])  # partners share
        assert not events(st, "manillen.match_extended_to_121")


def test_m3_both_teams_at_101_play_on_to_121() -> None:
    game = load_game("manillen", both_teams_score=True)
    seen = 0
    for seed in range(30):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        sc = st.scores()
        ext = events(st, "manillen.match_extended_to_121")
        if ext:
            seen += 1
            assert min(ext[0]["scores"]) >= 101
            assert max(sc) >= 121 and sc[0] != sc[1]
        else:
            assert max(sc) >= 101 and min(sc) < 101
    assert seen


# --------------------------------------------------------------------- M4: no no-trump
def test_m4_dealer_names_a_suit_never_no_trump() -> None:
    st = new(EXAMPLE)
    assert st.current_player == 0 and sorted(st.legal_actions()) == ["trump C", "trump D", "trump H",
                                                                     "trump S"]
    with pytest.raises(IllegalAction, match="M4"):
        st.apply("trump none")


# --------------------------------------------------------------------- M5: dealer
def test_m5_random_first_dealer_and_clockwise_rotation() -> None:
    game = load_game("manillen")
    firsts = set()
    for seed in range(24):
        st = game.new_match(seed=seed, max_deals=2)
        d1 = st.observation(0)["dealer"]
        firsts.add(d1)
        rng = random.Random(seed)
        while st.deal_no == 1:
            st.apply(rng.choice(st.legal_actions()))
        assert st.observation(0)["dealer"] == (d1 + 1) % 4
    assert len(firsts) >= 3


# --------------------------------------------------------------------- M6: club format
def test_m6_club_blocks_won_by_higher_sum_and_seed_outcomes() -> None:
    game = load_game("manillen", club_rounds=True)
    orders = ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 1, 3))
    outcomes = Counter()
    for seed in range(6):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        dealers = []
        while not st.is_over():
            if st.phase in ("cut", "trump") and (not dealers or dealers[-1][0] != st.deal_no):
                dealers.append((st.deal_no, st.observation(0)["dealer"]))
            st.apply(rng.choice(st.legal_actions()))
        sheet = st.score_sheet()
        assert len(sheet) == 36
        won = [0] * 4
        tied = False
        for b, order in enumerate(orders):
            rows = sheet[12 * b:12 * b + 12]
            # partners opposite in the block's seating
            team1 = (order[0], order[2])
            team2 = (order[1], order[3])
            for row in rows:
                assert row[team1[0]] == row[team1[1]] and row[team2[0]] == row[team2[1]]
            s1 = sum(r[team1[0]] for r in rows)
            s2 = sum(r[team2[0]] for r in rows)
            if s1 == s2:
                tied = True
            for s in (team1 if s1 > s2 else team2 if s2 > s1 else ()):
                won[s] += 1
            # each player deals three times per block
            block_dealers = Counter(d for n, d in dealers if 12 * b < n <= 12 * b + 12)
            assert sorted(block_dealers.values()) == [3, 3, 3, 3]
        assert st.scores() == [float(w) for w in won]
        assert len(events(st, "manillen.block_won")) == 3 - tied
        if not tied:
            outcomes[tuple(sorted(won, reverse=True))] += 1
            assert tuple(sorted(won, reverse=True)) in ((3, 1, 1, 1), (2, 2, 2, 0))
    assert outcomes


def test_m6_club_partners_rotate() -> None:
    st = load_game("manillen", club_rounds=True).new_match(seed=3)
    rng = random.Random(3)
    partners = []
    while not st.is_over():
        p = st.observation(0)["partner"]
        if not partners or partners[-1] != p:
            partners.append(p)
        st.apply(rng.choice(st.legal_actions()))
    assert partners == [2, 3, 1]


# --------------------------------------------------------------------- M7: seed-002 numbers
def test_m7_sixty_card_points_tricks_count_nothing() -> None:
    for st in random_deals(40):
        t02, t13 = team_points(st)
        assert t02 + t13 == 60
        assert sum(st.observation(0)["tricks_won"]) == 8
        assert not st.invariant_violations()
        assert not any(e["event"] == "manillen.trick_point_awarded" for e in st.events)


def test_hand_tie_30_30_scores_nothing() -> None:
    tied = 0
    for st in random_deals(400, cut_phase=False):
        if team_points(st) == (30, 30):
            tied += 1
            assert st.score_sheet() == [[0.0] * 4]
            assert events(st, "manillen.hand_tie_30_30")
        else:
            assert not events(st, "manillen.hand_tie_30_30")
    assert tied


# --------------------------------------------------------------------- cut, X4
def test_cut_or_knock_by_the_player_right_of_the_dealer() -> None:
    game = load_game("manillen")
    for seed in range(6):
        st = game.new_match(seed=seed)
        dealer = st.observation(0)["dealer"]
        assert st.phase == "cut" and st.current_player == (dealer + 3) % 4
        assert sorted(st.legal_actions()) == ["cut", "knock"]
        assert all(not st.observation(s)["hand"] for s in range(4))
        st.apply("knock" if seed % 2 else "cut")
        assert st.phase == "trump" and st.current_player == dealer
        assert bool(events(st, "manillen.cut_knocked")) == bool(seed % 2)
        assert all(len(hand_of(st, s)) == 8 for s in range(4))


def test_x4_partner_sees_no_hand_before_trump() -> None:
    st = new(EXAMPLE)
    obs = st.observation(2)
    assert obs["hand"] == [] and obs["hand_hidden"]
    assert sorted(st.observation(0)["hand"]) == sorted(EXAMPLE[0])
    assert len(st.observation(1)["hand"]) == 8 and len(st.observation(3)["hand"]) == 8
    play(st, "trump C")
    assert sorted(st.observation(2)["hand"]) == sorted(EXAMPLE[2])
    assert not st.observation(2)["hand_hidden"]


# --------------------------------------------------------------------- determinize
def test_determinize_keeps_what_the_seat_knows() -> None:
    st = new(EXAMPLE)
    play(st, "trump D", "play AC", "play QC", "play 9D", "play KD")
    rng = random.Random(0)
    for seat in range(4):
        for _ in range(20):
            d = st.determinize(seat, rng)
            assert hand_of(d, seat) == hand_of(st, seat)
            assert [len(hand_of(d, s)) for s in range(4)] == [len(hand_of(st, s)) for s in range(4)]
            assert not d.invariant_violations()
            # C and D showed they hold no clubs
            for s in (0, 3):
                assert not any(t.endswith("C") for t in hand_of(d, s))
            d.apply(rng.choice(d.legal_actions()))
    # the original is untouched
    assert hand_of(st, 1) == sorted(t for t in EXAMPLE[1] if t != "AC")


def test_determinize_redeals_the_partners_own_hand_before_trump() -> None:
    st = new(EXAMPLE)
    d = st.determinize(2, random.Random(1))
    assert hand_of(d, 2) != hand_of(st, 2) or hand_of(d, 0) != hand_of(st, 0)
    assert hand_of(st.determinize(0, random.Random(1)), 0) == hand_of(st, 0)


def test_injected_deal_is_checked() -> None:
    with pytest.raises(ValueError, match="each hand holds 8"):
        new([h[:7] for h in EXAMPLE])
    bad = [list(h) for h in EXAMPLE]
    bad[1][0] = "2C"
    with pytest.raises(ValueError, match="not a card"):
        new(bad)


def test_m1_option_seed_reading_beat_the_partners_card_too() -> None:
    st = new(EXAMPLE, partner_exemption=False)
    play(st, "trump H", "play 7C", "play 9C", "play 9D")
    # D's partner B wins with 9C; read literally ("always try to take the trick") D, void in
    # clubs, must buy the trick with a trump (hearts): KH QH JH 9H
    assert sorted(st.legal_actions()) == sorted("play " + t for t in ["KH", "QH", "JH", "9H"])
    st2 = new(EXAMPLE, partner_exemption=False)
    play(st2, "trump S", "play TD", "play JD")
    # C must beat... his partner A's ten cannot be beaten: any diamond; D the same
    assert sorted(st2.legal_actions()) == ["play 7D", "play 9D"]
