"""Butifarra (RULES.md 2.7, seed 003 L3-29): decisions B1-B7, the card's rule events and the
family's rule events."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import TOKENS, deck_48_no_tens
from tests import gamekit
from tests.gamekit import events, finish_deal, hand_of, play, sides

SUITS = "CDHS"
RANKS = "23456789JQKA"  # no tens


def suit(s: str) -> list[str]:
    return [r + s for r in RANKS]


# seats 0 and 2 hold hearts and spades, seats 1 and 3 clubs and diamonds
SPLIT = [suit("H")[:6] + suit("S")[:6], suit("C")[:6] + suit("D")[:6],
         suit("H")[6:] + suit("S")[6:], suit("C")[6:] + suit("D")[6:]]


def new(hands: list[list[str]], dealer: int = 0, seed: int = 1, **options: Any) -> State:
    return gamekit.new("butifarra", hands, partial=False, dealer=dealer, seed=seed, options=options)


def random_deals(n: int, start: int = 0, **options: Any) -> list[State]:
    game = load_game("butifarra", **options)
    out = []
    for seed in range(start, start + n):
        st = game.new_match(seed=seed, max_deals=1)
        finish_deal(st, random.Random(seed))
        out.append(st)
    return out


# --------------------------------------------------------------------- B1: scoring
def test_b1_winner_scores_points_above_36_times_multipliers() -> None:
    for st in random_deals(150):
        a, b = sides(st)
        assert a + b == 72
        obs = st.observation(0)
        mult = obs["multiplier"]
        assert mult == (2 if obs["trump"] == "none" else 1) * {None: 1, "dubbel": 2, "herdubbel": 4}[
            obs["doubling"]]
        row = st.score_sheet()[0]
        want = [max(0, a - 36) * mult, max(0, b - 36) * mult] * 2
        assert row == want
        ev = events(st, "butifarra.score_multiplier")
        assert bool(ev) == (mult > 1 and a != b)
        if ev:
            assert ev[0]["x"] == mult and ev[0]["score"] == max(row)


def test_b1_36_36_scores_nothing() -> None:
    tied = [st for st in random_deals(600) if sides(st) == (36, 36)]
    assert tied
    for st in tied:
        assert st.score_sheet() == [[0.0] * 4]
        assert events(st, "butifarra.deal_tied_36")[0]["points"] == 36


# --------------------------------------------------------------------- B2: target
def test_b2_match_to_101() -> None:
    game = load_game("butifarra")
    for seed in range(6):
        st = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        sc = st.scores()
        assert sc[0] == sc[2] and sc[1] == sc[3] and max(sc) >= 101
        before = [sum(r[s] for r in st.score_sheet()[:-1]) for s in range(4)]
        assert max(before) < 101
    st = load_game("butifarra", target=20).new_match(seed=1)
    rng = random.Random(1)
    while not st.is_over():
        st.apply(rng.choice(st.legal_actions()))
    assert max(st.scores()) >= 20
    assert max(sum(r[s] for r in st.score_sheet()[:-1]) for s in range(4)) < 20


# --------------------------------------------------------------------- B3: doubling
def test_b3_opponents_double_voorhand_first_then_declaring_side_redoubles() -> None:
    st = new(SPLIT, dealer=0)
    play(st, "trump H")
    assert st.phase == "double" and st.current_player == 1  # voorhand
    assert sorted(st.legal_actions()) == ["double", "pass"]
    play(st, "pass")
    assert st.current_player == 3  # the other opponent
    play(st, "double")
    assert [e["seat"] for e in events(st, "butifarra.dubbel")] == [3]
    # the dealer's side, in play order after the doubler: seat 0 then seat 2
    assert st.phase == "redouble" and st.current_player == 0
    assert sorted(st.legal_actions()) == ["pass", "redouble"]
    play(st, "pass")
    assert st.current_player == 2
    play(st, "redouble")
    assert [e["seat"] for e in events(st, "butifarra.herdubbel")] == [2]
    # no third level without sant_vicenc: the play starts, voorhand leads
    assert st.phase == "play" and st.current_player == 1
    assert st.observation(1)["multiplier"] == 4


def test_b3_nobody_doubles() -> None:
    st = new(SPLIT, dealer=2)
    play(st, "trump S", "pass", "pass")
    assert st.phase == "play" and st.current_player == 3
    assert st.observation(0)["multiplier"] == 1


def test_b3_sant_vicenc_option_third_level() -> None:
    st = new(SPLIT, dealer=0, sant_vicenc=True)
    play(st, "trump none")  # Butifarra: x2
    play(st, "double")  # voorhand doubles: x4
    assert st.current_player == 2  # after the doubler (seat 1) comes seat 2
    play(st, "redouble")  # x8
    assert st.phase == "sant_vicenc" and st.current_player == 3
    assert sorted(st.legal_actions()) == ["double", "pass"]
    with pytest.raises(IllegalAction, match="B3"):
        st.apply("redouble")
    play(st, "pass", "double")
    assert [e["seat"] for e in events(st, "butifarra.sant_vicenc")] == [1]
    assert st.observation(0)["multiplier"] == 16
    rng = random.Random(2)
    finish_deal(st, rng)
    a, b = sides(st)
    row = st.score_sheet()[0]
    assert row == [max(0, a - 36) * 16, max(0, b - 36) * 16] * 2


# --------------------------------------------------------------------- B4: deal
def test_b4_twelve_each_four_at_a_time() -> None:
    for seed in range(5):
        st = load_game("butifarra").new_match(seed=seed)
        # the engine's dealing, replayed from the seed: dealer drawn, the pack sorted by random
        # keys (engine.games.manille._manille.ManilleState._shuffled), then dealt 4-4-4
        rng = random.Random(seed)
        dealer = rng.randrange(4)
        deck = sorted(deck_48_no_tens(), key=lambda _: rng.random())
        assert st.observation(0)["dealer"] == dealer and st.current_player == dealer
        for k in range(4):
            seat = (dealer + 1 + k) % 4
            want = [c for p in range(3) for c in deck[16 * p + 4 * k:16 * p + 4 * k + 4]]
            assert hand_of(st, seat) == sorted(TOKENS[c] for c in want)
        assert not any("T" in t for s in range(4) for t in hand_of(st, s))


# --------------------------------------------------------------------- B5: partner winning
# dealer 0, voorhand 1 holds every diamond; hearts will be trump
B5_HANDS = [
    ["2H", "3H", "4C", "5C", "6C", "7C", "8C", "2S", "3S", "4S", "5S", "6S"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "JD", "QD", "KD", "AD"],
    ["9H", "JH", "QH", "KH", "AH", "7S", "8S", "9S", "JS", "QS", "KS", "AS"],
    ["4H", "5H", "6H", "7H", "8H", "2C", "3C", "9C", "JC", "QC", "KC", "AC"],
]


def b5_start(**options: Any) -> State:
    st = new(B5_HANDS, dealer=0, **options)
    play(st, "trump H", "pass", "pass", "play AD")
    # seat 2, void, the opponent wins: a winning trump (every heart wins)
    assert sorted(st.legal_actions()) == sorted("play " + t for t in B5_HANDS[2][:5])
    play(st, "play AH")
    # seat 3, void, the opponent wins with AH, no trump of his wins: any card (seed L27), a
    # losing trump included; no losing trump with no_losing_trump; only a trump with must_trump
    if options.get("must_trump"):
        want = B5_HANDS[3][:5]
    elif options.get("no_losing_trump"):
        want = B5_HANDS[3][5:]
    else:
        want = B5_HANDS[3]
    assert sorted(st.legal_actions()) == sorted("play " + t for t in want)
    play(st, "play 4H" if options.get("must_trump") else "play 2C")
    return st


def test_b5_void_partner_winning_need_not_trump() -> None:
    st = b5_start()
    # seat 0, void in diamonds, partner seat 2 wins with AH: anything, a low trump too
    assert sorted(st.legal_actions()) == sorted("play " + t for t in B5_HANDS[0])
    play(st, "play 2H")
    # with an opponent winning 2H would be legal too (no trump of his beats AH): no exemption used
    assert not events(st, "butifarra.partner_exemption_used")
    st = b5_start(no_losing_trump=True)
    assert sorted(st.legal_actions()) == sorted("play " + t for t in B5_HANDS[0])
    play(st, "play 2H")  # barred, had an opponent been winning
    assert [e["seat"] for e in events(st, "butifarra.partner_exemption_used")] == [0]


def test_b5_option_must_trump_whoever_wins() -> None:
    st = b5_start(must_trump=True)  # seat 3 had to play a losing trump to the opponent's AH
    # seat 0, void in diamonds, partner seat 2 wins with AH, neither 2H nor 3H beats it: any trump
    assert sorted(st.legal_actions()) == ["play 2H", "play 3H"]
    with pytest.raises(IllegalAction, match="B5"):
        st.apply("play 4C")
    play(st, "play 3H")
    assert st.current_player == 2  # seat 2 took the trick with AH
    assert not events(st, "butifarra.undertrump_blocked")


def test_b5_must_trump_wins_over_no_losing_trump() -> None:
    """B5 (RULES.md, turn 3): with both options, ``must_trump`` wins: a void player holding only
    trumps lower than the trick's (and other cards) must still play one of them."""
    st = b5_start(must_trump=True, no_losing_trump=True)  # seat 3: only 4H-8H, all below AH
    assert st.history[-1] == "play 4H"
    # seat 0, void, his partner wins with AH: 2H and 3H lose, yet one of them must be played
    assert sorted(st.legal_actions()) == ["play 2H", "play 3H"]
    with pytest.raises(IllegalAction, match="B5"):
        st.apply("play 4C")
    st = new(B5_HANDS, dealer=0, must_trump=True, no_losing_trump=True)
    play(st, "trump H", "pass", "pass", "play AD", "play AH")
    with pytest.raises(IllegalAction, match="B5"):
        st.apply("play 2C")


