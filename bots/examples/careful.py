"""A class bot that reads its observations: a starting point for a real bot.

It enters every game (no ``GAMES`` list) and decides from what the observation shows:

* ``call`` when the game offers it and the hand total (``hand_value``) is small;
* a card to play: the lowest it may play (A high; the game's own order may differ, see
  ``cardarena rules GAME``);
* a discard: the combination of the most cards, highest ranks first;
* anything else: the first legal action.

It also counts the cards it has seen played (``played`` or ``tricks``, where the game shows
them), to show how state is kept between moves of one match.

    cardarena bots validate bots/examples/careful.py
"""
from __future__ import annotations

import random
from typing import Any

RANKS = "23456789TJQKA"


def rank_of(token: str) -> int:
    """2 -> 0 ... A -> 12; a joker (JK or JK=6H) counts 13."""
    return 13 if token.startswith("JK") else RANKS.index(token[0])


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)
        self.seen: set[str] = set()

    def remember(self, obs: dict[str, Any]) -> None:
        for card in obs.get("played") or []:
            self.seen.add(card)
        for trick in obs.get("tricks") or []:
            self.seen.update(trick.get("cards", []))

    def act(self, obs: dict[str, Any]) -> str:
        self.remember(obs)
        legal: list[str] = obs["legal_actions"]
        if "call" in legal and isinstance(obs.get("hand_value"), int) and obs["hand_value"] <= 3:
            return "call"
        plays = [a for a in legal if a.startswith("play ") and len(a.split()) == 2]
        if plays:
            return min(plays, key=lambda a: rank_of(a.split()[1]))
        discards = [a for a in legal if a.startswith("discard ")]
        if discards:
            return max(discards, key=lambda a: (len(a.split()), sum(rank_of(t) for t in a.split()[1:])))
        if "draw stock" in legal:
            return "draw stock"
        return legal[0]
