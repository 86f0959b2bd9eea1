"""Hartenjagen (RULES.md 2.3): every decision H1-H6 and every rule event, on injected deals.

The injected deals are built so that a whole line of play follows from a few rules:
``ONE_SUIT_EACH`` gives seat 0 every club, seat 1 every diamond, seat 2 every heart and seat 3
every spade, so seat 0 wins every trick.
"""
from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

import pytest

from engine import IllegalAction, State, load_game
from engine.cards import RANKS, SUIT_MASKS, card, cards_of, token
from tests import gamekit
from tests.conformance import leaked_cards, random_playout
from tests.gamekit import events

GAME = "hartenjagen"


def suit(s: str, ranks: str = RANKS) -> list[str]:
    return [r + s for r in ranks]


def toks(text: str) -> list[str]:
    return text.split()


def deal(hands: list[list[str]], direction: str = "none", dealer: int = 0) -> dict[str, object]:
    assert sorted(t for h in hands for t in h) == sorted(suit("C") + suit("D") + suit("H") + suit("S"))
    return {"dealer": dealer, "hands": hands, "stock": [], "upcard": None, "pass_direction": direction}


def play_first_legal(state: State, n: int | None = None) -> None:
    """Apply the first legal action ``n`` times (or to the end of the match)."""
    while not state.is_over() and (n is None or n > 0):
        state.apply(state.legal_actions()[0])
        if n is not None:
            n -= 1


def hearts(actions: Iterable[str]) -> list[str]:
    return [a for a in actions if a.endswith("H")]


ONE_SUIT_EACH = [suit("C"), suit("D"), suit("H"), suit("S")]

# Seat 3 wins trick 1 with AC; no heart falls; seat 3 then holds hearts, QS and AS.
HEARTS_AND_SPADES_LEADER = [
    toks("2C 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S"),
    toks("3C 8D 9D TD JD QD KD AD 8S 9S TS JS KS"),
    toks("4C 5C 6C 7C 8C 9C TC JC QC KC 2H 3H 4H"),
    toks("AC 5H 6H 7H 8H 9H TH JH QH KH AH QS AS"),
]
# Seat 3 wins trick 1 with AC and then holds nothing but hearts.
ONLY_HEARTS_LEADER = [
    toks("2C 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S"),
    toks("3C 8D 9D TD JD QD KD AD 8S 9S TS JS KS"),
    toks("4C 5C 6C 7C 8C 9C TC JC QC KC AH QS AS"),
    ["AC", *suit("H", "23456789TJQK")],
]
# Seat 3 wins trick 1 with AC and then holds hearts and the queen of spades only.
HEARTS_AND_QS_LEADER = [
    toks("2C 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S"),
    toks("3C 8D 9D TD JD QD KD AD 8S 9S TS JS KS"),
    toks("4C 5C 6C 7C 8C 9C TC JC QC KC KH AH AS"),
    ["AC", "QS", *suit("H", "23456789TJQ")],
]
# Seats 2 and 3 can never win a trick: they hold only hearts / only spades and never lead.
TWO_SEATS_TAKE_NOTHING = [
    ["2C", *suit("D", "3456789TJQKA")],
    [*suit("C", "3456789TJQKA"), "2D"],
    suit("H"),
    suit("S"),
]


def new(hands: list[list[str]], direction: str = "none", **options: Any) -> State:
    return gamekit.from_deal(GAME, deal(hands, direction), options=options)


# --------------------------------------------------------------------- 2C leads, following suit
def test_two_of_clubs_leads_the_first_trick() -> None:
    for holder in range(4):
        hands = [list(h) for h in ONE_SUIT_EACH]
        hands[0], hands[holder] = hands[holder], hands[0]
        state = new(hands)
        assert state.phase == "play" and state.current_player == holder
        assert state.legal_actions() == ["play 2C"]
        with pytest.raises(IllegalAction, match="2C"):
            state.apply("play 3C")


