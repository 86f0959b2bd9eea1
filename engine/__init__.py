"""cardarena's rules engine: pure Python, no I/O.

>>> from engine import load_game, GAMES
>>> "hartenjagen" in GAMES
True
"""
from __future__ import annotations

from engine import _compiled

_compiled.activate()  # the compiled hot path when fresh, unless CARDARENA_COMPILED=0 (engine/_compiled.py)

from engine.core import GAMES, Game, Option, State, game_class, load_game, rank_by  # noqa: E402
from engine.errors import IllegalAction  # noqa: E402

__all__ = ["GAMES", "Game", "IllegalAction", "Option", "State", "game_class", "load_game", "rank_by"]
