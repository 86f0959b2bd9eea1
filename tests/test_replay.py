"""engine/replay.py: the one replay loop (verify, the match viewer and the playthroughs use it)."""
from __future__ import annotations

import random

import pytest

from engine import GAMES, IllegalAction, State
from engine.replay import replay, start


def played(game: str, seed: int) -> State:
    """A match of ``game`` played to its end at random (one deal)."""
    state = start(game, {}, seed=seed, max_deals=1)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("game", GAMES)
def test_a_replay_of_the_logged_actions_is_the_same_match(game: str) -> None:
    """Every game: the same identity and actions give the same history, events, scores and ranking;
    each ply carries its seat, deal and the events it fired, which add up to the match's events."""
    original = played(game, 3)
    actions = list(original.history)
    again = start(game, {}, seed=3, max_deals=1)
    before = list(again.events)
    plies = list(replay(again, actions))
    assert [p.action for p in plies] == actions and [p.index for p in plies] == list(range(len(actions)))
    assert again.is_over() and again.history == original.history and again.events == original.events
    assert again.scores() == original.scores() and again.ranking() == original.ranking()
    assert before + [e for p in plies for e in p.events] == original.events
    assert all(0 <= p.seat < again.players and p.deal >= 1 for p in plies)


def test_a_replay_stops_when_the_actions_run_out_and_when_the_match_is_over() -> None:
    original = played("hartenjagen", 5)
    actions = list(original.history)
    state = start("hartenjagen", {}, seed=5, max_deals=1)
    assert len(list(replay(state, actions[:10]))) == 10 and not state.is_over()
    assert len(list(replay(state, [*actions[10:], "play 2C"]))) == len(actions) - 10 and state.is_over()


def test_an_illegal_action_raises_and_leaves_the_state_as_before_it() -> None:
    original = played("hartenjagen", 5)
    actions = list(original.history)
    state = start("hartenjagen", {}, seed=5, max_deals=1)
    steps = replay(state, [*actions[:4], "play XX"])
    for _ in range(4):
        next(steps)
    history, events = list(state.history), list(state.events)
    with pytest.raises(IllegalAction):
        next(steps)
    assert state.history == history and state.events == events


def test_a_chooser_sees_the_state_before_each_action_and_stops_with_none() -> None:
    state = start("hartenjagen", {}, seed=2, max_deals=1)
    seen: list[int] = []

    def first_legal(s: State) -> str | None:
        if len(s.history) == 7:
            return None
        seen.append(len(s.history))
        return s.legal_actions()[0]

    plies = list(replay(state, first_legal))
    assert seen == list(range(7)) and len(plies) == 7 and len(state.history) == 7


def test_start_refuses_an_unknown_game_or_option_in_one_line() -> None:
    with pytest.raises(ValueError, match="no_such_game"):
        start("no_such_game")
    with pytest.raises(ValueError):
        start("hartenjagen", {"no_such_option": 1})