def test_follow_suit_and_highest_card_of_the_led_suit_wins() -> None:
    state = new(HEARTS_AND_SPADES_LEADER)
    state.apply("play 2C")
    assert state.legal_actions() == ["play 3C"]  # seat 1 must follow with its only club
    with pytest.raises(IllegalAction, match="follow suit"):
        state.apply("play 8D")
    state.apply("play 3C")
    state.apply("play KC")
    state.apply("play AC")
    assert state.current_player == 3  # AC took the trick; the winner leads
    obs = state.observation(0)
    assert obs["tricks"] == [{"leader": 0, "cards": ["2C", "3C", "KC", "AC"], "winner": 3}]


def test_off_suit_card_never_wins() -> None:
    state = new(ONE_SUIT_EACH, no_pts_on_first_trick=False)
    state.apply("play 2C")
    state.apply("play AD")
    state.apply("play AH")
    state.apply("play AS")
    assert state.current_player == 0
    assert state.observation(1)["points"] == [1, 0, 0, 0]


# --------------------------------------------------------------------- H1 passing
def test_h1_pass_direction_cycles_left_right_across_none() -> None:
    state = load_game(GAME, target=1000).new_match(seed=5, max_deals=5)
    seen: list[tuple[int, str]] = []
    rng = random.Random(5)
    while not state.is_over():
        if state.phase in ("pass", "play") and (not seen or seen[-1][0] != state.deal_no):
            seen.append((state.deal_no, state.observation(0)["pass_direction"]))
        state.apply(rng.choice(state.legal_actions()))
    assert seen == [(1, "left"), (2, "right"), (3, "across"), (4, "none"), (5, "left")]
    passed = [(e["deal"], e["direction"]) for e in events(state, "hartenjagen.cards_passed")]
    assert passed == [(1, "left"), (2, "right"), (3, "across"), (5, "left")]


@pytest.mark.parametrize("direction,offset", [("left", 1), ("across", 2), ("right", 3)])
def test_h1_three_cards_go_to_the_receiver_when_all_have_passed(direction: str, offset: int) -> None:
    state = new(ONE_SUIT_EACH, direction)
    assert state.phase == "pass" and state.current_player == 0
    assert state.legal_actions() == ["pass " + t for t in suit("C")]
    chosen = {s: [ONE_SUIT_EACH[s][i] for i in (12, 0, 5)] for s in range(4)}
    for s in range(4):
        for k, t in enumerate(chosen[s]):
            assert state.current_player == s and state.phase == "pass"  # X2: seat order
            state.apply("pass " + t)
            if (s, k) != (3, 2):
                assert len(state.observation(s)["hand"]) == 12 - k
    assert state.phase == "play"
    for s in range(4):
        hand = state.observation(s)["hand"]
        assert len(hand) == 13
        assert set(chosen[(s - offset) % 4]) <= set(hand)
        assert not set(chosen[s]) & set(hand)
    # the 2C went with seat 0's pass: its receiver leads it
    assert state.current_player == offset
    assert state.legal_actions() == ["play 2C"]
    ev = events(state, "hartenjagen.cards_passed")
    assert len(ev) == 1 and ev[0]["direction"] == direction


def test_h1_x2_passed_cards_stay_hidden_until_everyone_has_passed() -> None:
    state = new(ONE_SUIT_EACH, "left")
    for t in ("AC", "KC", "QC"):
        state.apply("pass " + t)
    for t in ("AD", "KD"):
        state.apply("pass " + t)
    obs1 = state.observation(1)
    assert "AC" not in obs1["hand"] and len(obs1["hand"]) == 11  # not received yet
    assert obs1["passes_made"] == [3, 2, 0, 0]
    for seat in (1, 2, 3):
        assert not leaked_cards(state, seat)
        shown = state.observation(seat)
        for table in ("card_order", "card_points"):  # every card of the deck, public: no leak
            assert shown.pop(table)["AC"] is not None
        assert "AC" not in json.dumps(shown)
    assert state.hidden_cards(2) >> card("AC") & 1  # seat 0's passed card is hidden from seat 2
    # the passer knows where its cards are
    assert not state.hidden_cards(0) >> card("AC") & 1
    assert state.observation(0)["passed"] == ["QC", "KC", "AC"] and state.observation(0)["passed_to"] == 1


