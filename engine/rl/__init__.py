"""The 28 games for learning agents (issue 24, docs/rl.md): fixed action ids, observation tensors,
and (in their own modules, imported on demand) a PettingZoo AEC environment
(:mod:`engine.rl.pettingzoo`) and an OpenSpiel game (:mod:`engine.rl.openspiel`).

Importing this package imports neither pettingzoo nor pyspiel.
"""
from __future__ import annotations

from engine.rl.actions import ActionSpace, Block, action_space
from engine.rl.rewards import placement_rewards
from engine.rl.tensors import ObservationEncoder, observation_encoder

__all__ = ["ActionSpace", "Block", "ObservationEncoder", "action_space", "observation_encoder",
           "placement_rewards"]
