"""One conformance suite, run over every registered game (pgx's api_test, OpenSpiel's basic tests).

A game joins by registering: every test here is parametrised over engine.GAMES.
"""
from __future__ import annotations

import json
import random
import sys

import pytest

from engine import GAMES, IllegalAction, load_game
from engine.cards import BASE_TOKENS
from tests.conformance import clone_isolation_walk, fingerprint, leaked_cards, pick, random_playout

MATCHES = 1000
"""Seeded random matches per game that must finish: the first ``FAST_MATCHES`` in ``make test``,
the rest in ``make test-slow`` (random play makes rummy matches thousands of actions long: 1,000 of
them are minutes of CPU per game, and 28 games would not fit ``make test``'s 15 minutes)."""
FAST_MATCHES = 200
LONG_MATCHES = {"jokeren_nl": 100, "amerikaans_jokeren": 100, "jokeren_drift": 100}
"""The games whose random matches cost the most (thousands of actions, the take-back cap's search at
each): ``make test`` plays their first 100 seeds, the slow test the rest up to ``MATCHES``."""
DEEP = 25
"""Matches per game checked after every action (invariants, observations, clones)."""
LONG_DEEP = {"amerikaans_jokeren": 12, "jokeren_drift": 12, "cincinnati_rummy": 12, "jokeren_nl": 12,
             "ramino_drift": 12}
"""The games whose observations cost the most to check at every action and seat: ``make test``
checks their first 12 of the ``DEEP`` matches, the slow test the rest."""
DEEP_DEALS = 3
"""Deals per deeply checked match: the first deals and the match end (max_deals) are covered,
while whole matches are left to test_random_matches_finish."""

CLONE_SEEDS = 6
"""Random matches per game walked by the clone-isolation property (``make test``; the slow suite
walks 40 more)."""

pytestmark = pytest.mark.skipif(not GAMES, reason="no game registered")


@pytest.mark.parametrize("game_id", GAMES)
def test_random_matches_finish(game_id: str) -> None:
    """Seeded random matches finish; the legal list is never empty before the end; cards are
    conserved and deal scores meet the game's invariants at every deal boundary; rankings are
    well-formed.  Seeds 0-199 here (0-99 for ``LONG_MATCHES``), the rest to 999 in the slow test
    below."""
    _random_matches(game_id, range(LONG_MATCHES.get(game_id, FAST_MATCHES)))


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_random_matches_finish_to_a_thousand(game_id: str) -> None:
    _random_matches(game_id, range(LONG_MATCHES.get(game_id, FAST_MATCHES), MATCHES))


def _random_matches(game_id: str, seeds: range) -> None:
    game = load_game(game_id)
    for seed in seeds:
        state = game.new_match(seed=seed)
        random_playout(state, random.Random(seed))
        ranking, scores = state.ranking(), state.scores()
        assert len(ranking) == len(scores) == state.players
        assert min(ranking) == 1 and all(1 <= r <= state.players for r in ranking)
        assert state.deal_no >= 1 and len(state.score_sheet()) >= 1