def test_h1_passer_knows_its_cards_after_the_exchange() -> None:
    state = new(ONE_SUIT_EACH, "left")
    play_first_legal(state, 12)
    assert state.phase == "play"
    passed = state.observation(0)["passed"]
    assert passed == ["2C", "3C", "4C"]
    hidden = state.hidden_cards(0)
    assert all(not hidden >> card(t) & 1 for t in passed)
    assert set(passed) <= set(state.observation(1)["hand"])
    assert state.observation(1)["received"] == passed and state.observation(1)["received_from"] == 0
    # seat 2 does not know what seat 0 passed to seat 1
    assert all(state.hidden_cards(2) >> card(t) & 1 for t in passed)
    assert not leaked_cards(state, 2)


def test_h1_pass_errors_are_clear() -> None:
    state = new(ONE_SUIT_EACH, "left")
    with pytest.raises(IllegalAction, match="must first pass"):
        state.apply("play 2C")
    with pytest.raises(IllegalAction, match="does not hold"):
        state.apply("pass 2D")
    state.apply("pass 2C")
    with pytest.raises(IllegalAction, match="already passed"):
        state.apply("pass 2C")
    play_first_legal(state, 11)
    with pytest.raises(IllegalAction, match="play a card"):
        state.apply("pass " + state.observation(state.current_player or 0)["hand"][0])


def test_h1_no_passing_without_pass_cards() -> None:
    state = load_game(GAME, pass_cards=False).new_match(seed=3, max_deals=4)
    random_playout(state, random.Random(3))
    assert not events(state, "hartenjagen.cards_passed")
    assert not [a for a in state.history if a.startswith("pass")]
    with pytest.raises(ValueError, match="pass_cards"):
        load_game(GAME, pass_cards=False).new_match(seed=1, deal=deal(ONE_SUIT_EACH, "left"))


# --------------------------------------------------------------------- H2 leading hearts
def test_h2_no_heart_lead_before_broken() -> None:
    state = new(HEARTS_AND_SPADES_LEADER)
    for a in ("play 2C", "play 3C", "play 4C", "play AC"):
        state.apply(a)
    assert state.current_player == 3 and not state.observation(3)["hearts_broken"]
    assert state.legal_actions() == ["play QS", "play AS"]
    with pytest.raises(IllegalAction, match="hearts are not broken"):
        state.apply("play 5H")
    state.apply("play AS")
    state.apply("play 2S")
    state.apply("play 8S")
    state.apply("play 2H")  # seat 2 has no spade: the discarded heart breaks hearts
    broken = events(state, "hartenjagen.hearts_broken")
    assert [(e["seat"], e["card"]) for e in broken] == [(2, "2H")]
    assert state.current_player == 3
    assert hearts(state.legal_actions()) == ["play " + t for t in suit("H", "56789TJQKA")]
    assert not events(state, "hartenjagen.forced_heart_lead")


def test_h2_only_hearts_leader_may_lead_hearts() -> None:
    state = new(ONLY_HEARTS_LEADER)
    for a in ("play 2C", "play 3C", "play 4C", "play AC"):
        state.apply(a)
    assert state.current_player == 3 and not state.observation(3)["hearts_broken"]
    assert state.legal_actions() == ["play " + t for t in suit("H", "23456789TJQK")]
    state.apply("play 7H")
    forced = events(state, "hartenjagen.forced_heart_lead")
    assert [(e["seat"], e["card"]) for e in forced] == [(3, "7H")]
    assert [e["seat"] for e in events(state, "hartenjagen.hearts_broken")] == [3]
    assert state.observation(0)["voids"][3] == ["C", "D", "S"]  # shown by the forced lead


