"""OpenSpiel games for the 28 cardarena games (issue 24, section 5; docs/rl.md).

Importing this module registers ``cardarena_<id>`` for every game with ``pyspiel.register_game``;
:func:`load` is ``pyspiel.load_game`` with the name filled in.  The first four moves of every match
are chance moves, each one byte (0..255, uniform) of the 32-bit match seed; then the engine plays
the match from that seed.  Requires OpenSpiel (``pip install open-spiel``, in the ``test`` extra).
"""
from __future__ import annotations

import json
import random
import sys
from typing import Any

import numpy as np
import pyspiel

import engine
from engine.core import Game, State, load_game
from engine.errors import IllegalAction
from engine.rl.actions import action_space
from engine.rl.rewards import placement_rewards
from engine.rl.tensors import observation_encoder

SEED_BYTES = 4
MAX_GAME_LENGTH = 200_000
"""tests/conformance.MAX_ACTIONS: a match that reaches it ends there, ranked as it stands."""
OWN_PARAMS = ("players", "max_deals", "max_game_length")


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def parameter_spec(game_id: str) -> dict[str, Any]:
    """OpenSpiel parameters of a game: ``players``, ``max_deals`` (0 = none), ``max_game_length``
    and every option with its default (an option whose default is None is an int, 0 for None)."""
    cls = type(load_game(game_id))
    spec: dict[str, Any] = {"players": cls.default_players, "max_deals": 0,
                            "max_game_length": MAX_GAME_LENGTH}
    for o in cls.options_spec:
        spec[o.name] = 0 if o.default is None else o.default
    return spec


