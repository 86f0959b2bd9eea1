"""cardarena's rules engine: pure Python, no I/O.

>>> from engine import load_game, GAMES
>>> "hartenjagen" in GAMES
True
"""
from __future__ import annotations

from engine.core import GAMES, Game, Option, State, game_class, load_game, rank_by
from engine.errors import IllegalAction

__all__ = ["GAMES", "Game", "IllegalAction", "Option", "State", "game_class", "load_game", "rank_by"]