def test_h2_leader_with_hearts_and_qs_must_lead_the_queen() -> None:
    state = new(HEARTS_AND_QS_LEADER)
    for a in ("play 2C", "play 3C", "play 4C", "play AC"):
        state.apply(a)
    assert state.legal_actions() == ["play QS"]


def test_h2_qs_breaks_hearts() -> None:
    state = new(HEARTS_AND_QS_LEADER)
    for a in ("play 2C", "play 3C", "play 4C", "play AC", "play QS"):
        state.apply(a)
    assert [(e["seat"], e["card"]) for e in events(state, "hartenjagen.hearts_broken")] == [(3, "QS")]
    state = new(HEARTS_AND_QS_LEADER, qs_breaks_hearts=False)
    for a in ("play 2C", "play 3C", "play 4C", "play AC", "play QS"):
        state.apply(a)
    assert not events(state, "hartenjagen.hearts_broken")
    assert not state.observation(0)["hearts_broken"]


def test_h2_must_break_hearts_off_allows_any_lead() -> None:
    state = new(HEARTS_AND_SPADES_LEADER, must_break_hearts=False)
    for a in ("play 2C", "play 3C", "play 4C", "play AC"):
        state.apply(a)
    assert len(state.legal_actions()) == 12 and "play 5H" in state.legal_actions()


# --------------------------------------------------------------------- H3 first trick
def test_h3_no_penalty_cards_on_the_first_trick() -> None:
    state = new(ONE_SUIT_EACH)
    state.apply("play 2C")
    assert state.legal_actions() == ["play " + t for t in suit("D")]
    state.apply("play AD")
    # seat 2 holds nothing but hearts: it may play one (the first trick with only penalty cards)
    assert state.legal_actions() == ["play " + t for t in suit("H")]
    state.apply("play 5H")
    # seat 3 holds QS and other spades: the queen is barred
    assert "play QS" not in state.legal_actions() and len(state.legal_actions()) == 12
    with pytest.raises(IllegalAction, match="first trick"):
        state.apply("play QS")
    state.apply("play KS")
    blocked = events(state, "hartenjagen.points_on_first_trick_blocked")
    assert [(e["seat"], e["held"]) for e in blocked] == [(3, ["QS"])]
    # after the first trick the queen may be discarded
    state.apply("play 3C")
    state.apply("play KD")
    state.apply("play 6H")
    assert "play QS" in state.legal_actions()


def test_h3_first_trick_with_only_penalty_cards() -> None:
    hands = [suit("C"), suit("D"), [*suit("H", "23456789TJQK"), "QS"], [*suit("S", "23456789TJKA"), "AH"]]
    state = new(hands)
    state.apply("play 2C")
    state.apply("play 2D")
    assert state.legal_actions() == ["play " + t for t in suit("H", "23456789TJQK")] + ["play QS"]
    state.apply("play QS")
    assert not events(state, "hartenjagen.points_on_first_trick_blocked")
    assert "play AH" not in state.legal_actions()  # seat 3 has spades besides the AH
    state.apply("play AS")
    assert [e["seat"] for e in events(state, "hartenjagen.points_on_first_trick_blocked")] == [3]
    assert [e["seat"] for e in events(state, "hartenjagen.qs_taken")] == [0]
    assert state.observation(0)["points"] == [13, 0, 0, 0]


def test_h3_option_off_allows_points_on_the_first_trick() -> None:
    state = new(ONE_SUIT_EACH, no_pts_on_first_trick=False)
    state.apply("play 2C")
    state.apply("play AD")
    state.apply("play 5H")
    assert "play QS" in state.legal_actions() and len(state.legal_actions()) == 13
    state.apply("play QS")
    assert not events(state, "hartenjagen.points_on_first_trick_blocked")


