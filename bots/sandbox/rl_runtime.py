"""``cardarena_rl``: engine.rl's action ids and observation tensors inside the bot sandbox.

A sandboxed bot imports this as ``cardarena_rl`` (docs/bots.md, "What a bot can import"); the host
never imports it under this name.  :mod:`bots.sandbox.library` assembles the package: this file as
its ``__init__.py``, read-only copies of ``engine/rl/actions.py`` and ``engine/rl/tensors.py`` as
``_actions.py`` and ``_tensors.py`` (the one implementation of the ids and the tensors, run here as
they are, constructors included), and ``tables/``: what those two read from the engine, exported as
JSON (the card constants; per game its player counts, ``action_forms``, the catalogues its
``action_catalogue`` lists, its deck, its state class's ``PHASES``, ``TENSOR``, ``TENSOR_SKIP`` and
observation keys, and the deck mask of a match at each player count).  Nothing else of the project is
visible: the ``engine`` names the two files import resolve, only while they load, to stand-ins that
serve those tables (``load_game`` returns a :class:`_Game` with the game's default options).

- :func:`action_space` is ``engine.rl.action_space`` (the same ids, ``id``/``string``/``block_of``);
- :func:`observation_encoder` is ``engine.rl.observation_encoder`` with the game's default options
  (the same ``encode``, ``shape`` and ``layout``);
- :func:`legal_ids` and :func:`legal_mask` read an observation's ``legal_actions``.
"""
from __future__ import annotations

import builtins
import json
import os
import sys
import types
from functools import cache
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(HERE, "tables")


def _read(name: str) -> Any:
    with open(os.path.join(TABLES, name), encoding="utf-8") as f:
        return json.load(f)


class _Tables:
    """A deck's card tables: only ``deck`` (what engine.rl reads)."""

    def __init__(self, deck: list[str]) -> None:
        self.deck = tuple(deck)


class _Game:
    """A game as engine.rl reads it (``check_players``, ``new_match``, ``card_tables``,
    ``action_catalogue``, its class's ``action_forms``), served from the game's table."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.id = table["game"]
        self.table = table

    def check_players(self, players: Any) -> int:
        t = self.table
        n = t["default_players"] if players is None else players
        if isinstance(n, bool) or not isinstance(n, int) or not t["min_players"] <= n <= t["max_players"]:
            seats = (str(t["min_players"]) if t["min_players"] == t["max_players"]
                     else f"{t['min_players']} to {t['max_players']}")
            raise ValueError(f"{self.id} takes {seats} players, got {players!r:.20}")
        return int(n)

    def new_match(self, seed: Any = 0, players: Any = None) -> Any:
        n = self.check_players(players)
        return _state_class(self.id)(self.table["deck_mask"][str(n)])

    def card_tables(self) -> _Tables:
        return _Tables(self.table["deck"])

    def action_catalogue(self, form: str) -> list[str]:
        return list(self.table["catalogues"][form])


@cache
def _state_class(game_id: str) -> type:
    """A stand-in for the game's state class: its name, ``PHASES``, ``TENSOR``, ``TENSOR_SKIP`` and
    observation keys; an instance holds a match's ``deck_mask``."""
    st = _game_table(game_id)["state"]
    keys = dict(st["observation_keys"])

    def init(self: Any, deck_mask: int) -> None:
        self.deck_mask = deck_mask

    return type(st["name"], (), {"PHASES": tuple(st["PHASES"]), "TENSOR": dict(st["TENSOR"]),
                                 "TENSOR_SKIP": dict(st["TENSOR_SKIP"]), "__init__": init,
                                 "observation_keys": classmethod(lambda cls: dict(keys))})


@cache
def _game_class(game_id: str) -> type:
    return type("Game", (_Game,), {"action_forms": tuple(_game_table(game_id)["action_forms"])})


def _load_game(game_id: Any, **options: Any) -> _Game:
    if options:
        raise ValueError(f"cardarena_rl has the default options of each game only, not {sorted(options)}")
    table = _table(game_id)
    game: _Game = _game_class(table["game"])(table)
    return game


