"""engine.rl's PettingZoo AEC environment (issue 24, sections 4 and 6; docs/rl.md)."""
from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

import engine
from engine import IllegalAction, load_game
from engine.rl import action_space, placement_rewards
from engine.rl.pettingzoo import CardArenaEnv, env, raw_env

QUICK = {"butifarra", "manille_parlee", "manille_muette", "handjas", "schutjassen", "jo_jotte", "klop_bela",
         "klop_bela_3p", "honderden", "honderden_3p", "tonk", "klop_rummy", "wildcard_rummy", "ramino_klop"}
"""Games whose api_test (1000 cycles) and seed_test (500) take a few seconds; the others run them
in the slow suite, and a shorter version in the fast one."""
EXPECTED = ("Observation is not a NumPy array", "Observation space for each agent probably should be")
"""The two warnings every dict-observation card game gets from api_test."""


def run_checks(game_id: str, api_cycles: int, seed_cycles: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(game_id), num_cycles=api_cycles)
        seed_test(lambda: env(game_id), num_cycles=seed_cycles)
    unexpected = {str(w.message)[:120] for w in caught if not str(w.message).startswith(EXPECTED)}
    assert not unexpected


@pytest.mark.parametrize("game_id", [g for g in engine.GAMES if g in QUICK])
def test_api_and_seed_tests_pass(game_id: str) -> None:
    run_checks(game_id, 1000, 500)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", [g for g in engine.GAMES if g not in QUICK])
def test_api_and_seed_tests_pass_slow_games(game_id: str) -> None:
    run_checks(game_id, 1000, 500)


@pytest.mark.parametrize("game_id", [g for g in engine.GAMES if g not in QUICK])
def test_api_and_seed_tests_pass_short(game_id: str) -> None:
    run_checks(game_id, 60, 40)


def test_placement_rewards_share_tied_places() -> None:
    assert placement_rewards([1, 2, 3, 4]) == [1.0, pytest.approx(1 / 3), pytest.approx(-1 / 3), -1.0]
    assert placement_rewards([1, 3, 1, 3]) == [pytest.approx(2 / 3), pytest.approx(-2 / 3)] * 2  # partners
    assert placement_rewards([2, 1]) == [-1.0, 1.0]
    assert placement_rewards([1, 1, 1]) == [0.0, 0.0, 0.0]
    assert placement_rewards([1, 2, 2]) == [1.0, -0.5, -0.5]


def random_episode(e: Any, rng: random.Random, steps: int = 100_000) -> dict[str, float]:
    """Play one episode with random legal ids; the total reward of each agent."""
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(steps):
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        legal = np.flatnonzero(obs["action_mask"])
        e.step(None if terminated or truncated else int(rng.choice(list(legal))))
    return total


@pytest.mark.parametrize("game_id", ["hartenjagen", "manillen", "klop_rummy", "genive", "honderden_3p",
                                     "tonk"])
def test_placement_rewards_are_zero_sum_in_minus_one_one(game_id: str) -> None:
    e = env(game_id, max_deals=1)
    for seed in range(3):
        e.reset(seed=seed)
        total = random_episode(e, random.Random(seed))
        assert abs(sum(total.values())) < 1e-9
        assert all(-1 <= v <= 1 for v in total.values())
        st = e.unwrapped.engine_state
        assert [total[a] for a in e.possible_agents] == placement_rewards(st.ranking())


@pytest.mark.parametrize("game_id", ["hartenjagen", "genive", "klop_rummy", "manillen"])
def test_score_rewards_sum_to_the_sign_adjusted_sheet(game_id: str) -> None:
    e = raw_env(game_id, max_deals=3, reward="score")
    e.reset(seed=4)
    total = random_episode(e, random.Random(4))
    st = e.engine_state
    assert st is not None and st.is_over()
    sign = -1 if load_game(game_id).lower_score_wins else 1
    want = [sign * sum(row[s] for row in st.sheet) for s in range(st.players)]
    assert [total[a] for a in e.possible_agents] == pytest.approx(want)


def test_reset_seed_is_the_engines_match_and_seeded_sequences_repeat() -> None:
    e = raw_env("klop_rummy")
    e.reset(seed=7)
    st = e.engine_state
    assert st is not None and st.seed == 7
    assert st.observation(0) == load_game("klop_rummy").new_match(seed=7).observation(0)

    def five(en: CardArenaEnv) -> list[tuple[int, list[str]]]:
        out = []
        for k in range(5):
            en.reset(seed=11) if k == 0 else en.reset()
            random_episode(en, random.Random(k), steps=200)
            assert en.engine_state is not None
            out.append((en.engine_state.seed, list(en.engine_state.history)))
        return out

    a, b = five(raw_env("hartenjagen", max_deals=1)), five(raw_env("hartenjagen", max_deals=1))
    assert a == b and len({s for s, _ in a}) == 5 and a[0][0] == 11
    fresh = raw_env("hartenjagen")
    fresh.reset()
    other = raw_env("hartenjagen")
    other.reset()
    assert fresh.engine_state is not None and other.engine_state is not None
    assert fresh.engine_state.seed != other.engine_state.seed