def _first_trick_deals(rng: random.Random, n: int) -> list[list[list[str]]]:
    """Random deals whose first trick often meets a seat void in clubs: the clubs go to one or two
    seats; now and then a void seat gets 13 of the 14 penalty cards (nothing else to play)."""
    out = []
    for _ in range(n):
        clubs = suit("C")
        rest = suit("D") + suit("H") + suit("S")
        rng.shuffle(clubs)
        rng.shuffle(rest)
        holders = rng.sample(range(4), rng.choice((1, 2)))
        hands: list[list[str]] = [[] for _ in range(4)]
        split = rng.randrange(0, 14) if len(holders) == 2 else 13
        for i, c in enumerate(clubs):
            hands[holders[0] if i < split or len(holders) == 1 else holders[1]].append(c)
        if rng.random() < 0.25:
            void = rng.choice([s for s in range(4) if s not in holders])
            pen = [t for t in rest if t.endswith("H") or t == "QS"][:13]
            hands[void] += pen
            rest = [t for t in rest if t not in pen]
        for s in range(4):
            while len(hands[s]) > 13:  # a holder of more than 13 clubs gives some back
                rest.append(hands[s].pop())
        for t in rest:
            s = next(s for s in rng.sample(range(4), 4) if len(hands[s]) < 13)
            hands[s].append(t)
        out.append(hands)
    return out


def test_h3_reason_mask_and_event_agree_on_random_states() -> None:
    # H3 is one rule (hartenjagen.H3, a tricks.FirstTrickBan): at every first-trick position of a
    # void seat, a card is refused exactly when the legal list (the hot path's mask) and the mask
    # from scratch leave it out, the refusal's reason is the rule's, and playing any legal card
    # fires points_on_first_trick_blocked exactly when cards were held back, naming exactly them
    from engine.cards import hand_tokens
    from engine.games.hartenjagen import H3, HartenjagenState
    rng = random.Random(2203)
    seen = {"held back": 0, "nothing held back": 0, "option off": 0}
    for hands in _first_trick_deals(rng, 150):
        for on in (True, False):
            state = new(hands, rng.choice(("none", "left", "right", "across")), no_pts_on_first_trick=on)
            assert isinstance(state, HartenjagenState)
            while state.passing:
                state.apply(rng.choice(state.legal_actions()))
            state.apply("play 2C")
            while state.nplayed < 4:
                seat = state.turn
                h = state.hands[seat]
                if not h & SUIT_MASKS[state.led]:
                    legal = {card(a.split()[1]) for a in state.legal_actions()}
                    assert sum(1 << c for c in legal) == state._legal_mask()
                    back = H3.held_back(h) if on else 0
                    assert legal == set(cards_of(h & ~back))
                    seen["held back" if back else "nothing held back" if on else "option off"] += 1
                    for c in cards_of(h):
                        twin = state.clone()
                        if c in legal:
                            before = len(twin.events)
                            twin.apply(f"play {token(c)}")
                            fired = [e for e in twin.events[before:]
                                     if e["event"] == "hartenjagen.points_on_first_trick_blocked"]
                            assert [(e["seat"], e["held"]) for e in fired] == (
                                [(seat, hand_tokens(back))] if back else [])
                        else:
                            with pytest.raises(IllegalAction) as refused:
                                twin.apply(f"play {token(c)}")
                            assert H3.why_refused(h, c) in str(refused.value)
                            assert str(refused.value).count("H3:") == 1
                state.apply(rng.choice(state.legal_actions()))
    assert min(seen.values()) >= 20, seen


