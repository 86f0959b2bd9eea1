"""Replaying a match: start it as it was started, then play its actions one at a time.

The one replay loop of the project.  ``cardarena verify`` checks a logged match with it
(tournaments/analysis/verify.py), the match viewer records what each seat saw after every ply
(dashboards), and the golden playthroughs play a seeded random match with it (tests/playthrough.py).
A match is known by its identity, the columns the log keeps of it: game id, options, seed, players
and ``max_deals`` (:func:`start`); the same identity and actions give the same match (CONTRACT.md).

    state = start("hartenjagen", {}, seed=7, players=4, max_deals=1)
    for ply in replay(state, ["pass 2C 3C 4C", ...]):
        ply.index, ply.seat, ply.deal, ply.action, ply.events   # the state is now after the action

``actions`` is the logged list, or a chooser called with the state before each action (a player, or
checks made before each logged action) that returns the action, or None to stop.  The replay stops
when the actions run out or the match is over, whichever comes first; an illegal action raises
:class:`~engine.errors.IllegalAction` and leaves the state as it was before that action.  Pure: no I/O.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import State, load_game

Chooser = Callable[[State], str | None]
"""The action to play from this state (None: stop here)."""


@dataclass(frozen=True)
class Ply:
    """One action of a replay, just played."""

    index: int
    """The action's number in the match, from 0 (the length of the history before it)."""
    seat: int
    """The seat that played it."""
    deal: int
    """The deal it was played in."""
    phase: str
    """The phase it was played in."""
    action: str
    events: list[dict[str, Any]]
    """The rule events it fired, in order."""


def start(game: str, options: Mapping[str, Any] | None = None, seed: Any = 0, players: Any = None,
          max_deals: Any = None) -> State:
    """The match with this identity, before its first action.  An unknown game, option or number of
    players raises ``ValueError`` (one line that names the valid ones)."""
    return load_game(game, **dict(options or {})).new_match(seed=seed, players=players, max_deals=max_deals)


def replay(state: State, actions: Iterable[str] | Chooser) -> Iterator[Ply]:
    """Play ``actions`` on ``state`` (changed in place), yielding a :class:`Ply` after each one (see the
    module doc)."""
    choose = actions if callable(actions) else _logged(actions)
    while not state.is_over():
        seat = state.current_player
        assert seat is not None, "a match that is not over has a seat to act"
        action = choose(state)
        if action is None:
            return
        index, deal, phase, seen = len(state.history), state.deal_no, state.phase, len(state.events)
        state.apply(action)
        yield Ply(index, seat, deal, phase, action, state.events[seen:])


def _logged(actions: Iterable[str]) -> Chooser:
    """A chooser that plays ``actions`` in order, then stops."""
    it = iter(actions)

    def choose(_: State) -> str | None:
        return next(it, None)

    return choose