@pytest.mark.parametrize("game_id", GAMES)
def test_invariants_after_every_action(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(DEEP):
        random_playout(game.new_match(seed=10_000 + seed, max_deals=DEEP_DEALS), random.Random(seed),
                       check_every_action=True)


@pytest.mark.parametrize("game_id", GAMES)
def test_max_deals_stops_the_match(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(20):
        state = game.new_match(seed=seed, max_deals=1)
        random_playout(state, random.Random(seed))
        assert state.deal_no == 1 and len(state.score_sheet()) == 1


def _malformed(legal: list[str]) -> list[str]:
    verbs = sorted({a.split()[0] for a in legal})
    bad = ["", "   ", "play 10H", "play Q\u2660", "play qs", "frobnicate", "pass 1C", "discard JK=JK",
           "play", "draw", "trump X", "layoff 5H x", 42]  # type: ignore[list-item]
    bad += [f"{v} 10S" for v in verbs] + [f"{v} ZZ" for v in verbs]
    return bad  # type: ignore[return-value]


def _illegal(legal: list[str]) -> list[str]:
    """Well-formed actions that are not legal now: listed verbs with every other card, and
    shared verbs the game does not offer at this point."""
    out = []
    verbs = {a.split()[0] for a in legal}
    for v in verbs:
        for t in BASE_TOKENS[:53]:
            a = f"{v} {t}"
            if a not in legal:
                out.append(a)
    for a in ("call", "knock", "double", "trump H", "trump none", "draw stock", "pass", "delegate"):
        if a not in legal:
            out.append(a)
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_illegal_and_malformed_actions_raise_and_change_nothing(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(8):
        state = game.new_match(seed=seed, max_deals=DEEP_DEALS)
        rng = random.Random(seed)
        step = 0
        while not state.is_over():
            legal = state.legal_actions()
            if step % 7 == 0:
                before = fingerprint(state)
                for a in _malformed(legal) + rng.sample(_illegal(legal), k=min(40, len(_illegal(legal)))):
                    if a in legal:
                        continue
                    with pytest.raises(IllegalAction) as err:
                        state.apply(a)
                    assert str(err.value), "IllegalAction without a message"
                    assert "\n" not in str(err.value)
                assert fingerprint(state) == before, f"{game_id}: a refused action changed the state"
            state.apply(rng.choice(legal))
            step += 1
        with pytest.raises(IllegalAction):
            state.apply("play 2C")


def test_malformed_card_message_shows_the_right_form() -> None:
    state = load_game(GAMES[0]).new_match(seed=1)
    for bad, shown in (("play 10H", "TH"), ("play Q\u2660", "QS"), ("play qs", "QS")):
        with pytest.raises(IllegalAction, match="rank then suit"):
            state.apply(bad)
        with pytest.raises(IllegalAction, match=shown):
            state.apply(bad)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_listed_action_applies(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(6):
        state = game.new_match(seed=seed, max_deals=DEEP_DEALS)
        rng = random.Random(seed)
        step = 0
        while not state.is_over():
            legal = state.legal_actions()
            if step % 5 == 0:
                for a in legal:
                    state.clone().apply(a)
            state.apply(rng.choice(legal))
            step += 1


@pytest.mark.parametrize("game_id", GAMES)
def test_same_seed_and_actions_give_the_same_match(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(5):
        first = game.new_match(seed=seed)
        actions = random_playout(first, random.Random(seed))
        again = game.new_match(seed=seed)
        for a in actions:
            again.apply(a)
        assert again.is_over()
        assert fingerprint(again) == fingerprint(first)
        twin = game.new_match(seed=seed)
        random_playout(twin, random.Random(seed))
        assert twin.history == first.history and twin.events == first.events


@pytest.mark.parametrize("game_id", GAMES)
def test_clone_is_independent(game_id: str) -> None:
    game = load_game(game_id)
    for seed in range(5):
        state = game.new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 60)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        before = fingerprint(state)
        copy = state.clone()
        assert fingerprint(copy) == before
        rest = random_playout(copy, random.Random(seed + 1))
        assert fingerprint(state) == before, f"{game_id}: playing a clone changed the original"
        for a in rest:
            state.apply(a)
        assert fingerprint(state) == fingerprint(copy)


@pytest.mark.parametrize("game_id", GAMES)
def test_clone_isolation(game_id: str) -> None:
    """A copy shares nothing mutable with its original (CONTRACT: clone, determinize).  At random
    positions (random play that draws the verb first, so declarations, melds and take-backs come
    up), copies made by ``clone()`` and ``determinize()`` are played on at random; the original
    must still equal a replay of its history (legal actions, every seat's observation, events,
    scores, sheet, every field), play the same next 100 plies as the replay under a fixed RNG, and
    leave a clone made before unchanged; and at every ply on the way no mutable container is shared
    and copies played a few plies leave every field of the original as it was
    (tests/conformance.py: clone_isolation_walk; tests/clone_mutants.py shows it catches clones
    that share a field)."""
    bad = [b for seed in range(CLONE_SEEDS) for b in clone_isolation_walk(game_id, seed)]
    assert not bad, bad[:3]


@pytest.mark.slow
@pytest.mark.parametrize("game_id", GAMES)
def test_clone_isolation_more_matches(game_id: str) -> None:
    seeds = range(CLONE_SEEDS, CLONE_SEEDS + 40)
    bad = [b for seed in seeds for b in clone_isolation_walk(game_id, seed, late=True)]
    assert not bad, bad[:3]


@pytest.mark.parametrize("game_id", GAMES)
def test_determinize_for_any_seat_is_a_playable_position(game_id: str) -> None:
    """A ``determinize`` copy for any seat, not only the seat to act, is a position of the game:
    its invariants hold, its legal list is not empty before the end and every listed action
    applies (a copy must not keep what was worked out from a hand it redealt: Klop Rummy's knock
    discards, the drift rummies' take-back point and the line found after the third take-back)."""
    game = load_game(game_id)
    for seed in range(3):
        state = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not state.is_over() and len(state.history) < 300:
            if len(state.history) % 3 == 0:
                for seat in range(state.players):
                    copy = state.determinize(seat, random.Random(len(state.history) * 7 + seat))
                    where = f"{game_id} seed {seed} ply {len(state.history)} determinize({seat})"
                    assert not copy.invariant_violations(), where
                    legal = copy.legal_actions()
                    assert legal or copy.is_over(), where
                    for a in legal:
                        copy.clone().apply(a)
            state.apply(pick(rng, state.legal_actions()))


@pytest.mark.parametrize("game_id", GAMES)
def test_observation_never_shows_a_hidden_card(game_id: str) -> None:
    """At every action, no seat's observation shows a card it cannot know, in ``DEEP`` seeded
    matches (the first ``LONG_DEEP`` of them for the costliest games; the slow test below the rest)."""
    _no_hidden_card_shown(game_id, range(LONG_DEEP.get(game_id, DEEP)))


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(LONG_DEEP))
def test_observation_never_shows_a_hidden_card_in_the_other_matches(game_id: str) -> None:
    _no_hidden_card_shown(game_id, range(LONG_DEEP[game_id], DEEP))


def _no_hidden_card_shown(game_id: str, seeds: range) -> None:
    game = load_game(game_id)
    for seed in seeds:
        state = game.new_match(seed=seed, max_deals=DEEP_DEALS)
        rng = random.Random(seed)
        while not state.is_over():
            for seat in range(state.players):
                obs = state.observation(seat)
                json.dumps(obs)
                assert isinstance(obs["hand"], list) and "legal_actions" in obs
                assert obs["legal_actions"] == (state.legal_actions() if seat == state.current_player
                                                else [])
                leaked = leaked_cards(state, seat)
                assert not leaked, f"{game_id} seed {seed}: seat {seat} sees hidden {leaked}"
            state.apply(rng.choice(state.legal_actions()))
        for seat in range(state.players):  # the end: what is shown then must still be known
            assert not leaked_cards(state, seat), f"{game_id} seed {seed}: seat {seat} at the end"


@pytest.mark.parametrize("game_id", GAMES)
def test_unknown_option_and_player_count_are_clear_errors(game_id: str) -> None:
    with pytest.raises(ValueError, match="valid options"):
        load_game(game_id, no_such_option=1)
    game = load_game(game_id)
    cls = type(game)
    with pytest.raises(ValueError, match="players"):
        game.new_match(seed=1, players=cls.max_players + 1)
    with pytest.raises(ValueError, match="players"):
        game.new_match(seed=1, players=cls.min_players - 1)


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known games: " + GAMES[0]):
        load_game("nosuchgame")


@pytest.mark.parametrize("game_id", GAMES)
def test_game_declares_itself(game_id: str) -> None:
    cls = type(load_game(game_id))
    assert cls.name and cls.summary and cls.notation and cls.seed_ref and cls.family
    assert cls.min_players <= cls.default_players <= cls.max_players
    assert cls.__module__.endswith(game_id) and sys.modules[cls.__module__].__doc__
    for o in cls.options_spec:
        assert o.doc, f"option {o.name} of {game_id} has no doc"