# --------------------------------------------------------------------- H4 match end
def test_h4_match_ends_at_target_lowest_total_wins() -> None:
    for seed in range(30):
        state = load_game(GAME).new_match(seed=seed)
        random_playout(state, random.Random(seed))
        sheet = state.score_sheet()
        totals = [sum(row[s] for row in sheet) for s in range(4)]
        assert state.scores() == totals
        assert max(totals) >= 100
        before = [sum(row[s] for row in sheet[:-1]) for s in range(4)]
        assert max(before) < 100  # it did not end before
        best = min(totals)
        assert [r == 1 for r in state.ranking()] == [t == best for t in totals]
        over = events(state, "hartenjagen.match_over")
        assert len(over) == 1 and over[0]["deal"] == len(sheet) and over[0]["scores"] == totals
        assert over[0]["winners"] == [s for s in range(4) if totals[s] == best]


def test_h4_tie_for_lowest_is_a_shared_win() -> None:
    state = new(TWO_SEATS_TAKE_NOTHING, target=1)
    play_first_legal(state)
    assert state.is_over() and state.deal_no == 1
    scores = state.scores()
    assert scores[2] == scores[3] == 0 and scores[0] + scores[1] == 26
    ranking = state.ranking()
    assert ranking[2] == ranking[3] == 1 and sorted(ranking[:2]) == [3, 4]
    over = events(state, "hartenjagen.match_over")
    assert over[0]["winners"] == [2, 3] and over[0]["seat"] == scores.index(max(scores))


def test_h4_match_goes_on_below_target_and_max_deals_stops_it() -> None:
    state = new(TWO_SEATS_TAKE_NOTHING)
    play_first_legal(state, 52)
    assert not state.is_over() and state.deal_no == 2 and len(state.score_sheet()) == 1
    state = load_game(GAME).new_match(seed=2, max_deals=2)
    random_playout(state, random.Random(2))
    assert len(state.score_sheet()) == 2
    if max(state.scores()) < 100:
        assert not events(state, "hartenjagen.match_over")


# --------------------------------------------------------------------- H5 moon shot
def test_h5_moon_shot_gives_the_others_26() -> None:
    state = new(ONE_SUIT_EACH, target=1000)
    play_first_legal(state, 52)
    assert state.score_sheet() == [[0.0, 26.0, 26.0, 26.0]]
    assert state.scores() == [0.0, 26.0, 26.0, 26.0]
    moon = events(state, "hartenjagen.moon_shot")
    assert [(e["seat"], e["deal"]) for e in moon] == [(0, 1)]
    assert [e["seat"] for e in events(state, "hartenjagen.qs_taken")] == [0]
    assert not state.invariant_violations()


def test_h5_moon_shot_option_self_minus_26() -> None:
    state = new(ONE_SUIT_EACH, moon_shot="self_minus_26")
    play_first_legal(state, 52)
    assert state.score_sheet() == [[-26.0, 0.0, 0.0, 0.0]]
    assert not state.invariant_violations()


def test_h5_moon_shot_ends_the_match_at_target() -> None:
    state = new(ONE_SUIT_EACH, target=26)
    play_first_legal(state)
    assert state.is_over() and state.ranking() == [1, 2, 2, 2]
    over = events(state, "hartenjagen.match_over")
    assert over[0]["losers"] == [1, 2, 3] and over[0]["winners"] == [0]


# --------------------------------------------------------------------- H6 players
def test_h6_four_players_only() -> None:
    game = load_game(GAME)
    for n in (2, 3, 5):
        with pytest.raises(ValueError, match="players"):
            game.new_match(seed=1, players=n)
    assert game.new_match(seed=1).players == 4


# --------------------------------------------------------------------- deal sheet, options, errors
def test_every_deal_sums_to_26_or_78() -> None:
    for seed in range(40):
        state = load_game(GAME).new_match(seed=seed)
        random_playout(state, random.Random(seed), check_every_action=seed < 3)
        for deal_no, row in enumerate(state.score_sheet(), 1):
            moon = [e for e in events(state, "hartenjagen.moon_shot") if e["deal"] == deal_no]
            assert sum(row) == (78 if moon else 26)


