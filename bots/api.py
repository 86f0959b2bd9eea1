"""The bot interface (CONTRACT.md) and how players are made from names.

A bot is a Python file, or a folder with ``__init__.py``, defining either ``act(observation) -> str``
or a class ``Bot(game, seat, seed)`` with ``act(observation) -> str``; an optional ``GAMES`` list
limits the games it enters.  Built-in players are named by their module under ``bots/builtin``.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

Observation = dict[str, Any]


class Player(Protocol):
    def act(self, observation: Observation) -> str: ...


BUILTIN = ("random",)
"""Names of the built-in players."""


class FunctionPlayer:
    """Adapts a module-level ``act(observation)`` to the :class:`Player` protocol."""

    def __init__(self, fn: Callable[[Observation], str]) -> None:
        self.act = fn


def builtin_player(name: str, game: str, seat: int, seed: int) -> Player:
    """A built-in player by name; ``ValueError`` naming the known ones otherwise."""
    if name not in BUILTIN:
        raise ValueError(f"unknown built-in bot {name!r}; built-in bots: {', '.join(BUILTIN)}")
    module = importlib.import_module(f"bots.builtin.{name}")
    player: Player = module.Bot(game, seat, seed)
    return player