def test_b5_with_both_options_every_legal_list_is_must_trumps() -> None:
    """B5 with ``no_losing_trump`` too: in random play every legal list equals the one under
    ``must_trump`` alone (the same deals, the same actions)."""
    for seed in range(40):
        both = load_game("butifarra", must_trump=True, no_losing_trump=True).new_match(seed=seed, max_deals=1)
        alone = load_game("butifarra", must_trump=True).new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not both.is_over():
            legal = both.legal_actions()
            assert legal == alone.legal_actions(), f"seed {seed} after {both.history[-4:]}"
            a = rng.choice(legal)
            both.apply(a)
            alone.apply(a)


def test_b5_must_trump_overtrumps_the_partner_when_it_can() -> None:
    hands = [
        ["2H", "AH", "4C", "5C", "6C", "7C", "8C", "2S", "3S", "4S", "5S", "6S"],
        B5_HANDS[1],
        ["9H", "JH", "QH", "KH", "3H", "7S", "8S", "9S", "JS", "QS", "KS", "AS"],
        B5_HANDS[3],
    ]
    st = new(hands, dealer=0, must_trump=True)
    play(st, "trump H", "pass", "pass", "play AD", "play 3H", "play 4H")
    # seat 0, void: the opponent's 4H beat his partner's 3H; a trump that beats 4H, AH only
    assert st.legal_actions() == ["play AH"]
    st2 = new(hands, dealer=0, must_trump=True)
    play(st2, "trump H", "pass", "pass", "play AD", "play KH", "play 4H")
    # the partner wins with KH: still a trump that beats it, AH
    assert st2.legal_actions() == ["play AH"]
    assert [e["seat"] for e in events(st2, "butifarra.overtrump_forced")] == [2]
    play(st2, "play AH")
    assert [e["seat"] for e in events(st2, "butifarra.overtrump_forced")] == [2, 0]
    # by default the partner's KH frees him
    st3 = new(hands, dealer=0)
    play(st3, "trump H", "pass", "pass", "play AD", "play KH", "play 4H")
    assert len(st3.legal_actions()) == 12