def test_injected_deal_is_checked() -> None:
    game = load_game(GAME)
    bad_hands = [list(h) for h in ONE_SUIT_EACH]
    bad_hands[1][0] = "2C"
    with pytest.raises(ValueError, match="twice"):
        game.new_match(seed=1, deal={"dealer": 0, "hands": bad_hands, "stock": [], "upcard": None})
    with pytest.raises(ValueError, match="13"):
        game.new_match(seed=1, deal={"dealer": 0, "hands": [h[:12] for h in ONE_SUIT_EACH]})
    with pytest.raises(ValueError, match="pass_direction"):
        game.new_match(seed=1, deal=deal(ONE_SUIT_EACH, "sideways"))
    with pytest.raises(ValueError, match="upcard"):
        game.new_match(seed=1, deal={"dealer": 0, "hands": ONE_SUIT_EACH, "stock": [], "upcard": "QS"})
    state = game.new_match(seed=1, deal={"dealer": 2, "hands": ONE_SUIT_EACH, "stock": [], "upcard": None})
    assert state.phase == "pass" and state.observation(0)["pass_direction"] == "left"
    assert state.observation(0)["dealer"] == 2


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="target"):
        load_game(GAME, target=0)
    with pytest.raises(ValueError, match="moon_shot"):
        load_game(GAME, moon_shot="never")
    defaults = {o.name: o.default for o in type(load_game(GAME)).options_spec}
    assert defaults == {"pass_cards": True, "must_break_hearts": True, "qs_breaks_hearts": True,
                        "no_pts_on_first_trick": True, "target": 100, "moon_shot": "others_plus_26"}


def test_observation_shows_the_table_but_no_hidden_card() -> None:
    state = load_game(GAME).new_match(seed=9, max_deals=1)
    rng = random.Random(9)
    while not state.is_over():
        for seat in range(4):
            obs = state.observation(seat)
            json.dumps(obs)
            assert not leaked_cards(state, seat)
            assert obs["hand_counts"][seat] == len(obs["hand"])
            if state.phase == "play":
                shown = sum(len(t["cards"]) for t in obs["tricks"]) + len(obs["trick"])
                assert shown == 52 - sum(obs["hand_counts"])
        state.apply(rng.choice(state.legal_actions()))


# --------------------------------------------------------------------- determinize
def _mask(tokens: Iterable[str]) -> int:
    m = 0
    for t in tokens:
        m |= 1 << card(t)
    return m


def test_determinize_keeps_what_the_seat_knows() -> None:
    game = load_game(GAME)
    for seed in range(60):
        rng = random.Random(seed)
        state = game.new_match(seed=seed, max_deals=1)
        for _ in range(rng.randrange(0, 60)):
            state.apply(rng.choice(state.legal_actions()))
        seat = rng.randrange(4)
        before = state.observation(seat)
        det = state.determinize(seat, random.Random(seed + 1000))
        assert det.observation(seat) == before  # the seat cannot tell the difference
        assert not det.invariant_violations()
        assert det.history == state.history
        assert det.legal_actions() == state.legal_actions() or state.current_player != seat
        for s in range(4):
            hand = _mask(det.observation(s)["hand"])
            assert len(det.observation(s)["hand"]) == len(state.observation(s)["hand"])
            voids = state.observation(seat)["voids"][s] if state.phase == "play" else []
            for v in voids:
                assert not hand & SUIT_MASKS["CDHS".index(v)], (seed, s, v)
        if state.phase == "play" and before.get("passed"):
            receiver = before["passed_to"]
            still = _mask(before["passed"]) & _mask(state.observation(receiver)["hand"])
            assert _mask(det.observation(receiver)["hand"]) & still == still
        random_playout(det, random.Random(seed))  # it plays on to the end


