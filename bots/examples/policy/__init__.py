"""A trained policy as a submitted bot: a package bot that carries its weights.

``policy.npz`` beside this file holds ``W`` (action ids x tensor entries, float32) and ``game`` (the
game it was trained for), exactly what the REINFORCE example of docs/rl.md saves.  Each move the bot
encodes its observation with engine.rl's encoder, computes the logits ``W @ x``, masks every id that
is not legal and plays the best legal id.  It imports numpy and ``cardarena_rl`` (engine.rl's action
ids and encoder), which the sandbox offers every bot read-only (docs/bots.md, "What a bot can
import"); the weights load once, at import, inside the start-up time limit.

    cardarena bots validate bots/examples/policy
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np
from cardarena_rl import action_space, legal_mask, observation_encoder

HERE = os.path.dirname(os.path.abspath(__file__))
with np.load(os.path.join(HERE, "policy.npz")) as saved:
    W = np.asarray(saved["W"], dtype=np.float32)
    TRAINED_FOR = str(saved["game"])

GAMES = [TRAINED_FOR]


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.space = action_space(game)
        self.encoder: Any = None

    def act(self, observation: dict[str, Any]) -> str:
        if self.encoder is None:   # the player count is in the first observation
            self.encoder = observation_encoder(observation["game"], observation["players"])
            if W.shape != (self.space.size, self.encoder.shape[0]):
                raise ValueError(f"policy.npz: W is {W.shape}, {TRAINED_FOR} needs "
                                 f"{(self.space.size, self.encoder.shape[0])}")
        x = self.encoder.encode(observation)
        logits = np.where(legal_mask(self.space, observation) == 1, W @ x, -np.inf)
        return str(self.space.string(int(np.argmax(logits))))