def test_family_void_no_winning_trump_any_card_and_option_no_losing_trump() -> None:
    st = b5_start()  # asserts seat 3's twelve cards
    assert not events(st, "butifarra.undertrump_blocked")
    st = b5_start(no_losing_trump=True)
    assert [e["seat"] for e in events(st, "butifarra.overtrump_forced")] == [2]
    assert [(e["seat"], e["card"]) for e in events(st, "butifarra.undertrump_blocked")] == [(3, "2C")]
    st = new(B5_HANDS, dealer=0, no_losing_trump=True)
    play(st, "trump H", "pass", "pass", "play AD", "play AH")
    with pytest.raises(IllegalAction, match="no losing trump"):
        st.apply("play 4H")


def test_overtake_forced_in_suit() -> None:
    hands = [
        suit("H"),
        ["2S", "3S", "7S", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "JD"],
        ["4S", "5S", "6S", "8S", "9S", "JS", "QS", "KS", "AS", "QD", "KD", "AD"],
        suit("C"),
    ]
    st = new(hands, dealer=0)
    play(st, "trump C", "pass", "pass", "play 7S")
    # seat 2 follows spades under his opponent's seven: he must beat it
    assert sorted(st.legal_actions()) == sorted("play " + t for t in ["8S", "9S", "JS", "QS", "KS", "AS"])
    with pytest.raises(IllegalAction, match="beat his card"):
        st.apply("play 4S")
    play(st, "play 8S")
    assert [(e["seat"], e["card"]) for e in events(st, "butifarra.overtake_forced")] == [(2, "8S")]
    # seat 3, void, holds only trumps (all of them win): every card
    assert len(st.legal_actions()) == 12


