"""engine.rl's OpenSpiel games (issue 24, sections 5 and 6; docs/rl.md)."""
from __future__ import annotations

import json
import pickle
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pip open-spiel, the test extra) is not installed")

import engine  # noqa: E402
from engine import load_game  # noqa: E402
from engine.rl import action_space, placement_rewards  # noqa: E402
from engine.rl.openspiel import load  # noqa: E402

FULL_MATCH = ("butifarra", "manille_muette", "handjas", "klop_bela", "honderden", "tonk", "klop_rummy")
"""Games whose whole default match runs random_sim_test in a few seconds (its serialization replays
the match at every step); the others run it in the slow suite."""
QUICK_SIM = set(FULL_MATCH) | {"hartenjagen", "manillen", "jo_jotte", "klop_bela_3p", "honderden_3p",
                               "schutjassen", "kruisjassen", "grevjas", "zenuwen", "manille_parlee"}


def test_every_game_is_registered() -> None:
    names = set(pyspiel.registered_names())
    assert {f"cardarena_{g}" for g in engine.GAMES} <= names
    game = pyspiel.load_game("cardarena_loba")
    assert game.num_distinct_actions() == action_space("loba").size == 26371
    kind = game.get_type()
    assert kind.provides_observation_tensor and not kind.provides_information_state_tensor


@pytest.mark.parametrize("game_id", sorted(QUICK_SIM))
def test_random_sim_test_two_deals(game_id: str) -> None:
    pyspiel.random_sim_test(load(game_id, max_deals=2), num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(set(engine.GAMES) - QUICK_SIM))
