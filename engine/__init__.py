"""cardarena's rules engine: pure Python, no I/O.

>>> from engine import load_game, GAMES
>>> "hartenjagen" in GAMES
True
"""
from __future__ import annotations

from engine import _compiled

_compiled.activate()  # CARDARENA_COMPILED=1: the compiled hot path, if fresh (engine/_compiled.py)

from engine.core import GAMES, Game, Option, State, game_class, load_game, rank_by  # noqa: E402
from engine.errors import IllegalAction  # noqa: E402

__all__ = ["GAMES", "Game", "IllegalAction", "Option", "State", "game_class", "load_game", "rank_by"]