# --------------------------------------------------------------------- B6: delegation
def test_b6_delegated_partner_must_choose_suit_or_butifarra() -> None:
    st = new(SPLIT, dealer=1)
    assert sorted(st.legal_actions()) == sorted(["trump C", "trump D", "trump H", "trump S",
                                                 "trump none", "delegate"])
    play(st, "delegate")
    assert [e["seat"] for e in events(st, "butifarra.trump_delegated")] == [1]
    assert st.current_player == 3 and st.phase == "delegated"
    assert sorted(st.legal_actions()) == sorted(["trump C", "trump D", "trump H", "trump S",
                                                 "trump none"])
    with pytest.raises(IllegalAction, match="B6"):
        st.apply("delegate")
    with pytest.raises(IllegalAction):
        st.apply("pass")
    play(st, "trump none")
    assert [e["seat"] for e in events(st, "butifarra.butifarra_declared")] == [3]
    assert st.phase == "double" and st.current_player == 2  # voorhand of dealer 1
    assert st.observation(0)["declarer"] == 3 and st.observation(0)["trump"] == "none"


# --------------------------------------------------------------------- B7: dealer
def test_b7_random_first_dealer_passes_clockwise() -> None:
    game = load_game("butifarra")
    firsts = set()
    for seed in range(24):
        st = game.new_match(seed=seed, max_deals=2)
        d = st.observation(0)["dealer"]
        firsts.add(d)
        finish_deal(st, random.Random(seed))
        if not st.is_over():  # (a redoubled deal can reach 101 at once)
            assert st.observation(0)["dealer"] == (d + 1) % 4
    assert len(firsts) >= 3