def test_random_sim_test_two_deals_slow(game_id: str) -> None:
    pyspiel.random_sim_test(load(game_id, max_deals=2), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", FULL_MATCH)
def test_random_sim_test_whole_match(game_id: str) -> None:
    pyspiel.random_sim_test(load(game_id), num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", sorted(set(engine.GAMES) - set(FULL_MATCH)))
def test_random_sim_test_whole_match_slow(game_id: str) -> None:
    pyspiel.random_sim_test(load(game_id), num_sims=1, serialize=True, verbose=False)


def start(game: Any, seed: int) -> Any:
    state = game.new_initial_state()
    for b in seed.to_bytes(4, "big"):
        assert state.is_chance_node()
        state.apply_action(b)
    return state


def same_match(a: Any, b: Any) -> bool:
    return bool(a.engine_state.history == b.engine_state.history and str(a) == str(b)
                and a.observation_string(a.current_player()) == b.observation_string(b.current_player()))


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_states_follow_the_engine(game_id: str) -> None:
    game = load(game_id, max_deals=2)
    space = action_space(game_id)
    assert game.num_distinct_actions() == space.size
    for seed in (1, 2) if game_id in QUICK_SIM else (1,):
        state = start(game, seed)
        st = state.engine_state
        assert st.seed == seed and st.history == []
        rng = random.Random(seed)
        n = 0
        while not state.is_terminal():
            assert state.current_player() == st.current_player
            legal = state.legal_actions()
            assert legal == sorted(space.id(a) for a in st.legal_actions())
            assert [state.action_to_string(state.current_player(), i) for i in legal] == [space.string(i)
                                                                                          for i in legal]
            assert len(state.observation_tensor()) == game.observation_tensor_size()
            if n in (0, 25):
                check_round_trips_and_bad_ids(game, state)
            state.apply_action(rng.choice(legal))
            n += 1
        returns = state.returns()
        assert abs(sum(returns)) < 1e-9 and all(-1 <= r <= 1 for r in returns)
        assert returns == placement_rewards(st.ranking())
        with pytest.raises(pyspiel.SpielError, match="over"):
            state.apply_action(0)


def check_round_trips_and_bad_ids(game: Any, state: Any) -> None:
    text = pyspiel.serialize_game_and_state(game, state)
    _, back = pyspiel.deserialize_game_and_state(text)
    assert same_match(back, state)
    assert same_match(pickle.loads(pickle.dumps(state)), state)
    before = (list(state.engine_state.history), str(state))
    illegal = next(i for i in range(game.num_distinct_actions()) if i not in state.legal_actions())
    for bad in (illegal, game.num_distinct_actions(), -1, 1.5, True, "0", None):
        with pytest.raises(pyspiel.SpielError):
            state.apply_action(bad)
    assert (list(state.engine_state.history), str(state)) == before
    p = state.current_player()
    sample = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.observation_string(p) == state.observation_string(p)
    assert str(state) == before[1]


def test_illegal_id_carries_the_engines_reason() -> None:
    game = load("klop_rummy", max_deals=1)
    state = start(game, 7)
    with pytest.raises(pyspiel.SpielError, match="must now draw"):
        state.apply_action(action_space("klop_rummy").id("knock"))


def test_chance_bytes_and_str() -> None:
    game = load("hartenjagen")
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 256 and state.engine_state is None
    with pytest.raises(pyspiel.SpielError, match=r"0\.\.255"):
        state.apply_action(256)
    seen = {str(state)}
    for b in (1, 2, 3, 4):
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, b).startswith("seed byte")
        state.apply_action(b)
        seen.add(str(state))
    assert state.engine_state.seed == 0x01020304
    state.apply_action(state.legal_actions()[0])
    seen.add(str(state))
    assert len(seen) == 6
    obs = json.loads(state.observation_string(0))
    assert obs == json.loads(json.dumps(state.engine_state.observation(0), sort_keys=True))


def test_parameters_and_bad_ones() -> None:
    game = load("wildcard_rummy", packs=2, players=7, max_deals=1)
    assert game.num_players() == 7 and game.get_parameters()["packs"] == 2
    assert load("wildcard_rummy").get_parameters()["packs"] == 0  # None
    assert game.max_game_length() == 200_000 and game.max_chance_outcomes() == 256
    with pytest.raises(pyspiel.SpielError, match="takes 2 to 5 players"):
        load("klop_rummy", players=9)
    with pytest.raises(pyspiel.SpielError, match="option target"):
        load("klop_rummy", target=-5)
    with pytest.raises(ValueError, match="unknown game"):
        load("hearts")
    short = load("hartenjagen", max_game_length=30)
    state = start(short, 3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.engine_state.history) == 26 and abs(sum(state.returns())) < 1e-9


@pytest.mark.parametrize("game_id", ["hartenjagen", "klop_rummy"])
def test_ismcts_bot_moves_and_evaluate_bots_plays_a_match(game_id: str) -> None:
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    class Bot(ismcts.ISMCTSBot):  # type: ignore[misc]
        def restart_at(self, state: Any) -> None:  # evaluate_bots restarts every bot at the match start
            pass

    game = load(game_id, max_deals=1)
    bot = Bot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 10,
              random_state=np.random.RandomState(0), use_observation_string=True,
              allow_inconsistent_action_sets=True)
    state = start(game, 5)
    assert bot.step(state) in state.legal_actions()
    bots = [bot] + [pyspiel.make_uniform_random_bot(i, i) for i in range(1, game.num_players())]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(1))
    assert abs(sum(returns)) < 1e-9 and len(returns) == load_game(game_id).default_players


@pytest.mark.parametrize("game_id", engine.GAMES)
def test_python_calls_answer_as_the_cpp_path(game_id: str) -> None:
    """``legal_actions`` and ``observation_tensor`` called from Python skip pyspiel's C++ detour
    (five calls back into Python; a throw-away initial state to size the tensor) and give what it
    gives, for every seat, at chance nodes, during play and at the end; bad seats are SpielErrors."""
    game = load(game_id, max_deals=1)
    assert game.observation_tensor_shape() == pyspiel.Game.observation_tensor_shape(game)
    assert game.observation_tensor_size() == pyspiel.Game.observation_tensor_size(game)
    state = game.new_initial_state()
    rng = random.Random(3)
    steps = 0
    while True:
        for p in range(game.num_players()):
            assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p)
            assert state.observation_tensor(p) == pyspiel.State.observation_tensor(state, p)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for bad in (-1, game.num_players()):
            with pytest.raises(pyspiel.SpielError):
                state.observation_tensor(bad)
        if state.is_terminal():
            break
        if steps == 80:  # then straight to the end of the deal
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    with pytest.raises(pyspiel.SpielError):
        state.observation_tensor()
