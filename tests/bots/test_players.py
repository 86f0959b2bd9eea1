"""The match loop's fault handling and the built-in players (random, greedy, ismcts)."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest

import bots.match
from bots.api import BUILTIN, builtin_player
from bots.builtin.greedy import Bot as Greedy
from bots.builtin.ismcts import Bot as Ismcts
from bots.match import MatchResult, make_players, placement, play, play_match, seat_seed
from bots.sandbox import SandboxPlayer
from engine import GAMES, State, game_class, load_game
from tests.bots.toygame import toy


class Scripted:
    """An in-process player that misbehaves on its ``when``-th move."""

    def __init__(self, how: str, when: int = 2) -> None:
        self.how, self.when, self.moves = how, when, 0

    def act(self, obs: dict[str, Any]) -> Any:
        self.moves += 1
        if self.moves < self.when:
            return obs["legal_actions"][0]
        if self.how == "raise":
            raise KeyError("no such key on purpose")
        if self.how == "illegal":
            return "play 2C"
        if self.how == "number":
            return 7
        return obs["legal_actions"][0]


def randoms(n: int = 4, seed: int = 9) -> list[Any]:
    return [builtin_player("random", "toy", s, seat_seed(seed, s)) for s in range(n)]


@pytest.mark.parametrize("how, outcome", [("raise", "crash"), ("illegal", "illegal"), ("number", "illegal")])
def test_in_process_fault_forfeits_and_the_match_completes(how: str, outcome: str) -> None:
    players = randoms()
    players[2] = Scripted(how)
    r = play_match(toy(), players, 9)
    assert r.state.is_over() and r.outcomes == ["ok", "ok", outcome, "ok"]
    f = r.faults[0]
    assert (f.seat, f.move, f.deal) == (2, 2, 1) and f.reason
    assert r.placement[2] == 4 and sorted(r.placement[:2] + r.placement[3:]) in ([1, 2, 3], [1, 1, 3],
                                                                                   [1, 2, 2], [1, 1, 1])
    assert r.fallback_moves[2] == 4 and f.line().startswith("seat 2: " + outcome)
    if how == "raise":
        assert "KeyError" in f.reason and "no such key on purpose" in f.traceback


def test_fault_results_are_reproducible() -> None:
    def once() -> MatchResult:
        players = randoms()
        players[1] = Scripted("raise")
        return play_match(toy(), players, 9)
    a, b = once(), once()
    assert a.moves == b.moves and a.placement == b.placement


def test_placement_puts_faulting_seats_last() -> None:
    assert placement([1, 2, 3, 4], ["ok"] * 4) == [1, 2, 3, 4]
    assert placement([1, 2, 3, 4], ["crash", "ok", "ok", "ok"]) == [4, 1, 2, 3]
    assert placement([2, 2, 1, 4], ["ok", "timeout", "ok", "illegal"]) == [2, 3, 1, 3]
    assert placement([1, 3, 1, 3], ["ok", "ok", "memory", "ok"]) == [1, 2, 4, 2]


def test_unknown_bot_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nosuchbot'"):
        make_players(toy(), ["random", "nosuchbot", "random", "random"], 1)
    with pytest.raises(ValueError, match="unknown built-in bot 'nope'"):
        builtin_player("nope", "toy", 0, 0)


# --------------------------------------------------------------------------- built-ins on every game
@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("name", ["random", "greedy"])
def test_builtin_plays_every_game_without_fault(game_id: str, name: str) -> None:
    n = game_class(game_id).default_players
    for seed in (1, 2):
        r = play(game_id, [name] * n, seed, max_deals=2)
        assert r.ok and r.state.is_over(), [f.line() for f in r.faults]


@pytest.mark.parametrize("game_id", GAMES)
def test_ismcts_plays_every_game_without_fault(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Ismcts, "iterations", 25)
    monkeypatch.setattr(Ismcts, "worlds", 4)
    n = game_class(game_id).default_players
    r = play(game_id, ["ismcts"] + ["greedy"] * (n - 1), 3, max_deals=1)
    assert r.ok and r.state.is_over(), [f.line() for f in r.faults]


def test_builtins_are_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Ismcts, "iterations", 30)
    gid = GAMES[0]
    n = game_class(gid).default_players
    a = play(gid, ["greedy", "ismcts"] + ["random"] * (n - 2), 4, max_deals=1)
    b = play(gid, ["greedy", "ismcts"] + ["random"] * (n - 2), 4, max_deals=1)
    assert a.moves == b.moves


@pytest.mark.parametrize("name", BUILTIN)
def test_builtins_run_in_the_sandbox_too(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The flag that forces the sandbox for built-ins (ISMCTS then gets its worlds over the pipe)."""
    monkeypatch.setattr(Ismcts, "iterations", 10)
    monkeypatch.setattr(Ismcts, "worlds", 3)
    gid = "hartenjagen" if "hartenjagen" in GAMES else GAMES[0]
    n = game_class(gid).default_players
    game = load_game(gid)
    names = [name] + ["random"] * (n - 1)
    players = make_players(game, names, 6, sandbox=True)
    try:
        assert all(isinstance(p, SandboxPlayer) for p in players)
        r = play_match(game, players, 6, max_deals=1)
    finally:
        for p in players:
            getattr(p, "close", lambda: None)()
    assert r.ok and r.state.is_over(), [f.line() for f in r.faults]
    if name != "ismcts":  # (the sandboxed ismcts runs its default budget, not the patched one)
        assert play(gid, names, 6, max_deals=1).moves == r.moves


# --------------------------------------------------------------------------- what ISMCTS is given
class Spy(Ismcts):
    """Records what it is handed."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.seen: list[tuple[dict[str, Any], list[State]]] = []

    def act_in_worlds(self, obs: dict[str, Any], worlds: Any) -> str:
        self.seen.append((obs, list(worlds)))
        return super().act_in_worlds(obs, worlds)


@pytest.mark.parametrize("game_id", GAMES)
def test_ismcts_gets_determinized_worlds_not_the_state(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every world is a separate state that shows the seat exactly its own observation, while the
    cards hidden from it lie elsewhere than in the real match in some world (in another hand, or
    in another hidden zone: Zenuwen's face-down piles are in nobody's hand)."""
    game = load_game(game_id)
    n = game_class(game_id).default_players
    spy = Spy(game_id, 0, 1, iterations=4)
    spy.worlds = 6
    players: list[Any] = [spy] + [Greedy(game_id, s, s) for s in range(1, n)]
    real_zones: list[dict[str, int]] = []
    states: list[State] = []
    hidden: list[int] = []
    orig = bots.match._worlds

    def capture(state: State, seat: int, want: list[int], rng: random.Random, obs: dict[str, Any]
                ) -> list[State]:
        states.append(state)
        real_zones.append(state.zones())
        hidden.append(state.hidden_cards(seat))
        return orig(state, seat, want, rng, obs)
    monkeypatch.setattr(bots.match, "_worlds", capture)
    play_match(game, players, 11, max_deals=1)
    assert spy.seen, "ismcts never got to choose"
    assert all(s is states[0] for s in states)
    moved = 0
    for (obs, worlds), zones in zip(spy.seen, real_zones, strict=False):
        for w in worlds:
            assert w is not states[0]
            engine_obs = {k: v for k, v in obs.items() if k not in bots.match.MATCH_OBSERVATION}
            assert json.dumps(w.observation(0), sort_keys=True) == json.dumps(engine_obs, sort_keys=True)
            if w.zones() != zones:
                moved += 1
    assert moved > 0 or not any(hidden), "cards were hidden from the seat, yet every world kept them in place"