# --------------------------------------------------------------------- events
def test_capot_all_twelve_tricks() -> None:
    # seats 0-2 hold every heart and spade, hearts trump: the other side cannot take a trick
    for seed in range(5):
        st = new(SPLIT, dealer=0, seed=seed)
        play(st, "trump H", "double", "pass", "pass")
        finish_deal(st, random.Random(seed))
        assert st.score_sheet()[0][0] == (72 - 36) * 2
        assert events(st, "butifarra.capot")[0]["seat"] in (0, 2)
        tricks = events(st, "butifarra.trick_point_awarded")[0]["tricks"]
        assert tricks[0] + tricks[2] == 12 and tricks[1] == tricks[3] == 0


def test_family_events_fire() -> None:
    names = {"butifarra.overtake_forced", "butifarra.overtrump_forced", "butifarra.undertrump_blocked",
             "butifarra.partner_exemption_used", "butifarra.trick_point_awarded"}
    seen: set[str] = set()
    for st in random_deals(30) + random_deals(30, no_losing_trump=True):
        seen |= {e["event"] for e in st.events}
    assert names <= seen


def test_naming_trump_out_of_turn_is_illegal() -> None:
    st = new(SPLIT, dealer=0)
    play(st, "trump C", "pass", "pass")
    with pytest.raises(IllegalAction, match="trump is named"):
        st.apply("trump D")


def test_seventy_two_points_per_deal() -> None:
    for st in random_deals(40, start=1000):
        assert sum(sides(st)) == 72
        assert not st.invariant_violations()
        assert sum(st.observation(0)["tricks_won"]) == 12


def test_determinize_respects_voids_and_sizes() -> None:
    for seed in range(10):
        st = load_game("butifarra").new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(4, 30)):
            st.apply(rng.choice(st.legal_actions()))
        seat = st.current_player
        assert seat is not None
        for k in range(5):
            d = st.determinize(seat, random.Random(k))
            assert hand_of(d, seat) == hand_of(st, seat)
            assert [len(hand_of(d, s)) for s in range(4)] == [len(hand_of(st, s)) for s in range(4)]
            assert not d.invariant_violations()
            assert d.legal_actions() == st.legal_actions()


def test_b1_option_seed_reading_all_points() -> None:
    for st in random_deals(60, score_over_36=False):
        a, b = sides(st)
        mult = st.observation(0)["multiplier"]
        row = st.score_sheet()[0]
        if a == b:
            assert row == [0.0] * 4
        else:
            best = max(a, b)
            assert sorted(row) == [0.0, 0.0, best * mult, best * mult]


def test_partner_exemption_used_fires_exactly_when_the_strict_rule_refuses_the_card() -> None:
    from engine.cards import card as card_id
    from engine.games.manille._manille import BUTIFARRA_ORDER, MANILLE_RULE
    from tests.trick_reference import legal_plays, trick_winner
    checked = fired = 0
    for seed in range(80):
        st = load_game("butifarra").new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            if st.phase == "play":
                seat = st.current_player
                obs = st.observation(seat)
                trick = [card_id(t) for _, t in obs["trick"]]
                action = rng.choice(st.legal_actions())
                if trick:
                    trump = None if obs["trump"] == "none" else "CDHS".index(obs["trump"])
                    w = trick_winner(trick, trump, BUTIFARRA_ORDER)
                    if obs["trick"][w][0] == obs["partner"]:
                        hand = st.zones()[f"hand{seat}"]
                        strict = legal_plays(hand, trick, w, trump, BUTIFARRA_ORDER, MANILLE_RULE, False)
                        before = len(events(st, "butifarra.partner_exemption_used"))
                        st.apply(action)
                        got = len(events(st, "butifarra.partner_exemption_used")) - before
                        assert got == (not strict >> card_id(action.split()[1]) & 1)
                        checked += 1
                        fired += got
                        continue
                st.apply(action)
            else:
                st.apply(rng.choice(st.legal_actions()))
    assert checked > 500 and fired > 20
