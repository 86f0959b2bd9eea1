"""Play one match between players (in-process)."""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from bots.api import Player, builtin_player
from engine import State, load_game
from engine.core import Game


@dataclass
class MatchResult:
    game: str
    seed: int
    state: State
    moves: list[tuple[int, str]] = field(default_factory=list)
    """(seat, action) for every action, in order."""


def make_players(game: Game, names: Sequence[str], seed: int) -> list[Player]:
    """Built-in players for each seat, seeded from the match seed and the seat."""
    return [builtin_player(n, game.id, seat, seat_seed(seed, seat)) for seat, n in enumerate(names)]


def seat_seed(seed: int, seat: int) -> int:
    return random.Random(seed * 1_000_003 + seat).getrandbits(63)


def play_match(game: Game, players: Sequence[Player], seed: int, max_deals: int | None = None) -> MatchResult:
    """Play a whole match; each player sees only its own observations."""
    state = game.new_match(seed=seed, players=len(players), max_deals=max_deals)
    result = MatchResult(game.id, seed, state)
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        action = players[seat].act(state.observation(seat))
        state.apply(action)
        result.moves.append((seat, action))
    return result


def play(game_id: str, bot_names: Sequence[str], seed: int, max_deals: int | None = None,
         **options: object) -> MatchResult:
    game = load_game(game_id, **options)
    return play_match(game, make_players(game, bot_names, seed), seed, max_deals)