def _shims(actions: types.ModuleType | None) -> dict[str, types.ModuleType]:
    """The ``engine`` modules the two engine.rl files import, holding only what they read."""
    consts = _read("engine.json")
    cards = types.ModuleType("engine.cards")
    vars(cards).update(PACK=consts["PACK"], RANKS=consts["RANKS"], SUITS=consts["SUITS"],
                       TOKENS=tuple(consts["TOKENS"]))
    core = types.ModuleType("engine.core")
    vars(core).update(OBSERVATION_COMMON=tuple(consts["OBSERVATION_COMMON"]), load_game=_load_game,
                      Game=_Game, State=object)
    out = {"engine": types.ModuleType("engine"), "engine.cards": cards, "engine.core": core}
    if actions is not None:
        out["engine.rl.actions"] = actions
    return out


def _load(name: str, shims: dict[str, types.ModuleType]) -> types.ModuleType:
    """Run ``_<name>.py`` (a copy of ``engine/rl/<name>.py``) as ``cardarena_rl._<name>``, its
    ``engine`` imports answered by ``shims`` and nothing else."""
    path = os.path.join(HERE, f"_{name}.py")
    real = builtins.__import__

    def imp(mod: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if mod == "engine" or mod.startswith("engine."):
            if mod not in shims:
                raise ImportError(f"cardarena_rl has no {mod}")
            return shims[mod] if fromlist else shims["engine"]
        return real(mod, globals_, locals_, fromlist, level)

    module = types.ModuleType(f"{__name__}._{name}")
    module.__file__ = path
    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": imp}
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec")
    sys.modules[module.__name__] = module   # dataclasses look their module up there
    exec(code, module.__dict__)
    return module


_actions = _load("actions", _shims(None))
_tensors = _load("tensors", _shims(_actions))

ActionSpace = _actions.ActionSpace
ObservationEncoder = _tensors.ObservationEncoder
GAMES: tuple[str, ...] = tuple(_read("games.json"))
"""The games whose tables are here (every game of the engine)."""


def _table(game_id: Any) -> dict[str, Any]:
    if not isinstance(game_id, str):
        raise ValueError(f"a game id is a str, got {type(game_id).__name__}")
    if game_id not in GAMES:
        raise ValueError(f"unknown game {game_id[:60]!r} (cardarena_rl.GAMES lists the {len(GAMES)} games)")
    return _game_table(game_id)


@cache
def _game_table(game_id: str) -> dict[str, Any]:
    out: dict[str, Any] = _read(f"{game_id}.json")
    return out


def action_space(game_id: str) -> Any:
    """engine.rl's :class:`ActionSpace` of ``game_id`` (built once, then cached)."""
    return _space(_table(game_id)["game"])


@cache
def _space(game_id: str) -> Any:
    return ActionSpace(game_id)


def observation_encoder(game_id: str, players: int | None = None) -> Any:
    """engine.rl's :class:`ObservationEncoder` of ``game_id`` for ``players`` seats (None: the
    game's default), with the game's default options (built once, then cached)."""
    return _encoder(_table(game_id)["game"], _load_game(game_id).check_players(players))


@cache
def _encoder(game_id: str, players: int) -> Any:
    return ObservationEncoder(game_id, players)


def legal_ids(space: Any, observation: dict[str, Any]) -> list[int]:
    """The ids of the observation's ``legal_actions``, ascending."""
    return sorted(space.id(a) for a in observation["legal_actions"])


def legal_mask(space: Any, observation: dict[str, Any]) -> Any:
    """A 0/1 ``int8`` vector of length ``space.size``: 1 at every legal id (PettingZoo's mask)."""
    m = np.zeros(space.size, dtype=np.int8)
    m[legal_ids(space, observation)] = 1
    return m


__all__ = ["GAMES", "ActionSpace", "ObservationEncoder", "action_space", "legal_ids", "legal_mask",
           "observation_encoder"]