def test_determinize_redeals_and_pins_the_two_of_clubs() -> None:
    state = new(ONE_SUIT_EACH, "left")
    play_first_legal(state, 12)
    leader = state.current_player
    assert leader == 1
    det_hands = set()
    for k in range(20):
        det = state.determinize(3, random.Random(k))
        assert det.current_player == leader and det.legal_actions() == ["play 2C"]
        det_hands.add(tuple(det.observation(0)["hand"]))
        assert det.observation(3)["hand"] == state.observation(3)["hand"]
    assert len(det_hands) > 1  # the hidden cards really are redealt


def test_clone_is_independent_and_fast_path_matches_slow_path() -> None:
    state = load_game(GAME).new_match(seed=4, max_deals=2)
    rng = random.Random(4)
    for _ in range(30):
        state.apply(rng.choice(state.legal_actions()))
    copy = state.clone()
    random_playout(copy, random.Random(1))
    assert len(state.history) == 30 and not state.is_over()
    # a non-canonical spelling goes through the slow path and means the same action
    legal = state.legal_actions()[0]
    other = state.clone()
    other.apply(legal.replace(" ", "   "))
    state.apply(legal)
    assert other.history == state.history and other.legal_actions() == state.legal_actions()


def test_all_cards_are_accounted_for() -> None:
    state = load_game(GAME).new_match(seed=8, max_deals=1)
    rng = random.Random(8)
    while not state.is_over():
        zones = state.zones()
        assert sum(m.bit_count() for m in zones.values()) == 52
        assert {token(c) for m in zones.values() for c in cards_of(m)} == set(
            suit("C") + suit("D") + suit("H") + suit("S"))
        state.apply(rng.choice(state.legal_actions()))


def test_each_deal_is_shake128_of_the_seed_and_deal_number() -> None:
    """Deal k of the match with seed s: the 416-byte SHAKE-128 stream of ``hartenjagen:s:k`` sorted
    into four hands (engine.games.hartenjagen.deal_keys, deal_hands), with no RNG state: the match
    never seeds its Mersenne Twister, a clone carries none, and two matches share no deal."""
    import hashlib

    from engine.games.hartenjagen import FULL, deal_hands, deal_keys

    for seed in (0, 7, -7, 2**70 + 3):
        y = int.from_bytes(hashlib.shake_128(f"hartenjagen:{seed}:1".encode()).digest(416), "little")
        assert deal_keys(seed, 1) == y
        state = load_game(GAME).new_match(seed=seed, players=4)
        assert state.hands == deal_hands(y)
        assert [h.bit_count() for h in state.hands] == [13] * 4 and sum(state.hands) == FULL
        hands_by_deal = [list(state.hands)]
        while not state.is_over() and state.deal_no < 3:
            deal_no = state.deal_no
            state.apply(state.legal_actions()[0])
            if state.deal_no != deal_no and not state.is_over():
                assert state.hands == deal_hands(deal_keys(seed, state.deal_no))
                hands_by_deal.append(list(state.hands))
        assert len({tuple(h) for h in hands_by_deal}) == len(hands_by_deal) == 3
        assert state._rng is None and state.clone()._rng is None
    assert deal_hands(deal_keys(7, 1)) != deal_hands(deal_keys(-7, 1))


def test_deals_are_uniform_over_seats() -> None:
    """Each of the 52 cards lands on each seat a quarter of the time (2,000 deals: a chi-square
    over the 208 card x seat cells, far below what a biased deal would give)."""
    from engine.games.hartenjagen import deal_hands, deal_keys

    n = 2000
    counts = [[0] * 4 for _ in range(52)]
    for seed in range(n):
        hands = deal_hands(deal_keys(seed, 1))
        for s, h in enumerate(hands):
            for c in range(52):
                counts[c][s] += h >> c & 1
    expected = n / 4
    chi2 = sum((x - expected) ** 2 / expected for row in counts for x in row)
    assert chi2 < 260, chi2  # 153 degrees of freedom: mean 153, sd 17.5; 260 is 6 sd out
    assert all(abs(x - expected) < 6 * (n * 3 / 16) ** 0.5 for row in counts for x in row)