def test_a_seeded_reset_keeps_options_and_reward() -> None:
    e = raw_env("hartenjagen", max_deals=1, reward="score", target=50)
    for s in (1, 2):
        e.reset(seed=s)
        st = e.engine_state
        assert st is not None and st.game.options["target"] == 50 and e.reward_kind == "score"
        assert st.max_deals == 1


@pytest.mark.parametrize("game_id", ["hartenjagen", "jokeren_nl", "zenuwen", "genive", "loba"])
def test_masks_selection_and_infos_follow_the_engine(game_id: str) -> None:
    space = action_space(game_id)
    for players in sorted({load_game(game_id).min_players, load_game(game_id).max_players}):
        e = raw_env(game_id, players=players)
        e.reset(seed=3)
        assert e.action_space("player_0").n == space.size
        assert e.action_space("player_0") is e.action_space("player_0")
        assert e.observation_space("player_1") is e.observation_space("player_1")
        rng = random.Random(3)
        for _ in range(300):
            st = e.engine_state
            assert st is not None
            if st.is_over():
                break
            cur = e.agent_selection
            assert cur == f"player_{st.current_player}"
            for a in e.agents:
                obs = e.observe(a)
                assert obs["action_mask"].dtype == np.int8
                assert obs["observation"].dtype == np.float32 and obs["observation"].shape == e.encoder.shape
                if a == cur:
                    want = sorted(space.id(x) for x in st.legal_actions())
                    assert np.flatnonzero(obs["action_mask"]).tolist() == want
                    assert e.infos[a] == {"legal_actions": st.legal_actions()}
                else:
                    assert not obs["action_mask"].any() and e.infos[a] == {}
            e.step(int(rng.choice(list(np.flatnonzero(e.observe(cur)["action_mask"])))))


def test_max_steps_truncates_every_agent() -> None:
    e = raw_env("hartenjagen", max_steps=5)
    e.reset(seed=1)
    for _ in range(5):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert all(e.truncations.values()) and not any(e.terminations.values())


def test_render_ansi() -> None:
    e = raw_env("hartenjagen", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and "player_" in text and "hand" in text


# ----------------------------------------------------------------------------- section 6: bad input
def test_raw_env_bad_ids_are_value_errors_and_change_nothing() -> None:
    e = raw_env("hartenjagen")
    e.reset(seed=1)
    st = e.engine_state
    assert st is not None
    legal = set(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())
    illegal = next(i for i in range(104) if i not in legal)
    before = (list(st.history), st.legal_actions(), e.agent_selection)
    for bad, match in ((1.5, "float"), ("play 2C", "str"), (True, "bool"), (None, "NoneType"),
                       (104, "outside"), (-1, "outside")):
        with pytest.raises(ValueError, match=match):
            e.step(bad)
    with pytest.raises(IllegalAction, match="not legal"):
        e.step(illegal)
    assert (list(st.history), st.legal_actions(), e.agent_selection) == before
    e.step(np.int64(min(legal)))  # numpy integers are ids
    assert len(st.history) == 1


def test_an_action_for_a_finished_agent_is_a_value_error() -> None:
    e = raw_env("klop_rummy", max_deals=1)
    e.reset(seed=2)
    random_episode_steps = 0
    while not all(e.terminations.values()):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        random_episode_steps += 1
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)


def test_wrapped_env_bad_input() -> None:
    e = env("hartenjagen")
    with pytest.raises(AssertionError, match="reset"):
        e.step(0)
    e.reset(seed=1)
    for bad in (1.5, "x", True, None, 104):
        with pytest.raises(AssertionError):
            e.step(bad)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    mover = e.agent_selection
    e.step(illegal)  # PettingZoo's classic rule: the episode ends, the mover gets -1
    assert all(e.terminations.values())
    assert e.rewards[mover] == -1


def test_unknown_game_option_or_players_is_the_engines_value_error() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        raw_env("hearts")
    with pytest.raises(ValueError, match="option"):
        raw_env("hartenjagen", trump=3)
    with pytest.raises(ValueError, match="players"):
        env("hartenjagen", players=3)
    with pytest.raises(ValueError, match="reward"):
        raw_env("hartenjagen", reward="win")
    with pytest.raises(ValueError, match="seed"):
        raw_env("hartenjagen").reset(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_deals"):
        raw_env("hartenjagen", max_deals=0)