def _options(game_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The engine options of OpenSpiel parameters (0 stands for None where the default is None)."""
    cls = type(load_game(game_id))
    out = {}
    for o in cls.options_spec:
        if o.name in params:
            v = params[o.name]
            out[o.name] = None if o.default is None and v == 0 else v
    return out


def _game_type(game_id: str) -> Any:
    cls = type(load_game(game_id))
    return pyspiel.GameType(
        short_name=f"cardarena_{game_id}",
        long_name=f"cardarena {cls.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=parameter_spec(game_id))


class _Engine:
    """The engine state inside an OpenSpiel state: ``deepcopy`` is the engine's ``clone()``, and
    pickling is the replay recipe (game id, options, players, max_deals, seed, the actions)."""

    def __init__(self, state: State, options: dict[str, Any], replayable: bool = True) -> None:
        self.state = state
        self.options = options
        self.replayable = replayable

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone(), self.options, self.replayable)

    def __reduce__(self) -> tuple[Any, ...]:
        st = self.state
        if not self.replayable:
            raise pyspiel.SpielError("a resampled (determinized) state cannot be serialized: it is no replay "
                                     "of its match seed")
        return (_replay, (st.game.id, self.options, st.players, st.max_deals, st.seed, tuple(st.history)))


def _replay(game_id: str, options: dict[str, Any], players: int, max_deals: int | None, seed: int,
            history: tuple[str, ...]) -> _Engine:
    st = load_game(game_id, **options).new_match(seed=seed, players=players, max_deals=max_deals)
    for a in history:
        st.apply(a)
    return _Engine(st, options)


class CardArenaGame(pyspiel.Game):
    """One cardarena game (a subclass per game id is registered as ``cardarena_<id>``)."""

    GAME_ID = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        gid = self.GAME_ID
        full = {**parameter_spec(gid), **(params or {})}
        try:
            self.engine_game: Game = load_game(gid, **_options(gid, full))
            self.num_seats = self.engine_game.check_players(full["players"])
            md = full["max_deals"]
            self.max_deals = None if md == 0 else md
            self.engine_game.new_match(seed=0, players=self.num_seats, max_deals=self.max_deals)
        except ValueError as e:
            raise pyspiel.SpielError(str(e)) from None
        self.length = int(full["max_game_length"])
        self.options = _options(gid, full)
        self.space = action_space(gid)
        self.encoder = observation_encoder(gid, self.num_seats, **self.options)
        info = pyspiel.GameInfo(num_distinct_actions=self.space.size, max_chance_outcomes=256,
                                num_players=self.num_seats, min_utility=-1.0, max_utility=1.0,
                                utility_sum=0.0, max_game_length=self.length)
        super().__init__(_game_type(gid), info, full)
        self._zeros = [0.0] * self.encoder.shape[0]

    def observation_tensor_shape(self) -> list[int]:
        """The tensor's shape (pyspiel's own builds a new initial state to measure it)."""
        return list(self.encoder.shape)

    def observation_tensor_size(self) -> int:
        return self.encoder.shape[0]

    def observation_list(self, state: CardArenaState, player: int) -> list[float]:
        """``player``'s observation tensor as the list ``observation_tensor`` returns: the same
        values as the observer's (float32) tensor, written into a list of zeros at its nonzero
        entries (a tensor is mostly zeros; converting all of it costs 10 ns a value)."""
        out = self._zeros.copy()
        st = state.engine_state
        if st is not None:
            x = self.encoder.encode(st.observation(player))
            at = np.flatnonzero(x != 0)  # a bool scan: numpy's nonzero over float32 is 4x slower
            for i, v in zip(at.tolist(), x[at].tolist(), strict=True):
                out[i] = v
        return out

    def new_initial_state(self) -> CardArenaState:
        return CardArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CardArenaObserver:
        return CardArenaObserver(self)


class CardArenaState(pyspiel.State):
    """A match: four chance bytes of the seed, then the engine's match."""

    def __init__(self, game: CardArenaGame) -> None:
        super().__init__(game)
        self._bytes: list[int] = []
        self._engine: _Engine | None = None
        self._gid = game.GAME_ID
        self._length = game.length
        self._players = game.num_seats

    # ------------------------------------------------------------------ helpers
    @property
    def engine_state(self) -> State | None:
        """The engine's State (None during the chance moves)."""
        return None if self._engine is None else self._engine.state

    def _game(self) -> CardArenaGame:
        g: CardArenaGame = self.get_game()
        return g

    def seed(self) -> int | None:
        """The match seed the chance bytes make (None before the fourth)."""
        return None if self._engine is None else self._engine.state.seed

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self._engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        cur = self._engine.state.current_player
        assert cur is not None
        return cur

    def is_terminal(self) -> bool:
        e = self._engine
        if e is None:
            return False
        st = e.state
        return st.is_over() or len(st.history) + SEED_BYTES >= self._length

    def _legal_actions(self, player: int) -> list[int]:
        e = self._engine
        if e is None or self.is_terminal() or player != e.state.current_player:
            return []
        return action_space(self._gid).legal_ids(e.state)

    def legal_actions(self, player: Any = None) -> list[int]:
        """pyspiel's ``legal_actions([player])`` (the same answers as its C++ ``LegalActions``,
        without its five calls back into Python): none at the end, the 256 seed bytes at a chance
        node, the mover's ids, none for another seat."""
        if player is not None and not _is_int(player):
            raise TypeError(f"legal_actions(): a player is an int, got {type(player).__name__}")
        if self.is_terminal():
            return []
        e = self._engine
        if e is None:
            return list(range(256))
        cur = e.state.current_player
        if player is None or player == cur:
            return action_space(self._gid).legal_ids(e.state)
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {int(player)}")
        return []

    def observation_tensor(self, player: Any = None) -> list[float]:
        """pyspiel's ``observation_tensor([player])``: the section-3 tensor as a list of floats,
        equal to what the C++ observer path gives (which also builds a throw-away initial state to
        size its buffer)."""
        if player is None:
            player = self.current_player()
        elif not _is_int(player):
            raise TypeError(f"observation_tensor(): a player is an int, got {type(player).__name__}")
        if not 0 <= player < self._players:
            raise pyspiel.SpielError(f"player >= 0 and player < num_players_: player = {int(player)}, "
                                     f"num_players_ = {self._players}")
        return self._game().observation_list(self, int(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(b, 1 / 256) for b in range(256)]

    def apply_action(self, action: Any) -> None:
        """OpenSpiel's ``apply_action``, every bad id a ``pyspiel.SpielError`` (the state unchanged)."""
        self._check(action)
        super().apply_action(int(action))

    def _check(self, action: Any) -> None:
        if not _is_int(action):
            raise pyspiel.SpielError(f"an action of cardarena_{self._gid} is an int, got "
                                     f"{type(action).__name__} {action!r:.40}")
        if self.is_terminal():
            raise pyspiel.SpielError(f"the match is over; no action is legal (got {int(action)})")
        if self._engine is None:
            if not 0 <= action < 256:
                raise pyspiel.SpielError(f"a chance outcome (seed byte) is 0..255, got {int(action)}")
            return
        space = action_space(self._gid)
        if not 0 <= action < space.size:
            raise pyspiel.SpielError(f"action id {int(action)} is outside 0..{space.size - 1} ({self._gid})")
        # an illegal id: the engine's IllegalAction, raised by _apply_action as a SpielError

    def _apply_action(self, action: int) -> None:
        if self._engine is None:
            self._bytes.append(int(action))
            if len(self._bytes) == SEED_BYTES:
                game = self._game()
                seed = int.from_bytes(bytes(self._bytes), "big")
                st = game.engine_game.new_match(seed=seed, players=game.num_seats, max_deals=game.max_deals)
                self._engine = _Engine(st, game.options)
            return
        try:
            self._engine.state.apply(action_space(self._gid).string(action))
        except (IllegalAction, ValueError) as e:  # the engine changed nothing
            raise pyspiel.SpielError(f"id {action} ({e})") from None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {len(self._bytes)} = {action}"
        return action_space(self._gid).string(action)

    def returns(self) -> list[float]:
        e = self._engine
        if e is None or not self.is_terminal():
            return [0.0] * self._players
        return placement_rewards(e.state.ranking())

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardArenaState:
        """A clone whose engine state is ``determinize(player_id, Random(...))``, seeded from the sampler."""
        clone: CardArenaState = self.clone()
        e = self._engine
        if e is None or e.state.is_over():
            return clone
        try:
            x = float(probability_sampler())
        except TypeError:
            x = random.random()
        rng = random.Random(int(x * 2**53))
        clone._engine = _Engine(e.state.determinize(player_id, rng), e.options, replayable=False)
        return clone

    def __str__(self) -> str:
        e = self._engine
        if e is None:
            return f"cardarena_{self._gid}: seed bytes {self._bytes}"
        st = e.state
        last = "; ".join(st.history[-3:])
        return (f"cardarena_{self._gid} seed {st.seed} after {len(st.history)} actions (last: {last}); "
                f"deal {st.deal_no} phase {st.phase}; scores {st.scores()}")


class CardArenaObserver:
    """The section-3 tensor (``dict`` is the encoder's layout) and the observation as sorted JSON."""

    def __init__(self, game: CardArenaGame) -> None:
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.shape, np.float32)
        self.dict = {k: self.tensor[s] for k, s in self.encoder.layout.items()}

    def set_from(self, state: CardArenaState, player: int) -> None:
        st = state.engine_state
        if st is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.encoder.encode(st.observation(player))

    def string_from(self, state: CardArenaState, player: int) -> str:
        st = state.engine_state
        return "" if st is None else json.dumps(st.observation(player), sort_keys=True)


_module = sys.modules[__name__]
GAME_CLASSES: dict[str, type[CardArenaGame]] = {}


def register(game_id: str | None = None) -> None:
    """Register ``cardarena_<id>`` (every game when ``game_id`` is None) with pyspiel; idempotent."""
    for gid in [game_id] if game_id is not None else engine.GAMES:
        if gid in GAME_CLASSES:
            continue
        name = f"CardArenaGame_{gid}"
        cls = type(name, (CardArenaGame,), {"GAME_ID": gid, "__module__": __name__, "__qualname__": name})
        setattr(_module, name, cls)
        GAME_CLASSES[gid] = cls
        pyspiel.register_game(_game_type(gid), cls)


def load(game_id: str, **params: Any) -> Any:
    """``pyspiel.load_game("cardarena_<game_id>", params)``."""
    if not isinstance(game_id, str) or game_id not in engine.GAMES:
        raise ValueError(f"unknown game {game_id!r}")
    register(game_id)
    return pyspiel.load_game(f"cardarena_{game_id}", params)


register()

__all__ = ["CardArenaGame", "CardArenaObserver", "CardArenaState", "load", "register"]
