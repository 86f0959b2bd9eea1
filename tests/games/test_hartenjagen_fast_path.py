"""Hartenjagen's fast path (issue 15): what the speed work keeps by construction rather than by
recomputing, checked against an independent recomputation from the public API.

* the match RNG is made without ``random.Random.__init__`` (engine.core._seeded_random) and must be
  the same generator, state and ``gauss_next`` included;
* the trick's winner is tracked as the cards fall (``wcard``/``wseat``) instead of being found at
  the end of the trick;
* H1: while passing, the legal list is one list shrunk by each pass, which a clone must not share.
"""
from __future__ import annotations

import random

import engine.games.hartenjagen as hj
from engine import load_game
from engine.cards import TOKENS, card, mask_names
from engine.core import _seeded_random

GAME = "hartenjagen"


def test_seeded_random_is_the_state_of_random_random() -> None:
    for seed in (0, 1, -1, 7, 2**31, 2**32 + 5, 2**63 - 1, 2**64 + 3, -(2**70), 10**30):
        fast, ref = _seeded_random(seed), random.Random(seed)
        assert type(fast) is random.Random
        assert fast.getstate() == ref.getstate(), seed
        # gauss() keeps a second value in gauss_next: both must pair the draws the same way
        assert [fast.gauss(0, 1) for _ in range(3)] == [ref.gauss(0, 1) for _ in range(3)]
        assert fast.getrandbits(3328) == ref.getrandbits(3328)


def test_trick_winner_is_the_highest_card_of_the_led_suit() -> None:
    game = load_game(GAME)
    tricks = 0
    for seed in range(120):
        state = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
            if state.is_over():
                break
            for t in state.observation(0).get("tricks", []):
                cards = [card(x) for x in t["cards"]]
                led = cards[0] // 13
                best = max(range(4), key=lambda k: cards[k] if cards[k] // 13 == led else -1)
                assert t["winner"] == (t["leader"] + best) % 4, (seed, t)
                tricks += 1
    assert tricks > 120 * 13  # every trick of every deal was checked, most of them many times


def test_h1_pass_list_shrinks_with_each_pass_and_a_clone_does_not_share_it() -> None:
    state = load_game(GAME).new_match(seed=3, max_deals=1)
    assert state.phase == "pass"
    hand = state.observation(0)["hand"]
    assert state.legal_actions() == [f"pass {c}" for c in hand]
    state.apply(f"pass {hand[0]}")
    assert state.legal_actions() == [f"pass {c}" for c in hand[1:]]
    copy = state.clone()
    copy.apply(f"pass {hand[1]}")
    assert state.legal_actions() == [f"pass {c}" for c in hand[1:]]  # the original is untouched
    assert copy.legal_actions() == [f"pass {c}" for c in hand[2:]]
    state.legal_actions().clear()  # a caller's list is its own
    assert state.legal_actions() == [f"pass {c}" for c in hand[1:]]
    state.apply(f"pass {hand[2]}")
    state.apply(f"pass {hand[3]}")  # the third card: seat 1 passes next, from its own hand
    assert state.current_player == 1
    assert state.legal_actions() == [f"pass {c}" for c in state.observation(1)["hand"]]


def test_mask_names_is_the_cards_of_the_mask_in_card_order() -> None:
    # the compiled build's card-by-card legal lists (engine.cards.mask_names) against the plain
    # definition and against the pure build's suit tables, over random masks of 0-52 cards
    rng = random.Random(15)
    masks = [0, hj.FULL, 1, 1 << 51, hj.HEARTS_MASK, hj.SPADES_MASK | 1]
    masks += [sum(1 << c for c in rng.sample(range(52), rng.randrange(53))) for _ in range(400)]
    for m in masks:
        for names, flat in ((hj.PLAY, hj.PLAY_FLAT), (hj.PASS, hj.PASS_FLAT)):
            want = [names[c] for c in range(52) if m >> c & 1]
            assert mask_names(names, m) == want, hex(m)
            assert [*flat[m & 8191], *flat[8192 | m >> 13 & 8191], *flat[16384 | m >> 26 & 8191],
                    *flat[24576 | m >> 39]] == want, hex(m)
        assert hj._pass_list(m) == [hj.PASS[c] for c in range(52) if m >> c & 1]


def test_native_is_true_only_in_the_compiled_module() -> None:
    assert hj.NATIVE is (not str(hj.__file__).endswith(".py"))


def test_h1_h2_h3_legal_list_is_the_mask_from_scratch_at_every_ply() -> None:
    # the list kept up to date by apply (a table entry, a shrinking pass list or built from _lm)
    # equals the cards of the rules' mask recomputed from scratch, and is the caller's own list
    game = load_game(GAME)
    plies = 0
    for seed in range(60):
        state = game.new_match(seed=seed, max_deals=2)
        rng = random.Random(seed)
        while not state.is_over():
            assert isinstance(state, hj.HartenjagenState)
            verb = "pass " if state.passing else "play "
            m = state._legal_mask()
            want = [verb + TOKENS[c] for c in range(52) if m >> c & 1]
            legal = state.legal_actions()
            assert legal == want, (seed, len(state.history))
            legal.clear()
            assert state.legal_actions() == want
            state.apply(rng.choice(want))
            plies += 1
    assert plies > 60 * 64
