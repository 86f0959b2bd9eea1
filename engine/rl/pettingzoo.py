"""The PettingZoo AEC environment of every game (issue 24, section 4; docs/rl.md).

``env(game_id, ...)`` wraps :class:`CardArenaEnv` the way PettingZoo's classic card games are
wrapped (``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``); ``raw_env(...)`` is the bare environment.  Agents ``player_0`` ..
``player_{n-1}`` are the engine's seats and ``agent_selection`` is always the engine's current player.
Requires the ``rl`` extra (``pip install -e '.[rl]'``).
"""
from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium.spaces import Box, Dict, Discrete
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from engine.core import State, load_game
from engine.rl.actions import action_space as game_action_space
from engine.rl.rewards import placement_rewards
from engine.rl.tensors import observation_encoder

REWARDS = ("placement", "score")


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


class CardArenaEnv(AECEnv[str, dict[str, Any], int]):
    """One cardarena game as a PettingZoo AEC environment; an episode is one match."""

    def __init__(self, game_id: str, players: int | None = None, max_deals: int | None = None,
                 reward: str = "placement", max_steps: int | None = None, render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        self.game = load_game(game_id, **options)  # unknown game or option: the engine's ValueError
        self.players = self.game.check_players(players)
        self.game.new_match(seed=0, players=self.players, max_deals=max_deals)  # checks max_deals
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if max_steps is not None and (not _is_int(max_steps) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game_id, self.max_deals, self.reward_kind = game_id, max_deals, reward
        self.max_steps, self.render_mode, self.options = max_steps, render_mode, dict(options)
        self.metadata = {"render_modes": ["ansi"], "name": f"cardarena_{game_id}_v0",
                         "is_parallelizable": False}
        self.space = game_action_space(game_id)
        self.encoder = observation_encoder(game_id, self.players, **options)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.space.size
        self._action_spaces = {a: Discrete(size) for a in self.possible_agents}
        self._observation_spaces = {a: Dict({
            "observation": Box(-1.0, 1.0, self.encoder.shape, np.float32),
            "action_mask": Box(0, 1, (size,), np.int8),
        }) for a in self.possible_agents}
        self._zeros = np.zeros(size, dtype=np.int8)
        self._ids = {s: i for i, s in enumerate(self.space.strings)}
        self._strings = self.space.strings
        self._seeds: random.Random | None = None
        self.engine_state: State | None = None
        self._cache: dict[str, dict[str, Any]] = {}
        self._mask: NDArray[np.int8] | None = None
        self._steps = 0
        self._rows = 0

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> Discrete:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            if not _is_int(seed):
                raise ValueError(f"seed must be an int (or None), got {type(seed).__name__} {seed!r:.40}")
            self._seeds = random.Random(int(seed))
            match_seed: int | None = int(seed)
        elif self._seeds is not None:
            match_seed = self._seeds.randrange(2**63)
        else:
            match_seed = None  # the engine draws a fresh seed from the operating system
        self.engine_state = self.game.new_match(seed=match_seed, players=self.players,
                                                max_deals=self.max_deals)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._steps = 0
        self._rows = 0
        self._select()

    def _select(self) -> None:
        """Point ``agent_selection`` at the engine's current player; refresh masks and infos."""
        st = self.engine_state
        assert st is not None
        self._cache = {}
        self._mask = None
        cur = st.current_player
        if cur is not None:
            prev: str | None = getattr(self, "agent_selection", None)
            if prev is not None and prev in self.infos:
                self.infos[prev] = {}
            self.agent_selection = self.possible_agents[cur]
            self.infos[self.agent_selection] = {"legal_actions": st.legal_actions()}
        else:
            for a in self.agents:
                self.infos[a] = {}
            if not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        got = self._cache.get(agent)
        if got is not None:
            return got
        st = self.engine_state
        if st is None:
            raise ValueError("observe() before reset()")
        seat = self._index[agent]
        if agent == self.agent_selection and not st.is_over():
            if self._mask is None:
                legal = self.infos[agent]["legal_actions"]
                mask = np.zeros(self.space.size, dtype=np.int8)
                mask.put(list(map(self._ids.__getitem__, legal)), 1)
                self._mask = mask
            mask = self._mask
        else:
            mask = self._zeros.copy()
        got = {"observation": self.encoder.encode(st.observation(seat)), "action_mask": mask}
        self._cache[agent] = got
        return got

    def raw_observation(self, agent: str) -> dict[str, Any]:
        """The observation dict the engine gives ``agent``'s seat (what the tensor encodes)."""
        if self.engine_state is None:
            raise ValueError("raw_observation() before reset()")
        return self.engine_state.observation(self._index[agent])

    def step(self, action: Any) -> None:
        if self.engine_state is None:
            raise ValueError("step() before reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # PettingZoo's: anything but None is a ValueError
            return
        st = self.engine_state
        assert st is not None
        if action.__class__ is not int and not _is_int(action):
            raise ValueError(f"an action of {self.game_id} is an int id 0..{self.space.size - 1}, "
                             f"got {type(action).__name__} {action!r:.40}")
        strings = self._strings
        # ValueError outside 0..size-1
        text = strings[action] if 0 <= action < len(strings) else self.space.string(action)
        st.apply(text)  # IllegalAction (a ValueError) with the engine's reason; nothing changed
        self._cumulative_rewards[agent] = 0.0
        self._steps += 1
        if self.reward_kind == "placement" and not st.is_over():
            # a ply that ends nothing earns nothing: last step's rewards go back to zeros, and
            # nothing is added to the cumulative rewards
            if any(self.rewards.values()):
                self.rewards = dict.fromkeys(self.agents, 0.0)
            if self.max_steps is not None and self._steps >= self.max_steps:
                self.truncations = dict.fromkeys(self.agents, True)
            self._select()
            return
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward_kind == "score":
            sign = -1.0 if self.game.lower_score_wins else 1.0
            for row in st.sheet[self._rows:]:
                for s, v in enumerate(row):
                    a = self.possible_agents[s]
                    if a in rewards:
                        rewards[a] += sign * float(v)
            self._rows = len(st.sheet)
        if st.is_over():
            if self.reward_kind == "placement":
                for s, r in enumerate(placement_rewards(st.ranking())):
                    rewards[self.possible_agents[s]] = r
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_steps is not None and self._steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = rewards
        self._accumulate_rewards()
        self._select()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.engine_state is None:
            return None
        st = self.engine_state
        cur = st.current_player
        seat = 0 if cur is None else cur
        obs = st.observation(seat)
        hand = obs.get("hand")
        lines = [f"{self.game_id} deal {st.deal_no} phase {st.phase} after {len(st.history)} actions; "
                 f"scores {st.scores()}",
                 "match over, ranking " + str(st.ranking()) if cur is None else f"player_{cur} to act",
                 f"hand of player_{seat}: {' '.join(hand) if isinstance(hand, list) else hand}"]
        if cur is not None:
            legal = st.legal_actions()
            lines.append(f"legal ({len(legal)}): {', '.join(legal[:12])}{', ...' if len(legal) > 12 else ''}")
        return "\n".join(lines)

    def close(self) -> None:
        pass


class _AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper[str, Any, int]):
    """PettingZoo's out-of-bounds assertion, a bool included (gymnasium's ``Discrete`` takes
    ``True`` for 1, which would then index the mask as a boolean)."""

    def step(self, action: Any) -> None:
        assert not isinstance(action, (bool, np.bool_)), "action is not in action space"
        super().step(action)


def raw_env(game_id: str, players: int | None = None, max_deals: int | None = None, reward: str = "placement",
            max_steps: int | None = None, render_mode: str | None = None, **options: Any) -> CardArenaEnv:
    """The unwrapped :class:`CardArenaEnv`."""
    return CardArenaEnv(game_id, players=players, max_deals=max_deals, reward=reward, max_steps=max_steps,
                        render_mode=render_mode, **options)


def env(game_id: str, players: int | None = None, max_deals: int | None = None, reward: str = "placement",
        max_steps: int | None = None, render_mode: str | None = None,
        **options: Any) -> AECEnv[str, Any, int]:
    """The environment wrapped as PettingZoo's classic card games are: an illegal id ends the
    episode with -1 for the mover, an out-of-range id is an assertion, and the order of calls is
    enforced."""
    e: AECEnv[str, Any, int] = raw_env(game_id, players, max_deals, reward, max_steps, render_mode, **options)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = _AssertOutOfBounds(e)
    return wrappers.OrderEnforcingWrapper(e)


__all__ = ["CardArenaEnv", "env", "raw_env"]
